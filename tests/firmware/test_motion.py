"""Frame-difference motion: hands over the table move, sensor noise does not."""

from __future__ import annotations

import cv2
import numpy as np

from firmware.motion import MotionDetector


def table(rng: np.random.Generator) -> np.ndarray:
    base = np.full((480, 640, 3), 120, np.uint8)
    cv2.rectangle(base, (100, 100), (300, 250), (200, 220, 240), -1)
    noise = rng.normal(0, 4, base.shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def test_noise_alone_is_not_motion_and_a_hand_is() -> None:
    rng = np.random.default_rng(3)
    motion = MotionDetector()
    assert not motion.moving(table(rng))  # the first frame has nothing to compare with
    for _ in range(5):
        assert not motion.moving(table(rng))
    hand = table(rng)
    cv2.ellipse(hand, (400, 300), (90, 50), 30, 0, 360, (90, 130, 190), -1)
    assert motion.moving(hand)
    assert motion.last_change > 0.01


def test_the_thresholds_do_not_depend_on_the_camera_resolution() -> None:
    rng = np.random.default_rng(4)
    for scale in (1, 3):
        motion = MotionDetector()
        still = cv2.resize(table(rng), None, fx=scale, fy=scale)
        motion.moving(still)
        moved = still.copy()
        cv2.circle(moved, (200 * scale, 200 * scale), 40 * scale, (0, 0, 0), -1)
        assert motion.moving(moved)


def test_reset_forgets_the_previous_frame() -> None:
    rng = np.random.default_rng(5)
    motion = MotionDetector()
    motion.moving(table(rng))
    motion.reset()
    assert not motion.moving(np.zeros((480, 640, 3), np.uint8))
