"""`ringside score grand-carnival PHOTO --annotate OUT.png`: what the marked photo shows."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.model import Board
from vision.grand_carnival.layout import BOARD
from vision.grand_carnival.pipeline import Recognizer
from vision.grand_carnival.scene import MarketScene, content_region, render_top_down


def finished_board(seed: int) -> Board:
    """Seat 0's market at the end of a random game of two."""
    game = GrandCarnival()
    record = game.simulate(players=["A", "B"], rng=random.Random(seed))
    state = game.record_state(record)
    for text in record["moves"]:
        state, _ = game.apply_unchecked(state, game.parse_move(state, text))
    return state.boards[0]


def test_each_boards_scoring_line_stays_under_its_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    region = content_region(2)
    photo = render_top_down([MarketScene(finished_board(11), 0, 1), MarketScene(finished_board(12), 1, 2)],
                            1600 / (region[2] - region[0]))
    path, drawn = tmp_path / "table.png", tmp_path / "scored.png"
    cv2.imwrite(str(path), photo)
    assert main(["score", "grand-carnival", str(path), "--annotate", str(drawn)]) == 0
    assert "hammers" in capsys.readouterr().out
    marked = cv2.imread(str(drawn))
    assert marked.shape == photo.shape
    result = Recognizer().recognize(photo)
    assert len(result.poses) == 2
    corners = [pose.to_image(np.array([[0.0, 0.0], [BOARD.width, BOARD.height]], np.float64))
               for pose in result.poses]
    (first, second) = sorted(corners, key=lambda c: float(c[0][0]))
    below = int(max(first[1][1], second[1][1])) + 2
    gap = slice(int(first[1][0]) + 3, int(second[0][0]) - 3)
    assert gap.stop - gap.start > 10 and below < photo.shape[0]
    # The strip between the two boards, below them, is untouched: neither line ran into the other's place.
    assert np.array_equal(marked[below:, gap], photo[below:, gap])
    # Each board's line is drawn under it.
    for top_left, bottom_right in (first, second):
        strip = slice(int(top_left[0]), int(bottom_right[0]))
        assert not np.array_equal(marked[below:, strip], photo[below:, strip])
