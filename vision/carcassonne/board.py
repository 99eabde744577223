"""Synthetic Carcassonne boards: legal layouts from the box, drawn top-down with known cells.

`random_layout` plays a solitaire of legal placements (every touching edge
matches, as in the game), so a layout is edge-consistent and never holds more
of a tile than the box. `draw_board` paints it on a table with small gaps and
misalignments between tiles, as real tiles lie; `BoardImage.cell_corners`
gives the true grid for tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import START_TILE, box, rotated
from vision.carcassonne.dataset import table_patch

__all__ = ["BoardImage", "Placed", "draw_board", "random_layout"]

_STEP = ((0, -1), (1, 0), (0, 1), (-1, 0))


@dataclass(frozen=True, slots=True)
class Placed:
    """One tile of a layout: cell (x right, y down), type and clockwise rotation."""

    x: int
    y: int
    tile: str
    rotation: int


def random_layout(n: int, rng: np.random.Generator, expansion: bool = False) -> list[Placed]:
    """Up to ``n`` legally placed tiles drawn from the box (start tile D at 0, 0).

    Placements prefer cells with more neighbours, so boards are compact as in play.
    """
    bag = [name for name, count in box(expansion).items() for _ in range(count)]
    bag.remove(START_TILE)
    order = [bag[i] for i in rng.permutation(len(bag))]
    board: dict[tuple[int, int], tuple[str, int]] = {(0, 0): (START_TILE, 0)}
    for name in order:
        if len(board) >= n:
            break
        frontier = {(x + dx, y + dy) for (x, y) in board for dx, dy in _STEP} - board.keys()
        options: list[tuple[int, tuple[int, int], int]] = []
        for cell in frontier:
            for rot in (0, 90, 180, 270):
                edges = rotated(name, rot).edges
                touching = 0
                ok = True
                for side, (dx, dy) in enumerate(_STEP):
                    other = board.get((cell[0] + dx, cell[1] + dy))
                    if other is None:
                        continue
                    touching += 1
                    if rotated(*other).edges[(side + 2) % 4] is not edges[side]:
                        ok = False
                        break
                if ok:
                    options.append((touching, cell, rot))
        if not options:
            continue
        weights = np.array([4.0 ** t for t, _, _ in options])
        _, cell, rot = options[int(rng.choice(len(options), p=weights / weights.sum()))]
        board[cell] = (name, rot)
    return [Placed(x, y, t, r) for (x, y), (t, r) in board.items()]


@dataclass(frozen=True, slots=True)
class BoardImage:
    """A drawn board: the image, its tiles and the pixel position of cell (0, 0)'s corner.

    ``figures`` are the `vision.carcassonne.figures.PlacedFigure`s drawn on it, if any.
    """

    image: NDArray[Any]
    tiles: tuple[Placed, ...]
    cell: float
    origin: tuple[float, float]
    figures: tuple[Any, ...] = ()

    @property
    def subject(self) -> tuple[float, float, float, float]:
        """The tiles' bounding box in the picture (x0, y0, x1, y1)."""
        xs = [t.x for t in self.tiles]
        ys = [t.y for t in self.tiles]
        ox, oy = self.origin
        return (ox + min(xs) * self.cell, oy + min(ys) * self.cell, ox + (max(xs) + 1) * self.cell, oy + (max(ys) + 1) * self.cell)

    def cell_corners(self, x: int, y: int) -> NDArray[Any]:
        """The ideal corners (NW, NE, SE, SW) of cell ``(x, y)`` in image pixels."""
        ox, oy = self.origin
        c = self.cell
        return np.asarray([[ox + x * c, oy + y * c], [ox + (x + 1) * c, oy + y * c],
                           [ox + (x + 1) * c, oy + (y + 1) * c], [ox + x * c, oy + (y + 1) * c]], dtype=np.float32)


def draw_board(tiles: list[Placed], tile_image: Callable[[str, int], NDArray[Any]], rng: np.random.Generator,
               cell: int = 96, margin: float = 4.0) -> BoardImage:
    """Paint ``tiles`` top-down; ``tile_image(name, rotation)`` gives a square BGR picture of one tile.

    Each tile is shrunk by a small random gap and nudged and turned slightly;
    seams get a faint shadow. ``margin`` is the bare table around the board, in cells.
    """
    xs = [t.x for t in tiles]
    ys = [t.y for t in tiles]
    w = int((max(xs) - min(xs) + 1 + 2 * margin) * cell)
    h = int((max(ys) - min(ys) + 1 + 2 * margin) * cell)
    img = table_patch(h, w, rng, avoid_fields=True)
    ox = (margin - min(xs)) * cell
    oy = (margin - min(ys)) * cell
    for t in tiles:
        pic = tile_image(t.tile, t.rotation)
        pic = cv2.resize(pic, (cell, cell), interpolation=cv2.INTER_AREA)
        gap = rng.uniform(0.005, 0.02) * cell
        ang = rng.normal(0, 0.6)
        cx = ox + (t.x + 0.5) * cell + rng.normal(0, 0.008 * cell)
        cy = oy + (t.y + 0.5) * cell + rng.normal(0, 0.008 * cell)
        side = cell - 2 * gap
        m = cv2.getRotationMatrix2D((cell / 2, cell / 2), ang, side / cell)
        m[0, 2] += cx - cell / 2
        m[1, 2] += cy - cell / 2
        mask = cv2.warpAffine(np.full((cell, cell), 255, np.uint8), m, (w, h))
        # a thin shadow on the table side of the tile's edge
        shadow = cv2.GaussianBlur(mask, (0, 0), max(1.0, cell / 60))
        img = (img.astype(np.float32) * (1 - 0.35 * shadow[:, :, None] / 255.0)).astype(np.uint8)
        warped = cv2.warpAffine(pic, m, (w, h))
        sel = mask > 127
        img[sel] = warped[sel]
    return BoardImage(img, tuple(tiles), float(cell), (float(ox), float(oy)))
