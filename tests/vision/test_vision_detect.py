"""Calibration and detection on scenes rendered at test time."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import NoMatError
from vision.bigtop import CONFIG as CFG
from vision.bigtop.labels import Kind
from vision.bigtop.layout import CARD, MAT, seat_of_marker
from vision.bigtop.scene import Placement, SceneSettings, chart_pose, render_scene
from vision.calibrate import (
    Calibrator,
    MarkerTracker,
    find_markers,
    locate_charts,
    marker_outlines,
    mat_homography,
    rectify,
)
from vision.config import VisionConfig
from vision.detect import Detection, _Geometry, _holes_and_frames, _inside_cards, dark_mask, find_components, warp_crops


def _layout(marker_id: int) -> bool:
    """A marker of the mat or of a chart (not a card face decoded as a marker)."""
    return marker_id in MAT.marker_ids or seat_of_marker(marker_id) is not None

CALM = SceneSettings(tilt_deg=(8.0, 12.0), yaw_deg=(-5.0, 5.0), brightness=(0.9, 1.0), warmth=(0.0, 0.05),
                     gamma=(1.0, 1.0), blur_sigma=(0.3, 0.5), noise_sigma=(1.0, 2.0), jpeg_quality=(90, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


def _detect(image: np.ndarray) -> tuple[list, object]:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    cal = mat_homography(find_markers(gray, CFG), CFG)
    rect = rectify(image, cal, CFG)
    return find_components(cv2.cvtColor(rect.image, cv2.COLOR_BGR2GRAY), CFG), rect


def test_homography_maps_the_mat_within_a_millimetre() -> None:
    scene = render_scene(np.random.default_rng(5), seats=[0, 2], settings=CALM, placements=[])
    cal = mat_homography(find_markers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), CFG), CFG)
    assert cal.markers_seen == len(MAT.marker_ids)
    pts = np.array([[[0.0, 0.0], [MAT.width, MAT.height], [250.0, -100.0], [-150.0, 300.0]]])
    img = cv2.perspectiveTransform(pts, scene.table_to_image)
    back = cv2.perspectiveTransform(img, cal.image_to_table)
    assert np.abs(back - pts).max() < 1.5


def test_calibration_is_cached_and_rechecked() -> None:
    rng = np.random.default_rng(6)
    a = render_scene(rng, seats=[1], settings=CALM, placements=[])
    b = render_scene(np.random.default_rng(7), seats=[1], settings=CALM, placements=[])
    cal = Calibrator(CFG)
    for frame in (a.image, a.image):
        cal.update(find_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), CFG))
    assert cal.recalibrations == 1
    cal.update(find_markers(cv2.cvtColor(b.image, cv2.COLOR_BGR2GRAY), CFG))
    assert cal.recalibrations == 2


def test_marker_tracker_searches_where_the_markers_were_and_falls_back_to_the_whole_frame() -> None:
    from vision.bigtop.layout import BIGTOP_TABLE
    from vision.config import VisionConfig

    a = render_scene(np.random.default_rng(8), seats=[0, 2, 3], settings=CALM, placements=[])
    b = render_scene(np.random.default_rng(9), seats=[1, 2, 4, 5], settings=CALM, placements=[])
    ga, gb = (cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY) for s in (a, b))
    full = {m.id: m.corners for m in find_markers(ga, CFG)}
    tracker = MarkerTracker(VisionConfig(BIGTOP_TABLE, marker_full_search_every=4))
    tracker.find(ga)
    assert tracker.full_searches == 1
    again = tracker.find(ga)
    assert tracker.full_searches == 1  # found in the regions where they were
    assert sorted(m.id for m in again) == sorted(i for i in full if _layout(i))
    for m in again:
        assert np.abs(m.corners - full[m.id]).max() < 0.5
    # another table: some markers are not where they were -> the whole frame is searched
    other = tracker.find(gb)
    assert tracker.full_searches == 2
    assert sorted(m.id for m in other) == sorted(m.id for m in find_markers(gb, CFG))
    # a marker covered: the others are still found where they were, no full search
    covered = ga.copy()
    x0, y0 = np.floor(full[0].min(axis=0)).astype(int)
    x1, y1 = np.ceil(full[0].max(axis=0)).astype(int)
    tracker.find(ga)
    n = tracker.full_searches
    covered[y0:y1 + 1, x0:x1 + 1] = 60
    assert 0 not in [m.id for m in tracker.find(covered)]
    assert tracker.full_searches == n
    # and at least every marker_full_search_every frames (a chart placed since)
    for _ in range(4):
        tracker.find(ga)
    assert tracker.full_searches == n + 1
    # a frame of another size (the markers' regions lie outside it): searched in full, no error
    tracker.find(ga)
    assert tracker.find(np.ascontiguousarray(ga[:200, :300])) == ()
    assert tracker.full_searches == n + 2


def test_marker_tracker_gives_back_a_marker_whose_region_is_unchanged_and_searches_it_when_it_changed() -> None:
    scene = render_scene(np.random.default_rng(8), seats=[0, 2], settings=CALM, placements=[])
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    rng = np.random.default_rng(1)

    def exposure(img: np.ndarray) -> np.ndarray:  # the next frame of a still camera: fresh sensor noise
        return np.asarray(np.clip(np.rint(img + rng.normal(0.0, 2.0, img.shape)), 0, 255), np.uint8)

    tracker = MarkerTracker(CFG)
    full = tracker.find(gray)  # each marker's region's look remembered
    first = tracker.find(exposure(gray))
    assert tracker.region_searches == 0 and tracker.region_kept == len(first)
    assert sorted(m.id for m in first) == sorted(m.id for m in full if _layout(m.id))
    again = tracker.find(exposure(gray))
    assert tracker.region_kept == 2 * len(first) and tracker.region_searches == 0
    assert all(a is b for a, b in zip(again, first))
    # one marker's region darkened by a shadow: that one searched again, the others given back
    m = first[0]
    x0, y0 = np.floor(m.corners.min(axis=0)).astype(int) - 8
    x1, y1 = np.ceil(m.corners.max(axis=0)).astype(int) + 8
    shaded = gray.copy()
    shaded[y0:y1, x0:x1] = (shaded[y0:y1, x0:x1] * 0.8).astype(np.uint8)
    tracker.find(exposure(shaded))
    assert tracker.region_searches == 1 and tracker.region_kept == 3 * len(first) - 1
    # the camera moved by two pixels: every marker searched again, found where it now lies
    moved = np.roll(gray, 2, axis=1)
    before = tracker.region_searches
    found = {mk.id: mk.corners for mk in tracker.find(moved)}
    assert tracker.region_searches - before == len(first) or tracker.full_searches == 2
    for mk in first:
        assert np.abs(found[mk.id] - (mk.corners + [2.0, 0.0])).max() < 1.0


def test_charts_are_located_by_their_markers() -> None:
    scene = render_scene(np.random.default_rng(8), seats=[0, 2, 3], settings=CALM, placements=[])
    markers = find_markers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), CFG)
    charts = locate_charts(markers, mat_homography(markers, CFG), CFG)
    assert sorted(charts) == [0, 2, 3]
    for seat in (0, 2, 3):
        cx, cy, ang = chart_pose(seat)
        centre = charts[seat].chart_to_table @ np.array([140.0, 95.0, 1.0])
        assert math.hypot(centre[0] - cx, centre[1] - cy) < 3.0
        assert (charts[seat].angle - ang + 180) % 360 - 180 == pytest.approx(0, abs=2.0)


_GAP = CARD.width + 0.3
_CROWDED = [
    Placement("clowns-L3", -150, -60, 0),  # three cards touching edge to edge
    Placement("clowns-D4", -150 + _GAP, -60, 0),
    Placement("sideshow-P", -150 + 2 * _GAP, -60, 0),
    Placement("animals-D6", 650, 420, 37),  # rotated
    Placement("performers-L2", 560, 420, 180),  # upside down
    Placement("animals-L1", 120, 90, 3, visible=False),  # a pile: only the top card shows
    Placement("animals-L2", 121, 92, -2, visible=False),
    Placement("animals-L3", 122, 90, 1),
    Placement("token-10", -100, 420, 20),
    Placement("token-back", -100 + 30.5, 420, 0),  # touching tokens
]


def test_touching_rotated_upside_down_and_piled_cards_are_separate_quads() -> None:
    placements = _CROWDED
    scene = render_scene(np.random.default_rng(9), seats=[0], settings=CALM, placements=placements)
    dets, rect = _detect(scene.image)
    found = [(d.kind, rect.to_table(*d.centre), d) for d in dets]
    for p in placements:
        near = [f for f in found if math.hypot(f[1][0] - p.x, f[1][1] - p.y) < 4.0]
        if not p.visible:
            continue
        assert len(near) == 1, p
        kind = Kind.TOKEN if p.label.startswith("token") else Kind.CARD
        assert near[0][0] is kind
        if kind is Kind.CARD:
            w, h = (np.linalg.norm(near[0][2].corners[1] - near[0][2].corners[0]),
                    np.linalg.norm(near[0][2].corners[2] - near[0][2].corners[1]))
            assert w < h
    assert len(dets) == sum(p.visible for p in placements)
    crops = warp_crops(rect.image, dets, CFG)
    assert crops.shape == (len(dets), 56, 40, 3)


def test_the_closed_mask_alone_finds_what_both_masks_find() -> None:
    """Big Top searches only the dark mask with its one-pixel gaps closed (one contour pass, not two): on a
    crowded table, and with a frame line broken in several places, it finds every component that searching
    the mask as it is too finds, each where that search puts it."""
    assert CFG.gap_closing and not CFG.unclosed_pass
    both = replace(CFG, unclosed_pass=True)
    scene = render_scene(np.random.default_rng(9), seats=[0], settings=CALM, placements=_CROWDED)
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    rect = rectify(gray, mat_homography(find_markers(gray, CFG), CFG), CFG)
    img, (cx, cy) = _table_with("animals-D6", -15.0, 60, seed=3)
    s = CFG.px_per_mm
    for dx, dy in ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0)):  # gaps of a pixel or two in three sides of the frame
        _rub_out(img, cx + dx * (CARD.width - 2 * CARD.margin - CARD.frame) / 2 * s,
                 cy + dy * (CARD.height - 2 * CARD.margin - CARD.frame) / 2 * s, r=1)
    # the token whose value closing joins to its ring: its field is a crescent in the closed mask
    g = _Geometry(CFG)
    mask = dark_mask(rect.image, CFG)
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    token = (np.array((-100.0, 420.0)) - np.array(rect.origin)) * rect.px_per_mm

    def tokens_there(unclosed: np.ndarray | None) -> int:
        holes, _ = _holes_and_frames(rect.image, closed, g, True, unclosed)
        return sum(d.kind is Kind.TOKEN and math.dist(d.centre, token) < 3.0 for d in holes)

    assert (tokens_there(None), tokens_there(mask)) == (0, 1)
    for image in (rect.image, img):
        one, two = find_components(image, CFG), find_components(image, both)
        assert one and len(one) == len(two)
        for d in two:
            near = [e for e in one if math.hypot(e.centre[0] - d.centre[0], e.centre[1] - d.centre[1]) < 1.5]
            assert len(near) == 1 and near[0].kind is d.kind
    # the mask as it is searched as well unless told otherwise: another game's pipeline is unchanged
    assert VisionConfig(CFG.table).unclosed_pass


def test_frame_without_mat_reports_markers_seen() -> None:
    scene = render_scene(np.random.default_rng(10), seats=[0, 1], settings=CALM, placements=[], with_mat=False)
    with pytest.raises(NoMatError) as err:
        mat_homography(find_markers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), CFG), CFG)
    assert err.value.markers_seen == 0
    assert "0 of its 6 markers" in str(err.value)


def _table_with(label: str, angle: float, background: int, seed: int = 0) -> tuple[np.ndarray, tuple[float, float]]:
    """A rectified-resolution grey image of one component on a plain table, lightly blurred and noisy."""
    from vision.bigtop import DEFAULT_CONFIG
    from vision.bigtop.faces import render_label

    s = DEFAULT_CONFIG.px_per_mm
    img, alpha = render_label(label, 4 * s)
    img = cv2.resize(img, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    size = 260
    canvas = np.full((size, size), float(background), np.float32)
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (size / 2 - w / 2, size / 2 - h / 2)
    grey = cv2.warpAffine(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), m, (size, size))
    a = cv2.warpAffine(alpha.astype(np.float32) / 255, m, (size, size))
    canvas = canvas * (1 - a) + grey * a
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.8) + np.random.default_rng(seed).normal(0, 1.5, canvas.shape)
    return np.clip(canvas, 0, 255).astype(np.uint8), (size / 2, size / 2)


def _rub_out(img: np.ndarray, x: float, y: float, r: int = 2) -> None:
    """Paint a small patch of the local bright level over the frame line: a gap in it."""
    x0, y0 = int(round(x)) - r, int(round(y)) - r
    patch = img[y0 - 4:y0 + 2 * r + 5, x0 - 4:x0 + 2 * r + 5]
    img[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1] = int(np.percentile(patch, 90))


@pytest.mark.parametrize("background", [40, 150])
def test_card_with_a_gap_in_its_frame_line_is_found_where_it_lies(background: int) -> None:
    from vision.bigtop import DEFAULT_CONFIG

    img, (cx, cy) = _table_with("clowns-D4", 25.0, background)
    clean = find_components(img, CFG)
    assert [d.kind for d in clean] == [Kind.CARD]
    # break the frame line on both long sides: the field is no longer a closed hole
    s = DEFAULT_CONFIG.px_per_mm
    a = math.radians(25.0)
    across = (CARD.width - 2 * CARD.margin - CARD.frame) / 2 * s
    for side in (-1, 1):
        _rub_out(img, cx + side * across * math.cos(a), cy - side * across * math.sin(a))
    found = find_components(img, CFG)
    assert len(found) == 1 and found[0].kind is Kind.CARD
    assert math.hypot(found[0].centre[0] - clean[0].centre[0], found[0].centre[1] - clean[0].centre[1]) < 1.5
    assert np.abs(found[0].corners - clean[0].corners).max() < 2.5


def test_marker_outlines_hide_nothing_but_markers() -> None:
    scene = render_scene(np.random.default_rng(11), seats=[0, 4], settings=CALM,
                         placements=[Placement("token-10", -100, 420, 0), Placement("back", 620, 420, 10)])
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    markers = find_markers(gray, CFG)
    rect = rectify(gray, mat_homography(markers, CFG), CFG)
    outlines = marker_outlines(markers, rect, CFG)
    assert len(outlines) == len([m for m in markers if _layout(m.id)])
    dets = find_components(rect.image, CFG, exclude=outlines)
    centres = sorted(rect.to_table(*d.centre) for d in dets)
    assert len(dets) == 2
    assert math.hypot(centres[0][0] + 100, centres[0][1] - 420) < 3
    assert math.hypot(centres[1][0] - 620, centres[1][1] - 420) < 3


def test_a_detection_inside_a_card_is_found_as_when_each_card_is_looked_up_by_identity() -> None:
    rng = np.random.default_rng(2)
    dets = []
    for _ in range(30):
        cx, cy = rng.uniform(0, 300, 2)
        if rng.random() < 0.6:
            corners = np.array([[cx - 20, cy - 30], [cx + 20, cy - 30], [cx + 20, cy + 30], [cx - 20, cy + 30]])
            dets.append(Detection(Kind.CARD, corners, (float(cx), float(cy)), 0.0))
        else:
            dets.append(Detection(Kind.TOKEN, np.zeros((4, 2)), (float(cx), float(cy)), 0.0))
    dets.append(dets[0])  # the same card twice is not inside itself either
    cards = [d for d in dets if d.kind is Kind.CARD]
    corners = np.stack([d.corners for d in cards])
    ax, ay = corners[:, 1] - corners[:, 0], corners[:, 3] - corners[:, 0]
    v = np.array([d.centre for d in dets])[:, None, :] - corners[None, :, 0]
    u = np.sum(v * ax[None], axis=2) / np.sum(ax * ax, axis=1)[None]
    w = np.sum(v * ay[None], axis=2) / np.sum(ay * ay, axis=1)[None]
    want = (u > 0) & (u < 1) & (w > 0) & (w < 1)
    for j, d in enumerate(cards):
        want[[i for i, e in enumerate(dets) if e is d], j] = False
    got = _inside_cards(dets)
    assert np.array_equal(got, want.any(axis=1))
    assert got.any() and not got.all()
