"""Find cards (quads) and tokens (discs) in the rectified top-down image.

Every printed component has a white rim and a dark frame line around its face
field. The face field is a hole in the mask of locally dark pixels, so cards
that touch, lie rotated or upside down, or sit on a pile still give one clean
hole each. Sizes are checked against the expected face field, scaled from the
mat.

Dim light, defocus and a dark table can thin the frame line until it breaks in
a pixel or two; the field then leaks into the rim or the table and is no
longer a hole. Three further cues find such components:

* the frame line itself: a dark component whose outline is the frame's outer
  rectangle (or a token's ring), even with a gap in it;
* a leaky hole the size of the whole card (field and rim joined through a gap),
  located by the frame line inside it;
* the holes of the mask after closing one-pixel gaps;
* a card-sized blob brighter than the table around it: the white card itself,
  whose frame line may be broken in several places (or, on a light table,
  whose rim shows no edge), fitted as a face field or as a whole card.

Each cue gives the component's centre and orientation; the face field's size
is a printed fact, so every detection carries the expected field size and all
cues give the same crop geometry. A card hidden by another card or a hand has
no frame line left to find and is not reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Rectified
from vision.config import VisionConfig
from vision.geometry import Image, Kind

__all__ = ["Detection", "dark_mask", "find_components", "find_components_near", "warp_crops"]

FloatArray = NDArray[Any]


@dataclass(frozen=True, slots=True)
class Detection:
    """A component candidate: its shape and the face-field corners in rectified pixels.

    ``corners`` run top-left, top-right, bottom-right, bottom-left of the face
    as it is warped to the classifier (a card's long side is vertical, so the
    face may come out upside down; the classifier is trained for that).
    """

    kind: Kind
    corners: FloatArray
    centre: tuple[float, float]
    #: direction of the face's "up" on the table, degrees counter-clockwise from table -y
    angle: float


def dark_mask(gray: Image, config: VisionConfig) -> Image:
    """Pixels clearly darker than their neighbourhood (frame lines, ink).

    The test is relative (a fraction of the local mean), so dim or shadowed
    parts of the table keep their frame lines; the grey image is smoothed a
    little first and a pixel must also be a few grey levels darker, so sensor
    noise in very dark regions does not riddle the face fields.
    """
    field_w = config.card_field_px[0]
    block = max(int(field_w * config.threshold_window) | 1, 3)
    mean = cv2.blur(gray, (block, block))
    sigma = config.smoothing * field_w
    g = cv2.GaussianBlur(gray, (0, 0), sigma) if sigma > 0.05 else gray
    # |a*mean - b| rounded: only means below b/a (black, outside the camera's view) come out wrong
    thr = cv2.convertScaleAbs(mean, alpha=1.0 - config.threshold_ratio, beta=-config.threshold_offset)
    mask: Image = cv2.compare(g, thr, cv2.CMP_LT)
    return mask


class _Geometry:
    """Expected sizes in rectified pixels, computed once per call."""

    def __init__(self, config: VisionConfig) -> None:
        s = config.px_per_mm
        self.config = config
        self.cw, self.ch = config.card_field_px
        self.card_area = self.cw * self.ch
        #: the frame line's outer rectangle and the whole card
        card, token = config.table.card, config.table.token
        self.frame_px = card.frame * s
        self.fo_w, self.fo_h = self.cw + 2 * self.frame_px, self.ch + 2 * self.frame_px
        self.co_w, self.co_h = card.width * s, card.height * s
        self.r_tok = config.token_field_radius_px
        self.token_area = math.pi * self.r_tok * self.r_tok
        #: outer radius of a token's ring
        self.r_ring = self.r_tok + token.frame * s
        # bounding boxes a frame's outline can have at any rotation: (min side, max side) ranges
        tol = config.frame_side_tolerance
        self.frame_bbox_short = ((1 - tol) * self.fo_w - 2, (1 + tol) * (self.fo_w + self.fo_h) / math.sqrt(2) + 2)
        self.frame_bbox_long = ((1 - tol) * self.fo_h - 2, (1 + tol) * math.hypot(self.fo_w, self.fo_h) + 2)
        self.ring_bbox = (1.5 * self.r_ring, 2.5 * self.r_ring)


def _card(c: NDArray[Any], g: _Geometry, w_exp: float, h_exp: float, tol: float) -> Detection | None:
    """A card whose outline (hull of ``c``) is a ``w_exp`` x ``h_exp`` rectangle within ``tol``."""
    config = g.config
    hull = cv2.convexHull(c)
    area = cv2.contourArea(hull)
    lo, hi = config.card_area_range
    if not lo * w_exp * h_exp <= area <= hi * w_exp * h_exp:
        return None
    (cx, cy), (w, h), ang = cv2.minAreaRect(hull)
    short, long_ = sorted((w, h))
    if abs(short - w_exp) > tol * w_exp or abs(long_ - h_exp) > tol * h_exp:
        return None
    if area / max(w * h, 1e-6) < config.min_rectangularity:
        return None
    return _card_at(cx, cy, w, h, ang, g)


def _card_at(cx: float, cy: float, w: float, h: float, ang: float, g: _Geometry) -> Detection:
    """A card of the expected field size on the long axis of OpenCV's rotated rectangle ``(w, h, ang)``.

    The corners come in `_order_card`'s order: the first edge is the top short side,
    the top being the end nearer the image top, clockwise.
    """
    a = math.radians(ang)
    # OpenCV draws the w side along (cos, sin) and the h side along (sin, -cos)
    ux, uy = (math.cos(a), math.sin(a)) if w >= h else (math.sin(a), -math.cos(a))
    if uy > 0 or (uy == 0 and ux > 0):
        ux, uy = -ux, -uy
    rx, ry = -uy, ux
    hw, hh = g.cw / 2, g.ch / 2
    pts = np.array([[cx + ux * hh - rx * hw, cy + uy * hh - ry * hw],
                    [cx + ux * hh + rx * hw, cy + uy * hh + ry * hw],
                    [cx - ux * hh + rx * hw, cy - uy * hh + ry * hw],
                    [cx - ux * hh - rx * hw, cy - uy * hh - ry * hw]], np.float64)
    angle = math.degrees(math.atan2(-ux, -uy)) % 360
    return Detection(Kind.CARD, pts, (float(cx), float(cy)), angle)


def _token(c: NDArray[Any], g: _Geometry, r_exp: float, area: float | None = None) -> Detection | None:
    """A token whose outline ``c`` is a disc of radius ``r_exp``."""
    config = g.config
    lo, hi = config.token_area_range
    if area is None:
        area = cv2.contourArea(c)
    expected = math.pi * r_exp * r_exp
    if not lo * expected <= area <= hi * expected:
        return None
    perimeter = cv2.arcLength(c, True)
    if perimeter <= 0 or 4 * math.pi * area / (perimeter * perimeter) < config.min_circularity:
        return None
    (cx, cy), rad = cv2.minEnclosingCircle(c)
    if abs(rad - r_exp) > 0.25 * r_exp:
        return None
    r = g.r_tok
    pts = np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.float64)
    return Detection(Kind.TOKEN, pts, (float(cx), float(cy)), 0.0)


def _is_frame_line(c: NDArray[Any], det: Detection, g: _Geometry) -> bool:
    """Whether most of outline ``c`` runs along the frame line of ``det`` (not artwork or clutter)."""
    pts = c.reshape(-1, 2).astype(np.float64) - np.array(det.centre)
    f = g.frame_px
    if det.kind is Kind.TOKEN:
        depth = g.r_ring - np.hypot(pts[:, 0], pts[:, 1])
    else:
        ax = det.corners[1] - det.corners[0]
        ax /= np.linalg.norm(ax)
        u = np.abs(pts @ ax)
        v = np.abs(pts @ np.array([-ax[1], ax[0]]))
        depth = np.minimum(g.fo_w / 2 - u, g.fo_h / 2 - v)
    near = (depth > -1.5) & (depth < 2.0 * f)
    return bool(np.mean(near) >= g.config.frame_line_share)


def _from_hole(c: NDArray[Any], area: float, g: _Geometry) -> Detection | None:
    det = None
    if area >= 0.3 * g.config.card_area_range[0] * g.card_area:
        det = _card(c, g, g.cw, g.ch, g.config.card_side_tolerance)
    if det is None and area <= g.config.token_area_range[1] * g.token_area:
        det = _token(c, g, g.r_tok, area)
    return det


#: a token's field that closing joined to its value is still at least this share of a field (the value is smaller)
_CRESCENT = 0.5


def _unclosed_token(c: NDArray[Any], unclosed: Image, g: _Geometry) -> Detection | None:
    """A token whose field is the hole ``c`` of the closed dark mask, found in the mask as it was (``unclosed``):
    closing a gap between the token's value and its ring can turn the field's round hole into a crescent.
    Looked for only where ``c`` spans a token's field (`_token`'s radius test), in a window around it."""
    (_, _), rad = cv2.minEnclosingCircle(c)
    if abs(rad - g.r_tok) > 0.25 * g.r_tok:
        return None
    x, y, w, h = cv2.boundingRect(c)
    pad = 3
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    part = unclosed[y0:y + h + pad, x0:x + w + pad]
    contours, hierarchy = cv2.findContours(part, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0))
    if hierarchy is None:
        return None
    lo, hi = g.config.token_area_range
    for i in np.flatnonzero(hierarchy[0][:, 3] >= 0).tolist():
        area = cv2.contourArea(contours[i])
        if lo * g.token_area <= area <= hi * g.token_area:
            det = _token(contours[i], g, g.r_tok, area)
            if det is not None:
                return det
    return None


def _from_leaky_hole(c: NDArray[Any], gray: Image, mask: Image, g: _Geometry) -> Detection | None:
    """A hole the size of a whole card: the field joined to the rim through a gap in the frame.

    The frame line is still inside it: the hull of the dark pixels within the
    hole is the frame's outer rectangle.
    """
    tol = g.config.frame_side_tolerance
    (_, _), (hw, hh), _ = cv2.minAreaRect(c)
    short, long_ = sorted((hw, hh))
    if abs(short - g.co_w) > 2.5 * tol * g.co_w or abs(long_ - g.co_h) > 2.5 * tol * g.co_h:
        return None
    x, y, w, h = cv2.boundingRect(c)
    roi = np.zeros((h, w), np.uint8)
    local = c - np.array([x, y], np.int32)
    cv2.drawContours(roi, [local], -1, 255, -1)
    inner = cv2.bitwise_and(roi, mask[y:y + h, x:x + w])
    # the hole's own contour runs on the dark pixels around it
    cv2.drawContours(inner, [local], -1, 0, 1)
    pieces, _ = cv2.findContours(inner, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pts = [p for p in pieces if len(p) > 2]
    if pts:
        # the hole's size already says "card": the frame inside may be fitted as loosely as a field
        det = _card(np.concatenate(pts) + np.array([x, y], np.int32), g, g.fo_w, g.fo_h,
                    g.config.card_side_tolerance)
        if det is not None:
            return det
    # the frame line merged with the hole's edge: the hole itself is the card, if it is
    # brighter than what lies around it (a white card, not the dark face of a phone)
    pad = 4
    if x < pad or y < pad or x + w + pad > gray.shape[1] or y + h + pad > gray.shape[0]:
        return None
    inside = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    inside[pad:pad + h, pad:pad + w] = roi
    around = cv2.subtract(cv2.dilate(inside, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8)), inside)
    patch = gray[y - pad:y + h + pad, x - pad:x + w + pad]
    if cv2.mean(patch, inside)[0] <= cv2.mean(patch, around)[0] * (1.0 + g.config.threshold_ratio):
        return None
    return _card(c, g, g.co_w, g.co_h, 2.5 * tol)


def _holes_and_frames(gray: Image, mask: Image, g: _Geometry, frames: bool,
                      unclosed: Image | None = None) -> tuple[list[Detection], list[Detection]]:
    """(hole detections, detections from the other cues) in one dark mask. ``unclosed``: when ``mask`` is that
    mask with its gaps closed, a token-sized hole that is no disc is looked for there too (`_unclosed_token`)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return [], []
    config = g.config
    hier = hierarchy[0]
    holes: list[Detection] = []
    extra: list[Detection] = []
    lo = 0.15 * g.token_area
    hi = 2.2 * g.card_area
    token_hi = config.token_area_range[1] * g.token_area
    parents: set[int] = set()
    for i in np.flatnonzero(hier[:, 3] >= 0).tolist():
        c = contours[i]
        area = cv2.contourArea(c)
        if not lo <= area <= hi:
            continue
        det = _from_hole(c, area, g)
        if det is None and unclosed is not None and _CRESCENT * g.token_area <= area <= token_hi:
            det = _unclosed_token(c, unclosed, g)
        if det is not None:
            holes.append(det)
        elif not frames:
            continue
        elif area <= token_hi:
            # a token's field cut in pieces by its value touching the ring
            parents.add(int(hier[i, 3]))
        elif area > g.card_area:
            det = _from_leaky_hole(c, gray, mask, g)
            if det is not None:
                extra.append(det)
    if not frames:
        return holes, extra
    for p in parents:
        det = _token(contours[p], g, g.r_ring)
        if det is not None:
            extra.append(det)
    # frame lines with a gap: dark components whose outline is a frame's outer edge
    lens = np.fromiter(map(len, contours), np.int64, len(contours))
    (s_lo, s_hi), (l_lo, l_hi), (r_lo, r_hi) = g.frame_bbox_short, g.frame_bbox_long, g.ring_bbox
    tol = config.frame_side_tolerance
    for i in np.flatnonzero((hier[:, 3] < 0) & (lens >= config.frame_min_points)).tolist():
        c = contours[i]
        _, _, w, h = cv2.boundingRect(c)
        short, long_ = (w, h) if w < h else (h, w)
        if s_lo <= short <= s_hi and l_lo <= long_ <= l_hi:
            kind = Kind.CARD
        elif r_lo <= short and long_ <= r_hi:
            kind = Kind.TOKEN
        else:
            continue
        # a frame line is a thin ring: its own area is a small part of its hull's
        hull = cv2.convexHull(c)
        hull_area = cv2.contourArea(hull)
        if cv2.contourArea(c) > config.max_ring_fill * hull_area:
            continue
        det = _card(hull, g, g.fo_w, g.fo_h, tol) if kind is Kind.CARD else _token(hull, g, g.r_ring, hull_area)
        if det is not None and _is_frame_line(c, det, g):
            extra.append(det)
    return holes, extra


def _mask_passes(gray: Image, mask: Image, g: _Geometry) -> tuple[list[Detection], list[Detection]]:
    """(hole detections, detections from the other cues) in the dark ``mask`` as it is and with its one-pixel
    gaps closed (``gap_closing``; the closed mask's holes count as the other cues' detections then), or in the
    closed mask alone (``unclosed_pass`` off: one contour pass, not two; a component is found in it as in the
    mask as it is nearly always, a token whose value closing joined to its ring in that mask's window)."""
    config = g.config
    if not config.gap_closing:
        return _holes_and_frames(gray, mask, g, frames=True)
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    if not config.unclosed_pass:
        return _holes_and_frames(gray, closed, g, frames=True, unclosed=mask)
    holes, extra = _holes_and_frames(gray, mask, g, frames=True)
    more, more_extra = _holes_and_frames(gray, closed, g, frames=True)
    return holes, extra + more + more_extra


def _bright_cards(gray: Image, g: _Geometry) -> list[Detection]:
    """Cards found as blobs brighter than the table: a face field, or a whole card whose frame is broken.

    The blob's convex hull must be a rectangle of the face field's or the whole card's size
    (``bright_side_tolerance``); either way the detection carries the face field's geometry.
    """
    config = g.config
    # a card is large: search at half resolution (the averaging also smooths the noise)
    h2, w2 = gray.shape[0] // 2, gray.shape[1] // 2
    half = cv2.resize(gray[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA)
    k = max(int(config.bright_window * g.co_h / 2) | 1, 3)
    mean = cv2.blur(half, (k, k))
    thr = cv2.convertScaleAbs(mean, alpha=1.0 + config.bright_ratio, beta=config.bright_offset)
    bright = cv2.compare(half, thr, cv2.CMP_GT)
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    tol = config.bright_side_tolerance
    lo, hi = (1 - tol) * g.ch / 2, (1 + tol) * math.hypot(g.co_w, g.co_h) / 2
    out: list[Detection] = []
    for c in contours:
        _, _, w, h = cv2.boundingRect(c)
        if not lo <= max(w, h) <= hi:
            continue
        # half-resolution pixel i covers full-resolution pixels 2i and 2i+1
        hull = cv2.convexHull(c).astype(np.float32) * 2.0 + 0.5
        det = _card(hull, g, g.cw, g.ch, tol) or _card(hull, g, g.co_w, g.co_h, tol)
        if det is not None:
            out.append(det)
    return out


def _merge(out: list[Detection], extra: list[Detection], radius: float) -> list[Detection]:
    """``out`` plus every detection of ``extra`` whose centre is not within ``radius`` of one kept."""
    if not extra:
        return out
    kept = list(out)
    new = np.array([d.centre for d in extra], np.float64)
    if out:
        old = np.array([d.centre for d in out], np.float64)
        dist = np.hypot(new[:, None, 0] - old[None, :, 0], new[:, None, 1] - old[None, :, 1])
        fresh = np.flatnonzero(dist.min(axis=1) > radius)
    else:
        fresh = np.arange(len(extra))
    added: list[int] = []
    for k in fresh:
        if all(math.hypot(new[k, 0] - new[j, 0], new[k, 1] - new[j, 1]) > radius for j in added):
            added.append(int(k))
            kept.append(extra[k])
    return kept


def _inside(dets: list[Detection], polygons: Sequence[FloatArray]) -> NDArray[Any]:
    """For each detection, whether its centre lies inside one of the convex ``polygons`` (those with as many
    corners tested all at once)."""
    inside = np.zeros(len(dets), bool)
    if not dets:
        return inside
    centres = np.array([d.centre for d in dets], np.float64)
    polys = [np.asarray(poly, np.float64).reshape(-1, 2) for poly in polygons]
    for n in {len(p) for p in polys}:
        p = np.stack([q for q in polys if len(q) == n])  # (P, n, 2)
        edge = np.roll(p, -1, axis=1) - p
        rel = centres[:, None, None, :] - p[None]  # (N, P, n, 2)
        cross = edge[None, :, :, 0] * rel[..., 1] - edge[None, :, :, 1] * rel[..., 0]
        inside |= (np.all(cross > 0, axis=2) | np.all(cross < 0, axis=2)).any(axis=1)
    return inside


def _inside_cards(dets: list[Detection]) -> NDArray[Any]:
    """For each detection, whether its centre lies inside another detection's card field."""
    cards = [d for d in dets if d.kind is Kind.CARD]
    if not cards:
        return np.zeros(len(dets), bool)
    corners = np.stack([d.corners for d in cards])
    origin = corners[:, 0]
    ax = corners[:, 1] - origin
    ay = corners[:, 3] - origin
    centres = np.array([d.centre for d in dets])
    v = centres[:, None, :] - origin[None]
    u = np.sum(v * ax[None], axis=2) / np.sum(ax * ax, axis=1)[None]
    w = np.sum(v * ay[None], axis=2) / np.sum(ay * ay, axis=1)[None]
    inside = (u > 0) & (u < 1) & (w > 0) & (w < 1)
    at: dict[int, list[int]] = {}
    for i, e in enumerate(dets):
        at.setdefault(id(e), []).append(i)
    for j, d in enumerate(cards):
        inside[at[id(d)], j] = False  # a card is not inside itself
    return np.asarray(inside.any(axis=1))


def find_components(gray: Image, config: VisionConfig,
                    exclude: Sequence[FloatArray] = ()) -> list[Detection]:
    """Cards and tokens in a rectified grey image (see the module docstring for the cues).

    ``exclude``: convex polygons (rectified pixels) where nothing is reported,
    such as the ArUco markers, whose white cells look like small discs.
    """
    g = _Geometry(config)
    out, extra = _mask_passes(gray, dark_mask(gray, config), g)
    if config.bright_cards:
        extra.extend(_bright_cards(gray, g))
    out = _merge(out, extra, 0.4 * g.r_tok)
    # a disc inside a card's field is the card's artwork
    drop = _inside_cards(out) & np.array([d.kind is Kind.TOKEN for d in out], bool)
    if exclude:
        drop |= _inside(out, exclude)
    return [d for d, gone in zip(out, drop) if not gone]


def warp_crops(image: Image, detections: list[Detection], config: VisionConfig,
               rect_to_image: FloatArray | None = None) -> Image:
    """Warp each detection's face field to the classifier's canonical size: ``(N, H, W, 3)`` uint8.

    ``image`` is the rectified colour image, or with ``rect_to_image`` (the
    homography from rectified pixels to ``image`` pixels) the camera frame
    itself, which saves a second interpolation.
    """
    w, h = config.crop_size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    out = np.empty((len(detections), h, w, 3), np.uint8)
    if not detections:
        return out
    corners = np.stack([np.asarray(d.corners, np.float64).reshape(4, 2) for d in detections])
    if rect_to_image is not None:
        # every corner in one transform (each point maps as it maps alone)
        corners = cv2.perspectiveTransform(corners.reshape(1, -1, 2), rect_to_image)[0].reshape(-1, 4, 2)
    for i, src in enumerate(corners.astype(np.float32)):
        m = cv2.getPerspectiveTransform(src, dst)
        out[i] = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def rect_to_table(rect: Rectified, d: Detection) -> tuple[float, float]:
    """Table millimetres of a detection's centre."""
    return rect.to_table(*d.centre)


def _reach(g: _Geometry) -> float:
    """How far (px) from its centre a component found in the dark mask reads the image: half the largest
    outline any cue accepts (a leaky hole, the whole card at its loosest), plus the mask's own windows."""
    config = g.config
    tol = 2.5 * config.frame_side_tolerance
    outline = 0.5 * math.hypot((1 + tol) * g.co_w, (1 + tol) * g.co_h) + 2
    window = max(int(g.cw * config.threshold_window) | 1, 3) // 2 + math.ceil(3 * config.smoothing * g.cw) + 2
    return outline + window


def _shifted(d: Detection, dx: int, dy: int) -> Detection:
    return Detection(d.kind, d.corners + np.array([dx, dy], np.float64), (d.centre[0] + dx, d.centre[1] + dy), d.angle)


def find_components_near(gray: Image, config: VisionConfig, exclude: Sequence[FloatArray],
                         before: Sequence[Detection], changed: NDArray[Any],
                         tile: int) -> tuple[list[Detection], NDArray[Any]]:
    """`find_components` for an image that changed only in part since ``before`` was found in it.

    ``changed``: a boolean map of ``tile`` x ``tile`` pixel blocks of ``gray``. Every component whose
    outline could reach a changed block, or whose dark-mask windows could (its centre within `_reach`
    of one), is searched afresh in a window around those blocks wide enough that the search there
    sees all it would see in the whole image; the bright-blob cue, whose window is wider, searches
    the whole image and counts near the change only. ``before`` gives the rest. Returns the
    components and the map of blocks searched afresh.
    """
    g = _Geometry(config)
    reach = _reach(g)
    k = int(math.ceil(reach / tile))
    near = cv2.dilate(changed.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8)) > 0
    if not near.any():
        return list(before), near
    h, w = gray.shape[:2]
    ys, xs = np.nonzero(near)
    pad = int(math.ceil(reach)) + 2 * tile
    x0, y0 = max(0, int(xs.min()) * tile - pad) & ~1, max(0, int(ys.min()) * tile - pad) & ~1
    x1, y1 = min(w, (int(xs.max()) + 1) * tile + pad), min(h, (int(ys.max()) + 1) * tile + pad)
    sub = gray[y0:y1, x0:x1]
    holes, extra = _mask_passes(sub, dark_mask(sub, config), g)
    holes = [_shifted(d, x0, y0) for d in holes]
    extra = [_shifted(d, x0, y0) for d in extra]
    if config.bright_cards:
        extra.extend(_bright_cards(gray, g))
    th, tw = near.shape

    def afresh(ds: Sequence[Detection]) -> list[bool]:
        """Whether each detection's centre lies in a block searched afresh."""
        if not ds:
            return []
        c = np.array([d.centre for d in ds], np.float64) // tile
        tx = np.clip(c[:, 0].astype(np.int64), 0, tw - 1)
        ty = np.clip(c[:, 1].astype(np.int64), 0, th - 1)
        out: list[bool] = near[ty, tx].tolist()
        return out

    radius = 0.4 * g.r_tok
    kept = [d for d, a in zip(before, afresh(before)) if not a]
    # a hole found afresh is kept unless one kept from before lies on it (as `_merge` keeps every hole)
    new = [d for d, a in zip(holes, afresh(holes)) if a]
    if kept and new:
        old = np.array([d.centre for d in kept], np.float64)
        fresh = np.array([d.centre for d in new], np.float64)
        apart = np.hypot(old[None, :, 0] - fresh[:, None, 0], old[None, :, 1] - fresh[:, None, 1]).min(axis=1) > radius
        new = [d for d, a in zip(new, apart.tolist()) if a]
    out = _merge(kept + new, [d for d, a in zip(extra, afresh(extra)) if a], radius)
    drop = _inside_cards(out) & np.array([d.kind is Kind.TOKEN for d in out], bool)
    if exclude:
        drop |= _inside(out, exclude)
    return [d for d, gone in zip(out, drop) if not gone], near
