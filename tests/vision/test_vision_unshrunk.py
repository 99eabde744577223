"""A blurred marker's corners with the blur's shrink taken out (`vision.calibrate.unshrunk`), on photos of the
independent camera model (`vision.camera_model`: lens and motion blur in linear light, noise, tone curve, JPEG)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibrate import Marker, find_markers, unshrunk
from vision.camera_model import Photo, photograph
from vision.flohcati.pipeline import CONFIG

PX_PER_MM = 2.0
REGION = (0.0, 0.0, 1200.0, 900.0)
#: markers of this side (mm; 12 canvas px a cell) on white quiet zones on light paper, in a grid
SIDE_MM = 36.0
QUIET_MM = 4.0
IDS = tuple(range(4, 16))


def _centres() -> list[tuple[float, float]]:
    return [(150.0 + 300.0 * (k % 4), 150.0 + 300.0 * (k // 4)) for k in range(len(IDS))]


def _corners_mm(cx: float, cy: float) -> np.ndarray:
    h = SIDE_MM / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float64)


def _photo(level: str, seed: int) -> Photo:
    dictionary = cv2.aruco.getPredefinedDictionary(CONFIG.aruco_dictionary)
    w, h = int(REGION[2] * PX_PER_MM), int(REGION[3] * PX_PER_MM)
    canvas = np.full((h, w, 3), 236.0, np.float32)
    side, quiet = int(SIDE_MM * PX_PER_MM), int(QUIET_MM * PX_PER_MM)
    for mid, (cx, cy) in zip(IDS, _centres()):
        x0, y0 = int((cx - SIDE_MM / 2) * PX_PER_MM), int((cy - SIDE_MM / 2) * PX_PER_MM)
        canvas[y0 - quiet:y0 + side + quiet, x0 - quiet:x0 + side + quiet] = 255.0
        cells = cv2.aruco.generateImageMarker(dictionary, mid, 6, borderBits=1)
        canvas[y0:y0 + side, x0:x0 + side] = cv2.resize(cells, (side, side), interpolation=cv2.INTER_NEAREST)[..., None]
    return photograph(canvas, PX_PER_MM, (0.0, 0.0), REGION, level, seed, (1280, 960), with_hand=False)


def _truth(photo: Photo, mid: int) -> np.ndarray:
    # a canvas pixel's centre is its millimetre times the scale: the square's edge lies half a pixel before it
    cx, cy = _centres()[IDS.index(mid)]
    return photo.to_image(_corners_mm(cx, cy) - 0.5 / PX_PER_MM)


def _side(corners: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))


def test_blurred_markers_read_small_and_unshrunk_read_their_printed_size() -> None:
    read_ratio, out_ratio, before, after = [], [], [], []
    for level, seed in (("medium", 11), ("hard", 12), ("hard", 13)):
        photo = _photo(level, seed)
        gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
        for m in find_markers(gray, CONFIG):
            if m.id not in IDS:
                continue
            truth = _truth(photo, m.id)
            out = unshrunk(gray, m, CONFIG.aruco_dictionary)
            # the centre stays where it was read
            assert np.linalg.norm(out.corners.mean(axis=0) - m.corners.mean(axis=0)) < 0.1
            read_ratio.append(_side(m.corners) / _side(truth))
            out_ratio.append(_side(out.corners) / _side(truth))
            before.append(float(np.mean(np.linalg.norm(m.corners - truth, axis=1))))
            after.append(float(np.mean(np.linalg.norm(out.corners - truth, axis=1))))
    assert len(read_ratio) >= 18
    assert np.median(read_ratio) < 0.98  # the blur's shrink, as the detector reads it
    assert abs(np.median(out_ratio) - 1.0) < 0.01
    assert np.percentile(np.abs(np.array(out_ratio) - 1.0), 90) < 0.025
    assert np.median(after) < 0.7 * np.median(before)


def test_a_marker_whose_edges_do_not_show_is_given_back_as_read() -> None:
    photo = _photo("medium", 11)
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    read = next(m for m in find_markers(gray, CONFIG) if m.id in IDS)
    assert unshrunk(np.full_like(gray, 128), read, CONFIG.aruco_dictionary) is read
    # a marker reaching out of the frame on every side: no side can be sampled
    cut = Marker(read.id, read.corners - read.corners.min(axis=0) - 2.0)
    assert unshrunk(gray[:20, :20], cut, CONFIG.aruco_dictionary) is cut
