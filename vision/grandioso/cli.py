"""Circus Grandioso's part of ``ringside print`` and ``ringside recognize`` (dispatched by `vision.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.geometry import Image

__all__ = ["print_sheets", "recognize"]


def print_sheets(out: Path, dpi: float) -> str:
    """Write the Grandioso sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    :raises OSError: when a file cannot be written.
    """
    from vision.grandioso.printing import write_pdf, write_pngs
    from vision.sheets import write_sheets

    return write_sheets(out, dpi, write_pdf, write_pngs)


def recognize(frame: Image, model: Path | None, annotate: bool,
              classifier: Any = None) -> tuple[dict[str, Any], str, Image | None]:
    """What the camera sees in ``frame``: the view as JSON, in words, and (when asked) the annotated frame.

    ``model`` is not used: the cards carry codes, read without a trained model. ``classifier``:
    an enrolled deck that names a card lying on a place whose code cannot be read.

    :raises VisionError: when the mat cannot be found.
    """
    from vision.grandioso.pipeline import Recognizer
    from vision.grandioso.pipeline import annotate as draw

    result = Recognizer(classifier=classifier).recognize(frame)
    return result.view.to_json(), result.view.describe(), draw(frame, result) if annotate else None
