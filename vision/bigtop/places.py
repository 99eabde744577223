"""The places the Big Top layout defines: read where they are, never read as empty when unreadable.

Once the mat and the charts are calibrated, the layout says exactly where each tableau
pile and each chart's called-card space is (`layout_places`). A place no detection
identified is tested for the plain print (`looks_plain`: no fine detail outside its
printed name, and the name legible, where the clean print has it, beyond what noise matches by chance:
`print_shows`), or for the print washed out by a glare spot
(`looks_washed`: bright all over, and no card's frame line on any side that the glare
leaves readable, wherever a card could lie), or for the plain print beside a glare spot over
part of it (`plain_beside_glare`: the fine detail measured away from the spot's saturated
middle, whose clipped edge is no card's); a place that is not plain is read from a crop
fitted where the layout puts it (`fit_card`: the card's rim and frame line searched a
few millimetres and degrees around the printed place), so a card the free detector
missed (glare, blur at the frame's edge, a dark corner) is still identified. A place
still unread and not plain is reported `Unrecognised` with reason ``UNREADABLE`` (the
card last identified there as the best guess, or none), so the referee holds instead of
reading the pile as empty: a hand, a glare spot or a mug over a place is never empty.
`PlaceMemory` keeps, per table, the card last identified on each place.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import Suit
from vision.bigtop.faces import render_chart, render_mat
from vision.bigtop.labels import Kind
from vision.bigtop.layout import CARD, CHART, MAT, MAX_SEATS, Pile, Rect, Space
from vision.bigtop.tableview import Area, Reason, TableView, Unrecognised, Zone
from vision.calibrate import ChartPose, Rectified
from vision.detect import Detection

__all__ = ["LayoutPlace", "PlaceMemory", "fit_card", "layout_places", "looks_plain", "looks_washed", "place_features",
           "plain_beside_glare", "prepare_places", "prepare_prints", "print_match", "print_shows"]

#: a plain place: its fine detail (the grey image less its smooth shading, 3rd to 97th percentile,
#: over the median grey) below this, ...
PLAIN_CONTRAST = 0.1
#: ... and the band of its printed text (the pile's or space's name) shows at least this much fine
#: detail, and this many times that of the rest of the place (sensor noise)
TEXT_CONTRAST = 0.03
TEXT_OVER_PLAIN = 1.0
#: the smooth shading (vignetting, a glare spot's falloff, a shadow) is the grey image blurred this much (mm)
SHADING_MM = 4.0
#: live frames: a place is tested again only when its thumbnail (this size, the card's square around the
#: place's centre) changed by more than this many grey levels somewhere
THUMB = (8, 8)
THUMB_SAME = 6
#: margins left out of the test (mm): the printed outline, and the band of printed text
_BORDER_MM = 6.0
_TEXT_HALF_MM = {Area.TABLEAU: 5.0, Area.CHART_SPACE: 13.0}


def _place_polygon(rect: Rect, area: Area) -> list[NDArray[Any]]:
    """The parts of a place (its own mm frame) that are tested: inside the border, above and below the text."""
    x0, x1 = rect.x + _BORDER_MM, rect.x + rect.w - _BORDER_MM
    y0, y1 = rect.y + _BORDER_MM, rect.y + rect.h - _BORDER_MM
    cy, half = rect.y + rect.h / 2, _TEXT_HALF_MM[area]
    return [np.array([[x0, y0], [x1, y0], [x1, cy - half], [x0, cy - half]], np.float64),
            np.array([[x0, cy + half], [x1, cy + half], [x1, y1], [x0, y1]], np.float64)]


def _text_band(rect: Rect, area: Area) -> list[NDArray[Any]]:
    """The band of a place's printed text (its own mm frame)."""
    x0, x1 = rect.x + _BORDER_MM, rect.x + rect.w - _BORDER_MM
    cy, half = rect.y + rect.h / 2, _TEXT_HALF_MM[area]
    return [np.array([[x0, cy - half], [x1, cy - half], [x1, cy + half], [x0, cy + half]], np.float64)]


def _detail(fine: NDArray[Any], patch: NDArray[Any], pts: Sequence[NDArray[Any]]) -> float:
    mask = np.zeros(patch.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(p).astype(np.int32) for p in pts], 1)
    return _detail_under(fine, patch, mask)


def _detail_under(fine: NDArray[Any], patch: NDArray[Any], mask: NDArray[Any]) -> float:
    """The spread of ``fine`` over the median grey of ``patch`` under ``mask`` (uint8, 0 and 1 only); infinity
    where fewer than 20 pixels are under it."""
    inside = mask.view(np.bool_)  # the mask holds 0 and 1 only
    values = fine[inside]
    if len(values) < 20:
        return float("inf")
    if patch.dtype == np.uint8:
        # the grey levels' counts straight from the patch under the mask, not from a copy of the pixels
        level = _median_of_counts(cv2.calcHist([patch], [0], mask, [256], [0, 256]).ravel().astype(np.int64))
    else:
        level = _median(patch[inside])
    lo, hi = _percentiles(values)
    return float(hi - lo) / max(level, 8.0)


def _median_grey(values: NDArray[Any]) -> float:
    """`_median` of uint8 grey levels, from their counts."""
    return _median_of_counts(np.bincount(values, minlength=256))


def _median_of_counts(counts: NDArray[Any]) -> float:
    """`_median` of grey levels given by their counts (``counts[v]``: how many are ``v``; at least one)."""
    cum = counts.cumsum()
    n = int(cum[-1])
    h = n // 2
    upper = int(np.searchsorted(cum, h, side="right"))
    if n % 2:
        return float(upper)
    return (int(np.searchsorted(cum, h - 1, side="right")) + upper) / 2


def _median(values: NDArray[Any]) -> float:
    """``float(np.median(values))`` of a 1-D array without NaN, bit for bit, without its overhead: the middle
    value, or the mean of the two middle values in the array's own type."""
    n = len(values)
    h = n // 2
    if n % 2:
        return float(np.partition(values, h)[h])
    part = np.partition(values, [h - 1, h])
    return float((part[h - 1] + part[h]) / 2)


#: the percentiles `_detail` spreads fine detail between, as fractions (as ``np.percentile`` takes them)
_SPREAD = tuple(float(q) for q in np.true_divide(np.array([3, 97]), 100))


def _percentiles(values: NDArray[Any]) -> tuple[float, float]:
    """``np.percentile(values, [3, 97])`` of a non-empty 1-D float32 array without NaN, bit for bit,
    without its overhead: numpy's linear interpolation between the two order statistics around each (the
    difference taken in float32, the interpolation in float64). The order statistics come from the values
    sorted: for a place's few thousand that is quicker than selecting the four (``np.partition``)."""
    n = len(values)
    at_lo, at_hi = (n - 1) * _SPREAD[0], (n - 1) * _SPREAD[1]
    i, j = math.floor(at_lo), math.floor(at_hi)
    order = np.sort(values)
    out = []
    for t, a, b in ((at_lo - i, order[i], order[min(i + 1, n - 1)]), (at_hi - j, order[j], order[min(j + 1, n - 1)])):
        diff = float(b - a)
        out.append(float(b) - diff * (1 - t) if t >= 0.5 else float(a) + diff * t)
    return out[0], out[1]


def place_features(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]],
                   text_mm: Sequence[NDArray[Any]] = (), text_below: float = math.inf) -> tuple[float, float]:
    """Fine detail of the rectified grey image inside table-mm polygons, and inside ``text_mm``.

    The image less its smooth shading (blurred by `SHADING_MM`): its 97th less its 3rd percentile,
    over the median grey, so light falling off across a place (vignetting, the edge of a glare spot)
    does not count. A place outside the image gives infinity; no ``text_mm`` gives 0 for it.
    ``text_below``: ``text_mm`` is measured only when the detail inside the polygons is below this (a test
    that asks for less detail there needs no more), else it gives infinity.
    """
    masks = _place_masks(image.shape[:2], rect, polygons_mm, text_mm)
    if masks is None:
        return (float("inf"), float("inf"))
    (x0, y0, x1, y1), plain_mask, text_mask = masks
    grey = image[y0:y1, x0:x1]
    patch = grey.astype(np.float32)
    fine = cv2.GaussianBlur(patch, (0, 0), 1.0) - cv2.GaussianBlur(patch, (0, 0), SHADING_MM * rect.px_per_mm)
    # the grey levels themselves where they are whole (uint8): their median is taken from their counts
    levels = grey if grey.dtype == np.uint8 else patch
    plain = _detail_under(fine, levels, plain_mask)
    if text_mask is None:
        return plain, 0.0
    return plain, (_detail_under(fine, levels, text_mask) if plain < text_below else float("inf"))


_Masks = tuple[tuple[int, int, int, int], NDArray[Any], NDArray[Any] | None]


def _place_masks(shape: tuple[int, ...], rect: Rectified, polygons_mm: Sequence[NDArray[Any]],
                 text_mm: Sequence[NDArray[Any]]) -> _Masks | None:
    """The part of an image of ``shape`` (``h, w``) that `place_features` filters (``x0, y0, x1, y1``), and the
    masks (uint8, 0 and 1, read only) of the polygons and of the text polygons in it (None: no text); None where
    that part is too small. The same for every frame of a layout's fixed place (the mat's piles), and for a chart
    place while the chart lies still: made once for its polygons, the rectification and the image size."""
    key = (tuple(shape), rect.origin, rect.px_per_mm, _arrays_key(polygons_mm), _arrays_key(text_mm))
    if key in _MASKS:
        return _MASKS[key]
    org = np.array(rect.origin)
    pts = [(p - org) * rect.px_per_mm for p in polygons_mm]
    text = [(p - org) * rect.px_per_mm for p in text_mm]
    x0, y0, x1, y1 = _patch_box_of(shape, rect.px_per_mm, pts + text)
    out: _Masks | None = None
    if x1 - x0 >= 4 and y1 - y0 >= 4:
        shift = np.array([x0, y0])
        plain = _mask((y1 - y0, x1 - x0), [p - shift for p in pts])
        out = ((x0, y0, x1, y1), plain, _mask((y1 - y0, x1 - x0), [p - shift for p in text]) if text else None)
    if len(_MASKS) >= _MASKS_KEPT:
        _MASKS.clear()
    _MASKS[key] = out
    return out


#: `_place_masks`' masks, by their polygons, rectification and image size
_MASKS: dict[tuple[Any, ...], _Masks | None] = {}
_MASKS_KEPT = 512


def _arrays_key(arrays: Sequence[NDArray[Any]]) -> tuple[tuple[tuple[int, ...], str, bytes], ...]:
    """Arrays exactly (shape, type and bytes), as a key."""
    return tuple((a.shape, a.dtype.str, a.tobytes()) for a in arrays)


def _mask(shape: tuple[int, int], pts: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """A uint8 mask of ``shape``: 1 inside the polygons ``pts`` (px, rounded), else 0 (read only)."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(p).astype(np.int32) for p in pts], 1)
    mask.flags.writeable = False
    return mask


def _patch_box(image: NDArray[Any], rect: Rectified, pts: Sequence[NDArray[Any]]) -> tuple[int, int, int, int]:
    """The part of ``image`` (``x0, y0, x1, y1``) that `place_features` filters for polygons ``pts`` (rectified px)."""
    return _patch_box_of(image.shape, rect.px_per_mm, pts)


def _patch_box_of(shape: tuple[int, ...], px_per_mm: float, pts: Sequence[NDArray[Any]]) -> tuple[int, int, int, int]:
    """`_patch_box` in an image of ``shape`` rectified at ``px_per_mm``."""
    allp = np.concatenate(pts)
    h, w = shape[:2]
    pad = int(np.ceil(2 * SHADING_MM * px_per_mm))
    x0, y0 = np.floor(allp.min(0)).astype(int) - pad
    x1, y1 = np.ceil(allp.max(0)).astype(int) + pad + 1
    return int(max(x0, 0)), int(max(y0, 0)), int(min(x1, w)), int(min(y1, h))


def looks_plain(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]],
                text_mm: Sequence[NDArray[Any]]) -> bool:
    """True when the place shows the plain print: plain outside its printed name, and the name legible.

    A hand or a glare spot over the whole place is plain too, but hides the printed name.
    """
    return _plain(*place_features(image, rect, polygons_mm, text_mm))


def _plain(detail: float, text: float) -> bool:
    """`looks_plain` from the place's `place_features`."""
    return detail < PLAIN_CONTRAST and text >= max(TEXT_CONTRAST, TEXT_OVER_PLAIN * detail)


#: a place washed out by glare: at least this share of its tested parts, or of its printed name's band, at or
#: over this grey level, ...
GLARE_LEVEL = 250
GLARE_SHARE = 0.3
#: ... the rest bright too (their 5th percentile at least this grey level: no card's face, no hand), ...
GLARE_FLOOR = 200
#: ... or at least this share of the paper's grey level around the place (`_paper_level`: a dim frame's bare
#: print is darker than `GLARE_FLOOR`; a card's face field or a hand is darker than the paper beside it)
PAPER_SHARE = 0.9
#: the paper around a place: a band this far (mm) beyond the farthest a card on it reaches, this wide
PAPER_GAP_MM = 4.0
PAPER_BAND_MM = 10.0
#: ... whose grey level is the `PAPER_QUANTILE` of its pixels below `GLARE_LEVEL` (some of the band may show
#: other cards, markers or the table), counted only where at least `PAPER_SEEN` of the band is in the image and
#: unsaturated
PAPER_QUANTILE = 75
PAPER_SEEN = 0.25
#: ... and at every pose a card could lie in (`FIT_SHIFT_MM`, `FIT_ANGLES`), at least this many of the
#: card's sides readable, none of which shows a frame line this much darker than both the rim and the
#: face beside it (relatively, beyond what the clean print shows there)
WASHED_SIDES = 1
WASHED_FRAME_CONTRAST = 0.03
#: a side is readable where half its rim, frame-line and face points are below this grey level: nearer
#: saturation a blurred frame line's contrast is squeezed to next to nothing
READABLE_LEVEL = 240
#: where some pose leaves no side readable (`_outline_evidence`): at every pose at least this many points of the
#: card's outline (1.5 mm apart) readable, each with its rim, frame-line and face point below `READABLE_LEVEL`,
#: counted on sides with at least `WASHED_RUN` such points (the frame line's contrast is measured over a side's
#: readable points together), and no such side may show a frame line (`WASHED_FRAME_CONTRAST`)
WASHED_POINTS = 6
WASHED_RUN = 6
#: where some pose leaves fewer than `WASHED_POINTS` such points, the outline is read again counting points below
#: this grey level readable: the camera adds glare and blurs in linear light before it clips, so an unclipped
#: pixel still shows a card's frame line at its full (blurred) contrast, only its tone curve flatter near white
UNCLIPPED_LEVEL = 250


@functools.lru_cache(maxsize=8)
def _sheet_grey(sheet: int, px_per_mm: float) -> NDArray[Any]:
    """The clean printed mat (``sheet`` -1) or seat ``sheet``'s chart, grey, at ``px_per_mm`` (as `fit_card` samples)."""
    img = render_mat(px_per_mm) if sheet < 0 else render_chart(sheet, px_per_mm)
    out: NDArray[Any] = cv2.blur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (3, 3)).astype(np.float32)
    return out


def prepare_prints(px_per_mm: float) -> None:
    """Render now the clean printed mat and every seat's chart at ``px_per_mm`` (the rectified scale) as the place
    tests compare them, so that the first frame that tests a place does not render them."""
    for sheet in range(-1, MAX_SEATS):
        _sheet_grey(sheet, px_per_mm)


def looks_washed(image: NDArray[Any], rect: Rectified, place: LayoutPlace, detail: float | None = None) -> bool:
    """True when a glare spot washed out the place's print and no card lies under it.

    The place must be plain (`place_features` below `PLAIN_CONTRAST`), in good part saturated, or its
    printed name in good part saturated (`GLARE_SHARE`: a streak of glare over the name), and bright
    everywhere else (`GLARE_FLOOR`); then for every pose a card may
    have on the place, the sides of its outline that the glare leaves readable (`READABLE_LEVEL`)
    are tested for its dark frame line between the white rim and the face: at every pose at least
    `WASHED_SIDES` must be readable, and none may show the frame line (`WASHED_FRAME_CONTRAST`).
    Where some pose leaves no whole side readable, the outline is read point by point instead
    (`_outline_evidence`): at every pose at least `WASHED_POINTS` of its points readable, and no side's
    readable points may show the frame line. A card whose whole outline the glare hides at some pose is
    never taken for an empty place.
    ``detail``: the place's `place_features` (its first value), when already known.
    """
    if detail is None:
        detail, _ = place_features(image, rect, place.plain_mm)
    if not detail < PLAIN_CONTRAST:
        return False
    org = np.array(rect.origin)
    s = rect.px_per_mm
    inside = _pixels_in(image, [(p - org) * s for p in place.plain_mm])
    if inside.size < 20:
        return False
    if float(np.mean(inside >= GLARE_LEVEL)) < GLARE_SHARE:
        # a streak of glare over the printed name hides it without covering much of the rest
        name = _pixels_in(image, [(p - org) * s for p in place.text_mm])
        if name.size < 20 or float(np.mean(name >= GLARE_LEVEL)) < GLARE_SHARE:
            return False
    floor = float(np.percentile(inside, 5))
    if floor < GLARE_FLOOR and not floor >= PAPER_SHARE * _paper_level(image, rect, place):
        return False
    evidence, readable = _frame_evidence(image, rect, place)
    if not evidence < WASHED_FRAME_CONTRAST:
        return False
    if readable >= WASHED_SIDES:
        return True
    # some pose leaves no whole side readable: look along the outline point by point
    evidence, points = _outline_evidence(image, rect, place)
    if points < WASHED_POINTS:
        # ... and nearer clipping where some pose hides all but a few of its points under the spot
        evidence, points = _outline_evidence(image, rect, place, UNCLIPPED_LEVEL)
    return evidence < WASHED_FRAME_CONTRAST and points >= WASHED_POINTS


#: `plain_beside_glare`: a glare spot's saturated middle (`GLARE_LEVEL`) and this far (mm) around it are left out of
#: the fine detail: clipping at white leaves a sharp edge there that the smooth shading does not take away; at least
#: `BESIDE_SEEN` of the place's tested parts must be left to measure
BESIDE_GLARE_MM = 3.0
BESIDE_SEEN = 0.5


def plain_beside_glare(image: NDArray[Any], rect: Rectified, place: LayoutPlace) -> bool:
    """True when a glare spot saturates part of the place and the rest shows the plain print: the fine detail of
    the place's tested parts farther than `BESIDE_GLARE_MM` from every saturated pixel (at least `BESIDE_SEEN` of
    them) below `PLAIN_CONTRAST`, its printed name legible (`TEXT_CONTRAST`, `TEXT_OVER_PLAIN` times that detail)
    and matching the clean print where printed (`print_match`), which no card on the place leaves showing."""
    org = np.array(rect.origin)
    pts = [(p - org) * rect.px_per_mm for p in place.plain_mm]
    text = [(p - org) * rect.px_per_mm for p in place.text_mm]
    x0, y0, x1, y1 = _patch_box(image, rect, pts + text)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    grey = image[y0:y1, x0:x1]
    glare = (grey >= GLARE_LEVEL).astype(np.uint8)
    shift = np.array([x0, y0])
    tested = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(tested, [np.round(p - shift).astype(np.int32) for p in pts], 1)
    tested_px = int(np.count_nonzero(tested))
    if not tested_px or not np.any(glare & tested):
        return False
    r = max(1, int(round(BESIDE_GLARE_MM * rect.px_per_mm)))
    near = cv2.dilate(glare, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    away = tested.astype(bool) & ~near.astype(bool)
    if int(np.count_nonzero(away)) < max(20, BESIDE_SEEN * tested_px):
        return False
    patch = grey.astype(np.float32)
    fine = cv2.GaussianBlur(patch, (0, 0), 1.0) - cv2.GaussianBlur(patch, (0, 0), SHADING_MM * rect.px_per_mm)
    levels = grey if grey.dtype == np.uint8 else patch
    detail = _detail_under(fine, levels, away.astype(np.uint8))
    text_detail = _detail(fine, levels, [p - shift for p in text])
    return _plain(detail, text_detail) and print_shows(image, rect, place, detail, text_detail)


def _pixels_in(image: NDArray[Any], polygons_px: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """The pixels of ``image`` inside the polygons (image px), flat; empty when they lie outside it."""
    polys = [np.round(p).astype(np.int32) for p in polygons_px]
    allp = np.concatenate(polys)
    x0, y0 = np.maximum(allp.min(axis=0), 0)
    x1, y1 = np.minimum(allp.max(axis=0) + 1, (image.shape[1], image.shape[0]))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return np.zeros(0, image.dtype)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [p - (x0, y0) for p in polys], 1)
    out: NDArray[Any] = image[y0:y1, x0:x1][mask.astype(bool)]
    return out


def _paper_level(image: NDArray[Any], rect: Rectified, place: LayoutPlace) -> float:
    """The grey level of the bare paper around ``place`` in the rectified grey ``image``: the `PAPER_QUANTILE`
    of the unsaturated pixels of a square band `PAPER_GAP_MM` beyond where a card on the place may reach,
    `PAPER_BAND_MM` wide; infinity when too little of the band is in the image and unsaturated."""
    s = rect.px_per_mm
    centre = (np.array(place.centre) - np.array(rect.origin)) * s
    inner = (float(np.hypot(CARD.width, CARD.height)) / 2 + FIT_SHIFT_MM + PAPER_GAP_MM) * s
    outer = inner + PAPER_BAND_MM * s
    h, w = image.shape[:2]
    x0, y0 = int(np.floor(centre[0] - outer)), int(np.floor(centre[1] - outer))
    x1, y1 = int(np.ceil(centre[0] + outer)) + 1, int(np.ceil(centre[1] + outer)) + 1
    win = image[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
    yy, xx = np.mgrid[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
    ring = np.maximum(np.abs(xx - centre[0]), np.abs(yy - centre[1])) >= inner
    total = int(np.count_nonzero(np.maximum(np.abs(np.mgrid[y0:y1, x0:x1][1] - centre[0]),
                                            np.abs(np.mgrid[y0:y1, x0:x1][0] - centre[1])) >= inner))
    values = win[ring & (win < GLARE_LEVEL)]
    if total == 0 or len(values) < PAPER_SEEN * total:
        return float("inf")
    return float(np.percentile(values, PAPER_QUANTILE))


#: the printed name must match the clean print's within this shift (mm): the calibration's error
PRINT_SHIFT_MM = 3.0
#: ... by at least this normalised correlation of their fine detail (a hand's or a card's edge across the
#: band shows fine detail too, but not the name where it is printed); a pile's name is small and faint, no
#: more than a dark smudge through the camera's blur, a chart space's value is large
PRINT_MATCH = {Area.TABLEAU: 0.5, Area.CHART_SPACE: 0.15}
#: ... and below `PRINT_SURE`, only where the name's band also shows at least `NAME_OVER_PLAIN` times the fine
#: detail of the rest of the place: an even surface with sensor noise over the place (an arm in shadow over a
#: chart space once read 0.184, its band 1.10 times the rest) matches the print by chance up to about 0.35 at
#: about the same detail in and out of the band; on 24 tuning tables (medium and hard) the empty chart spaces in
#: view matched from 0.348 (band 1.51 times the rest), 0.438 (1.39), and 0.86 at 1.12
PRINT_SURE = {Area.TABLEAU: 0.5, Area.CHART_SPACE: 0.5}
NAME_OVER_PLAIN = 1.25
#: ... and below `PRINT_TEXTURED`, only where the rest of the place shows less fine detail than `TEXTURED`: a
#: hand over a called card, its knuckles in the value's band, matched the value by chance at 0.238 with the band
#: 2.5 times as detailed as the rest; on 100 tuning tables (medium and hard) the rest of the four called cards a
#: hand or an arm covered that passed `PLAIN_CONTRAST` showed 0.077 to 0.089 and matched at most 0.238, that of
#: 1296 of 1303 empty chart spaces in view under 0.06, and the other seven matched from 0.465
PRINT_TEXTURED = {Area.TABLEAU: 0.5, Area.CHART_SPACE: 0.35}
TEXTURED = 0.06
#: both compared blurred this much (px): the camera's blur and the rectification's resampling
PRINT_BLUR_PX = 2.0


def print_match(image: NDArray[Any], rect: Rectified, place: LayoutPlace) -> float:
    """How well the band of ``place``'s printed name matches the clean print there: the best normalised
    correlation of their fine detail (blurred by `PRINT_BLUR_PX`, less the smooth shading as
    `place_features` takes it) within `PRINT_SHIFT_MM`; -1 when the band is not wholly in the image.

    Where a glare spot saturates part of the band's window (`GLARE_LEVEL`), the correlation is also taken over the
    pixels farther than `BESIDE_GLARE_MM` from every saturated one only (`_match_away`), and the better of the two
    counts: the spot's clipped edge is fine detail that is no part of the print (an empty pile beside a spot on
    tuning table 974000012, hard, matched its name at 0.468 over the whole band and 0.644 away from the edge)."""
    window = _print_window(place, rect, image.shape[:2])
    if window is None:
        return -1.0
    m, size, k, p, tpl = window
    s = rect.px_per_mm
    seen = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP).astype(np.float32)
    fine_seen = cv2.GaussianBlur(seen, (0, 0), PRINT_BLUR_PX) - cv2.GaussianBlur(seen, (0, 0), SHADING_MM * s)
    area = fine_seen[k - p:size[1] - k + p, k - p:size[0] - k + p]
    match = float(cv2.matchTemplate(area, tpl, cv2.TM_CCOEFF_NORMED).max())
    glare = (seen[k - p:size[1] - k + p, k - p:size[0] - k + p] >= GLARE_LEVEL).astype(np.uint8)
    if not glare.any():
        return match
    # clipping at white leaves sharp edges around a glare spot that the smooth shading does not take away
    grow = max(1, int(round(BESIDE_GLARE_MM * s)))
    near = cv2.dilate(glare, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    return max(match, _match_away(area, tpl, (1 - near).astype(np.float32)))


_Window = tuple[NDArray[Any], tuple[int, int], int, int, NDArray[Any]]


def _print_window(place: LayoutPlace, rect: Rectified, shape: tuple[int, ...]) -> _Window | None:
    """Where `print_match` reads ``place``'s printed name in a rectified image of ``shape`` (``h, w``): the
    window's sheet px -> rectified px map, its size, the margin `print_match` cuts off, the shift it searches
    (px) and the clean print's template; None when the window is not wholly in the image or the print shows
    nothing there. Made once for the place (the same object), the rectification and the image size."""
    key = (rect.origin, rect.px_per_mm, tuple(shape))
    kept = _WINDOWS.get(id(place))
    if kept is not None and kept[0] is place and kept[1] == key:
        return kept[2]
    s = rect.px_per_mm
    r = _place_rect(place)
    half = _TEXT_HALF_MM[place.zone.area]
    pad = PRINT_SHIFT_MM
    # the band and a margin around it, in the sheet's own mm frame
    bx0, bx1 = r.x + _BORDER_MM, r.x + r.w - _BORDER_MM
    by0, by1 = r.y + r.h / 2 - half, r.y + r.h / 2 + half
    margin = pad + 2 * SHADING_MM
    wx0, wy0 = bx0 - margin, by0 - margin
    size = (int(round((bx1 - bx0 + 2 * margin) * s)), int(round((by1 - by0 + 2 * margin) * s)))
    # sheet window px -> rectified px
    rot = place.rotation
    shift = ((np.array(place.centre) - np.array(rect.origin)) - rot @ (np.array(place.sheet_centre) - (wx0, wy0))) * s
    m = np.hstack([rot, shift[:, None]]).astype(np.float64)
    corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float64) @ rot.T + shift
    h, w = shape[:2]
    out: _Window | None = None
    if not (corners.min() < 0 or corners[:, 0].max() > w - 1 or corners[:, 1].max() > h - 1):
        edge = int(np.ceil(margin * s))
        ox, oy = int(round(wx0 * s)) + edge, int(round(wy0 * s)) + edge
        k = int(round(margin * s))
        tpl = _clean_band(place.sheet, s, edge, ox, oy, size, k)
        if tpl is not None:
            m.flags.writeable = False
            out = (m, size, k, int(round(pad * s)), tpl)
    if len(_WINDOWS) >= _MASKS_KEPT:
        _WINDOWS.clear()
    _WINDOWS[id(place)] = (place, key, out)
    return out


#: `_print_window`'s windows, by the place object (kept with it, so that its id is not another's)
_WINDOWS: dict[int, tuple[LayoutPlace, tuple[Any, ...], _Window | None]] = {}


def _match_away(area: NDArray[Any], tpl: NDArray[Any], kept: NDArray[Any]) -> float:
    """The best normalised correlation (as ``TM_CCOEFF_NORMED``) of ``tpl`` with ``area`` (float32) over the pixels
    ``kept`` (1, else 0; ``area``'s shape) only, each shift's means and norms taken over those; shifts that keep
    less than `BESIDE_SEEN` of the template's pixels count -1; -1 when none keeps that much."""
    t = tpl.astype(np.float32)
    ones = np.ones_like(t)

    def over(image: NDArray[Any], weights: NDArray[Any]) -> NDArray[Any]:
        out: NDArray[Any] = cv2.matchTemplate(image, weights, cv2.TM_CCORR).astype(np.float64)
        return out

    masked = area * kept
    n = over(kept, ones)
    s_a, s_t = over(masked, ones), over(kept, t)
    s_aa, s_tt, s_at = over(masked * area, ones), over(kept, t * t), over(masked, t)
    enough = n >= max(BESIDE_SEEN * t.size, 20)
    n = np.maximum(n, 1.0)
    cov = s_at - s_a * s_t / n
    var = np.maximum(s_aa - s_a * s_a / n, 0.0) * np.maximum(s_tt - s_t * s_t / n, 0.0)
    corr = np.where(enough & (var > 1e-12), cov / np.sqrt(np.maximum(var, 1e-12)), -1.0)
    return float(corr.max())


def print_shows(image: NDArray[Any], rect: Rectified, place: LayoutPlace, detail: float, text: float) -> bool:
    """True when ``place``'s printed name shows where it is printed: its band matches the clean print
    (`print_match`) by `PRINT_SURE`, or by `PRINT_MATCH` with the band's fine detail ``text`` at least
    `NAME_OVER_PLAIN` times the rest's ``detail`` (`place_features`) and that ``detail`` under `TEXTURED`, or
    by `PRINT_TEXTURED` with the band so detailed and the rest at `TEXTURED` or more."""
    area = place.zone.area
    need = PRINT_MATCH[area]
    if text < NAME_OVER_PLAIN * detail:
        need = max(need, PRINT_SURE[area])
    if detail >= TEXTURED:
        need = max(need, PRINT_TEXTURED[area])
    return print_match(image, rect, place) >= need


@functools.lru_cache(maxsize=256)
def _clean_band(sheet: int, s: float, edge: int, ox: int, oy: int, size: tuple[int, int],
                k: int) -> NDArray[Any] | None:
    """`print_match`'s template: the fine detail of the clean printed ``sheet`` (at ``s`` px/mm, its edges
    repeated ``edge`` px out) in the ``size`` window at ``ox, oy``, less ``k`` px on every side; None when
    it is too small or shows no print. The same for every frame: made once (read only)."""
    grey = cv2.copyMakeBorder(_sheet_grey(sheet, s), edge, edge, edge, edge, cv2.BORDER_REPLICATE)
    clean = grey[oy:oy + size[1], ox:ox + size[0]]
    fine = cv2.GaussianBlur(clean, (0, 0), PRINT_BLUR_PX) - cv2.GaussianBlur(clean, (0, 0), SHADING_MM * s)
    tpl: NDArray[Any] = fine[k:size[1] - k, k:size[0] - k]
    if tpl.size < 20 or float(tpl.std()) < 1e-3:
        return None
    tpl.flags.writeable = False
    return tpl


def _place_rect(place: LayoutPlace) -> Rect:
    """The place's printed rectangle on its own sheet (mm)."""
    z = place.zone
    if z.area is Area.TABLEAU and z.suit is not None and z.pile is not None:
        return MAT.slot(z.suit, z.pile)
    if z.space is not None:
        return CHART.space(z.space)
    raise ValueError(f"not a place: {z}")


def _pose_shifts(s: float) -> NDArray[Any]:
    """Every shift (px, at ``s`` px/mm) up to `FIT_SHIFT_MM` a card may lie off its place, row by row."""
    r = int(np.ceil(FIT_SHIFT_MM * s))
    return np.array([(dx, dy) for dy in range(-r, r + 1) for dx in range(-r, r + 1)], np.float64)


def _pose_samples(image: NDArray[Any], rect: Rectified, place: LayoutPlace,
                  sides: Sequence[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]], with_print: bool = True
                  ) -> Iterator[list[tuple[list[NDArray[Any]], list[NDArray[Any]]]]] | None:
    """For every pose a card may have on ``place`` (each of `FIT_ANGLES`, every shift up to `FIT_SHIFT_MM`), side by
    side of ``sides`` (rim, frame-line and face points, mm from the card's centre): their grey in ``image`` and at
    the same points on the clean printed sheet (none without ``with_print``), each (shifts, points); None when the
    place is not wholly in the image. Where each point falls in the image and what the print shows there are
    worked out once for the place, the rectification and the image size (`_sampling_plan`)."""
    plan = _sampling_plan(image.shape[:2], rect, place, sides, with_print)
    if plan is None:
        return None
    (y0, y1, x0, x1), offsets, at, printed = plan
    printed = printed if with_print else ()
    flat = cv2.blur(image[y0:y1, x0:x1], (3, 3)).astype(np.float32).ravel()

    def pixels(band: _Pixels) -> NDArray[Any]:
        base, where, value = band
        k = base[None] + offsets[:, None]
        if len(where):
            k.flat[where] = value
        out: NDArray[Any] = flat[k]
        return out

    def poses() -> Iterator[list[tuple[list[NDArray[Any]], list[NDArray[Any]]]]]:
        for i, per_side in enumerate(at):
            yield [([pixels(band) for band in bands], [p.astype(np.float32) for p in printed[i][j]] if printed else [])
                   for j, bands in enumerate(per_side)]

    return poses()


#: a band's pixels in `_sampling_plan`'s part of the image, flat: each point's where the card lies unshifted, and
#: (flat positions in the (shifts, points) array, index) the few whose shifted pixel is not that one moved by the shift
#: (a point within float error of a half pixel)
_Pixels = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]
#: `_sampling_plan`: the part of the image read (``y0, y1, x0, x1``), each shift's flat offset in it, each pose's
#: sides' bands' pixels, and what the clean print shows at each band's points (shifts, points; uint8: the print's
#: grey levels are whole) or nothing (without the print), by angle, side and band
_Plan = tuple[tuple[int, int, int, int], NDArray[Any], tuple[tuple[tuple[_Pixels, ...], ...], ...],
              tuple[tuple[tuple[NDArray[Any], ...], ...], ...]]


def _sampling_plan(shape: tuple[int, ...], rect: Rectified, place: LayoutPlace,
                   sides: Sequence[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]], with_print: bool) -> _Plan | None:
    """Where `_pose_samples` reads ``place`` in a rectified image of ``shape`` (``h, w``) and, ``with_print``, what the
    clean print shows at those points: the same for every frame of the mat's piles (and of a chart space while the
    chart lies still), so made once for the place's print and pose, the rectification, the image size and ``sides``
    (read only); None when the place is not wholly in the image."""
    s = rect.px_per_mm
    centre = (np.array(place.centre) - np.array(rect.origin)) * s
    h, w = shape[:2]
    key = (_print_key(place, s), centre.tobytes(), h, w, id(sides))
    kept = _PLANS.pop(key, None)
    if kept is not None and kept[0] is sides and (kept[1] is None or kept[1][3] or not with_print):
        _PLANS[key] = kept  # the most recently used last
        return kept[1]
    reach = float(np.hypot(CARD.width, CARD.height)) / 2 * s + FIT_SHIFT_MM * s + 2
    out: _Plan | None = None
    if not (centre[0] - reach < 0 or centre[1] - reach < 0 or centre[0] + reach > w or centre[1] + reach > h):
        x0, y0 = int(centre[0] - reach), int(centre[1] - reach)
        y1, x1 = int(centre[1] + reach) + 1, int(centre[0] + reach) + 1
        rh, rw = y1 - y0, x1 - x0
        local = centre - (x0, y0)
        shifts = _pose_shifts(s)
        offsets = (shifts[:, 1] * rw + shifts[:, 0]).astype(np.int64)
        still = int(np.flatnonzero((shifts == 0).all(axis=1))[0])
        at, printed = [], []
        for da in FIT_ANGLES:
            rot = _rot(-da) @ place.rotation
            at_sides, printed_sides = [], []
            for bands in sides:
                at_bands, printed_bands = [], []
                for pts in bands:
                    v = (pts @ rot.T * s)[None] + shifts[:, None]
                    p = np.rint(v + local).astype(np.int64)
                    k = np.clip(p[..., 1], 0, rh - 1) * rw + np.clip(p[..., 0], 0, rw - 1)
                    base = k[still]
                    where = np.flatnonzero(base[None] + offsets[:, None] != k)
                    base, where, value = _read_only([base, where, k.ravel()[where]])
                    at_bands.append((base, where, value))
                    if with_print:
                        grey = _printed_at(place, s, v)
                        whole = grey.astype(np.uint8)
                        printed_bands.append(_read_only([whole if np.array_equal(whole, grey) else grey])[0])
                at_sides.append(tuple(at_bands))
                printed_sides.append(tuple(printed_bands))
            at.append(tuple(at_sides))
            printed.append(tuple(printed_sides))
        out = ((y0, y1, x0, x1), _read_only([offsets])[0], tuple(at), tuple(printed) if with_print else ())
    while len(_PLANS) >= _PLANS_KEPT:
        # the least recently used chart space's: the mat's piles lie where they lay for every table
        spaces = [k for k in _PLANS if k[0][0] >= 0]
        del _PLANS[spaces[0] if spaces else next(iter(_PLANS))]
    _PLANS[key] = (sides, out)
    return out


#: `_sampling_plan`'s plans, by the place's print and pose, the rectification, the image size and the sides (kept
#: with the sides, so that their id is not another's), the least recently used first; a plan with the print about
#: 0.4 MB, without it about 10 KB
_PLANS: dict[tuple[Any, ...], tuple[Any, _Plan | None]] = {}
#: the mat's piles' two plans each and a few tables' chart spaces'
_PLANS_KEPT = 48


def _printed_at(place: LayoutPlace, s: float, v: NDArray[Any]) -> NDArray[Any]:
    """The grey of the clean printed sheet (at ``s`` px/mm) at the points ``v`` (px from ``place``'s centre,
    table frame), where `_pose_samples` reads the image."""
    sheet = _sheet_grey(place.sheet, s)
    sh, sw = sheet.shape
    q = np.rint(v @ place.rotation + np.array(place.sheet_centre) * s).astype(np.int64)
    out: NDArray[Any] = sheet[np.clip(q[..., 1], 0, sh - 1), np.clip(q[..., 0], 0, sw - 1)]
    return out


def _print_frame_line(printed: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """How much the clean print itself shows a frame line (the place's own outline) at a side's rim, frame-line
    and face points ``printed`` (shifts, points), relatively, at least 0, by shift (read only)."""
    p_rim, p_frame, p_inner = (b.mean(axis=1) for b in printed)
    expected: NDArray[Any] = np.maximum((np.minimum(p_rim, p_inner) - p_frame) / (p_rim + 4.0), 0.0)
    expected.flags.writeable = False
    return expected


def _printed_frame(place: LayoutPlace, s: float) -> tuple[tuple[NDArray[Any], ...], ...]:
    """For every pose `_frame_evidence` tries on ``place`` (at ``s`` px/mm), side by side: `_print_frame_line`.
    It does not depend on the frame: made once for the place's print and pose (read only)."""
    kept = _PRINTED_FRAMES.get(_print_key(place, s))
    if kept is not None:
        return kept
    shifts = _pose_shifts(s)
    out = []
    for da in FIT_ANGLES:
        rot = _rot(-da) @ place.rotation
        out.append(tuple(_print_frame_line([_printed_at(place, s, (pts @ rot.T * s)[None] + shifts[:, None])
                                            for pts in bands]) for bands in _FRAME_BANDS))
    return _keep_printed(place, s, tuple(out))


def _print_key(place: LayoutPlace, s: float) -> tuple[Any, ...]:
    return (place.sheet, place.sheet_centre, place.rotation.tobytes(), s)


def _keep_printed(place: LayoutPlace, s: float, made: tuple[tuple[NDArray[Any], ...], ...]
                  ) -> tuple[tuple[NDArray[Any], ...], ...]:
    if len(_PRINTED_FRAMES) >= _MASKS_KEPT:
        _PRINTED_FRAMES.clear()
    _PRINTED_FRAMES[_print_key(place, s)] = made
    return made


#: `_printed_frame`'s, by the place's sheet, centre on it, rotation and the scale
_PRINTED_FRAMES: dict[tuple[Any, ...], tuple[tuple[NDArray[Any], ...], ...]] = {}


def prepare_places(px_per_mm: float, rect: Rectified | None = None) -> None:
    """Make now, for every tableau pile at ``px_per_mm`` (the rectified scale), what the clean print shows where a
    card's frame line would lie on it (`looks_washed`), so that the first glare frame does not; with ``rect`` (a
    rectification at that scale: every frame's is the same but for its image), also where `looks_washed` reads each
    pile's card outline in its image and what the print shows there (`_sampling_plan`)."""
    for place in _tableau_places():
        _printed_frame(place, px_per_mm)
        if rect is not None:
            _sampling_plan(rect.image.shape, rect, place, _FRAME_BANDS, False)
            _sampling_plan(rect.image.shape, rect, place, _PAIRED_SIDES, True)


def _frame_evidence(image: NDArray[Any], rect: Rectified, place: LayoutPlace) -> tuple[float, int]:
    """Over every pose a card may have on ``place``: the most a readable side of its outline shows a frame
    line: darker than both the rim outside it and the face inside it, relatively, less what the clean
    printed sheet shows there (the place's own outline, `_printed_frame`), and the fewest sides readable at any
    one pose (-inf, 0 when the place is not wholly in the image)."""
    poses = _pose_samples(image, rect, place, _FRAME_BANDS, with_print=False)
    if poses is None:
        return float("-inf"), 0
    kept = _printed_frame(place, rect.px_per_mm)
    evidence, fewest = float("-inf"), 4
    for i, per_side in enumerate(poses):
        readable: NDArray[Any] | int = 0
        for (seen, _), expected in zip(per_side, kept[i]):
            usable = [b < READABLE_LEVEL for b in seen]
            ok = np.all([u.mean(axis=1) >= 0.5 for u in usable], axis=0)
            rim, frame, inner = (np.where(u, b, 0).sum(axis=1) / np.maximum(u.sum(axis=1), 1)
                                 for b, u in zip(seen, usable))
            # a frame line is darker than both the rim outside it and the face inside it (a glare spot's
            # falloff is not); the print's own lines (the place's outline) count only beyond what they show clean
            contrast = (np.minimum(rim, inner) - frame) / (rim + 4.0) - expected
            if bool(ok.any()):
                evidence = max(evidence, float(contrast[ok].max()))
            readable = readable + ok.astype(np.int64)
        fewest = min(fewest, int(np.min(readable)))
    return evidence, fewest


def _paired_sides(step: float = 1.5, corner: float = 4.0) -> list[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]]:
    """A card's outline point by point (mm from its centre), side by side (top, bottom, left, right): the middle
    of its white rim, of its frame line and of the face just inside it, at the same places along the side."""
    w, h = CARD.width - 2 * CARD.margin - 3 * CARD.frame, CARD.height - 2 * CARD.margin - 3 * CARD.frame
    xs = np.arange(-w / 2 + corner, w / 2 - corner + 1e-9, step)
    ys = np.arange(-h / 2 + corner, h / 2 - corner + 1e-9, step)
    bands = []
    for bw, bh in ((CARD.width - CARD.margin, CARD.height - CARD.margin),
                   (CARD.width - 2 * CARD.margin - CARD.frame, CARD.height - 2 * CARD.margin - CARD.frame), (w, h)):
        bands.append([np.stack([xs, np.full_like(xs, -bh / 2)], 1), np.stack([xs, np.full_like(xs, bh / 2)], 1),
                      np.stack([np.full_like(ys, -bw / 2), ys], 1), np.stack([np.full_like(ys, bw / 2), ys], 1)])
    return [(rim, frame, inner) for rim, frame, inner in zip(*bands)]


_PAIRED_SIDES = _paired_sides()


def _outline_evidence(image: NDArray[Any], rect: Rectified, place: LayoutPlace,
                      level: float = READABLE_LEVEL) -> tuple[float, int]:
    """`_frame_evidence` point by point: over every pose a card may have on ``place``, the most a side shows a
    frame line over the points of its outline whose rim, frame-line and face points are all readable
    (below ``level``), sides with fewer than `WASHED_RUN` such points left out, less what the clean printed sheet
    shows there; and the fewest such points at any one pose (-inf, 0 when the place is not wholly in the image)."""
    poses = _pose_samples(image, rect, place, _PAIRED_SIDES)
    if poses is None:
        return float("-inf"), 0
    evidence, fewest = float("-inf"), 1 << 30
    for per_side in poses:
        points: NDArray[Any] | int = 0
        for seen, printed in per_side:
            ok = (seen[0] < level) & (seen[1] < level) & (seen[2] < level)
            n = ok.sum(axis=1)
            counted = n >= WASHED_RUN
            points = points + np.where(counted, n, 0)
            if not bool(counted.any()):
                continue
            k = np.maximum(n, 1)
            rim, frame, inner, p_rim, p_frame, p_inner = (np.where(ok, b, 0).sum(axis=1) / k
                                                          for b in (*seen, *printed))
            expected = (np.minimum(p_rim, p_inner) - p_frame) / (p_rim + 4.0)
            contrast = (np.minimum(rim, inner) - frame) / (rim + 4.0) - np.maximum(expected, 0.0)
            evidence = max(evidence, float(contrast[counted].max()))
        fewest = min(fewest, int(np.min(points)))
    return evidence, fewest


def _key(z: Zone) -> tuple[Any, ...]:
    return (z.area, z.seat, z.suit, z.pile, z.space)


@dataclass(frozen=True, slots=True)
class LayoutPlace:
    """A tableau pile or chart space, where the printed layout says a card may lie."""

    zone: Zone
    #: the parts tested for plainness and the band of the printed name (table mm)
    plain_mm: list[NDArray[Any]]
    text_mm: list[NDArray[Any]]
    #: the place's centre (table mm) and the direction of its "up" (degrees, as `Detection.angle`)
    centre: tuple[float, float]
    angle: float
    #: the place's own frame (mat or chart mm) -> table mm, linear part (a rotation)
    rotation: NDArray[Any]
    #: the sheet the place is printed on (the mat: -1, else the chart's seat) and the place's centre
    #: in that sheet's own mm frame
    sheet: int = -1
    sheet_centre: tuple[float, float] = (0.0, 0.0)

    @property
    def key(self) -> tuple[Any, ...]:
        """The place's identity across frames."""
        return _key(self.zone)


def layout_places(charts: Mapping[int, ChartPose]) -> list[LayoutPlace]:
    """Every tableau pile, then every called-card space of each chart seen, by seat."""
    poses = tuple(sorted(charts.items()))
    last = _last_layout
    # the same chart poses (frozen) as the last call, twice a frame and through a still table's frames
    if last and len(last[0]) == len(poses) and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(last[0], poses)):
        return list(last[1])
    out = _layout_places(charts)
    _last_layout[:] = [poses, tuple(out)]
    return out


_last_layout: list[Any] = []


def _layout_places(charts: Mapping[int, ChartPose]) -> list[LayoutPlace]:
    out = list(_tableau_places())
    for seat, pose in sorted(charts.items()):
        m = pose.chart_to_table
        lin = m[:2, :2] / max(float(np.sqrt(abs(np.linalg.det(m[:2, :2])))), 1e-9)
        for sp, plain, band, centre in _space_shapes():
            polys = [p @ m[:2, :2].T + m[:2, 2] for p in plain]
            text = [p @ m[:2, :2].T + m[:2, 2] for p in band]
            c = m[:2, :2] @ np.array(centre) + m[:2, 2]
            out.append(LayoutPlace(Zone(Area.CHART_SPACE, seat=seat, space=sp), polys, text,
                                   (float(c[0]), float(c[1])), pose.angle, lin, seat, centre))
    return out


def _read_only(arrays: list[NDArray[Any]]) -> list[NDArray[Any]]:
    for a in arrays:
        a.flags.writeable = False
    return arrays


@functools.lru_cache(maxsize=1)
def _tableau_places() -> tuple[LayoutPlace, ...]:
    """Every tableau pile's `LayoutPlace` (the mat defines table mm: the same for every table; read only)."""
    eye = np.eye(2)
    eye.flags.writeable = False
    return tuple(LayoutPlace(Zone(Area.TABLEAU, suit=suit, pile=pile), _read_only(_place_polygon(r, Area.TABLEAU)),
                             _read_only(_text_band(r, Area.TABLEAU)), r.centre, 0.0, eye, -1, r.centre)
                 for suit in Suit for pile in Pile for r in (MAT.slot(suit, pile),))


@functools.lru_cache(maxsize=1)
def _space_shapes() -> tuple[tuple[Space, list[NDArray[Any]], list[NDArray[Any]], tuple[float, float]], ...]:
    """Each chart space: its tested parts and its name's band (chart mm, read only), and its centre."""
    return tuple((sp, _read_only(_place_polygon(r, Area.CHART_SPACE)), _read_only(_text_band(r, Area.CHART_SPACE)),
                  r.centre) for sp in Space for r in (CHART.space(sp),))


#: how far (mm) and by how many degrees a card may lie off its printed place for `fit_card`
FIT_SHIFT_MM = 5.0
FIT_ANGLES = (-6.0, -3.0, 0.0, 3.0, 6.0)


def _band(w: float, h: float, step: float = 1.5, corner: float = 4.0) -> NDArray[Any]:
    """Points along a w x h rectangle centred on 0 (mm), every ``step``, the rounded corners left out."""
    xs = np.arange(-w / 2 + corner, w / 2 - corner + 1e-9, step)
    ys = np.arange(-h / 2 + corner, h / 2 - corner + 1e-9, step)
    return np.concatenate([np.stack([xs, np.full_like(xs, -h / 2)], 1), np.stack([xs, np.full_like(xs, h / 2)], 1),
                           np.stack([np.full_like(ys, -w / 2), ys], 1), np.stack([np.full_like(ys, w / 2), ys], 1)])


def _band_sides(w: float, h: float, step: float = 1.5, corner: float = 4.0) -> list[NDArray[Any]]:
    """`_band`'s points, side by side: top, bottom, left, right."""
    xs = np.arange(-w / 2 + corner, w / 2 - corner + 1e-9, step)
    ys = np.arange(-h / 2 + corner, h / 2 - corner + 1e-9, step)
    return [np.stack([xs, np.full_like(xs, -h / 2)], 1), np.stack([xs, np.full_like(xs, h / 2)], 1),
            np.stack([np.full_like(ys, -w / 2), ys], 1), np.stack([np.full_like(ys, w / 2), ys], 1)]


#: the middle of a card's white rim, and of its dark frame line (mm from the card's centre)
_RIM = _band(CARD.width - CARD.margin, CARD.height - CARD.margin)
_FRAME = _band(CARD.width - 2 * CARD.margin - CARD.frame, CARD.height - 2 * CARD.margin - CARD.frame)
_RIM_SIDES = _band_sides(CARD.width - CARD.margin, CARD.height - CARD.margin)
_FRAME_SIDES = _band_sides(CARD.width - 2 * CARD.margin - CARD.frame, CARD.height - 2 * CARD.margin - CARD.frame)
#: ... and of the face field just inside the frame line, as far inside it as the rim is outside
_INNER_SIDES = _band_sides(CARD.width - 2 * CARD.margin - 3 * CARD.frame, CARD.height - 2 * CARD.margin - 3 * CARD.frame)
#: ... side by side (rim, frame line, face), as `_frame_evidence` reads them
_FRAME_BANDS = list(zip(_RIM_SIDES, _FRAME_SIDES, _INNER_SIDES))


def _rot(deg: float) -> NDArray[Any]:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def _fit_scores(img: NDArray[Any], rots: Sequence[NDArray[Any]], s: float, centre: NDArray[Any],
                shifts: NDArray[Any]) -> NDArray[Any]:
    """``(R, S)``: how much darker the frame line is than the rim, relatively, for a card turned by each of
    ``rots`` at each shift (px)."""
    h, w = img.shape
    bands = [np.stack([band @ rot.T * s + centre for rot in rots]) for band in (_RIM, _FRAME)]
    at = _shifted_pixels(np.concatenate([b.reshape(-1, 2) for b in bands]), shifts, w, h)
    out = []
    if at is None:
        for pts in bands:
            p = np.rint(pts[:, None] + shifts[None, :, None]).astype(np.int64)
            x = np.clip(p[..., 0], 0, w - 1)
            y = np.clip(p[..., 1], 0, h - 1)
            out.append(img[y, x].mean(axis=2))
    else:
        seen = img.ravel()[at]
        rim = len(rots) * len(_RIM)
        out = [seen[:, :rim].reshape(len(shifts), len(rots), -1).mean(axis=2).T,
               seen[:, rim:].reshape(len(shifts), len(rots), -1).mean(axis=2).T]
    scores: NDArray[Any] = (out[0] - out[1]) / (out[0] + 4.0)
    return scores


def _shifted_pixels(pts: NDArray[Any], shifts: NDArray[Any], w: int, h: int) -> NDArray[Any] | None:
    """``(S, N)`` flat indices, in a ``w`` x ``h`` image, of the pixels nearest each of ``pts`` moved by each of
    the whole-pixel ``shifts``: the pixel nearest each point, moved. None where that could differ from
    rounding each moved point (a point within float error of a half pixel, a shift not whole) or a moved
    point falls off the image (then round and clip each moved point)."""
    if not len(pts) or not len(shifts) or (shifts != np.rint(shifts)).any():
        return None
    base = np.rint(pts)
    if float(np.abs(pts - base).max()) > 0.5 - 1e-6:
        return None
    # column by column: numpy reduces an (N, 2) array along its first axis slowly
    x, y, dx, dy = base[:, 0], base[:, 1], shifts[:, 0], shifts[:, 1]
    if x.min() + dx.min() < 0 or y.min() + dy.min() < 0 or x.max() + dx.max() > w - 1 or y.max() + dy.max() > h - 1:
        return None
    b = base.astype(np.int64)
    d = shifts.astype(np.int64)
    at: NDArray[Any] = (b[:, 1] * w + b[:, 0])[None] + (d[:, 1] * w + d[:, 0])[:, None]
    return at


def fit_card(rect: Rectified, place: LayoutPlace) -> tuple[Detection, float]:
    """A card on ``place``, fitted in the rectified grey image by its white rim and dark frame line.

    Searches up to `FIT_SHIFT_MM` off the printed place and `FIT_ANGLES` from its direction (first
    every other pixel, upright, then every pixel and angle around the best); the score is how much
    darker the frame line is than the rim, relatively (about 0 where no card's frame shows). Returns
    the face field's detection at the best fit and its score; a place outside the image gives the
    printed place itself and score 0.
    """
    s = rect.px_per_mm
    centre = (np.array(place.centre) - np.array(rect.origin)) * s
    img = rect.image
    reach = float(np.hypot(CARD.width, CARD.height)) / 2 * s + FIT_SHIFT_MM * s
    h, w = img.shape[:2]
    if (centre[0] - reach < 0 or centre[1] - reach < 0 or centre[0] + reach > w
            or centre[1] + reach > h):
        best_shift, best_rot, score = np.zeros(2), place.rotation, 0.0
    else:
        x0, y0 = int(centre[0] - reach), int(centre[1] - reach)
        roi = cv2.blur(img[y0:int(centre[1] + reach) + 1, x0:int(centre[0] + reach) + 1], (3, 3)).astype(np.float32)
        local = centre - (x0, y0)
        r = int(np.ceil(FIT_SHIFT_MM * s))
        grid = np.array([(dx, dy) for dy in range(-r, r + 1, 2) for dx in range(-r, r + 1, 2)], np.float64)
        coarse = _fit_scores(roi, [place.rotation], s, local, grid)[0]
        c = grid[int(np.argmax(coarse))]
        fine = np.array([(c[0] + dx, c[1] + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                         if abs(c[0] + dx) <= r and abs(c[1] + dy) <= r], np.float64)
        best_shift, best_rot, score = c, place.rotation, float(coarse.max())
        rots = [_rot(-da) @ place.rotation for da in FIT_ANGLES]  # counter-clockwise as seen (y down)
        for rot, sc in zip(rots, _fit_scores(roi, rots, s, local, fine)):
            k = int(np.argmax(sc))
            if sc[k] > score:
                best_shift, best_rot, score = fine[k], rot, float(sc[k])
    fx, fy = centre + best_shift
    cw, ch = CARD.inner_width * s, CARD.inner_height * s
    corners = np.array([[-cw, -ch], [cw, -ch], [cw, ch], [-cw, ch]]) / 2 @ best_rot.T + np.array([fx, fy])
    up = best_rot @ np.array([0.0, -1.0])
    angle = float(np.degrees(np.arctan2(-up[0], -up[1])) % 360)
    return Detection(Kind.CARD, corners, (float(fx), float(fy)), angle), score


class PlaceMemory:
    """The card last identified on each tableau pile and chart space of one table (see the module docstring)."""

    def __init__(self) -> None:
        self.held: dict[tuple[Any, ...], str] = {}
        #: each place's last plainness test: a thumbnail of the place then, and the answer
        self._plain: dict[tuple[Any, ...], tuple[NDArray[Any], bool]] = {}

    def reset(self) -> None:
        """Forget every place (another table, or the table moved)."""
        self.held.clear()
        self._plain.clear()

    def _looks_plain(self, rect: Rectified, place: LayoutPlace) -> bool:
        """`looks_plain`, answered again without testing while the place looks as it did (live frames)."""
        s = rect.px_per_mm
        cx, cy = (np.array(place.centre) - np.array(rect.origin)) * s
        half = 0.5 * CARD.height * s
        x0, y0, x1, y1 = int(cx - half), int(cy - half), int(cx + half) + 1, int(cy + half) + 1
        img = rect.image
        thumb = None
        if x0 >= 0 and y0 >= 0 and x1 <= img.shape[1] and y1 <= img.shape[0]:
            thumb = cv2.resize(img[y0:y1, x0:x1], THUMB, interpolation=cv2.INTER_AREA).astype(np.int16)
            seen = self._plain.get(place.key)
            if seen is not None and int(np.abs(seen[0] - thumb).max()) <= THUMB_SAME:
                return seen[1]
        # `_plain` asks for less detail than `PLAIN_CONTRAST` first: beyond it the name's band is not measured
        detail, text = place_features(img, rect, place.plain_mm, place.text_mm, PLAIN_CONTRAST)
        plain = _plain(detail, text) and print_shows(img, rect, place, detail, text)
        if not plain:
            # the fine detail outside the name is the same measured with the name or without it where
            # both filter the same part of the image (the name lies between the parts tested)
            org = np.array(rect.origin)
            alone = [(p - org) * s for p in place.plain_mm]
            same = _patch_box(img, rect, alone) == _patch_box(img, rect, alone + [(p - org) * s for p in place.text_mm])
            plain = looks_washed(img, rect, place, detail if same else None) or plain_beside_glare(img, rect, place)
        if thumb is not None:
            self._plain[place.key] = (thumb, plain)
        return plain

    def to_read(self, view: TableView, rect: Rectified,
                charts: Mapping[int, ChartPose]) -> tuple[list[LayoutPlace], dict[tuple[Any, ...], bool]]:
        """The places with no identified component in ``view`` that do not look plain (to be read
        from the layout), and the plainness of every place tested, by `LayoutPlace.key`."""
        identified = {_key(c.zone) for c in view.components}
        plain: dict[tuple[Any, ...], bool] = {}
        out: list[LayoutPlace] = []
        for place in layout_places(charts):
            k = place.key
            if k in identified:
                continue
            plain[k] = self._looks_plain(rect, place)
            if not plain[k]:
                out.append(place)
        return out, plain

    def update(self, view: TableView, rect: Rectified, charts: Mapping[int, ChartPose],
               plain: Mapping[tuple[Any, ...], bool] | None = None) -> TableView:
        """Remember this frame's cards; return ``view`` plus an ``UNREADABLE`` card for every place
        with nothing on it in ``view`` (neither identified nor unrecognised) that does not look plain:
        its best guess is the card last identified there, or ``""`` when none was.

        ``rect.image`` must be the grey rectified image the detections came from; ``plain``: places
        already tested (`to_read`).
        """
        taken = {_key(u.zone) for u in view.unrecognised}
        for c in view.components:
            k = _key(c.zone)
            taken.add(k)
            if c.zone.area in (Area.TABLEAU, Area.CHART_SPACE) and c.shape is Kind.CARD:
                self.held[k] = c.label
        extra: list[Unrecognised] = []
        for place in layout_places(charts):
            k = place.key
            if k in taken:
                continue
            if plain is not None and k in plain:
                is_plain = plain[k]
            else:
                is_plain = self._looks_plain(rect, place)
            if is_plain:
                self.held.pop(k, None)
                continue
            x, y = place.centre
            extra.append(Unrecognised(Kind.CARD, Reason.UNREADABLE, self.held.get(k, ""), 0.0, x, y,
                                      place.angle, place.zone))
        if not extra:
            return view
        unknown = tuple(sorted(view.unrecognised + tuple(extra), key=lambda u: (u.y, u.x)))
        return replace(view, unrecognised=unknown)
