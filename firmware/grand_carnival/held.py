"""Places the camera could not read, taken from the last accepted state where nothing done this turn could change them.

A lamp over the table lights the same spot of a market frame after frame, and
where its glare saturates the camera a place cannot be read (the recogniser
holds it: `vision.grand_carnival.pipeline.Unrecognised`). Waiting for the next
frame does not help. But the referee knows the table as it accepted it, and
whose turn it is, so it can tell which places could have changed since:

* a market whose player is not on turn changes only when the round's figures
  are lifted (every action number of that market taken): any other change is
  out of turn;
* on the market of the player on turn, a place changes only where one of the
  game's actions, legal or not, puts or takes a piece: a foundation tile on an
  empty parcel, an attraction on free construction sites, a guest from a field
  or an entrance to a free field or the tent (the entrances refilled, a barker
  on a free walkway, a ticket on an attraction beside the field it reached), a
  figure on a free action number (on the round's last figure, every number:
  they may be lifted), a figure on a trick place not yet taken.

Two readings of that market narrow it further:

* no guest walked (so the free walkways, the tickets, the entrances and the
  tent are as they were) when the camera reads every field a walk can end on
  (free walkways and sites) and the tent's next place without a new guest; or
  when it reads all of them but one so, every guest still on its field and both
  entrances as they were: a walk empties its start for all to see (an entrance
  emptied is refilled only with the other one, which then shows a guest it had
  not), and hiding that takes a second walk, or two from the entrances, whose
  guests arrive unseen at two places at least;
* nothing on it is a move yet while the camera reads every free action number
  empty: a player puts the figure on the number before the action (only the
  round's last figure may stay in the hand). A piece laid before its figure is
  held once the figure shows, and judged with it.

`changeable` lists those places; `fill` takes every held place outside them
from the accepted state and leaves every place inside them held, so a piece
laid under glare is never passed over unseen: on its owner's turn its place is
changeable, and stays held until it can be read. A piece taken off the market
where glare holds its place is kept from the state or held, never read as gone:
a removal is seen only where the place reads empty. A tile laid over a tile
where the field that shows it is taken from the state is told by the wagon row
(`scorer.grand_carnival.observe`: a tile gone from it, no new one on an empty
parcel); one from a face-down stack shows nowhere until the glare moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from scorer.grand_carnival.components import ALL, cells_of, mask_of, neighbours, parcel_cells
from scorer.grand_carnival.model import NUMBERS, Board, CarnivalState
from scorer.grand_carnival.rules import current_seat
from vision.grand_carnival.layout import TENT_PLACES, TRICK_PLACES
from vision.grand_carnival.pipeline import MarketView, Unrecognised

__all__ = ["Changeable", "changeable", "fill", "letters"]


@dataclass(frozen=True, slots=True)
class Changeable:
    """The places of one market that what is done this turn could change.

    ``fields``: market fields (bitmask); ``entrances``: each entrance; ``tent`` and ``tricks``: the tent's and the
    trick places (0-based) that could change; ``numbers``: the action numbers whose box could change.
    """

    fields: int = 0
    entrances: tuple[bool, bool] = (False, False)
    tent: frozenset[int] = frozenset()
    numbers: frozenset[int] = frozenset()
    tricks: frozenset[int] = frozenset()


def changeable(state: CarnivalState, seat: int, view: MarketView | None = None) -> Changeable:
    """The places of ``seat``'s market that could change before the next move is accepted (see the module);
    ``view``: what the camera reads of it now (None: nothing, so a guest may have walked)."""
    board = state.boards[seat]
    free = frozenset(n for n in NUMBERS if n not in board.numbers)
    if current_seat(state) != seat:
        return Changeable(numbers=frozenset(NUMBERS) if not free else frozenset())
    empty = mask_of([c for p, t in enumerate(board.parcels) if t is None for c in parcel_cells(p)])
    open_walkways = board.walkways & ~board.guests & ~board.barkers
    open_sites = board.sites & ~board.covered & ~board.guests
    learned = board.tricks_learned
    if view is not None and len(free) > 1 and _no_figure_on(view, free):
        return Changeable(numbers=free)
    if view is not None and _no_walk(view, board):
        return Changeable(fields=empty | open_sites, numbers=frozenset(NUMBERS) if len(free) <= 1 else free,
                          tricks=frozenset(range(min(learned, TRICK_PLACES), TRICK_PLACES)))
    reached = open_walkways | open_sites
    ticketed = 0
    for a in board.attractions:
        if a.tickets < a.mask.bit_count() and neighbours(a.mask) & reached:
            ticketed |= a.mask
    return Changeable(
        fields=empty | reached | board.guests | ticketed,
        entrances=(True, True),
        tent=frozenset({board.tent}) if board.tent < TENT_PLACES else frozenset(),
        numbers=frozenset(NUMBERS) if len(free) <= 1 else free,
        tricks=frozenset(range(min(learned, TRICK_PLACES), TRICK_PLACES)),
    )


def _no_walk(view: MarketView, board: Board) -> bool:
    """True when what the camera reads of ``board``'s market proves that no guest walked on it (see the module)."""
    chars, truth = "".join(view.market), letters(board)
    ends = cells_of(board.walkways & ~board.guests & ~board.barkers | board.sites & ~board.covered & ~board.guests)
    if any(chars[c] not in ("?", truth[c]) for c in ends):
        return False  # a guest (or a barker) arrived where the camera can see it
    unseen = sum(1 for c in ends if chars[c] == "?")
    if board.tent >= TENT_PLACES:
        unseen += 2  # a guest walking into a full tent shows nowhere
    else:
        tent = _each(view.tent_places, TENT_PLACES,
                     None if view.tent is None else [k < view.tent for k in range(TENT_PLACES)])
        if tent[board.tent]:
            return False
        held = 0
        while board.tent + held < TENT_PLACES and tent[board.tent + held] is None:
            held += 1
        unseen += 2 if board.tent + held == TENT_PLACES else held
    if unseen == 0:
        return True
    # a walk empties its start for all to see unless another guest fills it or two walks from the entrances
    # refill them: hidden, that takes guests arriving unseen at two places at least
    chars_at_starts = all(chars[c] in "gG" for c in cells_of(board.guests))
    return unseen <= 1 and chars_at_starts and view.entrances == board.entrances


def _no_figure_on(view: MarketView, numbers: frozenset[int]) -> bool:
    """True when the camera reads each of the action ``numbers`` without a figure."""
    if len(view.number_figures) == len(NUMBERS):
        return all(view.number_figures[n - 1] is False for n in numbers)
    return view.numbers is not None and not view.numbers & numbers


def letters(board: Board) -> str:
    """The board's 64 fields in the view's letters (`MarketView.market`, row 8 first)."""
    chars = ["."] * 64
    for c in cells_of(board.walkways):
        chars[c] = "w"
    for c in cells_of(board.sites):
        chars[c] = "s"
    for c in cells_of(board.guests):
        chars[c] = "g" if chars[c] == "w" else "G"
    for c in cells_of(board.barkers):
        chars[c] = "b"
    return "".join(chars)


_PLACE = re.compile(r"(in|tent place |number |trick place )([0-9]+)")


def _places(u: Unrecognised) -> tuple[int, frozenset[tuple[str, int]]] | None:
    """The fields and the places off the grid a problem holds; None when it names no place the state knows."""
    if u.where == "the board":
        off = frozenset([("in", k) for k in (1, 2)] + [("tent place ", k) for k in range(1, TENT_PLACES + 1)]
                        + [("number ", n) for n in NUMBERS] + [("trick place ", k) for k in range(1, TRICK_PLACES + 1)])
        return u.fields, off
    found = _PLACE.fullmatch(u.where)
    if found is not None:
        return u.fields, frozenset({(found.group(1), int(found.group(2)))})
    if u.fields:
        return u.fields, frozenset()
    return None


def _each(places: tuple[bool | None, ...], size: int, shown: list[bool] | None) -> list[bool | None]:
    """Each place's reading: the view's, else ``shown`` (from its count or set), else all unread."""
    if len(places) == size:
        return list(places)
    return [None] * size if shown is None else list(shown)


def _taken(read: list[bool | None], state: list[bool], could: set[int] | frozenset[int],
           in_order: bool = False) -> list[bool | None]:
    """The readings of a row of places (an entrance each, the tent's places, the numbers' boxes, the trick places)
    with each held one that ``could`` (indices) leaves out taken from ``state``; none is taken where a place read
    differs from the state where it cannot change (the camera misread it, or it changed out of turn), nor where
    the row would show a piece after an empty place (``in_order``: guests and figures fill them in order)."""
    if any(r is not None and r != v and k not in could for k, (r, v) in enumerate(zip(read, state))):
        return read
    out = [v if r is None and k not in could else r for k, (r, v) in enumerate(zip(read, state))]
    if in_order and any(a is False and b for a, b in zip(out, out[1:])):
        return read
    return out


def fill(view: MarketView, board: Board, could: Changeable) -> MarketView:
    """``view`` with each held place that ``could`` leaves out taken from ``board`` (the accepted state's), and
    only the problems whose places are still held.

    The fields of an attraction are taken only all together, when every field of it is held and none could
    change, and only where no piece read lies over them.
    """
    chars = list("".join(view.market))
    held = mask_of([c for c in range(64) if chars[c] == "?"])
    for u in view.unrecognised:
        held |= u.fields
    read_pieces = 0
    for _, mask, _ in view.attractions:
        read_pieces |= mask
    truth = letters(board)
    # a field read otherwise than the state has it is no field to take, nor is any of its attraction's
    fields = held & ~could.fields & ~read_pieces & ALL & ~mask_of(
        [c for c in range(64) if chars[c] not in ("?", truth[c])])
    for a in board.attractions:
        if a.mask & fields and a.mask & ~fields:
            fields &= ~a.mask
    for c in cells_of(fields):
        chars[c] = truth[c]
    attractions = view.attractions + tuple(
        sorted(((a.shape, a.mask, a.tickets) for a in board.attractions if a.mask & fields), key=lambda a: a[1]))

    entrances = _taken(list(view.entrances), list(board.entrances), {k for k in (0, 1) if could.entrances[k]})
    tent = _taken(_each(view.tent_places, TENT_PLACES,
                        None if view.tent is None else [k < view.tent for k in range(TENT_PLACES)]),
                  [board.tent > k for k in range(TENT_PLACES)], could.tent, in_order=True)
    boxes = _taken(_each(view.number_figures, len(NUMBERS),
                         None if view.numbers is None else [n in view.numbers for n in NUMBERS]),
                   [n in board.numbers for n in NUMBERS], {n - 1 for n in could.numbers})
    tricks = _taken(_each(view.trick_figures, TRICK_PLACES,
                          None if view.tricks is None else [k < view.tricks for k in range(TRICK_PLACES)]),
                    [board.tricks_learned > k for k in range(TRICK_PLACES)], could.tricks, in_order=True)
    readings = {"in": entrances, "tent place ": tent, "number ": boxes, "trick place ": tricks}

    def still_held(u: Unrecognised) -> bool:
        places = _places(u)
        if places is None:
            return True
        cells, off = places
        return bool(cells & ~fields) or any(readings[kind][k - 1] is None for kind, k in off)

    left = tuple(u for u in view.unrecognised if still_held(u))
    if not left and ("?" in chars or None in entrances + tent + boxes + tricks):
        return view  # a place held that no problem names: nothing is taken
    return replace(
        view,
        market=tuple("".join(chars[r * 8:(r + 1) * 8]) for r in range(8)),
        attractions=tuple(sorted(attractions, key=lambda a: a[1] & -a[1])),
        entrances=(entrances[0], entrances[1]),
        tent=None if None in tent else sum(map(bool, tent)),
        numbers=None if None in boxes else frozenset(n for n, on in zip(NUMBERS, boxes) if on),
        tricks=None if None in tricks else sum(map(bool, tricks)),
        unrecognised=left,
        tent_places=tuple(tent),
        number_figures=tuple(boxes),
        trick_figures=tuple(tricks),
    )
