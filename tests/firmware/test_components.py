"""A user's Grand Carnival components file: ``--components FILE`` and ``~/.config/ringside/grand-carnival.toml``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main
from firmware.components import ComponentsError, default_components_path, load_components
from tests.firmware.components_helpers import user_file  # type: ignore[import-not-found]

EMPTY_MARKET = {"game": "grand-carnival", "players": [{"name": "Ann", "market": ["........"] * 8}]}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_default_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_components_path() == tmp_path / "ringside" / "grand-carnival.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    assert default_components_path() == Path("~/.config/ringside/grand-carnival.toml").expanduser()


def test_no_user_file_means_the_shipped_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_components() == (None, "")
    with pytest.raises(ComponentsError, match="cannot read .*nothing.toml"):
        load_components(tmp_path / "nothing.toml")


def test_score_uses_the_default_user_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    position = tmp_path / "position.json"
    position.write_text(json.dumps(EMPTY_MARKET))
    code, out, _ = run(capsys, "score", "grand-carnival", str(position), "--json")
    assert code == 0 and json.loads(out)["scores"] == {"Ann": -16} and "components" not in json.loads(out)
    user_file(tmp_path / "home", "[market]\nempty_parcel_hammers = 2\n", monkeypatch)
    code, out, _ = run(capsys, "score", "grand-carnival", str(position), "--json")
    data = json.loads(out)
    assert code == 0 and data["scores"] == {"Ann": -32}
    assert data["components"] == {"market": {"empty_parcel_hammers": 2}}
    # --components names another file instead of the default one.
    other = tmp_path / "other.toml"
    other.write_text("[market]\nempty_parcel_hammers = 0\n")
    code, out, _ = run(capsys, "score", "grand-carnival", str(position), "--components", str(other))
    assert code == 0 and "market.empty_parcel_hammers = 0" in out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[barker]\nsupply = 3\n", "barker: there is no such key"),
        ("[barkers]\nsupply = { 5 = 3 }\n", "barkers.supply.5: there is no such key"),
        ("[barkers]\nsupply = { 2 = \"many\" }\n", "barkers.supply.2 must be a whole number, not a text"),
        ("[attractions]\nreflections = 1\n", "attractions.reflections must be true or false, not a whole number"),
        ("[tricks]\ndealt = 9\n", "tricks.dealt must be at most the number of tricks"),
        ("[market]\nempty_parcel_hammers = -1\n", "market.empty_parcel_hammers must be a whole number >= 0"),
        ("[entrances]\ncolumns = [\"b\", \"b\"]\n", "entrances.columns must be two different columns"),
        ("[[foundations]]\npattern = \"ws/ss\"\ncount = 3\ncolour = \"red\"\n", "foundations[0].colour: there is no"),
        ("[[foundations]]\npattern = \"wx/ss\"\ncount = 3\n", "foundations[0].pattern"),
        ("[[attractions.shapes]]\nname = \"X\"\nrows = [\"#.#\"]\ncount = { 1 = 1, 2 = 1, 3 = 1, 4 = 1 }\n",
         "attractions.shapes[0].rows: shape X must be one piece"),
        ("[[tricks.cards]]\nname = \"Fly\"\ncondition = { kind = \"tickets\", at_least = 2 }\neffect = \"fly\"\n",
         "tricks.cards[0].effect"),
        ("market = [\n", "not valid TOML"),
    ],
)
def test_a_wrong_user_file_is_one_line_naming_the_file_and_key(
    text: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    for command in (["simulate", "grand-carnival"], ["score", "grand-carnival", "-"]):
        code, out, err = run(capsys, *command, "--components", str(path))
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith(f"ringside: {path}: ") and words in err, err


def test_components_only_for_the_grand_carnival(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("[market]\nempty_parcel_hammers = 2\n")
    code, _, err = run(capsys, "simulate", "bigtop", "--components", str(path))
    assert code == 2 and err == "ringside: --components applies to grand-carnival only, not bigtop\n"


def simulate(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code, out, err = run(capsys, "simulate", "grand-carnival", "--players", "2", "--seed", "5", *extra)
    assert code == 0, err
    record: dict[str, Any] = json.loads(out)
    return record


def test_a_record_replays_the_same_after_the_user_edits_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = user_file(tmp_path / "home", "[barkers]\nsupply = { 2 = 1 }\n[entrances]\ncolumns = [\"a\", \"h\"]\n",
                     monkeypatch)
    record = simulate(capsys)
    assert record["components"]["barkers"]["supply"]["2"] == 1
    assert record["components"]["entrances"]["columns"] == ["a", "h"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, before, _ = run(capsys, "replay", str(path), "--json")
    assert code == 0 and json.loads(before)["finished"] is True
    assert json.loads(before)["components"] == {"barkers": {"supply": {"2": 1}}, "entrances": {"columns": ["a", "h"]}}
    mine.write_text("[entrances]\ncolumns = [\"c\", \"d\"]\n")
    code, after, _ = run(capsys, "replay", str(path), "--json")
    assert code == 0 and after == before
    code, text, _ = run(capsys, "replay", str(path))
    assert "differ from the shipped components.toml" in text and 'entrances.columns = ["a", "h"]' in text
    # The same record played with the shipped values is another game: the values matter.
    mine.unlink()
    plain = simulate(capsys)
    assert plain["moves"] != record["moves"]


def test_a_record_without_components_replays_with_the_shipped_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    record = simulate(capsys)
    del record["components"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(record))
    code, before, _ = run(capsys, "replay", str(path), "--json")
    user_file(tmp_path / "home", "[entrances]\ncolumns = [\"a\", \"h\"]\n", monkeypatch)
    code2, after, _ = run(capsys, "replay", str(path), "--json")
    assert code == code2 == 0 and before == after and "components" not in json.loads(after)


def test_replay_components_option_goes_over_the_records_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = simulate(capsys)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    mine = tmp_path / "mine.toml"
    mine.write_text("[entrances]\ncolumns = [\"a\", \"h\"]\n")
    code, plain, _ = run(capsys, "replay", str(path), "--json")
    code2, changed, _ = run(capsys, "replay", str(path), "--json", "--components", str(mine))
    # The record's guests walked in by b1 and g1: with the entrances moved, a walk is illegal.
    assert code == 0 and code2 == 3
    assert json.loads(changed)["components"] == {"entrances": {"columns": ["a", "h"]}}
    assert "components" not in json.loads(plain)
    mine.write_text("[market]\nempty_parcel_hammers = true\n")
    code, _, err = run(capsys, "replay", str(path), "--components", str(mine))
    assert code == 2 and err.startswith(f"ringside: {mine}: market.empty_parcel_hammers must be a whole number")


def test_a_record_with_broken_components_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = simulate(capsys)
    record["components"]["barkers"]["supply"]["2"] = -4
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "the record's components: barkers.supply" in err
