"""What the 128x64 OLED panels show, as pure render functions.

A screen is two steps, both pure:

1. a *view* (a frozen value) is computed from the game state: `seat_view`
   for the panel beside each player, `central_view` for the middle panel;
2. a *render function* draws a view onto a PIL ``ImageDraw`` of 128x64:
   `render_seat`, `render_central`.

On the device the drawing goes through luma's canvas::

    with canvas(device) as draw:
        render_seat(view, draw)

and `render_image` draws the same onto a mode "1" PIL image, which is what
`hardware.display.Panel` compares to skip unchanged frames and what the golden
PNG tests compare pixel by pixel.

Text uses Pillow's built-in bitmap font (`ImageFont.load_default_imagefont`,
6x11 pixels a character): it ships inside Pillow and never goes through
FreeType, so the pixels are the same on every machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from PIL import Image, ImageDraw, ImageFont

from scorer.bigtop import BigTop, BigTopState, Card, TrackToken, track_token
from scorer.bigtop.engine import CHART_VALUES

__all__ = [
    "CHAR_WIDTH",
    "FONT",
    "HEIGHT",
    "LINE",
    "WIDTH",
    "CalledCard",
    "CentralView",
    "SeatView",
    "card_label",
    "central_view",
    "render_central",
    "render_image",
    "render_seat",
    "seat_view",
    "token_text",
    "wrap",
]

#: Panel size in pixels.
WIDTH, HEIGHT = 128, 64


def _bitmap_font() -> ImageFont.ImageFont:
    loader = getattr(ImageFont, "load_default_imagefont", None)
    font = loader() if loader is not None else ImageFont.load_default()
    if not isinstance(font, ImageFont.ImageFont):  # pragma: no cover - Pillow < 10.1 with FreeType
        raise RuntimeError("Pillow's built-in bitmap font is not available; install pillow>=10.1")
    return font


#: The one font of every screen: Pillow's built-in bitmap font.
FONT: ImageFont.ImageFont = _bitmap_font()
#: Width of one character and height of one text line, in pixels.
CHAR_WIDTH = 6
LINE = 11
#: Characters that fit on one full-width line.
COLUMNS = WIDTH // CHAR_WIDTH

_ON, _OFF = "white", "black"
#: Typographic characters the bitmap font lacks, spelled in ASCII.
_ASCII = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2014": "-",
                        "\u2013": "-", "\u2026": "...", "\u00a0": " "})


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


@dataclass(frozen=True, slots=True)
class CentralView:
    """What the central panel shows: the game, whose turn it is, the last event and a hint."""

    title: str
    turn: str
    last_event: str = ""
    hint: str = ""


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
    return CentralView(title, turn, last_event, hint)


# -- drawing helpers ----------------------------------------------------------------


def wrap(text: str, columns: int | list[int] = COLUMNS, lines: int = 2) -> list[str]:
    """``text`` word-wrapped into at most ``lines`` lines; cut text ends in ``..``.

    ``columns`` is the width of every line in characters, or a list with the
    width of each line in turn (the last width repeats).

    >>> wrap("You can't pass: you can play the light 2 Clowns.", 21, 2)
    ["You can't pass: you", 'can play the light..']
    """
    widths = [columns] if isinstance(columns, int) else list(columns)
    text = " ".join(text.translate(_ASCII).split())
    words = _latin1(text).split(" ") if text else []
    out: list[str] = []
    current = ""
    while words:
        width = widths[min(len(out), len(widths) - 1)]
        word = words[0]
        candidate = word if not current else f"{current} {word}"
        if len(candidate) <= width:
            current = candidate
            words.pop(0)
            continue
        if not current:  # a word longer than the line: break it
            current, words[0] = word[:width], word[width:]
        out.append(current)
        current = ""
    if current:
        out.append(current)
    if len(out) > lines:
        out = out[:lines]
        width = widths[min(lines - 1, len(widths) - 1)]
        out[-1] = out[-1][: width - 2].rstrip() + ".."
    return out


def _latin1(text: str) -> str:
    """The text in the characters the bitmap font has (Latin-1); others become ``?``."""
    return text.translate(_ASCII).encode("latin-1", "replace").decode("latin-1")


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: str = _ON) -> None:
    draw.text(xy, _latin1(text), font=FONT, fill=fill)


def _right(draw: ImageDraw.ImageDraw, y: int, text: str, fill: str = _ON, right: int = WIDTH) -> None:
    _text(draw, (right - CHAR_WIDTH * len(text), y), text, fill)


def _inverted(draw: ImageDraw.ImageDraw, x: int, y: int, text: str) -> int:
    """Draw ``text`` light-on-dark at (x, y); returns the x after the box."""
    width = CHAR_WIDTH * len(text) + 2
    draw.rectangle((x, y, x + width - 1, y + LINE - 1), fill=_ON)
    _text(draw, (x + 1, y), text, _OFF)
    return x + width


def _turn_marker(draw: ImageDraw.ImageDraw, y: int) -> None:
    """A solid right-pointing triangle, 5 pixels wide, in the first text line."""
    draw.polygon([(0, y + 1), (0, y + 9), (4, y + 5)], fill=_ON)


# -- screens ------------------------------------------------------------------------------


def render_seat(view: SeatView, draw: ImageDraw.ImageDraw) -> None:
    """Draw a player's panel: name, money, track token, chart values or warning, turn marker.

    Layout (11-pixel lines): name and money; the track token (an inverted
    ``+20`` when the token is flipped) and the hand size; a rule; the chart
    spaces ``$3 $2 $1 $0`` with the called card under each. A warning replaces
    everything below the first line.
    """
    name_x = 7 if view.is_turn else 0
    if view.is_turn:
        _turn_marker(draw, 0)
    money = f"${view.money}" if view.peanuts is None else ""
    _text(draw, (name_x, 0), view.name[: (WIDTH - name_x) // CHAR_WIDTH - len(money) - 1])
    if money:
        _right(draw, 0, money)
    if view.warning:
        x = _inverted(draw, 0, LINE + 1, "!") + 3
        first = (WIDTH - x) // CHAR_WIDTH
        for i, line in enumerate(wrap(view.warning, [first, COLUMNS], 4)):
            _text(draw, (x if i == 0 else 0, LINE + 1 + i * (LINE - 1)), line)
        return
    y = LINE + 1
    if view.peanuts is not None:
        _text(draw, (0, y), f"{view.peanuts} peanuts")
    else:
        x = 0
        if view.token.plus20:
            x = _inverted(draw, 0, y, "+20") + 3
        _text(draw, (x, y), token_text(view.token))
    _right(draw, y, f"hand {view.hand_size}")
    if not view.chart:
        return
    draw.line((0, 2 * LINE + 3, WIDTH - 1, 2 * LINE + 3), fill=_ON)
    column = WIDTH // len(view.chart)
    for i, called in enumerate(view.chart):
        x = i * column + 2
        _text(draw, (x, 2 * LINE + 6), f"${CHART_VALUES[i]}" if called is None else f"${called.value}")
        _text(draw, (x, 3 * LINE + 8), "-" if called is None else called.label)
    for i in range(1, len(view.chart)):
        draw.line((i * column - 2, 2 * LINE + 6, i * column - 2, HEIGHT - 4), fill=_ON)


def render_central(view: CentralView, draw: ImageDraw.ImageDraw) -> None:
    """Draw the central panel: the title bar, whose turn it is, the last event, a hint."""
    draw.rectangle((0, 0, WIDTH - 1, LINE), fill=_ON)
    _text(draw, (2, 1), view.title[: COLUMNS - 1], _OFF)
    _text(draw, (0, LINE + 1), view.turn[:COLUMNS])
    y = 2 * LINE + 1
    rows = (HEIGHT - y) // (LINE - 1)
    for line in wrap(view.last_event, COLUMNS, rows - 2 if view.hint else rows):
        _text(draw, (0, y), line)
        y += LINE - 1
    if view.hint:
        for line in wrap("Hint: " + view.hint, COLUMNS, (HEIGHT - y) // (LINE - 1)):
            _text(draw, (0, y), line)
            y += LINE - 1


V = TypeVar("V")


def render_image(render: Callable[[V, ImageDraw.ImageDraw], None], view: V) -> Image.Image:
    """Draw ``view`` with ``render`` onto a fresh 128x64 mode "1" image (all pixels off first)."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    render(view, ImageDraw.Draw(image))
    return image
