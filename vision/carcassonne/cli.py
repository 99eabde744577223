"""Carcassonne's part of ``ringside recognize`` (dispatched by `vision.cli`): a photo of a board, no markers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.geometry import Image

__all__ = ["recognize"]


def recognize(frame: Image, model: Path | None, annotate: bool,
              classifier: Any = None) -> tuple[dict[str, Any], str, Image | None]:
    """Every tile's cell, type, rotation and confidence: as JSON, in words, and (when asked) the annotated photo.

    ``classifier``: an enrolled deck (`vision.enroll.Deck`) that names the tiles where it is sure
    (`vision.carcassonne.classifier.DeckTileClassifier`).

    :raises VisionError: when no board can be found or the model cannot be loaded.
    """
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier
    from vision.carcassonne.recognize import annotate as draw
    from vision.carcassonne.recognize import recognize as read_board

    tiles = TileClassifier(model or DEFAULT_MODEL)
    reading = read_board(frame, tiles if classifier is None else DeckTileClassifier(classifier, tiles))
    return reading.to_json(), reading.describe(), draw(frame, reading) if annotate else None
