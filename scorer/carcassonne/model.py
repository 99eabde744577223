"""Value types of the Carcassonne engine: moves, figures, features and the state."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from scorer.carcassonne.catalog import Kind

__all__ = [
    "Animal",
    "Category",
    "Discard",
    "Feature",
    "Figure",
    "FigureOnBoard",
    "Move",
    "Placement",
    "Pos",
    "Reason",
    "SegKey",
    "Spot",
    "State",
]

#: A square of the table: (x, y), x grows to the east, y to the south.
Pos: TypeAlias = tuple[int, int]
#: One segment of one placed tile: (x, y, segment index).
SegKey: TypeAlias = tuple[int, int, int]


class Figure(enum.Enum):
    """The figures a player can place."""

    MEEPLE = "meeple"
    RINGMASTER = "ringmaster"
    ACROBAT = "acrobat"


class Animal(enum.Enum):
    """The face-down animal tokens under the Big Top, with their points."""

    ELEPHANT = "elephant"
    TIGER = "tiger"
    BEAR = "bear"
    SEAL = "seal"
    MONKEY = "monkey"
    FLEA = "flea"

    @property
    def points(self) -> int:
        """Points per follower when this token is revealed."""
        return _ANIMAL_POINTS[self]

    @property
    def count(self) -> int:
        """How many tokens of this animal the box holds."""
        return _ANIMAL_COUNTS[self]


_ANIMAL_POINTS = {
    Animal.ELEPHANT: 7,
    Animal.TIGER: 6,
    Animal.BEAR: 5,
    Animal.SEAL: 4,
    Animal.MONKEY: 3,
    Animal.FLEA: 1,
}
_ANIMAL_COUNTS = {
    Animal.ELEPHANT: 1,
    Animal.TIGER: 2,
    Animal.BEAR: 3,
    Animal.SEAL: 5,
    Animal.MONKEY: 4,
    Animal.FLEA: 1,
}


class Category(enum.Enum):
    """Scoring categories of the ``final`` table of a replay."""

    ROAD = "road"
    CITY = "city"
    MONASTERY = "monastery"
    FIELD = "field"
    CIRCUS = "circus"
    ACROBATS = "acrobats"
    RINGMASTER = "ringmaster"


CATEGORIES: tuple[Category, ...] = tuple(Category)


class Reason(enum.Enum):
    """Why a move is illegal."""

    GAME_OVER = "the game is over"
    MALFORMED = "not a valid move value"
    NOT_DRAWN = "not the tile drawn"
    TILE_NOT_AVAILABLE = "no such tile left in the box"
    OCCUPIED = "square already has a tile"
    NOT_ADJACENT = "tile does not touch the board"
    EDGE_MISMATCH = "edges do not match"
    TILE_FITS = "a tile that fits must be placed"
    NO_SUCH_FEATURE = "the tile has no such feature"
    FEATURE_OCCUPIED = "feature already has a figure"
    NO_MEEPLE = "no meeple left"
    NO_RINGMASTER = "ringmaster already on the board"
    NO_EXPANSION = "needs Under the Big Top"
    CIRCUS_SPACE = "no figure on a circus space"
    RINGMASTER_ACROBAT = "a ringmaster is never an acrobat"
    NOT_ACROBAT_TILE = "not an acrobat tile"
    OUT_OF_REACH = "acrobat tile out of reach"
    PYRAMID_FULL = "pyramid already complete"
    PYRAMID_INCOMPLETE = "pyramid not complete"


@dataclass(frozen=True, slots=True)
class Spot:
    """Where on the tile just placed a meeple or ringmaster goes.

    ``edge`` is a side (``N``) for a road or city, a half-edge (``NL``) for a
    field, and empty for a monastery or the circus space.
    """

    kind: Kind
    edge: str = ""

    def __str__(self) -> str:
        return self.kind.value if not self.edge else f"{self.kind.value}:{self.edge}"


@dataclass(frozen=True, slots=True)
class Placement:
    """A turn: place ``tile`` at ``at`` turned ``rotation`` degrees clockwise.

    Then at most one of: a meeple or ringmaster on ``spot``, an acrobat on the
    acrobat space of the tile at ``target``, or scoring the complete pyramid at
    ``score_pyramid``.
    """

    tile: str
    at: Pos
    rotation: int
    figure: Figure | None = None
    spot: Spot | None = None
    target: Pos | None = None
    score_pyramid: Pos | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """The drawn tile fits nowhere and is set aside (the player draws again)."""

    tile: str


Move: TypeAlias = Placement | Discard


@dataclass(frozen=True, slots=True)
class FigureOnBoard:
    """A meeple or ringmaster standing on segment ``segment`` of the tile at ``at``."""

    seat: int
    figure: Figure
    at: Pos
    segment: int


@dataclass(frozen=True, slots=True)
class Feature:
    """A connected road, city, field or a monastery, as it stands.

    ``open_edges`` counts the edges of a road or city that still lead
    nowhere, or for a monastery the missing neighbours; 0 means complete.
    ``cities`` are segments of the cities a field touches.
    """

    kind: Kind
    segments: tuple[SegKey, ...]
    tiles: frozenset[Pos]
    pennants: int
    open_edges: int
    figures: tuple[FigureOnBoard, ...] = ()
    cities: frozenset[SegKey] = frozenset()
    completed: bool = False


@dataclass(frozen=True, slots=True)
class State:
    """A Carcassonne position. Treat every field as read-only.

    The mappings are never changed once a state is built; a move makes
    new ones. ``frontier`` maps each empty square beside the board to the
    edges its neighbours demand (`engine.need_code`). ``stack`` is the face-down tile stack in draw order (full
    information) or None when the draws are not known (a replayed record):
    then ``remaining`` says which tiles are still in the box.
    """

    players: tuple[str, ...]
    expansion: bool
    tiny_city_points: int
    tiles: Mapping[Pos, tuple[str, int]]
    frontier: Mapping[Pos, int]
    seg_feature: Mapping[SegKey, int]
    features: Mapping[int, Feature]
    next_fid: int
    acrobats: Mapping[Pos, tuple[int, ...]]
    meeples: tuple[int, ...]
    ringmasters: tuple[bool, ...]
    points: tuple[tuple[int, ...], ...]
    stack: tuple[str, ...] | None
    remaining: Mapping[str, int]
    discarded: tuple[str, ...]
    tokens: tuple[Animal, ...]
    big_top: tuple[Pos, Animal | None] | None
    revealed: tuple[Animal, ...]
    turn: int
    finished: bool

    def __hash__(self) -> int:
        return hash((self.players, self.turn, self.stack, self.discarded, self.points, self.finished))

    @property
    def scores(self) -> tuple[int, ...]:
        """Each seat's total points."""
        return tuple(sum(p) for p in self.points)

    @property
    def current_tile(self) -> str | None:
        """The tile drawn and waiting to be placed (None when the draws are unknown)."""
        if self.stack is None or not self.stack:
            return None
        return self.stack[0]
