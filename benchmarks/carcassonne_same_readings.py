"""Check that two versions of the Carcassonne recogniser read the same: every board and live frame, bit for bit.

    PYTHONPATH=. python benchmarks/carcassonne_same_readings.py write OUT.json [--photos DIR] [--live-tiles 30]
    python benchmarks/carcassonne_same_readings.py compare A.json B.json

``write`` reads a fixed set of boards (1 to 92 tiles, with figures, through the independent camera model at
2304x1296 and 1280x720, overhead and tilted up to 35 degrees; and the benchmark camera's overhead photos) as
`vision.carcassonne.recognize.recognize` does, and one simulated game frame by frame with
`vision.carcassonne.live.LiveRecognizer`, and writes every result exactly: grid cells and their corners,
tiles, rotations, confidences, unsure cells, figures, conflicts (floats as their exact ``repr``). Run it on
each version (``PYTHONPATH`` at that version's tree; ``--photos`` keeps the photos between runs) and
``compare`` the two files: it lists the first differences and exits 1 when there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path[:0] = [str(Path(__file__).resolve().parent)]

SEED = 1_700_000
#: (tiles, tilt band, photo size) of the camera-model boards
BOARDS = [(n, tilt, size) for n in (1, 3, 12, 30, 72, 92) for tilt in ((0.0, 15.0), (25.0, 35.0))
          for size in ((2304, 1296),)] + [(n, (0.0, 15.0), (1280, 720)) for n in (12, 92)]
EDITIONS = ("classic", "newart", "bright", "flat")


def _exact(value: Any) -> Any:
    """``value`` with every float as its exact repr (arrays as nested lists)."""
    if isinstance(value, np.ndarray):
        return _exact(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _exact(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.integer):
        return int(value)
    return value


def _photos(folder: Path) -> list[tuple[str, Any]]:
    from bench_carcassonne_vision import _board, _model_photo

    from vision.camera_model import LEVELS as MODEL_LEVELS
    from vision.carcassonne.camera import LEVELS, photograph

    folder.mkdir(parents=True, exist_ok=True)
    banks: dict[str, Any] = {}
    out = []
    for i, (n, (lo, hi), size) in enumerate(BOARDS):
        name = f"model-{i:02d}-{n}-{lo:.0f}-{hi:.0f}-{size[0]}.png"
        path = folder / name
        if not path.exists():
            rng = np.random.default_rng(SEED + i)
            board, _ = _board(EDITIONS[i % len(EDITIONS)], n, rng, banks, figures=True)
            level = replace(MODEL_LEVELS["medium"], name="medium-tilt", tilt_deg=(lo, hi))
            cv2.imwrite(str(path), _model_photo(board, level, SEED + i, size)[0])
        out.append((name, cv2.imread(str(path))))
    for i, (n, level_name) in enumerate([(6, "overhead"), (30, "typical"), (92, "typical"), (72, "hard")]):
        name = f"camera-{i:02d}-{n}-{level_name}.png"
        path = folder / name
        if not path.exists():
            rng = np.random.default_rng(SEED + 500 + i)
            board, _ = _board(EDITIONS[i % len(EDITIONS)], n, rng, banks, figures=True)
            cv2.imwrite(str(path), photograph(board.image, LEVELS[level_name], rng, size=(2304, 1296), subject=board.subject).image)
        out.append((name, cv2.imread(str(path))))
    return out


def write(out: Path, folder: Path, live_tiles: int) -> None:
    from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier
    from vision.carcassonne.figures import search_figures
    from vision.carcassonne.grid import NoBoardError, find_grid
    from vision.carcassonne.recognize import read_cells

    clf = TileClassifier(DEFAULT_MODEL, threads=1)
    record: dict[str, Any] = {}
    for name, photo in _photos(folder):
        try:
            grid = find_grid(photo)
        except NoBoardError as e:
            record[name] = {"no board": str(e)}
            continue
        cells = {"grid": [(c.x, c.y, c.corners, c.cover) for c in grid.cells], "to_photo": grid.to_photo}
        # as `recognize` does, keeping the grid
        try:
            reading = read_cells(photo, grid, clf)
        except NoBoardError as e:
            record[name] = _exact({**cells, "no board": str(e)})
            continue
        found = search_figures(photo, reading.tiles, reading.corners)
        reading = replace(reading, figures=found.sure, unsure_figures=found.unsure)
        record[name] = _exact({**cells, "reading": repr(reading), "corners": reading.corners})
        print(name, len(reading.tiles), "tiles", len(reading.figures), "figures", flush=True)
    if live_tiles:
        from firmware.carcassonne.simcamera import SimulatedCamera
        from firmware.carcassonne.tablesim import SimulatedTable
        from hardware.errors import EndOfFrames
        from vision.carcassonne.live import LiveRecognizer, LiveTimes

        camera = SimulatedCamera(SimulatedTable(["Ann", "Ben"], seed=3, tiles=live_tiles))
        recognizer = LiveRecognizer(clf)
        frames = []
        while True:
            try:
                frame = camera.read()
            except EndOfFrames:
                break
            try:
                # the reading without its times (processor time differs run to run)
                frames.append(repr(replace(recognizer.recognize(frame), times=LiveTimes())))
            except NoBoardError as e:
                frames.append(f"no board: {e}")
        record["live"] = frames
        print("live", len(frames), "frames")
    out.write_text(json.dumps(record, indent=1))


def compare(a: Path, b: Path) -> int:
    one, two = json.loads(a.read_text()), json.loads(b.read_text())
    bad = [k for k in sorted(set(one) | set(two)) if one.get(k) != two.get(k)]
    for k in bad[:10]:
        x, y = json.dumps(one.get(k)), json.dumps(two.get(k))
        at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        print(f"{k}: differs at character {at}: {x[max(0, at - 80):at + 80]!r} / {y[max(0, at - 80):at + 80]!r}")
    print(f"{len(one)} / {len(two)} entries, {len(bad)} differ")
    return 1 if bad else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--photos", type=Path, default=Path("/tmp/carcassonne-same-readings"))
    w.add_argument("--live-tiles", type=int, default=30)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = p.parse_args()
    cv2.setNumThreads(1)
    if args.cmd == "write":
        write(args.out, args.photos, args.live_tiles)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
