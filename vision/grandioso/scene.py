"""Rendering a Circus Grandioso table from straight above: for tests, benchmarks and the simulated camera.

A `Scene` is what lies on the mat: the pyramid (the rules engine's `Pyramid`,
its column 0 on the start spot), the face-down singles in the row, the stack,
the Show Master. `render_top_down` draws it as a clean top-down image in table
millimetres, which `vision.camera_model.photograph` turns into a photo, or
`frame` into a plain overhead frame. Players never lay a card exactly on its
place: each card is nudged and turned a little (``jitter``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.grandioso.pyramid import Card, Pyramid
from vision.geometry import Image
from vision.grandioso.faces import render_back, render_card, render_mat, render_show_master
from vision.grandioso.layout import CARD, MAT, SINGLE_INSET, SINGLE_PITCH

__all__ = ["CONTENT_REGION", "Scene", "frame", "render_top_down", "single_centre"]

#: The table region a camera frames: the mat and a little table around it (x0, y0, x1, y1 mm).
CONTENT_REGION = (-15.0, -15.0, MAT.width + 15.0, MAT.height + 15.0)
_TABLE_BGR = (95, 120, 140)


@dataclass(frozen=True, slots=True)
class Scene:
    """What lies on the table. ``jitter``: the seed of each card's small offset and turn (None: exact)."""

    pyramid: Pyramid
    singles: int = 0
    stack: bool = True
    show_master_on_spot: bool = True
    jitter: int | None = None
    #: the numbered places (from 1) of the singles row that hold a card; None: places 1..``singles``
    single_places: tuple[int, ...] | None = None
    #: a card lying face up on the stack (a card just drawn, shown)
    shown: Card | None = None

    @property
    def places(self) -> tuple[int, ...]:
        """The singles row's occupied places."""
        return self.single_places if self.single_places is not None else tuple(range(1, self.singles + 1))


def single_centre(index: int) -> tuple[float, float]:
    """Where the single on place ``index + 1`` of the singles row lies."""
    return (MAT.singles.x + SINGLE_INSET + CARD.width / 2 + index * SINGLE_PITCH,
            MAT.singles.y + MAT.singles.h / 2)


def _paste(canvas: Image, img: Image, alpha: Image, cx: float, cy: float, angle: float, s: float,
           origin: tuple[float, float]) -> None:
    """Paste a component centred on table point (cx, cy), turned ``angle`` degrees."""
    h, w = img.shape[:2]
    px, py = (cx - origin[0]) * s, (cy - origin[1]) * s
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[0, 2] += px - w / 2
    m[1, 2] += py - h / 2
    size = (canvas.shape[1], canvas.shape[0])
    x0, y0 = int(max(0, px - w)), int(max(0, py - h))
    x1, y1 = int(min(size[0], px + w)), int(min(size[1], py + h))
    if x0 >= x1 or y0 >= y1:
        return
    m[0, 2] -= x0
    m[1, 2] -= y0
    part = cv2.warpAffine(img, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    roi = canvas[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + part * a).astype(canvas.dtype)


#: Another deck's faces: (card notation or ``back``, px per mm) -> (BGR image, alpha), as `render_top_down` takes.
FaceSource = Callable[[str, float], tuple[Image, Image]]


def render_top_down(scene: Scene, s: float, region: tuple[float, float, float, float] = CONTENT_REGION,
                    faces: FaceSource | None = None) -> Image:
    """The table seen from straight above at ``s`` px/mm; pixel (0, 0) is table point ``region[:2]``.

    ``faces``: another deck's art for the cards and their backs (a published deck); default Ringside's print.
    """
    x0, y0, x1, y1 = region
    canvas = np.empty((int(round((y1 - y0) * s)), int(round((x1 - x0) * s)), 3), np.uint8)
    canvas[:] = _TABLE_BGR
    mat = render_mat(s)
    ox, oy = int(round(-x0 * s)), int(round(-y0 * s))
    h, w = mat.shape[:2]
    canvas[oy:oy + h, ox:ox + w] = mat
    rng = random.Random(scene.jitter)

    def nudge() -> tuple[float, float, float]:
        if scene.jitter is None:
            return 0.0, 0.0, 0.0
        return rng.uniform(-2.5, 2.5), rng.uniform(-2.0, 2.0), rng.uniform(-3.0, 3.0)

    drawn: dict[tuple[Card, bool], tuple[Image, Image]] = {}
    for row, col, card in scene.pyramid.cells():  # bottom row first: upper rows lie over it
        start = (row, col) == (0, 0) and card is Card.ELEPHANT
        if (card, start) not in drawn:
            drawn[card, start] = render_card(card, s, start) if faces is None else faces(card.notation, s)
        img, alpha = drawn[card, start]
        cx, cy = MAT.card_rect(row, col).centre
        dx, dy, da = nudge()
        _paste(canvas, img, alpha, cx + dx, cy + dy, da, s, (x0, y0))
    back, back_alpha = render_back(s) if faces is None else faces("back", s)
    if scene.stack:
        for k in range(3):
            dx, dy, da = nudge()
            st = MAT.stack
            _paste(canvas, back, back_alpha, st.x + st.w / 2 + dx - k * 0.6, st.y + st.h / 2 + dy - k * 0.6, da,
                   s, (x0, y0))
    for place in scene.places:
        cx, cy = single_centre(place - 1)
        dx, dy, da = nudge()
        _paste(canvas, back, back_alpha, cx + dx, cy + dy, da, s, (x0, y0))
    if scene.shown is not None:
        img, alpha = render_card(scene.shown, s) if faces is None else faces(scene.shown.notation, s)
        st = MAT.stack
        dx, dy, da = nudge()
        _paste(canvas, img, alpha, st.x + st.w / 2 + dx, st.y + st.h / 2 + dy, da, s, (x0, y0))
    if scene.show_master_on_spot:
        img, alpha = render_show_master(s)
        _paste(canvas, img, alpha, MAT.show_master[0], MAT.show_master[1], 0.0, s, (x0, y0))
    return canvas


def frame(scene: Scene, width: int = 1280) -> Image:
    """A plain overhead camera frame of the scene (no lens, light or noise), ``width`` px wide."""
    x0, y0, x1, y1 = CONTENT_REGION
    s = width / (x1 - x0)
    return render_top_down(scene, s)


