"""Final scoring by the seed's table: each line alone, together, partitions, ties."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from scorer.core import RecordError, UnknownComponent
from scorer.grand_carnival.scoring import SET_POINTS, best_sets, score_board
from tests.scorer.grand_carnival.carnival_helpers import GAME, market  # type: ignore[import-not-found,unused-ignore]

# Every parcel "ws/ss": rows 8, 6, 4, 2 read "wswswsws", rows 7, 5, 3, 1 are all sites.
FULL = ["wswswsws", "ssssssss"] * 4
SITES = 48


def position(*players: dict[str, Any]) -> dict[str, Any]:
    return {"game": "grand-carnival", "players": list(players)}


def ann(**kw: Any) -> dict[str, Any]:
    return {"name": "Ann", "market": FULL, **kw}


def line(report_data: Any, name: str = "Ann") -> dict[str, Any]:
    return dict(report_data["players"][name])


def i2(row: int, col: str, tickets: int) -> dict[str, Any]:
    nxt = chr(ord(col) + 1)
    return {"cells": [f"{col}{row}", f"{nxt}{row}"], "tickets": tickets}


def test_sets_alone_seed_example_four_size_two_attractions_score_8() -> None:
    atts = [i2(7, c, 1) for c in "aceg"]
    out = line(GAME.score_position(position(ann(attractions=atts))).data)
    assert out["sets"] == 8
    assert out["set_groups"] == [{"size": 2, "sets": [4]}]
    assert (out["variety"], out["tent"], out["tickets"], out["barkers"]) == (0, 0, 0, 0)
    assert out["hammers"] == -(SITES - 8)
    assert out["total"] == 8 - (SITES - 8)


def test_sets_need_a_ticket_on_every_attraction() -> None:
    atts = [i2(7, "a", 0)] + [i2(7, c, 1) for c in "ceg"]
    assert line(GAME.score_position(position(ann(attractions=atts))).data)["sets"] == 5
    atts = [i2(7, c, 0) for c in "aceg"]
    assert line(GAME.score_position(position(ann(attractions=atts))).data)["sets"] == 0


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("count", [3, 4, 5])
def test_set_table_of_the_seed(size: int, count: int) -> None:
    assert best_sets(size, count)[0] == SET_POINTS[size][count]
    assert best_sets(size, count)[1] == (count,)


def test_several_sets_of_different_sizes_add_up() -> None:
    atts = [i2(7, c, 1) for c in "aceg"] + [{"cells": [f"{c}5"], "tickets": 1} for c in "abcde"]
    out = line(GAME.score_position(position(ann(attractions=atts))).data)
    assert out["sets"] == SET_POINTS[2][4] + SET_POINTS[1][5]


def test_decision_sets_best_partition_beats_the_greedy_choice() -> None:
    """[DECISION] sets: each attraction in at most one set, 3-5 of one size, best partition.

    Six size-5 attractions: greedy takes a set of five (35) and wastes one;
    two sets of three score 36.
    """
    atts = [
        {"cells": [f"{c}{r}" for c in "cdefg"], "tickets": 1} for r in (7, 5, 3, 1)
    ] + [
        {"cells": [f"b{r}" for r in (8, 7, 6, 5, 4)], "tickets": 1},
        {"cells": [f"h{r}" for r in (8, 7, 6, 5, 4)], "tickets": 1},
    ]
    # The vertical ones cross the horizontal rows only outside columns c..g.
    out = line(GAME.score_position(position(ann(attractions=atts))).data)
    assert out["sets"] == 36 > SET_POINTS[5][5]
    assert out["set_groups"] == [{"size": 5, "sets": [3, 3]}]


def _brute_force(size: int, count: int) -> int:
    best = 0
    for a, b, c in itertools.product(range(count // 3 + 1), range(count // 4 + 1), range(count // 5 + 1)):
        if 3 * a + 4 * b + 5 * c <= count:
            t = SET_POINTS[size]
            best = max(best, a * t[3] + b * t[4] + c * t[5])
    return best


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_best_sets_matches_brute_force(size: int) -> None:
    for count in range(0, 21):
        points, groups = best_sets(size, count)
        assert points == _brute_force(size, count)
        assert sum(groups) <= count and all(3 <= g <= 5 for g in groups)
        assert points == sum(SET_POINTS[size][g] for g in groups)


def _one_of_each(tickets: tuple[int, ...]) -> list[dict[str, Any]]:
    return [
        {"cells": ["a7"], "tickets": tickets[0]},
        {"cells": ["c7", "d7"], "tickets": tickets[1]},
        {"cells": ["a5", "b5", "c5"], "tickets": tickets[2]},
        {"cells": ["a3", "b3", "c3", "d3"], "tickets": tickets[3]},
        {"cells": ["a1", "b1", "c1", "d1", "e1"], "tickets": tickets[4]},
    ]


def test_variety_alone_one_ticketed_attraction_of_each_size_scores_22() -> None:
    out = line(GAME.score_position(position(ann(attractions=_one_of_each((1, 1, 1, 1, 1))))).data)
    assert out["variety"] == 22 and out["sets"] == 0
    out = line(GAME.score_position(position(ann(attractions=_one_of_each((1, 1, 0, 1, 1))))).data)
    assert out["variety"] == 0


def test_decision_variety_scores_independently_of_sets() -> None:
    """[DECISION] variety scores independently: an attraction in a set still counts for it."""
    atts = _one_of_each((1, 1, 1, 1, 1)) + [{"cells": [f"{c}7"], "tickets": 1} for c in "fh"]
    out = line(GAME.score_position(position(ann(attractions=atts))).data)
    assert out["sets"] == SET_POINTS[1][3]
    assert out["variety"] == 22


@pytest.mark.parametrize(("guests", "points"), [(0, 0), (1, 3), (2, 6), (3, 10), (4, 15), (7, 15)])
def test_guests_in_the_tent_alone(guests: int, points: int) -> None:
    out = line(GAME.score_position(position(ann(tent=guests))).data)
    assert out["tent"] == points
    assert out["total"] == points - SITES


@pytest.mark.parametrize(("held", "points"), [(14, 0), (15, 12), (17, 12)])
def test_tickets_alone_12_points_from_15_tickets(held: int, points: int) -> None:
    atts = []
    left = held
    for r in (7, 5, 3, 1):
        n = min(left, 5)
        atts.append({"cells": [f"{c}{r}" for c in "abcde"], "tickets": n})
        left -= n
    assert left == 0
    out = line(GAME.score_position(position(ann(attractions=atts))).data)
    assert out["tickets"] == points and out["tickets_held"] == held


def test_barkers_alone_3_points_each() -> None:
    rows = list(FULL)
    rows[0] = "bswswsbs"
    out = line(GAME.score_position(position(ann(market=rows))).data)
    assert out["barkers"] == 6
    assert out["total"] == 6 - SITES


def test_decision_one_hammer_per_empty_parcel_and_per_uncovered_site() -> None:
    """[DECISION §1.3.6] an empty parcel shows exactly one hammer; each uncovered site one."""
    empty = line(GAME.score_position(position({"name": "Ann", "market": ["........"] * 8})).data)
    assert empty["hammers"] == -16 and empty["total"] == -16
    rows = ["ws......", "ss......"] + ["........"] * 6
    one = line(GAME.score_position(position({"name": "Ann", "market": rows})).data)
    assert one["hammers"] == -(15 + 3)
    covered = line(
        GAME.score_position(
            position({"name": "Ann", "market": rows, "attractions": [{"cells": ["a7", "b7", "b8"]}]})
        ).data
    )
    assert covered["hammers"] == -15


def test_every_line_together() -> None:
    rows = list(FULL)
    rows[0] = "bsbswsws"  # two barkers
    atts = _one_of_each((1, 2, 3, 4, 5)) + [
        {"cells": ["f7"], "tickets": 1},
        {"cells": ["h7"], "tickets": 1},
        {"cells": ["e5", "f5"], "tickets": 1},
        {"cells": ["g5", "h5"], "tickets": 1},
    ]
    out = line(GAME.score_position(position(ann(market=rows, attractions=atts, tent=3, tricks=2))).data)
    covered = 1 + 1 + 2 + 3 + 4 + 5 + 1 + 2 + 2
    expected = {
        "sets": SET_POINTS[1][3] + SET_POINTS[2][3],
        "variety": 22,
        "tent": 10,
        "tickets": 12,  # 1+2+3+4+5+1+1+1+1 = 19 tickets
        "barkers": 6,
        "hammers": -(SITES - covered),
    }
    for key, value in expected.items():
        assert out[key] == value, key
    assert out["total"] == sum(expected.values())
    assert out["tickets_held"] == 19 and out["tricks_learned"] == 2


def test_score_board_matches_score_position() -> None:
    board = market(FULL, [i2(7, c, 1) for c in "aceg"], tent=2)
    data = GAME.score_position(position(ann(attractions=[i2(7, c, 1) for c in "aceg"], tent=2))).data
    assert score_board(board, GAME.catalog).total == data["scores"]["Ann"]


def test_ties_go_to_more_tricks_then_more_tickets_then_are_shared() -> None:
    base = {"market": FULL, "attractions": [i2(7, "a", 1)]}
    rep = GAME.score_position(position({"name": "Ann", **base, "tricks": 1}, {"name": "Ben", **base}))
    assert rep.data["scores"]["Ann"] == rep.data["scores"]["Ben"]
    assert rep.data["winners"] == ["Ann"] and "tricks" in rep.data["reason"]
    more = {"market": FULL, "attractions": [i2(7, "a", 2)]}
    rep = GAME.score_position(position({"name": "Ann", **base}, {"name": "Ben", **more}))
    assert rep.data["winners"] == ["Ben"] and "tickets" in rep.data["reason"]
    rep = GAME.score_position(position({"name": "Ann", **base}, {"name": "Ben", **base}))
    assert rep.data["winners"] == ["Ann", "Ben"] and "shared" in rep.data["reason"]
    assert "Ann, Ben" in rep.text


def test_score_position_reads_a_saved_state() -> None:
    import random

    state = GAME.new_state(["Ann", "Ben"], random.Random(3))
    rep = GAME.score_position(GAME.state_to_json(state))
    assert rep.data["scores"] == {"Ann": -16, "Ben": -16}


@pytest.mark.parametrize(
    ("player", "field"),
    [
        ({"name": "Ann"}, "players[0].market"),
        ({"name": "Ann", "market": "wswswsws"}, "players[0].market"),
        ({"name": "Ann", "market": ["wswswsws"] * 7}, "players[0].market"),
        ({"name": "Ann", "market": ["wswswsws", "sssssssx"] + FULL[2:]}, "players[0].market"),
        ({"name": "Ann", "market": ["w.......", "........"] + FULL[2:]}, "players[0].market"),
        ({"name": 5, "market": FULL}, "players[0].name"),
        ({"name": "Ann", "market": FULL, "tent": -1}, "players[0].tent"),
        ({"name": "Ann", "market": FULL, "tent": "3"}, "players[0].tent"),
        ({"name": "Ann", "market": FULL, "tricks": 4}, "players[0].tricks"),
        ({"name": "Ann", "market": FULL, "attractions": {}}, "players[0].attractions"),
        ({"name": "Ann", "market": FULL, "attractions": [{"cells": ["a8"]}]}, "players[0].attractions[0].cells"),
        ({"name": "Ann", "market": FULL, "attractions": [{"cells": ["b8", "d8"]}]}, "players[0].attractions[0].cells"),
        ({"name": "Ann", "market": FULL, "attractions": [{"cells": ["z9"]}]}, "players[0].attractions[0].cells[0]"),
        ({"name": "Ann", "market": FULL, "attractions": [{"cells": ["b7"], "tickets": 2}]}, "players[0].attractions[0].tickets"),
        (
            {"name": "Ann", "market": FULL, "attractions": [{"cells": ["b7"]}, {"cells": ["b7"]}]},
            "players[0].attractions[1].cells",
        ),
    ],
)
def test_bad_positions_name_the_field(player: dict[str, Any], field: str) -> None:
    with pytest.raises(RecordError) as info:
        GAME.score_position(position(player))
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_unknown_foundation_pattern_in_a_position_is_an_unknown_component() -> None:
    rows = ["ss" + FULL[0][2:], "ss" + FULL[1][2:]] + FULL[2:]
    with pytest.raises(UnknownComponent, match="ss/ss"):
        GAME.score_position(position(ann(market=rows)))


def test_position_must_be_an_object_with_players() -> None:
    with pytest.raises(RecordError):
        GAME.score_position([])  # type: ignore[arg-type]
    with pytest.raises(RecordError) as info:
        GAME.score_position({"game": "grand-carnival"})
    assert info.value.field == "players"
    with pytest.raises(RecordError) as info:
        GAME.score_position({"game": "bigtop", "players": []})
    assert info.value.field == "game"
