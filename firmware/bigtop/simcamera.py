"""A camera that films a simulated Big Top game night as it is played.

`SimulatedCamera` walks the steps of a `firmware.bigtop.tablesim.SimulatedTable` and
delivers the frames a fixed overhead camera would see: a still layout gives
``still_frames`` frames that differ only by sensor noise, a layout with hands
moving over the table gives ``moving_frames`` frames with one or two arms at
different places in each, and a button step calls the attached button sink
instead of giving a frame. After the last step ``read()`` raises `EndOfFrames`.
The table's ``record`` is the ground truth to compare the referee with.

The camera pose, the table cloth and the light are drawn once per session
from the seed: a mildly tilted camera on an overhead arm, even light well
inside what the classifier was trained on.

Rendering is incremental, so that a whole demo game night stays cheap: the
top-down canvas (table millimetres, `vision.bigtop.scene`'s helpers) and the warped,
lit frame are kept between layouts, and only the parts of them under the
components that changed are composed and warped again. Repeated frames only
add noise; arms are drawn straight into the image.

``ringside run --camera simulated:seats=5,hands=2,seed=7,illegal_every=9``
opens one (see `open_simulated` for the options).

>>> from firmware.bigtop.simcamera import SimulatedCamera   # doctest: +SKIP
>>> cam = SimulatedCamera(seats=4, hands=1, seed=3)   # doctest: +SKIP
>>> cam.attach_buttons(print); cam.read().shape       # doctest: +SKIP
(960, 1280, 3)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from firmware.bigtop.tablesim import SimulatedTable, Step, TableLayout
from firmware.table import simulated_options
from hardware.buttons import ButtonEvent
from hardware.camera import BaseFrameSource, Frame
from hardware.errors import CameraError, EndOfFrames
from scorer.bigtop import BigTop, Card, Shade, Suit
from vision.bigtop.faces import render_label
from vision.bigtop.labels import TOKEN_BACK, token_label
from vision.bigtop.layout import CARD, CHART, MAT, TOKEN, Pile, Space
from vision.bigtop.scene import (
    CANVAS_BLUR,
    CHART_SHADOW,
    COMPONENT_SHADOW,
    CONTENT_REGION,
    Placement,
    SceneSettings,
    camera_homography,
    chart_pose,
    chart_to_table,
    paste,
    printed,
    table_texture,
)

__all__ = [
    "SIM_SETTINGS",
    "Progress",
    "SimulatedCamera",
    "chart_cards",
    "layout_placements",
    "open_simulated",
]

#: The session's camera and light are drawn from these ranges: a camera on an overhead arm
#: (mild tilt), even light, little noise; no shadows, glare or clutter.
SIM_SETTINGS = SceneSettings(
    tilt_deg=(4.0, 10.0),
    yaw_deg=(-5.0, 5.0),
    brightness=(0.85, 1.05),
    warmth=(0.0, 0.1),
    gamma=(0.9, 1.1),
    blur_sigma=(0.2, 0.5),
    noise_sigma=(1.5, 3.0),
    shadow_probability=0.0,
    glare_probability=0.0,
    hands=(1, 2),
    clutter=(0, 0),
    margin=(0.02, 0.04),
)

_SKINS = ((120, 150, 200), (90, 120, 170), (60, 90, 140), (140, 170, 215))

Float = NDArray[np.float32]
#: Where the table's button gestures go (as the button backends' sinks).
Sink = Callable[[ButtonEvent], None]


# --- what lies where ------------------------------------------------------------------

def chart_cards(layout: TableLayout, seat: int) -> dict[Space, Card]:
    """The cards on the spaces of ``seat``'s chart: its called cards plus the cards shown at the end.

    The snapshot's chart lists $3, $2, $1, $0. Shown cards (``laid_open``) fill the
    free spaces from $0 upward, in suit order.
    """
    chart = layout.snapshot.charts[seat]
    out = {Space(3 - i): card for i, card in enumerate(chart) if card is not None}
    if layout.laid_open is not None:
        free = [sp for sp in Space if sp not in out]
        shown = sorted(layout.laid_open[seat], key=lambda c: c.index)
        if len(shown) > len(free):
            raise ValueError(f"seat {seat} shows {len(shown)} cards but its chart has {len(free)} free spaces")
        out.update(zip(free, shown))
    return out


def _jitter(seed: int, *key: object) -> random.Random:
    """A generator fixed by the component's identity, so that a component that stays put does not move."""
    return random.Random("|".join(map(str, (seed, *key))))


def layout_placements(layout: TableLayout, seats: Sequence[int] | None = None,
                      jitter_seed: int = 0) -> list[Placement]:
    """Where every component of ``layout`` lies on the table, in the order they are laid down.

    Each tableau pile holds all its cards with only the top one visible; seat
    ``i``'s chart lies at ``chart_pose(seats[i])`` (``seats`` defaults to 0, 1, ...)
    with its cards per `chart_cards` and a token on every suit picture (its back
    unless ``layout.tokens`` turns it face up). Every component gets a small
    offset and turn fixed by its identity (and place) and ``jitter_seed``.
    """
    snap = layout.snapshot
    positions = tuple(range(len(snap.charts))) if seats is None else tuple(seats)
    if positions and len(positions) != len(snap.charts):
        raise ValueError(f"{len(positions)} chart positions for {len(snap.charts)} seats")
    out: list[Placement] = []
    for suit in Suit:
        pile = snap.tableau[suit]
        stacks: list[tuple[Pile, list[Card]]] = [
            (Pile.POSTER, [Card(suit, Shade.POSTER, 0)] if pile.poster else []),
            (Pile.LIGHT, [Card(suit, Shade.LIGHT, n) for n in range(1, pile.light + 1)]),
            (Pile.DARK, [Card(suit, Shade.DARK, n) for n in range(1, pile.dark + 1)]),
        ]
        for place, cards in stacks:
            cx, cy = MAT.slot(suit, place).centre
            for k, card in enumerate(cards):
                j = _jitter(jitter_seed, "pile", card.notation())
                out.append(Placement(card.notation(), cx + j.uniform(-1.5, 1.5), cy + j.uniform(-1.5, 1.5),
                                     j.uniform(-3.0, 3.0), visible=k == len(cards) - 1))
    for seat, position in enumerate(positions):
        pose = chart_pose(position)
        for space, card in sorted(chart_cards(layout, seat).items()):
            j = _jitter(jitter_seed, "chart", seat, int(space), card.notation())
            sx, sy = CHART.space(space).centre
            x, y = chart_to_table(pose, sx + j.uniform(-2.0, 2.0), sy + j.uniform(-2.0, 2.0))
            out.append(Placement(card.notation(), x, y, pose[2] + j.uniform(-3.0, 3.0)))
        row = layout.tokens[seat] if layout.tokens is not None else None
        for suit in Suit:
            value = row[suit] if row is not None else None
            j = _jitter(jitter_seed, "token", seat, int(suit))
            px, py = CHART.picture_centre(suit)
            x, y = chart_to_table(pose, px + j.uniform(-2.0, 2.0), py + j.uniform(-2.0, 2.0))
            out.append(Placement(TOKEN_BACK if value is None else token_label(value), x, y, j.uniform(0.0, 360.0)))
    return out


# --- the renderer ---------------------------------------------------------------------

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 excluded)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _merge(boxes: list[Box]) -> list[Box]:
    """Boxes merged until none overlap."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for k in range(i + 1, len(out)):
                a, b = out[i], out[k]
                if _overlap(a, b):
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[k]
                    merged = True
                    break
            if merged:
                break
    return out


def _translate(dx: float, dy: float) -> NDArray[np.float64]:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


class _Renderer:
    """One session's camera, table and light, with the current table kept as canvas and as frame."""

    def __init__(self, positions: Sequence[int], rng: np.random.Generator, settings: SceneSettings) -> None:
        self.s = s = settings.render_px_per_mm
        self.size = settings.image_size
        W, H = self.size
        self.to_image = camera_homography(rng, settings)
        corners = np.array([[[0, 0], [W, 0], [W, H], [0, H]]], np.float64)
        seen = cv2.perspectiveTransform(corners, np.linalg.inv(self.to_image))[0]
        cx0, cy0, cx1, cy1 = CONTENT_REGION
        x0 = math.floor(min(float(seen[:, 0].min()), cx0) - 10)
        y0 = math.floor(min(float(seen[:, 1].min()), cy0) - 10)
        x1 = math.ceil(max(float(seen[:, 0].max()), cx1) + 10)
        y1 = math.ceil(max(float(seen[:, 1].max()), cy1) + 10)
        self.origin = (float(x0), float(y0))
        cw, ch = int((x1 - x0) * s), int((y1 - y0) * s)
        canvas = table_texture(rng, (ch, cw))
        mat = printed("mat", 0, s)
        ox, oy = int(round(-x0 * s)), int(round(-y0 * s))
        canvas[oy:oy + mat.shape[0], ox:ox + mat.shape[1]] = mat
        for position in positions:
            pose = chart_pose(position)
            img = printed("chart", position, s)
            paste(canvas, img, np.full(img.shape[:2], 255, np.uint8), pose[0], pose[1], pose[2], s,
                   self.origin, shadow=CHART_SHADOW)
        self.background: NDArray[np.uint8] = np.clip(canvas + 0.5, 0, 255).astype(np.uint8)
        self.canvas: Float = self.background.astype(np.float32)
        self.fill = tuple(float(v) for v in self.canvas[:8, :8].reshape(-1, 3).mean(0))
        # canvas px -> image px, and back
        self.canvas_to_image = self.to_image @ np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1]])
        self.image_to_canvas = np.linalg.inv(self.canvas_to_image)
        # the light, fixed for the session: a smooth gain field, brightness, colour temperature, gamma
        light = cv2.resize(rng.uniform(0.88, 1.08, (3, 4)).astype(np.float32), (W, H),
                           interpolation=cv2.INTER_CUBIC)
        self.brightness = float(rng.uniform(*settings.brightness))
        warm = float(rng.uniform(*settings.warmth))
        tint = np.array([1 - warm, 1.0, 1 + 0.8 * warm], np.float32)
        self.tint = tint * self.brightness
        self.gain: Float = (light[:, :, None] * self.tint[None, None, :]).astype(np.float32)
        gamma = float(rng.uniform(*settings.gamma))
        self.gamma_lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma + 0.5, 0, 255).astype(np.uint8)
        self.blur = float(rng.uniform(*settings.blur_sigma))
        # sensor noise: a few fields a little larger than the frame, read through random windows
        sigma = float(rng.uniform(*settings.noise_sigma))
        self.noise: list[tuple[NDArray[np.uint8], NDArray[np.uint8]]] = []
        for _ in range(3):
            n = np.rint(rng.standard_normal((H + 16, W + 16, 3), dtype=np.float32) * sigma).astype(np.int16)
            self.noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        self.frame: NDArray[np.uint8] = np.zeros((H, W, 3), np.uint8)
        self.placed: list[Placement] | None = None
        self._develop((0, 0, W, H))

    # -- keeping the table up to date --

    def _box(self, p: Placement) -> Box:
        """The canvas pixels `paste` may touch for ``p`` (shadow included)."""
        if p.label.startswith("token"):
            half = TOKEN.diameter / 2 * math.sqrt(2) * self.s + 6
        else:
            half = 0.5 * math.hypot(CARD.width, CARD.height) * self.s + 6
        cx, cy = (p.x - self.origin[0]) * self.s, (p.y - self.origin[1]) * self.s
        h, w = self.canvas.shape[:2]
        return (max(0, math.floor(cx - half)), max(0, math.floor(cy - half)),
                min(w, math.ceil(cx + half)), min(h, math.ceil(cy + half)))

    def show(self, placements: list[Placement]) -> bool:
        """Make the kept frame show ``placements``; False when it did already."""
        if placements == self.placed:
            return False
        old = self.placed or []
        changed = set(old).symmetric_difference(placements)
        boxes = _merge([self._box(p) for p in changed])
        self.placed = list(placements)
        boxed = [(self._box(p), p) for p in placements]
        for box in boxes:
            self._compose(box, [p for b, p in boxed if _overlap(b, box)])
        W, H = self.size
        targets: list[Box] = []
        for x0, y0, x1, y1 in boxes:
            pts = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
            img = cv2.perspectiveTransform(pts, self.canvas_to_image)[0]
            box = (max(0, math.floor(img[:, 0].min()) - 2), max(0, math.floor(img[:, 1].min()) - 2),
                   min(W, math.ceil(img[:, 0].max()) + 2), min(H, math.ceil(img[:, 1].max()) + 2))
            if box[2] > box[0] and box[3] > box[1]:
                targets.append(box)
        for box in _merge(targets):
            self._develop(box)
        return True

    def _compose(self, box: Box, placements: list[Placement]) -> None:
        """Lay the canvas region ``box`` anew: the bare table, then ``placements`` in order.

        The components are pasted whole onto a region that holds them all (a
        clipped paste would shade differently), and only ``box`` is kept.
        """
        boxes = [box, *(self._box(p) for p in placements)]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        sub = self.background[y0:y1, x0:x1].astype(np.float32)
        origin = (self.origin[0] + x0 / self.s, self.origin[1] + y0 / self.s)
        for p in placements:
            img, alpha = render_label(p.label, self.s)
            paste(sub, img, alpha, p.x, p.y, p.angle, self.s, origin, shadow=COMPONENT_SHADOW)
        bx0, by0, bx1, by1 = box
        self.canvas[by0:by1, bx0:bx1] = sub[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]

    def _develop(self, box: Box) -> None:
        """Warp, light and focus the image region ``box`` from the canvas into the kept frame."""
        W, H = self.size
        m = math.ceil(3 * self.blur) + 1
        u0, v0, u1, v1 = max(0, box[0] - m), max(0, box[1] - m), min(W, box[2] + m), min(H, box[3] + m)
        pts = np.array([[[u0, v0], [u1, v0], [u1, v1], [u0, v1]]], np.float64)
        src = cv2.perspectiveTransform(pts, self.image_to_canvas)[0]
        ch, cw = self.canvas.shape[:2]
        sx0, sy0 = max(0, math.floor(src[:, 0].min()) - 4), max(0, math.floor(src[:, 1].min()) - 4)
        sx1, sy1 = min(cw, math.ceil(src[:, 0].max()) + 5), min(ch, math.ceil(src[:, 1].max()) + 5)
        warped: NDArray[Any]
        if sx1 <= sx0 or sy1 <= sy0:
            warped = np.empty((v1 - v0, u1 - u0, 3), np.float32)
            warped[:] = self.fill
        else:
            sub = cv2.GaussianBlur(self.canvas[sy0:sy1, sx0:sx1], (0, 0), CANVAS_BLUR)
            M = _translate(-u0, -v0) @ self.canvas_to_image @ _translate(sx0, sy0)
            warped = cv2.warpPerspective(sub, M, (u1 - u0, v1 - v0), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT, borderValue=self.fill)
        lit = cv2.multiply(warped, self.gain[v0:v1, u0:u1])
        out: NDArray[Any] = cv2.LUT(np.clip(lit + 0.5, 0, 255).astype(np.uint8), self.gamma_lut)
        if self.blur > 0.05:
            out = cv2.GaussianBlur(out, (0, 0), self.blur)
        x0, y0, x1, y1 = box
        self.frame[y0:y1, x0:x1] = out[y0 - v0:y1 - v0, x0 - u0:x1 - u0]

    # -- frames --

    def snap(self, rng: np.random.Generator, hands: int = 0) -> Frame:
        """A frame of the kept table with ``hands`` arms over it and fresh sensor noise."""
        frame = self.frame.copy() if hands else self.frame
        for _ in range(hands):
            self._arm(frame, rng)
        pos, neg = self.noise[int(rng.integers(len(self.noise)))]
        dy, dx = int(rng.integers(17)), int(rng.integers(17))
        H, W = frame.shape[:2]
        noisy: NDArray[Any] = cv2.subtract(cv2.add(frame, pos[dy:dy + H, dx:dx + W]), neg[dy:dy + H, dx:dx + W])
        return noisy

    def _arm(self, frame: Frame, rng: np.random.Generator) -> None:
        """An arm reaching in from the edge of the table, drawn straight into the image."""
        x0, y0, x1, y1 = CONTENT_REGION
        side = int(rng.integers(4))
        t = float(rng.uniform(0.1, 0.9))
        edge = [(x0 + t * (x1 - x0), y0), (x1, y0 + t * (y1 - y0)), (x0 + t * (x1 - x0), y1),
                (x0, y0 + t * (y1 - y0))][side]
        inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
        ang = math.atan2(inward[1], inward[0]) + float(rng.uniform(-0.5, 0.5))
        ux, uy = math.cos(ang), math.sin(ang)
        reach = float(rng.uniform(90, 330))
        tip = (edge[0] + reach * ux, edge[1] + reach * uy)
        back = (edge[0] - 250 * ux, edge[1] - 250 * uy)
        wrist = (tip[0] - 60 * ux, tip[1] - 60 * uy)
        base = (tip[0] - 10 * ux, tip[1] - 10 * uy)
        fingers = [(base[0] + 55 * math.cos(ang + (k - 1.5) * 0.22), base[1] + 55 * math.sin(ang + (k - 1.5) * 0.22))
                   for k in range(4)]
        table = np.array([[back, tip, wrist, base, *fingers, (tip[0] + 1, tip[1]), (tip[0], tip[1] + 1)]],
                         np.float64)
        img = cv2.perspectiveTransform(table, self.to_image)[0]
        # px per mm where the hand is
        (ax, ay), (bx, by) = img[8] - img[1], img[9] - img[1]
        scale = math.sqrt(abs(float(ax * by - ay * bx)))
        H, W = frame.shape[:2]
        pad = 60 * scale
        r0, c0 = max(0, int(img[:8, 1].min() - pad)), max(0, int(img[:8, 0].min() - pad))
        r1, c1 = min(H, int(img[:8, 1].max() + pad)), min(W, int(img[:8, 0].max() + pad))
        if r1 - r0 < 8 or c1 - c0 < 8:
            return

        def at(i: int) -> tuple[int, int]:
            return (int(round(img[i, 0])) - c0, int(round(img[i, 1])) - r0)

        arm = np.zeros((r1 - r0, c1 - c0), np.uint8)
        sleeve = np.zeros_like(arm)
        cv2.line(arm, at(0), at(1), 255, max(1, int(70 * scale)), cv2.LINE_AA)
        cv2.line(sleeve, at(0), at(2), 255, max(1, int(80 * scale)), cv2.LINE_AA)
        for k in range(4):
            cv2.line(arm, at(3), at(4 + k), 255, max(1, int(15 * scale)), cv2.LINE_AA)
        a = arm.astype(np.float32)[:, :, None] / 255.0
        sa = np.minimum(sleeve.astype(np.float32)[:, :, None] / 255.0, a)
        small = cv2.resize(arm, ((c1 - c0) // 4 + 1, (r1 - r0) // 4 + 1), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), max(0.5, 2.0 * scale))
        shade = cv2.resize(small, (c1 - c0, r1 - r0), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
        skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))], np.float32) * float(rng.uniform(0.85, 1.1))
        cloth = rng.uniform(20, 200, 3).astype(np.float32)
        colour = (skin * (1 - sa) + cloth * sa) * self.tint
        roi = frame[r0:r1, c0:c1].astype(np.float32) * (1 - 0.45 * shade)[:, :, None]
        frame[r0:r1, c0:c1] = np.clip(roi * (1 - a) + colour * a + 0.5, 0, 255).astype(np.uint8)


# --- the camera -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Progress:
    """How far a simulated game night has got."""

    #: steps of the table taken (layouts and button gestures)
    steps: int
    #: moves played so far (passes included)
    moves: int
    #: frames delivered
    frames: int
    #: the hand being played (0 before the first frame)
    hand: int
    #: hands in the game night
    hands: int

    def __str__(self) -> str:
        return f"hand {self.hand}/{self.hands}, {self.moves} moves, {self.frames} frames"


class SimulatedCamera(BaseFrameSource):
    """The frames of a simulated Big Top game night, step by step (see the module docstring).

    Give a `SimulatedTable`, or the keyword arguments to build one (``seats``
    players named "Player 1".., or ``players`` by name; ``hands`` defaults to a
    whole game). ``still_frames`` frames are delivered per still layout,
    ``moving_frames`` per layout with hands over the table.

    :raises ValueError: for frame counts below 1 (still) or 0 (moving).
    """

    def __init__(
        self,
        table: SimulatedTable | None = None,
        *,
        seats: int = 4,
        players: Sequence[str] | None = None,
        hands: int | None = None,
        seed: int = 0,
        illegal_every: int | None = None,
        still_frames: int = 4,
        moving_frames: int = 2,
        settings: SceneSettings = SIM_SETTINGS,
        name: str | None = None,
        game: BigTop | None = None,
    ) -> None:
        game = game if game is not None else (table.game if table is not None else BigTop())
        if table is None:
            names = list(players) if players is not None else [f"Player {i + 1}" for i in range(seats)]
            count = hands if hands is not None else game.hands_in_game(len(names))
            table = SimulatedTable(names, hands=count, seed=seed, illegal_every=illegal_every or None, game=game)
        if still_frames < 1 or moving_frames < 0:
            raise ValueError(f"still_frames must be 1 or more and moving_frames 0 or more, "
                             f"not {still_frames} and {moving_frames}")
        super().__init__(name or f"simulated:seats={len(table.players)},hands={table.hands},seed={table.seed}")
        self.table = table
        self.still_frames = still_frames
        self.moving_frames = moving_frames
        # Fan Tan is played without Organizing Charts
        self.positions = tuple(range(len(table.players))) if table.game.allows_calling else ()
        self.settings = settings
        self._renderer_: _Renderer | None = None
        self._rng = np.random.default_rng([table.seed, 2])
        self._jitter_seed = table.seed
        self._steps: Iterator[Step] = table.steps()
        self._held: Step | None = None
        self._layout: TableLayout | None = None
        self._placements: list[Placement] = []
        self._left = 0
        self._sink: Sink | None = None
        self._done_steps = 0
        self._moves = 0
        self._frames = 0
        self._over = False

    def attach_buttons(self, sink: Sink) -> None:
        """Send the table's button gestures to ``sink``.

        The sink is called from inside ``read()``, before the frame that follows the gesture.
        """
        self._sink = sink

    @property
    def progress(self) -> Progress:
        """Steps taken, moves played, frames delivered and the hand being played."""
        hands: list[object] = self.table.record["hands"]  # type: ignore[assignment]
        return Progress(self._done_steps, self._moves, self._frames, len(hands), self.table.hands)

    @property
    def _renderer(self) -> _Renderer:
        # built on the first frame: opening the camera stays cheap
        if self._renderer_ is None:
            self._renderer_ = _Renderer(self.positions, np.random.default_rng([self.table.seed, 1]), self.settings)
        return self._renderer_

    @property
    def layout(self) -> TableLayout | None:
        """The layout the latest frame showed."""
        return self._layout

    def placements(self, layout: TableLayout) -> list[Placement]:
        """Where the components of ``layout`` lie at this table (`layout_placements`)."""
        return layout_placements(layout, self.positions, self._jitter_seed)

    def render(self, layout: TableLayout, hands: int = 0, rng: np.random.Generator | None = None) -> Frame:
        """A frame of ``layout`` with ``hands`` arms over the table, as this session's camera sees it."""
        self._renderer.show(self.placements(layout))
        return self._renderer.snap(self._rng if rng is None else rng, hands)

    def _read(self) -> Frame:
        while self._left == 0:
            step = self._next_step()
            if step.button is not None:
                self._press(step)
                continue
            assert step.layout is not None
            self._layout = step.layout
            self._placements = self.placements(step.layout)
            self._left = self.moving_frames if step.layout.hands_over else self.still_frames
            self._count(step)
        self._left -= 1
        self._frames += 1
        assert self._layout is not None
        self._renderer.show(self._placements)
        hands = int(self._rng.integers(1, 3)) if self._layout.hands_over else 0
        return self._renderer.snap(self._rng, hands)

    def fast_forward(self, hand: int, moves: int) -> None:
        """Skip the game night to hand number ``hand`` (1 for the first) with ``moves`` moves played.

        A referee restarted mid-game resumes from its journal; the table it
        watches has moved on meanwhile, so the steps up to that point are
        taken without rendering frames or pressing buttons. With ``moves`` 0
        the table shows the new hand's first layout next; otherwise the
        layout after the ``moves``-th move (after a hand's last move the
        reveal follows, as at the table). Nothing happens for ``hand`` 0 (no
        game yet).
        """
        if hand < 1:
            return
        record_hands: list[dict[str, object]] = self.table.record["hands"]  # type: ignore[assignment]

        def played() -> tuple[int, int]:
            if not record_hands:
                return 0, 0
            return len(record_hands), len(record_hands[-1]["moves"])  # type: ignore[arg-type]

        if played() > (hand, moves):
            raise ValueError(f"the simulated table is already past hand {hand} move {moves}: {self.progress}")
        while True:
            try:
                step = self._next_step()
            except EndOfFrames:
                return
            now = played()
            if moves == 0 and now[0] == hand:
                self._held = step  # the new hand's first layout: shown next
                self._left = 0
                return
            self._count(step)
            if step.layout is not None:
                self._layout = step.layout
                self._placements = self.placements(step.layout)
            if step.truth is not None and now == (hand, moves):
                # the layout after this move: still frames of it come next
                self._left = self.still_frames if step.layout is not None else 0
                return

    def _next_step(self) -> Step:
        if self._held is not None:
            held, self._held = self._held, None
            return held
        step = next(self._steps, None) if not self._over else None
        if step is None:
            self._over = True
            raise EndOfFrames(f"the simulated game night is over: {self.progress}")
        return step

    def _press(self, step: Step) -> None:
        if self._sink is None:
            self._held = step
            raise CameraError("the simulated table pressed a button but no sink is attached: "
                              "call attach_buttons(sink) first")
        self._count(step)
        assert step.button is not None
        self._sink(step.button)

    def _count(self, step: Step) -> None:
        self._done_steps += 1
        self._moves += step.truth is not None


# --- open_camera("simulated:...") -----------------------------------------------------

_OPTIONS = ("seats", "hands", "seed", "illegal_every", "still_frames", "moving_frames")


def open_simulated(arg: str, game: BigTop | None = None) -> SimulatedCamera:
    """Open a simulated camera from ``key=value`` pairs separated by commas.

    Options (whole numbers): ``seats`` (3 to 6, default 4), ``hands`` (default a
    whole game), ``seed`` (default 0), ``illegal_every`` (0: never, the default),
    ``still_frames`` (default 4), ``moving_frames`` (default 2).

    :raises UnknownBackend: for an unknown option or a bad value, in one line.
    """
    values = simulated_options(arg, {"seats": (3, 6), "hands": (1, None), "seed": (0, None),
                                     "illegal_every": (0, None), "still_frames": (1, None),
                                     "moving_frames": (0, None)})
    seats = values.get("seats", 4)
    spec = ",".join(f"{k}={values[k]}" for k in _OPTIONS if k in values)
    return SimulatedCamera(
        seats=seats,
        hands=values.get("hands"),
        seed=values.get("seed", 0),
        illegal_every=values.get("illegal_every") or None,
        still_frames=values.get("still_frames", 4),
        moving_frames=values.get("moving_frames", 2),
        name=f"simulated:{spec}" if spec else "simulated",
        game=game,
    )

