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

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import Suit
from vision.bigtop.labels import Kind
from vision.bigtop.layout import CHART, MAT, Pile, Rect, Space
from vision.bigtop.tableview import Area, Reason, TableView, Unrecognised, Zone
from vision.calibrate import ChartPose, Rectified

__all__ = ["PlaceMemory", "looks_plain", "place_features"]

#: a plain place: (95th - 5th percentile grey) / median below this, ...
PLAIN_CONTRAST = 0.3
#: ... and a share of edge pixels (gradient above a fifth of the median grey) below this
PLAIN_EDGES = 0.03
#: ... and the band of its printed text (the pile's or space's name) shows at least this contrast,
#: and this many times the contrast of the rest of the place (sensor noise)
TEXT_CONTRAST = 0.04
TEXT_OVER_PLAIN = 1.4
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


def place_features(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]]) -> tuple[float, float]:
    """(contrast, edge share) of the rectified grey image inside table-mm polygons.

    Contrast: (95th - 5th percentile) / median grey. Edge share: pixels whose gradient
    exceeds a fifth of the median grey. A place outside the image has contrast infinity.
    """
    pts = [(p - np.array(rect.origin)) * rect.px_per_mm for p in polygons_mm]
    allp = np.concatenate(pts)
    h, w = image.shape[:2]
    x0, y0 = np.floor(allp.min(0)).astype(int) - 2
    x1, y1 = np.ceil(allp.max(0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return (float("inf"), 1.0)
    patch = cv2.GaussianBlur(image[y0:y1, x0:x1].astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy) / 4.0
    mask = np.zeros(patch.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(p - (x0, y0)).astype(np.int32) for p in pts], 1)
    inside = mask.astype(bool)
    if int(inside.sum()) < 20:
        return (float("inf"), 1.0)
    v = patch[inside]
    level = max(float(np.median(v)), 8.0)
    contrast = float(np.percentile(v, 95) - np.percentile(v, 5)) / level
    return (contrast, float(np.count_nonzero(mag[inside] > 0.2 * level)) / v.size)


def looks_plain(image: NDArray[Any], rect: Rectified, polygons_mm: Sequence[NDArray[Any]],
                text_mm: Sequence[NDArray[Any]]) -> bool:
    """True when the place shows the plain print: plain outside its printed name, and the name legible.

    A hand or a glare spot over the whole place is plain too, but hides the printed name.
    """
    contrast, edges = place_features(image, rect, polygons_mm)
    if not (contrast < PLAIN_CONTRAST and edges < PLAIN_EDGES):
        return False
    return place_features(image, rect, text_mm)[0] >= max(TEXT_CONTRAST, TEXT_OVER_PLAIN * contrast)


_Place = tuple[Zone, list[NDArray[Any]], list[NDArray[Any]], tuple[float, float]]


def _places(charts: Mapping[int, ChartPose]) -> list[_Place]:
    """Every place: its zone, the polygons tested for plainness and for the printed name (table mm), its centre."""
    out: list[_Place] = []
    for suit in Suit:
        for pile in Pile:
            r = MAT.slot(suit, pile)
            out.append((Zone(Area.TABLEAU, suit=suit, pile=pile), _place_polygon(r, Area.TABLEAU),
                        _text_band(r, Area.TABLEAU), r.centre))
    for seat, pose in sorted(charts.items()):
        m = pose.chart_to_table
        for sp in Space:
            r = CHART.space(sp)
            polys = [p @ m[:2, :2].T + m[:2, 2] for p in _place_polygon(r, Area.CHART_SPACE)]
            text = [p @ m[:2, :2].T + m[:2, 2] for p in _text_band(r, Area.CHART_SPACE)]
            c = m[:2, :2] @ np.array(r.centre) + m[:2, 2]
            out.append((Zone(Area.CHART_SPACE, seat=seat, space=sp), polys, text, (float(c[0]), float(c[1]))))
    return out


def _key(z: Zone) -> tuple[Any, ...]:
    return (z.area, z.seat, z.suit, z.pile, z.space)


class PlaceMemory:
    """The card last identified on each tableau pile and chart space of one table (see the module docstring)."""

    def __init__(self) -> None:
        self.held: dict[tuple[Any, ...], str] = {}

    def reset(self) -> None:
        """Forget every place (another table, or the table moved)."""
        self.held.clear()

    def update(self, view: TableView, rect: Rectified, charts: Mapping[int, ChartPose]) -> TableView:
        """Remember this frame's cards; return ``view`` plus an ``UNREADABLE`` card for every
        remembered place with no detection now that does not look plain.

        ``rect.image`` must be the grey rectified image the detections came from.
        """
        taken = {_key(u.zone) for u in view.unrecognised}
        for c in view.components:
            k = _key(c.zone)
            taken.add(k)
            if c.zone.area in (Area.TABLEAU, Area.CHART_SPACE) and c.shape is Kind.CARD:
                self.held[k] = c.label
        extra: list[Unrecognised] = []
        for zone, polys, text, (x, y) in _places(charts):
            k = _key(zone)
            if k in taken or k not in self.held:
                continue
            if looks_plain(rect.image, rect, polys, text):
                del self.held[k]
                continue
            angle = charts[zone.seat].angle if zone.seat is not None else 0.0
            extra.append(Unrecognised(Kind.CARD, Reason.UNREADABLE, self.held[k], 0.0, x, y, angle, zone))
        if not extra:
            return view
        unknown = tuple(sorted(view.unrecognised + tuple(extra), key=lambda u: (u.y, u.x)))
        return replace(view, unrecognised=unknown)
