"""Physical geometry of the printed Big Top components, in millimetres.

These are facts of the printed sheets (`vision.bigtop.printing`), not camera
settings. Table coordinates: origin at the mat's top-left corner, x to the
right, y downwards (as seen from above, mat text upright), millimetres.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass

from scorer.bigtop.cards import Suit
from vision.geometry import CardGeometry, Corners, Rect, TableGeometry, TokenGeometry

__all__ = [
    "BIGTOP_MARKERS",
    "BIGTOP_TABLE",
    "BigTopMarkers",
    "CARD",
    "CHART",
    "MAT",
    "TOKEN",
    "ARUCO_DICT",
    "CardGeometry",
    "ChartGeometry",
    "MatGeometry",
    "Pile",
    "Rect",
    "CARD_FACE_VERSION",
    "SHEET_VERSION",
    "Space",
    "TokenGeometry",
    "card_icon",
    "card_numerals",
    "chart_marker_ids",
    "seat_of_marker",
    "sheet_version_of",
]

#: OpenCV predefined dictionary used for every marker (``cv2.aruco.DICT_4X4_50``).
ARUCO_DICT = 0


class Pile(enum.Enum):
    """The three tableau places of a suit, left to right on the mat."""

    DARK = "dark"
    POSTER = "poster"
    LIGHT = "light"


@dataclass(frozen=True, slots=True)
class MatGeometry:
    """The play mat: corner and edge markers and the tableau (2 x 2 suit blocks).

    Sheet version 1 printed the four corner markers only; version 2 adds one marker
    at the middle of the left and of the right edge, so that the mat still
    calibrates with two corners hidden. A version 1 print still calibrates (its
    markers are a subset of version 2's, at the same places).
    """

    width: float = 500.0
    height: float = 280.0
    marker_size: float = 40.0
    marker_inset: float = 6.0
    slot_pitch: float = 65.0
    slot_width: float = 61.0
    slot_height: float = 92.0
    block_origin_x: tuple[float, float] = (50.0, 255.0)
    block_origin_y: tuple[float, float] = (22.0, 152.0)
    label_height: float = 14.0

    #: marker ids of the top-left, top-right, bottom-right and bottom-left corner, then
    #: (sheet version 2) the middle of the left and of the right edge
    marker_ids: tuple[int, ...] = (0, 1, 2, 3, 16, 17)

    def marker_corners(self, index: int) -> tuple[tuple[float, float], ...]:
        """Table coordinates of marker ``index`` (0..3 corners, 4..5 edges), in ArUco corner order."""
        s, i = self.marker_size, self.marker_inset
        x = i if index in (0, 3, 4) else self.width - i - s
        if index >= 4:
            y = (self.height - s) / 2
        else:
            y = i if index in (0, 1) else self.height - i - s
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))

    def block_origin(self, suit: Suit) -> tuple[float, float]:
        """Top-left of a suit's block (label row, then three slots)."""
        return (self.block_origin_x[int(suit) % 2], self.block_origin_y[int(suit) // 2])

    def slot(self, suit: Suit, pile: Pile) -> Rect:
        """The printed place of one tableau pile."""
        bx, by = self.block_origin(suit)
        col = list(Pile).index(pile)
        return Rect(
            bx + col * self.slot_pitch + (self.slot_pitch - self.slot_width) / 2,
            by + self.label_height,
            self.slot_width,
            self.slot_height,
        )

    def slot_at(self, x: float, y: float) -> tuple[Suit, Pile] | None:
        """The tableau place under table point (x, y), if any (slots grown by 4 mm)."""
        for x0, y0, x1, y1, place in _grown_slots(self):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return place
        return None


class Space(enum.IntEnum):
    """The called-card spaces of an Organizing Chart, by their dollar value."""

    D0 = 0
    D1 = 1
    D2 = 2
    D3 = 3

    @property
    def label(self) -> str:
        """``$0`` .. ``$3``."""
        return f"${int(self)}"


@dataclass(frozen=True, slots=True)
class ChartGeometry:
    """An Organizing Chart in its own millimetre frame (x right, y towards its player).

    The called-card spaces face the table centre (small y); the four suit
    pictures where gate-receipt tokens lie and the track 1..20 face the player.
    Markers name the seat and fix the pose, each one alone: two at the player-side
    corners (sides 0, 1) and, from sheet version 2, two larger ones at the left and
    right ends of the suit-picture row (sides 2, 3).
    """

    width: float = 280.0
    height: float = 190.0
    marker_size: float = 28.0
    marker_inset: float = 6.0
    #: side of the sheet version 2 markers (sides 2, 3) and the top of their row
    side_marker_size: float = 36.0
    side_marker_y: float = 108.0
    space_pitch: float = 64.0
    space_width: float = 61.0
    space_height: float = 92.0
    space_origin: tuple[float, float] = (13.5, 8.0)
    picture_diameter: float = 36.0
    picture_y: float = 130.0
    picture_x: tuple[float, float, float, float] = (77.0, 119.0, 161.0, 203.0)
    track_y: float = 158.0
    track_height: float = 22.0
    track_x: tuple[float, float] = (40.0, 240.0)

    def space(self, space: Space) -> Rect:
        """Where a called card lies; $0 is leftmost (the low-value end)."""
        ox, oy = self.space_origin
        i = int(space)
        return Rect(
            ox + i * self.space_pitch + (self.space_pitch - self.space_width) / 2,
            oy,
            self.space_width,
            self.space_height,
        )

    def picture_centre(self, suit: Suit) -> tuple[float, float]:
        """Centre of the suit picture where that suit's token lies."""
        return (self.picture_x[int(suit)], self.picture_y)

    def marker_corners(self, side: int) -> tuple[tuple[float, float], ...]:
        """Chart coordinates of marker ``side``, ArUco corner order.

        0, 1: the left and right player-side corner; 2, 3: the left and right end of the
        suit-picture row (sheet version 2).
        """
        s, i = self.side_size(side), self.marker_inset
        x = i if side in (0, 2) else self.width - i - s
        y = self.height - i - s if side < 2 else self.side_marker_y
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))

    def side_size(self, side: int) -> float:
        """The printed side (mm) of marker ``side``."""
        return self.marker_size if side < 2 else self.side_marker_size

    def space_at(self, x: float, y: float) -> Space | None:
        """The called-card space under chart point (x, y), if any."""
        for x0, y0, x1, y1, sp in _grown_spaces(self):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return sp
        return None

    def picture_at(self, x: float, y: float) -> Suit | None:
        """The suit picture under chart point (x, y), if any."""
        reach = self.picture_diameter / 2 + 6
        for cx, cy, suit in _pictures(self):
            if math.hypot(x - cx, y - cy) <= reach:
                return suit
        return None

    def contains(self, x: float, y: float) -> bool:
        """True when the chart point lies on the chart."""
        return 0 <= x <= self.width and 0 <= y <= self.height


@functools.lru_cache(maxsize=8)
def _grown_slots(mat: MatGeometry) -> tuple[tuple[float, float, float, float, tuple[Suit, Pile]], ...]:
    """Every tableau slot grown by 4 mm, as (x0, y0, x1, y1, (suit, pile)), in `slot_at`'s order."""
    out = []
    for suit in Suit:
        for pile in Pile:
            r = mat.slot(suit, pile)
            out.append((r.x - 4, r.y - 4, r.x + r.w + 4, r.y + r.h + 4, (suit, pile)))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _grown_spaces(chart: ChartGeometry) -> tuple[tuple[float, float, float, float, Space], ...]:
    """Every called-card space grown by 4 mm, as (x0, y0, x1, y1, space)."""
    out = []
    for sp in Space:
        r = chart.space(sp)
        out.append((r.x - 4, r.y - 4, r.x + r.w + 4, r.y + r.h + 4, sp))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _pictures(chart: ChartGeometry) -> tuple[tuple[float, float, Suit], ...]:
    """Every suit picture's centre, as (x, y, suit)."""
    return tuple((*chart.picture_centre(suit), suit) for suit in Suit)


CARD = CardGeometry()
TOKEN = TokenGeometry()
MAT = MatGeometry()
CHART = ChartGeometry()

#: Big Top seats 3..6 players.
MAX_SEATS = 6
#: the version of the printed sheets `vision.bigtop.printing` makes (see `MatGeometry`, `ChartGeometry`)
SHEET_VERSION = 2
#: the version of the card faces `vision.bigtop.faces` prints (kept apart from the sheets' `SHEET_VERSION`):
#: 1 one large numeral (or Poster "P") at the top of the face, the suit's icon below it; 2 the numeral again at the
#: foot turned 180 degrees, the icon smaller between the two (a glare spot seldom whitens both)
CARD_FACE_VERSION = 2


def card_numerals(version: int = CARD_FACE_VERSION) -> tuple[tuple[float, float], ...]:
    """Each numeral a card face of print ``version`` shows, top first, as (centre, height) in shares of the face
    field's height (the numeral's cap height; the foot's is the top's turned 180 degrees about the field's middle)."""
    if version < 2:
        return ((0.29, 0.34),)
    return ((0.24, 0.30), (0.76, 0.30))


def card_icon(version: int = CARD_FACE_VERSION) -> tuple[float, float, float]:
    """Where a card face of print ``version`` shows its suit's icon: (centre, largest share of the field's width,
    largest share of its height)."""
    if version < 2:
        return (0.72, 0.72, 0.4)
    return (0.5, 0.5, 0.19)


#: first id of the sheet version 2 chart markers (sides 2, 3); ids 4..15 are sides 0, 1
_V2_CHART_BASE = 18


def chart_marker_ids(seat: int) -> tuple[int, ...]:
    """Marker ids of seat ``seat``'s chart by side (0..3, see `ChartGeometry.marker_corners`); seats count from 0.

    Sides 0 and 1 (ids 4..15) are on every print; sides 2 and 3 (ids 18..29) from sheet version 2.
    """
    return (4 + 2 * seat, 5 + 2 * seat, _V2_CHART_BASE + 2 * seat, _V2_CHART_BASE + 1 + 2 * seat)


def seat_of_marker(marker_id: int) -> tuple[int, int] | None:
    """``(seat, side)`` for a chart marker id, ``None`` for any other id."""
    if 4 <= marker_id < 4 + 2 * MAX_SEATS:
        return ((marker_id - 4) // 2, (marker_id - 4) % 2)
    if _V2_CHART_BASE <= marker_id < _V2_CHART_BASE + 2 * MAX_SEATS:
        return ((marker_id - _V2_CHART_BASE) // 2, 2 + (marker_id - _V2_CHART_BASE) % 2)
    return None


def sheet_version_of(marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
    """The oldest sheet version consistent with the layout markers seen: 2 when any version 2 marker
    shows, 1 when only version 1 markers do, ``None`` when no layout marker shows.

    Every version so far is read: version 1 prints carry a subset of version 2's markers.
    """
    v2 = set(MAT.marker_ids[4:]) | set(range(_V2_CHART_BASE, _V2_CHART_BASE + 2 * MAX_SEATS))
    v1 = set(MAT.marker_ids[:4]) | set(range(4, 4 + 2 * MAX_SEATS))
    ids = set(marker_ids)
    if ids & v2:
        return 2
    return 1 if ids & v1 else None


@dataclass(frozen=True, slots=True)
class BigTopMarkers:
    """The Big Top mat's and Organizing Charts' markers, as the vision core reads them (`vision.geometry.MarkerLayout`)."""

    mat: MatGeometry = MAT
    chart: ChartGeometry = CHART
    aruco_dictionary: int = ARUCO_DICT

    @property
    def width(self) -> float:
        """The mat's width (mm)."""
        return self.mat.width

    @property
    def height(self) -> float:
        """The mat's height (mm)."""
        return self.mat.height

    @property
    def marker_size(self) -> float:
        """The side of the mat's markers (mm)."""
        return self.mat.marker_size

    @property
    def marker_ids(self) -> tuple[int, ...]:
        """The mat's marker ids: corners, then (sheet version 2) the edges."""
        return self.mat.marker_ids

    def marker_corners(self, index: int) -> Corners:
        """Table coordinates of the mat's marker ``index``."""
        return self.mat.marker_corners(index)

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """The left edge's markers (corners 0, 3 and edge 4) and the right edge's (1, 2, 5)."""
        return ((0, 3, 4), (1, 2, 5))

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """Version 1 prints carry the four corner markers only."""
        return self.mat.marker_ids if version >= 2 else self.mat.marker_ids[:4]

    def markers_per_board(self, version: int) -> int:
        """Two markers per chart on version 1 prints, four from version 2."""
        return 4 if version >= 2 else 2

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """See `sheet_version_of`."""
        return sheet_version_of(marker_ids)

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """``(seat, side)`` of a chart marker."""
        return seat_of_marker(marker_id)

    def board_marker_corners(self, side: int) -> Corners:
        """Chart coordinates of a chart's marker ``side``."""
        return self.chart.marker_corners(side)

    def board_marker_size(self, side: int) -> float:
        """The side (mm) of a chart's marker ``side``."""
        return self.chart.side_size(side)


#: The Big Top markers, and the Big Top table as the vision core sees it.
BIGTOP_MARKERS = BigTopMarkers()
BIGTOP_TABLE = TableGeometry(BIGTOP_MARKERS, CARD, TOKEN)
