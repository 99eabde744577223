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
