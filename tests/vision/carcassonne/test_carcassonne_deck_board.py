"""Carcassonne boards read with an enrolled deck: its grid set by the deck's views, and cells decided by neighbours."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from scorer.carcassonne.catalog import box
from vision.carcassonne.board import Placed, draw_board
from vision.carcassonne.deck_grid import refit_grid
from vision.carcassonne.grid import Cell, Grid
from vision.carcassonne.recognize import _PAIRS, _decide_by_neighbours, read_cells
from vision.carcassonne.render import render_tile
from vision.classify import Recognition, Verdict

#: edge codes (`vision.carcassonne.dataset.EDGE_INDEX`)
CITY, ROAD, FIELD = 0, 1, 2


def _pair(name: str, rotation: int) -> int:
    return _PAIRS.index((name, rotation))


def test_sure_neighbours_decide_between_a_doubtful_cells_close_tiles() -> None:
    # the middle cell is W (roads E, S, W) or X (roads all round) to the deck; its north neighbour, named surely,
    # shows a field to it: only W fits, and only W turned 0 (its field north)
    pos = [(1, 0), (1, 1)]
    choice = [_pair("B", 0), _pair("X", 0)]  # north: a monastery, fields all round
    decided = _decide_by_neighbours(pos, choice, {0}, [frozenset(), frozenset({"W", "X"})], box(False))
    assert decided == {1: _pair("W", 0)}


def test_neighbours_leave_twins_and_lone_cells_doubtful() -> None:
    pos = [(1, 0), (1, 1), (5, 5)]
    choice = [_pair("B", 0), _pair("R", 0), _pair("R", 0)]
    # R and Q differ by a pennant only: no neighbour tells them apart; the lone cell has no sure neighbour
    assert _decide_by_neighbours(pos, choice, {0}, [frozenset(), frozenset({"R", "Q"}), frozenset({"W"})],
                                 box(False)) == {}


def test_neighbours_decide_a_turn_only_when_it_is_the_only_one_fitting() -> None:
    # U (a straight road) east of a road running east-west: turned 0 (road east-west) is the only turn that fits
    pos = [(0, 0), (1, 0)]
    choice = [_pair("U", 0), _pair("U", 90)]
    assert _decide_by_neighbours(pos, choice, {0}, [frozenset(), frozenset({"U"})], box(False)) == {1: _pair("U", 0)}
    # a curve V from the west: turned 0 (road south and west) or 90 (west and north) fit; the edge head, however
    # sure, is not asked (on an edition it never saw it is surely wrong now and then)
    choice = [_pair("U", 0), _pair("V", 90)]
    assert _decide_by_neighbours(pos, choice, {0}, [frozenset(), frozenset({"V"})], box(False)) == {}


def test_box_counts_rule_out_a_close_tile_the_box_holds_no_more_of() -> None:
    # C (a city all round) is the only one in the box: with one read already, a cell between C and R is R
    # (its city west, north and south, as its sure neighbours show, leave R only turned 270)
    pos = [(0, 0), (1, 0), (1, -1), (1, 1)]
    choice = [_pair("C", 0), _pair("B", 0), _pair("E", 180), _pair("E", 0)]
    cands = [frozenset(), frozenset({"C", "R"}), frozenset(), frozenset()]
    assert _decide_by_neighbours(pos, choice, {0, 2, 3}, cands, box(False)) == {1: _pair("R", 270)}
    # with no C read yet (a city east of the west neighbour all the same), C fits as well: undecided
    choice[0] = _pair("D", 90)
    assert 1 not in _decide_by_neighbours(pos, choice, {0, 2, 3}, cands, box(False))


class ViewsDeck:
    """A deck whose template views are ``views`` (one per tile, enrolled in its four turns), with embedding distances
    that favour no tile."""

    def __init__(self, views: dict[str, Any]) -> None:
        self.labels = tuple(views)
        self.templates = np.stack([np.rot90(v, -q).copy() for v in views.values() for q in range(4)])
        self.template_owners = np.repeat(np.arange(len(views), dtype=np.int32), 4)

    def project(self, descriptors: Any) -> Any:
        return descriptors

    def label_distances(self, points: Any) -> Any:
        return np.zeros((len(points), len(self.labels)))


def _print(name: str, rotation: int, size: int = 96) -> Any:
    """A tile's print in an edition of coarse blotches, one pattern a tile, turned clockwise ``rotation`` degrees."""
    rng = np.random.default_rng(ord(name))
    small = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
    art = cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)
    return np.rot90(art, -(rotation // 90)).copy()


def test_the_decks_views_set_a_grid_found_across_the_tiles() -> None:
    names = ["B", "U", "E", "V"]
    layout = [Placed(x, y, names[(x + 2 * y) % 4], 90 * ((x * y) % 4)) for x in range(4) for y in range(3)]
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    true = {(t.x, t.y): board.cell_corners(t.x, t.y) for t in layout}
    h, _ = cv2.findHomography(np.array([[0, 0], [4, 0], [4, 3], [0, 3]], np.float64),
                              np.array([true[(0, 0)][0], true[(3, 0)][1], true[(3, 2)][2], true[(0, 2)][3]], np.float64))
    # a grid found a third of a tile off (and a little large), its cells numbered as the board's
    h = np.array([[1.04, 0, 0.3 * 96], [0, 1.04, -0.25 * 96], [0, 0, 1]]) @ h
    off = Grid(tuple(Cell(t.x, t.y, cv2.perspectiveTransform(
        np.array([[[t.x, t.y], [t.x + 1, t.y], [t.x + 1, t.y + 1], [t.x, t.y + 1]]], np.float64), h)[0].astype(np.float32), 1.0)
        for t in layout), h)
    assert max(float(np.abs(c.corners - true[(c.x, c.y)]).max()) for c in off.cells) > 20
    # the deck's views: each tile's print, as enrolment cuts it from a photo of the tile alone
    refit = refit_grid(board.image, off, ViewsDeck({n: cv2.resize(_print(n, 0), (48, 48), interpolation=cv2.INTER_AREA)
                                                    for n in names}))
    assert refit is not None
    got = {(c.x, c.y): c.corners for c in refit.cells}
    assert max(float(np.abs(got[cell] - corners).max()) for cell, corners in true.items()) < 8
    # the cells beside the grid's are looked at too (the tile model says which hold a tile)
    assert (4, 0) in got and (-1, 2) in got


@pytest.mark.parametrize(("across", "down", "size"), [
    (0.5, 0.5, (4, 3)),  # the seams found every half tile
    (0.5, 1.0, (4, 3)),  # straight roads along one axis taken for seams: cells half a tile across, a tile down
    (1.0, 2.0, (3, 2)),  # a small board's seams missed every other tile down: cells two tiles tall
])
def test_a_grid_found_at_another_pitch_is_set_again_at_the_tiles_pitch(across: float, down: float,
                                                                        size: tuple[int, int]) -> None:
    names = ["B", "U", "E", "V"]
    w, t = size
    layout = [Placed(x, y, names[(x + 2 * y) % 4], 90 * ((x * y) % 4)) for x in range(w) for y in range(t)]
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    true = [board.cell_corners(p.x, p.y) for p in layout]
    h, _ = cv2.findHomography(np.array([[0, 0], [w, 0], [w, t], [0, t]], np.float64),
                              np.array([board.cell_corners(0, 0)[0], board.cell_corners(w - 1, 0)[1],
                                        board.cell_corners(w - 1, t - 1)[2], board.cell_corners(0, t - 1)[3]], np.float64))
    # the cells found ``across`` by ``down`` tiles, numbered in their own units
    found_h = h @ np.diag([across, down, 1.0])
    found = Grid(tuple(Cell(x, y, cv2.perspectiveTransform(
        np.array([[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]], np.float64), found_h)[0].astype(np.float32), 1.0)
        for x in range(int(w / across)) for y in range(int(t / down))), found_h)
    refit = refit_grid(board.image, found, ViewsDeck({n: cv2.resize(_print(n, 0), (48, 48), interpolation=cv2.INTER_AREA)
                                                      for n in names}))
    assert refit is not None
    for corners in true:
        assert min(float(np.abs(c.corners - corners).max()) for c in refit.cells) < 8


class SidesModel:
    """A tile model that reads every cell as a tile (``sides``: its edge head's reading of each side)."""

    def __init__(self, labels: tuple[str, ...], sides: list[list[list[float]]]) -> None:
        self.labels, self.sides = labels, np.asarray(sides, np.float32)

    def run(self, crops: Any) -> tuple[Any, Any]:
        probs = np.zeros((len(crops), len(self.labels)), np.float32)
        probs[:, self.labels.index("B@0")] = 1.0
        return probs, self.sides[: len(crops)]


class NamingDeck:
    """A deck that names each crop in turn from ``names``."""

    crop_size = (48, 48)

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, n, 0.9) for n in self.names[: len(crops)]]


def test_a_tile_the_deck_names_in_a_turn_the_sides_scarcely_tell_is_unrecognised() -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier

    labels = TileClassifier(DEFAULT_MODEL).labels
    layout = [Placed(0, 0, "U", 0), Placed(1, 0, "V", 0)]  # a straight road east-west, then a curve west to south
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in layout), np.eye(3))
    road, field = [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]

    def read(north: list[float], south: list[float]) -> dict[tuple[int, int], tuple[str, int]]:
        model = SidesModel(labels, [[field, road, field, road], [north, field, south, road]])
        reading = read_cells(board.image, grid, DeckTileClassifier(NamingDeck(["U", "V"]), model))  # type: ignore[arg-type]
        return {(t.x, t.y): (t.tile, t.rotation) for t in reading.tiles}

    # the sides read clearly: the curve turns south (V at 0)
    assert read(field, road) == {(0, 0): ("U", 0), (1, 0): ("V", 0)}
    # north and south scarcely told apart (V at 0 or at 90, its road from the west either way): the curve is unsure
    assert read([0.01, 0.4, 0.59], [0.01, 0.59, 0.4]) == {(0, 0): ("U", 0)}


class RowsDeck(NamingDeck):
    """`NamingDeck` with the deck's distances to tiles U and V, one row per crop."""

    labels = ("U", "V")

    def __init__(self, names: list[str | None], rows: list[list[float]]) -> None:
        self.names, self.rows = names, np.asarray(rows, np.float32)  # type: ignore[assignment]

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED if n else Verdict.UNSURE, n or "V", 0.9 if n else 0.0)
                for n in self.names[: len(crops)]]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        return self.rows[: len(crops)], None, self.rows[: len(crops)]


def test_a_doubtful_cell_two_turns_of_whose_tile_fit_its_neighbours_is_unrecognised_however_sure_the_sides() -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier

    labels = TileClassifier(DEFAULT_MODEL).labels
    layout = [Placed(0, 0, "U", 0), Placed(1, 0, "V", 0)]  # a straight road east-west, then a curve west to south
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in layout), np.eye(3))
    road, field = [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]
    # the deck names the straight road and finds only V close to the curve; the curve's west road fits V turned 0
    # (road south) or 90 (road north), and the edge head is sure of 0: it is not asked, the curve is unrecognised
    model = SidesModel(labels, [[field, road, field, road], [field, field, road, road]])
    deck = RowsDeck(["U", None], [[1.0, 5.0], [5.0, 1.0]])
    reading = read_cells(board.image, grid, DeckTileClassifier(deck, model))  # type: ignore[arg-type]
    assert {(t.x, t.y): (t.tile, t.rotation) for t in reading.tiles} == {(0, 0): ("U", 0)}
    assert [(u.x, u.y) for u in reading.unrecognised] == [(1, 0)]


class DistanceDeck(NamingDeck):
    """`NamingDeck` with the deck's distances to tiles A, B and C."""

    labels = ("A", "B", "C")

    def __init__(self, names: list[str], distances: list[float]) -> None:
        super().__init__(names)
        self.distances = np.asarray(distances, np.float32)

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(self.distances, (len(crops), 1))
        return d, None, d


def test_a_cells_close_tiles_are_those_the_deck_finds_nearly_as_near_as_the_nearest() -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier

    model = TileClassifier(DEFAULT_MODEL)
    crop = np.stack([render_tile("B", 0, 48, "bright", np.random.default_rng(2))]).astype(np.uint8)
    assert model.run(crop)[0][0, model.labels.index("none")] < 0.5  # the model sees a tile
    # B scarcely nearer than its look-alike A: doubtful, with A and B close (C far)
    _, _, doubtful, close = DeckTileClassifier(DistanceDeck(["B"], [1.0, 0.9, 5.0]), model).read_with_candidates(crop)
    assert bool(doubtful[0]) and close == [frozenset({"A", "B"})]
    _, _, doubtful, close = DeckTileClassifier(DistanceDeck(["B"], [2.0, 0.9, 5.0]), model).read_with_candidates(crop)
    assert not doubtful[0] and close == [frozenset({"B"})]


def test_a_views_match_is_placed_to_a_fraction_of_a_pixel() -> None:
    from vision.carcassonne.deck_grid import _peak

    # match scores peaking between the whole places (x 10.3, y 7.6): the whole best place is (10, 8)
    yy, xx = np.mgrid[0:16, 0:24].astype(np.float64)
    res = np.exp(-((xx - 10.3) ** 2 + (yy - 7.6) ** 2) / 8.0).astype(np.float32)
    _, _, _, loc = cv2.minMaxLoc(res)
    assert loc == (10, 8)
    x, y = _peak(res, loc)
    assert abs(x - 10.3) < 0.05 and abs(y - 7.6) < 0.05
    # at the scores' border there is no neighbour beyond: the whole place stands on that axis
    edge = np.exp(-((xx - 0.3) ** 2 + (yy - 7.6) ** 2) / 8.0).astype(np.float32)
    x, y = _peak(edge, cv2.minMaxLoc(edge)[3])
    assert x == 0.0 and abs(y - 7.6) < 0.05


class UnsureViewsDeck(ViewsDeck):
    """`ViewsDeck` that names no tile."""

    crop_size = (48, 48)

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, self.labels[0], 0.0) for _ in crops]


def test_a_grid_the_decks_views_place_nowhere_is_no_board() -> None:
    import pytest

    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier
    from vision.carcassonne.grid import NoBoardError

    labels = TileClassifier(DEFAULT_MODEL).labels
    names = ["B", "U", "E", "V"]
    layout = [Placed(x, y, names[(x + 2 * y) % 4], 90 * ((x * y) % 4)) for x in range(4) for y in range(3)]
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    h, _ = cv2.findHomography(np.array([[0, 0], [4, 0], [4, 3], [0, 3]], np.float64),
                              np.array([board.cell_corners(0, 0)[0], board.cell_corners(3, 0)[1],
                                        board.cell_corners(3, 2)[2], board.cell_corners(0, 2)[3]], np.float64))
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in layout), h)
    field = [0.01, 0.01, 0.98]
    model = SidesModel(labels, [[field] * 4] * 4 * len(layout))  # the refit grid holds the cells beside too
    # an edition enrolled whose tiles this board does not show: the grid is no board of it
    other = UnsureViewsDeck({n: cv2.resize(_print(n, 0), (48, 48), interpolation=cv2.INTER_AREA) for n in "HKLX"})
    with pytest.raises(NoBoardError, match="agree on no grid"):
        read_cells(board.image, grid, DeckTileClassifier(other, model))  # type: ignore[arg-type]
    # the board's own edition: its views place the grid, and the board is read on
    own = UnsureViewsDeck({n: cv2.resize(_print(n, 0), (48, 48), interpolation=cv2.INTER_AREA) for n in names})
    try:
        read_cells(board.image, grid, DeckTileClassifier(own, model))  # type: ignore[arg-type]
    except NoBoardError as exc:
        assert "agree on no grid" not in str(exc)


def _roads(name: str, rotation: int, road: int = 30, ground: int = 210) -> Any:
    """A 48 px print of tile ``name`` turned ``rotation`` degrees clockwise: its road sides drawn as dark bars from
    the middle, on blotches of one pattern a tile (turned with it)."""
    from scorer.carcassonne.catalog import rotated

    rng = np.random.default_rng(ord(name))
    blotches = cv2.resize(rng.integers(0, 60, (6, 6, 3), dtype=np.uint8), (48, 48), interpolation=cv2.INTER_CUBIC)
    art = np.ascontiguousarray(ground - 30 + np.rot90(blotches, -(rotation // 90))).astype(np.uint8)
    ends = [(24, 0), (47, 24), (24, 47), (0, 24)]  # N, E, S, W
    for side, edge in enumerate(rotated(name, rotation).edges):
        if edge.value == "road":
            cv2.line(art, (24, 24), ends[side], (road, road, road), 7)
    return art


class BandModel:
    """A tile model that reads every crop as a tile, each side a road where the band at its middle is dark (below
    60), a field where it is light (above 170), else unsure."""

    def __init__(self) -> None:
        from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier

        self.labels = TileClassifier(DEFAULT_MODEL).labels

    def run(self, crops: Any) -> tuple[Any, Any]:
        probs = np.zeros((len(crops), len(self.labels)), np.float32)
        probs[:, self.labels.index("B@0")] = 1.0
        edges = np.full((len(crops), 4, 3), 1 / 3, np.float32)
        for i, crop in enumerate(crops):
            grey = crop.astype(np.float32).mean(axis=2)
            for side, band in enumerate((grey[:6, 20:28], grey[20:28, -6:], grey[-6:, 20:28], grey[20:28, :6])):
                level = float(band.mean())
                if level < 60:
                    edges[i, side] = (0.01, 0.98, 0.01)
                elif level > 170:
                    edges[i, side] = (0.01, 0.01, 0.98)
        return probs, edges


class TurnsDeck(ViewsDeck):
    """A deck of ``names`` (views as `ViewsDeck`: each print enrolled in its four turns) naming each crop ``named``."""

    crop_size = (48, 48)

    def __init__(self, names: list[str], named: str) -> None:
        super().__init__({n: _roads(n, 0) for n in names})
        self.named = named

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.named, 0.9) for _ in crops]


def _faded(art: Any, seed: int) -> Any:
    """``art`` photographed dimly: contrast cut to 0.4 (its roads no longer dark to `BandModel`), blurred, noisy."""
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(art.astype(np.float32), (0, 0), 0.8) * 0.4 + 70 + rng.normal(0, 3, art.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_each_enrolled_views_turn_is_read_with_its_other_quarter_turns() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    reader = DeckTileClassifier(TurnsDeck(["V", "W", "X"], "V"), BandModel())  # type: ignore[arg-type]
    # V and W views enrolled at 0, 90, 180, 270 degrees clockwise; X is the same in every turn
    assert reader.view_turns().tolist() == [0, 90, 180, 270, 0, 90, 180, 270, -1, -1, -1, -1]
    # a model that reads no side surely tells no view's turn
    unsure = DeckTileClassifier(TurnsDeck(["V"], "V"), TileModelUnsure())  # type: ignore[arg-type]
    assert unsure.view_turns().tolist() == [-1, -1, -1, -1]


class TileModelUnsure(BandModel):
    """`BandModel` whose edge head is unsure of every side."""

    def run(self, crops: Any) -> tuple[Any, Any]:
        probs, _ = super().run(crops)
        return probs, np.full((len(crops), 4, 3), 1 / 3, np.float32)


@pytest.mark.parametrize("name", ["V", "W"])
def test_a_named_tiles_turn_is_its_best_matching_views_where_the_edge_head_cannot_tell(name: str) -> None:
    from scorer.carcassonne.catalog import rotated
    from vision.carcassonne.classifier import DeckTileClassifier
    from vision.carcassonne.labels import parse_label

    reader = DeckTileClassifier(TurnsDeck(["V", "W"], name), BandModel())  # type: ignore[arg-type]
    crops = np.stack([_faded(_roads(name, turn), turn) for turn in (0, 90, 180, 270)])
    # the edge head reads none of the dim crops' sides surely
    assert np.allclose(BandModel().run(crops)[1], 1 / 3)
    probs, _, doubtful, _ = reader.read_with_candidates(crops)
    for k, turn in enumerate((0, 90, 180, 270)):
        label = parse_label(reader.labels[int(probs[k].argmax())])
        assert label is not None and label[0] == name
        assert rotated(*label).edges == rotated(name, turn).edges and float(probs[k].max()) > 0.99
        assert not doubtful[k]
    # without views whose turn is told, the edge head's doubt stays: no turn is taken
    blind = DeckTileClassifier(TurnsDeck(["V", "W"], name), TileModelUnsure())  # type: ignore[arg-type]
    assert float(blind.read_with_candidates(crops)[0].max(axis=1).max()) < 0.8


class TurnedSidesModel(BandModel):
    """`BandModel` whose edge head reads every crop surely as V turned 180 degrees."""

    def run(self, crops: Any) -> tuple[Any, Any]:
        from scorer.carcassonne.catalog import rotated

        probs, _ = super().run(crops)
        sure = {"city": (0.98, 0.01, 0.01), "road": (0.01, 0.98, 0.01), "field": (0.01, 0.01, 0.98)}
        sides = [sure[e.value] for e in rotated("V", 180).edges]
        return probs, np.tile(np.asarray(sides, np.float32), (len(crops), 1, 1))


def test_the_views_turn_is_not_taken_where_the_edge_head_all_but_rules_it_out() -> None:
    from scorer.carcassonne.catalog import rotated
    from vision.carcassonne.classifier import DeckTileClassifier
    from vision.carcassonne.labels import parse_label

    reader = DeckTileClassifier(TurnsDeck(["V", "W"], "V"), BandModel())  # type: ignore[arg-type]
    reader.view_turns()  # the views' turns read by the edge head that reads the prints' sides
    reader.model = TurnedSidesModel()  # type: ignore[assignment]
    probs = reader.read_with_candidates(np.stack([_faded(_roads("V", 0), 1)]))[0]
    label = parse_label(reader.labels[int(probs[0].argmax())])
    assert label is not None and rotated(*label).edges == rotated("V", 180).edges


def test_a_named_tiles_turn_the_whole_views_scarcely_tell_is_told_by_the_part_where_its_turns_differ() -> None:
    from scorer.carcassonne.catalog import rotated
    from vision.carcassonne.classifier import DeckTileClassifier
    from vision.carcassonne.labels import parse_label

    class PartOnly(DeckTileClassifier):
        TURN_MARGIN = 2.0  # the whole views never lead by so much: only the part where the turns differ tells

    class Neither(PartOnly):
        TURN_PART_MARGIN = 2.0

    crops = np.stack([_faded(_roads("W", turn), turn) for turn in (0, 90, 180, 270)])
    reader = PartOnly(TurnsDeck(["V", "W"], "W"), BandModel())  # type: ignore[arg-type]
    probs, _, doubtful, _ = reader.read_with_candidates(crops)
    for k, turn in enumerate((0, 90, 180, 270)):
        label = parse_label(reader.labels[int(probs[k].argmax())])
        assert label is not None and rotated(*label).edges == rotated("W", turn).edges and float(probs[k].max()) > 0.99
        assert not doubtful[k]
        assert reader.turn_shown(crops[k], "W", turn)
        assert not any(reader.turn_shown(crops[k], "W", other) for other in (0, 90, 180, 270) if other != turn)
    # neither the whole views nor the part: the edge head's doubt stays
    blind = Neither(TurnsDeck(["V", "W"], "W"), BandModel())  # type: ignore[arg-type]
    assert float(blind.read_with_candidates(crops)[0].max(axis=1).max()) < 0.8


class GapModel(SidesModel):
    """`SidesModel` that reads the cells ``empty`` (indices) as no tile."""

    def __init__(self, labels: tuple[str, ...], sides: list[list[list[float]]], empty: set[int]) -> None:
        super().__init__(labels, sides)
        self.empty = empty

    def run(self, crops: Any) -> tuple[Any, Any]:
        probs, sides = super().run(crops)
        for i in self.empty:
            probs[i] = 0.0
            probs[i, self.labels.index("none")] = 1.0
        return probs, sides


class MaybeDeck(NamingDeck):
    """`NamingDeck` that leaves the crops whose name is None unsure."""

    def __init__(self, names: list[str | None]) -> None:
        self.names = names  # type: ignore[assignment]

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED if n else Verdict.UNSURE, n or "U", 0.9 if n else 0.0)
                for n in self.names[: len(crops)]]


@pytest.mark.parametrize("gap", [5, 4])
def test_a_part_of_the_board_the_deck_names_one_square_off_the_rest_is_read_with_it(gap: int) -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier

    labels = TileClassifier(DEFAULT_MODEL).labels
    layout = [Placed(x, 0, "U", 0) for x in range(8)]  # one straight road east-west
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in layout), np.eye(3))
    road, field = [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]
    # the model sees no tile in one square (glare, blur): the road beyond it lies apart from the rest
    model = GapModel(labels, [[field, road, field, road]] * 8, {gap})
    names: list[str | None] = ["U"] * 8
    names[gap] = None
    reading = read_cells(board.image, grid, DeckTileClassifier(MaybeDeck(names), model))  # type: ignore[arg-type]
    assert {(t.x, t.y): (t.tile, t.rotation) for t in reading.tiles} == {(x, 0): ("U", 0) for x in range(8) if x != gap}
    assert not reading.unrecognised
    # no score from it until the tile between is shown
    assert reading.conflicts == ("the board is read in 2 pieces: a tile between them is not seen",)


def test_a_part_one_square_off_the_board_the_deck_does_not_name_stays_apart() -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier

    labels = TileClassifier(DEFAULT_MODEL).labels
    layout = [Placed(x, 0, "U", 0) for x in range(8)]
    board = draw_board(layout, _print, np.random.default_rng(1), cell=96, margin=2.0)
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in layout), np.eye(3))
    road, field = [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]
    model = GapModel(labels, [[field, road, field, road]] * 8, {5})
    reading = read_cells(board.image, grid,
                         DeckTileClassifier(MaybeDeck(["U"] * 5 + [None, None, "U"]), model))  # type: ignore[arg-type]
    assert {(t.x, t.y) for t in reading.tiles} == {(x, 0) for x in range(5)}
    assert {(u.x, u.y) for u in reading.unrecognised} == {(6, 0), (7, 0)}
