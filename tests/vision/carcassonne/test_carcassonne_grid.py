"""The grid finder on its own: the board's outline gives the grid's directions, the table's stripes and glare
stay off the board, and a steeply tilted board's cells land on its tiles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

import vision.carcassonne.grid as grid_module
from vision.carcassonne.board import draw_board, random_layout
from vision.carcassonne.camera import LEVELS, _homography, photograph
from vision.carcassonne.grid import (
    DOUBLE_BELOW,
    GROWN_ENOUGH,
    GROWN_PRECISION,
    PITCH_MISFIT,
    VIEW_MISFIT,
    Grid,
    _apply,
    _apply_xy,
    _directions,
    _fitted,
    _foreground,
    _guarded_outline,
    _half_shift,
    _holds_seams,
    _lattice_score,
    _lines,
    _misfit,
    _outline,
    _outline_fit,
    _outline_pitch,
    _outline_steps,
    _sample,
    _seam_count,
    _seams,
    _whole_percentile,
    find_grid,
    grow_best,
    grow_seams,
    line_fit,
    seam_precision,
    seam_share,
    search_lattice,
)
from vision.carcassonne.render import render_tile


def _turned_board_mask(angle: float, size: tuple[int, int] = (640, 360)) -> np.ndarray:
    """An L-shaped board of 40 px tiles turned ``angle`` degrees (clockwise on screen) about the image centre."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    for cx, cy in ((0, 0), (1, 0), (2, 0), (0, 1), (0, 2), (1, 2)):
        x0, y0 = 240 + 40 * cx, 100 + 40 * cy
        mask[y0:y0 + 40, x0:x0 + 40] = 1
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    out: np.ndarray = cv2.warpAffine(mask, rot, (w, h), flags=cv2.INTER_NEAREST)
    return out


@pytest.mark.parametrize("angle", [7.0, 23.0])
def test_the_grid_directions_come_from_the_boards_outline_not_the_art(angle: float) -> None:
    """Art of round and diagonal strokes all over the board once pulled the directions off the tiles' edges."""
    mask = _turned_board_mask(angle)
    rng = np.random.default_rng(3)
    gray = np.full(mask.shape, 90, np.uint8)
    gray[mask > 0] = 170
    for _ in range(60):  # diagonal strokes of art on the tiles
        x, y = rng.integers(200, 440), rng.integers(80, 280)
        cv2.line(gray, (int(x), int(y)), (int(x) + 30, int(y) + 30), 40, 2)
    gray[mask == 0] = 90
    segments = _outline(mask)
    assert len(segments) >= 6
    dirs = _directions(gray, mask)
    assert dirs is not None
    first, second = sorted(dirs, key=lambda d: min(d, 180 - d))
    assert abs(((first - angle) + 90) % 180 - 90) <= 2
    assert abs(((second - angle - 90) + 90) % 180 - 90) <= 2


def test_stripes_of_the_table_are_no_seams() -> None:
    """Long straight stripes of a wooden table run past the board: no line mostly on the table is kept."""
    mask = _turned_board_mask(0.0)
    gray = np.full(mask.shape, 120, np.uint8)
    for y in range(0, mask.shape[0], 12):
        gray[y:y + 4] = 60
    gray[mask > 0] = 200
    lines = _lines(gray, mask)
    near = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    for x0, y0, x1, y1 in lines:
        t = np.linspace(0, 1, 9)
        xs = np.clip(np.round(x0 + t * (x1 - x0)).astype(int), 0, mask.shape[1] - 1)
        ys = np.clip(np.round(y0 + t * (y1 - y0)).astype(int), 0, mask.shape[0] - 1)
        assert near[ys, xs].mean() >= 0.75
    # the stripes themselves are found without the rule (the test can fail)
    edges = cv2.Canny(gray, 30, 90)
    raw = cv2.HoughLinesP(edges, 1, np.pi / 360, 40, minLineLength=38, maxLineGap=4)
    assert raw is not None and len(raw) > len(lines)


def test_a_pool_of_glare_on_a_coloured_table_is_table() -> None:
    """A smooth pool of the table's orange washed out towards white is no part of the board; the tiles are."""
    rng = np.random.default_rng(5)
    img = np.zeros((360, 640, 3), np.float32)
    img[:] = (40, 130, 215)  # an orange table (BGR)
    spot = np.zeros((360, 640), np.float32)
    cv2.ellipse(spot, (200, 150), (150, 90), 20, 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), 12)
    img += (150 * spot)[:, :, None] * np.array([1.0, 0.85, 0.4], np.float32)
    tiles = (rng.uniform(0, 255, (120, 120, 3)) * 0.3 + np.array([60, 150, 90]) * 0.7).astype(np.float32)
    img[60:180, 400:520] = tiles
    img += rng.normal(0, 2, img.shape).astype(np.float32)
    photo = np.clip(img, 0, 255).astype(np.uint8)
    mask = _foreground(photo)
    pool = spot > 0.8
    assert mask[pool].mean() < 0.05
    assert mask[70:170, 410:510].mean() > 0.95


@pytest.mark.parametrize(("seed", "tilt"), [(21, 33.0), (23, 30.0)])
def test_a_steeply_tilted_board_is_found_cell_by_cell(seed: int, tilt: float) -> None:
    """Twelve tiles seen 30 degrees and more from straight down: every tile's cell within a fifth of a cell.

    (The perspective measured once, from the few seams of the photo, left some cells a third of a cell off.)
    """
    rng = np.random.default_rng(seed)
    tiles = random_layout(12, rng, expansion=True)
    board = draw_board(tiles, lambda t, r: render_tile(t, r, 40, "newart", rng), rng, cell=40, margin=8.0)
    x0, y0, x1, y1 = board.subject
    hmat = _homography(int(x1 - x0), int(y1 - y0), (1152, 648), tilt, 8.0, 0.55) @ np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    photo = cv2.warpPerspective(board.image, hmat, (1152, 648), borderMode=cv2.BORDER_REFLECT_101)
    grid = find_grid(photo)
    found = np.array([c.corners for c in grid.cells])
    right = 0
    for t in tiles:
        true = cv2.perspectiveTransform(board.cell_corners(t.x, t.y).reshape(-1, 1, 2), hmat).reshape(-1, 2)
        side = float(np.linalg.norm(true[1] - true[0]))
        err = min(float(np.linalg.norm(np.roll(found, k, axis=1) - true[None], axis=2).max(axis=1).min()) for k in range(4))
        right += err < 0.2 * side
    assert right == len(tiles)
    assert len(grid.cells) <= len(tiles) + 2


def _jagged_mask(pitch: float, phase: float, size: int = 640) -> np.ndarray:
    """A canvas of a board of ``pitch`` px cells whose lattice starts at ``phase``: an L of rows of varied lengths."""
    rows = [(2, 9), (1, 7), (3, 12), (3, 5), (0, 10), (4, 8), (2, 14), (6, 11)]
    mask = np.zeros((size, size), np.uint8)
    for j, (a, b) in enumerate(rows):
        y0 = int(round(phase + (j + 2) * pitch))
        mask[y0:int(round(phase + (j + 3) * pitch)), int(round(phase + a * pitch)):int(round(phase + b * pitch))] = 1
    return mask


def test_the_outline_gives_the_pitch_and_phase_that_the_seams_missed() -> None:
    """Seams too faint on a big tilted board locked the lattice onto twice the pitch and the wrong phase."""
    mask = _jagged_mask(21.0, 9.0)
    pitch, phase = _outline_pitch(_outline_steps(mask, 1), 42.5, 20.0)
    assert abs(pitch - 21.0) < 0.5
    assert abs((phase - 9.0 + pitch / 2) % pitch - pitch / 2) < 1.5
    # rows: the seams' guess near 1.5 pitches, the outline's repetition says which multiple it is
    pitch, phase = _outline_pitch(_outline_steps(mask, 0), 23.0, 0.0)
    assert abs(pitch - 21.0) < 0.5
    assert abs((phase - 9.0 + pitch / 2) % pitch - pitch / 2) < 1.5


def test_seams_that_agree_with_the_outline_stand() -> None:
    mask = _jagged_mask(21.0, 9.0)
    assert _outline_pitch(_outline_steps(mask, 1), 21.3, 9.8) == (21.3, 9.8)
    # a single tile's outline repeats once: too little to say anything
    lone = np.zeros((640, 640), np.uint8)
    lone[100:300, 200:400] = 1
    assert _outline_pitch(_outline_steps(lone, 1), 200.0, 0.0) == (200.0, 0.0)


def test_a_streak_of_glare_over_a_striped_table_is_table() -> None:
    """The table's stripes show through a streak of glare (pale, the table's colour washed out): the board is
    scarcely more textured than the striped border, the streak much less. The streak once stayed in the board's
    outline and turned its grid."""
    rng = np.random.default_rng(11)
    h, w = 360, 640
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wave = np.sin(yy / 3.0 + 2 * np.sin(xx / 40.0))
    img = np.zeros((h, w, 3), np.float32)
    img[:] = (180, 60, 190)  # a magenta table (BGR)
    img += (25 * wave)[:, :, None]
    streak = np.zeros((h, w), np.uint8)
    cv2.ellipse(streak, (540, 150), (45, 130), 15, 0, 360, 1, -1)
    img[streak > 0] = np.array([200, 150, 225], np.float32) + (12.5 * wave)[streak > 0][:, None]
    art = rng.uniform(-1, 1, (30, 36, 3)).astype(np.float32)
    img[100:250, 150:330] = cv2.resize(art, (180, 150), interpolation=cv2.INTER_NEAREST) * 30 + np.array([60, 150, 90], np.float32)
    photo = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    mask = _foreground(photo)
    assert mask[cv2.erode(streak, np.ones((9, 9), np.uint8)) > 0].mean() < 0.05
    assert mask[110:240, 160:320].mean() > 0.95


def _seam_profile(lines: np.ndarray, strength: float, size: int = 640, art: float = 0.0,
                  art_lines: np.ndarray | None = None) -> np.ndarray:
    """A seam profile across the canvas: a thin peak of ``strength`` at each of ``lines`` (and of ``art`` at each
    of ``art_lines``) over a little noise."""
    rng = np.random.default_rng(4)
    prof = rng.uniform(0.0, 1.0, size)
    pos = np.arange(size)
    for at in lines:
        prof += strength * np.exp(-0.5 * ((pos - at) / 0.8) ** 2)
    for at in art_lines if art_lines is not None else ():
        prof += art * np.exp(-0.5 * ((pos - at) / 0.8) ** 2)
    out: np.ndarray = prof
    return out


def test_a_lattice_on_the_seams_scores_above_one_on_the_tile_middles() -> None:
    seams = 9.0 + 21.0 * np.arange(2, 16)
    prof = _seam_profile(seams, 6.0, art=3.0, art_lines=seams[:-1] + 10.5)
    extent = (seams[0], seams[-1])
    on = _lattice_score(prof, extent, 21.0, 9.0)
    # every other seam is as good a lattice as every seam; tile middles (roads) and a drifting pitch are worse
    assert abs(_lattice_score(prof, extent, 42.0, 9.0) - on) < 0.25 * on
    assert _lattice_score(prof, extent, 21.0, 19.5) < 0.7 * on
    assert _lattice_score(prof, extent, 23.0, 9.0) < 0.7 * on


def test_the_outline_lattice_is_taken_where_it_fits_the_seams_better() -> None:
    """Faint seams locked on twice the pitch, off phase: the outline's lattice lies on the seams and is taken."""
    mask = _jagged_mask(21.0, 9.0)
    prof = _seam_profile(9.0 + 21.0 * np.arange(2, 16), 2.0)
    pitch, phase = _guarded_outline(prof, mask, 1, 42.5, 20.0)
    assert abs(pitch - 21.0) < 0.5
    assert abs((phase - 9.0 + pitch / 2) % pitch - pitch / 2) < 1.5


def test_an_outline_lattice_off_the_seams_is_refused() -> None:
    """The outline says one lattice (a board edge cut short by glare, a cell half covered), the seams, seen all over
    the board, clearly another: the seams' lattice stands, though the outline alone would have moved it."""
    mask = _jagged_mask(21.0, 9.0)
    seams = 19.5 + 21.0 * np.arange(2, 16)
    assert _outline_pitch(_outline_steps(mask, 1), 21.0, 19.5) != (21.0, 19.5)
    prof = _seam_profile(seams, 6.0, art=3.0, art_lines=seams[:-1] + 10.5)
    assert _guarded_outline(prof, mask, 1, 21.0, 19.5) == (21.0, 19.5)


def test_a_grid_off_at_the_far_end_is_brought_onto_the_boards_outline() -> None:
    """A board of 12 x 9 cells seen at a slant, its first grid estimate a third of a cell off at the far end (the
    seams too faint to mend it): the outline's pieces, each on a tile edge, put every cell corner within a tenth
    of a cell."""
    rng = np.random.default_rng(8)
    cells = {(x, y) for x in range(12) for y in range(9) if rng.random() < 0.75} | {(x, 4) for x in range(12)}
    truth = np.array([[26.0, 4.0, 150.0], [-2.0, 18.0, 60.0], [0.0, 0.0035, 1.0]])
    mask = np.zeros((360, 640), np.uint8)
    for x, y in cells:
        quad = _apply(truth, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64))
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    first = truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -0.006, 1.0]])
    corners = np.array(sorted({(x + dx, y + dy) for x, y in cells for dx in (0, 1) for dy in (0, 1)}), np.float64)
    side = float(np.median(np.linalg.norm(_apply(truth, corners + [1, 0]) - _apply(truth, corners), axis=1)))
    assert np.linalg.norm(_apply(first, corners) - _apply(truth, corners), axis=1).max() > 0.3 * side
    fits = [f for f in (_outline_fit(mask, first, prior) for prior in (1.0, 0.1)) if f is not None]
    assert fits
    found, before, after = max(fits, key=lambda f: f[2])
    assert after >= before + 0.1
    assert np.linalg.norm(_apply(found, corners) - _apply(truth, corners), axis=1).max() < 0.1 * side


def _seamed_board(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, set[tuple[int, int]]]:
    """A board of about 11 x 8 cells seen at a slant: (fine grey image at twice the work scale, work mask, grid units ->
    work pixels, cells). The tiles carry blotches and strokes of art; between them runs a thin dark seam."""
    rng = np.random.default_rng(seed)
    cells = {(x, y) for x in range(11) for y in range(8) if rng.random() < 0.8} | {(x, 3) for x in range(11)}
    truth = np.array([[30.0, 3.0, 140.0], [-2.0, 22.0, 50.0], [0.0, 0.003, 1.0]])
    zoom = np.diag([2.0, 2.0, 1.0])
    fine = np.full((720, 1280), 60.0, np.float32)
    mask = np.zeros((360, 640), np.uint8)
    for x, y in cells:
        quad = _apply(truth, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64))
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        cv2.fillConvexPoly(fine, np.round(quad * 2).astype(np.int32), float(rng.uniform(140, 190)))
        for _ in range(3):  # art: blotches and strokes inside the tile
            c = _apply(zoom @ truth, np.array([[x + rng.uniform(0.2, 0.8), y + rng.uniform(0.2, 0.8)]]))[0]
            cv2.circle(fine, (int(c[0]), int(c[1])), int(rng.integers(4, 12)), float(rng.uniform(60, 230)), -1)
            d = _apply(zoom @ truth, np.array([[x + rng.uniform(0.1, 0.9), y + rng.uniform(0.1, 0.9)]]))[0]
            cv2.line(fine, (int(c[0]), int(c[1])), (int(d[0]), int(d[1])), float(rng.uniform(60, 230)), 3)
    for x, y in cells:
        quad = _apply(zoom @ truth, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64))
        cv2.polylines(fine, [np.round(quad).astype(np.int32).reshape(-1, 1, 2)], True, 90.0, 1)
    fine = cv2.GaussianBlur(fine + rng.normal(0, 3, fine.shape).astype(np.float32), (0, 0), 0.7)
    return fine, mask, truth, cells


def _worst(found: np.ndarray, truth: np.ndarray, cells: set[tuple[int, int]]) -> float:
    """The largest distance, in cells, between a cell corner under ``found`` and under ``truth``, the lattices matched
    with the best whole-cell shift (a lattice's origin is arbitrary)."""
    corners = np.array(sorted({(x + dx, y + dy) for x, y in cells for dx in (0, 1) for dy in (0, 1)}), np.float64)
    side = float(np.median(np.linalg.norm(_apply(truth, corners + [1, 0]) - _apply(truth, corners), axis=1)))
    return min(float(np.linalg.norm(_apply(found, corners + [i, j]) - _apply(truth, corners), axis=1).max()) / side
               for i in range(-8, 9) for j in range(-8, 9))


def test_the_seams_seen_finer_tell_a_lattice_on_them_from_one_half_a_cell_off() -> None:
    """The seam share is what a grown lattice is judged by: most seams lie on the true lattice's lines, few on one
    moved half a cell each way (its lines on the tile middles), about half on one moved along one axis."""
    fine, mask, truth, _ = _seamed_board(1)
    right = seam_share(fine, mask, truth)
    assert right > 0.8
    assert seam_share(fine, mask, truth @ np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])) < 0.2
    assert seam_share(fine, mask, truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])) < right - 0.2


def test_a_lattice_a_few_per_cent_off_is_grown_onto_the_seams() -> None:
    """A lattice 6% off in pitch, right at the board's middle, is a third of a cell and more off at the far cells;
    grown from the middle along the seams (and the outline) it puts every corner within a tenth of a cell on three
    boards of four, and leaves none with fewer seams on its lines."""
    right = 0
    for seed in (2, 3, 4, 5):
        fine, mask, truth, cells = _seamed_board(seed)
        centre = np.array([5.5, 4.0])
        start = truth @ np.array([[1.06, 0.0, -0.06 * centre[0]], [0.0, 1.06, -0.06 * centre[1]], [0.0, 0.0, 1.0]])
        assert _worst(start, truth, cells) > 0.3
        grown = grow_seams(fine, mask, start)
        assert grown is not None
        assert seam_share(fine, mask, grown) > seam_share(fine, mask, start)
        right += _worst(grown, truth, cells) < 0.1
    assert right >= 3


def test_the_lattice_search_finds_a_pitch_the_comb_missed_by_a_tenth() -> None:
    """A lattice 10% off in pitch one way, 8% the other, its phase off: the search over pitch, phase and shear
    against the thin lines and the outline, then the growing, land on the tiles.

    (Points strewn alike in every cell once folded onto themselves at the old pitch and kept it.)"""
    for seed in (1, 2):
        fine, mask, truth, cells = _seamed_board(seed)
        start = truth @ np.array([[1.1, 0.0, -0.3], [0.0, 0.92, 0.45], [0.0, 0.0, 1.0]])
        assert _worst(start, truth, cells) > 0.5
        searched = search_lattice(fine, mask, start)
        assert searched is not None
        assert _worst(searched, truth, cells) < 0.1
        grown = grow_seams(fine, mask, searched)
        assert grown is not None
        assert _worst(grown, truth, cells) < 0.05


def test_a_lattice_on_the_tile_middles_is_moved_half_a_cell_by_the_outline() -> None:
    """The seams' comb can lock onto roads across the tile middles: the board's outline, on tile edges only, moves
    the lattice half a cell; a lattice already on the outline stays as it is."""
    _, mask, truth, cells = _seamed_board(4)
    off = truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    assert _worst(off, truth, cells) > 0.3
    assert _worst(_half_shift(mask, off), truth, cells) < 0.05
    assert _half_shift(mask, truth) is truth


def test_a_lattice_of_the_wrong_pitch_finds_its_seams_off_its_lines() -> None:
    """A grown lattice is taken only where the seams it finds lie on its lines: one of 0.6 times the pitch (each
    of its cells across parts of two tiles) finds the seams it crosses all over its cells, and still holds over a
    third of its lines' seams, as much as a lattice on faint seams does."""
    fine, mask, truth, _ = _seamed_board(6)
    wrong = truth @ np.array([[0.6, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert seam_precision(fine, mask, truth) > 0.9
    assert seam_share(fine, mask, wrong) > 0.3
    assert seam_precision(fine, mask, wrong) < 0.6


def _photographed_board(seed: int, n: int) -> np.ndarray:
    """A photo (1536 x 864) of ``n`` tiles laid at random, taken by the typical camera."""
    rng = np.random.default_rng(seed)
    tiles = random_layout(n, rng, expansion=True)
    board = draw_board(tiles, lambda t, r: render_tile(t, r, 48, "newart", rng), rng, cell=48, margin=8.0)
    photo: np.ndarray = photograph(board.image, LEVELS["typical"], rng, size=(1536, 864), subject=board.subject).image
    return photo


def test_the_same_photo_gives_the_same_grid_whatever_ran_before() -> None:
    """OpenCV's and numpy's global random states, OpenCV's thread count and another board found in between leave the
    grid of a photo exactly as it was."""
    photo, other = _photographed_board(2, 24), _photographed_board(1, 12)
    first = find_grid(photo)
    threads = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        cv2.setRNGSeed(12345)
        cv2.randu(np.zeros((8, 8), np.float32), 0, 1)
        np.random.seed(99)
        find_grid(other)
        again = find_grid(photo)
    finally:
        cv2.setNumThreads(threads)
    assert np.array_equal(first.to_photo, again.to_photo)
    assert [(c.x, c.y, c.cover) for c in first.cells] == [(c.x, c.y, c.cover) for c in again.cells]
    assert all(np.array_equal(a.corners, b.corners) for a, b in zip(first.cells, again.cells, strict=True))


def test_the_seam_fit_gives_one_lattice_whatever_the_order_of_its_points() -> None:
    """Seams seen across lattice lines, three in ten far off their line, from a start 5% and a fifth of a cell off:
    the fit in any order of the points is the same, bit for bit (RANSAC drawing its samples by position once gave
    another grid for the same points in another order), and puts the true lattice within a pixel."""
    rng = np.random.default_rng(5)
    truth = np.array([[40.0, 5.0, 300.0], [-3.0, 38.0, 200.0], [0.002, 0.001, 1.0]])
    src = np.c_[rng.integers(0, 10, 300) + rng.choice([0.3, 0.7], 300), rng.integers(0, 8, 300).astype(np.float64)]
    src = np.r_[src, src[:, ::-1]]
    dst = _apply(truth, src) + rng.normal(0.0, 0.3, src.shape)
    stray = rng.random(len(src)) < 0.3
    dst[stray] += rng.uniform(-6.0, 6.0, (int(stray.sum()), 2))
    start = truth @ np.array([[1.05, 0.0, -0.2], [0.0, 0.97, 0.1], [0.0, 0.0, 1.0]])
    grid_pts = np.array([[x, y] for x in range(11) for y in range(9)], np.float64)
    assert np.linalg.norm(_apply(start, grid_pts) - _apply(truth, grid_pts), axis=1).max() > 10.0
    fits = []
    for k in range(4):
        order = np.random.default_rng(k).permutation(len(src))
        fit = line_fit(src[order], dst[order], start)
        assert fit is not None
        fits.append(fit)
    assert all(np.array_equal(f[0], fits[0][0]) and f[1] == fits[0][1] for f in fits)
    assert np.linalg.norm(_apply(fits[0][0], grid_pts) - _apply(truth, grid_pts), axis=1).max() < 1.0
    assert fits[0][1] >= 0.6 * len(src)


def test_a_lattice_grown_along_the_seams_does_not_follow_the_order_the_seams_were_found_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The seams found across the lattice's lines, handed to the fits in four orders, grow one lattice."""
    fine, mask, truth, cells = _seamed_board(3)
    centre = np.array([5.5, 4.0])
    start = truth @ np.array([[1.06, 0.0, -0.06 * centre[0]], [0.0, 1.06, -0.06 * centre[1]], [0.0, 0.0, 1.0]])
    probes = grid_module._seam_probes
    grown = []
    for k in range(4):
        rng = np.random.default_rng(k)

        def shuffled(*args: Any, rng: np.random.Generator = rng, **kw: Any) -> tuple[np.ndarray, ...]:
            out = probes(*args, **kw)
            order = rng.permutation(len(out[0]))
            return tuple(a[order] for a in out)

        monkeypatch.setattr(grid_module, "_seam_probes", shuffled)
        found = grow_seams(fine, mask, start)
        assert found is not None
        grown.append(found)
    assert all(np.array_equal(g, grown[0]) for g in grown)
    assert _worst(grown[0], truth, cells) < 0.1


def test_a_lattice_at_half_the_pitch_and_a_little_off_is_grown_from_twice_its_pitch() -> None:
    """A lattice at half the tile pitch (the art's roads across the tile middles taken for seams), 4% off besides,
    holds few seams; grown from twice its pitch it lands on the tiles and holds nearly all of them (grown from
    itself, its shift or its searched pitch it stays at half the pitch)."""
    fine, mask, truth, cells = _seamed_board(1)
    centre = np.array([5.5, 4.0])
    half = truth @ np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
    start = half @ np.array([[1.04, 0.0, -0.08 * centre[0]], [0.0, 1.04, -0.08 * centre[1]], [0.0, 0.0, 1.0]])
    share = seam_share(fine, mask, start)
    assert share < DOUBLE_BELOW
    best_share, grown = grow_best(fine, mask, start, share)
    assert best_share > 0.9
    assert _worst(grown, truth, cells) < 0.05


@pytest.mark.parametrize(("scale", "shift"), [((0.5, 0.5), (0.0, 0.0)), ((0.5, 1.0), (0.5, 0.0)), ((1.0, 0.5), (0.0, 0.5))])
def test_a_lattice_at_exactly_half_the_pitch_is_grown_from_twice_it_on_the_lines_its_seams_show(
        scale: tuple[float, float], shift: tuple[float, float]) -> None:
    """A lattice at exactly half the tile pitch along one or both axes holds every seam on every other line, as much
    as the doubling threshold lets pass: the axes whose seams lie on one parity of lines only are doubled on that
    parity, and the lattice grown from there lands on the tiles."""
    fine, mask, truth, cells = _seamed_board(2)
    half = truth @ np.array([[scale[0], 0.0, shift[0]], [0.0, scale[1], shift[1]], [0.0, 0.0, 1.0]])
    share = seam_share(fine, mask, half)
    assert DOUBLE_BELOW <= share < 0.75
    best_share, grown = grow_best(fine, mask, half, share)
    assert best_share > 0.9
    assert _worst(grown, truth, cells) < 0.05


def test_a_lattice_half_a_cell_off_is_grown_from_its_half_cell_moves_where_the_outline_tells_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Glare cutting the outline can leave it unable to say which half-cell move is right, and the lattice search
    can miss: the lattice is also grown from each half-cell move, and the one holding the most seams is kept."""
    fine, mask, truth, cells = _seamed_board(3)
    centre = np.array([5.5, 4.0])
    start = truth @ np.array([[1.04, 0.0, 0.5 - 0.04 * centre[0]], [0.0, 1.04, 0.5 - 0.04 * centre[1]], [0.0, 0.0, 1.0]])
    monkeypatch.setattr(grid_module, "_half_shift", lambda m, t: t)
    monkeypatch.setattr(grid_module, "search_lattice", lambda f, m, t: None)
    share = seam_share(fine, mask, start)
    assert _worst(start, truth, cells) > 0.4
    best_share, grown = grow_best(fine, mask, start, share)
    assert best_share > 0.9
    assert _worst(grown, truth, cells) < 0.05


def test_growing_stops_at_a_lattice_holding_nearly_all_seams_and_keeps_what_growing_every_start_keeps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A lattice at half the tile pitch is grown from many starts; once one holds nearly all the seams with the
    outline on its lines, the starts left are not grown, and the lattice kept is the one growing every start keeps."""
    fine, mask, truth, cells = _seamed_board(1)
    centre = np.array([5.5, 4.0])
    half = truth @ np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
    start = half @ np.array([[1.04, 0.0, -0.08 * centre[0]], [0.0, 1.04, -0.08 * centre[1]], [0.0, 0.0, 1.0]])
    share = seam_share(fine, mask, start)
    grow = grid_module.grow_seams
    counts = []

    def kept(every: bool) -> tuple[float, np.ndarray]:
        grown = []

        def counted(f: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray | None:
            grown.append(t)
            return grow(f, m, t)

        with monkeypatch.context() as patch:
            patch.setattr(grid_module, "grow_seams", counted)
            if every:
                patch.setattr(grid_module, "GROWN_ENOUGH", float("inf"))
                patch.setattr(grid_module, "GROWN_OUTLINED", float("inf"))
            out = grow_best(fine, mask, start, share)
        counts.append(len(grown))
        return out

    every_share, every_grown = kept(True)
    best_share, grown = kept(False)
    assert best_share == every_share > GROWN_ENOUGH
    assert np.array_equal(grown, every_grown)
    assert _worst(grown, truth, cells) < 0.05
    assert counts[1] < counts[0]


def _growing_as_started(monkeypatch: pytest.MonkeyPatch, searched: np.ndarray,
                        share: Callable[[np.ndarray], float]) -> list[np.ndarray]:
    """`grow_best` made to grow each start into itself, its lattice search to give ``searched``, no half shift or
    half pitch found, and each lattice to hold ``share`` of the seams: the list the starts grown are put in."""
    grown: list[np.ndarray] = []

    def ident(f: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray:
        grown.append(t)
        return t

    monkeypatch.setattr(grid_module, "grow_seams", ident)
    monkeypatch.setattr(grid_module, "search_lattice", lambda f, m, t: searched)
    monkeypatch.setattr(grid_module, "_half_shift", lambda m, t: t)
    monkeypatch.setattr(grid_module, "_parity_doubled", lambda f, m, t: None)
    monkeypatch.setattr(grid_module, "seam_share", lambda f, m, t: share(t))
    return grown


def test_a_lattice_holding_nearly_all_seams_with_the_outline_off_its_lines_does_not_stop_the_growing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Half a cell off along one axis, a lattice can hold many seams (roads across the tile middles) while the
    board's outline along that axis lies between its lines: it ends nothing, and a later start on the tiles wins."""
    fine, mask, truth, cells = _seamed_board(1)
    off = truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    grown = _growing_as_started(monkeypatch, truth,
                                lambda t: 0.95 if np.allclose(t, off) else 0.97 if np.allclose(t, truth) else 0.2)
    best_share, best = grow_best(fine, mask, off, 0.95)
    assert len(grown) >= 2
    assert np.allclose(best, truth)
    assert best_share == 0.97
    # with the outline on its lines, the first start that holds nearly all the seams ends the growing
    grown.clear()
    best_share, best = grow_best(fine, mask, truth, 0.2)
    assert len(grown) == 1
    assert np.allclose(best, truth)


def test_a_first_start_grown_onto_most_seams_with_the_outline_on_its_lines_spares_the_lattice_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The lattice as measured, grown onto FIRST_ENOUGH of the seams or more with the outline along both axes on its
    lines (but not so many that `_grown_enough` ends the growing), ends it before the lattice search is even made;
    grown onto fewer, the searched lattice is made and grown after it, and kept where it holds more."""
    fine, mask, truth, _ = _seamed_board(1)
    searched: np.ndarray = truth @ np.array([[1.0, 0.0, 0.02], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    searches: list[np.ndarray] = []

    def search(f: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray:
        searches.append(t)
        return searched

    for first, want in ((grid_module.FIRST_ENOUGH + 0.05, truth), (grid_module.FIRST_ENOUGH - 0.05, searched)):
        with monkeypatch.context() as patch:
            def held(t: np.ndarray, first: float = first) -> float:
                return 0.9 if np.array_equal(t, searched) else first

            grown = _growing_as_started(patch, searched, held)
            patch.setattr(grid_module, "search_lattice", search)
            # (most of the outline on the lines, not nearly all: `_grown_enough` alone would not stop at the first)
            patch.setattr(grid_module, "_outline_axis_shares", lambda c, t: (0.9, 0.9))
            searches.clear()
            best_share, best = grow_best(fine, mask, truth, 0.5)
        assert np.array_equal(best, want)
        if want is truth:
            assert len(grown) == 1 and not searches
            assert best_share == first
        else:
            assert len(searches) == 1 and any(np.array_equal(t, searched) for t in grown)
            assert best_share == 0.9


@pytest.mark.parametrize(("outline", "stops"), [(1.0, True), (0.97, True), (0.9, False)])
def test_a_lattice_holding_most_seams_stops_the_growing_only_with_nearly_all_the_outline_on_its_lines(
        outline: float, stops: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a big board seen at a slant a lattice on the tiles holds about two thirds of the seams: with nearly all the
    board's outline along both axes on its lines it ends the growing, with less the starts left are grown (a later
    one holding more is kept)."""
    fine, mask, truth, _ = _seamed_board(1)
    later = truth @ np.array([[1.0, 0.0, 0.01], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    grown = _growing_as_started(monkeypatch, later, lambda t: 0.66 if t is truth else 0.7 if t is later else 0.1)
    monkeypatch.setattr(grid_module, "_outline_axis_shares",
                        lambda c, t: (1.0, outline) if t is truth else (1.0, 0.9) if t is later else (1.0, 1.0))
    best_share, best = grow_best(fine, mask, truth, 0.5)
    # (the searched start, grown after it, holds most seams with the outline on its lines: no half-cell move is grown)
    assert len(grown) == (1 if stops else 2)
    assert best is (truth if stops else later)
    assert best_share == (0.66 if stops else 0.7)


@pytest.mark.parametrize(("share", "outline", "halved", "count"),
                         [(0.64, 0.8, False, 2), (0.64, 0.7, False, 5), (0.55, 0.8, False, 5), (0.64, 0.8, True, 5)])
def test_half_cell_moves_are_grown_only_where_the_first_starts_leave_seams_or_outline_off_their_lines(
        share: float, outline: float, halved: bool, count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lattice as measured and the searched one are grown first; the half-cell moves (for a comb locked onto the
    tile middles) are grown only where neither holds most of the seams with the board's outline along both axes on
    its lines, or where the one kept shows a half-pitch pattern. The lattice kept is the one holding the most."""
    fine, mask, truth, _ = _seamed_board(1)
    later = truth @ np.array([[1.0, 0.0, 0.01], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    grown = _growing_as_started(monkeypatch, later,
                                lambda t: share - 0.02 if t is truth else share if t is later else 0.1)
    monkeypatch.setattr(grid_module, "_outline_axis_shares",
                        lambda c, t: (0.9, outline) if t is truth or t is later else (0.2, 1.0))
    doubled = truth @ np.diag([2.0, 1.0, 1.0])
    monkeypatch.setattr(grid_module, "_parity_doubled", lambda f, m, t: doubled if halved and t is later else None)
    best_share, best = grow_best(fine, mask, truth, 0.5)
    assert len(grown) == count
    assert best is later
    assert best_share == share


def _walled_board(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_seamed_board` with dark lines of art along some tile sides, a tenth to three tenths of a cell inside (city
    walls, roads along an edge): (fine, mask, grid units -> work pixels)."""
    fine, mask, truth, cells = _seamed_board(seed)
    rng = np.random.default_rng(100 + seed)
    zoom = np.diag([2.0, 2.0, 1.0])
    for x, y in sorted(cells):
        for side in range(4):
            if rng.random() < 0.3:
                d = rng.uniform(0.1, 0.3)
                a, b = {0: ([x, y + d], [x + 1, y + d]), 1: ([x + 1 - d, y], [x + 1 - d, y + 1]),
                        2: ([x, y + 1 - d], [x + 1, y + 1 - d]), 3: ([x + d, y], [x + d, y + 1])}[side]
                p = np.round(_apply(zoom @ truth, np.array([a, b], np.float64))).astype(int)
                cv2.line(fine, (int(p[0, 0]), int(p[0, 1])), (int(p[1, 0]), int(p[1, 1])), 40.0, 2)
    return fine, mask, truth


def test_a_lattice_whose_seams_art_draws_off_is_vouched_for_by_the_outline() -> None:
    """Lines of art near the tile sides draw many seam probes off the true lattice's lines, below the precision a
    grown lattice needs: its outline, along both axes on its lines, vouches for it. A lattice of the wrong pitch
    along one axis leaves that axis's outline off its lines and is refused."""
    fine, mask, truth = _walled_board(4)
    assert seam_precision(fine, mask, truth) < GROWN_PRECISION
    assert _holds_seams(fine, mask, truth)
    for k in (0.6, 1.3):
        assert not _holds_seams(fine, mask, truth @ np.array([[k, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
        assert not _holds_seams(fine, mask, truth @ np.array([[1.0, 0.0, 0.0], [0.0, k, 0.0], [0.0, 0.0, 1.0]]))


def test_a_grown_lattice_that_leaves_the_outline_off_its_lines_along_an_axis_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Roads drawn across the tile middles can make the lattice half a cell off along one axis hold more seams than
    the right one: grown from its half-cell move, it would win, though the board's outline along that axis lies
    between its lines where the lattice as measured keeps it on them. It is refused and the lattice as measured
    stands."""
    fine, mask, truth, cells = _seamed_board(1)
    off = truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    measured = grid_module.seam_share
    monkeypatch.setattr(grid_module, "grow_seams", lambda f, m, t: t)
    monkeypatch.setattr(grid_module, "seam_share",
                        lambda f, m, t: 0.9 if np.allclose(t, off) else min(measured(f, m, t), 0.6))
    outline = grid_module._outline_axis_shares(grid_module._contour(mask), off)
    assert min(outline) < 0.2 < 0.8 < max(outline)
    share = grid_module.seam_share(fine, mask, truth)
    best_share, grown = grow_best(fine, mask, truth, share)
    assert not np.allclose(grown, off)
    assert best_share <= 0.6
    assert _worst(grown, truth, cells) < 0.05


def test_a_speck_of_the_striped_table_does_not_hide_the_board() -> None:
    """On a strongly waved table the board is scarcely more textured than the table's border; a speck more
    textured than both, too small to be a board, once took the board's place and the photo read as no board."""
    rng = np.random.default_rng(3)
    h, w = 360, 640
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wave = np.sin(yy / 3.0 + 2 * np.sin(xx / 40.0))
    img = np.zeros((h, w, 3), np.float32)
    img[:] = (60, 190, 210)  # a yellow table (BGR)
    img += (30 * wave)[:, :, None]
    art = rng.uniform(-1, 1, (30, 36, 3)).astype(np.float32)
    img[100:250, 150:330] = cv2.resize(art, (180, 150), interpolation=cv2.INTER_NEAREST) * 25 + np.array([60, 150, 90], np.float32)
    img[300:314, 500:514] = rng.uniform(0, 255, (14, 14, 3)).astype(np.float32) * np.array([1.0, 0.2, 1.0], np.float32)
    photo = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    mask = _foreground(photo)
    assert mask[110:240, 160:320].mean() > 0.95


def test_a_lattice_that_cuts_the_tiles_misfits_the_board() -> None:
    """The board's cells are full or empty on its own lattice (and on half of it); a lattice at the pitch of the
    board's ends, where the comb locks on when the seams vanish, or at three times its pitch leaves much of the board in
    half-filled cells."""
    mask = _jagged_mask(21.0, 9.0)
    assert _misfit(mask, 21.0, 9.0, 21.0, 9.0) < 0.05
    assert _misfit(mask, 10.5, 9.0, 10.5, 9.0) < 0.15
    ys, xs = np.nonzero(mask)
    assert _misfit(mask, float(np.ptp(xs)), float(xs.min()), float(np.ptp(ys)), float(ys.min())) > PITCH_MISFIT
    assert _misfit(mask, 63.0, 9.0, 63.0, 9.0) > PITCH_MISFIT


@pytest.mark.parametrize(("first", "second", "want", "calls"), [
    (0.1, 0.1, "coarse", [640]),
    (0.9, 0.1, "fine", [640, 1280]),
    (0.9, 0.8, "coarse", [640, 1280]),
])
def test_a_lattice_that_misfits_the_board_is_measured_again_at_twice_the_size(
        monkeypatch: pytest.MonkeyPatch, first: float, second: float, want: str, calls: list[int]) -> None:
    """Only a lattice that cuts the board's tiles sends the photo through again at twice the working size, and the
    finer lattice is taken only where it fits the board."""
    grids = {640: (Grid((), np.eye(3)), first), 1280: (Grid((), 2 * np.eye(3)), second)}
    seen: list[int] = []

    def fake(photo: np.ndarray, work: int) -> tuple[Grid, float]:
        seen.append(work)
        return grids[work]

    monkeypatch.setattr(grid_module, "_grid_at", fake)
    got = find_grid(np.zeros((1296, 2304, 3), np.uint8))
    assert seen == calls
    assert got is grids[1280 if want == "fine" else 640][0]


@pytest.mark.parametrize(("precision", "outline", "held"), [
    (0.65, (0.1, 0.1), True),
    (0.5, (0.8, 0.9), True),
    (0.5, (0.6, 0.9), False),
    (0.4, (0.97, 0.99), True),
    (0.4, (0.9, 0.99), False),
    (0.3, (1.0, 1.0), False),
])
def test_a_lattice_with_nearly_all_the_outline_on_its_lines_is_held_with_fewer_seams_on_them(
        monkeypatch: pytest.MonkeyPatch, precision: float, outline: tuple[float, float], held: bool) -> None:
    """A big board seen at a slant: the lattice grown onto its tiles put 0.997 and 1.0 of the outline on its lines
    but found only 0.41 of its seams there (the far side's seams faint), and was refused."""
    monkeypatch.setattr(grid_module, "seam_precision", lambda fine, mask, to_work: precision)
    monkeypatch.setattr(grid_module, "_outline_axis_shares", lambda contour, to_work: outline)
    mask = np.zeros((64, 64), np.uint8)
    mask[10:50, 10:50] = 1
    assert _holds_seams(np.zeros((64, 64), np.float32), mask, np.eye(3)) is held


def _lone_tile_photo(road: bool, pool: bool) -> np.ndarray:
    """A lone green tile, turned, on a brown table; a white road across its middle, a pool of glare beside it."""
    rng = np.random.default_rng(11)
    h, w = 360, 640
    img = np.zeros((h, w, 3), np.float32)
    img[:] = (60, 110, 160)  # a brown table (BGR)
    art = cv2.GaussianBlur(rng.uniform(-1, 1, (150, 150, 3)).astype(np.float32), (0, 0), 2.0)
    tile = (art / float(np.abs(art).max()) * 30 + np.array([60, 150, 90], np.float32)).astype(np.float32)
    if road:
        tile[65:85] = (235, 235, 235)
    rot = cv2.getRotationMatrix2D((75, 75), 20, 1.0)
    rot[:, 2] += (245, 105)
    placed = cv2.warpAffine(tile, rot, (w, h), flags=cv2.INTER_NEAREST)
    on = cv2.warpAffine(np.ones((150, 150), np.uint8), rot, (w, h), flags=cv2.INTER_NEAREST) > 0
    img[on] = placed[on]
    if pool:
        disc = np.zeros((h, w), np.float32)
        cv2.ellipse(disc, (505, 180), (70, 45), 0, 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(disc, (0, 0), 6)
        img = img * (1 - spot[:, :, None]) + 250 * spot[:, :, None]
    out: np.ndarray = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    return out


def test_a_white_road_across_a_lone_tile_is_the_tiles_not_the_tables() -> None:
    """A white road is as light and grey as glare: across a lone tile it cut the board's mask in two, and the
    lattice took the road for a seam. Glare-like pixels all but ringed by the board are the board's; a pool of glare
    on the table beside the tile stays table."""
    photo = _lone_tile_photo(road=True, pool=True)
    mask = _foreground(photo)
    rot = cv2.getRotationMatrix2D((75, 75), 20, 1.0)
    rot[:, 2] += (245, 105)
    strip = np.zeros((150, 150), np.uint8)
    strip[65:85, 10:140] = 1
    road = cv2.warpAffine(strip, rot, (640, 360), flags=cv2.INTER_NEAREST) > 0
    assert mask[road].mean() > 0.95
    assert mask[165:196, 470:540].mean() < 0.05
    # the road and the pool are glare by their colour (the test can fail)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grid_module, "ENCLOSED_GLARE", 1.01)
        assert _foreground(photo)[road].mean() < 0.5


def test_a_pool_of_glare_on_a_strongly_coloured_table_is_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a strongly coloured table the glare washed out towards a warm white strays further from the line between
    the table's colour and grey than on a dull one (Lab bends it): a pool of it next to the board was taken for
    board and the lattice was measured on both."""
    rng = np.random.default_rng(7)
    h, w = 360, 640
    table = np.array([103, 191, 143], np.float32)  # a strong magenta-red table (Lab, as OpenCV keeps it)
    # the pool: 33 lighter, its chroma 0.85 of the table's, 19 units off the line from the table's colour to grey
    along = table[1:] - 128
    across = np.array([-along[1], along[0]]) / np.linalg.norm(along)
    glare = np.r_[table[0] + 33, 128 + 0.85 * along + 19 * across].astype(np.float32)
    img = np.zeros((h, w, 3), np.float32)
    img[:] = table
    disc = np.zeros((h, w), np.float32)
    cv2.ellipse(disc, (330, 80), (90, 60), 0, 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(disc, (0, 0), 2)
    img = img * (1 - spot[:, :, None]) + glare * spot[:, :, None]
    img = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_Lab2BGR).astype(np.float32)
    art = rng.uniform(-1, 1, (24, 30, 3)).astype(np.float32)
    img[130:310, 250:475] = cv2.resize(art, (225, 180), interpolation=cv2.INTER_NEAREST) * 30 + np.array([60, 150, 90], np.float32)
    photo = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    pool = (spot > 0.9) & (np.arange(h)[:, None] < 125)
    assert _foreground(photo)[pool].mean() < 0.05
    assert _foreground(photo)[140:300, 260:465].mean() > 0.95
    # with the old reach (16 Lab units) the pool is board: the test can fail
    monkeypatch.setattr(grid_module, "WASHED_HUE", 0.0)
    assert _foreground(photo)[pool].mean() > 0.5


def _view(score: float, tag: float, lattice: tuple[float, float, float, float]) -> tuple[Any, ...]:
    """A view of the jagged board (`_jagged_mask`, 21 px cells from 9) as `grid._judge` gives it, told apart by its
    map ``tag * I``."""
    zero = np.zeros(640)
    return score, tag * np.eye(3), _jagged_mask(21.0, 9.0), lattice, (zero, zero)


@pytest.fixture
def seams_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The views' lattices as the seams gave them (the board's outline has no say)."""
    monkeypatch.setattr(grid_module, "_guarded_outline", lambda profile, top_mask, axis, pitch, phase: (pitch, phase))
    monkeypatch.setattr(grid_module, "_outline_parity", lambda top_mask, pitch, phase, axis: (pitch, phase))


@pytest.mark.usefixtures("seams_alone")
def test_a_view_whose_lattice_cuts_the_tiles_gives_way_to_one_nearly_as_strong_that_fits_them() -> None:
    """A 72-tile board at a slant on a waved table: the strongest view's seams locked onto twice the pitch (misfit
    0.39), a view scoring 0.83 of it had the right pitch half a cell off (0.25); its phase set by the board's cells,
    it fits them."""
    doubled = _view(0.30, 1.0, (42.0, 9.0, 42.0, 9.0))
    half_off = _view(0.25, 2.0, (21.0, 19.5, 21.0, 9.0))
    full, _, (px, phx, py, phy), misfit = _fitted(doubled, [doubled, half_off])
    assert grid_module._misfit(doubled[2], *doubled[3]) > VIEW_MISFIT
    assert full[0, 0] == 2.0
    assert (px, py) == (21.0, 21.0)
    # (the misfit samples the board every third pixel: phases within a step of the truth tie)
    assert abs((phx - 9.0 + 10.5) % 21.0 - 10.5) < 3.0 and abs((phy - 9.0 + 10.5) % 21.0 - 10.5) < 3.0
    assert misfit < 0.05


@pytest.mark.usefixtures("seams_alone")
@pytest.mark.parametrize(("best", "other"), [
    ((0.30, 1.0, (42.0, 9.0, 42.0, 9.0)), (0.20, 2.0, (21.0, 9.0, 21.0, 9.0))),
    ((0.30, 1.0, (21.0, 9.0, 21.0, 9.0)), (0.29, 2.0, (21.0, 9.0, 21.0, 9.0))),
])
def test_the_strongest_view_stands_where_it_fits_or_no_view_near_its_score_does(
        best: tuple[Any, ...], other: tuple[Any, ...]) -> None:
    """A view far weaker on the seams is not taken however it fits; nor is any where the strongest fits the tiles."""
    strongest = _view(*best)
    full, _, lattice, _ = _fitted(strongest, [strongest, _view(*other)])
    assert full[0, 0] == 1.0
    assert lattice == best[2]


def test_points_mapped_in_blocks_land_bit_for_bit_where_the_plain_product_puts_them() -> None:
    """The seam probes' points (blocks of offsets across each half seam) are mapped one coordinate to a row; each lands
    exactly where the product of the points with the homography, plus its last column, over its last row, puts it:
    the lattice grown from them is the one grown before, bit for bit."""
    rng = np.random.default_rng(5)
    for shape in ((37, 4, 43, 2), (5, 4, 15, 2), (200, 9, 2), (3, 2)):
        h = np.array([[31.0, 2.5, 80.0], [-1.75, 29.0, 40.0], [1e-3, -2e-3, 1.0]]) + rng.normal(0, 0.01, (3, 3))
        pts = rng.uniform(-3.0, 14.0, shape)
        plain = pts @ h[:, :2].T + h[:, 2]
        x, y = _apply_xy(h, pts)
        assert np.array_equal(x, plain[..., 0] / plain[..., 2]) and np.array_equal(y, plain[..., 1] / plain[..., 2])
        assert np.array_equal(_apply(h, pts), plain[..., :2] / plain[..., 2:3])


def test_the_seams_between_cells_are_those_between_east_and_south_neighbours_each_once() -> None:
    """Cells anywhere in the lattice (negative places too, one listed twice): a seam wherever a cell has a neighbour
    east or south of it, named by that neighbour."""
    cells = np.array([[-2, -1], [-1, -1], [-1, 0], [0, 0], [0, 0], [3, 5], [3, 6], [5, 5], [-1, 1], [0, 1]])
    have = {(int(x), int(y)) for x, y in cells}
    vertical, horizontal = _seams(cells)
    assert sorted(map(tuple, vertical.tolist())) == sorted((x + 1.0, y + 0.0) for x, y in have if (x + 1, y) in have)
    assert sorted(map(tuple, horizontal.tolist())) == sorted((x + 0.0, y + 1.0) for x, y in have if (x, y + 1) in have)
    assert _seam_count(cells) == 3 + 4
    empty_v, empty_h = _seams(np.zeros((0, 2), np.intp))
    assert empty_v.shape == (0, 2) and empty_h.shape == (0, 2)


def test_the_upper_decile_of_whole_gradients_is_numpys_to_the_bit() -> None:
    """The cap on the seam profiles' gradients (their 90th percentile over the board) counted out of a histogram is
    the value numpy's percentile gives, for any count of values (the interpolation falling either side of the
    middle) and for values that are not whole numbers (left to numpy)."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 7, 10, 11, 97, 1000, 4099):
        values = np.abs(cv2.Sobel(rng.integers(0, 256, (n, 3)).astype(np.float32), cv2.CV_32F, 1, 0, ksize=3)).ravel()
        for q in (90, 37.5):
            assert _whole_percentile(values, q) == float(np.percentile(values, q))
    halves = rng.integers(0, 40, 501).astype(np.float32) + 0.5
    assert _whole_percentile(halves, 90) == float(np.percentile(halves, 90))


def test_a_lattice_of_many_small_cells_is_searched_not_refused_by_opencv() -> None:
    """Over 512 candidate cells put more than 32767 samples in one row of ``cv2.remap``'s maps, which it refuses."""
    rng = np.random.default_rng(1)
    fine = (rng.random((600, 600)) * 255).astype(np.uint8)
    mask = np.full((600, 600), 255, np.uint8)
    out = search_lattice(fine, mask, np.diag([12.0, 12.0, 1.0]))
    assert out is not None and out.shape == (3, 3)


def test_samples_laid_out_in_rows_read_as_one_long_row() -> None:
    rng = np.random.default_rng(2)
    image = rng.random((40, 50)).astype(np.float32)
    xs, ys = rng.random(9000) * 49, rng.random(9000) * 39
    whole = np.concatenate([cv2.remap(image, xs[i:i + 3000].astype(np.float32).reshape(1, -1),
                                      ys[i:i + 3000].astype(np.float32).reshape(1, -1), cv2.INTER_LINEAR)[0]
                            for i in range(0, 9000, 3000)])
    assert np.array_equal(_sample(image, xs, ys), whole)


def _fourth_board_photo(seed: int, tiles: int, level: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """A board of the Fourth edition as `benchmarks/bench_enroll_carcassonne.py` lays and photographs it (seed,
    size, camera level): the photo and each tile's true corners in it."""
    from benchmarks.bench_carcassonne_vision import _model_photo
    from benchmarks.carcassonne_fourth_deck import draw_tile
    from vision.camera_model import LEVELS as MODEL_LEVELS

    rng = np.random.default_rng(seed)
    layout = random_layout(tiles, rng, expansion=False)
    board = draw_board(layout, lambda t, r: draw_tile(t, r, 96), rng, cell=96, margin=max(4.0, 1.3 * len(layout) ** 0.5))
    image, _, _, project = _model_photo(board, MODEL_LEVELS[level], seed, (2304, 1296))
    return image, [np.asarray(project(board.cell_corners(t.x, t.y)), np.float64).reshape(-1, 2) for t in board.tiles]


def _cells_on_tiles(grid: Grid, truth: list[np.ndarray]) -> int:
    """How many true tiles have a grid cell whose centre lies within a quarter of a tile of theirs."""
    centres = np.array([np.asarray(c.corners, np.float64).reshape(-1, 2).mean(axis=0) for c in grid.cells])
    right = 0
    for q in truth:
        side = float(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1).mean())
        right += float(np.linalg.norm(centres - q.mean(axis=0), axis=1).min()) < 0.25 * side
    return right


def test_a_small_board_whose_lattice_holds_few_seams_is_grown_onto_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve tiles at 35 degrees of tilt (a tuning board of the deck benchmark, hard camera): the comb's phase
    locked 0.4 of a cell off along the roads, the lattice held a sixth of the seams, and a board under
    `GROW_CELLS` was never grown, so no cell lay on a tile. Grown, every cell does; a small board whose lattice
    holds most of its seams is still not grown."""
    grown: list[float] = []
    real = grid_module.grow_best

    def spy(fine: Any, mask: Any, to_work: Any, share: float) -> Any:
        grown.append(share)
        return real(fine, mask, to_work, share)

    monkeypatch.setattr(grid_module, "grow_best", spy)
    photo, truth = _fourth_board_photo(906_000_001, 12, "hard")
    grid = find_grid(photo)
    assert len(grown) == 1 and 0.0 < grown[0] < grid_module.SMALL_GROW_BELOW
    assert _cells_on_tiles(grid, truth) == len(truth) == len(grid.cells)
    grown.clear()
    photo, truth = _fourth_board_photo(906_000_005, 12, "hard")
    grid = find_grid(photo)
    assert grown == []
    assert _cells_on_tiles(grid, truth) == len(truth)


def _ochre_board_on_orange_table(seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A five-tile board (40 px tiles) whose ochre field is a few Lab units off an orange table waved lighter and
    darker along one hue, with dotted cities near its corners and a road across it: the photo and the board's
    pixels."""
    rng = np.random.default_rng(seed)
    h, w = 360, 640
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wave = np.sin(yy / 3.0 + 2 * np.sin(xx / 40.0))
    lab = np.zeros((h, w, 3), np.float32)
    lab[..., 0] = 146 + 22 * wave
    lab[..., 1] = 133
    lab[..., 2] = 168 + 4 * wave
    board = np.zeros((h, w), np.uint8)
    board[100:220, 260:380] = 1
    board[220:260, 300:340] = 1
    noise = rng.normal(0, 3, (int(board.sum()), 3)).astype(np.float32) * np.array([3, 0.5, 0.5], np.float32)
    lab[board > 0] = np.array([150, 139, 163], np.float32) + noise
    for cx, cy in ((278, 118), (362, 118), (362, 202), (278, 202), (320, 242)):
        cv2.circle(lab, (cx, cy), 14, (110, 175, 150), -1)
    city = lab[..., 1] > 160
    lab[city, 0] += np.where((xx[city] // 3 + yy[city] // 3) % 2 > 0, 40, -40)
    cv2.line(lab, (262, 160), (378, 160), (40, 128, 128), 3)
    # (OpenCV's float Lab: L 0-100, a and b about 0)
    lab[..., 0] *= 100 / 255
    lab[..., 1:] -= 128
    bgr = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR) * 255
    return np.clip(bgr + rng.normal(0, 2, bgr.shape), 0, 255).astype(np.uint8), board


def test_an_ochre_board_on_an_orange_striped_table_is_found_by_its_colour_off_the_tables_stripes() -> None:
    """The field is within the table's spread of colours by the distance `_foreground` measures (only the cities and
    the road were the board's, a quarter of it); off the line the table's stripes vary along, the whole board is."""
    photo, board = _ochre_board_on_orange_table()
    inner = cv2.erode(board, np.ones((7, 7), np.uint8)) > 0
    table = cv2.dilate(board, np.ones((9, 9), np.uint8)) == 0
    mask = _foreground(photo)
    assert mask[inner].mean() > 0.95
    assert mask[table].mean() < 0.01
    # the scattered cities and road are all the board the table's spread finds (the test can fail)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grid_module, "SAME_COLOUR_COVER", 0.0)
        assert _foreground(photo)[inner].mean() < 0.4


def test_a_board_found_whole_is_not_joined_by_a_patch_of_table_a_shade_off() -> None:
    """A board the table's spread finds whole stays as it is: a patch of table a little off the table's colours
    (as the ochre field is) lying beyond the board is not joined to it."""
    photo, board = _ochre_board_on_orange_table()
    lab = cv2.cvtColor(photo, cv2.COLOR_BGR2Lab)
    green = board > 0
    lab[green] = (120, 100, 150)
    patch = np.zeros(board.shape, bool)
    patch[60:120, 460:560] = True
    lab[patch, 1] = np.clip(lab[patch, 1].astype(np.int32) + 6, 0, 255).astype(np.uint8)
    lab[patch, 2] = np.clip(lab[patch, 2].astype(np.int32) - 5, 0, 255).astype(np.uint8)
    photo = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)
    mask = _foreground(photo)
    assert mask[cv2.erode(board, np.ones((7, 7), np.uint8)) > 0].mean() > 0.95
    assert mask[patch].mean() < 0.01


def test_an_ochre_board_on_an_orange_striped_table_has_a_cell_on_every_tile() -> None:
    """A tuning board of the deck benchmark (12 tiles, hard camera): its ochre field on an orange striped table left
    only the cities and roads as the board, and four cells two tiles wide lay across it; with the field found, every
    tile has its cell."""
    photo, truth = _fourth_board_photo(906_600_001, 12, "hard")
    grid = find_grid(photo)
    assert _cells_on_tiles(grid, truth) == len(truth) == len(grid.cells)
