"""Live frames: readings and components given back only while the frame shows the same thing."""

from __future__ import annotations

import itertools
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.bigtop.faces import render_label
from vision.bigtop.labels import LABELS, NONE, Kind, kind_of
from vision.bigtop.layout import CARD
from vision.calibrate import Calibration, Rectified
from vision.classify import Recognition, Verdict
from vision.recall import CROP_KEEP_FRAMES, CROP_SAME, TILE_SAME, CropMemory, FrameMemory, Seen, crop_signature


class _CountingReader:
    """Reads each crop as the label whose index is the crop's mean grey level modulo the labels."""

    def __init__(self) -> None:
        self.asked = 0

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        self.asked += len(crops)
        return [Recognition(Verdict.IDENTIFIED, LABELS[int(c.mean()) % len(LABELS)], 0.99) for c in crops]


def _face(label: str, blur: float, contrast: float) -> NDArray[Any]:
    """The face of ``label`` as the classifier's 40x56 crop, blurred by ``blur`` px and at ``contrast``."""
    img, _ = render_label(label, 10.0)
    if kind_of(label) is Kind.CARD:
        f = int(round((CARD.margin + CARD.frame) * 10.0))
        img = img[f:img.shape[0] - f, f:img.shape[1] - f]
    c = cv2.resize(img, (40, 56), interpolation=cv2.INTER_AREA).astype(np.float32)
    if blur:
        c = cv2.GaussianBlur(c, (0, 0), blur)
    out: NDArray[Any] = np.clip(np.rint(c * contrast), 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize(("blur", "contrast"), [(0.0, 1.0), (1.0, 1.0), (2.0, 0.3)])
def test_every_component_is_told_from_every_other(blur: float, contrast: float) -> None:
    labels = [lb for lb in LABELS if lb != NONE]
    sig = crop_signature(np.stack([_face(lb, blur, contrast) for lb in labels])).astype(np.int32)
    pairs = np.array(list(itertools.combinations(range(len(labels)), 2)))
    nearest = int(np.abs(sig[pairs[:, 0]] - sig[pairs[:, 1]]).max(axis=1).min())
    assert nearest > CROP_SAME


def test_a_swapped_card_is_read_again_and_noise_is_not() -> None:
    memory, reader = CropMemory(), _CountingReader()
    a, b = _face("clowns-L2", 2.0, 0.3), _face("clowns-L3", 2.0, 0.3)
    first = memory.classify(reader, a[None], 0.9)
    rng = np.random.default_rng(3)
    memory.next_frame()
    noisy = np.clip(a.astype(np.int16) + rng.integers(-3, 4, a.shape), 0, 255).astype(np.uint8)
    assert memory.classify(reader, noisy[None], 0.9) == first
    assert reader.asked == 1
    memory.next_frame()
    memory.classify(reader, np.stack([noisy, b]), 0.9)
    assert reader.asked == 2 and memory.recalled == 2 and memory.read == 2


def test_drift_is_measured_from_the_crop_read_not_the_last_one() -> None:
    memory, reader = CropMemory(), _CountingReader()
    base = _face("sideshow-D4", 1.0, 0.8).astype(np.int16)
    step = int(CROP_SAME) // 2 + 1
    for k in range(3):
        memory.next_frame()
        memory.classify(reader, np.clip(base + k * step, 0, 255).astype(np.uint8)[None], 0.9)
    assert reader.asked == 2  # the third frame is more than CROP_SAME from the first, though not from the second


def test_readings_are_forgotten_and_kept_apart() -> None:
    memory, reader = CropMemory(), _CountingReader()
    crop = _face("token-5", 0.0, 1.0)[None]
    memory.classify(reader, crop, 0.9)
    memory.classify(reader, crop, 0.5)  # another threshold: another verdict may follow
    memory.reading(reader, "balanced").classify(crop, 0.9)  # retouched crops are read on their own
    assert reader.asked == 3
    memory.reading(reader, "balanced").classify(crop, 0.9)
    assert reader.asked == 3
    for _ in range(CROP_KEEP_FRAMES + 1):
        memory.next_frame()
    memory.classify(reader, crop, 0.9)
    assert reader.asked == 4
    other = _CountingReader()
    memory.classify(other, crop, 0.9)
    assert other.asked == 1
    memory.reset()
    memory.classify(other, crop, 0.9)
    assert other.asked == 2


def _seen() -> Seen:
    cal = Calibration(np.eye(3), np.eye(3), 4, 0.5)
    return Seen((), cal, {}, Rectified(np.zeros((4, 4), np.uint8), np.eye(3), 1.0, np.eye(3)))


def test_a_frame_is_given_back_only_while_nothing_changed() -> None:
    rng = np.random.default_rng(5)
    image = cv2.GaussianBlur(rng.integers(60, 200, (240, 320), dtype=np.uint8), (0, 0), 3)
    memory = FrameMemory()
    assert memory.recall(image) is None
    first = _seen()
    memory.remember(first)
    noisy = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    assert memory.recall(noisy) is first
    memory.remember(_seen())  # nothing to remember: the frame was given back
    assert memory.recall(image) is first
    moved = noisy.copy()
    moved[100:104, 150:152] = np.clip(moved[100:104, 150:152].astype(np.int16) + 5 * int(TILE_SAME), 0, 255)
    assert memory.recall(moved) is None  # a 4x2 px change is enough
    second = _seen()
    memory.remember(second)
    assert memory.recall(moved) is second
    assert memory.recall(image) is None  # compared with the frame searched last
    assert memory.recall(image[:, :-4]) is None
    memory.reset()
    assert memory.recall(moved) is None
    assert (memory.recalled, memory.searched) == (3, 2)
