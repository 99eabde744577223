"""The independent camera model: deterministic, every effect visible, levels ordered, truth mapping right."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.bigtop.scene import TRAIN_SETTINGS
from vision.camera_model import LEVELS, CameraLevel, photograph

REGION = (0.0, 0.0, 300.0, 200.0)
SIZE = (320, 240)


def _canvas() -> np.ndarray:
    """A 300 x 200 mm table at 2 px/mm: a grey field with a dark square and a white bar."""
    c = np.full((400, 600, 3), 150.0, np.float32)
    c[100:200, 100:200] = 30.0
    c[250:300, 300:550] = 240.0
    return c


#: every effect off: straight down, no distortion, neutral light, no glare or hand, sharp, no noise
PLAIN = CameraLevel("plain", (0.0, 0.0), (0.0, 0.0), 0.0, (1.0, 1.0), (0.0, 0.0), (0, 0), (0.0, 0.0), 0.0,
                    (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (100, 100), (0.02, 0.02), roll_deg=0.0,
                    roll_any=0.0)


def _shot(level: CameraLevel | str, seed: int = 3) -> np.ndarray:
    return photograph(_canvas(), 2.0, (0.0, 0.0), REGION, level, seed, SIZE).image.astype(np.float32)


def test_same_seed_same_photo_other_seed_other_photo() -> None:
    a, b, c = _shot("hard", 1), _shot("hard", 1), _shot("hard", 2)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("change", [
    {"tilt_deg": (20.0, 20.0)}, {"roll_deg": 15.0}, {"barrel_k1": (-0.2, -0.2)}, {"white_balance": 0.3},
    {"exposure": (0.5, 0.5)}, {"vignetting": (0.5, 0.5)}, {"glare_spots": (2, 2), "glare_peak": (1.0, 1.0)}, {"hand_probability": 1.0},
    {"defocus_px": (8.0, 8.0)}, {"motion_px": (16.0, 16.0)}, {"read_noise": (5.0, 5.0)}, {"shot_noise": (8.0, 8.0)},
    {"jpeg_quality": (30, 30)},
])
def test_each_effect_changes_the_photo(change: dict[str, object]) -> None:
    plain = _shot(PLAIN)
    changed = _shot(replace(PLAIN, **change))  # type: ignore[arg-type]
    assert float(np.mean(np.abs(changed - plain))) > 0.3, change


def test_plain_camera_maps_table_millimetres_to_the_right_pixels() -> None:
    photo = photograph(_canvas(), 2.0, (0.0, 0.0), REGION, replace(PLAIN, tilt_deg=(15.0, 15.0),
                       barrel_k1=(-0.1, -0.1)), 5, SIZE)
    # the dark square's centre (75, 75) mm is dark in the photo, the grey field around it is not
    x, y = np.round(photo.to_image(np.array([[75.0, 75.0], [75.0, 130.0]]))).astype(int)
    assert photo.image[x[1], x[0]].mean() < 60
    assert photo.image[y[1], y[0]].mean() > 110


def test_levels_get_harder_and_hard_is_harsher_than_training() -> None:
    order = [LEVELS[n] for n in ("easy", "medium", "hard", "extreme")]
    for a, b in zip(order, order[1:]):
        assert b.tilt_deg[1] >= a.tilt_deg[1] and b.barrel_k1[0] <= a.barrel_k1[0]
        assert b.white_balance >= a.white_balance and b.exposure[0] <= a.exposure[0]
        assert b.vignetting[1] >= a.vignetting[1] and b.glare_spots[1] >= a.glare_spots[1]
        assert b.hand_probability >= a.hand_probability
        assert b.defocus_px[1] >= a.defocus_px[1] and b.motion_px[1] >= a.motion_px[1]
        assert b.read_noise[1] >= a.read_noise[1] and b.jpeg_quality[0] <= a.jpeg_quality[0]
    hard = LEVELS["hard"]
    assert hard.tilt_deg[1] > TRAIN_SETTINGS.tilt_deg[1]
    assert hard.jpeg_quality[0] < TRAIN_SETTINGS.jpeg_quality[0]
    # a disc of radius r blurs about as much as a Gaussian of sigma r / 2; training has no motion blur
    assert hard.defocus_px[1] / 2 >= TRAIN_SETTINGS.blur_sigma[1] and hard.motion_px[1] > 0


def test_unknown_level_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown camera level 'blurry'"):
        photograph(_canvas(), 2.0, (0.0, 0.0), REGION, "blurry", 1, SIZE)


def test_the_frame_before_the_hand_differs_only_where_the_hand_is() -> None:
    level = replace(PLAIN, hand_probability=1.0, read_noise=(2.0, 2.0))
    with_hand = photograph(_canvas(), 2.0, (0.0, 0.0), REGION, level, 7, SIZE)
    without = photograph(_canvas(), 2.0, (0.0, 0.0), REGION, level, 7, SIZE, with_hand=False)
    assert with_hand.hand_mask.any() and not without.hand_mask.any()
    far = np.ones(SIZE[::-1], bool)
    ys, xs = np.nonzero(with_hand.hand_mask)
    far[max(0, ys.min() - 40):ys.max() + 40, max(0, xs.min() - 40):xs.max() + 40] = False
    diff = np.abs(with_hand.image.astype(np.float32) - without.image.astype(np.float32)).mean(axis=2)
    assert float(diff[with_hand.hand_mask > 0].mean()) > 10.0
    if far.any():
        assert float(diff[far].mean()) < 1.0
