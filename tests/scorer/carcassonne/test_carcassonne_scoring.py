"""Scoring scenarios: base features, farms, and the Under the Big Top rules with the seed's examples."""

from __future__ import annotations

import pytest

from tests.scorer.carcassonne.carcassonne_helpers import Table, points_of  # type: ignore[import-not-found,unused-ignore]

# -- base game ------------------------------------------------------------------


def test_completed_road_scores_a_point_a_tile_and_returns_the_meeple() -> None:
    table = Table()
    table.play("U@1,0r0 meeple road:E")
    assert table.state.meeples == (6, 7)
    events = table.play("A@-1,0r270", "A@2,0r90")
    assert points_of(events, "road completed", table.players) == {"Red": 4}
    assert table.state.meeples == (7, 7) and table.category("Red", "road") == 4


def test_road_loop_completes() -> None:
    table = Table()
    table.play("V@0,1r270 meeple road:E", "V@1,1r0", "V@0,2r180")
    assert table.score("Red") == 0
    events = table.play("V@1,2r90")
    assert points_of(events, "road completed", table.players) == {"Red": 4}


@pytest.mark.parametrize("tiny, expected", [(4, 4), (2, 2)])
def test_tiny_city_rule_two_tile_city(tiny: int, expected: int) -> None:
    """The 2-tile city scores `tiny_city_points` (DECISIONS.md §5.4.2; default 4, old rules 2)."""
    table = Table(tiny_city_points=tiny)
    events = table.play("E@0,-1r180 meeple city:S")
    assert points_of(events, "city completed", table.players) == {"Red": expected}


def test_three_tile_city_with_pennant_is_not_tiny() -> None:
    table = Table(tiny_city_points=2)
    table.play("U@1,0r0", "U@-1,0r0", "M@0,-1r180 meeple city:E")  # M turned: city south and east
    events = table.play("E@1,-1r270")
    assert points_of(events, "city completed", table.players) == {"Red": 2 * 3 + 2}


def _shared_city(ringmaster_for_red: bool, second_blue: bool) -> Table:
    table = Table()
    red = "ringmaster" if ringmaster_for_red else "meeple"
    table.play(
        "frfr.circus@-1,0r0",
        "U@1,0r0",
        f"E@-1,-1r90 {red} city:E",
        "E@1,-1r270 meeple city:W",
        "ffff.acrobats@-1,-2r0",
        "E@0,-2r180 meeple city:S" if second_blue else "E@0,-2r180",
    )
    return table


def test_city_shared_by_a_tie_scores_in_full_for_both() -> None:
    table = _shared_city(ringmaster_for_red=False, second_blue=False)
    events = table.play("C@0,-1r0")
    # C (pennant) + D + three E: 5 tiles, 1 pennant
    assert points_of(events, "city completed", table.players) == {"Red": 12, "Blue": 12}
    assert table.state.meeples == (7, 7)


def test_ringmaster_that_lost_the_majority_still_gets_its_bonus() -> None:
    """[DECISION] §5.2: +2 per circus/acrobat tile that is the ringmaster's own tile or 8-adjacent, majority or not."""
    table = _shared_city(ringmaster_for_red=True, second_blue=True)
    events = table.play("C@0,-1r0")
    assert points_of(events, "city completed", table.players) == {"Blue": 12}
    # around the ringmaster at -1,-1: the circus at -1,0 and the acrobats at -1,-2
    assert points_of(events, "ringmaster bonus", table.players) == {"Red": 4}
    assert table.state.ringmasters == (True, True)


def test_completed_monastery_scores_nine() -> None:
    table = Table()
    table.play("B@0,1r0 meeple monastery", "U@-1,0r0", "U@1,0r0", "E@-1,1r180", "E@1,1r180", "E@-1,2r0", "B@0,2r0")
    assert table.score("Red") == 0
    events = table.play("E@1,2r0")
    assert points_of(events, "monastery completed", table.players) == {"Red": 9}


def test_incomplete_monastery_scores_one_plus_its_neighbours() -> None:
    table = Table()
    table.play("B@0,1r0 meeple monastery", "U@1,0r0")
    events = table.finish()
    assert points_of(events, "incomplete monastery scored", table.players) == {"Red": 3}


def test_incomplete_road_and_city_at_the_end() -> None:
    table = Table()
    table.play("U@1,0r0 meeple road:E", "M@0,-1r180 meeple city:E")
    events = table.finish()
    assert points_of(events, "incomplete road scored", table.players) == {"Red": 2}
    assert points_of(events, "incomplete city scored", table.players) == {"Blue": 2 + 1}


def test_farm_touching_several_cities_scores_three_per_completed_city() -> None:
    table = Table()
    table.play(
        "U@1,0r0 meeple field:NL",  # Red farms north of the road
        "E@0,-1r180",  # completes D's city (2 tiles)
        "E@1,-1r0",  # a second city, touching the same field
        "E@1,-2r180",  # completes it
        "U@2,0r0",
        "E@2,-1r0",  # a third city on the field, never completed
    )
    events = table.finish()
    assert points_of(events, "farm scored", table.players) == {"Red": 6}


def test_farm_majority_and_tie() -> None:
    table = Table()
    table.play(
        "U@1,0r0 meeple field:NL",  # Red, north of the road
        "U@-1,0r0 meeple field:SL",  # Blue, south of it
        "E@0,-1r180",  # completes D's city
        "A@2,0r90",  # the road ends at A's monastery: its field joins north and south
    )
    events = table.finish()
    # one farm with a farmer each: a tie, 3 each for D's completed city
    assert points_of(events, "farm scored", table.players) == {"Red": 3, "Blue": 3}


# -- Under the Big Top ----------------------------------------------------------------


def _circus_scene() -> Table:
    """Red's three meeples and Blue's two around the Big Top at 0,-1 (a seal)."""
    table = Table(tokens=("seal", "bear"))
    table.play(
        "cfff.circus@0,-1r180 meeple field:NL",  # Red, first circus: the Big Top goes here
        "A@-1,0r270 meeple road:E",  # Blue's road
        "B@1,-1r0 meeple monastery",  # Red
        "B@-1,-1r0 meeple monastery",  # Blue
        "B@0,-2r0 meeple monastery",  # Red
    )
    return table


def test_first_circus_tile_scores_nothing_and_gets_the_big_top() -> None:
    table = Table(tokens=("seal", "bear"))
    events = table.play("cfff.circus@0,-1r180")
    assert events == [] and table.state.big_top is not None
    assert table.state.big_top == ((0, -1), table.state.big_top[1]) and table.state.tokens != ()


def test_seed_examples_road_before_circus_then_seal() -> None:
    """Seed examples 1 and 2: Blue's road 3 and meeple home first; then the seal pays Red 12, Blue 4."""
    table = _circus_scene()
    events = table.play("ffrf.circus@1,0r90")  # Blue completes Blue's road A-D-circus
    whats = [e.what for e in events]
    assert whats.index("road completed") < whats.index("circus scored")
    assert points_of(events, "road completed", table.players) == {"Blue": 3}
    assert points_of(events, "circus scored", table.players) == {"Red": 12, "Blue": 4}
    assert table.state.big_top is not None and table.state.big_top[0] == (1, 0)
    assert [a.value for a in table.state.revealed] == ["seal"]
    # circus scoring leaves the figures where they stand
    assert table.state.meeples == (4, 6)


def test_a_figure_placed_this_turn_counts_in_the_circus_scoring() -> None:
    table = _circus_scene()
    events = table.play("ffrf.circus@-1,-2r180 meeple road:N")  # Blue, beside the Big Top
    assert points_of(events, "circus scored", table.players) == {"Red": 12, "Blue": 12}


def test_circus_at_game_end_reveals_the_token_under_the_big_top() -> None:
    table = _circus_scene()
    table.play("ffrf.circus@1,0r90")  # the Big Top moves to 1,0 on the bear
    events = table.finish()
    # around 1,0: Red's farmer at 0,-1 and monastery at 1,-1; Blue's at -1,-1 is out of range
    assert points_of(events, "final circus scored", table.players) == {"Red": 10}
    assert [a.value for a in table.state.revealed] == ["seal", "bear"]


def test_seed_ringmaster_example_road_five_plus_eight() -> None:
    """Seed: the ringmaster's road scores 5, then 4 circus/acrobat tiles x 2 = 8: 13 in all."""
    table = Table()
    table.play(
        "ffrf.circus@-1,0r270 ringmaster road:E",
        "ffff.acrobats@-1,1r0",
        "ffrr.acrobats@-2,0r0",
        "ffrr.acrobats@-2,1r90",
        "U@1,0r0",
        "U@2,0r0",
    )
    events = table.play("A@3,0r90")
    assert points_of(events, "road completed", table.players) == {"Red": 5}
    assert points_of(events, "ringmaster bonus", table.players) == {"Red": 8}
    assert table.score("Red") == 13 and table.state.ringmasters == (True, True)


def test_decision_ringmaster_bonus_counts_own_tile_and_eight_neighbours() -> None:
    """[DECISION] §5.2 (following JCloisterZone): the ringmaster's own tile and its 8 neighbours, diagonals too."""
    table = Table(["Solo"])
    table.play(
        "ffff.acrobats@0,1r0",
        "U@1,0r0 ringmaster road:E",
        "U@2,0r0",
        "ffrf.acrobats@2,-1r180",
        "ffrr.acrobats@3,0r0",  # two squares from the ringmaster: no bonus
    )
    events = table.finish()
    # around the ringmaster's U at 1,0: the acrobat tiles at 0,1 and 2,-1, both diagonal
    assert points_of(events, "final ringmaster bonus", table.players) == {"Solo": 4}
    assert points_of(events, "incomplete road scored", table.players) == {"Solo": 4}


def test_decision_circus_counts_followers_on_the_big_tops_tile_and_eight_neighbours() -> None:
    """[DECISION] §5.2: the 3x3 block counts farmers, ringmasters and acrobats; two squares away does not."""
    table = Table(tokens=("tiger", "seal"))
    table.play(
        "ffrf.circus@0,1r0",  # the Big Top at 0,1 on the tiger
        "U@1,0r0 ringmaster field:NL",  # Blue, diagonal neighbour
        "ffff.acrobats@-1,1r0 acrobat -1,1",  # Red acrobat, beside it
        "U@2,0r0 meeple road:E",  # Blue, two squares away
    )
    events = table.play("cfff.circus@0,-1r180")
    assert points_of(events, "circus scored", table.players) == {"Red": 6, "Blue": 6}


def test_pyramid_scores_five_an_acrobat_and_returns_them() -> None:
    table = Table()
    table.play(
        "ffff.acrobats@0,1r0 acrobat 0,1",
        "U@1,0r0 acrobat 0,1",
        "U@-1,0r0 acrobat 0,1",
        "U@2,0r0",
        "U@-2,0r0",
    )
    assert table.state.meeples == (5, 6)
    events = table.play("U@3,0r0 score-pyramid 0,1")  # Blue, from far away, with one acrobat in it
    assert points_of(events, "pyramid scored", table.players) == {"Red": 10, "Blue": 5}
    assert table.state.meeples == (7, 7) and (0, 1) not in table.state.acrobats
    # a new pyramid can start on the same tile
    assert table.check("B@1,1r0 acrobat 0,1").is_legal


def test_acrobats_score_five_each_at_the_end_whatever_the_pyramid() -> None:
    table = Table()
    table.play("ffff.acrobats@0,1r0 acrobat 0,1", "U@1,0r0 acrobat 0,1", "U@-1,0r0 acrobat 0,1")
    events = table.finish()
    assert points_of(events, "acrobats scored", table.players) == {"Red": 10, "Blue": 5}


def test_final_categories_add_up_to_the_scores() -> None:
    table = _circus_scene()
    table.play("ffrf.circus@1,0r90")
    table.finish()
    for seat, points in enumerate(table.state.points):
        assert sum(points) == table.state.scores[seat]
    assert table.category("Red", "circus") == 12 + 10 and table.category("Blue", "road") == 3


def test_decision_animal_tokens_values_and_counts() -> None:
    """[DECISION] §5.1/§5.5: elephant 7, tiger 6, bear 5, seal 4, monkey 3, flea 1; counts 1/2/3/5/4/1."""
    from scorer.carcassonne import Animal
    from scorer.carcassonne.engine import all_tokens

    assert {a.value: (a.points, a.count) for a in Animal} == {
        "elephant": (7, 1), "tiger": (6, 2), "bear": (5, 3), "seal": (4, 5), "monkey": (3, 4), "flea": (1, 1),
    }  # fmt: skip
    tokens = all_tokens()
    assert len(tokens) == 16 and sum(a.points for a in tokens) == 67


def test_ringmaster_bonus_ignores_acrobats_and_the_big_top() -> None:
    """[DECISION] §5.2: only circus and acrobat *tiles* count; figures and the Big Top add nothing."""
    table = Table(["Solo"])
    table.play("ffff.acrobats@0,1r0 acrobat 0,1", "U@1,0r0 ringmaster road:E", "U@-1,0r0 acrobat 0,1")
    events = table.finish()
    assert points_of(events, "final ringmaster bonus", table.players) == {"Solo": 2}
