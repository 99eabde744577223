"""Look-alikes told apart where an enrolled deck's views of them differ (`vision.twins`), on a tinted paper."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.twins import twin_score

#: a pink paper whose red channel the camera clips (BGR)
PAPER = (200, 190, 252)


def _card(bars: int) -> Any:
    """A 20 x 56 px strip of a card: a dark index at the top and ``bars`` value bars below it, on the pink paper."""
    art = np.zeros((56, 20, 3), np.uint8)
    art[:] = PAPER
    cv2.rectangle(art, (4, 4), (14, 12), (60, 40, 120), -1)
    for k in range(bars):
        cv2.rectangle(art, (4, 22 + 6 * k), (14, 24 + 6 * k), (60, 40, 120), -1)
    return art


def _photographed(art: Any, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(art.astype(np.float32), (0, 0), 0.5) + rng.normal(0, 2, art.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_paper_clipped_in_one_channel_is_no_glare_where_every_channel_is_asked_for() -> None:
    templates = np.stack([_photographed(_card(bars), 10 + bars) for bars in (5, 6)])
    owners = np.arange(2, dtype=np.int32)
    five = _photographed(_card(5), 3)
    # the part the two differ in (the sixth bar) shows the pink paper, its red channel clipped
    assert twin_score(five, templates, owners, 0, 1) == 0.0
    assert twin_score(five, templates, owners, 0, 1, every_channel=True) >= 0.5
    assert twin_score(_photographed(_card(6), 4), templates, owners, 0, 1, every_channel=True) <= -0.5
    glared = five.copy()
    glared[30:56] = 255  # white glare over the bars: still not told
    assert twin_score(glared, templates, owners, 0, 1, every_channel=True) == 0.0
