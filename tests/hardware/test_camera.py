"""Frame sources: image folders, video files, OpenCV cameras, the factory, the stand-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hardware import camera as camera_module
from hardware.camera import (
    FrameSource,
    ImageFolderSource,
    OpenCVSource,
    camera_names,
    open_camera,
    register_camera,
)
from hardware.errors import CameraClosed, CameraError, EndOfFrames, UnknownBackend
from hardware.fakes import FrameList

cv2 = pytest.importorskip("cv2")  # OpenCV comes with the vision dependencies


def solid(value: int, shape: tuple[int, int] = (48, 64)) -> np.ndarray:
    frame = np.zeros((*shape, 3), np.uint8)
    frame[:, :] = (value, 255 - value, 7)
    return frame


def test_image_folder_in_sorted_order_then_end(tmp_path: Path) -> None:
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("not an image")
    cv2.imwrite(str(tmp_path / "gray.png"), np.full((48, 64), 99, np.uint8))
    with open_camera(f"images:{tmp_path}") as cam:
        assert isinstance(cam, FrameSource)
        firsts = [int(cam.read()[0, 0, 0]) for _ in range(3)]
        gray = cam.read()
        assert gray.shape == (48, 64, 3) and gray.dtype == np.uint8 and int(gray[0, 0, 1]) == 99
        with pytest.raises(EndOfFrames, match="all 4 images"):
            cam.read()
    assert firsts[0] == 10 and firsts[1] == 20 and abs(firsts[2] - 30) <= 3  # jpeg


def test_image_folder_loops_when_asked(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "only.png"), solid(5))
    with ImageFolderSource(tmp_path, loop=True) as cam:
        assert [int(cam.read()[0, 0, 0]) for _ in range(3)] == [5, 5, 5]


def test_image_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such folder"):
        open_camera(f"images:{tmp_path / 'missing'}")
    with pytest.raises(CameraError, match="holds no images"):
        open_camera(f"images:{tmp_path}")
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with ImageFolderSource(tmp_path) as cam, pytest.raises(CameraError, match="cannot read the image"):
        cam.read()


def write_video(path: Path, values: list[int]) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5, (64, 48))
    assert writer.isOpened()
    for v in values:
        writer.write(solid(v))
    writer.release()


def test_video_file_frames_then_end(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, [40, 120, 200])
    with open_camera(f"video:{path}") as cam:
        values = [int(cam.read()[10, 10, 0]) for _ in range(3)]
        with pytest.raises(EndOfFrames, match="no more frames"):
            cam.read()
    assert [abs(a - b) <= 8 for a, b in zip(values, [40, 120, 200])] == [True] * 3


def test_missing_video_and_usb_camera(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such file"):
        open_camera(f"video:{tmp_path / 'none.mp4'}")
    with pytest.raises(UnknownBackend, match="opencv:0"):
        open_camera("opencv:front")


class FakeCapture:
    """A cv2.VideoCapture that counts frames, like a camera that keeps running."""

    def __init__(self) -> None:
        self.count = 0
        self.grabs = 0
        self.released = 0

    def grab(self) -> bool:
        self.count += 1
        self.grabs += 1
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        self.count += 1
        return True, solid(self.count % 256)

    def release(self) -> None:
        self.released += 1


def test_live_opencv_drops_queued_frames_and_closes_once() -> None:
    capture = FakeCapture()
    cam = OpenCVSource(0, capture=capture, drop=2)
    assert int(cam.read()[0, 0, 0]) == 3 and capture.grabs == 2
    assert int(cam.read()[0, 0, 0]) == 6
    cam.close()
    cam.close()
    assert capture.released == 1
    with pytest.raises(CameraClosed, match="opencv:0 is closed"):
        cam.read()


def test_live_camera_without_frame_is_an_error() -> None:
    class Unplugged(FakeCapture):
        def read(self) -> tuple[bool, Any]:
            return False, None

    with OpenCVSource(1, capture=Unplugged()) as cam, pytest.raises(CameraError, match="still plugged in"):
        cam.read()


def test_factory_names_and_hook() -> None:
    with pytest.raises(UnknownBackend, match="unknown camera 'webcam'"):
        open_camera("webcam")
    assert {"picamera2", "opencv", "video", "images", "simulated"} <= set(camera_names())
    frames = [solid(1), solid(2)]
    saved = dict(camera_module._OPENERS)
    try:
        # before the referee registers its game's simulated table, the name says how to get one
        register_camera("simulated", camera_module._open_simulated)
        with pytest.raises(UnknownBackend, match="ringside run --camera simulated"):
            open_camera("simulated")
        register_camera("simulated", lambda arg: FrameList(frames, name=f"simulated:{arg}"))
        with open_camera("simulated:seed=3") as cam:
            assert cam.name == "simulated:seed=3" and int(cam.read()[0, 0, 0]) == 1
    finally:
        camera_module._OPENERS.clear()
        camera_module._OPENERS.update(saved)


def test_frame_list_stand_in() -> None:
    cam = FrameList([solid(1), np.zeros((4, 4), np.uint8)])
    assert cam.read().shape == (48, 64, 3)
    assert cam.read().shape == (4, 4, 3)
    with pytest.raises(EndOfFrames):
        cam.read()
    with pytest.raises(CameraError, match="must be 8-bit"):
        FrameList([np.zeros((4, 4, 3), np.float32)])
