"""The Circus Grandioso panels: each seat's hand size and the Show Master; the pyramid's next cards centrally.

`seat_view` computes what a seat's panel shows from a state and `render_seat`
draws it (pure, 128x64, golden-PNG tested); `central_view` fills the shared
central panel (`firmware.screens.render_central`) with the cards each side of
the pyramid takes next: the values every player must know.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from firmware.screens import COLUMNS, LINE, WIDTH, CentralView, draw_inverted, draw_right, draw_text, draw_turn_marker, wrap
from scorer.grandioso import GrandiosoState, Phase, Side

__all__ = ["SeatView", "central_view", "next_cards", "render_seat", "seat_view"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the panel beside one player shows; ``warning`` (an illegal move's reason) replaces the rest."""

    name: str
    hand_size: int
    show_master: bool
    is_turn: bool
    holding_drawn: bool = False
    warning: str = ""


def seat_view(state: GrandiosoState, seat: int, warning: str = "") -> SeatView:
    """The view of ``seat``'s panel.

    :raises IndexError: when ``seat`` is not a seat of the state.
    """
    if not 0 <= seat < len(state.players):
        raise IndexError(f"seat {seat} is not at this table of {len(state.players)} players")
    turn = state.end is None and state.turn == seat
    return SeatView(state.players[seat], len(state.hands[seat]), state.show_master == seat, turn,
                    turn and state.phase is Phase.DRAWN, warning)


def next_cards(state: GrandiosoState) -> str:
    """The cards the pyramid takes next, short (``/C``: or a clown): ``L Tiger/C R Eleph`` or ``Top: Bear``."""
    slots = state.pyramid.open_slots()
    if not slots:
        return "Pyramid complete"
    parts = []
    for slot in slots:
        where = {Side.LEFT: "L", Side.RIGHT: "R", Side.TOP: "Top:"}[slot.side]
        parts.append(f"{where} {slot.animal.label[:5]}{'/C' if slot.clown_ok else ''}")
    return " ".join(parts)


def central_view(state: GrandiosoState, *, last_event: str = "", hint: str = "") -> CentralView:
    """The central panel: the pyramid's next cards as the title, whose turn it is, the last event, a hint."""
    if state.end is not None:
        turn = "Game over"
    else:
        turn = f"Turn: {state.players[state.turn]}"
        if state.phase is Phase.DRAWN:
            turn += " (drew)"
    return CentralView(next_cards(state)[:COLUMNS], turn, last_event, hint)


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name, hand size, the Show Master (inverted ``SM``), or the warning."""
    name_x = 7 if view.is_turn else 0
    if view.is_turn:
        draw_turn_marker(draw, 0)
    draw_text(draw, (name_x, 0), view.name[: (WIDTH - name_x) // 6 - 4])
    if view.show_master:
        draw_inverted(draw, WIDTH - 6 * 2 - 3, 0, "SM")
    if view.warning:
        x = draw_inverted(draw, 0, LINE + 1, "!") + 3
        for i, line in enumerate(wrap(view.warning, [(WIDTH - x) // 6, COLUMNS], 4)):
            draw_text(draw, (x if i == 0 else 0, LINE + 1 + i * (LINE - 1)), line)
        return
    draw_text(draw, (0, LINE + 2), f"{view.hand_size} card{'s' if view.hand_size != 1 else ''} in hand")
    if view.show_master:
        draw_text(draw, (0, 2 * LINE + 4), "Show Master: yours")
    if view.holding_drawn:
        draw_right(draw, 3 * LINE + 6, "place or lay down")
