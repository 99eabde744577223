"""A camera that films a simulated Grand Carnival game night as it is played.

`SimulatedCamera` walks the steps of a `firmware.grand_carnival.tablesim.SimulatedTable`:
each scene gives ``still_frames`` frames of a fixed overhead camera over the
markets and the wagon row (a plain top-down view with sensor noise,
`vision.grand_carnival.scene.frame`), and a button step calls the attached
button sink instead of giving a frame. After the last step ``read()`` raises
`EndOfFrames`.

``ringside run --game grand-carnival --camera simulated:seats=2,seed=7`` opens one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from firmware.grand_carnival.tablesim import Scene, SimulatedTable, Step
from firmware.table import simulated_options
from hardware.buttons import Sink
from hardware.camera import BaseFrameSource, Frame
from hardware.errors import EndOfFrames
from scorer.core import DEFAULT_NAMES
from vision.grand_carnival.scene import frame

__all__ = ["SimulatedCamera", "open_simulated"]


class SimulatedCamera(BaseFrameSource):
    """The frames of a simulated game night, step by step (see the module docstring).

    :raises ValueError: for ``still_frames`` below 1.
    """

    def __init__(self, table: SimulatedTable, still_frames: int = 4, width: int = 1280) -> None:
        if still_frames < 1:
            raise ValueError(f"still_frames must be 1 or more, not {still_frames}")
        super().__init__(f"simulated:seats={len(table.players)},seed={table.seed}")
        self.table = table
        self.still_frames = still_frames
        self.width = width
        self._steps: Iterator[Step] = table.steps()
        self._sink: Sink | None = None
        self._image: Frame | None = None
        self._scene: Scene | None = None
        self._left = 0
        self._rng = np.random.default_rng([table.seed, 5])

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
                self._image = frame(step.scene.markets, self.width, step.scene.wagon)
            self._left = self.still_frames
        self._left -= 1
        assert self._image is not None
        noise = self._rng.normal(0.0, 1.5, self._image.shape)
        return np.clip(self._image + noise, 0, 255).astype(np.uint8)

    def _release(self) -> None:
        pass


def open_simulated(arg: str, players: Sequence[str] | None = None) -> SimulatedCamera:
    """``simulated:seats=N,seed=S,still_frames=F``: a simulated Grand Carnival table (1 to 4 seats).

    :raises UnknownBackend: for a bad option, in one line.
    """
    options = {"seats": 2, "seed": 0, "still_frames": 4}
    options.update(simulated_options(arg, {"seats": (1, 4), "seed": (0, None), "still_frames": (1, None)}))
    names = list(players) if players is not None else list(DEFAULT_NAMES[: options["seats"]])
    return SimulatedCamera(SimulatedTable(names, seed=options["seed"]), options["still_frames"])
