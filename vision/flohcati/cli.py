"""Circus Flohcati's part of ``ringside print`` and ``ringside recognize`` (dispatched by `vision.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.geometry import Image

__all__ = ["print_sheets", "recognize"]


def print_sheets(out: Path, dpi: float) -> str:
    """Write the Circus Flohcati sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    :raises OSError: when a file cannot be written.
    """
    from vision.flohcati.printing import write_pdf, write_pngs
    from vision.sheets import write_sheets

    return write_sheets(out, dpi, write_pdf, write_pngs)


def recognize(frame: Image, model: Path | None, annotate: bool,
              classifier: Any = None) -> tuple[dict[str, Any], str, Image | None]:
    """What the camera sees in ``frame``: the view as JSON, in words, and (when asked) the annotated frame.

    Circus Flohcati reads the codes printed on its cards: it needs no model (``model`` is ignored).
    ``classifier``: an enrolled deck that reads a card whose code square is seen but not decoded.

    :raises VisionError: when the mat cannot be found.
    """
    from vision.flohcati.pipeline import Recognizer
    from vision.flohcati.pipeline import annotate as draw

    result = Recognizer(classifier=classifier).recognize(frame)
    return result.view.to_json(), result.view.describe(), draw(frame, result) if annotate else None
