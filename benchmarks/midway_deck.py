"""A second Big Top deck, "Midway", in an art style the shipped model never saw.

Stands in for a family's published deck in `bench_enroll.py`: other colours (teal,
tangerine, crimson, olive suits; cream light cards, dark cards in the suit's colour inside a
cream band, striped posters),
other fonts (Hershey triplex, script and complex, italic) and another layout (the
number in two opposite corners, the suit shown as pips counted by the number, a
geometric suit sign instead of a picture). The card's outline keeps the printed
geometry (white margin, dark frame line) so the table recogniser finds it; the frame
line is plum, not near-black.

Never train the shipped model on these faces: they exist only to be enrolled from
photos and recognised through an enrolled deck.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import Card, Shade, Suit
from vision.bigtop.layout import CARD, TOKEN

Image = NDArray[Any]
Colour = tuple[int, int, int]

SUITS: dict[Suit, Colour] = {
    Suit.CLOWNS: (150, 150, 20),      # teal
    Suit.SIDESHOW: (30, 130, 245),    # tangerine
    Suit.ANIMALS: (50, 30, 190),      # crimson
    Suit.PERFORMERS: (40, 130, 120),  # olive
}
FRAME: Colour = (70, 25, 60)
CREAM: Colour = (215, 240, 250)
TOKEN_FACES: dict[int, Colour] = {10: (60, 60, 200), 7: (200, 120, 40), 5: (60, 170, 90), 3: (40, 170, 220)}


def _mm(v: float, s: float) -> int:
    return int(round(v * s))


def _text(img: Image, text: str, cx: float, cy: float, height: float, colour: Colour, thick: int,
          font: int, angle180: bool = False) -> None:
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(th, 1)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if not angle180:
        cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, colour, thick, cv2.LINE_AA)
        return
    pad = int(height)
    patch = np.zeros((th + 2 * pad, tw + 2 * pad, 3), np.uint8)
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.putText(patch, text, (pad, pad + th), font, scale, colour, thick, cv2.LINE_AA)
    cv2.putText(mask, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    patch, mask = patch[::-1, ::-1], mask[::-1, ::-1]
    x0, y0 = int(cx - patch.shape[1] / 2), int(cy - patch.shape[0] / 2)
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + patch.shape[1]), min(h, y0 + patch.shape[0])
    if xa >= xb or ya >= yb:
        return
    sub = img[ya:yb, xa:xb]
    m = mask[ya - y0:yb - y0, xa - x0:xb - x0, None].astype(np.float32) / 255
    sub[:] = (sub * (1 - m) + patch[ya - y0:yb - y0, xa - x0:xb - x0] * m).astype(np.uint8)


def _sign(img: Image, suit: Suit, cx: float, cy: float, r: float, colour: Colour) -> None:
    """The suit's sign: a star, a crescent, a paw, a diamond."""
    c = (int(round(cx)), int(round(cy)))
    if suit is Suit.CLOWNS:
        pts = [(cx + (r if k % 2 == 0 else 0.45 * r) * math.cos(-math.pi / 2 + k * math.pi / 5),
                cy + (r if k % 2 == 0 else 0.45 * r) * math.sin(-math.pi / 2 + k * math.pi / 5)) for k in range(10)]
        cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)
    elif suit is Suit.SIDESHOW:
        cv2.circle(img, c, int(r), colour, -1, cv2.LINE_AA)
        bg = tuple(int(v) for v in img[min(img.shape[0] - 1, int(cy + 1.6 * r)), int(cx)])
        cv2.circle(img, (int(cx + 0.45 * r), int(cy - 0.2 * r)), int(0.8 * r), bg, -1, cv2.LINE_AA)
    elif suit is Suit.ANIMALS:
        cv2.ellipse(img, (int(cx), int(cy + 0.35 * r)), (int(0.55 * r), int(0.45 * r)), 0, 0, 360, colour, -1,
                    cv2.LINE_AA)
        for dx, dy in ((-0.62, -0.2), (-0.22, -0.62), (0.22, -0.62), (0.62, -0.2)):
            cv2.circle(img, (int(cx + dx * r), int(cy + dy * r)), max(1, int(0.22 * r)), colour, -1, cv2.LINE_AA)
    else:
        pts = [(cx, cy - r), (cx + 0.65 * r, cy), (cx, cy + r), (cx - 0.65 * r, cy)]
        cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)


def _rounded(h: int, w: int, r: int) -> Image:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _blank(s: float) -> tuple[Image, Image, tuple[int, int, int, int]]:
    w, h = _mm(CARD.width, s), _mm(CARD.height, s)
    img = np.full((h, w, 3), 246, np.uint8)
    m, f = _mm(CARD.margin, s), _mm(CARD.margin + CARD.frame, s)
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), FRAME, -1)
    return img, _rounded(h, w, _mm(CARD.corner_radius, s)), (f, f, w - 2 * f, h - 2 * f)


@functools.lru_cache(maxsize=128)
def _card(notation: str, s: float) -> tuple[Image, Image]:
    card = Card.parse(notation)
    img, mask, (fx, fy, fw, fh) = _blank(s)
    suit = SUITS[card.suit]
    field = img[fy:fy + fh, fx:fx + fw]
    band = max(1, int(round(1.5 * s)))
    if card.shade is Shade.POSTER:
        field[:] = CREAM
        panel = field[band:fh - band, band:fw - band]
        step = max(2, int(fw / 6))
        for x in range(-fh, fw, 2 * step):
            cv2.line(panel, (x, 0), (x + fh, fh), suit, step // 2, cv2.LINE_AA)
        cv2.ellipse(field, (fw // 2, fh // 2), (int(fw * 0.42), int(fh * 0.2)), 0, 0, 360, (250, 250, 250), -1,
                    cv2.LINE_AA)
        _text(field, "POSTER", fw / 2, fh / 2 - fh * 0.06, fh * 0.06, FRAME, max(1, int(s * 0.7)),
              cv2.FONT_HERSHEY_COMPLEX)
        _sign(field, card.suit, fw / 2, fh / 2 + fh * 0.08, fh * 0.07, suit)
        return img, mask
    light = card.shade is Shade.LIGHT
    bg = CREAM if light else tuple(int(v * 0.8) for v in suit)
    ink = suit if light else (235, 245, 250)
    field[:] = CREAM
    field[band:fh - band, band:fw - band] = bg
    font = cv2.FONT_HERSHEY_TRIPLEX if light else cv2.FONT_HERSHEY_SCRIPT_COMPLEX | cv2.FONT_ITALIC
    num = str(card.number)
    _text(field, num, fw * 0.18, fh * 0.1, fh * 0.11, ink, max(1, int(s * 1.2)), font)
    _text(field, num, fw * 0.82, fh * 0.9, fh * 0.11, ink, max(1, int(s * 1.2)), font, angle180=True)
    _sign(field, card.suit, fw * 0.18, fh * 0.22, fh * 0.04, ink)
    _sign(field, card.suit, fw * 0.82, fh * 0.78, fh * 0.04, ink)
    # pips: as many as the number, in two columns down the middle
    n = card.number
    rows = (n + 1) // 2
    for k in range(n):
        col = 0 if n == 1 else (k % 2)
        x = fw * (0.5 if n == 1 or (n % 2 == 1 and k == n - 1) else (0.36 if col == 0 else 0.64))
        y = fh * (0.32 + 0.36 * ((k // 2) + 0.5) / max(rows, 1))
        _sign(field, card.suit, x, y, fh * 0.065, ink)
    return img, mask


@functools.lru_cache(maxsize=8)
def _back(s: float) -> tuple[Image, Image]:
    img, mask, (fx, fy, fw, fh) = _blank(s)
    field = img[fy:fy + fh, fx:fx + fw]
    cell = max(2, int(fw / 7))
    for j in range(0, fh, cell):
        for i in range(0, fw, cell):
            colour = (60, 40, 110) if ((i // cell) + (j // cell)) % 2 else (170, 200, 230)
            field[j:j + cell, i:i + cell] = colour
    cv2.circle(field, (fw // 2, fh // 2), int(fw * 0.3), (250, 250, 250), -1, cv2.LINE_AA)
    _text(field, "M", fw / 2, fh / 2, fw * 0.3, (60, 40, 110), max(1, int(s * 1.5)), cv2.FONT_HERSHEY_TRIPLEX)
    return img, mask


@functools.lru_cache(maxsize=16)
def _token(label: str, s: float) -> tuple[Image, Image]:
    d = _mm(TOKEN.diameter, s)
    img = np.full((d, d, 3), 246, np.uint8)
    c = (d - 1) / 2
    ci = (int(round(c)), int(round(c)))
    ri = TOKEN.inner_diameter / 2 * s
    cv2.circle(img, ci, _mm(TOKEN.diameter / 2 - TOKEN.margin, s), FRAME, -1, cv2.LINE_AA)
    if label == "token-back":
        cv2.circle(img, ci, int(ri), (170, 200, 230), -1, cv2.LINE_AA)
        for k in range(6):
            a = k * math.pi / 3
            cv2.line(img, ci, (int(c + 0.7 * ri * math.cos(a)), int(c + 0.7 * ri * math.sin(a))), (60, 40, 110),
                     max(1, int(s)), cv2.LINE_AA)
    else:
        value = int(label.split("-")[1])
        cv2.circle(img, ci, int(ri), CREAM, -1, cv2.LINE_AA)
        cv2.circle(img, ci, int(0.85 * ri), TOKEN_FACES[value], -1, cv2.LINE_AA)
        cv2.circle(img, ci, int(ri * 0.62), (245, 245, 245), -1, cv2.LINE_AA)
        _text(img, str(value), c, c, ri * 0.55, (40, 30, 30), max(1, int(s * 1.1)), cv2.FONT_HERSHEY_COMPLEX)
    mask = np.zeros((d, d), np.uint8)
    cv2.circle(mask, ci, int(d / 2), 255, -1, cv2.LINE_AA)
    return img, mask


def render(label: str, px_per_mm: float) -> tuple[Image, Image]:
    """A Midway face (image, alpha) of any Big Top label but ``none``; a `vision.bigtop.scene.FaceSource`."""
    s = round(float(px_per_mm), 3)
    if label == "back":
        return _back(s)
    if label.startswith("token"):
        return _token(label, s)
    return _card(label, s)
