"""The feature map of every tile: each feature can be pointed at and named as a move names it."""

from __future__ import annotations

import pytest

from scorer.carcassonne.catalog import CATALOG, rotated
from vision.carcassonne.features import anchor, feature_map, spot_at


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_feature_has_a_place_that_is_named_back(name: str) -> None:
    for rot in (0, 90, 180, 270):
        view = rotated(name, rot)
        for spot, index in view.spots.items():
            u, v = anchor(name, rot, spot)
            got = spot_at(name, rot, u, v)
            assert got is not None and view.spots[got] == index, (name, rot, spot, got)


def test_names_follow_the_turn() -> None:
    # D: city north, road west-east; turned 90 the city is east and the road north-south
    assert spot_at("D", 0, 0.5, 0.08) == "city:N"
    assert spot_at("D", 90, 0.92, 0.5) == "city:E"
    assert spot_at("D", 90, 0.5, 0.1) == "road:N"
    assert spot_at("D", 0, 0.5, 0.9) == "field:ER"
    assert spot_at("B", 0, 0.5, 0.5) == "monastery"
    assert spot_at("cfrf.circus", 0, 0.5, 0.5) == "circus"
    assert spot_at("ffrr.acrobats", 0, 0.5, 0.5) == "acrobats"
    assert feature_map("D", 90).shape == feature_map("D", 0).shape
