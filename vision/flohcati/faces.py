"""Circus Flohcati's own print-and-play art: card faces, the card back and the mat, drawn from the facts.

Every image is drawn at a given resolution (pixels per millimetre) as an
OpenCV BGR array. A flea card shows its colour (a band and the flea), its
value large in the middle and in both corners, its colour's name, and its
ArUco code in the top-left corner; an action card shows its name and its
code. The back carries no code (the stack is never read).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.flohcati.cards import Action, Colour, DeckCard, Flea
from vision.flohcati.layout import (
    ARUCO_DICTIONARY,
    CARD,
    CODE_CENTRE,
    CODE_SIZE,
    MAT,
    card_id,
)

__all__ = ["COLOUR_BGR", "draw_back", "draw_card", "draw_mat", "paste_card"]

Image = NDArray[np.uint8]

#: The ten flea colours as printed (BGR).
COLOUR_BGR: dict[Colour, tuple[int, int, int]] = {
    Colour.RED: (40, 40, 220),
    Colour.ORANGE: (30, 140, 250),
    Colour.YELLOW: (40, 220, 240),
    Colour.GREEN: (60, 170, 50),
    Colour.TEAL: (160, 160, 30),
    Colour.BLUE: (200, 90, 30),
    Colour.PURPLE: (150, 50, 120),
    Colour.PINK: (190, 140, 250),
    Colour.BROWN: (40, 80, 130),
    Colour.GREY: (150, 150, 150),
}
_ACTION_BGR = {Action.NEW: (70, 200, 250), Action.TAKE: (80, 80, 230), Action.REQUEST: (220, 150, 60)}
_DICT = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


def _marker(marker_id: int, side_px: int) -> Image:
    return np.asarray(cv2.aruco.generateImageMarker(_DICT, marker_id, side_px), np.uint8)


def _text(img: Image, text: str, centre: tuple[float, float], height_px: float, colour: tuple[int, int, int],
          thickness: float = 0.12) -> None:
    """Text centred on a point, ``height_px`` tall (capital height)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_px / 22.0
    th = max(1, int(round(height_px * thickness)))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    org = (int(round(centre[0] - w / 2)), int(round(centre[1] + h / 2)))
    cv2.putText(img, text, org, font, scale, colour, th, cv2.LINE_AA)


def _blank(px_per_mm: float) -> Image:
    w, h = int(round(CARD.width * px_per_mm)), int(round(CARD.height * px_per_mm))
    return np.full((h, w, 3), 255, np.uint8)


def _flea(img: Image, centre: tuple[float, float], size: float, colour: tuple[int, int, int]) -> None:
    """A flea: a round body, a head and six legs (no straight-edged dark shapes, which could look like a code)."""
    cx, cy = centre
    body = (int(cx), int(cy))
    cv2.ellipse(img, body, (int(size * 0.5), int(size * 0.36)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    cv2.circle(img, (int(cx + size * 0.55), int(cy - size * 0.1)), int(size * 0.2), colour, -1, cv2.LINE_AA)
    for k in range(3):
        x = cx - size * 0.3 + k * size * 0.3
        for sign in (-1, 1):
            end = (int(x - size * 0.15), int(cy + sign * size * 0.6))
            cv2.line(img, (int(x), int(cy)), end, colour, max(1, int(size * 0.06)), cv2.LINE_AA)


def draw_card(card: DeckCard, px_per_mm: float) -> Image:
    """The face of ``card``: 57 x 88 mm at ``px_per_mm``.

    White, with a thin frame line of the card's colour (never a filled square
    block, which the code detector could take for a code), the code in the
    top-left corner, the value large in the top-right corner.
    """
    s = px_per_mm
    img = _blank(s)
    h, w = img.shape[:2]
    colour = COLOUR_BGR[card.colour] if isinstance(card, Flea) else _ACTION_BGR[card]
    cv2.rectangle(img, (int(2.5 * s), int(34 * s)), (w - int(2.5 * s), h - int(2.5 * s)), colour,
                  max(1, int(1.6 * s)), cv2.LINE_AA)
    code = int(round(CODE_SIZE * s))
    mx = int(round((CODE_CENTRE[0] - CODE_SIZE / 2) * s))
    my = int(round((CODE_CENTRE[1] - CODE_SIZE / 2) * s))
    img[my:my + code, mx:mx + code] = _marker(card_id(card), code)[:, :, None]
    if isinstance(card, Flea):
        _text(img, str(card.value), (w - 12 * s, 16 * s), 12 * s, colour, 0.16)
        _flea(img, (w / 2 - 3 * s, 54 * s), 13 * s, colour)
        _text(img, card.colour.value, (w / 2, 72 * s), 4 * s, (30, 30, 30))
        _text(img, str(card.value), (w / 2, 80 * s), 4 * s, (30, 30, 30))
    else:
        sign = {Action.NEW: "!", Action.TAKE: "<", Action.REQUEST: "?"}[card]
        _text(img, sign, (w - 12 * s, 16 * s), 12 * s, colour, 0.16)
        words = card.label.split()
        _text(img, words[0], (w / 2, 45 * s), 5.5 * s, (30, 30, 30))
        _text(img, "attraction", (w / 2, 55 * s), 4.2 * s, (30, 30, 30))
        cv2.circle(img, (int(w / 2), int(70 * s)), int(7 * s), colour, -1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (150, 150, 150), max(1, int(0.3 * s)))
    return img


def draw_back(px_per_mm: float) -> Image:
    """The card back: circus stripes and rings, no code."""
    s = px_per_mm
    img = _blank(s)
    h, w = img.shape[:2]
    cv2.rectangle(img, (int(2 * s), int(2 * s)), (w - int(2 * s), h - int(2 * s)), (60, 40, 150), -1)
    for k in range(0, int(w + h), max(2, int(8 * s))):
        cv2.line(img, (k, 0), (k - h, h), (90, 70, 190), max(1, int(2.5 * s)), cv2.LINE_AA)
    cv2.circle(img, (w // 2, h // 2), int(17 * s), (255, 255, 255), -1, cv2.LINE_AA)
    _text(img, "Circus", (w / 2, h / 2 - 4 * s), 4 * s, (60, 40, 150))
    _text(img, "Flohcati", (w / 2, h / 2 + 5 * s), 4 * s, (60, 40, 150))
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (120, 120, 120), max(1, int(0.3 * s)))
    return img


def _rect(img: Image, r: Any, s: float, colour: tuple[int, int, int], thick: float = 0.8) -> None:
    cv2.rectangle(img, (int(r.x * s), int(r.y * s)), (int((r.x + r.w) * s), int((r.y + r.h) * s)), colour,
                  max(1, int(thick * s)), cv2.LINE_AA)


def draw_mat(px_per_mm: float, background: tuple[int, int, int] = (235, 245, 250)) -> Image:
    """The whole mat (600 x 570 mm): markers, zones and their names."""
    s = px_per_mm
    w, h = int(round(MAT.width * s)), int(round(MAT.height * s))
    img = np.full((h, w, 3), background, np.uint8)
    ink = (110, 90, 70)
    for k, mid in enumerate(MAT.marker_ids):
        (x, y), *_ = MAT.marker_corners(k)
        quiet = 4.0
        cv2.rectangle(img, (int((x - quiet) * s), int((y - quiet) * s)),
                      (int((x + MAT.marker_size + quiet) * s), int((y + MAT.marker_size + quiet) * s)),
                      (255, 255, 255), -1)
        side = int(round(MAT.marker_size * s))
        img[int(round(y * s)):int(round(y * s)) + side, int(round(x * s)):int(round(x * s)) + side] = \
            _marker(mid, side)[:, :, None]
    _rect(img, MAT.stack, s, ink)
    _text(img, "stack", (MAT.stack.centre[0] * s, (MAT.stack.y + MAT.stack.h + 6) * s), 3.5 * s, ink)
    _rect(img, MAT.actions, s, ink)
    _text(img, "action cards", ((MAT.actions.x + 40) * s, (MAT.actions.y + MAT.actions.h + 6) * s), 3.5 * s, ink)
    strip = MAT.request
    fw = strip.w / len(Colour)
    for colour in Colour:
        # a disc of each colour (round: nothing on the mat looks like a card's square code)
        x = strip.x + (colour.index + 0.5) * fw
        cv2.circle(img, (int(x * s), int((strip.y + strip.h / 2) * s)), int(min(fw, strip.h) * 0.42 * s),
                   COLOUR_BGR[colour], -1, cv2.LINE_AA)
        cv2.circle(img, (int(x * s), int((strip.y + strip.h / 2) * s)), int(2 * s), (255, 255, 255), -1)
    # short enough, centred, to keep out of the top right marker's quiet zone and inside the band the words have
    # always taken (started at the strip's left end, a held-out photo at 2304x1296 asked a needless question there)
    _text(img, "request: code on the colour, sideways: nobody",
          ((strip.x + strip.w / 2) * s, (strip.y - 5) * s), 3.0 * s, ink)
    _rect(img, MAT.row, s, ink)
    _text(img, "the row: turned fleas, left to right", ((MAT.row.x + 90) * s, (MAT.row.y - 5) * s), 3.5 * s, ink)
    for seat in range(4):
        zone = MAT.seat_zone(seat)
        _rect(img, zone, s, ink)
        _text(img, f"seat {seat + 1}: trios, shown cards", ((zone.x + zone.w / 2) * s, (zone.y - 4) * s),
              3.2 * s, ink)
    _text(img, "Circus Flohcati", (MAT.width / 2 * s, 150 * s), 5 * s, ink)
    return img


def paste_card(canvas: NDArray[Any], card_img: Image, x: float, y: float, angle_deg: float, px_per_mm: float,
               origin: tuple[float, float] = (0.0, 0.0), alpha: Image | None = None) -> None:
    """Paste a card image onto a top-down canvas with its top-left corner at table (x, y), turned by ``angle_deg``
    (clockwise on the table) about that corner (``alpha``: the card's opacity, 0..255; default opaque)."""
    s = px_per_mm
    ch, cw = card_img.shape[:2]
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    tx, ty = (x - origin[0]) * s, (y - origin[1]) * s
    m = np.array([[ca, -sa, tx], [sa, ca, ty]], np.float64)
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64) @ m[:, :2].T + m[:, 2]
    x0, y0 = np.floor(corners.min(0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 2
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    local = m.copy()
    local[:, 2] -= (x0, y0)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(card_img, local, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    opaque: Image = np.full((ch, cw), 255, np.uint8) if alpha is None else alpha
    mask = cv2.warpAffine(opaque, local, size, flags=cv2.INTER_LINEAR)
    cover = (mask.astype(np.float32) / 255.0)[:, :, None]
    roi = canvas[y0:y1, x0:x1]
    canvas[y0:y1, x0:x1] = (roi * (1 - cover) + warped * cover).astype(canvas.dtype)
