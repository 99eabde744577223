"""Big Top places under added glare spots: cards read right, held, read wrong; empty places read empty or held.

Renders held-out Big Top tables (3 to 6 seats), photographs each with the independent camera
model (`vision.camera_model`, 1280x960, no hand), then adds glare spots over chosen places
in linear light (peak 0.5 to 1.6, white is 1; the camera model's spot shapes, centred up to
40 px off a place's centre) and runs the recogniser on each photo (a new table each frame).
Every tableau pile and chart space no clutter reaches is judged: a card read right, held
(reported unrecognised), read as another card, or read as empty; an empty place read empty,
held, or read as a card. Wrong labels accepted counts every detection whose accepted label is
not the component it lies on. ``--without`` runs the recogniser with the glare readings named
switched off on the same photos (``paper``: an empty place under glare judged by the paper
around it; ``facefit``: an unsure place crop confirmed by fitting the printed faces).

Usage: python benchmarks/bench_bigtop_glare.py [--tables 20] [--variants 3] [--levels medium,hard]
       [--seed-base 978000000] [--without paper,facefit] [--card-face 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_vision_camera as bench  # noqa: E402

from scorer.bigtop.cards import Suit  # noqa: E402
from vision import NoMatError  # noqa: E402
from vision.bigtop import DEFAULT_MODEL  # noqa: E402
from vision.bigtop import pipeline as bt_pipeline  # noqa: E402
from vision.bigtop import places as bt_places  # noqa: E402
from vision.bigtop.dataset import match_truth  # noqa: E402
from vision.bigtop.faces import printed_faces  # noqa: E402
from vision.bigtop.layout import CARD_FACE_VERSION, CHART, MAT, Pile, Space  # noqa: E402
from vision.bigtop.pipeline import Recognizer  # noqa: E402
from vision.bigtop.scene import CONTENT_REGION, HARD_SETTINGS, TopDown, chart_to_table, render_top_down  # noqa: E402
from vision.bigtop.tableview import zone_of  # noqa: E402
from vision.camera_model import LEVELS, photograph  # noqa: E402
from vision.classify import Classifier, Recognition  # noqa: E402

SEED_BASE = 978_000_000


def add_glare(image: np.ndarray, rng: np.random.Generator, centres: list[np.ndarray]) -> np.ndarray:
    """``image`` with a glare spot added in linear light near each of ``centres`` (photo px)."""
    lin = (image.astype(np.float32) / 255.0) ** 2.2
    h, w = image.shape[:2]
    unit = w / 1280
    for c in centres:
        spot = np.zeros((h, w), np.float32)
        axes = (int(rng.uniform(25, 90) * unit), int(rng.uniform(12, 45) * unit))
        at = (int(c[0] + rng.uniform(-40, 40) * unit), int(c[1] + rng.uniform(-40, 40) * unit))
        cv2.ellipse(spot, at, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(0.2, 0.5)) * axes[1] + 1)
        lin += (float(rng.uniform(0.5, 1.6)) * spot)[:, :, None] * np.array([1.0, 0.98, 0.95], np.float32)
    out: np.ndarray = np.clip(255.0 * np.clip(lin, 0.0, 1.0) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--variants", type=int, default=3, help="glared photos per table and level")
    ap.add_argument("--levels", default="medium,hard")
    ap.add_argument("--seed-base", type=int, default=SEED_BASE)
    ap.add_argument("--without", default="", help="readings switched off: paper, facefit")
    ap.add_argument("--card-face", type=int, default=CARD_FACE_VERSION, choices=(1, 2),
                    help="card face print the tables show (1: one numeral, at the top; 2: again at the foot)")
    args = ap.parse_args()
    levels = [lv for lv in args.levels.split(",") if lv]
    off = {w for w in args.without.split(",") if w}
    if any(lv not in LEVELS for lv in levels) or not off <= {"paper", "facefit"}:
        print("error: unknown level or reading (levels: " + ", ".join(LEVELS) + "; readings: paper, facefit)",
              file=sys.stderr)
        return 2
    if "paper" in off:
        bt_places.PAPER_SHARE = float("inf")
    if "facefit" in off:
        def unconfirmed(crops: object, recs: list[Recognition], *rest: object) -> list[Recognition]:
            return list(recs)
        bt_pipeline.confirmed = unconfirmed
    cv2.setNumThreads(1)
    rec = Recognizer(DEFAULT_MODEL, classifier=Classifier(DEFAULT_MODEL, threads=1))
    tally: Counter[str] = Counter()
    t0 = time.time()
    for k in range(args.tables):
        seed = args.seed_base + k
        rng = np.random.default_rng(seed)
        td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)),
                             faces=printed_faces(args.card_face))
        expected = bench._places(bench._truth_view(td, list(td.truth)))
        poses = bench._chart_poses(td)
        grng = np.random.default_rng(seed + 1)
        for lv in levels:
            photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, lv, seed, (1280, 960),
                               with_hand=False)
            foreign = {bench._place_of_zone(zone_of(t.x, t.y, poses)) for t in td.truth if t.label == "none"}
            foreign |= {bench._place_of_zone(zone_of(x, y, poses)) for x, y in td.clutter}
            foreign |= bench._covered_places(td, photo)
            keys = [key for key in expected if key not in foreign and (key[0] != "space" or key[1] in td.charts)]
            centres = []
            for key in keys:
                x, y = _key_centre(key, td)
                centres.append(photo.to_image(np.array([[x, y]]))[0])
            for _ in range(args.variants):
                pick = grng.choice(len(centres), size=min(len(centres), int(grng.integers(2, 6))), replace=False)
                image = add_glare(photo.image, grng, [centres[i] for i in pick])
                rec.reset()
                try:
                    result = rec.recognize(image)
                except NoMatError:
                    tally["no mat"] += 1
                    continue
                tally["photos"] += 1
                for d, r in zip(result.detections, result.recognitions):
                    if r.label is None:
                        continue
                    t = match_truth(result.rectified.to_table(*d.centre), td.truth)
                    if t is None or t.label != r.label:
                        x, y = result.rectified.to_table(*d.centre)
                        if not any(u.label == r.label and np.hypot(u.x - x, u.y - y) < bench.MISPLACED_MM
                                   for u in td.truth):
                            tally["wrong label accepted"] += 1
                got = bench._places(result.view)
                held = {bench._place_of_zone(u.zone) for u in result.view.unrecognised}
                seen = {c.seat for c in result.view.charts}
                for key in keys:
                    if key[0] == "space" and key[1] not in seen:
                        tally["place on a chart not found"] += 1
                        continue
                    want, have = expected.get(key), got.get(key)
                    if key[0] == "poster":
                        want, have = want or None, have or None
                    kind = "card" if want is not None else "empty"
                    if have is not None and have != want:
                        tally[f"{kind}: read as another card" if want is not None else "empty: read as a card"] += 1
                    elif key in held:
                        tally[f"{kind}: held"] += 1
                    elif have == want:
                        tally[f"{kind}: right"] += 1
                    else:
                        tally["card: read as empty"] += 1
        print(f"  {k + 1} tables, {time.time() - t0:.0f}s", file=sys.stderr)
    print(f"glare added over places; camera model 1280x960 {','.join(levels)}, seeds {args.seed_base}.."
          f"{args.seed_base + args.tables - 1}, {args.variants} glared photos per table and level"
          + (f", without {','.join(sorted(off))}" if off else ""))
    for name in ("photos", "no mat", "card: right", "card: held", "card: read as another card", "card: read as empty",
                 "empty: right", "empty: held", "empty: read as a card", "place on a chart not found",
                 "wrong label accepted"):
        print(f"  {name:<28} {tally[name]}")
    print(f"wall time {time.time() - t0:.0f}s")
    return 0


def _key_centre(key: tuple[object, ...], td: TopDown) -> tuple[float, float]:
    """The table mm centre of a benchmark place key."""
    if key[0] == "space":
        seat, space = key[1], key[2]
        assert isinstance(seat, int) and isinstance(space, Space)
        x, y = chart_to_table(td.charts[seat], *CHART.space(space).centre)
        return float(x), float(y)
    suit = key[1]
    assert isinstance(suit, Suit)
    cx, cy = MAT.slot(suit, Pile(str(key[0]))).centre
    return float(cx), float(cy)


if __name__ == "__main__":
    sys.exit(main())
