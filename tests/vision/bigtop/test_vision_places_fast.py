"""The places' fast paths (`vision.bigtop.places`) give exactly what the plain computations give."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from scorer.bigtop.cards import Card, Suit
from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop import places as pl
from vision.bigtop.faces import render_card
from vision.bigtop.layout import MAT, Pile
from vision.calibrate import ChartPose, Rectified


def _rect(image: NDArray[Any]) -> Rectified:
    x0, y0, _, _ = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    return Rectified(image, t, s)


def _table_image(rng: np.random.Generator) -> NDArray[Any]:
    """A rectified grey table: shaded noise, a few card-like outlines and a saturated glare spot."""
    x0, y0, x1, y1 = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    h, w = int(round((y1 - y0) * s)), int(round((x1 - x0) * s))
    img = np.clip(rng.normal(150, 25, (h, w)), 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    for _ in range(12):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = cv2.boxPoints(((cx, cy), (58, 95), rng.uniform(0, 180)))
        cv2.polylines(img, [np.round(box).astype(np.int32)], True, 30, 2)
    cv2.circle(img, (w // 2, h // 2), 70, 255, -1)
    return img


def _fit_scores_one_by_one(img: NDArray[Any], rot: NDArray[Any], s: float, centre: NDArray[Any],
                           shifts: NDArray[Any]) -> NDArray[Any]:
    """`places._fit_scores` for one turn, each moved point rounded and clipped on its own."""
    h, w = img.shape
    out = []
    for band in (pl._RIM, pl._FRAME):
        pts = band @ rot.T * s + centre
        p = np.rint(pts[None] + shifts[:, None]).astype(np.int64)
        out.append(img[np.clip(p[..., 1], 0, h - 1), np.clip(p[..., 0], 0, w - 1)].mean(axis=1))
    scores: NDArray[Any] = (out[0] - out[1]) / (out[0] + 4.0)
    return scores


@pytest.mark.parametrize("seed", range(4))
def test_card_fit_scores_match_rounding_each_moved_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = DEFAULT_CONFIG.px_per_mm
    img = cv2.blur(rng.integers(0, 256, (150, 130), dtype=np.uint8), (3, 3)).astype(np.float32)
    rots = [pl._rot(float(a)) for a in rng.uniform(-180, 180, 5)]
    grid = np.array([(dx, dy) for dy in range(-6, 7, 2) for dx in range(-6, 7, 2)], np.float64)
    for centre, shifts in ((np.array([65.3, 75.1]) + rng.uniform(-2, 2, 2), grid),  # inside: the fast path
                           (np.array([20.0, 30.0]), grid),  # off the image: rounded and clipped point by point
                           (np.array([65.0, 75.0]), grid + 0.25)):  # shifts not whole pixels
        got = pl._fit_scores(img, rots, s, centre, shifts)
        want = np.stack([_fit_scores_one_by_one(img, r, s, centre, shifts) for r in rots])
        assert got.shape == want.shape
        assert np.array_equal(got, want)


def test_shifted_pixels_are_the_moved_points_rounded() -> None:
    rng = np.random.default_rng(7)
    pts = rng.uniform(20, 80, (50, 2))
    shifts = np.array([(dx, dy) for dy in range(-3, 4) for dx in range(-3, 4)], np.float64)
    at = pl._shifted_pixels(pts, shifts, 100, 90)
    assert at is not None
    p = np.rint(pts[None] + shifts[:, None]).astype(np.int64)
    assert np.array_equal(at, p[..., 1] * 100 + p[..., 0])
    half = pts.copy()
    half[0] = (40.5, 41.0)  # a point on a half pixel: rounding it moved may differ, so no fast path
    assert pl._shifted_pixels(half, shifts, 100, 90) is None
    assert pl._shifted_pixels(pts, shifts, 60, 90) is None  # moved points fall off the image


def _print_match_afresh(image: NDArray[Any], rect: Rectified, place: pl.LayoutPlace) -> float:
    """`places.print_match` with the clean print's band made afresh."""
    s = rect.px_per_mm
    r = pl._place_rect(place)
    half = pl._TEXT_HALF_MM[place.zone.area]
    pad = pl.PRINT_SHIFT_MM
    bx0, bx1 = r.x + pl._BORDER_MM, r.x + r.w - pl._BORDER_MM
    by0, by1 = r.y + r.h / 2 - half, r.y + r.h / 2 + half
    sigma = pl.SHADING_MM * s
    margin = pad + 2 * pl.SHADING_MM
    wx0, wy0 = bx0 - margin, by0 - margin
    size = (int(round((bx1 - bx0 + 2 * margin) * s)), int(round((by1 - by0 + 2 * margin) * s)))
    rot = place.rotation
    shift = ((np.array(place.centre) - np.array(rect.origin)) - rot @ (np.array(place.sheet_centre) - (wx0, wy0))) * s
    m = np.hstack([rot, shift[:, None]]).astype(np.float64)
    corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float64) @ rot.T + shift
    h, w = image.shape[:2]
    if corners.min() < 0 or corners[:, 0].max() > w - 1 or corners[:, 1].max() > h - 1:
        return -1.0
    seen = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP).astype(np.float32)
    edge = int(np.ceil(margin * s))
    sheet = cv2.copyMakeBorder(pl._sheet_grey(place.sheet, s), edge, edge, edge, edge, cv2.BORDER_REPLICATE)
    ox, oy = int(round(wx0 * s)) + edge, int(round(wy0 * s)) + edge
    clean = sheet[oy:oy + size[1], ox:ox + size[0]]
    fine_seen = cv2.GaussianBlur(seen, (0, 0), pl.PRINT_BLUR_PX) - cv2.GaussianBlur(seen, (0, 0), sigma)
    fine_clean = cv2.GaussianBlur(clean, (0, 0), pl.PRINT_BLUR_PX) - cv2.GaussianBlur(clean, (0, 0), sigma)
    k = int(round(margin * s))
    p = int(round(pad * s))
    tpl = fine_clean[k:size[1] - k, k:size[0] - k]
    area = fine_seen[k - p:size[1] - k + p, k - p:size[0] - k + p]
    if tpl.size < 20 or float(tpl.std()) < 1e-3:
        return -1.0
    match = float(cv2.matchTemplate(area, tpl, cv2.TM_CCOEFF_NORMED).max())
    glare = (seen[k - p:size[1] - k + p, k - p:size[0] - k + p] >= pl.GLARE_LEVEL).astype(np.uint8)
    if not glare.any():
        return match
    r = max(1, int(round(pl.BESIDE_GLARE_MM * s)))
    near = cv2.dilate(glare, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    return max(match, pl._match_away(area, tpl, (1 - near).astype(np.float32)))


def test_print_match_with_the_clean_band_kept_matches_it_made_afresh() -> None:
    image = _table_image(np.random.default_rng(3))
    rect = _rect(image)
    for place in pl.layout_places({}):
        assert pl.print_match(image, rect, place) == _print_match_afresh(image, rect, place)
        assert pl.print_match(image, rect, place) == _print_match_afresh(image, rect, place)  # kept


def test_a_places_plainness_tested_once_matches_each_test_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    image = _table_image(np.random.default_rng(5))
    rect = _rect(image)
    places = pl.layout_places({})
    want = []
    washed_tested = 0
    for place in places:
        printed = (pl.looks_plain(image, rect, place.plain_mm, place.text_mm)
                   and pl.print_shows(image, rect, place, *pl.place_features(image, rect, place.plain_mm,
                                                                            place.text_mm)))
        want.append(printed or pl.looks_washed(image, rect, place) or pl.plain_beside_glare(image, rect, place))
        detail, _ = pl.place_features(image, rect, place.plain_mm)
        if detail < pl.PLAIN_CONTRAST:
            washed_tested += 1
            assert pl.looks_washed(image, rect, place, detail) == pl.looks_washed(image, rect, place)
    assert washed_tested  # the glare spot makes some places plain enough for the whole glare test
    measured = []
    features = pl.place_features
    monkeypatch.setattr(pl, "place_features", lambda *a: measured.append(1) or features(*a))
    memory = pl.PlaceMemory()
    assert [memory._looks_plain(rect, place) for place in places] == want
    assert len(measured) == len(places)  # one measure of fine detail for both tests of each place


@pytest.mark.parametrize("seed", range(3))
def test_the_spread_and_median_of_fine_detail_are_numpys_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (*range(1, 40), *rng.integers(40, 6000, 60).tolist()):
        for values in (rng.normal(0, 6, n).astype(np.float32),  # fine detail
                       rng.integers(0, 256, n).astype(np.float32),  # grey levels, many alike
                       (rng.integers(-3, 4, n) * 0.37).astype(np.float32)):  # ties at the percentiles
            lo, hi = np.percentile(values, [3, 97])
            assert pl._percentiles(values) == (float(lo), float(hi))
            assert pl._median(values) == float(np.median(values))
        grey = rng.integers(0, 256, n).astype(np.uint8)
        assert pl._median_grey(grey) == float(np.median(grey.astype(np.float32)))


@pytest.mark.parametrize("seed", range(3))
def test_a_places_fine_detail_is_numpys_percentiles_over_the_median_grey(seed: int) -> None:
    rng = np.random.default_rng(seed)
    patch = cv2.GaussianBlur(rng.integers(0, 256, (90, 120), dtype=np.uint8), (0, 0), 1.2)
    fine = rng.normal(0, 4, (90, 120)).astype(np.float32)
    for _ in range(10):
        c, a = rng.uniform(30, 80, 2), rng.uniform(0, np.pi)
        polys = [np.array([c + np.array([np.cos(a + k), np.sin(a + k)]) * rng.uniform(8, 40) for k in (0, 1.6, 3.1, 4.7)])
                 for _ in range(2)]
        mask = np.zeros(patch.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(p).astype(np.int32) for p in polys], 1)
        inside = mask.astype(bool)
        lo, hi = np.percentile(fine[inside], [3, 97])
        want = float(hi - lo) / max(float(np.median(patch[inside].astype(np.float32))), 8.0)
        assert pl._detail(fine, patch, polys) == want


def _features_by_numpy(image: NDArray[Any], rect: Rectified, place: pl.LayoutPlace) -> tuple[float, float]:
    """`pl.place_features` written out with ``np.percentile`` and ``np.median`` over the pixels under each mask."""
    org = np.array(rect.origin)
    pts = [(p - org) * rect.px_per_mm for p in place.plain_mm]
    text = [(p - org) * rect.px_per_mm for p in place.text_mm]
    x0, y0, x1, y1 = pl._patch_box(image, rect, pts + text)
    grey = image[y0:y1, x0:x1]
    patch = grey.astype(np.float32)
    fine = cv2.GaussianBlur(patch, (0, 0), 1.0) - cv2.GaussianBlur(patch, (0, 0), pl.SHADING_MM * rect.px_per_mm)
    out = []
    for polys in (pts, text):
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(p - (x0, y0)).astype(np.int32) for p in polys], 1)
        inside = mask.astype(bool)
        if np.count_nonzero(inside) < 20:
            out.append(float("inf"))
            continue
        lo, hi = np.percentile(fine[inside], [3, 97])
        out.append(float(hi - lo) / max(float(np.median(grey[inside].astype(np.float32))), 8.0))
    return out[0], out[1]


@pytest.mark.parametrize("seed", range(2))
def test_every_places_fine_detail_on_a_table_is_numpys_bit_for_bit(seed: int) -> None:
    image = _table_image(np.random.default_rng(10 + seed))
    rect = _rect(image)
    places = pl.layout_places({})
    for place in places:
        assert pl.place_features(image, rect, place.plain_mm, place.text_mm) == _features_by_numpy(image, rect, place)
    # a place half off the image: its patch is cut at the image's edge
    cut = image[:, : image.shape[1] // 2 + 40]
    got = [pl.place_features(cut, rect, place.plain_mm, place.text_mm) for place in places]
    assert got == [_features_by_numpy(cut, rect, place) if np.isfinite(g[0]) else g for place, g in zip(places, got)]
    assert any(np.isfinite(g[0]) for g in got)


def test_the_names_band_is_measured_only_below_the_detail_asked() -> None:
    image = _table_image(np.random.default_rng(6))
    rect = _rect(image)
    above = below = 0
    for place in pl.layout_places({}):
        detail, text = pl.place_features(image, rect, place.plain_mm, place.text_mm)
        got = pl.place_features(image, rect, place.plain_mm, place.text_mm, pl.PLAIN_CONTRAST)
        if detail < pl.PLAIN_CONTRAST:
            below += 1
            assert got == (detail, text)
        else:
            above += 1
            assert got == (detail, float("inf"))
            assert not pl._plain(*got)
    assert above and below


_SLOT = (Suit.ANIMALS, Pile.DARK)


def _printed_mat(card: str | None) -> NDArray[Any]:
    """The clean printed mat on a dark table, rectified (`DEFAULT_CONFIG`), grey, with ``card`` on the Animals
    dark pile."""
    x0, y0, x1, y1 = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    img = np.full((int(round((y1 - y0) * s)), int(round((x1 - x0) * s))), 60.0, np.float32)
    mat = pl._sheet_grey(-1, s)
    oy, ox = int(round(-y0 * s)), int(round(-x0 * s))
    img[oy:oy + mat.shape[0], ox:ox + mat.shape[1]] = mat
    if card is not None:
        face, alpha = render_card(Card.parse(card), s)
        grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
        a = alpha.astype(np.float32) / 255.0
        cx, cy = MAT.slot(*_SLOT).centre
        top = int(round((cy - y0) * s - grey.shape[0] / 2))
        left = int(round((cx - x0) * s - grey.shape[1] / 2))
        part = img[top:top + grey.shape[0], left:left + grey.shape[1]]
        part[...] = part * (1 - a) + grey * a
    return img


def _glare_at(image: NDArray[Any], fx: float, fy: float, radius_mm: float, blur_px: float) -> NDArray[Any]:
    """``image`` with a small glare spot (peak 1.5 in linear light, none for ``radius_mm`` 0) centred at ``fx, fy``
    of the dark pile's place from its middle, then blurred as a camera blurs and noisy: the spot's saturated middle
    has a sharp clipped edge."""
    x0, y0, _, _ = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    r = MAT.slot(*_SLOT)
    centre = (int(round((r.x + r.w * (0.5 + fx) - x0) * s)), int(round((r.y + r.h * (0.5 + fy) - y0) * s)))
    spot = np.zeros(image.shape, np.float32)
    if radius_mm > 0:
        cv2.circle(spot, centre, int(round(radius_mm * s)), 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (0, 0), 0.2 * radius_mm * s)
    lin = cv2.GaussianBlur(0.8 * (image / 255.0) ** 2.2 + 1.5 * spot, (0, 0), blur_px)
    lin += np.random.default_rng(3).normal(0.0, 0.01, lin.shape) * np.sqrt(np.clip(lin, 0.0, 1.0))
    return np.clip(255.0 * np.clip(lin, 0.0, 1.0) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def _dark_pile() -> pl.LayoutPlace:
    return next(p for p in pl.layout_places({}) if (p.zone.suit, p.zone.pile) == _SLOT)


@pytest.mark.parametrize("fx, fy", [(0.3, 0.35), (-0.3, 0.35), (0.3, -0.35), (-0.3, -0.35)])
def test_an_empty_pile_beside_a_small_glare_spot_is_plain(fx: float, fy: float) -> None:
    place = _dark_pile()
    clean = _glare_at(_printed_mat(None), fx, fy, 0.0, 1.0)
    assert pl.looks_plain(clean, _rect(clean), place.plain_mm, place.text_mm)  # the print alone is plain
    image = _glare_at(_printed_mat(None), fx, fy, 10.0, 1.0)
    rect = _rect(image)
    # the spot's clipped edge is fine detail: the place was neither plain nor washed out
    assert not pl.looks_plain(image, rect, place.plain_mm, place.text_mm)
    assert not pl.looks_washed(image, rect, place)
    assert pl.plain_beside_glare(image, rect, place)
    assert pl.PlaceMemory()._looks_plain(rect, place)


@pytest.mark.parametrize("card", ["animals-D4", "animals-D1", "clowns-L6"])
@pytest.mark.parametrize("fx, fy, radius", [(0.3, 0.35, 10.0), (-0.3, -0.35, 15.0), (0.0, 0.0, 15.0), (0.0, 0.3, 25.0)])
def test_a_card_beside_a_glare_spot_is_never_plain(card: str, fx: float, fy: float, radius: float) -> None:
    place = _dark_pile()
    image = _glare_at(_printed_mat(card), fx, fy, radius, 1.0)
    rect = _rect(image)
    assert not pl.plain_beside_glare(image, rect, place)
    assert not pl.PlaceMemory()._looks_plain(rect, place)


def test_a_place_without_glare_is_not_judged_beside_it() -> None:
    image = _glare_at(_printed_mat(None), 0.0, 0.0, 0.0, 1.0)
    assert not pl.plain_beside_glare(image, _rect(image), _dark_pile())


def test_a_correlation_over_the_pixels_kept_is_opencvs_where_all_are_kept_and_leaves_out_the_rest() -> None:
    rng = np.random.default_rng(4)
    area = cv2.GaussianBlur(rng.normal(0, 10, (40, 90)).astype(np.float32), (0, 0), 1.0)
    tpl = area[5:33, 7:80].copy()
    kept = np.ones(area.shape, np.float32)
    assert pl._match_away(area, tpl, kept) == pytest.approx(
        float(cv2.matchTemplate(area, tpl, cv2.TM_CCOEFF_NORMED).max()), abs=1e-4)
    # a clipped glare spot's edge over a third of the template's place: what is left still matches it exactly
    spoilt = area.copy()
    spoilt[5:33, 50:80] = 200.0 * (np.arange(30) % 2)
    kept[5:33, 50:80] = 0.0
    assert float(cv2.matchTemplate(spoilt, tpl, cv2.TM_CCOEFF_NORMED).max()) < 0.5
    assert pl._match_away(spoilt, tpl, kept) == pytest.approx(1.0, abs=1e-4)
    # too little left to tell: no match
    kept[:, 30:] = 0.0
    assert pl._match_away(spoilt, tpl, kept) == -1.0


def test_an_empty_piles_name_beside_a_glare_spot_is_matched_away_from_the_spots_edge(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a small spot beside the name: its clipped edge's fine detail drags the whole band's correlation with the
    # clean print under `PRINT_SURE`, and the empty pile was held as unreadable
    place = _dark_pile()
    image = _glare_at(_printed_mat(None), 0.3, 0.0, 6.0, 1.0)
    rect = _rect(image)
    assert pl.print_match(image, rect, place) >= pl.PRINT_SURE[place.zone.area]
    assert pl.PlaceMemory()._looks_plain(rect, place)
    monkeypatch.setattr(pl, "_match_away", lambda *a: -1.0)  # the whole band only
    assert pl.print_match(image, rect, place) < pl.PRINT_MATCH[place.zone.area]
    assert not pl.PlaceMemory()._looks_plain(rect, place)


def _shifted(image: NDArray[Any]) -> Rectified:
    """The rectification moved by a few pixels: every place lies elsewhere in the image."""
    x0, y0, _, _ = DEFAULT_CONFIG.view_region_mm
    s = DEFAULT_CONFIG.px_per_mm
    return Rectified(image, np.array([[s, 0, -(x0 - 7.3) * s], [0, s, -(y0 + 4.1) * s], [0, 0, 1]], np.float64), s)


def _chart(seat: int, x: float, y: float, degrees: float) -> ChartPose:
    a = np.radians(degrees)
    m = np.array([[np.cos(a), -np.sin(a), x], [np.sin(a), np.cos(a), y], [0.0, 0.0, 1.0]])
    return ChartPose(seat, m, np.linalg.inv(m), 3)


def test_places_masks_and_name_windows_kept_give_what_they_give_made_afresh() -> None:
    image = _table_image(np.random.default_rng(12))
    rect = _rect(image)
    shifted = _shifted(image)
    charts = [{0: _chart(0, -150.0, 100.0, 90.0), 2: _chart(2, 650.0, 120.0, -87.0)},
              {0: _chart(0, -151.5, 102.0, 91.5), 2: _chart(2, 650.0, 120.0, -87.0)}]  # one chart moved
    tested = 0
    for poses in charts:
        places = pl.layout_places(poses)
        for r in (rect, shifted, rect):
            for place in places:
                for _ in range(2):  # the second from what the first kept
                    assert pl.place_features(image, r, place.plain_mm, place.text_mm) == _features_by_numpy(
                        image, r, place)
                    assert pl.print_match(image, r, place) == _print_match_afresh(image, r, place)
                tested += place.zone.area is not pl.Area.TABLEAU
    assert tested == 2 * 3 * 2 * 4  # two charts' four spaces


def _frame_evidence_afresh(image: NDArray[Any], rect: Rectified, place: pl.LayoutPlace) -> tuple[float, int]:
    """`_frame_evidence` as it was, sampling the clean print at every pose on every call."""
    poses = _pose_samples_afresh(image, rect, place, list(zip(pl._RIM_SIDES, pl._FRAME_SIDES, pl._INNER_SIDES)), True)
    if poses is None:
        return float("-inf"), 0
    evidence, fewest = float("-inf"), 4
    for per_side in poses:
        readable: NDArray[Any] | int = 0
        for seen, sampled in per_side:
            printed = [p.mean(axis=1) for p in sampled]
            usable = [b < pl.READABLE_LEVEL for b in seen]
            ok = np.all([u.mean(axis=1) >= 0.5 for u in usable], axis=0)
            rim, frame, inner = (np.where(u, b, 0).sum(axis=1) / np.maximum(u.sum(axis=1), 1)
                                 for b, u in zip(seen, usable))
            expected = (np.minimum(printed[0], printed[2]) - printed[1]) / (printed[0] + 4.0)
            contrast = (np.minimum(rim, inner) - frame) / (rim + 4.0) - np.maximum(expected, 0.0)
            if bool(ok.any()):
                evidence = max(evidence, float(contrast[ok].max()))
            readable = readable + ok.astype(np.int64)
        fewest = min(fewest, int(np.min(readable)))
    return evidence, fewest


def test_frame_evidence_from_the_print_made_once_gives_what_it_gives_made_afresh() -> None:
    pl._PRINTED_FRAMES.clear()
    pl.prepare_places(DEFAULT_CONFIG.px_per_mm)
    tableau = pl.layout_places({})[:len(pl._tableau_places())]
    assert len(pl._PRINTED_FRAMES) == len(tableau)
    rng = np.random.default_rng(16)
    image = _table_image(rng)
    # a glare spot over every other pile, bright enough to leave sides unreadable at some poses
    for place in tableau[::2]:
        c = (np.array(place.centre) - np.array(_rect(image).origin)) * DEFAULT_CONFIG.px_per_mm
        cv2.circle(image, (int(c[0]), int(c[1])), 40, 250, -1)
    rect = _rect(image)
    shifted = _shifted(image)
    charts = {0: _chart(0, -150.0, 100.0, 90.0), 2: _chart(2, 650.0, 120.0, -87.0), 3: _chart(3, 300.0, 40.0, 12.5)}
    answers = set()
    charted = set()
    for r in (rect, shifted):
        for place in pl.layout_places(charts):
            for _ in range(2):  # the second from what the first kept
                got = pl._frame_evidence(image, r, place)
                assert got == _frame_evidence_afresh(image, r, place)
                answers.add(got)
                if place.zone.area is not pl.Area.TABLEAU and got != (float("-inf"), 0):
                    charted.add(place.key)
    assert len(charted) >= 4 and len(pl._PRINTED_FRAMES) == len(tableau) + len(charted)  # once a chart space
    assert len(answers) > 10 and any(f == 0 for _, f in answers) and any(f == 4 for _, f in answers)


def test_print_samples_made_at_start_are_those_a_frame_makes() -> None:
    image = _table_image(np.random.default_rng(17))
    rect = _rect(image)
    charts = {1: _chart(1, -150.0, 100.0, 90.0), 4: _chart(4, 300.0, 40.0, -33.0)}
    s = DEFAULT_CONFIG.px_per_mm
    compared = 0
    for place in pl.layout_places(charts):
        pl._PRINTED_FRAMES.clear()
        if pl._frame_evidence(image, rect, place) == (float("-inf"), 0):
            continue
        in_frame = pl._PRINTED_FRAMES[pl._print_key(place, s)]
        pl._PRINTED_FRAMES.clear()
        at_start = pl._printed_frame(place, s)
        assert len(in_frame) == len(at_start) == len(pl.FIT_ANGLES)
        for a, b in zip(in_frame, at_start):
            assert len(a) == len(b) == 4
            assert all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in zip(a, b))
        compared += 1
    assert compared >= 14


def _pose_samples_afresh(image: NDArray[Any], rect: Rectified, place: pl.LayoutPlace, sides: Any,
                         with_print: bool) -> list[list[tuple[list[NDArray[Any]], list[NDArray[Any]]]]] | None:
    """`_pose_samples` as it was: every point moved, rounded and clipped, and the print sampled, on every call."""
    s = rect.px_per_mm
    centre = (np.array(place.centre) - np.array(rect.origin)) * s
    reach = float(np.hypot(pl.CARD.width, pl.CARD.height)) / 2 * s + pl.FIT_SHIFT_MM * s + 2
    h, w = image.shape[:2]
    if centre[0] - reach < 0 or centre[1] - reach < 0 or centre[0] + reach > w or centre[1] + reach > h:
        return None
    x0, y0 = int(centre[0] - reach), int(centre[1] - reach)
    roi = cv2.blur(image[y0:int(centre[1] + reach) + 1, x0:int(centre[0] + reach) + 1], (3, 3)).astype(np.float32)
    local = centre - (x0, y0)
    r = int(np.ceil(pl.FIT_SHIFT_MM * s))
    shifts = np.array([(dx, dy) for dy in range(-r, r + 1) for dx in range(-r, r + 1)], np.float64)
    rh, rw = roi.shape
    sheet = pl._sheet_grey(place.sheet, s)
    sh, sw = sheet.shape
    out = []
    for da in pl.FIT_ANGLES:
        rot = pl._rot(-da) @ place.rotation
        per_side = []
        for bands in sides:
            seen, printed = [], []
            for pts in bands:
                v = (pts @ rot.T * s)[None] + shifts[:, None]
                p = np.rint(v + local).astype(np.int64)
                seen.append(roi[np.clip(p[..., 1], 0, rh - 1), np.clip(p[..., 0], 0, rw - 1)])
                if with_print:
                    q = np.rint(v @ place.rotation + np.array(place.sheet_centre) * s).astype(np.int64)
                    printed.append(sheet[np.clip(q[..., 1], 0, sh - 1), np.clip(q[..., 0], 0, sw - 1)])
            per_side.append((seen, printed))
        out.append(per_side)
    return out


def _same_samples(a: list[list[tuple[list[NDArray[Any]], list[NDArray[Any]]]]],
                  b: list[list[tuple[list[NDArray[Any]], list[NDArray[Any]]]]]) -> bool:
    if len(a) != len(b):
        return False
    for pa, pb in zip(a, b):
        if len(pa) != len(pb):
            return False
        for (sa, qa), (sb, qb) in zip(pa, pb):
            if len(sa) != len(sb) or len(qa) != len(qb):
                return False
            if not all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
                       for x, y in zip(sa + qa, sb + qb)):
                return False
    return True


def test_pose_samples_from_a_plan_made_once_are_those_sampled_afresh() -> None:
    image = _table_image(np.random.default_rng(18))
    rect = _rect(image)
    shifted = _shifted(image)
    charts = {0: _chart(0, -150.0, 100.0, 90.0), 2: _chart(2, 650.0, 120.0, -87.0), 3: _chart(3, 300.0, 40.0, 12.5),
              5: _chart(5, 420.0, 610.0, 181.3)}
    pl._PLANS.clear()
    compared = 0
    for r in (rect, shifted):
        for place in pl.layout_places(charts):
            for sides in (pl._FRAME_BANDS, pl._PAIRED_SIDES):
                for with_print in (False, True, True, False):  # the later ones from the plan kept
                    want = _pose_samples_afresh(image, r, place, sides, with_print)
                    got = pl._pose_samples(image, r, place, sides, with_print)
                    assert (got is None) == (want is None)
                    if got is not None and want is not None:
                        assert _same_samples(list(got), want)
                        compared += 1
    assert compared >= 4 * 2 * (12 + 8)
    # the plans are kept: the next frame reads every place without making one again
    pl._PLANS.clear()
    for _ in range(2):
        for place in pl.layout_places({3: charts[3]}):
            for sides in (pl._FRAME_BANDS, pl._PAIRED_SIDES):
                assert pl._pose_samples(image, shifted, place, sides, True) is not None
        if len(pl._PLANS) == 2 * (12 + 4):
            kept = dict(pl._PLANS)
    assert pl._PLANS.keys() == kept.keys() and all(pl._PLANS[k][1] is kept[k][1] for k in kept)


def test_glare_evidence_from_kept_plans_is_what_it_was_afresh() -> None:
    image = _table_image(np.random.default_rng(19))
    rect = _rect(image)
    tableau = list(pl._tableau_places())
    for place in tableau[1::2]:
        c = (np.array(place.centre) - np.array(rect.origin)) * DEFAULT_CONFIG.px_per_mm
        cv2.circle(image, (int(c[0]), int(c[1])), 45, 252, -1)
    charts = {1: _chart(1, -150.0, 100.0, 90.0), 4: _chart(4, 300.0, 40.0, -33.0)}
    pl._PLANS.clear()
    pl._PRINTED_FRAMES.clear()
    answers = set()
    for place in pl.layout_places(charts):
        want = _frame_evidence_afresh(image, rect, place)
        for _ in range(2):
            assert pl._frame_evidence(image, rect, place) == want
        answers.add(want)
        for level in (pl.READABLE_LEVEL, pl.UNCLIPPED_LEVEL):
            first = pl._outline_evidence(image, rect, place, level)
            pl._PLANS.clear()
            assert pl._outline_evidence(image, rect, place, level) == first
    assert len(answers) > 8 and any(f == 0 for _, f in answers)
