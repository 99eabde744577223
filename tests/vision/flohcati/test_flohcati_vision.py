"""Circus Flohcati's layout, art, sheets and recogniser, on rendered scenes and through the independent camera model."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.flohcati import DECK, Action, Colour, parse_card
from vision import NoMatError
from vision.camera_model import LEVELS, photograph
from vision.codematch import mat_markers_by_matching
from vision.flohcati.cli import print_sheets, recognize
from vision.flohcati.faces import draw_card, draw_mat
from vision.flohcati.layout import (
    CODE_CENTRE,
    CODE_SIZE,
    FAN_STEP,
    MAT,
    Area,
    action_slot,
    card_id,
    card_of_id,
    is_card_id,
    request_slot,
    row_slot,
    seat_slot,
    zone_of,
)
from vision.flohcati.pipeline import CONFIG, Recognizer, match_code
from vision.flohcati.printing import BACK_COPIES, CARDS_PER_PAGE
from vision.flohcati.scene import REGION, TableLayout, placements, render


def fleas(text: str) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_card(t) for t in text.split())


LAYOUT = TableLayout(
    row=fleas("red-3 blue-5 green-0 grey-7 pink-2"),
    lane=(Action.NEW, Action.TAKE, Action.NEW),
    request=(Colour.BLUE, False),
    zones=(fleas("red-1 blue-1 green-1"), fleas("grey-2 yellow-3 yellow-4"), (), fleas("brown-7")),
)


def test_every_card_has_its_own_code_apart_from_the_mat_markers() -> None:
    ids = {card_id(c) for c in DECK}
    assert len(ids) == 83  # 80 fleas and 3 kinds of action card
    assert not ids & set(MAT.marker_ids)
    assert all(is_card_id(i) and card_id(card_of_id(i)) == i for i in ids)


def test_slots_lie_in_their_zones() -> None:
    code = 16.0
    assert zone_of(row_slot(0)[0] + code, row_slot(0)[1] + code) == (Area.ROW, None)
    assert zone_of(row_slot(15)[0] + code, row_slot(15)[1] + code) == (Area.ROW, None)
    for seat in range(4):
        for k in (0, 17):
            x, y = seat_slot(seat, k)
            assert zone_of(x + code, y + code) == (Area.SEAT, seat)
    x, y = request_slot(Colour.GREY)
    assert zone_of(x + code, y + code) == (Area.REQUEST, None)


def test_a_card_face_carries_a_readable_code() -> None:
    face = draw_card(parse_card("teal-6"), 4.0)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100))
    _, ids, _ = detector.detectMarkers(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY))
    assert ids is not None and list(ids.ravel()) == [card_id(parse_card("teal-6"))]


def test_print_writes_the_sheets(tmp_path: Path) -> None:
    line = print_sheets(tmp_path / "flohcati.pdf", 72)
    assert "A4 pages" in line and (tmp_path / "flohcati.pdf").stat().st_size > 10_000


def test_nothing_is_printed_within_3_mm_of_a_mat_marker() -> None:
    """The markers' white quiet zone stays clear (the request strip's words once ran into the top right one's)."""
    s = 3.0
    mat = draw_mat(s).min(axis=2)
    yy, xx = np.mgrid[0:mat.shape[0], 0:mat.shape[1]] / s
    clear, side = 3.0, MAT.marker_size
    for k in range(len(MAT.marker_ids)):
        (x, y), *_ = MAT.marker_corners(k)
        near = (xx > x - clear) & (xx < x + side + clear) & (yy > y - clear) & (yy < y + side + clear)
        on = (xx > x - 0.5) & (xx < x + side + 0.5) & (yy > y - 0.5) & (yy < y + side + 0.5)
        assert mat[near & ~on].min() >= 250, MAT.marker_ids[k]


def test_the_backs_sheet_printed_as_often_as_it_says_backs_every_card() -> None:
    assert (BACK_COPIES - 1) * CARDS_PER_PAGE < len(DECK) <= BACK_COPIES * CARDS_PER_PAGE


@pytest.fixture(scope="module")
def canvas() -> tuple[np.ndarray, tuple[float, float]]:  # type: ignore[type-arg]
    return render(LAYOUT, 2.5)


def test_the_recogniser_reads_a_clean_scene(canvas: tuple) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3)
    assert not photo.hand_mask.any()
    view = Recognizer().recognize(photo.image).view
    assert view.sight(4) == LAYOUT.sight(4)
    assert [c.card for c in view.in_area(Area.ROW)] == list(LAYOUT.row)


def test_a_request_card_turned_sideways_means_nobody(canvas: tuple) -> None:  # type: ignore[type-arg]
    layout = TableLayout(request=(Colour.PINK, True), zones=((), ()))
    image, origin = render(layout, 2.5)
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3)
    assert Recognizer().recognize(photo.image).view.sight(2).request == (Colour.PINK, True)


@pytest.mark.parametrize("level, seed", [("medium", 11), ("hard", 12)])
def test_through_the_camera_model_no_card_is_ever_read_wrong(canvas: tuple, level: str, seed: int) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, level, seed=seed)
    try:
        view = Recognizer().recognize(photo.image).view
    except NoMatError:
        return
    truth = set(LAYOUT.row) | set(LAYOUT.lane) | {Action.REQUEST} | {c for z in LAYOUT.zones for c in z}
    assert {c.card for c in view.cards} <= truth


def test_recognize_cli_reports_json_and_words(canvas: tuple) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3)
    data, text, annotated = recognize(photo.image, None, True)
    assert data["row"] == ["red-3", "blue-5", "green-0", "grey-7", "pink-2"]
    assert "row: red-3" in text and annotated is not None


def test_no_mat_in_view_is_an_error() -> None:
    with pytest.raises(NoMatError):
        Recognizer().recognize(np.full((480, 640, 3), 128, np.uint8))


def test_codes_smeared_by_blur_are_read_by_matching_at_the_pis_frame_size(canvas: tuple) -> None:  # type: ignore[type-arg]
    # at 2304x1296 the camera model's blur is larger against a code than at 1280x960: this much smears
    # the action lane's and the seat zones' codes past the detector, so they were held as unrecognised
    image, origin = canvas
    level = dataclasses.replace(LEVELS["easy"], name="blurred", defocus_px=(2.4, 2.4), motion_px=(4.0, 4.0),
                                hand_probability=0.0, glare_spots=(0, 0), tilt_deg=(0.0, 0.0), roll_deg=0.0, roll_any=0.0)
    photo = photograph(image, 2.5, origin, REGION, level, seed=1, size=(2304, 1296))
    view = Recognizer().recognize(photo.image).view
    assert view.sight(4) == LAYOUT.sight(4)


def _code_frame(marker_id: int | None, turn: int = 0, glare: bool = False) -> np.ndarray:  # type: ignore[type-arg]
    """A grey frame at 2 px/mm (table mm = pixels / 2) with one blurred card code centred on (60, 60) mm."""
    frame = np.full((240, 240), 200, np.uint8)
    side = int(CODE_SIZE * 2)
    if marker_id is None:
        code = np.zeros((side, side), np.uint8)
        code[side // 6:-side // 6, side // 6:-side // 6] = 200  # a dark square frame, no cells
    else:
        code = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100), marker_id, side)
        code = np.where(code > 0, 200, 30).astype(np.uint8)
    code = np.rot90(code, -turn)
    frame[120 - side // 2:120 + side // 2, 120 - side // 2:120 + side // 2] = code
    frame = cv2.GaussianBlur(frame, (0, 0), 5.0)
    if glare:
        cv2.circle(frame, (108, 108), 12, 255, -1)
    return frame


HALF = np.diag([0.5, 0.5, 1.0])  # image px -> table mm


@pytest.mark.parametrize("card", ["teal-6", "red-0", "take-attraction"])
def test_a_blurred_code_is_matched_to_its_card(card: str) -> None:
    marker_id = card_id(parse_card(card))
    frame = _code_frame(marker_id)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100))
    assert detector.detectMarkers(frame)[1] is None  # the detector cannot read it
    match = match_code(frame, HALF, 60.0, 60.0, 2.0)
    assert match.id == marker_id and abs(match.turn) < 45.0


def test_matching_names_no_card_where_no_code_lies_or_glare_hides_cells_or_the_turn_is_wrong() -> None:
    assert match_code(_code_frame(None), HALF, 60.0, 60.0, 0.0).id is None
    teal = card_id(parse_card("teal-6"))
    assert match_code(_code_frame(teal, glare=True), HALF, 60.0, 60.0, 0.0).id is None
    assert match_code(_code_frame(teal, turn=2), HALF, 60.0, 60.0, 0.0).id is None
    sideways = match_code(_code_frame(teal, turn=1), HALF, 60.0, 60.0, 0.0, allowed=(0, 1))
    assert sideways.id == teal and abs(sideways.turn - 90.0) < 45.0


def test_a_code_glare_washes_out_is_read_with_the_light_evened_out() -> None:
    teal = card_id(parse_card("teal-6"))
    frame = np.full((240, 240), 200, np.uint8)
    side = int(CODE_SIZE * 2)
    code = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100), teal, side)
    frame[120 - side // 2:120 + side // 2, 120 - side // 2:120 + side // 2] = np.where(code > 0, 200, 30)
    yy, xx = np.mgrid[0:240, 0:240]
    light = 200.0 * np.exp(-((xx - 100) ** 2 + (yy - 100) ** 2) / (2 * 20.0 ** 2))
    washed = np.clip(cv2.GaussianBlur(frame, (0, 0), 2.0) * 0.5 + light + 30, 0, 255).astype(np.uint8)
    assert np.mean(washed >= 250) > 0.01  # glare saturates part of it: matched as it is, it is refused
    assert match_code(washed, HALF, 60.0, 60.0, 0.0).id == teal


@pytest.mark.parametrize(("marker_id", "turn"), [(2, 0), (2, 1), (0, 3)])
def test_a_blurred_mat_marker_is_matched_with_its_corners_in_order(marker_id: int, turn: int) -> None:
    frame = np.full((400, 400), 200, np.uint8)
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100), marker_id, 60)
    frame[170:230, 170:230] = np.rot90(np.where(marker > 0, 200, 30).astype(np.uint8), -turn)
    frame = cv2.GaussianBlur(frame, (0, 0), 6.0)
    assert cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)).detectMarkers(frame)[1] is None
    found = mat_markers_by_matching(frame, CONFIG)
    assert [m.id for m in found] == [marker_id]
    top_left = [(170, 170), (230, 170), (230, 230), (170, 230)][turn]  # where the turn took the marker's own corner
    assert np.allclose(found[0].corners[0], top_left, atol=4.0)


def test_a_blurred_card_code_is_never_taken_for_a_mat_marker() -> None:
    frame = np.full((400, 400), 200, np.uint8)
    code = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100), 50, 60)
    frame[170:230, 170:230] = np.where(code > 0, 200, 30).astype(np.uint8)
    assert mat_markers_by_matching(cv2.GaussianBlur(frame, (0, 0), 6.0), CONFIG) == ()


def test_glare_over_an_action_card_is_asked_about_and_glare_on_bare_places_is_not(canvas: tuple) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    level = dataclasses.replace(LEVELS["easy"], name="still", hand_probability=0.0, glare_spots=(0, 0),
                                exposure=(0.8, 0.8))
    photo = photograph(image, 2.5, origin, REGION, level, seed=3)
    slots = [(x + CODE_CENTRE[0], y + CODE_CENTRE[1]) for x, y in (action_slot(k) for k in range(4))]
    glared = photo.image.copy()
    empty_seat = seat_slot(2, 0)  # seat 3's zone is empty
    # the lane's middle card; the bare lane past its last card; an empty seat zone
    for x, y in (slots[1], slots[3], (empty_seat[0] + CODE_CENTRE[0], empty_seat[1] + CODE_CENTRE[1])):
        (px, py), = photo.to_image(np.array([[x, y]]))
        radius = int(np.hypot(*(photo.to_image(np.array([[x + 0.7 * CODE_SIZE, y]])) - (px, py))[0]))
        cv2.circle(glared, (int(px), int(py)), radius, (255, 255, 255), -1)
    view = Recognizer().recognize(glared).view
    assert [(c.card, round(c.x / FAN_STEP)) for c in view.in_area(Area.ACTIONS)] == \
        [(Action.NEW, round(slots[0][0] / FAN_STEP)), (Action.NEW, round(slots[2][0] / FAN_STEP))]
    assert [(round(x), round(y)) for x, y, _ in view.unreadable] == [(round(slots[1][0]), round(slots[1][1]))]
    assert view.sight(4).unrecognised


STILL = dataclasses.replace(LEVELS["easy"], name="still", hand_probability=0.0, glare_spots=(0, 0), exposure=(0.8, 0.8))


def _glare_over_codes(layout: TableLayout, places: list[tuple[float, float]]) -> np.ndarray:  # type: ignore[type-arg]
    """A still photo of ``layout`` with a saturated disc over the code place centred on each table point."""
    image, origin = render(layout, 2.5)
    photo = photograph(image, 2.5, origin, REGION, STILL, seed=3)
    glared = photo.image.copy()
    for x, y in places:
        (px, py), = photo.to_image(np.array([[x, y]]))
        radius = int(np.hypot(*(photo.to_image(np.array([[x + 0.7 * CODE_SIZE, y]])) - (px, py))[0]))
        cv2.circle(glared, (int(px), int(py)), radius, (255, 255, 255), -1)
    return glared


def _code_place(top_left: tuple[float, float]) -> tuple[float, float]:
    return top_left[0] + CODE_CENTRE[0], top_left[1] + CODE_CENTRE[1]


def test_glare_over_the_last_card_of_the_lane_and_of_the_row_is_asked_about_where_its_face_shows() -> None:
    # no later card shows that the lane or the row goes on: the face below the code does
    last_action, last_flea = _code_place(action_slot(2)), _code_place(row_slot(4))
    view = Recognizer().recognize(_glare_over_codes(LAYOUT, [last_action, last_flea])).view
    assert [c.card for c in view.in_area(Area.ACTIONS)] == [Action.NEW, Action.TAKE]
    assert [c.card for c in view.in_area(Area.ROW)] == list(LAYOUT.row[:4])
    assert sorted((round(x), round(y)) for x, y, _ in view.unreadable) == \
        sorted((round(x), round(y)) for x, y in (last_action, last_flea))


def test_glare_over_a_rows_only_card_on_a_first_frame_is_asked_about() -> None:
    layout = TableLayout(row=fleas("yellow-2"), zones=((), ()))
    view = Recognizer().recognize(_glare_over_codes(layout, [_code_place(row_slot(0))])).view
    assert not view.cards and [t for _, _, t in view.unreadable] == ["A card in the row could not be read (glare?)."]


def test_a_rows_only_card_whose_codes_frame_glare_washes_out_is_asked_about() -> None:
    # a camera-model photo (hard, 1280x960) where a glare spot clips the top-left of the lone row card's code
    # (about an eighth of its place) and washes out the rest of it, its frame's left bar included
    new, take, ask = Action.NEW, Action.TAKE, Action.REQUEST
    layout = TableLayout(row=fleas("teal-4"), lane=(new, take, ask, take, new, ask, take, new), zones=((), (), ()))
    seed = 973_500_006
    image, origin = render(placements(layout, seed), 3.0)
    view = Recognizer().recognize(photograph(image, 3.0, origin, REGION, "hard", seed, size=(1280, 960)).image).view
    assert not view.in_area(Area.ROW)
    assert [(round(x / FAN_STEP), t) for x, y, t in view.unreadable if zone_of(x, y)[0] is Area.ROW] == \
        [(round(_code_place(row_slot(0))[0] / FAN_STEP), "A card in the row could not be read (glare?).")]


def test_glare_over_a_rows_only_card_and_the_bare_mat_beside_the_row_is_asked_about() -> None:
    # nothing is read: the paper's level is taken from bare mat, and glare saturates the piece beside the row too
    beside_row = (26.0, 207.0)
    layout = TableLayout(row=fleas("yellow-2"), zones=((), ()))
    view = Recognizer().recognize(_glare_over_codes(layout, [_code_place(row_slot(0)), beside_row])).view
    assert not view.cards and [t for _, _, t in view.unreadable] == ["A card in the row could not be read (glare?)."]
    bare = Recognizer().recognize(_glare_over_codes(TableLayout(zones=((), ())), [_code_place(row_slot(0)), beside_row])).view
    assert not bare.cards and not bare.unreadable


def test_a_rows_only_card_under_glare_that_also_saturates_the_mat_beside_the_row_is_asked_about() -> None:
    # a camera-model photo (hard, 1280x960) with no other card: the glare spot over the lone row card's code
    # saturates the bare mat left of the row as well
    layout = TableLayout(row=fleas("teal-4"), zones=((), (), ()))
    seed = 973_500_006
    image, origin = render(placements(layout, seed), 3.0)
    view = Recognizer().recognize(photograph(image, 3.0, origin, REGION, "hard", seed, size=(1280, 960)).image).view
    assert not view.cards
    assert [(round(x / FAN_STEP), t) for x, y, t in view.unreadable] == \
        [(round(_code_place(row_slot(0))[0] / FAN_STEP), "A card in the row could not be read (glare?).")]


def test_glare_over_the_request_card_is_asked_about_and_over_the_bare_strip_is_not() -> None:
    on_blue = _code_place(request_slot(Colour.BLUE))
    for request in ((Colour.BLUE, False), (Colour.BLUE, True)):
        view = Recognizer().recognize(_glare_over_codes(TableLayout(request=request, zones=((), ())), [on_blue])).view
        assert not view.cards
        assert [(round(x), round(y), t) for x, y, t in view.unreadable] == \
            [(round(on_blue[0]), round(on_blue[1]), "A card on the request strip could not be read (glare?).")]
    bare = Recognizer().recognize(_glare_over_codes(TableLayout(zones=((), ())), [on_blue])).view
    assert not bare.cards and not bare.unreadable


def test_glare_over_the_last_action_cards_face_and_most_of_its_code_is_asked_about_by_its_codes_frame() -> None:
    # the card's face is white with glare; only the left bar of its code's black frame shows
    image, origin = render(LAYOUT, 2.5)
    photo = photograph(image, 2.5, origin, REGION, STILL, seed=3)
    left, top = action_slot(2)
    glared = photo.image.copy()
    box = photo.to_image(np.array([[left + 9.5, top - 6.0], [left + 75.0, top - 6.0], [left + 75.0, top + 95.0],
                                   [left + 9.5, top + 95.0]]))
    cv2.fillConvexPoly(glared, box.astype(np.int32), (255, 255, 255))
    view = Recognizer().recognize(glared).view
    assert [c.card for c in view.in_area(Area.ACTIONS)] == [Action.NEW, Action.TAKE]
    assert [(round(x), round(y)) for x, y, _ in view.unreadable] == [(round(left + CODE_CENTRE[0]), round(top + CODE_CENTRE[1]))]


def test_a_last_row_card_whose_code_the_detector_misses_without_glare_is_asked_about_by_its_codes_frame() -> None:
    # all of the code but the left bar of its frame painted over with the card's own paper (as heavy blur
    # leaves a code the detector finds no square in): no glare explains it, the frame shows a card lies there
    image, origin = render(LAYOUT, 2.5)
    photo = photograph(image, 2.5, origin, REGION, STILL, seed=3)
    left, top = row_slot(4)
    (px, py), = photo.to_image(np.array([[left + 40.0, top + 40.0]]))
    paper = photo.image[int(py), int(px)].tolist()
    painted = photo.image.copy()
    box = photo.to_image(np.array([[left + 8.5, top + 1.0], [left + 31.0, top + 1.0], [left + 31.0, top + 31.0],
                                   [left + 8.5, top + 31.0]]))
    cv2.fillConvexPoly(painted, box.astype(np.int32), paper)
    view = Recognizer().recognize(painted).view
    assert [c.card for c in view.in_area(Area.ROW)] == list(LAYOUT.row[:4])
    assert [(round(x), round(y), t) for x, y, t in view.unreadable] == \
        [(round(left + CODE_CENTRE[0]), round(top + CODE_CENTRE[1]), "A card in the row could not be read.")]


def _reading(recognizer: Recognizer, frame: np.ndarray) -> tuple:  # type: ignore[type-arg]
    """The view as JSON, the cards' code centres (mm, in card order) and the image-to-table homography."""
    result = recognizer.recognize(frame)
    assert result.image_to_table is not None
    cards = sorted((str(c.card), c.x, c.y) for c in result.view.cards)
    return result.view.to_json(), np.array([c[1:] for c in cards]), result.image_to_table


def _alike(a: tuple, b: tuple) -> bool:  # type: ignore[type-arg]
    """The same view, the cards within 0.05 mm and the same homography (within 0.05 mm at the mat's corners)."""
    w, h = MAT.width, MAT.height
    corners = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64)
    to_a = cv2.perspectiveTransform(corners, np.linalg.inv(a[2]))
    return bool(a[0] == b[0] and a[1].shape == b[1].shape and np.abs(a[1] - b[1]).max() < 0.05
                and np.abs(cv2.perspectiveTransform(to_a, b[2]) - corners).max() < 0.05)


def test_a_still_tables_next_frame_keeps_the_mats_markers_and_reads_as_a_fresh_recogniser(canvas: tuple) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    frame = photograph(image, 2.5, origin, REGION, "medium", seed=5).image
    live = Recognizer()
    first = _reading(live, frame)
    noise = np.random.default_rng(1).integers(-1, 2, frame.shape)
    again = np.clip(frame.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    kept = _reading(live, again)
    assert (live.mat_kept, live.codes_kept) == (1, 1)
    assert kept[2] is first[2]
    assert _alike(kept, _reading(Recognizer(), again))


def test_the_mats_markers_are_searched_again_when_the_table_moved(canvas: tuple) -> None:  # type: ignore[type-arg]
    image, origin = canvas
    frame = photograph(image, 2.5, origin, REGION, "easy", seed=3).image
    live = Recognizer()
    live.recognize(frame)
    before = live._mat
    moved = np.ascontiguousarray(np.roll(frame, 3, axis=1))
    live.recognize(moved)
    assert live.mat_kept == 0
    assert all(np.abs(m.corners - b.corners - (3, 0)).max() < 0.5 for m, b in zip(live._mat, before))
    assert live.codes_kept == 0
    live.recognize(frame)
    assert live.mat_kept == 0
    hand = frame.copy()
    marker = live._mat[0].corners  # a hand over one of the mat's markers
    x0, y0 = marker.min(0).astype(int)
    x1, y1 = marker.max(0).astype(int)
    hand[y0:y1, x0:x1] = 90
    live.recognize(hand)
    assert live.mat_kept == 0


def test_a_card_put_down_on_a_still_table_is_searched_for_again() -> None:
    image, origin = render(LAYOUT, 2.5)
    frame = photograph(image, 2.5, origin, REGION, "easy", seed=3).image
    layout = dataclasses.replace(LAYOUT, row=LAYOUT.row + fleas("yellow-6"))
    image, origin = render(layout, 2.5)
    more = photograph(image, 2.5, origin, REGION, "easy", seed=3).image
    live = Recognizer()
    live.recognize(frame)
    seen = _reading(live, more)
    assert (live.mat_kept, live.codes_kept) == (1, 0)
    assert _alike(seen, _reading(Recognizer(), more))
    assert [c.card for c in live.recognize(more).view.in_area(Area.ROW)] == list(layout.row)
    assert (live.mat_kept, live.codes_kept) == (2, 1)


def test_the_darkest_channel_worked_out_where_paper_is_measured_gives_the_whole_frames_level(
        canvas: tuple) -> None:  # type: ignore[type-arg]
    from vision.flohcati.pipeline import FlohcatiView, _darkest_where_paper, _paper_level

    image, origin = canvas
    frame = photograph(image, 2.5, origin, REGION, "medium", seed=3, size=(2304, 1296)).image
    result = Recognizer().recognize(frame)
    darkest = cv2.min(cv2.min(frame[:, :, 0], frame[:, :, 1]), frame[:, :, 2])
    assert result.view.cards
    for view in (result.view, FlohcatiView((), ())):  # the cards' code areas; no card: the bare mat beside the row
        part = _darkest_where_paper(frame, view, result.image_to_table)
        assert _paper_level(part, view, result.image_to_table) == _paper_level(darkest, view, result.image_to_table)


def test_the_card_codes_are_searched_over_the_zones_with_the_smallest_threshold_window_alone(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    # the larger windows cost twice the smallest one's time over the zones: they search only around the places a
    # card may lie whose code the smallest one did not read
    from vision.flohcati import pipeline

    image, origin = canvas
    made: list[tuple[int, int]] = []

    def spy(window: int, min_perimeter: float, one_window: bool = False) -> cv2.aruco.ArucoDetector:
        detector = pipeline._detector(window, min_perimeter, one_window)
        params = detector.getDetectorParameters()
        made.append((params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax))
        return detector

    monkeypatch.setattr(Recognizer, "_detector", lambda self, *args: spy(*args))
    for size in ((1280, 960), (2304, 1296)):
        photo = photograph(image, 2.5, origin, REGION, "easy", seed=3, size=size)
        assert Recognizer().recognize(photo.image).view.sight(4) == LAYOUT.sight(4)
    assert len(made) == 2 and all(low == high for low, high in made)


def test_a_large_frame_whose_one_window_search_leaves_code_squares_undecoded_is_searched_with_every_window(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    from vision.flohcati import pipeline

    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3, size=(2304, 1296))
    made: list[bool] = []

    def spy(window: int, min_perimeter: float, one_window: bool = False) -> cv2.aruco.ArucoDetector:
        made.append(one_window)
        return pipeline._detector(window, min_perimeter, one_window)

    monkeypatch.setattr(Recognizer, "_detector", lambda self, *args: spy(*args))
    monkeypatch.setattr(pipeline, "_SEARCH_AGAIN_SQUARES", 0)  # any undecoded square at all, even none
    assert Recognizer().recognize(photo.image).view.sight(4) == LAYOUT.sight(4)
    assert made == [True, False]


def _code_missed(monkeypatch: pytest.MonkeyPatch, missed: set[str]) -> None:
    """Every search of the zones by the recogniser's own detectors (the search over the whole of them) misses the
    codes of the cards named: neither read nor left as an undecoded square."""
    from vision.flohcati import pipeline

    ids = {card_id(parse_card(name)) for name in missed}

    class Missing:
        def __init__(self, detector: cv2.aruco.ArucoDetector) -> None:
            self.detector = detector

        def detectMarkers(self, image: np.ndarray) -> tuple:  # type: ignore[type-arg]  # noqa: N802
            corners, found, rejected = self.detector.detectMarkers(image)
            keep = [k for k, i in enumerate(() if found is None else found.ravel()) if int(i) not in ids]
            return (tuple(corners[k] for k in keep), None if not keep else found[keep], rejected)

    monkeypatch.setattr(Recognizer, "_detector",
                        lambda self, *args: Missing(pipeline._detector(*args)))


@pytest.mark.parametrize("missed", [{"green-0"}, {"grey-7", "pink-2"}, {"red-3", "blue-5", "green-0", "grey-7", "pink-2"},
                                    {"new-attraction"}, {"request-attraction"}, {"brown-7"}, {"grey-2", "yellow-4"}])
def test_a_code_the_smallest_window_misses_is_read_by_the_larger_ones_where_a_card_may_lie(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch, missed: set[str]) -> None:  # type: ignore[type-arg]
    # a slot between cards read; the slots past the last card read, one by one; a zone with no code read (the row,
    # the last seat's); both copies of an action card (before and after the one read); the request strip; a seat
    # zone's first slot and the one past its last card read
    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3)
    _code_missed(monkeypatch, missed)
    view = Recognizer().recognize(photo.image).view
    assert view.sight(4) == LAYOUT.sight(4) and not view.unreadable
    assert [c.card for c in view.in_area(Area.ROW)] == list(LAYOUT.row)


def test_where_a_place_shows_a_square_no_window_decodes_the_larger_windows_search_every_zone(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    # three codes of the row missed by the smallest window; searched at their places, the first shows a square the
    # larger windows cannot decode either (as a hand or glare over it would) and the other two nothing: the cards
    # past such a square may lie beyond every place, so the larger windows search all the zones
    from vision.flohcati import pipeline

    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3)
    missed = {card_id(parse_card(name)) for name in ("blue-5", "green-0", "grey-7")}
    square = card_id(parse_card("blue-5"))
    made = pipeline._detector

    class Missing:
        def __init__(self, detector: cv2.aruco.ArucoDetector, larger: bool) -> None:
            self.detector, self.larger = detector, larger

        def detectMarkers(self, image: np.ndarray) -> tuple:  # type: ignore[type-arg]  # noqa: N802
            corners, found, rejected = self.detector.detectMarkers(image)
            if self.larger and image.shape[1] > 800:  # the larger windows over all the zones
                return corners, found, rejected
            ids = [] if found is None else [int(i) for i in found.ravel()]
            keep = [k for k, i in enumerate(ids) if i not in missed]
            if self.larger:  # at a place
                rejected = tuple(rejected) + tuple(corners[k] for k, i in enumerate(ids) if i == square)
            return tuple(corners[k] for k in keep), None if not keep else found[keep], rejected

    monkeypatch.setattr(pipeline, "_detector", lambda window, rate, one_window=False, larger=False:
                        Missing(made(window, rate, one_window, larger), larger))
    view = Recognizer().recognize(photo.image).view
    assert [c.card for c in view.in_area(Area.ROW)] == list(LAYOUT.row) and not view.unreadable


def test_the_places_a_card_may_lie_whose_code_was_not_read() -> None:
    from vision.flohcati.pipeline import _PLACE_SLACK, _places_to_look

    def code(corner: tuple[float, float], dx: float = 0.0) -> tuple[float, float]:
        return corner[0] + CODE_CENTRE[0] + dx, corner[1] + CODE_CENTRE[1]

    def centres(boxes: list[tuple[float, float, float, float]]) -> set[tuple[float, float]]:
        side = CODE_SIZE + 2 * _PLACE_SLACK
        assert all(abs(x1 - x0 - side) < 1e-9 and abs(y1 - y0 - side) < 1e-9 for x0, y0, x1, y1 in boxes[:-1])
        return {(round((x0 + x1) / 2, 1), round((y0 + y1) / 2, 1)) for x0, y0, x1, y1 in boxes}

    def rounded(*points: tuple[float, float]) -> set[tuple[float, float]]:
        return {(round(x, 1), round(y, 1)) for x, y in points}

    strip = MAT.request
    middle = (strip.x + strip.w / 2, strip.y + strip.h / 2)
    empty = rounded(code(row_slot(0)), code(action_slot(0)), *(code(seat_slot(s, 0)) for s in range(4)), middle)
    assert centres(_places_to_look([])) == empty
    # the row's slots 0, 1 and 3 held (one laid 3 mm off): slot 2 and slot 4; a code read on the strip
    read = [code(row_slot(0)), code(row_slot(1), 3.0), code(row_slot(3)), code(request_slot(Colour.RED))]
    assert centres(_places_to_look(read)) == \
        rounded(code(row_slot(2)), code(row_slot(4)), code(action_slot(0)), *(code(seat_slot(s, 0)) for s in range(4)))
    # an undecoded square in a seat zone is a place; one at a code read or off the zones is not
    square = (300.0, 400.0)
    assert centres(_places_to_look(read, [square, read[0], (300.0, 15.0)])) == \
        centres(_places_to_look(read)) | rounded(square)


def test_a_mat_the_one_window_search_fixes_is_completed_around_where_its_missing_markers_lie(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    # the fast search misses the mat; the slow one with one window misses a corner marker but fixes the mat: the
    # corner is searched with every window where it must lie, never over the whole frame
    from vision.flohcati import pipeline

    image, origin = canvas
    frame = photograph(image, 2.5, origin, REGION, "easy", seed=3).image
    searched: list[tuple[bool, bool]] = []
    real = pipeline.find_markers

    def spy(gray: np.ndarray, config: object, *args: object, **kwargs: object) -> tuple:  # type: ignore[type-arg]
        robust, one_window = bool(kwargs.get("robust")), bool(kwargs.get("one_window"))
        searched.append((robust, one_window))
        found = real(gray, config, *args, **kwargs)  # type: ignore[arg-type]
        if not robust:
            return tuple(m for m in found if m.id == 0)
        return tuple(m for m in found if not one_window or m.id not in lost)

    monkeypatch.setattr(pipeline, "find_markers", spy)
    # the frame halved finds no mat marker either: the whole frame is searched
    monkeypatch.setattr(pipeline, "find_markers_reduced", lambda *args, **kwargs: ())
    lost = {3}
    result = Recognizer().recognize(frame)
    assert result.view.sight(4) == LAYOUT.sight(4)
    assert {m.id for m in result.markers} >= {0, 1, 2, 3, 4}
    assert searched == [(False, False), (True, True)]
    # one window that reads only the top edge's markers cannot place the others: every window searches the frame
    searched.clear()
    lost = {2, 3}
    assert Recognizer().recognize(frame).view.sight(4) == LAYOUT.sight(4)
    assert searched == [(False, False), (True, True), (True, False)]


def _row_card_laid_left_under_bright_light(shift: float, row: str = "green-0") -> tuple[np.ndarray, tuple[float, float]]:  # type: ignore[type-arg]
    """A frame of a row whose first card is laid ``shift`` mm left of its slot, bright light just right of that card's
    code (the paper beside its value at the sensor's limit); a second card's code painted over with paper but the
    left bar of its frame (as heavy blur leaves a code the detector finds no square in). And the second slot's
    top-left corner."""
    from vision.flohcati.scene import placements

    layout = TableLayout(row=fleas(row), zones=((), ()))
    first = layout.row[0]
    items = [dataclasses.replace(p, x=p.x - shift) if p.card == first else p for p in placements(layout, jitter=0.0)]
    image, origin = render(items, 2.5)
    photo = photograph(image, 2.5, origin, REGION, STILL, seed=3, size=(2304, 1296))
    left, top = row_slot(1)
    if len(layout.row) > 1:
        (px, py), = photo.to_image(np.array([[left + 40.0, top + 40.0]]))
        paper = photo.image[int(py), int(px)].tolist()
        box = photo.to_image(np.array([[left + 8.5, top + 1.0], [left + 31.0, top + 1.0], [left + 31.0, top + 31.0],
                                       [left + 8.5, top + 31.0]]))
        cv2.fillConvexPoly(photo.image, box.astype(np.int32), paper)
    (px, py), = photo.to_image(np.array([[left + 4.0, top + 16.0]]))
    per_mm = float(np.hypot(*(photo.to_image(np.array([[left + 5.0, top + 16.0]]))[0] - (px, py))))
    yy, xx = np.mgrid[:photo.image.shape[0], :photo.image.shape[1]]
    light = 80.0 * np.exp(-((xx - px) ** 2 + (yy - py) ** 2) / (2 * (7.0 * per_mm) ** 2))
    frame = np.clip(photo.image.astype(np.float64) * 1.02 + light[:, :, None], 0, 255).astype(np.uint8)
    return frame, (left, top)


def test_the_value_of_a_row_card_laid_left_of_its_slot_is_not_taken_for_the_next_cards_code_frame() -> None:
    # the card laid 3.5 mm left brings its value's left edge to where the next slot's code bar is looked for
    frame, _ = _row_card_laid_left_under_bright_light(3.5)
    view = Recognizer().recognize(frame).view
    assert [c.card for c in view.in_area(Area.ROW)] == list(fleas("green-0"))
    assert not view.unreadable


def test_a_code_frame_beside_a_row_card_laid_left_of_its_slot_is_still_asked_about() -> None:
    frame, (left, top) = _row_card_laid_left_under_bright_light(3.5, "green-0 red-4")
    view = Recognizer().recognize(frame).view
    assert [c.card for c in view.in_area(Area.ROW)] == list(fleas("green-0"))
    assert [(round(x), round(y)) for x, y, _ in view.unreadable] == [(round(left + CODE_CENTRE[0]),
                                                                      round(top + CODE_CENTRE[1]))]


def test_cards_glare_hides_before_a_code_frame_past_the_last_card_read_are_asked_about() -> None:
    # the lane's second card: glare over its code and its face; the third: its code painted over with paper but the
    # left bar of its frame. The second place shows nothing, yet the third shows a card: both are asked about
    image, origin = render(LAYOUT, 2.5)
    photo = photograph(image, 2.5, origin, REGION, STILL, seed=3)
    second, third = action_slot(1), action_slot(2)
    frame = photo.image.copy()
    (px, py), = photo.to_image(np.array([[third[0] + 40.0, third[1] + 40.0]]))
    paper = frame[int(py), int(px)].tolist()
    code = photo.to_image(np.array([[third[0] + 8.5, third[1] + 1.0], [third[0] + 31.0, third[1] + 1.0],
                                    [third[0] + 31.0, third[1] + 31.0], [third[0] + 8.5, third[1] + 31.0]]))
    cv2.fillConvexPoly(frame, code.astype(np.int32), paper)
    left, top = second
    for x0, y0, x1, y1 in ((left + 1.0, top - 4.0, left + 33.5, top + 31.0), (left + 31.0, top + 30.0, left + 58.0, top + 80.0)):
        box = photo.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        cv2.fillConvexPoly(frame, box.astype(np.int32), (255, 255, 255))
    view = Recognizer().recognize(frame).view
    assert [c.card for c in view.in_area(Area.ACTIONS)] == [Action.NEW]
    assert sorted((round(x), round(y)) for x, y, _ in view.unreadable) == \
        sorted((round(x + CODE_CENTRE[0]), round(y + CODE_CENTRE[1])) for x, y in (second, third))



class _FastSearchWithoutTheMat:
    """``find_markers`` whose fast search (not ``robust``) finds the cards' codes but none of the mat's markers."""

    def __init__(self, find: object) -> None:
        self.find = find

    def __call__(self, gray: np.ndarray, config: object, *args: object, **kwargs: object) -> tuple:  # type: ignore[type-arg]
        found = self.find(gray, config, *args, **kwargs)  # type: ignore[operator]
        return tuple(found) if kwargs.get("robust") else tuple(m for m in found if is_card_id(m.id))


def test_where_the_fast_search_misses_the_mat_a_1280_frame_halved_is_searched_before_the_whole_frame(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    from vision.flohcati import pipeline

    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3, size=(1280, 960))
    monkeypatch.setattr(pipeline, "find_markers", _FastSearchWithoutTheMat(pipeline.find_markers))

    def whole_frame(*args: object) -> tuple:  # type: ignore[type-arg]
        raise AssertionError("the whole frame's slow search ran")

    monkeypatch.setattr(Recognizer, "_slow_markers", whole_frame)
    view = Recognizer().recognize(photo.image).view
    assert view.sight(4) == LAYOUT.sight(4)


def test_where_the_halved_frame_does_not_fix_the_mat_the_whole_frame_is_searched(
        canvas: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    from vision.flohcati import pipeline

    image, origin = canvas
    photo = photograph(image, 2.5, origin, REGION, "easy", seed=3, size=(1280, 960))
    monkeypatch.setattr(pipeline, "find_markers", _FastSearchWithoutTheMat(pipeline.find_markers))
    monkeypatch.setattr(pipeline, "find_markers_reduced", lambda *args, **kwargs: ())
    searched: list[bool] = []
    slow = Recognizer._slow_markers

    def whole_frame(self: Recognizer, *args: object) -> tuple:  # type: ignore[type-arg]
        searched.append(True)
        return slow(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Recognizer, "_slow_markers", whole_frame)
    assert Recognizer().recognize(photo.image).view.sight(4) == LAYOUT.sight(4)
    assert searched
