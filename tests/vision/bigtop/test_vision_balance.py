"""A token read through a camera's colour cast is checked again with the cast taken out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from scorer.bigtop.cards import Suit
from vision.bigtop.balance import balanced, paper_gains, paper_points, second_look
from vision.bigtop.faces import MAT_PAPER
from vision.bigtop.labels import Kind
from vision.bigtop.layout import MAT, Pile
from vision.bigtop.scene import Placement, SceneSettings, render_scene
from vision.classify import Recognition, Verdict
from vision.detect import Detection

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.9, 1.0), warmth=(0.0, 0.0),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 2.0), jpeg_quality=(90, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


@pytest.fixture(scope="module")
def table() -> tuple[NDArray[Any], NDArray[Any]]:
    placements = [Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 0)]
    scene = render_scene(np.random.default_rng(5), seats=[0, 1], settings=CALM, placements=placements)
    return scene.image, scene.table_to_image


def _hue(gains: NDArray[Any], cast: NDArray[Any]) -> NDArray[Any]:
    """The colour left on the paper after the cast and the gains, relative to its printed colour."""
    left = np.asarray(gains) * cast
    out: NDArray[Any] = left / left.mean()
    return out


def test_paper_points_lie_on_blank_paper_of_the_mat() -> None:
    pts = paper_points()
    assert len(pts) >= 100
    assert pts[:, 0].min() >= 0 and pts[:, 0].max() <= MAT.width
    for suit in Suit:
        for pile in Pile:
            r = MAT.slot(suit, pile)
            inside = ((pts[:, 0] > r.x) & (pts[:, 0] < r.x + r.w) & (pts[:, 1] > r.y) & (pts[:, 1] < r.y + r.h))
            assert not inside.any()


def test_paper_gains_take_out_a_colour_cast(table: tuple[NDArray[Any], NDArray[Any]]) -> None:
    image, to_image = table
    plain = paper_gains(image, to_image)
    assert np.allclose(_hue(plain, np.ones(3)), 1.0, atol=0.04)
    cast = np.array([0.82, 1.0, 1.15])  # a warm white balance: blue down, red up
    tinted = np.clip(image.astype(np.float64) * cast, 0, 255).astype(np.uint8)
    gains = paper_gains(tinted, to_image)
    assert gains[0] > 1.1 and gains[2] < 0.95
    assert np.allclose(_hue(gains, cast), _hue(plain, np.ones(3)), atol=0.04)
    assert abs(float(gains.mean()) - 1.0) < 1e-9


def test_paper_gains_are_ones_when_the_mat_is_not_in_view(table: tuple[NDArray[Any], NDArray[Any]]) -> None:
    image, to_image = table
    away = np.array([[1, 0, 5000], [0, 1, 5000], [0, 0, 1]], np.float64) @ to_image
    assert np.array_equal(paper_gains(image, away), np.ones(3))
    grey = np.full_like(image, 255)  # saturated all over: no paper to measure
    assert np.array_equal(paper_gains(grey, to_image), np.ones(3))


def test_balanced_multiplies_each_channel_and_stays_in_range() -> None:
    crops = np.full((2, 4, 3, 3), (100, 200, 250), np.uint8)
    out = balanced(crops, np.array([1.2, 1.0, 0.8]))
    assert out.dtype == np.uint8
    assert tuple(out[0, 0, 0]) == (120, 200, 200)
    assert tuple(balanced(crops, np.array([1.0, 1.0, 1.3]))[1, 3, 2]) == (100, 200, 255)
    assert MAT_PAPER == (225, 238, 245)


class _Scripted:
    """A crop reader that answers a fixed list, and records the crops it was given."""

    def __init__(self, answers: list[Recognition]) -> None:
        self.answers = answers
        self.seen: list[NDArray[Any]] = []

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        self.seen.append(crops)
        return self.answers[:len(crops)]


def _det(kind: Kind) -> Detection:
    return Detection(kind, np.zeros((4, 2)), (0.0, 0.0), 0.0)


def test_second_look_keeps_a_token_only_when_both_looks_agree() -> None:
    crops = np.full((4, 8, 6, 3), 128, np.uint8)
    dets = [_det(Kind.TOKEN), _det(Kind.CARD), _det(Kind.TOKEN), _det(Kind.TOKEN)]
    first = [Recognition(Verdict.IDENTIFIED, "token-5", 0.99),
             Recognition(Verdict.IDENTIFIED, "clowns-L3", 0.95),
             Recognition(Verdict.IDENTIFIED, "token-7", 0.97),
             Recognition(Verdict.UNSURE, "token-3", 0.6)]
    # the second look sees the two identified tokens only: it reads the first as a $3, the other as itself
    reader = _Scripted([Recognition(Verdict.IDENTIFIED, "token-3", 0.99),
                        Recognition(Verdict.IDENTIFIED, "token-7", 0.95)])
    out = second_look(reader, crops, dets, first, np.array([1.1, 1.0, 0.9]), 0.9)
    assert len(reader.seen) == 1 and len(reader.seen[0]) == 2
    assert tuple(reader.seen[0][0, 0, 0]) == (141, 128, 115)  # balanced before the second look
    assert out[0].verdict is Verdict.UNSURE and out[0].best == "token-5"
    assert out[1] == first[1] and out[3] == first[3]
    assert out[2].verdict is Verdict.IDENTIFIED and out[2].best == "token-7"
    assert out[2].confidence == pytest.approx(0.96)


def test_second_look_refuses_a_token_whose_mean_confidence_falls_below_the_threshold() -> None:
    crops = np.full((1, 8, 6, 3), 128, np.uint8)
    first = [Recognition(Verdict.IDENTIFIED, "token-5", 0.92)]
    reader = _Scripted([Recognition(Verdict.UNSURE, "token-5", 0.5)])
    out = second_look(reader, crops, [_det(Kind.TOKEN)], first, np.array([1.05, 1.0, 0.95]), 0.9)
    assert out[0].verdict is Verdict.UNSURE and out[0].confidence == pytest.approx(0.71)


def test_second_look_keeps_a_token_an_enrolled_deck_identifies_in_both_looks() -> None:
    # a deck's confidence (1 - its distance ratio) stays well below the model's threshold
    crops = np.full((2, 8, 6, 3), 128, np.uint8)
    first = [Recognition(Verdict.IDENTIFIED, "token-back", 0.5), Recognition(Verdict.IDENTIFIED, "token-5", 0.3)]
    reader = _Scripted([Recognition(Verdict.IDENTIFIED, "token-back", 0.45), Recognition(Verdict.UNSURE, "token-5", 0.1)])
    out = second_look(reader, crops, [_det(Kind.TOKEN), _det(Kind.TOKEN)], first, np.array([1.1, 1.0, 0.9]), 0.9)
    assert out[0].verdict is Verdict.IDENTIFIED and out[0].best == "token-back"
    assert out[1].verdict is Verdict.UNSURE and out[1].best == "token-5"


def test_no_second_look_without_a_colour_cast() -> None:
    crops = np.full((1, 8, 6, 3), 128, np.uint8)
    first = [Recognition(Verdict.IDENTIFIED, "token-5", 0.92)]
    reader = _Scripted([Recognition(Verdict.UNSURE, "token-5", 0.5)])
    assert second_look(reader, crops, [_det(Kind.TOKEN)], first, np.array([1.01, 1.0, 0.99]), 0.9) == first
    assert not reader.seen
