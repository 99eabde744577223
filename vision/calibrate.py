"""Table calibration: ArUco markers -> homography to table millimetres -> rectified image.

The four mat corner markers define table coordinates (`vision.layout`);
each Organizing Chart is located by its own two seat markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import NoMatError
from vision.config import DEFAULT_CONFIG, VisionConfig
from vision.faces import Image
from vision.layout import CHART, MAT, seat_of_marker

__all__ = [
    "Calibration",
    "Calibrator",
    "ChartPose",
    "Marker",
    "MarkerTracker",
    "Rectified",
    "find_markers",
    "locate_charts",
    "marker_outlines",
    "mat_homography",
    "rectify",
]

FloatArray = NDArray[Any]


@dataclass(frozen=True, slots=True)
class Marker:
    """A detected ArUco marker: its id and four corners in image pixels (ArUco order)."""

    id: int
    corners: FloatArray


@dataclass(frozen=True, slots=True)
class Calibration:
    """Image <-> table homographies from the mat's corner markers."""

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


def _detector(config: VisionConfig, window: int, scale: float = 1.0) -> cv2.aruco.ArucoDetector:
    """An ArUco detector; ``scale``: frame side over image side, when searching a part of a frame."""
    params = cv2.aruco.DetectorParameters()
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


_DETECTORS: dict[tuple[int, int, int], cv2.aruco.ArucoDetector] = {}
#: region sizes are rounded up to a multiple of this for the detector cache
_REGION_STEP = 16


def find_markers(gray: Image, config: VisionConfig = DEFAULT_CONFIG,
                 frame_side: int | None = None) -> tuple[Marker, ...]:
    """Every ArUco marker of the configured dictionary in a grey frame.

    ``frame_side``: the longer side of the whole camera frame when ``gray`` is only a part
    of it (the threshold window scales with the frame, not with the part).
    """
    # the frame is filled by the table, so marker sizes scale with the frame
    own = max(gray.shape[:2])
    side = frame_side if frame_side is not None else own
    window = max(3, int(round(config.marker_threshold_window * side)) | 1)
    region = 0 if side <= own else -(-own // _REGION_STEP) * _REGION_STEP
    key = (config.aruco_dictionary, window, region)
    det = _DETECTORS.get(key)
    if det is None:
        det = _DETECTORS[key] = _detector(config, window, side / region if region else 1.0)
    corners, ids, _ = det.detectMarkers(gray)
    if ids is None:
        return ()
    return tuple(Marker(int(i), np.asarray(c, np.float64).reshape(4, 2)) for c, i in zip(corners, ids.ravel()))


def _layout_marker(marker_id: int) -> bool:
    return marker_id in MAT.marker_ids or seat_of_marker(marker_id) is not None


class MarkerTracker:
    """`find_markers` for a stream of frames of one table: searches small regions once it knows where to look.

    After a full-frame search that saw enough of the mat's corner markers for a
    calibration, the mat's and charts' markers (the layout's ids) are remembered. On
    the next frames only a region around each of them is searched
    (``config.marker_roi_margin`` marker sides on every side). Whenever one of them is
    not found again there (covered, or the camera or mat moved), and at least every
    ``config.marker_full_search_every`` frames (a chart placed since), the whole frame
    is searched again. In region mode only the layout's markers are reported.
    """

    def __init__(self, config: VisionConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self.known: tuple[Marker, ...] = ()
        self.since_full = 0
        self.full_searches = 0

    def reset(self) -> None:
        """Forget the markers: the next frame is searched in full."""
        self.known = ()
        self.since_full = 0

    def find(self, gray: Image) -> tuple[Marker, ...]:
        """The markers in this grey frame (see the class docstring)."""
        every = self.config.marker_full_search_every
        mat_known = sum(1 for m in self.known if m.id in MAT.marker_ids)
        if mat_known >= self.config.min_mat_markers and self.since_full + 1 < every:
            found = self._in_regions(gray)
            if found is not None:
                self.since_full += 1
                self.known = found
                return found
        markers = find_markers(gray, self.config)
        self.full_searches += 1
        self.since_full = 0
        self.known = tuple(m for m in markers if _layout_marker(m.id))
        return markers

    def _in_regions(self, gray: Image) -> tuple[Marker, ...] | None:
        """Every known marker, found again near where it was; ``None`` when one is missing."""
        h, w = gray.shape[:2]
        side = max(h, w)
        found: list[Marker] = []
        for old in self.known:
            pts = old.corners
            size = float(np.max(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))
            pad = self.config.marker_roi_margin * size + 4
            x0 = max(0, int(np.floor(pts[:, 0].min() - pad)))
            y0 = max(0, int(np.floor(pts[:, 1].min() - pad)))
            x1 = min(w, int(np.ceil(pts[:, 0].max() + pad)) + 1)
            y1 = min(h, int(np.ceil(pts[:, 1].max() + pad)) + 1)
            if x1 - x0 < size or y1 - y0 < size:  # out of this frame (another camera?)
                return None
            hits = [m for m in find_markers(gray[y0:y1, x0:x1], self.config, side) if m.id == old.id]
            if len(hits) != 1:
                return None
            found.append(Marker(old.id, hits[0].corners + np.array([x0, y0], np.float64)))
        return tuple(found)


def mat_homography(markers: tuple[Marker, ...], config: VisionConfig = DEFAULT_CONFIG) -> Calibration:
    """The image -> table homography from the mat's corner markers.

    :raises NoMatError: when fewer than ``config.min_mat_markers`` corner markers were seen.
    """
    src: list[FloatArray] = []
    dst: list[tuple[float, float]] = []
    seen: set[int] = set()
    for m in markers:
        if m.id in MAT.marker_ids and m.id not in seen:
            seen.add(m.id)
            src.append(m.corners)
            dst.extend(MAT.marker_corners(MAT.marker_ids.index(m.id)))
    if len(seen) < config.min_mat_markers:
        raise NoMatError(len(seen))
    s = np.concatenate(src).astype(np.float64)
    d = np.array(dst, np.float64)
    H, _ = cv2.findHomography(s, d, 0)
    if H is None:
        raise NoMatError(len(seen))
    proj = cv2.perspectiveTransform(s[None], H)[0]
    err = float(np.sqrt(np.mean(np.sum((proj - d) ** 2, axis=1))))
    return Calibration(H, np.linalg.inv(H), len(seen), err)


class Calibrator:
    """Keeps the last mat calibration and re-checks it on every frame.

    The cached homography is kept while the mat's corners, mapped through the
    new frame's markers, stay within ``config.recalibrate_tolerance`` of the
    mat width; otherwise (the camera or mat moved) it is recomputed.
    """

    def __init__(self, config: VisionConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self.cached: Calibration | None = None
        self.recalibrations = 0

    def reset(self) -> None:
        """Forget the cached calibration: the next frame is calibrated afresh."""
        self.cached = None

    def update(self, markers: tuple[Marker, ...]) -> Calibration:
        """Calibration for this frame's markers.

        :raises NoMatError: when the mat's corner markers are not in view.
        """
        fresh = mat_homography(markers, self.config)
        if self.cached is not None and self._agrees(self.cached, fresh):
            return self.cached
        self.cached = fresh
        self.recalibrations += 1
        return fresh

    def _agrees(self, old: Calibration, new: Calibration) -> bool:
        corners = np.array([[0, 0], [MAT.width, 0], [MAT.width, MAT.height], [0, MAT.height]], np.float64)
        a = cv2.perspectiveTransform(corners[None], old.table_to_image)[0]
        b = cv2.perspectiveTransform(a[None], new.image_to_table)[0]
        return bool(np.max(np.linalg.norm(b - corners, axis=1)) < self.config.recalibrate_tolerance * MAT.width)


def locate_charts(markers: tuple[Marker, ...], calibration: Calibration) -> dict[int, ChartPose]:
    """Pose of every Organizing Chart whose seat markers are in view, by seat (0-based)."""
    found: dict[int, tuple[list[FloatArray], list[tuple[float, float]]]] = {}
    for m in markers:
        ss = seat_of_marker(m.id)
        if ss is None:
            continue
        seat, side = ss
        table = cv2.perspectiveTransform(m.corners[None], calibration.image_to_table)[0]
        src, dst = found.setdefault(seat, ([], []))
        src.append(np.array(CHART.marker_corners(side), np.float64))
        dst.extend((float(x), float(y)) for x, y in table)
    poses: dict[int, ChartPose] = {}
    for seat, (src, dst) in found.items():
        full = _similarity(np.concatenate(src), np.array(dst, np.float64))
        poses[seat] = ChartPose(seat, full, np.linalg.inv(full), len(src))
    return poses


def _similarity(src: FloatArray, dst: FloatArray) -> FloatArray:
    """Least-squares rotation, uniform scale and shift mapping ``src`` onto ``dst`` (3x3)."""
    n = len(src)
    a = np.zeros((2 * n, 4))
    a[0::2, 0], a[0::2, 1], a[0::2, 2] = src[:, 0], -src[:, 1], 1.0
    a[1::2, 0], a[1::2, 1], a[1::2, 3] = src[:, 1], src[:, 0], 1.0
    (p, q, tx, ty), *_ = np.linalg.lstsq(a, dst.reshape(-1), rcond=None)
    return np.array([[p, -q, tx], [q, p, ty], [0.0, 0.0, 1.0]])


def rectify(frame: Image, calibration: Calibration, config: VisionConfig = DEFAULT_CONFIG) -> Rectified:
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


def marker_outlines(markers: tuple[Marker, ...], rect: Rectified) -> list[FloatArray]:
    """The outlines of the mat's and charts' markers in ``rect``'s pixels (no component lies there).

    A marker is kept only if it has one of the layout's ids and its printed size on the
    table: a card's face can decode as a marker, and that card must still be found.
    """
    if rect.rect_to_frame is None or not markers:
        return []
    to_rect = np.linalg.inv(rect.rect_to_frame)
    out: list[FloatArray] = []
    for m in markers:
        if m.id in MAT.marker_ids:
            size = MAT.marker_size
        elif seat_of_marker(m.id) is not None:
            size = CHART.marker_size
        else:
            continue
        pts = cv2.perspectiveTransform(m.corners[None], to_rect)[0]
        side = float(np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1))) / rect.px_per_mm
        if abs(side - size) <= 0.25 * size:
            out.append(pts)
    return out
