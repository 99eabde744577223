"""Circus Grandioso's model: states, moves, phases and reasons (seed 001, docs/rules.md §2).

A state holds the pyramid, every hand, the face-down stack (top first), the
hidden single cards lying on the table, whose turn it is and the Show Master.
Unknown cards are ``None``: a state built from a record without the deal is a
public-information state, where checks that need a hidden card answer
UNVERIFIABLE.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from scorer.core import GameInfo
from scorer.grandioso.pyramid import Card, Pyramid

__all__ = [
    "HAND_SIZE",
    "INFO",
    "Draw",
    "EndReason",
    "Exchange",
    "GrandiosoMove",
    "GrandiosoState",
    "Hand",
    "LayDown",
    "Pass",
    "Phase",
    "Place",
    "Reason",
]

INFO = GameInfo(
    title="Circus Grandioso",
    min_players=2,
    max_players=4,
    hidden_information=True,
    score_unit="Show Master",
)


Hand = tuple[Card | None, ...]

#: Cards dealt to each player.
HAND_SIZE = 7


class Phase(enum.Enum):
    """Where the player to move stands in their turn."""

    #: Choose an option: place a hand card, draw, exchange (or pass).
    PLAY = "play"
    #: Holding a card just drawn: place it or lay it face down.
    DRAWN = "drawn"
    OVER = "over"


class EndReason(enum.Enum):
    """Why the game ended."""

    LAST_CARD = "last card"
    SEAL = "seal"
    STALEMATE = "stalemate"


class Reason(enum.Enum):
    """Why a move is illegal."""

    GAME_OVER = "game over"
    NOT_IN_HAND = "not in hand"
    NOT_DRAWN = "not the drawn card"
    WRONG_ANIMAL = "wrong animal"
    NO_SUPPORT = "no support"
    BASE_FULL = "base full"
    TOP_FIRST = "top first"
    NOT_HIGHEST = "not highest"
    CLOWN_ON_TOP = "clown on top"
    SECOND_CLOWN = "second clown"
    MUST_RESOLVE = "must resolve draw"
    NOTHING_DRAWN = "nothing drawn"
    EMPTY_SOURCE = "empty source"
    CANNOT_PASS = "cannot pass"
    CARD_NOT_NAMED = "card not named"
    NOT_A_MOVE = "not a move"


@dataclass(frozen=True, slots=True)


class Place:
    """Put ``card`` at ``(row, col)``: from the hand, or the card just drawn."""

    card: Card
    row: int
    col: int


@dataclass(frozen=True, slots=True)


class Draw:
    """Pick up the top card of the stack (``single`` None) or hidden single number ``single``."""

    single: int | None = None


@dataclass(frozen=True, slots=True)


class LayDown:
    """Lay the card just drawn face down as a new hidden single; the turn ends."""


@dataclass(frozen=True, slots=True)


class Exchange:
    """Lay hand card ``card`` face down and take the stack's top or a hidden single.

    ``card`` is None when the referee could not see which card was laid down.
    """

    card: Card | None
    single: int | None = None


@dataclass(frozen=True, slots=True)


class Pass:
    """End the turn after a placement, or pass when no option is left."""


GrandiosoMove = Place | Draw | LayDown | Exchange | Pass


@dataclass(frozen=True, slots=True)


class GrandiosoState:
    """One moment of a game. Hands are sorted; ``None`` is a card nobody can see."""

    players: tuple[str, ...]
    pyramid: Pyramid
    hands: tuple[tuple[Card | None, ...], ...]
    #: The face-down stack, top card first.
    stack: tuple[Card | None, ...]
    #: The hidden single cards on the table, in the order they were laid down.
    singles: tuple[Card | None, ...]
    turn: int = 0
    phase: Phase = Phase.PLAY
    #: The card just drawn (phase DRAWN), None when unseen or when none is drawn.
    drawn: Card | None = None
    #: True once the player to move has placed a card this turn.
    placed: bool = False
    show_master: int | None = None
    #: Turns in a row that ended with a pass and no placement.
    passes: int = 0
    end: EndReason | None = None


_STATE_FIELDS = tuple(f.name for f in fields(GrandiosoState))
_STATE_INDEX = {name: i for i, name in enumerate(_STATE_FIELDS)}
_state_values = attrgetter(*_STATE_FIELDS)


def _evolve(state: GrandiosoState, **changes: Any) -> GrandiosoState:
    """`dataclasses.replace` without its checks (it is the simulation's hot spot)."""
    values = list(_state_values(state))
    for name, value in changes.items():
        values[_STATE_INDEX[name]] = value
    return GrandiosoState(*values)


def _key(card: Card | None) -> int:
    return 99 if card is None else card.value


def _sorted(cards: Sequence[Card | None]) -> tuple[Card | None, ...]:
    return tuple(sorted(cards, key=_key))


def _without(hand: tuple[Card | None, ...], card: Card | None) -> tuple[Card | None, ...]:
    """The hand less one ``card`` (or, when it is not there, less one unknown card)."""
    i = hand.index(card) if card in hand else hand.index(None)
    return hand[:i] + hand[i + 1 :]
