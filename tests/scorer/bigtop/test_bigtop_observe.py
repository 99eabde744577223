"""Inferring a Big Top move from what the camera sees (public information)."""

from __future__ import annotations

import random
from dataclasses import replace

from scorer.bigtop import Action, Pile, Reason
from scorer.bigtop.observe import InferenceKind, TableSnapshot, infer_move, snapshot
from tests.scorer.bigtop.bigtop_helpers import GAME, C, mv, position  # type: ignore[import-not-found]


def test_every_move_of_random_hands_is_inferred_from_the_view() -> None:
    """Plays and calls are recovered exactly from the view after them; passes show no change."""
    rng = random.Random(31)
    for _ in range(40):
        state = GAME.new_state(["A", "B", "C", "D", "E"], rng)
        while state.out is None:
            moves = GAME.legal_moves(state)
            move = moves[rng.randrange(len(moves))]
            after, _ = GAME.play(state, move)
            inference = infer_move(GAME, state.to_public(), snapshot(after))
            if move.action is Action.PASS:
                assert inference.kind in (InferenceKind.UNCHANGED, InferenceKind.SLIDE_ONLY)
            else:
                assert inference.kind is InferenceKind.MOVE and inference.move == move
                assert not inference.unslid
            state = after


def test_unchanged_and_slide_only() -> None:
    state = position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]],
                     charts=[[None, "sideshow-L4", None, None], [None] * 4, [None] * 4])
    assert infer_move(GAME, state, snapshot(state)).kind is InferenceKind.UNCHANGED
    slid = TableSnapshot(state.tableau, ((None, None, C("sideshow-L4"), None),) + state.charts[1:])
    assert infer_move(GAME, state, slid).kind is InferenceKind.SLIDE_ONLY


def test_a_call_without_the_slide_is_recognised_and_flagged() -> None:
    state = position([["animals-L3", "clowns-L2"], ["clowns-L4"], ["clowns-L5"]],
                     charts=[[None, "sideshow-L4", None, None], [None] * 4, [None] * 4])
    seen = TableSnapshot(state.tableau, ((C("animals-L3"), C("sideshow-L4"), None, None),) + state.charts[1:])
    inference = infer_move(GAME, state, seen)
    assert inference.kind is InferenceKind.MOVE and inference.unslid
    assert inference.move == mv(state, "Alf call animals-L3")


def test_a_call_out_of_turn_comes_back_as_that_seats_move() -> None:
    state = position([["clowns-P"], ["animals-L3", "clowns-L4"], ["clowns-L5"]])
    seen = TableSnapshot(state.tableau, (state.charts[0], (C("animals-L3"), None, None, None), state.charts[2]))
    inference = infer_move(GAME, state, seen)
    assert inference.move == mv(state, "Henry call animals-L3")
    assert GAME.check(state.to_public(), inference.move).reason is Reason.NOT_YOUR_TURN


def test_an_illegal_play_is_inferred_and_then_rejected() -> None:
    state = position([["clowns-L2"], ["clowns-L4"], ["clowns-L5"]], tableau={"clowns": (True, 0, 0)})
    piles = list(state.tableau)
    piles[0] = Pile(True, 2, 0)
    seen = TableSnapshot((piles[0], piles[1], piles[2], piles[3]), state.charts)
    inference = infer_move(GAME, state, seen)
    assert inference.move == mv(state, "Alf play clowns-L2")
    check = GAME.check(state.to_public(), inference.move)
    assert check.reason is Reason.NOT_PLAYABLE and "starts with the light 1" in check.message


def test_two_cards_at_once_and_vanishing_cards_are_unexplained() -> None:
    state = position([["clowns-P", "sideshow-P"], ["clowns-L4"], ["clowns-L5"]],
                     tableau={"animals": (True, 2, 0)})
    two = TableSnapshot((Pile(True), Pile(True), state.tableau[2], state.tableau[3]), state.charts)
    inference = infer_move(GAME, state, two)
    assert inference.kind is InferenceKind.UNEXPLAINED
    assert inference.message == "More than one card appeared at once: Clowns Poster, Sideshow Poster."
    gone = TableSnapshot((Pile(), Pile(), Pile(True, 1, 0), Pile()), state.charts)
    assert infer_move(GAME, state, gone).message == "Cards disappeared from the table: light 2 Animals."
    wrong = replace(two, charts=two.charts[:2])
    assert infer_move(GAME, state, wrong).kind is InferenceKind.UNEXPLAINED
