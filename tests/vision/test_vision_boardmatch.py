"""Seat boards none of whose markers decode, found by matching all of their markers together (`vision.boardmatch`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import render_chart
from vision.bigtop.layout import CHART
from vision.boardmatch import boards_by_matching, score_board
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


def _frame(seat: int | None, blur: float) -> np.ndarray:  # type: ignore[type-arg]
    """A grey frame of the table below the mat, with seat ``seat``'s board (none: a bare table), blurred."""
    s = PX_PER_MM
    frame = np.full((700, 1000), 70, np.uint8)
    frame[: int((280 - ORIGIN_MM[1]) * s)] = 225  # the mat's edge
    if seat is not None:
        board = cv2.cvtColor(render_chart(seat, s), cv2.COLOR_BGR2GRAY)
        x0, y0 = int(round((BOARD_AT_MM[0] - ORIGIN_MM[0]) * s)), int(round((BOARD_AT_MM[1] - ORIGIN_MM[1]) * s))
        frame[y0:y0 + board.shape[0], x0:x0 + board.shape[1]] = board
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), blur), np.uint8)


def _truth(seat: int) -> np.ndarray:  # type: ignore[type-arg]
    m = np.eye(3)
    m[:2, 2] = BOARD_AT_MM
    return m


def _corners_off_mm(pose: ChartPose, truth: np.ndarray) -> float:  # type: ignore[type-arg]
    pts = np.array([[0, 0, 1], [CHART.width, 0, 1], [CHART.width, CHART.height, 1], [0, CHART.height, 1]], np.float64)
    return float(np.max(np.linalg.norm((pts @ pose.chart_to_table.T - pts @ truth.T)[:, :2], axis=1)))


@pytest.fixture(scope="module")
def blurred_board() -> np.ndarray:  # type: ignore[type-arg]
    frame = _frame(2, 10.0)
    seats = {DEFAULT_CONFIG.table.markers.board_of_marker(m.id) for m in find_markers(frame, DEFAULT_CONFIG, robust=True)}
    assert seats <= {None}  # no marker of the board decodes
    return frame


def test_a_board_whose_markers_do_not_decode_is_found_with_its_seat_and_pose(blurred_board: np.ndarray) -> None:  # type: ignore[type-arg]
    found = boards_by_matching(blurred_board, _calibration(), (), {}, DEFAULT_CONFIG)
    assert list(found) == [2]
    assert found[2].markers_seen >= 2
    assert _corners_off_mm(found[2], _truth(2)) < 3.0


def test_a_board_is_never_taken_for_another_seat(blurred_board: np.ndarray) -> None:  # type: ignore[type-arg]
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
