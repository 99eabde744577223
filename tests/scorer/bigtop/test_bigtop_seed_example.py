"""The seed's worked example (DECISIONS.md §4.4), as far as the seed determines it."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scorer.bigtop import DECK, Reason, Suit, track_token
from scorer.bigtop.engine import BigTopState
from scorer.core import IllegalMove
from tests.scorer.bigtop.bigtop_helpers import GAME, C, play  # type: ignore[import-not-found]

PLAYERS = ["Alf", "Henry", "Charles", "John", "Otto"]
ALF = [
    "clowns-P", "clowns-L1", "performers-D2", "performers-D4", "performers-L5",
    "sideshow-L1", "sideshow-L5", "sideshow-D2", "sideshow-D3", "animals-D6",
]
KNOWN = {
    "Henry": ["sideshow-P", "animals-P"],
    "Charles": ["performers-L1", "animals-D1"],
    "John": ["sideshow-D4", "performers-D3"],
    "Otto": ["sideshow-D1", "performers-P"],
}
SIZES = {"Henry": 11, "Charles": 11, "John": 10, "Otto": 10}


def example_deal() -> dict[str, list[str]]:
    """Alf's hand as printed; the named cards where the example says who played them;
    every other card shuffled into the hands so the sizes are 11/11/10/10/10."""
    used = set(ALF) | {c for cs in KNOWN.values() for c in cs}
    rest = [c.notation() for c in DECK if c.notation() not in used]
    random.Random(0).shuffle(rest)
    deal = {"Alf": list(ALF)}
    for name in ("Henry", "Charles", "John", "Otto"):
        need = SIZES[name] - len(KNOWN[name])
        deal[name] = KNOWN[name] + rest[:need]
        rest = rest[need:]
    assert not rest
    return deal


def start() -> BigTopState:
    deal = example_deal()
    inv = [(10, 7, 5, 3)] + [(10, 7, 5, 3)] * 4
    return GAME.start_hand(PLAYERS, 0, [[C(c) for c in deal[p]] for p in PLAYERS], inv)


ROUND_1 = [
    "Henry play sideshow-P",
    "Charles call performers-L1",
    "John call sideshow-D4",
    "Otto play sideshow-D1",
    "Alf play sideshow-D2",
]
ROUND_2 = [
    "Henry play animals-P",
    "Charles play animals-D1",
    "John call performers-D3",
    "Otto play performers-P",
    "Alf play sideshow-D3",
]


def test_dealing_starts_left_of_the_dealer() -> None:
    """[DECISION] §4.2 item 10: the dealer Alf holds 10 of 52 cards with 5 players."""
    state = GAME.new_state(PLAYERS, random.Random(3), dealer=0)
    assert state.hand_sizes == (10, 11, 11, 10, 10)
    assert GAME.current_player(state) == 1  # Henry, left of Alf, moves first


def test_round_one_earnings() -> None:
    state, earned = play(start(), *ROUND_1)
    assert earned == [0, 0, 0, 3, 3]  # Otto +$3, Alf +$3 from John's called dark 4 Sideshow
    assert state.charts[2][0] == C("performers-L1")  # Charles called onto $3
    assert state.charts[3][0] == C("sideshow-D4")


def test_round_two_earnings_and_slides() -> None:
    state, _ = play(start(), *ROUND_1)
    state, earned = play(state, *ROUND_2)
    assert earned == [0, 0, 0, 5, 2]  # Otto +$5 (both shades via the Poster), Alf +$2
    assert state.charts[2][1] == C("performers-L1")  # Charles's card slid to $2
    assert state.charts[3][:2] == (C("performers-D3"), C("sideshow-D4"))
    assert state.track == (5, 0, 0, 0, 8)


def test_charles_and_john_must_play_their_called_cards() -> None:
    state, _ = play(start(), *ROUND_1, *ROUND_2)
    moves = GAME.legal_moves(state)
    # Henry moves; whatever he does, Charles is forced next.
    state, _ = play(state, GAME.format_move(state, moves[0]))
    assert [GAME.format_move(state, m) for m in GAME.legal_moves(state)] == ["Charles play performers-L1"]
    with pytest.raises(IllegalMove) as err:
        play(state, "Charles pass")
    assert err.value.reason is Reason.MUST_PLAY_CALLED
    assert str(err.value) == "You must play your called light 1 Performers first: it is playable now."
    state, earned = play(state, "Charles play performers-L1")
    assert earned == [0]  # a called card earns nothing
    forced = GAME.legal_moves(state)
    assert [GAME.format_move(state, m) for m in forced] == ["John play sideshow-D4"]
    # After John's slide his cards sit at $2 (dark 3 Performers) and $1 (dark 4 Sideshow).
    state, _ = play(state, "John play sideshow-D4")
    assert state.charts[3] == (None, C("performers-D3"), None, None)


def test_alfs_hand_scores_20_plus_13() -> None:
    """End of the hand: light 5 Performers left on Alf's chart, $13 on his track.

    Alf invested $10 on Clowns, $7 on Sideshow, $5 on Performers, $3 on Animals.
    """
    alf = {Suit.CLOWNS: 10, Suit.SIDESHOW: 7, Suit.PERFORMERS: 5, Suit.ANIMALS: 3}
    state = start()
    end = replace(
        state,
        hands=tuple(frozenset() for _ in range(5)),
        hand_sizes=(0, 0, 0, 0, 0),
        charts=((None, None, None, C("performers-L5")),) + ((None, None, None, None),) * 4,
        investments=(tuple(alf[s] for s in Suit),) + state.investments[1:],  # type: ignore[arg-type,index]
        track=(13, 0, 0, 0, 0),
        out=4,
    )
    assert GAME.gate_receipts(end)[0] == 10 + 7 + 3
    assert GAME.scores(end)[0] == 33


def test_track_token_flip_19_plus_3() -> None:
    """$19 + $3: flip the token to +$20 and put it on the 2."""
    token = track_token(19 + 3)
    assert token.plus20 and token.space == 2 and token.on_board
