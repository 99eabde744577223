"""The enrolment sheet: an A4 page of numbered spaces, located by four ArUco markers.

For enrolment at the table (``ringside enroll GAME --camera SRC``) the family lays
their components on the numbered spaces of a printed sheet (``ringside print GAME
--enroll``); the camera finds the sheet by the markers in its corners (the vision
core's mat machinery: `vision.calibrate.find_markers` and `mat_homography`, with the
sheet as the mat), and each space is cut out of the frame, seen from straight above
(`space_crops`). The spaces are a little larger than the component and dark, so a
component lying anywhere inside its space stands out whatever the colour of its edge.

The sheet uses the game's marker dictionary, with the dictionary's last four ids
(no printed component of a game carries them), so it is never taken for a game's mat.
The homography needs the markers only: a sheet printed a little larger or smaller
than true size works the same.

>>> layout = sheet_layout(57.0, 88.0)
>>> len(layout.spaces), layout.marker_ids
(6, (46, 47, 48, 49))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import NoMatError
from vision.calibrate import Calibration, find_markers, mat_homography
from vision.config import VisionConfig
from vision.geometry import CardGeometry, Corners, Image, Rect, TableGeometry, TokenGeometry
from vision.sheets import A4, Page, aruco_image, blank_page

__all__ = ["SHEET_PX_PER_MM", "SheetLayout", "locate_sheet", "render_sheet", "sheet_config", "sheet_layout",
           "space_crops"]

#: The sheet lies landscape.
WIDTH, HEIGHT = A4[1], A4[0]
#: Side (mm) of the corner markers and their distance from the page edge.
MARKER_MM = 14.0
MARKER_EDGE_MM = 3.0
#: Where the spaces may lie (mm): clear of the markers, with room for a number left of each.
_REGION = (20.0, 7.0, WIDTH - 20.0, HEIGHT - 7.0)
#: A space is this much (mm) longer and wider than the component's outline.
ALLOWANCE_MM = 8.0
#: Room (mm) left of each space for its number, and the least gap between rows.
_NUMBER_MM = 11.0
_ROW_GAP_MM = 4.0
#: Resolution (px/mm) of the space crops (a card's face comes out several times the classifier's crop).
SHEET_PX_PER_MM = 6.0
#: The spaces' fill (BGR): dark, so that white-edged and dark-edged components both stand out.
SPACE_FILL = (72, 72, 72)

_DICTIONARY_SIZE = {cv2.aruco.DICT_4X4_50: 50, cv2.aruco.DICT_4X4_100: 100, cv2.aruco.DICT_4X4_250: 250,
                    cv2.aruco.DICT_4X4_1000: 1000}


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """An enrolment sheet: its four corner markers and its numbered spaces (sheet mm, origin top-left).

    It is a `vision.geometry.MarkerLayout` (a mat with four markers and no seat boards),
    so the vision core locates it as it locates a mat.
    """

    aruco_dictionary: int
    marker_ids: tuple[int, ...]
    #: the spaces, numbered from 1 in this order (rows top to bottom, left to right)
    spaces: tuple[Rect, ...]
    width: float = WIDTH
    height: float = HEIGHT
    marker_size: float = MARKER_MM

    def marker_corners(self, index: int) -> Corners:
        """Sheet coordinates of marker ``marker_ids[index]`` (TL, TR, BR, BL of the page, in turn)."""
        e, m = MARKER_EDGE_MM, self.marker_size
        x = e if index in (0, 3) else self.width - e - m
        y = e if index in (0, 1) else self.height - e - m
        return ((x, y), (x + m, y), (x + m, y + m), (x, y + m))

    @property
    def marker_lines(self) -> tuple[tuple[int, ...], ...]:
        """Markers along one edge of the page (two alone fix the sheet badly)."""
        return ((0, 1), (1, 2), (2, 3), (3, 0))

    def mat_marker_ids(self, version: int) -> tuple[int, ...]:
        """The sheet's markers (there is one version)."""
        return self.marker_ids

    def markers_per_board(self, version: int) -> int:
        """No seat boards."""
        return 0

    def sheet_version_of(self, marker_ids: tuple[int, ...] | list[int] | set[int]) -> int | None:
        """1 when any of the sheet's markers was seen."""
        return 1 if set(marker_ids) & set(self.marker_ids) else None

    def board_of_marker(self, marker_id: int) -> tuple[int, int] | None:
        """No seat boards."""
        return None

    def board_marker_corners(self, side: int) -> Corners:
        """No seat boards."""
        raise KeyError(side)

    def board_marker_size(self, side: int) -> float:
        """No seat boards."""
        raise KeyError(side)


def _grid(space_w: float, space_h: float) -> tuple[Rect, ...]:
    x0, y0, x1, y1 = _REGION
    cols = max(1, int((x1 - x0 + _NUMBER_MM) // (space_w + _NUMBER_MM)))
    rows = max(1, int((y1 - y0 + _ROW_GAP_MM) // (space_h + _ROW_GAP_MM)))
    gap_x = (x1 - x0 - cols * space_w) / max(cols - 1, 1) if cols > 1 else 0.0
    gap_y = (y1 - y0 - rows * space_h) / max(rows - 1, 1) if rows > 1 else 0.0
    left = x0 if cols > 1 else (x0 + x1 - space_w) / 2
    top = y0 if rows > 1 else (y0 + y1 - space_h) / 2
    return tuple(Rect(left + c * (space_w + gap_x), top + r * (space_h + gap_y), space_w, space_h)
                 for r in range(rows) for c in range(cols))


def sheet_layout(width: float, height: float, dictionary: int = cv2.aruco.DICT_4X4_50) -> SheetLayout:
    """The sheet for components whose outline is ``width`` x ``height`` mm (any way round).

    :raises ValueError: for a component too large for an A4 space, or an unknown dictionary.
    """
    w, h = sorted((float(width), float(height)))
    sw, sh = w + ALLOWANCE_MM, h + ALLOWANCE_MM
    x0, y0, x1, y1 = _REGION
    if sw > x1 - x0 or sh > y1 - y0:
        raise ValueError(f"a {w:g} x {h:g} mm component does not fit an A4 enrolment sheet")
    size = _DICTIONARY_SIZE.get(dictionary)
    if size is None:
        raise ValueError(f"unknown ArUco dictionary {dictionary}")
    return SheetLayout(dictionary, tuple(range(size - 4, size)), _grid(sw, sh))


def sheet_config(layout: SheetLayout) -> VisionConfig:
    """A vision configuration whose mat is the sheet (for `vision.calibrate`)."""
    return VisionConfig(table=TableGeometry(markers=layout, card=CardGeometry(), token=TokenGeometry()),
                        min_mat_markers=3)


def render_sheet(layout: SheetLayout, s: float, title: str) -> Page:
    """The sheet at ``s`` px/mm: corner markers, the dark numbered spaces and ``title`` along the top."""
    page = blank_page(True, s)
    for index, marker_id in enumerate(layout.marker_ids):
        (x, y), *_ = layout.marker_corners(index)
        side = int(round(layout.marker_size * s))
        marker = aruco_image(marker_id, side, layout.aruco_dictionary)
        px, py = int(round(x * s)), int(round(y * s))
        page[py:py + side, px:px + side] = marker[:, :, None]
    font = cv2.FONT_HERSHEY_SIMPLEX
    for number, r in enumerate(layout.spaces, start=1):
        p0 = (int(round(r.x * s)), int(round(r.y * s)))
        p1 = (int(round((r.x + r.w) * s)), int(round((r.y + r.h) * s)))
        cv2.rectangle(page, p0, p1, SPACE_FILL, -1)
        text = str(number)
        scale = 0.22 * s
        thick = max(1, int(0.5 * s))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        cx = int(round((r.x - _NUMBER_MM / 2) * s))
        cy = int(round((r.y + r.h / 2) * s))
        cv2.putText(page, text, (cx - tw // 2, cy + th // 2), font, scale, (0, 0, 0), thick, cv2.LINE_AA)
    cv2.putText(page, title, (int(_REGION[0] * s), int(4.8 * s)), font, 0.1 * s, (0, 0, 0),
                max(1, int(0.12 * s)), cv2.LINE_AA)
    return Page(title, page)


def locate_sheet(frame: Image, layout: SheetLayout) -> Calibration:
    """Frame pixels <-> sheet mm, from at least three of the sheet's markers.

    :raises NoMatError: when the sheet is not in view (fewer than three markers read).
    """
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    config = sheet_config(layout)
    markers = find_markers(gray, config)
    if len({m.id for m in markers if m.id in layout.marker_ids}) < len(layout.marker_ids):
        have = {m.id for m in markers}
        markers = markers + tuple(m for m in find_markers(gray, config, robust=True) if m.id not in have)
    return mat_homography(markers, config)


def space_crops(frame: Image, calibration: Calibration, layout: SheetLayout, numbers: tuple[int, ...] | None = None,
                px_per_mm: float = SHEET_PX_PER_MM) -> dict[int, Image]:
    """Each space (by number from 1) as seen from straight above, ``px_per_mm`` pixels per mm, BGR."""
    wanted = numbers if numbers is not None else tuple(range(1, len(layout.spaces) + 1))
    out: dict[int, Image] = {}
    for number in wanted:
        r = layout.spaces[number - 1]
        w, h = int(round(r.w * px_per_mm)), int(round(r.h * px_per_mm))
        to_space: NDArray[Any] = np.array([[px_per_mm, 0, -r.x * px_per_mm], [0, px_per_mm, -r.y * px_per_mm],
                                           [0, 0, 1]], np.float64) @ calibration.image_to_table
        out[number] = cv2.warpPerspective(frame, to_space, (w, h), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE)
    return out


def sheet_not_found(error: NoMatError) -> str:
    """What to tell the family when the sheet is not in view."""
    return f"the enrolment sheet is not in view (saw {error.markers_seen} of its 4 corner markers)"
