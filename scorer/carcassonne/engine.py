"""Placement, legality and scoring: the pure rules of Carcassonne and Under the Big Top.

Features are tracked incrementally: every segment of every placed tile maps to
a feature id, and placing a tile merges the features its edges touch (the
smaller one is relabelled). A road or city counts its open edges, a monastery
its missing neighbours, so completion is a comparison with zero.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache

from scorer.carcassonne.catalog import (
    CATALOG,
    HALVES,
    SIDES,
    START_TILE,
    Edge,
    Kind,
    Rotated,
    Special,
    box,
    rotated,
)
from scorer.carcassonne.model import (
    CATEGORIES,
    Animal,
    Category,
    Discard,
    Feature,
    Figure,
    FigureOnBoard,
    Move,
    Placement,
    Pos,
    Reason,
    SegKey,
    Spot,
    State,
)
from scorer.core import Event

__all__ = [
    "FINAL_EVENTS",
    "MEEPLES",
    "ROTATIONS",
    "START_TILE",
    "acrobat_targets",
    "all_tokens",
    "apply_move",
    "canonical_spot",
    "check_move",
    "complete_pyramids",
    "describe_mismatch",
    "figure_options",
    "final_feature_points",
    "finish",
    "free_segments",
    "has_placement",
    "occupants",
    "IllegalPosition",
    "initial_state",
    "need_code",
    "placements",
    "position",
    "shuffled_stack",
]

#: Meeples per player.
MEEPLES = 7
#: Points per acrobat (pyramid scoring and end of game).
ACROBAT_POINTS = 5
#: Ringmaster bonus per circus or acrobat tile on or around its tile.
RINGMASTER_POINTS = 2
ROTATIONS = (0, 90, 180, 270)
#: The ``what`` of the events that final scoring produces.
FINAL_EVENTS = frozenset(
    {
        "final circus scored",
        "acrobats scored",
        "farm scored",
        "incomplete road scored",
        "incomplete city scored",
        "incomplete monastery scored",
        "final ringmaster bonus",
    }
)

_STEP: tuple[Pos, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
_AROUND: tuple[Pos, ...] = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
_SIDE_WORD = ("north", "east", "south", "west")
_CATEGORY_OF = {
    Kind.ROAD: Category.ROAD,
    Kind.CITY: Category.CITY,
    Kind.MONASTERY: Category.MONASTERY,
    Kind.FIELD: Category.FIELD,
}
_ANIMAL_ORDER: tuple[Animal, ...] = tuple(Animal)


def all_tokens() -> list[Animal]:
    """The 16 animal tokens of the box, in a fixed order."""
    return [a for a in _ANIMAL_ORDER for _ in range(a.count)]


# -- reading the board ---------------------------------------------------------


def _needed(state: State, pos: Pos) -> tuple[Edge | None, ...]:
    """The edge each side of an empty square must show (None: no neighbour)."""
    x, y = pos
    out: list[Edge | None] = []
    tiles = state.tiles
    for side in range(4):
        dx, dy = _STEP[side]
        there = tiles.get((x + dx, y + dy))
        if there is None:
            out.append(None)
        else:
            out.append(rotated(there[0], there[1]).edges[(side + 2) % 4])
    return tuple(out)


_EDGE_CODE = {Edge.CITY: 1, Edge.ROAD: 2, Edge.FIELD: 3}


def need_code(needed: Sequence[Edge | None]) -> int:
    """The edges a square's neighbours demand, N E S W, two bits each (0: no neighbour)."""
    code = 0
    for side, edge in enumerate(needed):
        if edge is not None:
            code |= _EDGE_CODE[edge] << (2 * side)
    return code


@cache
def _fitting(name: str) -> tuple[tuple[int, ...], ...]:
    """For each of the 256 demand codes, the rotations of tile ``name`` that satisfy it."""
    views = [rotated(name, r) for r in ROTATIONS]
    out: list[tuple[int, ...]] = []
    for code in range(256):
        fits = []
        for view in views:
            if all(
                (code >> (2 * side)) & 3 in (0, _EDGE_CODE[view.edges[side]]) for side in range(4)
            ):
                fits.append(view.rotation)
        out.append(tuple(fits))
    return tuple(out)


def placements(state: State, name: str) -> list[tuple[Pos, int]]:
    """Every square and rotation where tile ``name`` can go on this board."""
    fitting = _fitting(name)
    out: list[tuple[Pos, int]] = []
    for pos, code in sorted(state.frontier.items()):
        for rotation in fitting[code]:
            out.append((pos, rotation))
    return out


def has_placement(state: State, name: str) -> bool:
    """True when tile ``name`` fits somewhere on the board."""
    fitting = _fitting(name)
    return any(fitting[code] for code in state.frontier.values())


def describe_mismatch(state: State, pos: Pos, view: Rotated) -> str | None:
    """A sentence naming the first edge that does not match, None when all do."""
    need = _needed(state, pos)
    for side in range(4):
        n = need[side]
        if n is not None and n is not view.edges[side]:
            return (
                f"The {_SIDE_WORD[side]} edge is {_a(view.edges[side])} but the tile beside it "
                f"shows {_a(n)} there."
            )
    return None


def _a(edge: Edge) -> str:
    return {Edge.CITY: "a city", Edge.ROAD: "a road", Edge.FIELD: "a field"}[edge]


def _neighbour_features(state: State, pos: Pos, view: Rotated) -> list[set[int]]:
    """For each segment of ``view`` put at ``pos``, the feature ids it would join."""
    x, y = pos
    out: list[set[int]] = [set() for _ in view.segments]
    tiles = state.tiles
    seg_feature = state.seg_feature
    for side in range(4):
        dx, dy = _STEP[side]
        q = (x + dx, y + dy)
        there = tiles.get(q)
        if there is None:
            continue
        other = rotated(there[0], there[1])
        opposite = (side + 2) % 4
        mine = view.side_seg[side]
        if mine >= 0:
            theirs = other.side_seg[opposite]
            out[mine].add(seg_feature[(q[0], q[1], theirs)])
        for k in (0, 1):
            mine = view.half_seg[2 * side + k]
            if mine >= 0:
                theirs = other.half_seg[2 * opposite + 1 - k]
                out[mine].add(seg_feature[(q[0], q[1], theirs)])
    return out


def free_segments(state: State, pos: Pos, view: Rotated) -> list[bool]:
    """For each segment of ``view`` put at ``pos``: is its connected whole free of figures?"""
    return [not figures for figures in occupants(state, pos, view)]


def occupants(state: State, pos: Pos, view: Rotated) -> list[tuple[FigureOnBoard, ...]]:
    """For each segment of ``view`` put at ``pos``, the figures already in its connected whole.

    Segments of the new tile that join the same feature join each other, so
    a whole holds the figures of every feature any of its segments joins.
    """
    joined = _neighbour_features(state, pos, view)
    n = len(joined)
    group = list(range(n))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    owner: dict[int, int] = {}
    for i, fids in enumerate(joined):
        for fid in fids:
            if fid in owner:
                a, b = root(owner[fid]), root(i)
                if a != b:
                    group[b] = a
            else:
                owner[fid] = i
    found: list[tuple[FigureOnBoard, ...]] = [()] * n
    features = state.features
    for i, fids in enumerate(joined):
        for fid in sorted(fids):
            figures = features[fid].figures
            if figures:
                r = root(i)
                found[r] = found[r] + figures
    return [found[root(i)] for i in range(n)]


def acrobat_targets(state: State, pos: Pos, view: Rotated) -> list[Pos]:
    """Acrobat tiles on or around ``pos`` (the new tile) whose pyramid has room."""
    out: list[Pos] = []
    x, y = pos
    for dx, dy in _AROUND:
        q = (x + dx, y + dy)
        if q == pos:
            special = view.special
        else:
            there = state.tiles.get(q)
            if there is None:
                continue
            special = CATALOG[there[0]].special
        if special is Special.ACROBATS and len(state.acrobats.get(q, ())) < 3:
            out.append(q)
    return out


def complete_pyramids(state: State) -> list[Pos]:
    """The acrobat tiles holding a complete pyramid of three."""
    return sorted(q for q, seats in state.acrobats.items() if len(seats) >= 3)


def figure_options(state: State, name: str, pos: Pos, rotation: int) -> list[Placement]:
    """Every legal move that places ``name`` at ``pos`` turned ``rotation``."""
    seat = state.turn % len(state.players)
    view = rotated(name, rotation)
    out = [Placement(name, pos, rotation)]
    has_meeple = state.meeples[seat] > 0
    has_ringmaster = state.expansion and state.ringmasters[seat]
    if has_meeple or has_ringmaster:
        free = free_segments(state, pos, view)
        for i in range(len(view.segments)):
            if not free[i]:
                continue
            spot = _spot_of(view, i)
            if has_meeple:
                out.append(Placement(name, pos, rotation, Figure.MEEPLE, spot))
            if has_ringmaster:
                out.append(Placement(name, pos, rotation, Figure.RINGMASTER, spot))
    if state.expansion:
        if has_meeple:
            for q in acrobat_targets(state, pos, view):
                out.append(Placement(name, pos, rotation, Figure.ACROBAT, target=q))
        for q in complete_pyramids(state):
            out.append(Placement(name, pos, rotation, score_pyramid=q))
    return out


def _spot_of(view: Rotated, index: int) -> Spot:
    seg = view.segments[index]
    if seg.kind is Kind.MONASTERY:
        return Spot(Kind.MONASTERY)
    if seg.kind is Kind.FIELD:
        return Spot(Kind.FIELD, HALVES[seg.halves[0]])
    return Spot(seg.kind, SIDES[seg.sides[0]])


def canonical_spot(name: str, rotation: int, spot: Spot) -> Spot:
    """The canonical name of the feature ``spot`` designates (itself when none)."""
    view = rotated(name, rotation)
    index = view.spots.get(str(spot))
    return spot if index is None else _spot_of(view, index)


# -- legality ----------------------------------------------------------------


def check_move(state: State, move: Move) -> tuple[Reason, str] | None:
    """None when ``move`` is legal, else the reason and a sentence for a player."""
    if state.finished:
        return Reason.GAME_OVER, "The game is over: every tile has been played."
    if isinstance(move, Discard):
        return _check_discard(state, move)
    if not isinstance(move, Placement):
        return Reason.MALFORMED, "That is not a Carcassonne move."
    problem = _check_tile(state, move)
    if problem is not None:
        return problem
    view = rotated(move.tile, move.rotation)
    if move.at in state.tiles:
        return Reason.OCCUPIED, f"There is already a tile at {_xy(move.at)}."
    if move.at not in state.frontier:
        return (
            Reason.NOT_ADJACENT,
            f"A tile must touch the board along an edge; {_xy(move.at)} touches no tile.",
        )
    mismatch = describe_mismatch(state, move.at, view)
    if mismatch is not None:
        return Reason.EDGE_MISMATCH, mismatch
    return _check_figure(state, move, view)


def _xy(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


def _check_tile(state: State, move: Placement) -> tuple[Reason, str] | None:
    if (
        not isinstance(move.tile, str)
        or move.tile not in CATALOG
        or move.rotation not in ROTATIONS
        or not _is_pos(move.at)
    ):
        return Reason.MALFORMED, "A move names a tile of the catalog, a square and a rotation of 0, 90, 180 or 270."
    if state.stack is not None:
        if move.tile != state.stack[0]:
            return Reason.NOT_DRAWN, f"The tile drawn is {state.stack[0]}, not {move.tile}."
    elif state.remaining.get(move.tile, 0) <= 0:
        return Reason.TILE_NOT_AVAILABLE, _not_available(state, move.tile)
    return None


def _not_available(state: State, name: str) -> str:
    if CATALOG[name].expansion is not None and not state.expansion:
        return f"The {name} tile belongs to Under the Big Top, which this game does not use."
    count = box(state.expansion)[name]
    return f"All {count} {name} tile{'s' if count != 1 else ''} of the box are already drawn."


def _is_pos(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def _check_discard(state: State, move: Discard) -> tuple[Reason, str] | None:
    if not isinstance(move.tile, str) or move.tile not in CATALOG:
        return Reason.MALFORMED, "A discarded tile must be a tile of the catalog."
    if state.stack is not None:
        if move.tile != state.stack[0]:
            return Reason.NOT_DRAWN, f"The tile drawn is {state.stack[0]}, not {move.tile}."
    elif state.remaining.get(move.tile, 0) <= 0:
        return Reason.TILE_NOT_AVAILABLE, _not_available(state, move.tile)
    spots = placements(state, move.tile)
    if spots:
        (pos, rotation) = spots[0]
        return (
            Reason.TILE_FITS,
            f"The {move.tile} tile fits on the board (for example at {_xy(pos)} turned {rotation}°), "
            "so it must be placed, not set aside.",
        )
    return None


def _check_figure(state: State, move: Placement, view: Rotated) -> tuple[Reason, str] | None:
    seat = state.turn % len(state.players)
    if move.score_pyramid is not None:
        if move.figure is not None or move.spot is not None or move.target is not None:
            return Reason.MALFORMED, "Scoring a pyramid replaces placing a figure; a turn cannot do both."
        if not state.expansion:
            return Reason.NO_EXPANSION, "Acrobat pyramids belong to Under the Big Top, which this game does not use."
        if not _is_pos(move.score_pyramid):
            return Reason.MALFORMED, "A pyramid is named by the square of its acrobat tile."
        count = len(state.acrobats.get(move.score_pyramid, ()))
        if count < 3:
            return (
                Reason.PYRAMID_INCOMPLETE,
                f"The pyramid at {_xy(move.score_pyramid)} has {count} acrobat{'s' if count != 1 else ''}; "
                "only a complete pyramid of three can be scored.",
            )
        return None
    if move.figure is None:
        if move.spot is not None or move.target is not None:
            return Reason.MALFORMED, "A spot or target needs a figure (meeple, ringmaster or acrobat)."
        return None
    if move.figure is Figure.RINGMASTER:
        if not state.expansion:
            return Reason.NO_EXPANSION, "The ringmaster belongs to Under the Big Top, which this game does not use."
        if move.target is not None:
            return Reason.RINGMASTER_ACROBAT, "The ringmaster can never be an acrobat; only meeples form pyramids."
        if not state.ringmasters[seat]:
            return Reason.NO_RINGMASTER, "Your ringmaster is already on the board; you have only one."
    elif state.meeples[seat] <= 0:
        return Reason.NO_MEEPLE, "All 7 of your meeples are on the board; you have none left to place."
    if move.figure is Figure.ACROBAT:
        return _check_acrobat(state, move, view)
    if move.spot is None or move.target is not None:
        return Reason.MALFORMED, "A meeple or ringmaster goes on a feature of the tile just placed."
    spot = move.spot
    if spot.kind is Kind.CIRCUS:
        if view.special is Special.CIRCUS:
            return Reason.CIRCUS_SPACE, "No figure may stand on the circus space; choose a road, city or field."
        return Reason.NO_SUCH_FEATURE, f"The {move.tile} tile has no circus space."
    index = view.spots.get(str(spot))
    if index is None:
        return Reason.NO_SUCH_FEATURE, _no_feature(move, spot)
    there = occupants(state, move.at, view)[index]
    if there:
        what = {Kind.ROAD: "road", Kind.CITY: "city", Kind.FIELD: "field", Kind.MONASTERY: "monastery"}[spot.kind]
        first = there[0]
        whose = f"{state.players[first.seat]}'s {first.figure.value} at {_xy(first.at)}"
        return (
            Reason.FEATURE_OCCUPIED,
            f"That {what} joins a {what} that already has a figure on it ({whose}); "
            "a figure may only go on a feature nobody occupies.",
        )
    return None


def _no_feature(move: Placement, spot: Spot) -> str:
    turned = f"turned {move.rotation}°" if move.rotation else "unturned"
    if spot.kind is Kind.MONASTERY:
        return f"The {move.tile} tile has no monastery."
    if spot.kind is Kind.FIELD:
        where = f"holding the half-edge {spot.edge}"
        return f"The {move.tile} tile, {turned}, has no field {where} (that part of its edge is a city)."
    side = SIDES.index(spot.edge) if spot.edge in SIDES else -1
    word = _SIDE_WORD[side] if side >= 0 else spot.edge
    return f"The {move.tile} tile, {turned}, has no {spot.kind.value} on its {word} edge."


def _check_acrobat(state: State, move: Placement, view: Rotated) -> tuple[Reason, str] | None:
    if not state.expansion:
        return Reason.NO_EXPANSION, "Acrobats belong to Under the Big Top, which this game does not use."
    target = move.target
    if target is None or move.spot is not None or not _is_pos(target):
        return Reason.MALFORMED, "An acrobat goes on the acrobat space of a tile named by its square."
    if target == move.at:
        special = view.special
    else:
        there = state.tiles.get(target)
        special = Special.NONE if there is None else CATALOG[there[0]].special
    if special is not Special.ACROBATS:
        return Reason.NOT_ACROBAT_TILE, f"The tile at {_xy(target)} has no acrobat space."
    if max(abs(target[0] - move.at[0]), abs(target[1] - move.at[1])) > 1:
        return (
            Reason.OUT_OF_REACH,
            f"An acrobat goes on the tile just placed or one of its eight neighbours; "
            f"{_xy(target)} is too far from {_xy(move.at)}.",
        )
    if len(state.acrobats.get(target, ())) >= 3:
        return Reason.PYRAMID_FULL, f"The pyramid at {_xy(target)} already has three acrobats; it is complete."
    return None


# -- building a new state -----------------------------------------------------


class _Work:
    """Mutable copies of a state's parts while a move is applied."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.tiles = dict(state.tiles)
        self.frontier = dict(state.frontier)
        self.seg_feature = dict(state.seg_feature)
        self.features = dict(state.features)
        self.next_fid = state.next_fid
        self.acrobats = dict(state.acrobats)
        self.meeples = list(state.meeples)
        self.ringmasters = list(state.ringmasters)
        self.points = [list(p) for p in state.points]
        self.stack = state.stack
        self.remaining = dict(state.remaining)
        self.discarded = state.discarded
        self.tokens = state.tokens
        self.big_top = state.big_top
        self.revealed = state.revealed
        self.turn = state.turn
        self.finished = state.finished
        self.events: list[Event] = []
        self.names = state.players

    def freeze(self) -> State:
        return State(
            players=self.state.players,
            expansion=self.state.expansion,
            tiny_city_points=self.state.tiny_city_points,
            tiles=self.tiles,
            frontier=self.frontier,
            seg_feature=self.seg_feature,
            features=self.features,
            next_fid=self.next_fid,
            acrobats=self.acrobats,
            meeples=tuple(self.meeples),
            ringmasters=tuple(self.ringmasters),
            points=tuple(tuple(p) for p in self.points),
            stack=self.stack,
            remaining=self.remaining,
            discarded=self.discarded,
            tokens=self.tokens,
            big_top=self.big_top,
            revealed=self.revealed,
            turn=self.turn,
            finished=self.finished,
        )

    # -- tiles and features --

    def place_tile(self, pos: Pos, view: Rotated) -> list[SegKey]:
        """Lay the tile, merge its features; return the segments to check for completion."""
        x, y = pos
        self.tiles[pos] = (view.name, view.rotation)
        self.frontier.pop(pos, None)
        for side in range(4):
            dx, dy = _STEP[side]
            q = (x + dx, y + dy)
            if q not in self.tiles:
                facing = (side + 2) % 4
                self.frontier[q] = self.frontier.get(q, 0) | (_EDGE_CODE[view.edges[side]] << (2 * facing))
        touched: list[SegKey] = []
        for i, seg in enumerate(view.segments):
            key = (x, y, i)
            fid = self.next_fid
            self.next_fid += 1
            if seg.kind is Kind.MONASTERY:
                missing = sum(1 for dx, dy in _AROUND if (dx or dy) and (x + dx, y + dy) not in self.tiles)
                feature = Feature(Kind.MONASTERY, (key,), frozenset({pos}), 0, missing)
            else:
                feature = Feature(
                    seg.kind,
                    (key,),
                    frozenset({pos}),
                    seg.pennants,
                    len(seg.sides),
                    cities=frozenset((x, y, c) for c in seg.cities),
                )
            self.features[fid] = feature
            self.seg_feature[key] = fid
            touched.append(key)
        for side in range(4):
            dx, dy = _STEP[side]
            q = (x + dx, y + dy)
            there = self.tiles.get(q)
            if there is None:
                continue
            other = rotated(there[0], there[1])
            opposite = (side + 2) % 4
            mine = view.side_seg[side]
            if mine >= 0:
                self._join((x, y, mine), (q[0], q[1], other.side_seg[opposite]), 2)
            for k in (0, 1):
                mine = view.half_seg[2 * side + k]
                if mine >= 0:
                    self._join((x, y, mine), (q[0], q[1], other.half_seg[2 * opposite + 1 - k]), 0)
        for dx, dy in _AROUND:
            if not (dx or dy):
                continue
            q = (x + dx, y + dy)
            there = self.tiles.get(q)
            if there is None:
                continue
            monastery = rotated(there[0], there[1]).monastery
            if monastery >= 0:
                key = (q[0], q[1], monastery)
                fid = self.seg_feature[key]
                old = self.features[fid]
                self.features[fid] = replace(old, open_edges=old.open_edges - 1)
                touched.append(key)
        return touched

    def _join(self, a: SegKey, b: SegKey, closing: int) -> None:
        fa = self.seg_feature[a]
        fb = self.seg_feature[b]
        if fa == fb:
            if closing:
                old = self.features[fa]
                self.features[fa] = replace(old, open_edges=old.open_edges - closing)
            return
        one, two = self.features[fa], self.features[fb]
        if len(one.segments) < len(two.segments):
            fa, fb, one, two = fb, fa, two, one
        merged = Feature(
            one.kind,
            one.segments + two.segments,
            one.tiles | two.tiles,
            one.pennants + two.pennants,
            one.open_edges + two.open_edges - closing,
            one.figures + two.figures,
            one.cities | two.cities,
            False,
        )
        self.features[fa] = merged
        del self.features[fb]
        for key in two.segments:
            self.seg_feature[key] = fa

    # -- points --

    def award(self, category: Category, what: str, amounts: dict[int, int], text: str) -> None:
        pairs = tuple((seat, pts) for seat, pts in sorted(amounts.items()) if pts)
        index = CATEGORIES.index(category)
        for seat, pts in pairs:
            self.points[seat][index] += pts
        if pairs or category is Category.CIRCUS:
            self.events.append(Event(what, pairs, text))

    def _names(self, seats: Iterable[int]) -> str:
        names = [self.names[s] for s in seats]
        if not names:
            return "nobody"
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def feature_points(self, feature: Feature, final: bool) -> int:
        tiles = len(feature.tiles)
        if feature.kind is Kind.ROAD:
            return tiles
        if feature.kind is Kind.CITY:
            if final:
                return tiles + feature.pennants
            if tiles == 2:
                return self.state.tiny_city_points + feature.pennants * 2
            return 2 * tiles + 2 * feature.pennants
        if feature.kind is Kind.MONASTERY:
            return 9 - feature.open_edges
        cities = {self.seg_feature[c] for c in feature.cities}
        return 3 * sum(1 for fid in cities if self.features[fid].completed)

    def score_feature(self, fid: int, final: bool) -> None:
        feature = self.features[fid]
        pts = self.feature_points(feature, final)
        count: dict[int, int] = {}
        for fig in feature.figures:
            count[fig.seat] = count.get(fig.seat, 0) + 1
        kind = feature.kind.value
        if count:
            top = max(count.values())
            winners = sorted(s for s, c in count.items() if c == top)
            if final:
                what = "farm scored" if feature.kind is Kind.FIELD else f"incomplete {kind} scored"
            else:
                what = f"{kind} completed"
            self.award(
                _CATEGORY_OF[feature.kind],
                what,
                {s: pts for s in winners},
                f"{self._names(winners)} score{'s' if len(winners) == 1 else ''} {pts} for "
                f"{'a farm' if feature.kind is Kind.FIELD else 'a ' + kind} of {len(feature.tiles)} tile"
                f"{'s' if len(feature.tiles) != 1 else ''}.",
            )
        for fig in feature.figures:
            if fig.figure is Figure.RINGMASTER:
                shows = self.shows_around(fig.at)
                self.award(
                    Category.RINGMASTER,
                    "final ringmaster bonus" if final else "ringmaster bonus",
                    {fig.seat: RINGMASTER_POINTS * shows},
                    f"{self.names[fig.seat]}'s ringmaster scores {RINGMASTER_POINTS * shows} for "
                    f"{shows} circus and acrobat tile{'s' if shows != 1 else ''} around it.",
                )
        if not final:
            for fig in feature.figures:
                if fig.figure is Figure.RINGMASTER:
                    self.ringmasters[fig.seat] = True
                else:
                    self.meeples[fig.seat] += 1
            self.features[fid] = replace(feature, figures=(), completed=True)

    def shows_around(self, pos: Pos) -> int:
        x, y = pos
        n = 0
        for dx, dy in _AROUND:
            there = self.tiles.get((x + dx, y + dy))
            if there is not None and CATALOG[there[0]].special is not Special.NONE:
                n += 1
        return n

    def score_circus(self, last: bool) -> None:
        if self.big_top is None:
            return
        (x, y), animal = self.big_top
        block = {(x + dx, y + dy) for dx, dy in _AROUND}
        count: dict[int, int] = {}
        for feature in self.features.values():
            for fig in feature.figures:
                if fig.at in block:
                    count[fig.seat] = count.get(fig.seat, 0) + 1
        for q in block:
            for seat in self.acrobats.get(q, ()):
                count[seat] = count.get(seat, 0) + 1
        value = 0 if animal is None else animal.points
        shown = "an unknown animal" if animal is None else f"the {animal.value} ({value} points a follower)"
        self.award(
            Category.CIRCUS,
            "final circus scored" if last else "circus scored",
            {s: c * value for s, c in count.items()},
            f"The Big Top at {_xy((x, y))} reveals {shown}.",
        )
        if animal is not None:
            self.revealed = self.revealed + (animal,)

    def score_pyramid(self, pos: Pos) -> None:
        seats = self.acrobats.pop(pos, ())
        amounts: dict[int, int] = {}
        for seat in seats:
            amounts[seat] = amounts.get(seat, 0) + ACROBAT_POINTS
            self.meeples[seat] += 1
        self.award(
            Category.ACROBATS,
            "pyramid scored",
            amounts,
            f"The pyramid at {_xy(pos)} scores {ACROBAT_POINTS} points an acrobat.",
        )

    # -- drawing and the end --

    def draw(self) -> None:
        """Set aside drawn tiles that fit nowhere; finish the game when none are left."""
        if self.stack is not None:
            if self.stack and not has_placement(self._probe(), self.stack[0]):
                stack = self.stack
                probe = self._probe()
                while stack and not has_placement(probe, stack[0]):
                    self.discarded = self.discarded + (stack[0],)
                    self.remaining[stack[0]] -= 1
                    stack = stack[1:]
                self.stack = stack
            empty = not self.stack
        else:
            empty = not any(self.remaining.values())
        if empty:
            self.final_scoring()

    def _probe(self) -> State:
        """A state good enough for `has_placement` (it reads tiles and frontier)."""
        return replace(self.state, tiles=self.tiles, frontier=self.frontier)

    def final_scoring(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.score_circus(last=True)
        for pos in sorted(self.acrobats):
            amounts: dict[int, int] = {}
            for seat in self.acrobats[pos]:
                amounts[seat] = amounts.get(seat, 0) + ACROBAT_POINTS
            self.award(
                Category.ACROBATS,
                "acrobats scored",
                amounts,
                f"Each acrobat at {_xy(pos)} scores {ACROBAT_POINTS} at the end of the game.",
            )
        occupied = sorted(fid for fid, f in self.features.items() if f.figures and not f.completed)
        for fid in occupied:
            if self.features[fid].kind is not Kind.FIELD:
                self.score_feature(fid, final=True)
        for fid in occupied:
            if self.features[fid].kind is Kind.FIELD:
                self.score_feature(fid, final=True)


def apply_move(state: State, move: Move) -> tuple[State, tuple[Event, ...]]:
    """Play a legal move: the new state and the events it caused (no checks)."""
    work = _Work(state)
    if isinstance(move, Discard):
        work.discarded = work.discarded + (move.tile,)
        work.remaining[move.tile] -= 1
        if work.stack is not None:
            work.stack = work.stack[1:]
        work.draw()
        return work.freeze(), tuple(work.events)
    seat = state.turn % len(state.players)
    view = rotated(move.tile, move.rotation)
    pos = move.at
    touched = work.place_tile(pos, view)
    if move.score_pyramid is not None:
        work.score_pyramid(move.score_pyramid)
    elif move.figure is Figure.ACROBAT and move.target is not None:
        work.acrobats[move.target] = work.acrobats.get(move.target, ()) + (seat,)
        work.meeples[seat] -= 1
    elif move.figure is not None and move.spot is not None:
        index = view.spots[str(move.spot)]
        fid = work.seg_feature[(pos[0], pos[1], index)]
        old = work.features[fid]
        figure = FigureOnBoard(seat, move.figure, pos, index)
        work.features[fid] = replace(old, figures=old.figures + (figure,))
        if move.figure is Figure.RINGMASTER:
            work.ringmasters[seat] = False
        else:
            work.meeples[seat] -= 1
    seen: set[int] = set()
    for key in touched:
        fid = work.seg_feature[key]
        if fid in seen:
            continue
        seen.add(fid)
        feature = work.features[fid]
        if feature.kind is not Kind.FIELD and feature.open_edges == 0 and not feature.completed:
            if feature.figures:
                work.score_feature(fid, final=False)
            else:
                work.features[fid] = replace(feature, completed=True)
    if view.special is Special.CIRCUS:
        work.score_circus(last=False)
        token: Animal | None = None
        if work.tokens:
            token, work.tokens = work.tokens[0], work.tokens[1:]
        work.big_top = (pos, token)
    work.remaining[move.tile] -= 1
    if work.stack is not None:
        work.stack = work.stack[1:]
    work.turn += 1
    work.draw()
    return work.freeze(), tuple(work.events)


def finish(state: State) -> tuple[State, tuple[Event, ...]]:
    """Final scoring of a game stopped where it stands (a record's last move)."""
    work = _Work(state)
    work.final_scoring()
    return work.freeze(), tuple(work.events)


def initial_state(
    players: Sequence[str],
    expansion: bool,
    tiny_city_points: int,
    start: str,
    stack: Sequence[str] | None,
    tokens: Sequence[Animal],
) -> State:
    """The start tile at 0,0 unturned, the rest in ``stack`` (or unknown, when None)."""
    n = len(players)
    remaining = box(expansion)
    remaining[start] -= 1
    if stack is not None:
        remaining = {name: 0 for name in remaining}
        for name in stack:
            remaining[name] += 1
    empty = State(
        players=tuple(players),
        expansion=expansion,
        tiny_city_points=tiny_city_points,
        tiles={},
        frontier={(0, 0): 0},
        seg_feature={},
        features={},
        next_fid=0,
        acrobats={},
        meeples=(MEEPLES,) * n,
        ringmasters=(expansion,) * n,
        points=((0,) * len(CATEGORIES),) * n,
        stack=None if stack is None else tuple(stack),
        remaining=remaining,
        discarded=(),
        tokens=tuple(tokens),
        big_top=None,
        revealed=(),
        turn=0,
        finished=False,
    )
    work = _Work(empty)
    work.place_tile((0, 0), rotated(start, 0))
    if CATALOG[start].special is Special.CIRCUS and work.tokens:
        work.big_top = ((0, 0), work.tokens[0])
        work.tokens = work.tokens[1:]
    work.draw()
    return work.freeze()


def shuffled_stack(expansion: bool, start: str, rng: random.Random) -> list[str]:
    """The box less the start tile, shuffled with ``rng``."""
    counts = box(expansion)
    counts[start] -= 1
    tiles = [name for name, c in counts.items() for _ in range(c)]
    rng.shuffle(tiles)
    return tiles



class IllegalPosition(ValueError):
    """A board that no game of Carcassonne can reach; the message says why."""


def position(
    players: Sequence[str],
    tiles: Mapping[Pos, tuple[str, int]],
    figures: Sequence[tuple[int, Figure, Pos, str]] = (),
    acrobats: Mapping[Pos, Sequence[int]] | None = None,
    big_top: Pos | None = None,
) -> State:
    """A position built from a board as it lies on the table (a photo of a finished game).

    ``tiles`` maps each square to its (type, rotation); ``figures`` are (seat,
    figure, square, spot) with spots named as in a move (``road:E``, ``field:NL``,
    ``monastery``); ``acrobats`` maps an acrobat tile to the seats of its stack;
    ``big_top`` is the circus tile the Big Top stands on (its animal unknown, so
    the last circus scoring counts it at 0 points). The expansion is on when a
    tile, figure or the Big Top needs it. Call `finish` for the final scoring.

    :raises IllegalPosition: for tiles beyond the box, edges that do not match,
        a board in more than one piece, a figure on no feature of its tile or on
        a circus space, more figures than a player owns, or more than three acrobats.
    """
    acrobats = dict(acrobats or {})
    expansion = (any(CATALOG[name].expansion for name, _ in tiles.values()) or big_top is not None or bool(acrobats)
                 or any(fig is not Figure.MEEPLE for _, fig, _, _ in figures))
    if not tiles:
        raise IllegalPosition("no tile on the board")
    counts = box(expansion)
    used: dict[str, int] = {}
    for name, rot in tiles.values():
        if name not in counts:
            raise IllegalPosition(f"tile {name} is not in the box")
        if rot not in ROTATIONS:
            raise IllegalPosition(f"rotation {rot} is not 0, 90, 180 or 270")
        used[name] = used.get(name, 0) + 1
    for name, n in sorted(used.items()):
        if n > counts[name]:
            raise IllegalPosition(f"{n} tiles {name} on the board, the box holds {counts[name]}")
    for (x, y), (name, rot) in sorted(tiles.items()):
        for side, (dx, dy) in ((1, (1, 0)), (2, (0, 1))):
            other = tiles.get((x + dx, y + dy))
            if other is not None and rotated(name, rot).edges[side] is not rotated(*other).edges[(side + 2) % 4]:
                raise IllegalPosition(f"edges do not match between {_xy((x, y))} and {_xy((x + dx, y + dy))}")
    start = min(tiles, key=lambda p: (p[1], p[0]))
    order, seen = [start], {start}
    for pos in order:
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            q = (pos[0] + dx, pos[1] + dy)
            if q in tiles and q not in seen:
                seen.add(q)
                order.append(q)
    if len(order) != len(tiles):
        raise IllegalPosition(f"the board is in more than one piece ({len(tiles) - len(order)} tiles apart)")
    n = len(players)
    state = initial_state(players, expansion, 4, tiles[start][0], None, ())
    work = _Work(state)
    work.tiles, work.frontier, work.seg_feature, work.features, work.next_fid = {}, {start: 0}, {}, {}, 0
    for pos in order:
        work.place_tile(pos, rotated(*tiles[pos]))
        work.remaining[tiles[pos][0]] = max(0, work.remaining.get(tiles[pos][0], 0) - 1)
    # features closed on the board were scored when they closed, their figures taken back
    for fid, feature in list(work.features.items()):
        if feature.kind is not Kind.FIELD and feature.open_edges == 0:
            work.features[fid] = replace(feature, completed=True)
    for seat, fig, pos, spot in figures:
        if not 0 <= seat < n:
            raise IllegalPosition(f"no player {seat + 1}")
        if pos not in tiles:
            raise IllegalPosition(f"a figure at {_xy(pos)} stands on no tile")
        view = rotated(*tiles[pos])
        if spot == "circus":
            raise IllegalPosition(f"a figure on the circus space at {_xy(pos)}")
        if spot not in view.spots:
            raise IllegalPosition(f"tile {tiles[pos][0]} at {_xy(pos)} has no {spot}")
        fid = work.seg_feature[(pos[0], pos[1], view.spots[spot])]
        feature = work.features[fid]
        if feature.completed:
            raise IllegalPosition(f"a figure on the completed {feature.kind.value} at {_xy(pos)} (it goes back when scored)")
        work.features[fid] = replace(feature, figures=feature.figures + (FigureOnBoard(seat, fig, pos, view.spots[spot]),))
        if fig is Figure.RINGMASTER:
            if not work.ringmasters[seat]:
                raise IllegalPosition(f"{players[seat]} has a second ringmaster")
            work.ringmasters[seat] = False
        else:
            work.meeples[seat] -= 1
    for pos, seats in sorted(acrobats.items()):
        if pos not in tiles or CATALOG[tiles[pos][0]].special is not Special.ACROBATS:
            raise IllegalPosition(f"acrobats at {_xy(pos)} stand on no acrobat space")
        if len(seats) > 3:
            raise IllegalPosition(f"{len(seats)} acrobats at {_xy(pos)}, a pyramid holds 3")
        work.acrobats[pos] = tuple(seats)
        for seat in seats:
            if not 0 <= seat < n:
                raise IllegalPosition(f"no player {seat + 1}")
            work.meeples[seat] -= 1
    for seat in range(n):
        if work.meeples[seat] < 0:
            raise IllegalPosition(f"{players[seat]} has {MEEPLES - work.meeples[seat]} meeples on the board, a player owns {MEEPLES}")
    if big_top is not None:
        if big_top not in tiles or CATALOG[tiles[big_top][0]].special is not Special.CIRCUS:
            raise IllegalPosition(f"the Big Top at {_xy(big_top)} stands on no circus tile")
        work.big_top = (big_top, None)
    work.turn = len(tiles) - 1
    return work.freeze()


def final_feature_points(state: State, fid: int) -> int:
    """What the feature ``fid`` of ``state`` is worth to its owners at the end of the game."""
    return _Work(state).feature_points(state.features[fid], True)
