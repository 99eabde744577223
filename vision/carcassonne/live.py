"""Frame after frame of one Carcassonne game from a fixed camera: the board read incrementally, and the hint zone.

A live referee sees the same board grow by one tile a turn. `LiveRecognizer`
finds the grid once and keeps it (the camera and the laid tiles do not move),
and then reads only what changed: each frame is compared with the last one read
(every second pixel), the changed pixels are mapped to their cells, and only
the cells where enough changed are classified (a tile laid, a figure put on or
taken off), with the cells never read yet (new neighbours of the board) and
those still unsure. A still frame costs one comparison; a full 92-tile board
costs a few cells a turn instead of all of them.

The grid: from the start tile alone (one square on the table: its outline is
the first cell, corrected for the small gap between laid tiles), then fitted to
every tile's own outline, measured when the tile is laid (the one tile-sized
square that changed against the frame before): an affine map while the board is
small, a homography once it spans three cells both ways. A tile's own outline
also cuts it for the classifier, so a tile is read where it lies even where
the grid is a pixel or two off. The seam-based grid finder
(`vision.carcassonne.grid.find_grid`) serves when the first view shows more
than one tile, and its seam search refits the grid while most tiles' outlines
are unknown. Cells are numbered from the first tile seen (x right, y down).

Each cell is read on its own: every (type, rotation) of the catalog is scored
by the classifier's class and edge heads and the box's counts; a cell whose
best reading is below `THRESHOLD` is unsure (kept with its best guess, never
reported as a tile) and read again on every frame until it reads sure.
Neighbours are not used to settle a cell: at the table the
rules engine knows every tile already laid, and a new tile whose edges do not
match its neighbours is an illegal placement to report, not a misreading to
explain away. A cell read as a sure tile keeps its reading until most of it
changed (the tile taken away or swapped): what changes on a laid tile is a
figure put on or taken off, and the tile is best read bare (a figure can hide
a road, and the classifier may take a tile under a figure for no tile at all).

Figures are found on the whole board seen from above (blobs of a figure colour,
each on the feature under its centre); on the acrobat space a smaller blob is
an acrobat (half hidden by the figure beside it) when it is longer than the
round dots of the space's art. In a stack of acrobats of several colours the
top one hides most of those below: a player colour other than the top's just
below the top blob is one more acrobat of that colour.

The hint zone is a fixed strip at the right edge of the frame (``hint_share`` of
its width, marked on the table); the board must stay out of it. A tile shown
there is read for its type only (a player asks where it fits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import CATALOG, Special, box, rotated
from vision.carcassonne.classifier import TileClassifier, cut_crops
from vision.carcassonne.dataset import EDGE_INDEX
from vision.carcassonne.features import spot_at
from vision.carcassonne.figures import FIGURE_COLOURS, clipped_sides, footprint_centre
from vision.carcassonne.grid import find_grid, refine_seams
from vision.carcassonne.labels import NONE, ROTATIONS, TILE_NAMES, canonical_rotation, label

__all__ = ["HINT_SHARE", "UNSURE", "LiveReading", "LiveRecognizer", "LiveTimes"]

#: the default share of the frame's width, at its right edge, that is the hint zone
HINT_SHARE = 0.2
#: a cell below this confidence is unsure
THRESHOLD = 0.6
#: weight of the edge head's evidence against the class head's
EDGE_WEIGHT = 2.0
#: the hint zone's reading when something lies there that is no sure tile
UNSURE = "?"
#: a pixel whose colour moved by more than this (any channel) has changed
_PIXEL_CHANGE = 30
#: a cell with more than this share of changed pixels is read again
_CELL_CHANGE = 0.004
#: a laid tile of which more than this share changed was taken away (a figure, even the Big Top, covers less)
_TILE_GONE = 0.5
#: pixels a cell on the top-down view in which figures are looked for
_CELL = 64
#: figure sizes as a share of the tile side (as `vision.carcassonne.figures` draws them), an acrobat's step in a stack
_SIZES = {"meeple": 0.30, "ringmaster": 0.38, "acrobat": 0.22}
_STACK_STEP = 0.1
#: the smallest blob (share of a cell) and its narrowest side (share of the cell's side) that is a figure
_MIN_AREA, _MIN_SIDE = 0.012, 0.1
#: a figure's outline fills at most this share of its box (a solid square of a player colour is tile art: the roof
#: at a crossroads)
_MAX_FILL = 0.85
#: on the acrobat space: the smallest blob that is an acrobat (the smallest figure, often half hidden by the figure
#: beside it), whose longest side must reach `_MIN_SIDE` (the space's art has small round dots of player colours)
_MIN_ACROBAT = 0.007
#: the acrobat space's radius, a share of the tile side (a figure whose middle is within it stands there)
_ACROBAT_SPACE = 0.3
#: a pixel this far (Lab) from every figure colour is no figure
_FAR = 34.0
#: a blob whose colour is on average further than this from its figure colour (0 far .. 1 exact) is no figure
_MIN_CONFIDENCE = 0.4
#: pixels of another player colour just below an acrobat blob (within `_FAR`) that are an acrobat under it in the
#: stack (black and grey are left out: the top figure's shadow and outline are dark)
_UNDER_PIXELS = 8
#: the most a channel's gain of the colour balance may differ from the mean gain (a share of it)
_GAIN_SPREAD = 0.05
_COLOUR_NAMES = tuple(FIGURE_COLOURS)
_LABS = np.stack([cv2.cvtColor(np.array([[FIGURE_COLOURS[n]]], np.uint8), cv2.COLOR_BGR2Lab).reshape(3).astype(np.float32)
                  for n in _COLOUR_NAMES])
#: the share of the tile side that the gap between two laid tiles takes, on each side
_GAP = 0.0125


@dataclass(frozen=True, slots=True)
class LiveTimes:
    """Milliseconds spent on one frame: cutting and comparing cells, classifying the changed ones, figures."""

    crops: float = 0.0
    classify: float = 0.0
    view: float = 0.0


@dataclass(frozen=True, slots=True)
class LiveReading:
    """One frame's reading: tiles (x, y, type, rotation), unsure cells (x, y, best guess, rotation),
    figures (x, y, figure, colour, feature) and the hint zone (a type, `UNSURE`, or None when empty).

    Confidences are left out: two frames of the same table read the same.
    """

    tiles: tuple[tuple[int, int, str, int], ...]
    unsure: tuple[tuple[int, int, str, int], ...] = ()
    figures: tuple[tuple[int, int, str, str, str], ...] = ()
    hint: str | None = None
    times: LiveTimes = field(default_factory=LiveTimes, compare=False)


_PAIRS: tuple[tuple[str, int], ...] = tuple((n, r) for n in TILE_NAMES for r in ROTATIONS if canonical_rotation(n, r) == r)
_EDGES = np.array([[EDGE_INDEX[e.value] for e in rotated(n, r).edges] for n, r in _PAIRS], np.int64)
_TYPE_OF = np.array([TILE_NAMES.index(n) for n, _ in _PAIRS])


def _pair_scores(probs: NDArray[Any], edges: NDArray[Any], labels: tuple[str, ...], expansion: bool) -> NDArray[Any]:
    """``(N, pairs)`` log-scores of every distinct (type, rotation): class head, edge head, box counts."""
    index = {lab: i for i, lab in enumerate(labels)}
    cols = np.array([index[label(n, r)] for n, r in _PAIRS])
    counts = box(expansion)
    prior = np.array([np.log(counts.get(n, 0) + 1e-3) for n, _ in _PAIRS])
    out: NDArray[Any] = np.log(np.clip(probs[:, cols], 1e-9, 1.0)) + prior
    loge = np.log(np.clip(edges, 1e-6, 1.0))
    for side in range(4):
        out = out + EDGE_WEIGHT * loge[:, side, :][:, _EDGES[:, side]]
    return out


def _white_gain(pixels: NDArray[Any]) -> NDArray[Any]:
    """The gain per channel that balances a board's colours as the figure colours were drawn against (undoes the
    camera's white balance): its brightest pixels (``pixels``, N x 3; the top percent by brightness: roads, white
    art) made a neutral light grey, no channel's gain more than `_GAIN_SPREAD` from their mean."""
    pixels = pixels.reshape(-1, 3).astype(np.float32)
    bright = pixels.sum(axis=1)
    white = pixels[bright >= np.percentile(bright, 99)].mean(axis=0)
    gain = 235.0 / np.maximum(white, 1.0)
    # the brightest pixels of a small board take on the table's tone: each channel kept near the mean gain, so
    # that a few tiles on a coloured table never push that colour up out of reach of the figure colours
    out: NDArray[Any] = np.clip(gain, gain.mean() * (1 - _GAIN_SPREAD), gain.mean() * (1 + _GAIN_SPREAD))
    return out


def _channel_max(d: NDArray[Any]) -> NDArray[Any]:
    """Each pixel's largest channel of ``d`` (H x W x 3): ``d.max(axis=2)``, without numpy's slow reduction over
    three values."""
    out: NDArray[Any] = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])
    return out


def _changed_share(a: NDArray[Any], b: NDArray[Any]) -> float:
    """The share of the pixels of two cuts of one cell that differ by more than `_PIXEL_CHANGE` in some channel."""
    return float((_channel_max(cv2.absdiff(a, b)) > _PIXEL_CHANGE).mean())


def _softmax(scores: NDArray[Any]) -> NDArray[Any]:
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    out: NDArray[Any] = e / e.sum(axis=1, keepdims=True)
    return out


def _table_mask(img: NDArray[Any], ring: NDArray[Any], k: int = 0) -> NDArray[Any]:
    """Pixels of ``img`` that differ from the table colours in ``ring`` (N x 3 BGR samples), without things
    thinner than ``k`` pixels (default: 1.2 % of the image's side)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32)
    ring_lab = cv2.cvtColor(ring.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    med = np.median(ring_lab, axis=0)
    spread = np.median(np.abs(ring_lab - med), axis=0)
    d = np.sqrt((((lab - med) / (spread * 3 + 6)) ** 2 * [0.3, 1, 1]).sum(axis=2))
    mask = (d > 1.6).astype(np.uint8)
    k = max(3, k or int(min(img.shape[:2]) * 0.012)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    out: NDArray[Any] = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    return out


def _square(mask: NDArray[Any], min_area: float) -> NDArray[Any] | None:
    """The corners (NW, NE, SE, SW) of the one blob of ``mask`` that is a square of at least ``min_area``, else None."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    found = []
    for k in range(1, n):
        area = float(stats[k, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        contours, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        (cx, cy), (w, h), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
        if min(w, h) < 0.8 * max(w, h) or area < 0.85 * w * h:
            continue
        # the contour runs through the outer pixels' centres: the outline lies half a pixel further out
        found.append(cv2.boxPoints(((cx, cy), (w + 1, h + 1), angle)))
    if len(found) != 1:
        return None
    pts = found[0]
    # order: north-west first (smallest x + y), then clockwise (on screen)
    start = int(np.argmin(pts.sum(axis=1)))
    pts = np.roll(pts, -start, axis=0)
    a, b = pts[1] - pts[0], pts[3] - pts[0]
    if a[0] * b[1] - a[1] * b[0] < 0:
        pts = pts[[0, 3, 2, 1]]
    out: NDArray[Any] = pts.astype(np.float32)
    return out


def _corners(h: NDArray[Any], x: int, y: int) -> NDArray[Any]:
    pts = np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64).reshape(-1, 1, 2)
    out: NDArray[Any] = cv2.perspectiveTransform(pts, h).reshape(-1, 2).astype(np.float32)
    return out


def _inset(x: int, y: int) -> NDArray[Any]:
    """Where a tile laid on cell (x, y) has its corners, in grid units: the cell less the gap around the tile."""
    g = _GAP
    out: NDArray[Any] = np.array([[x + g, y + g], [x + 1 - g, y + g], [x + 1 - g, y + 1 - g], [x + g, y + 1 - g]],
                                 np.float64)
    return out


def _cell_from_outline(outline: NDArray[Any]) -> NDArray[Any]:
    """The corners of the cell of a tile whose own outline is ``outline`` (NW, NE, SE, SW): the outline and its gap."""
    h = cv2.getPerspectiveTransform(_inset(0, 0).astype(np.float32), np.asarray(outline, np.float32))
    return _corners(h, 0, 0)


#: the board must span this many cells both ways before the grid is fitted with perspective (a plain affine map before)
_PERSPECTIVE_SPAN = 3


def _fit_outlines(outlines: dict[tuple[int, int], NDArray[Any]]) -> NDArray[Any]:
    """The grid (grid units -> photo pixels) that best fits the laid tiles' own outlines.

    An affine map while the board is small (a perspective fitted to a few tiles side by side extrapolates wildly),
    a homography through every outline corner once the board spans `_PERSPECTIVE_SPAN` cells both ways.
    """
    cells = sorted(outlines)
    src = np.concatenate([_inset(x, y) for x, y in cells])
    dst = np.concatenate([np.asarray(outlines[c], np.float64) for c in cells])
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    if max(xs) - min(xs) + 1 >= _PERSPECTIVE_SPAN and max(ys) - min(ys) + 1 >= _PERSPECTIVE_SPAN:
        side = float(np.mean(np.linalg.norm(dst[1::4] - dst[0::4], axis=1)))
        found, _ = cv2.findHomography(src, dst, cv2.RANSAC, max(1.0, 0.03 * side))
        if found is not None:
            out: NDArray[Any] = np.asarray(found, np.float64)
            return out
    a = np.concatenate([src, np.ones((len(src), 1))], axis=1)
    m, *_ = np.linalg.lstsq(a, dst, rcond=None)
    return np.vstack([m.T, [0.0, 0.0, 1.0]])


class LiveRecognizer:
    """Reads the frames of one game from a fixed camera (see the module text).

    :param classifier: the tile classifier (`vision.carcassonne.classifier.TileClassifier`).
    :param expansion: the game uses Under the Big Top (its tiles are possible readings).
    :param hint_share: the share of the frame's width, at its right edge, that is the hint zone (0: none).
    """

    def __init__(self, classifier: TileClassifier, expansion: bool = True, hint_share: float = HINT_SHARE) -> None:
        self.classifier = classifier
        self.expansion = expansion
        self.hint_share = hint_share
        self.reset()

    def reset(self) -> None:
        """Forget the grid and every cell read (a new game, or the camera was moved)."""
        self.to_photo: NDArray[Any] | None = None
        #: the board part of the frame last read: what the next frame is compared with
        self._ref: NDArray[Any] | None = None
        self._cells: dict[tuple[int, int], tuple[str, int, bool]] = {}
        #: each laid tile's own outline (NW, NE, SE, SW in photo pixels), measured when it was laid
        self._outlines: dict[tuple[int, int], NDArray[Any]] = {}
        #: the candidate cells read at least once
        self._read: set[tuple[int, int]] = set()
        #: each sure tile's cut as it was read (bare, as a rule): what a figure on it changes is little of it
        self._bare: dict[tuple[int, int], NDArray[Any]] = {}
        self._figures: tuple[tuple[int, int, str, str, str], ...] = ()
        #: the colour balance of the figures' search (`_white_gain`), found again as the board grows
        self._gain: NDArray[Any] | None = None
        self._fitted_at = 0
        #: where to look while no tile is known (the first tile's cell, or the grid finder's cells)
        self._seeds: list[tuple[int, int]] = [(0, 0)]
        self._zone: tuple[NDArray[Any], str | None] | None = None
        self._last: LiveReading | None = None

    # -- the grid -------------------------------------------------------------------------

    def _board_part(self, frame: NDArray[Any]) -> tuple[NDArray[Any], int]:
        """The frame left of the hint zone (a view, not a copy), and where the zone starts."""
        w = frame.shape[1]
        x0 = int(round(w * (1 - self.hint_share))) if self.hint_share > 0 else w
        return frame[:, :x0], min(x0, w)

    def _start(self, board: NDArray[Any]) -> None:
        """Find the grid: from one lone tile's outline, or the seam-based grid finder.

        :raises NoBoardError: when neither finds one.
        """
        img = board
        ring = np.concatenate([img[:4].reshape(-1, 3), img[-4:].reshape(-1, 3), img[:, :4].reshape(-1, 3),
                               img[:, -4:].reshape(-1, 3)])
        mask = _table_mask(img, ring)
        square = _square(mask, 0.0005 * mask.size)
        if square is not None:
            self._outlines[(0, 0)] = square
            self.to_photo = _fit_outlines(self._outlines)
            return
        grid = find_grid(board)
        self.to_photo = np.asarray(grid.to_photo, np.float64)
        self._seeds = [(c.x, c.y) for c in grid.cells]

    def _outline(self, board: NDArray[Any], cell: tuple[int, int]) -> NDArray[Any] | None:
        """The outline (NW, NE, SE, SW) of the tile just laid on ``cell``: the one tile-sized square that changed
        against the last frame read, around where the grid puts the cell; None when the change is no such square."""
        assert self.to_photo is not None
        if self._ref is None:
            return None
        grid = _corners(self.to_photo, *cell)
        side = float(np.mean(np.linalg.norm(grid - np.roll(grid, 1, axis=0), axis=1)))
        h, w = board.shape[:2]
        x0, y0 = (np.floor(grid.min(axis=0) - 0.4 * side)).astype(int)
        x1, y1 = (np.ceil(grid.max(axis=0) + 0.4 * side)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < side or y1 - y0 < side:
            return None
        diff = _channel_max(cv2.absdiff(board[y0:y1, x0:x1], self._ref[y0:y1, x0:x1]))
        mask: NDArray[Any] = (diff > _PIXEL_CHANGE).astype(np.uint8)
        k = max(3, int(0.06 * side)) | 1
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        square = _square(mask, 0.6 * side * side)
        if square is None:
            return None
        square = square + np.array([x0, y0], np.float32)
        found = float(np.mean(np.linalg.norm(square - np.roll(square, 1, axis=0), axis=1)))
        if not 0.88 * side <= found <= 1.1 * side:
            return None
        if np.linalg.norm(square.mean(axis=0) - grid.mean(axis=0)) > 0.3 * side:
            return None
        # the grid's corner order: the roll of the outline's corners nearest to the cell's
        roll = min(range(4), key=lambda r: float(np.linalg.norm(np.roll(square, -r, axis=0) - grid)))
        out: NDArray[Any] = np.roll(square, -roll, axis=0)
        return out

    def _refit(self, board: NDArray[Any]) -> None:
        """Fit the grid to the tiles read so far: to their own outlines where most were measured as they were laid,
        else to the seams between them (`vision.carcassonne.grid`'s seam search)."""
        assert self.to_photo is not None
        if 2 * len(self._outlines) >= len(self._cells):
            self.to_photo = _fit_outlines(self._outlines)
            return
        gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
        # the seam fit takes its seams in any order alike (`line_fit`); the cells go in sorted all the same
        fitted = refine_seams(gray, set(sorted(self._cells)), self.to_photo)
        if fitted is not None:
            self.to_photo = np.asarray(fitted, np.float64)

    # -- reading ----------------------------------------------------------------------------

    def _cell_corners(self, cell: tuple[int, int]) -> NDArray[Any]:
        """Where ``cell`` lies in the photo: around its tile's own outline when that was measured, else on the grid."""
        outline = self._outlines.get(cell)
        if outline is not None:
            return _cell_from_outline(outline)
        assert self.to_photo is not None
        return _corners(self.to_photo, *cell)

    def _forget(self, cell: tuple[int, int]) -> None:
        """``cell`` was seen empty (or its tile taken away): read it afresh when something lies there again."""
        self._cells.pop(cell, None)
        self._outlines.pop(cell, None)
        self._bare.pop(cell, None)

    def _changed_cells(self, board: NDArray[Any], cells: list[tuple[int, int]]) -> set[tuple[int, int]]:
        """The ``cells`` in which more than `_CELL_CHANGE` of the pixels changed against the last frame read
        (every second pixel compared)."""
        assert self.to_photo is not None
        if self._ref is None or self._ref.shape != board.shape:
            return set(cells)
        # the whole frames differenced (fast on contiguous rows), then every second pixel taken
        moved = _channel_max(cv2.absdiff(board, self._ref)[::2, ::2]) > _PIXEL_CHANGE
        ys, xs = np.nonzero(moved)
        if not len(xs):
            return set()
        pts = np.stack([xs * 2.0 + 0.5, ys * 2.0 + 0.5], axis=1).reshape(-1, 1, 2)
        grid = cv2.perspectiveTransform(pts, np.linalg.inv(self.to_photo)).reshape(-1, 2)
        hit, number = np.unique(np.floor(grid).astype(int), axis=0, return_counts=True)
        counts = {(int(gx), int(gy)): int(n) for (gx, gy), n in zip(hit, number)}
        c = _corners(self.to_photo, 0, 0)
        d1, d2 = c[2] - c[0], c[3] - c[1]
        area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))  # a cell's pixels
        return {cell for cell in cells if 4 * counts.get(cell, 0) > _CELL_CHANGE * area}

    def recognize(self, frame: NDArray[Any]) -> LiveReading:
        """Read ``frame`` (BGR), re-reading only the cells that changed since the last frame read, and the unsure ones.

        :raises NoBoardError: when no grid has been found yet and none is in view.
        """
        import time

        t0 = time.perf_counter()
        board, hint_x = self._board_part(frame)
        if self.to_photo is None:
            self._start(board)
        assert self.to_photo is not None
        h_img, w_img = frame.shape[:2]
        candidates = set(self._cells)
        for x, y in list(self._cells) or self._seeds:
            candidates.update({(x, y), (x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)})
        cells: list[tuple[int, int]] = []
        for x, y in sorted(candidates):
            c = _corners(self.to_photo, x, y)
            if c[:, 0].min() < 0 or c[:, 1].min() < 0 or c[:, 0].max() > hint_x or c[:, 1].max() > h_img:
                continue
            cells.append((x, y))
        changed = self._changed_cells(board, cells)
        # a laid tile whose cell changed: a figure put on or taken off, unless most of the tile changed (taken away)
        laid = [cell for cell in cells if cell in changed and cell in self._bare]
        if laid:
            for cell, cut in zip(laid, cut_crops(board, [self._cell_corners(cell) for cell in laid])):
                if _changed_share(cut, self._bare[cell]) > _TILE_GONE:
                    self._forget(cell)
        # to classify: what changed where no tile is sure, cells never read (new neighbours), unsure ones (until sure)
        todo = [cell for cell in cells if cell not in self._bare
                and (cell in changed or cell not in self._read or cell in self._cells)]
        corners, outlines = [], {}
        for cell in todo:
            outline = self._outline(board, cell) if cell in changed and cell not in self._cells else None
            if outline is not None:
                outlines[cell] = outline
                corners.append(_cell_from_outline(outline))
            else:
                corners.append(_corners(self.to_photo, *cell))
        t1 = time.perf_counter()
        grown = False
        if todo:
            cuts = cut_crops(board, corners)
            probs, edges = self.classifier.run(cuts)
            none_col = self.classifier.labels.index(NONE)
            p = _softmax(_pair_scores(probs, edges, self.classifier.labels, self.expansion))
            best = p.argmax(axis=1)
            for j, cell in enumerate(todo):
                self._read.add(cell)
                if probs[j, none_col] >= 0.5:
                    self._forget(cell)
                    continue
                name, rot = _PAIRS[int(best[j])]
                sure = float(p[j, best[j]]) >= THRESHOLD
                self._cells[cell] = (name, rot, sure)
                if sure:
                    if cell in outlines:
                        self._outlines[cell] = outlines[cell]
                        grown = True
                    self._bare[cell] = cuts[j] if cell not in self._outlines or cell in outlines else \
                        cut_crops(board, [self._cell_corners(cell)])[0]
        if grown or (len(self._cells) != self._fitted_at and len(self._cells) >= 3 and not self._outlines):
            self._fitted_at = len(self._cells)
            self._refit(board)
        t2 = time.perf_counter()
        if grown:
            self._gain = None
        if self._last is None:
            self._figures = self._board_figures(board)
        elif changed:
            self._figures = self._board_figures(board, changed)
        if changed or self._ref is None:
            self._ref = board.copy()  # the camera may fill the same buffer again
        hint = self._hint(frame, hint_x) if hint_x < w_img else None
        t3 = time.perf_counter()
        tiles = tuple(sorted((x, y, n, r) for (x, y), (n, r, sure) in self._cells.items() if sure))
        unsure = tuple(sorted((x, y, n, r) for (x, y), (n, r, sure) in self._cells.items() if not sure))
        times = LiveTimes(1000 * (t1 - t0), 1000 * (t2 - t1), 1000 * (t3 - t2))
        self._last = LiveReading(tiles, unsure, self._figures, hint, times)
        return self._last

    def _board_figures(self, board: NDArray[Any], only: set[tuple[int, int]] | None = None,
                       ) -> tuple[tuple[int, int, str, str, str], ...]:
        """The figures on the board: the board seen from above at `_CELL` pixels a cell, figure colours grouped into
        blobs, each blob on the tile and feature under its centre (a figure near an edge is seen whole, once).

        ``only``: look again on these cells only (and the cells around them, for figures that reach over their
        edges), keeping the other cells' figures from the last time.
        """
        sure = {c: (n, r) for c, (n, r, ok) in self._cells.items() if ok}
        if not sure or self.to_photo is None:
            return ()
        kept: list[tuple[int, int, str, str, str]] = []
        xs, ys = [x for x, _ in sure], [y for _, y in sure]
        if self._gain is None or only is None:
            self._gain = self._board_gain(board, min(xs), min(ys), max(xs), max(ys))
        if only is not None:
            kept = [f for f in self._figures if (f[0], f[1]) not in only and (f[0], f[1]) in sure]
            focus = [c for c in only if c in sure]
            if not focus:
                return tuple(sorted(kept))
            lo_x, lo_y = min(xs), min(ys)
            hi_x, hi_y = max(xs), max(ys)
            xs = [max(lo_x, min(x for x, _ in focus) - 1), min(hi_x, max(x for x, _ in focus) + 1)]
            ys = [max(lo_y, min(y for _, y in focus) - 1), min(hi_y, max(y for _, y in focus) + 1)]
        x0, y0 = min(xs), min(ys)
        nx, ny = max(xs) - x0 + 1, max(ys) - y0 + 1
        to_canvas = np.array([[1 / _CELL, 0, x0], [0, 1 / _CELL, y0], [0, 0, 1]], np.float64)
        canvas = cv2.warpPerspective(board, self.to_photo @ to_canvas, (nx * _CELL, ny * _CELL),
                                     flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        canvas = np.clip(canvas * self._gain, 0, 255).astype(np.uint8)
        lab = cv2.cvtColor(canvas, cv2.COLOR_BGR2Lab).astype(np.float32).reshape(-1, 3)
        sq = (lab * lab).sum(axis=1, keepdims=True) - 2.0 * lab @ _LABS.T + (_LABS * _LABS).sum(axis=1)
        nearest = sq.argmin(axis=1).reshape(canvas.shape[:2])
        dist = np.sqrt(np.maximum(sq.min(axis=1), 0.0)).reshape(canvas.shape[:2])
        # only on the tiles: the table around them may have a figure's colour, and a figure at a tile's edge would
        # run into it; each tile where it lies (its own outline, not the grid, which may be a few pixels off)
        on_tiles = self._tiles_on_canvas(sure, to_canvas, (ny * _CELL, nx * _CELL))
        near = (dist < _FAR) & on_tiles
        area_cell = float(_CELL * _CELL)
        out = kept
        #: each acrobat blob's cell and colour, and the figure colours just below it
        under: list[tuple[tuple[int, int], str, NDArray[Any], NDArray[Any]]] = []
        spaces = self._acrobat_spaces(sure, to_canvas, on_tiles.shape)
        for k, colour in enumerate(_COLOUR_NAMES):
            each = (near & (nearest == k)).astype(np.uint8)
            mask = cv2.morphologyEx(each, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            opened = mask
            if spaces is not None:
                # on an acrobat space the figures are small and their dark outlines cut them in pieces that the
                # opening would take away: there the pieces are joined instead
                joined = cv2.morphologyEx(each & spaces, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
                opened = mask
                mask = np.where(spaces > 0, joined, mask)
            n, blobs, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
            for j in range(1, n):
                area = stats[j, cv2.CC_STAT_AREA] / area_cell
                w, h = int(stats[j, cv2.CC_STAT_WIDTH]), int(stats[j, cv2.CC_STAT_HEIGHT])
                if area > 0.4 or stats[j, cv2.CC_STAT_AREA] < 0.3 * w * h:
                    continue
                x, y = int(stats[j, cv2.CC_STAT_LEFT]), int(stats[j, cv2.CC_STAT_TOP])
                # the figure's footprint, put back whole where the tiles end (a figure reaching over the board's
                # edge is seen cut off there), on the tile under its middle
                box = (x, y, w, h)
                mx, my = footprint_centre(box, clipped_sides(blobs, j, box, on_tiles), _SIZES["meeple"] * _CELL)
                gx, gy = x0 + mx / _CELL, y0 + my / _CELL
                cell = (int(np.floor(gx)), int(np.floor(gy)))
                if cell not in sure:
                    # the middle put back off the tile: the tile that holds the blob's pixels
                    cell = (x0 + int(cents[j][0] / _CELL), y0 + int(cents[j][1] / _CELL))
                if cell not in sure or only is not None and cell not in only:
                    continue
                name, rot = sure[cell]
                u, v = self._on_tile(cell, gx, gy)
                special = CATALOG[name].special
                on_acrobats = special is Special.ACROBATS and (u - 0.5) ** 2 + (v - 0.5) ** 2 < _ACROBAT_SPACE**2
                if on_acrobats:
                    if area < _MIN_ACROBAT or max(w, h) < _MIN_SIDE * _CELL:
                        continue
                elif area < _MIN_AREA or min(w, h) < _MIN_SIDE * _CELL or stats[j, cv2.CC_STAT_AREA] > _MAX_FILL * w * h:
                    continue
                if 1.0 - float(dist[y:y + h, x:x + w][blobs[y:y + h, x:x + w] == j].mean()) / _FAR < _MIN_CONFIDENCE:
                    continue  # on average too far from its colour: tile art, not a figure
                if colour == "big-top":
                    if special is Special.CIRCUS and area > 0.1:
                        out.append((*cell, "big-top", "", "circus"))
                    continue
                if on_acrobats:
                    # a stack's height, and where an acrobat it hides would show, from what the opening keeps of it
                    # (the pieces joined to it reach into the art around it); all of it where the opening keeps none
                    solid = (blobs[y:y + h, x:x + w] == j) & (opened[y:y + h, x:x + w] > 0)
                    if solid.any():
                        rows, cols = np.nonzero(solid)
                        x, y, w, h = x + int(cols.min()), y + int(rows.min()), int(np.ptp(cols)) + 1, int(np.ptp(rows)) + 1
                    count = int(np.clip(round((h / _CELL - _SIZES["acrobat"]) / _STACK_STEP) + 1, 1, 3))
                    out.extend((*cell, "acrobat", colour, "acrobats") for _ in range(count))
                    band = (slice(y + h // 2, y + h + int(2 * _STACK_STEP * _CELL) + 2), slice(max(0, x - 2), x + w + 2))
                    under.append((cell, colour, near[band], nearest[band]))
                    continue
                feature = spot_at(name, rot, u, v)
                if feature is None or feature in ("circus", "acrobats"):
                    continue
                tall = (max(w, h) + 2) / _CELL
                kind = "ringmaster" if tall > 0.5 * (_SIZES["meeple"] + _SIZES["ringmaster"]) else "meeple"
                out.append((*cell, kind, colour, feature))
        out.extend(_stacked_under(out, under))
        return tuple(sorted(out))

    def _tiles_on_canvas(self, sure: dict[tuple[int, int], tuple[str, int]], to_canvas: NDArray[Any],
                         shape: tuple[int, int]) -> NDArray[Any]:
        """The pixels of the top-down canvas (``to_canvas``: its pixels -> grid units) that the ``sure`` tiles cover:
        each tile's cell around its own outline where that was measured, else the grid's cell."""
        assert self.to_photo is not None
        from_photo = np.linalg.inv(self.to_photo @ to_canvas)
        polygons = []
        for cell in sure:
            corners = self._cell_corners(cell).reshape(-1, 1, 2).astype(np.float64)
            pts = cv2.perspectiveTransform(corners, from_photo).reshape(-1, 2)
            polygons.append(np.round(pts * 16).astype(np.int32))
        mask = np.zeros(shape, np.uint8)
        cv2.fillPoly(mask, polygons, 1, cv2.LINE_8, shift=4)
        # two tiles' outlines, each measured to a pixel, may leave a hairline between them that would split a figure
        # standing across the seam
        out: NDArray[Any] = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)).astype(bool)
        return out

    def _acrobat_spaces(self, sure: dict[tuple[int, int], tuple[str, int]], to_canvas: NDArray[Any],
                        shape: tuple[int, ...]) -> NDArray[Any] | None:
        """The acrobat spaces of the ``sure`` tiles on the top-down canvas (1 within `_ACROBAT_SPACE` of a tile's
        middle), None when no tile has one."""
        assert self.to_photo is not None
        cells = [cell for cell, (name, _) in sure.items() if CATALOG[name].special is Special.ACROBATS]
        if not cells:
            return None
        from_photo = np.linalg.inv(self.to_photo @ to_canvas)
        out = np.zeros(shape[:2], np.uint8)
        for cell in cells:
            middle = self._cell_corners(cell).astype(np.float64).mean(axis=0).reshape(1, 1, 2)
            cx, cy = cv2.perspectiveTransform(middle, from_photo).reshape(2)
            cv2.circle(out, (int(round(cx)), int(round(cy))), int(round(_ACROBAT_SPACE * _CELL)), 1, -1)
        return out

    def _on_tile(self, cell: tuple[int, int], gx: float, gy: float) -> tuple[float, float]:
        """Where the point (``gx``, ``gy``) of the grid lies on the tile of ``cell`` (u right, v down, 0..1): on the
        tile's own outline where that was measured (the grid may be a few pixels off), else on the grid's cell."""
        outline = self._outlines.get(cell)
        if outline is None or self.to_photo is None:
            return float(np.clip(gx - cell[0], 0.0, 1.0)), float(np.clip(gy - cell[1], 0.0, 1.0))
        photo = cv2.perspectiveTransform(np.array([[[gx, gy]]], np.float64), self.to_photo)
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        m = cv2.getPerspectiveTransform(_cell_from_outline(outline).astype(np.float32), unit)
        u, v = cv2.perspectiveTransform(photo, m.astype(np.float64)).reshape(2)
        return float(np.clip(u, 0.0, 1.0)), float(np.clip(v, 0.0, 1.0))

    def _board_gain(self, board: NDArray[Any], x0: int, y0: int, x1: int, y1: int) -> NDArray[Any]:
        """`_white_gain` of the part of ``board`` that cells (x0, y0) to (x1, y1) cover (every fourth pixel)."""
        assert self.to_photo is not None
        pts = np.concatenate([_corners(self.to_photo, x0, y0), _corners(self.to_photo, x1, y1)])
        (a, b), (c, d) = np.clip(pts.min(axis=0), 0, None).astype(int), pts.max(axis=0).astype(int) + 1
        return _white_gain(board[b:d:4, a:c:4])

    def _hint(self, frame: NDArray[Any], x0: int) -> str | None:
        """The type of the tile in the hint zone, `UNSURE` for something that is no sure tile, None when empty
        (read again only when the zone changed)."""
        zone = frame[:, x0:]
        small = zone[::4, ::4]
        if self._zone is not None and self._zone[0].shape == small.shape:
            moved = (_channel_max(np.abs(small.astype(np.int16) - self._zone[0].astype(np.int16))) > _PIXEL_CHANGE).mean()
            if moved <= _CELL_CHANGE:
                return self._zone[1]
        found = self._read_hint(zone)
        self._zone = (small, found)
        return found

    def _read_hint(self, zone: NDArray[Any]) -> str | None:
        b = max(2, int(0.04 * zone.shape[1]))
        ring = np.concatenate([zone[:b].reshape(-1, 3), zone[-b:].reshape(-1, 3), zone[:, -b:].reshape(-1, 3)])
        assert self.to_photo is not None
        side = float(np.linalg.norm(_corners(self.to_photo, 0, 0)[1] - _corners(self.to_photo, 0, 0)[0]))
        # the zone's marked outline and other thin things are no tile
        mask = _table_mask(zone, ring, int(side / 8))
        if mask.sum() < 0.3 * side * side:
            return None
        square = _square(mask, 0.5 * side * side)
        if square is None:
            return UNSURE
        probs, edges = self.classifier.run(cut_crops(zone, [square]))
        p = _softmax(_pair_scores(probs, edges, self.classifier.labels, self.expansion))[0]
        by_type = np.bincount(_TYPE_OF, weights=p, minlength=len(TILE_NAMES))
        k = int(by_type.argmax())
        return TILE_NAMES[k] if by_type[k] >= THRESHOLD else UNSURE


def _stacked_under(found: Sequence[tuple[int, int, str, str, str]],
                   under: Sequence[tuple[tuple[int, int], str, NDArray[Any], NDArray[Any]]],
                   ) -> list[tuple[int, int, str, str, str]]:
    """The acrobats hidden under others in a stack: for each acrobat blob (its cell, colour, and the ``near`` and
    ``nearest`` colour maps just below it), each other player colour (not black or grey) with `_UNDER_PIXELS` there is one
    acrobat of that colour, unless a figure of that colour was found on the cell already."""
    # a colour already on the cell, on the acrobat space or beside it (a ringmaster on the road reaches under it)
    seen = {(f[0], f[1], f[3]) for f in found}
    out: list[tuple[int, int, str, str, str]] = []
    for cell, colour, near, nearest in under:
        for k, other in enumerate(_COLOUR_NAMES):
            if other in (colour, "black", "grey", "big-top") or (*cell, other) in seen:
                continue
            if int((near & (nearest == k)).sum()) >= _UNDER_PIXELS:
                seen.add((*cell, other))
                out.append((*cell, "acrobat", other, "acrobats"))
    return out
