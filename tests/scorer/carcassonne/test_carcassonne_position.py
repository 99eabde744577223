"""A board as it lies on the table, rebuilt and scored at the end of the game."""

from __future__ import annotations

import pytest

from scorer.carcassonne.engine import IllegalPosition, finish, position
from scorer.carcassonne.model import CATEGORIES, Category, Figure

ROW = {(0, 0): ("D", 0), (1, 0): ("U", 0), (2, 0): ("V", 0), (2, 1): ("U", 90), (0, 1): ("E", 180), (1, 1): ("B", 0)}


def _points(state: object, seat: int, cat: Category) -> int:
    return state.points[seat][CATEGORIES.index(cat)]  # type: ignore[attr-defined]


def test_unfinished_features_score_at_the_end() -> None:
    figures = [(0, Figure.MEEPLE, (0, 0), "city:N"), (1, Figure.MEEPLE, (1, 0), "road:W"),
               (1, Figure.MEEPLE, (1, 1), "monastery")]
    final, events = finish(position(["Ann", "Ben"], ROW, figures))
    assert _points(final, 0, Category.CITY) == 1
    assert _points(final, 1, Category.ROAD) == 4
    # a monastery with its tile and 4 neighbours (D, U, V, U, E around B at 1,1: five of eight) scores 6
    assert _points(final, 1, Category.MONASTERY) == 6
    assert events


@pytest.mark.parametrize(("tiles", "figures", "reason"), [
    ({(0, 0): ("D", 0), (1, 0): ("E", 0)}, [], "edges do not match"),
    ({(0, 0): ("C", 0), (5, 5): ("C", 0)}, [], "the box holds 1"),
    ({(0, 0): ("D", 0), (3, 0): ("U", 0)}, [], "more than one piece"),
    ({(0, 0): ("D", 0)}, [(0, Figure.MEEPLE, (0, 0), "monastery")], "has no monastery"),
])
def test_illegal_boards_say_why(tiles: dict, figures: list, reason: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(IllegalPosition, match=reason):
        position(["Ann"], tiles, figures)


def test_an_eighth_meeple_is_illegal() -> None:
    tiles = {(x, 0): ("U", 0) for x in range(8)}
    figures = [(0, Figure.MEEPLE, (x, 0), "field:NL") for x in range(8)]
    with pytest.raises(IllegalPosition, match="owns 7"):
        position(["Ann"], tiles, figures)
