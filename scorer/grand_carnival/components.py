"""The Grand Carnival's components: the market grid and the catalog of tiles.

The market is 8x8 fields. A field is an ``int`` 0..63, ``row * 8 + column``,
row 0 at the top (next to the circus tent) and column 0 on the left. In the
notation a field is written like a chess square: column letter ``a``..``h`` and
row number ``1`` (bottom, the entrance side) .. ``8`` (top, the tent side), so
field 0 is ``a8`` and field 63 is ``h1``. Sets of fields are bitmasks.

The 16 parcels (2x2 fields each) are numbered ``prow * 4 + pcol`` from the top
left. What the rule texts leave open (tile patterns, shapes, counts, entrances,
barkers, the trick list) is read from ``components.toml`` beside this module.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from scorer.core import TableError

__all__ = [
    "ALL",
    "CatalogError",
    "COLUMNS",
    "CATALOG",
    "Catalog",
    "Condition",
    "Effect",
    "Shape",
    "Trick",
    "TOP_ROW",
    "cell_name",
    "cells_of",
    "load_catalog",
    "mask_of",
    "neighbours",
    "normalise",
    "parcel_cells",
    "parcel_of",
    "parse_cell",
]

SIZE = 8
COLUMNS = "abcdefgh"
ALL = (1 << 64) - 1
TOP_ROW = (1 << 8) - 1
_NOT_COL0 = ALL ^ sum(1 << (r * 8) for r in range(8))
_NOT_COL7 = ALL ^ sum(1 << (r * 8 + 7) for r in range(8))


def cell_name(cell: int) -> str:
    """The notation of a field.

    >>> cell_name(0), cell_name(63)
    ('a8', 'h1')
    """
    row, col = divmod(cell, SIZE)
    return f"{COLUMNS[col]}{SIZE - row}"


def parse_cell(text: str) -> int | None:
    """The field written ``text``, or None if it is not a field.

    >>> parse_cell("a8"), parse_cell("b1"), parse_cell("i9")
    (0, 57, None)
    """
    if len(text) != 2 or text[0] not in COLUMNS or text[1] not in "12345678":
        return None
    return (SIZE - int(text[1])) * SIZE + COLUMNS.index(text[0])


def mask_of(cells: tuple[int, ...] | list[int] | frozenset[int]) -> int:
    """The bitmask of a collection of fields."""
    out = 0
    for cell in cells:
        out |= 1 << cell
    return out


def cells_of(mask: int) -> tuple[int, ...]:
    """The fields of a bitmask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def neighbours(mask: int) -> int:
    """Every field orthogonally adjacent to a field of ``mask``."""
    return (
        ((mask << 1) & _NOT_COL0)
        | ((mask >> 1) & _NOT_COL7)
        | ((mask << 8) & ALL)
        | (mask >> 8)
    )


def parcel_of(cell: int) -> int:
    """The parcel (0..15) that holds a field."""
    row, col = divmod(cell, SIZE)
    return (row // 2) * 4 + col // 2


def parcel_cells(parcel: int) -> tuple[int, int, int, int]:
    """The four fields of a parcel: top-left, top-right, bottom-left, bottom-right."""
    prow, pcol = divmod(parcel, 4)
    top = prow * 2 * SIZE + pcol * 2
    return (top, top + 1, top + SIZE, top + SIZE + 1)


def normalise(cells: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """(row, column) pairs shifted so that the smallest row and column are 0."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


class Condition(enum.Enum):
    """What a trick of the trade asks of your market at the end of your turn."""

    #: One attraction carries at least N tickets.
    ATTRACTION_TICKETS = "attraction_tickets"
    #: At least N tickets on the market in all.
    TICKETS = "tickets"
    #: At least N foundation tiles laid.
    FOUNDATIONS = "foundations"
    #: At least N attractions built.
    ATTRACTIONS = "attractions"
    #: At least N guests in the circus tent.
    GUESTS_IN_TENT = "guests_in_tent"
    #: At least N barkers on the market.
    BARKERS = "barkers"


class Effect(enum.Enum):
    """What a learned trick lets you do from your next turn on."""

    #: Guests may also walk on and stop on empty construction sites.
    WALK_ON_SITES = "walk_on_sites"
    #: An attraction may be one size larger than the action number.
    BUILD_BIGGER = "build_bigger"
    #: A foundation may come from one railyard space further.
    RAILYARD_REACH = "railyard_reach"
    #: Guests may move one step further.
    EXTRA_STEP = "extra_step"


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick of the trade: its condition and its effect."""

    name: str
    condition: Condition
    at_least: int
    effect: Effect

    def describe(self) -> str:
        """The condition as a phrase, e.g. "an attraction carrying 3 tickets"."""
        n = self.at_least

        def many(word: str) -> str:
            return f"{n} {word}" if n == 1 else f"{n} {word}s"

        return {
            Condition.ATTRACTION_TICKETS: f"an attraction carrying {many('ticket')}",
            Condition.TICKETS: f"{many('ticket')} on the market",
            Condition.FOUNDATIONS: f"{many('foundation tile')} laid",
            Condition.ATTRACTIONS: f"{many('attraction')} built",
            Condition.GUESTS_IN_TENT: f"{many('guest')} in the circus tent",
            Condition.BARKERS: f"{many('barker')} on the market",
        }[self.condition]


@dataclass(frozen=True, slots=True)
class Shape:
    """An attraction polyomino and every way it can lie on the market."""

    name: str
    size: int
    #: Supply by number of players (index 0 = one player).
    counts: tuple[int, ...]
    #: Normalised cell sets of the allowed orientations.
    orientations: frozenset[frozenset[tuple[int, int]]]
    #: Normalised cell sets that are only reachable by flipping the tile over.
    mirrored: frozenset[frozenset[tuple[int, int]]]
    #: Every allowed placement as a bitmask, grouped by its lowest field.
    by_anchor: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every component fact the engine needs, read from ``components.toml``."""

    #: Foundation patterns ("ws/ss") and how many of each are in the box.
    foundations: Mapping[str, int]
    #: pattern -> parcel -> (walkway mask, site mask) on the market.
    pattern_masks: Mapping[str, tuple[tuple[int, int], ...]]
    shapes: Mapping[str, Shape]
    #: The fields that the two entrances lead onto (row 1).
    entrance_cells: tuple[int, int]
    barkers: tuple[int, ...]
    empty_parcel_hammers: int
    reflections: bool
    tricks: Mapping[str, Trick]
    tricks_dealt: int
    #: Guests in the shared supply by player count; None: the supply never runs out.
    guests: tuple[int, ...] | None = None

    def shape_supply(self, players: int) -> tuple[int, ...]:
        """Attraction counts in the supply, in catalog order, for a player count."""
        return tuple(s.counts[players - 1] for s in self.shapes.values())


def _rotate(cells: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return normalise([(c, -r) for r, c in cells])


def _mirror(cells: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return normalise([(r, -c) for r, c in cells])


def _by_player_count(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, Mapping) or set(value) != {"1", "2", "3", "4"}:
        raise CatalogError(f"components.toml: {where} needs counts for 1, 2, 3 and 4 players")
    out = tuple(value[k] for k in ("1", "2", "3", "4"))
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in out):
        raise CatalogError(f"components.toml: {where} counts must be whole numbers >= 0")
    return out


def _pattern_masks(pattern: str) -> tuple[tuple[int, int], ...]:
    fields = pattern.replace("/", "")
    out = []
    for parcel in range(16):
        walk = site = 0
        for cell, kind in zip(parcel_cells(parcel), fields):
            if kind == "w":
                walk |= 1 << cell
            else:
                site |= 1 << cell
        out.append((walk, site))
    return tuple(out)


def _shape(name: str, rows: Any, counts: tuple[int, ...], reflections: bool) -> Shape:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise CatalogError(f"components.toml: shape {name} needs rows of '#' and '.'")
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    if not 1 <= len(cells) <= 5:
        raise CatalogError(f"components.toml: shape {name} must have 1 to 5 fields")
    base = normalise(cells)
    turned = {base}
    current = base
    for _ in range(3):
        current = _rotate(current)
        turned.add(current)
    flipped = set()
    for orient in turned:
        flipped.add(_mirror(orient))
    allowed = turned | flipped if reflections else turned
    mirrored = frozenset() if reflections else frozenset(flipped - turned)
    anchors: list[list[int]] = [[] for _ in range(64)]
    for orient in sorted(allowed, key=sorted):
        height = max(r for r, _ in orient) + 1
        width = max(c for _, c in orient) + 1
        for top in range(SIZE - height + 1):
            for left in range(SIZE - width + 1):
                mask = mask_of([(top + r) * SIZE + left + c for r, c in orient])
                anchors[(mask & -mask).bit_length() - 1].append(mask)
    return Shape(
        name=name,
        size=len(cells),
        counts=counts,
        orientations=frozenset(allowed),
        mirrored=mirrored,
        by_anchor=tuple(tuple(sorted(set(a))) for a in anchors),
    )


class CatalogError(TableError, ValueError):
    """``components.toml`` is not a valid catalog; the message names the file and key."""


def _at(data: Any, path: str) -> Any:
    """The value under a dotted ``path`` ("barkers.supply", "foundations[2].count").

    :raises CatalogError: naming the file and the key when it is missing.
    """
    value = data
    where = ""
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(value, list) or index >= len(value):
                raise CatalogError(f"components.toml: {where} must be a list with an entry {index}")
            value = value[index]
            where += part
            continue
        if not isinstance(value, Mapping):
            raise CatalogError(f"components.toml: {where or 'the file'} must be a table with the key {part!r}")
        where = f"{where}.{part}" if where else part
        if part not in value:
            raise CatalogError(f"components.toml: the key {where} is missing")
        value = value[part]
    return value


def _list_at(data: Any, path: str) -> list[Any]:
    value = _at(data, path)
    if not isinstance(value, list):
        raise CatalogError(f"components.toml: {path} must be a list of entries")
    return value


def _whole_at(data: Any, path: str) -> int:
    value = _at(data, path)
    if not isinstance(value, int) or isinstance(value, bool):
        raise CatalogError(f"components.toml: {path} must be a whole number")
    return value


def load_catalog(data: Mapping[str, Any]) -> Catalog:
    """Check the parsed ``components.toml`` and build the catalog from it.

    :raises CatalogError: (a ValueError) naming the file and the key that is wrong.
    """
    reflections = _at(data, "attractions.reflections")
    if not isinstance(reflections, bool):
        raise CatalogError("components.toml: attractions.reflections must be true or false")
    foundations: dict[str, int] = {}
    for i, _entry in enumerate(_list_at(data, "foundations")):
        pattern, count = _at(data, f"foundations[{i}].pattern"), _at(data, f"foundations[{i}].count")
        if (
            not isinstance(pattern, str)
            or len(pattern) != 5
            or pattern[2] != "/"
            or any(ch not in "ws" for ch in pattern.replace("/", ""))
        ):
            raise CatalogError(f"components.toml: foundation pattern {pattern!r} is not like 'ws/ss'")
        if not isinstance(count, int) or count < 1 or pattern in foundations:
            raise CatalogError(f"components.toml: foundation {pattern} needs one count >= 1")
        foundations[pattern] = count
    shapes: dict[str, Shape] = {}
    for i, _entry in enumerate(_list_at(data, "attractions.shapes")):
        name = _at(data, f"attractions.shapes[{i}].name")
        if not isinstance(name, str) or not name.isalnum() or name in shapes:
            raise CatalogError(f"components.toml: attraction name {name!r} must be unique and alphanumeric")
        counts = _by_player_count(_at(data, f"attractions.shapes[{i}].count"), f"attraction {name}")
        shapes[name] = _shape(name, _at(data, f"attractions.shapes[{i}].rows"), counts, reflections)
    columns = _at(data, "entrances.columns")
    if (
        not isinstance(columns, list)
        or len(columns) != 2
        or not all(isinstance(c, str) and c in COLUMNS and len(c) == 1 for c in columns)
        or columns[0] == columns[1]
    ):
        raise CatalogError("components.toml: entrances.columns must be two different columns a..h")
    entrance_cells = (
        (SIZE - 1) * SIZE + COLUMNS.index(columns[0]),
        (SIZE - 1) * SIZE + COLUMNS.index(columns[1]),
    )
    tricks: dict[str, Trick] = {}
    for i, _entry in enumerate(_list_at(data, "tricks.cards")):
        where = f"tricks.cards[{i}]"
        name = _at(data, f"{where}.name")
        try:
            trick = Trick(
                name=name,
                condition=Condition(_at(data, f"{where}.condition.kind")),
                at_least=_whole_at(data, f"{where}.condition.at_least"),
                effect=Effect(_at(data, f"{where}.effect")),
            )
        except (ValueError, TypeError) as exc:
            raise CatalogError(f"components.toml: trick {name!r}: {exc}") from None
        tricks[name] = trick
    dealt = _at(data, "tricks.dealt")
    if not isinstance(dealt, int) or not 0 <= dealt <= len(tricks):
        raise CatalogError("components.toml: tricks.dealt must be at most the number of tricks")
    guests_raw = _at(data, "guests.supply")
    guests = None if guests_raw == "unlimited" else _by_player_count(guests_raw, "guests.supply")
    return Catalog(
        foundations=foundations,
        pattern_masks={p: _pattern_masks(p) for p in foundations},
        shapes=shapes,
        entrance_cells=entrance_cells,
        barkers=_by_player_count(_at(data, "barkers.supply"), "barkers.supply"),
        empty_parcel_hammers=_whole_at(data, "market.empty_parcel_hammers"),
        reflections=reflections,
        tricks=tricks,
        tricks_dealt=dealt,
        guests=guests,
    )


def _read_toml() -> dict[str, Any]:
    text = resources.files(__package__ or "scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"components.toml is not valid TOML: {exc}") from None


#: The catalog of the box, from ``components.toml``.
CATALOG: Catalog = load_catalog(_read_toml())
