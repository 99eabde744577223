"""Circus Flohcati's print-and-play sheets: true-size A4 pages of every card, the backs and the mat.

Pages: the 89 cards nine to a page (the 80 fleas, then the three action
cards three times each), a page of nine backs (print it ten times, or on
the other side), and the 600 x 570 mm mat in A4 tiles with
cutting marks and a page label ("mat A1" ... ; tape them together in
order). Every page has a 100 mm check line: print at actual size.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image

from scorer.flohcati.cards import DECK
from vision.flohcati.faces import draw_back, draw_card, draw_mat
from vision.flohcati.layout import CARD, MAT

__all__ = ["A4", "BACK_COPIES", "CARDS_PER_PAGE", "pages", "write_pdf", "write_pngs"]

#: A4 portrait (mm).
A4 = (210.0, 297.0)
_MARGIN = 10.0
_GAP = 4.0
#: Cards (and backs) on one sheet, and how many copies of the backs' sheet give every card a back.
CARDS_PER_PAGE = 9
BACK_COPIES = -(-len(DECK) // CARDS_PER_PAGE)


def _page(dpi: float, landscape: bool = False) -> NDArray[np.uint8]:
    w, h = (A4[1], A4[0]) if landscape else A4
    s = dpi / 25.4
    return np.full((int(round(h * s)), int(round(w * s)), 3), 255, np.uint8)


def _label(page: NDArray[np.uint8], text: str, s: float) -> None:
    h = page.shape[0]
    y = int(h - 5 * s)
    cv2.line(page, (int(_MARGIN * s), y), (int((_MARGIN + 100) * s), y), (0, 0, 0), max(1, int(0.3 * s)))
    cv2.putText(page, f"100 mm   {text}", (int((_MARGIN + 104) * s), y + int(1.2 * s)), cv2.FONT_HERSHEY_SIMPLEX,
                0.11 * s, (0, 0, 0), max(1, int(0.2 * s)), cv2.LINE_AA)


def pages(dpi: float) -> list[NDArray[np.uint8]]:
    """Every sheet as a BGR image at ``dpi``."""
    s = dpi / 25.4
    out: list[NDArray[np.uint8]] = []
    faces = [draw_card(c, s) for c in DECK]
    back = draw_back(s)
    per = CARDS_PER_PAGE
    groups = [faces[i:i + per] for i in range(0, len(faces), per)] + [[back] * per]
    for n, group in enumerate(groups):
        page = _page(dpi)
        for k, img in enumerate(group):
            col, row = k % 3, k // 3
            x = int(round((_MARGIN + col * (CARD.width + _GAP)) * s))
            y = int(round((_MARGIN + row * (CARD.height + _GAP)) * s))
            page[y:y + img.shape[0], x:x + img.shape[1]] = img
        last = n == len(groups) - 1
        _label(page, f"card backs (print {BACK_COPIES} copies)" if last else f"cards {n + 1}/{len(groups) - 1}", s)
        out.append(page)
    mat = draw_mat(s)
    tile_w, tile_h = A4[1] - 2 * _MARGIN, A4[0] - 2 * _MARGIN - 8
    cols = int(np.ceil(MAT.width / tile_w))
    rows = int(np.ceil(MAT.height / tile_h))
    for r in range(rows):
        for c in range(cols):
            page = _page(dpi, landscape=True)
            x0, y0 = int(round(c * tile_w * s)), int(round(r * tile_h * s))
            piece = mat[y0:y0 + int(round(tile_h * s)), x0:x0 + int(round(tile_w * s))]
            m = int(round(_MARGIN * s))
            page[m:m + piece.shape[0], m:m + piece.shape[1]] = piece
            cv2.rectangle(page, (m, m), (m + piece.shape[1], m + piece.shape[0]), (160, 160, 160), 1)
            _label(page, f"mat {chr(ord('A') + r)}{c + 1}: cut on the grey line, tape row by row", s)
            out.append(page)
    return out


def _pil(page: NDArray[np.uint8], dpi: float) -> Image.Image:
    return Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB))


def write_pdf(out: Path, dpi: float) -> int:
    """Write every sheet into one PDF; the number of pages.

    :raises OSError: when the file cannot be written.
    """
    images = [_pil(p, dpi) for p in pages(dpi)]
    images[0].save(out, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return len(images)


def write_pngs(out: Path, dpi: float) -> list[Path]:
    """Write one PNG per sheet: ``out`` with ``-01``, ``-02``... before the suffix; the files.

    :raises OSError: when a file cannot be written.
    """
    files = []
    for n, page in enumerate(pages(dpi), 1):
        path = out.with_name(f"{out.stem}-{n:02d}{out.suffix or '.png'}")
        _pil(page, dpi).save(path, dpi=(dpi, dpi))
        files.append(path)
    return files
