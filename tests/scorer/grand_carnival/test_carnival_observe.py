"""Which move explains what the camera sees of the markets (`scorer.grand_carnival.observe`)."""

from __future__ import annotations

import dataclasses
import doctest
import random

import pytest

from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival import observe as observe_module
from scorer.grand_carnival.components import mask_of, parse_cell
from scorer.grand_carnival.model import Build, CarnivalState, Foundation, Pass, Reason, Walk
from scorer.grand_carnival.observe import InferenceKind, SeenMarket, infer_move, market_of

GAME = GrandCarnival()


def open_row(state: CarnivalState) -> tuple[str | None, ...]:
    """The open tiles on spaces 2..5 as the wagon row shows them."""
    return tuple(state.railyard.open) + (None,) * (4 - len(state.railyard.open))


def seen(state: CarnivalState) -> tuple[SeenMarket, ...]:
    return tuple(market_of(b) for b in state.boards)


@pytest.mark.parametrize("players, seed", [(["Ann", "Ben"], 5), (["Ann", "Ben", "Cat"], 6), (["Ann"], 7)])
def test_every_move_of_a_game_is_explained_by_the_table(players: list[str], seed: int) -> None:
    record = GAME.simulate(players=players, rng=random.Random(seed))
    state = GAME.record_state(record)
    for text in record["moves"]:
        truth, _ = GAME.apply_unchecked(state, GAME.parse_move(state, text))
        found = infer_move(state, seen(truth), GAME.catalog, open_row(truth))
        assert found.kind is InferenceKind.MOVE and found.move is not None, (text, found.message)
        assert not GAME.check(state, found.move).is_illegal
        after, _ = GAME.apply_unchecked(state, found.move)
        assert seen(after) == seen(truth) and after.railyard.open == truth.railyard.open, text
        # without the wagon row the markets still agree
        blind = infer_move(state, seen(truth), GAME.catalog)
        assert blind.move is not None
        assert seen(GAME.apply_unchecked(state, blind.move)[0]) == seen(truth)
        state = truth


def start() -> CarnivalState:
    record = GAME.simulate(players=["Ann", "Ben"], rng=random.Random(3))
    return GAME.record_state(record)


def test_an_unchanged_table_is_no_move() -> None:
    state = start()
    assert infer_move(state, seen(state), GAME.catalog).kind is InferenceKind.UNCHANGED


def test_a_figure_alone_is_a_pass() -> None:
    state = start()
    view = list(seen(state))
    view[0] = dataclasses.replace(view[0], numbers=frozenset({4}))
    assert infer_move(state, tuple(view), GAME.catalog).move == Pass(0, 4)


def test_pieces_moved_without_a_figure_are_asked_about() -> None:
    state = start()
    view = list(seen(state))
    view[0] = dataclasses.replace(view[0], parcels=("ww/ss",) + view[0].parcels[1:])
    found = infer_move(state, tuple(view), GAME.catalog)
    assert found.kind is InferenceKind.UNEXPLAINED
    assert found.message == "Ann: put your figure on the action number you use."


def test_a_change_on_another_market_is_asked_about() -> None:
    state = start()
    view = list(seen(state))
    view[1] = dataclasses.replace(view[1], tent=1)
    found = infer_move(state, tuple(view), GAME.catalog)
    assert found.kind is InferenceKind.UNEXPLAINED
    assert found.message == "Ben's market changed, but it is Ann's turn."


def test_two_actions_at_once_are_asked_about() -> None:
    state = start()
    view = list(seen(state))
    view[0] = dataclasses.replace(view[0], numbers=frozenset({2}), parcels=("ww/ss", "ww/ss") + view[0].parcels[2:])
    found = infer_move(state, tuple(view), GAME.catalog)
    assert found.kind is InferenceKind.UNEXPLAINED and "one foundation tile a turn" in found.message


def test_an_illegal_action_is_returned_for_the_referee_to_judge() -> None:
    """A foundation from a space the number does not reach, an attraction with no sites under it."""
    state = start()
    tile = state.railyard.open[0]
    assert tile is not None
    view = list(seen(state))
    view[0] = dataclasses.replace(view[0], numbers=frozenset({1}), parcels=(tile,) + view[0].parcels[1:])
    found = infer_move(state, tuple(view), GAME.catalog)
    assert found.move == Foundation(0, 1, "2", tile, 0)
    assert GAME.check(state, found.move).reason is Reason.SPACE_TOO_FAR
    cells = mask_of([c for c in (parse_cell("a8"), parse_cell("b8")) if c is not None])
    view[0] = dataclasses.replace(seen(state)[0], numbers=frozenset({1}),
                                  attractions=frozenset({("I2", cells, 0)}))
    found = infer_move(state, tuple(view), GAME.catalog)
    assert found.move == Build(0, 1, "I2", cells)
    assert GAME.check(state, found.move).reason in (Reason.NOT_ON_SITES, Reason.TOO_LARGE)


def test_a_walk_from_an_entrance() -> None:
    state = start()
    b1 = parse_cell("b1")
    assert b1 is not None
    view = list(seen(state))
    view[0] = dataclasses.replace(view[0], numbers=frozenset({3}), guests=1 << b1,
                                  entrances=(False, state.boards[0].entrances[1]))
    found = infer_move(state, tuple(view), GAME.catalog)
    assert isinstance(found.move, Walk) and found.move.end == b1 and found.move.number == 3


def test_module_examples() -> None:
    assert doctest.testmod(observe_module).failed == 0
