"""Faces, labels, markers and printable sheets."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.bigtop.cards import DECK, Card
from vision.bigtop import CONFIG as CFG
from vision.bigtop.faces import render_aruco, render_card, render_chart, render_label, render_mat
from vision.bigtop.labels import LABELS, NONE, Kind, kind_of
from vision.bigtop.layout import CARD, MAT, chart_marker_ids, seat_of_marker
from vision.calibrate import find_markers


def test_labels_cover_the_deck_backs_and_tokens() -> None:
    assert len(set(LABELS)) == len(LABELS) == 59
    assert [Card.parse(lab) for lab in LABELS[:52]] == list(DECK)
    assert {kind_of(lab) for lab in LABELS} == {Kind.CARD, Kind.TOKEN, Kind.NONE}
    with pytest.raises(ValueError):
        kind_of("Unknown")


@pytest.mark.parametrize("label", [lab for lab in LABELS if lab != NONE])
def test_every_face_renders_at_true_size(label: str) -> None:
    img, alpha = render_label(label, 4.0)
    assert img.dtype == np.uint8 and alpha.shape == img.shape[:2]
    if kind_of(label) is Kind.CARD:
        assert img.shape[:2] == (round(CARD.height * 4), round(CARD.width * 4))


def test_faces_are_distinct() -> None:
    small = [cv2.resize(render_label(lab, 2.0)[0], (20, 30)).astype(int) for lab in LABELS[:53]]
    for i in range(len(small)):
        for j in range(i + 1, len(small)):
            assert np.abs(small[i] - small[j]).mean() > 1.0, (LABELS[i], LABELS[j])


def test_light_and_dark_numbers_differ_by_shade() -> None:
    light, _ = render_card(Card.parse("animals-L4"), 4.0)
    dark, _ = render_card(Card.parse("animals-D4"), 4.0)
    h = light.shape[0]
    band = slice(int(h * 0.15), int(h * 0.42))
    assert light[band].mean() > dark[band].mean() + 20


@pytest.mark.parametrize("marker_id", [0, 3, 7, 15])
def test_marker_round_trip_under_perspective(marker_id: int) -> None:
    canvas = np.full((400, 400), 255, np.uint8)
    canvas[100:300, 100:300] = render_aruco(marker_id, 200)
    src = np.float32([[0, 0], [400, 0], [400, 400], [0, 400]])
    dst = np.float32([[40, 20], [380, 60], [350, 390], [10, 330]])
    H = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(canvas, H, (400, 400), borderValue=255)
    found = find_markers(warped, CFG)
    assert [m.id for m in found] == [marker_id]
    expected = cv2.perspectiveTransform(np.float32([[[100, 100], [300, 100], [300, 300], [100, 300]]]), H)[0]
    assert np.abs(found[0].corners - expected).max() < 2.0


def test_mat_and_chart_carry_their_markers() -> None:
    ids = sorted(m.id for m in find_markers(cv2.cvtColor(render_mat(2.0), cv2.COLOR_BGR2GRAY), CFG))
    assert ids == list(MAT.marker_ids)
    chart = cv2.cvtColor(render_chart(4, 2.0), cv2.COLOR_BGR2GRAY)
    assert sorted(m.id for m in find_markers(chart, CFG)) == list(chart_marker_ids(4))
    assert seat_of_marker(chart_marker_ids(4)[1]) == (4, 1)
    assert seat_of_marker(MAT.marker_ids[0]) is None


def test_print_writes_true_size_a4_pdf(tmp_path: Path) -> None:
    from vision.bigtop.printing import bigtop_pages
    from vision.cli import cmd_print

    out = tmp_path / "bigtop.pdf"
    assert cmd_print(["bigtop", "--out", str(out), "--dpi", "72"]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", data)
    assert len(boxes) == 19
    for w, h in boxes:
        dims = sorted((float(w), float(h)))
        assert dims == pytest.approx([595.28, 841.89], abs=1.5)
    # the check line on the first page is 100 mm long at the page's resolution
    dpi = 100.0
    page = bigtop_pages(dpi)[0].image
    row = page[int(round(290 * dpi / 25.4))]
    dark = np.nonzero(row.max(axis=1) < 60)[0]
    length_mm = (dark.max() - dark.min()) * 25.4 / dpi
    assert length_mm > 99 and dark.min() * 25.4 / dpi == pytest.approx(10, abs=0.5)
    inside = dark[dark < int(round(112 * dpi / 25.4))]
    assert (inside.max() - inside.min()) * 25.4 / dpi == pytest.approx(100, abs=0.6)


def test_print_to_an_unwritable_place_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.cli import cmd_print

    assert cmd_print(["bigtop", "--out", str(tmp_path / "no" / "such" / "dir.pdf"), "--dpi", "72"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_print_1_faces_are_drawn_as_they_always_were() -> None:
    import hashlib

    from scorer.bigtop.cards import Suit
    from vision.bigtop.faces import render_unnumbered

    h = hashlib.sha256()
    for card in DECK:
        h.update(render_card(card, 4.0, 1)[0].tobytes())
    for suit in Suit:
        h.update(render_unnumbered(suit, 4.0, 1)[0].tobytes())
    assert h.hexdigest() == "48943c529a9a08d18b7611bd6b38c79447be7edb4c613aa7c16d7fa649227a51"


@pytest.mark.parametrize("label", ["clowns-L3", "animals-D6", "sideshow-P", "performers-D1"])
def test_a_print_2_face_shows_its_numeral_at_the_foot_turned_180_degrees(label: str) -> None:
    from vision.bigtop.layout import CARD_FACE_VERSION, card_numerals

    assert CARD_FACE_VERSION == 2
    img, _ = render_card(Card.parse(label), 6.0)
    f = int(round((CARD.margin + CARD.frame) * 6.0))
    field = img[f:img.shape[0] - f, f:img.shape[1] - f].astype(int)
    fh = field.shape[0]
    (top_c, size), (foot_c, _) = card_numerals()
    top = field[int(fh * (top_c - size / 2)):int(fh * (top_c + size / 2))]
    foot = field[fh - int(fh * (top_c + size / 2)):fh - int(fh * (top_c - size / 2))][::-1, ::-1]
    assert foot_c == pytest.approx(1 - top_c)
    assert np.abs(top - foot).mean() < 2.0  # the same numeral, turned
    # the numeral stands out of the suit's colour in both places
    assert (np.abs(top - top[2, 2]).max(axis=-1) > 40).mean() > 0.1
    # print 1: one numeral, the foot is the suit's colour and the icon's
    old, _ = render_card(Card.parse(label), 6.0, 1)
    assert not np.array_equal(old, img)
