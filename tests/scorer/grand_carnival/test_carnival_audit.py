"""Rulings from an independent audit: the number rule, the earliest record problem,
a broken components file, and the guest supply read from ``components.toml``."""

from __future__ import annotations

import copy
import random
import sys
import tomllib
from dataclasses import replace
from importlib import resources
from typing import Any

import pytest

import scorer
from firmware.cli import main
from scorer.core import RecordError
from scorer.grand_carnival import GrandCarnival, Pass, Walk
from scorer.grand_carnival.components import CATALOG, CatalogError, load_catalog
from scorer.grand_carnival.rules import guests_left
from tests.scorer.grand_carnival.carnival_helpers import GAME, cell, market, mv, table  # type: ignore[import-not-found,unused-ignore]

CORRIDOR = ["........"] * 6 + ["ssssssss", "wwwwwwww"]


def raw() -> dict[str, Any]:
    text = resources.files("scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    return tomllib.loads(text)


def test_a_number_that_allows_nothing_is_refused_while_another_allows_an_action() -> None:
    """[DECISION] "one of the actions you can actually carry out": no pass while any free number acts."""
    nothing = {name: 0 for name in GAME.catalog.shapes}
    walled = market(["........"] * 8, entrances=(True, True))
    state = table([walled, market()], stacks=((), ()), open_tiles=("ws/ss",), supply=nothing)
    moves = GAME.legal_moves(state)
    assert moves and not any(isinstance(m, Pass) for m in moves)
    for n in range(1, 6):
        assert not GAME.is_legal(state, Pass(0, n))


def test_every_number_may_pass_when_none_allows_an_action() -> None:
    nothing = {name: 0 for name in GAME.catalog.shapes}
    walled = market(["........"] * 8, entrances=(True, True))
    state = table([walled, market()], stacks=((), ()), open_tiles=(), supply=nothing)
    assert GAME.legal_moves(state) == [Pass(0, n) for n in range(1, 6)]


def test_replay_reports_an_illegal_move_before_a_later_unreadable_one(capsys: pytest.CaptureFixture[str]) -> None:
    record = GAME.simulate(["Ann", "Ben"], random.Random(3))
    record["moves"] = record["moves"][:10]
    record["moves"][4] = record["moves"][4].replace("Ben", "Ann", 1) if record["moves"][4].startswith("Ben") \
        else record["moves"][4].replace("Ann", "Ben", 1)
    record["moves"][7] = "Ann 9 fly away"
    report = GAME.replay(record)
    assert report.illegal and report.data["error"]["index"] == 4
    assert report.data["error"]["reason"].startswith("It is ")
    # Without the illegal move the unreadable one is the first problem.
    record["moves"] = record["moves"][:4] + record["moves"][7:]
    with pytest.raises(RecordError) as info:
        GAME.replay(record)
    assert info.value.field == "moves[4]"


def test_a_missing_key_in_the_components_file_names_the_file_and_key() -> None:
    data = copy.deepcopy(raw())
    del data["barkers"]["supply"]
    with pytest.raises(CatalogError, match=r"^components.toml: the key barkers.supply is missing$"):
        load_catalog(data)
    data = copy.deepcopy(raw())
    data["foundations"][2] = "ws/ss"
    with pytest.raises(CatalogError, match=r"components.toml: foundations\[2\] must be a table"):
        load_catalog(data)
    data = copy.deepcopy(raw())
    data["tricks"]["cards"][1]["condition"] = {"kind": "tickets"}
    with pytest.raises(CatalogError, match=r"tricks.cards\[1\].condition.at_least is missing"):
        load_catalog(data)


def test_a_broken_components_file_is_one_line_at_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A components file that is not TOML stops the command with one line, no traceback."""
    for name in [m for m in sys.modules if m.startswith("scorer.grand_carnival")]:
        monkeypatch.delitem(sys.modules, name)
    for key in ("grand-carnival", "carnival"):
        monkeypatch.delitem(scorer._GAMES, key, raising=False)
    monkeypatch.setattr(tomllib, "loads", lambda text: (_ for _ in ()).throw(tomllib.TOMLDecodeError("bad")))
    assert main(["simulate", "grand-carnival"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ringside: components.toml is not valid TOML")


def test_the_guest_supply_is_read_from_the_components_file() -> None:
    assert CATALOG.guests is None  # "unlimited" in the box
    data = copy.deepcopy(raw())
    data["guests"]["supply"] = {"1": 4, "2": 5, "3": 8, "4": 10}
    assert load_catalog(data).guests == (4, 5, 8, 10)
    data["guests"]["supply"] = "lots"
    with pytest.raises(CatalogError, match="guests.supply needs counts"):
        load_catalog(data)


def test_new_guests_arrive_only_while_the_supply_lasts() -> None:
    class Short(GrandCarnival):
        catalog = replace(CATALOG, guests=(4, 5, 8, 10))

    game = Short()
    # Ann has one guest at an entrance, Ben two: 3 guests in play, 2 left of 5.
    state = table([market(CORRIDOR, entrances=(True, False)), market()], barkers=2, game=game)
    assert guests_left(state, game.catalog) == 2
    after, events = game.play(state, game.parse_move(state, "Ann 1 guest in1 b1 barker e1"))
    assert after.boards[0].entrances == (True, True) and "guests arrive" in {e.what for e in events}
    # One guest left: only the first entrance is filled.
    state = replace(state, boards=(state.boards[0], replace(state.boards[1], guests=1 << cell("a1"))))
    assert guests_left(state, game.catalog) == 1
    after, _ = game.play(state, game.parse_move(state, "Ann 1 guest in1 b1 barker e1"))
    assert after.boards[0].entrances == (True, False)
    # None left: the entrances stay empty and later walks bring no barker.
    state = replace(state, boards=(state.boards[0], replace(state.boards[1], tent=1)))
    assert guests_left(state, game.catalog) == 0
    after, events = game.play(state, game.parse_move(state, "Ann 1 guest in1 b1 barker e1"))
    assert after.boards[0].entrances == (False, False)
    assert [e.text for e in events if e.what == "guests arrive"] == [
        "The guest supply is empty: no new guests arrive."
    ]
    later = replace(after, turn=0, boards=(replace(after.boards[0], numbers=frozenset()), after.boards[1]))
    walks = [m for m in game.legal_moves(later) if isinstance(m, Walk)]
    assert walks and all(m.barker is None for m in walks)
    assert game.is_legal(later, mv(later, "Ann 2 guest b1 d1"))
