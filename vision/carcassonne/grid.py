"""Find the tile grid in a photo of a board, without markers.

1. The table is the colour around the photo's border; the board is what differs from it
   (glare, the table's colour washed out towards white, is table).
2. The board's outline is made of tile edges: its straight pieces give the grid's two
   directions. They and the long straight edges on the board (tile seams; lines mostly on
   the table, its grain or stripes, are left out) fall into two families; each family meets
   at a vanishing point (parallel lines on the table).
3. Sending the vanishing line to infinity and the two directions to the axes turns the
   table plane into a view from straight above, up to an unknown scale per axis. Steps 2
   and 3 are repeated on that view, where the seams run nearly along the axes, to undo the
   perspective left over.
4. In that view the seams repeat with the tile pitch: a comb over the edge profiles
   gives each axis's pitch and phase, and equal pitches make the cells square. The board's
   outline (its steps lie on seams only) gives them instead where its lattice fits the seams
   at least as well as the seams' own.
5. Every cell mostly covered by the board is a candidate; its corners are mapped back
   to the photo, through a fit that puts the board's outline on lattice lines (where seams
   are too faint to mend the perspective) and then one to the seams seen.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import VisionError

__all__ = ["Cell", "Grid", "NoBoardError", "find_grid", "grow_best", "line_fit", "refine_seams"]

WORK = 640
CANVAS = 640
#: a cell at least this much covered by the board is a candidate (the classifier decides the rest)
MIN_COVER = 0.35
#: times the perspective is measured again in the view from above
ITERATIONS = 2
#: the least share of the photo a board covers
MIN_BOARD = 0.002


class NoBoardError(VisionError, LookupError):
    """No tile grid could be found in the photo."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A candidate cell: grid position (x right, y down) and its corners in the photo (NW, NE, SE, SW)."""

    x: int
    y: int
    corners: NDArray[Any]
    cover: float


@dataclass(frozen=True, slots=True)
class Grid:
    """The cells found and the homography from grid units (one cell = 1) to photo pixels."""

    cells: tuple[Cell, ...]
    to_photo: NDArray[Any]


#: glare on a coloured table strays from the line between the table's colour and grey by up to this share of the table's
#: chroma (16 Lab units at least)
WASHED_HUE = 0.35


def _foreground(img: NDArray[Any]) -> NDArray[Any]:
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32)
    h, w = lab.shape[:2]
    b = max(2, int(0.03 * min(h, w)))
    ring = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    med = np.median(ring, axis=0)
    spread = np.median(np.abs(ring - med), axis=0)
    # distance from the table's colour in units of its spread, lightness counting 0.3
    k2 = (np.array([0.3, 1.0, 1.0]) / (spread.astype(np.float64) * 3 + 6) ** 2).astype(np.float32)
    # (each channel less its median, in float32 as numpy's broadcast gives it, without numpy's slow inner loop of 3)
    table: Any = (*(float(v) for v in med.astype(np.float32)), 0.0)  # (an OpenCV scalar)
    diff = cv2.subtract(lab, table)
    d2 = cv2.transform(diff * diff, k2.reshape(1, 3))
    # glare on the table: lighter than the table and no more colourful
    a, bb = lab[:, :, 1] - 128, lab[:, :, 2] - 128
    chroma2 = a * a + bb * bb
    table_chroma = float(np.hypot(med[1] - 128, med[2] - 128))
    limit = min(0.6 * table_chroma + 3, 20.0)
    light = np.ascontiguousarray(lab[:, :, 0])
    texture = np.sqrt(np.maximum(cv2.blur(light * light, (7, 7)) - cv2.blur(light, (7, 7)) ** 2, 0))
    # a striped or grained table keeps its texture under the glare
    ring_texture = float(np.median(np.concatenate([texture[:b].ravel(), texture[-b:].ravel()])))
    # on a coloured table, glare is the table's colour washed out towards the light's (near white, tinted by
    # the white balance): lighter, its colour between the table's and grey, and smooth (tile art is not)
    ta, tb = float(med[1] - 128), float(med[2] - 128)
    s = np.clip((a * ta + bb * tb) / max(ta * ta + tb * tb, 1e-6), 0.0, 1.1)
    # (washing out bends the hue in Lab: on a strongly coloured table the glare strays further from that line)
    hue_reach = max(16.0, WASHED_HUE * table_chroma)
    # (the hue's way off that line, for the glare and for its halo)
    off_hue = (a - s * ta) ** 2 + (bb - s * tb) ** 2 < hue_reach**2
    glare = light > med[0] + 20
    if table_chroma > 12:
        glare &= (chroma2 < limit * limit) | (off_hue & (texture < max(3.0, ring_texture)))
    else:
        glare &= chroma2 < limit * limit
    mask = ((d2 > 1.6**2) & ~glare).astype(np.uint8)
    k = max(3, int(min(h, w) * 0.012)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    # (after the opening: the thin halo around a pool of glare on the table is gone, and the pool is the table's)
    # ... nor is the soft halo around it, lighter than the table and of its hue (it may differ enough to be board)
    halo = (light > med[0] + 3) & off_hue & (s > 0.2)
    mask = cv2.bitwise_or(mask, _enclosed_glare(glare & (mask == 0), mask & ~halo))
    # the same labels as the default algorithm (raster order), faster
    n, lab_img, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    if n <= 1:
        return mask
    # a pool of glare is smooth, tile art is not: drop parts much smoother than the board
    smooth = np.bincount(lab_img.ravel(), weights=texture.ravel(), minlength=n) / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    area[0] = 0
    # a part much smoother than the most textured large part is no board either: on a striped or grained
    # table the ring is as textured as the tiles, and a streak of glare over the stripes is smoother
    large = area >= 0.1 * area.max()
    ref = float(smooth[large].max()) if large.any() else 0.0
    area[smooth < 0.35 * ref] = 0
    kept = area.copy()
    area[smooth < 1.5 * ring_texture + 1.0] = 0
    # specks of the table's own texture left alone are no board either
    if area.max() < MIN_BOARD * h * w:
        area = kept
        area[smooth < 0.5 * ref] = 0
    big = area.max()
    keep = np.zeros(n, np.uint8)
    keep[1:] = area[1:] >= 0.2 * big
    kept_parts = np.flatnonzero(keep)
    if len(kept_parts) == 1:
        # (one part kept, the board: its label's pixels, as the look-up gives them)
        out: NDArray[Any] = (lab_img == kept_parts[0]).view(np.uint8)
    else:
        out = keep[lab_img]
    return _same_coloured_board(lab, out, b, k)


#: the blur (pixels at the work scale) under which each pixel's colour is compared with the table's spread of colours
SAME_COLOUR_BLUR = 2.0
#: a pixel this far from the table's colours (Mahalanobis distance over the ring's Lab covariance) is not the table's
SAME_COLOUR_FAR = 4.0
#: ... where the board found so far covers less than this share of the largest such part (tiles whose field is nearly the
#: table's colour: only their cities and roads were found) ...
SAME_COLOUR_COVER = 0.46
#: ... and that part lies at least this much within the hull of the board found so far (not a lit patch of the table) ...
SAME_COLOUR_HULL = 0.8
#: ... and holds at least this much of the board found so far (not a pool of glare on the table beside it)
SAME_COLOUR_HOLDS = 0.8
#: the image's size (pixels across) on which `_same_coloured_board` decides
SAME_COLOUR_WORK = 320


def _same_coloured_board(lab: NDArray[Any], mask: NDArray[Any], b: int, k: int) -> NDArray[Any]:
    """``mask`` (the board as `_foreground` found it in the work image, ``lab`` its Lab pixels, ``b`` the ring's width,
    ``k`` the opening's size) joined with the board's part whose colour only strays a little from the table's.

    On a table of nearly the board's field colour (an ochre board on an orange striped table) the distance from the
    table's median colour, in units of its spread, finds only the cities and roads, and the grid is then measured on
    scattered pieces. The table's colours vary mostly along one line (its stripes or grain: lighter and darker of
    one hue), so the distance over their covariance, on a lightly blurred image, sets such a field apart
    (`_far_part`). That part is taken where it holds the board found (`SAME_COLOUR_COVER`, `SAME_COLOUR_HULL`,
    `SAME_COLOUR_HOLDS`) and stays off the photo's edge; elsewhere ``mask`` is returned as it is. (Whether it is
    taken is decided on the image shrunk to about `SAME_COLOUR_WORK` pixels across.)"""
    h, w = mask.shape[:2]
    if not mask.any():
        return mask
    f = max(1, round(max(h, w) / SAME_COLOUR_WORK))
    size = (max(1, w // f), max(1, h // f))
    small = mask if f == 1 else (cv2.resize(mask, size, interpolation=cv2.INTER_AREA) > 0).view(np.uint8)
    part = _far_part(lab if f == 1 else cv2.resize(lab, size, interpolation=cv2.INTER_AREA), max(1, b // f),
                     max(3, k // f) | 1, SAME_COLOUR_BLUR / f)
    if part is None or float(small[part].mean()) >= SAME_COLOUR_COVER:
        return mask
    hull = np.zeros(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(cv2.findNonZero(small)), 1)
    if float(hull[part].mean()) < SAME_COLOUR_HULL or float(part[small > 0].mean()) < SAME_COLOUR_HOLDS:
        return mask
    if f > 1:
        part = _far_part(lab, b, k, SAME_COLOUR_BLUR)
        if part is None:
            return mask
    joined: NDArray[Any] = (part | (mask > 0)).astype(np.uint8)
    return joined


def _far_part(lab: NDArray[Any], b: int, k: int, blur: float) -> NDArray[Any] | None:
    """The largest part of ``lab`` (blurred by ``blur``) at least `SAME_COLOUR_FAR` from the colours of its ring ``b``
    pixels wide (over their covariance), opened by ``k``, as a boolean mask; None where there is none or it reaches
    the image's edge."""
    soft: NDArray[Any] = cv2.GaussianBlur(lab, (0, 0), blur)
    ring = np.concatenate([soft[:b].reshape(-1, 3), soft[-b:].reshape(-1, 3), soft[:, :b].reshape(-1, 3),
                           soft[:, -b:].reshape(-1, 3)]).astype(np.float64)
    med = np.median(ring, axis=0)
    inverse = np.linalg.inv(np.cov((ring - med).T) + np.eye(3))
    table: Any = (*(float(v) for v in med), 0.0)  # (an OpenCV scalar)
    diff = cv2.subtract(soft, table)
    far2 = cv2.transform(diff * cv2.transform(diff, inverse.astype(np.float32)), np.ones((1, 3), np.float32))
    far: NDArray[Any] = cv2.morphologyEx((far2 > SAME_COLOUR_FAR**2).astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(far, connectivity=8, ltype=cv2.CV_32S)
    if n <= 1:
        return None
    part: NDArray[Any] = labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if part[0].any() or part[-1].any() or part[:, 0].any() or part[:, -1].any():
        return None
    return part


#: a patch of glare-like pixels (light, scarcely coloured) whose rim lies at least this much on the board is the board's
#: own (a white road across a tile, glare on the tiles), not the table's
ENCLOSED_GLARE = 0.75


def _enclosed_glare(glare: NDArray[Any], board: NDArray[Any]) -> NDArray[Any]:
    """The patches of ``glare`` (light, scarcely coloured pixels) whose rim (the pixels just outside) lies mostly on
    ``board`` (`ENCLOSED_GLARE`), as a uint8 mask: a white road crossing a lone tile would otherwise cut it in two."""
    g = glare.astype(np.uint8)
    n, labels = cv2.connectedComponents(g, connectivity=8)
    out = np.zeros(glare.shape, np.uint8)
    if n <= 1:
        return out
    # (the largest label next to each pixel; in 16 bits where every label fits)
    rim = cv2.dilate(labels.astype(np.uint16 if n <= 65535 else np.float32), _SQUARE_3).astype(np.intp)
    rim[g > 0] = 0
    # each patch's rim pixels on the board and in all, counted together (``board`` is 0 or 1)
    both = np.bincount((rim * 2 + board.astype(np.intp)).ravel(), minlength=2 * n).reshape(n, 2)
    on = both[:, 1].astype(np.float64)
    count = (both[:, 0] + both[:, 1]).astype(np.float64)
    keep = on >= ENCLOSED_GLARE * np.maximum(count, 1)
    keep[0] = False
    # a patch at the photo's edge goes on beyond it, over what cannot be seen
    keep[np.r_[labels[0], labels[-1], labels[:, 0], labels[:, -1]]] = False
    if keep.any():
        out[keep[labels]] = 1
    return out


_SQUARE_3 = np.ones((3, 3), np.uint8)


def _lines(gray: NDArray[Any], mask: NDArray[Any]) -> NDArray[Any]:
    edges = cv2.Canny(gray, 30, 90)
    near = cv2.dilate(mask, np.ones((15, 15), np.uint8))
    edges[near == 0] = 0
    size = max(gray.shape)
    # the edges up to the last row and column holding one: the same lines (the origin stays, the search stops where
    # the image would hold no edge), a smaller accumulator
    rows, cols = np.flatnonzero(edges.any(axis=1)), np.flatnonzero(edges.any(axis=0))
    if not len(rows):
        return np.zeros((0, 4), np.float64)
    found = cv2.HoughLinesP(edges[:rows[-1] + 1, :cols[-1] + 1], 1, np.pi / 360, 40, minLineLength=int(0.06 * size), maxLineGap=4)
    if found is None:
        return np.zeros((0, 4), np.float64)
    out: NDArray[Any] = found.reshape(-1, 4).astype(np.float64)
    # a seam lies on the board: a line found mostly on the table is the table's grain or stripes
    t = np.linspace(0, 1, 9)
    xs = np.clip(np.round(out[:, None, 0] + t * (out[:, None, 2] - out[:, None, 0])), 0, gray.shape[1] - 1).astype(np.intp)
    ys = np.clip(np.round(out[:, None, 1] + t * (out[:, None, 3] - out[:, None, 1])), 0, gray.shape[0] - 1).astype(np.intp)
    on_board = cv2.dilate(mask, np.ones((5, 5), np.uint8))[ys, xs].mean(axis=1)
    kept: NDArray[Any] = out[on_board >= 0.75]
    return kept


def _outline(mask: NDArray[Any]) -> NDArray[Any]:
    """The straight pieces of the board's outline, as line rows (x0, y0, x1, y1).

    Tiles are squares laid edge to edge, so the outline is made of tile edges: unlike the
    art's lines, every piece runs along one of the grid's two directions.
    """
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    size = max(mask.shape)
    rows: list[NDArray[Any]] = []
    for c in contours:
        if len(c) < 12:
            continue
        poly = cv2.approxPolyDP(c, 0.004 * size, True).reshape(-1, 2).astype(np.float64)
        seg = np.c_[poly, np.roll(poly, -1, axis=0)]
        length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
        rows.append(seg[length >= 0.015 * size])
    if not rows:
        return np.zeros((0, 4), np.float64)
    out: NDArray[Any] = np.concatenate(rows)
    return out


def _directions(gray: NDArray[Any], mask: NDArray[Any], outline: NDArray[Any] | None = None) -> tuple[float, float] | None:
    """The two dominant edge directions on the board (degrees, 0..180), from gradient orientations.

    The first is the one nearer the photo's horizontal. ``outline``: `_outline` of ``mask`` where the caller has it.
    """
    outline = _outline(mask) if outline is None else outline
    if len(outline) >= 4:
        # the outline's pieces run along the grid; the art's edges (and the sensor's blocks) do not
        d = outline[:, 2:] - outline[:, :2]
        along = np.round(np.degrees(np.arctan2(d[:, 1], d[:, 0]))).astype(np.int32) % 180
        hist = np.bincount(along, weights=np.hypot(d[:, 0], d[:, 1]) ** 2, minlength=180)
    else:
        gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
        # the board's own pixels: a grained or striped table around it has strong straight edges of its own
        near = cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0
        mag, ang = cv2.cartToPolar(gx[near], gy[near], angleInDegrees=True)
        # an edge's direction is across its gradient
        bins = (ang.ravel().astype(np.int32) + 90) % 180
        hist = np.bincount(bins, weights=mag.ravel(), minlength=180)
    smooth = np.convolve(np.r_[hist[-4:], hist, hist[:4]], np.ones(5), "same")[4:-4]
    p1 = int(np.argmax(smooth))
    dist = np.abs(((np.arange(180) - p1) + 90) % 180 - 90)
    # a tilt of up to 35 degrees keeps the images of square corners between about 60 and 120 degrees
    masked = np.where(dist > 58, smooth, -1)
    p2 = int(np.argmax(masked))
    if masked[p2] <= 0:
        return None
    if min(p1, 180 - p1) > min(p2, 180 - p2):
        p1, p2 = p2, p1
    return float(p1), float(p2)


def _families(lines: NDArray[Any], dirs: tuple[float, float]) -> tuple[NDArray[Any], NDArray[Any]]:
    d = lines[:, 2:] - lines[:, :2]
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180

    def near(p: float) -> NDArray[Any]:
        a = np.abs(((ang - p) + 90) % 180 - 90)
        out: NDArray[Any] = lines[a < 15]
        return out

    return near(dirs[0]), near(dirs[1])


def _parallel(angle: float) -> NDArray[Any]:
    """Two parallel lines along ``angle`` (a vanishing point at infinity), as line rows."""
    t = np.deg2rad(angle)
    d = np.array([np.cos(t), np.sin(t)])
    n = np.array([-d[1], d[0]])
    return np.array([[*(n * k - d), *(n * k + d)] for k in (-0.5, 0.5)])


def _vanishing(lines: NDArray[Any]) -> NDArray[Any]:
    """The least-squares meeting point (homogeneous) of ``lines`` (already normalised coordinates)."""
    p = np.c_[lines[:, :2], np.ones(len(lines))]
    q = np.c_[lines[:, 2:], np.ones(len(lines))]
    hom = np.cross(p, q)
    hom /= np.linalg.norm(hom[:, :2], axis=1, keepdims=True)
    w = np.hypot(*(lines[:, 2:] - lines[:, :2]).T)
    v = np.linalg.svd(hom * w[:, None])[2][-1]
    for _ in range(2):
        res = np.abs(hom @ v) / (np.linalg.norm(v[:2]) + abs(v[2]) + 1e-12)
        keep = res < max(np.median(res) * 3, 1e-6)
        if keep.sum() >= 2:
            v = np.linalg.svd(hom[keep] * w[keep, None])[2][-1]
    out: NDArray[Any] = v
    return out


def _autocorr(profile: NDArray[Any], smooth: float) -> tuple[NDArray[Any], NDArray[Any]]:
    """The high-passed profile and its normalised autocorrelation."""
    n = len(profile)
    prof = profile - cv2.GaussianBlur(profile.reshape(1, -1).astype(np.float64), (0, 0), smooth)[0]
    prof = np.maximum(prof, 0)
    if prof.max() <= 0:
        return prof, np.zeros(n)
    spec = np.fft.rfft(prof - prof.mean(), 2 * n)
    ac = np.fft.irfft(spec * np.conj(spec))[:n]
    return prof, ac / (ac[0] + 1e-12)


def _peaks(ac: NDArray[Any], lo: int, hi: int) -> list[tuple[float, float]]:
    """(lag, height) of the autocorrelation's local maxima in ``lo..hi``, refined to a fraction of a pixel."""
    start, stop = max(1, lo), min(len(ac) - 1, hi + 1)
    if stop <= start:
        return []
    y1 = ac[start:stop]
    y0, y2 = ac[start - 1:stop - 1], ac[start + 1:stop + 1]
    at = np.nonzero((y1 >= y0) & (y1 >= y2) & (y1 > 0))[0]
    if not len(at):
        return []
    y0, y1, y2 = y0[at], y1[at], y2[at]
    # (the parabola through the peak and its neighbours, element by element as on single values)
    denom = y0 - 2 * y1 + y2
    flat = ~(np.abs(denom) > 1e-12)
    off = np.where(flat, 0.0, 0.5 * (y0 - y2) / np.where(flat, 1.0, denom))
    lags = (at + start) + np.clip(off, -0.5, 0.5)
    return list(zip(lags.tolist(), y1.tolist(), strict=True))


def _phase(prof: NDArray[Any], pitch: float) -> float:
    """Where ``prof`` folded at ``pitch`` peaks."""
    bins = max(8, int(round(pitch)))
    x = np.arange(len(prof), dtype=np.float64)
    folded = np.bincount(((x % pitch) / pitch * bins).astype(int) % bins, weights=prof, minlength=bins)
    folded = np.convolve(np.r_[folded[-1:], folded, folded[:1]], [0.25, 0.5, 0.25], "same")[1:-1]
    return float(np.argmax(folded)) / bins * pitch


def _pitches(prof_x: NDArray[Any], prof_y: NDArray[Any], ext_x: float, ext_y: float) -> tuple[float, float, float, float, float]:
    """(pitch x, phase x, pitch y, phase y, score) of the seam lattice.

    The two axes are chosen together: after rectification a cell is square up to the
    foreshortening of at most about 35 degrees of tilt, so the pitches differ by less
    than a third. Among strong pairs the smallest wins (a lattice also repeats at twice
    its pitch); a pair much weaker than the best is a harmonic of the tile centres.
    """
    hx, acx = _autocorr(prof_x, 12.0)
    hy, acy = _autocorr(prof_y, 12.0)
    # a lone tile: its two edges are the only repetition, a lag as long as the board
    cand_x = _peaks(acx, 12, int(ext_x * 1.1) + 2) or [(max(12.0, ext_x), 0.0)]
    cand_y = _peaks(acy, 12, int(ext_y * 1.1) + 2) or [(max(12.0, ext_y), 0.0)]
    picked = _pair(cand_x, cand_y)
    if picked is None:
        px, sx = max(cand_x, key=lambda c: c[1])
        py, sy = max(cand_y, key=lambda c: c[1])
        return px, _phase(hx, px), py, _phase(hy, py), 0.0
    px, py, score = picked
    return px, _phase(hx, px), py, _phase(hy, py), score


def _pair(cand_x: list[tuple[float, float]], cand_y: list[tuple[float, float]]) -> tuple[float, float, float] | None:
    """Of the pairs of a lag along x and one along y (``(lag, height)`` each) within a third of each other, the shortest
    (the least sum, then the least height, x lag, y lag) of those at least 0.75 of the highest: (x lag, y lag, summed
    height); None without such a pair. All pairs are weighed at once, each as the tuple
    ``(px + py, sx + sy, px, py)`` would be."""
    px, sx = np.array(cand_x, np.float64).reshape(-1, 2).T
    py, sy = np.array(cand_y, np.float64).reshape(-1, 2).T
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = px[:, None] / py[None, :]
    ok = (ratio >= 0.72) & (ratio <= 1.39)
    if not ok.any():
        return None
    i, j = np.nonzero(ok)
    total, height = px[i] + py[j], sx[i] + sy[j]
    best = height.max()
    keep = height >= 0.75 * best
    i, j, total, height = i[keep], j[keep], total[keep], height[keep]
    first = np.lexsort((py[j], px[i], height, total))[0]
    return float(px[i[first]]), float(py[j[first]]), float(height[first])


_T = TypeVar("_T")
#: per kind, the last read-only board mask asked about and what was made of it (`_of_mask`)
_MASK_MEMO: dict[str, tuple[weakref.ref[NDArray[Any]], Any]] = {}


def _of_mask(kind: str, mask: NDArray[Any], make: Callable[[NDArray[Any]], _T]) -> _T:
    """``make(mask)``, made once for a read-only ``mask`` (`_grid_at`'s: every start of the lattice growing asks for
    its outline and samples) and then kept, its arrays read only, until another such mask is asked about; made
    afresh for a mask that may change."""
    if mask.flags.writeable:
        return make(mask)
    kept = _MASK_MEMO.get(kind)
    if kept is not None and kept[0]() is mask:
        out: _T = kept[1]
        return out
    made = make(mask)
    for part in made if isinstance(made, tuple) else (made,):
        if isinstance(part, np.ndarray):
            part.flags.writeable = False
    _MASK_MEMO[kind] = (weakref.ref(mask), made)
    return made


#: a lattice whose cells the board half fills (`_misfit`, share of the board) is no tile lattice
PITCH_MISFIT = 0.5


def _misfit(top_mask: NDArray[Any], px: float, phx: float, py: float, phy: float) -> float:
    """How much of the board (``top_mask``) the lattice leaves in cells it neither fills nor leaves empty: per cell the
    lesser of the board's area in it and the bare area, summed, over the board's area (0: every cell full or empty,
    as tiles make them)."""
    fx, fy = _mask_points(top_mask)
    if not len(fx) or px <= 0 or py <= 0:
        return 0.0
    return _misfit_of(_cell_index(fx, phx, px), _cell_index(fy, phy, py), px, py)


def _mask_points(top_mask: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The canvas positions (x, y) of every third pixel each way of the board in ``top_mask`` that `_misfit` counts."""
    ys, xs = np.nonzero(top_mask[::3, ::3])
    return 3.0 * xs, 3.0 * ys


def _cell_index(pos: NDArray[Any], phase: float, pitch: float) -> NDArray[Any]:
    """The lattice cell along one axis of each of the positions ``pos``, counted from the first (`_misfit`)."""
    i = np.floor((pos - phase) / pitch).astype(np.intp)
    i -= i.min()
    return i


def _misfit_of(i: NDArray[Any], j: NDArray[Any], px: float, py: float) -> float:
    """`_misfit` of the board points in the lattice cells (``i``, ``j``; `_cell_index`) of a ``px`` by ``py`` lattice."""
    return _misfit_of_counts(np.bincount(i * (int(j.max()) + 1) + j), px, py)


def _misfit_of_counts(counts: NDArray[Any], px: float, py: float) -> float:
    """`_misfit` of the board points counted per lattice cell (``counts``, the cells in order of their first index,
    then their second; empty cells anywhere or left out) of a ``px`` by ``py`` lattice."""
    cnt = 9.0 * counts
    cnt = cnt[cnt > 0]
    return float(np.minimum(cnt, np.maximum(px * py - cnt, 0.0)).sum() / cnt.sum())


def _phase_misfits(fx: NDArray[Any], fy: NDArray[Any], lattice: tuple[float, float, float, float],
                   steps: NDArray[Any]) -> NDArray[Any]:
    """`_misfit_of` of the board points (``fx``, ``fy``; `_mask_points`) in ``lattice`` moved by every pair of shares
    of its pitches in ``steps``: ``[a, b]`` with the x phase moved by ``steps[a]``, the y phase by ``steps[b]``; bit
    for bit `_misfit_of`'s.

    The points share few heights (the canvas's rows), so for each x phase they are counted once per x cell and row,
    and each y phase's cells sum whole rows of those counts (whole numbers: exact in any order) rather than
    counting every point again.
    """
    px, phx, py, phy = lattice
    rows, row_of = np.unique(fy, return_inverse=True)
    n_rows = len(rows)
    # each y phase's cell of each row (a row's cell is its points' cell), and where each run of rows in one cell
    # starts: the rows are sorted, so their cells never go down
    starts = []
    for sy in steps:
        j = _cell_index(rows, phy + sy * py, py)
        starts.append(np.flatnonzero(np.concatenate(([True], j[1:] != j[:-1]))))
    out = np.empty((len(steps), len(steps)))
    for a, sx in enumerate(steps):
        i = _cell_index(fx, phx + sx * px, px)
        n_i = int(i.max()) + 1
        per_row = np.bincount(i * n_rows + row_of.ravel(), minlength=n_i * n_rows).reshape(n_i, n_rows)
        for b, start in enumerate(starts):
            out[a, b] = _misfit_of_counts(np.add.reduceat(per_row, start, axis=1).ravel(), px, py)
    return out


def _profiles(gray: NDArray[Any], mask: NDArray[Any],
              full: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The seam profiles along x and y of ``gray`` seen through ``full`` (work image -> canvas), the board mask in the
    canvas and the canvas's grey levels."""
    top_gray8 = cv2.warpPerspective(gray, full, (CANVAS, CANVAS))
    top_mask = cv2.warpPerspective(mask, full, (CANVAS, CANVAS), flags=cv2.INTER_NEAREST)
    # (the gradients of whole grey levels are whole numbers, at most 1020: exact in 16 bits and in float32 alike)
    gx16 = np.abs(cv2.Sobel(top_gray8, cv2.CV_16S, 1, 0, ksize=3))
    gy16 = np.abs(cv2.Sobel(top_gray8, cv2.CV_16S, 0, 1, ksize=3))
    inside8 = cv2.dilate(top_mask, _SQUARE_9)
    inside = inside8 > 0
    # (the board pixels per column and per row, counted exactly)
    in_x = cv2.reduce(inside.view(np.uint8), 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S).reshape(-1)
    in_y = cv2.reduce(inside.view(np.uint8), 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S).reshape(-1)
    # a seam runs the whole length of a tile: the median over the board keeps it, drops the art
    rows, cols = in_y > 0, in_x > 0
    if not rows.any():
        z = np.zeros(CANVAS)
        return z, z, top_mask, top_gray8
    # clipping each pixel's strength keeps a few strong lines of art from outweighing a seam
    cap_x = _counted_percentile(np.bincount(gx16[inside]), 90) + 1e-6
    cap_y = _counted_percentile(np.bincount(gy16[inside]), 90) + 1e-6
    cnt_x = in_x + 1e-6
    cnt_y = in_y + 1e-6
    # (the gradients are not needed after: capped and masked in place)
    gx, gy = gx16.astype(np.float32), gy16.astype(np.float32)
    prof_x = np.multiply(np.minimum(gx, cap_x, out=gx), inside, out=gx).sum(axis=0) / cnt_x * (cnt_x > 2)
    prof_y = np.multiply(np.minimum(gy, cap_y, out=gy), inside, out=gy).sum(axis=1) / cnt_y * (cnt_y > 2)
    prof_x[~cols] = 0
    prof_y[~rows] = 0
    return prof_x, prof_y, top_mask, top_gray8


_SQUARE_9 = np.ones((9, 9), np.uint8)


def _whole_percentile(values: NDArray[Any], q: float) -> float:
    """``np.percentile(values, q)`` (its linear interpolation, in ``values``' float32) of float32 ``values`` that are
    whole numbers from 0 up (an 8-bit image's gradients): the two values it interpolates between counted out of a
    histogram rather than sorted out. Any other values go to ``np.percentile`` itself."""
    values = np.ravel(values)
    whole = values.astype(np.int64)
    if values.dtype != np.float32 or not len(whole) or whole.min() < 0 or not np.array_equal(whole, values):
        return float(np.percentile(values, q))
    return _counted_percentile(np.bincount(whole), q)


def _counted_percentile(counts: NDArray[Any], q: float) -> float:
    """``np.percentile(values, q)`` (its linear interpolation, in float32) of the whole numbers from 0 up that
    ``counts`` counts (``counts[v]``: how many are ``v``; at least one in all)."""
    cum = np.cumsum(counts)
    n = int(cum[-1])
    virtual = (n - 1) * (q / 100)
    if virtual >= n - 1:
        return float(np.float32(np.flatnonzero(counts)[-1]))
    below = math.floor(virtual)
    # the values at places ``below`` and ``below + 1`` of the sorted values
    a, b = np.float32(np.searchsorted(cum, below, side="right")), np.float32(np.searchsorted(cum, below + 1, side="right"))
    t = virtual - below
    step = b - a
    # numpy's interpolation, from the nearer end
    return float(b - step * np.float32(1.0 - t) if t >= 0.5 else a + step * np.float32(t))


def _rectify(pts: NDArray[Any], rect_h: NDArray[Any]) -> NDArray[Any] | None:
    """``rect_h`` followed by the fit of the board into the square canvas, or None when it blows up."""
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), rect_h).reshape(-1, 2)
    if not np.isfinite(out).all():
        return None
    lo, hi = np.percentile(out, [0.5, 99.5], axis=0)
    span = float(max(hi - lo))
    if span <= 0:
        return None
    k = CANVAS * 0.8 / span
    fit = np.array([[k, 0, -lo[0] * k + CANVAS * 0.1], [0, k, -lo[1] * k + CANVAS * 0.1], [0, 0, 1]])
    full: NDArray[Any] = fit @ rect_h
    return full


def _outline_parity(top_mask: NDArray[Any], pitch: float, phase: float, axis: int) -> tuple[float, float]:
    """Double a pitch that locked onto half tiles: the board's outline lies on seams only.

    If nearly every place where the board starts or ends along ``axis`` falls on every
    other lattice line, the lines in between are tile centres (roads, walls).
    """
    m = top_mask.astype(np.int8)
    # the steps counted per position along the axis (each position weighed once, counted as often as it steps)
    counts = np.count_nonzero(np.diff(m, axis=axis), axis=1 - axis)
    if int(counts.sum()) < 8:
        return pitch, phase
    at = np.nonzero(counts)[0]
    pos, weight = (at + 1).astype(np.float64), counts[at]
    r = ((pos - phase) / pitch) % 2.0
    on = np.minimum(np.abs(r - np.round(r)), 1.0)
    near = on < 0.3
    even = int(weight[near & ((np.round(r) % 2) == 0)].sum())
    odd = int(weight[near & ((np.round(r) % 2) == 1)].sum())
    total = even + odd
    if total < 8:
        return pitch, phase
    if even >= 0.9 * total:
        return 2 * pitch, phase
    if odd >= 0.9 * total:
        return 2 * pitch, phase + pitch
    return pitch, phase


def _outline_steps(top_mask: NDArray[Any], axis: int) -> NDArray[Any]:
    """How much of the board's outline crosses each position along ``axis`` (1: columns, 0: rows) of the canvas.

    Where the board starts or ends is a seam: its steps lie on the lattice and nowhere in between.
    """
    steps = np.abs(np.diff(top_mask.astype(np.int8), axis=axis)).sum(axis=1 - axis).astype(np.float64)
    out: NDArray[Any] = np.r_[0.0, steps]
    return out


def _outline_pitch(steps: NDArray[Any], pitch: float, phase: float) -> tuple[float, float]:
    """The lattice along one axis as the board's outline shows it, ``(pitch, phase)`` from the seams as a guide.

    The outline's steps repeat with the tile pitch and never at half of it (a tile centre is no
    edge of the board), so the shortest strong repetition of the steps is the pitch or a
    multiple of it; the seams' pitch says which multiple. The steps' circular mean at that
    pitch is the phase. With too little outline, no clear repetition, or an outline that agrees
    with the seams, the seams' answer stands.
    """
    n = len(steps)
    total = float(steps.sum())
    if total < 4 * pitch:
        return pitch, phase
    blurred = cv2.GaussianBlur(steps.reshape(1, -1), (0, 0), 1.0)[0]
    spec = np.fft.rfft(blurred, 2 * n)
    ac = np.fft.irfft(spec * np.conj(spec))[:n]
    ac = ac / (ac[0] + 1e-12)
    peaks = [(lag, hgt) for lag, hgt in _peaks(ac, 8, n // 2) if hgt >= 0.4]
    if not peaks:
        return pitch, phase
    top = max(hgt for _, hgt in peaks)
    lag = min(lg for lg, hgt in peaks if hgt >= 0.6 * top)
    new = lag if lag <= 1.15 * pitch else lag / max(1, round(lag / pitch))
    pos = np.arange(n, dtype=np.float64)
    turn = np.exp(2j * np.pi * pos / new)
    mean = complex((blurred * turn).sum()) / (blurred.sum() + 1e-12)
    # steps scattered all over the period (an outline cut by glare, a lens bending long seams) say nothing
    if abs(mean) < 0.5:
        return pitch, phase
    shift = float(np.angle(mean) / (2 * np.pi) * new) % new
    # where both agree the seams, seen all over the board, are the finer measure
    off = abs((shift - phase + new / 2) % new - new / 2)
    if abs(new - pitch) < 0.05 * pitch and off < 0.15 * new:
        return pitch, phase
    return float(new), shift


def _lattice_score(profile: NDArray[Any], extent: tuple[float, float], pitch: float, phase: float) -> float:
    """How strongly the seams show on the lattice lines ``phase + k * pitch`` across the board (``extent``, first
    and last position of the board along the axis): the seam profile, high-passed as the pitch search sees it, on
    the lines (the strongest within a pixel of each) over its mean across the board. A lattice on every seam scores
    as high as one on every other seam; one with lines on tile middles or between seams scores lower."""
    hp, _ = _autocorr(profile, 12.0)
    lo, hi = int(max(0, np.floor(extent[0]))), int(min(len(hp) - 1, np.ceil(extent[1])))
    if hi <= lo or pitch <= 0:
        return 0.0
    base = float(hp[lo:hi + 1].mean())
    if base <= 0:
        return 0.0
    first = np.ceil((lo - phase) / pitch)
    lines = phase + pitch * np.arange(first, np.floor((hi - phase) / pitch) + 1)
    if not len(lines):
        return 0.0
    near = np.clip(np.round(lines)[:, None].astype(np.intp) + np.arange(-1, 2), 0, len(hp) - 1)
    return float(hp[near].max(axis=1).mean()) / base


def _guarded_outline(profile: NDArray[Any], top_mask: NDArray[Any], axis: int, pitch: float,
                     phase: float) -> tuple[float, float]:
    """The lattice along ``axis`` from the board's outline (`_outline_pitch`) where it scores at least as well on
    the seams (`_lattice_score`) as the seams' own ``(pitch, phase)``, else the seams' lattice."""
    new = _outline_pitch(_outline_steps(top_mask, axis), pitch, phase)
    if new == (pitch, phase):
        return pitch, phase
    on = np.nonzero(top_mask.any(axis=1 - axis))[0]
    if len(on) < 2:
        return pitch, phase
    extent = (float(on[0]), float(on[-1]))
    if _lattice_score(profile, extent, *new) >= _lattice_score(profile, extent, pitch, phase):
        return new
    return pitch, phase


#: (lattice score, work image -> canvas, board mask in the canvas, (pitch x, phase x, pitch y, phase y), the seam
#: profiles along x and y, the work image's grey levels in the canvas)
_View = tuple[float, NDArray[Any], NDArray[Any], tuple[float, float, float, float], tuple[NDArray[Any], NDArray[Any]],
              NDArray[Any]]


def _views(gray: NDArray[Any], mask: NDArray[Any], dirs: tuple[float, float],
           outline: NDArray[Any] | None = None) -> list[NDArray[Any]]:
    """Candidate maps from ``gray``'s pixels to a view from straight above (up to scale per axis).

    Two candidates: parallel seams along the two dominant directions (a view from above),
    and the perspective undone through the seams' vanishing points. ``outline``: `_outline` of ``mask`` where the
    caller has it.
    """
    h, w = gray.shape[:2]
    lines = np.concatenate([_lines(gray, mask), _outline(mask) if outline is None else outline])
    norm = np.array([[2 / w, 0, -1], [0, 2 / w, -h / w], [0, 0, 1]])
    f1, f2 = _families(lines, dirs) if len(lines) else (lines, lines)
    # with too few lines for a vanishing point, the family is taken as parallel (a view from above)
    n1 = cv2.perspectiveTransform(f1.reshape(-1, 1, 2), norm).reshape(-1, 4) if len(f1) >= 3 else _parallel(dirs[0])
    n2 = cv2.perspectiveTransform(f2.reshape(-1, 1, 2), norm).reshape(-1, 4) if len(f2) >= 3 else _parallel(dirs[1])
    v1, v2 = _vanishing(n1), _vanishing(n2)
    t1, t2 = np.deg2rad(dirs[0]), np.deg2rad(dirs[1])
    options: list[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]] = [
        (np.eye(3), np.array([np.cos(t1), np.sin(t1), 0.0]), np.array([np.cos(t2), np.sin(t2), 0.0]))]
    horizon = np.cross(v1, v2)
    if abs(horizon[2]) > 1e-9 and np.linalg.norm(horizon[:2]) / abs(horizon[2]) < 0.8:
        # the horizon lies well outside the photo (a table seen from above): undo the perspective
        horizon = horizon / horizon[2]
        options.append((np.array([[1, 0, 0], [0, 1, 0], [horizon[0], horizon[1], 1.0]]), v1, v2))
    out: list[NDArray[Any]] = []
    for h1, u1, u2 in options:
        d1 = (h1 @ u1)[:2]
        d2 = (h1 @ u2)[:2]
        if d1[0] < 0:
            d1 = -d1
        if d2[1] < 0:
            d2 = -d2
        basis = np.c_[d1 / (np.linalg.norm(d1) + 1e-12), d2 / (np.linalg.norm(d2) + 1e-12)]
        if abs(np.linalg.det(basis)) < 0.3:
            continue
        h2 = np.eye(3)
        h2[:2, :2] = np.linalg.inv(basis)
        out.append(h2 @ h1 @ norm)
    return out


def _judge(gray: NDArray[Any], mask: NDArray[Any], pts: NDArray[Any], view: NDArray[Any]) -> _View | None:
    """The seam lattice seen through ``view`` (work image -> a view from above) fitted into the canvas."""
    full = _rectify(pts, view)
    if full is None:
        return None
    prof_x, prof_y, top_mask, top_gray = _profiles(gray, mask, full)
    cols, rows = np.nonzero(top_mask.any(axis=0))[0], np.nonzero(top_mask.any(axis=1))[0]
    if len(cols) < 2 or len(rows) < 2:
        return None
    px, phx, py, phy, score = _pitches(prof_x, prof_y, float(np.ptp(cols)), float(np.ptp(rows)))
    return score, full, top_mask, (px, phx, py, phy), (prof_x, prof_y), top_gray


def _best(views: list[_View]) -> _View:
    """The view with the strongest lattice (the first on a tie)."""
    return max(views, key=lambda v: v[0])


def find_grid(photo: NDArray[Any]) -> Grid:
    """The board's cells in ``photo`` (BGR).

    The lattice is measured on the photo shrunk to `WORK` pixels across; where the lattice found there cuts the
    board's tiles (`_misfit` above `PITCH_MISFIT`: on a big board seen at a slant the tiles are a dozen pixels
    there and the seams vanish, and the comb locks onto the board's ends), it is measured again at twice that
    size, and that lattice is taken where it fits the board.

    :raises NoBoardError: when no board or no grid is visible.
    """
    grid, misfit = _grid_at(photo, WORK)
    if misfit <= PITCH_MISFIT or max(photo.shape[:2]) < 2 * WORK:
        return grid
    try:
        finer, finer_misfit = _grid_at(photo, 2 * WORK)
    except NoBoardError:
        return grid
    return finer if finer_misfit <= PITCH_MISFIT else grid


def _lattice(view: _View) -> tuple[tuple[float, float, float, float], float]:
    """The lattice ``(pitch x, phase x, pitch y, phase y)`` of ``view`` once the board's outline has had its say
    (`_guarded_outline`, `_outline_parity`), and its `_misfit`."""
    top_mask, (px, phx, py, phy), (prof_x, prof_y) = view[2], view[3], view[4]
    px, phx = _guarded_outline(prof_x, top_mask, 1, px, phx)
    py, phy = _guarded_outline(prof_y, top_mask, 0, py, phy)
    px, phx = _outline_parity(top_mask, px, phx, axis=1)
    py, phy = _outline_parity(top_mask, py, phy, axis=0)
    return (px, phx, py, phy), _misfit(top_mask, px, phx, py, phy)


#: the strongest view's lattice cutting the tiles more than this (`_misfit`) is weighed against the other views'
VIEW_MISFIT = 0.2
#: ... and one of them whose seams score at least this share of the strongest's ...
VIEW_SCORE = 0.75
#: ... and that, each with the phases that cut the tiles least (`_rephased`), cuts them at least this much less is
#: taken instead
VIEW_MISFIT_GAIN = 0.05
#: phases tried per axis (`_rephased`), as shares of the pitch
PHASE_STEPS = 8


def _rephased(top_mask: NDArray[Any], lattice: tuple[float, float, float, float]) -> tuple[tuple[float, float, float, float], float]:
    """``lattice`` with the phases along both axes that cut the board's tiles least (`_misfit`; the first of equals),
    and that misfit."""
    px, phx, py, phy = lattice
    fx, fy = _mask_points(top_mask)
    if not len(fx) or px <= 0 or py <= 0:
        return lattice, 0.0  # (`_misfit` of every phase)
    steps = np.arange(PHASE_STEPS) / PHASE_STEPS
    misfits = _phase_misfits(fx, fy, lattice, steps)
    # (the first of equals in the order the phases are listed; the unmoved lattice is the first)
    a, b = divmod(int(np.argmin(misfits)), PHASE_STEPS)
    if a == b == 0:
        return lattice, float(misfits[0, 0])
    return (px, phx + steps[a] * px, py, phy + steps[b] * py), float(misfits[a, b])


def _fitted(best: _View, judged: list[_View]) -> tuple[NDArray[Any], NDArray[Any], tuple[float, float, float, float], float]:
    """The view taken and its lattice: (work image -> canvas, board mask in the canvas, lattice, `_misfit`).

    The view with the strongest seam lattice (``best``) is taken as it is unless its lattice cuts the tiles
    (`VIEW_MISFIT`) and another view judged on the way (``judged``) that scores nearly as well on the seams
    (`VIEW_SCORE`), with the phases that cut the tiles least (`_rephased`), cuts them clearly less than the strongest
    does with its best phases (`VIEW_MISFIT_GAIN`): on a big board seen at a slant the seams are faint, a lattice at
    twice the pitch scores as well as the right one, and the seams' comb may put the right pitch half a cell off.
    """
    lattice, misfit = _lattice(best)
    rivals = [view for view in judged if view is not best and view[0] >= VIEW_SCORE * best[0]]
    if misfit <= VIEW_MISFIT or not rivals:
        return best[1], best[2], lattice, misfit
    taken, bar = (best, lattice, misfit), _rephased(best[2], lattice)[1] - VIEW_MISFIT_GAIN
    for view in rivals:
        other, other_misfit = _rephased(view[2], _lattice(view)[0])
        if other_misfit <= bar:
            taken, bar = (view, other, other_misfit), other_misfit - 1e-9
    return taken[0][1], taken[0][2], taken[1], taken[2]


def _grid_at(photo: NDArray[Any], work: int) -> tuple[Grid, float]:
    """The grid found with the photo shrunk to ``work`` pixels across, and the `_misfit` of the lattice measured in
    the view from above.

    :raises NoBoardError: when no board or no grid is visible.
    """
    h0, w0 = photo.shape[:2]
    scale = work / max(h0, w0)
    img = cv2.resize(photo, (int(round(w0 * scale)), int(round(h0 * scale))), interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    mask = _foreground(img)
    # (it stays as it is from here: what is made of it is kept, `_of_mask`)
    mask.flags.writeable = False
    if mask.sum() < MIN_BOARD * h * w:
        raise NoBoardError("no board in the photo: nothing on the table differs from it")
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    # (the board's outline pieces: for its directions and for its views)
    outline = _outline(mask)
    dirs = _directions(gray, mask, outline)
    if dirs is None:
        raise NoBoardError("no tile grid in the photo: no straight tile edges found")
    ys, xs = np.nonzero(mask)
    pts = np.c_[xs, ys].astype(np.float64)[:: max(1, len(xs) // 4000)]
    found = [v for v in (_judge(gray, mask, pts, view) for view in _views(gray, mask, dirs, outline)) if v is not None]
    if not found:
        raise NoBoardError("no tile grid in the photo: the tile edges do not form a grid")
    best = _best(found)
    judged = list(found)
    # the first view's vanishing points come from short, few seams: measured again in the view
    # itself (where seams run nearly along the axes), the rest of the perspective is undone
    for _ in range(ITERATIONS):
        start = best
        # (the canvas as the view's judgement warped it)
        top_gray, top_mask = start[5], start[2]
        top_outline = _outline(top_mask)
        again = _directions(top_gray, top_mask, top_outline)
        if again is None or min(again[0], 180 - again[0]) > 15 or abs(again[1] - 90) > 15:
            break
        found = [v for v in (_judge(gray, mask, pts, view @ start[1]) for view in _views(top_gray, top_mask, again, top_outline))
                 if v is not None]
        judged += found
        best = _best([start, *found])
        if best is start:
            break
    full, top_mask, (px, phx, py, phy), misfit = _fitted(best, judged)
    # grid units -> canvas -> photo
    to_canvas = np.array([[px, 0, phx], [0, py, phy], [0, 0, 1]])
    to_photo = np.diag([1 / scale, 1 / scale, 1]) @ np.linalg.inv(full) @ to_canvas
    covers: dict[tuple[int, int], float] = {}
    nx, ny = int(CANVAS // px) + 2, int(CANVAS // py) + 2
    # each cell's cover from the mask's running sums: the mean of its 0/1 pixels, counted exactly
    summed = cv2.integral(top_mask, sdepth=cv2.CV_32S)
    for j in range(-1, ny):
        for i in range(-1, nx):
            x0, y0 = phx + i * px, phy + j * py
            xa, xb = int(max(0, x0 + 0.2 * px)), int(min(CANVAS, x0 + 0.8 * px))
            ya, yb = int(max(0, y0 + 0.2 * py)), int(min(CANVAS, y0 + 0.8 * py))
            if xb <= xa or yb <= ya:
                continue
            cover = float(summed[yb, xb] - summed[ya, xb] - summed[yb, xa] + summed[ya, xa]) / ((yb - ya) * (xb - xa))
            if cover < MIN_COVER:
                continue
            covers[(i, j)] = cover
    if not covers:
        raise NoBoardError("no tile grid in the photo: the board's cells could not be placed")
    to_work = np.diag([scale, scale, 1]) @ to_photo
    # the outline runs along tile edges: where the seams' perspective leaves it off its lattice lines (seams too
    # faint to correct it on a big board seen at a slant), the fit that puts the most outline on them is taken
    fits = [f for f in _outline_fits(mask, to_work, OUTLINE_PRIORS) if f is not None]
    if fits:
        fitted = max(fits, key=lambda f: f[2])
        if fitted[2] >= fitted[1] + 0.1:
            to_work = fitted[0]
    # the lattice measured in the view from above is a little off in pitch or perspective on a big board seen at a
    # slant: grown from the board's middle outwards along the seams, it is kept where it puts more seams on its lines
    fine = fine_gray(photo)
    # (it stays as it is from here too: each lattice's half seams are kept, `_probed`)
    fine.flags.writeable = False
    share = seam_share(fine, mask, to_work)
    best_share, best_grown = (share, to_work) if share >= SURE_SHARE or not _to_grow(len(covers), share) else \
        grow_best(fine, mask, to_work, share)
    grew = best_share >= max(share + GROWN_GAIN, GROWN_FLOOR) and _holds_seams(fine, mask, best_grown)
    if grew:
        to_work, share = best_grown, best_share
        covers = _covers(mask, to_work)
    refined = refine_seams(gray, set(covers), to_work)
    # the seams at the work scale are faint: after the growing, their fit is kept only where it leaves the seams seen
    # finer no worse off
    if grew and refined is not None and seam_share(fine, mask, refined) < share:
        refined = None
    to_photo = np.diag([1 / scale, 1 / scale, 1]) @ (to_work if refined is None else refined)
    placed = sorted(covers.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    if not placed:
        raise NoBoardError("no tile grid in the photo: the board's cells could not be placed")
    # every cell's corners (NW, NE, SE, SW) mapped at once: each point alone, as cell by cell
    at = np.array([xy for xy, _ in placed], np.float64)
    corners = _apply(to_photo, np.ascontiguousarray(at[:, None, :] + _QUAD[None])).astype(np.float32)
    moved = tuple(Cell(x, y, corners[k], cover) for k, ((x, y), cover) in enumerate(placed))
    return Grid(moved, to_photo), misfit


#: a cell's corners (NW, NE, SE, SW) in grid units from its own
_QUAD = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


#: how much more of the seams (share of the seam probes on a lattice line) the grown lattice must hold to be taken
GROWN_GAIN = 0.05
#: a board of fewer candidate cells is not grown (a pitch a few per cent off moves its far cells little) ...
GROW_CELLS = 16
#: ... unless its lattice holds fewer of the seams seen than this (`seam_share`; some seen, 0 where too few are): a
#: lattice on a small board's seams holds over half of them, one a fraction of a cell off holds few (the comb's phase
#: locked onto straight roads or city walls)
SMALL_GROW_BELOW = 0.3
#: a lattice holding less of the seams than this is also grown from twice its pitch
DOUBLE_BELOW = 0.3
#: a lattice holding this share of the seams is not grown again
SURE_SHARE = 0.75
#: ... and at least this share (a lattice on the tiles' seams holds about half of them or more; one that holds less
#: is off somewhere, and the lattice as measured stands)
GROWN_FLOOR = 0.3
#: ... and keep at least this share of the seams it finds on its lines (`seam_precision`)
GROWN_PRECISION = 0.6
#: ... or at least this share where the board's outline along both axes lies on its lines (`OUTLINED`): art lines
#: near the tile edges draw some seam probes off the line
OUTLINED_PRECISION = 0.45
#: the share of the outline's pieces along each axis within a tenth of a cell of a lattice line that vouches for a
#: lattice whose seams are partly drawn off (one of the wrong pitch along an axis leaves at most about two thirds of
#: that axis's outline on its lines)
OUTLINED = 0.75
#: ... and at least this share of the seams found on its lines where nearly all the outline along both axes lies on
#: them (`OUTLINE_SURE`): on a big board seen small and at a slant, the seams at the far side are faint and many
#: probes there find the art instead
OUTLINE_SURE_PRECISION = 0.35
#: the share of the outline's pieces along each axis on the lattice's lines that vouches for it that firmly
OUTLINE_SURE = 0.95
#: (radius around the board's middle in cells, search across a seam in cells, full homography or affine correction)
GROW_STEPS = ((2.5, 0.35, False), (4.0, 0.3, True), (6.0, 0.3, True), (9.0, 0.3, True), (14.0, 0.25, True), (1e9, 0.2, True),
              (1e9, 0.12, True))


def _to_grow(cells: int, share: float) -> bool:
    """Whether a lattice of ``cells`` candidate cells holding ``share`` of the seams is grown along them
    (`GROW_CELLS`, `SMALL_GROW_BELOW`)."""
    return cells >= GROW_CELLS or 0.0 < share < SMALL_GROW_BELOW


def grow_best(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any], share: float) -> tuple[float, NDArray[Any]]:
    """The lattice (grid units -> work pixels) grown along the seams seen in ``fine`` that holds the most of them
    (`seam_share`), and that share; ``to_work`` itself (holding ``share``) where no grown one holds more.

    The starts: the lattice as it is, moved half a cell where that puts clearly more of the board's outline on its
    lines (the seams' comb locked onto tile middles), the lattice searched against the thin lines seen, its other
    half-cell moves (`HALF_MOVES`: with a pitch a little off, or the outline cut by glare, the outline scarcely
    tells which move is right), the lattice at twice its pitch along each axis whose seams lie on every other line
    only (`_parity_doubled`), and where it holds few seams (`DOUBLE_BELOW`) the lattice at twice its pitch on
    either parity, along both axes or along one (a lattice at half the tile pitch, the art's roads and walls across
    the tile middles taken for seams, holds few seams on every other line either). The starts are grown in that
    order until one holds nearly all the seams with the outline on its lines, or most with nearly all the outline
    on them (`_grown_enough`): no later one could refuse it, and any that held more would lie on the same tiles.
    The half-cell moves and doubled pitches are not grown where the lattice kept of the first three holds most of
    the seams with the outline along both axes on its lines (`_primary_enough`), and the first starts left are not
    grown (the lattice search not even made) where the one kept so far holds nearly all of them so (`FIRST_ENOUGH`).
    """
    starts: list[NDArray[Any] | None] = [to_work]
    half = _half_shift(mask, to_work)
    if half is not to_work:
        starts.append(half)
    # (the searched lattice, made when its turn comes: a lattice grown before it may make it needless)
    starts.append(None)
    # (the lattice as measured, its outline's half-cell move and the searched one: grown before any other start)
    primary = len(starts)
    # the comb can lock onto the tile middles and a pitch a little off: the outline then scarcely tells which
    # half-cell move is right, so each is grown
    moves = [to_work @ np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]) for dx, dy in HALF_MOVES]
    starts += [m for m in moves if not np.array_equal(m, half)]
    doubled = _parity_doubled(fine, mask, to_work)
    if doubled is not None:
        starts.append(doubled)
    if share < DOUBLE_BELOW:
        starts += [to_work @ np.array([[2.0, 0.0, dx], [0.0, 2.0, dy], [0.0, 0.0, 1.0]]) for dy in (0.0, 1.0)
                   for dx in (0.0, 1.0)]
        # ... or along one axis only (the comb may lock onto the tile middles along one axis alone)
        starts += [to_work @ np.array([[2.0, 0.0, d], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) for d in (0.0, 1.0)]
        starts += [to_work @ np.array([[1.0, 0.0, 0.0], [0.0, 2.0, d], [0.0, 0.0, 1.0]]) for d in (0.0, 1.0)]
    contour = _contour(mask)
    outlines = [np.array(_outline_axis_shares(contour, to_work))]
    grown_all: list[tuple[float, NDArray[Any]]] = []
    for k, origin in enumerate(starts):
        if k == primary and _primary_enough(fine, mask, share, to_work, grown_all, outlines):
            break
        # a first start grown onto nearly all the seams, the outline on its lines, spares the other first starts
        if 0 < k < primary and _primary_enough(fine, mask, share, to_work, grown_all, outlines, FIRST_ENOUGH):
            break
        if origin is None:
            origin = search_lattice(fine, mask, to_work)
            if origin is None:
                continue
        grown = grow_seams(fine, mask, origin)
        if grown is None:
            continue
        grown_all.append((seam_share(fine, mask, grown), grown))
        outlines.append(np.array(_outline_axis_shares(contour, grown)))
        # a lattice holding nearly all the seams, with enough of the outline on its lines that no other lattice can
        # refuse it, or most of them with nearly all the outline on its lines, is the tiles' own: the starts left
        # are not grown
        if _grown_enough(fine, mask, grown, grown_all[-1][0], outlines[-1]):
            break
    best_share, best_grown, _ = _kept(share, to_work, grown_all, outlines)
    return best_share, best_grown


def _kept(share: float, to_work: NDArray[Any], grown_all: list[tuple[float, NDArray[Any]]],
          outlines: list[NDArray[Any]]) -> tuple[float, NDArray[Any], int]:
    """The lattice `grow_best` keeps of ``to_work`` (holding ``share`` of the seams) and those grown (``grown_all``:
    (share, lattice); ``outlines``: `_outline_axis_shares` of ``to_work``, then of each grown): (its share, it, its
    place in ``grown_all``, -1 for ``to_work``)."""
    # a lattice grown along the art's roads across the tile middles can hold more seams than the right one, but it
    # leaves the board's outline along one axis off its lines where the lattice as measured or another grown one
    # keeps it on them
    most = np.max(outlines, axis=0)
    best_share, best_grown, at = share, to_work, -1
    for i, ((grown_share, grown), outline) in enumerate(zip(grown_all, outlines[1:], strict=True)):
        if grown_share > best_share and bool((outline >= most - OUTLINE_DROP).all()):
            best_share, best_grown, at = grown_share, grown, i
    return best_share, best_grown, at


def _primary_enough(fine: NDArray[Any], mask: NDArray[Any], share: float, to_work: NDArray[Any],
                    grown_all: list[tuple[float, NDArray[Any]]], outlines: list[NDArray[Any]],
                    least: float | None = None) -> bool:
    """Whether the lattice kept of those grown from the first starts (`grow_best`: the lattice as measured, its
    outline's half-cell move, the searched one) ends the growing before its half-cell moves and doubled pitches:
    grown, holding most of the seams (`GROWN_OUTLINED`) with the outline along both axes on its lines (`OUTLINED`),
    and no half-pitch pattern (`_parity_doubled`). Those starts are for a lattice whose comb locked onto the tile
    middles or onto half the pitch, which leaves the outline, or half the seams, off its lines."""
    best_share, best, at = _kept(share, to_work, grown_all, outlines)
    return (at >= 0 and best_share >= (GROWN_OUTLINED if least is None else least) and bool((outlines[at + 1] >= OUTLINED).all())
            and _parity_doubled(fine, mask, best) is None)


def _grown_enough(fine: NDArray[Any], mask: NDArray[Any], grown: NDArray[Any], share: float,
                  outline: NDArray[Any]) -> bool:
    """Whether the grown lattice ``grown``, holding ``share`` of the seams with ``outline`` (`_outline_axis_shares`) of
    the board's outline on its lines along each axis, ends the growing from the starts left (`GROWN_ENOUGH`,
    `GROWN_OUTLINED`; a lattice at half the tile pitch puts the whole outline on its lines too, and holds its seams
    on every other line only: `_parity_doubled`)."""
    if share >= GROWN_ENOUGH and bool((outline >= OUTLINE_DROP).all()):
        return True
    return share >= GROWN_OUTLINED and bool((outline >= OUTLINE_SURE).all()) and _parity_doubled(fine, mask, grown) is None


#: a grown lattice holding this share of the seams, with enough of the outline on its lines along both axes that no
#: other lattice can refuse it (`OUTLINE_DROP`), ends the growing from the starts left
GROWN_ENOUGH = 0.9
#: a lattice grown from one of the first starts (`grow_best`) holding this share of the seams, with the outline along both
#: axes on its lines (`OUTLINED`) and no half-pitch pattern, ends the growing before the other first starts
FIRST_ENOUGH = 0.8
#: ... and so does one holding this share with nearly all the outline along both axes on its lines (`OUTLINE_SURE`):
#: on a big board seen at a slant the far seams are faint, and a lattice on the tiles holds only about two thirds
GROWN_OUTLINED = 0.6
#: a grown lattice is refused where the share of the board's outline on its lines along either axis is this much
#: below the most that the lattice as measured or another grown lattice puts there
OUTLINE_DROP = 0.5


def _parity_doubled(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> NDArray[Any] | None:
    """``to_work`` at twice its pitch along each axis whose seams lie on every other lattice line only (a lattice at
    half the tile pitch: the lines between hold the art's roads and walls across the tile middles), on the lines that
    hold them; None where no axis shows it."""
    scale, shift = [1.0, 1.0], [0.0, 0.0]
    for axis, (even, odd, count) in enumerate(_parity_shares(fine, mask, to_work)):
        hi, lo = max(even, odd), min(even, odd)
        if count >= PARITY_COUNT and hi >= PARITY_HIGH and lo <= PARITY_RATIO * hi:
            scale[axis], shift[axis] = 2.0, 0.0 if even >= odd else 1.0
    if scale == [1.0, 1.0]:
        return None
    out: NDArray[Any] = to_work @ np.array([[scale[0], 0.0, shift[0]], [0.0, scale[1], shift[1]], [0.0, 0.0, 1.0]])
    return out


#: half-cell moves of the lattice each grown in `grow_best`
HALF_MOVES = ((0.5, 0.0), (0.0, 0.5), (0.5, 0.5))
#: an axis is doubled (`_parity_doubled`) with at least this many half seams on each parity of its lines ...
PARITY_COUNT = 6
#: ... at least this share of those on one parity on their line ...
PARITY_HIGH = 0.4
#: ... and at most this fraction of that share on the other
PARITY_RATIO = 0.4


def _holds_seams(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> bool:
    """Whether the lattice ``to_work`` lies on the tiles: the seams it finds lie on its lines (`GROWN_PRECISION`), or
    most do (`OUTLINED_PRECISION`) and the board's outline along both axes lies on its lines (`OUTLINED`), or many do
    (`OUTLINE_SURE_PRECISION`) and nearly all the outline along both axes does (`OUTLINE_SURE`)."""
    precision = seam_precision(fine, mask, to_work)
    if precision >= GROWN_PRECISION:
        return True
    if precision < min(OUTLINED_PRECISION, OUTLINE_SURE_PRECISION):
        return False
    outline = min(_outline_axis_shares(_contour(mask), to_work))
    return outline >= (OUTLINED if precision >= OUTLINED_PRECISION else OUTLINE_SURE)


#: a half-cell move of the lattice is a start for growing where it puts this much more of the outline on its lines
HALF_GAIN = 0.15


def _outline_share(contour: tuple[NDArray[Any], NDArray[Any]], to_work: NDArray[Any]) -> float:
    """The share of the board's outline pieces along an axis that lie within a tenth of a cell of a lattice line."""
    uv, along = _outline_points(contour, to_work)
    on = along >= 0
    if not on.any():
        return 0.0
    idx = np.nonzero(on)[0]
    v = uv[idx, 1 - along[idx]]
    return float((np.abs(v - np.round(v)) < 0.1).mean())


def _outline_axis_shares(contour: tuple[NDArray[Any], NDArray[Any]], to_work: NDArray[Any]) -> tuple[float, float]:
    """Per lattice direction (pieces along u, then along v), the share of the board's outline points within a tenth
    of a cell of a lattice line (0 where the outline has no piece along it)."""
    uv, along = _outline_points(contour, to_work)
    out = []
    for axis in (0, 1):
        idx = np.nonzero(along == axis)[0]
        if not len(idx):
            out.append(0.0)
            continue
        v = uv[idx, 1 - axis]
        out.append(float((np.abs(v - np.round(v)) < 0.1).mean()))
    return out[0], out[1]


def _half_shift(mask: NDArray[Any], to_work: NDArray[Any]) -> NDArray[Any]:
    """``to_work`` moved by half a cell along one or both axes where that puts clearly more of the board's outline
    on lattice lines (`HALF_GAIN`), else ``to_work``."""
    contour = _contour(mask)
    base = _outline_share(contour, to_work)
    best, out = base + HALF_GAIN, to_work
    for dx, dy in ((0.5, 0.0), (0.0, 0.5), (0.5, 0.5)):
        moved = to_work @ np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
        got = _outline_share(contour, moved)
        if got > best:
            best, out = got, moved
    return out


#: the 3x3 pattern of points inside a cell (`_inner`)
_INNER = np.stack(np.meshgrid(*[np.array([0.25, 0.5, 0.75])] * 2), axis=-1).reshape(-1, 2)


def _inner(to_work: NDArray[Any], cells: NDArray[Any]) -> NDArray[Any]:
    """Work pixels of a 3x3 pattern inside each cell of ``cells`` (k, 2): (k, 9, 2)."""
    return _apply(to_work, cells[:, None, :].astype(np.float64) + _INNER[None])


def _board_samples(mask: NDArray[Any]) -> NDArray[Any]:
    """The board's pixels `_board_cells` maps into the lattice (k, 2): every third each way (that finds every cell
    a tile covers), about 3000 at most (read only where ``mask`` is: `_of_mask`)."""
    return _of_mask("samples", mask, _board_samples_of)


def _board_samples_of(mask: NDArray[Any]) -> NDArray[Any]:
    ys, xs = np.nonzero(mask[::3, ::3])
    step = max(1, len(xs) // 3000)
    out: NDArray[Any] = 3.0 * np.c_[xs[::step], ys[::step]].astype(np.float64)
    return out


def _board_cells(mask: NDArray[Any], to_work: NDArray[Any], least: float,
                 samples: NDArray[Any] | None = None) -> tuple[NDArray[Any], NDArray[Any]]:
    """The lattice cells (k, 2) under ``to_work`` (grid units -> work pixels) with at least ``least`` of their inner
    points on the board, and that share; ``samples``: `_board_samples` of ``mask`` where the caller has them."""
    h, w = mask.shape
    samples = _board_samples(mask) if samples is None else samples
    if not len(samples):
        return np.zeros((0, 2), np.intp), np.zeros(0)
    uv = _apply(np.linalg.inv(to_work), samples)
    finite = np.isfinite(uv[:, 0]) & np.isfinite(uv[:, 1])
    if not finite.all():
        uv = uv[finite]
    if not len(uv):
        return np.zeros((0, 2), np.intp), np.zeros(0)
    fl = np.floor(uv).astype(np.int64)
    cells = _unique_cells(fl[:, 0], fl[:, 1])
    if len(cells) > 4000:
        return np.zeros((0, 2), np.intp), np.zeros(0)
    p = _inner(to_work, cells)
    px, py = p[..., 0], p[..., 1]
    # (a point not finite fails these tests too)
    ok = (px >= 0) & (py >= 0) & (px <= w - 1) & (py <= h - 1)
    if not ok.all():
        px, py = np.where(ok, px, 0), np.where(ok, py, 0)
    on = (mask[np.round(py).astype(np.intp), np.round(px).astype(np.intp)] > 0) & ok
    share = np.count_nonzero(on, axis=1) / on.shape[1]
    keep = share >= least
    return cells[keep], share[keep]


def _unique_cells(x: NDArray[Any], y: NDArray[Any]) -> NDArray[Any]:
    """The distinct cells (``x``, ``y``) (int64) as rows (k, 2) of intp, ordered as their keys ``(x << 32) + (y &
    0xFFFFFFFF)`` sort (by x, then y read as unsigned 32 bits: y from 0 up, then the negative y from the lowest).

    Where the cells lie within a box of not much more than as many cells as points, each cell is marked in the box
    and the marks read in that order; otherwise the keys are sorted out (`np.unique`)."""
    if len(x):
        x0, x1, y0, y1 = int(x.min()), int(x.max()), int(y.min()), int(y.max())
        width, height = x1 - x0 + 1, y1 - y0 + 1
        if width * height <= 4 * len(x) + 4096 and -(1 << 31) <= min(x0, y0) and max(x1, y1) < (1 << 31):
            # each cell's place in the box in key order: y from 0 up first, then the negative y
            place = y - y0 if y0 >= 0 or y1 < 0 else np.where(y >= 0, y, y - y0 + y1 + 1)
            marked = np.zeros(width * height, np.bool_)
            marked[(x - x0) * height + place] = True
            at = np.flatnonzero(marked)
            cx, cy = at // height + x0, at % height
            if y0 >= 0 or y1 < 0:
                cy = cy + y0
            else:
                cy = np.where(cy <= y1, cy, cy - (y1 + 1) + y0)
            return np.column_stack((cx, cy)).astype(np.intp)
    keys = np.unique((x << 32) + (y & 0xFFFFFFFF))
    out: NDArray[Any] = np.column_stack((keys >> 32, ((keys & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000)).astype(np.intp)
    return out


def _covers(mask: NDArray[Any], to_work: NDArray[Any]) -> dict[tuple[int, int], float]:
    """Every candidate cell (mostly covered by the board) under ``to_work`` and its cover."""
    cells, share = _board_cells(mask, to_work, MIN_COVER)
    return {(int(x), int(y)): float(s) for (x, y), s in zip(cells, share, strict=True)}


def _seam_probes(g: NDArray[Any], to_img: NDArray[Any], cells: NDArray[Any], reach: float,
                 keep_all: bool = False) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Search across every seam between two of ``cells`` for the thin line between the tiles: (points on the
    lattice lines in grid units, where the seam is there in ``g``'s pixels, its offset from the line in cells), one
    point per half seam, seams too faint to tell left out.

    The profile across each half seam is averaged along it: a seam runs the whole side, the art's lines do not.
    """
    h, w = g.shape
    vertical, horizontal = _seams(cells)
    ts = _PROBE_ALONG
    offs = _probe_offsets(reach)
    empty = np.zeros((0, 2))
    if not len(vertical) + len(horizontal):
        return empty, empty, np.zeros(0)
    # every probe (half seam, 4 places along it, the offsets across, 2) and its half seam's middle, the vertical
    # seams' first
    pts = np.empty((2 * (len(vertical) + len(horizontal)), 4, len(offs), 2))
    src = np.empty((len(pts), 2))
    at = 0
    for seams, across in ((vertical, 0), (horizontal, 1)):
        if not len(seams):
            continue
        p = pts[at:at + 2 * len(seams)].reshape(len(seams), 2, 4, len(offs), 2)
        p[..., 1 - across] = seams[:, None, None, None, 1 - across] + ts[None, :, :, None]
        p[..., across] = seams[:, None, None, None, across] + offs[None, None, None, :]
        mids = src[at:at + 2 * len(seams)].reshape(len(seams), 2, 2)
        mids[...] = seams[:, None, :]
        mids[..., 1 - across] += _PROBE_MIDDLES[None, :]
        at += 2 * len(seams)
    img_x, img_y = _apply_xy(to_img, pts)
    xs, ys = img_x.reshape(len(pts), -1), img_y.reshape(len(pts), -1)
    # (a point not finite fails these tests too: NaN compares false, infinities fall outside)
    inside = (xs.min(axis=1) >= 1) & (ys.min(axis=1) >= 1) & (xs.max(axis=1) <= w - 2) & (ys.max(axis=1) <= h - 2)
    if not inside.all():
        img_x, img_y, pts, src = img_x[inside], img_y[inside], pts[inside], src[inside]
    if not len(pts):
        return empty, empty, np.zeros(0)
    vals = cv2.remap(g, img_x.reshape(-1, len(offs)).astype(np.float32), img_y.reshape(-1, len(offs)).astype(np.float32),
                     cv2.INTER_LINEAR)
    prof = _along_mean(vals.reshape(len(pts), 4, len(offs)))
    line = np.abs(prof[:, 2:-2] - 0.5 * (prof[:, :-4] + prof[:, 4:]))
    k = np.argmax(line, axis=1)
    rows = np.arange(len(k))
    peak = line[rows, k]
    # the peak at least twice the row's median (its middle value in order): at least the middle count of the row's
    # values at most half the peak (doubling is exact), with no sorting
    mid = line.shape[1] // 2
    good = (peak >= SEAM_CONTRAST) & (np.count_nonzero(2.0 * line <= peak[:, None], axis=1) > mid)
    off = offs[k + 2]
    moved = pts[rows, 0, k + 2]
    # the point on the seam's middle line of the half, where the profile peaked
    moved = src + (moved - pts[rows, 0, len(offs) // 2]) * 1.0
    dst = _apply(to_img, moved)
    if keep_all:
        # a seam too faint to tell counts as off its line
        return src, dst, np.where(good, off, np.inf)
    return src[good], dst[good], off[good]


def _along_mean(vals: NDArray[Any]) -> NDArray[Any]:
    """``vals.mean(axis=1)`` of float32 ``vals`` (k, 4, n) bit for bit (the four summed in order, then halved twice),
    without numpy's reduction machinery."""
    out: NDArray[Any] = vals[:, 0] + vals[:, 1]
    out += vals[:, 2]
    out += vals[:, 3]
    out /= 4
    return out


#: where along each half seam (shares of the side) its profile is taken, and each half's middle
_PROBE_ALONG = np.array([[0.08, 0.18, 0.28, 0.38], [0.62, 0.72, 0.82, 0.92]])
_PROBE_MIDDLES = _PROBE_ALONG.mean(axis=1)


@functools.lru_cache(maxsize=16)
def _probe_offsets(reach: float) -> NDArray[Any]:
    """The offsets (cells) across a seam at which its profile is taken, ``reach`` either way (read only: shared)."""
    out = np.linspace(-reach, reach, 2 * int(round(reach * 60)) + 1)
    out.flags.writeable = False
    return out


#: a seam's averaged profile must dip or rise this much (grey levels) against its surroundings to be found
SEAM_CONTRAST = 2.0


def _zoom(fine: NDArray[Any], mask: NDArray[Any]) -> NDArray[Any]:
    """Work pixels -> ``fine``'s pixels (the same photo, larger)."""
    z = fine.shape[1] / mask.shape[1]
    return np.diag([z, z, 1.0])


def fine_gray(photo: NDArray[Any]) -> NDArray[Any]:
    """The photo's grey levels about FINE pixels across (shrunk by a whole factor, never enlarged), lightly blurred:
    the seams between tiles are a few pixels wide in the photo and vanish at the work scale."""
    h0, w0 = photo.shape[:2]
    k = max(1, int(round(max(h0, w0) / FINE)))
    gray = photo if photo.ndim == 2 else cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (w0 // k, h0 // k), interpolation=cv2.INTER_AREA) if k > 1 else gray
    out: NDArray[Any] = cv2.GaussianBlur(small.astype(np.float32), (0, 0), 0.7)
    return out


#: width of the photo in which the seams are searched
FINE = 1280


def seam_share(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> float:
    """How well the lattice ``to_work`` (grid units -> work pixels) lies on the tile seams seen in ``fine``
    (`fine_gray`): of the half seams between its board cells, the share whose seam, searched a third of a cell
    either way, lies within a twentieth of a cell of the line (0 with too few seams)."""
    cells, _, off = _probed(fine, mask, to_work)
    # (a seam too faint to tell is off by infinity: never near its line)
    if np.count_nonzero(np.isfinite(off)) < 12:
        return 0.0
    return float((np.abs(off) <= 0.05).sum()) / (2 * max(1, _seam_count(cells)))


def seam_precision(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> float:
    """Of the seams found across the half seams of the lattice ``to_work`` (a third of a cell either way), the share
    within a twentieth of a cell of the line: a lattice on the tiles keeps most seams it finds on its lines even
    where few are seen, one of the wrong pitch finds them all over its cells (0 with none found)."""
    _, _, off = _probed(fine, mask, to_work)
    off = off[np.isfinite(off)]
    return float((np.abs(off) <= 0.05).mean()) if len(off) else 0.0


#: the last read-only seam image and board mask asked about, and the half seams of each lattice (`_probed`)
_PROBE_MEMO: dict[str, Any] = {}


def _probed(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The board cells of the lattice ``to_work`` (three quarters on the board) and the half seams between them
    searched a third of a cell either way, each kept (`_seam_probes` with ``keep_all``): (cells, points, offsets).

    Made once a lattice for a read-only ``fine`` and ``mask`` (`_grid_at`'s: a grown lattice's seams are asked for
    by its share, its precision and its half-pitch pattern) and kept, read only, until another such pair is asked
    about; made afresh where either may change."""
    def make() -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        cells, _ = _board_cells(mask, to_work, 0.75)
        src, _, off = _seam_probes(fine, _zoom(fine, mask) @ to_work, cells, 0.35, keep_all=True)
        return cells, src, off

    if fine.flags.writeable or mask.flags.writeable:
        return make()
    if _PROBE_MEMO.get("fine", lambda: None)() is not fine or _PROBE_MEMO.get("mask", lambda: None)() is not mask:
        _PROBE_MEMO.clear()
        _PROBE_MEMO.update(fine=weakref.ref(fine), mask=weakref.ref(mask), kept={})
    kept: dict[tuple[str, tuple[int, ...], bytes], tuple[NDArray[Any], NDArray[Any], NDArray[Any]]] = _PROBE_MEMO["kept"]
    key = (to_work.dtype.str, to_work.shape, to_work.tobytes())
    if key not in kept:
        made = make()
        for part in made:
            part.flags.writeable = False
        kept[key] = made
    return kept[key]


def _parity_shares(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> list[tuple[float, float, int]]:
    """Per axis (u, then v): the share of the half seams on even lattice lines and on odd ones that lie within a
    twentieth of a cell of their line, and the fewer of the two counts of half seams searched."""
    _, src, off = _probed(fine, mask, to_work)
    out = []
    for axis in (0, 1):
        on_axis = np.abs(src[:, axis] - np.round(src[:, axis])) < 1e-6
        even = on_axis & (np.round(src[:, axis]).astype(np.intp) % 2 == 0)
        odd = on_axis & ~even
        near = np.abs(off) <= 0.05
        out.append((float(near[even].mean()) if even.any() else 0.0, float(near[odd].mean()) if odd.any() else 0.0,
                    int(min(even.sum(), odd.sum()))))
    return out


def _seam_count(cells: NDArray[Any]) -> int:
    vertical, horizontal = _seams(cells)
    return len(vertical) + len(horizontal)


def _seams(cells: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The seams between two of ``cells`` (k, 2; whole numbers, repeats counted once), each as the cell east or south
    of it (float rows, sorted): those between a cell and its east neighbour, then those between a cell and its south
    neighbour."""
    c = np.asarray(cells).reshape(-1, 2).astype(np.int64)
    if len(c):
        x0, y0 = (int(v) for v in c.min(axis=0))
        x1, y1 = (int(v) for v in c.max(axis=0))
        width, height = x1 - x0 + 1, y1 - y0 + 1
        if width * height <= 4 * len(c) + 4096 and -(1 << 30) <= min(x0, y0) and max(x1, y1) < (1 << 30):
            # the cells marked in their box: a seam where two neighbours are marked, read in the keys' order
            marked = np.zeros((width, height), np.bool_)
            marked[c[:, 0] - x0, c[:, 1] - y0] = True
            ex, ey = np.nonzero(marked[1:] & marked[:-1])
            sx, sy = np.nonzero(marked[:, 1:] & marked[:, :-1])
            return (np.column_stack((ex + (x0 + 1), ey + y0)).astype(np.float64),
                    np.column_stack((sx + x0, sy + (y0 + 1))).astype(np.float64))
    return _seams_by_keys(c)


def _seams_by_keys(c: NDArray[np.int64]) -> tuple[NDArray[Any], NDArray[Any]]:
    """`_seams` by sorted keys and neighbour look-ups, for cells spread too wide to mark in their box."""
    # one sortable key a cell: x in the high half, y (offset to stay positive) in the low half
    keys = np.unique((c[:, 0] << 32) + (c[:, 1] + (1 << 31)))
    out = []
    for step in (1 << 32, 1):
        nb = keys + step
        at = np.minimum(np.searchsorted(keys, nb), len(keys) - 1)
        found = nb[keys[at] == nb] if len(keys) else nb
        out.append(np.column_stack((found >> 32, (found & 0xFFFFFFFF) - (1 << 31))).astype(np.float64).reshape(-1, 2))
    return out[0], out[1]


def _ridges(fine: NDArray[Any]) -> NDArray[Any]:
    """How strongly each pixel of ``fine`` lies on a thin line (a seam between tiles is one, dark or light)."""
    lap = cv2.Laplacian(cv2.GaussianBlur(fine, (0, 0), 1.2), cv2.CV_32F, ksize=3)
    out: NDArray[Any] = np.abs(lap)
    return out


def _axis_search(u: NDArray[Any], v: NDArray[Any], r: NDArray[Any], scales: NDArray[Any],
                 shears: NDArray[Any]) -> tuple[float, float, float, float]:
    """The lattice lines ``u' = k`` with ``u = scale * u' + shear * v + phase`` that gather the most ridge ``r`` of the
    points ``(u, v)``: (score, scale, shear, phase); the score is the ridge on the lines over the mean.

    Every (scale, shear) pair is binned at once, each in its own run of bins: each bin sums its own pair's points in
    their order, as one pair's binning alone would; the counts' window sums are whole numbers (exact in any order),
    the ridge's are numpy's own, pair by pair.
    """
    bins = 100
    base = float(r.mean()) + 1e-9
    best = (0.0, 1.0, 0.0, 0.0)
    window = np.ones(7)
    n_pairs = len(scales) * len(shears)
    if not n_pairs:
        return best
    # (the pairs in order: scale by scale, each shear in turn; each shear's sheared positions once)
    sheared = np.stack([u - sh * v for sh in shears])
    # each position's bin, as ``((moved / sc % 1.0) * bins).astype(np.intp) % bins`` gives it bit for bit: a float's
    # remainder on 1 is itself less its floor (exact, or one rounding of the same sum below 0), and only a remainder
    # rounded up to 1 reaches the bin past the last
    q = sheared[None, :, :] / np.asarray(scales, np.float64)[:, None, None]
    q -= np.floor(q)
    q *= bins
    idx = q.astype(np.intp).reshape(n_pairs, -1)
    idx[idx == bins] = 0
    idx += (np.arange(n_pairs) * bins)[:, None]
    got = np.bincount(idx.ravel(), weights=np.tile(r, n_pairs), minlength=n_pairs * bins).reshape(n_pairs, bins)
    cnt = np.bincount(idx.ravel(), minlength=n_pairs * bins).reshape(n_pairs, bins)
    # the counts over each window of 7 bins, round the circle
    wrapped = np.concatenate((cnt[:, -3:], cnt, cnt[:, :3]), axis=1)
    ends = np.concatenate((np.zeros((n_pairs, 1), np.int64), np.cumsum(wrapped, axis=1)), axis=1)
    counted = (ends[:, 7:] - ends[:, :-7]).astype(np.float64)
    summed = np.stack([np.convolve(np.concatenate((g[-3:], g, g[:3])), window, "valid") for g in got])
    score = summed / (counted + 1e-9) / base
    at = np.argmax(score, axis=1)
    top = score[np.arange(n_pairs), at]
    for pair in range(n_pairs):
        if top[pair] > best[0]:
            sc, sh = scales[pair // len(shears)], shears[pair % len(shears)]
            k = int(at[pair])
            best = (float(top[pair]), float(sc), float(sh), float((k + 0.5) / bins * sc))
    return best


#: the lattice search looks at the cells this near the board's middle (in cells)
SEARCH_RADIUS = 1e9
#: the lattice search takes this many by this many points in each board cell
SEARCH_RASTER = 8
#: every how many outline points one joins the seams in growing the lattice
OUTLINE_STEP = 3
#: how much an outline point weighs in the lattice search against the strongest seam pixel
OUTLINE_WEIGHT = 1.0


def _contour(mask: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The board's outline in work pixels (k, 2) and its tangents (read only where ``mask`` is: `_of_mask`)."""
    return _of_mask("contour", mask, _contour_of)


def _contour_of(mask: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pl = [c.reshape(-1, 2).astype(np.float64) for c in contours if len(c) >= 24]
    if not pl:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return np.concatenate(pl), np.concatenate([np.roll(c, -3, axis=0) - np.roll(c, 3, axis=0) for c in pl])


def _outline_points(contour: tuple[NDArray[Any], NDArray[Any]], to_work: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The board's outline (`_contour`) in grid units (k, 2) and which axis each point's piece runs along (0: u,
    1: v, -1: neither)."""
    pts, tan = contour
    inv = np.linalg.inv(to_work)
    uv = _apply(inv, pts)
    duv = _apply(inv, pts + 0.5 * tan) - _apply(inv, pts - 0.5 * tan)
    along = np.full(len(pts), -1, np.intp)
    along[np.abs(duv[:, 0]) > 2 * np.abs(duv[:, 1])] = 0
    along[np.abs(duv[:, 1]) > 2 * np.abs(duv[:, 0])] = 1
    ok = np.isfinite(uv[:, 0]) & np.isfinite(uv[:, 1])
    if ok.all():
        return uv, along
    return uv[ok], along[ok]


#: points per row of the maps given to ``cv2.remap``, which takes at most 32767 a row
_SAMPLE_ROW = 4096


def _sample(image: NDArray[Any], xs: NDArray[Any], ys: NDArray[Any]) -> NDArray[Any]:
    """``image`` read bilinearly at the points (``xs``, ``ys``), as many as there are: laid out in rows ``cv2.remap``
    accepts (each point is read alone, so the layout changes no value)."""
    n = len(xs)
    rows = max(1, -(-n // _SAMPLE_ROW))
    pad = rows * _SAMPLE_ROW - n
    mx = np.pad(np.asarray(xs, np.float32), (0, pad)).reshape(rows, _SAMPLE_ROW)
    my = np.pad(np.asarray(ys, np.float32), (0, pad)).reshape(rows, _SAMPLE_ROW)
    out: NDArray[Any] = cv2.remap(image, mx, my, cv2.INTER_LINEAR).reshape(-1)[:n]
    return out


def search_lattice(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> NDArray[Any] | None:
    """The lattice near ``to_work`` (grid units -> work pixels) whose lines gather the most of the thin lines seen
    in ``fine`` (`fine_gray`) on the board: a pitch up to a fifth off, a phase and a slight shear searched per axis
    (a pitch a few per cent off puts the far cells of a big board a whole cell off). None without a board."""
    cells, _ = _board_cells(mask, to_work, 0.75)
    if len(cells) < 2:
        return None
    # an affine correction holds near the board's middle; the perspective further out is grown from there
    middle = np.median(cells, axis=0) + 0.5
    cells = cells[np.hypot(*(cells + 0.5 - middle).T) <= SEARCH_RADIUS]
    zoom = _zoom(fine, mask)
    ridge = _ridges(fine)
    # a raster jittered (fixed) within each of its squares: even cover without aliasing with the lattice
    n = SEARCH_RASTER
    sq = np.stack(np.meshgrid(np.arange(n), np.arange(n)), axis=-1).reshape(-1, 2)
    # (each cell jittered its own way: the same pattern in every cell would fold onto itself at the old pitch)
    grid = (sq[None] + np.random.default_rng(0).random((len(cells), n * n, 2))) / n
    pts = (cells[:, None, :] + grid).reshape(-1, 2)
    img = _apply(zoom @ to_work, pts)
    h, w = ridge.shape
    ok = np.isfinite(img).all(axis=1) & (img[:, 0] >= 0) & (img[:, 1] >= 0) & (img[:, 0] <= w - 1) & (img[:, 1] <= h - 1)
    pts, img = pts[ok], img[ok]
    if len(pts) < 64:
        return None
    r = _sample(ridge, img[:, 0], img[:, 1])
    # a few strong lines of art must not outweigh the seams
    r = np.minimum(r, np.percentile(r, 95))
    centre = middle
    # the board's outline runs along tile edges: its pieces along each axis join the seams, as strong as the strongest
    opts, along = _outline_points(_contour(mask), to_work)
    cap = float(r.max())
    out = []
    for axis in (0, 1):
        sel = (along == 1 - axis) & (np.hypot(*(opts - middle).T) <= SEARCH_RADIUS)
        a = np.r_[pts[:, axis], opts[sel, axis]] - centre[axis]
        b = np.r_[pts[:, 1 - axis], opts[sel, 1 - axis]] - centre[1 - axis]
        rr = np.r_[r, np.full(int(sel.sum()), OUTLINE_WEIGHT * cap)]
        _, sc, _, _ = _axis_search(a, b, rr, np.linspace(0.82, 1.18, 19), np.zeros(1))
        out.append(_axis_search(a, b, rr, sc + np.linspace(-0.01, 0.01, 3), np.linspace(-0.08, 0.08, 9)))
    (_, sx, hx, px), (_, sy, hy, py) = out
    # old grid units (about the board's middle) = A @ new grid units
    fix = np.array([[sx, hx, px], [hy, sy, py], [0.0, 0.0, 1.0]])
    shift = np.array([[1.0, 0.0, centre[0]], [0.0, 1.0, centre[1]], [0.0, 0.0, 1.0]])
    new: NDArray[Any] = to_work @ shift @ fix
    return new


def grow_seams(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> NDArray[Any] | None:
    """The lattice ``to_work`` (grid units -> work pixels) fitted to the seams seen in ``fine``, grown from the board's
    middle outwards.

    A lattice a few per cent off in pitch, or with some perspective left, is right near where its phase was
    measured and a cell or more off at the board's far ends, beyond what a fit to the nearest seams can mend. So
    the fit starts on the cells within a few cells of the board's middle (an affine correction in grid units: a
    pitch, a phase, a shear), then takes in wider rings, the last ones with a whole homography, each fit putting
    the seams and outline found on their lines (`line_fit`: the same points in any order, the same lattice). None
    when the seams are too few.
    """
    samples = _board_samples(mask)
    cells, _ = _board_cells(mask, to_work, 0.75, samples)
    if len(cells) < 4:
        return None
    centre = np.median(cells, axis=0) + 0.5
    zoom = _zoom(fine, mask)
    unzoom = np.linalg.inv(zoom)
    current = zoom @ to_work
    contour = _contour(mask)
    for radius, reach, full in GROW_STEPS:
        work = unzoom @ current
        cells, _ = _board_cells(mask, work, 0.75, samples)
        near = cells[np.hypot(*(cells + 0.5 - centre).T) <= radius]
        src, dst, _ = _seam_probes(fine, current, near, reach)
        # the board's outline lies on lattice lines too: each piece along an axis on its nearest line within reach
        ouv, along = _outline_points(contour, work)
        keep = (np.hypot(*(ouv - centre).T) <= radius) & (along >= 0)
        ouv, along = ouv[keep][::OUTLINE_STEP], along[keep][::OUTLINE_STEP]
        across = 1 - along
        line = np.round(ouv[np.arange(len(ouv)), across])
        snap = np.abs(ouv[np.arange(len(ouv)), across] - line) < reach
        osrc = ouv[snap].copy()
        osrc[np.arange(len(osrc)), across[snap]] = line[snap]
        src = np.concatenate([src, osrc])
        dst = np.concatenate([dst, _apply(current, ouv[snap])])
        if len(src) < 12:
            continue
        if full:
            fit = line_fit(src, dst, current)
            if fit is None or fit[1] < 0.4 * len(src):
                continue
            current = fit[0]
        else:
            # the edges found, in the current lattice's units: an affine correction there is well posed on a few cells
            seen = _apply(np.linalg.inv(current), dst)
            fit = line_fit(src, seen, np.eye(3), affine=True)
            if fit is None or fit[1] < 0.4 * len(src):
                continue
            current = current @ fit[0]
        if not np.isfinite(current).all():
            return None
    out: NDArray[Any] = unzoom @ current
    return out


#: how firmly the outline fit is held near the fit before (in units of the points' own weight): a firm hold keeps
#: a grid that is nearly right, a loose one lets a grid a third of a cell off at the far end come onto the lines
OUTLINE_PRIORS = (1.0, 0.1)


def _outline_fit(mask: NDArray[Any], to_work: NDArray[Any], prior: float) -> tuple[NDArray[Any], float, float] | None:
    """The grid (``to_work``: grid units -> work pixels) fitted to the board's outline in ``mask``: every piece of
    the outline lies on a lattice line (a tile's edge).

    Each outline point is mapped to grid units; where the outline there runs along a lattice direction, the
    nearest lattice line of that direction is its target. A homography puts the points on their lines (least
    squares, held near the fit before by ``prior``), first for the part of the board nearest the camera (its
    cells look largest: the first estimate is best there), then for wider parts, each matched with the fit of
    the part before, the reach narrowing at the end. Returns ``(grid units -> work pixels, share of the outline
    points within a tenth of a cell of their line before, after)``, or None with too little outline.
    """
    return _outline_fits(mask, to_work, (prior,))[0]


def _outline_fits(mask: NDArray[Any], to_work: NDArray[Any],
                  priors: tuple[float, ...]) -> list[tuple[NDArray[Any], float, float] | None]:
    """`_outline_fit` with each of ``priors``, the outline and where it starts from found once."""
    pts, tan = _contour(mask)
    if not len(pts):
        return [None] * len(priors)
    ahead, behind = pts + 0.5 * tan, pts - 0.5 * tan
    inv = np.linalg.inv(to_work)
    mid = pts.mean(axis=0)
    spread = float(np.abs(pts - mid).mean()) + 1e-9
    norm = np.array([[1 / spread, 0, -mid[0] / spread], [0, 1 / spread, -mid[1] / spread], [0, 0, 1]])
    ph = np.column_stack(((pts - mid) / spread, np.ones(len(pts))))
    z = np.zeros((len(ph), 3))
    eye = np.eye(8)

    def snapped(g: NDArray[Any], reach: float) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        uv = _apply(g, pts)
        duv = _apply(g, ahead) - _apply(g, behind)
        along_v = np.abs(duv[:, 1]) > 2 * np.abs(duv[:, 0])
        along_u = np.abs(duv[:, 0]) > 2 * np.abs(duv[:, 1])
        target = np.round(uv)
        off = np.abs(uv - target)
        use_u = along_v & (off[:, 0] < reach)
        use_v = along_u & (off[:, 1] < reach)
        return use_u, use_v, target, uv

    def share(g: NDArray[Any]) -> float:
        use_u, use_v, target, uv = snapped(g, 0.5)
        n = int(use_u.sum() + use_v.sum())
        if n == 0:
            return 0.0
        ok = (np.abs(uv[:, 0] - target[:, 0]) < 0.1) & use_u
        ok2 = (np.abs(uv[:, 1] - target[:, 1]) < 0.1) & use_v
        return float(ok.sum() + ok2.sum()) / n

    # the fit before snapped once a reach, and the rounds' rows from it by (radius, reach): the same for every prior and
    # for every round that kept it
    start: dict[float, tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]] = {}
    first: dict[tuple[float, float], tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]] | None] = {}

    def rows_of(g: NDArray[Any], radius: float, reach: float) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]] | None:
        """One round's rows from the fit ``g``: (rows along u, rows along v, their right-hand side, ``g``'s first eight
        entries), None with too few points."""
        if g is inv:
            if reach not in start:
                start[reach] = snapped(inv, reach)
            use_u, use_v, target, uv = start[reach]
        else:
            use_u, use_v, target, uv = snapped(g, reach)
        near = np.hypot(*(uv - anchor).T) <= radius
        use_u = use_u & near
        use_v = use_v & near
        if use_u.sum() < 20 or use_v.sum() < 20:
            return None
        gn = g @ np.linalg.inv(norm)
        gn = gn / gn[2, 2]
        w3 = 1.0 / np.abs(ph @ gn[2])
        xy = ph[:, :2]
        rows_u = np.concatenate((ph[use_u], z[use_u], -target[use_u, :1] * xy[use_u]), axis=1) * w3[use_u, None]
        rows_v = np.concatenate((z[use_v], ph[use_v], -target[use_v, 1:] * xy[use_v]), axis=1) * w3[use_v, None]
        rhs = np.concatenate((target[use_u, 0] * w3[use_u], target[use_v, 1] * w3[use_v]))
        return rows_u, rows_v, rhs, gn.ravel()[:8]

    def fit(prior: float) -> tuple[NDArray[Any], float, float] | None:
        g = inv
        for radius, reach in ((3.0, 0.3), (5.0, 0.3), (8.0, 0.3), (12.0, 0.3), (1e9, 0.25), (1e9, 0.15)):
            if g is inv:
                if (radius, reach) not in first:
                    first[(radius, reach)] = rows_of(inv, radius, reach)
                got = first[(radius, reach)]
            else:
                got = rows_of(g, radius, reach)
            if got is None:
                continue
            rows_u, rows_v, rhs, cur = got
            lam = prior * np.sqrt(len(rhs))
            a = np.concatenate((rows_u, rows_v, lam * eye))
            b = np.concatenate((rhs, lam * cur))
            x = np.linalg.lstsq(a, b, rcond=None)[0]
            g_new = np.concatenate((x, [1.0])).reshape(3, 3) @ norm
            if not np.isfinite(g_new).all() or abs(g_new[2, 2]) < 1e-12:
                return None
            g = g_new / g_new[2, 2]
        after = share(g)
        out: NDArray[Any] = np.linalg.inv(g)
        return out, before, after

    before = share(inv)
    uv0 = _apply(inv, pts)
    keys = np.floor(uv0)
    jac = np.abs(np.linalg.det(np.stack([_apply(to_work, keys + [1, 0]) - _apply(to_work, keys),
                                         _apply(to_work, keys + [0, 1]) - _apply(to_work, keys)], axis=-1)))
    anchor = keys[int(np.argmax(np.where(np.isfinite(jac), jac, 0)))] + 0.5
    return [fit(prior) for prior in priors]


def _apply(h: NDArray[Any], pts: NDArray[Any]) -> NDArray[Any]:
    """``pts`` (..., 2) mapped through the homography ``h``."""
    if pts.ndim >= 2 and pts.shape[-2] > 1 and pts.flags.c_contiguous:
        # `_apply_xy`'s quotients, written straight into the rows of points
        q = _mapped(h, pts)
        out: NDArray[Any] = np.empty(pts.shape, q.dtype if q.dtype.kind == "f" else np.float64)
        flat = out.reshape(-1, 2)
        np.divide(q[0], q[2], out=flat[:, 0])
        np.divide(q[1], q[2], out=flat[:, 1])
        return out
    p = pts @ h[:, :2].T + h[:, 2]
    single: NDArray[Any] = p[..., :2] / p[..., 2:3]
    return single


def _apply_xy(h: NDArray[Any], pts: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """``pts`` (..., 2; C-contiguous, two points or more to a block along the next to last axis) mapped through the
    homography ``h``: their x and their y apart (...), bit for bit `_apply`'s.

    The same products and sums as ``pts @ h[:, :2].T + h[:, 2]`` (one matrix product over all the points: the same
    sums in the same order as block by block), laid out one coordinate to a row, where the sums and the division run
    along whole rows rather than across three values.
    """
    q = _mapped(h, pts)
    return (q[0] / q[2]).reshape(pts.shape[:-1]), (q[1] / q[2]).reshape(pts.shape[:-1])


def _mapped(h: NDArray[Any], pts: NDArray[Any]) -> NDArray[Any]:
    """The homogeneous images (3, n) of ``pts`` (..., 2) under ``h``, before the division (`_apply_xy`)."""
    q: NDArray[Any] = h[:, :2] @ pts.reshape(-1, 2).T
    q[0] += h[0, 2]
    q[1] += h[1, 2]
    q[2] += h[2, 2]
    return q


def refine_seams(gray: NDArray[Any], cells: set[tuple[int, int]], to_work: NDArray[Any], rounds: int = 2) -> NDArray[Any] | None:
    """Fit the grid to the seams actually seen: a homography from grid units to ``gray``'s pixels.

    Along every seam between two candidate cells, a few points are searched across the
    seam (a quarter cell each way) for the strongest edge; a homography putting them on their lines (`line_fit`,
    held near the grid before: these seams are faint) corrects what the straight-line estimate of the perspective
    left over. The same cells in any order give the same fit.
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
    h, w = g.shape
    vertical = [(x + 1, y) for x, y in cells if (x + 1, y) in cells]
    horizontal = [(x, y + 1) for x, y in cells if (x, y + 1) in cells]
    if len(vertical) + len(horizontal) < 6:
        return None
    ts = np.array([0.2, 0.4, 0.6, 0.8])
    offs = np.linspace(-0.25, 0.25, 21)
    # every probe: (seams x 4 points, 21 offsets across the seam, 2) in grid units
    probes = []
    if vertical:
        v = np.asarray(vertical, np.float64)
        px = v[:, 0, None, None] + offs[None, None, :] + 0 * ts[None, :, None]
        py = v[:, 1, None, None] + ts[None, :, None] + 0 * offs[None, None, :]
        probes.append(np.stack([px, py], axis=-1).reshape(-1, len(offs), 2))
    if horizontal:
        hz = np.asarray(horizontal, np.float64)
        px = hz[:, 0, None, None] + ts[None, :, None] + 0 * offs[None, None, :]
        py = hz[:, 1, None, None] + offs[None, None, :] + 0 * ts[None, :, None]
        probes.append(np.stack([px, py], axis=-1).reshape(-1, len(offs), 2))
    pts = np.concatenate(probes)
    centre = pts[:, len(offs) // 2]
    current = to_work
    for _ in range(rounds):
        img = _apply(current, pts)
        xi, yi = img[..., 0], img[..., 1]
        inside = (xi.min(axis=1) >= 1) & (yi.min(axis=1) >= 1) & (xi.max(axis=1) <= w - 2) & (yi.max(axis=1) <= h - 2)
        img, src = img[inside], centre[inside]
        if not len(img):
            return None if current is to_work else current
        vals = g[np.round(img[..., 1]).astype(np.intp), np.round(img[..., 0]).astype(np.intp)]
        step = np.abs(np.diff(vals, axis=1))
        # a seam is a step or a thin line: the larger of the edge strength and the line's depth
        line = np.abs(vals[:, 1:-1] - 0.5 * (vals[:, :-2] + vals[:, 2:]))
        score = np.maximum(step[:, :-1], line)
        k = np.argmax(score, axis=1)
        rows = np.arange(len(k))
        good = score[rows, k] >= 4.0
        dst = 0.5 * (img[rows, k] + img[rows, k + 1])
        src, dst = src[good], dst[good]
        if len(src) < 12:
            return None if current is to_work else current
        fit = line_fit(src, dst, current, prior=REFINE_PRIOR)
        if fit is None or fit[1] < 0.4 * len(src):
            return None if current is to_work else current
        current = fit[0]
    out: NDArray[Any] = current
    return out


def _line_residuals(ph: NDArray[Any], g: NDArray[Any], is_u: NDArray[Any], denom: NDArray[Any],
                    line: NDArray[Any]) -> NDArray[Any]:
    """How far (in cells) each point ``ph`` (homogeneous) lies off its ``line`` under the map ``g`` (photo -> grid
    units): across u where ``is_u``, across v elsewhere; ``denom``: the points' third coordinates under ``g``."""
    out: NDArray[Any] = np.where(is_u, ph @ g[0], ph @ g[1])
    out /= denom
    out -= line
    return out


def _normaliser(pts: NDArray[Any]) -> NDArray[Any]:
    """The similarity taking ``pts`` to mean 0 and mean distance sqrt(2) from it."""
    mid = pts.mean(axis=0)
    s = float(np.sqrt(2.0) / (np.hypot(*(pts - mid).T).mean() + 1e-12))
    return np.array([[s, 0.0, -s * mid[0]], [0.0, s, -s * mid[1]], [0.0, 0.0, 1.0]])


#: how far from its line (in cells) a seam point still counts in each round of the line fit (Tukey's weights)
LINE_TOLS = (0.25, 0.15, 0.1, 0.06, 0.06)
#: how firmly the line fit is held near the lattice before, against the points' own weight (it keeps a fit with
#: few points well posed)
LINE_PRIOR = 0.01
#: ... held firmer where the seams are sought at the working scale, fainter and fewer (`refine_seams`)
REFINE_PRIOR = 1.0
#: a seam point within this much of a cell of its line fits it
LINE_INLIER = 0.06


def line_fit(src: NDArray[Any], dst: NDArray[Any], start: NDArray[Any], affine: bool = False,
             prior: float = LINE_PRIOR) -> tuple[NDArray[Any], int] | None:
    """The lattice (grid units -> pixels) whose lines pass through the seams seen, starting from ``start``: ``(lattice,
    points within LINE_INLIER of a cell of their line)``, or None when the fit breaks down.

    Each point of ``src`` lies on a lattice line in grid units (one coordinate whole: the line) and ``dst`` is where
    that line was seen in the photo. Only the distance across its line counts (a seam is searched across, not along:
    the point's place along the line is the old lattice's guess and says nothing). The photo -> grid map is fitted
    by least squares, the points weighted by how near their line they lie under the fit before (Tukey's weights,
    the reach narrowing round by round: `LINE_TOLS`); ``affine`` keeps the map affine. The points are sorted
    first, so their order changes nothing, bit for bit.
    """
    if len(src) < 8:
        return None
    across = np.where(np.abs(src[:, 0] - np.round(src[:, 0])) < 1e-9, 0, 1)
    order = np.lexsort((dst[:, 1], dst[:, 0], src[:, 1], src[:, 0], across))
    src, dst, across = src[order], dst[order], across[order]
    # (sorted on ``across`` first: the points on lines along v, across u, lead)
    n, n_u = len(src), int(np.count_nonzero(across == 0))
    line = np.round(np.concatenate((src[:n_u, 0], src[n_u:, 1])))
    t = _normaliser(dst)
    p = _apply(t, dst)
    ph = np.column_stack((p, np.ones(n)))
    g = np.linalg.inv(t @ start)
    if not np.isfinite(g).all() or abs(g[2, 2]) < 1e-12:
        return None
    g = g / g[2, 2]
    # the map's first (or second) row times the point, less the line times its third row, is 0 on the line;
    # divided by the third row's value the residual is in cells (each round weighs these rows anew)
    k = 6 if affine else 8
    design = np.zeros((n, k))
    design[:n_u, 0:3] = ph[:n_u]
    design[n_u:, 3:6] = ph[n_u:]
    if not affine:
        design[:, 6:] = -line[:, None] * p
    # the weighted rows over the prior's (the prior's diagonal rewritten each round), and their right-hand side
    stacked, rhs = np.zeros((n + k, k)), np.empty(n + k)
    diagonal = stacked[n:].reshape(-1)[:: k + 1]
    tail = np.array([0.0, 0.0, 1.0]) if affine else np.array([1.0])
    is_u = np.arange(n) < n_u
    for tol in LINE_TOLS:
        denom = ph @ g[2]
        if not (denom > 1e-9).all():
            return None
        r = _line_residuals(ph, g, is_u, denom, line)
        w = np.where(np.abs(r) < tol, (1 - (r / tol) ** 2) ** 2, 0.0)
        held = w > 0
        n_held = int(np.count_nonzero(held))
        n_held_u = int(np.count_nonzero(held[:n_u]))
        if n_held < 8 or n_held_u < 3 or n_held - n_held_u < 3:
            return None
        scale = w / denom
        lam = prior * np.sqrt(float(n_held))
        np.multiply(design, scale[:, None], out=stacked[:n])
        diagonal[:] = lam
        np.multiply(line, scale, out=rhs[:n])
        np.multiply(lam, g[:2].ravel() if affine else g.ravel()[:8], out=rhs[n:])
        x = np.linalg.lstsq(stacked, rhs, rcond=None)[0]
        g = np.concatenate([x, tail]).reshape(3, 3)
        if not np.isfinite(g).all():
            return None
    denom = ph @ g[2]
    if not (denom > 1e-9).all():
        return None
    r = _line_residuals(ph, g, is_u, denom, line)
    out: NDArray[Any] = np.linalg.inv(g @ t)
    if not np.isfinite(out).all():
        return None
    return out / out[2, 2], int((np.abs(r) < LINE_INLIER).sum())
