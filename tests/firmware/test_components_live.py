"""``ringside run`` and ``ringside demo`` play The Grand Carnival with the user's component values, end to end:
the engine, the record, the recogniser and the simulated camera hold one set; a game in progress keeps its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main
from firmware.grand_carnival import CarnivalTable
from firmware.grand_carnival.tablesim import SimulatedTable
from firmware.journal import Journal, JournalError
from firmware.referee import Referee
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import merge_components, shipped_data
from tests.firmware.components_helpers import user_file  # type: ignore[import-not-found]

#: A scoring value (each empty parcel shows three hammers) and a board fact the camera must see (the entrances).
MINE = "[market]\nempty_parcel_hammers = 3\n[entrances]\ncolumns = [\"c\", \"f\"]\n"
MINE_VALUES: dict[str, Any] = {"market": {"empty_parcel_hammers": 3}, "entrances": {"columns": ["c", "f"]}}
PLAYERS = ["Ann", "Ben"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def carnival(referee: Referee) -> GrandCarnival:
    """The engine a referee of The Grand Carnival plays with."""
    assert isinstance(referee.game, GrandCarnival)
    return referee.game


def live_argv(tmp_path: Path, seats: list[str], seed: int) -> list[str]:
    """``ringside run`` over a simulated camera, dummy panels and gpiozero's mock buttons."""
    config = tmp_path / "ringside.toml"
    config.write_text(f"game = \"grand-carnival\"\nseats = {json.dumps(seats)}\n", encoding="utf-8")
    return ["run", "--config", str(config), "--camera", f"simulated:seats={len(seats)},seed={seed},still_frames=3",
            "--display", "dummy", "--buttons", "mock", "--journal", str(tmp_path / "j.db"), "--still-frames", "2"]


def test_a_live_night_ends_with_the_users_scores_and_its_record_replays_the_same_after_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = user_file(tmp_path / "home", MINE, monkeypatch)
    argv = live_argv(tmp_path, ["Ann"], seed=4)
    # What the simulated players do, played with the user's values: the ground truth.
    truth = SimulatedTable(["Ann"], seed=4, game=GrandCarnival(MINE_VALUES, str(mine)))
    for _ in truth.steps():
        pass
    played: dict[str, Any] = dict(truth.record)
    expected = GrandCarnival().replay(played).data["scores"]
    one_hammer = merge_components(played["components"], {"market": {"empty_parcel_hammers": 1}}, "test")
    assert GrandCarnival().replay({**played, "components": one_hammer}).data["scores"] != expected

    # The first moves; then the user edits the file, and the referee is started again.
    code, out, err = run(capsys, *argv, "--max-frames", "30")
    assert code == 0, err
    assert (f"The Grand Carnival is played with the component values of {mine}: "
            "market.empty_parcel_hammers = 3; entrances.columns = [\"c\", \"f\"]") in out
    assert "accepted 1.3: " in out
    mine.write_text("[market]\nempty_parcel_hammers = 5\n", encoding="utf-8")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    # The game in progress goes on with the values it was started with (the camera draws, the recogniser
    # reads and the engine scores with them), and the user is told so in one line.
    assert (f"the game in progress goes on with the component values it was started with; {mine} differs at "
            "market.empty_parcel_hammers, entrances.columns and applies from the next game\n") in out
    assert f"Final: Ann {expected['Ann']}. Winner: Ann." in out

    # The record says which values it was played with, so it replays the same after the edit.
    record = tmp_path / "record.json"
    code, _, err = run(capsys, "export", "--journal", str(tmp_path / "j.db"), "--out", str(record))
    assert code == 0, err
    exported = json.loads(record.read_text(encoding="utf-8"))
    assert exported["moves"] == played["moves"] and exported["components"] == played["components"]
    code, replayed, err = run(capsys, "replay", str(record), "--json")
    assert code == 0, err
    assert json.loads(replayed)["scores"] == expected
    assert json.loads(replayed)["components"] == MINE_VALUES


def test_a_new_game_after_the_edit_plays_the_new_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a file nothing is said; a game in progress keeps its values; the next game takes the file's."""
    argv = [*live_argv(tmp_path, PLAYERS, seed=1), "--max-frames", "0"]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nobody"))
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "component values" not in out
    mine = user_file(tmp_path / "home", "[entrances]\ncolumns = [\"c\", \"f\"]\n", monkeypatch)
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "resuming the game of The Grand Carnival" in out
    assert f"started with; {mine} differs at entrances.columns and applies from the next game" in out
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.resume(journal)
        assert referee is not None and carnival(referee).components == shipped_data()
        referee.live.finish()
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "resuming" not in out
    assert f"component values of {mine}: entrances.columns = [\"c\", \"f\"]" in out
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.resume(journal)
        assert referee is not None
        assert carnival(referee).catalog.entrance_cells == (58, 61)
        assert referee.table.game is referee.game


def test_a_journal_game_resumes_with_the_values_it_was_started_with(tmp_path: Path) -> None:
    """Engine, adapter, recogniser and simulated camera of a resumed game all hold the journal's values."""
    game = GrandCarnival(MINE_VALUES, "mine.toml")
    with Journal.open(tmp_path / "j.db") as journal:
        Referee.new_game(journal, PLAYERS, table=CarnivalTable(game))
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.resume(journal)
        assert referee is not None
        assert carnival(referee).components == game.components and referee.table.game is referee.game
        assert referee.table.perceiver()._recognizer.catalog is game.catalog  # type: ignore[attr-defined]
        camera: Any = referee.table.open_simulated("seats=2")
        assert camera.table.game.components == game.components
        # a broken value in the journal is one line naming the game and the key, not a game with other values
        journal.db.execute("UPDATE parts SET header = json_set(header, '$.components.market.empty_parcel_hammers', "
                           "-1)")
        with pytest.raises(JournalError, match=r"^game 1 of the journal cannot be played: .*"
                                            r"market.empty_parcel_hammers must be"):
            Referee.resume(journal)


def test_the_demo_camera_draws_what_the_recogniser_expects_with_the_users_values() -> None:
    """The first frame of a demo night with other entrances: read whole by the table's recogniser, and the
    record that is the ground truth carries those values."""
    table = CarnivalTable().for_game(GrandCarnival(MINE_VALUES, "mine.toml"))
    night = table.simulated_night(PLAYERS, 1, seed=3)
    assert night.record["components"]["entrances"]["columns"] == ["c", "f"]
    frame = night.camera().read()
    seen = table.perceiver().recognize(frame)
    assert table.sighting(seen.view, PLAYERS).unrecognised == ()  # type: ignore[union-attr]
    shipped = CarnivalTable().perceiver().recognize(frame)
    assert any("in" in line for line in CarnivalTable().sighting(shipped.view, PLAYERS).unrecognised)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[market]\nempty_parcel_hammers = -1\n", "market.empty_parcel_hammers must be a whole number >= 0"),
        ("[entrance]\ncolumns = [\"c\", \"f\"]\n", "entrance: there is no such key"),
        ("market = [\n", "not valid TOML"),
    ],
)
def test_a_malformed_user_file_is_one_line_and_nothing_is_written(
    text: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = user_file(tmp_path / "home", text, monkeypatch)
    named = tmp_path / "named.toml"
    named.write_text(text, encoding="utf-8")
    argv = live_argv(tmp_path, PLAYERS, seed=1)
    for path, extra in ((mine, []), (named, ["--components", str(named)])):
        code, out, err = run(capsys, *argv, *extra)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"ringside run: {path}: ") and words in err, err
        assert not (tmp_path / "j.db").exists()
        code, out, err = run(capsys, "demo", "--game", "grand-carnival", "--out", str(tmp_path / "demo"), *extra)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"ringside demo: {path}: ") and words in err, err
        assert not (tmp_path / "demo").exists()


def test_components_for_run_and_demo_only_for_the_grand_carnival(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(MINE, encoding="utf-8")
    code, _, err = run(capsys, "run", "--game", "bigtop", "--camera", "simulated", "--display", "dummy",
                       "--journal", str(tmp_path / "j.db"), "--components", str(path))
    assert code == 2 and err == "ringside run: --components applies to grand-carnival only, not bigtop\n"
    assert not (tmp_path / "j.db").exists()
    code, _, err = run(capsys, "demo", "--game", "bigtop", "--out", str(tmp_path / "demo"), "--components", str(path))
    assert code == 2 and err == "ringside demo: --components applies to grand-carnival only, not bigtop\n"
    assert not (tmp_path / "demo").exists()
