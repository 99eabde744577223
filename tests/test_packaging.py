"""What each machine installs: a Pi keeps the numpy and OpenCV that apt's picamera2 works with."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

import models

ROOT = Path(__file__).resolve().parents[1]


def _requirements(machine: str) -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    env = {"platform_machine": machine, "sys_platform": "linux", "python_version": "3.11"}
    out = {}
    for line in project["dependencies"]:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            out[req.name] = str(req.specifier)
    return out


def test_the_pi_keeps_numpy_below_2_and_an_opencv_that_works_with_it() -> None:
    pi = _requirements("aarch64")
    assert "<2" in pi["numpy"] and "<4.12" in pi["opencv-python-headless"]
    assert "luma.emulator" not in pi  # the desktop stand-ins are not forced onto it


def test_a_desktop_gets_the_stand_ins_and_current_numpy() -> None:
    desktop = _requirements("x86_64")
    assert "luma.emulator" in desktop and "<2" not in desktop["numpy"]


def test_the_models_are_found_through_the_package() -> None:
    assert models.path("bigtop_components.onnx").is_file()
    assert models.path("bigtop_components.labels.txt").is_file()
    assert models.path("enroll_embedder.onnx").is_file()
