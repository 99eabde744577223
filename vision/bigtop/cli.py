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
    from vision.sheets import write_sheets

    return write_sheets(out, dpi, write_pdf, write_pngs)


def recognize(frame: Image, model: Path | None, annotate: bool,
              classifier: Any = None) -> tuple[dict[str, Any], str, Image | None]:
    """What the camera sees in ``frame``: the view as JSON, in words, and (when asked) the annotated frame.

    ``classifier``: reads the cards in place of the model (an enrolled `vision.enroll.Deck`).

    :raises VisionError: when the mat cannot be found or the model cannot be loaded.
    """
    from vision.bigtop import DEFAULT_MODEL
    from vision.bigtop.pipeline import Recognizer
    from vision.bigtop.pipeline import annotate as draw

    recognizer = Recognizer(model or DEFAULT_MODEL, classifier=classifier)
    result = recognizer.recognize(frame)
    return result.view.to_json(), result.view.describe(), draw(frame, result) if annotate else None
