"""A place's crop read by fitting each card's clean printed face to it, glare and blur allowed for.

Ringside prints the Big Top faces itself (`vision.bigtop.faces`), so what a card may look like
under the camera is known up to the light: each colour channel scaled (exposure, white balance,
vignetting), a smooth field of light added (a glare spot, linear light, clipped at white), and
blur. `fit_costs` fits that model to a crop for each candidate card and measures what it leaves
unexplained; pixels the glare saturated constrain the fit only to be that bright. Where glare
saturates the numeral every card of the place's suit and shade fits alike, and the fit
says so: `face_read` names a card only when it fits clearly better than every other card
that may lie there (`MARGIN`) and well in itself (`MAX_COST`). A Poster pile's crop the classifier takes for
nothing is its Poster where the classifier still ranks the Poster first among the suit's cards and the fit names
it over every numbered card and over the suit's face with no numeral (`poster_confirmed`).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import DECK, Card, Suit
from vision.bigtop.faces import render_card, render_unnumbered
from vision.bigtop.layout import CARD, CARD_FACE_VERSION, card_numerals
from vision.classify import NONE, Recognition, Verdict
from vision.recall import crop_signature, crop_tolerance

__all__ = ["BLURS", "MARGIN", "MAX_COST", "MIN_CONFIDENCE", "NUMERAL_APART", "POSTER_SHARE", "POSTER_WEIGHT", "VERSIONS",
           "FitMemory", "confirmed", "face_read", "fit_costs", "numeral_clipped", "poster_confirmed", "prepare_faces",
           "print_of", "unnumbered"]

#: the camera's tone curve, as sRGB's near enough
GAMMA = 2.2
#: a channel at or above this (linear light) is taken as clipped: it says only that the pixel is bright
CLIPPED = 0.88
#: a channel's gain is within this factor of the channels' geometric mean (the camera's white balance)
WHITE_BALANCE = 1.3
#: the added light is smooth over this many crop pixels (Gaussian sigma; a numeral's stroke is 2 to 3)
FIELD_SIGMA = 4.0
#: the camera's blur tried (Gaussian sigma, crop pixels), and the crop's misplacement (whole pixels)
BLURS = (0.5, 1.0, 1.6, 2.4)
SHIFTS = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
#: a card is named when every other candidate leaves at least this many times its unexplained light ...
MARGIN = 2.0
#: ... and its own is below this (mean squared difference over the numeral's rows, grey levels over 255, squared)
MAX_COST = 0.002
#: `confirmed` looks again only at a classifier's unsure reading at least this confident
MIN_CONFIDENCE = 0.5
#: `poster_confirmed`: the classifier's probabilities over the suit's cards give its Poster at least this share, ...
POSTER_SHARE = 0.98
#: ... and add up to at least this much: taking a crop for nothing, the classifier still ranks the cards, but at
#: odds of a million to one (on tuning tables the bare print, a hand or clutter over a place ranked one card at a
#: share of 0.91 to 0.999 with the cards' total under 0.00025; the Posters the fit named, 0.012 to 0.019)
POSTER_WEIGHT = 0.005
#: `numeral_clipped`: a pixel tells a card from its pile's other cards where their printed faces differ by this much
#: in some channel (grey levels over 255, camera tone curve, the faces blurred as `BLURS`' second)
NUMERAL_APART = 0.15
#: rendering scale of the templates (px/mm) before they are shrunk to the crop's size
_RENDER_PX_PER_MM = 6.0
_ITERATIONS = 3


#: the card face print versions a crop is fitted to (`vision.bigtop.layout.card_numerals`), the newest first
VERSIONS = (CARD_FACE_VERSION, 1)


@functools.lru_cache(maxsize=8)
def _templates(width: int, height: int, version: int = CARD_FACE_VERSION) -> dict[str, NDArray[np.float32]]:
    """Every card's face field as card face print ``version`` draws it at the crop's size, and each suit's with no
    numeral (`unnumbered`), linear light: ``(height + 2, width + 2, 3)`` (a pixel of the frame line around, for
    shifts)."""
    out: dict[str, NDArray[np.float32]] = {}
    s = _RENDER_PX_PER_MM
    f = int(round((CARD.margin + CARD.frame) * s))
    faces = [(card.notation(), render_card(card, s, version)[0]) for card in DECK]
    faces += [(unnumbered(suit), render_unnumbered(suit, s, version)[0]) for suit in Suit]
    for label, img in faces:
        field = img[f:img.shape[0] - f, f:img.shape[1] - f]
        # one crop pixel more on every side: the frame line where a shifted crop shows it
        px_w, px_h = field.shape[1] / width, field.shape[0] / height
        mx, my = int(round(px_w)), int(round(px_h))
        padded = cv2.copyMakeBorder(field, my, my, mx, mx, cv2.BORDER_CONSTANT, value=(35, 30, 30))
        small = cv2.resize(padded, (width + 2, height + 2), interpolation=cv2.INTER_AREA)
        lin = (small.astype(np.float32) / 255.0) ** GAMMA
        lin.flags.writeable = False
        out[label] = lin
    return out


def unnumbered(suit: Suit) -> str:
    """The label `fit_costs` knows ``suit``'s face with no numeral by: its colour, frame and icon only."""
    return f"{suit.label}-unnumbered"


def _fits(seen: NDArray[np.float32], faces: NDArray[np.float32], rows: slice | NDArray[np.intp]) -> list[float]:
    """How much of ``seen`` (linear ``(H, W, 3)``) each of the ``(K, H, W, 3)`` printed ``faces`` leaves unexplained
    over ``rows``, fitted with a gain per channel and a smooth added field (clipped at white): mean squared difference
    in grey levels / 255.

    All faces are fitted at once, each with the same arithmetic, element by element and sum by sum, as it alone
    (the same answers bit for bit whatever the batch); what does not depend on the face (the clipped pixels, the
    smoothing's weights) is worked out once.
    """
    # pixel by pixel, then face by face: a sum over the pixels adds each face's pixels in the same order whatever
    # the batch, all faces' channels in one step
    stacked = np.ascontiguousarray(faces.transpose(1, 2, 0, 3))
    free = (seen < CLIPPED).astype(np.float32)
    # a sum over the three channels, added in their order as numpy adds three values
    w = (free[..., 0] + free[..., 1]) + free[..., 2]
    weight = np.maximum(w, 0.5 * (w == 0)).astype(np.float32)
    den_field = cv2.GaussianBlur(weight, (0, 0), FIELD_SIGMA)[..., None]
    kept = np.maximum(w, 1.0)[..., None]
    seen_k, free_k = seen[:, :, None], free[:, :, None]
    free_faces = free_k * stacked
    den = (free_faces * stacked).sum(axis=(0, 1))
    field = np.zeros((*seen.shape[:2], len(faces)), np.float32)
    gain = np.ones((len(faces), 3), np.float32)
    big = np.empty_like(stacked)
    for _ in range(_ITERATIONS):
        np.subtract(seen_k, field[..., None], out=big)
        num = np.multiply(free_faces, big, out=big).sum(axis=(0, 1))
        g = np.maximum(num / np.maximum(den, 1e-6), 0.02)
        # white balance moves a channel's gain only so far from the others' (the bounds rounded to float32 as a
        # Python float's are)
        mid = np.exp(np.log(g).mean(axis=1)).astype(np.float64)[:, None]
        gain = np.clip(g, (mid / WHITE_BALANCE).astype(np.float32), (mid * WHITE_BALANCE).astype(np.float32)
                       ).astype(np.float32)
        lit = np.multiply(stacked, gain, out=big)
        # where every channel clipped the field is at least what makes the brightest channel clip
        floor = np.maximum(CLIPPED - np.maximum(np.maximum(lit[..., 0], lit[..., 1]), lit[..., 2]), 0.0)
        left = np.multiply(np.subtract(seen_k, lit, out=big), free_k, out=big)
        raw = ((left[..., 0] + left[..., 1]) + left[..., 2]) / kept
        raw = np.where(w[..., None] > 0, raw, floor).astype(np.float32)
        weighted = np.ascontiguousarray((raw * weight[..., None]).transpose(2, 0, 1))
        smooth = np.stack([cv2.GaussianBlur(r, (0, 0), FIELD_SIGMA) for r in weighted], axis=2)
        field = np.maximum((smooth / np.maximum(den_field, 1e-3)).astype(np.float32), 0.0)
    model = np.clip(stacked[rows] * gain + field[rows, :, :, None], 0.0, 1.0)
    diff = seen_k[rows] ** (1 / GAMMA) - model ** (1 / GAMMA)
    return [float((d * d).mean()) for d in np.ascontiguousarray(diff.transpose(2, 0, 1, 3))]


def _numeral_rows(height: int, version: int = CARD_FACE_VERSION) -> slice | NDArray[np.intp]:
    """The crop's rows that show the numerals of card face print ``version`` (each its cap height,
    `vision.bigtop.layout.card_numerals`, a pixel more; print 1's one numeral ``0.29 +- 0.17`` of the field's height)."""
    bands = _numeral_bands(height, version)
    if len(bands) == 1:
        return bands[0]
    return np.unique(np.concatenate([np.arange(b.start, b.stop) for b in bands])).astype(np.intp)


def _numeral_bands(height: int, version: int = CARD_FACE_VERSION) -> list[slice]:
    """`_numeral_rows` numeral by numeral, top first."""
    if version < 2:
        return [slice(max(int(height * 0.12) - 1, 0), int(np.ceil(height * 0.46)) + 1)]
    return [slice(max(int(height * (c - sz / 2)) - 1, 0), min(int(np.ceil(height * (c + sz / 2))) + 1, height))
            for c, sz in card_numerals(version)]


def fit_costs(crop: NDArray[np.uint8], labels: Sequence[str], blur: float, shift: tuple[int, int],
              version: int = CARD_FACE_VERSION) -> list[float]:
    """`_fits`' unexplained light of a ``(H, W, 3)`` uint8 BGR crop for each card of ``labels`` (their faces as card
    face print ``version`` draws them, blurred by ``blur`` px and seen ``shift`` whole px off)."""
    h, w = crop.shape[:2]
    top = _fitted_rows(h, version)
    seen = (crop[:top].astype(np.float32) / 255.0) ** GAMMA
    tpl = _blurred(w, h, blur, version)
    dx, dy = shift
    return _fits(seen, np.stack([tpl[lab][1 + dy:1 + dy + top, 1 + dx:1 + dx + w] for lab in labels]),
                 _numeral_rows(h, version))


def _fitted_rows(height: int, version: int = CARD_FACE_VERSION) -> int:
    """How many of the crop's rows, from its top, are fitted: the numerals and the face field around them (print
    1: its top 60%; later prints, a numeral at the foot too: all)."""
    return min(int(np.ceil(height * 0.6)), height) if version < 2 else height


@functools.lru_cache(maxsize=32)
def _blurred(width: int, height: int, blur: float, version: int = CARD_FACE_VERSION) -> dict[str, NDArray[np.float32]]:
    """`_templates` blurred by ``blur`` px."""
    out: dict[str, NDArray[np.float32]] = {}
    for lab, t in _templates(width, height, version).items():
        b: NDArray[np.float32] = cv2.GaussianBlur(t, (0, 0), blur).astype(np.float32)
        b.flags.writeable = False
        out[lab] = b
    return out


def prepare_faces(width: int, height: int) -> None:
    """Make now every printed face `face_read` fits to a ``width`` x ``height`` crop, at every blur and print
    (`VERSIONS`), so that the first crop fitted (a glare frame's, the process's first) does not draw them."""
    for version in VERSIONS:
        for blur in BLURS:
            _blurred(width, height, blur, version)


def numeral_clipped(crop: NDArray[np.uint8], label: str, version: int = CARD_FACE_VERSION) -> float:
    """The share of the pixels of a ``(H, W, 3)`` uint8 BGR place crop that tell the card ``label`` from the other
    cards of its pile (its suit's cards of its shade; a Poster from its suit's numbered cards), and that the card
    prints in colour or ink (not white), where the brightest channel is clipped (`CLIPPED`): at 1.0 glare has
    whitened all its numeral shows and no fit of this crop can name it. For tracing: what a place held under glare had
    left to read. A card face print ``version`` with two numerals gives the least of theirs: what the numeral glare
    whitened least had left."""
    return min(_clipped_over(crop, label, rows, version) for rows in _numeral_bands(crop.shape[0], version))


def _clipped_over(crop: NDArray[np.uint8], label: str, rows: slice | NDArray[np.intp], version: int) -> float:
    """`numeral_clipped` over the crop's ``rows`` (one numeral's)."""
    card = Card.parse(label)
    pile = [c.notation() for c in DECK if c.suit is card.suit and (card.is_poster or c.shade is card.shade)]
    h, w = crop.shape[:2]
    tpl = _blurred(w, h, BLURS[1], version)
    faces = np.stack([tpl[c][1:1 + h, 1:1 + w][rows] for c in pile]) ** (1 / GAMMA)
    own = faces[pile.index(label)]
    # where the card itself is printed white (a light numeral's strokes) a clipped pixel still fits it: only the
    # pixels it prints in colour or ink can be lost
    apart = (((faces.max(axis=0) - faces.min(axis=0)).max(axis=-1) > NUMERAL_APART)
             & (own.min(axis=-1) < 1.0 - NUMERAL_APART))
    if not apart.any():
        return 0.0
    seen = (crop[rows].astype(np.float32) / 255.0) ** GAMMA
    return float((seen.max(axis=-1) >= CLIPPED)[apart].mean())


def face_read(crop: NDArray[np.uint8], candidates: Sequence[str], guess: str = "") -> tuple[str, float, float]:
    """The card of ``candidates`` whose printed face fits ``crop`` best, its cost, and the next best's cost
    over it (``"", inf, 0`` when fewer than two candidates). The camera's blur and the crop's shift are
    fitted to ``guess`` when it is a candidate (the classifier's best guess), else to the candidate that
    fits best unblurred and in place; then every candidate is fitted at those."""
    if len(candidates) < 2:
        return "", float("inf"), 0.0
    if guess not in candidates:
        tried = [(c, k) for v in VERSIONS for k, c in enumerate(fit_costs(crop, list(candidates), BLURS[1], (0, 0), v))]
        guess = candidates[min(tried)[1]]
    version = print_of(crop, guess)
    h = crop.shape[0]
    if version < 2:
        return _read_part(crop, candidates, guess, version, (0, _fitted_rows(h, version)), _numeral_bands(h, version)[0])
    # each numeral in its own half, read where glare clipped less of its rows: a glare spot over one half leaves
    # every card's fit there alike, and its light does not reach the other half's fit
    bands = _numeral_bands(h, version)
    clipped = [float(((crop[band].astype(np.float32) / 255.0) ** GAMMA >= CLIPPED).any(axis=-1).mean())
               for band in bands]
    k = int(np.argmin(clipped))
    return _read_part(crop, candidates, guess, version, _halves(h)[k], bands[k])


def _read_part(crop: NDArray[np.uint8], candidates: Sequence[str], guess: str, version: int,
               part: tuple[int, int], band: slice) -> tuple[str, float, float]:
    """`face_read` over the crop's rows ``part`` (from, to) alone, their numeral's rows ``band`` (crop rows)."""
    h, w = crop.shape[:2]
    lo, hi = part
    rows = slice(band.start - lo, band.stop - lo)
    seen = (crop[lo:hi].astype(np.float32) / 255.0) ** GAMMA
    # every blur and shift fitted to the guess at once
    poses = [(bl, sh) for bl in BLURS for sh in SHIFTS]
    faces = np.stack([_blurred(w, h, bl, version)[guess][1 + dy + lo:1 + dy + hi, 1 + dx:1 + dx + w]
                      for bl, (dx, dy) in poses])
    _, bl, (dx, dy) = min((cost, bl, sh) for cost, (bl, sh) in zip(_fits(seen, faces, rows), poses))
    tpl = _blurred(w, h, bl, version)
    costs = _fits(seen, np.stack([tpl[lab][1 + dy + lo:1 + dy + hi, 1 + dx:1 + dx + w] for lab in candidates]), rows)
    order = np.argsort(costs)
    first, second = costs[int(order[0])], costs[int(order[1])]
    return candidates[int(order[0])], first, second / max(first, 1e-9)


def print_of(crop: NDArray[np.uint8], label: str) -> int:
    """Which card face print (`VERSIONS`) of the card ``label`` fits a ``(H, W, 3)`` uint8 BGR crop best: where its
    numerals and icon lie tells the prints apart. Each half of the crop is fitted apart and a print is judged by the
    half it fits better, so a glare spot over one half leaves the other to tell."""
    h, w = crop.shape[:2]
    best = []
    for lo, hi in _halves(h):
        seen = (crop[lo:hi].astype(np.float32) / 255.0) ** GAMMA
        faces = np.stack([_blurred(w, h, BLURS[1], v)[label][1 + lo:1 + hi, 1:1 + w] for v in VERSIONS])
        best.append(_fits(seen, faces, slice(0, hi - lo)))
    return VERSIONS[int(np.argmin(np.min(best, axis=0)))]


def _halves(height: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The crop's top and bottom halves' rows (from, to), the middle row in both."""
    mid = height // 2
    return (0, mid + 1), (mid, height)


class FitMemory:
    """`face_read`'s answer per place, given again for a crop alike the one it was read from (every 2x2
    block's mean within `vision.recall.crop_tolerance` of it) with the same guess and candidates: a still
    table's unsure place is fitted once, not every frame. `reset` for another table."""

    def __init__(self) -> None:
        self._last: dict[Hashable, tuple[NDArray[Any], float, str, tuple[str, ...], tuple[str, float, float]]] = {}

    def reset(self) -> None:
        """Forget every answer."""
        self._last.clear()

    def face_read(self, place: Hashable, crop: NDArray[np.uint8], candidates: Sequence[str],
                  guess: str) -> tuple[str, float, float]:
        """`face_read`, or its last answer at ``place`` for a crop alike ``crop``."""
        sig = crop_signature(crop[None])[0]
        seen = self._last.get(place)
        cands = tuple(candidates)
        if (seen is not None and seen[2] == guess and seen[3] == cands
                and int(np.abs(seen[0] - sig).max(initial=0)) <= seen[1]):
            return seen[4]
        answer = face_read(crop, cands, guess)
        self._last[place] = (sig, float(crop_tolerance(sig)), guess, cands, answer)
        return answer


def confirmed(crops: NDArray[np.uint8], recognitions: Sequence[Recognition], candidates: Sequence[Sequence[str]],
              places: Sequence[Hashable] | None = None, memory: FitMemory | None = None) -> list[Recognition]:
    """``recognitions`` of ``(N, H, W, 3)`` place crops, each classifier reading left unsure (at least
    `MIN_CONFIDENCE`) whose best guess is one of its place's ``candidates`` (the cards that may lie there)
    made identified when `face_read` names the same card, fitting well (`MAX_COST`) and clearly better than
    every other candidate (`MARGIN`): two readers that share nothing agree. With a ``memory``, each crop's
    fit is asked of it under its place's key in ``places``."""
    out = list(recognitions)
    for i, r in enumerate(out):
        if r.verdict is not Verdict.UNSURE or r.confidence < MIN_CONFIDENCE or r.best not in candidates[i]:
            continue
        if memory is not None and places is not None:
            label, cost, ratio = memory.face_read(places[i], crops[i], candidates[i], r.best)
        else:
            label, cost, ratio = face_read(crops[i], candidates[i], r.best)
        if label == r.best and cost <= MAX_COST and ratio >= MARGIN:
            out[i] = Recognition(Verdict.IDENTIFIED, r.best, r.confidence)
    return out


def poster_confirmed(crops: NDArray[np.uint8], recognitions: Sequence[Recognition], posters: Sequence[str],
                     shares: Sequence[float], weights: Sequence[float], places: Sequence[Hashable] | None = None,
                     memory: FitMemory | None = None) -> list[Recognition]:
    """``recognitions`` of ``(N, H, W, 3)`` crops of Poster piles, each that the classifier took for nothing (or was
    unsure of, nothing or the pile's Poster its best guess) made the pile's Poster (``posters``, one a crop) where
    the classifier, asked which of the suit's cards it is, gives the Poster at least `POSTER_SHARE` of them
    (``shares``), the cards together at least `POSTER_WEIGHT` (``weights``), and `face_read` names the Poster
    among the suit's cards and its face with no numeral (`unnumbered`): fitting well (`MAX_COST`) and clearly
    better (`MARGIN`) than every numbered card and than no numeral at all, so the "P" itself shows. A glare spot
    over a Poster's picture leaves its grey "P" faint, and the classifier then may take the crop for nothing while
    it still ranks the Poster far above every other card; the fit and that ranking are two readers that agree.
    With a ``memory``, each crop's fit is asked of it under its place's key in ``places``."""
    out = list(recognitions)
    for i, (r, poster, share, weight) in enumerate(zip(out, posters, shares, weights)):
        if (r.verdict is Verdict.IDENTIFIED or r.best not in (NONE, poster) or not share >= POSTER_SHARE
                or not weight >= POSTER_WEIGHT):
            continue
        card = Card.parse(poster)
        among = (poster, *(c.notation() for c in DECK if c.suit is card.suit and c != card), unnumbered(card.suit))
        if memory is not None and places is not None:
            label, cost, ratio = memory.face_read((places[i], "poster"), crops[i], among, poster)
        else:
            label, cost, ratio = face_read(crops[i], among, poster)
        if label == poster and cost <= MAX_COST and ratio >= MARGIN:
            out[i] = Recognition(Verdict.IDENTIFIED, poster, share)
    return out
