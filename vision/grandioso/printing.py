"""True-size printable A4 sheets of every Circus Grandioso component, as one PDF or one PNG per page.

Pages: the 63 card faces (16 per page: the start Elephant, the other nine
Elephants, every other animal with its row and count, the eight clowns), card
backs (print four copies), the Show Master and the pyramid overview, and the
play mat cut into 4 x 3 tiles with overlap marks. Every page carries a 100 mm
check line: print at 100 % ("actual size") and measure it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image as PILImage

from scorer.grandioso.pyramid import BOX, Card
from vision.geometry import Image
from vision.grandioso.faces import render_back, render_card, render_mat, render_overview, render_show_master
from vision.grandioso.layout import CARD, MAT

__all__ = ["A4", "Page", "grandioso_pages", "png_page_path", "write_pdf", "write_pngs"]

#: A4 portrait in millimetres
A4 = (210.0, 297.0)
#: The mat is printed in this many tiles across and down.
MAT_TILES = (4, 3)


@dataclass(frozen=True, slots=True)
class Page:
    """One rendered sheet and its title."""

    title: str
    image: Image


def _blank(landscape: bool, s: float) -> Image:
    w, h = (A4[1], A4[0]) if landscape else A4
    return np.full((int(round(h * s)), int(round(w * s)), 3), 255, np.uint8)


def _put(page: Image, img: Image, x_mm: float, y_mm: float, s: float, alpha: Image | None = None) -> None:
    x, y = int(round(x_mm * s)), int(round(y_mm * s))
    h, w = img.shape[:2]
    roi = page[y:y + h, x:x + w]
    if alpha is None:
        roi[:] = img
    else:
        a = alpha.astype(np.float32)[:, :, None] / 255.0
        roi[:] = (roi * (1 - a) + img * a).astype(np.uint8)


def _check_line(page: Image, s: float, x_mm: float, y_mm: float, title: str) -> None:
    x0, x1, y = int(round(x_mm * s)), int(round((x_mm + 100) * s)), int(round(y_mm * s))
    t = max(1, int(0.3 * s))
    cv2.line(page, (x0, y), (x1, y), (0, 0, 0), t)
    for x in (x0, x1):
        cv2.line(page, (x, y - int(2 * s)), (x, y + int(2 * s)), (0, 0, 0), t)
    cv2.putText(page, f"100 mm - print at actual size    {title}", (x1 + int(3 * s), y + int(1.2 * s)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.11 * s, (0, 0, 0), max(1, int(0.15 * s)), cv2.LINE_AA)


def deck_faces() -> list[tuple[Card, bool]]:
    """Every card of the box as ``(card, is_start)``: the start Elephant first, then by row, clowns last."""
    faces: list[tuple[Card, bool]] = [(Card.ELEPHANT, True)]
    for card, count in BOX.items():
        faces += [(card, False)] * (count - (1 if card is Card.ELEPHANT else 0))
    return faces


def _card_pages(s: float) -> Iterator[Page]:
    gap = 4.0
    cols, rows = 4, 4
    x0 = (A4[0] - cols * CARD.width - (cols - 1) * gap) / 2
    faces = deck_faces()
    per = cols * rows
    for p in range(0, len(faces), per):
        page = _blank(False, s)
        for k, (card, start) in enumerate(faces[p:p + per]):
            img, alpha = render_card(card, s, start)
            _put(page, img, x0 + (k % cols) * (CARD.width + gap), 10 + (k // cols) * (CARD.height + gap), s, alpha)
        title = f"cards {p + 1}-{min(p + per, len(faces))} of {len(faces)}"
        _check_line(page, s, 10, 290, title)
        yield Page(title, page)
    page = _blank(False, s)
    img, alpha = render_back(s)
    for k in range(per):
        _put(page, img, x0 + (k % cols) * (CARD.width + gap), 10 + (k // cols) * (CARD.height + gap), s, alpha)
    _check_line(page, s, 10, 290, "card backs (print 4 copies, glue or sleeve behind the faces)")
    yield Page("card backs", page)


def _extras_page(s: float) -> Page:
    page = _blank(False, s)
    img, alpha = render_show_master(s)
    _put(page, img, (A4[0] - 50) / 2, 15, s, alpha)
    _put(page, render_overview(s), (A4[0] - 180) / 2, 80, s)
    _check_line(page, s, 10, 290, "Show Master and pyramid overview")
    return Page("Show Master and overview", page)


def _mat_pages(s: float) -> Iterator[Page]:
    nx, ny = MAT_TILES
    tw, th = MAT.width / nx, MAT.height / ny
    for row in range(ny):
        for col in range(nx):
            page = _blank(True, s)
            region = (col * tw, row * th, (col + 1) * tw, (row + 1) * th)
            x, y = (A4[1] - tw) / 2, 14.0
            _put(page, render_mat(s, region), x, y, s)
            cv2.rectangle(page, (int(x * s), int(y * s)), (int((x + tw) * s), int((y + th) * s)), (170, 170, 170),
                          max(1, int(0.15 * s)))
            title = f"play mat tile row {row + 1} column {col + 1} (cut on the grey line, butt the tiles)"
            _check_line(page, s, 10, 7, title)
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


def _pil(page: Page) -> PILImage.Image:
    return PILImage.fromarray(np.ascontiguousarray(page.image[:, :, ::-1]))


def write_pdf(path: Path, dpi: float = 200.0) -> int:
    """Write all sheets to one PDF at true size; returns the page count.

    :raises OSError: when the file cannot be written.
    """
    pages = [_pil(p) for p in iter_grandioso_pages(dpi)]
    pages[0].save(path, "PDF", save_all=True, append_images=pages[1:], resolution=dpi,
                  title="Ringside Circus Grandioso printable components")
    return len(pages)


def png_page_path(path: Path, number: int) -> Path:
    """The file of page ``number`` (from 1): ``sheets.png`` -> ``sheets-01.png``."""
    return path.with_name(f"{path.stem}-{number:02d}{path.suffix}")


def write_pngs(path: Path, dpi: float = 200.0) -> list[Path]:
    """Write each sheet as its own PNG (`png_page_path`) carrying its resolution; returns the files.

    :raises OSError: when a file cannot be written.
    """
    files = []
    for number, page in enumerate(iter_grandioso_pages(dpi), start=1):
        target = png_page_path(path, number)
        _pil(page).save(target, "PNG", dpi=(dpi, dpi))
        files.append(target)
    return files
