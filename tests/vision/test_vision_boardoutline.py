"""A board that one marker placed, fitted again to its printed outline (`vision.boardoutline`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.boardoutline import outline_pose
from vision.calibrate import Calibration, ChartPose

#: the board (board mm) and its one decoded marker, at its lower right corner as on an Organizing Chart
OUTLINE = ((0.0, 0.0), (280.0, 0.0), (280.0, 190.0), (0.0, 190.0))
MARKER = ((246.0, 156.0), (274.0, 156.0), (274.0, 184.0), (246.0, 184.0))
#: the photo: 2 px per table mm, the table's origin 40 px in
PX = 2.0
TO_IMAGE = np.array([[PX, 0.0, 40.0], [0.0, PX, 40.0], [0.0, 0.0, 1.0]])
CAL = Calibration(np.linalg.inv(TO_IMAGE), TO_IMAGE, 6, 0.0)


def _pose(angle: float, shift: tuple[float, float] = (100.0, 60.0), about: tuple[float, float] = (0.0, 0.0),
          scale: float = 1.0) -> np.ndarray:
    """Board mm -> table mm: turned by ``angle`` degrees about board point ``about``, which lies at ``shift``."""
    a = math.radians(angle)
    lin = scale * np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out = np.eye(3)
    out[:2, :2] = lin
    out[:2, 2] = np.array(shift) - lin @ np.array(about)
    return out


def _photo(board: np.ndarray, size: tuple[float, float] = (280.0, 190.0)) -> np.ndarray:
    """A dim table with the bright paper of a board of ``size`` (mm) lying at ``board``."""
    rng = np.random.default_rng(3)
    img = rng.normal(70, 6, (700, 1000)).clip(0, 255).astype(np.uint8)
    w, h = size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    table = corners @ board[:2, :2].T + board[:2, 2]
    px = cv2.perspectiveTransform(table[None], TO_IMAGE)[0]
    cv2.fillConvexPoly(img, np.round(px * 16).astype(np.int32), 225, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img, (5, 5), 1.2)


def _far_error(pose: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance (mm) between the outline's corners as ``pose`` and ``truth`` place them."""
    c = np.array(OUTLINE)
    return float(np.max(np.linalg.norm((c @ pose[:2, :2].T + pose[:2, 2]) - (c @ truth[:2, :2].T + truth[:2, 2]),
                                       axis=1)))


def _marker_placed(truth: np.ndarray, angle: float) -> ChartPose:
    """The pose the decoded marker gives: right where the marker lies, its turn ``angle`` degrees off."""
    centre = np.array(MARKER).mean(axis=0)
    at = truth[:2, :2] @ centre + truth[:2, 2]
    true_angle = math.degrees(math.atan2(truth[1, 0], truth[0, 0]))
    m = _pose(true_angle + angle, (float(at[0]), float(at[1])), (float(centre[0]), float(centre[1])))
    return ChartPose(0, m, np.linalg.inv(m), 1)


def test_a_board_placed_off_by_its_one_marker_is_fitted_to_its_outline() -> None:
    truth = _pose(4.0)
    start = _marker_placed(truth, -4.0)
    assert _far_error(start.chart_to_table, truth) > 15.0
    got = outline_pose(_photo(truth), CAL, start, OUTLINE, MARKER)
    assert got is not None
    assert _far_error(got.chart_to_table, truth) < 1.5
    assert got.markers_seen == 1 and got.seat == 0


def test_no_outline_in_view_keeps_the_markers_pose() -> None:
    truth = _pose(4.0)
    flat = np.full((700, 1000), 90, np.uint8)
    assert outline_pose(flat, CAL, _marker_placed(truth, -4.0), OUTLINE, MARKER) is None


def test_an_outline_of_another_size_is_not_taken() -> None:
    truth = _pose(4.0)
    photo = _photo(truth, (272.0, 190.0))  # a sheet 8 mm narrower than the board
    assert outline_pose(photo, CAL, _marker_placed(truth, -4.0), OUTLINE, MARKER) is None


def test_an_outline_that_would_move_the_decoded_marker_is_not_taken() -> None:
    truth = _pose(4.0)
    start = _marker_placed(truth, -1.0)
    # the marker read 12 mm from where the paper puts it: the paper belongs to something else
    moved = start.chart_to_table.copy()
    moved[:2, 2] += (12.0, 0.0)
    assert outline_pose(_photo(truth), CAL, ChartPose(0, moved, np.linalg.inv(moved), 1), OUTLINE, MARKER) is None


def test_an_edge_mostly_hidden_keeps_the_markers_pose() -> None:
    truth = _pose(4.0)
    photo = _photo(truth)
    c = np.array(OUTLINE)
    table = c @ truth[:2, :2].T + truth[:2, 2]
    px = cv2.perspectiveTransform(table[None], TO_IMAGE)[0]
    # a dark sleeve over the whole right-hand edge
    cv2.circle(photo, tuple(int(v) for v in (px[1] + px[2]) / 2), 260, 60, -1)
    assert outline_pose(photo, CAL, _marker_placed(truth, -4.0), OUTLINE, MARKER) is None
