"""True-size printable A4 sheets of every Circus Grandioso component, as one PDF or one PNG per page.

Pages: the 63 card faces (16 per page: the start Elephant, the other nine
Elephants, every other animal with its row and count, the eight clowns), card
backs (print four copies), the Show Master and the pyramid overview, and the
play mat cut into 4 x 3 tiles with overlap marks. Every page carries a 100 mm
check line: print at 100 % ("actual size") and measure it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2

from scorer.grandioso.pyramid import BOX, Card
from vision.grandioso.faces import render_back, render_card, render_mat, render_overview, render_show_master
from vision.grandioso.layout import CARD, MAT
from vision.sheets import A4, Page, blank_page, check_line, paste, png_page_path, write_pdf_pages, write_png_pages

__all__ = ["A4", "BACK_COPIES", "CARDS_PER_PAGE", "Page", "grandioso_pages", "png_page_path", "write_pdf", "write_pngs"]

#: The mat is printed in this many tiles across and down.
MAT_TILES = (4, 3)
#: Card faces (and backs) on one sheet, and how many copies of the backs' sheet give every card a back.
CARDS_PER_PAGE = 16
BACK_COPIES = -(-sum(BOX.values()) // CARDS_PER_PAGE)


def deck_faces() -> list[tuple[Card, bool]]:
    """Every card of the box as ``(card, is_start)``: the start Elephant first, then by row, clowns last."""
    faces: list[tuple[Card, bool]] = [(Card.ELEPHANT, True)]
    for card, count in BOX.items():
        faces += [(card, False)] * (count - (1 if card is Card.ELEPHANT else 0))
    return faces


def _card_pages(s: float) -> Iterator[Page]:
    gap = 4.0
    cols = 4
    x0 = (A4[0] - cols * CARD.width - (cols - 1) * gap) / 2
    faces = deck_faces()
    per = CARDS_PER_PAGE
    for p in range(0, len(faces), per):
        page = blank_page(False, s)
        for k, (card, start) in enumerate(faces[p:p + per]):
            img, alpha = render_card(card, s, start)
            paste(page, img, x0 + (k % cols) * (CARD.width + gap), 10 + (k // cols) * (CARD.height + gap), s, alpha)
        title = f"cards {p + 1}-{min(p + per, len(faces))} of {len(faces)}"
        check_line(page, s, 10, 290, title)
        yield Page(title, page)
    page = blank_page(False, s)
    img, alpha = render_back(s)
    for k in range(per):
        paste(page, img, x0 + (k % cols) * (CARD.width + gap), 10 + (k // cols) * (CARD.height + gap), s, alpha)
    check_line(page, s, 10, 290, f"card backs (print {BACK_COPIES} copies)")
    yield Page("card backs", page)


def _extras_page(s: float) -> Page:
    page = blank_page(False, s)
    img, alpha = render_show_master(s)
    paste(page, img, (A4[0] - 50) / 2, 15, s, alpha)
    paste(page, render_overview(s), (A4[0] - 180) / 2, 80, s)
    check_line(page, s, 10, 290, "Show Master and pyramid overview")
    return Page("Show Master and overview", page)


def _mat_pages(s: float) -> Iterator[Page]:
    nx, ny = MAT_TILES
    tw, th = MAT.width / nx, MAT.height / ny
    for row in range(ny):
        for col in range(nx):
            page = blank_page(True, s)
            region = (col * tw, row * th, (col + 1) * tw, (row + 1) * th)
            x, y = (A4[1] - tw) / 2, 14.0
            paste(page, render_mat(s, region), x, y, s)
            cv2.rectangle(page, (int(x * s), int(y * s)), (int((x + tw) * s), int((y + th) * s)), (170, 170, 170),
                          max(1, int(0.15 * s)))
            title = f"play mat tile row {row + 1} column {col + 1} (cut on the grey line, butt the tiles)"
            check_line(page, s, 10, 7, title)
            yield Page(f"mat {row + 1}-{col + 1}", page)


def iter_grandioso_pages(dpi: float = 200.0) -> Iterator[Page]:
    """Every printable sheet at ``dpi``, one at a time."""
    s = dpi / 25.4
    yield from _card_pages(s)
    yield _extras_page(s)
    yield from _mat_pages(s)


def grandioso_pages(dpi: float = 200.0) -> list[Page]:
    """Every printable sheet at ``dpi`` (all in memory)."""
    return list(iter_grandioso_pages(dpi))


def write_pdf(path: Path, dpi: float = 200.0) -> int:
    """Write all sheets to one PDF at true size, one page at a time; returns the page count.

    :raises OSError: when the file cannot be written.
    """
    return write_pdf_pages(path, iter_grandioso_pages(dpi), dpi, "Ringside Circus Grandioso printable components")


def write_pngs(path: Path, dpi: float = 200.0) -> list[Path]:
    """Write each sheet as its own PNG (`png_page_path`) carrying its resolution; returns the files.

    :raises OSError: when a file cannot be written.
    """
    return write_png_pages(path, iter_grandioso_pages(dpi), dpi)
