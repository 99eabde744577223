"""Circus Flohcati records, notation and JSON (scorer/flohcati/RECORDS.md)."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from typing import Any

import pytest

from scorer.core import MalformedMove, NotYourTurn, RecordError, UnknownComponent, Verdict
from scorer.flohcati import Action, Colour, Request, Show, Steal, Stop, Take, Trio, Turn
from scorer.flohcati.cards import card_name
from tests.scorer.flohcati.flohcati_helpers import GAME, PLAYERS, F, play, stacked  # type: ignore[import-not-found]


def _record(seed: int = 21, players: tuple[str, ...] = PLAYERS, **options: Any) -> dict[str, Any]:
    return GAME.simulate(players=players, rng=random.Random(seed), **options)


def test_simulated_record_replays_and_matches_direct_play() -> None:
    """replay(simulate()) reaches the scores that playing the record's moves reaches."""
    record = _record()
    state = GAME.new_state(record["players"], random.Random(21))
    assert record["stack"] == [card_name(c) for c in state.stack if c is not None]
    for text in record["moves"]:
        state, _ = GAME.play(state, GAME.parse_move(state, text))
    report = GAME.replay(json.loads(json.dumps(record)))
    assert not report.illegal and report.data["finished"]
    assert report.data["scores"] == dict(zip(record["players"], GAME.scores(state)))
    assert report.data["winners"] == [record["players"][s] for s in GAME.outcome(state).winners]  # type: ignore[union-attr]
    totals = {name: 0 for name in record["players"]}
    for row in report.data["moves"]:
        for event in row["events"]:
            for name, amount in event["points"].items():
                totals[name] += amount
    assert totals == report.data["scores"], "the events add up to the final scores"
    turned = [m["card"] for m in report.data["moves"] if m["move"] == "turn"]
    assert turned == record["stack"][: len(turned)]


def test_gala_bonus_travels_in_the_record() -> None:
    """simulate(gala_bonus=10) writes the option; replay applies it."""
    record = _record(seed=2, gala_bonus=10)
    assert record["gala_bonus"] == 10
    assert GAME.replay(record).data["finished"]


def test_illegal_move_stops_the_replay_with_its_reason() -> None:
    """A well-formed move that breaks a rule: illegal=True (exit 3), earlier moves kept."""
    record = _record()
    record["moves"] = ["stop"] + record["moves"]
    report = GAME.replay(record)
    assert report.illegal and report.exit_status == 3
    assert report.data["error"] == {
        "index": 0,
        "move": "stop",
        "reason": "Turn the next card or take one from the row first: a turn can't be empty.",
    }
    assert report.data["moves"] == [] and not report.data["finished"]
    assert "Illegal move 0" in report.text


def test_public_record_names_the_turned_cards() -> None:
    """Without a stack the record names each turned card; checks are flagged unverified."""
    record = {
        "game": "circus-flohcati",
        "players": ["Ann", "Ben"],
        "moves": ["turn red-1", "turn blue-1", "take blue-1", "turn red-1"],
    }
    report = GAME.replay(record)
    assert report.illegal and report.data["error"]["index"] == 3
    assert "already been turned up" in report.data["error"]["reason"]
    assert ["unverified" in m for m in report.data["moves"]] == [True, True, False]
    assert report.data["scores"] == {"Ann": 1, "Ben": 0}


def _mutate(path: str, value: Any) -> dict[str, Any]:
    record = copy.deepcopy(_record(seed=5, players=("Ann", "Ben")))
    target: Any = record
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is _DELETE:
        del target[keys[-1]]
    elif isinstance(target, list):
        target[int(keys[-1])] = value
    else:
        target[keys[-1]] = value
    return record


_DELETE = object()

BAD = [
    ("players", _DELETE, "players", RecordError),
    ("players", ["Ann"], "players", RecordError),
    ("players", ["Ann", 4], "players[1]", RecordError),
    ("players", ["Ann", "ann"], "players", RecordError),
    ("stack", "red-1", "stack", RecordError),
    ("stack.0", "violet-9", "stack[0]", UnknownComponent),
    ("stack.0", None, "stack[0]", RecordError),
    ("stack.1", "red-0", "stack", RecordError),
    ("gala_bonus", "ten", "gala_bonus", RecordError),
    ("moves", _DELETE, "moves", RecordError),
    ("moves.0", ["turn"], "moves[0]", RecordError),
    ("moves.0", "juggle", "moves[0]", RecordError),
    ("moves.0", "turn violet-9", "moves[0]", UnknownComponent),
    ("game", "grandioso", "game", RecordError),
]


@pytest.mark.parametrize("path, value, field, kind", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_records_name_the_field_in_one_line(path: str, value: Any, field: str, kind: type) -> None:
    """An invalid record raises RecordError (exit 2) with a one-line message naming the field."""
    if path == "stack.1":
        record = _mutate("stack.1", "red-0")
        record["stack"][0] = "red-0"
    else:
        record = _mutate(path, value)
    with pytest.raises(kind) as info:
        GAME.replay(record)
    assert info.value.field == field  # type: ignore[attr-defined]
    assert "\n" not in str(info.value)


def test_short_stack_is_invalid() -> None:
    """A full-information record must list all 89 cards."""
    record = _record()
    record["stack"] = record["stack"][:-1]
    with pytest.raises(RecordError, match="89"):
        GAME.replay(record)


def test_notation_round_trip() -> None:
    """parse(format(m)) == m for every kind of move."""
    state = stacked()
    for move in (
        Turn(),
        Turn(F("grey-7")),
        Turn(Action.REQUEST),
        Take(F("red-0")),
        Steal(1, F("teal-4")),
        Steal(2, None),
        Steal(None, None),
        Request(Colour.PINK, True, 2, F("pink-3")),
        Request(Colour.PINK, False, 1, None),
        Request(Colour.BROWN, False, None, None),
        Trio((F("red-3"), F("yellow-3"), F("grey-3"))),
        Show(),
        Stop(),
    ):
        text = GAME.format_move(state, move)
        assert GAME.parse_move(state, text) == move, text
    assert GAME.format_move(state, Steal(1, F("teal-4"))) == "Ann steal Ben teal-4"
    assert GAME.parse_move(state, "trio grey-3 red-3 yellow-3") == Trio((F("red-3"), F("yellow-3"), F("grey-3")))


def test_notation_names_the_mover_and_still_reads_the_old_form() -> None:
    """The notation rule: the mover's name first; records without it still read."""
    state = stacked()
    assert GAME.format_move(state, Turn()) == "Ann turn"
    assert GAME.parse_move(state, "Ann turn") == GAME.parse_move(state, "turn") == Turn()
    assert GAME.parse_move(state, "Ann steal Ben teal-4") == GAME.parse_move(state, "steal Ben teal-4")
    with pytest.raises(NotYourTurn, match="It is Ann's turn, not Ben's."):
        GAME.parse_move(state, "Ben turn")
    record = GAME.simulate(["Ann", "Ben", "Cat"], random.Random(5))
    old = dict(record, moves=[m.split(" ", 1)[1] for m in record["moves"]])
    assert GAME.replay(old).data == GAME.replay(record).data
    record["moves"][3] = "Cat " + record["moves"][3].split(" ", 1)[1]
    report = GAME.replay(record)
    assert report.illegal and report.data["error"]["index"] == 3


@pytest.mark.parametrize(
    "text",
    ["turn red-1 blue-2", "take", "take new-attraction", "steal Zed red-1", "request red up from Ben red-1",
     "request red cw from Ben", "trio red-1 blue-1", "show now", "take violet-1"],
)
def test_malformed_notation(text: str) -> None:
    """Text that is no move raises MalformedMove with a sentence."""
    with pytest.raises(MalformedMove) as info:
        GAME.parse_move(stacked(), text)
    assert str(info.value)


def test_state_json_round_trip_over_a_game() -> None:
    """state_from_json(state_to_json(s)) == s along a random game, public states too."""
    rng = random.Random(9)
    state = GAME.new_state(PLAYERS, rng)
    while not GAME.is_over(state):
        assert GAME.state_from_json(json.loads(json.dumps(GAME.state_to_json(state)))) == state
        state, _ = GAME.apply_unchecked(state, GAME.random_move(state, rng))
    public = play(GAME.public_state(PLAYERS), "turn red-1", "turn take-attraction")
    assert GAME.state_from_json(GAME.state_to_json(public)) == public


@pytest.mark.parametrize(
    "key, value",
    [
        ("hands", [["red-1"], [], []]),
        ("hands", [["red-9"], [], []]),
        ("turn", 3),
        ("phase", "juggling"),
        ("attraction", 1),
        ("unseen", []),
        ("trios", [[["red-1", "blue-1"]], [], []]),
        ("end", "stack empty"),
    ],
)
def test_state_from_json_rejects_impossible_states(key: str, value: Any) -> None:
    """Mistyped or impossible states raise RecordError, never another exception."""
    data = GAME.state_to_json(stacked("red-1"))
    data[key] = value
    with pytest.raises(RecordError):
        GAME.state_from_json(data)


def test_public_steal_hides_the_victims_hand() -> None:
    """A steal the referee could not see leaves the victim's hand unknown (never a guess)."""
    state = play(GAME.public_state(PLAYERS), "turn take-attraction")
    state = replace(state, hands=((), (None, None), ()))
    assert GAME.check(state, Steal(1, None)).verdict is Verdict.UNVERIFIABLE
    state, _ = GAME.play(state, GAME.parse_move(state, "steal Ben ?"))
    assert state.hands[0] == (None,) and state.hands[1] == (None,)
    assert GAME.scores(state)[:2] == (0, 0)


def test_same_seed_same_record_across_processes() -> None:
    """The record depends only on the seed, not on the process's string-hash seed."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import json, random, scorer; "
        "print(json.dumps(scorer.get('flohcati').simulate(['Ann', 'Ben', 'Cat'], random.Random(7))))"
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


def test_the_replay_table_keeps_a_long_move_apart_from_what_it_did() -> None:
    """A request's move is longer than its column: the table still puts a space before the events' words."""
    report = GAME.replay(_record(seed=0, players=("Ann", "Ben", "Cat", "Dan")))
    long_rows = [r for r in report.data["moves"] if len(r["move"]) >= 32 and r["events"]]
    assert long_rows
    for row in long_rows:
        note = " ".join(e["text"] for e in row["events"])
        assert f"{row['move']} {note}" in report.text
