"""What move a Circus Flohcati table view shows (`scorer.flohcati.observe`): public information only."""

from __future__ import annotations

from dataclasses import replace

from scorer.flohcati import Action, Colour, Flohcati, FlohcatiState, Phase, Request, Show, Steal, Stop, Take, Trio, Turn
from scorer.flohcati.observe import Found, TableSight, infer, laid_open, seat_move
from tests.scorer.flohcati.flohcati_helpers import F

GAME = Flohcati()
PLAYERS = ("Ann", "Ben", "Cat")


def public() -> FlohcatiState:
    return GAME.public_state(PLAYERS)


def sight(row: str = "", actions: tuple[int, int, int] = (0, 0, 0), zones: tuple[str, ...] = ("", "", ""),
          request: tuple[Colour, bool] | None = None) -> TableSight:
    return TableSight(tuple(F(c) for c in row.split()), tuple(zip(Action, actions)),
                      tuple(frozenset(F(c) for c in z.split()) for z in zones), request)


def play(state: FlohcatiState, *moves: object) -> FlohcatiState:
    for move in moves:
        state, _ = GAME.apply_unchecked(state, move)  # type: ignore[arg-type]
    return state


def test_a_card_at_the_end_of_the_row_was_turned() -> None:
    found = infer(public(), sight("red-3"))
    assert found.found is Found.MOVE and found.move == Turn(F("red-3"))


def test_a_repeated_colour_is_a_bust_and_the_busted_card_may_still_lie_there() -> None:
    state = play(public(), Turn(F("red-3")))
    found = infer(state, sight("red-3 red-5"))
    assert found.move == Turn(F("red-5"))
    after, events = GAME.apply_unchecked(state, found.move)
    assert any(e.what == "bust" for e in events) and after.turn == 1
    assert infer(after, sight("red-3 red-5")).found is Found.UNCHANGED
    assert infer(after, sight("red-3")).found is Found.UNCHANGED


def test_a_card_leaving_the_row_is_taken() -> None:
    state = play(public(), Turn(F("red-3")), Turn(F("blue-2")))
    assert infer(state, sight("blue-2")).move == Take(F("red-3"))


def test_an_action_card_in_the_lane_was_turned() -> None:
    state = play(public(), Turn(F("red-3")))
    assert infer(state, sight("red-3", (0, 1, 0))).move == Turn(Action.TAKE)


def test_a_card_that_was_already_seen_cannot_be_turned_again() -> None:
    state = play(public(), Turn(F("red-3")), Take(F("red-3")))
    found = infer(state, sight("red-3"))
    assert found.found is Found.UNEXPLAINED and "turned up before" in found.message


def test_a_row_that_changed_twice_is_unexplained() -> None:
    state = play(public(), Turn(F("red-3")), Turn(F("blue-2")))
    assert infer(state, sight("green-1")).found is Found.UNEXPLAINED


def test_the_card_shown_after_take_attraction_names_the_victim() -> None:
    state = play(public(), Turn(F("red-3")), Take(F("red-3")), Turn(F("blue-1")), Take(F("blue-1")),
                 Turn(Action.TAKE))
    assert state.phase is Phase.STEAL and state.turn == 2
    found = infer(state, sight("", (0, 1, 0), ("", "", "red-3")))
    assert found.move == Steal(0, F("red-3"))
    assert GAME.check(state, found.move).is_legal


def test_a_request_is_read_from_the_strip_and_the_card_given() -> None:
    state = play(public(), Turn(F("red-3")), Take(F("red-3")), Turn(F("blue-1")), Take(F("blue-1")),
                 Turn(Action.REQUEST))
    assert state.phase is Phase.REQUEST
    # Cat asks for red: Ann (seat 0) is first clockwise from Cat
    found = infer(state, sight("", (0, 0, 1), ("", "", "red-3"), (Colour.RED, False)))
    assert found.move == Request(Colour.RED, True, 0, F("red-3"))
    # Ben, first clockwise with blue, gives blue
    blue = infer(state, sight("", (0, 0, 1), ("", "", "blue-1"), (Colour.BLUE, False)))
    assert isinstance(blue.move, Request) and GAME.check(state, blue.move).is_legal
    # a blue card given when red was asked for: the engine calls it illegal in words
    other = infer(state, sight("", (0, 0, 1), ("", "", "blue-1"), (Colour.RED, False)))
    assert isinstance(other.move, Request) and GAME.check(state, other.move).is_illegal


def test_a_sideways_request_card_means_nobody_holds_the_colour() -> None:
    state = play(public(), Turn(F("red-3")), Take(F("red-3")), Turn(Action.REQUEST))
    assert infer(state, sight("", (0, 0, 1), request=(Colour.PINK, True))).move == Request(Colour.PINK, True, None, None)


def test_a_trio_and_all_ten_colours_laid_in_the_zone() -> None:
    state = GAME.public_state(PLAYERS)
    hand = (F("red-1"), F("blue-1"), F("green-1"), F("grey-4"))
    state = replace(state, hands=(hand, (), ()), phase=Phase.WRAP_UP, gained=True)
    found = infer(state, sight("", zones=("red-1 blue-1 green-1", "", "")))
    assert found.move == Trio((F("red-1"), F("green-1"), F("blue-1")))
    ten = tuple(F(f"{c.value}-2") for c in Colour)
    state = replace(state, hands=(ten, (), ()))
    assert infer(state, sight("", zones=(" ".join(c.name for c in ten), "", ""))).move == Show()
    assert laid_open(state, sight("", zones=("red-2", "", "")), 0) == {F("red-2")}


def test_buttons_end_a_turn_and_name_the_victim() -> None:
    state = replace(public(), phase=Phase.WRAP_UP)
    assert seat_move(state, 0) == Stop() and seat_move(state, 1) is None
    state = replace(public(), phase=Phase.STEAL)
    assert seat_move(state, 2) == Steal(2, None)
    assert seat_move(public(), 0) is None
