"""Physical geometry of the printed Circus Grandioso table, in millimetres.

Facts of the printed sheets (`vision.grandioso.printing`), not camera settings.
Table coordinates: origin at the mat's top-left corner, x to the right, y
downwards (as seen from above, mat text upright), millimetres.

The pyramid grows up the mat: row 0 (the Elephants) lies lowest, and each
card of row ``r + 1`` lies half over the two cards below it, hiding their
upper halves. So every card carries its code (an ArUco marker) and its name in
its lower half, which stays visible. The engine's column 0 is the start
Elephant's printed spot in the middle of the base line; the base may grow up
to nine cards to either side, and the mat is wide enough for both.

>>> slot_centre(0, 0)
(470.0, 332.0)
>>> MAT.row_col_at(*code_centre(3, -2))
(3, -2, 0.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.grandioso.pyramid import BASE_WIDTH, ROWS, Card
from vision.geometry import CardGeometry, Corners, Rect, TableGeometry, TokenGeometry

__all__ = [
    "ARUCO_DICT",
    "BACK_ID",
    "CARD",
    "CARD_IDS",
    "CODE_SIZE",
    "COLUMNS",
    "GRANDIOSO_MARKERS",
    "GRANDIOSO_TABLE",
    "GrandiosoMarkers",
    "MAT",
    "MatGeometry",
    "PITCH",
    "ROW_PITCH",
    "SINGLE_INSET",
    "SINGLE_PITCH",
    "card_of_id",
    "code_centre",
    "slot_centre",
]

#: OpenCV predefined dictionary of every marker (``cv2.aruco.DICT_4X4_50``).
ARUCO_DICT = 0
#: The printed card: smaller than a poker card, so that a ten-card base fits on the mat.
CARD = CardGeometry(width=42.0, height=64.0, margin=1.5, frame=1.2, corner_radius=3.0)
#: Horizontal distance between neighbouring cards of a row, and vertical distance between rows.
PITCH = 44.0
ROW_PITCH = CARD.height / 2
#: Side of the code printed on each card's lower half (and on the back's centre).
CODE_SIZE = 24.0
#: The singles row's numbered places: the first begins this far (mm) into the row, and they are this far apart.
SINGLE_INSET = 4.0
SINGLE_PITCH = PITCH + 2.0
#: The engine columns a card of the base may take: nine to either side of the start spot.
COLUMNS = range(-(BASE_WIDTH - 1), BASE_WIDTH)

#: The code of each card face. Chosen from the dictionary so that any two of these and of
#: the mat's markers differ in at least five bits in every rotation: a misread bit or two
#: gives an id that is no card (unrecognised), never another card.
CARD_IDS: dict[Card, int] = {
    Card.ELEPHANT: 6, Card.RHINO: 7, Card.CAMEL: 8, Card.PONY: 22, Card.TIGER: 9, Card.BEAR: 11,
    Card.LION: 12, Card.CROCODILE: 13, Card.CHIMPANZEE: 14, Card.SEAL: 15, Card.CLOWN: 35,
}
#: The code on every card back.
BACK_ID = 10
_CARD_OF_ID = {v: k for k, v in CARD_IDS.items()}


def card_of_id(marker_id: int) -> Card | None:
    """The card face whose code is ``marker_id``, None for any other id."""
    return _CARD_OF_ID.get(marker_id)


@dataclass(frozen=True, slots=True)
class MatGeometry:
    """The play mat: six markers, the pyramid area, the stack, the Show Master's spot and the singles row."""

    width: float = 940.0
    height: float = 460.0
    marker_size: float = 40.0
    marker_inset: float = 6.0
    #: x of the start Elephant's centre (engine column 0), and the top edge of the Elephant row
    centre_x: float = 470.0
    base_top: float = 300.0
    #: the stack's printed place (upper left, beside the pyramid's slope)
    stack: Rect = Rect(60.0, 60.0, CARD.width, CARD.height)
    #: the Show Master's round spot (upper right): centre and radius
    show_master: tuple[float, float, float] = (859.0, 92.0, 26.0)
    #: the row of face-down single cards along the bottom edge
    singles: Rect = Rect(56.0, 378.0, 828.0, 70.0)
    #: marker ids: top-left, top-right, bottom-right, bottom-left corner, then the middle of the
    #: left and of the right edge
    marker_ids: tuple[int, ...] = (0, 1, 2, 3, 4, 5)

    def marker_corners(self, index: int) -> Corners:
        """Table coordinates of marker ``index`` (0..3 corners, 4..5 edges), in ArUco corner order."""
        s, i = self.marker_size, self.marker_inset
        x = i if index in (0, 3, 4) else self.width - i - s
        if index >= 4:
            y = (self.height - s) / 2
        else:
            y = i if index in (0, 1) else self.height - i - s
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))

    def card_rect(self, row: int, col: int) -> Rect:
        """Where the card at engine place ``(row, col)`` lies."""
        cx = self.centre_x + (col + row / 2) * PITCH
        return Rect(cx - CARD.width / 2, self.base_top - row * ROW_PITCH, CARD.width, CARD.height)

    def row_col_at(self, x: float, y: float) -> tuple[int, int, float, float]:
        """The pyramid place whose code centre is nearest table point (x, y), and the offset (mm) from it."""
        row = round((self.base_top + 0.75 * CARD.height - y) / ROW_PITCH)
        col = round((x - self.centre_x) / PITCH - row / 2)
        ex, ey = code_centre(row, col)
        return row, col, x - ex, y - ey

    @property
    def pyramid_area(self) -> Rect:
        """The printed pyramid area: every place a card of the pyramid may take."""
        left = self.card_rect(0, COLUMNS[0])
        return Rect(left.x - 3, self.base_top - (ROWS - 1) * ROW_PITCH - 3,
                    len(COLUMNS) * PITCH - (PITCH - CARD.width) + 6, (ROWS - 1) * ROW_PITCH + CARD.height + 6)

    def in_place(self, row: int, col: int) -> bool:
        """True when ``(row, col)`` is a place of the printed pyramid (row 0..9, inside the base's reach)."""
        return 0 <= row < ROWS and COLUMNS[0] <= col and col + row <= COLUMNS[-1]


def slot_centre(row: int, col: int) -> tuple[float, float]:
    """The centre of the card at engine place ``(row, col)``."""
    return MAT.card_rect(row, col).centre


def code_centre(row: int, col: int) -> tuple[float, float]:
    """The centre of the code of the card at ``(row, col)``: the middle of its lower half."""
    r = MAT.card_rect(row, col)
    return (r.x + r.w / 2, r.y + 0.75 * r.h)


MAT = MatGeometry()


@dataclass(frozen=True, slots=True)
class GrandiosoMarkers:
    """The mat's markers as the vision core reads them (`vision.geometry.MarkerLayout`); no seat boards."""

    mat: MatGeometry = MAT

    @property
    def aruco_dictionary(self) -> int:
        """``cv2.aruco.DICT_4X4_50``."""
        return ARUCO_DICT

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
        """The printed side (mm) of the mat's markers."""
        return self.mat.marker_size

    @property
    def marker_ids(self) -> tuple[int, ...]:
        """The mat's marker ids."""
        return self.mat.marker_ids

    def marker_corners(self, index: int) -> Corners:
        """Table coordinates of the mat's marker ``marker_ids[index]``."""
        return self.mat.marker_corners(index)

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """The mat's edges: markers along one of them alone fix the mat badly."""
        return ((0, 1), (1, 2, 5), (2, 3), (3, 0, 4))

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """The mat's marker ids (one sheet version so far)."""
        return self.mat.marker_ids

    def markers_per_board(self, version: int) -> int:
        """No seat boards."""
        return 0

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """1 when any mat marker was seen, else None."""
        return 1 if set(marker_ids) & set(self.mat.marker_ids) else None

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """No seat boards: always None."""
        return None

    def board_marker_corners(self, side: int) -> Corners:
        """No seat boards.

        :raises LookupError: always.
        """
        raise LookupError("Circus Grandioso has no seat boards")

    def board_marker_size(self, side: int) -> float:
        """No seat boards.

        :raises LookupError: always.
        """
        raise LookupError("Circus Grandioso has no seat boards")


GRANDIOSO_MARKERS = GrandiosoMarkers()
#: The table as the vision core sees it (the token shape is the Show Master's).
GRANDIOSO_TABLE = TableGeometry(GRANDIOSO_MARKERS, CARD, TokenGeometry(diameter=50.0))
