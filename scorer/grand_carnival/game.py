"""The Grand Carnival on the Ringside contract: `GrandCarnival` and its records."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from scorer import register
from scorer.core import (
    Check,
    Event,
    Game,
    GameInfo,
    MalformedMove,
    Outcome,
    Played,
    RecordError,
    Replayed,
    ReplayReport,
    UnknownComponent,
)
from scorer.fields import player_names, require, whole_number
from scorer.grand_carnival import codec, rules
from scorer.grand_carnival.components import (
    CATALOG,
    Catalog,
    CatalogError,
    catalog_of,
    component_changes,
    describe_changes,
    merge_components,
    shipped_data,
)
from scorer.grand_carnival.model import (
    INFO,
    ROUNDS,
    Board,
    CarnivalState,
    Move,
    Railyard,
    Reason,
    TrickStatus,
)
from scorer.grand_carnival.scoring import Breakdown, score_board

__all__ = ["GrandCarnival"]

_NAMES = ("grand-carnival", "carnival")
#: Seed used for shuffles when a record gives none.
DEFAULT_SEED = 0


@register
class GrandCarnival(Game[CarnivalState, Move]):
    """The Grand Carnival (seed 002): build a fairground market, score it after 7 rounds.

    ``GrandCarnival(components)`` plays with other component values: a table
    in the layout of ``components.toml`` (parsed TOML or JSON) whose entries
    replace the shipped ones (`merge_components`). Records written by
    `simulate` carry the values in ``"components"``; `replay` plays a record
    with its own values (`for_record`).

    >>> import random, scorer
    >>> game = scorer.get("carnival")
    >>> state = game.new_state(["Ann", "Ben"], random.Random(1))
    >>> move = game.parse_move(state, "Ann 1 guest in1 b1")
    >>> game.check(state, move).message
    'Guests walk on walkways only; b1 is an empty parcel.'
    >>> game.format_move(state, game.legal_moves(state)[0])  # doctest: +ELLIPSIS
    'Ann 1 foundation 1a ...'
    """

    name: ClassVar[str] = "grand-carnival"
    aliases: ClassVar[tuple[str, ...]] = ("carnival",)
    info: ClassVar[GameInfo] = INFO
    #: The component facts the engine plays with.
    catalog: Catalog = CATALOG
    #: The values ``catalog`` was built from, in the layout of ``components.toml``.
    components: Mapping[str, Any]
    #: Player count `simulate` uses when none is given.
    default_players: ClassVar[int] = 4

    def __init__(self, components: Mapping[str, Any] | None = None, source: str = "components") -> None:
        """The game with the shipped components, or with ``components`` in their place.

        :raises CatalogError: one line naming ``source`` and the key when a value is wrong.
        """
        if components is None:
            self.components = shipped_data()
        else:
            self.components = merge_components(shipped_data(), components, source)
            self.catalog = catalog_of(self.components, source)

    def changed_components(self) -> dict[str, Any]:
        """The component values this game plays with that differ from the shipped ones."""
        return component_changes(self.components)

    def for_record(self, record: Mapping[str, Any]) -> GrandCarnival:
        """The game a record was played with: its ``"components"`` over the shipped values.

        A record without ``"components"`` is played with this game's values.

        :raises RecordError: naming ``components`` when the record's values are not valid.
        """
        if not isinstance(record, Mapping) or "components" not in record:
            return self
        raw = record["components"]
        if not isinstance(raw, Mapping):
            raise RecordError("components must be an object of component values", "components")
        if raw == self.components:
            return self
        try:
            return type(self)(raw, "the record's components")
        except CatalogError as exc:
            raise RecordError(str(exc), "components") from None

    # -- state -----------------------------------------------------------------

    def setup(
        self,
        players: Sequence[str],
        tricks: Sequence[str],
        stacks: tuple[tuple[str | None, ...], tuple[str | None, ...]],
        open_tiles: tuple[str | None, ...],
        seed: int | None,
        start: int = 0,
    ) -> CarnivalState:
        """A fresh state from explicit facts: the dealt tricks and the railyard."""
        n = len(players)
        cat = self.catalog
        board = codec.board_from_parts(
            (None,) * 16,
            (),
            0,
            (True, True),
            0,
            0,
            frozenset(),
            (TrickStatus.OPEN,) * len(tricks),
            cat,
        )
        return CarnivalState(
            players=tuple(players),
            boards=(board,) * n,
            railyard=Railyard(stacks=stacks, open=open_tiles, discard=()),
            supply=cat.shape_supply(n),
            barkers=cat.barkers[n - 1],
            tricks=tuple(tricks),
            round=0,
            start_player=start,
            turn=0,
            seed=seed,
            reshuffles=0,
        )

    def _deal(self, rng: random.Random) -> tuple[
        list[str], tuple[tuple[str | None, ...], tuple[str | None, ...]], tuple[str | None, ...]
    ]:
        cat = self.catalog
        tricks = rng.sample(sorted(cat.tricks), cat.tricks_dealt)
        tiles = [p for p, count in cat.foundations.items() for _ in range(count)]
        rng.shuffle(tiles)
        # [DECISION] four tiles open on spaces 2..5, the rest split into two
        # face-down stacks of (nearly) equal height.
        open_tiles = tuple(tiles[:4])
        rest = tiles[4:]
        half = (len(rest) + 1) // 2
        return tricks, (tuple(rest[:half]), tuple(rest[half:])), open_tiles

    def new_state(self, players: Sequence[str], rng: random.Random, **options: Any) -> CarnivalState:
        """A fresh table: tricks dealt and foundation tiles shuffled with ``rng``.

        :raises RecordError: for fewer than 1 or more than 4 players.
        """
        names = player_names(list(players), "players", self.info)
        tricks, stacks, open_tiles = self._deal(rng)
        start = options.get("start", 0)
        if not isinstance(start, int) or not 0 <= start < len(names):
            raise RecordError("start must be a seat number", "start")
        return self.setup(names, tricks, stacks, open_tiles, rng.randrange(2**31), start)

    def current_player(self, state: CarnivalState) -> int | None:
        """The seat to move, None after the seventh round."""
        return rules.current_seat(state)

    def is_over(self, state: CarnivalState) -> bool:
        """True after 7 rounds."""
        return state.round >= ROUNDS

    def breakdowns(self, state: CarnivalState) -> tuple[Breakdown, ...]:
        """Every market's score by line of the scoring table, as it stands."""
        return tuple(score_board(b, self.catalog) for b in state.boards)

    def scores(self, state: CarnivalState) -> tuple[int, ...]:
        """Each market's final-scoring points as it stands."""
        return tuple(b.total for b in self.breakdowns(state))

    def outcome(self, state: CarnivalState) -> Outcome | None:
        """Winners by points, then tricks learned, then tickets; else shared."""
        if not self.is_over(state):
            return None
        return _outcome(self.breakdowns(state))

    def public_view(self, state: CarnivalState) -> CarnivalState:
        """The state as the live referee sees it: the face-down stacks unseen.

        Checks that need a face-down tile then answer UNVERIFIABLE, and stacks
        rebuilt from the discard pile stay unseen too.
        """
        yard = state.railyard
        stacks = ((None,) * len(yard.stacks[0]), (None,) * len(yard.stacks[1]))
        return replace(state, railyard=replace(yard, stacks=stacks), seed=None)

    # -- moves -----------------------------------------------------------------

    def legal_moves(self, state: CarnivalState) -> list[Move]:
        """Every legal move for the player to move."""
        return rules.legal_moves(state, self.catalog)

    def check(self, state: CarnivalState, move: Move) -> Check:
        """LEGAL, ILLEGAL with a reason, or UNVERIFIABLE for an unseen railyard tile."""
        try:
            return rules.check_move(state, move, self.catalog)
        except Exception:  # noqa: BLE001 - the contract says never raise
            return Check.illegal(Reason.NOT_A_MOVE, "That is not a move of The Grand Carnival.")

    def apply_unchecked(self, state: CarnivalState, move: Move) -> tuple[CarnivalState, tuple[Event, ...]]:
        """Play a legal move without checking it."""
        return rules.apply_move(state, move, self.catalog)

    # -- notation and JSON -----------------------------------------------------

    def parse_move(self, state: CarnivalState, text: str) -> Move:
        """Read a move such as ``"Ann 3 build L3 b2 b3 c3"`` (see docs/records.md).

        :raises MalformedMove: when the text is not a move of this game.
        """
        return codec.parse_move(state, text, self.catalog)

    def format_move(self, state: CarnivalState, move: Move) -> str:
        """Write a move in the notation."""
        return codec.format_move(state, move)

    def state_to_json(self, state: CarnivalState) -> dict[str, Any]:
        """The state as a JSON object."""
        return codec.state_to_json(state, self.catalog)

    def state_from_json(self, data: Mapping[str, Any]) -> CarnivalState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when the data is not a valid state.
        """
        return codec.state_from_json(data, self.catalog)

    # -- records ---------------------------------------------------------------

    def record_state(self, record: Mapping[str, Any]) -> CarnivalState:
        """The starting state a record describes (players, tricks, railyard, seed).

        :raises RecordError: naming the field that is wrong.
        """
        if not isinstance(record, Mapping):
            raise RecordError("a game record must be a JSON object", "record")
        game = record.get("game")
        if not isinstance(game, str) or game.strip().lower() not in _NAMES:
            raise RecordError("game must be \"grand-carnival\"", "game")
        players = player_names(require(record, "players", list), "players", self.info)
        start = 0
        if "start" in record:
            if record["start"] not in players:
                raise RecordError(f"start must be one of the players, not {record['start']!r}", "start")
            start = players.index(record["start"])
        seed: int | None = DEFAULT_SEED
        if "seed" in record:
            seed = whole_number(record["seed"], "seed", lo=0)
        rng = random.Random(seed)
        tricks, stacks, open_tiles = self._deal(rng)
        if "tricks" in record:
            tricks = self._record_tricks(record["tricks"])
        if "railyard" in record:
            stacks, open_tiles = self._record_railyard(record["railyard"])
            if any(t is None for s in stacks for t in s) or any(t is None for t in open_tiles):
                seed = None if "seed" not in record else seed
        return self.setup(players, tricks, stacks, open_tiles, seed, start)

    def _record_tricks(self, value: Any) -> list[str]:
        if not isinstance(value, list) or len(value) != self.catalog.tricks_dealt:
            raise RecordError(f"tricks must list the {self.catalog.tricks_dealt} dealt tricks", "tricks")
        for i, name in enumerate(value):
            if not isinstance(name, str):
                raise RecordError(f"tricks[{i}] must be a trick name", f"tricks[{i}]")
            if name not in self.catalog.tricks:
                raise UnknownComponent(f"tricks[{i}]: there is no trick {name!r}", f"tricks[{i}]")
        if len(set(value)) != len(value):
            raise RecordError("tricks names a trick twice", "tricks")
        return list(value)

    def _record_railyard(
        self, value: Any
    ) -> tuple[tuple[tuple[str | None, ...], tuple[str | None, ...]], tuple[str | None, ...]]:
        if not isinstance(value, Mapping):
            raise RecordError("railyard must be an object with stacks and open", "railyard")
        stacks_raw = value.get("stacks")
        if not isinstance(stacks_raw, list) or len(stacks_raw) != 2:
            raise RecordError("railyard.stacks must hold two stacks", "railyard.stacks")
        stacks: list[tuple[str | None, ...]] = []
        for i, raw in enumerate(stacks_raw):
            where = f"railyard.stacks[{i}]"
            if isinstance(raw, int) and not isinstance(raw, bool):
                if raw < 0:
                    raise RecordError(f"{where} must be a list of tiles or a count >= 0", where)
                stacks.append((None,) * raw)
            else:
                stacks.append(codec.tiles_from_json(raw, where, self.catalog, True))
        open_raw = value.get("open")
        if not isinstance(open_raw, list):
            raise RecordError("railyard.open must be a list of up to 4 tiles", "railyard.open")
        open_tiles = codec.tiles_from_json(open_raw, "railyard.open", self.catalog, True)
        if len(open_tiles) > 4:
            raise RecordError("railyard.open holds at most 4 tiles", "railyard.open")
        return (stacks[0], stacks[1]), open_tiles

    record_start = record_state

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a record with the component values it names (`for_record`).

        When they differ from the shipped ``components.toml``, the report says
        which (``"components"`` in the JSON, a paragraph in the text).

        :raises RecordError: when the record is not valid.
        """
        game = self.for_record(record)
        return game._say_components(Game.replay(game, record))

    def _say_components(self, report: ReplayReport) -> ReplayReport:
        """``report`` with the component values that differ from the shipped ones, if any."""
        changes = self.changed_components()
        if not changes:
            return report
        lines = describe_changes(changes)
        text = report.text + "\nPlayed with component values that differ from the shipped components.toml:\n" + (
            "\n".join(f"  {line}" for line in lines)
        )
        return ReplayReport({**report.data, "components": changes}, text, illegal=report.illegal)

    def record_moves(self, record: Mapping[str, Any]) -> list[Any]:
        """The record's moves; a record without ``"moves"`` is a game not yet begun."""
        raw_moves = record.get("moves", [])
        if not isinstance(raw_moves, list):
            raise RecordError("moves must be a list of move texts", "moves")
        return raw_moves

    def read_record_move(self, state: CarnivalState, entry: Any, where: str) -> Move:
        """One entry of ``"moves"``: a move text; an unknown tile or attraction is named."""
        if not isinstance(entry, str):
            raise RecordError(f"{where} must be a move text", where)
        try:
            return self.parse_move(state, entry)
        except codec.UnknownName as exc:
            raise UnknownComponent(f"{where}: {exc}", where) from None
        except MalformedMove as exc:
            raise RecordError(f"{where}: {exc}", where) from None

    def replay_row(self, step: Played[CarnivalState, Move]) -> dict[str, Any]:
        """A row of the replay report: the move text and its events."""
        row: dict[str, Any] = {"move": step.text, "events": [e.text for e in step.events]}
        if not step.check.is_legal:
            row["unverified"] = step.check.message
        return row

    def replay_fields(self, result: Replayed[CarnivalState, Move], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """The round, every market's breakdown (``players``), scores and winners."""
        state = result.state
        finished = self.is_over(state) and result.error is None
        parts = self.breakdowns(state)
        outcome = _outcome(parts) if finished else None
        return {
            "finished": finished,
            "round": min(state.round + 1, ROUNDS),
            "players": {p: b.to_json() for p, b in zip(state.players, parts)},
            "scores": {p: b.total for p, b in zip(state.players, parts)},
            "winners": [state.players[w] for w in outcome.winners] if outcome else [],
        }

    def replay_text(self, result: Replayed[CarnivalState, Move], data: Mapping[str, Any]) -> str:
        """Each move with its events, the error, the scoring table and the winners."""
        state, error, rows = result.state, result.error, data["moves"]
        finished = data["finished"]
        parts = self.breakdowns(state)
        lines = [f"The Grand Carnival: {', '.join(state.players)}"]
        for i, row in enumerate(rows):
            lines.append(f"{i:4d}  {row['move']}")
            for text in row["events"]:
                lines.append(f"        {text}")
        if error is not None:
            lines.append(f"ILLEGAL move {error['index']}: {error['move']}")
            lines.append(f"        {error['reason']}")
        title = "Final scoring" if finished else f"Standing after round {data['round']} (not finished)"
        lines.append(_table(title, state.players, parts))
        if finished:
            outcome = _outcome(parts)
            lines.append(f"Winner{'s' if len(outcome.winners) > 1 else ''}: "
                         f"{', '.join(state.players[w] for w in outcome.winners)} ({outcome.reason})")
        return "\n".join(lines)

    def record_of(self, state: CarnivalState, **options: Any) -> dict[str, Any]:
        """A record (no moves yet) that sets up exactly this fresh state."""
        return {
            "game": self.name,
            "players": list(state.players),
            "start": state.players[state.start_player],
            "seed": state.seed,
            "tricks": list(state.tricks),
            "railyard": {
                "stacks": [list(state.railyard.stacks[0]), list(state.railyard.stacks[1])],
                "open": list(state.railyard.open),
            },
            "components": copy.deepcopy(dict(self.components)),
            "moves": [],
        }

    def simulate(
        self, players: Sequence[str], rng: random.Random, hands: int | None = None, **options: Any
    ) -> dict[str, Any]:
        """Play uniformly random legal moves (full information); return the record.

        ``hands`` does not apply to this game and is ignored.
        """
        return super().simulate(players, rng, **options)

    def score_position(self, data: Mapping[str, Any]) -> ReplayReport:
        """Score markets by the final-scoring table (position format in docs/records.md).

        Accepts ``{"players": [{"name", "market", "attractions", "tent", "tricks"}]}``
        or a state written by `state_to_json` (``"boards"``).

        :raises RecordError: when the position is not valid.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a position must be a JSON object", "position")
        if "game" in data and (not isinstance(data["game"], str) or data["game"].strip().lower() not in _NAMES):
            raise RecordError("game must be \"grand-carnival\"", "game")
        names: list[str]
        boards: list[Board]
        if "boards" in data:
            state = self.state_from_json(data)
            names, boards = list(state.players), list(state.boards)
        else:
            raw = data.get("players")
            if not isinstance(raw, list) or not raw:
                raise RecordError("players must be a list of markets", "players")
            names, boards = [], []
            for i, item in enumerate(raw):
                name, board = codec.position_board(item, self.catalog, f"players[{i}]")
                if name in names:
                    raise RecordError(f"players[{i}].name: {name!r} appears twice", f"players[{i}].name")
                names.append(name)
                boards.append(board)
        parts = tuple(score_board(b, self.catalog) for b in boards)
        outcome = _outcome(parts)
        out = {
            "game": self.name,
            "players": {p: b.to_json() for p, b in zip(names, parts)},
            "scores": {p: b.total for p, b in zip(names, parts)},
            "winners": [names[w] for w in outcome.winners],
            "reason": outcome.reason,
        }
        text = _table("Final scoring", tuple(names), parts)
        text += f"\nWinner{'s' if len(outcome.winners) > 1 else ''}: " + ", ".join(
            names[w] for w in outcome.winners
        ) + f" ({outcome.reason})"
        return self._say_components(ReplayReport(data=out, text=text))


def _outcome(parts: Sequence[Breakdown]) -> Outcome:
    """Most points; ties: more tricks learned, then more tickets; else shared."""
    scores = tuple(b.total for b in parts)
    best = max(scores)
    tied = [i for i, s in enumerate(scores) if s == best]
    reason = "most points"
    if len(tied) > 1:
        most = max(parts[i].tricks for i in tied)
        narrowed = [i for i in tied if parts[i].tricks == most]
        reason = "tie broken by tricks learned"
        if len(narrowed) > 1:
            most = max(parts[i].tickets_held for i in narrowed)
            narrowed = [i for i in narrowed if parts[i].tickets_held == most]
            reason = "tie broken by tickets" if len(narrowed) == 1 else "tie: the victory is shared"
        tied = narrowed
    return Outcome(winners=tuple(tied), scores=scores, reason=reason)


def _table(title: str, players: Sequence[str], parts: Sequence[Breakdown]) -> str:
    rows = [
        ("sets", [b.sets for b in parts]),
        ("variety", [b.variety for b in parts]),
        ("tent", [b.tent for b in parts]),
        ("tickets", [b.tickets for b in parts]),
        ("barkers", [b.barkers for b in parts]),
        ("hammers", [b.hammers for b in parts]),
        ("total", [b.total for b in parts]),
        ("(tickets held)", [b.tickets_held for b in parts]),
        ("(tricks learned)", [b.tricks for b in parts]),
    ]
    width = max(8, *(len(p) + 1 for p in players))
    lines = [title, " " * 17 + "".join(p.rjust(width) for p in players)]
    for label, values in rows:
        lines.append(label.ljust(17) + "".join(str(v).rjust(width) for v in values))
    return "\n".join(lines)

