"""Per-stage speed of the vision pipeline on one core, and the model size.

Frames are synthetic Big Top tables (1280x960 unless ``--size``, e.g. the Pi camera's 2304x1296) with about 40 components
(6 seats, default `SceneSettings`). OpenCV, onnxruntime and numpy's BLAS are limited to one
thread (``OMP_NUM_THREADS`` is 1 unless set: a BLAS free to use every core spends more processor time
than the products it computes, e.g. about 8 ms instead of 0.1 for a board's code scores on a shared
2-core machine). Prints the median and 90th percentile milliseconds per stage, the
batched classification time per crop, and the model file size.

Three situations are measured:

* live (the criterion): what the referee sees while it watches one table.
  Each table is first recognised once (a full-frame marker search that
  primes the caches), then ``--successive`` further frames of the same table
  (the frame with fresh sensor noise, as the next exposure of a still camera)
  are timed with the calibration cache warm: the markers are searched only
  around where they were last seen (`vision.calibrate.MarkerTracker`). The
  full-frame search the tracker repeats every ``marker_full_search_every``
  frames is included in the amortised mean printed below the table.
  While the frame shows the same within noise, the last frame's markers, calibration and
  components and the readings of its crops are given back (`vision.recall`) once
  `vision.recall.CONFIRMATIONS` frames in a row found the same afresh: the frames that
  confirm a table (after the first) are timed apart, then ``--successive`` frames of the
  referee watching a still table.
* live, a hand over the table: the same table once confirmed, then ``--successive`` frames
  with a hand (a skin-coloured blob about a fifth of
  the frame across) somewhere else over the table in every frame: markers searched around
  where they were, components searched afresh near the hand only, crops that changed read
  again, and the places under the hand tested again.
* cold: every frame a new table, caches cleared: a full-frame marker search
  and a fresh calibration every frame (the first frame the referee sees of a table). The process's
  very first frame, read after `Recognizer.prepare` as the referee does at start, is printed apart
  (one frame: noisy).

Each stage is reported as wall-clock time and as processor time (``time.process_time``): on a
machine shared with other work the processor time is the fairer figure.

Usage: python benchmarks/bench_vision_speed.py [--frames 30] [--successive 3] [--size 1280x960]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy is imported: its BLAS on one thread

import cv2
import numpy as np

from vision import NoMatError
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.pipeline import Recognizer, StageTimes
from vision.bigtop.scene import SceneSettings, render_scene
from vision.classify import Classifier
from vision.recall import CONFIRMATIONS

STAGES = ("markers", "calibrate", "rectify", "detect", "crops", "classify", "view", "places", "total")


def _next_exposure(frame: np.ndarray, rng: np.random.Generator, sigma: float = 2.0) -> np.ndarray:
    """The same table in the next frame of a still camera: fresh sensor noise."""
    noisy = frame.astype(np.float32) + rng.normal(0.0, sigma, frame.shape).astype(np.float32)
    out: np.ndarray = np.clip(np.rint(noisy), 0, 255).astype(np.uint8)
    return out


def _with_hand(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``frame`` with a hand-sized skin-coloured blob at a random place in its middle part."""
    h, w = frame.shape[:2]
    out = frame.copy()
    centre = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
    axes = (int(0.1 * w), int(0.07 * w))
    cv2.ellipse(out, centre, axes, float(rng.uniform(0, 180)), 0, 360, (120, 150, 205), -1, cv2.LINE_AA)
    return out


def _report(title: str, times: list[StageTimes], cpu: list[StageTimes]) -> None:
    print(title)
    for s in STAGES:
        q = np.percentile([getattr(t, s, 0.0) for t in times], [50, 90])
        c = np.percentile([getattr(t, s, 0.0) for t in cpu], [50, 90])
        print(f"  {s:<10} median {q[0]:6.2f} ms   p90 {q[1]:6.2f} ms   processor: median {c[0]:6.2f} ms   "
              f"p90 {c[1]:6.2f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=30, help="tables (frames of different tables)")
    ap.add_argument("--successive", type=int, default=3, help="timed successive frames per table (warm cache)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--size", default="1280x960", help="frame size WxH")
    args = ap.parse_args()
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        if width < 320 or height < 240:
            raise ValueError
    except ValueError:
        print(f"error: --size must be WxH of at least 320x240, not {args.size!r}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    clf = Classifier(args.model, threads=1)
    rec = Recognizer(args.model, classifier=clf)
    frames: list[np.ndarray] = []
    k = 0
    while len(frames) < args.frames:
        rng = np.random.default_rng(950_000_000 + k)
        k += 1
        scene = render_scene(rng, 6, SceneSettings(image_size=(width, height)))
        if 36 <= len(scene.truth) <= 48:
            frames.append(scene.image)
    noise = np.random.default_rng(1)
    settle = CONFIRMATIONS - 1
    stream = [[_next_exposure(f, noise) for _ in range(settle + args.successive)] for f in frames]
    hands = [nexts[:settle] + [_with_hand(g, noise) for g in nexts[settle:]] for nexts in stream]
    started = time.process_time()
    rec.prepare()  # what the referee does at start (`Recognizer.prepare`)
    prepared_ms = (time.process_time() - started) * 1000
    first = rec.recognize(frames[0])
    cold: list[StageTimes] = []
    cold_cpu: list[StageTimes] = []
    warm: list[StageTimes] = []
    warm_cpu: list[StageTimes] = []
    settling: list[StageTimes] = []
    settling_cpu: list[StageTimes] = []
    n_det = []
    for f in frames:
        rec.reset()  # a new table: full-frame marker search, fresh calibration
        r = rec.recognize(f)
        cold.append(r.times)
        cold_cpu.append(r.cpu_times or r.times)
        n_det.append(len(r.detections))
    full_before = rec.tracker.full_searches
    for f, nexts in zip(frames, stream):
        rec.reset()
        rec.recognize(f)  # the first frame of this table primes the caches (timed above as cold)
        for i, g in enumerate(nexts):
            r = rec.recognize(g)
            (warm if i >= settle else settling).append(r.times)
            (warm_cpu if i >= settle else settling_cpu).append(r.cpu_times or r.times)
            n_det.append(len(r.detections))
    full_in_warm = rec.tracker.full_searches - full_before - len(frames)
    hand: list[StageTimes] = []
    hand_cpu: list[StageTimes] = []
    for f, nexts in zip(frames, hands):
        rec.reset()
        rec.recognize(f)
        for i, g in enumerate(nexts):
            try:
                r = rec.recognize(g)
            except NoMatError:  # the hand hid the mat's markers
                continue
            if i < settle:
                continue
            hand.append(r.times)
            hand_cpu.append(r.cpu_times or r.times)
    print(f"{len(frames)} tables {width}x{height}, {statistics.mean(n_det):.1f} detections per frame (min {min(n_det)}, "
          f"max {max(n_det)}), one thread")
    _report(f"live, the frames that confirm a still table: {len(settling)} frames, each searched and read afresh",
            settling, settling_cpu)
    _report(f"live: {len(warm)} successive frames of the same tables once confirmed, calibration cache warm "
            f"({full_in_warm} marker searches fell back to the full frame)", warm, warm_cpu)
    every = rec.config.marker_full_search_every
    w_total = statistics.mean(t.total for t in warm)
    c_total = statistics.mean(t.total for t in cold)
    amortised = ((every - 1) * w_total + c_total) / every
    print(f"  mean {w_total:.2f} ms; with the full-frame search repeated every {every} frames: "
          f"{amortised:.2f} ms per frame on average")
    _report(f"live, a hand over the table: {len(hand)} successive frames, the hand elsewhere in each", hand, hand_cpu)
    _report(f"cold: {len(cold)} frames, each a new table (full-frame marker search, fresh calibration)", cold,
            cold_cpu)
    print(f"  the first frame after start, the recogniser prepared ({prepared_ms:.1f} ms of processor time): "
          f"{first.times.total:.2f} ms, processor {(first.cpu_times or first.times).total:.2f} ms")
    r = rec.recognize(frames[0])
    crops = r.crops
    for n in (1, 40, 256):
        batch = np.resize(crops, (n, *crops.shape[1:]))
        clf.probabilities(batch)
        reps = max(3, 400 // n)
        t = time.perf_counter()
        for _ in range(reps):
            clf.probabilities(batch)
        per = (time.perf_counter() - t) / reps / n * 1000
        print(f"  classify batch of {n:>3}: {per:.3f} ms per crop")
    size = args.model.stat().st_size
    print(f"model {args.model.name}: {size} bytes = {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
