"""The Fan Tan variant (DECISIONS.md §4.3)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scorer.bigtop import FanTan, Reason
from scorer.core import IllegalMove
from tests.scorer.bigtop.bigtop_helpers import C, position  # type: ignore[import-not-found]

FT = FanTan()


def ft_position(hands: list[list[str]], peanuts: tuple[int, ...] | None = None, **kw):  # type: ignore[no-untyped-def]
    state = position(hands, game=FT, **kw)
    return replace(state, investments=None, peanuts=peanuts or (25,) * len(hands))


def test_fantan_is_a_variant_of_big_top() -> None:
    from scorer.bigtop import BigTop

    assert isinstance(FT, BigTop) and FT.name == "fantan" and not FT.allows_calling


def test_no_calling_in_fantan() -> None:
    state = ft_position([["clowns-L3"], ["clowns-L4"], ["clowns-L5"]])
    with pytest.raises(IllegalMove) as err:
        FT.play(state, FT.parse_move(state, "Alf call clowns-L3"))
    assert err.value.reason is Reason.NO_CALLING
    assert str(err.value) == "Fan Tan has no calling: play a card if you can, else pass and pay a peanut."


def test_must_play_if_possible_else_pass_and_pay() -> None:
    state = ft_position([["clowns-P", "animals-L3"], ["clowns-L4"], ["clowns-L5"]])
    with pytest.raises(IllegalMove) as err:
        FT.play(state, FT.parse_move(state, "Alf pass"))
    assert err.value.reason is Reason.PASS_WITH_PLAY
    state, _ = FT.play(state, FT.parse_move(state, "Alf play clowns-P"))
    assert [FT.format_move(state, m) for m in FT.legal_moves(state)] == ["Henry pass"]
    state, events = FT.play(state, FT.parse_move(state, "Henry pass"))
    assert state.peanuts == (25, 24, 25) and state.pot == 1
    assert events[0].points == ((1, -1),)


def test_first_out_takes_the_pot() -> None:
    state = ft_position([["clowns-P"], ["clowns-L4"], ["clowns-L5"]], peanuts=(20, 22, 21))
    state = replace(state, pot=7)
    state, events = FT.play(state, FT.parse_move(state, "Alf play clowns-P"))
    assert state.out == 0 and state.peanuts == (27, 22, 21)
    assert events[-1].what == "out" and events[-1].points == ((0, 7),)
    assert FT.outcome(state).winners == (0,)  # type: ignore[union-attr]


def test_decision_broke_player_pays_nothing() -> None:
    """[DECISION] §4.3: a player with 0 peanuts who must pass pays nothing."""
    state = ft_position([["clowns-L4"], ["clowns-P"], ["clowns-L5"]], peanuts=(0, 3, 3))
    state, events = FT.play(state, FT.parse_move(state, "Alf pass"))
    assert state.peanuts == (0, 3, 3) and state.pot == 0 and events == ()


def test_decision_game_ends_after_the_hand_someone_goes_broke() -> None:
    """[DECISION] §4.3: the hand in which someone reaches 0 is finished, then the game ends;
    the winner has the most peanuts."""
    record = FT.simulate(["Ann", "Ben", "Cat"], random.Random(11), hands=40)
    hands = record["hands"]
    short = {**record, "peanuts": {"Ann": 2, "Ben": 2, "Cat": 2}}
    report = FT.replay(short)
    assert report.illegal  # the record goes on after someone went broke
    data = report.data
    broke_at = len(data["hands"]) - 1
    assert 0 < broke_at < len(hands)
    assert data["error"]["hand"] == broke_at and "no peanuts left" in data["error"]["reason"]
    assert min(p["peanuts"] for p in data["hands"][broke_at - 1]["players"].values()) == 0
    done = FT.replay({**short, "hands": hands[:broke_at]}).data
    best = max(done["totals"].values())
    assert done["winners"] == [p for p, v in done["totals"].items() if v == best]


def test_fantan_replay_output_fields() -> None:
    record = FT.simulate(["Ann", "Ben", "Cat", "Dan"], random.Random(3))
    data = FT.replay(record).data
    assert data["finished"] and data["out"] in record["players"]
    assert set(data["players"]["Ann"]) == {"peanuts"}
    total = sum(p["peanuts"] for p in data["players"].values())
    assert total == 4 * 25  # peanuts only move between players and the pot
    assert data["pot"] == sum(1 for m in record["moves"] if m.endswith(" pass"))
    assert C("clowns-P").is_poster
