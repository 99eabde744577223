"""Foundations from the railyard and attractions on construction sites."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from scorer.core import Verdict
from scorer.grand_carnival import Build, CarnivalState, Foundation, Reason
from scorer.grand_carnival.model import TrickStatus
from tests.scorer.grand_carnival.carnival_helpers import (  # type: ignore[import-not-found,unused-ignore]
    GAME,
    OPEN,
    STACK_A,
    STACK_B,
    cells,
    market,
    mv,
    play,
    table,
)

# Parcels a8-b7 "ss/ws" and c8-d7 "ss/sw": sites a8 b8 c8 d8 b7 c7, walkways a7 d7.
BLOCK = ["ssss....", "wssw...."] + ["........"] * 6


def illegal(state: CarnivalState, text: str) -> tuple[object, str]:
    result = GAME.check(state, mv(state, text))
    assert result.verdict is Verdict.ILLEGAL, text
    return result.reason, result.message


# -- foundations ----------------------------------------------------------------


def test_decision_open_tile_taken_tiles_slide_left_and_stack_1a_refills_space_5() -> None:
    """[DECISION] refills come from stack 1a while it has tiles, then from 1b."""
    state = play(table(), "Ann 3 foundation 3 sw/ss c6")
    assert state.boards[0].parcels[5] == "sw/ss"
    assert state.railyard.open == (OPEN[0], OPEN[2], OPEN[3], STACK_A[0])
    assert state.railyard.stacks == (STACK_A[1:], STACK_B)
    empty_a = play(table(stacks=((), STACK_B)), "Ann 2 foundation 2 ws/ss a8")
    assert empty_a.railyard.open == (*OPEN[1:], STACK_B[0])


def test_foundation_parcel_is_named_by_any_of_its_fields() -> None:
    state = table()
    assert mv(state, "Ann 2 foundation 2 ws/ss d5") == mv(state, "Ann 2 foundation 2 ws/ss c6")
    assert GAME.format_move(state, mv(state, "Ann 2 foundation 2 ws/ss d5")) == "Ann 2 foundation 2 ws/ss c6"


def test_face_down_tile_keeps_the_open_tiles_unless_you_discard_them() -> None:
    kept = play(table(), "Ann 1 foundation 1b ws/sw a8")
    assert kept.railyard.open == OPEN and kept.railyard.stacks == (STACK_A, STACK_B[1:])
    thrown = play(table(), "Ann 1 foundation 1a ww/sw a8 discard")
    assert thrown.railyard.discard == OPEN
    assert thrown.railyard.open == STACK_A[1:5]
    assert thrown.railyard.stacks == (STACK_A[5:], STACK_B)


def test_empty_stack_is_rebuilt_from_the_shuffled_discard_pile() -> None:
    discard = ("ww/ss", "ss/ww", "ws/ws", "sw/sw", "ws/ww")
    state = table(stacks=(("ww/sw",), STACK_B), discard=discard, seed=5)
    after = play(state, "Ann 1 foundation 1a ww/sw a8")
    assert after.railyard.discard == ()
    assert Counter(after.railyard.stacks[0]) == Counter(discard)
    assert after.reshuffles == 1
    assert play(state, "Ann 1 foundation 1a ww/sw a8") == after  # the order comes from the state
    other = play(replace(state, seed=6), "Ann 1 foundation 1a ww/sw a8")
    assert Counter(other.railyard.stacks[0]) == Counter(discard)


def test_space_too_far_for_the_number() -> None:
    reason, msg = illegal(table(), "Ann 2 foundation 3 sw/ss a8")
    assert reason is Reason.SPACE_TOO_FAR
    assert msg == "With number 2 you may take a foundation from railyard spaces 1 to 2 only, not from space 3."


def test_space_or_stack_without_a_tile() -> None:
    state = table(stacks=(STACK_A, ()), open_tiles=("ws/ss",))
    reason, msg = illegal(state, "Ann 5 foundation 3 sw/ss a8")
    assert reason is Reason.SPACE_EMPTY and msg == "There is no tile on railyard space 3."
    reason, msg = illegal(state, "Ann 5 foundation 1b ws/sw a8")
    assert reason is Reason.SPACE_EMPTY and msg == "There is no tile on stack 1b."


def test_wrong_tile_named() -> None:
    reason, msg = illegal(table(), "Ann 2 foundation 2 sw/ss a8")
    assert reason is Reason.WRONG_TILE and msg == "The tile on railyard space 2 is ws/ss, not sw/ss."
    reason, msg = illegal(table(), "Ann 1 foundation 1b ww/sw a8")
    assert reason is Reason.WRONG_TILE and msg == "The top tile of stack 1b is ws/sw, not ww/sw."


def test_parcel_already_built() -> None:
    state = table([market(BLOCK), market()])
    reason, msg = illegal(state, "Ann 2 foundation 2 ws/ss b7")
    assert reason is Reason.PARCEL_TAKEN
    assert msg == "A foundation tile goes on an empty parcel of your market; that one already has a tile."


def test_discard_only_after_a_face_down_tile_and_only_with_open_tiles() -> None:
    reason, msg = illegal(table(), "Ann 2 foundation 2 ws/ss a8 discard")
    assert reason is Reason.DISCARD_NOT_ALLOWED
    assert msg == "You may discard the open tiles only after taking a face-down tile."
    reason, msg = illegal(table(open_tiles=()), "Ann 1 foundation 1a ww/sw a8 discard")
    assert reason is Reason.DISCARD_NOT_ALLOWED
    assert msg == "There are no open tiles on the railyard to discard."


def test_unseen_face_down_tile_cannot_be_verified_and_the_named_tile_is_laid() -> None:
    state = table(stacks=((None, None), (None,)), seed=None)
    result = GAME.check(state, mv(state, "Ann 1 foundation 1a ss/ww a8"))
    assert result.verdict is Verdict.UNVERIFIABLE and result.reason is Reason.WRONG_TILE
    assert GAME.is_legal(state, mv(state, "Ann 1 foundation 1a ss/ww a8"))
    after = play(state, "Ann 1 foundation 1a ss/ww a8")
    assert after.boards[0].parcels[0] == "ss/ww"
    # Legal moves offer every pattern for an unseen tile.
    tiles = {m.tile for m in GAME.legal_moves(state) if isinstance(m, Foundation) and m.source == "1a"}
    assert tiles == set(GAME.catalog.foundations)


def test_laying_a_foundation_never_rotates_it() -> None:
    """[SEED] hammers point the same way as the board's: the pattern lies as printed."""
    state = play(table(), "Ann 2 foundation 2 ws/ss c6")
    board = state.boards[0]
    assert board.walkways == cells("c6")
    assert board.sites == cells("d6", "c5", "d5")


# -- attractions ----------------------------------------------------------------


def test_decision_attraction_may_be_turned() -> None:
    """[DECISION] rotation allowed: an I2 lies across or upright."""
    state = table([market(BLOCK), market()])
    assert GAME.is_legal(state, mv(state, "Ann 2 build I2 a8 b8"))
    assert GAME.is_legal(state, mv(state, "Ann 2 build I2 b8 b7"))


def test_decision_attraction_may_span_foundation_tiles() -> None:
    """[DECISION] spanning: attractions may straddle foundation tiles over empty sites."""
    state = play(table([market(BLOCK), market()]), "Ann 2 build I2 b7 c7")
    assert state.boards[0].attractions[0].mask == cells("b7", "c7")
    assert state.boards[0].covered == cells("b7", "c7")


def test_decision_mirror_images_are_refused_with_single_sided_tiles() -> None:
    """[DECISION] reflection only if tiles are double-sided: the box setting says single-sided."""
    assert GAME.catalog.reflections is False
    state = table([market(BLOCK), market()])
    assert GAME.is_legal(state, mv(state, "Ann 4 build S4 c8 d8 b7 c7"))
    reason, msg = illegal(state, "Ann 4 build S4 a8 b8 b7 c7")
    assert reason is Reason.MIRRORED
    assert msg == "Those fields form the mirror image of S4: attractions may be turned but not flipped over."


def test_fields_that_do_not_form_the_shape() -> None:
    state = table([market(BLOCK), market()])
    reason, msg = illegal(state, "Ann 3 build L3 a8 b8 c8")
    assert reason is Reason.NOT_THAT_SHAPE and msg == "Those fields do not form a L3 attraction."
    reason, _ = illegal(state, "Ann 2 build I2 a8 c8")
    assert reason is Reason.NOT_THAT_SHAPE


def test_attraction_larger_than_the_number() -> None:
    state = table([market(BLOCK), market()])
    reason, msg = illegal(state, "Ann 2 build I3 a8 b8 c8")
    assert reason is Reason.TOO_LARGE
    assert msg == "With number 2 you may build an attraction of at most 2 fields; I3 has 3."


def test_attraction_none_left_in_the_supply() -> None:
    state = table([market(BLOCK), market()], supply={"I2": 0})
    reason, msg = illegal(state, "Ann 2 build I2 a8 b8")
    assert reason is Reason.NONE_LEFT and msg == "No I2 attraction is left in the supply."
    assert not any(isinstance(m, Build) and m.shape == "I2" for m in GAME.legal_moves(state))


def test_attractions_cover_only_empty_construction_sites() -> None:
    rows = ["ssss....", "wGsw...."] + ["........"] * 6
    state = table([market(rows, [{"cells": ["c8"]}]), market()])
    cases = {
        "Ann 2 build I2 a8 a7": "Attractions go on empty construction sites only; a7 is a walkway.",
        "Ann 2 build I2 d8 e8": "Attractions go on empty construction sites only; e8 is an empty parcel without a foundation tile.",
        "Ann 2 build I2 c8 d8": "Attractions go on empty construction sites only; c8 already holds an attraction.",
        "Ann 2 build I2 b8 b7": "Attractions go on empty construction sites only; b7 has a guest on it.",
    }
    for text, message in cases.items():
        reason, msg = illegal(state, text)
        assert reason is Reason.NOT_ON_SITES and msg == message


def test_build_takes_the_attraction_from_the_supply() -> None:
    state = table([market(BLOCK), market()])
    index = list(GAME.catalog.shapes).index("O1")
    after = play(state, "Ann 1 build O1 b7")
    assert after.supply[index] == state.supply[index] - 1
    assert after.boards[0].attractions[0].tickets == 0


def test_every_listed_build_is_legal_and_matches_a_brute_force_count() -> None:
    state = table([market(BLOCK), market()])
    builds = {(m.shape, m.mask) for m in GAME.legal_moves(state) if isinstance(m, Build) and m.number == 5}
    sites = cells("a8", "b8", "c8", "d8", "b7", "c7")
    expected = set()
    for name, shape in GAME.catalog.shapes.items():
        for anchor in shape.by_anchor:
            for mask in anchor:
                if mask & sites == mask:
                    expected.add((name, mask))
    assert builds == expected
    # Brute force over every subset of the six sites that the catalog recognises.
    from itertools import combinations

    from scorer.grand_carnival.components import cells_of, normalise

    count = 0
    for k in range(1, 6):
        for combo in combinations(cells_of(sites), k):
            form = normalise([divmod(c, 8) for c in combo])
            count += sum(1 for s in GAME.catalog.shapes.values() if form in s.orientations)
    assert len(builds) == count


def test_trick_bribe_the_inspectors_builds_one_size_larger() -> None:
    learned = (TrickStatus.OPEN, TrickStatus.LEARNED, TrickStatus.OPEN)
    state = table([market(BLOCK, tricks=learned), market()])
    assert GAME.is_legal(state, mv(state, "Ann 2 build I3 a8 b8 c8"))
    reason, msg = illegal(state, "Ann 2 build O4 b8 c8 b7 c7")
    assert reason is Reason.TOO_LARGE and "at most 3 fields" in msg


def test_trick_railyard_reach_takes_from_one_space_further() -> None:
    tricks = ("Friends at the Railyard", "Bribe the Inspectors", "Crowd Pleaser")
    learned = (TrickStatus.LEARNED, TrickStatus.OPEN, TrickStatus.OPEN)
    state = table([market(tricks=learned), market()], tricks=tricks)
    assert GAME.is_legal(state, mv(state, "Ann 2 foundation 3 sw/ss a8"))
    reason, _ = illegal(state, "Ann 2 foundation 4 ss/ws a8")
    assert reason is Reason.SPACE_TOO_FAR
