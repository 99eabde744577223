"""Circus Flohcati's scoring: hand points, trios and the chance of a bust (docs/rules.md §3.3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from scorer.flohcati.cards import Colour, Flea
from scorer.flohcati.model import TRIO_POINTS, FlohcatiState, Hand, Phase, TrioCards

__all__ = ["bust_probability", "hand_points", "score_of"]


def hand_points(hand: Sequence[Flea | None]) -> int:
    """The highest card of each colour in hand, added up (unknown cards count nothing).

    >>> hand_points([Flea.parse("red-6"), Flea.parse("red-2"), Flea.parse("blue-0")])
    6
    """
    best: dict[Colour, int] = {}
    for card in hand:
        if card is not None and card.value >= best.get(card.colour, 0):
            best[card.colour] = card.value
    return sum(best.values())


def score_of(hand: Sequence[Flea | None], trios: int, gala: int = 0) -> int:
    """10 per trio, plus `hand_points`, plus any gala bonus."""
    return TRIO_POINTS * trios + hand_points(hand) + gala


def _colours(hand: Sequence[Flea | None]) -> set[Colour]:
    return {c.colour for c in hand if c is not None}


def _has_trio(hand: Sequence[Flea | None]) -> bool:
    counts = [0] * 8
    for card in hand:
        if card is not None:
            counts[card.value] += 1
    return max(counts) >= 3


def bust_probability(state: FlohcatiState) -> Fraction:
    """The exact chance that the next card turned busts the player to move.

    The next card is equally likely to be any card not yet seen (the stack's
    make-up is public: every other card has been face up). It busts when it
    is a flea of a colour already in the row, New attraction is not in force,
    and it is not the stack's last card (which ends the game instead).

    >>> import random
    >>> from scorer.flohcati import Flohcati
    >>> s = Flohcati().new_state(["Ann", "Ben", "Cat"], random.Random(0))
    >>> bust_probability(s)
    Fraction(0, 1)
    """
    if state.phase is not Phase.TURNING or state.attraction or len(state.stack) <= 1:
        return Fraction(0)
    colours = {c.colour for c in state.display}
    busting = sum(1 for f in state.unseen if f.colour in colours)
    return Fraction(busting, len(state.stack))


def _trios_in(hand: Hand) -> list[TrioCards]:
    by_value: dict[int, list[Flea]] = {}
    for card in hand:
        if card is not None:
            by_value.setdefault(card.value, []).append(card)
    out: list[TrioCards] = []
    for cards in by_value.values():
        n = len(cards)
        for i in range(n):
            for j in range(i + 1, n):
                for k in range(j + 1, n):
                    out.append((cards[i], cards[j], cards[k]))
    return out
