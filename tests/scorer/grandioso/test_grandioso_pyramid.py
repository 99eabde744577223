"""The pyramid of DECISIONS.md §2.2-§2.3 and the seed's lost example (§2.5)."""

from __future__ import annotations

import random

from scorer.core import IllegalMove
from scorer.grandioso import BOX, Card, Place, Pyramid, Reason, Side, legal_slots
from scorer.grandioso.game import Phase
from scorer.grandioso.pyramid import BASE_WIDTH, ROWS
from tests.scorer.grandioso.grandioso_helpers import (  # type: ignore[import-not-found]
    GAME,
    LOST_EXAMPLE,
    PLAYERS,
    position,
    pyramid,
    slots,
)


def test_decision_2_2_rows_bottom_to_top_and_counts() -> None:
    """[DECISION] §2.2: rows Elephant x10 ... Seal x1; Rhino above Elephant, Bear above Tiger."""
    order = [c.label for c in Card if c is not Card.CLOWN]
    assert order == [
        "Elephant", "Rhino", "Camel", "Pony", "Tiger",
        "Bear", "Lion", "Crocodile", "Chimpanzee", "Seal",
    ]
    assert [BOX[Card(r)] for r in range(ROWS)] == list(range(10, 0, -1))
    assert sum(BOX.values()) == 63 and BOX[Card.CLOWN] == 8
    assert Card.RHINO.value == Card.ELEPHANT.value + 1
    assert Card.BEAR.value == Card.TIGER.value + 1


def test_lost_example_left_elephant_right_tiger() -> None:
    """§2.5: an elephant on the left and a tiger or clown on the right at (4,1)."""
    state = position(LOST_EXAMPLE, ["elephant", "tiger", "clown"])
    assert slots(state) == {(0, -1, "elephant"), (4, 1, "tiger")}
    by_side = {s.side: s for s in legal_slots(state)}
    assert by_side[Side.RIGHT].clown_ok and by_side[Side.LEFT].clown_ok
    for move in (Place(Card.ELEPHANT, 0, -1), Place(Card.TIGER, 4, 1), Place(Card.CLOWN, 4, 1)):
        assert GAME.check(state, move).is_legal, move


def test_lost_example_no_elephant_on_the_right() -> None:
    """§2.5: an elephant on the right is illegal while a Tiger is still possible there."""
    state = position(LOST_EXAMPLE, ["elephant", "tiger"])
    check = GAME.check(state, Place(Card.ELEPHANT, 0, 6))
    assert check.reason is Reason.NOT_HIGHEST
    assert check.message == (
        "An Elephant can't go there yet: the right side can still take a Tiger higher up."
    )


def test_lost_example_tiger_then_only_the_bear_on_top() -> None:
    """§2.5: after the tiger at (4,1) the only slot is the Bear at (5,0); it takes the Show Master."""
    state = position(LOST_EXAMPLE, ["tiger", "bear", "clown", "elephant"])
    state, events = GAME.play(state, Place(Card.TIGER, 4, 1))
    assert events == ()
    assert state.turn == 0 and state.placed  # not the single topmost card: Ann goes on
    assert slots(state) == {(5, 0, "bear")}
    clown = GAME.check(state, Place(Card.CLOWN, 5, 0))
    assert clown.reason is Reason.CLOWN_ON_TOP
    elephant = GAME.check(state, Place(Card.ELEPHANT, 0, -1))
    assert elephant.reason is Reason.TOP_FIRST
    assert "the top of the pyramid can take a Bear" in elephant.message
    state, events = GAME.play(state, Place(Card.BEAR, 5, 0))
    assert state.show_master == 0
    assert [e.what for e in events] == ["show master"]
    assert events[0].points == ((0, 1),)
    assert state.turn == 1, "taking the Show Master ends the turn"


def test_lost_example_after_the_bear_only_elephants() -> None:
    """§2.5: the pyramid is then a perfect triangle; only an elephant on each side."""
    tri = pyramid((0, 6), (0, 5), (0, 4), (0, 3), (0, 2), (0, 1))
    state = position(tri, ["elephant"])
    assert slots(state) == {(0, -1, "elephant"), (0, 6, "elephant")}


def test_start_position_then_rhino_on_top() -> None:
    """§2.5: from one elephant, an elephant either side; then only a Rhino on top."""
    state = GAME.new_state(PLAYERS, random.Random(2))
    assert state.pyramid == Pyramid.start()
    assert slots(state) == {(0, -1, "elephant"), (0, 1, "elephant")}
    pyr = state.pyramid.with_card(0, 1, Card.ELEPHANT)
    assert pyr.open_slots()[0].side is Side.TOP
    assert [(s.row, s.col, s.animal) for s in pyr.open_slots()] == [(1, 0, Card.RHINO)]


def test_decision_2_3_top_slot_is_the_only_slot() -> None:
    """[DECISION] §2.3: when a top slot exists it is the only legal slot."""
    pyr = pyramid((0, 4), (0, 3), (1, 2))
    assert [(s.row, s.col, s.side) for s in pyr.open_slots()] == [(3, 1, Side.TOP)]


def test_decision_2_3_highest_candidate_on_each_side() -> None:
    """[DECISION] §2.3: otherwise the legal slots are the highest left and right candidates."""
    pyr = pyramid((0, 6), (1, 4), (2, 1))
    assert pyr.left_candidates() == [(0, -1), (1, 0), (2, 1)]
    assert pyr.right_candidates() == [(0, 6), (2, 3)]
    got = {(s.row, s.col, s.side) for s in pyr.open_slots()}
    assert got == {(2, 1, Side.LEFT), (2, 3, Side.RIGHT)}


def test_decision_2_3_base_at_most_ten_wide() -> None:
    """[DECISION] §2.3: row 0 is at most 10 wide; an 11th elephant is refused."""
    pyr = pyramid((0, BASE_WIDTH), *[(0, BASE_WIDTH - r) for r in range(1, 9)])
    assert pyr.shape_problem() is None
    state = position(pyr, ["elephant", "seal"])
    assert slots(state) == {(9, 0, "seal")}
    full = pyramid((0, BASE_WIDTH), (0, 9), (0, 8), (0, 1))
    state = position(full, ["elephant", "pony"])
    check = GAME.check(state, Place(Card.ELEPHANT, 0, BASE_WIDTH))
    assert check.reason is Reason.BASE_FULL
    assert check.message == "The Elephant row is already ten cards wide: no more Elephants fit."


def test_decision_2_3_highest_possible_ignores_who_holds_what() -> None:
    """[DECISION] §2.3: "highest possible" is geometry only: the elephant is barred even
    when no Tiger is left anywhere outside the pyramid."""
    state = position(LOST_EXAMPLE, ["elephant"], other=["elephant"], stack=["rhino"])
    assert GAME.check(state, Place(Card.ELEPHANT, 0, 6)).reason is Reason.NOT_HIGHEST


def test_decision_2_3_clown_one_per_row_and_never_the_top_card() -> None:
    """[DECISION] §2.3: a clown fills a side slot if its row has none, never the top slot,
    so no clown ever starts a row or sits in row 10."""
    pyr = pyramid((0, 6), (0, 5), (0, 4), (0, 3), (0, 1), clowns=[(3, 1)])
    state = position(pyr, ["clown", "tiger"])
    assert GAME.check(state, Place(Card.CLOWN, 4, 1)).is_legal
    row3 = pyramid((0, 6), (0, 5), (0, 4), (1, 2), (1, 1), clowns=[(3, 2)])
    state = position(row3, ["clown"])
    assert {(s.row, s.col) for s in legal_slots(state)} == {(3, 0), (0, 6)}
    second = GAME.check(state, Place(Card.CLOWN, 3, 0))
    assert second.reason is Reason.SECOND_CLOWN
    assert second.message == "The Pony row already has its clown: each row may hold only one."
    top = pyramid(*[(0, 10 - r) for r in range(9)])
    state = position(top, ["clown", "seal"])
    assert GAME.check(state, Place(Card.CLOWN, 9, 0)).reason is Reason.CLOWN_ON_TOP


def test_clowns_carry_cards_like_any_other() -> None:
    """A clown in a row supports the row above like an animal."""
    pyr = pyramid((0, 3), (0, 2), clowns=[(1, 1)])
    assert pyr.shape_problem() is None
    assert [(s.row, s.col, s.animal) for s in pyr.open_slots()] == [(2, 0, Card.CAMEL)]


def _supported(pyr: Pyramid, row: int, col: int) -> bool:
    if row == 0:
        return pyr.card_at(0, col - 1) is not None or pyr.card_at(0, col + 1) is not None
    return pyr.card_at(row - 1, col) is not None and pyr.card_at(row - 1, col + 1) is not None


def test_random_playouts_keep_the_pyramid_shape() -> None:
    """Random games: every pyramid keeps its shape, every placement rests on two cards,
    the top row never grows past two, and card counts never exceed the box."""
    rng = random.Random(2024)
    for game_no in range(12):
        state = GAME.new_state(PLAYERS[: 2] + ("Cat", "Dan")[: game_no % 3], rng)
        while not GAME.is_over(state):
            pyr = state.pyramid
            assert pyr.shape_problem() is None
            assert pyr.width(pyr.height()) <= 2 or pyr.height() == 0
            for move in GAME.legal_moves(state):
                if isinstance(move, Place):
                    assert pyr.card_at(move.row, move.col) is None
                    assert _supported(pyr, move.row, move.col)
            move = GAME.random_move(state, rng)
            assert GAME.is_legal(state, move)
            state, _ = GAME.play(state, move)
        counts = {c: 0 for c in Card}
        for _, _, card in state.pyramid.cells():
            counts[card] += 1
        assert all(counts[c] <= BOX[c] for c in Card)
        assert state.phase is Phase.OVER


def test_illegal_place_raises_with_the_sentence() -> None:
    """play() raises IllegalMove carrying the reason and the new player's sentence."""
    state = position(LOST_EXAMPLE, ["elephant", "tiger"])
    try:
        GAME.play(state, Place(Card.TIGER, 0, -1))
    except IllegalMove as err:
        assert err.reason is Reason.WRONG_ANIMAL
        assert str(err) == "A Tiger can't go in the Elephant row: it takes only Elephants (and one clown)."
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("a Tiger in the Elephant row was accepted")
