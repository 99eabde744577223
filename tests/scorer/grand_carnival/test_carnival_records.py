"""Notation, JSON states, game records, replay and the command line."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from scorer.core import MalformedMove, RecordError, UnknownComponent
from scorer.grand_carnival.codec import UnknownName
from tests.scorer.grand_carnival.carnival_helpers import GAME, table  # type: ignore[import-not-found,unused-ignore]


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return GAME.simulate(players=["Ann", "Ben"], rng=random.Random(11))


def test_registered_under_both_names() -> None:
    assert scorer.get("grand-carnival") is scorer.get("carnival") is GAME
    assert GAME.info.title == "The Grand Carnival"


def test_notation_round_trips_on_every_legal_move_of_random_games() -> None:
    rng = random.Random(3)
    kinds = set()
    for players in (["Ann"], ["Ann", "Ben"], ["Ann", "Ben", "Cat"]):
        state = GAME.new_state(players, rng)
        while not GAME.is_over(state):
            moves = GAME.legal_moves(state)
            for move in moves:
                text = GAME.format_move(state, move)
                assert GAME.parse_move(state, text) == move
                kinds.add(text.split()[2] + (" discard" if text.endswith("discard") else "")
                          + (" barker" if " barker " in text else "") + (" tent" if text.endswith("tent") else ""))
            state, _ = GAME.apply_unchecked(state, moves[rng.randrange(len(moves))])
    assert {"foundation", "foundation discard", "build", "guest", "guest barker"} <= kinds


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "write the player"),
        ("Ann 3", "write the player"),
        ("Zed 3 pass", "'Zed' is not a player"),
        ("Ann 6 pass", "must be 1 to 5"),
        ("Ann 1 pass now", "'pass' takes nothing"),
        ("Ann 1 dance", "Unknown action 'dance'"),
        ("Ann 1 foundation 6 ws/ss a8", "must be 1a, 1b, 2, 3, 4 or 5"),
        ("Ann 1 foundation 2 ws/ss", "foundation SOURCE TILE FIELD"),
        ("Ann 1 foundation 2 ws/ss a8 later", "foundation SOURCE TILE FIELD"),
        ("Ann 1 foundation 2 ws/ss i9", "not a field of the market"),
        ("Ann 1 build", "build SHAPE FIELD"),
        ("Ann 1 build O1", "needs its fields"),
        ("Ann 2 build I2 a1 a1", "needs its fields"),
        ("Ann 1 guest in1", "guest FROM TO"),
        ("Ann 1 guest in3 b1", "not a field a1..h8, in1, in2 or tent"),
        ("Ann 1 guest in1 b1 helper c1", "guest FROM TO"),
    ],
)
def test_malformed_moves_say_how_to_write_them(text: str, words: str) -> None:
    with pytest.raises(MalformedMove) as info:
        GAME.parse_move(table(), text)
    assert words in str(info.value)
    assert not isinstance(info.value, UnknownName)


def test_unknown_tiles_and_shapes_in_moves() -> None:
    with pytest.raises(UnknownName, match="no foundation tile 'ss/ss'"):
        GAME.parse_move(table(), "Ann 1 foundation 1a ss/ss a8")
    with pytest.raises(UnknownName, match="no attraction 'X9'"):
        GAME.parse_move(table(), "Ann 1 build X9 a8")


def test_state_json_round_trips_through_text() -> None:
    rng = random.Random(8)
    state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
    for _ in range(60):
        moves = GAME.legal_moves(state)
        state, _ = GAME.apply_unchecked(state, moves[rng.randrange(len(moves))])
        assert GAME.state_from_json(json.loads(json.dumps(GAME.state_to_json(state)))) == state


def _mutations() -> list[tuple[Callable[[dict[str, Any]], None], str]]:
    def set_(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
        def go(data: dict[str, Any]) -> None:
            target = data
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value

        return go

    return [
        (set_(["players"], "Ann"), "state.players"),
        (set_(["round"], 9), "state.round"),
        (set_(["turn"], "x"), "state.turn"),
        (set_(["tricks", 0], "Juggling"), "state.tricks[0]"),
        (set_(["supply"], {}), "state.supply"),
        (set_(["railyard", "open", 0], "qq/qq"), "state.railyard.open[0]"),
        (set_(["railyard", "stacks"], []), "state.railyard.stacks"),
        (set_(["boards", 0, "parcels"], []), "state.boards[0].parcels"),
        (set_(["boards", 0, "guests"], ["z0"]), "state.boards[0].guests[0]"),
        (set_(["boards", 0, "entrances"], [1, 0]), "state.boards[0].entrances"),
        (set_(["boards", 0, "numbers"], [9]), "state.boards[0].numbers[0]"),
        (set_(["boards", 0, "tricks"], ["sleepy", "open", "open"]), "state.boards[0].tricks"),
        (set_(["boards", 0, "attractions"], [{"cells": ["a8"]}]), "state.boards[0].attractions[0].cells"),
    ]


@pytest.mark.parametrize(("mutate", "field"), _mutations())
def test_state_from_json_names_the_bad_field(mutate: Callable[[dict[str, Any]], None], field: str) -> None:
    data = GAME.state_to_json(GAME.new_state(["Ann", "Ben"], random.Random(1)))
    mutate(data)
    with pytest.raises(RecordError) as info:
        GAME.state_from_json(data)
    assert info.value.field == field


def test_simulate_is_deterministic_and_replays_to_the_end(record: dict[str, Any]) -> None:
    assert GAME.simulate(players=["Ann", "Ben"], rng=random.Random(11), hands=None) == record
    assert len(record["moves"]) == 7 * 5 * 2
    report = GAME.replay(json.loads(json.dumps(record)))
    assert not report.illegal and report.exit_status == 0
    data = report.data
    assert data["finished"] is True and data["winners"]
    assert set(data["players"]["Ann"]) >= {"sets", "variety", "tent", "tickets", "barkers", "hammers", "total"}
    assert data["scores"] == {p: v["total"] for p, v in data["players"].items()}
    assert [row["move"] for row in data["moves"]] == record["moves"]
    assert "Final scoring" in report.text and "Winner" in report.text


def test_illegal_move_reports_index_reason_and_the_moves_before(record: dict[str, Any]) -> None:
    bad = copy.deepcopy(record)
    bad["moves"] = record["moves"][:4] + [record["moves"][4].replace(record["moves"][4].split()[0], "Ben", 1)
                                         if record["moves"][4].startswith("Ann") else record["moves"][5]]
    report = GAME.replay(bad)
    assert report.illegal and report.exit_status == 3
    err = report.data["error"]
    assert err["index"] == 4 and err["move"] == bad["moves"][4]
    assert err["reason"] == "It is Ann's turn, not Ben's."
    assert len(report.data["moves"]) == 4 and report.data["finished"] is False
    assert report.data["winners"] == []
    assert "ILLEGAL move 4" in report.text


def test_moves_after_the_end_are_illegal(record: dict[str, Any]) -> None:
    longer = dict(record, moves=record["moves"] + ["Ann 1 pass"])
    report = GAME.replay(longer)
    assert report.illegal and report.data["error"]["index"] == 70
    assert report.data["error"]["reason"] == "The game is over: all 7 rounds have been played."


def test_partial_record_replays_unfinished(record: dict[str, Any]) -> None:
    report = GAME.replay(dict(record, moves=record["moves"][:13]))
    assert not report.illegal and report.data["finished"] is False and report.data["round"] == 2
    assert "not finished" in report.text


def test_minimal_record_deals_from_its_seed() -> None:
    data = {"game": "carnival", "players": ["Ann", "Ben"], "seed": 4, "moves": []}
    first = GAME.record_state(data)
    assert first == GAME.record_state(dict(data))
    assert first != GAME.record_state(dict(data, seed=5))
    assert len(first.tricks) == 3 and len(first.railyard.open) == 4


def test_live_record_with_unseen_stacks_replays_with_unverified_moves() -> None:
    data: dict[str, Any] = {
        "game": "grand-carnival",
        "players": ["Ann", "Ben"],
        "tricks": ["Crowd Pleaser", "Full House", "Bribe the Inspectors"],
        "railyard": {"stacks": [20, 18], "open": ["ws/ss", "sw/ss", "ss/ws", "ss/sw"]},
        "moves": ["Ann 1 foundation 1a ww/ws a1", "Ben 2 foundation 2 ws/ss a1", "Ann 2 foundation 5 ss/ww c1"],
    }
    report = GAME.replay(data)
    assert report.illegal  # space 5 is out of reach of number 2
    assert report.data["moves"][0]["unverified"].startswith("The referee cannot see")
    assert "unverified" not in report.data["moves"][1]
    data["moves"][2] = "Ann 5 foundation 5 ss/ww c1"
    report = GAME.replay(data)
    assert not report.illegal
    assert "unverified" in report.data["moves"][2]  # refilled from an unseen stack


def _record_mutations() -> list[tuple[Callable[[dict[str, Any]], None], str, type[Exception]]]:
    def set_(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
        return lambda data: data.__setitem__(key, value)

    def drop(key: str) -> Callable[[dict[str, Any]], None]:
        return lambda data: data.pop(key)

    def move(index: int, text: Any) -> Callable[[dict[str, Any]], None]:
        return lambda data: data["moves"].__setitem__(index, text)

    return [
        (set_("game", "bigtop"), "game", RecordError),
        (drop("players"), "players", RecordError),
        (set_("players", []), "players", RecordError),
        (set_("players", ["Ann", "Ann"]), "players", RecordError),
        (set_("players", ["A", "B", "C", "D", "E"]), "players", RecordError),
        (set_("players", ["Ann Lee", "Ben"]), "players[0]", RecordError),
        (set_("players", ["Ann", 7]), "players[1]", RecordError),
        (set_("start", "Zed"), "start", RecordError),
        (set_("seed", "seven"), "seed", RecordError),
        (set_("seed", True), "seed", RecordError),
        (set_("tricks", ["Crowd Pleaser"]), "tricks", RecordError),
        (set_("tricks", ["Crowd Pleaser", "Full House", "Juggling"]), "tricks[2]", UnknownComponent),
        (set_("tricks", ["Crowd Pleaser", "Full House", 3]), "tricks[2]", RecordError),
        (set_("tricks", ["Crowd Pleaser", "Full House", "Full House"]), "tricks", RecordError),
        (set_("railyard", []), "railyard", RecordError),
        (set_("railyard", {"stacks": [[]], "open": []}), "railyard.stacks", RecordError),
        (set_("railyard", {"stacks": [["zz/zz"], []], "open": []}), "railyard.stacks[0][0]", UnknownComponent),
        (set_("railyard", {"stacks": [-1, []], "open": []}), "railyard.stacks[0]", RecordError),
        (set_("railyard", {"stacks": [[], []], "open": "ws/ss"}), "railyard.open", RecordError),
        (set_("railyard", {"stacks": [[], []], "open": ["ws/ss"] * 5}), "railyard.open", RecordError),
        (set_("moves", "Ann 1 pass"), "moves", RecordError),
        (move(3, 42), "moves[3]", RecordError),
        (move(3, "Ann 1 juggle"), "moves[3]", RecordError),
        (move(3, "Ann 1 build Z9 a1"), "moves[3]", UnknownComponent),
        (move(3, "Ann 1 foundation 1a xx/yy a1"), "moves[3]", UnknownComponent),
    ]


@pytest.mark.parametrize(("mutate", "field", "kind"), _record_mutations())
def test_bad_records_raise_one_line_naming_the_field(
    record: dict[str, Any], mutate: Callable[[dict[str, Any]], None], field: str, kind: type[Exception]
) -> None:
    data = copy.deepcopy(record)
    mutate(data)
    with pytest.raises(kind) as info:
        GAME.replay(data)
    assert isinstance(info.value, RecordError) and info.value.field == field
    assert "\n" not in str(info.value) and field.split("[")[0].split(".")[0] in str(info.value)


def test_a_record_that_is_not_an_object() -> None:
    with pytest.raises(RecordError):
        GAME.replay(["grand-carnival"])  # type: ignore[arg-type]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=6)
    | st.sampled_from(["ws/ss", "Ann", "a1", "Crowd Pleaser", "Ann 1 pass"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(["players", "start", "seed", "tricks", "railyard", "moves", "game"]), value=json_values)
def test_any_json_in_any_field_is_a_record_error_or_a_report(key: str, value: Any) -> None:
    data: dict[str, Any] = {"game": "grand-carnival", "players": ["Ann", "Ben"], "seed": 1, "moves": []}
    data[key] = value
    try:
        report = GAME.replay(data)
    except RecordError as exc:
        assert "\n" not in str(exc) and exc.field
    else:
        json.dumps(report.data)


@settings(max_examples=100, deadline=None)
@given(value=json_values, key=st.sampled_from(["name", "market", "attractions", "tent", "tricks"]))
def test_any_json_in_a_position_is_a_record_error_or_a_score(key: str, value: Any) -> None:
    player: dict[str, Any] = {"name": "Ann", "market": ["........"] * 8}
    player[key] = value
    try:
        GAME.score_position({"game": "grand-carnival", "players": [player]})
    except RecordError as exc:
        assert "\n" not in str(exc) and exc.field


# -- the command line -----------------------------------------------------------


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from firmware.cli import main

    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_replay_simulate_and_score(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "game.json"
    good.write_text(json.dumps(record))
    status, out, _ = _cli(["replay", str(good), "--json"], capsys)
    assert status == 0 and json.loads(out)["finished"] is True

    bad = tmp_path / "illegal.json"
    bad.write_text(json.dumps(dict(record, moves=record["moves"] + ["Ann 1 pass"])))
    status, out, _ = _cli(["replay", str(bad), "--json"], capsys)
    assert status == 3 and json.loads(out)["error"]["index"] == 70

    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(dict(record, tricks=["Juggling", "Full House", "Crowd Pleaser"])))
    status, out, err = _cli(["replay", str(broken)], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and "tricks[0]" in err

    status, out, _ = _cli(["simulate", "carnival", "--players", "3", "--seed", "2"], capsys)
    assert status == 0 and len(json.loads(out)["players"]) == 3

    position = tmp_path / "position.json"
    position.write_text(json.dumps({"game": "grand-carnival", "players": [{"name": "Ann", "market": ["........"] * 8}]}))
    status, out, _ = _cli(["score", "grand-carnival", str(position), "--json"], capsys)
    assert status == 0 and json.loads(out)["scores"] == {"Ann": -16}


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, prefix + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data[:3]):
            out += _paths(value, prefix + (i,))
    return out


_PLAYED = GAME.state_to_json(
    GAME.apply_unchecked(*(lambda s: (s, GAME.legal_moves(s)[0]))(GAME.new_state(["Ann", "Ben"], random.Random(2))))[0]
)
_STATE_PATHS = _paths(_PLAYED)


@settings(max_examples=200, deadline=None)
@given(index=st.integers(0, len(_STATE_PATHS) - 1), value=json_values)
def test_any_json_anywhere_in_a_state_is_a_record_error_or_a_state(index: int, value: Any) -> None:
    data = copy.deepcopy(_PLAYED)
    path = _STATE_PATHS[index]
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        GAME.state_from_json(data)
    except RecordError as exc:
        assert "\n" not in str(exc) and exc.field


def test_guests_and_barkers_must_stand_on_walkways() -> None:
    data = copy.deepcopy(_PLAYED)
    data["boards"][0]["guests"] = ["h1"]
    with pytest.raises(RecordError, match="guest stands off"):
        GAME.state_from_json(data)
    data["boards"][0]["guests"] = []
    data["boards"][0]["barkers"] = ["h1"]
    with pytest.raises(RecordError, match="barker stands off"):
        GAME.state_from_json(data)
