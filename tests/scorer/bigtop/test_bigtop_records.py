"""Big Top records (RECORDS.md): the replay output contract and every kind of bad input."""

from __future__ import annotations

import copy
import random

import pytest

from scorer.bigtop import BigTop
from scorer.core import RecordError, UnknownComponent

GAME = BigTop()
PLAYERS = ["Alf", "Henry", "Charles", "John", "Otto"]


def record() -> dict:  # type: ignore[type-arg]
    return GAME.simulate(PLAYERS, random.Random(21))


def test_replay_output_fields() -> None:
    rec = record()
    data = GAME.replay(rec).data
    assert data["game"] == "bigtop" and data["finished"] is True and data["out"] in PLAYERS
    assert len(data["moves"]) == len(rec["moves"])
    assert all(set(row) == {"move", "earned"} for row in data["moves"])
    for name in PLAYERS:
        row = data["players"][name]
        assert row["total"] == row["track"] + row["gate"]
        assert row["track"] == sum(m["earned"].get(name, 0) for m in data["moves"])
    assert data["players"][data["out"]]["gate"] == 25


def test_unfinished_hand_has_no_gate_and_no_out() -> None:
    rec = record()
    rec["moves"] = rec["moves"][:20]
    report = GAME.replay(rec)
    assert not report.illegal and report.exit_status == 0
    assert report.data["finished"] is False and report.data["out"] is None
    assert all(p["gate"] == 0 for p in report.data["players"].values())


def test_illegal_move_reports_index_and_reason_with_earlier_results() -> None:
    rec = record()
    first = rec["moves"][0].split()[0]
    rec["moves"].insert(3, f"{first} pass")
    report = GAME.replay(rec)
    assert report.illegal and report.exit_status == 3
    err = report.data["error"]
    assert err["index"] == 3 and err["move"] == f"{first} pass"
    assert err["reason"].startswith("It is ")
    assert len(report.data["moves"]) == 3
    assert all(p["gate"] == 0 for p in report.data["players"].values())


def test_moves_after_the_end_are_illegal() -> None:
    rec = record()
    rec["moves"].append(rec["moves"][-1])
    report = GAME.replay(rec)
    assert report.illegal and "The hand is over" in report.data["error"]["reason"]


@pytest.mark.parametrize(
    "mutate, field, words",
    [
        (lambda r: r["deal"]["Alf"].__setitem__(0, "clowns-Q9"), "deal.Alf[0]", "unknown card"),
        (lambda r: r["deal"]["Alf"].append(r["deal"]["Henry"][0]), "deal.Henry", "dealt twice (to Alf and Henry)"),
        (lambda r: r["deal"].pop("Otto"), "deal.Otto", "no cards for the player"),
        (lambda r: r["deal"]["Otto"].pop(), "deal", "must hold all 52"),
        (lambda r: r.pop("moves"), "moves", "no 'moves' field"),
        (lambda r: r.__setitem__("moves", "Alf pass"), "moves", "must be a list"),
        (lambda r: r.__setitem__("dealer", "Zed"), "dealer", "not one of the players"),
        (lambda r: r["investments"]["Alf"].__setitem__("clowns", 11), "investments.Alf", "10, 7, 5 and 3"),
        (lambda r: r["investments"].pop("John"), "investments.John", "no tokens"),
        (lambda r: r.__setitem__("players", ["Alf", "Alf", "B"]), "players", "twice"),
        (lambda r: r.__setitem__("players", ["Alf", "Henry"]), "players", "3 to 6 players"),
        (lambda r: r["moves"].__setitem__(2, "Henry dances"), "moves[2]", "unknown action"),
        (lambda r: r["moves"].__setitem__(2, "Zed pass"), "moves[2]", "unknown player"),
        (lambda r: r.__setitem__("game", "chess"), "game", "not a Big Top record"),
    ],
)
def test_malformed_records_name_the_field(mutate, field: str, words: str) -> None:  # type: ignore[no-untyped-def]
    rec = copy.deepcopy(record())
    mutate(rec)
    with pytest.raises(RecordError) as err:
        GAME.replay(rec)
    assert err.value.field == field
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_card_is_an_unknown_component() -> None:
    rec = record()
    rec["deal"]["Alf"][0] = "clowns-X"
    with pytest.raises(UnknownComponent):
        GAME.replay(rec)


def test_public_record_without_deal_reports_unverifiable_passes_and_uses_final_hands() -> None:
    rec = record()
    full = GAME.replay(rec).data
    # Build final_hands from a full-information replay of the same record.
    from scorer.bigtop.record import parse_hand

    hand = parse_hand(GAME, rec, tuple(PLAYERS))
    state = hand.start()
    expected_unverified = []
    for i, text in enumerate(hand.moves):
        move = GAME.parse_move(state, text)
        if text.endswith(" pass") and state.hand_sizes[move.player] > 0:
            expected_unverified.append(i)
        state, _ = GAME.play(state, move)
    final_state = state
    assert final_state.hands is not None
    public = {k: v for k, v in rec.items() if k != "deal"}
    without = GAME.replay(public).data
    assert expected_unverified
    assert [u["index"] for u in without["unverified"]] == expected_unverified
    assert without["players"][without["out"]]["gate"] == 25
    assert any(row["gate"] is None for row in without["players"].values())
    public["final_hands"] = {
        p: [c.notation() for c in final_state.hands[i]] for i, p in enumerate(PLAYERS)
    }
    with_final = GAME.replay(public).data
    assert with_final["players"] == full["players"]
    assert with_final["out"] == full["out"]


def test_whole_game_output_and_totals() -> None:
    rec = GAME.simulate(PLAYERS, random.Random(8), hands=5)
    data = GAME.replay(rec).data
    assert len(data["hands"]) == 5 and data["finished"]
    for p in PLAYERS:
        assert data["totals"][p] == sum(h["players"][p]["total"] for h in data["hands"])
    best = max(data["totals"].values())
    assert data["winners"] == [p for p in PLAYERS if data["totals"][p] == best]


def test_same_seed_same_record() -> None:
    assert GAME.simulate(PLAYERS, random.Random(1), hands=2) == GAME.simulate(PLAYERS, random.Random(1), hands=2)
    assert GAME.simulate(PLAYERS, random.Random(1)) != GAME.simulate(PLAYERS, random.Random(2))


def test_state_json_rejects_nonsense() -> None:
    state = GAME.new_state(PLAYERS, random.Random(1))
    data = GAME.state_to_json(state)
    data["tableau"]["clowns"] = {"poster": False, "light": 3, "dark": 0}
    with pytest.raises(RecordError) as err:
        GAME.state_from_json(data)
    assert err.value.field == "tableau.clowns"


def test_referee_record_before_the_tokens_are_turned_up_has_unknown_gates() -> None:
    rec = record()
    public = {k: v for k, v in rec.items() if k not in ("deal", "investments")}
    data = GAME.replay(public).data
    assert data["finished"] and data["out"] is not None
    full = GAME.replay(rec).data
    for name, row in data["players"].items():
        assert row == {"track": full["players"][name]["track"], "gate": None, "total": None}


def test_a_full_information_record_still_needs_its_investments() -> None:
    rec = record()
    del rec["investments"]
    with pytest.raises(RecordError) as err:
        GAME.replay(rec)
    assert err.value.field == "investments"
