"""The tile catalog: the 72 base tiles and the 20 Under the Big Top tiles.

Every tile type is written in its catalog orientation (D: city north, road
west-east) as a short list of features. Sides are ``N E S W``; half-edges run
clockwise from the north-west corner: ``NL NR EL ER SL SR WL WR`` (``NL`` is
the west half of the north edge, ``EL`` the north half of the east edge).

A field lists the half-edges it holds and, after ``>``, the cities it touches
(named by one side of each city). ``+`` marks a city with a pennant.

`rotated(name, rotation)` gives the precomputed view of a tile turned
clockwise by 0, 90, 180 or 270 degrees: its edges, its segments and the
segment that holds each side and half-edge.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

__all__ = [
    "BASE_TILES",
    "BIG_TOP_TILES",
    "CATALOG",
    "EXPANSION",
    "HALVES",
    "SIDES",
    "START_TILE",
    "Edge",
    "Kind",
    "Rotated",
    "Segment",
    "Special",
    "TileType",
    "box",
    "rotated",
]

#: The registry name of the Under the Big Top expansion in records.
EXPANSION = "under-the-big-top"
#: The start tile's type.
START_TILE = "D"
#: Side names by index: north, east, south, west.
SIDES: tuple[str, ...] = ("N", "E", "S", "W")
#: Half-edge names by index, clockwise from the north-west corner.
HALVES: tuple[str, ...] = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)


class Edge(enum.Enum):
    """What an edge of a tile shows."""

    CITY = "city"
    ROAD = "road"
    FIELD = "field"


class Kind(enum.Enum):
    """The kinds of feature a figure can stand on (and the circus space)."""

    ROAD = "road"
    CITY = "city"
    FIELD = "field"
    MONASTERY = "monastery"
    CIRCUS = "circus"


class Special(enum.Enum):
    """The centre space of an Under the Big Top tile."""

    NONE = "none"
    CIRCUS = "circus"
    ACROBATS = "acrobats"


@dataclass(frozen=True, slots=True)
class Segment:
    """One feature part on one tile, in some orientation.

    ``sides`` are the side indices a road or city touches, ``halves`` the
    half-edge indices a field holds, ``cities`` the indices (on the same
    tile) of the city segments a field touches.
    """

    kind: Kind
    sides: tuple[int, ...] = ()
    halves: tuple[int, ...] = ()
    pennants: int = 0
    cities: tuple[int, ...] = ()

    @property
    def spot(self) -> str:
        """The canonical spot name in a move ("road:N", "field:EL", "monastery")."""
        if self.kind is Kind.MONASTERY:
            return "monastery"
        if self.kind is Kind.FIELD:
            return f"field:{HALVES[self.halves[0]]}"
        return f"{self.kind.value}:{SIDES[self.sides[0]]}"


@dataclass(frozen=True, slots=True)
class TileType:
    """A tile type in its catalog orientation."""

    name: str
    count: int
    segments: tuple[Segment, ...]
    special: Special = Special.NONE
    expansion: str | None = None


@dataclass(frozen=True, slots=True)
class Rotated:
    """A tile type turned clockwise by ``rotation`` degrees, precomputed."""

    name: str
    rotation: int
    edges: tuple[Edge, Edge, Edge, Edge]
    segments: tuple[Segment, ...]
    #: For each side, the road or city segment on it (-1 for a field edge).
    side_seg: tuple[int, ...]
    #: For each half-edge, the field segment holding it (-1 on a city edge).
    half_seg: tuple[int, ...]
    #: Every spot name that designates a segment (all its sides or halves).
    spots: Mapping[str, int]
    special: Special
    monastery: int


# -- the catalog, written out ------------------------------------------------

_ALL_HALVES = "NL NR EL ER SL SR WL WR"

_BASE: tuple[tuple[str, int, str], ...] = (
    ("A", 2, f"monastery; road S; field {_ALL_HALVES}"),
    ("B", 4, f"monastery; field {_ALL_HALVES}"),
    ("C", 1, "city N E S W +"),
    ("D", 4, "road W E; city N; field EL WR > N; field ER SL SR WL"),
    ("E", 5, "city N; field EL ER SL SR WL WR > N"),
    ("F", 2, "city W E +; field NL NR > W; field SL SR > W"),
    ("G", 1, "city W E; field NL NR > W; field SL SR > W"),
    ("H", 3, "city N; city S; field WL WR EL ER > N S"),
    ("I", 2, "city N; city W; field EL ER SL SR > N W"),
    ("J", 3, "city N; road E S; field EL WL WR SR > N; field ER SL"),
    ("K", 3, "city N; road S W; field WR EL ER SL > N; field WL SR"),
    ("L", 3, "city N; road E; road S; road W; field WR EL > N; field WL SR; field ER SL"),
    ("M", 2, "city N W +; field EL ER SL SR > N"),
    ("N", 3, "city N W; field EL ER SL SR > N"),
    ("O", 2, "city N W +; road E S; field EL SR > N; field ER SL"),
    ("P", 3, "city N W; road E S; field EL SR > N; field ER SL"),
    ("Q", 1, "city N E W +; field SL SR > N"),
    ("R", 3, "city N E W; field SL SR > N"),
    ("S", 2, "city N E W +; road S; field SL > N; field SR > N"),
    ("T", 1, "city N E W; road S; field SL > N; field SR > N"),
    ("U", 8, "road W E; field WR NL NR EL; field ER SL SR WL"),
    ("V", 9, "road W S; field WR NL NR EL ER SL; field SR WL"),
    ("W", 4, "road E; road S; road W; field WR NL NR EL; field ER SL; field SR WL"),
    ("X", 1, "road N; road E; road S; road W; field WR NL; field NR EL; field ER SL; field SR WL"),
)

_BIG_TOP: tuple[tuple[str, int, str], ...] = (
    ("ffff.acrobats", 1, f"field {_ALL_HALVES}"),
    ("ffrf.acrobats", 1, f"road S; field {_ALL_HALVES}"),
    ("ffrr.acrobats", 3, "road S; road W; field NL NR EL ER SL WR; field SR WL"),
    ("rfrf.acrobats", 2, "road N; road S; field NR EL ER SL; field NL SR WL WR"),
    ("rrrf.acrobats", 1, "road N; road E; road S; field SR WL WR NL; field NR EL; field ER SL"),
    ("ffrf.circus", 1, f"road S; field {_ALL_HALVES}"),
    ("frrf.circus", 1, "road E; road S; field NL NR EL SR WL WR; field ER SL"),
    ("frfr.circus", 1, "road W; road E; field NL NR EL WR; field ER SL SR WL"),
    ("frrr.circus", 1, "road S; road W; road E; field NL NR EL WR; field SR WL; field ER SL"),
    ("cfff.circus", 1, "city N; field EL ER SL SR WL WR > N"),
    ("cffr.circus", 1, "city N; road W; field WR > N; field EL ER SL SR WL > N"),
    ("cfrf.circus", 2, "city N; road S; field SR WL WR > N; field EL ER SL > N"),
    ("crfr.circus", 1, "city N; road W; road E; field EL > N; field WR > N; field ER SL SR WL"),
    ("cfcf.circus", 1, "city N; city S; field WL WR > N S; field EL ER > N S"),
    ("ccrf.circus", 1, "city N; city E; road S; field SL > E; field SR WL WR > N"),
    ("crrc.circus", 1, "city N W; road E; road S; field EL > N; field ER SL; field SR > N"),
)


def _parse_tile(name: str, count: int, text: str, special: Special, expansion: str | None) -> TileType:
    """Read one catalog line into a `TileType`."""
    parts = [p.split() for p in text.split(";")]
    segments: list[Segment] = []
    pending_fields: list[tuple[tuple[int, ...], list[str]]] = []
    for words in parts:
        head, rest = words[0], words[1:]
        if head == "monastery":
            segments.append(Segment(Kind.MONASTERY))
        elif head in ("road", "city"):
            pennants = rest.count("+")
            sides = tuple(SIDES.index(w) for w in rest if w != "+")
            segments.append(Segment(Kind(head), sides=sides, pennants=pennants))
        else:
            if ">" in rest:
                cut = rest.index(">")
                halves, touching = rest[:cut], rest[cut + 1 :]
            else:
                halves, touching = rest, []
            pending_fields.append((tuple(HALVES.index(h) for h in halves), touching))
    for halves_t, touching in pending_fields:
        cities = tuple(
            i
            for i, seg in enumerate(segments)
            if seg.kind is Kind.CITY and any(SIDES[s] in touching for s in seg.sides)
        )
        segments.append(Segment(Kind.FIELD, halves=halves_t, cities=cities))
    return TileType(name, count, tuple(segments), special, expansion)


def _build() -> dict[str, TileType]:
    out: dict[str, TileType] = {}
    for name, count, text in _BASE:
        out[name] = _parse_tile(name, count, text, Special.NONE, None)
    for name, count, text in _BIG_TOP:
        special = Special.CIRCUS if name.endswith(".circus") else Special.ACROBATS
        out[name] = _parse_tile(name, count, text, special, EXPANSION)
    return out


#: Every tile type by record name.
CATALOG: Mapping[str, TileType] = _build()
#: The base game's tile names, A..X.
BASE_TILES: tuple[str, ...] = tuple(n for n, _, _ in _BASE)
#: The Under the Big Top tile names.
BIG_TOP_TILES: tuple[str, ...] = tuple(n for n, _, _ in _BIG_TOP)


def box(expansion: bool) -> dict[str, int]:
    """The tile counts in the box (start tile included)."""
    names = BASE_TILES + (BIG_TOP_TILES if expansion else ())
    return {n: CATALOG[n].count for n in names}


def _rotate_segment(seg: Segment, quarter: int) -> Segment:
    return Segment(
        seg.kind,
        sides=tuple(sorted((s + quarter) % 4 for s in seg.sides)),
        halves=tuple(sorted((h + 2 * quarter) % 8 for h in seg.halves)),
        pennants=seg.pennants,
        cities=seg.cities,
    )


@cache
def rotated(name: str, rotation: int) -> Rotated:
    """The tile ``name`` turned clockwise by ``rotation`` degrees (0/90/180/270).

    :raises KeyError: for an unknown tile name or rotation.
    """
    if rotation not in ROTATIONS:
        raise KeyError(rotation)
    tile = CATALOG[name]
    quarter = rotation // 90
    segments = tuple(_rotate_segment(s, quarter) for s in tile.segments)
    side_seg = [-1, -1, -1, -1]
    half_seg = [-1] * 8
    spots: dict[str, int] = {}
    monastery = -1
    for i, seg in enumerate(segments):
        for s in seg.sides:
            side_seg[s] = i
            spots[f"{seg.kind.value}:{SIDES[s]}"] = i
        for h in seg.halves:
            half_seg[h] = i
            spots[f"field:{HALVES[h]}"] = i
        if seg.kind is Kind.MONASTERY:
            spots["monastery"] = i
            monastery = i
    edges: list[Edge] = []
    for side in range(4):
        seg_i = side_seg[side]
        if seg_i < 0:
            edges.append(Edge.FIELD)
        else:
            edges.append(Edge.CITY if segments[seg_i].kind is Kind.CITY else Edge.ROAD)
    return Rotated(
        name=name,
        rotation=rotation,
        edges=(edges[0], edges[1], edges[2], edges[3]),
        segments=segments,
        side_seg=tuple(side_seg),
        half_seg=tuple(half_seg),
        spots=spots,
        special=tile.special,
        monastery=monastery,
    )
