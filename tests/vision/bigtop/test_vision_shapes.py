"""A classifier (a model or an enrolled deck) never has a card accepted for a disc, nor a token for a card."""

from __future__ import annotations

import numpy as np

from vision.bigtop.balance import second_look
from vision.bigtop.pipeline import Recognizer, _of_its_shape
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


class _Reader:
    """A stand-in enrolled deck: unsure of every crop among all its labels, sure of "token-7" among the tokens."""

    labels = ("animals-D4", "token-7", "token-5", "token-back")

    def __init__(self) -> None:
        self.asked: list[tuple[int, tuple[str, ...]]] = []
        self.shape_known: list[bool] = []

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, "animals-D4", 0.0) for _ in crops]

    def classify_among(self, crops: np.ndarray, labels: list[str], shape_known: bool = False) -> list[Recognition]:
        self.asked.append((len(crops), tuple(labels)))
        self.shape_known.append(shape_known)
        return [Recognition(Verdict.IDENTIFIED, "token-7", 0.4) for _ in crops]


def test_an_unsure_disc_is_read_again_among_the_decks_tokens_only() -> None:
    reader = _Reader()
    recognizer = Recognizer(classifier=reader)  # type: ignore[arg-type]
    disc = Detection(Kind.TOKEN, BOX, (0.0, 0.0), 0.0)
    card = Detection(Kind.CARD, BOX, (0.0, 0.0), 0.0)
    crops = np.zeros((3, 56, 40, 3), np.uint8)
    unsure = Recognition(Verdict.UNSURE, "animals-D4", 0.0)
    sure = Recognition(Verdict.IDENTIFIED, "token-5", 0.5)
    out = recognizer._tokens_among_tokens(crops, [disc, card, disc], [unsure, unsure, sure])
    # only the unsure disc is read again, among the deck's tokens; the card and the identified disc stay
    assert reader.asked == [(1, ("token-7", "token-5", "token-back"))]
    assert reader.shape_known == [True]  # the deck is told the crop is a disc
    assert out == [Recognition(Verdict.IDENTIFIED, "token-7", 0.4), unsure, sure]


def test_the_second_look_at_a_balanced_token_reads_it_among_the_tokens() -> None:
    reader = _Reader()
    recognizer = Recognizer(classifier=reader)  # type: ignore[arg-type]
    crops = np.zeros((2, 56, 40, 3), np.uint8)
    gains = np.array([1.2, 0.96, 0.857])
    disc = Detection(Kind.TOKEN, BOX, (0.0, 0.0), 0.0)
    seven = Recognition(Verdict.IDENTIFIED, "token-7", 0.3)
    token_reader = recognizer._token_reader()
    assert token_reader is not None
    # the deck's read among all its labels is unsure of every crop; among the tokens, told the shape, it is sure
    assert second_look(token_reader, crops, [disc, disc], [seven, seven], gains, 0.5) == [
        Recognition(Verdict.IDENTIFIED, "token-7", 0.35)] * 2
    assert reader.asked == [(2, ("token-7", "token-5", "token-back"))] and reader.shape_known == [True]
    assert second_look(reader, crops, [disc], [seven], gains, 0.5)[0].verdict is Verdict.UNSURE


def test_a_reader_without_a_restricted_read_keeps_its_readings() -> None:
    class Plain:
        def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
            return []

    recognizer = Recognizer(classifier=Plain())
    disc = Detection(Kind.TOKEN, BOX, (0.0, 0.0), 0.0)
    recs = [Recognition(Verdict.UNSURE, "animals-D4", 0.0)]
    assert recognizer._tokens_among_tokens(np.zeros((1, 56, 40, 3), np.uint8), [disc], recs) == recs
    assert recognizer._token_reader() is None


class _CastReader:
    """A stand-in enrolled deck that identifies a disc among the tokens only when its crop is grey (no colour cast)."""

    labels = ("animals-D4", "token-7", "token-5", "token-back")

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, "token-5", 0.0) for _ in crops]

    def classify_among(self, crops: np.ndarray, labels: list[str], shape_known: bool = False) -> list[Recognition]:
        self.seen.extend(crops)
        spread = np.ptp(crops.reshape(len(crops), -1, 3).mean(axis=1), axis=1)
        return [Recognition(Verdict.IDENTIFIED if s < 3 else Verdict.UNSURE, "token-5", 0.1) for s in spread]


def test_an_unsure_disc_is_read_again_with_the_cameras_cast_taken_out() -> None:
    reader = _CastReader()
    recognizer = Recognizer(classifier=reader)  # type: ignore[arg-type]
    disc = Detection(Kind.TOKEN, BOX, (0.0, 0.0), 0.0)
    card = Detection(Kind.CARD, BOX, (0.0, 0.0), 0.0)
    crops = np.zeros((4, 56, 40, 3), np.uint8)
    crops[:] = (100, 125, 140)  # BGR: a grey token under a warm cast
    gains = np.array([1.2, 0.96, 0.857])  # what the mat's paper measures: takes the cast out
    five = Recognition(Verdict.UNSURE, "token-5", 0.0)
    seven = Recognition(Verdict.UNSURE, "token-7", 0.0)
    as_card = Recognition(Verdict.UNSURE, "animals-D4", 0.0)
    out = recognizer._tokens_among_tokens(crops, [disc, disc, disc, card], [five, seven, as_card, five], gains)
    # the disc nearest token-5 is read as token-5 once balanced; one nearest another token or a card stays unsure,
    # and so does a card's crop
    assert out == [Recognition(Verdict.IDENTIFIED, "token-5", 0.1), seven, as_card, five]
    assert all(float(np.ptp(c.reshape(-1, 3).mean(axis=0))) < 3 for c in reader.seen)
    # without a cast (every gain near 1) the crops are not read again
    reader.seen.clear()
    assert recognizer._tokens_among_tokens(crops, [disc], [five], np.array([1.01, 1.0, 0.99])) == [five]
    assert reader.seen == []
    # without gains (the first look), the unbalanced crop is not identified
    assert recognizer._tokens_among_tokens(crops[:1], [disc], [five]) == [five]
