"""Labelled tile crops for training: a tile among neighbours, cut as the grid finder cuts it.

A `TileBank` holds tile pictures in catalog orientation from several sources
(render styles, scanned editions). `make_crops` places a tile, turned, in a
3 x 3 patch of neighbours or bare table, jitters the cut the way an imperfect
grid would (shift, turn, scale, a little perspective), and applies the
*training* photometric augmentations (colour, hue, light, blur, noise, glare,
JPEG). The benchmark's camera (`vision.carcassonne.camera`) is separate code
and harsher.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import BASE_TILES, rotated
from vision.carcassonne.labels import NONE, ROTATIONS, TILE_LABELS, TILE_NAMES, label
from vision.carcassonne.render import STYLES, random_style, render_tile
from vision.carcassonne.scans import load_edition

__all__ = ["CROP", "EDGE_INDEX", "TileBank", "build_bank", "edge_targets", "make_crops", "table_colour", "table_patch"]

#: the classifier's input side in pixels
CROP = 48
#: the bank's tile side in pixels
BANK = 96
#: edge class indices for the edge head
EDGE_INDEX = {"city": 0, "road": 1, "field": 2}


@dataclass
class TileBank:
    """Tile pictures in catalog orientation, by tile name, each tagged with its source."""

    tiles: dict[str, list[NDArray[Any]]] = field(default_factory=dict)

    def add(self, name: str, img: NDArray[Any]) -> None:
        """Add one picture of ``name`` (catalog orientation, any square size)."""
        if img.shape[0] != BANK:
            img = cv2.resize(img, (BANK, BANK), interpolation=cv2.INTER_AREA)
        self.tiles.setdefault(name, []).append(img)

    def pick(self, name: str, rng: np.random.Generator) -> NDArray[Any]:
        """A random picture of ``name``."""
        pics = self.tiles[name]
        return pics[int(rng.integers(len(pics)))]


def build_bank(sources: Sequence[str], variants: int = 6, seed: int = 0, scan_repeat: int = 6) -> TileBank:
    """A bank from render styles (``classic``, ``newart``, ``bright``, ``flat``, or ``random``: a new
    `random_style` for every picture) and scan editions (``scan:classic``, ``scan:newart``, each scan
    counted ``scan_repeat`` times). Big Top tiles always come from the renderer.

    :raises KeyError: for an unknown source.
    """
    rng = np.random.default_rng(seed)
    bank = TileBank()
    for src in sources:
        if src.startswith("scan:"):
            for letter, imgs in load_edition(src[5:], BANK).items():
                for img in imgs:
                    for _ in range(scan_repeat):
                        bank.add(letter, img)
        elif src == "random":
            for name in TILE_NAMES:
                for _ in range(variants):
                    bank.add(name, render_tile(name, 0, BANK, random_style(rng), rng))
        else:
            for name in TILE_NAMES:
                for _ in range(variants):
                    bank.add(name, render_tile(name, 0, BANK, STYLES[src], rng))
    renders = [s for s in sources if s in STYLES] or ["classic"]
    for name in TILE_NAMES:
        if name not in bank.tiles:
            for k in range(variants):
                bank.add(name, render_tile(name, 0, BANK, renders[k % len(renders)], rng))
    return bank


def table_colour(rng: np.random.Generator, avoid_fields: bool = False) -> NDArray[Any]:
    """A random table colour (BGR); ``avoid_fields`` keeps it off the green of the tiles' fields."""
    while True:
        base = rng.uniform(20, 235, 3).astype(np.float32)
        hsv = cv2.cvtColor(base.astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_BGR2HSV)[0, 0]
        if not avoid_fields or not (25 <= hsv[0] <= 85 and hsv[1] > 60):
            return base


def table_patch(h: int, w: int, rng: np.random.Generator, avoid_fields: bool = False) -> NDArray[Any]:
    """A bare table surface: a plain, grained or cloth colour with shading and reflections."""
    base = table_colour(rng, avoid_fields)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    kind = rng.random()
    if kind < 0.4:  # wood grain
        yy = np.arange(h, dtype=np.float32)[:, None]
        xx = np.arange(w, dtype=np.float32)[None, :]
        grain = np.sin(yy * rng.uniform(0.05, 0.4) + 3 * np.sin(xx * rng.uniform(0.005, 0.03)))
        img += (grain * rng.uniform(5, 25))[:, :, None]
    elif kind < 0.7:
        img += rng.normal(0, rng.uniform(2, 15), (h, w, 1)).astype(np.float32)
    if rng.random() < 0.5:
        gy = np.linspace(-1, 1, h, dtype=np.float32)[:, None, None]
        img *= 1 + rng.uniform(-0.25, 0.25) * gy
    if rng.random() < 0.4:
        _glare(img, rng)
    out: NDArray[Any] = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _glare(img: NDArray[Any], rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    spot: NDArray[Any] = np.zeros((h, w), np.float32)
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    cv2.ellipse(spot, c, (int(rng.uniform(3, w * 0.4)), int(rng.uniform(3, h * 0.25))), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(2.0, 8.0)))
    img += (255.0 * float(rng.uniform(0.15, 0.6)) * spot)[:, :, None]
    np.clip(img, 0, 255, out=img)


def edge_targets(name: str, rotation: int) -> tuple[int, int, int, int]:
    """The edge classes (`EDGE_INDEX`) on the N, E, S, W sides of ``name`` turned ``rotation``."""
    e = rotated(name, rotation).edges
    return (EDGE_INDEX[e[0].value], EDGE_INDEX[e[1].value], EDGE_INDEX[e[2].value], EDGE_INDEX[e[3].value])


def _turn(img: NDArray[Any], rotation: int) -> NDArray[Any]:
    return np.rot90(img, k=-(rotation // 90))


def _photometric(x: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    """Training colour and light augmentation of one uint8 crop."""
    hsv = cv2.cvtColor(x, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[:, :, 0] = (hsv[:, :, 0] + rng.uniform(-9, 9)) % 180
    hsv[:, :, 1] *= rng.uniform(0.55, 1.5)
    hsv[:, :, 2] *= rng.uniform(0.8, 1.2)
    y = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    y *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    y *= float(np.exp(rng.uniform(np.log(0.45), np.log(1.3))))
    m = y.mean()
    y = (y - m) * rng.uniform(0.75, 1.25) + m
    y = 255.0 * (np.clip(y, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25)
    if rng.random() < 0.4:
        y = cv2.GaussianBlur(y, (0, 0), float(rng.uniform(0.3, 1.2)))
    if rng.random() < 0.2:
        _glare(y, rng)
    y += rng.normal(0, rng.uniform(0, 7), y.shape).astype(np.float32)
    out: NDArray[Any] = np.clip(y, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 90))])
        if ok:
            out = np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR))
    return out


def _add_figures(patch: NDArray[Any], name: str, rot: int, x0: int, y0: int, s: int, rng: np.random.Generator) -> None:
    """Paint one or two figures of random colours on features of the tile at ``(x0, y0)`` of ``patch``."""
    from scorer.carcassonne.catalog import rotated
    from vision.carcassonne.features import anchor
    from vision.carcassonne.figures import COLORS, _paint, _poly

    spots = sorted(rotated(name, rot).spots)
    for _ in range(int(rng.integers(1, 3))):
        u, v = anchor(name, rot, spots[int(rng.integers(len(spots)))])
        colour = list(COLORS.values())[int(rng.integers(len(COLORS)))]
        size = s * rng.uniform(0.2, 0.4)
        pts = _poly(x0 + (u + rng.normal(0, 0.04)) * s, y0 + (v + rng.normal(0, 0.04)) * s, size, float(rng.normal(0, 20)))
        _paint(patch, pts, colour, float(s))


def make_crops(bank: TileBank, n: int, rng: np.random.Generator,
               none_share: float = 0.06, figure_share: float = 0.0) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """``n`` training crops: ``(N, CROP, CROP, 3)`` uint8, class indices into `TILE_LABELS`, and
    ``(N, 4)`` edge classes (-1 for an empty cell). ``figure_share`` of the tiles carry figures."""
    s = BANK
    crops = np.empty((n, CROP, CROP, 3), np.uint8)
    ys = np.empty(n, np.int64)
    edges = np.full((n, 4), -1, np.int64)
    index = {lab: i for i, lab in enumerate(TILE_LABELS)}
    weights = np.array([2.0 if t in BASE_TILES else 1.0 for t in TILE_NAMES])
    weights /= weights.sum()
    for i in range(n):
        patch = table_patch(3 * s, 3 * s, rng)
        empty = rng.random() < none_share
        for cy in range(3):
            for cx in range(3):
                centre = cx == 1 and cy == 1
                if centre and empty:
                    continue
                if not centre and rng.random() < 0.3:
                    continue
                name = TILE_NAMES[int(rng.choice(len(TILE_NAMES), p=weights))]
                rot = ROTATIONS[int(rng.integers(4))]
                pic = _turn(bank.pick(name, rng), rot)
                if centre:
                    ys[i] = index[label(name, rot)]
                    edges[i] = edge_targets(name, rot)
                gap = int(rng.integers(0, 3))
                patch[cy * s + gap:(cy + 1) * s - gap, cx * s + gap:(cx + 1) * s - gap] = pic[gap:s - gap, gap:s - gap]
                if figure_share and rng.random() < figure_share:
                    _add_figures(patch, name, rot, cx * s, cy * s, s, rng)
        if empty:
            ys[i] = index[NONE]
        # where the grid finder might put the cell: jittered square around the centre cell
        shift = 0.3 if empty else 0.06
        ang = np.deg2rad(rng.uniform(-5, 5))
        scale = s * rng.uniform(0.93, 1.07)
        cx0, cy0 = 1.5 * s + rng.uniform(-shift, shift) * s, 1.5 * s + rng.uniform(-shift, shift) * s
        src = []
        for ux, uy in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
            px = ux * np.cos(ang) - uy * np.sin(ang)
            py = ux * np.sin(ang) + uy * np.cos(ang)
            src.append((cx0 + scale * px + rng.normal(0, 0.015 * s), cy0 + scale * py + rng.normal(0, 0.015 * s)))
        dst = np.asarray([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], dtype=np.float32)
        h = cv2.getPerspectiveTransform(np.asarray(src, dtype=np.float32), dst)
        small = cv2.warpPerspective(patch, h, (CROP, CROP), flags=cv2.INTER_AREA if rng.random() < 0.5 else cv2.INTER_LINEAR)
        crops[i] = _photometric(small, rng)
    return crops, ys, edges
