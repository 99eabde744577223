"""A second Circus Flohcati deck, "Fleapit", in an art style the shipped model never saw.

Stands in for a family's published Flohcati deck in `bench_enroll_flohcati.py`: no printed
code (a published card has none), other colours (each flea colour in another shade, the face
field tinted with it, a charcoal frame), other fonts (Hershey triplex and complex, italic) and
another layout: like a published deck, an index in the top-left corner (the value and below it
the colour's emblem, a shape of its own for each of the ten colours) and the same index upside
down in the bottom-right corner; the value again as bars down the left edge, which a card laid
over it leaves visible; a large patterned flea in the middle and the colour's name along the
bottom. The action cards are dark, with a letter and a sign of their own in the index and a
large sign in the middle.

Never train a shipped model on these faces: they exist only to be enrolled from photos and
recognised through an enrolled deck.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from midway_deck import _rounded  # the same rounded-corner mask as the other second decks
from numpy.typing import NDArray

from scorer.core import UnknownComponent
from scorer.flohcati.cards import FLEAS, Action, Colour, Flea, parse_card
from vision.flohcati.layout import CARD

Image = NDArray[Any]
BGR = tuple[int, int, int]

#: each colour's shade (BGR): deliberately not the shipped deck's
SHADES: dict[Colour, BGR] = {
    Colour.RED: (40, 25, 185), Colour.ORANGE: (10, 115, 235), Colour.YELLOW: (10, 185, 225),
    Colour.GREEN: (50, 135, 25), Colour.TEAL: (135, 125, 10), Colour.BLUE: (150, 55, 25),
    Colour.PURPLE: (125, 35, 105), Colour.PINK: (165, 105, 240), Colour.BROWN: (35, 65, 105),
    Colour.GREY: (115, 115, 115),
}
#: each colour's emblem in the index
EMBLEMS: dict[Colour, str] = {
    Colour.RED: "disc", Colour.ORANGE: "square", Colour.YELLOW: "triangle", Colour.GREEN: "diamond",
    Colour.TEAL: "star", Colour.BLUE: "cross", Colour.PURPLE: "ring", Colour.PINK: "heart",
    Colour.BROWN: "hexagon", Colour.GREY: "bar",
}
#: the action cards: field, ink, index letter and sign
ACTIONS: dict[Action, tuple[BGR, BGR, str, str]] = {
    Action.NEW: ((60, 30, 70), (60, 210, 250), "N", "star"),
    Action.TAKE: ((40, 40, 40), (80, 90, 240), "T", "triangle"),
    Action.REQUEST: ((90, 60, 20), (230, 220, 120), "R", "ring"),
}
FRAME: BGR = (45, 50, 55)
PAPER: BGR = (250, 250, 250)
LABELS: tuple[str, ...] = tuple(f.name for f in FLEAS) + tuple(a.value for a in Action)


def _mm(v: float, s: float) -> int:
    return int(round(v * s))


def _text(img: Image, text: str, cx: float, cy: float, height: float, colour: BGR, thick: int, font: int,
          max_width: float | None = None) -> None:
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(th, 1)
    if max_width is not None and tw * scale > max_width:
        scale = max_width / max(tw, 1)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, colour, thick, cv2.LINE_AA)


def _emblem(img: Image, kind: str, cx: float, cy: float, r: float, colour: BGR, edge: BGR) -> None:
    """A filled shape of radius ``r`` (pixels) centred on (cx, cy), outlined in ``edge``."""
    t = max(1, int(round(r * 0.18)))

    def poly(points: list[tuple[float, float]]) -> None:
        pts = np.array([[cx + u * r, cy + v * r] for u, v in points], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        cv2.polylines(img, [pts], True, edge, t, cv2.LINE_AA)

    if kind == "disc":
        cv2.circle(img, (int(cx), int(cy)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(r), edge, t, cv2.LINE_AA)
    elif kind == "ring":
        cv2.circle(img, (int(cx), int(cy)), int(r * 0.8), colour, max(1, int(r * 0.4)), cv2.LINE_AA)
    elif kind == "square":
        poly([(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)])
    elif kind == "triangle":
        poly([(0, -1), (0.95, 0.8), (-0.95, 0.8)])
    elif kind == "diamond":
        poly([(0, -1.1), (0.8, 0), (0, 1.1), (-0.8, 0)])
    elif kind == "star":
        poly([(math.cos(-math.pi / 2 + k * math.pi / 5) * (1.0 if k % 2 == 0 else 0.45),
               math.sin(-math.pi / 2 + k * math.pi / 5) * (1.0 if k % 2 == 0 else 0.45)) for k in range(10)])
    elif kind == "cross":
        a = 0.33
        poly([(-a, -1), (a, -1), (a, -a), (1, -a), (1, a), (a, a), (a, 1), (-a, 1), (-a, a), (-1, a), (-1, -a), (-a, -a)])
    elif kind == "heart":
        poly([(0, 1)] + [(0.5 * math.cos(t) * 1.1 + 0.45, -0.35 + 0.5 * math.sin(t)) for t in np.linspace(0.9, -math.pi, 9)]
             + [(0.5 * math.cos(t) * 1.1 - 0.45, -0.35 + 0.5 * math.sin(t)) for t in np.linspace(0, -math.pi - 0.9, 9)])
    elif kind == "hexagon":
        poly([(math.cos(k * math.pi / 3), math.sin(k * math.pi / 3)) for k in range(6)])
    elif kind == "bar":
        poly([(-1, -0.4), (1, -0.4), (1, 0.4), (-1, 0.4)])
    else:
        raise ValueError(kind)


def _blank(s: float, field: BGR) -> tuple[Image, Image]:
    """White margin, the charcoal frame, the tinted face field; and the rounded corners' alpha."""
    w, h = _mm(CARD.width, s), _mm(CARD.height, s)
    img = np.full((h, w, 3), PAPER, np.uint8)
    m = _mm(1.5, s)
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), FRAME, -1)
    f = _mm(2.7, s)
    img[f:h - f, f:w - f] = field
    return img, _rounded(h, w, _mm(CARD.corner_radius, s))


def _index(img: Image, s: float, mark: str, emblem: str, ink: BGR, fill: BGR) -> None:
    """The index in the top-left corner: ``mark`` and the emblem below it."""
    _text(img, mark, 9.5 * s, 10.5 * s, 8.5 * s, ink, max(1, _mm(1.1, s)), cv2.FONT_HERSHEY_TRIPLEX)
    _emblem(img, emblem, 9.5 * s, 22.5 * s, 4.2 * s, fill, ink)


def _both_indices(img: Image, s: float, mark: str, emblem: str, ink: BGR, fill: BGR, field: BGR) -> None:
    """The index in the top-left corner and, turned half round, in the bottom-right one."""
    _index(img, s, mark, emblem, ink, fill)
    patch = np.zeros((_mm(30, s), _mm(20, s), 3), np.uint8)
    patch[:] = field
    _index(patch, s, mark, emblem, ink, fill)
    drawn = np.any(patch != np.array(field, np.uint8), axis=2)[::-1, ::-1]
    h, w = img.shape[:2]
    corner = img[h - patch.shape[0]:, w - patch.shape[1]:]
    corner[drawn] = patch[::-1, ::-1][drawn]


def _flea_card(flea: Flea, s: float) -> tuple[Image, Image]:
    shade = SHADES[flea.colour]
    tint: BGR = tuple(int(0.22 * v + 0.78 * 250) for v in shade)  # type: ignore[assignment]
    dark: BGR = tuple(int(0.55 * v) for v in shade)  # type: ignore[assignment]
    img, alpha = _blank(s, tint)
    h, w = img.shape[:2]
    # the value as bars down the left edge (visible when a card lies over the rest)
    for k in range(flea.value):
        y = (33.0 + 5.5 * k) * s
        cv2.rectangle(img, (_mm(5.0, s), int(y)), (_mm(15.0, s), int(y + 3.2 * s)), dark, -1, cv2.LINE_AA)
    # the flea: a patterned body of the colour, a head and legs
    cx, cy = 35.0 * s, 50.0 * s
    body = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(body, (int(cx), int(cy)), (_mm(12, s), _mm(16, s)), 10, 0, 360, 255, -1, cv2.LINE_AA)
    img[body > 0] = shade
    stripes = np.zeros_like(body)
    for k in range(-4, 5):
        cv2.line(stripes, (int(cx - 20 * s), int(cy + k * 6 * s - 8 * s)), (int(cx + 20 * s), int(cy + k * 6 * s + 8 * s)),
                 255, max(1, _mm(1.5, s)), cv2.LINE_AA)
    img[(body > 0) & (stripes > 0)] = tint
    cv2.ellipse(img, (int(cx), int(cy)), (_mm(12, s), _mm(16, s)), 10, 0, 360, dark, max(1, _mm(0.8, s)), cv2.LINE_AA)
    cv2.circle(img, (int(cx + 3 * s), int(cy - 19 * s)), _mm(5.5, s), dark, -1, cv2.LINE_AA)
    for k in range(3):
        y = cy - 6 * s + k * 7 * s
        cv2.line(img, (int(cx - 10 * s), int(y)), (int(cx - 19 * s), int(y + 5 * s)), dark, max(1, _mm(1.0, s)), cv2.LINE_AA)
        cv2.line(img, (int(cx + 10 * s), int(y)), (int(cx + 19 * s), int(y + 5 * s)), dark, max(1, _mm(1.0, s)), cv2.LINE_AA)
    _text(img, flea.colour.value, 35.0 * s, 73.0 * s, 3.2 * s, dark, max(1, _mm(0.45, s)),
          cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC, max_width=24 * s)
    _both_indices(img, s, str(flea.value), EMBLEMS[flea.colour], dark, shade, tint)
    return img, alpha


def _action_card(action: Action, s: float) -> tuple[Image, Image]:
    field, ink, letter, sign = ACTIONS[action]
    img, alpha = _blank(s, field)
    # a band of the ink down the left edge, under the index
    cv2.rectangle(img, (_mm(4.5, s), _mm(31, s)), (_mm(8.0, s), _mm(82, s)), ink, -1, cv2.LINE_AA)
    _emblem(img, sign, 33.0 * s, 46.0 * s, 13.0 * s, ink, PAPER)
    words = action.label.split()[0].lower()
    _text(img, words, 33.0 * s, 70.0 * s, 4.0 * s, PAPER, max(1, _mm(0.5, s)), cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
          max_width=30 * s)
    _both_indices(img, s, letter, sign, ink, ink, field)
    return img, alpha


@functools.lru_cache(maxsize=8)
def _back(s: float) -> tuple[Image, Image]:
    img, alpha = _blank(s, (40, 90, 40))
    h, w = img.shape[:2]
    for y in range(0, h, max(2, _mm(7, s))):
        for x in range(0, w, max(2, _mm(7, s))):
            cv2.circle(img, (x, y), max(1, _mm(2.2, s)), (90, 170, 210), -1, cv2.LINE_AA)
    return img, alpha


@functools.lru_cache(maxsize=256)
def _card(label: str, s: float) -> tuple[Image, Image]:
    try:
        card = parse_card(label)
    except UnknownComponent:
        raise ValueError(f"no Flohcati card {label!r}") from None
    return _flea_card(card, s) if isinstance(card, Flea) else _action_card(card, s)


def render(label: str, px_per_mm: float) -> tuple[Image, Image]:
    """A Fleapit face (image, alpha) of a Flohcati card name (``red-5``, ``take-attraction``) or ``back``."""
    s = round(float(px_per_mm), 3)
    return _back(s) if label == "back" else _card(label, s)
