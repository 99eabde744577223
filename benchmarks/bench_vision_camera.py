"""Big Top recognition through the independent camera model (`vision.camera_model`).

Renders held-out Big Top tables (3 to 6 seats, seeds 970,000,000 + k, never used in
training) from straight above (`vision.bigtop.scene.render_top_down`, no camera), photographs
each with the independent camera model at every level and frame size, runs the
pipeline (a new table each frame: full marker search, fresh calibration) and prints
per level and size:

* fully correct: mat and every chart found, every place right, every fully visible
  component identified correctly and no wrong label accepted;
* usable by the referee: mat and every chart found and every place right (each suit's
  Poster, top light and top dark card; each chart's called cards). A place whose top
  card the hand covers, or where a foreign object (a coin, a stranger's card) lies, may
  instead be reported unrecognised (the referee holds);
* mat not found; components right (fully visible ones, identified correctly);
* wrong labels accepted above the threshold (any detection; a right label placed 12 to 30 mm
  from its component, as lens distortion does near the frame's edge, is counted apart), and held places
  (reported unrecognised though fully visible: the referee asks needlessly). A place counts
  as not visible when a tenth of it is under the hand or outside the photo, or when a clutter
  object (a mug, a phone, a pen, a coin, a foreign card) reaches over it;
* places not read right, by kind of place and cause (missed, unreadable, unsure, not a
  component, wrong, phantom) and the wrong labels accepted;
* ms per frame on one thread (median and 90th percentile), wall-clock and processor time (``time.process_time``:
  on a machine shared with other work the fairer figure). The recogniser is prepared first, as the referee prepares
  it at start (`Recognizer.prepare`), so no table's first frame builds what every frame uses.

With ``--why``, each scene not usable is listed with its reasons; a place whose card was not read says how much of
what tells that card's numeral glare clipped in the crop read there (`vision.bigtop.facefit.numeral_clipped`: at
100% no reading of that photo can name it).

Each photo is judged twice: as the ``first`` frame of a new table (caches empty: full
marker search, fresh calibration) and ``live``: after a frame of the same table taken
just before the hand (if any) reached in, as the referee sees it while it watches.

Usage: python benchmarks/bench_vision_camera.py [--scenes 100] [--levels easy,medium,hard,extreme]
       [--sizes 1280x960,2304x1296] [--seed-base 970000000] [--save-failures DIR] [--why] [--card-face 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from scorer.bigtop.cards import Suit
from vision import NoMatError
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.dataset import MATCH_MM, match_truth
from vision.bigtop.facefit import numeral_clipped
from vision.bigtop.faces import printed_faces
from vision.bigtop.labels import NONE, Kind
from vision.bigtop.layout import CARD, CARD_FACE_VERSION, CHART, MAT, Pile, Space
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.scene import (
    CONTENT_REGION,
    HARD_SETTINGS,
    TopDown,
    TruthItem,
    chart_to_table,
    render_top_down,
)
from vision.bigtop.tableview import Area, TableView, Zone, build_table_view, zone_of
from vision.calibrate import ChartPose
from vision.camera_model import LEVELS, Photo, photograph
from vision.classify import Classifier, Recognition, Verdict

SEED_BASE = 970_000_000
#: an accepted label more than MATCH_MM but less than this from the component that bears it is
#: counted apart (a position error, not a wrong label): every card is unique on the table, and
#: tokens of one label lie at least 42 mm apart
MISPLACED_MM = 30.0
#: a component counts as fully visible below this hidden share
VISIBLE = 0.02


@dataclass(slots=True)
class Tally:
    scenes: int = 0
    correct: int = 0
    usable: int = 0
    no_mat: int = 0
    chart_missed: int = 0
    components: int = 0
    components_right: int = 0
    wrong_accepted: int = 0
    detections: int = 0
    held_visible: int = 0
    ms: list[float] = field(default_factory=list)
    #: the same frames' processor time (ms)
    cpu_ms: list[float] = field(default_factory=list)
    #: failed places by (kind of place, cause): see `_cause`
    causes: Counter[tuple[str, str]] = field(default_factory=Counter)


def _chart_poses(td: TopDown) -> dict[int, ChartPose]:
    out: dict[int, ChartPose] = {}
    for seat, pose in td.charts.items():
        o = chart_to_table(pose, 0.0, 0.0)
        ex = chart_to_table(pose, 1.0, 0.0)
        ey = chart_to_table(pose, 0.0, 1.0)
        m = np.array([[ex[0] - o[0], ey[0] - o[0], o[0]], [ex[1] - o[1], ey[1] - o[1], o[1]], [0, 0, 1]])
        out[seat] = ChartPose(seat, m, np.linalg.inv(m), 2)
    return out


def _hidden_in_photo(t: TruthItem, photo: Photo) -> float:
    """Share of a component's outline covered by the hand or outside the photo."""
    h, w = photo.hand_mask.shape
    if t.label.startswith("token"):
        r = 15.0
        pts = np.array([(t.x + r * np.cos(a), t.y + r * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24)])
    else:
        pts = np.asarray(cv2.boxPoints(((t.x, t.y), (CARD.width, CARD.height), -t.angle)), np.float64)
    img = photo.to_image(pts)
    mask = np.zeros((h + 200, w + 200), np.uint8)
    cv2.fillPoly(mask, [np.round(img + 100).astype(np.int32)], 1)
    total = int(mask.sum())
    if total == 0:
        return 1.0
    inside = mask[100:100 + h, 100:100 + w]
    visible = int(np.count_nonzero(inside & (photo.hand_mask < 128)))
    return 1.0 - visible / total


#: a place counts as covered (its state unknowable) when this share of it is under the hand or outside the photo
PLACE_COVERED = 0.1


def _polygon_hidden(pts_mm: np.ndarray, photo: Photo) -> float:
    """Share of a table-mm polygon covered by the hand or outside the photo."""
    h, w = photo.hand_mask.shape
    img = photo.to_image(pts_mm)
    mask = np.zeros((h + 200, w + 200), np.uint8)
    cv2.fillPoly(mask, [np.round(img + 100).astype(np.int32)], 1)
    total = int(mask.sum())
    if total == 0:
        return 1.0
    inside = mask[100:100 + h, 100:100 + w]
    return 1.0 - int(np.count_nonzero(inside & (photo.hand_mask < 128))) / total


def _covered_places(td: TopDown, photo: Photo) -> set[tuple[object, ...]]:
    """Places whose state cannot be seen: partly under the hand or outside the photo, or within the
    reach of a clutter object (a mug, a phone, a pen, a coin, a foreign card may lie over them)."""
    out: set[tuple[object, ...]] = set()
    rects: list[tuple[tuple[object, ...], np.ndarray]] = []
    for suit in Suit:
        for pile in Pile:
            r = MAT.slot(suit, pile)
            rects.append(((pile.value, suit), np.array([[r.x, r.y], [r.x + r.w, r.y], [r.x + r.w, r.y + r.h],
                                                         [r.x, r.y + r.h]])))
    for seat, pose in td.charts.items():
        for sp in Space:
            r = CHART.space(sp)
            pts = [chart_to_table(pose, x, y) for x, y in ((r.x, r.y), (r.x + r.w, r.y), (r.x + r.w, r.y + r.h),
                                                           (r.x, r.y + r.h))]
            rects.append((("space", seat, sp), np.array(pts)))
    reach = td.clutter_reach or (0.0,) * len(td.clutter)
    for key, poly in rects:
        if _polygon_hidden(poly, photo) >= PLACE_COVERED:
            out.add(key)
            continue
        for (cx, cy), rr in zip(td.clutter, reach):
            d = cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(cx), float(cy)), True)
            if d >= -rr:
                out.add(key)
                break
    return out


def _truth_view(td: TopDown, truth: list[TruthItem]) -> TableView:
    items = [(Kind.TOKEN if t.label.startswith("token") else Kind.CARD, (t.x, t.y), t.angle,
              Recognition(Verdict.IDENTIFIED, t.label, 1.0)) for t in truth if t.label != NONE]
    return build_table_view(items, _chart_poses(td), 4, 0.0)


def _places(view: TableView) -> dict[tuple[object, ...], object]:
    out: dict[tuple[object, ...], object] = {}
    for st in view.tableau:
        out[("poster", st.suit)] = st.poster
        out[("light", st.suit)] = st.top_light
        out[("dark", st.suit)] = st.top_dark
    for c in view.charts:
        for sp in Space:
            out[("space", c.seat, sp)] = c.card_on(sp)
    return out


def _place_of_zone(zone: Zone) -> tuple[object, ...] | None:
    area = zone.area
    if area is Area.TABLEAU and zone.pile is not None:
        return (zone.pile.value, zone.suit)
    if area is Area.CHART_SPACE:
        return ("space", zone.seat, zone.space)
    return None


def _place_kind(key: tuple[object, ...]) -> str:
    return "chart space" if key[0] == "space" else f"{key[0]} pile"


def _cause(key: tuple[object, ...], want: object, have: object, held: bool,
           in_zone: list[Recognition]) -> str:
    """Why a place was not read right: ``wrong`` (another card read), ``unsure`` (a detection there
    below the threshold), ``not a component`` (a detection there read as none), ``unreadable`` (held
    by the place memory, nothing detected), ``missed`` (nothing detected, read as empty),
    ``phantom`` (a card read on an empty place)."""
    if key[0] == "poster":  # the Poster place reads as a flag: not seen is False
        want, have = want or None, have or None
    if have is not None and have != want:
        return "phantom" if want is None else "wrong"
    verdicts = {r.verdict for r in in_zone}
    if Verdict.UNSURE in verdicts:
        return "unsure"
    if Verdict.NOT_A_COMPONENT in verdicts:
        return "not a component"
    return "unreadable" if held else "missed"


def _numeral_note(key: tuple[object, ...], want: object, crops: np.ndarray, j: int | None,
                  version: int = CARD_FACE_VERSION) -> str:
    """For `run_one`'s reasons: how much of the wanted card's numeral glare clipped in the crop read on its place
    (`vision.bigtop.facefit.numeral_clipped`, card face print ``version``: of two numerals, the less clipped), or
    nothing when no card is wanted there or no crop was read."""
    if want is None or j is None:
        return ""
    if key[0] == "poster":
        suit = key[1]
        assert isinstance(suit, Suit)
        label = f"{suit.label}-P"
    else:
        label = want.notation() if hasattr(want, "notation") else str(want)
    return f", numeral clipped {100 * numeral_clipped(crops[j], label, version):.0f}%"


def run_one(rec: Recognizer, td: TopDown, photo: Photo, tally: Tally, why: list[str] | None = None,
            before: Photo | None = None, version: int = CARD_FACE_VERSION) -> bool:
    """Recognise one photo (its cards as card face print ``version`` draws them) and add it to the tally; True when
    the scene was fully correct.

    ``before``: a frame of the same table shown first (live: the recogniser's caches warm,
    the frame timed is the next one); without it the photo is the first frame of a new table.
    ``why`` collects a line per reason the scene was not usable.
    """
    why = [] if why is None else why
    hidden = {id(t): max(t.occluded, _hidden_in_photo(t, photo)) for t in td.truth}
    rec.reset()
    if before is not None:
        try:
            rec.recognize(before.image)
        except NoMatError:
            pass
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        result = rec.recognize(photo.image)
    except NoMatError:
        tally.scenes += 1
        tally.no_mat += 1
        why.append("mat not found")
        for t in td.truth:
            if t.label != NONE and hidden[id(t)] < VISIBLE:
                tally.components += 1
        return False
    tally.ms.append(1000 * (time.perf_counter() - t0))
    tally.cpu_ms.append(1000 * (time.process_time() - c0))
    tally.scenes += 1
    view = result.view
    wrong = False
    found: set[int] = set()
    for d, r in zip(result.detections, result.recognitions):
        tally.detections += 1
        t = match_truth(result.rectified.to_table(*d.centre), td.truth)
        if r.label is None:
            continue
        if t is None or t.label != r.label:
            x, y = result.rectified.to_table(*d.centre)
            if any(u.label == r.label and np.hypot(u.x - x, u.y - y) < MISPLACED_MM for u in td.truth):
                # the right component, placed off by lens distortion near the frame's edge
                tally.causes[("detection", f"right label placed {MATCH_MM:g}-{MISPLACED_MM:g} mm off")] += 1
                continue
            tally.wrong_accepted += 1
            tally.causes[("detection", "wrong label accepted")] += 1
            wrong = True
            why.append(f"wrong label {r.label} for {t.label if t else 'nothing'}")
            continue
        found.add(id(t))
    comps_ok = True
    for t in td.truth:
        if t.label == NONE or hidden[id(t)] >= VISIBLE:
            continue
        tally.components += 1
        if id(t) in found:
            tally.components_right += 1
        else:
            comps_ok = False
    seen_charts = {c.seat for c in view.charts}
    charts_ok = set(td.charts) <= seen_charts
    tally.chart_missed += not charts_ok
    if not charts_ok:
        why.append(f"charts {sorted(td.charts)} seen {sorted(c.seat for c in view.charts)}")
    # places whose truth cannot be seen (the hand over the top card): held is right too
    truth_visible = [t for t in td.truth if hidden[id(t)] < VISIBLE]
    expected = _places(_truth_view(td, list(td.truth)))
    expected_visible = _places(_truth_view(td, truth_visible))
    got = _places(view)
    held = {_place_of_zone(u.zone) for u in view.unrecognised}
    # a foreign object lying on a place: reporting it unrecognised is right
    poses = _chart_poses(td)
    foreign = {_place_of_zone(zone_of(t.x, t.y, poses)) for t in td.truth if t.label == NONE}
    foreign |= {_place_of_zone(zone_of(x, y, poses)) for x, y in td.clutter}
    foreign |= _covered_places(td, photo)
    in_zone: dict[tuple[object, ...] | None, list[Recognition]] = {}
    #: the last crop read on each place (a place's own crop comes after the detections')
    crop_of: dict[tuple[object, ...] | None, int] = {}
    for j, (d, r) in enumerate(zip(result.detections, result.recognitions)):
        x, y = result.rectified.to_table(*d.centre)
        place = _place_of_zone(zone_of(x, y, result.charts))
        in_zone.setdefault(place, []).append(r)
        crop_of[place] = j
    places_ok = True
    for key, want in expected.items():
        if key[0] == "space" and key[1] not in td.charts:
            continue
        have = got.get(key)
        if key[0] == "poster":  # the Poster place reads as a flag: not seen is False, as empty
            want, have = want or None, have or None
        unknowable = (expected_visible.get(key) or None) != want or key in foreign
        if have == want and key not in held:
            continue
        if key in held and (have is None or have == want):
            if unknowable:
                continue
            tally.held_visible += 1
        places_ok = False
        if key[0] == "space" and key[1] not in seen_charts:
            cause = "chart not found"
        else:
            cause = _cause(key, want, have, key in held, in_zone.get(key, []))
        tally.causes[(_place_kind(key), cause)] += 1
        why.append(f"place {key}: want {want}, have {have}, held {key in held}, hidden {unknowable}"
                   + _numeral_note(key, want, result.crops, crop_of.get(key), version))
    usable = charts_ok and places_ok and not wrong
    tally.usable += usable
    ok = usable and comps_ok
    tally.correct += ok
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=100, help="scenes per level and size")
    ap.add_argument("--levels", default="easy,medium,hard,extreme")
    ap.add_argument("--sizes", default="1280x960,2304x1296")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--seed-base", type=int, default=SEED_BASE, help="held out from training: >= 900,000,000")
    ap.add_argument("--save-failures", type=Path, default=None, help="folder for failing photos")
    ap.add_argument("--why", action="store_true", help="print why each scene was not usable (first and live frames) and the raw counts")
    ap.add_argument("--card-face", type=int, default=CARD_FACE_VERSION, choices=(1, 2),
                    help="card face print the tables show (1: one numeral, at the top; 2: again at the foot)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    levels = [lv for lv in args.levels.split(",") if lv]
    for lv in levels:
        if lv not in LEVELS:
            print(f"error: unknown level {lv!r} (choose from {', '.join(LEVELS)})", file=sys.stderr)
            return 2
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",") if s]
    rec = Recognizer(args.model, classifier=Classifier(args.model, threads=1))
    rec.prepare()
    modes = ("first", "live")
    tallies = {(lv, sz, mode): Tally() for lv in levels for sz in sizes for mode in modes}
    t_start = time.time()
    for k in range(args.scenes):
        seed = args.seed_base + k
        rng = np.random.default_rng(seed)
        # the camera model adds its own hand: none on the clean table
        td = render_top_down(rng, int(rng.integers(3, 7)), replace(HARD_SETTINGS, hands=(0, 0)),
                             faces=printed_faces(args.card_face))
        for lv in levels:
            for sz in sizes:
                photo = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, lv, seed, (sz[0], sz[1]))
                why: list[str] = []
                ok = run_one(rec, td, photo, tallies[(lv, sz, "first")], why, version=args.card_face)
                if args.why and why:
                    print(f"  {lv} {sz[0]}x{sz[1]} seed {seed}: " + "; ".join(why), file=sys.stderr)
                before = photograph(td.canvas, td.px_per_mm, td.origin, CONTENT_REGION, lv, seed, (sz[0], sz[1]),
                                    with_hand=False) if photo.hand_mask.any() else photo
                why_live: list[str] = []
                run_one(rec, td, photo, tallies[(lv, sz, "live")], why_live, before=before, version=args.card_face)
                if args.why and why_live:
                    print(f"  {lv} {sz[0]}x{sz[1]} seed {seed} live: " + "; ".join(why_live), file=sys.stderr)
                if not ok and args.save_failures is not None:
                    args.save_failures.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(args.save_failures / f"{lv}_{sz[0]}_{seed}.jpg"), photo.image)
        if (k + 1) % 10 == 0:
            print(f"  {k + 1} scenes, {time.time() - t_start:.0f}s", file=sys.stderr)
    print(f"independent camera model; held-out seeds {args.seed_base}..{args.seed_base + args.scenes - 1}, "
          f"3-6 seats, model {args.model.name}, threshold {rec.config.confidence_threshold}")
    print(f"{'level':<8} {'size':<10} {'frame':<6} {'scenes':>6} {'correct':>8} {'usable':>7} {'no mat':>7} "
          f"{'chart lost':>10} {'comps right':>12} {'wrong acc.':>11} {'held vis.':>9} {'ms med':>7} {'ms p90':>7} "
          f"{'cpu med':>7} {'cpu p90':>7}")
    for (lv, sz, mode), t in tallies.items():
        n = max(t.scenes, 1)
        med = statistics.median(t.ms) if t.ms else float("nan")
        p90 = float(np.percentile(t.ms, 90)) if t.ms else float("nan")
        cpu_med = statistics.median(t.cpu_ms) if t.cpu_ms else float("nan")
        cpu_p90 = float(np.percentile(t.cpu_ms, 90)) if t.cpu_ms else float("nan")
        print(f"{lv:<8} {sz[0]}x{sz[1]:<5} {mode:<6} {t.scenes:>6} {100 * t.correct / n:>7.0f}% "
              f"{100 * t.usable / n:>6.0f}% {t.no_mat:>7} {t.chart_missed:>10} "
              f"{100 * t.components_right / max(t.components, 1):>11.1f}% "
              f"{t.wrong_accepted:>5}/{t.detections:<5} {t.held_visible:>9} {med:>7.1f} {p90:>7.1f} "
              f"{cpu_med:>7.1f} {cpu_p90:>7.1f}")
    print("places not read right, by kind of place and cause (missed: nothing detected and read empty;"
          " unreadable: nothing detected, held; unsure / not a component: the detection there was refused;"
          " wrong / phantom: another card read, or a card on an empty place)")
    for (lv, sz, mode), t in tallies.items():
        if t.causes:
            parts = ", ".join(f"{k} {c}: {n}" for (k, c), n in sorted(t.causes.items(), key=lambda kv: -kv[1]))
            print(f"  {lv:<8} {sz[0]}x{sz[1]:<5} {mode:<6} {parts}")
    if args.why:  # the raw counts, to add up runs over parts of a seed range
        for (lv, sz, mode), t in tallies.items():
            print(f"counts {lv} {sz[0]}x{sz[1]} {mode} scenes {t.scenes} correct {t.correct} usable {t.usable} "
                  f"no_mat {t.no_mat} chart_missed {t.chart_missed} components {t.components} "
                  f"right {t.components_right} wrong {t.wrong_accepted} detections {t.detections} "
                  f"held {t.held_visible}", file=sys.stderr)
    print(f"wall time {time.time() - t_start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
