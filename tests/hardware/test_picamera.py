"""The Picamera2 driver, against a fake of the part of Picamera2's API it uses."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from hardware.camera import open_camera
from hardware.errors import CameraError
from hardware.picamera import AF_MODE_AUTO, AF_MODE_MANUAL, PiCameraSettings, PiCameraSource


def test_picamera2_is_not_imported_by_the_package() -> None:
    code = (
        "import sys, hardware, hardware.camera, hardware.display, hardware.buttons, hardware.fakes;"
        "import hardware.picamera;"
        "bad = [m for m in ('picamera2', 'cv2', 'gpiozero', 'luma', 'libcamera') if m in sys.modules];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_picamera2_missing_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="python3-picamera2"):
        open_camera("picamera2")


class FakeRequest:
    def __init__(self, camera: FakePicamera2, number: int) -> None:
        self.camera = camera
        self.number = number
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert name == "main"
        if self.camera.fail_copy:
            raise RuntimeError("buffer gone")
        w, h = self.camera.config["main"]["size"]
        return np.full((h // 100, w // 100, 3), self.number % 256, np.uint8)

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    """The part of Picamera2's API the driver uses, logging every call."""

    def __init__(self, *, has_af: bool = True, flush: bool = True) -> None:
        self.camera_controls = {"AfMode": (0, 2, 0)} if has_af else {}
        self.calls: list[tuple[str, Any]] = []
        self.config: dict[str, Any] = {}
        self.requests: list[FakeRequest] = []
        self.flush = flush
        self.fail_copy = False

    def create_still_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_still_configuration", kwargs))
        return kwargs

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config
        self.calls.append(("configure", None))

    def start(self) -> None:
        self.calls.append(("start", None))

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def autofocus_cycle(self) -> bool:
        self.calls.append(("autofocus_cycle", None))
        return True

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append(("capture_metadata", None))
        return {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6),
                "LensPosition": 3.25, "Lux": 300.0}

    def capture_request(self, **kwargs: Any) -> FakeRequest:
        if kwargs and not self.flush:
            raise TypeError("capture_request() got an unexpected keyword argument 'flush'")
        self.calls.append(("capture_request", kwargs))
        request = FakeRequest(self, len(self.requests) + 1)
        self.requests.append(request)
        return request

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


def test_picamera_still_config_warmup_then_locked_settings() -> None:
    fake = FakePicamera2()
    slept: list[float] = []
    cam = PiCameraSource(PiCameraSettings(warmup_s=1.5), camera=fake, sleep=slept.append)
    names = [c[0] for c in fake.calls]
    assert names == ["create_still_configuration", "configure", "start", "set_controls", "autofocus_cycle",
                     "capture_metadata", "set_controls"]
    config = fake.calls[0][1]
    assert config["main"] == {"size": (2304, 1296), "format": "RGB888"}
    assert config["queue"] is False
    assert fake.calls[3][1] == {"AfMode": AF_MODE_AUTO}
    assert slept == [1.5]
    assert fake.calls[-1][1] == {
        "AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.5,
        "ColourGains": (1.9, 1.6), "AfMode": AF_MODE_MANUAL, "LensPosition": 3.25,
    }
    frame = cam.read()
    assert frame.shape == (12, 23, 3) and frame.dtype == np.uint8
    # A fresh frame: asked with flush=True, after the locked settings, and its buffer released.
    assert fake.calls[-1] == ("capture_request", {"flush": True})
    assert all(r.released for r in fake.requests)
    cam.close()
    cam.close()
    assert [c[0] for c in fake.calls[-2:]] == ["stop", "close"]
    assert sum(1 for c in fake.calls if c[0] == "close") == 1


def test_picamera_fixed_lens_and_no_af_camera() -> None:
    fake = FakePicamera2()
    PiCameraSource(PiCameraSettings(lens_position=2.0, warmup_s=0), camera=fake, sleep=lambda s: None)
    assert "autofocus_cycle" not in [c[0] for c in fake.calls]
    assert fake.calls[0][1]["controls"]["LensPosition"] == 2.0
    assert fake.calls[-1][1]["LensPosition"] == 2.0
    plain = FakePicamera2(has_af=False)
    PiCameraSource(PiCameraSettings(warmup_s=0), camera=plain, sleep=lambda s: None)
    assert "AfMode" not in plain.calls[-1][1] and plain.calls[-1][1]["AeEnable"] is False


def test_picamera_old_version_drops_stale_frames_and_releases_on_error() -> None:
    fake = FakePicamera2(flush=False)
    cam = PiCameraSource(PiCameraSettings(warmup_s=0, stale_frames=2), camera=fake, sleep=lambda s: None)
    assert int(cam.read()[0, 0, 0]) == 3  # two queued frames dropped
    assert all(r.released for r in fake.requests)
    fake.fail_copy = True
    with pytest.raises(RuntimeError, match="buffer gone"):
        cam.read()
    assert all(r.released for r in fake.requests)


def test_picamera_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="camera size 10x10"):
        PiCameraSettings(size=(10, 10))
    with pytest.raises(TypeError):
        PiCameraSettings(sise=(640, 480))  # type: ignore[call-arg]
