"""The ONNX tile classifier: square tile crops -> class and edge probabilities.

The model takes ``crops`` (N, 3, 48, 48) float32 raw BGR 0..255 and returns
``probs`` (N, classes) over `vision.carcassonne.labels.TILE_LABELS` (the order
of the ``.labels.txt`` file) and ``edges`` (N, 4, 3): for the N, E, S, W side
the probability of city, road, field.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnxruntime as ort  # type: ignore[import-untyped]
from numpy.typing import NDArray

import models
from vision import ModelFileError
from vision.carcassonne.dataset import CROP
from vision.carcassonne.deck_twins import edge_twins, twin_score
from vision.twins import GLARE, VIEW_MATCH, view_matches

__all__ = ["DEFAULT_MODEL", "DeckTileClassifier", "TileClassifier", "cut_crops", "look_alikes"]

DEFAULT_MODEL = models.path("carcassonne_tiles.onnx")


#: the squared length of a cell's top side under which `cut_crops` surely cuts it without shrinking the photo first
#: (the side's length to 2.5 crops, with room for rounding)
_NO_SHRINK_SQUARED = (0.99 * 2.5 * CROP) ** 2


def cut_crops(photo: NDArray[Any], corners: list[NDArray[Any]]) -> NDArray[Any]:
    """One ``CROP`` x ``CROP`` crop per cell, each cut along its corners (NW, NE, SE, SW) in the photo."""
    out = np.empty((len(corners), CROP, CROP, 3), np.uint8)
    dst = np.asarray([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], dtype=np.float32)
    for i, c in enumerate(corners):
        m = cv2.getPerspectiveTransform(np.asarray(c, dtype=np.float32), dst)
        # a side clearly shorter than the shrink's limit needs no exact length
        dx, dy = float(c[1][0]) - float(c[0][0]), float(c[1][1]) - float(c[0][1])
        if dx * dx + dy * dy < _NO_SHRINK_SQUARED:
            cv2.warpPerspective(photo, m, (CROP, CROP), out[i], flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            continue
        side = float(np.linalg.norm(c[1] - c[0]))
        if side > 2.5 * CROP:
            # shrink first so the warp averages rather than skips pixels
            k = 2 * CROP / side
            x0, y0 = np.floor(c.min(axis=0)).astype(int)
            x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 1
            x0, y0 = max(0, x0), max(0, y0)
            x1, y1 = min(photo.shape[1], x1), min(photo.shape[0], y1)
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                part = cv2.resize(photo[y0:y1, x0:x1], None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
                local = (np.asarray(c, dtype=np.float32) - [x0, y0]) * k
                m = cv2.getPerspectiveTransform(np.asarray(local, dtype=np.float32), dst)
                out[i] = cv2.warpPerspective(part, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                continue
        out[i] = cv2.warpPerspective(photo, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


class TileClassifier:
    """An onnxruntime session over the tile model and its label file.

    :raises ModelFileError: when the model or label file is missing or unreadable.
    """

    def __init__(self, model: Path | str = DEFAULT_MODEL, threads: int = 1) -> None:
        path = Path(model)
        labels_path = path.with_suffix(".labels.txt")
        if not path.is_file():
            raise ModelFileError(f"model file not found: {path}")
        if not labels_path.is_file():
            raise ModelFileError(f"label file not found: {labels_path}")
        self.labels: tuple[str, ...] = tuple(
            line.strip() for line in labels_path.read_text(encoding="utf-8").splitlines() if line.strip()
        )
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelFileError(f"cannot load model {path}: {exc}") from None
        outs = [o.name for o in self.session.get_outputs()]
        if outs[:2] != ["probs", "edges"] or self.session.get_outputs()[0].shape[-1] != len(self.labels):
            raise ModelFileError(f"{path} is not a Carcassonne tile model for the {len(self.labels)} labels of {labels_path}")

    def run(self, crops: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
        """Class probabilities ``(N, labels)`` and edge probabilities ``(N, 4, 3)`` for ``(N, 48, 48, 3)`` crops."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32), np.zeros((0, 4, 3), np.float32)
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        probs, edges = self.session.run(["probs", "edges"], {"crops": x})
        return probs, edges


def look_alikes(a: str, b: str) -> bool:
    """True when tiles ``a`` and ``b`` differ, but in some turn of ``b`` show the same sides but for at most one,
    a road on one and a field on the other (A and B, W and X) or none (a pennant more or less, as O and P; two
    city caps or one city across the corner, as I and N)."""
    from scorer.carcassonne.catalog import rotated

    if a == b:
        return False
    sides = [e.value for e in rotated(a, 0).edges]
    for turn in (0, 90, 180, 270):
        other = [e.value for e in rotated(b, turn).edges]
        differ = [{x, y} for x, y in zip(sides, other) if x != y]
        if not differ or (len(differ) == 1 and differ[0] == {"road", "field"}):
            return True
    return False


class DeckTileClassifier:
    """The shipped tile model with an enrolled deck naming the tiles (``ringside recognize carcassonne --deck``).

    An edition's tile art the model reads poorly is enrolled as a deck (tile letters as
    labels, every quarter turn of each photo). For each cell the deck names the tile
    when it is sure; the model still says whether the cell holds a tile at all. The named
    tile's turn is the one its enrolled views show (`deck_turn`, where they tell it by
    `TURN_MARGIN`, or the part where its views in that turn differ from the others' does,
    `turn_shown`); else of its turns the ones whose printed sides agree best with the
    model's edge head are taken, weighted by that agreement. The cell's sides are then those the named
    tile shows in those turns (the edge head reads an edition it never saw poorly, and a
    side it misreads would veto the deck's tile in the board's settling). A tile the deck
    names but scarcely nearer than a look-alike (`look_alikes`, `LOOK_ALIKE_RATIO`) unless the
    part where they differ shows it, and a cell the deck is unsure of (but where that part
    leaves one of its close tiles, `read_with_candidates`), are doubtful (`read`), and the board reports them
    unrecognised: the model's own reading still settles their neighbours, never themselves.
    """

    #: a deck-named cell's sides: this share from the named tile's turns, the rest from the edge head
    SIDES_FROM_DECK = 0.95
    #: a tile the deck names is taken only when its distance (the deck's `scores`) is at most this share of the
    #: nearest look-alike's (`look_alikes`: the same tile with a road more or less, or a pennant): on the tuning
    #: boards (`benchmarks/bench_enroll_carcassonne.py`, seeds 906,000,000 on) every wrong name was a look-alike
    #: above 0.79, and 75% of the right names of tiles with a look-alike lay within 0.75
    LOOK_ALIKE_RATIO = 0.75
    #: a tile is among a cell's close tiles (`read_with_candidates`) when the deck's distance to it is at most this
    #: many times the nearest tile's
    CLOSE_RATIO = 1.3
    #: a tile named but scarcely nearer than an edge twin (`vision.carcassonne.deck_twins.edge_twins`: a pennant
    #: more or less), or one of two edge twins among a cell's close tiles, is taken when the part where their views
    #: differ shows it by at least this (`vision.carcassonne.deck_twins.twin_score`, -1 to 1, the views blurred as
    #: the cell is): on the tuning boards 906,300,000 on every twin the score put the wrong way lay above -0.04, and
    #: 88% of the right ones at 0.5 or more (sharp views: -0.41 and 41%)
    TWIN_MARGIN = 0.5
    #: a cell more than this share of whose pixels glare blows out (`vision.twins.GLARE` in its brightest channel)
    #: hides what may lie there (a city cap under the glare): the deck names no tile there, nor narrows it to close
    #: tiles. On the tuning boards (seeds 906,000,000 and 906,300,000 on) every tile the deck named right lay at
    #: most 0.31 blown out; one read as E where H lay (its other cap under glare), 0.61, was accepted
    BLOWN = 0.4
    #: a tile named but scarcely nearer than a road look-alike (`look_alikes`: the same sides but for a road where the
    #: other has a field, as R and T, D and L), or one of two such among a cell's close tiles, is taken when the part
    #: where their views differ (the road stub) shows it by at least this (`_twin`, as for `TWIN_MARGIN`; `_margin`
    #: says when one of the two shows the same sides in every turn). On the true cells of the tuning boards
    #: 906,000,000 on every such score the wrong way lay above -0.07 (a T against R), and 94% of those told at 0.5;
    #: A against B (B the same in every turn) lay the wrong way down to -0.29, and B was read where A lay on the boards
    #: 906,300,000 on
    ROAD_MARGIN = 0.5
    #: a template view's turn is told (`view_turns`) when the edge head's log-likelihood of its sides in that turn
    #: (over the view's four quarter turns) leads every turn showing other sides by at least this (the benchmark
    #: deck, 2 medium photos a tile: every view of a tile with turns told but one of A's)
    VIEW_TURN_MARGIN = 2.0
    #: a named tile's turn is the deck's (`deck_turn`) where its best view of that turn matches the cell better than
    #: every view of a turn showing other sides by at least this (normalised correlation). On the true cells of the
    #: tuning boards at hard (seeds 906,000,000, 906,300,000, 906,600,000, 8 each) the views' turn was right on all
    #: 336 cells the deck named with turns to tell, 316 of them by 0.1 or more (W the least, its turns one road arm
    #: apart: 20 of 27 below 0.1, down to 0.03); of the 48 it did not name, two lay the wrong way, by 0.005 and 0.076
    TURN_MARGIN = 0.1
    #: ... unless the edge head gives that turn less than this share of the tile's turns (`read_with_candidates`'s
    #: weights): there (tuning boards 906,000,000 to 906,600,007, medium and hard, on the grids found) the deck once
    #: named a tile on the table beside a board, a turn the edge head gave 0.055, and one V of 290 cells whose turn
    #: the views told right lay below (0.049; the next 0.187)
    TURN_VETO = 0.1
    #: ... and where the views' best turn leads by less than `TURN_MARGIN`, it is still the deck's when the part where
    #: its views differ from those of each turn showing other sides shows it by at least this (`turn_shown`). On the
    #: true cells of the tuning boards (906,000,000, 906,300,000, 906,600,000, 8 each, medium and hard) the part put
    #: no wrong turn of 682 cells named higher than 0.16 (an A; W's wrong turns 0 or less), and 21 of the 27 whose
    #: views' turn led by less than 0.1 (25 of them W, every one the right turn) at 0.3 or more (down to 0.15)
    TURN_PART_MARGIN = 0.3
    #: a tile the same in every turn (B) named but scarcely nearer than its look-alike with a lone road stub (A), or
    #: one of the two among a cell's close tiles, is taken when every view of that look-alike matching the cell shows
    #: it by at least this (`against_every_view`); the look-alike itself is never told so (`_margin`). On the true
    #: cells of the tuning boards (as for `TURN_PART_MARGIN`) 29 of 30 B cells read 0.3 or more, all 20 A cells 0 or
    #: less
    STUB_MARGIN = 0.3
    #: a tile whose print is its look-alike's with a mark more (`_marked`: a pennant, a road where the other has a
    #: field, or both: M against N, S against Q, X against W, A against B) is taken over it where the part they differ
    #: in shows it by at least this (`_twin`). A blurred cell loses a small mark, never gains one: on the cells of the
    #: grids found on the tuning boards (906,000,000, 906,300,000, 906,600,000, 8 each, medium and hard) no cell of the
    #: tile without the mark read above 0.015 for the one with it (a Q against S; every other such pair 0 or less),
    #: while the marked tiles read -0.12 (a T against R) or more, 49 of 179 such readings between 0.2 and the margin
    #: before (0.5; A against B never told)
    MARK_MARGIN = 0.2

    def __init__(self, deck: Any, model: TileClassifier) -> None:
        from vision.carcassonne.labels import parse_label

        self.deck = deck
        self.model = model
        self.labels = model.labels
        self._by_tile: dict[str, list[int]] = {}
        for j, lab in enumerate(self.labels):
            parsed = parse_label(lab)
            if parsed is not None:
                self._by_tile.setdefault(parsed[0], []).append(j)
        names = tuple(getattr(deck, "labels", ()))
        self._alike = {a: [names.index(b) for b in names if look_alikes(a, b)] for a in names if a in self._by_tile}
        self._turns: NDArray[np.int_] | None = None

    def view_turns(self) -> NDArray[np.int_]:
        """Each of the deck's template views' turn (degrees clockwise, as `scorer.carcassonne.catalog.rotated` turns
        its tile), or -1 where it is not told (`VIEW_TURN_MARGIN`), or for a tile the model does not know. The edge
        head reads a view and its three other quarter turns (`np.rot90`: a quarter turn anticlockwise each); the turn
        whose four sides' patterns fit those four readings best is the view's. A deck without templates: none."""
        if self._turns is not None:
            return self._turns
        from scorer.carcassonne.catalog import rotated
        from vision.carcassonne.dataset import EDGE_INDEX

        templates, owners = getattr(self.deck, "templates", None), getattr(self.deck, "template_owners", None)
        if templates is None or owners is None:
            self._turns = np.zeros(0, np.int_)
            return self._turns
        names = list(self.deck.labels)
        turns = np.full(len(templates), -1, np.int_)
        crops = np.stack([np.ascontiguousarray(np.rot90(t, k)) for t in templates for k in range(4)])
        edges = np.log(np.clip(self.model.run(crops)[1], 1e-6, 1.0)).reshape(len(templates), 4, 4, 3)
        for v, owner in enumerate(owners):
            name = names[int(owner)]
            if name not in self._by_tile or _same_every_turn(name):
                continue
            fit = {}
            for r in (0, 90, 180, 270):
                sides = [[EDGE_INDEX[e.value] for e in rotated(name, (r - 90 * k) % 360).edges] for k in range(4)]
                fit[r] = float(sum(edges[v, k, range(4), sides[k]].sum() for k in range(4)))
            best = max(fit, key=lambda r: fit[r])
            rival = max((f for r, f in fit.items() if rotated(name, r).edges != rotated(name, best).edges), default=-math.inf)
            if fit[best] - rival >= self.VIEW_TURN_MARGIN:
                turns[v] = best
        self._turns = _agreeing_photos(turns, templates, np.asarray(owners), names)
        return self._turns

    def deck_turn(self, crop: NDArray[Any], name: str) -> tuple[int, float] | None:
        """The turn (degrees clockwise) in which ``crop`` shows tile ``name`` by the deck's views of it whose turn is
        told (`view_turns`), and by how much the best view of that turn matches it better than the best view of any
        turn showing other sides (`vision.twins.view_matches`, normalised correlation); None where no views of two
        such turns are told."""
        from scorer.carcassonne.catalog import rotated
        from vision.enroll import TEMPLATE_BLURS

        turns = self.view_turns()
        if not len(turns) or name not in self.deck.labels:
            return None
        owner = list(self.deck.labels).index(name)
        which = np.flatnonzero((np.asarray(self.deck.template_owners) == owner) & (turns >= 0))
        if len({rotated(name, int(turns[j])).edges for j in which}) < 2:
            return None
        scores = view_matches(crop, self.deck.templates, [int(j) for j in which], TEMPLATE_BLURS)
        best = int(scores.argmax())
        turn = int(turns[which[best]])
        rival = max(float(s) for s, j in zip(scores, which) if rotated(name, int(turns[j])).edges != rotated(name, turn).edges)
        return turn, float(scores[best]) - rival

    def run(self, crops: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
        """As `TileClassifier.run`, with the deck's sure names put in the class probabilities and sides."""
        probs, edges, _ = self.read(crops)
        return probs, edges

    def read(self, crops: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[np.bool_]]:
        """`run`'s class and edge probabilities, and for each crop whether it is doubtful: a tile (by the model)
        the deck is unsure of."""
        probs, edges, doubtful, _ = self.read_with_candidates(crops)
        return probs, edges, doubtful

    def read_with_candidates(self, crops: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[np.bool_],
                                                                   list[frozenset[str]]]:
        """`read`, and for each crop the tiles the deck finds close (`CLOSE_RATIO`: its distance at most that many
        times the nearest tile's; empty for a crop the model reads as no tile or one glare blows out (`BLOWN`: the
        deck names none there either), or a deck without distances: then only a named tile), less each look-alike the
        part where they differ rules out (`_without_lost_twins`). A cell the deck does not name, of whose two or more
        close tiles that part leaves one, is named that tile where the cell correlates with its views and lies near
        it as the deck's own tests ask (`vision.enroll.MIN_TEMPLATE`, `vision.enroll.EMBEDDING_BOUND`, not far
        blurrier than the enrolled views): the deck's ratio test was failed by look-alikes alone. The board decides
        among a doubtful cell's close tiles by its sure neighbours' sides (`vision.carcassonne.recognize.read_cells`)."""
        from scorer.carcassonne.catalog import rotated
        from vision.carcassonne.dataset import EDGE_INDEX
        from vision.carcassonne.labels import NONE, parse_label
        from vision.enroll import EMBEDDING_BOUND, FUSED_DEGRADED, MIN_TEMPLATE, sharpness

        probs, edges = self.model.run(crops)
        probs, edges = probs.copy(), edges.copy()
        doubtful = np.zeros(len(crops), bool)
        none_col = self.labels.index(NONE)
        recs = self.deck.classify(crops, 0.0)
        blown = (crops.max(axis=3) >= GLARE).mean(axis=(1, 2)) > self.BLOWN if len(crops) else np.zeros(0, bool)
        names = [None if hidden else rec.label for rec, hidden in zip(recs, blown)]
        close = [frozenset({name}) if name in self._by_tile else frozenset() for name in names]
        tile_like = [i for i in range(len(crops)) if probs[i, none_col] < 0.5 and not blown[i]]
        usable = np.ones(len(tile_like), bool)
        if tile_like and getattr(self.deck, "sharpness", None) is not None:
            usable = sharpness(crops[tile_like]) >= FUSED_DEGRADED * float(self.deck.sharpness)
        if tile_like and hasattr(self.deck, "scores"):
            fused, tm, emb = self.deck.scores(crops[tile_like])
            own = list(getattr(self.deck, "labels", ()))
            for k, i in enumerate(tile_like):
                best = float(fused[k].min())
                nearly = frozenset(own[j] for j in np.flatnonzero(fused[k] <= self.CLOSE_RATIO * best)
                                   if own[j] in self._by_tile)
                close[i] = self._without_lost_twins(crops[i], nearly)
                name = names[i]
                if name is not None and self._alike.get(name):
                    mine = float(fused[k, own.index(name)])
                    # not clearly this tile rather than a look-alike: unsure, unless the views of the part where they
                    # differ (a pennant, a road stub) tell it from every such look-alike
                    near = [j for j in self._alike[name] if mine > self.LOOK_ALIKE_RATIO * float(fused[k, j])]
                    if near and not all(math.isfinite(m := self._margin(name, own[j]))
                                        and self._twin(crops[i], name, own[j]) >= m for j in near):
                        names[i] = None
                if names[i] is None and len(nearly) > 1 and len(close[i]) == 1 and tm is not None:
                    # the deck's whole-tile tests found look-alikes about as near, and the part where they differ
                    # left one: that one, where the cell matches it as the deck's own tests ask
                    (only,) = close[i]
                    j = own.index(only)
                    if float(tm[k, j]) >= MIN_TEMPLATE and float(emb[k, j]) <= EMBEDDING_BOUND and usable[k]:
                        names[i] = only
        for i in range(len(recs)):
            cols = self._by_tile.get(names[i] or "")
            if not cols:
                # the model reads an edition it was not trained on badly, and where the deck is unsure the model
                # mostly errs the same way (the deck's nearest tile less a road it cannot make out): a tile the
                # deck does not name is unrecognised
                doubtful[i] = probs[i, none_col] < 0.5
                continue
            fit = np.empty(len(cols))
            shown = np.zeros((len(cols), 4, 3))
            for k, j in enumerate(cols):
                name, rot = parse_label(self.labels[j])  # type: ignore[misc]
                sides = [EDGE_INDEX[e.value] for e in rotated(name, rot).edges]
                fit[k] = float(np.log(np.clip(edges[i, range(4), sides], 1e-6, 1.0)).sum())
                shown[k, range(4), sides] = 1.0
            # how well each turn's sides fit the edge head's, relative to the others (an edition the head reads
            # poorly may fit every turn badly: the least bad still leads)
            weight = np.exp(fit - fit.max())
            weight /= float(weight.sum())
            told = self.deck_turn(crops[i], names[i] or "") if len(cols) > 1 else None
            if told is not None and (told[1] >= self.TURN_MARGIN or self.turn_shown(crops[i], names[i] or "", told[0])):
                # the deck's views show the turn where the edge head, reading an edition it never saw, may not; but
                # not a turn the edge head all but rules out
                turned = np.array([float(rotated(*parse_label(self.labels[j])).edges  # type: ignore[misc]
                                         == rotated(names[i] or "", told[0]).edges) for j in cols])
                if float(weight @ turned) >= self.TURN_VETO:
                    weight = turned
            row = np.zeros(len(self.labels), np.float32)
            row[cols] = weight
            probs[i] = row
            edges[i] = self.SIDES_FROM_DECK * np.tensordot(weight, shown, axes=1) + (1 - self.SIDES_FROM_DECK) * edges[i]
        return probs, edges, doubtful, close

    def _twin(self, crop: NDArray[Any], a: str, b: str) -> float:
        """`vision.carcassonne.deck_twins.twin_score` of ``crop`` for tile ``a`` against its edge twin ``b`` (0 for a
        deck without template views)."""
        templates, owners = getattr(self.deck, "templates", None), getattr(self.deck, "template_owners", None)
        if templates is None or owners is None:
            return 0.0
        from vision.enroll import TEMPLATE_BLURS

        names = list(self.deck.labels)
        # a tile the same in every turn (B) against one whose sides but a lone road stub are too (A): that one's best
        # view may lie in another turn than the crop's, so each of its views is set against the crop (see
        # `against_every_view`)
        if _same_every_turn(a) and _road_sides(b) < 3:
            return self.against_every_view(crop, a, b)
        if _same_every_turn(b) and _road_sides(a) < 3:
            return -self.against_every_view(crop, b, a)
        # a board photo is often blurrier than the enrolment photos: a pennant a few pixels across is told only
        # against views blurred alike; a tile the same in every turn (X) is compared only from its look-alike's best
        # view, whose turn the crop shows (X's own best view says nothing of which turn of W to set against it)
        if _same_every_turn(a):
            return -twin_score(crop, templates, owners, names.index(b), names.index(a), blurs=TEMPLATE_BLURS,
                               from_a_only=True)
        return twin_score(crop, templates, owners, names.index(a), names.index(b), blurs=TEMPLATE_BLURS,
                          from_a_only=_same_every_turn(b))

    def turn_part(self, crop: NDArray[Any], name: str, turn: int, rival: int) -> float:
        """How surely ``crop`` shows tile ``name`` in ``turn`` rather than in ``rival`` (degrees clockwise), by the part
        where the deck's views of those two turns (`view_turns`) differ (`vision.twins.twin_score`: a road arm, a
        city's edge): -1 (surely ``rival``) to 1 (surely ``turn``); 0 where it is not told (no such views)."""
        from vision.enroll import TEMPLATE_BLURS

        turns = self.view_turns()
        if not len(turns) or name not in self.deck.labels:
            return 0.0
        owner = list(self.deck.labels).index(name)
        mine = np.asarray(self.deck.template_owners) == owner
        groups = np.full(len(turns), -1, np.int32)
        groups[mine & (turns == turn)] = 0
        groups[mine & (turns == rival)] = 1
        if not (groups == 0).any() or not (groups == 1).any():
            return 0.0
        return twin_score(crop, self.deck.templates, groups, 0, 1, blurs=TEMPLATE_BLURS, from_a_only=True)

    def turn_shown(self, crop: NDArray[Any], name: str, turn: int) -> bool:
        """True when the part where the deck's views of ``name`` in ``turn`` differ from those of each turn showing
        other sides (a road arm, a city's edge) shows ``turn`` by `TURN_PART_MARGIN` (`turn_part`): the whole view
        correlates about as well in turns one road arm apart (W), the part tells them."""
        from scorer.carcassonne.catalog import rotated

        mine = rotated(name, turn).edges
        rivals = {r: rotated(name, r).edges for r in (0, 90, 180, 270)}
        return all(self.turn_part(crop, name, turn, r) >= self.TURN_PART_MARGIN for r, e in rivals.items() if e != mine)

    def against_every_view(self, crop: NDArray[Any], same: str, other: str) -> float:
        """How surely ``crop`` shows tile ``same`` (the same sides in every turn, as B) rather than ``other`` (as B with
        a road stub, A): the least, over each of ``other``'s views that matches the crop (`vision.twins.VIEW_MATCH`), of
        `vision.twins.twin_score` from that view alone against ``same``'s view most like it, negated. A cell of
        ``other`` shows the part where its view in its own turn differs (A's road stub), so that reading goes its way,
        whatever turn ``other``'s best view lies in. -1 to 1; 0 where no view of ``other`` tells it (or the deck has no
        template views)."""
        from vision.enroll import TEMPLATE_BLURS

        templates, owners = getattr(self.deck, "templates", None), getattr(self.deck, "template_owners", None)
        if templates is None or owners is None:
            return 0.0
        names = list(self.deck.labels)
        owners = np.asarray(owners)
        theirs = np.flatnonzero(owners == names.index(other))
        # a view that does not match the crop (another turn of a print not the same in every turn) says nothing
        matching = theirs[view_matches(crop, templates, [int(j) for j in theirs], TEMPLATE_BLURS) >= VIEW_MATCH]
        told = []
        base = np.where(owners == names.index(same), 1, -1).astype(np.int32)
        for j in matching:
            groups = base.copy()
            groups[j] = 0
            score = twin_score(crop, templates, groups, 0, 1, blurs=TEMPLATE_BLURS, from_a_only=True)
            if score == 0.0:
                return 0.0  # a matching view not told (glare over the part where they differ): the stub may lie there
            told.append(-score)
        return min(told) if told else 0.0

    def _without_lost_twins(self, crop: NDArray[Any], close: frozenset[str]) -> frozenset[str]:
        """``close`` less each tile whose look-alike among them (an edge twin, or the same tile with a road more or
        less) the cell's views show by `_margin`."""
        lost: set[str] = set()
        for a in close:
            for b in close:
                if not (a < b and look_alikes(a, b)):
                    continue
                ahead, behind = self._margin(a, b), self._margin(b, a)
                if math.isfinite(min(ahead, behind)):
                    score = self._twin(crop, a, b)
                    if score >= ahead:
                        lost.add(b)
                    elif -score >= behind:
                        lost.add(a)
        return close - lost

    @classmethod
    def _margin(cls, a: str, b: str) -> float:
        """How surely `_twin` must show ``a`` rather than its look-alike ``b``: `MARK_MARGIN` where ``a``'s print is
        ``b``'s with a mark more (`_marked`: a pennant, a road where ``b`` has a field); else `TWIN_MARGIN` for edge
        twins, `ROAD_MARGIN` for tiles a road stub tells apart; where one of those shows the same sides in every turn
        (B, X), `_twin` compares from the other's best view alone, which must then show its turn by more than the stub
        (W's three roads against X, told so on every true W cell of the tuning boards 906,000,000 to 906,600,007, 0.50
        or more, and no X the wrong way); against a lone road stub (B against A) `STUB_MARGIN`, `_twin` setting every
        view of A against the cell (`against_every_view`, which also tells A against B: the largest reading of A's
        views matching the cell, so that A's best view lying in another turn than the cell's, as it did on three of 18
        true A cells there, says nothing)."""
        if _marked(a, b):
            return cls.MARK_MARGIN
        if edge_twins(a, b):
            return cls.TWIN_MARGIN
        if _same_every_turn(a) or _same_every_turn(b):
            other = b if _same_every_turn(a) else a
            if _road_sides(other) >= 3:
                return cls.ROAD_MARGIN
            return cls.STUB_MARGIN if _same_every_turn(a) else math.inf
        return cls.ROAD_MARGIN


#: an enrolment photo gives a tile's template views in its four quarter turns, one after the other
VIEWS_PER_PHOTO = 4


def _agreeing_photos(turns: NDArray[np.int_], templates: NDArray[Any], owners: NDArray[Any],
                     names: list[str]) -> NDArray[np.int_]:
    """``turns`` (`DeckTileClassifier.view_turns`), less every turn of a tile one of whose views is told in a turn
    showing other sides than the view of another of its photos most like it: the edge head read one photo's turns
    wrong (glare across a monastery's field taken for its road stub), and which one the views cannot say. Views of
    two photos that match nowhere (`vision.twins.VIEW_MATCH`: lit or printed too differently) say nothing."""
    from scorer.carcassonne.catalog import rotated
    from vision.enroll import TEMPLATE_BLURS

    out = turns.copy()
    for owner in np.unique(owners):
        which = np.flatnonzero(owners == owner)
        photo = np.arange(len(which)) // VIEWS_PER_PHOTO
        name = names[int(owner)]
        for k, v in enumerate(which):
            others = [int(j) for j, p in zip(which, photo) if p != photo[k] and turns[j] >= 0]
            if turns[v] < 0 or not others:
                continue
            match = view_matches(templates[v], templates, others, TEMPLATE_BLURS)
            like = others[int(match.argmax())]
            if match.max() >= VIEW_MATCH and rotated(name, int(turns[v])).edges != rotated(name, int(turns[like])).edges:
                out[which] = -1
                break
    return out


def _print_parts(tile: str, turn: int) -> tuple[list[tuple[int, ...]], set[tuple[int, ...]], bool, int]:
    """``tile`` turned: its cities' sides, its roads' sides, whether it holds a monastery, its pennants."""
    from scorer.carcassonne.catalog import Kind, rotated

    shown = rotated(tile, turn)
    cities = sorted(tuple(sorted(s.sides)) for s in shown.segments if s.kind == Kind.CITY)
    roads = {tuple(sorted(s.sides)) for s in shown.segments if s.kind == Kind.ROAD}
    return cities, roads, shown.monastery >= 0, sum(s.pennants for s in shown.segments)


@functools.cache
def _marked(a: str, b: str) -> bool:
    """True when tile ``a``'s print is ``b``'s in some turn with a mark more: the same cities and monastery, each of
    ``b``'s roads and another (a stub or arm where ``b`` has a field), or a pennant more, or both (M and N, S and Q,
    X and W, A and B; not I and N, whose cities differ, nor L and D, whose roads do)."""
    cities, roads, monastery, pennants = _print_parts(a, 0)
    for turn in (0, 90, 180, 270):
        c, r, m, p = _print_parts(b, turn)
        if c == cities and m == monastery and r <= roads and p <= pennants and (r != roads or p < pennants):
            return True
    return False


@functools.cache
def _same_every_turn(tile: str) -> bool:
    """True when ``tile`` shows the same sides in every turn (B, C, X)."""
    from scorer.carcassonne.catalog import rotated

    return len({rotated(tile, turn).edges for turn in (0, 90, 180, 270)}) == 1


@functools.cache
def _road_sides(tile: str) -> int:
    """How many of ``tile``'s sides are roads."""
    from scorer.carcassonne.catalog import rotated

    return sum(e.value == "road" for e in rotated(tile, 0).edges)
