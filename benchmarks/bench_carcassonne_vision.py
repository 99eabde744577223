"""Carcassonne tile recognition: accuracy per art edition, whole boards, and time.

    python benchmarks/bench_carcassonne_vision.py [--model M] [--editions E,...] [--boards N] [--twin-doubt T] [--quick]
        [--parts 1,2,3,4,5] [--why] [--tilts 0-15,15-25,25-35] [--effects medium] [--per-size N] [--sizes 1,3,...] [--photo WxH]

Every photo comes from the benchmark camera (`vision.carcassonne.camera`, harsher than the
training augmentations and separate code) at a named level. Boards are legal layouts drawn
from the box, painted with one edition's pictures: the scans (``scan:classic``,
``scan:newart``; base tiles only) or the project's render styles (with the Under the Big
Top tiles). Seeds here are >= 900_000 and never used in training.

1. Tiles: the true cells are projected into the photo (no grid finding), each cell is
   classified and the board settled; tile type accuracy, type+rotation accuracy and
   wrong tiles accepted (confidence above the threshold) per edition.
2. Boards: the whole pipeline (grid finding included) per camera level: boards fully
   right (every tile found, typed and turned right, nothing extra), tiles found, wrong
   tiles accepted.
   Each board carries figures (`vision.carcassonne.figures.random_figures`: meeples of the
   six colours, a ringmaster, acrobat stacks, the Big Top): figures right (cell, figure,
   colour and feature), wrong figures accepted, and boards fully right with their figures.
3. Time for a 92-tile board at 2304x1296 and a live frame at 1280x720 on one thread: the whole
   `recognize` and its parts, median and (in brackets) best of the runs.
4. No board: photos of a Big Top table (another game's cards and charts) through the
   same camera levels; the share refused as "no board" and the tiles wrongly reported.
5. Boards by tilt and size through the project-wide independent camera model
   (`vision.camera_model`): its level ``--effects`` gives light, blur, noise, lens and roll,
   while the tilt is drawn from each band of ``--tilts`` (degrees from straight down, up to
   35 and beyond); per band and board size: boards whose tiles are all right, tiles found,
   typed, typed and turned, wrong tiles accepted (tiles only: grid and cells, no figures), and
   "cells": tiles whose cell the grid placed within a fifth of a cell of the truth.
   The truth is turned to the photo's north (a roll of the camera turns the board). ``--bands`` runs some bands
   on the boards they have in the whole run; ``--per-board`` prints each board (cells right, why no grid).

A model trained without an edition's scans (``--sources`` of the training script)
measured on that edition is the honest cross-edition figure.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

import vision.carcassonne.recognize as recognize_module
from scorer.carcassonne.catalog import rotated
from vision.carcassonne.board import BoardImage, Placed, draw_board, random_layout
from vision.carcassonne.camera import LEVELS, Photo, photograph
from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier
from vision.carcassonne.dataset import build_bank
from vision.carcassonne.figures import PlacedFigure, draw_figures, find_figures, random_figures
from vision.carcassonne.grid import Cell, Grid, NoBoardError, find_grid
from vision.carcassonne.labels import canonical_rotation
from vision.carcassonne.recognize import BoardReading, read_cells, recognize
from vision.carcassonne.scans import available

SEED = 900_000
EDITIONS = ("scan:classic", "scan:newart", "classic", "newart", "bright", "flat")
CELL = 96
#: board sizes of part 2 (the base box holds 72 tiles; 92 needs the expansion, so scans stop at 72)
SIZES = (1, 3, 12, 30, 72, 92)
#: a tile's side on the table (millimetres)
TILE_MM = 45.0


def _board(source: str, n: int, rng: np.random.Generator, banks: dict[str, Any],
           figures: bool = False) -> tuple[BoardImage, list[Placed]]:
    if source not in banks:
        banks[source] = build_bank([source], variants=4, seed=SEED, scan_repeat=1)
    bank = banks[source]
    tiles = random_layout(n, rng, expansion=not source.startswith("scan:"))

    def pic(name: str, rot: int) -> NDArray[Any]:
        return np.ascontiguousarray(np.rot90(bank.pick(name, rng), k=-(rot // 90)))

    board = draw_board(tiles, pic, rng, cell=CELL, margin=max(4.0, 1.3 * len(tiles) ** 0.5))
    if figures:
        figs = random_figures(tiles, rng)
        img = draw_figures(board.image, {(t.x, t.y): (t.tile, t.rotation) for t in tiles}, figs,
                           lambda x, y: board.cell_corners(x, y)[0], board.cell, rng)
        board = BoardImage(img, board.tiles, board.cell, board.origin, tuple(figs))
    return board, tiles


def _figure_score(reading: BoardReading, tiles: list[Placed], figs: tuple[PlacedFigure, ...]) -> tuple[int, int, int]:
    """(figures placed, found right with colour and feature, wrong ones reported) after the best whole-cell shift."""
    tx, ty = min(t.x for t in tiles), min(t.y for t in tiles)
    kinds = {(t.x, t.y): t for t in tiles}
    want: Counter[tuple[int, int, str, str, str]] = Counter()
    for f in figs:
        view = rotated(kinds[(f.x, f.y)].tile, kinds[(f.x, f.y)].rotation)
        feature = f.feature if f.feature in ("circus", "acrobats") else view.segments[view.spots[f.feature]].spot
        want[(f.x - tx, f.y - ty, f.figure, f.color, feature)] += f.count if f.figure == "acrobat" else 1
    have = Counter((g.x, g.y, g.figure, g.color, g.feature) for g in reading.figures)
    best = (sum(want.values()), 0, sum(have.values()))
    for ox in range(-4, 5):
        for oy in range(-4, 5):
            shifted = Counter({(x + ox, y + oy, *rest): n for (x, y, *rest), n in have.items()})
            right = sum((want & shifted).values())
            if right > best[1]:
                best = (sum(want.values()), right, sum(have.values()) - right)
    return best


def _true_grid(board: BoardImage, photo: Photo) -> Grid:
    cells = tuple(Cell(t.x, t.y, photo.project(board.cell_corners(t.x, t.y)).astype(np.float32), 1.0) for t in board.tiles)
    return Grid(cells, np.eye(3))


def _score(reading: BoardReading, tiles: list[Placed]) -> dict[str, Any]:
    """Matches after the best whole-cell shift (the reading's origin is arbitrary); ``bad`` lists each wrong tile
    accepted as (cell, what is wrong: ``extra`` where no tile is, ``type``, ``turn``; the true tile and turn there)."""
    tx, ty = min(t.x for t in tiles), min(t.y for t in tiles)
    truth = {(t.x - tx, t.y - ty): (t.tile, canonical_rotation(t.tile, t.rotation)) for t in tiles}
    got = {(t.x, t.y): (t.tile, canonical_rotation(t.tile, t.rotation)) for t in reading.tiles}
    unsure = {(u.x, u.y) for u in reading.unrecognised}
    best: dict[str, Any] | None = None
    for ox in range(-4, 5):
        for oy in range(-4, 5):
            typed = turned = wrong = extra = 0
            bad: list[tuple[tuple[int, int], str, tuple[str, int] | None]] = []
            for (x, y), (name, rot) in got.items():
                want = truth.get((x + ox, y + oy))
                if want is None:
                    extra += 1
                    bad.append(((x, y), "extra", None))
                elif want[0] == name:
                    typed += 1
                    turned += want[1] == rot
                    wrong += want[1] != rot
                    if want[1] != rot:
                        bad.append(((x, y), "turn", want))
                else:
                    wrong += 1
                    bad.append(((x, y), "type", want))
            found = sum(1 for (x, y) in list(got) + list(unsure) if (x + ox, y + oy) in truth)
            res = {"tiles": len(truth), "typed": typed, "turned": turned, "wrong": wrong, "extra": extra, "found": found,
                   "unsure": len(unsure), "bad": bad, "shift": (ox + tx, oy + ty)}
            if best is None or (turned, typed) > (best["turned"], best["typed"]):
                best = res
    assert best is not None
    return best


def bench_tiles(clf: TileClassifier, editions: list[str], per_edition: int, level: str, banks: dict[str, Any]) -> None:
    print(f"\n1. Tiles through the {level!r} camera on the true grid (threshold {recognize_module.THRESHOLD})")
    print(f"   {'edition':14s} {'tiles':>6s} {'type':>7s} {'type+rot':>9s} {'wrong accepted':>15s} {'unsure':>7s}")
    for k, ed in enumerate(editions):
        rng = np.random.default_rng(SEED + 1000 * k)
        tot: Counter[str] = Counter()
        while tot["tiles"] < per_edition:
            board, tiles = _board(ed, int(rng.integers(12, 30)), rng, banks)
            photo = photograph(board.image, LEVELS[level], rng, subject=board.subject)
            try:
                reading = read_cells(photo.image, _true_grid(board, photo), clf)
            except NoBoardError:
                # the board read as no board at all: every tile is missed
                reading = BoardReading(())
            s = _score(reading, tiles)
            for key in ("tiles", "typed", "turned", "wrong", "unsure"):
                tot[key] += s[key]
        n = tot["tiles"]
        print(f"   {ed:14s} {n:6d} {tot['typed'] / n:7.1%} {tot['turned'] / n:9.1%} {tot['wrong'] / n:15.2%} {tot['unsure'] / n:7.1%}")


def bench_boards(clf: TileClassifier, editions: list[str], boards: int, banks: dict[str, Any], why: bool = False) -> None:
    print("\n2. Whole boards with figures (grid found from the photo), sizes 1 to 92, editions in turn")
    print(f"   {'level':9s} {'boards':>6s} {'fully right':>12s} {'tiles right':>12s} {'tiles found':>12s} {'type+rot':>9s} "
          f"{'wrong accepted':>15s} {'no grid':>8s} {'figures right':>14s} {'wrong figures':>14s}")
    for k, (name, level) in enumerate(LEVELS.items()):
        rng = np.random.default_rng(SEED + 50_000 + 1000 * k)
        right = tiles_right = nogrid = tiles = found = turned = wrong = figs = figs_right = figs_wrong = 0
        for b in range(boards):
            ed = editions[b % len(editions)]
            # sizes cycle against the editions, so each edition meets every size
            n = SIZES[(b + b // len(editions)) % len(SIZES)]
            board, layout = _board(ed, n, rng, banks, figures=True)
            photo = photograph(board.image, level, rng, subject=board.subject)
            tiles += len(layout)
            figs += sum(f.count if f.figure == "acrobat" else 1 for f in board.figures)
            try:
                reading = recognize(photo.image, clf)
            except NoBoardError:
                nogrid += 1
                continue
            s = _score(reading, layout)
            if why:
                _list_wrong(name, b, ed, n, reading, s, board)
            f_all, f_right, f_wrong = _figure_score(reading, layout, board.figures)
            found += s["found"]
            turned += s["turned"]
            wrong += s["wrong"] + s["extra"]
            figs_right += f_right
            figs_wrong += f_wrong
            tiles_ok = s["turned"] == s["tiles"] and s["wrong"] == 0 and s["extra"] == 0 and s["unsure"] == 0
            tiles_right += tiles_ok
            right += tiles_ok and f_right == f_all and f_wrong == 0
        print(f"   {name:9s} {boards:6d} {right / boards:12.1%} {tiles_right / boards:12.1%} {found / tiles:12.1%} "
              f"{turned / tiles:9.1%} {wrong / tiles:15.2%} {nogrid:8d} {figs_right / max(1, figs):14.1%} "
              f"{figs_wrong / max(1, figs):14.2%}")


def _list_wrong(level: str, b: int, edition: str, n: int, reading: BoardReading, s: dict[str, Any],
                board: BoardImage) -> None:
    """One line per wrong tile accepted on a board of part 2: its cell, what was read, the truth there and the figures
    standing on it."""
    read = {(t.x, t.y): t for t in reading.tiles}
    sx, sy = s["shift"]
    for cell, what, want in s["bad"]:
        t = read[cell]
        on = [f"{f.color} {f.figure}".strip() + f" on {f.feature}" for f in board.figures
              if (f.x, f.y) == (cell[0] + sx, cell[1] + sy)]
        truth = f"{want[0]}@{want[1]}" if want else "no tile"
        print(f"     wrong: {level} board {b} ({edition}, {n} tiles) cell {cell}: read {t.tile}@{t.rotation} "
              f"({t.confidence:.3f}), {what}, truly {truth}; figures there: {', '.join(on) or 'none'}")


def _model_photo(board: BoardImage, level: Any, seed: int,
                 size: tuple[int, int]) -> tuple[NDArray[Any], int, float, Callable[[NDArray[Any]], NDArray[Any]]]:
    """A photo of ``board`` through `vision.camera_model`, the board's quarter turn in it (k, and its angle)
    and the map from the board picture's pixels to the photo's.

    The board is framed with bare table around it, as a player frames a board (one tile
    is at the photo's centre, not filling it). The table goes on beyond the drawn picture
    (mirrored), so that no edge of the picture shows where a tilted camera sees far.
    """
    from vision.camera_model import LEVELS as MODEL_LEVELS
    from vision.camera_model import _pose, _undistort
    from vision.camera_model import photograph as model_photograph

    per_mm = board.cell / TILE_MM
    x0, y0, x1, y1 = (v / per_mm for v in board.subject)
    pad = 0.08 * max(x1 - x0, y1 - y0) + 0.3 * TILE_MM
    region = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    # the camera's pose as the model will draw it: which part of the table the frame sees
    tag = list(MODEL_LEVELS).index(level.name) if level.name in MODEL_LEVELS else len(MODEL_LEVELS)
    k_mat, r_mat, centre, k1 = _pose(np.random.default_rng([seed, tag, size[0], size[1]]), level, region, size)
    w, h = size
    t = np.linspace(0, 1, 33)
    u = np.r_[t * w, t * w, np.zeros_like(t), np.full_like(t, w)]
    v = np.r_[np.zeros_like(t), np.full_like(t, h), t * h, t * h]
    xu, yu = _undistort((u - k_mat[0, 2]) / k_mat[0, 0], (v - k_mat[1, 2]) / k_mat[1, 1], k1)
    rays = np.stack([xu, yu, np.ones_like(xu)], axis=-1) @ r_mat
    depth = -centre[2] / rays[:, 2]
    seen_x = (centre[0] + depth * rays[:, 0]) * per_mm
    seen_y = (centre[1] + depth * rays[:, 1]) * per_mm
    cx0, cy0 = int(np.floor(seen_x.min())) - 16, int(np.floor(seen_y.min())) - 16
    cx1, cy1 = int(np.ceil(seen_x.max())) + 16, int(np.ceil(seen_y.max())) + 16
    hh, ww = board.image.shape[:2]
    canvas = board.image[max(0, cy0):min(hh, cy1), max(0, cx0):min(ww, cx1)]
    # mirror only bare table: each step reflects a band narrower than the table around the tiles
    sx0, sy0, sx1, sy1 = board.subject
    band = int(min(sx0, sy0, ww - sx1, hh - sy1) - 0.1 * board.cell)
    todo = np.array([max(0, -cy0), max(0, cy1 - hh), max(0, -cx0), max(0, cx1 - ww)])
    while todo.any():
        step = np.minimum(todo, band)
        canvas = np.pad(canvas, ((step[0], step[1]), (step[2], step[3]), (0, 0)), mode="reflect")
        todo -= step
    photo = model_photograph(canvas, per_mm, (cx0 / per_mm, cy0 / per_mm), region, level, seed, size=size, with_hand=False)
    mid = np.array([[(x0 + x1) / 2, (y0 + y1) / 2], [(x0 + x1) / 2 + TILE_MM, (y0 + y1) / 2]])
    a, b = photo.to_image(mid)
    angle = float(np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0])))
    return photo.image, int(round(angle / 90)) % 4, angle, lambda pts: photo.to_image(np.asarray(pts) / per_mm)


def _grid_right(grid: Grid, board: BoardImage, project: Callable[[NDArray[Any]], NDArray[Any]]) -> int:
    """How many of the board's tiles have a found cell whose corners lie within a fifth of a cell of the true ones."""
    found = np.array([c.corners for c in grid.cells]).reshape(-1, 4, 2)
    right = 0
    for t in board.tiles:
        true = project(board.cell_corners(t.x, t.y))
        side = float(np.linalg.norm(true[1] - true[0]))
        err = np.linalg.norm(found - true[None], axis=2).max(axis=1)
        # a cell's corners in another order (the board read turned) are the same cell
        for k in range(1, 4):
            err = np.minimum(err, np.linalg.norm(np.roll(found, k, axis=1) - true[None], axis=2).max(axis=1))
        right += bool(len(err)) and float(err.min()) < 0.2 * side
    return right


def _turned(tiles: list[Placed], k: int) -> list[Placed]:
    """``tiles`` as seen with the board turned ``k`` quarter turns clockwise."""
    out = tiles
    for _ in range(k % 4):
        out = [Placed(-t.y, t.x, t.tile, (t.rotation + 90) % 360) for t in out]
    return out


def bench_tilt(clf: TileClassifier, editions: list[str], per_size: int, sizes: list[int], tilts: list[tuple[float, float]],
               effects: str, photo_size: tuple[int, int], banks: dict[str, Any], seed: int = SEED,
               bands: list[int] | None = None, per_board: bool = False) -> None:
    from vision.camera_model import LEVELS as MODEL_LEVELS

    print(f"\n5. Boards by tilt through vision.camera_model ({effects!r} effects, {photo_size[0]}x{photo_size[1]}), "
          f"{per_size} per size, editions in turn")
    print(f"   {'tilt':7s} {'tiles':>5s} {'boards':>6s} {'all right':>9s} {'found':>7s} {'typed':>7s} {'type+rot':>8s} "
          f"{'wrong acc.':>10s} {'unsure':>7s} {'no grid':>7s} {'cells':>6s} {'s/board':>7s}")
    grand: Counter[str] = Counter()
    why: Counter[str] = Counter()
    for band, (lo, hi) in enumerate(tilts):
        if bands is not None and band + 1 not in bands:
            continue
        level = replace(MODEL_LEVELS[effects], name=f"{effects}-tilt", tilt_deg=(lo, hi))
        band_tot: Counter[str] = Counter()
        for n in sizes:
            rng = np.random.default_rng(seed + 80_000 + 1000 * band + n)
            tot: Counter[str] = Counter()
            for b in range(per_size):
                ed = editions[(b + n) % len(editions)]
                board, layout = _board(ed, n, rng, banks)
                image, k, angle, project = _model_photo(board, level, seed + 80_000 + 100 * band + 7 * n + b, photo_size)
                tot["boards"] += 1
                tot["tiles"] += len(layout)
                t = time.perf_counter()
                cells = 0
                reason = ""
                try:
                    grid = find_grid(image)
                    cells = _grid_right(grid, board, project)
                    reading = read_cells(image, grid, clf)
                except NoBoardError as e:
                    reading = BoardReading(())
                    tot["nogrid"] += 1
                    reason = str(e)
                ms = int(1000 * (time.perf_counter() - t))
                tot["cells"] += cells
                tot["ms"] += ms
                # near a diagonal roll either quarter turn is the photo's north
                turns = [q for q in range(4) if abs((angle - 90 * q + 180) % 360 - 180) < 50] or [k]
                s = max((_score(reading, _turned(layout, q)) for q in turns), key=lambda r: (r["turned"], r["typed"]))
                why += _why_wrong(reading, s["bad"], board, project)
                for key in ("found", "typed", "turned", "unsure"):
                    tot[key] += s[key]
                tot["wrong"] += s["wrong"] + s["extra"]
                tot["right"] += s["turned"] == s["tiles"] and s["wrong"] == 0 and s["extra"] == 0 and s["unsure"] == 0
                if per_board:
                    print(f"     board {lo:g}-{hi:g} n={n} #{b} {ed}: cells {cells}/{len(layout)}, typed and turned "
                          f"{s['turned']}, wrong {s['wrong'] + s['extra']}, unsure {s['unsure']}, {ms} ms"
                          + (f"; {reason}" if reason else ""))
            _tilt_row(f"{lo:g}-{hi:g}", str(n), tot)
            band_tot += tot
        _tilt_row(f"{lo:g}-{hi:g}", "all", band_tot)
        grand += band_tot
    _tilt_row("all", "all", grand)
    wrong = max(1, sum(why[k] for k in ("cell off", "no tile there", "type", "turn")))
    print("   wrong tiles accepted, by what is wrong: " + ", ".join(
        f"{k} {why[k]} ({why[k] / wrong:.0%})" for k in ("cell off", "no tile there", "type", "turn")))
    print("   of those: " + ", ".join(f"{k} {why[k]}" for k in
                                      ("edge twin", "no read neighbour", "one read neighbour", "confidence < 0.9")))


def _why_wrong(reading: BoardReading, bad: list[tuple[tuple[int, int], str, tuple[str, int] | None]], board: BoardImage,
               project: Callable[[NDArray[Any]], NDArray[Any]]) -> Counter[str]:
    """What is wrong with each wrong tile accepted: its cell off every true cell by a fifth of a cell or more (``cell
    off``), no tile there, its type or only its turn; and how many are an edge twin of the truth (same edges, another
    type), have no or one read neighbour, or a confidence under 0.9."""
    true = np.array([project(board.cell_corners(t.x, t.y)) for t in board.tiles]).reshape(-1, 4, 2)
    side = float(np.median(np.linalg.norm(true[:, 1] - true[:, 0], axis=1)))
    tiles = {(t.x, t.y): t for t in reading.tiles}
    out: Counter[str] = Counter()
    for cell, what, want in bad:
        c = reading.corners[cell]
        err = min(float(np.linalg.norm(np.roll(c, k, axis=0)[None] - true, axis=2).max(axis=1).min()) for k in range(4))
        if err >= 0.2 * side:
            out["cell off"] += 1
        else:
            out[{"extra": "no tile there"}.get(what, what)] += 1
        t = tiles[cell]
        if what == "type" and want is not None and rotated(*want).edges == rotated(t.tile, t.rotation).edges:
            out["edge twin"] += 1
        near = sum((cell[0] + dx, cell[1] + dy) in tiles for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)))
        if near <= 1:
            out["no read neighbour" if near == 0 else "one read neighbour"] += 1
        out["confidence < 0.9"] += t.confidence < 0.9
    return out


def _tilt_row(band: str, size: str, tot: Counter[str]) -> None:
    n, b = max(1, tot["tiles"]), max(1, tot["boards"])
    print(f"   {band:7s} {size:>5s} {tot['boards']:6d} {tot['right'] / b:9.0%} {tot['found'] / n:7.1%} {tot['typed'] / n:7.1%} "
          f"{tot['turned'] / n:8.1%} {tot['wrong'] / n:10.2%} {tot['unsure'] / n:7.1%} {tot['nogrid']:7d} "
          f"{tot['cells'] / n:6.1%} {tot['ms'] / b / 1000:7.2f}")


def bench_no_board(clf: TileClassifier, scenes: int) -> None:
    from vision.bigtop.scene import render_scene

    print(f"\n4. No board: {scenes} photos of a Big Top table (cards and charts, no tiles)")
    rng = np.random.default_rng(SEED + 70_000)
    refused = reported = 0
    for _ in range(scenes):
        try:
            reading = recognize(render_scene(rng).image, clf)
        except NoBoardError:
            refused += 1
            continue
        reported += len(reading.tiles)
    print(f"   refused as no board {refused / scenes:.1%}, tiles wrongly reported {reported}")


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, best) seconds of ``repeat`` runs after one warm-up; on a shared machine the best is the nearer."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), float(min(times))


def bench_time(model: Path, banks: dict[str, Any], repeat: int) -> None:
    cv2.setNumThreads(1)
    clf = TileClassifier(model, threads=1)
    rng = np.random.default_rng(SEED + 99)
    board, _ = _board("newart", 92, rng, banks, figures=True)
    print("\n3. Time on one thread (median)")
    for size in ((2304, 1296), (1280, 720)):
        photo = photograph(board.image, LEVELS["typical"], rng, size=size, subject=board.subject).image
        grid = find_grid(photo)
        reading = read_cells(photo, grid, clf)
        t_all = _time(lambda p=photo: recognize(p, clf), repeat)
        t_grid = _time(lambda p=photo: find_grid(p), repeat)
        t_read = _time(lambda p=photo, g=grid: read_cells(p, g, clf), repeat)
        t_figs = _time(lambda p=photo, r=reading: find_figures(p, r.tiles, r.corners), repeat)
        print(f"   {size[0]}x{size[1]}, 92-tile board: recognize {1000 * t_all[0]:.0f} ms (best {1000 * t_all[1]:.0f} ms): "
              f"grid {1000 * t_grid[0]:.0f} ({1000 * t_grid[1]:.0f}) ms, crops+classify+settle {1000 * t_read[0]:.0f} "
              f"({1000 * t_read[1]:.0f}) ms for {len(grid.cells)} cells, figures {1000 * t_figs[0]:.0f} ({1000 * t_figs[1]:.0f}) ms")


def main() -> int:
    global SEED
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    p.add_argument("--editions", default=",".join(EDITIONS))
    p.add_argument("--tiles", type=int, default=400, help="tiles per edition in part 1")
    p.add_argument("--boards", type=int, default=12, help="boards per camera level in part 2")
    p.add_argument("--level", default="typical", choices=sorted(LEVELS))
    p.add_argument("--parts", default="1,2,3,4")
    p.add_argument("--scenes", type=int, default=20, help="Big Top tables in part 4")
    p.add_argument("--tilts", default="0-15,15-25,25-35", help="part 5: tilt bands in degrees, LO-HI,...")
    p.add_argument("--bands", default="", help="part 5: only these bands of --tilts (1 = the first), each on the boards "
                   "it has in the whole run")
    p.add_argument("--why", action="store_true", help="part 2: a line per wrong tile accepted (cell, reading, truth, "
                   "figures on it)")
    p.add_argument("--per-board", action="store_true", help="part 5: a line per board (cells placed right, why no grid)")
    p.add_argument("--effects", default="medium", help="part 5: the vision.camera_model level giving every effect but the tilt")
    p.add_argument("--per-size", type=int, default=2, help="part 5: boards per tilt band and board size")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="part 5: board sizes (tiles)")
    p.add_argument("--photo", default="2304x1296", help="part 5: photo size WxH")
    p.add_argument("--seed", "--seed-base", dest="seed", type=int, default=SEED,
                   help=f"first seed of every part's boards (default {SEED}, the held-out one; another value, "
                        "e.g. 1200000, to tune with)")
    p.add_argument("--quick", action="store_true", help="a small run (100 tiles, 6 boards, 1 timing)")
    p.add_argument("--twin-doubt", type=float, default=recognize_module.TWIN_DOUBT,
                   help="share of an answer its edge twins may hold before the tile is unrecognised (1 = never)")
    p.add_argument("--class-temperature", type=float, default=recognize_module.CLASS_TEMPERATURE,
                   help="the class head's temperature before the settling (1 = as the model says)")
    p.add_argument("--threshold", type=float, default=recognize_module.THRESHOLD, help="a tile's confidence to be accepted")
    args = p.parse_args()
    SEED = args.seed
    recognize_module.TWIN_DOUBT = args.twin_doubt
    recognize_module.CLASS_TEMPERATURE = args.class_temperature
    recognize_module.THRESHOLD = args.threshold
    editions = [e for e in args.editions.split(",") if e]
    if not available():
        editions = [e for e in editions if not e.startswith("scan:")]
        print("(scans not found: render styles only)")
    tiles, boards, repeat = (100, 6, 1) if args.quick else (args.tiles, args.boards, 5)
    clf = TileClassifier(args.model, threads=1)
    banks: dict[str, Any] = {}
    print(f"model {args.model}, edge twins may hold {args.twin_doubt:g}, class temperature {args.class_temperature:g}, "
          f"threshold {args.threshold:g}")
    parts = args.parts.split(",")
    if "1" in parts:
        bench_tiles(clf, editions, tiles, args.level, banks)
    if "2" in parts:
        bench_boards(clf, editions, boards, banks, args.why)
    if "3" in parts:
        bench_time(args.model, banks, repeat)
    if "4" in parts:
        bench_no_board(clf, 6 if args.quick else args.scenes)
    if "5" in parts:
        tilts = [(float(a), float(b)) for a, b in (band.split("-") for band in args.tilts.split(","))]
        w, h = (int(v) for v in args.photo.lower().split("x"))
        bench_tilt(clf, editions, args.per_size, [int(v) for v in args.sizes.split(",")], tilts, args.effects, (w, h), banks,
                   SEED, [int(v) for v in args.bands.split(",") if v] or None, args.per_board)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
