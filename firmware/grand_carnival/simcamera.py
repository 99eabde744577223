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

from collections.abc import Sequence

from firmware.grand_carnival.tablesim import Scene, SimulatedTable
from firmware.simtable import SteppedCamera
from firmware.table import simulated_options
from hardware.camera import Frame
from scorer.core import DEFAULT_NAMES
from scorer.grand_carnival import GrandCarnival
from vision.grand_carnival.scene import frame

__all__ = ["SimulatedCamera", "open_simulated"]


class SimulatedCamera(SteppedCamera[Scene]):
    """The frames of a simulated game night, step by step (see the module docstring).

    :raises ValueError: for ``still_frames`` below 1.
    """

    def __init__(self, table: SimulatedTable, still_frames: int = 4, width: int = 1280) -> None:
        super().__init__(f"simulated:seats={len(table.players)},seed={table.seed}", table.steps(), still_frames,
                         [table.seed, 5])
        self.table = table
        self.width = width

    def render(self, scene: Scene) -> Frame:
        """The plain overhead frame of ``scene``."""
        return frame(scene.markets, self.width, scene.wagon)


def open_simulated(arg: str, players: Sequence[str] | None = None, game: GrandCarnival | None = None) -> SimulatedCamera:
    """``simulated:seats=N,seed=S,still_frames=F``: a simulated Grand Carnival table (1 to 4 seats), played
    and drawn with ``game``'s component values (default: the shipped ones).

    :raises UnknownBackend: for a bad option, in one line.
    """
    options = {"seats": 2, "seed": 0, "still_frames": 4}
    options.update(simulated_options(arg, {"seats": (1, 4), "seed": (0, None), "still_frames": (1, None)}))
    names = list(players) if players is not None else list(DEFAULT_NAMES[: options["seats"]])
    table = SimulatedTable(names, seed=options["seed"], game=game if game is not None else GrandCarnival())
    return SimulatedCamera(table, options["still_frames"])
