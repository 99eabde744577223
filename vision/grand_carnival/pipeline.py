"""One camera frame of Grand Carnival markets -> a `MarketView` per board in view.

Stages: the ArUco markers of the frame (`vision.calibrate.find_markers`; the
slow, tolerant search as well when a board shows fewer than its four), each
board's homography from its markers (from two and the paper's outline where
only two show, `_outline_pose`), the board rectified at `_PX_PER_MM`, the
paper's white measured around the board's edges (a smooth fit, so white balance,
exposure and vignetting divide out), then every place read by its colours: the
ring of each field (its corners, which pieces lying on it leave free) says
empty parcel, walkway, construction site or attraction; its middle says what
lies on it (a guest, a barker, a ticket). A second reading allows for glare
(`_glare_classes`: grey light added, the print's own colour left): it takes a
colour the first finds unclear, and a colour the two disagree on is held.
Pixels glare saturated are left out of a field's colour (they keep none of their
own). A parcel partly hidden keeps its clear fields when they fit a tile of the
box. The dark double outline between two attraction fields says they are two
pieces, another colour between them (their strongest channel dropping) without
it that they may be; a piece's fields must form one of the box's shapes, and a piece not
wholly in view is held while its clear fields still read as sites. A middle
neither reading is sure of holds nothing when it differs from its ring by grey
light alone and no piece's colour shows beside it (`_bare`, `_guest_near`). The tent's places, the entrances, the action numbers and the
trick places are read the same way. A middle, an entrance or a tent place whose
colour glare clipped in one channel is read from the other two where only one
of the colours it may show fits them (`_clipped_place`), and a number or trick
box lit brighter than the paper holds no figure only where nothing but the
paper under glare shows on the pixels glare left unclipped
(`_paper_under_glare`). Where glare lights the box or the paper around it, a
box holds no figure only where a figure under glare of the tint could not show
the same (`_figure_under_glare`: glare of the tint opposite the white's cast,
added to the figure's blue, can give the paper's own white); a box still unclear
holds a figure where its edge shows beside the glare (`_figure_near`,
`_figure_blend`). A ring, a middle, an entrance or a tent place glare
saturates in part and lights unevenly is read pixel by pixel (`_glare_votes`):
each pixel glare clipped in no channel keeps the print's colour under its own
glare of the tint. An empty
parcel whose hammer's head glare hides is told by its handle (`_hammer_handle`), one whose whole hammer glare
saturates by the empty print around it, pixel by pixel (`_hammer_glared`). An outline between two attraction
fields neither clearly there nor clearly not is settled where one way alone lays pieces of the box, each holding
one badge at most: the badge Ringside prints on a piece's first field (`_marked`).

Unsure means unrecognised, never a guess: a colour that is not clearly one of
the colours a place may show (glare, a hand, a shadow, a piece half off its
place), a parcel that is no tile of the box, an empty parcel without its
hammer, pieces that form no shape, are each reported with their place and held.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.grand_carnival.components import CATALOG, Catalog, cell_name, mask_of, normalise, parcel_cells
from vision import VisionError
from vision.calibrate import Marker, find_markers
from vision.config import VisionConfig
from vision.geometry import Image
from vision.grand_carnival import CONFIG
from vision.grand_carnival.layout import (
    BOARD,
    FIELD,
    TENT_PLACES,
    TRICK_PLACES,
    WAGON,
    WAGON_MARKER_IDS,
    board_marker_ids,
    seat_of_marker,
)
from vision.grand_carnival.printing import (
    ATTRACTION,
    BARKER,
    EMPTY,
    FIGURE,
    GUEST,
    SITE,
    SLOT,
    TENT_PLACE,
    TICKET,
    WALKWAY,
)

__all__ = ["MarketView", "NoBoardError", "RailyardView", "Recognizer", "Result", "Unrecognised", "annotate"]

#: resolution (px/mm) of the rectified board every place is read in
_PX_PER_MM = 3.0
#: frames longer than this (px) are searched at half size by the slow marker search
_ROBUST_SIDE = 1600
#: markers of a board needed to read it (3 give 12 point pairs across the board)
_MIN_MARKERS = 3
#: a board whose markers fit its homography worse than this (RMS, mm) is not read
_MAX_FIT_MM = 3.0
#: a board seen by two markers alone is placed by its paper's outline (`_outline_pose`): searched this far (mm)
#: either side of where the markers put each edge, at this many places along it, of which this share must
#: show paper this much (grey levels) lighter than the table beyond, on one line within this many px (the lens's
#: barrel bows a long edge a little)
_OUTLINE_SEARCH = 12.0
_OUTLINE_SAMPLES = 24
_OUTLINE_FOUND = 0.6
_OUTLINE_CONTRAST = 25.0
_OUTLINE_FIT = 4.0
#: ... the drop from paper to table taken across this many steps of 0.25 mm (the lens blurs the edge)
_OUTLINE_WINDOW = 8
#: a field's ring: inside the field less this margin (mm), outside this radius (mm) from its middle
_RING_MARGIN = 2.2
_RING_RADIUS = 5.6
#: a place's middle: within this radius (mm)
_MIDDLE_RADIUS = 2.5
#: With an enrolled deck, a field of a parcel the deck is unsure of is read by the deck's own art (`_FieldArt`):
#: its ring (a piece's reach, `_ART_PIECE` mm, left out of the middle) correlates with the ring of that field's
#: kind, at that place of the tile, in the deck's photos at least `_ART_MATCH`, and `_ART_MARGIN` more than with
#: the other kind's; a field whose kind the art gave holds nothing when its middle shows no piece's colour and
#: correlates with its kind's middle there at least `_ART_BARE`, and `_ART_MARGIN` more than with the other
#: kind's; or, each channel of the middles standardised on its own (a colour cast scales and shifts each channel:
#: the hard camera's left bare walkways correlating with their own middle no better than guests), at least
#: `_ART_BARE_CAST` and `_ART_MARGIN` more. Chosen on the Fairground tiles' tuning markets
#: (`benchmarks/bench_enroll_grand_carnival.py`).
_ART_PIECE = 5.6
_ART_MATCH = 0.6
_ART_MARGIN = 0.15
_ART_BARE = 0.75
_ART_BARE_CAST = 0.85
#: ... a channel flatter than this (its standard deviation, grey levels) scaled as if this flat
_ART_FLAT = 2.0
#: ... both blurred by this share of a field's width, the crop's field moved by up to this many pixels
_ART_BLUR = 0.04
_ART_SHIFT = 2
#: ... a ring the art leaves unsure is looked at again with a smooth light taken out (`_FieldArt.smooth`: each
#: channel less its best quadratic over the ring, as a glare spot's or shadow's falloff across a field is): its
#: kind is taken when it correlates with that kind's ring, so treated, at least `_ART_SMOOTH_MATCH` and
#: `_ART_SMOOTH_MARGIN` more than with the other kind's. On the Fairground tiles' tuning markets (hard) fields
#: this took were all right; the other kind's fields and an empty parcel's reached at most 0.64 there
_ART_SMOOTH_MATCH = 0.7
_ART_SMOOTH_MARGIN = 0.3
#: ... and a middle is bare where, a smooth light taken out so too, it correlates with its kind's middle at least
#: `_ART_SMOOTH_BARE` and `_ART_SMOOTH_BARE_MARGIN` more than with the other kind's (a piece's flat disc shows none
#: of the art's marks: on 50 tuning markets at hard, 41 pieces reached at most 0.66)
_ART_SMOOTH_BARE = 0.85
_ART_SMOOTH_BARE_MARGIN = 0.4
#: a tile the deck named is taken by its name only where no more than this many of its fields (an attraction's
#: aside) go unconfirmed by both the art (`_FieldArt.kind`) and the colours
_ART_UNSEEN = 1
#: a colour is a class when its distance is below `_MAX_DISTANCE` and the next class's
#: is at least `_MARGIN` further
_MAX_DISTANCE = 0.11
_MARGIN = 0.05
#: a box's paper is neutral (its channels differ by less than this) and bright (every channel
#: above `_PAPER` of the paper's white)
_NEUTRAL = 0.12
_PAPER = 0.75
#: a box with no figure: the lightness of its darkest tenth at least `_PAPER_LOW` of the paper's
#: white, of its brightest tenth at most `_PAPER_HIGH` (brighter is glare, which may hide a figure)
_PAPER_LOW = 0.8
_PAPER_HIGH = 1.04
#: a colour brighter than the paper by this much is glare
_GLARE = 1.12
#: a box lit brighter than the paper's white (glare, or the white's fit a little low there) holds no figure
#: when its pixels are paper under glare (`_paper_under_glare`): the linear light of each the paper's white
#: (times `_GLARE_GAIN`) plus glare of the glare's colour, within `_PAPER_FIT` (of the white), on all but
#: `_PAPER_FIT_SHARE` of those no channel of which glare clipped, and at most `_PAPER_CLIPPED` of them clipped
#: in some channel. Glare adds light of its own colour, never takes a figure's colour away: a figure's is 0.13
#: and more of the white off that. (A figure laid on the box covers the whole middle read: the pixels glare
#: left unclipped show it, however many it clipped; 15 % of the box, some 35 pixels, is enough to see it.)
_PAPER_FIT = 0.05
#: a figure is read under glare of a tint only where its colour lies this far (linear light, of the white) from
#: the paper's white under any glare (`_off_paper`): across a tint near the figure's, the two can look alike
_OFF_PAPER = 0.1
_PAPER_GAIN = 0.9
_PAPER_FIT_SHARE = 0.03
#: a box holds no figure only where a figure under glare of the tint (`_figure_under_glare`: its colour times a
#: gain in `_GLARE_GAIN` plus glare, within this much linear light of the white) explains less than this share
#: of its pixels: across a glare of the right tint, a figure's colour plus the glare is the paper's own white.
#: Asked where the box is lit brighter than the paper or is not the paper all over, or where the paper
#: around it beyond a figure's reach (between these radii, mm) is lit: its brightest tenth over this share of
#: the white
_MIMIC_FIT = 0.06
_MIMIC_SHARE = 0.5
_AROUND = (7.5, 9.0)
_AROUND_LIT = 1.02
#: ... and not the paper's white all over: not its colour (`_paper_under_glare`) at this share of its light or more
_PAPER_DIM = 0.8
_PAPER_CLIPPED = 0.85
#: a box the readings above leave unclear holds a figure where at least `_FIGURE_SEEN` of the pixels within
#: `_FIGURE_NEAR` mm of it (a figure's reach, not its neighbour's) show one (`_figure_near`): darker than
#: `_FIGURE_DARK` of the paper's white, the figure's colour at a gain in `_FIGURE_GAIN` under glare
_FIGURE_NEAR = 6.0
_FIGURE_DARK = 0.75
_FIGURE_GAIN = (0.3, 1.3)
_FIGURE_SEEN = 0.02
#: ... or the figure's colour at a gain in `_FIGURE_GAIN` blended with the paper's white (its blurred edge) under
#: glare of the tint, neither part less than `_BLEND_NEGATIVE` (of the white, linear light: noise)
#: (`_figure_blend`); the tint at least `_BLEND_TINT` off the grey axis (nearer, the two parts are one)
_BLEND_NEGATIVE = 0.02
_BLEND_TINT = 0.02
#: a pixel with a channel this bright (of 255) is clipped: glare saturated it; a field's ring with more
#: than this share of its pixels clipped is unclear
_CLIPPED = 248
_MAX_CLIPPED = 0.8
_MAX_CLIPPED_MIDDLE = 0.8
_SATURATED_LIGHT = 0.85
#: a guest near a place read empty (`_guest_near`): within this radius (mm), this close to the guest's
#: colour (chromaticity), on this share of the pixels
_NEAR_RADIUS = 6.5
_NEAR_DISTANCE = 0.1
_NEAR_SHARE = 0.05
#: a field's middle and ring differ by less than this off the grey axis (linear light) when nothing lies on it
_BARE = 0.2
#: reading under glare (`_glare_classes`): the share of the light the paper's white measures that a
#: colour may keep (a soft shadow, the white fit's error), how far its own colour may be off and
#: how far any other class's must be (shares of each class's colour), and the negative glare allowed
_GLARE_GAIN = (0.7, 1.2)
_GLARE_FIT = 0.1
_GLARE_OTHER = 0.2
_GLARE_NEGATIVE = 0.05
#: reading a colour glare clipped in one channel (`_clipped_class`): the error of each channel left, a share
#: of its light (the white's fit, taken to the linear light's power) and a floor (noise, the compression's
#: colour blocks), as shares of the white; how many such errors the class taken may miss by and every
#: other class must miss by at least (the gain searched within its bounds); the least light the clipped
#: channel shows, and the most (of 255)
#: the channels left may show (lighter, they may be clipped too)
_CLIPPED_ERROR = (0.03 * 2.2, 0.01)
_CLIPPED_FIT = 1.0
_CLIPPED_MISS = 2.0
#: how many glares (from none to more than the lightest channel needs) `_clipped_class` tries
_CLIPPED_STEPS = 400
_CLIPPED_SHOWN = 0.95
_UNCLIPPED = 245
_CLIPPED_EVEN = (0.5, 0.08)
#: the least glare (linear light) the reading allowing for glare of a tint takes a colour with
_TINTED_GLARE = 0.03
#: an attraction's middle glare saturated holds no ticket (`_no_ticket_under_glare`) when at least this share of
#: its pixels, each with a channel glare clipped, shows a channel darker by `_NO_TICKET_MISS` (linear light, of
#: the white) than a ticket's under any glare that clips those channels, the ticket lit by a gain down to the first
#: of `_NO_TICKET_GAIN` (a hand's shadow) and up to the second
_NO_TICKET_SHARE = 0.8
_NO_TICKET_MISS = 0.1
_NO_TICKET_GAIN = (0.4, 1.2)
#: the pieces that lie on a field
_PIECES = ("guest", "barker", "ticket")
#: the kinds of field a foundation tile shows
_TILE_KINDS = ("walkway", "site", "attraction")
#: the grey axis (unit length)
_GREY = np.full(3, 1 / np.sqrt(3))
#: a field is read as an empty parcel by the first reading alone when its ring's darkest tenth is at
#: least the first share of the empty colour's lightness and its brightest tenth at most the second
_EMPTY_EVEN = (0.85, 1.1)
#: ... and shows that print untouched by glare (`_Glare.clear_empty`) with at most this share of its pixels
#: saturated: a glare's edge just reaching it (a tile there would cover the whole ring, not a few pixels)
_CLEAR_EMPTY_CLIPPED = 0.02
#: a ring lit brighter than `_EMPTY_EVEN` allows is the empty print all the same (`_exposed_empty`) where the
#: paper's white fit is only low there: the first reading takes it, the reading allowing for glare finds no
#: class, no pixel of it has a channel clipped, its brightest tenth is at most `_EXPOSED_EVEN` of its darkest's
#: lightness, and its colour is the empty print's times a gain alone (linear light, within `_EXPOSED_GAIN`), off
#: it by at most `_EXPOSED_FIT` of its light; and every field of its parcel reads empty so
_EXPOSED_EVEN = 1.06
_EXPOSED_GAIN = (1.0, 1.6)
_EXPOSED_FIT = 0.03
#: a place glare lit unevenly is read from the band of its unsaturated pixels' lightness between these
#: percentiles (`_least_glare`), when at least this share of its pixels is unsaturated
_LEAST_GLARE = (5.0, 35.0)
_LEAST_GLARE_KEPT = 0.2
#: ... and when glare saturated some of its pixels, or its brightest tenth is this much lighter than the band's top
_LEAST_GLARE_UNEVEN = 1.15
#: a ring the readings above leave unclear where glare saturated at least `_VOTE_CLIPPED` of it is read pixel by
#: pixel (`_glare_votes`): of its pixels clipped in no channel (at least `_VOTE_FREE`: a count, and a share of the
#: ring), at least `_VOTE_SHARE` one class under glare of the tint, at most `_VOTE_OTHER` any other class under
#: glare of the tint or grey glare
_VOTE_CLIPPED = 0.05
_VOTE_FREE = (30, 0.1)
_VOTE_SHARE = 0.4
_VOTE_OTHER = 0.02
#: a walkway's or site's middle, an entrance or a tent place read pixel by pixel: within this radius (mm), which a
#: guest or barker (9 mm across, laid up to 1.2 mm off the middle) always covers whole; each pixel's class fitting
#: within `_VOTE_FIT` (`_glare_fit`): a pixel beside clipped ones keeps less of its own colour (the camera keeps
#: colour at half resolution), and those pieces' colours lie far from the fields', the entrances' and the tent's
_VOTE_RADIUS = 3.0
_VOTE_FIT = 0.2
#: a hammer: the darkest tenth of the parcel's middle below this share of the paper; the middle is a disc
#: this far (mm) above the parcel's centre, of this radius (mm): the whole head, on a board placed a few
#: mm off (the lens's barrel), and not only its thin, blurred handle
_HAMMER_DARK = 0.5
_HAMMER_AT = (2.0, 4.5)
#: an empty parcel whose whole hammer glare hides (at least `_HAMMER_HIDDEN` of its head's disc and of its
#: handle's strip, `_HANDLE_SEARCH`, saturated) is empty all the same where the print within this radius (mm) of
#: the head, where a tile lying off its parcel over the hammer would show, reads the empty parcel's pixel by
#: pixel (`_glare_votes`, `_hammer_glared`)
_HAMMER_GLARED = 8.0
_HAMMER_HIDDEN = 0.5
#: a hammer's head under glare (`_hammer_under_glare`): searched this far (mm) either side of the parcel's
#: middle, and from this far above it to this far below it (above it: the parcel's printed middle line stays
#: out); darker than the print this far (mm) above and below it by this much linear light (of the white), on
#: this many mm of a row (the head is 6.5 mm wide and 2.4 mm tall; its handle leaves the print below it dark
#: at its middle)
_HEAD_SEARCH = (9.0, 7.5, -1.2)
_HEAD_STEP = 2.0
_HEAD_DROP = 0.35
_HEAD_WIDTH = 4.0
#: ... or its handle (`_hammer_handle`): a line 1.3 mm wide, searched this far (mm) either side of the parcel's
#: middle, on the rows from this far to this far (mm) below it (below the parcel's printed middle line), darker
#: by `_HEAD_DROP` (linear light, of the white) than the print this far (mm) either side of it, on all but this
#: share of the rows, within this far (mm) of one column
_HANDLE_SEARCH = (2.5, 0.8, 4.4)
_HANDLE_SIDE = 1.8
_HANDLE_MISS = 0.2
_HANDLE_STRAIGHT = 0.7
#: two attraction fields are one piece when the edge between them stays this bright (share of
#: the fields' colour), two pieces when it drops below `_SPLIT`
_JOINED = 0.8
_SPLIT = 0.6
#: ... and two pieces too when, between those, a line across the edge is darker than this share of both
#: its sides (`_edge_dip`): one piece has no line inside it, and glare falling off across it makes none
_DIP = 0.75
#: a field that cannot be read is parted from an attraction beside it (`_may_reach`) also where a line across
#: the edge between them is darker than both its sides by this much linear light, of the white (`_edge_drop`):
#: a piece's outline, blurred or under glare, drops 0.15 and more; the edges inside one piece dropped at most
#: 0.03 on the tuning markets (medium and hard, both frame sizes)
_OUTLINE_DROP = 0.1
#: samples (1/3 mm each) at either end of an edge's span that the colour test of two attraction fields leaves out
_EDGE_END = 2
#: the most unclear edges between attraction fields settled together by the box's shapes (`_settle_by_shapes`)
_MAX_UNCLEAR = 8
#: the badge printed on an attraction's first field where its shapes are Ringside's decision
#: (`printing.render_attraction`): a magenta disc 4 mm across, centred this far (mm) in from two edges of the field,
#: in whichever corner the piece's turn puts it. It shows (`_marked`) where at least `_MARK_SHARE` of the pixels
#: within `_MARK_RADIUS` mm of that point are its colour: clipped in no channel, darker than `_MARK_DARK` of the
#: white, red and blue each over green by `_MARK_CHROMA` of the white (an attraction's blue, a ticket's yellow,
#: the outline's ink and glare over any of them are none of that). On the tuning markets (hard, 1280x960) the
#: badge's corner showed 0.2 and more on 343 of 370 first fields (the rest under glare), the other 2,300 corners
#: 0.07 at most.
_MARK_AT = 3.4
_MARK_RADIUS = 2.6
_MARK_DARK = 0.9
_MARK_CHROMA = 0.12
_MARK_SHARE = 0.2


class NoBoardError(VisionError, LookupError):
    """No Grand Carnival market board could be located in the frame."""

    def __init__(self, markers_seen: int) -> None:
        self.markers_seen = markers_seen
        super().__init__(
            f"no Grand Carnival market board in the frame: saw {markers_seen} board marker(s) "
            f"(need {_MIN_MARKERS} of a board's 4 corner markers); make sure the whole board is in view and well lit"
        )


@dataclass(frozen=True, slots=True)
class Unrecognised:
    """A place that could not be read: where (a field, "tent place 2", "in1", "number 3", ...) and why.

    ``fields``: the market fields (bitmask) whose reading it holds: the field or parcel itself, and
    the fields of an attraction that could not be read whole; 0 for a place off the market's grid.
    """

    where: str
    why: str
    fields: int = 0


@dataclass(frozen=True, slots=True)
class MarketView:
    """What the camera sees of one player's market board.

    ``market``: 8 strings of 8 characters, row 8 (the tent side) first, in the
    scoring position's letters (``.`` a field of an empty parcel, ``w`` walkway,
    ``s`` construction site, ``g`` a guest on a walkway, ``G`` on a site, ``b`` a
    barker) and ``?`` where a field could not be read. ``attractions``: (shape,
    fields bitmask, tickets) of each piece read. ``entrances``, ``tent``,
    ``numbers`` (action numbers holding a figure) and ``tricks`` (trick places
    holding a figure): None where unreadable. ``tent_places``, ``number_figures``
    (action numbers 1..5) and ``trick_figures``: each place's reading (a guest or
    figure on it, None where unreadable; empty when the board's paper could not be read).
    """

    seat: int
    market: tuple[str, ...]
    attractions: tuple[tuple[str, int, int], ...]
    entrances: tuple[bool | None, bool | None]
    tent: int | None
    numbers: frozenset[int] | None
    tricks: int | None
    unrecognised: tuple[Unrecognised, ...]
    tent_places: tuple[bool | None, ...] = ()
    number_figures: tuple[bool | None, ...] = ()
    trick_figures: tuple[bool | None, ...] = ()

    @property
    def complete(self) -> bool:
        """True when every place of the board was read."""
        return not self.unrecognised

    def position(self, name: str) -> dict[str, Any]:
        """The market as a player of a scoring position (docs/records.md).

        :raises ValueError: when the market was not read completely.
        """
        if not self.complete:
            first = self.unrecognised[0]
            raise ValueError(f"seat {self.seat + 1}: {first.where}: {first.why}")
        return {
            "name": name,
            "market": list(self.market),
            "attractions": [{"shape": shape, "cells": [cell_name(c) for c in range(64) if mask >> c & 1],
                             "tickets": tickets} for shape, mask, tickets in self.attractions],
            "tent": self.tent,
            "tricks": self.tricks,
        }

    def to_json(self) -> dict[str, Any]:
        """The view as JSON."""
        return {
            "seat": self.seat + 1,
            "market": list(self.market),
            "attractions": [{"shape": shape, "cells": [cell_name(c) for c in range(64) if mask >> c & 1],
                             "tickets": tickets} for shape, mask, tickets in self.attractions],
            "entrances": list(self.entrances),
            "tent": self.tent,
            "numbers": None if self.numbers is None else sorted(self.numbers),
            "tricks": self.tricks,
            "unrecognised": [{"where": u.where, "why": u.why} for u in self.unrecognised],
        }

    def describe(self) -> str:
        """The view in words: the market row by row, then the other places."""
        lines = [f"seat {self.seat + 1}: market (row 8 first)"]
        lines += [f"  {8 - k} {row}" for k, row in enumerate(self.market)]
        for shape, mask, tickets in self.attractions:
            cells = " ".join(cell_name(c) for c in range(64) if mask >> c & 1)
            lines.append(f"  attraction {shape} on {cells}, {tickets} ticket(s)")

        def shown(v: object) -> str:
            return "?" if v is None else str(v)

        entrances = ", ".join("?" if e is None else ("guest" if e else "empty") for e in self.entrances)
        numbers = "?" if self.numbers is None else (", ".join(map(str, sorted(self.numbers))) or "none")
        lines.append(f"  entrances: {entrances}; tent: {shown(self.tent)}; numbers taken: {numbers}; "
                     f"tricks learned: {shown(self.tricks)}")
        lines += [f"  unrecognised: {u.where}: {u.why}" for u in self.unrecognised]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class RailyardView:
    """What the camera sees of the wagon row.

    ``open``: the foundation pattern on each of spaces 2..5, None where the slot is
    empty; ``stacks``: whether each face-down stack (1a, 1b) holds tiles. A place
    that could not be read is listed in ``unrecognised`` (its entry is then None /
    False and must not be trusted).
    """

    open: tuple[str | None, ...]
    stacks: tuple[bool, bool]
    unrecognised: tuple[Unrecognised, ...]

    def to_json(self) -> dict[str, Any]:
        """The view as JSON."""
        return {"open": list(self.open), "stacks": list(self.stacks),
                "unrecognised": [{"where": u.where, "why": u.why} for u in self.unrecognised]}

    def describe(self) -> str:
        """The view in words."""
        spaces = ", ".join(f"{k}: {p or 'empty'}" for k, p in enumerate(self.open, start=2))
        stacks = ", ".join(f"{s}: {'tiles' if full else 'empty'}" for s, full in zip(("1a", "1b"), self.stacks))
        lines = [f"wagon row: {stacks}; {spaces}"]
        lines += [f"  unrecognised: {u.where}: {u.why}" for u in self.unrecognised]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class StageTimes:
    """Milliseconds spent per stage of one frame."""

    markers: float = 0.0
    robust: float = 0.0
    boards: float = 0.0


@dataclass(frozen=True, slots=True)
class BoardPose:
    """Where a board lies in the frame: board mm <-> image pixel homographies and the markers' fit."""

    seat: int
    board_to_image: NDArray[Any]
    markers_seen: int
    error_mm: float

    def to_image(self, points: NDArray[Any]) -> NDArray[Any]:
        """Board mm (N, 2) -> frame pixels (N, 2)."""
        return np.asarray(cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(1, -1, 2),
                                                   self.board_to_image)[0])

    def warp(self, frame: Image, size: tuple[int, int]) -> Image:
        """The board seen from above at `_PX_PER_MM`, ``size`` (w, h) px; nearest pixels: every place
        is read as a median of many, which sampling noise does not move."""
        scale = np.diag([_PX_PER_MM, _PX_PER_MM, 1.0])
        out: Image = cv2.warpPerspective(frame, scale @ np.linalg.inv(self.board_to_image), size,
                                         flags=cv2.INTER_NEAREST)
        return out


@dataclass(frozen=True, slots=True)
class Result:
    """One recognised frame: a view per board read, where each lies, the markers and the stage times."""

    views: tuple[MarketView, ...]
    poses: tuple[BoardPose, ...]
    markers: tuple[Marker, ...]
    times: StageTimes = field(default_factory=StageTimes)
    #: the wagon row, when its board is in view
    railyard: RailyardView | None = None
    #: where the wagon row's board lies (its seat is -1)
    wagon_pose: BoardPose | None = None


# -- colours -------------------------------------------------------------------------

_CLASSES: dict[str, tuple[int, int, int]] = {
    "empty": EMPTY, "walkway": WALKWAY, "site": SITE, "attraction": ATTRACTION, "guest": GUEST,
    "barker": BARKER, "ticket": TICKET, "figure": FIGURE, "tent": TENT_PLACE, "slot": SLOT,
    "back": (250, 250, 250),
}


def _features(bgr: NDArray[Any]) -> NDArray[Any]:
    """(..., 4): chromaticity (b, g, r shares) and lightness of paper-normalised colours.

    A little grey is added before the shares are taken, so that the shares of dark
    colours (noise over ink) lean to neutral instead of swinging wildly.
    """
    lifted = bgr + 0.04
    total = np.maximum(lifted.sum(axis=-1, keepdims=True), 1e-3)
    return np.concatenate([lifted / total, bgr.mean(axis=-1, keepdims=True)], axis=-1)


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[str, NDArray[Any]]:
    return {k: _features(np.array(v, np.float64) / 255.0) for k, v in _CLASSES.items()}


def _classify(colour: NDArray[Any], allowed: tuple[str, ...], light_weight: float = 0.35,
              glare: bool = False, tint: NDArray[Any] | None = None) -> str | None:
    """The class of a paper-normalised colour among ``allowed``, or None when not clearly one.

    ``glare``: a second reading that allows for glare (`_glare_classes`) takes a colour the first
    finds unclear, and one that the first reads as one class and the second clearly as another is unclear.
    """
    return _classify_many(colour[None], allowed, light_weight, glare, tint=tint)[0]


def _classify_many(colours: NDArray[Any], allowed: tuple[str, ...], light_weight: float = 0.35,
                   glare: bool = False, fill: bool = True, tint: NDArray[Any] | None = None,
                   tinted: tuple[str, ...] = ()) -> list[str | None]:
    """`_classify` of each row of ``colours`` (N, 3).

    ``fill=False``: the reading allowing for glare only holds a colour it clearly reads as another
    class, it never supplies one the first reading finds unclear. ``tint``: the glare's colour where
    each colour lies (`_glare_tint`), None for grey. ``tinted``: classes that reading supplies only where
    the reading under glare of the tint finds them too (`_glare_fit`), not under grey glare alone.
    """
    protos = _prototypes()
    table = np.stack([protos[k] for k in allowed])  # (K, 4)
    f = _features(colours)  # (N, 4)
    d = (np.linalg.norm(f[:, None, :3] - table[None, :, :3], axis=2)
         + light_weight * np.abs(f[:, None, 3] - table[None, :, 3]))  # (N, K)
    order = np.argsort(d, axis=1)
    best = d[np.arange(len(d)), order[:, 0]]
    ok = (best <= _MAX_DISTANCE) & (colours.max(axis=1) <= _GLARE)
    if len(allowed) > 1:
        ok &= d[np.arange(len(d)), order[:, 1]] - best >= _MARGIN
    first = [allowed[int(order[i, 0])] if ok[i] else None for i in range(len(colours))]
    if not glare:
        return first
    second = _glare_classes(colours, allowed, tint)
    out = [(b if fill else None) if a is None else a if b in (a, None) else None for a, b in zip(first, second)]
    supplied = [i for i, (a, b) in enumerate(zip(first, out)) if a is None and b in tinted]
    if supplied:
        t = _GREY[None] if tint is None else np.asarray(tint, np.float64).reshape(-1, 3)
        t = t if len(t) == 1 else t[supplied]
        found = _glare_fit(colours[supplied], allowed, t, _TINTED_GLARE)
        for i, k in zip(supplied, found):
            if k != out[i]:
                out[i] = None
    return out


def _glare_classes(colours: NDArray[Any], allowed: tuple[str, ...],
                   tint: NDArray[Any] | None = None) -> list[str | None]:
    """The class of each paper-normalised colour (N, 3) allowing for glare, or None when not clearly one.

    Glare adds light of its own colour, which the lens and paper do not change: in linear light a
    colour under glare is ``e * albedo + g * tint`` with g >= 0 and e near 1 (what the paper's white
    left of the light). Taking out the glare's direction leaves ``e`` times the rest of the albedo,
    whatever the glare: a class fits when that rest matches its own with ``e`` in `_GLARE_GAIN` and
    adds no negative glare. A class is taken when it fits within `_GLARE_FIT` and every other is off
    by `_GLARE_OTHER`. ``tint``: the glare's colour in paper-normalised linear light, (3,) or one per
    colour (N, 3) (`_glare_tint`); None: grey, a lamp's light the camera's white balance made white.
    """
    if tint is None:
        return _glare_fit(colours, allowed, _GREY[None])
    # light the white balance did not make white: read under grey glare and under glare of the tint,
    # and take a class only where the two readings do not clearly disagree
    grey = _glare_fit(colours, allowed, _GREY[None])
    # (without glare both readings are one: the tinted one only explains colours that glare lights)
    tinted = _glare_fit(colours, allowed, np.asarray(tint, np.float64).reshape(-1, 3), _TINTED_GLARE)
    return [a if b in (a, None) else b if a is None else None for a, b in zip(grey, tinted)]


def _glare_fit(colours: NDArray[Any], allowed: tuple[str, ...], tint: NDArray[Any],
               least: float = -_GLARE_NEGATIVE, gain: tuple[float, float] = _GLARE_GAIN,
               fit: float = _GLARE_FIT) -> list[str | None]:
    """`_glare_classes` for glare of the unit direction ``tint`` (1, 3) or (N, 3) in linear light, at least
    ``least`` of it, with the light the paper's white measures left of the colour's own in ``gain``, the class
    taken fitting within ``fit``."""
    albedo = (np.array([_CLASSES[k] for k in allowed], np.float64) / 255.0) ** 2.2  # (K, 3)
    t = tint / np.linalg.norm(tint, axis=1, keepdims=True)
    lin = np.clip(np.asarray(colours, np.float64), 0.0, None) ** 2.2  # (N, 3)
    lin_t = np.einsum("nc,nc->n", lin, t)
    lin_part = lin - lin_t[:, None] * t  # (N, 3)
    albedo_t = albedo @ t.T  # (K, N') glare's share of each class's colour
    part = albedo[None, :, :] - albedo_t.T[:, :, None] * t[:, None, :]  # (N or 1, K, 3)
    part = np.broadcast_to(part, (len(lin), *part.shape[1:]))
    size = np.einsum("nkc,nkc->nk", part, part)
    coloured = size >= 1e-4
    size = np.maximum(size, 1e-9)
    e = np.einsum("nc,nkc->nk", lin_part, part) / size  # (N, K)
    res = np.linalg.norm(lin_part[:, None, :] - e[:, :, None] * part, axis=2) / np.sqrt(size)
    g = (lin_t[:, None] - e * albedo_t.T) / np.sqrt(3)
    ok = (e >= gain[0]) & (e <= gain[1]) & (g >= least) & coloured
    fits = np.where(ok, res, np.inf)
    order = np.argsort(fits, axis=1)
    rows = np.arange(len(fits))
    best = fits[rows, order[:, 0]]
    other = fits[rows, order[:, 1]] if len(allowed) > 1 else np.full(len(fits), np.inf)
    ok = (best < fit) & (other >= _GLARE_OTHER)
    return [allowed[int(order[i, 0])] if ok[i] else None for i in range(len(fits))]


def _clipped_class(raw: NDArray[Any], white: NDArray[Any], tint: NDArray[Any],
                   allowed: tuple[str, ...]) -> str | None:
    """The class among ``allowed`` of a place's colour (its median, raw 0..255, (3,)) glare clipped in one
    channel or two, or None.

    A clipped channel only says its light was at least what it shows; the others keep the print's
    colour under the glare (`_glare_classes`): in linear light ``e * albedo + g * tint`` for each class.
    A class's miss is the least, over every gain e the print keeps (`_GLARE_GAIN`) and every glare g not
    negative, of the worst of: each channel left off its prediction, and each clipped channel's
    prediction short of what it shows, in that channel's `_CLIPPED_ERROR` (the white's fit, noise). A
    class is taken when it misses by at most `_CLIPPED_FIT` and every other by at least `_CLIPPED_MISS`.
    (Searching e within its bounds, not solving the channels for it, keeps a class whose colour lies
    near the glare's from fitting any light with a gain no print has.) ``white``: the paper's white there
    (3,); ``tint``: the glare's colour (`_glare_tint`). A colour with no channel clipped, or all three, or
    one left near clipping, is None (the other readings take it).
    """
    raw = np.asarray(raw, np.float64)
    clipped = raw >= _CLIPPED
    if not 1 <= int(clipped.sum()) <= 2 or float(raw[~clipped].max()) > _UNCLIPPED:
        return None
    x = (raw / np.maximum(np.asarray(white, np.float64), 1.0)) ** 2.2
    if float(x[clipped].min()) < _CLIPPED_SHOWN:
        return None
    error = _CLIPPED_ERROR[0] * x + _CLIPPED_ERROR[1]
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    gains, glares = _clipped_grid(float(x.max() / max(float(t.min()), 1e-3)))
    albedo = (np.array([_CLASSES[name] for name in allowed], np.float64) / 255.0) ** 2.2  # (K, 3)
    # (K, E, G, 3): each channel's light less its prediction, in its errors
    off = (x - gains[None, :, None, None] * albedo[:, None, None, :] - glares[None, None, :, None] * t) / error
    worst = np.maximum(np.abs(off[..., ~clipped]).max(axis=3), np.maximum(off[..., clipped], 0.0).max(axis=3))
    misses = worst.reshape(len(allowed), -1).min(axis=1)
    order = np.argsort(misses)
    best = int(order[0])
    if misses[best] > _CLIPPED_FIT or (len(allowed) > 1 and misses[int(order[1])] < _CLIPPED_MISS):
        return None
    return allowed[best]


def _clipped_grid(most: float) -> tuple[NDArray[Any], NDArray[Any]]:
    """The gains (`_GLARE_GAIN`, steps of 0.01) and glares (from -`_GLARE_NEGATIVE` to ``most``, `_CLIPPED_STEPS`
    of them) `_clipped_class` searches."""
    gains = np.linspace(_GLARE_GAIN[0], _GLARE_GAIN[1], int(round((_GLARE_GAIN[1] - _GLARE_GAIN[0]) / 0.01)) + 1)
    return gains, np.linspace(-_GLARE_NEGATIVE, most + 0.1, _CLIPPED_STEPS)


def _clipped_place(pixels: NDArray[Any], white: NDArray[Any], tint: NDArray[Any],
                   allowed: tuple[str, ...]) -> str | None:
    """`_clipped_class` of a place's pixels (M, 3, raw 0..255) of one colour under glare: at least
    `_CLIPPED_EVEN`'s first share of them clipped in the same channels (one or two), and, where one is,
    those all one colour under more or less glare (across the glare's colour in linear light, the other
    two channels within its second, a share of the white, of each other)."""
    px = np.asarray(pixels, np.float64)
    clipped = px >= _CLIPPED
    count = clipped.sum(axis=1)
    some = (count >= 1) & (count <= 2)
    if not some.any():
        return None
    pattern = clipped @ np.array([1, 2, 4])  # which channels, as a number
    common = int(np.bincount(pattern[some], minlength=8).argmax())
    mine = px[some & (pattern == common)]
    if len(mine) < max(8.0, _CLIPPED_EVEN[0] * len(px)):
        return None
    free = [i for i in range(3) if not common >> i & 1]
    if len(free) == 2:
        t = np.asarray(tint, np.float64)[free]
        across = np.array([-t[1], t[0]]) / np.linalg.norm(t)  # glare moves a colour along t, not across it
        lin = (mine[:, free] / np.maximum(np.asarray(white, np.float64)[free], 1.0)) ** 2.2
        low, high = np.percentile(lin @ across, (10, 90))
        if float(high - low) > _CLIPPED_EVEN[1]:
            return None
    return _clipped_class(np.median(mine, axis=0), white, tint, allowed)


def _glared_place(pixels: NDArray[Any], white: NDArray[Any], tint: NDArray[Any],
                  allowed: tuple[str, ...]) -> str | None:
    """The class among ``allowed`` of a place (its pixels (M, 3), raw 0..255) the first readings found unclear
    under glare: glare clipped in one channel or two (`_clipped_place`), else its pixels glare lit least
    (`_least_glare`) read allowing for glare; None when neither is sure."""
    k = _clipped_place(pixels, white, tint, allowed)
    if k is None:
        least = _least_glare(pixels, _glare_clipped(pixels[None], white[None])[0])
        if least is not None:
            k = _classify_many((least / white)[None], allowed, glare=True, tint=tint[None])[0]
    return k


def _glare_votes(pixels: NDArray[Any], white: NDArray[Any], tint: NDArray[Any],
                 allowed: tuple[str, ...], fit: float = _GLARE_FIT) -> str | None:
    """The class among ``allowed`` of a place (its pixels (M, 3), raw 0..255) glare lights unevenly, read pixel by
    pixel: of the pixels clipped in no channel (`_VOTE_FREE`), the class glare of the tint (`_glare_fit`) explains
    on at least `_VOTE_SHARE`, where no other class is explained on more than `_VOTE_OTHER` of them, under glare of
    the tint or grey glare, each pixel's class fitting within ``fit``; None otherwise.

    Glare falling off across a place adds a different amount of light to each pixel, so no one colour of them
    (a median, a band of lightness) is the print's under one glare; each pixel alone is, and a pixel glare clipped
    in no channel keeps the print's colour across the glare's. A hand, a shadow or a piece half over the place
    shows another colour on its share of the pixels.
    """
    px = np.asarray(pixels, np.float64)
    free = px[px.max(axis=1) < _CLIPPED]
    if len(free) < max(float(_VOTE_FREE[0]), _VOTE_FREE[1] * len(px)):
        return None
    colours = free / np.maximum(np.asarray(white, np.float64), 1.0)
    tinted = _glare_fit(colours, allowed, np.asarray(tint, np.float64)[None], fit=fit)
    grey = _glare_fit(colours, allowed, _GREY[None], fit=fit)
    counts = {k: sum(a == k for a in tinted) for k in allowed}
    best = max(allowed, key=lambda k: counts[k])
    others = max(sum(a == k for a in reading) for k in allowed if k != best for reading in (tinted, grey))
    if counts[best] < _VOTE_SHARE * len(free) or others > _VOTE_OTHER * len(free):
        return None
    return best


def _no_ticket_under_glare(pixels: NDArray[Any], white: NDArray[Any], tint: NDArray[Any]) -> bool:
    """True when an attraction's middle (its pixels (M, 3), raw 0..255) that glare saturated shows no ticket.

    A ticket is yellow: its red and green far lighter than its blue. Glare that clips a channel of a ticket
    adds light of its own colour (``tint``, `_glare_tint`) to every channel, so a ticket's other channels are
    at least what that glare adds to them: in linear light ``e * ticket + g * tint``, for every gain e
    (`_NO_TICKET_GAIN`) the least glare g that lifts each clipped channel to what it shows. A pixel showing
    some channel below that by `_NO_TICKET_MISS` (an attraction's blue clipped, its red far darker) is no
    ticket's; a ticket covers the whole middle, so where `_NO_TICKET_SHARE` of the pixels are such, none
    lies there. Pixels glare clipped in no channel say nothing (a ticket in a shadow is darker)."""
    raw = np.asarray(pixels, np.float64)
    clipped = raw >= _CLIPPED
    if not len(raw):
        return False
    x = (raw / np.maximum(np.asarray(white, np.float64), 1.0)) ** 2.2
    ticket = (np.array(TICKET, np.float64) / 255.0) ** 2.2
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    unlike = clipped.any(axis=1) & ~clipped.all(axis=1)
    for e in np.linspace(_NO_TICKET_GAIN[0], _NO_TICKET_GAIN[1], 17):
        glare = np.maximum(np.where(clipped, (x - e * ticket) / t, 0.0).max(axis=1), 0.0)
        short = np.where(clipped, -np.inf, e * ticket + glare[:, None] * t - x).max(axis=1)
        unlike &= short > _NO_TICKET_MISS
    return float(unlike.mean()) >= _NO_TICKET_SHARE


def _glare_tint(whites: NDArray[Any]) -> NDArray[Any]:
    """The colour (N, 3), in paper-normalised linear light, of glare where the paper's white is ``whites``
    (N, 3, 0..255): one over the white's linear light. A lamp's reflection reaches the sensor without
    the colour cast the paper's white measures (the camera's white balance off, light of another
    colour), so dividing by the white gives it that cast's opposite."""
    lin = (np.maximum(np.asarray(whites, np.float64), 1.0) / 255.0) ** 2.2
    inverse = 1.0 / lin
    out: NDArray[Any] = inverse / np.linalg.norm(inverse, axis=-1, keepdims=True)
    return out


def _paper_under_glare(pixels: NDArray[Any], tint: NDArray[Any], gain: float = _PAPER_GAIN) -> NDArray[Any]:
    """Which paper-normalised colours (N, 3) are the paper's white under glare of the colour ``tint`` (3,)
    (`_glare_tint`): in linear light ``e * white + g * tint`` with e at least ``gain`` (the white is
    measured on the board's paper itself) and g >= 0, within `_PAPER_FIT`. (The glare's colour is near
    grey: the light above the paper's says how much of the tint's own colour may show.)"""
    lin = np.clip(np.asarray(pixels, np.float64), 0.0, None) ** 2.2
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    level = lin.mean(axis=1)
    off = lin - level[:, None]  # the colour off the grey axis
    t_off = t - t.mean()
    g_most = np.maximum(level - gain, 0.0) / t.mean()
    g = np.clip(off @ t_off / max(float(t_off @ t_off), 1e-9), 0.0, g_most)
    fits = np.linalg.norm(off - g[:, None] * t_off[None], axis=1) < _PAPER_FIT
    # (g <= g_most leaves the white's share at least ``gain`` wherever the light reaches it; tested on the light
    # itself, since at g = g_most the share computed back is ``gain`` less a rounding error)
    out: NDArray[Any] = fits & (level >= gain)
    return out


def _off_paper(colour: NDArray[Any], tint: NDArray[Any]) -> float:
    """How far a paper-normalised colour (3,) lies, in linear light, from the paper's white under any glare,
    grey or of the colour ``tint`` (`_glare_tint`), however much: its part off the grey axis less the most of
    the tint's part off it that glare could add."""
    lin = np.clip(np.asarray(colour, np.float64), 0.0, None) ** 2.2
    off = lin - lin.mean()
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    t_off = t - t.mean()
    g = max(0.0, float(off @ t_off) / max(float(t_off @ t_off), 1e-9))
    return float(np.linalg.norm(off - g * t_off))


def _figure_colour(colour: NDArray[Any], tint: NDArray[Any]) -> bool:
    """True when a paper-normalised colour (3,) is a figure's, also under glare (`_figure_on`)."""
    if float(colour.max()) <= _GLARE and _classify(colour, ("figure",)) == "figure":
        return True
    # (grey glare alone: under glare of a tint the paper's white, seen across the tint, can be the figure's
    # colour, and with one class there is no other to tell them apart)
    if _glare_classes(colour[None], ("figure",))[0] == "figure":
        return True
    # glare of a tint: the figure's colour under it, and clearly not the paper's white under glare, grey or
    # of the tint, down to none
    readings = (_glare_fit(colour[None], ("figure", "back"), np.asarray(tint, np.float64)[None])[0],
                _glare_fit(colour[None], ("figure", "back"), _GREY[None])[0])
    return readings[0] == "figure" and readings[1] in ("figure", None) and _off_paper(colour, tint) >= _OFF_PAPER


def _figure_on(pixels: NDArray[Any], clipped: NDArray[Any] | None = None,
               tint: NDArray[Any] = _GREY, touched: NDArray[Any] | None = None,
               lit_around: bool | Callable[[], bool] = True) -> bool | None:
    """Whether a figure stands on a printed box (white with a dark digit or ring): None when unclear.

    ``pixels``: the paper-normalised colours (N, 3) of the box's middle; ``clipped``: which of them
    glare saturated (`_glare_clipped`; None: none); ``tint``: the glare's colour there (`_glare_tint`);
    ``touched``: which of them glare clipped in some channel (None: those ``clipped``); ``lit_around``: whether
    glare lights the paper around the box (`_AROUND`), or a function saying so (asked only where it matters).
    A figure: their median is the figure's colour (also under glare, `_glare_classes`). No figure:
    the box's white paper all over (its brighter quarter between the print's strokes), and no part of it
    darker than paper can be (a figure half in view); a box brighter than the paper's white (glare,
    which could hide a figure) only when its pixels are the paper under glare all over
    (`_paper_under_glare`); and where glare lights the box or the paper around it, only when a figure
    under glare could not show the same (`_figure_under_glare`).
    """
    # one pass for every percentile: the colour's median and brighter quarter, the lightness's tenths
    stats = np.percentile(np.column_stack([pixels, pixels.mean(axis=1)]), (10, 50, 75, 90), axis=0)
    colour, paper, low, high = stats[1, :3], stats[2, :3], float(stats[0, 3]), float(stats[3, 3])
    # pixels glare saturated keep no colour of their own: divided by the paper's white, their clipped channels
    # show the opposite of its cast, which can be the figure's colour; a figure is read from the rest alone
    kept = pixels if clipped is None else pixels[~clipped]
    if len(kept) >= max(8.0, _LEAST_GLARE_KEPT * len(pixels)):
        rest = colour if len(kept) == len(pixels) else np.median(kept, axis=0)
        if _figure_colour(rest, tint):
            return True
        # glare lighting the box unevenly: its pixels glare lit least
        least = _least_glare(pixels, np.zeros(len(pixels), bool) if clipped is None else clipped)
        if least is not None and _figure_colour(least, tint):
            return True
    if low < _PAPER_LOW:
        return None
    lit = float(colour.max()) > _GLARE or float(paper.max()) > _GLARE or high > _PAPER_HIGH
    if lit:
        # lit brighter than paper: no figure only where paper under glare shows all over, little of it saturated
        # (a channel glare clipped shows less light than it had: such a pixel fits no paper under glare)
        if touched is None or clipped is None:
            touched = clipped if touched is None else touched
        else:
            touched = touched | clipped
        kept = pixels if touched is None else pixels[~touched]
        if (touched is not None and float(touched.mean()) > _PAPER_CLIPPED) or len(kept) < 8:
            return None
        if float((~_paper_under_glare(kept, tint)).mean()) > _PAPER_FIT_SHARE:
            return None
    bright = float(paper.min()) > _PAPER
    if not bright or float(paper.max() - paper.min()) >= _NEUTRAL:
        return None
    free = pixels if touched is None else pixels[~touched]
    lit = lit or (lit_around() if callable(lit_around) else lit_around)
    if len(free) < 8:  # (a frame exposed so long the paper's own white clips, unlit: as the paper reads)
        return None if lit else False
    if lit or float((~_paper_under_glare(free, tint, _PAPER_DIM)).mean()) > _PAPER_FIT_SHARE:
        # glare near, or a box darker or more tinted than the paper: a figure under glare could show the same
        if float(_figure_under_glare(free, tint).mean()) >= _MIMIC_SHARE:
            return None
    return False


def _figure_under_glare(pixels: NDArray[Any], tint: NDArray[Any]) -> NDArray[Any]:
    """Which paper-normalised colours (N, 3) a figure under glare of the colour ``tint`` (3,) explains: in linear
    light ``e * figure + g * tint`` with e in `_GLARE_GAIN` and g >= 0, within `_MIMIC_FIT`."""
    lin = np.clip(np.asarray(pixels, np.float64), 0.0, None) ** 2.2
    fig = (np.array(FIGURE, np.float64) / 255.0) ** 2.2
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    best = np.full(len(lin), np.inf)
    for e in np.linspace(_GLARE_GAIN[0], _GLARE_GAIN[1], 11):
        rest = lin - e * fig
        g = np.maximum(rest @ t, 0.0)
        best = np.minimum(best, np.linalg.norm(rest - g[:, None] * t, axis=1))
    out: NDArray[Any] = best < _MIMIC_FIT
    return out


# -- sampling masks (board mm -> rectified pixels) -----------------------------------

def _px(mm: float) -> int:
    return int(round(mm * _PX_PER_MM))


@functools.lru_cache(maxsize=1)
def _field_masks() -> tuple[NDArray[Any], NDArray[Any]]:
    """Boolean ring and middle masks of one field's square at `_PX_PER_MM`."""
    n = _px(FIELD)
    yy, xx = np.mgrid[:n, :n] + 0.5
    c = n / 2
    r = np.hypot(xx - c, yy - c) / _PX_PER_MM
    inner = (np.abs(xx - c) < c - _RING_MARGIN * _PX_PER_MM) & (np.abs(yy - c) < c - _RING_MARGIN * _PX_PER_MM)
    # every other pixel of the ring is plenty for its median (neighbours are alike after the lens)
    sparse = (np.floor(xx) + np.floor(yy)) % 2 == 0
    return inner & (r > _RING_RADIUS) & sparse, r < _MIDDLE_RADIUS


@functools.lru_cache(maxsize=1)
def _vote_mask() -> NDArray[Any]:
    """Boolean mask of one field's square at `_PX_PER_MM`: the disc a piece on it always covers (`_VOTE_RADIUS`)."""
    n = _px(FIELD)
    yy, xx = np.mgrid[:n, :n] + 0.5
    out: NDArray[Any] = np.hypot(xx - n / 2, yy - n / 2) / _PX_PER_MM < _VOTE_RADIUS
    return out


def _disc(img: NDArray[Any], cx: float, cy: float, radius: float) -> NDArray[Any]:
    """The pixels (N, C) of ``img`` within ``radius`` mm of board point (cx, cy)."""
    ys, xs = _disc_index(((cx, cy),), radius, img.shape[:2])
    out: NDArray[Any] = img[ys[0], xs[0]]
    return out


@functools.lru_cache(maxsize=256)
def _disc_index(points: tuple[tuple[float, float], ...], radius: float,
                shape: tuple[int, ...]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Row and column indices (N, K) of the pixels within ``radius`` mm of each point, in an image of ``shape``."""
    r = int(np.ceil(radius * _PX_PER_MM))
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    keep = np.hypot(dx, dy) <= radius * _PX_PER_MM
    dy, dx = dy[keep], dx[keep]
    h, w = shape[0], shape[1]
    ys = np.array([np.clip(int(y * _PX_PER_MM) + dy, 0, h - 1) for _, y in points])
    xs = np.array([np.clip(int(x * _PX_PER_MM) + dx, 0, w - 1) for x, _ in points])
    return ys, xs


# -- the paper's white -----------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _white_points() -> NDArray[Any]:
    """Board points (mm) where the printed board is blank paper: around its edges and between the entrances."""
    b = BOARD
    pts: list[tuple[float, float]] = [(float(x), 3.5) for x in range(30, 221, 8)]
    pts += [(3.5, float(y)) for y in range(30, 161, 8)] + [(14.0, float(y)) for y in range(30, 161, 16)]
    pts += [(b.width - 3.0, float(y)) for y in range(30, 161, 10)]
    row1 = b.grid_y + b.grid_size
    pts += [(float(x), row1 + 8.0) for x in np.arange(b.grid_x + 2.5 * FIELD, b.grid_x + 5.6 * FIELD, 6)]
    pts += [(float(x), b.height - 3.0) for x in range(30, 221, 12)]
    return np.array(pts, np.float64)


def _white_fit(rect: NDArray[Any], pts: NDArray[Any] | None = None,
               size: tuple[float, float] = (BOARD.width, BOARD.height)) -> tuple[NDArray[Any], int] | None:
    """Coefficients (6, 3) of the paper's white over a board, a quadratic in x and y, and the samples kept.

    ``pts``: board points (mm) of blank paper (default: the market board's); ``size``: the board's (mm).
    """
    if pts is None:
        pts = _white_points()
    ys, xs = _disc_index(tuple(map(tuple, pts)), 1.5, rect.shape[:2])
    values = np.percentile(rect[ys, xs].astype(np.float64), 75, axis=1)
    design = _design(pts, size)
    keep = values.mean(axis=1) > 20
    coef = None
    for _ in range(3):
        if keep.sum() < 12:
            return None
        coef, *_ = np.linalg.lstsq(design[keep], values[keep], rcond=None)
        fitted = design @ coef
        rel = np.abs(values - fitted).max(axis=1) / np.maximum(fitted.mean(axis=1), 1.0)
        new = keep & (rel < 0.08)
        if (new == keep).all():
            break
        keep = new
    assert coef is not None
    return coef, int(keep.sum())


def _design(pts: NDArray[Any], size: tuple[float, float] = (BOARD.width, BOARD.height)) -> NDArray[Any]:
    x = pts[:, 0] / size[0] - 0.5
    y = pts[:, 1] / size[1] - 0.5
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


# -- reading one board ----------------------------------------------------------------------

class _Board:
    """The readings of one rectified board."""

    def __init__(self, rect: NDArray[Any], coef: NDArray[Any], catalog: Catalog,
                 size: tuple[float, float] = (BOARD.width, BOARD.height), classifier: Any = None) -> None:
        self.classifier = classifier
        self.rect = rect
        self.coef = coef
        self.catalog = catalog
        self.size = size
        self.problems: list[Unrecognised] = []

    def white(self, x: float, y: float) -> NDArray[Any]:
        out: NDArray[Any] = np.maximum((_design(np.array([[x, y]]), self.size) @ self.coef)[0], 1.0)
        return out

    def tint(self, x: float, y: float) -> NDArray[Any]:
        """The glare's colour at board point (x, y) (`_glare_tint`), (3,)."""
        out: NDArray[Any] = _glare_tint(self.white(x, y)[None])[0]
        return out

    def pixels(self, x: float, y: float, radius: float) -> NDArray[Any]:
        """The paper-normalised colours (N, 3) within ``radius`` mm of board point (x, y)."""
        return np.asarray(_disc(self.rect, x, y, radius) / self.white(x, y))

    def colour(self, x: float, y: float, radius: float, percentile: float = 50.0) -> NDArray[Any]:
        px = _disc(self.rect, x, y, radius)
        return np.asarray(np.percentile(px, percentile, axis=0) / self.white(x, y))

    def problem(self, where: str, why: str, fields: int = 0) -> None:
        self.problems.append(Unrecognised(where, why, fields))


def _glare_clipped(pixels: NDArray[Any], whites: NDArray[Any]) -> NDArray[Any]:
    """Which of the pixels (N, M, 3) of N places glare saturated (N, M): a channel clipped, and every
    channel as light as `_SATURATED_LIGHT` of the place's paper white (N, 3) or more. (A bright print
    clips a channel without glare, a ticket's red for one, or the empty parcel's light blue on a frame
    exposed a little long, and its other channels keep its colour.)"""
    out: NDArray[Any] = pixels.max(axis=2) >= _CLIPPED
    rows, cols = np.nonzero(out)  # few pixels: their channels alone
    light = (pixels[rows, cols].astype(np.float64) / whites[rows]).min(axis=1)
    out[rows, cols] = light >= _SATURATED_LIGHT
    return out


def _median_of_unclipped(pixels: NDArray[Any], clipped: NDArray[Any]) -> NDArray[Any]:
    """Per-channel median (N, 3) of each row of ``pixels`` (N, M, 3) over the pixels not ``clipped`` (N, M);
    over all of them where every pixel is clipped."""
    out: NDArray[Any] = np.median(pixels, axis=1).astype(np.float64)
    # rows with some pixels clipped only (most have none): one by one, far faster than a NaN median of all
    for i in np.flatnonzero(clipped.any(axis=1) & ~clipped.all(axis=1)):
        out[i] = np.median(pixels[i][~clipped[i]], axis=0)
    return out


def _unclipped_colour(pixels: NDArray[Any], white: NDArray[Any]) -> NDArray[Any]:
    """The paper-normalised colour (3,) of a place's pixels (M, 3, raw 0..255) where the paper's white is
    ``white`` (3,): the median of those glare did not saturate (`_glare_clipped`); NaN, no colour at all,
    where it saturated more than `_MAX_CLIPPED_MIDDLE` of them (the glare's own colour, read allowing for
    glare of a tint, could be a class's). Divided by the white, saturated pixels show the opposite of its
    cast, which can be a piece's colour."""
    clipped = _glare_clipped(pixels[None], white[None])
    if float(clipped.mean()) > _MAX_CLIPPED_MIDDLE:
        return np.full(3, np.nan)
    return np.asarray(_median_of_unclipped(pixels[None], clipped)[0] / white)


def _least_glare(pixels: NDArray[Any], clipped: NDArray[Any]) -> NDArray[Any] | None:
    """The colour (3,) of the pixels (M, 3) of one place that glare lit least, or None when too few are left
    or the place is lit evenly.

    Glare only adds light, and a spot's light falls off across a field: of the pixels glare did
    not saturate, those in the darker band of lightness (`_LEAST_GLARE`, between the print's
    darkest strokes and the glare) keep the most of the print's own colour.
    """
    kept = pixels[~clipped].astype(np.float64)
    if len(kept) < _LEAST_GLARE_KEPT * len(pixels) or len(kept) < 8:
        return None
    light = kept.mean(axis=1)
    low, high, top = np.percentile(light, (*_LEAST_GLARE, 90.0))
    if not clipped.any() and top < _LEAST_GLARE_UNEVEN * high:
        return None  # no part of it lit brighter: no glare over part of it (a hand, a shadow's edge)
    band = kept[(light >= low) & (light <= high)]
    return np.asarray(np.median(band, axis=0), np.float64)


@dataclass(frozen=True, slots=True)
class _Glare:
    """What glare left of each field's ring (64 each, row 8 first).

    ``blown``: glare saturated more than `_MAX_CLIPPED` of the ring, so it shows no colour at all;
    ``clear_empty``: the ring shows the empty parcel's print evenly and untouched by glare (at most
    `_CLEAR_EMPTY_CLIPPED` of its pixels saturated, its darkest and brightest tenths within `_EMPTY_EVEN` of
    the empty colour's lightness), read so by both readings (`_classify_many`, `_glare_classes`).
    """

    blown: tuple[bool, ...]
    clear_empty: tuple[bool, ...]


def _read_fields(rb: _Board) -> tuple[list[str | None], NDArray[Any], NDArray[Any],
                                      Callable[[int], NDArray[Any] | None],
                                      Callable[[int, tuple[str, ...]], str | None], _Glare]:
    """Each field's ring class, middle colour and ring colour, paper-normalised, row 8 first; a function
    giving the colour of a field's middle from its pixels glare lit least (`_least_glare`), one
    reading a field's middle glare clipped in one channel (`_clipped_place`; an attraction's also by
    `_no_ticket_under_glare`) or saturated in part (`_glare_votes`), and what glare left of each ring (`_Glare`).

    A ring lit so unevenly that only its pixels glare lit least could be read has no colour (NaN).
    """
    b = BOARD
    n = _px(FIELD)
    x0, y0 = _px(b.grid_x), _px(b.grid_y)
    grid = rb.rect[y0:y0 + 8 * n, x0:x0 + 8 * n]
    cells = grid.reshape(8, n, 8, n, 3).transpose(0, 2, 1, 3, 4).reshape(64, n, n, 3)
    ring_mask, mid_mask = _field_masks()
    ring_px = cells[:, ring_mask]
    mid_px = cells[:, mid_mask]
    centres = np.array([[b.grid_x + (c % 8 + 0.5) * FIELD, b.grid_y + (c // 8 + 0.5) * FIELD] for c in range(64)])
    whites = np.maximum(_design(centres) @ rb.coef, 1.0)
    # pixels glare saturated keep no colour of their own (their channels clipped where the white balance
    # left them), so a place's colour is the median of the rest, and a place mostly saturated is unclear
    clipped = _glare_clipped(ring_px, whites)
    mid_clipped = _glare_clipped(mid_px, whites)
    rings = _median_of_unclipped(ring_px, clipped) / whites
    mids = _median_of_unclipped(mid_px, mid_clipped) / whites
    saturated = clipped.mean(axis=1) > _MAX_CLIPPED
    # (no colour at all: the glare's own, read allowing for glare of a tint, could be a class's)
    mids[mid_clipped.mean(axis=1) > _MAX_CLIPPED_MIDDLE] = np.nan
    kinds = ("empty", "walkway", "site", "attraction")
    # a field's kind decides the parcel's tile: a colour only the reading allowing for glare finds let
    # glare-tinted fields through as another kind on hard frames (the white balance tints the glare),
    # so that reading only holds here
    tints = _glare_tint(whites)
    ring_class = _classify_many(rings, kinds, glare=True, fill=False, tint=tints)
    ring_class = [None if saturated[c] else k for c, k in enumerate(ring_class)]
    # the empty parcel's colour is light: a tile washed out by glare, or half in a shadow, comes near
    # it, so a field whose ring is not as light as the empty colour all over is read empty only when
    # the reading allowing for glare finds the empty colour too
    light = np.percentile(ring_px.mean(axis=2), (10, 90), axis=1) / whites.mean(axis=1)  # (2, 64)
    empty_light = float(np.mean(EMPTY)) / 255.0
    uneven = (light[0] < _EMPTY_EVEN[0] * empty_light) | (light[1] > _EMPTY_EVEN[1] * empty_light)
    # (the reading allowing for glare must find it too: an attraction washed out evenly by broad glare, or a
    # hand's skin, reads as the empty colour on the first reading alone)
    candidates = [c for c, k in enumerate(ring_class)
                  if k == "empty" and not uneven[c] and float(clipped[c].mean()) <= _CLEAR_EMPTY_CLIPPED]
    both = _glare_classes(rings[candidates], kinds, tints[candidates]) if candidates else []
    clear_empty = tuple(c in {c for c, k in zip(candidates, both) if k == "empty"} for c in range(64))
    if any(k == "empty" and uneven[c] for c, k in enumerate(ring_class)):
        under_glare = _glare_classes(rings, kinds, tints)
        exposed = {c for c, k in enumerate(ring_class)
                   if k == "empty" and uneven[c] and under_glare[c] is None and _exposed_empty(ring_px[c], whites[c])}
        ring_class = [None if k == "empty" and uneven[c] and under_glare[c] != "empty" else k
                      for c, k in enumerate(ring_class)]
        # (only a parcel empty all over: a field beside a tile's or an unclear one says a tile may lie there)
        for parcel in range(16):
            four = parcel_cells(parcel)
            if any(c in exposed for c in four) and all(c in exposed or ring_class[c] == "empty" for c in four):
                for c in four:
                    ring_class[c] = "empty"
    # a tile's field glare washed toward the empty parcel's light colour: read again as a field unclear
    washed = {c: rings[c].copy() for c in _washed_tile_fields(ring_class, rings, tints, clear_empty)}
    for c in washed:
        ring_class[c] = None
    # a field the whole ring leaves unclear (glare over part of it): its pixels glare lit least
    unclear = [c for c, k in enumerate(ring_class) if k is None]
    for c in unclear:
        least = _least_glare(ring_px[c], clipped[c])
        if least is not None:
            # (grey glare alone: a hand's skin at the edge of a shadow came near a site under glare of a tint)
            ring_class[c] = _classify_many((least / whites[c])[None], kinds, glare=True)[0]
            # its glare is uneven: no middle is judged bare against the ring's colour (`_bare`)
            rings[c] = np.nan
    # a ring glare clipped in one channel: the two others; else pixel by pixel, its glare varying across it
    for c in [c for c, k in enumerate(ring_class) if k is None]:
        ring_class[c] = _clipped_place(ring_px[c], whites[c], tints[c], kinds)
        if ring_class[c] is None and float(clipped[c].mean()) >= _VOTE_CLIPPED:
            ring_class[c] = _glare_votes(ring_px[c], whites[c], tints[c], kinds)
        if ring_class[c] is not None:
            rings[c] = np.nan
    # a field only those readings under glare find empty, in a parcel another field of which shows a tile
    # clearly: a tile covers its whole parcel, and glare draws a tile's field toward the empty print's light
    # colour; read again among the tiles' kinds alone (a parcel left partly empty stays held)
    for parcel in range(16):
        four = parcel_cells(parcel)
        if not any(ring_class[c] in _TILE_KINDS and c not in unclear for c in four):
            continue
        for c in four:
            if c in unclear and ring_class[c] == "empty":
                ring_class[c] = _glared_place(ring_px[c], whites[c], tints[c], _TILE_KINDS)
    # a washed field the readings above do not find a tile's: as the first reading had it (its parcel held)
    for c, kept in washed.items():
        if ring_class[c] not in _TILE_KINDS:
            ring_class[c], rings[c] = "empty", kept

    def least_middle(c: int) -> NDArray[Any] | None:
        least = _least_glare(mid_px[c], mid_clipped[c])
        return None if least is None else np.asarray(least / whites[c])

    def clipped_middle(c: int, allowed: tuple[str, ...]) -> str | None:
        k = _clipped_place(mid_px[c], whites[c], tints[c], allowed)
        if k is None and allowed == ("attraction", "ticket") and _no_ticket_under_glare(mid_px[c], whites[c], tints[c]):
            k = "attraction"
        # (a piece covers the whole middle: where glare lights it unevenly, its pixels one by one; a guest or a
        # barker covers more than the middle, and glare leaves few pixels of it)
        if k is None and float(mid_clipped[c].mean()) >= _VOTE_CLIPPED:
            if "guest" in allowed:
                k = _glare_votes(cells[c][_vote_mask()], whites[c], tints[c], allowed, _VOTE_FIT)
            else:
                k = _glare_votes(mid_px[c], whites[c], tints[c], allowed)
        return k

    glare = _Glare(tuple(bool(v) for v in saturated), clear_empty)
    return ring_class, mids, rings, least_middle, clipped_middle, glare


def _exposed_empty(pixels: NDArray[Any], white: NDArray[Any]) -> bool:
    """True when a field's ring (its pixels (M, 3), raw 0..255) lit brighter than the empty print (`_EMPTY_EVEN`)
    is that print seen through a white fit low there: lit evenly (`_EXPOSED_EVEN`), no channel of any pixel
    clipped, and its colour in linear light the empty print's times a gain (`_EXPOSED_GAIN`), within
    `_EXPOSED_FIT`.

    Glare adds light of its own colour, which draws a colour toward the glare's and away from the print's
    (the reading allowing for glare takes that); a gain keeps the print's colour, and a tile's field under
    any glare shows another colour. A tile half over its field, a hand or a shadow light a ring unevenly.
    """
    px = np.asarray(pixels, np.float64)
    if not len(px) or float(px.max()) >= _CLIPPED:
        return False
    low, high = np.percentile(px.mean(axis=1), (10, 90))
    if high > _EXPOSED_EVEN * max(float(low), 1.0):
        return False
    lin = (np.median(px, axis=0) / np.maximum(np.asarray(white, np.float64), 1.0)) ** 2.2
    empty = (np.array(EMPTY, np.float64) / 255.0) ** 2.2
    gain = float(lin @ empty / (empty @ empty))
    fit = float(np.linalg.norm(lin - gain * empty)) <= _EXPOSED_FIT * float(np.linalg.norm(lin))
    return _EXPOSED_GAIN[0] <= gain <= _EXPOSED_GAIN[1] and fit


def _washed_tile_fields(ring_class: list[str | None], rings: NDArray[Any], tints: NDArray[Any],
                        clear_empty: tuple[bool, ...]) -> list[int]:
    """The fields read as the empty parcel by the first reading alone that may be a tile's washed by glare: in a
    parcel another field of which shows a tile, not the empty print untouched by glare (`_Glare.clear_empty`),
    and not the empty colour to the reading allowing for glare (`_glare_classes`).

    Grey glare over a tile's field lightens it toward the empty parcel's light colour, which the first
    reading takes; the reading allowing for glare takes the grey light out and finds the tile's colour left,
    or no class. (The empty print keeps under half of an attraction's colour off the grey axis, and little of a
    walkway's or a site's: under glare it reads as no tile's field.)
    """
    out = []
    for parcel in range(16):
        cells = parcel_cells(parcel)
        if not any(ring_class[c] in _TILE_KINDS for c in cells):
            continue
        doubtful = [c for c in cells if ring_class[c] == "empty" and not clear_empty[c] and not np.isnan(rings[c]).any()]
        if doubtful:
            readings = _glare_classes(rings[doubtful], ("empty", *_TILE_KINDS), tints[doubtful])
            out += [c for c, k in zip(doubtful, readings) if k != "empty"]
    return out


def _hammer(rb: _Board, parcel: int) -> bool:
    """True when the empty parcel's hammer shows in its middle (dark, as printed)."""
    cell = parcel_cells(parcel)[0]
    x, y, _, _ = BOARD.field_rect(cell)
    cx, cy = x + FIELD, y + FIELD
    px = _disc(rb.rect, cx, cy - _HAMMER_AT[0], _HAMMER_AT[1]).astype(np.float64).mean(axis=1)
    if bool(len(px)) and float(np.percentile(px, 10)) < _HAMMER_DARK * float(rb.white(cx, cy).mean()):
        return True
    return _hammer_under_glare(rb, cx, cy) or _hammer_handle(rb, cx, cy)


def _hammer_glared(rb: _Board, parcel: int) -> bool:
    """True when glare saturates the empty parcel's whole hammer (`_HAMMER_HIDDEN` of its head's disc, `_HAMMER_AT`,
    and of its handle's strip) and the print around it (`_HAMMER_GLARED`) shows the empty parcel's colour, pixel
    by pixel, on the pixels glare left (`_glare_votes`): no tile's colour on more than `_VOTE_OTHER` of them.

    For a parcel whose four fields read empty: the hammer only proves that no tile lies off its parcel over the
    parcel's middle, and a tile there shows its own colour under any glare that leaves the pixel unclipped. Where
    part of the hammer's place shows unclipped and no hammer, something else hides it: held.
    """
    x, y, _, _ = BOARD.field_rect(parcel_cells(parcel)[0])
    cx, cy = x + FIELD, y + FIELD
    head = _disc(rb.rect, cx, cy - _HAMMER_AT[0], _HAMMER_AT[1])
    handle = rb.rect[_px(cy + _HANDLE_SEARCH[1]):_px(cy + _HANDLE_SEARCH[2]),
                     _px(cx - _HANDLE_SEARCH[0]):_px(cx + _HANDLE_SEARCH[0])].reshape(-1, 3)
    if not len(head) or not len(handle) or any(float((px.max(axis=1) >= _CLIPPED).mean()) < _HAMMER_HIDDEN
                                                for px in (head, handle)):
        return False
    cy -= _HAMMER_AT[0]
    kinds = ("empty", *_TILE_KINDS)
    return _glare_votes(_disc(rb.rect, cx, cy, _HAMMER_GLARED), rb.white(cx, cy), rb.tint(cx, cy), kinds) == "empty"


def _hammer_handle(rb: _Board, cx: float, cy: float) -> bool:
    """True when a hammer's handle shows below the parcel's middle (``cx``, ``cy`` mm): a dark upright line, in
    every row but a few (`_HANDLE_MISS`) darker than the print either side of it (`_HANDLE_SIDE`) by `_HEAD_DROP`
    of the white in linear light, all within `_HANDLE_STRAIGHT` of one column (`_HANDLE_SEARCH`).

    Glare over the head (a streak across it) leaves the handle below it: glare adds light to the handle and
    to the print beside it alike. The parcel's printed middle line is far fainter; a finger far wider.
    """
    side = _px(_HANDLE_SIDE)
    reach = _px(_HANDLE_SEARCH[0])
    x0, x1 = _px(cx) - reach - side, _px(cx) + reach + side + 1
    y0, y1 = _px(cy + _HANDLE_SEARCH[1]), _px(cy + _HANDLE_SEARCH[2])
    if x0 < 0 or y0 < 0 or x1 > rb.rect.shape[1] or y1 > rb.rect.shape[0]:
        return False
    patch = rb.rect[y0:y1, x0:x1].astype(np.float64) / rb.white(cx, cy)
    light = (np.clip(patch, 0.0, None) ** 2.2).mean(axis=2)
    middle = light[:, side:-side]
    at = np.argmin(middle, axis=1)  # the darkest column of each row, within the search
    rows = np.arange(len(light))
    drop = np.minimum(light[rows, at], light[rows, at + 2 * side]) - middle[rows, at]
    straight = np.abs(at - np.median(at)) <= _HANDLE_STRAIGHT * _PX_PER_MM
    return bool(((drop >= _HEAD_DROP) & straight).mean() >= 1.0 - _HANDLE_MISS)


def _hammer_under_glare(rb: _Board, cx: float, cy: float) -> bool:
    """True when a hammer's head shows, under glare, above the parcel's middle (``cx``, ``cy`` mm).

    Glare adds light to the head and to the print around it alike, so the head, lighter than printed, is still
    far darker in linear light than the print just above it and just below it, across its width
    (`_HEAD_STEP`): in some row, points darker by `_HEAD_DROP` (of the white) than both the points
    `_HEAD_STEP` mm above and below them, `_HEAD_WIDTH` mm of them in all. A glare spot's light rises and falls
    once: it leaves no row darker than both sides; a thin printed line or a tile's outline drops far less.
    Saturated points count at the light they show, less than they had: they only hide a head.
    """
    step = _px(_HEAD_STEP)
    x0, x1 = _px(cx - _HEAD_SEARCH[0]), _px(cx + _HEAD_SEARCH[0])
    y0, y1 = _px(cy - _HEAD_SEARCH[1]) - step, _px(cy + _HEAD_SEARCH[2]) + step
    if x0 < 0 or y0 < 0 or x1 > rb.rect.shape[1] or y1 > rb.rect.shape[0]:
        return False
    patch = rb.rect[y0:y1, x0:x1].astype(np.float64) / rb.white(cx, cy)
    light = (np.clip(patch, 0.0, None) ** 2.2).mean(axis=2)
    drop = np.minimum(light[:-2 * step], light[2 * step:]) - light[step:-step]
    return bool((drop >= _HEAD_DROP).sum(axis=1).max() >= _px(_HEAD_WIDTH))


def _edge_ratio(rb: _Board, a: int, b_cell: int, strongest: bool = False) -> float:
    """How bright the middle of the edge between fields ``a`` and ``b_cell`` stays, as a share of the
    darker of its two sides (each side's lightest third); with ``strongest``, in the sides' strongest
    channel alone (a site showing between two pieces laid apart is hardly darker than them, but far
    less of their colour), its least taken `_EDGE_END` samples inside the span's ends: pieces laid a little
    off their fields still part within that, and a ticket lying near the edge shows at an end."""
    colours = _edge_profile(rb, a, b_cell)
    if colours.size == 0:
        return 0.0
    # the level of each side, apart: glare falling off across the edge lights one side more than the
    # other, and an outline is darker than both
    third = max(1, len(colours) // 3)
    channel = int(np.argmax(colours[:third].max(axis=0) + colours[-third:].max(axis=0)))
    profile = colours[:, channel] if strongest else colours.mean(axis=1)
    level = min(float(profile[:third].max()), float(profile[-third:].max()))
    least = profile[_EDGE_END:-_EDGE_END] if strongest and len(profile) > 2 * _EDGE_END else profile
    return float(least.min()) / max(level, 1.0)


def _outline_between(rb: _Board, a: int, b_cell: int) -> bool:
    """True when a piece's outline parts fields ``a`` and ``b_cell``: by the test two attraction fields are
    taken apart by (`_attractions`): the edge darker than `_SPLIT` of its sides, or than `_JOINED` with a line
    across it darker than `_DIP` of both its sides (`_edge_dip`); or a line across it darker than both its
    sides by `_OUTLINE_DROP` in linear light (`_edge_drop`). An attraction has no line inside it."""
    ratio = _edge_ratio(rb, a, b_cell)
    return (ratio < _SPLIT or (ratio < _JOINED and _edge_dip(rb, a, b_cell) <= _DIP)
            or _edge_drop(rb, a, b_cell) >= _OUTLINE_DROP)


def _edge_drop(rb: _Board, a: int, b_cell: int) -> float:
    """How much darker, in linear light (a share of the paper's white), the darkest line across the edge between
    fields ``a`` and ``b_cell`` is than the lighter of what lies either side of it, up to it; 0 where the darkest
    place is at an end of the span looked at (`_edge_dip`). Glare adds the same light to a line and to its sides,
    so it leaves this drop as it was, where the ratios fall towards 1; saturation only lessens it."""
    colours = _edge_profile(rb, a, b_cell)
    if colours.size == 0:
        return 0.0
    (ra, ca), (rb_, cb) = divmod(a, 8), divmod(b_cell, 8)
    x = BOARD.grid_x + (max(ca, cb) if ra == rb_ else ca + 0.5) * FIELD
    y = BOARD.grid_y + (ra + 0.5 if ra == rb_ else max(ra, rb_)) * FIELD
    light = (np.clip(colours / rb.white(x, y), 0.0, None) ** 2.2).mean(axis=1)
    i = _line_in(light)
    if i is None:
        return 0.0
    return float(min(light[:i].max(), light[i + 1:].max()) - light[i])


def _edge_dip(rb: _Board, a: int, b_cell: int) -> float:
    """How dark the darkest line across the edge between fields ``a`` and ``b_cell`` is, as a share of the
    lighter of what lies either side of it, up to it; 1 where the darkest place is at an end of the span
    looked at (a light falling off across it, glare's, makes no line: a line is darker than both sides)."""
    colours = _edge_profile(rb, a, b_cell)
    if colours.size == 0:
        return 1.0
    profile = colours.mean(axis=1)
    i = _line_in(profile)
    if i is None:
        return 1.0
    return float(profile[i]) / max(min(float(profile[:i].max()), float(profile[i + 1:].max())), 1.0)


def _line_in(profile: NDArray[Any]) -> int | None:
    """Where the darkest place of a profile across an edge is, or None where it is at an end of the span (within
    two samples): a light falling off across the edge, glare's, makes no line; a line is darker than both sides."""
    i = int(np.argmin(profile))
    return None if i < 2 or i > len(profile) - 3 else i


def _edge_profile(rb: _Board, a: int, b_cell: int) -> NDArray[Any]:
    """The colours (N, 3) across the edge between fields ``a`` and ``b_cell``, each averaged along it, from
    ``a``'s side; empty where the edge lies off the rectified board."""
    ra, ca = divmod(a, 8)
    rb_, cb = divmod(b_cell, 8)
    bx, by = BOARD.grid_x, BOARD.grid_y
    if ra == rb_:  # side by side: the edge is vertical
        ex = bx + max(ca, cb) * FIELD
        x0, x1, y0, y1 = ex - 3.0, ex + 3.0, by + ra * FIELD + 6.0, by + (ra + 1) * FIELD - 6.0
        along_x = True
    else:
        ey = by + max(ra, rb_) * FIELD
        x0, x1, y0, y1 = bx + ca * FIELD + 6.0, bx + (ca + 1) * FIELD - 6.0, ey - 3.0, ey + 3.0
        along_x = False
    patch = rb.rect[_px(y0):_px(y1), _px(x0):_px(x1)].astype(np.float64)
    if patch.size == 0:
        return np.zeros((0, 3))
    out: NDArray[Any] = patch.mean(axis=0) if along_x else patch.mean(axis=1)
    return out


def _shape_of(cells: list[int], catalog: Catalog) -> tuple[str | None, str]:
    """The box's shape the fields form, or None and why not."""
    rc = normalise([divmod(c, 8) for c in cells])
    for shape in catalog.shapes.values():
        if rc in shape.orientations:
            return shape.name, ""
    for shape in catalog.shapes.values():
        if rc in shape.mirrored:
            return None, f"the {shape.name} lies flipped over"
    return None, f"{len(cells)} attraction fields in a shape the box has not"


def _tiles_by_art(rb: _Board, ring: list[str | None]) -> dict[int, str]:
    """The foundation tile (its pattern) of each parcel an enrolled deck is sure of, by parcel.

    Asked for every parcel that is not plainly empty; the parcel is cut from the rectified
    board, upright (tiles are never turned). A piece lying on the tile hides part of it:
    the deck is then unsure and the colours read the parcel as before.
    """
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    asked: list[int] = []
    crops = []
    w, h = getattr(rb.classifier, "crop_size", (48, 48))
    for parcel in range(16):
        cells = parcel_cells(parcel)
        if all(ring[c] == "empty" for c in cells):
            continue
        r, c = divmod(cells[0], 8)
        crop = rb.rect[y0 + r * n:y0 + (r + 2) * n, x0 + c * n:x0 + (c + 2) * n]
        if crop.shape[:2] != (2 * n, 2 * n):
            continue
        asked.append(parcel)
        crops.append(cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA))
    if not asked:
        return {}
    out: dict[int, str] = {}
    for parcel, rec in zip(asked, rb.classifier.classify(np.stack(crops), 0.0)):
        if rec.label is not None and rec.label in rb.catalog.foundations:
            out[parcel] = rec.label
    return out


class _FieldArt:
    """The deck's photos of the foundation tiles, field by field: what a walkway and a site look like at each
    of a tile's four places, in the family's own art.

    Every template of the deck (an upright view of one tile, its pattern the label) is cut into its four
    fields; each field's ring (its square less a piece's reach round its middle) and middle are kept as unit
    vectors of their colours less their mean (a correlation then ignores the light's level), by place and kind;
    the middle also as one of its channels each less its mean and scaled to one standard deviation (a correlation
    then ignores a colour cast too, but sees less of the colour that tells a walkway from a site).
    """

    def __init__(self, templates: NDArray[Any], owners: NDArray[Any], labels: tuple[str, ...]) -> None:
        h, w = templates.shape[1:3]
        self.size = (w, h)
        self.ring, self.middle = self._masks(h // 2, w // 2)
        self.trend, self.mid_trend = self._trend(self.ring), self._trend(self.middle)
        rings, mids, casts, smooths, mid_smooths, kinds, places = [], [], [], [], [], [], []
        for t, owner in zip(templates, owners):
            pattern = labels[int(owner)].replace("/", "")
            if len(pattern) != 4 or set(pattern) - {"w", "s"}:
                continue
            big = self.prepared(t)
            for q in range(4):
                ring, mid, cast = self.vectors(t, q, big=big)  # (the crop, not the template, is moved)
                field = self._field(t, q, (0, 0), big)
                smooths.append(self._smooth_vector(field))
                mid_smooths.append(self._smooth_vector(field, middle=True))
                rings.append(ring)
                mids.append(mid)
                casts.append(cast)
                kinds.append(pattern[q])
                places.append(q)
        self.rings = np.asarray(rings, np.float32)
        self.mids = np.asarray(mids, np.float32)
        self.casts = np.asarray(casts, np.float32)
        self.smooths = np.asarray(smooths, np.float32)
        self.mid_smooths = np.asarray(mid_smooths, np.float32)
        self.kinds = np.asarray(kinds)
        self.places = np.asarray(places, np.intp)
        # a photo whose tile enrolment cut wrongly (one field taken for the tile, or the tile turned) shows
        # fields unlike their kind's in the other photos: every field of a template must be nearer its own
        # kind's fields at that place, in the other templates, than the other kind's, or the template is dropped
        if len(self.rings) >= 8:
            which = np.repeat(np.arange(len(self.rings) // 4), 4)
            corr = self.rings @ self.rings.T
            corr[which[:, None] == which[None, :]] = -2.0
            same_place = self.places[:, None] == self.places[None, :]
            same_kind = self.kinds[:, None] == self.kinds[None, :]
            own = np.where(same_place & same_kind, corr, -2.0).max(axis=1)
            other = np.where(same_place & ~same_kind, corr, -2.0).max(axis=1)
            good = np.ones(len(self.rings) // 4, bool)
            good[which[own <= other]] = False
            keep = good[which]
            self.rings, self.mids, self.casts = self.rings[keep], self.mids[keep], self.casts[keep]
            self.smooths, self.mid_smooths = self.smooths[keep], self.mid_smooths[keep]
            self.kinds, self.places = self.kinds[keep], self.places[keep]

    @staticmethod
    def _masks(h: int, w: int) -> tuple[NDArray[Any], NDArray[Any]]:
        yy, xx = np.mgrid[:h, :w] + 0.5
        u, v = (xx - w / 2) / w * FIELD, (yy - h / 2) / h * FIELD  # mm from the field's middle
        inner = np.maximum(np.abs(u), np.abs(v)) < FIELD / 2 - _RING_MARGIN  # the tile's rim and seams left out
        return inner & (np.hypot(u, v) > _ART_PIECE), np.hypot(u, v) < _ART_PIECE - 1.0

    @staticmethod
    def _trend(mask: NDArray[Any]) -> NDArray[Any]:
        """The projection (pixels by pixels of ``mask``) onto a quadratic in the field's coordinates."""
        h, w = mask.shape
        yy, xx = np.mgrid[:h, :w] + 0.5
        u, v = ((xx - w / 2) / w)[mask], ((yy - h / 2) / h)[mask]
        a = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
        return np.asarray(a @ np.linalg.pinv(a), np.float32)

    def _smooth_vector(self, field: NDArray[Any], middle: bool = False) -> NDArray[Any]:
        """The unit vector of a field's ring (or ``middle``) with each channel's best quadratic over it taken out."""
        px = field[self.middle if middle else self.ring].astype(np.float32)
        v = (px - (self.mid_trend if middle else self.trend) @ px).ravel()
        v = v - v.mean()
        return np.asarray(v / max(float(np.linalg.norm(v)), 1e-6))

    def smooth(self, tile: NDArray[Any], place: int, middle: bool = False,
               big: NDArray[Any] | None = None) -> dict[str, float]:
        """The best correlation of field ``place``'s ring (or ``middle``), a smooth light taken out
        (`_smooth_vector`), with each kind's at that place so treated, the field moved by up to `_ART_SHIFT` pixels
        (``big``: the tile already `prepared`)."""
        big = self.prepared(tile) if big is None else big
        moves = range(-_ART_SHIFT, _ART_SHIFT + 1)
        looks = np.stack([self._smooth_vector(self._field(tile, place, (dx, dy), big), middle)
                          for dx in moves for dy in moves])
        bank = self.mid_smooths if middle else self.smooths
        out = {}
        for kind in ("w", "s"):
            sel = (self.places == place) & (self.kinds == kind)
            out[kind] = float((bank[sel] @ looks.T).max()) if sel.any() else -1.0
        return out

    @staticmethod
    def prepared(tile: NDArray[Any]) -> NDArray[Any]:
        """``tile`` blurred by `_ART_BLUR` of a field and padded by `_ART_SHIFT` pixels (for `vectors`)."""
        m = _ART_SHIFT
        blurred = cv2.GaussianBlur(tile.astype(np.float32), (0, 0), _ART_BLUR * tile.shape[1] / 2)
        return np.asarray(cv2.copyMakeBorder(blurred, m, m, m, m, cv2.BORDER_REPLICATE))

    def vectors(self, tile: NDArray[Any], place: int, shift: tuple[int, int] = (0, 0),
                big: NDArray[Any] | None = None) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        """The ring's, the middle's and the middle's with its channels each standardised (`_ART_FLAT`) unit
        vectors of field ``place`` (0..3: top row, then bottom) of ``tile``, blurred by `_ART_BLUR` of a field, the
        field cut ``shift`` (dx, dy) pixels off its place (``big``: the tile already `prepared`)."""
        field = self._field(tile, place, shift, self.prepared(tile) if big is None else big)
        return self._vector(field, 0), self._vector(field, 1), self._vector(field, 2)

    @staticmethod
    def _field(tile: NDArray[Any], place: int, shift: tuple[int, int], big: NDArray[Any]) -> NDArray[Any]:
        """Field ``place`` of the `prepared` ``big`` of ``tile``, cut ``shift`` (dx, dy) pixels off its place."""
        h, w = tile.shape[0] // 2, tile.shape[1] // 2
        r, c = divmod(place, 2)
        y0, x0 = _ART_SHIFT + r * h + shift[1], _ART_SHIFT + c * w + shift[0]
        return big[y0:y0 + h, x0:x0 + w]

    def _vector(self, field: NDArray[Any], which: int) -> NDArray[Any]:
        """The unit vector of a field's ring (``which`` 0), middle (1) or middle standardised channel by channel (2)."""
        if which == 2:
            mid = field[self.middle]
            v = ((mid - mid.mean(axis=0)) / np.maximum(mid.std(axis=0), _ART_FLAT)).ravel()
        else:
            v = field[self.middle if which else self.ring].ravel()
        v = v - v.mean()
        return np.asarray(v / max(float(np.linalg.norm(v)), 1e-6))

    def best(self, tile: NDArray[Any], place: int, middle: bool = False, cast: bool = False,
             big: NDArray[Any] | None = None) -> dict[str, float]:
        """The best correlation of a field's ring (or middle; ``cast``: its channels each standardised) with each
        kind's at that place, the field moved by up to `_ART_SHIFT` pixels (a tile lies a little off its parcel;
        ``big``: the tile already `prepared`)."""
        which = 2 if cast else 1 if middle else 0
        big = self.prepared(tile) if big is None else big
        moves = range(-_ART_SHIFT, _ART_SHIFT + 1)
        looks = np.stack([self._vector(self._field(tile, place, (dx, dy), big), which) for dx in moves for dy in moves])
        bank = (self.rings, self.mids, self.casts)[which]
        out = {}
        for kind in ("w", "s"):
            sel = (self.places == place) & (self.kinds == kind)
            out[kind] = float((bank[sel] @ looks.T).max()) if sel.any() else -1.0
        return out

    def kind(self, tile: NDArray[Any], place: int, big: NDArray[Any] | None = None) -> str | None:
        """The kind (``w`` or ``s``) field ``place`` of ``tile`` (the deck's crop size) clearly shows, or None; a
        ring the art leaves unsure is judged again with a smooth light (glare, a shadow) taken out (`smooth`).
        ``big``: the tile already `prepared` (a parcel's four fields are read from one)."""
        big = self.prepared(tile) if big is None else big
        got = self.best(tile, place, big=big)
        kind, other = ("w", "s") if got["w"] >= got["s"] else ("s", "w")
        if got[kind] >= _ART_MATCH and got[kind] - got[other] >= _ART_MARGIN:
            return kind
        got = self.smooth(tile, place, big=big)
        kind, other = ("w", "s") if got["w"] >= got["s"] else ("s", "w")
        return kind if got[kind] >= _ART_SMOOTH_MATCH and got[kind] - got[other] >= _ART_SMOOTH_MARGIN else None

    def bare(self, tile: NDArray[Any], place: int, kind: str) -> bool:
        """True when the middle of field ``place`` of ``tile`` shows its ``kind``'s own art (as it is, its
        channels each standardised, or a smooth light taken out): nothing lies on it."""
        other = "s" if kind == "w" else "w"
        big = self.prepared(tile)
        for cast, least in ((False, _ART_BARE), (True, _ART_BARE_CAST)):  # (the standardised middle only if needed)
            got = self.best(tile, place, middle=True, cast=cast, big=big)
            if got[kind] >= least and got[kind] - got[other] >= _ART_MARGIN:
                return True
        got = self.smooth(tile, place, middle=True, big=big)
        return got[kind] >= _ART_SMOOTH_BARE and got[kind] - got[other] >= _ART_SMOOTH_BARE_MARGIN


_FIELD_ART: dict[int, tuple[Any, _FieldArt]] = {}


def _field_art(classifier: Any) -> _FieldArt | None:
    """The `_FieldArt` of an enrolled deck (built once per deck), None for a reader without templates."""
    templates = getattr(classifier, "templates", None)
    owners = getattr(classifier, "template_owners", None)
    labels = getattr(classifier, "labels", None)
    if templates is None or owners is None or labels is None or templates.ndim != 4:
        return None
    kept = _FIELD_ART.get(id(classifier))
    if kept is None or kept[0] is not classifier:
        art = _FieldArt(templates, owners, tuple(labels))
        if not len(art.rings):
            return None
        _FIELD_ART.clear()  # one deck at a time: a table's recogniser keeps its deck
        kept = _FIELD_ART[id(classifier)] = (classifier, art)
    return kept[1]


def _parcel_crop(rb: _Board, parcel: int, size: tuple[int, int]) -> NDArray[Any] | None:
    """The parcel cut from the rectified board, upright, at ``size`` (the deck's crop); None off the board."""
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    r, c = divmod(parcel_cells(parcel)[0], 8)
    crop = rb.rect[y0 + r * n:y0 + (r + 2) * n, x0 + c * n:x0 + (c + 2) * n]
    if crop.shape[:2] != (2 * n, 2 * n):
        return None
    return np.asarray(cv2.resize(crop, size, interpolation=cv2.INTER_AREA))


def _fields_by_art(rb: _Board, parcel: int, ring: list[str | None], chars: list[str], art: _FieldArt) -> bool:
    """The fields of a parcel the deck was unsure of, read by the deck's art field by field (`_FieldArt.kind`);
    a field whose ring shows an attraction lies over a site. Fields the art and the printed colours read
    differently are unclear. The parcel's fields are set (and True returned) when the four form a tile of the
    box; else only those some tile of the box has there, when every field read clearly agrees with one."""
    crop = _parcel_crop(rb, parcel, art.size)
    if crop is None:
        return False
    cells = parcel_cells(parcel)
    seen = []
    big = art.prepared(crop)
    for q, c in enumerate(cells):
        by_colour = {"walkway": "w", "site": "s", "attraction": "s"}.get(ring[c] or "")
        by_art = art.kind(crop, q, big)
        if ring[c] == "attraction":  # a piece over the field hides its art; an attraction lies on a site
            by_art = "s" if by_art != "w" else "?"
        seen.append(by_art if by_art is not None and by_colour in (None, by_art) else "?")
    pattern = "".join(seen)
    if f"{pattern[:2]}/{pattern[2:]}" in rb.catalog.foundations:
        for c, letter in zip(cells, pattern):
            chars[c] = letter
            if ring[c] != "attraction":
                ring[c] = "walkway" if letter == "w" else "site"
        return True
    if all(s == "?" for s in seen) or not any(all(x in ("?", t) for x, t in zip(seen, tile.replace("/", "")))
                                              for tile in rb.catalog.foundations):
        return False
    for c, letter in zip(cells, seen):
        if letter != "?":
            chars[c] = letter
            if ring[c] != "attraction":
                ring[c] = "walkway" if letter == "w" else "site"
    return False


def _art_disagrees(rb: _Board, parcel: int, pattern: str, ring: list[str | None], art: _FieldArt) -> bool:
    """True when a field of the parcel clearly shows, by the deck's art, the other kind than the tile ``pattern``
    the deck named has there, or an attraction lies where it has a walkway; or when more than `_ART_UNSEEN` of its
    fields show their kind neither by the art nor by the colours (glare washing half a tile out): the name then
    rests on two fields, which up to four tiles of the box share."""
    letters = list(zip(parcel_cells(parcel), pattern.replace("/", "")))
    if any(ring[c] == "attraction" and letter != "s" for c, letter in letters):
        return True  # an attraction is built on sites only
    crop = _parcel_crop(rb, parcel, art.size)
    if crop is None:
        return False
    by_colour = {"walkway": "w", "site": "s"}
    unseen = 0
    big = art.prepared(crop)
    for q, (c, letter) in enumerate(letters):
        if ring[c] == "attraction":
            continue
        by_art = art.kind(crop, q, big)
        if by_art not in (None, letter):
            return True
        unseen += by_art is None and by_colour.get(ring[c] or "") != letter
    return unseen > _ART_UNSEEN


def _art_shows_bare(rb: _Board, art: _FieldArt, field: int, char: str) -> bool:
    """True when the family's tile art (``art``) shows ``field``'s own bare print of kind ``char`` there: no piece
    lies on it."""
    parcel = next(p for p in range(16) if field in parcel_cells(p))
    crop = _parcel_crop(rb, parcel, art.size)
    return crop is not None and art.bare(crop, parcel_cells(parcel).index(field), char)


def _read_part(rb: _Board, parcel: int, kinds: list[str | None], chars: list[str], glare: _Glare) -> None:
    """The fields of a parcel partly unclear (a hand, glare) that can still be read on their own.

    A tile covers all four fields of its parcel, so when the fields that are clear show the empty
    parcel and its hammer is in view, or one shows that print untouched by glare and the unclear ones are
    blown out by glare (`_empty_under_glare`), the parcel is empty; fields that clearly show a tile's walkway
    or site are
    that, when some tile of the box has them there; the unclear fields stay unread. A parcel
    showing both, or a tile no tile of the box matches, stays unread as a whole.
    """
    known = [k for k in kinds if k is not None]
    if not known:
        return
    cells = parcel_cells(parcel)
    if all(k == "empty" for k in known):
        # a tile covers its whole parcel, and one lying off it would hide the hammer at the parcel's
        # middle: fields unclear beside clearly empty ones, the hammer in view (or a field's bare print), are
        # empty too
        if _hammer(rb, parcel) or _empty_under_glare(parcel, kinds, glare):
            for c in cells:
                chars[c] = "."
        return
    if "empty" in known:
        return
    seen = ["w" if k == "walkway" else "s" if k is not None else "?" for k in kinds]
    if not any(all(s in ("?", t) for s, t in zip(seen, tile.replace("/", ""))) for tile in rb.catalog.foundations):
        return
    for c, s in zip(cells, seen):
        if s != "?":
            chars[c] = s


def _empty_under_glare(parcel: int, kinds: list[str | None], glare: _Glare) -> bool:
    """True when a parcel whose hammer does not show is empty all the same: one of its fields shows the
    empty parcel's print untouched by glare (`_Glare.clear_empty`), and every other field reads empty or
    is blown out by glare.

    A tile covers all four fields of its parcel, so one field of bare print, no glare on it, proves no tile
    lies there; glare hides no piece an empty parcel may hold (none may stand on it). A field unclear for
    another reason (a hand, a shadow: a tile being laid) keeps the parcel held.
    """
    cells = parcel_cells(parcel)
    return (any(glare.clear_empty[c] for c in cells)
            and all(k == "empty" or (k is None and glare.blown[c]) for c, k in zip(cells, kinds)))


def _centre(rect: tuple[float, float, float, float]) -> tuple[float, float]:
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def _read_market(rb: _Board) -> tuple[list[str], list[tuple[str, int, int]]]:
    ring, mids, rings, least_middle, clipped_middle, glare = _read_fields(rb)
    chars = ["?"] * 64
    by_art = _tiles_by_art(rb, ring) if rb.classifier is not None else {}
    art = _field_art(rb.classifier) if rb.classifier is not None else None
    #: the fields whose kind the family's tile art gave (the deck), whose middles that art judges
    art_fields: set[int] = set()
    # parcels: empty (with its hammer) or one of the box's tiles
    for parcel in range(16):
        cells = parcel_cells(parcel)
        kinds = [ring[c] for c in cells]
        where = f"the parcel at {cell_name(cells[0])}"
        whole = mask_of(cells)
        if parcel in by_art and art is not None and _art_disagrees(rb, parcel, by_art[parcel], ring, art):
            del by_art[parcel]  # the deck's name and the tile's fields do not agree: read field by field
        if parcel in by_art:
            pattern = by_art[parcel].replace("/", "")
            for c, letter in zip(cells, pattern):
                chars[c] = letter
                art_fields.add(c)
                if ring[c] in (None, "empty"):  # the tile's own colours, not the print's
                    ring[c] = "walkway" if letter == "w" else "site"
            continue
        if art is not None and not all(k == "empty" for k in kinds):
            whole_by_art = _fields_by_art(rb, parcel, ring, chars, art)
            art_fields.update(c for c in cells if chars[c] in ("w", "s"))
            if whole_by_art:
                continue
            if any(chars[c] in ("w", "s") for c in cells):
                bad = [cell_name(c) for c in cells if chars[c] == "?"]
                if bad:
                    rb.problem(where, f"the colour of {', '.join(bad)} is unclear (glare, a shadow, a hand?)",
                               mask_of([c for c in cells if chars[c] == "?"]))
                continue
        if any(k is None for k in kinds):
            _read_part(rb, parcel, kinds, chars, glare)
            bad = [cell_name(c) for c, k in zip(cells, kinds) if k is None and chars[c] == "?"]
            if bad:
                rb.problem(where, f"the colour of {', '.join(bad)} is unclear (glare, a shadow, a hand?)",
                           mask_of([c for c in cells if chars[c] == "?"]))
            continue
        if all(k == "empty" for k in kinds):
            if _hammer(rb, parcel) or _empty_under_glare(parcel, kinds, glare) or _hammer_glared(rb, parcel):
                for c in cells:
                    chars[c] = "."
            else:
                rb.problem(where, "looks empty but its hammer does not show", whole)
            continue
        if "empty" in kinds:
            rb.problem(where, "partly empty: a tile lies off its parcel?", whole)
            continue
        pattern = "".join("w" if k == "walkway" else "s" for k in kinds)
        pattern = f"{pattern[:2]}/{pattern[2:]}"
        if pattern not in rb.catalog.foundations:
            rb.problem(where, f"reads {pattern}, not a foundation tile of the box", whole)
            continue
        for c, k in zip(cells, kinds):
            chars[c] = "w" if k == "walkway" else "s"
    # what lies on each field
    attraction_cells: list[int] = []
    tickets: set[int] = set()
    centres = np.array([_centre(BOARD.field_rect(c)) for c in range(64)])
    tints = _glare_tint(np.maximum(_design(centres) @ rb.coef, 1.0))
    # a piece only the readings allowing for glare find is taken where glare of the tint explains it: grey glare
    # over a hand's skin came near a barker's red (the white balance tints the glare the camera sees)
    on_walkway = _classify_many(mids, ("walkway", "guest", "barker"), glare=True, tint=tints, tinted=_PIECES)
    on_site = _classify_many(mids, ("site", "guest"), glare=True, tint=tints, tinted=_PIECES)
    on_attraction = _classify_many(mids, ("attraction", "ticket"), glare=True, tint=tints, tinted=_PIECES)
    near = {"walkway": ("guest", "barker"), "site": ("guest",), "attraction": ("ticket",)}
    readings = {"walkway": on_walkway, "site": on_site, "attraction": on_attraction}
    for c in range(64):
        if chars[c] == "?" or chars[c] == ".":
            continue
        kind = ring[c]
        where = cell_name(c)
        # a middle neither reading is sure of, that shows the field's own colour under the same glare
        # and no piece's colour beside it, holds nothing
        if (kind in near and readings[kind][c] is None and not np.isnan(rings[c]).any() and _bare(rings[c], mids[c])
                and not _guest_near(rb, BOARD.field_rect(c), near[kind])):
            readings[kind][c] = kind
        # a middle glare lights unevenly: its pixels glare lit least
        if kind is not None and kind in near and readings[kind][c] is None:
            least = least_middle(c)
            if least is not None:
                readings[kind][c] = _classify_many(least[None], (kind, *near[kind]), glare=True, tint=tints[c],
                                                   tinted=_PIECES)[0]
        # a middle glare clipped in one channel: the two others
        if kind is not None and kind in near and readings[kind][c] is None:
            readings[kind][c] = clipped_middle(c, (kind, *near[kind]))
        # (the field's kind where the family's own tile art gave it)
        art_kind = kind if art is not None and c in art_fields and kind in ("walkway", "site") else None
        # on such a field a piece the colours found only by allowing for glare is not taken (that reading takes
        # the field under it to be the print's, not the family's art: glare over a lavender walkway reads as a
        # guest): the field is judged by its art as one the colours left unread
        if (art_kind is not None and readings[art_kind][c] not in (None, art_kind)
                and _classify_many(mids[c][None], (art_kind, *near[art_kind]))[0] != readings[art_kind][c]):
            readings[art_kind][c] = None
        if art is not None and art_kind is not None:
            # its middle as that art shows it there
            if readings[art_kind][c] is None and not _guest_near(rb, BOARD.field_rect(c), near[art_kind]):
                if _art_shows_bare(rb, art, c, chars[c]):
                    readings[art_kind][c] = art_kind
            # ... and a piece the colours found where that art shows the field's own bare print: unclear (a piece
            # would hide the print; the light gave the colour)
            elif readings[art_kind][c] not in (None, art_kind) and _art_shows_bare(rb, art, c, chars[c]):
                readings[art_kind][c] = None
        if kind == "walkway":
            mid = on_walkway[c]
            if mid is None:
                rb.problem(where, "something on the walkway that is not clearly a guest or a barker", 1 << c)
                chars[c] = "?"
            elif mid != "walkway":
                chars[c] = "g" if mid == "guest" else "b"
        elif kind == "site":
            mid = on_site[c]
            if mid is None:
                rb.problem(where, "something on the site that is not clearly a guest", 1 << c)
                chars[c] = "?"
            elif mid == "guest":
                chars[c] = "G"
        else:
            attraction_cells.append(c)
            mid = on_attraction[c]
            if mid is None:
                rb.problem(where, "something on the attraction that is not clearly a ticket", 1 << c)
                chars[c] = "?"
            elif mid == "ticket":
                tickets.add(c)
    attractions = _attractions(rb, attraction_cells, tickets, chars)
    return ["".join(chars[r * 8:(r + 1) * 8]) for r in range(8)], attractions


def _attractions(rb: _Board, cells: list[int], tickets: set[int], chars: list[str]) -> list[tuple[str, int, int]]:
    """The pieces over the attraction fields: joined where no outline lies between two fields."""
    members = set(cells)
    parent = {c: c for c in cells}

    def root(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    unsure: set[int] = set()
    unclear: list[tuple[int, int]] = []
    for c in cells:
        for d in (c + 1, c + 8):
            if d not in members or (d == c + 1 and c % 8 == 7):
                continue
            ratio = _edge_ratio(rb, c, d)
            # another colour between them, though no outline: pieces laid apart, or a finger over one
            if ratio >= _JOINED and _edge_ratio(rb, c, d, strongest=True) >= _SPLIT:
                parent[root(d)] = root(c)
            elif ratio > _SPLIT and _edge_dip(rb, c, d) > _DIP:
                unclear.append((c, d))
    # an outline neither clearly there nor clearly not: decided where one way alone gives pieces of the box, each
    # with one first field at most (its badge)
    touched = {root(c) for edge in unclear for c in edge}
    marked = frozenset(c for c in cells if root(c) in touched and _marked(rb, c))
    joined, unsettled = _settle_by_shapes(unclear, {c: root(c) for c in cells}, rb.catalog, marked)
    for c, d in joined:
        parent[root(d)] = root(c)
    for c, d in unsettled:
        unsure.update((c, d))
        rb.problem(f"{cell_name(c)}-{cell_name(d)}", "cannot tell whether one attraction or two lie here",
                   (1 << c) | (1 << d))
    groups: dict[int, list[int]] = {}
    for c in cells:
        groups.setdefault(root(c), []).append(c)
    out: list[tuple[str, int, int]] = []
    held: list[int] = []
    for group in groups.values():
        group.sort()
        # fields clearly under an attraction are sites whichever piece covers them: a piece not
        # wholly in view, or whose outline is unclear, is held, its clear fields are still read
        if unsure & set(group) or any(chars[c] == "?" for c in group):
            held.append(mask_of(group))
            continue
        if any(_runs_on(rb, c, chars) for c in group) and _may_reach(rb, group, members, chars):
            rb.problem(cell_name(group[0]), "the attraction may reach onto a field that cannot be read", mask_of(group))
            continue
        shape, why = _shape_of(group, rb.catalog)
        if shape is None:
            rb.problem(cell_name(group[0]), why, mask_of(group))
            for c in group:
                chars[c] = "?"
            continue
        out.append((shape, mask_of(group), sum(1 for c in group if c in tickets)))
    # a problem that holds a field of a piece not read whole holds the piece's other fields too
    rb.problems = [replace(u, fields=u.fields | sum(g for g in held if g & u.fields)) for u in rb.problems]
    return sorted(out, key=lambda a: (a[1] & -a[1]))


def _settle_by_shapes(unclear: list[tuple[int, int]], groups: dict[int, int], catalog: Catalog,
                      marked: frozenset[int] = frozenset()) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The unclear edges between attraction fields (``unclear``) that the box's shapes settle: those to join,
    and those left unsettled.

    ``groups``: each attraction field's piece as the clear edges join them. The unclear edges that touch one
    another's pieces are settled together: every way of taking each as an outline or not is tried, and a way
    is possible when every piece it makes is one of the box's shapes, lying right or flipped over (a player
    may lay one flipped), with each edge taken as an outline between two pieces, and holds at most one of the
    ``marked`` fields (a piece's badge, printed on its first field alone: `_marked`). Where exactly one way is
    possible and it lays no piece flipped, the pieces cannot lie otherwise; else every edge of them stays
    unsettled. (At most `_MAX_UNCLEAR` edges together are tried; more stay unsettled.)
    """
    shapes = [s for shape in catalog.shapes.values() for s in (shape.orientations, shape.mirrored)]
    proper = [shape.orientations for shape in catalog.shapes.values()]
    # the unclear edges that touch one another's pieces, together
    clusters: list[tuple[set[int], list[tuple[int, int]]]] = []
    for c, d in unclear:
        pieces = {groups[c], groups[d]}
        touching = [k for k in clusters if k[0] & pieces]
        merged = (pieces.union(*(k[0] for k in touching)), [e for k in touching for e in k[1]] + [(c, d)])
        clusters = [k for k in clusters if not k[0] & pieces] + [merged]
    joined: list[tuple[int, int]] = []
    unsettled: list[tuple[int, int]] = []
    for pieces, edges in clusters:
        if len(edges) > _MAX_UNCLEAR:
            unsettled += edges
            continue
        fields = [c for c, g in groups.items() if g in pieces]
        possible: list[tuple[int, bool]] = []
        for way in range(1 << len(edges)):
            part = {g: g for g in pieces}

            def find(g: int, part: dict[int, int] = part) -> int:
                while part[g] != g:
                    g = part[g]
                return g

            for k, (c, d) in enumerate(edges):
                if way >> k & 1:
                    part[find(groups[c])] = find(groups[d])
            if any(not way >> k & 1 and find(groups[c]) == find(groups[d]) for k, (c, d) in enumerate(edges)):
                continue  # an outline inside one piece
            made: dict[int, list[tuple[int, int]]] = {}
            for c in fields:
                made.setdefault(find(groups[c]), []).append(divmod(c, 8))
            badges = [find(groups[c]) for c in fields if c in marked]
            if len(badges) != len(set(badges)):
                continue  # two first fields in one piece
            lying = [normalise(rc) for rc in made.values()]
            if all(any(rc in s for s in shapes) for rc in lying):
                possible.append((way, all(any(rc in s for s in proper) for rc in lying)))
        if len(possible) == 1 and possible[0][1]:
            joined += [e for k, e in enumerate(edges) if possible[0][0] >> k & 1]
        else:
            unsettled += edges
    return joined, unsettled


def _marked(rb: _Board, cell: int) -> bool:
    """True when an attraction's badge shows in a corner of field ``cell`` (`_MARK_AT`): the field is the first
    of its piece, whatever its turn."""
    x, y, w, h = BOARD.field_rect(cell)
    for cx in (x + _MARK_AT, x + w - _MARK_AT):
        for cy in (y + _MARK_AT, y + h - _MARK_AT):
            raw = _disc(rb.rect, cx, cy, _MARK_RADIUS).astype(np.float64)
            c = raw / rb.white(cx, cy)
            seen = ((raw.max(axis=1) < _CLIPPED) & (c.mean(axis=1) < _MARK_DARK)
                    & (c[:, 2] - c[:, 1] > _MARK_CHROMA) & (c[:, 0] - c[:, 1] > _MARK_CHROMA))
            if len(seen) and float(seen.mean()) >= _MARK_SHARE:
                return True
    return False


def _may_reach(rb: _Board, group: list[int], attraction: set[int], chars: list[str]) -> bool:
    """True when the piece over the attraction fields ``group`` could also cover fields that cannot be read.

    The fields it could reach are those unread (``"?"``) that no outline parts from it, and those unread
    beside them. It could, when the group with some of them, joined, makes one of the box's shapes (lying
    right or flipped over), or when one of them lies beside another of the ``attraction`` fields with no
    outline between (the piece could join them). Else no piece of the box reaches there: the group is
    read on its own.
    """
    largest = max(len(rc) for shape in rb.catalog.shapes.values() for rc in shape.orientations)
    shapes = [rc for shape in rb.catalog.shapes.values() for rc in (*shape.orientations, *shape.mirrored)]
    members = set(group)

    def unread(cell: int) -> list[int]:
        row, col = divmod(cell, 8)
        return [r * 8 + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < 8 and 0 <= c < 8 and chars[r * 8 + c] == "?"]

    reach = {d for c in group for d in unread(c) if not _outline_between(rb, c, d)}
    frontier = set(reach)
    for _ in range(largest - len(group) - 1):
        frontier = {e for d in frontier for e in unread(d)} - reach
        reach |= frontier
    for d in reach:
        row, col = divmod(d, 8)
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            e = r * 8 + c
            if (0 <= r < 8 and 0 <= c < 8 and e in attraction and e not in members
                    and not _outline_between(rb, d, e)):
                return True
    # every connected way of adding some of the reachable fields, up to the largest piece of the box
    seen: set[frozenset[int]] = set()
    ways = [frozenset(members)]
    while ways:
        grown: list[frozenset[int]] = []
        for way in ways:
            if len(way) >= largest:
                continue
            for c in way:
                row, col = divmod(c, 8)
                for r, k in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                    d = r * 8 + k
                    if 0 <= r < 8 and 0 <= k < 8 and d in reach and d not in way:
                        bigger = way | {d}
                        if bigger in seen:
                            continue
                        seen.add(bigger)
                        if normalise([divmod(e, 8) for e in bigger]) in shapes:
                            return True
                        grown.append(bigger)
        ways = grown
    return False


def _runs_on(rb: _Board, cell: int, chars: list[str]) -> bool:
    """True when a field next to ``cell`` could not be read and no outline parts them."""
    row, col = divmod(cell, 8)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < 8 and 0 <= c < 8 and chars[r * 8 + c] == "?" and not _outline_between(rb, cell, r * 8 + c):
            return True
    return False


def _guest_near(rb: _Board, rect: tuple[float, float, float, float], pieces: tuple[str, ...] = ("guest",)) -> bool:
    """True when a piece's colour (a guest's, or one of ``pieces``) shows near the middle of a place read
    empty: within a piece's reach of it (`_NEAR_RADIUS`), on at least `_NEAR_SHARE` of the pixels. Where
    the board's position is off by a few millimetres (a corner marker hidden, the lens's barrel), a
    piece lying there shows beside the middle read, not in it."""
    x, y, w, h = rect
    f = _features(rb.pixels(x + w / 2, y + h / 2, _NEAR_RADIUS))[:, :3]
    protos = _prototypes()
    return any(float((np.linalg.norm(f - protos[k][None, :3], axis=1) < _NEAR_DISTANCE).mean()) >= _NEAR_SHARE
               for k in pieces)


def _bare(ring: NDArray[Any], middle: NDArray[Any]) -> bool:
    """True when a field's middle shows its ring's own colour: nothing lies on it.

    Glare adds grey light to both (`_glare_classes`), so their difference in linear light keeps no
    more than a grey part where nothing lies on the field; a piece on it leaves its own colour's
    difference from the field's, far off the grey axis (`_BARE`).
    """
    d = np.clip(middle, 0.0, None) ** 2.2 - np.clip(ring, 0.0, None) ** 2.2
    return bool(np.linalg.norm(d - (d @ _GREY) * _GREY) < _BARE)


@dataclass(frozen=True, slots=True)
class _Places:
    """The places off the market's grid: entrances, the tent (its count and each place), the action numbers
    (those holding a figure, and each number's box) and the trick places (a count and each place)."""

    entrances: tuple[bool | None, bool | None]
    tent: int | None
    numbers: frozenset[int] | None
    tricks: int | None
    tent_places: tuple[bool | None, ...]
    number_figures: tuple[bool | None, ...]
    trick_figures: tuple[bool | None, ...]


def _read_places(rb: _Board, view_seat: int) -> _Places:
    """The entrances, the tent, the action numbers and the trick places."""
    b = BOARD

    def middle(rect: tuple[float, float, float, float]) -> NDArray[Any]:
        x, y = _centre(rect)
        return _unclipped_colour(_disc(rb.rect, x, y, _MIDDLE_RADIUS + 0.5), rb.white(x, y))

    def clipped(rect: tuple[float, float, float, float], allowed: tuple[str, ...]) -> str | None:
        x, y = _centre(rect)
        pixels, white, tint = _disc(rb.rect, x, y, _MIDDLE_RADIUS + 0.5), rb.white(x, y), rb.tint(x, y)
        k = _glared_place(pixels, white, tint, allowed)
        # (glare saturating part of it: its pixels one by one, within the disc a guest always covers, as a
        # field's middle is read)
        if k is None and float(_glare_clipped(pixels[None], white[None]).mean()) >= _VOTE_CLIPPED:
            k = _glare_votes(_disc(rb.rect, x, y, _VOTE_RADIUS), white, tint, allowed, _VOTE_FIT)
        return k

    entrances: list[bool | None] = []
    rects = [b.entrance_rect(cell % 8) for cell in rb.catalog.entrance_cells]
    colours = np.array([middle(r) for r in rects])
    tints = np.array([rb.tint(*_centre(r)) for r in rects])
    for number, (cell, k) in enumerate(zip(rb.catalog.entrance_cells,
                                           _classify_many(colours, ("walkway", "guest"), glare=True, tint=tints)),
                                       start=1):
        if k is None:
            k = clipped(b.entrance_rect(cell % 8), ("walkway", "guest"))
        if k == "walkway" and _guest_near(rb, b.entrance_rect(cell % 8)):
            k = None
        if k is None:
            rb.problem(f"in{number}", "the entrance is unclear")
        entrances.append(None if k is None else k == "guest")
    tent: int | None = 0
    tent_places: list[bool | None] = []
    rects = [b.tent_rect(place) for place in range(TENT_PLACES)]
    colours = np.array([middle(r) for r in rects])
    tints = np.array([rb.tint(*_centre(r)) for r in rects])
    for place, k in enumerate(_classify_many(colours, ("tent", "guest"), glare=True, tint=tints)):
        if k is None:
            k = clipped(b.tent_rect(place), ("tent", "guest"))
        if k == "tent" and _guest_near(rb, b.tent_rect(place)):
            k = None
        tent_places.append(None if k is None else k == "guest")
        if k is None:
            rb.problem(f"tent place {place + 1}", "the place is unclear")
            tent = None
        elif k == "guest" and tent is not None:
            tent += 1
    numbers: set[int] | None = set()
    number_figures: list[bool | None] = []
    for number in range(1, 6):
        x, y = b.number_spot(number)
        on = _box_figure(rb, x, y)
        number_figures.append(on)
        if on is None:
            rb.problem(f"number {number}", "cannot tell whether a figure stands on it")
            numbers = None
        elif on and numbers is not None:
            numbers.add(number)
    tricks: int | None = 0
    trick_figures: list[bool | None] = []
    for place in range(TRICK_PLACES):
        x, y, w, h = b.trick_rect(place)
        on = _box_figure(rb, x + w / 2, y + h / 2)
        trick_figures.append(on)
        if on is None:
            rb.problem(f"trick place {place + 1}", "cannot tell whether a figure stands on it")
            tricks = None
        elif on and tricks is not None:
            tricks += 1
    return _Places((entrances[0], entrances[1]), tent, None if numbers is None else frozenset(numbers), tricks,
                   tuple(tent_places), tuple(number_figures), tuple(trick_figures))


def _box_figure(rb: _Board, x: float, y: float) -> bool | None:
    """`_figure_on` of the number or trick box whose figure stands at board point (x, y) mm; where that is unclear
    (glare saturating the box's middle), a figure in view beside the glare (`_figure_near`) stands there."""
    raw = _disc(rb.rect, x, y, _MIDDLE_RADIUS + 0.5)
    white = rb.white(x, y)

    def lit_around() -> bool:
        ys, xs = _disc_index(((x, y),), _AROUND[1], rb.rect.shape[:2])
        far = np.hypot(ys[0] / _PX_PER_MM - y, xs[0] / _PX_PER_MM - x) >= _AROUND[0]
        around = rb.rect[ys[0][far], xs[0][far]].astype(np.float64)
        return float(np.percentile(around.mean(axis=1), 90)) > _AROUND_LIT * float(white.mean())

    on = _figure_on(raw / white, _glare_clipped(raw[None], white[None])[0], rb.tint(x, y),
                    raw.max(axis=1) >= _CLIPPED, lit_around)
    if on is None and _figure_near(rb, x, y) >= _FIGURE_SEEN:
        return True
    return on


def _figure_near(rb: _Board, x: float, y: float) -> float:
    """The share of the pixels within `_FIGURE_NEAR` mm of board point (x, y) that show a figure: clipped in no
    channel, darker than paper can be (`_FIGURE_DARK` of the white: glare only adds light), and the figure's
    colour rather than the paper's both under grey glare and under glare of the tint there (`_glare_fit`, any gain
    in `_FIGURE_GAIN`: the figure's edge blurs into the paper and its shadow), or its blurred edge, the figure's
    colour blended with the paper's white, under glare of the tint (`_figure_blend`).

    Glare over a figure's middle leaves the rest of it in view; the box's print and a hand's shadow are
    neutral, a hand's skin is red, and glare over ink is the glare's own colour, far less than a figure's.
    """
    raw = _disc(rb.rect, x, y, _FIGURE_NEAR)
    colours = raw / rb.white(x, y)
    shown = (raw.max(axis=1) < _CLIPPED) & (colours.mean(axis=1) < _FIGURE_DARK)
    if not shown.any():
        return 0.0
    tint = rb.tint(x, y)
    found = _glare_fit(colours[shown], ("figure", "back"), tint[None], gain=_FIGURE_GAIN)
    grey = _glare_fit(colours[shown], ("figure", "back"), _GREY[None], gain=_FIGURE_GAIN)
    either = np.array([a == "figure" and b == "figure" for a, b in zip(found, grey)]) | _figure_blend(colours[shown], tint)
    return float(either.sum()) / len(raw)


def _figure_blend(colours: NDArray[Any], tint: NDArray[Any]) -> NDArray[Any]:
    """Which paper-normalised colours (N, 3) are a figure's edge under glare: in linear light ``e * figure + b *
    white + g * tint``, e in `_FIGURE_GAIN`, b and g not below -`_BLEND_NEGATIVE` (`_figure_near`).

    A figure's edge the lens blurs into the paper around it adds the paper's white, which glare of the tint
    (`_glare_tint`) does not give; three colours, three parts, one way to split them. Paper, its print and
    shadows are white times a gain, glare adds only the tint: neither has a figure's part. No colour is one where
    the tint lies so near the grey axis that white and glare cannot be told apart.
    """
    t = np.asarray(tint, np.float64) / np.linalg.norm(tint)
    if float(np.linalg.norm(np.cross(_GREY, t))) < _BLEND_TINT:
        return np.zeros(len(colours), bool)
    fig = (np.array(FIGURE, np.float64) / 255.0) ** 2.2
    parts = np.linalg.solve(np.stack([fig, _GREY, t], axis=1), (np.clip(colours, 0.0, None) ** 2.2).T).T
    out: NDArray[Any] = ((parts[:, 0] >= _FIGURE_GAIN[0]) & (parts[:, 0] <= _FIGURE_GAIN[1])
                         & (parts[:, 1:] >= -_BLEND_NEGATIVE).all(axis=1))
    return out


def _pose(seat: int, markers: list[Marker]) -> BoardPose | None:
    """The board's homography from its markers seen, or None when too few or they do not fit.

    Where all of them do not fit, one found in the wrong place (a print's pattern or a hand's edge read as a
    marker) is left out: the homography of the others, when exactly one such choice fits (`_MAX_FIT_MM`).
    ``seat`` -1 is the wagon row's board.
    """
    if len(markers) < _MIN_MARKERS:
        return None
    ids = WAGON_MARKER_IDS if seat < 0 else board_marker_ids(seat)
    geometry = WAGON if seat < 0 else BOARD

    def fit(chosen: list[Marker]) -> BoardPose | None:
        src = np.array([geometry.marker_corners(ids.index(m.id)) for m in chosen], np.float64).reshape(-1, 2)
        dst = np.concatenate([m.corners for m in chosen]).reshape(-1, 2)
        return _fit_pose(seat, src, dst, len(chosen))

    pose = fit(markers)
    if pose is not None or len(markers) <= _MIN_MARKERS:
        return pose
    fits = [p for p in (fit(markers[:k] + markers[k + 1:]) for k in range(len(markers))) if p is not None]
    return fits[0] if len(fits) == 1 else None


def _fit_pose(seat: int, src: NDArray[Any], dst: NDArray[Any], markers: int) -> BoardPose | None:
    """The homography taking board points ``src`` (mm) to photo points ``dst``, or None when it fits them
    worse than `_MAX_FIT_MM` (its error measured back on the board)."""
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return None
    back = cv2.perspectiveTransform(dst.reshape(1, -1, 2), np.linalg.inv(h))[0]
    err = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    if err > _MAX_FIT_MM:
        return None
    return BoardPose(seat, np.asarray(h, np.float64), markers, err)


def _outline_pose(seat: int, markers: list[Marker], gray: Image) -> BoardPose | None:
    """A market board's homography from two of its markers and its paper's outline, or None.

    Two markers fix the board only roughly far from them; the paper's four edges against the darker
    table, searched across where that rough fit puts them (`_OUTLINE_SEARCH` mm either way), fix its
    corners. Each edge needs `_OUTLINE_FOUND` of its samples to show the drop from paper to table, all
    on one line within `_OUTLINE_FIT` px; the markers must fit the final homography (`_MAX_FIT_MM`).
    """
    if len(markers) != 2:
        return None
    ids = board_marker_ids(seat)
    src = np.array([BOARD.marker_corners(ids.index(m.id)) for m in markers], np.float64).reshape(-1, 2)
    dst = np.concatenate([m.corners for m in markers]).reshape(-1, 2)
    rough, _ = cv2.findHomography(src, dst, 0)
    if rough is None:
        return None
    w, h = BOARD.width, BOARD.height
    along = np.linspace(0.12, 0.88, _OUTLINE_SAMPLES)
    steps = np.arange(-_OUTLINE_SEARCH, _OUTLINE_SEARCH + 1e-9, 0.25)
    # each edge: its samples (mm) and its outward normal
    edges = [(np.stack([along * w, np.zeros_like(along)], 1), (0.0, -1.0)),
             (np.stack([np.full_like(along, w), along * h], 1), (1.0, 0.0)),
             (np.stack([along * w, np.full_like(along, h)], 1), (0.0, 1.0)),
             (np.stack([np.zeros_like(along), along * h], 1), (-1.0, 0.0))]
    image = gray.astype(np.float32)
    lines = []
    for samples, normal in edges:
        n = np.array(normal)
        pts = samples[:, None, :] + steps[None, :, None] * n  # (S, T, 2) mm
        uv = cv2.perspectiveTransform(pts.reshape(1, -1, 2), rough)[0].astype(np.float32)
        profile = cv2.remap(image, uv[:, 0].reshape(len(samples), -1), uv[:, 1].reshape(len(samples), -1),
                            cv2.INTER_LINEAR)
        in_frame = ((uv[:, 0] >= 1) & (uv[:, 0] <= gray.shape[1] - 2) & (uv[:, 1] >= 1)
                    & (uv[:, 1] <= gray.shape[0] - 2)).reshape(len(samples), -1)
        found = []
        for k in range(len(samples)):
            # (outward the search may leave the frame: what is in it, when it reaches past where the edge should be)
            kept = int(np.argmin(in_frame[k])) if not in_frame[k].all() else len(steps)
            if not in_frame[k, :kept].all() or kept < 0.6 * len(steps):
                continue
            row = profile[k, :kept]
            # the drop across 2 mm (the lens blurs the edge), its outermost strong run: the paper's edge, not a
            # printed line inside it
            drop = row[:-_OUTLINE_WINDOW] - row[_OUTLINE_WINDOW:]
            strong = drop >= 0.5 * float(drop.max())
            last = int(np.flatnonzero(strong)[-1])
            first = last
            while first > 0 and strong[first - 1]:
                first -= 1
            i = first + int(np.argmax(drop[first:last + 1]))
            inside, outside = float(np.median(row[:i + 1])), float(np.median(row[i + _OUTLINE_WINDOW:]))
            if inside - outside < _OUTLINE_CONTRAST or drop[i] < 0.5 * (inside - outside):
                continue
            # where the profile crosses halfway from paper to table
            span = row[i:i + _OUTLINE_WINDOW + 1]
            j = int(np.argmax(span < (inside + outside) / 2))
            a = 0.0 if j == 0 else float((span[j - 1] - (inside + outside) / 2) / max(span[j - 1] - span[j], 1e-3))
            at = float(np.interp(i + j - 1 + a, np.arange(len(steps)), steps))
            found.append(cv2.perspectiveTransform((samples[k] + at * n).reshape(1, 1, 2), rough)[0, 0])
        if len(found) < _OUTLINE_FOUND * len(samples):
            return None
        line = cv2.fitLine(np.array(found, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        d, p0 = line[:2], line[2:]
        off = np.abs((np.array(found) - p0) @ np.array([-d[1], d[0]]))
        if float(np.percentile(off, 80)) > _OUTLINE_FIT:
            return None
        lines.append((p0, d))
    corners = []
    for (p, d), (q, e) in zip(lines, lines[1:] + lines[:1]):
        m = np.array([d, -e]).T
        if abs(float(np.linalg.det(m))) < 1e-6:
            return None
        a, _ = np.linalg.solve(m, q - p)
        corners.append(p + a * d)
    board_corners = np.array([[w, 0.0], [w, h], [0.0, h], [0.0, 0.0]])  # top/right, right/bottom, ...
    all_src = np.concatenate([src, board_corners])
    all_dst = np.concatenate([dst, np.array(corners)])
    return _fit_pose(seat, all_src, all_dst, len(markers))


@functools.lru_cache(maxsize=1)
def _wagon_white_points() -> NDArray[Any]:
    """Wagon board points (mm) of blank paper: above and below the spaces, and at both ends."""
    g = WAGON
    pts = [(float(x), 21.0) for x in range(25, 236, 10)] + [(float(x), 79.5) for x in range(25, 236, 10)]
    pts += [(3.5, float(y)) for y in range(25, 73, 8)] + [(g.width - 3.5, float(y)) for y in range(25, 73, 8)]
    return np.array(pts, np.float64)


def _read_wagon(frame: Image, pose: BoardPose, catalog: Catalog) -> RailyardView:
    """The wagon row's slots: each empty (its colour), a face-down tile (white) or a face-up tile (its fields)."""
    rect = pose.warp(frame, (_px(WAGON.width), _px(WAGON.height)))
    fit = _white_fit(rect, _wagon_white_points(), (WAGON.width, WAGON.height))
    sources = ("1a", "1b", "2", "3", "4", "5")
    if fit is None:
        why = "its paper cannot be seen well enough to judge colours"
        return RailyardView((None,) * 4, (False, False), (Unrecognised("the wagon row", why),))
    wb = _Board(rect, fit[0], catalog, (WAGON.width, WAGON.height))
    n = _px(FIELD)
    ring_mask, _ = _field_masks()
    read: dict[str, str | None] = {}
    for source in sources:
        x, y, _, _ = WAGON.slot_rect(source)
        quarters: list[str | None] = []
        for k in range(4):
            qx, qy = _px(x + (k % 2) * FIELD), _px(y + (k // 2) * FIELD)
            cell = rect[qy:qy + n, qx:qx + n]
            if cell.shape[:2] != (n, n):
                quarters.append(None)
                continue
            colour = np.median(cell[ring_mask], axis=0) / wb.white(x + (k % 2 + 0.5) * FIELD, y + (k // 2 + 0.5) * FIELD)
            quarters.append(_classify(colour, ("walkway", "site", "slot", "back")))
        where = f"railyard {source}"
        if None in quarters:
            wb.problem(where, "the slot's colour is unclear (glare, a shadow, a hand?)")
            read[source] = None
        elif all(q == "slot" for q in quarters):
            read[source] = ""
        elif all(q == "back" for q in quarters):
            read[source] = "back"
        elif all(q in ("walkway", "site") for q in quarters):
            pattern = "".join("w" if q == "walkway" else "s" for q in quarters)
            pattern = f"{pattern[:2]}/{pattern[2:]}"
            if pattern in catalog.foundations:
                read[source] = pattern
            else:
                wb.problem(where, f"reads {pattern}, not a foundation tile of the box")
                read[source] = None
        else:
            wb.problem(where, "part of the slot shows a tile: a tile lies off its slot?")
            read[source] = None
    stacks = []
    for source in ("1a", "1b"):
        value = read[source]
        if value not in (None, "", "back"):
            wb.problem(f"railyard {source}", "a tile lies face up on the stack")
        stacks.append(value == "back")
    open_tiles: list[str | None] = []
    for source in ("2", "3", "4", "5"):
        value = read[source]
        if value == "back":
            wb.problem(f"railyard {source}", "a tile lies face down on an open space")
            value = None
        open_tiles.append(value or None)
    return RailyardView(tuple(open_tiles), (stacks[0], stacks[1]), tuple(wb.problems))


class Recognizer:
    """Frame -> a `MarketView` per board in view (keeps nothing between frames but its configuration)."""

    def __init__(self, config: VisionConfig = CONFIG, catalog: Catalog = CATALOG, classifier: Any = None) -> None:
        self.config = config
        self.catalog = catalog
        #: an enrolled deck's reader (`vision.classify.CropReader`): names the foundation tiles by their art
        self.classifier = classifier

    def reset(self) -> None:
        """Nothing is cached between frames."""

    def recognize(self, frame: Image) -> Result:
        """The views of one frame, seat order.

        :raises NoBoardError: when no board shows enough of its markers.
        """
        t0 = time.perf_counter()
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = tuple(m for m in find_markers(gray, self.config) if self._ours(m.id))
        t1 = time.perf_counter()
        seats = self._by_seat(markers)
        robust = 0.0
        # the slow search only where a board cannot be read without it (3 markers locate a board)
        wagon_seen = len({m.id for m in markers if m.id in WAGON_MARKER_IDS})
        short = any(len(ms) < _MIN_MARKERS for ms in seats.values()) or 0 < wagon_seen < _MIN_MARKERS
        if short or (not seats and not wagon_seen):
            more = tuple(m for m in self._robust_markers(gray) if self._ours(m.id))
            have = {m.id for m in markers}
            markers = markers + tuple(m for m in more if m.id not in have)
            seats = self._by_seat(markers)
            robust = time.perf_counter() - t1
        t2 = time.perf_counter()
        colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        views, poses = [], []
        for seat in sorted(seats):
            pose = _pose(seat, seats[seat]) or _outline_pose(seat, seats[seat], gray)
            if pose is None:
                continue
            poses.append(pose)
            views.append(self._read(colour, pose))
        wagon = [m for m in markers if m.id in WAGON_MARKER_IDS]
        wagon_pose = _pose(-1, list({m.id: m for m in wagon}.values()))
        railyard = None if wagon_pose is None else _read_wagon(colour, wagon_pose, self.catalog)
        if not views and railyard is None:
            raise NoBoardError(len(markers))
        t3 = time.perf_counter()
        ms = 1000.0
        times = StageTimes((t1 - t0) * ms, robust * ms, (t3 - t2) * ms)
        return Result(tuple(views), tuple(poses), markers, times, railyard, wagon_pose)

    def _robust_markers(self, gray: Image) -> tuple[Marker, ...]:
        """The slow, tolerant marker search; on a frame over `_ROBUST_SIDE` px, at half size (four times
        faster; the boards' markers are still over 40 px there)."""
        if max(gray.shape[:2]) <= _ROBUST_SIDE:
            return find_markers(gray, self.config, robust=True)
        half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
        return tuple(Marker(m.id, m.corners * 2.0 + 0.5) for m in find_markers(half, self.config, robust=True))

    @staticmethod
    def _ours(marker_id: int) -> bool:
        return seat_of_marker(marker_id) is not None or marker_id in WAGON_MARKER_IDS

    @staticmethod
    def _by_seat(markers: tuple[Marker, ...]) -> dict[int, list[Marker]]:
        out: dict[int, dict[int, Marker]] = {}
        for m in markers:
            found = seat_of_marker(m.id)
            if found is not None:
                out.setdefault(found[0], {}).setdefault(m.id, m)
        return {seat: list(ms.values()) for seat, ms in out.items()}

    def _read(self, frame: Image, pose: BoardPose) -> MarketView:
        rect = pose.warp(frame, (_px(BOARD.width), _px(BOARD.height)))
        fit = _white_fit(rect)
        unknown = ("?" * 8,) * 8
        if fit is None:
            return MarketView(pose.seat, unknown, (), (None, None), None, None, None,
                              (Unrecognised("the board", "its paper cannot be seen well enough to judge colours",
                                            (1 << 64) - 1),))
        rb = _Board(rect, fit[0], self.catalog, classifier=self.classifier)
        market, attractions = _read_market(rb)
        p = _read_places(rb, pose.seat)
        return MarketView(pose.seat, tuple(market), tuple(attractions), p.entrances, p.tent, p.numbers, p.tricks,
                          tuple(rb.problems), p.tent_places, p.number_figures, p.trick_figures)


def annotate(frame: Image, result: Result) -> Image:
    """The frame with each board's fields marked: green read, red unrecognised; attractions outlined."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    unit = max(1, out.shape[1] // 640)
    for view, pose in zip(result.views, result.poses):
        def quad(x: float, y: float, w: float, h: float, where: BoardPose = pose) -> NDArray[Any]:
            pts = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
            return np.asarray(where.to_image(pts), np.int32)

        text = "".join(view.market)
        for c in range(64):
            x, y, w, h = BOARD.field_rect(c)
            colour = (0, 0, 255) if text[c] == "?" else (0, 200, 0)
            cv2.polylines(out, [quad(x + 2, y + 2, w - 4, h - 4)], True, colour, unit)
            if text[c] in "gGb":
                centre = quad(x + w / 2, y + h / 2, 0, 0)[0]
                cv2.putText(out, text[c], (int(centre[0]) - 4 * unit, int(centre[1]) + 4 * unit),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.4 * unit, (255, 255, 255), unit, cv2.LINE_AA)
        for shape, mask, tickets in view.attractions:
            first = (mask & -mask).bit_length() - 1
            x, y, _, _ = BOARD.field_rect(first)
            p = quad(x + 3, y + 9, 0, 0)[0]
            cv2.putText(out, f"{shape}:{tickets}", (int(p[0]), int(p[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * unit,
                        (255, 0, 0), unit, cv2.LINE_AA)
        corner = quad(0, 0, 0, 0)[0]
        label = f"seat {view.seat + 1}" + ("" if view.complete else f": {len(view.unrecognised)} unread")
        cv2.putText(out, label, (int(corner[0]), max(12, int(corner[1]) - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * unit, (0, 0, 255) if view.unrecognised else (0, 160, 0), unit, cv2.LINE_AA)
    return out
