"""The referee's main loop, one for every game: camera frame -> view -> stable sighting -> referee -> journal -> panels.

One `RefereeLoop.step()` handles one frame::

    buttons (queued from any thread)
    frame = camera.read()              unreadable frame: skipped and counted
                                       camera gone: "camera lost", reopened with backoff
    moving = motion.moving(frame)      hands over the table
    view = perceiver.recognize(frame)  the game's recogniser; no mat in view: skipped and counted
    sighting = table.sighting(view)    the game's adapter; a chart out of sight: skipped
    stable = stabiliser.push()         the same sighting for N still frames
    referee.see(stable)                the rules engine judges; the journal keeps it
    panels redrawn when their picture changed

Everything it talks to is injected, so the same loop runs on the Pi, on a
laptop with the simulated table, and in tests.
"""

from __future__ import annotations

import dataclasses
import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.motion import MotionDetector
from firmware.referee import Referee
from firmware.screens import CentralView
from firmware.stabiliser import Stabiliser
from firmware.table import Perceiver
from hardware.buttons import ButtonEvent
from hardware.camera import FrameSource
from hardware.display import Panel
from hardware.errors import BadFrame, CameraError, CameraUnavailable, EndOfFrames
from vision import NoMatError, VisionError

if TYPE_CHECKING:
    from firmware.web import WebServer

__all__ = ["LoopStats", "RefereeLoop", "STAGES"]

#: the stages of one frame, in order, as `LoopStats.stage_ms` reports them
STAGES = ("read", "motion", "markers", "calibrate", "rectify", "detect", "crops", "classify", "view",
          "sighting", "referee", "screens")


@dataclass
class LoopStats:
    """What the loop has seen so far."""

    frames: int = 0
    #: frames that could not be decoded (noise, a truncated JPEG) and were skipped
    unreadable: int = 0
    #: frames without the play mat in view (a black frame, the camera knocked aside)
    no_mat: int = 0
    #: frames in which a seat's chart was out of sight
    no_sighting: int = 0
    #: frames with something moving over the table
    moving: int = 0
    #: stable sightings handed to the referee
    accepted: int = 0
    camera_lost: int = 0
    reconnects: int = 0
    #: milliseconds per stage of the frames that went through recognition
    stage_ms: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})

    def summary(self) -> str:
        """One line for the log."""
        return (f"{self.frames} frames: {self.accepted} views accepted, {self.moving} with motion, "
                f"{self.unreadable} unreadable, {self.no_mat} without the mat, {self.no_sighting} with a chart "
                f"out of sight, camera lost {self.camera_lost} times")


class RefereeLoop:
    """Drives a `Referee` from a camera and buttons, and keeps the panels up to date.

    :param open_camera: opens the camera (again, after it was lost).
    :param panels: ``"centre"`` and one panel per seat name; missing names are skipped.
    :param still_frames: how many still frames a view must hold before the referee sees it.
    :param sleep: how to wait between reconnection attempts (injected for tests).
    :param on_move: called with (part, move number in the part, move) for every move the journal accepted.
    :param snapshots: a folder where the annotated camera frame of every judged view is saved (JPEG),
        named after the referee's log line it led to: what the camera saw when the referee decided.
    :param on_notice: called with a line for the terminal when the camera is lost and when it is back.
    :param web: the scoreboard page's server (`firmware.web`): handed a snapshot whenever what the
        panels show changes, and the annotated camera frame of every judged view.

    A camera that cannot work at all (`hardware.errors.CameraUnavailable`) before it has
    delivered a frame is not retried: `run` raises it, and the caller reports it and stops.
    """

    def __init__(
        self,
        referee: Referee,
        open_camera: Callable[[], FrameSource],
        recognizer: Perceiver,
        panels: Mapping[str, Panel],
        *,
        still_frames: int = 3,
        backoff: tuple[float, float] = (0.5, 8.0),
        sleep: Callable[[float], None] = time.sleep,
        on_move: Callable[[int, int, str], None] | None = None,
        snapshots: Path | None = None,
        on_notice: Callable[[str], None] | None = None,
        web: WebServer | None = None,
    ) -> None:
        self.referee = referee
        self.recognizer = recognizer
        self.panels = dict(panels)
        self.stabiliser: Stabiliser[Any] = Stabiliser(still_frames)
        self.motion = MotionDetector()
        self.stats = LoopStats()
        self.buttons: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
        self._open_camera = open_camera
        self._camera: FrameSource | None = None
        self._backoff = backoff
        self._delay = backoff[0]
        self._sleep = sleep
        self._lost = ""
        self._on_move = on_move
        self._moves_seen = len(referee.live.moves())
        self._part_seen = referee.part_number
        self._snapshots = snapshots
        #: frames a page of long central-panel text stays up (about 3 s at 10 frames a second)
        self.scroll_frames = 30
        self._notice: Callable[[str], None] = on_notice if on_notice is not None else (lambda _text: None)
        self._ever_opened = False
        self._web = web
        self._web_seen: object = None
        self._web_camera_sent = False
        self._web_pending_camera: Callable[[], bytes | None] | None = None
        self._web_cache: dict[str, Any] = {}
        self._web_pngs: dict[str, bytes] = {}
        self._lost_at = 0.0

    # -- inputs ------------------------------------------------------------------------

    def on_button(self, event: ButtonEvent) -> None:
        """Queue a button gesture (safe to call from gpiozero's threads)."""
        self.buttons.put(event)

    def _drain_buttons(self) -> None:
        while True:
            try:
                event = self.buttons.get_nowait()
            except queue.Empty:
                return
            self.referee.press(event)
            self._after_referee()

    @property
    def camera(self) -> FrameSource | None:
        """The open camera, if any."""
        return self._camera

    def _read(self) -> Any | None:
        """The next frame; None when it was unreadable or the camera is being reconnected.

        :raises EndOfFrames: when a recorded or simulated source has no frame left.
        """
        if self._camera is None:
            try:
                self._camera = self._open_camera()
            except EndOfFrames:
                raise
            except CameraUnavailable as exc:
                if not self._ever_opened:
                    raise  # a camera that never worked in this run never will: the caller says why and stops
                self._camera_lost(str(exc))
                return None
            except CameraError as exc:
                self._camera_lost(str(exc))
                return None
            self._ever_opened = True
            if self._lost:
                self.stats.reconnects += 1
                self._notice(f"the camera is back after {self._lost_for()}")
                self._lost = ""
                self._delay = self._backoff[0]
                self.motion.reset()
                self._draw()
        try:
            return self._camera.read()
        except EndOfFrames:
            raise
        except BadFrame:
            self.stats.unreadable += 1
            return None
        except CameraError as exc:
            try:
                self._camera.close()
            finally:
                self._camera = None
            self._camera_lost(str(exc))
            return None

    def _camera_lost(self, why: str) -> None:
        if not self._lost:  # said once per loss on the terminal, not once per retry
            self._lost_at = time.monotonic()
            self._notice(f"camera lost: {why} (trying again, every {self._backoff[1]:g} s at most)")
        self.stats.camera_lost += 1
        self._lost = why
        self._draw()
        self._sleep(self._delay)
        self._delay = min(self._delay * 2, self._backoff[1])

    # -- one frame ------------------------------------------------------------------------

    def _lost_for(self) -> str:
        return f"{time.monotonic() - self._lost_at:.0f} s"

    def step(self) -> bool:
        """Handle one frame; False once the camera has no frame left (a file or the simulation ended)."""
        self._drain_buttons()
        t0 = time.perf_counter()
        try:
            frame = self._read()
        except EndOfFrames:
            self._drain_buttons()
            return False
        self._drain_buttons()
        if frame is None:
            return True
        self.stats.frames += 1
        t1 = time.perf_counter()
        moving = self.motion.moving(frame)
        t2 = time.perf_counter()
        if moving:
            self.stats.moving += 1
            self.stabiliser.push(None, moving=True)
            return True
        try:
            result = self.recognizer.recognize(frame)
        except NoMatError:
            self.stats.no_mat += 1
            return True
        except VisionError:
            self.stats.unreadable += 1
            return True
        t3 = time.perf_counter()
        sighting = self.referee.table.sighting(result.view, self.referee.live.players)
        t4 = time.perf_counter()
        if sighting is None:
            self.stats.no_sighting += 1
            return True
        stable = self.stabiliser.push(sighting)
        if stable is not None:
            self.stats.accepted += 1
            logged = len(self.referee.log)
            self.referee.see(stable)
            if len(self.referee.log) > logged or self._web_camera_due:
                self._snapshot(frame, result, self.referee.log[-1] if self.referee.log else "start")
        t5 = time.perf_counter()
        self._after_referee()
        t6 = time.perf_counter()
        times = result.times
        ms = self.stats.stage_ms
        for name, value in (("read", t1 - t0), ("motion", t2 - t1), ("sighting", t4 - t3), ("referee", t5 - t4),
                            ("screens", t6 - t5)):
            ms[name].append(1000 * value)
        for name in ("markers", "calibrate", "rectify", "detect", "crops", "classify", "view"):
            stage: float | None = getattr(times, name, None)
            if stage is not None:
                ms[name].append(stage)
        return True

    @property
    def _web_camera_due(self) -> bool:
        return self._web is not None and not self._web_camera_sent

    def _snapshot(self, frame: Any, result: Any, line: str) -> None:
        """Save (and show on the page) the annotated frame behind a judgement: a move, an illegal move, a question."""
        if self._snapshots is None and self._web is None:
            return
        annotate = getattr(self.recognizer, "annotate", None)
        import cv2  # the loop itself needs OpenCV only to save these

        def picture() -> Any:
            return annotate(frame, result) if annotate is not None else frame

        if self._snapshots is not None:
            words = "".join(c if c.isalnum() else "-" for c in line.split(":")[0])[:48].strip("-")
            name = f"{len(self.referee.log):04d}-p{self.referee.part_number}-{words}.jpg"
            cv2.imwrite(str(self._snapshots / name), picture(), [cv2.IMWRITE_JPEG_QUALITY, 85])
        if self._web is not None:
            def jpeg() -> bytes | None:  # drawn and encoded by the page's feeding thread, not the frame loop
                ok, data = cv2.imencode(".jpg", picture(), [cv2.IMWRITE_JPEG_QUALITY, 80])
                return data.tobytes() if ok else None

            self._web_camera_sent = True
            self._web_pending_camera = jpeg
            self._web_seen = None  # publish now

    def run(self, max_frames: int | None = None) -> LoopStats:
        """Step until the camera ends (or ``max_frames`` frames were read)."""
        self._draw()
        while max_frames is None or self.stats.frames < max_frames:
            if not self.step():
                break
        return self.stats

    # -- outputs --------------------------------------------------------------------------

    def _after_referee(self) -> None:
        part = self.referee.part_number
        if part != self._part_seen:
            # a new part (a new Big Top hand) starts from a cleared table: what the recogniser
            # remembers of the last one (cards that lay on each place) no longer holds
            self._part_seen = part
            self.recognizer.reset()
        moves = self.referee.live.moves()
        if self._on_move is not None and len(moves) > self._moves_seen:
            for number, text in enumerate(moves[self._moves_seen:], self._moves_seen + 1):
                self._on_move(self.referee.part_number, number, text)
        self._moves_seen = len(moves)
        self._draw()

    def _draw(self) -> None:
        """Redraw every panel whose picture changed (and hand the page a snapshot when anything did)."""
        referee = self.referee
        table = referee.table
        seats = referee.seat_views()
        for name, seat in zip(referee.live.players, seats):
            panel = self.panels.get(name)
            if panel is not None:
                panel.draw(table.render_seat, seat)
        view = referee.central()
        if self._lost:
            view = CentralView(view.title, "CAMERA LOST", "Reconnecting...", self._lost)
        view = dataclasses.replace(view, scroll=self.stats.frames // self.scroll_frames)
        centre = self.panels.get("centre")
        if centre is not None:
            centre.draw(table.render_central, view)
        if self._web is not None:
            self._publish(seats, view)

    def _publish(self, seats: list[Any], central: CentralView) -> None:
        """Hand the page a snapshot when what the panels show (or the camera view) changed."""
        assert self._web is not None
        signature = (tuple(seats), central, self.referee.mode, len(self.referee.log), self._lost)
        if signature == self._web_seen:
            return
        self._web_seen = signature
        from firmware.screens import render_image
        from firmware.web import snapshot

        state, record = snapshot(self.referee, self._lost, self._web_cache)
        table = self.referee.table
        pngs: dict[str, bytes] = {}
        panels: dict[str, bytes] = {}
        named = [*((name, seat, table.render_seat) for name, seat in zip(self.referee.live.players, seats)),
                 ("centre", central, table.render_central)]
        for name, view, render in named:
            key = repr(view)  # views are frozen values; their repr names everything they show
            cached = self._web_pngs.get(key)
            pngs[key] = panels[name] = cached if cached is not None else _png(render_image(render, view))
        self._web_pngs = pngs  # only the pictures shown now are kept
        camera, self._web_pending_camera = self._web_pending_camera, None
        self._web.publish(state, record, panels, camera)

    def close(self) -> None:
        """Close the camera (the panels and the journal belong to the caller)."""
        if self._camera is not None:
            self._camera.close()
            self._camera = None


def _png(image: Any) -> bytes:
    import io

    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PNG")
    return buffer.getvalue()
