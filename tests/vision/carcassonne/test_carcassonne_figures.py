"""The figure search reads every tile as on its own, however many tiles it searches at once."""

from __future__ import annotations

import cv2
import numpy as np

from vision.carcassonne.figures import COLORS, find_figures
from vision.carcassonne.recognize import TileReading


def _square(x: float, y: float, side: float) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float32)


def test_a_figure_across_two_cells_is_read_in_each_cell_alone() -> None:
    # a green table of B tiles (a monastery amid fields); a red disc sits across the seam of two cells
    # one above the other, a blue one well inside a third cell, white marks fix the colour balance
    photo = np.full((300, 200, 3), (60, 150, 80), np.uint8)
    photo[:, :4] = photo[:, 100:104] = 255
    cv2.circle(photo, (50, 100), 13, COLORS["red"], -1)
    cv2.circle(photo, (150, 60), 13, COLORS["blue"], -1)
    tiles = [TileReading(0, 0, "B", 0, 1.0), TileReading(0, 1, "B", 0, 1.0), TileReading(1, 0, "B", 0, 1.0)]
    corners = {(0, 0): _square(0, 0, 100), (0, 1): _square(0, 100, 100), (1, 0): _square(100, 0, 100)}
    together = find_figures(photo, tiles, corners)
    alone = sorted((f for t in tiles for f in find_figures(photo, [t], corners)), key=lambda f: (f.y, f.x, f.figure, f.color))
    assert together == alone
    assert {(f.x, f.y, f.color) for f in together} == {(0, 0, "red"), (0, 1, "red"), (1, 0, "blue")}
