"""The calibration's live-frame shortcuts (`vision.calibrate`) give exactly what computing afresh gives."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision import NoMatError
from vision.bigtop import DEFAULT_CONFIG
from vision.calibrate import Calibrator, Marker, MarkerTracker, Rectified, marker_outlines

LAYOUT = DEFAULT_CONFIG.table.markers


def _rect(table_to_image: NDArray[Any]) -> Rectified:
    x0, y0, _, _ = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    return Rectified(np.zeros((10, 10), np.uint8), t, s, table_to_image @ np.linalg.inv(t))


def _view(rng: np.random.Generator) -> NDArray[Any]:
    """A table -> camera homography: about 1.3 px/mm, a little turned and tilted."""
    a = np.radians(rng.uniform(-8, 8))
    return np.array([[1.3 * np.cos(a), -1.3 * np.sin(a), 100 + rng.uniform(-20, 20)],
                     [1.3 * np.sin(a), 1.3 * np.cos(a), 300 + rng.uniform(-20, 20)],
                     [rng.uniform(-1e-4, 1e-4), rng.uniform(-1e-4, 1e-4), 1.0]])


def _markers(rng: np.random.Generator, table_to_image: NDArray[Any]) -> tuple[Marker, ...]:
    """Every mat marker where the view puts it (a little noise), a foreign id and one twice its size."""
    out = []
    for k, i in enumerate(LAYOUT.marker_ids):
        table = np.array(LAYOUT.marker_corners(k), np.float64)
        out.append(Marker(i, cv2.perspectiveTransform(table[None], table_to_image)[0] + rng.normal(0, 0.3, (4, 2))))
    big = out[0].corners.mean(axis=0) + 2 * (out[0].corners - out[0].corners.mean(axis=0))
    return (*out, Marker(out[0].id, big), Marker(9999, out[1].corners + 5.0))


def _outlines_afresh(markers: tuple[Marker, ...], rect: Rectified) -> list[NDArray[Any]]:
    """`marker_outlines` computed marker by marker, nothing kept."""
    assert rect.rect_to_frame is not None
    to_rect = np.linalg.inv(rect.rect_to_frame)
    out = []
    for m in markers:
        ss = LAYOUT.board_of_marker(m.id)
        if m.id in LAYOUT.marker_ids:
            size = LAYOUT.marker_size
        elif ss is not None:
            size = LAYOUT.board_marker_size(ss[1])
        else:
            continue
        pts = cv2.perspectiveTransform(m.corners[None], to_rect)[0]
        side = float(np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1))) / rect.px_per_mm
        if abs(side - size) <= 0.25 * size:
            out.append(pts)
    return out


def _same(a: list[NDArray[Any]], b: list[NDArray[Any]]) -> bool:
    return len(a) == len(b) and all(np.array_equal(p, q) for p, q in zip(a, b))


def test_marker_outlines_kept_between_frames_match_them_made_afresh() -> None:
    rng = np.random.default_rng(4)
    views = [_view(rng) for _ in range(2)]
    frames = [(_markers(rng, v), _rect(v)) for v in views]
    moved = (Marker(frames[0][0][0].id, frames[0][0][0].corners + 3.0), *frames[0][0][1:])
    for markers, rect in (*frames, frames[0], (moved, frames[0][1]), frames[1], frames[1]):
        got = marker_outlines(markers, rect, DEFAULT_CONFIG)
        want = _outlines_afresh(markers, rect)
        assert len(want) == len(LAYOUT.marker_ids)  # the foreign and the oversized marker left out
        assert _same(got, want)
        assert not any(p.flags.writeable for p in got)


@pytest.mark.parametrize("seed", range(3))
def test_a_tracked_markers_region_is_sized_by_its_longest_side(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tracker = MarkerTracker(DEFAULT_CONFIG)
    for m in _markers(rng, _view(rng)):
        x0, y0, x1, y1, size = tracker._region(m, (960, 1280))
        assert size == float(np.max(np.linalg.norm(m.corners - np.roll(m.corners, 1, axis=0), axis=1)))
        pad = DEFAULT_CONFIG.marker_roi_margin * size + 4
        assert (x0, y0) == (max(0, int(np.floor(m.corners[:, 0].min() - pad))),
                            max(0, int(np.floor(m.corners[:, 1].min() - pad))))
        assert (x1, y1) == (min(1280, int(np.ceil(m.corners[:, 0].max() + pad)) + 1),
                            min(960, int(np.ceil(m.corners[:, 1].max() + pad)) + 1))


def _copies(markers: tuple[Marker, ...]) -> tuple[Marker, ...]:
    return tuple(Marker(m.id, m.corners.copy()) for m in markers)


def test_the_very_markers_again_give_what_calibrating_them_afresh_gives() -> None:
    rng = np.random.default_rng(9)
    view = _view(rng)
    still = _markers(rng, view)
    moved = _markers(rng, view @ np.array([[1, 0, 40.0], [0, 1, 0], [0, 0, 1]]))  # the table moved
    nudged = tuple(Marker(m.id, m.corners + 0.2) for m in moved)  # within the tolerance: kept
    hidden = moved[:2]  # too few for a calibration of their own: the cached one is confirmed
    lost = tuple(Marker(m.id, m.corners + 30.0) for m in moved[:2])  # not where the cached calibration puts them
    frames = [still, still, still, moved, moved, nudged, nudged, hidden, hidden, still]
    live, afresh = Calibrator(DEFAULT_CONFIG), Calibrator(DEFAULT_CONFIG)
    for markers in frames:
        got, want = live.update(markers), afresh.update(_copies(markers))
        assert np.array_equal(got.image_to_table, want.image_to_table)
        assert (got is live.cached) == (want is afresh.cached)
        assert (live.recalibrations, live.reused) == (afresh.recalibrations, afresh.reused)
    for calibrator in (live, afresh):
        with pytest.raises(NoMatError):
            calibrator.update(lost)
        with pytest.raises(NoMatError):
            calibrator.update(lost)
    assert live.reused == afresh.reused == 2
