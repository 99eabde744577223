"""Circus Flohcati recognition through the independent camera model (`vision.camera_model`).

Scenes are positions of random games at the mat (`firmware.flohcati.tablesim`,
seeds 970,000,000 + k, 2 to 4 seats): every still layout of a game is a
candidate and one is drawn per scene. Each is drawn from straight above
(`vision.flohcati.scene.render`), photographed by the camera model at every
level, and read by a fresh recogniser (full search, fresh calibration).
Printed per level:

* fully correct: every card read, in its zone, the row in order, nothing unrecognised;
* usable by the referee: every card right except cards whose code the
  camera model's hand covers (the live referee skips frames with a hand over
  the table as motion), and nothing flagged unrecognised that the hand does
  not cover (a needless question);
* mat not found; codes right (cards read right over cards in the scene);
  cards under the hand (scenes with one); held (a visible card reported
  unrecognised: the referee asks, which is safe but makes the scene unusable);
  needless questions (reported unrecognised where no unread card lies); wrong
  cards accepted (a card read that is not in the scene, or in another zone): the goal is 0;
* ms per frame on one thread (median of the wall clock, and of the process's CPU time, which a loaded
  machine inflates less), cold recogniser.

Usage: python benchmarks/bench_flohcati_vision.py [--scenes 60] [--levels easy,medium,hard]
       [--size 1280x960] [--seed-base 970000000] [--why]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from firmware.flohcati.tablesim import SimulatedTable
from scorer.flohcati.cards import DeckCard, card_name
from vision import NoMatError
from vision.camera_model import photograph
from vision.flohcati.layout import CODE_CENTRE, CODE_SIZE, Area, zone_of
from vision.flohcati.pipeline import Recognizer
from vision.flohcati.scene import REGION, TableLayout, placements, render

PX_PER_MM = 3.0


@dataclass
class Tally:
    scenes: int = 0
    correct: int = 0
    usable: int = 0
    no_mat: int = 0
    codes: int = 0
    codes_right: int = 0
    with_hand_over_card: int = 0
    wrong: int = 0
    needless: int = 0
    held: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


def scene_layouts(count: int, seed_base: int) -> list[tuple[TableLayout, int, int]]:
    """``count`` (layout, seats, seed) drawn from random games."""
    out = []
    for k in range(count):
        seed = seed_base + k
        rng = random.Random(seed)
        seats = rng.choice((2, 3, 4))
        sim = SimulatedTable([f"P{i}" for i in range(seats)], seed=seed)
        layouts = [s.layout for s in sim.steps() if s.layout is not None and not s.moving]
        out.append((layouts[rng.randrange(len(layouts))], seats, seed))
    return out


def _code_quad(x: float, y: float, angle: float) -> np.ndarray:  # type: ignore[type-arg]
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    h = CODE_SIZE / 2
    pts = []
    for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h)):
        u, v = CODE_CENTRE[0] + dx, CODE_CENTRE[1] + dy
        pts.append((x + ca * u - sa * v, y + sa * u + ca * v))
    return np.array(pts, np.float64)


def _covered(photo: Any, quad_mm: np.ndarray) -> bool:  # type: ignore[type-arg]
    pts = photo.to_image(quad_mm).astype(np.int32)
    mask = np.zeros_like(photo.hand_mask)
    cv2.fillConvexPoly(mask, pts, 255)
    return bool(np.any((mask > 0) & (photo.hand_mask > 0)))


def judge(layout: TableLayout, seats: int, seed: int, level: str, size: tuple[int, int], tally: Tally) -> list[str]:
    """Read one scene into ``tally``; the reasons it is not usable (none when it is)."""
    items = placements(layout, seed)
    canvas, origin = render(items, PX_PER_MM)
    photo = photograph(canvas, PX_PER_MM, origin, REGION, level, seed, size=size)
    truth: list[tuple[DeckCard, Area, int | None, bool, float]] = []
    for p in items:
        if p.card is None:
            continue
        quad = _code_quad(p.x, p.y, p.angle)
        cx, cy = quad.mean(0)
        area, seat = zone_of(float(cx), float(cy))
        truth.append((p.card, area, seat, _covered(photo, quad), float(cx)))
    tally.scenes += 1
    recognizer = Recognizer()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        result = recognizer.recognize(photo.image)
    except NoMatError:
        tally.no_mat += 1
        return ["mat not found"]
    finally:
        tally.ms.append(1000 * (time.perf_counter() - t0))
        tally.cpu_ms.append(1000 * (time.process_time() - c0))
    view = result.view
    hidden_any = any(t[3] for t in truth)
    tally.with_hand_over_card += hidden_any
    tally.codes += len(truth)
    # each card read is matched with the nearest card of the scene of the same kind in the same zone
    unmatched = list(range(len(truth)))
    wrong = 0
    wrong_cards = []
    for c in view.cards:
        same = [i for i in unmatched if (truth[i][0], truth[i][1], truth[i][2]) == (c.card, c.area, c.seat)
                and abs(truth[i][4] - c.x) < 15.0]
        if not same:
            wrong += 1
            wrong_cards.append(c)
            continue
        unmatched.remove(min(same, key=lambda i: abs(truth[i][4] - c.x)))
    tally.wrong += wrong
    why = [f"wrong: {card_name(c.card)} read in the {c.area.value} at x={c.x:.0f}" for c in wrong_cards]
    tally.codes_right += len(truth) - len(unmatched)
    missing_visible = [i for i in unmatched if not truth[i][3]]
    for i in missing_visible:
        held = any(abs(truth[i][4] - x) < 15.0 for x, _, _ in view.unreadable)
        tally.held += held
        why.append(f"{'held' if held else 'missed'}: {card_name(truth[i][0])} in the {truth[i][1].value}"
                   f"{'' if truth[i][2] is None else f' {truth[i][2] + 1}'} at x={truth[i][4]:.0f}")
    row_truth = [t[0] for t in sorted((t for t in truth if t[1] is Area.ROW), key=lambda t: t[4])]
    row_got = [c.card for c in view.in_area(Area.ROW)]
    row_ok = row_got == [c for c in row_truth if c in row_got]
    # a flag is needless when no card of the scene that was left unread lies there
    needless_at = [(x, y) for x, y, _ in view.unreadable if not any(abs(truth[i][4] - x) < 15.0 for i in unmatched)]
    needless = len(needless_at)
    tally.needless += needless
    why += [f"needless question at ({x:.0f}, {y:.0f})" for x, y in needless_at]
    if not row_ok:
        why.append("row out of order: " + " ".join(card_name(c) for c in row_got))
    exact = not wrong and not unmatched and row_ok and not view.unreadable
    tally.correct += exact
    tally.usable += not wrong and not missing_visible and row_ok and needless == 0
    _ = seats
    return why


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--seed-base", type=int, default=970_000_000)
    parser.add_argument("--why", action="store_true", help="print why each scene that is not usable is not")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    w, h = (int(v) for v in args.size.lower().split("x"))
    layouts = scene_layouts(args.scenes, args.seed_base)
    print(f"Circus Flohcati recognition, {args.scenes} scenes per level, {w}x{h}, camera model levels {args.levels}")
    print(f"{'level':<8} {'correct':>8} {'usable':>7} {'no mat':>7} {'codes right':>12} {'hand on card':>13} "
          f"{'held':>5} {'needless ?':>10} {'wrong':>6} {'ms/frame':>9} {'cpu ms':>7}")
    for level in args.levels.split(","):
        tally = Tally()
        for layout, seats, seed in layouts:
            why = judge(layout, seats, seed, level, (w, h), tally)
            if args.why and why:
                print(f"  {level} seed {seed}: " + "; ".join(why), flush=True)
        n = max(1, tally.scenes)
        print(f"{level:<8} {100 * tally.correct / n:>7.0f}% {100 * tally.usable / n:>6.0f}% {tally.no_mat:>7} "
              f"{100 * tally.codes_right / max(1, tally.codes):>11.1f}% {tally.with_hand_over_card:>13} "
              f"{tally.held:>5} {tally.needless:>10} {tally.wrong:>6} {statistics.median(tally.ms):>9.0f} "
              f"{statistics.median(tally.cpu_ms):>7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
