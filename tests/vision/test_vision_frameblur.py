"""`vision.calibrate.FrameBlur`: a part's blur made from the whole frame's is the part's own blur, bit for bit,
and the searches that share it find what they found without it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibrate import FrameBlur, find_markers, sharpen_sigma
from vision.codematch import _candidate_squares
from vision.flohcati.pipeline import CONFIG


def _frame(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Noise over smooth shading and hard-edged blocks (every kind of neighbourhood the filter sees)."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = 90 + 60 * np.sin(xx / 37.0) * np.cos(yy / 23.0) + rng.normal(0, 25, (h, w))
    for _ in range(30):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        img[y:y + int(rng.integers(3, 60)), x:x + int(rng.integers(3, 60))] = rng.integers(0, 256)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma", [1.0, 2.048, 3.6864, 6.3])
def test_part_is_the_parts_own_blur(sigma: float) -> None:
    rng = np.random.default_rng(7)
    gray = _frame(rng, 300, 420)
    blur = FrameBlur(gray, sigma)
    assert not blur.made
    boxes = [(0, 0, 420, 300), (0, 0, 200, 150), (37, 11, 420, 300), (5, 9, 400, 290), (100, 80, 130, 110),
             (0, 120, 420, 300), (3, 0, 417, 296)]
    boxes += [tuple(int(v) for v in (*sorted(rng.integers(0, 421, 2)), *sorted(rng.integers(0, 301, 2))))
              for _ in range(12)]
    for x0, x1, y0, y1 in [(b[0], b[2], b[1], b[3]) for b in boxes[:7]] + [(b[0], b[1], b[2], b[3]) for b in boxes[7:]]:
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
