"""A Carcassonne tile edition, "Fourth", in an art style the shipped model never saw.

Stands in for a family's own edition in `bench_enroll_carcassonne.py`: a flat, stylised print
unlike every style of `vision.carcassonne.render` (and unlike the scans): ochre fields with
diagonal hatching (no green anywhere), plum cities drawn as straight-edged polygons with a
white wall and rows of light windows, charcoal roads with a yellow dashed centre line that run
straight to the tile's middle and turn there, a red disc with a white cross for a monastery, a
white ring where roads meet, a yellow star for a pennant, and a thin dark rim round the tile.
Each tile is drawn from the catalog's facts (`scorer.carcassonne.catalog`), never from
publisher art; every copy of a letter is printed alike.

Never train the shipped model on these tiles: they exist only to be enrolled from photos and
recognised through an enrolled deck.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import CATALOG, Kind, Special

Image = NDArray[Any]
Colour = tuple[int, int, int]

#: a tile's side on the table (mm)
TILE_MM = 45.0
FIELD: Colour = (95, 170, 215)       # ochre
HATCH: Colour = (70, 140, 190)
CITY: Colour = (105, 45, 95)         # plum
WALL: Colour = (245, 245, 245)
WINDOW: Colour = (200, 190, 210)
ROAD: Colour = (55, 55, 60)          # charcoal
DASH: Colour = (40, 220, 245)        # yellow
RIM: Colour = (40, 45, 60)
MONASTERY: Colour = (40, 40, 200)    # red
STAR: Colour = (30, 215, 250)

#: canonical city outlines (tile units, x right, y down) for a city touching, clockwise from the first:
#: one side (north), two neighbouring sides (north, west), two opposite sides (west, east), three (north,
#: east, west)
_CAP = ((0.0, 0.0), (1.0, 0.0), (0.74, 0.3), (0.26, 0.3))
_CORNER = ((0.0, 0.0), (1.0, 0.0), (0.62, 0.38), (0.38, 0.62), (0.0, 1.0))
_BAND = ((0.0, 0.0), (0.28, 0.3), (0.72, 0.3), (1.0, 0.0), (1.0, 1.0), (0.72, 0.7), (0.28, 0.7), (0.0, 1.0))
_THREE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.7, 0.66), (0.3, 0.66), (0.0, 1.0))


def _turn(pts: tuple[tuple[float, float], ...], quarters: int) -> list[tuple[float, float]]:
    """``pts`` turned clockwise by ``quarters`` quarter turns about the tile's middle."""
    out = list(pts)
    for _ in range(quarters % 4):
        out = [(1.0 - y, x) for x, y in out]
    return out


def _city_outline(sides: tuple[int, ...]) -> list[tuple[float, float]]:
    """The outline of a city touching ``sides`` (0 N, 1 E, 2 S, 3 W), in tile units."""
    want = set(sides)
    if len(want) == 4:
        return [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    for poly, held in ((_CAP, {0}), (_CORNER, {0, 3}), (_BAND, {1, 3}), (_THREE, {0, 1, 3})):
        for q in range(4):
            if {(x + q) % 4 for x in held} == want:
                return _turn(poly, q)
    raise KeyError(sides)


def _mid(side: int) -> tuple[float, float]:
    return ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))[side]


def _px(pts: list[tuple[float, float]] | tuple[tuple[float, float], ...], n: int) -> NDArray[np.int32]:
    return np.round(np.asarray(pts, np.float64) * n * 16).astype(np.int32)


def _star(img: Image, cx: float, cy: float, r: float) -> None:
    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else 0.42 * r
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    p = np.round(np.asarray(pts) * 16).astype(np.int32)
    cv2.fillPoly(img, [p], STAR, cv2.LINE_AA, shift=4)
    cv2.polylines(img, [p], True, (20, 20, 20), 1, cv2.LINE_AA, shift=4)


@functools.lru_cache(maxsize=128)
def _tile(name: str, n: int) -> Image:
    """Tile ``name`` in its catalog orientation, ``n`` px square."""
    tile = CATALOG[name]
    img = np.empty((n, n, 3), np.uint8)
    img[:] = FIELD
    step = n / 9
    for k in range(-9, 10):
        x0 = k * step
        cv2.line(img, (int(x0 * 16), 0), (int((x0 + n) * 16), n * 16), HATCH, max(1, n // 80), cv2.LINE_AA, shift=4)
    centre = (0.5, 0.5)
    roads = [seg for seg in tile.segments if seg.kind is Kind.ROAD]
    stubs = sum(1 for seg in roads if len(seg.sides) == 1)
    width = max(2, int(round(0.13 * n)))
    for seg in roads:
        pts = [_mid(seg.sides[0]), centre] + ([_mid(seg.sides[1])] if len(seg.sides) == 2 else [])
        p = _px(pts, n).reshape(-1, 1, 2)
        cv2.polylines(img, [p], False, ROAD, width, cv2.LINE_AA, shift=4)
        # the dashed centre line
        for a, b in zip(pts, pts[1:]):
            for t in np.arange(0.1, 0.95, 0.3):
                u = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                v = (a[0] + (b[0] - a[0]) * (t + 0.14), a[1] + (b[1] - a[1]) * (t + 0.14))
                cv2.line(img, tuple(int(c * n * 16) for c in u), tuple(int(c * n * 16) for c in v), DASH,
                         max(1, n // 48), cv2.LINE_AA, shift=4)
    cities = [seg for seg in tile.segments if seg.kind is Kind.CITY]
    for seg in cities:
        poly = _px(_city_outline(seg.sides), n)
        cv2.fillPoly(img, [poly], CITY, cv2.LINE_AA, shift=4)
        cv2.polylines(img, [poly], True, WALL, max(2, n // 40), cv2.LINE_AA, shift=4)
        mask = np.zeros((n, n), np.uint8)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_8, shift=4)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(2, n // 24))
        w = max(1, n // 28)
        for gy in np.arange(0.08, 1.0, 0.12):
            for gx in np.arange(0.08 + (0.06 if int(gy * 100) % 24 else 0.0), 1.0, 0.12):
                x, y = int(gx * n), int(gy * n)
                if mask[min(n - 1, y), min(n - 1, x)] and mask[min(n - 1, y + w), min(n - 1, x + w)]:
                    cv2.rectangle(img, (x, y), (x + w, y + w), WINDOW, -1)
        if seg.pennants:
            ys, xs = np.nonzero(mask)
            cx, cy = float(xs.mean()), float(ys.mean())
            if not mask[int(cy), int(cx)]:
                k = int(np.argmin((xs - cx) ** 2 + (ys - cy) ** 2))
                cx, cy = float(xs[k]), float(ys[k])
            _star(img, cx, cy, 0.09 * n)
    c = (int(0.5 * n * 16), int(0.5 * n * 16))
    if any(seg.kind is Kind.MONASTERY for seg in tile.segments):
        r = int(0.2 * n * 16)
        cv2.circle(img, c, r, MONASTERY, -1, cv2.LINE_AA, shift=4)
        arm, thick = 0.13 * n, max(2, n // 20)
        cv2.line(img, (int((0.5 * n - arm) * 16), c[1]), (int((0.5 * n + arm) * 16), c[1]), WALL, thick, cv2.LINE_AA, shift=4)
        cv2.line(img, (c[0], int((0.5 * n - arm) * 16)), (c[0], int((0.5 * n + arm) * 16)), WALL, thick, cv2.LINE_AA, shift=4)
    elif tile.special is Special.CIRCUS or tile.special is Special.ACROBATS:
        cv2.circle(img, c, int(0.18 * n * 16), (200, 120, 40), -1, cv2.LINE_AA, shift=4)
    elif stubs >= 3:
        cv2.circle(img, c, int(0.1 * n * 16), WALL, -1, cv2.LINE_AA, shift=4)
        cv2.circle(img, c, int(0.1 * n * 16), RIM, max(1, n // 64), cv2.LINE_AA, shift=4)
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), RIM, max(1, n // 96))
    return img


def draw_tile(name: str, rotation: int = 0, size: int = 96) -> Image:
    """Tile ``name`` turned clockwise by ``rotation`` degrees, ``size`` px square (BGR uint8)."""
    if rotation not in (0, 90, 180, 270):
        raise KeyError(rotation)
    return np.ascontiguousarray(np.rot90(_tile(name, size), k=-(rotation // 90)))


def render(label: str, px_per_mm: float) -> tuple[Image, Image]:
    """A Fourth tile (image, alpha) of a tile letter, upright, at ``px_per_mm`` (for enrolment photos)."""
    n = int(round(TILE_MM * px_per_mm))
    return draw_tile(label, 0, n).copy(), np.full((n, n), 255, np.uint8)
