"""Frame -> `TableView`, stage by stage, with per-stage timings and annotation.

>>> from vision.bigtop.pipeline import Recognizer           # doctest: +SKIP
>>> view = Recognizer().recognize(frame).view         # doctest: +SKIP
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scorer.bigtop.cards import DECK, Card, Shade
from vision.bigtop import DEFAULT_CONFIG, DEFAULT_MODEL
from vision.bigtop.balance import MIN_CAST, balanced, paper_gains, paper_points, second_look
from vision.bigtop.facefit import MARGIN as FIT_MARGIN
from vision.bigtop.facefit import MAX_COST as FIT_MAX_COST
from vision.bigtop.facefit import MIN_CONFIDENCE as FIT_MIN_CONFIDENCE
from vision.bigtop.facefit import FitMemory, confirmed, poster_confirmed, prepare_faces
from vision.bigtop.faces import render_card_back
from vision.bigtop.glare import second_look as glare_look
from vision.bigtop.labels import BACK, LABELS, NONE, TOKEN_VALUES, Kind, kind_of, token_label
from vision.bigtop.layout import CARD, CHART, Pile
from vision.bigtop.places import LayoutPlace, PlaceMemory, fit_card, prepare_places, prepare_prints
from vision.bigtop.tableview import Area, TableView, Zone, build_table_view, zones_of
from vision.boardmatch import BoardMemory
from vision.calibrate import (
    Calibration,
    Calibrator,
    ChartPose,
    MarkerTracker,
    Rectified,
    marker_outlines,
    prepare_unshrunk,
    rectify,
)
from vision.classify import Classifier, CropReader, Recognition, Verdict
from vision.codematch import prepare_templates
from vision.config import VisionConfig
from vision.detect import Detection, FloatArray, find_components, find_components_near, warp_crops
from vision.geometry import Image
from vision.images import MAX_IMAGE_PIXELS, load_image
from vision.recall import TILE, CropMemory, FrameMemory, Seen

__all__ = ["BACK_MATCH", "BLURRED", "BLURRED_CONFIDENCE", "MAX_IMAGE_PIXELS", "Recognizer", "Result", "StageTimes",
           "allowing_for_blur", "annotate", "back_match", "can_lie_on", "checking_backs", "fine_detail", "load_image",
           "one_of_each"]


@dataclass(frozen=True, slots=True)
class StageTimes:
    """Milliseconds spent in each stage of one frame."""

    markers: float
    calibrate: float
    rectify: float
    detect: float
    crops: float
    classify: float
    view: float
    #: reading the places the layout defines that no detection identified (`vision.bigtop.places`)
    places: float = 0.0

    @property
    def total(self) -> float:
        """Sum of all stages."""
        return (self.markers + self.calibrate + self.rectify + self.detect + self.crops + self.classify
                + self.view + self.places)


@dataclass(frozen=True, slots=True)
class Result:
    """A frame's TableView with the intermediate results it came from."""

    view: TableView
    calibration: Calibration
    charts: dict[int, ChartPose]
    #: the grey top-down image the components were found in
    rectified: Rectified
    detections: tuple[Detection, ...]
    recognitions: tuple[Recognition, ...]
    times: StageTimes
    #: the classifier's input, one crop per detection: ``(N, H, W, 3)`` uint8 BGR from the camera frame
    crops: Image
    #: the processor time each stage took (``times`` is wall-clock time)
    cpu_times: StageTimes | None = None


class Recognizer:
    """Runs the stages on frames; keeps the calibration cache between frames.

    A chart that only some of its markers placed is fitted again to all of them that show its codes,
    and a chart none of whose markers decoded is found by matching them together (`vision.boardmatch`).
    Successive frames are taken to show the same table: once the markers were found, the
    next frames are searched for them only where they were (`MarkerTracker`). Every tableau
    pile and chart space that no detection identified is read from where the layout puts it,
    and one still unread that is not plain (or washed out by glare with no card under it) is
    reported unrecognised, not empty (`vision.bigtop.places`); live, a place's crop whose best
    guess is the card last identified there counts from `REMEMBERED_CONFIDENCE`. The deck holds one of each
    card: one identified twice in a frame, by detections or a place's crop, is held both times (`one_of_each`). An identified
    token is read a second time with the camera's colour cast taken out
    (`vision.bigtop.balance`) and stays identified only when both looks agree. While the camera
    frame shows the same as the last frame searched, within noise, that frame's markers, calibration
    and components are given back; while the calibration holds, components are searched afresh only
    near what changed; and a crop that matches one read in the last frames keeps its reading
    (`vision.recall`). A frame not given back keeps the charts' poses of the frames before while
    their markers have not moved, or while a hand hides all of a chart's markers and the rest of its
    print shows it has not moved (`vision.boardmatch.BoardMemory`). Call `reset` before a frame of
    another table to search it in full at once.

    :raises ModelFileError: when the model file cannot be loaded.
    """

    def __init__(self, model: Path | str = DEFAULT_MODEL, config: VisionConfig = DEFAULT_CONFIG,
                 classifier: CropReader | None = None) -> None:
        self.config = config
        self.classifier: CropReader = classifier if classifier is not None else Classifier(model)
        self.calibrator = Calibrator(config)
        self.tracker = MarkerTracker(config)
        #: the card last seen on each tableau pile and chart space, while the table has not moved
        self.places = PlaceMemory()
        #: live: the last frame searched and the crops last read, given back while unchanged (`vision.recall`)
        self.still = FrameMemory()
        self.read = CropMemory()
        #: live: each unsure place's fit of the printed faces, given back while its crop is unchanged
        self.fits = FitMemory()
        self._last_calibration: Calibration | None = None
        #: the charts' poses, fitted to their markers or found by matching them, while the table has not moved
        self.boards = BoardMemory(config, ((0.0, 0.0), (CHART.width, 0.0), (CHART.width, CHART.height),
                                           (0.0, CHART.height)))

    def prepare(self) -> None:
        """Make now what a first frame would make on first use: the model's first runs, the printed faces an unsure
        place's crop is fitted to, the clean prints the place tests compare with (and what the mat's print shows
        where a card's frame line would lie on each pile, and where the glare test reads each pile), the mat's paper
        points, numpy's median, the code templates the charts are
        matched with, and the expected marker edges a chart placed by few markers is fitted with. The referee
        calls this once at start, so that the first frame it reads is no slower than any other table's first
        frame; readings are the same either way."""
        if isinstance(self.classifier, Classifier):
            self.classifier.prepare()
            prepare_faces(*self.config.crop_size)
        prepare_prints(self.config.px_per_mm)
        # the rectification of every frame but for its image: the places' plans are made for its size
        prepare_places(self.config.px_per_mm, rectify(np.zeros((1, 1), np.uint8), _IDENTITY, self.config))
        paper_points()
        np.median(np.zeros(2))  # numpy imports numpy.ma on a process's first median (the paper's gains take one)
        prepare_templates(self.config.aruco_dictionary)
        prepare_unshrunk(self.config)

    def reset(self) -> None:
        """Forget the cached calibration, marker positions and the cards last seen on each place."""
        self.calibrator.reset()
        self.tracker.reset()
        self.places.reset()
        self.still.reset()
        self.read.reset()
        self.fits.reset()
        self._last_calibration = None
        self.boards.reset()

    def _detection_config(self) -> VisionConfig:
        """The config components are searched with: the shipped model reads Ringside's print, found in one contour
        pass (`VisionConfig.unclosed_pass` off); any other reader (an enrolled deck) reads another art, whose values
        and frame lines may lie a pixel apart where Ringside's print leaves more room, so its dark mask is also
        searched as it is."""
        if isinstance(self.classifier, Classifier) or self.config.unclosed_pass:
            return self.config
        return replace(self.config, unclosed_pass=True)

    def recognize(self, frame: Image) -> Result:
        """One frame (BGR or grey) -> `Result`.

        :raises NoMatError: when too few of the mat's markers are in view.
        """
        colour = frame.ndim == 3
        if not colour:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        cfg = self.config
        t0 = _now()
        self.read.next_frame()
        reader = self.read.reading(self.classifier)
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        seen = self.still.recall(gray)
        full_searches = self.tracker.full_searches
        markers = seen.markers if seen else self.tracker.find(gray)
        t1 = _now()
        cal = seen.calibration if seen else self.calibrator.update(markers)
        charts = seen.charts if seen else self.boards.charts(
            gray, cal, markers, self.tracker.full_searches != full_searches, self.tracker.squares,
            self.still.frame_tiles)
        t2 = _now()
        rect = seen.rectified if seen else rectify(gray, cal, cfg)
        if seen is None:
            seen = Seen(markers, cal, charts, rect)
            self.still.remember(seen)
        t3 = _now()
        if seen.found is None:
            outlines = marker_outlines(markers, rect, cfg)
            found_by = self._detection_config()
            self.still.components(seen, outlines, lambda: find_components(rect.image, found_by, outlines),
                                  lambda changed, found: find_components_near(rect.image, found_by, outlines, found,
                                                                              changed, TILE))
        dets = list(seen.found or [])
        t4 = _now()
        crops = warp_crops(frame, dets, cfg, rect.rect_to_frame)
        t5 = _now()
        recs = [_of_its_shape(d, r) for d, r in zip(dets, reader.classify(crops, cfg.confidence_threshold))]
        recs = self._tokens_among_tokens(crops, dets, recs)
        if colour and any(d.kind is Kind.TOKEN for d in dets):
            gains = paper_gains(frame, cal.table_to_image)
            recs = self._tokens_among_tokens(crops, dets, recs, gains)
            recs = second_look(self._token_reader() or self.read.reading(self.classifier, "balanced"), crops, dets,
                               recs, gains, cfg.confidence_threshold)
        recs = one_of_each(self._checked(crops, recs))
        t6 = _now()
        items = [(d.kind, rect.to_table(*d.centre), d.angle, r) for d, r in zip(dets, recs)]
        if cal is not self._last_calibration:
            self.places.reset()  # the table or camera moved: the places are elsewhere in the frame
            self._last_calibration = cal
        view = build_table_view(items, charts, cal.markers_seen, cal.error_mm)
        t7 = _now()
        view, more = self._read_places(frame, rect, charts, view, items, crops, recs)
        if more[0]:
            dets = dets + more[0]
            recs = recs + more[1]
            crops = np.concatenate([crops, more[2]])
        t8 = _now()
        ticks = (t0, t1, t2, t3, t4, t5, t6, t7, t8)
        wall, cpu = (StageTimes(*(1000 * (b[k] - a[k]) for a, b in zip(ticks, ticks[1:]))) for k in (0, 1))
        return Result(view, cal, charts, rect, tuple(dets), tuple(recs), wall, crops, cpu)

    def _read_places(self, frame: Image, rect: Rectified, charts: dict[int, ChartPose], view: TableView,
                     items: list[tuple[Kind, tuple[float, float], float, Recognition]], item_crops: Image,
                     item_recs: list[Recognition] | None = None,
                     ) -> tuple[TableView, tuple[list[Detection], list[Recognition], Image]]:
        """Read every tableau pile and chart space that no detection identified, from where the layout
        puts it (`vision.bigtop.places.fit_card`), then hold each that is still unread and not plain. A place's
        crop not identified under a glare spot is read again with the glare taken out (`vision.bigtop.glare`); one
        left unsure is confirmed by fitting the printed faces (`vision.bigtop.facefit.confirmed`), and a Poster
        pile's crop taken for nothing is its Poster where the classifier's ranking of the suit's cards and the fit
        agree on it (`_posters_for_nothing`).

        A place's crop counts only as a card confidently identified, or (live) as the card last
        identified there when that is its best guess with at least `REMEMBERED_CONFIDENCE`; and
        never against an unrecognised detection on the place whose best guess is another component. A card is
        one of a kind: a place's crop read as a card identified elsewhere on the table is not taken, and that
        other reading is made unsure too (in ``items`` and, for a detection, ``item_recs``, one per item as
        given): one of the two is wrong, and which one is not known.
        Returns the view and the place crops' detections, recognitions and crops.
        """
        cfg = self.config
        todo, plain = self.places.to_read(view, rect, charts)
        empty = np.zeros((0, cfg.crop_size[1], cfg.crop_size[0], 3), np.uint8)
        if not todo:
            return self.places.update(view, rect, charts, plain), ([], [], empty)
        fits = [fit_card(rect, p)[0] for p in todo]
        crops = warp_crops(frame, fits, cfg, rect.rect_to_frame)
        reader = self.read.reading(self.classifier)
        recs = self._allowing_for_blur(crops, reader.classify(crops, cfg.confidence_threshold))
        if isinstance(self.classifier, Classifier):  # an enrolled deck's confidence is not a probability
            recs = glare_look(self.read.reading(self.classifier, "deglared"), crops, recs, cfg.confidence_threshold,
                              allowing_for_blur)
            recs = confirmed(crops, recs, [_fit_among(p.zone) for p in todo], [p.key for p in todo], self.fits)
            recs = self._posters_for_nothing(crops, recs, todo)
        keys = [_zone_key(z) for z in zones_of([xy for _, xy, _, _ in items], charts)]
        if isinstance(self.classifier, Classifier):
            recs = self._confirmed_by_detection(todo, recs, items, keys, item_crops)
        accepted: list[Recognition] = []
        #: each item's detection (its index in ``item_recs``), or -1 - its index in ``accepted`` (a place's crop)
        owners = list(range(len(items)))
        changed = False
        for place, d, r in zip(todo, fits, recs):
            k = place.key
            card = r.best != NONE and kind_of(r.best) is Kind.CARD and can_lie_on(r.best, place.zone)
            ok = card and r.verdict is Verdict.IDENTIFIED
            if (card and not ok and self.places.held.get(k) == r.best
                    and r.confidence >= REMEMBERED_CONFIDENCE):
                ok, r = True, Recognition(Verdict.IDENTIFIED, r.best, r.confidence)
            there = [i for i, kk in enumerate(keys) if kk == k]
            if ok and any(items[i][3].best not in (r.best, NONE) and items[i][3].confidence >= CONFLICT_CONFIDENCE
                          for i in there):
                ok = False
            twins = [i for i, it in enumerate(items) if keys[i] != k and it[3].verdict is Verdict.IDENTIFIED
                     and it[3].best == r.best] if ok else []
            for i in twins:
                kind, xy, angle, other = items[i]
                items[i] = (kind, xy, angle, Recognition(Verdict.UNSURE, other.best, other.confidence))
                if owners[i] >= 0 and item_recs is not None:
                    item_recs[owners[i]] = items[i][3]
                elif owners[i] < 0:
                    accepted[-1 - owners[i]] = items[i][3]
                ok, changed = False, True
            if ok:
                for i in sorted(there, reverse=True):
                    del items[i], keys[i], owners[i]
                items.append((Kind.CARD, rect.to_table(*d.centre), d.angle, r))
                keys.append(k)
                owners.append(-1 - len(accepted))
                changed = True
            elif r.verdict is Verdict.IDENTIFIED:
                r = Recognition(Verdict.UNSURE, r.best, r.confidence)  # not taken as read
            accepted.append(r)
        if changed:
            view = build_table_view(items, charts, view.mat_markers_seen, view.calibration_error_mm)
        return self.places.update(view, rect, charts, plain), (fits, accepted, crops)

    def _posters_for_nothing(self, crops: Image, recs: list[Recognition], todo: list[LayoutPlace]) -> list[Recognition]:
        """`facefit.poster_confirmed` on the Poster piles' crops the shipped classifier did not identify, nothing or
        the Poster their best guess, each with the Poster's share of the classifier's probabilities over the suit's
        cards (`_fit_among`) and those probabilities' sum."""
        if not isinstance(self.classifier, Classifier):
            return recs
        idx = [i for i, (p, r) in enumerate(zip(todo, recs)) if p.zone.pile is Pile.POSTER
               and r.verdict is not Verdict.IDENTIFIED and r.best in (NONE, _cards_on(p.zone)[0])]
        if not idx:
            return recs
        probs = self.classifier.probabilities(crops[idx])
        where = {label: k for k, label in enumerate(self.classifier.labels)}
        shares, weights = [], []
        for i, p in zip(idx, probs):
            among = np.array([p[where[c]] for c in _fit_among(todo[i].zone)], np.float64)
            weights.append(float(among.sum()))
            shares.append(float(among[0] / weights[-1]) if weights[-1] > 0 else 0.0)
        posters = [_cards_on(todo[i].zone)[0] for i in idx]
        looked = poster_confirmed(crops[idx], [recs[i] for i in idx], posters, shares, weights,
                                  [todo[i].key for i in idx], self.fits)
        out = list(recs)
        for i, r in zip(idx, looked):
            out[i] = r
        return out

    def _confirmed_by_detection(self, todo: list[LayoutPlace], recs: list[Recognition],
                                items: list[tuple[Kind, tuple[float, float], float, Recognition]],
                                keys: list[tuple[object, ...]], item_crops: Image) -> list[Recognition]:
        """A place crop's unsure card (`facefit.MIN_CONFIDENCE` at least) identified when the detector found the card
        too, unsure of the same card, and that detection's own crop fits the card's printed face as a place crop
        must (`facefit.confirmed`): the classifier and the fit agree, each on its own crop of the card."""
        out = list(recs)
        for i, (place, r) in enumerate(zip(todo, recs)):
            among = _fit_among(place.zone)
            if r.verdict is not Verdict.UNSURE or r.confidence < FIT_MIN_CONFIDENCE or r.best not in among:
                continue
            for j, k in enumerate(keys):
                it = items[j][3]
                if k != place.key or items[j][0] is not Kind.CARD or it.verdict is not Verdict.UNSURE or it.best != r.best:
                    continue
                label, cost, ratio = self.fits.face_read((place.key, "detected"), item_crops[j], among, r.best)
                if label == r.best and cost <= FIT_MAX_COST and ratio >= FIT_MARGIN:
                    out[i] = Recognition(Verdict.IDENTIFIED, r.best, r.confidence)
                    break
        return out

    def _tokens_among_tokens(self, crops: Image, detections: list[Detection], recognitions: list[Recognition],
                             gains: FloatArray | None = None) -> list[Recognition]:
        """``recognitions``, each token detection left unsure read again by an enrolled deck among its round
        components only (`vision.enroll.Deck.classify_among`): a blurred disc's nearest labels by the deck's
        embedding may all be cards, which its shape rules out. Other readers: as they are.

        With ``gains`` (`balance.paper_gains`, not all within `balance.MIN_CAST` of 1), the crop is read with the
        camera's colour cast taken out (`balance.balanced`), and taken only as the token it was already nearest to:
        a token's colour tells its value, and a cast moves it away from the enrolled photos' colours."""
        among = getattr(self.classifier, "classify_among", None)
        todo = [i for i, (d, r) in enumerate(zip(detections, recognitions))
                if d.kind is Kind.TOKEN and r.verdict is not Verdict.IDENTIFIED]
        if gains is not None:
            if float(np.max(np.abs(np.asarray(gains) - 1.0))) < MIN_CAST:
                return recognitions
            todo = [i for i in todo if recognitions[i].best in _TOKENS]
        if among is None or not todo:
            return recognitions
        labels = [x for x in getattr(self.classifier, "labels", ()) if x in _TOKENS]
        if len(labels) < 2:
            return recognitions
        out = list(recognitions)
        looked = crops[todo] if gains is None else balanced(crops[todo], gains)
        for i, r in zip(todo, among(looked, labels, shape_known=True)):
            if r.verdict is Verdict.IDENTIFIED and (gains is None or r.best == recognitions[i].best):
                out[i] = r
        return out

    def _token_reader(self) -> CropReader | None:
        """An enrolled deck read among its tokens only, told each crop is a disc (`_AmongTokens`); None for other
        readers and for a deck with fewer than two tokens."""
        among = getattr(self.classifier, "classify_among", None)
        labels = [x for x in getattr(self.classifier, "labels", ()) if x in _TOKENS]
        return _AmongTokens(among, labels) if among is not None and len(labels) >= 2 else None

    def _allowing_for_blur(self, crops: Image, recognitions: list[Recognition]) -> list[Recognition]:
        """`allowing_for_blur`, unless the reader tells blurred crops apart itself (``judges_blur``: an
        enrolled deck with templates, whose confidence is not a probability)."""
        if getattr(self.classifier, "judges_blur", False):
            return list(recognitions)
        return allowing_for_blur(crops, recognitions)

    def _checked(self, crops: Image, recognitions: list[Recognition]) -> list[Recognition]:
        """`_allowing_for_blur`, then `checking_backs` for the shipped model only: an enrolled deck's
        card backs are the family's own print, not Ringside's."""
        recs = self._allowing_for_blur(crops, recognitions)
        return checking_backs(crops, recs) if isinstance(self.classifier, Classifier) else recs

    def annotate(self, frame: Image, result: Result) -> Image:
        """`annotate` a frame with one of this recogniser's results."""
        return annotate(frame, result)


#: a calibration whose rectification is every frame's but for its image (`Recognizer.prepare`)
_IDENTITY = Calibration(np.eye(3), np.eye(3), 0, 0.0)


def _now() -> tuple[float, float]:
    """Wall-clock and processor time (seconds)."""
    return time.perf_counter(), time.process_time()


def can_lie_on(label: str, zone: Zone) -> bool:
    """True when the card ``label`` may lie on the place ``zone`` in play: a tableau pile holds its
    suit's cards of its own shade (the Poster pile the Poster), a chart space any card but a Poster
    (a Poster is never called). A place's crop read as a card that cannot lie there (a hand over a
    card's number reads as a Poster's) is not taken as read; a free detection keeps its label, so the
    referee still sees a card misplaced in play.
    """
    try:
        card = Card.parse(label)
    except ValueError:
        return False
    if zone.area is Area.TABLEAU:
        return card.suit is zone.suit and zone.pile is _PILE_OF_SHADE[card.shade]
    if zone.area is Area.CHART_SPACE:
        return not card.is_poster
    return False


_PILE_OF_SHADE = {Shade.POSTER: Pile.POSTER, Shade.LIGHT: Pile.LIGHT, Shade.DARK: Pile.DARK}


@functools.lru_cache(maxsize=64)
def _cards_on(zone: Zone) -> tuple[str, ...]:
    """The notations of every card that `can_lie_on` the place ``zone``."""
    return tuple(c.notation() for c in DECK if can_lie_on(c.notation(), zone))


@functools.lru_cache(maxsize=64)
def _fit_among(zone: Zone) -> tuple[str, ...]:
    """The cards a place's crop is fitted among (`vision.bigtop.facefit.confirmed`): every card that `can_lie_on`
    the place ``zone``, first; where that is one card only (a suit's Poster pile), its suit's other cards after
    it: they share its colour and picture, so the Poster is confirmed only when its numeral's "P" fits clearly
    better than every number of the suit (a card laid on the wrong pile is not taken for it either)."""
    cards = _cards_on(zone)
    if len(cards) != 1:
        return cards
    suit = Card.parse(cards[0]).suit
    return cards + tuple(c.notation() for c in DECK if c.suit is suit and c.notation() != cards[0])


def fine_detail(crops: Image) -> FloatArray:
    """``(N,)``: how much fine detail each ``(N, H, W, 3)`` crop keeps: the mean absolute difference of its
    lightly smoothed grey image (sensor noise out) from a blurred copy, over the blurred copy's spread.

    Defocus, motion blur and lost resolution lower it; exposure, contrast and noise barely change it.
    """
    out = np.empty(len(crops), np.float64)
    for i, c in enumerate(crops):
        g = cv2.GaussianBlur(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.8)
        b = cv2.GaussianBlur(g, (0, 0), 1.5)
        out[i] = float(np.abs(g - b).mean()) / (float(np.abs(b - b.mean()).mean()) + 1.0)
    return out


def allowing_for_blur(crops: Image, recognitions: list[Recognition]) -> list[Recognition]:
    """``recognitions``, a card or a token's face identified from a blurred crop (`fine_detail` under `BLURRED`)
    below `BLURRED_CONFIDENCE` made UNSURE: blur turns one pip count into its neighbour's (a 5 read as a 3)
    at confidences a sharp crop of a wrong card never reaches, and leaves of a token's value only its colour,
    which the camera's white balance moves (a grey $3 token far from the camera, defocused and tinted pink,
    read as the pink $5 at 0.915; on 60 tuning tables, medium and hard, first and live frames at 1280x960, the 728
    token faces read right had at least 0.958)."""
    out = list(recognitions)
    todo = [i for i, r in enumerate(out) if r.verdict is Verdict.IDENTIFIED and r.confidence < BLURRED_CONFIDENCE
            and (_is_card(r.best) or r.best in _TOKEN_FACES)]
    if todo:
        detail = fine_detail(crops[todo])
        for i, d in zip(todo, detail):
            if d < BLURRED:
                out[i] = Recognition(Verdict.UNSURE, out[i].best, out[i].confidence)
    return out


def one_of_each(recognitions: list[Recognition]) -> list[Recognition]:
    """``recognitions``, every card identified more than once made UNSURE: the deck holds one of each card, so
    at most one of those readings is right (a hand over a blue card once read as a yellow card of the same
    number at 0.99 while that card lay elsewhere), and which one is not known. Backs and tokens repeat."""
    seen = Counter(r.best for r in recognitions if r.verdict is Verdict.IDENTIFIED and _is_deck_card(r.best))
    twice = {label for label, n in seen.items() if n > 1}
    if not twice:
        return recognitions
    return [Recognition(Verdict.UNSURE, r.best, r.confidence) if r.verdict is Verdict.IDENTIFIED and r.best in twice
            else r for r in recognitions]


@functools.lru_cache(maxsize=256)
def _is_deck_card(label: str) -> bool:
    """True when ``label`` names one of the deck's cards (not a back or a token)."""
    try:
        Card.parse(label)
    except ValueError:
        return False
    return True


def _is_card(label: str) -> bool:
    try:
        return kind_of(label) is Kind.CARD
    except ValueError:
        return False


def back_match(crops: Image) -> FloatArray:
    """``(N,)``: how well each ``(N, H, W, 3)`` crop shows the card back's print: the best normalised
    correlation of its grey image with the clean back's face field at the crop's size, either way up,
    sharp or blurred by each of `BACK_BLUR_PX` (the camera's blur)."""
    out = np.empty(len(crops), np.float64)
    if not len(crops):
        return out
    templates = _back_templates(crops.shape[2], crops.shape[1])
    for i, c in enumerate(crops):
        g = cv2.cvtColor(c, cv2.COLOR_BGR2GRAY).astype(np.float64).ravel()
        g -= g.mean()
        norm = float(np.linalg.norm(g))
        out[i] = float((templates @ g).max()) / norm if norm > 1e-6 else 0.0
    return out


@functools.lru_cache(maxsize=4)
def _back_templates(width: int, height: int) -> FloatArray:
    """The card back's face field, grey, at ``width`` x ``height``: upright and turned, sharp and blurred,
    each less its mean and of unit norm, one a row."""
    s = 10.0
    img, _ = render_card_back(s)
    f = int(round((CARD.margin + CARD.frame) * s))
    field = cv2.cvtColor(img[f:img.shape[0] - f, f:img.shape[1] - f], cv2.COLOR_BGR2GRAY)
    small = cv2.resize(field, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    rows = []
    for blur in BACK_BLUR_PX:
        b = cv2.GaussianBlur(small, (0, 0), blur) if blur > 0 else small
        for t in (b, b[::-1, ::-1]):
            v = t.astype(np.float64).ravel()
            v -= v.mean()
            rows.append(v / np.linalg.norm(v))
    return np.stack(rows)


def checking_backs(crops: Image, recognitions: list[Recognition]) -> list[Recognition]:
    """``recognitions``, a card back identified from a crop that does not show the back's print
    (`back_match` under `BACK_MATCH`) made UNSURE: the dark, grainy table beside a card was once
    read as a back at 0.974, where nothing lay."""
    out = list(recognitions)
    todo = [i for i, r in enumerate(out) if r.verdict is Verdict.IDENTIFIED and r.best == BACK]
    if todo:
        for i, m in zip(todo, back_match(crops[todo])):
            if m < BACK_MATCH:
                out[i] = Recognition(Verdict.UNSURE, out[i].best, out[i].confidence)
    return out


#: the blur (px at the crop's size) `back_match` allows for
BACK_BLUR_PX = (0.0, 1.5)
#: a crop identified as a card back must match the back's print at least this well: on tuning tables (20 per
#: row, medium and hard, both frame sizes) the 31 backs identified matched from 0.40 (most from 0.6), no card
#: crop read as anything else above 0.24 (any crop 0.30), and the bare table once read as a back 0.05
BACK_MATCH = 0.3


#: a card crop with less `fine_detail` than this is blurred (a sharp render's is about 0.97): on the tuning
#: tables (hard, both frame sizes) a tenth of the cards identified right lay below it, and the one wrong
#: label accepted (0.17)
BLURRED = 0.2
#: ... and is identified only from this confidence (the wrong label had 0.93; one right card in ~370 lay lower)
BLURRED_CONFIDENCE = 0.95


class _AmongTokens:
    """A `CropReader` over an enrolled deck's ``classify_among``: every crop read among ``labels`` (the deck's
    tokens), told its outline is a disc (``shape_known``). For the second look at a token's colour-balanced crop
    (`balance.second_look`), which must not find the token's rivals among the cards its shape rules out."""

    def __init__(self, among: Callable[..., list[Recognition]], labels: list[str]) -> None:
        self.among = among
        self.labels = labels

    def classify(self, crops: Image, threshold: float) -> list[Recognition]:
        """One `Recognition` per crop, read among the tokens; ``threshold`` unused (the deck's tests decide)."""
        return self.among(crops, self.labels, shape_known=True)


_TOKENS = frozenset(x for x in LABELS if x != NONE and kind_of(x) is Kind.TOKEN)
#: the tokens' faces, each of its value (their common back shows no value)
_TOKEN_FACES = frozenset(token_label(v) for v in TOKEN_VALUES)


def _of_its_shape(detection: Detection, recognition: Recognition) -> Recognition:
    """``recognition``, or UNSURE when it names a component of another shape (a card's label for a disc)."""
    label = recognition.label
    try:
        if label is None or kind_of(label) is detection.kind:
            return recognition
    except ValueError:  # a label of another model's making: its shape is not known here
        return recognition
    return Recognition(Verdict.UNSURE, recognition.best, recognition.confidence)


#: live: a place's crop whose best guess is the card last identified there counts from this confidence
REMEMBERED_CONFIDENCE = 0.6
#: a place's crop is not taken when a detection on the place guesses another component with this confidence
CONFLICT_CONFIDENCE = 0.5


def _zone_key(z: Zone) -> tuple[object, ...]:
    return (z.area, z.seat, z.suit, z.pile, z.space)


_COLOURS = {
    Verdict.IDENTIFIED: (40, 200, 40),
    Verdict.UNSURE: (0, 140, 255),
    Verdict.NOT_A_COMPONENT: (60, 60, 230),
}


def annotate(frame: Image, result: Result, labels: list[tuple[str, tuple[int, int, int, int]]] | None = None) -> Image:
    """A copy of ``frame`` with every detection outlined, labelled and its confidence shown.

    Labels never overlap one another: each goes just above its outline when there is room,
    else below it, else to the nearest free place, with a thin line back to its outline.
    A confidence of 0.9 or more shows two significant digits of its distance from 1
    (0.9987 reads "0.9987", 0.9993 "0.99930", not both "1.00"); digits are cut, never rounded up.

    :param labels: when given, receives each label's text and box ``(x0, y0, x1, y1)``, in
        detection order (for tests and tools).
    """
    out = frame.copy()
    height, width = out.shape[:2]
    rect_to_image = result.calibration.table_to_image @ np.linalg.inv(result.rectified.table_to_rect)
    scale = max(0.4, width / 2400)
    font = cv2.FONT_HERSHEY_SIMPLEX
    pad = max(2, int(round(3 * scale)))

    def confidence_text(c: float) -> str:
        if c >= 1.0:
            return "1"
        digits = 2 if c < 0.9 else min(6, int(np.ceil(-np.log10(1.0 - c))) + 1)
        return f"{np.floor(c * 10 ** digits + 1e-9) / 10 ** digits:.{digits}f}"

    def overlaps(box: tuple[int, int, int, int], others: list[tuple[int, int, int, int]]) -> bool:
        return any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in others)

    def inside(box: tuple[int, int, int, int]) -> bool:
        return box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height

    placed: list[tuple[int, int, int, int]] = []
    drawn: list[tuple[str, tuple[int, int, int, int], tuple[int, int, int], np.ndarray]] = []
    for d, r in zip(result.detections, result.recognitions):
        pts = cv2.perspectiveTransform(d.corners[None].astype(np.float64), rect_to_image)[0]
        colour = _COLOURS[r.verdict]
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        prefix = "" if r.verdict is Verdict.IDENTIFIED else "? "
        text = f"{prefix}{r.best} {confidence_text(r.confidence)}"
        (tw, th), base = cv2.getTextSize(text, font, scale, 1)
        bw, bh = tw + 2 * pad, th + base + 2 * pad
        left = int(np.clip(pts[:, 0].min(), 0, max(0, width - bw)))
        top, bottom = int(pts[:, 1].min()), int(pts[:, 1].max())
        wanted = [(left, top - bh - 2), (left, bottom + 2)]
        step = bh + 1
        # then ever further above and below the outline, and finally anywhere in the frame
        wanted += [(left, y) for k in range(1, 4 * height // step + 2)
                   for y in (top - bh - 2 - k * step, bottom + 2 + k * step)]
        box = None
        for x, y in wanted:
            candidate = (x, y, x + bw, y + bh)
            if inside(candidate) and not overlaps(candidate, placed):
                box = candidate
                break
        if box is None:  # a frame packed with labels: stack it past the others, clipped by the frame
            y = max((b[3] for b in placed), default=0) + 1
            box = (left, y, left + bw, y + bh)
        placed.append(box)
        drawn.append((text, box, colour, pts))
        if labels is not None:
            labels.append((text, box))
    for text, box, colour, pts in drawn:
        x0, y0, x1, y1 = box
        near = (int(np.clip(pts[:, 0].min(), 0, width - 1)), int(pts[:, 1].min() if y1 <= pts[:, 1].min()
                                                                else pts[:, 1].max()))
        if not (y1 + 3 >= near[1] >= y0 - 3):
            cv2.line(out, ((x0 + x1) // 2, y1 if y1 < near[1] else y0), near, colour, 1, cv2.LINE_AA)
        cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), (255, 255, 255), -1)
        cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), colour, 1)
        org = (x0 + pad, y1 - pad - cv2.getTextSize(text, font, scale, 1)[1])
        cv2.putText(out, text, org, font, scale, (0, 0, 0), 1, cv2.LINE_AA)
    return out
