"""Live frames: what the last frames' work can spare the next one, while nothing changed.

A referee watches one table for minutes and most of it stays still from frame to frame.
Two memories keep the work of the last frames and give it back only where the frame shows
the same thing within sensor noise; each has one rule, and every part of the frame that
changed is worked out afresh:

* `CropMemory`: a crop that matches one the reader read within the last frames (every
  2x2 block's mean within `CROP_SAME` grey levels in each colour, compared with the crop as
  it was when it was read, never with a later copy, so slow drift cannot add up) gets that
  reading again. A card swapped for another, even one of the same suit and colour, differs
  by far more than that in its pips and index (`tests/vision/test_vision_recall.py`).
* `DetectionMemory`: the components found in the rectified image are found again only when
  the calibration is the very one they were found under, the markers left out of the search
  lie where they lay, and no 4x4 block of the rectified image moved by more than `TILE_SAME`
  grey levels since then (any card moved, put down or taken away, a hand or a shadow does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.classify import CropReader, Recognition

__all__ = ["CROP_SAME", "TILE_SAME", "CropMemory", "DetectionMemory", "crop_signature", "tile_means"]

#: two crops read alike when no 2x2 block's mean differs by more than this many grey levels in any
#: colour (sensor noise of 2 grey levels mostly stays under it; another card differs by over 80, by 12 even blurred
#: by 2 px and at 30% contrast)
CROP_SAME = 8.0
#: a reading is kept at most this many frames after it was last used
CROP_KEEP_FRAMES = 2
#: the most readings kept
CROP_CAPACITY = 512
#: the rectified image counts as unchanged while no 4x4 block's mean moved by more than this many grey
#: levels (a card shifted by a pixel moves a block on its edge by about 30)
TILE_SAME = 6.0
#: the markers left out of the search must lie within this many rectified pixels of where they lay
OUTLINE_SAME_PX = 2.0


def crop_signature(crops: NDArray[Any]) -> NDArray[Any]:
    """``(N, H, W, C)`` uint8 crops -> ``(N, K)`` int16: each 2x2 block's sum per colour (a last odd row
    or column is left out)."""
    n, h, w = crops.shape[:3]
    c = crops[:, :h - h % 2, :w - w % 2].reshape(n, h // 2, 2, w // 2, 2, -1).astype(np.int16)
    sums: NDArray[Any] = (c[:, :, 0, :, 0] + c[:, :, 0, :, 1] + c[:, :, 1, :, 0] + c[:, :, 1, :, 1]).reshape(n, -1)
    return sums


@dataclass(slots=True)
class _Reading:
    signature: NDArray[Any]
    mean: NDArray[Any]
    recognition: Recognition
    used: int


class CropMemory:
    """Readings of the last frames' crops, by what each crop showed (see the module docstring).

    Call `next_frame` once per frame and `reset` for another table; `classify` stands in for
    ``reader.classify`` and asks the reader only about crops it has not read alike lately.
    """

    def __init__(self) -> None:
        self._frame = 0
        self._reader: object | None = None
        self._readings: dict[float, list[_Reading]] = {}
        #: crops answered from memory, and crops the reader read, since the last `reset`
        self.recalled = 0
        self.read = 0

    def reset(self) -> None:
        """Forget every reading."""
        self._readings.clear()
        self._reader = None

    def next_frame(self) -> None:
        """A new frame: readings not used in the last `CROP_KEEP_FRAMES` frames are forgotten."""
        self._frame += 1
        for key, rs in self._readings.items():
            self._readings[key] = [r for r in rs if self._frame - r.used <= CROP_KEEP_FRAMES]

    def reading(self, reader: CropReader) -> CropReader:
        """``reader`` as seen through this memory: its ``classify`` is `classify` with ``reader``."""
        return _Recalling(self, reader)

    def classify(self, reader: CropReader, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        """``reader.classify(crops, threshold)``, each crop read alike lately answered from memory."""
        if reader is not self._reader:
            self.reset()
            self._reader = reader
        n = len(crops)
        if n == 0:
            return []
        sig = crop_signature(crops)
        means = sig.reshape(n, -1, crops.shape[3]).mean(axis=1)
        known = self._readings.setdefault(threshold, [])
        out: list[Recognition | None] = [None] * n
        limit = 4 * CROP_SAME
        if known:
            kmeans = np.stack([r.mean for r in known])
            # a block-wise match implies the means match: only those are compared in full
            near = np.abs(means[:, None, :] - kmeans[None]).max(axis=2) <= limit
            for i, j in zip(*np.nonzero(near)):
                if out[i] is None and int(np.abs(sig[i] - known[j].signature).max()) <= limit:
                    out[i] = known[j].recognition
                    known[j].used = self._frame
        todo = [i for i in range(n) if out[i] is None]
        if todo:
            fresh = reader.classify(crops[todo], threshold)
            for i, r in zip(todo, fresh):
                out[i] = r
                known.append(_Reading(sig[i], means[i], r, self._frame))
            del known[:max(0, len(known) - CROP_CAPACITY)]
        self.recalled += n - len(todo)
        self.read += len(todo)
        return [r for r in out if r is not None]


class _Recalling:
    def __init__(self, memory: CropMemory, reader: CropReader) -> None:
        self.memory, self.reader = memory, reader

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        return self.memory.classify(self.reader, crops, threshold)


def tile_means(image: NDArray[Any]) -> NDArray[Any]:
    """A grey image's 4x4 block means (int16), the last partial row and column of blocks left out."""
    h, w = image.shape[:2]
    out: NDArray[Any] = cv2.resize(image[:h - h % 4, :w - w % 4], (w // 4, h // 4),
                                   interpolation=cv2.INTER_AREA).astype(np.int16)
    return out


class DetectionMemory:
    """The components last found in the rectified image, given back while it is unchanged
    (see the module docstring). Call `reset` for another table."""

    def __init__(self) -> None:
        self._calibration: object | None = None
        self._tiles: NDArray[Any] | None = None
        self._exclude: list[NDArray[Any]] = []
        self._found: list[Any] = []
        #: frames whose components were given back, and frames searched, since the last `reset`
        self.recalled = 0
        self.searched = 0

    def reset(self) -> None:
        """Forget the components last found."""
        self._calibration = None
        self._tiles = None
        self._exclude = []
        self._found = []

    def find(self, calibration: object, image: NDArray[Any], exclude: Sequence[NDArray[Any]],
             search: Callable[[], list[Any]]) -> list[Any]:
        """``search()``'s components in ``image`` (the rectified grey image under ``calibration``, with
        ``exclude`` the outlines left out), or the last ones found while nothing changed."""
        tiles = tile_means(image)
        if self._same(calibration, tiles, exclude):
            self.recalled += 1
            return list(self._found)
        found = search()
        self.searched += 1
        self._calibration, self._tiles = calibration, tiles
        self._exclude = [np.asarray(p, np.float64) for p in exclude]
        self._found = list(found)
        return found

    def _same(self, calibration: object, tiles: NDArray[Any], exclude: Sequence[NDArray[Any]]) -> bool:
        if calibration is not self._calibration or self._tiles is None or self._tiles.shape != tiles.shape:
            return False
        if len(exclude) != len(self._exclude):
            return False
        for a, b in zip(exclude, self._exclude):
            a = np.asarray(a, np.float64)
            if a.shape != b.shape or float(np.abs(a - b).max(initial=0.0)) > OUTLINE_SAME_PX:
                return False
        return int(np.abs(tiles - self._tiles).max(initial=0)) <= TILE_SAME
