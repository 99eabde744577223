"""A camera that films a simulated Circus Grandioso game night as it is played.

`SimulatedCamera` walks the steps of a `firmware.grandioso.tablesim.SimulatedTable`:
each scene gives ``still_frames`` frames of a fixed overhead camera (a plain
top-down view with sensor noise, `vision.grandioso.scene.frame`), and a button
step calls the attached button sink instead of giving a frame. After the last
step ``read()`` raises `EndOfFrames`.

``ringside run --game grandioso --camera simulated:seats=3,seed=7`` opens one
(see `open_simulated` for the options).
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware.grandioso.tablesim import SimulatedTable
from firmware.simtable import SteppedCamera
from firmware.table import simulated_options
from hardware.camera import Frame
from scorer.core import DEFAULT_NAMES
from vision.grandioso.scene import Scene, frame

__all__ = ["SimulatedCamera", "open_simulated"]


class SimulatedCamera(SteppedCamera[Scene]):
    """The frames of a simulated game night, step by step (see the module docstring).

    :raises ValueError: for ``still_frames`` below 1.
    """

    def __init__(self, table: SimulatedTable, still_frames: int = 4) -> None:
        super().__init__(f"simulated:seats={len(table.players)},seed={table.seed}", table.steps(), still_frames,
                         [table.seed, 3])
        self.table = table

    def render(self, scene: Scene) -> Frame:
        """The plain overhead frame of ``scene``."""
        return frame(scene)


def open_simulated(arg: str, players: Sequence[str] | None = None) -> SimulatedCamera:
    """``simulated:seats=N,seed=S,still_frames=F``: a simulated Grandioso table (2 to 4 seats).

    :raises UnknownBackend: for a bad option, in one line.
    """
    options = {"seats": 3, "seed": 0, "still_frames": 4}
    options.update(simulated_options(arg, {"seats": (2, 4), "seed": (0, None), "still_frames": (1, None)}))
    names = list(players) if players is not None else list(DEFAULT_NAMES[: options["seats"]])
    return SimulatedCamera(SimulatedTable(names, seed=options["seed"]), options["still_frames"])
