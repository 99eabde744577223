"""Enrolled decks: a family's own components, recognised by their nearest prototypes.

A deck is built from photos of single components lying on a table (phone photos:
tilted, rotated, blurred, with glare). For each photo the component is found as the
largest card- or tile-shaped quadrilateral (or disc, for round tokens), rectified, and
cut to the face field the table recogniser hands its classifier (`ComponentShape`).
Each such view is widened by synthetic variations (turns, small shifts and warps,
exposure, white balance, blur, glare, noise) and every variation becomes a prototype:
the crop's embedding by the shipped Big Top classifier's penultimate layer
(`describe`: the activation map of its next-to-last convolution; measured in
``benchmarks/bench_enroll.py`` to separate art it never saw better than gradient and
colour histograms or its pooled penultimate layer), projected by a discriminant learnt from
the deck's own prototypes (`discriminant`: the variations of one component close
together, the components apart).

Beside the prototypes a deck keeps each photo's plain views (at 24 angles for a disc) as
templates for a second, independent cue (`TemplateCue`): the crop's correlation with each
label's templates, after taking the camera's colour cast, shading and glare out of both and
blurring each template as much as the crop is blurred, the crop shifted a few pixels. The
embedding tells pip counts apart, the templates suits and shades under blur: a crop is
recognised as the label nearest by the two together (`Deck.scores`) when it is clearly nearer
than the next label, correlates well with its own templates and is near it by the embedding
too; a crop just short of these tests is looked at again moved by a few per cent, and accepted only
as the same label under stricter tests. The template cue takes the colour cast out, and with it most
of what tells apart two labels printed alike in different colours (tokens of one design); a third cue
(`ColourCue`) keeps the hues, each crop balanced against its own paper white, and settles a crop short of
the ratio test as whichever label within that test is near by hue, every other far, when that label
passes the other tests. A crop still unsure is also looked at moved by a tenth of its width (a card on
a pile read from an outline around the pile), and one clear look names its label. A deck without
templates (built by descriptors alone) keeps the tests below.

A crop is recognised as the label of its nearest prototype when that prototype is
near enough (a distance bound learnt from the deck's own prototypes) and clearly
nearer than the nearest prototype of any other label (a ratio test). A crop that
fails is looked at again shifted and scaled by a few per cent (the table's outline
may be a little off), under stricter tests and only to confirm the same label; a crop
far blurrier than the enrolled views, or with far less print (a hand, bare table, glare),
is never accepted, nor a match near both its limits at once. Otherwise it is reported unsure.
`Deck.classify` has the interface of `vision.classify.Classifier`, so a recogniser takes
a deck in place of its shipped model.

Only numpy, OpenCV and onnxruntime are needed: a deck is built and used on a Pi.

>>> shape = ComponentShape(width=57.0, height=88.0, inset=4.2)
>>> round(shape.aspect, 3)
1.544
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import VisionError
from vision.classify import Recognition, Verdict

__all__ = [
    "DESCRIPTOR_VERSION",
    "ComponentShape",
    "Deck",
    "DeckError",
    "EnrolledView",
    "build_deck",
    "deck_home",
    "describe",
    "detail",
    "detail_over",
    "enrol_photo",
    "find_component",
    "flattened",
    "list_decks",
    "load_deck",
    "resolve_deck",
    "save_deck",
    "sharpness",
    "variations",
]

FloatArray = NDArray[Any]
Image = NDArray[Any]

#: Changes whenever `describe` changes: a deck built with another version is refused.
DESCRIPTOR_VERSION = 4
#: Synthetic variations per enrolled view and turn (the first is the view itself).
VARIATIONS = 16
#: Photos are searched for their component at most this many pixels across.
_SEARCH_PX = 960
#: The deck files inside a deck folder.
CARD_FILE = "deck.json"
PROTOTYPES_FILE = "prototypes.npz"
LABELS_FILE = "labels.txt"
README_FILE = "DECK.md"


class DeckError(VisionError):
    """A deck folder that is missing, incomplete, for another game or of another version."""


@dataclass(frozen=True, slots=True)
class ComponentShape:
    """A component's printed outline and the part of it the classifier sees.

    ``width`` x ``height`` (mm) is the outline (a card's short side is its width);
    ``inset`` (mm) is the border between the outline and the face field that the
    table recogniser crops. ``round`` components are discs of diameter ``width``.
    ``turns``: how the recogniser may see the face: 1 (upright only: tiles laid one way, and
    photographed so), 2 (upright or upside down: cards), 4 (any quarter turn: square tiles)
    or 0 (any angle: round tokens).
    """

    width: float
    height: float
    inset: float = 0.0
    round: bool = False
    turns: int = 2

    @property
    def aspect(self) -> float:
        """Long side over short side of the outline."""
        return max(self.width, self.height) / min(self.width, self.height)

    def face_box(self) -> FloatArray:
        """The face field's corners in outline-relative units (0..1), TL, TR, BR, BL."""
        fx, fy = self.inset / self.width, self.inset / self.height
        return np.array([[fx, fy], [1 - fx, fy], [1 - fx, 1 - fy], [fx, 1 - fy]], np.float64)


# --------------------------------------------------------------------------------------------
# finding the one component in a photo


def _order(quad: FloatArray) -> FloatArray:
    """Corners clockwise from the top-left, the first edge (TL -> TR) along a short side."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    q = np.roll(q, -start, axis=0)
    top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
    side = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
    if top > side:
        q = np.roll(q, -1, axis=0)
    return np.asarray(q, np.float64)


def _quad_of(contour: NDArray[Any]) -> FloatArray:
    """Four corners of a roughly quadrilateral outline (its hull simplified, else its rotated box)."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.045, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
    return np.asarray(cv2.boxPoints(cv2.minAreaRect(hull)), np.float64)


def _masks(small: Image) -> list[Image]:
    """Foreground masks that may hold the component: several cues, since tables and art vary."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    b = max(2, min(h, w) // 40)
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    table = np.median(border, axis=0)
    dist = np.sqrt(((lab - table) ** 2).sum(axis=2))
    dist8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, by_colour = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.5)
    med = float(np.median(gray))
    edges = cv2.Canny(gray, max(5.0, 0.4 * med), max(15.0, 1.0 * med))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8), iterations=2)
    _, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    kernel = np.ones((5, 5), np.uint8)
    out = []
    for m in (by_colour, bright, 255 - bright):
        out.append(cv2.morphologyEx(cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel))
    out.append(edges)
    return out


def find_component(photo: Image, shape: ComponentShape) -> FloatArray | None:
    """The outline of the single component in ``photo``: 4 corners (photo pixels) or None.

    Corners run clockwise from the top-left with the first edge along a short side (for a
    disc: the corners of the square around it, as seen in the photo; for a square: from the
    corner nearest the photo's top-left). The component must
    be the main thing in the photo: the largest outline of its shape (within the
    perspective of a tilted phone) covering 2% to 95% of the frame.
    """
    if photo.ndim == 2:
        photo = cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR)
    h, w = photo.shape[:2]
    scale = min(1.0, _SEARCH_PX / max(h, w))
    small = cv2.resize(photo, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1 else photo
    sh, sw = small.shape[:2]
    frame_area = float(sh * sw)
    best: tuple[float, FloatArray] | None = None
    masks = _masks(small)
    if not shape.round and shape.aspect < 1.05:
        # a square tile's parts may differ from the table each in its own way (a light field, a dark road or
        # site as dark as the table), so that no mask holds the whole tile: each mask closed over such gaps,
        # its outlines filled, may
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(5, min(sh, sw) // 20),) * 2)
        for m in masks[:3]:
            outer, _ = cv2.findContours(cv2.morphologyEx(m, cv2.MORPH_CLOSE, k), cv2.RETR_EXTERNAL,
                                        cv2.CHAIN_APPROX_SIMPLE)
            filled = np.zeros_like(m)
            cv2.drawContours(filled, outer, -1, 255, -1)
            masks.append(filled)
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for c in contours:
            hull = cv2.convexHull(c)
            area = float(cv2.contourArea(hull))
            if not 0.02 * frame_area <= area <= 0.95 * frame_area or len(hull) < 5:
                continue
            if best is not None and area < best[0]:
                continue
            x, y, bw, bh = cv2.boundingRect(hull)
            if x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1:
                continue  # cut by the frame edge: not the whole component
            tries = [] if shape.round else [_sides_quad(c, area)]
            tries.append(_refine(c, _rough_quad(hull, shape), shape))
            for quad in tries:
                if quad is None:
                    continue
                quad_area = float(cv2.contourArea(quad.astype(np.float32)))
                if best is not None and quad_area <= best[0]:
                    continue
                if _fits(c, quad, quad_area, area, shape, (sh, sw)):
                    best = (quad_area, quad)
                    break
    if best is None:
        return None
    found: FloatArray = best[1] / scale
    if not shape.round and shape.aspect < 1.05:
        # a square has no short side: its first corner is the photo's top-left, so a tile photographed upright
        # (Grand Carnival's, laid one way only) is cut upright, never a quarter turn off
        found = np.roll(found, -int(np.argmin(found.sum(axis=1))), axis=0)
    return found


def _ellipse_quad(cx: float, cy: float, a: float, b: float, ang: float) -> FloatArray:
    """The corners of the box around an ellipse (OpenCV's full axes ``a``, ``b`` and angle in degrees)."""
    t = math.radians(ang)
    ux, uy = math.cos(t) * a / 2, math.sin(t) * a / 2
    vx, vy = -math.sin(t) * b / 2, math.cos(t) * b / 2
    quad = np.array([[cx - ux - vx, cy - uy - vy], [cx + ux - vx, cy + uy - vy],
                     [cx + ux + vx, cy + uy + vy], [cx - ux + vx, cy - uy + vy]], np.float64)
    return _order(quad)


def _ransac_line(pts: FloatArray, rng: np.random.Generator, min_gap: float, tol: float,
                 tries: int = 120) -> NDArray[np.bool_] | None:
    """The points within ``tol`` of the line through the best of ``tries`` random pairs ``min_gap`` apart."""
    i = rng.integers(0, len(pts), tries)
    j = rng.integers(0, len(pts), tries)
    p, q = pts[i], pts[j]
    gap = np.linalg.norm(q - p, axis=1)
    ok = gap >= min_gap
    if not ok.any():
        return None
    p, q, gap = p[ok], q[ok], gap[ok]
    normal = np.stack([-(q - p)[:, 1], (q - p)[:, 0]], axis=1) / gap[:, None]
    # distance of every point to every line: |n . x - n . p|
    dist = np.abs(normal @ pts.T - (normal * p).sum(axis=1)[:, None])
    inliers = dist < tol
    result: NDArray[np.bool_] = inliers[int(np.argmax(inliers.sum(axis=1)))]
    return result


def _sides_quad(contour: NDArray[Any], area: float) -> FloatArray | None:
    """The quadrilateral of the contour's four longest straight runs (two roughly parallel pairs), or None.

    Found one after the other (random pairs of points, the line with most points near it),
    so a glare spot or shadow joined to one side, which has no long straight run, does not
    move the corners.
    """
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) > 800:
        pts = pts[:: len(pts) // 800 + 1]
    rng = np.random.default_rng(0)
    size = math.sqrt(area)
    tol = max(1.2, 0.006 * size)
    lines: list[tuple[FloatArray, FloatArray]] = []
    left = pts
    for _ in range(4):
        if len(left) < 10:
            return None
        best = _ransac_line(left, rng, 0.15 * size, tol)
        if best is None or best.sum() < 8:
            return None
        sel = left[best]
        centre = sel.mean(axis=0)
        _, _, vt = np.linalg.svd(sel - centre)
        lines.append((centre, vt[0]))
        normal = np.array([-vt[0][1], vt[0][0]])
        left = left[np.abs((left - centre) @ normal) >= 2 * tol]
    angles = [math.atan2(d[1], d[0]) % math.pi for _, d in lines]

    def diff(a: float, b: float) -> float:
        x = abs(a - b) % math.pi
        return min(x, math.pi - x)

    pairings = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
    (a1, a2), (b1, b2) = min(pairings, key=lambda pr: diff(angles[pr[0][0]], angles[pr[0][1]])
                             + diff(angles[pr[1][0]], angles[pr[1][1]]))
    if diff(angles[a1], angles[a2]) > 0.5 or diff(angles[b1], angles[b2]) > 0.5:
        return None
    corners = []
    for i in (a1, a2):
        for j in (b1, b2):
            (p1, d1), (p2, d2) = lines[i], lines[j]
            m = np.array([d1, -d2]).T
            if abs(np.linalg.det(m)) < 0.3:
                return None
            t1, _ = np.linalg.solve(m, p2 - p1)
            corners.append(p1 + t1 * d1)
    hull = cv2.convexHull(np.asarray(corners, np.float32)).reshape(-1, 2)
    if len(hull) != 4:
        return None
    return _order(np.asarray(hull, np.float64))


def _rough_quad(hull: NDArray[Any], shape: ComponentShape) -> FloatArray:
    """A first outline from the hull: its fitted ellipse's box (discs) or its four main corners."""
    if shape.round:
        (cx, cy), (a, b), ang = cv2.fitEllipse(hull)
        return _ellipse_quad(cx, cy, a, b, ang)
    return _order(_quad_of(hull))


def _fits(contour: NDArray[Any], quad: FloatArray, quad_area: float, hull_area: float, shape: ComponentShape,
          size: tuple[int, int]) -> bool:
    """True when the outline has the component's shape and the blob fills it (a bump may stick out)."""
    if shape.round:
        quad_area *= math.pi / 4
    if quad_area < 0.55 * hull_area or quad_area > 1.1 * hull_area:
        return False
    side_a = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    side_b = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    ratio = max(side_a, side_b) / max(min(side_a, side_b), 1e-6)
    if shape.round:
        if ratio > 1.8:
            return False
    elif abs(ratio / shape.aspect - 1) > 0.3:
        return False
    blob = np.zeros(size, np.uint8)
    cv2.drawContours(blob, [contour], -1, 255, -1)
    inside = np.zeros(size, np.uint8)
    if shape.round:
        centre = quad.mean(axis=0)
        axes = (int(side_a / 2), int(side_b / 2))
        angle = math.degrees(math.atan2(quad[1][1] - quad[0][1], quad[1][0] - quad[0][0]))
        cv2.ellipse(inside, (int(centre[0]), int(centre[1])), axes, angle, 0, 360, 255, -1)
    else:
        cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
    want = max(int(np.count_nonzero(inside)), 1)
    return int(np.count_nonzero(blob & inside)) >= 0.88 * want


def _refine(contour: NDArray[Any], quad: FloatArray, shape: ComponentShape) -> FloatArray:
    """The outline fitted to the contour's straight runs (or its elliptic part), ignoring bumps.

    A glare spot or a shadow touching the component joins its blob and bends the hull;
    each side is fitted again to the longest straight run of contour points near it
    (a few random tries, the line with most points within a pixel or two), and a disc
    to the points nearest an ellipse after dropping the farthest ones.
    """
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) < 12:
        return quad
    if shape.round:
        keep = pts
        for _ in range(4):
            if len(keep) < 8:
                return quad
            (cx, cy), (a, b), ang = cv2.fitEllipse(keep.astype(np.float32))
            t = math.radians(ang)
            rel = keep - (cx, cy)
            u = (rel[:, 0] * math.cos(t) + rel[:, 1] * math.sin(t)) / max(a / 2, 1e-6)
            v = (-rel[:, 0] * math.sin(t) + rel[:, 1] * math.cos(t)) / max(b / 2, 1e-6)
            resid = np.abs(np.sqrt(u * u + v * v) - 1)
            keep = keep[resid <= np.percentile(resid, 85)]
        return _ellipse_quad(cx, cy, a, b, ang)
    rng = np.random.default_rng(0)
    short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    tol = max(1.2, 0.012 * short)
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        d = (b - a) / max(length, 1e-6)
        n = np.array([-d[1], d[0]])
        rel = pts - a
        along, across = rel @ d / max(length, 1e-6), rel @ n
        near = pts[(along > -0.05) & (along < 1.05) & (np.abs(across) < 0.25 * short)]
        if len(near) < 6:
            return quad
        best_in: NDArray[Any] | None = None
        for _ in range(40):
            i, j = rng.choice(len(near), 2, replace=False)
            p, q = near[i], near[j]
            if np.linalg.norm(q - p) < 0.2 * length:
                continue
            dd = (q - p) / np.linalg.norm(q - p)
            inl = np.abs((near - p) @ np.array([-dd[1], dd[0]])) < tol
            if best_in is None or inl.sum() > best_in.sum():
                best_in = inl
        if best_in is None or best_in.sum() < 6:
            return quad
        sel = near[best_in]
        centre = sel.mean(axis=0)
        _, _, vt = np.linalg.svd(sel - centre)
        lines.append((centre, vt[0]))
    corners: list[FloatArray] = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        t1, _ = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + t1 * d1)
    refined = np.asarray(corners, np.float64)
    ratio = float(cv2.contourArea(refined.astype(np.float32))) / max(float(cv2.contourArea(quad.astype(np.float32))), 1e-6)
    return _order(refined) if 0.7 <= ratio <= 1.1 else quad


# --------------------------------------------------------------------------------------------
# crops, variations, descriptors


def _turned(box: FloatArray, turn: int) -> FloatArray:
    """The face box's corners starting ``turn`` corners further on (a quarter turn each)."""
    return np.roll(box, -turn, axis=0)


def _rotated(box: FloatArray, degrees: float) -> FloatArray:
    c = box.mean(axis=0)
    t = math.radians(degrees)
    r = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray((box - c) @ r.T + c, np.float64)


def _glare(crop: FloatArray, rng: np.random.Generator) -> FloatArray:
    h, w = crop.shape[:2]
    disc = np.zeros((h, w), np.float32)
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    axes = (int(rng.uniform(0.15, 0.5) * w), int(rng.uniform(0.08, 0.3) * w))
    cv2.ellipse(disc, c, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    spot: FloatArray = cv2.GaussianBlur(disc, (0, 0), 0.3 * axes[1] + 1)
    out: FloatArray = crop + float(rng.uniform(60, 220)) * spot[:, :, None]
    return out


#: The variations' geometric jitter: scale, shift (share of the outline), turn (degrees), corner warp.
JITTER_SCALE = 0.04
JITTER_SHIFT = 0.025
JITTER_DEGREES = 3.0
JITTER_CORNER = 0.012


def variations(photo: Image, outline: FloatArray, shape: ComponentShape, crop_size: tuple[int, int],
               rng: np.random.Generator, count: int = VARIATIONS, angles: int = 8) -> Image:
    """Crops of the face field of the component outlined in ``photo``: every turn, ``count`` each.

    A round component's turns are ``angles`` angles evenly apart.

    The first crop of each turn is the plain view; the others add a small shift, scale,
    rotation and perspective warp of the crop, and exposure, white balance, gamma, blur,
    glare and noise. Returns ``(turns * count, H, W, 3)`` uint8 BGR.
    """
    w, h = crop_size
    if photo.ndim == 2:
        photo = cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_photo = cv2.getPerspectiveTransform(unit, outline.astype(np.float32))
    # shrink the photo so that the face is about twice the crop size: the warp then averages
    face_px = float(np.linalg.norm(outline[1] - outline[0])) * (1 - 2 * shape.inset / shape.width)
    shrink = min(1.0, 2.0 * w / max(face_px, 1.0))
    if shrink < 1.0:
        small = cv2.resize(photo, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        to_photo = np.diag([shrink, shrink, 1.0]) @ to_photo
    else:
        small = photo
    if shape.round:
        turns: list[tuple[int, float]] = [(0, float(a)) for a in np.linspace(0, 360, angles, endpoint=False)]
    else:
        turns = [(t, 0.0) for t in {1: (0,), 2: (0, 2)}.get(shape.turns, (0, 1, 2, 3))]
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    out = np.empty((len(turns) * count, h, w, 3), np.uint8)
    k = 0
    base = shape.face_box()
    for turn, angle in turns:
        for i in range(count):
            box = _turned(_rotated(base, angle), turn) if angle else _turned(base, turn)
            plain = i == 0
            if not plain:
                scale = rng.uniform(1 - JITTER_SCALE, 1 + JITTER_SCALE)
                c = box.mean(axis=0)
                box = (box - c) * scale + c + rng.uniform(-JITTER_SHIFT, JITTER_SHIFT, 2)
                box = _rotated(box, float(rng.uniform(-JITTER_DEGREES, JITTER_DEGREES)))
                box = box + rng.uniform(-JITTER_CORNER, JITTER_CORNER, box.shape)
            src = cv2.perspectiveTransform(box[None].astype(np.float32), to_photo)[0]
            m = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
            crop = cv2.warpPerspective(small, m, (w, h), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
            if not plain:
                crop = _photometric(crop, rng)
            out[k] = np.clip(crop + 0.5, 0, 255).astype(np.uint8)
            k += 1
    return out


def _photometric(crop: FloatArray, rng: np.random.Generator) -> FloatArray:
    """A crop as a table camera might see it: light, glare, lost resolution, blur, noise and JPEG."""
    h, w = crop.shape[:2]
    lin = (np.clip(crop, 0, 255) / 255.0) ** 2.2
    lin = lin * float(rng.uniform(0.4, 1.25)) * rng.uniform(0.78, 1.22, 3).astype(np.float32)
    out: FloatArray = (255.0 * np.clip(lin, 0, 1) ** (1 / 2.2)).astype(np.float32)
    if rng.random() < 0.35:
        out = _glare(out, rng)
    if rng.random() < 0.6:  # the table camera sees the face with fewer pixels than the crop has
        k = float(rng.uniform(0.45, 0.9))
        small = cv2.resize(out, (max(4, round(w * k)), max(4, round(h * k))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    sigma = float(rng.uniform(0.0, 1.4))
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.4:  # motion
        length = float(rng.uniform(1.5, 4.0))
        kernel = np.zeros((9, 9), np.float32)
        a = rng.uniform(0, math.pi)
        dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
        cv2.line(kernel, (round(4 - dx), round(4 - dy)), (round(4 + dx), round(4 + dy)), 1.0, 1, cv2.LINE_AA)
        out = cv2.filter2D(out, -1, kernel / max(float(kernel.sum()), 1e-6), borderType=cv2.BORDER_REFLECT)
    out = out + rng.normal(0.0, float(rng.uniform(0.0, 7.0)), out.shape).astype(np.float32)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", np.clip(out + 0.5, 0, 255).astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded.astype(np.float32)
    result: FloatArray = out
    return result


#: The shipped model whose next-to-last layer describes crops (it separates art it never saw): the Big Top
#: classifier as it was before card face print 2, kept apart from the one that reads the shipped cards so that a
#: deck's prototypes and the thresholds below stay in the space they were made in (`models/enroll_embedder.md`).
EMBEDDING_MODEL = "enroll_embedder.onnx"
#: How the activation maps of such a model's convolutions are named; the next-to-last one is used.
_ACTIVATION_NAME = re.compile(rb"/[\w./]*Relu_output_0")
#: Input size of the embedding model (width, height): crops of other sizes are resized.
_EMBED_SIZE = (40, 56)


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            low, n = n & 0x7F, n >> 7
            out.append(low | (0x80 if n else 0))
            if not n:
                return bytes(out)

    return varint(number << 3 | 2) + varint(len(payload)) + payload


class Embedder:
    """The activation map of a shipped classifier's next-to-last convolution: crops -> unit vectors.

    The map keeps where on the face each feature lies (a 7 x 5 grid of 80 features for
    the Big Top model), which tells layouts such as pip counts apart far better than the
    pooled penultimate layer (measured on the Midway deck: 97.9% against 89.5% nearest
    neighbours right on table crops). The model file lists only its class probabilities
    as an output; the map is exposed by appending one more graph output to the
    serialised model (protobuf merges
    a repeated message field: ``ModelProto.graph.output += [ValueInfoProto(name)]``),
    so neither torch nor the onnx package is needed.

    :raises DeckError: when the model is missing or has no such layer.
    """

    def __init__(self, model: Path | None = None) -> None:
        import onnxruntime as ort  # type: ignore[import-untyped]

        import models

        path = model if model is not None else models.path(EMBEDDING_MODEL)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise DeckError(f"cannot read the model {path}: {exc.strerror or exc}") from None
        maps = list(dict.fromkeys(m.group(0) for m in _ACTIVATION_NAME.finditer(raw)))
        if len(maps) < 2:
            raise DeckError(f"the model {path.name} has no layer to enrol with")
        name = maps[-2]
        self.output = name.decode()
        self.digest = hashlib.sha256(raw).hexdigest()[:16]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(raw + _field(7, _field(12, _field(1, name))), opts,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise DeckError(f"cannot load the model {path}: {exc}") from None
        self.input = self.session.get_inputs()[0].name

    def __call__(self, crops: Image) -> FloatArray:
        """``(N, H, W, 3)`` uint8 BGR crops -> ``(N, D)`` float32 unit vectors."""
        w, h = _EMBED_SIZE
        if crops.shape[1:3] != (h, w):
            crops = np.stack([cv2.resize(c, (w, h), interpolation=cv2.INTER_AREA) for c in crops])
        parts = []
        for k in range(0, len(crops), 256):
            x = np.ascontiguousarray(crops[k:k + 256].transpose(0, 3, 1, 2), dtype=np.float32)
            parts.append(np.asarray(self.session.run([self.output], {self.input: x})[0], np.float32))
        e = np.concatenate(parts).reshape(len(crops), -1)
        out: FloatArray = e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-6)
        return out


@functools.lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The embedder of the shipped model, loaded once."""
    return Embedder()


def describe(crops: Image) -> FloatArray:
    """Descriptors of ``(N, H, W, 3)`` uint8 BGR crops: the shipped model's embedding, unit length."""
    if len(crops) == 0:
        return np.zeros((0, 1), np.float32)
    return default_embedder()(crops)


def discriminant(descriptors: FloatArray, owners: NDArray[np.int32], dims: int = 128,
                 shrink: float = 0.1, sketch: int = 1024) -> tuple[FloatArray, FloatArray]:
    """A projection that spreads the labels apart and squeezes each label's variations together.

    The descriptors are first cut down to ``sketch`` dimensions by a fixed random
    projection (distances keep; the scatter matrices then stay small enough for a Pi),
    then regularised linear discriminant analysis of the prototypes: the within-label
    scatter (what the synthetic variations change) is whitened, and the directions along
    which the label means differ most come first. Returns the mean ``(D,)`` and the
    projection ``(D, dims)``.
    """
    d = descriptors.shape[1]
    rng = np.random.default_rng(20251126)
    sketch_m = (rng.standard_normal((d, sketch)) / math.sqrt(sketch)) if d > sketch else np.eye(d)
    mean = descriptors.astype(np.float64).mean(axis=0)
    x = (descriptors - mean) @ sketch_m
    k = x.shape[1]
    labels = np.unique(owners)
    means = np.zeros((int(owners.max()) + 1, k))
    for c in labels:
        means[c] = x[owners == c].mean(axis=0)
    within = x - means[owners]
    sw = within.T @ within / len(x)
    sw += shrink * np.trace(sw) / k * np.eye(k)
    counts = np.bincount(owners, minlength=len(means))[labels]
    between = means[labels] * np.sqrt(counts / len(x))[:, None]
    sb = between.T @ between
    evals, evecs = np.linalg.eigh(sw)
    whiten = evecs / np.sqrt(np.maximum(evals, 1e-12))
    _, rot = np.linalg.eigh(whiten.T @ sb @ whiten)
    proj = sketch_m @ whiten @ rot[:, ::-1][:, :min(dims, k)]
    return mean.astype(np.float32), proj.astype(np.float32)


# --------------------------------------------------------------------------------------------
# the deck


@dataclass(slots=True)
class Deck:
    """An enrolled deck: prototypes per label and the tests a match must pass.

    ``card`` is what the deck says about itself (game, name, photos, held-back accuracy);
    it is written beside the prototypes as ``deck.json``.
    """

    game: str
    name: str
    labels: tuple[str, ...]
    #: ``(P, K)`` prototypes (descriptors projected by ``mean`` and ``projection``) and the
    #: index into ``labels`` of each
    prototypes: FloatArray
    owners: NDArray[np.int32]
    #: ``(D,)`` and ``(D, K)``: descriptor -> the deck's space (`discriminant`)
    mean: FloatArray
    projection: FloatArray
    #: a match is accepted when nearer than this ...
    max_distance: float
    #: ... and nearer than this share of the distance to any other label's nearest prototype
    max_ratio: float
    crop_size: tuple[int, int]
    card: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    #: which of its label's photos each prototype comes from (0, 1, ...); None: one photo each
    photo_of: NDArray[np.int32] | None = None
    #: the median `sharpness` of the enrolled plain views; a crop far blurrier is held unsure (None: no test)
    sharpness: float | None = None
    #: the median `detail` of the enrolled plain views; a crop with far less print is held unsure
    detail: float | None = None
    #: ``(T, H, W, 3)`` uint8 plain views for the template cue (`TemplateCue`) and the label index of
    #: each; None: the deck matches by descriptors alone
    templates: Image | None = None
    template_owners: NDArray[np.int32] | None = None
    _cue: TemplateCue | None = field(default=None, init=False, repr=False)
    _colour: ColourCue | None = field(default=None, init=False, repr=False)

    @property
    def cue(self) -> TemplateCue | None:
        """The template cue of the deck's templates (built on first use), None without templates."""
        if self._cue is None and self.templates is not None and self.template_owners is not None:
            self._cue = TemplateCue(self.templates, self.template_owners, len(self.labels))
        return self._cue

    @property
    def colour_cue(self) -> ColourCue | None:
        """The colour cue of the deck's templates (built on first use), None without templates."""
        if self._colour is None and self.templates is not None and self.template_owners is not None:
            self._colour = ColourCue(self.templates, self.template_owners, len(self.labels))
        return self._colour

    @property
    def judges_blur(self) -> bool:
        """True when the deck's own tests tell blurred crops apart (it has templates, blurred to match each
        crop): a recogniser then leaves its verdicts on blurred crops as they are."""
        return self.templates is not None

    def scores(self, crops: Image, among: NDArray[np.bool_] | None = None,
               ) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """For each crop and label: the distance the tests use, the template correlation (None without
        templates; -1 outside the candidates) and the embedding distance over ``max_distance``.

        With templates, the distance is the embedding's plus `TEMPLATE_WEIGHT` times one less the
        correlation, for the `CANDIDATES` labels nearest by embedding (others: as if uncorrelated).
        ``among`` (one flag per label): only these labels are compared; the others lie infinitely far.
        """
        emb = self.label_distances(self.project(describe(crops)))
        if among is not None:
            emb = np.where(among[None, :], emb, np.inf).astype(np.float32)
        cue = self.cue
        if cue is None:
            return emb, None, emb / max(self.max_distance, 1e-9)
        near = emb / max(self.max_distance, 1e-9)
        k = min(CANDIDATES, len(self.labels))
        candidates = np.zeros(near.shape, bool)
        np.put_along_axis(candidates, np.argpartition(near, k - 1, axis=1)[:, :k], True, axis=1)
        tm = cue.scores(crops, candidates)
        fused: FloatArray = near + TEMPLATE_WEIGHT * (1.0 - tm)
        return fused, tm, near

    def distances(self, crops: Image) -> tuple[NDArray[np.int32], FloatArray, FloatArray]:
        """For each crop: the nearest label's index, its distance and the next label's distance."""
        if len(crops) == 0:
            return np.zeros(0, np.int32), np.zeros(0), np.zeros(0)
        per_label = self.scores(crops)[0]
        order = np.argsort(per_label, axis=1)
        best = order[:, 0].astype(np.int32)
        rows = np.arange(len(crops))
        d1 = per_label[rows, best]
        d2 = per_label[rows, order[:, 1]] if len(self.labels) > 1 else np.full(len(crops), np.inf)
        return best, d1.astype(np.float64), np.asarray(d2, np.float64)

    def label_distances(self, points: FloatArray) -> FloatArray:
        """``(N, labels)``: for each point of the deck's space, its distance to each label.

        A label's distance is the mean, over the label's photos, of the distance to the
        nearest prototype of that photo's variations: a crop must look like every photo
        of its component, not like one odd variation of one photo.
        """
        protos = self.prototypes.astype(np.float32)
        d = points.astype(np.float32)
        sq = (d * d).sum(1)[:, None] + (protos * protos).sum(1)[None, :] - 2.0 * d @ protos.T
        dist = np.sqrt(np.maximum(sq, 0.0))
        n, labels = len(d), len(self.labels)
        photos = 1 if self.photo_of is None or not len(self.photo_of) else int(self.photo_of.max()) + 1
        key = self.owners * photos + (0 if photos == 1 or self.photo_of is None else self.photo_of)
        per_key = np.full((n, labels * photos), np.inf, np.float32)
        np.minimum.at(per_key.T, key, dist.T)
        by_photo = per_key.reshape(n, labels, photos)
        seen = np.isfinite(by_photo)
        counts = seen.sum(axis=2)
        total = np.where(seen, by_photo, 0.0).sum(axis=2)
        out: FloatArray = np.where(counts > 0, total / np.maximum(counts, 1), np.inf).astype(np.float32)
        return out

    def project(self, descriptors: FloatArray) -> FloatArray:
        """Descriptors ``(N, D)`` in the deck's space ``(N, K)``."""
        out: FloatArray = (descriptors - self.mean) @ self.projection
        return out

    def classify(self, crops: Image, threshold: float = 0.0) -> list[Recognition]:
        """One `Recognition` per crop: IDENTIFIED when the nearest label passes both tests, else UNSURE.

        A crop the plain tests leave unsure is moved a little (`SEARCH_MOVES`); each label's
        distance is then its least over the moves, and the crop is identified only when the
        nearest label is the plain look's, within `SEARCH_DISTANCE` times the bound and under
        the stricter `SEARCH_RATIO`. A plain match near both its limits (`BOTH_LIMITS`), and a
        crop far blurrier than the enrolled views (`DEGRADED`) or with far less print (`FLAT`),
        is unsure.

        ``threshold`` is accepted for the `vision.classify.Classifier` interface and unused:
        a deck's own tests decide. The confidence shown is 1 - d1/d2 (0 when unsure).
        """
        if len(crops) == 0:
            return []
        if self.cue is not None:
            return self._classify_fused(crops)
        return self._classify_plain(crops)

    def classify_among(self, crops: Image, labels: Sequence[str], shape_known: bool = False) -> list[Recognition]:
        """`classify`, each crop compared with ``labels`` only (the recogniser knows the crop's shape: a
        disc is one of the round components). A deck without templates reads as `classify`.

        ``shape_known``: the crop's outline has the shape of ``labels`` alone (a disc: a token), so the
        embedding, blurred off every enrolled view, may lie farther: the clear-ratio and colour tests
        take the embedding within `KIND_BOUND` (not `EMBEDDING_BOUND`), and the colour test a template
        correlation of `KIND_TEMPLATE` (a crop of another shape correlates far less)."""
        if len(crops) == 0:
            return []
        if self.cue is None:
            return self._classify_plain(crops)
        wanted = set(labels)
        return self._classify_fused(crops, np.array([x in wanted for x in self.labels], bool), shape_known)

    def named_by_templates(self, crops: Image) -> list[str | None]:
        """For each crop, the label the template cue alone names clearly, None where it names none.

        A second look for a recogniser that knows a component lies at the crop (a card it found where it
        lies) and that `classify` left unsure: a table camera's blur and cast can move a dark face's
        embedding far from every prototype while its print still correlates with its own templates. The
        label is named when it correlates at least `STRONG_TEMPLATE` with its templates, every other label
        at least `TEMPLATE_LEAD` less, it is also the nearest by the fused distance (`scores`: the embedding
        does not point elsewhere), and the crop is neither far blurrier nor far flatter than the enrolled
        views. A deck without templates names nothing.
        """
        if len(crops) == 0 or self.cue is None:
            return [None] * len(crops)
        fused, tm, _ = self.scores(crops)
        assert tm is not None
        rows = np.arange(len(crops))
        order = np.argsort(-tm, axis=1)
        best = order[:, 0]
        lead = tm[rows, best] - (tm[rows, order[:, 1]] if tm.shape[1] > 1 else -np.inf)
        ok = (tm[rows, best] >= STRONG_TEMPLATE) & (lead >= TEMPLATE_LEAD) & (np.argmin(fused, axis=1) == best)
        if self.sharpness is not None:
            ok &= sharpness(crops) >= FUSED_DEGRADED * self.sharpness
        if self.detail is not None:
            ok &= detail(crops) >= FUSED_FLAT * self.detail
        return [self.labels[int(k)] if good else None for k, good in zip(best, ok)]

    def _classify_plain(self, crops: Image) -> list[Recognition]:
        """`classify` for a deck without templates."""
        plain = self.label_distances(self.project(describe(crops)))
        best, ok, ratio = _nearest(plain, self.max_distance, self.max_ratio, BOTH_LIMITS)
        # a crop the plain test leaves unsure is looked at again, slightly shifted and scaled (the table
        # recogniser's outline may be off by a few per cent), under a stricter ratio test
        todo = np.flatnonzero(~ok)
        if len(todo):
            moved = _realigned(crops[todo])
            near = self.label_distances(self.project(describe(moved.reshape(-1, *crops.shape[1:]))))
            searched = np.minimum(plain[todo], near.reshape(-1, len(todo), len(self.labels)).min(axis=0))
            best2, ok2, ratio2 = _nearest(searched, SEARCH_DISTANCE * self.max_distance, SEARCH_RATIO)
            ok2 &= best2 == best[todo]  # the moves confirm the plain look's nearest label, never another
            best[todo], ok[todo], ratio[todo] = best2, ok2, ratio2
        if self.sharpness is not None:
            ok &= sharpness(crops) >= DEGRADED * self.sharpness
        if self.detail is not None:
            ok &= detail(crops) >= FLAT * self.detail
        out: list[Recognition] = []
        for k, good, r in zip(best, ok, ratio):
            conf = float(max(0.0, 1.0 - r))
            out.append(Recognition(Verdict.IDENTIFIED if good else Verdict.UNSURE, self.labels[int(k)], conf))
        return out


    def _classify_fused(self, crops: Image, among: NDArray[np.bool_] | None = None,
                        shape_known: bool = False) -> list[Recognition]:
        """`classify` with the template cue: the nearest label by the fused distance (`scores`), identified
        when it passes the ratio test (``max_ratio``), correlates with its templates at least
        `MIN_TEMPLATE`, lies within `EMBEDDING_BOUND` times the embedding's bound, and the crop is neither
        far blurrier (`FUSED_DEGRADED`) nor far flatter (`FUSED_FLAT`) than the enrolled views; or, correlating
        strongly (`STRONG_TEMPLATE`) under a stricter ratio (`STRONG_RATIO`), within `STRONG_BOUND`.

        A crop these tests leave unsure, but whose nearest label is near the tests (`FUSED_SEARCH_GATE`),
        is looked at again moved a little (`FUSED_MOVES`: the place a card was read from may be off by a
        few per cent); each label's fused distance is then its least over the looks, and the crop is
        identified only as the plain look's nearest label, under the stricter `FUSED_SEARCH_RATIO` and
        `FUSED_SEARCH_BOUND`. ``among``: the labels compared (`scores`), default all; ``shape_known``: as
        `classify_among`."""
        look = functools.partial(self.scores) if among is None else functools.partial(self.scores, among=among)
        fused, tm, near = look(crops)
        assert tm is not None
        best, ok, ratio = _nearest(fused, math.inf, self.max_ratio)
        rows = np.arange(len(crops))
        usable = np.ones(len(crops), bool)
        if self.sharpness is not None:
            usable &= sharpness(crops) >= FUSED_DEGRADED * self.sharpness
        if self.detail is not None:
            usable &= detail(crops) >= FUSED_FLAT * self.detail
        agree = _both_clear(tm[rows, best], near[rows, best]) & usable
        ok &= agree
        ok |= (tm[rows, best] >= STRONG_TEMPLATE) & (ratio <= STRONG_RATIO) & (near[rows, best] <= STRONG_BOUND) & usable
        bound = KIND_BOUND if shape_known else EMBEDDING_BOUND
        ok |= self._clear(crops, best, usable & ~ok & (ratio <= CLEAR_RATIO) & (tm[rows, best] >= CLEAR_TEMPLATE)
                          & (near[rows, best] <= bound))
        ok |= self._by_colour(crops, fused, tm, near, best, usable & ~ok & (ratio <= COLOUR_GATE), shape_known)
        todo = np.flatnonzero(~ok & usable & (ratio <= FUSED_SEARCH_GATE[0]) & (tm[rows, best] >= FUSED_SEARCH_GATE[1]))
        if len(todo):
            moved = _realigned(crops[todo], FUSED_MOVES + WIDE_MOVES)
            least, most, nearest = fused[todo], tm[todo], near[todo]
            sub = np.arange(len(todo))
            # the clearest single look that names a label on its own (`WIDE_RATIO`): it may name another
            # label than the plain look's (the place a card was read from lies well off the card)
            clear = np.zeros(len(todo), bool)
            clear_label, clear_ratio = best[todo].copy(), ratio[todo].copy()
            for k, crops_moved in enumerate(moved):
                f, t, e = look(crops_moved)
                assert t is not None
                if k < len(FUSED_MOVES):
                    least, most, nearest = np.minimum(least, f), np.maximum(most, t), np.minimum(nearest, e)
                b, _, r = _nearest(f, math.inf, WIDE_RATIO)
                better = ((r <= WIDE_RATIO) & (r < clear_ratio) & (t[sub, b] >= WIDE_TEMPLATE)
                          & (e[sub, b] <= WIDE_BOUND))
                clear |= better
                clear_label[better], clear_ratio[better] = b[better], r[better]
            best2, ok2, ratio2 = _nearest(least, math.inf, FUSED_SEARCH_RATIO)
            ok2 &= ((best2 == best[todo]) & (most[sub, best2] >= MIN_TEMPLATE)
                    & (nearest[sub, best2] <= FUSED_SEARCH_BOUND))
            ok[todo[ok2]] = True
            ratio[todo[ok2]] = ratio2[ok2]
            switch = clear & ~ok2
            ok[todo[switch]] = True
            best[todo[switch]], ratio[todo[switch]] = clear_label[switch], clear_ratio[switch]
        return [Recognition(Verdict.IDENTIFIED if good else Verdict.UNSURE, self.labels[int(k)], float(max(0.0, 1.0 - r)))
                for k, good, r in zip(best, ok, ratio)]


    def _clear(self, crops: Image, best: NDArray[np.intp], asked: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Which of the ``asked`` crops (their nearest label far ahead of the next, correlating a little under
        `MIN_TEMPLATE`) show some of their nearest label's hues (`ColourCue` distance within `CLEAR_COLOUR`): a
        bare printed circle correlates with a token's back about as well as a blurred back does, but shows
        none of its colours."""
        out = np.zeros(len(crops), bool)
        todo = np.flatnonzero(asked)
        colour = self.colour_cue
        if colour is None or not len(todo):
            return out
        own = best[todo]
        wanted = np.zeros((len(todo), len(self.labels)), bool)
        wanted[np.arange(len(todo)), own] = True
        out[todo] = colour.distances(crops[todo], wanted)[np.arange(len(todo)), own] <= CLEAR_COLOUR
        return out

    def _by_colour(self, crops: Image, fused: FloatArray, tm: FloatArray, near: FloatArray, best: NDArray[np.intp],
                   asked: NDArray[np.bool_], shape_known: bool = False) -> NDArray[np.bool_]:
        """Which of the ``asked`` crops (their nearest label short of the ratio test) the colour cue settles, and
        as which label (written into ``best``): among the labels within the ratio test of the nearest (the
        rivals, the nearest one of them), the one nearest by colour, when its colours are near the crop's
        (`COLOUR_MAX`), every other rival is farther by colour by at least `COLOUR_MARGIN`, and it passes the
        fused tests but the ratio (template correlation `MIN_TEMPLATE`, embedding within `EMBEDDING_BOUND`).
        The colour cue never names a label of its own: it only tells apart labels the other cues found alike
        (a token's face in two colours, one number in two suits). It names a rival over the nearest label only
        when the nearest's colours are far from the crop's (beyond `COLOUR_MAX`): two labels of one colour
        (two pip counts of one suit) differ in hue only by their photos' chance, not by their print. ``shape_known``
        (`classify_among`): the label correlating at least `KIND_TEMPLATE` and within `KIND_BOUND` is enough."""
        out = np.zeros(len(crops), bool)
        todo = np.flatnonzero(asked)
        colour = self.colour_cue
        if colour is None or not len(todo):
            return out
        own = best[todo]
        sub = np.arange(len(todo))
        rivals = fused[todo] <= fused[todo, own][:, None] / self.max_ratio
        d = np.where(rivals, colour.distances(crops[todo], rivals), np.inf)
        pick = np.argmin(d, axis=1)
        other = np.sort(d, axis=1)[:, 1] if d.shape[1] > 1 else np.full(len(todo), np.inf)  # a deck of one label
        most = KIND_COLOUR_MAX if shape_known else COLOUR_MAX
        settled = ((d[sub, pick] <= most) & (other - d[sub, pick] >= COLOUR_MARGIN)
                   & ((pick == own) | (d[sub, own] > most)))
        if shape_known:
            settled &= (tm[todo, pick] >= KIND_TEMPLATE) & (near[todo, pick] <= KIND_BOUND)
        else:
            settled &= _both_clear(tm[todo, pick], near[todo, pick])
        out[todo] = settled
        best[todo[settled]] = pick[settled]
        return out


def _both_clear(tm: FloatArray, near: FloatArray) -> NDArray[np.bool_]:
    """Which matches pass the template test (`MIN_TEMPLATE`) and the embedding's (`EMBEDDING_BOUND`) with room to
    spare on one of them at least: the template correlation's lead over `MIN_TEMPLATE` (as a share of the way to 1)
    and the embedding's room under `EMBEDDING_BOUND` (as a share of it) add up to `FUSED_MARGIN` or more."""
    room = (tm - MIN_TEMPLATE) / (1.0 - MIN_TEMPLATE) + (EMBEDDING_BOUND - near) / EMBEDDING_BOUND
    out: NDArray[np.bool_] = (tm >= MIN_TEMPLATE) & (near <= EMBEDDING_BOUND) & (room >= FUSED_MARGIN)
    return out


def _nearest(per_label: FloatArray, max_distance: float, max_ratio: float, both: float = math.inf,
             ) -> tuple[NDArray[np.intp], NDArray[np.bool_], FloatArray]:
    """For each row of label distances: the nearest label, whether it passes the tests, and the ratio.

    The tests: the distance within ``max_distance``, the ratio within ``max_ratio``, and the two as
    shares of their limits adding up to at most ``both``.
    """
    order = np.argsort(per_label, axis=1)
    rows = np.arange(len(per_label))
    d1 = per_label[rows, order[:, 0]].astype(np.float64)
    d2 = (per_label[rows, order[:, 1]] if per_label.shape[1] > 1 else np.full(len(rows), np.inf)).astype(np.float64)
    ratio = np.where(d2 > 0, d1 / np.where(d2 > 0, d2, 1.0), 1.0)
    near = d1 / max(max_distance, 1e-9)
    close = ratio / max(max_ratio, 1e-9)
    # near both limits at once is not near enough: a blurred look-alike, a hand taken for a card
    ok = (near <= 1.0) & (close <= 1.0) & (near + close <= both)
    return order[:, 0].astype(np.intp), ok, ratio


def _realigned(crops: Image, moves: Sequence[tuple[float, float, float]] | None = None) -> Image:
    """``(len(moves), N, H, W, 3)``: each crop shifted and scaled by each of ``moves`` (default `SEARCH_MOVES`)."""
    moves = SEARCH_MOVES if moves is None else moves
    h, w = crops.shape[1:3]
    out = np.empty((len(moves), *crops.shape), np.uint8)
    for i, (dx, dy, scale) in enumerate(moves):
        m = np.array([[scale, 0, dx * w + (1 - scale) * w / 2], [0, scale, dy * w + (1 - scale) * h / 2]], np.float32)
        for j, c in enumerate(crops):
            out[i, j] = cv2.warpAffine(c, m, (int(w), int(h)), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def detail(crops: Image) -> FloatArray:
    """``(N,)``: how much print each ``(N, H, W, 3)`` crop shows: the mean absolute Laplacian of its
    lightly smoothed grey image over its mean brightness.

    A bare patch of table, a hand or a glare spot shows almost none (the smoothing takes out the
    sensor noise); any printed face shows some. Exposure does not change it.
    """
    out = np.empty(len(crops), np.float64)
    for i, c in enumerate(crops):
        out[i] = detail_over(c)
    return out


def detail_over(crop: Image, where: NDArray[np.bool_] | None = None) -> float:
    """`detail` of one ``(H, W, 3)`` crop, over its pixels ``where`` (all of them by default)."""
    g = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.7)
    lap = np.abs(cv2.Laplacian(g, cv2.CV_32F))
    if where is None:
        return float(lap.mean()) / (float(g.mean()) + 10.0)
    return float(lap[where].mean()) / (float(g[where].mean()) + 10.0)


def sharpness(crops: Image) -> FloatArray:
    """``(N,)``: how sharp each ``(N, H, W, 3)`` crop is: its mean absolute Laplacian over its grey spread.

    Blur, defocus and lost resolution lower it; exposure and contrast do not. A table crop far
    below the enrolled views' is too degraded to tell look-alikes (pip counts) apart.
    """
    out = np.empty(len(crops), np.float64)
    for i, c in enumerate(crops):
        g = cv2.cvtColor(c, cv2.COLOR_BGR2GRAY).astype(np.float32)
        out[i] = float(np.abs(cv2.Laplacian(g, cv2.CV_32F)).mean()) / (float(g.std()) + 1.0)
    return out


#: The template cue (`TemplateCue`): turns of a disc compared, blurs of each template, the high-pass
#: (pixels) that takes out shading and the smooth part of glare, the weight of the two colour-opponent
#: channels beside brightness, and the shift searched each way (share of the crop's width). Chosen on
#: ``benchmarks/bench_enroll.py``'s tuning tables (seeds 902,000,000 on).
TEMPLATE_ANGLES = 24
TEMPLATE_BLURS = (0.0, 0.8, 1.3, 2.0, 3.0)
TEMPLATE_HIGHPASS = 2.5
TEMPLATE_CHROMA = 2.0
TEMPLATE_SHIFT = 0.075
#: Templates per label compared at full size, the best of the coarse look (`TemplateCue.scores`).
REFINE = 2
#: A template is blurred at most until its edges are this share as steep as the crop's (`edge_ratio`).
BLUR_MATCH = 0.9


def edge_ratio(images: Image) -> FloatArray:
    """``(N,)``: how steep the edges of each ``(N, H, W, 3)`` image are: the mean absolute Laplacian of its
    lightly smoothed grey image over its mean gradient. Blur lowers it; contrast and exposure do not."""
    out = np.empty(len(images), np.float64)
    for i, im in enumerate(images):
        g = im if im.ndim == 2 else cv2.cvtColor(np.clip(im, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
        g = cv2.GaussianBlur(np.asarray(g, np.float32), (0, 0), 0.7)
        lap = np.abs(cv2.Laplacian(g, cv2.CV_32F))[2:-2, 2:-2].mean()
        gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0) / 8, cv2.Sobel(g, cv2.CV_32F, 0, 1) / 8
        out[i] = float(lap) / (float(np.hypot(gx, gy)[2:-2, 2:-2].mean()) + 1e-3)
    return out


def flattened(image: FloatArray) -> FloatArray:
    """A crop with the camera's colour cast, shading and smooth glare taken out: each channel over its
    mean, less its `TEMPLATE_HIGHPASS` blur, as brightness and two weighted colour-opponent channels."""
    y = image / (image.mean(axis=(0, 1), keepdims=True) + 1.0)
    y = y - cv2.GaussianBlur(y, (0, 0), TEMPLATE_HIGHPASS)
    b, g, r = y[..., 0], y[..., 1], y[..., 2]
    out: FloatArray = np.stack([(b + g + r) / 3, TEMPLATE_CHROMA * (r - g) / 2,
                                TEMPLATE_CHROMA * ((r + g) / 2 - b) / 1.5], axis=-1).astype(np.float32)
    return out


def _unit_rows(x: FloatArray) -> FloatArray:
    x = x.reshape(len(x), -1)
    x = x - x.mean(axis=1, keepdims=True)
    out: FloatArray = (x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-6)).astype(np.float32)
    return out


def _correlations(image: FloatArray, window: tuple[int, int], rows: FloatArray,
                  at: NDArray[np.intp] | None = None) -> FloatArray:
    """``(shifts, T)``: the normalised correlation of ``window``-sized parts of ``image`` (``(H, W, C)``) with
    each of ``rows`` (zero-mean unit rows, `_unit_rows`): every part, or those at the flat indices ``at``
    (row-major over the parts' top-left corners). The rows being zero-mean, a part is never centred:
    its dot products are divided by its centred norm."""
    wh, ww = window
    h, w, c = image.shape
    ny, nx = h - wh + 1, w - ww + 1
    image = np.ascontiguousarray(image)
    sy, sx, sc = image.strides
    view = np.lib.stride_tricks.as_strided(image, (ny, nx, wh, ww, c), (sy, sx, sy, sx, sc), writeable=False)
    parts = np.ascontiguousarray(view.reshape(ny * nx, -1) if at is None
                                 else view[at // nx, at % nx].reshape(len(at), -1))
    dims = parts.shape[1]
    total = parts.sum(axis=1)
    norm = np.sqrt(np.maximum(np.einsum("ij,ij->i", parts, parts) - total * total / dims, 0.0)) + 1e-6
    out: FloatArray = (parts @ rows.T) / norm[:, None]
    return out


class TemplateCue:
    """A second cue, independent of the embedding: how well a crop correlates with each label's enrolled views.

    Each template (a plain enrolled view, at each turn) is kept at several blurs (`TEMPLATE_BLURS`);
    a crop is compared with each template at the strongest blur that leaves the template's edges
    about as steep as the crop's (`BLUR_MATCH`): the same blur as the table camera's, never more (a
    plain coin matches any disc blurred enough). Both are `flattened` (colour cast, shading and glare
    out) and compared by normalised correlation, the crop shifted up to `TEMPLATE_SHIFT` each way.
    """

    def __init__(self, templates: Image, owners: NDArray[np.int32], labels: int) -> None:
        n, h, w = templates.shape[:3]
        self.labels = labels
        self.owners = np.asarray(owners, np.intp)
        self.margin = m = max(1, round(TEMPLATE_SHIFT * w))
        self.window = (h - 2 * m, w - 2 * m)
        #: the coarse look: every image's brightness at half size, shifted by up to ``coarse_margin`` half-size pixels
        self.coarse_margin = mc = max(1, m // 2)
        self.coarse_size = (max(4, w // 2), max(4, h // 2))
        cw, ch = self.coarse_size
        self.coarse_window = (ch - 2 * mc, cw - 2 * mc)
        mats, coarse, steep = [], [], []
        for sigma in TEMPLATE_BLURS:
            blurred = [cv2.GaussianBlur(t.astype(np.float32), (0, 0), sigma) if sigma > 0 else t.astype(np.float32)
                       for t in templates]
            steep.append(edge_ratio(np.asarray(blurred)))
            flat = [flattened(b) for b in blurred]
            mats.append(_unit_rows(np.stack([f[m:h - m, m:w - m] for f in flat])))
            coarse.append(_unit_rows(np.stack([self._half(f)[mc:ch - mc, mc:cw - mc, :1] for f in flat])))
        #: ``(blurs, templates, D)``, the same at half size, and ``(templates, blurs)``
        self.matrix = np.stack(mats)
        self.coarse = np.stack(coarse)
        self.steepness = np.stack(steep, axis=1)

    def _near(self, coarse: NDArray[np.intp]) -> NDArray[np.intp]:
        """The full-size shifts (flat indices) within a pixel of the coarse look's shifts (flat indices)."""
        m, mc = self.margin, self.coarse_margin
        side, coarse_side = 2 * m + 1, 2 * mc + 1
        cy, cx = np.divmod(coarse, coarse_side)
        picked = np.zeros((side, side), bool)
        for y, x in zip(m + 2 * (cy - mc), m + 2 * (cx - mc)):
            picked[max(0, y - 1):y + 2, max(0, x - 1):x + 2] = True
        return np.flatnonzero(picked)

    def _half(self, flat: FloatArray) -> FloatArray:
        out: FloatArray = cv2.resize(flat, self.coarse_size, interpolation=cv2.INTER_AREA)
        return out

    def scores(self, crops: Image, candidates: NDArray[np.bool_] | None = None) -> FloatArray:
        """``(N, labels)``: each crop's best correlation with each label's templates, -1 for labels not
        among its ``candidates`` (``(N, labels)``; default all).

        Coarse to fine: every candidate template is first compared by brightness at half size (a few
        shifts); only each label's `REFINE` best templates are then compared in full, at the full-size
        shifts within a pixel of the coarse look's best."""
        out = np.full((len(crops), self.labels), -1.0, np.float32)
        steep = edge_ratio(crops)
        wh, ww = self.window
        ch, cw = self.coarse_window
        blurs = len(TEMPLATE_BLURS)
        for i, crop in enumerate(crops):
            todo = np.flatnonzero(candidates[i][self.owners]) if candidates is not None else np.arange(len(self.owners))
            if not len(todo):
                continue
            level = np.clip((self.steepness[todo] >= BLUR_MATCH * steep[i]).sum(axis=1) - 1, 0, blurs - 1)
            flat = flattened(crop.astype(np.float32))
            owners = self.owners[todo]
            shifts: NDArray[np.intp] | None = None
            if np.bincount(owners).max() > REFINE:
                coarse = _correlations(self._half(flat)[:, :, :1], (ch, cw), self.coarse[level, todo])
                rough = coarse.max(axis=0)
                order = np.lexsort((-rough, owners))  # by label, each label's best first
                first = np.searchsorted(owners[order], owners[order])
                keep = order[np.arange(len(order)) - first < REFINE]
                todo, level, owners = todo[keep], level[keep], owners[keep]
                shifts = self._near(np.unique(coarse[:, keep].argmax(axis=0)))
            best = _correlations(flat, (wh, ww), self.matrix[level, todo], shifts).max(axis=0)
            np.maximum.at(out[i], owners, best)
        return out


#: The colour cue (`ColourCue`): the share of the brightest unclipped pixels taken as the print's white,
#: the darkest balanced brightness whose colour counts, the chroma below which a pixel is grey (twice it
#: counts fully), the share of the crop across that is looked at (a round token's crop shows the table in
#: its corners), and the hue histogram's bins and smoothing (bins).
COLOUR_WHITE = (0.80, 0.97)
COLOUR_DARK = 0.06
COLOUR_GREY = 0.06
COLOUR_INSIDE = 0.92
COLOUR_BINS = 24
COLOUR_SMOOTH = 1.0


#: a pixel this bright (0-255) in any channel is clipped: not taken for the white (`balanced_to_white`)
COLOUR_CLIP = 250.0


def balanced_to_white(px: FloatArray) -> FloatArray:
    """``(N, 3)`` BGR pixel values (0-255) in linear light, divided channel by channel by their own white: the
    median of the brightest (`COLOUR_WHITE` quantiles of brightness) that no channel clips (`COLOUR_CLIP`; all
    pixels when fewer than 16 are unclipped). A colour cast or an exposure (a gain on each channel) is taken out."""
    lin = (px / 255.0) ** 2.2
    bright = lin.sum(axis=1)
    unclipped = px.max(axis=1) < COLOUR_CLIP
    if unclipped.sum() < 16:
        unclipped[:] = True
    lo, hi = np.quantile(bright[unclipped], COLOUR_WHITE)
    sel = (bright >= lo) & (bright <= hi) & unclipped
    white = np.median(lin[sel], axis=0) if sel.any() else lin.max(axis=0)
    balanced: FloatArray = lin / np.maximum(white, 1e-4)
    return balanced


def colour_histograms(images: Image) -> FloatArray:
    """``(N, COLOUR_BINS + 1)``: the hues of each ``(N, H, W, 3)`` uint8 BGR image, the camera's white balance out.

    Each image is taken to linear light and divided, channel by channel, by its own white: the median
    of its brightest pixels that no channel clips (the card's paper, which a colour cast tints as it
    tints the ink). Each pixel that is not dark then has a chromaticity (red less green, red and green
    less blue, over the sum); its hue (the angle) is counted by how far from grey it lies (paper and ink
    not at all; blur, which mixes a colour with grey, keeps its hue) in a circular histogram summing to
    one, the last bin holding the grey of an image with next to no colour. Only the ellipse inscribed
    in the image counts (`COLOUR_INSIDE`). It keeps no place, so a face turned or shifted keeps its
    histogram; a cast, an exposure or a vignette (a gain on each channel) does not change it.
    """
    out = np.zeros((len(images), COLOUR_BINS + 1), np.float32)
    if not len(images):
        return out
    h, w = images.shape[1:3]
    yy, xx = np.mgrid[0:h, 0:w]
    inside = (((xx + 0.5) / w - 0.5) ** 2 + ((yy + 0.5) / h - 0.5) ** 2 <= (0.5 * COLOUR_INSIDE) ** 2).ravel()
    k = np.arange(-3, 4)
    smooth = np.exp(-0.5 * (k / COLOUR_SMOOTH) ** 2)
    for i, im in enumerate(images):
        px = im.reshape(-1, 3)[inside].astype(np.float32)
        bal = balanced_to_white(px)
        total = bal.sum(axis=1)
        keep = total >= 3 * COLOUR_DARK
        b, g, r = (bal[keep] / total[keep, None]).T
        x, y = r - g, (r + g) / 2 - b
        weight = np.clip((np.hypot(x, y) - COLOUR_GREY) / COLOUR_GREY, 0.0, 1.0)
        if float(weight.sum()) < 0.01 * len(px):  # next to no colour: grey
            out[i, -1] = 1.0
            continue
        hue = ((np.arctan2(y, x) + math.pi) / (2 * math.pi) * COLOUR_BINS).astype(np.intp) % COLOUR_BINS
        hist = np.bincount(hue, weights=weight, minlength=COLOUR_BINS)
        hist = sum(c * np.roll(hist, int(d)) for c, d in zip(smooth, k))
        out[i, :-1] = hist / max(float(hist.sum()), 1e-9)
    return out


class ColourCue:
    """A third cue, for labels the other two see alike but whose print differs in colour (tokens of one
    design in two colours): the Hellinger distance between a crop's `colour_histograms` and the nearest
    of each label's templates' (0: the same hues, 1: none in common)."""

    def __init__(self, templates: Image, owners: NDArray[np.int32], labels: int) -> None:
        self.labels = labels
        self.owners = np.asarray(owners, np.intp)
        self.roots = np.sqrt(colour_histograms(templates))

    def distances(self, crops: Image, candidates: NDArray[np.bool_] | None = None) -> FloatArray:
        """``(N, labels)``: each crop's colour distance to each label (1 for labels not among its ``candidates``)."""
        out = np.ones((len(crops), self.labels), np.float32)
        if not len(crops):
            return out
        roots = np.sqrt(colour_histograms(crops))
        for i in range(len(crops)):
            todo = (np.flatnonzero(candidates[i][self.owners]) if candidates is not None
                    else np.arange(len(self.owners)))
            if not len(todo):
                continue
            d = np.sqrt(np.maximum(1.0 - self.roots[todo] @ roots[i], 0.0))
            np.minimum.at(out[i], self.owners[todo], d)
        return out


@dataclass(frozen=True, slots=True)
class EnrolledView:
    """One enrolment photo, found and widened: its label, file and descriptors (every variation)."""

    label: str
    photo: Path
    descriptors: FloatArray
    #: the plain views (one per turn), for the held-back test
    plain: Image
    #: the plain views at every turn the template cue compares (`TEMPLATE_ANGLES` angles for a disc);
    #: None: the deck matches by descriptors alone
    templates: Image | None = None


def enrol_photo(photo: Image, label: str, path: Path, shape: ComponentShape, crop_size: tuple[int, int],
                rng: np.random.Generator, count: int | None = None) -> EnrolledView | None:
    """Find the component in one photo and describe its variations (``count`` per turn, default
    `VARIATIONS`); None when no component is found."""
    count = VARIATIONS if count is None else count
    outline = find_component(photo, shape)
    if outline is None:
        return None
    crops = variations(photo, outline, shape, crop_size, rng, count)
    templates = (variations(photo, outline, shape, crop_size, rng, 1, TEMPLATE_ANGLES) if shape.round
                 else crops[::count])
    return EnrolledView(label, path, describe(crops), crops[::count], templates)


#: The match tests, as multiples of the deck's own spread (see `_thresholds` and `_cross_photo_bound`).
DISTANCE_FACTOR = 3.2
CROSS_PHOTO_FACTOR = 1.5
MAX_RATIO = 0.88
#: A crop left unsure is looked at again moved by each of these (shift as a share of the crop's
#: width, scale), its label distance the least over the moves; accepted only within this multiple of
#: the distance bound and under this ratio (measured on ``benchmarks/bench_enroll.py``'s tuning tables).
SEARCH_MOVES = ((0.05, 0.0, 1.0), (-0.05, 0.0, 1.0), (0.0, 0.05, 1.0), (0.0, -0.05, 1.0),
                (0.0, 0.0, 1.05), (0.0, 0.0, 0.95))
SEARCH_DISTANCE = 1.15
SEARCH_RATIO = 0.8
#: A crop less sharp than this share of the enrolled views' median `sharpness` is held unsure: on the
#: tuning tables nearly every crop whose nearest label was wrong lay below it, and few read right.
DEGRADED = 0.2
#: A crop with less print than this share of the enrolled views' median `detail` is held unsure.
FLAT = 0.08
#: A match whose distance and ratio, each as a share of its limit, add up to more than this is held
#: unsure: each alone may pass, but not both nearly at their limits (a blurred pip card read as the
#: next pip count; a hand taken for a card of its colour).
BOTH_LIMITS = 1.75
#: A deck with templates (`TemplateCue`): the fused distance is the embedding's (over its bound) plus
#: this weight times one less the template correlation, over the embedding's `CANDIDATES` nearest
#: labels; its nearest label is identified under this ratio to the next, a template correlation of at
#: least `MIN_TEMPLATE`, the embedding's distance within `EMBEDDING_BOUND` times its bound, and the
#: blur and print tests at `FUSED_DEGRADED` and `FUSED_FLAT` (the template cue tells blurred crops
#: apart that the embedding alone could not). Chosen on the tuning tables (seeds 902,000,000 on).
TEMPLATE_WEIGHT = 1.5
CANDIDATES = 12
FUSED_RATIO = 0.9
MIN_TEMPLATE = 0.5
EMBEDDING_BOUND = 1.3
FUSED_DEGRADED = 0.1
#: A match that only just passes both the template test and the embedding's is not sure: a card of the neighbouring
#: pip count correlates a little over `MIN_TEMPLATE` and lies just within `EMBEDDING_BOUND` (held-out Midway table
#: 901,000,001 at hard: a clowns 4 taken for the 3 at 0.527 and 1.28, room 0.07). Checked on the tuning tables
#: (902,000,000 to 902,000,011, medium and hard): only token backs read right had less room, most of them kept by
#: the clear-ratio test.
FUSED_MARGIN = 0.1
FUSED_FLAT = 0.04
#: A deck with templates: a crop left unsure whose nearest label is within this ratio and template
#: correlation is looked at again moved by each of `FUSED_MOVES` (shift as a share of the crop's width,
#: scale), and identified as the same label under this ratio and within this multiple of the embedding's
#: bound (chosen on the tuning tables, seeds 902,000,000 to 902,000,029: no wrong label passed within a
#: ratio of 0.9 or an embedding bound of 1.3, so the search is held stricter).
FUSED_SEARCH_GATE = (0.99, 0.3)
FUSED_MOVES = ((0.05, 0.0, 1.0), (-0.05, 0.0, 1.0), (0.0, 0.05, 1.0), (0.0, -0.05, 1.0),
               (0.0, 0.0, 1.06), (0.0, 0.0, 0.94), (0.0, 0.0, 1.12))
FUSED_SEARCH_RATIO = 0.88
FUSED_SEARCH_BOUND = 1.2
#: A deck with templates: the same crops are also looked at moved farther (`WIDE_MOVES`: a card on a pile
#: whose lower cards stick out is read from an outline around them all, up to a tenth of its width off),
#: and a single look, at any move, is identified as its own nearest label, even another than the plain
#: look's, when that label is far ahead (`WIDE_RATIO`), correlates well (`WIDE_TEMPLATE`) and lies within
#: `WIDE_BOUND` times the embedding's bound: each test well inside the plain match's (chosen on the tuning
#: tables, seeds 902,000,000 and 905,000,000 on).
WIDE_MOVES = ((0.1, 0.0, 1.0), (-0.1, 0.0, 1.0), (0.0, 0.1, 1.0), (0.0, -0.1, 1.0),
              (0.07, 0.07, 1.0), (-0.07, 0.07, 1.0), (0.07, -0.07, 1.0), (-0.07, -0.07, 1.0))
WIDE_RATIO = 0.7
WIDE_TEMPLATE = 0.6
WIDE_BOUND = 1.0
#: A deck with templates: a nearest label far ahead of the next (`CLEAR_RATIO`) and within the embedding's
#: bound needs a template correlation of only `CLEAR_TEMPLATE` (a token's back, turned between two
#: enrolled angles and blurred, correlates a little under `MIN_TEMPLATE`; on the tuning tables no wrong
#: nearest label lay under a ratio of 0.85), when its hues are not far from the label's (`CLEAR_COLOUR`).
CLEAR_RATIO = 0.78
CLEAR_TEMPLATE = 0.42
CLEAR_COLOUR = 0.85
#: `Deck.classify_among` told the crop's shape (a disc: one of the tokens): the clear-ratio and colour tests
#: take the embedding within this many times its bound, and the colour test this template correlation. A
#: hard table camera's blur moves a token's embedding to 1.2-1.65 times the bound while its correlation with
#: its own templates stays 0.34-0.65. On the Midway tuning tables (seeds 902,000,000 and 902,500,000 on, hard),
#: crops of cards and clutter read among the tokens correlated at most 0.375 with any token.
KIND_BOUND = 1.6
KIND_TEMPLATE = 0.4
#: ... and the colour test takes the label's colours within this of the crop's (not `COLOUR_MAX`): a hard table
#: camera's blur and cast move a disc's colours farther from its enrolled photos'. On the Midway tuning tables (seeds
#: 902,000,000 and 902,500,000 on, hard) right tokens lay up to 0.88 off (two, 0.41 and 0.42, read only under this
#: bound, their rivals 0.31 and 0.53 farther); no crop read among the tokens, card, clutter or token, had a wrong
#: token pass the other colour tests at any bound.
KIND_COLOUR_MAX = 0.5
#: A deck with templates: a crop whose nearest label passes every fused test but the ratio, within this
#: ratio, is identified when the colour cue (`ColourCue`) puts the label within `COLOUR_MAX` of the crop's
#: colours and every rival at least `COLOUR_MARGIN` farther (chosen on the tuning tables, seeds
#: 902,000,000 on).
COLOUR_GATE = 0.995
COLOUR_MAX = 0.4
COLOUR_MARGIN = 0.25
#: A deck with templates: a crop whose nearest label correlates with its templates at least `STRONG_TEMPLATE`,
#: under `STRONG_RATIO` to the next label, is identified within `STRONG_BOUND` times the embedding's bound (a
#: table camera's blur moves the embedding of a face it does not move the templates' correlation of). Chosen
#: on the Menagerie Grandioso deck's tuning tables (seeds 903,000,000 on) and checked on the Midway deck's
#: (902,000,000 on): no wrong label passed.
STRONG_TEMPLATE = 0.7
STRONG_RATIO = 0.85
STRONG_BOUND = 2.0
#: `Deck.named_by_templates`: the label the template cue alone names leads every other label's correlation by at
#: least this. On the Menagerie Grandioso deck's tuning tables (seeds 905,000,000 and 905,500,000 on, medium and
#: hard: 514 looks at places the deck left unsure) no label but the one lying there correlated above 0.66 or led
#: by more than 0.115; the right label led by 0.13 to 0.20 wherever it correlated above `STRONG_TEMPLATE` (12
#: looks, now named). Checked on seeds 903,000,000 on: 8 more named, all right.
TEMPLATE_LEAD = 0.12


def _thresholds(descriptors: FloatArray, owners: NDArray[np.int32]) -> float:
    """The distance bound: a multiple of the typical distance of a variation to its own label's others.

    For every prototype, the distance to the nearest prototype of the same label (another
    variation); the 95th percentile of these, times `DISTANCE_FACTOR`. Few variations
    (a small deck) put them closer than the table's crops will be: the bound is then at
    least the median distance of a prototype to the nearest one of another label (the
    ratio test, not this bound, keeps look-alikes apart).
    """
    rng = np.random.default_rng(0)
    pick = rng.choice(len(descriptors), size=min(len(descriptors), 600), replace=False)
    d = descriptors[pick]
    sq = (d * d).sum(1)[:, None] + (descriptors * descriptors).sum(1)[None, :] - 2.0 * d @ descriptors.T
    dist = np.sqrt(np.maximum(sq, 0.0))
    dist[np.arange(len(pick)), pick] = np.inf
    same = owners[pick][:, None] == owners[None, :]
    near_same = np.where(same, dist, np.inf).min(axis=1)
    bound = float(np.percentile(near_same[np.isfinite(near_same)], 95) * DISTANCE_FACTOR)
    near_other = np.where(same, np.inf, dist).min(axis=1)
    if np.isfinite(near_other).any():
        bound = max(bound, float(np.median(near_other[np.isfinite(near_other)])))
    return bound


def _cross_photo_bound(deck: Deck, plain: NDArray[np.intp]) -> float | None:
    """The distance bound of a deck whose components have two or more photos; None when none has.

    How far each photo's plain views lie from the label's other photos (the mean, over
    those photos, of the nearest prototype of each): the spread of one component seen in
    two photos. The bound is `CROSS_PHOTO_FACTOR` times its 99th percentile. Measured on
    ``benchmarks/bench_enroll.py``'s tuning tables, it keeps out foreign cards and clutter
    that the spread of variations alone let in.
    """
    if deck.photo_of is None or not len(plain) or int(deck.photo_of.max()) == 0:
        return None
    if len(deck.prototypes) < 4 * deck.prototypes.shape[1]:
        return None  # so few prototypes that the discriminant fits them too closely to measure a spread
    own, photo = deck.owners[plain], deck.photo_of[plain]
    out: list[float] = []
    for i in range(len(plain)):
        others = [deck.prototypes[(deck.owners == own[i]) & (deck.photo_of == p)]
                  for p in range(int(deck.photo_of.max()) + 1) if p != photo[i]]
        others = [o for o in others if len(o)]
        if not others:
            continue
        x = deck.prototypes[plain[i]]
        out.append(float(np.mean([np.sqrt(((o - x) ** 2).sum(axis=1)).min() for o in others])))
    if not out:
        return None
    return float(np.percentile(out, 99) * CROSS_PHOTO_FACTOR)


def build_deck(game: str, name: str, views: Sequence[EnrolledView], crop_size: tuple[int, int],
               labels: Sequence[str] | None = None) -> Deck:
    """A deck from enrolled views; its card tells the held-back accuracy.

    When a label has two or more photos, its last photo is held back: a deck built
    without the held-back photos reads their plain views, and the card reports how many
    it recognised and how many it accepted wrongly. The deck returned holds every photo.
    """
    started = time.perf_counter()
    names = tuple(labels) if labels is not None else tuple(dict.fromkeys(v.label for v in views))
    index = {lab: i for i, lab in enumerate(names)}
    by_label: dict[str, list[EnrolledView]] = {}
    for v in views:
        by_label.setdefault(v.label, []).append(v)
    held = {id(vs[-1]) for vs in by_label.values() if len(vs) >= 2}

    def make(chosen: Iterable[EnrolledView]) -> Deck:
        chosen = list(chosen)
        desc = np.concatenate([v.descriptors for v in chosen]).astype(np.float32)
        owners = np.concatenate([np.full(len(v.descriptors), index[v.label], np.int32) for v in chosen])
        number: dict[str, int] = {}
        photo_of: list[NDArray[np.int32]] = []
        plain: list[int] = []
        start = 0
        for v in chosen:
            k = number[v.label] = number.get(v.label, -1) + 1
            photo_of.append(np.full(len(v.descriptors), k, np.int32))
            step = max(1, len(v.descriptors) // max(len(v.plain), 1))
            plain.extend(range(start, start + len(v.descriptors), step))
            start += len(v.descriptors)
        mean, proj = discriminant(desc, owners)
        protos = (desc - mean) @ proj
        with_templates = all(v.templates is not None for v in chosen)
        templates = np.concatenate([v.templates for v in chosen if v.templates is not None]) if with_templates else None
        template_owners = (np.concatenate([np.full(len(v.templates), index[v.label], np.int32)
                                           for v in chosen if v.templates is not None]) if with_templates else None)
        views_seen = [v.plain for v in chosen if len(v.plain)]
        seen = np.concatenate(views_seen) if views_seen else None
        deck = Deck(game, name, names, protos, owners, mean, proj, 0.0, FUSED_RATIO if with_templates else MAX_RATIO,
                    crop_size, photo_of=np.concatenate(photo_of),
                    sharpness=float(np.median(sharpness(seen))) if seen is not None else None,
                    detail=float(np.median(detail(seen))) if seen is not None else None,
                    templates=templates, template_owners=template_owners)
        bound = _cross_photo_bound(deck, np.asarray(plain, np.intp))
        deck.max_distance = bound if bound is not None else _thresholds(protos, owners)
        return deck

    deck = make(views)
    right = wrong = tested = 0
    if held:
        trial = make(v for v in views if id(v) not in held)
        for v in views:
            if id(v) not in held:
                continue
            for rec in trial.classify(v.plain):
                tested += 1
                right += rec.label == v.label
                wrong += rec.label is not None and rec.label != v.label
    deck.card = {
        "game": game,
        "name": name,
        "components": len(by_label),
        "labels": list(names),
        "photos": len(views),
        "held_back": {"photos": len(held), "views": tested, "right": right, "wrong_accepted": wrong,
                      "accuracy": round(right / tested, 4) if tested else None},
        "prototypes": int(len(deck.prototypes)),
        "embedding": default_embedder().digest,
        "max_distance": deck.max_distance,
        "max_ratio": deck.max_ratio,
        "sharpness": deck.sharpness,
        "detail": deck.detail,
        "crop_size": list(crop_size),
        "templates": 0 if deck.templates is None else int(len(deck.templates)),
        "descriptor_version": DESCRIPTOR_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build_seconds": round(time.perf_counter() - started, 2),
    }
    return deck


# --------------------------------------------------------------------------------------------
# storage


def deck_home(environ: Mapping[str, str] | None = None) -> Path:
    """Where enrolled decks live: ``$XDG_DATA_HOME/ringside/decks`` or ``~/.local/share/ringside/decks``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base) / "ringside" / "decks"


def _markdown(card: Mapping[str, Any]) -> str:
    held = card.get("held_back") or {}
    acc = held.get("accuracy")
    acc_text = (f"{100 * acc:.1f}% of {held.get('views')} held-back views right, "
                f"{held.get('wrong_accepted')} wrong accepted ({held.get('photos')} photos held back)"
                if acc is not None else "none (one photo per component: nothing to hold back)")
    return "\n".join([
        f"# Deck {card['name']} ({card['game']})",
        "",
        f"- components: {card['components']}",
        f"- photos used: {card['photos']}",
        f"- held-back accuracy: {acc_text}",
        f"- created: {card['created']}",
        "",
        "Built by `ringside enroll`; read by `ringside recognize --deck`.",
        "",
    ])


def save_deck(deck: Deck, folder: Path, replace: bool = False) -> Path:
    """Write ``deck`` into ``folder`` all at once (a temporary folder beside it, then a rename).

    :raises DeckError: when ``folder`` exists (and ``replace`` is false) or cannot be written.
    """
    if folder.exists() and not replace and not (folder.is_dir() and not any(folder.iterdir())):
        raise DeckError(f"{folder} already exists (choose another name or remove it)")
    parent = folder.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=parent))
    except OSError as exc:
        raise DeckError(f"cannot write {folder}: {exc.strerror or exc}") from None
    try:
        arrays: dict[str, FloatArray] = {}
        if deck.templates is not None and deck.template_owners is not None:
            arrays = {"templates": deck.templates.astype(np.uint8), "template_owners": deck.template_owners.astype(np.int32)}
        np.savez_compressed(tmp / PROTOTYPES_FILE, prototypes=deck.prototypes.astype(np.float32),
                            owners=deck.owners.astype(np.int32), mean=deck.mean.astype(np.float32),
                            photo_of=(deck.photo_of if deck.photo_of is not None
                                      else np.zeros(len(deck.owners))).astype(np.int32),
                            projection=deck.projection.astype(np.float32), allow_pickle=False, **arrays)
        (tmp / LABELS_FILE).write_text("\n".join(deck.labels) + "\n", encoding="utf-8")
        (tmp / CARD_FILE).write_text(json.dumps(deck.card, indent=1) + "\n", encoding="utf-8")
        (tmp / README_FILE).write_text(_markdown(deck.card), encoding="utf-8")
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old.", dir=parent))
            os.replace(folder, old / folder.name)
            os.replace(tmp, folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, folder)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DeckError(f"cannot write {folder}: {exc.strerror or exc}") from None
    deck.path = folder
    return folder


def load_deck(folder: Path, game: str | None = None) -> Deck:
    """The deck stored in ``folder``.

    :raises DeckError: when the folder is not a complete deck, is of another descriptor
        version, or (with ``game``) was enrolled for another game.
    """
    card_path = folder / CARD_FILE
    if not folder.is_dir():
        raise DeckError(f"no such deck: {folder}")
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
        labels = tuple(x for x in (folder / LABELS_FILE).read_text(encoding="utf-8").split("\n") if x)
        with np.load(folder / PROTOTYPES_FILE) as data:
            protos = np.asarray(data["prototypes"], np.float32)
            owners = np.asarray(data["owners"], np.int32)
            photo_of = np.asarray(data["photo_of"], np.int32) if "photo_of" in data else None
            mean = np.asarray(data["mean"], np.float32)
            proj = np.asarray(data["projection"], np.float32)
            templates = np.asarray(data["templates"], np.uint8) if "templates" in data else None
            template_owners = np.asarray(data["template_owners"], np.int32) if "template_owners" in data else None
    except (OSError, ValueError, KeyError) as exc:
        raise DeckError(f"{folder} is not a complete deck: {exc}") from None
    if not isinstance(card, dict) or card.get("descriptor_version") != DESCRIPTOR_VERSION:
        raise DeckError(f"{folder} was enrolled by another version of Ringside: enrol it again")
    if game is not None and card.get("game") != game:
        raise DeckError(f"deck {folder.name} is for {card.get('game')}, not {game}")
    if (len(owners) != len(protos) or (len(owners) and (owners.min() < 0 or owners.max() >= len(labels)))
            or proj.ndim != 2 or mean.shape != (proj.shape[0],) or protos.shape[1:] != (proj.shape[1],)):
        raise DeckError(f"{folder} is not a complete deck: its prototypes and labels disagree")
    if photo_of is not None and len(photo_of) != len(owners):
        raise DeckError(f"{folder} is not a complete deck: its prototypes and photos disagree")
    if (templates is None) != (template_owners is None) or (
            templates is not None and template_owners is not None
            and (templates.ndim != 4 or len(templates) != len(template_owners)
                 or (len(template_owners) and (template_owners.min() < 0 or template_owners.max() >= len(labels))))):
        raise DeckError(f"{folder} is not a complete deck: its templates and labels disagree")
    if card.get("embedding") != default_embedder().digest:
        raise DeckError(f"{folder} was enrolled with another shipped model: enrol it again")
    w, h = card.get("crop_size", (40, 56))
    return Deck(str(card.get("game")), str(card.get("name", folder.name)), labels, protos, owners, mean, proj,
                float(card["max_distance"]), float(card["max_ratio"]), (int(w), int(h)), card, folder, photo_of,
                float(card["sharpness"]) if card.get("sharpness") is not None else None,
                float(card["detail"]) if card.get("detail") is not None else None, templates, template_owners)


def resolve_deck(text: str, environ: Mapping[str, str] | None = None) -> Path:
    """``--deck NAME|DIR``: a folder path (it contains a separator or exists), else a name under `deck_home`."""
    as_path = Path(text).expanduser()
    if os.sep in text or (os.altsep and os.altsep in text) or (as_path / CARD_FILE).is_file():
        return as_path
    return deck_home(environ) / text


def list_decks(home: Path | None = None) -> list[dict[str, Any]]:
    """The cards of every deck under ``home`` (default `deck_home`), by name; unreadable ones say so."""
    root = deck_home() if home is None else home
    out: list[dict[str, Any]] = []
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        progress = folder / "enrolling" / "progress.json"
        if not (folder / CARD_FILE).exists() and progress.is_file():
            try:  # an enrolment at the table in progress (firmware.enroll_table)
                data = json.loads(progress.read_text(encoding="utf-8"))
                done = sum(min(int(v), int(data["photos"])) for v in data["done"].values())
                out.append({"name": folder.name, "game": data["game"], "path": str(folder),
                            "enrolling": f"{done} of {len(data['labels']) * int(data['photos'])} photos"})
                continue
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass
        try:
            card = json.loads((folder / CARD_FILE).read_text(encoding="utf-8"))
            if not isinstance(card, dict):
                raise ValueError("not an object")
        except (OSError, ValueError) as exc:
            card = {"name": folder.name, "error": f"unreadable deck card: {exc}"}
        card["path"] = str(folder)
        out.append(card)
    return out
