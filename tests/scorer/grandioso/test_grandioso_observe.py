"""From what the camera sees to the move: every move of random games is found from the open table alone."""

from __future__ import annotations

import random

import pytest

from scorer.grandioso import Card, Draw, Exchange, Grandioso, GrandiosoMove, GrandiosoState, LayDown, Pass, Place
from scorer.grandioso.observe import InferenceKind, TableSnapshot, infer_move, snapshot

GAME = Grandioso()


def _seen_after(before: GrandiosoState, move: GrandiosoMove, after: GrandiosoState) -> TableSnapshot:
    """What the table shows after ``move`` when the players follow the table's protocol."""
    cells = frozenset(((r, c), card) for r, c, card in after.pyramid.cells())
    n = len(before.singles)
    places = tuple(range(1, len(after.singles) + 1))
    shown = None
    if isinstance(move, Draw):
        shown = after.drawn
        if move.single is not None:
            places = tuple(p for p in range(1, n + 1) if p != move.single + 1)
    if isinstance(move, Exchange) and move.single is not None:
        places = tuple(p for p in range(1, n + 2) if p != move.single + 1)
    return TableSnapshot(cells, places, shown)


def _same(found: GrandiosoMove | None, played: GrandiosoMove) -> bool:
    if isinstance(played, Exchange):
        return isinstance(found, Exchange) and found.single == played.single and found.card is None
    return found == played


@pytest.mark.parametrize("seed", range(12))
def test_every_visible_move_of_a_random_game_is_inferred(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(["Ann", "Ben", "Cal"][: 2 + seed % 2], rng)
    seen_moves = 0
    while not GAME.is_over(state):
        move = GAME.random_move(state, rng)
        after, _ = GAME.apply_unchecked(state, move)
        public = GAME.public_view(state)
        if isinstance(move, Pass):
            assert infer_move(public, snapshot(public)).kind is InferenceKind.UNCHANGED
        else:
            found = infer_move(public, _seen_after(state, move, after))
            assert found.kind is InferenceKind.MOVE and _same(found.move, move), (move, found)
            assert not GAME.check(public, found.move).is_illegal
            seen_moves += 1
        later = GAME.public_view(after)
        if not GAME.is_over(after):  # once the row is closed up and the drawn card placed or laid down
            shown = after.drawn if isinstance(move, Draw) else None
            assert infer_move(later, snapshot(later, shown)).kind is InferenceKind.UNCHANGED
        state = after
    assert seen_moves > 10


def test_a_wrong_animal_is_inferred_and_judged_illegal() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    seen = TableSnapshot(frozenset({((0, 0), Card.ELEPHANT), ((0, 1), Card.TIGER)}), ())
    found = infer_move(state, seen)
    assert found.move == Place(Card.TIGER, 0, 1)
    check = GAME.check(state, found.move)
    assert check.is_illegal and "Elephant" in check.message


def test_a_card_taken_from_the_pyramid_is_unexplained() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    found = infer_move(state, TableSnapshot(frozenset(), ()))
    assert found.kind is InferenceKind.UNEXPLAINED and "missing" in found.message


def test_two_cards_at_once_are_unexplained() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    cells = frozenset({((0, 0), Card.ELEPHANT), ((0, 1), Card.ELEPHANT), ((0, -1), Card.ELEPHANT)})
    assert infer_move(state, TableSnapshot(cells, ())).kind is InferenceKind.UNEXPLAINED


def test_a_single_taken_without_showing_asks() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    state, _ = GAME.apply_unchecked(state, Exchange(None, None))  # one single now lies in the row
    state, _ = GAME.apply_unchecked(state, Exchange(None, None))
    found = infer_move(state, TableSnapshot(frozenset({((0, 0), Card.ELEPHANT)}), (2,)))
    assert found.kind is InferenceKind.UNEXPLAINED and "face down" in found.message


def test_a_drawn_single_whose_place_was_closed_up_asks() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    state, _ = GAME.apply_unchecked(state, Exchange(None, None))
    state, _ = GAME.apply_unchecked(state, Exchange(None, None))
    found = infer_move(state, TableSnapshot(frozenset({((0, 0), Card.ELEPHANT)}), (1,), Card.RHINO))
    assert found.move == Draw(1)
    found = infer_move(state, TableSnapshot(frozenset({((0, 0), Card.ELEPHANT)}), (1, 2, 3), Card.RHINO))
    assert found.kind is InferenceKind.UNEXPLAINED


def test_holding_a_drawn_card_then_laying_it_down() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    state, _ = GAME.apply_unchecked(state, Draw(None))
    base = frozenset({((0, 0), Card.ELEPHANT)})
    assert infer_move(state, TableSnapshot(base, (), Card.SEAL)).kind is InferenceKind.UNCHANGED
    assert infer_move(state, TableSnapshot(base, (1,))).move == LayDown()
    assert infer_move(state, TableSnapshot(base, ())).kind is InferenceKind.UNEXPLAINED
