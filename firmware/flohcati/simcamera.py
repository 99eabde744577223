"""A camera that films a simulated Circus Flohcati game night as it is played.

`SimulatedCamera` walks the steps of a `firmware.flohcati.tablesim.SimulatedTable`
and delivers what a fixed overhead camera would see: a still layout gives
``still_frames`` frames that differ only by sensor noise, a layout with hands
over the table ``moving_frames`` frames with an arm reaching in, and a
button step calls the attached button sink instead of giving a frame. After
the last step ``read()`` raises `EndOfFrames`.

The camera's pose (a mild tilt and turn) and the light are drawn once from
the seed. The top-down picture (`vision.flohcati.scene.render`) is drawn and
warped again only when the layout changes.

``ringside run --game flohcati --camera simulated:seats=3,seed=7`` opens one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from firmware.flohcati.tablesim import SimulatedTable, Step
from firmware.table import simulated_options
from hardware.buttons import ButtonEvent
from hardware.camera import BaseFrameSource, Frame
from hardware.errors import CameraError, EndOfFrames
from vision.flohcati.scene import REGION, TableLayout, render

__all__ = ["SimulatedCamera", "open_simulated"]

Sink = Callable[[ButtonEvent], None]
#: Resolution of the top-down picture before it is warped into the frame (pixels per mm).
_PX_PER_MM = 2.4


class SimulatedCamera(BaseFrameSource):
    """The frames of a simulated Circus Flohcati game night (see the module docstring).

    :raises ValueError: for frame counts below 1 (still) or 0 (moving).
    """

    def __init__(self, table: SimulatedTable, *, still_frames: int = 4, moving_frames: int = 2,
                 size: tuple[int, int] = (1280, 960), name: str | None = None) -> None:
        if still_frames < 1 or moving_frames < 0:
            raise ValueError(f"still_frames must be 1 or more and moving_frames 0 or more, "
                             f"not {still_frames} and {moving_frames}")
        super().__init__(name or f"simulated:seats={len(table.players)},seed={table.seed}")
        self.table = table
        self.still_frames = still_frames
        self.moving_frames = moving_frames
        self.size = size
        self._rng = np.random.default_rng([table.seed, 7])
        self._homography = self._pose()
        self._steps: Iterator[Step] = table.steps()
        self._layout: TableLayout | None = None
        self._frame: NDArray[np.uint8] | None = None
        self._moving = False
        self._left = 0
        self._sink: Sink | None = None
        self._held: Step | None = None
        self._noise = [self._rng.normal(0.0, 2.0, (size[1], size[0], 3)).astype(np.int16) for _ in range(3)]
        self._frames = 0

    def attach_buttons(self, sink: Sink) -> None:
        """Send the table's button gestures to ``sink`` (called from inside ``read()``)."""
        self._sink = sink

    def _pose(self) -> NDArray[Any]:
        """Table mm -> frame pixels: the region fills the frame, its corners moved a little (a mild tilt)."""
        w, h = self.size
        x0, y0, x1, y1 = REGION
        scale = min(w * 0.94 / (x1 - x0), h * 0.94 / (y1 - y0))
        cx, cy = w / 2, h / 2
        src, dst = [], []
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            src.append((x, y))
            jitter = self._rng.uniform(-0.015, 0.015, 2) * w
            dst.append((cx + (x - (x0 + x1) / 2) * scale + jitter[0], cy + (y - (y0 + y1) / 2) * scale + jitter[1]))
        return np.asarray(cv2.getPerspectiveTransform(np.asarray(src, np.float32), np.asarray(dst, np.float32)), np.float64)

    def render(self, layout: TableLayout) -> NDArray[np.uint8]:
        """The clean frame of ``layout`` (no noise, no arm)."""
        canvas, origin = render(layout, _PX_PER_MM, seed=self.table.seed)
        to_mm = np.array([[1 / _PX_PER_MM, 0, origin[0]], [0, 1 / _PX_PER_MM, origin[1]], [0, 0, 1]], np.float64)
        frame = cv2.warpPerspective(canvas, self._homography @ to_mm, self.size, flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=(60, 80, 50))
        return np.asarray(cv2.GaussianBlur(frame, (0, 0), 0.6), np.uint8)

    def _arm(self, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
        out = frame.copy()
        w, h = self.size
        side = int(self._rng.integers(4))
        start = [(int(self._rng.uniform(0.2, 0.8) * w), h + 20), (int(self._rng.uniform(0.2, 0.8) * w), -20),
                 (-20, int(self._rng.uniform(0.2, 0.8) * h)), (w + 20, int(self._rng.uniform(0.2, 0.8) * h))][side]
        end = (int(self._rng.uniform(0.3, 0.7) * w), int(self._rng.uniform(0.3, 0.7) * h))
        skin = tuple(int(v) for v in self._rng.uniform(60, 200, 3))
        cv2.line(out, start, end, skin, int(0.07 * w), cv2.LINE_AA)
        cv2.circle(out, end, int(0.05 * w), skin, -1, cv2.LINE_AA)
        return out

    def _read(self) -> Frame:
        while self._left == 0:
            step = self._next_step()
            if step.button is not None:
                if self._sink is None:
                    self._held = step
                    raise CameraError("the simulated table pressed a button but no sink is attached: "
                                      "call attach_buttons(sink) first")
                self._sink(step.button)
                continue
            assert step.layout is not None
            if step.layout != self._layout or self._frame is None:
                self._layout = step.layout
                self._frame = self.render(step.layout)
            self._moving = step.moving
            self._left = self.moving_frames if step.moving else self.still_frames
        self._left -= 1
        self._frames += 1
        assert self._frame is not None
        base = self._arm(self._frame) if self._moving else self._frame
        noisy = base.astype(np.int16) + self._noise[self._frames % len(self._noise)]
        return np.asarray(np.clip(noisy, 0, 255), np.uint8)

    def _next_step(self) -> Step:
        if self._held is not None:
            held, self._held = self._held, None
            return held
        step = next(self._steps, None)
        if step is None:
            raise EndOfFrames(f"the simulated game night is over after {self._frames} frames")
        return step


_OPTIONS = ("seats", "seed", "still_frames", "moving_frames")


def open_simulated(arg: str) -> SimulatedCamera:
    """Open a simulated camera from ``key=value`` pairs separated by commas.

    Options (whole numbers): ``seats`` (2 to 4, default 3), ``seed`` (default 0),
    ``still_frames`` (default 4), ``moving_frames`` (default 2).

    :raises UnknownBackend: for an unknown option or a bad value, in one line.
    """
    values = simulated_options(arg, {"seats": (2, 4), "seed": (0, None), "still_frames": (1, None),
                                     "moving_frames": (0, None)})
    seats = values.get("seats", 3)
    table = SimulatedTable([f"Player{i + 1}" for i in range(seats)], seed=values.get("seed", 0))
    spec = ",".join(f"{k}={values[k]}" for k in _OPTIONS if k in values)
    return SimulatedCamera(table, still_frames=values.get("still_frames", 4),
                           moving_frames=values.get("moving_frames", 2),
                           name=f"simulated:{spec}" if spec else "simulated")
