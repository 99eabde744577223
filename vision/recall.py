"""Live frames: what the last frames' work can spare the next one, while nothing changed.

A referee watches one table for minutes and most of it stays still from frame to frame.
Two memories keep the work of the last frames and give it back only where the frame shows
the same thing within sensor noise; each has one rule, and every part of the frame that
changed is worked out afresh:

* `CropMemory`: a crop that matches one the reader read within the last frames (every
  2x2 block's mean within `CROP_SAME` grey levels in each colour, less for a faint crop
  (`crop_tolerance`), compared with the crop as it was when it was read, never with a later copy, so slow drift cannot add up) gets that
  reading again. A card swapped for another, even one of the same suit and colour, differs
  by far more than that in its pips and index (`tests/vision/test_vision_recall.py`).
* `FrameMemory`: the markers, calibration, charts, rectified image and components found in
  a frame are given back for a later frame only while no 4x4 block of the grey camera frame
  moved by more than `TILE_SAME` grey levels since that frame (any card moved, put down or
  taken away, a hand or a shadow does; so does the camera or the table moving). When the
  frame changed but the calibration did not, components are searched afresh only near the
  4x4 blocks of the rectified image that moved by more than `TILE_SAME` since they were last
  searched (`vision.detect.find_components_near`), and kept from before elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import BLOCK, Calibration, ChartPose, Marker, Rectified, block_means
from vision.classify import CropReader, Recognition
from vision.detect import Detection

__all__ = ["CONFIRMATIONS", "CROP_SAME", "CROP_SAME_SHARE", "TILE", "TILE_SAME", "CropMemory", "FrameMemory", "Seen",
           "crop_signature", "crop_tolerance", "tile_means"]

#: two crops read alike when no 2x2 block's mean differs by more than this many grey levels in any
#: colour (sensor noise of 2 grey levels mostly stays under it; another card differs by over 80, by 28 even blurred
#: by 2 px, by 8 at 30% contrast: see `CROP_SAME_SHARE`)
CROP_SAME = 8.0
#: and, for a faint crop (a dark or blurred table), within this share of the range of its blocks' means (the
#: crop as it was read): two Big Top cards differ by at least 0.18 of their range blurred by 2 px at any contrast
#: (face print 2's 2 and 3, tests/vision/test_vision_recall.py), so a faint crop is recalled only well under that
CROP_SAME_SHARE = 0.08
#: a reading or a frame's search is given back only once fresh ones agreed with it in this many frames
#: in a row (as many as the referee's stabiliser wants the same sighting in still frames, so it still
#: sees that many readings made afresh before it takes one)
CONFIRMATIONS = 3
#: a reading is kept at most this many frames after it was last used
CROP_KEEP_FRAMES = 2
#: the most readings kept
CROP_CAPACITY = 512
#: a camera frame counts as unchanged while no 4x4 block's mean moved by more than this many grey levels
#: (sensor noise of 2 grey levels moves them by 3 at most; a card shifted by a pixel moves a block on its
#: edge by about 30)
TILE_SAME = 6.0
#: the side of those blocks (px)
TILE = BLOCK
#: a marker left out of the search lies where it lay within this many rectified pixels (blur and noise move
#: a marker's outline by up to 3; nothing is found on a marker)
OUTLINE_SAME_PX = 5.0
#: two searches found the same components when each lies within this many rectified pixels of one in the other
FOUND_SAME_PX = 1.5


def crop_signature(crops: NDArray[Any]) -> NDArray[Any]:
    """``(N, H, W, C)`` uint8 crops -> ``(N, K)`` int16: each 2x2 block's mean per colour, rounded (a last odd
    row or column is left out)."""
    n, h, w = crops.shape[:3]
    h2, w2 = h // 2, w // 2
    if n == 0 or h2 == 0 or w2 == 0:
        return np.zeros((n, 0), np.int16)
    # one resize of the crops stacked: a block never spans two crops, as each crop's height is even
    stacked = np.ascontiguousarray(crops[:, :2 * h2, :2 * w2]).reshape(n * 2 * h2, 2 * w2, -1)
    means = cv2.resize(stacked, (w2, n * h2), interpolation=cv2.INTER_AREA)
    out: NDArray[Any] = means.reshape(n, -1).astype(np.int16)
    return out


def crop_tolerance(signatures: NDArray[Any]) -> NDArray[Any]:
    """How far (grey levels) a crop may differ block by block from each of ``signatures`` (`crop_signature`'s rows)
    and still be read alike: `CROP_SAME`, or `CROP_SAME_SHARE` of a faint crop's range of block means."""
    if signatures.shape[-1] == 0:
        return np.full(signatures.shape[:-1], CROP_SAME)
    spread = signatures.max(axis=-1).astype(np.float64) - signatures.min(axis=-1)
    out: NDArray[Any] = np.minimum(CROP_SAME, CROP_SAME_SHARE * spread)
    return out


@dataclass(slots=True)
class _Reading:
    signature: NDArray[Any]
    mean: NDArray[Any]
    recognition: Recognition
    used: int
    #: fresh readings of alike crops that agreed with it, one a frame at most, and the last frame of one
    agreed: int = 1
    agreed_in: int = 0
    #: how far a crop may differ from `signature` block by block and be read alike (`crop_tolerance`)
    allowed: float = CROP_SAME


class CropMemory:
    """Readings of the last frames' crops, by what each crop showed (see the module docstring).

    Call `next_frame` once per frame and `reset` for another table; `classify` stands in for
    ``reader.classify`` and asks the reader only about crops it has not read alike, with the same
    answer, in `CONFIRMATIONS` frames in a row lately.
    """

    def __init__(self) -> None:
        self._frame = 0
        self._reader: object | None = None
        self._readings: dict[tuple[float, str], list[_Reading]] = {}
        #: crops answered from memory, and crops the reader read (counts that `reset` leaves)
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

    def reading(self, reader: CropReader, look: str = "") -> CropReader:
        """``reader`` as seen through this memory: its ``classify`` is `classify` with ``reader`` and ``look``."""
        return _Recalling(self, reader, look)

    def classify(self, reader: CropReader, crops: NDArray[Any], threshold: float, look: str = "") -> list[Recognition]:
        """``reader.classify(crops, threshold)``, each crop read alike and confirmed lately answered from memory.

        A crop alike a reading that fresh readings of alike crops confirmed in `CONFIRMATIONS` frames
        gets that reading; any other is read, and confirms the reading it is alike (the same
        verdict and label, in a later frame) or takes its place. ``look`` names the kind of crops
        (the camera's, or retouched ones such as colour-balanced crops): a crop is answered only
        from readings of its own kind and threshold.
        """
        if reader is not self._reader:
            self.reset()
            self._reader = reader
        n = len(crops)
        if n == 0:
            return []
        sig = crop_signature(crops)
        means = sig.reshape(n, -1, crops.shape[3]).mean(axis=1)
        known = self._readings.setdefault((threshold, look), [])
        nearest: list[_Reading | None] = [None] * n
        if known:
            kmeans = np.stack([r.mean for r in known])
            # a block-wise match implies the means match: only those are compared in full
            ii, jj = np.nonzero(np.abs(means[:, None, :] - kmeans[None]).max(axis=2) <= CROP_SAME)
            if len(ii):
                ksig = np.stack([known[j].signature for j in jj])
                diff = np.abs(sig[ii] - ksig).max(axis=1)
                allowed = np.array([known[j].allowed for j in jj])
                order = np.lexsort((diff, ii))  # each crop's nearest reading first
                for i, j, d, a in zip(ii[order].tolist(), jj[order].tolist(), diff[order].tolist(),
                                      allowed[order].tolist()):
                    if nearest[i] is None and d <= a:
                        nearest[i] = known[j]
        out: list[Recognition | None] = [None] * n
        for i, k in enumerate(nearest):
            if k is not None and k.agreed >= CONFIRMATIONS:
                out[i] = k.recognition
                k.used = self._frame
        todo = [i for i in range(n) if out[i] is None]
        if todo:
            for i, r in zip(todo, reader.classify(crops[todo], threshold)):
                out[i] = r
                k = nearest[i]
                if k is not None and (k.recognition.verdict, k.recognition.best) == (r.verdict, r.best):
                    if k.agreed_in != self._frame:
                        k.agreed += 1
                        k.agreed_in = self._frame
                    k.used = self._frame
                elif k is not None:
                    k.signature, k.mean, k.recognition = sig[i], means[i], r
                    k.allowed = float(crop_tolerance(sig[i]))
                    k.used, k.agreed, k.agreed_in = self._frame, 1, self._frame
                else:
                    known.append(_Reading(sig[i], means[i], r, self._frame, 1, self._frame,
                                          float(crop_tolerance(sig[i]))))
            del known[:max(0, len(known) - CROP_CAPACITY)]
        self.recalled += n - len(todo)
        self.read += len(todo)
        return [r for r in out if r is not None]


class _Recalling:
    def __init__(self, memory: CropMemory, reader: CropReader, look: str) -> None:
        self.memory, self.reader, self.look = memory, reader, look

    def classify(self, crops: NDArray[Any], threshold: float) -> list[Recognition]:
        return self.memory.classify(self.reader, crops, threshold, self.look)


#: a grey image's `TILE` x `TILE` block means (int16; `vision.calibrate.block_means`)
tile_means = block_means


@dataclass(slots=True)
class Seen:
    """What one frame's search found: its markers, calibration, charts and rectified image, and (once
    searched) the components in that image."""

    markers: tuple[Marker, ...]
    calibration: Calibration
    charts: dict[int, ChartPose]
    rectified: Rectified
    found: list[Detection] | None = None
    #: the markers' outlines left out of that search, and the rectified image's 4x4 block means as they
    #: were when each block's components were last searched
    outlines: list[NDArray[Any]] | None = None
    tiles: NDArray[Any] | None = None
    #: frames in a row whose searches, of frames alike, found these components afresh
    confirmed: int = 0
    #: the blocks whose components were confirmed so (`CONFIRMATIONS`) and not searched since
    trusted: NDArray[Any] | None = None


class FrameMemory:
    """The last frame searched, given back while the camera frame is unchanged and its search was
    confirmed (see the module docstring). Call `reset` for another table."""

    def __init__(self) -> None:
        self._tiles: NDArray[Any] | None = None
        self._seen: Seen | None = None
        self._before: Seen | None = None
        self._pending: NDArray[Any] | None = None
        self._alike = False
        #: the 4x4 block means of the grey frame last given to `recall`
        self.frame_tiles: NDArray[Any] | None = None
        #: frames given back, frames searched, and of those searched only near what changed (counts
        #: that `reset` leaves)
        self.recalled = 0
        self.searched = 0
        self.near = 0

    def reset(self) -> None:
        """Forget the last frame searched."""
        self._tiles = self._seen = self._before = self._pending = None
        self._alike = False

    def recall(self, gray: NDArray[Any]) -> Seen | None:
        """The last frame's `Seen` when the grey camera frame ``gray`` shows the same within noise as
        the frame it came from and `CONFIRMATIONS` searches in a row found the same there, else None
        (then `remember` this frame's)."""
        tiles = self.frame_tiles = tile_means(gray)
        last = self._tiles
        self._alike = (self._seen is not None and last is not None and last.shape == tiles.shape
                       and int(np.abs(tiles - last).max(initial=0)) <= TILE_SAME)
        if self._alike and self._seen is not None and self._seen.confirmed >= CONFIRMATIONS:
            self.recalled += 1
            self._pending = None
            return self._seen
        self._pending = tiles
        return None

    def remember(self, seen: Seen) -> None:
        """Keep ``seen``, found in the frame last given to `recall`, which did not give one back."""
        if self._pending is None:
            return
        self._tiles, self._before, self._seen, self._pending = self._pending, self._seen, seen, None
        self.searched += 1

    def components(self, seen: Seen, outlines: list[NDArray[Any]], search: Callable[[], list[Detection]],
                   search_near: Callable[[NDArray[Any], list[Detection]], tuple[list[Detection], NDArray[Any]]],
                   ) -> list[Detection]:
        """The components in ``seen`` (just remembered), ``outlines`` left out of the search.

        ``search()`` finds them afresh in the whole image. When the frame changed since the frame
        searched before it, under the same calibration, ``search_near(changed, found)`` searches
        afresh only near the 4x4 blocks of the rectified image in ``changed`` (those that moved by
        more than `TILE_SAME` grey levels since they were last searched, those under a marker's
        outline found in one frame only, and every block not confirmed) and keeps the components
        then found elsewhere; it returns the components and the map of blocks it searched afresh.
        """
        tiles = tile_means(seen.rectified.image)
        last = self._before
        same = (last is not None and last is not seen and last.found is not None and last.tiles is not None
                and last.outlines is not None and last.calibration is seen.calibration
                and last.tiles.shape == tiles.shape)
        if same and last is not None and last.found is not None and last.tiles is not None and self._alike:
            # the same scene as the frame before, searched again to confirm it
            found = search()
            seen.tiles = tiles
            seen.confirmed = last.confirmed + 1 if _same_found(found, last.found) else 1
            seen.trusted = np.ones(tiles.shape, bool) if seen.confirmed >= CONFIRMATIONS else None
        elif (same and last is not None and last.found is not None and last.tiles is not None
              and last.trusted is not None and last.trusted.any()):
            changed = (np.abs(tiles - last.tiles) > TILE_SAME) | ~last.trusted
            changed |= _moved_outlines(outlines, last.outlines or [], tiles.shape)
            found, near = search_near(changed, last.found)
            seen.tiles = np.where(near, tiles, last.tiles)
            seen.confirmed = 1
            seen.trusted = last.trusted & ~near
            self.near += 1
        else:
            found = search()
            seen.tiles, seen.confirmed, seen.trusted = tiles, 1, None
        seen.outlines = [np.asarray(p, np.float64) for p in outlines]
        seen.found = found
        return found


def _same_found(a: list[Detection], b: list[Detection]) -> bool:
    """Whether two searches found the same components: as many, each of one kind with one of the other
    within `FOUND_SAME_PX` of its centre."""
    if len(a) != len(b):
        return False
    if not a:
        return True
    ca = np.array([d.centre for d in a], np.float64)
    cb = np.array([d.centre for d in b], np.float64)
    near = np.abs(ca[:, None, :] - cb[None]).max(axis=2) <= FOUND_SAME_PX
    near &= np.array([d.kind for d in a], object)[:, None] == np.array([d.kind for d in b], object)[None]
    # one to one: every component has a partner, and no partner serves two
    return bool(near.any(axis=1).all() and near.any(axis=0).all() and (near.sum(axis=1) == 1).all()
                and (near.sum(axis=0) == 1).all())


def _moved_outlines(a: list[NDArray[Any]], b: list[NDArray[Any]], shape: tuple[int, ...]) -> NDArray[Any]:
    """The blocks under every outline of ``a`` with none of ``b`` where it lies, and the other way round."""
    out = np.zeros(shape, bool)
    for ps, qs in ((a, b), (b, a)):
        for p in _unmatched([np.asarray(p, np.float64) for p in ps], [np.asarray(q) for q in qs]):
            x0, y0 = np.floor(p.min(axis=0) / TILE).astype(int) - 1
            x1, y1 = np.ceil(p.max(axis=0) / TILE).astype(int) + 1
            out[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = True
    return out


def _unmatched(ps: list[NDArray[Any]], qs: list[NDArray[Any]]) -> list[NDArray[Any]]:
    """The outlines of ``ps`` with none of ``qs`` of their shape within `OUTLINE_SAME_PX` at every point
    (all pairs of one shape compared at once)."""
    out: list[NDArray[Any]] = []
    for form in {p.shape for p in ps}:
        mine = [p for p in ps if p.shape == form]
        theirs = [q for q in qs if q.shape == form]
        if not theirs or not mine[0].size:
            out.extend(p for p in mine if not theirs or not any(
                float(np.abs(p - q).max(initial=0.0)) <= OUTLINE_SAME_PX for q in theirs))
            continue
        pa = np.stack(mine).reshape(len(mine), 1, -1)
        qa = np.stack(theirs).reshape(1, len(theirs), -1)
        near = (np.abs(pa - qa).max(axis=2) <= OUTLINE_SAME_PX).any(axis=1)
        out.extend(p for p, n in zip(mine, near.tolist()) if not n)
    return out
