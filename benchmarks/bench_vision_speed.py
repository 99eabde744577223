"""Per-stage speed of the vision pipeline on one core, and the model size.

Frames are 1280x960 synthetic Big Top tables with about 40 components
(6 seats). OpenCV and onnxruntime are limited to one thread. Prints the
median and 90th percentile milliseconds per stage, the batched
classification time per crop, and the model file size.

Usage: python benchmarks/bench_vision_speed.py [--frames 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.classify import DEFAULT_MODEL, Classifier  # noqa: E402
from vision.pipeline import Recognizer  # noqa: E402
from vision.scene import TRAIN_SETTINGS, render_scene  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    clf = Classifier(args.model, threads=1)
    rec = Recognizer(args.model, classifier=clf)
    frames = []
    k = 0
    while len(frames) < args.frames:
        rng = np.random.default_rng(950_000_000 + k)
        k += 1
        scene = render_scene(rng, 6, TRAIN_SETTINGS)
        if 36 <= len(scene.truth) <= 48:
            frames.append(scene.image)
    rec.recognize(frames[0])
    stages: dict[str, list[float]] = {s: [] for s in
                                      ("markers", "calibrate", "rectify", "detect", "crops", "classify", "view", "total")}
    n_det = []
    for f in frames:
        rec.calibrator.cached = None  # measure a fresh calibration every frame
        r = rec.recognize(f)
        for s in stages:
            stages[s].append(getattr(r.times, s))
        n_det.append(len(r.detections))
    print(f"{len(frames)} frames 1280x960, {statistics.mean(n_det):.1f} detections per frame (min {min(n_det)}, "
          f"max {max(n_det)}), one thread")
    for s, v in stages.items():
        q = np.percentile(v, [50, 90])
        print(f"  {s:<10} median {q[0]:6.2f} ms   p90 {q[1]:6.2f} ms")
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
