"""Mangled records and positions at the command line: one line and exit 2, or exit 3, never a traceback.

Hypothesis takes a valid record of each game and breaks it (a field dropped
or replaced by other JSON, a move text cut or garbled, moves repeated or
swapped), then feeds it to ``ringside replay -`` (and ``ringside score`` where
the game has it) in-process.
"""

from __future__ import annotations

import copy
import io
import json
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from firmware.cli import main

GAMES = ("bigtop", "fantan", "circus-grandioso", "flohcati", "grand-carnival", "carcassonne")
#: Moves kept from each simulated record, so one replay takes milliseconds.
KEEP = 24

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@cache
def _record(name: str) -> str:
    game = scorer.get(name)
    record = game.simulate(["Ann", "Ben", "Cat"], random.Random(1))
    record["moves"] = record["moves"][:KEEP]
    return json.dumps(record)


@cache
def _position(name: str) -> str:
    if name == "flohcati":
        return json.dumps({
            "game": "flohcati",
            "players": {"Ann": {"hand": ["red-6", "orange-4", "yellow-0"], "trios": [["purple-1", "pink-1", "brown-1"]]},
                        "Ben": {"hand": ["red-7"]}},
            "gala_bonus": 0,
            "ended_by": None,
        })
    game = scorer.get(name)
    state = game.new_state(["Ann", "Ben"], random.Random(1))
    return json.dumps({"game": game.name, **game.state_to_json(state)})


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*here, i))
    return out


@st.composite
def mangled(draw: st.DrawFn, text: str) -> str:
    """A record with one to three things broken."""
    data = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(data)
        path = paths[draw(st.integers(0, len(paths) - 1))]
        if not path:
            data = draw(JSON)
            continue
        parent: Any = data
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        if not isinstance(parent, (dict, list)):
            continue
        how = draw(st.sampled_from(["drop", "replace", "garble", "repeat"]))
        old = parent[key]
        if how == "drop":
            del parent[key]
        elif how == "replace":
            parent[key] = draw(JSON)
        elif how == "garble" and isinstance(old, str):
            cut = draw(st.integers(0, len(old)))
            parent[key] = old[:cut] + draw(st.sampled_from(["", " ", "x", "?", " 9", "-1", "Ben ", "\u00e9", "@"])) + old[cut + 1 :]
        elif how == "repeat" and isinstance(parent, list):
            parent.insert(draw(st.integers(0, len(parent))), copy.deepcopy(old))
    if draw(st.booleans()):
        return json.dumps(data)
    return json.dumps(data)[: draw(st.integers(0, 400))]  # cut short: not JSON any more


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str], text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    status = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    assert status in (0, 2, 3), (status, err)
    if status == 2:
        assert err.startswith("ringside: ") and err.count("\n") == 1, err
        assert out == ""
    else:
        assert err == ""
        if "--json" in args:
            json.loads(out)


SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("name", GAMES)
def test_mangled_records_to_replay(name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    @SETTINGS
    @given(text=mangled(_record(name)), as_json=st.booleans())
    def check(text: str, as_json: bool) -> None:
        _run(capsys, monkeypatch, ["replay", "-", *(["--json"] if as_json else [])], text)

    check()


@pytest.mark.parametrize("name", ("flohcati", "grand-carnival"))
def test_mangled_positions_to_score(name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    @SETTINGS
    @given(text=mangled(_position(name)), as_json=st.booleans())
    def check(text: str, as_json: bool) -> None:
        _run(capsys, monkeypatch, ["score", name, "-", *(["--json"] if as_json else [])], text)

    check()


@pytest.mark.parametrize("command", (["replay", "-"], ["score", "flohcati", "-"], ["replay", "-", "--json"]))
def test_deeply_nested_json_is_one_line(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """JSON nested 100,000 deep, alone or inside a record, is refused in one line (exit 2)."""
    deep = "[" * 100_000 + "]" * 100_000
    for text in (deep, '{"game": "flohcati", "players": ["Ann", "Ben"], "moves": ' + deep + "}"):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        assert main(command) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == "ringside: - is nested too deeply to be a record (more than 64 levels)\n"


def test_deeply_nested_json_in_a_file(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"game": "bigtop", "hands": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == f"ringside: {path} is nested too deeply to be a record (more than 64 levels)\n"
