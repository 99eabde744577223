"""Big Top speed: random full-information 5-player hands per second on one core,
and the wall time of ``ringside replay`` on a 5-hand game record (start-up included).

Run: python benchmarks/bench_bigtop.py
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

from scorer.bigtop import BigTop


def hands_per_second(seconds: float = 5.0) -> tuple[float, float]:
    game = BigTop()
    rng = random.Random(2026)
    names = ["A", "B", "C", "D", "E"]
    hands = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(names, rng, dealer=hands % 5)
        while state.out is None:
            options = game.legal_moves(state)
            state, _ = game.apply_unchecked(state, options[rng.randrange(len(options))])
            moves += 1
        hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, moves / hands


def checked_hands_per_second(seconds: float = 3.0) -> float:
    """The same with every move checked by play() (what replay does)."""
    game = BigTop()
    rng = random.Random(7)
    hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(["A", "B", "C", "D", "E"], rng)
        while state.out is None:
            options = game.legal_moves(state)
            state, _ = game.play(state, options[rng.randrange(len(options))])
        hands += 1
    return hands / (time.perf_counter() - start)


def replay_wall_time(runs: int = 5) -> float:
    record = BigTop().simulate(["Alf", "Henry", "Charles", "John", "Otto"], random.Random(5), hands=5)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(record, fh)
        path = fh.name
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "firmware", "replay", path], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    os.unlink(path)
    return min(times)


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores (pinned to one)")
    rate, moves = hands_per_second()
    print(f"random 5-player Big Top hands (legal_moves + apply_unchecked): {rate:.0f} hands/s "
          f"({moves:.0f} moves per hand; goal >= 300)")
    print(f"random 5-player hands, every move checked with play(): {checked_hands_per_second():.0f} hands/s")
    print(f"ringside replay of a 5-hand game record, wall time incl. start-up: {replay_wall_time() * 1000:.0f} ms "
          "(best of 5)")


if __name__ == "__main__":
    main()
