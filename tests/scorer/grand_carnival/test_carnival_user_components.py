"""Component values given as data: ``GrandCarnival(values)``, records that carry their values."""

from __future__ import annotations

import random

import pytest

from scorer.core import RecordError
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import CatalogError, component_changes, merge_components, shipped_data
from tests.scorer.grand_carnival.carnival_helpers import GAME  # type: ignore[import-not-found,unused-ignore]


def test_the_shipped_game_has_no_changes() -> None:
    assert GAME.changed_components() == {}
    assert GrandCarnival().catalog is GAME.catalog


def test_values_replace_the_shipped_entries_and_lists_are_replaced_whole() -> None:
    game = GrandCarnival({"attractions": {"reflections": True}, "foundations": [{"pattern": "ww/ws", "count": 42}]})
    assert not any(s.mirrored for s in game.catalog.shapes.values())
    assert dict(game.catalog.foundations) == {"ww/ws": 42}
    assert len(game.catalog.shapes) == len(GAME.catalog.shapes)  # untouched entries stay
    state = game.new_state(["Ann", "Ben"], random.Random(0))
    assert set(state.railyard.open) == {"ww/ws"}


def test_merging_never_changes_the_inputs() -> None:
    base = shipped_data()
    merge_components(base, {"barkers": {"supply": {"1": 9}}}, "mine.toml")
    assert base == shipped_data() and base["barkers"]["supply"]["1"] == 4


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"tricks": {"cards": []}}, "mine.toml: tricks.dealt must be at most the number of tricks"),
        ({"foundations": []}, "mine.toml: foundations must list at least one foundation tile"),
        ({"guests": {"supply": {"1": 1, "2": 2, "3": 3}}}, "mine.toml: guests.supply needs counts for 1, 2, 3 and 4"),
        ({"tricks": {"cards": [{"name": "A", "condition": {"kind": "tickets", "at_least": 0}, "effect": "extra_step"}],
                     "dealt": 1}}, "mine.toml: tricks.cards[0].condition.at_least"),
        ({"attractions": {"shapes": [{"name": "Z", "rows": ["#x"], "count": {"1": 1, "2": 1, "3": 1, "4": 1}}]}},
         "mine.toml: attractions.shapes[0].rows"),
        ({"market": {"empty_parcel_hammers": 1.5}}, "market.empty_parcel_hammers must be a whole number, not a number"),
    ],
)
def test_impossible_values_name_the_source_and_key(values: dict[str, object], words: str) -> None:
    with pytest.raises(CatalogError) as info:
        GrandCarnival(values, "mine.toml")
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_simulated_record_carries_its_values_and_replays_with_them() -> None:
    game = GrandCarnival({"barkers": {"supply": {"2": 1}}, "entrances": {"columns": ["a", "h"]}})
    record = game.simulate(["Ann", "Ben"], random.Random(4))
    assert record["components"] == game.components
    # The shipped game replays the record with the record's values, and says which differ.
    report = GAME.replay(record)
    assert report.exit_status == 0 and report.data["finished"] is True
    assert report.data["components"] == component_changes(game.components)
    assert report.data == game.replay(record).data
    # Without its values the record is another game: a guest walks in by a1 or h1.
    without = {k: v for k, v in record.items() if k != "components"}
    assert GAME.replay(without).exit_status == 3


def test_a_record_may_carry_only_the_values_that_differ() -> None:
    game = GrandCarnival({"entrances": {"columns": ["a", "h"]}})
    record = game.simulate(["Ann", "Ben"], random.Random(4))
    record["components"] = {"entrances": {"columns": ["a", "h"]}}
    assert GAME.replay(record).data == game.replay(record).data


def test_broken_record_values_are_a_record_error_naming_components() -> None:
    record = GAME.simulate(["Ann"], random.Random(1))
    record["components"] = {"barkers": {"supply": {"9": 1}}}
    with pytest.raises(RecordError) as info:
        GAME.replay(record)
    assert info.value.field == "components" and "barkers.supply.9" in str(info.value)
    record["components"] = ["not", "a", "table"]
    with pytest.raises(RecordError, match="components must be an object"):
        GAME.replay(record)
