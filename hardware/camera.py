"""Camera frame sources behind one small interface, and a factory that picks one by name.

Every source is a `FrameSource`: ``read()`` returns the next frame as a numpy
``uint8`` array of shape (height, width, 3) in BGR order (OpenCV's), or
raises a `hardware.errors.CameraError` that says what went wrong. Sources
are context managers, and ``close()`` may be called any number of times:

>>> import numpy as np
>>> from hardware.fakes import FrameList
>>> with open_camera("images:/nonexistent") as cam:  # doctest: +SKIP
...     frame = cam.read()
>>> with FrameList([np.zeros((4, 6, 3), np.uint8)]) as cam:
...     cam.read().shape
(4, 6, 3)

Backends by name (`open_camera`):

* ``picamera2`` — the Raspberry Pi camera (`hardware.picamera`, imported only then);
* ``opencv:N`` — USB camera number N through OpenCV;
* ``video:FILE`` — the frames of a video file, then `EndOfFrames`;
* ``images:DIR`` — the images of a folder in sorted name order, then `EndOfFrames`;
* ``simulated`` — a simulated game night filmed by a simulated camera (registered by the referee for its game);
* more by `register_camera`.

OpenCV is imported only when an OpenCV, video or image source is opened.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np
import numpy.typing as npt

from hardware.errors import BadFrame, CameraClosed, CameraError, CameraUnavailable, EndOfFrames, UnknownBackend

__all__ = [
    "IMAGE_SUFFIXES",
    "BaseFrameSource",
    "Frame",
    "FrameSource",
    "ImageFolderSource",
    "OpenCVSource",
    "as_bgr",
    "camera_names",
    "open_camera",
    "register_camera",
]

#: A camera frame: uint8, shape (height, width, 3), BGR.
Frame = npt.NDArray[np.uint8]

#: The file suffixes an image folder source reads (lower case).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


@runtime_checkable
class FrameSource(Protocol):
    """Anything that delivers camera frames."""

    #: What the source is, for messages (``"images:/data/table"``).
    name: str

    def read(self) -> Frame:
        """The next frame (BGR, uint8).

        :raises CameraError: when no frame can be had; `EndOfFrames` when a file source is done.
        """
        ...

    def close(self) -> None:
        """Release the camera. Closing twice is harmless."""
        ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class BaseFrameSource:
    """Common plumbing: context manager, idempotent close, "closed" errors, a lock around reads.

    Subclasses implement ``_read()`` and ``_release()``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._closed = False
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """True after `close`."""
        return self._closed

    def read(self) -> Frame:
        """The next frame (BGR, uint8).

        :raises CameraClosed: after `close`.
        :raises CameraError: when the camera delivers no frame.
        """
        with self._lock:
            if self._closed:
                raise CameraClosed(f"the camera {self.name} is closed")
            return self._read()

    def close(self) -> None:
        """Release the camera. Closing twice is harmless."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._release()

    def _read(self) -> Frame:
        raise NotImplementedError

    def _release(self) -> None:
        """Free the device; called once."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}{' closed' if self._closed else ''}>"


def _cv2() -> Any:
    try:
        import cv2
    except ImportError:  # pragma: no cover - OpenCV is a vision dependency
        raise CameraError("OpenCV is not installed: pip install opencv-python-headless") from None
    return cv2


_STDERR_LOCK = threading.Lock()


@contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Silence what OpenCV and FFmpeg write straight to file descriptor 2 while a capture opens.

    Their warnings ("can't open camera by index", "moov atom not found") would otherwise
    add lines of their own to the one-line message Ringside gives.
    """
    with _STDERR_LOCK:
        try:
            saved = os.dup(2)
            null = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            yield
            return
        try:
            os.dup2(null, 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)


def as_bgr(image: npt.NDArray[Any], where: str) -> Frame:
    """A frame as BGR uint8: gray images get three channels, BGRA loses alpha.

    :raises CameraError: when the array is not an image.
    """
    if image.dtype != np.uint8:
        raise CameraError(f"{where}: frames must be 8-bit, not {image.dtype}")
    if image.ndim == 2:
        return np.ascontiguousarray(np.repeat(image[:, :, None], 3, axis=2))
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    if image.ndim != 3 or image.shape[2] != 3:
        raise CameraError(f"{where}: a frame must be height x width x 3, not {image.shape}")
    return image


class OpenCVSource(BaseFrameSource):
    """A USB camera (by index) or a video file, through ``cv2.VideoCapture``.

    For a live camera, stale frames are avoided by keeping the driver's buffer
    to one frame and grabbing ``drop`` frames before each read, so ``read()``
    returns what the table looks like now, not what it looked like when the
    previous read happened. A video file is read frame by frame.

    :param device: the camera index or the video file.
    :param size: (width, height) to ask a live camera for.
    :param drop: frames to throw away before each read of a live camera.
    :param capture: an opened ``cv2.VideoCapture``-like object (tests inject one).
    :param attempts: how many times to try to open a live camera before giving up.
    :param retry_delay_s: seconds between those tries.
    :param sleep: the sleep function between tries (tests pass a fake).
    :raises CameraUnavailable: when the video is missing or not a video, or no camera answers
        at that number after ``attempts`` tries.
    """

    def __init__(
        self, device: int | str | Path, *, size: tuple[int, int] | None = None, drop: int = 1,
        capture: Any = None, attempts: int = 3, retry_delay_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.live = isinstance(device, int)
        super().__init__(f"opencv:{device}" if self.live else f"video:{device}")
        if drop < 0:
            raise ValueError(f"drop must be 0 or more frames, not {drop}")
        if attempts < 1:
            raise ValueError(f"attempts must be 1 or more, not {attempts}")
        self.drop = drop if self.live else 0
        if capture is None:
            cv2 = _cv2()
            if not isinstance(device, int):
                path = Path(device)
                if not path.is_file():
                    why = "it is a folder (use images:FOLDER)" if path.is_dir() else "no such file"
                    raise CameraUnavailable(f"cannot open the video {device}: {why}")
                with _native_stderr_silenced():
                    capture = cv2.VideoCapture(str(device))
                if not capture.isOpened():
                    raise CameraUnavailable(f"{device} is not a video OpenCV can decode (try .mp4, .avi, .mkv)")
            else:
                for attempt in range(attempts):
                    if attempt:
                        sleep(retry_delay_s)
                    with _native_stderr_silenced():
                        capture = cv2.VideoCapture(device)
                    if capture.isOpened():
                        break
                    capture.release()
                else:
                    raise CameraUnavailable(
                        f"no USB camera {device}: OpenCV could not open it in {attempts} tries; check that it is "
                        f"plugged in and shows up in 'ls /dev/video*', or name another --camera"
                    )
                capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
                if size is not None:
                    capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
                    capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._capture = capture

    def _read(self) -> Frame:
        for _ in range(self.drop):
            self._capture.grab()
        ok, frame = self._capture.read()
        if not ok or frame is None:
            if self.live:
                raise CameraError(f"the camera {self.name} delivered no frame: is it still plugged in?")
            raise EndOfFrames(f"the video {self.name[6:]} has no more frames")
        return as_bgr(frame, self.name)

    def _release(self) -> None:
        self._capture.release()


class ImageFolderSource(BaseFrameSource):
    """The images of a folder, in sorted file-name order, one per ``read()``.

    :param folder: the folder; files with other suffixes than `IMAGE_SUFFIXES` are ignored.
    :param loop: start again at the first image instead of raising `EndOfFrames`.
    :raises CameraUnavailable: when the folder does not exist or holds no image.
    """

    def __init__(self, folder: str | Path, *, loop: bool = False) -> None:
        super().__init__(f"images:{folder}")
        path = Path(folder)
        if not path.is_dir():
            why = "it is a file, not a folder" if path.exists() else "no such folder"
            raise CameraUnavailable(f"cannot read images from {folder}: {why}")
        self.files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.files:
            raise CameraUnavailable(f"the folder {folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.loop = loop
        self.position = 0

    def _read(self) -> Frame:
        if self.position >= len(self.files):
            if not self.loop:
                raise EndOfFrames(f"all {len(self.files)} images of {self.name[7:]} have been read")
            self.position = 0
        path = self.files[self.position]
        self.position += 1
        image = _cv2().imread(str(path), -1)  # IMREAD_UNCHANGED: keep gray as gray
        if image is None:
            raise BadFrame(f"cannot read the image {path}: not an image OpenCV can decode")
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        return as_bgr(image, str(path))


# -- the factory ----------------------------------------------------------------------

#: A function that opens a source from the text after the colon ("" when none).
CameraOpener = Callable[[str], FrameSource]
_OPENERS: dict[str, CameraOpener] = {}


def register_camera(scheme: str, opener: CameraOpener) -> None:
    """Make ``open_camera("SCHEME:ARG")`` call ``opener("ARG")``.

    This is the hook for sources that live elsewhere, e.g. the simulated game
    night, which the referee registers for the game it plays (``hardware`` imports
    nothing of ``firmware``).
    """
    if not scheme.isidentifier():
        raise ValueError(f"a camera scheme is a plain word, not {scheme!r}")
    _OPENERS[scheme] = opener


def camera_names() -> list[str]:
    """The camera schemes `open_camera` knows now."""
    return sorted(_OPENERS)


def _open_picamera2(arg: str) -> FrameSource:
    from hardware.picamera import PiCameraSource  # picamera2 is imported only here

    if arg:
        raise UnknownBackend(f"'picamera2' takes no argument, not {arg!r}")
    return PiCameraSource()


def _open_opencv(arg: str) -> FrameSource:
    if not arg.isdigit():
        raise UnknownBackend(f"write the USB camera number after 'opencv:', e.g. 'opencv:0', not {arg!r}")
    return OpenCVSource(int(arg))


def _open_video(arg: str) -> FrameSource:
    if not arg:
        raise UnknownBackend("write the video file after 'video:', e.g. 'video:game.mp4'")
    return OpenCVSource(arg)


def _open_images(arg: str) -> FrameSource:
    if not arg:
        raise UnknownBackend("write the folder after 'images:', e.g. 'images:photos/'")
    return ImageFolderSource(arg)


def _open_simulated(arg: str) -> FrameSource:
    """Until the referee registers the simulated table of its game, say how to get one."""
    raise UnknownBackend("the 'simulated' camera films a simulated game: use it through "
                         "'ringside run --camera simulated[:options]' or 'ringside demo'")


register_camera("picamera2", _open_picamera2)
register_camera("opencv", _open_opencv)
register_camera("video", _open_video)
register_camera("images", _open_images)
register_camera("simulated", _open_simulated)


def open_camera(spec: str) -> FrameSource:
    """Open the camera named ``spec``: ``picamera2``, ``opencv:0``, ``video:FILE``, ``images:DIR``…

    :raises UnknownBackend: for a name no backend answers to.
    :raises CameraUnavailable: when the named camera can never work as named (the message says why).
    :raises CameraError: when the named camera cannot be opened now.
    """
    scheme, _, arg = spec.partition(":")
    opener = _OPENERS.get(scheme.strip().lower())
    if opener is None:
        known = ", ".join(f"{n}:…" if n not in ("picamera2", "simulated") else n for n in camera_names())
        raise UnknownBackend(f"unknown camera {spec!r}: use one of {known}")
    return opener(arg)
