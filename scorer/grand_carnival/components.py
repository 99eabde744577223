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

import copy
import enum
import json
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
    "catalog_of",
    "cells_of",
    "component_changes",
    "describe_changes",
    "load_catalog",
    "merge_components",
    "mask_of",
    "neighbours",
    "normalise",
    "parcel_cells",
    "parcel_of",
    "parse_cell",
    "shipped_data",
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


def _connected(cells: frozenset[tuple[int, int]]) -> bool:
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        r, c = todo.pop()
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen) == len(cells)


def _rotate(cells: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return normalise([(c, -r) for r, c in cells])


def _mirror(cells: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return normalise([(r, -c) for r, c in cells])


def _by_player_count(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, Mapping) or set(value) != {"1", "2", "3", "4"}:
        raise CatalogError(f"{where} needs counts for 1, 2, 3 and 4 players")
    out = tuple(value[k] for k in ("1", "2", "3", "4"))
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in out):
        raise CatalogError(f"{where} counts must be whole numbers >= 0")
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


def _shape(name: str, rows: Any, counts: tuple[int, ...], reflections: bool, where: str) -> Shape:
    if (
        not isinstance(rows, list)
        or not rows
        or not all(isinstance(r, str) and set(r) <= {"#", "."} for r in rows)
    ):
        raise CatalogError(f"{where}: shape {name} needs rows of '#' and '.'")
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    if not 1 <= len(cells) <= 5:
        raise CatalogError(f"{where}: shape {name} must have 1 to 5 fields")
    if not _connected(frozenset(cells)):
        raise CatalogError(f"{where}: shape {name} must be one piece (fields joined by their sides)")
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
                raise CatalogError(f"{where} must be a list with an entry {index}")
            value = value[index]
            where += part
            continue
        if not isinstance(value, Mapping):
            raise CatalogError(f"{where or 'the file'} must be a table with the key {part!r}")
        where = f"{where}.{part}" if where else part
        if part not in value:
            raise CatalogError(f"the key {where} is missing")
        value = value[part]
    return value


def _list_at(data: Any, path: str) -> list[Any]:
    value = _at(data, path)
    if not isinstance(value, list):
        raise CatalogError(f"{path} must be a list of entries")
    return value


def _whole_at(data: Any, path: str) -> int:
    value = _at(data, path)
    if not isinstance(value, int) or isinstance(value, bool):
        raise CatalogError(f"{path} must be a whole number")
    return value


def load_catalog(data: Mapping[str, Any], source: str = "components.toml") -> Catalog:
    """Check the parsed ``components.toml`` and build the catalog from it.

    ``source`` names the file (or record) the values came from in messages.

    :raises CatalogError: (a ValueError) one line naming ``source`` and the key that is wrong.
    """
    try:
        return _load_catalog(data)
    except CatalogError as exc:
        raise CatalogError(f"{source}: {exc}") from None


def _load_catalog(data: Mapping[str, Any]) -> Catalog:
    reflections = _at(data, "attractions.reflections")
    if not isinstance(reflections, bool):
        raise CatalogError("attractions.reflections must be true or false")
    foundations: dict[str, int] = {}
    for i, _entry in enumerate(_list_at(data, "foundations")):
        where = f"foundations[{i}]"
        pattern, count = _at(data, f"{where}.pattern"), _at(data, f"{where}.count")
        if (
            not isinstance(pattern, str)
            or len(pattern) != 5
            or pattern[2] != "/"
            or any(ch not in "ws" for ch in pattern.replace("/", ""))
        ):
            raise CatalogError(f"{where}.pattern: foundation pattern {pattern!r} is not like 'ws/ss'")
        if pattern in foundations:
            raise CatalogError(f"{where}.pattern: foundation {pattern} is listed twice")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise CatalogError(f"{where}.count: foundation {pattern} needs one count >= 1")
        foundations[pattern] = count
    if not foundations:
        raise CatalogError("foundations must list at least one foundation tile")
    shapes: dict[str, Shape] = {}
    for i, _entry in enumerate(_list_at(data, "attractions.shapes")):
        where = f"attractions.shapes[{i}]"
        name = _at(data, f"{where}.name")
        if not isinstance(name, str) or not name.isalnum() or name in shapes:
            raise CatalogError(f"{where}.name: attraction name {name!r} must be unique and alphanumeric")
        counts = _by_player_count(_at(data, f"{where}.count"), f"{where}.count: attraction {name}")
        shapes[name] = _shape(name, _at(data, f"{where}.rows"), counts, reflections, f"{where}.rows")
    columns = _at(data, "entrances.columns")
    if (
        not isinstance(columns, list)
        or len(columns) != 2
        or not all(isinstance(c, str) and c in COLUMNS and len(c) == 1 for c in columns)
        or columns[0] == columns[1]
    ):
        raise CatalogError("entrances.columns must be two different columns a..h")
    entrance_cells = (
        (SIZE - 1) * SIZE + COLUMNS.index(columns[0]),
        (SIZE - 1) * SIZE + COLUMNS.index(columns[1]),
    )
    tricks: dict[str, Trick] = {}
    for i, _entry in enumerate(_list_at(data, "tricks.cards")):
        where = f"tricks.cards[{i}]"
        name = _at(data, f"{where}.name")
        if not isinstance(name, str) or not name.strip() or name in tricks:
            raise CatalogError(f"{where}.name: trick name {name!r} must be a unique text")
        at_least = _whole_at(data, f"{where}.condition.at_least")
        if at_least < 1:
            raise CatalogError(f"{where}.condition.at_least: trick {name!r} needs at_least >= 1")
        kind, effect = _at(data, f"{where}.condition.kind"), _at(data, f"{where}.effect")
        try:
            condition = Condition(kind)
        except ValueError:
            known = ", ".join(c.value for c in Condition)
            raise CatalogError(f"{where}.condition.kind: trick {name!r}: {kind!r} is not one of {known}") from None
        try:
            effect_value = Effect(effect)
        except ValueError:
            known = ", ".join(e.value for e in Effect)
            raise CatalogError(f"{where}.effect: trick {name!r}: {effect!r} is not one of {known}") from None
        tricks[name] = Trick(name=name, condition=condition, at_least=at_least, effect=effect_value)
    dealt = _at(data, "tricks.dealt")
    if not isinstance(dealt, int) or isinstance(dealt, bool) or not 0 <= dealt <= len(tricks):
        raise CatalogError("tricks.dealt must be at most the number of tricks")
    guests_raw = _at(data, "guests.supply")
    guests = None if guests_raw == "unlimited" else _by_player_count(guests_raw, "guests.supply")
    hammers = _whole_at(data, "market.empty_parcel_hammers")
    if hammers < 0:
        raise CatalogError("market.empty_parcel_hammers must be a whole number >= 0")
    return Catalog(
        foundations=foundations,
        pattern_masks={p: _pattern_masks(p) for p in foundations},
        shapes=shapes,
        entrance_cells=entrance_cells,
        barkers=_by_player_count(_at(data, "barkers.supply"), "barkers.supply"),
        empty_parcel_hammers=hammers,
        reflections=reflections,
        tricks=tricks,
        tricks_dealt=dealt,
        guests=guests,
    )


#: TOML value kinds as a user reads them, for "must be ..." messages.
def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return "a date or time"


#: Keys whose value may be of another kind than the shipped one.
_EITHER = {"guests.supply": ("a text", "a table")}


def _like(value: Any, examples: list[Any], path: str) -> None:
    """Check that ``value`` has the keys and kinds of the shipped ``examples`` (list entries)."""
    kinds = {_kind(e) for e in examples}
    if examples and _kind(value) not in kinds:
        raise CatalogError(f"{path} must be {' or '.join(sorted(kinds))}, not {_kind(value)}")
    if isinstance(value, Mapping):
        keys = {k for e in examples if isinstance(e, Mapping) for k in e}
        for key, item in value.items():
            if key not in keys:
                raise CatalogError(f"{path}.{key}: there is no such key in components.toml")
            _like(item, [e[key] for e in examples if isinstance(e, Mapping) and key in e], f"{path}.{key}")
    elif isinstance(value, list):
        inner = [x for e in examples if isinstance(e, list) for x in e]
        for i, item in enumerate(value):
            _like(item, inner, f"{path}[{i}]")


def _merge(base: Mapping[str, Any], over: Mapping[str, Any], where: str) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        path = f"{where}.{key}" if where else str(key)
        if key not in base:
            raise CatalogError(f"{path}: there is no such key in components.toml")
        shipped = base[key]
        if isinstance(shipped, Mapping) and isinstance(value, Mapping):
            out[key] = _merge(shipped, value, path)
            continue
        if _kind(value) in _EITHER.get(path, ()):
            out[key] = value
            continue
        _like(value, [shipped], path)
        out[key] = value
    return out


def merge_components(base: Mapping[str, Any], override: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``base`` with the entries of ``override`` (parsed TOML or JSON) in their place, checked.

    Tables merge key by key; a list (the foundations, the attraction shapes,
    the trick cards, the entrance columns) is replaced whole. The result is
    checked as a catalog, so an impossible value is refused too.

    >>> merged = merge_components(shipped_data(), {"barkers": {"supply": {"2": 7}}}, "my.toml")
    >>> merged["barkers"]["supply"]
    {'1': 4, '2': 7, '3': 8, '4': 10}
    >>> merge_components(shipped_data(), {"barker": {}}, "my.toml")
    Traceback (most recent call last):
    ...
    scorer.grand_carnival.components.CatalogError: my.toml: barker: there is no such key in components.toml

    :raises CatalogError: one line naming ``source`` and the key: an unknown key,
        a value of the wrong kind or an impossible value.
    """
    if not isinstance(override, Mapping):
        raise CatalogError(f"{source}: must be a table of component values")
    try:
        merged = _merge(base, override, "")
    except CatalogError as exc:
        raise CatalogError(f"{source}: {exc}") from None
    catalog_of(merged, source)
    return merged


def component_changes(data: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The entries of ``data`` that differ from ``base`` (the shipped values), in the same layout.

    >>> component_changes(merge_components(shipped_data(), {"tricks": {"dealt": 2}}, "x"))
    {'tricks': {'dealt': 2}}
    """
    base = _SHIPPED if base is None else base
    out: dict[str, Any] = {}
    for key, value in data.items():
        shipped = base.get(key)
        if isinstance(value, Mapping) and isinstance(shipped, Mapping):
            inner = component_changes(value, shipped)
            if inner:
                out[key] = inner
        elif value != shipped:
            out[key] = value
    return out


def describe_changes(changes: Mapping[str, Any], where: str = "") -> list[str]:
    """``key = value`` lines for `component_changes` output, dotted keys, JSON values.

    >>> describe_changes({"barkers": {"supply": {"2": 7}}})
    ['barkers.supply.2 = 7']
    """
    lines: list[str] = []
    for key, value in changes.items():
        path = f"{where}.{key}" if where else str(key)
        if isinstance(value, Mapping):
            lines.extend(describe_changes(value, path))
        else:
            lines.append(f"{path} = {json.dumps(value)}")
    return lines


_BUILT: dict[str, Catalog] = {}


def catalog_of(data: Mapping[str, Any], source: str = "components.toml") -> Catalog:
    """`load_catalog` with equal values answered by the same `Catalog` object.

    The rules engine memoises by catalog, so one object per set of values keeps
    that memo small however many records are replayed.

    :raises CatalogError: as `load_catalog`.
    """
    try:
        key = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        key = ""
    if key and key in _BUILT:
        return _BUILT[key]
    catalog = load_catalog(data, source)
    if key:
        if len(_BUILT) > 64:
            _BUILT.clear()
        _BUILT[key] = catalog
    return catalog


def shipped_data() -> dict[str, Any]:
    """A fresh copy of the values in the shipped ``components.toml``."""
    return copy.deepcopy(_SHIPPED)


def _read_toml() -> dict[str, Any]:
    text = resources.files(__package__ or "scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"components.toml is not valid TOML: {exc}") from None


_SHIPPED: dict[str, Any] = _read_toml()
#: The catalog of the box, from ``components.toml``.
CATALOG: Catalog = catalog_of(_SHIPPED)
