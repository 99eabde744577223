"""A second look at the crop of a place under a glare spot, with the glare's light taken out.

A glare spot adds light: in linear light the camera sees the card plus a smooth field, clipped
at white. Every Big Top card face has, everywhere, some dark ink or a deep colour that leaves
one channel low (a blue face has little red, a yellow one little blue), so the darkest channel's
local minimum, smoothed, measures the added field (`glare_field`); taking it out and
stretching what is left back to full range (`deglared`) brings back a numeral the glare
had faded, though never one it saturated. A place's crop the reader could not identify is
read again so (`second_look`) when the field is strong enough to matter (`MIN_GLARE`); the
second reading counts only when the reader identifies it, blur allowing
(`vision.bigtop.pipeline.allowing_for_blur`), and the first reading named no other component.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bigtop.labels import NONE
from vision.classify import CropReader, Recognition, Verdict

__all__ = ["GLARE_SIGMA", "GLARE_WINDOW", "MIN_GLARE", "deglared", "glare_field", "second_look"]

#: the local minimum is taken over this many crop pixels (a 40 x 56 crop: wider than a numeral's stroke) ...
GLARE_WINDOW = 7
#: ... and smoothed by this much (px): a glare spot's light varies slowly across a card
GLARE_SIGMA = 3.0
#: a crop is read again only where the glare adds at least this much light somewhere (linear light, 1 = white)
MIN_GLARE = 0.15
#: the field taken out is capped here: where glare saturates, nothing of the card is left to bring back
MAX_GLARE = 0.95
#: the camera's tone curve, as sRGB's near enough
GAMMA = 2.2
#: every uint8 level in linear light, as ``(level / 255) ** GAMMA`` in float32 gives it (read only)
_LINEAR = (np.arange(256, dtype=np.uint8).astype(np.float32) / 255.0) ** GAMMA
_LINEAR.flags.writeable = False


def glare_field(crop: NDArray[np.uint8]) -> NDArray[np.float32]:
    """``(H, W)``: the light (linear, 1 = white) a glare spot adds over a ``(H, W, 3)`` uint8 BGR crop."""
    return _field(_linear(crop))


def _linear(crop: NDArray[np.uint8]) -> NDArray[np.float32]:
    """``(crop / 255) ** GAMMA`` in float32, looked up per grey level (`_LINEAR`)."""
    out: NDArray[np.float32] = _LINEAR[crop]
    return out


def _field(lin: NDArray[np.float32]) -> NDArray[np.float32]:
    """`glare_field` of a crop in linear light."""
    low = cv2.erode(lin.min(axis=2), np.ones((GLARE_WINDOW, GLARE_WINDOW), np.uint8))
    field: NDArray[np.float32] = np.minimum(cv2.GaussianBlur(low, (0, 0), GLARE_SIGMA), MAX_GLARE)
    return field


def deglared(crops: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """``(N, H, W, 3)`` uint8 crops with their `glare_field` taken out, what is left stretched back to full range."""
    out = np.empty_like(crops)
    for i, c in enumerate(crops):
        lin = _linear(c)
        g = _field(lin)[:, :, None]
        clean = np.clip((lin - g) / (1.0 - g), 0.0, 1.0)
        out[i] = np.clip(255.0 * clean ** (1 / GAMMA) + 0.5, 0, 255).astype(np.uint8)
    return out


def second_look(reader: CropReader, crops: NDArray[np.uint8], recognitions: list[Recognition], threshold: float,
                blur_check: Callable[[NDArray[np.uint8], list[Recognition]], list[Recognition]],
                ) -> list[Recognition]:
    """``recognitions``, each crop not identified whose `glare_field` reaches `MIN_GLARE` read again `deglared`:
    it takes the second reading when ``reader`` identifies that, ``blur_check`` (crops, readings) keeps it
    identified, and the first reading's best guess was no other component (nothing, or the same)."""
    out = list(recognitions)
    todo = [i for i, r in enumerate(out) if r.verdict is not Verdict.IDENTIFIED
            and float(glare_field(crops[i]).max()) >= MIN_GLARE]
    if not todo:
        return out
    again = deglared(crops[todo])
    for i, r2 in zip(todo, blur_check(again, reader.classify(again, threshold))):
        if r2.verdict is Verdict.IDENTIFIED and out[i].best in (NONE, r2.best):
            out[i] = r2
    return out
