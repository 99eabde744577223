"""The Big Top and Fan Tan panels: each seat's money, track token and called cards (or peanuts).

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
    HEIGHT,
    LINE,
    WIDTH,
    CentralView,
    draw_inverted,
    draw_right,
    draw_text,
    draw_turn_marker,
    wrap,
)
from scorer.bigtop import BigTop, BigTopState, Card, TrackToken, track_token
from scorer.bigtop.engine import CHART_VALUES

__all__ = ["CalledCard", "SeatView", "card_label", "central_view", "render_seat", "seat_view", "token_text"]


@dataclass(frozen=True, slots=True)
class CalledCard:
    """A called card on an Organizing Chart and what it pays an opponent now ($3/$2/$1/$0)."""

    label: str
    value: int


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the panel beside one player shows.

    ``money`` is the track money of the hand, ``token`` how the physical
    scoring token shows it (the +$20 flip). ``chart`` holds the four chart
    spaces $3, $2, $1, $0 (None = empty); it is empty in Fan Tan, where
    ``peanuts`` is set instead. ``warning`` (an illegal move's reason) takes
    the place of the chart while it is set.
    """

    name: str
    money: int
    token: TrackToken
    chart: tuple[CalledCard | None, ...]
    is_turn: bool
    hand_size: int
    warning: str = ""
    peanuts: int | None = None


# -- views -----------------------------------------------------------------------


def card_label(card: Card) -> str:
    """A called card in four characters: suit initial and rank, e.g. ``A-D4``, ``C-P``."""
    rank = card.notation().split("-", 1)[1]
    return f"{card.suit.label[0].upper()}-{rank}"


def token_text(token: TrackToken) -> str:
    """The scoring token in words: ``space 2``, ``off track`` ($0) or ``past $40``."""
    if token.space is None:
        return "off track"
    if not token.on_board:
        return "past $40"
    return f"space {token.space}"


def seat_view(state: BigTopState, seat: int, warning: str = "") -> SeatView:
    """The view of ``seat``'s panel for a Big Top or Fan Tan state.

    :raises IndexError: when ``seat`` is not a seat of the state.
    """
    if not 0 <= seat < len(state.players):
        raise IndexError(f"seat {seat} is not at this table of {len(state.players)} players")
    money = state.track[seat]
    chart: tuple[CalledCard | None, ...] = ()
    if state.peanuts is None:
        chart = tuple(
            None if card is None else CalledCard(card_label(card), value)
            for value, card in zip(CHART_VALUES, state.charts[seat])
        )
    return SeatView(
        name=state.players[seat],
        money=money,
        token=track_token(money),
        chart=chart,
        is_turn=state.out is None and state.to_move == seat,
        hand_size=state.hand_sizes[seat],
        warning=warning,
        peanuts=None if state.peanuts is None else state.peanuts[seat],
    )


def central_view(
    game: BigTop, state: BigTopState, *, hand: int | None = None, hands: int | None = None,
    last_event: str = "", hint: str = "",
) -> CentralView:
    """The view of the central panel: ``hand`` of ``hands`` in the title when given."""
    title = game.info.title
    if hand is not None:
        title += f" hand {hand}" + (f"/{hands}" if hands is not None else "")
    if state.out is not None:
        turn = f"{state.players[state.out]} went out"
    else:
        turn = f"Turn: {state.players[state.to_move]}"
    if state.peanuts is not None:  # Fan Tan: the pot, right-aligned on the turn line
        pot = f"pot {state.pot}"
        turn = f"{turn[: COLUMNS - len(pot) - 1]:<{COLUMNS - len(pot)}}{pot}"
    return CentralView(title, turn, last_event, hint)


# -- the seat panel ---------------------------------------------------------------


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name, money, track token, chart values or warning, turn marker.

    Layout (11-pixel lines): name and money; the track token (an inverted
    ``+20`` when the token is flipped) and the hand size; a rule; the chart
    spaces ``$3 $2 $1 $0`` with the called card under each. A warning replaces
    everything below the first line.
    """
    name_x = 7 if view.is_turn else 0
    if view.is_turn:
        draw_turn_marker(draw, 0)
    money = f"${view.money}" if view.peanuts is None else ""
    draw_text(draw, (name_x, 0), view.name[: (WIDTH - name_x) // CHAR_WIDTH - len(money) - 1])
    if money:
        draw_right(draw, 0, money)
    if view.warning:
        x = draw_inverted(draw, 0, LINE + 1, "!") + 3
        first = (WIDTH - x) // CHAR_WIDTH
        for i, line in enumerate(wrap(view.warning, [first, COLUMNS], 4)):
            draw_text(draw, (x if i == 0 else 0, LINE + 1 + i * (LINE - 1)), line)
        return
    y = LINE + 1
    if view.peanuts is not None:
        draw_text(draw, (0, y), f"{view.peanuts} peanuts")
    else:
        x = 0
        if view.token.plus20:
            x = draw_inverted(draw, 0, y, "+20") + 3
        draw_text(draw, (x, y), token_text(view.token))
    draw_right(draw, y, f"{view.hand_size} card{'s' if view.hand_size != 1 else ''}")
    if not view.chart:
        return
    draw.line((0, 2 * LINE + 3, WIDTH - 1, 2 * LINE + 3), fill="white")
    column = WIDTH // len(view.chart)
    for i, called in enumerate(view.chart):
        x = i * column + 2
        draw_text(draw, (x, 2 * LINE + 6), f"${CHART_VALUES[i]}" if called is None else f"${called.value}")
        draw_text(draw, (x, 3 * LINE + 8), "-" if called is None else called.label)
    for i in range(1, len(view.chart)):
        draw.line((i * column - 2, 2 * LINE + 6, i * column - 2, HEIGHT - 4), fill="white")
