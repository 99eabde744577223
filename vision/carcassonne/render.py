"""The project's own Carcassonne tile art, drawn from the catalog facts.

Nothing here copies publisher art: a tile is painted from what the catalog says
it is made of. Fields are textured green; each city segment is a walled area
grown from its sides (one side: a cap; several: one area bridging them);
roads run from the edge midpoints (two ends: a curve between them, one end: a
stub to the centre, where a junction house, monastery or circus space stops
it); a pennant is a small shield in its city; the monastery is a church; a
circus space is a striped tent, an acrobat space a ring of small figures.

Several `Style`s vary the palette and detail so that a classifier trained on
them learns the structure rather than one edition's colours: ``classic``
(muted greens, brown roofs), ``newart`` (yellow-green, red and blue roofs),
``bright`` (the third edition's brighter greens and redder roofs, drawn from a
description only) and ``flat`` (plain vector colours). `random_style` draws a
new palette and level of detail each time, so that a model meets many more art
styles than the few named ones (the printed edition a family owns may be none
of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import CATALOG, Kind, Special

__all__ = ["STYLES", "Style", "random_style", "render_tile"]

BGR = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Style:
    """A palette and a level of detail for `render_tile` (colours BGR 0..255)."""

    name: str
    field: BGR
    city: BGR
    wall: BGR
    roofs: tuple[BGR, ...]
    road: BGR
    road_edge: BGR
    texture: float
    buildings: int


STYLES: dict[str, Style] = {
    "classic": Style("classic", (80, 165, 110), (120, 170, 205), (175, 200, 215), ((40, 60, 150), (50, 80, 170), (60, 60, 120)),
                     (200, 215, 220), (120, 140, 140), 14.0, 9),
    "newart": Style("newart", (30, 170, 120), (70, 120, 170), (150, 185, 205), ((40, 50, 190), (170, 90, 40), (40, 70, 200)),
                    (225, 230, 235), (110, 120, 120), 16.0, 12),
    "bright": Style("bright", (50, 200, 120), (110, 170, 215), (185, 215, 230), ((30, 30, 215), (40, 50, 225), (50, 40, 190)),
                    (230, 240, 245), (130, 140, 150), 10.0, 10),
    "flat": Style("flat", (60, 180, 90), (90, 150, 190), (160, 190, 200), ((40, 40, 180),), (235, 235, 235),
                  (90, 90, 90), 0.0, 0),
}


def _hsv(h: float, s: float, v: float) -> BGR:
    """A BGR colour from OpenCV-scaled hue (0..180) and saturation, value in 0..1."""
    px = np.array([[[h % 180, 255 * min(1.0, max(0.0, s)), 255 * min(1.0, max(0.0, v))]]], np.float32).astype(np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return (float(b), float(g), float(r))


def random_style(rng: np.random.Generator) -> Style:
    """A palette and level of detail drawn at random within what printed tiles look like: fields
    yellow-green to blue-green, cities beige to brown or grey inside a lighter wall, roofs red, brown
    or blue, light roads with a darker rim."""
    u = rng.uniform
    field = _hsv(u(28, 68), u(0.3, 0.85), u(0.45, 0.85))
    city_v = u(0.5, 0.9)
    city_h, city_s = u(5, 24), u(0.1, 0.6)
    city = _hsv(city_h, city_s, city_v)
    wall = _hsv(city_h + u(-4, 4), city_s * u(0.3, 0.9), min(0.97, city_v + u(0.05, 0.25)))
    roofs = []
    for _ in range(int(rng.integers(1, 4))):
        hue = [u(-8, 8), u(8, 20), u(100, 122)][int(rng.choice(3, p=[0.6, 0.25, 0.15]))]
        roofs.append(_hsv(hue, u(0.45, 0.95), u(0.4, 0.85)))
    road = _hsv(u(8, 30), u(0.0, 0.3), u(0.72, 0.96))
    road_edge = _hsv(u(8, 30), u(0.0, 0.35), u(0.3, 0.62))
    return Style("random", field, city, wall, tuple(roofs), road, road_edge, float(u(0, 20)), int(rng.integers(0, 15)))


def _jitter(colour: BGR, rng: np.random.Generator, amount: float) -> NDArray[Any]:
    return np.clip(np.asarray(colour, np.float32) + rng.normal(0, amount, 3).astype(np.float32), 0, 255)


def _side_distances(s: int) -> list[NDArray[Any]]:
    """Distance (in tile widths) of every pixel to the N, E, S, W edges."""
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    x = (xx + 0.5) / s
    y = (yy + 0.5) / s
    return [y, 1.0 - x, 1.0 - y, x]


def _city_mask(sides: tuple[int, ...], dist: list[NDArray[Any]], rng: np.random.Generator) -> NDArray[Any]:
    """A city grown from ``sides``: a cap for one side, a bridging area for several."""
    if len(sides) == 4:
        return np.ones_like(dist[0], bool)
    mine = np.minimum.reduce([dist[i] for i in sides])
    others = np.minimum.reduce([dist[i] for i in range(4) if i not in sides])
    k = rng.uniform(0.55, 0.8) if len(sides) == 1 else rng.uniform(1.4, 1.8)
    wobble = 0.015 * np.sin(dist[(sides[0] + 1) % 4] * rng.uniform(15, 30) + rng.uniform(0, 6))
    mask: NDArray[Any] = mine + wobble < k * others
    return mask


def _point(side: int, s: int, along: float = 0.5) -> tuple[float, float]:
    """The point ``along`` (0..1, clockwise) a side of an ``s``-pixel tile."""
    if side == 0:
        return (along * s, 0.0)
    if side == 1:
        return (float(s), along * s)
    if side == 2:
        return ((1 - along) * s, float(s))
    return (0.0, (1 - along) * s)


def _curve(a: tuple[float, float], b: tuple[float, float], via: tuple[float, float], n: int = 24) -> NDArray[Any]:
    t = np.linspace(0, 1, n)[:, None]
    pa, pb, pv = np.array(a), np.array(b), np.array(via)
    pts: NDArray[Any] = (1 - t) ** 2 * pa + 2 * (1 - t) * t * pv + t**2 * pb
    return pts


def _draw_road(img: NDArray[Any], pts: NDArray[Any], style: Style, s: int, rng: np.random.Generator) -> None:
    width = max(2, int(s * rng.uniform(0.07, 0.1)))
    p = np.round(pts * 16).astype(np.int32).reshape(-1, 1, 2)
    edge = _jitter(style.road_edge, rng, 10).tolist()
    fill = _jitter(style.road, rng, 8).tolist()
    cv2.polylines(img, [p], False, edge, width + max(1, s // 48), cv2.LINE_AA, shift=4)
    cv2.polylines(img, [p], False, fill, width, cv2.LINE_AA, shift=4)


def _house(img: NDArray[Any], cx: float, cy: float, size: float, roof: NDArray[Any], wall: NDArray[Any], angle: float) -> None:
    w, h = size, size * 0.7
    box = cv2.boxPoints(((cx, cy), (w, h), angle))
    cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), wall.tolist(), cv2.LINE_AA, shift=4)
    roof_box = cv2.boxPoints(((cx, cy - h * 0.15), (w * 1.05, h * 0.55), angle))
    cv2.fillConvexPoly(img, np.round(roof_box * 16).astype(np.int32), roof.tolist(), cv2.LINE_AA, shift=4)


def _texture(s: int, amount: float, rng: np.random.Generator) -> NDArray[Any]:
    if amount <= 0:
        return np.zeros((s, s, 1), np.float32)
    low = cv2.resize(rng.normal(0, 1, (max(2, s // 12), max(2, s // 12))).astype(np.float32), (s, s), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 0.8)
    out: NDArray[Any] = (amount * (0.8 * low + 0.5 * fine))[:, :, None]
    return out


def render_tile(name: str, rotation: int = 0, size: int = 96, style: Style | str = "classic",
                rng: np.random.Generator | None = None) -> NDArray[Any]:
    """The tile ``name`` turned clockwise by ``rotation`` degrees, as a ``size`` x ``size`` BGR uint8 image.

    ``rng`` varies the colours, shapes and details within the style (a fixed
    seed gives a fixed picture).

    :raises KeyError: for an unknown tile name, rotation or style.
    """
    if rotation not in (0, 90, 180, 270):
        raise KeyError(rotation)
    st = STYLES[style] if isinstance(style, str) else style
    rng = rng if rng is not None else np.random.default_rng(0)
    tile = CATALOG[name]
    s = size
    img = np.empty((s, s, 3), np.float32)
    img[:] = _jitter(st.field, rng, 12)
    img += _texture(s, st.texture, rng)
    # bushes and trees on the fields
    for _ in range(int(rng.integers(0, 4)) if st.texture > 0 else 0):
        c = (int(rng.uniform(0.1, 0.9) * s), int(rng.uniform(0.1, 0.9) * s))
        cv2.circle(img, c, max(1, int(s * rng.uniform(0.02, 0.05))), (_jitter(st.field, rng, 10) * 0.6).tolist(), -1, cv2.LINE_AA)
    # farmhouses and sheds on the fields: clutter that is no centre feature
    for _ in range(int(rng.integers(0, 3)) if st.texture > 0 else 0):
        roof = _jitter(st.roofs[int(rng.integers(len(st.roofs)))], rng, 15)
        _house(img, float(rng.uniform(0.15, 0.85) * s), float(rng.uniform(0.15, 0.85) * s), s * rng.uniform(0.08, 0.14), roof,
               _jitter(st.wall, rng, 15), float(rng.uniform(0, 180)))
    dist = _side_distances(s)
    centre = (s / 2 + rng.normal(0, s * 0.015), s / 2 + rng.normal(0, s * 0.015))

    roads = [seg for seg in tile.segments if seg.kind is Kind.ROAD]
    stubs = [seg.sides[0] for seg in roads if len(seg.sides) == 1]
    for seg in roads:
        if len(seg.sides) == 2:
            a, b = seg.sides
            pa, pb = _point(a, s, rng.uniform(0.45, 0.55)), _point(b, s, rng.uniform(0.45, 0.55))
            if (a - b) % 2 == 0:
                via = (centre[0] + rng.normal(0, s * 0.06), centre[1] + rng.normal(0, s * 0.06))
            else:
                pull = rng.uniform(0.2, 0.45)
                via = (centre[0] * (1 - pull) + (pa[0] + pb[0]) / 2 * pull, centre[1] * (1 - pull) + (pa[1] + pb[1]) / 2 * pull)
            _draw_road(img, _curve(pa, pb, via), st, s, rng)
        else:
            pa = _point(seg.sides[0], s, rng.uniform(0.45, 0.55))
            mid = ((pa[0] + centre[0]) / 2 + rng.normal(0, s * 0.02), (pa[1] + centre[1]) / 2 + rng.normal(0, s * 0.02))
            _draw_road(img, _curve(pa, centre, mid), st, s, rng)

    cities = [seg for seg in tile.segments if seg.kind is Kind.CITY]
    wall = _jitter(st.wall, rng, 10)
    for seg in cities:
        mask = _city_mask(seg.sides, dist, rng)
        m8 = mask.astype(np.uint8)
        ring = cv2.dilate(m8, np.ones((3, 3), np.uint8), iterations=max(1, s // 40)) > 0
        img[ring & ~mask] = wall
        ground = _jitter(st.city, rng, 12)
        img[mask] = ground + _texture(s, st.texture * 0.6, rng)[mask]
        ys, xs = np.nonzero(mask)
        for _ in range(st.buildings * (1 + len(seg.sides)) // 3):
            k = int(rng.integers(len(xs)))
            roof = _jitter(st.roofs[int(rng.integers(len(st.roofs)))], rng, 12)
            _house(img, float(xs[k]), float(ys[k]), s * rng.uniform(0.06, 0.11), roof, wall, float(rng.uniform(0, 180)))
        if seg.pennants:
            k = int(rng.integers(len(xs)))
            cx, cy = float(np.clip(xs[k], s * 0.12, s * 0.88)), float(np.clip(ys[k], s * 0.12, s * 0.88))
            r = s * 0.075
            shield = np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + 0.2 * r], [cx, cy + 1.3 * r],
                               [cx - r, cy + 0.2 * r]])
            p = np.round(shield * 16).astype(np.int32)
            cv2.fillPoly(img, [p], (235, 235, 240), cv2.LINE_AA, shift=4)
            cv2.fillPoly(img, [np.round(np.array([[cx, cy - r], [cx + r, cy - r], [cx + r, cy + 0.2 * r], [cx, cy + 1.3 * r]]) * 16)
                              .astype(np.int32)], (170, 80, 30), cv2.LINE_AA, shift=4)
            cv2.polylines(img, [p], True, (40, 40, 40), 1, cv2.LINE_AA, shift=4)

    c = (int(centre[0] * 16), int(centre[1] * 16))
    if any(seg.kind is Kind.MONASTERY for seg in tile.segments):
        body = _jitter((150, 175, 195), rng, 10)
        roof = _jitter(st.roofs[0], rng, 10)
        w = s * rng.uniform(0.26, 0.34)
        box = np.array([[centre[0] - w / 2, centre[1] - w / 3], [centre[0] + w / 2, centre[1] + w / 2]])
        cv2.rectangle(img, tuple(np.round(box[0] * 16).astype(int)), tuple(np.round(box[1] * 16).astype(int)), body.tolist(), -1,
                      cv2.LINE_AA, shift=4)
        roof_pts = np.array([[centre[0] - w * 0.6, centre[1] - w / 3], [centre[0] + w * 0.6, centre[1] - w / 3],
                             [centre[0], centre[1] - w * 0.95]])
        cv2.fillConvexPoly(img, np.round(roof_pts * 16).astype(np.int32), roof.tolist(), cv2.LINE_AA, shift=4)
        tower = np.array([[centre[0] + w * 0.1, centre[1] - w * 0.9], [centre[0] + w * 0.35, centre[1] + w * 0.1]])
        cv2.rectangle(img, tuple(np.round(tower[0] * 16).astype(int)), tuple(np.round(tower[1] * 16).astype(int)),
                      (body * 0.85).tolist(), -1, cv2.LINE_AA, shift=4)
    elif tile.special is Special.CIRCUS:
        r = int(s * rng.uniform(0.17, 0.21) * 16)
        colours = [_jitter((40, 40, 210), rng, 15).tolist(), _jitter((230, 230, 235), rng, 8).tolist()]
        for k in range(12):
            cv2.ellipse(img, c, (r, r), 0, k * 30, k * 30 + 30, colours[k % 2], -1, cv2.LINE_AA, shift=4)
        cv2.circle(img, c, r, (60, 60, 60), max(1, s // 64), cv2.LINE_AA, shift=4)
        cv2.circle(img, c, r // 5, _jitter((40, 190, 230), rng, 10).tolist(), -1, cv2.LINE_AA, shift=4)
    elif tile.special is Special.ACROBATS:
        r = int(s * rng.uniform(0.15, 0.19) * 16)
        cv2.circle(img, c, r, _jitter((150, 200, 225), rng, 10).tolist(), -1, cv2.LINE_AA, shift=4)
        cv2.circle(img, c, r, (60, 90, 120), max(1, s // 64), cv2.LINE_AA, shift=4)
        a0 = float(rng.uniform(0, 2 * np.pi))
        for k in range(3):
            turn = a0 + k * 2 * np.pi / 3
            dot = (int(c[0] + 0.55 * r * np.cos(turn)), int(c[1] + 0.55 * r * np.sin(turn)))
            cv2.circle(img, dot, r // 4, _jitter((60, 60, 200) if k != 1 else (200, 120, 40), rng, 20).tolist(), -1, cv2.LINE_AA,
                       shift=4)
    elif len(stubs) >= 3:
        hw = s * 0.07
        box = np.array([[centre[0] - hw, centre[1] - hw], [centre[0] + hw, centre[1] + hw]])
        cv2.rectangle(img, tuple(np.round(box[0] * 16).astype(int)), tuple(np.round(box[1] * 16).astype(int)),
                      _jitter(st.roofs[0], rng, 10).tolist(), -1, cv2.LINE_AA, shift=4)

    out = np.clip(img, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(np.rot90(out, k=-(rotation // 90)))
