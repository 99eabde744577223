"""The SQLite journal: moves and corrections with their states, resume, export, crash safety."""

from __future__ import annotations

import doctest
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import firmware.journal
import scorer
from firmware.journal import EntryKind, Journal, JournalError
from scorer.bigtop import BigTop, BigTopState
from scorer.core import IllegalMove

GAME: BigTop = scorer.get("bigtop")  # type: ignore[assignment]
PLAYERS = ("Alf", "Henry", "Charles")


def simulated(seed: int, hands: int = 2) -> dict[str, Any]:
    return GAME.simulate(list(PLAYERS), random.Random(seed), hands=hands)


def hand_start(hand: dict[str, Any]) -> BigTopState:
    from scorer.bigtop.record import parse_hand

    return parse_hand(GAME, hand, PLAYERS).start()


def header(hand: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in hand.items() if k not in ("moves", "game", "players")}


def play_record(journal: Journal, record: dict[str, Any], limit: int | None = None) -> None:
    live = journal.new_game(GAME, PLAYERS)
    count = 0
    for hand in record["hands"]:
        live.start_part(header(hand), hand_start(hand))
        for text in hand["moves"]:
            if limit is not None and count == limit:
                return
            live.play(GAME.parse_move(live.state, text))
            count += 1


def test_doctest() -> None:
    result = doctest.testmod(firmware.journal)
    assert result.attempted > 0 and result.failed == 0


def test_wal_and_full_sync(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        assert journal.pragma("journal_mode") == "wal"
        assert journal.pragma("synchronous") == 2  # FULL


def test_export_of_whole_game_replays_to_same_result(tmp_path: Path) -> None:
    record = simulated(3)
    with Journal.open(tmp_path / "j.db") as journal:
        play_record(journal, record)
        exported = journal.export()
    assert exported == record
    assert GAME.replay(exported).data == GAME.replay(record).data


def test_single_hand_export_is_a_hand_record(tmp_path: Path) -> None:
    record = GAME.simulate(list(PLAYERS), random.Random(5))
    with Journal.open(tmp_path / "j.db") as journal:
        live = journal.new_game(GAME, PLAYERS)
        live.start_part(header(record), hand_start(record))
        for text in record["moves"][:10]:
            live.play(GAME.parse_move(live.state, text))
        exported = journal.export()
    assert "hands" not in exported
    assert exported == {**record, "moves": record["moves"][:10]}
    assert not GAME.replay(exported).illegal


def test_resume_after_reopen_gives_same_state(tmp_path: Path) -> None:
    record = simulated(7)
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play_record(journal, record, limit=25)
        state = journal.resume()
        assert state is not None
        before = state.state
    with Journal.open(path) as journal:
        live = journal.resume()
        assert live is not None
        assert live.state == before
        assert live.players == PLAYERS
        live.check_consistency()
        # Play on from the resumed state: the next recorded move is still legal.
        flat = [m for h in record["hands"] for m in h["moves"]]
        live.play(GAME.parse_move(live.state, flat[25]))
        live.finish()
        assert journal.resume() is None


def test_undo_reverts_last_move_and_is_journaled(tmp_path: Path) -> None:
    record = simulated(11, hands=1)
    with Journal.open(tmp_path / "j.db") as journal:
        live = journal.new_game(GAME, PLAYERS)
        start = hand_start(record)
        live.start_part(header(record), start)
        states = [start]
        for text in record["moves"][:3]:
            live.play(GAME.parse_move(live.state, text))
            states.append(live.state)
        assert live.undo() == record["moves"][2]
        assert live.state == states[2]
        assert live.undo() == record["moves"][1]
        assert live.state == states[1]
        live.play(GAME.parse_move(live.state, record["moves"][1]))
        assert live.moves() == record["moves"][:2]
        kinds = [e.kind for e in live.entries()]
        assert kinds == [EntryKind.MOVE] * 3 + [EntryKind.UNDO] * 2 + [EntryKind.MOVE]
        live.undo()
        live.undo()
        assert live.state == start
        with pytest.raises(JournalError, match="no move to undo"):
            live.undo()
        live.check_consistency()
    with Journal.open(tmp_path / "j.db") as journal:
        resumed = journal.resume()
        assert resumed is not None and resumed.state == start


def test_illegal_move_writes_nothing(tmp_path: Path) -> None:
    record = simulated(2, hands=1)
    with Journal.open(tmp_path / "j.db") as journal:
        live = journal.new_game(GAME, PLAYERS)
        live.start_part(header(record), hand_start(record))
        first = GAME.parse_move(live.state, record["moves"][0])
        wrong = type(first)((first.player + 1) % 3, first.action, first.card)
        with pytest.raises(IllegalMove, match="turn"):
            live.play(wrong)
        assert live.entries() == []


def test_override_is_journaled_and_exported(tmp_path: Path) -> None:
    record = simulated(2, hands=1)
    with Journal.open(tmp_path / "j.db") as journal:
        live = journal.new_game(GAME, PLAYERS)
        live.start_part(header(record), hand_start(record))
        first = GAME.parse_move(live.state, record["moves"][0])
        live.override(first, note="players agreed")
        (entry,) = live.entries()
        assert entry.kind is EntryKind.OVERRIDE and entry.note == "players agreed"
        assert journal.export()["moves"] == record["moves"][:1]


def test_new_game_abandons_unfinished_one(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        first = journal.new_game(GAME, PLAYERS)
        second = journal.new_game(GAME, PLAYERS)
        assert first.finished
        resumed = journal.resume()
        assert resumed is not None and resumed.id == second.id
        with pytest.raises(JournalError, match="has not started"):
            _ = second.state
        with pytest.raises(JournalError, match="nothing to export"):
            journal.export()


def test_not_a_journal_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="is not a Ringside journal"):
        Journal.open(path)


def test_closed_journal_says_so(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.db")
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match="is closed"):
        journal.game_ids()


CHILD = textwrap.dedent(
    """
    import json, sys
    import scorer
    from firmware.journal import Journal
    from scorer.bigtop.record import parse_hand

    game = scorer.get("bigtop")
    record = json.load(open(sys.argv[2]))
    players = tuple(record["players"])
    journal = Journal.open(sys.argv[1])
    live = journal.new_game(game, players)
    count = 0
    for hand in record["hands"]:
        live.start_part({k: v for k, v in hand.items() if k != "moves"}, parse_hand(game, hand, players).start())
        for text in hand["moves"]:
            live.play(game.parse_move(live.state, text))
            count += 1
            print(count, flush=True)
    print("done", flush=True)
    """
)


@pytest.mark.parametrize("kill_after", [3, 40, 97])
def test_sigkill_while_writing_leaves_a_consistent_prefix(tmp_path: Path, kill_after: int) -> None:
    """Kill the writer mid-stream: every committed move is there once, nothing after a gap."""
    record = simulated(kill_after, hands=2)
    flat = [m for h in record["hands"] for m in h["moves"]]
    assert len(flat) > kill_after + 5
    (tmp_path / "record.json").write_text(json.dumps(record))
    db = tmp_path / "j.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(tmp_path / "record.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    assert proc.stdout is not None
    confirmed = 0
    try:
        for line in proc.stdout:
            if line.strip() == "done":
                break
            confirmed = int(line)
            if confirmed >= kill_after:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err
    assert confirmed == kill_after

    # Nobody checkpointed the WAL: the reader must recover it.
    with Journal.open(db) as journal:
        assert journal.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        live = journal.resume()
        assert live is not None
        live.check_consistency()
        exported = journal.export()
        kept = [m for h in exported.get("hands", [exported]) for m in h["moves"]]
        # Every move the child saw committed is there, once, in order; moves it
        # committed after that may be there too, never a move twice or out of order.
        assert kept == flat[: len(kept)]
        assert len(kept) >= kill_after
        assert not GAME.replay(exported).illegal
        # The stored state is the state the moves lead to.
        state = hand_start(record["hands"][len(exported.get("hands", [exported])) - 1])
        for text in exported.get("hands", [exported])[-1]["moves"]:
            state, _ = GAME.play(state, GAME.parse_move(state, text))
        assert live.state == state
        ids = [e.id for e in live.entries()]
        assert len(ids) == len(set(ids)) == len(kept)


def test_journal_file_is_plain_sqlite(tmp_path: Path) -> None:
    """Outside tools can read the journal: one row per game, one per entry."""
    record = simulated(4, hands=1)
    with Journal.open(tmp_path / "j.db") as journal:
        play_record(journal, {"hands": [record]}, limit=5)
    db = sqlite3.connect(tmp_path / "j.db")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    rows = db.execute("SELECT notation, state FROM entries ORDER BY id").fetchall()
    assert [r[0] for r in rows] == record["moves"][:5]
    assert json.loads(rows[-1][1])["moves_played"] == 5
    db.close()


def test_missing_folder_is_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "journal.db"
    with Journal.open(path) as journal:
        journal.new_game(GAME, PLAYERS)
    assert path.is_file()


def test_write_failure_is_a_journal_error_and_state_unchanged(tmp_path: Path) -> None:
    record = simulated(6, hands=1)
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        live = journal.new_game(GAME, PLAYERS)
        start = hand_start(record)
        live.start_part(header(record), start)
        journal.db.execute("PRAGMA busy_timeout=50")
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        try:
            with pytest.raises(JournalError, match="cannot write the journal: database is locked"):
                live.play(GAME.parse_move(live.state, record["moves"][0]))
            assert live.state == start
        finally:
            other.execute("ROLLBACK")
            other.close()
        live.play(GAME.parse_move(live.state, record["moves"][0]))
        assert live.moves() == record["moves"][:1]


def test_live_referee_game_without_the_deal(tmp_path: Path) -> None:
    """The referee cannot see hands: the journal keeps a public record, final hands added at the end."""
    record = simulated(8, hands=1)
    full = hand_start(record)
    public = full.to_public()
    hand_header = {k: v for k, v in header(record).items() if k != "deal"}
    with Journal.open(tmp_path / "j.db") as journal:
        live = journal.new_game(GAME, PLAYERS)
        live.start_part(hand_header, public)
        for text in record["moves"]:
            live.play(GAME.parse_move(live.state, text))
            full, _ = GAME.play(full, GAME.parse_move(full, text))
        assert live.state.hands is None and live.state.out is not None
        assert full.hands is not None
        final = {name: [c.notation() for c in sorted(h, key=lambda c: c.index)]
                 for name, h in zip(PLAYERS, full.hands)}
        live.record_event("reveal", {"final_hands": final})
        live.finish()
        exported = journal.export()
    assert "deal" not in exported and exported["final_hands"] == final
    report = GAME.replay(exported)
    assert not report.illegal and report.data["finished"]
    assert report.data["players"] == GAME.replay(record).data["players"]


_SCHEMA_1 = """
CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL, header TEXT NOT NULL,
    state TEXT, finished INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE hands (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id), number INTEGER NOT NULL,
    header TEXT NOT NULL, start_state TEXT NOT NULL, final_hands TEXT, UNIQUE (game_id, number));
CREATE TABLE entries (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    hand_id INTEGER NOT NULL REFERENCES hands(id), kind TEXT NOT NULL CHECK (kind IN ('move', 'override', 'undo')),
    notation TEXT NOT NULL, state TEXT NOT NULL, reverts INTEGER UNIQUE REFERENCES entries(id),
    note TEXT NOT NULL DEFAULT '', at TEXT NOT NULL);
CREATE INDEX entries_by_hand ON entries (hand_id, id);
PRAGMA user_version=1;
"""


def _schema_1_journal(path: Path) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """A journal file as schema 1 wrote it (with ``hands`` and a ``final_hands`` column); its record and final hands."""
    record = simulated(8, hands=1)
    start = hand_start(record)
    state = start
    rows = []
    for text in record["moves"]:
        move = GAME.parse_move(state, text)
        state, _ = GAME.apply_unchecked(state, move)
        rows.append((text, json.dumps(GAME.state_to_json(state))))
    final = {"Alf": ["clowns-L2"]}
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA_1)
    db.execute("INSERT INTO games VALUES (1, 'bigtop', ?, '{}', ?, 0, 't', 't')",
               (json.dumps(list(PLAYERS)), rows[-1][1]))
    db.execute("INSERT INTO hands VALUES (1, 1, 1, ?, ?, ?)",
               (json.dumps(header(record)), json.dumps(GAME.state_to_json(start)), json.dumps(final)))
    for i, (text, state_text) in enumerate(rows, 1):
        db.execute("INSERT INTO entries VALUES (?, 1, 1, 'move', ?, ?, NULL, '', 't')", (i, text, state_text))
    db.commit()
    db.close()
    return record, final


def test_a_schema_1_journal_is_upgraded_and_exports_the_same_record(tmp_path: Path) -> None:
    """A journal written before parts and game events (schema 1) opens, resumes and exports as before."""
    path = tmp_path / "old.db"
    record, final = _schema_1_journal(path)
    with Journal.open(path) as journal:
        assert journal.pragma("user_version") == 2
        live = journal.resume()
        assert live is not None and live.moves() == record["moves"]
        exported = live.export()
        assert exported["moves"] == record["moves"] and exported["final_hands"] == final
        assert exported["dealer"] == record["dealer"]
        live.record_event("reveal", {"investments": record["investments"]})
        assert live.events(1) == [("reveal", {"investments": record["investments"]})]


def test_a_schema_1_journal_exports_read_only_without_being_changed(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    record, final = _schema_1_journal(path)
    before = path.read_bytes()
    with Journal.open_readonly(path) as journal:
        exported = journal.export()
    assert exported["moves"] == record["moves"] and exported["final_hands"] == final
    assert path.read_bytes() == before
