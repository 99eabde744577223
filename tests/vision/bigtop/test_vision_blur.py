"""A card or a token's face identified from a blurred crop needs more confidence (`vision.bigtop.pipeline.allowing_for_blur`)."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.bigtop.cards import Card
from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import render_card, render_token, render_token_back
from vision.bigtop.pipeline import BLURRED, BLURRED_CONFIDENCE, allowing_for_blur, fine_detail
from vision.classify import Recognition, Verdict


def _crop(face: np.ndarray, blur: float) -> np.ndarray:
    w, h = DEFAULT_CONFIG.crop_size
    c = cv2.resize(face[..., :3], (w, h), interpolation=cv2.INTER_AREA)
    return c if blur == 0 else cv2.GaussianBlur(c, (0, 0), blur)


def test_blurred_card_below_the_raised_confidence_is_unsure() -> None:
    face, _ = render_card(Card.parse("performers-D5"), 4.0)
    # as the hard camera level's defocus leaves a card of a 2304x1296 frame: its pip count reads as another
    crops = np.stack([_crop(face, 0.0), _crop(face, 2.2), _crop(face, 2.2)])
    assert fine_detail(crops[:1])[0] > 3 * BLURRED > 3 * fine_detail(crops[1:2])[0]
    recs = [Recognition(Verdict.IDENTIFIED, "performers-D3", 0.93),
            Recognition(Verdict.IDENTIFIED, "performers-D3", 0.93),
            Recognition(Verdict.IDENTIFIED, "performers-D5", BLURRED_CONFIDENCE + 0.01)]
    out = allowing_for_blur(crops, recs)
    assert [r.verdict for r in out] == [Verdict.IDENTIFIED, Verdict.UNSURE, Verdict.IDENTIFIED]
    assert [(r.best, r.confidence) for r in out] == [(r.best, r.confidence) for r in recs]


def test_a_blurred_token_face_below_the_raised_confidence_is_unsure() -> None:
    # blur leaves of a token's value only its colour, which white balance moves: a grey $3 token, defocused far
    # from the camera and tinted pink, was once read as the pink $5 at 0.915
    token, _ = render_token(3, 4.0)
    crops = np.stack([_crop(token, 2.5), _crop(token, 2.5)])
    assert fine_detail(crops[:1])[0] < BLURRED
    recs = [Recognition(Verdict.IDENTIFIED, "token-5", 0.92),
            Recognition(Verdict.IDENTIFIED, "token-3", BLURRED_CONFIDENCE + 0.01)]
    assert [r.verdict for r in allowing_for_blur(crops, recs)] == [Verdict.UNSURE, Verdict.IDENTIFIED]


def test_blur_rule_leaves_token_backs_and_unsure_crops_alone() -> None:
    back, _ = render_token_back(4.0)
    card, _ = render_card(Card.parse("clowns-L2"), 4.0)
    crops = np.stack([_crop(back, 2.5), _crop(card, 2.5)])
    recs = [Recognition(Verdict.IDENTIFIED, "token-back", 0.92), Recognition(Verdict.UNSURE, "clowns-L2", 0.5)]
    assert allowing_for_blur(crops, recs) == recs


class _Reader:
    """A stand-in crop reader, with or without its own blur tests."""

    def __init__(self, judges_blur: bool) -> None:
        self.judges_blur = judges_blur

    def classify(self, crops: np.ndarray, threshold: float = 0.0) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, "performers-D5", 0.5) for _ in crops]


def test_a_reader_that_judges_blur_itself_keeps_its_verdicts_on_blurred_crops() -> None:
    from vision.bigtop.pipeline import Recognizer

    face, _ = render_card(Card.parse("performers-D5"), 4.0)
    crops = np.stack([_crop(face, 2.2)])
    assert fine_detail(crops)[0] < BLURRED
    for judges, verdict in ((True, Verdict.IDENTIFIED), (False, Verdict.UNSURE)):
        rec = Recognizer(classifier=_Reader(judges))
        recs = rec.classifier.classify(crops, 0.0)
        assert [r.verdict for r in rec._allowing_for_blur(crops, recs)] == [verdict]
