"""Seat boards none of whose markers decoded, found by matching all of a board's markers together.

Blur, glare and small size can leave every marker of a seat's board (a Big Top
Organizing Chart) undecodable while their dark frames still show as squares. One
such square, taken as one of the board's markers in one of its four turns, puts the
whole board on the table (the mat's calibration gives table millimetres), and with it
every other marker of that seat where it must be printed. Each of those places is
compared with every code of the dictionary, blurred (`vision.codematch.match_patch`):
the board is taken only when at least `MIN_SPOTS` of its marker places show that
seat's codes, each ahead of every other code in any turn, and no place shows another
code clearly, unless the places that show the seat's codes surely outnumber those (a card or a
coin over one marker, lens distortion at the frame's edge; `BoardMatch.matched`). The codes of
two seats differ in many cells, so several places that agree make up for each one's blur; one
square alone never names a board.

The vision core imports no game: the board's layout is ``config.table.markers``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.boardoutline import outline_pose
from vision.calibrate import Calibration, ChartPose, Marker, _similarity, locate_charts
from vision.codematch import (
    BLURS_PX,
    SEARCH_PX,
    SIDE_PX,
    SURROUND_PX,
    _candidate_squares,
    code_scores,
    code_templates,
    dictionary_size,
)
from vision.config import VisionConfig
from vision.geometry import Image, MarkerLayout
from vision.recall import TILE, TILE_SAME, tile_means

__all__ = ["MARKER_CORNER_PX", "MARKER_STILL_PX", "BoardMatch", "BoardMemory", "boards_by_matching", "refined_poses", "score_board"]

#: a square is tried as a board marker when the marker's code matches it at least this well, in one turn,
#: and no worse than `SQUARE_LEAD` below the code that matches it best
SQUARE_MIN = 0.5
SQUARE_LEAD = 0.15
#: a marker place shows its seat's code when that code matches it at least this well and leads every
#: other code, in any turn, by at least `SPOT_LEAD`; ...
SPOT_MIN = 0.55
SPOT_LEAD = 0.02
#: ... a board is taken when at least this many of its places do, and none shows another code leading
#: its own by more than `OTHER_LEAD` with at least `SPOT_MIN`
MIN_SPOTS = 2
OTHER_LEAD = 0.1
#: a board none of whose markers decoded is taken despite places that show another code where at least
#: `MIN_SPOTS` of its places show the seat's code surely (at least this well, leading every other code by
#: `SURE_LEAD`) and they outnumber those places: two sure codes fix the board where it lies, and a place that
#: then shows another code is covered (a card, a coin) or, near the frame's edge, placed off by the lens's
#: distortion (on the first frames of 44 tuning tables at medium and hard, 1280x960 and 2304x1296: where a place at a
#: board's true pose showed another code, at 0.55 to 0.88, up to three others showed the seat's surely; at the
#: 333 poses scored where no board lay, no place matched its code at 0.9, and none leading by 0.1 above 0.79)
SURE_MIN = 0.9
SURE_LEAD = 0.1
#: a square's side on the table may differ this much (fraction) from the marker's printed side
SIZE_TOLERANCE = 0.2
#: poses tried per frame at most (each costs about a millisecond per marker place)
MAX_TRIES = 12
#: a pose may scale the board's millimetres this much (fraction)
SCALE_TOLERANCE = 0.05
#: a square this close (mm) to a decoded marker is that marker
SAME_MM = 10.0


@dataclass(frozen=True, slots=True)
class BoardMatch:
    """How a board's marker places matched at one pose: per place (by side), the seat's code's
    correlation and its lead over every other code (negative: another code matches better);
    places outside the frame or under glare are left out."""

    seat: int
    scores: Mapping[int, tuple[float, float]]
    #: per place, the corners (table mm, ArUco order) of the code where its frame placed it
    placed: Mapping[int, NDArray[Any]] = field(default_factory=dict)

    def refit(self, config: VisionConfig) -> NDArray[Any] | None:
        """The board's pose (board mm -> table mm) fitted to the places that show the seat's code, where
        their frames placed them; None when fewer than `MIN_SPOTS` do."""
        layout = config.table.markers
        sides = [side for side, (s, lead) in self.scores.items() if s >= SPOT_MIN and lead >= SPOT_LEAD]
        if len(sides) < MIN_SPOTS:
            return None
        return _similarity(np.concatenate([np.array(layout.board_marker_corners(k), np.float64) for k in sides]),
                           np.concatenate([self.placed[k] for k in sides]))

    @property
    def shown(self) -> int:
        """Places that show the seat's code (`SPOT_MIN`, `SPOT_LEAD`)."""
        return sum(1 for s, lead in self.scores.values() if s >= SPOT_MIN and lead >= SPOT_LEAD)

    @property
    def contradicted(self) -> bool:
        """True when a place clearly shows another code."""
        return any(s_other >= SPOT_MIN and -lead > OTHER_LEAD
                   for s, lead in self.scores.values() for s_other in (s - lead,))

    @property
    def taken(self) -> bool:
        """The board is taken at this pose (see the module docstring)."""
        return self.shown >= MIN_SPOTS and not self.contradicted

    @property
    def matched(self) -> bool:
        """A board none of whose markers decoded is taken at this pose: `taken`, or at least `MIN_SPOTS` places
        show the seat's code surely (`SURE_MIN`, `SURE_LEAD`) and outnumber the places that show another code
        clearly (`SPOT_MIN`, `OTHER_LEAD`)."""
        if self.taken:
            return True
        sure = sum(1 for s, lead in self.scores.values() if s >= SURE_MIN and lead >= SURE_LEAD)
        other = sum(1 for s, lead in self.scores.values() if s - lead >= SPOT_MIN and -lead > OTHER_LEAD)
        return sure >= MIN_SPOTS and sure > other


def _board_ids(config: VisionConfig) -> dict[int, dict[int, int]]:
    """Marker id by side, by seat, for every board marker of the layout (made once per layout and dictionary:
    read only)."""
    layout = config.table.markers
    key = (id(layout), config.aruco_dictionary)
    kept = _BOARD_IDS.get(key)
    if kept is None or kept[0] is not layout:
        out: dict[int, dict[int, int]] = {}
        for i in range(dictionary_size(config.aruco_dictionary)):
            ss = layout.board_of_marker(i)
            if ss is not None:
                out.setdefault(ss[0], {})[ss[1]] = i
        kept = _BOARD_IDS[key] = (layout, out)
    return kept[1]


_BOARD_IDS: dict[tuple[int, int], tuple[Any, dict[int, dict[int, int]]]] = {}


def _patch(gray: Image, quad: NDArray[Any], n: int, pad: int) -> tuple[NDArray[Any], NDArray[Any]]:
    """The ``n`` px square patch with ``quad`` (image px) ``pad`` px inside its edges, and the image -> patch map."""
    inner = np.array([[pad, pad], [n - pad, pad], [n - pad, n - pad], [pad, n - pad]], np.float32)
    to_patch = cv2.getPerspectiveTransform(quad.astype(np.float32), inner)
    patch = np.asarray(cv2.warpPerspective(gray, to_patch, (n, n), flags=cv2.INTER_LINEAR,
                                           borderMode=cv2.BORDER_REPLICATE), np.float32)
    return patch, to_patch


def _place_in_frame(layout: MarkerLayout, side: int, chart_to_table: NDArray[Any], calibration: Calibration,
                    shape: tuple[int, int]) -> NDArray[Any] | None:
    """The image corners of a board's marker place on ``side`` with the board at ``chart_to_table``; None when
    the place is not wholly inside a frame of ``shape`` (``h, w``): `score_board` leaves such a place out."""
    h, w = shape
    corners = np.array(layout.board_marker_corners(side), np.float64)
    table = corners @ chart_to_table[:2, :2].T + chart_to_table[:2, 2]
    quad: NDArray[Any] = cv2.perspectiveTransform(table[None], calibration.table_to_image)[0]
    if quad.min() < 0 or quad[:, 0].max() > w - 1 or quad[:, 1].max() > h - 1:
        return None
    return quad


def score_board(gray: Image, calibration: Calibration, config: VisionConfig, seat: int,
                chart_to_table: NDArray[Any], search_px: int = SEARCH_PX) -> BoardMatch:
    """How well seat ``seat``'s marker places match its codes with its board at ``chart_to_table``;
    each code is searched up to ``search_px`` template pixels (a 28 mm marker: 1.4 px/mm) off its place."""
    layout = config.table.markers
    ids = tuple(range(dictionary_size(config.aruco_dictionary)))
    t = code_templates(config.aruco_dictionary, ids, SIDE_PX, SURROUND_PX, BLURS_PX)
    pad = SURROUND_PX + search_px
    n = t.size + 2 * search_px
    h, w = gray.shape[:2]
    scores: dict[int, tuple[float, float]] = {}
    placed: dict[int, NDArray[Any]] = {}
    for side, mid in sorted(_board_ids(config).get(seat, {}).items()):
        quad = _place_in_frame(layout, side, chart_to_table, calibration, (h, w))
        if quad is None:
            continue
        patch, to_patch = _patch(gray, quad, n, pad)
        all_scores, glared, (bx, by) = code_scores(patch, t)
        if glared:
            continue
        row = ids.index(mid)
        own = float(all_scores[row, 0])
        others = np.delete(all_scores, row, axis=0)
        scores[side] = (own, own - float(max(others.max(), all_scores[row, 1:].max())))
        # the code where its frame placed it: patch px -> image px -> table mm
        a, b = SURROUND_PX, SURROUND_PX + SIDE_PX
        fitted = np.array([[bx + a, by + a], [bx + b, by + a], [bx + b, by + b], [bx + a, by + b]], np.float64)
        image = cv2.perspectiveTransform(fitted[None], np.linalg.inv(to_patch))[0]
        placed[side] = cv2.perspectiveTransform(image[None], calibration.image_to_table)[0]
    return BoardMatch(seat, scores, placed)


def boards_by_matching(gray: Image, calibration: Calibration, markers: Sequence[Marker],
                       charts: Mapping[int, ChartPose], config: VisionConfig,
                       squares: Sequence[NDArray[Any]] | None = None) -> dict[int, ChartPose]:
    """The poses of the seats' boards none of whose markers decoded (no pose in ``charts``), by seat:
    see the module docstring. ``markers``: the markers decoded in ``gray`` (their squares are skipped);
    ``squares``: the squares the marker detector found but could not decode (clockwise), searched
    for afresh when not given. At most `MAX_TRIES` poses are tried, the best matching squares first.
    """
    layout = config.table.markers
    boards = {s: sides for s, sides in _board_ids(config).items() if s not in charts}
    if not boards:
        return {}
    if squares is None:
        squares = _candidate_squares(gray, config.aruco_dictionary, config.marker_threshold_window)
    if not len(squares):
        return {}
    ids = tuple(range(dictionary_size(config.aruco_dictionary)))
    t = code_templates(config.aruco_dictionary, ids, SIDE_PX, SURROUND_PX, BLURS_PX)
    pad = SURROUND_PX + SEARCH_PX
    n = t.size + 2 * SEARCH_PX
    decoded = [cv2.perspectiveTransform(m.corners[None].astype(np.float64), calibration.image_to_table)[0].mean(0)
               for m in markers]
    sizes = {layout.board_marker_size(side) for sides in boards.values() for side in sides}
    tries: list[tuple[float, int, int, int, NDArray[Any]]] = []
    on_table, centres = _on_table(squares, calibration.image_to_table)
    near = _near_any(centres, decoded)
    for quad, table, centre, skip in zip(squares, on_table, centres, near.tolist()):
        if skip:
            continue
        if 0 <= centre[0] <= layout.width and 0 <= centre[1] <= layout.height:
            continue  # boards lie off the mat
        side_mm = float(np.mean(np.linalg.norm(table - np.roll(table, 1, axis=0), axis=1)))
        if not any(abs(side_mm - s) <= SIZE_TOLERANCE * s for s in sizes):
            continue
        all_scores, glared, _ = code_scores(_patch(gray, quad, n, pad)[0], t)
        if glared:
            continue
        best = float(all_scores.max())
        for seat, sides in boards.items():
            for side, mid in sides.items():
                size = layout.board_marker_size(side)
                if abs(side_mm - size) > SIZE_TOLERANCE * size:
                    continue
                for quarter in range(4):
                    score = float(all_scores[ids.index(mid), quarter])
                    if score >= max(SQUARE_MIN, best - SQUARE_LEAD):
                        corners = np.array([table[(j + quarter) % 4] for j in range(4)])
                        tries.append((score, seat, side, quarter, corners))
    tries.sort(key=lambda x: -x[0])
    found: dict[int, tuple[int, ChartPose]] = {}
    for _, seat, side, _, corners in tries[:MAX_TRIES]:
        if seat in found and found[seat][0] >= len(boards[seat]):
            continue
        ideal = np.array(layout.board_marker_corners(side), np.float64)
        pose = _refined(_unit_scale(_similarity(ideal, corners), ideal.mean(0)), boards[seat], on_table, config,
                        centres)
        match = score_board(gray, calibration, config, seat, pose)
        if not match.matched:
            match = _searched_wider(gray, calibration, config, seat, pose, match)
            if not match.matched:
                continue
        better = match.refit(config)
        if better is None or not _true_scale(better):
            continue
        match = score_board(gray, calibration, config, seat, better)
        if match.matched and (seat not in found or match.shown > found[seat][0]):
            found[seat] = (match.shown, ChartPose(seat, better, np.linalg.inv(better), match.shown))
    return {seat: pose for seat, (_, pose) in found.items()}


def _searched_wider(gray: Image, calibration: Calibration, config: VisionConfig, seat: int, pose: NDArray[Any],
                    match: BoardMatch) -> BoardMatch:
    """A board placed by one square whose places do not match (``match`` at ``pose``, board mm -> table mm) though at
    least `MIN_SPOTS` show the seat's code: its codes searched farther off (`REFIT_STEPS`, as `refined_poses` does
    for a board few decoded markers placed), the board fitted again to every place that then shows them, and
    that pose's `score_board` (at the usual search) when it is taken so; else ``match``. Near the frame's edge the
    lens bends a board off the mat's calibration: a pose fitted to one side's markers puts the far side's places
    over its own other markers, which then read as another code."""
    if match.shown < MIN_SPOTS:
        return match
    layout = config.table.markers
    corners = np.concatenate([np.array(layout.board_marker_corners(k), np.float64)
                              for k in _board_ids(config).get(seat, {})])
    for search_px, max_mm in REFIT_STEPS:
        wide = score_board(gray, calibration, config, seat, pose, search_px)
        if not wide.taken or wide.shown <= match.shown:
            continue
        better = wide.refit(config)
        if better is None or not _true_scale(better):
            continue
        moved = (corners @ better[:2, :2].T + better[:2, 2]) - (corners @ pose[:2, :2].T + pose[:2, 2])
        if float(np.max(np.linalg.norm(moved, axis=1))) > max_mm:
            continue
        again = score_board(gray, calibration, config, seat, better)
        if again.matched:
            return again
    return match


def _centres(squares: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """``(N, 2)``: each ``(4, 2)`` square's mean corner, bit for bit ``square.mean(0)`` (the four corners added in
    order, then halved twice), for all at once."""
    if not len(squares):
        return np.zeros((0, 2), np.float64)
    q = np.asarray(squares, np.float64)
    out: NDArray[Any] = (((q[:, 0] + q[:, 1]) + q[:, 2]) + q[:, 3]) / 4.0
    return out


def _distances(points: NDArray[Any], others: NDArray[Any]) -> NDArray[Any]:
    """``(N, M)``: each of ``points`` ``(N, 2)`` to each of ``others`` ``(M, 2)``, bit for bit
    ``float(np.hypot(*(p - o)))`` pair by pair."""
    out: NDArray[Any] = np.hypot(points[:, None, 0] - others[None, :, 0], points[:, None, 1] - others[None, :, 1])
    return out


def _on_table(squares: Sequence[NDArray[Any]], image_to_table: NDArray[Any]) -> tuple[list[NDArray[Any]], NDArray[Any]]:
    """Each square (image px) in table mm, in one transform (each point on its own, as square by square), and
    their `_centres`."""
    if not len(squares):
        return [], np.zeros((0, 2), np.float64)
    pts = np.concatenate([np.asarray(q, np.float64).reshape(-1, 2) for q in squares])
    table = cv2.perspectiveTransform(pts[None], image_to_table)[0]
    on_table = [table[4 * i:4 * i + 4] for i in range(len(squares))]
    return on_table, _centres(on_table)


def _near_any(centres: NDArray[Any], decoded: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """``(N,)``: whether each centre lies within `SAME_MM` of one of ``decoded`` (table mm)."""
    if not len(decoded) or not len(centres):
        return np.zeros(len(centres), bool)
    return np.asarray((_distances(centres, np.asarray(decoded, np.float64)) < SAME_MM).any(axis=1))


def _unit_scale(pose: NDArray[Any], about: NDArray[Any]) -> NDArray[Any]:
    """``pose`` with its scale taken out, the board point ``about`` kept where it maps: a blurred square
    shrinks, the board does not."""
    lin = pose[:2, :2] / max(float(np.sqrt(abs(np.linalg.det(pose[:2, :2])))), 1e-9)
    out = np.eye(3)
    out[:2, :2] = lin
    out[:2, 2] = pose[:2, :2] @ about + pose[:2, 2] - lin @ about
    return out


def _true_scale(pose: NDArray[Any]) -> bool:
    """True when ``pose`` keeps the board's millimetres within `SCALE_TOLERANCE` (a board is not stretched)."""
    return abs(float(np.sqrt(abs(np.linalg.det(pose[:2, :2])))) - 1.0) <= SCALE_TOLERANCE


def _refined(pose: NDArray[Any], sides: Mapping[int, int], squares: Sequence[NDArray[Any]],
             config: VisionConfig, centres: NDArray[Any] | None = None) -> NDArray[Any]:
    """``pose`` (board mm -> table mm) fitted again to every square (table mm) that lies within
    `SAME_MM` of where it puts one of the board's markers, each in the turn nearest its place. ``centres``: the
    squares' `_centres`, when already made."""
    layout = config.table.markers
    if centres is None:
        centres = _centres(squares)
    src, dst = [], []
    for side in sides:
        ideal = np.array(layout.board_marker_corners(side), np.float64)
        want = ideal @ pose[:2, :2].T + pose[:2, 2]
        best: tuple[float, NDArray[Any]] | None = None
        # a square farther than SAME_MM (NaN is not) is skipped, as one by one
        for i in np.flatnonzero(~(_distances(centres, want.mean(0)[None]) > SAME_MM)[:, 0]).tolist():
            sq = squares[i]
            for q in range(4):
                turned = np.roll(sq, -q, axis=0)
                err = float(np.max(np.linalg.norm(turned - want, axis=1)))
                if best is None or err < best[0]:
                    best = (err, turned)
        if best is not None and best[0] <= SAME_MM:
            src.append(ideal)
            dst.append(best[1])
    if not src:
        return pose
    return _similarity(np.concatenate(src), np.concatenate(dst))


#: `refined_poses` searches a board's codes this far (template px; a 28 mm marker's are 1.4 px/mm) off where
#: the decoded markers' pose puts them, and the refit may move a marker at most this far (mm): two markers
#: on one edge fix the far edge badly under lens distortion, one marker its turn worse; a wider search
#: only where the narrow one found too few
REFIT_STEPS = ((14, 15.0), (28, 35.0))


def refined_poses(gray: Image, calibration: Calibration, charts: Mapping[int, ChartPose],
                  config: VisionConfig) -> dict[int, ChartPose]:
    """``charts``, each board that fewer than all of its markers placed fitted again to every marker place
    that shows its seat's code (`BoardMatch.refit`): more of a board's markers fix it better than the one
    or two that decoded. A board whose places do not match (`BoardMatch.taken`), or whose refit moves one of
    its markers too far (`REFIT_STEPS`), keeps its pose."""
    layout = config.table.markers
    boards = _board_ids(config)
    out = dict(charts)
    shape = (gray.shape[0], gray.shape[1])
    for seat, pose in charts.items():
        if pose.markers_seen >= len(boards.get(seat, {})):
            continue
        # the places `score_board` scores are those wholly in the frame: no more of them than the markers that
        # placed the board cannot show more of its codes than those (a board reaching out of the frame)
        if sum(_place_in_frame(layout, side, pose.chart_to_table, calibration, shape) is not None
               for side in boards[seat]) <= pose.markers_seen:
            continue
        corners = np.concatenate([np.array(layout.board_marker_corners(k), np.float64) for k in boards[seat]])
        for search_px, max_mm in REFIT_STEPS:
            match = score_board(gray, calibration, config, seat, pose.chart_to_table, search_px)
            if not match.taken or match.shown <= pose.markers_seen:
                continue
            better = match.refit(config)
            if better is None or not _true_scale(better):
                continue
            # how far the refit moves the board's markers (they span the board)
            moved = (corners @ better[:2, :2].T + better[:2, 2]) - (corners @ pose.chart_to_table[:2, :2].T
                                                                   + pose.chart_to_table[:2, 2])
            if float(np.max(np.linalg.norm(moved, axis=1))) > max_mm:
                continue
            out[seat] = ChartPose(seat, better, np.linalg.inv(better), match.shown)
            break
    return out


#: live: a board's pose is kept while each of its decoded markers' centres lies within this many image px of where
#: it lay (sensor noise of 2 grey levels moves one by up to about 0.4), ...
MARKER_STILL_PX = 0.5
#: ... and each of their corners within this many (noise moves one by about 1; this keeps a marker from turning)
MARKER_CORNER_PX = 1.5


@dataclass(frozen=True, slots=True)
class _Kept:
    """A board's pose, the decoded markers it was fitted to (id and image corners, sorted), and the frame's
    4x4 block means where its marker places lie (`_places`) as they were when it was fitted or scored."""

    pose: ChartPose
    markers: tuple[tuple[int, NDArray[Any]], ...]
    tiles: NDArray[Any]
    places: tuple[tuple[slice, slice], ...]

    def still(self, tiles: NDArray[Any]) -> bool:
        """True when no block of the board's marker places moved by more than `TILE_SAME` grey levels."""
        if tiles.shape != self.tiles.shape:
            return False
        return all(int(np.abs(tiles[p] - self.tiles[p]).max(initial=0)) <= TILE_SAME for p in self.places)

    def same_markers(self, markers: tuple[tuple[int, NDArray[Any]], ...]) -> bool:
        """True when ``markers`` are some or all of those it was fitted to (a hand hides some, the board
        stays), none more, each centre within `MARKER_STILL_PX` of where it lay and each corner within
        `MARKER_CORNER_PX` (sensor noise moves a corner more than the marker)."""
        return 0 < len(markers) <= len(self.markers) and all(
            any(a == b and float(np.abs(p.mean(axis=0) - q.mean(axis=0)).max()) < MARKER_STILL_PX
                and float(np.abs(p - q).max()) < MARKER_CORNER_PX for b, q in self.markers)
            for a, p in markers)


class BoardMemory:
    """Live: the seats' boards' poses (`locate_charts`, `refined_poses`, `boards_by_matching`) kept from frame
    to frame while the table has not moved, so that a frame that is not given back whole (`vision.recall`:
    a hand over the table, the frames confirming a still table) does not fit and score them again.
    A board that one decoded marker alone placed, and no refit placed better, is fitted to its printed
    `outline` when the frame shows that clearly (`vision.boardoutline.outline_pose`); else it keeps the
    marker's pose. This runs only when a board is fitted afresh, never on a kept one.

    The rule: everything is forgotten when the calibration changes (another `Calibration` object: the
    table or the camera moved) and at `reset`. A board fitted to decoded markers keeps its pose while
    some or all of the markers it was fitted to decode, and no others of its seat, each where it lay
    (`_Kept.same_markers`: centre within `MARKER_STILL_PX`, corners within `MARKER_CORNER_PX`), and no
    full-frame marker search was made; a board whose refit did not place all its markers is fitted again when a
    4x4 block of its marker places moved by more than `TILE_SAME` grey levels (a hand moved off them). A
    fitted board none of whose markers decode (a hand over them all, or markers the region search no longer
    looks for once a hand hid them) keeps its pose while enough of the rest of its print shows as it did when
    it was fitted (`_still_there`), on a full search too; moved or taken away, it is dropped.
    A board found by matching (none of its markers decoded) is scored again only when a block of its
    marker places moved so, and dropped when it no longer matches; a full search with undecoded squares
    finds such boards afresh. Blocks are compared with the frame the pose was last fitted or scored on,
    never a later one, so slow drift cannot add up.
    """

    def __init__(self, config: VisionConfig, outline: Sequence[tuple[float, float]] | None = None) -> None:
        self.config = config
        #: a board's outline (board mm), when the game gives it: else the hull of its markers
        self.outline = outline
        self._calibration: Calibration | None = None
        self._fitted: dict[int, _Kept] = {}
        self._matched: dict[int, _Kept] = {}
        self._boards = _board_ids(config)
        #: boards fitted afresh and kept, matched boards scored again and kept unscored (counts)
        self.fitted = 0
        self.kept = 0
        self.scored = 0
        self.unscored = 0
        #: boards kept while none of their markers decoded (`_still_there`)
        self.hidden = 0

    def _outline(self, seat: int) -> NDArray[Any]:
        """Seat ``seat``'s board outline (board mm): `outline`, or the convex hull of its markers' corners."""
        if self.outline is not None:
            return np.array(self.outline, np.float64)
        layout = self.config.table.markers
        pts = np.concatenate([np.array(layout.board_marker_corners(k), np.float32) for k in self._boards.get(seat, {})])
        return np.asarray(cv2.convexHull(pts)[:, 0], np.float64)

    def reset(self) -> None:
        """Forget every board."""
        self._calibration = None
        self._fitted = {}
        self._matched = {}

    def charts(self, gray: Image, calibration: Calibration, markers: Sequence[Marker], full_search: bool,
               squares: Sequence[NDArray[Any]], tiles: NDArray[Any] | None = None) -> dict[int, ChartPose]:
        """Every board's pose in this grey frame, by seat: see the class docstring.

        :param full_search: the markers came from a full-frame search (`vision.calibrate.MarkerTracker`)
        :param squares: the squares that search found but could not decode (empty after a region search)
        :param tiles: ``gray``'s 4x4 block means (`vision.recall.tile_means`), when already made
        """
        cfg = self.config
        if tiles is None:
            tiles = tile_means(gray)
        if calibration is not self._calibration:
            self.reset()
            self._calibration = calibration
        layout = cfg.table.markers
        by_seat: dict[int, list[Marker]] = {}
        for m in markers:
            ss = layout.board_of_marker(m.id)
            if ss is not None:
                by_seat.setdefault(ss[0], []).append(m)
        seen = {seat: tuple(sorted(((m.id, np.asarray(m.corners, np.float64)) for m in ms),
                                   key=lambda x: (x[0], float(x[1][0, 0]), float(x[1][0, 1]))))
                for seat, ms in by_seat.items()}
        boards = self._boards
        charts: dict[int, ChartPose] = {}
        fitted: dict[int, _Kept] = {}
        todo: list[Marker] = []
        for seat, ms in by_seat.items():
            kept = self._fitted.get(seat)
            if (not full_search and kept is not None and kept.same_markers(seen[seat])
                    and (kept.pose.markers_seen >= len(boards.get(seat, {})) or kept.still(tiles))):
                charts[seat] = kept.pose
                fitted[seat] = kept
                self.kept += 1
            else:
                todo.extend(ms)
        if todo:
            fresh = refined_poses(gray, calibration, locate_charts(tuple(todo), calibration, cfg, gray), cfg)
            for seat, pose in fresh.items():
                if self.outline is not None and pose.markers_seen == 1 and len(by_seat[seat]) == 1:
                    side = layout.board_of_marker(by_seat[seat][0].id)
                    if side is not None:
                        pose = outline_pose(gray, calibration, pose, self.outline,
                                            layout.board_marker_corners(side[1])) or pose
                # a board all of whose places were fitted is never scored again: its places are not needed
                places = (() if pose.markers_seen >= len(boards.get(seat, {}))
                          else _places(pose, calibration, cfg, tiles.shape))
                fitted[seat] = _Kept(pose, seen[seat], tiles, places)
                charts[seat] = pose
                self.fitted += 1
        for seat, kept in self._fitted.items():
            # none of its markers decoded (a hand over them all): kept while its print shows it has not moved
            if seat not in by_seat and _still_there(kept.pose, calibration, self._outline(seat), kept.tiles, tiles):
                charts[seat] = kept.pose
                fitted[seat] = kept
                self.hidden += 1
        self._fitted = fitted
        if full_search and len(squares):
            self._matched = {seat: _Kept(pose, (), tiles, _places(pose, calibration, cfg, tiles.shape))
                             for seat, pose in boards_by_matching(gray, calibration, markers, charts, cfg,
                                                                  squares).items()}
        else:
            matched: dict[int, _Kept] = {}
            for seat, kept in self._matched.items():
                if seat in charts:
                    continue
                if kept.still(tiles):
                    matched[seat] = kept
                    self.unscored += 1
                    continue
                self.scored += 1
                if score_board(gray, calibration, cfg, seat, kept.pose.chart_to_table).matched:
                    matched[seat] = replace(kept, tiles=tiles)
            self._matched = matched
        return {**charts, **{seat: k.pose for seat, k in self._matched.items() if seat not in charts}}


#: a board none of whose markers decode is kept while at least this many pairs of neighbouring 4x4 blocks inside
#: it that differed by `STILL_DETAIL` grey levels when it was fitted (an edge of its print), side by side and
#: as many one above the other, are as they were then: each block and the step between them within `TILE_SAME`
#: (a board moved by a few pixels changes every such pair; more than twice `TILE_SAME`, so a flat area never
#: passes for an edge)
STILL_BLOCKS = 12
STILL_DETAIL = 12


def _still_there(pose: ChartPose, calibration: Calibration, outline: NDArray[Any], then: NDArray[Any],
                 now: NDArray[Any]) -> bool:
    """True when the frame's 4x4 block means ``now`` show enough of the board at ``pose`` as ``then`` (the frame
    it was fitted on) did: at least `STILL_BLOCKS` pairs of neighbouring blocks inside its ``outline`` (board
    mm) across an edge of its print (`STILL_DETAIL`), each block and the step between them within `TILE_SAME`
    grey levels of then, in each direction (side by side, one above the other). A hand over the rest of it
    changes the pairs it covers only; a board moved, or taken away, changes them all."""
    if then.shape != now.shape or min(then.shape) < 3:
        return False
    table = outline @ pose.chart_to_table[:2, :2].T + pose.chart_to_table[:2, 2]
    quad = cv2.perspectiveTransform(table[None], calibration.table_to_image)[0] / TILE
    mask = np.zeros(then.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 1)
    inside = cv2.erode(mask, np.ones((3, 3), np.uint8)).astype(bool)  # blocks across the board's edge left out
    t = then.astype(np.int32)
    n = now.astype(np.int32)
    ok = inside & (np.abs(n - t) <= TILE_SAME)
    # in both directions: a board slid along an edge of its print keeps the pairs across that edge
    counts = []
    for a, b in (((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                 ((slice(1, None), slice(None)), (slice(None, -1), slice(None)))):
        step = t[a] - t[b]
        counts.append(int(np.count_nonzero(ok[a] & ok[b] & (np.abs(step) >= STILL_DETAIL)
                                           & (np.abs(n[a] - n[b] - step) <= TILE_SAME))))
    return min(counts) >= STILL_BLOCKS


def _places(pose: ChartPose, calibration: Calibration, config: VisionConfig,
            shape: tuple[int, ...]) -> tuple[tuple[slice, slice], ...]:
    """The 4x4 blocks (`vision.recall.TILE`) around each of ``pose``'s board's marker places in the frame, one
    marker side beyond it on every side (farther than any code is searched off its place)."""
    layout = config.table.markers
    out = []
    for side in _board_ids(config).get(pose.seat, {}):
        corners = np.array(layout.board_marker_corners(side), np.float64)
        table = corners @ pose.chart_to_table[:2, :2].T + pose.chart_to_table[:2, 2]
        quad = cv2.perspectiveTransform(table[None], calibration.table_to_image)[0]
        size = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
        x0, y0 = np.floor((quad.min(axis=0) - size) / TILE).astype(int)
        x1, y1 = np.ceil((quad.max(axis=0) + size) / TILE).astype(int) + 1
        y0, y1 = min(max(int(y0), 0), shape[0]), min(max(int(y1), 0), shape[0])
        x0, x1 = min(max(int(x0), 0), shape[1]), min(max(int(x1), 0), shape[1])
        out.append((slice(y0, y1), slice(x0, x1)))
    return tuple(out)
