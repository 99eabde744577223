"""What the camera can see of a Grand Carnival table, and which move explains a change.

A live referee sees each player's market board: the foundation tiles, the
attractions with their tickets, guests and barkers on the market, guests on
the entrances and in the tent, and a figure on each action number taken this
round. `market_of` is what a board should look like; `infer_move` finds the
move that turns the last accepted state into what the camera sees now, or
says in a sentence why no single move does (the referee then asks instead of
guessing). The move is built from what changed, legal or not: the referee
judges it, so a foundation on a taken parcel (a tile laid over a tile) or an
attraction that is too large is caught with its reason. A tile gone from the
wagon row with no new tile on an empty parcel is not explained by any move.

The table's conventions: a player puts a figure on the action number they use
and then does the action: lays the foundation tile on its parcel, builds the
attraction, or walks one guest (and places the barker due); a figure alone is
a pass. The last figure of a round may stay off the board (it can only go on
the one number left). A foundation tile is taken from the lowest open space
that shows its pattern, else from the face-down stack 1a (1b when 1a is empty).

>>> from scorer.grand_carnival import GrandCarnival
>>> import random
>>> game = GrandCarnival()
>>> record = game.simulate(players=["Ann", "Ben"], rng=random.Random(1))
>>> state = game.record_state(record)
>>> move = game.parse_move(state, record["moves"][0])
>>> after, _ = game.apply_unchecked(state, move)
>>> found = infer_move(state, tuple(market_of(b) for b in after.boards), game.catalog)
>>> market_of(game.apply_unchecked(state, found.move)[0].boards[0]) == market_of(after.boards[0])
True
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer import core
from scorer.core import InferenceKind
from scorer.grand_carnival.components import Catalog, cell_name, cells_of
from scorer.grand_carnival.model import ENTRANCES, NUMBERS, TENT, Board, Build, CarnivalState, Foundation, Move, Pass, Walk

__all__ = ["Inference", "InferenceKind", "SeenMarket", "infer_move", "market_of"]


@dataclass(frozen=True, slots=True)
class SeenMarket:
    """One market board as the camera reports it.

    ``attractions``: (shape, fields bitmask, tickets) of each piece; ``guests`` and
    ``barkers``: bitmasks of the fields they stand on; ``numbers``: the action
    numbers holding a figure.
    """

    parcels: tuple[str | None, ...]
    attractions: frozenset[tuple[str, int, int]]
    guests: int
    barkers: int
    entrances: tuple[bool, bool]
    tent: int
    numbers: frozenset[int]


def market_of(board: Board) -> SeenMarket:
    """What the camera should see of ``board``."""
    return SeenMarket(board.parcels, frozenset((a.shape, a.mask, a.tickets) for a in board.attractions),
                      board.guests, board.barkers, board.entrances, board.tent, board.numbers)


#: the answer of `infer_move`
Inference = core.Inference[Move]


def _unexplained(message: str) -> Inference:
    return Inference.unexplained(message)


def _same(seen: SeenMarket, board: Board) -> bool:
    """True when the pieces (not the figures) are as ``board`` has them; tickets may differ."""
    mine = market_of(board)
    return (seen.parcels == mine.parcels and {(s, m) for s, m, _ in seen.attractions}
            == {(s, m) for s, m, _ in mine.attractions} and seen.guests == mine.guests
            and seen.barkers == mine.barkers and seen.entrances == mine.entrances and seen.tent == mine.tent)


def infer_move(state: CarnivalState, seen: tuple[SeenMarket, ...], catalog: Catalog,
               railyard: tuple[str | None, ...] | None = None) -> Inference:
    """The move that turns ``state`` into the markets ``seen`` (seat order), or why there is none.

    ``railyard``: the open tiles seen on spaces 2..5 (None: an empty space), when the
    wagon row is in view; it tells which space a foundation tile came from and
    whether the open tiles were thrown away.
    """
    if len(seen) != len(state.boards):
        return _unexplained(f"{len(seen)} market(s) seen for {len(state.boards)} player(s).")
    if state.round >= 7:
        return Inference(InferenceKind.UNCHANGED)
    seat = (state.start_player + state.turn) % len(state.players)
    for other, (view, board) in enumerate(zip(seen, state.boards)):
        if other != seat and not _same(view, board):
            return _unexplained(f"{state.players[other]}'s market changed, but it is {state.players[seat]}'s turn.")
    board, view = state.boards[seat], seen[seat]
    name = state.players[seat]
    free = [n for n in NUMBERS if n not in board.numbers]
    changed = not _same(view, board)
    if len(free) == 1 and (changed or not view.numbers):
        # the last turn of the round: its number is forced; its figure may stay in the hand,
        # and the figures may already be lifted for the next round
        if view.numbers not in (frozenset(), board.numbers, board.numbers | set(free)):
            return _unexplained(f"{name}: the figures do not match this round's numbers.")
        placed = free
    else:
        if not board.numbers <= view.numbers:
            return _unexplained(f"{name}: a figure left an action number taken this round.")
        placed = sorted(view.numbers - board.numbers)
    if len(placed) > 1:
        return _unexplained(f"{name}: figures on {' and '.join(map(str, placed))}; one action at a time.")
    if not placed:
        if changed:
            return _unexplained(f"{name}: put your figure on the action number you use.")
        return Inference(InferenceKind.UNCHANGED)
    number = placed[0]
    new_parcels = [p for p in range(16) if view.parcels[p] != board.parcels[p]]
    old = {(a.shape, a.mask) for a in board.attractions}
    now = {(s, m) for s, m, _ in view.attractions}
    built = sorted(now - old, key=lambda a: a[1])
    if old - now:
        return _unexplained(f"{name}: an attraction was taken off the market.")
    guests_moved = (view.guests != board.guests or view.entrances != board.entrances or view.tent != board.tent)
    kinds = sum(map(bool, (new_parcels, built, guests_moved)))
    if kinds > 1:
        return _unexplained(f"{name}: more than one action on the market; one action a turn.")
    if new_parcels:
        return _foundation(state, seat, number, new_parcels, view, catalog, railyard)
    if railyard is not None and any(t is not None and (k >= len(railyard) or railyard[k] != t)
                                    for k, t in enumerate(state.railyard.open)):
        # a tile taken, yet no parcel shows a new one: laid over a tile, or where the camera cannot see it
        return _unexplained(f"{name}: a tile left the wagon row, but no empty parcel of the market shows it; "
                            f"a foundation tile goes on an empty parcel, never over a tile.")
    if built:
        if len(built) > 1:
            return _unexplained(f"{name}: {len(built)} new attractions; one a turn.")
        shape, mask = built[0]
        return Inference(InferenceKind.MOVE, Build(seat, number, shape, mask))
    if guests_moved or view.barkers != board.barkers:
        return _walk(state, seat, number, view, catalog)
    return Inference(InferenceKind.MOVE, Pass(seat, number))


def _foundation(state: CarnivalState, seat: int, number: int, parcels: list[int], view: SeenMarket,
                catalog: Catalog, railyard: tuple[str | None, ...] | None) -> Inference:
    board = state.boards[seat]
    name = state.players[seat]
    if len(parcels) > 1:
        return _unexplained(f"{name}: {len(parcels)} parcels changed; one foundation tile a turn.")
    parcel = parcels[0]
    tile = view.parcels[parcel]
    where = cell_name(parcel // 4 * 16 + parcel % 4 * 2)
    if tile is None:
        return _unexplained(f"{name}: the foundation tile on {where} was taken off the market.")
    if view.guests != board.guests or view.barkers != board.barkers:
        return _unexplained(f"{name}: guests or barkers moved with a foundation tile.")
    yard = state.railyard
    source = next((str(k + 2) for k, t in enumerate(yard.open) if t == tile), None)
    if source is None:
        source = "1a" if yard.stacks[0] else "1b"
    guess = Foundation(seat, number, source, tile, parcel)
    if railyard is None:
        return Inference(InferenceKind.MOVE, guess)
    from scorer.grand_carnival.rules import apply_move, check_move

    sources = [str(k + 2) for k, t in enumerate(yard.open) if t == tile] + ["1a", "1b"]
    # the table's convention: the lowest open space showing the pattern, else a face-down stack; the open tiles
    # thrown away last (their refill, unseen by the engine, matches any row). A take from an open space that
    # the number does not reach is returned for the referee to judge before it is explained as a discard.
    opens = [Foundation(seat, number, src, tile, parcel) for src in sources[:-2]]
    stacks = [Foundation(seat, number, src, tile, parcel) for src in ("1a", "1b")]
    legal = [m for m in opens + stacks if not check_move(state, m, catalog).is_illegal]
    tries = legal + [m for m in opens if m not in legal] + [
        d for d in (Foundation(seat, number, src, tile, parcel, True) for src in ("1a", "1b"))
        if not check_move(state, d, catalog).is_illegal]
    for move in tries:
        try:
            after, _ = apply_move(state, move, catalog)
        except (ValueError, IndexError):
            continue
        shown = after.railyard.open
        # a space the engine cannot see (a tile refilled from a face-down stack) matches any tile
        if all((seen_tile is None) if k >= len(shown) else (shown[k] is None or shown[k] == seen_tile)
               for k, seen_tile in enumerate(railyard[:4])):
            return Inference(InferenceKind.MOVE, move)
    return Inference(InferenceKind.MOVE, guess)


def _walk(state: CarnivalState, seat: int, number: int, view: SeenMarket, catalog: Catalog) -> Inference:
    board = state.boards[seat]
    name = state.players[seat]
    left = cells_of(board.guests & ~view.guests)
    arrived = cells_of(view.guests & ~board.guests)
    barkers = cells_of(view.barkers & ~board.barkers)
    if board.barkers & ~view.barkers:
        return _unexplained(f"{name}: a barker left the market.")
    if len(barkers) > 1:
        return _unexplained(f"{name}: {len(barkers)} new barkers; at most one comes with a walk.")
    starts: list[int] = list(left)
    if not starts:
        # from an entrance: the one emptied, or either when new guests refilled both
        emptied = [ENTRANCES[k] for k in (0, 1) if board.entrances[k] and not view.entrances[k]]
        starts = emptied or [ENTRANCES[k] for k in (0, 1) if board.entrances[k]]
    ends: list[int] = list(arrived) + ([TENT] if view.tent == board.tent + 1 else [])
    if len(left) > 1 or len(ends) != 1 or not starts or view.tent < board.tent:
        return _unexplained(f"{name}: move one guest a turn (from a field or an entrance to a field or the tent).")
    barker = barkers[0] if barkers else None
    moves = [Walk(seat, number, start, ends[0], barker) for start in starts]
    if len(moves) > 1:
        # both entrances held a guest before and after: the one whose walk is legal
        from scorer.grand_carnival.rules import check_move

        legal = [m for m in moves if not check_move(state, m, catalog).is_illegal]
        moves = legal or moves[:1]
    return Inference(InferenceKind.MOVE, moves[0])
