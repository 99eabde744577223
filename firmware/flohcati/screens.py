"""The Circus Flohcati panels: each seat's score, hand size and trios; the central panel's turn line.

`seat_view` computes what a seat's panel shows from a state, `render_seat`
draws it (pure, 128x64, golden-PNG tested); `central_view` fills the shared
central panel (`firmware.screens.render_central`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from firmware.screens import (
    CHAR_WIDTH,
    COLUMNS,
    LINE,
    WIDTH,
    CentralView,
    draw_inverted,
    draw_right,
    draw_text,
    draw_turn_marker,
    wrap,
)
from scorer.flohcati import Flohcati, FlohcatiState, Phase
from scorer.flohcati.scoring import hand_points

__all__ = ["SeatView", "central_view", "render_seat", "seat_view"]

_PHASE_WORDS = {
    Phase.TURNING: "turn or take",
    Phase.MUST_TAKE: "take one card",
    Phase.STEAL: "take from a hand",
    Phase.REQUEST: "ask for a colour",
    Phase.WRAP_UP: "trio or button",
}


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the panel beside one player shows: score (trios plus the best card of each colour in hand),
    hand size, trios, whether it is their turn, cards the referee cannot see, and a warning."""

    name: str
    score: int
    hand_size: int
    trios: int
    is_turn: bool
    hidden: int = 0
    warning: str = ""


def seat_view(state: FlohcatiState, seat: int, warning: str = "") -> SeatView:
    """The view of ``seat``'s panel.

    :raises IndexError: when ``seat`` is not a seat of the state.
    """
    if not 0 <= seat < len(state.players):
        raise IndexError(f"seat {seat} is not at this table of {len(state.players)} players")
    hand = state.hands[seat]
    score = 10 * len(state.trios[seat]) + hand_points(hand)
    if state.phase is Phase.OVER and state.ender == seat:
        score += state.gala_bonus
    return SeatView(state.players[seat], score, len(hand), len(state.trios[seat]),
                    state.phase is not Phase.OVER and state.turn == seat, hand.count(None), warning)


def central_view(game: Flohcati, state: FlohcatiState, *, last_event: str = "", hint: str = "") -> CentralView:
    """The central panel: the title with the cards left in the stack, whose turn it is and what they do."""
    title = f"Flohcati {len(state.stack)} left"
    if state.phase is Phase.OVER:
        turn = "The game is over"
    else:
        turn = f"{state.players[state.turn]}: {_PHASE_WORDS.get(state.phase, '')}"
        if state.attraction:
            turn += " (new!)"
    return CentralView(title[:COLUMNS], turn, last_event, hint)


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name and score; hand size and trios; a warning in place of the second line.

    Layout (11-pixel lines): name (with the turn marker) and the score right;
    the hand size and trios; the cards the referee cannot see, when any.
    """
    name_x = 7 if view.is_turn else 0
    if view.is_turn:
        draw_turn_marker(draw, 0)
    score = f"{view.score} pts"
    draw_text(draw, (name_x, 0), view.name[: (WIDTH - name_x) // CHAR_WIDTH - len(score) - 1])
    draw_right(draw, 0, score)
    if view.warning:
        x = draw_inverted(draw, 0, LINE + 1, "!") + 3
        first = (WIDTH - x) // CHAR_WIDTH
        for i, line in enumerate(wrap(view.warning, [first, COLUMNS], 4)):
            draw_text(draw, (x if i == 0 else 0, LINE + 1 + i * (LINE - 1)), line)
        return
    y = LINE + 2
    draw_text(draw, (0, y), f"{view.hand_size} card{'s' if view.hand_size != 1 else ''} in hand")
    draw.line((0, 2 * LINE + 4, WIDTH - 1, 2 * LINE + 4), fill="white")
    draw_text(draw, (0, 2 * LINE + 7), f"{view.trios} trio{'s' if view.trios != 1 else ''} = {10 * view.trios}")
    if view.hidden:
        draw_text(draw, (0, 3 * LINE + 8), f"{view.hidden} unseen (not counted)")
