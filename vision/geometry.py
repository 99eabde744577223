"""What the vision core needs to know of a game's printed table, and nothing of the game itself.

A game that the camera reads through markers and printed components describes
its table with a `TableGeometry`: where the markers are (`MarkerLayout`: the
mat's, in table millimetres, and each seat board's, in board millimetres), and
the shape of its printed cards and tokens (a white margin, a dark frame line,
the face field inside). The core stages (`vision.calibrate`, `vision.detect`)
work from it; each game's package (`vision/<game>/`) provides one.

Table coordinates: origin at the mat's top-left corner, x to the right, y
downwards, as seen from above; millimetres.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from numpy.typing import NDArray

__all__ = [
    "CardGeometry",
    "Corners",
    "Image",
    "Kind",
    "MarkerLayout",
    "Rect",
    "TableGeometry",
    "TokenGeometry",
]

#: An image as OpenCV holds it: ``(H, W, 3)`` uint8 BGR, or ``(H, W)`` grey.
Image = NDArray[Any]
#: The four corners of a printed marker, in ArUco order (top-left, top-right, bottom-right, bottom-left).
Corners = tuple[tuple[float, float], ...]


class Kind(enum.Enum):
    """The shape of a printed component (and of the classifier label that names it)."""

    CARD = "card"
    TOKEN = "token"
    #: not a component at all (clutter, a foreign object)
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle ``(x, y, w, h)`` in some millimetre frame."""

    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        """The centre point."""
        return (self.x + self.w / 2, self.y + self.h / 2)

    def contains(self, px: float, py: float) -> bool:
        """True when the point lies inside (edges included)."""
        return self.x <= px <= self.x + self.w and self.y <= py <= self.y + self.h


@dataclass(frozen=True, slots=True)
class CardGeometry:
    """A printed card: white margin, a dark frame line, then the face field."""

    width: float = 57.0
    height: float = 88.0
    margin: float = 2.0
    frame: float = 2.2
    corner_radius: float = 3.0

    @property
    def inner_width(self) -> float:
        """Width of the face field inside the frame line."""
        return self.width - 2 * (self.margin + self.frame)

    @property
    def inner_height(self) -> float:
        """Height of the face field inside the frame line."""
        return self.height - 2 * (self.margin + self.frame)


@dataclass(frozen=True, slots=True)
class TokenGeometry:
    """A printed round token: white rim, dark ring, face field."""

    diameter: float = 30.0
    margin: float = 1.8
    frame: float = 2.2

    @property
    def inner_diameter(self) -> float:
        """Diameter of the face field inside the ring."""
        return self.diameter - 2 * (self.margin + self.frame)


class MarkerLayout(Protocol):
    """Where a game's printed ArUco markers are: on the mat, and on each seat's board.

    Printed sheets carry a version; a newer version may add markers (a later
    print calibrates with more of them hidden). ``marker_ids`` lists the mat's
    markers of the newest version, in the order `marker_corners` numbers them.
    """

    @property
    def aruco_dictionary(self) -> int:
        """The OpenCV predefined dictionary of every marker (``cv2.aruco.DICT_4X4_50`` is 0)."""
        ...

    @property
    def width(self) -> float:
        """The mat's width (mm)."""
        ...

    @property
    def height(self) -> float:
        """The mat's height (mm)."""
        ...

    @property
    def marker_size(self) -> float:
        """The printed side (mm) of the mat's markers."""
        ...

    @property
    def marker_ids(self) -> tuple[int, ...]:
        """The mat's marker ids (newest sheet version)."""
        ...

    def marker_corners(self, index: int) -> Corners:
        """Table coordinates of the mat's marker ``marker_ids[index]``."""
        ...

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """Sets of mat marker indices that lie along one line (an edge): alone they fix the mat badly."""
        ...

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """The mat's marker ids on a print of sheet ``version``."""
        ...

    def markers_per_board(self, version: int) -> int:
        """How many markers each seat board carries on a print of sheet ``version``."""
        ...

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """The sheet version the markers seen belong to, None when none is the layout's."""
        ...

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """``(seat, side)`` of a seat board's marker, None for any other id."""
        ...

    def board_marker_corners(self, side: int) -> Corners:
        """Board coordinates of a board's marker ``side``."""
        ...

    def board_marker_size(self, side: int) -> float:
        """The printed side (mm) of a board's marker ``side``."""
        ...


@dataclass(frozen=True, slots=True)
class TableGeometry:
    """A game's printed table as the vision core sees it: its markers and the shapes of its components."""

    markers: MarkerLayout
    card: CardGeometry
    token: TokenGeometry
