"""Invariants over thousands of random Big Top hands (seeded, so failures reproduce)."""

from __future__ import annotations

import random

import pytest

from scorer.bigtop import DECK, BigTop, BigTopState, FanTan, Shade
from scorer.bigtop.engine import CHART_VALUES, Action
from tests.scorer.bigtop.bigtop_helpers import all_candidate_moves  # type: ignore[import-not-found]

GAME = BigTop()


def cards_everywhere(state: BigTopState) -> list[int]:
    assert state.hands is not None
    seen = [c.index for h in state.hands for c in h]
    seen += [c.index for chart in state.charts for c in chart if c is not None]
    for suit, pile in enumerate(state.tableau):
        seen += [c.index for c in DECK[suit * 13 : suit * 13 + 13] if pile.holds(c)]
    return seen


def expected_earnings(state: BigTopState, seat: int, card_index: int) -> int:
    """Recomputed from the state's JSON form: a second, independent reading of the rule."""
    data = GAME.state_to_json(state)
    card = DECK[card_index]
    total = 0
    for name, chart in data["charts"].items():
        if name == state.players[seat]:
            continue
        for value, text in zip(CHART_VALUES, chart):
            if text is None:
                continue
            suit, rank = text.split("-")
            if suit != card.suit.label:
                continue
            if card.shade is Shade.POSTER or rank[0] == ("L" if card.shade is Shade.LIGHT else "D"):
                total += value
    return total


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_invariants_over_random_hands(players: int) -> None:
    rng = random.Random(players)
    names = [f"P{i}" for i in range(players)]
    for hand in range(500):
        state = GAME.new_state(names, rng, dealer=hand % players)
        for _ in range(2000):
            if state.out is not None:
                break
            assert sorted(cards_everywhere(state)) == list(range(52))
            moves = GAME.legal_moves(state)
            move = moves[rng.randrange(len(moves))]
            assert GAME.parse_move(state, GAME.format_move(state, move)) == move
            from_hand = move.action is Action.PLAY and move.card not in state.charts[move.player]
            want = expected_earnings(state, move.player, move.card.index) if from_hand and move.card else 0
            before = state.track[move.player]
            state, events = GAME.play(state, move)
            got = sum(a for e in events if e.what == "earned" for _, a in e.points)
            assert got == want == state.track[move.player] - before
        else:
            pytest.fail("a hand did not end")
        assert sorted(cards_everywhere(state)) == list(range(52))
        assert GAME.outcome(state) is not None


def test_legal_moves_are_exactly_the_moves_that_play() -> None:
    """Every move from legal_moves plays, and no other move of the 105 candidates does."""
    rng = random.Random(99)
    for game in (BigTop(), FanTan()):
        for _ in range(60):
            state = game.new_state(["A", "B", "C", "D", "E"], rng)
            while state.out is None:
                legal = set(game.legal_moves(state))
                for move in all_candidate_moves(state):
                    assert game.is_legal(state, move) == (move in legal), game.format_move(state, move)
                move = sorted(legal, key=lambda m: (m.action.value, m.card.index if m.card else -1))[
                    rng.randrange(len(legal))
                ]
                state, _ = game.play(state, move)


def test_public_information_never_rejects_a_legal_move() -> None:
    """The referee's view accepts every move that is legal with full information."""
    rng = random.Random(5)
    for _ in range(100):
        state = GAME.new_state(["A", "B", "C", "D"], rng)
        while state.out is None:
            moves = GAME.legal_moves(state)
            public = state.to_public()
            for move in moves:
                assert not GAME.check(public, move).is_illegal
            state, _ = GAME.apply_unchecked(state, moves[rng.randrange(len(moves))])


def test_replaying_a_simulated_game_gives_the_simulated_result() -> None:
    for seed in range(30):
        record = GAME.simulate(["A", "B", "C", "D", "E"], random.Random(seed), hands=2)
        state_scores = []
        for hand in record["hands"]:
            # Re-run each hand move by move and compare with the replay report.
            from scorer.bigtop.record import parse_hand

            h = parse_hand(GAME, hand, ("A", "B", "C", "D", "E"))
            state = h.start()
            for text in h.moves:
                state, _ = GAME.play(state, GAME.parse_move(state, text))
            state_scores.append(GAME.scores(state))
        report = GAME.replay(record)
        for k, scores in enumerate(state_scores):
            assert [report.data["hands"][k]["players"][p]["total"] for p in "ABCDE"] == list(scores)
