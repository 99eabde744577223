"""Reading the mat and charts through blur and hidden markers; printed sheet versions."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bigtop import CONFIG as CFG
from vision.bigtop.faces import render_chart, render_mat
from vision.bigtop.layout import CHART, MAT, chart_marker_ids, seat_of_marker, sheet_version_of
from vision.bigtop.scene import SceneSettings, chart_pose, chart_to_table, render_scene
from vision.calibrate import (
    Calibrator,
    find_layout_markers,
    find_markers,
    locate_charts,
    mat_homography,
    merged_windows,
    missing_windows,
)

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


def _gray(seed: int, seats: list[int]) -> tuple[np.ndarray, np.ndarray]:
    scene = render_scene(np.random.default_rng(seed), seats=seats, settings=CALM, placements=[])
    return cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), scene.table_to_image


def _mat_error_mm(cal_image_to_table: np.ndarray, table_to_image: np.ndarray) -> float:
    corners = np.array([[0, 0], [MAT.width, 0], [MAT.width, MAT.height], [0, MAT.height]], np.float64)
    seen = cv2.perspectiveTransform(corners[None], table_to_image)[0]
    back = cv2.perspectiveTransform(seen[None], cal_image_to_table)[0]
    return float(np.max(np.linalg.norm(back - corners, axis=1)))


def _cover(gray: np.ndarray, table_to_image: np.ndarray, corners_mm: tuple[tuple[float, float], ...]) -> None:
    pts = cv2.perspectiveTransform(np.array([corners_mm], np.float64), table_to_image)[0]
    x0, y0 = np.floor(pts.min(0)).astype(int) - 6
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 6
    gray[max(y0, 0):y1, max(x0, 0):x1] = 120


def test_a_blurred_mat_still_calibrates_through_the_slow_path() -> None:
    gray, truth = _gray(5, [0, 2])
    blurred = np.clip(cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 4.0), 0, 255).astype(np.uint8)
    fast = [m for m in find_markers(blurred, CFG) if m.id in MAT.marker_ids]
    assert len(fast) < 3  # the fast detector alone loses the mat
    assert missing_windows(find_markers(blurred, CFG), blurred.shape, CFG) is None  # nowhere to say: whole frame
    cal = mat_homography(find_layout_markers(blurred, CFG), CFG)
    assert cal.markers_seen >= 3
    assert _mat_error_mm(cal.image_to_table, truth) < 3.0


def _blur(gray: np.ndarray, table_to_image: np.ndarray, corners_mm: tuple[tuple[float, float], ...],
          sigma: float = 3.0) -> np.ndarray:
    """Blur the frame around a marker (by ``sigma`` px: 3 is past the fast detector's reach); its corners in the frame."""
    pts = cv2.perspectiveTransform(np.array([corners_mm], np.float64), table_to_image)[0]
    x0, y0 = np.floor(pts.min(0)).astype(int) - 10
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 10
    gray[y0:y1, x0:x1] = cv2.GaussianBlur(gray[y0:y1, x0:x1], (0, 0), sigma)
    return pts


def test_the_slow_path_searches_around_the_missing_markers_only_and_finds_what_a_whole_frame_search_finds() -> None:
    gray, truth = _gray(9, [0, 2])
    mat_edge = _blur(gray, truth, MAT.marker_corners(4))
    chart = _blur(gray, truth, tuple(chart_to_table(chart_pose(2), x, y) for x, y in CHART.marker_corners(1)))
    fast = find_markers(gray, CFG)
    lost = {MAT.marker_ids[4], chart_marker_ids(2)[1]}
    assert not lost & {m.id for m in fast}
    windows = missing_windows(fast, gray.shape, CFG)
    assert windows is not None and len(windows) == 2
    for pts in (mat_edge, chart):
        assert any(x0 <= pts[:, 0].min() and pts[:, 0].max() <= x1 and y0 <= pts[:, 1].min() and pts[:, 1].max() <= y1
                   for x0, y0, x1, y1 in windows)
    assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows) < 0.05 * gray.size
    found = find_layout_markers(gray, CFG)
    # the plain computation: the slow search over the whole frame, added to the fast one's markers
    whole = {m.id: m for m in find_markers(gray, CFG, robust=True)}
    assert lost <= {m.id for m in found}
    assert sorted(m.id for m in found) == sorted({m.id for m in fast} | set(whole))
    for m in found:
        if m.id in lost:
            assert float(np.abs(m.corners - whole[m.id].corners).max()) < 0.05


def test_a_chart_none_of_whose_markers_the_fast_path_read_is_found_from_its_undecoded_squares() -> None:
    gray, truth = _gray(9, [0, 2])
    _blur(gray, truth, MAT.marker_corners(4))  # the slow path runs: a mat marker is missing
    for side in range(4):  # the side markers are smaller and read through more blur
        _blur(gray, truth, tuple(chart_to_table(chart_pose(2), x, y) for x, y in CHART.marker_corners(side)),
              3.0 if side < 2 else 4.0)
    squares: list[np.ndarray] = []
    fast = find_markers(gray, CFG, squares=squares)
    seat = set(chart_marker_ids(2))
    assert not seat & {m.id for m in fast}
    assert missing_windows(fast, gray.shape, CFG) == missing_windows(fast, gray.shape, CFG, [])
    assert len(missing_windows(fast, gray.shape, CFG, squares) or []) > len(missing_windows(fast, gray.shape, CFG) or [])
    found = {m.id for m in find_layout_markers(gray, CFG)}
    whole = {m.id for m in find_markers(gray, CFG, robust=True)}
    assert seat <= whole
    assert found == {m.id for m in fast} | whole


def test_overlapping_windows_are_merged_into_their_box_where_it_is_no_larger_than_both() -> None:
    # a missing marker's window and its undecoded square's overlap: one box, no larger than the two
    assert merged_windows([(0, 0, 100, 100), (20, 20, 110, 110)]) == [(0, 0, 110, 110)]
    # side by side, corner to corner far apart, and the same window twice
    assert merged_windows([(0, 0, 50, 50), (50, 0, 100, 50)]) == [(0, 0, 100, 50)]
    assert merged_windows([(0, 0, 50, 50), (60, 60, 110, 110)]) == [(0, 0, 50, 50), (60, 60, 110, 110)]
    assert merged_windows([(0, 0, 50, 50), (0, 0, 50, 50)]) == [(0, 0, 50, 50)]
    # a merged box takes in a window it did not overlap before
    assert merged_windows([(0, 0, 40, 100), (100, 0, 140, 100), (30, 0, 110, 100)]) == [(0, 0, 140, 100)]


def test_the_slow_path_searches_overlapping_windows_once(monkeypatch: pytest.MonkeyPatch) -> None:
    gray, truth = _gray(9, [0, 2])
    _blur(gray, truth, MAT.marker_corners(4))
    for side in range(4):
        _blur(gray, truth, tuple(chart_to_table(chart_pose(2), x, y) for x, y in CHART.marker_corners(side)),
              3.0 if side < 2 else 4.0)
    squares: list[np.ndarray] = []
    fast = find_markers(gray, CFG, squares=squares)
    windows = missing_windows(fast, gray.shape, CFG, squares) or []
    real = find_markers
    searched: list[tuple[int, ...]] = []

    def spy(part: np.ndarray, *args: object, **kwargs: object) -> object:
        if kwargs.get("robust") and part.shape != gray.shape:
            searched.append(part.shape)
        return real(part, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("vision.calibrate.find_markers", spy)
    found = {m.id for m in find_layout_markers(gray, CFG)}
    # the chart's windows and its squares' overlap: fewer searches over fewer pixels, the same markers
    assert 0 < len(searched) < len(windows)
    assert sum(h * w for h, w in searched) < sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows)
    assert found == {m.id for m in fast} | {m.id for m in real(gray, CFG, robust=True)}

def test_the_mat_calibrates_with_two_corners_hidden_by_its_edge_markers() -> None:
    gray, truth = _gray(6, [0, 3])
    for k in (0, 1):  # both top corners
        _cover(gray, truth, MAT.marker_corners(k))
    markers = find_markers(gray, CFG)
    assert not {MAT.marker_ids[0], MAT.marker_ids[1]} & {m.id for m in markers}
    cal = mat_homography(markers, CFG)
    assert cal.markers_seen == 4
    assert _mat_error_mm(cal.image_to_table, truth) < 2.0


def test_a_card_decoded_as_a_mat_marker_is_outvoted() -> None:
    gray, truth = _gray(7, [1])
    markers = find_markers(gray, CFG)
    real = next(m for m in markers if m.id == MAT.marker_ids[5])
    fake = type(real)(real.id, real.corners + np.array([300.0, 40.0]))
    cal = mat_homography((fake, *markers), CFG)
    assert _mat_error_mm(cal.image_to_table, truth) < 2.0


def test_the_last_calibration_is_kept_while_the_few_markers_in_view_confirm_it() -> None:
    gray, truth = _gray(8, [0])
    cal = Calibrator(CFG)
    first = cal.update(find_markers(gray, CFG))
    hidden = gray.copy()
    for k in (0, 1, 2, 4, 5):  # a hand over all but one mat marker
        _cover(hidden, truth, MAT.marker_corners(k))
    assert cal.update(find_markers(hidden, CFG)) is first
    assert cal.reused == 1
    cal.reset()
    try:
        cal.update(find_markers(hidden, CFG))
    except LookupError as err:
        assert "saw 1 of its 6 markers" in str(err)
    else:
        raise AssertionError("one marker alone must not calibrate a new table")


def test_a_chart_is_found_by_its_side_markers_when_its_corner_markers_are_hidden() -> None:
    gray, truth = _gray(9, [1])
    pose = chart_pose(1)
    for side in (0, 1):
        corners = tuple(chart_to_table(pose, x, y) for x, y in CHART.marker_corners(side))
        _cover(gray, truth, corners)
    markers = find_markers(gray, CFG)
    assert not {chart_marker_ids(1)[0], chart_marker_ids(1)[1]} & {m.id for m in markers}
    charts = locate_charts(markers, mat_homography(markers, CFG), CFG)
    assert 1 in charts and charts[1].markers_seen == 2
    cx, cy = chart_to_table(pose, CHART.width / 2, CHART.height / 2)
    m = charts[1].table_to_chart
    got = m[:2, :2] @ np.array([cx, cy]) + m[:2, 2]
    assert np.hypot(got[0] - CHART.width / 2, got[1] - CHART.height / 2) < 3.0


def test_old_prints_are_read_and_new_ones_say_their_version() -> None:
    old_mat = cv2.copyMakeBorder(cv2.cvtColor(render_mat(2.0, version=1), cv2.COLOR_BGR2GRAY),
                                 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=90)
    old = find_markers(old_mat, CFG)
    assert sorted(m.id for m in old) == list(MAT.marker_ids[:4])
    assert sheet_version_of([m.id for m in old]) == 1
    cal = mat_homography(old, CFG)  # a version 1 mat still calibrates
    assert cal.markers_seen == 4 and cal.error_mm < 1.0
    old_chart = cv2.cvtColor(render_chart(2, 2.0, version=1), cv2.COLOR_BGR2GRAY)
    assert sorted(m.id for m in find_markers(old_chart, CFG)) == list(chart_marker_ids(2)[:2])
    assert all(seat_of_marker(i) == (2, side) for side, i in enumerate(chart_marker_ids(2)))
    new_mat = cv2.cvtColor(render_mat(2.0), cv2.COLOR_BGR2GRAY)
    assert sheet_version_of([m.id for m in find_markers(new_mat, CFG)]) == 2
    assert sheet_version_of([40, 41]) is None


def test_the_slow_path_reads_chart_markers_through_motion_blur_of_a_few_cells() -> None:
    # a sideways smear over about two of a chart marker's cells, then defocus: the slow path's
    # sharpening must restore the cells' contrast (sharpened once over it read about two in three)
    found = total = 0
    for seed in (8, 11):
        gray, _ = _gray(seed, [0, 1, 2, 3])
        smear = np.zeros((10, 10), np.float32)
        smear[5, :] = 0.1
        blurred = cv2.GaussianBlur(cv2.filter2D(gray, -1, smear), (0, 0), 1.5)
        want = {i for seat in range(4) for i in chart_marker_ids(seat)}
        found += len(want & {m.id for m in find_markers(blurred, CFG, robust=True)})
        total += len(want)
    assert found >= 0.75 * total


def _space_error_px(pose: np.ndarray, cal: object, photo: object, truth_pose: tuple[float, float, float]) -> float:
    """The largest distance (photo px) between the chart spaces' corners where ``pose`` puts them and where they lie."""
    from vision.bigtop.layout import Space

    worst = 0.0
    for sp in Space:
        r = CHART.space(sp)
        pts = np.array([(r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h), (r.x, r.y + r.h)], np.float64)
        table = pts @ pose[:2, :2].T + pose[:2, 2]
        got = cv2.perspectiveTransform(table[None], cal.table_to_image)[0]  # type: ignore[attr-defined]
        want = photo.to_image(np.array([chart_to_table(truth_pose, x, y) for x, y in pts]))  # type: ignore[attr-defined]
        worst = max(worst, float(np.max(np.linalg.norm(got - want, axis=1))))
    return worst


def test_a_chart_placed_by_two_blurred_markers_is_placed_by_their_unshrunk_corners() -> None:
    # a hard photo of the independent camera model: a chart whose markers read a few percent small, so that only
    # the two along one of its edges agree, and those two put its far spaces 12 px off in the photo
    from dataclasses import replace

    from vision.bigtop.scene import CONTENT_REGION, HARD_SETTINGS, render_top_down
    from vision.calibrate import MarkerTracker
    from vision.camera_model import photograph

    seed = 975000000
    rng = np.random.default_rng(seed)
    td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)))
    photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, "hard", seed, (1280, 960))
    gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    markers = MarkerTracker(CFG).find(gray)
    cal = mat_homography(markers, CFG)
    read = locate_charts(markers, cal, CFG)
    unshrunk = locate_charts(markers, cal, CFG, gray)
    weak = [seat for seat, pose in read.items() if pose.markers_seen < 3]
    assert weak
    for seat in weak:
        before = _space_error_px(read[seat].chart_to_table, cal, photo, td.charts[seat])
        after = _space_error_px(unshrunk[seat].chart_to_table, cal, photo, td.charts[seat])
        assert before > 8.0 and after < 4.0
    # the charts three or more markers placed are placed as before
    for seat, pose in read.items():
        if seat not in weak:
            assert np.array_equal(unshrunk[seat].chart_to_table, pose.chart_to_table)
