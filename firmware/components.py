"""A user's own component values for The Grand Carnival, read at the edge.

The rules engine ships its component facts in ``scorer/grand_carnival/components.toml``;
several are Ringside's decisions (docs/grand-carnival-components.md). A user with
the real box corrects them in ``$XDG_CONFIG_HOME/ringside/grand-carnival.toml``
(``~/.config/ringside/grand-carnival.toml``) or a file named with ``--components``:
the same keys, only those that differ. This module reads that file; the engine
receives the values as data (``GrandCarnival(values)``) and checks them.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scorer.core import TableError

__all__ = ["ComponentsError", "default_components_path", "load_components", "read_components", "resume_notice",
           "user_values", "values_line"]

#: The file name of the user's Grand Carnival components, beside ``ringside.toml``.
FILE_NAME = "grand-carnival.toml"


class ComponentsError(TableError, ValueError):
    """A user's components file that cannot be read or is not valid (one line)."""


def default_components_path() -> Path:
    """Where Ringside looks for the user's Grand Carnival components.

    ``$XDG_CONFIG_HOME/ringside/grand-carnival.toml``, or
    ``~/.config/ringside/grand-carnival.toml`` when ``XDG_CONFIG_HOME`` is unset
    or not an absolute path (the XDG rule, as for ``ringside.toml``).
    """
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path("~/.config").expanduser()
    return base / "ringside" / FILE_NAME


def read_components(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of a components file, unchecked.

    :raises ComponentsError: one line naming the file when it cannot be read or is not TOML.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ComponentsError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ComponentsError(f"{path}: not a UTF-8 text file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ComponentsError(f"{path}: not valid TOML: {exc}") from None


def load_components(path: str | Path | None = None) -> tuple[Mapping[str, Any] | None, str]:
    """The user's component values and the file they came from.

    With ``path`` that file is read (it must exist); without, `default_components_path`
    is read when it exists. ``(None, "")`` means: no user file, play with the shipped values.
    The values are checked by the engine (`scorer.grand_carnival.GrandCarnival`),
    whose errors name the file returned here.

    :raises ComponentsError: one line naming the file when it cannot be read or is not TOML.
    """
    if path is None:
        default = default_components_path()
        if not default.is_file():
            return None, ""
        path = default
    return read_components(path), str(path)


def user_values(path: str | Path | None = None) -> tuple[dict[str, Any] | None, str]:
    """The whole set of component values to play, print and read with, and the file they came from.

    The user's file (`load_components`: ``path``, or the default file when it exists)
    merged over the shipped values and checked; ``(None, "")`` when there is no user file.
    Every command that takes ``--components`` goes through here, so each obeys the same
    file and refuses a bad one with the same one line.

    :raises TableError: one line naming the file and the key when the file is not valid.
    """
    from scorer.grand_carnival.components import merge_components, shipped_data

    values, source = load_components(path)
    if values is None:
        return None, ""
    return merge_components(shipped_data(), values, source), source


def values_line(game: Any, source: str) -> str:
    """The line that tells a user which of their component values a new game is played with.

    ``game`` is the `scorer.grand_carnival.GrandCarnival` built from ``source``'s values.
    """
    from scorer.grand_carnival.components import describe_changes

    changes = describe_changes(game.changed_components())
    said = "; ".join(changes) if changes else "the same as the shipped components.toml"
    return f"The Grand Carnival is played with the component values of {source}: {said}"


def resume_notice(resumed: Any, wanted: Any, source: str) -> str:
    """The line that tells a user their component values wait for the next game ("" when there is nothing to say).

    A game in progress goes on with the values it was started with (``resumed``'s): its pieces were judged
    with them and its record replays with one set. ``wanted`` is the game a new game would be played with,
    from ``source`` (a user's file; "" for the shipped values). Games without component values say nothing.
    """
    from scorer.grand_carnival import GrandCarnival
    from scorer.grand_carnival.components import component_changes, describe_changes

    if not isinstance(resumed, GrandCarnival) or not isinstance(wanted, GrandCarnival):
        return ""
    changed = component_changes(wanted.components, resumed.components)
    if not changed:
        return ""
    keys = ", ".join(line.split(" = ", 1)[0] for line in describe_changes(changed))
    now = source or "the shipped components.toml"
    return (f"the game in progress goes on with the component values it was started with; {now} differs at "
            f"{keys} and applies from the next game")
