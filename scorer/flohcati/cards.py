"""The Circus Flohcati deck: 80 flea cards (10 colours x values 0..7) and 9 action cards.

Flea cards are written ``<colour>-<value>``: ``red-7``, ``grey-0``. Action
cards are written by their kind: ``new-attraction``, ``take-attraction``,
``request-attraction`` (three of each).

>>> Flea.parse("red-7")
Flea.parse('red-7')
>>> parse_card("take-attraction")
<Action.TAKE: 'take-attraction'>
>>> len(DECK)
89
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from scorer.core import UnknownComponent

__all__ = [
    "ACTION_COPIES",
    "DECK",
    "FLEAS",
    "VALUES",
    "Action",
    "Colour",
    "DeckCard",
    "Flea",
    "card_name",
    "parse_card",
]

#: Values on the flea cards: 0 to 7.
VALUES = range(8)
#: Copies of each action card.
ACTION_COPIES = 3


class Colour(enum.Enum):
    """The ten kinds (colours) of flea."""

    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    TEAL = "teal"
    BLUE = "blue"
    PURPLE = "purple"
    PINK = "pink"
    BROWN = "brown"
    GREY = "grey"

    @property
    def index(self) -> int:
        """Position of the colour in the list above (0..9)."""
        return _COLOUR_INDEX[self]

    @classmethod
    def parse(cls, text: str) -> Colour:
        """Read a colour name.

        :raises UnknownComponent: for a name that is not a flea colour.
        """
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(c.value for c in cls)
            raise UnknownComponent(f"unknown colour {text!r}: use {names}") from None


_COLOUR_INDEX = {c: i for i, c in enumerate(Colour)}


class Action(enum.Enum):
    """The three kinds of action card."""

    NEW = "new-attraction"
    TAKE = "take-attraction"
    REQUEST = "request-attraction"

    @property
    def label(self) -> str:
        """``New attraction`` and so on."""
        return self.value.replace("-", " ").capitalize()


@dataclass(frozen=True, slots=True)
class Flea:
    """One circus card: a colour and a value 0..7. Use `Flea.of` to get the shared instance."""

    colour: Colour
    value: int
    #: Sort position: colour first, then value.
    index: int = field(init=False, repr=False, compare=False)
    #: The record spelling: ``red-7``.
    name: str = field(init=False, repr=False, compare=False)
    #: The name a player reads: ``red 7``.
    label: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.value not in VALUES:
            raise UnknownComponent(f"flea cards have values 0 to 7, not {self.value}")
        object.__setattr__(self, "index", self.colour.index * 8 + self.value)
        object.__setattr__(self, "name", f"{self.colour.value}-{self.value}")
        object.__setattr__(self, "label", f"{self.colour.value} {self.value}")

    def __repr__(self) -> str:
        return f"Flea.parse({self.name!r})"

    def __hash__(self) -> int:
        return self.index

    @staticmethod
    def of(colour: Colour, value: int) -> Flea:
        """The shared instance for this colour and value."""
        return FLEAS[colour.index * 8 + value]

    @staticmethod
    def parse(text: str) -> Flea:
        """Read ``red-7``.

        :raises UnknownComponent: for anything that is not a flea card.
        """
        card = parse_card(text)
        if not isinstance(card, Flea):
            raise UnknownComponent(f"{text!r} is an action card, not a flea card")
        return card


FLEAS: tuple[Flea, ...] = tuple(Flea(c, v) for c in Colour for v in VALUES)

#: A card of the draw stack.
DeckCard = Flea | Action

#: The 89 cards of the box.
DECK: tuple[DeckCard, ...] = FLEAS + tuple(a for a in Action for _ in range(ACTION_COPIES))

_BY_NAME: dict[str, DeckCard] = {f.name: f for f in FLEAS}
_BY_NAME.update({a.value: a for a in Action})


def parse_card(text: str) -> DeckCard:
    """Read a flea card (``red-7``) or an action card (``new-attraction``).

    :raises UnknownComponent: for a name that is not a Flohcati card.
    """
    card = _BY_NAME.get(text.strip().lower())
    if card is None:
        raise UnknownComponent(
            f"unknown card {text!r}: write a flea as colour-value (red-0 to grey-7) or "
            "an action as new-attraction, take-attraction, request-attraction"
        )
    return card


def card_name(card: DeckCard) -> str:
    """The record spelling of any card."""
    return card.name if isinstance(card, Flea) else card.value
