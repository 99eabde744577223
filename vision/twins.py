"""Look-alikes told apart by an enrolled deck's views (`vision.enroll`): two components that differ only in a
small part of their face (a city with or without a pennant; a flea card and its neighbour in value, whose index and
value bars alone differ), which the deck's whole-face tests find about as near.

Only that part is compared: the view of component ``a`` that matches the crop best (shifted by up to `SHIFT` of its
width), the view of ``b`` most like it, the pixels where those two views differ most (`MASK_SHARE` of their largest
difference, `MASK_BLUR` smoothed) and, there, which of them the crop is nearer (`twin_score`). The same is done from
``b``'s best view, and the two readings averaged. A crop that matches neither component's views (`VIEW_MATCH`), or
whose differing part is blown out by glare (`GLARE`, `GLARE_SHARE`), is not told (0).

A blurred photo lies about as far from both components' sharp views on a small differing part (a pennant a few
pixels across), so the comparison may be asked to blur the views alike (``blurs``): each view is taken at the blur of
those that matches the crop best, and both views are compared at that blur.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.enroll import flattened

__all__ = ["twin_score", "view_matches"]

#: a view is matched to the crop shifted by up to this share of its side each way
SHIFT = 0.075
#: the views' best match with the crop must reach this (normalised correlation), else the twins are not told
VIEW_MATCH = 0.4
#: the differing part: where the two views' smoothed difference is at least this share of its largest
MASK_SHARE = 0.5
MASK_BLUR = 1.0
#: a pixel this bright (0-255) in any channel is blown out (with ``every_channel``, in every channel: a tinted paper's
#: brightest channel clips where glare does not lie); a differing part more than `GLARE_SHARE` blown out is not told
GLARE = 245
GLARE_SHARE = 0.2

#: the last few template sets and blurs and their flattened views, latest last (the templates held, so another deck
#: is never taken for them): a deck's whole views and those cut to a part of it alternate, each at every blur asked
#: (a Flohcati card's whole face, its strip and two corner parts at five blurs)
_cache: list[tuple[Any, float, NDArray[Any]]] = []
_CACHED = 20


def _views(templates: NDArray[Any], blur: float = 0.0) -> NDArray[Any]:
    """The templates flattened (`vision.enroll.flattened`), each first blurred by ``blur`` (Gaussian sigma, pixels)."""
    for held, sigma, views in _cache:
        if held is templates and sigma == blur:
            return views
    views = np.stack([flattened(cv2.GaussianBlur(t.astype(np.float32), (0, 0), blur) if blur > 0 else t.astype(np.float32))
                      for t in templates])
    _cache[:] = _cache[-(_CACHED - 1):] + [(templates, blur, views)]
    return views


def _best(image: NDArray[Any], views: NDArray[Any], which: NDArray[np.intp], m: int) -> tuple[float, int, tuple[int, int]]:
    """The best match of the inner part (``m`` pixels in) of ``views[which]`` over ``image``: score, view, place."""
    best: tuple[float, int, tuple[int, int]] = (-2.0, -1, (0, 0))
    for j in which:
        res = cv2.matchTemplate(image, views[j][m:-m, m:-m], cv2.TM_CCOEFF_NORMED)
        _, val, _, loc = cv2.minMaxLoc(res)
        if val > best[0]:
            best = (float(val), int(j), (int(loc[0]), int(loc[1])))
    return best


def _one_way(cell: NDArray[Any], raw: NDArray[Any], blurred: Sequence[NDArray[Any]], owners: NDArray[Any], a: int,
             b: int, m: int, every_channel: bool = False) -> float | None:
    """From ``a``'s best view (of the views at each blur, ``blurred``): -1 (the crop is ``b``) to 1 (it is ``a``) on
    the part where that view and ``b``'s most like it at the same blur differ; None where the crop is not told."""
    score, ja, (sx, sy), views = -2.0, -1, (0, 0), blurred[0]
    for some in blurred:
        found = _best(cell, some, np.flatnonzero(owners == a), m)
        if found[0] > score:
            (score, ja, (sx, sy)), views = found, some
    if score < VIEW_MATCH:
        return None
    _, jb, (bx, by) = _best(views[ja], views, np.flatnonzero(owners == b), m)
    h, w = views.shape[1] - 2 * m, views.shape[2] - 2 * m
    # b's inner part lies at (bx, by) in a's view, and a's inner part at (sx, sy) in the crop
    ox, oy = sx - m + bx, sy - m + by
    if not (0 <= ox <= 2 * m and 0 <= oy <= 2 * m):
        return None
    mine = views[ja][by:by + h, bx:bx + w]
    theirs = views[jb][m:-m, m:-m]
    seen = cell[oy:oy + h, ox:ox + w]
    differ = cv2.GaussianBlur(np.abs(mine - theirs).sum(axis=2), (0, 0), MASK_BLUR)
    part = differ >= MASK_SHARE * float(differ.max())
    seen_raw = raw[oy:oy + h, ox:ox + w]
    blown = (seen_raw.min(axis=2) if every_channel else seen_raw.max(axis=2)) >= GLARE
    if float(differ.max()) <= 0 or blown[part].mean() > GLARE_SHARE:
        return None
    off_a = float(((seen - mine) ** 2)[part].sum())
    off_b = float(((seen - theirs) ** 2)[part].sum())
    return (off_b - off_a) / (off_a + off_b + 1e-9)


def twin_score(crop: NDArray[Any], templates: NDArray[Any], owners: NDArray[Any], a: int, b: int,
               every_channel: bool = False, blurs: Sequence[float] = (0.0,), from_a_only: bool = False) -> float:
    """How surely ``crop`` (cut as the deck's ``templates`` are) shows label ``a`` rather than its look-alike ``b``
    (labels as ``owners`` numbers the ``templates``): -1 (surely ``b``) to 1 (surely ``a``); 0 where it is not told
    (see the module text). ``every_channel``: glare is a pixel blown out in every channel (see `GLARE`). ``blurs``:
    the views are compared at the one of these blurs (Gaussian sigma, pixels) at which they match the crop best.
    ``from_a_only``: only from ``a``'s best view (where ``b`` looks the same in every turn, its best view says
    nothing of which turn of ``a`` to compare it with)."""
    blurred = [_views(templates, float(s)) for s in blurs]
    m = max(1, round(SHIFT * blurred[0].shape[2]))
    cell = flattened(np.asarray(crop, np.float32))
    there = _one_way(cell, crop, blurred, owners, a, b, m, every_channel)
    if from_a_only:
        return 0.0 if there is None else there
    back = _one_way(cell, crop, blurred, owners, b, a, m, every_channel)
    if there is None or back is None:
        return 0.0
    return 0.5 * (there - back)


def view_matches(crop: NDArray[Any], templates: NDArray[Any], which: Sequence[int],
                 blurs: Sequence[float] = (0.0,)) -> NDArray[Any]:
    """For each of the views ``which`` (indices into ``templates``, cut as ``crop`` is), how well it matches ``crop``:
    its inner part's best normalised correlation with the flattened crop, shifted by up to `SHIFT` of its side each
    way, at the best of ``blurs`` (Gaussian sigma of the views, pixels)."""
    blurred = [_views(templates, float(s)) for s in blurs]
    m = max(1, round(SHIFT * blurred[0].shape[2]))
    cell = flattened(np.asarray(crop, np.float32))
    out = np.full(len(which), -1.0)
    for views in blurred:
        for k, j in enumerate(which):
            res = cv2.matchTemplate(cell, views[j][m:-m, m:-m], cv2.TM_CCOEFF_NORMED)
            out[k] = max(out[k], float(res.max()))
    return out
