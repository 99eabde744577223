"""Circus Flohcati's model: states, moves, phases and reasons (seed 003, docs/rules.md §3).

A state holds the draw stack (top first), the row of turned cards, the
discard pile, every hand and every player's trios. There is no deal: every
card in a hand was once face up in the row, so the referee knows the stack's
make-up (``unseen``) even when it cannot see the stack's order. Unknown cards
are ``None``; checks that need one answer UNVERIFIABLE.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from scorer.core import GameInfo
from scorer.flohcati.cards import Colour, DeckCard, Flea

__all__ = [
    "INFO",
    "TRIO_POINTS",
    "EndReason",
    "FlohcatiMove",
    "FlohcatiState",
    "Hand",
    "Phase",
    "Reason",
    "Request",
    "Show",
    "Steal",
    "Stop",
    "Take",
    "Trio",
    "TrioCards",
    "Turn",
]

INFO = GameInfo(
    title="Circus Flohcati",
    min_players=2,
    max_players=5,
    hidden_information=True,
    score_unit="points",
)

TRIO_POINTS = 10


class Phase(enum.Enum):
    """Where the player to move stands in their turn."""

    #: Turn the next card, or stop and take a card from the row.
    TURNING = "turning"
    #: A colour repeat was turned under New attraction: take one card, the repeat included.
    MUST_TAKE = "must take"
    #: Take attraction was turned: take a card from an opponent.
    STEAL = "steal"
    #: Request attraction was turned: name a colour and a direction.
    REQUEST = "request"
    #: The turn is over: lay out trios, show all ten colours, or stop.
    WRAP_UP = "wrap up"
    OVER = "over"


class EndReason(enum.Enum):
    """How the game ended."""

    STACK_EMPTY = "stack empty"
    ALL_COLOURS = "all colours"


class Reason(enum.Enum):
    """Why a move is illegal."""

    GAME_OVER = "game over"
    WRONG_PHASE = "wrong phase"
    WRONG_CARD = "wrong card"
    CARD_NOT_NAMED = "card not named"
    NOT_IN_ROW = "not in row"
    NOT_AN_OPPONENT = "not an opponent"
    EMPTY_HAND = "empty hand"
    MUST_STEAL = "must steal"
    NOT_HELD = "not held"
    WRONG_GIVER = "wrong giver"
    NO_TRIO_NOW = "no trio now"
    NOT_A_TRIO = "not a trio"
    NOT_ALL_COLOURS = "not all colours"
    NOT_A_MOVE = "not a move"


@dataclass(frozen=True, slots=True)


class Turn:
    """Turn the top card of the stack. ``card`` names it when the referee saw it."""

    card: DeckCard | None = None


@dataclass(frozen=True, slots=True)


class Take:
    """Stop and take ``card`` from the row into the hand."""

    card: Flea


@dataclass(frozen=True, slots=True)


class Steal:
    """Take attraction: take ``card`` from ``victim`` (None, None when no opponent has a card).

    The card is the random one the player drew from the fanned hand; None when
    the referee could not see it.
    """

    victim: int | None
    card: Flea | None


@dataclass(frozen=True, slots=True)


class Request:
    """Request attraction: ask for ``colour`` clockwise or not; ``giver`` gives ``card``.

    ``giver`` and ``card`` are None when nobody holds the colour; ``card`` is
    None when the referee could not see which card was given.
    """

    colour: Colour
    clockwise: bool
    giver: int | None
    card: Flea | None


@dataclass(frozen=True, slots=True)


class Trio:
    """Lay out three cards of one value (sorted by colour)."""

    cards: tuple[Flea, Flea, Flea]


@dataclass(frozen=True, slots=True)


class Show:
    """End the game by showing all ten colours in hand."""


@dataclass(frozen=True, slots=True)


class Stop:
    """End the turn (after laying trios, or instead of showing)."""


_TURN = Turn()

FlohcatiMove = Turn | Take | Steal | Request | Trio | Show | Stop
Hand = tuple[Flea | None, ...]
TrioCards = tuple[Flea, Flea, Flea]


@dataclass(frozen=True, slots=True)


class FlohcatiState:
    """One moment of a game. Hands are sorted; ``None`` is a card the referee can't see."""

    players: tuple[str, ...]
    #: The draw stack, top card first.
    stack: tuple[DeckCard | None, ...]
    #: The flea cards not yet turned face up: the stack's fleas, known even when its order is not.
    unseen: frozenset[Flea]
    hands: tuple[Hand, ...]
    trios: tuple[tuple[TrioCards, ...], ...]
    #: The row of turned cards, in the order they were turned.
    display: tuple[Flea, ...] = ()
    #: A colour repeat turned under New attraction, waiting for the take.
    repeat: Flea | None = None
    discard: tuple[DeckCard, ...] = ()
    turn: int = 0
    phase: Phase = Phase.TURNING
    #: New attraction is in force for the rest of this turn.
    attraction: bool = False
    #: The player to move gained a card this turn (they may lay out trios).
    gained: bool = False
    end: EndReason | None = None
    #: The player who ended the game by showing all ten colours.
    ender: int | None = None
    #: Points for ending the game with all ten colours (0 in the seed, 10 in the Amigo edition).
    gala_bonus: int = 0


_STATE_FIELDS = tuple(f.name for f in fields(FlohcatiState))
_STATE_INDEX = {name: i for i, name in enumerate(_STATE_FIELDS)}
_state_values = attrgetter(*_STATE_FIELDS)


def _evolve(state: FlohcatiState, **changes: Any) -> FlohcatiState:
    """`dataclasses.replace` without its checks (it is the simulation's hot spot)."""
    values = list(_state_values(state))
    for name, value in changes.items():
        values[_STATE_INDEX[name]] = value
    return FlohcatiState(*values)
