"""Grand Carnival foundation tiles, "Fairground", in an art style the shipped recogniser never saw.

Stands in for a family's published foundation tiles in `bench_enroll_grand_carnival.py`: other
colours and another drawing than `vision.grand_carnival.printing.render_tile` (green walkways with
a dot, orange sites with a hammer, the pattern printed in a corner): a walkway is paved in
lavender-grey slabs with dark joints and a row of lamp posts, a construction site is brown earth
with a yellow and black hazard band along its upper edge and a crane's jib; no pattern is printed
(a published tile has none), and the tile has a dark teal rim. Tiles are never turned: the hazard
band is always at the top.

Never train a shipped model on these tiles: they exist only to be enrolled from photos and
recognised through an enrolled deck.
"""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.grand_carnival.layout import FIELD

Image = NDArray[Any]
Colour = tuple[int, int, int]

SLAB: Colour = (200, 172, 182)      # lavender-grey
JOINT: Colour = (110, 90, 100)
LAMP: Colour = (40, 40, 40)
EARTH: Colour = (45, 78, 120)       # brown
CLOD: Colour = (30, 55, 90)
HAZARD: Colour = (30, 210, 245)     # yellow
JIB: Colour = (150, 150, 150)  # steel
RIM: Colour = (90, 90, 20)          # dark teal


def _walkway(img: Image, x0: int, y0: int, n: int) -> None:
    img[y0:y0 + n, x0:x0 + n] = SLAB
    step = n / 3
    for k in range(1, 3):
        cv2.line(img, (x0, y0 + int(k * step)), (x0 + n, y0 + int(k * step)), JOINT, max(1, n // 40))
    for r in range(3):
        off = 0.5 * step if r % 2 else 0.0
        for k in range(0, 4):
            x = x0 + int(off + k * step)
            if x0 < x < x0 + n:
                cv2.line(img, (x, y0 + int(r * step)), (x, y0 + int((r + 1) * step)), JOINT, max(1, n // 40))
    for k in (0.2, 0.8):
        cx, cy = x0 + int(k * n), y0 + int(0.8 * n)
        cv2.circle(img, (cx, cy), max(2, n // 14), LAMP, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), max(1, n // 30), HAZARD, -1, cv2.LINE_AA)


def _site(img: Image, x0: int, y0: int, n: int) -> None:
    img[y0:y0 + n, x0:x0 + n] = EARTH
    rng = np.random.default_rng(7)  # the same clods on every site: printed art
    for _ in range(9):
        cx, cy = x0 + int(rng.uniform(0.1, 0.9) * n), y0 + int(rng.uniform(0.35, 0.95) * n)
        cv2.ellipse(img, (cx, cy), (max(2, n // 14), max(1, n // 24)), float(rng.uniform(0, 180)), 0, 360, CLOD, -1,
                    cv2.LINE_AA)
    band = max(3, n // 6)
    img[y0:y0 + band, x0:x0 + n] = HAZARD
    stripe = max(2, n // 8)
    for k in range(-2, n // stripe + 2):
        p = np.array([[x0 + k * stripe, y0 + band], [x0 + k * stripe + stripe // 2, y0 + band],
                      [x0 + k * stripe + stripe // 2 + band, y0], [x0 + k * stripe + band, y0]], np.int32)
        cv2.fillConvexPoly(img, p, (25, 25, 25), cv2.LINE_AA)
    # the crane's jib: a slanted bar and its hook
    cv2.line(img, (x0 + int(0.25 * n), y0 + int(0.85 * n)), (x0 + int(0.75 * n), y0 + int(0.35 * n)), JIB,
             max(2, n // 14), cv2.LINE_AA)
    cv2.line(img, (x0 + int(0.75 * n), y0 + int(0.35 * n)), (x0 + int(0.75 * n), y0 + int(0.6 * n)), (20, 20, 20),
             max(1, n // 40), cv2.LINE_AA)


@functools.lru_cache(maxsize=64)
def _tile(pattern: str, s: float) -> Image:
    n = int(round(FIELD * s))
    img = np.zeros((2 * n, 2 * n, 3), np.uint8)
    for i, kind in enumerate(pattern.replace("/", "").replace("-", "")):
        x0, y0 = (i % 2) * n, (i // 2) * n
        part = np.zeros((n, n, 3), np.uint8)
        (_walkway if kind == "w" else _site)(part, 0, 0, n)
        img[y0:y0 + n, x0:x0 + n] = part
    cv2.rectangle(img, (0, 0), (2 * n - 1, 2 * n - 1), RIM, max(2, int(round(0.8 * s))))
    cv2.line(img, (n, 0), (n, 2 * n), RIM, max(1, int(round(0.3 * s))))
    cv2.line(img, (0, n), (2 * n, n), RIM, max(1, int(round(0.3 * s))))
    return img


def render_tile(pattern: str, s: float, badged: bool = False) -> Image:
    """A Fairground foundation tile (``"ws/ss"``: top row, then bottom row) at ``s`` px/mm, 2 x 2 fields
    (the signature of `vision.grand_carnival.printing.render_tile`; ``badged`` is ignored)."""
    return _tile(pattern, round(float(s), 3)).copy()


def render(label: str, px_per_mm: float) -> tuple[Image, Image]:
    """A Fairground tile (image, alpha) by its pattern (``ws/ss`` or its folder name ``ws-ss``), for enrolment photos."""
    img = render_tile(label.replace("-", "/"), px_per_mm)
    return img, np.full(img.shape[:2], 255, np.uint8)
