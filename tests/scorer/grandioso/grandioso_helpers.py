"""Build Circus Grandioso positions by hand for the tests."""

from __future__ import annotations

from collections.abc import Sequence

from scorer.grandioso import Card, Grandioso, GrandiosoState, Pyramid
from scorer.grandioso.game import Phase
from scorer.grandioso.pyramid import ROWS

GAME = Grandioso()
PLAYERS = ("Ann", "Ben")


def cards(*names: str) -> tuple[Card, ...]:
    """Cards from their record names."""
    return tuple(Card.parse(n) for n in names)


def pyramid(*rows: tuple[int, int], clowns: Sequence[tuple[int, int]] = ()) -> Pyramid:
    """Rows bottom first as ``(leftmost column, width)``, each filled with its animal;
    ``clowns`` lists ``(row, col)`` places that hold a Clown instead."""
    lefts = [0] * ROWS
    cells: list[tuple[Card, ...]] = [()] * ROWS
    for r, (left, width) in enumerate(rows):
        lefts[r] = left
        cells[r] = tuple(
            Card.CLOWN if (r, left + i) in clowns else Card(r) for i in range(width)
        )
    return Pyramid(tuple(lefts), tuple(cells))


def _row(card: Card) -> int:
    return card.value


def position(
    pyr: Pyramid,
    hand: Sequence[str],
    *,
    other: Sequence[str] = ("camel",),
    stack: Sequence[str] = ("pony", "lion"),
    singles: Sequence[str] = (),
    show_master: int | None = None,
    placed: bool = False,
    drawn: str | None = None,
) -> GrandiosoState:
    """Ann (seat 0) to move with ``hand``; Ben holds ``other``."""
    mine: list[Card] = sorted(cards(*hand), key=_row)
    return GrandiosoState(
        players=PLAYERS,
        pyramid=pyr,
        hands=(tuple(mine), cards(*other)),
        stack=cards(*stack),
        singles=cards(*singles),
        show_master=show_master,
        placed=placed,
        phase=Phase.DRAWN if drawn else Phase.PLAY,
        drawn=None if drawn is None else Card.parse(drawn),
    )


def slots(state: GrandiosoState) -> set[tuple[int, int, str]]:
    """The legal slots as ``(row, col, animal)``."""
    from scorer.grandioso import legal_slots

    return {(s.row, s.col, s.animal.notation) for s in legal_slots(state)}


#: DECISIONS.md §2.5: Elephant 0-5, Rhino 0-4, Camel 0-3, Pony 0-2, Tiger 0-0.
LOST_EXAMPLE = pyramid((0, 6), (0, 5), (0, 4), (0, 3), (0, 1))
