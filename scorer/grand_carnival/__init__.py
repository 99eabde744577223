"""The Grand Carnival (seed 002): a fairground-building tile and worker game.

Importing the package registers the game as ``grand-carnival`` (alias
``carnival``): ``scorer.get("grand-carnival")``. Components the rule texts
leave open live in ``components.toml``; ``GrandCarnival(values)`` plays with
other values (docs/grand-carnival-components.md); records are described in
docs/records.md.
"""

from __future__ import annotations

from scorer.grand_carnival.game import GrandCarnival
from scorer.grand_carnival.model import (
    Build,
    CarnivalState,
    Foundation,
    Move,
    Pass,
    Reason,
    Walk,
)

__all__ = ["Build", "CarnivalState", "Foundation", "GrandCarnival", "Move", "Pass", "Reason", "Walk"]
