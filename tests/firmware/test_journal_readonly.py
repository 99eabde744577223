"""`Journal.open_readonly`: reads a journal, writes nothing, refuses anything else untouched."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

import pytest

import scorer
from firmware.journal import Journal, JournalError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def journal_file(tmp_path: Path) -> Path:
    path = tmp_path / "journal.db"
    game = scorer.get("bigtop")
    with Journal.open(path) as journal:
        state = game.new_state(["Alf", "Henry", "Charles"], random.Random(1))
        live = journal.new_game(game, state.players)
        live.start_part({"dealer": "Alf", "investments": {}}, state)
        live.play(game.legal_moves(state)[0])
    return path


def test_reads_a_journal_without_changing_it(journal_file: Path) -> None:
    before = _digest(journal_file)
    with Journal.open_readonly(journal_file) as journal:
        assert journal.game_ids() == [1]
        assert journal.export()["game"] == "bigtop"
        live = journal.game(1)
        with pytest.raises(JournalError):
            live.undo()
        with pytest.raises(sqlite3.OperationalError):
            journal.db.execute("DELETE FROM entries")
    assert _digest(journal_file) == before


@pytest.mark.parametrize("content, words", [
    (b"", "an empty file"),
    (b'{"game": "bigtop"}', "not an SQLite file"),
    (b"SQLite format 3\x00" + b"\x00" * 100, "not a Ringside journal"),
])
def test_refuses_what_is_not_a_journal_untouched(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=words) as caught:
        Journal.open_readonly(path)
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.json"]


def test_refuses_another_sqlite_database(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    before = _digest(path)
    with pytest.raises(JournalError, match="an SQLite file but not a Ringside journal"):
        Journal.open_readonly(path)
    assert _digest(path) == before


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal at"):
        Journal.open_readonly(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()
    with pytest.raises(JournalError, match="is a folder"):
        Journal.open_readonly(tmp_path)
