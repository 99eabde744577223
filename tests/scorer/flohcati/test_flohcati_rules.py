"""The Circus Flohcati turn, the action cards, trios and both ends (DECISIONS.md §3.2)."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import pytest

from scorer.core import Verdict
from scorer.flohcati import (
    DECK,
    FLEAS,
    Action,
    Colour,
    EndReason,
    FlohcatiMove,
    FlohcatiState,
    Phase,
    Reason,
    Request,
    Show,
    Steal,
    Stop,
    Take,
    Trio,
    Turn,
)
from scorer.flohcati.game import _PHASE_HELP
from tests.scorer.flohcati.flohcati_helpers import GAME, F, play, stacked, with_hands  # type: ignore[import-not-found]

ALL_TEN = ["red-0", "orange-0", "yellow-0", "green-1", "teal-2", "blue-3", "purple-4",
           "pink-5", "brown-6", "grey-7"]


def test_deck_80_fleas_and_9_action_cards() -> None:
    """§3.1: 10 colours x values 0..7, and 3 kinds of action card x 3."""
    assert len(DECK) == 89 and len(FLEAS) == 80 and len(set(FLEAS)) == 80
    assert {f.colour for f in FLEAS} == set(Colour) and len(Colour) == 10
    assert {f.value for f in FLEAS} == set(range(8))
    assert sorted(DECK.count(a) for a in Action) == [3, 3, 3]


def test_decision_3_2_turn_shape_no_empty_turn() -> None:
    """[DECISION] §3.2: turn at least one card or take a row card; stopping with a
    non-empty row means taking one."""
    state = stacked("red-1", "blue-2")
    assert GAME.legal_moves(state) == [Turn()]
    stop = GAME.check(state, Stop())
    assert stop.reason is Reason.WRONG_PHASE and stop.message == _PHASE_HELP[Phase.TURNING]
    state = play(state, "turn")
    assert state.display == (F("red-1"),)
    assert GAME.legal_moves(state) == [Turn(), Take(F("red-1"))]


def test_seed_bust_on_a_repeated_colour() -> None:
    """A second card of a colour busts: it is discarded, the turn ends, the row stays."""
    state = stacked("red-1", "blue-2", "red-5")
    state, _ = GAME.play(state, Turn())
    state, _ = GAME.play(state, Turn())
    state, events = GAME.play(state, Turn())
    assert [e.what for e in events] == ["turned", "bust"]
    assert state.discard == (F("red-5"),) and state.display == (F("red-1"), F("blue-2"))
    assert state.turn == 1 and state.hands[0] == ()
    state = play(state, "take red-1")  # the next player may take without turning
    assert state.hands[1] == (F("red-1"),) and state.turn == 2


def test_decision_3_2_action_cards_go_to_the_discard_pile() -> None:
    """[DECISION] §3.2: action cards go to the discard pile, never into the row, so they
    cannot cause a bust."""
    state = play(stacked("red-1", "new-attraction", "blue-1"), "turn", "turn")
    assert state.display == (F("red-1"),) and state.discard == (Action.NEW,)
    assert state.attraction and state.phase is Phase.TURNING


def test_decision_3_2_new_attraction() -> None:
    """[DECISION] §3.2 New attraction: further action cards are discarded unresolved, a
    repeat does not bust, any row card may be taken (the repeat included), an untaken
    repeat is discarded."""
    state = play(
        stacked("new-attraction", "take-attraction", "request-attraction", "red-1", "blue-2", "red-6"),
        "turn", "turn", "turn", "turn", "turn",
    )
    assert state.phase is Phase.TURNING and state.discard == (Action.NEW, Action.TAKE, Action.REQUEST)
    state = play(state, "turn")
    assert state.phase is Phase.MUST_TAKE and state.repeat == F("red-6")
    assert GAME.legal_moves(state) == [Take(F("red-1")), Take(F("blue-2")), Take(F("red-6")), Stop()]
    took_row = play(state, "take blue-2")
    assert took_row.hands[0] == (F("blue-2"),)
    assert took_row.discard[-1] == F("red-6") and took_row.display == (F("red-1"),)
    took_repeat = play(state, "take red-6")
    assert took_repeat.hands[0] == (F("red-6"),) and took_repeat.display == (F("red-1"), F("blue-2"))
    assert took_repeat.repeat is None and took_repeat.turn == 1


def test_new_attraction_repeat_may_be_declined() -> None:
    """The seed: after a repeat the player "may" take one card; stop takes none."""
    state = play(stacked("new-attraction", "red-1", "blue-2", "red-6"), "turn", "turn", "turn", "turn")
    assert state.phase is Phase.MUST_TAKE
    after, events = GAME.play(state, GAME.parse_move(state, "stop"))
    assert after.hands[0] == () and after.turn == 1 and after.repeat is None
    assert after.discard[-1] == F("red-6") and after.display == (F("red-1"), F("blue-2"))
    assert [e.text for e in events] == ["Ann takes nothing; the red 6 is discarded."]
    assert after.phase is Phase.TURNING and not after.attraction


def test_decision_3_2_new_attraction_stopping_early_allows_one_take() -> None:
    """[DECISION] §3.2: after New attraction the player may still stop and take one card."""
    state = play(stacked("new-attraction", "red-1", "blue-2"), "turn", "turn", "take red-1")
    assert state.hands[0] == (F("red-1"),) and state.turn == 1 and not state.attraction


def test_decision_3_2_take_attraction() -> None:
    """[DECISION] §3.2 Take attraction: one card (drawn at random) from an opponent holding
    at least one card; the turn ends."""
    state = with_hands(stacked("take-attraction"), {1: ["blue-3", "green-4"]})
    state = play(state, "turn")
    assert state.phase is Phase.STEAL
    assert set(GAME.legal_moves(state)) == {Steal(1, F("blue-3")), Steal(1, F("green-4"))}
    after = play(state, "steal Ben green-4")
    assert after.hands[0] == (F("green-4"),) and after.hands[1] == (F("blue-3"),)
    assert after.turn == 1 and after.phase is Phase.TURNING
    import random

    picks = {GAME.random_move(state, random.Random(seed)) for seed in range(20)}
    assert picks == {Steal(1, F("blue-3")), Steal(1, F("green-4"))}


def test_decision_3_2_take_attraction_with_no_cards_anywhere() -> None:
    """[DECISION] §3.2: when no opponent holds a card the player gets nothing."""
    state = play(stacked("take-attraction"), "turn")
    assert GAME.legal_moves(state) == [Steal(None, None)]
    state = play(state, "steal nobody")
    assert state.turn == 1 and state.hands == ((), (), ())


def test_decision_3_2_request_attraction() -> None:
    """[DECISION] §3.2 Request attraction: the first opponent in the chosen direction who
    holds the colour gives one card of it (their choice); the turn ends either way."""
    state = with_hands(stacked("request-attraction"), {1: ["red-3"], 2: ["red-5", "red-6"]})
    state = play(state, "turn")
    assert state.phase is Phase.REQUEST
    cw = play(state, "request red clockwise from Ben red-3")
    assert cw.hands[0] == (F("red-3"),) and cw.hands[1] == () and cw.turn == 1
    ccw = play(state, "request red counterclockwise from Cat red-6")
    assert ccw.hands[2] == (F("red-5"),)
    reds = [m for m in GAME.legal_moves(state) if isinstance(m, Request) and m.colour is Colour.RED]
    assert reds == [
        Request(Colour.RED, True, 1, F("red-3")),
        Request(Colour.RED, False, 2, F("red-5")),
        Request(Colour.RED, False, 2, F("red-6")),
    ]
    nobody = play(state, "request blue cw nobody")
    assert nobody.turn == 1 and nobody.hands[0] == ()


def test_decision_3_2_trios_after_a_gain_any_number() -> None:
    """[DECISION] §3.2: trios only after gaining a card; exactly three of one value; any
    number in one turn; 10 points each."""
    state = with_hands(
        stacked("green-3"), {0: ["red-3", "blue-3", "orange-5", "green-5", "teal-5"]}
    )
    state = play(state, "turn", "take green-3")
    assert state.phase is Phase.WRAP_UP and state.gained
    moves = GAME.legal_moves(state)
    assert Trio((F("red-3"), F("green-3"), F("blue-3"))) in moves and Stop() in moves
    state, events = GAME.play(state, GAME.parse_move(state, "trio red-3 blue-3 green-3"))
    assert events[0].points == ((0, 10),)
    state, _ = GAME.play(state, GAME.parse_move(state, "trio orange-5 green-5 teal-5"))
    assert len(state.trios[0]) == 2 and state.hands[0] == ()
    assert state.turn == 1, "with nothing more to do the turn passes on"
    assert GAME.scores(state)[0] == 20


def test_decision_3_2_last_card_ends_turn_and_game() -> None:
    """[DECISION] §3.2: drawing the stack's last card ends turn and game at once: no take,
    no action, no bust; discards are never reshuffled."""
    base = play(stacked("red-1", "take-attraction"), "turn")
    last = replace(base, stack=(Action.TAKE,), unseen=frozenset())
    state, events = GAME.play(last, Turn())
    assert state.phase is Phase.OVER and state.end is EndReason.STACK_EMPTY
    assert "stack empty" in [e.what for e in events]
    bust_last = replace(base, stack=(F("red-2"),), unseen=frozenset({F("red-2")}))
    state, events = GAME.play(bust_last, Turn())
    assert state.end is EndReason.STACK_EMPTY and "bust" not in [e.what for e in events]
    assert GAME.legal_moves(state) == []


def test_decision_3_2_all_ten_colours_only_at_the_end_of_own_turn() -> None:
    """[DECISION] §3.2: the active player, at the end of their turn, with all ten colours in
    hand, may end the game; trios don't count."""
    state = with_hands(stacked("red-5", "red-6"), {0: ALL_TEN[1:]}, trios={0: [["red-1", "orange-1", "yellow-1"]]})
    state = play(state, "turn", "turn")  # bust: 9 colours in hand, the trio's red doesn't count
    assert state.turn == 1 and state.phase is Phase.TURNING
    state = with_hands(stacked("blue-5", "blue-6"), {0: ALL_TEN})
    assert Show() not in GAME.legal_moves(state)
    state = play(state, "turn", "turn")  # a bust, then the end of the turn
    assert state.phase is Phase.WRAP_UP and GAME.legal_moves(state) == [Show(), Stop()]
    over, events = GAME.play(state, Show())
    assert over.end is EndReason.ALL_COLOURS and over.ender == 0
    assert GAME.scores(over)[0] == 0 + 0 + 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7
    go_on = play(state, "stop")
    assert go_on.turn == 1 and not GAME.is_over(go_on)


def test_decision_3_2_gala_bonus_is_an_option() -> None:
    """[DECISION] §3.2: no gala bonus in the seed; gala_bonus=10 gives it to the player who
    ends the game with all ten colours (Amigo and later editions)."""
    for bonus in (0, 10):
        state = with_hands(stacked("blue-5", "blue-6", gala_bonus=bonus), {0: ALL_TEN})
        over, events = GAME.play(play(state, "turn", "turn"), Show())
        assert GAME.scores(over)[0] == 28 + bonus
        gala = [e for e in events if e.what == "gala show"]
        assert [e.points for e in gala] == ([((0, 10),)] if bonus else [])
    assert GAME.new_state(["A", "B"], __import__("random").Random(1)).gala_bonus == 0


def test_decision_3_2_scoring_and_shared_victory() -> None:
    """[DECISION] §3.2 scoring: 10 per trio plus the single highest card of each colour;
    [SEED] ties for first place share the victory."""
    state = with_hands(
        stacked("grey-7"),
        {0: ["red-6", "red-2", "blue-0"], 1: ["green-6"], 2: ["teal-1"]},
        trios={1: [["red-4", "blue-4", "pink-4"]]},
    )
    over = replace(state, phase=Phase.OVER, end=EndReason.STACK_EMPTY)
    assert GAME.scores(over) == (6, 16, 1)
    tie = replace(over, hands=(over.hands[0], (F("green-6"),), (F("teal-6"),)), trios=((), (), ()))
    outcome = GAME.outcome(tie)
    assert outcome is not None and outcome.winners == (0, 1, 2)


# -- every reason, with its sentence ------------------------------------------------------

_THREE = with_hands(stacked("take-attraction"), {1: ["blue-3"]})
_STEAL = play(_THREE, "turn")
_REQUEST = play(with_hands(stacked("request-attraction"), {1: ["red-3"], 2: ["red-5"]}), "turn")
_WRAP = play(with_hands(stacked("green-3"), {0: ["red-3", "blue-3"]}), "turn", "take green-3")
_BUSTED_ALL = play(with_hands(stacked("blue-5", "blue-6"), {0: ALL_TEN}), "turn", "turn")
_OVER = replace(stacked(), phase=Phase.OVER, end=EndReason.STACK_EMPTY)
_PUBLIC = GAME.public_state(["Ann", "Ben", "Cat"])

REASONS: list[tuple[Reason, FlohcatiState, FlohcatiMove, str]] = [
    (Reason.GAME_OVER, _OVER, Turn(), "The game is over: no more cards can be turned."),
    (Reason.WRONG_PHASE, _STEAL, Turn(), _PHASE_HELP[Phase.STEAL]),
    (Reason.WRONG_PHASE, _WRAP, Take(F("green-3")), _PHASE_HELP[Phase.WRAP_UP]),
    (
        Reason.WRONG_CARD,
        stacked("red-1"),
        Turn(F("grey-7")),
        "The card on top of the stack is not the grey 7: turn the top card.",
    ),
    (
        Reason.WRONG_CARD,
        play(_PUBLIC, "turn red-1"),
        Turn(F("red-1")),
        "The red 1 has already been turned up: it can't still be in the stack.",
    ),
    (
        Reason.CARD_NOT_NAMED,
        _PUBLIC,
        Turn(),
        "Say which card was turned: the referee can't see the stack.",
    ),
    (
        Reason.NOT_IN_ROW,
        play(stacked("blue-2"), "turn"),
        Take(F("red-1")),
        "The red 1 is not in the row of turned cards: take one that is.",
    ),
    (Reason.NOT_AN_OPPONENT, _STEAL, Steal(0, F("blue-3")), "Take the card from one of your opponents."),
    (Reason.EMPTY_HAND, _STEAL, Steal(2, F("blue-3")), "Cat has no cards: choose an opponent who holds some."),
    (Reason.MUST_STEAL, _STEAL, Steal(None, None), "Ben holds cards: you must take one from an opponent."),
    (Reason.NOT_HELD, _STEAL, Steal(1, F("red-3")), "Ben does not hold the red 3."),
    (
        Reason.NOT_HELD,
        _REQUEST,
        Request(Colour.RED, True, 1, F("red-5")),
        "Ben must give a red flea they hold, not the red 5.",
    ),
    (
        Reason.WRONG_GIVER,
        _REQUEST,
        Request(Colour.RED, False, 1, F("red-3")),
        "Cat is the first player counterclockwise with a red flea: Cat must give it.",
    ),
    (
        Reason.WRONG_GIVER,
        _REQUEST,
        Request(Colour.BLUE, True, 1, F("blue-1")),
        "Ben holds no blue flea, so they can't give one.",
    ),
    (
        Reason.NO_TRIO_NOW,
        _BUSTED_ALL,
        Trio((F("red-0"), F("orange-0"), F("yellow-0"))),
        "You can lay out a trio only in a turn in which you gained a card.",
    ),
    (
        Reason.NOT_A_TRIO,
        _WRAP,
        Trio((F("red-3"), F("green-3"), F("blue-2"))),
        "A trio is three different cards of the same value.",
    ),
    (
        Reason.NOT_HELD,
        _WRAP,
        Trio((F("red-3"), F("green-3"), F("grey-3"))),
        "You don't hold the grey 3.",
    ),
    (
        Reason.NOT_ALL_COLOURS,
        _WRAP,
        Show(),
        "You can end the game only with all ten colours in hand; you have no orange, yellow, "
        "teal, purple, pink, brown, grey flea.",
    ),
    (Reason.NOT_A_MOVE, _WRAP, cast(FlohcatiMove, "stop"), "That is not a Circus Flohcati move."),
]


@pytest.mark.parametrize("reason, state, move, message", REASONS, ids=[r[0].name for r in REASONS])
def test_every_reason_has_its_sentence(
    reason: Reason, state: FlohcatiState, move: FlohcatiMove, message: str
) -> None:
    """Each Reason comes with the sentence a new player reads."""
    check = GAME.check(state, move)
    assert (check.verdict, check.reason) == (Verdict.ILLEGAL, reason)
    assert check.message == message
    assert not GAME.is_legal(state, move)


def test_every_reason_is_covered() -> None:
    """The table above produces every member of Reason."""
    assert {r[0] for r in REASONS} == set(Reason)


def test_public_information_turns_are_unverifiable() -> None:
    """With the stack hidden, a named turn is UNVERIFIABLE and still played."""
    check = GAME.check(_PUBLIC, Turn(F("red-1")))
    assert check.verdict is Verdict.UNVERIFIABLE
    state = play(_PUBLIC, "turn red-1", "turn take-attraction")
    assert state.phase is Phase.STEAL and state.display == (F("red-1"),)
    assert len(state.stack) == 87 and F("red-1") not in state.unseen


def test_public_view_never_contradicts_full_information() -> None:
    """With the stack (and the hands) hidden, a check may say UNVERIFIABLE but never turns a
    legal move illegal or an illegal one legal (it never guesses). In the view a turn names
    the card the camera saw."""
    import random

    rng = random.Random(4)
    verdicts: set[Verdict] = set()
    for game_no in range(4):
        state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
        other = play(GAME.new_state(["Ann", "Ben", "Cat"], random.Random(game_no)), "turn")
        while not GAME.is_over(state):
            views = (GAME.public_view(state), GAME.public_view(state, hide_hands=True))
            for move in GAME.legal_moves(state) + GAME.legal_moves(other):
                full = GAME.check(state, move)
                seen_move = Turn(state.stack[0]) if move == Turn() else move
                for view in views:
                    seen = GAME.check(view, seen_move)
                    verdicts.add(seen.verdict)
                    assert not (full.is_legal and seen.is_illegal), move
                    assert not (full.is_illegal and seen.is_legal), move
            state, _ = GAME.apply_unchecked(state, GAME.random_move(state, rng))
    assert verdicts == set(Verdict)
