"""A chart space whose print a glare spot washed out reads empty when no card lies there, never when one does."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from scorer.bigtop.cards import Card
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.layout import CHART, Space
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.places import (
    GLARE_FLOOR,
    WASHED_POINTS,
    _frame_evidence,
    _outline_evidence,
    layout_places,
    looks_washed,
)
from vision.bigtop.scene import Placement, SceneSettings, chart_pose, chart_to_table, render_scene
from vision.bigtop.tableview import Area, TableView

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))
SEAT = 0
SPACE = Space.D1


def _space_centre() -> tuple[float, float]:
    r = CHART.space(SPACE)
    return chart_to_table(chart_pose(SEAT), *r.centre)


def _table(card: str | None) -> tuple[NDArray[Any], NDArray[Any]]:
    x, y = _space_centre()
    placements = [] if card is None else [Placement(card, x, y, chart_pose(SEAT)[2])]
    scene = render_scene(np.random.default_rng(8), seats=[SEAT, 3], settings=CALM, placements=placements)
    return scene.image, scene.table_to_image


def _glare(image: NDArray[Any], to_image: NDArray[Any], radius_mm: float) -> NDArray[Any]:
    """A specular spot over the space: white, saturating in its middle, with a soft edge."""
    x, y = _space_centre()
    pts = cv2.perspectiveTransform(np.array([[[x, y], [x + radius_mm, y]]], np.float64), to_image)[0]
    radius = float(np.linalg.norm(pts[1] - pts[0]))
    spot: NDArray[Any] = np.zeros(image.shape[:2], np.float32)
    cv2.circle(spot, (int(round(pts[0][0])), int(round(pts[0][1]))), int(round(radius)), 1.0, -1, cv2.LINE_AA)
    spot = cv2.GaussianBlur(spot, (0, 0), 0.25 * radius)
    out = image.astype(np.float32) + 2.0 * 255 * spot[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _space_state(view: TableView) -> tuple[object, bool]:
    chart = next(c for c in view.charts if c.seat == SEAT)
    held = any(u.zone.area is Area.CHART_SPACE and u.zone.seat == SEAT and u.zone.space is SPACE
               for u in view.unrecognised)
    return chart.card_on(SPACE), held


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(DEFAULT_MODEL)


def test_an_empty_space_under_glare_reads_empty(recognizer: Recognizer) -> None:
    image, to_image = _table(None)
    recognizer.reset()
    assert _space_state(recognizer.recognize(image).view) == (None, False)
    recognizer.reset()
    assert _space_state(recognizer.recognize(_glare(image, to_image, 25.0)).view) == (None, False)


def test_a_card_under_glare_is_never_read_as_an_empty_space(recognizer: Recognizer) -> None:
    image, to_image = _table("clowns-L3")
    for radius in (15.0, 22.0, 25.0, 30.0, 40.0):
        recognizer.reset()
        card, held = _space_state(recognizer.recognize(_glare(image, to_image, radius)).view)
        assert held or (isinstance(card, Card) and card.notation() == "clowns-L3")


DIM = replace(CALM, brightness=(0.7, 0.7))


def _dim_table(card: str | None) -> tuple[NDArray[Any], NDArray[Any]]:
    """`_table` in a dim frame: the bare print darker than `vision.bigtop.places.GLARE_FLOOR`."""
    x, y = _space_centre()
    placements = [] if card is None else [Placement(card, x, y, chart_pose(SEAT)[2])]
    scene = render_scene(np.random.default_rng(8), seats=[SEAT, 3], settings=DIM, placements=placements)
    return scene.image, scene.table_to_image


def _linear_glare(image: NDArray[Any], to_image: NDArray[Any], radius_mm: float, dy_mm: float) -> NDArray[Any]:
    """A glare spot of peak 1.5 (linear light, 1 = white) centred ``dy_mm`` below the space's centre: it
    saturates part of the space and brightens the rest."""
    return _offset_glare(image, to_image, radius_mm, 0.0, dy_mm)


def test_an_empty_space_under_glare_in_a_dim_frame_reads_empty(recognizer: Recognizer) -> None:
    image, to_image = _dim_table(None)
    assert float(np.percentile(image, 50)) < GLARE_FLOOR  # the bare print is darker than the fixed floor
    for radius, dy in ((25.0, 10.0), (25.0, -10.0), (35.0, 20.0)):
        recognizer.reset()
        assert _space_state(recognizer.recognize(_linear_glare(image, to_image, radius, dy)).view) == (None, False)


@pytest.mark.parametrize("card", ["clowns-L3", "sideshow-D2", "performers-L6"])
def test_a_card_under_glare_in_a_dim_frame_is_never_read_as_an_empty_space(recognizer: Recognizer, card: str) -> None:
    image, to_image = _dim_table(card)
    for radius, dy in ((25.0, 10.0), (25.0, -10.0), (35.0, 20.0), (40.0, 0.0)):
        recognizer.reset()
        seen, held = _space_state(recognizer.recognize(_linear_glare(image, to_image, radius, dy)).view)
        assert held or (isinstance(seen, Card) and seen.notation() == card)


def _streak(image: NDArray[Any], to_image: NDArray[Any], half_mm: float) -> NDArray[Any]:
    """A narrow streak of glare (peak 1.5, linear light) along the space's printed name, ``half_mm`` either side
    of its middle line: it saturates the name and leaves most of the space as it was."""
    r = CHART.space(SPACE)
    cx, cy = r.centre
    a = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    chart = [(cx + 0.55 * r.w * np.cos(t), cy + half_mm * np.sin(t)) for t in a]
    table = np.array([[chart_to_table(chart_pose(SEAT), x, y) for x, y in chart]], np.float64)
    pts = cv2.perspectiveTransform(table, to_image)[0]
    spot: NDArray[Any] = np.zeros(image.shape[:2], np.float32)
    cv2.fillPoly(spot, [np.round(pts).astype(np.int32)], 1.0, cv2.LINE_AA)
    spot = cv2.GaussianBlur(spot, (0, 0), 2.0)
    lin = (image.astype(np.float32) / 255.0) ** 2.2 + 1.5 * spot[:, :, None]
    return np.clip(255.0 * np.clip(lin, 0.0, 1.0) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def test_an_empty_space_whose_name_a_streak_of_glare_hides_reads_empty(recognizer: Recognizer) -> None:
    image, to_image = _table(None)
    for half in (6.0, 9.0):
        recognizer.reset()
        assert _space_state(recognizer.recognize(_streak(image, to_image, half)).view) == (None, False)


@pytest.mark.parametrize("card", ["clowns-L3", "sideshow-D2"])
def test_a_card_under_a_streak_of_glare_is_never_read_as_an_empty_space(recognizer: Recognizer, card: str) -> None:
    image, to_image = _table(card)
    for half in (6.0, 9.0, 14.0):
        recognizer.reset()
        seen, held = _space_state(recognizer.recognize(_streak(image, to_image, half)).view)
        assert held or (isinstance(seen, Card) and seen.notation() == card)


def _offset_glare(image: NDArray[Any], to_image: NDArray[Any], radius_mm: float, dx_mm: float,
                  dy_mm: float, peak: float = 1.5) -> NDArray[Any]:
    """A round glare spot of ``peak`` (linear light, 1 = white) centred ``dx_mm, dy_mm`` off the space's centre: at
    1.5, off along both axes, it hides more than half of every side of a card at some pose the card may have
    there, and leaves a corner of the space's outline readable."""
    x, y = _space_centre()
    pts = cv2.perspectiveTransform(np.array([[[x + dx_mm, y + dy_mm], [x + dx_mm + radius_mm, y + dy_mm]]],
                                            np.float64), to_image)[0]
    radius = float(np.linalg.norm(pts[1] - pts[0]))
    spot: NDArray[Any] = np.zeros(image.shape[:2], np.float32)
    cv2.circle(spot, (int(round(pts[0][0])), int(round(pts[0][1]))), int(round(radius)), 1.0, -1, cv2.LINE_AA)
    spot = cv2.GaussianBlur(spot, (0, 0), 0.25 * radius)
    lin = (image.astype(np.float32) / 255.0) ** 2.2 + peak * spot[:, :, None]
    return np.clip(255.0 * np.clip(lin, 0.0, 1.0) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def test_an_empty_space_glare_leaves_only_a_corner_of_reads_empty(recognizer: Recognizer) -> None:
    image, to_image = _table(None)
    glared = _offset_glare(image, to_image, 40.0, 10.0, 15.0)
    recognizer.reset()
    result = recognizer.recognize(glared)
    place = next(p for p in layout_places(result.charts) if p.zone.seat == SEAT and p.zone.space is SPACE)
    # no whole side of a card readable at some pose: the outline is read point by point
    assert _frame_evidence(result.rectified.image, result.rectified, place)[1] == 0
    assert _space_state(result.view) == (None, False)


@pytest.mark.parametrize("card", ["clowns-L3", "sideshow-D2", "performers-L6"])
def test_a_card_glare_leaves_only_a_corner_of_is_never_read_as_an_empty_space(recognizer: Recognizer,
                                                                              card: str) -> None:
    image, to_image = _table(card)
    for radius, dx, dy in ((40.0, 10.0, 15.0), (40.0, -10.0, -15.0), (45.0, 12.0, 18.0), (50.0, -15.0, -22.0)):
        recognizer.reset()
        seen, held = _space_state(recognizer.recognize(_offset_glare(image, to_image, radius, dx, dy)).view)
        assert held or (isinstance(seen, Card) and seen.notation() == card)


def _space_outline(recognizer: Recognizer, image: NDArray[Any]) -> tuple[tuple[object, bool], int, bool]:
    """The space's state in a new table's first frame, how many points of a card's outline `READABLE_LEVEL` leaves
    readable at the worst pose, and whether the place looks washed out."""
    recognizer.reset()
    result = recognizer.recognize(image)
    rect = result.rectified
    place = next(p for p in layout_places(result.charts) if p.zone.seat == SEAT and p.zone.space is SPACE)
    points = _outline_evidence(rect.image, rect, place)[1]
    return _space_state(result.view), points, looks_washed(rect.image, rect, place)


@pytest.mark.parametrize("radius, peak", [(45.0, 0.3), (50.0, 0.35)])
def test_an_empty_space_a_broad_spot_whitens_short_of_clipping_reads_empty(recognizer: Recognizer, radius: float,
                                                                           peak: float) -> None:
    image, to_image = _table(None)
    state, points, washed = _space_outline(recognizer, _offset_glare(image, to_image, radius, 0.0, 0.0, peak))
    assert points < WASHED_POINTS  # at some pose no card's outline is under READABLE_LEVEL: it was held
    assert washed and state == (None, False)


@pytest.mark.parametrize("card", ["clowns-L3", "sideshow-D2", "performers-L6"])
def test_a_card_a_broad_spot_whitens_short_of_clipping_is_never_read_as_an_empty_space(recognizer: Recognizer,
                                                                                      card: str) -> None:
    image, to_image = _table(card)
    for radius, peak in ((45.0, 0.8), (50.0, 0.7), (60.0, 0.6), (45.0, 0.3), (50.0, 0.35)):
        (seen, held), _, washed = _space_outline(recognizer,
                                                      _offset_glare(image, to_image, radius, 0.0, 0.0, peak))
        assert not washed
        assert held or (isinstance(seen, Card) and seen.notation() == card)
