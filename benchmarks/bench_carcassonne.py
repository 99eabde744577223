"""Carcassonne benchmarks (one core): print the figures of issue 6's goals.

    python benchmarks/bench_carcassonne.py [--games N]

* random 4-player games with all 92 tiles, simulated and scored (goal >= 20 games/s);
* all legal placements of a tile on a 90-tile board (goal < 2 ms);
* final scoring of a full board (goal < 5 ms).
"""

from __future__ import annotations

import argparse
import random
import time

import scorer
from scorer.carcassonne import State
from scorer.carcassonne.catalog import CATALOG
from scorer.carcassonne.engine import figure_options, finish, placements
from scorer.core import random_playout

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]


def _board_before_the_end(seed: int, game: scorer.Game) -> State:  # type: ignore[type-arg]
    """A random 4-player game played until one tile is left to draw (about 90 tiles down)."""
    rng = random.Random(seed)
    state: State = game.new_state(PLAYERS, rng)
    while state.stack is not None and len(state.stack) > 1:
        assert state.stack is not None
        spots = placements(state, state.stack[0])
        pos, rotation = spots[rng.randrange(len(spots))]
        options = figure_options(state, state.stack[0], pos, rotation)
        state, _ = game.apply_unchecked(state, options[rng.randrange(len(options))])
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    game = scorer.get("carcassonne")

    start = time.perf_counter()
    for seed in range(args.games):
        game.simulate(PLAYERS, random.Random(seed))
    elapsed = time.perf_counter() - start
    print(f"simulate: {args.games / elapsed:.1f} games/s (4 players, 92 tiles, scored; goal >= 20)")

    start = time.perf_counter()
    for seed in range(args.games // 4 or 1):
        random_playout(game, game.new_state(PLAYERS, random.Random(seed)), random.Random(seed))
    elapsed = time.perf_counter() - start
    print(f"random_playout (every legal move listed each turn): {(args.games // 4 or 1) / elapsed:.1f} games/s")

    boards = [_board_before_the_end(seed, game) for seed in range(10)]
    print(f"boards: {sum(len(b.tiles) for b in boards) / len(boards):.1f} tiles on average")
    rounds = 0
    start = time.perf_counter()
    for board in boards:
        for name in CATALOG:
            placements(board, name)
            rounds += 1
    per = (time.perf_counter() - start) / rounds
    print(f"placements: {per * 1000:.3f} ms per tile type on a ~90-tile board (goal < 2 ms)")

    start = time.perf_counter()
    count = sum(len(game.legal_moves(board)) for board in boards)
    per = (time.perf_counter() - start) / len(boards)
    print(f"legal moves with figure choices: {per * 1000:.3f} ms per board ({count / len(boards):.0f} moves)")

    rounds = 0
    start = time.perf_counter()
    for _ in range(20):
        for board in boards:
            finish(board)
            rounds += 1
    per = (time.perf_counter() - start) / rounds
    print(f"final scoring: {per * 1000:.3f} ms per full board (goal < 5 ms)")


if __name__ == "__main__":
    main()
