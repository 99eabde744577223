"""Stand-ins that ship with Ringside, so that everything runs on a laptop and in CI.

* `FrameList` — a camera that plays a list of frames;
* `mock_pin_factory` — gpiozero's ``MockFactory``: buttons pressed with ``pin.drive_low()``;
* `dummy_display` — luma's ``dummy`` device, which keeps the last frame in ``.image``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from hardware.camera import BaseFrameSource, Frame, as_bgr
from hardware.errors import EndOfFrames

__all__ = ["FrameList", "dummy_display", "mock_pin_factory"]


class FrameList(BaseFrameSource):
    """A camera that returns the given frames in order, then raises `EndOfFrames` (or loops)."""

    def __init__(self, frames: Iterable[Frame], *, loop: bool = False, name: str = "frames") -> None:
        super().__init__(name)
        self.frames = [as_bgr(np.asarray(f), name) for f in frames]
        self.loop = loop
        self.position = 0

    def _read(self) -> Frame:
        if self.position >= len(self.frames):
            if not self.loop or not self.frames:
                raise EndOfFrames(f"the {len(self.frames)} frames of {self.name} have all been read")
            self.position = 0
        frame = self.frames[self.position]
        self.position += 1
        return frame.copy()


def mock_pin_factory() -> Any:
    """A fresh gpiozero ``MockFactory`` (pins start high with the pull-ups buttons use)."""
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    return MockFactory()


def dummy_display(width: int = 128, height: int = 64, mode: str = "1") -> Any:
    """A luma ``dummy`` device: ``display(image)`` keeps the image in ``.image``."""
    from luma.core.device import dummy  # type: ignore[import-untyped]

    return dummy(width=width, height=height, mode=mode)
