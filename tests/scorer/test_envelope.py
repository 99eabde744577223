"""One record contract: every game's ``replay --json`` report carries the same envelope.

``game``, ``players``, ``finished``, ``moves``, ``scores``, ``winners`` and
``error`` are present in every report, and agree with the game's own fields
and with the engine's totals and outcome.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

import scorer
from scorer.core import Game

ENVELOPE = ("game", "players", "finished", "moves", "scores", "winners", "error")
GAMES = ("bigtop", "fantan", "circus-grandioso", "flohcati", "grand-carnival", "carcassonne")


def _names(data: Mapping[str, Any]) -> list[str]:
    """The seat names: a list, or the keys of a per-player object (kept where a game had one)."""
    return list(data["players"])


def _record(name: str, seed: int = 2, **options: Any) -> tuple[Game[Any, Any], dict[str, Any]]:
    game = scorer.get(name)
    players = ["Ann", "Ben", "Cat"]
    return game, game.simulate(players, random.Random(seed), **options)


def _check_envelope(game: Game[Any, Any], data: Mapping[str, Any]) -> None:
    for key in ENVELOPE:
        assert key in data, key
    assert data["game"] == game.name
    names = _names(data)
    assert set(data["scores"]) == set(names)
    assert isinstance(data["moves"], list)
    assert set(data["winners"]) <= set(names)
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize("name", GAMES)
def test_a_finished_record_has_the_envelope_and_its_winners_agree_with_the_outcome(name: str) -> None:
    game, record = _record(name)
    report = game.replay(record)
    data = report.data
    _check_envelope(game, data)
    assert data["finished"] is True and data["error"] is None and not report.illegal
    assert data["winners"], "a finished game names its winners"
    best = max(v for v in data["scores"].values() if v is not None)
    if name == "fantan":
        assert data["winners"] == [data["out"]]  # the player who went out wins the hand
        return
    assert all(data["scores"][w] == best for w in data["winners"])
    if name != "grand-carnival":  # The Grand Carnival breaks ties by tricks, then tickets
        assert data["winners"] == [p for p in _names(data) if data["scores"][p] == best]


@pytest.mark.parametrize("name", ("circus-grandioso", "flohcati", "grand-carnival"))
def test_scores_and_winners_agree_with_the_engine(name: str) -> None:
    """Replaying the record's moves directly gives the envelope's scores and winners."""
    game, record = _record(name, seed=4)
    data = game.replay(record).data
    state = game.record_start(record)
    for text in record["moves"]:
        state, _ = game.play(state, game.parse_move(state, text))
    names = list(state.players)
    assert data["scores"] == dict(zip(names, game.scores(state)))
    outcome = game.outcome(state)
    assert outcome is not None
    assert data["winners"] == [names[w] for w in outcome.winners]
    assert len(data["moves"]) == len(record["moves"])


def test_big_top_scores_are_the_hand_totals_and_a_game_s_totals() -> None:
    game, record = _record("bigtop")
    data = game.replay(record).data
    assert data["scores"] == {p: row["total"] for p, row in data["players"].items()}
    game, record = _record("bigtop", hands=3)
    data = game.replay(record).data
    _check_envelope(game, data)
    assert data["scores"] == data["totals"] and data["players"] == ["Ann", "Ben", "Cat"]
    assert len(data["moves"]) == sum(len(h["moves"]) for h in data["hands"])
    assert {row["hand"] for row in data["moves"]} == {0, 1, 2}


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_record_has_the_envelope_with_its_error(name: str) -> None:
    game, record = _record(name, seed=6)
    report = game.replay(record)
    cut = max(1, len(report.data["moves"]) // 2)
    if name == "carcassonne":
        record["moves"] = record["moves"][:cut] + [record["moves"][0]]  # the same square twice
    else:
        record["moves"] = record["moves"][:cut] + record["moves"][cut + 1 :]  # one move left out
    bad = game.replay(record)
    if not bad.illegal:  # leaving a move out can happen to stay legal; a repeat of the first never does
        record["moves"] = record["moves"][:cut] + [record["moves"][0]] * 2
        bad = game.replay(record)
    assert bad.illegal
    data = bad.data
    _check_envelope(game, data)
    assert data["error"] is not None and {"index", "move", "reason"} <= set(data["error"])
    assert data["winners"] == []


def test_a_big_top_hand_with_a_move_after_its_end_is_a_finished_hand_with_an_error() -> None:
    game, record = _record("bigtop")
    full = game.replay(record).data
    record["moves"].append(record["moves"][-1])
    report = game.replay(record)
    data = report.data
    assert report.illegal and data["finished"] is True and data["out"] == full["out"]
    assert data["error"]["index"] == len(record["moves"]) - 1
    assert data["error"]["reason"] == f"The hand is over: {full['out']} went out."
    assert data["players"] == full["players"]


@pytest.mark.parametrize("name", GAMES)
def test_the_earliest_problem_is_reported(name: str) -> None:
    """An illegal move is reported (exit 3) even when a later move cannot be read (exit 2)."""
    game, record = _record(name, seed=8)
    moves = record["moves"][:12]
    first = moves[0]
    unreadable: Any = {"tile": 5} if name == "carcassonne" else "Ann ??? 12"
    record["moves"] = [*moves[:5], first, *moves[5:8], unreadable, *moves[8:]]
    report = game.replay(record)
    assert report.illegal and report.data["error"]["index"] == 5
    record["moves"] = [*moves[:5], unreadable, first]
    with pytest.raises(scorer.RecordError) as info:
        game.replay(record)
    assert info.value.field is not None and info.value.field.startswith("moves[5]")
