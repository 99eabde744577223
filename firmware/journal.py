"""The referee's journal: every game, hand, move and correction in SQLite.

The journal is what makes a power cut harmless. Each accepted move is written
together with the state it leads to, in one transaction, so after a restart
the referee resumes exactly where the last committed move left the table:

>>> import random, scorer
>>> game = scorer.get("bigtop")
>>> journal = Journal.open(":memory:")
>>> state = game.new_state(["Alf", "Henry", "Charles"], random.Random(1))
>>> live = journal.new_game(game, state.players)
>>> live.start_part({"dealer": "Alf", "investments": {}}, state)
1
>>> move = game.legal_moves(state)[0]
>>> _ = live.play(move)
>>> live.moves()
['Henry call clowns-L4']
>>> live.undo()
'Henry call clowns-L4'
>>> live.moves()
[]
>>> journal.close()

The journal knows no game. A game is played in one or more *parts*, each
with its own record header and moves: a Big Top hand is a part; a game played
in one go (Carcassonne) is one part. What a game learns about a part after it
started (the tokens turned up at the end of a Big Top hand, the cards laid
open) is a *game event*, written with the fields it adds to the part's record.

Layout (append-only apart from the ``games`` row, which holds the current
state so that a resume reads one row, and each part's record header):

* ``games``: one row per game: the engine name, the players, the game-level
  record fields (e.g. Fan Tan ``peanuts``), the current state JSON, finished.
* ``parts``: one row per part: its record header (for Big Top ``dealer``, and
  what game events added) and the state before its first move.
* ``entries``: one row per accepted move, override or undo, in order, each with
  the state JSON after it. An undo names the entry it reverts.
* ``events``: one row per game event: its kind, the record fields it added to
  its part, when.

Schema 1 (with ``hands`` instead of ``parts``) is upgraded in place on open.

Every write runs in one ``BEGIN IMMEDIATE … COMMIT`` transaction, in WAL mode
with ``synchronous=FULL``, so a committed move survives a power cut and a
half-written one leaves no trace.
"""

from __future__ import annotations

import enum
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

import scorer
from scorer.core import Event, Game, TableError

__all__ = ["EntryKind", "Journal", "JournalEntry", "JournalError", "LiveGame", "SCHEMA_VERSION"]

#: Stored in ``PRAGMA user_version``; a journal written by a newer schema is refused.
SCHEMA_VERSION = 2

#: The first bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"

S = TypeVar("S")
M = TypeVar("M")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    header TEXT NOT NULL,
    state TEXT,
    finished INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS parts (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    header TEXT NOT NULL,
    start_state TEXT NOT NULL,
    UNIQUE (game_id, number)
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    part_id INTEGER NOT NULL REFERENCES parts(id),
    kind TEXT NOT NULL CHECK (kind IN ('move', 'override', 'undo')),
    notation TEXT NOT NULL,
    state TEXT NOT NULL,
    reverts INTEGER UNIQUE REFERENCES entries(id),
    note TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_part ON entries (part_id, id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    part_id INTEGER NOT NULL REFERENCES parts(id),
    kind TEXT NOT NULL,
    fields TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


def _upgrade_from_1(db: sqlite3.Connection) -> None:
    """Schema 1 -> 2: ``hands`` become ``parts``; a hand's ``final_hands`` column moves into its header."""
    db.execute("ALTER TABLE hands RENAME TO parts")
    db.execute("ALTER TABLE entries RENAME COLUMN hand_id TO part_id")
    db.execute("DROP INDEX IF EXISTS entries_by_hand")
    for part_id, header, final in db.execute("SELECT id, header, final_hands FROM parts").fetchall():
        if final is not None:
            fields = json.loads(header)
            fields["final_hands"] = json.loads(final)
            db.execute("UPDATE parts SET header = ? WHERE id = ?", (_dumps(fields), part_id))
    db.execute("ALTER TABLE parts DROP COLUMN final_hands")


class JournalError(TableError, RuntimeError):
    """The journal cannot do what was asked (nothing to undo, no hand started, a bad file)."""


class EntryKind(enum.Enum):
    """What a journal entry records."""

    #: A move the rules engine accepted.
    MOVE = "move"
    #: A move the players forced through against the referee's verdict.
    OVERRIDE = "override"
    #: The reversal of an earlier move or override (UNDO button).
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One row of the journal as stored."""

    id: int
    part: int
    kind: EntryKind
    notation: str
    state: Mapping[str, Any]
    reverts: int | None
    note: str
    at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


class Journal:
    """An SQLite journal file. Use `Journal.open`; close it (or use ``with``) when done."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db: sqlite3.Connection | None = connection
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Open or create the journal at ``path`` (``":memory:"`` for a throwaway one).

        The folder is created when missing.

        :raises JournalError: when the file is not a Ringside journal or cannot be opened.
        """
        name = str(path)
        try:
            if name != ":memory:":
                Path(name).expanduser().parent.mkdir(parents=True, exist_ok=True)
                name = str(Path(name).expanduser())
            db = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
        except OSError as exc:
            raise JournalError(f"cannot create the journal {name}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {name}: {exc}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise JournalError(
                    f"the journal {name} was written by a newer Ringside (schema {version}); upgrade Ringside"
                )
            db.execute("BEGIN IMMEDIATE")
            if version == 1:
                _upgrade_from_1(db)
            # Not executescript: it commits on its own. One statement at a time, in one transaction.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            db.close()
            raise JournalError(f"cannot open the journal {name}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            db.close()
            raise JournalError(f"{name} is not a Ringside journal: {exc}") from None
        except JournalError:
            db.close()
            raise
        return cls(db, name)

    @classmethod
    def open_readonly(cls, path: str | Path) -> Journal:
        """Open an existing journal to read it (``ringside export``); nothing is ever written to it.

        A file that is not a Ringside journal (empty, text, another SQLite database) is
        refused untouched: it is not turned into a journal.

        :raises JournalError: in one line, when the file is missing, unreadable or not a journal.
        """
        p = Path(path).expanduser()
        try:
            with open(p, "rb") as fh:
                head = fh.read(len(_SQLITE_MAGIC))
        except FileNotFoundError:
            raise JournalError(f"no journal at {p}") from None
        except IsADirectoryError:
            raise JournalError(f"{p} is a folder, not a journal") from None
        except OSError as exc:
            raise JournalError(f"cannot read the journal {p}: {exc.strerror or exc}") from None
        if head != _SQLITE_MAGIC:
            what = "an empty file" if not head else "not an SQLite file"
            raise JournalError(f"{p} is not a Ringside journal ({what})")
        try:
            db = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                 check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {p}: {exc}") from None
        try:
            db.execute("PRAGMA query_only=ON")
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise JournalError(f"the journal {p} was written by a newer Ringside (schema {version}); upgrade Ringside")
            tables = {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            needed = {"games", "hands", "entries"} if version == 1 else {"games", "parts", "entries", "events"}
            if version < 1 or not needed <= tables:
                raise JournalError(f"{p} is an SQLite file but not a Ringside journal")
            if version < SCHEMA_VERSION:
                # an older journal is upgraded in a copy in memory: the file itself stays untouched
                memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
                db.backup(memory)
                db.close()
                db = memory
                db.execute("BEGIN IMMEDIATE")
                _upgrade_from_1(db)
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
                db.execute("PRAGMA query_only=ON")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise JournalError(f"{p} is not a Ringside journal: {exc}") from None
        except JournalError:
            db.close()
            raise
        return cls(db, str(p))

    # -- life cycle ------------------------------------------------------------

    def close(self) -> None:
        """Close the file. Closing twice is harmless."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection.

        :raises JournalError: after `close`.
        """
        if self._db is None:
            raise JournalError(f"the journal {self.path} is closed")
        return self._db

    def pragma(self, name: str) -> Any:
        """The value of an SQLite pragma (``journal_mode``, ``synchronous``), for checks."""
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a pragma name")
        return self.db.execute(f"PRAGMA {name}").fetchone()[0]

    # -- games -------------------------------------------------------------------

    def new_game(
        self, game: Game[S, M], players: Sequence[str], header: Mapping[str, Any] | None = None
    ) -> LiveGame[S, M]:
        """Start a new game; an unfinished game of the same game is marked finished (abandoned).

        An unfinished game of another game stays in progress: a night that switches from Big
        Top to Fan Tan and back resumes the Big Top game. ``header`` holds game-level record
        fields, e.g. Fan Tan's ``peanuts``.
        """
        now = _now()
        with _transaction(self.db):
            self.db.execute("UPDATE games SET finished = 1 WHERE finished = 0 AND game = ?", (game.name,))
            cur = self.db.execute(
                "INSERT INTO games (game, players, header, state, finished, created, updated) "
                "VALUES (?, ?, ?, NULL, 0, ?, ?)",
                (game.name, _dumps(list(players)), _dumps(dict(header or {})), now, now),
            )
        assert cur.lastrowid is not None
        return LiveGame(self, game, cur.lastrowid)

    def game_ids(self) -> list[int]:
        """Every game in the journal, oldest first."""
        return [int(r[0]) for r in self.db.execute("SELECT id FROM games ORDER BY id")]

    def resume(self, game: str | None = None) -> LiveGame[Any, Any] | None:
        """The game in progress (the newest unfinished one, of the game named ``game`` when given), or None.

        :raises JournalError: when its engine is unknown or its stored state is unreadable.
        """
        if game is None:
            row = self.db.execute("SELECT id FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self.db.execute("SELECT id FROM games WHERE finished = 0 AND game = ? ORDER BY id DESC LIMIT 1",
                                  (game,)).fetchone()
        return None if row is None else self.game(int(row[0]))

    def game(self, game_id: int) -> LiveGame[Any, Any]:
        """The journal's game number ``game_id``, played by the engine its record names
        (`scorer.core.Game.for_record`: The Grand Carnival with the component values it was started with).

        :raises JournalError: when there is no such game, its engine is unknown or the facts it was
            played with are not valid.
        """
        row = self.db.execute("SELECT game, header FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise JournalError(f"the journal has no game {game_id}")
        try:
            engine: Game[Any, Any] = scorer.get(row[0])
        except TableError:
            raise JournalError(f"game {game_id} of the journal is {row[0]!r}, which this Ringside cannot play") from None
        start = self.db.execute("SELECT header FROM parts WHERE game_id = ? ORDER BY number LIMIT 1",
                                (game_id,)).fetchone()
        try:
            fields = {**json.loads(row[1]), **(json.loads(start[0]) if start is not None else {})}
            engine = engine.for_record(fields)
        except TableError as exc:
            raise JournalError(f"game {game_id} of the journal cannot be played: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise JournalError(f"game {game_id}: its header in the journal is unreadable: {exc}") from None
        return LiveGame(self, engine, game_id)

    def export(self, game_id: int | None = None) -> dict[str, Any]:
        """The game (default: the newest) as a game record in the RECORDS.md format.

        :raises JournalError: when the journal holds no game, or the game has no hand.
        """
        if game_id is None:
            ids = self.game_ids()
            if not ids:
                raise JournalError("the journal holds no game to export")
            game_id = ids[-1]
        return self.game(game_id).export()


class _transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` when the block raises.

    SQLite failures (a full disk, a locked or read-only file) become `JournalError`.
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal: {exc}") from None
        return self.db

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error as exc:
                error: BaseException | None = exc
        else:
            error = value
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise JournalError(f"cannot write the journal: {error}") from None


class LiveGame(Generic[S, M]):
    """One game of the journal, with its current state.

    Moves go through `play` (checked by the rules engine), `override` (the
    players insist) and `undo`; each writes the entry and the new state in one
    transaction and updates `state` only once the transaction has committed.
    """

    def __init__(self, journal: Journal, game: Game[S, M], game_id: int) -> None:
        self.journal = journal
        self.game = game
        self.id = game_id
        row = self._db.execute("SELECT players, state FROM games WHERE id = ?", (game_id,)).fetchone()
        self.players: tuple[str, ...] = tuple(json.loads(row[0]))
        self._state: S | None = None if row[1] is None else self._load(row[1], "the current state")

    @property
    def _db(self) -> sqlite3.Connection:
        return self.journal.db

    def _load(self, text: str, what: str) -> S:
        try:
            return self.game.state_from_json(json.loads(text))
        except (TableError, ValueError) as exc:
            raise JournalError(f"game {self.id}: {what} in the journal is unreadable: {exc}") from None

    # -- queries -------------------------------------------------------------------

    @property
    def state(self) -> S:
        """The state after the last committed entry.

        :raises JournalError: before the first part is started.
        """
        if self._state is None:
            raise JournalError(f"game {self.id} has not started yet")
        return self._state

    @property
    def has_state(self) -> bool:
        """True once the first part has been started."""
        return self._state is not None

    @property
    def header(self) -> dict[str, Any]:
        """The game-level record fields given to `Journal.new_game`."""
        row = self._db.execute("SELECT header FROM games WHERE id = ?", (self.id,)).fetchone()
        header: dict[str, Any] = json.loads(row[0])
        return header

    @property
    def finished(self) -> bool:
        """True once `finish` was called (or a newer game replaced this one)."""
        row = self._db.execute("SELECT finished FROM games WHERE id = ?", (self.id,)).fetchone()
        return bool(row[0])

    def part_number(self) -> int:
        """The number of the current part (1 for the first), 0 before any."""
        row = self._db.execute("SELECT MAX(number) FROM parts WHERE game_id = ?", (self.id,)).fetchone()
        return int(row[0] or 0)

    def _part_id(self) -> int:
        row = self._db.execute(
            "SELECT id FROM parts WHERE game_id = ? ORDER BY number DESC LIMIT 1", (self.id,)
        ).fetchone()
        if row is None:
            raise JournalError(f"game {self.id} has not started yet")
        return int(row[0])

    def entries(self, part: int | None = None) -> list[JournalEntry]:
        """Every entry of the game (or of part number ``part``), in order, undos included."""
        sql = (
            "SELECT e.id, p.number, e.kind, e.notation, e.state, e.reverts, e.note, e.at "
            "FROM entries e JOIN parts p ON p.id = e.part_id WHERE e.game_id = ?"
        )
        args: tuple[Any, ...] = (self.id,)
        if part is not None:
            sql += " AND p.number = ?"
            args += (part,)
        rows = self._db.execute(sql + " ORDER BY e.id", args).fetchall()
        return [
            JournalEntry(int(r[0]), int(r[1]), EntryKind(r[2]), r[3], json.loads(r[4]), r[5], r[6], r[7])
            for r in rows
        ]

    def events(self, part: int | None = None) -> list[tuple[str, dict[str, Any]]]:
        """The game events (kind, the record fields they added) of the game or of part number ``part``."""
        sql = "SELECT e.kind, e.fields FROM events e JOIN parts p ON p.id = e.part_id WHERE e.game_id = ?"
        args: tuple[Any, ...] = (self.id,)
        if part is not None:
            sql += " AND p.number = ?"
            args += (part,)
        return [(r[0], json.loads(r[1])) for r in self._db.execute(sql + " ORDER BY e.id", args)]

    def _active(self, part_id: int) -> list[tuple[int, str, str]]:
        """(id, notation, state) of the part's moves and overrides that no undo reverted."""
        return [
            (int(r[0]), r[1], r[2])
            for r in self._db.execute(
                "SELECT id, notation, state FROM entries WHERE part_id = ? AND kind != 'undo' "
                "AND id NOT IN (SELECT reverts FROM entries WHERE reverts IS NOT NULL) ORDER BY id",
                (part_id,),
            )
        ]

    def moves(self, part: int | None = None) -> list[str]:
        """The notation of the standing moves of part number ``part`` (default: the current one)."""
        if part is None:
            part_id = self._part_id()
        else:
            row = self._db.execute(
                "SELECT id FROM parts WHERE game_id = ? AND number = ?", (self.id, part)
            ).fetchone()
            if row is None:
                raise JournalError(f"game {self.id} has no part {part}")
            part_id = int(row[0])
        return [notation for _, notation, _ in self._active(part_id)]

    # -- writing -----------------------------------------------------------------

    def start_part(self, header: Mapping[str, Any], state: S) -> int:
        """Begin a part (a Big Top hand) with its record header (``dealer``…) and first state.

        Returns the part's number (1 for the first).
        """
        state_text = _dumps(self.game.state_to_json(state))
        with _transaction(self._db) as db:
            number = int(
                db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM parts WHERE game_id = ?", (self.id,))
                .fetchone()[0]
            )
            db.execute(
                "INSERT INTO parts (game_id, number, header, start_state) VALUES (?, ?, ?, ?)",
                (self.id, number, _dumps(dict(header)), state_text),
            )
            db.execute(
                "UPDATE games SET state = ?, updated = ? WHERE id = ?", (state_text, _now(), self.id)
            )
        self._state = state
        return number

    def play(self, move: M, note: str = "") -> tuple[Event, ...]:
        """Play ``move`` through the rules engine and journal it with the new state.

        :raises IllegalMove: when the rules refuse it (nothing is written).
        """
        before = self.state
        after, events = self.game.play(before, move)
        self._append(EntryKind.MOVE, self.game.format_move(before, move), after, None, note)
        return events

    def override(self, move: M, note: str = "") -> tuple[Event, ...]:
        """Journal ``move`` without the rules' consent: the players agreed it stands."""
        before = self.state
        after, events = self.game.apply_unchecked(before, move)
        self._append(EntryKind.OVERRIDE, self.game.format_move(before, move), after, None, note)
        return events

    def undo(self, note: str = "") -> str:
        """Revert the last standing move of the current part; returns its notation.

        :raises JournalError: when the part has no move to undo.
        """
        part_id = self._part_id()
        active = self._active(part_id)
        if not active:
            raise JournalError("there is no move to undo")
        target, notation, _ = active[-1]
        if len(active) > 1:
            previous = active[-2][2]
        else:
            previous = self._db.execute("SELECT start_state FROM parts WHERE id = ?", (part_id,)).fetchone()[0]
        state = self._load(previous, "the state before the undone move")
        self._append(EntryKind.UNDO, notation, state, target, note, state_text=previous)
        return notation

    def _append(
        self, kind: EntryKind, notation: str, state: S, reverts: int | None, note: str,
        state_text: str | None = None,
    ) -> None:
        text = state_text if state_text is not None else _dumps(self.game.state_to_json(state))
        now = _now()
        part_id = self._part_id()
        with _transaction(self._db) as db:
            db.execute(
                "INSERT INTO entries (game_id, part_id, kind, notation, state, reverts, note, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (self.id, part_id, kind.value, notation, text, reverts, note, now),
            )
            db.execute("UPDATE games SET state = ?, updated = ? WHERE id = ?", (text, now, self.id))
        self._state = state

    def part_header(self) -> dict[str, Any]:
        """The record header of the current part, with the fields its game events added."""
        row = self._db.execute("SELECT header FROM parts WHERE id = ?", (self._part_id(),)).fetchone()
        header: dict[str, Any] = json.loads(row[0])
        return header

    def record_event(self, kind: str, fields: Mapping[str, Any]) -> None:
        """Journal a game event of the current part and the record fields it adds, in one transaction.

        For example Big Top's end-of-hand reveal: ``record_event("reveal", {"investments": …,
        "final_hands": …})``. A later event may replace a field an earlier one set (a corrected token).
        """
        part_id = self._part_id()
        header = self.part_header()
        header.update(fields)
        with _transaction(self._db) as db:
            db.execute(
                "INSERT INTO events (game_id, part_id, kind, fields, at) VALUES (?, ?, ?, ?, ?)",
                (self.id, part_id, kind, _dumps(dict(fields)), _now()),
            )
            db.execute("UPDATE parts SET header = ? WHERE id = ?", (_dumps(header), part_id))

    def finish(self) -> None:
        """Mark the game finished: `Journal.resume` no longer offers it."""
        with _transaction(self._db) as db:
            db.execute("UPDATE games SET finished = 1, updated = ? WHERE id = ?", (_now(), self.id))

    # -- export --------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """The game as a game record (docs/records.md): one part, or ``hands`` for several.

        Overrides are exported as moves (a replay will say whether they were
        legal); undone moves are left out.

        :raises JournalError: when the game has not started.
        """
        record: dict[str, Any] = {"game": self.game.name, "players": list(self.players)}
        record.update(self.header)
        parts = []
        for part_id, header in self._db.execute(
            "SELECT id, header FROM parts WHERE game_id = ? ORDER BY number", (self.id,)
        ).fetchall():
            part: dict[str, Any] = json.loads(header)
            final = part.pop("final_hands", None)
            part["moves"] = self._record_moves(int(part_id))
            if final is not None:
                part["final_hands"] = final
            parts.append(part)
        if not parts:
            raise JournalError(f"game {self.id} has not started: nothing to export")
        if len(parts) == 1:
            record.update(parts[0])
        else:
            record["hands"] = parts
        return record

    def _record_moves(self, part_id: int) -> list[Any]:
        """The record entries of the part's standing moves: their notation, or what the game's records hold."""
        active = self._active(part_id)
        if type(self.game).record_entry is Game.record_entry:
            return [notation for _, notation, _ in active]
        start = self._db.execute("SELECT start_state FROM parts WHERE id = ?", (part_id,)).fetchone()[0]
        state = self._load(start, "the state a part starts from")
        out = []
        for _, notation, after in active:
            out.append(self.game.record_entry(state, self.game.parse_move(state, notation)))
            state = self._load(after, "the state after a move")
        return out

    def check_consistency(self) -> None:
        """Check that the stored current state is the state of the last standing entry.

        :raises JournalError: when they differ (the journal was edited by hand).
        """
        row = self._db.execute("SELECT state FROM games WHERE id = ?", (self.id,)).fetchone()
        if row[0] is None:
            return
        part_id = self._part_id()
        last = self._db.execute(
            "SELECT state FROM entries WHERE part_id = ? ORDER BY id DESC LIMIT 1", (part_id,)
        ).fetchone()
        expected = last[0] if last is not None else self._db.execute(
            "SELECT start_state FROM parts WHERE id = ?", (part_id,)
        ).fetchone()[0]
        if expected != row[0]:
            raise JournalError(f"game {self.id}: the current state does not match the last journal entry")
