"""One table adapter per game: everything the live referee needs to know about a game at the table.

The loop (`firmware.app`), the stabiliser, the referee (`firmware.referee`),
the journal, the buttons and the panels are written once. What differs from
game to game is one `TableAdapter`, registered under the game's name:

* **perceive**: a recogniser that turns a camera frame into the game's view
  (`vision/<game>/`), and `sighting`, which reduces that view to what the
  referee compares from frame to frame (a frozen value);
* **infer**: `infer`, what move turns the state into a stable sighting: none,
  one (which the rules engine then judges), or "I cannot explain this"
  (`scorer/<game>/observe` does the work; it is pure);
* **screens**: what each seat's panel and the central panel show for a state;
* **simulated table**: a game played by random players and filmed by a
  simulated camera, for the demo, the tests and the benchmarks.

Adding a game at the table means writing its adapter and registering it in
`_MODULES`; nothing in the loop changes (see docs/adding-a-game.md).

>>> adapter("bigtop").game.info.title
'Big Top'
>>> adapter("chess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scorer.core.UnknownGame: unknown game 'chess'; games that can be refereed at the table: bigtop, carcassonne, ...
"""

from __future__ import annotations

import enum
import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import scorer
from firmware.screens import CentralView, render_central
from scorer.core import Event, Game, TableError, UnknownGame

if TYPE_CHECKING:
    from PIL import ImageDraw

    from hardware.camera import Frame, FrameSource

__all__ = [
    "CentralView",
    "Inference",
    "NoTableAdapter",
    "Perceiver",
    "Seen",
    "SimulatedNight",
    "Sighting",
    "TableAdapter",
    "TableNight",
    "adapter",
    "adapter_names",
    "register_adapter",
    "simulated_options",
]


class NoTableAdapter(TableError, LookupError):
    """A game that the rules engines know but that cannot be refereed at the table yet."""


class Seen(enum.Enum):
    """What a stable view means to the referee."""

    #: nothing changed that the rules care about
    UNCHANGED = "unchanged"
    #: one move explains the change; the rules engine judges it
    MOVE = "move"
    #: no single move explains it: the referee asks instead of guessing
    UNEXPLAINED = "unexplained"


@dataclass(frozen=True, slots=True)
class Inference:
    """The adapter's reading of a stable view: `Seen`, the move (for MOVE), a sentence, a reminder."""

    seen: Seen
    move: Any = None
    message: str = ""
    #: a reminder shown after the move is accepted ("slide your called cards down first")
    reminder: str = ""


class Sighting(Protocol):
    """One stable camera view, reduced to what a game's referee compares (a frozen, comparable value).

    ``unrecognised`` describes, in words, objects that lie where components
    belong and could not be identified; the referee holds the game on them.
    """

    @property
    def unrecognised(self) -> tuple[str, ...]: ...


class Perceiver(Protocol):
    """A game's recogniser: one camera frame in, a result with the game's ``view`` and stage ``times`` out."""

    def recognize(self, frame: Frame) -> Any: ...

    def reset(self) -> None: ...


class SimulatedNight(Protocol):
    """A game night played by random players (the ground truth) and the camera that films it."""

    @property
    def record(self) -> Mapping[str, Any]: ...

    @property
    def illegal_attempts(self) -> int: ...

    def camera(self) -> FrameSource: ...


class TableNight:
    """A `SimulatedNight` made of a game's simulated table (with its ``record`` and
    ``illegal_attempts``) and the function that films it."""

    def __init__(self, table: Any, film: Callable[[Any], FrameSource]) -> None:
        self.table = table
        self._film = film

    @property
    def record(self) -> Mapping[str, Any]:
        """The ground truth, filled in as the night is played."""
        record: Mapping[str, Any] = self.table.record
        return record

    @property
    def illegal_attempts(self) -> int:
        """How many illegal moves the simulated players tried."""
        return int(self.table.illegal_attempts)

    def camera(self) -> FrameSource:
        """The simulated camera over this table."""
        return self._film(self.table)


S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V")


class TableAdapter(ABC, Generic[S, M]):
    """One game at the table. Subclass it for a game and register it with `register_adapter`.

    Parts: a game is played in one or more parts, each with its own record
    header (a Big Top hand is a part). ``part_word`` is what players call one.
    """

    #: the registry name, as in ``scorer.get`` and the configuration's ``game``
    name: ClassVar[str]
    #: what players call one part of the game ("hand"), or "" for games played in one go
    part_word: ClassVar[str] = ""
    #: players at ``ringside demo``'s table when ``--seats`` is not given
    demo_seats: ClassVar[int] = 4
    @property
    @abstractmethod
    def game(self) -> Game[S, M]:
        """The rules engine."""

    def for_game(self, game: Game[S, M]) -> TableAdapter[S, M]:
        """This adapter for ``game``, an engine of this game built for one record (`scorer.core.Game.for_record`:
        The Grand Carnival played with other component values); by default this adapter, whose engine is the
        only one."""
        return self

    def check_players(self, players: Sequence[str]) -> None:
        """Refuse a table the game cannot be played at.

        :raises TableError: with a sentence naming the allowed number of players.
        """
        info = self.game.info
        if not info.min_players <= len(players) <= info.max_players:
            raise TableError(f"{info.title} is for {info.min_players} to {info.max_players} players, "
                             f"not {len(players)}")

    def default_parts(self, players: int) -> int:
        """How many parts a game of ``players`` lasts when nobody says."""
        return 1

    # -- the game's course ---------------------------------------------------------

    @abstractmethod
    def start_part(self, players: Sequence[str], number: int, previous: S | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], S, str, str]:
        """Part ``number`` (1 for the first) begins: its record header, its first state, an event line and a hint.

        ``previous`` is the state at the end of the previous part (None for the first),
        ``header`` the game-level record fields.
        """

    @abstractmethod
    def is_part_over(self, state: S) -> bool:
        """True once no move of this part is left to play (someone went out; the last tile is laid)."""

    def is_game_over(self, state: S, part: int, parts: int) -> bool:
        """True when the game ends after this finished part (by default: after the planned parts)."""
        return part >= parts

    def part_over_text(self, state: S, players: Sequence[str]) -> tuple[str, str]:
        """The event line and the hint shown when a part is over."""
        return ("The game is over." if not self.part_word else f"The {self.part_word} is over.", "")

    def reveal(self, state: S, sighting: Any, players: Sequence[str], header: Mapping[str, Any]) -> dict[str, Any] | None:
        """The record fields an end-of-part view adds (tokens turned up, cards laid open), or None when
        there is nothing (more) to read. Called with every stable view while a part is over."""
        return None

    def part_summary(self, results: Mapping[str, Any], part: int, players: Sequence[str]) -> str:
        """The line shown once what players showed at the end of part ``part`` is read ("" for none)."""
        return ""

    def reveal_missing(self, header: Mapping[str, Any]) -> str:
        """What players must still show before the next part may start ("" when nothing)."""
        return ""

    # -- perceive and infer ------------------------------------------------------------

    @abstractmethod
    def perceiver(self, model: str | None = None) -> Perceiver:
        """The game's recogniser (loads its model: call it once)."""

    @abstractmethod
    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """The referee's sighting of a recognised view, or None when the view is not complete (a chart out of sight)."""

    def fill_held(self, state: S, sighting: Any) -> Any:
        """The sighting with places the camera could not read taken from ``state`` where nothing done this turn
        could have changed them (a component the game never takes away, a market not on turn); the referee
        calls it before it looks for anything unrecognised and judges the result. Default: as it is."""
        return sighting

    @abstractmethod
    def infer(self, state: S, sighting: Any) -> Inference:
        """What move, if any, turns ``state`` into what ``sighting`` shows (public information only)."""

    def seat_press(self, state: S, seat: int) -> M | None:
        """The move a short press of ``seat``'s button makes (a pass), or None when it makes none."""
        return None

    def move_text(self, state: S, move: M, events: tuple[Event, ...]) -> str:
        """The line the central panel shows for an accepted move (``state`` is the state before it)."""
        earned = [e.text for e in events if e.text]
        return " ".join(earned) if earned else self.game.format_move(state, move)

    def teach(self, state: S, seat: int, sighting: Any, teaching: bool) -> str:
        """The hint a held seat button shows (teaching help; ``teaching`` means hands lie open)."""
        return ""

    # -- screens ----------------------------------------------------------------------

    @abstractmethod
    def seat_view(self, state: S, seat: int, warning: str) -> Any:
        """What ``seat``'s panel shows now (drawn with ``render_seat``)."""

    @abstractmethod
    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `seat_view` onto a 128x64 panel."""

    @abstractmethod
    def central_view(self, state: S, *, part: int, parts: int, last_event: str, hint: str) -> CentralView:
        """What the central panel shows now (drawn with ``render_central``)."""

    def render_central(self, view: CentralView, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `CentralView` onto the 128x64 central panel."""
        render_central(view, draw)

    def final_text(self, results: Mapping[str, Any], players: Sequence[str]) -> str:
        """The central panel's line at the end of the game: the final scores and the winner."""
        report = results
        scores = report.get("scores")
        winners = report.get("winners")
        if isinstance(scores, Mapping):
            line = "Final: " + ", ".join(f"{p} {scores.get(p)}" for p in players)
        else:
            line = "Final scores are in."
        if isinstance(winners, Sequence) and winners and not isinstance(winners, str):
            line += ". Winner: " + " and ".join(str(w) for w in winners) + "."
        return line

    # -- the simulated table --------------------------------------------------------------

    @abstractmethod
    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """A game night of random players filmed by a simulated camera (ground truth in ``record``)."""

    @abstractmethod
    def open_simulated(self, arg: str) -> FrameSource:
        """``--camera simulated:ARG``: a simulated camera of this game from ``key=value`` options.

        :raises hardware.errors.UnknownBackend: for a bad option, in one line.
        """

    def differences(self, record: Mapping[str, Any], truth: Mapping[str, Any]) -> list[str]:
        """How the referee's record differs from the simulation's ground truth (empty: they agree).

        By default: the first move that differs, the scores and the winners. A game whose record
        holds what the table cannot show (a hidden card) compares less.
        """
        problems: list[str] = []
        got, want = list(record.get("moves", [])), list(truth.get("moves", []))
        if got != want:
            k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            problems.append(f"move {k + 1} differs: referee {got[k] if k < len(got) else 'nothing'!r}, "
                            f"truth {want[k] if k < len(want) else 'nothing'!r}")
        a, b = self.game.replay(record).data, self.game.replay(truth).data
        for what in ("scores", "winners"):
            if a.get(what) != b.get(what):
                problems.append(f"{what} differ: referee {a.get(what)}, truth {b.get(what)}")
        return problems


def simulated_options(arg: str, bounds: Mapping[str, tuple[int, int | None]]) -> dict[str, int]:
    """The ``key=value`` options after ``simulated:`` (commas between), each a whole number within its bounds.

    ``bounds`` maps every option a game's simulated camera takes to its (lowest, highest or None).

    >>> simulated_options("seats=3, seed=7", {"seats": (3, 6), "seed": (0, None)})
    {'seats': 3, 'seed': 7}

    :raises hardware.errors.UnknownBackend: for an unknown option or a bad value, in one line.
    """
    from hardware.errors import UnknownBackend

    values: dict[str, int] = {}
    for part in arg.split(","):
        part = part.strip()
        if not part:
            continue
        key, eq, text = (p.strip() for p in part.partition("="))
        if key not in bounds:
            known = ", ".join(f"{k}=N" for k in bounds)
            raise UnknownBackend(f"the simulated camera has no option {key!r}: use {known}")
        if key in values:
            raise UnknownBackend(f"the simulated camera option {key} is given twice")
        try:
            value = int(text)
        except ValueError:
            raise UnknownBackend(f"the simulated camera option {key} takes a whole number, not {text!r}"
                                 if eq else f"write {key}=NUMBER for the simulated camera") from None
        low, high = bounds[key]
        if value < low or high is not None and value > high:
            limits = f"{low} to {high}" if high is not None else f"{low} or more"
            extra = f": the game is for {low} to {high} players" if key == "seats" and high is not None else ""
            raise UnknownBackend(f"the simulated camera option {key} must be {limits}, not {value}{extra}")
        values[key] = value
    return values


#: Registry names and aliases -> the module that defines and registers the adapter (imported on first use).
_MODULES: dict[str, str] = {
    "bigtop": "firmware.bigtop",
    "fantan": "firmware.bigtop",
    "flohcati": "firmware.flohcati",
    "circus-grandioso": "firmware.grandioso",
    "grand-carnival": "firmware.grand_carnival",
    "carcassonne": "firmware.carcassonne",
}

_ADAPTERS: dict[str, TableAdapter[Any, Any]] = {}

A = TypeVar("A", bound=TableAdapter[Any, Any])


def register_adapter(cls: type[A]) -> type[A]:
    """Class decorator: register a table adapter under its game's ``name`` (and the game's aliases)."""
    instance = cls()
    _ADAPTERS[cls.name] = instance
    for alias in instance.game.aliases:
        _ADAPTERS[alias] = instance
    return cls


def adapter_names() -> list[str]:
    """The games that can be refereed at the table (registry names, no aliases)."""
    return sorted(set(_MODULES))


def adapter(name: str) -> TableAdapter[Any, Any]:
    """The table adapter of the game called ``name`` (or one of its aliases).

    :raises UnknownGame: when no game has that name.
    :raises NoTableAdapter: when the game has rules but cannot be refereed at the table yet.
    """
    try:
        game = scorer.get(name)
    except UnknownGame:
        raise UnknownGame(f"unknown game {name!r}; games that can be refereed at the table: "
                          f"{', '.join(adapter_names())}") from None
    if game.name not in _ADAPTERS and game.name in _MODULES:
        importlib.import_module(_MODULES[game.name])
    found = _ADAPTERS.get(game.name)
    if found is None:
        raise NoTableAdapter(f"{game.info.title} cannot be refereed at the table yet; games that can: "
                             f"{', '.join(adapter_names())}")
    return found
