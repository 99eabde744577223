"""Circus Flohcati's printed table: the mat, its zones, its markers and the code printed on every card.

Table millimetres, origin at the mat's top-left corner, x to the right, y down.

The mat (600 x 570 mm, printed on A4 sheets and taped together) carries five
ArUco markers (four corners and the top edge's middle) and these zones:

* the **stack** spot, where the face-down draw stack lies;
* the **action lane**: every action card turned is laid here, overlapping the
  one before so that its top-left corner stays visible;
* the **request strip**: ten colour fields. A Request attraction card is laid
  with its top-left corner on the colour asked for (turned sideways when nobody
  holds that colour);
* the **row** of turned flea cards, left to right, each overlapping the one
  before it (its top-left corner visible);
* four **seat zones** along the bottom edge, one per seat, for the trios, for a
  card a player shows (a card taken or given after an action card), and for
  the hand laid open at the end of the game.

Every card carries one ArUco code (``DICT_4X4_100``, 26 mm) in its top-left corner;
flea cards ids 10..89 (colour by colour, values 0 to 7), the action cards 90,
91, 92 (the three copies of a kind share their id). The mat's markers are
ids 0..4. Where a card lies is where its code's centre lies.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import cv2

from scorer.flohcati.cards import FLEAS, Action, Colour, DeckCard, Flea
from vision.geometry import CardGeometry, Corners, Rect, TableGeometry, TokenGeometry

__all__ = [
    "ACTION_IDS",
    "ARUCO_DICTIONARY",
    "CARD",
    "CARD_PARTS",
    "CODE_CENTRE",
    "CODE_SIZE",
    "FAN_STEP",
    "GEOMETRY",
    "MAT",
    "MAX_SEATS",
    "SEAT_ROWS",
    "Area",
    "FlohcatiMat",
    "lanes",
    "card_id",
    "card_of_id",
    "is_card_id",
    "request_field",
    "row_slot",
    "seat_slot",
    "visible_part",
    "zone_of",
]

#: OpenCV predefined dictionary of the mat's markers and the cards' codes.
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_100
#: The card: 57 x 88 mm (the vision core's default card shape).
CARD = CardGeometry()
#: Side of the code printed on each card (mm) and its centre in card millimetres (from the top-left corner).
CODE_SIZE = 26.0
CODE_CENTRE = (16.0, 16.0)
#: How far each card is laid from the one it overlaps (mm): the code and a thin edge stay visible.
FAN_STEP = 32.0
#: Rows of cards in a seat zone (each row 3 cards across, a row 31 mm below the one above).
SEAT_ROWS = 6
SEAT_COLUMNS = 3
ROW_STEP = 31.0
#: Seats the mat has zones for.
MAX_SEATS = 4
#: ids of the action cards' codes.
ACTION_IDS: dict[Action, int] = {Action.NEW: 90, Action.TAKE: 91, Action.REQUEST: 92}
_FIRST_FLEA_ID = 10


class Area(enum.Enum):
    """The zones of the mat."""

    STACK = "stack"
    ACTIONS = "action lane"
    REQUEST = "request strip"
    ROW = "row"
    SEAT = "seat zone"
    #: anywhere else on or around the mat (ignored)
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class FlohcatiMat:
    """The mat's size, markers and zones (a `vision.geometry.MarkerLayout`; the mat has no seat boards)."""

    width: float = 600.0
    height: float = 570.0
    marker_size: float = 36.0
    marker_inset: float = 8.0
    marker_ids: tuple[int, ...] = (0, 1, 2, 3, 4)
    stack: Rect = Rect(50.0, 52.0, 57.0, 88.0)
    actions: Rect = Rect(112.0, 48.0, 315.0, 96.0)
    request: Rect = Rect(430.0, 48.0, 160.0, 40.0)
    row: Rect = Rect(45.0, 160.0, 530.0, 90.0)
    seats: Rect = Rect(8.0, 262.0, 584.0, 176.0)

    @property
    def aruco_dictionary(self) -> int:
        """``cv2.aruco.DICT_4X4_100``."""
        return int(ARUCO_DICTIONARY)

    def marker_corners(self, index: int) -> Corners:
        """Table coordinates of marker ``index``: 0..3 the corners (clockwise from top-left), 4 the top middle."""
        s, i = self.marker_size, self.marker_inset
        x, y = [(i, i), (self.width - i - s, i), (self.width - i - s, self.height - i - s),
                (i, self.height - i - s), ((self.width - s) / 2, i)][index]
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """The markers along each edge."""
        return ((0, 4, 1), (1, 2), (2, 3), (3, 0))

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """One sheet version so far."""
        return self.marker_ids

    def markers_per_board(self, version: int) -> int:
        """No seat boards."""
        return 0

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """1 when any mat marker is among them."""
        return 1 if set(marker_ids) & set(self.marker_ids) else None

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """No seat boards."""
        return None

    def board_marker_corners(self, side: int) -> Corners:
        """No seat boards."""
        raise ValueError("the Circus Flohcati mat has no seat boards")

    def board_marker_size(self, side: int) -> float:
        """No seat boards."""
        raise ValueError("the Circus Flohcati mat has no seat boards")

    def seat_zone(self, seat: int) -> Rect:
        """Where the codes of ``seat``'s cards lie (seat 0 at the left)."""
        w = self.seats.w / MAX_SEATS
        return Rect(self.seats.x + seat * w, self.seats.y, w, self.seats.h)


MAT = FlohcatiMat()
GEOMETRY = TableGeometry(MAT, CARD, TokenGeometry())


def card_id(card: DeckCard) -> int:
    """The code printed on a card."""
    if isinstance(card, Flea):
        return _FIRST_FLEA_ID + card.index
    return ACTION_IDS[card]


_BY_ID: dict[int, DeckCard] = {card_id(f): f for f in FLEAS}
_BY_ID.update({i: a for a, i in ACTION_IDS.items()})


def is_card_id(marker_id: int) -> bool:
    """True for the codes printed on cards."""
    return marker_id in _BY_ID


def card_of_id(marker_id: int) -> DeckCard:
    """The card whose code is ``marker_id``.

    :raises KeyError: for an id no card carries.
    """
    return _BY_ID[marker_id]


def request_field(x: float) -> Colour | None:
    """The colour field of the request strip under x (None outside the strip)."""
    strip = MAT.request
    k = math.floor((x - strip.x) / (strip.w / len(Colour)))
    return list(Colour)[k] if 0 <= k < len(Colour) else None


def zone_of(x: float, y: float) -> tuple[Area, int | None]:
    """The zone (and seat, for a seat zone) of a code's centre."""
    if MAT.stack.contains(x, y):
        return Area.STACK, None
    if MAT.request.contains(x, y):
        return Area.REQUEST, None
    if MAT.actions.contains(x, y):
        return Area.ACTIONS, None
    if MAT.row.contains(x, y):
        return Area.ROW, None
    if MAT.seats.contains(x, y):
        seat = min(MAX_SEATS - 1, int((x - MAT.seats.x) / (MAT.seats.w / MAX_SEATS)))
        return Area.SEAT, seat
    return Area.TABLE, None


def _top_left(code_x: float, code_y: float) -> tuple[float, float]:
    return (code_x - CODE_CENTRE[0], code_y - CODE_CENTRE[1])


def row_slot(k: int) -> tuple[float, float]:
    """Top-left corner (table mm) of the ``k``-th card of the row."""
    return _top_left(MAT.row.x + 18.0 + k * FAN_STEP, MAT.row.y + 22.0)


def action_slot(k: int) -> tuple[float, float]:
    """Top-left corner of the ``k``-th action card of the lane."""
    return _top_left(MAT.actions.x + 18.0 + k * FAN_STEP, MAT.actions.y + 22.0)


def seat_slot(seat: int, k: int) -> tuple[float, float]:
    """Top-left corner of the ``k``-th card laid in ``seat``'s zone (four across, then the next row)."""
    zone = MAT.seat_zone(seat)
    col, row = k % SEAT_COLUMNS, k // SEAT_COLUMNS
    return _top_left(zone.x + 18.0 + col * FAN_STEP, zone.y + 14.0 + row * ROW_STEP)


def request_slot(colour: Colour) -> tuple[float, float]:
    """Top-left corner of a Request card asking for ``colour``."""
    strip = MAT.request
    w = strip.w / len(Colour)
    return _top_left(strip.x + (colour.index + 0.5) * w, strip.y + strip.h / 2)


def stack_slot() -> tuple[float, float]:
    """Top-left corner of the stack."""
    return (MAT.stack.x, MAT.stack.y)


#: Cards a seat zone holds.
SEAT_CAPACITY = SEAT_ROWS * SEAT_COLUMNS


def lanes() -> list[tuple[Area, int | None, Rect, list[tuple[float, float]]]]:
    """The zones filled slot by slot, in the order cards are laid there: the row, the action lane and each seat's
    zone, each with its area, seat, outline and its slots' top-left corners (table mm)."""
    out: list[tuple[Area, int | None, Rect, list[tuple[float, float]]]] = [
        (Area.ROW, None, MAT.row, [row_slot(k) for k in range(int(MAT.row.w // FAN_STEP))]),
        (Area.ACTIONS, None, MAT.actions, [action_slot(k) for k in range(int(MAT.actions.w // FAN_STEP))])]
    out += [(Area.SEAT, s, MAT.seat_zone(s), [seat_slot(s, k) for k in range(SEAT_CAPACITY)]) for s in range(MAX_SEATS)]
    return out


#: The parts of a card that cards laid over it may leave in view (card mm from its top-left corner: x0, y0, x1, y1),
#: largest first: the whole card; the strip left of a card laid `FAN_STEP` to its right; the band above a card laid
#: `ROW_STEP` below it; the corner above and left of both.
CARD_PARTS: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 0.0, CARD.width, CARD.height), (0.0, 0.0, 28.0, CARD.height), (0.0, 0.0, CARD.width, 27.0), (0.0, 0.0, 28.0, 27.0))
#: a card laid over another is taken to reach this far (mm) beyond where the layout lays it (it lies a little off
#: and turned)
_OVER_MARGIN = 4.0


def visible_part(later: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """The largest of `CARD_PARTS` that no card laid later covers, each given by its top-left corner's offset
    (mm) from this card's; the whole card when none is."""
    m = _OVER_MARGIN
    for x0, y0, x1, y1 in CARD_PARTS[:-1]:
        if all(x1 + m <= dx or y1 + m <= dy or x0 >= dx + CARD.width + m or y0 >= dy + CARD.height + m
               for dx, dy in later):
            return (x0, y0, x1, y1)
    return CARD_PARTS[-1]
