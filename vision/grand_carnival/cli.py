"""The Grand Carnival's part of ``ringside print``, ``ringside recognize`` and ``ringside score`` from a photo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vision import VisionError
from vision.geometry import Image

__all__ = ["PHOTO_SUFFIXES", "UnreadMarketError", "annotate_scores", "positions_from_photos", "print_sheets",
           "recognize", "seat_name"]

#: The files ``ringside score grand-carnival`` reads as photos (anything else is a position file).
PHOTO_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class UnreadMarketError(VisionError, ValueError):
    """A market board in the photo could not be read completely; the message names the place."""


def print_sheets(out: Path, dpi: float, values: Mapping[str, Any] | None = None, source: str = "") -> str:
    """Write the Grand Carnival sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    ``values``: the whole set of component values to print with (default: the shipped ones);
    ``source``: the user's file they came from, named on the legend and in the line.

    :raises OSError: when a file cannot be written.
    """
    from vision.grand_carnival.printing import write_pdf, write_pngs

    note = "print at actual size and check the 100 mm line; R marks Ringside's decisions (legend on page 1)"
    if values is not None:
        note += f"; printed with the component values of {source} (marked * on the legend)"
    if out.suffix.lower() == ".pdf":
        n = write_pdf(out, dpi, values, source)
        return f"wrote {out}: {n} A4 pages; {note}"
    files = write_pngs(out, dpi, values, source)
    return f"wrote {len(files)} A4 pages, {files[0].name} to {files[-1].name}; {note}"


def recognize(frame: Image, model: Path | None, annotate: bool, classifier: Any = None,
              values: Mapping[str, Any] | None = None, source: str = "") -> tuple[dict[str, Any], str, Image | None]:
    """What the camera sees in ``frame``: every market board's view (and the wagon row's) as JSON, in words,
    and (when asked) annotated.

    ``model`` is not used: the pieces are read by their printed colours, without a trained model.
    ``classifier``: an enrolled deck that names the foundation tiles by their art where it is sure.
    ``values``: the whole set of component values the boards were printed with (default: the
    shipped ones), from the file ``source``.

    :raises VisionError: when no market board can be found, or (a `vision.enroll.DeckError`) when
        the deck was enrolled with other foundation patterns than ``values``' (`check_deck`).
    """
    from scorer.grand_carnival.components import CATALOG, catalog_of
    from vision.grand_carnival.pipeline import Recognizer
    from vision.grand_carnival.pipeline import annotate as draw

    catalog = CATALOG if values is None else catalog_of(values, source or "components")
    if classifier is not None:
        from vision.grand_carnival.decks import check_deck

        check_deck(classifier, catalog, source if values is not None else "")
    result = Recognizer(catalog=catalog, classifier=classifier).recognize(frame)
    data = {"game": "grand-carnival", "boards": [v.to_json() for v in result.views],
            "railyard": None if result.railyard is None else result.railyard.to_json()}
    text = "\n".join([v.describe() for v in result.views]
                     + ([] if result.railyard is None else [result.railyard.describe()]))
    return data, text, draw(frame, result) if annotate else None


def seat_name(seat: int) -> str:
    """The player name a photo's market is scored under: ``seat1`` .. ``seat4``."""
    return f"seat{seat + 1}"


def positions_from_photos(paths: Sequence[Path], catalog: Any = None,
                          annotate: bool = False) -> tuple[dict[str, Any], list[tuple[Image, Any]]]:
    """The scoring position (docs/records.md) of the markets in the photos, seat order.

    Each photo may show one market or several; each market is named by its seat
    (`seat_name`). With ``annotate``, each photo and its recognition result come back
    for `annotate_scores`.

    :raises VisionError: a photo cannot be read or shows no board
        (`UnreadMarketError`: a market with a place that cannot be read; a seat in two photos).
    """
    from scorer.grand_carnival.components import CATALOG
    from vision.grand_carnival.pipeline import Recognizer
    from vision.images import load_image

    recognizer = Recognizer(catalog=catalog if catalog is not None else CATALOG)
    players: dict[int, dict[str, Any]] = {}
    frames: list[tuple[Image, Any]] = []
    for path in paths:
        frame = load_image(path)
        result = recognizer.recognize(frame)
        for view in result.views:
            if view.seat in players:
                raise UnreadMarketError(f"{path}: the market of seat {view.seat + 1} is in two photos")
            try:
                players[view.seat] = view.position(seat_name(view.seat))
            except ValueError as exc:
                raise UnreadMarketError(f"{path}: cannot read the market: {exc}") from None
        if annotate:
            frames.append((frame, result))
    return {"game": "grand-carnival", "players": [players[s] for s in sorted(players)]}, frames


def annotate_scores(frame: Image, result: Any, scores: Mapping[str, Mapping[str, Any]]) -> Image:
    """The photo with what scored marked on each board: its attractions and tickets, every visible
    hammer (an empty parcel, an uncovered site) crossed out, and the board's six scoring lines."""
    import cv2
    import numpy as np

    from vision.grand_carnival.layout import BOARD
    from vision.grand_carnival.pipeline import annotate

    out = annotate(frame, result)
    unit = max(1, out.shape[1] // 640)
    for view, pose in zip(result.views, result.poses):
        lines = scores.get(seat_name(view.seat))
        if lines is None:
            continue

        def to_image(x: float, y: float, where: Any = pose) -> tuple[int, int]:
            p = where.to_image(np.array([[x, y]], np.float64))[0]
            return int(p[0]), int(p[1])

        text = "".join(view.market)
        covered = 0
        for _, mask, _ in view.attractions:
            covered |= mask
        for parcel in range(16):
            row, col = divmod(parcel, 4)
            cell = row * 16 + col * 2
            x, y, f, _ = BOARD.field_rect(cell)
            if text[cell] == ".":
                a, b = to_image(x + f - 4, y + f - 4), to_image(x + f + 4, y + f + 4)
                cv2.line(out, a, b, (0, 0, 255), 2 * unit)
        for cell in range(64):
            if text[cell] in "sG" and not covered >> cell & 1:
                x, y, f, _ = BOARD.field_rect(cell)
                a, b = to_image(x + 2, y + 2), to_image(x + 9, y + 9)
                cv2.line(out, a, b, (0, 0, 255), 2 * unit)
        summary = (f"sets {lines['sets']} variety {lines['variety']} tent {lines['tent']} tickets {lines['tickets']} "
                   f"barkers {lines['barkers']} hammers {lines['hammers']} = {lines['total']}")
        # The line runs under the board and no wider than it, so that a neighbouring board's line or the
        # photo's edge never cuts it off.
        left, right = to_image(4, BOARD.height + 6), to_image(BOARD.width - 4, BOARD.height + 6)
        room = max(1.0, float(np.hypot(right[0] - left[0], right[1] - left[1])))
        font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.45 * unit
        (width, _), _ = cv2.getTextSize(summary, font, scale, 3 * unit)
        scale *= min(1.0, room / width)
        (width, height), base = cv2.getTextSize(summary, font, scale, 3 * unit)
        x = min(max(0, left[0]), max(0, out.shape[1] - width))
        y = min(max(height + 2, left[1]), out.shape[0] - base - 2)
        cv2.putText(out, summary, (x, y), font, scale, (0, 0, 0), 3 * unit, cv2.LINE_AA)
        cv2.putText(out, summary, (x, y), font, scale, (255, 255, 255), unit, cv2.LINE_AA)
    return out
