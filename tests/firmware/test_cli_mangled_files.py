"""Mangled configuration and image files: one line on stderr, exit 2, never a traceback (property tests)."""

from __future__ import annotations

import io
import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from firmware.cli import main
from firmware.config import ConfigError, load_config

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert err.count("\n") == 1 and err.startswith("ringside ") and "Traceback" not in err, err
    return err


# -- configuration files ------------------------------------------------------------------

_KEYS = ["game", "seats", "journal", "camera", "display", "buttons", "source", "size", "warmup_s", "autofocus",
         "lens_position", "centre", "seat", "driver", "bus", "address", "backend", "pins", "a-b", "ünïcode", "x y"]
_scalars = (st.integers(-2**70, 2**70) | st.booleans() | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(max_size=12) | st.sampled_from(["bigtop", "fantan", "gpio", "picamera2", "0x3c", "ssd1306"]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4), max_leaves=12)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (int, str)):
        return json.dumps(value) if isinstance(value, str) else str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


def _toml(document: dict[str, Any]) -> str:
    return "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in document.items())


def _check_config(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        load_config(path)
    except ConfigError as exc:
        assert str(exc) and "\n" not in str(exc), str(exc)
        # the same mistake through the command line: one line, exit 2, before any hardware is touched
        _one_line_exit_2(capsys, ["run", "--config", str(path), "--max-frames", "0"])


@FAST
@given(document=st.dictionaries(st.sampled_from(_KEYS), _values, max_size=6))
def test_random_toml_config(document: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ringside.toml"
    path.write_text(_toml(document), encoding="utf-8")
    _check_config(path, capsys)


@FAST
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_random_bytes_config(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ringside.toml"
    path.write_bytes(data)
    _check_config(path, capsys)


# -- image files ----------------------------------------------------------------------------


def _encoded(kind: str, width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    pixels = np.random.default_rng(width * 1000 + height).integers(0, 255, (height, width, 3), np.uint8)
    Image.fromarray(pixels).save(buffer, kind)
    return buffer.getvalue()


_images = st.builds(_encoded, st.sampled_from(["PNG", "JPEG", "BMP", "TIFF", "WEBP", "GIF"]),
                    st.integers(1, 48), st.integers(1, 48))


@st.composite
def _mangled(draw: st.DrawFn) -> bytes:
    data = draw(_images)
    how = draw(st.sampled_from(["truncate", "flip", "header", "random"]))
    if how == "truncate":
        return data[:draw(st.integers(0, len(data) - 1))]
    if how == "flip":
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if how == "header":
        return data[:draw(st.integers(1, 24))] + draw(st.binary(max_size=64))
    return draw(st.binary(max_size=300))


@FAST
@given(data=_mangled(), suffix=st.sampled_from([".png", ".jpg", ".bmp", ".tif", ".webp", ".gif", ""]))
def test_mangled_image(data: bytes, suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"table{suffix}"
    path.write_bytes(data)
    # an image that still decodes shows no mat: that, too, is one line and exit 2;
    # and no decoder warning ("Corrupt EXIF data") may add a line of its own
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _one_line_exit_2(capsys, ["recognize", str(path), "--game", "bigtop"])
