"""True-size printable A4 sheets of every Big Top component, as one PDF or one PNG per page.

Pages: the 52 card faces (9 per page), card backs, gate-receipt token faces
and backs (backs mirrored for double-sided printing), one Organizing Chart
per seat, and the play mat cut into 2 x 2 tiles. Every page carries a 100 mm
check line: print at 100 % ("actual size") and measure it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image as PILImage

from scorer.bigtop.cards import DECK
from vision.bigtop.faces import Image, render_card, render_card_back, render_chart, render_mat, render_token, render_token_back
from vision.bigtop.labels import TOKEN_VALUES
from vision.bigtop.layout import CARD, CHART, MAT, MAX_SEATS, TOKEN

__all__ = ["A4", "Page", "bigtop_pages", "iter_bigtop_pages", "png_page_path", "write_pdf", "write_pngs"]

#: A4 portrait in millimetres
A4 = (210.0, 297.0)


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


def _cut_marks(page: Image, x: float, y: float, w: float, h: float, s: float) -> None:
    grey = (170, 170, 170)
    t = max(1, int(0.15 * s))
    for cx in (x, x + w):
        for cy in (y, y + h):
            dx = -1 if cx == x else 1
            dy = -1 if cy == y else 1
            p = (int(cx * s), int(cy * s))
            cv2.line(page, (p[0] + int(dx * 1 * s), p[1]), (p[0] + int(dx * 4 * s), p[1]), grey, t)
            cv2.line(page, (p[0], p[1] + int(dy * 1 * s)), (p[0], p[1] + int(dy * 4 * s)), grey, t)


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
        _check_line(page, s, 10, 290, title)
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


def _pil(page: Page) -> PILImage.Image:
    return PILImage.fromarray(np.ascontiguousarray(page.image[:, :, ::-1]))


def write_pdf(path: Path, dpi: float = 200.0) -> int:
    """Write all Big Top sheets to one PDF at true size, page by page; returns the page count.

    Each page is drawn, JPEG-compressed into the file and dropped before the next is drawn,
    so that memory holds one page at a time whatever the page count.

    :raises OSError: when the file cannot be written.
    """
    with open(path, "wb") as fh:
        writer = _PdfWriter(fh, "Ringside Big Top printable components")
        for page in iter_bigtop_pages(dpi):
            writer.add_page(page.image, dpi)
        writer.finish()
    return writer.pages


class _PdfWriter:
    """A PDF of full-page JPEG images, written as it goes (objects 1 and 2 are the catalog and page tree)."""

    def __init__(self, fh: BinaryIO, title: str) -> None:
        self.fh = fh
        self.offsets: dict[int, int] = {}
        self.kids: list[int] = []
        self.next_id = 3
        self.title = title
        fh.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")

    @property
    def pages(self) -> int:
        """Pages written so far."""
        return len(self.kids)

    def _object(self, number: int, body: bytes, stream: bytes | None = None) -> None:
        self.offsets[number] = self.fh.tell()
        self.fh.write(b"%d 0 obj\n" % number + body)
        if stream is not None:
            self.fh.write(b"\nstream\n" + stream + b"\nendstream")
        self.fh.write(b"\nendobj\n")

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def add_page(self, bgr: Image, dpi: float) -> None:
        """Append one page: a BGR image filling a page of its size at ``dpi``."""
        height, width = bgr.shape[:2]
        buffer = io.BytesIO()
        PILImage.fromarray(np.ascontiguousarray(bgr[:, :, ::-1])).save(buffer, "JPEG", quality=75)
        jpeg = buffer.getvalue()
        del buffer
        w_pt, h_pt = width * 72.0 / dpi, height * 72.0 / dpi
        image, content, page = self._new_id(), self._new_id(), self._new_id()
        self._object(image, b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                            b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>" % (width, height, len(jpeg)), jpeg)
        draw = b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q" % (w_pt, h_pt)
        self._object(content, b"<< /Length %d >>" % len(draw), draw)
        self._object(page, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 %.2f %.2f ] "
                           b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                           % (w_pt, h_pt, image, content))
        self.kids.append(page)

    def finish(self) -> None:
        """Write the page tree, catalog, document information and cross-reference table."""
        kids = b" ".join(b"%d 0 R" % k for k in self.kids)
        self._object(2, b"<< /Type /Pages /Kids [ %s ] /Count %d >>" % (kids, len(self.kids)))
        self._object(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        info = self._new_id()
        title = self.title.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
        self._object(info, b"<< /Title (%s) /Producer (Ringside) >>" % title)
        xref = self.fh.tell()
        count = self.next_id
        self.fh.write(b"xref\n0 %d\n0000000000 65535 f \n" % count)
        for number in range(1, count):
            self.fh.write(b"%010d 00000 n \n" % self.offsets[number])
        self.fh.write(b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
                      % (count, info, xref))


def png_page_path(path: Path, number: int) -> Path:
    """The file of page ``number`` (from 1) when ``path`` names PNG output: ``sheets.png`` -> ``sheets-01.png``."""
    return path.with_name(f"{path.stem}-{number:02d}{path.suffix}")


def write_pngs(path: Path, dpi: float = 200.0) -> list[Path]:
    """Write each Big Top sheet as its own PNG (`png_page_path`), page by page; returns the files.

    The pages carry their resolution, so that they print at true size.

    :raises OSError: when a file cannot be written.
    """
    files = []
    for number, page in enumerate(iter_bigtop_pages(dpi), start=1):
        target = png_page_path(path, number)
        _pil(page).save(target, "PNG", dpi=(dpi, dpi))
        files.append(target)
    return files
