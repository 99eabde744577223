"""Circus Flohcati's layout, art, sheets and recogniser, on rendered scenes and through the independent camera model."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.flohcati import DECK, Action, Colour, parse_card
from vision import NoMatError
from vision.camera_model import photograph
from vision.flohcati.cli import print_sheets, recognize
from vision.flohcati.faces import draw_card
from vision.flohcati.layout import MAT, Area, card_id, card_of_id, is_card_id, request_slot, row_slot, seat_slot, zone_of
from vision.flohcati.pipeline import Recognizer
from vision.flohcati.scene import REGION, TableLayout, render


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
