"""Labelled crops for training and benchmarks, harvested through the real pipeline stages.

A synthetic scene is calibrated, rectified and searched for components exactly
as at runtime; each detection's crop is labelled by the ground-truth item at
its position ("none" when it matches no component). Faces come from the
renderer or from a folder of images per label (``DIR/<label>/*.png``), so
scans of a real deck can replace the renders.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import NoMatError
from vision.bigtop import DEFAULT_CONFIG
from vision.bigtop.faces import Image, render_label
from vision.bigtop.labels import LABELS, NONE, Kind, kind_of
from vision.bigtop.layout import CARD, TOKEN
from vision.bigtop.places import fit_card, layout_places
from vision.bigtop.scene import (
    FaceSource,
    Scene,
    SceneSettings,
    TruthItem,
    bigtop_placements,
    foreign_placements,
    render_scene,
    training_placements,
)
from vision.calibrate import find_markers, locate_charts, marker_outlines, mat_homography, rectify
from vision.config import VisionConfig
from vision.detect import Detection, find_components, warp_crops

__all__ = ["CropSet", "folder_faces", "harvest", "match_truth", "scene_crops"]

#: a detection within this distance (mm) of a ground-truth centre belongs to it
MATCH_MM = 12.0


@dataclass(frozen=True, slots=True)
class CropSet:
    """Crops ``(N, H, W, 3)`` uint8 and their label indices into `LABELS`."""

    crops: NDArray[Any]
    labels: NDArray[Any]


def match_truth(pos: tuple[float, float], truth: Sequence[TruthItem]) -> TruthItem | None:
    """The ground-truth item nearest to a detected centre, within `MATCH_MM`."""
    best, dist = None, MATCH_MM
    for t in truth:
        d = math.hypot(t.x - pos[0], t.y - pos[1])
        if d < dist:
            best, dist = t, d
    return best


def folder_faces(root: Path, fallback: FaceSource = render_label) -> FaceSource:
    """A face source reading ``root/<label>/*.png|*.jpg`` (whole component, any size).

    Labels with no folder fall back to the renderer. Images are resized to the
    component's printed size; cards get rounded corners, tokens a round mask.
    """
    files: dict[str, list[Path]] = {}
    for lab in LABELS:
        d = root / lab
        if d.is_dir():
            files[lab] = sorted(p for p in d.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    pick = random.Random(0)

    def source(label: str, s: float) -> tuple[Image, Image]:
        options = files.get(label)
        if not options:
            return fallback(label, s)
        img = cv2.imread(str(pick.choice(options)), cv2.IMREAD_COLOR)
        if img is None:
            return fallback(label, s)
        ref, alpha = fallback(label, s)
        out = cv2.resize(img, (ref.shape[1], ref.shape[0]), interpolation=cv2.INTER_AREA)
        return out, alpha

    return source


#: a place's fitted crop is labelled with the card there while this little of it is hidden, and
#: none once this much is hidden (in between it is left out)
PLACE_READABLE, PLACE_HIDDEN = 0.35, 0.6


def scene_crops(scene: Scene, config: VisionConfig = DEFAULT_CONFIG, jitter: int = 0,
                rng: np.random.Generator | None = None, random_none: int = 0,
                inner_none: float = 0.25, places: bool = False,
                ) -> tuple[list[NDArray[Any]], list[int], list[TruthItem | None]]:
    """Run the pipeline stages on a scene and label every detection's crop.

    With ``rng`` (training): ``jitter`` extra crops per detection with corners
    moved up to 1.5 px; ``random_none`` random card-sized crops away from any
    detection, and for a share ``inner_none`` of the cards a token-sized crop
    of the card's artwork, labelled none. With ``places``: also a crop of every
    tableau pile and chart space fitted where the layout puts it (as the pipeline
    reads places no detection identified), labelled with the card lying there or none.
    """
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    markers = find_markers(gray, config)
    try:
        cal = mat_homography(markers, config)
    except NoMatError:
        return [], [], []
    rect = rectify(gray, cal, config)
    dets = find_components(rect.image, config, marker_outlines(markers, rect, config))
    none_idx = LABELS.index(NONE)
    crops: list[NDArray[Any]] = []
    labels: list[int] = []
    matched: list[TruthItem | None] = []
    all_dets: list[Detection] = []
    for d in dets:
        t = match_truth(rect.to_table(*d.centre), scene.truth)
        lab = none_idx if t is None else LABELS.index(t.label)
        copies = [d]
        if rng is not None:
            for _ in range(jitter):
                copies.append(Detection(d.kind, d.corners + rng.uniform(-1.5, 1.5, d.corners.shape), d.centre,
                                        d.angle))
        for c in copies:
            all_dets.append(c)
            labels.append(lab)
            matched.append(t)
    if rng is not None:
        # a disc of a card's artwork (the loop of a 6, a clown's face) is no token, even when
        # the card itself is too covered to be found
        r = TOKEN.inner_diameter / 2 * rect.px_per_mm
        for d in dets:
            if d.kind is not Kind.CARD or rng.random() > inner_none:
                continue
            u, v = float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.15, 0.85))
            top = d.corners[0] + u * (d.corners[1] - d.corners[0])
            bottom = d.corners[3] + u * (d.corners[2] - d.corners[3])
            cx, cy = top + v * (bottom - top)
            disc = np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.float64)
            all_dets.append(Detection(Kind.TOKEN, disc, (float(cx), float(cy)), 0.0))
            labels.append(none_idx)
            matched.append(None)
    if rng is not None and random_none:
        s = rect.px_per_mm
        h, w = rect.image.shape[:2]
        for _ in range(random_none):
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            if any(math.hypot(cx - d.centre[0], cy - d.centre[1]) < 25 * s for d in dets):
                continue
            if rng.random() < 0.7:
                size = (CARD.inner_width * s, CARD.inner_height * s)
            else:
                size = (TOKEN.inner_diameter * s, TOKEN.inner_diameter * s)
            box = cv2.boxPoints(((cx, cy), size, float(rng.uniform(0, 360))))
            all_dets.append(Detection(Kind.CARD, np.asarray(box, np.float64), (cx, cy), 0.0))
            labels.append(none_idx)
            matched.append(None)
    if places:
        for place in layout_places(locate_charts(markers, cal, config)):
            d, _ = fit_card(rect, place)
            t = match_truth(rect.to_table(*d.centre), scene.truth)
            if t is not None and kind_of(t.label) is Kind.CARD and t.occluded < PLACE_READABLE:
                lab = LABELS.index(t.label)
            elif t is None or kind_of(t.label) is not Kind.CARD or t.occluded >= PLACE_HIDDEN:
                lab = none_idx
            else:
                continue
            all_dets.append(d)
            labels.append(lab)
            matched.append(t)
    if all_dets:
        crops = list(warp_crops(scene.image, all_dets, config, rect.rect_to_frame))
    return crops, labels, matched


def harvest(seed: int, n_scenes: int, settings: SceneSettings, faces: FaceSource = render_label,
            training_mix: float = 0.75, jitter: int = 1, random_none: int = 3, strangers: int = 4,
            config: VisionConfig = DEFAULT_CONFIG) -> CropSet:
    """Crops from ``n_scenes`` scenes seeded ``seed, seed+1, ...``.

    ``training_mix`` is the share of dense random-label tables (with up to
    ``strangers`` foreign cards each); the rest are mid-hand Big Top tables
    with 3 to 6 seats.
    """
    crops: list[NDArray[Any]] = []
    labels: list[int] = []
    for k in range(n_scenes):
        rng = np.random.default_rng(seed + k)
        seats = int(rng.integers(3, 7))
        chosen = sorted(int(v) for v in rng.choice(6, size=seats, replace=False))
        dense = rng.random() < training_mix
        if dense:
            placements = foreign_placements(rng, training_placements(rng), int(rng.integers(0, strangers + 1)))
        else:
            placements = bigtop_placements(rng, chosen)
        scene = render_scene(rng, chosen, settings, placements=placements, faces=faces)
        c, lab, _ = scene_crops(scene, config, jitter=jitter, rng=rng, random_none=random_none, places=not dense)
        crops.extend(c)
        labels.extend(lab)
    w, h = config.crop_size
    arr = np.stack(crops) if crops else np.zeros((0, h, w, 3), np.uint8)
    return CropSet(arr, np.array(labels, np.int64))
