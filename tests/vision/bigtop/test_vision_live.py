"""Live frames of one table: what is given back from the last frame, and what is read again."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.bigtop.cards import Card, Suit
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.layout import MAT, Pile
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.scene import Placement, SceneSettings, render_scene
from vision.bigtop.tableview import TableView

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


def _table(light: str) -> np.ndarray:
    """One table, the same in every way but the card on the clowns' light pile."""
    placements = [Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 1),
                  Placement(light, *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 2),
                  Placement("animals-P", *MAT.slot(Suit.ANIMALS, Pile.POSTER).centre, 0),
                  Placement("animals-D3", *MAT.slot(Suit.ANIMALS, Pile.DARK).centre, -2)]
    image: np.ndarray = render_scene(np.random.default_rng(7), seats=[0], settings=CALM, placements=placements).image
    return image


def _labels(view: TableView) -> list[str]:
    return sorted(c.label for c in view.components)


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(DEFAULT_MODEL)


def test_a_still_table_is_given_back_and_a_swapped_card_read_again(recognizer: Recognizer) -> None:
    before, after = _table("clowns-L2"), _table("clowns-L3")
    assert 0 < int((before != after).any(axis=2).sum()) < 3000  # only the card's print differs
    recognizer.reset()
    first = recognizer.recognize(before).view
    assert first.tableau[Suit.CLOWNS].top_light == Card.parse("clowns-L2")
    rng = np.random.default_rng(1)
    still = np.clip(before + rng.normal(0, 1.5, before.shape), 0, 255).astype(np.uint8)
    again = recognizer.recognize(still)
    assert recognizer.still.recalled == 1 and recognizer.read.recalled >= len(again.detections)
    assert _labels(again.view) == _labels(first)
    read = recognizer.read.read
    swapped = recognizer.recognize(after).view
    assert recognizer.read.read > read
    assert swapped.tableau[Suit.CLOWNS].top_light == Card.parse("clowns-L3")
    recognizer.reset()
    assert _labels(recognizer.recognize(after).view) == _labels(swapped)
