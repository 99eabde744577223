"""The errors of Ringside's hardware edges: each a sentence, each also a stdlib type."""

from __future__ import annotations

__all__ = [
    "BadFrame",
    "ButtonError",
    "CameraClosed",
    "CameraError",
    "CameraUnavailable",
    "DisplayError",
    "EndOfFrames",
    "HardwareError",
    "UnknownBackend",
]


class HardwareError(Exception):
    """Base class of every camera, display and button error."""


class UnknownBackend(HardwareError, ValueError):
    """A camera, display or button backend name that Ringside does not know."""


class CameraError(HardwareError, RuntimeError):
    """The camera cannot be opened or cannot deliver a frame."""


class CameraUnavailable(CameraError):
    """A camera that can never deliver a frame as named: trying again will not help.

    A missing folder or one without images, a file that is not a video, a USB camera
    that is not there, picamera2 not installed. The message says what to change.
    A plain `CameraError` is a loss that may pass (a cable pulled out mid-game).
    """


class CameraClosed(CameraError):
    """A frame was asked of a camera that has been closed."""


class BadFrame(CameraError):
    """One frame could not be read (a truncated or corrupt image); the camera itself is still there."""


class EndOfFrames(CameraError):
    """A video file or image folder has no frame left."""


class DisplayError(HardwareError, RuntimeError):
    """An OLED panel cannot be opened or driven."""


class ButtonError(HardwareError, RuntimeError):
    """The buttons cannot be set up (a bad pin, a pin used twice, no GPIO)."""
