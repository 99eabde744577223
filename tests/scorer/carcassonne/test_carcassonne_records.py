"""Records and `replay --json` output as shared/rules/RECORDS.md specifies them."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from scorer.core import RecordError, UnknownComponent
from tests.scorer.carcassonne.carcassonne_helpers import GAME, record  # type: ignore[import-not-found,unused-ignore]

EXAMPLE: dict[str, Any] = {
    "game": "carcassonne",
    "expansions": ["under-the-big-top"],
    "rules": {"tiny_city_points": 4},
    "players": ["Red", "Blue"],
    "start": "D",
    "animal_tokens": ["seal", "bear", "monkey"],
    "moves": [
        {"tile": "V", "at": [1, 0], "rotation": 90, "place": {"figure": "meeple", "on": "road:W"}},
        {"tile": "cfrf.circus", "at": [0, 1], "rotation": 90, "place": {"figure": "ringmaster", "on": "city:E"}},
        {"tile": "ffrr.acrobats", "at": [2, 0], "rotation": 180, "place": {"figure": "acrobat", "tile": [2, 0]}},
        {"tile": "U", "at": [3, 0], "rotation": 0, "place": {"figure": "acrobat", "tile": [2, 0]}},
        {"tile": "U", "at": [-1, 0], "rotation": 0},
    ],
}

CATEGORIES = ["road", "city", "monastery", "field", "circus", "acrobats", "ringmaster"]


def test_the_records_md_example_replays_and_scores() -> None:
    report = GAME.replay(EXAMPLE)
    assert not report.illegal and report.exit_status == 0
    data = report.data
    assert data["game"] == "carcassonne"
    # Red: road V-D-U 3 (incomplete), seal 4 for the meeple on V beside the Big Top, 1 acrobat 5.
    # Blue: city 1, seal 4 for the ringmaster, 1 acrobat 5, ringmaster bonus 2 (its own circus tile).
    assert data["final"]["Red"] == dict(zip(CATEGORIES, [3, 0, 0, 0, 4, 5, 0]))
    assert data["final"]["Blue"] == dict(zip(CATEGORIES, [0, 1, 0, 0, 4, 5, 2]))
    assert data["scores"] == {"Red": 12, "Blue": 12}
    for name, total in data["scores"].items():
        assert sum(data["final"][name].values()) == total
    assert json.loads(json.dumps(data)) == data
    assert "Red" in report.text and "ringmaster" in report.text


def test_events_name_the_move_and_the_points_by_player() -> None:
    moves = [
        {"tile": "U", "at": [1, 0], "rotation": 0, "place": {"figure": "meeple", "on": "road:E"}},
        {"tile": "A", "at": [-1, 0], "rotation": 270},
        {"tile": "A", "at": [2, 0], "rotation": 90},
    ]
    data = GAME.replay(record(moves)).data
    assert data["events"][0] == {
        "move": 2,
        "what": "road completed",
        "points": {"Red": 4},
        "text": data["events"][0]["text"],
    }
    assert all(e["move"] is None for e in data["events"][1:])  # end-of-game scoring


def _illegal(moves: list[dict[str, Any]], index: int, *words: str, **fields: Any) -> Mapping[str, Any]:
    report = GAME.replay(record(moves, **fields))
    assert report.illegal and report.exit_status == 3
    error = report.data["error"]
    assert error["index"] == index and isinstance(error["move"], str)
    for word in words:
        assert word in error["reason"], error["reason"]
    assert json.loads(json.dumps(report.data)) == report.data
    return report.data


def _m(name: str, x: int, y: int, rotation: int = 0, **place: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"tile": name, "at": [x, y], "rotation": rotation}
    if place:
        out["place"] = place
    return out


def test_illegal_moves_exit_3_with_the_result_before_them() -> None:
    data = _illegal(
        [_m("U", 1, 0, figure="meeple", on="road:E"), _m("A", -1, 0, 270), _m("A", 2, 0, 90), _m("U", 2, 0)],
        3,
        "already a tile at 2,0",
    )
    assert data["scores"] == {"Red": 4, "Blue": 0} and data["error"]["move"] == "U@2,0r0"
    # no end-of-game scoring after an illegal move
    assert data["finished"] is False and all(e["move"] is not None for e in data["events"])


@pytest.mark.parametrize(
    "moves, index, words, fields",
    [
        ([_m("X", 1, 0), _m("X", -1, 0)], 1, ["All 1 X tile"], {}),
        ([_m("U", 1, 0, figure="ringmaster", on="road:E"), _m("U", -1, 0),
          _m("U", 2, 0, figure="ringmaster", on="field:NL")], 2, ["only one"], {}),
        ([_m("U", 1, 0, figure="ringmaster", on="road:E")], 0, ["Under the Big Top"], {"expansions": []}),
        ([_m("ffrf.circus", 0, 1, figure="meeple", on="circus")], 0, ["circus space"], {}),
        ([_m("ffff.acrobats", 0, 1, figure="ringmaster", tile=[0, 1])], 0, ["never be an acrobat"], {}),
        ([_m("ffff.acrobats", 0, 1, figure="acrobat", tile=[0, 1]), _m("U", 1, 0, figure="acrobat", tile=[0, 1]),
          _m("U", -1, 0, figure="acrobat", tile=[0, 1]), _m("B", 1, 1, figure="acrobat", tile=[0, 1])],
         3, ["already has three"], {}),
        ([_m("ffff.acrobats", 0, 1, figure="acrobat", tile=[0, 1]),
          {"tile": "U", "at": [1, 0], "rotation": 0, "score_pyramid": [0, 1]}], 1, ["only a complete pyramid"], {}),
        ([_m("U", 1, 0), _m("U", 2, 0), _m("U", 3, 0), _m("U", 4, 0), _m("U", 5, 0), _m("U", 6, 0), _m("U", 7, 0),
          _m("U", 8, 0), _m("U", 9, 0)], 8, ["All 8 U tiles"], {}),
        ([_m("U", 0, -1)], 0, ["south edge is a field", "shows a city"], {}),
    ],
)  # fmt: skip
def test_rule_breaking_moves_of_records_md(
    moves: list[dict[str, Any]], index: int, words: list[str], fields: dict[str, Any]
) -> None:
    _illegal(moves, index, *words, **fields)


def test_an_eighth_meeple_in_a_record() -> None:
    spots = [("U", 1, 0, "road:E"), ("U", -1, 0, "field:NL"), ("U", 2, 0, "field:SL"), ("B", 0, 1, "monastery"),
             ("B", 1, 1, "monastery"), ("B", 2, 1, "monastery"), ("B", -1, 1, "monastery"), ("A", 3, 1, "monastery")]  # fmt: skip
    moves = [_m(t, x, y, figure="meeple", on=on) for t, x, y, on in spots]
    _illegal(moves, 7, "All 7 of your meeples", players=["Solo"])


@pytest.mark.parametrize(
    "change, field",
    [
        ({"players": []}, "players"),
        ({"players": ["A", "B", "C", "D", "E", "F", "G"]}, "players"),
        ({"players": ["Red", 3]}, "players[1]"),
        ({"game": "chess"}, "game"),
        ({"moves": "V@1,0r90"}, "moves"),
        ({"rules": {"tiny_city_points": "four"}}, "rules.tiny_city_points"),
        ({"rules": {"farmers": False}}, "rules.farmers"),
        ({"expansions": ["inns-and-cathedrals"]}, "expansions[0]"),
        ({"animal_tokens": ["seal", "unicorn"]}, "animal_tokens[1]"),
        ({"animal_tokens": ["flea", "flea"]}, "animal_tokens"),
        ({"moves": [{"tile": "Z", "at": [1, 0], "rotation": 0}]}, "moves[0].tile"),
        ({"moves": [{"tile": "U", "at": [1, "0"], "rotation": 0}]}, "moves[0].at"),
        ({"moves": [{"tile": "U", "at": [1, 0], "rotation": 45}]}, "moves[0].rotation"),
        ({"moves": [{"tile": "U", "at": [1, 0]}]}, "moves[0].rotation"),
        ({"moves": [{"tile": "U", "at": [1, 0], "rotation": 0, "place": {"figure": "wizard", "on": "road:E"}}]},
         "moves[0].place.figure"),
        ({"moves": [{"tile": "U", "at": [1, 0], "rotation": 0, "place": {"figure": "meeple", "on": "road:Q"}}]},
         "moves[0].place.on"),
        ({"moves": [{"tile": "U", "at": [1, 0], "rotation": 0, "place": {"figure": "meeple", "tile": [1, 0]}}]},
         "moves[0].place"),
        ({"moves": [{"tile": "U", "at": [1, 0], "rotation": 0, "colour": "red"}]}, "moves[0].colour"),
        ({"moves": [7]}, "moves[0]"),
        ({"start": "Q7"}, "start"),
    ],
)  # fmt: skip
def test_invalid_records_raise_record_error_naming_the_field(change: dict[str, Any], field: str) -> None:
    bad = copy.deepcopy(EXAMPLE)
    bad.update(change)
    with pytest.raises(RecordError) as err:
        GAME.replay(bad)
    assert err.value.field == field
    assert "\n" not in str(err.value) and str(err.value).startswith(field.split("[")[0].split(".")[0])


def test_unknown_tiles_and_tokens_are_unknown_components() -> None:
    bad = copy.deepcopy(EXAMPLE)
    bad["moves"][0]["tile"] = "Z"
    with pytest.raises(UnknownComponent):
        GAME.replay(bad)
    bad = copy.deepcopy(EXAMPLE)
    bad["animal_tokens"] = ["dragon"]
    with pytest.raises(UnknownComponent):
        GAME.replay(bad)


def test_an_expansion_tile_without_the_expansion_is_an_invalid_record() -> None:
    bad = copy.deepcopy(EXAMPLE)
    bad["expansions"] = []
    with pytest.raises(RecordError) as err:
        GAME.replay(bad)
    assert err.value.field == "moves[1].tile" and "under-the-big-top" in str(err.value)


def test_too_few_animal_tokens_for_the_circus_tiles() -> None:
    bad = copy.deepcopy(EXAMPLE)
    bad["animal_tokens"] = []
    with pytest.raises(RecordError) as err:
        GAME.replay(bad)
    assert err.value.field == "animal_tokens"


def test_missing_animal_tokens_are_shuffled_with_the_seed() -> None:
    plain = copy.deepcopy(EXAMPLE)
    del plain["animal_tokens"]
    seeded = dict(plain, seed=0)
    assert GAME.replay(plain).data == GAME.replay(seeded).data


def test_record_not_an_object() -> None:
    with pytest.raises(RecordError):
        GAME.replay([1, 2])  # type: ignore[arg-type]


@pytest.mark.parametrize("players, options", [(2, {}), (4, {"tiny_city_points": 2}), (3, {"expansions": []})])
def test_simulated_records_replay_to_the_same_scores(players: int, options: dict[str, Any]) -> None:
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    rec = GAME.simulate(names, random.Random(11), **options)
    assert rec == GAME.simulate(names, random.Random(11), **options)
    report = GAME.replay(json.loads(json.dumps(rec)))
    assert not report.illegal and report.data["finished"]
    state = GAME.new_state(names, random.Random(11), **options)
    assert len(rec["moves"]) == sum(state.remaining.values())  # every tile placed or set aside
    # the same game played through the full-information state
    from scorer.carcassonne import move_from_json

    for i, entry in enumerate(rec["moves"]):
        move = move_from_json(entry, f"moves[{i}]")
        if entry.get("discard"):
            assert move.tile in state.discarded  # the full-information state set it aside itself
            continue
        state, _ = GAME.play(state, move)
    assert state.finished
    assert report.data["scores"] == dict(zip(names, state.scores))


def test_no_traceback_for_any_mangled_record() -> None:
    """Every field of a record replaced by junk or removed: a report or a one-line RecordError."""
    rng = random.Random(0)
    stack = rng.sample(["U", "V", "B", "E", "ffrr.acrobats", "cfrf.circus", "frrf.circus", "M", "X", "W"], 10)
    base = GAME.simulate(["Ann", "Ben", "Cat"], random.Random(3), stack=stack)
    junk: list[Any] = [None, 1, -1, 1.5, True, "x", "", [], {}, [1], [1, 2, 3], {"a": 1}, "road:N", [0, 0], 90]

    def paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        out = [path]
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.extend(paths(value, path + (key,)))
        return out

    every = [p for p in paths(base) if p]
    for _ in range(400):
        mangled = copy.deepcopy(base)
        path = rng.choice(every)
        parent = mangled
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(junk)
        try:
            report = GAME.replay(mangled)
        except RecordError as err:
            assert "\n" not in str(err) and err.field
        else:
            assert json.loads(json.dumps(report.data)) == report.data
