"""What the camera sees of a Carcassonne board, and which turn explains a change.

A live referee sees the board from above: every tile (cell, type, rotation)
and every figure (cell, figure, colour, the feature it stands on), in the
camera's own cells (any origin, the board possibly turned). `infer_move`
lines that view up with the last accepted state, finds the one new tile and
the figure that came with it, and builds the turn, legal or not: the rules
engine judges it, so a tile whose edges do not match or a meeple on an
occupied road is caught with its reason. What no single turn explains is
said in a sentence (the referee then asks instead of guessing).

The table's conventions: seat 1 plays the first colour of ``colors``, seat 2
the second, and so on. A figure standing on a feature the state has scored
is waiting to be taken back and is not looked at; likewise the acrobats of a
pyramid just scored. A meeple or ringmaster the camera no longer sees is taken to
be still there (figures leave the board only when scored), and a standing one
is compared by its square, colour and feature, not by its size; a new figure
read as a second ringmaster is a meeple (each player owns one ringmaster),
and a new meeple of a player who has none left is the ringmaster. To score a complete pyramid, take it down and lay the
tile (in either order). A tile read unsure is never guessed.

>>> from scorer.carcassonne import Carcassonne
>>> import random
>>> game = Carcassonne()
>>> state = game.new_state(["Ann", "Ben"], random.Random(2), stack=["V"] * 9 + ["U"] * 8)
>>> move = game.legal_moves(state)[1]
>>> after, _ = game.apply_unchecked(state, move)
>>> infer_move(state, board_of(after, COLORS)).move == move
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from scorer import core
from scorer.carcassonne.catalog import CATALOG, HALVES, SIDES, Kind, rotated
from scorer.carcassonne.model import Figure, Placement, Pos, Spot, State
from scorer.core import InferenceKind

__all__ = ["COLORS", "Inference", "InferenceKind", "SeenBoard", "board_of", "figures_of", "infer_move", "same_look"]

#: the seats' colours at the table, in seat order
COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow", "black", "grey")

#: one tile seen: (x, y, type, rotation)
SeenTile = tuple[int, int, str, int]
#: one figure seen: (x, y, figure, colour, feature); figure is meeple, ringmaster, acrobat or big-top
SeenFigure = tuple[int, int, str, str, str]


@dataclass(frozen=True, slots=True)
class SeenBoard:
    """A board as the camera reports it (camera cells): sure tiles, unsure cells (best guess) and figures."""

    tiles: tuple[SeenTile, ...]
    figures: tuple[SeenFigure, ...] = ()
    unsure: tuple[SeenTile, ...] = ()
    colors: tuple[str, ...] = COLORS


#: the answer of `infer_move`
Inference = core.Inference[Placement]


def _why(message: str) -> Inference:
    return Inference.unexplained(message)


def _look(name: str, rotation: int) -> tuple[object, ...]:
    view = rotated(name, rotation)
    return (CATALOG[name].special, tuple(sorted((s.kind.value, s.sides, s.halves, s.pennants) for s in view.segments)))


def same_look(a: tuple[str, int], b: tuple[str, int]) -> bool:
    """True when two (type, rotation) pairs look the same on the table (U turned by a half is U)."""
    return a[0] == b[0] and _look(*a) == _look(*b)


def _canonical(name: str, rotation: int, spot: str) -> str | None:
    """The canonical name of the feature ``spot`` of a turned tile, None when it has none."""
    view = rotated(name, rotation)
    index = view.spots.get(spot)
    return None if index is None else view.segments[index].spot


def _turn_spot(spot: str, k: int) -> str:
    """A feature name as seen on a board turned ``k`` quarters anticlockwise."""
    kind, _, edge = spot.partition(":")
    if edge in SIDES:
        edge = SIDES[(SIDES.index(edge) - k) % 4]
    elif edge in HALVES:
        edge = HALVES[(HALVES.index(edge) - 2 * k) % 8]
    return f"{kind}:{edge}" if edge else kind


def _turn(x: int, y: int, k: int) -> Pos:
    for _ in range(k % 4):
        x, y = y, -x
    return x, y


def figures_of(state: State, colors: Sequence[str] = COLORS) -> Counter[SeenFigure]:
    """The figures ``state`` has on the board (state cells, canonical features), acrobats included."""
    out: Counter[SeenFigure] = Counter()
    for feature in state.features.values():
        for fig in feature.figures:
            name, rot = state.tiles[fig.at]
            spot = rotated(name, rot).segments[fig.segment].spot
            out[(fig.at[0], fig.at[1], fig.figure.value, colors[fig.seat], spot)] += 1
    for (x, y), seats in state.acrobats.items():
        for seat in seats:
            out[(x, y, "acrobat", colors[seat], "acrobats")] += 1
    return out


def board_of(state: State, colors: Sequence[str] = COLORS) -> SeenBoard:
    """What a perfect camera reports of ``state`` (in the state's own cells)."""
    tiles = tuple(sorted((x, y, n, r) for (x, y), (n, r) in state.tiles.items()))
    return SeenBoard(tiles, tuple(sorted(figures_of(state, colors).elements())), (), tuple(colors))


def _align(state: State, seen: SeenBoard) -> tuple[int, Pos, int] | None:
    """The board turn and offset that line the camera's cells up with the state's, and how many known tiles match."""
    cells = {(x, y): (n, r) for x, y, n, r in seen.tiles + seen.unsure}
    anchors = list(state.tiles.items())[:3]
    best: tuple[int, Pos, int] | None = None
    for k in range(4):
        turned = {_turn(x, y, k): (n, (r - 90 * k) % 360) for (x, y), (n, r) in cells.items()}
        offsets = {(ax - tx, ay - ty) for (ax, ay), pair in anchors for (tx, ty), other in turned.items()
                   if same_look(pair, other)}
        for dx, dy in offsets:
            hits = sum(1 for (x, y), pair in state.tiles.items()
                       if (other := turned.get((x - dx, y - dy))) is not None and same_look(pair, other))
            if best is None or hits > best[2]:
                best = (k, (dx, dy), hits)
    return best


def infer_move(state: State, seen: SeenBoard) -> Inference:
    """The turn that takes ``state`` to what the camera ``seen``, or why no single turn does (see the module text)."""
    if state.finished:
        return Inference(InferenceKind.UNCHANGED)
    seat = state.turn % len(state.players)
    name = state.players[seat]
    colors = seen.colors
    found = _align(state, seen)
    if found is None or found[2] < max(1, len(state.tiles) - 2):
        return _why("The board does not match the game: is the camera looking at it?")
    k, (dx, dy), _ = found

    def here(x: int, y: int) -> Pos:
        tx, ty = _turn(x, y, k)
        return tx + dx, ty + dy

    sure = {here(x, y): (n, (r - 90 * k) % 360) for x, y, n, r in seen.tiles}
    unsure = {here(x, y): (n, (r - 90 * k) % 360) for x, y, n, r in seen.unsure}
    gone = sorted(p for p in state.tiles if p not in sure and p not in unsure)
    if gone:
        return _why(f"The tile at {_xy(gone[0])} is gone; put it back.")
    new = sorted(p for p in (*sure, *unsure) if p not in state.tiles)
    if len(new) > 1:
        return _why(f"{len(new)} new tiles ({', '.join(map(_xy, new))}); lay one tile a turn.")
    placed: tuple[Pos, str, int] | None = None
    if new:
        pos = new[0]
        if pos in unsure:
            guess = unsure[pos][0]
            return _why(f"The new tile at {_xy(pos)} cannot be read for sure (it looks like {guess}); straighten it.")
        placed = (pos, *sure[pos])
    tiles = dict(state.tiles)
    if placed is not None:
        tiles[placed[0]] = (placed[1], placed[2])
    seen_figs: Counter[SeenFigure] = Counter()
    for x, y, figure, color, feature in seen.figures:
        if figure == "big-top":
            continue
        p = here(x, y)
        if p not in tiles:
            continue
        if figure == "acrobat":
            seen_figs[(p[0], p[1], figure, color, "acrobats")] += 1
            continue
        spot = _canonical(*tiles[p], _turn_spot(feature, k))
        if spot is not None:
            seen_figs[(p[0], p[1], figure, color, spot)] += 1
    expected = figures_of(state, colors)
    # acrobats, stack by stack
    new_figs: list[SeenFigure] = []
    pyramid: Pos | None = None
    stacks = {(f[0], f[1]) for f in (*seen_figs, *expected) if f[2] == "acrobat"}
    for x, y in sorted(stacks):
        want = Counter({f: c for f, c in expected.items() if f[:3] == (x, y, "acrobat")})
        got = Counter({f: c for f, c in seen_figs.items() if f[:3] == (x, y, "acrobat")})
        if got == want:
            continue
        if not got and sum(want.values()) >= 3:
            pyramid = (x, y)
        elif not want and sum(got.values()) >= 3:
            continue  # a pyramid scored, its acrobats not yet taken back
        elif not want - got and sum((got - want).values()) == 1:
            new_figs.extend((got - want).elements())
        else:
            return _why(f"The acrobats at {_xy((x, y))} do not match the game; put them back as they were.")
    # meeples and ringmasters standing on the board: compared by square, colour and feature (the state knows which
    # is which; a figure seen again may be sized differently); one not seen is still there (figures leave when scored)
    kinds = {_follower(f): f[2] for f in seen_figs if f[2] != "acrobat"}
    others_seen = Counter({_follower(f): c for f, c in seen_figs.items() if f[2] != "acrobat"})
    others_want = Counter({_follower(f): c for f, c in expected.items() if f[2] != "acrobat"})
    standing = {(f[0], f[1], f[3]) for f in others_want}
    for fig in sorted((others_seen - others_want).elements()):
        pos = (fig[0], fig[1])
        if placed is not None and pos == placed[0]:
            new_figs.append((fig[0], fig[1], kinds[fig], fig[3], fig[4]))
            continue
        index = rotated(*tiles[pos]).spots[fig[4]]
        if state.features[state.seg_feature[(pos[0], pos[1], index)]].completed:
            continue  # on a feature already scored: waiting to be taken back
        if (pos[0], pos[1], fig[3]) in standing:
            continue  # a standing figure seen on another feature of its tile
        return _why(f"A {fig[3]} {kinds[fig]} appeared on the {fig[4]} at {_xy(pos)}; a figure goes on the tile just laid.")
    if placed is None:
        if new_figs:
            fig = new_figs[0]
            return _why(f"A {fig[3]} {fig[2]} appeared at {_xy((fig[0], fig[1]))} but no new tile; lay the tile first.")
        return Inference(InferenceKind.UNCHANGED)
    if len(new_figs) > 1:
        return _why(f"{len(new_figs)} new figures; one figure a turn.")
    pos, tile, rotation = placed
    if not new_figs:
        return Inference(InferenceKind.MOVE, Placement(tile, pos, rotation, score_pyramid=pyramid))
    x, y, figure, color, spot = new_figs[0]
    if color != colors[seat]:
        return _why(f"It is {name}'s turn ({colors[seat]}), but the new figure is {color}.")
    if figure == "acrobat":
        return Inference(InferenceKind.MOVE, Placement(tile, pos, rotation, Figure.ACROBAT, target=(x, y),
                                                       score_pyramid=pyramid))
    # each player owns one ringmaster: with it on the board the new figure is a meeple; with no meeple left, it
    if figure == "ringmaster" and not state.ringmasters[seat]:
        figure = "meeple"
    elif figure == "meeple" and state.meeples[seat] == 0 and state.ringmasters[seat]:
        figure = "ringmaster"
    kind, _, edge = spot.partition(":")
    return Inference(InferenceKind.MOVE, Placement(tile, pos, rotation, Figure(figure), Spot(Kind(kind), edge),
                                                   score_pyramid=pyramid))


def _follower(fig: SeenFigure) -> SeenFigure:
    """A meeple or ringmaster as the board compares it: square, colour and feature."""
    return (fig[0], fig[1], "follower", fig[3], fig[4])


def _xy(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"
