"""Reading image files: one line for every unreadable or oversized file, never a traceback or a memory blow-up."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from vision import UnreadableImageError
from vision.geometry import Image

__all__ = ["MAX_IMAGE_PIXELS", "load_image"]


#: The largest image `load_image` decodes, in pixels: a little above the largest Raspberry Pi
#: camera sensor (9152x6944). A frame of that size costs about 1 GB through the pipeline.
MAX_IMAGE_PIXELS = 64_000_000


def load_image(path: Path | str, max_pixels: int = MAX_IMAGE_PIXELS) -> Image:
    """Read an image file as BGR.

    The image's size is read from its header first: one larger than ``max_pixels`` is
    refused before it is decoded.

    :raises UnreadableImageError: when the file is missing, truncated, not an image, or too large.
    """
    p = Path(path)
    try:
        # Pillow warns on stderr about what it reads past (corrupt EXIF, large images): a bad
        # file gets one line from us, a good one none from Pillow.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rgb = _decode(p, max_pixels)
    except UnreadableImageError:
        raise
    except FileNotFoundError:
        raise UnreadableImageError(f"image file not found: {p}") from None
    except IsADirectoryError:
        raise UnreadableImageError(f"{p} is a folder, not an image") from None
    except MemoryError:
        raise UnreadableImageError(f"image {p} is too large to decode in this much memory") from None
    except Exception as exc:  # noqa: BLE001 - a decoder fed a corrupt file may raise almost anything
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UnreadableImageError(f"cannot read image {p}: {reason}") from None
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise UnreadableImageError(f"cannot read image {p}: it has no colour or grey pixels")
    bgr: Image = np.ascontiguousarray(rgb[:, :, ::-1])
    return bgr


def _decode(p: Path, max_pixels: int) -> Image:
    """The pixels of ``p`` as RGB, after its header showed a size of at most ``max_pixels``."""
    im: PILImage.Image
    try:
        im = PILImage.open(p)
    except PILImage.DecompressionBombError:
        im = _open_header_only(p)
    with im:
        width, height = im.size
        if width * height > max_pixels:
            raise UnreadableImageError(
                f"image {p} is {width}x{height} ({width * height / 1e6:.0f} megapixels): "
                f"ringside reads images of at most {max_pixels / 1e6:.0f} megapixels; scale it down first"
            )
        if width < 1 or height < 1:
            raise UnreadableImageError(f"image {p} is empty ({width}x{height})")
        im.load()
        rgb: Image = np.asarray(im.convert("RGB"))
    return rgb


_PIL_LIMIT_LOCK = threading.Lock()


def _open_header_only(p: Path) -> PILImage.Image:
    """Open an image Pillow refuses as a decompression bomb, to read its size from the header.

    Pillow's own limit is lifted only for the ``open`` (which reads the header, not the pixels).
    """
    with _PIL_LIMIT_LOCK:
        saved = PILImage.MAX_IMAGE_PIXELS
        PILImage.MAX_IMAGE_PIXELS = None
        try:
            return PILImage.open(p)
        finally:
            PILImage.MAX_IMAGE_PIXELS = saved
