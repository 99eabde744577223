"""Blurred ArUco codes read by matching: a square the detector found but could not decode, compared
with every code of the dictionary, blurred.

Defocus and motion blur smear a code's cells into one another until the ArUco
decoder cannot read the bits, while the code's dark frame still shows as a
square. Such a square is seen from straight above, placed and its blur judged
by the code's frame alone, and its cells compared (normalised correlation) with
every code of the dictionary in its four turns, blurred as much as the frame
says. A code is named only when it matches clearly: its correlation high and
ahead of every other code's, in any turn, by a margin, and no glare saturating
its cells. Otherwise nothing is named: unsure means unread, never a guess.

`local_contrast` evens out the light over a patch: glare that washes a code out
without saturating it leaves its cells' pattern, weak; divided by the local
contrast, the pattern is as strong as a code in plain light, and
saturated glare is left flat (it matches no code).

`markers_by_matching` finds a table's mat markers this way when too few of them
decode for a calibration (`vision.calibrate.mat_homography` then checks that
they agree); `code_templates` and `match_patch` serve a game's own card codes.
The vision core imports no game.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import FrameBlur, Marker, frame_blur, sharpen_sigma
from vision.config import VisionConfig
from vision.geometry import Image

__all__ = [
    "CodeTemplates",
    "PatchMatch",
    "code_scores",
    "code_templates",
    "dictionary_size",
    "local_contrast",
    "mat_markers_by_matching",
    "markers_by_matching",
    "match_patch",
    "prepare_templates",
]

#: A pixel this bright is saturated (glare); a match is refused when more than `GLARED_SHARE` of the cells are.
SATURATED = 250.0
GLARED_SHARE = 0.01
#: The templates of `markers_by_matching`: the code's side and the white around it (px), how far (px) the
#: square may lie off where the detector put it, and the blurs (px, Gaussian sigma) the codes are compared at.
SIDE_PX = 39
SURROUND_PX = 2
SEARCH_PX = 3
BLURS_PX = (0.75, 1.5, 2.25, 3.0)
#: A mat marker is named when its correlation is at least `MAT_MIN` and ahead of every other code's by
#: `MAT_MARGIN` (a stricter lead than a card code's: the mat is fixed by it).
MAT_MIN = 0.85
MAT_MARGIN = 0.1
#: A square whose centre lies this close (px) to a marker already read is that marker.
_SAME_PX = 20.0


@dataclass(frozen=True, slots=True)
class CodeTemplates:
    """Codes in each of their four turns (rows: id-major, then turn 0, 90, 180, 270 degrees clockwise),
    their cells zero-mean and of unit norm, per blur; and the code's frame alone (cells grey) per blur.

    ``size``: the template's side (px), the code and its white surround; ``inner``: the cells' rows and
    columns in it.
    """

    ids: tuple[int, ...]
    size: int
    inner: slice
    codes: tuple[NDArray[Any], ...]
    frames: tuple[NDArray[Any], ...]


@dataclass(frozen=True, slots=True)
class PatchMatch:
    """What `match_patch` found: the code's id (None when glare saturates the cells), its quarter turn
    (0..3, clockwise), its correlation and its lead over any other code's in any turn."""

    id: int | None
    quarter: int
    score: float
    lead: float


def _unit(rows: NDArray[Any]) -> NDArray[Any]:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return np.asarray(rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6), np.float32)


def dictionary_size(dictionary: int) -> int:
    """How many codes the predefined ArUco dictionary ``dictionary`` holds."""
    return int(cv2.aruco.getPredefinedDictionary(dictionary).bytesList.shape[0])


@functools.lru_cache(maxsize=8)
def code_templates(dictionary: int, ids: tuple[int, ...], side: int, surround: int,
                   blurs: tuple[float, ...]) -> CodeTemplates:
    """The templates of the codes ``ids`` of ``dictionary``: each code ``side`` px across with ``surround``
    px of white around it, blurred (Gaussian sigma, px) as much as each of ``blurs``."""
    size = side + 2 * surround
    aruco = cv2.aruco.getPredefinedDictionary(dictionary)
    sharp = []
    for i in ids:
        t = np.full((size, size), 255.0, np.float32)
        t[surround:surround + side, surround:surround + side] = cv2.aruco.generateImageMarker(aruco, i, side)
        sharp += [np.rot90(t, -k) for k in range(4)]
    cell = side / (aruco.markerSize + 2)  # the bits and the frame across
    lo, hi = surround + int(round(cell)), surround + side - int(round(cell))
    frame = np.full((size, size), 255.0, np.float32)
    frame[surround:surround + side, surround:surround + side] = 0.0
    frame[lo:hi, lo:hi] = 128.0
    # the cells are compared, not the frame and the white around them (the same in every code)
    inner = slice(lo, hi)
    codes, frames = [], []
    for blur in blurs:
        def soft(img: NDArray[Any], sigma: float = blur) -> NDArray[Any]:
            return np.asarray(cv2.GaussianBlur(img, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE), np.float32)

        codes.append(_unit(np.stack([soft(t)[inner, inner].ravel() for t in sharp])))
        frames.append(soft(frame))
    return CodeTemplates(ids, size, inner, tuple(codes), tuple(frames))


def prepare_templates(dictionary: int) -> CodeTemplates:
    """Every code's templates of ``dictionary`` as the board and marker matching use them, made now (a recogniser
    calls this once at start, so that the first frame that matches a code does not make them)."""
    return code_templates(dictionary, tuple(range(dictionary_size(dictionary))), SIDE_PX, SURROUND_PX, BLURS_PX)


def code_scores(patch: NDArray[Any], t: CodeTemplates, saturated: float = SATURATED,
                glared_share: float = GLARED_SHARE) -> tuple[NDArray[Any], bool, tuple[int, int]]:
    """``(len(t.ids), 4)``: every code's correlation with the middle of ``patch`` (a float32 square
    somewhat larger than ``t.size``) in each quarter turn, the code's frame placing it; whether more than
    ``glared_share`` of the cells are at least ``saturated`` (glare may hide dark cells); and where the
    frame placed the template (its top-left, patch px)."""
    big = patch.shape[0]
    # the code's frame places it and says how blurred it is
    fits = [cv2.minMaxLoc(cv2.matchTemplate(patch, f, cv2.TM_CCOEFF_NORMED)) for f in t.frames]
    k = int(np.argmax([f[1] for f in fits]))
    bx, by = fits[k][3]
    windows = [patch[y0:y0 + t.size, x0:x0 + t.size][t.inner, t.inner].ravel()
               for y0 in range(max(0, by - 1), min(big - t.size, by + 1) + 1)
               for x0 in range(max(0, bx - 1), min(big - t.size, bx + 1) + 1)]
    cells = np.stack(windows)
    scores = (t.codes[k] @ _unit(cells).T).max(axis=1).reshape(len(t.ids), 4)
    glared = float(np.mean(cells[len(windows) // 2] >= saturated)) > glared_share
    return scores, glared, (int(bx), int(by))


def match_patch(patch: NDArray[Any], t: CodeTemplates, saturated: float = SATURATED,
                glared_share: float = GLARED_SHARE) -> PatchMatch:
    """The code of ``t`` that best matches the middle of ``patch`` (a float32 square somewhat larger than
    ``t.size``; the code's frame places it within): its quarter turn, correlation and lead over any other
    code's in any turn. The id is None when more than ``glared_share`` of the cells are at least
    ``saturated`` (glare may hide dark cells)."""
    scores, glared, _ = code_scores(patch, t, saturated, glared_share)
    per_id = scores.max(axis=1)
    order = np.argsort(per_id)[::-1]
    best, second = float(per_id[order[0]]), float(per_id[order[1]])
    quarter = int(np.argmax(scores[order[0]]))
    return PatchMatch(None if glared else t.ids[order[0]], quarter, best, best - second)


def local_contrast(patch: NDArray[Any], sigma: float, floor: float = 2.0) -> NDArray[Any]:
    """``patch`` less its own blur (Gaussian ``sigma``, px), divided by the local spread of what is left
    over the same blur (at least ``floor`` grey levels): smooth light taken out, weak contrast raised."""
    img = np.asarray(patch, np.float32)
    fine = img - cv2.GaussianBlur(img, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    spread = cv2.GaussianBlur(fine * fine, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    return np.asarray(fine / np.sqrt(spread + floor * floor), np.float32)


@functools.lru_cache(maxsize=8)
def _square_detector(dictionary: int, window: int) -> cv2.aruco.ArucoDetector:
    """A tolerant detector whose rejected squares are the candidates (several threshold windows)."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.02
    params.adaptiveThreshWinSizeMin = max(3, window // 2 | 1)
    params.adaptiveThreshWinSizeMax = 3 * window
    params.adaptiveThreshWinSizeStep = max(2, window // 2)
    params.adaptiveThreshConstant = 5
    params.polygonalApproxAccuracyRate = 0.05
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)


def _candidate_squares(gray: Image, dictionary: int, window_rate: float,
                       blur: FrameBlur | None = None) -> list[NDArray[Any]]:
    """The squares the tolerant detector found in the sharpened frame but could not decode, clockwise
    (``blur``: ``gray``'s `FrameBlur`, when the frame's searches share it)."""
    side = max(gray.shape[:2])
    window = max(3, int(round(window_rate * side)) | 1)
    soft = frame_blur(gray, sharpen_sigma(side), blur)
    _, _, rejected = _square_detector(dictionary, window).detectMarkers(cv2.addWeighted(gray, 2.0, soft, -1.0, 0))
    out = []
    for r in rejected:
        quad = np.asarray(r, np.float64).reshape(4, 2)
        if cv2.contourArea(quad.astype(np.float32), oriented=True) < 0:
            quad = quad[::-1].copy()  # clockwise, as the detector's markers
        out.append(quad)
    return out


def markers_by_matching(gray: Image, dictionary: int, wanted: Sequence[int], seen: Sequence[Marker] = (),
                        min_score: float = MAT_MIN, min_lead: float = MAT_MARGIN,
                        window_rate: float = 0.0102, blur: FrameBlur | None = None) -> tuple[Marker, ...]:
    """The markers of the ids ``wanted`` among the squares a tolerant detector found in ``gray`` but could
    not decode (blur smears their cells): each square is compared with every code of ``dictionary``,
    blurred, and taken as a wanted marker only when that code matches it with a correlation of at least
    ``min_score`` and ahead of every other code's, in any turn, by ``min_lead``. Squares at a marker of
    ``seen`` are skipped; the corners are in the detector's order (the marker's own top-left first).
    ``window_rate``: the detector's middle threshold window, a fraction of the frame's longer side.
    ``blur``: ``gray``'s `FrameBlur`, when the frame's searches share it."""
    if not wanted:
        return ()
    t = code_templates(dictionary, tuple(range(dictionary_size(dictionary))), SIDE_PX, SURROUND_PX, BLURS_PX)
    pad = SURROUND_PX + SEARCH_PX
    n = t.size + 2 * SEARCH_PX
    inner = np.array([[pad, pad], [n - pad, pad], [n - pad, n - pad], [pad, n - pad]], np.float32)
    out: list[Marker] = []
    for quad in _candidate_squares(gray, dictionary, window_rate, blur):
        centre = quad.mean(0)
        if any(float(np.hypot(*(m.corners.mean(0) - centre))) < _SAME_PX for m in list(seen) + out):
            continue
        to_patch = cv2.getPerspectiveTransform(quad.astype(np.float32), inner)
        patch = np.asarray(cv2.warpPerspective(gray, to_patch, (n, n), flags=cv2.INTER_LINEAR,
                                               borderMode=cv2.BORDER_REPLICATE), np.float32)
        found = match_patch(patch, t)
        if found.id is not None and found.id in wanted and found.score >= min_score and found.lead >= min_lead:
            # the marker's own top-left corner lies where its turn took it
            out.append(Marker(int(found.id), np.array([quad[(j + found.quarter) % 4] for j in range(4)], np.float64)))
    return tuple(out)


def mat_markers_by_matching(gray: Image, config: VisionConfig, seen: Sequence[Marker] = (),
                            blur: FrameBlur | None = None) -> tuple[Marker, ...]:
    """`markers_by_matching` for the mat markers of ``config``'s layout that ``seen`` lacks (``blur``: ``gray``'s
    `FrameBlur`, when the frame's searches share it)."""
    layout = config.table.markers
    have = {m.id for m in seen}
    wanted = [i for i in layout.marker_ids if i not in have]
    return markers_by_matching(gray, config.aruco_dictionary, wanted, seen,
                               window_rate=config.marker_threshold_window, blur=blur)
