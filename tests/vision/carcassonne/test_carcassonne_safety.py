"""What is read after the grid is found: a tile the board settles on but its own picture does not bear out is
unrecognised, never reported. The classifier is a stand-in that answers prepared probabilities, so each rule
is met alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vision.carcassonne.dataset import EDGE_INDEX
from vision.carcassonne.figures import COLORS, _paint, _poly, find_figures
from vision.carcassonne.grid import Cell, Grid, NoBoardError
from vision.carcassonne.labels import NONE, TILE_LABELS
from vision.carcassonne.recognize import FAMILIAR, THRESHOLD, TileReading, read_cells

#: a row of straight roads running west to east (U as printed: field north and south, road east and west)
_ROW = 5
_SIDES = ("field", "road", "field", "road")


class _Prepared:
    """A classifier that answers ``probs`` and ``edges`` as given, whatever the crops show."""

    labels = TILE_LABELS

    def __init__(self, probs: np.ndarray, edges: np.ndarray) -> None:
        self.probs, self.edges = probs, edges

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert len(crops) == len(self.probs)
        return self.probs, self.edges


def _sure_row() -> tuple[np.ndarray, np.ndarray]:
    """Every cell read as U by both heads, surely."""
    probs = np.full((_ROW, len(TILE_LABELS)), 1e-4, np.float32)
    probs[:, TILE_LABELS.index("U@0")] = 0.995
    edges = np.full((_ROW, 4, 3), 0.01, np.float32)
    for side, kind in enumerate(_SIDES):
        edges[:, side, EDGE_INDEX[kind]] = 0.98
    return probs, edges


def _read(probs: np.ndarray, edges: np.ndarray) -> Any:
    cells = tuple(Cell(x, 0, np.float32([[40 * x, 0], [40 * x + 40, 0], [40 * x + 40, 40], [40 * x, 40]]), 1.0)
                  for x in range(_ROW))
    photo = np.zeros((40, 40 * _ROW, 3), np.uint8)
    return read_cells(photo, Grid(cells, np.eye(3)), _Prepared(probs, edges))  # type: ignore[arg-type]


def test_a_row_both_heads_agree_on_is_read_whole() -> None:
    reading = _read(*_sure_row())
    assert [(t.x, t.tile, t.rotation) for t in reading.tiles] == [(x, "U", 0) for x in range(_ROW)]
    assert reading.unrecognised == ()


def _middle_unrecognised(reading: Any) -> None:
    assert [t.x for t in reading.tiles] == [0, 1, 3, 4]
    assert [(u.x, u.best, u.rotation) for u in reading.unrecognised] == [(2, "U", 0)]
    assert reading.unrecognised[0].confidence <= THRESHOLD


def test_a_tile_only_its_neighbours_chose_is_unrecognised() -> None:
    # the middle picture reads as a monastery to the class head: its sides and neighbours still make it U
    probs, edges = _sure_row()
    probs[2, TILE_LABELS.index("U@0")] = 1e-4
    probs[2, TILE_LABELS.index("B@0")] = 0.95
    _middle_unrecognised(_read(probs, edges))


def test_a_cell_that_looks_half_empty_is_unrecognised() -> None:
    probs, edges = _sure_row()
    probs[2, TILE_LABELS.index("U@0")] = 0.65
    probs[2, TILE_LABELS.index(NONE)] = 0.3
    _middle_unrecognised(_read(probs, edges))


@pytest.mark.parametrize("side", [0, 1])
def test_a_tile_with_a_side_read_as_another_feature_is_unrecognised(side: int) -> None:
    # the class head is sure of U, but the edge head sees a city where U has a field (north) or a road (east)
    probs, edges = _sure_row()
    edges[2, side] = 0.01
    edges[2, side, EDGE_INDEX["city"]] = 0.6
    edges[2, side, EDGE_INDEX[_SIDES[side]]] = 0.4
    _middle_unrecognised(_read(probs, edges))


def test_a_board_the_model_reads_less_surely_than_any_edition_it_knows_is_refused_with_a_hint_to_enrol() -> None:
    # an unfamiliar edition: both heads agree edge to edge, but the class head is only fairly sure of each tile
    probs, edges = _sure_row()
    probs[:3, TILE_LABELS.index("U@0")] = FAMILIAR - 0.02
    with pytest.raises(NoBoardError, match="enroll carcassonne"):
        _read(probs, edges)
    # fewer than half the squares so read: the board stands
    probs, edges = _sure_row()
    probs[:2, TILE_LABELS.index("U@0")] = FAMILIAR - 0.02
    assert len(_read(probs, edges).tiles) == _ROW


def _fields(n: int) -> tuple[np.ndarray, list[TileReading], dict[tuple[int, int], np.ndarray]]:
    """A row of ``n`` B tiles (a monastery amid fields) 100 px wide, green, with white marks to fix the colour balance."""
    photo = np.full((100, 100 * n, 3), (60, 150, 80), np.uint8)
    photo[:, :4] = 240  # a white the camera did not clip (a clipped pixel is glare, no colour)
    tiles = [TileReading(x, 0, "B", 0, 1.0) for x in range(n)]
    corners = {(x, 0): np.float32([[100 * x, 0], [100 * x + 100, 0], [100 * x + 100, 100], [100 * x, 100]]) for x in range(n)}
    return photo, tiles, corners


def test_a_patch_of_a_player_colour_smaller_or_much_larger_than_any_figure_is_no_figure() -> None:
    photo, tiles, corners = _fields(3)
    photo[68:86, 13:31] = COLORS["red"]  # a fifth of the tile wide and high: a figure's share of its tile, not its height
    photo[8:36, 220:280] = COLORS["red"]  # a roof of a player's red, wider than the ringmaster is tall
    _paint(photo, _poly(120, 20, 30.0, 0.0), COLORS["blue"], 100)
    found = find_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color, f.feature) for f in found] == [(1, "meeple", "blue", "field:NL")]


def test_a_player_has_one_ringmaster_the_smaller_of_two_is_a_meeple() -> None:
    photo, tiles, corners = _fields(3)
    for x, size in ((0, 37.0), (2, 40.0)):  # south of the monastery, off its roof (a red roof may be under one)
        _paint(photo, _poly(100 * x + 25, 75, size, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(175, 75, 38.0, 0.0), COLORS["blue"], 100)
    found = find_figures(photo, tiles, corners)
    assert sorted((f.x, f.figure, f.color) for f in found) == [(0, "meeple", "red"), (1, "ringmaster", "blue"),
                                                               (2, "ringmaster", "red")]


def test_a_figure_in_doubt_is_listed_unrecognised_and_the_board_is_not_scored() -> None:
    from vision.carcassonne.figures import FigureReading
    from vision.carcassonne.recognize import BoardReading
    from vision.carcassonne.scoring import IllegalPosition, score_reading

    doubt = FigureReading(0, 0, "ringmaster", "green", "field:NL", 0.45)
    reading = BoardReading((TileReading(0, 0, "B", 0, 0.99),), unsure_figures=(doubt,))
    data = reading.to_json()
    assert data["figures"] == []
    assert data["unrecognised"] == [{"kind": "figure", "x": 0, "y": 0, "best": "ringmaster", "color": "green",
                                     "feature": "field:NL", "confidence": 0.45}]
    assert "unsure: green ringmaster?" in reading.describe()
    with pytest.raises(IllegalPosition, match="figure at \\(0,0\\)"):
        score_reading(reading, {"green": "Ann"})



def _lone(corners: np.ndarray) -> Any:
    """One cell with ``corners``, both heads sure of D as printed (city north, road east and west, field south)."""
    probs = np.full((1, len(TILE_LABELS)), 1e-5, np.float32)
    probs[0, TILE_LABELS.index("D@0")] = 0.999
    edges = np.full((1, 4, 3), 0.0, np.float32)
    for side, kind in enumerate(("city", "road", "field", "road")):
        edges[0, side, EDGE_INDEX[kind]] = 1.0
    photo = np.zeros((120, 120, 3), np.uint8)
    return read_cells(photo, Grid((Cell(0, 0, corners, 1.0),), np.eye(3)), _Prepared(probs, edges))  # type: ignore[arg-type]


def test_a_lone_square_cut_across_a_tile_is_no_board() -> None:
    # a square seen from above, or tilted 35 degrees away (sides that meet about 0.8 of each other): a tile
    assert [t.tile for t in _lone(np.array([[10, 10], [110, 10], [110, 110], [10, 110]], np.float32)).tiles] == ["D"]
    assert [t.tile for t in _lone(np.array([[10, 20], [110, 20], [112, 102], [8, 102]], np.float32)).tiles] == ["D"]
    # the outline cut along a city's wall: the east side half the west one
    with pytest.raises(NoBoardError, match="cut across"):
        _lone(np.array([[10, 10], [110, 60], [110, 110], [10, 110]], np.float32))
