"""Final scoring of one market by the seed's table (docs/rules.md §1.4)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from scorer.grand_carnival.components import Catalog
from scorer.grand_carnival.model import Board

__all__ = [
    "SET_POINTS",
    "TENT_POINTS",
    "Breakdown",
    "best_sets",
    "hammers",
    "score_board",
    "score_parts",
]

#: Points for a set of 3, 4 or 5 attractions of one size [SEED].
SET_POINTS: dict[int, dict[int, int]] = {
    1: {3: 3, 4: 5, 5: 10},
    2: {3: 5, 4: 8, 5: 13},
    3: {3: 8, 4: 12, 5: 19},
    4: {3: 12, 4: 18, 5: 26},
    5: {3: 18, 4: 25, 5: 35},
}
VARIETY_POINTS = 22
#: Points for 0, 1, 2, 3 and 4-or-more guests in the circus tent [SEED].
TENT_POINTS = (0, 3, 6, 10, 15)
TICKET_THRESHOLD = 15
TICKET_POINTS = 12
BARKER_POINTS = 3


@cache
def best_sets(size: int, count: int) -> tuple[int, tuple[int, ...]]:
    """The best way to split ``count`` ticketed attractions of one size into sets.

    [DECISION] each attraction is in at most one set; a set holds 3, 4 or 5
    attractions of the same size; the partition scoring most is chosen.
    Returns the points and the set sizes, largest first.

    >>> best_sets(5, 6)   # two sets of three beat a set of five
    (36, (3, 3))
    """
    table = SET_POINTS[size]
    best: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    for n in range(1, count + 1):
        choice = best[n - 1]
        for k in (3, 4, 5):
            if n >= k:
                points, groups = best[n - k]
                if points + table[k] > choice[0]:
                    choice = (points + table[k], tuple(sorted(groups + (k,), reverse=True)))
        best.append(choice)
    return best[count]


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One market's final score by line of the scoring table."""

    sets: int
    #: (attraction size, set sizes) for every size that scores a set.
    set_groups: tuple[tuple[int, tuple[int, ...]], ...]
    variety: int
    tent: int
    tickets: int
    barkers: int
    hammers: int
    #: Tie-break facts: tickets on the market and tricks learned.
    tickets_held: int
    tricks: int

    @property
    def total(self) -> int:
        """The sum of every line (hammers count negative)."""
        return self.sets + self.variety + self.tent + self.tickets + self.barkers + self.hammers

    def to_json(self) -> dict[str, object]:
        """The breakdown as a JSON object."""
        return {
            "sets": self.sets,
            "set_groups": [{"size": s, "sets": list(g)} for s, g in self.set_groups],
            "variety": self.variety,
            "tent": self.tent,
            "tickets": self.tickets,
            "barkers": self.barkers,
            "hammers": self.hammers,
            "total": self.total,
            "tickets_held": self.tickets_held,
            "tricks_learned": self.tricks,
        }


def score_parts(
    attractions: list[tuple[int, int]] | tuple[tuple[int, int], ...],
    tent: int,
    barkers: int,
    visible_hammers: int,
    tricks: int = 0,
) -> Breakdown:
    """Score a market given (size, tickets) per attraction and the other counts."""
    ticketed = [0] * 6
    held = 0
    for size, tickets in attractions:
        held += tickets
        if tickets > 0:
            ticketed[size] += 1
    set_points = 0
    groups = []
    for size in range(1, 6):
        points, sets = best_sets(size, ticketed[size])
        if sets:
            set_points += points
            groups.append((size, sets))
    return Breakdown(
        sets=set_points,
        set_groups=tuple(groups),
        variety=VARIETY_POINTS if all(ticketed[s] for s in range(1, 6)) else 0,
        tent=TENT_POINTS[min(tent, 4)],
        tickets=TICKET_POINTS if held >= TICKET_THRESHOLD else 0,
        barkers=BARKER_POINTS * barkers,
        hammers=-visible_hammers,
        tickets_held=held,
        tricks=tricks,
    )


def hammers(board: Board, catalog: Catalog) -> int:
    """Visible hammers: one per uncovered construction site, and the empty parcels'."""
    empty = sum(1 for p in board.parcels if p is None)
    return empty * catalog.empty_parcel_hammers + (board.sites & ~board.covered).bit_count()


def score_board(board: Board, catalog: Catalog) -> Breakdown:
    """The final score of a market as it stands."""
    return score_parts(
        [(a.mask.bit_count(), a.tickets) for a in board.attractions],
        board.tent,
        board.barkers.bit_count(),
        hammers(board, catalog),
        board.tricks_learned,
    )
