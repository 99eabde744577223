"""Enrolled decks (`vision.enroll`): finding the component in a photo, prototypes, matching, storage."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

import models
from vision.bigtop import CONFIG
from vision.bigtop.faces import render_label
from vision.bigtop.layout import CARD
from vision.bigtop.scene import paste, table_texture
from vision.camera_model import LEVELS, photograph
from vision.classify import Verdict
from vision.enroll import (
    COLOUR_MARGIN,
    COLOUR_MAX,
    DEGRADED,
    FLAT,
    FUSED_FLAT,
    TEMPLATE_ANGLES,
    ColourCue,
    ComponentShape,
    Deck,
    DeckError,
    TemplateCue,
    _correlations,
    _unit_rows,
    build_deck,
    colour_histograms,
    deck_home,
    default_embedder,
    detail,
    edge_ratio,
    enrol_photo,
    find_component,
    list_decks,
    load_deck,
    resolve_deck,
    save_deck,
    sharpness,
)

SHAPE = ComponentShape(CARD.width, CARD.height, CARD.margin + CARD.frame)


def card_photo(label: str, seed: int, level: str = "easy") -> tuple[np.ndarray, np.ndarray]:
    """A small photo of one card alone on a table, and the card's corners in it."""
    rng = np.random.default_rng(seed)
    s, half = 3.0, 90.0
    canvas = table_texture(rng, (int(2 * half * s), int(2 * half * s)))
    img, alpha = render_label(label, s)
    x, y, angle = half, half, float(rng.uniform(0, 360))
    paste(canvas, img, alpha, x, y, angle, s, (0.0, 0.0), shadow=0.3)
    photo = photograph(canvas, s, (0.0, 0.0), (half - 65, half - 65, half + 65, half + 65), level, seed, (480, 360),
                       with_hand=False)
    corners = cv2.boxPoints(((x, y), (img.shape[1] / s, img.shape[0] / s), -angle))
    return photo.image, photo.to_image(np.asarray(corners, np.float64))


def test_finds_the_card_in_a_tilted_rotated_photo() -> None:
    for seed in (3, 4):
        image, truth = card_photo("animals-D6", seed, "medium")
        found = find_component(image, SHAPE)
        assert found is not None
        diag = np.linalg.norm(truth[0] - truth[2])
        error = min(np.abs(np.roll(truth, k, 0) - found).max() for k in range(4)) / diag
        assert error < 0.04
        # the first edge is a short side
        assert np.linalg.norm(found[1] - found[0]) < np.linalg.norm(found[3] - found[0])


def test_a_square_tile_photographed_upright_is_cut_upright() -> None:
    # a tile laid one way only (Grand Carnival's) and photographed so: a square has no short side to start
    # from, and a tilted camera makes either pair of sides look the longer; its first corner is its top-left
    s, half, side = 3.0, 70.0, 36.0
    n = int(side * s)
    tile = np.full((n, n, 3), (200, 172, 182), np.uint8)
    tile[n // 2:] = (60, 160, 230)
    upright = dataclasses.replace(LEVELS["medium"], roll_any=0.0)
    for seed in (1, 7, 9, 11):
        canvas = np.empty((int(2 * half * s), int(2 * half * s), 3), np.float32)
        canvas[:] = (40, 50, 60)
        paste(canvas, tile, np.full(tile.shape[:2], 255, np.uint8), half, half, 0.0, s, (0.0, 0.0), shadow=0.3)
        photo = photograph(canvas, s, (0.0, 0.0), (half - 40, half - 40, half + 40, half + 40), upright, seed,
                           (480, 360), with_hand=False)
        a, b = half - side / 2, half + side / 2
        corners = photo.to_image(np.array([[a, a], [b, a], [b, b], [a, b]], np.float64))  # TL, TR, BR, BL
        found = find_component(photo.image, ComponentShape(side, side, turns=1))
        assert found is not None
        assert np.abs(found - corners).max() < 0.04 * np.linalg.norm(corners[0] - corners[2])


def test_no_component_in_a_bare_table() -> None:
    rng = np.random.default_rng(1)
    canvas = table_texture(rng, (400, 500))
    photo = photograph(canvas, 2.0, (0.0, 0.0), (10, 10, 240, 190), "easy", 1, (480, 360), with_hand=False)
    assert find_component(photo.image, SHAPE) is None


LABELS = ("clowns-L3", "clowns-D3", "sideshow-L3")


@functools.cache
def small_deck(photos: int = 2) -> tuple[Deck, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    views = []
    for i, label in enumerate(LABELS):
        for k in range(photos):
            image, _ = card_photo(label, 100 + 10 * i + k)
            view = enrol_photo(image, label, Path(f"{label}/{k}.jpg"), SHAPE, CONFIG.crop_size, rng, count=4)
            assert view is not None
            views.append(view)
    return build_deck("bigtop", "test", views, CONFIG.crop_size, LABELS), [v.plain for v in views]


def test_deck_reads_its_components_and_reports_held_back_accuracy() -> None:
    deck, plains = small_deck()
    held = deck.card["held_back"]
    assert held["photos"] == len(LABELS) and held["views"] == 2 * len(LABELS)
    assert held["wrong_accepted"] == 0 and held["right"] >= held["views"] - 1
    # a fresh photo of each card, upside down too, is read as that card
    for i, label in enumerate(LABELS):
        image, _ = card_photo(label, 900 + i)
        view = enrol_photo(image, label, Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1), count=1)
        assert view is not None
        recs = deck.classify(view.plain)
        assert [r.label for r in recs] == [label, label]


def test_a_component_not_enrolled_is_not_accepted() -> None:
    deck, _ = small_deck(1)
    image, _ = card_photo("performers-D5", 77)
    view = enrol_photo(image, "performers-D5", Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1),
                       count=1)
    assert view is not None
    recs = deck.classify(view.plain)
    assert all(r.verdict is Verdict.UNSURE for r in recs)


def test_save_load_round_trip_and_errors(tmp_path: Path) -> None:
    deck, plains = small_deck(1)
    folder = save_deck(deck, tmp_path / "decks" / "mine")
    assert sorted(p.name for p in folder.iterdir()) == ["DECK.md", "deck.json", "labels.txt", "prototypes.npz"]
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]  # no temporary left
    again = load_deck(folder, "bigtop")
    assert again.labels == LABELS
    assert again.photo_of is not None and np.array_equal(again.photo_of, deck.photo_of)
    assert deck.sharpness is not None and again.sharpness == pytest.approx(deck.sharpness)
    assert deck.detail is not None and again.detail == pytest.approx(deck.detail)
    assert deck.templates is not None and again.templates is not None
    assert np.array_equal(again.templates, deck.templates) and again.cue is not None
    assert np.array_equal(again.template_owners, deck.template_owners)  # type: ignore[arg-type]
    two = save_deck(small_deck(2)[0], tmp_path / "elsewhere" / "two")
    assert set(load_deck(two).photo_of.tolist()) == {0, 1}  # type: ignore[union-attr]
    assert [r.label for r in again.classify(plains[0])] == [r.label for r in deck.classify(plains[0])]
    with pytest.raises(DeckError, match="already exists"):
        save_deck(deck, folder)
    with pytest.raises(DeckError, match="for bigtop, not flohcati"):
        load_deck(folder, "flohcati")
    with pytest.raises(DeckError, match="no such deck"):
        load_deck(tmp_path / "nothing")
    card = json.loads((folder / "deck.json").read_text())
    card["descriptor_version"] = -1
    (folder / "deck.json").write_text(json.dumps(card))
    with pytest.raises(DeckError, match="another version"):
        load_deck(folder)
    (folder / "prototypes.npz").write_bytes(b"junk")
    with pytest.raises(DeckError, match="not a complete deck"):
        load_deck(folder)
    assert [d["name"] for d in list_decks(tmp_path / "decks")] == ["test"]


def test_deck_home_and_names() -> None:
    assert deck_home({"XDG_DATA_HOME": "/x"}) == Path("/x/ringside/decks")
    assert deck_home({"HOME": "/h"}) == Path("/h/.local/share/ringside/decks")
    assert resolve_deck("family", {"XDG_DATA_HOME": "/x"}) == Path("/x/ringside/decks/family")
    assert resolve_deck("./family", {"XDG_DATA_HOME": "/x"}) == Path("./family")


def test_a_label_is_as_near_as_the_mean_of_its_photos() -> None:
    # label 0 has two photos: one prototype each at distance 1 and 3 from the origin; label 1 one photo at 2.5
    protos = np.array([[1.0, 0.0], [0.0, 3.0], [0.0, -2.5]], np.float32)
    deck = Deck("bigtop", "t", ("a", "b"), protos, np.array([0, 0, 1], np.int32), np.zeros(2, np.float32),
                np.eye(2, dtype=np.float32), 10.0, 0.9, (40, 56), photo_of=np.array([0, 1, 0], np.int32))
    per = deck.label_distances(np.zeros((1, 2), np.float32))
    assert per[0].tolist() == pytest.approx([2.0, 2.5])  # the nearest single prototype (1.0) would have been "a"
    one = Deck("bigtop", "t", ("a", "b"), protos, np.array([0, 0, 1], np.int32), np.zeros(2, np.float32),
               np.eye(2, dtype=np.float32), 10.0, 0.9, (40, 56))
    assert one.label_distances(np.zeros((1, 2), np.float32))[0].tolist() == pytest.approx([1.0, 2.5])


def _blob_crops(offsets: list[float], size: tuple[int, int] = (40, 56)) -> np.ndarray:
    """Crops each holding one bright square, its centre ``offset`` pixels right of the crop's."""
    w, h = size
    out = np.full((len(offsets), h, w, 3), 40, np.uint8)
    for i, dx in enumerate(offsets):
        x = int(round(w / 2 + dx))
        out[i, h // 2 - 5:h // 2 + 5, x - 5:x + 5] = 220
    return out


def _centroid(crops: np.ndarray) -> np.ndarray:
    """A stand-in descriptor: where a crop's bright pixels lie, in pixels from its centre."""
    out = []
    for c in crops:
        ys, xs = np.nonzero(c[:, :, 0] > 128)
        out.append([xs.mean() + 0.5 - c.shape[1] / 2, ys.mean() + 0.5 - c.shape[0] / 2])
    return np.asarray(out, np.float32)


def _two_label_deck() -> Deck:
    # label "a": the square centred; "b": 8 px to the right. A match must lie within 1 px.
    protos = np.array([[0.0, 0.0], [8.0, 0.0]], np.float32)
    return Deck("bigtop", "t", ("a", "b"), protos, np.array([0, 1], np.int32), np.zeros(2, np.float32),
                np.eye(2, dtype=np.float32), 1.0, 0.88, (40, 56))


def test_a_crop_cut_a_little_off_is_read_after_realigning_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.enroll.describe", _centroid)
    deck = _two_label_deck()
    # 2 px off (5% of the width): too far for the plain test, read as "a" once moved back
    recs = deck.classify(_blob_crops([0.0, 2.0, -2.0]))
    assert [r.label for r in recs] == ["a", "a", "a"]
    # halfway between the two labels: moved either way it looks like both, so it stays unsure
    assert deck.classify(_blob_crops([4.0]))[0].verdict is Verdict.UNSURE


def test_a_crop_too_blurred_to_tell_look_alikes_apart_is_held_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.enroll.describe", lambda crops: np.zeros((len(crops), 2), np.float32))
    deck = _two_label_deck()  # every crop lies exactly on "a"'s prototype
    sharp = _blob_crops([0.0])
    blurred = cv2.GaussianBlur(sharp[0], (0, 0), 3.0)[None]
    deck.sharpness = float(sharpness(sharp)[0])
    assert sharpness(blurred)[0] < DEGRADED * deck.sharpness
    assert deck.classify(sharp)[0].label == "a"
    assert deck.classify(blurred)[0].verdict is Verdict.UNSURE
    deck.sharpness = None  # a deck without the measure (or none of its views) keeps the distance tests only
    assert deck.classify(blurred)[0].label == "a"


def test_sharpness_falls_with_blur_not_with_exposure() -> None:
    image, _ = card_photo("clowns-D3", 5)
    view = enrol_photo(image, "clowns-D3", Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1), count=1)
    assert view is not None
    crop = view.plain[:1]
    dim = (crop.astype(np.float32) * 0.5).astype(np.uint8)
    soft = cv2.GaussianBlur(crop[0], (0, 0), 2.0)[None]
    s, s_dim, s_soft = float(sharpness(crop)[0]), float(sharpness(dim)[0]), float(sharpness(soft)[0])
    assert abs(s_dim / s - 1) < 0.25
    assert s_soft < 0.5 * s


def test_a_crop_with_no_print_is_held_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.enroll.describe", lambda crops: np.zeros((len(crops), 2), np.float32))
    deck = _two_label_deck()  # every crop lies exactly on "a"'s prototype
    image, _ = card_photo("sideshow-D1", 6)
    view = enrol_photo(image, "sideshow-D1", Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1), count=1)
    assert view is not None
    printed = view.plain[:1]
    # a hand or a bare patch of table: one colour, softly shaded, with an easy camera's sensor noise
    h, w = printed.shape[1:3]
    shade = np.linspace(0.9, 1.1, h)[:, None, None] * np.array([120.0, 150.0, 200.0])
    noise = np.random.default_rng(3).normal(0.0, 1.5, (h, w, 3))
    flat = np.clip(shade + noise, 0, 255).astype(np.uint8)[None]
    deck.detail = float(detail(printed)[0])
    assert detail(flat)[0] < FLAT * deck.detail
    assert deck.classify(printed)[0].label == "a"
    assert deck.classify(flat)[0].verdict is Verdict.UNSURE


def test_a_match_near_both_of_its_limits_is_held_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    # a crop's grey level sets where it lies: level 10 x k is at (k / 10, 0)
    monkeypatch.setattr("vision.enroll.describe",
                        lambda crops: np.stack([crops[:, 0, 0, 0] / 100.0, np.zeros(len(crops))], 1).astype(np.float32))
    protos = np.array([[0.0, 0.0], [2.1, 0.0]], np.float32)
    deck = Deck("bigtop", "t", ("a", "b"), protos, np.array([0, 1], np.int32), np.zeros(2, np.float32),
                np.eye(2, dtype=np.float32), 1.0, 0.88, (40, 56))
    crops = np.zeros((2, 56, 40, 3), np.uint8)
    crops[0] = 50  # distance 0.5 of the bound 1.0, ratio 0.31
    crops[1] = 95  # distance 0.95 and ratio 0.83: each within its limit, but both nearly at it
    recs = deck.classify(crops)
    assert recs[0].label == "a"
    assert recs[1].verdict is Verdict.UNSURE and recs[1].best == "a"


def test_edge_ratio_falls_with_blur_not_with_exposure_or_colour_cast() -> None:
    image, _ = card_photo("clowns-D3", 5)
    view = enrol_photo(image, "clowns-D3", Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1), count=1)
    assert view is not None
    crop = view.plain[:1].astype(np.float32)
    cast = np.clip(crop * np.array([0.6, 0.9, 1.2], np.float32), 0, 255)
    soft = cv2.GaussianBlur(crop[0], (0, 0), 2.0)[None]
    e, e_cast, e_soft = (float(edge_ratio(x)[0]) for x in (crop, cast, soft))
    assert abs(e_cast / e - 1) < 0.1
    assert e_soft < 0.6 * e


def test_the_template_cue_reads_a_blurred_photo_under_a_colour_cast() -> None:
    deck, _ = small_deck()
    assert deck.cue is not None and deck.templates is not None
    assert len(deck.templates) == 2 * 2 * len(LABELS)  # two photos of each card, upright and upside down
    assert deck.judges_blur and not _two_label_deck().judges_blur
    for i, label in enumerate(LABELS):
        image, _ = card_photo(label, 950 + i)
        view = enrol_photo(image, label, Path("x.jpg"), SHAPE, CONFIG.crop_size, np.random.default_rng(1), count=1)
        assert view is not None
        # a warm cast, the table camera's blur and a brighter exposure: the template cue still knows it
        seen = np.clip(cv2.GaussianBlur(view.plain[0].astype(np.float32), (0, 0), 1.5)
                       * np.array([0.7, 1.0, 1.3], np.float32) + 20, 0, 255).astype(np.uint8)[None]
        scores = deck.cue.scores(seen)
        assert LABELS[int(np.argmax(scores[0]))] == label
        assert deck.classify(seen)[0].best == label


def _disc(spokes: bool, blur: float) -> np.ndarray:
    img = np.full((56, 40, 3), 200, np.uint8)
    cv2.ellipse(img, (20, 28), (16, 23), 0, 0, 360, (60, 40, 110), 2, cv2.LINE_AA)
    if spokes:
        for k in range(6):
            a = k * np.pi / 3
            cv2.line(img, (20, 28), (int(20 + 14 * np.cos(a)), int(28 + 20 * np.sin(a))), (60, 40, 110), 2, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), blur) if blur else img


def test_a_blurred_crop_is_compared_with_its_template_blurred_as_much(monkeypatch: pytest.MonkeyPatch) -> None:
    cue = TemplateCue(_disc(True, 0.0)[None], np.zeros(1, np.int32), 1)
    sharp, blurred = _disc(True, 0.0)[None], _disc(True, 2.0)[None]
    assert float(cue.scores(sharp)[0, 0]) > 0.99  # a sharp crop: the sharp template
    matched = float(cue.scores(blurred)[0, 0])
    monkeypatch.setattr("vision.enroll.BLUR_MATCH", 1e9)  # the template never blurred
    assert matched > float(cue.scores(blurred)[0, 0]) + 0.1
    assert matched > 0.85


def test_a_round_component_is_compared_at_many_angles() -> None:
    shape = ComponentShape(30.0, 30.0, 2.0, round=True, turns=0)
    photo = np.full((300, 300, 3), 90, np.uint8)
    cv2.circle(photo, (150, 150), 80, (230, 230, 230), -1, cv2.LINE_AA)
    cv2.putText(photo, "7", (120, 190), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 6, cv2.LINE_AA)
    view = enrol_photo(photo, "token-7", Path("x.jpg"), shape, (40, 56), np.random.default_rng(0), count=2)
    assert view is not None and view.templates is not None
    assert len(view.templates) == TEMPLATE_ANGLES and len(view.plain) == 8


def test_correlations_at_some_or_every_shift_are_the_normalised_correlations() -> None:
    rng = np.random.default_rng(5)
    image = rng.normal(0.0, 1.0, (12, 10, 3)).astype(np.float32) + 3.0
    window = (8, 7)
    rows = _unit_rows(rng.normal(0.0, 1.0, (4, 8, 7, 3)).astype(np.float32))
    parts = [image[y:y + 8, x:x + 7] for y in range(5) for x in range(4)]
    expected = _unit_rows(np.asarray(parts)) @ rows.T
    assert np.allclose(_correlations(image, window, rows), expected, atol=1e-4)
    at = np.array([0, 6, 19])
    assert np.allclose(_correlations(image, window, rows, at), expected[at], atol=1e-4)


def _token(angle: float, digit: str) -> np.ndarray:
    img = np.full((56, 40, 3), 210, np.uint8)
    cv2.ellipse(img, (20, 28), (17, 24), 0, 0, 360, (50, 60, 150), 2, cv2.LINE_AA)
    cv2.putText(img, digit, (11, 39), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (40, 40, 40), 3, cv2.LINE_AA)
    m = cv2.getRotationMatrix2D((20.0, 28.0), angle, 1.0)
    out: np.ndarray = cv2.warpAffine(img, m, (40, 56), borderMode=cv2.BORDER_REPLICATE)
    return out


def test_the_coarse_look_keeps_the_templates_an_exhaustive_search_would_pick(monkeypatch: pytest.MonkeyPatch) -> None:
    angles = np.linspace(0, 360, TEMPLATE_ANGLES, endpoint=False)
    templates = np.stack([_token(a, d) for d in ("7", "3") for a in angles])
    owners = np.repeat(np.arange(2, dtype=np.int32), TEMPLATE_ANGLES)
    cue = TemplateCue(templates, owners, 2)
    crops = np.stack([_token(a, d) for d, a in (("7", 37.0), ("3", 200.0), ("7", 311.0))])
    quick = cue.scores(crops)
    monkeypatch.setattr("vision.enroll.REFINE", 10 * TEMPLATE_ANGLES)  # every template, every shift
    full = cue.scores(crops)
    assert np.allclose(quick, full, atol=0.02)
    assert [int(np.argmax(s)) for s in quick] == [0, 1, 0]


def _shifted_scores(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stand-in fused scores: label "a" is the bright square centred, "b" 8 px right; the farther
    off a label's place, the less it correlates and the farther it lies."""
    off = np.abs(_centroid(crops)[:, :1] - np.array([[0.0, 8.0]], np.float32))
    tm = 1.0 - 0.3 * off
    near = off / 4.0
    return near + 1.5 * (1.0 - tm), tm, near


def test_a_fused_match_cut_a_little_off_is_read_after_moving_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Deck, "scores", _shifted_scores)
    deck = Deck("bigtop", "t", ("a", "b"), np.zeros((2, 2), np.float32), np.array([0, 1], np.int32),
                np.zeros(2, np.float32), np.eye(2, dtype=np.float32), 1.0, 0.9, (40, 56),
                templates=np.zeros((2, 56, 40, 3), np.uint8), template_owners=np.array([0, 1], np.int32))
    assert deck.cue is not None
    # 2 px off (5% of the width): its correlation too low as it lies, read once moved back
    crops = _blob_crops([2.0, -2.0, 6.0])
    assert [r.label for r in deck.classify(crops)] == ["a", "a", "b"]
    # halfway between the two labels: not looked at again, unsure
    assert deck.classify(_blob_crops([4.0]))[0].verdict is Verdict.UNSURE
    # without the second look the crops cut off stay unsure
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    assert all(r.verdict is Verdict.UNSURE for r in deck.classify(crops))


def _ring(face: tuple[int, int, int], size: int = 48) -> np.ndarray:
    """A token-like face: white paper, a ring of ``face`` colour, a dark numeral-like bar."""
    img = np.full((size, size, 3), 240, np.uint8)
    cv2.circle(img, (size // 2, size // 2), int(0.42 * size), face, -1, cv2.LINE_AA)
    cv2.circle(img, (size // 2, size // 2), int(0.28 * size), (245, 245, 245), -1, cv2.LINE_AA)
    cv2.line(img, (size // 2, size // 3), (size // 2, 2 * size // 3), (40, 30, 30), 3)
    return img


def _cast(img: np.ndarray, gains: tuple[float, float, float], exposure: float) -> np.ndarray:
    """``img`` through a camera's white-balance error and exposure (gains in linear light, as the camera model)."""
    lin = (img.astype(np.float32) / 255.0) ** 2.2 * exposure * np.asarray(gains, np.float32)
    return np.clip(255.0 * np.clip(lin, 0, 1) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def test_colour_histograms_keep_colour_through_a_cast_and_tell_two_colours_apart() -> None:
    blue, green = _ring((200, 120, 40)), _ring((60, 170, 90))
    cue = ColourCue(np.stack([blue, green]), np.array([0, 1], np.int32), 2)
    rng = np.random.default_rng(3)
    for _ in range(6):
        gains = tuple(float(g) for g in 1.0 + rng.uniform(-0.25, 0.25, 3))
        exposure = float(rng.uniform(0.5, 1.0))
        crops = np.stack([_cast(blue, gains, exposure), _cast(green, gains, exposure)])
        d = cue.distances(cv2.GaussianBlur(crops.reshape(-1, 48, 3), (0, 0), 1.0).reshape(crops.shape))
        assert d[0, 0] < 0.3 and d[1, 1] < 0.3
        assert d[0, 1] > d[0, 0] + 0.3 and d[1, 0] > d[1, 1] + 0.3
    turned = colour_histograms(np.stack([blue, np.rot90(blue).copy()]))
    assert np.allclose(turned[0], turned[1], atol=1e-3)  # a turn keeps the histogram


def test_colour_cue_only_looks_at_candidates() -> None:
    cue = ColourCue(np.stack([_ring((200, 120, 40)), _ring((60, 170, 90))]), np.array([0, 1], np.int32), 2)
    d = cue.distances(_ring((200, 120, 40))[None], np.array([[False, True]]))
    assert d[0, 0] == 1.0 and d[0, 1] < 1.0


def _alike(blue: float, green: float, green_near: float) -> object:
    """Stand-in fused scores: the embedding and the templates see "blue" and "green" alike, "blue" a hair
    nearer (the ratio test fails); ``blue`` and ``green``: their template correlations."""
    def scores(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(crops)
        near = np.tile(np.array([[0.5, green_near]], np.float32), (n, 1))
        tm = np.tile(np.array([[blue, green]], np.float32), (n, 1))
        return near + 1.5 * (1.0 - tm), tm, near

    return scores


def _ring_deck(labels: tuple[str, ...], faces: list[tuple[int, int, int]]) -> Deck:
    n = len(labels)
    return Deck("bigtop", "t", labels, np.zeros((n, 2), np.float32), np.arange(n, dtype=np.int32),
                np.zeros(2, np.float32), np.eye(2, dtype=np.float32), 1.0, 0.9, (48, 48),
                templates=np.stack([_ring(f, 48) for f in faces]), template_owners=np.arange(n, dtype=np.int32))


def test_the_colour_cue_settles_look_alikes_as_the_rival_of_their_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Deck, "scores", _alike(0.8, 0.78, 0.51))
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))  # no second look: the colour cue alone
    deck = _ring_deck(("blue", "green"), [(200, 120, 40), (60, 170, 90)])
    cast = np.stack([_cast(_ring(face, 48), (1.2, 0.85, 1.1), 0.7)
                     for face in ((200, 120, 40), (60, 170, 90), (50, 50, 200))])
    recs = deck.classify(cast)
    # the blue token is read; so is the green one, though the other cues put blue a hair nearer
    assert recs[0].label == "blue"
    assert recs[1].label == "green"
    # a red token has neither rival's colour: unsure
    assert recs[2].verdict is Verdict.UNSURE
    monkeypatch.setattr("vision.enroll.COLOUR_GATE", 0.0)
    assert all(r.verdict is Verdict.UNSURE for r in deck.classify(cast))


def test_the_colour_cue_names_no_rival_over_a_nearest_label_of_the_crops_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    # "three" a hair nearer than "five" by the other cues; both print one red, each enrolled photo its own shade
    monkeypatch.setattr(Deck, "scores", _alike(0.8, 0.78, 0.51))
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))  # no second look: the colour cue alone
    deck = _ring_deck(("three", "five"), [(40, 40, 200), (40, 100, 190)])
    crop = _cast(_ring((40, 100, 190), 48), (1.2, 0.85, 1.1), 0.7)[None]
    d = deck.colour_cue.distances(crop)[0] if deck.colour_cue is not None else None
    assert d is not None and d[1] <= COLOUR_MAX and d[0] - d[1] >= COLOUR_MARGIN  # "five" nearer by colour ...
    assert d[0] <= COLOUR_MAX  # ... but the nearest label's colours fit the crop too: unsure, not "five"
    assert deck.classify(crop)[0].verdict is Verdict.UNSURE
    # a rival of another hue than the nearest label's is still named
    deck = _ring_deck(("three", "five"), [(40, 40, 200), (40, 130, 200)])
    crop = _cast(_ring((40, 130, 200), 48), (1.2, 0.85, 1.1), 0.7)[None]
    assert deck.classify(crop)[0].label == "five"


def test_the_colour_cue_names_a_rival_only_when_its_templates_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Deck, "scores", _alike(0.55, 0.45, 0.45))  # green correlates under MIN_TEMPLATE
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    deck = _ring_deck(("blue", "green"), [(200, 120, 40), (60, 170, 90)])
    green = _cast(_ring((60, 170, 90), 48), (1.2, 0.85, 1.1), 0.7)[None]
    assert deck.classify(green)[0].verdict is Verdict.UNSURE
    monkeypatch.setattr("vision.enroll.MIN_TEMPLATE", 0.4)
    assert deck.classify(green)[0].label == "green"


def test_a_clear_nearest_label_with_weak_templates_needs_its_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    def clear(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # "blue" far ahead of "green" (ratio about 0.56), its template correlation a little under MIN_TEMPLATE
        n = len(crops)
        near = np.tile(np.array([[0.5, 1.0]], np.float32), (n, 1))
        tm = np.tile(np.array([[0.45, 0.1]], np.float32), (n, 1))
        return near + 1.5 * (1.0 - tm), tm, near

    monkeypatch.setattr(Deck, "scores", clear)
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    deck = _ring_deck(("blue", "green"), [(200, 120, 40), (60, 170, 90)])
    crops = np.stack([_cast(_ring((200, 120, 40), 48), (0.9, 1.1, 1.2), 0.8), _ring((128, 128, 128), 48)])
    recs = deck.classify(crops)
    assert recs[0].label == "blue"
    # a bare grey disc (a printed circle) is as clear by shape, but has none of blue's colours
    assert recs[1].verdict is Verdict.UNSURE
    monkeypatch.setattr("vision.enroll.CLEAR_RATIO", 0.5)
    assert deck.classify(crops)[0].verdict is Verdict.UNSURE


def _pile_scores(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stand-in fused scores: label "a" is the bright square centred, falling off as it moves; "b" a
    look-alike that fits any crop weakly (a neighbouring pip count)."""
    off = np.abs(_centroid(crops)[:, 0])
    tm = np.stack([0.9 - 0.1 * off, np.full(len(off), 0.4)], axis=1).astype(np.float32)
    near = np.stack([0.2 + 0.15 * off, np.full(len(off), 1.1)], axis=1).astype(np.float32)
    return near + 1.5 * (1.0 - tm), tm, near


def test_a_crop_read_a_tenth_of_its_width_off_is_named_by_its_clear_look(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Deck, "scores", _pile_scores)
    deck = Deck("bigtop", "t", ("a", "b"), np.zeros((2, 2), np.float32), np.array([0, 1], np.int32),
                np.zeros(2, np.float32), np.eye(2, dtype=np.float32), 1.0, 0.9, (40, 56),
                templates=np.zeros((2, 56, 40, 3), np.uint8), template_owners=np.array([0, 1], np.int32))
    # 6 px off (15% of the width, as a card on a pile read from the pile's outline): "b" nearest as it lies
    crops = _blob_crops([6.0, -6.0])
    fused = _pile_scores(deck, crops)[0]
    assert (fused.argmin(axis=1) == 1).all()
    assert [r.label for r in deck.classify(crops)] == ["a", "a"]
    # the narrow moves alone never find a look clear enough
    monkeypatch.setattr("vision.enroll.WIDE_MOVES", ())
    assert all(r.verdict is Verdict.UNSURE for r in deck.classify(crops))


def _card_or_token_scores(self: Deck, crops: np.ndarray, among: np.ndarray | None = None,
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stand-in fused scores: two cards a hair apart and nearer than either token, one token clearly ahead
    of the other; ``among`` as `Deck.scores` (other labels infinitely far)."""
    n = len(crops)
    near = np.tile(np.array([[0.6, 0.61, 1.0, 1.3]], np.float32), (n, 1))
    tm = np.tile(np.array([[0.5, 0.5, 0.6, 0.2]], np.float32), (n, 1))
    if among is not None:
        near = np.where(among[None, :], near, np.inf).astype(np.float32)
    return near + 1.5 * (1.0 - tm), tm, near


def test_a_crop_is_read_among_the_labels_of_its_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Deck, "scores", _card_or_token_scores)
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    labels = ("card-a", "card-b", "token-1", "token-2")
    deck = Deck("bigtop", "t", labels, np.zeros((4, 2), np.float32), np.arange(4, dtype=np.int32),
                np.zeros(2, np.float32), np.eye(2, dtype=np.float32), 1.0, 0.9, (40, 56),
                templates=np.zeros((4, 56, 40, 3), np.uint8), template_owners=np.arange(4, dtype=np.int32))
    crops = np.zeros((1, 56, 40, 3), np.uint8)
    assert deck.classify(crops)[0].verdict is Verdict.UNSURE  # the two cards too alike
    assert deck.classify_among(crops, ["token-1", "token-2"])[0].label == "token-1"
    assert deck.classify_among(crops, ["card-a", "card-b"])[0].verdict is Verdict.UNSURE


def _blurred_token_scores(tm_token: float, near_token: float, tm_other: float, near_other: float,
                          ) -> Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Stand-in fused scores for a card and two tokens: the card near, the first token at ``tm_token`` and
    ``near_token``, the second at ``tm_other`` and ``near_other``; ``among`` as `Deck.scores`."""
    def scores(self: Deck, crops: np.ndarray, among: np.ndarray | None = None,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(crops)
        near = np.tile(np.array([[0.6, near_token, near_other]], np.float32), (n, 1))
        tm = np.tile(np.array([[0.5, tm_token, tm_other]], np.float32), (n, 1))
        if among is not None:
            near = np.where(among[None, :], near, np.inf).astype(np.float32)
        return near + 1.5 * (1.0 - tm), tm, near
    return scores


def _card_and_two_tokens() -> Deck:
    return Deck("bigtop", "t", ("card-a", "token-1", "token-2"), np.zeros((3, 2), np.float32),
                np.arange(3, dtype=np.int32), np.zeros(2, np.float32), np.eye(2, dtype=np.float32), 1.0, 0.9,
                (40, 56), templates=np.zeros((3, 56, 40, 3), np.uint8), template_owners=np.arange(3, dtype=np.int32))


@pytest.mark.parametrize(("tm_token", "near_token", "tm_other", "near_other"), [
    (0.45, 1.45, 0.1, 2.2),  # far ahead of the other token (clear ratio), the embedding blurred past its bound
    (0.45, 1.2, 0.43, 1.25),  # a hair ahead, told apart by colour, correlating under `MIN_TEMPLATE`
])
def test_a_blurred_token_is_named_among_the_tokens_when_its_shape_is_known(
        monkeypatch: pytest.MonkeyPatch, tm_token: float, near_token: float, tm_other: float, near_other: float,
) -> None:
    monkeypatch.setattr(Deck, "scores", _blurred_token_scores(tm_token, near_token, tm_other, near_other))
    monkeypatch.setattr(ColourCue, "distances", lambda self, crops, candidates=None: np.tile(
        np.array([[0.9, 0.2, 0.6]], np.float32), (len(crops), 1)))
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    deck = _card_and_two_tokens()
    crops = np.zeros((1, 56, 40, 3), np.uint8)
    tokens = ["token-1", "token-2"]
    assert deck.classify_among(crops, tokens)[0].verdict is Verdict.UNSURE
    assert deck.classify_among(crops, tokens, shape_known=True)[0].verdict is Verdict.IDENTIFIED
    assert deck.classify_among(crops, tokens, shape_known=True)[0].label == "token-1"


@pytest.mark.parametrize(("tm_token", "near_token"), [
    (0.38, 1.45),  # correlating as a card's crop read among the tokens does
    (0.45, 1.7),  # the embedding past `KIND_BOUND`
])
def test_a_disc_unlike_every_token_stays_unsure_when_its_shape_is_known(
        monkeypatch: pytest.MonkeyPatch, tm_token: float, near_token: float) -> None:
    monkeypatch.setattr(Deck, "scores", _blurred_token_scores(tm_token, near_token, 0.1, 2.6))
    monkeypatch.setattr(ColourCue, "distances", lambda self, crops, candidates=None: np.tile(
        np.array([[0.9, 0.2, 0.6]], np.float32), (len(crops), 1)))
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    deck = _card_and_two_tokens()
    crops = np.zeros((1, 56, 40, 3), np.uint8)
    assert deck.classify_among(crops, ["token-1", "token-2"], shape_known=True)[0].verdict is Verdict.UNSURE


def test_scores_among_some_labels_put_the_others_infinitely_far(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.enroll.describe", _centroid)
    deck = _two_label_deck()
    deck.templates, deck.template_owners = np.zeros((2, 56, 40, 3), np.uint8), np.array([0, 1], np.int32)
    fused, _, near = deck.scores(_blob_crops([0.0]), np.array([False, True]))
    assert np.isinf(fused[0, 0]) and np.isinf(near[0, 0]) and np.isfinite(fused[0, 1])


def _one_ahead(tm: float, near: float) -> object:
    """Stand-in fused scores: "blue" ahead of "green" (ratio about 0.8), at template correlation ``tm`` and
    embedding distance ``near`` (over the bound); "green" far off on both."""
    def scores(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(crops)
        near_ = np.tile(np.array([[near, 1.46]], np.float32), (n, 1))
        tm_ = np.tile(np.array([[tm, 0.31]], np.float32), (n, 1))
        return near_ + 1.5 * (1.0 - tm_), tm_, near_

    return scores


def test_a_match_just_within_both_the_template_and_the_embedding_test_is_unsure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))  # no second look
    deck = _ring_deck(("blue", "green"), [(200, 120, 40), (60, 170, 90)])
    blue = _cast(_ring((200, 120, 40), 48), (1.1, 0.9, 1.0), 0.8)[None]
    # a neighbouring pip count: a little over MIN_TEMPLATE and just within the embedding's bound, with the
    # colours of its suit (the colour cue has no rival to tell it from): not sure
    monkeypatch.setattr(Deck, "scores", _one_ahead(0.527, 1.279))
    assert deck.classify(blue)[0].verdict is Verdict.UNSURE
    # room to spare on either test: read
    monkeypatch.setattr(Deck, "scores", _one_ahead(0.6, 1.279))
    assert deck.classify(blue)[0].label == "blue"
    monkeypatch.setattr(Deck, "scores", _one_ahead(0.527, 1.1))
    assert deck.classify(blue)[0].label == "blue"


def _templates_ahead(tm: tuple[float, float, float], near: tuple[float, float, float]) -> object:
    """Stand-in fused scores for labels "blue", "green" and "red": template correlations ``tm``, embedding distances
    ``near`` (over the bound)."""
    def scores(self: Deck, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(crops)
        near_ = np.tile(np.array([near], np.float32), (n, 1))
        tm_ = np.tile(np.array([tm], np.float32), (n, 1))
        return near_ + 1.5 * (1.0 - tm_), tm_, near_

    return scores


def test_the_templates_alone_name_a_face_whose_embedding_lies_far(monkeypatch: pytest.MonkeyPatch) -> None:
    deck = _ring_deck(("blue", "green", "red"), [(200, 120, 40), (60, 170, 90), (50, 50, 200)])
    blue = _cast(_ring((200, 120, 40), 48), (1.1, 0.9, 1.0), 0.8)[None]
    # blue correlates well and far ahead of the rest, but the embedding lies past every bound: `classify` is unsure
    monkeypatch.setattr(Deck, "scores", _templates_ahead((0.8, 0.65, 0.3), (2.4, 2.3, 2.5)))
    assert deck.classify(blue)[0].verdict is Verdict.UNSURE
    assert deck.named_by_templates(blue) == ["blue"]
    # a lead under TEMPLATE_LEAD, a correlation under STRONG_TEMPLATE, or an embedding pointing at another label
    # (nearest by the fused distance): nothing named
    for tm, near in [((0.8, 0.7, 0.3), (2.4, 2.3, 2.5)), ((0.68, 0.5, 0.3), (2.4, 2.3, 2.5)),
                     ((0.8, 0.65, 0.3), (2.4, 1.9, 2.5))]:
        monkeypatch.setattr(Deck, "scores", _templates_ahead(tm, near))
        assert deck.named_by_templates(blue) == [None]
    # a crop with no print (FUSED_FLAT) is named by nothing
    monkeypatch.setattr(Deck, "scores", _templates_ahead((0.8, 0.65, 0.3), (2.4, 2.3, 2.5)))
    deck.detail = float(detail(blue)[0]) / (0.5 * FUSED_FLAT)
    assert deck.named_by_templates(blue) == [None]


def test_decks_are_described_by_the_embedder_they_were_enrolled_with() -> None:
    # every deck enrolled so far records this digest (the Big Top classifier before card face print 2); a retrained
    # component classifier must not change it, or every family's deck is refused until enrolled again
    assert default_embedder().digest == "36e6ec3960a83ab7"
    assert models.path("enroll_embedder.onnx").read_bytes() != models.path("bigtop_components.onnx").read_bytes()


@pytest.mark.parametrize(("own", "rival", "named"), [
    (0.45, 0.75, True),  # the disc's colours blurred past `COLOUR_MAX`, still within `KIND_COLOUR_MAX`, rival far
    (0.55, 0.85, False),  # past `KIND_COLOUR_MAX` too
    (0.45, 0.6, False),  # the rival token's colours as near as `COLOUR_MARGIN`
])
def test_a_blurred_tokens_colours_may_lie_farther_when_its_shape_is_known(
        monkeypatch: pytest.MonkeyPatch, own: float, rival: float, named: bool) -> None:
    monkeypatch.setattr(Deck, "scores", _blurred_token_scores(0.45, 1.2, 0.43, 1.25))
    monkeypatch.setattr(ColourCue, "distances", lambda self, crops, candidates=None: np.tile(
        np.array([[0.9, own, rival]], np.float32), (len(crops), 1)))
    monkeypatch.setattr("vision.enroll.FUSED_SEARCH_GATE", (0.0, 2.0))
    deck = _card_and_two_tokens()
    crops = np.zeros((1, 56, 40, 3), np.uint8)
    tokens = ["token-1", "token-2"]
    assert deck.classify_among(crops, tokens)[0].verdict is Verdict.UNSURE  # a crop of unknown shape: `COLOUR_MAX`
    got = deck.classify_among(crops, tokens, shape_known=True)[0]
    assert (got.label == "token-1") if named else (got.verdict is Verdict.UNSURE)
