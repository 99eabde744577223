"""The camera benchmark's judgement of a view (`benchmarks/bench_grand_carnival_vision.py` `judge`): an attraction
held while the hand lies over any of its fields is held under the hand, as the tent is where any of its places is."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks.bench_grand_carnival_vision import judge, random_market, truth_market
from scorer.grand_carnival.components import cells_of
from vision.grand_carnival.layout import BOARD, TENT_PLACES, TRICK_PLACES
from vision.grand_carnival.pipeline import MarketView, Unrecognised
from vision.grand_carnival.scene import MarketScene


class _Photo:
    """A stand-in for `vision.camera_model.Photo`: one pixel per millimetre of the board, a hand where ``hand`` is."""

    def __init__(self, hand: tuple[float, float] | None) -> None:
        self.hand_mask = np.zeros((int(BOARD.height) + 1, int(BOARD.width) + 1), np.uint8)
        if hand is not None:
            x, y = hand
            self.hand_mask[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3] = 255

    def to_image(self, pts: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(pts, np.float64)


def _scene_with_a_long_piece() -> MarketScene:
    """A market with an attraction of three fields or more."""
    for seed in range(770_000_000, 770_000_200):
        scene = random_market(seed)
        if any(len(cells_of(a.mask)) >= 3 for a in scene.board.attractions):
            return scene
    raise AssertionError("no market with a long attraction")


def _held_piece(scene: MarketScene) -> tuple[MarketView, tuple[int, ...]]:
    """Every place read right but one long attraction, held; its fields."""
    board = scene.board
    piece = next(a for a in board.attractions if len(cells_of(a.mask)) >= 3)
    letters = "".join(truth_market(board))
    view = MarketView(
        scene.seat, tuple(letters[r * 8:(r + 1) * 8] for r in range(8)),
        tuple((a.shape, a.mask, a.tickets) for a in board.attractions if a is not piece), board.entrances,
        min(board.tent, TENT_PLACES), board.numbers, min(board.tricks_learned, TRICK_PLACES),
        (Unrecognised("a piece", "the attraction may reach onto a field that cannot be read", piece.mask),))
    return view, cells_of(piece.mask)


def _centre(cell: int) -> tuple[float, float]:
    x, y, w, h = BOARD.field_rect(cell)
    return x + w / 2, y + h / 2


def test_an_attraction_whose_last_field_the_hand_covers_is_held_under_the_hand() -> None:
    scene = _scene_with_a_long_piece()
    view, cells = _held_piece(scene)
    counts = judge(view, scene, _Photo(hand=_centre(cells[-1])))  # type: ignore[arg-type]
    assert (counts["held"], counts["hand_held"], counts["wrong"]) == (0, 1, 0)


def test_an_attraction_in_plain_view_is_held_away_from_the_hand() -> None:
    scene = _scene_with_a_long_piece()
    view, _ = _held_piece(scene)
    causes: list[str] = []
    counts = judge(view, scene, _Photo(hand=None), causes)  # type: ignore[arg-type]
    assert (counts["held"], counts["hand_held"], counts["wrong"]) == (1, 0, 0)
    assert causes and causes[0].startswith("held attraction at ")
