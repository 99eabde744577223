"""Carcassonne with the Under the Big Top expansion (registry name ``carcassonne``).

>>> import scorer
>>> scorer.get("carcassonne").info.title
'Carcassonne'

`catalog` holds the tile data, `model` the value types, `engine` the pure
rules and `game` the `Carcassonne` game (notation, JSON, records).
"""

from __future__ import annotations

from scorer.carcassonne.catalog import CATALOG, EXPANSION
from scorer.carcassonne.game import Carcassonne, move_from_json, move_to_json
from scorer.carcassonne.model import (
    Animal,
    Category,
    Discard,
    Figure,
    Move,
    Placement,
    Reason,
    Spot,
    State,
)

__all__ = [
    "CATALOG",
    "EXPANSION",
    "Animal",
    "Carcassonne",
    "Category",
    "Discard",
    "Figure",
    "Move",
    "Placement",
    "Reason",
    "Spot",
    "State",
    "move_from_json",
    "move_to_json",
]
