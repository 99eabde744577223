"""The Grand Carnival panels: each seat's score and the round; the round, whose turn and the last action centrally.

`seat_view` computes what a seat's panel shows from a state and `render_seat`
draws it (pure, 128x64); `central_view` fills the shared central panel
(`firmware.screens.render_central`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from firmware.screens import COLUMNS, LINE, WIDTH, CentralView, draw_inverted, draw_right, draw_text, draw_turn_marker, wrap
from scorer.grand_carnival.components import Catalog
from scorer.grand_carnival.model import NUMBERS, CarnivalState
from scorer.grand_carnival.rules import current_seat
from scorer.grand_carnival.scoring import score_board

__all__ = ["ROUNDS", "SeatView", "central_view", "render_seat", "seat_view"]

#: Rounds in a game.
ROUNDS = 7


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the panel beside one player shows; ``warning`` (an illegal move's reason) replaces the rest."""

    name: str
    score: int
    round: int
    is_turn: bool
    #: the action numbers this player has still to use this round
    numbers_left: tuple[int, ...] = ()
    tent: int = 0
    warning: str = ""


def seat_view(state: CarnivalState, seat: int, catalog: Catalog, warning: str = "") -> SeatView:
    """The view of ``seat``'s panel.

    :raises IndexError: when ``seat`` is not a seat of the state.
    """
    if not 0 <= seat < len(state.players):
        raise IndexError(f"seat {seat} is not at this table of {len(state.players)} players")
    board = state.boards[seat]
    left = tuple(n for n in NUMBERS if n not in board.numbers)
    return SeatView(state.players[seat], score_board(board, catalog).total, min(state.round + 1, ROUNDS),
                    current_seat(state) == seat, left, board.tent, warning)


def central_view(state: CarnivalState, *, last_event: str = "", hint: str = "") -> CentralView:
    """The central panel: the round as the title, whose turn it is, the last action and its scoring, a hint."""
    seat = current_seat(state)
    if seat is None:
        return CentralView("Game over", "Final scoring", last_event, hint)
    return CentralView(f"Round {state.round + 1} of {ROUNDS}"[:COLUMNS], f"Turn: {state.players[seat]}",
                       last_event, hint)


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name and score, the round and the numbers left, the tent, or the warning."""
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
    draw_text(draw, (0, LINE + 2), f"Round {view.round} of {ROUNDS}")
    draw_text(draw, (0, 2 * LINE + 4), "Numbers: " + (" ".join(map(str, view.numbers_left)) or "-"))
    draw_right(draw, 3 * LINE + 6, f"tent {view.tent}")
