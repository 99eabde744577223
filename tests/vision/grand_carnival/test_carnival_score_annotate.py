"""`ringside score grand-carnival PHOTO --annotate OUT.png`: what the marked photo shows."""

from __future__ import annotations

import json
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
    assert marked is not None and marked.shape == photo.shape
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


def test_one_photo_per_market_gives_one_marked_photo_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    region = content_region(1)
    photos = []
    for seat, seed in ((0, 11), (1, 12)):
        image = render_top_down([MarketScene(finished_board(seed), seat, 5 + seat)], 1200 / (region[2] - region[0]),
                                region)
        path = tmp_path / f"market{seat + 1}.png"
        cv2.imwrite(str(path), image)
        photos.append((path, image))
    out = tmp_path / "scored.png"
    assert main(["score", "grand-carnival", *(str(p) for p, _ in photos), "--json", "--annotate", str(out)]) == 0
    printed, err = capsys.readouterr()
    assert set(json.loads(printed)["scores"]) == {"seat1", "seat2"}
    assert not out.exists() and err.count("\n") == 1 and "scored-01.png" in err and "scored-02.png" in err
    for i, (_, image) in enumerate(photos, start=1):
        marked = cv2.imread(str(tmp_path / f"scored-{i:02d}.png"))
        assert marked is not None and marked.shape == image.shape and not np.array_equal(marked, image)
