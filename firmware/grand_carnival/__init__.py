"""The Grand Carnival at the table: its table adapter.

The camera sees every player's market board and the wagon row
(`vision.grand_carnival`); the players follow the table's conventions in
`scorer.grand_carnival.observe` (a figure on the action number used, then the
action). The referee checks every action as it appears: a foundation tile
(from which wagon space), an attraction (its shape, size and site), a guest's
walk with the barker it brings, a pass; the engine adds the tickets and the
tricks learned. The seat panels show each player's score and the round, the
central panel the round, whose turn it is, the last action and what it scored.

The open tiles that refill the wagon row come face down from a stack: the
referee does not know them until the camera has seen them, so the adapter
keeps the wagon row it saw with each accepted state and uses it to tell which
space the next foundation tile came from.

A place the camera cannot read (glare saturating it frame after frame) is taken
from the last accepted state where nothing done this turn could have changed
it, and held where something could (`firmware.grand_carnival.held`).
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from PIL import ImageDraw

from firmware.grand_carnival.held import changeable, fill
from firmware.grand_carnival.screens import SeatView, central_view, render_seat, seat_view
from firmware.grand_carnival.tablesim import table_tricks
from firmware.screens import CentralView
from firmware.table import Inference, Perceiver, Seen, SimulatedNight, TableAdapter, TableNight, register_adapter
from hardware.camera import FrameSource
from scorer.core import Event, Game
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import Catalog, parcel_cells
from scorer.grand_carnival.model import CarnivalState, Move
from scorer.grand_carnival.observe import InferenceKind, SeenMarket, infer_move
from vision.grand_carnival.layout import TENT_PLACES

__all__ = ["CarnivalTable", "Sighting", "seen_market"]

#: How many accepted states keep the wagon row seen with them.
_REMEMBERED = 16
#: The game with the shipped ``components.toml``, which the registered adapter plays.
_SHIPPED = GrandCarnival()


@dataclass(frozen=True, slots=True)
class Sighting:
    """One stable view of a Grand Carnival table: each market (seat order), the wagon row's open tiles
    (spaces 2..5; None when the row is out of view) and, in words, what could not be read.

    When a place could not be read, ``markets`` is empty and ``views`` holds each market's reading
    (`vision.grand_carnival.pipeline.MarketView`), for the referee to fill from its state
    (`CarnivalTable.fill_held`); ``wagon_problems`` are the wagon row's, in words.
    """

    markets: tuple[SeenMarket, ...]
    railyard: tuple[str | None, ...] | None
    unrecognised: tuple[str, ...] = ()
    views: tuple[Any, ...] = ()
    wagon_problems: tuple[str, ...] = ()


def seen_market(view: Any) -> SeenMarket:
    """A recognised `vision.grand_carnival.pipeline.MarketView` as `scorer.grand_carnival.observe` compares it."""
    chars = "".join(view.market)
    parcels: list[str | None] = []
    for parcel in range(16):
        cells = parcel_cells(parcel)
        if all(chars[c] == "." for c in cells):
            parcels.append(None)
            continue
        kinds = "".join("w" if chars[c] in "wgb" else "s" for c in cells)
        parcels.append(f"{kinds[:2]}/{kinds[2:]}")
    guests = sum(1 << c for c in range(64) if chars[c] in "gG")
    barkers = sum(1 << c for c in range(64) if chars[c] == "b")
    entrances = (bool(view.entrances[0]), bool(view.entrances[1]))
    return SeenMarket(tuple(parcels), frozenset(view.attractions), guests, barkers, entrances, view.tent or 0,
                      frozenset(view.numbers or ()))


def _tent_beyond_places(state: CarnivalState, markets: tuple[SeenMarket, ...]) -> tuple[SeenMarket, ...]:
    """The markets with the tent's count carried on where the board has no place left to show a guest.

    The tent holds more guests than its printed places: a full tent shows `TENT_PLACES`.
    A guest that left the market without arriving on a field went into the tent.
    """
    out = []
    for seen, board in zip(markets, state.boards):
        if board.tent >= TENT_PLACES and seen.tent == TENT_PLACES:
            arrived = seen.guests & ~board.guests
            left = (board.guests & ~seen.guests) or any(b and not s for b, s in zip(board.entrances, seen.entrances))
            seen = replace(seen, tent=board.tent + (1 if left and not arrived else 0))
        out.append(seen)
    return tuple(out)


class _Perceiver:
    """The Grand Carnival recogniser, giving the loop one ``view`` per frame (the whole result), expecting the
    pieces of ``catalog`` (the component values the game is played with)."""

    def __init__(self, catalog: Catalog) -> None:
        from vision.grand_carnival.pipeline import Recognizer

        self._recognizer = Recognizer(catalog=catalog)

    @property
    def classifier(self) -> Any:
        """The enrolled deck that names the foundation tiles (None: colours alone)."""
        return self._recognizer.classifier

    @classifier.setter
    def classifier(self, reader: Any) -> None:
        self._recognizer.classifier = reader

    def recognize(self, frame: Any) -> Any:
        result = self._recognizer.recognize(frame)
        return _Seen(result, result.times)

    def reset(self) -> None:
        self._recognizer.reset()

    def annotate(self, frame: Any, seen: Any) -> Any:
        from vision.grand_carnival.pipeline import annotate

        return annotate(frame, seen.view)


@dataclass(frozen=True, slots=True)
class _Seen:
    view: Any
    times: Any


@register_adapter
class CarnivalTable(TableAdapter[CarnivalState, Move]):
    """The Grand Carnival at the table (see the module docstring), played with ``game``'s component values
    (default: the shipped ``components.toml``).

    Everything that holds the game takes its values from here: the engine that judges and scores, the record's
    ``components``, the recogniser (the entrances, shapes and tiles it expects), the simulated table and camera
    (what they play and draw). A journal's game resumes with the values it was started with (`for_game`).
    """

    name: ClassVar[str] = "grand-carnival"
    demo_seats: ClassVar[int] = 2

    def __init__(self, game: GrandCarnival | None = None) -> None:
        self._game = game if game is not None else _SHIPPED
        self._wagons: OrderedDict[str, tuple[str | None, ...]] = OrderedDict()

    @property
    def game(self) -> GrandCarnival:
        """The rules engine."""
        return self._game

    def for_game(self, game: Game[CarnivalState, Move]) -> CarnivalTable:
        """The adapter that plays with ``game``'s component values (this one when they are the same).

        :raises TypeError: when ``game`` is not The Grand Carnival.
        """
        if not isinstance(game, GrandCarnival):
            raise TypeError(f"the Grand Carnival's table cannot play {game.name}")
        return self if game.components == self._game.components else CarnivalTable(game)

    # -- the game's course ---------------------------------------------------------

    def start_part(self, players: Sequence[str], number: int, previous: CarnivalState | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], CarnivalState, str, str]:
        """The game begins: the tricks laid out, four open tiles on the wagon row, the rest in two stacks."""
        tricks = header.get("tricks")
        if not isinstance(tricks, list):
            tricks = table_tricks(self.game)
        total = sum(self.game.catalog.foundations.values()) - 4
        half = (total + 1) // 2
        fields: dict[str, Any] = {"start": players[0], "tricks": list(tricks),
                                  "railyard": {"stacks": [half, total - half], "open": [None] * 4},
                                  # the record says which component values the game is played with
                                  "components": copy.deepcopy(dict(self.game.components))}
        state = self.game.record_state({"game": self.name, "players": list(players), **fields})
        return (fields, state, f"Lay out the tricks: {', '.join(tricks)}. Four open tiles on the wagon row.",
                f"{players[0]} starts: a figure on an action number, then the action.")

    def is_part_over(self, state: CarnivalState) -> bool:
        """After the seventh round."""
        return self.game.is_over(state)

    def part_over_text(self, state: CarnivalState, players: Sequence[str]) -> tuple[str, str]:
        """The scores as the markets stand."""
        scores = self.game.scores(state)
        return "Seven rounds played: " + ", ".join(f"{p} {s}" for p, s in zip(players, scores)) + ".", ""

    # -- perceive and infer ------------------------------------------------------------

    def perceiver(self, model: str | None = None) -> Perceiver:
        """The Grand Carnival recogniser for this game's component values (colours and markers; ``model`` is
        not used)."""
        return _Perceiver(self.game.catalog)

    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """Every player's market and the wagon row; None while a market is out of view."""
        views = {v.seat: v for v in view.views}
        if any(seat not in views for seat in range(len(players))):
            return None
        markets = tuple(views[seat] for seat in range(len(players)))
        yard = view.railyard
        railyard = None
        wagon: tuple[str, ...] = ()
        if yard is not None:
            wagon = tuple(f"{u.why[0].upper()}{u.why[1:]} (wagon row, {u.where})." for u in yard.unrecognised)
            railyard = tuple(yard.open)
        return _sighting(markets, railyard, wagon)

    def fill_held(self, state: CarnivalState, sighting: Any) -> Any:
        """The sighting with each market place the camera could not read taken from ``state`` where nothing done
        this turn could have changed it (`firmware.grand_carnival.held`); a place that could have changed stays
        held."""
        views = getattr(sighting, "views", ())
        if not views or len(views) != len(state.boards):
            return sighting
        filled = tuple(fill(v, state.boards[seat], changeable(state, seat, v)) for seat, v in enumerate(views))
        return _sighting(filled, sighting.railyard, sighting.wagon_problems)

    def _key(self, state: CarnivalState) -> str:
        return json.dumps(self.game.state_to_json(state), sort_keys=True)

    def _remember(self, state: CarnivalState, railyard: tuple[str | None, ...] | None) -> None:
        if railyard is None or not _agrees(state.railyard.open, railyard):
            return
        key = self._key(state)
        self._wagons[key] = railyard
        self._wagons.move_to_end(key)
        while len(self._wagons) > _REMEMBERED:
            self._wagons.popitem(last=False)

    def known(self, state: CarnivalState) -> CarnivalState:
        """``state`` with the open tiles it cannot know (refilled from a stack) as the camera saw them with it."""
        yard = state.railyard
        if None not in yard.open:
            return state
        seen = self._wagons.get(self._key(state))
        if seen is None:
            return state
        filled = tuple(t if t is not None else seen[k] for k, t in enumerate(yard.open))
        return replace(state, railyard=replace(yard, open=filled))

    def infer(self, state: CarnivalState, sighting: Any) -> Inference:
        """A foundation, a build, a walk or a pass (`scorer.grand_carnival.observe`), or nothing."""
        markets = _tent_beyond_places(state, sighting.markets)
        found = infer_move(self.known(state), markets, self.game.catalog, sighting.railyard)
        if found.kind is InferenceKind.UNCHANGED:
            self._remember(state, sighting.railyard)
            return Inference(Seen.UNCHANGED)
        if found.kind is InferenceKind.UNEXPLAINED or found.move is None:
            return Inference(Seen.UNEXPLAINED, message=found.message)
        try:
            after, _ = self.game.apply_unchecked(state, found.move)
        except Exception:  # noqa: BLE001 - an illegal move need not apply; nothing to remember then
            after = None
        if after is not None:
            self._remember(after, sighting.railyard)
        return Inference(Seen.MOVE, found.move)

    def move_text(self, state: CarnivalState, move: Move, events: tuple[Event, ...]) -> str:
        """The action in words and what it earned (tickets, a barker, a trick)."""
        text = self.game.format_move(state, move)
        earned = [e.text for e in events if e.text]
        return " ".join([text + ".", *earned])

    # -- screens ----------------------------------------------------------------------

    def seat_view(self, state: CarnivalState, seat: int, warning: str) -> SeatView:
        """Score, round, the numbers left, the tent."""
        return seat_view(state, seat, self.game.catalog, warning)

    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `SeatView`."""
        render_seat(view, draw)

    def central_view(self, state: CarnivalState, *, part: int, parts: int, last_event: str,
                     hint: str) -> CentralView:
        """The round, whose turn it is, the last action, a hint."""
        return central_view(state, last_event=last_event, hint=hint)

    # -- the simulated table --------------------------------------------------------------

    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """Random keen players, filmed by the simulated overhead camera; every ``illegal_every`` moves a player
        first takes a foundation with too small a number or walks a guest where it may not go."""
        from firmware.grand_carnival.simcamera import SimulatedCamera
        from firmware.grand_carnival.tablesim import SimulatedTable

        return TableNight(SimulatedTable(list(players), seed=seed, illegal_every=illegal_every, game=self.game),
                          SimulatedCamera)

    def open_simulated(self, arg: str) -> FrameSource:
        """``simulated:seats=N,seed=S,still_frames=F``, played and drawn with this game's component values."""
        from firmware.grand_carnival.simcamera import open_simulated

        return open_simulated(arg, game=self.game)


def _sighting(views: tuple[Any, ...], railyard: tuple[str | None, ...] | None,
              wagon: tuple[str, ...]) -> Sighting:
    """The sighting of the markets' views (seat order) and the wagon row."""
    problems = tuple(f"{u.why[0].upper()}{u.why[1:]} (seat {seat + 1}, {u.where})."
                     for seat, v in enumerate(views) for u in v.unrecognised) + wagon
    if problems:
        return Sighting((), railyard, problems, views, wagon)
    return Sighting(tuple(seen_market(v) for v in views), railyard)


def _agrees(known: tuple[str | None, ...], seen: tuple[str | None, ...]) -> bool:
    """True when the wagon row seen shows every open tile the state knows, on its space."""
    return len(seen) >= len(known) and all(t is None or t == seen[k] for k, t in enumerate(known))
