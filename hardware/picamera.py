"""The Raspberry Pi camera through Picamera2. The only module that imports picamera2.

picamera2 comes from apt on the Pi (``sudo apt install python3-picamera2``)
and is found through a venv made with ``--system-site-packages``; it is
imported when a `PiCameraSource` is created, never at module import, so this
module loads on any machine.

What the referee needs from the camera is the same picture of the table from
one frame to the next, so the source:

1. configures a still stream of about 2304x1296 (the 2x2-binned full field of
   view of Camera Module 3, which is fast and sharp enough for cards), in
   ``RGB888``, which Picamera2 lays out in memory as B, G, R: OpenCV's order;
2. lets auto exposure, auto white balance and (on a camera that has it)
   autofocus settle for ``warmup_s``;
3. reads the values they settled on from the frame metadata and locks them
   (``AeEnable``/``AwbEnable`` off, the exposure time, gains, colour gains,
   ``AfMode`` manual at the lens position found), so that a hand moving over
   the table does not change the exposure of the next frame;
4. never hands out a stale frame: the configuration does not queue a frame
   ahead of a request (``queue=False``), and each read asks for a request
   whose exposure began after the read was called (``flush=True``; on old
   Picamera2 versions without it, queued frames are dropped instead). The
   request's buffer is always released, even when copying it fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from hardware.camera import BaseFrameSource, Frame, as_bgr
from hardware.errors import CameraError, CameraUnavailable

__all__ = ["AF_MODE_AUTO", "AF_MODE_MANUAL", "PiCameraSettings", "PiCameraSource"]

#: libcamera's ``AfModeEnum`` values (``controls.AfModeEnum.Manual`` / ``.Auto``), as plain ints
#: so that this module needs no libcamera import of its own.
AF_MODE_MANUAL = 0
AF_MODE_AUTO = 1

#: The metadata fields whose settled values are locked after warm-up.
_LOCKED_FROM_METADATA = ("ExposureTime", "AnalogueGain", "ColourGains")


@dataclass(frozen=True, slots=True)
class PiCameraSettings:
    """How the Pi camera is set up. Unknown fields are a TypeError, bad values a ValueError.

    :param size: (width, height) of the still stream.
    :param warmup_s: seconds to let exposure, white balance and focus settle before locking.
    :param autofocus: run one autofocus cycle during warm-up (cameras with autofocus only).
    :param lens_position: a fixed lens position in dioptres instead of autofocus.
    :param buffer_count: buffers of the still stream.
    :param stale_frames: frames to drop per read on Picamera2 versions without ``flush``.
    """

    size: tuple[int, int] = (2304, 1296)
    warmup_s: float = 2.0
    autofocus: bool = True
    lens_position: float | None = None
    buffer_count: int = 2
    stale_frames: int = 2

    def __post_init__(self) -> None:
        width, height = self.size
        if not (64 <= width <= 9152 and 64 <= height <= 6944):
            raise ValueError(f"camera size {width}x{height} is out of range (64x64 to 9152x6944)")
        if self.warmup_s < 0:
            raise ValueError(f"camera warm-up must be 0 seconds or more, not {self.warmup_s}")
        if self.lens_position is not None and not 0 <= self.lens_position <= 32:
            raise ValueError(f"lens position is in dioptres, 0 to 32, not {self.lens_position}")
        if self.buffer_count < 1 or self.stale_frames < 0:
            raise ValueError("buffer_count must be 1 or more and stale_frames 0 or more")


def _picamera2_class() -> Any:
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        raise CameraUnavailable(
            "picamera2 is not installed: on the Pi run 'sudo apt install python3-picamera2' and create "
            "the venv with --system-site-packages; elsewhere use --camera opencv:0, video:FILE or images:DIR"
        ) from None
    return Picamera2


class PiCameraSource(BaseFrameSource):
    """The Raspberry Pi camera as a `hardware.camera.FrameSource`.

    :param settings: the stream size, warm-up and focus settings.
    :param camera: a ``Picamera2``-like object to drive instead of the real one (tests).
    :param sleep: the sleep function used for the warm-up (tests pass a fake).
    :raises CameraUnavailable: when picamera2 is missing or no camera is connected.
    :raises CameraError: when the camera does not answer now.
    """

    def __init__(
        self, settings: PiCameraSettings = PiCameraSettings(), *, camera: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__("picamera2")
        self.settings = settings
        if camera is None:
            picamera2 = _picamera2_class()
            try:
                camera = picamera2()
            except IndexError:  # Picamera2 found no camera at all
                raise CameraUnavailable(
                    "no Raspberry Pi camera is connected: check the ribbon cable (contacts the right way round) "
                    "and that 'rpicam-hello --list-cameras' lists it"
                ) from None
            except (RuntimeError, OSError) as exc:
                raise CameraError(f"no Raspberry Pi camera answered ({exc}): check the ribbon cable") from None
        self._camera = camera
        #: The control values locked after warm-up.
        self.locked: dict[str, Any] = {}
        try:
            self._start(sleep)
        except Exception:
            self._closed = True
            self._release()
            raise

    def _start(self, sleep: Callable[[float], None]) -> None:
        cam = self._camera
        s = self.settings
        has_af = "AfMode" in getattr(cam, "camera_controls", {})
        start_controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
        if has_af and s.lens_position is not None:
            start_controls.update(AfMode=AF_MODE_MANUAL, LensPosition=s.lens_position)
        config = cam.create_still_configuration(
            main={"size": s.size, "format": "RGB888"},
            buffer_count=s.buffer_count,
            queue=False,
            controls=start_controls,
        )
        try:
            cam.configure(config)
            cam.start()
        except RuntimeError as exc:
            raise CameraError(f"the Raspberry Pi camera could not start a {s.size[0]}x{s.size[1]} stream: {exc}") from None
        if has_af and s.lens_position is None and s.autofocus:
            cam.set_controls({"AfMode": AF_MODE_AUTO})
            # A failed cycle leaves the lens where it got to; it is locked there all the same.
            cam.autofocus_cycle()
        sleep(s.warmup_s)
        metadata: Mapping[str, Any] = cam.capture_metadata()
        locked: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in _LOCKED_FROM_METADATA:
            if key in metadata:
                locked[key] = metadata[key]
        if has_af:
            locked["AfMode"] = AF_MODE_MANUAL
            position = s.lens_position if s.lens_position is not None else metadata.get("LensPosition")
            if position is not None:
                locked["LensPosition"] = position
        cam.set_controls(locked)
        self.locked = locked
        # The first frames after set_controls may still carry the old settings:
        # the next read asks for a frame that began after it was called.

    def _capture_request(self) -> Any:
        cam = self._camera
        try:
            return cam.capture_request(flush=True)
        except TypeError:  # Picamera2 before flush=: drop what may be queued
            for _ in range(self.settings.stale_frames):
                cam.capture_request().release()
            return cam.capture_request()

    def _read(self) -> Frame:
        try:
            request = self._capture_request()
        except RuntimeError as exc:
            raise CameraError(f"the Raspberry Pi camera delivered no frame: {exc}") from None
        try:
            frame = np.array(request.make_array("main"), dtype=np.uint8, copy=True)
        finally:
            request.release()
        return as_bgr(frame, self.name)

    def _release(self) -> None:
        cam = self._camera
        try:
            cam.stop()
        finally:
            cam.close()
