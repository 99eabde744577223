"""Where each feature of a tile lies: a map of the tile's segments, and feature names in RECORDS.md notation.

The catalog says which sides a city or road touches and which half-edges a field
holds, not where on the tile it lies. `feature_map` draws a plain geometry from
those facts (a city grown from its sides, a road from the middle of each of its
sides to the centre or across, the monastery or the Under the Big Top space a
disc in the centre, each field flooded from its half-edges), which is enough to
tell which feature a figure stands on. `spot_at` names it as a move does
(``road:E``, ``city:N``, ``field:NL``, ``monastery``), plus ``circus`` and
``acrobats`` for the two Under the Big Top spaces.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import CATALOG, Kind, Special, rotated

__all__ = ["CENTRE", "MAP_SIZE", "anchor", "feature_map", "spot_at"]

#: side of the square `feature_map` in pixels
MAP_SIZE = 48
#: the value of the Under the Big Top centre space in a feature map
CENTRE = -2
_R_CENTRE = 0.2
_ROAD = 0.15
#: half-edge points (x, y in tile widths), clockwise from the north-west corner: NL NR EL ER SL SR WL WR
_HALF_POINTS = ((0.25, 0.02), (0.75, 0.02), (0.98, 0.25), (0.98, 0.75), (0.75, 0.98), (0.25, 0.98), (0.02, 0.75),
                (0.02, 0.25))
_MID = ((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5))


def _curve(a: tuple[float, float], b: tuple[float, float], via: tuple[float, float], n: int = 24) -> NDArray[Any]:
    t = np.linspace(0, 1, n)[:, None]
    pa, pb, pv = np.array(a), np.array(b), np.array(via)
    pts: NDArray[Any] = (1 - t) ** 2 * pa + 2 * (1 - t) * t * pv + t**2 * pb
    return pts


@cache
def _catalog_map(name: str) -> NDArray[Any]:
    s = MAP_SIZE
    tile = CATALOG[name]
    out = np.full((s, s), -1, np.int16)
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    x, y = (xx + 0.5) / s, (yy + 0.5) / s
    dist = [y, 1.0 - x, 1.0 - y, x]
    for i, seg in enumerate(tile.segments):
        if seg.kind is Kind.CITY:
            if len(seg.sides) == 4:
                out[:] = i
                continue
            mine = np.minimum.reduce([dist[k] for k in seg.sides])
            others = np.minimum.reduce([dist[k] for k in range(4) if k not in seg.sides])
            out[mine < (0.67 if len(seg.sides) == 1 else 1.6) * others] = i
    centre_kind = any(seg.kind is Kind.MONASTERY for seg in tile.segments) or tile.special is not Special.NONE
    roads = np.full((s, s), -1, np.int16)
    for i, seg in enumerate(tile.segments):
        if seg.kind is not Kind.ROAD:
            continue
        if len(seg.sides) == 2:
            a, b = seg.sides
            via = (0.5, 0.5) if (a - b) % 2 == 0 else tuple(0.7 * 0.5 + 0.3 * (_MID[a][k] + _MID[b][k]) / 2 for k in range(2))
            pts = _curve(_MID[a], _MID[b], via)  # type: ignore[arg-type]
        else:
            pts = _curve(_MID[seg.sides[0]], (0.5, 0.5), tuple((_MID[seg.sides[0]][k] + 0.5) / 2 for k in range(2)))  # type: ignore[arg-type]
        p = np.round(pts * s * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(roads, [p], False, i, max(2, int(_ROAD * s)), cv2.LINE_8, shift=4)
    sel = (roads >= 0) & (out < 0)
    out[sel] = roads[sel]
    if centre_kind:
        disc = (x - 0.5) ** 2 + (y - 0.5) ** 2 < _R_CENTRE**2
        mon = [i for i, seg in enumerate(tile.segments) if seg.kind is Kind.MONASTERY]
        out[disc] = mon[0] if mon else CENTRE
    # each field floods from its half-edges through what no road, city or centre holds
    free = out == -1
    kernel = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], np.uint8)
    for i, seg in enumerate(tile.segments):
        if seg.kind is Kind.FIELD:
            for h in seg.halves:
                hx, hy = _HALF_POINTS[h]
                px, py = min(s - 1, int(hx * s)), min(s - 1, int(hy * s))
                if free[py, px]:
                    out[py, px] = i
    for _ in range(2 * s):
        grew = False
        for i, seg in enumerate(tile.segments):
            if seg.kind is not Kind.FIELD:
                continue
            mask = cv2.dilate((out == i).astype(np.uint8), kernel) > 0
            new = mask & (out == -1)
            if new.any():
                out[new] = i
                grew = True
        if not grew:
            break
    return out


def feature_map(name: str, rotation: int) -> NDArray[Any]:
    """``MAP_SIZE`` x ``MAP_SIZE`` map of tile ``name`` turned ``rotation`` degrees clockwise, as seen from above.

    Each pixel holds the index of the segment of ``rotated(name, rotation)`` there,
    ``CENTRE`` on an Under the Big Top centre space, -1 where no feature is drawn.

    :raises KeyError: for an unknown tile or rotation.
    """
    rotated(name, rotation)
    out: NDArray[Any] = np.ascontiguousarray(np.rot90(_catalog_map(name), k=-(rotation // 90)))
    return out


def _spot_name(name: str, rotation: int, index: int) -> str:
    if index == CENTRE:
        return "circus" if CATALOG[name].special is Special.CIRCUS else "acrobats"
    return rotated(name, rotation).segments[index].spot


def spot_at(name: str, rotation: int, u: float, v: float) -> str | None:
    """The feature under the point (``u`` right, ``v`` down, 0..1 of the tile) of a turned tile.

    Named as in RECORDS.md (``road:E``, ``city:N``, ``field:NL``, ``monastery``), or
    ``circus`` / ``acrobats`` for an Under the Big Top centre space; the nearest
    feature within a tenth of the tile when the point falls between features, else None.
    """
    fmap = feature_map(name, rotation)
    s = MAP_SIZE
    px, py = int(np.clip(u * s, 0, s - 1)), int(np.clip(v * s, 0, s - 1))
    if fmap[py, px] != -1:
        return _spot_name(name, rotation, int(fmap[py, px]))
    ys, xs = np.nonzero(fmap != -1)
    if not len(xs):
        return None
    d = (xs - px) ** 2 + (ys - py) ** 2
    k = int(d.argmin())
    if d[k] > (0.1 * s) ** 2:
        return None
    return _spot_name(name, rotation, int(fmap[ys[k], xs[k]]))


def anchor(name: str, rotation: int, spot: str) -> tuple[float, float]:
    """Where a figure on ``spot`` of the turned tile is best drawn (u, v in 0..1): deep inside its feature.

    :raises KeyError: when the tile has no such feature.
    """
    fmap = feature_map(name, rotation)
    if spot in ("circus", "acrobats"):
        index = CENTRE
    else:
        index = rotated(name, rotation).spots[spot]
    mask = (fmap == index).astype(np.uint8)
    if not mask.any():
        raise KeyError(spot)
    depth = cv2.distanceTransform(np.pad(mask, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    # a road's deepest point is often where it meets another feature: prefer points near its middle
    yy, xx = np.mgrid[0:MAP_SIZE, 0:MAP_SIZE]
    cy, cx = np.average(yy, weights=mask), np.average(xx, weights=mask)
    score = depth - 0.15 * np.hypot(yy - cy, xx - cx)
    score[mask == 0] = -1e9
    y, x = np.unravel_index(int(score.argmax()), score.shape)
    return (float(x) + 0.5) / MAP_SIZE, (float(y) + 0.5) / MAP_SIZE
