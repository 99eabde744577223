"""What the 128x64 OLED panels show, as pure render functions: the parts every game shares.

A screen is two steps, both pure:

1. a *view* (a frozen value) is computed from the game state by the game's
   table adapter (`firmware.table.TableAdapter.seat_view`, ``central_view``);
2. a *render function* draws a view onto a PIL ``ImageDraw`` of 128x64: the
   game's seat screen (e.g. `firmware.bigtop.screens.render_seat`) and the
   central panel's `render_central`, the same for every game.

On the device the drawing goes through luma's canvas::

    with canvas(device) as draw:
        render_central(view, draw)

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

__all__ = [
    "CHAR_WIDTH",
    "COLUMNS",
    "FONT",
    "HEIGHT",
    "LINE",
    "WIDTH",
    "CENTRAL_ROWS",
    "CentralView",
    "central_lines",
    "draw_inverted",
    "draw_right",
    "draw_text",
    "draw_turn_marker",
    "render_central",
    "render_image",
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
class CentralView:
    """What the central panel shows: the game, whose turn it is, the last event and a hint."""

    title: str
    turn: str
    last_event: str = ""
    hint: str = ""
    #: which page of a text longer than the panel to show (the loop counts it up)
    scroll: int = 0


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


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: str = _ON) -> None:
    """Draw ``text`` in the bitmap font (characters it lacks become ``?``)."""
    draw.text(xy, _latin1(text), font=FONT, fill=fill)


def draw_right(draw: ImageDraw.ImageDraw, y: int, text: str, fill: str = _ON, right: int = WIDTH) -> None:
    """Draw ``text`` right-aligned to ``right`` on line ``y``."""
    draw_text(draw, (right - CHAR_WIDTH * len(text), y), text, fill)


def draw_inverted(draw: ImageDraw.ImageDraw, x: int, y: int, text: str) -> int:
    """Draw ``text`` light-on-dark at (x, y); returns the x after the box."""
    width = CHAR_WIDTH * len(text) + 2
    draw.rectangle((x, y, x + width - 1, y + LINE - 1), fill=_ON)
    draw_text(draw, (x + 1, y), text, _OFF)
    return x + width


def draw_turn_marker(draw: ImageDraw.ImageDraw, y: int) -> None:
    """Draw a solid right-pointing triangle, 5 pixels wide, in the first text line."""
    draw.polygon([(0, y + 1), (0, y + 9), (4, y + 5)], fill=_ON)


# -- screens ------------------------------------------------------------------------------


def central_lines(view: CentralView) -> list[str]:
    """Every line of the central panel's text area: the last event, then the hint, wrapped, never cut."""
    lines = wrap(view.last_event, COLUMNS, 1000)
    if view.hint:
        lines += wrap("Hint: " + view.hint, COLUMNS, 1000)
    return lines


#: text lines below the title bar and the turn line
CENTRAL_ROWS = (HEIGHT - 2 * LINE - 1) // (LINE - 1)


def render_central(view: CentralView, draw: ImageDraw.ImageDraw) -> None:
    """Draw the central panel: the title bar, whose turn it is, the last event, a hint.

    Text longer than the panel is not cut: it is shown a page at a time, page
    ``view.scroll`` (modulo the number of pages), with ``1/3`` in the title bar.
    The loop advances ``scroll`` every few seconds.
    """
    lines = central_lines(view)
    pages = [lines[i:i + CENTRAL_ROWS] for i in range(0, len(lines), CENTRAL_ROWS)] or [[]]
    index = view.scroll % len(pages)
    draw.rectangle((0, 0, WIDTH - 1, LINE), fill=_ON)
    marker = f"{index + 1}/{len(pages)}" if len(pages) > 1 else ""
    draw_text(draw, (2, 1), view.title[: COLUMNS - 1 - (len(marker) + 1 if marker else 0)], _OFF)
    if marker:
        draw_right(draw, 1, marker, _OFF, WIDTH - 2)
    draw_text(draw, (0, LINE + 1), view.turn[:COLUMNS])
    y = 2 * LINE + 1
    for line in pages[index]:
        draw_text(draw, (0, y), line)
        y += LINE - 1


V = TypeVar("V")


def render_image(render: Callable[[V, ImageDraw.ImageDraw], None], view: V) -> Image.Image:
    """Draw ``view`` with ``render`` onto a fresh 128x64 mode "1" image (all pixels off first)."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    render(view, ImageDraw.Draw(image))
    return image
