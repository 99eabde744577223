"""Places the Big Top layout says hold a component: never read as empty when unreadable.

A tableau pile or a chart's called-card space that held an identified card in an
earlier frame of the same table, and in which the detector now finds nothing, is
either empty again (the card was taken away) or holds something the camera cannot
make out (a card under glare or in a dark corner, a hand over it). Only a place that
looks like the plain print (`looks_plain`: little contrast, few edges) is taken to be
empty; any other is reported `Unrecognised` with reason ``UNREADABLE`` and the card it
held as the best guess, so the referee holds instead of reading the pile as empty.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import Suit
from vision.bigtop.labels import Kind
from vision.bigtop.layout import CARD, CHART, MAT, Pile, Rect, Space
from vision.bigtop.tableview import Area, Reason, TableView, Unrecognised, Zone
from vision.calibrate import ChartPose, Rectified
from vision.detect import Detection

__all__ = ["LayoutPlace", "PlaceMemory", "fit_card", "layout_places", "looks_plain", "place_features"]

#: a plain place: its fine detail (the grey image less its smooth shading, 3rd to 97th percentile,
#: over the median grey) below this, ...
PLAIN_CONTRAST = 0.1
#: ... and the band of its printed text (the pile's or space's name) shows at least this much fine
#: detail, and this many times that of the rest of the place (sensor noise)
TEXT_CONTRAST = 0.03
TEXT_OVER_PLAIN = 1.0
#: the smooth shading (vignetting, a glare spot's falloff, a shadow) is the grey image blurred this much (mm)
SHADING_MM = 4.0
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


def place_features(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]]) -> float:
    """Fine detail of the rectified grey image inside table-mm polygons.

    The image less its smooth shading (blurred by `SHADING_MM`): its 97th less its 3rd percentile,
    over the median grey, so light falling off across a place (vignetting, the edge of a glare spot)
    does not count. A place outside the image gives infinity.
    """
    pts = [(p - np.array(rect.origin)) * rect.px_per_mm for p in polygons_mm]
    allp = np.concatenate(pts)
    h, w = image.shape[:2]
    sigma = SHADING_MM * rect.px_per_mm
    pad = int(np.ceil(2 * sigma))
    x0, y0 = np.floor(allp.min(0)).astype(int) - pad
    x1, y1 = np.ceil(allp.max(0)).astype(int) + pad + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return float("inf")
    patch = image[y0:y1, x0:x1].astype(np.float32)
    fine = cv2.GaussianBlur(patch, (0, 0), 1.0) - cv2.GaussianBlur(patch, (0, 0), sigma)
    mask = np.zeros(patch.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(p - (x0, y0)).astype(np.int32) for p in pts], 1)
    inside = mask.astype(bool)
    if int(inside.sum()) < 20:
        return float("inf")
    level = max(float(np.median(patch[inside])), 8.0)
    v = fine[inside]
    return float(np.percentile(v, 97) - np.percentile(v, 3)) / level


def looks_plain(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]],
                text_mm: Sequence[NDArray[Any]]) -> bool:
    """True when the place shows the plain print: plain outside its printed name, and the name legible.

    A hand or a glare spot over the whole place is plain too, but hides the printed name.
    """
    detail = place_features(image, rect, polygons_mm)
    if not detail < PLAIN_CONTRAST:
        return False
    return place_features(image, rect, text_mm) >= max(TEXT_CONTRAST, TEXT_OVER_PLAIN * detail)


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

    @property
    def key(self) -> tuple[Any, ...]:
        """The place's identity across frames."""
        return _key(self.zone)


def layout_places(charts: Mapping[int, ChartPose]) -> list[LayoutPlace]:
    """Every tableau pile, then every called-card space of each chart seen, by seat."""
    out: list[LayoutPlace] = []
    eye = np.eye(2)
    for suit in Suit:
        for pile in Pile:
            r = MAT.slot(suit, pile)
            out.append(LayoutPlace(Zone(Area.TABLEAU, suit=suit, pile=pile), _place_polygon(r, Area.TABLEAU),
                                   _text_band(r, Area.TABLEAU), r.centre, 0.0, eye))
    for seat, pose in sorted(charts.items()):
        m = pose.chart_to_table
        lin = m[:2, :2] / max(float(np.sqrt(abs(np.linalg.det(m[:2, :2])))), 1e-9)
        for sp in Space:
            r = CHART.space(sp)
            polys = [p @ m[:2, :2].T + m[:2, 2] for p in _place_polygon(r, Area.CHART_SPACE)]
            text = [p @ m[:2, :2].T + m[:2, 2] for p in _text_band(r, Area.CHART_SPACE)]
            c = m[:2, :2] @ np.array(r.centre) + m[:2, 2]
            out.append(LayoutPlace(Zone(Area.CHART_SPACE, seat=seat, space=sp), polys, text,
                                   (float(c[0]), float(c[1])), pose.angle, lin))
    return out


#: how far (mm) and by how many degrees a card may lie off its printed place for `fit_card`
FIT_SHIFT_MM = 5.0
FIT_ANGLES = (-6.0, -3.0, 0.0, 3.0, 6.0)


@functools.lru_cache(maxsize=256)
def _card_template(r00: float, r01: float, r10: float, r11: float, s: float) -> tuple[NDArray[Any], NDArray[Any]]:
    """A card's white rim and dark frame line drawn at rotation ``r`` and scale ``s`` px/mm,
    and the mask of those two bands (the face field and the table around are left out)."""
    rot = np.array([[r00, r01], [r10, r11]])
    half = 0.5 * float(np.hypot(CARD.width, CARD.height)) * s + 2
    size = int(np.ceil(2 * half)) | 1
    c = np.array([size / 2, size / 2])

    def poly(w: float, h: float) -> NDArray[Any]:
        pts = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        out: NDArray[Any] = np.round((pts @ rot.T * s + c) * 16).astype(np.int32)
        return out

    frame_w, frame_h = CARD.width - 2 * CARD.margin, CARD.height - 2 * CARD.margin
    tmpl = np.zeros((size, size), np.float32)
    mask = np.zeros((size, size), np.uint8)
    cv2.fillPoly(mask, [poly(CARD.width, CARD.height)], 255, cv2.LINE_AA, 4)
    cv2.fillPoly(tmpl, [poly(CARD.width, CARD.height)], 1.0, cv2.LINE_AA, 4)
    cv2.fillPoly(tmpl, [poly(frame_w, frame_h)], 0.0, cv2.LINE_AA, 4)
    cv2.fillPoly(mask, [poly(CARD.inner_width, CARD.inner_height)], 0, cv2.LINE_AA, 4)
    return tmpl, (mask > 127).astype(np.uint8)


def _rot(deg: float) -> NDArray[Any]:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def fit_card(rect: Rectified, place: LayoutPlace) -> tuple[Detection, float]:
    """A card on ``place``, fitted in the rectified grey image by its rim and frame line.

    Searches up to `FIT_SHIFT_MM` off the printed place and `FIT_ANGLES` from its direction
    (normalised correlation of the rim-and-frame template); returns the face field's detection
    at the best fit and that fit's score (-1..1; near 0 when no card's frame shows there). A place
    outside the image gives the printed place itself and score 0.
    """
    s = rect.px_per_mm
    cx, cy = (np.array(place.centre) - np.array(rect.origin)) * s
    img = rect.image
    best: tuple[float, float, float, NDArray[Any]] | None = None
    pad = int(np.ceil(FIT_SHIFT_MM * s))
    for da in FIT_ANGLES:
        rot = _rot(-da) @ place.rotation  # counter-clockwise as seen (y down)
        r = np.round(rot, 3)
        tmpl, mask = _card_template(float(r[0, 0]), float(r[0, 1]), float(r[1, 0]), float(r[1, 1]), round(s, 4))
        size = tmpl.shape[0]
        x0, y0 = int(round(cx)) - size // 2 - pad, int(round(cy)) - size // 2 - pad
        x1, y1 = x0 + size + 2 * pad, y0 + size + 2 * pad
        if x0 < 0 or y0 < 0 or x1 > img.shape[1] or y1 > img.shape[0]:
            continue
        roi = img[y0:y1, x0:x1].astype(np.float32)
        res = np.nan_to_num(cv2.matchTemplate(roi, tmpl, cv2.TM_CCOEFF_NORMED, mask=mask), nan=-1.0,
                            posinf=-1.0, neginf=-1.0)
        _, score, _, loc = cv2.minMaxLoc(res)
        if best is None or score > best[0]:
            fx = x0 + loc[0] + size / 2 - 0.5 * ((size + 1) % 2)
            fy = y0 + loc[1] + size / 2 - 0.5 * ((size + 1) % 2)
            best = (float(score), float(fx), float(fy), rot)
    if best is None:
        score, fx, fy, rot = 0.0, float(cx), float(cy), place.rotation
    else:
        score, fx, fy, rot = best
    w, h = CARD.inner_width * s, CARD.inner_height * s
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    corners = local @ rot.T + np.array([fx, fy])
    up = rot @ np.array([0.0, -1.0])
    angle = float(np.degrees(np.arctan2(-up[0], -up[1])) % 360)
    return Detection(Kind.CARD, corners, (fx, fy), angle), score


class PlaceMemory:
    """The card last identified on each tableau pile and chart space of one table (see the module docstring)."""

    def __init__(self) -> None:
        self.held: dict[tuple[Any, ...], str] = {}

    def reset(self) -> None:
        """Forget every place (another table, or the table moved)."""
        self.held.clear()

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
            plain[k] = looks_plain(rect.image, rect, place.plain_mm, place.text_mm)
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
                is_plain = looks_plain(rect.image, rect, place.plain_mm, place.text_mm)
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
