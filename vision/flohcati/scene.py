"""Where the cards of a Circus Flohcati table lie, and the clean top-down picture of it.

`TableLayout` says what lies on the mat (the row in order, the action lane,
the request strip, each seat's zone); `placements` puts every card on its
slot with a small turn and offset fixed by the card's identity; `render`
draws the mat and the cards seen from straight above (table millimetres),
the input of the simulated camera and of the independent camera model.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorer.flohcati.cards import Action, Colour, DeckCard, Flea, card_name
from scorer.flohcati.observe import TableSight
from vision.flohcati.faces import draw_back, draw_card, draw_mat, paste_card
from vision.flohcati.layout import (
    CODE_CENTRE,
    MAT,
    MAX_SEATS,
    SEAT_CAPACITY,
    action_slot,
    request_slot,
    row_slot,
    seat_slot,
    stack_slot,
)

__all__ = ["REGION", "FaceSource", "Placement", "TableLayout", "placements", "render"]

#: The table region the camera frames (x0, y0, x1, y1 mm): the mat and a little around it.
REGION = (-10.0, -10.0, MAT.width + 10.0, MAT.height + 10.0)


@dataclass(frozen=True, slots=True)
class TableLayout:
    """What lies face up on the mat (and whether the stack still lies there)."""

    row: tuple[Flea, ...] = ()
    lane: tuple[Action, ...] = ()
    #: a Request card on the strip: the colour asked for and whether it lies sideways
    request: tuple[Colour, bool] | None = None
    zones: tuple[tuple[Flea, ...], ...] = ((),) * MAX_SEATS
    stack: bool = True

    def sight(self, seats: int = MAX_SEATS) -> TableSight:
        """What a perfect recogniser reports of this layout."""
        counts = {a: self.lane.count(a) for a in Action}
        if self.request is not None:
            counts[Action.REQUEST] += 1
        zones = tuple(frozenset(self.zones[s]) if s < len(self.zones) else frozenset() for s in range(seats))
        return TableSight(self.row, tuple((a, counts[a]) for a in Action), zones, self.request)


@dataclass(frozen=True, slots=True)
class Placement:
    """One card on the table: its top-left corner (mm), its turn (degrees, clockwise) and the card (None: a back)."""

    card: DeckCard | None
    x: float
    y: float
    angle: float


def _jitter(seed: int, *key: object) -> random.Random:
    return random.Random("|".join(map(str, (seed, *key))))


def placements(layout: TableLayout, seed: int = 0, jitter: float = 1.0) -> list[Placement]:
    """Every card of ``layout`` in the order it is laid down (later cards on top)."""
    out: list[Placement] = []

    def put(card: DeckCard | None, xy: tuple[float, float], *key: object, angle: float = 0.0) -> None:
        j = _jitter(seed, *key)
        out.append(Placement(card, xy[0] + jitter * j.uniform(-1.5, 1.5), xy[1] + jitter * j.uniform(-1.5, 1.5),
                             angle + jitter * j.uniform(-2.5, 2.5)))

    if layout.stack:
        put(None, stack_slot(), "stack")
    for k, action in enumerate(layout.lane):
        put(action, action_slot(k), "lane", k)
    for k, flea in enumerate(layout.row):
        put(flea, row_slot(k), "row", card_name(flea))
    for seat, cards in enumerate(layout.zones):
        if len(cards) > SEAT_CAPACITY:
            raise ValueError(f"seat {seat + 1}'s zone holds at most {SEAT_CAPACITY} cards, not {len(cards)}")
        for k, flea in enumerate(cards):
            put(flea, seat_slot(seat, k), "seat", seat, card_name(flea))
    if layout.request is not None:
        colour, sideways = layout.request
        x, y = request_slot(colour)
        if sideways:
            # turned a quarter about the code's centre: the code stays on the colour field
            cx, cy = x + CODE_CENTRE[0], y + CODE_CENTRE[1]
            out.append(Placement(Action.REQUEST, cx + CODE_CENTRE[1], cy - CODE_CENTRE[0], 90.0))
        else:
            put(Action.REQUEST, (x, y), "request", colour.value)
    return out


@lru_cache(maxsize=4)
def _mat(px_per_mm: float) -> NDArray[np.uint8]:
    return draw_mat(px_per_mm)


@lru_cache(maxsize=512)
def _face(card: DeckCard | None, px_per_mm: float) -> NDArray[np.uint8]:
    return draw_back(px_per_mm) if card is None else draw_card(card, px_per_mm)


#: Another deck's faces: (card name or ``back``, px per mm) -> (BGR image, alpha), as `render` takes.
FaceSource = Callable[[str, float], tuple[NDArray[Any], NDArray[Any]]]


def render(layout_or_placements: TableLayout | list[Placement], px_per_mm: float = 3.0,
           cloth: tuple[int, int, int] = (70, 95, 60), seed: int = 0,
           faces: FaceSource | None = None) -> tuple[NDArray[Any], tuple[float, float]]:
    """The clean top-down image of the table (BGR uint8) and the table mm of its top-left pixel.

    It covers `REGION`: the mat on a table cloth of colour ``cloth``. ``faces``: another deck's art for
    the cards and their back (a published deck, without codes); default Ringside's print.
    """
    items = placements(layout_or_placements, seed) if isinstance(layout_or_placements, TableLayout) \
        else layout_or_placements
    x0, y0, x1, y1 = REGION
    s = px_per_mm
    w, h = int(round((x1 - x0) * s)), int(round((y1 - y0) * s))
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = cloth
    mat = _mat(s)
    ox, oy = int(round(-x0 * s)), int(round(-y0 * s))
    canvas[oy:oy + mat.shape[0], ox:ox + mat.shape[1]] = mat[: h - oy, : w - ox]
    for p in items:
        if faces is None:
            paste_card(canvas, _face(p.card, s), p.x, p.y, p.angle, s, (x0, y0))
        else:
            img, alpha = faces("back" if p.card is None else card_name(p.card), s)
            paste_card(canvas, img, p.x, p.y, p.angle, s, (x0, y0), alpha)
    return canvas, (x0, y0)
