"""Render Big Top component faces from the game facts, at any resolution.

Every renderer takes ``px_per_mm`` and returns a BGR ``uint8`` image together
with a ``uint8`` alpha mask (255 = component). The real artwork is not
available, so the faces are drawn with simple shapes: each suit has its own
background colour and icon, numbers are large, light numbers are white with a
dark outline and dark numbers are near-black (the real deck differs by the
shade of the number too), and the Poster shows a grey ``P``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import Card, Shade, Suit
from vision.bigtop.labels import BACK, TOKEN_BACK
from vision.bigtop.layout import (
    ARUCO_DICT,
    CARD,
    CARD_FACE_VERSION,
    CHART,
    MAT,
    SHEET_VERSION,
    TOKEN,
    Pile,
    Space,
    card_icon,
    card_numerals,
    chart_marker_ids,
)

__all__ = [
    "Image",
    "SUIT_COLOURS",
    "render_aruco",
    "printed_faces",
    "render_card",
    "render_card_back",
    "render_chart",
    "render_label",
    "render_mat",
    "render_token",
    "render_token_back",
    "render_unnumbered",
]

Image = NDArray[Any]
Colour = tuple[int, int, int]

#: Background colour of each suit's face field (BGR), mid-tones so that both
#: white and near-black numbers stand out.
SUIT_COLOURS: dict[Suit, Colour] = {
    Suit.CLOWNS: (40, 175, 230),
    Suit.SIDESHOW: (190, 110, 175),
    Suit.ANIMALS: (105, 185, 105),
    Suit.PERFORMERS: (215, 150, 80),
}
INK: Colour = (35, 30, 30)
WHITE: Colour = (255, 255, 255)
POSTER_GREY: Colour = (140, 140, 140)
#: the mat's paper (BGR)
MAT_PAPER: Colour = (225, 238, 245)
TOKEN_COLOURS: dict[int, Colour] = {
    10: (120, 200, 235),
    7: (200, 200, 120),
    5: (170, 150, 230),
    3: (210, 210, 210),
}
_FONT = cv2.FONT_HERSHEY_DUPLEX


def _mm(v: float, s: float) -> int:
    return int(round(v * s))


def _text_centred(img: Image, text: str, cx: float, cy: float, height_px: float,
                  colour: Colour, thickness: int, font: int = _FONT,
                  outline: Colour | None = None, outline_extra: int = 0,
                  width_px: float | None = None) -> None:
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = height_px / max(th, 1)
    if width_px is not None:
        scale = min(scale, width_px / max(tw, 1))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (int(round(cx - tw / 2)), int(round(cy + th / 2)))
    if outline is not None:
        cv2.putText(img, text, org, font, scale, outline, thickness + outline_extra, cv2.LINE_AA)
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def _rounded_mask(h: int, w: int, r: int) -> Image:
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _draw_icon(img: Image, suit: Suit, cx: float, cy: float, size: float) -> None:
    """Draw the suit's picture centred at (cx, cy) within a ``size``-pixel square."""
    s = size / 2
    t = max(1, int(round(size / 40)))

    def p(dx: float, dy: float) -> tuple[int, int]:
        return (int(round(cx + dx * s)), int(round(cy + dy * s)))

    def r(v: float) -> int:
        return max(1, int(round(v * s)))

    if suit is Suit.CLOWNS:
        cv2.fillPoly(img, [np.array([p(-0.45, -0.35), p(0.45, -0.35), p(0.0, -1.0)])], (60, 60, 200), cv2.LINE_AA)
        cv2.circle(img, p(0, -1.0), r(0.1), WHITE, -1, cv2.LINE_AA)
        cv2.circle(img, p(0, 0.15), r(0.55), (235, 240, 250), -1, cv2.LINE_AA)
        cv2.circle(img, p(0, 0.15), r(0.55), INK, t, cv2.LINE_AA)
        cv2.circle(img, p(-0.2, 0.0), r(0.07), INK, -1, cv2.LINE_AA)
        cv2.circle(img, p(0.2, 0.0), r(0.07), INK, -1, cv2.LINE_AA)
        cv2.circle(img, p(0, 0.18), r(0.13), (30, 30, 220), -1, cv2.LINE_AA)
        cv2.ellipse(img, p(0, 0.35), (r(0.28), r(0.14)), 0, 0, 180, (30, 30, 180), t + 1, cv2.LINE_AA)
        cv2.circle(img, p(-0.62, 0.05), r(0.18), (40, 120, 240), -1, cv2.LINE_AA)
        cv2.circle(img, p(0.62, 0.05), r(0.18), (40, 120, 240), -1, cv2.LINE_AA)
    elif suit is Suit.SIDESHOW:
        cv2.circle(img, p(0, -0.75), r(0.22), (40, 60, 90), -1, cv2.LINE_AA)
        cv2.ellipse(img, p(0, -0.15), (r(0.42), r(0.5)), 0, 0, 360, (170, 200, 235), -1, cv2.LINE_AA)
        cv2.ellipse(img, p(0, -0.15), (r(0.42), r(0.5)), 0, 0, 360, INK, t, cv2.LINE_AA)
        beard = np.array([p(-0.42, -0.05), p(-0.35, 0.55), p(0, 0.95), p(0.35, 0.55), p(0.42, -0.05),
                          p(0.2, 0.2), p(-0.2, 0.2)])
        cv2.fillPoly(img, [beard], (30, 55, 95), cv2.LINE_AA)
        cv2.circle(img, p(-0.17, -0.3), r(0.07), INK, -1, cv2.LINE_AA)
        cv2.circle(img, p(0.17, -0.3), r(0.07), INK, -1, cv2.LINE_AA)
        cv2.ellipse(img, p(0, 0.1), (r(0.14), r(0.06)), 0, 0, 360, (60, 60, 200), -1, cv2.LINE_AA)
    elif suit is Suit.ANIMALS:
        grey = (150, 150, 155)
        cv2.ellipse(img, p(0.15, 0.1), (r(0.6), r(0.42)), 0, 0, 360, grey, -1, cv2.LINE_AA)
        for lx in (-0.25, 0.0, 0.35, 0.6):
            cv2.rectangle(img, p(lx - 0.1, 0.3), p(lx + 0.1, 0.8), grey, -1, cv2.LINE_AA)
        cv2.circle(img, p(-0.5, -0.2), r(0.35), grey, -1, cv2.LINE_AA)
        cv2.ellipse(img, p(-0.35, -0.2), (r(0.2), r(0.3)), 0, 0, 360, (120, 120, 128), -1, cv2.LINE_AA)
        trunk = np.array([p(-0.75, -0.15), p(-0.95, 0.3), p(-0.85, 0.75), p(-0.72, 0.72), p(-0.8, 0.3), p(-0.6, 0.0)])
        cv2.fillPoly(img, [trunk], grey, cv2.LINE_AA)
        cv2.circle(img, p(-0.6, -0.3), r(0.06), INK, -1, cv2.LINE_AA)
        cv2.ellipse(img, p(0.15, 0.1), (r(0.6), r(0.42)), 0, 0, 360, INK, t, cv2.LINE_AA)
        cv2.circle(img, p(-0.5, -0.2), r(0.35), INK, t, cv2.LINE_AA)
    else:
        cv2.line(img, p(-1.0, 0.75), p(1.0, 0.75), INK, t + 1, cv2.LINE_AA)
        cv2.line(img, p(-0.95, -0.1), p(0.95, -0.3), (40, 80, 140), t + 1, cv2.LINE_AA)
        cv2.circle(img, p(0, -0.6), r(0.17), (170, 200, 235), -1, cv2.LINE_AA)
        cv2.circle(img, p(0, -0.6), r(0.17), INK, t, cv2.LINE_AA)
        body = np.array([p(-0.15, -0.42), p(0.15, -0.42), p(0.1, 0.2), p(-0.1, 0.2)])
        cv2.fillPoly(img, [body], (60, 40, 200), cv2.LINE_AA)
        cv2.line(img, p(-0.05, 0.2), p(-0.2, 0.75), INK, t + 1, cv2.LINE_AA)
        cv2.line(img, p(0.05, 0.2), p(0.25, 0.75), INK, t + 1, cv2.LINE_AA)
        cv2.line(img, p(-0.12, -0.3), p(-0.5, -0.17), INK, t, cv2.LINE_AA)
        cv2.line(img, p(0.12, -0.3), p(0.5, -0.24), INK, t, cv2.LINE_AA)


def _card_blank(s: float, fill: Colour) -> tuple[Image, Image, tuple[int, int, int, int]]:
    """White card with its dark frame and a filled face field; returns the field box."""
    w, h = _mm(CARD.width, s), _mm(CARD.height, s)
    img = np.full((h, w, 3), 250, np.uint8)
    m = _mm(CARD.margin, s)
    f = _mm(CARD.margin + CARD.frame, s)
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), INK, -1)
    cv2.rectangle(img, (f, f), (w - 1 - f, h - 1 - f), fill, -1)
    return img, _rounded_mask(h, w, _mm(CARD.corner_radius, s)), (f, f, w - 2 * f, h - 2 * f)


@functools.lru_cache(maxsize=256)
def _card_cached(notation: str, s: float, version: int) -> tuple[Image, Image]:
    card = Card.parse(notation)
    img, mask, (fx, fy, fw, fh) = _card_blank(s, SUIT_COLOURS[card.suit])
    cx = fx + fw / 2
    numerals = card_numerals(version)
    centre, height = numerals[0]
    cy, th = fy + fh * centre, fh * height
    if card.shade is Shade.POSTER:
        _text_centred(img, "P", cx, cy, th, POSTER_GREY, max(2, int(s * 3.2)),
                      outline=(90, 90, 90), outline_extra=max(1, int(s * 0.8)))
    elif card.shade is Shade.LIGHT:
        _text_centred(img, str(card.number), cx, cy, th, WHITE, max(2, int(s * 3.2)),
                      outline=INK, outline_extra=max(2, int(s * 1.6)))
    else:
        _text_centred(img, str(card.number), cx, cy, th, INK, max(2, int(s * 3.2)))
    if len(numerals) > 1:
        # the card is drawn the same turned 180 degrees (frame and field), so the top numeral's band turned is the foot's
        h = img.shape[0]
        r0, r1 = int(fy + fh * (centre - height / 2 - 0.05)), int(np.ceil(fy + fh * (centre + height / 2 + 0.05)))
        img[h - r1:h - r0] = img[r0:r1][::-1, ::-1]
    _face_icon(img, card.suit, (fx, fy, fw, fh), version)
    return img, mask


def _face_icon(img: Image, suit: Suit, field: tuple[int, int, int, int], version: int) -> None:
    """Draw ``suit``'s icon where every card of the suit shows it on a face of print ``version`` (`card_icon`)."""
    fx, fy, fw, fh = field
    centre, wide, high = card_icon(version)
    _draw_icon(img, suit, fx + fw / 2, fy + fh * centre, min(fw * wide, fh * high))


@functools.lru_cache(maxsize=16)
def render_unnumbered(suit: Suit, px_per_mm: float, version: int = CARD_FACE_VERSION) -> tuple[Image, Image]:
    """A card face of ``suit`` with no numeral (image, alpha): its colour, frame and icon, what every card of the
    suit shows, a numeral hidden or not printed; do not modify the returned arrays."""
    img, mask, field = _card_blank(px_per_mm, SUIT_COLOURS[suit])
    _face_icon(img, suit, field, version)
    return img, mask


def render_card(card: Card, px_per_mm: float, version: int = CARD_FACE_VERSION) -> tuple[Image, Image]:
    """The face of ``card`` (image, alpha) as card face print ``version`` draws it (`CARD_FACE_VERSION`: the
    numeral at the top and again at the foot turned 180 degrees; 1: at the top only); do not modify the returned
    arrays.

    >>> img, alpha = render_card(Card.parse("clowns-L3"), 4.0)
    >>> img.shape, alpha.shape
    ((352, 228, 3), (352, 228))
    """
    return _card_cached(card.notation(), round(float(px_per_mm), 3), version)


@functools.lru_cache(maxsize=16)
def render_card_back(px_per_mm: float) -> tuple[Image, Image]:
    """The common card back: cream field, red diamonds, the words BIG TOP."""
    s = px_per_mm
    img, mask, (fx, fy, fw, fh) = _card_blank(s, (200, 225, 240))
    field = np.full((fh, fw, 3), (200, 225, 240), np.uint8)
    step = fw / 4
    for i in range(-1, 6):
        for j in range(-1, 10):
            cx, cy = (i + 0.5 * (j % 2)) * step, j * step * 0.9
            pts = np.array([(cx, cy - step * 0.35), (cx + step * 0.3, cy), (cx, cy + step * 0.35),
                            (cx - step * 0.3, cy)], np.int32)
            cv2.fillPoly(field, [pts], (80, 80, 200), cv2.LINE_AA)
    # a plain band inside the frame line keeps the frame's inner edge clean
    band = max(2, int(s * 4.0))
    cv2.rectangle(field, (0, 0), (fw - 1, fh - 1), (200, 225, 240), band)
    img[fy:fy + fh, fx:fx + fw] = field
    cv2.ellipse(img, (int(fx + fw / 2), int(fy + fh / 2)), (int(fw * 0.42), int(fh * 0.14)), 0, 0, 360,
                (235, 245, 250), -1, cv2.LINE_AA)
    _text_centred(img, "BIG TOP", fx + fw / 2, fy + fh / 2, fh * 0.07, (60, 60, 170), max(1, int(s * 1.0)),
                  width_px=fw * 0.7)
    return img, mask


def _token_blank(s: float, fill: Colour) -> tuple[Image, Image, float, float]:
    d = _mm(TOKEN.diameter, s)
    img = np.full((d, d, 3), 250, np.uint8)
    c = (d - 1) / 2
    ci = (int(round(c)), int(round(c)))
    cv2.circle(img, ci, _mm(TOKEN.diameter / 2 - TOKEN.margin, s), INK, -1, cv2.LINE_AA)
    cv2.circle(img, ci, _mm(TOKEN.inner_diameter / 2, s), fill, -1, cv2.LINE_AA)
    mask = np.zeros((d, d), np.uint8)
    cv2.circle(mask, ci, int(d / 2), 255, -1, cv2.LINE_AA)
    return img, mask, c, TOKEN.inner_diameter / 2 * s


@functools.lru_cache(maxsize=64)
def render_token(value: int, px_per_mm: float) -> tuple[Image, Image]:
    """The face of a gate-receipt token worth ``value`` dollars (10, 7, 5 or 3)."""
    s = px_per_mm
    img, mask, c, ri = _token_blank(s, TOKEN_COLOURS[value])
    _text_centred(img, f"${value}", c, c, ri * 0.75, INK, max(1, int(s * 1.6)), width_px=ri * 1.55)
    return img, mask


@functools.lru_cache(maxsize=16)
def render_token_back(px_per_mm: float) -> tuple[Image, Image]:
    """The back of a gate-receipt token: a red star on cream."""
    s = px_per_mm
    img, mask, c, ri = _token_blank(s, (200, 225, 240))
    pts = []
    for k in range(10):
        a = -math.pi / 2 + k * math.pi / 5
        rad = ri * (0.75 if k % 2 == 0 else 0.32)
        pts.append((c + rad * math.cos(a), c + rad * math.sin(a)))
    cv2.fillPoly(img, [np.array(pts, np.int32)], (50, 50, 190), cv2.LINE_AA)
    return img, mask


def render_label(label: str, px_per_mm: float, version: int = CARD_FACE_VERSION) -> tuple[Image, Image]:
    """The face image of any classifier label except ``none`` (a card's as card face print ``version`` draws it).

    :raises ValueError: for ``none`` or an unknown label.
    """
    if label == BACK:
        return render_card_back(px_per_mm)
    if label == TOKEN_BACK:
        return render_token_back(px_per_mm)
    if label.startswith("token-"):
        return render_token(int(label.split("-")[1]), px_per_mm)
    if label == "none":
        raise ValueError("'none' has no face")
    return render_card(Card.parse(label), px_per_mm, version)


def printed_faces(version: int = CARD_FACE_VERSION) -> Callable[[str, float], tuple[Image, Image]]:
    """`render_label` with every card as card face print ``version`` draws it (a scene's ``faces``)."""
    def faces(label: str, px_per_mm: float) -> tuple[Image, Image]:
        return render_label(label, px_per_mm, version)
    return faces


def render_aruco(marker_id: int, size_px: int) -> Image:
    """An ArUco marker (4x4 dictionary) as a grey image ``size_px`` square, no quiet zone."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    out: Image = cv2.aruco.generateImageMarker(dictionary, marker_id, size_px)
    return out


def _paste_marker(img: Image, marker_id: int, corners_mm: tuple[tuple[float, float], ...], s: float) -> None:
    x0, y0 = corners_mm[0]
    size = _mm(corners_mm[1][0] - x0, s)
    quiet = _mm(4.0, s)
    x, y = _mm(x0, s), _mm(y0, s)
    cv2.rectangle(img, (x - quiet, y - quiet), (x + size + quiet, y + size + quiet), WHITE, -1)
    marker = render_aruco(marker_id, size)
    img[y:y + size, x:x + size] = marker[:, :, None]


def _outline_rect(img: Image, x: float, y: float, w: float, h: float, s: float, fill: Colour,
                  edge: Colour) -> None:
    p0, p1 = (_mm(x, s), _mm(y, s)), (_mm(x + w, s), _mm(y + h, s))
    cv2.rectangle(img, p0, p1, fill, -1)
    cv2.rectangle(img, p0, p1, edge, max(1, int(s * 0.6)), cv2.LINE_AA)


def render_mat(px_per_mm: float, version: int = SHEET_VERSION) -> Image:
    """The play mat: corner (and from sheet version 2 edge) markers and per suit a dark pile, Poster, light pile.

    ``version``: the printed sheet version (1: the corner markers only).
    """
    s = px_per_mm
    img = np.full((_mm(MAT.height, s), _mm(MAT.width, s), 3), MAT_PAPER, np.uint8)
    for k, mid in enumerate(MAT.marker_ids[:4] if version < 2 else MAT.marker_ids):
        _paste_marker(img, mid, MAT.marker_corners(k), s)
    for suit in Suit:
        bx, by = MAT.block_origin(suit)
        _text_centred(img, suit.title.upper(), (bx + 1.5 * MAT.slot_pitch) * s, (by + 6) * s, 7 * s,
                      (120, 120, 130), max(1, int(s * 0.8)))
        base = SUIT_COLOURS[suit]
        tint = tuple(int(255 - (255 - c) * 0.25) for c in base)
        for pile in Pile:
            r = MAT.slot(suit, pile)
            _outline_rect(img, r.x, r.y, r.w, r.h, s, (tint[0], tint[1], tint[2]), (185, 190, 195))
            _text_centred(img, pile.value, (r.x + r.w / 2) * s, (r.y + r.h / 2) * s, 5 * s, (175, 180, 185),
                          max(1, int(s * 0.5)))
    title = "RINGSIDE  BIG TOP  PLAY MAT" + (f"  V{version}" if version >= 2 else "")
    _text_centred(img, title, MAT.width / 2 * s, (MAT.height - 12) * s, 6 * s,
                  (160, 165, 175), max(1, int(s * 0.6)))
    return img


def render_chart(seat: int, px_per_mm: float, version: int = SHEET_VERSION) -> Image:
    """The Organizing Chart of seat ``seat`` (0-based), with its seat markers (two on sheet version 1, four from 2)."""
    s = px_per_mm
    img = np.full((_mm(CHART.height, s), _mm(CHART.width, s), 3), (232, 240, 236), np.uint8)
    for sp in Space:
        r = CHART.space(sp)
        _outline_rect(img, r.x, r.y, r.w, r.h, s, (222, 228, 235), (190, 195, 200))
        _text_centred(img, sp.label, (r.x + r.w / 2) * s, (r.y + r.h / 2) * s, 16 * s, (185, 190, 198),
                      max(1, int(s * 1.5)))
    for suit in Suit:
        cx, cy = CHART.picture_centre(suit)
        base = SUIT_COLOURS[suit]
        tint = (int(255 - (255 - base[0]) * 0.35), int(255 - (255 - base[1]) * 0.35),
                int(255 - (255 - base[2]) * 0.35))
        cv2.circle(img, (_mm(cx, s), _mm(cy, s)), _mm(CHART.picture_diameter / 2, s), tint, -1, cv2.LINE_AA)
        icon = np.full((_mm(30, s), _mm(30, s), 3), tint, np.uint8)
        _draw_icon(icon, suit, icon.shape[1] / 2, icon.shape[0] / 2, icon.shape[0] * 0.8)
        faded = (icon.astype(np.float32) * 0.35 + np.array(tint, np.float32) * 0.65).astype(np.uint8)
        y0, x0 = _mm(cy, s) - faded.shape[0] // 2, _mm(cx, s) - faded.shape[1] // 2
        circle = np.zeros(faded.shape[:2], np.uint8)
        cv2.circle(circle, (faded.shape[1] // 2, faded.shape[0] // 2), faded.shape[0] // 2, 255, -1)
        roi = img[y0:y0 + faded.shape[0], x0:x0 + faded.shape[1]]
        roi[circle > 0] = faded[circle > 0]
    x0, x1 = CHART.track_x
    cell = (x1 - x0) / 20
    for k in range(20):
        cx = x0 + k * cell
        cv2.rectangle(img, (_mm(cx, s), _mm(CHART.track_y, s)),
                      (_mm(cx + cell, s), _mm(CHART.track_y + CHART.track_height, s)), (195, 200, 205),
                      max(1, int(s * 0.4)))
        _text_centred(img, str(k + 1), (cx + cell / 2) * s, (CHART.track_y + CHART.track_height / 2) * s,
                      4 * s, (150, 155, 165), max(1, int(s * 0.4)))
    for side, mid in enumerate(chart_marker_ids(seat)[:2] if version < 2 else chart_marker_ids(seat)):
        _paste_marker(img, mid, CHART.marker_corners(side), s)
    seat_text = f"SEAT {seat + 1}" + (f"  V{version}" if version >= 2 else "")
    _text_centred(img, seat_text, CHART.width / 2 * s, (CHART.height - 4) * s, 3.5 * s,
                  (150, 155, 165), max(1, int(s * 0.4)))
    return img
