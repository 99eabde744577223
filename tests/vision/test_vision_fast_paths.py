"""The vision core's fast paths give what the plain computations give, bit for bit: `vision.calibrate.FrameBlur`
(a part's blur made from the whole frame's; the searches that share it), `locate_charts` (a chart whose
markers all agree is fitted once; the same corners again give the last call's pose), `mat_homography` (the same
markers again give the last call's calibration; the fit kept is not fitted again) and `_to_table` (many quads
taken to the table in one transform)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import calibrate
from vision.bigtop import CONFIG as BIGTOP
from vision.bigtop.scene import SceneSettings, render_scene
from vision.calibrate import (
    Calibration,
    ChartPose,
    FrameBlur,
    Marker,
    _apply,
    _similarity,
    _to_table,
    find_markers,
    locate_charts,
    mat_homography,
    sharpen_sigma,
)
from vision.codematch import _candidate_squares
from vision.flohcati.pipeline import CONFIG


def _frame(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Noise over smooth shading and hard-edged blocks (every kind of neighbourhood the filter sees)."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = 90 + 60 * np.sin(xx / 37.0) * np.cos(yy / 23.0) + rng.normal(0, 25, (h, w))
    for _ in range(30):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        img[y:y + int(rng.integers(3, 60)), x:x + int(rng.integers(3, 60))] = rng.integers(0, 256)
    out: np.ndarray = np.clip(img, 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("sigma", [1.0, 2.048, 3.6864, 6.3])
def test_part_is_the_parts_own_blur(sigma: float) -> None:
    rng = np.random.default_rng(7)
    gray = _frame(rng, 300, 420)
    blur = FrameBlur(gray, sigma)
    assert not blur.made
    boxes: list[tuple[int, int, int, int]] = [(0, 0, 420, 300), (0, 0, 200, 150), (37, 11, 420, 300),
                                              (5, 9, 400, 290), (100, 80, 130, 110), (0, 120, 420, 300),
                                              (3, 0, 417, 296)]
    for _ in range(12):
        xa, xb = sorted(int(v) for v in rng.integers(0, 421, 2))
        ya, yb = sorted(int(v) for v in rng.integers(0, 301, 2))
        boxes.append((xa, ya, xb, yb))
    for x0, y0, x1, y1 in boxes:
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        want = cv2.GaussianBlur(gray[y0:y1, x0:x1], (0, 0), sigma)
        got = blur.part(x0, y0, x1, y1)
        assert got.shape == want.shape
        assert np.array_equal(got, want), (x0, y0, x1, y1)
    assert blur.made
    assert np.array_equal(blur.whole(), cv2.GaussianBlur(gray, (0, 0), sigma))


def test_searches_sharing_the_blur_find_the_same() -> None:
    rng = np.random.default_rng(3)
    gray = _frame(rng, 480, 640)
    dictionary = cv2.aruco.getPredefinedDictionary(CONFIG.aruco_dictionary)
    for k, (x, y) in zip(CONFIG.table.markers.marker_ids, [(60, 60), (400, 80), (120, 300), (450, 330)]):
        marker = cv2.aruco.generateImageMarker(dictionary, k, 60)
        gray[y - 10:y + 70, x - 10:x + 70] = 255
        gray[y:y + 60, x:x + 60] = cv2.GaussianBlur(marker, (0, 0), 2.5)
    config = CONFIG
    blur = FrameBlur(gray, sharpen_sigma(max(gray.shape)))
    for one_window in (True, False):
        plain = find_markers(gray, config, robust=True, one_window=one_window)
        assert plain  # the test frame shows markers to find
        shared = find_markers(gray, config, robust=True, one_window=one_window, blur=blur)
        assert [m.id for m in plain] == [m.id for m in shared]
        assert all(np.array_equal(a.corners, b.corners) for a, b in zip(plain, shared))
    assert blur.made
    plain_sq = _candidate_squares(gray, config.aruco_dictionary, config.marker_threshold_window)
    shared_sq = _candidate_squares(gray, config.aruco_dictionary, config.marker_threshold_window, blur)
    assert len(plain_sq) == len(shared_sq) and all(np.array_equal(a, b) for a, b in zip(plain_sq, shared_sq))


def _charts_every_pair(markers: tuple[Marker, ...], calibration: object, config: object) -> dict[int, ChartPose]:
    """`locate_charts` as it was: every marker of a seat tried, however many agreed already."""
    layout = config.table.markers  # type: ignore[attr-defined]
    found: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
    for m in markers:
        ss = layout.board_of_marker(m.id)
        if ss is None:
            continue
        seat, side = ss
        table = cv2.perspectiveTransform(m.corners[None].astype(np.float64), calibration.image_to_table)[0]  # type: ignore[attr-defined]
        measured = float(np.mean(np.linalg.norm(table - np.roll(table, 1, axis=0), axis=1)))
        if abs(measured - layout.board_marker_size(side)) > 0.25 * layout.board_marker_size(side):
            continue
        found.setdefault(seat, []).append((np.array(layout.board_marker_corners(side), np.float64), table))
    poses = {}
    for seat, pairs in found.items():
        best: list[tuple[np.ndarray, np.ndarray]] = []
        for src0, dst0 in pairs:
            one = _similarity(src0, dst0)
            agree = [(s_, d_) for s_, d_ in pairs if float(np.max(np.linalg.norm(_apply(one, s_) - d_, axis=1))) <= 6.0]
            if len(agree) > len(best):
                best = agree
        if best:
            full = _similarity(np.concatenate([p[0] for p in best]), np.concatenate([p[1] for p in best]))
            poses[seat] = ChartPose(seat, full, np.linalg.inv(full), len(best))
    return poses


def test_charts_located_as_when_every_marker_was_tried() -> None:
    calm = SceneSettings(tilt_deg=(8.0, 12.0), yaw_deg=(-5.0, 5.0), blur_sigma=(0.3, 0.5), noise_sigma=(1.0, 2.0),
                         shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))
    scene = render_scene(np.random.default_rng(8), seats=[0, 2, 3], settings=calm, placements=[])
    markers = find_markers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), BIGTOP)
    cal = mat_homography(markers, BIGTOP)
    chart = [m for m in markers if BIGTOP.table.markers.board_of_marker(m.id) is not None]
    # every marker agreeing; the first of a seat off its place (a card face decoded as its id); one marker alone
    stray = Marker(chart[0].id, chart[0].corners + 40.0)
    cases = [markers, (stray, *markers), (chart[0],)]
    for case in cases:
        got, want = locate_charts(case, cal, BIGTOP), _charts_every_pair(case, cal, BIGTOP)
        assert sorted(got) == sorted(want) and got
        for seat in want:
            assert got[seat].markers_seen == want[seat].markers_seen
            assert np.array_equal(got[seat].chart_to_table, want[seat].chart_to_table)
            assert np.array_equal(got[seat].table_to_chart, want[seat].table_to_chart)


def test_quads_taken_to_the_table_together_as_each_alone() -> None:
    rng = np.random.default_rng(3)
    h = np.array([[0.41, 0.03, -120.0], [-0.02, 0.44, -80.0], [1e-5, -2e-5, 1.0]])
    cal = Calibration(np.linalg.inv(h), h, 6, 0.5)
    quads = [rng.uniform(0, 1280, (4, 2)) for _ in range(25)] + [rng.uniform(0, 1280, (4, 2)).astype(np.float32)]
    together = _to_table(quads, cal)
    assert together.shape == (26, 4, 2)
    for q, t in zip(quads, together):
        alone = cv2.perspectiveTransform(q[None].astype(np.float64), cal.image_to_table)[0]
        assert np.array_equal(alone, t)
    assert _to_table([], cal).shape == (0, 4, 2)


def _calm_markers(seed: int) -> tuple[Marker, ...]:
    calm = SceneSettings(tilt_deg=(8.0, 12.0), yaw_deg=(-5.0, 5.0), blur_sigma=(0.3, 0.5), noise_sigma=(1.0, 2.0),
                         shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))
    scene = render_scene(np.random.default_rng(seed), seats=[0, 2, 3], settings=calm, placements=[])
    return find_markers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), BIGTOP)


def _fitted_afresh(markers: tuple[Marker, ...]) -> Calibration:
    calibrate._LAST_MAT.clear()
    return mat_homography(markers, BIGTOP)


def test_the_same_markers_calibrated_again_give_the_fit_afresh_as_a_new_calibration() -> None:
    markers = _calm_markers(8)
    mat = [m for m in markers if m.id in BIGTOP.table.markers.marker_ids]
    # one mat marker off its place (a card face decoded as its id): dropped while fitting
    off = tuple(Marker(m.id, m.corners + 25.0) if m is mat[0] else m for m in markers)
    moved = tuple(Marker(m.id, m.corners + 0.25) if m is mat[1] else m for m in markers)
    for case in (markers, off, markers, moved, off):
        want = _fitted_afresh(case)
        first, again = mat_homography(case, BIGTOP), mat_homography(case, BIGTOP)
        for got in (first, again):
            assert np.array_equal(got.image_to_table, want.image_to_table)
            assert np.array_equal(got.table_to_image, want.table_to_image)
            assert (got.markers_seen, got.error_mm) == (want.markers_seen, want.error_mm)
        assert again is not first and again.image_to_table is not first.image_to_table
    assert _fitted_afresh(off).markers_seen < _fitted_afresh(markers).markers_seen
    # other markers right after: never the last call's calibration
    mat_homography(markers, BIGTOP)
    assert not np.array_equal(mat_homography(moved, BIGTOP).image_to_table, _fitted_afresh(markers).image_to_table)


def test_a_kept_fit_is_the_fit_to_the_markers_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    markers = _calm_markers(8)
    mat = [m for m in markers if m.id in BIGTOP.table.markers.marker_ids]
    off = tuple(Marker(m.id, m.corners + 25.0) if m is mat[0] else m for m in mat)
    fits: list[tuple[list[np.ndarray], list[np.ndarray]]] = []
    fit = calibrate._fit
    monkeypatch.setattr(calibrate, "_fit", lambda src, dst: fits.append((src, dst)) or fit(src, dst))
    got = _fitted_afresh(off)
    # markers dropped one by one, each fit once: the last fit is the calibration, not fitted again
    assert got.markers_seen < len(off) and len(fits) == len(off) - got.markers_seen + 1
    H, errs = fit(*fits[-1])
    assert H is not None and np.array_equal(got.image_to_table, H)
    assert got.error_mm == float(np.sqrt(np.mean(np.square(errs))))


def test_charts_located_again_from_the_same_corners_are_those_located_afresh() -> None:
    markers = _calm_markers(8)
    cal = mat_homography(markers, BIGTOP)
    nudged = Calibration(cal.image_to_table * (1 + 1e-9), cal.table_to_image, cal.markers_seen, cal.error_mm)
    chart = tuple(m for m in markers if BIGTOP.table.markers.board_of_marker(m.id) is not None)
    for case, c in ((markers, cal), (chart, cal), (chart, nudged), (chart[1:], cal), (markers, cal)):
        want = _charts_every_pair(case, c, BIGTOP)
        for _ in range(2):  # the second from the first's poses
            got = locate_charts(case, c, BIGTOP)
            assert sorted(got) == sorted(want) and got
            for seat in want:
                assert got[seat].markers_seen == want[seat].markers_seen
                assert np.array_equal(got[seat].chart_to_table, want[seat].chart_to_table)
                assert np.array_equal(got[seat].table_to_chart, want[seat].table_to_chart)
