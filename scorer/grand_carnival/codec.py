"""The Grand Carnival's notation and JSON: moves, states and scoring positions.

Move notation (one line, words separated by spaces; see docs/records.md)::

    Ann 3 foundation 2 ws/ss c6           take the open tile on space 2
    Ann 1 foundation 1a ww/sw a8 discard  face-down tile, then discard and refill
    Ann 4 build T4 b2 c2 d2 c1            attraction and the fields it covers
    Ann 5 guest in1 b2                    guest from entrance 1 to b2
    Ann 5 guest c8 tent                   guest into the circus tent
    Ann 2 guest in2 g3 barker e4          ... and the barker that comes
    Ann 2 pass                            no action possible with that number
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorer.core import MalformedMove, RecordError, UnknownComponent
from scorer.fields import player_names, require, whole_number
from scorer.grand_carnival.components import (
    Catalog,
    cell_name,
    cells_of,
    mask_of,
    normalise,
    parcel_cells,
    parcel_of,
    parse_cell,
)
from scorer.grand_carnival.model import (
    ENTRANCES,
    INFO,
    NUMBERS,
    ROUNDS,
    SOURCES,
    TENT,
    Attraction,
    Board,
    Build,
    CarnivalState,
    Foundation,
    Move,
    Pass,
    Railyard,
    TrickStatus,
    Walk,
)
from scorer.grand_carnival.rules import spot_name

__all__ = [
    "UnknownName",
    "board_from_parts",
    "format_move",
    "parse_move",
    "position_board",
    "state_from_json",
    "state_to_json",
    "tiles_from_json",
]


class UnknownName(MalformedMove):
    """A move that names a tile or attraction the game does not have."""


def format_move(state: CarnivalState, move: Move) -> str:
    """Write a move in the notation (`parse_move` reads it back)."""
    head = f"{state.players[move.seat]} {move.number}"
    if isinstance(move, Foundation):
        text = f"{head} foundation {move.source} {move.tile} {cell_name(parcel_cells(move.parcel)[0])}"
        return text + " discard" if move.discard else text
    if isinstance(move, Build):
        return f"{head} build {move.shape} " + " ".join(cell_name(c) for c in cells_of(move.mask))
    if isinstance(move, Walk):
        text = f"{head} guest {spot_name(move.start)} {spot_name(move.end)}"
        return text + f" barker {cell_name(move.barker)}" if move.barker is not None else text
    return f"{head} pass"


def _spot(text: str, what: str) -> int:
    if text in ("in1", "in2"):
        return ENTRANCES[int(text[2]) - 1]
    if text == "tent":
        return TENT
    cell = parse_cell(text)
    if cell is None:
        raise MalformedMove(f"{what} {text!r} is not a field a1..h8, in1, in2 or tent.")
    return cell


def _field(text: str, what: str) -> int:
    cell = parse_cell(text)
    if cell is None:
        raise MalformedMove(f"{what} {text!r} is not a field of the market (a1 to h8).")
    return cell


def parse_move(state: CarnivalState, text: str, catalog: Catalog) -> Move:
    """Read a move in the notation.

    :raises MalformedMove: when the text is not a move (`UnknownName` when it
        names a tile or attraction that is not in the game).
    """
    if not isinstance(text, str):
        raise MalformedMove("A move must be written as text.")
    words = text.split()
    if len(words) < 3:
        raise MalformedMove(
            f"{text!r} is not a move: write the player, the action number and the action, "
            "e.g. 'Ann 3 build L3 b2 b3 c3'."
        )
    if words[0] not in state.players:
        raise MalformedMove(f"{words[0]!r} is not a player of this game.")
    seat = state.players.index(words[0])
    if words[1] not in ("1", "2", "3", "4", "5"):
        raise MalformedMove(f"The action number must be 1 to 5, not {words[1]!r}.")
    number = int(words[1])
    action, rest = words[2], words[3:]
    if action == "pass":
        if rest:
            raise MalformedMove("'pass' takes nothing after it.")
        return Pass(seat, number)
    if action == "foundation":
        if len(rest) not in (3, 4) or (len(rest) == 4 and rest[3] != "discard"):
            raise MalformedMove(
                "Write a foundation as 'foundation SOURCE TILE FIELD [discard]', "
                "e.g. 'foundation 2 ws/ss c6'."
            )
        source, tile, where = rest[0], rest[1], rest[2]
        if source not in SOURCES:
            raise MalformedMove(f"The railyard source must be 1a, 1b, 2, 3, 4 or 5, not {source!r}.")
        if tile not in catalog.foundations:
            raise UnknownName(f"There is no foundation tile {tile!r} (patterns look like 'ws/ss').")
        return Foundation(seat, number, source, tile, parcel_of(_field(where, "The parcel")), len(rest) == 4)
    if action == "build":
        if not rest:
            raise MalformedMove("Write an attraction as 'build SHAPE FIELD ...', e.g. 'build I2 c3 d3'.")
        if rest[0] not in catalog.shapes:
            raise UnknownName(f"There is no attraction {rest[0]!r}; the shapes are {', '.join(catalog.shapes)}.")
        cells = [_field(w, "The attraction field") for w in rest[1:]]
        if not cells or len(set(cells)) != len(cells):
            raise MalformedMove("An attraction needs its fields, each named once.")
        return Build(seat, number, rest[0], mask_of(cells))
    if action == "guest":
        if len(rest) not in (2, 4) or (len(rest) == 4 and rest[2] != "barker"):
            raise MalformedMove(
                "Write a guest's walk as 'guest FROM TO [barker FIELD]', e.g. 'guest in1 b3'."
            )
        start = _spot(rest[0], "The start")
        end = _spot(rest[1], "The end")
        barker = _field(rest[3], "The barker field") if len(rest) == 4 else None
        return Walk(seat, number, start, end, barker)
    raise MalformedMove(f"Unknown action {action!r}: use foundation, build, guest or pass.")


# -- JSON helpers ----------------------------------------------------------------


def _cell(value: Any, where: str) -> int:
    cell = parse_cell(value) if isinstance(value, str) else None
    if cell is None:
        raise RecordError(f"{where} must be a field a1..h8, not {value!r}", where)
    return cell


def _cells(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list of fields", where)
    return [_cell(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _mask_cells(mask: int) -> list[str]:
    return [cell_name(c) for c in cells_of(mask)]


def _shape_of(cells: list[int], catalog: Catalog, where: str, name: Any = None) -> str:
    """The catalog shape (any orientation, mirror images too) the fields form."""
    form = normalise([divmod(c, 8) for c in cells])
    for shape in catalog.shapes.values():
        if name is not None and shape.name != name:
            continue
        if form in shape.orientations or form in shape.mirrored:
            return shape.name
    if name is not None and name not in catalog.shapes:
        raise UnknownComponent(f"{where}.shape: there is no attraction {name!r}", f"{where}.shape")
    raise RecordError(
        f"{where}.cells do not form {'a ' + str(name) if name else 'any attraction of the game'}",
        f"{where}.cells",
    )


def board_from_parts(
    parcels: tuple[str | None, ...],
    attractions: tuple[Attraction, ...],
    guests: int,
    entrances: tuple[bool, bool],
    tent: int,
    barkers: int,
    numbers: frozenset[int],
    tricks: tuple[TrickStatus, ...],
    catalog: Catalog,
) -> Board:
    """A board with its derived masks computed from the parcels and attractions."""
    walk = site = covered = 0
    for p, pattern in enumerate(parcels):
        if pattern is not None:
            w, s = catalog.pattern_masks[pattern][p]
            walk |= w
            site |= s
    for a in attractions:
        covered |= a.mask
    return Board(parcels, attractions, walk, site, covered, guests, entrances, tent, barkers, numbers, tricks)


def _attractions(value: Any, sites: int, catalog: Catalog, where: str) -> tuple[Attraction, ...]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list", where)
    out = []
    covered = 0
    for i, item in enumerate(value):
        w = f"{where}[{i}]"
        if not isinstance(item, Mapping):
            raise RecordError(f"{w} must be an object with cells and tickets", w)
        cells = _cells(require(item, "cells", list, w), f"{w}.cells")
        mask = mask_of(cells)
        if not cells or len(cells) != len(set(cells)):
            raise RecordError(f"{w}.cells must name each field once", f"{w}.cells")
        shape = _shape_of(cells, catalog, w, item.get("shape"))
        if mask & ~sites:
            raise RecordError(f"{w}.cells: {cell_name(cells_of(mask & ~sites)[0])} is not a construction site", f"{w}.cells")
        if mask & covered:
            raise RecordError(f"{w}.cells overlap another attraction", f"{w}.cells")
        covered |= mask
        tickets = whole_number(item.get("tickets", 0), f"{w}.tickets", lo=0, hi=len(cells))
        out.append(Attraction(shape, mask, tickets))
    return tuple(out)


# -- states ------------------------------------------------------------------------


def state_to_json(state: CarnivalState, catalog: Catalog) -> dict[str, Any]:
    """The state as a JSON object (`state_from_json` reads it back)."""
    return {
        "game": "grand-carnival",
        "players": list(state.players),
        "round": state.round,
        "start_player": state.start_player,
        "turn": state.turn,
        "seed": state.seed,
        "reshuffles": state.reshuffles,
        "tricks": list(state.tricks),
        "supply": dict(zip(catalog.shapes, state.supply)),
        "barkers": state.barkers,
        "railyard": {
            "stacks": [list(state.railyard.stacks[0]), list(state.railyard.stacks[1])],
            "open": list(state.railyard.open),
            "discard": list(state.railyard.discard),
        },
        "boards": [
            {
                "parcels": list(b.parcels),
                "attractions": [
                    {"shape": a.shape, "cells": _mask_cells(a.mask), "tickets": a.tickets}
                    for a in b.attractions
                ],
                "guests": _mask_cells(b.guests),
                "entrances": list(b.entrances),
                "tent": b.tent,
                "barkers": _mask_cells(b.barkers),
                "numbers": sorted(b.numbers),
                "tricks": [t.value for t in b.tricks],
            }
            for b in state.boards
        ],
    }


def tiles_from_json(value: Any, where: str, catalog: Catalog, hidden_ok: bool) -> tuple[str | None, ...]:
    """Validate a list of foundation patterns (null = an unseen tile, if ``hidden_ok``).

    :raises RecordError: naming the entry that is wrong (`UnknownComponent` for
        a pattern that is not in the box).
    """
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list of foundation tiles", where)
    out: list[str | None] = []
    for i, tile in enumerate(value):
        if tile is None and hidden_ok:
            out.append(None)
        elif not isinstance(tile, str):
            raise RecordError(f"{where}[{i}] must be a foundation tile like 'ws/ss'", f"{where}[{i}]")
        elif tile not in catalog.foundations:
            raise UnknownComponent(f"{where}[{i}]: there is no foundation tile {tile!r}", f"{where}[{i}]")
        else:
            out.append(tile)
    return tuple(out)


def state_from_json(data: Mapping[str, Any], catalog: Catalog) -> CarnivalState:
    """Rebuild a state from `state_to_json` output.

    :raises RecordError: naming the field that is wrong.
    """
    if not isinstance(data, Mapping):
        raise RecordError("a state must be a JSON object", "state")
    players = player_names(require(data, "players", list, "state"), "state.players", INFO)
    n = len(players)
    tricks_raw = require(data, "tricks", list, "state")
    for i, t in enumerate(tricks_raw):
        if not isinstance(t, str) or t not in catalog.tricks:
            raise UnknownComponent(f"state.tricks[{i}]: unknown trick {t!r}", f"state.tricks[{i}]")
    tricks = tuple(tricks_raw)
    supply_raw = require(data, "supply", Mapping, "state")
    if set(supply_raw) != set(catalog.shapes):
        raise RecordError("state.supply must give a count for every attraction shape", "state.supply")
    supply = tuple(whole_number(supply_raw[s], f"state.supply.{s}", lo=0) for s in catalog.shapes)
    yard = require(data, "railyard", Mapping, "state")
    stacks = require(yard, "stacks", list, "state.railyard")
    if len(stacks) != 2:
        raise RecordError("state.railyard.stacks must hold two stacks", "state.railyard.stacks")
    open_tiles = tiles_from_json(require(yard, "open", list, "state.railyard"), "state.railyard.open", catalog, True)
    if len(open_tiles) > 4:
        raise RecordError("state.railyard.open holds at most 4 tiles", "state.railyard.open")
    discard = tiles_from_json(require(yard, "discard", list, "state.railyard"), "state.railyard.discard", catalog, True)
    railyard = Railyard(
        stacks=(
            tiles_from_json(stacks[0], "state.railyard.stacks[0]", catalog, True),
            tiles_from_json(stacks[1], "state.railyard.stacks[1]", catalog, True),
        ),
        open=open_tiles,
        discard=discard,
    )
    seed = data.get("seed")
    if seed is not None:
        seed = whole_number(seed, "state.seed", lo=0)
    boards_raw = require(data, "boards", list, "state")
    if len(boards_raw) != n:
        raise RecordError("state.boards must hold one board per player", "state.boards")
    boards = []
    for i, raw in enumerate(boards_raw):
        w = f"state.boards[{i}]"
        if not isinstance(raw, Mapping):
            raise RecordError(f"{w} must be an object", w)
        parcels_raw = require(raw, "parcels", list, w)
        if len(parcels_raw) != 16:
            raise RecordError(f"{w}.parcels must list 16 parcels", f"{w}.parcels")
        parcels = tiles_from_json(parcels_raw, f"{w}.parcels", catalog, True)
        sites = 0
        for p, pattern in enumerate(parcels):
            if pattern is not None:
                sites |= catalog.pattern_masks[pattern][p][1]
        attractions = _attractions(require(raw, "attractions", list, w), sites, catalog, f"{w}.attractions")
        entrances = require(raw, "entrances", list, w)
        if len(entrances) != 2 or not all(isinstance(e, bool) for e in entrances):
            raise RecordError(f"{w}.entrances must be two true/false values", f"{w}.entrances")
        numbers = require(raw, "numbers", list, w)
        for j, num in enumerate(numbers):
            whole_number(num, f"{w}.numbers[{j}]", lo=1, hi=5)
        statuses = require(raw, "tricks", list, w)
        if len(statuses) != len(tricks):
            raise RecordError(f"{w}.tricks must give one status per dealt trick", f"{w}.tricks")
        try:
            trick_status = tuple(TrickStatus(s) for s in statuses)
        except ValueError:
            raise RecordError(f"{w}.tricks: statuses are open, pending, learned or lost", f"{w}.tricks") from None
        board = board_from_parts(
            parcels,
            attractions,
            mask_of(_cells(require(raw, "guests", list, w), f"{w}.guests")),
            (entrances[0], entrances[1]),
            whole_number(require(raw, "tent", int, w), f"{w}.tent", lo=0),
            mask_of(_cells(require(raw, "barkers", list, w), f"{w}.barkers")),
            frozenset(numbers),
            trick_status,
            catalog,
        )
        if board.guests & board.barkers:
            raise RecordError(f"{w}: a guest and a barker share a field", f"{w}.guests")
        if board.guests & ~(board.walkways | (board.sites & ~board.covered)):
            raise RecordError(f"{w}.guests: a guest stands off the walkways and empty sites", f"{w}.guests")
        if board.barkers & ~board.walkways:
            raise RecordError(f"{w}.barkers: a barker stands off the walkways", f"{w}.barkers")
        boards.append(board)
    return CarnivalState(
        players=players,
        boards=tuple(boards),
        railyard=railyard,
        supply=supply,
        barkers=whole_number(require(data, "barkers", int, "state"), "state.barkers", lo=0),
        tricks=tricks,
        round=whole_number(require(data, "round", int, "state"), "state.round", lo=0, hi=ROUNDS),
        start_player=whole_number(require(data, "start_player", int, "state"), "state.start_player", lo=0, hi=n - 1),
        turn=whole_number(require(data, "turn", int, "state"), "state.turn", lo=0, hi=len(NUMBERS) * n - 1),
        seed=seed,
        reshuffles=whole_number(require(data, "reshuffles", int, "state"), "state.reshuffles", lo=0),
    )


# -- scoring positions -------------------------------------------------------------

_MARKET_CHARS = ".wsgGb"


def position_board(raw: Any, catalog: Catalog, where: str) -> tuple[str, Board]:
    """Read one player's market from a scoring position (see docs/records.md).

    :raises RecordError: naming the field that is wrong.
    """
    if not isinstance(raw, Mapping):
        raise RecordError(f"{where} must be an object with name and market", where)
    name = require(raw, "name", str, where)
    rows = require(raw, "market", list, where)
    if len(rows) != 8 or not all(isinstance(r, str) and len(r) == 8 for r in rows):
        raise RecordError(f"{where}.market must be 8 strings of 8 characters, row 8 first", f"{where}.market")
    text = "".join(rows)
    for i, ch in enumerate(text):
        if ch not in _MARKET_CHARS:
            raise RecordError(
                f"{where}.market: {cell_name(i)} is {ch!r}; use . w s g G b", f"{where}.market"
            )
    parcels: list[str | None] = []
    guests = barkers = 0
    for p in range(16):
        cells = parcel_cells(p)
        chars = [text[c] for c in cells]
        if all(ch == "." for ch in chars):
            parcels.append(None)
            continue
        if "." in chars:
            raise RecordError(
                f"{where}.market: the parcel at {cell_name(cells[0])} is partly empty", f"{where}.market"
            )
        kinds = ["s" if ch in "sG" else "w" for ch in chars]
        pattern = f"{kinds[0]}{kinds[1]}/{kinds[2]}{kinds[3]}"
        if pattern not in catalog.foundations:
            raise UnknownComponent(
                f"{where}.market: the parcel at {cell_name(cells[0])} is {pattern}, not a foundation tile of the game",
                f"{where}.market",
            )
        parcels.append(pattern)
        for c, ch in zip(cells, chars):
            if ch in "gG":
                guests |= 1 << c
            elif ch == "b":
                barkers |= 1 << c
    sites = 0
    for p, tile in enumerate(parcels):
        if tile is not None:
            sites |= catalog.pattern_masks[tile][p][1]
    attractions = _attractions(raw.get("attractions", []), sites, catalog, f"{where}.attractions")
    for a in attractions:
        if a.mask & guests:
            raise RecordError(f"{where}.attractions: a guest stands on an attraction", f"{where}.attractions")
    tent = whole_number(raw.get("tent", 0), f"{where}.tent", lo=0)
    learned = whole_number(raw.get("tricks", 0), f"{where}.tricks", lo=0, hi=catalog.tricks_dealt)
    tricks = tuple(TrickStatus.LEARNED if i < learned else TrickStatus.OPEN for i in range(catalog.tricks_dealt))
    board = board_from_parts(
        tuple(parcels), attractions, guests, (False, False), tent, barkers, frozenset(), tricks, catalog
    )
    return name, board
