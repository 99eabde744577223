"""Tile placement and figure legality; every `Reason` with its sentence."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scorer.carcassonne import Discard, Figure, Placement, Reason, Spot
from scorer.carcassonne.catalog import Kind
from scorer.core import IllegalMove, Verdict
from tests.scorer.carcassonne.carcassonne_helpers import GAME, Table  # type: ignore[import-not-found,unused-ignore]


def _illegal(table: Table, text: str, reason: Reason, *words: str) -> str:
    verdict = table.check(text)
    assert verdict.verdict is Verdict.ILLEGAL and verdict.reason is reason, verdict
    for word in words:
        assert word in verdict.message, verdict.message
    with pytest.raises(IllegalMove) as err:
        table.play(text)
    assert err.value.reason is reason and str(err.value) == verdict.message
    return verdict.message


# -- tiles -------------------------------------------------------------------


def test_edge_mismatch_names_the_edge_and_what_the_neighbour_shows() -> None:
    table = Table()
    table.play("U@1,0r0", "E@1,-1r270")  # E turned: its city faces west
    message = _illegal(table, "U@0,-1r0", Reason.EDGE_MISMATCH)
    assert message == "The east edge is a road but the tile beside it shows a city there."


def test_occupied_square_and_detached_tile() -> None:
    table = Table()
    _illegal(table, "U@0,0r0", Reason.OCCUPIED, "already a tile at 0,0")
    _illegal(table, "B@3,3r0", Reason.NOT_ADJACENT, "3,3 touches no tile")
    _illegal(table, "B@1,1r0", Reason.NOT_ADJACENT)  # a corner is not an edge


def test_a_tile_beyond_its_count_in_the_box() -> None:
    table = Table()
    table.play("X@1,0r0")
    _illegal(table, "X@-1,0r0", Reason.TILE_NOT_AVAILABLE, "All 1 X tile")
    base = Table(expansion=False)
    _illegal(base, "ffrf.circus@0,1r0", Reason.TILE_NOT_AVAILABLE, "Under the Big Top")


def test_legal_placements_list_every_square_and_rotation() -> None:
    table = Table()
    # around the start tile D alone: B (all fields) fits only south of it, in any rotation
    assert GAME.placements(table.state, "B") == [((0, 1), r) for r in (0, 90, 180, 270)]
    # X (four roads) fits east and west, where D's road ends
    assert GAME.placements(table.state, "X") == [((-1, 0), r) for r in (0, 90, 180, 270)] + [
        ((1, 0), r) for r in (0, 90, 180, 270)
    ]
    for pos, rotation in GAME.placements(table.state, "V"):
        assert table.check(f"V@{pos[0]},{pos[1]}r{rotation}").is_legal


def test_the_drawn_tile_must_be_the_one_placed() -> None:
    state = GAME.new_state(["Red", "Blue"], random.Random(3), stack=["U", "V"])
    move = Placement("V", (1, 0), 0)
    verdict = GAME.check(state, move)
    assert verdict.reason is Reason.NOT_DRAWN and verdict.message == "The tile drawn is U, not V."
    assert all(m.tile == "U" for m in GAME.legal_moves(state))


def test_an_unplaceable_tile_is_discarded_and_another_drawn() -> None:
    # Start on C (a city on every side): B (fields only) fits nowhere.
    state = GAME.new_state(["Red"], random.Random(1), start="C", stack=["B", "E", "X"], expansions=[])
    assert state.discarded == ("B",) and state.current_tile == "E"
    state, _ = GAME.play(state, Placement("E", (0, -1), 180))
    # X (roads on every side) fits nowhere either; it was the last tile, so the game ends
    assert state.finished and state.discarded == ("B", "X")
    assert len(state.tiles) + len(state.discarded) == 4


def test_a_discard_in_a_record_only_when_the_tile_fits_nowhere() -> None:
    table = Table(start="C", expansion=False)
    assert table.check("B discard").is_legal
    message = _illegal(table, "E discard", Reason.TILE_FITS, "must be placed")
    assert "fits on the board" in message
    full = GAME.new_state(["Red"], random.Random(2), stack=["U"])
    assert GAME.check(full, Discard("V")).reason is Reason.NOT_DRAWN


def test_no_move_after_the_game_is_over() -> None:
    state = GAME.new_state(["Red"], random.Random(1), stack=["U"])
    state, _ = GAME.play(state, Placement("U", (1, 0), 0))
    assert state.finished and GAME.legal_moves(state) == []
    verdict = GAME.check(state, Placement("U", (2, 0), 0))
    assert verdict.reason is Reason.GAME_OVER and "game is over" in verdict.message


def test_malformed_move_values_are_illegal_not_errors() -> None:
    table = Table()
    for move in (Placement("U", (1, 0), 45), Placement("ZZ", (1, 0), 0), Placement("U", (1,), 0)):  # type: ignore[arg-type]
        verdict = GAME.check(table.state, move)
        assert verdict.reason is Reason.MALFORMED and "rotation of 0, 90, 180 or 270" in verdict.message
    assert GAME.check(table.state, "U@1,0r0").reason is Reason.MALFORMED  # type: ignore[arg-type]
    assert not GAME.is_legal(table.state, None)  # type: ignore[arg-type]


# -- figures -----------------------------------------------------------------


def test_a_figure_only_on_a_feature_of_the_tile() -> None:
    table = Table()
    _illegal(table, "U@1,0r0 meeple city:N", Reason.NO_SUCH_FEATURE, "no city on its north edge")
    _illegal(table, "U@1,0r0 meeple monastery", Reason.NO_SUCH_FEATURE, "no monastery")
    _illegal(table, "U@1,0r0 meeple circus", Reason.NO_SUCH_FEATURE, "no circus space")
    _illegal(table, "E@0,-1r180 meeple field:SL", Reason.NO_SUCH_FEATURE, "half-edge SL")


def test_no_figure_on_a_feature_already_occupied_anywhere() -> None:
    table = Table()
    table.play("U@1,0r0 meeple road:E")
    _illegal(table, "U@2,0r0 meeple road:W", Reason.FEATURE_OCCUPIED, "already has a figure on it (Red's meeple at 1,0)")
    # the field north of the road is free, and joins D's northern field
    assert table.check("U@2,0r0 meeple field:NL").is_legal
    table.play("U@2,0r0 meeple field:NL")
    _illegal(table, "U@-1,0r0 meeple field:NL", Reason.FEATURE_OCCUPIED)
    assert table.check("U@-1,0r0 meeple field:SL").is_legal


def test_a_field_joined_through_any_edge_is_occupied() -> None:
    # Red farms south of the road; B south of D touches that field on its north and
    # east edges (through U), so only B's monastery is free for a figure.
    table = Table()
    table.play("U@1,0r0 meeple field:SL", "B@0,1r0")
    free = {m.spot for m in GAME.legal_moves(table.state) if isinstance(m, Placement)
            and m.tile == "B" and m.figure is Figure.MEEPLE and m.at == (1, 1)}  # fmt: skip
    assert free == {Spot(Kind.MONASTERY)}
    _illegal(table, "B@1,1r0 meeple field:NL", Reason.FEATURE_OCCUPIED, "field")


def test_the_eighth_meeple_is_refused() -> None:
    table = Table(["Solo"])
    table.play(
        "U@1,0r0 meeple road:E",
        "U@-1,0r0 meeple field:NL",
        "U@2,0r0 meeple field:SL",
        "B@0,1r0 meeple monastery",
        "B@1,1r0 meeple monastery",
        "B@2,1r0 meeple monastery",
        "B@-1,1r0 meeple monastery",
    )
    assert table.state.meeples == (0,)
    _illegal(table, "A@3,1r0 meeple monastery", Reason.NO_MEEPLE, "All 7 of your meeples")
    assert table.check("A@3,1r0").is_legal


def test_one_ringmaster_a_player() -> None:
    table = Table(["Solo"])
    table.play("U@1,0r0 ringmaster road:E")
    _illegal(table, "U@-1,0r0 ringmaster road:W", Reason.NO_RINGMASTER, "only one")
    assert table.check("U@-1,0r0 meeple field:NL").is_legal


def test_no_ringmaster_acrobat_or_pyramid_without_the_expansion() -> None:
    table = Table(expansion=False)
    _illegal(table, "U@1,0r0 ringmaster road:E", Reason.NO_EXPANSION, "Under the Big Top")
    _illegal(table, "U@1,0r0 acrobat 1,0", Reason.NO_EXPANSION, "Acrobats")
    _illegal(table, "U@1,0r0 score-pyramid 1,0", Reason.NO_EXPANSION, "pyramids")
    assert all(m.figure in (None, Figure.MEEPLE) for m in GAME.legal_moves(table.state) if isinstance(m, Placement))


def test_no_figure_on_the_circus_space() -> None:
    table = Table()
    _illegal(table, "ffrf.circus@0,1r0 meeple circus", Reason.CIRCUS_SPACE, "circus space")
    _illegal(table, "ffrf.circus@0,1r0 ringmaster circus", Reason.CIRCUS_SPACE)
    spots = {m.spot for m in GAME.legal_moves(table.state) if isinstance(m, Placement) and m.spot}
    assert all(s.kind is not Kind.CIRCUS for s in spots)


def test_acrobats_on_the_new_tile_or_its_eight_neighbours() -> None:
    table = Table()
    table.play("ffff.acrobats@0,1r0 acrobat 0,1")
    _illegal(table, "U@1,0r0 acrobat 0,0", Reason.NOT_ACROBAT_TILE, "no acrobat space")
    _illegal(table, "U@1,0r0 ringmaster 0,1", Reason.RINGMASTER_ACROBAT, "never be an acrobat")
    table.play("U@1,0r0 acrobat 0,1")  # diagonal neighbour
    table.play("U@2,0r0")
    _illegal(table, "U@3,0r0 acrobat 0,1", Reason.OUT_OF_REACH, "too far")
    table.play("U@-1,0r0 acrobat 0,1")
    assert table.state.acrobats[(0, 1)] == (0, 1, 1)
    _illegal(table, "B@1,1r0 acrobat 0,1", Reason.PYRAMID_FULL, "already has three")


def test_score_pyramid_needs_three_acrobats() -> None:
    table = Table()
    table.play("ffff.acrobats@0,1r0 acrobat 0,1")
    _illegal(table, "U@1,0r0 score-pyramid 0,1", Reason.PYRAMID_INCOMPLETE, "has 1 acrobat;")
    _illegal(table, "U@1,0r0 score-pyramid 5,5", Reason.PYRAMID_INCOMPLETE, "has 0 acrobats")


def test_every_legal_move_checks_legal_and_round_trips() -> None:
    table = Table()
    table.play("ffff.acrobats@0,1r0 acrobat 0,1", "U@1,0r0 ringmaster road:E")
    for move in GAME.legal_moves(table.state):
        assert GAME.check(table.state, move).is_legal
        assert GAME.parse_move(table.state, GAME.format_move(table.state, move)) == move


def _drawn_state(stack: list[str]) -> object:
    return GAME.new_state(["Red", "Blue"], random.Random(0), stack=stack)


#: For every reason: the moves that set the scene (public draws), the move, a phrase of its sentence.
EVERY_REASON: list[tuple[Reason, tuple[str, ...], str, str]] = [
    (Reason.MALFORMED, (), "", "rotation of 0, 90, 180 or 270"),
    (Reason.NOT_DRAWN, (), "", "The tile drawn is"),
    (Reason.GAME_OVER, (), "", "The game is over"),
    (Reason.TILE_NOT_AVAILABLE, ("X@1,0r0",), "X@-1,0r0", "already drawn"),
    (Reason.OCCUPIED, (), "U@0,0r0", "already a tile"),
    (Reason.NOT_ADJACENT, (), "U@4,4r0", "touches no tile"),
    (Reason.EDGE_MISMATCH, (), "U@0,-1r0", "The south edge is a field but the tile beside it shows a city there."),
    (Reason.TILE_FITS, (), "U discard", "must be placed"),
    (Reason.NO_SUCH_FEATURE, (), "U@1,0r0 meeple city:S", "no city on its south edge"),
    (Reason.FEATURE_OCCUPIED, ("U@1,0r0 meeple road:E",), "U@-1,0r0 ringmaster road:E", "nobody occupies"),
    (Reason.NO_MEEPLE, (), "", "none left"),
    (Reason.NO_RINGMASTER, ("U@1,0r0 ringmaster road:E", "U@2,0r0"), "U@3,0r0 ringmaster field:NL", "only one"),
    (Reason.NO_EXPANSION, (), "", "Under the Big Top"),
    (Reason.CIRCUS_SPACE, (), "frrf.circus@0,1r0 meeple circus", "circus space"),
    (Reason.RINGMASTER_ACROBAT, (), "ffrf.acrobats@0,1r0 ringmaster 0,1", "never be an acrobat"),
    (Reason.NOT_ACROBAT_TILE, (), "U@1,0r0 acrobat 1,0", "no acrobat space"),
    (Reason.OUT_OF_REACH, ("ffff.acrobats@0,1r0", "U@1,0r0"), "U@2,0r0 acrobat 0,1", "too far"),
    (Reason.PYRAMID_FULL, ("ffff.acrobats@0,1r0 acrobat 0,1", "U@1,0r0 acrobat 0,1", "U@-1,0r0 acrobat 0,1"),
     "B@1,1r0 acrobat 0,1", "complete"),
    (Reason.PYRAMID_INCOMPLETE, (), "U@1,0r0 score-pyramid 1,0", "only a complete pyramid"),
]  # fmt: skip


def test_every_reason_is_covered_by_the_table() -> None:
    assert {reason for reason, *_ in EVERY_REASON} == set(Reason)


@pytest.mark.parametrize("reason, scene, text, phrase", EVERY_REASON, ids=[r.name for r, *_ in EVERY_REASON])
def test_every_reason_comes_with_a_sentence(reason: Reason, scene: tuple[str, ...], text: str, phrase: str) -> None:
    table = Table(["Red", "Blue"], expansion=reason is not Reason.NO_EXPANSION)
    table.play(*scene)
    if reason is Reason.MALFORMED:
        verdict = GAME.check(table.state, Placement("U", (1, 0), 45))
    elif reason is Reason.NOT_DRAWN:
        verdict = GAME.check(_drawn_state(["U", "V"]), Placement("V", (1, 0), 0))  # type: ignore[arg-type]
    elif reason is Reason.GAME_OVER:
        table.finish()
        verdict = table.check("U@1,0r0")
    elif reason is Reason.NO_MEEPLE:
        table = Table(["Red"])
        table.state = replace(table.state, meeples=(0,))
        verdict = table.check("U@1,0r0 meeple road:E")
    elif reason is Reason.NO_EXPANSION:
        verdict = table.check("U@1,0r0 ringmaster road:E")
    else:
        verdict = table.check(text)
    assert verdict.verdict is Verdict.ILLEGAL and verdict.reason is reason
    assert phrase in verdict.message and verdict.message.endswith(".") and verdict.message[0].isupper()
