"""Synthetic camera frames of a Big Top table, with ground truth.

Used by the tests, the training data generator and the benchmarks. A scene is
composed top-down in table millimetres (mat, Organizing Charts, cards, tokens,
clutter, hands), then seen through a tilted pinhole camera and degraded by
lighting, colour temperature, shadows, glare, defocus, sensor noise and JPEG.

>>> import numpy as np
>>> scene = render_scene(np.random.default_rng(1), seats=3)
>>> scene.image.shape
(960, 1280, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.bigtop.cards import DECK, Card, Shade, Suit
from vision.bigtop.faces import Image, render_chart, render_label, render_mat
from vision.bigtop.labels import BACK, LABELS, NONE, TOKEN_BACK, TOKEN_VALUES, token_label
from vision.bigtop.layout import CARD, CHART, MAT, TOKEN, Pile, Space

__all__ = [
    "CANVAS_BLUR",
    "CHART_SHADOW",
    "COMPONENT_SHADOW",
    "HARD_SETTINGS",
    "TRAIN_SETTINGS",
    "FaceSource",
    "Placement",
    "Scene",
    "SceneSettings",
    "TruthItem",
    "bigtop_placements",
    "camera_homography",
    "chart_pose",
    "foreign_placements",
    "paste",
    "printed",
    "TopDown",
    "render_scene",
    "render_top_down",
    "table_texture",
    "training_placements",
]

FloatArray = NDArray[Any]
#: returns (face image BGR, alpha) of a label at a resolution in px/mm
FaceSource = Callable[[str, float], tuple[Image, Image]]


@dataclass(frozen=True, slots=True)
class SceneSettings:
    """Ranges the scene generator samples from (uniformly unless stated)."""

    image_size: tuple[int, int] = (1280, 960)
    render_px_per_mm: float = 2.0
    tilt_deg: tuple[float, float] = (0.0, 20.0)
    yaw_deg: tuple[float, float] = (-10.0, 10.0)
    brightness: tuple[float, float] = (0.6, 1.15)
    #: positive is warmer (more red, less blue)
    warmth: tuple[float, float] = (-0.1, 0.2)
    gamma: tuple[float, float] = (0.85, 1.2)
    blur_sigma: tuple[float, float] = (0.0, 0.9)
    noise_sigma: tuple[float, float] = (1.0, 5.0)
    jpeg_quality: tuple[int, int] = (60, 95)
    shadow_probability: float = 0.4
    glare_probability: float = 0.3
    glare_strength: tuple[float, float] = (0.15, 0.45)
    hands: tuple[int, int] = (0, 1)
    clutter: tuple[int, int] = (0, 3)
    #: fraction of the frame margin around the table content
    margin: tuple[float, float] = (0.01, 0.05)


#: training settings: the defaults widened towards dim, warm, blurry and noisy light, steep
#: tilt, glare, hands and clutter, so that such frames are not rare in the training data.
#: Independent of `HARD_SETTINGS` (and of the benchmark seeds): the ranges are broader and
#: sampled together with ordinary light.
TRAIN_SETTINGS = SceneSettings(
    tilt_deg=(0.0, 28.0),
    yaw_deg=(-15.0, 15.0),
    brightness=(0.4, 1.15),
    warmth=(-0.1, 0.35),
    gamma=(0.8, 1.3),
    blur_sigma=(0.0, 1.2),
    noise_sigma=(1.0, 7.5),
    jpeg_quality=(50, 95),
    shadow_probability=0.5,
    glare_probability=0.5,
    glare_strength=(0.15, 0.55),
    hands=(0, 2),
    clutter=(0, 5),
)
#: held-out benchmark settings: stronger tilt, dimmer and warmer light, more glare, clutter and hands
HARD_SETTINGS = SceneSettings(
    tilt_deg=(10.0, 27.0),
    yaw_deg=(-14.0, 14.0),
    brightness=(0.45, 0.85),
    warmth=(0.1, 0.3),
    gamma=(0.8, 1.3),
    blur_sigma=(0.3, 1.1),
    noise_sigma=(3.0, 7.0),
    jpeg_quality=(50, 85),
    shadow_probability=0.6,
    glare_probability=0.7,
    glare_strength=(0.25, 0.55),
    hands=(1, 2),
    clutter=(2, 5),
)


@dataclass(frozen=True, slots=True)
class Placement:
    """One object on the table: its label, centre (mm), rotation (degrees) and layer."""

    label: str
    x: float
    y: float
    angle: float
    visible: bool = True


@dataclass(frozen=True, slots=True)
class TruthItem:
    """A component the camera should report, with how much of it is hidden (0..1).

    ``occluded``: the share of its whole outline covered by hands, foreign cards or
    other components. ``face_hidden``: the share of its printed face (the frame line
    and the field inside it; the blank white margin excluded) that cannot be seen:
    covered, or outside the camera frame. A component with ``face_hidden == 0``
    shows everything printed on it.
    """

    label: str
    x: float
    y: float
    angle: float
    occluded: float
    face_hidden: float = 0.0


@dataclass(frozen=True, slots=True)
class Scene:
    """A rendered frame and what lies on the table (``none`` items are foreign objects)."""

    image: Image
    truth: tuple[TruthItem, ...]
    #: table millimetres -> image pixels
    table_to_image: FloatArray
    seats: tuple[int, ...]
    charts: dict[int, tuple[float, float, float]] = field(default_factory=dict)


# --- table layout ---------------------------------------------------------

#: (centre x, centre y, rotation degrees) of the six chart positions around the mat;
#: each chart's spaces face the mat.
CHART_POSES: tuple[tuple[float, float, float], ...] = (
    (100.0, MAT.height + 15 + CHART.height / 2, 0.0),
    (400.0, MAT.height + 15 + CHART.height / 2, 0.0),
    (MAT.width + 15 + CHART.height / 2, MAT.height / 2, 90.0),
    (400.0, -15 - CHART.height / 2, 180.0),
    (100.0, -15 - CHART.height / 2, 180.0),
    (-15 - CHART.height / 2, MAT.height / 2, 270.0),
)
#: table region (mm) that holds every possible component
CONTENT_REGION: tuple[float, float, float, float] = (-215.0, -215.0, 715.0, 495.0)


#: shadow strength under a pasted component, and under a chart
COMPONENT_SHADOW = 0.3
CHART_SHADOW = 0.1
#: sigma (canvas px) of the anti-aliasing blur before the camera warp
CANVAS_BLUR = 0.6


def chart_pose(position: int) -> tuple[float, float, float]:
    """Pose of the chart at seat position ``position`` (0..5)."""
    return CHART_POSES[position]


def chart_to_table(pose: tuple[float, float, float], x: float, y: float) -> tuple[float, float]:
    """Map a chart-frame point to table millimetres for a chart lying at ``pose``.

    The pose angle rotates the chart counter-clockwise as seen on screen (y down).
    """
    cx, cy, ang = pose
    a = math.radians(ang)
    dx, dy = x - CHART.width / 2, y - CHART.height / 2
    # angle 90: the chart's "up" (towards the spaces) points to -x, i.e. the chart lies right of the mat
    return (cx + dx * math.cos(a) + dy * math.sin(a), cy - dx * math.sin(a) + dy * math.cos(a))


def _jitter(rng: np.random.Generator, scale: float) -> float:
    return float(rng.uniform(-scale, scale))


def bigtop_placements(rng: np.random.Generator, seats: Sequence[int]) -> list[Placement]:
    """A mid-hand Big Top table: tableau piles, called cards, tokens, a few loose cards.

    ``seats`` are chart positions (0..5); the seat number is the position.
    """
    out: list[Placement] = []
    used: set[Card] = set()
    for suit in Suit:
        if rng.random() < 0.15:
            continue
        r = MAT.slot(suit, Pile.POSTER)
        poster = Card(suit, Shade.POSTER, 0)
        used.add(poster)
        out.append(Placement(poster.notation(), *_slot_jitter(rng, r.centre), visible=True))
        for shade, pile in ((Shade.LIGHT, Pile.LIGHT), (Shade.DARK, Pile.DARK)):
            top = int(rng.integers(0, 7))
            for n in range(1, top + 1):
                c = Card(suit, shade, n)
                used.add(c)
                out.append(Placement(c.notation(), *_slot_jitter(rng, MAT.slot(suit, pile).centre),
                                     visible=(n == top)))
    free = [c for c in DECK if c not in used and not c.is_poster]
    rng.shuffle(free)
    for pos in seats:
        pose = chart_pose(pos)
        n_called = int(rng.integers(0, 5))
        suits_used: set[Suit] = set()
        spaces = sorted(rng.choice(4, size=n_called, replace=False).tolist())
        for sp in spaces:
            pick = next((c for c in free if c.suit not in suits_used), None)
            if pick is None:
                break
            free.remove(pick)
            suits_used.add(pick.suit)
            cx, cy = CHART.space(Space(sp)).centre
            x, y = chart_to_table(pose, cx + _jitter(rng, 2), cy + _jitter(rng, 2))
            out.append(Placement(pick.notation(), x, y, pose[2] + _jitter(rng, 5)))
        values = list(TOKEN_VALUES)
        rng.shuffle(values)
        for suit, v in zip(Suit, values):
            if rng.random() < 0.08:
                continue
            px, py = CHART.picture_centre(suit)
            x, y = chart_to_table(pose, px + _jitter(rng, 3), py + _jitter(rng, 3))
            label = token_label(v) if rng.random() < 0.2 else TOKEN_BACK
            out.append(Placement(label, x, y, float(rng.uniform(0, 360))))
    n_loose = int(rng.integers(0, 4))
    for _ in range(n_loose):
        label = free.pop().notation() if free and rng.random() < 0.6 else BACK
        spot = _free_spot(rng, out, CARD.height)
        if spot is not None:
            out.append(Placement(label, spot[0], spot[1], float(rng.uniform(0, 360))))
    return out


def _slot_jitter(rng: np.random.Generator, centre: tuple[float, float]) -> tuple[float, float, float]:
    return (centre[0] + _jitter(rng, 2.0), centre[1] + _jitter(rng, 2.0), _jitter(rng, 4.0))


def _occupied(out: Sequence[Placement], x: float, y: float, radius: float) -> bool:
    for p in out:
        r = CARD.height / 2 if not p.label.startswith("token") else TOKEN.diameter / 2
        if math.hypot(p.x - x, p.y - y) < r + radius:
            return True
    if -10 < x < MAT.width + 10 and -10 < y < MAT.height + 10:
        return True
    return False


def _free_spot(rng: np.random.Generator, out: Sequence[Placement], size: float) -> tuple[float, float] | None:
    x0, y0, x1, y1 = CONTENT_REGION
    for _ in range(60):
        x, y = float(rng.uniform(x0 + 40, x1 - 40)), float(rng.uniform(y0 + 40, y1 - 40))
        if not _occupied(out, x, y, size / 2) and not _on_any_chart(x, y, size / 2):
            return (x, y)
    return None


def _on_any_chart(x: float, y: float, pad: float) -> bool:
    for pose in CHART_POSES:
        cx, cy, ang = pose
        w, h = (CHART.width, CHART.height) if ang % 180 == 0 else (CHART.height, CHART.width)
        if abs(x - cx) < w / 2 + pad and abs(y - cy) < h / 2 + pad:
            return True
    return False


def training_placements(rng: np.random.Generator, labels: Sequence[str] = LABELS) -> list[Placement]:
    """A dense table of random components (any label, any rotation, some touching)."""
    faces = [lab for lab in labels if lab != NONE]
    out: list[Placement] = []
    x0, y0, x1, y1 = CONTENT_REGION
    # the tableau and chart spaces, filled at random
    for suit in Suit:
        for pile in Pile:
            if rng.random() < 0.8:
                r = MAT.slot(suit, pile)
                out.append(Placement(str(rng.choice(faces)), *_slot_jitter(rng, r.centre)))
    tries = 0
    while tries < 400 and len(out) < 70:
        tries += 1
        label = str(rng.choice(faces))
        is_token = label.startswith("token")
        if out and rng.random() < 0.35:
            # touching neighbour of the previous card
            prev = out[-1]
            a = math.radians(prev.angle)
            step = CARD.width + float(rng.uniform(0.0, 1.5))
            x, y = prev.x + step * math.cos(a), prev.y - step * math.sin(a)
            ang = prev.angle
            if is_token or prev.label.startswith("token"):
                continue
        else:
            x, y = float(rng.uniform(x0 + 30, x1 - 30)), float(rng.uniform(y0 + 30, y1 - 30))
            ang = float(rng.uniform(0, 360))
        if not (x0 + 30 < x < x1 - 30 and y0 + 30 < y < y1 - 30):
            continue
        if _occupied_loose(out, x, y, label, ang) or _covers_marker(label, x, y, ang):
            continue
        out.append(Placement(label, x, y, ang))
    return out


def foreign_placements(rng: np.random.Generator, placements: Sequence[Placement], count: int) -> list[Placement]:
    """``placements`` plus up to ``count`` foreign cards (label ``none``) where nothing else lies."""
    out = list(placements)
    x0, y0, x1, y1 = CONTENT_REGION
    for _ in range(20 * count):
        if count <= 0:
            break
        x, y = float(rng.uniform(x0 + 30, x1 - 30)), float(rng.uniform(y0 + 30, y1 - 30))
        ang = float(rng.uniform(0, 360))
        if _occupied_loose(out, x, y, NONE, ang) or _covers_marker(NONE, x, y, ang):
            continue
        out.append(Placement(NONE, x, y, ang))
        count -= 1
    return out


def _footprint(label: str, x: float, y: float, angle: float) -> NDArray[Any]:
    if label.startswith("token"):
        pts = [(x + TOKEN.diameter / 2 * math.cos(t), y + TOKEN.diameter / 2 * math.sin(t))
               for t in np.linspace(0, 2 * math.pi, 16, endpoint=False)]
        return np.array(pts, np.float32)
    box = cv2.boxPoints(((x, y), (CARD.width, CARD.height), -angle))
    return np.asarray(box, np.float32)


def _marker_polygons() -> list[NDArray[Any]]:
    polys = []
    for k in range(len(MAT.marker_ids)):
        c = np.array(MAT.marker_corners(k), np.float32)
        polys.append(np.array([c[0] - 5, c[1] + (5, -5), c[2] + 5, c[3] + (-5, 5)], np.float32))
    for pose in CHART_POSES:
        for side in range(4):
            cc = CHART.marker_corners(side)
            pad = ((-5, -5), (5, -5), (5, 5), (-5, 5))
            polys.append(np.array([chart_to_table(pose, x + dx, y + dy) for (x, y), (dx, dy) in zip(cc, pad)],
                                  np.float32))
    return polys


_MARKER_POLYS = _marker_polygons()


def _covers_marker(label: str, x: float, y: float, angle: float) -> bool:
    mine = _footprint(label, x, y, angle)
    for poly in _MARKER_POLYS:
        if abs(float(poly[:, 0].mean()) - x) > 120 or abs(float(poly[:, 1].mean()) - y) > 120:
            continue
        inter, _ = cv2.intersectConvexConvex(mine, cv2.convexHull(poly))
        if inter > 0.5:
            return True
    return False


def _occupied_loose(out: Sequence[Placement], x: float, y: float, label: str, angle: float) -> bool:
    mine = _footprint(label, x, y, angle)
    for p in out:
        if math.hypot(p.x - x, p.y - y) > CARD.height + 5:
            continue
        other = _footprint(p.label, p.x, p.y, p.angle)
        inter, _ = cv2.intersectConvexConvex(mine, other)
        if inter > 1.0:
            return True
    return False


# --- composing the top-down canvas ----------------------------------------

def paste(canvas: FloatArray, img: Image, alpha: Image, x_mm: float, y_mm: float, angle: float,
           s: float, origin: tuple[float, float], shadow: float = 0.0,
           cover: NDArray[Any] | None = None) -> None:
    """Alpha-blend ``img`` (rendered at ``s`` px/mm) centred at table (x, y), rotated ``angle`` degrees."""
    h, w = img.shape[:2]
    cx, cy = (x_mm - origin[0]) * s, (y_mm - origin[1]) * s
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    half = 0.5 * math.hypot(w, h) + 4
    bx0, by0 = int(math.floor(cx - half)), int(math.floor(cy - half))
    bx1, by1 = int(math.ceil(cx + half)), int(math.ceil(cy + half))
    H, W = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(bx0, 0), max(by0, 0), min(bx1, W), min(by1, H)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    m[0, 2] += cx - w / 2 - cx0
    m[1, 2] += cy - h / 2 - cy0
    size = (cx1 - cx0, cy1 - cy0)
    warped = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32) / 255.0
    roi = canvas[cy0:cy1, cx0:cx1]
    if shadow > 0:
        sh = cv2.GaussianBlur(a, (0, 0), max(1.0, 1.2 * s))
        sh = np.roll(sh, (int(0.8 * s), int(0.8 * s)), axis=(0, 1))
        roi *= (1.0 - shadow * sh)[:, :, None]
    roi[:] = roi * (1 - a[:, :, None]) + warped.astype(np.float32) * a[:, :, None]
    if cover is not None:
        croi = cover[cy0:cy1, cx0:cx1]
        croi[a > 0.5] = 255


def table_texture(rng: np.random.Generator, shape: tuple[int, int]) -> FloatArray:
    """A random table surface (a plain colour with smooth blotches and, half the time, grain), float BGR."""
    palette = [(40, 70, 110), (60, 95, 140), (50, 110, 60), (70, 70, 70), (120, 130, 140), (30, 35, 40),
               (90, 120, 160), (150, 150, 150)]
    base = np.array(palette[int(rng.integers(len(palette)))], np.float32) * float(rng.uniform(0.8, 1.2))
    h, w = shape
    noise: NDArray[Any] = rng.normal(0, 1, (max(2, h // 16), max(2, w // 16))).astype(np.float32)
    noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.5:
        grain: NDArray[Any] = cv2.resize(rng.normal(0, 1, (h // 4 + 1, 2)).astype(np.float32), (w, h))
        noise = noise + 1.5 * grain
    out = base[None, None, :] * (1 + 0.06 * noise[:, :, None])
    return np.clip(out, 0, 255).astype(np.float32)


def _clutter(rng: np.random.Generator, canvas: FloatArray, s: float, origin: tuple[float, float],
             placements: list[Placement], spots: list[tuple[float, float]] | None = None,
             reach: list[float] | None = None) -> list[TruthItem]:
    """Draw one clutter object; returns a truth item when it is a card-sized stranger.

    ``spots``: where given, the object's centre (table mm) is appended, whatever it is; ``reach``:
    where given, how far (mm) from that centre the object may cover the table.
    """
    x0, y0, x1, y1 = CONTENT_REGION
    kind = int(rng.integers(5))
    for _ in range(40):
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if not _near_component(placements, x, y, 80.0 if kind in (0, 1, 2) else 45.0):
            break
    else:
        return []
    px, py = int((x - origin[0]) * s), int((y - origin[1]) * s)
    if spots is not None:
        spots.append((x, y))
    if reach is not None:
        reach.append(CLUTTER_REACH[kind])
    colour = tuple(float(c) for c in rng.uniform(20, 235, 3))
    if kind == 0:
        # a mug seen from above
        r = int(rng.uniform(35, 45) * s)
        cv2.circle(canvas, (px, py), r, colour, -1, cv2.LINE_AA)
        cv2.circle(canvas, (px, py), int(r * 0.82), (30, 40, 60), -1, cv2.LINE_AA)
        cv2.ellipse(canvas, (px + r, py), (int(r * 0.5), int(r * 0.2)), 0, 0, 360, colour, int(4 * s))
    elif kind == 1:
        # a phone
        w, h = rng.uniform(65, 75) * s, rng.uniform(140, 155) * s
        box = cv2.boxPoints(((px, py), (w, h), float(rng.uniform(0, 180))))
        cv2.fillPoly(canvas, [box.astype(np.int32)], (25, 25, 28), cv2.LINE_AA)
        inner = cv2.boxPoints(((px, py), (w * 0.88, h * 0.85), 0))
        del inner
    elif kind == 2:
        # a pen
        a = rng.uniform(0, math.pi)
        L = rng.uniform(110, 150) * s
        p0 = (int(px - L / 2 * math.cos(a)), int(py - L / 2 * math.sin(a)))
        p1 = (int(px + L / 2 * math.cos(a)), int(py + L / 2 * math.sin(a)))
        cv2.line(canvas, p0, p1, colour, int(8 * s), cv2.LINE_AA)
    elif kind == 3:
        # a coin
        cv2.circle(canvas, (px, py), int(11.5 * s), (150, 170, 180), -1, cv2.LINE_AA)
        cv2.circle(canvas, (px, py), int(11.5 * s), (90, 110, 120), max(1, int(s)), cv2.LINE_AA)
    else:
        # a foreign card: same size and frame as ours, foreign artwork
        img, alpha = _foreign_card(rng, s)
        ang = float(rng.uniform(0, 360))
        paste(canvas, img, alpha, x, y, ang, s, origin, shadow=0.25)
        return [TruthItem(NONE, x, y, ang, 0.0)]
    return []


#: how far (mm) from its centre each kind of clutter object may cover the table: a mug with its
#: handle, a phone, a pen, a coin, a foreign card
CLUTTER_REACH = (68.0, 86.0, 76.0, 12.0, 53.0)


def _near_component(out: Sequence[Placement], x: float, y: float, radius: float) -> bool:
    return any(math.hypot(p.x - x, p.y - y) < radius + (TOKEN.diameter / 2 if p.label.startswith("token")
                                                      else CARD.height / 2) for p in out)


def _foreign_card(rng: np.random.Generator, s: float) -> tuple[Image, Image]:
    img, alpha = render_label(BACK, s)
    img = img.copy()
    m = int((CARD.margin + CARD.frame) * s)
    h, w = img.shape[:2]
    field = img[m:h - m, m:w - m]
    field[:] = rng.uniform(60, 240, 3).astype(np.uint8)
    for _ in range(int(rng.integers(2, 7))):
        c = tuple(int(v) for v in rng.uniform(0, 255, 3))
        p0 = (int(rng.uniform(0.15, 0.85) * field.shape[1]), int(rng.uniform(0.15, 0.85) * field.shape[0]))
        if rng.random() < 0.5:
            cv2.circle(field, p0, int(rng.uniform(3, 12) * s), c, -1, cv2.LINE_AA)
        else:
            p1 = (int(rng.uniform(0.15, 0.85) * field.shape[1]), int(rng.uniform(0.15, 0.85) * field.shape[0]))
            cv2.line(field, p0, p1, c, max(1, int(rng.uniform(1, 4) * s)), cv2.LINE_AA)
    return img, alpha


def _hand(rng: np.random.Generator, canvas: FloatArray, cover: NDArray[Any], s: float,
          origin: tuple[float, float], region: tuple[float, float, float, float]) -> None:
    """An arm reaching in from the edge of the view, drawn on the canvas and into ``cover``."""
    x0, y0, x1, y1 = region
    side = int(rng.integers(4))
    t = float(rng.uniform(0.15, 0.85))
    edge = [(x0 + t * (x1 - x0), y0), (x1, y0 + t * (y1 - y0)), (x0 + t * (x1 - x0), y1),
            (x0, y0 + t * (y1 - y0))][side]
    inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
    reach = float(rng.uniform(60, 170))
    ang = math.atan2(inward[1], inward[0]) + float(rng.uniform(-0.5, 0.5))
    tip = (edge[0] + reach * math.cos(ang), edge[1] + reach * math.sin(ang))
    skin = np.array([(120, 150, 200), (90, 120, 170), (60, 90, 140), (140, 170, 215)][int(rng.integers(4))],
                    np.float32) * float(rng.uniform(0.85, 1.1))
    sleeve = rng.uniform(20, 200, 3)
    layer: NDArray[Any] = np.zeros(canvas.shape[:2], np.uint8)

    def P(p: tuple[float, float]) -> tuple[int, int]:
        return (int((p[0] - origin[0]) * s), int((p[1] - origin[1]) * s))

    back = (edge[0] - 200 * math.cos(ang), edge[1] - 200 * math.sin(ang))
    cv2.line(layer, P(back), P(tip), 255, int(70 * s), cv2.LINE_AA)
    wrist = (tip[0] - 60 * math.cos(ang), tip[1] - 60 * math.sin(ang))
    sleeve_mask = np.zeros_like(layer)
    cv2.line(sleeve_mask, P(back), P(wrist), 255, int(80 * s), cv2.LINE_AA)
    for k in range(4):
        fa = ang + (k - 1.5) * 0.22
        base = (tip[0] - 10 * math.cos(ang), tip[1] - 10 * math.sin(ang))
        ftip = (base[0] + 55 * math.cos(fa), base[1] + 55 * math.sin(fa))
        cv2.line(layer, P(base), P(ftip), 255, int(15 * s), cv2.LINE_AA)
    ys, xs = np.nonzero(layer)
    if len(xs) == 0:
        return
    pad = int(20 * s)
    r0, r1 = max(0, ys.min() - pad), min(layer.shape[0], ys.max() + pad)
    c0, c1 = max(0, xs.min() - pad), min(layer.shape[1], xs.max() + pad)
    roi = canvas[r0:r1, c0:c1]
    a = layer[r0:r1, c0:c1].astype(np.float32)[:, :, None] / 255.0
    sa = sleeve_mask[r0:r1, c0:c1].astype(np.float32)[:, :, None] / 255.0
    colour = skin[None, None, :] * (1 - sa) + sleeve[None, None, :].astype(np.float32) * sa
    roi *= 1 - 0.45 * cv2.GaussianBlur(a[:, :, 0], (0, 0), 6 * s)[:, :, None]
    roi[:] = roi * (1 - a) + colour * a
    cover[layer > 127] = 255


# --- the camera -----------------------------------------------------------

def camera_homography(rng: np.random.Generator, settings: SceneSettings,
                      region: tuple[float, float, float, float] = CONTENT_REGION) -> FloatArray:
    """A table-mm -> image-px homography of a pinhole camera tilted by up to the settings' angle."""
    tilt = math.radians(float(rng.uniform(*settings.tilt_deg)))
    axis_a = float(rng.uniform(0, 2 * math.pi))
    axis = np.array([math.cos(axis_a), math.sin(axis_a), 0.0])
    rt, _ = cv2.Rodrigues(axis * tilt)
    yaw = math.radians(float(rng.uniform(*settings.yaw_deg)) + (180.0 if rng.random() < 0.3 else 0.0))
    rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    R = rz @ rt
    x0, y0, x1, y1 = region
    T = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    d = 1.15 * max(x1 - x0, y1 - y0)
    C = T - d * (R.T @ np.array([0.0, 0.0, 1.0]))
    H = R @ np.array([[1, 0, -C[0]], [0, 1, -C[1]], [0, 0, -C[2]]])
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    proj = cv2.perspectiveTransform(corners[None], H)[0]
    W, Hh = settings.image_size
    margin = float(rng.uniform(*settings.margin))
    span = proj.max(0) - proj.min(0)
    scale = min(W * (1 - 2 * margin) / span[0], Hh * (1 - 2 * margin) / span[1])
    centre = (proj.max(0) + proj.min(0)) / 2
    A = np.array([[scale, 0, W / 2 - scale * centre[0]], [0, scale, Hh / 2 - scale * centre[1]], [0, 0, 1]])
    out: FloatArray = A @ H
    res: FloatArray = out / out[2, 2]
    return res


def camera_effects(rng: np.random.Generator, img: FloatArray, settings: SceneSettings) -> Image:
    """Lighting, colour temperature, shadows, glare, defocus, noise and JPEG on a float BGR image."""
    h, w = img.shape[:2]
    out: NDArray[Any] = img.astype(np.float32)
    light = cv2.resize(rng.uniform(0.75, 1.15, (3, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    out *= (light * float(rng.uniform(*settings.brightness)))[:, :, None]
    warm = float(rng.uniform(*settings.warmth))
    out *= np.array([1 - warm, 1.0, 1 + warm * 0.8], np.float32)[None, None, :]
    if rng.random() < settings.shadow_probability:
        mask: NDArray[Any] = np.zeros((h, w), np.float32)
        pts = rng.uniform((0, 0), (w, h), (int(rng.integers(3, 6)), 2)).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(8, 30)))
        out *= (1 - float(rng.uniform(0.25, 0.5)) * mask)[:, :, None]
    if rng.random() < settings.glare_probability:
        for _ in range(int(rng.integers(1, 3))):
            g: NDArray[Any] = np.zeros((h, w), np.float32)
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            ax = (int(rng.uniform(15, 70)), int(rng.uniform(10, 45)))
            cv2.ellipse(g, c, ax, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
            g = cv2.GaussianBlur(g, (0, 0), float(rng.uniform(6, 18)))
            out += (255 * float(rng.uniform(*settings.glare_strength)) * g)[:, :, None]
    out = np.clip(out, 0, 255)
    gamma = float(rng.uniform(*settings.gamma))
    out = 255.0 * (out / 255.0) ** gamma
    sigma = float(rng.uniform(*settings.blur_sigma))
    if sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, float(rng.uniform(*settings.noise_sigma)), out.shape).astype(np.float32)
    img8 = np.clip(out, 0, 255).astype(np.uint8)
    q = int(rng.integers(settings.jpeg_quality[0], settings.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, q])
    decoded: Image | None = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return img8 if decoded is None else decoded


# --- whole scenes ---------------------------------------------------------

_CACHE: dict[tuple[str, int, float], Image] = {}


def printed(kind: str, seat: int, s: float) -> Image:
    """The printed mat (``kind`` "mat") or seat ``seat``'s chart at ``s`` px/mm, rendered once and cached."""
    key = (kind, seat, s)
    if key not in _CACHE:
        _CACHE[key] = render_mat(s) if kind == "mat" else render_chart(seat, s)
    return _CACHE[key]


@dataclass(frozen=True, slots=True)
class TopDown:
    """A Big Top table seen from straight above, before any camera: for `vision.camera_model`.

    ``canvas`` is float BGR at ``px_per_mm``; table millimetre (x, y) lies at canvas pixel
    ``((x - origin[0]) * px_per_mm, (y - origin[1]) * px_per_mm)``. ``truth`` gives each
    component's share hidden by the objects on the table (no hands: the camera model adds
    its own); ``face_hidden`` is left 0 because it depends on the camera.
    """

    canvas: FloatArray
    px_per_mm: float
    origin: tuple[float, float]
    truth: tuple[TruthItem, ...]
    seats: tuple[int, ...]
    charts: dict[int, tuple[float, float, float]]
    #: centres (table mm) of the clutter objects (mugs, phones, pens, coins, foreign cards)
    clutter: tuple[tuple[float, float], ...] = ()
    #: how far (mm) from its centre each clutter object may cover the table
    clutter_reach: tuple[float, ...] = ()


@dataclass(slots=True)
class _Composed:
    canvas: FloatArray
    origin: tuple[float, float]
    top: NDArray[Any]
    truth: list[TruthItem]
    chosen: tuple[int, ...]
    charts: dict[int, tuple[float, float, float]]
    placements: Sequence[Placement]
    clutter: list[tuple[float, float]]
    clutter_reach: list[float]


def _compose(rng: np.random.Generator, seats: int | Sequence[int], settings: SceneSettings,
             placements: Sequence[Placement] | None, faces: FaceSource, with_mat: bool) -> _Composed:
    """The top-down canvas of a table with its occupancy grid (the first half of `render_scene`)."""
    if isinstance(seats, int):
        chosen = tuple(sorted(int(v) for v in rng.choice(6, size=seats, replace=False)))
    else:
        chosen = tuple(seats)
    if placements is None:
        placements = bigtop_placements(rng, chosen)
    s = settings.render_px_per_mm
    x0, y0, x1, y1 = CONTENT_REGION
    pad = 140.0
    origin = (x0 - pad, y0 - pad)
    cw, ch = int((x1 - x0 + 2 * pad) * s), int((y1 - y0 + 2 * pad) * s)
    canvas = table_texture(rng, (ch, cw))
    if with_mat:
        mat = printed("mat", 0, s)
        ox, oy = int(-origin[0] * s), int(-origin[1] * s)
        canvas[oy:oy + mat.shape[0], ox:ox + mat.shape[1]] = mat
    charts: dict[int, tuple[float, float, float]] = {}
    for pos in chosen:
        pose = chart_pose(pos)
        charts[pos] = pose
        img = printed("chart", pos, s)
        paste(canvas, img, np.full(img.shape[:2], 255, np.uint8), pose[0], pose[1], pose[2], s, origin,
               shadow=CHART_SHADOW)
    truth: list[TruthItem] = []
    # which object is on top, per table millimetre (index into `placements`, -1 none)
    gx0, gy0 = origin
    top = np.full((int(ch / s) + 1, int(cw / s) + 1), -1, np.int32)
    for i, p in enumerate(placements):
        img, alpha = _foreign_card(rng, s) if p.label == NONE else faces(p.label, s)
        paste(canvas, img, alpha, p.x, p.y, p.angle, s, origin, shadow=COMPONENT_SHADOW)
        _paint(top, p, (gx0, gy0), i)
    spots: list[tuple[float, float]] = []
    reach: list[float] = []
    for _ in range(int(rng.integers(settings.clutter[0], settings.clutter[1] + 1))):
        extra = _clutter(rng, canvas, s, origin, list(placements), spots, reach)
        for t_ in extra:
            _paint(top, Placement(BACK, t_.x, t_.y, t_.angle), (gx0, gy0), -2)
        truth.extend(extra)
    return _Composed(canvas, origin, top, truth, chosen, charts, placements, spots, reach)


def render_top_down(
    rng: np.random.Generator,
    seats: int | Sequence[int] = 4,
    settings: SceneSettings = TRAIN_SETTINGS,
    placements: Sequence[Placement] | None = None,
    faces: FaceSource = render_label,
    with_mat: bool = True,
) -> TopDown:
    """The table of `render_scene` (same arguments) seen from straight above, with no camera at all."""
    c = _compose(rng, seats, settings, placements, faces, with_mat)
    counts = np.bincount(c.top[c.top >= 0].ravel(), minlength=len(c.placements))
    truth = list(c.truth)
    for i, p in enumerate(c.placements):
        if not p.visible:
            continue
        full = float(np.count_nonzero(_footprint_grid(p, c.origin, c.top.shape)))
        hidden = 1.0 - float(counts[i]) / max(full, 1.0)
        truth.append(TruthItem(p.label, p.x, p.y, p.angle, float(min(1.0, max(0.0, hidden)))))
    return TopDown(c.canvas, settings.render_px_per_mm, c.origin, tuple(truth), c.chosen, c.charts, tuple(c.clutter),
                   tuple(c.clutter_reach))


def render_scene(
    rng: np.random.Generator,
    seats: int | Sequence[int] = 4,
    settings: SceneSettings = TRAIN_SETTINGS,
    placements: Sequence[Placement] | None = None,
    faces: FaceSource = render_label,
    with_mat: bool = True,
) -> Scene:
    """Render one camera frame of a Big Top table and its ground truth.

    ``seats``: a number of players (positions drawn at random) or explicit chart
    positions 0..5. ``placements`` default to a random mid-hand table; a
    placement labelled ``none`` is a card-sized foreign object.
    """
    c = _compose(rng, seats, settings, placements, faces, with_mat)
    canvas, origin, top, truth, chosen, charts, placements = (c.canvas, c.origin, c.top, c.truth, c.chosen,
                                                               c.charts, c.placements)
    s = settings.render_px_per_mm
    gx0, gy0 = origin
    H = camera_homography(rng, settings)
    hand_cover = np.zeros(canvas.shape[:2], np.uint8)
    for _ in range(int(rng.integers(settings.hands[0], settings.hands[1] + 1))):
        _hand(rng, canvas, hand_cover, s, origin, CONTENT_REGION)
    if hand_cover.any():
        small = cv2.resize(hand_cover, (top.shape[1], top.shape[0]), interpolation=cv2.INTER_AREA)
        top[small > 127] = -3
    counts = np.bincount(top[top >= 0].ravel(), minlength=len(placements))
    W, Hh = settings.image_size
    frame_box = np.array([[0, 0], [W - 1, 0], [W - 1, Hh - 1], [0, Hh - 1]], np.float32)
    for i, p in enumerate(placements):
        if not p.visible:
            continue
        full = float(np.count_nonzero(_footprint_grid(p, (gx0, gy0), top.shape)))
        hidden = 1.0 - float(counts[i]) / max(full, 1.0)
        face = _face_footprint(p.label, p.x, p.y, p.angle)
        face_cells = _polygon_grid(face, (gx0, gy0), top.shape)
        covered = 1.0 - float(np.count_nonzero(top[face_cells] == i)) / max(float(np.count_nonzero(face_cells)), 1.0)
        seen = cv2.perspectiveTransform(face[None].astype(np.float64), H)[0].astype(np.float32)
        inside, _ = cv2.intersectConvexConvex(seen, frame_box)
        outside = 1.0 - float(inside) / max(float(cv2.contourArea(seen)), 1e-6)
        face_hidden = float(min(1.0, max(0.0, covered + max(0.0, outside))))
        truth.append(TruthItem(p.label, p.x, p.y, p.angle, float(min(1.0, max(0.0, hidden))), face_hidden))
    to_canvas = np.array([[1 / s, 0, origin[0]], [0, 1 / s, origin[1]], [0, 0, 1]])
    Hc = H @ to_canvas
    canvas = cv2.GaussianBlur(canvas.astype(np.float32), (0, 0), CANVAS_BLUR)
    fill = tuple(float(v) for v in canvas[:8, :8].reshape(-1, 3).mean(0))
    frame = cv2.warpPerspective(canvas, Hc, settings.image_size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    image = camera_effects(rng, frame, settings)
    return Scene(image, tuple(truth), H, chosen, charts)


def _face_footprint(label: str, x: float, y: float, angle: float) -> NDArray[Any]:
    """The printed face of a component (inside the white margin) as a convex polygon in table mm."""
    if label.startswith("token"):
        r = TOKEN.diameter / 2 - TOKEN.margin
        pts = [(x + r * math.cos(t), y + r * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 32, endpoint=False)]
        return np.array(pts, np.float32)
    box = cv2.boxPoints(((x, y), (CARD.width - 2 * CARD.margin, CARD.height - 2 * CARD.margin), -angle))
    return np.asarray(box, np.float32)


def _polygon_grid(poly: NDArray[Any], origin: tuple[float, float], shape: tuple[int, ...]) -> NDArray[Any]:
    """The 1-mm cells of the occupancy grid covered by a table-mm polygon."""
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(poly - np.array(origin, np.float32)).astype(np.int32)], 1)
    return m.astype(bool)


def _footprint_grid(p: Placement, origin: tuple[float, float], shape: tuple[int, ...]) -> NDArray[Any]:
    poly = _footprint(p.label, p.x, p.y, p.angle) - np.array(origin, np.float32)
    x0, y0 = np.floor(poly.min(0)).astype(int) - 1
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 2
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    return m.astype(bool)


def _paint(top: NDArray[Any], p: Placement, origin: tuple[float, float], value: int) -> None:
    poly = _footprint(p.label, p.x, p.y, p.angle) - np.array(origin, np.float32)
    cv2.fillPoly(top, [np.round(poly).astype(np.int32)], value)
