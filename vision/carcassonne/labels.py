"""The tile classifier's classes: visually distinct (type, rotation) pairs.

A tile that looks the same turned (B, C, X; U and H turned by a half) has one
class per distinct look; its rotation is reported as the smallest equivalent
one. ``none`` is an empty cell (table, or a sliver of a neighbour).
"""

from __future__ import annotations

from functools import cache

from scorer.carcassonne.catalog import BASE_TILES, BIG_TOP_TILES, rotated

__all__ = ["NONE", "ROTATIONS", "TILE_LABELS", "TILE_NAMES", "canonical_rotation", "equivalent_rotations", "label", "parse_label"]

NONE = "none"
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)
#: Every tile type the classifier knows: the 24 base letters, then the Under the Big Top tiles.
TILE_NAMES: tuple[str, ...] = BASE_TILES + BIG_TOP_TILES


def _shape(name: str, rotation: int) -> tuple[tuple[str, tuple[int, ...], tuple[int, ...], int], ...]:
    r = rotated(name, rotation)
    return tuple(sorted((s.kind.value, s.sides, s.halves, s.pennants) for s in r.segments))


@cache
def equivalent_rotations(name: str, rotation: int) -> tuple[int, ...]:
    """The rotations of ``name`` that give the same features on the same sides as ``rotation``."""
    mine = _shape(name, rotation)
    return tuple(r for r in ROTATIONS if _shape(name, r) == mine)


def canonical_rotation(name: str, rotation: int) -> int:
    """The smallest rotation that looks the same as ``rotation`` for tile ``name``."""
    return equivalent_rotations(name, rotation)[0]


def label(name: str, rotation: int) -> str:
    """The class label of a tile type in a rotation (``"D@90"``)."""
    return f"{name}@{canonical_rotation(name, rotation)}"


def parse_label(text: str) -> tuple[str, int] | None:
    """``"D@90"`` -> ``("D", 90)``; ``none`` -> None."""
    if text == NONE:
        return None
    name, _, rot = text.rpartition("@")
    return name, int(rot)


#: Class labels in model output order: every distinct (type, rotation), then ``none``.
TILE_LABELS: tuple[str, ...] = tuple(
    dict.fromkeys(label(n, r) for n in TILE_NAMES for r in ROTATIONS)
) + (NONE,)
