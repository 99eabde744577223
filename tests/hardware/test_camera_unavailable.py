"""Sources that can never work raise `CameraUnavailable` at once, in one line; a lost camera stays a `CameraError`."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hardware.camera import OpenCVSource, open_camera
from hardware.errors import CameraError, CameraUnavailable
from hardware.picamera import PiCameraSource


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text


def test_unavailable_is_a_camera_error() -> None:
    assert issubclass(CameraUnavailable, CameraError)


def test_missing_folder_file_instead_of_folder_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="no such folder") as caught:
        open_camera(f"images:{tmp_path / 'nonexistent'}")
    _one_line(caught.value)
    (tmp_path / "notes.txt").write_text("not an image")
    with pytest.raises(CameraUnavailable, match="it is a file, not a folder"):
        open_camera(f"images:{tmp_path / 'notes.txt'}")
    with pytest.raises(CameraUnavailable, match="holds no images"):
        open_camera(f"images:{tmp_path}")


def test_video_missing_or_not_a_video(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CameraUnavailable, match="no such file"):
        open_camera(f"video:{tmp_path / 'missing.mp4'}")
    with pytest.raises(CameraUnavailable, match="it is a folder"):
        open_camera(f"video:{tmp_path}")
    fake = tmp_path / "game.mp4"
    fake.write_text("this is not a video\n")
    with pytest.raises(CameraUnavailable, match="not a video OpenCV can decode") as caught:
        open_camera(f"video:{fake}")
    _one_line(caught.value)
    assert capfd.readouterr().err == ""  # FFmpeg's own complaint ("moov atom not found") is kept quiet


def test_usb_camera_that_is_not_there_gives_up_after_bounded_tries(capfd: pytest.CaptureFixture[str]) -> None:
    naps: list[float] = []
    with pytest.raises(CameraUnavailable, match="no USB camera 97: .* in 4 tries") as caught:
        OpenCVSource(97, attempts=4, retry_delay_s=0.25, sleep=naps.append)
    _one_line(caught.value)
    assert naps == [0.25, 0.25, 0.25]
    assert capfd.readouterr().err == ""  # OpenCV's "can't open camera by index" is kept quiet
    with pytest.raises(ValueError):
        OpenCVSource(97, attempts=0)


def test_unplugged_mid_game_is_still_a_transient_camera_error() -> None:
    class Unplugged:
        def grab(self) -> bool:
            return False

        def read(self) -> tuple[bool, Any]:
            return False, None

        def release(self) -> None:
            pass

    with OpenCVSource(1, capture=Unplugged()) as cam, pytest.raises(CameraError) as caught:
        cam.read()
    assert not isinstance(caught.value, CameraUnavailable)


def test_picamera2_not_installed_is_unavailable_and_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraUnavailable, match="sudo apt install python3-picamera2") as caught:
        open_camera("picamera2")
    _one_line(caught.value)


def test_no_pi_camera_connected_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoCamera:
        def __init__(self) -> None:
            raise IndexError("list index out of range")  # what Picamera2() does with no camera

    module = types.ModuleType("picamera2")
    module.Picamera2 = NoCamera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with pytest.raises(CameraUnavailable, match="ribbon cable"):
        PiCameraSource()


def test_a_working_folder_still_reads(tmp_path: Path) -> None:
    import cv2

    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((4, 6, 3), np.uint8))
    with open_camera(f"images:{tmp_path}") as cam:
        assert cam.read().shape == (4, 6, 3)
