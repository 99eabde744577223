"""Big Top rules: every [DECISION] of DECISIONS.md §4.2 and every illegal-move reason."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scorer.bigtop import BigTop, Reason, slide, track_token
from scorer.bigtop.engine import CHART_VALUES
from scorer.core import IllegalMove, Verdict
from tests.scorer.bigtop.bigtop_helpers import GAME, C, mv, play, position  # type: ignore[import-not-found]


def illegal(state, text: str) -> IllegalMove:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalMove) as err:
        GAME.play(state, mv(state, text))
    return err.value


# -- slides -----------------------------------------------------------------------


def test_decision_2_slide_processes_from_the_zero_end_upward() -> None:
    """[DECISION] §4.2 item 2: a card may move into the space the card ahead just left."""
    a, b, c, d = C("clowns-L2"), C("sideshow-L3"), C("animals-D4"), C("performers-L5")
    assert slide((a, b, c, None)) == (None, a, b, c)
    assert slide((a, None, c, None)) == (None, a, None, c)
    assert slide((a, b, None, d)) == (None, a, b, d)
    assert slide((a, b, c, d)) == (a, b, c, d)  # packed from $0: nothing moves
    assert slide((None, b, c, d)) == (None, b, c, d)


def test_decision_2_after_a_slide_three_is_empty_unless_four_are_called() -> None:
    """[DECISION] §4.2 item 2: fewer than four called cards always leave $3 free."""
    cards = [C("clowns-L2"), C("sideshow-L3"), C("animals-D4")]
    rng = random.Random(1)
    for _ in range(200):
        chart = [None, None, None, None]
        for card in rng.sample(cards, rng.randint(0, 3)):
            chart[rng.choice([i for i in range(4) if chart[i] is None])] = card
        assert slide(tuple(chart))[0] is None  # type: ignore[arg-type]


def test_decision_3_a_card_on_zero_stays() -> None:
    """[DECISION] §4.2 item 3: the card on $0 never falls off."""
    d = C("performers-L5")
    assert slide((None, None, None, d)) == (None, None, None, d)


# -- forced play and earnings -------------------------------------------------------


def test_decision_1_called_card_is_checked_on_the_next_turn_only() -> None:
    """[DECISION] §4.2 item 1: a called card that becomes playable out of turn waits."""
    state = position(
        [["sideshow-P", "clowns-L3"], ["sideshow-L1", "clowns-L4"], ["animals-L3", "animals-L4"]],
        charts=[[None] * 4, [None, "sideshow-L2", None, None], [None] * 4],
    )
    state, _ = play(state, "Alf play sideshow-P")  # Henry's L2 is not playable yet (needs L1)
    moves = [GAME.format_move(state, m) for m in GAME.legal_moves(state)]
    assert "Henry play sideshow-L1" in moves
    state, _ = play(state, "Henry play sideshow-L1")  # now his called L2 is playable, but he has acted
    assert state.to_move == 2
    state, _ = play(state, "Charles call animals-L3")
    state, _ = play(state, "Alf call clowns-L3")
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["Henry play sideshow-L2"]


def test_decision_4_playing_a_called_card_earns_nothing() -> None:
    """[DECISION] §4.2 item 4: no earnings and no second slide."""
    state = position(
        [["clowns-L5"], ["clowns-D6", "animals-D2"], ["sideshow-L3", "animals-D4"]],
        charts=[[None, "clowns-L1", None, None], [None, "clowns-D3", None, None], [None] * 4],
        tableau={"clowns": (True, 0, 0)},
    )
    state, earned = play(state, "Alf play clowns-L1")
    assert earned == [0]
    assert state.charts[0] == (None, None, None, None)


def test_decision_5_earnings_match_suit_and_shade_at_the_current_value() -> None:
    """[DECISION] §4.2 item 5: a dark 1 earns from a called dark 4; own cards never pay."""
    state = position(
        [["sideshow-D1", "clowns-L6"], ["clowns-L5"], ["clowns-D6"], ["clowns-L4"]],
        charts=[
            [None, None, "sideshow-D5", None],  # Alf's own: never pays him
            ["sideshow-D4", None, None, None],  # $3
            [None, "sideshow-L3", None, None],  # light: no match for a dark card
            [None, None, None, "sideshow-D6"],  # $0: matches, pays 0
        ],
        tableau={"sideshow": (True, 0, 0)},
    )
    state, earned = play(state, "Alf play sideshow-D1")
    assert earned == [3]
    assert state.track[0] == 3


def test_decision_6_poster_pays_both_shades() -> None:
    """[DECISION] §4.2 item 6: the Poster pays every opponent card of its suit."""
    state = position(
        [["performers-P", "clowns-L6"], ["clowns-L5"], ["clowns-D6"], ["clowns-L4"]],
        charts=[
            [None] * 4,
            [None, "performers-L1", None, None],
            ["performers-D3", None, None, None],
            [None, None, "clowns-D2", None],
        ],
    )
    _, earned = play(state, "Alf play performers-P")
    assert earned == [5]


def test_decision_6_cards_may_be_called_before_their_poster() -> None:
    """[DECISION] §4.2 item 6: Charles calls the light 1 Performers with no Performers Poster out."""
    state = position([["performers-L1", "clowns-L3"], ["clowns-L4"], ["clowns-L5"]])
    assert GAME.is_legal(state, mv(state, "Alf call performers-L1"))


def test_decision_7_must_call_when_calling_is_the_only_option() -> None:
    """[DECISION] §4.2 item 7: a pass is legal only with no play and no call."""
    state = position([["clowns-L3"], ["clowns-L4"], ["clowns-L5"]])
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["Alf call clowns-L3"]
    err = illegal(state, "Alf pass")
    assert err.reason is Reason.PASS_WITH_CALL
    assert str(err) == "You can't pass: you can call the light 3 Clowns."


def test_decision_7_calling_is_optional_when_a_play_exists() -> None:
    state = position([["clowns-P", "animals-L3"], ["clowns-L4"], ["clowns-L5"]])
    moves = {GAME.format_move(state, m) for m in GAME.legal_moves(state)}
    assert moves == {"Alf play clowns-P", "Alf call animals-L3"}


def test_decision_8_gate_receipts_pay_for_suits_never_dealt() -> None:
    """[DECISION] §4.2 item 8: no card of a suit in hand or on the chart pays its token."""
    state = position([["clowns-P"], ["clowns-L1", "animals-L2"], ["clowns-L2"]])
    state, _ = play(state, "Alf play clowns-P")
    assert state.out == 0
    # Henry holds clowns and animals: sideshow (7) and performers (3) pay.
    assert GAME.gate_receipts(state) == (25, 10, 7 + 5 + 3)


def test_decision_9_last_hand_card_earns_then_ends() -> None:
    """[DECISION] §4.2 item 9: earnings of the last card are collected, then the hand ends."""
    state = position(
        [["clowns-L1"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None] * 4, ["clowns-L3", None, None, None], [None] * 4],
        tableau={"clowns": (True, 0, 0)},
    )
    state, earned = play(state, "Alf play clowns-L1")
    assert earned == [3] and state.out == 0
    assert GAME.scores(state)[0] == 3 + 25
    err = illegal(state, "Henry pass")
    assert err.reason is Reason.HAND_OVER
    assert str(err) == "The hand is over: Alf went out."


def test_decision_9_empty_hand_with_called_cards_keeps_taking_turns() -> None:
    """[DECISION] §4.2 item 9: slide, play a called card when playable, otherwise pass."""
    state = position(
        [[], ["clowns-L1", "clowns-L4"], ["sideshow-L3"]],
        charts=[[None, "clowns-L2", None, None], [None] * 4, [None] * 4],
        tableau={"clowns": (True, 0, 0)},
    )
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["Alf pass"]
    state, _ = play(state, "Alf pass", "Henry play clowns-L1", "Charles call sideshow-L3")
    state, earned = play(state, "Alf play clowns-L2")
    assert earned == [0] and state.out == 0  # the last card was a called card: it earns nothing


def test_decision_10_three_players_deal_18_17_17_and_play_six_hands() -> None:
    """[DECISION] §4.2 item 10."""
    state = GAME.new_state(["Alf", "Henry", "Charles"], random.Random(2), dealer=0)
    assert state.hand_sizes == (17, 18, 17)
    assert GAME.hands_in_game(3) == 6 and GAME.hands_in_game(5) == 5


def test_decision_10_the_next_dealer_is_left_of_the_dealer() -> None:
    record = GAME.simulate(["Alf", "Henry", "Charles"], random.Random(4), hands=3)
    assert [h["dealer"] for h in record["hands"]] == ["Alf", "Henry", "Charles"]


def test_decision_11_track_beyond_forty_and_exactly_twenty() -> None:
    """[DECISION] §4.2 item 11: exactly 20 stays unflipped; above 40 is off the board."""
    assert track_token(20) == track_token(20) and not track_token(20).plus20
    assert track_token(20).space == 20
    assert track_token(21).plus20 and track_token(21).space == 1
    assert track_token(40).on_board and track_token(40).space == 20
    assert not track_token(41).on_board and track_token(41).plus20
    assert track_token(0).space is None


def test_decision_12_ties_are_shared() -> None:
    """[DECISION] §4.2 item 12: the victory is shared."""
    state = position([["clowns-P"], ["animals-L2"], ["sideshow-L2"]],
                     investments=[(10, 7, 5, 3), (3, 5, 10, 7), (10, 3, 7, 5)])
    state, _ = play(state, "Alf play clowns-P")
    outcome = GAME.outcome(state)
    assert outcome is not None
    # Alf 25; Henry (animals held) 3+5+7=15; Charles (sideshow held) 10+7+5=22.
    assert outcome.scores == (25, 15, 22) and outcome.winners == (0,)
    tie = replace(state, track=(0, 10, 3))
    assert GAME.outcome(tie).winners == (0, 1, 2)  # type: ignore[union-attr]


def test_decision_14_only_playable_called_cards_force_play() -> None:
    """[DECISION] §4.2 item 14: the detailed text overrides the German overview."""
    state = position(
        [["clowns-P"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "sideshow-L4", None, None], [None] * 4, [None] * 4],
    )
    assert GAME.is_legal(state, mv(state, "Alf play clowns-P"))


# -- every reason, with its message ----------------------------------------------------


def test_reason_not_your_turn() -> None:
    state = position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]])
    err = illegal(state, "Henry pass")
    assert err.reason is Reason.NOT_YOUR_TURN
    assert str(err) == "It is Alf's turn, not Henry's."


def test_reason_not_in_hand() -> None:
    state = position([["clowns-P"], ["sideshow-P"], ["clowns-L5"]])
    err = illegal(state, "Alf play sideshow-P")
    assert err.reason is Reason.NOT_IN_HAND
    assert str(err) == "Alf does not hold the Sideshow Poster."


def test_reason_not_playable_messages() -> None:
    state = position(
        [["clowns-L1", "animals-L3", "sideshow-L2"], ["clowns-L4"], ["clowns-L5"]],
        tableau={"animals": (True, 1, 0), "sideshow": (True, 0, 0)},
    )
    err = illegal(state, "Alf play clowns-L1")
    assert err.reason is Reason.NOT_PLAYABLE
    assert str(err) == "The light 1 Clowns can't be played: the Clowns Poster must be played first."
    assert str(illegal(state, "Alf play animals-L3")) == (
        "The light 3 Animals can't be played: the light Animals pile is at 1, so only the light 2 goes next."
    )
    assert str(illegal(state, "Alf play sideshow-L2")) == (
        "The light 2 Sideshow can't be played: the light Sideshow pile starts with the light 1."
    )


def test_reason_not_playable_for_a_called_card() -> None:
    state = position(
        [["clowns-P"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "sideshow-L4", None, None], [None] * 4, [None] * 4],
        tableau={"sideshow": (True, 2, 0)},
    )
    err = illegal(state, "Alf play sideshow-L4")
    assert err.reason is Reason.NOT_PLAYABLE
    assert str(err) == (
        "Your called light 4 Sideshow can't be played yet: the light Sideshow pile is at 2, "
        "so only the light 3 goes next."
    )


def test_reason_call_playable() -> None:
    state = position([["clowns-L1"], ["clowns-L4"], ["clowns-L5"]], tableau={"clowns": (True, 0, 0)})
    err = illegal(state, "Alf call clowns-L1")
    assert err.reason is Reason.CALL_PLAYABLE
    assert str(err) == "You can't call the light 1 Clowns: it can be played now, so play it instead."


def test_reason_call_poster() -> None:
    state = position([["clowns-P", "animals-L3"], ["clowns-L4"], ["clowns-L5"]])
    err = illegal(state, "Alf call clowns-P")
    assert err.reason is Reason.CALL_POSTER
    assert str(err) == "You can never call a Poster: the Clowns Poster can always be played, so play it."


def test_reason_suit_already_called() -> None:
    state = position(
        [["animals-D4", "clowns-L3"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "animals-L2", None, None], [None] * 4, [None] * 4],
    )
    err = illegal(state, "Alf call animals-D4")
    assert err.reason is Reason.SUIT_ALREADY_CALLED
    assert str(err) == "You already have the light 2 Animals on your chart: only one called card per suit."
    assert GAME.is_legal(state, mv(state, "Alf call clowns-L3"))


def test_reason_chart_full() -> None:
    state = position(
        [["clowns-L3", "clowns-L5"], ["clowns-L4"], ["clowns-L6"]],
        charts=[["clowns-D2", "sideshow-L2", "animals-L2", "performers-L2"], [None] * 4, [None] * 4],
    )
    err = illegal(state, "Alf call clowns-L3")
    assert err.reason is Reason.CHART_FULL
    assert str(err) == "Your Organizing Chart is full: with four called cards you can't call another."
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["Alf pass"]


def test_reason_pass_with_play() -> None:
    state = position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]])
    err = illegal(state, "Alf pass")
    assert err.reason is Reason.PASS_WITH_PLAY
    assert str(err) == "You can't pass: you can play the Clowns Poster."


def test_reason_must_play_called_blocks_hand_play_call_and_pass() -> None:
    state = position(
        [["clowns-P", "animals-L3"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "sideshow-L1", None, None], [None] * 4, [None] * 4],
        tableau={"sideshow": (True, 0, 0)},
    )
    for text in ("Alf play clowns-P", "Alf call animals-L3", "Alf pass"):
        err = illegal(state, text)
        assert err.reason is Reason.MUST_PLAY_CALLED
        assert str(err) == "You must play your called light 1 Sideshow first: it is playable now."


def test_chart_values() -> None:
    assert CHART_VALUES == (3, 2, 1, 0)
    assert isinstance(GAME, BigTop)


# -- public information ---------------------------------------------------------------


def test_public_pass_cannot_be_verified() -> None:
    state = position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]]).to_public()
    check = GAME.check(state, mv(state, "Alf pass"))
    assert check.verdict is Verdict.UNVERIFIABLE
    assert "Cannot verify" in check.message
    assert GAME.is_legal(state, mv(state, "Alf pass"))  # not provably illegal: the referee accepts it


def test_public_checks_that_need_no_hidden_card_are_exact() -> None:
    state = position(
        [["clowns-P", "animals-L3"], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "sideshow-L1", None, None], [None] * 4, [None] * 4],
        tableau={"sideshow": (True, 0, 0), "animals": (True, 1, 0)},
    ).to_public()
    assert GAME.check(state, mv(state, "Alf play clowns-P")).reason is Reason.MUST_PLAY_CALLED
    assert GAME.check(state, mv(state, "Alf play sideshow-L1")).is_legal
    state2 = replace(state, charts=((None,) * 4,) * 3)
    assert GAME.check(state2, mv(state2, "Alf play animals-L1")).reason is Reason.NOT_IN_HAND
    assert GAME.check(state2, mv(state2, "Alf play animals-L2")).is_legal


def test_public_legal_moves_need_the_hand() -> None:
    from scorer.core import HiddenInformation

    state = position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]]).to_public()
    with pytest.raises(HiddenInformation):
        GAME.legal_moves(state)


def test_public_empty_hand_pass_is_verifiable() -> None:
    state = position(
        [[], ["clowns-L4"], ["clowns-L5"]],
        charts=[[None, "clowns-L2", None, None], [None] * 4, [None] * 4],
    ).to_public()
    assert GAME.check(state, mv(state, "Alf pass")).is_legal
    assert GAME.check(state, mv(state, "Alf play clowns-P")).reason is Reason.NOT_IN_HAND
