"""Circus Grandioso recognition through the independent camera model (`vision.camera_model`).

Tables come from random legal games (`scorer` Grandioso, seeds 880,000,000 + k,
a random number of moves each): their pyramid, face-down singles and stack are
drawn from straight above (`vision.grandioso.scene.render_top_down`, each card
nudged and turned a little), photographed with the independent camera model at
every level, and recognised (a new table each frame). Printed per level:

* usable by the referee: mat found, every pyramid card read right, no card read
  where none lies, no place held needlessly, the singles counted right; a card
  whose code the hand covers may instead be missing or reported unrecognised,
  a place without a card where the hand covers a code's place may be reported unrecognised (a hand may hide a card),
  and the singles row (its count, or a place reported unclear) is not judged when the hand lies over it;
* cards right: pyramid cards read right, of all pyramid cards;
* wrong cards accepted (goal 0): a place read as another card, or a card read
  where none lies;
* held: places reported unrecognised though their code is not under the hand;
* live: usable as the live referee judges the view, having accepted the table before its last move
  (`firmware.grandioso.GrandiosoTable.fill_held`): a place glare hides where a card was accepted is
  that card, and unclear places of the singles row hold the singles accepted there when the row shows
  nothing else (a card laid by the last move is still asked about); and the wrong cards accepted so;
* ms per frame on one thread (median and 90th percentile of the wall clock, and the median of the
  process's CPU time, which a loaded machine inflates less).

Usage: python benchmarks/bench_grandioso_vision.py [--scenes 60] [--levels easy,medium,hard]
       [--size 1280x960] [--seed-base 880000000] [--why]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace

import cv2
import numpy as np

import scorer
from firmware.grandioso import GrandiosoTable
from scorer.grandioso.model import GrandiosoState
from scorer.grandioso.pyramid import Card
from vision import NoMatError
from vision.camera_model import Photo, photograph
from vision.grandioso.layout import CODE_SIZE, MAT, code_centre
from vision.grandioso.pipeline import GrandiosoView, Recognizer
from vision.grandioso.scene import CONTENT_REGION, Scene, render_top_down, single_centre

SEED_BASE = 880_000_000
#: canvas resolution of the clean top-down table (px/mm)
CANVAS_PX_PER_MM = 4.0


def random_table(seed: int) -> tuple[Scene, dict[tuple[int, int], Card]]:
    """A table from a random legal game cut off after a random number of moves."""
    scene, truth, _ = random_table_and_before(seed)
    return scene, truth


def random_table_and_before(seed: int) -> tuple[Scene, dict[tuple[int, int], Card], GrandiosoState]:
    """`random_table`, and the game's state before its last move (what the live referee had accepted)."""
    game = scorer.get("grandioso")
    rng = random.Random(seed)
    state: GrandiosoState = game.new_state(["A", "B", "C"][: rng.choice((2, 3))], rng)
    before = state
    for _ in range(rng.randrange(5, 140)):
        if game.is_over(state):
            break
        before = state
        state, _ = game.apply_unchecked(state, game.random_move(state, rng))
    pyramid = state.pyramid
    singles = min(len(state.singles), 17)
    return Scene(pyramid, singles=singles, stack=bool(state.stack), jitter=seed), \
        {(r, c): k for r, c, k in pyramid.cells()}, before


def live_view(view: GrandiosoView, before: GrandiosoState) -> GrandiosoView:
    """The view as the live referee judges it, having accepted ``before``: each place glare hides where a
    card was accepted is that card (`firmware.grandioso.GrandiosoTable.fill_held`)."""
    table = GrandiosoTable()
    seen = table.fill_held(before, table.sighting(view, ["A", "B", "C"]))
    filled = {p: k for p, k in seen.snapshot.pyramid if p not in view.pyramid}
    singles = len(seen.snapshot.single_places)
    kept = tuple(u for u in view.unrecognised if not (u.unread and (u.row, u.col) in filled)
                 and not (u.places and singles != view.singles))
    return replace(view, pyramid={**view.pyramid, **filled}, singles=singles, unrecognised=kept)


def judge(view: GrandiosoView, truth: dict[tuple[int, int], Card], scene: Scene, photo: Photo) -> tuple[list[str], int, int, int]:
    """Why the table is not usable (nothing when it is), the pyramid cards read right, read wrong, held needlessly."""
    held_at = {(u.row, u.col): u.why for u in view.unrecognised if u.row is not None and u.col is not None}
    # a place whose code the hand covers, a card there or not: asking about it is never needless (a hand may hide a card)
    covered = {p for p in set(truth) | set(held_at) if _hidden(photo, *code_centre(*p))}
    why = []
    right = wrong = 0
    for place, card in view.pyramid.items():
        if truth.get(place) is card:
            right += 1
        else:
            wrong += 1
            why.append(f"wrong: {card.label} read at {place}, "
                       f"{'empty' if place not in truth else truth[place].label} there")
    needless = {p for p in held_at if p not in covered}
    missing = set(truth) - set(view.pyramid) - covered
    why += [f"held: {truth[p].label if p in truth else 'empty place'} at {p} ({held_at[p]})"
            for p in sorted(needless, key=str)]
    why += [f"missed: {truth[p].label} at {p}" for p in sorted(missing - set(held_at))]
    singles_hidden = any(_hidden(photo, *single_centre(i)) for i in range(scene.singles)) or \
        _hidden(photo, MAT.singles.x + MAT.singles.w / 2, MAT.singles.y + MAT.singles.h / 2)
    why += [f"unrecognised: {u.where}: {u.why}" for u in view.unrecognised
            if u.row is None and not (singles_hidden and u.where == "the singles row")]
    if view.singles != scene.singles and not singles_hidden:
        why.append(f"singles: {view.singles} read, {scene.singles} lie")
    return why, right, wrong, len(needless)


def _hidden(photo: Photo, x: float, y: float) -> bool:
    """True when the hand covers any part of the code centred on table point (x, y)."""
    d = CODE_SIZE / 2
    pts = np.array([[x, y], [x - d, y - d], [x + d, y - d], [x + d, y + d], [x - d, y + d]])
    h, w = photo.hand_mask.shape
    for u, v in photo.to_image(pts):
        if not (0 <= u < w and 0 <= v < h) or photo.hand_mask[int(v), int(u)]:
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--levels", default="easy,medium,hard")
    ap.add_argument("--size", default="1280x960")
    ap.add_argument("--seed-base", type=int, default=SEED_BASE)
    ap.add_argument("--why", action="store_true", help="print why each table that is not usable is not")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    recognizer = Recognizer()
    print(f"Circus Grandioso recognition, {args.scenes} tables per level, {size[0]}x{size[1]} frames, one thread")
    print(f"{'level':8} {'usable':>8} {'cards right':>14} {'wrong':>6} {'held':>5} {'no mat':>7} "
          f"{'ms median':>10} {'ms p90':>7} {'cpu ms':>7} {'live':>8} {'wrong':>5}")
    for level in args.levels.split(","):
        usable = right = total = wrong = held = nomat = usable_live = wrong_live = 0
        times: list[float] = []
        cpu: list[float] = []
        for k in range(args.scenes):
            seed = args.seed_base + k
            scene, truth, before = random_table_and_before(seed)
            canvas = render_top_down(scene, CANVAS_PX_PER_MM)
            photo = photograph(canvas, CANVAS_PX_PER_MM, CONTENT_REGION[:2], CONTENT_REGION, level, seed,
                               size=(size[0], size[1]))
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                view = recognizer.recognize(photo.image).view
            except NoMatError:
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                nomat += 1
                total += len(truth)
                if args.why:
                    print(f"  {level} seed {seed}: mat not found", flush=True)
                continue
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            total += len(truth)
            why, got_right, got_wrong, needless = judge(view, truth, scene, photo)
            right, wrong, held, usable = right + got_right, wrong + got_wrong, held + needless, usable + (not why)
            live_why, _, live_wrong, _ = judge(live_view(view, before), truth, scene, photo)
            usable_live += not live_why
            wrong_live += live_wrong
            if args.why and why:
                print(f"  {level} seed {seed}: " + "; ".join(why)
                      + ("" if live_why else " (usable live)"), flush=True)
        n = args.scenes
        print(f"{level:8} {100 * usable / n:7.1f}% {right:6}/{total:<6} {100 * right / max(1, total):5.1f}% "
              f"{wrong:3} {held:5} {nomat:7} {statistics.median(times):10.0f} "
              f"{sorted(times)[int(0.9 * (len(times) - 1))]:7.0f} {statistics.median(cpu):7.0f} "
              f"{100 * usable_live / n:7.1f}% {wrong_live:5}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
