"""Seat boards none of whose markers decode, found by matching all of their markers together (`vision.boardmatch`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import render_chart
from vision.bigtop.layout import CHART
from vision.boardmatch import boards_by_matching, refined_poses, score_board
from vision.calibrate import Calibration, ChartPose, find_markers

#: the test frame: table mm -> image px, a scale and a shift
PX_PER_MM = 2.5
ORIGIN_MM = (-60.0, 240.0)
#: where the board lies: its own mm (0, 0) on the table, below the mat (the mat ends at y = 280)
BOARD_AT_MM = (-40.0, 295.0)


def _calibration() -> Calibration:
    s, (ox, oy) = PX_PER_MM, ORIGIN_MM
    table_to_image = np.array([[s, 0, -ox * s], [0, s, -oy * s], [0, 0, 1]], np.float64)
    return Calibration(np.linalg.inv(table_to_image), table_to_image, 6, 0.0)


def _frame(seat: int | None, blur: float) -> np.ndarray:
    """A grey frame of the table below the mat, with seat ``seat``'s board (none: a bare table), blurred;
    its whites as a camera exposes them, short of saturation (glare)."""
    s = PX_PER_MM
    frame = np.full((700, 1000), 70, np.uint8)
    frame[: int((280 - ORIGIN_MM[1]) * s)] = 225  # the mat's edge
    if seat is not None:
        board = cv2.cvtColor(render_chart(seat, s), cv2.COLOR_BGR2GRAY)
        x0, y0 = int(round((BOARD_AT_MM[0] - ORIGIN_MM[0]) * s)), int(round((BOARD_AT_MM[1] - ORIGIN_MM[1]) * s))
        frame[y0:y0 + board.shape[0], x0:x0 + board.shape[1]] = board
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), blur) * 0.85, np.uint8)


def _truth(seat: int) -> np.ndarray:
    m = np.eye(3)
    m[:2, 2] = BOARD_AT_MM
    return m


def _corners_off_mm(pose: ChartPose, truth: np.ndarray) -> float:
    pts = np.array([[0, 0, 1], [CHART.width, 0, 1], [CHART.width, CHART.height, 1], [0, CHART.height, 1]], np.float64)
    return float(np.max(np.linalg.norm((pts @ pose.chart_to_table.T - pts @ truth.T)[:, :2], axis=1)))


@pytest.fixture(scope="module")
def blurred_board() -> np.ndarray:
    frame = _frame(2, 10.0)
    seats = {DEFAULT_CONFIG.table.markers.board_of_marker(m.id) for m in find_markers(frame, DEFAULT_CONFIG, robust=True)}
    assert seats <= {None}  # no marker of the board decodes
    return frame


def test_a_board_whose_markers_do_not_decode_is_found_with_its_seat_and_pose(blurred_board: np.ndarray) -> None:
    found = boards_by_matching(blurred_board, _calibration(), (), {}, DEFAULT_CONFIG)
    assert list(found) == [2]
    assert found[2].markers_seen >= 2
    assert _corners_off_mm(found[2], _truth(2)) < 3.0


def test_a_board_is_never_taken_for_another_seat(blurred_board: np.ndarray) -> None:
    cal = _calibration()
    # seat 2's board already known: no other seat is named from its markers
    known = {2: ChartPose(2, _truth(2), np.linalg.inv(_truth(2)), 4)}
    assert boards_by_matching(blurred_board, cal, (), known, DEFAULT_CONFIG) == {}
    # at the board's own pose, only its own seat's codes match
    assert score_board(blurred_board, cal, DEFAULT_CONFIG, 2, _truth(2)).taken
    for other in (0, 1, 3, 4, 5):
        assert not score_board(blurred_board, cal, DEFAULT_CONFIG, other, _truth(2)).taken


def test_a_bare_table_and_a_board_blurred_past_matching_give_no_board() -> None:
    cal = _calibration()
    assert boards_by_matching(_frame(None, 10.0), cal, (), {}, DEFAULT_CONFIG) == {}
    assert boards_by_matching(_frame(2, 18.0), cal, (), {}, DEFAULT_CONFIG) == {}


def _turned(pose: np.ndarray, degrees: float, about: tuple[float, float]) -> np.ndarray:
    """``pose`` turned by ``degrees`` about the board point ``about``."""
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    shift = np.eye(3)
    shift[:2, 2] = about
    return np.asarray(pose @ shift @ rot @ np.linalg.inv(shift))


def test_a_board_placed_by_two_markers_is_fitted_again_to_all_of_its_codes() -> None:
    frame, cal = _frame(2, 3.0), _calibration()
    # two markers on the player's edge put the far edge 2 degrees off: about 6 mm at the called-card spaces
    rough = _turned(_truth(2), 2.0, (140.0, 170.0))
    assert _corners_off_mm(ChartPose(2, rough, np.linalg.inv(rough), 2), _truth(2)) > 5.0
    better = refined_poses(frame, cal, {2: ChartPose(2, rough, np.linalg.inv(rough), 2)}, DEFAULT_CONFIG)[2]
    assert better.markers_seen == 4
    assert _corners_off_mm(better, _truth(2)) < 2.0
    # a pose where another seat's codes lie, or one its codes already fixed, is kept as it was
    other = refined_poses(frame, cal, {3: ChartPose(3, rough, np.linalg.inv(rough), 2)}, DEFAULT_CONFIG)[3]
    assert np.array_equal(other.chart_to_table, rough)
    fixed = refined_poses(frame, cal, {2: ChartPose(2, rough, np.linalg.inv(rough), 4)}, DEFAULT_CONFIG)[2]
    assert np.array_equal(fixed.chart_to_table, rough)


def _board_squares(blur: float) -> tuple[int, list[np.ndarray], int]:
    """How many of the board's markers decode at ``blur``, the undecoded squares, and how many of the
    board's markers lie among those squares."""
    frame = _frame(2, blur)
    squares: list[np.ndarray] = []
    decoded = find_markers(frame, DEFAULT_CONFIG, robust=True, squares=squares)
    centres = [cv2.perspectiveTransform(q[None], _calibration().image_to_table)[0].mean(0) for q in squares]
    among = 0
    for side in range(4):
        corners = np.array(DEFAULT_CONFIG.table.markers.board_marker_corners(side)) + BOARD_AT_MM
        among += min((float(np.hypot(*(c - corners.mean(0)))) for c in centres), default=99.0) < 2.0
    return sum(DEFAULT_CONFIG.table.markers.board_of_marker(m.id) is not None for m in decoded), squares, among


def test_the_marker_search_hands_over_the_squares_it_could_not_decode() -> None:
    decoded, squares, among = _board_squares(10.0)
    assert decoded == 0 and among >= 3
    assert all(cv2.contourArea(q.astype(np.float32), oriented=True) > 0 for q in squares)  # clockwise as seen
    decoded, _, among = _board_squares(1.0)
    assert decoded == 4 and among == 0
