"""A second Circus Grandioso deck, "Menagerie", in an art style the shipped model never saw.

Stands in for a family's published Grandioso deck in `bench_enroll.py --game grandioso`: no
printed code (a published card has none), other colours (a two-tone field in each animal's
colour, split on a slant), other fonts (Hershey script and complex, italic) and another layout
(the row number large in a ring in the middle of the lower half, which the pyramid leaves
visible; the name along the bottom edge; a geometric sign with as many corners as the row
number in the upper half). The card's outline keeps the printed geometry (white margin, a
frame line), here in dark slate.

Never train a shipped model on these faces: they exist only to be enrolled from photos and
recognised through an enrolled deck.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from midway_deck import _rounded  # the same rounded-corner mask as the other second deck
from numpy.typing import NDArray

from scorer.grandioso.pyramid import Card
from vision.grandioso.layout import CARD

Image = NDArray[Any]
Colour = tuple[int, int, int]

#: each card's colour (BGR): deliberately not the shipped deck's
COLOURS: dict[Card, Colour] = {
    Card.ELEPHANT: (120, 60, 30), Card.RHINO: (40, 110, 90), Card.CAMEL: (30, 60, 170),
    Card.PONY: (150, 40, 120), Card.TIGER: (20, 100, 200), Card.BEAR: (90, 90, 20),
    Card.LION: (30, 150, 150), Card.CROCODILE: (120, 160, 40), Card.CHIMPANZEE: (60, 40, 90),
    Card.SEAL: (200, 150, 90), Card.CLOWN: (40, 40, 200),
}
FRAME: Colour = (80, 70, 50)
PAPER: Colour = (228, 242, 248)


def _text(img: Image, text: str, cx: float, cy: float, height: float, colour: Colour, thick: int, font: int,
          max_width: float | None = None) -> None:
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(th, 1)
    if max_width is not None and tw * scale > max_width:
        scale = max_width / max(tw, 1)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, colour, thick, cv2.LINE_AA)


def _blank(s: float) -> tuple[Image, Image, tuple[int, int, int, int]]:
    w, h = int(round(CARD.width * s)), int(round(CARD.height * s))
    img = np.full((h, w, 3), 246, np.uint8)
    m, f = int(round(CARD.margin * s)), int(round((CARD.margin + CARD.frame) * s))
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), FRAME, -1)
    return img, _rounded(h, w, int(round(CARD.corner_radius * s))), (f, f, w - 2 * f, h - 2 * f)


def _sign(img: Image, corners: int, cx: float, cy: float, r: float, colour: Colour, thick: int) -> None:
    """A star with ``corners`` points (a ring for one, a bar for two)."""
    if corners == 1:
        cv2.circle(img, (int(cx), int(cy)), int(r), colour, thick, cv2.LINE_AA)
        return
    if corners == 2:
        cv2.line(img, (int(cx - r), int(cy)), (int(cx + r), int(cy)), colour, 2 * thick, cv2.LINE_AA)
        return
    pts = []
    for k in range(2 * corners):
        rad = r if k % 2 == 0 else 0.5 * r
        a = -math.pi / 2 + k * math.pi / corners
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)


@functools.lru_cache(maxsize=64)
def _card(label: str, s: float) -> tuple[Image, Image]:
    card = Card.parse(label)
    img, mask, (fx, fy, fw, fh) = _blank(s)
    colour = COLOURS[card]
    field = img[fy:fy + fh, fx:fx + fw]
    field[:] = PAPER
    # the upper half: the animal's colour above a slant, its sign on it
    tri = np.array([[0, 0], [fw, 0], [fw, int(0.32 * fh)], [0, int(0.48 * fh)]], np.int32)
    cv2.fillPoly(field, [tri], colour, cv2.LINE_AA)
    light = tuple(int(0.35 * v + 0.65 * 250) for v in colour)
    thick = max(1, int(round(0.5 * s)))
    if card.is_clown:
        for k in range(3):
            cv2.circle(field, (int(fw * (0.3 + 0.2 * k)), int(0.2 * fh)), int(0.07 * fw), light, -1, cv2.LINE_AA)
    else:
        _sign(field, card.value + 1, fw / 2, 0.2 * fh, 0.2 * fw, light, thick)
    # the lower half, which the pyramid leaves visible: the row number in a ring, the name below
    mark = "C" if card.is_clown else str(card.value + 1)
    cv2.circle(field, (fw // 2, int(0.7 * fh)), int(0.3 * fw), colour, max(1, int(round(1.2 * s))), cv2.LINE_AA)
    _text(field, mark, fw / 2, 0.7 * fh, 0.2 * fh, colour, max(1, int(round(0.9 * s))),
          cv2.FONT_HERSHEY_SCRIPT_COMPLEX | cv2.FONT_ITALIC, max_width=0.45 * fw)
    _text(field, card.label.lower(), fw / 2, 0.93 * fh, 0.055 * fh, (40, 40, 40), max(1, int(round(0.4 * s))),
          cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC, max_width=0.85 * fw)
    return img, mask


@functools.lru_cache(maxsize=8)
def _back(s: float) -> tuple[Image, Image]:
    img, mask, (fx, fy, fw, fh) = _blank(s)
    field = img[fy:fy + fh, fx:fx + fw]
    field[:] = (110, 50, 40)
    step = max(2, int(fw / 5))
    for y in range(0, fh, step):
        for x in range(0, fw, step):
            cv2.circle(field, (x + step // 2, y + step // 2), step // 3, (200, 170, 120), -1, cv2.LINE_AA)
    return img, mask


def render(label: str, px_per_mm: float) -> tuple[Image, Image]:
    """A Menagerie face (image, alpha) of a Grandioso card notation (``elephant``, ``clown``) or ``back``."""
    s = round(float(px_per_mm), 3)
    return _back(s) if label == "back" else _card(label, s)
