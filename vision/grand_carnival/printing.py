"""True-size print-and-play sheets of The Grand Carnival, drawn from the component facts.

Pages: a legend of Ringside's decisions, one market board per seat (with its
ArUco markers), the wagon row with the round track, the foundation tiles, the
attractions of each shape, the guests, barkers and tickets, and the trick
cards. Every component whose facts are Ringside's decision (tagged
``[DECISION]`` in ``scorer/grand_carnival/components.toml``) carries a small
"R" badge. Every page carries a 100 mm check line: print at 100 % and measure it.
The art is Ringside's own and plain: coloured fields, outlines and words.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer.grand_carnival.components import (
    CATALOG,
    COLUMNS,
    Catalog,
    Shape,
    catalog_of,
    component_changes,
    describe_changes,
    parcel_cells,
    shipped_data,
)
from vision.geometry import Image
from vision.grand_carnival.layout import (
    ARUCO_DICT,
    BOARD,
    COMPONENTS,
    FIELD,
    MAX_SEATS,
    SHEET_VERSION,
    TENT_PLACES,
    TRICK_PLACES,
    WAGON,
    WAGON_MARKER_IDS,
    board_marker_ids,
    decision_keys,
    decisions_of,
)
from vision.sheets import A4, Page, aruco_image, blank_page, check_line, cut_marks, paste, write_pdf_pages, write_png_pages

__all__ = [
    "ATTRACTION", "BADGE", "BARKER", "EMPTY", "FIGURE", "GUEST", "GUESTS", "SITE", "TENT_PLACE", "TICKET",
    "TICKETS", "TOKEN_PAGE", "WALKWAY", "attraction_rows", "carnival_decisions", "iter_carnival_pages", "render_attraction",
    "render_board", "render_tile", "render_token", "render_wagon", "SLOT", "WAGON_PAGE", "write_pdf", "write_pngs",
]

#: BGR colour of the "R" badge (Ringside's decision); no other art uses it.
BADGE = (170, 20, 200)
# Every kind of field and piece has a colour of its own, far from the others in hue, so the
# camera tells them apart (`vision.grand_carnival.pipeline` reads these very values). The
# places a hand may cover (empty parcels, the tent's places) are cool, far from skin.
WALKWAY = (100, 200, 90)
SITE = (50, 140, 235)
EMPTY = (240, 225, 200)
ATTRACTION = (235, 185, 95)
GUEST = (150, 40, 135)
BARKER = (40, 40, 210)
TICKET = (20, 210, 245)
#: a player's figure: on an action number taken this round, or on a trick learned
FIGURE = (140, 110, 0)
TENT = (80, 80, 215)
TENT_PLACE = (200, 240, 170)
#: a slot of the wagon row (an empty slot shows it; a tile's blank back is white)
SLOT = (200, 150, 245)
INK = (0, 0, 0)
GREY = (120, 120, 120)
#: Guest tokens printed: the supply is unlimited (a decision), so enough for every entrance and walk.
GUESTS = 24
#: Ticket tokens printed: no component fact limits them.
TICKETS = 60
#: Figures printed: five action numbers and three tricks for each of four players.
FIGURES = 32
#: Diameter of guests and barkers, side of a ticket, diameter of a figure (mm): smaller than a
#: field, so the field's colour shows around them.
TOKEN = 9.0
TICKET_SIDE = 8.0
FIGURE_SIZE = 11.0
CARD_W, CARD_H = 63.0, 88.0


def carnival_decisions() -> frozenset[str]:
    """The component names whose facts the shipped ``components.toml`` tags ``[DECISION]``."""
    text = resources.files("scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    return frozenset(c.name for c in decisions_of(decision_keys(text)))


def _px(v: float, s: float) -> int:
    return int(round(v * s))


def _text(img: Image, text: str, x: float, y: float, height: float, s: float,
          colour: tuple[int, int, int] = INK, centre: bool = False, bold: bool = False, right: bool = False) -> None:
    """``text`` with its baseline at ``y`` mm, ``height`` mm capitals; centred on ``x`` or ending at it when asked."""
    scale = height * s / 22.0
    thick = max(1, int(round(scale * (2.6 if bold else 1.6))))
    font = cv2.FONT_HERSHEY_SIMPLEX
    if centre or right:
        (w, _), _ = cv2.getTextSize(text, font, scale, thick)
        x_px = int(round(x * s - (w / 2 if centre else w)))
    else:
        x_px = _px(x, s)
    cv2.putText(img, text, (x_px, _px(y, s)), font, scale, colour, thick, cv2.LINE_AA)


def _wrap(text: str, width_chars: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width_chars:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _rect(img: Image, x: float, y: float, w: float, h: float, s: float,
          fill: tuple[int, int, int] | None, edge: tuple[int, int, int] | None = INK, line: float = 0.3) -> None:
    p0, p1 = (_px(x, s), _px(y, s)), (_px(x + w, s), _px(y + h, s))
    if fill is not None:
        cv2.rectangle(img, p0, p1, fill, -1)
    if edge is not None:
        cv2.rectangle(img, p0, p1, edge, max(1, _px(line, s)))


def _badge(img: Image, x: float, y: float, s: float, r: float = 2.6) -> None:
    """The "R" badge centred on (``x``, ``y``) mm: a Ringside decision, see the legend page."""
    cv2.circle(img, (_px(x, s), _px(y, s)), _px(r, s), BADGE, -1, cv2.LINE_AA)
    _text(img, "R", x, y + r * 0.45, r * 1.1, s, (255, 255, 255), centre=True, bold=True)


def _hammer(img: Image, cx: float, cy: float, size: float, s: float) -> None:
    """A hammer glyph (head and handle) centred on (``cx``, ``cy``)."""
    t = max(1, _px(size * 0.12, s))
    cv2.line(img, (_px(cx, s), _px(cy - size * 0.3, s)), (_px(cx, s), _px(cy + size * 0.45, s)), (40, 60, 90), t)
    _rect(img, cx - size * 0.3, cy - size * 0.45, size * 0.6, size * 0.22, s, (60, 60, 60), None)


def _field(img: Image, x: float, y: float, kind: str, s: float, size: float = FIELD) -> None:
    """A walkway (``w``: green, a dot in the middle) or construction site (``s``: orange, a hammer in a corner)."""
    if kind == "w":
        _rect(img, x, y, size, size, s, WALKWAY, GREY, 0.15)
        cv2.circle(img, (_px(x + size / 2, s), _px(y + size / 2, s)), _px(size * 0.08, s), (60, 140, 50), -1)
    else:
        # the hammer in a corner: the middle stays free for the camera to see a guest on it
        _rect(img, x, y, size, size, s, SITE, GREY, 0.15)
        _hammer(img, x + size * 0.26, y + size * 0.26, size * 0.3, s)


def render_tile(pattern: str, s: float, badged: bool = False) -> Image:
    """A foundation tile (``"ws/ss"``: top row, then bottom row) at ``s`` px/mm, 2 x 2 fields."""
    side = 2 * FIELD
    img = np.full((_px(side, s), _px(side, s), 3), 255, np.uint8)
    for i, kind in enumerate(pattern.replace("/", "")):
        _field(img, (i % 2) * FIELD, (i // 2) * FIELD, kind, s)
    _rect(img, 0, 0, side - 0.15, side - 0.15, s, None, INK, 0.3)
    _text(img, pattern, 1.2, side - 1.2, 2.2, s, INK)
    if badged:
        _badge(img, side - 3.2, 3.2, s, 2.0)
    return img


def render_attraction(cells: frozenset[tuple[int, int]], name: str, s: float,
                      badged: bool = False) -> tuple[Image, Image]:
    """An attraction lying as ``cells`` ((row, column) fields from 0) at ``s`` px/mm: the image and its alpha.

    One colour all over, a thick dark outline round the piece and no line inside it, so
    two pieces side by side show a double line between them; the name in the first
    field's corner.
    """
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    img = np.full((_px(rows * FIELD, s), _px(cols * FIELD, s), 3), 255, np.uint8)
    alpha = np.zeros(img.shape[:2], np.uint8)
    for r, c in cells:
        p0, p1 = (_px(c * FIELD, s), _px(r * FIELD, s)), (_px((c + 1) * FIELD, s) - 1, _px((r + 1) * FIELD, s) - 1)
        cv2.rectangle(img, p0, p1, ATTRACTION, -1)
        cv2.rectangle(alpha, p0, p1, 255, -1)
    # the outline: a band just inside every edge between a field and a non-field
    band = max(1, _px(0.8, s))
    for r, c in cells:
        x0, y0 = _px(c * FIELD, s), _px(r * FIELD, s)
        x1, y1 = _px((c + 1) * FIELD, s) - 1, _px((r + 1) * FIELD, s) - 1
        if (r - 1, c) not in cells:
            cv2.rectangle(img, (x0, y0), (x1, y0 + band - 1), INK, -1)
        if (r + 1, c) not in cells:
            cv2.rectangle(img, (x0, y1 - band + 1), (x1, y1), INK, -1)
        if (r, c - 1) not in cells:
            cv2.rectangle(img, (x0, y0), (x0 + band - 1, y1), INK, -1)
        if (r, c + 1) not in cells:
            cv2.rectangle(img, (x1 - band + 1, y0), (x1, y1), INK, -1)
    r0, c0 = min(cells)
    _text(img, name, c0 * FIELD + 1.8, r0 * FIELD + 4.2, 2.4, s, INK, bold=True)
    if badged:
        _badge(img, c0 * FIELD + FIELD - 3.4, r0 * FIELD + 3.4, s, 2.0)
    return img, alpha


def render_token(kind: str, s: float, badged: bool = False) -> tuple[Image, Image]:
    """A ``"guest"``, ``"barker"``, ``"ticket"`` or ``"figure"`` at ``s`` px/mm: the image and its alpha."""
    size = {"ticket": TICKET_SIDE, "figure": FIGURE_SIZE}.get(kind, TOKEN)
    # solid colours, no letter: a letter in the middle is where the camera reads the colour
    colour = {"guest": GUEST, "barker": BARKER, "ticket": TICKET, "figure": FIGURE}[kind]
    n = _px(size, s) + 2
    img = np.full((n, n, 3), 255, np.uint8)
    alpha = np.zeros((n, n), np.uint8)
    c = (n - 1) / 2
    if kind == "ticket":
        p0, p1 = (1, 1), (n - 2, n - 2)
        for target, value in ((img, colour), (alpha, 255)):
            cv2.rectangle(target, p0, p1, value, -1)
        cv2.rectangle(img, p0, p1, INK, max(1, _px(0.2, s)))
    else:
        r = int(round(c)) - 1
        cv2.circle(img, (int(round(c)), int(round(c))), r, colour, -1, cv2.LINE_AA)
        cv2.circle(alpha, (int(round(c)), int(round(c))), r, 255, -1, cv2.LINE_AA)
        cv2.circle(img, (int(round(c)), int(round(c))), r, INK, max(1, _px(0.2, s)), cv2.LINE_AA)
    if badged:
        _badge(img, c / s + size * 0.3, c / s - size * 0.3, s, 1.6)
    return img, alpha


# -- the market board ---------------------------------------------------------


def render_board(seat: int, catalog: Catalog, s: float, badged: bool) -> Image:
    """One player's market board (`BOARD` size) at ``s`` pixels per millimetre."""
    b = BOARD
    img = np.full((_px(b.height, s), _px(b.width, s), 3), 255, np.uint8)
    _rect(img, 0.5, 0.5, b.width - 1, b.height - 1, s, None, GREY, 0.3)
    for index, marker_id in enumerate(board_marker_ids(seat)):
        (x, y), *_ = b.marker_corners(index)
        side = _px(b.marker_size, s)
        marker = cv2.cvtColor(aruco_image(marker_id, side, ARUCO_DICT), cv2.COLOR_GRAY2BGR)
        paste(img, marker, x, y, s)
    g, gx, gy, f = b.grid_size, b.grid_x, b.grid_y, b.field
    # The circus tent above row 8: a place for a guest above each column.
    for k in range(TENT_PLACES):
        x, y, w, h = b.tent_rect(k)
        _rect(img, x, y, w, h, s, TENT_PLACE, TENT, 0.5)
    # The market: 16 empty parcels, each showing its hammers.
    hammers = catalog.empty_parcel_hammers
    for parcel in range(16):
        cell = parcel_cells(parcel)[0]
        x, y, _, _ = b.field_rect(cell)
        _rect(img, x, y, 2 * f, 2 * f, s, EMPTY, None)
        for k in range(hammers):
            off = (k - (hammers - 1) / 2) * f * 0.55
            _hammer(img, x + f + off, y + f, f * 0.6, s)
    for k in range(9):
        t = 0.6 if k % 2 == 0 else 0.12
        colour = INK if k % 2 == 0 else GREY
        cv2.line(img, (_px(gx + k * f, s), _px(gy, s)), (_px(gx + k * f, s), _px(gy + g, s)), colour, max(1, _px(t, s)))
        cv2.line(img, (_px(gx, s), _px(gy + k * f, s)), (_px(gx + g, s), _px(gy + k * f, s)), colour, max(1, _px(t, s)))
    for k in range(8):
        _text(img, str(8 - k), gx + g + 3, gy + k * f + f / 2 + 1.5, 3.5, s, GREY)
        _text(img, COLUMNS[k], gx + k * f + f / 2, gy + g + b.entrance_height + 3.5, 3.5, s, GREY, centre=True)
    # The entrances below row 1: plain walkway boxes, named beside them.
    for number, cell in enumerate(catalog.entrance_cells, start=1):
        x, y, w, h = b.entrance_rect(cell % 8)
        _rect(img, x, y, w, h, s, WALKWAY, INK, 0.4)
        _text(img, f"in{number}", x - 0.5, y + h / 2 + 1.2, 2.6, s, INK, bold=True, right=True)
    # The action numbers 1..5 down the left edge.
    for k in range(1, 6):
        x, y, w, h = b.number_rect(k)
        _rect(img, x, y, w, h, s, (245, 245, 245), INK, 0.3)
        _text(img, str(k), x + w / 2, y + 8.5, 6.5, s, INK, centre=True, bold=True)
        cx, cy = b.number_spot(k)
        cv2.circle(img, (_px(cx, s), _px(cy, s)), _px(FIGURE_SIZE / 2 + 1, s), GREY, max(1, _px(0.2, s)), cv2.LINE_AA)
    # The right panel: whose board, and the final scoring in brief.
    px = gx + g + 10
    _text(img, "TENT >", b.numbers_x + b.numbers_width / 2, b.grid_y - 7, 3.2, s, TENT, centre=True, bold=True)
    _text(img, "MARKET", px, 30, 4.2, s, INK, bold=True)
    _text(img, f"SEAT {seat + 1}", px, 36, 4.2, s, INK, bold=True)
    _text(img, f"sheets v{SHEET_VERSION}", px, 41, 2.2, s, GREY)
    if badged:
        _badge(img, px + 24, 34.5, s)
    lines = [
        "Final scoring:",
        "sets of 3-5 attractions",
        "  of one size, each",
        "  with a ticket",
        "variety, sizes 1-5: 22",
        "tent: 3 / 6 / 10 / 15",
        "15+ tickets: 12",
        "barker: 3 each",
        "hammer: -1 each",
        "",
        "Guests walk on walkways;",
        "attractions cover sites.",
    ]
    for k, line in enumerate(lines):
        _text(img, line, px, 46 + k * 5.2, 2.5, s, INK, bold=k == 0)
    _text(img, "Tricks learned:", px, 111, 2.5, s, INK, bold=True)
    for k in range(TRICK_PLACES):
        x, y, w, h = b.trick_rect(k)
        _rect(img, x, y, w, h, s, (245, 245, 245), INK, 0.3)
        _text(img, str(k + 1), x + w + 2, y + h / 2 + 1.5, 3.5, s, GREY)
    return img


def _board_pages(s: float, catalog: Catalog, decided: frozenset[str]) -> Iterator[Page]:
    badged = "market board" in decided
    for seat in range(MAX_SEATS):
        page = blank_page(True, s)
        x = (A4[1] - BOARD.width) / 2
        paste(page, render_board(seat, catalog, s, badged), x, 4, s)
        title = f"market board, seat {seat + 1} (markers {', '.join(map(str, board_marker_ids(seat)))})"
        check_line(page, s, 10, 203, title)
        yield Page(title, page, ("market board",) if badged else ())


# -- the wagon row and the round track -----------------------------------------


def render_wagon(s: float) -> Image:
    """The wagon row's board (`WAGON` size) at ``s`` pixels per millimetre: its markers, spaces and slots."""
    g = WAGON
    img = np.full((_px(g.height, s), _px(g.width, s), 3), 255, np.uint8)
    _rect(img, 0.5, 0.5, g.width - 1, g.height - 1, s, None, GREY, 0.3)
    for index, marker_id in enumerate(WAGON_MARKER_IDS):
        (x, y), *_ = g.marker_corners(index)
        marker = cv2.cvtColor(aruco_image(marker_id, _px(g.marker_size, s), ARUCO_DICT), cv2.COLOR_GRAY2BGR)
        paste(img, marker, x, y, s)
    _text(img, "WAGON ROW (RAILYARD)", g.width / 2, 11, 5, s, INK, centre=True, bold=True)
    _text(img, f"Take a foundation tile from a space up to your action number.   sheets v{SHEET_VERSION}",
          g.width / 2, 17.5, 2.8, s, INK, centre=True)
    for space in range(1, 6):
        x, y, w, h = g.space_rect(space)
        _rect(img, x, y, w, h, s, (245, 245, 245), INK, 0.5)
        _text(img, str(space), x + w / 2, y + 10, 8, s, INK, centre=True, bold=True)
        for source in (("1a", "1b") if space == 1 else (str(space),)):
            sx, sy, sw, sh = g.slot_rect(source)
            _rect(img, sx, sy, sw, sh, s, SLOT, GREY, 0.2)
            _text(img, source if space == 1 else "open", sx + 2, sy + sh - 2, 2.6, s, GREY)
    _text(img, "Space 1: two face-down stacks (1a, 1b); spaces 2-5: one open tile each.", g.width / 2,
          g.height - 8, 3, s, INK, centre=True)
    return img


def _wagon_page(s: float, decided: frozenset[str]) -> Page:
    page = blank_page(True, s)
    x0 = (A4[1] - WAGON.width) / 2
    paste(page, render_wagon(s), x0, 8, s)
    ry = 8 + WAGON.height + 30
    _text(page, "ROUNDS", x0, ry, 5, s, INK, bold=True)
    for k in range(7):
        cx = x0 + 40 + k * 24
        cv2.circle(page, (_px(cx, s), _px(ry - 2, s)), _px(9, s), INK, max(1, _px(0.4, s)), cv2.LINE_AA)
        _text(page, str(k + 1), cx, ry + 1.5, 7, s, INK, centre=True, bold=True)
    title = f"wagon row and round track (markers {', '.join(map(str, WAGON_MARKER_IDS))})"
    check_line(page, s, 10, 203, title)
    return Page(WAGON_PAGE, page, ())


#: The title of the wagon row's page.
WAGON_PAGE = "wagon row and round track"


# -- foundation tiles, attractions, tokens, tricks ------------------------------


def _tile_pages(s: float, catalog: Catalog, decided: frozenset[str]) -> Iterator[Page]:
    badged = "foundation tiles" in decided
    tiles = [p for p, n in catalog.foundations.items() for _ in range(n)]
    side, gap = 2 * FIELD, 3.0
    cols = int((A4[0] - 20 + gap) // (side + gap))
    rows = int((A4[1] - 30 + gap) // (side + gap))
    per_page = cols * rows
    x0 = (A4[0] - cols * side - (cols - 1) * gap) / 2
    pages = math.ceil(len(tiles) / per_page)
    for p in range(pages):
        page = blank_page(False, s)
        for k, pattern in enumerate(tiles[p * per_page:(p + 1) * per_page]):
            x, y = x0 + (k % cols) * (side + gap), 10 + (k // cols) * (side + gap)
            paste(page, render_tile(pattern, s, badged), x, y, s)
            cut_marks(page, x, y, side, side, s)
        title = f"foundation tiles {p + 1} of {pages}"
        check_line(page, s, 10, 290, title)
        yield Page(title, page, ("foundation tiles",) if badged else ())


def _attraction_pages(s: float, catalog: Catalog, decided: frozenset[str]) -> Iterator[Page]:
    """Every attraction of the largest supply (4 players), shelf-packed on portrait pages."""
    badged = "attractions" in decided
    pieces = [shape for shape in catalog.shapes.values() for _ in range(max(shape.counts))]
    rows_of = {name: _rows(shape) for name, shape in catalog.shapes.items()}
    gap, left, top, bottom = 4.0, 10.0, 10.0, 282.0
    placed: list[tuple[str, float, float]] = []
    x, y, shelf = left, top, 0.0
    number = 0

    def flush(final: bool) -> Iterator[Page]:
        nonlocal number
        number += 1
        page = blank_page(False, s)
        for name, px, py in placed:
            _draw_attraction(page, rows_of[name], name, catalog.shapes[name].size, px, py, s, badged)
        title = f"attractions, page {number}" + (" (last)" if final else "")
        check_line(page, s, 10, 290, title)
        yield Page(title, page, ("attractions",) if badged else ())

    for shape in pieces:
        rows = rows_of[shape.name]
        w, h = len(rows[0]) * FIELD, len(rows) * FIELD
        if x + w > A4[0] - left:
            x, y, shelf = left, y + shelf + gap, 0.0
        if y + h > bottom:
            yield from flush(False)
            placed = []
            x, y, shelf = left, top, 0.0
        placed.append((shape.name, x, y))
        x += w + gap
        shelf = max(shelf, h)
    yield from flush(True)


def _rows(shape: Shape) -> list[str]:
    """The shape lying as flat as it can ("#" = field, top row first), one way for every print."""
    def key(cells: frozenset[tuple[int, int]]) -> tuple[int, list[tuple[int, int]]]:
        return (max(r for r, _ in cells), sorted(cells))

    cells = min(shape.orientations, key=key)
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return ["".join("#" if (r, c) in cells else "." for c in range(width)) for r in range(height)]


def _draw_attraction(page: Image, rows: list[str], name: str, size: int, x: float, y: float, s: float,
                     badged: bool) -> None:
    cells = frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")
    img, alpha = render_attraction(cells, name, s, badged)
    paste(page, img, x, y, s, alpha)


def attraction_rows(shape: Shape) -> list[str]:
    """The shape as its sheet prints it ("#" = field, top row first)."""
    return _rows(shape)


def _token_page(s: float, catalog: Catalog, decided: frozenset[str]) -> Page:
    page = blank_page(False, s)
    badges = tuple(n for n in ("guests", "barkers") if n in decided)
    y = 12.0
    groups = [("guests", GUESTS, "guest", TOKEN), ("barkers", max(catalog.barkers), "barker", TOKEN),
              ("tickets", TICKETS, "ticket", TICKET_SIDE), ("figures", FIGURES, "figure", FIGURE_SIZE)]
    for name, count, kind, size in groups:
        _text(page, f"{name.upper()} ({count})", 10, y + 3, 4, s, INK, bold=True)
        y += 6
        pitch = size + 4
        cols = int((A4[0] - 20) // pitch)
        img, alpha = render_token(kind, s, name in decided)
        for k in range(count):
            x = 10 + (k % cols) * pitch
            paste(page, img, x, y + (k // cols) * pitch, s, alpha)
        y += math.ceil(count / cols) * pitch + 4
    _text(page, "Figures: one on each action number you take this round, one on each trick you learn.",
          10, y + 3, 3, s)
    check_line(page, s, 10, 290, TOKEN_PAGE)
    return Page(TOKEN_PAGE, page, badges)


#: The title of the page of guests, barkers, tickets and figures.
TOKEN_PAGE = "guests, barkers, tickets and figures"


_EFFECTS = {
    "walk_on_sites": "Your guests may also walk on and stop on empty construction sites.",
    "build_bigger": "You may build an attraction one size larger than your action number.",
    "railyard_reach": "You may take a foundation tile from one wagon space further.",
    "extra_step": "Your guests may move one step further.",
}


def _trick_page(s: float, catalog: Catalog, decided: frozenset[str]) -> Page:
    badged = "trick cards" in decided
    page = blank_page(False, s)
    gap = 4.0
    x0 = (A4[0] - 3 * CARD_W - 2 * gap) / 2
    for k, trick in enumerate(catalog.tricks.values()):
        x, y = x0 + (k % 3) * (CARD_W + gap), 10 + (k // 3) * (CARD_H + gap)
        _rect(page, x, y, CARD_W, CARD_H, s, (245, 250, 250), INK, 0.4)
        ty = y + 9
        for line in _wrap(trick.name, 22):
            _text(page, line, x + 4, ty, 3.6, s, INK, bold=True)
            ty += 5.5
        ty += 3
        for head, body in (("When:", trick.describe() + " (end of your turn)"),
                           ("Then:", _EFFECTS[trick.effect.value] + " From your next turn on.")):
            _text(page, head, x + 4, ty, 3, s, INK, bold=True)
            ty += 5
            for line in _wrap(body, 30):
                _text(page, line, x + 4, ty, 2.8, s, INK)
                ty += 4.4
            ty += 2
        if badged:
            _badge(page, x + CARD_W - 5, y + 5, s)
        cut_marks(page, x, y, CARD_W, CARD_H, s)
    title = "trick cards"
    check_line(page, s, 10, 290, title)
    return Page(title, page, ("trick cards",) if badged else ())


# -- the legend -------------------------------------------------------------------


def _legend_page(s: float, decided: frozenset[str], values: Mapping[str, Any] | None = None,
                 source: str = "") -> Page:
    """The legend: every component, its Ringside decisions and the values printed.

    ``values``: the component values the sheets are printed with (default: the shipped
    ones); the entries that differ from the shipped values are marked as from ``source``.
    """
    page = blank_page(False, s)
    _text(page, "THE GRAND CARNIVAL - PRINT AND PLAY", 12, 20, 6, s, INK, bold=True)
    y = 32.0
    _badge(page, 15, y - 1.5, s, 3)
    intro = ("marks a component whose facts are Ringside's decision: the rules and the sources "
             "leave them open. If your box differs, write its values in "
             "~/.config/ringside/grand-carnival.toml (see docs/grand-carnival-components.md); "
             "Ringside then plays and scores with them.")
    for line in _wrap(intro, 78):
        _text(page, line, 21, y, 3.2, s)
        y += 5
    y += 4
    data = shipped_data() if values is None else values
    changed = frozenset(line.split(" = ", 1)[0] for line in describe_changes(component_changes(data)))

    def mine(key: str) -> bool:
        return any(k == key or k.startswith(key + ".") for k in changed)

    shown_keys = {key for component in COMPONENTS for key in component.keys}
    if changed:
        for line in _wrap(f"* marks a value from your file {source or 'of component values'}, "
                          "not the shipped components.toml.", 80):
            _text(page, line, 21, y, 3.2, s, INK, bold=True)
            y += 5
        y += 2
    text = resources.files("scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    keys = decision_keys(text) | {key for key in shown_keys if mine(key)}
    for component in COMPONENTS:
        mark = component.name in decided
        if mark:
            _badge(page, 15, y - 1.5, s, 2.4)
        _text(page, component.name.upper(), 21, y, 3.6, s, INK, bold=True)
        y += 5.5
        for key in component.keys:
            if key not in keys:
                continue
            value = data
            for part in key.split("."):
                value = value[part]
            shown = json.dumps(value) if not isinstance(value, list) or len(json.dumps(value)) < 60 else (
                f"{len(value)} entries, see components.toml")
            for line in _wrap(f"{'* ' if mine(key) else ''}{key} = {shown}", 80):
                _text(page, line, 25, y, 2.9, s, GREY)
                y += 4.4
        if not mark:
            _text(page, "from the rules or a source: no decision", 25, y, 2.9, s, GREY)
            y += 4.4
        y += 3
    others = [k for k in sorted(changed) if not any(k == key or k.startswith(key + ".") for key in shown_keys)]
    for line in [f"* {line}" for line in describe_changes(component_changes(data)) if line.split(" = ", 1)[0] in others]:
        for part in _wrap(line, 80):
            _text(page, part, 25, y, 2.9, s, GREY)
            y += 4.4
    _text(page, "Pages: this legend, 4 market boards, wagon row, foundation tiles, attractions, guests,", 12, y + 6, 3, s)
    _text(page, "barkers, tickets, figures, trick cards. Cut along the grey corner marks.", 12, y + 11, 3, s)
    check_line(page, s, 10, 290, "legend: Ringside's decisions")
    return Page("legend: Ringside's decisions", page, tuple(c.name for c in COMPONENTS if c.name in decided))


def iter_carnival_pages(
    dpi: float = 200.0, catalog: Catalog = CATALOG, decided: frozenset[str] | None = None,
    values: Mapping[str, Any] | None = None, source: str = "",
) -> Iterator[Page]:
    """Every Grand Carnival sheet at ``dpi``, rendered one at a time as they are asked for.

    ``decided``: the components to badge (default: `carnival_decisions`, read from
    the [DECISION] tags of the shipped ``components.toml``). ``values``: the whole
    set of component values to print (a user's file merged over the shipped ones;
    it replaces ``catalog``); the legend marks those that came from ``source``.
    """
    s = dpi / 25.4
    if decided is None:
        decided = carnival_decisions()
    if values is not None:
        catalog = catalog_of(values, source or "components")
    yield _legend_page(s, decided, values, source)
    yield from _board_pages(s, catalog, decided)
    yield _wagon_page(s, decided)
    yield from _tile_pages(s, catalog, decided)
    yield from _attraction_pages(s, catalog, decided)
    yield _token_page(s, catalog, decided)
    yield _trick_page(s, catalog, decided)


def write_pdf(path: Path, dpi: float = 200.0, values: Mapping[str, Any] | None = None, source: str = "") -> int:
    """Write all Grand Carnival sheets to one PDF at true size, page by page; returns the page count.

    ``values``, ``source``: the component values to print and their file, as `iter_carnival_pages`.

    :raises OSError: when the file cannot be written.
    """
    pages = iter_carnival_pages(dpi, values=values, source=source)
    return write_pdf_pages(path, pages, dpi, "Ringside The Grand Carnival printable components")


def write_pngs(path: Path, dpi: float = 200.0, values: Mapping[str, Any] | None = None,
               source: str = "") -> list[Path]:
    """Write each Grand Carnival sheet as its own PNG (``sheets-01.png``, ...), page by page; returns the files.

    ``values``, ``source``: the component values to print and their file, as `iter_carnival_pages`.

    :raises OSError: when a file cannot be written.
    """
    return write_png_pages(path, iter_carnival_pages(dpi, values=values, source=source), dpi)
