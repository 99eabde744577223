"""Build Big Top positions by hand for the tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scorer.bigtop import DECK, BigTop, BigTopMove, BigTopState, Card, Pile
from scorer.bigtop.engine import EMPTY_CHART, Action, Chart

GAME = BigTop()
C = Card.parse


def cards(*names: str) -> list[Card]:
    return [C(n) for n in names]


def position(
    hands: Sequence[Sequence[str]],
    *,
    to_move: int = 0,
    charts: Sequence[Sequence[str | None]] | None = None,
    tableau: dict[str, tuple[bool, int, int]] | None = None,
    track: Sequence[int] | None = None,
    investments: Sequence[tuple[int, int, int, int]] | None = None,
    game: BigTop = GAME,
) -> BigTopState:
    """A mid-hand state; cards not in hands, charts or tableau are simply out of play."""
    n = len(hands)
    names = ("Alf", "Henry", "Charles", "John", "Otto", "Mia")[:n]
    inv = investments or [(10, 7, 5, 3)] * n
    state = game.start_hand(names, (to_move - 1) % n, [cards(*h) for h in hands], inv)
    piles = list(state.tableau)
    for label, (poster, light, dark) in (tableau or {}).items():
        suit = C(f"{label}-P").suit
        piles[suit] = Pile(poster, light, dark)
    chart_values: list[Chart] = []
    for row in charts or [[None] * 4] * n:
        chart_values.append(tuple(None if c is None else C(c) for c in row))  # type: ignore[arg-type]
    return replace(
        state,
        to_move=to_move,
        charts=tuple(chart_values) if charts else (EMPTY_CHART,) * n,
        tableau=(piles[0], piles[1], piles[2], piles[3]),
        track=tuple(track) if track else (0,) * n,
    )


def mv(state: BigTopState, text: str) -> BigTopMove:
    return GAME.parse_move(state, text)


def play(state: BigTopState, *texts: str, game: BigTop = GAME) -> tuple[BigTopState, list[int]]:
    """Play moves; returns the final state and the money each move earned."""
    earned = []
    for text in texts:
        state, events = game.play(state, game.parse_move(state, text))
        earned.append(sum(a for e in events if e.what == "earned" for _, a in e.points))
    return state, earned


def all_candidate_moves(state: BigTopState) -> list[BigTopMove]:
    p = state.to_move
    out = [BigTopMove(p, Action.PASS)]
    for card in DECK:
        out.append(BigTopMove(p, Action.PLAY, card))
        out.append(BigTopMove(p, Action.CALL, card))
    return out
