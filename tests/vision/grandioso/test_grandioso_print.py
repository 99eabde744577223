"""``ringside print grandioso``: every card of the box, backs, the Show Master, the mat in tiles, true size."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from scorer.grandioso.pyramid import BOX
from vision.cli import cmd_print
from vision.grandioso.printing import BACK_COPIES, CARDS_PER_PAGE, deck_faces, grandioso_pages


def test_the_deck_is_the_box_with_one_start_elephant() -> None:
    faces = deck_faces()
    assert len(faces) == sum(BOX.values()) == 63
    assert sum(1 for _, start in faces if start) == 1
    for card, count in BOX.items():
        assert sum(1 for c, _ in faces if c is card) == count


def test_pages_are_a4_at_the_asked_resolution() -> None:
    pages = grandioso_pages(72.0)
    titles = [p.title for p in pages]
    assert len([t for t in titles if t.startswith("cards")]) == 4
    assert "card backs" in titles and "Show Master and overview" in titles
    assert len([t for t in titles if t.startswith("mat")]) == 12
    for p in pages:
        h, w = p.image.shape[:2]
        assert sorted((w, h)) == [round(210 / 25.4 * 72), round(297 / 25.4 * 72)]


def test_print_writes_png_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_print(["grandioso", "--out", str(tmp_path / "g.png"), "--dpi", "72"]) == 0
    files = sorted(tmp_path.glob("g-*.png"))
    assert len(files) == 18 and "18 A4 pages" in capsys.readouterr().out
    with Image.open(files[0]) as im:
        assert round(im.info["dpi"][0]) == 72


def test_the_backs_sheet_printed_as_often_as_it_says_backs_every_card() -> None:
    assert (BACK_COPIES - 1) * CARDS_PER_PAGE < sum(BOX.values()) <= BACK_COPIES * CARDS_PER_PAGE


def test_no_page_prints_into_its_right_margin() -> None:
    """Every title ends on the page: the last 3 mm of each page stay blank (a printer's unprintable edge)."""
    s = 72.0 / 25.4
    for p in grandioso_pages(72.0):
        edge = p.image[:, -int(3 * s):]
        assert int(edge.min()) > 200, p.title
