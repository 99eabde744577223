"""Circus Flohcati (Reiner Knizia): seed 003, docs/rules.md §3.

>>> import scorer
>>> scorer.get("circus-flohcati").info.title
'Circus Flohcati'
"""

from scorer.flohcati.cards import DECK, FLEAS, Action, Colour, DeckCard, Flea, parse_card
from scorer.flohcati.game import (
    EndReason,
    Flohcati,
    FlohcatiMove,
    FlohcatiState,
    Phase,
    Reason,
    Request,
    Show,
    Steal,
    Stop,
    Take,
    Trio,
    Turn,
    bust_probability,
    hand_points,
    score_of,
)

__all__ = [
    "DECK",
    "FLEAS",
    "Action",
    "Colour",
    "DeckCard",
    "EndReason",
    "Flea",
    "Flohcati",
    "FlohcatiMove",
    "FlohcatiState",
    "Phase",
    "Reason",
    "Request",
    "Show",
    "Steal",
    "Stop",
    "Take",
    "Trio",
    "Turn",
    "bust_probability",
    "hand_points",
    "parse_card",
    "score_of",
]
