"""A pile that held a card and now shows nothing readable is unrecognised, never empty."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from firmware.bigtop.sighting import sighting_from_view
from scorer.bigtop.cards import Suit
from vision.bigtop import DEFAULT_MODEL, facefit, pipeline, places
from vision.bigtop.faces import printed_faces
from vision.bigtop.labels import Kind
from vision.bigtop.layout import CARD, CHART, MAT, Pile, Space
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.places import (
    NAME_OVER_PLAIN,
    PRINT_MATCH,
    PRINT_TEXTURED,
    TEXTURED,
    LayoutPlace,
    PlaceMemory,
    layout_places,
    place_features,
    print_match,
)
from vision.bigtop.scene import (
    CONTENT_REGION,
    HARD_SETTINGS,
    Placement,
    SceneSettings,
    chart_pose,
    chart_to_table,
    render_scene,
    render_top_down,
)
from vision.bigtop.tableview import Area, Reason, Zone, build_table_view
from vision.camera_model import photograph
from vision.classify import Recognition, Verdict

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))
SEATS = [0, 1, 2]


def _table(with_light_card: bool) -> tuple[np.ndarray, np.ndarray]:
    placements = [Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 0),
                  Placement("animals-P", *MAT.slot(Suit.ANIMALS, Pile.POSTER).centre, 0)]
    if with_light_card:
        placements.append(Placement("clowns-L3", *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 1))
    scene = render_scene(np.random.default_rng(21), seats=SEATS, settings=CALM, placements=placements)
    return scene.image, scene.table_to_image


def _hand_over_light_pile(image: np.ndarray, table_to_image: np.ndarray) -> np.ndarray:
    """A skin-coloured hand over the Clowns light pile, a little larger than the card, fingers shaded."""
    out = image.copy()
    x, y = MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre
    w, h = CARD.width / 2 + 8, CARD.height / 2 + 8
    box = np.array([[[x - w, y - h], [x + w, y - h], [x + w, y + h], [x - w, y + h]]], np.float64)
    pts = cv2.perspectiveTransform(box, table_to_image)[0]
    cv2.fillPoly(out, [np.round(pts).astype(np.int32)], (110, 140, 190), cv2.LINE_AA)
    return out


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(DEFAULT_MODEL)


def test_a_pile_whose_card_is_covered_is_unrecognised_not_empty(recognizer: Recognizer) -> None:
    image, to_image = _table(True)
    recognizer.reset()
    first = recognizer.recognize(image).view
    clowns = next(t for t in first.tableau if t.suit is Suit.CLOWNS)
    assert clowns.top_light is not None and clowns.top_light.notation() == "clowns-L3"
    covered = recognizer.recognize(_hand_over_light_pile(image, to_image)).view
    unread = [u for u in covered.unrecognised if u.reason is Reason.UNREADABLE]
    assert len(unread) == 1
    u = unread[0]
    assert u.zone.area is Area.TABLEAU and u.zone.suit is Suit.CLOWNS and u.zone.pile is Pile.LIGHT
    assert u.best_guess == "clowns-L3"
    assert u.to_json()["reason"] == "unreadable"
    assert "could not be read" in covered.describe()
    sighting = sighting_from_view(covered, ("Ann", "Bob", "Cy"))
    assert sighting is not None and any("Clowns light pile could not be read" in p for p in sighting.unrecognised)


def test_a_pile_whose_card_was_taken_away_reads_empty(recognizer: Recognizer) -> None:
    with_card, _ = _table(True)
    without, _ = _table(False)
    recognizer.reset()
    recognizer.recognize(with_card)
    view = recognizer.recognize(without).view
    assert not [u for u in view.unrecognised if u.reason is Reason.UNREADABLE]
    clowns = next(t for t in view.tableau if t.suit is Suit.CLOWNS)
    assert clowns.top_light is None


def test_a_covered_pile_never_seen_with_a_card_is_held_without_a_guess(recognizer: Recognizer) -> None:
    image, to_image = _table(False)
    recognizer.reset()
    view = recognizer.recognize(_hand_over_light_pile(image, to_image)).view
    unread = [u for u in view.unrecognised if u.reason is Reason.UNREADABLE]
    assert [(u.zone.suit, u.zone.pile) for u in unread] == [(Suit.CLOWNS, Pile.LIGHT)]
    assert unread[0].best_guess == ""
    clowns = next(t for t in view.tableau if t.suit is Suit.CLOWNS)
    assert clowns.top_light is None


def test_every_empty_place_of_a_plain_table_reads_empty(recognizer: Recognizer) -> None:
    image, _ = _table(False)
    recognizer.reset()
    view = recognizer.recognize(image).view
    assert not view.unrecognised
    assert [t.poster for t in view.tableau] == [True, False, True, False]
    assert all(t.top_light is None and t.top_dark is None for t in view.tableau)
    assert all(not c.called for c in view.charts) and len(view.charts) == len(SEATS)


def test_a_card_the_detector_misses_is_read_where_the_layout_puts_it(recognizer: Recognizer,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    image, _ = _table(True)
    recognizer.reset()
    rec = recognizer.recognize(image)
    # the same frame with nothing found by the free detector: every place is read from the layout
    monkeypatch.setattr(pipeline, "find_components", lambda *a, **k: [])
    recognizer.reset()
    again = recognizer.recognize(image)
    clowns = next(t for t in again.view.tableau if t.suit is Suit.CLOWNS)
    assert clowns.top_light is not None and clowns.top_light.notation() == "clowns-L3"
    assert [t.poster for t in again.view.tableau] == [t.poster for t in rec.view.tableau]


def _finger_gap_across_light_pile(image: np.ndarray, table_to_image: np.ndarray) -> np.ndarray:
    """`_hand_over_light_pile` with the shadow of a gap between two fingers across the pile's middle,
    where its printed name is: fine detail in the name's band, but not the name's letters."""
    out = _hand_over_light_pile(image, table_to_image)
    x, y = MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre
    w = CARD.width / 2 + 8
    t = 0.3 * w  # a little slanted, as fingers lie
    line = cv2.perspectiveTransform(np.array([[[x - w, y - t], [x + w, y + t]]], np.float64), table_to_image)[0]
    a, b = np.round(line).astype(np.int32)
    cv2.line(out, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), (60, 80, 120), 3, cv2.LINE_AA)
    return out


def test_a_covered_pile_is_held_when_an_edge_crosses_where_its_name_is_printed(recognizer: Recognizer) -> None:
    image, to_image = _table(True)
    recognizer.reset()
    view = recognizer.recognize(_finger_gap_across_light_pile(image, to_image)).view
    unread = [(u.zone.suit, u.zone.pile) for u in view.unrecognised if u.reason is Reason.UNREADABLE]
    assert unread == [(Suit.CLOWNS, Pile.LIGHT)]


class _ReadsEverythingAs:
    """A classifier that reads every crop as one card, confidently."""

    def __init__(self, label: str) -> None:
        self.label = label

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.label, 0.999) for _ in crops]


def test_a_place_read_as_a_card_that_cannot_lie_there_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    # a hand over a card's number reads as its suit's Poster: read where the layout puts a light
    # pile or a chart space, a Poster cannot lie there, so the place is held, never read as one
    image, _ = _table(True)
    monkeypatch.setattr(pipeline, "find_components", lambda *a, **k: [])
    rec = Recognizer(DEFAULT_MODEL, classifier=_ReadsEverythingAs("clowns-P"))
    view = rec.recognize(image).view
    clowns = next(t for t in view.tableau if t.suit is Suit.CLOWNS)
    assert clowns.poster and clowns.top_light is None
    held = {(u.zone.suit, u.zone.pile) for u in view.unrecognised if u.zone.area is Area.TABLEAU}
    assert (Suit.CLOWNS, Pile.LIGHT) in held
    assert [c.label for c in view.components] == ["clowns-P"]


@pytest.mark.parametrize(("label", "zone", "fits"), [
    ("clowns-P", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.POSTER), True),
    ("clowns-L3", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.LIGHT), True),
    ("clowns-D2", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.DARK), True),
    ("clowns-P", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.LIGHT), False),
    ("clowns-L3", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.DARK), False),
    ("animals-L3", Zone(Area.TABLEAU, suit=Suit.CLOWNS, pile=Pile.LIGHT), False),
    ("animals-D5", Zone(Area.CHART_SPACE, seat=1, space=Space.D2), True),
    ("animals-P", Zone(Area.CHART_SPACE, seat=1, space=Space.D2), False),
    ("back", Zone(Area.CHART_SPACE, seat=1, space=Space.D2), False),
])
def test_which_cards_can_lie_on_a_place(label: str, zone: Zone, fits: bool) -> None:
    assert pipeline.can_lie_on(label, zone) is fits


def _dark_pile_of(suit: Suit) -> LayoutPlace:
    return next(p for p in layout_places({}) if p.zone.suit is suit and p.zone.pile is Pile.DARK)


@pytest.mark.parametrize(("place_guess", "detected_guess", "fit", "read"), [
    (("animals-D4", 0.86), "animals-D4", ("animals-D4", 0.0009, 2.2), True),
    # the fit must name the card, fit well and clearly better than every other card, as a place crop's must
    (("animals-D4", 0.86), "animals-D4", ("animals-D4", 0.0009, 1.9), False),
    (("animals-D4", 0.86), "animals-D4", ("animals-D4", 0.003, 2.2), False),
    (("animals-D4", 0.86), "animals-D4", ("animals-D6", 0.0009, 2.2), False),
    # the detection must be unsure of the same card; the place crop's guess as sure as a place crop's must be
    (("animals-D4", 0.86), "animals-D6", ("animals-D4", 0.0009, 2.2), False),
    (("animals-D4", 0.45), "animals-D4", ("animals-D4", 0.0009, 2.2), False),
])
def test_a_place_is_read_when_the_detections_own_crop_fits_the_same_card(
        recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch, place_guess: tuple[str, float], detected_guess: str,
        fit: tuple[str, float, float], read: bool) -> None:
    place = _dark_pile_of(Suit.ANIMALS)
    fitted: list[str] = []

    def face_read(crop: np.ndarray, cands: object, guess: str) -> tuple[str, float, float]:
        fitted.append(guess)
        return fit

    monkeypatch.setattr(facefit, "face_read", face_read)
    recognizer.fits.reset()
    items = [(Kind.CARD, place.centre, 0.0, Recognition(Verdict.UNSURE, detected_guess, 0.46))]
    crops = np.zeros((1, 8, 8, 3), np.uint8)
    place_read = Recognition(Verdict.UNSURE, *place_guess)
    out = recognizer._confirmed_by_detection([place], [place_read], items, [place.key], crops)
    assert out == [Recognition(Verdict.IDENTIFIED, *place_guess) if read else place_read]
    assert fitted == ([] if detected_guess != place_guess[0] or place_guess[1] < facefit.MIN_CONFIDENCE
                      else [place_guess[0]])


def _card_on_space(seat: int, space: Space) -> Placement:
    pose = chart_pose(seat)
    return Placement("animals-D2", *chart_to_table(pose, *CHART.space(space).centre), pose[2])


def test_an_even_surface_with_sensor_noise_over_a_chart_space_is_never_its_plain_print(
        recognizer: Recognizer) -> None:
    # an arm in shadow over a called card: even grey and the camera's noise, whose chance match with the space's
    # printed value (up to about 0.35) once passed for the print at 0.184 and the card read as not there
    scene = render_scene(np.random.default_rng(8), seats=SEATS, settings=CALM,
                         placements=[_card_on_space(0, Space.D1)])
    recognizer.reset()
    res = recognizer.recognize(scene.image)
    rect = res.rectified
    place = next(p for p in layout_places(res.charts) if p.zone.seat == 0 and p.zone.space is Space.D1)
    h, w = rect.image.shape
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = (np.array(place.centre) - np.array(rect.origin)) * rect.px_per_mm
    arm = np.hypot(xx - cx, yy - cy) < 60 * rect.px_per_mm
    empty = build_table_view([], res.charts, 4, 0.0)
    chance = []
    for k in range(16):
        rng = np.random.default_rng(k)
        noise = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0) * 4
        shade = cv2.resize(rng.random((h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h)) * 10
        image = np.where(arm, np.clip(80 + shade + noise, 0, 255), rect.image).astype(np.uint8)
        covered = replace(rect, image=image)
        chance.append(print_match(image, covered, place))
        _, plain = PlaceMemory().to_read(empty, covered, res.charts)
        assert not plain[place.key], k
    assert max(chance) > PRINT_MATCH[Area.CHART_SPACE]  # the print's own match alone would have let some through


def test_a_hand_whose_knuckles_match_a_chart_spaces_value_by_chance_holds_the_card_under_it(
        recognizer: Recognizer) -> None:
    # tuning table 979500005 through the independent camera (medium, 1280 x 960): a hand over seat 1's called
    # clowns-D4 on $1, its knuckles in the value's band, matched the printed value at 0.238 with the band 2.5 times
    # as detailed as the rest of the place, and the card was read as not there (its cards card face print 1)
    seed = 979_500_005
    rng = np.random.default_rng(seed)
    td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)), faces=printed_faces(1))
    photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, "medium", seed, (1280, 960))
    recognizer.reset()
    res = recognizer.recognize(photo.image)
    rect = res.rectified
    place = next(p for p in layout_places(res.charts) if p.zone.seat == 1 and p.zone.space is Space.D2)
    assert any(t.label == "clowns-D4" and np.hypot(t.x - place.centre[0], t.y - place.centre[1]) < 10 for t in td.truth)
    detail, text = place_features(rect.image, rect, place.plain_mm, place.text_mm)
    assert detail >= TEXTURED and text >= NAME_OVER_PLAIN * detail  # the band test alone lets it through
    assert PRINT_MATCH[Area.CHART_SPACE] <= print_match(rect.image, rect, place) < PRINT_TEXTURED[Area.CHART_SPACE]
    assert place.key in {(u.zone.area, u.zone.seat, u.zone.suit, u.zone.pile, u.zone.space)
                         for u in res.view.unrecognised}


def test_an_empty_pile_whose_name_shows_beside_a_glare_spot_is_read_empty_not_held(
        recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    # tuning table 974000012 through the independent camera (hard, 1280 x 960): the Clowns Poster pile lies empty
    # beside a glare spot, whose clipped edge dragged its name's match with the clean print to 0.468 against 0.5,
    # and the pile was held as unreadable; away from the spot's edge the name matches at 0.64
    seed = 974_000_012
    rng = np.random.default_rng(seed)
    td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)))
    photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, "hard", seed, (1280, 960))
    slot = MAT.slot(Suit.CLOWNS, Pile.POSTER)
    assert not any(t.label != "none" and abs(t.x - slot.centre[0]) < slot.w / 2 and abs(t.y - slot.centre[1]) < slot.h / 2
                   for t in td.truth)
    key = (Area.TABLEAU, None, Suit.CLOWNS, Pile.POSTER, None)

    def held() -> bool:
        recognizer.reset()
        view = recognizer.recognize(photo.image).view
        return key in {(u.zone.area, u.zone.seat, u.zone.suit, u.zone.pile, u.zone.space) for u in view.unrecognised}

    assert not held()
    monkeypatch.setattr(places, "_match_away", lambda *a: -1.0)  # the name's whole band only
    assert held()


class _ReadsPlacesAs:
    """A classifier that reads every crop as one card, confidently, on a table whose free detector found nothing."""

    def __init__(self, label: str) -> None:
        self.label = label

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.label, 0.999) for _ in crops]


def test_a_card_read_on_two_places_is_held_on_both(monkeypatch: pytest.MonkeyPatch) -> None:
    # the deck holds one of each card: read on the light pile and on a chart space, one reading is wrong
    placements = [Placement("clowns-L3", *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 1), _card_on_space(0, Space.D1)]
    scene = render_scene(np.random.default_rng(21), seats=SEATS, settings=CALM, placements=placements)
    monkeypatch.setattr(pipeline, "find_components", lambda *a, **k: [])
    rec = Recognizer(DEFAULT_MODEL, classifier=_ReadsPlacesAs("clowns-L3"))
    view = rec.recognize(scene.image).view
    assert not view.components
    held = {(u.zone.area, u.zone.suit, u.zone.pile, u.zone.seat, u.zone.space) for u in view.unrecognised}
    assert (Area.TABLEAU, Suit.CLOWNS, Pile.LIGHT, None, None) in held
    assert (Area.CHART_SPACE, None, None, 0, Space.D1) in held


def test_a_card_identified_twice_is_unsure_both_times() -> None:
    recs = [Recognition(Verdict.IDENTIFIED, "clowns-D2", 1.0), Recognition(Verdict.IDENTIFIED, "performers-D2", 0.99),
            Recognition(Verdict.IDENTIFIED, "clowns-D2", 0.994), Recognition(Verdict.IDENTIFIED, "back", 0.99),
            Recognition(Verdict.IDENTIFIED, "back", 0.98), Recognition(Verdict.IDENTIFIED, "token-back", 0.99),
            Recognition(Verdict.IDENTIFIED, "token-back", 0.99), Recognition(Verdict.UNSURE, "performers-D2", 0.5)]
    out = pipeline.one_of_each(recs)
    assert out == [Recognition(Verdict.UNSURE, "clowns-D2", 1.0), recs[1], Recognition(Verdict.UNSURE, "clowns-D2", 0.994),
                   *recs[3:]]
