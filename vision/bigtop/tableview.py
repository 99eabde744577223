"""The Big Top `TableView`: what lies on the table, identified, with positions and zones.

JSON (``TableView.to_json()``), all lengths in table millimetres (origin at the
mat's top-left corner, x right, y down), angles in degrees::

    {
      "game": "bigtop",
      "calibration": {"mat_markers_seen": 4, "error_mm": 0.3},
      "tableau": [                       # one entry per suit, chart order
        {"suit": "clowns", "poster": true, "top_light": "clowns-L3", "top_dark": null}
      ],
      "charts": [                        # one entry per chart whose markers were seen
        {"seat": 0, "angle": 0.0,
         "called": {"$3": "animals-D4", "$0": "clowns-L6"},      # only occupied spaces
         "tokens": {"clowns": {"face_up": false, "value": null},  # only suits with a token
                    "animals": {"face_up": true, "value": 10}}}
      ],
      "loose": [ <component>, ... ],     # identified, outside the tableau and the charts' places
      "components": [ <component>, ... ],# every identified component (tableau and charts included)
      "unrecognised": [                  # every object not identified, with its position
        {"shape": "card", "reason": "unsure" | "not_a_component" | "unreadable", "best_guess": "clowns-L3",
         "confidence": 0.61, "x": 120.5, "y": -40.2, "angle": 35.0, "zone": <zone>}
      ]
    }

    <component> = {"label": "clowns-L3", "shape": "card" | "token", "confidence": 0.998,
                   "x": 120.5, "y": 40.2, "angle": 3.0, "zone": <zone>}
    <zone> = {"area": "tableau", "suit": "clowns", "pile": "light"}
           | {"area": "chart_space", "seat": 0, "space": "$3"}
           | {"area": "chart_picture", "seat": 0, "suit": "animals"}
           | {"area": "chart", "seat": 0}          # elsewhere on a chart
           | {"area": "table", "seat": 0}          # off the mat, in front of a seat's chart
                                                   # (within SEAT_REACH mm of it: an open hand)
           | {"area": "table"}                     # anywhere else
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.bigtop.cards import Card, Shade, Suit
from vision.bigtop.labels import TOKEN_BACK, Kind
from vision.bigtop.layout import CHART, MAT, Pile, Space
from vision.calibrate import ChartPose
from vision.classify import Recognition, Verdict

__all__ = [
    "Area",
    "ChartView",
    "SeenComponent",
    "SuitTableau",
    "TableView",
    "TokenOnChart",
    "Unrecognised",
    "Zone",
    "build_table_view",
    "zone_of",
    "zones_of",
]


class Area(enum.Enum):
    """Where on the table something lies."""

    TABLEAU = "tableau"
    CHART_SPACE = "chart_space"
    CHART_PICTURE = "chart_picture"
    CHART = "chart"
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class Zone:
    """An area plus the fields that name the place within it (unused ones are ``None``)."""

    area: Area
    suit: Suit | None = None
    pile: Pile | None = None
    seat: int | None = None
    space: Space | None = None

    def to_json(self) -> dict[str, Any]:
        """The zone as in the module docstring."""
        out: dict[str, Any] = {"area": self.area.value}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.suit is not None:
            out["suit"] = self.suit.label
        if self.pile is not None:
            out["pile"] = self.pile.value
        if self.space is not None:
            out["space"] = self.space.label
        return out


@dataclass(frozen=True, slots=True)
class SeenComponent:
    """An identified component."""

    label: str
    shape: Kind
    confidence: float
    x: float
    y: float
    angle: float
    zone: Zone

    @property
    def card(self) -> Card | None:
        """The card, when the label names one (not a back or token)."""
        try:
            return Card.parse(self.label) if self.shape is Kind.CARD and "-" in self.label else None
        except ValueError:
            return None

    def to_json(self) -> dict[str, Any]:
        """The component as in the module docstring."""
        return {"label": self.label, "shape": self.shape.value, "confidence": round(self.confidence, 4),
                "x": round(self.x, 1), "y": round(self.y, 1), "angle": round(self.angle, 1),
                "zone": self.zone.to_json()}


class Reason(enum.Enum):
    """Why an object is unrecognised."""

    UNSURE = "unsure"
    NOT_A_COMPONENT = "not_a_component"
    #: nothing was identified on a tableau pile or chart space, yet it is not plain: something
    #: lies there that could not be read (glare, shadow, a hand); never read as empty. Its best
    #: guess is the card last identified there, or "" when none was
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class Unrecognised:
    """An object the camera saw but did not identify: the referee asks instead of guessing."""

    shape: Kind
    reason: Reason
    best_guess: str
    confidence: float
    x: float
    y: float
    angle: float
    zone: Zone

    def to_json(self) -> dict[str, Any]:
        """The object as in the module docstring."""
        return {"shape": self.shape.value, "reason": self.reason.value, "best_guess": self.best_guess,
                "confidence": round(self.confidence, 4), "x": round(self.x, 1), "y": round(self.y, 1),
                "angle": round(self.angle, 1), "zone": self.zone.to_json()}


@dataclass(frozen=True, slots=True)
class SuitTableau:
    """One suit's part of the tableau: the Poster and the top card of each pile."""

    suit: Suit
    poster: bool
    top_light: Card | None
    top_dark: Card | None

    def to_json(self) -> dict[str, Any]:
        """As in the module docstring."""
        return {"suit": self.suit.label, "poster": self.poster,
                "top_light": self.top_light.notation() if self.top_light else None,
                "top_dark": self.top_dark.notation() if self.top_dark else None}


@dataclass(frozen=True, slots=True)
class TokenOnChart:
    """A gate-receipt token on a suit picture: face down (value unknown) or face up."""

    suit: Suit
    face_up: bool
    value: int | None


@dataclass(frozen=True, slots=True)
class ChartView:
    """A seat's Organizing Chart: called cards by space, tokens by suit."""

    seat: int
    angle: float
    called: tuple[tuple[Space, Card], ...]
    tokens: tuple[TokenOnChart, ...]

    def card_on(self, space: Space) -> Card | None:
        """The called card on ``space``, if any."""
        return next((c for s, c in self.called if s is space), None)

    def to_json(self) -> dict[str, Any]:
        """As in the module docstring."""
        return {"seat": self.seat, "angle": round(self.angle, 1),
                "called": {s.label: c.notation() for s, c in sorted(self.called, key=lambda sc: -int(sc[0]))},
                "tokens": {t.suit.label: {"face_up": t.face_up, "value": t.value} for t in self.tokens}}


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything Big Top on the table in one frame."""

    tableau: tuple[SuitTableau, ...]
    charts: tuple[ChartView, ...]
    loose: tuple[SeenComponent, ...]
    components: tuple[SeenComponent, ...]
    unrecognised: tuple[Unrecognised, ...]
    mat_markers_seen: int
    calibration_error_mm: float

    def to_json(self) -> dict[str, Any]:
        """The documented JSON form (see the module docstring)."""
        return {
            "game": "bigtop",
            "calibration": {"mat_markers_seen": self.mat_markers_seen,
                            "error_mm": round(self.calibration_error_mm, 2)},
            "tableau": [t.to_json() for t in self.tableau],
            "charts": [c.to_json() for c in self.charts],
            "loose": [c.to_json() for c in self.loose],
            "components": [c.to_json() for c in self.components],
            "unrecognised": [u.to_json() for u in self.unrecognised],
        }

    def describe(self) -> str:
        """A few lines a player can read."""
        lines = []
        for t in self.tableau:
            parts = ["Poster" if t.poster else "no Poster"]
            parts.append(f"light {t.top_light.number}" if t.top_light else "light -")
            parts.append(f"dark {t.top_dark.number}" if t.top_dark else "dark -")
            lines.append(f"{t.suit.title:<11} {', '.join(parts)}")
        for c in self.charts:
            called = ", ".join(f"{s.label} {card.describe()}" for s, card in
                               sorted(c.called, key=lambda sc: -int(sc[0]))) or "no called cards"
            toks = ", ".join(f"{t.suit.title} " + (f"${t.value}" if t.face_up else "face down") for t in c.tokens)
            lines.append(f"Seat {c.seat + 1}: {called}; tokens: {toks or 'none'}")
        for s in self.loose:
            lines.append(f"Loose: {s.label} at ({s.x:.0f}, {s.y:.0f}) mm")
        for u in self.unrecognised:
            if u.reason is Reason.UNREADABLE:
                what = "something here could not be read"
            elif u.reason is Reason.NOT_A_COMPONENT:
                what = "not a Big Top component"
            else:
                what = f"unsure (maybe {u.best_guess}, {u.confidence:.0%})"
            lines.append(f"Unrecognised {u.shape.value} at ({u.x:.0f}, {u.y:.0f}) mm: {what}")
        return "\n".join(lines)


def zone_of(x: float, y: float, charts: Mapping[int, ChartPose]) -> Zone:
    """The zone of table point (x, y)."""
    return _zone(x, y, _chart_maps(charts))


def zones_of(points: Sequence[tuple[float, float]], charts: Mapping[int, ChartPose]) -> list[Zone]:
    """`zone_of` of each table point, the charts' maps made once for them all."""
    maps = _chart_maps(charts)
    return [_zone(x, y, maps) for x, y in points]


def _chart_maps(charts: Mapping[int, ChartPose]) -> list[tuple[int, tuple[float, ...]]]:
    """Each chart's table -> chart affine map as six plain floats, by seat."""
    out: list[tuple[int, tuple[float, ...]]] = []
    for seat, pose in sorted(charts.items()):
        m = pose.table_to_chart
        out.append((seat, (float(m[0, 0]), float(m[0, 1]), float(m[0, 2]),
                           float(m[1, 0]), float(m[1, 1]), float(m[1, 2]))))
    return out


def _zone(x: float, y: float, maps: list[tuple[int, tuple[float, ...]]]) -> Zone:
    slot = MAT.slot_at(x, y)
    if slot is not None:
        return Zone(Area.TABLEAU, suit=slot[0], pile=slot[1])
    for seat, (a, b, c, d, e, f) in maps:
        cx, cy = a * x + b * y + c, d * x + e * y + f
        if not CHART.contains(cx, cy):
            continue
        space = CHART.space_at(cx, cy)
        if space is not None:
            return Zone(Area.CHART_SPACE, seat=seat, space=space)
        pic = CHART.picture_at(cx, cy)
        if pic is not None:
            return Zone(Area.CHART_PICTURE, seat=seat, suit=pic)
        return Zone(Area.CHART, seat=seat)
    return Zone(Area.TABLE, seat=_seat_near(x, y, maps))


#: how far from its chart (mm) a component on the table still counts as lying in front of that seat
SEAT_REACH = 200.0


def _seat_near(x: float, y: float, maps: list[tuple[int, tuple[float, ...]]]) -> int | None:
    """The seat whose chart is nearest to a point off the mat, within `SEAT_REACH`; None on the mat."""
    if 0.0 <= x <= MAT.width and 0.0 <= y <= MAT.height:
        return None
    best: tuple[float, int] | None = None
    for seat, (a, b, c, d, e, f) in maps:
        cx, cy = a * x + b * y + c, d * x + e * y + f
        gap = math.hypot(max(0.0, -cx, cx - CHART.width), max(0.0, -cy, cy - CHART.height))
        if gap <= SEAT_REACH and (best is None or gap < best[0]):
            best = (gap, seat)
    return None if best is None else best[1]


def _token_value(label: str) -> int | None:
    return None if label == TOKEN_BACK else int(label.split("-")[1])


def build_table_view(
    items: list[tuple[Kind, tuple[float, float], float, Recognition]],
    charts: Mapping[int, ChartPose],
    mat_markers_seen: int,
    calibration_error_mm: float,
) -> TableView:
    """Assemble the view from classified detections ``(shape, table centre, angle, recognition)``."""
    components: list[SeenComponent] = []
    unknown: list[Unrecognised] = []
    maps = _chart_maps(charts)
    for shape, (x, y), angle, rec in items:
        zone = _zone(x, y, maps)
        if rec.verdict is Verdict.IDENTIFIED:
            components.append(SeenComponent(rec.best, shape, rec.confidence, x, y, angle, zone))
        else:
            reason = Reason.UNSURE if rec.verdict is Verdict.UNSURE else Reason.NOT_A_COMPONENT
            unknown.append(Unrecognised(shape, reason, rec.best, rec.confidence, x, y, angle, zone))
    components.sort(key=lambda c: (c.y, c.x))
    unknown.sort(key=lambda c: (c.y, c.x))
    best: dict[tuple[Any, ...], SeenComponent] = {}
    for c in components:
        z = c.zone
        key = (z.area, z.seat, z.suit, z.pile, z.space)
        if z.area is Area.CHART or z.area is Area.TABLE:
            continue
        if key not in best or c.confidence > best[key].confidence:
            best[key] = c
    placed: set[int] = set()
    tableau = []
    for suit in Suit:
        def card_at(pile: Pile, suit: Suit = suit) -> Card | None:
            c = best.get((Area.TABLEAU, None, suit, pile, None))
            if c is None or c.card is None:
                return None
            placed.add(id(c))
            return c.card
        poster = card_at(Pile.POSTER)
        tableau.append(SuitTableau(suit, poster is not None and poster.shade is Shade.POSTER,
                                   card_at(Pile.LIGHT), card_at(Pile.DARK)))
    chart_views = []
    for seat, pose in sorted(charts.items()):
        called: list[tuple[Space, Card]] = []
        for sp in Space:
            sc = best.get((Area.CHART_SPACE, seat, None, None, sp))
            card = sc.card if sc is not None else None
            if sc is not None and card is not None:
                placed.add(id(sc))
                called.append((sp, card))
        tokens: list[TokenOnChart] = []
        for suit in Suit:
            tok = best.get((Area.CHART_PICTURE, seat, suit, None, None))
            if tok is not None and tok.shape is Kind.TOKEN:
                placed.add(id(tok))
                value = _token_value(tok.label)
                tokens.append(TokenOnChart(suit, value is not None, value))
        chart_views.append(ChartView(seat, pose.angle, tuple(called), tuple(tokens)))
    loose = tuple(c for c in components if id(c) not in placed)
    return TableView(tuple(tableau), tuple(chart_views), loose, tuple(components), tuple(unknown),
                     mat_markers_seen, calibration_error_mm)
