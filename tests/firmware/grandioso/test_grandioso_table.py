"""Circus Grandioso at the table: the adapter, its panels (golden PNGs), the simulated camera and the demo."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.grandioso import Sighting
from firmware.grandioso.screens import SeatView, central_view, next_cards, render_seat, seat_view
from firmware.grandioso.simcamera import open_simulated
from firmware.grandioso.tablesim import SimulatedTable
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.screens import render_central, render_image
from firmware.table import Seen, adapter
from hardware.errors import UnknownBackend
from scorer.grandioso import Card, Draw, Exchange, Grandioso, GrandiosoState, Pass, Place, Pyramid
from scorer.grandioso.observe import TableSnapshot
from vision.grandioso.pipeline import GrandiosoView, Recognizer, Unrecognised
from vision.grandioso.scene import Scene, frame

GOLDEN = Path(__file__).parent / "golden"
GAME = Grandioso()
TABLE = adapter("grandioso")


def test_registered_under_its_name_and_alias() -> None:
    assert adapter("circus-grandioso") is TABLE and TABLE.game.info.title == "Circus Grandioso"


def test_central_panel_shows_the_next_cards_of_each_side(golden_png: Callable[[object, Path], None]) -> None:
    state = GAME.public_state(["Ann", "Ben", "Cat"])
    assert next_cards(state) == "L Eleph/C R Eleph/C"
    state, _ = GAME.apply_unchecked(state, Place(Card.ELEPHANT, 0, 1))
    assert next_cards(state) == "Top: Rhino"
    view = central_view(state, last_event="Ann place elephant 0,1", hint="")
    golden_png(render_image(render_central, view), GOLDEN / "central.png")


def test_seat_view_of_the_opening() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    assert seat_view(state, 0) == SeatView("Ann", 7, False, True)
    assert seat_view(state, 1) == SeatView("Ben", 7, False, False)


@pytest.mark.parametrize(("view", "name"), [
    (SeatView("Ann", 7, False, True), "seat_turn"),
    (SeatView("Ben", 3, True, False), "seat_show_master"),
    (SeatView("Ann", 7, False, True, warning="Only Elephants go in the Elephant row."), "seat_warning"),
    (SeatView("Cat", 5, False, True, holding_drawn=True), "seat_drawn"),
])
def test_seat_panels(view: SeatView, name: str, golden_png: Callable[[object, Path], None]) -> None:
    golden_png(render_image(render_seat, view), GOLDEN / f"{name}.png")


def test_a_camera_view_becomes_a_checked_move() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    pyramid = Pyramid.start().with_card(0, -1, Card.TIGER)
    view = Recognizer().recognize(frame(Scene(pyramid, stack=True))).view
    sighting = TABLE.sighting(view, ["Ann", "Ben"])
    assert sighting is not None and sighting.unrecognised == ()
    found = TABLE.infer(state, sighting)
    assert found.seen is Seen.MOVE and found.move == Place(Card.TIGER, 0, -1)
    assert GAME.check(state, found.move).is_illegal


def test_seat_button_passes_only_for_the_player_to_move() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    assert TABLE.seat_press(state, 0) == Pass() and TABLE.seat_press(state, 1) is None


def test_teaching_names_the_places_and_their_animals() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    hint = TABLE.teach(state, 0, None, False)
    assert "an Elephant (or a clown) on the left" in hint and "on the right" in hint


def test_simulated_steps_follow_the_protocol() -> None:
    table = SimulatedTable(["Ann", "Ben", "Cat"], seed=0)
    steps = list(table.steps())
    assert GAME.is_over(table.state)
    shown = [s for s in steps if s.scene is not None and s.scene.shown is not None]
    assert all(s.truth is not None and " draw " in s.truth for s in shown)
    assert steps[-1].button is not None


def test_open_simulated_refuses_bad_options() -> None:
    with pytest.raises(UnknownBackend, match="2 to 4 players"):
        open_simulated("seats=6")
    with pytest.raises(UnknownBackend, match="use seats=N"):
        open_simulated("hands=2")
    assert len(open_simulated("seats=2,seed=3").table.players) == 2


def test_sighting_snapshot_is_comparable() -> None:
    a = TableSnapshot(frozenset({((0, 0), Card.ELEPHANT)}), (1, 2), None)
    assert a == TableSnapshot(frozenset({((0, 0), Card.ELEPHANT)}), (1, 2))


def test_demo_agrees_with_the_ground_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole stack: simulated table, frames, vision, referee, panels, journal, ground truth."""
    code = main(["demo", "--game", "grandioso", "--seats", "3", "--seed", "0", "--illegal-every", "4",
                 "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the referee agrees with the ground truth" in out and "Winner:" in out
    assert "illegal attempts caught" in out
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["game"] == "circus-grandioso" and len(record["moves"]) > 5


def _glared_view(place: tuple[int, int], pyramid: dict[tuple[int, int], Card]) -> GrandiosoView:
    """A view of ``pyramid`` whose ``place`` glare hides (reported unrecognised, its code unread)."""
    row, col = place
    glare = Unrecognised(f"row {row + 1}, place {col:+d}", "glare on the place: a code may lie under it", row, col,
                         unread=True)
    return GrandiosoView({p: k for p, k in pyramid.items() if p != place}, 0, (), True, (), (glare,))


def test_glare_over_a_card_accepted_before_is_that_card() -> None:
    state, _ = GAME.play(GAME.public_state(["Ann", "Ben"]), Place(Card.ELEPHANT, 0, 1))
    before = {(0, 0): Card.ELEPHANT, (0, 1): Card.ELEPHANT}
    sighting = TABLE.sighting(_glared_view((0, 1), before), ["Ann", "Ben"])
    assert sighting is not None and sighting.unread == ((0, 1),)
    seen = TABLE.fill_held(state, sighting)
    assert seen.unrecognised == () and dict(seen.snapshot.pyramid) == before
    assert TABLE.infer(state, seen).seen is Seen.UNCHANGED
    # a card laid beside it is still a move
    laid = TABLE.fill_held(state, TABLE.sighting(_glared_view((0, 1), {**before, (0, -1): Card.ELEPHANT}), ["A", "B"]))
    assert TABLE.infer(state, laid).move == Place(Card.ELEPHANT, 0, -1)


def test_glare_over_a_place_that_held_no_card_is_still_asked_about() -> None:
    state = GAME.public_state(["Ann", "Ben"])
    sighting = TABLE.sighting(_glared_view((0, 1), {(0, 0): Card.ELEPHANT}), ["Ann", "Ben"])
    assert sighting is not None
    assert TABLE.fill_held(state, sighting) == sighting  # a card laid under the glare must not pass unseen
    other = Sighting(sighting.snapshot, ("A card lies turned (row 1, place +1).",), (None,))
    assert TABLE.fill_held(state, other) == other


def test_the_referee_asks_nothing_when_glare_hides_a_card_it_accepted(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, ["Ann", "Ben"], table="grandioso")
        before = {(0, 0): Card.ELEPHANT, (0, 1): Card.ELEPHANT}
        referee.see(TABLE.sighting(GrandiosoView(before, 0, (), True, (), ()), ["Ann", "Ben"]))
        assert len(referee.live.moves()) == 1
        referee.see(TABLE.sighting(_glared_view((0, 1), before), ["Ann", "Ben"]))
        assert referee.mode is Mode.PLAYING and len(referee.live.moves()) == 1
        referee.see(TABLE.sighting(_glared_view((0, -1), before), ["Ann", "Ben"]))
        assert referee.mode is Mode.QUESTION and "Glare on the place" in referee.hint


def _with_singles(count: int) -> GrandiosoState:
    """A game where ``count`` cards were exchanged onto the singles row."""
    state = GAME.public_state(["Ann", "Ben"])
    for _ in range(count):
        state, _ = GAME.play(state, Exchange(Card.CAMEL, None))
    return state


def _singles_view(places: tuple[int, ...], unclear: tuple[int, ...], shown: Card | None = None) -> GrandiosoView:
    glare = Unrecognised("the singles row", "place " + ", ".join(map(str, unclear)) + " unclear (glare?)",
                         places=unclear)
    first = 56.0 + 4.0 + 21.0
    return GrandiosoView({(0, 0): Card.ELEPHANT}, len(places), tuple(first + (k - 1) * 46.0 for k in places), True,
                         (), (glare,), shown)


def test_glare_over_singles_accepted_before_holds_them_when_the_row_shows_nothing_else() -> None:
    state = _with_singles(3)
    sighting = TABLE.sighting(_singles_view((1, 3), (2,)), ["Ann", "Ben"])
    assert sighting is not None and sighting.unclear == ((2,),)
    seen = TABLE.fill_held(state, sighting)
    assert seen.unrecognised == () and seen.snapshot.single_places == (1, 2, 3)
    assert TABLE.infer(state, seen).seen is Seen.UNCHANGED


@pytest.mark.parametrize("places, unclear, shown", [
    ((1, 3), (2,), Card.TIGER),  # a card shown on the stack: single 2 may have been drawn
    ((1, 3, 4), (2,), None),  # a card laid down on place 4: single 2 may have been taken in exchange
    ((1, 2), (4,), None),  # place 3 shows the bare row
    ((1, 2, 3), (4,), None),  # a card may have been laid down under the glare
])
def test_glare_over_the_singles_row_is_asked_about_when_the_row_may_have_changed(
        places: tuple[int, ...], unclear: tuple[int, ...], shown: Card | None) -> None:
    state = _with_singles(3)
    sighting = TABLE.sighting(_singles_view(places, unclear, shown), ["Ann", "Ben"])
    assert TABLE.fill_held(state, sighting) == sighting


def test_glare_over_the_singles_row_is_asked_about_after_a_draw() -> None:
    state, _ = GAME.play(_with_singles(3), Draw(None))
    sighting = TABLE.sighting(_singles_view((1, 3), (2,)), ["Ann", "Ben"])
    assert TABLE.fill_held(state, sighting) == sighting
