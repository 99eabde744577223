"""Live frames: readings and components given back only while the frame shows the same thing."""

from __future__ import annotations

import itertools
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.bigtop.faces import render_label
from vision.bigtop.labels import LABELS, NONE, kind_of
from vision.bigtop.labels import Kind as LabelKind
from vision.bigtop.layout import CARD, CARD_FACE_VERSION
from vision.calibrate import Calibration, Rectified
from vision.classify import Recognition, Verdict
from vision.detect import Detection
from vision.geometry import Kind
from vision.recall import (
    CONFIRMATIONS,
    CROP_KEEP_FRAMES,
    CROP_SAME,
    OUTLINE_SAME_PX,
    TILE,
    TILE_SAME,
    CropMemory,
    FrameMemory,
    Seen,
    _moved_outlines,
    crop_signature,
    crop_tolerance,
    tile_means,
)


class _CountingReader:
    """Reads each crop as the label of the nearest of ``faces`` (or of its mean grey level without them)."""

    def __init__(self, faces: dict[str, NDArray[Any]] | None = None) -> None:
        self.asked = 0
        self.faces = faces or {}

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        self.asked += len(crops)
        out = []
        for c in crops:
            if self.faces:
                label = min(self.faces, key=lambda k: float(np.abs(self.faces[k].astype(np.int16) - c).sum()))
            else:
                label = LABELS[int(c.mean()) % len(LABELS)]
            out.append(Recognition(Verdict.IDENTIFIED, label, 0.99))
        return out


def _face(label: str, blur: float, contrast: float, version: int = CARD_FACE_VERSION) -> NDArray[Any]:
    """The face of ``label`` (a card as card face print ``version`` draws it) as the classifier's 40x56 crop, blurred
    by ``blur`` px and at ``contrast``."""
    img, _ = render_label(label, 10.0, version)
    if kind_of(label) is LabelKind.CARD:
        f = int(round((CARD.margin + CARD.frame) * 10.0))
        img = img[f:img.shape[0] - f, f:img.shape[1] - f]
    c = cv2.resize(img, (40, 56), interpolation=cv2.INTER_AREA).astype(np.float32)
    if blur:
        c = cv2.GaussianBlur(c, (0, 0), blur)
    out: NDArray[Any] = np.clip(np.rint(c * contrast), 0, 255).astype(np.uint8)
    return out


# print 2's numerals are a tenth smaller than print 1's (two numerals and the icon share the face): blurred by 2 px
# at 30% contrast its 2 and 3 differ by 8 grey levels, CROP_SAME itself, so a faint crop is allowed less
@pytest.mark.parametrize(("blur", "contrast", "version"), [(0.0, 1.0, 2), (1.0, 1.0, 2), (2.0, 1.0, 2), (2.0, 0.4, 2),
                                                           (2.0, 0.3, 2), (2.0, 0.2, 2), (2.0, 0.3, 1), (2.0, 0.2, 1)])
def test_every_component_is_told_from_every_other(blur: float, contrast: float, version: int) -> None:
    labels = [lb for lb in LABELS if lb != NONE]
    sig = crop_signature(np.stack([_face(lb, blur, contrast, version) for lb in labels])).astype(np.int32)
    pairs = np.array(list(itertools.combinations(range(len(labels)), 2)))
    apart = np.abs(sig[pairs[:, 0]] - sig[pairs[:, 1]]).max(axis=1)
    allowed = crop_tolerance(sig)
    assert (apart > 2 * np.maximum(allowed[pairs[:, 0]], allowed[pairs[:, 1]])).all()


def test_a_faint_crop_is_allowed_less_than_a_bright_one() -> None:
    bright, faint = _face("clowns-L2", 0.0, 1.0), _face("clowns-L2", 2.0, 0.3)
    allowed = crop_tolerance(crop_signature(np.stack([bright, faint])))
    assert allowed[0] == CROP_SAME
    assert allowed[1] < 0.7 * CROP_SAME


def _noisy(crop: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    out: NDArray[Any] = np.clip(crop.astype(np.int16) + rng.integers(-3, 4, crop.shape), 0, 255).astype(np.uint8)
    return out


def test_a_reading_is_given_back_once_confirmed_and_a_swapped_card_is_read_again() -> None:
    a, b = _face("clowns-L2", 2.0, 0.3), _face("clowns-L3", 2.0, 0.3)
    memory, reader = CropMemory(), _CountingReader({"clowns-L2": a, "clowns-L3": b})
    rng = np.random.default_rng(3)
    memory.next_frame()
    memory.classify(reader, np.stack([_noisy(a, rng), _noisy(a, rng)]), 0.9)  # twice in a frame confirms once
    for _ in range(CONFIRMATIONS - 1):  # read afresh until as many frames in a row agreed
        memory.next_frame()
        memory.classify(reader, _noisy(a, rng)[None], 0.9)
    assert reader.asked == CONFIRMATIONS + 1
    memory.next_frame()
    assert memory.classify(reader, _noisy(a, rng)[None], 0.9)[0].best == "clowns-L2"
    assert reader.asked == CONFIRMATIONS + 1
    memory.next_frame()
    assert [r.best for r in memory.classify(reader, np.stack([_noisy(a, rng), b]), 0.9)] == ["clowns-L2", "clowns-L3"]
    assert reader.asked == CONFIRMATIONS + 2 and memory.recalled == 2


def test_a_reading_that_changes_is_not_confirmed() -> None:
    a = _face("sideshow-D4", 1.0, 0.8)
    memory = CropMemory()
    flaky = iter(["sideshow-D4", "sideshow-D4", "sideshow-D5", "sideshow-D4", "sideshow-D4"])

    class _Flaky:
        def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
            return [Recognition(Verdict.IDENTIFIED, next(flaky), 0.95) for _ in crops]

    reader = _Flaky()
    got = []
    for _ in range(5):
        memory.next_frame()
        got.append(memory.classify(reader, a[None], 0.9)[0].best)
    assert got == ["sideshow-D4", "sideshow-D4", "sideshow-D5", "sideshow-D4", "sideshow-D4"]
    assert memory.recalled == 0  # a fluke starts the count again: never three in a row


def test_drift_is_measured_from_the_crop_read_not_the_last_one() -> None:
    memory, reader = CropMemory(), _CountingReader()
    base = _face("sideshow-D4", 1.0, 0.8).astype(np.int16)
    for _ in range(CONFIRMATIONS):
        memory.next_frame()
        memory.classify(reader, base.astype(np.uint8)[None], 0.9)
    step = int(CROP_SAME) // 2 + 1
    for k in range(1, 3):
        memory.next_frame()
        memory.classify(reader, np.clip(base + k * step, 0, 255).astype(np.uint8)[None], 0.9)
    # the last frame is more than CROP_SAME from the crop read, though not from the frame before it
    assert reader.asked == CONFIRMATIONS + 1


def test_readings_are_forgotten_and_kept_apart() -> None:
    memory, reader = CropMemory(), _CountingReader()
    crop = _face("token-5", 0.0, 1.0)[None]
    for _ in range(CONFIRMATIONS):
        memory.next_frame()
        memory.classify(reader, crop, 0.9)
    asked = reader.asked
    memory.next_frame()
    memory.classify(reader, crop, 0.9)
    assert reader.asked == asked  # confirmed
    memory.classify(reader, crop, 0.5)  # another threshold: another verdict may follow
    memory.reading(reader, "balanced").classify(crop, 0.9)  # retouched crops are read on their own
    assert reader.asked == asked + 2
    for _ in range(CROP_KEEP_FRAMES + 1):
        memory.next_frame()
    memory.classify(reader, crop, 0.9)
    assert reader.asked == asked + 3
    other = _CountingReader()
    memory.classify(other, crop, 0.9)
    assert other.asked == 1


def _seen() -> Seen:
    cal = Calibration(np.eye(3), np.eye(3), 4, 0.5)
    image = cv2.GaussianBlur(np.random.default_rng(9).integers(60, 200, (64, 96), dtype=np.uint8), (0, 0), 2)
    return Seen((), cal, {}, Rectified(image, np.eye(3), 1.0, np.eye(3)))


def _search(memory: FrameMemory, seen: Seen, found: list[Detection]) -> list[str]:
    """Remember ``seen`` and search it; returns how it was searched."""
    memory.remember(seen)
    how: list[str] = []

    def whole() -> list[Detection]:
        how.append("whole")
        return found

    def near(changed: NDArray[Any], before: list[Detection]) -> tuple[list[Detection], NDArray[Any]]:
        how.append("near")
        return found, changed
    memory.components(seen, [], whole, near)
    return how


def test_a_frame_is_given_back_only_once_confirmed_and_while_nothing_changed() -> None:
    rng = np.random.default_rng(5)
    image = cv2.GaussianBlur(rng.integers(60, 200, (240, 320), dtype=np.uint8), (0, 0), 3)
    memory = FrameMemory()
    card = [Detection(Kind.CARD, np.zeros((4, 2)), (20.0, 30.0), 0.0)]
    first = _seen()
    seen = first
    for k in range(CONFIRMATIONS):  # the same scene searched in full, frame after frame
        noisy = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
        assert memory.recall(noisy) is None
        seen = _seen() if k else first
        seen = Seen(seen.markers, first.calibration, {}, seen.rectified)
        assert _search(memory, seen, card) == ["whole"]
    assert seen.confirmed == CONFIRMATIONS
    assert memory.recall(image) is seen
    moved = image.copy()
    moved[100:104, 150:152] = np.clip(moved[100:104, 150:152].astype(np.int16) + 5 * int(TILE_SAME), 0, 255)
    assert memory.recall(moved) is None  # a 4x2 px change is enough
    changed = Seen((), first.calibration, {}, _seen().rectified)
    assert _search(memory, changed, card) == ["near"]  # the calibration held
    assert memory.recall(moved) is None  # not confirmed
    assert memory.recall(image[:, :-4]) is None
    memory.reset()
    assert memory.recall(image) is None


@pytest.mark.parametrize("shape", [(1, 1), (3, 640), (480, 2), (0, 0)])
def test_a_frame_smaller_than_a_block_has_no_blocks_and_is_never_given_back(shape: tuple[int, int]) -> None:
    tiny = np.full(shape, 161, np.uint8)
    assert tile_means(tiny).shape == (shape[0] // 4, shape[1] // 4)
    memory = FrameMemory()
    assert memory.recall(tiny) is None


def _moved_outlines_one_by_one(a: list[NDArray[Any]], b: list[NDArray[Any]], shape: tuple[int, ...]) -> NDArray[Any]:
    """`vision.recall._moved_outlines`, each outline compared with each other on its own."""
    out = np.zeros(shape, bool)
    for ps, qs in ((a, b), (b, a)):
        for p in ps:
            if any(np.asarray(q).shape == p.shape and float(np.abs(p - q).max(initial=0.0)) <= OUTLINE_SAME_PX
                   for q in qs):
                continue
            x0, y0 = np.floor(p.min(axis=0) / TILE).astype(int) - 1
            x1, y1 = np.ceil(p.max(axis=0) / TILE).astype(int) + 1
            out[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = True
    return out


@pytest.mark.parametrize("seed", range(6))
def test_moved_outlines_compared_all_together_match_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = [rng.uniform(0, 400, 2) + rng.uniform(-12, 12, (4, 2)) for _ in range(int(rng.integers(0, 12)))]
    # the same outlines within noise, some moved, some gone, one of another shape, and new ones
    b = [p + rng.uniform(-1, 1, p.shape) * (1 if rng.random() < 0.7 else 9) for p in a if rng.random() < 0.8]
    b += [rng.uniform(0, 400, 2) + rng.uniform(-12, 12, (int(rng.choice([4, 5])), 2)) for _ in range(3)]
    shape = (100, 100)
    got = _moved_outlines(a, b, shape)
    assert np.array_equal(got, _moved_outlines_one_by_one(a, b, shape))
    assert np.array_equal(_moved_outlines(b, a, shape), _moved_outlines_one_by_one(b, a, shape))
    assert np.array_equal(_moved_outlines(a, list(a), shape), np.zeros(shape, bool))
