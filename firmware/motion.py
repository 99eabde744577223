"""Is anything moving over the table? A cheap frame-difference test.

Each frame is shrunk to a small grey thumbnail and smoothed, so that sensor
noise and JPEG artefacts cancel out; a frame counts as moving when enough of
the thumbnail changed clearly since the previous frame. Hands reaching over
the table change a large area; a flickering pixel does not. Both thresholds
are fractions of the frame, never pixels of one camera.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["MotionDetector"]


@dataclass
class MotionDetector:
    """Feed it every frame; ``moving(frame)`` says whether the scene changed since the last one.

    ``level`` is the grey-level change (0..255) a thumbnail pixel must show;
    ``area`` the fraction of the thumbnail that must change.
    """

    width: int = 160
    level: float = 18.0
    area: float = 0.004
    _previous: npt.NDArray[Any] | None = field(default=None, init=False, repr=False)
    last_change: float = field(default=0.0, init=False)

    def moving(self, frame: npt.NDArray[np.uint8]) -> bool:
        """True when this frame differs clearly from the previous one (the first frame is not moving)."""
        h, w = frame.shape[:2]
        size = (self.width, max(1, round(self.width * h / w)))
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = cv2.GaussianBlur(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), (5, 5), 0)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            self.last_change = 0.0
            return False
        changed = cv2.absdiff(small, previous) > self.level
        self.last_change = float(np.count_nonzero(changed)) / changed.size
        return self.last_change > self.area

    def reset(self) -> None:
        """Forget the previous frame (after a camera reconnect)."""
        self._previous = None
