"""The Big Top deck: 4 suits x (Poster + light 1..6 + dark 1..6) = 52 cards.

Cards are written ``<suit>-<rank>`` as in RECORDS.md: ``animals-D6``,
``clowns-P``, ``sideshow-L1``.

>>> Card.parse("animals-D6")
Card.parse('animals-D6')
>>> Card.parse("animals-D6").describe()
'dark 6 Animals'
>>> len(DECK)
52
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from scorer.core import UnknownComponent

__all__ = ["DECK", "Card", "Shade", "Suit", "cards_of"]


class Suit(enum.IntEnum):
    """The four suits, in the order the Organizing Chart shows their pictures."""

    CLOWNS = 0
    SIDESHOW = 1
    ANIMALS = 2
    PERFORMERS = 3

    @property
    def label(self) -> str:
        """The record spelling: ``clowns``, ``sideshow``, ``animals``, ``performers``."""
        return self.name.lower()

    @property
    def title(self) -> str:
        """The name a player reads: ``Clowns``, ``Sideshow``..."""
        return self.name.capitalize()

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from its record spelling.

        :raises UnknownComponent: for anything else.
        """
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise UnknownComponent(
                f"unknown suit {text!r}: use clowns, sideshow, animals or performers"
            ) from None


class Shade(enum.IntEnum):
    """Poster, or the shade of a numbered card."""

    POSTER = 0
    LIGHT = 1
    DARK = 2


_SHADE_LETTER = {Shade.POSTER: "P", Shade.LIGHT: "L", Shade.DARK: "D"}


@dataclass(frozen=True, slots=True)
class Card:
    """One Big Top card. ``number`` is 0 for a Poster, else 1..6."""

    suit: Suit
    shade: Shade
    number: int
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.shade is Shade.POSTER:
            if self.number != 0:
                raise UnknownComponent(f"a Poster has no number (got {self.number})")
            index = 0
        elif 1 <= self.number <= 6:
            index = (self.shade - 1) * 6 + self.number
        else:
            raise UnknownComponent(f"card numbers run 1 to 6 (got {self.number})")
        object.__setattr__(self, "index", self.suit * 13 + index)

    def __hash__(self) -> int:
        return self.index

    def __repr__(self) -> str:
        return f"Card.parse({self.notation()!r})"

    @property
    def is_poster(self) -> bool:
        """True for the suit's Poster card."""
        return self.shade is Shade.POSTER

    def notation(self) -> str:
        """The record spelling, e.g. ``performers-L1``."""
        rank = "P" if self.is_poster else f"{_SHADE_LETTER[self.shade]}{self.number}"
        return f"{self.suit.label}-{rank}"

    def describe(self) -> str:
        """How a player would say it: ``dark 4 Sideshow``, ``Clowns Poster``."""
        if self.is_poster:
            return f"{self.suit.title} Poster"
        return f"{self.shade.name.lower()} {self.number} {self.suit.title}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card written ``<suit>-<rank>``.

        :raises UnknownComponent: when the text names no Big Top card.
        """
        if not isinstance(text, str):
            raise UnknownComponent(f"a card must be written as text like 'animals-D6', not {text!r}")
        card = _BY_NOTATION.get(text.strip().lower())
        if card is None:
            raise UnknownComponent(
                f"unknown card {text!r}: cards are written like 'animals-D6', "
                "'clowns-P' or 'sideshow-L1'"
            )
        return card


def _build_deck() -> tuple[Card, ...]:
    cards: list[Card] = []
    for suit in Suit:
        cards.append(Card(suit, Shade.POSTER, 0))
        for shade in (Shade.LIGHT, Shade.DARK):
            cards.extend(Card(suit, shade, n) for n in range(1, 7))
    return tuple(cards)


#: All 52 cards; ``DECK[card.index] is card``.
DECK: tuple[Card, ...] = _build_deck()
_BY_NOTATION = {c.notation().lower(): c for c in DECK}


def cards_of(suit: Suit) -> tuple[Card, ...]:
    """The 13 cards of a suit."""
    return DECK[suit * 13 : suit * 13 + 13]
