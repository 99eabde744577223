"""One camera frame of a Circus Grandioso table -> `GrandiosoView`.

Stages: the ArUco markers of the frame (`vision.calibrate.find_markers`), the
mat's homography from its six markers, then every card code mapped onto the
mat. A face code in the pyramid area names the card at the pyramid place under
it (row from its height, column from its offset from the start spot); a back
code in the singles row is a face-down single; the stack's place is watched.

Unsure means unrecognised, never a guess: a code whose size, turn or place
does not fit a card lying on a pyramid place is reported. Every place where a
card could lie (the start spot, beside a base card, on two cards) and that
shows no code read is looked at closely, at the place the layout says, moved
by as much as the codes read nearby lie off (the lens's barrel distortion): a
card's code is matched there as it is, with smooth glare taken out, and, when
neither names a card clearly, against every code blurred (a blurred lens or a
moving camera smears the code's cells past the sharp templates); a place
whose upper half shows the mat holds no card (as dark as the mat; with an
enrolled deck, whose faces may be as dark, as flat as the mat or of its hue and
nearly as flat); a code-like thing that matches no
card clearly, or glare over the place, is read once more with the light evened
out (`vision.codematch.local_contrast`: glare that washes a code out without
saturating it leaves its cells' pattern) and named only when every light
evened out that names a card names the same one with a clear lead; else it is
reported unrecognised; but a place that lies on one this frame shows empty
(the mat, so no card may lie on it) is not asked about when its code cannot be
seen, nor a place under glare whose upper half shows no print where the glare
leaves it unsaturated (glare adds smooth light: the bare mat under it stays
flat; a card's name band, words and frame do not) or shows the mat itself
(pixels as dark as the mat and of its hue: no card's paper or print). Where
no code read nearby says how far the lens moves a place (a blurred frame whose
codes none decode), its code is searched for twice as far. A place under a
card read or asked about above it that shows no code read is asked about: a
card lies there, whatever its look. The fast
marker search runs first; the slow, tolerant one searches the whole frame only
when the fast one's markers do not fix the mat, and when neither decodes enough
of them, the undecoded squares are matched against the dictionary's codes,
blurred (`vision.codematch`), a mat marker taken only with a clear lead.

The singles row: each card back whose code is read or matched counts; every
other numbered place is compared whole with a card back over its pixels that
glare does not saturate. A place that clearly shows the bare row is empty; a
card back partly under glare counts when its unglared part and the unglared
part of its code both match a back, or when, with the light evened out, its
code matches the back's clearly (glare that washes a code out without
saturating it leaves its cells' pattern); a place under glare that shows no
print where the glare leaves it unsaturated is empty; any other place (glare
over most of it) is reported unrecognised, never counted nor left out.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.core import UnknownComponent
from scorer.grandioso.pyramid import ROWS, Card
from vision import NoMatError
from vision.calibrate import (
    Calibration,
    FrameBlur,
    Marker,
    block_means,
    find_markers,
    looks_same,
    mat_homography,
    sharpen_sigma,
)
from vision.codematch import (
    CodeTemplates,
    PatchMatch,
    code_templates,
    local_contrast,
    mat_markers_by_matching,
    match_patch,
)
from vision.config import VisionConfig
from vision.geometry import Image
from vision.grandioso import CONFIG
from vision.grandioso.layout import (
    ARUCO_DICT,
    BACK_ID,
    CARD,
    CARD_IDS,
    CODE_SIZE,
    COLUMNS,
    MAT,
    SINGLE_INSET,
    SINGLE_PITCH,
    card_of_id,
    code_centre,
)

__all__ = ["GrandiosoView", "Recognizer", "Result", "Unrecognised", "annotate"]

#: a code's side may differ this much (fraction) from the printed side
_SIZE_TOLERANCE = 0.25
#: ... and be turned at most this much (degrees)
_MAX_TURN = 25.0
#: a face code lies on a pyramid place when this close (mm) to its code's centre
_PLACE_TOLERANCE = (11.0, 9.0)


@dataclass(frozen=True, slots=True)
class Unrecognised:
    """Something where a card belongs that could not be identified: its place and why.

    ``unread``: a card may lie at the pyramid place but its code cannot be seen (glare, a code that
    cannot be read); a card that lies there already (the game never takes one away) is that card.
    ``places``: the singles row's places (from 1) that are unclear: a face-down single may lie there.
    """

    where: str
    why: str
    row: int | None = None
    col: int | None = None
    unread: bool = False
    places: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GrandiosoView:
    """What the camera sees on the mat.

    ``pyramid`` maps each engine place ``(row, col)`` to the card read there;
    ``singles`` is how many face-down singles lie in the singles row, and
    ``single_xs`` their x positions (mm) from left to right; ``loose`` the face-up
    cards lying elsewhere on the mat (a card just drawn, shown).
    """

    pyramid: dict[tuple[int, int], Card]
    singles: int
    single_xs: tuple[float, ...]
    stack: bool
    loose: tuple[Card, ...]
    unrecognised: tuple[Unrecognised, ...]
    #: the card lying face up on the stack's place (a card just drawn), None when none does
    shown: Card | None = None

    @property
    def single_places(self) -> tuple[int, ...]:
        """The numbered places (from 1) of the singles row that hold a card, ascending."""
        first = MAT.singles.x + SINGLE_INSET + CARD.width / 2
        return tuple(sorted({round((x - first) / SINGLE_PITCH) + 1 for x in self.single_xs}))

    def to_json(self) -> dict[str, Any]:
        """The view as JSON: pyramid places, singles, stack, loose cards, what could not be read."""
        return {
            "pyramid": [{"row": r, "col": c, "card": card.notation}
                        for (r, c), card in sorted(self.pyramid.items())],
            "singles": self.singles,
            "single_places": list(self.single_places),
            "stack": self.stack,
            "shown": None if self.shown is None else self.shown.notation,
            "loose": [c.notation for c in self.loose],
            "unrecognised": [{"where": u.where, "why": u.why} for u in self.unrecognised],
        }

    def describe(self) -> str:
        """The view in words, top row of the pyramid first."""
        lines = []
        for row in sorted({r for r, _ in self.pyramid}, reverse=True):
            cards = [f"{c}:{self.pyramid[row, c].label}" for r, c in sorted(self.pyramid) if r == row]
            lines.append(f"row {row + 1}: " + ", ".join(cards))
        if not lines:
            lines.append("pyramid: no card")
        lines.append(f"face-down singles: {self.singles} (places {', '.join(map(str, self.single_places)) or '-'}); "
                     f"stack: {'yes' if self.stack else 'no'}")
        if self.shown is not None:
            lines.append(f"face up on the stack: {self.shown.label}")
        if self.loose:
            lines.append("face up elsewhere: " + ", ".join(c.label for c in self.loose))
        lines += [f"unrecognised: {u.where}: {u.why}" for u in self.unrecognised]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class StageTimes:
    """Milliseconds spent per stage of one frame."""

    markers: float = 0.0
    calibrate: float = 0.0
    cards: float = 0.0
    robust: float = 0.0


@dataclass(frozen=True, slots=True)
class Result:
    """One recognised frame: the view, the calibration, the card markers used and the stage times."""

    view: GrandiosoView
    calibration: Calibration
    markers: tuple[Marker, ...]
    times: StageTimes = field(default_factory=StageTimes)


def _to_table(cal: Calibration, pts: NDArray[Any]) -> NDArray[Any]:
    return np.asarray(cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(1, -1, 2), cal.image_to_table)[0])


def _place_name(row: int, col: int) -> str:
    return f"row {row + 1} ({Card(row).label}s), place {col:+d}"


class _Reading:
    """The card codes of one frame, sorted into places."""

    def __init__(self) -> None:
        self.pyramid: dict[tuple[int, int], Card] = {}
        self.singles: list[float] = []
        self.stack = False
        self.loose: list[Card] = []
        self.shown: list[Card] = []
        #: where (table mm) each pyramid card's code was found, by place
        self.centres: dict[tuple[int, int], tuple[float, float]] = {}
        self.problems: dict[str, Unrecognised] = {}

    def problem(self, u: Unrecognised) -> None:
        self.problems.setdefault(u.where, u)


def _read_cards(markers: tuple[Marker, ...], cal: Calibration) -> _Reading:
    out = _Reading()
    for m in markers:
        card = card_of_id(m.id)
        if card is None and m.id != BACK_ID:
            continue
        corners = _to_table(cal, m.corners)
        centre = corners.mean(axis=0)
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        dx, dy = corners[1] - corners[0]
        turn = math.degrees(math.atan2(dy, dx))
        x, y = float(centre[0]), float(centre[1])
        area = MAT.pyramid_area
        row, col, ox, oy = MAT.row_col_at(x, y)
        in_pyramid = area.contains(x, y) and not MAT.stack.contains(x, y)
        where = _place_name(row, col) if in_pyramid and MAT.in_place(row, col) else f"the mat at ({x:.0f}, {y:.0f}) mm"
        if abs(sides.mean() / CODE_SIZE - 1) > _SIZE_TOLERANCE or sides.max() / sides.min() > 1.4:
            out.problem(Unrecognised(where, "a code of the wrong size (not a Grandioso card?)"))
            continue
        if m.id == BACK_ID:
            if MAT.stack.contains(x, y):
                out.stack = True
            elif MAT.singles.contains(x, y):
                out.singles.append(x)
            elif in_pyramid:
                out.problem(Unrecognised(where, "a face-down card lies in the pyramid", row, col))
            continue
        assert card is not None
        if not in_pyramid:
            if MAT.stack.contains(x, y):
                out.shown.append(card)
            elif MAT.singles.contains(x, y):
                out.problem(Unrecognised("the singles row", f"{card.label} lies face up among the singles"))
            else:
                out.loose.append(card)
            continue
        if abs(turn) > _MAX_TURN:
            out.problem(Unrecognised(where, f"{card.label} lies turned", row, col))
        elif not MAT.in_place(row, col) or abs(ox) > _PLACE_TOLERANCE[0] or abs(oy) > _PLACE_TOLERANCE[1]:
            out.problem(Unrecognised(where, f"{card.label} lies between places; lay it on its two cards",
                                     row, col))
        elif (row, col) in out.pyramid and out.pyramid[row, col] is not card:
            out.problem(Unrecognised(where, "two different codes at one place", row, col))
        else:
            out.pyramid[row, col] = card
            out.centres[row, col] = (x, y)
    return out


def _local_shift(reading: _Reading, row: int, col: int) -> tuple[float, float] | None:
    """How far (mm) the codes read near the place lie from where the calibration puts them: the lens's
    barrel distortion, which the mat's homography cannot follow, moves the middle of the mat by millimetres.
    None when no code is read near it."""
    cx, cy = code_centre(row, col)
    near = sorted(((x - ex, y - ey), math.hypot(ex - cx, ey - cy))
                  for (r, c), (x, y) in reading.centres.items() for ex, ey in [code_centre(r, c)])
    close = [d for d, dist in near if dist <= _SHIFT_RADIUS]
    if not close:
        return None
    return statistics.median(d[0] for d in close), statistics.median(d[1] for d in close)


#: resolution (px/mm) of the top-down image the code areas are checked in
_CHECK_PX_PER_MM = 1.0
#: the checked square: the code and this much (mm) of white around it
_CHECK_SURROUND = 3.0
#: a code area is looked at closely when its brighter quarter is this many times the mat's level
_BRIGHT = 1.6
#: a place is empty when at least this share of its upper half is as dark as the mat (`_BRIGHT`): a card's upper
#: half shows at most about 0.45 so dark (its name's band, its words and frame all darker than the mat's level times
#: `_BRIGHT`), on the camera model's photos under 0.05; the bare mat shows all of it but what glare brightens
_EMPTY_SHARE = 0.6
#: a code area is glared when this share of it is brighter than card paper by this many grey
#: levels (paper brighter than `_GLARE_LEVEL` less that: glare cannot be seen)
_GLARE_ABOVE_PAPER = 20.0
_GLARE_LEVEL = 250.0
_GLARE_SHARE = 0.1
#: ... and, paper that bright, when this share of the code area's middle (less this fraction of its side on each
#: side) is saturated: a code shows its black cells (a third of its area) unless glare saturates them too
_SATURATED_SHARE = 0.75
_SATURATED_RIM = 0.2
#: ... and, above the base, this share of the place's upper half saturated too
_SATURATED_UPPER = 0.3


def _percentile(values: NDArray[Any], q: float) -> float:
    """``np.percentile(values, q)`` (linear between the two nearest values), without its overhead: it is
    asked of many small patches per frame."""
    flat = values.ravel()
    at = q / 100.0 * (flat.size - 1)
    lo = int(math.floor(at))
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, [lo, hi] if hi != lo else lo)
    a, b, t = float(part[lo]), float(part[hi]), at - lo
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def _median(values: NDArray[Any]) -> float:
    """``np.median(values)`` of a large array, without its overhead."""
    return _percentile(values, 50.0)


def _pyramid_top_down(gray: Image, cal: Calibration) -> Image:
    """The pyramid area seen from straight above at `_CHECK_PX_PER_MM` (one warp for every place)."""
    area = MAT.pyramid_area
    s = _CHECK_PX_PER_MM
    t = np.array([[s, 0, -area.x * s], [0, s, -area.y * s], [0, 0, 1]], np.float64)
    size = (int(math.ceil(area.w * s)), int(math.ceil(area.h * s)))
    return np.asarray(cv2.warpPerspective(gray, t @ cal.image_to_table, size, flags=cv2.INTER_AREA), np.float32)


def _code_area(top: Image, row: int, col: int) -> Image:
    """The place's code area (and its white surround) in the pyramid's top-down image."""
    area = MAT.pyramid_area
    s = _CHECK_PX_PER_MM
    cx, cy = code_centre(row, col)
    half = CODE_SIZE / 2 + _CHECK_SURROUND
    x0, y0 = int(round((cx - half - area.x) * s)), int(round((cy - half - area.y) * s))
    n = int(round(2 * half * s))
    return top[max(0, y0):y0 + n, max(0, x0):x0 + n]


def _bright(top: Image, mat_level: float, row: int, col: int) -> bool:
    """True when something brighter than the mat (a card) covers much of the place's code area."""
    patch = _code_area(top, row, col)
    return patch.size > 0 and _percentile(patch, 75) > _BRIGHT * mat_level


def _upper_half(top: Image, row: int, col: int) -> Image:
    """The part of the place's upper half that its card shows when nothing lies over it, in a top-down image."""
    return top[_upper_window(row, col)]


def _upper_window(row: int, col: int) -> tuple[slice, slice]:
    """`_upper_half`'s part of the pyramid's top-down image, as slices."""
    r = MAT.card_rect(row, col)
    area = MAT.pyramid_area
    s = _CHECK_PX_PER_MM
    x0, x1 = int(round((r.x + 4 - area.x) * s)), int(round((r.x + r.w - 4 - area.x) * s))
    y0, y1 = int(round((r.y + 3 - area.y) * s)), int(round((r.y + r.h / 2 - 4 - area.y) * s))
    return slice(max(0, y0), max(0, y1)), slice(max(0, x0), max(0, x1))


def _covered(reading: _Reading, row: int, col: int) -> bool:
    """True when a card read lies over the place's upper half."""
    return (row + 1, col - 1) in reading.pyramid or (row + 1, col) in reading.pyramid


def _empty(top: Image, level: float, reading: _Reading, row: int, col: int) -> bool:
    """True when most of the place's upper half, which its card would show (no card read lies over it), is as
    dark as the mat: no card lies there. Glare only adds light: it may brighten part of the bare mat, never
    darken a card's paper (`_EMPTY_SHARE`)."""
    if _covered(reading, row, col):
        return False
    patch = _upper_half(top, row, col)
    return patch.size > 0 and float(np.mean(patch < _BRIGHT * level)) >= _EMPTY_SHARE


#: Glare only adds smooth light: a place under glare (saturating at least `_FLAT_GLARE` of the part looked at, or
#: its code area `_glared`) whose part looked at, where glare does not saturate it (at least `_FLAT_MIN_SHARE` of
#: it, `_PLACE_GLARE_RIM` mm off saturated pixels), shows no print is the bare mat. Print is the mean absolute
#: detail between `_FLAT_FINE_MM` and `_FLAT_COARSE_MM` of the linear light, over the contrast of card paper with
#: the mat. On the camera model's photos (seeds 880,000,000 and 883,000,000 on) a card's upper half not under a hand
#: shows at least 0.026 (blurred and noisy at hard), a card back at least 0.078; the bare mat under glare mostly below
#: 0.012, up to 0.06 only beside saturation (then asked about, as before). Glare is asked for: a hand is as flat as
#: the mat, and may hide a card.
_FLAT_FINE_MM = 1.0
_FLAT_COARSE_MM = 3.0
_FLAT_GLARE = 0.05
_FLAT_MIN_SHARE = 0.3
_FLAT_DETAIL = 0.015


def _bare_under_glare(top: Image, window: tuple[slice, slice], paper: float, level: float, glared: bool = False) -> bool:
    """True when the part ``window`` of ``top`` (a grey top-down image at `_CHECK_PX_PER_MM`) is under glare (or
    ``glared``: the caller saw glare there) and, where glare leaves it unsaturated, shows no print: the bare mat, which
    glare brightens (card paper and the mat being of grey ``paper`` and ``level``)."""
    lit = _lit(top, window)
    if lit.size == 0 or not (glared or float(lit.mean()) >= _FLAT_GLARE) or float(1.0 - lit.mean()) < _FLAT_MIN_SHARE:
        return False
    return _print(top, window, paper, level, lit) <= _FLAT_DETAIL


#: Glare may saturate part of a card's code area, too little of it for `_glared` where paper is as bright as the
#: sensor goes (no code read by its markers leaves paper's level told by the brightest pixels: glare), so that nothing
#: like a code is matched there. Such a place holds a card when at least `_HIDDEN_CODE_SATURATED` of its code area's
#: middle is saturated (`_glared`'s middle) and its upper half, clear of glare (`_lit` under `_FLAT_GLARE`), is card
#: paper and print: at most `_HIDDEN_CODE_DARK` of it as dark as the mat (`_BRIGHT`) and its print (as
#: `_bare_under_glare` measures it) above `_FLAT_DETAIL`. On the camera model's photos (seeds 884,000,000 on, medium
#: and hard, 2304x1296) the one card so hidden showed 0.55 of its code area's middle saturated, none of its upper half
#: as dark as the mat and print 0.063; of the empty places none met all three (the nearest: middle 0.55 with its upper
#: half under glare; middle 0.27, 0.13 as dark as the mat and print 0.007).
_HIDDEN_CODE_SATURATED = 0.3
_HIDDEN_CODE_DARK = 0.1


def _print(top: Image, window: tuple[slice, slice], paper: float, level: float,
           lit: NDArray[np.bool_] | None = None) -> float:
    """The print that the part ``window`` of ``top`` (a grey top-down image at `_CHECK_PX_PER_MM`) shows where glare
    (``lit``: `_lit` of that part, where the caller has it) leaves it unsaturated: the mean absolute detail between
    `_FLAT_FINE_MM` and `_FLAT_COARSE_MM` of the linear light over the contrast of card paper (grey ``paper``) with the
    mat (grey ``level``); 0 where glare leaves none of it."""
    s = _CHECK_PX_PER_MM
    around, inner = _around(top, window)
    lit = _lit(top, window) if lit is None else lit
    if lit.size == 0 or bool(lit.all()):
        return 0.0
    linear = (np.clip(around, 0.0, 255.0) / 255.0) ** 2.2
    detail = np.abs(cv2.GaussianBlur(linear, (0, 0), _FLAT_FINE_MM * s)
                    - cv2.GaussianBlur(linear, (0, 0), _FLAT_COARSE_MM * s))[inner]
    contrast = max(float((paper / 255.0) ** 2.2 - (level / 255.0) ** 2.2), 0.05)
    return float(detail[~lit].mean()) / contrast


def _code_hidden_under_card(top: Image, paper: float, level: float, reading: _Reading, row: int, col: int) -> bool:
    """True when glare saturates much of the place's code area (`_HIDDEN_CODE_SATURATED`) and its upper half (no card
    read lying over it), clear of glare, shows a card's paper and print (`_HIDDEN_CODE_DARK`, `_FLAT_DETAIL`)."""
    if _covered(reading, row, col):
        return False
    patch = _code_area(top, row, col)
    n = min(patch.shape) if patch.size else 0
    q = int(round(n * _SATURATED_RIM))
    middle = patch[q:n - q, q:n - q]
    if middle.size == 0 or float(np.mean(middle >= _GLARE_LEVEL)) < _HIDDEN_CODE_SATURATED:
        return False
    window = _upper_window(row, col)
    upper = top[window]
    lit = _lit(top, window)
    if upper.size == 0 or float(lit.mean()) >= _FLAT_GLARE or float(np.mean(upper < _BRIGHT * level)) > _HIDDEN_CODE_DARK:
        return False
    return _print(top, window, paper, level, lit) > _FLAT_DETAIL


def _around(top: Image, window: tuple[slice, slice]) -> tuple[Image, tuple[slice, slice]]:
    """The part ``window`` of ``top`` with `_FLAT_COARSE_MM` four times over around it (as far as ``top`` goes), and
    ``window`` within that."""
    pad = int(math.ceil(4 * _FLAT_COARSE_MM * _CHECK_PX_PER_MM))
    ys, xs = window
    y0, x0 = max(0, ys.start - pad), max(0, xs.start - pad)
    return top[y0:ys.stop + pad, x0:xs.stop + pad], (slice(ys.start - y0, ys.stop - y0), slice(xs.start - x0, xs.stop - x0))


def _lit(top: Image, window: tuple[slice, slice]) -> NDArray[np.bool_]:
    """The pixels of the part ``window`` of ``top`` (a grey top-down image at `_CHECK_PX_PER_MM`) that glare saturates
    or that lie within `_PLACE_GLARE_RIM` mm of saturated pixels."""
    around, inner = _around(top, window)
    rim = np.ones((2 * int(round(_PLACE_GLARE_RIM * _CHECK_PX_PER_MM)) + 1,) * 2, np.uint8)
    return np.asarray(cv2.dilate((around >= _PLACE_SATURATED).astype(np.uint8), rim) > 0)[inner]


def _under_glare(top: Image, window: tuple[slice, slice], glared: bool = False) -> bool:
    """True when glare saturates at least `_FLAT_GLARE` of the part ``window`` of ``top`` (its rim too, `_lit`), or
    ``glared`` (the caller saw glare there)."""
    if glared:
        return True
    lit = _lit(top, window)
    return lit.size > 0 and float(lit.mean()) >= _FLAT_GLARE


#: Glare only adds light, and a card lying on a place covers its upper half with paper, print and its name's band:
#: none of it both as dark as the mat (`_BRIGHT`) and of the mat's hue (chromaticity within `_MAT_SHOWS_HUE` of the
#: median of the pyramid area's pixels as dark as the mat). A place under glare whose upper half shows at least `_MAT_SHOWS_SHARE` of
#: such pixels holds no card. On the camera model's photos (seeds 884,000,000 on, hard, 2304x1296) a card's upper half
#: showed at most 0.005 of them; empty places held under glare 0.03 to 0.33 (glare's fringe pales the mat's hue).
_MAT_SHOWS_HUE = 0.1
_MAT_SHOWS_SHARE = 0.08


@dataclass(frozen=True, slots=True)
class _MatHue:
    """The pyramid area of one frame in colour, seen from straight above (as `_pyramid_top_down`), its pixels'
    chromaticity and the mat's."""

    chroma: NDArray[Any]
    hue: NDArray[Any]

    @classmethod
    def of(cls, frame: Image, top: Image, cal: Calibration, level: float) -> _MatHue:
        """The look of ``frame``'s pyramid area (``top``: its grey top-down image, the mat of grey ``level``)."""
        warped = _colour_top_down(frame, top, cal)
        chroma = warped / (warped.sum(axis=2, keepdims=True) + 1.0)
        dark = top < _BRIGHT * level
        hue = np.median(chroma[dark], axis=0) if dark.any() else np.full(3, np.nan)
        return cls(np.asarray(chroma, np.float32), np.asarray(hue, np.float32))

    def shows_mat(self, top: Image, level: float, window: tuple[slice, slice]) -> bool:
        """True when at least `_MAT_SHOWS_SHARE` of ``window`` of ``top`` is as dark as the mat and of its hue."""
        grey = top[window]
        if grey.size == 0 or not np.isfinite(self.hue).all():
            return False
        near = np.linalg.norm(self.chroma[window] - self.hue, axis=2) < _MAT_SHOWS_HUE
        return float(np.mean((grey < _BRIGHT * level) & near)) >= _MAT_SHOWS_SHARE


#: With an enrolled deck, whose faces may be as dark as the mat (a published card's art), a place's upper half
#: is the bare mat when it shows little print (its mean absolute detail finer than `_MAT_DETAIL_MM`, over the
#: mat's level, below `_MAT_PRINT`: a face of the mat's colour still shows its art) and either its median
#: chromaticity lies within `_MAT_HUE` of the mat's or it is as dark as the mat (`_empty`) and next to flat
#: (below `_MAT_FLAT`). On the camera model's photos of the Menagerie deck (seeds 903,000,000 on) a card's
#: upper half shows at least 0.14 print and lies at least 0.145 from the mat's hue; the bare mat unglared at
#: most 0.141 and 0.08.
_MAT_DETAIL_MM = 3.0
_MAT_FLAT = 0.1
_MAT_HUE = 0.1
_MAT_PRINT = 0.2
#: Glare adds grey light to what it lies on (in linear light): the bare mat under glare is the mat's colour and some
#: grey. With a deck, a place whose upper half shows little print (`_MAT_PRINT`) and whose unsaturated pixels lie off
#: the mat's colour plus grey (their median) by less than `_MAT_GLARE_OFF` of the mat's own colour (its distance from
#: grey) is the bare mat under glare. On the camera model's photos of the Menagerie deck (seeds 905,000,000 and
#: 905,500,000 on, medium and hard) the bare mat under glare lay at most 0.18 off, under a hand at least 0.27, a card
#: that no code or face named at least 0.43 (under a hand) and 0.47 (glared).
_MAT_GLARE_OFF = 0.3


@dataclass(frozen=True, slots=True)
class _MatLook:
    """What the bare mat looks like in one frame: its top-down grey, detail and colour images, level and hue."""

    grey: Image
    detail: Image
    colour: Image
    level: float
    hue: NDArray[Any]

    @classmethod
    def of(cls, frame: Image, top: Image, cal: Calibration, level: float) -> _MatLook:
        """The look of the pyramid area of ``frame`` (``top``: its grey top-down image, `_pyramid_top_down`)."""
        warped = _colour_top_down(frame, top, cal)
        hue = _chromaticity(np.median(warped[::2, ::2].reshape(-1, 3), axis=0)[None])[0]
        detail = np.abs(top - cv2.GaussianBlur(top, (0, 0), _MAT_DETAIL_MM * _CHECK_PX_PER_MM))
        return cls(top, np.asarray(detail, np.float32), warped, level, hue)

    def bare_under_glare(self, row: int, col: int) -> bool:
        """True when the place's upper half shows the bare mat under glare (`_MAT_GLARE_OFF`): little print, and where
        glare leaves it unsaturated (at least `_FLAT_MIN_SHARE` of it) the mat's colour with light added, not taken."""
        if float(_upper_half(self.detail, row, col).mean()) / (self.level + 10.0) >= _MAT_PRINT:
            return False
        bgr = _upper_half(self.colour, row, col).reshape(-1, 3)
        unsaturated = bgr.max(axis=1) < _GLARE_LEVEL
        if bgr.size == 0 or float(unsaturated.mean()) < _FLAT_MIN_SHARE:
            return False
        mat = _linear(np.median(self.colour[::2, ::2].reshape(-1, 3), axis=0))
        added = _linear(bgr[unsaturated]) - mat
        grey = np.full(3, 1.0 / math.sqrt(3.0))
        off = added - np.outer(added @ grey, grey)  # what glare's grey light cannot add
        mat_colour = float(np.linalg.norm(mat - (mat @ grey) * grey))
        return float(np.median(added @ grey)) > 0.0 and \
            float(np.median(np.linalg.norm(off, axis=1))) < _MAT_GLARE_OFF * max(mat_colour, 1e-6)

    def bare(self, reading: _Reading, row: int, col: int) -> bool:
        """True when the place's upper half (no card read lies over it) shows the bare mat (`_MAT_HUE`)."""
        if _covered(reading, row, col):
            return False
        detail = _upper_half(self.detail, row, col)
        if detail.size == 0:
            return False
        printed = float(detail.mean()) / (self.level + 10.0)
        if printed >= _MAT_PRINT:
            return False
        hue = _chromaticity(_upper_half(self.colour, row, col).reshape(-1, 3))
        if float(np.median(np.linalg.norm(hue - self.hue, axis=1))) < _MAT_HUE:
            return True
        return printed < _MAT_FLAT and _percentile(_upper_half(self.grey, row, col), 75) < _BRIGHT * self.level


def _linear(bgr: NDArray[Any]) -> NDArray[Any]:
    """Colours of grey levels 0..255 in linear light (0..1)."""
    return (np.clip(np.asarray(bgr, np.float64), 0.0, 255.0) / 255.0) ** 2.2


def _colour_top_down(frame: Image, top: Image, cal: Calibration) -> NDArray[Any]:
    """``frame``'s pyramid area in colour (float32 BGR), seen as `_pyramid_top_down` sees it (``top``)."""
    colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    area = MAT.pyramid_area
    s = _CHECK_PX_PER_MM
    t = np.array([[s, 0, -area.x * s], [0, s, -area.y * s], [0, 0, 1]], np.float64)
    return np.asarray(cv2.warpPerspective(colour, t @ cal.image_to_table, (top.shape[1], top.shape[0]),
                                          flags=cv2.INTER_AREA), np.float32)


def _chromaticity(bgr: NDArray[Any]) -> NDArray[Any]:
    """``(N, 3)`` colours -> each over its sum (exposure and shading out)."""
    return np.asarray(bgr / (bgr.sum(axis=1, keepdims=True) + 1.0), np.float64)


def _paper_white(top: Image, places: list[tuple[int, int]]) -> float:
    """The grey level of card paper: the white around the codes read (the brightest mat pixels if none)."""
    if not places:
        return _percentile(top, 99)
    return float(np.median([_percentile(_code_area(top, r, c), 90) for r, c in places]))


def _glared(top: Image, paper: float, row: int, col: int) -> bool:
    """True when glare, brighter than card paper, whitens part of the place's code area; where paper is as bright
    as the sensor goes (glare cannot be told from it), when glare saturates the middle of the code area, black
    cells and all (`_SATURATED_SHARE`): no code could be seen there."""
    patch = _code_area(top, row, col)
    if patch.size == 0:
        return False
    if paper >= _GLARE_LEVEL - _GLARE_ABOVE_PAPER:
        n = min(patch.shape)
        q = int(round(n * _SATURATED_RIM))
        middle = patch[q:n - q, q:n - q]
        if middle.size == 0 or float(np.mean(middle >= _GLARE_LEVEL)) < _SATURATED_SHARE:
            return False
        if row == 0:
            return True  # an empty base place shows the mat there: only glare saturates it
        # above the base the code area of an empty place shows the tops of the two cards below, which paper this
        # bright saturates: glare is told by its saturating the mat of the place's upper half too
        upper = _upper_half(top, row, col)
        return upper.size > 0 and float(np.mean(upper >= _GLARE_LEVEL)) >= _SATURATED_UPPER
    return float(np.mean(patch >= paper + _GLARE_ABOVE_PAPER)) > _GLARE_SHARE


#: resolution (px/mm) of the close look at a place whose code the marker search could not read
_MATCH_PX_PER_MM = 2.0
#: ... how far (mm) from its place a card may lie, and what counts as a clear match: the best
#: correlation at least `_MATCH_MIN`, and ahead of every other card's by `_MATCH_MARGIN`
_MATCH_SEARCH = 6.0
#: ... and this far (mm) where no code read nearby says how far the lens moves it (a blurred frame whose
#: mat is fixed by its corner markers alone: the middle of the mat may lie 10 mm off)
_MATCH_SEARCH_FAR = 12.0
_MATCH_MIN = 0.65
_MATCH_MARGIN = 0.1
#: codes read within this distance (mm) of a place say how far its code lies from where the mat's
#: homography puts it
_SHIFT_RADIUS = 120.0
#: below this best correlation nothing like a code lies there (the tops of the two cards below
#: score up to about 0.4 on the camera model's photos)
_MATCH_NOTHING = 0.45
#: the blurs (mm) of the codes a code area is matched against when it matches no card clearly
_MATCH_BLURS = (0.8, 1.3, 1.8)
#: ... where a clear match is a best correlation of at least `_BLURRED_MIN`, ahead of every other
#: card's by `_BLURRED_MARGIN` (the codes differ in at least five cells)
_BLURRED_MIN = 0.6
_BLURRED_MARGIN = 0.1
#: the blur taken out of a code area before the second match (mm)
_HIGH_PASS_MM = 3.0


@functools.lru_cache(maxsize=1)
def _templates() -> tuple[tuple[int, ...], NDArray[Any]]:
    """Every card code (the faces and the back) with a white surround, at `_MATCH_PX_PER_MM`."""
    from vision.grandioso.faces import marker_image

    s = _MATCH_PX_PER_MM
    n = int(round(CODE_SIZE * s))
    pad = int(round(2.0 * s))
    ids = tuple(CARD_IDS.values()) + (BACK_ID,)
    out = []
    for i in ids:
        t = np.full((n + 2 * pad, n + 2 * pad), 255, np.uint8)
        t[pad:pad + n, pad:pad + n] = marker_image(i, n)
        out.append(cv2.GaussianBlur(t, (0, 0), 1.0))
    return ids, np.stack(out).astype(np.float32)


def _match_code(gray: Image, cal: Calibration, row: int, col: int,
                shift: tuple[float, float] | None = (0.0, 0.0), paper: float = 255.0) -> Card | None | bool:
    """The card whose code the place's code area (moved by ``shift`` mm; searched farther when None) clearly
    shows; False when no code lies there; None when something like a code lies there but no card's clearly, or
    when the code matched shows its ring broken or, card paper being of grey level ``paper`` (below
    `_GLARE_LEVEL` less `_GLARE_ABOVE_PAPER`), saturating glare over `_MATCH_GLARE_SHARE` of it: glare whitens
    a code's black cells, and a code so whitened can match another card's."""
    ids, templates = _templates()
    s = _MATCH_PX_PER_MM
    cx, cy = code_centre(row, col)
    search = _MATCH_SEARCH if shift is not None else _MATCH_SEARCH_FAR
    if shift is not None:
        cx, cy = cx + shift[0], cy + shift[1]
    half = CODE_SIZE / 2 + 2.0 + search
    n = int(round(2 * half * s))
    src = np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half], [cx - half, cy + half]],
                   np.float64)
    img_pts = cv2.perspectiveTransform(src.reshape(1, 4, 2), cal.table_to_image)[0].astype(np.float32)
    dst = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    patch = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(img_pts, dst), (n, n),
                                flags=cv2.INTER_AREA).astype(np.float32)
    # glare and shadow add a smooth ramp of light over the code: when the code does not match clearly as
    # it is, it is matched again with the ramp taken out (the image less its blur)
    best_any = 0.0
    for img, temps in ((patch, templates), (_high_pass(patch), _high_pass_templates())):
        found = [cv2.minMaxLoc(cv2.matchTemplate(img, t, cv2.TM_CCOEFF_NORMED)) for t in temps]
        scores = [float(f[1]) for f in found]
        order = np.argsort(scores)[::-1]
        best, second = scores[order[0]], scores[order[1]]
        if best >= _MATCH_MIN and best - second >= _MATCH_MARGIN:
            return card_of_id(ids[order[0]]) if _trusted(patch, found[order[0]][3], paper) else None
        if best_any == 0.0 and best < _MATCH_NOTHING:
            return False  # nothing like a code lies there
        best_any = max(best_any, best)
    # a code blurred more than the templates (a lens out of focus, a moving camera): matched against
    # every code blurred as much as each of `_MATCH_BLURS`, the best blur for each code
    found = [max((cv2.minMaxLoc(cv2.matchTemplate(patch, blurred[k], cv2.TM_CCOEFF_NORMED))
                  for blurred in _blurred_templates()), key=lambda f: float(f[1])) for k in range(len(ids))]
    blurred_scores = np.array([float(f[1]) for f in found])
    order = np.argsort(blurred_scores)[::-1]
    if blurred_scores[order[0]] >= _BLURRED_MIN and blurred_scores[order[0]] - blurred_scores[order[1]] >= _BLURRED_MARGIN:
        return card_of_id(ids[order[0]]) if _trusted(patch, found[order[0]][3], paper) else None
    return None


#: every code is framed by a ring of black cells: each of its four sides, where a code is matched, must be darker
#: than the white around the code by this share of the patch's range (glare that whitens part of a code can make it
#: match another code; it cannot leave the ring dark)
_RING_DARK = 0.35


#: ... and no more than this share of it saturated by glare, where glare can be told from paper
_MATCH_GLARE_SHARE = 0.03


def _trusted(patch: NDArray[Any], at: tuple[int, int], paper: float) -> bool:
    """True when the code matched with its template's corner at pixel ``at`` of ``patch`` may be named: its ring
    is intact and, where glare can be told from paper of grey level ``paper``, glare saturates almost none of it."""
    if not _ring_intact(patch, at):
        return False
    if paper >= _GLARE_LEVEL - _GLARE_ABOVE_PAPER:
        return True
    n = int(round((CODE_SIZE + 4.0) * _MATCH_PX_PER_MM))
    window = patch[at[1]:at[1] + n, at[0]:at[0] + n]
    return window.size > 0 and float(np.mean(window >= _PLACE_SATURATED)) <= _MATCH_GLARE_SHARE


def _ring_intact(patch: NDArray[Any], at: tuple[int, int]) -> bool:
    """True when the code matched with its template's corner at pixel ``at`` of ``patch`` shows its black ring dark
    on all four sides."""
    s = _MATCH_PX_PER_MM
    pad, cell = int(round(2.0 * s)), CODE_SIZE / 6 * s
    x0, y0 = at[0] + pad, at[1] + pad
    n = int(round(CODE_SIZE * s))
    window = patch[at[1]:at[1] + n + 2 * pad, at[0]:at[0] + n + 2 * pad]
    white, dark = _percentile(window, 95), _percentile(window, 5)
    a, b = int(round(cell * 0.25)), int(round(cell * 0.75))  # the middle half of the ring's cells
    lo, hi = int(round(cell)), int(round(n - cell))  # along each side: the four middle cells
    sides = (patch[y0 + a:y0 + b, x0 + lo:x0 + hi], patch[y0 + n - b:y0 + n - a, x0 + lo:x0 + hi],
             patch[y0 + lo:y0 + hi, x0 + a:x0 + b], patch[y0 + lo:y0 + hi, x0 + n - b:x0 + n - a])
    return all(side.size > 0 and float(side.mean()) <= white - _RING_DARK * (white - dark) for side in sides)


#: a code that glare washes out is read again with the light evened out (`vision.codematch.local_contrast`,
#: over each of `_CONTRAST_MM`), at `_MATCH_PX_PER_MM`, against every code blurred as much as each of
#: `_CONTRAST_BLURS` (mm), within `_MATCH_SEARCH` mm of its place: a card is named when its code's correlation
#: is at least `_CONTRAST_MIN`, upright, and ahead of every other code's (the back's too) by `_CONTRAST_MARGIN`
_CONTRAST_MM = (2.0, 3.0, 5.0)
_CONTRAST_BLURS = (0.5, 1.0, 1.5, 2.0)
_CONTRAST_MIN = 0.7
_CONTRAST_MARGIN = 0.25


def _contrast_templates() -> CodeTemplates:
    s = _MATCH_PX_PER_MM
    return code_templates(ARUCO_DICT, tuple(CARD_IDS.values()) + (BACK_ID,), int(round(CODE_SIZE * s)),
                          int(round(2.0 * s)), tuple(b * s for b in _CONTRAST_BLURS))


def _match_contrast(gray: Image, cal: Calibration, row: int, col: int,
                    shift: tuple[float, float] | None = (0.0, 0.0)) -> list[tuple[Card | None, float, float]]:
    """For each of `_CONTRAST_MM`: the card whose code the place's code area shows with the light evened
    out (None when no card's clearly), the best correlation and its lead."""
    cx, cy = code_centre(row, col)
    search = _MATCH_SEARCH if shift is not None else _MATCH_SEARCH_FAR
    if shift is not None:
        cx, cy = cx + shift[0], cy + shift[1]
    out: list[tuple[Card | None, float, float]] = []
    for found in _contrast_matches(gray, cal, cx, cy, search):
        ok = found.id is not None and found.quarter == 0 and found.score >= _CONTRAST_MIN \
            and found.lead >= _CONTRAST_MARGIN
        out.append((card_of_id(found.id) if ok and found.id is not None else None, found.score, found.lead))
    return out


def _contrast_matches(gray: Image, cal: Calibration, cx: float, cy: float, search: float) -> list[PatchMatch]:
    """The code that best matches the frame within ``search`` mm of table point (cx, cy) with the light evened out
    over each of `_CONTRAST_MM` (`vision.codematch.match_patch`, saturation not counted against it)."""
    t = _contrast_templates()
    s = _MATCH_PX_PER_MM
    n = t.size + 2 * int(round(search * s))
    half = n / 2 / s
    to_patch = np.array([[s, 0, -(cx - half) * s], [0, s, -(cy - half) * s], [0, 0, 1]], np.float64)
    patch = np.asarray(cv2.warpPerspective(gray, to_patch @ cal.image_to_table, (n, n), flags=cv2.INTER_AREA,
                                           borderMode=cv2.BORDER_REPLICATE), np.float32)
    return [match_patch(local_contrast(patch, mm * s), t, math.inf) for mm in _CONTRAST_MM]


def _read_washed_out(gray: Image, cal: Calibration, row: int, col: int,
                     shift: tuple[float, float] | None = (0.0, 0.0)) -> Card | None:
    """The card that `_match_contrast` names over at least one of its lights, none naming another; else None."""
    named = {card for card, _, _ in _match_contrast(gray, cal, row, col, shift) if card is not None}
    return named.pop() if len(named) == 1 else None


def _washed_out_back(gray: Image, cal: Calibration, cx: float, cy: float) -> bool:
    """True when a card back's code, which glare washes out, lies within `_PLACE_SEARCH` mm of table point (cx, cy):
    with the light evened out (`_contrast_matches`) the back's code, lying along the row either way up, matches by at
    least `_CONTRAST_MIN` and leads every other code by `_CONTRAST_MARGIN` over at least one light, and no light names
    another code so."""
    named = {(m.id, m.quarter in (0, 2)) for m in _contrast_matches(gray, cal, cx, cy, _PLACE_SEARCH)
             if m.id is not None and m.score >= _CONTRAST_MIN and m.lead >= _CONTRAST_MARGIN}
    return named == {(BACK_ID, True)}


@functools.lru_cache(maxsize=1)
def _blurred_templates() -> tuple[NDArray[Any], ...]:
    """The code templates blurred as much as each of `_MATCH_BLURS` (mm)."""
    return tuple(np.stack([cv2.GaussianBlur(t, (0, 0), blur * _MATCH_PX_PER_MM, borderType=cv2.BORDER_REPLICATE)
                           for t in _templates()[1]]) for blur in _MATCH_BLURS)


def _high_pass(img: NDArray[Any]) -> NDArray[Any]:
    """The image less its blur over about a code cell (`_HIGH_PASS_MM`): smooth light ramps removed."""
    return np.asarray(img - cv2.GaussianBlur(img, (0, 0), _HIGH_PASS_MM * _MATCH_PX_PER_MM), np.float32)


@functools.lru_cache(maxsize=1)
def _high_pass_templates() -> NDArray[Any]:
    return np.stack([_high_pass(t) for t in _templates()[1]])


#: a back's code is searched for this far (mm) above and below the singles row's middle line (a card lying
#: farther off hangs over the row's edge)
_SINGLES_BAND = 12.0


def _singles_by_match(gray: Image, cal: Calibration) -> list[float]:
    """The x (mm) of every card back whose code clearly shows in the singles row, left to right."""
    ids, templates = _templates()
    back = templates[ids.index(BACK_ID)]
    s = _MATCH_PX_PER_MM
    row = MAT.singles
    # the band of the row where a back's code lies when its card lies on the row
    top = row.y + row.h / 2 - _SINGLES_BAND - back.shape[0] / 2 / s
    t = np.array([[s, 0, -row.x * s], [0, s, -top * s], [0, 0, 1]], np.float64)
    size = (int(math.ceil(row.w * s)), back.shape[0] + int(math.ceil(2 * _SINGLES_BAND * s)))
    strip = cv2.warpPerspective(gray, t @ cal.image_to_table, size, flags=cv2.INTER_AREA).astype(np.float32)
    scores = cv2.matchTemplate(strip, back, cv2.TM_CCOEFF_NORMED).max(axis=0)
    found: list[float] = []
    gap = int(CODE_SIZE * s)
    for x in np.argsort(scores)[::-1]:
        if scores[x] < _MATCH_MIN:
            break
        if all(abs(int(x) - f) >= gap for f in found):
            found.append(int(x))
    half = back.shape[1] / 2
    return sorted(row.x + (f + half) / s for f in found)


#: the close look at each place of the singles row that no back's code was read on: resolution (px/mm),
#: how far (mm) a card may lie off its place, and the mat's width (mm) around the card in the template
_PLACE_PX_PER_MM = 1.0
_PLACE_SEARCH = 5.0
_PLACE_SURROUND = 3.0
#: a pixel this bright is glare (saturated), and this many mm around it are not compared either
_PLACE_SATURATED = 245.0
_PLACE_GLARE_RIM = 2.0
#: a place shows the bare row when its unglared share (at least `_PLACE_MIN_SHARE`) correlates with a card
#: back lying there below `_PLACE_NONE`, and below `_PLACE_NONE_FINE` once both are rid of what is smoother
#: than `_PLACE_FINE_MM` (glare's fringe is smooth). On the camera model's photos a card back partly under
#: glare scores at least 0.6 and 0.4, the bare row beside glare at most 0.36 and 0.23; but a spot of glare
#: the size of a card can score as a card: a card is never taken from this comparison alone.
_PLACE_MIN_SHARE = 0.2
_PLACE_NONE = 0.45
_PLACE_NONE_FINE = 0.3
_PLACE_FINE_MM = 3.0
#: a card lies on a place that correlates with a card back by at least `_PLACE_CARD` (`_PLACE_CARD_FINE`
#: rid of smooth light) and whose back's code and white square, where no glare saturates them (at least
#: `_CODE_MIN_SHARE` of them), correlate with the back's by at least `_CODE_MIN` at `_MATCH_PX_PER_MM`:
#: on the camera model's photos a back's code partly under glare scores 0.6 and more, the bare row (glared
#: or not) and spots of glare at most 0.3
_PLACE_CARD = 0.5
_PLACE_CARD_FINE = 0.35
_CODE_MIN = 0.55
_CODE_MIN_SHARE = 0.2
#: ... or, both rid of what is smoother than `_PLACE_FINE_MM` (glare that pales part of a code without saturating it
#: adds a smooth ramp of light across its cells), by at least `_CODE_MIN_FINE`: on the camera model's photos (seeds
#: 880,000,000 and 883,000,000 on, 1280x960 and 2304x1296) no place without a card scores above 0.32 so, glared or
#: not; of the four backs under glare whose plain correlation fell below `_CODE_MIN` one scored 0.62, three 0.49 or less
_CODE_MIN_FINE = 0.55
#: the back's code is compared with this much (mm) of its white square around it, and not this near (mm) glare
_CODE_SURROUND = 4.0
_CODE_GLARE_RIM = 1.0


@functools.lru_cache(maxsize=1)
def _back_on_mat() -> NDArray[Any]:
    """A card back lying on the singles row, with `_PLACE_SURROUND` mm of the row around it, at `_PLACE_PX_PER_MM`."""
    from vision.grandioso.faces import SINGLES_BGR, render_back

    fine = 4.0
    img, alpha = render_back(fine)
    a = alpha.astype(np.float32)[:, :, None] / 255.0
    card = img.astype(np.float32) * a + np.array(SINGLES_BGR, np.float32) * (1.0 - a)
    pad = int(round(_PLACE_SURROUND * fine))
    card = cv2.copyMakeBorder(card, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=SINGLES_BGR)
    grey = cv2.cvtColor(card.astype(np.uint8), cv2.COLOR_BGR2GRAY)
    size = (int(round(grey.shape[1] * _PLACE_PX_PER_MM / fine)), int(round(grey.shape[0] * _PLACE_PX_PER_MM / fine)))
    return np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.float32)


def _masked_ncc(image: NDArray[Any], valid: NDArray[Any], template: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The normalised correlation of ``template`` at every offset in ``image``, over the pixels ``valid``
    only, and the share of the template's pixels compared there."""
    th, tw = template.shape
    if valid.all():
        ncc = np.asarray(cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED), np.float64)
        return ncc, np.ones_like(ncc)
    m = valid.astype(np.float32)
    im = image * m

    def corr(a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(cv2.matchTemplate(a, b, cv2.TM_CCORR), np.float64)

    def window_sums(a: NDArray[Any]) -> NDArray[Any]:
        s = cv2.integral(a, sdepth=cv2.CV_64F)
        return np.asarray(s[th:, tw:] - s[:-th, tw:] - s[th:, :-tw] + s[:-th, :-tw], np.float64)

    n = np.maximum(window_sums(m), 1.0)
    s_i, s_t = window_sums(im), corr(m, template)
    cov = corr(im, template) - s_i * s_t / n
    var_i = window_sums(im * image) - s_i * s_i / n
    var_t = corr(m, template * template) - s_t * s_t / n
    return cov / np.sqrt(np.maximum(var_i * var_t, 1e-6)), n / template.size


def _fine(image: NDArray[Any], valid: NDArray[Any], px_per_mm: float = _PLACE_PX_PER_MM) -> NDArray[Any]:
    """The pixels ``valid`` of ``image`` (at ``px_per_mm``) less their own blur over `_PLACE_FINE_MM` (smooth light
    taken out); the others 0."""
    sigma = _PLACE_FINE_MM * px_per_mm
    if valid.all():
        return np.asarray(image - cv2.GaussianBlur(image, (0, 0), sigma), np.float32)
    m = valid.astype(np.float32)
    smooth = cv2.GaussianBlur(image * m, (0, 0), sigma) / np.maximum(cv2.GaussianBlur(m, (0, 0), sigma), 1e-3)
    return np.asarray((image - smooth) * m, np.float32)


@functools.lru_cache(maxsize=1)
def _back_code() -> NDArray[Any]:
    """The back's code and `_CODE_SURROUND` mm of its white square around it, at `_MATCH_PX_PER_MM`, blurred as
    the code templates are."""
    from vision.grandioso.faces import render_back

    fine = 4.0
    img, _ = render_back(fine)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    half = int(round((CODE_SIZE / 2 + _CODE_SURROUND) * fine))
    grey = grey[h // 2 - half:h // 2 + half, w // 2 - half:w // 2 + half]
    s = _MATCH_PX_PER_MM / fine
    small = cv2.resize(grey, None, fx=s, fy=s, interpolation=cv2.INTER_AREA).astype(np.float32)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), 1.0), np.float32)


@functools.lru_cache(maxsize=1)
def _back_code_fine() -> NDArray[Any]:
    """`_back_code` less its blur over `_PLACE_FINE_MM`."""
    t = _back_code()
    return _fine(t, np.ones(t.shape, bool), _MATCH_PX_PER_MM)


def _back_code_score(gray: Image, cal: Calibration, cx: float, cy: float, fine: bool = False) -> tuple[float, float]:
    """The best correlation (within `_PLACE_SEARCH` mm of table point (cx, cy)) of the back's code with the frame,
    over the pixels that no glare saturates, at least `_CODE_MIN_SHARE` of them; its x (mm) there. ``fine``: both
    rid of what is smoother than `_PLACE_FINE_MM` first (`_fine`: glare's smooth ramp of light taken out)."""
    t = _back_code()
    s = _MATCH_PX_PER_MM
    half = t.shape[1] / 2 / s + _PLACE_SEARCH
    n = int(round(2 * half * s))
    to_patch = np.array([[s, 0, -(cx - half) * s], [0, s, -(cy - half) * s], [0, 0, 1]], np.float64)
    patch = np.asarray(cv2.warpPerspective(gray, to_patch @ cal.image_to_table, (n, n), flags=cv2.INTER_AREA,
                                           borderMode=cv2.BORDER_REPLICATE), np.float32)
    rim = np.ones((2 * int(round(_CODE_GLARE_RIM * s)) + 1,) * 2, np.uint8)
    valid = cv2.dilate((patch >= _PLACE_SATURATED).astype(np.uint8), rim) == 0
    if fine:
        ncc, share = _masked_ncc(_fine(patch, valid, s), valid, _back_code_fine())
    else:
        ncc, share = _masked_ncc(patch, valid, t)
    ncc = np.where(share >= _CODE_MIN_SHARE, ncc, -1.0)
    _, bx = np.unravel_index(int(np.argmax(ncc)), ncc.shape)
    return float(ncc.max()), cx - _PLACE_SEARCH + bx / s


def _singles_by_place(gray: Image, cal: Calibration, known: list[float]) -> tuple[list[float], list[int]]:
    """The x (mm) of the cards on the singles row's places that no x of ``known`` lies on, whose code glare
    partly hides; and the places (from 1) that are unsure: they do not clearly show the bare row.

    Each place is compared whole with a card back lying on the row, over its pixels that no glare saturates:
    a card's paper, frame and pattern against the dark row show through glare. A card is taken only when the
    unglared part of its back's code matches too, as it is or with glare's smooth light taken out (a spot of glare
    the size of a card can look like a card).
    """
    t = _back_on_mat()
    fine_t = _fine(t, np.ones(t.shape, bool))
    s = _PLACE_PX_PER_MM
    half_w, half_h = t.shape[1] / 2 / s + _PLACE_SEARCH, t.shape[0] / 2 / s + _PLACE_SEARCH
    rim = np.ones((2 * int(round(_PLACE_GLARE_RIM * s)) + 1,) * 2, np.uint8)
    places = int((MAT.singles.w - SINGLE_INSET) // SINGLE_PITCH)
    first = MAT.singles.x + SINGLE_INSET + CARD.width / 2
    cy = MAT.singles.y + MAT.singles.h / 2
    found: list[float] = []
    unsure: list[int] = []
    for k in range(places):
        cx = first + k * SINGLE_PITCH
        if any(abs(x - cx) < SINGLE_PITCH / 2 for x in known):
            continue
        to_patch = np.array([[s, 0, -(cx - half_w) * s], [0, s, -(cy - half_h) * s], [0, 0, 1]], np.float64)
        size = (int(round(2 * half_w * s)), int(round(2 * half_h * s)))
        patch = np.asarray(cv2.warpPerspective(gray, to_patch @ cal.image_to_table, size, flags=cv2.INTER_AREA,
                                               borderMode=cv2.BORDER_REPLICATE), np.float32)
        valid = cv2.dilate((patch >= _PLACE_SATURATED).astype(np.uint8), rim) == 0
        ncc, share = _masked_ncc(patch, valid, t)
        fine, _ = _masked_ncc(_fine(patch, valid), valid, fine_t)
        enough = share >= _PLACE_MIN_SHARE
        ncc, fine = np.where(enough, ncc, -1.0), np.where(enough, fine, -1.0)
        if float(ncc.max()) >= _PLACE_CARD and float(fine.max()) >= _PLACE_CARD_FINE:
            code, x = _back_code_score(gray, cal, cx, cy)
            sure = code >= _CODE_MIN
            if not sure:  # glare pales part of its code: matched again with the smooth light taken out
                code, x = _back_code_score(gray, cal, cx, cy, fine=True)
                sure = code >= _CODE_MIN_FINE
            if sure:
                found.append(x)
                continue
        if not enough.any() or float(ncc.max()) >= _PLACE_NONE or float(fine.max()) >= _PLACE_NONE_FINE:
            if _washed_out_back(gray, cal, cx, cy):
                found.append(cx)
            else:
                unsure.append(k + 1)
    return found, unsure


def _glared_bare_singles(gray: Image, cal: Calibration, places: list[int], paper: float, level: float) -> list[int]:
    """The places (from 1) of ``places`` that do not show the bare singles row under glare (`_bare_under_glare`: a card
    back shows its pattern, frame and code where glare leaves it unsaturated), card paper and the mat being of grey
    ``paper`` and ``level``."""
    row = MAT.singles
    s = _CHECK_PX_PER_MM
    t = np.array([[s, 0, -row.x * s], [0, s, -row.y * s], [0, 0, 1]], np.float64)
    strip = np.asarray(cv2.warpPerspective(gray, t @ cal.image_to_table, (int(math.ceil(row.w * s)),
                                                                          int(math.ceil(row.h * s))),
                                           flags=cv2.INTER_AREA), np.float32)
    first = SINGLE_INSET + CARD.width / 2
    inset = _SINGLE_FLAT_INSET
    y = slice(int(round(((row.h - CARD.height) / 2 + inset) * s)), int(round(((row.h + CARD.height) / 2 - inset) * s)))

    def window(k: int) -> tuple[slice, slice]:
        cx = first + (k - 1) * SINGLE_PITCH
        return y, slice(int(round((cx - CARD.width / 2 + inset) * s)), int(round((cx + CARD.width / 2 - inset) * s)))

    return [k for k in places if not _bare_under_glare(strip, window(k), paper, level)]


#: ... looked at this far (mm) inside the card's outline at the place (a card lies a few mm off its place)
_SINGLE_FLAT_INSET = 3.0


#: A card read by its art whose upper half shows is first found where it lies: the top edge and the upper
#: `_POSE_SIDES` of the side edges of its outline, moved up to `_POSE_MM` mm (steps of `_POSE_STEP_MM`) and turned
#: up to `_POSE_DEGREES` (steps of `_POSE_STEP_DEGREES`), are matched to the frame's edges at `_POSE_PX_PER_MM`
#: (the deck's look at a card that lies off its place by a few per cent of its width is far from every prototype).
_POSE_PX_PER_MM = 4.0
_POSE_MM = 3.0
_POSE_STEP_MM = 0.5
_POSE_DEGREES = 3.0
_POSE_STEP_DEGREES = 1.0
_POSE_SIDES = 0.45
_POSE_FAR_MM = 12.0
_POSE_FAR_STEP_MM = 1.0
#: how the outline is matched: grey levels sampled this deep (mm) inside the outline along its inward normal,
#: weighted: the white margin (`CARD.margin`) against the table just outside and against the frame line
#: just inside it. An edge's strength alone is as strong at the margin's inner side as at its outer one, and
#: at a neighbouring card's edge, so a blurred frame put the outline a margin's width or more off. Chosen on the
#: Menagerie deck's tuning tables (seeds 905,000,000 and 905,500,000 on, hard camera): a card's outline then
#: is found 1.2 mm off across and 0.9 mm along on average (was 1.7 and 1.2; 19 cards), and more cards whole in
#: view are read, none wrong.
_POSE_PROFILE = ((-1.0, -1.0), (CARD.margin / 2, 2.0), (CARD.margin + CARD.frame / 2, -1.0))


def _moved(pts: NDArray[Any], centre: tuple[float, float], dx: float, dy: float, turn: float) -> NDArray[Any]:
    """Table points turned ``turn`` degrees about ``centre`` (as `vision.grandioso.scene` turns a card) and moved."""
    t = math.radians(turn)
    c, s = math.cos(t), math.sin(t)
    rel = np.asarray(pts, np.float64) - centre
    return np.stack([centre[0] + c * rel[..., 0] + s * rel[..., 1] + dx,
                     centre[1] - s * rel[..., 0] + c * rel[..., 1] + dy], axis=-1)


def _card_pose(frame: Image, cal: Calibration, row: int, col: int, lower: bool = False,
               far: bool = True) -> tuple[float, float, float]:
    """How far (mm) and how much turned (degrees) the card at a place lies from where the layout puts it: the
    move and turn whose outline's top and upper sides (``lower``: its bottom and lower sides) best show the card's
    printed edge (`_POSE_PROFILE`: its white margin lighter than both the table outside and the dark frame line
    inside): the best within `_POSE_MM`, or (``far``) the better of that and the best within `_POSE_FAR_MM`
    (`_POSE_FAR_STEP_MM` apart, then refined: the hard camera's lens moves a place up to 11 mm from where the mat's
    markers put it)."""
    near, farther = _card_poses(frame, cal, row, col, lower)
    return farther() if far else near


def _card_poses(frame: Image, cal: Calibration, row: int, col: int, lower: bool = False
                ) -> tuple[tuple[float, float, float], Callable[[], tuple[float, float, float]]]:
    """`_card_pose` within `_POSE_MM`, and the search out to `_POSE_FAR_MM` to run only when asked (`_card_pose`
    with ``far``), reusing the near search."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    near = _pose_search(gray, cal, row, col, (0.0, 0.0), _POSE_MM, _POSE_STEP_MM, lower)

    def farther() -> tuple[float, float, float]:
        _, dx, dy, _ = _pose_search(gray, cal, row, col, (0.0, 0.0), _POSE_FAR_MM, _POSE_FAR_STEP_MM, lower)
        wide = _pose_search(gray, cal, row, col, (dx, dy), _POSE_FAR_STEP_MM, _POSE_STEP_MM, lower)
        best = wide if wide[0] > near[0] else near
        return best[1], best[2], best[3]

    return (near[1], near[2], near[3]), farther


def _pose_search(gray: Image, cal: Calibration, row: int, col: int, around: tuple[float, float], reach: float,
                 step_mm: float, lower: bool = False) -> tuple[float, float, float, float]:
    """The best (score, dx, dy, turn) of `_card_pose`'s outline match, moved within ``reach`` mm of ``around``
    (``step_mm`` apart) and turned up to `_POSE_DEGREES`; by the outline's top and upper sides, or its bottom and
    lower sides (``lower``)."""
    r = MAT.card_rect(row, col)
    s = _POSE_PX_PER_MM
    pad = reach + max(abs(around[0]), abs(around[1])) + 2.0
    y_top = r.y + (1.0 - _POSE_SIDES) * r.h if lower else r.y
    x0, y0 = r.x - pad, y_top - pad
    size = (int(round((r.w + 2 * pad) * s)), int(round((_POSE_SIDES * r.h + 2 * pad) * s)))
    to_patch = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    patch = cv2.GaussianBlur(np.asarray(cv2.warpPerspective(gray, to_patch @ cal.image_to_table, size,
                                                            flags=cv2.INTER_LINEAR), np.float32), (0, 0), 1.0)
    corner = CARD.corner_radius
    step = 1.0 / s
    top = np.arange(r.x + corner, r.x + r.w - corner, step)
    if lower:
        side = np.arange(y_top, r.y + r.h - corner, step)
        edge, down = r.y + r.h, -1.0
    else:
        side = np.arange(r.y + corner, r.y + _POSE_SIDES * r.h, step)
        edge, down = r.y, 1.0
    pts = np.concatenate([np.stack([top, np.full_like(top, edge)], 1), np.stack([np.full_like(side, r.x), side], 1),
                          np.stack([np.full_like(side, r.x + r.w), side], 1)])
    inward = np.concatenate([np.tile([0.0, down], (len(top), 1)), np.tile([1.0, 0.0], (len(side), 1)),
                             np.tile([-1.0, 0.0], (len(side), 1))])
    steps = np.arange(-reach, reach + 1e-9, step_mm)
    ys, xs = around[1] + steps[:, None, None], around[0] + steps[None, :, None]
    best = (-math.inf, 0.0, 0.0, 0.0)
    for turn in np.arange(-_POSE_DEGREES, _POSE_DEGREES + 1e-9, _POSE_STEP_DEGREES):
        turned = _moved(pts, r.centre, 0.0, 0.0, float(turn))
        n = _moved(inward, (0.0, 0.0), 0.0, 0.0, float(turn))
        score = np.zeros((len(steps), len(steps)), np.float32)
        for depth, weight in _POSE_PROFILE:
            u = np.clip(np.round((turned[None, None, :, 0] + depth * n[:, 0] + xs - x0) * s).astype(np.intp), 0,
                        size[0] - 1)
            v = np.clip(np.round((turned[None, None, :, 1] + depth * n[:, 1] + ys - y0) * s).astype(np.intp), 0,
                        size[1] - 1)
            score += weight * patch[v, u].mean(axis=2)
        iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
        if float(score[iy, ix]) > best[0]:
            best = (float(score[iy, ix]), float(around[0] + steps[ix]), float(around[1] + steps[iy]), float(turn))
    return best


#: A card the next row covers is read by the lower half it leaves in view (its face field from `_LOWER_TOP` of its
#: height down: the card above lies over the upper half, a few millimetres off), by brightness alone (a table
#: camera's cast and blur move a small printed ring's colours far from the enrolment photos'), against every
#: label's templates cut alike, each at every blur of `vision.enroll.TEMPLATE_BLURS`, the part shifted up to
#: `_LOWER_SHIFT` of its width each way (the templates' inner part: a card lies a few millimetres off its place
#: and the lens moves a place; the frame line and margin, alike on every card, are left out). A published deck
#: prints on that half what tells its cards apart in a pyramid (as Ringside's code and name), but every card's half
#: shares its frame and layout, so labels correlate closely: the best label is named only where it may lie in that
#: row (the row's animal or a clown: a card the pyramid covers was laid legally or was caught when laid),
#: correlates at least `_LOWER_MIN` and leads the other card that may lie there by `_LOWER_LEAD`. On the Menagerie
#: deck's tuning tables (seeds 905,000,000 and 905,500,000 on, 313 covered cards at medium and hard) the best label
#: was one that may lie in its row 287 times, always the right card; the 285 named correlated at least 0.71 and led
#: the row's other card by at least 0.065. The rest (a card that may not lie there nearest: a 2 nearer a 7, a 3
#: nearer a 5; the hand over the half) are asked about as before.
_LOWER_TOP = 0.56
_LOWER_MIN = 0.7
_LOWER_LEAD = 0.03
_LOWER_SHIFT = 0.15
#: A covered card's lower half often correlates a little more with a look-alike that may not lie in its row (on the
#: Menagerie deck a 2 with the 7, a 1 or 3 with the 3 or 5, under the hard camera's blur) while still telling the
#: row's own two cards apart: the best of those is then named when the look-alike leads it by at most
#: `_LOWER_BEHIND`, it correlates at least `_LOWER_BEHIND_MIN` and leads the row's other card by `_LOWER_BEHIND_LEAD`.
#: On the tuning tables' hard photos (seeds 905,000,000 and 905,500,000 on, 20 each, 300 covered cards read by
#: their half) the best label of the row was the wrong one 3 times, each correlating 0.55 or less; a look-alike led the
#: right one 20 times, 11 of them by 0.028 or less at 0.828 or more and 0.037 or more ahead of the row's other card.
_LOWER_BEHIND = 0.03
_LOWER_BEHIND_MIN = 0.8
_LOWER_BEHIND_LEAD = 0.035
#: A covered card its place's crop leaves unread is read again cut where its bottom and lower sides lie
#: (`_card_pose` with ``lower``: the hard camera's lens moves a place up to 11 mm from where the mat's markers put it),
#: named only at `_LOWER_POSE_MIN` or more: a base card's bottom edge may be found on the light band printed below the
#: base row, and a crop cut so correlated up to 0.71 with a wrong label (a Clown) on the tuning tables (seeds
#: 905,000,000 and 905,500,000 on, hard, 30 each), while the covered cards it named right correlated 0.85 or more.
_LOWER_POSE_MIN = 0.8


class _LowerHalfReader:
    """An enrolled deck's templates cut to a card's lower half, in brightness (`vision.enroll.flattened`)."""

    def __init__(self, deck: Any) -> None:
        from vision.enroll import TEMPLATE_BLURS

        w, h = deck.crop_size
        self.deck = deck
        self.top = int(round(_LOWER_TOP * h))
        m = max(1, round(_LOWER_SHIFT * w))
        self.labels: tuple[str, ...] = tuple(deck.labels)
        self.owners = np.asarray(deck.template_owners, np.intp)
        self.views = [[np.ascontiguousarray(self._flat(t[self.top:], sigma)[m:-m, m:-m]) for t in deck.templates]
                      for sigma in TEMPLATE_BLURS]

    @staticmethod
    def _flat(image: NDArray[Any], sigma: float = 0.0) -> NDArray[Any]:
        from vision.enroll import flattened

        x: NDArray[Any] = np.asarray(image, np.float32)
        if sigma > 0:
            x = cv2.GaussianBlur(x, (0, 0), sigma)
        return np.ascontiguousarray(flattened(x)[..., 0])

    def scores(self, crop: NDArray[Any]) -> NDArray[Any]:
        """Each label's best correlation with the lower half of a face-field crop (cut as the deck's templates)."""
        part = self._flat(crop[self.top:])
        out = np.full(len(self.labels), -1.0)
        for views in self.views:
            for owner, view in zip(self.owners, views):
                out[owner] = max(out[owner], float(cv2.matchTemplate(part, view, cv2.TM_CCOEFF_NORMED).max()))
        return out

    def read(self, crop: NDArray[Any], row: int, covered: bool = True, least: float = _LOWER_MIN) -> Card | None:
        """The card whose lower half the crop shows at a place of ``row``, where the tests are sure; else None.
        ``covered``: a card of the next row lies over it (it was laid, and judged, before): only then may a
        look-alike that may not lie in the row correlate a little more (a card just laid may be an illegal play).
        ``least``: the least correlation to name a card (`_lower_choice`)."""
        allowed = [k for k, label in enumerate(self.labels) if label in (Card(row).notation, Card.CLOWN.notation)]
        best = _lower_choice(self.scores(crop), allowed, allow_behind=covered, least=least)
        return None if best is None else Card.parse(self.labels[best])

    def read_whole(self, crop: NDArray[Any], row: int) -> Card | None:
        """The card whose lower half a crop cut where a card no card covers lies (`_card_pose`) shows at a place of
        ``row``, where it leads every other label (`_whole_choice`); else None."""
        allowed = [k for k, label in enumerate(self.labels) if label in (Card(row).notation, Card.CLOWN.notation)]
        best = _whole_choice(self.scores(crop), allowed)
        return None if best is None else Card.parse(self.labels[best])


def _lower_choice(corr: NDArray[Any], allowed: list[int], allow_behind: bool = True,
                  least: float = _LOWER_MIN) -> int | None:
    """Which of the ``allowed`` labels (the cards that may lie in the row) a covered card's lower half names, by each
    label's correlation ``corr``; None where unsure. The best allowed label is named when it correlates at least
    `_LOWER_MIN` and leads the row's other card by `_LOWER_LEAD` and no label correlates more; or, where a label that
    may not lie in the row correlates more by at most `_LOWER_BEHIND` (a look-alike number under blur), when it
    correlates at least `_LOWER_BEHIND_MIN` and leads the row's other card by `_LOWER_BEHIND_LEAD` (only when
    ``allow_behind``). ``least``: a floor above those two where the half was cut less surely."""
    if not allowed:
        return None
    best = max(allowed, key=lambda k: float(corr[k]))
    lead = min((float(corr[best] - corr[k]) for k in allowed if k != best), default=math.inf)
    behind = float(np.max(corr)) - float(corr[best])
    if behind <= 0.0:
        return best if corr[best] >= max(least, _LOWER_MIN) and lead >= _LOWER_LEAD else None
    if allow_behind and behind <= _LOWER_BEHIND and corr[best] >= max(least, _LOWER_BEHIND_MIN) and \
            lead >= _LOWER_BEHIND_LEAD:
        return best
    return None


#: A card no card covers that the deck leaves unsure (the hard camera's blur) is read by its lower half too, cut where
#: its outline lies (`_card_pose`: a card laid by hand lies a few millimetres off and turned, which the place's own
#: crop misses), with `_LOWER_MIN` and `_LOWER_LEAD` over every label, not only the row's other card (it may have just
#: been laid, perhaps illegally). On the tuning tables (seeds 905,000,000 and 905,500,000 on, 30 hard and 10 medium
#: each, 839 crops cut so) 481 named the right card (least 0.709, 0.030 ahead) and none a wrong one: a wrong label led
#: by 0.03 or more correlated at most 0.546, and a wrong label at 0.55 or more never led by 0.03 (0.648, 0.021 ahead).
def _whole_choice(corr: NDArray[Any], allowed: list[int]) -> int | None:
    """Which label a lower half cut where an uncovered card lies names, by each label's correlation ``corr``: the
    label that correlates most, when it may lie in the row (one of ``allowed``), correlates at least `_LOWER_MIN` and
    leads every other label, not only the row's other card, by `_LOWER_LEAD`; None otherwise."""
    order = np.argsort(-np.asarray(corr, np.float64))
    best = int(order[0])
    lead = float(corr[best] - corr[order[1]]) if len(order) > 1 else math.inf
    return best if best in allowed and corr[best] >= _LOWER_MIN and lead >= _LOWER_LEAD else None


class Recognizer:
    """Frame -> `GrandiosoView`. Keeps the last frame's outcome: a frame that does not differ from the one last read
    (no block's mean moved by more than `vision.calibrate.REGION_SAME` grey levels: a still table filmed again;
    a card laid, taken or turned, a hand or a moved lamp moves some by tens) is not read again (`reset` forgets
    it)."""

    def __init__(self, config: VisionConfig = CONFIG, classifier: Any = None) -> None:
        self.config = config
        #: an enrolled deck's reader (`vision.classify.CropReader`): names a card whose code cannot be read
        self.classifier = classifier
        self._lower: _LowerHalfReader | None = None
        self._last: tuple[NDArray[Any], Result | NoMatError] | None = None

    def reset(self) -> None:
        """Forget the last frame read."""
        self._last = None

    def _read_face(self, frame: Image, cal: Calibration, row: int, col: int, whole: bool = False) -> Card | None:
        """The card at a place by its art (an enrolled deck), when the deck is sure of it; None otherwise.

        Asked only where a card lies (the place is brighter than the mat and not empty) but
        no code is read: a published card has none. The face field is cut from the frame
        where the card lies: where the layout puts it or, when its upper half shows (``whole``),
        where its outline's top and upper sides are found (`_card_pose`: a card laid by hand lies
        a few millimetres off and turned), within `_POSE_MM` and, where the deck names nothing there, where the
        outline shows better within `_POSE_FAR_MM` (the lens moves a place farther; a base card read before the
        row over it shows no top edge, and a look farther off must not lose it). A card is read whole when it is laid (nothing lies
        on it yet); once the next row covers its upper half the deck is often unsure, and
        an unsure card is reported unrecognised, then read by its lower half (`_read_covered`).
        A card found where it lies that the deck leaves unsure is named when the deck's templates alone name it clearly
        (`vision.enroll.Deck.named_by_templates`: a dark face's embedding lies far under the
        table camera's blur and cast while its print still matches).
        """
        if not whole:
            return self._named(self._face_crop(frame, cal, row, col), whole)
        return self._near_then_far(frame, cal, row, col, lambda crop: self._named(crop, whole))

    def _near_then_far(self, frame: Image, cal: Calibration, row: int, col: int,
                       read: Callable[[NDArray[Any]], Card | None]) -> Card | None:
        """``read`` of the face field cut where the card's outline lies within `_POSE_MM` and, where that names
        nothing, where it lies within `_POSE_FAR_MM` if that is elsewhere (`_card_poses`)."""
        near, farther = _card_poses(frame, cal, row, col)
        card = read(self._face_crop(frame, cal, row, col, near))
        if card is None and (best := farther()) != near:
            card = read(self._face_crop(frame, cal, row, col, best))
        return card

    def _named(self, crop: NDArray[Any], whole: bool) -> Card | None:
        """The card the deck names in a face-field crop (``whole``: by its templates alone too), None if none."""
        label = self.classifier.classify(crop[None], 0.0)[0].label
        if label is None and whole and (by_templates := getattr(self.classifier, "named_by_templates", None)):
            label = by_templates(crop[None])[0]
        if label is None:
            return None
        try:
            return Card.parse(label)
        except UnknownComponent:
            return None

    def _face_crop(self, frame: Image, cal: Calibration, row: int, col: int,
                   pose: tuple[float, float, float] | None = None) -> NDArray[Any]:
        """The face field of the card at a place, cut as the deck's crops are: where the layout puts it, or moved
        and turned by ``pose`` (mm, mm, degrees; `_card_pose`)."""
        r = MAT.card_rect(row, col)
        inset = CARD.margin + CARD.frame
        box = np.array([[r.x + inset, r.y + inset], [r.x + r.w - inset, r.y + inset],
                        [r.x + r.w - inset, r.y + r.h - inset], [r.x + inset, r.y + r.h - inset]], np.float64)
        if pose is not None:
            box = _moved(box, r.centre, *pose)
        corners = cv2.perspectiveTransform(box[None], cal.table_to_image)[0].astype(np.float32)
        w, h = getattr(self.classifier, "crop_size", (40, 56))
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        crop: NDArray[Any] = cv2.warpPerspective(colour, cv2.getPerspectiveTransform(corners, dst), (w, h),
                                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return crop

    def _read_covered(self, frame: Image, cal: Calibration, row: int, col: int, covered: bool = True) -> Card | None:
        """The card at a place, by the lower half it shows (`_LowerHalfReader`; ``covered``: the next row covers the
        rest), when the deck has templates and the tests are sure; None otherwise. A card no card covers that its
        place's crop leaves unsure is read again from its lower half cut where its outline lies (`_card_pose`,
        `_LowerHalfReader.read_whole`)."""
        if getattr(self.classifier, "templates", None) is None or getattr(self.classifier, "template_owners", None) is None:
            return None
        if self._lower is None or self._lower.deck is not self.classifier:
            self._lower = _LowerHalfReader(self.classifier)
        card = self._lower.read(self._face_crop(frame, cal, row, col), row, covered)
        if card is None and covered:
            # the half the next row leaves in view, cut where its bottom and lower sides lie
            card = self._lower.read(self._face_crop(frame, cal, row, col, _card_pose(frame, cal, row, col, True)),
                                    row, covered, _LOWER_POSE_MIN)
        if card is None and not covered:
            # a card laid by hand lies a few millimetres off and turned: its lower half cut where its outline lies
            lower = self._lower
            card = self._near_then_far(frame, cal, row, col, lambda crop: lower.read_whole(crop, row))
        return card

    def recognize(self, frame: Image) -> Result:
        """The view of one frame (the last one's when the frame does not differ from it).

        :raises NoMatError: when too few of the mat's markers are in view.
        """
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        thumb = block_means(gray)
        if self._last is not None and looks_same(self._last[0], thumb):
            last = self._last[1]
            if isinstance(last, NoMatError):
                raise last
            return replace(last, times=StageTimes())
        try:
            result = self._read(frame, gray)
        except NoMatError as exc:
            self._last = (thumb, exc)
            raise
        self._last = (thumb, result)
        return result

    def _read(self, frame: Image, gray: Image) -> Result:
        """The view of one frame (``gray``: the frame in grey)."""
        t0 = time.perf_counter()
        markers = find_markers(gray, self.config)
        t1 = time.perf_counter()
        robust = 0.0
        blur = FrameBlur(gray, sharpen_sigma(max(gray.shape[:2])))  # made once for the slow searches below
        cal = self._calibrate(markers)
        for one_window in (True, False):  # the slow search: with the fast one's threshold window, then with all
            if cal is not None:
                break
            t = time.perf_counter()
            markers = self._merge(markers, find_markers(gray, self.config, robust=True, one_window=one_window,
                                                              blur=blur))
            robust += time.perf_counter() - t
            cal = self._calibrate(markers) if one_window else None
        t2 = time.perf_counter()
        if cal is None:
            try:
                cal = mat_homography(markers, self.config)
            except NoMatError:
                # too few of the mat's markers decoded: the ones blur smeared are matched
                t = time.perf_counter()
                mat = tuple(m for m in markers if m.id in MAT.marker_ids)
                markers += mat_markers_by_matching(gray, self.config, mat, blur)
                robust += time.perf_counter() - t
                cal = mat_homography(markers, self.config)
        t3 = time.perf_counter()
        reading = _read_cards(markers, cal)
        top = _pyramid_top_down(gray, cal)
        paper = _paper_white(top, list(reading.pyramid))
        level = _median(top[::2, ::2])  # the mat's level: every other pixel tells it
        look = _MatLook.of(frame, top, cal, level) if self.classifier is not None else None
        vacant: set[tuple[int, int]] = set()  # places this frame shows hold no card
        mat_hue = functools.cache(lambda: _MatHue.of(frame, top, cal, level))  # made when first asked for
        for row, col in self._candidates(top, level, reading):
            on_vacant = row > 0 and ((row - 1, col) in vacant or (row - 1, col + 1) in vacant)
            if look.bare(reading, row, col) if look is not None else _empty(top, level, reading, row, col):
                vacant.add((row, col))
                continue  # the place's upper half shows the mat: no card lies there to read
            found = _match_code(gray, cal, row, col, _local_shift(reading, row, col), paper)
            if isinstance(found, Card):
                reading.pyramid[row, col] = found
            elif self.classifier is not None and \
                    (by_art := self._read_face(frame, cal, row, col, not _covered(reading, row, col))) is not None:
                reading.pyramid[row, col] = by_art
            elif (found is None or _glared(top, paper, row, col)) and \
                    (washed := _read_washed_out(gray, cal, row, col, _local_shift(reading, row, col))) is not None:
                reading.pyramid[row, col] = washed
            elif on_vacant or (look is None and not _covered(reading, row, col) and (
                    _bare_under_glare(top, _upper_window(row, col), paper, level, _glared(top, paper, row, col))
                    or _under_glare(top, _upper_window(row, col), _glared(top, paper, row, col))
                    and mat_hue().shows_mat(top, level, _upper_window(row, col)))):
                # no card may lie on a place that holds none: a code that cannot be read here is not asked about;
                # nor where glare lies over a place whose upper half shows no print (the bare mat), or shows the mat
                vacant.add((row, col))
            elif found is None:
                reading.problem(Unrecognised(_place_name(row, col), "a card whose code cannot be read", row, col,
                                             unread=True))
            elif _glared(top, paper, row, col) or (found is False and look is None
                                                    and _code_hidden_under_card(top, paper, level, reading, row, col)):
                reading.problem(Unrecognised(_place_name(row, col), "glare on the place: a code may lie under it",
                                             row, col, unread=True))
            elif look is not None and found is False and not _covered(reading, row, col) and \
                    look.bare_under_glare(row, col):
                vacant.add((row, col))  # with a deck: glare over the bare mat, its colour and grey light
            elif look is not None and found is False:
                # with a deck (a published deck prints no code): the place shows no bare mat and the deck names
                # nothing there, so a card it cannot name may lie there; asked about, never left out
                reading.problem(Unrecognised(_place_name(row, col), "a card the deck cannot name", row, col,
                                             unread=True))
        # a card read or asked about above the base lies on the two places below it: one that shows no card read is
        # asked about, never left out (glare may hide its code without saturating it, and its paper is covered)
        for row in range(ROWS - 1, 0, -1):
            held = {(u.row, u.col) for u in reading.problems.values() if u.row is not None and u.col is not None}
            for above in [p for p in (set(reading.pyramid) | held) if p[0] == row]:
                for place in ((row - 1, above[1]), (row - 1, above[1] + 1)):
                    if place not in reading.pyramid and place not in held:
                        reading.problem(Unrecognised(_place_name(*place), "a card under a card above it shows no code "
                                                     "that can be read", place[0], place[1], unread=True))
                        held.add(place)
        if self.classifier is not None:
            # with a deck, a held card is read by the lower half it shows: a card read or held above it may cover
            # its upper half, or glare wash it out
            lying = set(reading.pyramid) | {(u.row, u.col) for u in reading.problems.values()}
            for where, u in list(reading.problems.items()):
                if u.row is None or u.col is None or not u.unread:
                    continue
                covered = (u.row + 1, u.col - 1) in lying or (u.row + 1, u.col) in lying
                if (by_half := self._read_covered(frame, cal, u.row, u.col, covered)) is not None:
                    reading.pyramid[u.row, u.col] = by_half
                    del reading.problems[where]
        if (0, 0) not in reading.pyramid and not any((u.row, u.col) == (0, 0) for u in reading.problems.values()):
            # the start Elephant never leaves its spot: a spot that shows no card is asked about, never empty
            reading.problem(Unrecognised(_place_name(0, 0), "the start Elephant's spot shows no card that can be read",
                                         0, 0, unread=True))
        if len(reading.shown) > 1:
            reading.problem(Unrecognised("the stack", "more than one card lies face up on the stack"))
        by_match = _singles_by_match(gray, cal)
        if len(by_match) > len(reading.singles):
            reading.singles = by_match
        by_place, unsure = _singles_by_place(gray, cal, reading.singles)
        reading.singles += by_place
        if unsure:
            unsure = _glared_bare_singles(gray, cal, unsure, paper, level)
        if unsure:
            reading.problem(Unrecognised("the singles row", "place " + ", ".join(map(str, unsure))
                                         + " unclear (glare?): a face-down single may lie there",
                                         places=tuple(unsure)))
        t4 = time.perf_counter()
        view = GrandiosoView(
            pyramid=reading.pyramid,
            singles=len(reading.singles),
            single_xs=tuple(sorted(reading.singles)),
            stack=reading.stack,
            loose=tuple(reading.loose),
            unrecognised=tuple(reading.problems.values()),
            shown=reading.shown[0] if len(reading.shown) == 1 else None,
        )
        ms = 1000.0
        times = StageTimes((t1 - t0) * ms, (t3 - t2) * ms, (t4 - t3) * ms, robust * ms)
        return Result(view, cal, markers, times)

    def _calibrate(self, markers: tuple[Marker, ...]) -> Calibration | None:
        """The mat's calibration from the fast search's markers; None when they do not fix the mat (the
        slow search then runs over the whole frame)."""
        try:
            return mat_homography(markers, self.config)
        except NoMatError:
            return None

    @staticmethod
    def _merge(first: tuple[Marker, ...], more: tuple[Marker, ...]) -> tuple[Marker, ...]:
        """``first`` and the markers of ``more`` that lie apart from all of them (no id twice at one place)."""
        out = list(first)
        for m in more:
            c = m.corners.mean(axis=0)
            if all(np.linalg.norm(c - o.corners.mean(axis=0)) > 4.0 for o in out):
                out.append(m)
        return tuple(out)

    @staticmethod
    def _candidates(top: Image, level: float, reading: _Reading) -> list[tuple[int, int]]:
        """Pyramid places with no card read where a card could lie, bottom row first: the start spot, beside
        a base card seen, or on two cards seen (read, held or found here), whose code area is brighter than the mat."""
        seen = set(reading.pyramid) | {(u.row, u.col) for u in reading.problems.values() if u.row is not None}
        # the start Elephant's spot always holds a card
        out: list[tuple[int, int]] = []
        for row in range(ROWS):
            if row == 0:
                grown = True
                while grown:  # the base grows from the cards seen, one place at a time
                    grown = False
                    for col in COLUMNS:
                        place = (0, col)
                        if place in seen or place in out or not (col == 0 or (0, col - 1) in seen or (0, col + 1) in seen):
                            continue
                        out.append(place)
                        if _bright(top, level, 0, col):
                            seen.add(place)
                            grown = True
                continue
            for col in COLUMNS:
                place = (row, col)
                if place in seen or not MAT.in_place(row, col):
                    continue
                if (row - 1, col) in seen and (row - 1, col + 1) in seen:
                    out.append(place)
                    if _bright(top, level, row, col):
                        seen.add(place)
        return [p for p in out if _bright(top, level, *p)]


def annotate(frame: Image, result: Result) -> Image:
    """The frame with each card read outlined and named (green), unrecognised places in red."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    unit = max(1, out.shape[1] // 640)

    def quad(rect_pts: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(cv2.perspectiveTransform(rect_pts.reshape(1, -1, 2),
                                                   result.calibration.table_to_image)[0])

    def card_outline(row: int, col: int) -> NDArray[Any]:
        r = MAT.card_rect(row, col)
        pts = np.array([[r.x, r.y + r.h / 2], [r.x + r.w, r.y + r.h / 2], [r.x + r.w, r.y + r.h],
                        [r.x, r.y + r.h]], np.float64)
        return quad(pts)

    for (row, col), card in result.view.pyramid.items():
        pts = card_outline(row, col)
        cv2.polylines(out, [pts.astype(np.int32)], True, (0, 200, 0), unit)
        cv2.putText(out, card.label, tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.35 * unit,
                    (0, 200, 0), unit, cv2.LINE_AA)
    for u in result.view.unrecognised:
        if u.row is not None and u.col is not None:
            cv2.polylines(out, [card_outline(u.row, u.col).astype(np.int32)], True, (0, 0, 255), 2 * unit)
    return out
