"""The Big Top referee, fed the layouts a simulated table shows (no camera in between)."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.bigtop.sighting import Sighting
from firmware.bigtop.tablesim import SimulatedTable, Step
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.bigtop import BigTop, Card, Pile
from scorer.bigtop.observe import TableSnapshot, snapshot

GAME = BigTop()


def feed(referee: Referee, step: Step) -> None:
    if step.button is not None:
        referee.press(step.button)
    elif step.layout is not None and not step.layout.hands_over:
        layout = step.layout
        referee.see(Sighting(layout.snapshot, tokens=layout.tokens, laid_open=layout.laid_open))


@pytest.mark.parametrize("players, hands, seed", [(["Ann", "Ben", "Cat"], 2, 1), (["A", "B", "C", "D", "E"], 2, 2)])
def test_a_game_night_matches_the_ground_truth(tmp_path: Path, players: list[str], hands: int, seed: int) -> None:
    sim = SimulatedTable(players, hands=hands, seed=seed, illegal_every=6)
    with Journal.open(tmp_path / "journal.db") as journal:
        referee = Referee.new_game(journal, players, parts=hands)
        caught = 0
        for step in sim.steps():
            feed(referee, step)
            if step.expect_illegal:
                assert referee.mode is Mode.ILLEGAL
                assert any(referee.warnings.values())
                caught += 1
        assert caught == sim.illegal_attempts > 0
        assert referee.mode is Mode.GAME_OVER
        truth = GAME.replay(sim.record).data
        assert referee.results()["totals"] == truth["totals"]
        exported = journal.export()
        assert [h["moves"] for h in exported["hands"]] == [h["moves"] for h in sim.record["hands"]]  # type: ignore[index, union-attr]


def start(tmp_path: Path) -> tuple[Journal, Referee, SimulatedTable, list[Step]]:
    sim = SimulatedTable(["Ann", "Ben", "Cat"], hands=1, seed=5)
    journal = Journal.open(tmp_path / "j.db")
    return journal, Referee.new_game(journal, ["Ann", "Ben", "Cat"], parts=1), sim, list(sim.steps())


def play_until(referee: Referee, steps: list[Step], moves: int) -> int:
    played = 0
    for i, step in enumerate(steps):
        feed(referee, step)
        played += step.truth is not None
        if played == moves:
            return i + 1
    raise AssertionError("not enough moves")


def test_undo_needs_confirmation(tmp_path: Path) -> None:
    journal, referee, _, steps = start(tmp_path)
    play_until(referee, steps, 3)
    before = referee.live.moves()
    referee.press(ButtonEvent(Gesture.PRESS, pad=Pad.UNDO))
    assert referee.mode is Mode.CONFIRM_UNDO and before[-1] in referee.hint
    referee.press(ButtonEvent(Gesture.PRESS, pad=Pad.MODE))  # cancel
    assert referee.live.moves() == before and referee.mode is Mode.PLAYING
    referee.press(ButtonEvent(Gesture.PRESS, pad=Pad.UNDO))
    referee.press(ButtonEvent(Gesture.PRESS, pad=Pad.OK))
    assert referee.live.moves() == before[:-1]
    journal.close()


def test_holding_ok_lets_an_illegal_move_stand(tmp_path: Path) -> None:
    journal, referee, _, _ = start(tmp_path)
    state = referee.state
    piles = list(state.tableau)
    piles[0] = Pile(False, 3, 0)  # a light 3 Clowns laid before the Poster
    bad = TableSnapshot((piles[0], piles[1], piles[2], piles[3]), state.charts)
    referee.see(Sighting(bad))
    assert referee.mode is Mode.ILLEGAL
    seat = state.to_move
    assert referee.warnings[seat] == (
        "The light 3 Clowns can't be played: the Clowns Poster must be played first."
    )
    assert referee.seat_views()[seat].warning == referee.warnings[seat]
    assert "Illegal" in referee.central().last_event
    referee.press(ButtonEvent(Gesture.HOLD, pad=Pad.OK))
    assert referee.mode is Mode.PLAYING and referee.state.tableau[0] == piles[0]
    assert journal.db.execute("SELECT kind FROM entries").fetchall()[-1][0] == "override"
    journal.close()


def test_taking_an_illegal_move_back_clears_the_warning(tmp_path: Path) -> None:
    journal, referee, _, _ = start(tmp_path)
    state = referee.state
    bad = TableSnapshot((Pile(False, 3, 0), *state.tableau[1:]), state.charts)  # type: ignore[arg-type]
    referee.see(Sighting(bad))
    assert referee.mode is Mode.ILLEGAL
    referee.see(Sighting(snapshot(state)))
    assert referee.mode is Mode.PLAYING and not referee.warnings
    assert referee.live.moves() == []
    journal.close()


def test_an_unrecognised_component_holds_the_referee_with_a_question(tmp_path: Path) -> None:
    journal, referee, sim, steps = start(tmp_path)
    i = play_until(referee, steps, 1)
    step = next(s for s in steps[i:] if s.layout is not None and s.truth is not None)
    assert step.layout is not None
    layout = step.layout
    referee.see(Sighting(layout.snapshot, unrecognised=("An unrecognised card lies on the Clowns light pile.",)))
    assert referee.mode is Mode.QUESTION
    assert referee.central().hint.startswith("What is this? An unrecognised card")
    assert len(referee.live.moves()) == 1  # nothing was guessed
    referee.press(ButtonEvent(Gesture.HOLD, pad=Pad.OK))  # ignore it: the view is judged without it
    assert referee.mode is Mode.PLAYING
    assert referee.live.moves()[-1] == step.truth
    journal.close()


def test_a_view_no_single_move_explains_is_a_question(tmp_path: Path) -> None:
    journal, referee, _, _ = start(tmp_path)
    state = referee.state
    two = TableSnapshot((Pile(True), Pile(True), state.tableau[2], state.tableau[3]), state.charts)
    referee.see(Sighting(two))
    assert referee.mode is Mode.QUESTION and "More than one card" in referee.hint
    referee.see(Sighting(snapshot(state)))
    assert referee.mode is Mode.PLAYING
    journal.close()


def test_a_pass_out_of_turn_is_refused_on_the_seat_panel(tmp_path: Path) -> None:
    journal, referee, _, _ = start(tmp_path)
    other = (referee.state.to_move + 1) % 3
    referee.press(ButtonEvent(Gesture.PRESS, seat=other))
    assert "turn" in referee.warnings[other] and referee.live.moves() == []
    journal.close()


def test_holding_a_seat_button_shows_what_is_playable(tmp_path: Path) -> None:
    journal, referee, _, _ = start(tmp_path)
    referee.press(ButtonEvent(Gesture.HOLD, seat=0))
    assert referee.hint == "Playable now: Clowns P, Sideshow P, Animals P, Performers P"
    journal.close()


def test_a_restarted_referee_resumes_the_game(tmp_path: Path) -> None:
    journal, referee, _, steps = start(tmp_path)
    i = play_until(referee, steps, 12)
    state, moves = referee.state, referee.live.moves()
    journal.close()
    with Journal.open(tmp_path / "j.db") as again:
        resumed = Referee.resume(again)
        assert resumed is not None
        assert resumed.state == state and resumed.live.moves() == moves
        for step in steps[i:]:
            feed(resumed, step)
        assert resumed.mode is Mode.GAME_OVER


def test_card_type_is_reexported() -> None:
    assert Card.parse("clowns-P").is_poster


def test_teaching_mode_shows_the_legal_moves_of_an_open_hand(tmp_path: Path) -> None:
    import dataclasses

    sim = SimulatedTable(["Ann", "Ben", "Cat"], hands=1, seed=5)
    steps = list(sim.steps())
    deal: dict[str, list[str]] = sim.record["hands"][0]["deal"]  # type: ignore[index]
    hands = tuple(frozenset(Card.parse(c) for c in deal[p]) for p in ["Ann", "Ben", "Cat"])
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, ["Ann", "Ben", "Cat"], parts=1, teaching=True)
        first = steps[0].layout
        assert first is not None
        referee.see(Sighting(first.snapshot, open_hands=hands))
        full = dataclasses.replace(referee.state, hands=hands)
        mover = referee.state.to_move
        referee.press(ButtonEvent(Gesture.HOLD, seat=mover))
        legal = [GAME.format_move(full, m).split(" ", 1)[1] for m in GAME.legal_moves(full)]
        assert legal and referee.hint == "Legal: " + ", ".join(legal)
        other = (mover + 1) % 3
        referee.press(ButtonEvent(Gesture.HOLD, seat=other))
        posters = [c for c in sorted(hands[other], key=lambda c: c.index) if c.is_poster]
        assert referee.hint == ("Playable from your hand now: " + ", ".join(f"{c.suit.title} P" for c in posters)
                                if posters else "None of your cards is playable now.")
        assert referee.live.moves() == []


def test_open_hands_are_ignored_outside_teaching_mode(tmp_path: Path) -> None:
    journal, referee, sim, steps = start(tmp_path)
    first = steps[0].layout
    assert first is not None
    referee.see(Sighting(first.snapshot, open_hands=(frozenset({Card.parse("clowns-L1")}),) * 3))
    referee.press(ButtonEvent(Gesture.HOLD, seat=referee.state.to_move))
    assert referee.hint.startswith("Playable now: ")
    journal.close()
