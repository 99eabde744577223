"""Circus Grandioso: the animal-pyramid card game (seed 001, docs/rules.md §2).

>>> import scorer
>>> scorer.get("grandioso").info.title
'Circus Grandioso'
"""

from scorer.grandioso.game import (
    Draw,
    EndReason,
    Exchange,
    Grandioso,
    GrandiosoMove,
    GrandiosoState,
    LayDown,
    Pass,
    Phase,
    Place,
    Reason,
    legal_slots,
)
from scorer.grandioso.pyramid import BOX, Card, Pyramid, Side, Slot

__all__ = [
    "BOX",
    "Card",
    "Draw",
    "EndReason",
    "Exchange",
    "Grandioso",
    "GrandiosoMove",
    "GrandiosoState",
    "LayDown",
    "Pass",
    "Phase",
    "Place",
    "Pyramid",
    "Reason",
    "Side",
    "Slot",
    "legal_slots",
]
