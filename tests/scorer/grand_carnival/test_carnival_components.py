"""The component catalog read from components.toml, and its decisions."""

from __future__ import annotations

import copy
import random
import tomllib
from dataclasses import replace
from importlib import resources
from typing import Any

import pytest

from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import CATALOG, Condition, Effect, load_catalog
from tests.scorer.grand_carnival.carnival_helpers import GAME, market, mv, table  # type: ignore[import-not-found,unused-ignore]


def raw() -> dict[str, Any]:
    text = resources.files("scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")
    return tomllib.loads(text)


def test_decision_foundation_patterns_and_counts() -> None:
    """[DECISION §1.3.2] every 2x2 pattern with one to three walkways, three copies each."""
    assert len(CATALOG.foundations) == 14
    assert set(CATALOG.foundations.values()) == {3}
    for pattern in CATALOG.foundations:
        assert 1 <= pattern.count("w") <= 3


@pytest.mark.parametrize(("players", "per_size"), [(1, 5), (2, 5), (3, 6), (4, 8)])
def test_decision_attraction_shapes_and_supply_by_player_count(players: int, per_size: int) -> None:
    """[DECISION §1.3.3] shapes per size; [SRC] 5 per size with 2 players, 6 with 3, 8 with 4."""
    supply = CATALOG.shape_supply(players)
    for size in range(1, 6):
        total = sum(n for n, s in zip(supply, CATALOG.shapes.values()) if s.size == size)
        assert total == per_size
    assert GAME.new_state(["Ann", "Ben", "Cat", "Dan"][:players], random.Random(0)).supply == supply


def test_shapes_have_every_turned_placement() -> None:
    placements = {name: sum(len(a) for a in s.by_anchor) for name, s in CATALOG.shapes.items()}
    assert placements["O1"] == 64
    assert placements["I2"] == 2 * 7 * 8
    assert placements["O4"] == 7 * 7
    assert placements["I5"] == 2 * 4 * 8
    assert placements["L4"] == 4 * 6 * 7  # four turns of a 3x2 shape, mirror images excluded
    assert len(CATALOG.shapes["S4"].mirrored) == 2 and not CATALOG.shapes["T4"].mirrored


def test_decision_barker_supply_by_player_count() -> None:
    """[DECISION §1.3.4] one shared barker supply: 4 / 6 / 8 / 10 for 1-4 players."""
    for players, count in zip((1, 2, 3, 4), (4, 6, 8, 10)):
        state = GAME.new_state(["Ann", "Ben", "Cat", "Dan"][:players], random.Random(0))
        assert state.barkers == count


def test_decision_guest_supply_never_runs_out() -> None:
    """[DECISION §1.3.4] the guest supply is unlimited: emptied entrances always refill."""
    assert raw()["guests"]["supply"] == "unlimited"
    rows = ["........"] * 6 + ["ssssssss", "wwwwwwww"]
    state = table([market(rows), market()], barkers=0)
    for number, end in ((5, "f1"), (4, "e1"), (3, "d1"), (2, "c1"), (1, "b1")):
        board = replace(state.boards[0], entrances=(True, False))
        state = replace(state, boards=(board, state.boards[1]), turn=0)
        state, _ = GAME.play(state, mv(state, f"Ann {number} guest in1 {end}"))
        assert state.boards[0].entrances == (True, True)
    assert state.boards[0].guests.bit_count() == 5


def test_decision_trick_list_holds_the_known_trick_and_three_are_dealt() -> None:
    """[DECISION §1.3.5] trick list; [SRC] 3 dealt, the ticket trick lets guests walk on sites."""
    known = CATALOG.tricks["Shortcut Through the Sites"]
    assert known.condition is Condition.ATTRACTION_TICKETS and known.at_least == 3
    assert known.effect is Effect.WALK_ON_SITES
    assert "Bribe the Inspectors" in CATALOG.tricks
    assert CATALOG.tricks_dealt == 3
    dealt = {tuple(GAME.new_state(["Ann"], random.Random(s)).tricks) for s in range(20)}
    assert all(len(set(d)) == 3 and set(d) <= set(CATALOG.tricks) for d in dealt)
    assert len(dealt) > 1


def test_decision_solo_plays_by_the_same_rules() -> None:
    """[DECISION §1.3.7] one player: the same 7 x 5 turns; tricks need no other player."""
    record = GAME.simulate(players=["Ann"], rng=random.Random(5))
    assert len(record["moves"]) == 35
    assert not GAME.replay(record).illegal


def test_decision_railyard_setup_four_open_tiles_and_two_stacks() -> None:
    """[DECISION] setup: 4 open tiles on spaces 2-5, the rest in two face-down stacks."""
    state = GAME.new_state(["Ann", "Ben"], random.Random(9))
    yard = state.railyard
    assert len(yard.open) == 4
    assert abs(len(yard.stacks[0]) - len(yard.stacks[1])) <= 1
    assert len(yard.open) + len(yard.stacks[0]) + len(yard.stacks[1]) == sum(CATALOG.foundations.values())


def test_a_box_with_double_sided_attractions_is_a_catalog_change_only() -> None:
    data = raw()
    data["attractions"]["reflections"] = True
    flipped = load_catalog(data)
    assert not any(s.mirrored for s in flipped.shapes.values())

    class DoubleSided(GrandCarnival):
        catalog = flipped

    game = DoubleSided()
    rows = ["ssss....", "wssw...."] + ["........"] * 6
    state = table([market(rows), market()], game=game)
    assert game.is_legal(state, game.parse_move(state, "Ann 4 build S4 a8 b8 b7 c7"))
    assert not GAME.is_legal(state, mv(state, "Ann 4 build S4 a8 b8 b7 c7"))


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("foundations", 0, "pattern"), "wsss", "not like 'ws/ss'"),
        (("foundations", 0, "count"), 0, "needs one count"),
        (("attractions", "shapes", 0, "rows"), ["######"], "1 to 5 fields"),
        (("attractions", "shapes", 0, "count"), {"1": 5}, "counts for 1, 2, 3 and 4 players"),
        (("entrances", "columns"), ["b", "b"], "two different columns"),
        (("tricks", "cards", 0, "effect"), "fly", "trick 'Shortcut Through the Sites'"),
        (("tricks", "dealt"), 9, "tricks.dealt"),
    ],
)
def test_a_broken_components_file_names_the_entry(path: tuple[Any, ...], value: Any, words: str) -> None:
    data = copy.deepcopy(raw())
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match="components.toml") as info:
        load_catalog(data)
    assert words in str(info.value)
