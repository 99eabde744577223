"""True-size printable A4 sheets of every Big Top component, as one PDF or one PNG per page.

Pages: the 52 card faces (9 per page), card backs, gate-receipt token faces
and backs (backs mirrored for double-sided printing), one Organizing Chart
per seat, and the play mat cut into 2 x 2 tiles. Every page carries a 100 mm
check line: print at 100 % ("actual size") and measure it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2

from scorer.bigtop.cards import DECK
from vision.bigtop.faces import render_card, render_card_back, render_chart, render_mat, render_token, render_token_back
from vision.bigtop.labels import TOKEN_VALUES
from vision.bigtop.layout import CARD, CARD_FACE_VERSION, CHART, MAT, MAX_SEATS, TOKEN
from vision.sheets import (
    A4,
    Page,
    blank_page,
    check_line,
    cut_marks,
    paste,
    png_page_path,
    write_pdf_pages,
    write_png_pages,
)

__all__ = ["A4", "Page", "bigtop_pages", "iter_bigtop_pages", "png_page_path", "write_pdf", "write_pngs"]

_blank, _put, _check_line, _cut_marks = blank_page, paste, check_line, cut_marks


def _card_pages(s: float) -> Iterator[Page]:
    gap = 4.0
    x0 = (A4[0] - 3 * CARD.width - 2 * gap) / 2
    y0 = 10.0
    for p in range(0, len(DECK), 9):
        page = _blank(False, s)
        for k, card in enumerate(DECK[p:p + 9]):
            img, alpha = render_card(card, s)
            x, y = x0 + (k % 3) * (CARD.width + gap), y0 + (k // 3) * (CARD.height + gap)
            _put(page, img, x, y, s, alpha)
            _cut_marks(page, x, y, CARD.width, CARD.height, s)
        title = f"cards {p + 1}-{min(p + 9, len(DECK))}"
        _check_line(page, s, 10, 290, f"{title}  faces V{CARD_FACE_VERSION}")  # which print the cards are
        yield Page(title, page)
    page = _blank(False, s)
    img, alpha = render_card_back(s)
    for k in range(9):
        x, y = x0 + (k % 3) * (CARD.width + gap), y0 + (k // 3) * (CARD.height + gap)
        _put(page, img, x, y, s, alpha)
        _cut_marks(page, x, y, CARD.width, CARD.height, s)
    _check_line(page, s, 10, 290, "card backs (print 6 copies)")
    yield Page("card backs", page)


def _token_pages(s: float) -> Iterator[Page]:
    pitch = TOKEN.diameter + 4
    cols = 4
    x0 = (A4[0] - cols * pitch) / 2
    for backs in (False, True):
        page = _blank(False, s)
        for seat in range(MAX_SEATS):
            for k, v in enumerate(TOKEN_VALUES):
                col = (cols - 1 - k) if backs else k
                img, alpha = render_token_back(s) if backs else render_token(v, s)
                _put(page, img, x0 + col * pitch + 2, 12 + seat * pitch, s, alpha)
        title = "token backs (mirrored for double-sided printing)" if backs else "gate-receipt tokens, 6 sets"
        _check_line(page, s, 10, 290, title)
        yield Page(title, page)


def _chart_pages(s: float) -> Iterator[Page]:
    for seat in range(MAX_SEATS):
        page = _blank(True, s)
        _put(page, render_chart(seat, s), (A4[1] - CHART.width) / 2, 13, s)
        _check_line(page, s, 10, 7, f"Organizing Chart, seat {seat + 1}")
        yield Page(f"chart seat {seat + 1}", page)


def _mat_pages(s: float) -> Iterator[Page]:
    mat = render_mat(s)
    tw, th = MAT.width / 2, MAT.height / 2
    for row in range(2):
        for col in range(2):
            page = _blank(True, s)
            tile = mat[int(row * th * s):int((row + 1) * th * s), int(col * tw * s):int((col + 1) * tw * s)]
            x, y = (A4[1] - tw) / 2, 25.0
            _put(page, tile, x, y, s)
            cv2.rectangle(page, (int(x * s), int(y * s)), (int((x + tw) * s), int((y + th) * s)),
                          (170, 170, 170), max(1, int(0.15 * s)))
            name = f"mat tile {'AB'[row]}{col + 1} of A1 A2 / B1 B2: trim to the grey line and join edge to edge"
            _check_line(page, s, 10, 12, name)
            yield Page(name, page)


def iter_bigtop_pages(dpi: float = 200.0) -> Iterator[Page]:
    """Every Big Top printable sheet at ``dpi``, rendered one at a time as they are asked for."""
    s = dpi / 25.4
    yield from _card_pages(s)
    yield from _token_pages(s)
    yield from _chart_pages(s)
    yield from _mat_pages(s)


def bigtop_pages(dpi: float = 200.0) -> list[Page]:
    """Every Big Top printable sheet at ``dpi`` (all in memory: `iter_bigtop_pages` holds one at a time)."""
    return list(iter_bigtop_pages(dpi))


def write_pdf(path: Path, dpi: float = 200.0) -> int:
    """Write all Big Top sheets to one PDF at true size, page by page; returns the page count.

    Each page is drawn, JPEG-compressed into the file and dropped before the next is drawn,
    so that memory holds one page at a time whatever the page count.

    :raises OSError: when the file cannot be written.
    """
    return write_pdf_pages(path, iter_bigtop_pages(dpi), dpi, "Ringside Big Top printable components")


def write_pngs(path: Path, dpi: float = 200.0) -> list[Path]:
    """Write each Big Top sheet as its own PNG (`png_page_path`), page by page; returns the files.

    The pages carry their resolution, so that they print at true size.

    :raises OSError: when a file cannot be written.
    """
    return write_png_pages(path, iter_bigtop_pages(dpi), dpi)
