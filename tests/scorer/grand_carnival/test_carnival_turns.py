"""Rounds, turns, action numbers, passing, the end, and the tricks of the trade."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import pytest

from scorer.core import IllegalMove, Verdict
from scorer.grand_carnival import CarnivalState, Pass, Reason
from scorer.grand_carnival.model import TrickStatus
from tests.scorer.grand_carnival.carnival_helpers import GAME, market, mv, play, table  # type: ignore[import-not-found,unused-ignore]

EMPTY6 = ["........"] * 6
CORRIDOR = EMPTY6 + ["ssssssss", "wwwwwwww"]


def illegal(state: CarnivalState, text: str) -> tuple[object, str]:
    result = GAME.check(state, mv(state, text))
    assert result.verdict is Verdict.ILLEGAL, text
    return result.reason, result.message


def random_moves(state: CarnivalState, count: int, seed: int = 0) -> CarnivalState:
    rng = random.Random(seed)
    for _ in range(count):
        moves = GAME.legal_moves(state)
        state, _ = GAME.play(state, moves[rng.randrange(len(moves))])
    return state


def test_each_player_uses_each_number_once_per_round() -> None:
    state = GAME.new_state(["Ann", "Ben"], random.Random(1))
    seen: dict[int, list[int]] = {0: [], 1: []}
    order = []
    for _ in range(10):
        seat = GAME.current_player(state)
        assert seat is not None
        order.append(seat)
        moves = GAME.legal_moves(state)
        move = moves[len(moves) // 2]
        seen[seat].append(move.number)
        state, _ = GAME.play(state, move)
    assert order == [0, 1] * 5
    assert sorted(seen[0]) == sorted(seen[1]) == [1, 2, 3, 4, 5]
    assert state.round == 1 and all(not b.numbers for b in state.boards)


def test_number_already_taken_this_round() -> None:
    state = play(table(), "Ann 3 foundation 2 ws/ss a8", "Ben 1 foundation 1b ws/sw a8")
    reason, msg = illegal(state, "Ann 3 foundation 1a sw/ww c8")
    assert reason is Reason.NUMBER_TAKEN
    assert msg == "Your number 3 already holds a figure this round: choose an empty number."
    assert all(m.number != 3 for m in GAME.legal_moves(state))


def test_not_your_turn() -> None:
    state = table()
    reason, msg = illegal(state, "Ben 1 foundation 1a ww/sw a8")
    assert reason is Reason.NOT_YOUR_TURN and msg == "It is Ann's turn, not Ben's."
    with pytest.raises(IllegalMove) as info:
        GAME.play(state, mv(state, "Ben 1 foundation 1a ww/sw a8"))
    assert info.value.reason is Reason.NOT_YOUR_TURN and str(info.value) == msg


@pytest.mark.parametrize(("players", "starts"), [(2, [0, 1, 0, 1]), (3, [0, 2, 1, 0]), (4, [0, 3, 2, 1])])
def test_decision_start_player_passes_to_the_right(players: int, starts: list[int]) -> None:
    """[DECISION] seats are listed clockwise; the start player marker passes right (seat - 1)."""
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    state = GAME.new_state(names, random.Random(2))
    firsts = []
    for _ in range(len(starts)):
        firsts.append(GAME.current_player(state))
        state = random_moves(state, 5 * players)
    assert firsts == starts


def test_seven_rounds_then_the_game_is_over() -> None:
    state = GAME.new_state(["Ann", "Ben", "Cat"], random.Random(4))
    state = random_moves(state, 7 * 5 * 3 - 1)
    assert not GAME.is_over(state) and GAME.outcome(state) is None
    last = GAME.legal_moves(state)[0]
    state, events = GAME.play(state, last)
    assert GAME.is_over(state) and GAME.current_player(state) is None
    assert GAME.legal_moves(state) == []
    over = [e for e in events if e.what == "game over"]
    assert len(over) == 1
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == GAME.scores(state)
    assert over[0].points_by_seat() == dict(enumerate(GAME.scores(state)))
    result = GAME.check(state, Pass(0, 1))
    assert result.reason is Reason.GAME_OVER
    assert result.message == "The game is over: all 7 rounds have been played."


def test_pass_is_illegal_while_an_action_is_possible() -> None:
    reason, msg = illegal(table(), "Ann 1 pass")
    assert reason is Reason.MUST_ACT
    assert msg == "You can still do an action with number 1, so you may not pass."


def test_decision_no_legal_action_places_the_figure_and_the_turn_passes() -> None:
    """[DECISION] no legal action: the figure is placed and the turn passes."""
    nothing = {name: 0 for name in GAME.catalog.shapes}
    board = market(CORRIDOR, entrances=(False, False))
    state = table([board, market()], stacks=((), ()), open_tiles=(), supply=nothing)
    assert GAME.legal_moves(state) == [Pass(0, n) for n in (1, 2, 3, 4, 5)]
    after = play(state, "Ann 4 pass")
    assert after.boards[0].numbers == frozenset({4})
    assert GAME.current_player(after) == 1


def test_pass_depends_on_the_number_chosen() -> None:
    nothing = {name: 0 for name in GAME.catalog.shapes}
    rows = EMPTY6 + ["ssssssss", "wwwwwwww"]
    board = market(rows, entrances=(True, False))
    # Only space 5 holds a tile: numbers 1-4 cannot lay a foundation, and the
    # guest on the entrance can always walk, so no number may pass.
    state = table([board, market()], stacks=((), ()), open_tiles=(), supply=nothing)
    assert not any(isinstance(m, Pass) for m in GAME.legal_moves(state))
    walled = market(["........"] * 8, entrances=(True, True))
    state = table([walled, market()], stacks=((), ()), open_tiles=("ws/ss", "sw/ss", "ss/ws", "ss/sw"), supply=nothing)
    # Number 1 allows nothing (space 2 is out of reach), but 2..5 allow a
    # foundation: the figure must go on a number that allows an action.
    passes = [m.number for m in GAME.legal_moves(state) if isinstance(m, Pass)]
    assert passes == []
    reason, msg = illegal(state, "Ann 1 pass")
    assert reason is Reason.MUST_ACT
    assert msg == (
        "Number 1 allows no action, but number 2 does: "
        "put your figure on a number whose action you can carry out."
    )


def test_check_never_raises_on_values_that_are_not_moves() -> None:
    state = table()
    for junk in (None, 3, "Ann 1 pass", Pass(7, 1)):
        result = GAME.check(state, junk)  # type: ignore[arg-type]
        assert result.verdict is Verdict.ILLEGAL
    result = GAME.check(state, None)  # type: ignore[arg-type]
    assert result.reason is Reason.NOT_A_MOVE
    assert result.message == "That is not a move of The Grand Carnival."

    @dataclass(frozen=True)
    class Lookalike:
        seat: int = 0
        number: int = 1

    assert GAME.check(state, Lookalike()).reason is Reason.NOT_A_MOVE  # type: ignore[arg-type]
    result = GAME.check(state, Pass(7, 1))
    assert result.reason is Reason.NOT_YOUR_TURN
    assert result.message == "It is Ann's turn; there is no seat 7."


def test_number_outside_one_to_five() -> None:
    result = GAME.check(table(), Pass(0, 6))
    assert result.reason is Reason.NUMBER_TAKEN and result.message == "Action numbers run from 1 to 5."


# -- tricks of the trade ------------------------------------------------------

SHORTCUT = 0  # "Shortcut Through the Sites": an attraction carrying 3 tickets


def _ready_to_learn() -> CarnivalState:
    """Ann's guest can put the third ticket on her I3; Ben has no attraction."""
    ann = market(CORRIDOR, [{"cells": ["c2", "d2", "e2"], "tickets": 2}])
    return table([ann, market(CORRIDOR), market()], players=("Ann", "Ben", "Cat"))


def test_trick_learned_when_the_condition_is_met_and_others_must_follow_next_turn() -> None:
    state = _ready_to_learn()
    after, events = GAME.play(state, mv(state, "Ann 3 guest in1 d1"))
    assert after.boards[0].tricks[SHORTCUT] is TrickStatus.LEARNED
    assert after.boards[1].tricks[SHORTCUT] is TrickStatus.PENDING
    assert after.boards[2].tricks[SHORTCUT] is TrickStatus.PENDING
    assert any(e.what == "trick learned" and "Shortcut Through the Sites" in e.text for e in events)
    # Ben misses it on his next turn: the marker figure goes to the box.
    after, events = GAME.play(after, mv(after, "Ben 1 guest in1 b1"))
    assert after.boards[1].tricks[SHORTCUT] is TrickStatus.LOST
    texts = [e.text for e in events if e.what == "trick missed"]
    assert texts == [
        "Ben did not meet the condition of 'Shortcut Through the Sites' (an attraction carrying 3 tickets) in time "
        "and cannot learn it any more."
    ]
    assert GAME.breakdowns(after)[0].tricks == 1


def test_pending_player_meeting_the_condition_learns_it_too() -> None:
    state = _ready_to_learn()
    state = play(state, "Ann 3 guest in1 d1")
    ben = market(CORRIDOR, [{"cells": ["f2", "g2", "h2"], "tickets": 2}])
    boards = list(state.boards)
    boards[1] = replace(ben, tricks=boards[1].tricks)
    state = replace(state, boards=tuple(boards))
    state = play(state, "Ben 5 guest in2 g1")
    assert state.boards[1].tricks[SHORTCUT] is TrickStatus.LEARNED


def test_a_lost_trick_cannot_be_learned_later() -> None:
    state = play(_ready_to_learn(), "Ann 3 guest in1 d1", "Ben 1 guest in1 b1")
    boards = list(state.boards)
    boards[1] = replace(
        market(CORRIDOR, [{"cells": ["c2", "d2", "e2"], "tickets": 3}]), tricks=boards[1].tricks
    )
    state = replace(state, boards=tuple(boards))
    state = play(state, "Cat 1 foundation 1a ww/sw a8", "Ann 1 guest d1 c1", "Ben 2 guest in1 a1")
    assert state.boards[1].tricks[SHORTCUT] is TrickStatus.LOST


def test_several_tricks_may_be_learned_in_one_check() -> None:
    tricks = ("Shortcut Through the Sites", "Full House", "Crowd Pleaser")
    atts = [{"cells": ["c2", "d2", "e2"], "tickets": 2}, {"cells": ["a2", "b2"], "tickets": 2},
            {"cells": ["f2", "g2", "h2"], "tickets": 3}, {"cells": ["a3"], "tickets": 1},
            {"cells": ["b3"], "tickets": 1}]
    rows = ["........"] * 4 + ["wsws....", "ssss...."] + ["ssssssss", "wwwwwwww"]
    ann = market(rows, atts)
    state = table([ann, market()], tricks=tricks)
    assert ann.tickets == 9
    after = play(state, "Ann 3 guest in1 d1")  # the I3 gets its third ticket: 10 tickets in all
    assert after.boards[0].tricks == (TrickStatus.LEARNED, TrickStatus.LEARNED, TrickStatus.OPEN)


def test_trick_effect_starts_on_the_learners_next_turn() -> None:
    state = play(_ready_to_learn(), "Ann 3 guest in1 d1")
    # During this very turn the condition was checked only after the action;
    # on Ann's next turn her guest may step onto an empty site.
    state = play(state, "Ben 1 guest in1 b1", "Cat 1 foundation 1a ww/sw a8")
    assert GAME.is_legal(state, mv(state, "Ann 4 guest d1 b2"))
    before = _ready_to_learn()
    reason, _ = illegal(before, "Ann 3 guest in1 b2")
    assert reason is Reason.NOT_WALKABLE


def test_trick_extra_step() -> None:
    tricks = ("Crowd Pleaser", "Bribe the Inspectors", "Full House")
    learned = (TrickStatus.LEARNED, TrickStatus.OPEN, TrickStatus.OPEN)
    state = table([market(CORRIDOR, tricks=learned), market()], tricks=tricks)
    assert GAME.is_legal(state, mv(state, "Ann 2 guest in1 d1"))
    reason, msg = illegal(state, "Ann 2 guest in1 e1")
    assert reason is Reason.TOO_FAR and "walk 3 steps" in msg
