"""Circus Grandioso records, notation and JSON (scorer/grandioso/RECORDS.md)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from scorer.core import MalformedMove, NotYourTurn, RecordError, UnknownComponent
from scorer.grandioso import Card, Draw, Exchange, LayDown, Pass, Place
from tests.scorer.grandioso.grandioso_helpers import GAME, LOST_EXAMPLE, position  # type: ignore[import-not-found]


def _record(seed: int = 11, players: tuple[str, ...] = ("Ann", "Ben", "Cat")) -> dict[str, Any]:
    return GAME.simulate(players=players, rng=random.Random(seed))


def test_simulated_record_replays_and_matches_direct_play() -> None:
    """replay(simulate()) reaches the state that playing the record's moves reaches."""
    record = _record()
    state = GAME.new_state(record["players"], random.Random(11))
    assert record["deal"] == {
        name: [c.notation for c in hand if c is not None] for name, hand in zip(record["players"], state.hands)
    }
    for text in record["moves"]:
        state, _ = GAME.play(state, GAME.parse_move(state, text))
    report = GAME.replay(json.loads(json.dumps(record)))
    assert not report.illegal and report.data["finished"]
    assert report.data["winners"] == [record["players"][s] for s in GAME.outcome(state).winners]  # type: ignore[union-attr]
    assert report.data["show_master"] == (
        None if state.show_master is None else record["players"][state.show_master]
    )
    # Rows show the move without the mover's name, beside "player".
    assert [f"{m['player']} {m['move']}" for m in report.data["moves"]] == record["moves"]
    totals = {name: 0 for name in record["players"]}
    for row in report.data["moves"]:
        for event in row["events"]:
            for name, amount in event["points"].items():
                totals[name] += amount
    assert totals == report.data["scores"]
    assert "Show Master" in report.text


def test_illegal_move_stops_the_replay_with_its_reason() -> None:
    """A well-formed move that breaks a rule: illegal=True, exit 3, the moves before kept."""
    record = _record()
    record["moves"] = record["moves"][:3] + ["place tiger 0,-1"] + record["moves"][3:]
    report = GAME.replay(record)
    assert report.illegal and report.exit_status == 3
    assert report.data["error"]["index"] == 3
    assert report.data["error"]["move"] == "place tiger 0,-1"
    assert report.data["error"]["reason"].endswith(".")
    assert len(report.data["moves"]) == 3 and not report.data["finished"]
    assert "Illegal move 3" in report.text


def test_a_move_after_the_end_is_illegal() -> None:
    """Moves after the game ended are reported as illegal."""
    record = _record()
    record["moves"].append("pass")
    report = GAME.replay(record)
    assert report.illegal and report.data["error"]["reason"].startswith("The game is over")


def _mutate(path: str, value: Any) -> dict[str, Any]:
    record = copy.deepcopy(_record(seed=3, players=("Ann", "Ben")))
    target: Any = record
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if value is _DELETE:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return record


_DELETE = object()

BAD = [
    ("players", _DELETE, "players", RecordError),
    ("players", "Ann", "players", RecordError),
    ("players", ["Ann"], "players", RecordError),
    ("players", ["Ann", "Ann"], "players", RecordError),
    ("deal.Ann", ["elephant"] * 7, "stack", RecordError),
    ("deal.Ann", ["tiger"], "deal.Ann", RecordError),
    ("deal.Ann.0", "unicorn", "deal.Ann[0]", UnknownComponent),
    ("deal.Ann.0", 7, "deal.Ann[0]", RecordError),
    ("deal", ["x"], "deal", RecordError),
    ("deal.Ben", _DELETE, "deal.Ben", RecordError),
    ("stack", "tiger", "stack", RecordError),
    ("stack.0", "unicorn", "stack[0]", UnknownComponent),
    ("moves", _DELETE, "moves", RecordError),
    ("moves", "pass", "moves", RecordError),
    ("moves.0", 5, "moves[0]", RecordError),
    ("moves.0", "dance wildly", "moves[0]", RecordError),
    ("moves.0", "place unicorn 0,1", "moves[0]", UnknownComponent),
    ("game", "chess", "game", RecordError),
]


@pytest.mark.parametrize("path, value, field, kind", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_records_name_the_field_in_one_line(path: str, value: Any, field: str, kind: type) -> None:
    """An invalid record raises RecordError (exit 2) with a one-line message naming the field."""
    with pytest.raises(kind) as info:
        GAME.replay(_mutate(path, value))
    err = info.value
    assert isinstance(err, RecordError)
    assert err.field == field
    assert "\n" not in str(err) and str(err)


def test_record_that_is_not_an_object() -> None:
    """A record that is a list, not an object, is invalid."""
    with pytest.raises(RecordError):
        GAME.replay([])  # type: ignore[arg-type]


def test_public_record_without_the_deal_replays_unverified() -> None:
    """Without deal and stack the hands are hidden: fitting moves are accepted but flagged."""
    record = {
        "game": "grandioso",
        "players": ["Ann", "Ben"],
        "moves": ["place elephant 0,1", "place rhino 1,0", "exchange ? for stack", "place tiger 0,2"],
    }
    report = GAME.replay(record)
    assert report.illegal
    assert report.data["error"]["index"] == 3
    assert "the Elephant row" in report.data["error"]["reason"]
    assert [("unverified" in m) for m in report.data["moves"]] == [True, True, True]
    assert report.data["show_master"] == "Ann"


def test_notation_round_trip_and_spelling() -> None:
    """parse(format(m)) == m, including negative columns and unknown exchanged cards."""
    state = position(LOST_EXAMPLE, ["tiger"])
    for move in (
        Place(Card.ELEPHANT, 0, -3),
        Place(Card.CHIMPANZEE, 8, 2),
        Draw(None),
        Draw(4),
        LayDown(),
        Exchange(Card.CLOWN, None),
        Exchange(None, 0),
        Pass(),
    ):
        assert GAME.parse_move(state, GAME.format_move(state, move)) == move
    mover = state.players[state.turn]
    assert GAME.format_move(state, Draw(0)) == f"{mover} draw single 1"
    assert GAME.parse_move(state, "  Place  Tiger 4, 1 ") == Place(Card.TIGER, 4, 1)


def test_notation_names_the_mover_and_still_reads_the_old_form() -> None:
    """The notation rule: the mover's name first; records without it still read."""
    record = _record()
    state = GAME.new_state(record["players"], random.Random(11))
    assert GAME.format_move(state, Draw(None)) == "Ann draw stack"
    assert GAME.parse_move(state, "Ann draw stack") == GAME.parse_move(state, "draw stack") == Draw(None)
    with pytest.raises(NotYourTurn, match="It is Ann's turn, not Ben's."):
        GAME.parse_move(state, "Ben draw stack")
    old = dict(record, moves=[m.split(" ", 1)[1] for m in record["moves"]])
    assert GAME.replay(old).data == GAME.replay(record).data
    wrong = dict(record, moves=["Ben " + old["moves"][0], *record["moves"][1:]])
    report = GAME.replay(wrong)
    assert report.illegal and report.data["error"] == {
        "index": 0, "move": wrong["moves"][0], "reason": "It is Ann's turn, not Ben's."
    }


@pytest.mark.parametrize(
    "text",
    ["place tiger", "place tiger a,b", "draw", "draw single 0", "draw pile", "exchange tiger stack",
     "lay", "pass now", "place unicorn 1,1"],
)
def test_malformed_notation(text: str) -> None:
    """Text that is no move raises MalformedMove with a sentence."""
    with pytest.raises(MalformedMove) as info:
        GAME.parse_move(position(LOST_EXAMPLE, ["tiger"]), text)
    assert str(info.value)


def test_state_json_round_trip_over_a_game() -> None:
    """state_from_json(state_to_json(s)) == s along a random game."""
    rng = random.Random(8)
    state = GAME.new_state(("Ann", "Ben", "Cat"), rng)
    while not GAME.is_over(state):
        data = json.loads(json.dumps(GAME.state_to_json(state)))
        assert GAME.state_from_json(data) == state
        state, _ = GAME.apply_unchecked(state, GAME.random_move(state, rng))
    assert GAME.state_from_json(GAME.state_to_json(state)) == state


@pytest.mark.parametrize(
    "key, value",
    [
        ("pyramid", [{"row": 0, "left": 0, "cards": ["tiger"]}]),
        ("pyramid", [{"row": 0, "left": 0, "cards": ["elephant"]}, {"row": 2, "left": 0, "cards": ["camel"]}]),
        ("hands", [["elephant"] * 9, []]),
        ("turn", 5),
        ("phase", "dancing"),
        ("placed", "yes"),
        ("end", "seal"),
    ],
)
def test_state_from_json_rejects_impossible_states(key: str, value: Any) -> None:
    """Impossible or mistyped states raise RecordError, never another exception."""
    data = GAME.state_to_json(GAME.new_state(("Ann", "Ben"), random.Random(1)))
    data[key] = value
    with pytest.raises(RecordError):
        GAME.state_from_json(data)


def test_simulate_defaults_and_determinism() -> None:
    """simulate() with no players uses three; the same seed gives the same record."""
    a = GAME.simulate(players=None, rng=random.Random(4), hands=None)  # type: ignore[arg-type]
    b = GAME.simulate(players=None, rng=random.Random(4), hands=None)  # type: ignore[arg-type]
    assert a == b and len(a["players"]) == 3
    assert GAME.simulate(players=["X", "Y"], rng=random.Random(5)) != GAME.simulate(
        players=["X", "Y"], rng=random.Random(6)
    )


def test_same_seed_same_record_across_processes() -> None:
    """The record depends only on the seed, not on the process's string-hash seed."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import json, random, scorer; "
        "print(json.dumps(scorer.get('grandioso').simulate(['Ann', 'Ben', 'Cat'], random.Random(7))))"
    )
    root = Path(__file__).resolve().parents[3]
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0]) == GAME.simulate(["Ann", "Ben", "Cat"], random.Random(7))


_JUNK: list[Any] = [None, 1, -1, 2.5, True, "", "x", "red-1", "tiger", [], {}, [1], {"a": 1}, [None]]


def test_mangled_records_never_raise_anything_but_record_error() -> None:
    """Seeded random damage to a record: a report or a one-line RecordError, never a traceback."""
    rng = random.Random(99)
    base = GAME.simulate(["Ann", "Ben"], random.Random(1))
    for _ in range(300):
        record = copy.deepcopy(base)
        key = rng.choice(sorted(record))
        value = record[key]
        if isinstance(value, list) and value and rng.random() < 0.7:
            value[rng.randrange(len(value))] = rng.choice(_JUNK)
        elif isinstance(value, dict) and value and rng.random() < 0.7:
            value[rng.choice(sorted(value))] = rng.choice(_JUNK)
        else:
            record[key] = rng.choice(_JUNK)
        try:
            report = GAME.replay(record)
        except RecordError as err:
            assert "\n" not in str(err) and err.field
        else:
            assert isinstance(report.data, dict)
