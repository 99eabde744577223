"""Table calibration: ArUco markers -> homography to table millimetres -> rectified image.

The mat's markers define table coordinates; each seat's board (a Big Top
Organizing Chart) is located by its own markers (any one suffices). Where the
markers are is the game's `vision.geometry.MarkerLayout`, in ``config.table``.

Markers are read by a fast detector (one threshold window); where it misses
some of the layout's markers, a slower one (sharpened image, several windows,
more tolerant decoding) searches again (`find_markers` with ``robust=True``):
only around where the missing markers must lie and around the squares the fast
one could not decode (`missing_windows`), the whole frame when the markers read
cannot say where. In a large frame the slow detector may search the frame shrunk
(`find_markers_reduced`: a few times faster), its corners refined in the frame.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import NoMatError
from vision.config import VisionConfig
from vision.geometry import Image, MarkerLayout

__all__ = [
    "BLOCK",
    "Calibration",
    "Calibrator",
    "ChartPose",
    "FrameBlur",
    "Marker",
    "MarkerTracker",
    "Rectified",
    "block_means",
    "looks_same",
    "find_layout_markers",
    "find_markers",
    "find_markers_reduced",
    "find_missing_mat_markers",
    "frame_blur",
    "locate_charts",
    "marker_outlines",
    "mat_homography",
    "merged_windows",
    "missing_windows",
    "prepare_unshrunk",
    "rectify",
    "reduction",
    "sharpen_sigma",
    "unshrunk",
]

FloatArray = NDArray[Any]


@dataclass(frozen=True, slots=True)
class Marker:
    """A detected ArUco marker: its id and four corners in image pixels (ArUco order)."""

    id: int
    corners: FloatArray


@dataclass(frozen=True, slots=True)
class Calibration:
    """Image <-> table homographies from the mat's markers (corners and edges)."""

    image_to_table: FloatArray
    table_to_image: FloatArray
    markers_seen: int
    #: RMS distance (mm) between the markers' measured and ideal table positions
    error_mm: float


@dataclass(frozen=True, slots=True)
class ChartPose:
    """Where a seat's Organizing Chart lies: chart mm <-> table mm similarity transforms."""

    seat: int
    chart_to_table: FloatArray
    table_to_chart: FloatArray
    markers_seen: int

    def to_chart(self, x: float, y: float) -> tuple[float, float]:
        """Table mm -> this chart's mm."""
        v = self.table_to_chart @ np.array([x, y, 1.0])
        return (float(v[0]), float(v[1]))

    @property
    def angle(self) -> float:
        """Rotation of the chart on the table in degrees (counter-clockwise as seen)."""
        m = self.chart_to_table
        return float(np.degrees(np.arctan2(-m[1, 0], m[0, 0])) % 360)


@dataclass(frozen=True, slots=True)
class Rectified:
    """The top-down image of the table region and its mapping from table mm."""

    image: Image
    #: table mm -> rectified pixel (scale and offset only)
    table_to_rect: FloatArray
    px_per_mm: float
    #: rectified pixel -> camera frame pixel (a homography), when known
    rect_to_frame: FloatArray | None = None

    def to_table(self, x: float, y: float) -> tuple[float, float]:
        """Rectified pixel -> table mm."""
        return (x / self.px_per_mm + self.origin[0], y / self.px_per_mm + self.origin[1])

    @property
    def origin(self) -> tuple[float, float]:
        """Table mm of the rectified image's top-left pixel."""
        return (-self.table_to_rect[0, 2] / self.px_per_mm, -self.table_to_rect[1, 2] / self.px_per_mm)


def _detector(config: VisionConfig, window: int, scale: float = 1.0, robust: bool = False) -> cv2.aruco.ArucoDetector:
    """An ArUco detector; ``scale``: frame side over image side, when searching a part of a frame.

    ``robust``: the slow path for blurred, dim, glared or small markers: threshold windows
    from about half to three times ``window``, a looser polygon fit, finer cell sampling
    and more bit errors corrected (the 4x4 dictionary's ids are far apart).
    """
    params = cv2.aruco.DetectorParameters()
    if robust:
        params.minMarkerPerimeterRate = 0.02 * scale
        params.maxMarkerPerimeterRate *= scale
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.adaptiveThreshWinSizeMin = max(3, window // 2 | 1)
        params.adaptiveThreshWinSizeMax = 3 * window
        params.adaptiveThreshWinSizeStep = max(2, window // 2)
        params.adaptiveThreshConstant = 5
        params.polygonalApproxAccuracyRate = 0.05
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.2
        params.errorCorrectionRate = 0.8
        dictionary = cv2.aruco.getPredefinedDictionary(config.aruco_dictionary)
        return cv2.aruco.ArucoDetector(dictionary, params)
    # OpenCV takes marker perimeter limits relative to the searched image's longer side: in a
    # small region of the frame they must keep their size in the frame, or every speck of
    # noise becomes a candidate to decode
    params.minMarkerPerimeterRate *= scale
    params.maxMarkerPerimeterRate *= scale
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # One thresholding pass instead of OpenCV's three (3, 13, 23 px at 1280 px): the
    # smallest window only finds markers too small to decode reliably, and a second
    # window finds no more markers on the synthetic benchmark frames; each pass costs
    # about as much as all the rest of the detector.
    params.adaptiveThreshWinSizeMin = window
    params.adaptiveThreshWinSizeMax = window
    params.adaptiveThreshWinSizeStep = 10
    dictionary = cv2.aruco.getPredefinedDictionary(config.aruco_dictionary)
    return cv2.aruco.ArucoDetector(dictionary, params)


_DETECTORS: dict[tuple[int, int, int, bool, bool], cv2.aruco.ArucoDetector] = {}
#: the slow path's unsharp mask: the grey image less its blur (this fraction of the frame's longer side),
#: this many times over. Blur of a few cells' width (defocus and motion, worst at the Pi's wide frame,
#: where markers are smaller relative to the frame) rounds a marker's cells into one grey blob that one
#: times over leaves undecodable; three times restores the cells' contrast
_SHARPEN_SIGMA = 0.0016
_SHARPEN_AMOUNT = 3.0
#: region sizes are rounded up to a multiple of this for the detector cache
_REGION_STEP = 16


class FrameBlur:
    """One grey frame's Gaussian blur (``sigma``), made once for every search of the frame that subtracts it
    from the frame: the slow marker search (`find_markers`), the search for undecoded squares
    (`vision.codematch.markers_by_matching`) and a recogniser's unsharp mask of the part of the frame where
    its table lies (`part`). Nothing is blurred until asked for; the frame must not change meanwhile."""

    def __init__(self, gray: Image, sigma: float) -> None:
        self.gray = gray
        self.sigma = sigma
        self._whole: Image | None = None

    @property
    def made(self) -> bool:
        """True once the whole frame's blur was made."""
        return self._whole is not None

    def whole(self) -> Image:
        """``cv2.GaussianBlur(gray, (0, 0), sigma)`` (read only)."""
        if self._whole is None:
            out: Image = cv2.GaussianBlur(self.gray, (0, 0), self.sigma)
            out.flags.writeable = False
            self._whole = out
        return self._whole

    def part(self, x0: int, y0: int, x1: int, y1: int) -> Image:
        """``cv2.GaussianBlur(gray[y0:y1, x0:x1], (0, 0), sigma)`` bit for bit, from the whole frame's blur: a
        pixel whose filter window lies inside the part is the same in both; a band along each edge of the
        part, where the filter mirrors the part's edge, is blurred on its own (the band twice as deep as the
        filter reaches, so the band's far edge is out of reach too)."""
        part = self.gray[y0:y1, x0:x1]
        h, w = part.shape[:2]
        if (y0, x0, h, w) == (0, 0, *self.gray.shape[:2]):
            return self.whole().copy()
        # OpenCV's kernel reaches round(3 sigma) px for 8-bit images (4 sigma for others): 4 sigma and more
        reach = int(math.ceil(4 * self.sigma)) + 2
        depth = 2 * reach
        if h <= depth or w <= depth:
            out: Image = cv2.GaussianBlur(part, (0, 0), self.sigma)
            return out
        out = self.whole()[y0:y1, x0:x1].copy()
        out[:reach] = cv2.GaussianBlur(part[:depth], (0, 0), self.sigma)[:reach]
        out[h - reach:] = cv2.GaussianBlur(part[h - depth:], (0, 0), self.sigma)[reach:]
        out[:, :reach] = cv2.GaussianBlur(part[:, :depth], (0, 0), self.sigma)[:, :reach]
        out[:, w - reach:] = cv2.GaussianBlur(part[:, w - depth:], (0, 0), self.sigma)[:, reach:]
        return out


def frame_blur(gray: Image, sigma: float, shared: FrameBlur | None) -> Image:
    """``cv2.GaussianBlur(gray, (0, 0), sigma)``, taken from ``shared`` when that is ``gray``'s blur at ``sigma``
    (read only then)."""
    if shared is not None and shared.gray is gray and shared.sigma == sigma:
        return shared.whole()
    out: Image = cv2.GaussianBlur(gray, (0, 0), sigma)
    return out


def sharpen_sigma(side: int) -> float:
    """The blur (px) the slow marker search subtracts in a frame whose longer side is ``side`` px."""
    return max(1.0, _SHARPEN_SIGMA * side)


def find_markers(gray: Image, config: VisionConfig, frame_side: int | None = None, robust: bool = False,
                 squares: list[FloatArray] | None = None, one_window: bool = False,
                 blur: FrameBlur | None = None) -> tuple[Marker, ...]:
    """Every ArUco marker of the configured dictionary in a grey frame.

    ``frame_side``: the longer side of the whole camera frame when ``gray`` is only a part
    of it (the threshold window scales with the frame, not with the part). ``robust``:
    the slow path (several times slower): the image is sharpened (unsharp mask) and
    searched with several threshold windows and a more tolerant decoder. ``one_window``: the
    slow path with the fast one's threshold window alone (about a fifth of its time; it finds
    the mat's markers that blur hides from the fast path on most frames). ``squares``, when
    given, receives the squares the detector found but could not decode (corners clockwise).
    ``blur``: ``gray``'s `FrameBlur` for the slow path (made once for the frame's searches).
    """
    # the frame is filled by the table, so marker sizes scale with the frame
    own = max(gray.shape[:2])
    side = frame_side if frame_side is not None else own
    window = max(3, int(round(config.marker_threshold_window * side)) | 1)
    region = 0 if side <= own else -(-own // _REGION_STEP) * _REGION_STEP
    key = (config.aruco_dictionary, window, region, robust, robust and one_window)
    det = _DETECTORS.get(key)
    if det is None:
        det = _DETECTORS[key] = _detector(config, window, side / region if region else 1.0, robust)
        if robust and one_window:
            params = det.getDetectorParameters()
            params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = window
            params.adaptiveThreshWinSizeStep = 10
            det.setDetectorParameters(params)
    if robust:
        soft = frame_blur(gray, sharpen_sigma(side), blur)
        gray = cv2.addWeighted(gray, 1.0 + _SHARPEN_AMOUNT, soft, -_SHARPEN_AMOUNT, 0)
    corners, ids, rejected = det.detectMarkers(gray)
    if squares is not None:
        for r in rejected:
            quad = np.asarray(r, np.float64).reshape(4, 2)
            squares.append(quad if cv2.contourArea(quad.astype(np.float32), oriented=True) >= 0 else quad[::-1].copy())
    if ids is None:
        return ()
    return tuple(Marker(int(i), np.asarray(c, np.float64).reshape(4, 2)) for c, i in zip(corners, ids.ravel()))


#: `reduction`: a frame is shrunk for the marker search to no less than this longer side (px), about the frame the
#: detector's settings were chosen at (a 1280 px frame's markers stay large enough to decode)
_REDUCED_SIDE = 1152
#: `find_markers_reduced`: a corner is refined in a window of this fraction of a marker cell (the marker's side over
#: its 6 cells) each side, from 2 to 8 px; a refinement that moves a corner further than one shrunk pixel is not taken
_REFINE_CELL = 0.5
_REFINE_MIN_PX = 2
_REFINE_MAX_PX = 8
#: `find_markers_reduced`: each marker is read again in the frame in a window this many of its sides beyond it
_REREAD_MARGIN = 0.5


def reduction(side: int) -> int:
    """The factor a frame whose longer side is ``side`` px is shrunk by for `find_markers_reduced` (1: not at all)."""
    return max(1, side // _REDUCED_SIDE)


def find_markers_reduced(gray: Image, config: VisionConfig, factor: int, one_window: bool = True,
                         keep: Callable[[int], bool] | None = None) -> tuple[Marker, ...]:
    """The slow path's markers (`find_markers` with ``robust=True``) searched in ``gray`` shrunk ``factor`` times
    (pixel areas averaged), each one's corners brought back to ``gray`` and refined there.

    A large frame's camera blurs its markers over as many of its pixels as a small frame's over a smaller share of
    theirs: the slow path reads them in the shrunk frame at a fraction of the cost. Each corner is refined in the
    frame: read again around where it was found, by the fast path and else the slow one (the corners a search of the
    whole frame reads), else by `cv2.cornerSubPix` on the frame sharpened as the slow path sharpens it; a corner stays
    where the shrunk frame put it when refining would move it further than one shrunk pixel. ``one_window``: the
    fast path's threshold window alone (`find_markers`). ``factor`` 1 is `find_markers` on ``gray``. ``keep``: only
    the markers whose id it accepts are read again and returned (the others' rereading is skipped).
    """
    if factor <= 1:
        return tuple(m for m in find_markers(gray, config, robust=True, one_window=one_window)
                     if keep is None or keep(m.id))
    h, w = gray.shape[:2]
    small = cv2.resize(gray, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    found = find_markers(small, config, robust=True, one_window=one_window)
    sigma = sharpen_sigma(max(h, w))
    side = max(h, w)
    out = []
    for m in found:
        if keep is not None and not keep(m.id):
            continue
        # a shrunk pixel's centre is the centre of the frame's block of factor x factor pixels
        corners = m.corners * factor + (factor - 1) / 2
        size = float(np.max(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
        pad = max(_REREAD_MARGIN * size, _WINDOW_MIN_PX)
        x0 = max(0, math.floor(float(corners[:, 0].min()) - pad))
        y0 = max(0, math.floor(float(corners[:, 1].min()) - pad))
        x1 = min(w, math.ceil(float(corners[:, 0].max()) + pad) + 1)
        y1 = min(h, math.ceil(float(corners[:, 1].max()) + pad) + 1)
        shift = np.array([x0, y0], np.float64)
        again: list[FloatArray] = []
        for robust in (False, True):  # the fast path's corners where it reads the marker, as a whole frame's search
            again = [a.corners + shift for a in find_markers(gray[y0:y1, x0:x1], config, side, robust=robust)
                     if a.id == m.id and float(np.abs(a.corners + shift - corners).max()) <= 2 * factor]
            if again:
                break
        out.append(Marker(m.id, again[0] if again else _refined(gray, corners, sigma, factor)))
    return tuple(out)


def _refined(gray: Image, corners: FloatArray, sigma: float, step: float) -> FloatArray:
    """``corners`` (a marker's, frame px) refined on the frame sharpened around them; a corner refining would move
    further than ``step`` px stays."""
    cell = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1))) / 6
    win = max(_REFINE_MIN_PX, min(_REFINE_MAX_PX, int(round(_REFINE_CELL * cell))))
    # the sharpened patch must hold each corner's window and, around it, the blur's reach
    pad = win + int(math.ceil(4 * sigma)) + 2
    h, w = gray.shape[:2]
    x0 = max(0, math.floor(float(corners[:, 0].min())) - pad)
    y0 = max(0, math.floor(float(corners[:, 1].min())) - pad)
    x1 = min(w, math.ceil(float(corners[:, 0].max())) + pad + 1)
    y1 = min(h, math.ceil(float(corners[:, 1].max())) + pad + 1)
    if x1 - x0 <= 2 * win + 5 or y1 - y0 <= 2 * win + 5:
        return corners
    part = gray[y0:y1, x0:x1]
    sharp = cv2.addWeighted(part, 1.0 + _SHARPEN_AMOUNT, cv2.GaussianBlur(part, (0, 0), sigma), -_SHARPEN_AMOUNT, 0)
    shift = np.array([x0, y0], np.float64)
    pts = (corners - shift).astype(np.float32).reshape(-1, 1, 2)
    # a corner within a window of the patch's edge cannot be refined there
    inside = np.all((pts[:, 0] >= win + 1) & (pts[:, 0] <= np.array([x1 - x0, y1 - y0]) - win - 2), axis=1)
    if not inside.all():
        return corners
    cv2.cornerSubPix(sharp, pts, (win, win), (-1, -1),
                     (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
    refined = pts.reshape(4, 2).astype(np.float64) + shift
    moved = np.linalg.norm(refined - corners, axis=1) <= step
    return np.where(moved[:, None], refined, corners)


#: `unshrunk`: the camera's tone curve, undone before the edges are fitted (a blur mixes light, not grey levels)
_GAMMA = 2.2
_LINEAR = ((np.arange(256) / 255.0) ** _GAMMA).astype(np.float32)
#: `unshrunk` samples each side of a marker across its edge from this far outside (in marker cells; the printed
#: quiet zone is wider) to this far inside, and along it over the cells that do not touch a corner
_EDGE_OUTSIDE = 0.5
_EDGE_INSIDE = 2.0
_EDGE_STEP = 0.125
_EDGE_ALONG_STEP = 0.25
#: `unshrunk` tries the edge this far (cells) out from where it was read, at blurs (Gaussian sigma, cells) of ...
_EDGE_SHIFTS = np.arange(-0.15, 0.6 + 1e-9, 0.0125)
_EDGE_BLURS = np.array([0.1, 0.15, 0.2, 0.27, 0.35, 0.45, 0.6, 0.8])
#: ... and takes a side's shift only where the blurred print at it correlates with the side's profile this well
_EDGE_FIT = 0.95


def unshrunk(gray: Image, marker: Marker, dictionary: int) -> Marker:
    """``marker`` with its corners moved out by what blur took off its square, measured on its edges in ``gray``.

    Blur spreads light, so a dark square on white paper reads smaller than printed (three to four percent for a
    chart's marker at the camera model's medium and hard levels): the detector thresholds the grey levels. Each
    side's profile across its edge, averaged along the side's middle cells and taken to linear light, is fitted by
    the marker's own print (its code's cells by the side) blurred and moved out; each pair of opposite sides'
    shifts are averaged, so the marker's centre stays where it was read, and the corners move out by them. A side
    that reaches out of the frame or fits badly (`_EDGE_FIT`: a hand, glare) is left out; with no side fitted the
    marker is given back as it was.
    """
    models, n = _edge_models(dictionary, marker.id)
    across, along = _edge_grid(n)
    canon = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    to_image = cv2.getPerspectiveTransform(canon, np.asarray(marker.corners, np.float32))
    pts = cv2.perspectiveTransform(_edge_points(n)[None], to_image)[0]
    h, w = gray.shape[:2]
    x0, y0 = max(0, math.floor(float(pts[:, 0].min())) - 1), max(0, math.floor(float(pts[:, 1].min())) - 1)
    x1, y1 = min(w, math.ceil(float(pts[:, 0].max())) + 2), min(h, math.ceil(float(pts[:, 1].max())) + 2)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return marker
    inside = ((pts[:, 0] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] >= 0) & (pts[:, 1] <= h - 1)).reshape(4, -1)
    loc = (pts - np.array([x0, y0], np.float32)).reshape(-1, 1, 2)
    vals = cv2.remap(_LINEAR[gray[y0:y1, x0:x1]], loc[..., 0], loc[..., 1], cv2.INTER_LINEAR)
    profiles = vals.reshape(4, len(across), len(along)).mean(axis=2)
    profiles -= profiles.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(profiles, axis=1)
    fit = np.einsum("kmt,kt->km", models, profiles / np.maximum(norms, 1e-9)[:, None])
    best = np.argmax(fit, axis=1)
    shifts: list[float | None] = []
    for k in range(4):
        j = int(best[k]) % len(_EDGE_SHIFTS)
        ok = (inside[k].all() and norms[k] > 1e-4 and float(fit[k, best[k]]) >= _EDGE_FIT
              and 0 < j < len(_EDGE_SHIFTS) - 1)
        shifts.append(float(_EDGE_SHIFTS[j]) if ok else None)
    ex = [d for d in (shifts[0], shifts[2]) if d is not None]
    ey = [d for d in (shifts[1], shifts[3]) if d is not None]
    if not ex and not ey:
        return marker
    out_x = sum(ex) / len(ex) if ex else sum(ey) / len(ey)
    out_y = sum(ey) / len(ey) if ey else out_x
    grown = np.array([[-out_x, -out_y], [n + out_x, -out_y], [n + out_x, n + out_y], [-out_x, n + out_y]],
                     np.float64)
    return Marker(marker.id, cv2.perspectiveTransform(grown[None], to_image.astype(np.float64))[0])


def prepare_unshrunk(config: VisionConfig) -> None:
    """Make now what `unshrunk` makes on first use for each chart marker of ``config``'s layout (the expected
    profiles across its sides), so that the first frame that places a chart by few markers does not make them."""
    layout = config.table.markers
    size = int(cv2.aruco.getPredefinedDictionary(config.aruco_dictionary).bytesList.shape[0])
    for marker_id in range(size):
        if layout.board_of_marker(marker_id) is not None:
            n = _edge_models(config.aruco_dictionary, marker_id)[1]
            _edge_points(n)


def _edge_grid(n: int) -> tuple[FloatArray, FloatArray]:
    """`unshrunk`'s samples across a side (cells from its edge inward) and along it (cells), for a marker of ``n``
    cells a side (its border included)."""
    across = np.arange(-_EDGE_OUTSIDE, _EDGE_INSIDE + 1e-9, _EDGE_STEP)
    along = np.arange(1.5, n - 1.5 + 1e-9, _EDGE_ALONG_STEP)
    return across, along


def _side_cells(side: int, t: FloatArray, s: FloatArray, n: int) -> tuple[FloatArray, FloatArray]:
    """Marker cell coordinates (x right, y down) of the point ``t`` cells inward from side ``side``'s edge (0 left,
    1 top, 2 right, 3 bottom) and ``s`` along it."""
    if side == 0:
        return t, s
    if side == 1:
        return s, t
    if side == 2:
        return n - t, s
    return s, n - t


def _edge_points(n: int) -> FloatArray:
    """Every sample of `unshrunk` in marker cells, side by side, ``(4 * across * along, 2)`` float32 (read only)."""
    kept = _EDGE_POINTS.get(n)
    if kept is None:
        across, along = _edge_grid(n)
        t, s = np.meshgrid(across, along, indexing="ij")
        kept = np.concatenate([np.stack(_side_cells(k, t, s, n), axis=-1).reshape(-1, 2) for k in range(4)])
        kept = kept.astype(np.float32)
        kept.flags.writeable = False
        _EDGE_POINTS[n] = kept
    return kept


def _edge_models(dictionary: int, marker_id: int) -> tuple[FloatArray, int]:
    """`unshrunk`'s profiles of marker ``marker_id``'s print across each side, blurred (`_EDGE_BLURS`) and moved out
    (`_EDGE_SHIFTS`), each less its mean and of unit length: ``(4, blurs * shifts, across)``, and the marker's side
    in cells (read only)."""
    key = (dictionary, marker_id)
    kept = _EDGE_MODELS.get(key)
    if kept is not None:
        return kept
    table = cv2.aruco.getPredefinedDictionary(dictionary)
    n = int(table.markerSize) + 2
    bits = cv2.aruco.generateImageMarker(table, marker_id, n, borderBits=1).astype(np.float64) / 255.0
    across, along = _edge_grid(n)
    smooth = _edge_steps(n)
    out = np.empty((4, len(_EDGE_BLURS) * len(_EDGE_SHIFTS), len(across)))
    for k in range(4):
        levels = [1.0]  # the white quiet zone outside, then each cell column's mean over the samples along
        for c in range(4):
            x, y = _side_cells(k, np.full(len(along), c + 0.5), along, n)
            levels.append(float(bits[np.floor(y).astype(int), np.floor(x).astype(int)].mean()))
        profile = 1.0 + np.einsum("bsjt,j->bst", smooth, np.diff(levels)).reshape(-1, len(across))
        profile -= profile.mean(axis=1, keepdims=True)
        out[k] = profile / np.maximum(np.linalg.norm(profile, axis=1, keepdims=True), 1e-12)
    out.flags.writeable = False
    kept = _EDGE_MODELS[key] = (out, n)
    return kept


def _edge_steps(n: int) -> FloatArray:
    """A unit step up at the edge and at each of the three cell boundaries behind it, across a side (`_edge_grid`),
    blurred (`_EDGE_BLURS`) and moved out (`_EDGE_SHIFTS`, the marker of ``n`` cells grown about its centre):
    ``(blurs, shifts, 4, across)`` (read only)."""
    kept = _EDGE_STEPS.get(n)
    if kept is None:
        across, _ = _edge_grid(n)
        half = n / 2
        moved = half - (half - np.arange(4.0)[None, :]) * (1 + _EDGE_SHIFTS[:, None] / half)  # (shifts, 4)
        z = (across[None, None, None, :] - moved[None, :, :, None]) / _EDGE_BLURS[:, None, None, None]
        kept = 0.5 * (1.0 + _erf(z / math.sqrt(2.0)))
        kept.flags.writeable = False
        _EDGE_STEPS[n] = kept
    return kept


def _erf(x: FloatArray) -> FloatArray:
    """The error function (Abramowitz and Stegun 7.1.26, within 1.5e-7)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    out: FloatArray = np.sign(x) * (1.0 - poly * np.exp(-a * a))
    return out


_EDGE_MODELS: dict[tuple[int, int], tuple[FloatArray, int]] = {}
_EDGE_POINTS: dict[int, FloatArray] = {}
_EDGE_STEPS: dict[int, FloatArray] = {}


def find_missing_mat_markers(gray: Image, markers: tuple[Marker, ...], config: VisionConfig) -> tuple[Marker, ...]:
    """The slow path's mat markers that ``markers`` lack, searched only around where each must lie (`missing_windows`,
    the mat's markers read placing them; the frame itself, full size): those of the layout's mat markers found
    there, each id once. Empty when ``markers`` cannot place the mat."""
    layout = config.table.markers
    have = {m.id for m in markers}
    mat = tuple(m for m in markers if m.id in layout.marker_ids)
    windows = missing_windows(mat, gray.shape, config)
    if not windows:
        return ()
    out: list[Marker] = []
    for m in _search_windows(gray, config, windows, []):
        if m.id in layout.marker_ids and m.id not in have:
            out.append(m)
            have.add(m.id)
    return tuple(out)


def _layout_marker(marker_id: int, layout: MarkerLayout) -> bool:
    return marker_id in layout.marker_ids or layout.board_of_marker(marker_id) is not None


def _complete(markers: tuple[Marker, ...], layout: MarkerLayout) -> bool:
    """True when the markers show every mat marker and every marker of each chart seen, of the
    sheet version they show (the fast detector missed none it could have been expected to see)."""
    ids = {m.id for m in markers}
    version = layout.sheet_version_of(ids)
    if version is None:
        return False
    mat = layout.mat_marker_ids(version)
    if not set(mat) <= ids:
        return False
    per_chart = layout.markers_per_board(version)
    seats: dict[int, int] = {}
    for i in ids:
        ss = layout.board_of_marker(i)
        if ss is not None:
            seats[ss[0]] = seats.get(ss[0], 0) + 1
    return all(n >= per_chart for n in seats.values())


def _merge(first: tuple[Marker, ...], more: tuple[Marker, ...]) -> tuple[Marker, ...]:
    """``first`` plus the markers of ``more`` whose ids it lacks."""
    have = {m.id for m in first}
    return first + tuple(m for m in more if m.id not in have)


def find_layout_markers(gray: Image, config: VisionConfig,
                        squares: list[FloatArray] | None = None) -> tuple[Marker, ...]:
    """`find_markers` on a whole frame, with the slow path when the fast one missed a layout marker.

    The slow path searches only windows (`missing_windows`): around where each missing marker must lie (the
    mat's from the mat markers the fast path read, a chart's from its markers read) and around each square the
    fast path could not decode that may be a chart's marker; then around the other markers of each chart
    those windows showed. It searches the whole frame when the fast path read too little to say.
    ``squares``, when given, receives the squares the fast path found but could not decode and those the
    slow path found in its windows (after a whole-frame slow search: the squares that search found).
    """
    fast: list[FloatArray] = []
    markers = find_markers(gray, config, squares=fast)
    layout = config.table.markers
    if _complete(markers, layout):
        if squares is not None:
            squares.extend(fast)
        return markers
    windows = missing_windows(markers, gray.shape, config, fast)
    if windows is None:
        return _merge(markers, find_markers(gray, config, robust=True, squares=squares))
    more = _search_windows(gray, config, windows, fast)
    found = _merge(markers, more)
    before = _seats(markers, layout)
    new_seats = _seats(found, layout) - before
    if new_seats:  # a chart none of whose markers the fast path read: its other markers
        again = _missing_windows(found, gray.shape, config, (), new_seats) or []
        done = set(windows)
        more += _search_windows(gray, config, [w for w in again if w not in done], fast)
        found = _merge(markers, more)
    if squares is not None:
        squares.extend(fast)
    return found


def _seats(markers: tuple[Marker, ...], layout: MarkerLayout) -> set[int]:
    return {ss[0] for m in markers for ss in (layout.board_of_marker(m.id),) if ss is not None}


def _search_windows(gray: Image, config: VisionConfig, windows: list[tuple[int, int, int, int]],
                    squares: list[FloatArray]) -> tuple[Marker, ...]:
    """The slow path's markers in each window ``x0, y0, x1, y1`` of ``gray`` (frame px), once each; the squares
    it could not decode are added to ``squares``."""
    side = max(gray.shape[:2])
    more: list[Marker] = []
    for x0, y0, x1, y1 in merged_windows(windows):
        part: list[FloatArray] = []
        shift = np.array([x0, y0], np.float64)
        for m in find_markers(gray[y0:y1, x0:x1], config, side, robust=True, squares=part):
            corners = m.corners + shift
            # overlapping windows find a marker twice: once is enough
            if not any(o.id == m.id and float(np.abs(o.corners - corners).max()) <= _SAME_MARKER_PX for o in more):
                more.append(Marker(m.id, corners))
        squares.extend(q + shift for q in part)
    return tuple(more)


def merged_windows(windows: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``windows`` (``x0, y0, x1, y1``), each once, with every two whose bounding box is no larger than the two
    together replaced by that box, until no two are: the slow path's cost grows with the pixels it searches, and
    a missing marker's window and that of the undecoded square it shows mostly overlap."""
    out = list(dict.fromkeys(windows))
    i = 0
    while i < len(out):
        a = out[i]
        for j in range(i + 1, len(out)):
            b = out[j]
            box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
            if _area(box) <= _area(a) + _area(b):
                del out[j]
                out[i] = box
                i = -1  # the larger window may now take in one looked at before
                break
        i += 1
    return out


def _area(window: tuple[int, int, int, int]) -> int:
    return (window[2] - window[0]) * (window[3] - window[1])


#: `missing_windows`: a missing marker is searched for this many of its sides beyond where it must lie, on every
#: side (a chart placed by one marker turns a little, lens distortion bends the mat), and at least `_WINDOW_MIN_PX`;
#: an undecoded square this many of its sides beyond it
_WINDOW_MARGIN = 1.5
_SQUARE_MARGIN = 0.5
_WINDOW_MIN_PX = 12
#: an undecoded square may be a chart's marker when its side on the table is within this fraction of a chart
#: marker's printed side (blur shrinks or grows a square) and it lies off the mat, this far (mm) from every marker read
_SQUARE_SIZE_TOLERANCE = 0.35
_SQUARE_APART_MM = 10.0
#: two markers of one id whose corners lie this close (px) are one
_SAME_MARKER_PX = 2.0


def missing_windows(markers: tuple[Marker, ...], shape: tuple[int, ...], config: VisionConfig,
                    squares: Sequence[FloatArray] = ()) -> list[tuple[int, int, int, int]] | None:
    """Where in a frame of ``shape`` the slow path must look for the layout markers that ``markers`` (a fast
    search's) lack, as windows ``x0, y0, x1, y1`` (px): around where each missing mat marker must lie (from the
    homography of the mat markers read, `mat_homography`), around where each missing marker of a chart read in
    part must lie (from its pose, `locate_charts`), and around each of ``squares`` (the fast search's undecoded
    squares) that may be a chart's marker: off the mat, of a chart marker's size, away from every marker read (a
    chart none of whose markers the fast path read). None when the fast search read too little to say (too few
    mat markers for a calibration, no layout marker): the whole frame must be searched. A window wholly outside
    the frame is left out.
    """
    return _missing_windows(markers, shape, config, squares, None)


def _missing_windows(markers: tuple[Marker, ...], shape: tuple[int, ...], config: VisionConfig,
                     squares: Sequence[FloatArray], seats: set[int] | None) -> list[tuple[int, int, int, int]] | None:
    """`missing_windows`; with ``seats``, only the missing markers of those seats' charts."""
    layout = config.table.markers
    ids = {m.id for m in markers}
    version = layout.sheet_version_of(ids)
    if version is None:
        return None
    try:
        cal = mat_homography(markers, config)
    except NoMatError:
        return None
    quads: list[tuple[FloatArray, float]] = []
    if seats is None:
        for k, mid in enumerate(layout.marker_ids):
            if mid in layout.mat_marker_ids(version) and mid not in ids:
                quads.append((np.array(layout.marker_corners(k), np.float64), _WINDOW_MARGIN))
    printed = _board_sides(config, version)
    for seat, pose in locate_charts(markers, cal, config).items():
        if seats is not None and seat not in seats:
            continue
        sides = {ss[1] for i in ids for ss in (layout.board_of_marker(i),) if ss is not None and ss[0] == seat}
        for side in printed.get(seat, ()):
            if side not in sides:
                corners = np.array(layout.board_marker_corners(side), np.float64)
                quads.append((corners @ pose.chart_to_table[:2, :2].T + pose.chart_to_table[:2, 2], _WINDOW_MARGIN))
    if seats is None and len(squares):
        sizes = {layout.board_marker_size(side) for v in printed.values() for side in v}
        # all squares' and markers' corners at once: for a few points numpy's overhead is the cost
        read = _to_table([m.corners for m in markers], cal).mean(axis=1).tolist()
        tables = _to_table(squares, cal)
        centres = tables.mean(axis=1).tolist()
        sides = np.linalg.norm(tables - np.roll(tables, 1, axis=1), axis=2).tolist()
        for table, (x, y), lengths in zip(tables, centres, sides):
            if 0 <= x <= layout.width and 0 <= y <= layout.height:
                continue  # charts lie off the mat
            side_mm = sum(lengths) / 4
            if (any(abs(side_mm - s) <= _SQUARE_SIZE_TOLERANCE * s for s in sizes)
                    and all(math.hypot(x - c[0], y - c[1]) > _SQUARE_APART_MM for c in read)):
                quads.append((table, _SQUARE_MARGIN))
    h, w = shape[:2]
    out: list[tuple[int, int, int, int]] = []
    for table, margin in quads:
        pts = cv2.perspectiveTransform(table[None], cal.table_to_image)[0]
        size = float(np.max(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))
        pad = max(margin * size, _WINDOW_MIN_PX)
        x0 = max(0, math.floor(float(pts[:, 0].min()) - pad))
        y0 = max(0, math.floor(float(pts[:, 1].min()) - pad))
        x1 = min(w, math.ceil(float(pts[:, 0].max()) + pad) + 1)
        y1 = min(h, math.ceil(float(pts[:, 1].max()) + pad) + 1)
        if x1 - x0 >= size and y1 - y0 >= size:
            out.append((x0, y0, x1, y1))
    return out


def _to_table(quads: Sequence[FloatArray], calibration: Calibration) -> FloatArray:
    """``(N, 4, 2)``: each of the image ``quads`` (four corners each) in table mm (one transform of them all,
    each point as `cv2.perspectiveTransform` maps it alone)."""
    if not len(quads):
        return np.zeros((0, 4, 2), np.float64)
    pts = np.concatenate([np.asarray(q, np.float64).reshape(4, 2) for q in quads])
    out: FloatArray = cv2.perspectiveTransform(pts[None], calibration.image_to_table)[0].reshape(-1, 4, 2)
    return out


_BOARD_SIDES: dict[tuple[int, int, int], tuple[MarkerLayout, dict[int, tuple[int, ...]]]] = {}


def _board_sides(config: VisionConfig, version: int) -> dict[int, tuple[int, ...]]:
    """The sides of each seat's board that carry a marker on a print of sheet ``version``, by seat."""
    layout = config.table.markers
    key = (id(layout), config.aruco_dictionary, version)
    kept = _BOARD_SIDES.get(key)
    if kept is None or kept[0] is not layout:
        sides: dict[int, list[int]] = {}
        for i in range(int(cv2.aruco.getPredefinedDictionary(config.aruco_dictionary).bytesList.shape[0])):
            ss = layout.board_of_marker(i)
            if ss is not None and (layout.sheet_version_of({i}) or 0) <= version:
                sides.setdefault(ss[0], []).append(ss[1])
        kept = _BOARD_SIDES[key] = (layout, {seat: tuple(sorted(v)) for seat, v in sides.items()})
    return kept[1]


class MarkerTracker:
    """`find_markers` for a stream of frames of one table: searches small regions once it knows where to look.

    After a full-frame search that saw enough of the mat's markers for a
    calibration, the mat's and charts' markers (the layout's ids) are remembered. On
    the next frames only a region around each of them is searched
    (``config.marker_roi_margin`` marker sides on every side), by the slow path where
    the fast one misses. A marker found by neither (a hand over it) is left out while
    ``config.min_mat_markers`` of the mat's remain. Whenever one has moved, or too few
    of the mat's remain, and at least every ``config.marker_full_search_every`` frames
    (a chart placed since), the whole frame is searched again (`find_layout_markers`).
    In region mode only the layout's markers are reported. A marker whose region shows the same as
    when it was last found, within sensor noise (no 4x4 block's mean moved by more than
    `REGION_SAME` grey levels since), is given back where it was found, without a search.
    """

    def __init__(self, config: VisionConfig) -> None:
        self.config = config
        self.known: tuple[Marker, ...] = ()
        self.since_full = 0
        self.full_searches = 0
        #: the squares the last full search found but could not decode (empty after a region search)
        self.squares: list[FloatArray] = []
        #: each known marker's region's block means when it was found there, by id and corners
        self._regions: dict[tuple[int, bytes], NDArray[np.int16]] = {}
        #: the frame of the last full search, until the next frame looked at its markers' regions
        self._full_frame: Image | None = None
        #: markers searched for in their regions, and given back unsearched (counts)
        self.region_searches = 0
        self.region_kept = 0

    def reset(self) -> None:
        """Forget the markers: the next frame is searched in full."""
        self.known = ()
        self.since_full = 0
        self._regions = {}
        self._full_frame = None

    def find(self, gray: Image) -> tuple[Marker, ...]:
        """The markers in this grey frame (see the class docstring)."""
        every = self.config.marker_full_search_every
        self.squares = []
        mat_known = sum(1 for m in self.known if m.id in self.config.table.markers.marker_ids)
        if mat_known >= self.config.min_mat_markers and self.since_full + 1 < every:
            found = self._in_regions(gray)
            if found is not None:
                self.since_full += 1
                self.known = found
                return found
        markers = find_layout_markers(gray, self.config, self.squares)
        self.full_searches += 1
        self.since_full = 0
        self.known = tuple(m for m in markers if _layout_marker(m.id, self.config.table.markers))
        self._regions = {}
        self._full_frame = gray.copy()
        return markers

    def _region(self, marker: Marker, shape: tuple[int, ...]) -> tuple[int, int, int, int, float]:
        """Where ``marker`` is searched for in a frame of ``shape``: ``x0, y0, x1, y1`` and its side (px)."""
        h, w = shape[:2]
        # plain floats: for a marker's four corners numpy's overhead is most of the work
        pts = marker.corners.tolist()
        size = max(math.sqrt((x - px) * (x - px) + (y - py) * (y - py))
                   for (x, y), (px, py) in zip(pts, pts[-1:] + pts[:-1]))
        pad = self.config.marker_roi_margin * size + 4
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        x0 = max(0, math.floor(min(xs) - pad))
        y0 = max(0, math.floor(min(ys) - pad))
        x1 = min(w, math.ceil(max(xs) + pad) + 1)
        y1 = min(h, math.ceil(max(ys) + pad) + 1)
        return x0, y0, x1, y1, size

    def _in_regions(self, gray: Image) -> tuple[Marker, ...] | None:
        """The known markers found again near where they were, the slow path where the fast one
        misses; ``None`` when one has moved, or fewer than ``config.min_mat_markers`` mat markers remain.

        A marker found by neither path is left out (a hand over it) while enough others show.
        """
        h, w = gray.shape[:2]
        side = max(h, w)
        found: list[Marker] = []
        regions: dict[tuple[int, bytes], NDArray[np.int16]] = {}
        for old in self.known:
            x0, y0, x1, y1, size = self._region(old, gray.shape)
            if x1 - x0 < size or y1 - y0 < size:  # out of this frame (another camera?)
                return None
            part = gray[y0:y1, x0:x1]
            looks = block_means(part)
            key = (old.id, old.corners.tobytes())
            then = self._regions.get(key)
            if then is None and self._full_frame is not None and self._full_frame.shape == gray.shape:
                then = block_means(self._full_frame[y0:y1, x0:x1])
            if then is not None and looks_same(then, looks):
                found.append(old)
                regions[key] = then
                self.region_kept += 1
                continue
            self.region_searches += 1
            hits = [m for m in find_markers(part, self.config, side) if m.id == old.id]
            if not hits:
                hits = [m for m in find_markers(part, self.config, side, robust=True) if m.id == old.id]
            if len(hits) > 1:
                return None
            if not hits:
                continue
            corners = hits[0].corners + np.array([x0, y0], np.float64)
            if float(np.max(np.linalg.norm(corners - old.corners, axis=1))) > 0.25 * size:
                return None  # moved: search the whole frame
            found.append(Marker(old.id, corners))
            regions[(old.id, corners.tobytes())] = looks
        self._full_frame = None
        if sum(1 for m in found if m.id in self.config.table.markers.marker_ids) < self.config.min_mat_markers:
            return None
        self._regions = regions
        return tuple(found)


#: a marker's region counts as unchanged while no 4x4 block's mean moved by more than this many grey levels
#: (as `vision.recall.TILE_SAME`: sensor noise of 2 grey levels moves one by 3 at most, a marker moved by a
#: pixel moves a block on its edge by about 30)
REGION_SAME = 6
#: the side (px) of the blocks whose means tell a still image from a changed one
BLOCK = 4


def block_means(image: Image) -> NDArray[np.int16]:
    """A grey image's `BLOCK` x `BLOCK` block means (int16), the last partial row and column of blocks left
    out (an image smaller than one block has none)."""
    h, w = image.shape[:2]
    if h < BLOCK or w < BLOCK:
        return np.zeros((h // BLOCK, w // BLOCK), np.int16)
    out: NDArray[np.int16] = cv2.resize(image[:h - h % BLOCK, :w - w % BLOCK], (w // BLOCK, h // BLOCK),
                                        interpolation=cv2.INTER_AREA).astype(np.int16)
    return out


def looks_same(then: NDArray[np.int16], now: NDArray[np.int16]) -> bool:
    """Whether two images' block means (`block_means`) show the same within sensor noise: the same shape, and no
    block's mean moved by more than `REGION_SAME` grey levels."""
    return then.shape == now.shape and int(np.abs(now - then).max(initial=0)) <= REGION_SAME


#: a mat marker whose corners miss the others' homography by more than this (mm, RMS) is dropped
#: (a card face decoded as that id, or a misread corner)
_MAT_OUTLIER_MM = 4.0


def _fit(src: list[FloatArray], dst: list[FloatArray]) -> tuple[FloatArray | None, list[float]]:
    s = np.concatenate(src).astype(np.float64)
    d = np.concatenate(dst).astype(np.float64)
    H, _ = cv2.findHomography(s, d, 0)
    if H is None:
        return None, []
    errs = [float(np.sqrt(np.mean(np.sum((cv2.perspectiveTransform(a[None], H)[0] - b) ** 2, axis=1))))
            for a, b in zip(src, dst)]
    return H, errs


def mat_homography(markers: tuple[Marker, ...], config: VisionConfig) -> Calibration:
    """The image -> table homography from the mat's markers (corners and edges).

    Card faces sometimes decode as a mat marker's id: the homography is fitted to the
    largest set of markers, at most one per id, that agree within 4 mm.

    The same markers (ids and corners) under the same config as the last call that gave a calibration give
    it again, unfitted, as a new `Calibration` (a first frame's marker search fits the markers the fast
    path read, and the calibration fits them again when the slow path found no more).

    :raises NoMatError: when fewer than ``config.min_mat_markers`` agreeing mat markers were
        seen, or all of them lie along one edge of the mat.
    """
    key = _markers_key(markers)
    last = _LAST_MAT
    if last and last[0] is config and last[1] == key:
        cal = last[2]
    else:
        cal = _mat_homography(markers, config)
        _LAST_MAT[:] = [config, key, cal]
    return Calibration(cal.image_to_table.copy(), cal.table_to_image.copy(), cal.markers_seen, cal.error_mm)


#: `mat_homography`'s last calibration: its config, its markers' `_markers_key` and the calibration (read only)
_LAST_MAT: list[Any] = []


def _markers_key(markers: Sequence[Marker]) -> tuple[tuple[int, tuple[int, ...], str, bytes], ...]:
    """Markers' ids and corners, exactly (shape, type and bytes), as a key."""
    out = []
    for m in markers:
        c = np.asarray(m.corners)
        out.append((m.id, c.shape, c.dtype.str, c.tobytes()))
    return tuple(out)


def _mat_homography(markers: tuple[Marker, ...], config: VisionConfig) -> Calibration:
    """`mat_homography`, fitted."""
    layout = config.table.markers
    cands = [(layout.marker_ids.index(m.id), m.corners) for m in markers if m.id in layout.marker_ids]
    total = len(layout.marker_ids)
    ids = {k for k, _ in cands}
    need = config.min_mat_markers
    if len(ids) < need:
        raise NoMatError(len(ids), total)
    fitted: tuple[FloatArray | None, list[float]] | None = None
    best = _by_unique_ids(cands, need, layout) if len(cands) > len(ids) else None
    if best is None and len(cands) > len(ids):
        best = _agreeing(cands, need, layout)
    if best is None:
        # one marker per id: keep all, dropping the worst while it disagrees
        best = [(k, c) for k, c in cands]
        while True:
            H, errs = _fit([c for _, c in best], [np.array(layout.marker_corners(k), np.float64) for k, _ in best])
            if H is None:
                raise NoMatError(len(best), total)
            worst = int(np.argmax(errs))
            if errs[worst] <= _MAT_OUTLIER_MM:
                fitted = H, errs  # the fit to ``best`` as it is kept
                break
            if len(best) <= need:
                consensus = _agreeing(cands, need, layout)
                if consensus is None:
                    raise NoMatError(len(best) - 1, total)
                best = consensus
                continue
            del best[worst]
    idx = [k for k, _ in best]
    if len(idx) < need or any(set(idx) <= set(e) for e in layout.marker_lines):
        raise NoMatError(len(idx), total)
    H, errs = fitted if fitted is not None else _fit([c for _, c in best],
                                                     [np.array(layout.marker_corners(k), np.float64) for k in idx])
    if H is None or max(errs) > _MAT_OUTLIER_MM:
        raise NoMatError(len(idx), total)
    err = float(np.sqrt(np.mean(np.square(errs))))
    return Calibration(H, np.linalg.inv(H), len(idx), err)


def _by_unique_ids(cands: list[tuple[int, FloatArray]], need: int,
                   layout: MarkerLayout) -> list[tuple[int, FloatArray]] | None:
    """Fit to the ids seen once; of an id seen more often keep the candidate that fit puts in place.

    None when the ids seen once are too few or disagree (`_agreeing` then searches).
    """
    counts: dict[int, int] = {}
    for k, _ in cands:
        counts[k] = counts.get(k, 0) + 1
    single = [(k, c) for k, c in cands if counts[k] == 1]
    if len(single) < need or any({k for k, _ in single} <= set(e) for e in layout.marker_lines):
        return None
    ideal = {k: np.array(layout.marker_corners(k), np.float64) for k, _ in cands}
    H, errs = _fit([c for _, c in single], [ideal[k] for k, _ in single])
    if H is None or max(errs) > _MAT_OUTLIER_MM:
        return None
    out = list(single)
    for k in {k for k, _ in cands if counts[k] > 1}:
        scored = [(float(np.sqrt(np.mean(np.sum((cv2.perspectiveTransform(c[None], H)[0] - ideal[k]) ** 2,
                                                    axis=1)))), c) for kk, c in cands if kk == k]
        e, c = min(scored, key=lambda ec: ec[0])
        if e <= _MAT_OUTLIER_MM:
            out.append((k, c))
    return out


def _agreeing(cands: list[tuple[int, FloatArray]], need: int, layout: MarkerLayout) -> list[tuple[int, FloatArray]] | None:
    """The largest set of candidates with distinct ids that one homography maps within 4 mm; None if < ``need``."""
    best: list[tuple[int, FloatArray]] = []
    best_err = float("inf")
    ideal = {k: np.array(layout.marker_corners(k), np.float64) for k, _ in cands}
    for combo in itertools.combinations(range(len(cands)), need):
        if len({cands[i][0] for i in combo}) < need:
            continue
        H, errs = _fit([cands[i][1] for i in combo], [ideal[cands[i][0]] for i in combo])
        if H is None or max(errs) > _MAT_OUTLIER_MM:
            continue
        chosen: dict[int, tuple[float, FloatArray]] = {}
        for k, c in cands:
            e = float(np.sqrt(np.mean(np.sum((cv2.perspectiveTransform(c[None], H)[0] - ideal[k]) ** 2, axis=1))))
            if e <= _MAT_OUTLIER_MM and (k not in chosen or e < chosen[k][0]):
                chosen[k] = (e, c)
        total_err = sum(e for e, _ in chosen.values())
        if len(chosen) > len(best) or (len(chosen) == len(best) and total_err < best_err):
            best = [(k, c) for k, (_, c) in chosen.items()]
            best_err = total_err
    return best if len(best) >= need else None


class Calibrator:
    """Keeps the last mat calibration and re-checks it on every frame.

    The cached homography is kept while the mat's corners, mapped through the
    new frame's markers, stay within ``config.recalibrate_tolerance`` of the
    mat width; otherwise (the camera or mat moved) it is recomputed. When too few
    mat markers show for a calibration of their own (a hand over the mat, glare), the
    cached one is kept as long as every mat marker that does show lies where it says
    (the table has not moved); so it is, without fitting, when fewer of them show than in the
    frame before, each where it lay (`STILL_MARKER_PX`): a fit to fewer markers through the
    lens's distortion may differ by more than the tolerance, yet nothing moved.
    """

    def __init__(self, config: VisionConfig) -> None:
        self.config = config
        self.cached: Calibration | None = None
        self.recalibrations = 0
        self.reused = 0
        #: the markers of the last call that gave a calibration, and whether it was the cached one reused
        self._last: tuple[tuple[Marker, ...], bool] | None = None

    def reset(self) -> None:
        """Forget the cached calibration: the next frame is calibrated afresh."""
        self.cached = None
        self._last = None

    def update(self, markers: tuple[Marker, ...]) -> Calibration:
        """Calibration for this frame's markers.

        The very markers of the last call (a still table: `MarkerTracker` gives back the markers it
        found where their regions did not change) give the same calibration without fitting again.

        :raises NoMatError: when the mat's markers are not in view (and no cached calibration
            is confirmed by those that are).
        """
        last = self._last
        if (last is not None and self.cached is not None and self.config.recalibrate_tolerance > 0
                and len(last[0]) == len(markers)
                and all(a is b for a, b in zip(last[0], markers))):
            self.reused += last[1]
            return self.cached
        self._last = None
        if (self.cached is not None and last is not None and self.config.recalibrate_tolerance > 0
                and self._fewer_still(last[0], markers)):
            self.reused += 1
            self._last = (markers, True)
            return self.cached
        try:
            fresh = mat_homography(markers, self.config)
        except NoMatError:
            if self.cached is not None and self._confirmed(self.cached, markers):
                self.reused += 1
                self._last = (markers, True)
                return self.cached
            raise
        if self.cached is None or not self._agrees(self.cached, fresh):
            self.cached = fresh
            self.recalibrations += 1
        self._last = (markers, False)
        return self.cached

    def _fewer_still(self, before: tuple[Marker, ...], now: tuple[Marker, ...]) -> bool:
        """True when fewer of the mat's markers show ``now`` than ``before`` and each that does lies where it
        lay before, within `STILL_MARKER_PX` (a hand or glare over some of them; the table has not moved)."""
        ids = self.config.table.markers.marker_ids
        then = [m for m in before if m.id in ids]
        shown = [m for m in now if m.id in ids]
        if not shown or len(shown) >= len(then):
            return False
        return all(any(a.id == m.id and float(np.max(np.abs(a.corners - m.corners))) <= STILL_MARKER_PX
                       for a in then) for m in shown)

    def _agrees(self, old: Calibration, new: Calibration) -> bool:
        w, h = self.config.table.markers.width, self.config.table.markers.height
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        a = cv2.perspectiveTransform(corners[None], old.table_to_image)[0]
        b = cv2.perspectiveTransform(a[None], new.image_to_table)[0]
        return bool(np.max(np.linalg.norm(b - corners, axis=1)) < self.config.recalibrate_tolerance * w)

    def _confirmed(self, old: Calibration, markers: tuple[Marker, ...]) -> bool:
        """True when at least one mat marker shows and every one that does lies where ``old`` puts it."""
        layout = self.config.table.markers
        seen = 0
        for m in markers:
            if m.id not in layout.marker_ids:
                continue
            ideal = np.array(layout.marker_corners(layout.marker_ids.index(m.id)), np.float64)
            table = cv2.perspectiveTransform(m.corners[None].astype(np.float64), old.image_to_table)[0]
            if float(np.max(np.linalg.norm(table - ideal, axis=1))) > self.config.recalibrate_tolerance * layout.width:
                return False
            seen += 1
        return seen > 0


#: a mat marker lies where it lay in the frame before while none of its corners moved by more than this (px; one
#: found again beside a hand moved by 1.2): a fit to fewer of them is no reason to calibrate again (`Calibrator`)
STILL_MARKER_PX = 2.0


#: a chart marker's side on the table may differ this much (fraction) from its printed side,
#: and its corners this much (mm) from where the seat's other markers put them
_CHART_SIZE_TOLERANCE = 0.25
_CHART_AGREE_MM = 6.0


def locate_charts(markers: tuple[Marker, ...], calibration: Calibration, config: VisionConfig,
                  gray: Image | None = None) -> dict[int, ChartPose]:
    """Pose of every Organizing Chart with at least one of its seat markers in view, by seat (0-based).

    A marker whose size on the table is not its printed size is ignored (a card face decoded
    as a chart id); when a seat's markers disagree, the largest group that agrees is kept.
    ``gray``: the grey frame the markers were read in; a chart that fewer than `CHART_UNSHRUNK_BELOW` of its
    markers place is then placed again by its markers' corners with the blur's shrink taken out (`unshrunk`):
    a blurred marker reads a few percent small, and one or two markers' size fix a chart's far end.
    """
    layout = config.table.markers
    found = _chart_pairs(markers, calibration, config)
    poses = _chart_poses(found)
    if gray is not None:
        weak = {seat for seat, pose in poses.items() if pose.markers_seen < CHART_UNSHRUNK_BELOW}
        if weak:
            again = tuple(unshrunk(gray, m, config.aruco_dictionary) for m in markers
                          for ss in (layout.board_of_marker(m.id),) if ss is not None and ss[0] in weak)
            poses.update(_chart_poses(_chart_pairs(again, calibration, config), cache=False))
    return poses


#: `locate_charts`: a chart placed by fewer of its markers than this is placed again with their corners `unshrunk`
CHART_UNSHRUNK_BELOW = 3


def _chart_pairs(markers: tuple[Marker, ...], calibration: Calibration,
                 config: VisionConfig) -> dict[int, list[tuple[FloatArray, FloatArray]]]:
    """Each seat's chart markers of their printed size on the table, as (chart mm, table mm) corner pairs."""
    layout = config.table.markers
    chart = [(m, ss) for m in markers for ss in (layout.board_of_marker(m.id),) if ss is not None]
    found: dict[int, list[tuple[FloatArray, FloatArray]]] = {}
    if chart:
        # every marker's corners at once: numpy's overhead, not the arithmetic, is the cost of a few points
        tables = _to_table([m.corners for m, _ in chart], calibration)
        sides = np.linalg.norm(tables - np.roll(tables, 1, axis=1), axis=2).tolist()
        for (_, (seat, side)), table, lengths in zip(chart, tables, sides):
            measured = sum(lengths) / 4
            printed = layout.board_marker_size(side)
            if abs(measured - printed) > _CHART_SIZE_TOLERANCE * printed:
                continue
            found.setdefault(seat, []).append((np.array(layout.board_marker_corners(side), np.float64), table))
    return found


def _chart_poses(found: dict[int, list[tuple[FloatArray, FloatArray]]], cache: bool = True) -> dict[int, ChartPose]:
    """Each seat's pose fitted to the largest group of its marker pairs (`_chart_pairs`) that agrees. ``cache``:
    poses are kept for the next call (`_LAST_CHARTS`) and taken from it."""
    poses: dict[int, ChartPose] = {}
    fitted: dict[tuple[tuple[int, ...], bytes, bytes], tuple[FloatArray, FloatArray, int] | None] = {}
    for seat, pairs in found.items():
        best: list[tuple[FloatArray, FloatArray]] = []
        # every pair's corners at once, each pair mapped as `_apply` maps it alone
        src, dst = np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
        # the same printed and measured corners as in the last call (a first frame's marker search, then its
        # charts, under the same calibration) give the same pose: fitted once
        key = (src.shape, src.tobytes(), dst.tobytes())
        if cache and key in _LAST_CHARTS:
            kept = fitted[key] = _LAST_CHARTS[key]
            if kept is not None:
                poses[seat] = ChartPose(seat, kept[0].copy(), kept[1].copy(), kept[2])
            continue
        fitted[key] = None
        for src0, dst0 in pairs:
            one = _similarity(src0, dst0)
            off = np.linalg.norm(src @ one[:2, :2].T + one[:2, 2] - dst, axis=2).max(axis=1)
            agree = [pairs[k] for k in np.flatnonzero(off <= _CHART_AGREE_MM).tolist()]
            if len(agree) > len(best):
                best = agree
                if len(best) == len(pairs):
                    break  # no later marker's group can be larger
        if not best:  # no marker of this seat is even square on the table
            continue
        full = _similarity(np.concatenate([p[0] for p in best]), np.concatenate([p[1] for p in best]))
        inverse = np.linalg.inv(full)
        fitted[key] = (full.copy(), inverse.copy(), len(best))
        poses[seat] = ChartPose(seat, full, inverse, len(best))
    if cache:
        _LAST_CHARTS.clear()
        _LAST_CHARTS.update(fitted)
    return poses


#: `locate_charts`' last call's poses, by the printed and measured corners of a seat's markers (copies, read only;
#: None: no pose)
_LAST_CHARTS: dict[tuple[tuple[int, ...], bytes, bytes], tuple[FloatArray, FloatArray, int] | None] = {}


def _apply(m: FloatArray, pts: FloatArray) -> FloatArray:
    out: FloatArray = pts @ m[:2, :2].T + m[:2, 2]
    return out


def _similarity(src: FloatArray, dst: FloatArray) -> FloatArray:
    """Least-squares rotation, uniform scale and shift mapping ``src`` onto ``dst`` (3x3)."""
    n = len(src)
    a = np.zeros((2 * n, 4))
    a[0::2, 0], a[0::2, 1], a[0::2, 2] = src[:, 0], -src[:, 1], 1.0
    a[1::2, 0], a[1::2, 1], a[1::2, 3] = src[:, 1], src[:, 0], 1.0
    (p, q, tx, ty), *_ = np.linalg.lstsq(a, dst.reshape(-1), rcond=None)
    return np.array([[p, -q, tx], [q, p, ty], [0.0, 0.0, 1.0]])


def rectify(frame: Image, calibration: Calibration, config: VisionConfig) -> Rectified:
    """Warp the frame (BGR or grey; the result is the same) to a top-down view of the configured table region.

    The pipeline rectifies only the grey frame, for detection, and warps the
    classifier's crops straight from the camera frame (`Rectified.rect_to_frame`).
    """
    x0, y0, x1, y1 = config.view_region_mm
    s = config.px_per_mm
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    size = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
    forward = t @ calibration.image_to_table
    img = cv2.warpPerspective(frame, forward, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    return Rectified(img, t, s, calibration.table_to_image @ np.linalg.inv(t))


def marker_outlines(markers: tuple[Marker, ...], rect: Rectified, config: VisionConfig) -> list[FloatArray]:
    """The outlines of the mat's and charts' markers in ``rect``'s pixels (no component lies there).

    A marker is kept only if it has one of the layout's ids and its printed size on the
    table: a card's face can decode as a marker, and that card must still be found.
    Live frames mostly show the same markers under the same calibration: each marker's
    outline is made once for its corners and ``rect`` (the arrays returned are read only).
    """
    if rect.rect_to_frame is None or not markers:
        return []
    view = rect.rect_to_frame.tobytes()
    if _OUTLINES_OF[0] != view or _OUTLINES_OF[1] is not config or len(_OUTLINES) > _OUTLINES_KEPT:
        _OUTLINES.clear()
        _OUTLINES_OF[:] = [view, config]
    keys = [(m.id, m.corners.tobytes()) for m in markers]
    new = {k: m for k, m in zip(keys, markers) if k not in _OUTLINES}
    if new:
        _OUTLINES.update(zip(new, _outline_all(list(new.values()), np.linalg.inv(rect.rect_to_frame), rect.px_per_mm,
                                                config)))
    return [pts for pts in map(_OUTLINES.__getitem__, keys) if pts is not None]


#: `marker_outlines`' outlines by marker id and corners, for one ``rect_to_frame`` and config
_OUTLINES: dict[tuple[int, bytes], FloatArray | None] = {}
_OUTLINES_OF: list[Any] = [None, None]
_OUTLINES_KEPT = 4096


def _outline_all(markers: list[Marker], to_rect: FloatArray, px_per_mm: float,
                 config: VisionConfig) -> list[FloatArray | None]:
    """Each marker's outline in rectified pixels (`marker_outlines`; ``to_rect``: frame -> rectified pixel), or
    None when it is not kept: all markers' corners mapped in one transform (each point as it maps alone)."""
    layout = config.table.markers
    sizes: list[float | None] = []
    for m in markers:
        ss = layout.board_of_marker(m.id)
        sizes.append(layout.marker_size if m.id in layout.marker_ids
                     else layout.board_marker_size(ss[1]) if ss is not None else None)
    corners = np.concatenate([np.asarray(m.corners, np.float64).reshape(4, 2) for m in markers])
    pts = cv2.perspectiveTransform(corners[None], to_rect)[0].reshape(-1, 4, 2)
    sides = np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=1), axis=2), axis=1) / px_per_mm
    out: list[FloatArray | None] = []
    for k, (size, side) in enumerate(zip(sizes, sides.tolist())):
        if size is None or abs(side - size) > 0.25 * size:
            out.append(None)
            continue
        one: FloatArray = pts[k].copy()
        one.flags.writeable = False
        out.append(one)
    return out
