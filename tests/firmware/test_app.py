"""The referee loop keeps going through bad frames and a lost camera, and tells the players."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from firmware.app import RefereeLoop
from firmware.journal import Journal
from firmware.referee import Referee
from firmware.screens import CentralView, render_central, render_image
from hardware.camera import FrameSource, ImageFolderSource
from hardware.display import Panel
from hardware.errors import CameraError, CameraUnavailable
from hardware.fakes import FrameList, dummy_display
from vision.bigtop.pipeline import Recognizer

PLAYERS = ["Ann", "Ben", "Cat"]


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer()


@pytest.fixture()
def referee(tmp_path: Path) -> Iterator[Referee]:
    with Journal.open(tmp_path / "journal.db") as journal:
        yield Referee.new_game(journal, PLAYERS, parts=1)


def panels() -> dict[str, Panel]:
    return {name: Panel(dummy_display(), name) for name in [*PLAYERS, "centre"]}


def test_garbage_frames_are_skipped_and_counted(tmp_path: Path, referee: Referee, recognizer: Recognizer) -> None:
    rng = np.random.default_rng(1)
    noise = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    black = np.zeros((480, 640, 3), np.uint8)
    folder = tmp_path / "frames"
    folder.mkdir()
    import cv2

    ok, jpeg = cv2.imencode(".jpg", noise)
    assert ok
    (folder / "a_truncated.jpg").write_bytes(jpeg.tobytes()[:200])
    (folder / "b_black.png").write_bytes(cv2.imencode(".png", black)[1].tobytes())
    sources: list[FrameSource] = [FrameList([noise, black, noise])]
    loop = RefereeLoop(referee, lambda: sources.pop(0), recognizer, panels())
    stats = loop.run()
    # A jump from noise to black looks like motion; either way no frame reaches the referee.
    assert stats.frames == 3 and stats.no_mat + stats.moving == 3 and stats.no_mat >= 1
    assert stats.accepted == 0

    sources.append(ImageFolderSource(folder))
    loop = RefereeLoop(referee, lambda: sources.pop(0), recognizer, panels())
    stats = loop.run()
    assert (stats.unreadable, stats.no_mat) == (1, 1)
    assert referee.live.moves() == []


class Flaky(FrameList):
    """Delivers its frames, then fails like an unplugged camera."""

    def _read(self) -> np.ndarray:  # type: ignore[override]
        if self.position >= len(self.frames):
            raise CameraError("the camera stopped answering")
        return super()._read()


def test_a_lost_camera_is_shown_and_reconnected_with_backoff(referee: Referee, recognizer: Recognizer) -> None:
    black = np.zeros((240, 320, 3), np.uint8)
    attempts: list[str] = []

    def opener() -> FrameSource:
        attempts.append("open")
        if len(attempts) == 1:
            return Flaky([black, black])
        if len(attempts) in (2, 3):
            raise CameraError("no camera on the ribbon cable")
        return FrameList([black])

    shown: list[object] = []
    screens = panels()
    delays: list[float] = []

    def sleep(seconds: float) -> None:
        delays.append(seconds)
        shown.append(screens["centre"].device.image.copy())

    notices: list[str] = []
    loop = RefereeLoop(referee, opener, recognizer, screens, sleep=sleep, backoff=(0.5, 1.5), on_notice=notices.append)
    stats = loop.run()
    assert delays == [0.5, 1.0, 1.5]
    # the terminal hears of it once when it is lost and once when it is back, not at every retry
    assert len(notices) == 2 and notices[0].startswith("camera lost: ") and "back" in notices[1]
    assert (stats.camera_lost, stats.reconnects, stats.frames) == (3, 1, 3)
    title = referee.central().title
    lost = render_image(render_central, CentralView(title, "CAMERA LOST", "Reconnecting...",
                                                     "no camera on the ribbon cable"))
    assert shown[-1].tobytes() == lost.tobytes()
    assert screens["centre"].device.image.tobytes() == render_image(render_central, referee.central()).tobytes()


def test_a_camera_that_never_worked_is_not_retried(referee: Referee, recognizer: Recognizer) -> None:
    attempts: list[str] = []

    def opener() -> FrameSource:
        attempts.append("open")
        raise CameraUnavailable("cannot read images from /nowhere: no such folder")

    loop = RefereeLoop(referee, opener, recognizer, panels(), sleep=lambda _s: None)
    with pytest.raises(CameraUnavailable, match="no such folder"):
        loop.run()
    assert attempts == ["open"]


def test_a_camera_that_worked_then_vanished_is_retried(referee: Referee, recognizer: Recognizer) -> None:
    black = np.zeros((240, 320, 3), np.uint8)
    attempts: list[str] = []

    def opener() -> FrameSource:
        attempts.append("open")
        if len(attempts) == 1:
            return Flaky([black, black])
        if len(attempts) == 2:
            raise CameraUnavailable("no USB camera 0")
        return FrameList([black])

    stats = RefereeLoop(referee, opener, recognizer, panels(), sleep=lambda _s: None).run()
    assert stats.reconnects == 1 and len(attempts) == 3
