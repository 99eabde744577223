"""The slow marker search in a shrunk large frame (`vision.calibrate.find_markers_reduced`), each marker read again in
the frame itself, and the mat's missing markers searched only where they must lie (`find_missing_mat_markers`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibrate import (
    Marker,
    _refined,
    find_markers,
    find_markers_reduced,
    find_missing_mat_markers,
    mat_homography,
    reduction,
    sharpen_sigma,
)
from vision.flohcati.pipeline import CONFIG

LAYOUT = CONFIG.table.markers
PX_PER_MM = 2.0


def _table_to_frame() -> np.ndarray:
    """A camera a little off straight above the mat, filling the frame's height."""
    w, h = LAYOUT.width, LAYOUT.height
    table = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    frame = np.array([[100, 70], [1180, 40], [1240, 1240], [40, 1210]], np.float32)
    return cv2.getPerspectiveTransform(table, frame)


def _frame(blur: float = 2.6, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """A grey frame of the Flohcati mat's markers as large as in a 2304x1296 frame (the frame cut to the mat's width),
    blurred and noisy, and the table -> frame homography."""
    w, h = int(LAYOUT.width * PX_PER_MM), int(LAYOUT.height * PX_PER_MM)
    mat = np.full((h, w), 200, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(CONFIG.aruco_dictionary)
    for k, mid in enumerate(LAYOUT.marker_ids):
        (x, y) = LAYOUT.marker_corners(k)[0]
        side = int(round(LAYOUT.marker_size * PX_PER_MM))
        x0, y0 = int(round(x * PX_PER_MM)), int(round(y * PX_PER_MM))
        mat[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, mid, side) // 255 * 170 + 20
    to_frame = _table_to_frame()
    scale = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    # pixel centres: table mm of mat pixel (i, j) is ((i + 0.5) / px, (j + 0.5) / px)
    centre = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    gray = cv2.warpPerspective(mat, to_frame @ scale @ centre, (1280, 1296), flags=cv2.INTER_AREA, borderValue=(90,))
    gray = cv2.GaussianBlur(gray, (0, 0), blur)
    assert gray.shape == (1296, 1280)
    rng = np.random.default_rng(seed)
    gray = np.clip(gray + rng.normal(0, 4, gray.shape), 0, 255).astype(np.uint8)
    return gray, to_frame


def _true_corners(marker_id: int, to_frame: np.ndarray) -> np.ndarray:
    table = np.array(LAYOUT.marker_corners(LAYOUT.marker_ids.index(marker_id)), np.float64)
    out: np.ndarray = cv2.perspectiveTransform(table[None], to_frame.astype(np.float64))[0]
    return out


@pytest.fixture(scope="module")
def frame() -> tuple[np.ndarray, np.ndarray]:
    return _frame()


@pytest.fixture(scope="module")
def full(frame: tuple) -> dict[int, np.ndarray]:  # type: ignore[type-arg]
    """The whole frame's slow search: the mat's markers."""
    return {m.id: m.corners for m in find_markers(frame[0], CONFIG, robust=True) if m.id in LAYOUT.marker_ids}


@pytest.fixture(scope="module")
def whole(frame: tuple, full: dict[int, np.ndarray]) -> dict[int, np.ndarray]:  # type: ignore[type-arg]
    """The whole frame's searches as a recogniser takes them: the fast path's markers, the slow path's for the rest."""
    fast = {m.id: m.corners for m in find_markers(frame[0], CONFIG) if m.id in LAYOUT.marker_ids}
    return {**full, **fast}


def test_a_frame_is_shrunk_only_when_it_is_twice_the_detectors_size() -> None:
    assert reduction(1280) == 1
    assert reduction(1920) == 1
    assert reduction(2304) == 2
    assert reduction(4608) == 4


def test_the_shrunk_search_reads_the_markers_where_the_whole_frames_search_does(
        frame: tuple, whole: dict[int, np.ndarray]) -> None:  # type: ignore[type-arg]
    gray, to_frame = frame
    reduced = {m.id: m.corners for m in find_markers_reduced(gray, CONFIG, 2) if m.id in LAYOUT.marker_ids}
    assert set(reduced) == set(whole) == set(LAYOUT.marker_ids)
    same = 0
    for mid, corners in reduced.items():
        assert float(np.linalg.norm(corners - _true_corners(mid, to_frame), axis=1).mean()) < 2.0
        same += float(np.abs(corners - whole[mid]).max()) < 0.5
    assert same >= len(whole) - 1  # read again in the frame: mostly the very corners the whole frame's searches read


def test_factor_one_is_the_whole_frames_slow_search(frame: tuple) -> None:  # type: ignore[type-arg]
    gray, _ = frame
    part = gray[:700, :1200]
    plain = find_markers(part, CONFIG, robust=True, one_window=True)
    assert plain
    same = find_markers_reduced(part, CONFIG, 1)
    assert [m.id for m in same] == [m.id for m in plain]
    assert all(np.array_equal(a.corners, b.corners) for a, b in zip(same, plain))


def test_a_corner_is_refined_onto_the_marker_unless_it_would_move_too_far(
        frame: tuple, full: dict[int, np.ndarray]) -> None:  # type: ignore[type-arg]
    gray, _ = frame
    sigma = sharpen_sigma(max(gray.shape))
    settled = _refined(gray, full[2], sigma, 2.0)
    off = full[2] + np.array([[0.9, -0.7], [-0.8, 0.6], [0.7, 0.9], [-0.9, -0.8]])
    refined = _refined(gray, off, sigma, 2.0)
    # corners a shrunk pixel off come back to where the corners themselves settle
    assert float(np.linalg.norm(refined - settled, axis=1).max()) < 0.3
    assert float(np.linalg.norm(settled - full[2], axis=1).max()) < 1.5
    assert np.array_equal(_refined(gray, off, sigma, 0.05), off)


def test_a_missing_mat_marker_is_found_around_where_it_must_lie(
        frame: tuple, full: dict[int, np.ndarray]) -> None:  # type: ignore[type-arg]
    gray, _ = frame
    every = tuple(Marker(i, c) for i, c in full.items())
    lacking = tuple(m for m in every if m.id != 2)
    mat_homography(lacking, CONFIG)  # the four others fix the mat
    found = find_missing_mat_markers(gray, lacking, CONFIG)
    assert [m.id for m in found] == [2]
    assert float(np.abs(found[0].corners - full[2]).max()) < 0.5
    assert find_missing_mat_markers(gray, every, CONFIG) == ()


def test_no_window_is_searched_when_the_markers_cannot_place_the_mat(
        frame: tuple, full: dict[int, np.ndarray]) -> None:  # type: ignore[type-arg]
    gray, _ = frame
    two = tuple(Marker(i, full[i]) for i in (0, 1))
    assert len(two) == 2
    assert find_missing_mat_markers(gray, two, CONFIG) == ()
    assert find_missing_mat_markers(gray, (Marker(0, two[0].corners),), CONFIG) == ()


def test_only_the_markers_kept_are_read_again(frame: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    import vision.calibrate as calibrate

    gray, _ = frame
    searched: list[tuple[int, ...]] = []
    plain = calibrate.find_markers

    def counted(image: np.ndarray, *args: object, **kwargs: object) -> tuple[Marker, ...]:  # type: ignore[type-arg]
        searched.append(image.shape)
        return plain(image, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(calibrate, "find_markers", counted)
    every = find_markers_reduced(gray, CONFIG, 2)
    all_searches = len(searched)
    dropped = every[0].id
    searched.clear()
    kept = find_markers_reduced(gray, CONFIG, 2, keep=lambda i: i != dropped)
    assert [m.id for m in kept] == [m.id for m in every if m.id != dropped]
    assert all(np.array_equal(a.corners, b.corners) for a, b in zip(kept, (m for m in every if m.id != dropped)))
    assert len(searched) < all_searches  # the marker not kept is not read again in the frame
