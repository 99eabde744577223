"""Carcassonne reading time on one core: a whole board per stage, and a live frame.

    OMP_NUM_THREADS=1 python benchmarks/bench_carcassonne_speed.py [--boards 5] [--size 2304x1296] [--tiles 92]
        [--tilts 0-15,25-35] [--effects medium] [--repeat 2] [--live-tiles 92] [--live-seed 1] [--seed 900000]
        [--photos DIR]

Boards. Each board is a legal layout of ``--tiles`` tiles with figures (`vision.carcassonne.figures.random_figures`),
painted with the project's render styles in turn (the scans stop at 72 tiles) and photographed at ``--size``
through the project-wide independent camera model (`vision.camera_model`, level ``--effects``, the tilt drawn
from each band of ``--tilts``), as part 5 of ``bench_carcassonne_vision.py`` does. The stages of
`vision.carcassonne.recognize.recognize` are timed apart: the grid (`find_grid`), the cells
(`read_cells`: crops, classifier, settling) and the figures (`search_figures`); "total" is their sum.
Each stage is run ``--repeat`` times after one warm-up board and its best processor time
(``time.process_time``) kept; the table gives the median and the worst over the boards. A board whose
grid is not found counts its time until the refusal, with no cells or figures. ``--photos DIR`` keeps the
photos (drawing a 92-tile board takes longer than reading it): the same arguments read them back.

Live frames. One simulated game of ``--live-tiles`` tiles (`firmware.carcassonne.simcamera`, the frames the
referee sees from its overhead camera, four a scene) is read frame by frame by
`vision.carcassonne.live.LiveRecognizer`: processor time per frame, the median and 90th percentile of
every frame, of still frames (the scene as the frame before) and of frames where the scene changed.

OpenCV, onnxruntime and numpy's BLAS run on one thread. Processor time is the fair figure on a shared
machine; run the code being compared alternately under the same load and quote the load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy is imported: its BLAS on one thread

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path[:0] = [str(Path(__file__).resolve().parent)]  # the code measured: PYTHONPATH (the tree run from)

from bench_carcassonne_vision import _board, _model_photo  # noqa: E402

from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier  # noqa: E402
from vision.carcassonne.figures import search_figures  # noqa: E402
from vision.carcassonne.grid import NoBoardError, find_grid  # noqa: E402
from vision.carcassonne.recognize import read_cells  # noqa: E402

SEED = 900_000
EDITIONS = ("classic", "newart", "bright", "flat")
STAGES = ("grid", "cells", "figures", "total")

T = TypeVar("T")


def _cpu(fn: Callable[[], T], repeat: int) -> tuple[T, float]:
    """``fn()``'s result and its best processor time (ms) of ``repeat`` runs."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, 1000 * (time.process_time() - t))
    return out, best  # type: ignore[return-value]


def board_times(image: Any, clf: TileClassifier, repeat: int) -> dict[str, float]:
    """Processor ms of each stage of reading ``image`` (best of ``repeat``), and the cells and figures read."""
    times: dict[str, float] = {}
    try:
        grid, times["grid"] = _cpu(lambda: find_grid(image), repeat)
    except NoBoardError:
        _, times["grid"] = _cpu(lambda: _refused(image), repeat)
        return {**times, "cells": 0.0, "figures": 0.0, "total": times["grid"], "read": 0, "figs": 0}
    reading, times["cells"] = _cpu(lambda: read_cells(image, grid, clf), repeat)
    found, times["figures"] = _cpu(lambda: search_figures(image, reading.tiles, reading.corners), repeat)
    times["total"] = times["grid"] + times["cells"] + times["figures"]
    return {**times, "read": len(reading.tiles), "figs": len(found.sure)}


def _refused(image: Any) -> None:
    try:
        find_grid(image)
    except NoBoardError:
        return


def bench_boards(clf: TileClassifier, boards: int, tiles: int, size: tuple[int, int], tilts: list[tuple[float, float]],
                 effects: str, repeat: int, seed: int, keep: Path | None = None) -> None:
    from vision.camera_model import LEVELS as MODEL_LEVELS

    banks: dict[str, Any] = {}
    print(f"Boards: {tiles} tiles with figures, {size[0]}x{size[1]}, camera model {effects!r}, {boards} a tilt band, "
          f"best of {repeat} a stage; processor ms, median [worst] over the boards")
    print(f"   {'tilt':7s} " + " ".join(f"{s:>15s}" for s in STAGES) + "   tiles read, figures")
    for band, (lo, hi) in enumerate(tilts):
        level = replace(MODEL_LEVELS[effects], name=f"{effects}-tilt", tilt_deg=(lo, hi))
        photos = []
        for b in range(boards):
            path = None if keep is None else keep / f"{seed}-{tiles}-{lo:g}-{hi:g}-{effects}-{size[0]}x{size[1]}-{b}.png"
            if path is not None and path.exists():
                photos.append(cv2.imread(str(path)))
                continue
            rng = np.random.default_rng([seed, band, b])  # each board its own draw: a kept photo stands for it
            board, _ = _board(EDITIONS[b % len(EDITIONS)], tiles, rng, banks, figures=True)
            photo = _model_photo(board, level, seed + 90_000 + 100 * band + b, size)[0]
            photos.append(photo)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(path), photo)
        if band == 0:
            board_times(photos[0], clf, 1)  # warm-up: the model's session, caches built once a process
        rows = [board_times(p, clf, repeat) for p in photos]
        cells = " ".join(f"{np.median([r[s] for r in rows]):7.0f} [{max(r[s] for r in rows):5.0f}]" for s in STAGES)
        print(f"   {lo:.0f}-{hi:.0f}{'':3s} {cells}   " + " ".join(f"{r['read']}/{r['figs']}" for r in rows))


def bench_live(clf: TileClassifier, tiles: int, seed: int) -> None:
    from firmware.carcassonne.simcamera import SimulatedCamera
    from firmware.carcassonne.tablesim import SimulatedTable
    from hardware.errors import EndOfFrames
    from vision.carcassonne.live import LiveRecognizer

    camera = SimulatedCamera(SimulatedTable(["Ann", "Ben"], seed=seed, tiles=tiles))
    recognizer = LiveRecognizer(clf)
    still: list[float] = []
    changed: list[float] = []
    last_scene = None
    shape = None
    while True:
        try:
            frame = camera.read()
        except EndOfFrames:
            break
        shape = frame.shape
        t = time.process_time()
        try:
            recognizer.recognize(frame)
        except NoBoardError:
            pass
        ms = 1000 * (time.process_time() - t)
        scene = camera._scene  # noqa: SLF001  (the scene this frame shows)
        (still if scene == last_scene else changed).append(ms)
        last_scene = scene
    every = still + changed
    assert shape is not None
    print(f"\nLive: one simulated game (seed {seed}, {tiles} tiles), {len(every)} frames of {shape[1]}x{shape[0]}; "
          "processor ms per frame, median / 90th percentile / mean")
    for name, times in (("every frame", every), ("still frames", still), ("scene changed", changed)):
        print(f"   {name:14s} {np.median(times):6.1f} / {np.percentile(times, 90):6.1f} / {np.mean(times):6.1f}  "
              f"({len(times)} frames)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    p.add_argument("--boards", type=int, default=5, help="boards a tilt band (0: no boards)")
    p.add_argument("--tiles", type=int, default=92)
    p.add_argument("--size", default="2304x1296", help="photo size WxH")
    p.add_argument("--tilts", default="0-15,25-35", help="tilt bands in degrees, LO-HI,...")
    p.add_argument("--effects", default="medium", help="the vision.camera_model level giving every effect but the tilt")
    p.add_argument("--repeat", type=int, default=2, help="runs of each stage a board (the best is kept)")
    p.add_argument("--live-tiles", type=int, default=92, help="tiles of the live game (0: no live frames)")
    p.add_argument("--live-seed", type=int, default=1)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--photos", type=Path, default=None,
                   help="a folder keeping the board photos (PNG) between runs: drawn once, read after")
    args = p.parse_args()
    cv2.setNumThreads(1)
    clf = TileClassifier(args.model, threads=1)
    w, h = (int(v) for v in args.size.lower().split("x"))
    tilts = [(float(a), float(b)) for a, b in (band.split("-") for band in args.tilts.split(","))]
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, load {os.getloadavg()[0]:.1f}")
    if args.boards:
        bench_boards(clf, args.boards, args.tiles, (w, h), tilts, args.effects, args.repeat, args.seed, args.photos)
    if args.live_tiles:
        bench_live(clf, args.live_tiles, args.live_seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
