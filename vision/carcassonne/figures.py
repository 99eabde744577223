"""Figures on a Carcassonne board: drawn on synthetic boards, found in photos, each on its feature.

Figures: meeples of six colours, the ringmaster (a larger figure of a player's
colour), acrobats (smaller figures on an acrobat space, stacked up to three)
and the Big Top (a tent on the circus tile). `draw_figures` paints them on a
board drawn by `vision.carcassonne.board` (the project's own figure drawings);
`find_figures` looks for them on the tiles of a `BoardReading`: each tile is
cut square from the photo, its colours balanced against the whole board (and a
veil of glare taken off where one lies: `haze_veil`), the cuts laid side by side
as on the board, pixels near a player colour grouped into blobs, and a blob of figure size (for the tile's side: a shorter or a much
larger patch of a player colour is the tile's art) is a figure standing on the feature under
the middle of its footprint (`vision.carcassonne.features`), put back whole
where the board ends. A figure stands up from its tile: a red, blue or yellow
patch whose edge is no darker than itself and the tile around it (no outline, no
shadow) lies flat, the tile's art, and is in doubt. A player has one ringmaster:
of two read in one colour the smaller is a meeple. Meeple and ringmaster are
told by size; where size cannot tell them the follower is in doubt: green or
grey and smaller than any meeple, or as tall as the ringmaster but narrower. A
piece of an acrobat stack wider than an acrobat is a follower on a tile read as
its acrobat twin: in doubt.

A figure hides what lies under it. On a tile the recogniser left unrecognised, a
figure is read on every tile and turn still in the running there and kept where
all of them put it on the same feature (the Big Top on the circus tiles among
them). On a reported tile, another tile that differs from it only under the
figure (`hidden_rivals`: a meeple over the end of A's road, B without it) and
that the reported neighbours allow makes the tile unknown, and the figure in
doubt where it would stand on another feature there. So does the Big Top, or a
figure standing where an acrobat stack stands, on the middle of a base tile
whose Under the Big Top twin (`space_twins`: the same edges around a circus or
an acrobat space) the board may hold: the figure hides the space that alone
tells the twin (a stack on ffrr.acrobats, read as V, lost with its tile).

For the last circus scoring the Big Top is lifted and the animal token under it
turned face up on its circus space: a round token whose pips count the points its
animal is worth (the project's own drawing, `draw_token`), read on each circus
tile at a finer cut (`read_token`) and reported as an ``animal-token`` figure
with its animal named as in RECORDS.md (``seal``, ``bear``, ...); a token whose
pips cannot be counted is in doubt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import BIG_TOP_TILES, CATALOG, Edge, Kind, Special, rotated
from scorer.carcassonne.model import Animal
from vision.carcassonne.features import CENTRE, MAP_SIZE, anchor, feature_map, spot_at
from vision.carcassonne.labels import canonical_rotation

__all__ = ["ANIMAL_PIPS", "BIG_TOP", "COLORS", "FIGURE_COLOURS", "TOKEN", "FigureReading", "FigureSearch", "PlacedFigure",
           "acrobat_stack", "clipped_sides", "draw_figures", "draw_token", "find_figures", "footprint_centre", "haze_veil",
           "hidden_rivals", "on_roof",
           "random_figures", "read_token", "rim_contrast", "roof_box", "search_figures", "space_twins", "under_roof", "white_gain"]

#: The six player colours (BGR as the project draws them).
COLORS: dict[str, tuple[int, int, int]] = {
    "red": (40, 35, 205),
    "blue": (190, 90, 25),
    "green": (35, 120, 25),
    "yellow": (20, 215, 240),
    "black": (28, 28, 28),
    "grey": (135, 135, 135),
}
#: the Big Top's tent colour
BIG_TOP = (150, 40, 135)
#: every colour a figure can have, by name
FIGURE_COLOURS = dict(COLORS, **{"big-top": BIG_TOP})
#: an animal token lying face up on a circus tile (the one the Big Top stood on, turned over for the last circus
#: scoring): a cream disc with a brown rim, showing as many dark pips as the points its animal is worth
TOKEN = "animal-token"
#: the animals (RECORDS.md's names) by the pips on their token
ANIMAL_PIPS: dict[int, str] = {a.points: a.value for a in Animal}
_TOKEN_FACE = (200, 232, 245)
_TOKEN_RIM = (40, 70, 110)
_PIP = (35, 50, 75)
#: the token's radius, its pips' radius and the step between pips, as shares of the tile side
_TOKEN_RADIUS = 0.2
_PIP_RADIUS = 0.022
_PIP_STEP = 0.08
#: each count's pips, in steps from the token's middle (a die's faces; seven: six and the middle)
_PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
    7: ((-1, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (1, 1)),
}
#: the side of the cut a circus tile is read at for its token (its pips are small)
_TOKEN_CUT = 128
#: figure size as a share of the tile side: meeple, ringmaster, acrobat
_SIZE = {"meeple": 0.30, "ringmaster": 0.38, "acrobat": 0.22}
#: how far each acrobat of a stack shows above the one below, as a share of the tile side
_STEP = 0.1
#: a pixel this far (Lab) from every figure colour is no figure
_FAR = 40.0
#: a blob whose colour is on average further than this from its figure colour (0 far .. 1 exact) is no figure
MIN_CONFIDENCE = 0.2
#: and the least confidence at which a figure of a colour is reported: the tiles' art holds greens (fields) and
#: greys (roads, walls, the monastery) near the green and grey figures', no reds, blues or yellows as strong
SURE: dict[str, float] = {"red": 0.2, "blue": 0.2, "yellow": 0.2, "black": 0.35, "green": 0.5, "grey": 0.55, "big-top": 0.2,
                         "animal-token": 0.3}
#: a blob up to this much less sure than its colour asks is a figure in doubt (unrecognised), not tile art
DOUBT = 0.1
#: the crop each tile is cut to for the search
_CUT = 64
#: rows without the colour that may part two acrobats of a stack (their outlines)
_STACK_GAP = 4
#: a pixel with a channel this bright is glare (saturated), no colour of the board
_GLARE = 250
#: the brightest share of the board's pixels (a percentile) taken for its white
_WHITE_PERCENTILE = 99.0
#: glare from a glossy table lays a veil of light over part of a board: every colour there is lifted by the same
#: amount, its darkest art as much as its figures. The veil is the board's floor (its darkest pixels, every channel,
#: over about half a tile around each pixel; pooled over `_HAZE_POOL` pixels of the cut) above the floor the board
#: shows in most places (its `_HAZE_BASE_PERCENTILE`); it is taken off only where at least `_HAZE_MIN` (0..255), in
#: full from twice that, so that a board without glare is searched as it was
_HAZE_POOL = 4
_HAZE_WINDOW = 33
_HAZE_BASE_PERCENTILE = 25.0
_HAZE_MIN = 25.0
#: the acrobat space's radius (a share of the tile side), and the smallest share of a tile an acrobat shows there
_ACROBAT_SPACE = 0.3
_MIN_ACROBAT = 0.007
#: a figure whose footprint centre lies this near a base tile's middle (a share of the tile side) stands where its Under
#: the Big Top twin's acrobat stack would: the twin's space may lie under it
_STACK_NEAR = 0.08
#: the acrobat space's art holds small dots of red and blue, a tenth of the tile across at most: the top acrobat of a
#: stack, seen whole, shows a body wider than that (its legs span 0.8 of its 0.22 of the tile, less the camera's blur)
_SPACE_HUES = ("red", "blue")
_ACROBAT_WIDTH = 0.125
#: an acrobat is drawn 0.22 of the tile side, about as wide as tall, and a stack's acrobats stand one above the other:
#: a piece of a stack this wide (its shorter side, a share of the tile side) is wider than an acrobat, a meeple or the
#: ringmaster on the base tile with the same edges, whose middle the follower hides (read as the acrobat tile). On
#: tuning boards the pieces of acrobat stacks were at most 14 pixels of the cut wide, followers read as stacks 16 to 19
_WIDER_THAN_ACROBAT = 0.25
#: a meeple or ringmaster seen whole is at least this tall (its longer side, a share of the tile side): a smaller
#: patch of a player's colour is part of a tile's art
_MIN_FOLLOWER = 0.22
#: and at most this tall, covering at most ``_MAX_FOLLOWER_AREA`` of its tile: a larger blob is the tile's art (a field
#: of a player's green, a roof of a player's red), or figures run together, no figure to report
_MAX_FOLLOWER = 0.5
_MAX_FOLLOWER_AREA = 0.12
#: a meeple's or ringmaster's colour fills at most this share of its box (its arms and legs leave the corners bare)
_MAX_FILL = 0.75
#: the ringmaster is at least this tall (its longer side, a share of the tile side) and covers at least this share
#: of its tile; a meeple is at most ``_MEEPLE_SIDE`` tall or covers at most ``_MEEPLE_AREA`` (seen through the
#: camera, a meeple's colour may run into its shadow); a follower between the two is in doubt
_RINGMASTER_SIDE = 0.37
_RINGMASTER_AREA = 0.053
_MEEPLE_SIDE = 0.345
_MEEPLE_AREA = 0.05
#: a green or grey follower covering less than this share of its tile is smaller than any meeple of those colours
#: (their colour runs into the field or road, so they look larger, never smaller): a piece of an acrobat stack or of
#: the field's art, read as a meeple where the tile under it was taken for its base twin. On tuning boards green and
#: grey meeples covered at least 0.028, a green acrobat read as a meeple 0.020
_BLENDING_MEEPLE_AREA = 0.024
#: the ringmaster, seen whole, is about as wide as it is tall (0.38 of the tile side, drawn 7% smaller at least, less
#: the camera's blur): one read at the ringmaster's height but narrower than this (a share of the tile side) is acrobats
#: stacked one above another on a tile read as its base twin (green and grey ones are told by their own colour's
#: pixels). On tuning boards ringmasters seen whole were at least 18 pixels of the cut wide, a stack read as one 12
_MIN_RINGMASTER_WIDTH = 0.25
#: colours that the tiles' art holds in patches about a meeple's size (roofs, pennants, the circus's centre): a follower
#: of such a colour seen whole but shorter than the smallest meeple (``_SIZE`` less the 7% drawn smaller, less two
#: pixels of the cut eaten by the camera's blur on each side) is in doubt
_ART_HUES = ("red", "blue", "yellow")
_WHOLE_MEEPLE = 0.25
#: a red or blue follower on a city (whose houses have red and blue roofs) is in doubt below this confidence: the
#: roofs run together look a meeple's size, of a roof's duller colour
_SURE_ON_CITY = 0.33
#: a figure stands up from its tile: its edge (its outline, the shadow it casts) is darker than both the figure and
#: the tile around it, where a patch of the tiles' art of a figure's colour (a roof, the house at a crossroads, a
#: pennant) lies flat, its edge blurred into the lighter wall, road or field round it. A red, blue or yellow follower
#: whose rim is less than this much darker (Lab lightness, 0..255) is in doubt; green and grey ones blur into the
#: field or road under them, and a black one's edge is lighter than itself, so their rim tells nothing
_MIN_RIM = 10.0
#: the rim: this many pixels (of the cut) just outside the blob, against the tile as far again beyond it
_RIM = 2
#: the share of the rim's pixels, the darkest, taken for its lightness (its outline or its shadow side)
_RIM_PERCENTILE = 25.0
#: the monastery's roof (a colour of the roofs: red or blue) on its tile in catalog orientation (u0, v0, u1, v1): a
#: meeple whose blob reaches over it may have run together with it and look as large as a ringmaster
_MONASTERY_ROOF = (0.3, 0.17, 0.7, 0.42)
_ROOF_HUES = ("red", "blue")
#: colours that the tiles' art holds (fields, roads, walls): a figure of such a colour may run together with the art
#: under it and look larger than it is
_BLENDING = ("green", "grey")
#: of two followers read on one tile, the surer stays when its confidence is at least this much higher
_CLEARLY_SURER = 0.15
#: a green or grey acrobat stack whose height differs counted through only the pixels this near (Lab) its colour is
#: in doubt: the field and road round the acrobat space are within `_FAR` of them
_STRIP_NEAR = 22.0
#: a green or grey follower as large as the ringmaster whose pixels within `_STRIP_NEAR` of its colour cover at most
#: this share of its tile (and stand less tall than the ringmaster) is a meeple run together with the field or road
#: under it: a meeple's own pixels cover at most about 0.04, the smallest ringmaster's about 0.05
_NEAR_MEEPLE_AREA = 0.045
#: ... and one whose pixels within `_STRIP_NEAR` of its colour cover at most this share of its tile is a meeple
#: whatever its size seen whole or counted so (its colour's pixels may reach as far as a ringmaster's through the field's
#: or road's nearest shades). On tuning boards such meeples covered up to 0.042, green and grey ringmasters 0.050 and more
_CORE_MEEPLE_AREA = 0.042
#: a meeple's outline in a unit square (head at the top)
_MEEPLE = np.array([[0.5, 0.0], [0.64, 0.06], [0.66, 0.24], [0.98, 0.36], [0.98, 0.5], [0.72, 0.52], [0.9, 1.0], [0.6, 1.0],
                    [0.5, 0.78], [0.4, 1.0], [0.1, 1.0], [0.28, 0.52], [0.02, 0.5], [0.02, 0.36], [0.34, 0.24], [0.36, 0.06]])


@dataclass(frozen=True, slots=True)
class PlacedFigure:
    """A figure on a layout: the tile's cell, the figure, its colour (empty for the Big Top), its feature.

    ``count`` is the height of an acrobat stack (1 to 3 figures of the same colour); ``below`` and ``above``
    the acrobats of other colours under and over them in the same stack (drawn by other `PlacedFigure`\\ s).
    """

    x: int
    y: int
    figure: str
    color: str
    feature: str
    count: int = 1
    below: int = 0
    above: int = 0
    #: the animal of an ``animal-token`` (RECORDS.md's names: ``seal``, ``bear``, ...)
    animal: str = ""


@dataclass(frozen=True, slots=True)
class FigureSearch:
    """What `search_figures` found: the figures it is sure of, and those in doubt (to be reported unrecognised); and
    the reported tiles a figure may hide the difference of, with the tiles and turns each may be (`hidden_rivals`)."""

    sure: tuple[FigureReading, ...]
    unsure: tuple[FigureReading, ...]
    hidden: dict[tuple[int, int], tuple[tuple[str, int], ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FigureReading:
    """A figure found in a photo: cell (as in the board reading), figure (``meeple``, ``ringmaster``, ``acrobat``,
    ``big-top``, ``animal-token``), colour (empty for the Big Top and a token), feature, confidence; for an animal
    token face up on a circus tile, its animal (RECORDS.md's names; empty when its pips could not be counted)."""

    x: int
    y: int
    figure: str
    color: str
    feature: str
    confidence: float
    animal: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"x", "y", "figure", "color", "feature", "confidence"}``, and ``"animal"`` for an animal token."""
        out: dict[str, Any] = {"x": self.x, "y": self.y, "figure": self.figure, "color": self.color or None,
                               "feature": self.feature, "confidence": round(self.confidence, 3)}
        if self.figure == TOKEN:
            out["animal"] = self.animal or None
        return out


def _poly(cx: float, cy: float, size: float, angle: float) -> NDArray[Any]:
    pts = (_MEEPLE - 0.5) * size
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))
    out: NDArray[Any] = pts @ np.array([[c, s], [-s, c]]) + [cx, cy]
    return out


def _paint(img: NDArray[Any], pts: NDArray[Any], colour: tuple[int, int, int], cell: float) -> None:
    p = np.round(pts * 16).astype(np.int32)
    shadow = np.round((pts + cell * 0.03) * 16).astype(np.int32)
    over = img.copy()
    cv2.fillPoly(over, [shadow], (0, 0, 0), cv2.LINE_AA, shift=4)
    img[:] = cv2.addWeighted(img, 0.6, over, 0.4, 0)
    cv2.fillPoly(img, [p], colour, cv2.LINE_AA, shift=4)
    outline = (90, 90, 90) if sum(colour) < 150 else (25, 25, 25)
    cv2.polylines(img, [p], True, outline, max(1, int(cell / 70)), cv2.LINE_AA, shift=4)


def draw_figures(image: NDArray[Any], tiles: dict[tuple[int, int], tuple[str, int]], figures: Sequence[PlacedFigure],
                 cell_corner: Any, cell: float, rng: np.random.Generator) -> NDArray[Any]:
    """A copy of a drawn board with ``figures`` painted on their features.

    ``tiles`` maps each cell to its (type, rotation); ``cell_corner(x, y)`` gives the
    pixel position of a cell's north-west corner; ``cell`` is the tile side in pixels.

    :raises KeyError: when a figure's tile has no such feature.
    """
    out = image.copy()
    for f in figures:
        name, rot = tiles[(f.x, f.y)]
        ox, oy = cell_corner(f.x, f.y)
        if f.figure == "big-top":
            cx, cy = ox + 0.5 * cell, oy + 0.5 * cell
            r = 0.3 * cell
            pts = np.array([[cx + r * np.cos(a), cy + r * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 17)[:-1]])
            cv2.fillPoly(out, [np.round(pts * 16).astype(np.int32)], BIG_TOP, cv2.LINE_AA, shift=4)
            cv2.circle(out, (int(cx), int(cy)), max(2, int(0.06 * cell)), (230, 230, 235), -1, cv2.LINE_AA)
            cv2.polylines(out, [np.round(pts * 16).astype(np.int32)], True, (30, 30, 30), 1, cv2.LINE_AA, shift=4)
            continue
        if f.figure == TOKEN:
            # turned by its cell, not by ``rng``: a board with a token is drawn as with the Big Top otherwise
            turn = float(np.random.default_rng([f.x % 997, f.y % 997]).uniform(0, 360))
            draw_token(out, (ox + 0.5 * cell, oy + 0.5 * cell), cell, f.animal, turn)
            continue
        u, v = anchor(name, rot, f.feature)
        size = _SIZE[f.figure] * cell * rng.uniform(0.93, 1.07)
        angle = float(rng.normal(0, 12))
        colour = COLORS[f.color]
        cx = ox + u * cell + rng.normal(0, 0.02 * cell)
        cy = oy + v * cell + rng.normal(0, 0.02 * cell)
        # a stack of acrobats, seen from above at a slant: each one a step higher than the one it stands on
        height = f.below + f.count + f.above
        for k in range(f.below, f.below + f.count):
            _paint(out, _poly(cx, cy - (k - (height - 1) / 2) * _STEP * cell, size, angle), colour, cell)
    return out


def draw_token(image: NDArray[Any], centre: tuple[float, float], cell: float, animal: str, angle: float) -> None:
    """Paint an animal token face up on ``image`` (in place): centred at ``centre`` (pixels) on a tile ``cell``
    pixels wide, its pips (as many as ``animal`` is worth) turned ``angle`` degrees.

    :raises ValueError: for an animal that is not one of the box's.
    """
    pips = _PIP_LAYOUT[Animal(animal).points]
    cx, cy = centre
    r = _TOKEN_RADIUS * cell
    ring = np.array([[cx + r * np.cos(a), cy + r * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 41)[:-1]])
    p = np.round(ring * 16).astype(np.int32)
    cv2.fillPoly(image, [p], _TOKEN_FACE, cv2.LINE_AA, shift=4)
    cv2.polylines(image, [p], True, _TOKEN_RIM, max(1, int(round(cell / 50))), cv2.LINE_AA, shift=4)
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))
    for i, j in pips:
        px, py = cx + _PIP_STEP * cell * (c * i - s * j), cy + _PIP_STEP * cell * (s * i + c * j)
        cv2.circle(image, (int(round(px * 16)), int(round(py * 16))), int(round(_PIP_RADIUS * cell * 16)), _PIP, -1,
                   cv2.LINE_AA, shift=4)


def _opened(mask: NDArray[Any], wide: int) -> tuple[NDArray[Any], NDArray[Any]]:
    """The rows and columns (``np.nonzero``'s order) of a uint8 mask's pixels left by an opening with a ``wide`` (odd)
    ellipse, the opening worked over the mask's pixels' box only, ``wide // 2`` wider each way: the erosion there
    reads no pixel beyond it, and it leaves nothing beyond the box for the dilation to spread."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (wide, wide))
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        empty = np.zeros(0, np.intp)
        return empty, empty.copy()
    r = wide // 2
    x0, y0 = max(0, bx - r), max(0, by - r)
    x1, y1 = min(mask.shape[1], bx + bw + r), min(mask.shape[0], by + bh + r)
    ys, xs = np.nonzero(cv2.morphologyEx(np.ascontiguousarray(mask[y0:y1, x0:x1]), cv2.MORPH_OPEN, kernel))
    return ys + y0, xs + x0


def read_token(cut: NDArray[Any]) -> tuple[bool, str, float]:
    """Whether a square cut of a circus tile (BGR, colour balanced, its side a tile's) shows an animal token face up
    on its circus space, which animal it is (empty when its pips cannot be counted) and how sure that is.

    The token is the round light patch about the circus space's size at the tile's middle (the roads that reach the
    space are narrower and are taken off it; the circus space's light stripes are narrower still); its pips are the
    dark spots inside of about a pip's size: a count that no animal is worth, a dark patch larger than a pip (a
    figure's, the space's stripes showing through), or spots too faint leave the animal unread."""
    side = cut.shape[0]
    lab = cv2.cvtColor(cut, cv2.COLOR_BGR2Lab).astype(np.float32)
    light, chroma = lab[..., 0], np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    face = ((light > 175) & (chroma < 40)).astype(np.uint8)
    n, labels, _, cents = cv2.connectedComponentsWithStats(face, connectivity=4)
    if n <= 1:
        return False, "", 0.0
    mid = (side - 1) / 2.0
    k = 1 + int(np.argmin(np.hypot(cents[1:, 0] - mid, cents[1:, 1] - mid)))
    # the patch with its holes (the pips) filled, less anything narrower than the token attached to it
    contours, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros((side, side), np.uint8)
    cv2.drawContours(filled, contours, -1, 1, -1)
    wide = max(3, int(round(0.16 * side)) | 1)
    ys, xs = _opened(filled, wide)
    if len(xs) < 16:
        return False, "", 0.0
    (ox, oy), radius = cv2.minEnclosingCircle(np.column_stack([xs, ys]).astype(np.float32))
    fill = len(xs) / max(1.0, np.pi * radius**2)
    # a disc of the token's size (less its rim), round, lying on the circus space at the tile's middle
    if not (0.13 * side <= radius <= 0.24 * side and fill >= 0.75 and np.hypot(ox - mid, oy - mid) <= 0.12 * side):
        return False, "", 0.0
    inner = np.zeros((side, side), np.uint8)
    cv2.circle(inner, (int(round(ox)), int(round(oy))), max(1, int(round(radius - 0.025 * side))), 1, -1)
    inside = inner > 0
    level = float(np.median(light[inside]))
    pip_area = np.pi * (_PIP_RADIUS * side) ** 2
    conf = float(np.clip((fill - 0.75) / 0.2, 0.0, 1.0))
    counts = []
    # the pips counted dark and counted darker than the face at all: a blurred pip that one count misses, or pips
    # run together, make the two differ
    for step in (70, 35):
        dark = ((light < level - step) & inside).astype(np.uint8)
        _, _, pstats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
        areas = pstats[1:, cv2.CC_STAT_AREA]
        if (areas > 2.2 * pip_area).any():
            return True, "", conf
        counts.append(int((areas >= 0.35 * pip_area).sum()))
        counts.append(int((areas >= 0.1 * pip_area).sum()))
    if len(set(counts)) > 1 or counts[0] not in ANIMAL_PIPS:
        return True, "", conf
    return True, ANIMAL_PIPS[counts[0]], conf


def clipped_sides(blobs: NDArray[Any], label: int, box: tuple[int, int, int, int], seen: NDArray[Any],
                  ) -> tuple[bool, bool, bool, bool]:
    """Which sides (west, north, east, south) of blob ``label`` of ``blobs`` (a label image) end where the search
    ends: a pixel of the blob on that side of its ``box`` (left, top, width, height) is next to a pixel outside
    ``seen`` (the part of the image where figures were looked for: the tiles, not the table) or the image's edge.
    A figure that reaches over such an edge is seen cut off there."""
    x, y, w, h = box
    rows, cols = seen.shape[:2]
    own = blobs[y:y + h, x:x + w] == label

    def cut(line: NDArray[Any], outside: NDArray[Any] | None) -> bool:
        return outside is None or bool((line & ~outside).any())

    west = cut(own[:, 0], seen[y:y + h, x - 1] if x > 0 else None)
    north = cut(own[0], seen[y - 1, x:x + w] if y > 0 else None)
    east = cut(own[:, -1], seen[y:y + h, x + w] if x + w < cols else None)
    south = cut(own[-1], seen[y + h, x:x + w] if y + h < rows else None)
    return west, north, east, south


def footprint_centre(box: tuple[int, int, int, int], clipped: tuple[bool, bool, bool, bool], least: float,
                     ) -> tuple[float, float]:
    """The centre of a figure's footprint from its blob's ``box`` (left, top, width, height), in the pixel
    coordinates in which a pixel's centre is its index.

    A figure is drawn about as wide as it is tall, centred on its spot: the middle of its box, not the centre of
    its pixels (a meeple's legs pull that down). A side cut off where the search ends (``clipped``, from
    `clipped_sides`: west, north, east, south) is put back one figure size from the opposite side, the size
    taken from the side the cut left whole; cut on both axes (at a corner of the board), the size is at least
    ``least`` (the smallest figure's, in pixels). Cut on both sides of one axis, the middle is all there is.
    """
    # the box's outer edges, in the coordinates in which a pixel's centre is its index
    left, top, right, bottom = box[0] - 0.5, box[1] - 0.5, box[0] + box[2] - 0.5, box[1] + box[3] - 0.5
    west, north, east, south = clipped
    size = float(max(box[2], box[3]))
    if (west or east) and (north or south):
        size = max(size, least)
    cx, cy = (left + right) / 2.0, (top + bottom) / 2.0
    if west and not east:
        cx = right - size / 2.0
    elif east and not west:
        cx = left + size / 2.0
    if north and not south:
        cy = bottom - size / 2.0
    elif south and not north:
        cy = top + size / 2.0
    return cx, cy


def _lab(colour: tuple[int, int, int]) -> NDArray[Any]:
    px = np.array([[colour]], np.uint8)
    out: NDArray[Any] = cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(3).astype(np.float32)
    return out


_NAMES = tuple(FIGURE_COLOURS)
_LABS = np.stack([_lab(FIGURE_COLOURS[n]) for n in _NAMES])


def white_gain(pixels: NDArray[Any], reference: NDArray[Any] | Sequence[float] | None = None) -> NDArray[Any]:
    """The gain per channel that balances a board's colours as the figure colours were drawn against: its brightest
    pixels (``pixels``, N x 3 BGR; roads, white art) made ``reference`` (a light grey by default).

    Glare (a pixel with a channel at `_GLARE` or above, and the pixels as bright as the glare's edge) is left out:
    it is the lamp's colour, not the board's, and would darken every figure colour."""
    raw = np.asarray(pixels).reshape(-1, 3)
    px = raw.astype(np.float32)
    ref = np.asarray(reference if reference is not None else (235, 235, 235), np.float32)
    # per channel, as max(axis=1) and sum(axis=1) (the same sums, in the same order), without numpy's slow
    # reductions over three values (8-bit pixels' largest channel taken before the conversion: the same values, fewer
    # bytes)
    top = raw if raw.dtype == np.uint8 else px
    lit = px[np.maximum(np.maximum(top[:, 0], top[:, 1]), top[:, 2]) < _GLARE]
    if len(lit) < max(16, 0.2 * len(px)):
        lit = px
    bright = lit[:, 0] + lit[:, 1] + lit[:, 2]
    white = lit[bright >= np.percentile(bright, _WHITE_PERCENTILE)].mean(axis=0)
    out: NDArray[Any] = (ref / np.maximum(white, 1.0)).astype(np.float32)
    return out


def haze_veil(cuts: NDArray[Any], cells: Sequence[tuple[int, int]], saturated: NDArray[Any]) -> NDArray[Any] | None:
    """The veil of glare to take off each of ``cuts`` (N x side x side x 3, colour balanced, laid on the board as
    ``cells`` say), per pixel (N x side x side), or None where no part of the board shows one; ``saturated`` (N x side
    x side) marks the pixels the camera saturated.

    Glare adds light: the darkest art under it (outlines, shadows, dark fields) is lifted as much as everything else.
    The board's floor (the least channel of its darkest pixel within about half a tile, taken over the tiles laid
    side by side, so that a veil is seen across their seams) is measured against the floor most of the board shows:
    where it stands at least `_HAZE_MIN` above, that much light lies over the tile (taken off in full from twice
    `_HAZE_MIN`). A pale patch of art (a city without outlines) also stands above the board's floor: a raised floor
    is a veil only where it reaches glare that saturated the camera (a pool of glare burns out at its core). A board
    with no such glare, or under one even veil, shows none: it is searched as it was."""
    if not saturated.any():
        return None
    n, side = cuts.shape[0], cuts.shape[1]
    pool = _HAZE_POOL
    small = side // pool
    xs = np.array([x for x, _ in cells]) - min(x for x, _ in cells)
    ys = np.array([y for _, y in cells]) - min(y for _, y in cells)
    nx, ny = int(xs.max()) + 1, int(ys.max()) + 1

    block = np.ones((pool, pool), np.uint8)

    def least(a: NDArray[Any]) -> NDArray[Any]:
        """The least of each ``pool`` x ``pool`` block of ``a`` (N x side x side), laid out as the board (255 where no
        tile is): an erosion by the block, read at each block's anchor (the cuts stacked, no block spans two)."""
        eroded = cv2.erode(np.ascontiguousarray(a[:, :small * pool, :small * pool]).reshape(n * small * pool, small * pool),
                           block)
        out = np.full((ny, nx, small, small), 255, eroded.dtype)
        out[ys, xs] = eroded[pool // 2::pool, pool // 2::pool].reshape(n, small, small)
        board: NDArray[Any] = out.transpose(0, 2, 1, 3).reshape(ny * small, nx * small)
        return board

    burnt = least((~saturated).view(np.uint8)) == 0
    floor = least(np.minimum(np.minimum(cuts[..., 0], cuts[..., 1]), cuts[..., 2]).astype(np.float32))
    tiled = np.zeros((ny, nx), np.float32)
    tiled[ys, xs] = 1.0
    seen = np.repeat(np.repeat(tiled, small, axis=0), small, axis=1)
    on = seen > 0
    win = max(3, int(round(_HAZE_WINDOW / pool)) | 1)
    # a cell with no tile (255) never lowers a floor; smoothed over the tiles alone
    floor = cv2.erode(floor, np.ones((win, win), np.uint8), borderType=cv2.BORDER_REPLICATE)
    sigma = win / 3.0
    weight = cv2.GaussianBlur(seen, (0, 0), sigma)
    floor = cv2.GaussianBlur(floor * seen, (0, 0), sigma) / np.maximum(weight, 1e-6)
    veil = floor - float(np.percentile(floor[on], _HAZE_BASE_PERCENTILE))
    raised = ((veil > _HAZE_MIN) & on).astype(np.uint8)
    count, parts = cv2.connectedComponents(raised, connectivity=8)
    glare = np.zeros(count, bool)
    glare[parts[burnt & (raised > 0)]] = True
    glare[0] = False
    if not glare.any():
        return None
    veil *= glare[parts] * np.clip((veil - _HAZE_MIN) / _HAZE_MIN, 0.0, 1.0)
    # brought to the cuts' pixels over the veil's box and a pixel round it (0 there, as beyond it): the same values as
    # over the whole board, the scale being whole
    rows, cols = np.flatnonzero(veil.any(axis=1)), np.flatnonzero(veil.any(axis=0))
    r0, r1 = max(0, int(rows[0]) - 1), min(veil.shape[0], int(rows[-1]) + 2)
    c0, c1 = max(0, int(cols[0]) - 1), min(veil.shape[1], int(cols[-1]) + 2)
    full = np.zeros((ny * side, nx * side), np.float32)
    full[r0 * pool:r1 * pool, c0 * pool:c1 * pool] = cv2.resize(np.ascontiguousarray(veil[r0:r1, c0:c1]),
                                                                ((c1 - c0) * pool, (r1 - r0) * pool),
                                                                interpolation=cv2.INTER_LINEAR)
    out: NDArray[Any] = full.reshape(ny, side, nx, side).transpose(0, 2, 1, 3)[ys, xs]
    return out


def _times_gain(cuts: NDArray[Any], gain: NDArray[Any]) -> None:
    """``cuts *= gain`` in place (float32 cuts N x side x side x 3, a float32 gain per channel), bit for bit, over the
    cuts laid in one tall image rather than through numpy's inner loop of three values."""
    tall = cuts.reshape(-1, cuts.shape[2], 3)
    balance: Any = (*(float(g) for g in gain), 0.0)  # (an OpenCV scalar)
    cv2.multiply(tall, balance, dst=tall)


def _balanced(cut: NDArray[Any], gain: NDArray[Any]) -> NDArray[Any]:
    """An 8-bit BGR cut times a float32 ``gain`` per channel, at most 255, back to 8 bits (truncated): numpy's
    ``np.minimum(cut.astype(np.float32) * gain, 255).astype(np.uint8)`` bit for bit, in place on one float copy."""
    out = cut.astype(np.float32)
    _times_gain(out.reshape(1, *out.shape), gain)
    np.minimum(out, 255, out=out)
    return out.astype(np.uint8)


def _less_veil(cuts: NDArray[Any], veil: NDArray[Any]) -> None:
    """``cuts -= veil[..., None]`` in place (float32 cuts N x side x side x 3, a float32 veil N x side x side), bit for
    bit, each channel less the veil over the cuts laid in one tall image."""
    tall = cuts.reshape(-1, cuts.shape[2], 3)
    cv2.subtract(tall, cv2.merge([np.ascontiguousarray(veil, np.float32).reshape(tall.shape[:2])] * 3), dst=tall)


def _cut(photo: NDArray[Any], corners: NDArray[Any], side: int = _CUT) -> NDArray[Any]:
    dst = np.asarray([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(corners, dtype=np.float32), dst)
    out: NDArray[Any] = cv2.warpPerspective(photo, m, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return out


def _lines_kept(filled: NDArray[Any]) -> NDArray[Any]:
    """Of one axis of a mask, given the sorted indices of its lines holding a pixel (``filled``, not empty): those
    lines, and of each run of empty lines before or between them one line where the run is odd, two where even
    (none after the last, none before the first where that run is even), each line keeping its index's parity."""
    out: list[int] = []
    prev = int(filled[0]) - 1 - int(filled[0]) % 2
    for i in filled.tolist():
        gap = i - prev - 1
        if gap:
            out.append(prev + 1)
            if gap % 2 == 0:
                out.append(prev + 2)
        out.append(i)
        prev = i
    return np.array(out, np.intp)


def _components(mask: NDArray[Any]) -> tuple[int, NDArray[Any], NDArray[Any], NDArray[Any]]:
    """``cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)`` bit for bit (labels,
    stats and centroids), for a uint8 mask of few pixels in less time: the empty rows and columns are taken out, a
    run of them kept as one or two (the labelling reads pairs of rows and of columns: each line keeps its index's
    parity, and two pixels a run apart stay apart), the labels put back in place and each component's box and
    centroid read in the mask's own coordinates (sums of whole numbers, exact in float64)."""
    h, w = mask.shape
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0 or rows.size == h or cols.size == w:
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    kr, kc = _lines_kept(rows), _lines_kept(cols)
    if kr.size * kc.size > mask.size // 8:  # little to take out: the copies would cost more than they save
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    small = np.ascontiguousarray(mask[kr][:, kc])
    n, lab_s, st_s, _ = cv2.connectedComponentsWithStatsWithAlgorithm(small, 8, cv2.CV_32S, cv2.CCL_GRANA)
    labels = np.zeros((h, w), np.int32)
    labels[np.ix_(kr, kc)] = lab_s
    stats = st_s.copy()
    st = st_s[1:]
    left, top = kc[st[:, 0]], kr[st[:, 1]]
    stats[1:, 0], stats[1:, 1] = left, top
    stats[1:, 2] = kc[st[:, 0] + st[:, 2] - 1] - left + 1
    stats[1:, 3] = kr[st[:, 1] + st[:, 3] - 1] - top + 1
    at = np.flatnonzero(lab_s)
    own = lab_s.ravel()[at]
    xs = np.bincount(own, weights=kc[at % kc.size].astype(np.float64), minlength=n)
    ys = np.bincount(own, weights=kr[at // kc.size].astype(np.float64), minlength=n)
    # the background: an empty row and an empty column hold some of it, so its box is the whole mask
    stats[0] = (0, 0, w, h, h * w - int(stats[1:, cv2.CC_STAT_AREA].sum()))
    xs[0] = h * (w * (w - 1) // 2) - xs[1:].sum()
    ys[0] = w * (h * (h - 1) // 2) - ys[1:].sum()
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    cents = np.stack([xs / area, ys / area], axis=1)
    return n, labels, stats, cents


def search_figures(photo: NDArray[Any], tiles: Sequence[Any], corners: dict[tuple[int, int], NDArray[Any]],
                   reference: NDArray[Any] | None = None,
                   held: Mapping[tuple[int, int], Sequence[tuple[str, int]]] | None = None) -> FigureSearch:
    """The figures standing on ``tiles`` (`TileReading`s) in ``photo``; ``corners`` maps each cell to its corners.

    The tiles' square cuts are laid side by side as on the board, so that a figure reaching over a tile's edge onto
    its neighbour is seen whole, and found once, on the tile under its middle; where the board ends (the table's
    colour may be a figure's) its footprint is put back whole (`footprint_centre`).
    ``reference`` is the board's median colour the figure colours were drawn
    against (BGR); the photo's board is scaled to it first, which undoes the
    camera's white balance.

    A figure whose colour is a little less sure than `SURE` asks of it (within `DOUBT`), or whose size lies between
    a meeple's and the ringmaster's, is in ``unsure``, never reported as a figure.

    ``held`` maps a cell whose tile is not reported (unrecognised) to the tiles and turns (type, rotation) still in
    the running there: a follower on it is reported where every one of them puts it on the same feature, and so is
    the Big Top where one of them is a circus tile; no acrobat stack is read there.

    A follower on a reported tile that may be another under it (`hidden_rivals`: a meeple over the end of A's road,
    on a board edge, may stand on B's field) is in doubt where it would stand elsewhere on the other, and the tile is
    in ``hidden``.
    """
    held = held or {}
    by_cell = {(t.x, t.y): t for t in tiles if (t.x, t.y) in corners}
    if not by_cell:
        return FigureSearch((), ())
    # the board shows Under the Big Top tiles: a figure may hide one's space
    expansion = any(t.tile in BIG_TOP_TILES for t in by_cell.values())
    # every cell with a tile is searched (a figure on a reported tile may reach over one that is not)
    cells = sorted(corners)
    cuts = np.stack([_cut(photo, corners[cell]) for cell in cells])
    stack = cuts.astype(np.float32)
    gain = white_gain(cuts.reshape(-1, 3)[::5], reference)
    out: list[FigureReading] = []
    unsure: list[FigureReading] = []
    #: each follower's share of its tile, by its index in ``out``
    sizes: dict[int, float] = {}
    hidden: dict[tuple[int, int], tuple[tuple[str, int], ...]] = {}
    area_cell = float(_CUT * _CUT)
    # the pixels the camera saturated: the core of a pool of glare, where a veil of it is sought
    saturated = np.maximum(np.maximum(cuts[..., 0], cuts[..., 1]), cuts[..., 2]) >= _GLARE
    _times_gain(stack, gain)
    np.minimum(stack, 255, out=stack)
    veil = haze_veil(stack, cells, saturated)
    if veil is not None:
        # the glare's light taken off where it lies: the figures under it show their colours again
        _less_veil(stack, veil)
        np.maximum(stack, 0, out=stack)
    # all tiles at once: one tall image through the colour conversion, then each figure colour's distance
    # over whole channel planes (a running nearest colour), never a pixels x colours table
    bal = stack.astype(np.uint8).reshape(-1, _CUT, 3)
    planes = np.ascontiguousarray(cv2.cvtColor(bal, cv2.COLOR_BGR2Lab).reshape(-1, 3).T, dtype=np.float32)
    size = planes.shape[1]
    best_sq = np.full(size, np.inf, np.float32)
    nearest_flat = np.zeros(size, np.uint8)
    sq, part = np.empty(size, np.float32), np.empty(size, np.float32)
    closer = np.empty(size, np.uint8)
    for k, ref_lab in enumerate(_LABS.tolist()):
        np.subtract(planes[0], ref_lab[0], out=sq)
        np.multiply(sq, sq, out=sq)
        for c in (1, 2):
            np.subtract(planes[c], ref_lab[c], out=part)
            np.multiply(part, part, out=part)
            sq += part
        np.less(sq, best_sq, out=closer)
        # nearest = k where closer (arithmetic: a masked store is slow on a random mask)
        nearest_flat -= nearest_flat * closer
        nearest_flat += closer * np.uint8(k)
        np.minimum(best_sq, sq, out=best_sq)
    # the cuts laid out as the board: cells with a tile (reported or not: ``corners``) may hold a figure's pixels
    x0, y0 = min(x for x, _ in corners), min(y for _, y in corners)
    nx, ny = max(x for x, _ in corners) - x0 + 1, max(y for _, y in corners) - y0 + 1
    mosaic_d = np.zeros((ny, _CUT, nx, _CUT), np.float32)
    # each pixel's nearest figure colour where it is near one (`_FAR`), else 255 (none; off the tiles too)
    mosaic_k = np.full((ny, _CUT, nx, _CUT), 255, np.uint8)
    mosaic_l = np.zeros((ny, _CUT, nx, _CUT), np.float32)
    light_all = planes[0].reshape(len(cells), _CUT, _CUT)
    dmin_all = np.sqrt(best_sq).reshape(len(cells), _CUT, _CUT)
    nearest_all = nearest_flat.reshape(len(cells), _CUT, _CUT)
    seen = np.zeros((ny, nx), bool)
    # (every cut put in its place at once)
    at_y, at_x = np.array([y - y0 for _, y in cells]), np.array([x - x0 for x, _ in cells])
    mosaic_d[at_y, :, at_x] = dmin_all
    mosaic_k[at_y, :, at_x] = np.where(dmin_all < _FAR, nearest_all, np.uint8(255))
    mosaic_l[at_y, :, at_x] = light_all
    seen[at_y, at_x] = True
    on_tiles = np.repeat(np.repeat(seen, _CUT, axis=0), _CUT, axis=1)
    dist = mosaic_d.reshape(ny * _CUT, nx * _CUT)
    nearest = mosaic_k.reshape(ny * _CUT, nx * _CUT)
    light = mosaic_l.reshape(ny * _CUT, nx * _CUT)
    kernel = np.ones((3, 3), np.uint8)
    # the acrobat spaces: there an acrobat, the smallest figure, often half hidden by the one beside it, is cut in
    # pieces by its dark outline, which the opening would take away: the pieces are joined instead
    spaces = np.zeros((ny * _CUT, nx * _CUT), np.uint8)
    for (x, y), t in by_cell.items():
        if CATALOG[t.tile].special is Special.ACROBATS:
            middle = (int(round((x - x0 + 0.5) * _CUT)), int(round((y - y0 + 0.5) * _CUT)))
            cv2.circle(spaces, middle, int(round(_ACROBAT_SPACE * _CUT)), 1, -1)
    any_space = bool(spaces.any())
    in_space = spaces > 0
    if any_space:
        # the spaces' box, three pixels wider each way (the closing looks two pixels out): inside the spaces it closes
        # as over the whole mosaic
        rows, cols = np.flatnonzero(in_space.any(axis=1)), np.flatnonzero(in_space.any(axis=0))
        box_s = np.s_[max(0, int(rows[0]) - 3):int(rows[-1]) + 4, max(0, int(cols[0]) - 3):int(cols[-1]) + 4]
    for k, colour in enumerate(_NAMES):
        each = nearest == k
        if np.count_nonzero(each) < 0.02 * area_cell:
            continue
        each_u8 = each.view(np.uint8)
        mask = cv2.morphologyEx(each_u8, cv2.MORPH_OPEN, kernel)
        if any_space:
            joined = cv2.morphologyEx(each_u8[box_s] & spaces[box_s], cv2.MORPH_CLOSE, kernel)
            np.copyto(mask[box_s], joined, where=in_space[box_s])
        # the same labels as the default algorithm (raster order), in a third of its time, fewer still on few pixels
        n, lab_img, stats, cents = _components(mask)
        if n <= 1:
            continue
        areas = stats[:, cv2.CC_STAT_AREA]
        ws, hs = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
        share = areas / area_cell
        shaped = ((share >= 0.02) & (share <= 0.4) & (areas / np.maximum(1, ws * hs) >= 0.3)
                  & (np.minimum(ws, hs) >= 0.1 * _CUT))
        if any_space:
            # on an acrobat space: smaller, but longer than the round dots of the space's art
            cy, cx = np.clip(cents[:, 1].astype(int), 0, ny * _CUT - 1), np.clip(cents[:, 0].astype(int), 0, nx * _CUT - 1)
            acrobat = ((spaces[cy, cx] > 0) & (share >= _MIN_ACROBAT) & (share <= 0.4)
                       & (np.maximum(ws, hs) >= 0.1 * _CUT) & (areas / np.maximum(1, ws * hs) >= 0.3))
            shaped |= acrobat
        shaped[0] = False
        if not shaped.any():
            continue
        #: the pieces of this colour on each acrobat space: (box, confidence, pixels)
        stack_parts: dict[tuple[int, int], list[tuple[tuple[int, int, int, int], float, int]]] = {}
        for j in np.flatnonzero(shaped):
            area = stats[j, cv2.CC_STAT_AREA] / area_cell
            w, h = int(stats[j, cv2.CC_STAT_WIDTH]), int(stats[j, cv2.CC_STAT_HEIGHT])
            box = (int(stats[j, cv2.CC_STAT_LEFT]), int(stats[j, cv2.CC_STAT_TOP]), w, h)
            # the blob's colour distances summed within its box, in the image's order (bin 1: the blob's pixels)
            own = (lab_img[box[1]:box[1] + h, box[0]:box[0] + w] == j).ravel().view(np.uint8)
            dist_sum = np.bincount(own, weights=dist[box[1]:box[1] + h, box[0]:box[0] + w].ravel(), minlength=2)[1]
            conf = float(min(max(1.0 - dist_sum / stats[j, cv2.CC_STAT_AREA] / _FAR, 0.0), 1.0))
            if conf < max(MIN_CONFIDENCE, SURE[colour] - DOUBT):
                continue
            clipped = clipped_sides(lab_img, int(j), box, on_tiles)
            mx, my = footprint_centre(box, clipped, _SIZE["meeple"] * _CUT)
            gx, gy = mx / _CUT, my / _CUT
            cell = (x0 + int(np.floor(gx)), y0 + int(np.floor(gy)))
            if cell not in corners:
                # the middle put back off the board: the tile that holds the blob's pixels
                cell = (x0 + int(cents[j, 0] / _CUT), y0 + int(cents[j, 1] / _CUT))
            t = by_cell.get(cell)
            blob = _Blob(cell, colour, conf, area, box, clipped, int(stats[j, cv2.CC_STAT_AREA]), int(j),
                         gx - (cell[0] - x0), gy - (cell[1] - y0), ((cell[0] - x0) * _CUT, (cell[1] - y0) * _CUT))
            if colour in _BLENDING:
                blob.near = _near_size(own.reshape(h, w), dist[box[1]:box[1] + h, box[0]:box[0] + w])
            if t is not None:
                kind, found, sure = _read_blob(blob, t.tile, t.rotation, lab_img, light, on_tiles)
                rivals: list[tuple[str, int]] = []
                if sure and found is not None and found.figure != "big-top":
                    # tiles the figure may hide the difference of, that the reported neighbours allow: the tile is
                    # unknown, and so is the figure's feature where it stands elsewhere on one of them
                    rivals = hidden_rivals(t.tile, t.rotation, _box_on_tile(blob), _neighbour_edges(by_cell, cell),
                                           expansion)
                if expansion and kind != "stack" and _hides_space(blob, found if sure else None, lab_img, light, on_tiles):
                    # a figure on the middle of a base tile may hide the space of its Under the Big Top twin
                    rivals += space_twins(t.tile, t.rotation, blob.colour == "big-top")
                if rivals:
                    hidden[cell] = tuple(dict.fromkeys(hidden.get(cell, ()) + tuple(rivals)))
                    sure = sure and all(_read_blob(blob, name, rot, lab_img, light, on_tiles)[1] == found
                                        for name, rot in rivals)
            else:
                # on a cell whose tile is not reported: read on every tile and turn still in the running there, and
                # kept only where all of them read it alike (its feature known without the tile)
                running = held.get(cell, ())
                if running:
                    # ... and every tile the figure may hide the difference of from one of them
                    fits, box_uv = _neighbour_edges(by_cell, cell), _box_on_tile(blob)
                    running = list(dict.fromkeys([*running, *(r for name, rot in running
                                                               for r in hidden_rivals(name, rot, box_uv, fits, expansion))]))
                kind, found, sure = _read_on_held(blob, running, lab_img, light, on_tiles)
            if kind == "stack":
                # a stack of one colour shows as one blob, or as pieces its outlines cut apart: taken together
                stack_parts.setdefault(cell, []).append((box, conf, blob.pixels))
            elif found is not None:
                put = out if sure else unsure
                put.append(found)
                if put is out and found.figure != "big-top":
                    sizes[len(out) - 1] = area
        for (x, y), parts in stack_parts.items():
            strips = each & in_space
            count, conf = acrobat_stack(parts, strips)
            put = out if conf >= SURE[colour] else unsure
            # the field or road around the space is near green and grey: a stack as tall only through pixels less
            # near than a figure's own may be one acrobat over the field
            if colour in _BLENDING and acrobat_stack(parts, strips & (dist < _STRIP_NEAR))[0] != count:
                put = unsure
            if colour in _SPACE_HUES and max(min(b[2], b[3]) for b, _, _ in parts) < _ACROBAT_WIDTH * _CUT:
                put = unsure  # no piece as wide as the top acrobat's body: the space's dots, run together
            if max(min(b[2], b[3]) for b, _, _ in parts) >= _WIDER_THAN_ACROBAT * _CUT:
                put = unsure  # a piece wider than an acrobat: a follower on the base twin, its tile read for the acrobat tile
            put.extend(FigureReading(x, y, "acrobat", colour, "acrobats", conf) for _ in range(count))
    # an animal token face up on a circus space, read on a finer cut (its pips are small)
    for (x, y), t in sorted(by_cell.items()):
        if CATALOG[t.tile].special is not Special.CIRCUS:
            continue
        fine = _balanced(_cut(photo, corners[(x, y)], _TOKEN_CUT), gain)
        seen_token, animal, conf = read_token(fine)
        if seen_token:
            (out if animal and conf >= SURE[TOKEN] else unsure).append(
                FigureReading(x, y, TOKEN, "", "circus", conf, animal))
    # a player has one ringmaster: of two read in one colour, the smaller is a meeple
    for colour in _NAMES:
        rings = [i for i, f in enumerate(out) if f.figure == "ringmaster" and f.color == colour]
        for i in sorted(rings, key=lambda i: sizes[i])[:-1]:
            out[i] = replace(out[i], figure="meeple")
    # a tile holds one follower (each is put on the tile just placed): of two read on one tile, one is the other's
    # shadow or the tile's art; the one clearly surer than the rest stays, else none does
    followers: dict[tuple[int, int], list[int]] = {}
    for i, f in enumerate(out):
        if f.figure in ("meeple", "ringmaster"):
            followers.setdefault((f.x, f.y), []).append(i)
    doubted: set[int] = set()
    for group in followers.values():
        if len(group) > 1:
            ranked = sorted(group, key=lambda i: -out[i].confidence)
            clear = out[ranked[0]].confidence >= out[ranked[1]].confidence + _CLEARLY_SURER
            doubted.update(ranked[1:] if clear else ranked)
    unsure.extend(out[i] for i in sorted(doubted))
    out = [f for i, f in enumerate(out) if i not in doubted]
    out.sort(key=lambda f: (f.y, f.x, f.figure, f.color))
    unsure.sort(key=lambda f: (f.y, f.x, f.figure, f.color))
    return FigureSearch(tuple(out), tuple(unsure), hidden)


@dataclass(slots=True)
class _Blob:
    """A blob of one figure colour found by `search_figures`, as its readings on a tile need it."""

    cell: tuple[int, int]
    colour: str
    confidence: float
    #: its share of a tile, its box (left, top, width, height, pixels of the board's cuts), the sides of that box cut
    #: off where the search ends (`clipped_sides`), its pixels and its label in the blobs' label image
    area: float
    box: tuple[int, int, int, int]
    clipped: tuple[bool, bool, bool, bool]
    pixels: int
    label: int
    #: its footprint's centre on its cell (shares of the tile side from the north-west corner, before clipping)
    u: float
    v: float
    #: the cell's north-west corner in the board's cuts (pixels)
    corner: tuple[int, int]
    #: its `rim_contrast`, once measured (it is the same on every tile it may be read on)
    rim: float | None = None
    #: for a green or grey blob, its size counted through only its pixels within `_STRIP_NEAR` of its colour (`_near_size`)
    near: tuple[float, float] | None = None


def _near_size(own: NDArray[Any], dist: NDArray[Any]) -> tuple[float, float]:
    """The longer side (as `_read_blob` measures it: plus two pixels of blur) and the share of a tile of a blob's
    pixels within `_STRIP_NEAR` of its colour: ``own`` marks the blob's pixels in its box, ``dist`` their distance to
    it. The field's or road's pixels a green or grey figure runs into are further from its colour than its own."""
    core = own.astype(bool) & (dist < _STRIP_NEAR)
    if not core.any():
        return 0.0, 0.0
    rows, cols = np.flatnonzero(core.any(axis=1)), np.flatnonzero(core.any(axis=0))
    side = max(int(rows[-1] - rows[0]) + 1, int(cols[-1] - cols[0]) + 1)
    return (side + 2) / _CUT, float(np.count_nonzero(core)) / (_CUT * _CUT)


def _read_blob(blob: _Blob, name: str, rotation: int, blobs: NDArray[Any], light: NDArray[Any], seen: NDArray[Any],
               ) -> tuple[str, FigureReading | None, bool]:
    """What ``blob`` is on tile ``name`` turned ``rotation`` degrees: ``("stack", None, False)`` for a piece of an
    acrobat stack on the tile's acrobat space, ``("figure", reading, sure)`` for a follower or the Big Top (``sure``
    false: in doubt), ``("none", None, False)`` for no figure (the tile's art, a blob of no figure's size).
    ``blobs``, ``light`` and ``seen`` are the board's label image, lightness and searched tiles (`rim_contrast`)."""
    colour, conf, area, box, clipped = blob.colour, blob.confidence, blob.area, blob.box, blob.clipped
    x, y = blob.cell
    u, v = float(np.clip(blob.u, 0.0, 1.0)), float(np.clip(blob.v, 0.0, 1.0))
    special = CATALOG[name].special
    # a blob a little less sure than its colour asks is a figure in doubt: reported unrecognised
    sure = conf >= SURE[colour]
    if colour == "big-top":
        if special is Special.CIRCUS and area > 0.1:
            return "figure", FigureReading(x, y, "big-top", "", "circus", conf), sure
        return "none", None, False
    if special is Special.ACROBATS and (u - 0.5) ** 2 + (v - 0.5) ** 2 < _ACROBAT_SPACE**2:
        return "stack", None, False
    feature = spot_at(name, rotation, u, v)
    if feature is None or feature in ("circus", "acrobats"):
        return "none", None, False
    w, h = box[2], box[3]
    # the ringmaster stands taller than a meeple: its longer side tells them apart
    tall_side = (max(w, h) + 2) / _CUT
    if (tall_side < _MIN_FOLLOWER and not any(clipped)) or tall_side > _MAX_FOLLOWER or area > _MAX_FOLLOWER_AREA:
        return "none", None, False
    if blob.pixels > _MAX_FILL * w * h:
        return "none", None, False  # a square of a player colour: tile art (the house at a crossroads), no figure's outline
    tall = tall_side >= _RINGMASTER_SIDE and area >= _RINGMASTER_AREA
    # a green or grey figure's colour runs into the field or road under it: counted through only the pixels near its
    # own colour, clearly a meeple's size (the ringmaster's own pixels cover more), it is a meeple
    core_meeple = colour in _BLENDING and not any(clipped) and (blob.near or (tall_side, area))[1] <= _CORE_MEEPLE_AREA
    if not tall and tall_side > _MEEPLE_SIDE and area > _MEEPLE_AREA and not any(clipped) and not core_meeple:
        sure = False  # between a meeple's size and the ringmaster's
    elif not tall and colour in _BLENDING and area < _BLENDING_MEEPLE_AREA:
        sure = False  # smaller than a meeple of a colour the art around it makes look larger
    elif tall and colour not in _BLENDING and min(w, h) < _MIN_RINGMASTER_WIDTH * _CUT and not any(clipped):
        sure = False  # as tall as the ringmaster but too narrow: acrobats, one above another
    elif tall and colour in _BLENDING:
        # a meeple run together with the art around it may look as large; counted through only its own colour's
        # pixels, clearly a meeple's size, it is a meeple
        near_side, near_area = blob.near or (tall_side, area)
        if (near_side < _RINGMASTER_SIDE and near_area <= _NEAR_MEEPLE_AREA and not any(clipped)) or core_meeple:
            tall = False
        else:
            sure = False
    elif colour in _ART_HUES and tall_side < _WHOLE_MEEPLE and not any(clipped):
        sure = False  # as small as a roof, a pennant, the circus's centre
    elif colour in _ART_HUES and _rim(blob, blobs, light, seen) < _MIN_RIM:
        sure = False  # flat on the tile, no outline or shadow: the tile's art
    elif tall and colour in _ROOF_HUES and on_roof(name, rotation, box, *blob.corner):
        sure = False  # a meeple run together with the monastery's roof may look as large
    elif colour in _ROOF_HUES and under_roof(name, rotation, u, v):
        sure = False  # the middle of the monastery's roof: the roof itself, seen as a meeple
    elif colour in _ROOF_HUES and feature.startswith("city") and conf < _SURE_ON_CITY:
        sure = False  # a city's roofs run together by the camera's blur
    return "figure", FigureReading(x, y, "ringmaster" if tall else "meeple", colour, feature, conf), sure


def _rim(blob: _Blob, blobs: NDArray[Any], light: NDArray[Any], seen: NDArray[Any]) -> float:
    """``blob``'s `rim_contrast`, measured once."""
    if blob.rim is None:
        blob.rim = rim_contrast(blobs, blob.label, blob.box, light, seen)
    return blob.rim


def _read_on_held(blob: _Blob, running: Sequence[tuple[str, int]], blobs: NDArray[Any], light: NDArray[Any],
                  seen: NDArray[Any]) -> tuple[str, FigureReading | None, bool]:
    """What ``blob`` is on a cell whose tile is unrecognised, ``running`` the tiles and turns still in the running
    there: a follower that every one of them reads alike (the same figure on the same feature) is that figure, in
    doubt where any of them doubts it. The Big Top, which stands on nothing but a circus tile, is read on the circus
    tiles of ``running`` alone (the figure hides the circus, so the base tile of the same edges stays in the running).
    Acrobat stacks are not read there; anything the tiles read otherwise is in doubt."""
    if not running:
        return "none", None, False
    if blob.colour == "big-top":
        running = [(name, rot) for name, rot in running if CATALOG[name].special is Special.CIRCUS]
        if not running:
            return "none", None, False
    kind, found, sure = _read_blob(blob, *running[0], blobs, light, seen)
    if kind != "figure" or found is None:
        return "none", None, False
    for name, rot in running[1:]:
        other, theirs, also = _read_blob(blob, name, rot, blobs, light, seen)
        if other != kind or theirs != found:
            # read on another tile as another figure, on another feature or as no figure at all
            return "figure", found, False
        sure = sure and also
    return kind, found, sure


#: a tile whose feature map differs from another's on at most this share of the tile outside a figure's box (grown by
#: ``_HIDDEN_MARGIN`` of the tile on each side) may be that other tile under the figure
_HIDDEN_SHARE = 0.01
_HIDDEN_MARGIN = 0.03
#: what each pixel of a feature map is: a field, a road, a city, a monastery or an Under the Big Top space
_KIND_CODE = {Kind.FIELD: 1, Kind.ROAD: 2, Kind.CITY: 3, Kind.MONASTERY: 4}


@cache
def _kind_maps() -> tuple[tuple[tuple[str, int], ...], NDArray[Any]]:
    """Every tile and turn of the catalog, and its map of kinds (`_KIND_CODE`; 5 on a centre space, 0 where nothing is)."""
    pairs = tuple(dict.fromkeys((name, canonical_rotation(name, rot)) for name in CATALOG for rot in (0, 90, 180, 270)))
    maps = np.zeros((len(pairs), MAP_SIZE, MAP_SIZE), np.int8)
    for k, (name, rot) in enumerate(pairs):
        fmap = feature_map(name, rot)
        segments = rotated(name, rot).segments
        for i, seg in enumerate(segments):
            maps[k][fmap == i] = _KIND_CODE[seg.kind]
        maps[k][fmap == CENTRE] = 5
    return pairs, maps


@cache
def _differ() -> NDArray[Any]:
    """On how many pixels each two tiles and turns of `_kind_maps` differ: ``(pairs, pairs)``."""
    maps = _kind_maps()[1]
    out: NDArray[Any] = np.stack([(maps != own).sum(axis=(1, 2)) for own in maps])
    return out


def hidden_rivals(name: str, rotation: int, box: tuple[float, float, float, float],
                  edges: dict[int, Edge] | None = None, expansion: bool = True) -> list[tuple[str, int]]:
    """The tiles and turns (type, rotation) that tile ``name`` turned ``rotation`` may be under a figure whose box
    (u0, v0, u1, v1: shares of the tile side from its north-west corner) covers it: their features differ from its
    own there, and nowhere else but on at most `_HIDDEN_SHARE` of the tile (a road's end under a meeple: A, a
    monastery with its road, under a meeple on the road looks like B, the monastery alone). ``edges`` (side index,
    N E S W, to the edge it must have there) keeps only those that fit the tile's neighbours; without ``expansion``
    (no Under the Big Top tile on the board) only base tiles."""
    pairs, maps = _kind_maps()
    k = pairs.index((name, canonical_rotation(name, rotation)))
    s = MAP_SIZE
    u0, v0, u1, v1 = box
    x0, y0 = max(0, int(np.floor((u0 - _HIDDEN_MARGIN) * s))), max(0, int(np.floor((v0 - _HIDDEN_MARGIN) * s)))
    x1, y1 = min(s, int(np.ceil((u1 + _HIDDEN_MARGIN) * s))), min(s, int(np.ceil((v1 + _HIDDEN_MARGIN) * s)))
    under = (maps[:, y0:y1, x0:x1] != maps[k, y0:y1, x0:x1]).sum(axis=(1, 2))
    elsewhere = _differ()[k] - under
    out = []
    for j in np.flatnonzero((under > 0) & (elsewhere <= _HIDDEN_SHARE * s * s)):
        rival = pairs[int(j)]
        if not expansion and rival[0] in BIG_TOP_TILES:
            continue
        if edges and any(rotated(*rival).edges[side] is not edge for side, edge in edges.items()):
            continue
        out.append(rival)
    return out


def space_twins(name: str, rotation: int, circus: bool) -> list[tuple[str, int]]:
    """The Under the Big Top tiles and turns (type, rotation) with the same edges as base tile ``name`` turned
    ``rotation`` around an acrobat space (a circus space with ``circus``): a figure on that space hides it, and the
    tile then looks like the base tile. An Under the Big Top tile has none."""
    if name in BIG_TOP_TILES:
        return []
    want = Special.CIRCUS if circus else Special.ACROBATS
    edges = rotated(name, rotation).edges
    return list(dict.fromkeys((twin, canonical_rotation(twin, r)) for twin in BIG_TOP_TILES
                              if CATALOG[twin].special is want for r in (0, 90, 180, 270)
                              if rotated(twin, r).edges == edges))


def _hides_space(blob: _Blob, follower: FigureReading | None, blobs: NDArray[Any], light: NDArray[Any],
                 seen: NDArray[Any]) -> bool:
    """Whether ``blob`` on a base tile may hide the centre space of its Under the Big Top twin (`space_twins`): the Big
    Top over the middle, or a figure whose footprint centre lies within `_STACK_NEAR` of it (where an acrobat stack
    stands) that is neither flat tile art (`_rim`) nor a sure follower on the tile's monastery (``follower``)."""
    off = float(np.hypot(blob.u - 0.5, blob.v - 0.5))
    if blob.colour == "big-top":
        return blob.area > 0.1 and off < _ACROBAT_SPACE
    if off >= _STACK_NEAR or (follower is not None and follower.feature == "monastery"):
        return False
    return blob.colour not in _ART_HUES or _rim(blob, blobs, light, seen) >= _MIN_RIM


def _box_on_tile(blob: _Blob) -> tuple[float, float, float, float]:
    """``blob``'s box on its cell (u0, v0, u1, v1: shares of the tile side from the cell's north-west corner)."""
    x, y, w, h = blob.box
    cx, cy = blob.corner
    return (x - cx) / _CUT, (y - cy) / _CUT, (x + w - cx) / _CUT, (y + h - cy) / _CUT


def _neighbour_edges(by_cell: Mapping[tuple[int, int], Any], cell: tuple[int, int]) -> dict[int, Edge]:
    """The edge each side (N E S W) of ``cell`` must have to fit the reported tile beside it (``by_cell``)."""
    out: dict[int, Edge] = {}
    for side, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
        t = by_cell.get((cell[0] + dx, cell[1] + dy))
        if t is not None:
            out[side] = rotated(t.tile, t.rotation).edges[(side + 2) % 4]
    return out


def rim_contrast(blobs: NDArray[Any], label: int, box: tuple[int, int, int, int], light: NDArray[Any],
                 seen: NDArray[Any]) -> float:
    """How much darker the rim just outside blob ``label`` of ``blobs`` (a label image; ``box``: its left, top, width,
    height) is than both the blob and the tile beyond the rim, in ``light`` (the lightness of the same pixels): a
    figure standing on its tile shows a dark edge (its outline, its shadow), a patch of the tile's own art none.

    Only pixels inside ``seen`` (the tiles searched) count; with no rim or nothing beyond it there (a blob filling
    the search), nothing tells against a figure: infinity."""
    x, y, w, h = box
    pad = 2 * _RIM + 1
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(blobs.shape[1], x + w + pad), min(blobs.shape[0], y + h + pad)
    own = (blobs[y0:y1, x0:x1] == label).astype(np.uint8)
    lit = np.asarray(light[y0:y1, x0:x1], np.float32)
    inside = np.asarray(seen[y0:y1, x0:x1], bool)
    kernel = np.ones((3, 3), np.uint8)
    near = cv2.dilate(own, kernel, iterations=_RIM) > 0
    far = cv2.dilate(own, kernel, iterations=2 * _RIM) > 0
    rim = near & (own == 0) & inside
    beyond = far & ~near & inside
    if not rim.any() or not beyond.any() or not own.any():
        return float("inf")
    edge = float(np.percentile(lit[rim], _RIM_PERCENTILE))
    return min(float(np.median(lit[own > 0])), float(np.median(lit[beyond]))) - edge


def roof_box(rotation: int) -> tuple[float, float, float, float]:
    """Where a monastery's roof lies on its tile turned ``rotation`` degrees clockwise: (u0, v0, u1, v1), shares of
    the tile side from its north-west corner."""
    u0, v0, u1, v1 = _MONASTERY_ROOF
    for _ in range((rotation // 90) % 4):
        # a quarter turn clockwise takes (u, v) to (1 - v, u)
        u0, v0, u1, v1 = 1.0 - v1, u0, 1.0 - v0, u1
    return u0, v0, u1, v1


def under_roof(name: str, rotation: int, u: float, v: float) -> bool:
    """Whether the point (``u``, ``v``) (shares of the tile side from its north-west corner) lies on the roof of the
    monastery on tile ``name`` turned ``rotation`` degrees: a figure's footprint there is the roof's own shape (a
    meeple on the monastery stands at its middle, south of the roof)."""
    if not any(seg.kind is Kind.MONASTERY for seg in CATALOG[name].segments):
        return False
    u0, v0, u1, v1 = roof_box(rotation)
    return u0 <= u <= u1 and v0 <= v <= v1


def on_roof(name: str, rotation: int, box: tuple[int, int, int, int], left: float, top: float,
            cut: int = _CUT) -> bool:
    """Whether a blob's ``box`` (left, top, width, height, pixels of ``cut``-pixel tiles) reaches over the roof of the
    monastery on tile ``name`` turned ``rotation`` degrees, whose north-west corner is at (``left``, ``top``): its
    roof, drawn in a roof colour that may be a player's, may be all of the blob or have made a meeple look larger."""
    if not any(seg.kind is Kind.MONASTERY for seg in CATALOG[name].segments):
        return False
    u0, v0, u1, v1 = roof_box(rotation)
    x, y, w, h = box
    over_u = min(x + w, left + u1 * cut) - max(x, left + u0 * cut)
    over_v = min(y + h, top + v1 * cut) - max(y, top + v0 * cut)
    # overlapping by at least a fifth of the roof's extent both ways: more than a figure's edge grazing it
    return over_u > 0.2 * (u1 - u0) * cut and over_v > 0.2 * (v1 - v0) * cut


def find_figures(photo: NDArray[Any], tiles: Sequence[Any], corners: dict[tuple[int, int], NDArray[Any]],
                 reference: NDArray[Any] | None = None) -> list[FigureReading]:
    """The figures `search_figures` is sure of."""
    return list(search_figures(photo, tiles, corners, reference).sure)


def acrobat_stack(parts: Sequence[tuple[tuple[int, int, int, int], float, int]], pixels: NDArray[Any] | None = None,
                  cut: int = _CUT) -> tuple[int, float]:
    """How many acrobats of one colour stand on one acrobat space, and how sure that is, from the pieces of that
    colour found there: each piece's box (left, top, width, height, in pixels of a ``cut``-pixel tile), confidence
    and pixels. The stack's height is that of all its pieces together (each acrobat shows a step above the one it
    stands on; their outlines may cut the stack in pieces); the confidence is the pieces' own, weighed by size.

    ``pixels`` (a mask in the boxes' coordinates: the colour's pixels on the acrobat space) lets the stack reach on
    above and below its pieces, over gaps of at most `_STACK_GAP` rows, through the columns the pieces stand in: the
    acrobats under the top one show a strip each, too small to be a piece of its own."""
    top = min(b[1] for b, _, _ in parts)
    bottom = max(b[1] + b[3] for b, _, _ in parts)
    if pixels is not None:
        left = max(0, min(b[0] for b, _, _ in parts) - 1)
        right = max(b[0] + b[2] for b, _, _ in parts) + 1
        rows = np.flatnonzero(np.asarray(pixels)[:, left:right].sum(axis=1) >= 2)
        while True:
            below = rows[(rows >= bottom) & (rows < bottom + _STACK_GAP)]
            above = rows[(rows < top) & (rows >= top - _STACK_GAP)]
            if not len(below) and not len(above):
                break
            bottom = int(below.max()) + 1 if len(below) else bottom
            top = int(above.min()) if len(above) else top
    count = int(np.clip(round(((bottom - top) / cut - _SIZE["acrobat"]) / _STEP) + 1, 1, 3))
    weight = sum(n for _, _, n in parts)
    return count, float(sum(c * n for _, c, n in parts) / max(weight, 1))


def random_figures(tiles: Sequence[Any], rng: np.random.Generator, colors: Sequence[str] = tuple(COLORS),
                   share: float = 0.35, tokens: np.random.Generator | None = None) -> list[PlacedFigure]:
    """Figures for a drawn layout (`vision.carcassonne.board.Placed` tiles): a meeple on about ``share`` of the tiles,
    one ringmaster of the first colour, a stack of one to three acrobats on each acrobat tile now and then, and
    the Big Top on a circus tile when the layout has one. Not checked against the rules (a feature may hold two).

    With ``tokens`` (a generator of its own, so that the other figures are those drawn without it), half the time
    the Big Top is lifted and the animal token under it lies face up in its place (an animal drawn as from the box).
    """

    out: list[PlacedFigure] = []
    circus = [t for t in tiles if CATALOG[t.tile].special is Special.CIRCUS]
    if circus:
        t = circus[int(rng.integers(len(circus)))]
        if tokens is not None and tokens.random() < 0.5:
            box = [a.value for a in Animal for _ in range(a.count)]
            out.append(PlacedFigure(t.x, t.y, TOKEN, "", "circus", animal=box[int(tokens.integers(len(box)))]))
        else:
            out.append(PlacedFigure(t.x, t.y, "big-top", "", "circus"))
    ring = False
    for t in tiles:
        special = CATALOG[t.tile].special
        if special is Special.ACROBATS and rng.random() < 0.6:
            out.append(PlacedFigure(t.x, t.y, "acrobat", str(rng.choice(list(colors))), "acrobats", int(rng.integers(1, 4))))
            continue
        if special is Special.CIRCUS or rng.random() >= share:
            continue
        view = rotated(t.tile, t.rotation)
        spots = list(dict.fromkeys(view.segments[i].spot for i in set(view.spots.values())))
        kind = "meeple" if ring or rng.random() < 0.8 else "ringmaster"
        ring = ring or kind == "ringmaster"
        out.append(PlacedFigure(t.x, t.y, kind, str(rng.choice(list(colors))), str(spots[int(rng.integers(len(spots)))])))
    return out
