"""A photo of a Carcassonne board -> every tile's cell, type and rotation.

`recognize` finds the grid (`vision.carcassonne.grid`), classifies every
candidate cell (`vision.carcassonne.classifier`), scores each (type, rotation)
pair of the catalog by the class probability and by how well the catalog's
edges fit the edge head's reading of each side, then settles the board as a
whole: neighbouring edges must match (city to city, road to road, field to
field) and no type may appear more often than the box holds. A tile whose
answer stays doubtful, or that the board chose but its own picture does not
bear out (the class head scarcely sees its type, or reads the cell as empty,
or the edge head reads one of its sides otherwise), is listed as unrecognised,
never guessed silently. So is a base tile that may be the Under the Big Top
tile with the same edges, whose circus or acrobat space a figure hides: the
class head gives that twin a share. So is a tile a figure may hide the
difference of: another tile that its neighbours allow differs from it only
under the figure (`vision.carcassonne.figures.hidden_rivals`). Each
unrecognised cell carries the tiles and turns still in the running there, by
which a figure on it may yet be placed on its feature.

With an enrolled deck (`vision.carcassonne.classifier.DeckTileClassifier`) the
grid is first set again by where the deck's tiles are seen
(`vision.carcassonne.deck_grid.refit_grid`); a grid of more than a few cells
(`SMALL_BOARD`) on which the deck's views agree nowhere is no board (on the
tuning boards, seeds 906,000,000, 906,300,000 and 906,600,000 on, not one tile
of such a grid was read right: most lay across the tiles, at a wrong pitch). A
tile the deck is unsure of (or names in a turn its sides scarcely tell) is
unrecognised unless its sure neighbours' sides and the box leave exactly one of
the deck's close tiles, in one turn (`_decide_by_neighbours`), and whether the photo shows a board at all
is judged by the neighbouring edges of the tiles the deck named (where two
touch): the model's sides of an edition it reads poorly are no evidence against
the board.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import BIG_TOP_TILES, CATALOG, Special, box, rotated
from vision.carcassonne.classifier import DeckTileClassifier, TileClassifier, cut_crops
from vision.carcassonne.dataset import EDGE_INDEX
from vision.carcassonne.deck_grid import refit_grid
from vision.carcassonne.features import anchor
from vision.carcassonne.figures import FIGURE_COLOURS, FigureReading, search_figures
from vision.carcassonne.grid import Grid, NoBoardError, find_grid
from vision.carcassonne.labels import NONE, ROTATIONS, TILE_NAMES, canonical_rotation, label

__all__ = ["BoardReading", "TileReading", "UnsureCell", "annotate", "read_cells", "recognize"]

#: a tile below this confidence is reported as unrecognised
THRESHOLD = 0.6
#: the class head's log-probabilities are divided by this before the board is settled (below 1: sharper; 1: as the
#: model says). Left at 1: sharper settings measured on tuning boards gain one or two tiles and turn a road tile
#: under a meeple unrecognised (the model card's calibration section)
CLASS_TEMPERATURE = 1.0
#: weight of the edge head's evidence against the class head's
EDGE_WEIGHT = 2.0
#: log-probability cost of one mismatched edge between neighbours
MISMATCH = 4.0
#: candidates kept per cell for the board-wide settling
CANDIDATES = 8
#: weight of the box counts as a prior (a box holds 9 V but 1 X)
PRIOR_WEIGHT = 1.0
#: how sure a cell must be of an Under the Big Top tile to count as evidence of the expansion
BIG_TOP_SURE = 0.97
#: a reading whose neighbouring edges disagree on more than this share of the touching pairs is no board
NO_BOARD_MISMATCH = 0.25
#: a reading whose median tile confidence is below this is no board
NO_BOARD_CONFIDENCE = 0.5
#: a lone tile-like square must be this sure (and its sides read as its type's) to be read as a board of one tile
LONE_TILE = 0.97
#: a lone square's outline is a tile's only when each two opposite sides are at least this share of the other's length,
#: and each two sides that meet at least `LONE_ADJACENT` (a square tilted 35 degrees away: about 0.8 between sides
#: that meet, opposite sides all but equal). On tuning boards (seed 1200000) a lone start tile's square was cut along
#: its city's wall, its east side 0.47 of its west, and read as a road curve, surely
LONE_OPPOSITE = 0.7
LONE_ADJACENT = 0.6
#: on a board of up to this many squares, two neighbours that disagree or one doubtful square make it no board
SMALL_BOARD = 4
#: a tile with an edge twin (another type with the same edges, such as the same city with or without a
#: pennant: its neighbours and the box cannot tell them apart) is accepted only when the twins together
#: hold less than this share of its answer; else it is unrecognised
TWIN_DOUBT = 0.1
#: a board of more than SMALL_BOARD squares more than this share of which the shipped model leaves unrecognised is no
#: board
MOSTLY_UNSURE = 0.5
#: a board on which the shipped model's class head gives the median tile-like square's likeliest tile (type and turn)
#: less than this is no board: on the editions it knows that median is above 0.998, on an edition unlike them (the
#: Fourth benchmark deck) below 0.975, while its readings there are confidently wrong and agree edge to edge
FAMILIAR = 0.985
#: a tile whose own picture gives its type less than this share (the class head: its neighbours and the box chose
#: it, not what it shows) is unrecognised
OWN_EVIDENCE = 0.1
#: a tile whose picture is at least this likely an empty cell (a cell cut across two tiles, or half table) is unrecognised
NOT_A_TILE = 0.2
#: a tile one of whose sides the edge head reads as what the tile has there with less than this probability is unrecognised
SIDE_DOUBT = 0.5
#: a base tile whose Under the Big Top twin (the same edges around a circus or an acrobat space: a figure on the space
#: hides it) the class head gives at least this share of the two is unrecognised. On tuning boards (seed 1200000, part
#: 2) acrobat tiles under a stack read as V or W left their twin 0.009 to 0.026, right base tiles mostly under 0.002
#: and none not otherwise held above 0.005 (0.03 had accepted those acrobat tiles as their base twins)
BIG_TOP_TWIN_DOUBT = 0.008
#: ... on a board with at least this many cells sure of an Under the Big Top tile (without the expansion's tiles, a
#: meeple on a straight road or on a monastery looks like an acrobat tile to the class head)
BIG_TOP_TWIN_BOARD = 1
#: a tile and turn holding at least this share of an unrecognised cell's answer (the board's settling, or the class
#: head's reading of its own picture) is still in the running there: a figure on the cell is reported where all of
#: them put it on the same feature (`vision.carcassonne.figures.search_figures`)
RUNNING = 0.001

_STEP = ((0, -1), (1, 0), (0, 1), (-1, 0))


@dataclass(frozen=True, slots=True)
class TileReading:
    """One recognised tile: cell (x right, y down), record name, clockwise rotation, confidence 0..1."""

    x: int
    y: int
    tile: str
    rotation: int
    confidence: float

    def to_json(self) -> dict[str, Any]:
        """The record ``{"x", "y", "tile", "rotation", "confidence"}``."""
        return {"x": self.x, "y": self.y, "tile": self.tile, "rotation": self.rotation, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True, slots=True)
class UnsureCell:
    """A cell that holds something tile-like the recogniser could not settle: its best guess, and every tile and turn
    (type, rotation) still in the running there (`RUNNING`; empty for a square apart from the board)."""

    x: int
    y: int
    best: str
    rotation: int
    confidence: float
    running: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "tile", "x", "y", "best", "rotation", "confidence"}``."""
        return {"kind": "tile", "x": self.x, "y": self.y, "best": self.best, "rotation": self.rotation,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True, slots=True)
class BoardReading:
    """What a photo of a board shows. ``corners`` maps each reported cell to its corners in the photo."""

    tiles: tuple[TileReading, ...]
    unrecognised: tuple[UnsureCell, ...] = ()
    figures: tuple[FigureReading, ...] = ()
    corners: dict[tuple[int, int], NDArray[Any]] = field(default_factory=dict, compare=False, repr=False)
    #: why the board as read is no legal position (neighbouring edges that disagree, more of a tile than
    #: the box holds); empty when every tile read fits its neighbours
    conflicts: tuple[str, ...] = ()
    #: figures seen but not surely (their colour, their size between a meeple's and the ringmaster's): never
    #: reported as figures, listed as unrecognised
    unsure_figures: tuple[FigureReading, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The ``ringside recognize --game carcassonne --json`` object; a figure in doubt is in ``unrecognised``
        as ``{"kind": "figure", "x", "y", "best", "color", "feature", "confidence"}``."""
        doubtful = [{"kind": "figure", "x": f.x, "y": f.y, "best": f.figure, "color": f.color or None, "feature": f.feature,
                     "confidence": round(f.confidence, 3)} for f in self.unsure_figures]
        return {"game": "carcassonne", "tiles": [t.to_json() for t in self.tiles], "figures": [f.to_json() for f in self.figures],
                "unrecognised": [u.to_json() for u in self.unrecognised] + doubtful}

    def describe(self) -> str:
        """A short human summary, one tile a line."""
        lines = [f"{len(self.tiles)} tiles, {len(self.figures)} figures, "
                 f"{len(self.unrecognised) + len(self.unsure_figures)} unrecognised"]
        lines += [f"  ({t.x},{t.y}) {t.tile} turned {t.rotation} ({t.confidence:.2f})" for t in self.tiles]
        lines += [f"  ({u.x},{u.y}) unsure: {u.best}? ({u.confidence:.2f})" for u in self.unrecognised]
        lines += [f"  ({f.x},{f.y}) {f.color} {f.figure}{' ' + f.animal if f.animal else ''} on {f.feature} "
                  f"({f.confidence:.2f})" for f in self.figures]
        lines += [f"  ({f.x},{f.y}) unsure: {f.color} {f.figure}? on {f.feature} ({f.confidence:.2f})"
                  for f in self.unsure_figures]
        lines += [f"  conflict: {c}" for c in self.conflicts]
        return "\n".join(lines)


_PAIRS: tuple[tuple[str, int], ...] = tuple((n, r) for n in TILE_NAMES for r in ROTATIONS if canonical_rotation(n, r) == r)


def _edge_codes() -> NDArray[Any]:
    out = np.zeros((len(_PAIRS), 4), np.int64)
    for i, (n, r) in enumerate(_PAIRS):
        out[i] = [EDGE_INDEX[e.value] for e in rotated(n, r).edges]
    return out


_EDGES = _edge_codes()


def _twins() -> NDArray[Any]:
    """``(pairs, pairs)`` true where two pairs are different types with the same edges in the same places."""
    same = (_EDGES[:, None, :] == _EDGES[None, :, :]).all(axis=2)
    names = np.array([n for n, _ in _PAIRS])
    out: NDArray[Any] = same & (names[:, None] != names[None, :])
    return out


_TWINS = _twins()


def _twin_table() -> dict[tuple[str, int, Special], tuple[str, int]]:
    """(base tile, rotation, centre space) -> the Under the Big Top tile with that space and the same edges in the
    same places, and its rotation."""
    out: dict[tuple[str, int, Special], tuple[str, int]] = {}
    for name, rot in _PAIRS:
        if name in BIG_TOP_TILES:
            continue
        edges = rotated(name, rot).edges
        for twin in BIG_TOP_TILES:
            for r in ROTATIONS:
                if rotated(twin, r).edges == edges:
                    out.setdefault((name, rot, CATALOG[twin].special), (twin, canonical_rotation(twin, r)))
    return out


_BIG_TOP_TWIN = _twin_table()


def _base_twins() -> dict[tuple[str, int], list[tuple[str, int]]]:
    """(Under the Big Top tile, rotation) -> the base tiles (and rotations) whose twin it is."""
    out: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for (name, rot, _), twin in _BIG_TOP_TWIN.items():
        out.setdefault(twin, []).append((name, rot))
    return out


_BASE_TWIN = _base_twins()
#: the Under the Big Top centre spaces a figure stands on, hiding them
_SPACES = (Special.CIRCUS, Special.ACROBATS)


def big_top_twins(name: str, rotation: int) -> dict[Special, tuple[str, int]]:
    """The Under the Big Top tiles whose edges are those of base tile ``name`` turned ``rotation`` degrees (the same
    tile with a circus or an acrobat space at its centre), by their centre space, each with its rotation."""
    rot = canonical_rotation(name, rotation)
    return {sp: tw for sp in _SPACES if (tw := _BIG_TOP_TWIN.get((name, rot, sp))) is not None}


@functools.cache
def _prior(expansion: bool) -> NDArray[Any]:
    """Log prior of each pair: how many of that tile the box holds (trained on equal shares); read only, made once."""
    counts = box(expansion)
    out: NDArray[Any] = np.array([np.log(counts.get(n, 0) + 1e-3) for n, _ in _PAIRS])
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class _Columns:
    """Where the model's labels (one tuple of them) put each pair and each tile type."""

    #: the column of each pair (`_PAIRS`), as an array and as a list
    pairs: NDArray[Any]
    pair_list: tuple[int, ...]
    #: each tile type's columns (its turns), by type
    by_type: dict[str, tuple[int, ...]]
    #: the column of `NONE`
    none: int


@functools.lru_cache(maxsize=8)
def _columns(labels: tuple[str, ...]) -> _Columns:
    """The columns of ``labels`` (a model's label order), worked out once a label order."""
    index = {lab: i for i, lab in enumerate(labels)}
    pair_list = tuple(index[label(n, r)] for n, r in _PAIRS)
    pairs = np.array(pair_list)
    pairs.flags.writeable = False
    by_type: dict[str, list[int]] = {}
    for j, lab in enumerate(labels):
        if lab != NONE:
            by_type.setdefault(lab.rpartition("@")[0], []).append(j)
    return _Columns(pairs, pair_list, {k: tuple(v) for k, v in by_type.items()}, index[NONE])


def _type_sums(probs: NDArray[Any], cols: _Columns, names: Sequence[str]) -> dict[str, list[float]]:
    """Each cell's probability of each tile type in ``names`` (its turns' columns summed), as plain floats.

    A row's sum of a C-ordered array is the sum numpy takes of that row alone, to the bit
    (`tests/vision/carcassonne/test_carcassonne_recognize_speed.py`)."""
    return {name: np.ascontiguousarray(probs.take(cols.by_type[name], axis=1)).sum(axis=1).astype(np.float64).tolist()
            for name in names}


def _sharpen(probs: NDArray[Any], temperature: float) -> NDArray[Any]:
    """``probs`` (N, classes) with their log-probabilities divided by ``temperature``, normalised again."""
    if temperature == 1.0:
        return probs
    logp = np.log(np.clip(probs, 1e-12, 1.0)) / temperature
    out: NDArray[Any] = np.exp(logp - logp.max(axis=1, keepdims=True))
    out /= out.sum(axis=1, keepdims=True)
    return out


def _pair_scores(probs: NDArray[Any], edges: NDArray[Any], labels: Sequence[str], expansion: bool) -> NDArray[Any]:
    """``(N, pairs)`` log-scores of every distinct (type, rotation) for every cell."""
    cols = _columns(tuple(labels)).pairs
    logp = np.log(np.clip(probs[:, cols], 1e-9, 1.0)) + PRIOR_WEIGHT * _prior(expansion)
    loge = np.log(np.clip(edges, 1e-6, 1.0))  # (N, 4, 3)
    edge_term = np.zeros_like(logp)
    for side in range(4):
        edge_term += loge[:, side, :][:, _EDGES[:, side]]
    out: NDArray[Any] = logp + EDGE_WEIGHT * edge_term
    return out


def _settle(cells: list[tuple[int, int]], scores: NDArray[Any],
            caps: dict[str, int]) -> tuple[list[int], list[float], list[float], list[list[int]]]:
    """Board-wide choice of one pair per cell: own score, matching neighbours, box counts.

    Iterated conditional modes over each cell's best candidates, then the box's
    caps enforced by moving the cheapest surplus tiles to their next choice.
    Returns the chosen pair index, its confidence, the share its edge twins hold and the pairs holding at least
    `RUNNING` of its answer, per cell.
    """
    n = len(cells)
    cands = np.argsort(-scores, axis=1)[:, :CANDIDATES]
    cand_rows: list[list[int]] = cands.tolist()
    choice: list[int] = [row[0] for row in cand_rows]
    where = {c: i for i, c in enumerate(cells)}
    neigh = [[where.get((x + dx, y + dy), -1) for dx, dy in _STEP] for x, y in cells]

    # plain lists: the same numbers, read without numpy's per-element cost
    score_rows: list[list[float]] = scores.tolist()
    edge_rows: list[list[int]] = _EDGES.tolist()

    def local(i: int, p: int) -> float:
        total = score_rows[i][p]
        own = edge_rows[p]
        for side, j in enumerate(neigh[i]):
            if j >= 0 and own[side] != edge_rows[choice[j]][(side + 2) % 4]:
                total -= MISMATCH
        return total

    # a cell is weighed again only once a neighbour's choice changed since it was last weighed: otherwise it
    # would choose as it did (the same sums of the same choices)
    stale = [True] * n
    for _ in range(4):
        changed = False
        for i in range(n):
            if not stale[i]:
                continue
            stale[i] = False
            # max(cand_rows[i], key=lambda p: local(i, p)), inline: the first best, the same sums in the same order
            row = score_rows[i]
            facing = [(side, edge_rows[choice[j]][(side + 2) % 4]) for side, j in enumerate(neigh[i]) if j >= 0]
            best, top = -1, 0.0
            for p in cand_rows[i]:
                total = row[p]
                own = edge_rows[p]
                for side, edge in facing:
                    if own[side] != edge:
                        total -= MISMATCH
                if best < 0 or total > top:
                    best, top = p, total
            if best != choice[i]:
                choice[i] = best
                changed = True
                for j in neigh[i]:
                    if j >= 0:
                        stale[j] = True
        if not changed:
            break
    # the box's counts
    for _ in range(n):
        used: dict[str, list[int]] = {}
        for i in range(n):
            used.setdefault(_PAIRS[choice[i]][0], []).append(i)
        over = [(name, idx) for name, idx in used.items() if len(idx) > caps.get(name, 0)]
        if not over:
            break
        name, idx = over[0]
        full = {nm for nm, ix in used.items() if len(ix) >= caps.get(nm, 0)}
        moves = []
        for i in idx:
            for p in cands[i]:
                if _PAIRS[p][0] not in full:
                    moves.append((local(i, int(choice[i])) - local(i, int(p)), i, int(p)))
                    break
        if not moves:
            break
        _, i, p = min(moves)
        choice[i] = p
    # each cell's candidates scored against its neighbours' final choices as `local` scores them: MISMATCH taken off
    # side after side where it disagrees (taking off nothing leaves a score as it is)
    vals = scores[np.arange(n)[:, None], cands].astype(np.float64)
    chosen = np.asarray(choice, np.int64).reshape(n)
    cand_edges = _EDGES[cands]
    around = np.asarray(neigh, np.int64).reshape(n, 4)
    for side in range(4):
        there = around[:, side]
        theirs = np.where(there >= 0, _EDGES[chosen[there], (side + 2) % 4], -1)
        vals = np.where((there >= 0)[:, None] & (cand_edges[:, :, side] != theirs[:, None]), vals - MISMATCH, vals)
    # every choice is one of the cell's candidates
    mine_at = np.asarray([row.index(c) for row, c in zip(cand_rows, choice)], np.int64)
    share = np.exp(vals - vals[np.arange(n), mine_at][:, None])
    # a C-ordered row's sum is numpy's sum of that row alone, to the bit
    totals = share.sum(axis=1)
    conf: list[float] = (1.0 / totals).tolist()
    # the twins' shares summed one candidate after the other (a row holds fewer than 8, which numpy also sums in
    # order; the others count as 0.0, which leaves a sum as it is)
    twins = np.where(_TWINS[chosen[:, None], cands], share, 0.0)
    twin_sum = twins[:, 0].copy()
    for k in range(1, twins.shape[1]):
        twin_sum += twins[:, k]
    twin: list[float] = (twin_sum / totals).tolist()
    keep: list[list[bool]] = (share >= RUNNING * totals[:, None]).tolist()
    running = [[p for p, ok in zip(cand_rows[i], keep[i]) if ok] for i in range(n)]
    return [int(c) for c in choice], conf, twin, running


#: a group of tile-like squares apart from the board's largest one square away is the board's (`_near_parts`) when
#: the deck names at least this share of its tiles
NEAR_PART_NAMED = 0.6


def _near_parts(cells: Sequence[Any], tile_like: list[int], groups: list[list[int]],
                deck_doubts: NDArray[np.bool_]) -> set[int]:
    """Which of ``groups`` (indices into ``tile_like``, itself indices into ``cells``; largest first) but the first lie
    one square of the grid from the first (a square touches both) and are named by the deck at least
    `NEAR_PART_NAMED` (``deck_doubts`` false): a board is one piece, so a tile lies between them that glare or blur
    hid from the model."""
    where = {(c.x, c.y) for c in cells}
    main = {(cells[tile_like[k]].x, cells[tile_like[k]].y) for k in groups[0]}
    out: set[int] = set()
    for n, g in enumerate(groups[1:], 1):
        members = [tile_like[k] for k in g]
        if sum(not deck_doubts[i] for i in members) < NEAR_PART_NAMED * len(members):
            continue
        part = {(cells[i].x, cells[i].y) for i in members}
        between = {(x + dx, y + dy) for x, y in part for dx, dy in _STEP} & where
        if any((x + dx, y + dy) in main for x, y in between for dx, dy in _STEP):
            out.add(n)
    return out


def _components(pos: list[tuple[int, int]]) -> list[list[int]]:
    """Indices of ``pos`` grouped into 4-connected groups, largest first."""
    where = {c: i for i, c in enumerate(pos)}
    seen: set[int] = set()
    groups: list[list[int]] = []
    for start in range(len(pos)):
        if start in seen:
            continue
        seen.add(start)
        group, todo = [], [start]
        while todo:
            i = todo.pop()
            group.append(i)
            x, y = pos[i]
            for dx, dy in _STEP:
                j = where.get((x + dx, y + dy))
                if j is not None and j not in seen:
                    seen.add(j)
                    todo.append(j)
        groups.append(sorted(group))
    groups.sort(key=len, reverse=True)
    return groups


def _tile_shaped(corners: NDArray[Any]) -> bool:
    """Whether a cell's outline (NW, NE, SE, SW in the photo) may be a square tile seen from at most a steep tilt: each
    two opposite sides at least `LONE_OPPOSITE` of the other's length, each two sides that meet at least
    `LONE_ADJACENT`."""
    c = np.asarray(corners, np.float64)
    sides = [float(np.linalg.norm(c[(k + 1) % 4] - c[k])) for k in range(4)]
    if min(sides) <= 0:
        return False
    opposite = min(min(sides[k], sides[k + 2]) / max(sides[k], sides[k + 2]) for k in (0, 1))
    adjacent = min(min(sides[k], sides[(k + 1) % 4]) / max(sides[k], sides[(k + 1) % 4]) for k in range(4))
    return opposite >= LONE_OPPOSITE and adjacent >= LONE_ADJACENT


def _mismatches(pos: list[tuple[int, int]], choice: list[int]) -> tuple[int, list[tuple[int, int]]]:
    """The number of touching pairs and the pairs (indices) whose shared edge disagrees."""
    where = {c: i for i, c in enumerate(pos)}
    pairs = 0
    bad: list[tuple[int, int]] = []
    for i, (x, y) in enumerate(pos):
        for side, (dx, dy) in ((1, (1, 0)), (2, (0, 1))):
            j = where.get((x + dx, y + dy))
            if j is None:
                continue
            pairs += 1
            if _EDGES[choice[i], side] != _EDGES[choice[j], (side + 2) % 4]:
                bad.append((i, j))
    return pairs, bad


def _unsupported(probs: NDArray[Any], edges: NDArray[Any], choice: list[int], labels: Sequence[str],
                 caps: dict[str, int]) -> set[int]:
    """The cells whose settled answer their own picture does not bear out: of the types the box holds (``caps``),
    the class head gives its type less than `OWN_EVIDENCE`, it reads the cell as empty with at least `NOT_A_TILE`,
    or the edge head reads one of its sides as that side's feature with less than `SIDE_DOUBT` (indices into
    ``choice``)."""
    cols = _columns(tuple(labels))
    # a type the box does not hold (an Under the Big Top tile on a base game board) is no rival: a meeple on
    # a straight road looks like an acrobat tile
    held = [j for name, of_type in cols.by_type.items() if caps.get(name, 0) > 0 for j in of_type]
    names = [_PAIRS[p][0] for p in choice]
    mine = _type_sums(probs, cols, sorted(set(names)))
    # each row's sum as numpy takes it of the row alone (see `_type_sums`)
    rivals = np.maximum(np.ascontiguousarray(probs.take(held, axis=1)).sum(axis=1).astype(np.float64), 1e-9).tolist()
    n = len(choice)
    # the least the edge head gives any of the settled tile's sides
    sides = edges[np.arange(n)[:, None], np.arange(4)[None, :], _EDGES[np.asarray(choice, np.int64).reshape(n)]].min(axis=1)
    empty = probs[:, cols.none] >= NOT_A_TILE
    return {k for k in range(n)
            if mine[names[k]][k] / rivals[k] < OWN_EVIDENCE or empty[k] or sides[k] < SIDE_DOUBT}


def _big_top_doubts(probs: NDArray[Any], choice: list[int], labels: Sequence[str]) -> set[int]:
    """The cells (indices into ``choice``) read as a base tile that may be its Under the Big Top twin (the same edges
    around a circus or an acrobat space, which a figure on it hides): the class head gives the twin at least
    `BIG_TOP_TWIN_DOUBT` of the two."""
    twins = [_TWIN_TYPES[p] for p in choice]
    names = [_PAIRS[p][0] for p in choice]
    sums = _type_sums(probs, _columns(tuple(labels)), sorted(set(names) | {t for ts in twins for t in ts}))
    out: set[int] = set()
    for k, name in enumerate(names):
        mine = sums[name][k]
        for twin in twins[k]:
            theirs = sums[twin][k]
            if theirs / max(mine + theirs, 1e-9) >= BIG_TOP_TWIN_DOUBT:
                out.add(k)
    return out


#: the Under the Big Top tiles whose edges are those of each pair (`_PAIRS`), as `big_top_twins` gives them
_TWIN_TYPES: tuple[tuple[str, ...], ...] = tuple(tuple(t for t, _ in big_top_twins(n, r).values()) for n, r in _PAIRS)


#: a tile an enrolled deck names is doubtful when the edge head gives its settled turn less than this share of its
#: turns (a wrong turn is a wrong tile)
DECK_TURN = 0.8


def _in_the_running(settled: Sequence[int], own: NDArray[Any], close: frozenset[str]) -> tuple[tuple[str, int], ...]:
    """The tiles and turns (type, rotation) still in the running on an unrecognised cell: the pairs (indices into
    `_PAIRS`) the board's settling left there (``settled``), those the class head gives at least `RUNNING` of the
    cell's own picture (``own``: its probability of each pair), the close tiles an enrolled deck named (``close``, in
    every turn), and each one's Under the Big Top twin or the base tile it is the twin of (a figure on the circus or
    acrobat space hides it)."""
    picked = set(settled) | {int(p) for p in np.flatnonzero(own >= RUNNING)}
    if close:
        picked |= {p for p, (name, _) in enumerate(_PAIRS) if name in close}
    pairs = {_PAIRS[p] for p in picked}
    for name, rot in list(pairs):
        pairs.update(big_top_twins(name, rot).values())
        pairs.update(_BASE_TWIN.get((name, rot), ()))
    return tuple(sorted(pairs))


def _decide_by_neighbours(pos: list[tuple[int, int]], choice: list[int], sure: set[int], close: list[frozenset[str]],
                          caps: dict[str, int]) -> dict[int, int]:
    """Cells the deck left doubtful between close tiles (``close``, indices as ``pos``) that the sides of their sure
    neighbours (``sure``, with the pair ``choice`` gives them) decide: of every close tile the box still holds, in
    every turn, exactly one tile in one turn fits all of them. Where two turns fit, the edge head is not asked to
    choose: on an edition it never saw it was sure (over 0.99) of the wrong turn on tuning boards. A decided cell is
    a sure neighbour for the next; returns each decided cell's pair."""
    where = {c: i for i, c in enumerate(pos)}
    neigh = [[where.get((x + dx, y + dy), -1) for dx, dy in _STEP] for x, y in pos]
    names = [n for n, _ in _PAIRS]
    sure = set(sure)
    picked = {i: choice[i] for i in sure}
    used: dict[str, int] = {}
    for i in sure:
        used[names[choice[i]]] = used.get(names[choice[i]], 0) + 1
    out: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for k in range(len(pos)):
            if k in sure or not close[k]:
                continue
            need = [(side, _EDGES[picked[j], (side + 2) % 4]) for side, j in enumerate(neigh[k]) if j in picked]
            if not need:
                continue
            fits = [p for p, name in enumerate(names) if name in close[k] and used.get(name, 0) < caps.get(name, 0)
                    and all(_EDGES[p, side] == want for side, want in need)]
            if len(fits) != 1:
                continue
            p = fits[0]
            out[k] = p
            sure.add(k)
            picked[k] = p
            used[names[p]] = used.get(names[p], 0) + 1
            changed = True
    return out


def read_cells(photo: NDArray[Any], grid: Grid, classifier: TileClassifier | DeckTileClassifier,
               threshold: float | None = None) -> BoardReading:
    """Classify the grid's cells in ``photo`` and settle the board (see the module text).

    Only the largest group of touching tile cells is the board; tile-like cells apart
    from it are listed as unrecognised. Tiles whose edges still disagree with a
    neighbour after the settling, or that exceed the box's count, are unrecognised
    and named in ``conflicts``.

    :raises NoBoardError: when what the grid holds reads as no board: neighbouring
        edges disagree too often, the tiles are doubtful on the whole, or a lone
        square is no sure tile; with a deck, also when its views place none of a
        grid of more than `SMALL_BOARD` squares (`refit_grid`).
    """
    threshold = THRESHOLD if threshold is None else threshold
    if isinstance(classifier, DeckTileClassifier):
        # the grid found from seams may lie across an edition's tiles: the deck's views of them set it again
        refit = refit_grid(photo, grid, classifier.deck)
        if refit is None and len(grid.cells) > SMALL_BOARD and getattr(classifier.deck, "templates", None) is not None:
            raise NoBoardError(f"no board in the photo: the enrolled tiles' views agree on no grid through the "
                               f"{len(grid.cells)} squares found")
        grid = refit or grid
    cells = list(grid.cells)
    crops = cut_crops(photo, [c.corners for c in cells])
    close: list[frozenset[str]] = []
    with_deck = isinstance(classifier, DeckTileClassifier)
    if isinstance(classifier, DeckTileClassifier):
        probs, edges, deck_doubts, close = classifier.read_with_candidates(crops)
    else:
        probs, edges = classifier.run(crops)
        deck_doubts = np.zeros(len(cells), bool)
    probs = _sharpen(probs, CLASS_TEMPERATURE)
    none_col = classifier.labels.index(NONE)
    tile_like = [i for i in range(len(cells)) if probs[i, none_col] < 0.5]
    if not tile_like:
        return BoardReading(())
    groups = _components([(cells[i].x, cells[i].y) for i in tile_like])
    # a board is one piece: a part the deck names, one square from the largest (a tile between them glare or blur
    # hid from the model), is the board's
    joined = _near_parts(cells, tile_like, groups, deck_doubts) if with_deck else set()
    keep = [tile_like[k] for k in groups[0]]
    if joined:
        keep = sorted(keep + [tile_like[k] for n in joined for k in groups[n]])
    apart = [tile_like[k] for n, g in enumerate(groups[1:], 1) if n not in joined for k in g]
    # Under the Big Top tiles count only when the board shows them surely: two cells sure of
    # one (one on a board of up to three tiles), as a base tile is now and then taken for one
    plain = _pair_scores(probs[keep], edges[keep], classifier.labels, True)
    sure = np.exp(plain - np.logaddexp.reduce(plain, axis=1, keepdims=True)).max(axis=1) >= BIG_TOP_SURE
    seen = sum(_PAIRS[int(k)][0] in BIG_TOP_TILES for k in plain.argmax(axis=1)[sure])
    expansion = seen >= (1 if len(keep) <= 3 else 2)
    caps = box(expansion)
    scores = _pair_scores(probs[keep], edges[keep], classifier.labels, expansion)
    pos = [(cells[i].x, cells[i].y) for i in keep]
    choice, conf, twin, running = _settle(pos, scores, caps)
    pairs, bad = _mismatches(pos, choice)
    if len(keep) == 1 and (conf[0] < LONE_TILE or any(edges[keep[0]].argmax(axis=1) != _EDGES[choice[0]])):
        raise NoBoardError(f"no board in the photo: one tile-like square, no sure tile ({conf[0]:.2f})")
    if len(keep) == 1 and not _tile_shaped(cells[keep[0]].corners):
        raise NoBoardError("no board in the photo: the one tile-like square found is cut across a tile, not along it")
    # first: of the reasons a board is refused, this one (enrol the edition) is the one that helps the player
    if not isinstance(classifier, DeckTileClassifier):
        tile_cols = [j for j, lab in enumerate(classifier.labels) if lab != NONE]
        familiar = float(np.median(probs[np.ix_(keep, tile_cols)].max(axis=1)))
        if familiar < FAMILIAR:
            raise NoBoardError(f"no board read: the tiles look like no edition the model knows (median sureness "
                               f"{familiar:.3f}); enrol them as a deck: ringside enroll carcassonne --from DIR --name NAME")
    # with a deck, the model's sides of a cell the deck doubts (an edition the model reads poorly) say nothing of
    # whether a board lies there: only pairs of cells the deck named count, where two touch
    named = [not deck_doubts[i] for i in keep]
    pairs_named, bad_named = (pairs, bad) if all(named) else _mismatches(
        [p for p, ok in zip(pos, named) if ok], [c for c, ok in zip(choice, named) if ok])
    if not pairs_named:  # no two named cells touch: the model's sides are all there is to judge by
        pairs_named, bad_named = pairs, bad
    if pairs_named and len(bad_named) > (0 if len(keep) <= SMALL_BOARD else NO_BOARD_MISMATCH * pairs_named):
        raise NoBoardError(f"no board in the photo: {len(bad_named)} of {pairs_named} neighbouring edges disagree")
    if float(np.median(conf)) < NO_BOARD_CONFIDENCE or (len(keep) <= SMALL_BOARD and min(conf) < threshold):
        raise NoBoardError(f"no board in the photo: the squares read as tiles are doubtful (median {np.median(conf):.2f})")
    if len(apart) >= len(keep) or (apart and len(keep) <= SMALL_BOARD):
        raise NoBoardError(f"no board in the photo: {len(tile_like)} tile-like squares that do not lie together")
    x0 = min(p[0] for p in pos)
    y0 = min(p[1] for p in pos)
    conflicts: list[str] = []
    if joined:
        # its tiles are read, but the board is not in one piece as read: no score until the player shows that tile
        conflicts.append(f"the board is read in {len(joined) + 1} pieces: a tile between them is not seen")
    col = list(_columns(tuple(classifier.labels)).pair_list)
    doubtful = _unsupported(probs[keep], edges[keep], choice, classifier.labels, caps)
    # with a deck: a cell the deck is unsure of, whose model reading is not the deck's nearest tile
    doubtful |= {k for k, i in enumerate(keep) if deck_doubts[i]}
    if with_deck:
        # ... and a tile it names in a turn the edge head scarcely prefers (its sides decide the turn; its
        # neighbours may yet: `_decide_by_neighbours`)
        doubtful |= {k for k, i in enumerate(keep) if not deck_doubts[i] and probs[i, col[choice[k]]] < DECK_TURN}
    big_top = _big_top_doubts(probs[keep], choice, classifier.labels) if seen >= BIG_TOP_TWIN_BOARD else set()
    doubtful |= big_top
    for i, j in bad:
        # the less sure of the two is the one in doubt
        doubtful.add(i if conf[i] <= conf[j] else j)
        conflicts.append(f"edges do not match between ({pos[i][0] - x0},{pos[i][1] - y0}) and ({pos[j][0] - x0},{pos[j][1] - y0})")
    used: dict[str, list[int]] = {}
    for k in range(len(keep)):
        used.setdefault(_PAIRS[choice[k]][0], []).append(k)
    for name, idx in used.items():
        if len(idx) > caps.get(name, 0):
            conflicts.append(f"{len(idx)} tiles {name} read, the box holds {caps.get(name, 0)}")
            doubtful |= set(sorted(idx, key=lambda k: conf[k])[: len(idx) - caps.get(name, 0)])
    if len(keep) > 1:
        # only the tile's own picture tells it from its twin, and that picture is not sure enough
        doubtful |= {k for k in range(len(keep)) if twin[k] >= TWIN_DOUBT}
    if with_deck:
        # a doubtful cell whose close tiles its sure neighbours' sides tell apart (not one the model may see empty,
        # or as an Under the Big Top tile)
        sure = {k for k in range(len(keep)) if conf[k] >= threshold and k not in doubtful}
        among = [frozenset() if k in big_top or probs[i, none_col] >= NOT_A_TILE else close[i] for k, i in enumerate(keep)]
        for k, p in _decide_by_neighbours(pos, choice, sure, among, caps).items():
            choice[k], conf[k] = p, 1.0  # the only tile and turn its sure neighbours leave
            doubtful.discard(k)
    tiles: list[TileReading] = []
    unsure: list[UnsureCell] = []
    corners: dict[tuple[int, int], NDArray[Any]] = {}
    for k, i in enumerate(keep):
        name, rot = _PAIRS[choice[k]]
        x, y = cells[i].x - x0, cells[i].y - y0
        corners[(x, y)] = cells[i].corners
        if conf[k] >= threshold and k not in doubtful:
            tiles.append(TileReading(x, y, name, rot, conf[k]))
        else:
            rivals = _in_the_running([choice[k], *running[k]], probs[i, col], close[i] if with_deck else frozenset())
            unsure.append(UnsureCell(x, y, name, rot, min(conf[k], threshold) if k in doubtful else conf[k], rivals))
    if apart:
        lone = _pair_scores(probs[apart], edges[apart], classifier.labels, expansion)
        p = np.exp(lone - np.logaddexp.reduce(lone, axis=1, keepdims=True))
        for k, i in enumerate(apart):
            name, rot = _PAIRS[int(p[k].argmax())]
            x, y = cells[i].x - x0, cells[i].y - y0
            corners[(x, y)] = cells[i].corners
            unsure.append(UnsureCell(x, y, name, rot, min(float(p[k].max()), threshold / 2)))
    if (not isinstance(classifier, DeckTileClassifier) and len(keep) > SMALL_BOARD
            and len(unsure) > MOSTLY_UNSURE * (len(tiles) + len(unsure))):
        # a grid off the tiles (cells across two tiles) reads mostly doubtful squares, and a few wrong ones surely;
        # a deck leaves many squares of a right grid unsure (it names only what it is sure of), so not with a deck
        raise NoBoardError(f"no board in the photo: {len(unsure)} of {len(tiles) + len(unsure)} squares unrecognised")
    tiles.sort(key=lambda t: (t.y, t.x))
    unsure.sort(key=lambda u: (u.y, u.x))
    return BoardReading(tuple(tiles), tuple(unsure), (), corners, tuple(conflicts))


def recognize(photo: NDArray[Any], classifier: TileClassifier | DeckTileClassifier,
              threshold: float | None = None) -> BoardReading:
    """Every tile in a photo of a board (BGR); ``threshold`` defaults to `THRESHOLD`.

    :raises vision.carcassonne.grid.NoBoardError: when no board or grid is in view.
    """
    reading = read_cells(photo, find_grid(photo), classifier, threshold)
    held = {(u.x, u.y): u.running for u in reading.unrecognised if u.running}
    found = search_figures(photo, reading.tiles, reading.corners, held=held)
    reading = _unhide(reading, found.hidden, THRESHOLD if threshold is None else threshold)
    return replace(reading, figures=found.sure, unsure_figures=found.unsure)


def _unhide(reading: BoardReading, hidden: dict[tuple[int, int], tuple[tuple[str, int], ...]],
            threshold: float) -> BoardReading:
    """``reading`` with each tile a figure may hide the difference of (``hidden``: its cell, the tiles and turns it may
    be besides the one read) unrecognised: its picture cannot tell them apart where the figure stands, nor do its
    neighbours."""
    if not hidden:
        return reading
    tiles = [t for t in reading.tiles if (t.x, t.y) not in hidden]
    moved = [UnsureCell(t.x, t.y, t.tile, t.rotation, min(t.confidence, threshold), ((t.tile, t.rotation), *hidden[(t.x, t.y)]))
             for t in reading.tiles if (t.x, t.y) in hidden]
    unsure = sorted(reading.unrecognised + tuple(moved), key=lambda u: (u.y, u.x))
    return replace(reading, tiles=tuple(tiles), unrecognised=tuple(unsure))


def _to_photo(corners: NDArray[Any], u: float, v: float) -> tuple[int, int]:
    """The photo pixel of the point (u, v) of a cell (0..1, u right, v down) with ``corners`` NW, NE, SE, SW."""
    unit = np.asarray([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    p = cv2.perspectiveTransform(np.asarray([[[u, v]]], np.float32), m)[0, 0]
    return int(round(float(p[0]))), int(round(float(p[1])))


def annotate(photo: NDArray[Any], reading: BoardReading) -> NDArray[Any]:
    """A copy of ``photo`` with the grid, each tile's name and an arrow to its catalog north, and each figure
    as a dot of its colour on its feature, labelled with the figure and the feature (a figure in doubt in red, with a
    question mark)."""
    out = photo.copy()
    scale = max(1.0, max(photo.shape[:2]) / 1000)
    for t in list(reading.tiles) + list(reading.unrecognised):
        c = reading.corners.get((t.x, t.y))
        if c is None:
            continue
        ok = isinstance(t, TileReading)
        colour = (0, 200, 0) if ok else (0, 0, 255)
        cv2.polylines(out, [np.round(c).astype(np.int32)], True, colour, max(1, int(scale * 2)), cv2.LINE_AA)
        centre = c.mean(axis=0)
        # catalog north is the side the rotation turned to: N, E, S or W of the photo
        side = t.rotation // 90
        mid = (c[side] + c[(side + 1) % 4]) / 2
        tip = centre + 0.6 * (mid - centre)
        cv2.arrowedLine(out, tuple(np.round(centre).astype(int)), tuple(np.round(tip).astype(int)), (255, 255, 255),
                        max(1, int(scale * 2)), cv2.LINE_AA, tipLength=0.3)
        name = t.tile if isinstance(t, TileReading) else f"{t.best}?"
        text = f"{name} {t.rotation}"
        org = tuple(np.round(centre + [-12 * scale, 18 * scale]).astype(int))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, (0, 0, 0), max(1, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, colour, max(1, int(scale)), cv2.LINE_AA)
    tiles = {(t.x, t.y): t for t in reading.tiles}
    sure = len(reading.figures)
    for n, f in enumerate(reading.figures + reading.unsure_figures):
        tile = tiles.get((f.x, f.y))
        c = reading.corners.get((f.x, f.y))
        if tile is None or c is None:
            continue
        try:
            u, v = anchor(tile.tile, tile.rotation, f.feature)
        except KeyError:
            u, v = 0.5, 0.5
        at = _to_photo(c, u, v)
        dot = tuple(int(k) for k in FIGURE_COLOURS.get(f.color, (255, 255, 255)))
        cv2.circle(out, at, max(3, int(6 * scale)), (255, 255, 255), -1, cv2.LINE_AA)
        cv2.circle(out, at, max(2, int(4 * scale)), dot, -1, cv2.LINE_AA)
        # a figure in doubt is labelled with a question mark, in red
        name = f"{f.animal} token" if f.animal else f.figure
        label_text = f"{name} {f.feature}" if n < sure else f"{name}? {f.feature}"
        ink = (255, 255, 255) if n < sure else (0, 0, 255)
        org = (at[0] + int(6 * scale), at[1] - int(4 * scale))
        cv2.putText(out, label_text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (0, 0, 0), max(1, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, label_text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, ink, max(1, int(scale)), cv2.LINE_AA)
    return out
