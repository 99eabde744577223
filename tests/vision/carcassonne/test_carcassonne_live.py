"""The live recogniser over frames of a growing board: the grid stays on the tiles as the board grows, a tile is
read where it lies, an unsure tile is read again, a figure on a laid tile leaves the tile as read, acrobats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from firmware.carcassonne.scene import Scene, SceneRenderer
from scorer.carcassonne.observe import same_look
from vision.carcassonne.board import draw_board, random_layout
from vision.carcassonne.camera import LEVELS, photograph
from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier
from vision.carcassonne.figures import PlacedFigure
from vision.carcassonne.grid import find_grid
from vision.carcassonne.labels import NONE
from vision.carcassonne.live import _GAIN_SPREAD, LiveReading, LiveRecognizer, _corners, _square, _white_gain
from vision.carcassonne.render import render_tile

#: a table and tile art of the demo's first game (seed 1: each tile's picture is drawn from the seed and its square)
BOUNDS, SEED = (-2, -2, 4, 3), 1
#: the first tiles of that game, in the order they were laid
FIRST = [(0, 0, "D", 0), (1, 0, "ffrr.acrobats", 0), (2, 0, "R", 90), (0, 1, "B", 0), (1, -1, "D", 0),
         (0, 2, "ffrr.acrobats", 270), (-1, 1, "U", 90), (1, 2, "W", 90), (3, 0, "J", 270), (2, 1, "Q", 270)]


@pytest.fixture(scope="module")
def classifier() -> TileClassifier:
    return TileClassifier(DEFAULT_MODEL)


def frames(renderer: SceneRenderer, scenes: Sequence[Scene], each: int = 1) -> list[NDArray[Any]]:
    """``each`` frames of every scene, with sensor noise."""
    rng = np.random.default_rng(5)
    out = []
    for scene in scenes:
        image = renderer.render(scene)
        out += [np.clip(image + rng.normal(0, 1.5, image.shape), 0, 255).astype(np.uint8) for _ in range(each)]
    return out


def read_all(recognizer: LiveRecognizer, shown: list[NDArray[Any]]) -> LiveReading:
    reading = None
    for frame in shown:
        reading = recognizer.recognize(frame)
    assert reading is not None
    return reading


def test_the_grid_stays_on_the_tiles_and_every_new_tile_is_read_right(classifier: TileClassifier) -> None:
    """Tile after tile, the grid stays within two pixels of the cells (56 px) and each new tile reads right.

    (The grid once drifted by half a cell as the board grew, and W read as L, J as a circus tile.)
    """
    renderer = SceneRenderer(BOUNDS, 56, "classic", SEED)
    recognizer = LiveRecognizer(classifier)
    for k in range(1, len(FIRST) + 1):
        reading = read_all(recognizer, frames(renderer, [Scene(tuple(FIRST[:k]))]))
        read = {(x, y): (n, r) for x, y, n, r in reading.tiles}
        assert set(read) == {(x, y) for x, y, _, _ in FIRST[:k]} and not reading.unsure
        for x, y, name, rotation in FIRST[:k]:
            assert same_look(read[(x, y)], (name, rotation)), (x, y, read[(x, y)], name, rotation)
            assert recognizer.to_photo is not None
            true = np.array([renderer.corner(x + dx, y + dy) for dx, dy in ((0, 0), (1, 0), (1, 1), (0, 1))])
            assert np.abs(_corners(recognizer.to_photo, x, y) - true).max() < 2.5


def test_a_ringmaster_beside_a_half_hidden_acrobat(classifier: TileClassifier) -> None:
    """The demo's first turns: a ringmaster on the acrobat tile's road, then an acrobat that it half hides."""
    renderer = SceneRenderer(BOUNDS, 56, "classic", SEED)
    tiles = tuple(FIRST[:2])
    ring = PlacedFigure(1, 0, "ringmaster", "red", "road:S")
    acrobat = PlacedFigure(1, 0, "acrobat", "blue", "acrobats")
    recognizer = LiveRecognizer(classifier)
    shown = frames(renderer, [Scene(tiles[:1]), Scene(tiles), Scene(tiles, (ring,))])
    assert read_all(recognizer, shown).figures == ((1, 0, "ringmaster", "red", "road:S"),)
    reading = read_all(recognizer, frames(renderer, [Scene(tiles, (acrobat, ring))]))
    assert reading.figures == ((1, 0, "acrobat", "blue", "acrobats"), (1, 0, "ringmaster", "red", "road:S"))


@pytest.mark.parametrize(("seed", "tiles"), [
    (1, [(0, 0, "D", 0), (1, 0, "ffrr.acrobats", 0), (1, 1, "rfrf.acrobats", 90), (0, 1, "ffff.acrobats", 0),
         (-1, 1, "rrrf.acrobats", 180), (-1, 0, "ffrf.acrobats", 270)]),
    (4, [(0, 0, "D", 0), (0, 1, "X", 0), (0, 2, "W", 180), (1, 2, "L", 90), (-1, 2, "L", 270)]),
], ids=["acrobat spaces", "crossroads"])
def test_the_tile_art_is_no_figure(classifier: TileClassifier, seed: int, tiles: list[tuple[int, int, str, int]]) -> None:
    """The acrobat space's small coloured dots are no acrobats, the roof square at a crossroads no meeple
    (the art of the demo's games of seeds 1 and 4)."""
    renderer = SceneRenderer(BOUNDS, 56, "classic", seed)
    recognizer = LiveRecognizer(classifier)
    reading = read_all(recognizer, frames(renderer, [Scene(tuple(tiles[:k])) for k in range(1, len(tiles) + 1)]))
    assert len(reading.tiles) == len(tiles)
    assert reading.figures == ()


class _Scripted:
    """The tile classifier with a script: call k reads as the real one ("real"), every tile as unsure ("doubt"),
    or everything as no tile ("none"); after the script, as its last entry."""

    def __init__(self, real: TileClassifier, script: Sequence[str]) -> None:
        self.real = real
        self.labels = real.labels
        self.script = list(script)
        self.calls = 0

    def run(self, crops: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
        probs, edges = self.real.run(crops)
        entry = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        none = self.labels.index(NONE)
        if entry == "doubt":
            tiles = probs[:, none] < 0.5
            probs[tiles] = 1.0 / len(self.labels)
            edges[tiles] = 1.0 / 3
        elif entry == "none":
            probs[:] = 0.0
            probs[:, none] = 1.0
        return probs, edges


def _lone_start(figures: tuple[PlacedFigure, ...] = ()) -> tuple[SceneRenderer, Scene]:
    return SceneRenderer((-2, -2, 2, 2), 56, "classic", 3), Scene(((0, 0, "D", 0),), figures)


def test_an_unsure_tile_is_read_again_on_the_next_frame_until_sure(classifier: TileClassifier) -> None:
    """The same still frame twice: unsure at first, read again (not kept unsure for good) and then sure."""
    renderer, scene = _lone_start()
    scripted = _Scripted(classifier, ["doubt", "real"])
    recognizer = LiveRecognizer(scripted)  # type: ignore[arg-type]
    image = renderer.render(scene)
    first = recognizer.recognize(image)
    assert first.tiles == () and len(first.unsure) == 1
    assert recognizer.recognize(image).tiles == ((0, 0, "D", 0),)


def test_a_figure_on_a_laid_tile_leaves_the_tile_as_read_and_a_tile_taken_away_is_gone(
        classifier: TileClassifier) -> None:
    """A meeple put on the start tile changes a little of it: the tile is not read again (a classifier may take a
    tile under a figure for no tile); the tile taken away, the cell is empty."""
    renderer, bare = _lone_start()
    meeple = (PlacedFigure(0, 0, "meeple", "red", "city:N"),)
    scripted = _Scripted(classifier, ["real", "none"])
    recognizer = LiveRecognizer(scripted)  # type: ignore[arg-type]
    assert recognizer.recognize(renderer.render(bare)).tiles == ((0, 0, "D", 0),)
    with_meeple = recognizer.recognize(renderer.render(Scene(bare.tiles, meeple)))
    assert with_meeple.tiles == ((0, 0, "D", 0),) and with_meeple.figures == ((0, 0, "meeple", "red", "city:N"),)
    empty = recognizer.recognize(renderer.render(Scene(())))
    assert empty.tiles == () and empty.unsure == ()


@pytest.mark.parametrize("stack", [("red", "blue"), ("blue", "red")])
def test_an_acrobat_on_one_of_another_colour_is_seen_with_the_one_it_hides(classifier: TileClassifier,
                                                                           stack: tuple[str, str]) -> None:
    """A stack of two colours: the newer acrobat on top hides most of the older one; both are read."""
    renderer = SceneRenderer(BOUNDS, 56, "classic", SEED)
    tiles = tuple(FIRST[:2])
    lower, upper = stack
    figures = (PlacedFigure(1, 0, "acrobat", lower, "acrobats", 1, 0, 1), PlacedFigure(1, 0, "acrobat", upper, "acrobats", 1, 1, 0))
    recognizer = LiveRecognizer(classifier)
    read_all(recognizer, frames(renderer, [Scene(tiles[:1]), Scene(tiles)]))
    reading = read_all(recognizer, frames(renderer, [Scene(tiles, figures)]))
    assert reading.figures == tuple(sorted((1, 0, "acrobat", c, "acrobats") for c in stack))


@pytest.mark.parametrize("colour", ["red", "blue", "green", "yellow", "black"])
def test_a_lone_acrobat_is_one_acrobat(classifier: TileClassifier, colour: str) -> None:
    """The top acrobat's shadow and outline, and the space's art, are no acrobats under it."""
    renderer = SceneRenderer(BOUNDS, 56, "classic", SEED)
    tiles = tuple(FIRST[:2])
    recognizer = LiveRecognizer(classifier)
    read_all(recognizer, frames(renderer, [Scene(tiles[:1]), Scene(tiles)]))
    reading = read_all(recognizer, frames(renderer, [Scene(tiles, (PlacedFigure(1, 0, "acrobat", colour, "acrobats"),))]))
    assert reading.figures == ((1, 0, "acrobat", colour, "acrobats"),)


def test_the_colour_balance_of_a_board_on_a_blue_table_keeps_its_channels_near_each_other() -> None:
    """The brightest pixels of a few tiles on a blue table are short of blue: the balance brightens them all about
    alike, never blue by a quarter more than red (which put a blue meeple out of reach of the player colours)."""
    rng = np.random.default_rng(2)
    pixels = np.clip(rng.normal((120, 130, 125), 30, (4000, 3)), 0, 255)
    pixels[:60] = (188, 226, 228)  # the white road paint, toned by the table
    gain = _white_gain(pixels)
    assert gain.min() > 1.0 and gain.max() / gain.min() <= (1 + _GAIN_SPREAD) / (1 - _GAIN_SPREAD) + 1e-6
    assert gain[0] == gain.max()  # the balance still leans the right way


def _read_with_grid_off(renderer: SceneRenderer, frame: NDArray[Any], tiles: tuple[tuple[int, int, str, int], ...],
                        shift: tuple[int, int]) -> LiveRecognizer:
    """A recogniser that has read ``tiles``, each tile's own outline measured as it was laid, whose grid is ``shift``
    pixels off (a grid fitted far from most of its tiles is)."""
    recognizer = LiveRecognizer(None)  # type: ignore[arg-type]  # no tile is classified here
    c = renderer.cell
    recognizer.to_photo = np.array([[c, 0, renderer.origin[0] + shift[0]], [0, c, renderer.origin[1] + shift[1]],
                                    [0, 0, 1]], np.float64)
    recognizer._cells = {(x, y): (n, r, True) for x, y, n, r in tiles}
    for x, y, n, r in tiles:
        px, py, _, mask, _ = renderer._tile(x, y, n, r)
        alone = np.zeros(frame.shape[:2], np.uint8)
        alone[py:py + mask.shape[0], px:px + mask.shape[1]] = mask
        outline = _square(alone, 0.5 * c * c)
        assert outline is not None
        recognizer._outlines[(x, y)] = outline
    return recognizer


@pytest.mark.parametrize("shift", [(0, 0), (-1, -4), (3, -3), (-4, 2), (4, 4)])
def test_a_figure_is_placed_on_its_tile_as_the_tile_lies_and_whole_where_the_board_ends(shift: tuple[int, int]) -> None:
    """The demo's game of seed 2: a blue meeple on the thin field of a circus tile at the board's west edge, on a blue
    table, the grid a few pixels off there (as it once was); once read as on the road beside the field."""
    renderer = SceneRenderer((-8, -4, 0, 0), 56, "classic", 2)
    tiles = ((-7, -3, "crrc.circus", 90), (-7, -2, "D", 0))
    frame = renderer.render(Scene(tiles, (PlacedFigure(-7, -3, "meeple", "blue", "field:WR"),)))
    recognizer = _read_with_grid_off(renderer, frame, tiles, shift)
    board, _ = recognizer._board_part(frame)
    assert recognizer._board_figures(board) == ((-7, -3, "meeple", "blue", "field:WR"),)


def test_an_acrobat_cut_in_pieces_by_its_outline_is_an_acrobat() -> None:
    """The demo's game of seed 8: a lone red acrobat, turned, on the acrobat space; its dark outline cuts it into
    pieces each smaller than the space's dots (once missed)."""
    renderer = SceneRenderer((-9, -7, 4, 4), 56, "classic", 8)
    tiles = ((0, 0, "D", 0), (0, -1, "N", 180), (0, -2, "ffff.acrobats", 0), (1, 0, "U", 0), (1, 1, "A", 90),
             (-1, -2, "A", 0))
    figures = (PlacedFigure(0, -1, "meeple", "red", "field:NL"), PlacedFigure(1, 0, "ringmaster", "red", "field:NL"),
               PlacedFigure(1, 1, "ringmaster", "blue", "road:W"), PlacedFigure(0, -2, "acrobat", "red", "acrobats"))
    frame = renderer.render(Scene(tiles, figures))
    frame = np.clip(frame + np.random.default_rng(5).normal(0, 1.5, frame.shape), 0, 255).astype(np.uint8)
    recognizer = _read_with_grid_off(renderer, frame, tiles, (0, 0))
    board, _ = recognizer._board_part(frame)
    assert (0, -2, "acrobat", "red", "acrobats") in recognizer._board_figures(board)


def test_the_art_below_a_lone_acrobat_is_no_acrobat_it_hides() -> None:
    """The demo's game of seed 2: a lone blue acrobat on an acrobat space with red and green art just below it."""
    renderer = SceneRenderer((-9, -5, 4, 6), 56, "classic", 2)
    tiles = ((-6, 4, "ffrr.acrobats", 180), (-6, 3, "V", 0))
    frame = renderer.render(Scene(tiles, (PlacedFigure(-6, 4, "acrobat", "blue", "acrobats"),)))
    frame = np.clip(frame + np.random.default_rng(5).normal(0, 1.5, frame.shape), 0, 255).astype(np.uint8)
    recognizer = _read_with_grid_off(renderer, frame, tiles, (0, 0))
    board, _ = recognizer._board_part(frame)
    assert recognizer._board_figures(board) == ((-6, 4, "acrobat", "blue", "acrobats"),)


def test_the_grid_fitted_to_the_seams_does_not_follow_the_order_the_tiles_were_read_in(classifier: TileClassifier) -> None:
    """The seam fit's robust search draws its samples by position in its list of seams: the same tiles read in
    another order at the table moved the grid."""
    rng = np.random.default_rng(2)
    tiles = random_layout(24, rng, expansion=True)
    board = draw_board(tiles, lambda t, r: render_tile(t, r, 48, "newart", rng), rng, cell=48, margin=8.0)
    photo = photograph(board.image, LEVELS["typical"], rng, size=(1536, 864), subject=board.subject).image
    grid = find_grid(photo)
    fits = []
    for k in range(4):
        cells = [(c.x, c.y) for c in grid.cells]
        np.random.default_rng(k).shuffle(cells)
        recognizer = LiveRecognizer(classifier)
        recognizer.to_photo = grid.to_photo
        recognizer._cells = {cell: ("A", 0, True) for cell in cells}
        recognizer._refit(photo)
        fits.append(recognizer.to_photo)
    assert not np.array_equal(fits[0], grid.to_photo)
    assert all(np.array_equal(f, fits[0]) for f in fits[1:])
