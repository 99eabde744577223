"""Rendering Grand Carnival markets from straight above: for tests, benchmarks and the simulated camera.

A `MarketScene` is one player's market board as the engine's `Board` describes
it: the foundation tiles on their parcels, the attractions over their sites
with their tickets (one ticket per field, on the attraction's first fields),
guests and barkers on their fields, guests on the entrances and in the tent's
places, a figure on each action number taken and on each trick learned. The
pieces are the print sheets' drawings (`vision.grand_carnival.printing`).
Players never lay a piece exactly on its place: each is nudged and turned a
little (``jitter``). `render_top_down` draws one or more markets side by side
in table millimetres, which `vision.camera_model.photograph` turns into a photo.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.grand_carnival.components import CATALOG, Catalog, cells_of, normalise, parcel_cells
from scorer.grand_carnival.model import Board
from vision.geometry import Image
from vision.grand_carnival.layout import BOARD, FIELD, TENT_PLACES, TRICK_PLACES, WAGON
from vision.grand_carnival.printing import (
    carnival_decisions,
    render_attraction,
    render_board,
    render_tile,
    render_token,
    render_wagon,
)

__all__ = ["BOARD_GAP", "MarketScene", "WagonScene", "board_origin", "content_region", "frame", "render_top_down",
           "wagon_origin"]

#: Table gap (mm) between two boards lying side by side.
BOARD_GAP = 20.0
_TABLE_BGR = (95, 120, 140)
#: draws a foundation tile: pattern (``"ws/ss"``), px per mm, badged -> BGR image (`printing.render_tile`'s signature)
TileArt = Callable[[str, float, bool], Image]


@dataclass(frozen=True, slots=True)
class MarketScene:
    """One market on the table: the seat whose board it is and what lies on it.

    ``jitter``: the seed of each piece's small offset and turn (None: exact).
    """

    board: Board
    seat: int = 0
    jitter: int | None = None
    catalog: Catalog = CATALOG


@dataclass(frozen=True, slots=True)
class WagonScene:
    """The wagon row: the open tile on each of spaces 2..5 (None: empty) and how many tiles each stack holds."""

    open: tuple[str | None, str | None, str | None, str | None]
    stacks: tuple[int, int] = (0, 0)
    jitter: int | None = None


def wagon_origin(markets: int) -> tuple[float, float]:
    """Table mm of the wagon board's top-left corner: below the ``markets`` boards."""
    rows = (markets + 1) // 2
    return (0.0, rows * (BOARD.height + BOARD_GAP))


def board_origin(index: int) -> tuple[float, float]:
    """Table mm of the top-left corner of the ``index``-th board in a scene (two boards a row)."""
    return ((index % 2) * (BOARD.width + BOARD_GAP), (index // 2) * (BOARD.height + BOARD_GAP))


def content_region(count: int, margin: float = 12.0, wagon: bool = False) -> tuple[float, float, float, float]:
    """The table region (x0, y0, x1, y1 mm) a camera frames to see ``count`` boards (and the wagon row below)."""
    cols = max(1, min(count, 2))
    rows = (count + 1) // 2
    bottom = rows * BOARD.height + (rows - 1) * BOARD_GAP if rows else -BOARD_GAP
    if wagon:
        bottom += BOARD_GAP + WAGON.height
    right = cols * BOARD.width + (cols - 1) * BOARD_GAP
    if wagon:
        right = max(right, WAGON.width)
    return (-margin, -margin, right + margin, bottom + margin)


def _paste(canvas: Image, img: Image, alpha: Image | None, cx: float, cy: float, angle: float, s: float,
           origin: tuple[float, float]) -> None:
    """Paste a piece centred on table point (cx, cy) mm, turned ``angle`` degrees."""
    h, w = img.shape[:2]
    if alpha is None:
        alpha = np.full((h, w), 255, np.uint8)
    px, py = (cx - origin[0]) * s, (cy - origin[1]) * s
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[0, 2] += px - w / 2
    m[1, 2] += py - h / 2
    x0, y0 = int(max(0, px - w)), int(max(0, py - h))
    x1, y1 = int(min(canvas.shape[1], px + w)), int(min(canvas.shape[0], py + h))
    if x0 >= x1 or y0 >= y1:
        return
    m[0, 2] -= x0
    m[1, 2] -= y0
    part = cv2.warpAffine(img, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    roi = canvas[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + part * a).astype(canvas.dtype)


def _centre(rect: tuple[float, float, float, float]) -> tuple[float, float]:
    x, y, w, h = rect
    return (x + w / 2, y + h / 2)


def _draw_market(canvas: Image, scene: MarketScene, ox: float, oy: float, s: float,
                 origin: tuple[float, float], decided: frozenset[str], tile_art: TileArt = render_tile) -> None:
    board, b = scene.board, BOARD
    rng = random.Random(scene.jitter)

    def nudge(shift: float, turn: float) -> tuple[float, float, float]:
        if scene.jitter is None:
            return 0.0, 0.0, 0.0
        return rng.uniform(-shift, shift), rng.uniform(-shift, shift), rng.uniform(-turn, turn)

    img = render_board(scene.seat, scene.catalog, s, "market board" in decided)
    x0, y0 = int(round((ox - origin[0]) * s)), int(round((oy - origin[1]) * s))
    h, w = img.shape[:2]
    canvas[y0:y0 + h, x0:x0 + w] = img

    def at(rect: tuple[float, float, float, float]) -> tuple[float, float]:
        cx, cy = _centre(rect)
        return ox + cx, oy + cy

    tiles: dict[str, Image] = {}
    for parcel, pattern in enumerate(board.parcels):
        if pattern is None:
            continue
        if pattern not in tiles:
            tiles[pattern] = tile_art(pattern, s, "foundation tiles" in decided)
        fx, fy, _, _ = b.field_rect(parcel_cells(parcel)[0])
        dx, dy, da = nudge(1.0, 1.5)
        _paste(canvas, tiles[pattern], None, ox + fx + FIELD + dx, oy + fy + FIELD + dy, da, s, origin)
    tokens = {kind: render_token(kind, s, kind + "s" in decided) for kind in ("guest", "barker", "ticket", "figure")}

    def token(kind: str, cx: float, cy: float) -> None:
        dx, dy, da = nudge(1.2, 8.0)
        piece, alpha = tokens[kind]
        _paste(canvas, piece, alpha, cx + dx, cy + dy, da, s, origin)

    for attraction in board.attractions:
        cells = cells_of(attraction.mask)
        rc = [divmod(c, 8) for c in cells]
        shape = normalise(rc)
        piece, alpha = render_attraction(shape, attraction.shape, s, "attractions" in decided)
        r0, c0 = min(r for r, _ in rc), min(c for _, c in rc)
        fx, fy, _, _ = b.field_rect(r0 * 8 + c0)
        dx, dy, da = nudge(1.0, 1.5)
        rows = max(r for r, _ in shape) + 1
        cols = max(c for _, c in shape) + 1
        _paste(canvas, piece, alpha, ox + fx + cols * FIELD / 2 + dx, oy + fy + rows * FIELD / 2 + dy, da, s, origin)
        for cell in cells[:attraction.tickets]:
            token("ticket", *at(b.field_rect(cell)))
    for cell in cells_of(board.guests):
        token("guest", *at(b.field_rect(cell)))
    for cell in cells_of(board.barkers):
        token("barker", *at(b.field_rect(cell)))
    for waiting, cell in zip(board.entrances, scene.catalog.entrance_cells):
        if waiting:
            token("guest", *at(b.entrance_rect(cell % 8)))
    for place in range(min(board.tent, TENT_PLACES)):
        token("guest", *at(b.tent_rect(place)))
    for number in sorted(board.numbers):
        sx, sy = b.number_spot(number)
        token("figure", ox + sx, oy + sy)
    for place in range(min(board.tricks_learned, TRICK_PLACES)):
        token("figure", *at(b.trick_rect(place)))


def _draw_wagon(canvas: Image, wagon: WagonScene, ox: float, oy: float, s: float,
                origin: tuple[float, float], decided: frozenset[str], tile_art: TileArt = render_tile) -> None:
    img = render_wagon(s)
    x0, y0 = int(round((ox - origin[0]) * s)), int(round((oy - origin[1]) * s))
    h, w = img.shape[:2]
    canvas[y0:y0 + h, x0:x0 + w] = img
    rng = random.Random(wagon.jitter)
    back = np.full_like(render_tile("ww/ss", s), 255)
    cv2.rectangle(back, (0, 0), (back.shape[1] - 1, back.shape[0] - 1), (170, 170, 170), max(1, int(0.3 * s)))

    def put(piece: Image, rect: tuple[float, float, float, float]) -> None:
        dx, dy, da = (0.0, 0.0, 0.0) if wagon.jitter is None else (
            rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.5, 1.5))
        cx, cy = _centre(rect)
        _paste(canvas, piece, None, ox + cx + dx, oy + cy + dy, da, s, origin)

    for source, count in zip(("1a", "1b"), wagon.stacks):
        if count:
            put(back, WAGON.slot_rect(source))
    for space, pattern in enumerate(wagon.open, start=2):
        if pattern is not None:
            put(tile_art(pattern, s, "foundation tiles" in decided), WAGON.slot_rect(str(space)))


def render_top_down(scenes: tuple[MarketScene, ...] | list[MarketScene], s: float,
                    region: tuple[float, float, float, float] | None = None, wagon: WagonScene | None = None,
                    tile_art: TileArt = render_tile) -> Image:
    """The markets (and the wagon row) seen from straight above at ``s`` px/mm.

    The ``k``-th board lies at `board_origin` (k), the wagon row at `wagon_origin`.
    Pixel (0, 0) is table point ``region[:2]`` (default: `content_region` of the scenes).
    ``tile_art`` draws the foundation tiles (default the print sheets'; another edition's, to
    stand in for a family's own tiles).
    """
    x0, y0, x1, y1 = region if region is not None else content_region(len(scenes), wagon=wagon is not None)
    canvas = np.empty((int(round((y1 - y0) * s)), int(round((x1 - x0) * s)), 3), np.uint8)
    canvas[:] = _TABLE_BGR
    decided = carnival_decisions()
    for k, scene in enumerate(scenes):
        ox, oy = board_origin(k)
        _draw_market(canvas, scene, ox, oy, s, (x0, y0), decided, tile_art)
    if wagon is not None:
        _draw_wagon(canvas, wagon, *wagon_origin(len(scenes)), s, (x0, y0), decided, tile_art)
    return canvas


def frame(scenes: tuple[MarketScene, ...] | list[MarketScene], width: int = 1280,
          wagon: WagonScene | None = None) -> Image:
    """A plain overhead camera frame of the markets (and the wagon row; no lens, light or noise), ``width`` px wide."""
    x0, _, x1, _ = content_region(len(scenes), wagon=wagon is not None)
    return render_top_down(scenes, width / (x1 - x0), wagon=wagon)
