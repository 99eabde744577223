"""A board's grid set again by the enrolled tiles' look (`vision.carcassonne.recognize.read_cells` with a deck).

`vision.carcassonne.grid.find_grid` finds the grid from the seams and the board's outline; on an
edition whose straight roads or city walls look like seams it may put the cells a fraction of a
tile off, or measure the perspective wrong, and the deck, comparing cell crops with its enrolled
tiles, then leaves most of them unsure. Here each cell's surroundings are searched for the deck's
nearest tiles' views (`SEARCH` tiles across, at half size): where a view matches well
(`MATCH`), the cell's centre is taken to lie where that view's centre does, to a fraction of a pixel
(`_peak`: the reading is sensitive to a few pixels' error, and a whole half-size pixel is two). A
homography through the matched centres (an affine correction of the grid found, by RANSAC within
`INLIER` of a tile, then the full perspective where `PERSPECTIVE` cells agree) is then the grid, when
enough of the cells agree on it (`AGREE`); else the search starts again from the grid found at another pitch
(`PITCHES`: a seam fit may take an edition's walls or roads for seams and find cells a half or a third of a tile
across, or half a tile across but a whole tile down; on a small grid also `WIDE`, cells two tiles across or down),
and failing that the grid found is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.carcassonne.grid import Cell, Grid

__all__ = ["refit_grid"]

#: the square searched around each cell, in tiles across (half a tile each way)
SEARCH = 2.0
#: a view matching a cell's surroundings at least this well (normalised correlation) places the cell
MATCH = 0.45
#: the deck's nearest tiles (by its embedding) whose views are searched for in each cell
NEAREST = 4
#: a matched centre within this share of a tile of the homography is an inlier
INLIER = 0.08
#: at least this many agreeing cells fit the grid's perspective too (fewer: an affine correction of it)
PERSPECTIVE = 6
#: the refit grid is taken when at least this share of the cells are inliers (and at least `LEAST`)
AGREE = 0.5
LEAST = 4
#: searches at most, each from the last one's grid
ROUNDS = 3

#: the last deck's templates and their views (the templates held, so that another deck is never taken for them)
_cache: list[tuple[Any, NDArray[Any]]] = []


def _views(deck: Any, half: tuple[int, int]) -> NDArray[Any]:
    """The deck's template views, flattened (`vision.enroll.flattened`) at half size, lightly blurred."""
    from vision.enroll import flattened

    if not _cache or _cache[0][0] is not deck.templates:
        small = [cv2.GaussianBlur(cv2.resize(t, half, interpolation=cv2.INTER_AREA).astype(np.float32), (0, 0), 0.7)
                 for t in deck.templates]
        _cache[:] = [(deck.templates, np.stack([flattened(s) for s in small]))]
    return _cache[0][1]


def _to_photo(h: NDArray[Any], pts: NDArray[Any]) -> NDArray[Any]:
    out: NDArray[Any] = cv2.perspectiveTransform(np.asarray(pts, np.float64)[None], h)[0]
    return out


def refit_grid(photo: NDArray[Any], grid: Grid, deck: Any) -> Grid | None:
    """``grid`` set again by where the deck's tiles are seen around its cells (see the module text), or None where
    the deck has no template views or too few cells agree on one grid. Fewer than `AGREE` (but `LEAST`) agreeing
    cells move the grid for another search (up to `ROUNDS` in all), and only its final fit counts. Where no grid
    is found so, the search starts again from the grid found at the other pitches (`PITCHES`, `WIDE`: its cells a
    half or a third of a tile, on either axis or both, or two tiles), and the grid most cells agree on is taken."""
    found = _refit_from(photo, grid, deck)
    if found is not None:
        return found[0]
    best: tuple[Grid, int] | None = None
    for start, of in _other_pitches(grid):
        again = _refit_from(photo, start, deck, of)
        if again is not None and (best is None or again[1] > best[1]):
            best = again
    return None if best is None else best[0]


#: the other pitches a grid found may have been off by: cells found per tile across and down (a seam fit may take the
#: lines of an edition's city walls or roads for seams, and its straight roads along one axis only: cells half a tile
#: wide but a whole tile tall). Cells of two tiles (0.5) were tried on every grid on the tuning boards: 5 tiles more of
#: 816, but twice the mean reading time (a grid of small cells searched at four times as many cells), so only on grids
#: of at most `FEW` cells (`WIDE`), where the search is short
PITCHES = ((2.0, 2.0), (3.0, 3.0), (2.0, 1.0), (1.0, 2.0))
#: cells found two tiles across, down or both, looked for only where the grid found has at most `FEW` cells
WIDE = ((0.5, 0.5), (1.0, 0.5), (0.5, 1.0))
FEW = 6


def _other_pitches(grid: Grid) -> list[tuple[Grid, float]]:
    """``grid`` seen at each of `PITCHES` (and `WIDE` where it has at most `FEW` cells): for a pitch ``(sx, sy)``
    (cells found per tile across and down), at every offset of the new cells' corners among the cells found; its
    cells those covering the cells found. Each with the number of cells of which `AGREE` must agree on a refit: its
    own, but for `WIDE` (two or four cells to each found, most of them beside a small board) the cells found, and no
    fewer than `LEAST` agreeing."""
    out = []
    for sx, sy in PITCHES + (WIDE if len(grid.cells) <= FEW else ()):
        for ox in range(max(1, int(sx))):
            for oy in range(max(1, int(sy))):
                scale = np.array([[sx, 0.0, ox], [0.0, sy, oy], [0.0, 0.0, 1.0]])
                h = grid.to_photo @ scale
                where = sorted({(int(np.floor((c.x + dx - ox) / sx)), int(np.floor((c.y + dy - oy) / sy)))
                                for c in grid.cells for dx in (0.25, 0.75) for dy in (0.25, 0.75)},
                               key=lambda p: (p[1], p[0]))
                cells = tuple(Cell(x, y, _to_photo(h, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]))
                                   .astype(np.float32), 0.0) for x, y in where)
                of = len(cells) if min(sx, sy) >= 1 else max(len(grid.cells), LEAST / AGREE)
                out.append((Grid(cells, h), of))
    return out


def _refit_from(photo: NDArray[Any], grid: Grid, deck: Any, of: float | None = None) -> tuple[Grid, int] | None:
    """`refit_grid` from ``grid`` alone: the grid set again and how many cells agree on it (at least `AGREE` of
    ``of`` cells, by default all of ``grid``'s), or None."""
    h = grid.to_photo
    for _ in range(ROUNDS):
        fit = _fit(photo, grid, h, deck)
        if fit is None:
            return None
        h, inliers = fit
        if inliers >= AGREE * (len(grid.cells) if of is None else of):
            return _cells(grid, h), inliers
    return None


def _cells(grid: Grid, h: NDArray[Any]) -> Grid:
    """The grid's cells and the cells beside them (the grid found may have missed a tile at the board's edge, or lain
    across the tiles: the tile model says which hold a tile) through homography ``h``."""
    where = {(c.x, c.y) for c in grid.cells}
    where |= {(x + dx, y + dy) for x, y in where for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    cover = {(c.x, c.y): c.cover for c in grid.cells}
    cells = tuple(Cell(x, y, _to_photo(h, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]])).astype(np.float32),
                       cover.get((x, y), 0.0)) for x, y in sorted(where, key=lambda p: (p[1], p[0])))
    return Grid(cells, h)


def _peak(res: NDArray[Any], loc: Sequence[int]) -> tuple[float, float]:
    """Where the match scores ``res`` peak near their best whole place ``loc`` (x, y), to a fraction of a pixel: a
    parabola through the best score and its neighbours on each axis."""
    x, y = loc
    out = [float(x), float(y)]
    for axis in (0, 1):
        if 0 < loc[axis] < res.shape[1 - axis] - 1:
            lo, mid, hi = (float(res[y, x + d]) if axis == 0 else float(res[y + d, x]) for d in (-1, 0, 1))
            curve = lo - 2 * mid + hi
            if curve < 0:
                out[axis] += float(np.clip(0.5 * (lo - hi) / curve, -0.5, 0.5))
    return out[0], out[1]


def _fit(photo: NDArray[Any], grid: Grid, to_photo: NDArray[Any], deck: Any) -> tuple[NDArray[Any], int] | None:
    """One search of the deck's views around the grid's cells placed by ``to_photo``: the homography through the
    matched centres and how many agree with it, or None (no views, fewer than `LEAST` agree)."""
    from vision.carcassonne.classifier import cut_crops
    from vision.enroll import describe, flattened

    templates, owners = getattr(deck, "templates", None), getattr(deck, "template_owners", None)
    if templates is None or owners is None or len(grid.cells) < LEAST:
        return None
    th, tw = templates.shape[1] // 2, templates.shape[2] // 2
    views = _views(deck, (tw, th))
    side = int(round(SEARCH * tw))
    dst = np.asarray([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    plain = cut_crops(photo, [_to_photo(to_photo, np.array([[c.x, c.y], [c.x + 1, c.y], [c.x + 1, c.y + 1], [c.x, c.y + 1]]))
                              for c in grid.cells])
    near = np.argsort(deck.label_distances(deck.project(describe(plain))), axis=1)[:, :NEAREST]
    src_pts, dst_pts = [], []
    for cell, labels in zip(grid.cells, near):
        cx, cy = cell.x + 0.5, cell.y + 0.5
        r = SEARCH / 2
        quad = _to_photo(to_photo, np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]]))
        m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
        around = cv2.warpPerspective(photo, m, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        flat = flattened(around.astype(np.float32))
        best, at = -1.0, (0.0, 0.0)
        for j in np.flatnonzero(np.isin(owners, labels)):
            res = cv2.matchTemplate(flat, views[j], cv2.TM_CCOEFF_NORMED)
            _, val, _, loc = cv2.minMaxLoc(res)
            if val > best:
                best, at = float(val), _peak(res, loc)
        if best < MATCH:
            continue
        centre = np.array([[at[0] + tw / 2, at[1] + th / 2]], np.float32)
        back = cv2.perspectiveTransform(centre[None], np.linalg.inv(m))[0, 0]
        src_pts.append((cx, cy))
        dst_pts.append(back)
    if len(src_pts) < LEAST:
        return None
    src, seen = np.asarray(src_pts, np.float64), np.asarray(dst_pts, np.float64)
    # first an affine correction in grid units (three cells fix it: a handful of cells cannot fit any homography
    # to chance matches), then, with enough cells agreeing, the full perspective through them
    affine, mask = cv2.estimateAffine2D(src, _to_photo(np.linalg.inv(to_photo), seen), method=cv2.RANSAC,
                                        ransacReprojThreshold=INLIER)
    if affine is None or mask is None:
        return None
    agree = mask.ravel().astype(bool)
    h = to_photo @ np.vstack([affine, [0.0, 0.0, 1.0]])
    if agree.sum() >= PERSPECTIVE:
        tile_px = float(np.median([np.linalg.norm(c.corners[1] - c.corners[0]) for c in grid.cells]))
        full, _ = cv2.findHomography(src[agree], seen[agree], 0)
        if full is not None and np.linalg.norm(_to_photo(full, src[agree]) - seen[agree], axis=1).max() < INLIER * tile_px:
            h = full
    return h, int(agree.sum())
