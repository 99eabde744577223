"""``annotate``: labels never overlap, and confidences that differ read differently."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.bigtop.pipeline import Recognizer, Result, annotate
from vision.bigtop.scene import render_scene
from vision.classify import Recognition, Verdict

from .test_vision_recognize import CALM, _known_placements


@pytest.fixture(scope="module")
def scene_and_result() -> tuple[np.ndarray, Result]:
    scene = render_scene(np.random.default_rng(2024), seats=[0, 3, 5], settings=CALM, placements=_known_placements())
    return scene.image, Recognizer().recognize(scene.image)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _check(frame: np.ndarray, result: Result) -> list[tuple[str, tuple[int, int, int, int]]]:
    labels: list[tuple[str, tuple[int, int, int, int]]] = []
    out = annotate(frame, result, labels)
    assert out.shape == frame.shape and len(labels) == len(result.detections)
    boxes = [box for _, box in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not _overlap(a, b), (a, b)
    return labels


def test_labels_of_a_real_frame_do_not_overlap(scene_and_result: tuple[np.ndarray, Result]) -> None:
    frame, result = scene_and_result
    labels = _check(frame, result)
    h, w = frame.shape[:2]
    assert all(0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h for _, (x0, y0, x1, y1) in labels)


def test_crowded_labels_and_near_one_confidences(scene_and_result: tuple[np.ndarray, Result]) -> None:
    frame, result = scene_and_result
    same_place = (result.detections[0],) * 6  # six labels all wanting the same spot
    confidences = (0.99, 0.994, 0.9987, 0.9993, 0.99991, 0.5)
    recognitions = tuple(Recognition(Verdict.IDENTIFIED if c > 0.9 else Verdict.UNSURE, "clowns-P", c)
                         for c in confidences)
    crowded = dataclasses.replace(result, detections=same_place, recognitions=recognitions)
    texts = [text for text, _ in _check(frame, crowded)]
    assert texts == ["clowns-P 0.990", "clowns-P 0.9940", "clowns-P 0.9987", "clowns-P 0.99930",
                     "clowns-P 0.999910", "? clowns-P 0.50"]
    assert len(set(texts)) == len(texts) and not any(t.endswith(" 1.00") for t in texts)
