"""A seat board that one decoded marker placed, fitted again to its printed outline.

One small marker fixes a board's turn badly: a board 280 mm wide placed by its 28 mm
marker alone may lie 10 to 30 mm off at its far end, enough to read a card on the wrong
space. The board's paper edges are long straight lines: each edge is searched across,
within `SEARCH_MM` of where the marker's pose puts it, for the step from the table to
the brighter paper, and a line is fitted to the steps found along it. The pose is taken
only when the outline fits clearly: all of its edges found, each by most of the points
along it that lie in the frame, the corners where they meet as far apart as the printed
board's (`SIZE_MM`), and the decoded marker left where it was measured (`MARKER_MM`).
Otherwise the marker's pose is kept, as it was.

The vision core imports no game: the board's outline is given (board mm, a convex polygon).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Calibration, ChartPose, _similarity
from vision.geometry import Image

__all__ = ["MARKER_MM", "SEARCH_MM", "SIZE_MM", "outline_pose"]

#: each edge is searched this far (mm) to either side of where the marker's pose puts it
SEARCH_MM = 30.0
#: sampling steps along an edge and across it (mm); the step is measured over `STEP_MM`
ALONG_MM = 5.0
ACROSS_MM = 0.5
STEP_MM = 1.0
#: points of an edge nearer than this (mm) to a corner are not sampled (the neighbouring edge's step)
CORNER_GAP_MM = 12.0
#: a point's step counts when the paper is brighter than the table by at least this (grey levels)
MIN_STEP = 12.0
#: a point lies on an edge's line within this (mm); an edge is found when at least `MIN_SHARE` of its
#: points in the frame (and at least `MIN_POINTS`) do
LINE_MM = 1.5
MIN_SHARE = 0.4
MIN_POINTS = 10
#: the fitted outline's sides may differ from the printed ones by this (mm)
SIZE_MM = 2.5
#: the refit may move the decoded marker's corners at most this far (mm): one marker fixes its own place well
MARKER_MM = 6.0


def _edge_line(gray: Image, calibration: Calibration, a: NDArray[Any], b: NDArray[Any],
               inward: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """The paper edge near table segment ``a``-``b`` (``inward``: unit normal towards the paper), as
    (point, unit direction) in table mm, or None when it is not found clearly."""
    length = float(np.hypot(*(b - a)))
    along = (b - a) / length
    ts = np.arange(CORNER_GAP_MM, length - CORNER_GAP_MM + 1e-9, ALONG_MM)
    ds = np.arange(-SEARCH_MM, SEARCH_MM + 1e-9, ACROSS_MM)
    if len(ts) < MIN_POINTS:
        return None
    pts = a + ts[:, None, None] * along + ds[None, :, None] * inward  # (points, offsets, 2)
    img = cv2.perspectiveTransform(pts.reshape(1, -1, 2), calibration.table_to_image)[0]
    h, w = gray.shape[:2]
    inside = ((img[:, 0] >= 1) & (img[:, 0] < w - 2) & (img[:, 1] >= 1) & (img[:, 1] < h - 2)).reshape(len(ts), len(ds))
    maps = img.reshape(len(ts), len(ds), 2).astype(np.float32)
    prof = cv2.remap(gray, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR).astype(np.float32)
    k = int(round(STEP_MM / ACROSS_MM))
    step = prof[:, 2 * k:] - prof[:, :-2 * k]  # paper (further inward) minus table, centred at offset k
    ok = inside[:, 2 * k:] & inside[:, :-2 * k]
    step[~ok] = -np.inf
    rows = np.flatnonzero(inside.all(axis=1))
    if len(rows) < MIN_POINTS:
        return None
    best = np.argmax(step[rows], axis=1)
    strong = step[rows, best] >= MIN_STEP
    found = a + ts[rows][:, None] * along + ds[best + k][:, None] * inward
    found = found[strong]
    if len(found) < MIN_POINTS:
        return None
    # the line most found points lie on: every pair's line far enough apart tried at once, then refitted
    n = len(found)
    i, j = np.triu_indices(n, max(1, n // 3))
    d = found[j] - found[i]
    d /= np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1)
    near = np.abs(np.einsum("pk,pnk->pn", normal, found[None] - found[i][:, None])) <= LINE_MM
    best_in = near[int(np.argmax(near.sum(axis=1)))]
    if int(best_in.sum()) < max(MIN_POINTS, MIN_SHARE * len(rows)):
        return None
    vx, vy, x0, y0 = cv2.fitLine(found[best_in].astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _meet(p: NDArray[Any], u: NDArray[Any], q: NDArray[Any], v: NDArray[Any]) -> NDArray[Any] | None:
    """Where line p + s u meets line q + t v; None for (nearly) parallel lines."""
    m = np.array([[u[0], -v[0]], [u[1], -v[1]]])
    if abs(float(np.linalg.det(m))) < 0.5:  # they must cross at more than 30 degrees
        return None
    s, _ = np.linalg.solve(m, q - p)
    out: NDArray[Any] = p + s * u
    return out


def outline_pose(gray: Image, calibration: Calibration, pose: ChartPose, outline: Sequence[tuple[float, float]],
                 marker: Sequence[tuple[float, float]]) -> ChartPose | None:
    """``pose`` (placed by the one decoded marker whose board corners are ``marker``) fitted again to the
    board's printed ``outline`` (board mm, convex, either turn) as the grey frame shows it; None when the
    outline does not fit clearly (see the module docstring)."""
    poly = np.array(outline, np.float64)
    m = pose.chart_to_table
    table = poly @ m[:2, :2].T + m[:2, 2]
    centre = table.mean(axis=0)
    lines = []
    for i in range(len(table)):
        a, b = table[i], table[(i + 1) % len(table)]
        d = (b - a) / max(float(np.hypot(*(b - a))), 1e-9)
        inward = np.array([-d[1], d[0]])
        if float((centre - a) @ inward) < 0:
            inward = -inward
        line = _edge_line(gray, calibration, a, b, inward)
        if line is None:
            return None
        lines.append(line)
    corners = []
    for i in range(len(lines)):
        c = _meet(*lines[i - 1], *lines[i])
        if c is None:
            return None
        corners.append(c)
    found = np.array(corners)
    sides = np.linalg.norm(found - np.roll(found, -1, axis=0), axis=1)
    printed = np.linalg.norm(poly - np.roll(poly, -1, axis=0), axis=1)
    if float(np.max(np.abs(sides - printed))) > SIZE_MM:
        return None
    fit = _similarity(poly, found)
    if abs(float(np.sqrt(abs(np.linalg.det(fit[:2, :2])))) - 1.0) > 0.02:
        return None
    mk = np.array(marker, np.float64)
    moved = (mk @ fit[:2, :2].T + fit[:2, 2]) - (mk @ m[:2, :2].T + m[:2, 2])
    if float(np.max(np.linalg.norm(moved, axis=1))) > MARKER_MM:
        return None
    return ChartPose(pose.seat, fit, np.linalg.inv(fit), pose.markers_seen)
