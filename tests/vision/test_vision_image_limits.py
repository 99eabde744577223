"""``ringside recognize``: huge images refused before decoding, --annotate types, readable labels."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from vision import UnreadableImageError
from vision.cli import ANNOTATE_SUFFIXES, cmd_recognize
from vision.images import MAX_IMAGE_PIXELS, load_image


def _png_header(path: Path, width: int, height: int) -> Path:
    """A PNG that claims ``width`` x ``height`` (its pixel data is a stub: it is never decoded)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


@pytest.mark.parametrize("width, height", [(20000, 20000), (12000, 9000), (9000, 7200)])
def test_huge_images_are_refused_with_their_size_and_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], width: int, height: int
) -> None:
    path = _png_header(tmp_path / "huge.png", width, height)
    assert width * height > MAX_IMAGE_PIXELS
    with pytest.raises(UnreadableImageError, match=f"{width}x{height}"):
        load_image(path)
    assert cmd_recognize([str(path), "--game", "bigtop"]) == 2
    err = _one_line(capsys)  # no Pillow DecompressionBombWarning line either
    assert f"{width}x{height}" in err and f"{MAX_IMAGE_PIXELS / 1e6:.0f} megapixels" in err


def test_the_limit_can_be_lowered(tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "small.png"
    cv2.imwrite(str(path), np.zeros((40, 50, 3), np.uint8))
    assert load_image(path).shape == (40, 50, 3)
    with pytest.raises(UnreadableImageError, match="50x40"):
        load_image(path, max_pixels=1999)


@pytest.mark.parametrize("name", ["out", "out.gif", "out.pdf", "out.PNG.txt"])
def test_annotate_needs_an_image_suffix_and_is_checked_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    missing = tmp_path / "not-read-yet.png"  # the image is not even opened
    assert cmd_recognize([str(missing), "--annotate", str(tmp_path / name)]) == 2
    err = _one_line(capsys)
    assert "--annotate must name an image file ending in" in err and ANNOTATE_SUFFIXES[0] in err
    assert cmd_recognize([str(missing), "--annotate", str(tmp_path / "no" / "dir.png")]) == 2
    assert "no such folder" in _one_line(capsys)


def test_folder_as_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_recognize([str(tmp_path)]) == 2
    assert "is a folder" in _one_line(capsys)
