"""Shared validators for the JSON records and positions of every game.

Each validator takes a value read from JSON and the name of the field it came
from (``"players"``, ``"state.boards[0].tent"``), returns the value when it is
valid and otherwise raises `RecordError` with a one-line message that names
the field, and ``field`` set to it:

>>> whole_number(3, "turn", lo=0, hi=5)
3
>>> whole_number(True, "turn")
Traceback (most recent call last):
...
scorer.core.RecordError: turn must be a whole number, not true

Game-specific rules (a Flohcati player may not be called "nobody", say) stay
in the game, as a small check after the shared one.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, TypeGuard, TypeVar

from scorer.core import GameInfo, RecordError

__all__ = [
    "boolean",
    "describe",
    "is_whole_number",
    "json_list",
    "one_of",
    "player_names",
    "require",
    "whole_number",
]

E = TypeVar("E", bound=enum.Enum)

#: How a message names the JSON kind a field must have.
_KIND_NAMES: dict[type, str] = {
    list: "a list",
    tuple: "a list",
    dict: "an object",
    Mapping: "an object",
    int: "a whole number",
    float: "a number",
    str: "text",
    bool: "true or false",
}


def describe(value: Any) -> str:
    """A short, one-line account of a JSON value for an error message.

    >>> describe(None), describe(False), describe([1]), describe({"a": 1}), describe("Ann")
    ('null', 'false', 'a list', 'an object', "'Ann'")
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37]) + "..."
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _join(where: str, key: str) -> str:
    prefix = where.rstrip(".")
    return f"{prefix}.{key}" if prefix else key


def _is_kind(value: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in kinds:
        return False  # JSON true/false is not a number
    return isinstance(value, kinds)


def require(
    data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str = ""
) -> Any:
    """The value of a required field ``key`` of the JSON object ``data``.

    ``kind`` is the Python type (or types) the JSON value must have; ``int``
    does not accept ``true``/``false``. ``where`` is the path of ``data`` in the
    record ("hands[0]" or "hands[0]."), or empty at the top level.

    >>> require({"moves": []}, "moves", list)
    []
    >>> require({}, "tent", int, "state.boards[0]")
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: the record has no 'state.boards[0].tent' field
    >>> require({"moves": "Ann pass"}, "moves", list, "hands[1].")
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: hands[1].moves must be a list, not 'Ann pass'
    """
    field = _join(where, key)
    if key not in data:
        raise RecordError(f"the record has no {field!r} field", field)
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not _is_kind(value, kinds):
        names: list[str] = []
        for k in kinds:
            name = _KIND_NAMES.get(k, k.__name__)
            if name not in names:
                names.append(name)
        raise RecordError(f"{field} must be {' or '.join(names)}, not {describe(value)}", field)
    return value


def json_list(value: Any, field: str) -> list[Any]:
    """``value`` when it is a JSON list.

    >>> json_list("red-1", "stack")
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: stack must be a list, not 'red-1'
    """
    if not isinstance(value, list):
        raise RecordError(f"{field} must be a list, not {describe(value)}", field)
    return value


def is_whole_number(value: object) -> TypeGuard[int]:
    """True for a JSON whole number (``true`` and ``false`` are not numbers).

    >>> is_whole_number(0), is_whole_number(True), is_whole_number(2.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


def whole_number(value: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` when it is a whole number from ``lo`` to ``hi`` (either may be open).

    >>> whole_number(7, "seed", lo=0)
    7
    >>> whole_number(6, "moves[2].number", lo=1, hi=5)
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: moves[2].number must be a whole number from 1 to 5, not 6
    """
    if (
        not is_whole_number(value)
        or (lo is not None and value < lo)
        or (hi is not None and value > hi)
    ):
        if lo is not None and hi is not None:
            wanted = f"a whole number from {lo} to {hi}"
        elif lo is not None:
            wanted = f"a whole number, {lo} or more"
        elif hi is not None:
            wanted = f"a whole number, {hi} or less"
        else:
            wanted = "a whole number"
        raise RecordError(f"{field} must be {wanted}, not {describe(value)}", field)
    return int(value)


def boolean(value: Any, field: str) -> bool:
    """``value`` when it is ``true`` or ``false``.

    >>> boolean(1, "finished")
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: finished must be true or false, not 1
    """
    if not isinstance(value, bool):
        raise RecordError(f"{field} must be true or false, not {describe(value)}", field)
    return value


def one_of(enum_type: type[E], value: Any, field: str) -> E:
    """The member of ``enum_type`` whose value is ``value``.

    >>> class Way(enum.Enum):
    ...     CW = "cw"
    ...     CCW = "ccw"
    >>> one_of(Way, "cw", "moves[0].way")
    <Way.CW: 'cw'>
    >>> one_of(Way, "up", "moves[0].way")
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: moves[0].way must be one of: cw, ccw; not 'up'
    """
    try:
        return enum_type(value)
    except (ValueError, TypeError):
        allowed = ", ".join(str(m.value) for m in enum_type)
        raise RecordError(f"{field} must be one of: {allowed}; not {describe(value)}", field) from None


def player_names(value: Any, field: str, info: GameInfo) -> tuple[str, ...]:
    """The players of a record: distinct names, as many as the game allows.

    A name is a non-empty word without spaces (move notations start with the
    player's name). A bad name is reported as ``field[i]``; every message
    starts with the field it names.

    >>> info = GameInfo("Big Top", 3, 6, True, "$")
    >>> player_names(["Ann", "Ben", "Cat"], "players", info)
    ('Ann', 'Ben', 'Cat')
    >>> player_names(["Ann", "Ben"], "players", info)
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: players: Big Top needs 3 to 6 players, the record has 2
    >>> player_names(["Ann", "Ben Lee", "Cat"], "players", info)
    Traceback (most recent call last):
    ...
    scorer.core.RecordError: players[1] must be a player name without spaces, not 'Ben Lee'
    """
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"{field} must be a list of player names, not {describe(value)}", field)
    for i, name in enumerate(value):
        if not isinstance(name, str) or not name or any(ch.isspace() for ch in name):
            raise RecordError(
                f"{field}[{i}] must be a player name without spaces, not {describe(name)}",
                f"{field}[{i}]",
            )
    seen: set[str] = set()
    for name in value:
        if name in seen:
            raise RecordError(f"{field} names the player {name!r} twice", field)
        seen.add(name)
    lo, hi = info.min_players, info.max_players
    if not lo <= len(value) <= hi:
        wanted = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise RecordError(
            f"{field}: {info.title} needs {wanted} players, the record has {len(value)}", field
        )
    return tuple(value)
