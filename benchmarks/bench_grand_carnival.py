"""The Grand Carnival speed: random full games per second on one core (goal: 50),
and the best-partition final scoring of a full market (goal: under 1 ms).

Run: python benchmarks/bench_grand_carnival.py

Timings are CPU time of this process (one core), the best of a few runs, so
that other work on the machine skews them less. The engine memoises move
values and attraction placements, so the first game in a process is slower
than the rest.
"""

from __future__ import annotations

import platform
import random
import time

from scorer.core import random_playout
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.codec import position_board
from scorer.grand_carnival.scoring import best_sets, score_board

NAMES = ["A", "B", "C", "D"]


def games_per_second(players: int, seconds: float = 2.0, runs: int = 3) -> tuple[float, float]:
    """Uniformly random legal games (``legal_moves`` + ``apply_unchecked``), as
    `scorer.core.random_playout` plays them; the best of ``runs`` timings."""
    game = GrandCarnival()
    rng = random.Random(2026)
    best = 0.0
    games = moves = 0
    for _ in range(runs):
        count = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = game.new_state(NAMES[:players], rng)
            _, played = random_playout(game, state, rng)
            count += 1
            moves += len(played)
        best = max(best, count / (time.process_time() - start))
        games += count
    return best, moves / games


def simulate_per_second(players: int, seconds: float = 3.0) -> float:
    """``simulate()``: random games written out as records (notation included)."""
    game = GrandCarnival()
    rng = random.Random(7)
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game.simulate(NAMES[:players], rng)
        games += 1
    return games / (time.process_time() - start)


def replay_per_second(players: int, seconds: float = 3.0) -> float:
    """``replay()`` of a full record: parse, check and apply every move, then score."""
    game = GrandCarnival()
    record = game.simulate(NAMES[:players], random.Random(3))
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game.replay(record)
        games += 1
    return games / (time.process_time() - start)


# A full market: every parcel "ws/ss" (16 walkways, 48 sites) with 30 ticketed
# attractions of every size, so every scoring line and the partition search work.
FULL = ["wswswsws", "ssssssss"] * 4


def full_position() -> dict[str, object]:
    attractions: list[dict[str, object]] = []
    for r in (7, 5, 3, 1):
        attractions.append({"cells": [f"{c}{r}" for c in "abcde"], "tickets": 2})
        attractions.append({"cells": [f"f{r}", f"g{r}"], "tickets": 1})
        attractions.append({"cells": [f"h{r}"], "tickets": 1})
    for r in (8, 6, 4, 2):
        for c in "bdfh":
            attractions.append({"cells": [f"{c}{r}"], "tickets": 1})
    return {"name": "A", "market": FULL, "attractions": attractions, "tent": 3, "tricks": 1}


def scoring_microseconds(repeat: int = 20_000) -> tuple[float, float, float]:
    """Per-call time of: score_board (cached set table), the same with the set
    table's cache cleared each call, and score_position from JSON."""
    game = GrandCarnival()
    _, board = position_board(full_position(), game.catalog, "bench")
    start = time.process_time()
    for _ in range(repeat):
        score_board(board, game.catalog)
    warm = (time.process_time() - start) / repeat * 1e6
    start = time.process_time()
    for _ in range(repeat // 10):
        best_sets.cache_clear()
        score_board(board, game.catalog)
    cold = (time.process_time() - start) / (repeat // 10) * 1e6
    position = {"game": "grand-carnival", "players": [full_position()]}
    start = time.process_time()
    for _ in range(repeat // 10):
        game.score_position(position)
    parsed = (time.process_time() - start) / (repeat // 10) * 1e6
    return warm, cold, parsed


def main() -> None:
    """Print the figures."""
    print(f"Python {platform.python_version()} on {platform.machine()}, one core")
    for players in (1, 2, 3, 4):
        rate, length = games_per_second(players)
        print(f"random games, {players} player(s): {rate:7.1f} games/s ({length:.0f} moves each)")
    for players in (2, 4):
        print(f"simulate(),   {players} players:    {simulate_per_second(players):7.1f} records/s")
        print(f"replay(),     {players} players:    {replay_per_second(players):7.1f} records/s")
    warm, cold, parsed = scoring_microseconds()
    print(f"best-partition scoring of a full market: {warm:.1f} us (set table cached), "
          f"{cold:.1f} us (cache cleared), {parsed:.1f} us (score_position from JSON)")


if __name__ == "__main__":
    main()
