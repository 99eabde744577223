"""Ringside's rules engines: pure game logic, one sub-package per game.

>>> import scorer
>>> game = scorer.get("bigtop")
>>> game.info.title
'Big Top'

Every game follows the contract in `scorer.core`. ``scorer`` imports nothing
of ``vision``, ``hardware`` or ``firmware`` and does no I/O.
"""

from __future__ import annotations

import importlib
from typing import Any

from scorer.core import (
    Check,
    Event,
    Game,
    GameInfo,
    HiddenInformation,
    IllegalMove,
    MalformedMove,
    NotYourTurn,
    Outcome,
    RecordError,
    ReplayReport,
    TableError,
    UnknownComponent,
    UnknownGame,
    Verdict,
)

__all__ = [
    "Check",
    "Event",
    "Game",
    "GameInfo",
    "HiddenInformation",
    "IllegalMove",
    "MalformedMove",
    "NotYourTurn",
    "Outcome",
    "RecordError",
    "ReplayReport",
    "TableError",
    "UnknownComponent",
    "UnknownGame",
    "Verdict",
    "get",
    "names",
    "register",
]

#: Registry names and aliases -> the module that defines and registers the game.
#: Modules are imported on first use, so ``scorer.get("bigtop")`` does not load
#: the Carcassonne catalog.
_MODULES: dict[str, str] = {
    "bigtop": "scorer.bigtop",
    "big-top": "scorer.bigtop",
    "fantan": "scorer.bigtop",
    "fan-tan": "scorer.bigtop",
    "grandioso": "scorer.grandioso",
    "circus-grandioso": "scorer.grandioso",
    "flohcati": "scorer.flohcati",
    "circus-flohcati": "scorer.flohcati",
    "grand-carnival": "scorer.grand_carnival",
    "carnival": "scorer.grand_carnival",
    "carcassonne": "scorer.carcassonne",
}

_GAMES: dict[str, Game[Any, Any]] = {}


def register(cls: type[Game[Any, Any]]) -> type[Game[Any, Any]]:
    """Class decorator: register a game under its ``name`` and ``aliases``."""
    instance = cls()
    for key in (cls.name, *cls.aliases):
        _GAMES[key] = instance
    return cls


def get(name: str) -> Game[Any, Any]:
    """The game registered under ``name`` (or one of its aliases).

    :raises UnknownGame: when no game has that name.
    """
    key = name.strip().lower()
    if key not in _GAMES and key in _MODULES:
        try:
            importlib.import_module(_MODULES[key])
        except ModuleNotFoundError as exc:
            if exc.name != _MODULES[key]:
                raise
    if key not in _GAMES:
        known = ", ".join(names())
        raise UnknownGame(f"unknown game {name!r}; Ringside knows: {known}")
    return _GAMES[key]


def names() -> list[str]:
    """The registry names of the games this installation has (no aliases)."""
    out = []
    for key, module in _MODULES.items():
        if key in _GAMES:
            out.append(_GAMES[key].name)
            continue
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        if key in _GAMES:
            out.append(_GAMES[key].name)
    return sorted(set(out))
