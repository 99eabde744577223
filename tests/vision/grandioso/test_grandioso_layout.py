"""The printed Grandioso table: card codes far apart, places clear of markers, faces that read back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.grandioso.pyramid import ROWS, Card
from vision.grandioso.faces import render_back, render_card, render_mat
from vision.grandioso.layout import BACK_ID, CARD, CARD_IDS, COLUMNS, MAT, ROW_PITCH, code_centre


def _bits(marker_id: int) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return np.asarray(d.getBitsFromByteList(d.bytesList[marker_id:marker_id + 1], 4))


def test_every_code_differs_from_every_other_in_five_bits_in_every_turn() -> None:
    ids = list(CARD_IDS.values()) + [BACK_ID] + list(MAT.marker_ids)
    assert len(set(ids)) == len(ids)
    worst = min(int((_bits(a) != np.rot90(_bits(b), k)).sum())
                for a in ids for b in ids if a != b for k in range(4))
    assert worst >= 5


def test_code_shows_below_the_card_above() -> None:
    # a card of the next row covers the upper half; the code lies wholly in the lower half
    x, y = code_centre(2, 0)
    card = MAT.card_rect(2, 0)
    above = MAT.card_rect(3, -1)
    assert above.y + above.h <= y - 12 - 2 and y + 12 <= card.y + card.h - CARD.margin
    assert ROW_PITCH == CARD.height / 2


def test_places_stay_clear_of_markers_stack_and_singles() -> None:
    markers = [MAT.marker_corners(i) for i in range(len(MAT.marker_ids))]
    for row in range(ROWS):
        for col in COLUMNS:
            if not MAT.in_place(row, col):
                continue
            r = MAT.card_rect(row, col)
            assert 0 <= r.x and r.x + r.w <= MAT.width and r.y + r.h < MAT.singles.y
            for m in markers:
                (x0, y0), (x1, y1) = m[0], m[2]
                assert r.x + r.w <= x0 or r.x >= x1 or r.y + r.h <= y0 or r.y >= y1
            assert MAT.row_col_at(*code_centre(row, col)) == (row, col, 0.0, 0.0)


@pytest.mark.parametrize("card", list(Card))
def test_each_face_carries_its_own_code(card: Card) -> None:
    img, _ = render_card(card, 6.0)
    corners, ids, _ = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(0)).detectMarkers(img)
    assert ids is not None and ids.ravel().tolist() == [CARD_IDS[card]]
    assert corners[0][0][:, 1].min() > img.shape[0] / 2  # in the lower half


def test_the_back_carries_the_back_code() -> None:
    img, _ = render_back(6.0)
    _, ids, _ = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(0)).detectMarkers(img)
    assert ids is not None and ids.ravel().tolist() == [BACK_ID]


def test_the_start_spots_words_lie_inside_the_spot_the_start_elephant_covers() -> None:
    """Printed in the spot's colour and wholly inside it: legible on the mat, and under the card once it is laid."""
    s = 4.0
    mat = render_mat(s).astype(np.int16)
    spot_colour = np.array([120, 200, 240], np.int16)
    ys, xs = np.nonzero(np.abs(mat - spot_colour).max(axis=2) < 30)
    spot = MAT.card_rect(0, 0)
    assert len(xs) > 0
    assert xs.min() >= (spot.x - 2) * s and xs.max() <= (spot.x + spot.w + 2) * s
    assert ys.min() >= (spot.y - 2) * s and ys.max() <= (spot.y + spot.h + 2) * s
    inside = (xs > (spot.x + 3) * s) & (xs < (spot.x + spot.w - 3) * s) & (ys > (spot.y + 3) * s) & (ys < (spot.y + spot.h - 3) * s)
    assert inside.sum() > 100, "the words are printed inside the spot"
