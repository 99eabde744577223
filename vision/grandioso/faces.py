"""Drawing the Circus Grandioso components: card faces, the card back, the Show Master, the mat.

Everything is drawn at ``s`` pixels per millimetre, in BGR, from the layout's
facts (`vision.grandioso.layout`): each animal with its row number and name,
the clowns, the start Elephant, the Show Master. A card's code (its ArUco
marker) sits in the middle of its lower half, which the pyramid leaves visible.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from scorer.grandioso.pyramid import ROWS, Card
from vision.geometry import Image
from vision.grandioso.layout import (
    ARUCO_DICT,
    BACK_ID,
    CARD,
    CARD_IDS,
    CODE_SIZE,
    MAT,
    ROW_PITCH,
    SINGLE_INSET,
    SINGLE_PITCH,
)

__all__ = [
    "COLOURS",
    "MAT_BGR",
    "SINGLES_BGR",
    "marker_image",
    "render_back",
    "render_card",
    "render_mat",
    "render_overview",
    "render_show_master",
]

#: Each card's colour (BGR): the frame line and the band behind its name.
COLOURS: dict[Card, tuple[int, int, int]] = {
    Card.ELEPHANT: (150, 140, 130), Card.RHINO: (120, 120, 100), Card.CAMEL: (90, 170, 210),
    Card.PONY: (60, 110, 170), Card.TIGER: (40, 140, 240), Card.BEAR: (40, 80, 130),
    Card.LION: (60, 190, 230), Card.CROCODILE: (70, 150, 60), Card.CHIMPANZEE: (100, 100, 160),
    Card.SEAL: (170, 120, 60), Card.CLOWN: (170, 60, 200),
}
#: The mat: background, pyramid area, singles row.
MAT_BGR = (205, 225, 238)
_PYRAMID_BGR = (58, 40, 112)
SINGLES_BGR = (60, 90, 50)
_INK = (30, 30, 30)
#: the start Elephant's spot and its words
_START_BGR = (120, 200, 240)
_FONT = cv2.FONT_HERSHEY_SIMPLEX


@functools.lru_cache(maxsize=64)
def marker_image(marker_id: int, side_px: int) -> Image:
    """The ArUco marker ``marker_id`` of the table's dictionary, ``side_px`` square, grey."""
    d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    big = cv2.aruco.generateImageMarker(d, marker_id, 60)
    return cv2.resize(big, (side_px, side_px), interpolation=cv2.INTER_NEAREST)


def _put_marker(img: Image, marker_id: int, cx: float, cy: float, side: float, s: float) -> None:
    n = max(6, int(round(side * s)))
    x, y = int(round(cx * s - n / 2)), int(round(cy * s - n / 2))
    img[y:y + n, x:x + n] = cv2.cvtColor(marker_image(marker_id, n), cv2.COLOR_GRAY2BGR)


def _text(img: Image, text: str, cx: float, cy: float, height: float, s: float,
          colour: tuple[int, int, int] = _INK, max_width: float | None = None) -> None:
    """Centred text about ``height`` mm tall (narrowed to ``max_width`` mm when given)."""
    scale = height * s / 22.0
    thick = max(1, int(round(scale * 2)))
    (w, h), _ = cv2.getTextSize(text, _FONT, scale, thick)
    if max_width is not None and w > max_width * s:
        scale *= max_width * s / w
        thick = max(1, int(round(scale * 2)))
        (w, h), _ = cv2.getTextSize(text, _FONT, scale, thick)
    cv2.putText(img, text, (int(cx * s - w / 2), int(cy * s + h / 2)), _FONT, scale, colour, thick, cv2.LINE_AA)


def _blank_card(s: float, colour: tuple[int, int, int]) -> tuple[Image, Image]:
    w, h = int(round(CARD.width * s)), int(round(CARD.height * s))
    img = np.full((h, w, 3), 255, np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    r = int(round(CARD.corner_radius * s))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    m, f = CARD.margin * s, CARD.frame * s
    cv2.rectangle(img, (int(m), int(m)), (int(w - 1 - m), int(h - 1 - m)), colour, max(1, int(round(f))))
    return img, alpha


def render_card(card: Card, s: float, start: bool = False) -> tuple[Image, Image]:
    """A card face (BGR) and its alpha (rounded corners). ``start``: the start Elephant's face."""
    colour = COLOURS[card]
    img, alpha = _blank_card(s, colour)
    w = CARD.width
    top = 5.0
    cv2.rectangle(img, (int(4 * s), int(top * s)), (int((w - 4) * s), int((top + 9) * s)), colour, -1)
    _text(img, card.label.upper(), w / 2, top + 4.5, 4.2, s, (255, 255, 255), max_width=w - 10)
    if card.is_clown:
        _text(img, "any row, one per row", w / 2, 19, 2.2, s, max_width=w - 8)
        _text(img, "never on the very top", w / 2, 23, 2.2, s, max_width=w - 8)
    else:
        _text(img, f"row {card.value + 1}", w / 2, 19, 3.2, s)
        _text(img, f"{ROWS - card.value} in the box" if not start else "START", w / 2, 25, 2.4, s)
    # the lower half, which the pyramid leaves visible: the code and the name again
    _put_marker(img, CARD_IDS[card], w / 2, 0.75 * CARD.height, CODE_SIZE, s)
    mark = "C" if card.is_clown else str(card.value + 1)
    for x in (4.6, w - 4.6):
        _text(img, mark, x, 0.75 * CARD.height - 4, 3.0, s, colour)
    return img, alpha


def render_back(s: float) -> tuple[Image, Image]:
    """The card back (the same on every card): a pattern and the back's code in the middle."""
    img, alpha = _blank_card(s, (60, 40, 112))
    h, w = img.shape[:2]
    step = max(2, int(3 * s))
    for k in range(-h, w, step * 2):
        cv2.line(img, (k, 0), (k + h, h), (200, 190, 230), max(1, int(0.5 * s)))
    cx, cy = CARD.width / 2, CARD.height / 2
    pad = (CODE_SIZE / 2 + 3) * s
    cv2.rectangle(img, (int(cx * s - pad), int(cy * s - pad)), (int(cx * s + pad), int(cy * s + pad)),
                  (255, 255, 255), -1)
    _put_marker(img, BACK_ID, cx, cy, CODE_SIZE, s)
    _text(img, "CIRCUS GRANDIOSO", cx, 5.5, 2.6, s, (60, 40, 112), max_width=CARD.width - 8)
    return img, alpha


def render_show_master(s: float) -> tuple[Image, Image]:
    """The Show Master token: a gold disc with its name."""
    d = int(round(50 * s))
    img = np.full((d, d, 3), 255, np.uint8)
    alpha = np.zeros((d, d), np.uint8)
    cv2.circle(alpha, (d // 2, d // 2), d // 2 - 1, 255, -1)
    cv2.circle(img, (d // 2, d // 2), d // 2 - 1, (40, 180, 230), -1)
    cv2.circle(img, (d // 2, d // 2), int(d * 0.42), (30, 30, 30), max(1, int(0.6 * s)))
    _text(img, "SHOW", 25, 21, 6.0, s)
    _text(img, "MASTER", 25, 30, 6.0, s, max_width=40)
    return img, alpha


def render_overview(s: float, width: float = 180.0) -> Image:
    """The pyramid overview: which animal each row takes, and the rules of placing."""
    h = 120.0
    img = np.full((int(h * s), int(width * s), 3), 255, np.uint8)
    _text(img, "PYRAMID OVERVIEW", width / 2, 6, 5, s)
    for r in range(ROWS):
        card = Card(r)
        y = 112 - r * 10
        cv2.rectangle(img, (int(10 * s), int((y - 4) * s)), (int((width - 10) * s), int((y + 4) * s)),
                      COLOURS[card], -1)
        _text(img, f"row {r + 1}: {ROWS - r} x {card.label}", width / 2, y, 4.5, s, (255, 255, 255))
    return img


def _draw_mat(img: Image, s: float, x0: float, y0: float) -> None:
    """Draw the mat onto ``img``, whose top-left pixel is table point (x0, y0)."""

    def p(x: float, y: float) -> tuple[int, int]:
        return (int(round((x - x0) * s)), int(round((y - y0) * s)))

    area = MAT.pyramid_area
    cv2.rectangle(img, p(0, 0), p(MAT.width, MAT.height), MAT_BGR, -1)
    cv2.rectangle(img, p(area.x, area.y), p(area.x + area.w, area.y + area.h), _PYRAMID_BGR, -1)
    line = max(1, int(round(0.6 * s)))
    for r in range(ROWS):
        y = MAT.base_top - r * ROW_PITCH
        cv2.line(img, p(area.x, y), p(area.x + area.w, y), (78, 60, 132), line)
    start = MAT.card_rect(0, 0)
    cv2.rectangle(img, p(start.x - 1, start.y - 1), p(start.x + start.w + 1, start.y + start.h + 1),
                  _START_BGR, line * 2)
    sx = MAT.singles
    cv2.rectangle(img, p(sx.x, sx.y), p(sx.x + sx.w, sx.y + sx.h), SINGLES_BGR, -1)
    for k in range(int((sx.w - SINGLE_INSET) // SINGLE_PITCH)):
        left = sx.x + SINGLE_INSET + k * SINGLE_PITCH
        top = sx.y + (sx.h - CARD.height) / 2
        cv2.rectangle(img, p(left, top), p(left + CARD.width, top + CARD.height), (90, 130, 80), line)
        _text(img, str(k + 1), left + CARD.width / 2 - x0, top + CARD.height / 2 - y0, 8.0, s, (90, 130, 80))
    st = MAT.stack
    cv2.rectangle(img, p(st.x - 2, st.y - 2), p(st.x + st.w + 2, st.y + st.h + 2), (60, 90, 50), line * 2)
    cx, cy, radius = MAT.show_master
    cv2.circle(img, p(cx, cy), int(radius * s), (40, 180, 230), line * 2)
    for i in range(len(MAT.marker_ids)):
        corners = MAT.marker_corners(i)
        (mx, my), side = corners[0], MAT.marker_size
        n = int(round(side * s))
        tx, ty = p(mx, my)
        patch = cv2.cvtColor(marker_image(MAT.marker_ids[i], n), cv2.COLOR_GRAY2BGR)
        h, w = img.shape[:2]
        ys, xs = slice(max(0, ty), min(h, ty + n)), slice(max(0, tx), min(w, tx + n))
        if ys.start < ys.stop and xs.start < xs.stop:
            img[ys, xs] = patch[ys.start - ty:ys.stop - ty, xs.start - tx:xs.stop - tx]


def render_mat(s: float, region: tuple[float, float, float, float] | None = None) -> Image:
    """The play mat at ``s`` px/mm, or only ``region`` (x0, y0, x1, y1 mm) of it (a printed tile).

    The labels (stack, Show Master, singles, start Elephant) are drawn on the whole mat only
    where they fall inside ``region``.
    """
    x0, y0, x1, y1 = region if region is not None else (0.0, 0.0, MAT.width, MAT.height)
    img = np.full((int(round((y1 - y0) * s)), int(round((x1 - x0) * s)), 3), 255, np.uint8)
    _draw_mat(img, s, x0, y0)
    labels = [
        ("STACK", MAT.stack.x + MAT.stack.w / 2, MAT.stack.y + MAT.stack.h + 6, _INK),
        ("SHOW MASTER", MAT.show_master[0], MAT.show_master[1] + MAT.show_master[2] + 6, _INK),
        ("FACE-DOWN SINGLES: lay each new one to the right of the others", MAT.singles.x + MAT.singles.w / 2,
         MAT.singles.y - 4, _INK),
        # inside the start Elephant's spot, which the card covers from the start
        ("START", MAT.centre_x, MAT.base_top + CARD.height / 2 - 4, _START_BGR),
        ("ELEPHANT", MAT.centre_x, MAT.base_top + CARD.height / 2 + 4, _START_BGR),
    ]
    for text, cx, cy, colour in labels:
        c = np.zeros_like(img)
        _text(c, text, cx - x0, cy - y0, 5.0, s, (255, 255, 255))
        img[c[:, :, 0] > 0] = colour
    return img
