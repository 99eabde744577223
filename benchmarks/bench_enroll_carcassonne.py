"""Bring your own deck, for Carcassonne: enrol a tile edition the shipped model never saw, then read boards of it.

1. The "Fourth" edition (`benchmarks/carcassonne_fourth_deck.py`: ochre hatched fields, plum
   polygon cities, charcoal roads with a dashed yellow line; drawn from the catalog, unlike every
   style the shipped model was trained on and unlike the scans) is photographed one tile at a time,
   as a phone would: each base tile letter (A to X) alone on a random table, ``--photos`` photos each
   (at most 2), through the independent camera model (`vision.camera_model`, level
   ``--enrol-level``: tilted, rolled to any angle, defocused, motion-blurred, glare, noise, JPEG).
2. ``ringside enroll carcassonne`` builds the deck from that folder on one core (timed).
3. Held-out boards (legal layouts of the base box, `vision.carcassonne.board.random_layout`, sizes
   cycling through ``--sizes``; seeds never used for enrolment) drawn in the Fourth edition are
   photographed by the independent camera model at each ``--levels`` level (framed as a player frames
   a board, `bench_carcassonne_vision._model_photo`) and read twice on the same photo and grid: by
   the shipped model alone and with the deck (`vision.carcassonne.classifier.DeckTileClassifier`).
   Reported per level and reader: tiles right (in their cell, type and turn right), wrong tiles
   accepted (goal 0: a wrong type, a wrong turn, or a tile where none lies), unsure, boards whose
   grid was not found, and CPU ms per frame (grid finding and reading, one thread; CPU time, since a
   loaded machine stretches the wall clock). Also: the deck alone on the true cells (what it names
   right, leaves unsure, names wrong), before the board is settled.

What the Carcassonne reading does with a deck was chosen on boards of seeds 906,000,000 on; report
figures from other seeds (907,000,000 on).

Usage: python benchmarks/bench_enroll_carcassonne.py [--boards 8] [--levels easy,medium,hard]
       [--sizes 6,12,20,30] [--photos 2] [--enrol-level medium] [--seed-base 907000000]
       [--photo 2304x1296] [--keep DIR] [--why]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

# this checkout's code (not an installed copy), and the benchmarks beside this file
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from bench_carcassonne_vision import _model_photo, _score, _turned  # noqa: E402
from bench_enroll import add_enrolment_arguments, chosen_levels, enrolment_photo  # noqa: E402
from carcassonne_fourth_deck import draw_tile, render  # noqa: E402

from scorer.carcassonne.catalog import BASE_TILES  # noqa: E402
from vision.camera_model import LEVELS  # noqa: E402
from vision.carcassonne.board import draw_board, random_layout  # noqa: E402
from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier, cut_crops  # noqa: E402
from vision.carcassonne.grid import NoBoardError, find_grid  # noqa: E402
from vision.carcassonne.recognize import BoardReading, read_cells  # noqa: E402

#: Enrolment photos use seeds from here on (apart from every board seed).
PHOTO_SEEDS = 882_000_000
SCENE_SEEDS = 907_000_000
#: half the width framed around a tile in an enrolment photo (mm)
TILE_REACH = 40.0
#: px per tile side of the drawn boards
CELL = 96


def write_photos(folder: Path, labels: list[str], photos: int, level: str, retaken: list[str]) -> int:
    """The enrolment folder, one sub-folder per tile letter with ``photos`` photos (`enrolment_photo`); a photo in
    which enrolment finds no tile is taken again (another seed), as a user told so would, and listed in ``retaken``."""
    from firmware.enroll import spec_of
    from vision.enroll import find_component

    shape = spec_of("carcassonne").shape_of(labels[0])
    n = 0
    for i, label in enumerate(labels):
        sub = folder / label
        sub.mkdir(parents=True, exist_ok=True)
        for k in range(photos):
            seed = PHOTO_SEEDS + 10 * i + k
            image = enrolment_photo(label, seed, level, draw=render, reach=TILE_REACH)[0].image
            while find_component(image, shape) is None and seed < PHOTO_SEEDS + 10 * i + k + 5000:
                retaken.append(f"{label}/photo{k + 1} (seed {seed})")
                seed += 1000
                image = enrolment_photo(label, seed, level, draw=render, reach=TILE_REACH)[0].image
            cv2.imwrite(str(sub / f"photo{k + 1}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=8, help="boards per level")
    add_enrolment_arguments(ap, "tile", SCENE_SEEDS)
    ap.add_argument("--sizes", default="6,12,20,30", help="board sizes (tiles), in turn")
    ap.add_argument("--photo", default="2304x1296", help="board photo size WxH")
    ap.add_argument("--why", action="store_true", help="list every tile not read right with the deck")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    from firmware.enroll import EnrollError, enroll_folder
    from vision.enroll import load_deck, save_deck

    levels = chosen_levels(args)
    if levels is None:
        return 2
    try:
        sizes = [int(v) for v in args.sizes.split(",") if v]
        pw, ph = (int(v) for v in args.photo.lower().split("x"))
    except ValueError:
        print(f"error: --sizes {args.sizes!r} or --photo {args.photo!r} is not understood", file=sys.stderr)
        return 2
    labels = list(BASE_TILES)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-enroll-carcassonne-"))
    photos_dir = work / "photos"
    t0 = time.time()
    retaken: list[str] = []
    if photos_dir.is_dir() and args.keep is not None:
        n_photos = sum(1 for _ in photos_dir.glob("*/*.jpg"))
    else:
        n_photos = write_photos(photos_dir, labels, args.photos, args.enrol_level, retaken)
    print(f"{n_photos} enrolment photos of {len(labels)} Fourth tiles ({args.enrol_level} camera, 1280x960) "
          f"in {time.time() - t0:.0f}s", file=sys.stderr)
    t0 = time.process_time()
    try:
        deck = enroll_folder("carcassonne", photos_dir, "fourth")
    except EnrollError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    enrol_cpu = time.process_time() - t0
    save_deck(deck, work / "deck", replace=True)
    deck = load_deck(work / "deck", "carcassonne")
    held = deck.card["held_back"]
    model = TileClassifier(DEFAULT_MODEL, threads=1)
    readers = {"shipped": model, "deck": DeckTileClassifier(deck, model)}
    tot = {(lv, r): Counter[str]() for lv in levels for r in readers}
    ms: dict[tuple[str, str], list[float]] = {(lv, r): [] for lv in levels for r in readers}
    alone = {lv: Counter[str]() for lv in levels}
    why: list[str] = []
    for b in range(args.boards):
        seed = args.seed_base + b
        rng = np.random.default_rng(seed)
        n = sizes[b % len(sizes)]
        layout = random_layout(n, rng, expansion=False)
        board = draw_board(layout, lambda t, r: draw_tile(t, r, CELL), rng, cell=CELL,
                           margin=max(4.0, 1.3 * len(layout) ** 0.5))
        for lv in levels:
            image, k, angle, project = _model_photo(board, LEVELS[lv], seed, (pw, ph))
            # the deck alone on the true cells
            true_cells = [project(board.cell_corners(t.x, t.y)) for t in board.tiles]
            for t, rec in zip(board.tiles, deck.classify(cut_crops(image, true_cells), 0.0)):
                alone[lv]["tiles"] += 1
                alone[lv]["right" if rec.label == t.tile else "unsure" if rec.label is None else "wrong"] += 1
            t1 = time.process_time()
            try:
                grid = find_grid(image)
            except NoBoardError:
                grid = None
            t_grid = time.process_time() - t1
            turns = [q for q in range(4) if abs((angle - 90 * q + 180) % 360 - 180) < 50] or [k]
            for name, clf in readers.items():
                t = tot[(lv, name)]
                t["boards"] += 1
                t["tiles"] += len(layout)
                t1 = time.process_time()
                try:
                    if grid is None:
                        raise NoBoardError("no grid")
                    reading = read_cells(image, grid, clf)
                except NoBoardError:
                    reading = BoardReading(())
                    t["nogrid"] += 1
                ms[(lv, name)].append(1000 * (t_grid + time.process_time() - t1))
                s = max((_score(reading, _turned(layout, q)) for q in turns), key=lambda r: (r["turned"], r["typed"]))
                t["right"] += s["turned"]
                t["wrong"] += s["wrong"] + s["extra"]
                t["unsure"] += s["unsure"]
                t["read"] += len(reading.tiles)
                if args.why and name == "deck":
                    for cell, what, want in s["bad"]:
                        got = next(x for x in reading.tiles if (x.x, x.y) == cell)
                        why.append(f"{lv} seed {seed}: WRONG ({what}) {got.tile}@{got.rotation} read at {cell}, "
                                   f"{want[0] + '@' + str(want[1]) if want else 'nothing'} there")
                    if s["turned"] < s["tiles"]:
                        why.append(f"{lv} seed {seed}: {s['tiles'] - s['turned']} of {s['tiles']} not right "
                                   f"({s['unsure']} unsure, {s['wrong']} wrong, {s['tiles'] - s['found']} not found)"
                                   + ("" if grid is not None else ": no grid"))
    print(f"Fourth Carcassonne edition ({len(labels)} base tiles), {args.photos} photo(s) each, {args.enrol_level} camera")
    print(f"enrolment: {enrol_cpu:.1f} s CPU on one core ({enrol_cpu * 52 / len(labels):.1f} s scaled to 52 "
          f"components); {deck.card['prototypes']} prototypes; held-back: {held['right']}/{held['views']} right, "
          f"{held['wrong_accepted']} wrong")
    if retaken:
        print(f"photos taken again because enrolment found no tile in them: {', '.join(retaken)}")
    print(f"boards: held-out seeds {args.seed_base}..{args.seed_base + args.boards - 1}, sizes {args.sizes} in turn, "
          f"{pw}x{ph}, independent camera model")
    print(f"{'level':<8} {'reader':<8} {'boards':>6} {'no grid':>7} {'tiles right':>22} {'wrong acc.':>12} "
          f"{'unsure':>7} {'CPU ms med':>10}")
    for (lv, name), t in tot.items():
        med = statistics.median(ms[(lv, name)]) if ms[(lv, name)] else math.nan
        print(f"{lv:<8} {name:<8} {t['boards']:>6} {t['nogrid']:>7} {100 * t['right'] / max(t['tiles'], 1):>10.2f}% "
              f"({t['right']}/{t['tiles']}) {t['wrong']:>4}/{t['read']:<6} {t['unsure']:>7} {med:>10.0f}")
    for lv, a in alone.items():
        print(f"deck alone on the true cells, {lv}: {a['right']} right, {a['unsure']} unsure, {a['wrong']} wrong "
              f"of {a['tiles']} (type only)")
    for line in why:
        print("  ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
