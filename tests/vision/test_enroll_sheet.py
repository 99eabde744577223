"""The enrolment sheet: its markers are no game's, the camera finds it, and each space is cut out."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.bigtop.cards import Card
from vision.bigtop.faces import render_card
from vision.bigtop.layout import MAT
from vision.camera_model import photograph
from vision.enroll import ComponentShape, find_component
from vision.enroll_sheet import SPACE_FILL, locate_sheet, render_sheet, sheet_layout, space_crops
from vision.flohcati.layout import is_card_id
from vision.grand_carnival.layout import MARKER_IDS
from vision.grandioso.layout import BACK_ID, CARD_IDS


def test_sheet_markers_are_no_game_component_or_mat_marker() -> None:
    small = sheet_layout(57, 88)
    assert not set(small.marker_ids) & (set(MAT.marker_ids) | set(MARKER_IDS) | set(CARD_IDS.values()) | {BACK_ID})
    flohcati = sheet_layout(57, 88, cv2.aruco.DICT_4X4_100)
    assert not any(is_card_id(i) for i in flohcati.marker_ids)


def test_spaces_fit_the_page_apart_and_clear_of_the_markers() -> None:
    for w, h in ((57, 88), (42, 64), (45, 45)):
        layout = sheet_layout(w, h)
        markers = [layout.marker_corners(i) for i in range(4)]
        for k, r in enumerate(layout.spaces):
            assert r.w >= w + 6 and r.h >= h + 6
            assert 0 < r.x and r.x + r.w < layout.width and 0 < r.y and r.y + r.h < layout.height
            for (x0, y0), _, (x1, y1), _ in markers:
                assert x1 <= r.x or x0 >= r.x + r.w or y1 <= r.y or y0 >= r.y + r.h
            for other in layout.spaces[k + 1:]:
                assert other.x >= r.x + r.w or other.y >= r.y + r.h
    assert len(sheet_layout(45, 45).spaces) > len(sheet_layout(57, 88).spaces)
    with pytest.raises(ValueError, match="does not fit"):
        sheet_layout(150, 250)


def test_camera_finds_the_sheet_and_cuts_out_the_card_on_its_space() -> None:
    layout = sheet_layout(57, 88)
    s = 3.0
    canvas = render_sheet(layout, s, "test").image.astype(np.float32)
    img, alpha = render_card(Card.parse("clowns-L3"), s)
    r = layout.spaces[4]  # space 5
    x, y = int((r.x + 4) * s), int((r.y + 4) * s)
    a = alpha[:, :, None].astype(np.float32) / 255.0
    h, w = img.shape[:2]
    canvas[y:y + h, x:x + w] = canvas[y:y + h, x:x + w] * (1 - a) + img * a
    frame = photograph(canvas, s, (0, 0), (-5, -5, layout.width + 5, layout.height + 5), "medium", seed=3,
                       size=(800, 600), with_hand=False).image
    calibration = locate_sheet(frame, layout)
    assert calibration.markers_seen >= 3
    crops = space_crops(frame, calibration, layout, (4, 5))
    shape = ComponentShape(57.0, 88.0, 4.2)
    assert find_component(crops[5], shape) is not None
    assert find_component(crops[4], shape) is None
    empty = crops[4].reshape(-1, 3).mean(axis=0)
    assert np.all(np.abs(empty - np.array(SPACE_FILL)) < 60)


def test_no_sheet_in_view() -> None:
    from vision import NoMatError

    with pytest.raises(NoMatError):
        locate_sheet(np.full((300, 400, 3), 128, np.uint8), sheet_layout(57, 88))
