"""Build Circus Flohcati positions by hand for the tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from scorer.flohcati import DECK, Flea, Flohcati, FlohcatiState, parse_card
from scorer.flohcati.cards import DeckCard

GAME = Flohcati()
PLAYERS = ("Ann", "Ben", "Cat")


def F(name: str) -> Flea:
    """A flea card from its record name."""
    return Flea.parse(name)


def stacked(*top: str, players: Sequence[str] = PLAYERS, gala_bonus: int = 0) -> FlohcatiState:
    """A fresh game whose stack starts with ``top`` (then the rest of the box in order)."""
    first = [parse_card(n) for n in top]
    rest = list(DECK)
    for card in first:
        rest.remove(card)
    return GAME.stack_state(players, first + rest, gala_bonus=gala_bonus)


def _index(card: Flea) -> int:
    return card.index


def with_hands(
    state: FlohcatiState,
    hands: Mapping[int, Sequence[str]],
    trios: Mapping[int, Sequence[Sequence[str]]] | None = None,
) -> FlohcatiState:
    """Move the named cards out of the stack into hands (and trios)."""
    stack: list[DeckCard | None] = list(state.stack)
    new_hands = list(state.hands)
    new_trios = list(state.trios)
    for seat, names in hands.items():
        cards = [F(n) for n in names]
        for card in cards:
            stack.remove(card)
        ordered: list[Flea] = sorted(cards, key=_index)
        new_hands[seat] = tuple(ordered)
    for seat, sets in (trios or {}).items():
        out = []
        for names in sets:
            a, b, c = sorted((F(n) for n in names), key=lambda f: f.index)
            for card in (a, b, c):
                stack.remove(card)
            out.append((a, b, c))
        new_trios[seat] = tuple(out)
    unseen = frozenset(c for c in stack if isinstance(c, Flea))
    return replace(
        state, stack=tuple(stack), hands=tuple(new_hands), trios=tuple(new_trios), unseen=unseen
    )


def play(state: FlohcatiState, *texts: str) -> FlohcatiState:
    """Play moves written in notation, checking each."""
    for text in texts:
        state, _ = GAME.play(state, GAME.parse_move(state, text))
    return state
