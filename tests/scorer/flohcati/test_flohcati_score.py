"""End-of-game scoring (`ringside score flohcati FILE`) and the bust probability."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from scorer.core import RecordError, UnknownComponent
from scorer.flohcati import Flea, Phase, bust_probability, hand_points
from tests.scorer.flohcati.flohcati_helpers import GAME, F, play, stacked  # type: ignore[import-not-found]

#: DECISIONS.md §3.3: two trios; six colours scoring 6+4+0+7+5+5; three duplicates.
SEED_POSITION: dict[str, Any] = {
    "game": "flohcati",
    "players": {
        "Ann": {
            "trios": [["purple-1", "pink-1", "brown-1"], ["purple-2", "pink-2", "grey-2"]],
            "hand": ["red-6", "orange-4", "yellow-0", "green-7", "teal-5", "blue-5",
                     "red-1", "green-3", "teal-2"],
        }
    },
}


def test_seed_example_scores_47() -> None:
    """§3.3: 20 for two trios + 27 for the hand (a 0 still counts as a colour) = 47."""
    report = GAME.score_position(SEED_POSITION)
    ann = report.data["players"]["Ann"]
    assert (ann["trio_points"], ann["hand_points"], ann["total"]) == (20, 27, 47)
    assert ann["colours"] == {"red": 6, "orange": 4, "yellow": 0, "green": 7, "teal": 5, "blue": 5}
    assert report.data["winners"] == ["Ann"] and not report.illegal
    assert "47" in report.text


def test_position_ties_share_and_gala_bonus() -> None:
    """Ties share the victory; gala_bonus goes to ended_by when they hold all ten colours."""
    ten = ["red-0", "orange-0", "yellow-0", "green-0", "teal-0", "blue-0", "purple-0",
           "pink-0", "brown-0", "grey-0"]
    position = {
        "players": {"Ann": {"hand": ten}, "Ben": {"hand": ["red-5", "red-7"], "trios": []},
                    "Cat": {"hand": ["blue-7"]}},
    }
    report = GAME.score_position(position)
    assert report.data["scores"] == {"Ann": 0, "Ben": 7, "Cat": 7}
    assert report.data["winners"] == ["Ben", "Cat"]
    report = GAME.score_position({**position, "gala_bonus": 10, "ended_by": "Ann"})
    assert report.data["scores"]["Ann"] == 10 and report.data["players"]["Ann"]["gala"] == 10


def _bad(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(SEED_POSITION)
    change(data)
    return data


@pytest.mark.parametrize(
    "change, field, kind",
    [
        (lambda d: d.pop("players"), "players", RecordError),
        (lambda d: d.update(players=[]), "players", RecordError),
        (lambda d: d["players"].update(Ann="cards"), "players.Ann", RecordError),
        (lambda d: d["players"]["Ann"].update(hand="red-1"), "players.Ann.hand", RecordError),
        (lambda d: d["players"]["Ann"]["hand"].append("violet-3"), "players.Ann.hand[9]", UnknownComponent),
        (lambda d: d["players"]["Ann"]["hand"].append("take-attraction"), "players.Ann.hand[9]", UnknownComponent),
        (lambda d: d["players"]["Ann"]["hand"].append(3), "players.Ann.hand[9]", RecordError),
        (lambda d: d["players"]["Ann"]["trios"].append(["red-3", "blue-3"]), "players.Ann.trios[2]", RecordError),
        (lambda d: d["players"]["Ann"]["trios"].append(["red-3", "blue-3", "grey-4"]), "players.Ann.trios[2]", RecordError),
        (lambda d: d["players"]["Ann"]["hand"].append("pink-1"), "players", RecordError),
        (lambda d: d.update(ended_by="Zed"), "ended_by", RecordError),
        (lambda d: d.update(ended_by="Ann"), "ended_by", RecordError),
        (lambda d: d.update(gala_bonus="ten"), "gala_bonus", RecordError),
        (lambda d: d.update(game="bigtop"), "game", RecordError),
    ],
)
def test_bad_positions_name_the_field(change: Any, field: str, kind: type) -> None:
    """An invalid position raises RecordError (exit 2) with one line naming the field."""
    with pytest.raises(kind) as info:
        GAME.score_position(_bad(change))
    assert info.value.field == field  # type: ignore[attr-defined]
    assert "\n" not in str(info.value)


def _counted(state: Any) -> Fraction:
    """Bust chance by looking at the real stack (full information), for comparison."""
    colours = {c.colour for c in state.display}
    busting = sum(1 for c in state.stack if isinstance(c, Flea) and c.colour in colours)
    return Fraction(busting, len(state.stack))


def test_bust_probability_is_exact() -> None:
    """With red and blue in the row, 7 reds and 7 blues remain among 87 unseen cards."""
    state = play(stacked("red-1", "blue-2"), "turn", "turn")
    assert bust_probability(state) == Fraction(14, 87) == _counted(state)
    public = play(GAME.public_state(["Ann", "Ben", "Cat"]), "turn red-1", "turn blue-2")
    assert bust_probability(public) == Fraction(14, 87)


def test_bust_probability_counts_only_unseen_cards() -> None:
    """Cards already taken or discarded are not in the stack and do not count."""
    state = play(stacked("red-1", "red-2", "blue-1", "blue-2"), "turn", "turn")  # red-2 busts
    state = play(state, "take red-1", "turn")  # Ben takes red-1, Cat turns blue-1
    assert state.display == (F("blue-1"),) and state.turn == 2
    assert bust_probability(state) == Fraction(7, 86) == _counted(state)


def test_bust_probability_matches_the_stack_along_random_games() -> None:
    """Along random games the public count equals counting the hidden stack itself."""
    rng = random.Random(3)
    for _ in range(3):
        state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
        while not GAME.is_over(state):
            if state.phase is Phase.TURNING and not state.attraction and len(state.stack) > 1:
                assert bust_probability(state) == _counted(state)
            state, _ = GAME.apply_unchecked(state, GAME.random_move(state, rng))


def test_no_bust_under_new_attraction_or_on_the_last_card() -> None:
    """New attraction in force: a repeat can't bust; the last card ends the game instead."""
    state = play(stacked("red-1", "new-attraction"), "turn", "turn")
    assert bust_probability(state) == 0
    last = replace(play(stacked("red-1"), "turn"), stack=(F("red-2"),), unseen=frozenset({F("red-2")}))
    assert bust_probability(last) == 0


def test_hand_points_keeps_the_highest_of_each_colour() -> None:
    """Only the highest card of each colour scores; a 0 adds nothing but is a colour."""
    assert hand_points([F("red-6"), F("red-7"), F("blue-0"), F("blue-3"), None]) == 10
