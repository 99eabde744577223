"""A card back is identified only from a crop that shows the back's print (`vision.bigtop.pipeline.checking_backs`)."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.bigtop.cards import Card
from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import render_card, render_card_back
from vision.bigtop.labels import BACK
from vision.bigtop.layout import CARD
from vision.bigtop.pipeline import BACK_MATCH, back_match, checking_backs
from vision.bigtop.scene import table_texture
from vision.classify import Recognition, Verdict


def _field(face: np.ndarray, blur: float, turned: bool = False) -> np.ndarray:
    """The face field of a rendered card at 4 px/mm, at the classifier's crop size, blurred ``blur`` px."""
    f = int(round((CARD.margin + CARD.frame) * 4.0))
    w, h = DEFAULT_CONFIG.crop_size
    c = cv2.resize(face[f:face.shape[0] - f, f:face.shape[1] - f, :3], (w, h), interpolation=cv2.INTER_AREA)
    c = c[::-1, ::-1].copy() if turned else c
    return c if blur == 0 else cv2.GaussianBlur(c, (0, 0), blur)


def _table(seed: int) -> np.ndarray:
    w, h = DEFAULT_CONFIG.crop_size
    grain = table_texture(np.random.default_rng(seed), (h, w))
    noise = np.random.default_rng(seed + 1).normal(0, 6, grain.shape)
    return np.clip(grain + noise, 0, 255).astype(np.uint8)


def test_back_matches_its_print_sharp_blurred_and_turned() -> None:
    back, _ = render_card_back(4.0)
    crops = np.stack([_field(back, 0.0), _field(back, 1.5), _field(back, 2.5, turned=True)])
    # a dim, warm-cast photo of it too
    dim = np.clip(crops[1].astype(np.float32) * (0.5, 0.6, 0.8), 0, 255).astype(np.uint8)
    assert (back_match(np.concatenate([crops, dim[None]])) >= BACK_MATCH).all()


def test_faces_and_the_bare_table_do_not_match_the_back() -> None:
    faces = [_field(render_card(Card.parse(n), 4.0)[0], b) for n in ("clowns-D5", "animals-L1", "sideshow-P")
             for b in (0.0, 2.0)]
    tables = [_table(seed) for seed in range(6)]
    assert (back_match(np.stack(faces + tables)) < BACK_MATCH).all()


def test_a_back_read_on_the_bare_table_is_unsure() -> None:
    back, _ = render_card_back(4.0)
    crops = np.stack([_table(3), _field(back, 1.0), _table(4)])
    recs = [Recognition(Verdict.IDENTIFIED, BACK, 0.974), Recognition(Verdict.IDENTIFIED, BACK, 1.0),
            Recognition(Verdict.IDENTIFIED, "clowns-D5", 0.99)]
    out = checking_backs(crops, recs)
    assert [r.verdict for r in out] == [Verdict.UNSURE, Verdict.IDENTIFIED, Verdict.IDENTIFIED]
    assert [(r.best, r.confidence) for r in out] == [(r.best, r.confidence) for r in recs]


class _DeckReader:
    """A stand-in for an enrolled deck: it reads every crop as a back, surely, and judges blur itself."""

    judges_blur = True

    def classify(self, crops: np.ndarray, threshold: float = 0.0) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, BACK, 0.99) for _ in crops]


def test_an_enrolled_decks_backs_are_not_held_to_ringsides_back_print() -> None:
    from vision.bigtop.pipeline import Recognizer

    crops = np.stack([_table(5)])  # a family's own back looks no more like Ringside's than bare table does
    deck = Recognizer(classifier=_DeckReader())
    recs = deck.classifier.classify(crops)
    assert [r.verdict for r in checking_backs(crops, recs)] == [Verdict.UNSURE]
    assert [r.verdict for r in deck._checked(crops, recs)] == [Verdict.IDENTIFIED]
    shipped = Recognizer()
    assert [r.verdict for r in shipped._checked(crops, recs)] == [Verdict.UNSURE]
