"""The table stack: one adapter per game, chosen by name, honoured by the configuration and every command."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.config import ConfigError, parse_config
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.table import NoTableAdapter, adapter, adapter_names
from scorer.core import UnknownGame

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_adapter_loads_and_names_its_game() -> None:
    for name in adapter_names():
        table = adapter(name)
        assert table.game.name == name
    assert adapter("fan-tan") is adapter("fantan")


@pytest.fixture
def without_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game has a table adapter now: these tests take Carcassonne's away for a while."""
    import firmware.table as table

    modules = {k: v for k, v in table._MODULES.items() if k != WITHOUT_ADAPTER}
    adapters = {k: v for k, v in table._ADAPTERS.items() if v.game.name != WITHOUT_ADAPTER}
    monkeypatch.setattr(table, "_MODULES", modules)
    monkeypatch.setattr(table, "_ADAPTERS", adapters)


@pytest.mark.usefixtures("without_adapter")
def test_a_game_without_an_adapter_is_one_sentence_naming_those_that_have_one() -> None:
    with pytest.raises(NoTableAdapter) as err:
        adapter(WITHOUT_ADAPTER)
    message = str(err.value)
    assert "Carcassonne cannot be refereed at the table yet" in message
    assert all(name in message for name in adapter_names()) and "\n" not in message
    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        adapter("chess")


#: a game whose table adapter the `without_adapter` fixture takes away
WITHOUT_ADAPTER = "carcassonne"


@pytest.mark.usefixtures("without_adapter")
def test_config_refuses_a_game_the_table_cannot_referee() -> None:
    games = ", ".join(adapter_names())
    with pytest.raises(ConfigError, match=f"cannot be refereed at the table yet; games that can: {games}"):
        parse_config({"game": WITHOUT_ADAPTER, "seats": ["Ann", "Ben"]})


def test_config_game_is_honoured() -> None:
    assert parse_config({"game": "fantan"}).game == "fantan"
    assert parse_config({"game": "Fan-Tan"}).game == "fantan"


@pytest.mark.usefixtures("without_adapter")
@pytest.mark.parametrize("argv", [
    ["run", "--game", WITHOUT_ADAPTER, "--display", "dummy", "--buttons", "mock", "--max-frames", "0"],
    ["demo", "--game", WITHOUT_ADAPTER, "--seats", "1"],
])
def test_commands_refuse_games_without_an_adapter_in_one_line(
        argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main([*argv, *(["--journal", str(tmp_path / "j.db")] if argv[0] == "run" else ["--out", str(tmp_path)])])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"cannot be refereed at the table yet; games that can: {', '.join(adapter_names())}" in err


@pytest.mark.parametrize("argv, message", [
    (["demo", "--hands", "0"], "--hands must be 1 or more, not 0"),
    (["demo", "--hands", "-3"], "--hands must be 1 or more, not -3"),
    (["demo", "--seed", "-5"], "--seed must be 0 or more, not -5"),
    (["demo", "--seats", "2"], "Big Top is for 3 to 6 players, not 2"),
    (["demo", "--game", "fantan", "--seats", "9"], "Fan Tan is for 3 to 6 players, not 9"),
    (["run", "--still-frames", "0", "--display", "dummy"], "--still-frames must be 1 or more, not 0"),
    (["run", "--hands", "0", "--display", "dummy"], "--hands must be 1 or more, not 0"),
])
def test_counts_are_checked_in_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    extra = ["--journal", str(tmp_path / "j.db")] if argv[0] == "run" else ["--out", str(tmp_path)]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_fan_tan_is_refereed_through_the_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole stack for Fan Tan: simulated table, frames, vision, referee, panels, journal, ground truth."""
    code = main(["demo", "--game", "fantan", "--seats", "3", "--hands", "1", "--seed", "4", "--illegal-every", "7",
                 "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the referee agrees with the ground truth" in out and "illegal attempts caught" in out
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["game"] == "fantan" and "investments" not in record
    assert "peanuts. Winner:" in out  # the central panel ends on the final scores and the winner
    assert {p.name for p in (tmp_path / "panels").iterdir()} == {"Ann.gif", "Ben.gif", "Cat.gif", "centre.gif"}
    assert any((tmp_path / "frames").glob("*.jpg"))


@pytest.mark.usefixtures("without_adapter")
def test_export_picks_a_game_by_number_or_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="bigtop", parts=1)
        Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="fantan", parts=1)
    assert main(["export", "--journal", str(path), "--game", "bigtop"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "bigtop"
    assert main(["export", "--journal", str(path), "--game", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "fantan"
    assert main(["export", "--journal", str(path), "--game", WITHOUT_ADAPTER]) == 2
    assert "cannot be refereed" in capsys.readouterr().err


def test_a_fan_tan_game_ends_when_someone_is_broke(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="fantan", parts=5,
                                   header={"peanuts": {"Ann": 1, "Ben": 25, "Cat": 25}})
        assert referee.state.peanuts == (1, 25, 25)
        table = referee.table
        broke = referee.state.__class__  # the state type, to build a finished hand
        import dataclasses

        over = dataclasses.replace(referee.state, peanuts=(0, 26, 25), out=1)
        assert isinstance(over, broke)
        assert table.is_game_over(over, 1, 5)
        assert not table.is_game_over(dataclasses.replace(over, peanuts=(1, 25, 25)), 1, 5)
        assert referee.mode is Mode.PLAYING


# -- the dependency rule ------------------------------------------------------------------

def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _package_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package, forbidden", [
    ("scorer", ("vision", "hardware", "firmware", "cv2", "onnxruntime", "gpiozero", "luma", "picamera2")),
    ("hardware", ("firmware", "vision", "scorer")),
    ("vision", ("firmware", "hardware")),
])
def test_dependencies_point_one_way(package: str, forbidden: tuple[str, ...]) -> None:
    """firmware -> (vision, scorer, hardware); vision -> scorer; hardware and scorer import nothing of the others."""
    bad = []
    for path in _package_files(package):
        for name in _imports(path):
            if name.split(".")[0] in forbidden:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


CORE_VISION = ("__init__", "boardmatch", "boardoutline", "calibrate", "camera_model", "classify", "codematch", "config",
               "detect", "enroll", "enroll_sheet", "geometry", "images", "recall", "sheets", "twins")


@pytest.mark.parametrize("module", CORE_VISION)
def test_the_vision_core_knows_no_game(module: str) -> None:
    """The core stages import no game: not vision/<game>/, not the rules engines."""
    names = _imports(ROOT / "vision" / f"{module}.py")
    folders = tuple(f"vision.{p.name}" for p in (ROOT / "vision").iterdir() if (p / "__init__.py").exists())
    games = [n for n in names if n.startswith((*folders, "scorer"))
             or n.split(".")[:2] == ["vision", "cli"]]
    assert not games, games


def test_every_vision_module_outside_a_game_folder_is_core_or_the_command_line() -> None:
    top = {p.stem for p in (ROOT / "vision").glob("*.py")}
    assert top <= {*CORE_VISION, "cli"}, top - {*CORE_VISION, "cli"}


def test_no_import_cycles_between_packages() -> None:
    """Package-level imports form no cycle (firmware -> vision/scorer/hardware, vision -> scorer, ...)."""
    edges: dict[str, set[str]] = {}
    for package in ("scorer", "vision", "hardware", "firmware", "models"):
        for path in _package_files(package):
            for name in _imports(path):
                head = name.split(".")[0]
                if head != package and head in {"scorer", "vision", "hardware", "firmware", "models"}:
                    edges.setdefault(package, set()).add(head)
    seen: set[str] = set()

    def visit(node: str, stack: tuple[str, ...]) -> None:
        assert node not in stack, f"import cycle: {' -> '.join((*stack, node))}"
        if node in seen:
            return
        for nxt in edges.get(node, ()):
            visit(nxt, (*stack, node))
        seen.add(node)

    for package in edges:
        visit(package, ())


def test_switching_games_keeps_the_other_game_in_progress(tmp_path: Path) -> None:
    """A night that plays Fan Tan between two halves of a Big Top game loses nothing."""
    with Journal.open(tmp_path / "j.db") as journal:
        big = Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="bigtop", parts=2)
        Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="fantan", parts=1)
        back = Referee.resume(journal, game="bigtop")
        assert back is not None and back.live.id == big.live.id
        again = Referee.new_game(journal, ["Ann", "Ben", "Cat"], table="bigtop", parts=2)
        assert journal.game(big.live.id).finished and not again.live.finished  # the same game is replaced


def test_a_bad_web_address_is_refused_before_the_journal_changes(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        Referee.new_game(journal, ["Ann", "Ben", "Cat", "Dan"], table="bigtop", parts=2)
    assert main(["run", "--game", "fantan", "--web", "0.0.0.0:99999", "--display", "dummy", "--buttons", "mock",
                 "--journal", str(path)]) == 2
    assert "the port must be 1 to 65535" in capsys.readouterr().err
    with Journal.open(path) as journal:
        assert len(journal.game_ids()) == 1 and journal.resume("bigtop") is not None
