"""The benchmark's independent camera: a top-down board picture becomes a photo.

This code is kept apart from the training augmentations (`vision.carcassonne.dataset`)
and is harsher than them: a tilted view of the table plane (perspective up to
35 degrees), barrel or pincushion lens distortion, defocus and motion blur,
vignetting, white balance off, streaks and pools of glare from a glossy table,
sensor noise and JPEG. `LEVELS` names three settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["LEVELS", "CameraLevel", "Photo", "photograph"]


@dataclass(frozen=True, slots=True)
class CameraLevel:
    """Ranges the camera draws from (each effect uniform in its range)."""

    name: str
    tilt_deg: float
    yaw_deg: float
    distortion: float
    blur: float
    noise: float
    glare: int
    white_balance: float
    jpeg: tuple[int, int]


LEVELS: dict[str, CameraLevel] = {
    "overhead": CameraLevel("overhead", 5.0, 3.0, 0.02, 0.8, 3.0, 0, 0.08, (85, 95)),
    "typical": CameraLevel("typical", 20.0, 6.0, 0.06, 1.4, 6.0, 2, 0.15, (70, 92)),
    "hard": CameraLevel("hard", 35.0, 10.0, 0.1, 2.2, 10.0, 4, 0.25, (50, 85)),
}


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo and the map from the board picture's pixels to the photo's (before lens distortion)."""

    image: NDArray[Any]
    homography: NDArray[Any]
    distortion: float

    def project(self, pts: NDArray[Any]) -> NDArray[Any]:
        """Board-picture points ``(N, 2)`` -> photo pixels (lens distortion included)."""
        p = cv2.perspectiveTransform(np.asarray(pts, dtype=np.float32).reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        h, w = self.image.shape[:2]
        c = np.array([w / 2, h / 2], np.float32)
        r = (p - c) / max(w, h)
        out: NDArray[Any] = c + (p - c) * (1 + self.distortion * (r**2).sum(axis=1, keepdims=True))
        return out


def _homography(w: int, h: int, out: tuple[int, int], tilt: float, yaw: float, fill: float) -> NDArray[Any]:
    """Board picture (w x h) on the table plane, seen by a pinhole camera pitched by ``tilt``."""
    corners = np.asarray([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    pts = np.c_[corners - [w / 2, h / 2], np.zeros(4)].astype(np.float64)
    t, y = np.deg2rad(tilt), np.deg2rad(yaw)
    rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    cam = (rx @ rz @ pts.T).T
    cam[:, 2] += 1.6 * max(w, h)
    proj = cam[:, :2] / cam[:, 2:3]
    proj -= proj.mean(axis=0)
    span = proj.max(axis=0) - proj.min(axis=0)
    scale = fill * min(out[0] / span[0], out[1] / span[1])
    dst = proj * scale + [out[0] / 2, out[1] / 2]
    m: NDArray[Any] = cv2.getPerspectiveTransform(corners, np.asarray(dst, dtype=np.float32))
    return m


def photograph(board: NDArray[Any], level: CameraLevel, rng: np.random.Generator, size: tuple[int, int] = (2304, 1296),
               subject: tuple[float, float, float, float] | None = None) -> Photo:
    """Photograph a top-down board picture with the camera ``level`` at ``size`` (width, height).

    ``subject`` (x0, y0, x1, y1 in the picture) is what the photographer frames (the
    tiles); by default the whole picture. The picture should hold enough bare table
    around the subject to fill the frame; beyond it the table is mirrored.
    """
    w, h = board.shape[1], board.shape[0]
    x0, y0, x1, y1 = subject if subject is not None else (0.0, 0.0, float(w), float(h))
    tilt = rng.uniform(0, level.tilt_deg)
    yaw = rng.uniform(-level.yaw_deg, level.yaw_deg)
    fill = rng.uniform(0.6, 0.92)
    frame = np.asarray([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], dtype=np.float32).reshape(-1, 1, 2)
    for _ in range(8):  # zoom in until the frame sees only the picture
        inner = _homography(int(x1 - x0), int(y1 - y0), size, tilt, yaw, fill)
        hmat = inner @ np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
        seen = cv2.perspectiveTransform(frame, np.linalg.inv(hmat)).reshape(-1, 2)
        if (seen >= -1).all() and (seen[:, 0] <= w + 1).all() and (seen[:, 1] <= h + 1).all():
            break
        fill *= 1.08
    # the table continues beyond the drawn picture (its margin is bare table): mirror it
    img: NDArray[Any] = cv2.warpPerspective(board, hmat, size, flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REFLECT_101).astype(np.float32)
    k = rng.uniform(-level.distortion, level.distortion)
    if abs(k) > 1e-4:
        yy, xx = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
        cx, cy = size[0] / 2, size[1] / 2
        # inverse of p_d = c + (p - c)(1 + k r^2), one fixed-point step is enough for small k
        rx, ry = (xx - cx) / max(size), (yy - cy) / max(size)
        f = 1 + k * (rx**2 + ry**2)
        img = cv2.remap(img, (cx + (xx - cx) / f).astype(np.float32), (cy + (yy - cy) / f).astype(np.float32), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    # glare: long soft streaks and pools of reflected light
    for _ in range(int(rng.integers(0, level.glare + 1))):
        spot: NDArray[Any] = np.zeros((size[1] // 4, size[0] // 4), np.float32)
        c = (int(rng.uniform(0, size[0] // 4)), int(rng.uniform(0, size[1] // 4)))
        axes = (int(rng.uniform(20, 160)), int(rng.uniform(6, 40)))
        cv2.ellipse(spot, c, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        spot = cv2.resize(cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(4, 15))), size)
        img += (float(rng.uniform(60, 200)) * spot)[:, :, None]
    # vignetting and white balance
    yy, xx = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    r2 = ((xx - size[0] / 2) ** 2 + (yy - size[1] / 2) ** 2) / (max(size) / 2) ** 2
    img *= (1 - rng.uniform(0, 0.3) * r2)[:, :, None]
    img *= (1 + rng.uniform(-level.white_balance, level.white_balance, 3)).astype(np.float32)
    img *= float(rng.uniform(0.7, 1.15))
    sigma = rng.uniform(0.3, level.blur)
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.5:
        length = int(rng.integers(2, 2 + int(3 * level.blur)))
        kern: NDArray[Any] = np.zeros((length, length), np.float32)
        kern[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, rot, (length, length))
        kern = (kern / max(float(kern.sum()), 1e-6)).astype(np.float32)
        img = cv2.filter2D(img, -1, kern)
    img += rng.normal(0, rng.uniform(1, level.noise), img.shape).astype(np.float32)
    out: NDArray[Any] = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*level.jpeg))])
    if ok:
        out = np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR))
    return Photo(out, hmat, float(k))
