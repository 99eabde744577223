"""The ``ringside`` command line: exit statuses 0/2/3 and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def simulate(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    path = tmp_path / "game.json"
    code, _, err = run(capsys, "simulate", "bigtop", "--seed", "4", "--out", str(path), *extra)
    assert code == 0 and "wrote" in err
    return path


def test_simulate_then_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = simulate(tmp_path, capsys, "--players", "5", "--hands", "5")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert "Score sheet" in out and "Winner" in out
    code, out, _ = run(capsys, "replay", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and len(data["hands"]) == 5 and set(data["totals"]) == {"Ann", "Ben", "Cat", "Dan", "Eva"}


def test_same_seed_same_record(capsys: pytest.CaptureFixture[str]) -> None:
    _, a, _ = run(capsys, "simulate", "fantan", "--seed", "9", "--players", "4")
    _, b, _ = run(capsys, "simulate", "fantan", "--seed", "9", "--players", "4")
    assert a == b and json.loads(a)["game"] == "fantan"


def test_illegal_move_exits_3_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = simulate(tmp_path, capsys)
    record = json.loads(path.read_text())
    record["moves"].insert(0, "Ann pass")  # Ben moves first
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path), "--json")
    assert code == 3
    assert json.loads(out)["error"] == {"index": 0, "move": "Ann pass", "reason": "It is Ben's turn, not Ann's."}
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 3 and "ILLEGAL move 1 (Ann pass): It is Ben's turn, not Ann's." in out


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "a record is a JSON object"),
        ('{"game": "chess"}', "unknown game 'chess'"),
        ('{"game": "bigtop"}', "no 'players' field"),
    ],
)
def test_bad_input_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert words in err and err.count("\n") == 1 and err.startswith("ringside: ")


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "/nonexistent/record.json")
    assert code == 2 and "cannot read /nonexistent/record.json" in err


def test_bad_player_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "bigtop", "--players", "2")
    assert code == 2 and "3 to 6 players" in err


def test_console_script_has_no_traceback(tmp_path: Path) -> None:
    """Run as a user would: a real process, a malformed record, one line on stderr."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"game": "bigtop", "players": ["A", "B", "C"], "dealer": "A",
                                "deal": {"A": ["clowns-Z"], "B": [], "C": []},
                                "investments": {}, "moves": []}))
    proc = subprocess.run(
        [sys.executable, "-m", "firmware", "replay", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "ringside: deal.A[0]: unknown card 'clowns-Z': cards are written like 'animals-D6', "
        "'clowns-P' or 'sideshow-L1'"
    )


def test_numpy_blas_runs_on_one_thread_unless_the_user_chose(tmp_path: Path) -> None:
    """Any ``ringside`` command keeps numpy's BLAS on one thread, as the service file does; a user's value stays."""
    import os

    code = "import firmware.cli, os; print(os.environ['OMP_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert plain.stdout.strip() == "1"
    chosen = subprocess.run([sys.executable, "-c", code], env={**env, "OMP_NUM_THREADS": "3"},
                            capture_output=True, text=True, check=True)
    assert chosen.stdout.strip() == "3"
