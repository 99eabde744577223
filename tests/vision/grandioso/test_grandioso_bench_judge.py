"""The camera benchmark's judgement of a view (`benchmarks/bench_grandioso_vision.py` `judge`): a question about a
place whose code the hand covers is never needless, whether a card lies there or not."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks.bench_grandioso_vision import judge
from scorer.grandioso.pyramid import Card, Pyramid
from vision.grandioso.layout import CODE_SIZE, MAT, code_centre
from vision.grandioso.pipeline import GrandiosoView, Unrecognised
from vision.grandioso.scene import Scene


class _Photo:
    """A stand-in for `vision.camera_model.Photo`: one pixel per millimetre of the table, a hand where ``hand`` is."""

    def __init__(self, hand: tuple[float, float] | None) -> None:
        self.hand_mask = np.zeros((int(MAT.height) + 1, int(MAT.width) + 1), np.uint8)
        if hand is not None:
            x, y = hand
            d = int(CODE_SIZE)
            self.hand_mask[int(y) - d:int(y) + d, int(x) - d:int(x) + d] = 255

    def to_image(self, pts: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(pts, np.float64)


def _asked_beside_start() -> tuple[GrandiosoView, dict[tuple[int, int], Card], Scene]:
    """The start Elephant read and the empty place beside it asked about."""
    view = GrandiosoView(pyramid={(0, 0): Card.ELEPHANT}, singles=0, single_xs=(), stack=True, loose=(),
                         unrecognised=(Unrecognised("row 1, place 2", "a card whose code cannot be read", 0, 1,
                                                    unread=True),))
    return view, {(0, 0): Card.ELEPHANT}, Scene(Pyramid.start())


def test_a_question_about_an_empty_place_under_the_hand_is_not_needless() -> None:
    view, truth, scene = _asked_beside_start()
    why, right, wrong, needless = judge(view, truth, scene, _Photo(hand=code_centre(0, 1)))  # type: ignore[arg-type]
    assert (why, right, wrong, needless) == ([], 1, 0, 0)


def test_a_question_about_an_empty_place_in_plain_view_is_needless() -> None:
    view, truth, scene = _asked_beside_start()
    why, right, wrong, needless = judge(view, truth, scene, _Photo(hand=None))  # type: ignore[arg-type]
    assert needless == 1 and why == ["held: empty place at (0, 1) (a card whose code cannot be read)"]
