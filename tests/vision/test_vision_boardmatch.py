"""Seat boards none of whose markers decode, found by matching all of their markers together (`vision.boardmatch`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import render_chart
from vision.bigtop.layout import CHART
from vision.boardmatch import BoardMemory, boards_by_matching, refined_poses, score_board
from vision.calibrate import Calibration, ChartPose, Marker, find_markers
from vision.codematch import _candidate_squares

#: the test frame: table mm -> image px, a scale and a shift
PX_PER_MM = 2.5
ORIGIN_MM = (-60.0, 240.0)
#: where the board lies: its own mm (0, 0) on the table, below the mat (the mat ends at y = 280)
BOARD_AT_MM = (-40.0, 295.0)


def _calibration() -> Calibration:
    s, (ox, oy) = PX_PER_MM, ORIGIN_MM
    table_to_image = np.array([[s, 0, -ox * s], [0, s, -oy * s], [0, 0, 1]], np.float64)
    return Calibration(np.linalg.inv(table_to_image), table_to_image, 6, 0.0)


def _frame(seat: int | None, blur: float, covered: dict[int, int] | None = None) -> np.ndarray:
    """A grey frame of the table below the mat, with seat ``seat``'s board (none: a bare table), blurred;
    its whites as a camera exposes them, short of saturation (glare). ``covered``: marker side -> another seat
    whose code at that side lies over the board's own (a stray chart's corner, a printed card)."""
    s = PX_PER_MM
    frame = np.full((700, 1000), 70, np.uint8)
    frame[: int((280 - ORIGIN_MM[1]) * s)] = 225  # the mat's edge
    if seat is not None:
        board = cv2.cvtColor(render_chart(seat, s), cv2.COLOR_BGR2GRAY)
        for side, other in (covered or {}).items():
            (x0, y0), _, (x1, y1), _ = DEFAULT_CONFIG.table.markers.board_marker_corners(side)
            box = (slice(int((y0 - 2) * s), int((y1 + 2) * s)), slice(int((x0 - 2) * s), int((x1 + 2) * s)))
            board[box] = cv2.cvtColor(render_chart(other, s), cv2.COLOR_BGR2GRAY)[box]
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


def test_a_board_one_of_whose_markers_another_code_covers_is_found_where_its_sure_codes_outnumber_it() -> None:
    cal = _calibration()
    # another seat's code over one marker: the board's other places show its codes, two of them surely
    frame = _frame(2, 10.0, {1: 3})
    match = score_board(frame, cal, DEFAULT_CONFIG, 2, _truth(2))
    assert match.contradicted and not match.taken and match.matched
    found = boards_by_matching(frame, cal, (), {}, DEFAULT_CONFIG)
    assert list(found) == [2]
    assert _corners_off_mm(found[2], _truth(2)) < 3.0
    # as many places showing another seat's codes as its own surely: neither board is named
    frame = _frame(2, 10.0, {0: 3, 1: 3})
    for seat in (2, 3):
        assert not score_board(frame, cal, DEFAULT_CONFIG, seat, _truth(2)).matched
    assert boards_by_matching(frame, cal, (), {}, DEFAULT_CONFIG) == {}


def test_a_bare_table_and_a_board_blurred_past_matching_give_no_board() -> None:
    cal = _calibration()
    assert boards_by_matching(_frame(None, 10.0), cal, (), {}, DEFAULT_CONFIG) == {}
    assert boards_by_matching(_frame(2, 18.0), cal, (), {}, DEFAULT_CONFIG) == {}


def _stretched_frame(stretch: tuple[float, float], blur: float) -> np.ndarray:
    """`_frame` of seat 2's board stretched by ``stretch`` (x, y) from its corner at `BOARD_AT_MM`: a board the lens
    bends off the mat's calibration near the frame's edge, which no similarity fits exactly."""
    s = PX_PER_MM
    frame = np.full((700, 1000), 70, np.uint8)
    frame[: int((280 - ORIGIN_MM[1]) * s)] = 225
    board = cv2.cvtColor(render_chart(2, s), cv2.COLOR_BGR2GRAY)
    h, w = board.shape
    board = cv2.resize(board, (int(round(w * stretch[0])), int(round(h * stretch[1]))), interpolation=cv2.INTER_AREA)
    x0, y0 = int(round((BOARD_AT_MM[0] - ORIGIN_MM[0]) * s)), int(round((BOARD_AT_MM[1] - ORIGIN_MM[1]) * s))
    frame[y0:y0 + board.shape[0], x0:x0 + board.shape[1]] = board
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), blur) * 0.85, np.uint8)


@pytest.mark.parametrize(("stretch", "blur"), [((1.04, 1.0), 4.0), ((1.04, 1.0), 7.0), ((1.0, 1.04), 10.0)])
def test_a_board_the_lens_bends_is_found_by_its_codes_searched_farther_from_one_squares_pose(
        stretch: tuple[float, float], blur: float) -> None:
    # a pose from one side's square puts the far side's places over the board's own other markers, which read as
    # another code there: the codes searched farther off place all four, and the board fitted to them matches
    frame, cal = _stretched_frame(stretch, blur), _calibration()
    found = boards_by_matching(frame, cal, (), {}, DEFAULT_CONFIG)
    assert list(found) == [2]
    assert found[2].markers_seen == 4
    layout = DEFAULT_CONFIG.table.markers
    for side in range(4):
        centre = np.array(layout.board_marker_corners(side), np.float64).mean(0)
        lies = np.array(BOARD_AT_MM) + centre * np.array(stretch)
        placed = found[2].chart_to_table[:2, :2] @ centre + found[2].chart_to_table[:2, 2]
        # the fit shares the stretch (about 11 mm across the board) between its two sides
        assert float(np.hypot(*(placed - lies))) < 8.0
    # no other seat is named from the bent board
    known = {2: found[2]}
    assert boards_by_matching(frame, cal, (), known, DEFAULT_CONFIG) == {}


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


def _noisy(frame: np.ndarray, seed: int) -> np.ndarray:
    """The next exposure of a still camera: fresh sensor noise of 2 grey levels."""
    noise = np.random.default_rng(seed).normal(0.0, 2.0, frame.shape)
    return np.asarray(np.clip(np.rint(frame + noise), 0, 255), np.uint8)


def _moved(markers: tuple[Marker, ...], px: float) -> tuple[Marker, ...]:
    return tuple(Marker(m.id, m.corners + np.array([px, 0.0])) for m in markers)


def test_a_fitted_board_is_kept_while_its_markers_stay_and_fitted_again_when_they_or_the_table_move() -> None:
    frame, cal = _frame(2, 1.0), _calibration()
    layout = DEFAULT_CONFIG.table.markers
    mine = sorted((m for m in find_markers(frame, DEFAULT_CONFIG, robust=True) if layout.board_of_marker(m.id)),
                  key=lambda m: m.id)
    two = tuple(mine[:2])  # two decoded: the board is fitted again to all four of its places
    memory = BoardMemory(DEFAULT_CONFIG)
    first = memory.charts(frame, cal, two, True, [])
    assert first[2].markers_seen == 4 and memory.fitted == 1
    assert memory.charts(_noisy(frame, 1), cal, _moved(two, 0.3), False, [])[2] is first[2]
    # one of them hidden (a hand): the board has not moved, its pose is kept
    assert memory.charts(_noisy(frame, 4), cal, two[1:], False, [])[2] is first[2]
    assert memory.kept == 2 and memory.fitted == 1
    # all four decoded now: more than it was fitted to, fitted afresh
    assert memory.charts(frame, cal, tuple(mine), False, [])[2].markers_seen == 4 and memory.fitted == 2
    memory.charts(frame, cal, two, True, [])
    assert memory.fitted == 3
    moved = memory.charts(_noisy(frame, 2), cal, _moved(two, 2.0), False, [])[2]
    assert memory.fitted == 4 and moved is not first[2]
    assert np.allclose(moved.chart_to_table, first[2].chart_to_table, atol=1.5)
    # a new calibration (the table or camera moved), however alike, and a full marker search fit it afresh
    again = memory.charts(frame, Calibration(cal.image_to_table, cal.table_to_image, 6, 0.0), _moved(two, 2.0),
                          False, [])
    assert memory.fitted == 5 and again[2] is not moved
    memory.charts(frame, cal, two, True, [])
    assert memory.fitted == 6
    # none of the seat's markers decoded, the board's print as it was: its pose is kept
    assert memory.charts(frame, cal, (), False, [])[2].markers_seen == 4 and memory.hidden == 1
    # the board taken away: no pose kept for it
    assert memory.charts(_frame(None, 1.0), cal, (), False, []) == {}


def _covered(frame: np.ndarray, from_mm: float) -> np.ndarray:
    """``frame`` with a hand over the board from ``from_mm`` (board mm, towards its player) on."""
    out = frame.copy()
    x0 = int((BOARD_AT_MM[0] - ORIGIN_MM[0]) * PX_PER_MM) - 10
    y0 = int((BOARD_AT_MM[1] + from_mm - ORIGIN_MM[1]) * PX_PER_MM)
    out[y0:, x0:x0 + int(CHART.width * PX_PER_MM) + 20] = 150
    return out


@pytest.mark.parametrize("outline", [None, ((0.0, 0.0), (CHART.width, 0.0), (CHART.width, CHART.height),
                                            (0.0, CHART.height))])
def test_a_board_whose_markers_a_hand_hides_is_kept_while_the_rest_of_its_print_has_not_moved(
        outline: tuple[tuple[float, float], ...] | None) -> None:
    frame, cal = _frame(2, 1.0), _calibration()
    layout = DEFAULT_CONFIG.table.markers
    mine = tuple(m for m in find_markers(frame, DEFAULT_CONFIG, robust=True) if layout.board_of_marker(m.id))
    memory = BoardMemory(DEFAULT_CONFIG, outline)
    first = memory.charts(frame, cal, mine, True, [])[2]
    # a hand over every marker, the called-card spaces still in view: kept, on live frames and on a full search
    hand = _covered(_noisy(frame, 5), 100.0 if outline else 140.0)
    assert memory.charts(hand, cal, (), False, [])[2] is first
    assert memory.charts(hand, cal, (), True, [])[2] is first and memory.hidden == 2
    # the board slid under the hand by a millimetre, along either of its edges: dropped
    for axis in (0, 1):
        memory.charts(frame, cal, mine, True, [])
        shifted = _covered(_noisy(np.roll(frame, 3, axis=axis), 6), 100.0 if outline else 140.0)
        assert memory.charts(shifted, cal, (), False, []) == {}
    # a hand over all of it: nothing shows it is still there, dropped
    memory.charts(frame, cal, mine, True, [])
    assert memory.charts(_covered(frame, -10.0), cal, (), False, []) == {}


def test_a_matched_board_is_scored_again_only_where_the_frame_changed_and_forgotten_with_the_calibration(
        blurred_board: np.ndarray) -> None:
    cal = _calibration()
    squares = _candidate_squares(blurred_board, DEFAULT_CONFIG.aruco_dictionary,
                                 DEFAULT_CONFIG.marker_threshold_window)
    memory = BoardMemory(DEFAULT_CONFIG)
    found = memory.charts(blurred_board, cal, (), True, squares)
    assert list(found) == [2]
    assert memory.charts(_noisy(blurred_board, 3), cal, (), False, []) == found
    assert memory.unscored == 1 and memory.scored == 0
    # a hand over the board: scored again, no longer matches, dropped
    hand = blurred_board.copy()
    x0, y0 = int((BOARD_AT_MM[0] - ORIGIN_MM[0]) * PX_PER_MM), int((BOARD_AT_MM[1] - ORIGIN_MM[1]) * PX_PER_MM)
    hand[y0:, x0:] = 160
    assert memory.charts(hand, cal, (), False, []) == {}
    assert memory.scored == 1
    # found again by a full search, then forgotten when the calibration changes
    assert list(memory.charts(blurred_board, cal, (), True, squares)) == [2]
    assert memory.charts(blurred_board, _calibration(), (), False, []) == {}


def test_a_board_reaching_out_of_the_frame_is_not_scored_for_codes_it_cannot_show(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the frame's left part holds two of the board's four marker places (its left ones): no refit can show
    # more of its codes than the two markers that placed it, so none is scored
    frame, cal = _frame(2, 3.0)[:, :400], _calibration()
    rough = _turned(_truth(2), 2.0, (140.0, 170.0))
    scored: list[int] = []

    def counting(*args: object, **kwargs: object) -> object:
        scored.append(1)
        return score_board(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("vision.boardmatch.score_board", counting)
    kept = refined_poses(np.ascontiguousarray(frame), cal, {2: ChartPose(2, rough, np.linalg.inv(rough), 2)},
                         DEFAULT_CONFIG)[2]
    assert np.array_equal(kept.chart_to_table, rough)
    assert scored == []
    # one marker placing it: the two places in the frame may show more, and are scored
    refined_poses(np.ascontiguousarray(frame), cal, {2: ChartPose(2, rough, np.linalg.inv(rough), 1)}, DEFAULT_CONFIG)
    assert scored
