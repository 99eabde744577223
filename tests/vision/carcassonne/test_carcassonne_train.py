"""The tile classifier's training data: random art styles and crop pools (no torch needed)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.carcassonne.catalog import BASE_TILES
from vision.carcassonne import train
from vision.carcassonne.dataset import build_bank
from vision.carcassonne.render import random_style, render_tile


def test_random_styles_differ_and_keep_fields_green_and_roads_light() -> None:
    rng = np.random.default_rng(5)
    styles = [random_style(rng) for _ in range(40)]
    assert len({s.field for s in styles}) == 40
    for s in styles:
        hue, sat, _ = cv2.cvtColor(np.uint8([[s.field]]), cv2.COLOR_BGR2HSV)[0, 0]
        assert 26 <= hue <= 70 and sat > 60
        assert max(s.road) > 180 and max(s.road_edge) < 160
        assert 1 <= len(s.roofs) <= 3


def test_random_style_tiles_are_drawn_and_repeatable() -> None:
    a = render_tile("D", 90, 64, random_style(np.random.default_rng(2)), np.random.default_rng(3))
    b = render_tile("D", 90, 64, random_style(np.random.default_rng(2)), np.random.default_rng(3))
    c = render_tile("D", 90, 64, random_style(np.random.default_rng(4)), np.random.default_rng(3))
    assert a.shape == (64, 64, 3) and np.array_equal(a, b) and not np.array_equal(a, c)


def test_random_bank_holds_a_new_style_per_picture() -> None:
    bank = build_bank(["random"], variants=3, seed=1)
    pics = bank.tiles[BASE_TILES[0]]
    assert len(pics) == 3
    fields = {tuple(int(v) for v in p[4, 4]) for p in pics}
    assert len(fields) == 3


def test_pool_sizes_by_weight() -> None:
    assert train.pool_sizes(["classic", "random", "scan:newart"], 0, per_unit=100) == {
        "classic": 100, "random": 300, "scan:newart": 200}
    shares = train.pool_sizes(["classic", "random"], 4000)
    assert shares == {"classic": 1000, "random": 3000}
    with pytest.raises(KeyError):
        train.pool_sizes(["sepia"], 100)


def test_pool_does_not_depend_on_the_number_of_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(train, "CHUNK", 4)
    train._BANKS.clear()
    one = train.make_pool("flat", 10, 3, workers=1)
    two = train.make_pool("flat", 10, 3, workers=2, cache=tmp_path)
    assert one[0].shape == (10, 48, 48, 3)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a, b)
    assert len(list(tmp_path.glob("flat-10-3-*.npz"))) == 1
    again = train.make_pool("flat", 10, 3, cache=tmp_path)
    assert np.array_equal(again[0], one[0])
