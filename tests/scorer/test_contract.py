"""One conformance suite for every registered game (OpenSpiel's random_sim_test)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import scorer
from scorer.core import DEFAULT_NAMES, Game, MalformedMove, random_playout

GAMES = scorer.names()


def _players(game: Game[Any, Any]) -> list[str]:
    n = max(game.info.min_players, min(4, game.info.max_players))
    return list(DEFAULT_NAMES[:n])


def test_every_game_is_registered() -> None:
    assert {"bigtop", "fantan"} <= set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_registry_round_trip(name: str) -> None:
    game = scorer.get(name)
    assert game.name == name
    for alias in game.aliases:
        assert scorer.get(alias) is game


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(scorer.UnknownGame, match="bigtop"):
        scorer.get("chess")


@pytest.mark.parametrize("name", GAMES)
def test_random_playouts_keep_the_contract(name: str) -> None:
    game = scorer.get(name)
    rng = random.Random(1234)
    for _ in range(3):
        state = game.new_state(_players(game), rng)
        steps = 0
        while not game.is_over(state):
            assert game.current_player(state) is not None
            assert game.outcome(state) is None
            moves = game.legal_moves(state)
            assert moves, "a state that is not over must have a legal move"
            for move in moves:
                assert game.is_legal(state, move)
                text = game.format_move(state, move)
                assert game.parse_move(state, text) == move
            encoded = json.loads(json.dumps(game.state_to_json(state)))
            assert game.state_from_json(encoded) == state
            move = moves[rng.randrange(len(moves))]
            state, events = game.play(state, move)
            assert isinstance(events, tuple)
            steps += 1
            assert steps < 20_000
        assert game.current_player(state) is None
        outcome = game.outcome(state)
        assert outcome is not None and outcome.winners
        assert len(game.scores(state)) == len(_players(game))


@pytest.mark.parametrize("name", GAMES)
def test_is_legal_never_raises(name: str) -> None:
    game = scorer.get(name)
    state = game.new_state(_players(game), random.Random(5))
    for junk in (None, 42, "move", object()):
        assert game.is_legal(state, junk) is False


@pytest.mark.parametrize("name", GAMES)
def test_garbage_notation_is_malformed(name: str) -> None:
    game = scorer.get(name)
    state = game.new_state(_players(game), random.Random(6))
    for text in ("", "   ", "@@@ ###", "Nobody does nothing with 12 things"):
        with pytest.raises(MalformedMove):
            game.parse_move(state, text)


@pytest.mark.parametrize("name", GAMES)
def test_simulated_record_replays_to_the_same_result(name: str) -> None:
    game = scorer.get(name)
    record = game.simulate(players=_players(game), rng=random.Random(77))
    again = game.simulate(players=_players(game), rng=random.Random(77))
    assert record == again
    report = game.replay(json.loads(json.dumps(record)))
    assert not report.illegal
    assert report.exit_status == 0
    assert report.text
    assert json.loads(json.dumps(report.data)) == report.data
    assert game.replay(record).data == report.data


@pytest.mark.parametrize("name", GAMES)
def test_random_playout_helper_ends(name: str) -> None:
    game = scorer.get(name)
    state, moves = random_playout(game, game.new_state(_players(game), random.Random(9)), random.Random(10))
    assert game.is_over(state) and moves
