"""Accept a camera view only once it has held still.

Hands move over the table between moves; half-laid cards, shadows and
motion blur give views that change from frame to frame. The referee only
acts on a view that stayed the same for ``frames`` consecutive frames with
nothing moving over the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["Stabiliser"]

V = TypeVar("V")


@dataclass
class Stabiliser(Generic[V]):
    """Feed it one view per frame; it hands back a view once it is stable.

    ``push(view, moving)`` returns the view the first time it has been seen
    ``frames`` times in a row without motion, and None otherwise (also while
    the same stable view goes on). A None view (an unreadable frame) neither
    breaks nor extends a run.
    """

    frames: int = 3
    _candidate: V | None = field(default=None, init=False)
    _count: int = field(default=0, init=False)
    _accepted: V | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.frames < 1:
            raise ValueError("a view must hold for at least 1 frame")

    def push(self, view: V | None, moving: bool = False) -> V | None:
        """Add one frame's view; returns a newly stable view or None."""
        if view is None:
            return None
        if moving:
            self._candidate, self._count = None, 0
            return None
        if view == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = view, 1
        if self._count == self.frames and view != self._accepted:
            self._accepted = view
            return view
        return None

    def reset(self, accepted: V | None = None) -> None:
        """Forget the current run; ``accepted`` is the view the referee now holds."""
        self._candidate, self._count, self._accepted = None, 0, accepted

    @property
    def accepted(self) -> V | None:
        """The last view handed back (or given to `reset`)."""
        return self._accepted
