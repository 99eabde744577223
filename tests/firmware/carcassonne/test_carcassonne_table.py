"""Carcassonne at the table: turns found from the board, illegal placements held, figures taken back, the hint,
the panels (golden PNGs) and a short night through the camera."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware.app import RefereeLoop
from firmware.carcassonne import CarcassonneTable, Sighting, where_it_fits
from firmware.carcassonne.screens import SeatView, central_view, render_seat, seat_view
from firmware.carcassonne.simcamera import SimulatedCamera, open_simulated
from firmware.carcassonne.tablesim import SimulatedTable, laid_scene, scene_of
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.screens import render_central, render_image
from firmware.table import Seen, adapter
from hardware.buttons import ButtonEvent, Gesture
from hardware.display import Panel
from hardware.errors import UnknownBackend
from hardware.fakes import dummy_display
from scorer.carcassonne import Carcassonne, Figure, Placement
from scorer.carcassonne.catalog import Kind
from scorer.carcassonne.engine import initial_state
from scorer.carcassonne.model import Animal, Spot, State
from scorer.carcassonne.observe import COLORS, SeenBoard, board_of

GOLDEN = Path(__file__).parent / "golden"
GAME = Carcassonne()
TABLE = adapter("carcassonne")
PLAYERS = ["Ann", "Ben"]


def start(tokens: list[Animal] | None = None) -> State:
    """The live referee's first state: the start tile, the draws unknown."""
    return initial_state(PLAYERS, True, 4, "D", None, tokens or list(Animal))


def seen(state: State, *extra: tuple[int, int, str, str, str], hint: str | None = None) -> Sighting:
    """What a perfect camera reports of ``state``, with ``extra`` figures."""
    board = board_of(state)
    return Sighting(SeenBoard(board.tiles, tuple(sorted(board.figures + extra))), hint)


def laid(state: State, tile: str, at: tuple[int, int], rotation: int, *figures: tuple[int, int, str, str, str],
         hint: str | None = None) -> Sighting:
    """``state``'s board with one more tile (any tile, legal or not) and figures on it."""
    board = board_of(state)
    return Sighting(SeenBoard(tuple(sorted(board.tiles + ((*at, tile, rotation),))),
                              tuple(sorted(board.figures + figures))), hint)


def play(referee: Referee, sighting: Sighting) -> None:
    referee.see(sighting)


def test_registered_and_panels_show_score_figures_and_tiles_left() -> None:
    assert isinstance(TABLE, CarcassonneTable) and TABLE.game.info.title == "Carcassonne"
    state = start()
    assert seat_view(state, 0) == SeatView("Ann", "red", 0, True, 7, True)
    view = central_view(state, last_event="", hint="")
    assert view.title == "91 tiles left" and view.turn == "Turn: Ann (red)"
    with pytest.raises(IndexError):
        seat_view(state, 2)


def test_a_tile_and_its_meeple_are_found_and_checked() -> None:
    state = start()
    assert TABLE.infer(state, seen(state)).seen is Seen.UNCHANGED
    # V turned 90 east of the start tile's road: the road runs on west-south; a red meeple on it
    found = TABLE.infer(state, laid(state, "V", (1, 0), 90, (1, 0, "meeple", "red", "road:W")))
    assert found.seen is Seen.MOVE
    assert found.move == Placement("V", (1, 0), 90, Figure.MEEPLE, Spot(Kind.ROAD, "N"))  # its road's name
    assert not GAME.check(state, found.move).is_illegal


def test_a_board_seen_turned_and_shifted_lines_up_with_the_game() -> None:
    """The camera's cells have their own origin, and the board may lie turned under it."""
    state = start()
    move = Placement("V", (1, 0), 90, Figure.MEEPLE, Spot(Kind.ROAD, "N"))
    after, _ = GAME.apply_unchecked(state, move)
    board = board_of(after)
    # turned a quarter clockwise (x, y) -> (-y, x), moved by (5, 3); every tile's rotation grows by 90
    turned = tuple((-y + 5, x + 3, n, (r + 90) % 360) for x, y, n, r in board.tiles)
    spot = {"road:N": "road:E"}
    figures = tuple((-y + 5, x + 3, f, c, spot[s]) for x, y, f, c, s in board.figures)
    assert TABLE.infer(state, Sighting(SeenBoard(turned, figures))).move == move


def test_an_illegal_placement_is_held_with_its_reason_and_never_recorded(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=CarcassonneTable())
        state = referee.state
        # V turned by a half east of the start tile: its west edge is a field, the start tile's east edge a road
        referee.see(laid(state, "V", (1, 0), 180))
        assert referee.mode is Mode.ILLEGAL
        assert referee.warnings[0] == "The west edge is a field but the tile beside it shows a road there."
        assert referee.live.moves() == [] and referee.log[-1].startswith("illegal Ann V@1,0r180")
        referee.see(seen(state))
        assert referee.mode is Mode.PLAYING and referee.last_event == "The table is back as it was."
        assert referee.live.moves() == []


def test_a_meeple_on_an_occupied_road_is_illegal(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=CarcassonneTable())
        referee.see(laid(referee.state, "V", (1, 0), 90, (1, 0, "meeple", "red", "road:W")))
        assert referee.mode is Mode.PLAYING and len(referee.live.moves()) == 1
        # Ben's U west of the start tile carries the same road on: a blue meeple there joins Ann's road
        referee.see(laid(referee.state, "U", (-1, 0), 0, (-1, 0, "meeple", "blue", "road:E")))
        assert referee.mode is Mode.ILLEGAL and "already has a figure on it (Ann's meeple at 1,0)" in referee.warnings[1]
        assert len(referee.live.moves()) == 1


def test_a_completed_city_is_scored_and_the_panel_says_who_takes_back_which_figure(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=CarcassonneTable())
        # E (a city cap) north of the start tile, turned to face it: a two-tile city, Ann's meeple on it
        referee.see(laid(referee.state, "E", (0, -1), 180, (0, -1, "meeple", "red", "city:S")))
        assert referee.mode is Mode.PLAYING, referee.hint
        assert "Take back: Ann's meeple at 0,-1." in referee.last_event
        assert referee.state.scores[0] == 4 and referee.state.meeples[0] == 7
        assert seat_view(referee.state, 0).score == 4
        # the meeple still standing on the scored city is waiting to be taken back: nothing to judge
        still = laid(referee.state, "V", (5, 5), 0)  # a board with a stray tile would be a question ...
        assert TABLE.infer(referee.state, seen(referee.state, (0, -1, "meeple", "red", "city:S"))).seen is Seen.UNCHANGED
        assert TABLE.infer(referee.state, still).seen is Seen.MOVE  # ... or a move the engine refuses
        assert GAME.check(referee.state, TABLE.infer(referee.state, still).move).is_illegal


def test_an_unsure_tile_is_a_question_never_a_guess() -> None:
    state = start()
    board = board_of(state)
    unsure = Sighting(SeenBoard(board.tiles, (), ((1, 0, "V", 90),)))
    found = TABLE.infer(state, unsure)
    assert found.seen is Seen.UNEXPLAINED and "cannot be read for sure (it looks like V)" in found.message


def test_two_new_tiles_and_a_figure_of_the_wrong_colour_are_questions() -> None:
    state = start()
    board = board_of(state)
    two = Sighting(SeenBoard(board.tiles + ((1, 0, "V", 90), (-1, 0, "U", 90))))
    assert "lay one tile a turn" in TABLE.infer(state, two).message
    blue = TABLE.infer(state, laid(state, "V", (1, 0), 90, (1, 0, "meeple", "blue", "road:W")))
    assert blue.seen is Seen.UNEXPLAINED and "Ann's turn (red)" in blue.message


def test_the_hint_zone_tile_and_a_held_button_show_where_it_fits(tmp_path: Path) -> None:
    state = start()
    places = where_it_fits(state, "E")
    assert places[0] == ((0, -1), [180], 4)  # closing the start tile's city is worth most
    assert TABLE.teach(state, 0, Sighting(board_of(state), "E"), False).startswith("E fits: 0,-1 r180 +4")
    assert "Show the tile" in TABLE.teach(state, 0, Sighting(board_of(state), None), False)
    assert "cannot be read" in TABLE.teach(state, 0, Sighting(board_of(state), "?"), False)
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=CarcassonneTable())
        referee.see(seen(referee.state, hint="E"))
        referee.press(ButtonEvent(Gesture.HOLD, seat=0))
        assert referee.hint.startswith("E fits: 0,-1 r180 +4")
        # a short press sets the shown tile aside: the rules refuse, as E fits
        referee.press(ButtonEvent(Gesture.PRESS, seat=0))
        assert "must be placed, not set aside" in referee.warnings[0] and referee.live.moves() == []


def test_a_whole_game_seen_by_a_perfect_camera_agrees_with_the_truth(tmp_path: Path) -> None:
    """Every turn, every illegal attempt, the discards, the end; the journal's record is in the RECORDS.md form."""
    table = CarcassonneTable()
    night = table.simulated_night(PLAYERS, 1, 3, 6)
    sim = night.table  # type: ignore[attr-defined]
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=table)
        refused = 0
        for step in sim.steps():
            if step.button is not None:
                referee.press(step.button)
                continue
            if step.frames is not None and step.frames < 3:
                continue  # a glimpse, too short for the referee to judge
            scene = step.scene
            figures = tuple(sorted((f.x, f.y, f.figure, f.color, f.feature) for f in scene.figures for _ in range(f.count)))
            referee.see(Sighting(SeenBoard(scene.tiles, figures), scene.hint))
            if step.expect_illegal:
                assert referee.mode is Mode.ILLEGAL
                refused += 1
            else:
                assert referee.mode in (Mode.PLAYING, Mode.PART_OVER), referee.hint
        assert refused == sim.illegal_attempts > 3
        assert referee.mode is Mode.GAME_OVER
        record = journal.export()
        assert isinstance(record["moves"][0], dict) and record["animal_tokens"] == sim.record["animal_tokens"]
        assert table.differences(record, sim.record) == []


@pytest.mark.parametrize(("view", "name"), [
    (SeatView("Ann", "red", 12, True, 5, True), "seat_turn"),
    (SeatView("Ben", "blue", 7, False, 0, False), "seat_waiting"),
    (SeatView("Ann", "red", 3, True, 6, True, warning="The west edge is a field but the tile beside it shows a road "
                                                       "there."), "seat_warning"),
])
def test_seat_panels(view: SeatView, name: str, golden_png: Callable[[object, Path], None]) -> None:
    golden_png(render_image(render_seat, view), GOLDEN / f"{name}.png")


def test_central_panel(golden_png: Callable[[object, Path], None]) -> None:
    view = central_view(start(), last_event="Ann E@0,-1r180 meeple city:S. Ann scores 4 for a city of 2 tiles. "
                                            "Take back: Ann's meeple at 0,-1.", hint="")
    golden_png(render_image(render_central, view), GOLDEN / "central.png")


def test_open_simulated_refuses_bad_options() -> None:
    with pytest.raises(UnknownBackend, match="1 to 6 players"):
        open_simulated("seats=7")
    with pytest.raises(UnknownBackend, match="use seats=N"):
        open_simulated("hands=2")


def test_a_short_night_is_refereed_through_the_camera(tmp_path: Path) -> None:
    """The loop, the live recogniser, the adapter and the referee over the first turns of a simulated night."""
    table = CarcassonneTable()
    sim = SimulatedTable(PLAYERS, seed=1, tiles=3)
    table.next_tokens = [Animal(a) for a in sim.record["animal_tokens"]]
    camera = SimulatedCamera(sim, still_frames=4)
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=table)
        panels = {name: Panel(dummy_display(), name) for name in [*PLAYERS, "centre"]}
        loop = RefereeLoop(referee, lambda: camera, table.perceiver(), panels, still_frames=3)
        loop.run()
        moves = journal.export()["moves"]
        assert moves == sim.record["moves"] and len(moves) == 2, referee.log
        assert referee.mode is Mode.PLAYING


def test_random_turns_of_a_random_game_are_found_back() -> None:
    """`infer` finds every random turn of several games from what a perfect camera shows after it."""
    for seed in range(3):
        state = GAME.new_state(PLAYERS, random.Random(seed))
        for _ in range(25):
            moves = GAME.legal_moves(state)
            move = moves[random.Random(seed).randrange(len(moves))]
            after, _ = GAME.apply_unchecked(state, move)
            shown = laid_scene(state, move)  # as laid, before what it scored is taken back
            figures = tuple(sorted((f.x, f.y, f.figure, f.color, f.feature) for f in shown.figures for _ in range(f.count)))
            found = TABLE.infer(state, Sighting(SeenBoard(shown.tiles, figures, (), COLORS)))
            assert found.seen is Seen.MOVE and found.move is not None
            assert GAME.apply_unchecked(state, found.move)[0].scores == after.scores
            state = after


def test_a_second_ringmaster_is_read_as_a_meeple_and_an_unseen_figure_stays() -> None:
    """Each player owns one ringmaster: with Ann's on the board, a new red figure read as one is a meeple."""
    state = start()
    ring = Placement("V", (1, 0), 90, Figure.RINGMASTER, Spot(Kind.ROAD, "N"))
    state, _ = GAME.apply_unchecked(state, ring)
    state, _ = GAME.apply_unchecked(state, Placement("U", (-1, 0), 0))  # Ben
    assert not state.ringmasters[0]
    # the camera misses Ann's ringmaster at 1,0 and sizes her new figure wrongly
    board = board_of(state)
    tiles = tuple(sorted(board.tiles + ((0, -1, "E", 180),)))
    found = TABLE.infer(state, Sighting(SeenBoard(tiles, ((0, -1, "ringmaster", "red", "city:S"),))))
    assert found.move == Placement("E", (0, -1), 180, Figure.MEEPLE, Spot(Kind.CITY, "S"))


def test_a_stack_of_acrobats_is_drawn_in_the_order_it_was_built() -> None:
    """The newest acrobat stands on top, whatever its colour's name (a blue one put on a red one is drawn over it)."""
    built = ["red", "red", "blue"]
    figures: Counter[tuple[int, int, str, str, str]] = Counter()
    for colour in built:
        figures[(1, 0, "acrobat", colour, "acrobats")] += 1
    scene = scene_of({(0, 0): ("D", 0), (1, 0): ("ffrr.acrobats", 0)}, figures, None)
    stack = [(f.color, f.count, f.below, f.above) for f in scene.figures]
    assert stack == [("red", 2, 0, 1), ("blue", 1, 2, 0)]
