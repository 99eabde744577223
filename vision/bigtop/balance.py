"""A second look at gate-receipt tokens, with the camera's colour cast taken out.

A token's value is told by its numeral and its colour (the $3 token is grey, the $5 pink).
When defocus blurs the numeral away, only the colour is left, and a camera's white balance
can tint a grey token pink. The mat's paper has a known printed colour: `paper_gains`
measures the cast on it (the median colour of points of blank paper spread over the mat)
and gives the per-channel gains that take it out, and `second_look` reads each identified
token's crop again with those gains; the token stays identified only when both looks
name it and their mean confidence still reaches the threshold, or the reader identifies the
balanced crop as well (else it is unsure).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bigtop.faces import MAT_PAPER, render_mat
from vision.bigtop.labels import Kind
from vision.classify import CropReader, Recognition, Verdict
from vision.detect import Detection

__all__ = ["balanced", "paper_gains", "paper_points", "second_look"]

#: paper points sampled (table mm), and the least that must be usable for a measure
PAPER_SAMPLES = 400
MIN_PAPER_SAMPLES = 40
#: a sample counts only below this grey level in every channel (glare saturates) and above this
#: share of the samples' median brightness (a card, a chart or a hand over the paper)
SATURATED = 250
DARKER = 0.7
#: gains are kept within this factor of 1 (a measure gone wrong must not repaint the crops)
MAX_GAIN = 1.35
#: no second look while every gain is this close to 1 (no cast to take out: the crops would not change)
MIN_CAST = 0.03


@functools.lru_cache(maxsize=1)
def paper_points() -> NDArray[Any]:
    """``(PAPER_SAMPLES, 2)`` table-mm points of the mat's blank paper, at least 3 mm from any print."""
    mat = render_mat(1.0).astype(np.int16)
    blank = np.all(mat == np.array(MAT_PAPER, np.int16), axis=2).astype(np.uint8)
    blank = cv2.erode(blank, np.ones((7, 7), np.uint8))
    ys, xs = np.nonzero(blank)
    pick = np.random.default_rng(0).choice(len(xs), min(PAPER_SAMPLES, len(xs)), replace=False)
    pts: NDArray[Any] = np.stack([xs[pick], ys[pick]], 1).astype(np.float64) + 0.5
    return pts


def paper_gains(frame: NDArray[Any], table_to_image: NDArray[Any]) -> NDArray[Any]:
    """Per-channel gains (B, G, R; mean 1) that give the mat's paper its printed hue in ``frame``.

    Brightness is left alone: only the colour cast is measured. Ones when too few points of
    paper show (glare, cards or a hand over the mat, or the mat outside the frame).
    """
    pts = cv2.perspectiveTransform(paper_points()[None], np.asarray(table_to_image, np.float64))[0]
    h, w = frame.shape[:2]
    inside = (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] < w - 1) & (pts[:, 1] < h - 1)
    ones = np.ones(3)
    if frame.ndim != 3 or int(inside.sum()) < MIN_PAPER_SAMPLES:
        return ones
    px = np.rint(pts[inside]).astype(np.int64)
    colours = frame[px[:, 1], px[:, 0]].astype(np.float64)
    colours = colours[colours.max(axis=1) < SATURATED]
    if len(colours) < MIN_PAPER_SAMPLES:
        return ones
    lum = colours.mean(axis=1)
    colours = colours[lum > DARKER * np.median(lum)]
    if len(colours) < MIN_PAPER_SAMPLES:
        return ones
    seen = np.maximum(np.median(colours, axis=0), 1.0)
    gains = np.array(MAT_PAPER, np.float64) / seen
    gains /= gains.mean()
    if gains.max() > MAX_GAIN or gains.min() < 1 / MAX_GAIN:
        return ones
    out: NDArray[Any] = gains
    return out


def balanced(crops: NDArray[Any], gains: NDArray[Any]) -> NDArray[Any]:
    """``(N, H, W, 3)`` uint8 BGR crops with each channel multiplied by its gain."""
    out: NDArray[Any] = np.clip(np.rint(crops.astype(np.float32) * np.asarray(gains, np.float32)), 0,
                                255).astype(np.uint8)
    return out


def second_look(reader: CropReader, crops: NDArray[Any], detections: Sequence[Detection],
                recognitions: Sequence[Recognition], gains: NDArray[Any], threshold: float) -> list[Recognition]:
    """``recognitions`` with every identified token read again from its colour-balanced crop.

    The token stays identified (at the mean of the two confidences) only when the second look
    names the same token and either that mean reaches ``threshold`` or the reader identifies the
    balanced crop too (an enrolled deck, whose confidence is not a probability); else it becomes unsure.
    Other recognitions, and all when every gain is within `MIN_CAST` of 1, are returned as they are.
    """
    out = list(recognitions)
    todo = [i for i, (d, r) in enumerate(zip(detections, recognitions))
            if d.kind is Kind.TOKEN and r.verdict is Verdict.IDENTIFIED]
    if not todo or float(np.max(np.abs(np.asarray(gains) - 1.0))) < MIN_CAST:
        return out
    again = reader.classify(balanced(crops[todo], gains), threshold)
    for i, r2 in zip(todo, again):
        r = out[i]
        mean = (r.confidence + r2.confidence) / 2 if r2.best == r.best else r.confidence / 2
        # an enrolled deck's confidence is on another scale than the model's: its own verdict counts
        keep = r2.best == r.best and (mean >= threshold or r2.verdict is Verdict.IDENTIFIED)
        out[i] = Recognition(Verdict.IDENTIFIED if keep else Verdict.UNSURE, r.best, mean)
    return out
