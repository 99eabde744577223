"""Edge twins told apart by an enrolled deck's views (`vision.carcassonne.classifier.DeckTileClassifier`).

Two tiles with the same sides in the same places (a city with or without a pennant, as O and P;
one city across the corner or two caps, as N and I) differ only in a small part of the tile: the
neighbours' sides and the box never tell them apart, and the deck's whole-tile tests find both about
as near. Here only that part is compared: the view of tile ``a`` that matches the cell best (shifted
by up to `SHIFT` of a tile), the view of ``b`` most like it (the same turn), the pixels where those
two views differ most (`MASK_SHARE` of their largest difference, `MASK_BLUR` smoothed) and, there,
which of them the cell is nearer (`twin_score`). The same is done from ``b``'s best view, and the two
readings averaged. A cell that matches neither tile's views (`VIEW_MATCH`), or whose differing part
is blown out by glare (`GLARE`, `GLARE_SHARE`), is not told (0).
"""

from __future__ import annotations

from vision.twins import twin_score

__all__ = ["edge_twins", "twin_score"]


def edge_twins(a: str, b: str) -> bool:
    """True when tiles ``a`` and ``b`` differ but show the same sides in the same places in some turn of ``b``."""
    from scorer.carcassonne.catalog import rotated

    if a == b:
        return False
    sides = rotated(a, 0).edges
    return any(rotated(b, turn).edges == sides for turn in (0, 90, 180, 270))
