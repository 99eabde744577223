"""Frame -> `TableView`, stage by stage, with per-stage timings and annotation.

>>> from vision.pipeline import Recognizer           # doctest: +SKIP
>>> view = Recognizer().recognize(frame).view         # doctest: +SKIP
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image as PILImage

from vision import UnreadableImageError
from vision.calibrate import (
    Calibration,
    Calibrator,
    ChartPose,
    MarkerTracker,
    Rectified,
    locate_charts,
    marker_outlines,
    rectify,
)
from vision.classify import DEFAULT_MODEL, Classifier, Recognition, Verdict
from vision.config import DEFAULT_CONFIG, VisionConfig
from vision.detect import Detection, find_components, warp_crops
from vision.faces import Image
from vision.places import PlaceMemory
from vision.tableview import TableView, build_table_view

__all__ = ["Recognizer", "Result", "StageTimes", "annotate", "load_image"]


@dataclass(frozen=True, slots=True)
class StageTimes:
    """Milliseconds spent in each stage of one frame."""

    markers: float
    calibrate: float
    rectify: float
    detect: float
    crops: float
    classify: float
    view: float

    @property
    def total(self) -> float:
        """Sum of all stages."""
        return self.markers + self.calibrate + self.rectify + self.detect + self.crops + self.classify + self.view


@dataclass(frozen=True, slots=True)
class Result:
    """A frame's TableView with the intermediate results it came from."""

    view: TableView
    calibration: Calibration
    charts: dict[int, ChartPose]
    #: the grey top-down image the components were found in
    rectified: Rectified
    detections: tuple[Detection, ...]
    recognitions: tuple[Recognition, ...]
    times: StageTimes
    #: the classifier's input, one crop per detection: ``(N, H, W, 3)`` uint8 BGR from the camera frame
    crops: Image


def load_image(path: Path | str) -> Image:
    """Read an image file as BGR.

    :raises UnreadableImageError: when the file is missing, truncated or not an image.
    """
    p = Path(path)
    try:
        with PILImage.open(p) as im:
            im.load()
            rgb = np.asarray(im.convert("RGB"))
    except FileNotFoundError:
        raise UnreadableImageError(f"image file not found: {p}") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise UnreadableImageError(f"cannot read image {p}: {exc}") from None
    bgr: Image = np.ascontiguousarray(rgb[:, :, ::-1])
    return bgr


class Recognizer:
    """Runs the stages on frames; keeps the calibration cache between frames.

    Successive frames are taken to show the same table: once the markers were found, the
    next frames are searched for them only where they were (`MarkerTracker`), and a pile
    or chart space that held a card and now shows nothing readable is reported
    unrecognised, not empty (`vision.places.PlaceMemory`). Call `reset` before a frame of
    another table to search it in full at once.

    :raises ModelFileError: when the model file cannot be loaded.
    """

    def __init__(self, model: Path | str = DEFAULT_MODEL, config: VisionConfig = DEFAULT_CONFIG,
                 classifier: Classifier | None = None) -> None:
        self.config = config
        self.classifier = classifier if classifier is not None else Classifier(model)
        self.calibrator = Calibrator(config)
        self.tracker = MarkerTracker(config)
        #: the card last seen on each tableau pile and chart space, while the table has not moved
        self.places = PlaceMemory()
        self._last_calibration: Calibration | None = None

    def reset(self) -> None:
        """Forget the cached calibration, marker positions and the cards last seen on each place."""
        self.calibrator.reset()
        self.tracker.reset()
        self.places.reset()
        self._last_calibration = None

    def recognize(self, frame: Image) -> Result:
        """One frame (BGR or grey) -> `Result`.

        :raises NoMatError: when too few of the mat's markers are in view.
        """
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        cfg = self.config
        t0 = time.perf_counter()
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = self.tracker.find(gray)
        t1 = time.perf_counter()
        cal = self.calibrator.update(markers)
        charts = locate_charts(markers, cal)
        t2 = time.perf_counter()
        rect = rectify(gray, cal, cfg)
        t3 = time.perf_counter()
        dets = find_components(rect.image, cfg, marker_outlines(markers, rect))
        t4 = time.perf_counter()
        crops = warp_crops(frame, dets, cfg, rect.rect_to_frame)
        t5 = time.perf_counter()
        recs = self.classifier.classify(crops, cfg.confidence_threshold)
        t6 = time.perf_counter()
        items = [(d.kind, rect.to_table(*d.centre), d.angle, r) for d, r in zip(dets, recs)]
        if cal is not self._last_calibration:
            self.places.reset()  # the table or camera moved: the places are elsewhere in the frame
            self._last_calibration = cal
        view = self.places.update(build_table_view(items, charts, cal.markers_seen, cal.error_mm), rect, charts)
        t7 = time.perf_counter()
        ms = [1000 * (b - a) for a, b in zip((t0, t1, t2, t3, t4, t5, t6), (t1, t2, t3, t4, t5, t6, t7))]
        return Result(view, cal, charts, rect, tuple(dets), tuple(recs), StageTimes(*ms), crops)


_COLOURS = {
    Verdict.IDENTIFIED: (40, 200, 40),
    Verdict.UNSURE: (0, 140, 255),
    Verdict.NOT_A_COMPONENT: (60, 60, 230),
}


def annotate(frame: Image, result: Result) -> Image:
    """A copy of ``frame`` with every detection outlined, labelled and its confidence shown."""
    out = frame.copy()
    rect_to_image = result.calibration.table_to_image @ np.linalg.inv(result.rectified.table_to_rect)
    scale = max(0.4, out.shape[1] / 2400)
    for d, r in zip(result.detections, result.recognitions):
        pts = cv2.perspectiveTransform(d.corners[None].astype(np.float64), rect_to_image)[0]
        colour = _COLOURS[r.verdict]
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        text = f"{r.best} {r.confidence:.2f}" if r.verdict is Verdict.IDENTIFIED else \
            f"? {r.best} {r.confidence:.2f}"
        org = (int(pts[:, 0].min()), int(pts[:, 1].min()) - 4)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    return out
