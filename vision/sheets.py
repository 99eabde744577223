"""True-size printable A4 sheets, any game: page drawing helpers and the PDF / PNG writers.

A game's printing module yields `Page` values one at a time (an iterator), and
`write_pdf_pages` / `write_png_pages` write them as they come, so memory holds
one page whatever the page count. Drawing works in millimetres with a scale
``s`` in pixels per millimetre (``dpi / 25.4``); every page carries a 100 mm
check line (`check_line`): print at 100 % ("actual size") and measure it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image as PILImage

from vision.geometry import Image

__all__ = [
    "A4",
    "Page",
    "PdfWriter",
    "aruco_image",
    "blank_page",
    "check_line",
    "cut_marks",
    "paste",
    "png_page_path",
    "write_pdf_pages",
    "write_png_pages",
    "write_sheets",
]

#: A4 portrait in millimetres
A4 = (210.0, 297.0)


@dataclass(frozen=True, slots=True)
class Page:
    """One rendered sheet and its title.

    ``badges`` names the components the page marks as provisional (a game's
    own decisions about its components), for the legend and the tests.
    """

    title: str
    image: Image
    badges: tuple[str, ...] = ()


def blank_page(landscape: bool, s: float) -> Image:
    """A white A4 page (BGR) at ``s`` pixels per millimetre."""
    w, h = (A4[1], A4[0]) if landscape else A4
    return np.full((int(round(h * s)), int(round(w * s)), 3), 255, np.uint8)


def paste(page: Image, img: Image, x_mm: float, y_mm: float, s: float, alpha: Image | None = None) -> None:
    """Put ``img`` on ``page`` with its top-left corner at (``x_mm``, ``y_mm``), blended by ``alpha``."""
    x, y = int(round(x_mm * s)), int(round(y_mm * s))
    h, w = img.shape[:2]
    roi = page[y:y + h, x:x + w]
    if alpha is None:
        roi[:] = img
    else:
        a = alpha.astype(np.float32)[:, :, None] / 255.0
        roi[:] = (roi * (1 - a) + img * a).astype(np.uint8)


def check_line(page: Image, s: float, x_mm: float, y_mm: float, title: str) -> None:
    """The 100 mm check line from (``x_mm``, ``y_mm``) to the right, followed by ``title``."""
    x0, x1, y = int(round(x_mm * s)), int(round((x_mm + 100) * s)), int(round(y_mm * s))
    t = max(1, int(0.3 * s))
    cv2.line(page, (x0, y), (x1, y), (0, 0, 0), t)
    for x in (x0, x1):
        cv2.line(page, (x, y - int(2 * s)), (x, y + int(2 * s)), (0, 0, 0), t)
    cv2.putText(page, f"100 mm - print at actual size    {title}", (x1 + int(3 * s), y + int(1.2 * s)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.11 * s, (0, 0, 0), max(1, int(0.15 * s)), cv2.LINE_AA)


def cut_marks(page: Image, x: float, y: float, w: float, h: float, s: float) -> None:
    """Grey corner marks just outside the rectangle (``x``, ``y``, ``w``, ``h``) in millimetres."""
    grey = (170, 170, 170)
    t = max(1, int(0.15 * s))
    for cx in (x, x + w):
        for cy in (y, y + h):
            dx = -1 if cx == x else 1
            dy = -1 if cy == y else 1
            p = (int(cx * s), int(cy * s))
            cv2.line(page, (p[0] + int(dx * 1 * s), p[1]), (p[0] + int(dx * 4 * s), p[1]), grey, t)
            cv2.line(page, (p[0], p[1] + int(dy * 1 * s)), (p[0], p[1] + int(dy * 4 * s)), grey, t)


def aruco_image(marker_id: int, size_px: int, dictionary: int) -> Image:
    """The ArUco marker ``marker_id`` of the OpenCV predefined ``dictionary``, ``size_px`` square, grey."""
    table = cv2.aruco.getPredefinedDictionary(dictionary)
    out: Image = cv2.aruco.generateImageMarker(table, marker_id, size_px)
    return out


class PdfWriter:
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


def write_pdf_pages(path: Path, pages: Iterable[Page], dpi: float, title: str) -> int:
    """Write ``pages`` to one PDF at true size, page by page; returns the page count.

    Each page is JPEG-compressed into the file and dropped before the next is
    drawn (``pages`` should be an iterator), so that memory holds one page at a time.

    :raises OSError: when the file cannot be written.
    """
    with open(path, "wb") as fh:
        writer = PdfWriter(fh, title)
        for page in pages:
            writer.add_page(page.image, dpi)
        writer.finish()
    return writer.pages


def png_page_path(path: Path, number: int) -> Path:
    """The file of page ``number`` (from 1) when ``path`` names PNG output: ``sheets.png`` -> ``sheets-01.png``."""
    return path.with_name(f"{path.stem}-{number:02d}{path.suffix}")


def write_png_pages(path: Path, pages: Iterable[Page], dpi: float) -> list[Path]:
    """Write each page as its own PNG (`png_page_path`), page by page; returns the files.

    The pages carry their resolution, so that they print at true size.

    :raises OSError: when a file cannot be written.
    """
    files = []
    for number, page in enumerate(pages, start=1):
        target = png_page_path(path, number)
        PILImage.fromarray(np.ascontiguousarray(page.image[:, :, ::-1])).save(target, "PNG", dpi=(dpi, dpi))
        files.append(target)
    return files


def write_sheets(out: Path, dpi: float, write_pdf: Callable[[Path, float], int],
                 write_pngs: Callable[[Path, float], list[Path]]) -> str:
    """Write a game's sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    :raises OSError: when a file cannot be written.
    """
    if out.suffix.lower() == ".pdf":
        n = write_pdf(out, dpi)
        return f"wrote {out}: {n} A4 pages; print at actual size and check the 100 mm line"
    files = write_pngs(out, dpi)
    return (f"wrote {len(files)} A4 pages, {files[0].name} to {files[-1].name}; "
            "print at actual size and check the 100 mm line")
