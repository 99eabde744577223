"""The game contract that every Ringside rules engine follows.

A game is a stateless object (`scorer.get("bigtop")`) whose methods take an
immutable state value and a move value:

* ``new_state(players, rng, **options)`` deals or sets up a fresh state;
* ``current_player(state)`` is the seat to move, or ``None`` when over;
* ``legal_moves(state)`` lists every legal move (full information);
* ``check(state, move)`` says LEGAL, ILLEGAL (with a reason) or UNVERIFIABLE
  (the answer depends on a card the state cannot see); it never raises;
* ``is_legal(state, move)`` is ``check`` reduced to "would ``play`` accept it";
* ``play(state, move)`` returns ``(new_state, events)`` or raises `IllegalMove`;
* ``parse_move`` / ``format_move`` are the notation pair, and they round-trip;
* ``state_to_json`` / ``state_from_json`` serialise states;
* ``replay(record)`` and ``simulate(...)`` work on game records (JSON).

Records share one driver (`Game.replay`, `Game.simulate`, `replay_moves`)
with small per-game hooks: ``record_start`` (the opening state a record
describes), ``read_record_move`` (one entry of ``"moves"``), ``replay_row``,
``replay_fields`` and ``replay_text`` (the game's own report), ``record_of``
and ``random_move`` (simulation). Every ``ringside replay --json`` report
carries the same envelope (`Game.envelope`): ``game``, ``players``,
``finished``, ``moves``, ``scores``, ``winners`` and ``error``, with the
game's own fields beside them.

Rules engines are pure: no I/O, no clock, randomness only from an injected
`random.Random`.
"""

from __future__ import annotations

import enum
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar, cast

__all__ = [
    "DEFAULT_NAMES",
    "Check",
    "Event",
    "Game",
    "GameInfo",
    "HiddenInformation",
    "IllegalMove",
    "Inference",
    "InferenceKind",
    "MalformedMove",
    "NotYourTurn",
    "Outcome",
    "Played",
    "RecordError",
    "ReplayReport",
    "Replayed",
    "TableError",
    "UnknownComponent",
    "UnknownGame",
    "Verdict",
    "mover_and_text",
    "parse_named",
    "random_playout",
    "replay_moves",
]

#: Seat names used when a command line asks for N players without naming them.
DEFAULT_NAMES: tuple[str, ...] = ("Ann", "Ben", "Cat", "Dan", "Eva", "Fin")


class TableError(Exception):
    """Base class of every error Ringside reports to a player or user."""


class MalformedMove(TableError, ValueError):
    """A move written in a notation that cannot be read."""


class NotYourTurn(MalformedMove):
    """A move text that names a player other than the one to move.

    The notation is readable, but the rules do not allow the move: a record
    replay reports it as an illegal move (exit status 3).
    """


class RecordError(TableError, ValueError):
    """A game record or position that is not valid (exit status 2).

    ``field`` names the part of the record that is wrong, for example
    ``"deal.Alf"`` or ``"moves[3]"``.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownComponent(RecordError):
    """A card, tile or token name that is not part of the game."""


class HiddenInformation(TableError, LookupError):
    """A question that needs cards the state cannot see (public information)."""


class UnknownGame(TableError, LookupError):
    """A game name that no engine is registered under."""


class IllegalMove(TableError, ValueError):
    """A well-formed move that the rules do not allow here.

    ``str(error)`` is a sentence a new player understands; ``reason`` is the
    machine-readable cause (a member of the game's reason enum).
    """

    def __init__(self, reason: enum.Enum, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Verdict(enum.Enum):
    """The answer of a legality check."""

    LEGAL = "legal"
    ILLEGAL = "illegal"
    #: The answer depends on something the state cannot see (a hidden hand).
    UNVERIFIABLE = "cannot verify"


@dataclass(frozen=True, slots=True)
class Check:
    """The result of `Game.check`: a verdict, and for anything but LEGAL a reason."""

    verdict: Verdict
    reason: enum.Enum | None = None
    message: str = ""

    @classmethod
    def illegal(cls, reason: enum.Enum, message: str) -> Check:
        """An ILLEGAL verdict with its reason and a sentence for the player.

        >>> class Why(enum.Enum):
        ...     LATE = "late"
        >>> Check.illegal(Why.LATE, "The hand is over.").is_illegal
        True
        """
        return cls(Verdict.ILLEGAL, reason, message)

    @classmethod
    def unverifiable(cls, message: str, reason: enum.Enum | None = None) -> Check:
        """An UNVERIFIABLE verdict: the answer depends on a card nobody can see.

        >>> Check.unverifiable("Ann may hold a tiger.").verdict
        <Verdict.UNVERIFIABLE: 'cannot verify'>
        """
        return cls(Verdict.UNVERIFIABLE, reason, message)

    @property
    def is_legal(self) -> bool:
        """True for LEGAL only."""
        return self.verdict is Verdict.LEGAL

    @property
    def is_illegal(self) -> bool:
        """True for ILLEGAL only."""
        return self.verdict is Verdict.ILLEGAL


LEGAL = Check(Verdict.LEGAL)


@dataclass(frozen=True, slots=True)
class Event:
    """Something a move caused that a player should hear about.

    ``what`` is a short phrase ("earned", "road completed", "circus scored"),
    ``points`` the seats and amounts of money or points it moved (amounts may be
    negative), ``text`` a sentence for a screen.
    """

    what: str
    points: tuple[tuple[int, int], ...] = ()
    text: str = ""

    def points_by_seat(self) -> dict[int, int]:
        """The points of this event summed per seat."""
        out: dict[int, int] = {}
        for seat, amount in self.points:
            out[seat] = out.get(seat, 0) + amount
        return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game (or hand) ended: the winners share the victory."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Fixed facts about a game."""

    title: str
    min_players: int
    max_players: int
    hidden_information: bool
    score_unit: str


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """What `Game.replay` or `Game.score_position` produced.

    ``data`` is the JSON object ``ringside replay --json`` prints, ``text`` the
    readable table, and ``illegal`` is true when a move broke a rule (exit 3).
    """

    data: Mapping[str, Any]
    text: str
    illegal: bool = False

    @property
    def exit_status(self) -> int:
        """0 when the record replays legally, 3 when a move is illegal."""
        return 3 if self.illegal else 0


S = TypeVar("S")
M = TypeVar("M")


class InferenceKind(enum.Enum):
    """How a camera view relates to the last accepted state (the games' ``observe`` modules)."""

    #: the table still shows the accepted state
    UNCHANGED = "unchanged"
    #: exactly one move explains the view
    MOVE = "move"
    #: nothing, or more than one thing, explains the view
    UNEXPLAINED = "unexplained"


# no slots: a slotted frozen generic dataclass breaks when built through its alias (Inference[Move](...))
@dataclass(frozen=True)
class Inference(Generic[M]):
    """What a change on the table amounts to: a kind, the move for MOVE, a sentence otherwise."""

    kind: InferenceKind
    move: M | None = None
    message: str = ""

    @classmethod
    def unexplained(cls, message: str) -> Inference[M]:
        """No move, or more than one, explains the view: ``message`` says why."""
        return cls(InferenceKind.UNEXPLAINED, message=message)


class Game(ABC, Generic[S, M]):
    """One game's rules. Subclass it for a variant and override its hooks."""

    #: The registry name, as used by ``scorer.get`` and in records' ``"game"``.
    name: ClassVar[str]
    #: Other names that `scorer.get` accepts.
    aliases: ClassVar[tuple[str, ...]] = ()
    info: ClassVar[GameInfo]
    #: Player count `simulate` uses when none is given.
    default_players: ClassVar[int] = 3

    def __repr__(self) -> str:
        return f"scorer.get({self.name!r})"

    # -- state ---------------------------------------------------------------

    @abstractmethod
    def new_state(self, players: Sequence[str], rng: random.Random, **options: Any) -> S:
        """A fresh state for these players, shuffled with ``rng``."""

    @abstractmethod
    def current_player(self, state: S) -> int | None:
        """The seat whose turn it is, or None when the game is over."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True when no more moves can be played."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The outcome of a finished state, None while it goes on."""

    @abstractmethod
    def scores(self, state: S) -> tuple[int, ...]:
        """Each seat's score (money, points, peanuts) as it stands."""

    # -- moves ---------------------------------------------------------------

    @abstractmethod
    def legal_moves(self, state: S) -> list[M]:
        """Every legal move for the player to move.

        :raises HiddenInformation: when the list depends on hidden cards.
        """

    @abstractmethod
    def check(self, state: S, move: M) -> Check:
        """LEGAL, ILLEGAL with a reason, or UNVERIFIABLE. Never raises."""

    def is_legal(self, state: S, move: M) -> bool:
        """True when `play` would accept the move. Never raises.

        A move that cannot be verified (it depends on a hidden card) is
        accepted: use `check` to tell the two apart.
        """
        try:
            return not self.check(state, move).is_illegal
        except Exception:  # noqa: BLE001 - the contract says never raise
            return False

    def play(self, state: S, move: M) -> tuple[S, tuple[Event, ...]]:
        """Play a move: the new state and the events it caused.

        :raises IllegalMove: when the rules do not allow the move here.
        """
        result = self.check(state, move)
        if result.is_illegal:
            assert result.reason is not None
            raise IllegalMove(result.reason, result.message)
        return self.apply_unchecked(state, move)

    @abstractmethod
    def apply_unchecked(self, state: S, move: M) -> tuple[S, tuple[Event, ...]]:
        """Play a move without checking it. For simulation of legal moves only."""

    # -- notation and JSON -------------------------------------------------------

    @abstractmethod
    def parse_move(self, state: S, text: str) -> M:
        """Read a move in the game's notation.

        :raises MalformedMove: when the text is not a move of this game.
        """

    @abstractmethod
    def format_move(self, state: S, move: M) -> str:
        """Write a move in the game's notation (`parse_move` reads it back)."""

    def record_entry(self, state: S, move: M) -> Any:
        """A move as an entry of a record's ``"moves"`` (``state`` is the state before it): its notation,
        unless the game's records write moves otherwise (Carcassonne: JSON objects)."""
        return self.format_move(state, move)

    @abstractmethod
    def state_to_json(self, state: S) -> dict[str, Any]:
        """The state as a JSON-compatible dict."""

    @abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> S:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when the data is not a valid state.
        """

    # -- records -------------------------------------------------------------

    def for_record(self, record: Mapping[str, Any]) -> Game[S, M]:
        """The engine that plays the game ``record`` describes: this one, unless the game's records carry
        facts of the box it was played with (The Grand Carnival's component values).

        :raises RecordError: naming the field when those facts are not valid.
        """
        return self

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a game record: the shared driver over the game's record hooks.

        Moves are read and judged one at a time, so the report names the
        earliest problem: an unreadable move raises `RecordError`, an illegal
        one ends the replay with ``error`` set (exit status 3).

        :raises RecordError: when the record is not valid (exit status 2).
        """
        state = self.record_start(record)
        result = replay_moves(self, state, self.record_moves(record))
        rows = [self.replay_row(step) for step in result.played]
        data = self.replay_fields(result, rows)
        data = {**self.envelope(result.state, rows, result.error), **data}
        if result.error is not None:
            data["error"] = result.error
        else:
            data.setdefault("error", None)
        return ReplayReport(data, self.replay_text(result, data), illegal=result.error is not None)

    def record_start(self, record: Mapping[str, Any]) -> S:
        """The opening state a record describes (hook of the replay driver).

        :raises RecordError: naming the field that is wrong.
        """
        raise RecordError(f"{self.info.title} has no game records", "game")

    def record_moves(self, record: Mapping[str, Any]) -> list[Any]:
        """The record's ``"moves"`` list (hook of the replay driver).

        :raises RecordError: when it is missing or not a list.
        """
        from scorer.fields import require

        return list(require(record, "moves", list))

    def record_ended(self, state: S) -> str | None:
        """A sentence when a record may hold no more moves here, else None (hook of the replay driver).

        By default a move after the end is read and judged like any other
        (`check` says the game is over); Big Top stops at the end of a hand.
        """
        return None

    def read_record_move(self, state: S, entry: Any, where: str) -> M:
        """One entry of a record's ``"moves"`` as a move (hook of the replay driver).

        The default reads the game's notation (`parse_move`).

        :raises RecordError: naming ``where`` when the entry cannot be read.
        """
        if not isinstance(entry, str):
            raise RecordError(f"{where} must be a move written as text", where)
        try:
            return self.parse_move(state, entry)
        except NotYourTurn:
            raise
        except UnknownComponent as exc:
            raise UnknownComponent(f"{where}: {exc}", where) from None
        except (MalformedMove, RecordError) as exc:
            raise RecordError(f"{where}: {exc}", where) from None

    def replay_row(self, step: Played[S, M]) -> dict[str, Any]:
        """The report's row for one replayed move (hook of the replay driver)."""
        row: dict[str, Any] = {
            "index": step.index,
            "move": step.text if isinstance(step.text, str) else self.format_move(step.before, step.move),
            "events": [e.text for e in step.events],
        }
        if not step.check.is_legal:
            row["unverified"] = step.check.message
        return row

    def replay_fields(self, result: Replayed[S, M], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """The game's own fields of the replay report, beside the envelope (hook)."""
        return {}

    def replay_text(self, result: Replayed[S, M], data: Mapping[str, Any]) -> str:
        """The readable table of a replay (hook of the replay driver)."""
        state = result.state
        players = self.seat_names(state)
        lines = [f"{self.info.title}: {', '.join(players)}"]
        for row in data["moves"]:
            lines.append(f"{row.get('index', '')!s:>4}  {row['move']}")
        if result.error is not None:
            lines.append(f"ILLEGAL move {result.error['index']}: {result.error['move']}")
            lines.append(f"        {result.error['reason']}")
        scores = data["scores"]
        lines += [f"{name:<12}{scores[name]:>6}" for name in players]
        if data["winners"]:
            lines.append("Winners: " + ", ".join(data["winners"]))
        return "\n".join(lines)

    def seat_names(self, state: S) -> tuple[str, ...]:
        """The players' names in seat order (the states of every game hold them)."""
        names = getattr(state, "players", None)
        if not isinstance(names, tuple):
            raise NotImplementedError(f"{type(self).__name__}.seat_names")
        return cast(tuple[str, ...], names)

    def envelope(
        self, state: S, moves: Sequence[Any], error: Mapping[str, Any] | None, finished: bool | None = None
    ) -> dict[str, Any]:
        """The fields every replay report shares (docs/records.md).

        ``game``; ``players`` (names in seat order); ``finished``; ``moves``
        (the report's rows); ``scores`` (name -> score as it stands);
        ``winners`` (names; empty until the game is over or when a move is
        illegal); ``error`` (``{"index", "move", "reason"}`` or null).
        """
        names = self.seat_names(state)
        over = self.is_over(state) if finished is None else finished
        outcome = self.outcome(state) if over and error is None else None
        return {
            "game": self.name,
            "players": list(names),
            "finished": over,
            "moves": list(moves),
            "scores": dict(zip(names, self.scores(state))),
            "winners": [] if outcome is None else [names[w] for w in outcome.winners],
            "error": None if error is None else dict(error),
        }

    def simulate(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> dict[str, Any]:
        """Play random legal moves with full information and return the record.

        The shared driver: `new_state`, then `record_of` for the record's
        opening fields, then `random_move` and `format_move` until the game is
        over. ``hands`` is dropped for games without hands.
        """
        options.pop("hands", None)
        state = self.new_state(players or self.default_names(), rng, **options)
        record = self.record_of(state, **options)
        texts: list[str] = record.setdefault("moves", [])
        # Bound once: this loop is what the simulation benchmarks measure.
        is_over, random_move, format_move, apply = self.is_over, self.random_move, self.format_move, self.apply_unchecked
        while not is_over(state):
            move = random_move(state, rng)
            texts.append(format_move(state, move))
            state, _ = apply(state, move)
        return record

    def default_names(self) -> tuple[str, ...]:
        """The seats `simulate` uses when none are given."""
        count = max(self.info.min_players, min(self.default_players, self.info.max_players))
        return DEFAULT_NAMES[:count]

    def record_of(self, state: S, **options: Any) -> dict[str, Any]:
        """A record (no moves yet) that sets up exactly this fresh state (hook of `simulate`)."""
        raise NotImplementedError(f"{type(self).__name__}.record_of")

    def random_move(self, state: S, rng: random.Random) -> M:
        """A random legal move for `simulate`: uniform over `legal_moves` by default."""
        options = self.legal_moves(state)
        return options[rng.randrange(len(options))]

    def score_position(self, data: Mapping[str, Any]) -> ReplayReport:
        """Score an end-of-game position (games that support ``ringside score``).

        :raises RecordError: when the position is not valid.
        """
        raise RecordError(f"{self.info.title} has no end-of-game position scoring", "game")


@dataclass(frozen=True, slots=True)
class Played(Generic[S, M]):
    """One move the replay driver read, judged and played."""

    index: int
    #: The record's entry for the move (text for most games).
    text: Any
    move: M
    before: S
    after: S
    check: Check
    events: tuple[Event, ...]


@dataclass(slots=True)
class Replayed(Generic[S, M]):
    """What `replay_moves` did: the moves played and the first illegal one."""

    start: S
    state: S
    played: list[Played[S, M]] = field(default_factory=list)
    #: ``{"index", "move", "reason"}`` of the first illegal move, else None.
    error: dict[str, Any] | None = None


def replay_moves(
    game: Game[S, M], state: S, entries: Sequence[Any], where: str = "moves"
) -> Replayed[S, M]:
    """Read, judge and play a record's moves one at a time, from ``state``.

    The replay stops at the first illegal move (``error``); an entry that
    cannot be read raises `RecordError` only when every move before it was
    legal, so the earliest problem is the one reported.

    :raises RecordError: naming ``where[i]`` for the first unreadable entry.
    """
    result: Replayed[S, M] = Replayed(start=state, state=state)
    for i, entry in enumerate(entries):
        over = game.record_ended(state)
        if over is not None:
            result.error = {"index": i, "move": entry, "reason": over}
            break
        try:
            move = game.read_record_move(state, entry, f"{where}[{i}]")
        except NotYourTurn as exc:
            result.error = {"index": i, "move": entry, "reason": str(exc)}
            break
        verdict = game.check(state, move)
        if verdict.is_illegal:
            shown = entry if isinstance(entry, str) else game.format_move(state, move)
            result.error = {"index": i, "move": shown, "reason": verdict.message}
            break
        after, events = game.apply_unchecked(state, move)
        result.played.append(Played(i, entry, move, state, after, verdict, events))
        state = after
    result.state = state
    return result


def mover_and_text(players: Sequence[str], text: str) -> tuple[str | None, str]:
    """Split a leading player name off a move text: ``("Ann", "turn")`` for ``"Ann turn"``.

    The notation rule of every game names the mover first; records written
    before the rule (no name) still read, giving ``(None, text)``.

    >>> mover_and_text(("Ann", "Ben"), "Ben take red-5")
    ('Ben', 'take red-5')
    >>> mover_and_text(("Ann", "Ben"), "take red-5")
    (None, 'take red-5')
    """
    head, _, rest = text.strip().partition(" ")
    if head in players and rest.strip():
        return head, rest.strip()
    return None, text


def parse_named(players: Sequence[str], to_move: int | None, text: str, parse: Callable[[str], M]) -> M:
    """Read a move whose text may start with the mover's name (the notation rule).

    ``parse`` reads the move without the name; a text without a name (an old
    record) is read as it is. A first word that is a player's name but leaves
    no readable move is read as part of the move.

    :raises NotYourTurn: when the text names a player who is not ``to_move``.
    :raises MalformedMove: when the text is not a move.
    """
    name, rest = mover_and_text(players, text)
    if name is None:
        return parse(text)
    try:
        move = parse(rest)
    except MalformedMove:
        return parse(text)
    if to_move is None:
        raise NotYourTurn("The game is over: no one is to move.")
    if players[to_move] != name:
        raise NotYourTurn(f"It is {players[to_move]}'s turn, not {name}'s.")
    return move


def random_playout(
    game: Game[S, M], state: S, rng: random.Random, max_moves: int = 100_000
) -> tuple[S, list[M]]:
    """Play uniformly random legal moves from ``state`` until the game is over.

    Returns the final state and the moves played. Moves are applied with
    `Game.apply_unchecked`, since they come from `Game.legal_moves`.
    """
    moves: list[M] = []
    for _ in range(max_moves):
        if game.is_over(state):
            return state, moves
        options = game.legal_moves(state)
        move = options[rng.randrange(len(options))]
        state, _ = game.apply_unchecked(state, move)
        moves.append(move)
    raise RuntimeError(f"{game.name}: no end after {max_moves} moves")
