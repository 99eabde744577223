"""An independent camera model for benchmarks: a clean top-down table image -> a photo.

This is deliberately NOT the training augmentation (`vision.bigtop.scene.camera_homography`
and ``camera_effects``): it is other code with other physics, so that a recogniser is
judged on images it was not tuned to. It is game-agnostic: its input is any clean
rendering of the table seen from straight above, in table millimetres.

The camera, in order of the light's path:

* geometry: a pinhole camera above the table, tilted away from straight down, rolled
  about its optical axis, with barrel lens distortion (a radial polynomial), zoomed so
  the content region fills the frame;
* light: white balance (per-channel gains), exposure, vignetting (cos^4-like falloff
  with the distance from the optical centre), specular glare spots that saturate;
* a hand: an arm with fingers reaching into the frame, near the lens (out of focus),
  casting a soft shadow; its pixels are reported (`Photo.hand_mask`);
* optics and motion: defocus as a disc (pillbox) kernel, linear motion blur;
* sensor: signal-dependent shot noise plus read noise, sRGB gamma, JPEG (4:2:0).

Every length in pixels is given for a 1280 px wide frame and scales with the frame.
Levels (`LEVELS`) are named ``easy``, ``medium``, ``hard`` and ``extreme``; each is
harder than the one before in every effect, and ``medium`` and above are harsher
than the training augmentation.

>>> import numpy as np
>>> canvas = np.full((400, 600, 3), 200.0, np.float32)
>>> photo = photograph(canvas, 2.0, (0.0, 0.0), (0.0, 0.0, 300.0, 200.0), "easy", seed=1, size=(640, 480))
>>> photo.image.shape
(480, 640, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["LEVELS", "CameraLevel", "Photo", "photograph"]

FloatArray = NDArray[Any]


@dataclass(frozen=True, slots=True)
class CameraLevel:
    """The ranges one level samples from (uniformly). Pixel lengths are for a 1280 px wide frame."""

    name: str
    #: angle between the optical axis and straight down (degrees)
    tilt_deg: tuple[float, float]
    #: barrel distortion: k1 of the normalised-radius polynomial (negative is barrel)
    barrel_k1: tuple[float, float]
    #: per-channel white-balance gain error (fraction, each of B, G, R independently)
    white_balance: float
    #: exposure (linear-light gain)
    exposure: tuple[float, float]
    #: light lost at the frame corners (fraction)
    vignetting: tuple[float, float]
    #: number of glare spots, and their peak (linear light, 1 = white)
    glare_spots: tuple[int, int]
    glare_peak: tuple[float, float]
    #: chance of a hand in the frame
    hand_probability: float
    #: defocus disc radius and motion blur length (px at 1280)
    defocus_px: tuple[float, float]
    motion_px: tuple[float, float]
    #: read noise (grey levels) and shot-noise scale (grey levels at full white)
    read_noise: tuple[float, float]
    shot_noise: tuple[float, float]
    jpeg_quality: tuple[int, int]
    #: fraction of the frame left around the content region
    margin: tuple[float, float]
    #: roll about the optical axis: up to this (degrees) either way, or any angle with this chance
    roll_deg: float = 20.0
    roll_any: float = 0.25


LEVELS: dict[str, CameraLevel] = {
    "easy": CameraLevel("easy", (0.0, 8.0), (-0.04, 0.0), 0.06, (0.85, 1.1), (0.0, 0.15), (0, 1),
                        (0.3, 0.6), 0.2, (0.0, 0.6), (0.0, 0.8), (0.5, 1.5), (1.0, 3.0), (85, 95),
                        (0.02, 0.05)),
    "medium": CameraLevel("medium", (6.0, 22.0), (-0.10, -0.03), 0.15, (0.55, 1.05), (0.15, 0.35), (1, 2),
                          (0.6, 1.2), 0.6, (0.6, 1.5), (0.5, 2.5), (1.5, 3.5), (3.0, 6.0), (65, 85),
                          (0.01, 0.04)),
    "hard": CameraLevel("hard", (15.0, 30.0), (-0.18, -0.08), 0.25, (0.4, 0.9), (0.3, 0.5), (1, 3),
                        (1.0, 2.0), 0.9, (1.2, 2.4), (1.5, 4.5), (2.5, 5.0), (5.0, 9.0), (45, 70),
                        (0.0, 0.03)),
    "extreme": CameraLevel("extreme", (25.0, 38.0), (-0.25, -0.15), 0.35, (0.3, 0.7), (0.45, 0.65), (2, 4),
                           (1.5, 3.0), 1.0, (2.0, 3.5), (3.0, 7.0), (4.0, 7.0), (8.0, 13.0), (30, 55),
                           (0.0, 0.02)),
}


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo of the table and the ground-truth mapping from table millimetres to its pixels."""

    image: NDArray[np.uint8]
    level: str
    #: camera intrinsics (pixels), rotation (world -> camera) and centre (table mm, z up)
    K: FloatArray
    R: FloatArray
    centre: FloatArray
    k1: float
    #: 255 where the hand covers the frame
    hand_mask: NDArray[np.uint8]

    def to_image(self, points_mm: FloatArray) -> FloatArray:
        """Table millimetres ``(N, 2)`` -> photo pixels ``(N, 2)`` (lens distortion included)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        return _project(pts, self.K, self.R, self.centre, self.k1)


def _rotation(axis: FloatArray, angle: float) -> FloatArray:
    r, _ = cv2.Rodrigues(np.asarray(axis, np.float64) * angle)
    return np.asarray(r, np.float64)


def _distort_radius_factor(rn2: FloatArray, k1: float) -> FloatArray:
    """Ideal normalised radius^2 -> the factor the distorted radius is the ideal one times."""
    return np.asarray(1.0 + k1 * rn2, np.float64)


def _project(pts: FloatArray, K: FloatArray, R: FloatArray, centre: FloatArray, k1: float) -> FloatArray:
    world = np.column_stack([pts, np.zeros(len(pts))]) - centre[None, :]
    cam = world @ R.T
    xn = cam[:, 0] / cam[:, 2]
    yn = cam[:, 1] / cam[:, 2]
    f = _distort_radius_factor(xn * xn + yn * yn, k1)
    return np.column_stack([K[0, 0] * xn * f + K[0, 2], K[1, 1] * yn * f + K[1, 2]])


def _undistort(xd: FloatArray, yd: FloatArray, k1: float) -> tuple[FloatArray, FloatArray]:
    """Distorted normalised coordinates -> ideal ones (fixed-point iteration of the radial model)."""
    xu, yu = xd.copy(), yd.copy()
    for _ in range(6):
        f = _distort_radius_factor(xu * xu + yu * yu, k1)
        xu, yu = xd / f, yd / f
    return xu, yu


def _pose(rng: np.random.Generator, lv: CameraLevel, region: tuple[float, float, float, float],
          size: tuple[int, int]) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """Camera intrinsics, rotation, centre and k1 framing ``region`` in a ``size`` frame."""
    w, h = size
    x0, y0, x1, y1 = region
    target = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    tilt = math.radians(float(rng.uniform(*lv.tilt_deg)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    any_roll = rng.random() < lv.roll_any
    roll = float(rng.uniform(-math.pi, math.pi)) if any_roll else math.radians(float(rng.uniform(-1, 1)) * lv.roll_deg)
    # table frame: x right, y down the mat, z into the table (right-handed), so a camera
    # looking straight down has the table's axes; it hangs at negative z
    tilt_r = _rotation(np.array([math.cos(azimuth), math.sin(azimuth), 0.0]), tilt)
    roll_r = _rotation(np.array([0.0, 0.0, 1.0]), roll)
    R = roll_r @ tilt_r.T
    axis_world = R.T @ np.array([0.0, 0.0, 1.0])
    distance = 1.4 * max(x1 - x0, y1 - y0)
    centre = target - distance * axis_world
    k1 = float(rng.uniform(*lv.barrel_k1))
    margin = float(rng.uniform(*lv.margin))
    corners = np.array([[x, y] for x in np.linspace(x0, x1, 9) for y in np.linspace(y0, y1, 9)])
    K = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1]])
    pts = _project(corners, K, R, centre, k1)
    span = pts.max(0) - pts.min(0)
    fpx = min(w * (1 - 2 * margin) / span[0], h * (1 - 2 * margin) / span[1])
    mid = (pts.max(0) + pts.min(0)) / 2
    # the optical centre stays near the frame centre: the content may sit off-centre
    K = np.array([[fpx, 0, w / 2 - fpx * mid[0]], [0, fpx, h / 2 - fpx * mid[1]], [0, 0, 1]])
    return K, R, centre, k1


def _hand(rng: np.random.Generator, size: tuple[int, int], unit: float) -> NDArray[np.uint8]:
    """An arm with four fingers reaching in from a frame edge, as a soft 0..255 mask."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    edge = int(rng.integers(4))
    t = float(rng.uniform(0.1, 0.9))
    start = [(t * w, -20.0), (w + 20.0, t * h), (t * w, h + 20.0), (-20.0, t * h)][edge]
    inward = [math.pi / 2, math.pi, -math.pi / 2, 0.0][edge] + float(rng.uniform(-0.6, 0.6))
    reach = float(rng.uniform(0.15, 0.4)) * min(w, h)
    arm_w = float(rng.uniform(90, 140)) * unit
    wrist = (start[0] + reach * math.cos(inward), start[1] + reach * math.sin(inward))
    cv2.line(mask, (int(start[0]), int(start[1])), (int(wrist[0]), int(wrist[1])), 255, int(arm_w), cv2.LINE_AA)
    palm = (wrist[0] + 0.45 * arm_w * math.cos(inward), wrist[1] + 0.45 * arm_w * math.sin(inward))
    cv2.ellipse(mask, (int(palm[0]), int(palm[1])), (int(0.6 * arm_w), int(0.5 * arm_w)),
                math.degrees(inward), 0, 360, 255, -1, cv2.LINE_AA)
    spread = float(rng.uniform(0.15, 0.35))
    for k in range(4):
        a = inward + (k - 1.5) * spread
        base = (palm[0] + 0.35 * arm_w * math.cos(a), palm[1] + 0.35 * arm_w * math.sin(a))
        length = float(rng.uniform(0.7, 1.0)) * arm_w
        tip = (base[0] + length * math.cos(a), base[1] + length * math.sin(a))
        cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255,
                 max(2, int(0.2 * arm_w)), cv2.LINE_AA)
    return mask


def _disc_kernel(radius: float) -> FloatArray:
    r = max(radius, 0.5)
    n = int(math.ceil(r)) * 2 + 1
    yy, xx = np.mgrid[:n, :n] - n // 2
    # supersampled pillbox: the share of each cell inside the circle
    k = np.zeros((n, n), np.float64)
    for dy in (-0.25, 0.25):
        for dx in (-0.25, 0.25):
            k += ((xx + dx) ** 2 + (yy + dy) ** 2 <= r * r)
    out: FloatArray = k / k.sum()
    return out


def _motion_kernel(length: float, angle: float) -> FloatArray:
    n = int(math.ceil(length)) | 1
    n = max(n, 3)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(k, (int(round(c * 16 - dx * 16)), int(round(c * 16 - dy * 16))),
             (int(round(c * 16 + dx * 16)), int(round(c * 16 + dy * 16))), 1.0, 1, cv2.LINE_AA, shift=4)
    s = float(k.sum())
    if s <= 0:
        k[c, c] = 1.0
        s = 1.0
    return np.asarray(k / s, np.float64)


def photograph(canvas: FloatArray, px_per_mm: float, origin: tuple[float, float],
               region: tuple[float, float, float, float], level: str | CameraLevel, seed: int,
               size: tuple[int, int] = (1280, 960), with_hand: bool = True) -> Photo:
    """Photograph a clean top-down table image with the camera of ``level``.

    ``canvas``: BGR (uint8 or float 0..255) seen from straight above; table millimetre
    (x, y) is canvas pixel ``((x - origin[0]) * px_per_mm, (y - origin[1]) * px_per_mm)``.
    ``region``: the table rectangle (x0, y0, x1, y1 mm) the camera frames. The same
    ``seed``, level and size give the same photo. ``level``: a name in `LEVELS` or a
    `CameraLevel` of one's own. ``with_hand=False`` gives the same photo
    with its hand (if it has one) left out: the frame before the hand reached in.

    :raises ValueError: for an unknown level name.
    """
    if isinstance(level, CameraLevel):
        lv = level
    elif level in LEVELS:
        lv = LEVELS[level]
    else:
        raise ValueError(f"unknown camera level {level!r}: choose one of {', '.join(LEVELS)}")
    tag = list(LEVELS).index(lv.name) if lv.name in LEVELS else len(LEVELS)
    rng = np.random.default_rng([seed, tag, size[0], size[1]])
    w, h = size
    unit = w / 1280.0
    K, R, centre, k1 = _pose(rng, lv, region, size)

    # geometry: every photo pixel -> its ray -> the table plane -> a canvas pixel
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    xd = (u - K[0, 2]) / K[0, 0]
    yd = (v - K[1, 2]) / K[1, 1]
    xu, yu = _undistort(xd, yd, k1)
    rays = np.stack([xu, yu, np.ones_like(xu)], axis=-1) @ R  # camera -> world (R orthonormal)
    t = -centre[2] / rays[..., 2]
    tx = centre[0] + t * rays[..., 0]
    ty = centre[1] + t * rays[..., 1]
    map_x = ((tx - origin[0]) * px_per_mm).astype(np.float32)
    map_y = ((ty - origin[1]) * px_per_mm).astype(np.float32)
    # anti-aliasing before resampling: the canvas is finer than the photo
    mm_per_px = float(np.median(np.hypot(np.diff(tx[h // 2]), np.diff(ty[h // 2]))))
    shrink = px_per_mm * mm_per_px
    src: FloatArray = np.asarray(canvas, np.float32)
    if shrink > 1.2:
        src = cv2.GaussianBlur(src, (0, 0), 0.45 * shrink)
    linear = (np.clip(src, 0, 255) / 255.0) ** 2.2
    table_rgb = np.asarray(linear[:8, :8].reshape(-1, 3).mean(0), np.float32)
    img: FloatArray = cv2.remap(linear.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=tuple(float(c) for c in table_rgb))

    # light: exposure, white balance, vignetting, glare
    gains = 1.0 + rng.uniform(-lv.white_balance, lv.white_balance, 3)
    img *= (float(rng.uniform(*lv.exposure)) * gains).astype(np.float32)[None, None, :]
    r2 = ((u - w / 2) ** 2 + (v - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    loss = float(rng.uniform(*lv.vignetting))
    img *= (1.0 - loss * r2 ** 1.2).astype(np.float32)[:, :, None]
    for _ in range(int(rng.integers(lv.glare_spots[0], lv.glare_spots[1] + 1))):
        spot: FloatArray = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0.05, 0.95) * w), int(rng.uniform(0.05, 0.95) * h))
        axes = (int(rng.uniform(25, 90) * unit), int(rng.uniform(12, 45) * unit))
        cv2.ellipse(spot, c, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(0.2, 0.5)) * axes[1] + 1)
        tint = np.array([1.0, 0.98, 0.95], np.float32)
        img += (float(rng.uniform(*lv.glare_peak)) * spot)[:, :, None] * tint[None, None, :]

    # the hand, near the lens: soft-edged, with a shadow on the table beside it
    hand: NDArray[np.uint8] = np.zeros((h, w), np.uint8)
    if rng.random() < lv.hand_probability:
        hand = _hand(rng, size, unit)
        if not with_hand:
            hand = np.zeros((h, w), np.uint8)
        off = (int(rng.uniform(10, 30) * unit), int(rng.uniform(10, 30) * unit))
        shadow: FloatArray = np.roll(hand, off, axis=(0, 1)).astype(np.float32) / 255.0
        shadow = cv2.GaussianBlur(shadow, (0, 0), 12 * unit)
        img *= (1.0 - 0.5 * shadow)[:, :, None]
        soft = cv2.GaussianBlur(hand.astype(np.float32) / 255.0, (0, 0), 3 * unit)[:, :, None]
        skin = (np.array(rng.choice([(0.25, 0.35, 0.55), (0.12, 0.18, 0.32), (0.05, 0.08, 0.15),
                                     (0.35, 0.45, 0.62)]), np.float32) * float(rng.uniform(0.7, 1.2)))
        shade: FloatArray = 0.75 + 0.25 * cv2.GaussianBlur(rng.random((h // 16 + 1, w // 16 + 1)).astype(np.float32),
                                               (0, 0), 2)
        shade = cv2.resize(shade, (w, h))[:, :, None]
        img = img * (1 - soft) + skin[None, None, :] * shade * soft

    # optics and motion
    radius = float(rng.uniform(*lv.defocus_px)) * unit
    if radius > 0.3:
        img = cv2.filter2D(img, -1, _disc_kernel(radius), borderType=cv2.BORDER_REFLECT)
    length = float(rng.uniform(*lv.motion_px)) * unit
    if length > 0.5:
        img = cv2.filter2D(img, -1, _motion_kernel(length, float(rng.uniform(0, math.pi))),
                           borderType=cv2.BORDER_REFLECT)

    # sensor: shot and read noise on the linear signal, then sRGB-like gamma and JPEG
    lin = np.clip(img, 0.0, 1.0)
    shot = float(rng.uniform(*lv.shot_noise)) / 255.0
    read = float(rng.uniform(*lv.read_noise)) / 255.0
    sigma = np.sqrt(shot * shot * lin + read * read).astype(np.float32)
    lin = np.clip(lin + sigma * rng.standard_normal(lin.shape, dtype=np.float32), 0.0, 1.0)
    out8 = np.clip(255.0 * lin ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)
    q = int(rng.integers(lv.jpeg_quality[0], lv.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, q, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                                          cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    image = np.asarray(out8 if decoded is None else decoded, np.uint8)
    return Photo(image, lv.name, K, R, centre, k1, hand)
