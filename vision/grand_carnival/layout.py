"""Physical geometry of Ringside's printed Grand Carnival components, in millimetres.

These are facts of the print-and-play sheets (`vision.grand_carnival.printing`),
Ringside's own: the real box's sizes are not known. Board coordinates: origin
at the market board's top-left corner, x to the right, y downwards (the circus
tent at the top, the entrances at the bottom, as the player sees it).

ArUco markers (OpenCV ``DICT_4X4_50``, the dictionary of Big Top's sheets):
each player's market board carries four, one in each corner, ids
``30 + 4 * seat`` .. ``33 + 4 * seat`` in the order top-left, top-right,
bottom-right, bottom-left (seat 0: 30-33, seat 1: 34-37, seat 2: 38-41,
seat 3: 42-45). The wagon row's board carries 46-49 (sheet version 2). Big Top
uses 0-29 (mat 0-3, 16, 17; charts 4-15, 18-29), so both games' sheets can lie
on one table.

Sheet version 2 (`SHEET_VERSION`) made every piece readable by the camera: each
kind of field and piece has a colour of its own (`vision.grand_carnival.printing`),
the tent has eight places for guests, the entrances are plain walkway boxes,
the board has three places for trick markers, and the pieces that lie on a
field (guests, barkers, tickets, figures) are smaller than the field, so the
field's colour shows around them. Version 1 boards (no tent places) are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ARUCO_DICT",
    "BOARD",
    "COMPONENTS",
    "FIELD",
    "MARKER_IDS",
    "MAX_SEATS",
    "SHEET_VERSION",
    "TENT_PLACES",
    "TRICK_PLACES",
    "BoardGeometry",
    "WAGON",
    "WAGON_MARKER_IDS",
    "WagonGeometry",
    "PrintedComponent",
    "board_marker_ids",
    "decision_keys",
    "decisions_of",
    "seat_of_marker",
]

#: OpenCV predefined dictionary of every marker (``cv2.aruco.DICT_4X4_50``).
ARUCO_DICT = 0
#: Players (market boards) the sheets print.
MAX_SEATS = 4
#: The first marker id of the Grand Carnival's boards (Big Top uses 0..29).
FIRST_MARKER = 30
#: Side of one market field, and of one field of a foundation tile or attraction.
FIELD = 18.0
#: The printed sheets' version (printed on each board; the recogniser reads this version).
SHEET_VERSION = 2
#: Places for guests in the circus tent (one above each column); scoring counts up to 4.
TENT_PLACES = 8
#: Places for trick markers (a figure on each trick learned) on the board's right.
TRICK_PLACES = 3


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """A player's market board: 8 x 8 fields under the tent strip, entrances below, numbers on the left."""

    width: float = 250.0
    height: float = 190.0
    marker_size: float = 20.0
    marker_inset: float = 4.0
    #: top-left corner of field a8
    grid_x: float = 53.0
    grid_y: float = 24.0
    field: float = FIELD
    tent_height: float = 16.0
    entrance_height: float = 16.0
    #: the column of action numbers 1..5, left of the grid
    numbers_x: float = 29.0
    numbers_width: float = 20.0

    @property
    def grid_size(self) -> float:
        """Side of the 8 x 8 market."""
        return 8 * self.field

    def field_rect(self, cell: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of a market field (``cell`` = row * 8 + column, row 0 at the tent)."""
        row, col = divmod(cell, 8)
        return (self.grid_x + col * self.field, self.grid_y + row * self.field, self.field, self.field)

    def tent_rect(self, place: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of tent place ``place`` (0 .. `TENT_PLACES` - 1, above column ``place``)."""
        return (self.grid_x + place * self.field + 1, self.grid_y - self.tent_height - 1, self.field - 2,
                self.tent_height)

    def entrance_rect(self, column: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of the entrance below ``column`` of row 1."""
        return (self.grid_x + column * self.field + 1, self.grid_y + self.grid_size + 1.5, self.field - 2,
                self.entrance_height - 3)

    def number_rect(self, number: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of action number ``number`` (1..5)."""
        step = self.grid_size / 5
        return (self.numbers_x, self.grid_y + (number - 1) * step + 1, self.numbers_width, step - 2)

    def number_spot(self, number: int) -> tuple[float, float]:
        """Where the figure on action number ``number`` stands: the printed ring below the digit."""
        x, y, w, h = self.number_rect(number)
        return (x + w / 2, y + h * 0.64)

    def trick_rect(self, place: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of trick marker place ``place`` (0 .. `TRICK_PLACES` - 1) on the right panel."""
        return (self.grid_x + self.grid_size + 10, 114 + place * 16.0, 14.0, 14.0)

    def marker_corners(self, index: int) -> tuple[tuple[float, float], ...]:
        """Board coordinates of corner marker ``index`` (0 top-left .. 3 bottom-left), in ArUco corner order."""
        s, i = self.marker_size, self.marker_inset
        x = i if index in (0, 3) else self.width - i - s
        y = i if index in (0, 1) else self.height - i - s
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))


#: The printed market board.
BOARD = BoardGeometry()


def board_marker_ids(seat: int) -> tuple[int, int, int, int]:
    """The marker ids of a seat's market board: top-left, top-right, bottom-right, bottom-left.

    >>> board_marker_ids(0), board_marker_ids(3)
    ((30, 31, 32, 33), (42, 43, 44, 45))
    """
    if not 0 <= seat < MAX_SEATS:
        raise ValueError(f"seat must be 0..{MAX_SEATS - 1}, not {seat}")
    first = FIRST_MARKER + 4 * seat
    return (first, first + 1, first + 2, first + 3)


#: Every marker id of the market boards.
MARKER_IDS: tuple[int, ...] = tuple(i for seat in range(MAX_SEATS) for i in board_marker_ids(seat))
#: The wagon row board's markers: top-left, top-right, bottom-right, bottom-left.
WAGON_MARKER_IDS: tuple[int, int, int, int] = (46, 47, 48, 49)


@dataclass(frozen=True, slots=True)
class WagonGeometry:
    """The wagon row's board: space 1 with the two face-down stacks (1a, 1b), spaces 2..5 with an open tile each.

    Markers in the corners, the spaces in a row between them; each slot is a coloured
    square of a tile's size, so the camera tells an empty slot from a tile (face up: its
    fields; face down: its blank back).
    """

    width: float = 260.0
    height: float = 96.0
    marker_size: float = 16.0
    marker_inset: float = 3.0
    slot: float = 2 * FIELD
    slot_y: float = 36.0

    def marker_corners(self, index: int) -> tuple[tuple[float, float], ...]:
        """Wagon board coordinates of corner marker ``index`` (0 top-left .. 3 bottom-left), in ArUco corner order."""
        s, i = self.marker_size, self.marker_inset
        x = i if index in (0, 3) else self.width - i - s
        y = i if index in (0, 1) else self.height - i - s
        return ((x, y), (x + s, y), (x + s, y + s), (x, y + s))

    def space_rect(self, space: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of railyard space ``space`` (1..5): its printed box."""
        x = 7.0 if space == 1 else 7.0 + 80.0 + (space - 2) * 42.0
        w = 78.0 if space == 1 else 40.0
        return (x, self.slot_y - 13.0, w, self.slot + 17.0)

    def slot_rect(self, source: str) -> tuple[float, float, float, float]:
        """(x, y, w, h) of the slot of railyard source ``source`` ("1a", "1b", "2" .. "5")."""
        space = int(source[0])
        x, _, _, _ = self.space_rect(space)
        x += 2.0 + (self.slot + 2.0 if source == "1b" else 0.0)
        return (x, self.slot_y, self.slot, self.slot)


#: The printed wagon row board.
WAGON = WagonGeometry()


def seat_of_marker(marker_id: int) -> tuple[int, int] | None:
    """(seat, corner index) of a market board marker, or None for any other id.

    >>> seat_of_marker(37), seat_of_marker(3)
    ((1, 3), None)
    """
    if marker_id not in MARKER_IDS:
        return None
    return divmod(marker_id - FIRST_MARKER, 4)


@dataclass(frozen=True, slots=True)
class PrintedComponent:
    """A kind of printed component and the keys of ``components.toml`` whose facts it shows."""

    name: str
    keys: tuple[str, ...]


#: What the sheets print, and which facts of ``components.toml`` each shows.
COMPONENTS: tuple[PrintedComponent, ...] = (
    PrintedComponent("market board", ("market.empty_parcel_hammers", "entrances.columns")),
    PrintedComponent("wagon row", ()),
    PrintedComponent("foundation tiles", ("foundations",)),
    PrintedComponent("attractions", ("attractions.shapes", "attractions.reflections")),
    PrintedComponent("guests", ("guests.supply",)),
    PrintedComponent("barkers", ("barkers.supply",)),
    PrintedComponent("tickets", ()),
    PrintedComponent("trick cards", ("tricks.cards", "tricks.dealt")),
)

_HEADER = re.compile(r"^\[\[?\s*([A-Za-z0-9_.]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^([A-Za-z0-9_]+)\s*=")


def decision_keys(toml_text: str) -> frozenset[str]:
    """The keys of a ``components.toml`` text tagged ``[DECISION`` in the comment just above them.

    A comment block (comment lines with no blank line between) that contains
    ``[DECISION`` tags the table header or key on the line right after it;
    inline comments and blocks followed by a blank line tag nothing.

    >>> decision_keys("# intro [DECISION]\\n\\n[market]\\n# [DECISION 1]\\nhammers = 1\\n# [SRC]\\nx = 2\\n")
    frozenset({'market.hammers'})
    """
    tagged: set[str] = set()
    table = ""
    block_decides = False
    in_block = False
    for raw in toml_text.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            block_decides = (block_decides if in_block else False) or "[DECISION" in line
            in_block = True
            continue
        header = _HEADER.match(line)
        key = None if header else _KEY.match(line)
        if header:
            table = header.group(1)
            name = table
        elif key:
            name = f"{table}.{key.group(1)}" if table else key.group(1)
        else:
            name = ""
        if in_block and block_decides and name:
            tagged.add(name)
        in_block = block_decides = False
    return frozenset(tagged)


def decisions_of(keys: frozenset[str]) -> tuple[PrintedComponent, ...]:
    """The printed components that show a fact tagged as Ringside's decision."""
    return tuple(c for c in COMPONENTS if any(k in keys for k in c.keys))


class CarnivalMarkers:
    """The markers of the market boards as the vision core's `vision.geometry.MarkerLayout` sees them.

    The Grand Carnival has no mat: every board is located by its own four
    markers, so the "mat" here is each board's markers in its own millimetres
    (``marker_ids`` in seat order), and there are no seat boards in the core's sense.
    """

    @property
    def aruco_dictionary(self) -> int:
        """OpenCV's ``DICT_4X4_50``."""
        return ARUCO_DICT

    @property
    def width(self) -> float:
        """A board's width (mm)."""
        return BOARD.width

    @property
    def height(self) -> float:
        """A board's height (mm)."""
        return BOARD.height

    @property
    def marker_size(self) -> float:
        """The printed side (mm) of a board's markers."""
        return BOARD.marker_size

    @property
    def marker_ids(self) -> tuple[int, ...]:
        """Every board marker id, seat by seat."""
        return MARKER_IDS

    def marker_corners(self, index: int) -> tuple[tuple[float, float], ...]:
        """Board coordinates of marker ``marker_ids[index]`` on its own board."""
        return BOARD.marker_corners(index % 4)

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """A board's edges."""
        return ((0, 1), (1, 2), (2, 3), (3, 0))

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """Every board marker id (one layout of markers in every sheet version)."""
        return MARKER_IDS

    def markers_per_board(self, version: int) -> int:
        """No seat boards in the core's sense."""
        return 0

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """`SHEET_VERSION` when any board marker was seen, else None."""
        return SHEET_VERSION if set(marker_ids) & (set(MARKER_IDS) | set(WAGON_MARKER_IDS)) else None

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """No seat boards in the core's sense: always None."""
        return None

    def board_marker_corners(self, side: int) -> tuple[tuple[float, float], ...]:
        """No seat boards in the core's sense.

        :raises LookupError: always.
        """
        raise LookupError("The Grand Carnival's boards are located by their own markers")

    def board_marker_size(self, side: int) -> float:
        """No seat boards in the core's sense.

        :raises LookupError: always.
        """
        raise LookupError("The Grand Carnival's boards are located by their own markers")
