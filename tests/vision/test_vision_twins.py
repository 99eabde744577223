"""Look-alikes told apart where an enrolled deck's views of them differ (`vision.twins`), on a tinted paper."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.twins import twin_score, view_matches

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


def test_each_view_is_scored_by_its_best_shifted_match_at_the_best_blur() -> None:
    rng = np.random.default_rng(3)
    art = cv2.resize(rng.integers(0, 256, (6, 6, 3), dtype=np.uint8), (48, 48), interpolation=cv2.INTER_CUBIC)
    views = np.stack([np.rot90(art, -q).copy() for q in range(4)])
    # the second view, shifted by two pixels and blurred as a board photo is
    crop = cv2.GaussianBlur(np.roll(views[1], 2, axis=1), (0, 0), 2.0)
    sharp = view_matches(crop, views, [0, 1, 2, 3])
    blurred = view_matches(crop, views, [0, 1, 2, 3], blurs=(0.0, 2.0))
    assert int(sharp.argmax()) == 1 and int(blurred.argmax()) == 1
    assert blurred[1] > sharp[1] and blurred[1] > 0.95 and max(blurred[[0, 2, 3]]) < blurred[1] - 0.2
    assert view_matches(crop, views, [2, 1]).tolist() == sharp[[2, 1]].tolist()
