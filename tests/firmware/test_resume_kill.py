"""Power cuts: ``ringside run`` is SIGKILLed at 20 random points of a simulated game and restarted.

Every restart must resume exactly the state the journal held when the
process died, every move the process announced as accepted must be in the
journal, nothing may be doubled, and the finished game must equal the
simulation's ground truth.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware.bigtop.tablesim import SimulatedTable
from firmware.journal import Journal
from firmware.referee import Referee
from firmware.runner import state_digest

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Ben", "Cat"]
SEED = 11
HANDS = 2
KILLS = 20
ACCEPTED = re.compile(r"^accepted (\d+)\.(\d+): (.+)$")
RESUMED = re.compile(r"state ([0-9a-f]{12})$")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def _command(journal: Path, config: Path) -> list[str]:
    camera = f"simulated:seats={len(PLAYERS)},hands={HANDS},seed={SEED},still_frames=3,moving_frames=1"
    return [sys.executable, "-m", "firmware", "run", "--config", str(config), "--camera", camera,
            "--display", "dummy", "--buttons", "mock", "--journal", str(journal), "--hands", str(HANDS),
            "--still-frames", "2"]


class _Run:
    """One referee process whose output lines are collected as they come."""

    def __init__(self, command: list[str]) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.lines: list[str] = []
        self.accepted = threading.Semaphore(0)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("accepted "):
                self.accepted.release()

    def wait_for_moves(self, count: int, timeout: float = 60.0) -> bool:
        """True once ``count`` more moves were announced; False if the process ended first."""
        deadline = time.monotonic() + timeout
        for _ in range(count):
            while not self.accepted.acquire(timeout=0.05):
                if self.proc.poll() is not None and not self._reader.is_alive():
                    return False
                if time.monotonic() > deadline:
                    raise AssertionError(f"no progress within {timeout}s: {self.lines[-5:]}")
        return True

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.finish()

    def finish(self) -> int:
        rc = self.proc.wait(timeout=120)
        self._reader.join(timeout=10)
        return rc


def _journal_state(path: Path) -> tuple[str | None, dict[int, list[str]]]:
    """The digest a restart would resume from (None: the game is over) and the moves of every hand."""
    with Journal.open(path) as journal:
        live = journal.game(journal.game_ids()[-1])
        moves = {h: live.moves(h) for h in range(1, live.part_number() + 1)}
        referee = Referee.resume(journal)
        return (state_digest(referee) if referee is not None else None), moves


def _truth() -> dict[int, list[str]]:
    """The moves the simulated table plays (its seats are named in the record as in the config)."""
    table = SimulatedTable(PLAYERS, hands=HANDS, seed=SEED)
    for _ in table.steps():
        pass
    hands: list[dict[str, list[str]]] = table.record["hands"]  # type: ignore[assignment]
    return {number: hand["moves"] for number, hand in enumerate(hands, 1)}


def test_sigkill_at_random_points_loses_and_doubles_nothing(tmp_path: Path) -> None:
    config = tmp_path / "ringside.toml"
    config.write_text(f"seats = {PLAYERS!r}\n".replace("'", '"'))
    journal = tmp_path / "journal.db"
    truth = _truth()
    rng = random.Random(20261123)
    kills = 0
    expected_digest: str | None = None
    while True:
        run = _Run(_command(journal, config))
        going = run.wait_for_moves(rng.randint(1, 5))
        if going and kills < KILLS:
            time.sleep(rng.uniform(0.0, 0.25))  # anywhere in the frame cycle, a journal write included
            run.kill()
            kills += 1
        else:
            assert run.finish() == 0, run.proc.stderr.read() if run.proc.stderr else ""
        resumed = [m.group(1) for line in run.lines if line.startswith("resuming") and (m := RESUMED.search(line))]
        if expected_digest is not None:
            assert resumed == [expected_digest], run.lines[:3]
        digest, moves = _journal_state(journal)
        for line in run.lines:
            if (m := ACCEPTED.match(line)) is not None:
                hand, number, text = int(m.group(1)), int(m.group(2)), m.group(3)
                assert moves[hand][number - 1] == text, f"announced move {hand}.{number} {text} is not in the journal"
        for hand, played in moves.items():
            assert played == truth[hand][:len(played)], f"hand {hand} differs from the table"
        expected_digest = digest
        if not going or digest is None or kills >= KILLS and run.proc.returncode == 0:
            break
    assert kills == KILLS, f"the game ended after {kills} kills"
    _, moves = _journal_state(journal)
    assert moves == truth
