"""What the simulated overhead camera sees of a Carcassonne table: the board so far, its figures, the hint zone.

The tiles are the project's own art (`vision.carcassonne.render`), the figures
its own figure drawings (`vision.carcassonne.figures.draw_figures`). The
camera is fixed over the table, so a tile lies at the same place in every
frame from the moment it is laid: each tile's picture and its small gap, nudge
and turn are drawn once, from a seed of its square. The hint zone is the strip
at the frame's right edge (`HINT_SHARE` of the width, `HINT_X` is where it
starts); a tile shown there is drawn in its middle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.carcassonne.dataset import table_patch
from vision.carcassonne.figures import PlacedFigure, draw_figures
from vision.carcassonne.render import render_tile

__all__ = ["HINT_SHARE", "Scene", "SceneRenderer"]

#: the share of the frame's width, at its right edge, that is the hint zone
HINT_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class Scene:
    """The table at one moment: tiles (x, y, type, rotation; x east, y south), figures, the tile in the hint zone."""

    tiles: tuple[tuple[int, int, str, int], ...]
    figures: tuple[PlacedFigure, ...] = ()
    hint: str | None = None


class SceneRenderer:
    """Draws `Scene`\\ s of one game night: a board that stays within ``bounds`` (min x, min y, max x, max y).

    ``cell`` is the tile side in pixels, ``style`` the art style, ``seed`` fixes the table and every picture.
    """

    def __init__(self, bounds: tuple[int, int, int, int], cell: int = 56, style: str = "classic", seed: int = 0,
                 margin: float = 1.5) -> None:
        x0, y0, x1, y1 = bounds
        self.cell = cell
        self.style = style
        self.seed = seed
        board_w = (x1 - x0 + 1 + 2 * margin) * cell
        width = int(round(board_w / (1 - HINT_SHARE)))
        height = int(round((y1 - y0 + 1 + 2 * margin) * cell))
        height = max(height, int(2.5 * cell))
        self.size = (width, height)
        self.origin = ((margin - x0) * cell, (margin - y0) * cell)
        self.hint_x = int(round(width * (1 - HINT_SHARE)))
        rng = np.random.default_rng([seed, 17])
        self.table = table_patch(height, width, rng, avoid_fields=True)
        # the hint zone is marked on the table with a light frame
        cv2.rectangle(self.table, (self.hint_x + 4, 4), (width - 5, height - 5), (235, 235, 235), 2)
        self._pictures: dict[tuple[int, int, str, int], tuple[NDArray[Any], NDArray[Any]]] = {}

    def corner(self, x: int, y: int) -> tuple[float, float]:
        """The pixel position of square (x, y)'s north-west corner."""
        return self.origin[0] + x * self.cell, self.origin[1] + y * self.cell

    def _tile(self, x: int, y: int, name: str, rotation: int) -> tuple[NDArray[Any], NDArray[Any]]:
        """The warped picture and mask of one laid tile (drawn once)."""
        key = (x, y, name, rotation)
        found = self._pictures.get(key)
        if found is not None:
            return found
        rng = np.random.default_rng([self.seed, x + 1000, y + 1000])
        pic = render_tile(name, rotation, 96, self.style, rng)
        c = self.cell
        pic = cv2.resize(pic, (c, c), interpolation=cv2.INTER_AREA)
        gap = rng.uniform(0.005, 0.02) * c
        m = cv2.getRotationMatrix2D((c / 2, c / 2), float(rng.normal(0, 0.6)), (c - 2 * gap) / c)
        cx, cy = self.corner(x, y)
        m[0, 2] += cx + rng.normal(0, 0.008 * c)
        m[1, 2] += cy + rng.normal(0, 0.008 * c)
        w, h = self.size
        mask = cv2.warpAffine(np.full((c, c), 255, np.uint8), m, (w, h))
        warped = cv2.warpAffine(pic, m, (w, h))
        self._pictures[key] = (warped, mask)
        return warped, mask

    def render(self, scene: Scene) -> NDArray[Any]:
        """The noiseless overhead frame of ``scene`` (BGR)."""
        img = self.table.copy()
        shade = np.zeros(img.shape[:2], np.float32)
        pictures = [self._tile(x, y, n, r) for x, y, n, r in scene.tiles]
        for _, mask in pictures:
            shade = np.maximum(shade, mask.astype(np.float32))
        shade = cv2.GaussianBlur(shade, (0, 0), max(1.0, self.cell / 60))
        img = (img.astype(np.float32) * (1 - 0.35 * shade[:, :, None] / 255.0)).astype(np.uint8)
        for warped, mask in pictures:
            sel = mask > 127
            img[sel] = warped[sel]
        tiles = {(x, y): (n, r) for x, y, n, r in scene.tiles}
        for fig in scene.figures:
            # each figure drawn from its own seed, so that it looks the same in every frame
            rng = np.random.default_rng([self.seed, fig.x + 1000, fig.y + 1000, len(fig.figure), fig.count])
            img = draw_figures(img, tiles, [fig], self.corner, float(self.cell), rng)
        if scene.hint is not None:
            self._hint(img, scene.hint)
        return img

    def _hint(self, img: NDArray[Any], name: str) -> None:
        """Draw ``name`` in the middle of the hint zone, as a player holds it out (turned a little)."""
        rng = np.random.default_rng([self.seed, 99, sum(map(ord, name))])
        c = self.cell
        pic = cv2.resize(render_tile(name, int(rng.integers(4)) * 90, 96, self.style, rng), (c, c),
                         interpolation=cv2.INTER_AREA)
        w, h = self.size
        cx = (self.hint_x + w) / 2
        cy = h / 2
        m = cv2.getRotationMatrix2D((c / 2, c / 2), float(rng.normal(0, 3)), 1.0)
        m[0, 2] += cx - c / 2
        m[1, 2] += cy - c / 2
        mask = cv2.warpAffine(np.full((c, c), 255, np.uint8), m, (w, h)) > 127
        warped = cv2.warpAffine(pic, m, (w, h))
        img[mask] = warped[mask]


def bounds_of(cells: Iterable[tuple[int, int]]) -> tuple[int, int, int, int]:
    """The smallest (min x, min y, max x, max y) holding every cell."""
    xs, ys = zip(*cells)
    return min(xs), min(ys), max(xs), max(ys)
