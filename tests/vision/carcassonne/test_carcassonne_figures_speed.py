"""The figure search's faster forms read exactly as the plain ones they replace."""

from __future__ import annotations

import numpy as np

from vision.carcassonne import figures as figures_module


def test_the_gain_and_the_veil_applied_over_one_tall_image_are_numpys_broadcasts_to_the_bit() -> None:
    """Each channel times its gain, and the veil taken off each channel (`figures._times_gain`, `figures._less_veil`),
    give the float32 values numpy's broadcasts give, in place."""
    rng = np.random.default_rng(4)
    for n, side in ((1, 64), (7, 64), (3, 128)):
        cuts = rng.integers(0, 256, (n, side, side, 3)).astype(np.float32)
        gain = rng.uniform(0.6, 1.7, 3).astype(np.float32)
        veil = (rng.random((n, side, side)) * 60).astype(np.float32)
        want = cuts * gain
        got = cuts.copy()
        figures_module._times_gain(got, gain)
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes()
        want = want - veil[..., None]
        figures_module._less_veil(got, veil)
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def test_the_white_gain_of_8_bit_pixels_is_that_of_the_same_pixels_as_float32() -> None:
    """8-bit pixels' largest channel is taken before their conversion: the same gain as from their float32 values,
    glare (a channel at 250 or more) left out alike."""
    rng = np.random.default_rng(8)
    pixels = rng.integers(0, 256, (5000, 3)).astype(np.uint8)
    pixels[:300] = 252
    for sample in (pixels, pixels[::5], pixels[:40]):
        got = figures_module.white_gain(sample)
        want = figures_module.white_gain(sample.astype(np.float32))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def _opencv_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    import cv2

    n, labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    return n, labels, stats, cents


def _same(got: tuple[int, np.ndarray, np.ndarray, np.ndarray], want: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> bool:
    return (got[0] == want[0] and all(g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()
                                      for g, w in zip(got[1:], want[1:])))


def test_the_components_of_a_mask_of_few_pixels_are_opencvs_to_the_bit() -> None:
    """Labels, stats (the background's too) and centroids of `figures._components`, which labels the mask with its
    empty rows and columns taken out, are those of OpenCV's labelling of the whole mask: blobs a line or two apart,
    at odd and even rows and columns, at the edges, and masks with no empty line (read whole)."""
    import cv2

    rng = np.random.default_rng(14)
    taken_out = 0
    for trial in range(1500):
        h, w = (int(v) for v in rng.integers(3, 260, 2))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 14))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            bh, bw = (int(v) for v in rng.integers(1, 10, 2))
            part = mask[y:y + bh, x:x + bw]
            part[...] = rng.random(part.shape) < rng.choice([0.4, 0.8, 1.0])
        if trial % 5 == 0:
            mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))  # pieces a line apart, joined or not by a corner
        if trial % 50 == 0:
            mask[:, 0] = 1  # no empty row: read whole
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        if 0 < rows.size < h and cols.size < w:
            kept = figures_module._lines_kept(rows).size * figures_module._lines_kept(cols).size
            taken_out += kept <= mask.size // 8
        assert _same(figures_module._components(mask), _opencv_components(mask)), trial
    # the two pixels a run of empty lines apart on both sides, either parity
    for dy in range(1, 6):
        for dx in range(1, 6):
            for oy, ox in ((0, 0), (1, 0), (0, 1), (1, 1)):
                mask = np.zeros((40, 40), np.uint8)
                mask[5 + oy, 5 + ox] = mask[5 + oy + dy, 5 + ox + dx] = 1
                mask[30 + oy, 7] = 1
                assert _same(figures_module._components(mask), _opencv_components(mask)), (dy, dx, oy, ox)
    assert taken_out > 500  # the faster path is the one tried
