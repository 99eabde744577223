"""Turns, the Show Master, the end of the game, and every illegal-move sentence."""

from __future__ import annotations

import random
from typing import cast

import pytest

from scorer.core import Verdict
from scorer.grandioso import (
    BOX,
    Card,
    Draw,
    EndReason,
    Exchange,
    GrandiosoMove,
    GrandiosoState,
    LayDown,
    Pass,
    Place,
    Reason,
)
from scorer.grandioso.game import HAND_SIZE, Phase
from tests.scorer.grandioso.grandioso_helpers import (  # type: ignore[import-not-found]
    GAME,
    LOST_EXAMPLE,
    PLAYERS,
    position,
    pyramid,
)

TRIANGLE = pyramid((0, 6), (0, 5), (0, 4), (0, 3), (0, 2), (0, 1))


def test_decision_2_4_setup_62_cards_seven_each() -> None:
    """[DECISION] §2.4: 62 cards are shuffled (the start Elephant is out), 7 to each player;
    the starting Elephant gives the Show Master to nobody (§2.3)."""
    for n in (2, 3, 4):
        state = GAME.new_state(("Ann", "Ben", "Cat", "Dan")[:n], random.Random(n))
        assert all(len(h) == HAND_SIZE for h in state.hands)
        assert len(state.stack) == 62 - HAND_SIZE * n
        everything = [c for h in state.hands for c in h] + list(state.stack)
        assert sorted(everything, key=lambda c: c.value if c else 0) == sorted(
            [c for c, k in BOX.items() for _ in range(k - (c is Card.ELEPHANT))],
            key=lambda c: c.value,
        )
        assert state.show_master is None and state.turn == 0


def test_decision_2_3_other_placements_let_the_player_act_again() -> None:
    """[DECISION] §2.3: a placement that is not the single topmost card lets the player act
    again, either option; the turn passes only by a top placement, a lay-down, an exchange
    or a pass."""
    state = position(LOST_EXAMPLE, ["elephant", "tiger", "rhino"])
    state, _ = GAME.play(state, Place(Card.ELEPHANT, 0, -1))
    assert state.turn == 0 and state.placed
    moves = GAME.legal_moves(state)
    assert Draw(None) in moves and Exchange(Card.TIGER, None) in moves and Pass() in moves
    state, _ = GAME.play(state, Exchange(Card.RHINO, None))
    assert state.turn == 1 and not state.placed


def test_pass_after_a_placement_ends_the_turn() -> None:
    """Our reading of "can play again": after a placement the player may also stop (pass)."""
    state = position(LOST_EXAMPLE, ["elephant", "tiger"])
    assert GAME.check(state, Pass()).reason is Reason.CANNOT_PASS
    state, _ = GAME.play(state, Place(Card.ELEPHANT, 0, -1))
    state, events = GAME.play(state, Pass())
    assert events == () and state.turn == 1 and state.passes == 0


def test_draw_then_place_or_lay_down() -> None:
    """§2.4 option 1: a drawn card is placed, or laid face down (even when it fits), which
    ends the turn; placing it lets the player go on and leaves the hand as it was."""
    state = position(LOST_EXAMPLE, ["camel"], stack=["tiger", "lion"])
    state, _ = GAME.play(state, Draw(None))
    assert state.phase is Phase.DRAWN and state.drawn is Card.TIGER
    assert GAME.legal_moves(state) == [Place(Card.TIGER, 4, 1), LayDown()]
    laid, _ = GAME.play(state, LayDown())
    assert laid.singles == (Card.TIGER,) and laid.turn == 1
    placed, _ = GAME.play(state, Place(Card.TIGER, 4, 1))
    assert placed.turn == 0 and placed.hands[0] == (Card.CAMEL,)
    assert placed.phase is Phase.PLAY and placed.drawn is None


def test_draw_a_hidden_single() -> None:
    """A hidden single card can be drawn like the stack's top card (numbered from 1)."""
    state = position(LOST_EXAMPLE, ["camel"], singles=["lion", "tiger"])
    move = GAME.parse_move(state, "draw single 2")
    assert move == Draw(1)
    state, _ = GAME.play(state, move)
    assert state.drawn is Card.TIGER and state.singles == (Card.LION,)


def test_decision_2_4_exchange_cannot_take_back_the_card_laid_down() -> None:
    """[DECISION] §2.4: in an exchange the card laid down is not one you may take back."""
    state = position(LOST_EXAMPLE, ["camel", "tiger"], stack=[], singles=["lion"])
    back = GAME.check(state, Exchange(Card.TIGER, 1))
    assert back.reason is Reason.EMPTY_SOURCE
    state, _ = GAME.play(state, Exchange(Card.TIGER, 0))
    assert state.hands[0] == (Card.CAMEL, Card.LION)
    assert state.singles == (Card.TIGER,) and state.turn == 1


def test_show_master_moves_and_the_event_says_so() -> None:
    """[DECISION] §2.3 Show Master: a placement into the top slot takes the token (from its
    holder: points +1 / -1) and ends the turn."""
    state = position(pyramid((0, 2)), ["rhino", "camel"], show_master=1)
    state, events = GAME.play(state, Place(Card.RHINO, 1, 0))
    assert state.show_master == 0
    assert events[0].points_by_seat() == {0: 1, 1: -1}
    assert "takes the Show Master" in events[0].text
    assert state.turn == 1


def test_seed_end_last_hand_card_holder_wins() -> None:
    """§2.4: placing the last hand card ends the game; the Show Master's holder wins."""
    state = position(LOST_EXAMPLE, ["elephant"], show_master=1)
    state, events = GAME.play(state, Place(Card.ELEPHANT, 0, -1))
    assert state.phase is Phase.OVER and state.end is EndReason.LAST_CARD
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (1,)
    assert GAME.scores(state) == (0, 1)
    assert events[-1].what == "game over" and "Ben wins" in events[-1].text


def test_seed_end_seal_wins_for_the_placer() -> None:
    """§2.4: placing the Seal ends the game at once; the placer takes the Show Master and wins."""
    top = pyramid(*[(0, 10 - r) for r in range(9)])
    state = position(top, ["seal", "camel"], show_master=1)
    state, events = GAME.play(state, Place(Card.SEAL, 9, 0))
    assert state.end is EndReason.SEAL and state.show_master == 0
    assert GAME.outcome(state) is not None and GAME.outcome(state).winners == (0,)  # type: ignore[union-attr]
    assert [e.what for e in events] == ["show master", "game over"]


def _stuck(hand: list[str], other: list[str], master: int | None) -> GrandiosoState:
    return position(TRIANGLE, hand, other=other, stack=[], singles=[], show_master=master)


def test_decision_2_4_all_pass_ends_the_game_holder_wins() -> None:
    """[DECISION] §2.4: with no option a player passes; when every player passes in a row
    the game ends and the Show Master's holder wins."""
    state = _stuck(["lion"], ["seal"], master=1)
    assert GAME.legal_moves(state) == [Pass()]
    state, _ = GAME.play(state, Pass())
    assert state.turn == 1 and state.passes == 1
    state, events = GAME.play(state, Pass())
    assert state.end is EndReason.STALEMATE
    assert GAME.outcome(state).winners == (1,)  # type: ignore[union-attr]
    assert events[-1].what == "game over"


def test_decision_2_4_nobody_holds_the_show_master_shared_victory() -> None:
    """[DECISION] §2.4: if nobody holds the Show Master the victory is shared."""
    state = _stuck(["lion"], ["seal"], master=None)
    state, _ = GAME.play(state, Pass())
    state, _ = GAME.play(state, Pass())
    assert GAME.outcome(state).winners == (0, 1)  # type: ignore[union-attr]


def test_a_placement_between_passes_resets_the_count() -> None:
    """Passes count only in a row: a turn with a placement starts the count again."""
    state = _stuck(["lion"], ["elephant", "seal"], master=None)
    state, _ = GAME.play(state, Pass())
    state, _ = GAME.play(state, Place(Card.ELEPHANT, 0, -1))
    state, _ = GAME.play(state, Pass())
    assert state.passes == 0 and not GAME.is_over(state)


# -- every reason, with its sentence --------------------------------------------------

_OVER = GrandiosoState(
    players=PLAYERS,
    pyramid=LOST_EXAMPLE,
    hands=((), (Card.CAMEL,)),
    stack=(),
    singles=(),
    phase=Phase.OVER,
    end=EndReason.LAST_CARD,
)

REASONS: list[tuple[Reason, GrandiosoState, GrandiosoMove, str]] = [
    (Reason.GAME_OVER, _OVER, Pass(), "The game is over: no more cards can be played."),
    (
        Reason.NOT_IN_HAND,
        position(LOST_EXAMPLE, ["elephant"]),
        Place(Card.TIGER, 4, 1),
        "You can't place a Tiger: you don't hold one.",
    ),
    (
        Reason.NOT_DRAWN,
        position(LOST_EXAMPLE, ["tiger"], drawn="clown"),
        Place(Card.TIGER, 4, 1),
        "You drew a Clown, so that is the card you may place, not a Tiger.",
    ),
    (
        Reason.WRONG_ANIMAL,
        position(LOST_EXAMPLE, ["bear"]),
        Place(Card.BEAR, 4, 1),
        "A Bear can't go in the Tiger row: it takes only Tigers (and one clown).",
    ),
    (
        Reason.NO_SUPPORT,
        position(LOST_EXAMPLE, ["bear"]),
        Place(Card.BEAR, 5, 0),
        "A Bear can't go there: every card above the Elephants must rest on two cards, "
        "and cards go only at the end of a row.",
    ),
    (
        Reason.NO_SUPPORT,
        position(LOST_EXAMPLE, ["elephant"]),
        Place(Card.ELEPHANT, 0, 9),
        "An Elephant can't go there: a card goes right next to either end of the Elephant row.",
    ),
    (
        Reason.NO_SUPPORT,
        position(LOST_EXAMPLE, ["tiger"]),
        Place(Card.TIGER, 4, 0),
        "That place already holds a card.",
    ),
    (
        Reason.BASE_FULL,
        position(pyramid((0, 10), (0, 9), (0, 1)), ["elephant"]),
        Place(Card.ELEPHANT, 0, -1),
        "The Elephant row is already ten cards wide: no more Elephants fit.",
    ),
    (
        Reason.TOP_FIRST,
        position(pyramid((0, 3), (0, 2)), ["elephant"]),
        Place(Card.ELEPHANT, 0, 3),
        "An Elephant can't go there now: the top of the pyramid can take a Camel, and the "
        "highest place comes first on both sides.",
    ),
    (
        Reason.NOT_HIGHEST,
        position(LOST_EXAMPLE, ["elephant"]),
        Place(Card.ELEPHANT, 0, 6),
        "An Elephant can't go there yet: the right side can still take a Tiger higher up.",
    ),
    (
        Reason.CLOWN_ON_TOP,
        position(pyramid((0, 2)), ["clown"]),
        Place(Card.CLOWN, 1, 0),
        "A clown can't be the single topmost card of the pyramid: only a Rhino can start the "
        "Rhino row.",
    ),
    (
        Reason.SECOND_CLOWN,
        position(pyramid((0, 3), (1, 1), clowns=[(0, 1)]), ["clown"]),
        Place(Card.CLOWN, 0, 3),
        "The Elephant row already has its clown: each row may hold only one.",
    ),
    (
        Reason.MUST_RESOLVE,
        position(LOST_EXAMPLE, ["tiger"], drawn="lion"),
        Draw(None),
        "You are holding the card you drew: place it on the pyramid or lay it face down first.",
    ),
    (
        Reason.NOTHING_DRAWN,
        position(LOST_EXAMPLE, ["tiger"]),
        LayDown(),
        "You have not drawn a card, so there is nothing to lay face down.",
    ),
    (
        Reason.EMPTY_SOURCE,
        position(LOST_EXAMPLE, ["tiger"], stack=[]),
        Draw(None),
        "The stack is empty: take a hidden single card instead.",
    ),
    (
        Reason.EMPTY_SOURCE,
        position(LOST_EXAMPLE, ["tiger"], singles=["lion"]),
        Exchange(Card.TIGER, 2),
        "There is no hidden single card number 3: the table has only 1 hidden single card.",
    ),
    (
        Reason.CANNOT_PASS,
        position(LOST_EXAMPLE, ["camel"]),
        Pass(),
        "You can't pass: you can still draw a card or exchange one of yours.",
    ),
    (
        Reason.CANNOT_PASS,
        position(LOST_EXAMPLE, ["tiger"], stack=[]),
        Pass(),
        "You can't pass: your Tiger fits the pyramid (a Tiger (or a clown) on the right).",
    ),
    (
        Reason.CARD_NOT_NAMED,
        position(LOST_EXAMPLE, ["tiger"]),
        Exchange(None, None),
        "Say which of your cards you lay face down in the exchange.",
    ),
    (
        Reason.NOT_A_MOVE,
        position(LOST_EXAMPLE, ["tiger"]),
        cast(GrandiosoMove, "place tiger 4,1"),
        "That is not a Circus Grandioso move.",
    ),
]


@pytest.mark.parametrize("reason, state, move, message", REASONS, ids=[r[0].name for r in REASONS])
def test_every_reason_has_its_sentence(
    reason: Reason, state: GrandiosoState, move: GrandiosoMove, message: str
) -> None:
    """Each Reason comes with the sentence a new player reads."""
    check = GAME.check(state, move)
    assert check.verdict is Verdict.ILLEGAL
    assert check.reason is reason
    assert check.message == message
    assert not GAME.is_legal(state, move)


def test_every_reason_is_covered() -> None:
    """The table above produces every member of Reason."""
    assert {r[0] for r in REASONS} == set(Reason)


def test_public_information_checks_are_unverifiable() -> None:
    """With hidden hands a placement that fits is UNVERIFIABLE, a misfit still ILLEGAL."""
    state = GAME.public_state(PLAYERS)
    assert GAME.check(state, Place(Card.ELEPHANT, 0, 1)).verdict is Verdict.UNVERIFIABLE
    assert GAME.check(state, Place(Card.TIGER, 0, 1)).reason is Reason.WRONG_ANIMAL
    assert GAME.check(state, Exchange(None, None)).verdict is Verdict.UNVERIFIABLE
    state, _ = GAME.play(state, Draw(None))
    assert state.drawn is None and state.phase is Phase.DRAWN
    assert GAME.check(state, Place(Card.ELEPHANT, 0, 1)).verdict is Verdict.UNVERIFIABLE
    state, _ = GAME.play(state, Place(Card.ELEPHANT, 0, 1))
    assert state.pyramid.width(0) == 2 and len(state.hands[0]) == HAND_SIZE
    state, _ = GAME.play(state, Place(Card.RHINO, 1, 0))
    assert len(state.hands[0]) == HAND_SIZE - 1 and state.show_master == 0


def test_public_view_never_contradicts_full_information() -> None:
    """With hands, stack and singles hidden, a check may say UNVERIFIABLE but never turns a
    legal move illegal or an illegal one legal (it never guesses)."""
    rng = random.Random(12)
    verdicts: set[Verdict] = set()
    for game_no in range(3):
        state = GAME.new_state(("Ann", "Ben", "Cat"), rng)
        other = GAME.new_state(("Ann", "Ben", "Cat"), random.Random(game_no))
        while not GAME.is_over(state):
            view = GAME.public_view(state)
            assert view.pyramid == state.pyramid and set(view.hands[0]) <= {None}
            for move in GAME.legal_moves(state) + GAME.legal_moves(other):
                full, seen = GAME.check(state, move), GAME.check(view, move)
                verdicts.add(seen.verdict)
                assert not (full.is_legal and seen.is_illegal), move
                assert not (full.is_illegal and seen.is_legal), move
            state, _ = GAME.apply_unchecked(state, GAME.random_move(state, rng))
    assert verdicts == set(Verdict)
