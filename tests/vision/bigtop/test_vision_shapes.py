"""A classifier (a model or an enrolled deck) never has a card accepted for a disc, nor a token for a card."""

from __future__ import annotations

import numpy as np

from vision.bigtop.pipeline import _of_its_shape
from vision.classify import Recognition, Verdict
from vision.detect import Detection
from vision.geometry import Kind

BOX = np.zeros((4, 2))


def test_labels_of_another_shape_are_unsure() -> None:
    disc = Detection(Kind.TOKEN, BOX, (0.0, 0.0), 0.0)
    card = Detection(Kind.CARD, BOX, (0.0, 0.0), 0.0)
    as_card = Recognition(Verdict.IDENTIFIED, "animals-D4", 0.97)
    as_token = Recognition(Verdict.IDENTIFIED, "token-7", 0.97)
    assert _of_its_shape(disc, as_card) == Recognition(Verdict.UNSURE, "animals-D4", 0.97)
    assert _of_its_shape(card, as_token).verdict is Verdict.UNSURE
    assert _of_its_shape(card, as_card) is as_card and _of_its_shape(disc, as_token) is as_token
    back = Recognition(Verdict.IDENTIFIED, "back", 0.99)
    assert _of_its_shape(card, back) is back
    nothing = Recognition(Verdict.NOT_A_COMPONENT, "none", 0.99)
    assert _of_its_shape(disc, nothing) is nothing
