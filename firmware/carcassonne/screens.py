"""The Carcassonne panels: each seat's score and figures left; tiles left, whose turn and the last scoring centrally.

`seat_view` computes what a seat's panel shows from a state and `render_seat`
draws it (pure, 128x64); `central_view` fills the shared central panel
(`firmware.screens.render_central`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from firmware.screens import COLUMNS, LINE, WIDTH, CentralView, draw_inverted, draw_text, draw_turn_marker, wrap
from scorer.carcassonne.model import State
from scorer.carcassonne.observe import COLORS

__all__ = ["SeatView", "central_view", "render_seat", "seat_view", "tiles_left"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the panel beside one player shows; ``warning`` (an illegal move's reason) replaces the rest."""

    name: str
    color: str
    score: int
    is_turn: bool
    meeples: int
    ringmaster: bool
    #: whether the game uses Under the Big Top (the ringmaster line)
    expansion: bool = True
    warning: str = ""


def tiles_left(state: State) -> int:
    """Tiles still face down (the box less the tiles laid and set aside)."""
    return sum(state.remaining.values())


def seat_view(state: State, seat: int, warning: str = "") -> SeatView:
    """The view of ``seat``'s panel.

    :raises IndexError: when ``seat`` is not a seat of the state.
    """
    if not 0 <= seat < len(state.players):
        raise IndexError(f"seat {seat} is not at this table of {len(state.players)} players")
    turn = not state.finished and state.turn % len(state.players) == seat
    return SeatView(state.players[seat], COLORS[seat], state.scores[seat], turn, state.meeples[seat],
                    state.ringmasters[seat], state.expansion, warning)


def central_view(state: State, *, last_event: str = "", hint: str = "") -> CentralView:
    """The central panel: tiles left as the title, whose turn it is, the last move and its scoring, a hint."""
    if state.finished:
        return CentralView("Game over", "Final scoring", last_event, hint)
    seat = state.turn % len(state.players)
    return CentralView(f"{tiles_left(state)} tiles left"[:COLUMNS], f"Turn: {state.players[seat]} ({COLORS[seat]})"[:COLUMNS],
                       last_event, hint)


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name and score, colour, meeples left, the ringmaster, or the warning."""
    name_x = 7 if view.is_turn else 0
    if view.is_turn:
        draw_turn_marker(draw, 0)
    score = f"{view.score}"
    draw_text(draw, (name_x, 0), view.name[: (WIDTH - name_x) // 6 - len(score) - 2])
    draw_inverted(draw, WIDTH - 6 * len(score) - 3, 0, score)
    if view.warning:
        x = draw_inverted(draw, 0, LINE + 1, "!") + 3
        for i, line in enumerate(wrap(view.warning, [(WIDTH - x) // 6, COLUMNS], 4)):
            draw_text(draw, (x if i == 0 else 0, LINE + 1 + i * (LINE - 1)), line)
        return
    draw_text(draw, (0, LINE + 2), view.color)
    draw_text(draw, (0, 2 * LINE + 4), f"Meeples left: {view.meeples}")
    if view.expansion:
        draw_text(draw, (0, 3 * LINE + 6), "Ringmaster: " + ("in hand" if view.ringmaster else "on board"))
