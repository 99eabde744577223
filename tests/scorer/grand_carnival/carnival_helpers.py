"""Build Grand Carnival positions by hand for the tests.

A market is drawn as 8 strings, row 8 (the tent side) first, with the
characters of the scoring-position format: ``.`` empty parcel, ``w`` walkway,
``s`` construction site, ``g`` guest on a walkway, ``G`` guest on a site,
``b`` barker on a walkway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import scorer
from scorer.grand_carnival import CarnivalState, GrandCarnival, Move
from scorer.grand_carnival.codec import position_board
from scorer.grand_carnival.components import mask_of, parse_cell
from scorer.grand_carnival.model import Board, Railyard, TrickStatus

GAME: GrandCarnival = scorer.get("grand-carnival")  # type: ignore[assignment]
CAT = GAME.catalog
TRICKS = ("Shortcut Through the Sites", "Bribe the Inspectors", "Crowd Pleaser")
STACK_A = ("ww/sw", "sw/ww", "ws/ws", "sw/sw", "ww/ss", "ss/ww")
STACK_B = ("ws/sw", "sw/ws", "ww/ws", "ws/ww")
OPEN = ("ws/ss", "sw/ss", "ss/ws", "ss/sw")
EMPTY = ["........"] * 8


def cell(name: str) -> int:
    """The field index of a name like "c3"."""
    out = parse_cell(name)
    assert out is not None, name
    return out


def cells(*names: str) -> int:
    """The bitmask of some fields."""
    return mask_of([cell(n) for n in names])


def market(
    rows: Sequence[str] = EMPTY,
    attractions: Sequence[dict[str, Any]] = (),
    *,
    entrances: tuple[bool, bool] = (True, True),
    tent: int = 0,
    tricks: Sequence[TrickStatus] = (TrickStatus.OPEN,) * 3,
    numbers: Sequence[int] = (),
) -> Board:
    """One player's market from a picture and a list of attractions."""
    _, board = position_board(
        {"name": "x", "market": list(rows), "attractions": list(attractions)}, CAT, "test"
    )
    return replace(
        board, entrances=entrances, tent=tent, tricks=tuple(tricks), numbers=frozenset(numbers)
    )


def table(
    boards: Sequence[Board] | None = None,
    *,
    to_move: int = 0,
    players: Sequence[str] = ("Ann", "Ben"),
    tricks: Sequence[str] = TRICKS,
    stacks: tuple[tuple[str | None, ...], tuple[str | None, ...]] = (STACK_A, STACK_B),
    open_tiles: Sequence[str | None] = OPEN,
    discard: Sequence[str] = (),
    barkers: int | None = None,
    supply: dict[str, int] | None = None,
    seed: int | None = 1,
    game: GrandCarnival = GAME,
) -> CarnivalState:
    """A state in round 1 with these markets, ``to_move`` being the seat to play."""
    state = game.setup(list(players), list(tricks), stacks, tuple(open_tiles), seed, 0)
    if boards is not None:
        state = replace(state, boards=tuple(boards))
    state = replace(
        state,
        turn=to_move,
        railyard=Railyard(stacks=stacks, open=tuple(open_tiles), discard=tuple(discard)),
    )
    if barkers is not None:
        state = replace(state, barkers=barkers)
    if supply is not None:
        counts = list(state.supply)
        names = list(game.catalog.shapes)
        for name, count in supply.items():
            counts[names.index(name)] = count
        state = replace(state, supply=tuple(counts))
    return state


def mv(state: CarnivalState, text: str) -> Move:
    """Parse a move in the notation."""
    return GAME.parse_move(state, text)


def play(state: CarnivalState, *texts: str) -> CarnivalState:
    """Play moves (checked) one after another."""
    for text in texts:
        state, _ = GAME.play(state, mv(state, text))
    return state
