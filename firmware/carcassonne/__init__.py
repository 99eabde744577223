"""Carcassonne with Under the Big Top at the table: its table adapter.

The camera looks down on the board (`vision.carcassonne.live`: the grid kept
from the start tile, only the cells that changed read again). Each turn the
referee finds the new tile and the figure that came with it
(`scorer.carcassonne.observe`), the rules engine checks them (the edges, the
square, a figure on a feature nobody occupies, the ringmaster, acrobats within
reach and at most three high, a pyramid scored instead of a figure) and scores
what they complete; the central panel then says who takes back which figure.

The table's conventions:

* seats play red, blue, green, yellow, black, grey in seat order;
* the hint zone is the strip along the right edge of the camera's frame (a
  fifth of its width, marked on the table); the board stays out of it. A
  player who holds the seat button while showing the drawn tile there sees
  where it fits; a tile that fits nowhere is shown there and set aside with a
  short press of the seat button;
* the referee keeps the animal tokens: it draws their order when the game
  starts (written in the record's ``animal_tokens``) and says which animal the
  Big Top reveals at each circus scoring; move the Big Top onto the newest
  circus tile.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import ImageDraw

from firmware.carcassonne.screens import SeatView, central_view, render_seat, seat_view
from firmware.screens import CentralView
from firmware.table import Inference, Perceiver, Seen, SimulatedNight, TableAdapter, TableNight, register_adapter
from hardware.camera import FrameSource
from scorer.carcassonne import Carcassonne, Discard, Placement
from scorer.carcassonne.catalog import CATALOG, EXPANSION, START_TILE, Special
from scorer.carcassonne.engine import all_tokens, apply_move, figure_options, initial_state
from scorer.carcassonne.model import Animal, Move, State
from scorer.carcassonne.observe import COLORS, InferenceKind, SeenBoard, figures_of, infer_move
from scorer.core import Event

__all__ = ["CarcassonneTable", "Sighting", "where_it_fits"]

#: how many places the teaching hint names
BEST = 3


@dataclass(frozen=True, slots=True)
class Sighting:
    """One stable view of a Carcassonne table: the board as the camera reads it, and the hint zone's tile
    (a type, ``"?"`` for something that is no sure tile, None when empty)."""

    board: SeenBoard
    hint: str | None = None
    unrecognised: tuple[str, ...] = ()


class _Perceiver:
    """The live Carcassonne recogniser, giving the loop one ``view`` per frame (the reading)."""

    def __init__(self, model: str | None) -> None:
        from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier
        from vision.carcassonne.live import LiveRecognizer

        self._recognizer = LiveRecognizer(TileClassifier(model or DEFAULT_MODEL))

    def recognize(self, frame: Any) -> Any:
        reading = self._recognizer.recognize(frame)
        return _Seen(reading, reading.times)

    def reset(self) -> None:
        self._recognizer.reset()


@dataclass(frozen=True, slots=True)
class _Seen:
    view: Any
    times: Any


def where_it_fits(state: State, tile: str, best: int = BEST) -> list[tuple[tuple[int, int], list[int], int]]:
    """The squares where ``tile`` fits, best first: (square, its rotations, points the seat to move can score at once).

    Best: most points at once (a road or city the tile completes for the player, a figure put on it if need be),
    then most neighbours.
    """
    seat = state.turn % len(state.players)
    places: dict[tuple[int, int], list[int]] = {}
    game = Carcassonne()
    for pos, rotation in game.placements(state, tile):
        places.setdefault(pos, []).append(rotation)
    ranked = []
    for pos, rotations in places.items():
        gain = 0
        for rotation in rotations:
            for option in figure_options(state, tile, pos, rotation):
                after, _ = apply_move(state, option)
                gain = max(gain, after.scores[seat] - state.scores[seat])
        around = sum((pos[0] + dx, pos[1] + dy) in state.tiles for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)))
        ranked.append((-gain, -around, pos, rotations, gain))
    ranked.sort()
    return [(pos, rotations, gain) for _, _, pos, rotations, gain in ranked[:best]]


@register_adapter
class CarcassonneTable(TableAdapter[State, Move]):
    """Carcassonne with Under the Big Top at the table (see the module docstring)."""

    name: ClassVar[str] = "carcassonne"
    demo_seats: ClassVar[int] = 2
    _game: ClassVar[Carcassonne] = Carcassonne()

    def __init__(self) -> None:
        self._hint: str | None = None
        #: the animal tokens' order for the next game (the simulated table's); None: drawn at random
        self.next_tokens: list[Animal] | None = None

    @property
    def game(self) -> Carcassonne:
        """The rules engine."""
        return self._game

    # -- the game's course ---------------------------------------------------------

    def start_part(self, players: Sequence[str], number: int, previous: State | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], State, str, str]:
        """The start tile lies on the table; the referee draws the animal tokens' order."""
        tokens = self.next_tokens
        self.next_tokens = None
        if tokens is None:
            tokens = all_tokens()
            random.SystemRandom().shuffle(tokens)
        fields: dict[str, Any] = {"expansions": [EXPANSION], "rules": {"tiny_city_points": 4}, "start": START_TILE,
                                  "animal_tokens": [a.value for a in tokens]}
        state = initial_state(list(players), True, 4, START_TILE, None, tokens)
        colours = ", ".join(f"{p} {c}" for p, c in zip(players, COLORS))
        return (fields, state, f"Lay the start tile. Colours: {colours}.",
                f"{players[0]} starts: lay a tile, then a figure if you like.")

    def is_part_over(self, state: State) -> bool:
        """Once every tile is laid (the engine has done the final scoring)."""
        return state.finished

    def part_over_text(self, state: State, players: Sequence[str]) -> tuple[str, str]:
        """The final scores."""
        return "Final scoring: " + ", ".join(f"{p} {s}" for p, s in zip(players, state.scores)) + ".", ""

    # -- perceive and infer ------------------------------------------------------------

    def perceiver(self, model: str | None = None) -> Perceiver:
        """The live recogniser (``model``: another tile classifier file)."""
        return _Perceiver(model)

    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """The board and the hint zone, as read (figures of colours nobody at the table plays are left out)."""
        colours = set(COLORS[: len(players)]) | {""}
        figures = tuple(f for f in view.figures if f[3] in colours)
        return Sighting(SeenBoard(view.tiles, figures, view.unsure, COLORS), view.hint)

    def infer(self, state: State, sighting: Any) -> Inference:
        """The new tile and figure (`scorer.carcassonne.observe`), nothing, or why no single turn explains the view."""
        self._hint = sighting.hint
        found = infer_move(state, sighting.board)
        if found.kind is InferenceKind.UNCHANGED:
            return Inference(Seen.UNCHANGED)
        if found.kind is InferenceKind.UNEXPLAINED or found.move is None:
            return Inference(Seen.UNEXPLAINED, message=found.message)
        reminder = ""
        if CATALOG[found.move.tile].special is Special.CIRCUS:
            reminder = "Move the Big Top onto the new circus tile."
        return Inference(Seen.MOVE, found.move, reminder=reminder)

    def seat_press(self, state: State, seat: int) -> Move | None:
        """The seat to move sets aside the tile it shows in the hint zone (the rules check that it fits nowhere)."""
        if state.finished or seat != state.turn % len(state.players) or self._hint not in CATALOG:
            return None
        assert self._hint is not None
        return Discard(self._hint)

    def move_text(self, state: State, move: Move, events: tuple[Event, ...]) -> str:
        """The turn in words, what it scored, and who takes back which figure."""
        seat = state.turn % len(state.players)
        head = f"{state.players[seat]} {self.game.plain_move(move)}."
        earned = [e.text for e in events if e.text]
        back = self._returned(state, move)
        return " ".join([head, *earned] + ([f"Take back: {back}."] if back else []))

    def _returned(self, state: State, move: Move) -> str:
        """The figures ``move`` sends back to their owners, in words ("Ann's meeple at 1,0")."""
        if not isinstance(move, Placement):
            return ""
        after, _ = apply_move(state, move)
        placed = figures_of(state)
        seat = state.turn % len(state.players)
        if move.figure is not None and move.figure.value == "acrobat" and move.target is not None:
            placed[(move.target[0], move.target[1], "acrobat", COLORS[seat], "acrobats")] += 1
        elif move.figure is not None and move.spot is not None:
            placed[(move.at[0], move.at[1], move.figure.value, COLORS[seat], "")] += 1
        now = figures_of(after)
        gone: Counter[tuple[int, int, str, str]] = Counter()
        for (x, y, fig, color, _), n in placed.items():
            gone[(x, y, fig, color)] += n
        for (x, y, fig, color, _), n in now.items():
            gone[(x, y, fig, color)] -= n
        players = state.players
        words = []
        for (x, y, fig, color), n in sorted(gone.items()):
            if n > 0:
                owner = players[COLORS.index(color)]
                words.append(f"{owner}'s {fig}{'s' if n > 1 else ''} at {x},{y}" + (f" (x{n})" if n > 1 else ""))
        return ", ".join(words)

    def teach(self, state: State, seat: int, sighting: Any, teaching: bool) -> str:
        """Where the tile shown in the hint zone fits: a few best squares and their rotations."""
        tile = sighting.hint if sighting is not None else None
        if tile is None:
            return "Show the tile in the hint zone, then hold your button."
        if tile not in CATALOG:
            return "The tile in the hint zone cannot be read; lay it flat in the middle."
        places = where_it_fits(state, tile)
        if not places:
            return f"{tile} fits nowhere: press your button to set it aside."
        told = "; ".join(f"{x},{y} r{'/'.join(map(str, rots))}" + (f" +{gain}" if gain else "")
                         for (x, y), rots, gain in places)
        return f"{tile} fits: {told}."

    # -- screens ----------------------------------------------------------------------

    def seat_view(self, state: State, seat: int, warning: str) -> SeatView:
        """Score, colour, meeples left, the ringmaster."""
        return seat_view(state, seat, warning)

    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `SeatView`."""
        render_seat(view, draw)

    def central_view(self, state: State, *, part: int, parts: int, last_event: str, hint: str) -> CentralView:
        """Tiles left, whose turn it is, the last turn and its scoring, a hint."""
        return central_view(state, last_event=last_event, hint=hint)

    # -- the simulated table --------------------------------------------------------------

    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """Random players, filmed by the simulated overhead camera; the referee gets the night's animal tokens."""
        from firmware.carcassonne.simcamera import SimulatedCamera
        from firmware.carcassonne.tablesim import SimulatedTable

        table = SimulatedTable(list(players), seed=seed, illegal_every=illegal_every)
        self.next_tokens = [Animal(a) for a in table.record["animal_tokens"]]
        return TableNight(table, SimulatedCamera)

    def open_simulated(self, arg: str) -> FrameSource:
        """``simulated:seats=N,seed=S,still_frames=F,tiles=T``."""
        from firmware.carcassonne.simcamera import open_simulated

        camera = open_simulated(arg)
        self.next_tokens = [Animal(a) for a in camera.table.record["animal_tokens"]]
        return camera
