"""The Grand Carnival's rules: legal moves, checks and their effect on a state.

Pure functions of a state, a move and the catalog (`components.CATALOG` or a
variant's). `GrandCarnival` in `scorer.grand_carnival.game` wraps them.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache

from scorer.core import LEGAL, Check, Event
from scorer.grand_carnival.components import (
    ALL,
    TOP_ROW,
    Catalog,
    Condition,
    Effect,
    cell_name,
    cells_of,
    neighbours,
    normalise,
)
from scorer.grand_carnival.model import (
    ENTRANCES,
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
    Reason,
    TrickStatus,
    Walk,
)
from scorer.grand_carnival.scoring import score_board

__all__ = [
    "apply_move",
    "can_act",
    "check_move",
    "current_seat",
    "effects",
    "legal_moves",
    "reach",
    "spot_name",
]

OPEN_SPACES = 4


def spot_name(spot: int) -> str:
    """A walk's start or end in the notation: a field, ``in1``/``in2`` or ``tent``."""
    if spot == TENT:
        return "tent"
    if spot in ENTRANCES:
        return f"in{ENTRANCES.index(spot) + 1}"
    return cell_name(spot)


def current_seat(state: CarnivalState) -> int | None:
    """The seat to move, None when the game is over."""
    if state.round >= ROUNDS:
        return None
    return (state.start_player + state.turn) % len(state.players)


def effects(state: CarnivalState, board: Board, catalog: Catalog) -> dict[Effect, int]:
    """How many learned tricks give each effect to this board's player."""
    out: dict[Effect, int] = {}
    for name, status in zip(state.tricks, board.tricks):
        if status is TrickStatus.LEARNED:
            effect = catalog.tricks[name].effect
            out[effect] = out.get(effect, 0) + 1
    return out


def _walkable(board: Board, fx: dict[Effect, int]) -> int:
    if Effect.WALK_ON_SITES in fx:
        return board.walkways | (board.sites & ~board.covered)
    return board.walkways


def _steps(board: Board, number: int, fx: dict[Effect, int]) -> int:
    return number + board.barkers.bit_count() + fx.get(Effect.EXTRA_STEP, 0)


def reach(start: int, steps: int, passable: int, catalog: Catalog) -> list[int]:
    """Fields a guest can reach: element d is the set reachable in at most d steps.

    ``passable`` are the fields the guest may enter (walkable and free). From
    an entrance the first step goes onto its row-1 field [DECISION: leaving an
    entrance is 1 step]. Steps are orthogonal [DECISION]. Element 0 holds the
    start (empty for an entrance).
    """
    if start in ENTRANCES:
        levels = [0]
        entry = 1 << catalog.entrance_cells[ENTRANCES.index(start)]
        if not entry & passable or steps < 1:
            return levels + [0] * steps
        seen = frontier = entry
        levels.append(seen)
    else:
        seen = frontier = 1 << start
        levels = [seen]
    while len(levels) <= steps:
        frontier = neighbours(frontier) & passable & ~seen
        seen |= frontier
        levels.append(seen)
    return levels


def _ends(levels: list[int], steps: int, start: int) -> tuple[int, bool]:
    """Reachable end fields (bitmask) within ``steps`` and whether the tent is."""
    ends = levels[steps]
    if start not in ENTRANCES:
        ends &= ~(1 << start)
    # [DECISION] entering the tent is one step from a top-row field.
    tent = steps >= 1 and bool(levels[steps - 1] & TOP_ROW)
    return ends, tent


def _free_sites(board: Board) -> int:
    return board.sites & ~board.covered & ~board.guests


def _source_tile(railyard: Railyard, source: str) -> tuple[bool, str | None]:
    """(is there a tile, its pattern or None when unseen) for a railyard source."""
    if source == "1a" or source == "1b":
        stack = railyard.stacks[0 if source == "1a" else 1]
        return (True, stack[0]) if stack else (False, None)
    index = int(source) - 2
    if index < len(railyard.open):
        return True, railyard.open[index]
    return False, None


def _reach_of_number(number: int, fx: dict[Effect, int]) -> int:
    return number + fx.get(Effect.RAILYARD_REACH, 0)


# Move values are immutable, so the engine hands out the same objects again
# instead of building thousands of equal ones per turn (pure memoisation).
_FOUNDATION_ROWS: dict[tuple[int, int, str, str, bool], tuple[Foundation, ...]] = {}
_BUILDS: dict[tuple[int, int, str, int], Build] = {}
_CATALOGS: dict[int, Catalog] = {}


def _foundation_row(seat: int, number: int, source: str, tile: str, discard: bool) -> tuple[Foundation, ...]:
    """The 16 foundation moves (one per parcel) for these values."""
    key = (seat, number, source, tile, discard)
    row = _FOUNDATION_ROWS.get(key)
    if row is None:
        row = tuple(Foundation(seat, number, source, tile, p, discard) for p in range(16))
        _FOUNDATION_ROWS[key] = row
    return row


def _build(seat: int, number: int, shape: str, mask: int) -> Build:
    key = (seat, number, shape, mask)
    move = _BUILDS.get(key)
    if move is None:
        move = _BUILDS[key] = Build(seat, number, shape, mask)
    return move


@lru_cache(maxsize=512)
def _fits(catalog_id: int, free: int, allowed: int) -> tuple[tuple[str, int, int], ...]:
    """(shape, size, mask) of every placement on the ``free`` sites, for the
    shapes whose catalog index is set in ``allowed``."""
    catalog = _CATALOGS[catalog_id]
    anchors = cells_of(free)
    out = []
    for index, (name, shape) in enumerate(catalog.shapes.items()):
        if not allowed >> index & 1:
            continue
        by_anchor = shape.by_anchor
        for cell in anchors:
            for mask in by_anchor[cell]:
                if mask & free == mask:
                    out.append((name, shape.size, mask))
    return tuple(out)


@lru_cache(maxsize=512)
def _build_lists(
    seat: int, catalog_id: int, free: int, allowed: int, bigger: int
) -> tuple[tuple[Build, ...], ...]:
    """Build moves by action number (index 0..5) for these free sites and shapes."""
    placements = _fits(catalog_id, free, allowed)
    return tuple(
        tuple(_build(seat, n, name, mask) for name, size, mask in placements if size <= n + bigger)
        for n in range(NUMBERS[-1] + 1)
    )


def _allowed_shapes(state: CarnivalState, catalog: Catalog, max_size: int) -> int:
    """Bit i set: shape i of the catalog is in the supply and at most ``max_size``."""
    allowed = 0
    for index, (shape, left) in enumerate(zip(catalog.shapes.values(), state.supply)):
        if left > 0 and shape.size <= max_size:
            allowed |= 1 << index
    return allowed


def _placements(
    board: Board, state: CarnivalState, catalog: Catalog, max_size: int
) -> tuple[tuple[str, int, int], ...]:
    """(shape, size, mask) for every attraction that fits the board."""
    free = _free_sites(board)
    if not free:
        return ()
    allowed = _allowed_shapes(state, catalog, max_size)
    if not allowed:
        return ()
    _CATALOGS.setdefault(id(catalog), catalog)
    return _fits(id(catalog), free, allowed)


#: Stands in for the entrances after a walk that did not start on one: no barker is due.
_NO_BARKER = (True, True)


def _barker_due(state: CarnivalState, board: Board, entrances: tuple[bool, bool], guests: int) -> int:
    """The empty walkways a barker may go to after a walk (0: no barker due)."""
    if entrances[0] or entrances[1] or state.barkers <= 0:
        return 0
    return board.walkways & ~guests & ~board.barkers


def _guest_starts(board: Board) -> list[int]:
    starts = [ENTRANCES[i] for i in (0, 1) if board.entrances[i]]
    starts.extend(cells_of(board.guests))
    return starts


def legal_moves(state: CarnivalState, catalog: Catalog) -> list[Move]:
    """Every legal move for the player to move (full information).

    A railyard tile the state cannot see is offered as every pattern in the box.
    """
    seat = current_seat(state)
    if seat is None:
        return []
    board = state.boards[seat]
    numbers = [n for n in NUMBERS if n not in board.numbers]
    if not numbers:
        return []
    fx = effects(state, board, catalog)
    top = max(numbers)
    moves: list[Move] = []
    per_number: dict[int, list[Move]] = {n: [] for n in numbers}

    # Foundations.
    empty_parcels = [p for p in range(16) if board.parcels[p] is None]
    if empty_parcels:
        has_open = bool(state.railyard.open)
        reach_bonus = fx.get(Effect.RAILYARD_REACH, 0)
        for source in SOURCES:
            present, tile = _source_tile(state.railyard, source)
            if not present:
                continue
            space = 1 if source[0] == "1" else int(source)
            tiles = [tile] if tile is not None else list(catalog.foundations)
            discards = (False, True) if space == 1 and has_open else (False,)
            for n in numbers:
                if space > n + reach_bonus:
                    continue
                bucket = per_number[n]
                for t in tiles:
                    for d in discards:
                        row = _foundation_row(seat, n, source, t, d)
                        if len(empty_parcels) == 16:
                            bucket.extend(row)
                        else:
                            bucket.extend([row[p] for p in empty_parcels])

    # Attractions.
    bigger = fx.get(Effect.BUILD_BIGGER, 0)
    free = _free_sites(board)
    if free:
        allowed = _allowed_shapes(state, catalog, NUMBERS[-1] + bigger)
        if allowed:
            _CATALOGS.setdefault(id(catalog), catalog)
            lists = _build_lists(seat, id(catalog), free, allowed, bigger)
            for n in numbers:
                per_number[n].extend(lists[n])

    # Guests.
    extra = board.barkers.bit_count() + fx.get(Effect.EXTRA_STEP, 0)
    max_steps = top + extra
    passable = _walkable(board, fx) & ~board.guests & ~board.barkers
    for start in _guest_starts(board):
        levels = reach(start, max_steps, passable, catalog)
        if start in ENTRANCES:
            entrances = (
                board.entrances[0] and start != ENTRANCES[0],
                board.entrances[1] and start != ENTRANCES[1],
            )
            left = board.guests
        else:
            entrances = _NO_BARKER
            left = board.guests & ~(1 << start)
        for n in numbers:
            ends, tent = _ends(levels, n + extra, start)
            bucket = per_number[n]
            for end in cells_of(ends):
                spots = _barker_due(state, board, entrances, left | (1 << end))
                if spots:
                    for spot in cells_of(spots):
                        bucket.append(Walk(seat, n, start, end, spot))
                else:
                    bucket.append(Walk(seat, n, start, end))
            if tent:
                spots = _barker_due(state, board, entrances, left)
                if spots:
                    for spot in cells_of(spots):
                        bucket.append(Walk(seat, n, start, TENT, spot))
                else:
                    bucket.append(Walk(seat, n, start, TENT))

    # [DECISION] a figure may go on a number that allows nothing only when no
    # free number allows an action ("one of the actions you can actually carry out").
    if any(per_number[n] for n in numbers):
        for n in numbers:
            moves.extend(per_number[n])
    else:
        moves.extend(Pass(seat, n) for n in numbers)
    return moves


def can_act(state: CarnivalState, seat: int, number: int, catalog: Catalog) -> bool:
    """True when the player can carry out some action with this number."""
    board = state.boards[seat]
    fx = effects(state, board, catalog)
    if any(p is None for p in board.parcels):
        for source in SOURCES:
            space = 1 if source[0] == "1" else int(source)
            if space <= _reach_of_number(number, fx) and _source_tile(state.railyard, source)[0]:
                return True
    if _placements(board, state, catalog, number + fx.get(Effect.BUILD_BIGGER, 0)):
        return True
    steps = _steps(board, number, fx)
    passable = _walkable(board, fx) & ~board.guests & ~board.barkers
    for start in _guest_starts(board):
        ends, tent = _ends(reach(start, steps, passable, catalog), steps, start)
        if ends or tent:
            return True
    return False



def check_move(state: CarnivalState, move: Move, catalog: Catalog) -> Check:
    """LEGAL, ILLEGAL with a reason a new player understands, or UNVERIFIABLE."""
    if not isinstance(move, (Foundation, Build, Walk, Pass)):
        return Check.illegal(Reason.NOT_A_MOVE, "That is not a move of The Grand Carnival.")
    seat = current_seat(state)
    if seat is None:
        return Check.illegal(Reason.GAME_OVER, "The game is over: all 7 rounds have been played.")
    if move.seat != seat:
        if 0 <= move.seat < len(state.players):
            message = f"It is {state.players[seat]}'s turn, not {state.players[move.seat]}'s."
        else:
            message = f"It is {state.players[seat]}'s turn; there is no seat {move.seat}."
        return Check.illegal(Reason.NOT_YOUR_TURN, message)
    board = state.boards[seat]
    if move.number not in NUMBERS:
        return Check.illegal(Reason.NUMBER_TAKEN, "Action numbers run from 1 to 5.")
    if move.number in board.numbers:
        return Check.illegal(
            Reason.NUMBER_TAKEN,
            f"Your number {move.number} already holds a figure this round: choose an empty number.",
        )
    fx = effects(state, board, catalog)
    if isinstance(move, Foundation):
        return _check_foundation(state, board, move, fx, catalog)
    if isinstance(move, Build):
        return _check_build(state, board, move, fx, catalog)
    if isinstance(move, Walk):
        return _check_walk(state, board, move, fx, catalog)
    if can_act(state, seat, move.number, catalog):
        return Check.illegal(
            Reason.MUST_ACT,
            f"You can still do an action with number {move.number}, so you may not pass.",
        )
    for other in NUMBERS:
        if other not in board.numbers and other != move.number and can_act(state, seat, other, catalog):
            return Check.illegal(
                Reason.MUST_ACT,
                f"Number {move.number} allows no action, but number {other} does: "
                f"put your figure on a number whose action you can carry out.",
            )
    return LEGAL


def _check_foundation(
    state: CarnivalState, board: Board, move: Foundation, fx: dict[Effect, int], catalog: Catalog
) -> Check:
    if move.source not in SOURCES:
        return Check.illegal(Reason.SPACE_EMPTY, f"The railyard has no space {move.source!r}.")
    space = 1 if move.source[0] == "1" else int(move.source)
    limit = _reach_of_number(move.number, fx)
    if space > limit:
        return Check.illegal(
            Reason.SPACE_TOO_FAR,
            f"With number {move.number} you may take a foundation from railyard spaces 1 to "
            f"{limit} only, not from space {space}.",
        )
    present, tile = _source_tile(state.railyard, move.source)
    if not present:
        where = f"stack {move.source}" if space == 1 else f"railyard space {space}"
        return Check.illegal(Reason.SPACE_EMPTY, f"There is no tile on {where}.")
    if not 0 <= move.parcel < 16 or board.parcels[move.parcel] is not None:
        return Check.illegal(
            Reason.PARCEL_TAKEN,
            "A foundation tile goes on an empty parcel of your market; that one already has a tile.",
        )
    if move.discard:
        if space != 1:
            return Check.illegal(
                Reason.DISCARD_NOT_ALLOWED,
                "You may discard the open tiles only after taking a face-down tile.",
            )
        if not state.railyard.open:
            return Check.illegal(
                Reason.DISCARD_NOT_ALLOWED, "There are no open tiles on the railyard to discard."
            )
    if move.tile not in catalog.foundations:
        return Check.illegal(Reason.WRONG_TILE, f"There is no foundation tile {move.tile!r} in the game.")
    if tile is None:
        return Check.unverifiable(
            "The referee cannot see which tile lies there; it trusts the tile named.", Reason.WRONG_TILE
        )
    if tile != move.tile:
        where = f"The top tile of stack {move.source}" if space == 1 else f"The tile on railyard space {space}"
        return Check.illegal(Reason.WRONG_TILE, f"{where} is {tile}, not {move.tile}.")
    return LEGAL


def _check_build(
    state: CarnivalState, board: Board, move: Build, fx: dict[Effect, int], catalog: Catalog
) -> Check:
    shape = catalog.shapes.get(move.shape)
    if shape is None:
        return Check.illegal(Reason.NOT_THAT_SHAPE, f"There is no attraction {move.shape!r} in the game.")
    limit = move.number + fx.get(Effect.BUILD_BIGGER, 0)
    if shape.size > limit:
        return Check.illegal(
            Reason.TOO_LARGE,
            f"With number {move.number} you may build an attraction of at most {limit} "
            f"field{'s' if limit > 1 else ''}; {move.shape} has {shape.size}.",
        )
    index = list(catalog.shapes).index(move.shape)
    if state.supply[index] <= 0:
        return Check.illegal(Reason.NONE_LEFT, f"No {move.shape} attraction is left in the supply.")
    if not 0 < move.mask <= ALL:
        return Check.illegal(Reason.NOT_THAT_SHAPE, f"Those fields do not form a {move.shape} attraction.")
    form = normalise([divmod(c, 8) for c in cells_of(move.mask)])
    if form not in shape.orientations:
        if form in shape.mirrored:
            return Check.illegal(
                Reason.MIRRORED,
                f"Those fields form the mirror image of {move.shape}: attractions may be turned "
                "but not flipped over.",
            )
        return Check.illegal(
            Reason.NOT_THAT_SHAPE, f"Those fields do not form a {move.shape} attraction."
        )
    bad = move.mask & ~_free_sites(board)
    if bad:
        cell = cells_of(bad)[0]
        bit = 1 << cell
        if bit & board.covered:
            what = "already holds an attraction"
        elif bit & board.guests:
            what = "has a guest on it"
        elif bit & board.walkways:
            what = "is a walkway"
        else:
            what = "is an empty parcel without a foundation tile"
        return Check.illegal(
            Reason.NOT_ON_SITES,
            f"Attractions go on empty construction sites only; {cell_name(cell)} {what}.",
        )
    return LEGAL


def _check_walk(
    state: CarnivalState, board: Board, move: Walk, fx: dict[Effect, int], catalog: Catalog
) -> Check:
    start, end = move.start, move.end
    if start in ENTRANCES:
        has_guest = board.entrances[ENTRANCES.index(start)]
    else:
        has_guest = 0 <= start < 64 and bool(board.guests >> start & 1)
    if not has_guest:
        return Check.illegal(Reason.NO_GUEST, f"There is no guest of yours on {spot_name(start)}.")
    if end == start:
        return Check.illegal(Reason.SAME_FIELD, "A guest must end its walk on another field than it started.")
    walkable = _walkable(board, fx)
    if end != TENT:
        if not 0 <= end < 64:
            return Check.illegal(Reason.NOT_WALKABLE, "Guests may never walk onto an entrance.")
        bit = 1 << end
        if not bit & walkable:
            what = "a construction site" if bit & board.sites & ~board.covered else (
                "an attraction" if bit & board.covered else "an empty parcel"
            )
            return Check.illegal(
                Reason.NOT_WALKABLE,
                f"Guests walk on walkways only; {cell_name(end)} is {what}.",
            )
        if bit & (board.guests | board.barkers):
            who = "a guest" if bit & board.guests else "a barker"
            return Check.illegal(Reason.OCCUPIED, f"{cell_name(end)} already has {who} on it.")
    steps = _steps(board, move.number, fx)
    blockers = board.guests | board.barkers
    ends, tent = _ends(reach(start, steps, walkable & ~blockers, catalog), steps, start)
    ok = tent if end == TENT else bool(ends >> end & 1)
    if not ok:
        free_ends, free_tent = _ends(reach(start, steps, walkable, catalog), steps, start)
        target = "the circus tent" if end == TENT else cell_name(end)
        if free_tent if end == TENT else bool(free_ends >> end & 1):
            return Check.illegal(
                Reason.BLOCKED,
                f"Guests and barkers stand in the way: the guest cannot get to {target} "
                "without walking through them.",
            )
        barkers = board.barkers.bit_count()
        extra = f" plus {barkers} for your barkers" if barkers else ""
        how = " (the tent is entered from a field of the top row)" if end == TENT else ""
        return Check.illegal(
            Reason.TOO_FAR,
            f"{target} is out of reach: the guest may walk {steps} step{'s' if steps != 1 else ''} "
            f"(your number {move.number}{extra}) along walkways{how}.",
        )
    if start in ENTRANCES:
        entrances = (
            board.entrances[0] and start != ENTRANCES[0],
            board.entrances[1] and start != ENTRANCES[1],
        )
        left = board.guests
    else:
        entrances = _NO_BARKER
        left = board.guests & ~(1 << start)
    after = left if end == TENT else left | (1 << end)
    spots = _barker_due(state, board, entrances, after)
    if move.barker is None:
        if spots:
            return Check.illegal(
                Reason.BARKER_MISSING,
                "Both entrances are now empty: new guests arrive and you take a barker; "
                "say which empty walkway it goes on.",
            )
        return LEGAL
    if entrances[0] or entrances[1]:
        return Check.illegal(
            Reason.NO_BARKER_DUE,
            "You get a barker only when your walk leaves both entrances empty.",
        )
    if not spots:
        why = "no barker is left in the supply" if state.barkers <= 0 else "you have no empty walkway"
        return Check.illegal(Reason.NO_BARKER_DUE, f"No barker comes: {why}.")
    if not 0 <= move.barker < 64 or not spots >> move.barker & 1:
        return Check.illegal(
            Reason.BARKER_SPOT,
            f"A barker goes on an empty walkway; {spot_name(move.barker) if 0 <= move.barker < 64 else 'that spot'} is not one.",
        )
    return LEGAL


# -- applying moves ----------------------------------------------------------


def _normalise_stacks(
    stacks: list[list[str | None]], discard: list[str | None], seed: int | None, reshuffles: int
) -> int:
    """Shuffle the discard pile into an empty stack; returns the new reshuffle count."""
    for i in (0, 1):
        if not stacks[i] and discard:
            pile = list(discard)
            discard.clear()
            if seed is None or any(t is None for t in pile):
                stacks[i] = [None] * len(pile)
            else:
                random.Random(seed * 1_000_003 + reshuffles).shuffle(pile)
                stacks[i] = pile
            reshuffles += 1
    return reshuffles


def _draw(stacks: list[list[str | None]], discard: list[str | None], seed: int | None, reshuffles: int) -> tuple[bool, str | None, int]:
    reshuffles = _normalise_stacks(stacks, discard, seed, reshuffles)
    for stack in stacks:
        if stack:
            return True, stack.pop(0), reshuffles
    return False, None, reshuffles


def _take_tile(state: CarnivalState, move: Foundation) -> tuple[Railyard, int]:
    """The railyard after the tile is taken, and the new reshuffle count.

    [DECISION] refills come from stack 1a while it has tiles, then from 1b; an
    empty stack is rebuilt at once from the shuffled discard pile.
    """
    yard = state.railyard
    stacks: list[list[str | None]] = [list(yard.stacks[0]), list(yard.stacks[1])]
    open_tiles: list[str | None] = list(yard.open)
    discard: list[str | None] = list(yard.discard)
    reshuffles = state.reshuffles
    if move.source in ("1a", "1b"):
        stacks[0 if move.source == "1a" else 1].pop(0)
        if move.discard:
            discard.extend(open_tiles)
            open_tiles = []
    else:
        open_tiles.pop(int(move.source) - 2)
    while len(open_tiles) < OPEN_SPACES and (move.source not in ("1a", "1b") or move.discard):
        got, tile, reshuffles = _draw(stacks, discard, state.seed, reshuffles)
        if not got:
            break
        open_tiles.append(tile)
    reshuffles = _normalise_stacks(stacks, discard, state.seed, reshuffles)
    return (
        Railyard(
            stacks=(tuple(stacks[0]), tuple(stacks[1])),
            open=tuple(open_tiles),
            discard=tuple(discard),
        ),
        reshuffles,
    )


def _condition_met(trick_condition: Condition, at_least: int, board: Board) -> bool:
    if trick_condition is Condition.ATTRACTION_TICKETS:
        return any(a.tickets >= at_least for a in board.attractions)
    if trick_condition is Condition.TICKETS:
        return board.tickets >= at_least
    if trick_condition is Condition.FOUNDATIONS:
        return sum(1 for p in board.parcels if p is not None) >= at_least
    if trick_condition is Condition.ATTRACTIONS:
        return len(board.attractions) >= at_least
    if trick_condition is Condition.GUESTS_IN_TENT:
        return board.tent >= at_least
    return board.barkers.bit_count() >= at_least


def _check_tricks(
    state: CarnivalState, boards: list[Board], seat: int, catalog: Catalog, events: list[Event]
) -> None:
    """Phase II: the active player learns or misses tricks; others become pending."""
    name = state.players[seat]
    for i, trick_name in enumerate(state.tricks):
        status = boards[seat].tricks[i]
        if status is TrickStatus.LEARNED or status is TrickStatus.LOST:
            continue
        trick = catalog.tricks[trick_name]
        met = _condition_met(trick.condition, trick.at_least, boards[seat])
        if met:
            boards[seat] = _with_trick(boards[seat], i, TrickStatus.LEARNED)
            events.append(
                Event("trick learned", text=f"{name} learns {trick_name!r}; it works from their next turn.")
            )
            if status is TrickStatus.OPEN:
                for other in range(len(boards)):
                    if other != seat and boards[other].tricks[i] is TrickStatus.OPEN:
                        boards[other] = _with_trick(boards[other], i, TrickStatus.PENDING)
        elif status is TrickStatus.PENDING:
            boards[seat] = _with_trick(boards[seat], i, TrickStatus.LOST)
            events.append(
                Event(
                    "trick missed",
                    text=f"{name} did not meet the condition of {trick_name!r} ({trick.describe()}) in time "
                    "and cannot learn it any more.",
                )
            )


def _with_trick(board: Board, index: int, status: TrickStatus) -> Board:
    tricks = list(board.tricks)
    tricks[index] = status
    return replace(board, tricks=tuple(tricks))


def apply_move(state: CarnivalState, move: Move, catalog: Catalog) -> tuple[CarnivalState, tuple[Event, ...]]:
    """Play a move without checking it; the new state and the events."""
    seat = move.seat
    name = state.players[seat]
    boards = list(state.boards)
    board = boards[seat]
    events: list[Event] = []
    railyard = state.railyard
    supply = state.supply
    barker_supply = state.barkers
    reshuffles = state.reshuffles
    numbers = board.numbers | {move.number}
    if isinstance(move, Foundation):
        railyard, reshuffles = _take_tile(state, move)
        parcels = list(board.parcels)
        parcels[move.parcel] = move.tile
        walk, site = catalog.pattern_masks[move.tile][move.parcel]
        board = replace(
            board,
            parcels=tuple(parcels),
            walkways=board.walkways | walk,
            sites=board.sites | site,
            numbers=numbers,
        )
    elif isinstance(move, Build):
        index = list(catalog.shapes).index(move.shape)
        supply = supply[:index] + (supply[index] - 1,) + supply[index + 1 :]
        board = replace(
            board,
            attractions=board.attractions + (Attraction(move.shape, move.mask, 0),),
            covered=board.covered | move.mask,
            numbers=numbers,
        )
    elif isinstance(move, Walk):
        board, barker_supply = _apply_walk(state, board, move, numbers, name, events, catalog)
    else:
        board = replace(board, numbers=numbers)
    boards[seat] = board
    _check_tricks(state, boards, seat, catalog, events)

    turn = state.turn + 1
    round_ = state.round
    start = state.start_player
    players = len(state.players)
    if turn >= len(NUMBERS) * players:
        turn = 0
        round_ += 1
        # [DECISION/SEED] the start player marker passes to the right: seats
        # are listed clockwise and play goes clockwise, so "right" is seat - 1.
        start = (start - 1) % players
        boards = [replace(b, numbers=frozenset()) for b in boards]
        if round_ >= ROUNDS:
            totals = tuple((i, score_board(b, catalog).total) for i, b in enumerate(boards))
            events.append(Event("game over", totals, "Seven rounds are over: final scoring."))
        else:
            events.append(
                Event("round over", text=f"Round {round_ + 1} begins; {state.players[start]} starts.")
            )
    new = CarnivalState(
        players=state.players,
        boards=tuple(boards),
        railyard=railyard,
        supply=supply,
        barkers=barker_supply,
        tricks=state.tricks,
        round=round_,
        start_player=start,
        turn=turn,
        seed=state.seed,
        reshuffles=reshuffles,
    )
    return new, tuple(events)


def guests_left(state: CarnivalState, catalog: Catalog) -> int | None:
    """Guests left in the shared supply (``[guests] supply``); None when it never runs out."""
    if catalog.guests is None:
        return None
    in_play = sum(
        b.entrances[0] + b.entrances[1] + b.guests.bit_count() + b.tent for b in state.boards
    )
    return max(0, catalog.guests[len(state.players) - 1] - in_play)


def _apply_walk(
    state: CarnivalState,
    board: Board,
    move: Walk,
    numbers: frozenset[int],
    name: str,
    events: list[Event],
    catalog: Catalog,
) -> tuple[Board, int]:
    entrances = board.entrances
    guests = board.guests
    if move.start in ENTRANCES:
        i = ENTRANCES.index(move.start)
        entrances = (False, entrances[1]) if i == 0 else (entrances[0], False)
    else:
        guests &= ~(1 << move.start)
    tent = board.tent
    attractions = board.attractions
    if move.end == TENT:
        tent += 1
        events.append(Event("tent", text=f"A guest of {name} enters the circus tent."))
    else:
        guests |= 1 << move.end
        around = neighbours(1 << move.end)
        if around & board.covered:
            updated = []
            ticketed = 0
            for a in attractions:
                # [DECISION] a full attraction simply takes no ticket.
                if a.mask & around and a.tickets < a.mask.bit_count():
                    a = Attraction(a.shape, a.mask, a.tickets + 1)
                    ticketed += 1
                updated.append(a)
            attractions = tuple(updated)
            if ticketed:
                events.append(
                    Event("tickets", text=f"{name} puts a ticket on {ticketed} attraction(s).")
                )
    barkers = board.barkers
    barker_supply = state.barkers
    if move.start in ENTRANCES and not entrances[0] and not entrances[1]:
        left = guests_left(state, catalog)
        # The walking guest stays in play, so the count before the move is the count after it.
        entrances = (True, True) if left is None else (left >= 1, left >= 2)
        if entrances[1]:
            events.append(Event("guests arrive", text=f"New guests arrive at {name}'s entrances."))
        elif entrances[0]:
            events.append(Event("guests arrive", text=f"The last guest of the supply arrives at {name}'s entrance."))
        else:
            events.append(Event("guests arrive", text="The guest supply is empty: no new guests arrive."))
        if move.barker is not None:
            barkers |= 1 << move.barker
            barker_supply -= 1
            events.append(Event("barker", text=f"{name} places a barker on {cell_name(move.barker)}."))
    board = replace(
        board,
        guests=guests,
        entrances=entrances,
        tent=tent,
        barkers=barkers,
        attractions=attractions,
        numbers=numbers,
    )
    return board, barker_supply
