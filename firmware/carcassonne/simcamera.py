"""A camera that films a simulated Carcassonne game night as it is played.

`SimulatedCamera` walks the steps of a `firmware.carcassonne.tablesim.SimulatedTable`
(`firmware.simtable.SteppedCamera`): each scene gives ``still_frames`` frames
of a fixed overhead camera over the board and the hint zone (the project's own
tile and figure art, `firmware.carcassonne.scene`, with sensor noise). The
whole game is played first, so that the frame holds the board from its first
tile to its last.

``ringside run --game carcassonne --camera simulated:seats=2,seed=7`` opens one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from firmware.carcassonne.scene import Scene, SceneRenderer, bounds_of
from firmware.carcassonne.tablesim import SimulatedTable
from firmware.simtable import NOISE_SIGMA, SteppedCamera
from firmware.table import simulated_options
from hardware.camera import Frame
from scorer.core import DEFAULT_NAMES

__all__ = ["SimulatedCamera", "open_simulated"]


class SimulatedCamera(SteppedCamera[Scene]):
    """The frames of a simulated game night, step by step (see the module docstring).

    :raises ValueError: for ``still_frames`` below 1.
    """

    def __init__(self, table: SimulatedTable, still_frames: int = 4, cell: int = 56, style: str = "classic") -> None:
        steps = list(table.steps())
        cells = [(x, y) for s in steps if s.scene is not None for x, y, _, _ in s.scene.tiles]
        self.renderer = SceneRenderer(bounds_of(cells), cell, style, table.seed)
        super().__init__(f"simulated:seats={len(table.players)},seed={table.seed}", steps, still_frames, [table.seed, 11])
        self.table = table
        self._bank: NDArray[Any] | None = None
        self._turn = 0

    def render(self, scene: Scene) -> Frame:
        """The plain overhead frame of ``scene``."""
        return self.renderer.render(scene)

    def add_noise(self, image: Frame) -> Frame:
        """``image`` with sensor noise taken in turn from a bank of four noise pictures (one per frame is slow)."""
        if self._bank is None or self._bank.shape[1:] != image.shape:
            self._bank = np.round(self._rng.normal(0.0, NOISE_SIGMA, (4, *image.shape))).astype(np.int16)
        self._turn = (self._turn + 1) % len(self._bank)
        out: Frame = np.clip(image.astype(np.int16) + self._bank[self._turn], 0, 255).astype(np.uint8)
        return out


def open_simulated(arg: str, players: Sequence[str] | None = None) -> SimulatedCamera:
    """``simulated:seats=N,seed=S,still_frames=F,tiles=T``: a simulated Carcassonne table (1 to 6 seats, T tiles).

    :raises UnknownBackend: for a bad option, in one line.
    """
    options = {"seats": 2, "seed": 0, "still_frames": 4, "tiles": 92}
    options.update(simulated_options(arg, {"seats": (1, 6), "seed": (0, None), "still_frames": (1, None),
                                           "tiles": (2, 92)}))
    names = list(players) if players is not None else list(DEFAULT_NAMES[: options["seats"]])
    return SimulatedCamera(SimulatedTable(names, seed=options["seed"], tiles=options["tiles"]), options["still_frames"])
