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
        self._pictures: dict[tuple[int, int, str, int], tuple[int, int, NDArray[Any], NDArray[Any], NDArray[Any]]] = {}
        self._board: tuple[tuple[tuple[int, int, str, int], ...], NDArray[Any]] | None = None

    def corner(self, x: int, y: int) -> tuple[float, float]:
        """The pixel position of square (x, y)'s north-west corner."""
        return self.origin[0] + x * self.cell, self.origin[1] + y * self.cell

    def _tile(self, x: int, y: int, name: str, rotation: int) -> tuple[int, int, NDArray[Any], NDArray[Any], NDArray[Any]]:
        """One laid tile, drawn once: where its patch starts (x, y), the picture, its mask and its shadow."""
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
        pad = max(4, c // 8)
        px, py = int(cx) - pad, int(cy) - pad
        m[0, 2] += cx - px + rng.normal(0, 0.008 * c)
        m[1, 2] += cy - py + rng.normal(0, 0.008 * c)
        side = c + 2 * pad
        mask = cv2.warpAffine(np.full((c, c), 255, np.uint8), m, (side, side))
        warped = cv2.warpAffine(pic, m, (side, side))
        shadow = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), max(1.0, c / 60))
        found = (px, py, warped, mask > 127, shadow)
        self._pictures[key] = found
        return found

    def _tiles(self, tiles: tuple[tuple[int, int, str, int], ...]) -> NDArray[Any]:
        """The table with ``tiles`` laid (the last board drawn is kept: the next scene mostly has the same tiles)."""
        if self._board is not None and self._board[0] == tiles:
            kept: NDArray[Any] = self._board[1]
            return kept
        h, w = self.table.shape[:2]
        shade = np.zeros((h, w), np.float32)
        pictures = [self._tile(x, y, n, r) for x, y, n, r in tiles]
        for px, py, _, _, shadow in pictures:
            region = shade[max(0, py):py + shadow.shape[0], max(0, px):px + shadow.shape[1]]
            part = shadow[max(0, -py):max(0, -py) + region.shape[0], max(0, -px):max(0, -px) + region.shape[1]]
            np.maximum(region, part, out=region)
        img: NDArray[Any] = (self.table * (1 - 0.35 / 255.0 * shade[:, :, None])).astype(np.uint8)
        for px, py, warped, mask, _ in pictures:
            region = img[max(0, py):py + mask.shape[0], max(0, px):px + mask.shape[1]]
            sel = mask[max(0, -py):max(0, -py) + region.shape[0], max(0, -px):max(0, -px) + region.shape[1]]
            region[sel] = warped[max(0, -py):max(0, -py) + region.shape[0], max(0, -px):max(0, -px) + region.shape[1]][sel]
        self._board = (tiles, img)
        return img

    def render(self, scene: Scene) -> NDArray[Any]:
        """The noiseless overhead frame of ``scene`` (BGR)."""
        img = self._tiles(scene.tiles).copy()
        tiles = {(x, y): (n, r) for x, y, n, r in scene.tiles}
        c = self.cell
        for fig in scene.figures:
            # each figure drawn from its own seed, so that it looks the same in every frame (the parts of one
            # acrobat stack from the same seed, so that they stand on one spot); on a cut around its tile, as
            # drawing one figure blends its shadow over the whole picture it is given
            height = fig.below + fig.count + fig.above
            rng = np.random.default_rng([self.seed, fig.x + 1000, fig.y + 1000, len(fig.figure), height])
            ox, oy = self.corner(fig.x, fig.y)
            x0, y0 = max(0, int(ox - c)), max(0, int(oy - c))
            x1, y1 = min(img.shape[1], int(ox + 2 * c)), min(img.shape[0], int(oy + 2 * c))
            part = img[y0:y1, x0:x1]
            def corner(x: int, y: int, x0: int = x0, y0: int = y0) -> tuple[float, float]:
                cx, cy = self.corner(x, y)
                return cx - x0, cy - y0

            img[y0:y1, x0:x1] = draw_figures(part, tiles, [fig], corner, float(c), rng)
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
