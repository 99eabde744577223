"""Circus Flohcati's panels (golden PNGs), teaching hints, and the simulated camera through the recogniser."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.flohcati import FlohcatiTable, best_takes, teaching_text
from firmware.flohcati.screens import SeatView, central_view, render_seat, seat_view
from firmware.flohcati.simcamera import SimulatedCamera, open_simulated
from firmware.flohcati.tablesim import SimulatedTable
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.screens import render_central, render_image
from firmware.stabiliser import Stabiliser
from firmware.table import adapter
from hardware.errors import UnknownBackend
from scorer.core import TableError
from scorer.flohcati import Action, Flea, Flohcati, Phase, Turn, bust_probability
from vision.flohcati.layout import CODE_CENTRE, row_slot
from vision.flohcati.pipeline import Recognizer
from vision.flohcati.scene import TableLayout

GOLDEN = Path(__file__).parent / "golden"
GAME = Flohcati()
F = Flea.parse


def test_the_adapter_is_registered() -> None:
    assert isinstance(adapter("flohcati"), FlohcatiTable)
    assert isinstance(adapter("circus-flohcati"), FlohcatiTable)
    with pytest.raises(TableError, match="2 to 4"):
        FlohcatiTable().check_players(["A", "B", "C", "D", "E"])


def _state() -> object:
    state = GAME.public_state(["Ann", "Ben", "Cat"])
    state = replace(state, hands=((F("red-5"), F("blue-2")), (F("green-7"),), ()),
                    trios=(((F("red-1"), F("blue-1"), F("grey-1")),), (), ()), display=(F("red-6"), F("pink-3")))
    return state


@pytest.mark.parametrize("name", ["seat_turn", "seat_warning", "central"])
def test_panels_match_golden(name: str, golden_png: Callable[[object, Path], None]) -> None:
    state = _state()
    if name == "central":
        view = central_view(GAME, state, last_event="BUST! A second red flea: Ann's turn ends.",  # type: ignore[arg-type]
                            hint="Ben starts: turn a card.")
        golden_png(render_image(render_central, view), GOLDEN / f"{name}.png")
        return
    warning = "The red 6 is not in the row of turned cards." if name == "seat_warning" else ""
    seat: SeatView = seat_view(state, 0, warning)  # type: ignore[arg-type]
    assert (seat.score, seat.hand_size, seat.trios, seat.is_turn) == (10 + 5 + 2, 2, 1, True)
    golden_png(render_image(render_seat, seat), GOLDEN / f"{name}.png")


def test_holding_a_button_shows_the_bust_chance_and_the_best_take() -> None:
    state = replace(_state(), hands=((F("red-5"), F("blue-6"), F("green-6")), (), ()))  # type: ignore[type-var]
    chance = bust_probability(state)
    assert chance > 0
    takes = best_takes(state)
    # a red 6 only beats the red 5 in hand (+1); the pink 3 is a new colour (+3)
    assert takes == [(3, F("pink-3")), (1, F("red-6"))]
    text = teaching_text(state, 0)
    assert f"{float(chance):.0%}" in text and "Best take: pink 3 (+3)" in text
    assert teaching_text(state, 1).startswith("Next card busts Ann")
    assert bust_probability(replace(state, attraction=True)) == Fraction(0)


def test_a_trio_take_is_valued_with_its_ten_points() -> None:
    state = replace(GAME.public_state(["Ann", "Ben"]), hands=((F("red-4"), F("red-7"), F("blue-4")), ()),
                    display=(F("green-4"), F("grey-1")))
    # in hand: red 7 + blue 4 = 11; the trio of 4s gives 10 + red 7 = 17, the green 4 alone 15
    assert best_takes(state)[0] == (6, F("green-4"))


def test_simulated_camera_options_are_checked() -> None:
    with pytest.raises(UnknownBackend, match="no option"):
        open_simulated("hands=2")
    with pytest.raises(UnknownBackend, match="2 to 4"):
        open_simulated("seats=6")


def test_the_referee_follows_the_first_moves_through_the_camera(tmp_path: Path) -> None:
    """A few dozen frames of a rendered game night: the recogniser, stabiliser and referee agree with the truth."""
    sim = SimulatedTable(["Ann", "Ben"], seed=5)
    camera = SimulatedCamera(sim, still_frames=3, moving_frames=1, size=(960, 720))
    recognizer, stabiliser = Recognizer(), Stabiliser[object](3)
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, ["Ann", "Ben"], table=FlohcatiTable())
        camera.attach_buttons(referee.press)
        for _ in range(60):
            frame = camera.read()
            view = recognizer.recognize(frame).view
            stable = stabiliser.push(referee.table.sighting(view, ["Ann", "Ben"]), moving=camera._moving)
            if stable is not None:
                referee.see(stable)
            assert referee.mode is Mode.PLAYING, referee.hint
        played = journal.export()["moves"]
    truth = [m for m in sim.record["moves"]][: len(played)]
    assert len(played) >= 5
    state = GAME.record_start(sim.record)
    for ours, theirs in zip(played, truth):
        move = GAME.parse_move(state, theirs)
        if isinstance(move, Turn):
            assert ours == f"{theirs} {state.stack[0].name if isinstance(state.stack[0], Flea) else state.stack[0].value}"  # type: ignore[union-attr]
        else:
            assert ours == theirs
        state, _ = GAME.apply_unchecked(state, move)
    assert state.phase is not Phase.OVER


def test_the_hands_laid_open_are_read_only_when_they_agree_with_the_tracked_ones() -> None:
    from scorer.flohcati.observe import TableSight

    table = FlohcatiTable()
    state = replace(GAME.public_state(["Ann", "Ben"]), hands=((F("red-5"), None), (F("blue-1"),)), phase=Phase.OVER)
    actions = tuple((a, 0) for a in Action)

    def shown(ann: str, ben: str) -> TableSight:
        return TableSight((), actions, (frozenset(F(c) for c in ann.split()), frozenset(F(c) for c in ben.split())))

    assert table.reveal(state, shown("red-5 grey-7", "blue-1"), ["Ann", "Ben"], {}) == \
        {"final_hands": {"Ann": ["red-5", "grey-7"], "Ben": ["blue-1"]}}
    assert table.reveal(state, shown("red-4 grey-7", "blue-1"), ["Ann", "Ben"], {}) is None  # the red 5 is missing
    assert table.reveal(state, shown("red-5", "blue-1"), ["Ann", "Ben"], {}) is None  # one card short


def _photo(camera: SimulatedCamera, layout: TableLayout, glare: tuple[float, float] | None = None) -> np.ndarray:  # type: ignore[type-arg]
    """A frame of ``layout`` from a camera exposed for the table (paper is not white-out), with a lamp's
    reflection, brighter than the paper, over table point ``glare``."""
    frame = camera.render(layout).astype(np.float32) * 0.85
    if glare is not None:
        (u, v), = cv2.perspectiveTransform(np.array([[glare]], np.float64), camera._homography)[0]
        light = np.zeros(frame.shape[:2], np.float32)
        cv2.circle(light, (int(u), int(v)), int(0.03 * frame.shape[1]), 1.0, -1)
        light = cv2.GaussianBlur(light, (0, 0), 4)[:, :, None]
        frame = frame * (1 - light) + 255 * light
    return np.asarray(frame, np.uint8)


def test_a_row_card_lost_to_glare_is_held_never_taken(tmp_path: Path) -> None:
    """A row card whose code glare washes out for several frames is unrecognised (the referee asks); once
    it really leaves the row (the mat shows there), the take is recorded."""
    players = ["Ann", "Ben"]
    sim = SimulatedTable(players, seed=5)
    camera = SimulatedCamera(SimulatedTable(players, seed=5), size=(960, 720))
    table = FlohcatiTable()
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, players, table=table)
        layout = None
        for step in sim.steps():  # the first turns, straight from the simulation's layouts
            if step.button is not None:
                referee.press(step.button)
            elif step.layout is not None and not step.moving:
                referee.see(step.layout.sight(2))
                layout = step.layout
            if len(referee.state.display) >= 3 and referee.state.phase is Phase.TURNING and not step.moving:
                break
        assert layout is not None and layout.row == referee.state.display
        moves = len(journal.export()["moves"])
        recognizer, stabiliser = Recognizer(), Stabiliser[object](3)
        stabiliser.reset(layout.sight(2))

        def show(frame: np.ndarray, times: int = 4) -> None:  # type: ignore[type-arg]
            for _ in range(times):
                stable = stabiliser.push(table.sighting(recognizer.recognize(frame).view, players))
                if stable is not None:
                    referee.see(stable)

        show(_photo(camera, layout))
        assert referee.mode is Mode.PLAYING and len(journal.export()["moves"]) == moves
        last = layout.row[-1]
        x, y = row_slot(len(layout.row) - 1)
        glared = _photo(camera, layout, (x + CODE_CENTRE[0], y + CODE_CENTRE[1]))
        assert last not in {c.card for c in Recognizer().recognize(glared).view.cards}  # the code is unreadable
        show(glared, 6)
        assert referee.mode is Mode.QUESTION and "could not be read" in referee.hint
        assert len(journal.export()["moves"]) == moves
        taken = replace(layout, row=layout.row[:-1])
        show(_photo(camera, taken))
        assert referee.mode is Mode.PLAYING, referee.hint
        assert last not in referee.state.display and len(journal.export()["moves"]) == moves + 1
