"""Live frames of one table: what is given back from the last frame, and what is read again."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from scorer.bigtop.cards import Card, Suit
from vision.bigtop import DEFAULT_CONFIG, DEFAULT_MODEL
from vision.bigtop.layout import MAT, Pile
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.scene import Placement, SceneSettings, render_scene
from vision.bigtop.tableview import TableView
from vision.calibrate import marker_outlines
from vision.detect import Detection, find_components, find_components_near
from vision.recall import CONFIRMATIONS, TILE, TILE_SAME, tile_means

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


@functools.lru_cache(maxsize=2)
def _table(light: str) -> np.ndarray:
    """One table, the same in every way but the card on the clowns' light pile."""
    placements = [Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 1),
                  Placement(light, *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 2),
                  Placement("animals-P", *MAT.slot(Suit.ANIMALS, Pile.POSTER).centre, 0),
                  Placement("animals-D3", *MAT.slot(Suit.ANIMALS, Pile.DARK).centre, -2)]
    image: np.ndarray = render_scene(np.random.default_rng(7), seats=[0], settings=CALM, placements=placements).image
    return image


def _exposure(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The next frame of a still camera: fresh sensor noise."""
    out: np.ndarray = np.clip(image + rng.normal(0, 1.5, image.shape), 0, 255).astype(np.uint8)
    return out


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
    for _ in range(CONFIRMATIONS - 1):  # searched and read afresh until as many frames agreed
        frames = recognizer.still.recalled
        assert _labels(recognizer.recognize(_exposure(before, rng)).view) == _labels(first)
        assert recognizer.still.recalled == frames
    frames, crops = recognizer.still.recalled, recognizer.read.recalled
    again = recognizer.recognize(_exposure(before, rng))
    assert recognizer.still.recalled == frames + 1 and recognizer.read.recalled > crops + len(again.detections) // 2
    assert _labels(again.view) == _labels(first)
    read = recognizer.read.read
    swapped = recognizer.recognize(after).view
    assert recognizer.read.read > read
    assert swapped.tableau[Suit.CLOWNS].top_light == Card.parse("clowns-L3")
    recognizer.reset()
    assert _labels(recognizer.recognize(after).view) == _labels(swapped)


def _centres(dets: Sequence[Detection]) -> list[tuple[str, float, float]]:
    return sorted((d.kind.value, round(d.centre[0], 3), round(d.centre[1], 3)) for d in dets)


def test_components_are_searched_again_near_a_hand_as_in_the_whole_frame(recognizer: Recognizer) -> None:
    before = _table("clowns-L2")
    recognizer.reset()
    first = recognizer.recognize(before)
    rng = np.random.default_rng(2)
    for _ in range(CONFIRMATIONS - 1):
        recognizer.recognize(_exposure(before, rng))
    searched_near = recognizer.still.near
    hand = before.copy()
    cv2.ellipse(hand, (700, 420), (130, 90), 30.0, 0, 360, (120, 150, 205), -1)
    live = recognizer.recognize(hand)
    assert recognizer.still.near == searched_near + 1 and live.calibration is first.calibration
    outlines = marker_outlines(recognizer.tracker.find(cv2.cvtColor(before, cv2.COLOR_BGR2GRAY)), first.rectified,
                               DEFAULT_CONFIG)
    found = find_components(first.rectified.image, DEFAULT_CONFIG, outlines)
    changed = np.abs(tile_means(live.rectified.image) - tile_means(first.rectified.image)) > TILE_SAME
    near, searched = find_components_near(live.rectified.image, DEFAULT_CONFIG, outlines, found, changed, TILE)
    whole = find_components(live.rectified.image, DEFAULT_CONFIG, outlines)
    assert _centres(whole) != _centres(found)  # the hand hid components
    assert 0 < searched.mean() < 0.5
    assert _centres(near) == _centres(whole)
