"""Training smoke step: a few iterations, export to ONNX, load with onnxruntime."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the 'train' extra (torch)")

from vision.bigtop.labels import LABELS  # noqa: E402
from vision.bigtop.train import TrainOptions, augment, train  # noqa: E402
from vision.classify import Classifier  # noqa: E402


def test_augment_keeps_shape_and_range() -> None:
    crops = np.full((4, 56, 40, 3), 128, np.uint8)
    out = augment(crops, np.random.default_rng(0))
    assert out.shape == (4, 3, 56, 40) and out.dtype == np.float32
    assert 0 <= out.min() and out.max() <= 255


def test_tiny_training_run_exports_a_loadable_onnx(tmp_path: Path) -> None:
    out = tmp_path / "tiny.onnx"
    fig = train(TrainOptions(out=out, scenes=1, val_scenes=1, epochs=1, batch=16, width=8, workers=1,
                             threads=1, quiet=True))
    assert out.is_file() and out.with_suffix(".md").is_file()
    assert out.with_suffix(".labels.txt").read_text().split() == list(LABELS)
    clf = Classifier(out)
    for n in (1, 5):
        probs = clf.probabilities(np.zeros((n, 56, 40, 3), np.uint8))
        assert probs.shape == (n, len(LABELS))
        assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert fig["train_crops"] > 0


def test_the_classifier_trains_on_both_card_face_prints() -> None:
    from vision.bigtop.layout import CARD_FACE_VERSION
    from vision.bigtop.train import OLD_FACES_EVERY, face_print

    prints = [face_print(1_000_000 + k) for k in range(4 * OLD_FACES_EVERY)]
    assert prints.count(1) == 4 and prints.count(CARD_FACE_VERSION) == 4 * OLD_FACES_EVERY - 4
