"""A place's crop read by fitting each card's printed face: sure where the numeral shows, silent where glare hides it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from scorer.bigtop.cards import DECK, Card, Suit
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.facefit import (
    BLURS,
    MARGIN,
    MAX_COST,
    MIN_CONFIDENCE,
    POSTER_SHARE,
    POSTER_WEIGHT,
    confirmed,
    face_read,
    fit_costs,
    numeral_clipped,
    poster_confirmed,
    print_of,
    unnumbered,
)
from vision.bigtop.faces import render_card, render_unnumbered
from vision.bigtop.layout import CARD, Pile
from vision.bigtop.pipeline import Recognizer, _cards_on, _fit_among
from vision.bigtop.places import layout_places
from vision.bigtop.tableview import Area, Zone
from vision.classify import Recognition, Verdict

CHART_CARDS = [c.notation() for c in DECK if not c.is_poster]


def _pile(label: str) -> list[str]:
    """The cards that may lie on ``label``'s tableau pile: its suit's cards of its shade."""
    return [c for c in CHART_CARDS if c[:-1] == label[:-1]]


def _face(label: str, glare: float, spot_y: float, seed: int = 0, version: int = 1) -> NDArray[np.uint8]:
    """The classifier's 40 x 56 crop of ``label``'s face field (a card, or a suit's face with no numeral: `unnumbered`)
    as card face print ``version`` draws it (1: one numeral, at the top), under-exposed with a white balance off, a
    glare spot of peak ``glare`` (linear light) centred ``spot_y`` px from its top, blurred, with sensor noise."""
    bare = {unnumbered(suit): suit for suit in Suit}
    img, _ = (render_unnumbered(bare[label], 4.0, version) if label in bare
              else render_card(Card.parse(label), 4.0, version))
    f = int(round((CARD.margin + CARD.frame) * 4))
    face = cv2.resize(img[f:img.shape[0] - f, f:img.shape[1] - f], (40, 56), interpolation=cv2.INTER_AREA)
    lin = (face.astype(np.float32) / 255.0) ** 2.2 * np.array([0.8, 0.72, 0.86], np.float32)
    yy, xx = np.mgrid[0:56, 0:40]
    spot = np.exp(-(((xx - 20) / 16.0) ** 2 + ((yy - spot_y) / 9.0) ** 2) / 2).astype(np.float32)
    out = 255.0 * np.clip(lin + glare * spot[:, :, None], 0.0, 1.0) ** (1 / 2.2)
    out = cv2.GaussianBlur(out, (0, 0), 1.0) + np.random.default_rng(seed).normal(0.0, 2.0, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5", "sideshow-L6"])
def test_a_card_whose_picture_glare_saturates_is_read_from_its_numeral(label: str) -> None:
    crop = _face(label, 2.0, 46.0)
    assert float((crop[40:52] >= 250).all(axis=2).mean()) > 0.3  # the picture is gone
    name, cost, ratio = face_read(crop, _pile(label), label)
    assert name == label and cost <= MAX_COST and ratio >= MARGIN


def test_among_every_card_a_chart_space_may_hold_the_colour_and_the_numeral_both_count() -> None:
    name, cost, ratio = face_read(_face("animals-D3", 0.0, 46.0), CHART_CARDS, "animals-D3")
    assert name == "animals-D3" and cost <= MAX_COST and ratio >= MARGIN


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5"])
def test_a_card_whose_numeral_glare_saturates_is_named_by_no_fit(label: str) -> None:
    crop = _face(label, 3.0, 16.0)
    _, cost, ratio = face_read(crop, _pile(label), label)
    assert ratio < MARGIN or cost > MAX_COST
    # whatever the classifier guessed, the fit does not confirm it
    for guess in _pile(label):
        assert confirmed(crop[None], [Recognition(Verdict.UNSURE, guess, 0.8)], [_pile(label)])[0].verdict \
            is Verdict.UNSURE


def test_only_an_unsure_reading_the_fit_names_too_is_confirmed() -> None:
    crops = np.stack([_face("performers-L5", 2.0, 46.0)] * 4)
    pile = _pile("performers-L5")
    recs = [Recognition(Verdict.UNSURE, "performers-L5", 0.8),  # the same card: confirmed
            Recognition(Verdict.UNSURE, "performers-L3", 0.8),  # another card: the fit names L5, not L3
            Recognition(Verdict.UNSURE, "performers-L5", MIN_CONFIDENCE / 2),  # too unsure to look again
            Recognition(Verdict.NOT_A_COMPONENT, "none", 0.9)]  # no card guessed
    out = confirmed(crops, recs, [pile] * 4)
    assert out[0] == Recognition(Verdict.IDENTIFIED, "performers-L5", 0.8)
    assert out[1:] == recs[1:]


def test_a_still_places_fit_is_made_once_while_its_crop_looks_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.bigtop import facefit

    calls: list[str] = []
    real = facefit.face_read
    monkeypatch.setattr(facefit, "face_read", lambda *a: calls.append(a[2]) or real(*a))
    memory = facefit.FitMemory()
    pile = _pile("performers-L5")
    still = [_face("performers-L5", 2.0, 46.0, seed) for seed in range(3)]  # sensor noise only
    answers = [memory.face_read("pile", crop, pile, "performers-L5") for crop in still]
    assert len(calls) == 1 and answers[0] == answers[1] == answers[2]
    memory.face_read("pile", _face("performers-L3", 2.0, 46.0), pile, "performers-L3")  # another card
    memory.face_read("other pile", still[0], pile, "performers-L5")  # another place
    assert len(calls) == 3
    memory.reset()
    memory.face_read("pile", still[0], pile, "performers-L5")
    assert len(calls) == 4


def test_a_poster_is_confirmed_among_its_suits_numbered_cards_and_a_number_is_not_taken_for_it() -> None:
    poster_pile = Zone(Area.TABLEAU, suit=Suit.ANIMALS, pile=Pile.POSTER)
    among = _fit_among(poster_pile)
    assert among[0] == "animals-P" and len(among) == 13 and all(c.startswith("animals-") for c in among)
    light_pile = Zone(Area.TABLEAU, suit=Suit.ANIMALS, pile=Pile.LIGHT)
    assert _fit_among(light_pile) == _cards_on(light_pile)  # more than one card may lie there: as before
    guess = [Recognition(Verdict.UNSURE, "animals-P", 0.8)]
    assert confirmed(_face("animals-P", 2.0, 46.0)[None], guess, [among])[0].verdict is Verdict.IDENTIFIED
    for other in ("animals-L1", "animals-D4"):  # a numbered card on the Poster's pile, read as the Poster
        assert confirmed(_face(other, 2.0, 46.0)[None], guess, [among])[0].verdict is Verdict.UNSURE
    # a Poster whose "P" glare saturates fits every card of its suit alike
    assert confirmed(_face("animals-P", 3.0, 16.0)[None], guess, [among])[0].verdict is Verdict.UNSURE


@pytest.mark.parametrize(("glare", "spot_y"), [(0.0, 46.0), (2.0, 46.0), (3.0, 16.0)])
def test_the_cards_fitted_together_cost_what_each_costs_fitted_alone(glare: float, spot_y: float) -> None:
    # the fits are made all at once: each must come out bit for bit as it would alone, whatever the batch
    crop = _face("sideshow-L4", glare, spot_y, seed=3)
    for blur, shift in ((BLURS[0], (0, 0)), (BLURS[2], (1, -1)), (BLURS[3], (-1, 1))):
        together = fit_costs(crop, CHART_CARDS, blur, shift)
        alone = [fit_costs(crop, [label], blur, shift)[0] for label in CHART_CARDS]
        assert together == alone
        assert fit_costs(crop, CHART_CARDS[::-1], blur, shift) == alone[::-1]


def test_a_poster_the_classifier_takes_for_nothing_is_read_where_it_ranks_the_poster_first_and_the_fit_agrees() -> None:
    # a glare spot over the picture leaves the grey "P" faint: the classifier may say "nothing" while it still ranks
    # the Poster far above every other card of the suit
    nothing = Recognition(Verdict.NOT_A_COMPONENT, "none", 0.98)
    poster = _face("animals-P", 2.0, 46.0)
    assert poster_confirmed(poster[None], [nothing], ["animals-P"], [0.995], [0.02]) == [
        Recognition(Verdict.IDENTIFIED, "animals-P", 0.995)]
    unsure = Recognition(Verdict.UNSURE, "animals-P", 0.7)
    assert poster_confirmed(poster[None], [unsure], ["animals-P"], [0.995], [0.02])[0].verdict is Verdict.IDENTIFIED
    # the two readers must agree: a ranking short of POSTER_SHARE, or a best guess of another component, is not taken
    assert poster_confirmed(poster[None], [nothing], ["animals-P"], [POSTER_SHARE - 0.01], [0.02]) == [nothing]
    # ... or a ranking of cards the classifier gives next to no weight at all (the bare print or a hand ranks some card
    # first too)
    assert poster_confirmed(poster[None], [nothing], ["animals-P"], [0.999], [POSTER_WEIGHT / 2]) == [nothing]
    for other in (Recognition(Verdict.UNSURE, "animals-L1", 0.7), Recognition(Verdict.UNSURE, "token-5", 0.7)):
        assert poster_confirmed(poster[None], [other], ["animals-P"], [0.995], [0.02]) == [other]


@pytest.mark.parametrize(("label", "glare", "spot_y"), [
    ("animals-L1", 2.0, 46.0),  # a numbered card laid on the Poster's pile
    ("animals-D4", 0.0, 46.0),
    ("animals-P", 3.0, 16.0),  # a "P" glare saturates fits every card of the suit alike
    ("sideshow-unnumbered", 0.0, 46.0),  # a face showing no numeral: the faint grey "P" fits it better than a number
    ("animals-unnumbered", 1.0, 46.0),
])
def test_a_poster_is_never_read_from_a_crop_whose_p_does_not_show(label: str, glare: float, spot_y: float) -> None:
    suit = label.split("-")[0]
    crop = _face(label, glare, spot_y)
    nothing = Recognition(Verdict.NOT_A_COMPONENT, "none", 0.98)
    assert poster_confirmed(crop[None], [nothing], [f"{suit}-P"], [0.999], [0.02]) == [nothing]


def test_no_numeral_is_the_rival_that_keeps_a_bare_face_from_passing_for_the_poster() -> None:
    # among the suit's cards alone the grey "P", the faintest numeral, fits a face with no numeral best
    crop = _face("sideshow-unnumbered", 0.0, 46.0)
    among = ["sideshow-P"] + [c.notation() for c in DECK if c.suit is Suit.SIDESHOW and not c.is_poster]
    assert face_read(crop, among, "sideshow-P")[0] == "sideshow-P"
    assert face_read(crop, [*among, unnumbered(Suit.SIDESHOW)], "sideshow-P")[0] == unnumbered(Suit.SIDESHOW)


@pytest.mark.parametrize(("pile", "poster", "rival", "read"), [
    (Pile.POSTER, 0.0198, 0.0001, True),
    (Pile.POSTER, 0.0189, 0.001, False),  # another card of the suit near the Poster: the classifier's ranking unclear
    (Pile.POSTER, 0.00399, 0.00001, False),  # the Poster far first, but the cards all next to impossible
    (Pile.LIGHT, 0.0198, 0.0001, False),  # a numbered pile's crop: read as before
])
def test_a_recogniser_reads_a_poster_pile_taken_for_nothing_from_the_classifiers_ranking_and_the_fit(
        monkeypatch: pytest.MonkeyPatch, pile: Pile, poster: float, rival: float, read: bool) -> None:
    recognizer = Recognizer(DEFAULT_MODEL)
    place = next(p for p in layout_places({}) if p.zone.suit is Suit.ANIMALS and p.zone.pile is pile)
    labels = list(recognizer.classifier.labels)  # type: ignore[attr-defined]

    def probabilities(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        p = np.zeros((len(crops), len(labels)), np.float32)
        p[:, labels.index("none")] = 1.0 - poster - rival
        p[:, labels.index("animals-P")] = poster
        p[:, labels.index("animals-L2")] = rival
        return p

    monkeypatch.setattr(recognizer.classifier, "probabilities", probabilities)
    nothing = Recognition(Verdict.NOT_A_COMPONENT, "none", 1.0 - poster - rival)
    out = recognizer._posters_for_nothing(_face("animals-P", 2.0, 46.0)[None], [nothing], [place])
    if read:
        assert out[0].verdict is Verdict.IDENTIFIED and out[0].best == "animals-P"
        # its confidence: the Poster's share of the suit's cards
        assert out[0].confidence == pytest.approx(poster / (poster + rival), rel=1e-5)
    else:
        assert out == [nothing]


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5", "sideshow-P"])
def test_numeral_clipped_is_the_share_of_what_tells_the_card_that_glare_whitened(label: str) -> None:
    assert numeral_clipped(_face(label, 0.0, 46.0), label, 1) == 0.0
    assert numeral_clipped(_face(label, 2.0, 46.0), label, 1) <= 0.05  # the picture under glare tells no numeral
    assert numeral_clipped(_face(label, 3.0, 16.0), label, 1) == 1.0


def test_a_light_numerals_own_white_strokes_clipping_leave_it_readable() -> None:
    label = "performers-L5"
    crop = _face(label, 0.0, 46.0)
    img, _ = render_card(Card.parse(label), 4.0, 1)
    f = int(round((CARD.margin + CARD.frame) * 4))
    face = cv2.resize(img[f:img.shape[0] - f, f:img.shape[1] - f], (40, 56), interpolation=cv2.INTER_AREA)
    white = face.min(axis=2) >= 235
    assert white[:26].sum() > 40  # the numeral's strokes
    crop[white] = 255
    assert numeral_clipped(crop, label, 1) < 0.15  # only the strokes' anti-aliased rims, which the print tints
    # the same pixels clipped on a dark card are ink lost
    dark = _face("performers-D5", 0.0, 46.0)
    dark[white] = 255
    assert numeral_clipped(dark, "performers-D5", 1) > 0.3


def test_the_camera_benchmark_says_how_much_of_a_held_cards_numeral_glare_clipped() -> None:
    from benchmarks.bench_vision_camera import _numeral_note

    crops = np.stack([_face("clowns-P", 3.0, 16.0), _face("clowns-P", 0.0, 46.0)])
    assert _numeral_note(("poster", Suit.CLOWNS), True, crops, 0, 1) == ", numeral clipped 100%"
    assert _numeral_note(("dark", Suit.CLOWNS), Card.parse("clowns-D1"), crops, 1, 1) == ", numeral clipped 0%"
    assert _numeral_note(("dark", Suit.CLOWNS), None, crops, 1) == ""
    assert _numeral_note(("dark", Suit.CLOWNS), Card.parse("clowns-D1"), crops, None) == ""


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5", "sideshow-L6", "animals-P"])
@pytest.mark.parametrize("spot_y", [14.0, 42.0])
def test_a_second_print_card_whose_one_numeral_glare_saturates_is_read_from_the_other(label: str, spot_y: float) -> None:
    crop = _face(label, 3.0, spot_y, version=2)
    # glare whitened one numeral wholly (the print 1 reading of a top spot: nothing left), the other not at all
    band = slice(5, 22) if spot_y < 28 else slice(34, 51)
    assert float((crop[band] >= 250).all(axis=2).mean()) > 0.3
    assert numeral_clipped(crop, label) < 0.05  # the spot's rim at most
    pile = _pile(label) if not label.endswith("P") else [label, *(c for c in CHART_CARDS if c.startswith("animals"))]
    name, cost, ratio = face_read(crop, pile, label)
    assert name == label and cost <= MAX_COST and ratio >= MARGIN


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5", "sideshow-L6"])
def test_a_second_print_card_whose_numerals_glare_both_reaches_is_named_by_no_fit(label: str) -> None:
    crop = _face(label, 2.0, 30.0, version=2)
    assert numeral_clipped(crop, label) > 0.4
    _, _, ratio = face_read(crop, _pile(label), label)
    assert ratio < MARGIN


@pytest.mark.parametrize("label", ["clowns-D1", "performers-L5", "sideshow-P"])
def test_a_card_is_fitted_to_the_print_it_shows(label: str) -> None:
    for version in (1, 2):
        assert print_of(_face(label, 0.0, 46.0, version=version), label) == version
        assert print_of(_face(label, 3.0, 14.0, version=version), label) == version
