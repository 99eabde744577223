"""Big Top's part of ``ringside print`` and ``ringside recognize`` (dispatched by `vision.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.geometry import Image

__all__ = ["print_sheets", "recognize"]


def print_sheets(out: Path, dpi: float) -> str:
    """Write the Big Top sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    :raises OSError: when a file cannot be written.
    """
    from vision.bigtop.printing import write_pdf, write_pngs

    if out.suffix.lower() == ".pdf":
        n = write_pdf(out, dpi)
        return f"wrote {out}: {n} A4 pages; print at actual size and check the 100 mm line"
    files = write_pngs(out, dpi)
    return (f"wrote {len(files)} A4 pages, {files[0].name} to {files[-1].name}; "
            "print at actual size and check the 100 mm line")


def recognize(frame: Image, model: Path | None, annotate: bool) -> tuple[dict[str, Any], str, Image | None]:
    """What the camera sees in ``frame``: the view as JSON, in words, and (when asked) the annotated frame.

    :raises VisionError: when the mat cannot be found or the model cannot be loaded.
    """
    from vision.bigtop import DEFAULT_MODEL
    from vision.bigtop.pipeline import Recognizer
    from vision.bigtop.pipeline import annotate as draw

    recognizer = Recognizer(model or DEFAULT_MODEL)
    result = recognizer.recognize(frame)
    return result.view.to_json(), result.view.describe(), draw(frame, result) if annotate else None
