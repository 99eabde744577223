"""The simulated camera: frames of a simulated game night that the recogniser reads as laid out."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from firmware.bigtop.simcamera import SimulatedCamera, chart_cards, layout_placements, open_simulated
from firmware.bigtop.tablesim import SimulatedTable, TableLayout, shown_cards
from firmware.table import adapter
from hardware.buttons import ButtonEvent
from hardware.camera import Frame, open_camera, register_camera
from hardware.errors import CameraError, EndOfFrames, UnknownBackend
from scorer.bigtop import Card, Suit
from vision.bigtop.layout import MAT, Pile, Space
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.tableview import TableView

PLAYERS = ["North", "East", "South", "West"]


def table(seed: int = 3, hands: int = 1, illegal_every: int | None = None) -> SimulatedTable:
    return SimulatedTable(PLAYERS, hands=hands, seed=seed, illegal_every=illegal_every)


@pytest.fixture(scope="module")
def shared_recognizer() -> Recognizer:
    return Recognizer()


@pytest.fixture()
def recognizer(shared_recognizer: Recognizer) -> Recognizer:
    """One model for the module, but each test's table is a new table: nothing remembered from the last."""
    shared_recognizer.reset()
    return shared_recognizer


@pytest.fixture(scope="module")
def camera() -> Iterator[SimulatedCamera]:
    with SimulatedCamera(table()) as cam:
        yield cam


@pytest.fixture(scope="module")
def layouts() -> list[TableLayout]:
    """The still layouts of the hand the camera fixture films."""
    return [s.layout for s in table().steps() if s.layout is not None and not s.layout.hands_over]


def mid_hand(layouts: list[TableLayout]) -> TableLayout:
    """A layout with numbered cards on the tableau and called cards on at least two charts."""
    return next(lay for lay in layouts if lay.laid_open is None
                and sum(p.light + p.dark for p in lay.snapshot.tableau) >= 3
                and sum(any(chart) for chart in lay.snapshot.charts) >= 2)


def assert_seen_as_laid_out(view: TableView, layout: TableLayout) -> None:
    snap = layout.snapshot
    for suit, seen in zip(Suit, view.tableau):
        pile = snap.tableau[suit]
        assert seen.poster == pile.poster, suit
        assert (seen.top_light.number if seen.top_light else 0) == pile.light, suit
        assert (seen.top_dark.number if seen.top_dark else 0) == pile.dark, suit
    assert [c.seat for c in view.charts] == list(range(len(snap.charts)))
    for chart in view.charts:
        assert dict(chart.called) == chart_cards(layout, chart.seat)
        row = layout.tokens[chart.seat] if layout.tokens is not None else (None,) * 4
        assert [(t.suit, t.face_up, t.value) for t in chart.tokens] == [
            (suit, row[suit] is not None, row[suit]) for suit in Suit]
    assert view.unrecognised == () and view.loose == ()


def test_mid_hand_frame_is_recognised_as_laid_out(camera: SimulatedCamera, recognizer: Recognizer,
                                                  layouts: list[TableLayout]) -> None:
    layout = mid_hand(layouts)
    assert_seen_as_laid_out(recognizer.recognize(camera.render(layout)).view, layout)


def test_end_of_hand_reveal_is_recognised_as_laid_out(camera: SimulatedCamera, recognizer: Recognizer,
                                                      layouts: list[TableLayout]) -> None:
    reveal = layouts[-1]
    assert reveal.tokens is not None and reveal.laid_open is not None
    assert sum(map(len, reveal.laid_open)) >= 2
    view = recognizer.recognize(camera.render(reveal)).view
    assert_seen_as_laid_out(view, reveal)
    assert all(t.face_up for chart in view.charts for t in chart.tokens)


def test_some_tokens_face_up_and_an_arm_over_the_table(camera: SimulatedCamera, recognizer: Recognizer,
                                                       layouts: list[TableLayout]) -> None:
    layout = mid_hand(layouts)
    partly = TableLayout(layout.snapshot, tokens=((10, None, 3, None), (None,) * 4, (None,) * 4, (5, 7, 3, 10)))
    assert_seen_as_laid_out(recognizer.recognize(camera.render(partly)).view, partly)
    with_arm = camera.render(partly, hands=2)
    assert np.count_nonzero(np.abs(with_arm.astype(np.int16) - camera.render(partly)).max(axis=2) > 40) > 20_000


def test_reveal_shows_one_card_per_suit_still_held(layouts: list[TableLayout]) -> None:
    hand = {Card.parse(n) for n in ("clowns-L3", "clowns-L1", "animals-D2", "sideshow-P", "sideshow-D4")}
    chart = (Card.parse("sideshow-L6"), None, Card.parse("performers-D1"), None)
    assert shown_cards(hand, chart) == {Card.parse("clowns-L1"), Card.parse("animals-D2")}
    reveal = layouts[-1]
    assert reveal.laid_open is not None
    for seat, shown in enumerate(reveal.laid_open):
        on_chart = {c.suit for c in reveal.snapshot.charts[seat] if c is not None}
        suits = [c.suit for c in shown]
        assert len(set(suits)) == len(suits) and not on_chart & set(suits)
        spaces = chart_cards(reveal, seat)
        assert set(spaces.values()) == shown | {c for c in reveal.snapshot.charts[seat] if c is not None}
        # shown cards fill the free spaces from $0 upward
        free = [sp for sp in Space if reveal.snapshot.charts[seat][3 - sp] is None]
        assert [spaces[sp] for sp in free[:len(shown)]] == sorted(shown, key=lambda c: c.index)


def test_placements_keep_still_components_in_place(layouts: list[TableLayout]) -> None:
    before, after = layouts[5], layouts[6]
    a, b = layout_placements(before, jitter_seed=1), layout_placements(after, jitter_seed=1)
    assert a == layout_placements(before, jitter_seed=1) and a != layout_placements(before, jitter_seed=2)
    assert 0 < len(set(a) ^ set(b)) <= 12
    tokens = [p for p in b if p.label.startswith("token")]
    assert len(tokens) == 16 and all(p.label == "token-back" for p in tokens)
    late = layout_placements(layouts[-2], jitter_seed=1)
    for suit in Suit:
        for pile in Pile:
            on_slot = [p for p in late if MAT.slot_at(p.x, p.y) == (suit, pile)]
            assert sum(p.visible for p in on_slot) == (len(on_slot) > 0)
            assert all(p.visible == (i == len(on_slot) - 1) for i, p in enumerate(on_slot))


def test_moving_frames_differ_and_still_frames_only_by_noise() -> None:
    cam = SimulatedCamera(table(), still_frames=3, moving_frames=2)
    cam.attach_buttons(lambda event: None)
    runs: list[tuple[TableLayout, list[Frame]]] = []
    while sum(lay.hands_over for lay, _ in runs) < 3:
        frame = cam.read()
        assert cam.layout is not None
        if not runs or runs[-1][0] is not cam.layout:
            runs.append((cam.layout, []))
        runs[-1][1].append(frame)

    def changed(a: Frame, b: Frame, level: int) -> float:
        return float(np.mean(np.abs(a.astype(np.int16) - b).max(axis=2) > level))

    for layout, frames in runs[:-1]:
        assert len(frames) == (2 if layout.hands_over else 3)
        if layout.hands_over:
            assert changed(frames[0], frames[1], 40) > 0.01
        else:
            assert all(changed(frames[0], f, 25) < 1e-4 for f in frames[1:])
            assert all(0 < np.abs(frames[0].astype(np.int16) - f).mean() < 4 for f in frames[1:])


def test_a_layout_looks_the_same_however_the_table_got_there(camera: SimulatedCamera,
                                                             layouts: list[TableLayout]) -> None:
    camera.render(layouts[3])
    via_others = camera.render(layouts[-1], rng=np.random.default_rng(5))
    fresh = SimulatedCamera(table()).render(layouts[-1], rng=np.random.default_rng(5))
    assert np.abs(via_others.astype(np.int16) - fresh).max() <= 2


def test_buttons_reach_the_sink_in_order_then_the_night_ends() -> None:
    cam = SimulatedCamera(table(seed=4, illegal_every=7), still_frames=1, moving_frames=0)
    expected = [s.button for s in table(seed=4, illegal_every=7).steps() if s.button is not None]
    pressed: list[ButtonEvent] = []
    with pytest.raises(CameraError, match="attach_buttons"):
        while True:
            cam.read()
    cam.attach_buttons(pressed.append)
    frames = 0
    with pytest.raises(EndOfFrames, match="game night is over"):
        while True:
            cam.read()
            frames += 1
    assert pressed == expected and len(expected) > 3
    with pytest.raises(EndOfFrames):
        cam.read()
    moves = len(cam.table.record["hands"][0]["moves"])  # type: ignore[index]
    progress = cam.progress
    assert progress.moves == moves and progress.hand == progress.hands == 1
    assert str(progress).startswith("hand 1/1, ")
    cam.close()
    assert cam.closed


def test_opener_reads_its_options() -> None:
    cam = open_simulated("seats=5, hands=2,seed=7,illegal_every=9,still_frames=3,moving_frames=1")
    assert cam.name == "simulated:seats=5,hands=2,seed=7,illegal_every=9,still_frames=3,moving_frames=1"
    assert len(cam.table.players) == 5 and cam.table.hands == 2 and cam.table.seed == 7
    assert cam.table.illegal_every == 9 and (cam.still_frames, cam.moving_frames) == (3, 1)
    plain = open_simulated("")
    assert len(plain.table.players) == 4 and plain.table.hands == 4 and plain.table.illegal_every is None


@pytest.mark.parametrize("arg, message", [
    ("colour=red", "no option 'colour'"),
    ("seats=nine", "seats takes a whole number, not 'nine'"),
    ("seats=9", "seats must be 3 to 6, not 9"),
    ("hands=0", "hands must be 1 or more"),
    ("seed", "write seed=NUMBER"),
    ("seed=1,seed=2", "seed is given twice"),
])
def test_opener_rejects_bad_options_in_one_line(arg: str, message: str) -> None:
    with pytest.raises(UnknownBackend, match=message) as err:
        open_simulated(arg)
    assert "\n" not in str(err.value)
    register_camera("simulated", adapter("bigtop").open_simulated)
    with pytest.raises(UnknownBackend, match=message):
        open_camera(f"simulated:{arg}")


def test_open_camera_simulated_delivers_frames() -> None:
    register_camera("simulated", adapter("bigtop").open_simulated)
    with open_camera("simulated:seats=3,hands=1") as cam:
        assert isinstance(cam, SimulatedCamera) and cam.name == "simulated:seats=3,hands=1"
        frame = cam.read()
        assert frame.shape == (960, 1280, 3) and frame.dtype == np.uint8


def _after_move(seed: int, hands: int, hand: int, at_least: int) -> tuple[int, TableLayout]:
    """The first move numbered ``at_least`` or later in ``hand`` that changes the table, and the layout after it."""
    t = table(seed, hands)
    count = 0
    for step in t.steps():
        played: list[dict[str, list[str]]] = t.record["hands"]  # type: ignore[assignment]
        if len(played) == hand and step.truth is not None:
            count = len(played[-1]["moves"])
            if count >= at_least and step.layout is not None:
                return count, step.layout
    raise AssertionError("no such move")


def test_fast_forward_shows_the_table_after_the_journalled_move() -> None:
    moves, expected = _after_move(5, 2, 1, 9)
    with SimulatedCamera(table(5, 2), still_frames=1, moving_frames=1) as cam:
        cam.attach_buttons(lambda event: None)
        cam.fast_forward(1, moves)
        assert cam.progress.moves == moves and cam.progress.frames == 0
        cam.read()
        assert cam.layout == expected
        with pytest.raises(ValueError, match="already past"):
            cam.fast_forward(1, moves - 1)


def test_fast_forward_to_a_new_hand_shows_its_first_layout() -> None:
    with SimulatedCamera(table(5, 2), still_frames=1) as cam:
        cam.attach_buttons(lambda event: None)
        cam.fast_forward(2, 0)
        cam.read()
        assert cam.progress.hand == 2
        assert cam.layout is not None and cam.layout.snapshot.charts == ((None,) * 4,) * 4
        assert cam.layout.snapshot.visible() == frozenset()
