"""The Circus Grandioso cards and the animal pyramid (docs/rules.md §2.2, §2.3).

Rows run from 0 (Elephants) to 9 (the Seal). A card at ``(row, col)`` with
``row >= 1`` rests on ``(row - 1, col)`` and ``(row - 1, col + 1)``. Each row is
one unbroken run of columns; the starting Elephant lies at ``(0, 0)`` and the
base may grow to either side, up to ten cards.

>>> p = Pyramid.start()
>>> [(s.row, s.col, s.side.value) for s in p.open_slots()]
[(0, -1, 'left'), (0, 1, 'right')]
>>> p = p.with_card(0, 1, Card.ELEPHANT)
>>> [(s.row, s.col, s.side.value, s.animal.label) for s in p.open_slots()]
[(1, 0, 'top', 'Rhino')]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from scorer.core import UnknownComponent

__all__ = [
    "BASE_WIDTH",
    "BOX",
    "Card",
    "Pyramid",
    "ROWS",
    "Side",
    "Slot",
    "article",
]

#: Rows in the pyramid: Elephant (0) up to Seal (9).
ROWS = 10
#: The widest the Elephant row may grow (the printed overview).
BASE_WIDTH = 10


class Card(enum.Enum):
    """A Circus Grandioso card: one of the ten animals (value = its row) or a Clown."""

    ELEPHANT = 0
    RHINO = 1
    CAMEL = 2
    PONY = 3
    TIGER = 4
    BEAR = 5
    LION = 6
    CROCODILE = 7
    CHIMPANZEE = 8
    SEAL = 9
    CLOWN = 10

    @property
    def label(self) -> str:
        """The name a player reads: ``Elephant``, ``Clown``."""
        return self.name.capitalize()

    @property
    def notation(self) -> str:
        """The record spelling: ``elephant``, ``clown``."""
        return self.name.lower()

    @property
    def is_clown(self) -> bool:
        """True for the Clown."""
        return self is Card.CLOWN

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from its record spelling (case does not matter).

        >>> Card.parse("Tiger")
        <Card.TIGER: 4>

        :raises UnknownComponent: for a name that is not a Grandioso card.
        """
        card = _BY_NAME.get(text.strip().lower())
        if card is None:
            raise UnknownComponent(
                f"unknown card {text!r}: use elephant, rhino, camel, pony, tiger, bear, "
                "lion, crocodile, chimpanzee, seal or clown"
            )
        return card


_BY_NAME: dict[str, Card] = {c.notation: c for c in Card}
_BY_NAME.update({"ponys": Card.PONY, "ponies": Card.PONY, "chimp": Card.CHIMPANZEE})

#: How many of each card the box holds (55 animals, 8 clowns).
BOX: dict[Card, int] = {**{Card(r): ROWS - r for r in range(ROWS)}, Card.CLOWN: 8}


def article(card: Card) -> str:
    """``a Tiger``, ``an Elephant``.

    >>> article(Card.ELEPHANT)
    'an Elephant'
    """
    label = card.label
    return ("an " if label[0] in "AEIOU" else "a ") + label


class Side(enum.Enum):
    """Which way a slot extends the pyramid."""

    LEFT = "left"
    RIGHT = "right"
    TOP = "top"


@dataclass(frozen=True, slots=True)
class Slot:
    """A place a card may go now, with the animal its row takes.

    ``clown_ok`` says whether a Clown may go there instead (the row has no
    clown yet and the slot is not the top slot).
    """

    row: int
    col: int
    side: Side
    animal: Card
    clown_ok: bool

    def takes(self, card: Card) -> bool:
        """True when ``card`` may fill this slot."""
        return card is self.animal or (card is Card.CLOWN and self.clown_ok)

    def describe(self) -> str:
        """A phrase for a player: ``a Tiger (or a clown) on the right``."""
        what = article(self.animal) + (" (or a clown)" if self.clown_ok else "")
        where = "on top of the pyramid" if self.side is Side.TOP else f"on the {self.side.value}"
        return f"{what} {where}"


@dataclass(frozen=True, slots=True)
class Pyramid:
    """The pyramid: for each row its leftmost column and its cards, left to right.

    Empty rows are ``()``; their ``lefts`` entry is 0 and means nothing.
    """

    lefts: tuple[int, ...]
    rows: tuple[tuple[Card, ...], ...]
    #: `open_slots` once computed (a pyramid never changes, so it is kept).
    _open: tuple[Slot, ...] | None = field(default=None, init=False, compare=False, repr=False)

    @classmethod
    def start(cls) -> Pyramid:
        """The opening pyramid: one Elephant at ``(0, 0)``."""
        return cls((0,) * ROWS, ((Card.ELEPHANT,),) + ((),) * (ROWS - 1))

    # -- geometry -------------------------------------------------------------

    def height(self) -> int:
        """Index of the highest non-empty row (0 for the opening pyramid)."""
        t = ROWS - 1
        while t > 0 and not self.rows[t]:
            t -= 1
        return t

    def width(self, row: int) -> int:
        """Number of cards in ``row``."""
        return len(self.rows[row])

    def right(self, row: int) -> int:
        """Rightmost column of a non-empty row."""
        return self.lefts[row] + len(self.rows[row]) - 1

    def card_at(self, row: int, col: int) -> Card | None:
        """The card at ``(row, col)``, or None when that place is empty."""
        if not 0 <= row < ROWS:
            return None
        i = col - self.lefts[row]
        cards = self.rows[row]
        return cards[i] if 0 <= i < len(cards) else None

    def has_clown(self, row: int) -> bool:
        """True when ``row`` already holds a Clown."""
        return Card.CLOWN in self.rows[row]

    def top_slot(self) -> tuple[int, int] | None:
        """The slot that starts a new row, when the top row is two cards wide."""
        t = self.height()
        if t < ROWS - 1 and len(self.rows[t]) >= 2:
            return (t + 1, self.lefts[t])
        return None

    def left_candidates(self) -> list[tuple[int, int]]:
        """Every slot that extends a row to the left, lowest row first."""
        out: list[tuple[int, int]] = []
        if len(self.rows[0]) < BASE_WIDTH:
            out.append((0, self.lefts[0] - 1))
        for r in range(1, self.height() + 1):
            col = self.lefts[r] - 1
            if col >= self.lefts[r - 1]:
                out.append((r, col))
        return out

    def right_candidates(self) -> list[tuple[int, int]]:
        """Every slot that extends a row to the right, lowest row first."""
        out: list[tuple[int, int]] = []
        if len(self.rows[0]) < BASE_WIDTH:
            out.append((0, self.right(0) + 1))
        for r in range(1, self.height() + 1):
            col = self.right(r) + 1
            if col + 1 <= self.right(r - 1):
                out.append((r, col))
        return out

    def _slot(self, row: int, col: int, side: Side) -> Slot:
        clown_ok = side is not Side.TOP and not self.has_clown(row)
        return Slot(row, col, side, Card(row), clown_ok)

    def open_slots(self) -> tuple[Slot, ...]:
        """The legal slots: the top slot alone, or the highest slot on each side."""
        found = self._open
        if found is None:
            found = self._compute_open_slots()
            object.__setattr__(self, "_open", found)
        return found

    def _compute_open_slots(self) -> tuple[Slot, ...]:
        top = self.top_slot()
        if top is not None:
            return (self._slot(top[0], top[1], Side.TOP),)
        out: list[Slot] = []
        left = self.left_candidates()
        if left:
            out.append(self._slot(*left[-1], Side.LEFT))
        right = self.right_candidates()
        if right:
            out.append(self._slot(*right[-1], Side.RIGHT))
        return tuple(out)

    def side_of(self, row: int, col: int) -> Side | None:
        """Which kind of candidate ``(row, col)`` is, or None when no card can rest there."""
        if self.top_slot() == (row, col):
            return Side.TOP
        if (row, col) in self.left_candidates():
            return Side.LEFT
        if (row, col) in self.right_candidates():
            return Side.RIGHT
        return None

    def with_card(self, row: int, col: int, card: Card) -> Pyramid:
        """The pyramid with ``card`` added at ``(row, col)`` (no rule is checked)."""
        cards = self.rows[row]
        lefts = self.lefts
        if not cards:
            lefts = lefts[:row] + (col,) + lefts[row + 1 :]
            new: tuple[Card, ...] = (card,)
        elif col < lefts[row]:
            lefts = lefts[:row] + (col,) + lefts[row + 1 :]
            new = (card,) + cards
        else:
            new = cards + (card,)
        return Pyramid(lefts, self.rows[:row] + (new,) + self.rows[row + 1 :])

    def cells(self) -> list[tuple[int, int, Card]]:
        """Every card as ``(row, col, card)``, bottom row first, left to right."""
        return [
            (r, self.lefts[r] + i, card)
            for r in range(ROWS)
            for i, card in enumerate(self.rows[r])
        ]

    def shape_problem(self) -> str | None:
        """Why this pyramid could not arise in play, or None when its shape is fine."""
        if not self.rows[0]:
            return "the Elephant row is empty"
        if len(self.rows[0]) > BASE_WIDTH:
            return f"the Elephant row is wider than {BASE_WIDTH} cards"
        for r in range(ROWS):
            cards = self.rows[r]
            for card in cards:
                if card is not Card.CLOWN and card.value != r:
                    return f"row {r} holds {article(card)}; it takes only {Card(r).label}s"
            if cards.count(Card.CLOWN) > 1:
                return f"row {r} holds more than one clown"
            if len(cards) == 1 and cards[0] is Card.CLOWN:
                return f"row {r} is a lone clown; a clown never starts a row"
            if r == 0 or not cards:
                continue
            if not self.rows[r - 1]:
                return f"row {r} has no row under it"
            if self.lefts[r] < self.lefts[r - 1] or self.right(r) > self.right(r - 1) - 1:
                return f"row {r} is not carried by two cards under each card"
        return None

    def draw(self) -> str:
        """The pyramid as text, top row first, one short name per card."""
        lo = self.lefts[0]
        lines = []
        for r in range(self.height(), -1, -1):
            pad = " " * (3 * r + 6 * (self.lefts[r] - lo))
            names = "".join(f"{c.label[:5]:<6}" for c in self.rows[r])
            lines.append(f"{r}: {pad}{names}".rstrip())
        return "\n".join(lines)
