"""Random full games of Circus Grandioso per second on one core.

Run: ``PYTHONPATH=. python benchmarks/bench_grandioso.py [SECONDS]``. Prints,
for 2, 3 and 4 players, games per second of CPU time (``time.process_time``,
which a busy machine disturbs least) and of wall time:

* ``simulate``: `Grandioso.simulate`, which writes the record; its random
  player picks a kind of move (place, draw, exchange, pass) and then a move;
* ``random_playout``: `scorer.core.random_playout`, uniform over every legal
  move; exchanges outnumber everything, so its games are several times longer.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from scorer.core import DEFAULT_NAMES, random_playout
from scorer.grandioso import Grandioso


def rate(run: Callable[[int], int], seconds: float) -> tuple[float, float, float]:
    """Run ``run(seed)`` for ``seconds``: (games per CPU second, per wall second, moves per game)."""
    games = moves = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        moves += run(games)
        games += 1
    return (
        games / (time.process_time() - cpu),
        games / (time.perf_counter() - wall),
        moves / games,
    )


def main() -> None:
    """Print the figures."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    game = Grandioso()
    for n in (2, 3, 4):
        players = DEFAULT_NAMES[:n]

        def sim(seed: int, players: tuple[str, ...] = players) -> int:
            return len(game.simulate(players, random.Random(seed))["moves"])

        def uniform(seed: int, players: tuple[str, ...] = players) -> int:
            state = game.new_state(players, random.Random(seed))
            return len(random_playout(game, state, random.Random(seed))[1])

        for label, run in (("simulate", sim), ("random_playout", uniform)):
            cpu, wall, length = rate(run, seconds)
            print(
                f"grandioso {n} players  {label:<15} {cpu:7.1f} games/s CPU  "
                f"{wall:7.1f} games/s wall  ({length:.0f} moves/game)"
            )


if __name__ == "__main__":
    main()
