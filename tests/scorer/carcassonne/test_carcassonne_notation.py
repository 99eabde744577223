"""Move notation, record moves and state JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.carcassonne import Discard, Figure, Placement, Spot, move_from_json, move_to_json
from scorer.carcassonne.catalog import CATALOG, Kind, rotated
from scorer.core import MalformedMove, RecordError
from tests.scorer.carcassonne.carcassonne_helpers import GAME, Table  # type: ignore[import-not-found,unused-ignore]


@pytest.mark.parametrize(
    "text, move",
    [
        ("V@1,0r90", Placement("V", (1, 0), 90)),
        ("V@1,0r90 meeple road:N", Placement("V", (1, 0), 90, Figure.MEEPLE, Spot(Kind.ROAD, "N"))),
        ("cfrf.circus@0,1r90 ringmaster city:E",
         Placement("cfrf.circus", (0, 1), 90, Figure.RINGMASTER, Spot(Kind.CITY, "E"))),
        ("ffrr.acrobats@-2,0r180 acrobat -2,0", Placement("ffrr.acrobats", (-2, 0), 180, Figure.ACROBAT, target=(-2, 0))),
        ("U@3,0r0 score-pyramid 2,0", Placement("U", (3, 0), 0, score_pyramid=(2, 0))),
        ("B@0,1r0 meeple monastery", Placement("B", (0, 1), 0, Figure.MEEPLE, Spot(Kind.MONASTERY))),
        ("L discard", Discard("L")),
    ],
)  # fmt: skip
def test_notation_reads_and_writes_the_same_move(text: str, move: Placement | Discard) -> None:
    state = Table().state
    assert GAME.parse_move(state, text) == move
    # The notation rule: the mover's name first; the text without it (old records) still reads.
    mover = state.players[GAME.current_player(state) or 0]
    assert GAME.format_move(state, move) == f"{mover} {text}"
    assert GAME.parse_move(state, f"{mover} {text}") == move
    assert move_from_json(move_to_json(move), "moves[0]") == move


def test_another_name_of_the_same_feature_is_written_canonically() -> None:
    state = Table().state
    # V turned 90: the road runs north-west; road:W and road:N are the same road
    move = GAME.parse_move(state, "V@1,0r90 meeple road:W")
    assert move == GAME.parse_move(state, "v@1,0r90 MEEPLE road:n")
    assert GAME.format_move(state, move) == "Red V@1,0r90 meeple road:N"
    assert move_from_json(
        {"tile": "V", "at": [1, 0], "rotation": 90, "place": {"figure": "meeple", "on": "road:W"}}, "m"
    ) == move
    field = GAME.parse_move(state, "U@1,0r0 meeple field:EL")  # the northern field of U
    assert GAME.format_move(state, field) == "Red U@1,0r0 meeple field:NL"


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("V1,0r90", "not a placement"),
        ("Z@1,0r0", "no tile called"),
        ("V@1,0r45", "0, 90, 180 or 270"),
        ("V@1,0r90 meeple", "one figure"),
        ("V@1,0r90 wizard road:N", "not a figure"),
        ("V@1,0r90 meeple road:Q", "not a spot"),
        ("V@1,0r90 meeple 1,0", "meeple goes on a feature"),
        ("V@1,0r90 acrobat road:N", "acrobat goes on"),
        ("V@1,0r90 score-pyramid here", "not a square"),
        ("Q7 discard", "no tile called"),
    ],
)
def test_bad_notation_is_malformed_with_a_sentence(text: str, words: str) -> None:
    with pytest.raises(MalformedMove) as err:
        GAME.parse_move(Table().state, text)
    assert words in str(err.value) and str(err.value).endswith(".")


def test_state_json_round_trips_through_a_game() -> None:
    rng = random.Random(5)
    state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
    while not state.finished:
        data = json.loads(json.dumps(GAME.state_to_json(state)))
        again = GAME.state_from_json(data)
        assert again == state and hash(again) == hash(state)
        moves = GAME.legal_moves(state)
        state, _ = GAME.play(state, moves[rng.randrange(len(moves))])
    assert GAME.state_from_json(json.loads(json.dumps(GAME.state_to_json(state)))) == state


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("tiles"),
    lambda d: d.update(turn="three"),
    lambda d: d.update(tiles=[[0, 0, "Z", 0]]),
    lambda d: d.update(tokens=["dragon"]),
    lambda d: d.update(players=[]),
])  # fmt: skip
def test_bad_state_json_is_a_record_error(mutate: object) -> None:
    data = GAME.state_to_json(Table().state)
    mutate(data)  # type: ignore[operator]
    with pytest.raises(RecordError):
        GAME.state_from_json(data)


@settings(max_examples=300, deadline=None)
@given(
    tile=st.sampled_from(sorted(CATALOG)),
    at=st.tuples(st.integers(-100, 100), st.integers(-100, 100)),
    rotation=st.sampled_from([0, 90, 180, 270]),
    kind=st.sampled_from(["none", "meeple", "ringmaster", "acrobat", "pyramid"]),
    other=st.tuples(st.integers(-100, 100), st.integers(-100, 100)),
    index=st.integers(0, 10),
)
def test_any_placement_round_trips_through_text_and_json(
    tile: str, at: tuple[int, int], rotation: int, kind: str, other: tuple[int, int], index: int
) -> None:
    view = rotated(tile, rotation)
    if kind == "none":
        move = Placement(tile, at, rotation)
    elif kind in ("meeple", "ringmaster"):
        segment = view.segments[index % len(view.segments)]
        parsed = GAME.parse_move(Table().state, f"{tile}@0,0r{rotation} {kind} {segment.spot}")
        assert isinstance(parsed, Placement) and parsed.spot is not None
        move = Placement(tile, at, rotation, Figure(kind), parsed.spot)
    elif kind == "acrobat":
        move = Placement(tile, at, rotation, Figure.ACROBAT, target=other)
    else:
        move = Placement(tile, at, rotation, score_pyramid=other)
    state = Table().state
    assert GAME.parse_move(state, GAME.format_move(state, move)) == move
    assert move_from_json(json.loads(json.dumps(move_to_json(move))), "m") == move
