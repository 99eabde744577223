"""The live referee on simulated Circus Flohcati games, fed the simulation's layouts (no camera)."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.flohcati import FlohcatiTable
from firmware.flohcati.tablesim import SimulatedTable, Step
from firmware.journal import Journal
from firmware.referee import Mode, Referee

TABLE = FlohcatiTable()


def feed(referee: Referee, step: Step, players: int) -> None:
    if step.button is not None:
        referee.press(step.button)
    elif step.layout is not None and not step.moving:
        referee.see(step.layout.sight(players))


@pytest.mark.parametrize("players, seed", [(["Ann", "Ben", "Cat"], 1), (["Ann", "Ben"], 2),
                                           (["Ann", "Ben", "Cat", "Dan"], 3), (["Ann", "Ben", "Cat"], 4)])
def test_a_game_night_matches_the_ground_truth(tmp_path: Path, players: list[str], seed: int) -> None:
    sim = SimulatedTable(players, seed=seed, illegal_every=3)
    with Journal.open(tmp_path / "journal.db") as journal:
        referee = Referee.new_game(journal, players, table=TABLE)
        caught = 0
        for step in sim.steps():
            feed(referee, step, len(players))
            if step.expect_illegal:
                assert referee.mode is Mode.ILLEGAL and "must give" in referee.last_event
                caught += 1
            elif not step.moving:
                assert referee.mode not in (Mode.ILLEGAL, Mode.QUESTION), (referee.hint, referee.log[-3:])
        assert referee.mode is Mode.GAME_OVER
        assert caught == sim.illegal_attempts
        record = journal.export()
    assert TABLE.differences(record, sim.record) == []
    assert "final_hands" in str(record)


def test_some_game_nights_have_illegal_attempts() -> None:
    attempts = 0
    for seed in range(1, 5):
        sim = SimulatedTable(["Ann", "Ben", "Cat"], seed=seed, illegal_every=3)
        for _ in sim.steps():
            pass
        attempts += sim.illegal_attempts
    assert attempts > 0
