"""Guests: walking, blocking, the tent, tickets, entrances and barkers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer.core import Verdict
from scorer.grand_carnival import CarnivalState, Reason, Walk
from scorer.grand_carnival.model import ENTRANCES, TENT, TrickStatus
from tests.scorer.grand_carnival.carnival_helpers import GAME, cell, market, mv, play, table  # type: ignore[import-not-found,unused-ignore]

EMPTY6 = ["........"] * 6
# Rows 2 and 1: sites over a walkway corridor; the entrances lead onto b1 and g1.
CORRIDOR = EMPTY6 + ["ssssssss", "wwwwwwww"]
# Column b is a walkway from b1 to b8 (parcels "sw/sw"); the tent is above b8.
COLUMN = ["swswswsw"] * 8


def reason(state: CarnivalState, text: str) -> tuple[object, str]:
    result = GAME.check(state, mv(state, text))
    assert result.verdict is Verdict.ILLEGAL, text
    return result.reason, result.message


def ends(state: CarnivalState, start: int, number: int) -> set[int]:
    return {
        m.end
        for m in GAME.legal_moves(state)
        if isinstance(m, Walk) and m.start == start and m.number == number
    }


def test_decision_leaving_an_entrance_is_one_step() -> None:
    """[DECISION] leaving an entrance is 1 step (onto its row-1 field, b1 or g1)."""
    state = table([market(CORRIDOR), market()])
    assert ends(state, ENTRANCES[0], 1) == {cell("b1")}
    assert ends(state, ENTRANCES[1], 1) == {cell("g1")}
    assert ends(state, ENTRANCES[0], 3) == {cell(c) for c in ("a1", "b1", "c1", "d1")}


def test_decision_entrances_lead_onto_columns_b_and_g() -> None:
    """[DECISION §1.3.1] the two entrances lie below row 1, at columns b and g."""
    assert GAME.catalog.entrance_cells == (cell("b1"), cell("g1"))


def test_guests_walk_up_to_the_number_on_walkways_only() -> None:
    state = table([market(CORRIDOR), market()])
    assert play(state, "Ann 4 guest in1 e1").boards[0].guests == 1 << cell("e1")
    r, msg = reason(state, "Ann 3 guest in1 e1")
    assert r is Reason.TOO_FAR
    assert msg == "e1 is out of reach: the guest may walk 3 steps (your number 3) along walkways."
    r, msg = reason(state, "Ann 3 guest in1 b2")
    assert r is Reason.NOT_WALKABLE and msg == "Guests walk on walkways only; b2 is a construction site."
    r, msg = reason(state, "Ann 3 guest in1 b3")
    assert r is Reason.NOT_WALKABLE and "b3 is an empty parcel" in msg


def test_movement_blocked_by_guests_and_barkers() -> None:
    rows = EMPTY6 + ["ssssssss", "wwwgwbww"]
    state = table([market(rows), market()])
    # d1 holds a guest and f1 a barker: from b1 the guest cannot pass d1.
    assert ends(state, ENTRANCES[0], 5) == {cell("a1"), cell("b1"), cell("c1")}
    r, msg = reason(state, "Ann 5 guest in1 e1")
    assert r is Reason.BLOCKED
    assert msg == ("Guests and barkers stand in the way: the guest cannot get to e1 "
                   "without walking through them.")
    # The guest on d1 can reach e1 but not the fields behind the barker on f1.
    assert cell("g1") not in ends(state, cell("d1"), 5)
    r, _ = reason(state, "Ann 5 guest d1 g1")
    assert r is Reason.BLOCKED
    r, msg = reason(state, "Ann 5 guest in1 d1")
    assert r is Reason.OCCUPIED and msg == "d1 already has a guest on it."
    r, msg = reason(state, "Ann 5 guest in2 f1")
    assert r is Reason.OCCUPIED and msg == "f1 already has a barker on it."


def test_each_barker_adds_one_step() -> None:
    rows = EMPTY6 + ["ssssssss", "wwwwwwwb"]
    state = table([market(rows), market()])
    assert cell("f1") in ends(state, ENTRANCES[0], 4)  # b1 c1 d1 e1 f1: 5 steps
    assert cell("g1") not in ends(state, ENTRANCES[0], 4)
    r, msg = reason(state, "Ann 3 guest in1 g1")
    assert r is Reason.TOO_FAR and "4 steps (your number 3 plus 1 for your barkers)" in msg


def test_decision_steps_are_orthogonal() -> None:
    """[DECISION] orthogonal steps: a diagonal neighbour is not one step away."""
    rows = ["........"] * 4 + ["wsws....", "swsw...."] + ["........"] * 2
    board = market(rows, entrances=(False, False))
    board = replace(board, guests=1 << cell("a4"))
    state = table([board, market()])
    assert ends(state, cell("a4"), 5) == set()
    r, _ = reason(state, "Ann 5 guest a4 b3")
    assert r is Reason.TOO_FAR


def test_decision_at_least_one_step_never_ending_where_it_started() -> None:
    """[DECISION] a walk is at least 1 step: a guest may not end where it started."""
    board = replace(market(COLUMN), guests=1 << cell("b4"))
    state = table([board, market()])
    r, msg = reason(state, "Ann 2 guest b4 b4")
    assert r is Reason.SAME_FIELD
    assert msg == "A guest must end its walk on another field than it started."
    assert cell("b4") not in ends(state, cell("b4"), 5)


def test_decision_entering_the_tent_costs_one_step_from_the_top_row() -> None:
    """[DECISION] entering the tent costs 1 step from a top-row walkway."""
    board = replace(market(COLUMN), guests=(1 << cell("b8")) | (1 << cell("d7")))
    state = table([board, market()])
    assert TENT in ends(state, cell("b8"), 1)
    assert TENT not in ends(state, cell("d7"), 1)
    assert TENT in ends(state, cell("d7"), 2)
    r, msg = reason(state, "Ann 1 guest d7 tent")
    assert r is Reason.TOO_FAR
    assert msg == ("the circus tent is out of reach: the guest may walk 1 step (your number 1) "
                   "along walkways (the tent is entered from a field of the top row).")
    after = play(state, "Ann 2 guest d7 tent")
    assert after.boards[0].tent == 1
    assert after.boards[0].guests == 1 << cell("b8")


def test_guests_in_the_tent_give_no_tickets() -> None:
    rows = ["swsw....", "swsw...."] + EMPTY6
    board = market(rows, [{"cells": ["a8"], "tickets": 0}, {"cells": ["c8"], "tickets": 0}])
    board = replace(board, guests=1 << cell("b7"))
    state = play(table([board, market()]), "Ann 2 guest b7 tent")
    assert [a.tickets for a in state.boards[0].attractions] == [0, 0]


def test_decision_full_attraction_gets_no_ticket_every_other_adjacent_one_does() -> None:
    """[DECISION] a full attraction simply gets no ticket."""
    rows = EMPTY6 + ["ssssssss", "swswswsw"]  # b1, d1, f1, h1 are walkways
    atts = [
        {"cells": ["a1"], "tickets": 0},
        {"cells": ["b2", "c2"], "tickets": 0},
        {"cells": ["c1"], "tickets": 1},  # full: size 1, one ticket
        {"cells": ["a2"], "tickets": 0},  # diagonal to b1: no ticket
    ]
    state = table([market(rows, atts), market()])
    after, events = GAME.play(state, mv(state, "Ann 1 guest in1 b1"))
    assert [a.tickets for a in after.boards[0].attractions] == [1, 1, 1, 0]
    assert any(e.what == "tickets" and "2 attraction" in e.text for e in events)


def test_tickets_only_up_to_the_attraction_size() -> None:
    rows = EMPTY6 + ["ssssssss", "wwwwwwww"]
    state = table([market(rows, [{"cells": ["c2", "d2"], "tickets": 1}]), market()])
    state = play(state, "Ann 3 guest in1 c1", "Ben 1 foundation 1a ww/sw a8")
    assert state.boards[0].attractions[0].tickets == 2
    state = play(state, "Ann 1 guest c1 d1")
    assert state.boards[0].attractions[0].tickets == 2


def test_no_guest_there() -> None:
    state = table([market(CORRIDOR, entrances=(False, True)), market()])
    r, msg = reason(state, "Ann 1 guest in1 b1")
    assert r is Reason.NO_GUEST and msg == "There is no guest of yours on in1."
    r, msg = reason(state, "Ann 1 guest c1 b1")
    assert r is Reason.NO_GUEST and msg == "There is no guest of yours on c1."


def test_guests_never_walk_onto_an_entrance() -> None:
    board = replace(market(CORRIDOR), guests=1 << cell("b1"))
    state = table([board, market()])
    r, msg = reason(state, "Ann 1 guest b1 in1")
    assert r is Reason.NOT_WALKABLE and msg == "Guests may never walk onto an entrance."


def test_both_entrances_empty_bring_new_guests_and_a_barker() -> None:
    state = table([market(CORRIDOR, entrances=(True, False)), market()], barkers=2)
    r, msg = reason(state, "Ann 1 guest in1 b1")
    assert r is Reason.BARKER_MISSING
    assert msg == ("Both entrances are now empty: new guests arrive and you take a barker; "
                   "say which empty walkway it goes on.")
    barkers = {m.barker for m in GAME.legal_moves(state) if isinstance(m, Walk) and m.number == 1}
    assert barkers == {cell(c) for c in ("a1", "c1", "d1", "e1", "f1", "g1", "h1")}
    after, events = GAME.play(state, mv(state, "Ann 1 guest in1 b1 barker e1"))
    assert after.boards[0].entrances == (True, True)
    assert after.boards[0].barkers == 1 << cell("e1")
    assert after.barkers == 1
    assert {e.what for e in events} >= {"guests arrive", "barker"}
    r, msg = reason(state, "Ann 1 guest in1 b1 barker b2")
    assert r is Reason.BARKER_SPOT and msg == "A barker goes on an empty walkway; b2 is not one."
    r, _ = reason(state, "Ann 1 guest in1 b1 barker b1")
    assert r is Reason.BARKER_SPOT


def test_no_barker_due_while_an_entrance_holds_a_guest() -> None:
    state = table([market(CORRIDOR), market()])
    r, msg = reason(state, "Ann 1 guest in1 b1 barker e1")
    assert r is Reason.NO_BARKER_DUE
    assert msg == "You get a barker only when your walk leaves both entrances empty."


def test_no_barker_left_in_the_supply_means_new_guests_only() -> None:
    state = table([market(CORRIDOR, entrances=(True, False)), market()], barkers=0)
    after = play(state, "Ann 1 guest in1 b1")
    assert after.boards[0].entrances == (True, True) and after.boards[0].barkers == 0
    r, msg = reason(state, "Ann 1 guest in1 b1 barker e1")
    assert r is Reason.NO_BARKER_DUE and msg == "No barker comes: no barker is left in the supply."


def test_no_empty_walkway_means_no_barker() -> None:
    rows = EMPTY6 + ["ssssssss", "sw......"]  # b1 is the only walkway
    rows[6] = "ss......"
    state = table([market(rows, entrances=(True, False)), market()], barkers=3)
    after = play(state, "Ann 1 guest in1 b1")
    assert after.boards[0].barkers == 0 and after.barkers == 3
    r, msg = reason(state, "Ann 1 guest in1 b1 barker b1")
    assert r is Reason.NO_BARKER_DUE and msg == "No barker comes: you have no empty walkway."


def test_decision_walk_on_sites_trick_lets_guests_use_empty_sites() -> None:
    """[DECISION §1.3.5] the known trick: guests may also walk on empty construction sites."""
    learned = (TrickStatus.LEARNED, TrickStatus.OPEN, TrickStatus.OPEN)
    rows = EMPTY6 + ["ssssssss", "wwwwwwww"]
    plain = table([market(rows), market()])
    r, _ = reason(plain, "Ann 2 guest in1 b2")
    assert r is Reason.NOT_WALKABLE
    trick = table([market(rows, [{"cells": ["c2"]}], tricks=learned), market()])
    after = play(trick, "Ann 2 guest in1 b2")
    assert after.boards[0].guests == 1 << cell("b2")
    r, msg = reason(trick, "Ann 2 guest in1 c2")
    assert r is Reason.NOT_WALKABLE and msg == "Guests walk on walkways only; c2 is an attraction."


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_every_listed_walk_is_legal_and_every_other_end_is_not(number: int) -> None:
    rows = ["swswswsw", "swswsssw", "wwssswsw", "swswwwww"] + ["swswswsw"] * 2 + ["ssswswsw", "wwwwwwgw"]
    board = market(rows)
    state = table([board, market()])
    for start in (ENTRANCES[0], ENTRANCES[1], cell("g1")):
        listed = ends(state, start, number)
        for end in [*range(64), TENT]:
            move = Walk(0, number, start, end)
            assert GAME.check(state, move).is_legal == (end in listed), (start, end)
