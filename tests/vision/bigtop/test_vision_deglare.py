"""A place's crop under a glare spot is read a second time with the glare's light taken out."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from scorer.bigtop.cards import Card
from vision.bigtop import DEFAULT_MODEL, glare
from vision.bigtop.faces import render_card
from vision.bigtop.glare import MIN_GLARE, deglared, glare_field, second_look
from vision.bigtop.layout import CARD
from vision.bigtop.pipeline import allowing_for_blur
from vision.classify import Classifier, Recognition, Verdict

THRESHOLD = 0.9


def _face(label: str, glare: float) -> NDArray[np.uint8]:
    """The classifier's 40 x 56 crop of ``label``'s face field (card face print 1: one numeral, at the top), a little
    under-exposed, with a glare spot of peak ``glare`` (linear light) over its lower part, slightly blurred, with sensor
    noise."""
    img, _ = render_card(Card.parse(label), 4.0, 1)
    f = int(round((CARD.margin + CARD.frame) * 4))
    face = cv2.resize(img[f:img.shape[0] - f, f:img.shape[1] - f], (40, 56), interpolation=cv2.INTER_AREA)
    lin = (face.astype(np.float32) / 255.0) ** 2.2 * 0.8
    yy, xx = np.mgrid[0:56, 0:40]
    spot = np.exp(-(((xx - 20) / 14.0) ** 2 + ((yy - 36) / 10.0) ** 2) / 2).astype(np.float32)
    out = 255.0 * np.clip(lin + glare * spot[:, :, None], 0.0, 1.0) ** (1 / 2.2)
    out = cv2.GaussianBlur(out, (0, 0), 1.0) + np.random.default_rng(0).normal(0.0, 2.0, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_the_glare_field_is_the_light_a_spot_adds() -> None:
    assert float(glare_field(_face("clowns-D1", 0.0)).max()) < MIN_GLARE
    field = glare_field(_face("clowns-D1", 1.0))
    assert field[36, 20] > 0.6 and field[4, 20] < 0.3  # under the spot, and far above it
    # taken out, the card's face is nearer to its print than under the glare
    clean = _face("clowns-D1", 0.0).astype(np.float64)
    glared = _face("clowns-D1", 1.0)
    assert np.abs(deglared(glared[None])[0] - clean).mean() < 0.8 * np.abs(glared - clean).mean()


@pytest.fixture(scope="module")
def model() -> Classifier:
    return Classifier(DEFAULT_MODEL)


def test_a_card_the_glare_faded_is_identified_at_the_second_look(model: Classifier) -> None:
    # a glare the shipped model cannot read through at first (print 1: its one numeral above the spot)
    crops = np.stack([_face("performers-D5", 2.0), _face("clowns-D1", 0.0)])
    first = allowing_for_blur(crops, model.classify(crops, THRESHOLD))
    assert first[0].verdict is Verdict.UNSURE and first[1].label == "clowns-D1"
    again = second_look(model, crops, first, THRESHOLD, allowing_for_blur)
    assert again[0].verdict is Verdict.IDENTIFIED and again[0].label == "performers-D5"
    assert again[1] is first[1]


class _Scripted:
    """A reader that answers every crop with one recognition and counts the crops it was given."""

    def __init__(self, answer: Recognition) -> None:
        self.answer = answer
        self.read = 0

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        self.read += len(crops)
        return [self.answer] * len(crops)


def _keep(crops: NDArray[Any], recs: list[Recognition]) -> list[Recognition]:
    return list(recs)


def _blurred(crops: NDArray[Any], recs: list[Recognition]) -> list[Recognition]:
    return [Recognition(Verdict.UNSURE, r.best, r.confidence) for r in recs]


def test_the_second_look_counts_only_when_it_identifies_what_the_first_did_not_contradict() -> None:
    glared = _face("clowns-D1", 1.0)[None]
    d6 = Recognition(Verdict.IDENTIFIED, "clowns-D6", 0.97)
    none = [Recognition(Verdict.NOT_A_COMPONENT, "none", 0.99)]
    # no glare on the crop: not read again
    reader = _Scripted(d6)
    assert second_look(reader, _face("clowns-D1", 0.0)[None], none, THRESHOLD, _keep) == none and reader.read == 0
    # the first look read nothing there: the second look is taken
    assert second_look(_Scripted(d6), glared, none, THRESHOLD, _keep) == [d6]
    # the first look guessed another card: not taken; nor when the blur check refuses it, nor when unsure
    other = [Recognition(Verdict.UNSURE, "clowns-D1", 0.6)]
    assert second_look(_Scripted(d6), glared, other, THRESHOLD, _keep) == other
    assert second_look(_Scripted(d6), glared, none, THRESHOLD, _blurred) == none
    unsure = Recognition(Verdict.UNSURE, "clowns-D6", 0.8)
    assert second_look(_Scripted(unsure), glared, none, THRESHOLD, _keep) == none


def test_linear_light_looked_up_per_level_is_the_power_bit_for_bit() -> None:
    # the table stands in for ``(crop / 255) ** GAMMA``: every level, at every place in a crop, must come out the same
    levels = np.tile(np.arange(256, dtype=np.uint8), 56 * 40 * 3 // 256 + 1)[:56 * 40 * 3].reshape(56, 40, 3)
    for shift in range(17):
        crop = np.roll(levels, shift)
        assert np.array_equal(glare._linear(crop), (crop.astype(np.float32) / 255.0) ** glare.GAMMA)
