"""The Grand Carnival at the table: the adapter, its panels (golden PNGs), the simulated table and a short night."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from firmware.app import RefereeLoop
from firmware.grand_carnival import CarnivalTable, Sighting, _tent_beyond_places
from firmware.grand_carnival.screens import SeatView, central_view, render_seat, seat_view
from firmware.grand_carnival.simcamera import SimulatedCamera, open_simulated
from firmware.grand_carnival.tablesim import SimulatedTable
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.screens import render_central, render_image
from firmware.table import Seen, adapter
from hardware.display import Panel
from hardware.errors import UnknownBackend
from hardware.fakes import dummy_display
from scorer.core import Verdict
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.model import TENT, Build, CarnivalState, Foundation, Walk
from scorer.grand_carnival.observe import market_of
from vision.grand_carnival.layout import TENT_PLACES
from vision.grand_carnival.scene import frame

GOLDEN = Path(__file__).parent / "golden"
GAME = GrandCarnival()
TABLE = adapter("grand-carnival")
PLAYERS = ["Ann", "Ben"]


def fresh() -> CarnivalTable:
    """An adapter that has seen nothing yet (the registered one remembers wagon rows between tests)."""
    return CarnivalTable()


def public_start(table: CarnivalTable, players: list[str]) -> CarnivalState:
    return table.start_part(players, 1, None, {})[1]


def sighting_of(state: CarnivalState) -> Sighting:
    """What a perfect camera reports of a full-information ``state``."""
    yard = state.railyard.open
    return Sighting(tuple(market_of(b) for b in state.boards), tuple(yard) + (None,) * (4 - len(yard)))


def test_registered_under_its_name_and_alias() -> None:
    assert adapter("carnival") is TABLE and TABLE.game.info.title == "The Grand Carnival"
    assert TABLE.demo_seats == 2


def test_the_referee_starts_with_the_tricks_it_names_and_unseen_open_tiles() -> None:
    header, state, event, hint = fresh().start_part(PLAYERS, 1, None, {})
    assert header["tricks"] == list(state.tricks) and all(t in event for t in state.tricks)
    assert state.railyard.open == (None,) * 4 and hint.startswith("Ann starts")
    _, named, _, _ = fresh().start_part(PLAYERS, 1, None, {"tricks": ["Full House", "Crowd Pleaser", "Shortcut "
                                                                        "Through the Sites"]})
    assert named.tricks == ("Full House", "Crowd Pleaser", "Shortcut Through the Sites")


@pytest.mark.parametrize("seed", [0, 3])
def test_every_move_of_a_game_is_found_from_what_the_table_shows(seed: int) -> None:
    """A whole game through `infer` (a perfect camera): the open tiles refilled face down are learned from the
    wagon row seen with each accepted state, so every foundation names its true space."""
    table = fresh()
    sim = SimulatedTable(["Ann", "Ben", "Cat"], seed=seed)
    state = public_start(table, ["Ann", "Ben", "Cat"])
    refills = 0
    for step in sim.steps():
        if step.scene is None:
            continue
        full = GAME.record_state(sim.record)
        for text in sim.record["moves"]:  # type: ignore[union-attr]
            full, _ = GAME.apply_unchecked(full, GAME.parse_move(full, text))
        found = table.infer(state, sighting_of(full))
        if step.truth is None:
            assert found.seen is Seen.UNCHANGED
            continue
        assert found.seen is Seen.MOVE, found.message
        assert GAME.format_move(state, found.move) == step.truth
        assert not GAME.check(state, found.move).is_illegal
        refills += None in state.railyard.open
        state, _ = GAME.apply_unchecked(state, found.move)
    assert GAME.is_over(state) and GAME.scores(state) == GAME.scores(sim.state)
    assert refills > 0


def test_without_the_wagon_row_seen_a_refilled_tile_is_taken_for_a_stack_tile() -> None:
    """What the memory is for: a forgetful adapter cannot tell that a tile came from a refilled space."""
    sim = SimulatedTable(PLAYERS, seed=0)
    state = public_start(fresh(), PLAYERS)
    full = GAME.record_state(sim.record)
    move = next(m for m in GAME.legal_moves(full) if isinstance(m, Foundation) and m.source == "2")
    after, _ = GAME.apply_unchecked(full, move)
    remembering = fresh()
    assert remembering.infer(state, sighting_of(full)).seen is Seen.UNCHANGED
    assert remembering.infer(state, sighting_of(after)).move == move
    assert fresh().infer(state, sighting_of(after)).move.source != "2"


def test_a_full_tent_counts_on_from_what_left_the_market() -> None:
    sim = SimulatedTable(PLAYERS, seed=0)
    state = GAME.record_state(sim.record)
    board = replace(state.boards[0], tent=TENT_PLACES + 2, entrances=(True, False))
    state = replace(state, boards=(board, *state.boards[1:]))
    walked = replace(market_of(board), tent=TENT_PLACES, entrances=(False, False))
    assert _tent_beyond_places(state, (walked, market_of(state.boards[1])))[0].tent == TENT_PLACES + 3
    still = replace(market_of(board), tent=TENT_PLACES)
    assert _tent_beyond_places(state, (still, market_of(state.boards[1])))[0].tent == TENT_PLACES + 2
    assert Walk(0, 1, 64, TENT).end == TENT


def test_a_camera_view_becomes_a_checked_move() -> None:
    """The recogniser's view of a built attraction, through the adapter's sighting, is the build."""
    sim = SimulatedTable(PLAYERS, seed=2)
    table = fresh()
    state = public_start(table, PLAYERS)
    steps = sim.steps()
    view = table.perceiver().recognize(_frame(next(steps))).view
    assert table.infer(state, table.sighting(view, PLAYERS)).seen is Seen.UNCHANGED
    step = next(steps)
    sighting = table.sighting(table.perceiver().recognize(_frame(step)).view, PLAYERS)
    assert sighting is not None and sighting.unrecognised == ()
    found = table.infer(state, sighting)
    assert found.seen is Seen.MOVE and GAME.format_move(state, found.move) == step.truth


def _frame(step: object) -> object:
    scene = step.scene  # type: ignore[attr-defined]
    return frame(scene.markets, 1280, scene.wagon)


def test_a_build_too_large_is_illegal() -> None:
    state = public_start(fresh(), PLAYERS)
    check = GAME.check(state, Build(0, 1, "I5", 0b11111))
    assert check.is_illegal and check.message


def test_seat_and_central_views() -> None:
    state = public_start(fresh(), PLAYERS)
    assert seat_view(state, 0, GAME.catalog) == SeatView("Ann", seat_view(state, 0, GAME.catalog).score, 1, True,
                                                         (1, 2, 3, 4, 5))
    assert not seat_view(state, 1, GAME.catalog).is_turn
    view = central_view(state, last_event="Ann 3 build L3 b2 b3 c3.", hint="")
    assert view.title == "Round 1 of 7" and view.turn == "Turn: Ann"
    with pytest.raises(IndexError):
        seat_view(state, 2, GAME.catalog)


@pytest.mark.parametrize(("view", "name"), [
    (SeatView("Ann", 12, 3, True, (2, 5), 4), "seat_turn"),
    (SeatView("Ben", -14, 7, False, (), 0), "seat_waiting"),
    (SeatView("Ann", 3, 1, True, warning="That attraction is too large for this number."), "seat_warning"),
])
def test_seat_panels(view: SeatView, name: str, golden_png: Callable[[object, Path], None]) -> None:
    golden_png(render_image(render_seat, view), GOLDEN / f"{name}.png")


def test_central_panel(golden_png: Callable[[object, Path], None]) -> None:
    state = public_start(fresh(), PLAYERS)
    view = central_view(state, last_event="Ben 4 guest in1 b1. Ben puts a ticket on 1 attraction(s).", hint="")
    golden_png(render_image(render_central, view), GOLDEN / "central.png")


def test_open_simulated_refuses_bad_options() -> None:
    with pytest.raises(UnknownBackend, match="1 to 4 players"):
        open_simulated("seats=6")
    with pytest.raises(UnknownBackend, match="use seats=N"):
        open_simulated("hands=2")
    assert len(open_simulated("seats=3,seed=3").table.players) == 3


@pytest.mark.parametrize(("players", "seed"), [(["Ann", "Ben", "Cat"], 5), (["Ann", "Ben"], 2), (["Ann", "Ben", "Cat"], 1)])
def test_the_simulated_players_follow_the_table_conventions(players: list[str], seed: int) -> None:
    sim = SimulatedTable(players, seed=seed)
    state = GAME.record_state(sim.record)
    for step in sim.steps():
        if step.truth is None:
            continue
        move = GAME.parse_move(state, step.truth)
        if isinstance(move, Foundation):
            if move.source == "1b":
                assert not state.railyard.stacks[0]
            if move.source in ("1a", "1b") and not move.discard and move.tile in state.railyard.open:
                instead = replace(move, source=str(state.railyard.open.index(move.tile) + 2))
                seen = GAME.apply_unchecked(state, move)[0].railyard
                assert (GAME.check(state, instead).verdict is not Verdict.LEGAL
                        or GAME.apply_unchecked(state, instead)[0].railyard != seen), "the table reads the open tile"
            elif move.source not in ("1a", "1b"):
                assert state.railyard.open.index(move.tile) == int(move.source) - 2
        state, _ = GAME.apply_unchecked(state, move)
    assert GAME.is_over(state)


def short_night(journal: Journal) -> tuple[SimulatedTable, Referee]:
    """The opening and three moves of a simulated night, seen by the loop through the simulated camera."""
    sim = SimulatedTable(PLAYERS, seed=1)
    camera = SimulatedCamera(sim, still_frames=4)
    referee = Referee.new_game(journal, PLAYERS, table="grand-carnival")
    panels = {name: Panel(dummy_display(), name) for name in [*PLAYERS, "centre"]}
    RefereeLoop(referee, lambda: camera, TABLE.perceiver(), panels, still_frames=3).run(max_frames=4 * 4)
    return sim, referee


def test_a_short_night_is_refereed_through_the_camera(tmp_path: Path) -> None:
    """The loop, the recogniser, the adapter and the referee over the first moves of a simulated night."""
    with Journal.open(tmp_path / "j.db") as journal:
        sim, referee = short_night(journal)
        moves = referee.live.moves()
        assert len(moves) == 3 and moves == sim.record["moves"][:3]  # type: ignore[index]
        assert referee.mode is Mode.PLAYING and referee.central().turn == "Turn: Ben"


def test_every_illegal_attempt_is_refused_and_the_game_still_agrees(tmp_path: Path) -> None:
    """A whole night with an illegal attempt every third move, seen by a perfect camera, through the referee."""
    sim = SimulatedTable(PLAYERS, seed=4, illegal_every=3)
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=fresh())
        refused = 0
        for step in sim.steps():
            if step.scene is None:
                continue
            wagon = step.scene.wagon.open
            logged = len(referee.log)
            referee.see(Sighting(tuple(market_of(m.board) for m in step.scene.markets), wagon))
            if step.expect_illegal:
                assert referee.mode is Mode.ILLEGAL and referee.log[logged].startswith("illegal ")
                refused += 1
            else:
                assert referee.mode in (Mode.PLAYING, Mode.PART_OVER), referee.hint
        assert refused == sim.illegal_attempts > 3
        assert referee.live.moves() == sim.record["moves"]
        assert referee.mode is Mode.PART_OVER


def test_the_demo_refuses_a_table_the_game_cannot_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.cli import main

    assert main(["demo", "--game", "grand-carnival", "--seats", "5", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "The Grand Carnival is for 1 to 4 players, not 5" in err and err.count("\n") == 1


def test_a_table_record_says_which_component_values_it_was_played_with(tmp_path: Path) -> None:
    """The exported record carries the values, so it replays the same after the shipped ones change."""
    with Journal.open(tmp_path / "j.db") as journal:
        short_night(journal)
        record = journal.export()
    assert record["components"] == GAME.components and len(record["moves"]) == 3
    edited = {**record, "components": {**record["components"], "market": {"empty_parcel_hammers": 3}}}
    assert GAME.replay(record).data != GAME.replay(edited).data
