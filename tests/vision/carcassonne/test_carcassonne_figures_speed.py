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
        mask: np.ndarray = np.zeros((h, w), np.uint8)
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


def test_the_opening_over_the_pixels_box_leaves_the_pixels_the_whole_masks_opening_leaves() -> None:
    """`figures._opened` (the token's patch opened over its box only) gives the rows and columns, in order, that an
    opening of the whole mask gives: patches at the middle, against each edge and corner, with holes and spurs."""
    import cv2

    rng = np.random.default_rng(21)
    for trial in range(600):
        side = int(rng.choice([64, 128, 97]))
        wide = int(rng.choice([3, 5, 11, 21, 23]))
        mask = np.zeros((side, side), np.uint8)
        for _ in range(int(rng.integers(0, 4))):
            centre = (int(rng.integers(-10, side + 10)), int(rng.integers(-10, side + 10)))
            cv2.circle(mask, centre, int(rng.integers(1, side // 3)), 1, -1)
            x, y = (int(v) for v in rng.integers(0, side, 2))
            mask[y:y + int(rng.integers(1, 30)), x:x + int(rng.integers(1, 4))] = 1  # a spur narrower than the kernel
            mask[rng.integers(0, side, 20), rng.integers(0, side, 20)] ^= 1
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (wide, wide))
        want = np.nonzero(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel))
        got = figures_module._opened(mask, wide)
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want)), trial


def test_the_token_cut_balanced_in_place_is_numpys_form_to_the_bit() -> None:
    """`figures._balanced` (the token's finer cut times the board's gain, at most 255, truncated to 8 bits) is
    ``np.minimum(cut.astype(np.float32) * gain, 255).astype(np.uint8)``, products just under a whole number too."""
    rng = np.random.default_rng(30)
    for side in (128, 64, 7):
        cut = rng.integers(0, 256, (side, side, 3)).astype(np.uint8)
        for gain in (rng.uniform(0.5, 1.8, 3).astype(np.float32), np.array([1 / 3, 0.7, 1.1], np.float32),
                     np.array([1.0, 255 / 254, 0.99999994], np.float32)):
            want = np.minimum(cut.astype(np.float32) * gain, 255).astype(np.uint8)
            got = figures_module._balanced(cut, gain)
            assert got.dtype == np.uint8 and got.shape == want.shape and got.tobytes() == want.tobytes()
