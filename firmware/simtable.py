"""What the simulated tables of the card games share: the steps a simulated
night is made of, and a camera that films them.

A game's simulated table yields `TableStep`\\ s (a scene to look at, or a button
gesture, with the move it shows as ground truth). `SteppedCamera` walks them:
each scene gives ``still_frames`` frames of a fixed overhead view (the game's
``render`` of the scene, with sensor noise), a button step calls the attached
button sink instead of giving a frame, and after the last step ``read()``
raises `EndOfFrames`. A game subclasses it with its ``render``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from hardware.buttons import ButtonEvent, Sink
from hardware.camera import BaseFrameSource, Frame
from hardware.errors import EndOfFrames

__all__ = ["SteppedCamera", "TableStep"]

S = TypeVar("S")

#: the standard deviation of the sensor noise added to every frame, in grey levels
NOISE_SIGMA = 1.5


@dataclass(frozen=True)  # not slots: a slotted generic dataclass cannot be made through ``TableStep[Scene](...)``
class TableStep(Generic[S]):
    """One thing that happens at the table: a scene to look at, or a button gesture; ``truth`` the move."""

    scene: S | None = None
    button: ButtonEvent | None = None
    truth: str | None = None
    #: the scene shows an illegal attempt the referee must catch
    expect_illegal: bool = False
    #: frames the scene lasts (None: the camera's ``still_frames``); fewer than the referee waits for is a glimpse
    frames: int | None = None


class SteppedCamera(BaseFrameSource, Generic[S]):
    """The frames of a simulated night's steps (see the module docstring); ``noise_seed`` seeds the noise.

    :raises ValueError: for ``still_frames`` below 1.
    """

    def __init__(self, name: str, steps: Iterable[TableStep[S]], still_frames: int, noise_seed: list[int]) -> None:
        if still_frames < 1:
            raise ValueError(f"still_frames must be 1 or more, not {still_frames}")
        super().__init__(name)
        self.still_frames = still_frames
        self._steps = iter(steps)
        self._sink: Sink | None = None
        self._image: Frame | None = None
        self._scene: S | None = None
        self._left = 0
        self._rng = np.random.default_rng(noise_seed)

    @abstractmethod
    def render(self, scene: S) -> Frame:
        """The noiseless overhead frame of ``scene``."""

    def attach_buttons(self, sink: Sink) -> None:
        """Send the table's button gestures to ``sink`` (called inside ``read()``, before the next frame)."""
        self._sink = sink

    def _read(self) -> Frame:
        while self._left == 0:
            step = next(self._steps, None)
            if step is None:
                raise EndOfFrames("the simulated game night is over")
            if step.button is not None:
                if self._sink is not None:
                    self._sink(step.button)
                continue
            assert step.scene is not None
            if step.scene != self._scene:
                self._scene = step.scene
                self._image = self.render(step.scene)
            self._left = step.frames or self.still_frames
        self._left -= 1
        assert self._image is not None
        return self.add_noise(self._image)

    def add_noise(self, image: Frame) -> Frame:
        """``image`` with sensor noise (`NOISE_SIGMA`); a game with large frames may draw it faster."""
        noise = self._rng.normal(0.0, NOISE_SIGMA, image.shape)
        return np.clip(image + noise, 0, 255).astype(np.uint8)

    def _release(self) -> None:
        pass
