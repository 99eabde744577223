"""``ringside score carcassonne PHOTO``: the final scoring from a photo, its picture, and its errors."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from vision.carcassonne.board import Placed, draw_board
from vision.carcassonne.camera import LEVELS, photograph
from vision.carcassonne.figures import FigureReading, PlacedFigure, draw_figures
from vision.carcassonne.recognize import BoardReading, TileReading
from vision.carcassonne.render import render_tile
from vision.carcassonne.scoring import IllegalPosition, score_reading


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(21)
    tiles = [Placed(0, 0, "D", 0), Placed(1, 0, "U", 0), Placed(0, 1, "E", 180), Placed(1, 1, "B", 0),
             Placed(2, 0, "V", 0), Placed(2, 1, "U", 90)]
    board = draw_board(tiles, lambda t, r: render_tile(t, r, 96, "newart", rng), rng, cell=96, margin=3.0)
    figs = [PlacedFigure(0, 0, "meeple", "red", "city:N"), PlacedFigure(1, 0, "meeple", "blue", "road:W"),
            PlacedFigure(1, 1, "meeple", "yellow", "monastery")]
    img = draw_figures(board.image, {(t.x, t.y): (t.tile, t.rotation) for t in tiles}, figs,
                       lambda x, y: board.cell_corners(x, y)[0], board.cell, rng)
    path = tmp_path_factory.mktemp("score") / "board.jpg"
    cv2.imwrite(str(path), photograph(img, LEVELS["overhead"], rng, size=(1152, 648), subject=board.subject).image)
    return path


def test_final_scoring_per_player(photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scored.png"
    assert main(["score", "carcassonne", str(photo), "--colors", "red=Ann,blue=Ben,yellow=Cy", "--annotate", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Ben: 4 (road 4)" in text and "Cy: 6 (monastery 6)" in text
    assert out.is_file()


def test_a_colour_nobody_plays_is_exit_3(photo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "carcassonne", str(photo), "--colors", "red=Ann"]) == 3
    assert "no player plays" in capsys.readouterr().err


@pytest.mark.parametrize("colors", ["pink=Ann", "red=Ann,red=Ben", "red"])
def test_bad_colours_are_one_line_exit_2(photo: Path, colors: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "carcassonne", str(photo), "--colors", colors]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def _circus_board(*figures: FigureReading) -> BoardReading:
    """A circus tile (city north, road south) with a B beside it to the east; a red meeple on the B's monastery."""
    tiles = (TileReading(0, 0, "cfrf.circus", 0, 1.0), TileReading(1, 0, "B", 0, 1.0))
    return BoardReading(tiles, figures=(FigureReading(1, 0, "meeple", "red", "monastery", 1.0), *figures))


def test_the_animal_token_turned_up_where_the_big_top_stood_scores_the_last_circus() -> None:
    # a seal (4 points a follower): the red meeple beside the circus scores it, with its monastery (1 + 1 tile)
    seal = FigureReading(0, 0, "animal-token", "", "circus", 0.9, "seal")
    result, _ = score_reading(_circus_board(seal), {"red": "Ann"})
    assert result.points["Ann"]["circus"] == 4 and result.points["Ann"]["monastery"] == 2
    with_top = _circus_board(FigureReading(0, 0, "big-top", "", "circus", 0.9), seal)
    assert score_reading(with_top, {"red": "Ann"})[0].points == result.points
    # the Big Top alone: its animal unknown, the circus scores nothing
    assert score_reading(_circus_board(FigureReading(0, 0, "big-top", "", "circus", 0.9)),
                         {"red": "Ann"})[0].points["Ann"]["circus"] == 0


def test_an_animal_token_turned_up_away_from_the_big_top_is_no_legal_position() -> None:
    board = BoardReading((TileReading(0, 0, "cfrf.circus", 0, 1.0), TileReading(0, 1, "cfrf.circus", 180, 1.0)),
                         figures=(FigureReading(0, 0, "big-top", "", "circus", 0.9),
                                  FigureReading(0, 1, "animal-token", "", "circus", 0.9, "bear")))
    with pytest.raises(IllegalPosition, match="the token lies where the Big Top stands"):
        score_reading(board, {"red": "Ann"})
