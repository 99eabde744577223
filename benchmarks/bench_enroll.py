"""Bring your own deck: enrol a Big Top deck the shipped model never saw, then read tables of it.

1. The "Midway" deck (`benchmarks/midway_deck.py`: other colours, fonts and layout than
   `vision.bigtop.faces`) is photographed one component at a time, as a phone would:
   each component alone on a random table, ``--photos`` photos each (at most 2), through
   the independent camera model (`vision.camera_model`, level ``--enrol-level``: tilted,
   rolled to any angle, defocused, motion-blurred, glare, noise, JPEG).
2. ``ringside enroll bigtop`` builds the deck from that folder on one core (timed:
   the enrolment time of the whole deck, 52 cards plus the back and the 5 tokens).
3. Held-out Big Top tables of Midway components (3 to 6 seats, with clutter and
   foreign cards; seeds never used for enrolment) are photographed by the independent
   camera model at each ``--levels`` level and read by the Big Top recogniser with the
   deck as its classifier. Reported per level: components right (fully visible ones,
   identified correctly), wrong components accepted (any detection; the right label placed
   12 to 30 mm off its component, lens distortion near the frame's edge, is counted apart as
   misplaced, as in `bench_vision_camera.py`), unsure, and ms per
   frame (``--compare``: also the shipped model's, on the same photos).

The thresholds of `vision.enroll` were chosen on tables of seeds 893,000,000 on,
899,000,000 on and (the template cue and the fused tests) 902,000,000 on; report figures
from other seeds (901,000,000 on). ``--why`` lists every
component not read right (not detected, unsure, or its nearest label wrong, with the
distances) and every wrong one accepted.

Usage: python benchmarks/bench_enroll.py [--scenes 30] [--levels easy,medium,hard]
       [--photos 2] [--enrol-level medium] [--seed-base 901000000] [--compare] [--keep DIR]
       [--dump FILE.json] [--why]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

# this checkout's code (not an installed copy), and the Midway deck beside this file
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from bench_vision_camera import MISPLACED_MM, _hidden_in_photo  # noqa: E402
from midway_deck import render  # noqa: E402

from vision.bigtop.dataset import match_truth  # noqa: E402
from vision.bigtop.labels import LABELS, NONE  # noqa: E402
from vision.bigtop.pipeline import Recognizer  # noqa: E402
from vision.bigtop.scene import CONTENT_REGION, HARD_SETTINGS, paste, render_top_down, table_texture  # noqa: E402
from vision.camera_model import LEVELS, Photo, photograph  # noqa: E402

#: Enrolment photos use seeds from here on; table scenes from SCENE_SEEDS (apart).
PHOTO_SEEDS = 880_000_000
SCENE_SEEDS = 890_000_000
VISIBLE = 0.02
#: A deck's drawing: label, pixels per mm -> BGR image and alpha mask.
Render = Callable[[str, float], tuple[np.ndarray, np.ndarray]]


def enrolment_photo(label: str, seed: int, level: str, size: tuple[int, int] = (1280, 960),
                    draw: Render = render, reach: float | None = None) -> tuple[Photo, np.ndarray]:
    """A phone photo of one component (a Midway one unless ``draw`` draws another deck) alone on a
    random table, framed ``reach`` mm each way around it, and the component's outline in the photo
    (4 corners, or for a token those of its bounding square)."""
    rng = np.random.default_rng(seed)
    s = 5.0
    if reach is None:
        reach = 32.0 if label.startswith("token") else 75.0
    half = reach + 30.0
    canvas = table_texture(rng, (int(2 * half * s), int(2 * half * s)))
    img, alpha = draw(label, s)
    x, y, angle = half + rng.uniform(-3, 3), half + rng.uniform(-3, 3), float(rng.uniform(0, 360))
    paste(canvas, img, alpha, x, y, angle, s, (0.0, 0.0), shadow=0.3)
    photo = photograph(canvas, s, (0.0, 0.0), (half - reach, half - reach, half + reach, half + reach), level, seed,
                       size, with_hand=False)
    h, w = img.shape[:2]
    corners = cv2.boxPoints(((x, y), (w / s, h / s), -angle))
    return photo, photo.to_image(np.asarray(corners, np.float64))


def write_enrolment(folder: Path, labels: list[str], photos: int, level: str, draw: Render = render,
                    reach: float | None = None, first_seed: int = PHOTO_SEEDS) -> int:
    """The enrolment folder: one sub-folder per label, ``photos`` JPEGs each (`enrolment_photo`, seeds
    from ``first_seed``); returns the photo count."""
    n = 0
    for i, label in enumerate(labels):
        sub = folder / label
        sub.mkdir(parents=True, exist_ok=True)
        for k in range(photos):
            image = enrolment_photo(label, first_seed + 10 * i + k, level, draw=draw, reach=reach)[0].image
            cv2.imwrite(str(sub / f"photo{k + 1}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            n += 1
    return n


def add_enrolment_arguments(ap: argparse.ArgumentParser, component: str, seed_base: int,
                            keep_help: str = "photos already there are used again") -> None:
    """The options every enrolment benchmark takes: camera levels, enrolment photos and their level, where to keep
    them, the held-out tables' first seed."""
    ap.add_argument("--levels", default="easy,medium,hard")
    ap.add_argument("--photos", type=int, default=2, choices=(1, 2), help=f"enrolment photos per {component}")
    ap.add_argument("--enrol-level", default="medium", help="camera level of the enrolment photos")
    ap.add_argument("--keep", type=Path, default=None, help=f"keep the enrolment photos and the deck here ({keep_help})")
    ap.add_argument("--seed-base", type=int, default=seed_base)


def chosen_levels(args: argparse.Namespace) -> list[str] | None:
    """The camera levels ``--levels`` names; None (after one line on stderr) when it or ``--enrol-level`` is unknown."""
    levels = [lv for lv in args.levels.split(",") if lv]
    for lv in levels + [args.enrol_level]:
        if lv not in LEVELS:
            print(f"error: unknown level {lv!r}", file=sys.stderr)
            return None
    return levels


@dataclass(slots=True)
class Tally:
    scenes: int = 0
    no_mat: int = 0
    components: int = 0
    right: int = 0
    wrong: int = 0
    #: the right label accepted MATCH_MM to MISPLACED_MM off its component (lens distortion near the frame's edge):
    #: a position error, counted apart as in `bench_vision_camera.py`; the component itself still counts as not read
    misplaced: int = 0
    unsure: int = 0
    detections: int = 0
    ms: list[float] = field(default_factory=list)
    ms_shipped: list[float] = field(default_factory=list)
    wrongs: list[str] = field(default_factory=list)
    misplacements: list[str] = field(default_factory=list)
    #: components not read right, by cause (``--why``)
    causes: dict[str, int] = field(default_factory=dict)
    why: list[str] = field(default_factory=list)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=30, help="tables per level")
    add_enrolment_arguments(ap, "component", SCENE_SEEDS)
    ap.add_argument("--dump", type=Path, default=None,
                    help="write every detection's nearest label and distances here (JSON), to study the tests")
    ap.add_argument("--why", action="store_true",
                    help="list every component not read right and every wrong one, with its cause")
    ap.add_argument("--compare", action="store_true",
                    help="also time the shipped model on the same photos (ms per frame, same machine)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    from firmware.enroll import enroll_folder
    from vision import NoMatError
    from vision.enroll import load_deck, save_deck

    levels = chosen_levels(args)
    if levels is None:
        return 2
    labels = [x for x in LABELS if x != NONE]
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-enroll-"))
    photos_dir = work / "photos"
    t0 = time.time()
    if photos_dir.is_dir() and args.keep is not None:
        n_photos = sum(1 for _ in photos_dir.glob("*/*.jpg"))  # photos made by an earlier run
    else:
        n_photos = write_enrolment(photos_dir, labels, args.photos, args.enrol_level)
    print(f"{n_photos} enrolment photos of {len(labels)} Midway components ({args.enrol_level} camera, "
          f"1280x960) in {time.time() - t0:.0f}s", file=sys.stderr)
    t0 = time.process_time()
    w0 = time.perf_counter()
    deck = enroll_folder("bigtop", photos_dir, "midway")
    enrol_cpu, enrol_wall = time.process_time() - t0, time.perf_counter() - w0
    save_deck(deck, work / "deck", replace=True)
    deck = load_deck(work / "deck", "bigtop")
    held = deck.card["held_back"]
    rec = Recognizer(classifier=deck)  # type: ignore[arg-type]
    tallies = {lv: Tally() for lv in levels}
    dump: list[dict[str, object]] | None = [] if args.dump is not None else None
    crops_out: list[np.ndarray] = []
    shipped = Recognizer() if args.compare else None
    for k in range(args.scenes):
        seed = args.seed_base + k
        rng = np.random.default_rng(seed)
        td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)), faces=render)
        for lv in levels:
            t = tallies[lv]
            photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, lv, seed, (1280, 960))
            if shipped is not None:
                shipped.reset()
                t1 = time.perf_counter()
                try:
                    shipped.recognize(photo.image)
                    t.ms_shipped.append(1000 * (time.perf_counter() - t1))
                except NoMatError:
                    pass
            rec.reset()
            t1 = time.perf_counter()
            try:
                result = rec.recognize(photo.image)
            except NoMatError:
                t.no_mat += 1
                t.scenes += 1
                continue
            t.ms.append(1000 * (time.perf_counter() - t1))
            t.scenes += 1
            hidden = {id(x): max(x.occluded, _hidden_in_photo(x, photo)) for x in td.truth}
            found: set[int] = set()
            seen: dict[int, list[str]] = {}
            best, d1, d2 = deck.distances(result.crops)
            if dump is not None:
                crops_out.extend(result.crops)
            for d, r, b, a, c in zip(result.detections, result.recognitions, best, d1, d2):
                t.detections += 1
                truth = match_truth(result.rectified.to_table(*d.centre), td.truth)
                if dump is not None:
                    dump.append({"level": lv, "seed": seed, "truth": truth.label if truth else None,
                                 "best": deck.labels[int(b)], "d1": float(a), "d2": float(c),
                                 "hidden": hidden[id(truth)] if truth else None})
                tests = (f"nearest {deck.labels[int(b)]} d1 {a:.2f}/{deck.max_distance:.2f} "
                         f"ratio {a / max(c, 1e-9):.3f}/{deck.max_ratio:.2f}") if deck.templates is None else (
                    f"nearest {deck.labels[int(b)]} fused {a:.2f} ratio {a / max(c, 1e-9):.3f}/{deck.max_ratio:.2f}")
                if truth is not None:
                    seen.setdefault(id(truth), []).append(
                        f"{'accepted' if r.label else 'unsure'} {d.kind.name.lower()} "
                        f"({'right' if deck.labels[int(b)] == truth.label else 'WRONG'} {tests})")
                if r.label is None:
                    t.unsure += 1
                    continue
                if truth is None or truth.label != r.label:
                    x, y = result.rectified.to_table(*d.centre)
                    if any(u.label == r.label and np.hypot(u.x - x, u.y - y) < MISPLACED_MM for u in td.truth):
                        t.misplaced += 1
                        off = min(np.hypot(u.x - x, u.y - y) for u in td.truth if u.label == r.label)
                        t.misplacements.append(f"{lv} seed {seed}: {r.label} placed {off:.0f} mm off its component")
                        continue
                    t.wrong += 1
                    t.wrongs.append(f"{lv} seed {seed}: {r.label} for {truth.label if truth else 'nothing'} ({tests})")
                    continue
                found.add(id(truth))
            for x in td.truth:
                if x.label == NONE or hidden[id(x)] >= VISIBLE:
                    continue
                t.components += 1
                t.right += id(x) in found
                if id(x) not in found:
                    looks = seen.get(id(x), [])
                    cause = ("not detected" if not looks else "unsure, nearest right" if all(
                        "(right" in s and s.startswith("unsure") for s in looks) else "unsure/wrong, nearest wrong")
                    t.causes[cause] = t.causes.get(cause, 0) + 1
                    t.why.append(f"{lv} seed {seed}: {x.label} at ({x.x:.0f}, {x.y:.0f}) hidden "
                                 f"{hidden[id(x)]:.3f}: {'; '.join(looks) or 'not detected'}")
    print(f"Midway deck ({len(labels)} components: 52 cards, back, 5 tokens), {args.photos} photo(s) each, "
          f"{args.enrol_level} camera")
    print(f"enrolment: {enrol_cpu:.1f} s CPU, {enrol_wall:.1f} s wall on one core "
          f"({enrol_cpu * 52 / len(labels):.1f} s CPU scaled to 52 components); "
          f"{deck.card['prototypes']} prototypes; held-back: "
          f"{held['right']}/{held['views']} right, {held['wrong_accepted']} wrong")
    print(f"tables: held-out seeds {args.seed_base}..{args.seed_base + args.scenes - 1}, 3-6 seats, 1280x960, "
          "independent camera model")
    print(f"{'level':<8} {'scenes':>6} {'no mat':>6} {'comps right':>22} {'wrong acc.':>12} {'misplaced':>9} "
          f"{'unsure':>7} {'ms med':>7} {'shipped ms':>10}")
    for lv, t in tallies.items():
        med = statistics.median(t.ms) if t.ms else math.nan
        base = statistics.median(t.ms_shipped) if t.ms_shipped else math.nan
        print(f"{lv:<8} {t.scenes:>6} {t.no_mat:>6} {100 * t.right / max(t.components, 1):>10.2f}% "
              f"({t.right}/{t.components}) {t.wrong:>4}/{t.detections:<6} {t.misplaced:>9} {t.unsure:>6} {med:>7.1f} "
              f"{base:>10.1f}")
    if args.dump is not None and dump is not None:
        args.dump.write_text(json.dumps({"max_distance": deck.max_distance, "max_ratio": deck.max_ratio,
                                         "detections": dump}))
        np.save(args.dump.with_suffix(".crops.npy"), np.asarray(crops_out, np.uint8))
    for line in [w for t in tallies.values() for w in t.wrongs][:20]:
        print("  wrong:", line)
    for line in [w for t in tallies.values() for w in t.misplacements][:20]:
        print("  misplaced:", line)
    if args.why:
        for lv, t in tallies.items():
            print(f"{lv}: not right by cause: " + ", ".join(f"{k} {v}" for k, v in sorted(t.causes.items())))
            for line in t.why:
                print("  ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
