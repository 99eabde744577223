"""Circus Flohcati's recogniser: one camera frame -> the cards on the mat, by zone (a `FlohcatiView`).

Stages: the mat's markers (in a large frame first the slow search in the
frame shrunk, the markers it misses searched where they must lie,
`vision.calibrate.find_markers_reduced`; the vision core's fast search; the
slow one only when the fast one does not fix the mat, with the fast one's
threshold window first; when neither decodes enough of them, the undecoded squares matched
against the dictionary's codes, blurred, a mat marker taken only with a clear
lead) and its homography (`vision.calibrate`); then the cards' codes, searched
in the part of the frame where the zones lie, sharpened and enlarged where they
are small, with one threshold window, and (below 2048 px) with the larger ones
only around the places a card may lie whose code that did not read (a slot of
a zone filled slot by slot up to the one after its last card, the request
strip, an undecoded code-sized square), or over all the zones where such a
place shows a square they cannot decode either; each card code's centre and
side in table millimetres, its zone
(`vision.flohcati.layout.zone_of`). A square of a card code's size that the
detector found but could not decode, inside a zone where cards belong, is cut
out, enlarged and read again; when blur has smeared its cells together
(`match_code`) it is compared with every card's code, blurred, and named only
when one code matches it clearly better than any other in any turn and no
glare lies on it; or, with the light evened out (`vision.codematch.local_contrast`:
glare that washes a code out leaves its cells' pattern), when every evening
puts the same code first with a wider lead. Otherwise it is reported as
unrecognised, never guessed.

Between frames the recogniser remembers the row: a row card no longer read is
reported unrecognised (held) unless the table shows that it left: it is read
elsewhere, another card's code lies on its place, or its place shows neither
code-like dark cells nor glare brighter than the paper. Glare over a card is
never taken for a card taken from the row. In one frame, a place of the row, the
action lane or a seat zone (each filled slot by slot) whose code glare brighter
than the paper covers is reported unrecognised too: before a card read in the
same lane or zone, and past the last one while the card's face below its code
shows (ink where the bare mat prints none) or a later place shows a card past
places glare hides whole; so is the request strip's card when glare covers its
code and its face shows below the strip. A card hidden by
glare is asked about, never silently missed; glare over bare places asks nothing.

With an enrolled deck (a published deck, whose cards carry no code), a card whose code square is seen but
not decoded is read by its art where it lies; and in each zone filled slot by slot (the row, the action
lane, the seat zones) where no code is read, the cards are found at their slots by how the place differs
from the bare mat, cut out and read through the deck, whole or by the part the cards laid over them leave
in view (`Recognizer._read_codeless`); a Request card on the request strip is found at the colour field it lies
on, upright or sideways, and read the same way. Unsure is unrecognised, never a guess.

On a still table's live frames the work of the frame before is kept where the frame shows the same
within sensor noise (no 4x4 block's mean moved by more than `vision.calibrate.REGION_SAME` grey
levels, compared with the frame that was searched): the mat's markers, and so its calibration, while
the region around each marker is unchanged; the cards' codes too while, besides, the mat's whole part
of the frame is. A card put down or taken, a hand, a shadow or a moved table searches again.

>>> from vision.flohcati.pipeline import Recognizer   # doctest: +SKIP
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.core import UnknownComponent
from scorer.flohcati.cards import Action, Colour, DeckCard, Flea, card_name, parse_card
from scorer.flohcati.observe import TableSight
from vision import NoMatError
from vision.calibrate import (
    Calibration,
    Calibrator,
    FrameBlur,
    Marker,
    block_means,
    find_markers,
    find_markers_reduced,
    find_missing_mat_markers,
    looks_same,
    mat_homography,
    reduction,
    sharpen_sigma,
)
from vision.classify import Verdict
from vision.codematch import CodeTemplates, code_templates, local_contrast, mat_markers_by_matching, match_patch
from vision.config import VisionConfig
from vision.flohcati.layout import (
    ARUCO_DICTIONARY,
    CARD,
    CARD_PARTS,
    CODE_CENTRE,
    CODE_SIZE,
    FAN_STEP,
    GEOMETRY,
    MAT,
    MAX_SEATS,
    ROW_STEP,
    Area,
    card_of_id,
    is_card_id,
    lanes,
    request_field,
    request_slot,
    visible_part,
    zone_of,
)
from vision.geometry import Image

__all__ = ["CONFIG", "CodeMatch", "FlohcatiView", "PlaceLook", "Recognition", "Recognizer", "SeenCard", "StageTimes",
           "annotate", "match_code", "place_look", "tints", "visible_part"]

CONFIG = VisionConfig(table=GEOMETRY)

#: A code whose side in table millimetres is off by more than this fraction is not trusted.
_SIZE_TOLERANCE = 0.3
#: Codes of one id closer than this (mm) are one card.
_SAME_CARD_MM = 8.0
_WATCHED = (Area.ROW, Area.ACTIONS, Area.REQUEST, Area.SEAT)
#: Codes smaller than this (pixels across) are read again in an enlarged frame, at most this much larger.
_SMALL_CODE_PX = 44.0
_MAX_ENLARGE = 2.5
#: At most this many undecoded squares are read again per frame.
_MAX_RETRIES = 40
#: The smallest code perimeter searched for, as a fraction of the frame's longer side.
_MIN_PERIMETER = 0.06
#: The cards' codes are searched with the detector's smallest threshold window alone (a third of the detector's time
#: at 1280x960, half or less at 2304x1296). In a frame whose longer side is at least this (px)...
_ONE_WINDOW_SIDE = 2048
#: ... they are searched again with every window where that leaves at least this many code-sized squares undecoded
#: (set on 13 tuning frames: the two whose codes the one window missed left 2 and 4; two more left 2 and 3, nine 0
#: or 1)...
_SEARCH_AGAIN_SQUARES = 2
#: ... in a smaller one, with the larger windows only where a card may lie whose code that search did not read
#: (`_places_to_look`; over all the zones where one of those shows a square no window decodes): a slot of a zone
#: filled slot by slot is held when a code was read within this (mm) of where its code lies...
_SLOT_HELD = 12.0
#: ... and each such place is searched this far (mm) beyond the code's half side (a card laid a little off its slot)
_PLACE_SLACK = 8.0
#: Detectors kept (one per threshold window and smallest perimeter; a still camera needs one).
_MAX_DETECTORS = 16
#: The codes are searched where the zones of `_WATCHED` lie and this far (mm) around them: a code's half side,
#: half the detector's largest threshold window and the unsharp mask's reach, with room to spare
_SEARCH_MARGIN = 40.0
#: a kept mat marker's region reaches this many of its sides beyond it on every side (`Recognizer._kept_mat`)
_KEEP_MARGIN = 0.5
#: A frame not shrunk for the mat search (`reduction` 1) whose longer side is at least this (px) is searched for the
#: mat markers the fast search missed first in the frame shrunk by half (`find_markers_reduced`, one threshold window):
#: a quarter of the pixels of the whole frame's slow search (on 120 tuning frames at 1280x960 the same cards read)
_HALVED_SIDE = 1280


@dataclass(frozen=True, slots=True)
class SeenCard:
    """A card's code found on the table: the card, its code's centre (table mm), its turn (degrees) and zone."""

    card: DeckCard
    x: float
    y: float
    angle: float
    area: Area
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class FlohcatiView:
    """Everything the recogniser read: the cards by zone, and what it could not read (in words)."""

    cards: tuple[SeenCard, ...]
    unreadable: tuple[tuple[float, float, str], ...] = ()

    def in_area(self, area: Area, seat: int | None = None) -> list[SeenCard]:
        """The cards of one zone (sorted left to right)."""
        return sorted((c for c in self.cards if c.area is area and (seat is None or c.seat == seat)),
                      key=lambda c: (c.x, c.y))

    def sight(self, seats: int = MAX_SEATS) -> TableSight:
        """The referee's `TableSight` (cards where they cannot be are reported as unrecognised)."""
        problems = [text for _, _, text in self.unreadable]
        row: list[Flea] = []
        for c in self.in_area(Area.ROW):
            if isinstance(c.card, Flea):
                row.append(c.card)
            else:
                problems.append(f"The {c.card.label} card lies in the row, where only fleas go.")
        counts = {a: 0 for a in Action}
        for c in self.in_area(Area.ACTIONS):
            if isinstance(c.card, Action):
                counts[c.card] += 1
            else:
                problems.append(f"The {c.card.label} lies in the action lane, where only action cards go.")
        request: tuple[Colour, bool] | None = None
        on_strip = self.in_area(Area.REQUEST)
        for c in on_strip:
            if c.card is not Action.REQUEST:
                problems.append(f"The {_label(c.card)} lies on the request strip, where only Request attraction goes.")
                continue
            counts[Action.REQUEST] += 1
            colour = request_field(c.x)
            if colour is None:
                continue
            turned = abs(((c.angle + 45.0) % 180.0) - 45.0) > 45.0
            request = (colour, turned)
        if len(on_strip) > 1:
            problems.append("More than one card lies on the request strip: move the old one to the action lane.")
        zones: list[set[Flea]] = [set() for _ in range(seats)]
        for c in self.cards:
            if c.area is Area.SEAT and c.seat is not None and c.seat < seats and isinstance(c.card, Flea):
                zones[c.seat].add(c.card)
        return TableSight(tuple(row), tuple((a, counts[a]) for a in Action),
                          tuple(frozenset(z) for z in zones), request, tuple(dict.fromkeys(problems)))

    def to_json(self) -> dict[str, Any]:
        """The view as JSON: the row in order, the action lane, the request strip, each seat's cards."""
        def names(cards: Sequence[SeenCard]) -> list[str]:
            return [card_name(c.card) for c in cards]

        return {
            "game": "flohcati",
            "row": names(self.in_area(Area.ROW)),
            "actions": names(self.in_area(Area.ACTIONS)),
            "request": names(self.in_area(Area.REQUEST)),
            "seats": {str(s + 1): names(self.in_area(Area.SEAT, s)) for s in range(MAX_SEATS)},
            "unrecognised": [text for _, _, text in self.unreadable],
        }

    def describe(self) -> str:
        """The view in words."""
        data = self.to_json()
        lines = [f"row: {' '.join(data['row']) or '(empty)'}",
                 f"action cards: {' '.join(data['actions']) or '(none)'}"]
        if data["request"]:
            lines.append(f"request strip: {' '.join(data['request'])}")
        for seat, cards in data["seats"].items():
            if cards:
                lines.append(f"seat {seat}: {' '.join(cards)}")
        lines += [f"unrecognised: {u}" for u in data["unrecognised"]]
        return "\n".join(lines)


def _label(card: DeckCard) -> str:
    return card.label


@dataclass
class StageTimes:
    """Milliseconds per stage of the latest frame."""

    markers: float = 0.0
    calibrate: float = 0.0
    view: float = 0.0
    #: stages of recognisers that find and classify cards by their pictures: none here (the codes name the cards)
    rectify: float = 0.0
    detect: float = 0.0
    crops: float = 0.0
    classify: float = 0.0


@dataclass
class Recognition:
    """One frame's result: the view, the markers and the stage times."""

    view: FlohcatiView
    markers: tuple[Marker, ...] = ()
    image_to_table: NDArray[Any] | None = None
    times: StageTimes = field(default_factory=StageTimes)


def _detector(window: int, min_perimeter: float, one_window: bool = False,
              larger: bool = False) -> cv2.aruco.ArucoDetector:
    """The code detector: several threshold windows around ``window`` (px), a tolerant polygon fit and
    decoder (the 4x4 codes' cells are large), sub-pixel corners. ``one_window``: the smallest of those
    windows alone; ``larger``: every window but the smallest."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # a card's code is about 50 px across in a 1280 px frame; far smaller squares are print detail
    params.minMarkerPerimeterRate = min_perimeter
    params.adaptiveThreshWinSizeMin = max(3, window // 2 | 1)
    params.adaptiveThreshWinSizeMax = params.adaptiveThreshWinSizeMin if one_window else 3 * window
    params.adaptiveThreshWinSizeStep = max(2, window)
    if larger:
        params.adaptiveThreshWinSizeMin += params.adaptiveThreshWinSizeStep
    params.adaptiveThreshConstant = 5
    params.polygonalApproxAccuracyRate = 0.05
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    params.errorCorrectionRate = 0.8
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


def _retry_detector(window: int) -> cv2.aruco.ArucoDetector:
    """The detector for one enlarged, sharpened square cut out of the frame (the code fills much of it)."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.2
    params.adaptiveThreshWinSizeMin = max(3, window // 2 | 1)
    params.adaptiveThreshWinSizeMax = 3 * window
    params.adaptiveThreshWinSizeStep = max(2, window // 2)
    params.adaptiveThreshConstant = 5
    params.polygonalApproxAccuracyRate = 0.06
    params.perspectiveRemovePixelPerCell = 10
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    params.errorCorrectionRate = 0.8
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


#: The close reading of a code square the detector found but could not decode (blur smears its cells
#: into one another): the square is seen from straight above at `_MATCH_PX_PER_MM`, with this much (mm)
#: of the white around the code, found within `_MATCH_SEARCH` mm of where the square lies, and compared
#: with every card's code blurred as much as each of `_MATCH_BLURS` (mm).
_MATCH_PX_PER_MM = 1.5
_MATCH_SURROUND = 1.5
_MATCH_SEARCH = 2.0
_MATCH_BLURS = (0.5, 1.0, 1.5, 2.0)
#: ... a card is named when its code's correlation is at least `_MATCH_MIN` and ahead of any other code's,
#: in any turn, by `_MATCH_MARGIN`
_MATCH_MIN = 0.85
_MATCH_MARGIN = 0.05
#: ... and when no more than this share of the code's pixels is saturated
_MATCH_GLARED = 0.01
#: a code glare washes out (or that matches no card clearly as it is) is matched again with the light
#: evened out (`vision.codematch.local_contrast`) over each of `_CONTRAST_MM` (mm): named when every one of
#: them puts the same code first, at least `_MATCH_MIN` and ahead of any other code's by `_CONTRAST_MARGIN`
_CONTRAST_MM = (2.0, 3.0, 5.0)
_CONTRAST_MARGIN = 0.15


def _code_templates() -> CodeTemplates:
    """Every card's code (its side `CODE_SIZE` at `_MATCH_PX_PER_MM`), blurred as much as each of `_MATCH_BLURS`."""
    s = _MATCH_PX_PER_MM
    return code_templates(ARUCO_DICTIONARY, tuple(sorted(i for i in range(100) if is_card_id(i))),
                          int(round(CODE_SIZE * s)), int(round(_MATCH_SURROUND * s)),
                          tuple(b * s for b in _MATCH_BLURS))


@dataclass(frozen=True, slots=True)
class CodeMatch:
    """What `match_code` found: the card's code id (None when no card's code clearly lies there), the code's
    turn (degrees, clockwise, as the codes the detector reads), the best correlation and its lead over
    any other code's in any turn."""

    id: int | None
    turn: float
    score: float
    lead: float


def match_code(gray: Image, to_table: NDArray[Any], x: float, y: float, turn: float,
               allowed: tuple[int, ...] = (0,)) -> CodeMatch:
    """The card code that clearly lies at table point (x, y), its sides turned ``turn`` degrees (mod 90).

    Each card's code is matched in its four turns; ``allowed``: the quarter turns (0..3,
    clockwise) a card may lie in there: a code matched in another turn is not taken.
    """
    t = _code_templates()
    s = _MATCH_PX_PER_MM
    big = t.size + 2 * int(round(_MATCH_SEARCH * s))
    a = math.radians(((turn + 45.0) % 90.0) - 45.0)
    ca, sa = math.cos(a) / s, math.sin(a) / s
    c = (big - 1) / 2
    # patch pixel -> table mm (turned with the code) -> image pixel
    to_mm = np.array([[ca, -sa, x - ca * c + sa * c], [sa, ca, y - sa * c - ca * c], [0, 0, 1]], np.float64)
    patch = cv2.warpPerspective(gray, np.linalg.inv(to_table) @ to_mm, (big, big),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    found = match_patch(np.asarray(patch, np.float32), t, _SATURATED, _MATCH_GLARED)
    turned = math.degrees(a) + 90.0 * found.quarter
    if found.id is None or found.score < _MATCH_MIN or found.lead < _MATCH_MARGIN or found.quarter not in allowed:
        washed = [match_patch(local_contrast(np.asarray(patch, np.float32), mm * s), t, math.inf)
                  for mm in _CONTRAST_MM]
        named = {(w.id, w.quarter) for w in washed
                 if w.score >= _MATCH_MIN and w.lead >= _CONTRAST_MARGIN and w.quarter in allowed}
        if len(named) == 1 and all(w.id == washed[0].id for w in washed):
            best = max(washed, key=lambda w: w.score)
            return CodeMatch(best.id, math.degrees(a) + 90.0 * best.quarter, best.score, best.lead)
        return CodeMatch(None, turned, found.score, found.lead)
    return CodeMatch(found.id, turned, found.score, found.lead)


class Recognizer:
    """Frame -> `Recognition`. Keeps the mat's calibration between frames (`reset` forgets it)."""

    def __init__(self, config: VisionConfig = CONFIG, classifier: Any = None) -> None:
        self.config = config
        #: an enrolled deck's reader (`vision.classify.CropReader`): reads a card whose code is not read
        self.classifier = classifier
        self.calibrator = Calibrator(config)
        self._detectors: dict[tuple[int, float, bool, bool], cv2.aruco.ArucoDetector] = {}
        self._retries: dict[int, cv2.aruco.ArucoDetector] = {}
        #: the row's cards as last known (card, code centre in table mm): read, or held since
        self._row: list[tuple[DeckCard, float, float]] = []
        #: the mat's markers of the last frame that calibrated, and each one's region (x0, y0, x1, y1) with
        #: its 4x4 blocks' means in that frame (`_kept_mat`)
        self._mat: tuple[Marker, ...] = ()
        self._mat_regions: list[tuple[int, int, int, int, NDArray[np.int16]]] = []
        #: frames calibrated by the mat's markers kept from the frame before, without a search (a count)
        self.mat_kept = 0
        #: the codes of the last search (`_find_codes`): the mat's box in the frame (x0, y0, x1, y1), the block means
        #: of its part of the frame searched (`block_means`), the markers and the undecoded squares
        self._codes: tuple[tuple[int, int, int, int], NDArray[np.int16], tuple[Marker, ...], list[NDArray[Any]]] | None = None
        #: frames whose codes were kept from the frame before, without a search (a count)
        self.codes_kept = 0
        #: the enrolled deck's templates cut to each part of a card read (`_part_reader`)
        self._parts: dict[tuple[int, tuple[float, float, float, float]], _PartReader] = {}

    def reset(self) -> None:
        """Forget the cached calibration, the mat's markers and the row's cards."""
        self.calibrator.reset()
        self._row = []
        self._mat = ()
        self._mat_regions = []
        self._codes = None

    def _remember_mat(self, gray: Image, mat: tuple[Marker, ...]) -> None:
        """Keep ``mat`` (the markers that calibrated this frame) and how each one's region looks now."""
        regions = []
        h, w = gray.shape[:2]
        for m in mat:
            x0, y0 = np.floor(m.corners.min(0)).astype(int)
            x1, y1 = np.ceil(m.corners.max(0)).astype(int)
            pad = int(math.ceil(_KEEP_MARGIN * max(x1 - x0, y1 - y0))) + 4
            x0, y0, x1, y1 = max(0, int(x0) - pad), max(0, int(y0) - pad), min(w, int(x1) + pad), min(h, int(y1) + pad)
            if x1 - x0 < 4 or y1 - y0 < 4:
                self._mat, self._mat_regions = (), []
                return
            regions.append((x0, y0, x1, y1, block_means(gray[y0:y1, x0:x1])))
        self._mat, self._mat_regions = mat, regions

    def _kept_mat(self, gray: Image) -> tuple[Marker, ...] | None:
        """The mat's markers of the frame before, when the region around each shows the same now within sensor
        noise (`vision.calibrate.looks_same`: a marker moved by a pixel, a hand or a shadow over it moves some
        blocks by far more); None otherwise. The very same markers give the cached
        calibration back without a search or a fit (`Calibrator.update`)."""
        if not self._mat or self.calibrator.cached is None:
            return None
        h, w = gray.shape[:2]
        for x0, y0, x1, y1, then in self._mat_regions:
            if x1 > w or y1 > h:
                return None
            if not looks_same(then, block_means(gray[y0:y1, x0:x1])):
                return None
        return self._mat

    def _hold_row(self, gray: Image, view: FlohcatiView, to_table: NDArray[Any]) -> FlohcatiView:
        """The view with every row card of the frames before that is not read now, and that nothing shows
        has left, reported unrecognised: a card lost to glare is held, never taken as gone.

        A card has left when it is read anywhere now, when another card's code lies on its place (the row
        closed up), or when its place shows neither code-like dark cells nor glare brighter than the paper
        (the card under it, or the mat); anything else there holds it.
        """
        held: list[tuple[DeckCard, float, float]] = []
        extra: list[tuple[float, float, str]] = []
        if self._row:
            paper = _paper_level(gray, view, to_table)
            for card, x, y in self._row:
                if any(c.card == card or math.hypot(c.x - x, c.y - y) < CODE_SIZE for c in view.cards):
                    continue
                flagged = any(math.hypot(ux - x, uy - y) < _SAME_CARD_MM for ux, uy, _ in view.unreadable)
                if not flagged and _shows_gone(gray, to_table, x, y, paper):
                    continue
                held.append((card, x, y))
                if not flagged:
                    extra.append((x, y, "A card in the row could not be read (glare?)."))
        self._row = [(c.card, c.x, c.y) for c in view.in_area(Area.ROW)] + held
        return FlohcatiView(view.cards, view.unreadable + tuple(extra)) if extra else view

    def _read_again(self, gray: Image, markers: tuple[Marker, ...], rejected: list[NDArray[Any]],
                    to_table: NDArray[Any]) -> tuple[Marker, ...]:
        """Codes found among the squares the detector could not decode: each square of a code's size in a
        zone where cards lie, not at a card already read, is cut out, enlarged and read once more."""
        read = [(float(x), float(y)) for m in markers if is_card_id(m.id)
                for x, y in [_to_table(m.corners, to_table).mean(0)]]
        out: list[Marker] = []
        tries = 0
        for quad in rejected:
            found = _square(_to_table(quad, to_table))
            if found is None or zone_of(found[0], found[1])[0] not in _WATCHED:
                continue
            if any(math.hypot(x - found[0], y - found[1]) < _SAME_CARD_MM for x, y in read):
                continue
            tries += 1
            if tries > _MAX_RETRIES:
                break
            side = float(np.ptp(quad[:, 0]) + np.ptp(quad[:, 1])) / 2
            x0, y0 = (quad.min(0) - side * 0.6).astype(int)
            x1, y1 = (quad.max(0) + side * 0.6).astype(int)
            x0, y0 = max(0, x0), max(0, y0)
            crop = gray[y0:y1, x0:x1]
            if crop.size == 0:
                continue
            f = 4.0
            big = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
            big = cv2.addWeighted(big, 2.0, cv2.GaussianBlur(big, (0, 0), 1.5 * f), -1.0, 0)
            window = max(3, 8 * int(round(side * f * 0.35 / 8)) + 1)
            retry = self._retries.get(window)
            if retry is None:
                retry = self._retries[window] = _retry_detector(window)
            corners, ids, _ = retry.detectMarkers(big)
            got = False
            for c, i in zip(corners, () if ids is None else ids.ravel()):
                if is_card_id(int(i)):
                    pts = np.asarray(c, np.float64).reshape(4, 2) / f + (x0, y0)
                    out.append(Marker(int(i), pts))
                    cx, cy = _to_table(pts, to_table).mean(0)
                    read.append((float(cx), float(cy)))
                    got = True
            if got:
                continue
            # the code's cells smeared together: matched against every card's code, blurred
            area = zone_of(found[0], found[1])[0]
            match = match_code(gray, to_table, found[0], found[1], found[3], (0, 1) if area is Area.REQUEST else (0,))
            if match.id is not None:
                # the square the code fills, in the image, its corners in the detector's order
                h = CODE_SIZE / 2
                a = math.radians(match.turn)
                ca, sa = math.cos(a), math.sin(a)
                square = np.array([[found[0] + ca * u - sa * v, found[1] + sa * u + ca * v]
                                   for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))], np.float64)
                out.append(Marker(match.id, _to_table(square, np.linalg.inv(to_table))))
                read.append((found[0], found[1]))
        return tuple(out)

    def _read_faces(self, frame: Image, view: FlohcatiView, to_table: NDArray[Any]) -> FlohcatiView:
        """The view with each card whose code could not be read named by the enrolled deck, where it is sure.

        The card is taken to lie as the layout lays cards (upright, its code in its top-left
        corner); its face field is cut from the frame there. A card fanned under another shows
        only its corner: the deck is then unsure and the card stays unreadable.
        """
        from scorer.core import UnknownComponent
        from scorer.flohcati.cards import parse_card
        from vision.flohcati.layout import CARD, CODE_CENTRE

        w, h = getattr(self.classifier, "crop_size", (40, 56))
        colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        to_image = np.linalg.inv(to_table)
        inset = CARD.margin + CARD.frame
        crops = []
        for x, y, _ in view.unreadable:
            left, top = x - CODE_CENTRE[0], y - CODE_CENTRE[1]
            box = np.array([[left + inset, top + inset], [left + CARD.width - inset, top + inset],
                            [left + CARD.width - inset, top + CARD.height - inset],
                            [left + inset, top + CARD.height - inset]], np.float64)
            corners = cv2.perspectiveTransform(box[None], to_image)[0].astype(np.float32)
            m = cv2.getPerspectiveTransform(corners, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
            crops.append(cv2.warpPerspective(colour, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
        cards = list(view.cards)
        left_over = []
        for (x, y, text), rec in zip(view.unreadable, self.classifier.classify(np.stack(crops), 0.0)):
            try:
                card = parse_card(rec.label) if rec.label is not None else None
            except UnknownComponent:
                card = None
            if card is None:
                left_over.append((x, y, text))
                continue
            area, seat = zone_of(x, y)
            cards.append(SeenCard(card, x, y, 0.0, area, seat))
        return FlohcatiView(tuple(cards), tuple(left_over))

    def _read_codeless(self, frame: Image, view: FlohcatiView, to_table: NDArray[Any],
                       coded: set[tuple[Area, int | None]] | None = None,
                       ) -> tuple[FlohcatiView, set[tuple[Area, int | None]]]:
        """The view with the cards that carry no code (a published deck) found and read through the enrolled deck,
        and the zones so looked at: those where no card was read by its code (``coded``: the zones where one was;
        default those of the view's cards). A card the deck named from a code-sized square (`_read_faces`) in a zone
        looked at is set aside: the zone's slots decide, as they do for a square it could not name.

        In the row, the action lane and each seat zone, filled slot by slot, a slot holds a card when the place
        that only its card (or one laid after it) would cover shows no bare mat (`place_look`); every slot
        before the last such one does too. Each card is cut where the layout lays it and read through the
        deck: whole where no card lies over it (its templates, whole and the strip down its left edge, and the deck's
        own tests, among the cards that may lie there: `_agreed`), otherwise by the part the cards laid over it leave
        in view (`visible_part`, `_PartReader`). A Request card on the strip is read by `_read_request`. A card the
        deck is not sure of, and the first place after the last card when glare hides whether a card lies
        there, are reported unrecognised: never a guess, never a card taken for the bare mat unseen.
        """
        from scorer.flohcati.cards import FLEAS

        deck = self.classifier
        colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        mat = _BareMat.of(colour, to_table)
        size: tuple[int, int] = tuple(getattr(deck, "crop_size", (40, 56)))
        labels: tuple[str, ...] = tuple(getattr(deck, "labels", ()))
        fleas = tuple(card_name(f) for f in FLEAS)
        actions = tuple(a.value for a in Action)
        cards = list(view.cards)
        asked = list(view.unreadable)
        if coded is None:
            coded = {(c.area, c.seat) for c in view.cards}
        handled: set[tuple[Area, int | None]] = set()
        for area, seat, _, slots in lanes():
            centres = [(x + CODE_CENTRE[0], y + CODE_CENTRE[1]) for x, y in slots]
            if (area, seat) in coded:
                continue  # Ringside's printed cards: read by their codes
            handled.add((area, seat))
            # a code-sized square in a code-less deck's card is no code: the whole card cut there may show the cards
            # laid over it
            cards = [c for c in cards if not (c.area is area and c.seat == seat)]
            place = _SEAT_PLACE if area is Area.SEAT else _PLACE
            states: list[str] = []
            for left, top in slots:
                box = (left + place[0], top + place[1], left + place[2], top + place[3])
                if box[2] > MAT.width - 2.0 or box[3] > MAT.height - 2.0:
                    break
                states.append(place_look(colour, to_table, box, mat).state)
                if states[-2:] == ["bare", "bare"]:
                    break
            last = max((k for k, st in enumerate(states) if st == "card"), default=-1)
            # a place asked about from a code-sized square in this zone is decided here, slot by slot
            asked = [u for u in asked if zone_of(u[0], u[1]) != (area, seat)]
            allowed = actions if area is Area.ACTIONS else fleas
            among = np.array([x in allowed for x in labels], bool)
            by_part: dict[tuple[float, float, float, float], list[int]] = {}
            for k in range(last + 1):
                later = [(slots[j][0] - slots[k][0], slots[j][1] - slots[k][1]) for j in range(k + 1, last + 1)]
                by_part.setdefault(visible_part(later), []).append(k)
            for part, ks in by_part.items():
                judged: list[tuple[str | None, str | None]] = [(None, None)] * len(ks)
                strips: list[tuple[str | None, str]] | None = None
                if getattr(deck, "templates", None) is not None:
                    posed = np.stack([np.stack([_cut(colour, to_table, slots[k][0] + dx, slots[k][1] + dy, t, size)
                                                for k in ks]) for dx, dy, t in _POSES])
                    # the strip down the left edge tells values apart better than the whole card, whose print is
                    # mostly the same flea: a whole card is also named where the strip's read is sure of the card
                    # the whole card's templates rank first or cannot tell from it (`_WHOLE_TIE`), or where the
                    # strip ranks first a look-alike the whole card shows rather than its first (`turns_to`); where
                    # the two reads are sure of different cards, neither is taken, but for one colour's values, which
                    # the strip shows and the whole card's flea does not (`_whole_or_strip`)
                    strips = self._part_reader(CARD_PARTS[1]).judge(posed, among) if part == CARD_PARTS[0] else None
                    read, corr, tint = self._part_reader(part).judge_scored(
                        posed, among, None if strips is None else [best for _, best in strips])
                    judged = list(read)
                names = [sure for sure, _ in judged]
                if part == CARD_PARTS[0]:
                    if strips is not None:
                        whole = self._part_reader(part)
                        judged = [(_whole_or_strip(sure, by_strip, by_strip is not None and
                                                   (by_strip == best or whole.ties(c, d, by_strip))), best)
                                  for (sure, best), (by_strip, _), c, d in zip(judged, strips, corr, tint)]
                    crops = np.stack([_cut(colour, to_table, slots[k][0], slots[k][1], 0.0, size) for k in ks])
                    names = _agreed(judged, _whole_reads(deck, crops, allowed),
                                    None if strips is None else [by_strip for by_strip, _ in strips])
                for k, name in zip(ks, names):
                    cx, cy = centres[k]
                    if name is None:
                        asked.append((cx, cy, f"A card in the {_place(area, seat)} could not be read."))
                    else:
                        cards.append(SeenCard(parse_card(name), cx, cy, 0.0, area, seat))
            if last + 1 < len(states) and states[last + 1] == "unsure":
                cx, cy = centres[last + 1]
                asked.append((cx, cy, f"A card in the {_place(area, seat)} could not be told from the bare mat "
                                      "(glare?)."))
        if not any(c.area is Area.REQUEST for c in view.cards):
            # a card without a code on the request strip: read by its art where a code-sized square was seen there or
            # the mat below the strip shows anything but the bare mat; where it cannot be read, asked about, never
            # taken for no card
            on_strip = [u for u in asked if zone_of(u[0], u[1])[0] is Area.REQUEST]
            x0, y0, x1, y1 = _REQUEST_BAND
            step = (x1 - x0) / 4
            if on_strip or any(place_look(colour, to_table, (x0 + k * step, y0, x0 + (k + 1) * step, y1), mat).state
                               != "bare" for k in range(4)):
                request = self._read_request(colour, to_table)
                if request is not None:
                    cards.append(request)
                    asked = [u for u in asked if u not in on_strip]
                elif not on_strip:
                    asked.append((MAT.request.centre[0], MAT.request.centre[1],
                                  "A card on the request strip could not be read."))
        return FlohcatiView(tuple(cards), tuple(asked)), handled

    def _read_request(self, colour: Image, to_table: NDArray[Any]) -> SeenCard | None:
        """The Request card without a code on the request strip, where the deck is sure of the card and of where it
        lies (None otherwise: it is then asked about).

        The card lies with its top-left corner on the colour asked for, upright, or turned a quarter about the
        corner's code place (`scene.placements`): each of the 20 such places is cut and compared with the deck's
        templates; the few best are read as a whole card (`_PartReader.judge`, over `_POSES`) and by the deck's own
        tests. Taken when both name the Request card at the best place and its templates correlate there at least
        `_REQUEST_LEAD` better than at any other place."""
        deck = self.classifier
        if getattr(deck, "templates", None) is None:
            return None
        labels: tuple[str, ...] = tuple(deck.labels)
        wanted = Action.REQUEST.value
        if wanted not in labels:
            return None
        size: tuple[int, int] = tuple(getattr(deck, "crop_size", (40, 56)))
        actions = tuple(a.value for a in Action)
        among = np.array([x in actions for x in labels], bool)
        k_wanted = labels.index(wanted)
        places: list[tuple[float, float, float, float, float]] = []
        for field_colour in Colour:
            left, top = request_slot(field_colour)
            cx, cy = left + CODE_CENTRE[0], top + CODE_CENTRE[1]
            places.append((cx, cy, left, top, 0.0))
            places.append((cx, cy, cx + CODE_CENTRE[1], cy - CODE_CENTRE[0], 90.0))
        reader = self._part_reader(CARD_PARTS[0])
        plain = np.stack([_cut(colour, to_table, left, top, angle, size) for _, _, left, top, angle in places])
        at_place = reader.scores(plain, among)[0][:, k_wanted]
        shortlist = [int(i) for i in np.argsort(-at_place)[:_REQUEST_SHORTLIST]]
        posed = np.stack([np.stack([_cut(colour, to_table, places[i][2] + dx, places[i][3] + dy, places[i][4] + t, size)
                                    for i in shortlist]) for dx, dy, t in _POSES])
        corr, tint = reader.best_scores(posed, among)
        at_place[shortlist] = np.maximum(at_place[shortlist], corr[:, k_wanted])
        j = int(np.argmax(corr[:, k_wanted]))
        best = shortlist[j]
        rivals = np.delete(at_place, best)
        if at_place[best] - float(rivals.max()) < _REQUEST_LEAD:
            return None
        from vision.enroll import detail

        printed = detail(np.ascontiguousarray(posed[0][j:j + 1, reader.rows, reader.cols]))
        sure, _ = reader.decide(corr[j], tint[j], float(printed[0]), among, reader.expected_detail(posed[0][j:j + 1])[0])
        named = _whole_reads(deck, plain[best:best + 1], actions)[0]
        if sure != wanted or named not in (None, wanted):
            return None
        cx, cy, _, _, angle = places[best]
        return SeenCard(Action.REQUEST, cx, cy, angle, Area.REQUEST)

    def _part_reader(self, part: tuple[float, float, float, float]) -> _PartReader:
        """The deck's templates cut to ``part`` (made once per deck and part)."""
        key = (id(self.classifier), part)
        reader = self._parts.get(key)
        if reader is None:
            reader = self._parts[key] = _PartReader(self.classifier, part)
        return reader

    def _detector(self, window: int, min_perimeter: float, one_window: bool = False,
                  larger: bool = False) -> cv2.aruco.ArucoDetector:
        key = (window, min_perimeter, one_window, larger)
        detector = self._detectors.get(key)
        if detector is None:
            if len(self._detectors) >= _MAX_DETECTORS:
                self._detectors.clear()
            detector = self._detectors[key] = _detector(window, min_perimeter, one_window, larger)
        return detector

    def _calibrate(self, gray: Image, blur: FrameBlur | None = None) -> tuple[Calibration, tuple[Marker, ...]]:
        """The mat's calibration and the mat's markers: those of the frame before while none of them moved
        (`_kept_mat`, a still table's live frames), else searched (`_search_mat`).

        :raises NoMatError: when the mat's markers are not in view.
        """
        kept = self._kept_mat(gray)
        if kept is not None:
            self.mat_kept += 1
            return self.calibrator.update(kept), kept
        self._mat, self._mat_regions = (), []
        calibration, mat = self._search_mat(gray, blur)
        self._remember_mat(gray, mat)
        return calibration, mat

    def _search_mat(self, gray: Image, blur: FrameBlur | None = None) -> tuple[Calibration, tuple[Marker, ...]]:
        """The mat's calibration and the mat's markers searched in ``gray``: the vision core's fast search; where that does not fix
        the mat, the slow one for the markers it missed, with one threshold window first (where its markers fix the
        mat, those still missing are searched with every window around where they must lie,
        `find_missing_mat_markers`, and the mat is taken from all of them) and else with every window over the
        whole frame; where neither decodes enough of them, the undecoded squares matched against the dictionary's codes
        (``blur``: the frame's `FrameBlur`, made once for all these searches).

        In a large frame (`reduction`) the shrunk frame's slow search with one threshold window comes first
        (`find_markers_reduced`): where its markers fix the mat, those it missed are searched around where they must
        lie (`find_missing_mat_markers`) and the mat is taken from all of them. In a frame not shrunk but at least
        `_HALVED_SIDE` across, where the fast search does not fix the mat, the frame shrunk by half is searched so
        before the whole frame.

        :raises NoMatError: when the mat's markers are not in view.
        """
        factor = reduction(max(gray.shape[:2]))
        if factor > 1:
            try:
                mat = self._completed(gray, find_markers_reduced(gray, self.config, factor, keep=_not_a_card))
                return self.calibrator.update(mat), mat
            except NoMatError:
                pass
        mat = tuple(m for m in find_markers(gray, self.config) if not is_card_id(m.id))
        try:
            return self.calibrator.update(mat), mat
        except NoMatError:
            pass
        have = {m.id for m in mat}
        if not set(GEOMETRY.markers.marker_ids) <= have:
            if factor == 1 and max(gray.shape[:2]) >= _HALVED_SIDE:
                try:
                    found = self._completed(gray, mat + tuple(
                        m for m in find_markers_reduced(gray, self.config, 2, keep=_not_a_card) if m.id not in have))
                    return self.calibrator.update(found), found
                except NoMatError:
                    pass
            # the one window's markers, where they fix the mat, place the markers still missing: those are searched with
            # every window only around where they must lie (every window over the whole frame costs about five times the
            # one window's search; on the 16 tuning frames that reached it, it found no mat marker the windows miss)
            more = self._slow_markers(gray, have, True, blur)
            try:
                found = self._completed(gray, mat + more)
                return self.calibrator.update(found), found
            except NoMatError:
                pass
            more = self._slow_markers(gray, have, False, blur)
            try:
                return self.calibrator.update(mat + more), mat + more
            except NoMatError:
                mat += more
        # too few of the mat's markers decoded: the ones blur smeared are matched
        mat += mat_markers_by_matching(gray, self.config, mat, blur)
        return self.calibrator.update(mat), mat

    def _completed(self, gray: Image, found: tuple[Marker, ...]) -> tuple[Marker, ...]:
        """``found`` (mat markers) with those still missing searched in ``gray`` with every window only around where
        ``found`` puts them (`find_missing_mat_markers`).

        :raises NoMatError: when ``found`` does not fix the mat.
        """
        mat_homography(found, self.config)
        return found + find_missing_mat_markers(gray, found, self.config)

    def _slow_markers(self, gray: Image, have: set[int], one_window: bool,
                      blur: FrameBlur | None) -> tuple[Marker, ...]:
        """The slow search's markers over the whole of ``gray`` that are neither a card's code nor among ``have``."""
        return tuple(m for m in find_markers(gray, self.config, robust=True, one_window=one_window, blur=blur)
                     if not is_card_id(m.id) and m.id not in have)

    def _find_codes(self, gray: Image, blur: FrameBlur, calibration: Calibration,
                    mat: tuple[Marker, ...]) -> tuple[tuple[Marker, ...], list[NDArray[Any]]]:
        """The mat's and the cards' markers in ``gray``, and the code-sized squares the detector could not decode
        (image corners). The cards' codes are searched with the detector's smallest threshold window over the zones,
        then with its larger windows around each place where a card may lie whose code that did not read
        (`_places_to_look`), and over all the zones where such a place shows a code-sized square they cannot decode
        either."""
        side = max(gray.shape[:2])
        to_table = calibration.image_to_table
        # the cards' codes: only where the mat lies, enlarged when they are small there (a camera far
        # away, or turned) until a code is about _SMALL_CODE_PX across
        side_px = _code_side_px(calibration.table_to_image)
        f = 1.0 if side_px >= _SMALL_CODE_PX else round(min(_MAX_ENLARGE, _SMALL_CODE_PX / side_px), 1)
        x0, y0, x1, y1 = _mat_box(calibration.table_to_image, gray.shape[1], gray.shape[0])
        part = gray[y0:y1, x0:x1]
        if f > 1.0:
            part = cv2.resize(part, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
        # the detector's smallest code perimeter, in pixels of the mat's part of the frame (enlarged)
        min_px = int(round(_MIN_PERIMETER * side / max(part.shape[:2]), 3) * max(part.shape[:2]))
        # searched only where the zones that hold cards lie (the codes read elsewhere were never used)
        sx0, sy0, sx1, sy1 = _search_box(calibration.table_to_image, x0, y0, f, part.shape[1], part.shape[0])
        part = part[sy0:sy1, sx0:sx1]
        big_side = side * f
        # an unsharp mask undoes some of the lens's and the motion's blur before the codes are read
        sigma = sharpen_sigma(big_side)
        if f == 1.0 and blur.made and blur.sigma == sigma:
            soft = blur.part(x0 + sx0, y0 + sy0, x0 + sx1, y0 + sy1)
        else:
            soft = cv2.GaussianBlur(part, (0, 0), sigma)
        window = max(3, int(round(0.011 * big_side)) | 1)
        sharp = cv2.addWeighted(part, 2.0, soft, -1.0, 0)
        min_rate = (min_px + 0.5) / max(part.shape[:2])
        # the part's pixel (u, v) lies at frame pixel ((u, v) + at) / f + shift
        at = np.array([sx0, sy0], np.float64)
        shift = np.array([x0, y0], np.float64)

        def search(image: Image, detector: cv2.aruco.ArucoDetector,
                   offset: NDArray[Any]) -> tuple[tuple[Marker, ...], tuple[NDArray[Any], ...]]:
            corners, ids, rejected = detector.detectMarkers(image)
            found = () if ids is None else tuple(
                Marker(int(i), (np.asarray(c, np.float64).reshape(4, 2) + offset) / f + shift)
                for c, i in zip(corners, ids.ravel()))
            return found, tuple((np.asarray(r, np.float64).reshape(4, 2) + offset) / f + shift for r in rejected)

        def near(x: float, y: float, points: Sequence[tuple[float, float]]) -> bool:
            return any(math.hypot(x - px, y - py) < _SAME_CARD_MM for px, py in points)

        def at_place(box: tuple[float, float, float, float]) -> tuple[tuple[Marker, ...], tuple[NDArray[Any], ...]]:
            # the place's pixels, and a threshold window's width around them
            bx0, by0, bx1, by1 = box
            pts = (_to_table(np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]), calibration.table_to_image)
                   - shift) * f - at
            pad = window + 2
            u0, v0 = np.maximum(0, np.floor(pts.min(0)).astype(int) - pad)
            u1, v1 = np.ceil(pts.max(0)).astype(int) + pad
            crop = sharp[v0:v1, u0:u1]
            if min(crop.shape[:2]) < 8:
                return (), ()
            rate = (min_px + 0.5) / max(crop.shape[:2])
            return search(crop, _detector(window, rate, larger=True), at + (int(u0), int(v0)))

        found, rejected = search(sharp, self._detector(window, min_rate, True), at)
        if side >= _ONE_WINDOW_SIDE:
            if sum(_square(_to_table(r, to_table)) is not None for r in rejected) >= _SEARCH_AGAIN_SQUARES:
                found, rejected = search(sharp, self._detector(window, min_rate), at)  # every window again
            return self._with_read_again(gray, mat, found, rejected, to_table)
        read = _centres(found, to_table)
        undecoded = [(sq[0], sq[1]) for r in rejected for sq in [_square(_to_table(r, to_table))] if sq is not None]
        squares = list(undecoded)

        def take(codes: tuple[Marker, ...], more: tuple[NDArray[Any], ...]) -> bool:
            # the new cards' codes and code-sized squares kept; True where a square lies where a card may lie
            nonlocal found, rejected
            for m in codes:
                x, y = _to_table(m.corners, to_table).mean(0)
                if is_card_id(m.id) and not near(x, y, read):
                    found += (m,)
                    read.append((float(x), float(y)))
            unread = False
            for r in more:
                sq = _square(_to_table(r, to_table))
                if sq is None or near(sq[0], sq[1], read) or zone_of(sq[0], sq[1])[0] not in _WATCHED:
                    continue
                unread = True
                if not near(sq[0], sq[1], squares):
                    rejected += (r,)
                    squares.append((sq[0], sq[1]))
            return unread

        # the larger windows search again where a card may lie whose code the one window did not read, until no
        # new place comes up (a code read there makes the slot after it such a place); where one of them shows a
        # code-sized square they cannot decode either (glare, a hand, blur: the slots past it may hold codes no
        # place reaches), over all the zones
        searched: set[tuple[float, float, float, float]] = set()
        unread = False
        while not unread and (places := [box for box in _places_to_look(read, undecoded) if box not in searched]):
            for box in places:
                searched.add(box)
                if take(*at_place(box)):
                    unread = True
                    break
        if unread:
            take(*search(sharp, self._detector(window, min_rate, larger=True), at))
        return self._with_read_again(gray, mat, found, rejected, to_table)

    def _with_read_again(self, gray: Image, mat: tuple[Marker, ...], found: tuple[Marker, ...],
                         rejected: tuple[NDArray[Any], ...],
                         to_table: NDArray[Any]) -> tuple[tuple[Marker, ...], list[NDArray[Any]]]:
        """The mat's markers, the cards' codes ``found`` and those read again among the squares ``rejected``
        (`_read_again`); the squares."""
        markers = mat + tuple(m for m in found if is_card_id(m.id))
        quads = [np.asarray(r, np.float64).reshape(4, 2) for r in rejected]
        markers += self._read_again(gray, markers, quads, to_table)
        return markers, quads

    def recognize(self, frame: Image) -> Recognition:
        """Read one frame.

        :raises NoMatError: when the mat's markers are not in view.
        """
        t0 = time.perf_counter()
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        side = max(gray.shape[:2])
        # the mat's large markers: the vision core's fast search, and the slow one where the fast one
        # does not fix the mat
        # the slow searches and the codes' unsharp mask subtract the same blur of the frame: made at most once
        blur = FrameBlur(gray, sharpen_sigma(side))
        kept_before = self.mat_kept
        calibration, mat = self._calibrate(gray, blur)
        t1 = time.perf_counter()
        to_table = calibration.image_to_table
        # a still table's frame (the mat's markers kept, the mat's part of the frame the same within sensor noise
        # as when its codes were searched) keeps those codes; any change there searches again
        box = _mat_box(calibration.table_to_image, gray.shape[1], gray.shape[0])
        codes = self._codes
        x0, y0, x1, y1 = box
        looks = block_means(gray[y0:y1, x0:x1])
        if codes is None or self.mat_kept <= kept_before or codes[0] != box or not looks_same(codes[1], looks):
            codes = None
        if codes is not None:
            markers, quads = codes[2], codes[3]
            self.codes_kept += 1
        else:
            markers, quads = self._find_codes(gray, blur, calibration, mat)
            self._codes = (box, looks, markers, quads)
        t2 = time.perf_counter()
        view = read_view(markers, quads, to_table)
        coded = {(c.area, c.seat) for c in view.cards}
        if self.classifier is not None and view.unreadable:
            view = self._read_faces(frame, view, to_table)
        handled: set[tuple[Area, int | None]] = set()
        if self.classifier is not None:
            view, handled = self._read_codeless(frame, view, to_table, coded)
        view = _flag_glared_slots(frame, gray, view, to_table, handled)
        view = self._hold_row(gray, view, to_table)
        t3 = time.perf_counter()
        return Recognition(view, markers, to_table,
                           StageTimes(1000 * (t1 - t0), 1000 * (t2 - t1), 1000 * (t3 - t2)))


#: the close look at a row card's place: resolution (px/mm) and how much (mm) around the code
_LOOK_PX_PER_MM = 2.0
_LOOK_MARGIN = 3.0


def _code_patch(gray: Image, to_table: NDArray[Any], x: float, y: float) -> NDArray[Any]:
    """The code area centred on table point (x, y) and a little around it, seen from straight above."""
    s = _LOOK_PX_PER_MM
    half = CODE_SIZE / 2 + _LOOK_MARGIN
    n = int(round(2 * half * s))
    t = np.array([[s, 0, -(x - half) * s], [0, s, -(y - half) * s], [0, 0, 1]], np.float64)
    return np.asarray(cv2.warpPerspective(gray, t @ to_table, (n, n), flags=cv2.INTER_AREA), np.float32)


#: a piece of the mat beside the row (left of it, clear of the markers) where no card lies: x0, y0, x1, y1 mm
_BARE_PIECE = (12.0, 170.0, 40.0, 245.0)
#: where glare saturates that piece, further pieces of bare mat, clear of the markers, the zones' outlines and their
#: words, and of cards laid a little off their zones: right of the row, between the top markers (left of the middle
#: one), between the bottom markers
_MORE_BARE_PIECES = ((580.0, 170.0, 594.0, 245.0), (120.0, 14.0, 270.0, 40.0), (120.0, 455.0, 480.0, 520.0))


def _paper_level(gray: Image, view: FlohcatiView, to_table: NDArray[Any]) -> float:
    """The grey level of card paper around the codes read; of the mat (printed nearly as light) beside the
    row when no code is read, and where glare saturates it there, the median of the further bare pieces'
    levels that glare does not saturate (`_MORE_BARE_PIECES`; `_SATURATED` or more when every piece saturates:
    the paper itself does)."""
    levels = [float(np.percentile(_code_patch(gray, to_table, c.x, c.y), 90)) for c in view.cards[:6]]
    if levels:
        return float(np.median(levels))
    beside = _piece_level(gray, to_table, _BARE_PIECE)
    if beside < _SATURATED:
        return beside
    more = [level for level in (_piece_level(gray, to_table, box) for box in _MORE_BARE_PIECES) if level < _SATURATED]
    return float(np.median(more)) if more else beside


def _piece_level(gray: Image, to_table: NDArray[Any], box: tuple[float, float, float, float]) -> float:
    """The grey level of the paper of the table box (x0, y0, x1, y1 mm): the 90th percentile of its pixels."""
    x0, y0, x1, y1 = box
    s = _LOOK_PX_PER_MM
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    size = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
    return float(np.percentile(cv2.warpPerspective(gray, t @ to_table, size, flags=cv2.INTER_AREA), 90))


def _paper_boxes(view: FlohcatiView) -> list[tuple[float, float, float, float]]:
    """The table boxes (x0, y0, x1, y1 mm) `_paper_level` looks at: the code areas of the first cards read, else the
    pieces of bare mat."""
    half = CODE_SIZE / 2 + _LOOK_MARGIN
    boxes = [(c.x - half, c.y - half, c.x + half, c.y + half) for c in view.cards[:6]]
    return boxes or [_BARE_PIECE, *_MORE_BARE_PIECES]


def _darkest_where_paper(frame: Image, view: FlohcatiView, to_table: NDArray[Any]) -> Image:
    """The frame's darkest channel, worked out only around where `_paper_level` looks (`_paper_boxes`): every pixel
    its warps read holds the darkest channel, as over the whole frame."""
    h, w = frame.shape[:2]
    out = np.zeros((h, w), frame.dtype)
    to_image = np.linalg.inv(to_table)
    for x0, y0, x1, y1 in _paper_boxes(view):
        pts = _to_table(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64), to_image)
        u0, v0 = np.floor(pts.min(0)).astype(int) - _PAPER_REACH_PX
        u1, v1 = np.ceil(pts.max(0)).astype(int) + _PAPER_REACH_PX + 1
        u0, v0, u1, v1 = max(0, int(u0)), max(0, int(v0)), min(w, int(u1)), min(h, int(v1))
        if u1 > u0 and v1 > v0:
            part = frame[v0:v1, u0:u1]
            out[v0:v1, u0:u1] = cv2.min(cv2.min(part[:, :, 0], part[:, :, 1]), part[:, :, 2])
    return out


#: `_darkest_where_paper`: pixels (frame px) around a box's corners that a warp of it may read
_PAPER_REACH_PX = 4


#: a row card's place shows it gone unless more than this share of it is dark (a code's cells), or, when
#: card paper is darker than `_SATURATED`, more than `_GLARED` of it is saturated (glare brighter than paper;
#: when the paper itself saturates, glare cannot be seen)
_CODE_DARK = 0.25
_SATURATED = 250.0
_GLARED = 0.2
#: past the last card of a lane or zone, glare explains an unread code where more than this share of its place is
#: saturated: a glare spot's clipped core washes out the code around it, its frame's left bar included
_GLARE_TOUCHES = 0.05


def _shows_gone(gray: Image, to_table: NDArray[Any], x: float, y: float, paper: float) -> bool:
    """True when nothing at the code area of table point (x, y) says a card's code may still lie there:
    no code-like dark cells, no glare brighter than the paper."""
    patch = _code_patch(gray, to_table, x, y)
    if patch.size == 0 or float(np.mean(patch < 0.6 * paper)) > _CODE_DARK:
        return False
    return paper >= _SATURATED or float(np.mean(patch >= _SATURATED)) <= _GLARED


#: where a card's face shows below its code when no card lies on it: card millimetres (x0, y0, x1, y1), clear
#: of its code, of the card before it in the lane (which reaches 25 mm into the slot, a little more when
#: turned) and, in a seat zone, of the cards of the row above (which reach 57 mm down)
_BODY = (33.0, 32.0, 54.0, 76.0)
_SEAT_BODY = (33.0, 63.0, 54.0, 84.0)
#: a card's face shows when more than `_INK_SHARE` of the unsaturated part of that place is ink (its darkest
#: channel below `_INK` of the paper's around it: the card's frame line, its words and art; the bare mat
#: prints nothing there; and below `_INK_PAPER` of the cards' paper in its darkest channel: glare only
#: brightens, so the edge of a glare spot falling off to the paper is no ink), and at least `_BODY_SEEN` of
#: the place is unsaturated (otherwise nothing is told)
_INK = 0.75
_INK_PAPER = 0.8
_INK_SHARE = 0.02
_BODY_SEEN = 0.3
#: the paper around a pixel: the brightest within this (mm), lines thinner than it taken out
_PAPER_MM = 6.0
#: where a card's face is looked for, this far (mm) from the outline the mat prints around each zone
_CLEAR_OF_LINES = 6.0
#: in the row and the action lane, where the left bar of a code's black frame lies (card mm, x0, x1; 3 to 7.3
#: printed, the card laid up to 1.5 mm off) and the white just left of the code (the card's edge, the card
#: before it or the bare mat), over the bar's rows (y0, y1): where the slot is bare, the card before it shows
#: blank paper in both (its code ends 29 mm and its sign starts 41 mm across it) or the mat prints nothing.
#: A code shows when a column of the bar, at least `_BODY_SEEN` of it unsaturated, is darker than the whitest
#: column beside it (saturated pixels taken as white) by more than `_BAR_CONTRAST` of its level, in at least
#: `_BAR_ROWS_DARK` of its unsaturated rows (the frame runs the code's whole height; the card before shows
#: nothing that tall there) and on average, and darker than the paper of the cards read by more than
#: `_BAR_UNDER_PAPER` of it (glare only brightens: a glare's edge falling off beside bare paper is no darker)
_BAR = (3.0, 7.0)
#: ... the bar's columns end as far short of the sign of the card read before as they do where that card lies at its
#: slot: where it lies further left (a card laid off), the bar's end moves left with it, to no less than this (mm)
#: past the bar's start (the sign's blurred edge darkens the columns near it; it is not a code's frame)
_BAR_LEAST = 1.0
_BESIDE = (-1.5, 2.5)
_BAR_ROWS = (5.0, 27.0)
_BAR_CONTRAST = 0.2
_BAR_UNDER_PAPER = 0.15
_BAR_ROWS_DARK = 0.66


def _bar_shows(gray: Image, to_table: NDArray[Any], left: float, top: float, paper: float, before: float = 0.0) -> bool:
    """True when the left bar of a code's frame shows at the slot whose card's top-left is table (left, top)
    (``paper``: the grey level of the cards' paper; ``before``: how far (mm) the card read in the slot before lies
    right of its slot, negative when left: the bar's columns end that much further left, `_BAR_LEAST`)."""
    s = 2 * _LOOK_PX_PER_MM
    x0, y0 = left + _BESIDE[0], top + _BAR_ROWS[0]
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    end = max(_BAR[0] + _BAR_LEAST, _BAR[1] + min(0.0, before))
    size = (int(round((end - _BESIDE[0]) * s)), int(round((_BAR_ROWS[1] - _BAR_ROWS[0]) * s)))
    look = np.asarray(cv2.warpPerspective(gray, t @ to_table, size, flags=cv2.INTER_AREA), np.float32)
    seen = look < _SATURATED
    split = int(round((_BESIDE[1] - _BESIDE[0]) * s))
    bar_from = int(round((_BAR[0] - _BESIDE[0]) * s))
    white = float(np.max(np.mean(np.where(seen, look, 255.0)[:, :split], axis=0)))
    bar, bar_seen = look[:, bar_from:], seen[:, bar_from:]
    enough = np.mean(bar_seen, axis=0) >= _BODY_SEEN
    if not np.any(enough):
        return False
    means = np.sum(np.where(bar_seen, bar, 0.0), axis=0) / np.maximum(1, np.sum(bar_seen, axis=0))
    rows_dark = np.sum(bar_seen & (bar < (1 - _BAR_CONTRAST) * white), axis=0) / np.maximum(1, np.sum(bar_seen, axis=0))
    k = int(np.argmin(np.where(enough, means, np.inf)))
    dark = float(means[k])
    return dark < (1 - _BAR_CONTRAST) * white and dark < (1 - _BAR_UNDER_PAPER) * paper and \
        float(rows_dark[k]) >= _BAR_ROWS_DARK


def _ink_share(frame: Image, to_table: NDArray[Any], box: tuple[float, float, float, float], paper: float) -> float:
    """The share of the unsaturated part of the table box (x0, y0, x1, y1 mm) that is ink (0 when less than
    `_BODY_SEEN` of it is unsaturated; ``paper``: the cards' paper's level in its darkest channel): where the
    bare mat prints nothing, a card's face."""
    return _face_look(frame, to_table, box, paper)[0]


def _face_look(frame: Image, to_table: NDArray[Any], box: tuple[float, float, float, float],
               paper: float) -> tuple[float, float]:
    """`_ink_share` and the share of the box that is unsaturated."""
    s = _LOOK_PX_PER_MM
    pad = _PAPER_MM
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    size = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
    look = cv2.warpPerspective(frame, t @ to_table, size, flags=cv2.INTER_AREA)
    darkest = look if look.ndim == 2 else look.min(axis=2)
    brightest = look if look.ndim == 2 else look.max(axis=2)
    k = int(round(_PAPER_MM * s)) | 1
    around = cv2.morphologyEx(darkest, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    inside = (slice(int(round(pad * s)), size[1] - int(round(pad * s))),
              slice(int(round(pad * s)), size[0] - int(round(pad * s))))
    seen = brightest[inside] < _SATURATED
    unsaturated = float(np.mean(seen))
    if unsaturated < _BODY_SEEN:
        return 0.0, unsaturated
    ink = (darkest[inside].astype(np.float32) < _INK * around[inside].astype(np.float32)) & seen & \
        (darkest[inside].astype(np.float32) < _INK_PAPER * paper)
    return float(np.sum(ink)) / float(np.sum(seen)), unsaturated


def _flag_glared_slots(frame: Image, gray: Image, view: FlohcatiView, to_table: NDArray[Any],
                       skip: set[tuple[Area, int | None]] | None = None) -> FlohcatiView:
    """The view with places of the row, the action lane and the seat zones (each filled slot by slot)
    reported unrecognised where glare brighter than the paper lies on the code's place and no card is read
    there: every such place before a card read (or asked about) in the same lane or zone, and the places
    after the last one as long as the card's face below its code shows (ink where the bare mat prints
    none; looked for where glare touches the code's place, `_GLARE_TOUCHES`) or, in the row and the action
    lane, the left bar of its code's frame does (this one also where no glare lies: a code blur hid from the
    detector); a place whose code and face glare both hide is passed over,
    and asked about when a later place shows a card. A card hidden by glare or blur is asked about, never
    silently missed. ``skip``: zones whose code-less cards an enrolled deck looked at (`Recognizer._read_codeless`)."""
    paper = _paper_level(gray, view, to_table)
    if paper >= _SATURATED:
        return view
    darkest_paper: list[float] = []

    def ink_paper() -> float:
        """The cards' paper's level in its darkest channel (measured once, where a face is looked for)."""
        if not darkest_paper:
            darkest_paper.append(_paper_level(frame if frame.ndim == 2 else _darkest_where_paper(frame, view, to_table),
                                              view, to_table))
        return darkest_paper[0]

    extra: list[tuple[float, float, str]] = []
    for area, seat, zone, slots in lanes():
        if skip and (area, seat) in skip:
            continue
        centres = [(x + CODE_CENTRE[0], y + CODE_CENTRE[1]) for x, y in slots]

        def at(cx: float, cy: float, points: Sequence[tuple[float, float]]) -> bool:
            return any(abs(px - cx) < FAN_STEP / 2 and abs(py - cy) < ROW_STEP / 2 for px, py in points)

        def glare_share(cx: float, cy: float) -> float:
            return float(np.mean(_code_patch(gray, to_table, cx, cy) >= _SATURATED))

        def glared(cx: float, cy: float) -> bool:
            return glare_share(cx, cy) > _GLARED

        read = [(c.x, c.y) for c in view.cards if c.area is area and c.seat == seat]
        known = read + [(x, y) for x, y, _ in view.unreadable]
        last = max((k for k, (cx, cy) in enumerate(centres) if at(cx, cy, read)), default=-1)
        for cx, cy in centres[:max(0, last)]:
            if not at(cx, cy, known) and glared(cx, cy):
                extra.append((cx, cy, f"A card in the {_place(area, seat)} could not be read (glare?)."))
        bx0, by0, bx1, by1 = _SEAT_BODY if area is Area.SEAT else _BODY
        # how far right of its slot the last card read lies (left: negative), where its sign lies past the next slot's bar
        before = min((x - centres[last][0] for x, y in read if at(*centres[last], [(x, y)])), key=abs) if last >= 0 else 0.0
        # places past the last card whose code and face glare both hide: each holds a card when a later place shows one
        hidden: list[tuple[float, float]] = []
        for k in range(last + 1, len(slots)):
            (left, top), (cx, cy) = slots[k], centres[k]
            if at(cx, cy, known):
                continue
            if left + 8.0 > zone.x + zone.w:
                break
            box = (left + bx0, top + by0, left + bx1, min(top + by1, zone.y + zone.h - _CLEAR_OF_LINES))
            clear = box[2] <= zone.x + zone.w - _CLEAR_OF_LINES and box[3] - box[1] >= 8.0
            # a code blur hid from the detector shows its frame as well (a hand over the slot shows ink too, so
            # the face is looked for only where glare explains why the code was not read, glare on part of its place
            # too: the bar it washes out does not show)
            glare = glare_share(cx, cy) > _GLARE_TOUCHES
            ink, seen = _face_look(frame, to_table, box, ink_paper()) if glare and clear else (0.0, 1.0)
            if not ink > _INK_SHARE and \
                    (area is Area.SEAT or not _bar_shows(gray, to_table, left, top, paper, before if k == last + 1 else 0.0)):
                if seen < _BODY_SEEN:
                    hidden.append((cx, cy))
                    continue
                break
            extra += [(x, y, f"A card in the {_place(area, seat)} could not be read (glare?).") for x, y in hidden]
            hidden = []
            extra.append((cx, cy, f"A card in the {_place(area, seat)} could not be read{' (glare?)' if glare else ''}."))
    extra += _glared_request(frame, gray, view, to_table, ink_paper)
    return FlohcatiView(view.cards, view.unreadable + tuple(extra)) if extra else view


#: below the request strip, where a Request card laid on any colour field shows its face (upright: its name;
#: sideways: its sign) and the bare mat prints nothing: this far (mm) either side of the field's middle (clear
#: of the action lane's outline), and from and to this far below the strip
_REQUEST_BODY = (10.0, 5.0, 20.0)


def _glared_request(frame: Image, gray: Image, view: FlohcatiView, to_table: NDArray[Any],
                    ink_paper: Callable[[], float]) -> list[tuple[float, float, str]]:
    """Where no card is read or asked about on the request strip: the colour field whose code place glare
    covers and whose Request card's face would show below the strip, where it does (of several, the one glare
    covers most), to be asked about (``ink_paper``: the cards' paper's level in its darkest channel). Glare
    over the bare strip asks nothing."""
    if any(c.area is Area.REQUEST for c in view.cards) or \
            any(zone_of(x, y)[0] is Area.REQUEST for x, y, _ in view.unreadable):
        return []
    half, below, depth = _REQUEST_BODY
    bottom = MAT.request.y + MAT.request.h
    shown: list[tuple[float, float, float]] = []
    for colour in Colour:
        left, top = request_slot(colour)
        cx, cy = left + CODE_CENTRE[0], top + CODE_CENTRE[1]
        glare = float(np.mean(_code_patch(gray, to_table, cx, cy) >= _SATURATED))
        box = (max(cx - half, MAT.actions.x + MAT.actions.w + _CLEAR_OF_LINES), bottom + below, cx + half, bottom + depth)
        if glare > _GLARED and _ink_share(frame, to_table, box, ink_paper()) > _INK_SHARE:
            shown.append((glare, cx, cy))
    if not shown:
        return []
    _, cx, cy = max(shown)
    return [(cx, cy, "A card on the request strip could not be read (glare?).")]


def _not_a_card(marker_id: int) -> bool:
    return not is_card_id(marker_id)


def _mat_box(table_to_image: NDArray[Any], width: int, height: int) -> tuple[int, int, int, int]:
    """The frame's pixels (x0, y0, x1, y1) where the mat and the cards on it lie."""
    m = 15.0
    corners = np.array([[-m, -m], [MAT.width + m, -m], [MAT.width + m, MAT.height + m], [-m, MAT.height + m]])
    pts = _to_table(corners, table_to_image)
    x0, y0 = np.floor(pts.min(0)).astype(int)
    x1, y1 = np.ceil(pts.max(0)).astype(int)
    return max(0, int(x0)), max(0, int(y0)), min(width, int(x1)), min(height, int(y1))


def _search_box(table_to_image: NDArray[Any], x0: int, y0: int, f: float, width: int,
                height: int) -> tuple[int, int, int, int]:
    """The pixels (x0, y0, x1, y1) of the mat's part of the frame (its top-left at frame pixel (x0, y0), enlarged
    ``f`` times, ``width`` x ``height``) where a code of a card in the row, the action lane, the request strip
    or a seat zone can lie."""
    m = _SEARCH_MARGIN
    left = min(MAT.seats.x, MAT.row.x, MAT.actions.x, MAT.request.x) - m
    top = min(MAT.actions.y, MAT.request.y, MAT.row.y, MAT.seats.y) - m
    right = max(MAT.seats.x + MAT.seats.w, MAT.request.x + MAT.request.w, MAT.row.x + MAT.row.w) + m
    bottom = max(MAT.seats.y + MAT.seats.h, MAT.row.y + MAT.row.h) + m
    pts = (_to_table(np.array([[left, top], [right, top], [right, bottom], [left, bottom]]), table_to_image)
           - (x0, y0)) * f
    sx0, sy0 = np.floor(pts.min(0)).astype(int)
    sx1, sy1 = np.ceil(pts.max(0)).astype(int)
    return max(0, int(sx0)), max(0, int(sy0)), min(width, int(sx1)), min(height, int(sy1))


def _centres(markers: Sequence[Marker], to_table: NDArray[Any]) -> list[tuple[float, float]]:
    """The centres (table mm) of the cards' codes among ``markers``."""
    return [(float(x), float(y)) for m in markers if is_card_id(m.id) for x, y in [_to_table(m.corners, to_table).mean(0)]]


def _places_to_look(read: Sequence[tuple[float, float]],
                    squares: Sequence[tuple[float, float]] = ()) -> list[tuple[float, float, float, float]]:
    """Where (x0, y0, x1, y1 table mm) a card may lie whose code is not among the codes read (their centres,
    ``read``): in each zone filled slot by slot (`lanes`), every slot before the last one held (`_SLOT_HELD`) that is
    not held and the slot after it (the first, when none is held); the request strip when no code was read there;
    each undecoded code-sized square (its centre, ``squares``) in a zone where cards lie, away from the codes read.
    Each reaches `_PLACE_SLACK` beyond a code's half side around where the code lies."""
    r = CODE_SIZE / 2 + _PLACE_SLACK
    boxes = [(x - r, y - r, x + r, y + r) for x, y in squares if zone_of(x, y)[0] in _WATCHED
             and all(math.hypot(x - rx, y - ry) >= _SAME_CARD_MM for rx, ry in read)]
    for _, _, _, slots in lanes():
        centres = [(x + CODE_CENTRE[0], y + CODE_CENTRE[1]) for x, y in slots]
        held = [any(math.hypot(cx - x, cy - y) < _SLOT_HELD for x, y in read) for cx, cy in centres]
        last = max((k for k, h in enumerate(held) if h), default=-1)
        boxes += [(cx - r, cy - r, cx + r, cy + r) for (cx, cy), h in zip(centres[:last + 2], held) if not h]
    strip = MAT.request
    if not any(strip.contains(x, y) for x, y in read):
        boxes.append((strip.x - r, strip.y - r, strip.x + strip.w + r, strip.y + strip.h + r))
    return boxes


def _code_side_px(table_to_image: NDArray[Any]) -> float:
    """How many pixels across a card's code is where the mat looks smallest (the corner farthest from the camera)."""
    sides = []
    for cx, cy in ((60.0, 60.0), (MAT.width - 90.0, 60.0), (60.0, MAT.height - 150.0),
                   (MAT.width - 90.0, MAT.height - 150.0)):
        quad = np.array([[cx, cy], [cx + CODE_SIZE, cy], [cx + CODE_SIZE, cy + CODE_SIZE], [cx, cy + CODE_SIZE]])
        img = _to_table(quad, table_to_image)
        sides.append(float(np.sqrt(abs(cv2.contourArea(img.astype(np.float32))))))
    return min(sides)


def _to_table(points: NDArray[Any], h: NDArray[Any]) -> NDArray[Any]:
    return np.asarray(cv2.perspectiveTransform(points.reshape(1, -1, 2), h)[0], np.float64)


def _square(quad: NDArray[Any]) -> tuple[float, float, float, float] | None:
    """Centre, mean side and turn (degrees) of a quadrilateral in table mm; None when it is far from a code's square."""
    sides = [float(np.hypot(*(quad[(k + 1) % 4] - quad[k]))) for k in range(4)]
    side = sum(sides) / 4
    if abs(side - CODE_SIZE) > _SIZE_TOLERANCE * CODE_SIZE or max(sides) > 1.4 * min(sides):
        return None
    cx, cy = quad.mean(0)
    dx, dy = quad[1] - quad[0]
    return float(cx), float(cy), side, math.degrees(math.atan2(dy, dx))


def read_view(markers: Sequence[Marker], rejected: Sequence[NDArray[Any]], image_to_table: NDArray[Any]) -> FlohcatiView:
    """The cards from the decoded codes (and the unreadable ones from the rejected squares), in table terms."""
    seen: list[SeenCard] = []
    problems: list[tuple[float, float, str]] = []
    for m in markers:
        if not is_card_id(m.id):
            continue
        found = _square(_to_table(m.corners, image_to_table))
        area_seat = None if found is None else zone_of(found[0], found[1])
        if found is None:
            quad = _to_table(m.corners, image_to_table)
            cx, cy = quad.mean(0)
            area, seat = zone_of(float(cx), float(cy))
            small = float(np.hypot(*(quad[1] - quad[0]))) < 0.5 * CODE_SIZE
            if area in _WATCHED and not small:
                problems.append((float(cx), float(cy), f"A card in the {_place(area, seat)} could not be read."))
            continue
        assert area_seat is not None
        x, y, _, angle = found
        if any(s.card == card_of_id(m.id) and math.hypot(s.x - x, s.y - y) < _SAME_CARD_MM for s in seen):
            continue
        seen.append(SeenCard(card_of_id(m.id), x, y, angle, area_seat[0], area_seat[1]))
    for quad in rejected:
        found = _square(_to_table(quad, image_to_table))
        if found is None:
            continue
        x, y = found[0], found[1]
        area, seat = zone_of(x, y)
        if area not in _WATCHED or any(math.hypot(s.x - x, s.y - y) < _SAME_CARD_MM for s in seen):
            continue
        if any(math.hypot(px - x, py - y) < _SAME_CARD_MM for px, py, _ in problems):
            continue
        problems.append((x, y, f"A card in the {_place(area, seat)} could not be read."))
    return FlohcatiView(tuple(seen), tuple(problems))


def _place(area: Area, seat: int | None) -> str:
    return f"seat {seat + 1} zone" if area is Area.SEAT and seat is not None else area.value


def annotate(frame: Image, result: Recognition) -> Image:
    """The frame with every code found outlined and named (green: a card, blue: the mat, red: unreadable)."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    for m in result.markers:
        pts = m.corners.astype(np.int32)
        colour = (0, 200, 0) if is_card_id(m.id) else (200, 120, 0)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        label = card_name(card_of_id(m.id)) if is_card_id(m.id) else f"mat {m.id}"
        cv2.putText(out, label, (int(pts[0][0]), int(pts[0][1]) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1,
                    cv2.LINE_AA)
    if result.image_to_table is not None:
        back = np.linalg.inv(result.image_to_table)
        for x, y, _ in result.view.unreadable:
            px, py = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), back)[0][0]
            cv2.circle(out, (int(px), int(py)), 14, (0, 0, 230), 2, cv2.LINE_AA)
    return out


#: the mat's width, for code that sizes renders by it
MAT_WIDTH = MAT.width


# --------------------------------------------------------------------------------------------
# cards without codes (a published deck), read through an enrolled deck

#: With a deck, a card without a code is looked for at each slot of the row, the action lane and the seat zones:
#: a slot holds a card when the part of the place that only its own card (or a card laid after it) would cover shows
#: no bare mat (`_PLACE`, card mm from the slot's top-left corner: x0, y0, x1, y1; in a seat zone lower, below the
#: cards of the row above), seen at `_PLACE_PX_PER_MM`
_PLACE = (34.0, 8.0, 52.0, 78.0)
#: below the request strip, where a Request card laid on the strip (upright or sideways) lies and the bare mat prints
#: nothing (table mm: x0, y0, x1, y1)
_REQUEST_BAND = (434.0, 95.0, 586.0, 132.0)
#: A Request card without a code is looked for at the `_REQUEST_SHORTLIST` places on the strip it matches best as
#: laid, and taken where it matches at least `_REQUEST_LEAD` better than at any other place
_REQUEST_SHORTLIST = 3
_REQUEST_LEAD = 0.1
#: pieces of the mat where no card lies (table mm: x0, y0, x1, y1): left of the row, right of it, between the
#: request strip and the row, below the seat zones' fourth rows, between the bottom markers
_BARE_PIECES = ((12.0, 170.0, 40.0, 245.0), (579.0, 170.0, 595.0, 245.0), (440.0, 143.0, 585.0, 156.0),
                (60.0, 520.0, 540.0, 560.0))
_SEAT_PLACE = (34.0, 63.0, 52.0, 81.0)
_PLACE_PX_PER_MM = 2.0
#: The bare mat shows little print (its mean absolute detail finer than `_MAT_DETAIL_MM`, over the mat's level,
#: below `_BARE_PRINT`), the mat's hue (median chromaticity within `_BARE_HUE` of the bare mat's) and about its level
#: (at least `_BARE_DARK` of it), over at least `_PLACE_SEEN` of the place; a card shows print (at least
#: `_CARD_PRINT`), another hue (at least `_CARD_HUE`) or is far darker (below `_CARD_DARK`), over at least `_CARD_SEEN`
#: of it. Glare (clipped pixels, `_CLIPPED`) is not looked at; a place that is neither is unsure
#: (glare hides it, a hand, a shadow). On the camera model's photos of the Fleapit deck (seeds 906,000,000 on) the
#: bare mat where no hand lies shows print at most 0.007 and hue at most 0.004 in 99 places of 100 and level at least
#: 0.6; a card, print or hue at least 0.03 but for one place in 180, or level at most 0.3 (a dark card).
_MAT_DETAIL_MM = 3.0
_BARE_PRINT = 0.02
_BARE_HUE = 0.02
_BARE_DARK = 0.55
_PLACE_SEEN = 0.5
_CARD_PRINT = 0.03
_CARD_HUE = 0.03
_CARD_DARK = 0.45
_CARD_SEEN = 0.1
#: a pixel this bright in any channel is clipped: glare, or paper the camera overexposes (nothing can be told there)
_CLIPPED = 254.0
#: glare whitens a pixel: at a place, a pixel clipped in fewer than this many channels is looked at (the camera
#: overexposes the mat's paper and a pale pink or violet card in the red channel alone)
_GLARE_CHANNELS = 2


@dataclass(frozen=True, slots=True)
class PlaceLook:
    """How a place looks against the bare mat: the unsaturated share, the print, the hue's distance and the
    median level over the mat's."""

    seen: float
    printed: float
    hue: float
    level: float = 1.0

    @property
    def state(self) -> str:
        """``card``, ``bare`` or ``unsure``."""
        if self.seen >= _CARD_SEEN and (self.printed >= _CARD_PRINT or self.hue >= _CARD_HUE or self.level < _CARD_DARK):
            return "card"
        if self.seen >= _PLACE_SEEN and self.printed < _BARE_PRINT and self.hue < _BARE_HUE and \
                self.level >= _BARE_DARK:
            return "bare"
        return "unsure"


def _chromaticity(bgr: NDArray[Any]) -> NDArray[Any]:
    """``(N, 3)`` colours -> each over its sum (exposure and shading out)."""
    c = np.asarray(bgr, np.float32)
    out: NDArray[Any] = c / (c.sum(axis=1, keepdims=True) + 1.0)
    return out


def _top_down(frame: Image, to_table: NDArray[Any], box: tuple[float, float, float, float], s: float) -> NDArray[Any]:
    """The table box (x0, y0, x1, y1 mm) of ``frame`` seen from straight above at ``s`` px/mm (float32)."""
    x0, y0, x1, y1 = box
    t = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]], np.float64)
    size = (max(1, int(round((x1 - x0) * s))), max(1, int(round((y1 - y0) * s))))
    return np.asarray(cv2.warpPerspective(frame, t @ to_table, size, flags=cv2.INTER_AREA), np.float32)


@dataclass(frozen=True, slots=True)
class _BareMat:
    """The bare mat in one frame, beside the row where no card lies (`_BARE_PIECE`): its level (grey) and hue, and
    whether the camera overexposes its paper (most of it clipped: glare then cannot be told from paper)."""

    level: float
    hue: NDArray[Any]
    clips: bool = False

    @classmethod
    def of(cls, colour: Image, to_table: NDArray[Any]) -> _BareMat:
        """The bare mat's look: the median over `_BARE_PIECES` (a hand or glare over one of them changes nothing)."""
        levels, hues, clips = [], [], []
        for piece in _BARE_PIECES:
            look = _top_down(colour, to_table, piece, _PLACE_PX_PER_MM).reshape(-1, 3)
            clipped = look.max(axis=1) >= _CLIPPED
            seen = look[~clipped] if np.sum(~clipped) >= 16 else look
            levels.append(float(np.median(seen.mean(axis=1))))
            hues.append(np.median(_chromaticity(seen), axis=0))
            clips.append(float(np.mean(clipped)) >= 0.5)
        return cls(float(np.median(levels)), np.median(np.array(hues), axis=0), sum(clips) > len(clips) / 2)


def place_look(colour: Image, to_table: NDArray[Any], box: tuple[float, float, float, float], mat: _BareMat) -> PlaceLook:
    """How the table box (x0, y0, x1, y1 mm) of the BGR ``colour`` frame looks against the bare mat."""
    s = _PLACE_PX_PER_MM
    pad = _MAT_DETAIL_MM
    look = _top_down(colour, to_table, (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad), s)
    grey = look.mean(axis=2)
    detail = np.abs(grey - cv2.GaussianBlur(grey, (0, 0), _MAT_DETAIL_MM * s))
    k = int(round(pad * s))
    inner = (slice(k, grey.shape[0] - k), slice(k, grey.shape[1] - k))
    # glare is taken out with a margin: the edge of a glare spot falling off to the paper is no print
    # where the paper itself clips, a clipped pixel is paper as often as glare: it is looked at
    clipped = ((look >= (math.inf if mat.clips else _CLIPPED)).sum(axis=2) >= _GLARE_CHANNELS).astype(np.uint8)
    glare = cv2.dilate(clipped, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    seen = glare[inner] == 0
    share = float(np.mean(seen))
    if share <= 0.0:
        return PlaceLook(0.0, 0.0, 0.0)
    printed = float(detail[inner][seen].mean()) / (mat.level + 10.0)
    hue = float(np.median(np.linalg.norm(_chromaticity(look[inner][seen]) - mat.hue, axis=1)))
    return PlaceLook(share, printed, hue, float(np.median(grey[inner][seen])) / max(mat.level, 1.0))


def _card_corners(left: float, top: float, angle: float, box: tuple[float, float, float, float]) -> NDArray[Any]:
    """Table mm of a card-mm box (x0, y0, x1, y1) of the card whose top-left corner lies at (left, top), turned
    ``angle`` degrees clockwise about it; TL, TR, BR, BL."""
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    x0, y0, x1, y1 = box
    return np.array([[left + ca * u - sa * v, top + sa * u + ca * v] for u, v in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))],
                    np.float64)


def _cut(colour: Image, to_table: NDArray[Any], left: float, top: float, angle: float, size: tuple[int, int]) -> Image:
    """The face field of the card at (left, top), turned ``angle``, cut from ``colour`` at ``size`` (w, h)."""
    inset = CARD.margin + CARD.frame
    box = _card_corners(left, top, angle, (inset, inset, CARD.width - inset, CARD.height - inset))
    corners = cv2.perspectiveTransform(box[None], np.linalg.inv(to_table))[0].astype(np.float32)
    w, h = size
    m = cv2.getPerspectiveTransform(corners, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    return np.asarray(cv2.warpPerspective(colour, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def _part_slice(part: tuple[float, float, float, float], size: tuple[int, int]) -> tuple[slice, slice]:
    """The pixels (rows, columns) of a face-field crop of ``size`` (w, h) that a card part (card mm) shows."""
    inset = CARD.margin + CARD.frame
    w, h = size
    fx, fy = w / (CARD.width - 2 * inset), h / (CARD.height - 2 * inset)
    x0, x1 = max(0, int(round((part[0] - inset) * fx))), min(w, int(round((part[2] - inset) * fx)))
    y0, y1 = max(0, int(round((part[1] - inset) * fy))), min(h, int(round((part[3] - inset) * fy)))
    return slice(y0, y1), slice(x0, x1)


def _whole_reads(deck: Any, crops: Image, allowed: Sequence[str]) -> list[str | None]:
    """The deck's own tests' name for each whole-card crop, among ``allowed`` (None where they are unsure)."""
    recs = deck.classify_among(crops, allowed) if hasattr(deck, "classify_among") else deck.classify(crops, 0.0)
    return [r.label if r.label in allowed and r.verdict is Verdict.IDENTIFIED else None for r in recs]


def _one_colour(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` name two flea cards of one colour (their values alone may differ)."""
    try:
        x, y = parse_card(a), parse_card(b)
    except UnknownComponent:
        return False
    return isinstance(x, Flea) and isinstance(y, Flea) and x.colour is y.colour


def _whole_or_strip(whole: str | None, strip: str | None, ties: bool) -> str | None:
    """A whole card's sure name from its whole templates' read (``whole``) and its strip's (``strip``): one read's where
    the other is unsure (the strip's only where the whole card's templates cannot tell it from their first: ``ties``);
    the strip's where the two name values of one colour (the strip shows the value, as index and bars; the whole
    card shows mostly its colour's flea, the same for every value); none where they name different colours or an
    action card."""
    if whole is not None:
        if strip in (None, whole):
            return whole
        return strip if strip is not None and _one_colour(whole, strip) else None
    return strip if ties else None


def _agreed(judged: Sequence[tuple[str | None, str | None]], whole: Sequence[str | None],
            strips: Sequence[str | None] | None = None) -> list[str | None]:
    """A whole card's name from the template read (`_PartReader.judge`: sure name, best label) and the deck's own
    tests (``whole``): a name both tests give; one test's sure name where the other is unsure; the deck's tests'
    name where the template read is unsure only when its best label is that name (the deck's tests alone take a
    flea for its neighbour in value); never a name where the two differ, but where the deck's tests name another
    value of the colour of a sure name that the strip down the card's left edge is sure of too (``strips``: each
    card's strip's sure name, or None): that name is taken, the strip shows the value and the deck's tests read the
    whole card."""
    out: list[str | None] = []
    for i, ((sure, best), named) in enumerate(zip(judged, whole)):
        if named is None:
            out.append(sure)
        elif sure is None:
            out.append(named if best is None or best == named else None)
        elif sure == named:
            out.append(named)
        else:
            by_strip = None if strips is None else strips[i]
            out.append(sure if by_strip == sure and _one_colour(sure, named) else None)
    return out


#: A card's part is read as cut where the layout lays the card and moved by each of these (mm right, mm down, degrees
#: clockwise about its top-left corner): a card is laid by hand a little off and turned
_POSES = ((0.0, 0.0, 0.0),) + tuple((dx, dy, t) for t in (-2.5, -1.25, 0.0, 1.25, 2.5)
                                    for dx, dy in ((0.0, 0.0), (1.5, 0.0), (-1.5, 0.0), (0.0, 1.5), (0.0, -1.5))
                                    if (dx, dy, t) != (0.0, 0.0, 0.0))


#: The tint cue: each image in linear light balanced against its own white (`vision.enroll.COLOUR_WHITE`), its
#: colourful pixels (chroma at least `vision.enroll.COLOUR_GREY`) counted by hue (`_TINT_HUES` bins) and by how light
#: they are against that white (`_TINT_LIGHT` bounds), over all its pixels. The deck's colour cue counts hues only,
#: and a card printed in brown (a dark orange) then looks like its orange twin; how light its colours are tells them
#: apart.
_TINT_HUES = 12
_TINT_LIGHT = (0.0, 0.06, 0.16, 0.4)


def tints(images: Image) -> NDArray[Any]:
    """``(N, bins)``: each ``(N, H, W, 3)`` uint8 BGR image's colours by hue and lightness, the camera's white
    balance and exposure out; the last bin counts the grey and dark pixels. Each row sums to one."""
    from vision.enroll import COLOUR_DARK, COLOUR_GREY, balanced_to_white

    levels = len(_TINT_LIGHT)
    out = np.zeros((len(images), _TINT_HUES * levels + 1), np.float32)
    for i, im in enumerate(images):
        px = im.reshape(-1, 3).astype(np.float32)
        bal = balanced_to_white(px)
        total = bal.sum(axis=1)
        b, g, r = (bal / np.maximum(total, 1e-6)[:, None]).T
        x, y = r - g, (r + g) / 2 - b
        level = np.searchsorted(np.asarray(_TINT_LIGHT), total / 3.0) - 1
        colourful = (np.hypot(x, y) >= COLOUR_GREY) & (total >= 3 * COLOUR_DARK)
        hue = ((np.arctan2(y, x) + math.pi) / (2 * math.pi) * _TINT_HUES).astype(np.intp) % _TINT_HUES
        bins = np.where(colourful, hue * levels + np.clip(level, 0, levels - 1), _TINT_HUES * levels)
        out[i] = np.bincount(bins, minlength=out.shape[1]) / max(len(px), 1)
    return out


#: A part of a card (not the whole card) is read by the deck's templates cut to that part (`vision.enroll.TemplateCue`),
#: among the cards that may lie there and whose tints (`tints`, Hellinger distance to the nearest of each label's
#: templates) lie within `_PART_TINT` of the nearest label's: named when its best label correlates at least
#: `_PART_MIN` and ahead of every other such label by `_PART_LEAD`, its tints lie within `_PART_TINT_MAX` of the
#: crop's and the crop shows at least `_PART_DETAIL` of the print of that label's templates (`vision.enroll.detail`:
#: a hand or a glared place shows little), blurred as the crop is
_PART_MIN = 0.5
_PART_LEAD = 0.05
_PART_TINT = 0.08
_PART_TINT_MAX = 0.4
_PART_DETAIL = 0.5
#: The print is weighed against the label's templates blurred as the crop is (`_PartReader.expected_detail`: a card
#: in a blurred photo shows less print), never against less than `_PART_BLURRED_DETAIL` of their sharp print: a
#: hand over a place is smoother than any card. On the camera model's hard photos of the Fleapit deck (seeds
#: 906,500,000 on) cards read right showed 0.32 to 0.5 of their sharp print, a hand read as a card 0.15 to 0.18
_PART_BLURRED_DETAIL = 0.25
#: A part showing less print than `_PART_FAINT` (`vision.enroll.detail`, exposure aside) is named only where its best label
#: correlates at least `_PART_FAINT_MIN`: a faint place's correlation is mostly noise and the edge of what covers it.
#: On the camera model's photos of the Fleapit deck (seeds 906,500,000 and 906,900,000 on), strips read right showing
#: under 0.05 correlated 0.8 to 0.94 and every part read right correlating under 0.65 showed 0.09 or more (action cards);
#: a card's strip under the hand's fingers, read as another, showed 0.024 at 0.5
_PART_FAINT = 0.05
_PART_FAINT_MIN = 0.65
#: A label that correlates at least `_PART_WIDE_MIN` and ahead of every other label that may lie there by
#: `_PART_WIDE_LEAD` (the three action cards: each looks like no other) is the part's best label whatever the tints say,
#: and its tints are not tested: the dark action cards' few colours shift far with exposure and blur. On the camera
#: model's photos of the Fleapit deck (seeds 906,500,000, 906,700,000 and 908,500,000 on), action cards whose first
#: label was their own lay 0.08 to 0.78 from its templates' tints, and those asked about though that far ahead
#: correlated 0.63 to 0.86 and led by 0.20 to 0.36; no first label in the action lane that was not the card there
#: correlated over 0.26 or led by over 0.11; in the row and the seat zones one part led every other flea by 0.15 (0.16,
#: a grey 0, read right)
_PART_WIDE_MIN = 0.6
_PART_WIDE_LEAD = 0.2
#: A part's best label ahead of a rival by less than `_PART_LEAD` is still named where the part shows it rather than that
#: rival by at least `_TWIN_MARGIN` (`vision.twins.twin_score`, -1 to 1, the views blurred as the part is) where their
#: views differ (a flea and its neighbour in value: the index and the value bars; two colours alike in tint: the emblem)
_TWIN_MARGIN = 0.5
#: ... where the part correlates at least `_TWIN_MIN` with the best label: a hand over part of it (hiding a value bar)
#: lowers it (0.79 on the tuning photos, the hand's edge over the bars read as one bar fewer; parts told right 0.85 to
#: 0.93)
_TWIN_MIN = 0.8
#: A whole card whose best label is kept unsure by a look-alike that the strip down its left edge ranks first is named
#: as that look-alike where the whole card shows it rather than the best label by at least `_TWIN_TURN`
#: (`_PartReader.turns_to`). On the camera model's photos of the Fleapit deck (seeds 906,500,000, 906,700,000 and
#: 908,500,000 on), whole cards whose strip ranked their own card first showed it rather than the best label by 0.39 to
#: 0.93; the one strip that ranked another card first (a brown 1 under the hand's fingers, read as brown 3) 0.26
_TWIN_TURN = 0.35
#: A whole flea card shows mostly its flea, the same for every value of a colour: its templates may rank a neighbour in
#: value first. The strip down its left edge (index and value bars) names it where that strip's read is sure and the
#: whole card's templates put its name within `_WHOLE_TIE` of their first (`_PartReader.ties`): on the camera model's
#: photos of the Fleapit deck (seeds 906,500,000 on) values of one colour lie within 0.015 on the whole card
_WHOLE_TIE = 0.02
#: ... and correlate at least `_WHOLE_TIE_MIN` with it: a whole card its templates find farther off is partly hidden (a
#: hand: 0.58 on the tuning photos; whole cards named so 0.86 to 0.9), and the strip may be too
_WHOLE_TIE_MIN = 0.7


#: Glare over a part of a card (pixels at least `_PART_GLARE` in every channel, and those within `_PART_GLARE_REACH`
#: pixels of them) shows no print and lifts the part's brightness, by which its print is weighed: a dark action card
#: half under glare showed 0.1 to 0.3 of its templates' sharp print. Its print is measured where no glare lies too
#: (`seen_detail`), where at least `_PART_GLARE_SEEN` of the part is clear of it
_PART_GLARE = 250
_PART_GLARE_REACH = 2
_PART_GLARE_SEEN = 0.3


def seen_detail(parts: Image) -> NDArray[Any]:
    """``(N,)``: the print (`vision.enroll.detail`) each ``(N, H, W, 3)`` part shows, or where glare lies over it the
    print of the part clear of the glare (`_PART_GLARE`) where that is more: glare hides print, it shows none."""
    from vision.enroll import detail, detail_over

    out = detail(parts)
    reach = np.ones((2 * _PART_GLARE_REACH + 1, 2 * _PART_GLARE_REACH + 1), np.uint8)
    for i, part in enumerate(parts):
        glare = (part.min(axis=2) >= _PART_GLARE).astype(np.uint8)
        if not glare.any():
            continue
        clear = cv2.dilate(glare, reach) == 0
        if float(np.mean(clear)) < _PART_GLARE_SEEN:
            continue
        out[i] = max(float(out[i]), detail_over(part, clear))
    return out


class _PartReader:
    """An enrolled deck's templates cut to one part of a card."""

    def __init__(self, deck: Any, part: tuple[float, float, float, float]) -> None:
        from vision.enroll import TEMPLATE_BLURS, TemplateCue, detail, edge_ratio

        self.size: tuple[int, int] = tuple(deck.crop_size)
        self.rows, self.cols = _part_slice(part, self.size)
        templates = np.ascontiguousarray(deck.templates[:, self.rows, self.cols])
        self.labels: tuple[str, ...] = tuple(deck.labels)
        self.owners = np.asarray(deck.template_owners, np.intp)
        self.cue = TemplateCue(templates, deck.template_owners, len(self.labels))
        self.roots = np.sqrt(tints(templates))
        self.templates = templates
        #: each label's median print (`vision.enroll.detail`) over its templates
        self.detail = self._median(detail(templates))
        #: ``(blurs, labels)``: each label's median print and edge steepness (`vision.enroll.edge_ratio`) over its
        #: templates blurred by each of `vision.enroll.TEMPLATE_BLURS` (`expected_detail`)
        blurred = [np.stack([cv2.GaussianBlur(t, (0, 0), sigma) for t in templates]) if sigma > 0 else templates
                   for sigma in TEMPLATE_BLURS]
        per_label = [[self._median(values) for values in (detail(b), edge_ratio(b))] for b in blurred]
        self.blurred_detail = np.array([d for d, _ in per_label])
        self.blurred_steepness = np.array([e for _, e in per_label])

    def _median(self, values: NDArray[Any]) -> NDArray[Any]:
        """Each label's median of ``values`` (one per template); 0 for a label without templates."""
        return np.array([float(np.median(values[self.owners == k])) if np.any(self.owners == k) else 0.0
                         for k in range(len(self.labels))])

    def expected_detail(self, crops: Image) -> NDArray[Any]:
        """``(N, labels)``: the print (`vision.enroll.detail`) each label's templates show blurred as each whole
        face-field crop's part is: at the strongest of `vision.enroll.TEMPLATE_BLURS` that leaves their edges about
        as steep as the crop's (`vision.enroll.BLUR_MATCH`), as the template cue compares them. A blurred photo's
        card shows less print than the sharp templates, a hand or a glared place less than either."""
        from vision.enroll import BLUR_MATCH, edge_ratio

        steep = edge_ratio(np.ascontiguousarray(crops[:, self.rows, self.cols]))
        level = (self.blurred_steepness[None, :, :] >= BLUR_MATCH * steep[:, None, None]).sum(axis=1) - 1
        level = np.clip(level, 0, len(self.blurred_detail) - 1)
        out: NDArray[Any] = np.take_along_axis(self.blurred_detail.T[None, :, :],
                                               level[:, :, None], axis=2)[:, :, 0]
        return out

    def scores(self, crops: Image, among: NDArray[np.bool_]) -> tuple[NDArray[Any], NDArray[Any]]:
        """``(N, labels)`` template correlations (-1 outside ``among``) and tint distances (1 outside ``among``) of
        whole face-field crops."""
        parts = np.ascontiguousarray(crops[:, self.rows, self.cols])
        wanted = np.repeat(among[None, :], len(crops), axis=0)
        corr = self.cue.scores(parts, wanted)
        d = np.sqrt(np.maximum(1.0 - np.sqrt(tints(parts)) @ self.roots.T, 0.0))
        tint = np.ones((len(crops), len(self.labels)), np.float32)
        for i in range(len(crops)):
            np.minimum.at(tint[i], self.owners, d[i])
        tint[:, ~among] = 1.0
        return corr, tint

    def best_scores(self, crops: Image, among: NDArray[np.bool_]) -> tuple[NDArray[Any], NDArray[Any]]:
        """`scores` over `_POSES`: ``crops`` ``(poses, N, H, W, 3)``; each label's best correlation over the poses and its
        least tint distance."""
        corr, tint, _ = self._posed_scores(crops, among)
        return corr, tint

    def _posed_scores(self, crops: Image, among: NDArray[np.bool_]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        """`best_scores`, and ``(N, labels)`` the pose at which each label correlates best."""
        corr, tint = self.scores(crops[0], among)
        pose = np.zeros(corr.shape, np.intp)
        for k, moved in enumerate(crops[1:], start=1):
            c, d = self.scores(moved, among)
            pose = np.where(c > corr, k, pose)
            corr, tint = np.maximum(corr, c), np.minimum(tint, d)
        return corr, tint, pose

    def judge(self, crops: Image, among: NDArray[np.bool_]) -> list[tuple[str | None, str]]:
        """Each card's part: the label it shows where the tests are sure of it (else None), and the label whose
        templates it correlates best with among those whose tints lie near (`read`)."""
        return self.judge_scored(crops, among)[0]

    def judge_scored(self, crops: Image, among: NDArray[np.bool_], leaning: Sequence[str | None] | None = None,
                     ) -> tuple[list[tuple[str | None, str]], NDArray[Any], NDArray[Any]]:
        """`judge`, with the correlations and tint distances it was made from (`best_scores`). ``leaning``: for each
        card, a label another read of it ranks first (or None): where this part's tests are unsure of their best label
        only for its look-alikes, that label is named if the part shows it rather than the best (`turns_to`)."""
        from vision.enroll import TEMPLATE_BLURS
        from vision.twins import twin_score

        corr, tint, pose = self._posed_scores(crops, among)
        printed = seen_detail(np.ascontiguousarray(crops[0][:, self.rows, self.cols]))
        expected = self.expected_detail(crops[0])
        out = []
        for i in range(len(corr)):
            def twins(a: int, b: int, i: int = i) -> float:
                seen = np.ascontiguousarray(crops[pose[i, a], i, self.rows, self.cols])
                # a table photo is blurrier than the enrolment photos: a bar or a numeral a few pixels across is
                # told only against views blurred alike
                return twin_score(seen, self.templates, self.owners, a, b, every_channel=True, blurs=TEMPLATE_BLURS)

            sure, best = self.decide(corr[i], tint[i], float(printed[i]), among, expected[i], twins)
            lean = leaning[i] if leaning is not None else None
            if sure is None and lean is not None and lean != best and \
                    self.turns_to(corr[i], tint[i], float(printed[i]), among, expected[i], best, lean, twins):
                sure = lean
            out.append((sure, best))
        return out, corr, tint

    def turns_to(self, corr: NDArray[Any], tint: NDArray[Any], printed: float, among: NDArray[np.bool_],
                 expected: NDArray[Any], best: str, label: str, twins: Callable[[int, int], float]) -> bool:
        """True when a part whose best label is ``best`` (`decide`) shows ``label`` instead: ``label`` is one of the
        look-alikes that kept ``best`` unsure, passes the tests a best label must (`_plain`), correlates at least
        `_WHOLE_TIE_MIN`, and the part shows it rather than ``best`` by at least `_TWIN_TURN` and rather than every
        other such look-alike (`vision.twins.twin_score`)."""
        a, b = self.labels.index(best), self.labels.index(label)
        rivals = self._rivals(corr, tint, among, a)
        if b not in rivals or corr[b] < _WHOLE_TIE_MIN or not self._plain(corr, tint, printed, expected, b, False):
            return False
        return twins(a, b) <= -_TWIN_TURN and all(twins(b, k) > 0.0 for k in rivals if k != b)

    def ties(self, corr: NDArray[Any], tint: NDArray[Any], label: str) -> bool:
        """True when ``label`` correlates within `_WHOLE_TIE` of the best label whose tints lie near, and at least
        `_WHOLE_TIE_MIN`, and its own tints lie near (within `_PART_TINT` of the nearest label's): the part, seen whole,
        cannot tell it from the first."""
        k = self.labels.index(label)
        near = tint <= float(tint.min()) + _PART_TINT
        return bool(near[k]) and float(corr[k]) >= max(_WHOLE_TIE_MIN, float(np.where(near, corr, -2.0).max()) - _WHOLE_TIE)

    def decide(self, corr: NDArray[Any], tint: NDArray[Any], printed: float, among: NDArray[np.bool_],
               expected: NDArray[Any] | None = None,
               twins: Callable[[int, int], float] | None = None) -> tuple[str | None, str]:
        """One part's sure label (None where the tests are not sure) and best label, from its correlation and tint
        distance to each label (`best_scores`) and its print (`vision.enroll.detail`) against each label's
        templates' (``expected``, `expected_detail`; default their print unblurred). ``twins(a, b)``: how surely the
        part shows label ``a`` rather than ``b`` (`vision.twins.twin_score`), asked about each rival nearer than
        `_PART_LEAD` (default: none is passed). A faint part (`_PART_FAINT`) is named only at `_PART_FAINT_MIN`."""
        near = among & (tint <= float(tint.min()) + _PART_TINT)
        allowed = np.where(among, corr, -2.0)
        first = int(np.argmax(allowed))
        wide = corr[first] >= _PART_WIDE_MIN and corr[first] - float(np.delete(allowed, first).max()) >= _PART_WIDE_LEAD
        best = first if wide else int(np.argmax(np.where(near, corr, -2.0)))
        sure = self._plain(corr, tint, printed, expected, best, wide)
        close = self._rivals(corr, tint, among, best)
        if sure and close:
            sure = twins is not None and corr[best] >= _TWIN_MIN and all(twins(best, k) >= _TWIN_MARGIN for k in close)
        return (self.labels[best] if sure else None), self.labels[best]

    def _plain(self, corr: NDArray[Any], tint: NDArray[Any], printed: float, expected: NDArray[Any] | None, k: int,
               wide: bool) -> bool:
        """True when label ``k`` passes `decide`'s tests but the look-alikes' (``wide``: its tints are not tested)."""
        shown = float((self.detail if expected is None else expected)[k])
        return bool(corr[k] >= _PART_MIN and (wide or tint[k] <= _PART_TINT_MAX) and printed >= _PART_DETAIL * shown and
                    printed >= _PART_BLURRED_DETAIL * float(self.detail[k]) and
                    (printed >= _PART_FAINT or corr[k] >= _PART_FAINT_MIN))

    def _rivals(self, corr: NDArray[Any], tint: NDArray[Any], among: NDArray[np.bool_], best: int) -> list[int]:
        """The labels `decide` cannot tell from ``best`` by correlation: those whose tints lie near that correlate within
        `_PART_LEAD` of it, and those whose tints lie just past the near ones' yet within the tint test's bound that
        correlate better (blur and glare move a card's tints off its own templates')."""
        near = among & (tint <= float(tint.min()) + _PART_TINT)
        out = [int(k) for k in np.flatnonzero(near) if k != best and corr[best] - corr[k] < _PART_LEAD]
        out += [int(k) for k in np.flatnonzero(among & ~near & (tint <= _PART_TINT_MAX)) if corr[k] > corr[best]]
        return out

    def read(self, crops: Image, among: NDArray[np.bool_]) -> list[str | None]:
        """The label each card's part shows, where the tests are sure of it; ``crops``: ``(poses, N, H, W, 3)``, each
        card's face field cut at each of `_POSES` (the first as the layout lays it): each label's correlation is its
        best over the poses, its tint distance its least."""
        return [sure for sure, _ in self.judge(crops, among)]
