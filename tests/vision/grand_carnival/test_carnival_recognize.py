"""Reading Grand Carnival markets from a frame: every place read right, unsure places held, never guessed."""

from __future__ import annotations

import dataclasses
import json
import random
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.bench_grand_carnival_vision import random_turn
from firmware.cli import main
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.codec import board_from_parts
from scorer.grand_carnival.components import CATALOG, cell_name, cells_of, mask_of, parse_cell
from scorer.grand_carnival.model import Attraction, Board, TrickStatus
from scorer.grand_carnival.scoring import score_board
from vision.calibrate import Marker
from vision.camera_model import photograph
from vision.cli import RECOGNISABLE, cmd_recognize
from vision.grand_carnival.layout import BOARD, FIELD, WAGON, board_marker_ids
from vision.grand_carnival.pipeline import (
    _DIP,
    _JOINED,
    _PIECES,
    _SPLIT,
    MarketView,
    NoBoardError,
    Recognizer,
    _attractions,
    _bare,
    _Board,
    _box_figure,
    _classify,
    _classify_many,
    _clipped_class,
    _clipped_place,
    _edge_dip,
    _edge_ratio,
    _exposed_empty,
    _figure_blend,
    _figure_near,
    _figure_on,
    _glare_classes,
    _glare_clipped,
    _glare_tint,
    _glare_votes,
    _glared_place,
    _least_glare,
    _marked,
    _no_ticket_under_glare,
    _paper_under_glare,
    _pose,
    _px,
    _read_fields,
    _settle_by_shapes,
    _unclipped_colour,
    _washed_tile_fields,
    _white_fit,
)
from vision.grand_carnival.printing import (
    ATTRACTION,
    BARKER,
    EMPTY,
    FIGURE,
    GUEST,
    SITE,
    TENT_PLACE,
    TICKET,
    WALKWAY,
)
from vision.grand_carnival.scene import (
    MarketScene,
    WagonScene,
    board_origin,
    content_region,
    frame,
    render_top_down,
    wagon_origin,
)

WIDTH = 1280


def truth_market(board: Board) -> list[str]:
    """The board's fields in the view's letters, worked out from the engine's masks."""
    chars = ["."] * 64
    for c in cells_of(board.walkways):
        chars[c] = "w"
    for c in cells_of(board.sites):
        chars[c] = "s"
    for c in cells_of(board.guests):
        chars[c] = "g" if chars[c] == "w" else "G"
    for c in cells_of(board.barkers):
        chars[c] = "b"
    return ["".join(chars[r * 8:(r + 1) * 8]) for r in range(8)]


@lru_cache(maxsize=4)
def played_board(seed: int, moves: int) -> Board:
    """A seat-0 board from a random game stopped after ``moves`` moves, with guests in the tent and a trick."""
    game = GrandCarnival()
    record = game.simulate(players=["A", "B"], rng=random.Random(seed))
    state = game.record_state(record)
    for text in record["moves"][:moves]:
        state, _ = game.apply_unchecked(state, game.parse_move(state, text))
    b = state.boards[0]
    tricks = (TrickStatus.LEARNED,) + b.tricks[1:]
    return Board(b.parcels, b.attractions, b.walkways, b.sites, b.covered, b.guests, b.entrances, 3, b.barkers,
                 frozenset({2, 5}), tricks)


def fields(*names: str) -> int:
    cells = [parse_cell(n) for n in names]
    assert None not in cells
    return mask_of([c for c in cells if c is not None])


def hand_made(attractions: tuple[Attraction, ...]) -> Board:
    """Every parcel "ss/ss"-like sites row on top (the ``ww/ss`` tile), the rest empty; the attractions given."""
    parcels: tuple[str | None, ...] = ("ww/ss",) * 4 + (None,) * 12
    return board_from_parts(parcels, attractions, 0, (True, False), 0, 0, frozenset(), (TrickStatus.OPEN,) * 3,
                            CATALOG)


def read(board: Board, seat: int = 0, jitter: int | None = 7) -> MarketView:
    result = Recognizer().recognize(frame([MarketScene(board, seat, jitter)], WIDTH))
    assert [v.seat for v in result.views] == [seat]
    return result.views[0]


def test_a_played_market_is_read_place_by_place() -> None:
    board = played_board(3, 60)
    view = read(board)
    assert view.unrecognised == ()
    assert list(view.market) == truth_market(board)
    assert set(view.attractions) == {(a.shape, a.mask, a.tickets) for a in board.attractions}
    assert view.entrances == board.entrances
    assert (view.tent, view.numbers, view.tricks) == (3, frozenset({2, 5}), 1)


def test_attractions_side_by_side_are_told_apart_by_their_outlines() -> None:
    two = (Attraction("O1", fields("a7"), 1), Attraction("O1", fields("b7"), 0))
    view = read(hand_made(two))
    assert view.unrecognised == ()
    assert set(view.attractions) == {("O1", fields("a7"), 1), ("O1", fields("b7"), 0)}
    one = (Attraction("I2", fields("a7", "b7"), 2),)
    assert read(hand_made(one)).attractions == (("I2", fields("a7", "b7"), 2),)


def patch_board(image: np.ndarray, x: float, y: float, w: float, h: float, colour: tuple[int, int, int]) -> None:
    """Paint board rectangle (mm) of the first board in a `frame` image."""
    x0, y0, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    cv2.rectangle(image, (int((x - x0) * s), int((y - y0) * s)), (int((x + w - x0) * s), int((y + h - y0) * s)),
                  colour, -1)


@pytest.mark.parametrize("colour", [(255, 255, 255), (120, 160, 200), (40, 40, 40)], ids=["glare", "skin", "shadow"])
def test_a_covered_parcel_is_held_not_guessed(colour: tuple[int, int, int]) -> None:
    board = played_board(3, 60)
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    x, y, _, _ = BOARD.field_rect(18)  # the parcel of c6
    patch_board(image, x + 2, y + 2, 2 * FIELD - 4, 2 * FIELD - 4, colour)
    view = Recognizer().recognize(image).views[0]
    assert any("c6" in u.where for u in view.unrecognised)
    text, truth = "".join(view.market), "".join(truth_market(board))
    assert all(text[c] in ("?", truth[c]) for c in range(64))  # nothing read wrong
    assert text[18] == "?" and not view.complete
    with pytest.raises(ValueError, match="seat 1: the parcel at c6"):
        view.position("seat1")


def test_two_markets_in_one_frame_are_each_read_by_their_seat() -> None:
    a, b = played_board(3, 60), played_board(4, 40)
    result = Recognizer().recognize(frame([MarketScene(a, 2, 1), MarketScene(b, 0, 2)], 1600))
    views = {v.seat: v for v in result.views}
    assert set(views) == {0, 2}
    assert list(views[2].market) == truth_market(a) and list(views[0].market) == truth_market(b)
    assert board_origin(1)[0] > BOARD.width


def test_no_board_in_view() -> None:
    with pytest.raises(NoBoardError, match="no Grand Carnival market board"):
        Recognizer().recognize(np.full((480, 640, 3), 128, np.uint8))


def test_recognize_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert RECOGNISABLE["grand-carnival"] == "vision.grand_carnival.cli"
    photo = tmp_path / "market.png"
    cv2.imwrite(str(photo), frame([MarketScene(played_board(3, 60), 1, 5)], WIDTH))
    out_png = tmp_path / "seen.png"
    assert cmd_recognize([str(photo), "--game", "grand-carnival", "--json", "--annotate", str(out_png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["seat"] for b in data["boards"]] == [2] and data["boards"][0]["unrecognised"] == []
    assert out_png.stat().st_size > 0
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    assert cmd_recognize([str(blank), "--game", "grand-carnival"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Grand Carnival market board" in err


def test_score_a_photo_of_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = played_board(3, 60), played_board(4, 40)
    photo = tmp_path / "table.jpg"
    region = content_region(2)
    cv2.imwrite(str(photo), render_top_down([MarketScene(a, 0, 1), MarketScene(b, 1, 2)], 1600 / (region[2] - region[0])),
                [cv2.IMWRITE_JPEG_QUALITY, 92])
    drawn = tmp_path / "scored.png"
    assert main(["score", "grand-carnival", str(photo), "--json", "--annotate", str(drawn)]) == 0
    data = json.loads(capsys.readouterr().out)
    catalog = GrandCarnival().catalog
    for name, board in (("seat1", a), ("seat2", b)):
        expected = score_board(board, catalog)
        assert data["players"][name]["total"] == expected.total
        assert data["players"][name]["hammers"] == expected.hammers
    assert set(data["scores"]) == {"seat1", "seat2"} and drawn.stat().st_size > 0


def test_score_a_photo_that_cannot_be_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = frame([MarketScene(played_board(3, 60), 0, 7)], WIDTH)
    x, y, _, _ = BOARD.field_rect(18)
    patch_board(image, x + 2, y + 2, 2 * FIELD - 4, 2 * FIELD - 4, (255, 255, 255))
    photo = tmp_path / "glare.png"
    cv2.imwrite(str(photo), image)
    assert main(["score", "grand-carnival", str(photo)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "c6" in err and "Traceback" not in err
    assert main(["score", "flohcati", str(photo), "--annotate", str(tmp_path / "x.png")]) == 2


def test_the_wagon_row_is_read_slot_by_slot() -> None:
    wagon = WagonScene(("ss/sw", None, "ww/ws", "sw/ss"), (5, 0), jitter=3)
    result = Recognizer().recognize(frame([MarketScene(played_board(3, 60), 0, 1)], 1400, wagon=wagon))
    assert result.railyard is not None and result.railyard.unrecognised == ()
    assert result.railyard.open == ("ss/sw", None, "ww/ws", "sw/ss")
    assert result.railyard.stacks == (True, False)
    assert [v.seat for v in result.views] == [0]


def test_a_covered_wagon_slot_is_held() -> None:
    wagon = WagonScene(("ss/sw", "ws/ss", "ww/ws", "sw/ss"), (5, 5), jitter=3)
    region = content_region(0, wagon=True)
    s = 1280 / (region[2] - region[0])
    image = render_top_down([], s, region, wagon=wagon)
    x, y, w, h = WAGON.slot_rect("3")
    ox, oy = wagon_origin(0)
    cv2.rectangle(image, (int((ox + x + 3 - region[0]) * s), int((oy + y + 3 - region[1]) * s)),
                  (int((ox + x + w - 3 - region[0]) * s), int((oy + y + h - 3 - region[1]) * s)), (255, 255, 255), -1)
    railyard = Recognizer().recognize(image).railyard
    assert railyard is not None
    assert [u.where for u in railyard.unrecognised] == ["railyard 3"]
    assert railyard.open[0] == "ss/sw" and railyard.open[2:] == ("ww/ws", "sw/ss")


@pytest.mark.parametrize(("cell", "parcel"), [(0, (0, 1, 8, 9))], ids=["tile"])
def test_a_hand_over_one_field_holds_that_field_and_reads_the_rest_of_its_parcel(
        cell: int, parcel: tuple[int, ...]) -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    x, y, _, _ = BOARD.field_rect(cell)
    patch_board(image, x + 2, y + 2, FIELD - 4, FIELD - 4, (120, 160, 200))
    view = Recognizer().recognize(image).views[0]
    text, truth = "".join(view.market), "".join(truth_market(board))
    assert text[cell] == "?"
    assert [text[c] for c in parcel if c != cell] == [truth[c] for c in parcel if c != cell]
    assert all(text[c] in ("?", truth[c]) for c in range(64))
    assert any(cell_name(parcel[0]) in u.where for u in view.unrecognised)


@pytest.mark.parametrize("hammer_hidden", [False, True], ids=["hammer-in-view", "hammer-hidden"])
def test_an_empty_parcel_partly_hidden_is_read_whole_only_with_its_hammer_in_view(hammer_hidden: bool) -> None:
    # a tile covers its whole parcel, and one lying off it would hide the hammer at the parcel's middle
    board = hand_made(())
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    x, y, _, _ = BOARD.field_rect(16)  # a6, of the empty parcel a6 b6 a5 b5
    grow = 6.0 if hammer_hidden else 0.0
    patch_board(image, x + 2, y + 2, FIELD - 4 + grow, FIELD - 4 + grow, (120, 160, 200))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    if hammer_hidden:
        assert [text[c] for c in (16, 17, 24, 25)].count("?") >= 1
        assert any("a6" in u.where for u in view.unrecognised)
    else:
        assert [text[c] for c in (16, 17, 24, 25)] == ["."] * 4
        assert not any("a6" in u.where for u in view.unrecognised)
    truth = "".join(truth_market(board))
    assert all(text[c] in ("?", truth[c]) for c in range(64))


def test_a_parcel_showing_both_a_tile_and_the_empty_parcel_is_held_whole() -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    # a8 hidden, b8 painted the empty parcel's colour: a tile cannot lie half on its parcel
    for cell, colour in ((0, (120, 160, 200)), (1, EMPTY)):
        x, y, _, _ = BOARD.field_rect(cell)
        patch_board(image, x + 1, y + 1, FIELD - 2, FIELD - 2, colour)
    text = "".join(Recognizer().recognize(image).views[0].market)
    assert [text[c] for c in (0, 1, 8, 9)] == ["?"] * 4


def test_glare_saturating_part_of_a_field_leaves_the_rest_to_read() -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    truth = "".join(truth_market(board))
    for cell in (1, 10):  # a walkway and a site: their left 40 % blown out white
        x, y, _, _ = BOARD.field_rect(cell)
        patch_board(image, x + 1, y + 1, 0.4 * FIELD, FIELD - 2, (255, 255, 255))
    # a field blown out all over is held
    x, y, _, _ = BOARD.field_rect(4)
    patch_board(image, x + 1, y + 1, FIELD - 2, FIELD - 2, (255, 255, 255))
    text = "".join(Recognizer().recognize(image).views[0].market)
    assert (text[1], text[10], text[4]) == (truth[1], truth[10], "?")
    assert all(text[c] in ("?", truth[c]) for c in range(64))


def test_an_attraction_partly_hidden_is_held_and_its_clear_fields_read_as_sites() -> None:
    piece = Attraction("I2", fields("a7", "b7"), 0)
    board = hand_made((piece,))
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    x, y, _, _ = BOARD.field_rect(parse_cell("b7") or 0)
    patch_board(image, x + 2, y + 2, FIELD - 4, FIELD - 4, (120, 160, 200))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    assert view.attractions == ()
    assert (text[parse_cell("a7") or 0], text[parse_cell("b7") or 0]) == ("s", "?")
    assert any(u.where == "a7" for u in view.unrecognised)
    # the fields the problems hold: the whole piece, its clear field too (the referee takes none of it alone)
    held = 0
    for u in view.unrecognised:
        held |= u.fields
    assert held & piece.mask == piece.mask


def under_glare(bgr: tuple[int, int, int], glare: float, light: float = 1.0) -> np.ndarray:
    """A printed colour as the paper's white normalises it, lit by ``light`` and with grey ``glare`` added (linear)."""
    linear = light * (np.array(bgr, np.float64) / 255.0) ** 2.2 + glare
    return np.asarray(linear ** (1 / 2.2))


RING = ("empty", "walkway", "site", "attraction")


@pytest.mark.parametrize("kind", ["walkway", "site", "attraction"])
def test_a_tile_washed_out_by_glare_is_read_as_it_is_or_held(kind: str) -> None:
    colour = {"walkway": WALKWAY, "site": SITE, "attraction": ATTRACTION}[kind]
    for glare in (0.0, 0.1, 0.3, 0.5, 0.8):
        assert _classify(under_glare(colour, glare), RING, glare=True) in (kind, None)
    # glare leaves the tile's own colour, which the reading allowing for glare finds
    assert _glare_classes(under_glare(colour, 0.3)[None], RING) == [kind]
    assert _glare_classes(under_glare(colour, 0.5)[None], RING) == [kind]
    if kind != "attraction":  # (a washed-out attraction comes near the empty colour: held, as both readings differ)
        assert _classify(under_glare(colour, 0.3), RING, glare=True) == kind


def test_glare_reading_tells_the_empty_parcel_from_a_tile() -> None:
    assert _classify(under_glare(EMPTY, 0.0), RING, glare=True) == "empty"
    assert _glare_classes(under_glare(EMPTY, 0.3)[None], RING) == ["empty"]
    # grey, a hand's shadow over white or glare over paper, is no class's colour
    assert _glare_classes(np.array([[0.6, 0.6, 0.6], [1.1, 1.1, 1.1]]), RING) == [None, None]


def spot(bgr: tuple[int, int, int], glare: float = 0.0, share: float = 1.0) -> np.ndarray:
    """A figure place's middle (N, 3): ``share`` of it the colour ``bgr``, the rest white paper, under ``glare``."""
    n = 200
    k = int(share * n)
    return np.array([under_glare(bgr, glare)] * k + [under_glare((255, 255, 255), glare)] * (n - k))


def test_a_figure_under_glare_or_half_in_view_is_never_read_as_absent() -> None:
    assert _figure_on(spot(FIGURE)) is True
    assert _figure_on(spot((255, 255, 255))) is False
    for glare in (0.1, 0.3, 0.6, 1.0):
        assert _figure_on(spot(FIGURE, glare)) in (True, None)
        assert _figure_on(spot((255, 255, 255), glare)) in (None, False)
    for share in (0.2, 0.35, 0.5):
        assert _figure_on(spot(FIGURE, 0.0, share)) in (True, None)
    assert _figure_on(spot(FIGURE, 0.3)) is True



def test_paper_under_no_glare_is_never_a_figure_whatever_the_white_balance() -> None:
    # the paper's white measured yellowish (a frame of the camera model): its own paper, a little below the
    # white's fit, holds no figure, though across a tinted glare's colour it looks like one
    white = np.array([234.0, 221.0, 206.0])
    box = np.repeat((np.array([225.0, 212.0, 196.0]) / white)[None], 200, axis=0)
    assert _figure_on(box, np.zeros(200, bool), _glare_tint(white[None])[0]) is not True

def test_a_box_lit_brighter_than_the_paper_holds_no_figure_only_where_paper_under_glare_shows() -> None:
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(300):
        # the paper's white as a camera balanced it, and glare of the lamp's own colour
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        glare = rng.uniform(0.0, 2.5) * tint
        paper = (rng.uniform(0.95, 1.1) + glare) ** (1 / 2.2)
        figure = (rng.uniform(0.7, 1.2) * light_of(FIGURE) + glare) ** (1 / 2.2)
        if (paper * white).max() >= 248:
            continue  # clipped: the glare reading below has nothing to go on
        box = paper[None] + rng.normal(0.0, 0.004, (200, 3))
        if paper.max() > 1.04:
            seen.add(_figure_on(box, tint=tint))
        for share in (1.0, 0.5, 0.2):
            k = int(200 * share)
            assert _figure_on(np.vstack([np.repeat(figure[None], k, 0), box[k:]]), tint=tint) is not False
    assert False in seen  # paper lit brighter than its white is read as no figure
    # most of the box saturated: nothing is said of it; a part saturated, paper under glare all over the rest:
    # no figure (a figure laid on the box would show in every pixel glare left)
    lit = np.full((200, 3), 1.1)
    assert _figure_on(lit, np.arange(200) < 180) is None
    assert _figure_on(lit, np.arange(200) < 100) is False


def test_paper_needing_the_most_glare_its_white_leaves_room_for_is_paper() -> None:
    # a trick box of a 2304x1296 medium frame, lit by glare of the tint: across the tint its colour asks for more
    # glare than the white's share (at least the gain) leaves room for, so it takes the most; the white's share
    # left is then the gain itself, and must not be judged short of it by a rounding error
    tint = np.array([0.56294828, 0.61361299, 0.55368614])
    box = np.array([[1.11, 1.12, 1.101], [1.086, 1.095, 1.078], [1.119, 1.13, 1.111]])
    assert _paper_under_glare(box, tint).all()
    assert _paper_under_glare(box, tint, 0.8).all()
    assert _figure_on(np.repeat(box, 80, axis=0), tint=tint) is False
    # paper too dark for the white's share is no paper under any glare
    assert not _paper_under_glare(np.full((1, 3), 0.9), tint).any()


def test_a_figure_glare_saturates_mostly_or_lights_unevenly_is_never_read_as_absent() -> None:
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        # a spot saturating from a tenth of the place to nearly all of it, falling off across the rest
        hot = int(rng.integers(20, 170))
        glare = np.concatenate([np.full(hot, 3.0), np.linspace(rng.uniform(0.2, 1.5), 0.0, 200 - hot)])[:, None] * tint
        lit = rng.uniform(0.7, 1.2) * light_of(FIGURE)[None] + glare + rng.normal(0.0, 0.004, (200, 3))
        raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255).astype(np.uint8).astype(np.float64)
        on = _figure_on(raw / white, _glare_clipped(raw[None], white[None])[0], tint, raw.max(axis=1) >= 248)
        seen.add(on)
        assert on is not False
    assert True in seen


@pytest.mark.parametrize("allowed", [("walkway", "guest", "barker"), ("site", "guest"), ("attraction", "ticket"),
                                     ("tent", "guest"), ("walkway", "guest")])
def test_a_colour_glare_clipped_in_one_channel_is_never_read_as_another_class(allowed: tuple[str, ...]) -> None:
    rng = np.random.default_rng(len(allowed) + len(allowed[0]))
    protos = {"walkway": WALKWAY, "guest": GUEST, "barker": BARKER, "site": SITE, "attraction": ATTRACTION,
              "ticket": TICKET, "tent": TENT_PLACE}
    read = 0
    for trial in range(1500):
        truth = allowed[trial % len(allowed)]
        white_light = rng.uniform(0.55, 1.05) * rng.uniform(0.75, 1.25, 3)  # exposure and white balance
        light = rng.uniform(0.8, 1.1) * light_of(protos[truth]) * white_light + rng.uniform(0.1, 1.5) * np.array(
            [1.0, 0.98, 0.95])
        raw = np.clip(255 * np.clip(light, 0, 1) ** (1 / 2.2) + rng.normal(0, 1.5, 3), 0, 255)
        # the paper's white as its fit over the board measures it, a few per cent off
        white = 255 * np.clip(white_light, 0, 1) ** (1 / 2.2) * rng.uniform(0.96, 1.04, 3)
        if white.max() > 250:
            continue
        got = _clipped_class(raw, white, _glare_tint(white[None])[0], allowed)
        assert got in (None, truth)
        read += got == truth
    assert read > 10
    # nothing clipped, or all three channels, or a channel left near clipping: the other readings' colours
    white = np.full(3, 220.0)
    assert _clipped_class(np.array([200.0, 180.0, 160.0]), white, _glare_tint(white[None])[0], allowed) is None
    assert _clipped_class(np.array([255.0, 252.0, 250.0]), white, _glare_tint(white[None])[0], allowed) is None
    assert _clipped_class(np.array([255.0, 247.0, 160.0]), white, _glare_tint(white[None])[0], allowed) is None


@pytest.mark.parametrize("allowed", [("site", "guest"), ("attraction", "ticket"), ("tent", "guest"),
                                     ("walkway", "guest")])
def test_a_colour_glare_clipped_in_two_channels_is_read_from_the_third_never_as_another_class(
        allowed: tuple[str, ...]) -> None:
    rng = np.random.default_rng(len(allowed[0]))
    protos = {"walkway": WALKWAY, "guest": GUEST, "site": SITE, "attraction": ATTRACTION, "ticket": TICKET,
              "tent": TENT_PLACE}
    read = tried = 0
    for trial in range(3000):
        truth = allowed[trial % len(allowed)]
        white_light = rng.uniform(0.55, 1.05) * rng.uniform(0.75, 1.25, 3)
        light = rng.uniform(0.8, 1.1) * light_of(protos[truth]) * white_light + rng.uniform(0.1, 1.5) * np.array(
            [1.0, 0.98, 0.95])
        raw = np.clip(255 * np.clip(light, 0, 1) ** (1 / 2.2) + rng.normal(0, 1.5, 3), 0, 255)
        white = 255 * np.clip(white_light, 0, 1) ** (1 / 2.2) * rng.uniform(0.96, 1.04, 3)
        if white.max() > 250 or int((raw >= 248).sum()) != 2:
            continue
        tried += 1
        got = _clipped_class(raw, white, _glare_tint(white[None])[0], allowed)
        assert got in (None, truth)
        read += got == truth
    assert tried > 50 and read > 10


def test_a_walkway_glare_clipped_green_is_told_from_a_guest_by_the_gains_a_print_can_have() -> None:
    # a walkway's middle from a frame of the camera model: green clipped, blue and red lit near the paper's
    # white. A guest (little green) would need a gain no print has to leave green clipped so.
    white = np.array([241.0, 230.0, 226.0])
    raw = np.array([238.0, 254.0, 230.0])
    assert _clipped_class(raw, white, _glare_tint(white[None])[0], ("walkway", "guest", "barker")) == "walkway"
    # a guest under the same glare leaves green below the others: never read as a walkway
    tint = _glare_tint(white[None])[0]
    guest = 255 * np.clip(light_of(GUEST) * (white / 255) ** 2.2 + 0.8 * tint, 0, 1) ** (1 / 2.2)
    assert _clipped_class(guest, white, tint, ("walkway", "guest", "barker")) in (
        "guest", None)


def test_a_ring_glare_clipped_in_one_channel_is_read_from_the_two_others() -> None:
    board = hand_made(())
    image = (frame([MarketScene(board, 0, 7)], WIDTH).astype(np.float64) * 0.8).astype(np.uint8)
    truth = "".join(truth_market(board))
    cell = 1  # a walkway of the top row's tiles, under glare that clips its green alone
    lit = light_of(WALKWAY) * 0.8 ** 2.2 + 0.6
    colour = tuple(int(v) for v in np.clip(255 * np.clip(lit, 0, 1) ** (1 / 2.2), 0, 255))
    assert colour[1] >= 250 and max(colour[0], colour[2]) < 240
    x, y, _, _ = BOARD.field_rect(cell)
    patch_board(image, x, y, FIELD, FIELD, colour)
    text = "".join(Recognizer().recognize(image).views[0].market)
    assert text[cell] == truth[cell] == "w"
    assert all(text[c] in ("?", truth[c]) for c in range(64))


def test_a_place_glare_clipped_unevenly_is_not_read_from_its_median() -> None:
    white = np.full(3, 220.0)
    tint = _glare_tint(white[None])[0]
    # a construction site under glare that clips its red
    light = light_of(SITE) * light_of((220, 220, 220)) + 0.5
    even = np.repeat(255 * np.clip(light, 0, 1)[None] ** (1 / 2.2), 60, axis=0)
    assert _clipped_place(even, white, tint, ("site", "guest")) == "site"
    # half of it clipped in another channel, or its colour changing across it: no reading
    mixed = np.vstack([even[:30], np.array([[255.0, 200.0, 240.0]] * 30)])
    assert _clipped_place(mixed, white, tint, ("site", "guest")) is None
    ramp = even.copy()
    ramp[:, 1] = np.linspace(150.0, 240.0, 60)
    assert _clipped_place(ramp, white, tint, ("site", "guest")) is None


@pytest.mark.parametrize("place", ["entrance", "tent"])
def test_a_guest_beside_the_middle_of_a_place_is_never_read_as_none(place: str) -> None:
    # where the board's position is off by a few mm (a corner marker hidden), a guest shows beside
    # the middle the place is read at
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    x, y, w, h = BOARD.entrance_rect(CATALOG.entrance_cells[1] % 8) if place == "entrance" else BOARD.tent_rect(5)
    x0, y0, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    centre = (int((x + w / 2 + 5.0 - x0) * s), int((y + h / 2 - y0) * s))
    cv2.circle(image, centre, int(4.5 * s), GUEST, -1)
    view = Recognizer().recognize(image).views[0]
    if place == "entrance":
        assert view.entrances == (True, None)
    else:
        assert view.tent is None
    assert any(u.where in ("in2", "tent place 6") for u in view.unrecognised)


def test_pixels_glare_saturated_are_told_from_a_bright_print_clipping_one_channel() -> None:
    white = np.full((1, 3), 230.0)
    pixels = np.array([[[255, 255, 255], [250, 252, 240], [20, 210, 255], [120, 255, 110], [200, 200, 200]]], np.uint8)
    assert _glare_clipped(pixels, white).tolist() == [[True, True, False, False, False]]


def test_a_middle_under_the_same_glare_as_its_ring_is_bare_a_piece_never() -> None:
    # glare tinted by the white balance, as on a hard frame: the difference of middle and ring stays grey
    def lit(bgr: tuple[int, int, int], glare: float) -> np.ndarray:
        return np.asarray((light_of(bgr) + glare * np.array([1.2, 1.0, 0.8])) ** (1 / 2.2))

    # the pieces each field may hold
    for field, pieces in ((WALKWAY, (GUEST, BARKER)), (SITE, (GUEST,)), (ATTRACTION, (TICKET,))):
        for ring_glare, middle_glare in ((0.0, 0.0), (0.3, 0.35), (0.6, 0.5)):
            assert _bare(lit(field, ring_glare), lit(field, middle_glare))
            for piece in pieces:
                for light in (0.6, 1.0):  # a piece in a hand's shadow
                    middle = (light * light_of(piece) + middle_glare * np.array([1.2, 1.0, 0.8])) ** (1 / 2.2)
                    assert not _bare(lit(field, ring_glare), middle)


def light_of(bgr: tuple[int, int, int]) -> np.ndarray:
    """A printed colour in linear light, as the paper's white normalises it."""
    return np.asarray((np.array(bgr, np.float64) / 255.0) ** 2.2)


def test_a_field_glare_lights_unevenly_is_read_from_its_pixels_glare_lit_least() -> None:
    # a walkway's ring: a third of it clean, the rest under glare falling off across it, a little noise
    rng = np.random.default_rng(5)
    glare = np.concatenate([np.zeros(100), np.linspace(0.05, 0.9, 200)])
    lit = light_of(WALKWAY)[None] + glare[:, None] + rng.normal(0, 0.004, (300, 3))
    pixels = 230.0 * np.clip(lit, 0, None) ** (1 / 2.2)
    least = _least_glare(pixels, np.zeros(300, bool))
    assert least is not None
    assert _classify(least / 230.0, RING, glare=True) == "walkway"
    assert _classify(np.median(pixels, axis=0) / 230.0, RING) is None  # the median alone: unclear
    # lit evenly (a hand's skin, a shadow): nothing to take the least-lit pixels from
    even = 230.0 * np.clip(light_of((120, 160, 200))[None] + rng.normal(0, 0.004, (300, 3)), 0, None) ** (1 / 2.2)
    assert _least_glare(even, np.zeros(300, bool)) is None
    # saturated almost all over: too little left to read
    assert _least_glare(pixels, np.arange(300) >= 30) is None


def test_glare_of_the_light_the_white_balance_left_is_allowed_for_and_paper_stays_no_piece() -> None:
    # the paper's white measured bluish: glare, which the camera did not tint, shows as its opposite
    white = np.array([[235.0, 200.0, 175.0]])
    tint = _glare_tint(white)
    glare_colour = tint[0] / tint[0].mean()
    for piece, place in ((GUEST, "tent"), (GUEST, "walkway"), (TICKET, "attraction")):
        allowed = (place, "guest" if piece == GUEST else "ticket")
        lit = (light_of(piece) + 0.35 * glare_colour) ** (1 / 2.2)
        assert _glare_classes(lit[None], allowed, tint) == [allowed[1]]
        bare = (light_of({"tent": TENT_PLACE, "walkway": WALKWAY, "attraction": ATTRACTION}[place])
                + 0.35 * glare_colour) ** (1 / 2.2)
        assert _glare_classes(bare[None], allowed, tint) in ([place], [None])
        # the paper (or glare over it) is no piece
        paper = (np.full(3, 0.9) + 0.3 * glare_colour) ** (1 / 2.2)
        assert _glare_classes(paper[None], allowed, tint) == [None]
    # without glare the tinted reading adds nothing: a colour no class has stays unclear
    assert _glare_classes(np.array([[0.73, 0.77, 1.08]]), RING, tint) == [None]


def test_an_empty_parcel_exposed_a_little_long_is_no_glare() -> None:
    # its light blue clips, its other channels stay below the paper's
    white = np.full((1, 3), 250.0)
    pixels = np.array([[[255, 225, 205], [255, 255, 252]]], np.uint8)
    assert _glare_clipped(pixels, white).tolist() == [[False, True]]


def test_glare_falling_off_across_one_attraction_is_no_outline() -> None:
    rect = np.full((_px(BOARD.height), _px(BOARD.width), 3), 255, np.uint8)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    n = _px(FIELD)
    # fields a8 and a7 of one piece: glare bright over a8, falling off steeply across the edge to a7's colour
    fall = np.full(2 * n, 140.0)
    fall[:n - _px(3.0)] = 250.0
    fall[n - _px(3.0):n + _px(1.0)] = np.linspace(250.0, 140.0, _px(4.0))
    rect[y0:y0 + 2 * n, x0:x0 + n] = fall.astype(np.uint8)[:, None, None]
    board = _Board(rect, np.zeros((6, 3)), CATALOG)
    assert _edge_ratio(board, 0, 8) >= _JOINED
    # two pieces: their outlines, a dark band across the edge, whatever the glare
    rect[y0 + n - 4:y0 + n + 4, x0:x0 + n] = 30
    assert _edge_ratio(board, 0, 8) < _SPLIT


@pytest.mark.parametrize("badges", [False, True], ids=["no-badges", "badges"])
def test_a_site_showing_between_two_attractions_without_an_outline_holds_them(badges: bool) -> None:
    # two pieces laid apart, the site between them showing over their outlines: hardly darker than
    # the pieces, so no outline parts them, but of another colour than a piece's print
    assert float(np.mean(SITE)) > _JOINED * float(np.mean(ATTRACTION))
    two = (Attraction("O1", fields("a7"), 0), Attraction("O1", fields("b7"), 0))
    image = frame([MarketScene(hand_made(two), 0, None)], WIDTH)
    x, y, _, _ = BOARD.field_rect(parse_cell("b7") or 0)
    patch_board(image, x - 1.0, y + 1.0, 2.0, FIELD - 2.0, SITE)
    if not badges:  # pieces printed without Ringside's badge (their first fields' top right corners)
        for name in ("a7", "b7"):
            fx, fy, _, _ = BOARD.field_rect(parse_cell(name) or 0)
            patch_board(image, fx + FIELD - 5.8, fy + 1.1, 4.6, 4.6, ATTRACTION)
    view = Recognizer().recognize(image).views[0]
    if badges:  # each piece's own badge: one piece cannot hold both, so the two ways leave one
        assert view.attractions == (("O1", fields("a7"), 0), ("O1", fields("b7"), 0))
        assert not any("a7" in u.where for u in view.unrecognised)
    else:
        assert view.attractions == ()
        assert any(u.where == "a7-b7" for u in view.unrecognised)


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_an_attraction_s_badge_marks_its_first_field_alone_in_every_turn(turn: int) -> None:
    # an L3 and the fields under it turned four ways: its badge, in its first field's corner, turns with it
    board = hand_made((Attraction("L3", fields("b7", "c7", "b6"), 0),))
    image = frame([MarketScene(board, 0, None)], WIDTH)
    x0, y0, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    bx, by, _, _ = BOARD.field_rect(parse_cell("b7") or 0)
    u, v, n = int(round((bx - x0) * s)), int(round((by - y0) * s)), int(round(2 * FIELD * s))
    image[v:v + n, u:u + n] = np.rot90(image[v:v + n, u:u + n].copy(), turn)
    pose = Recognizer().recognize(image).poses[0]
    rect = pose.warp(image, (_px(BOARD.width), _px(BOARD.height)))
    fit = _white_fit(rect)
    assert fit is not None
    rb = _Board(rect, fit[0], CATALOG)
    marked = [name for name in ("b7", "c7", "b6", "c6") if _marked(rb, parse_cell(name) or 0)]
    assert marked == [{0: "b7", 1: "b6", 2: "c6", 3: "c7"}[turn]]


def test_badges_settle_an_unclear_outline_only_where_they_rule_out_every_way_but_one() -> None:
    def cells(*names: str) -> list[int]:
        return [c for c in (parse_cell(n) for n in names) if c is not None]

    # an O1 at a2 beside an I2 at a1 b1: an L3 or the two
    groups = {c: piece[0] for piece in (cells("a2"), cells("a1", "b1")) for c in piece}
    a2, a1 = cells("a2", "a1")
    edge = (min(a2, a1), max(a2, a1))
    assert _settle_by_shapes([edge], groups, CATALOG) == ([], [edge])
    # one badge alone rules out nothing
    assert _settle_by_shapes([edge], groups, CATALOG, frozenset({a1})) == ([], [edge])
    # two badges: one piece cannot hold both, the two pieces lie apart
    assert _settle_by_shapes([edge], groups, CATALOG, frozenset({a1, a2})) == ([], [])



@pytest.mark.parametrize(("colour", "allowed"), [(WALKWAY, ("walkway", "guest")), (GUEST, ("walkway", "guest")),
                                                 (TENT_PLACE, ("tent", "guest"))])
def test_a_place_glare_saturates_unevenly_is_read_from_its_pixels_glare_lit_least(
        colour: tuple[int, int, int], allowed: tuple[str, ...]) -> None:
    # an entrance or a tent place under the edge of a glare spot: a third of it clean, the rest lit ever
    # more, until the white balance's gains clip first one channel, then two, then all three
    rng = np.random.default_rng(9)
    gains = np.array([0.8, 0.7, 0.75])
    glare = np.concatenate([np.zeros(60), np.linspace(0.05, 2.5, 120)])
    lit = light_of(colour)[None] * gains + glare[:, None] * np.array([1.0, 0.98, 0.95])
    pixels = np.clip(255.0 * np.clip(lit + rng.normal(0, 0.003, lit.shape), 0, 1) ** (1 / 2.2), 0, 255)
    white = 255.0 * gains ** (1 / 2.2)
    tint = _glare_tint(white[None])[0]
    truth = {WALKWAY: "walkway", GUEST: "guest", TENT_PLACE: "tent"}[colour]
    assert _clipped_place(pixels, white, tint, allowed) is None  # no one way of clipping over half of it
    assert _glared_place(pixels, white, tint, allowed) == truth


@pytest.mark.parametrize("hidden", [(0, 1), (1, 2), (0, 2)], ids=["top", "right", "diagonal"])
def test_a_board_with_two_markers_hidden_is_placed_by_its_outline(hidden: tuple[int, int]) -> None:
    board = played_board(3, 40)
    image = frame([MarketScene(board, 0, 7)], WIDTH)
    whole = Recognizer().recognize(image)
    for k in hidden:  # washed out by glare
        (x, y), _, (x2, y2), _ = BOARD.marker_corners(k)
        patch_board(image, x - 1, y - 1, x2 - x + 2, y2 - y + 2, (255, 255, 255))
    result = Recognizer().recognize(image)
    assert result.poses[0].markers_seen == 2
    centre = np.array([[BOARD.width / 2, BOARD.height / 2], [10.0, 10.0], [BOARD.width - 10, BOARD.height - 10]])
    assert np.abs(result.poses[0].to_image(centre) - whole.poses[0].to_image(centre)).max() < 1.5
    assert result.views[0].market == whole.views[0].market
    assert result.views[0].attractions == whole.views[0].attractions
    # the paper's edge hidden too (a hand along it): the board is not placed, never guessed
    patch_board(image, BOARD.width * 0.3, BOARD.height - 6, BOARD.width * 0.5, 14, (60, 70, 90))
    with pytest.raises(NoBoardError):
        Recognizer().recognize(image)


def test_a_faint_line_between_two_attraction_fields_parts_them_and_glare_falling_off_does_not() -> None:
    # a8 and b8 of the attraction's colour; across their edge either a faint dark line (two pieces' outlines, the
    # lens's blur leaving them pale) or the light falling off as steeply (glare over a8), neither clearly an outline
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    profiles = {"line": np.full(2 * n, 160.0), "glare": np.full(2 * n, 160.0)}
    profiles["line"][n - 4:n + 4] = [150, 135, 122, 116, 116, 122, 135, 150]
    profiles["glare"][:n + 3] = 230.0
    profiles["glare"][n + 3:n + 9] = np.linspace(230.0, 150.0, 6)
    profiles["glare"][n + 9:] = 150.0
    read = {}
    for name, profile in profiles.items():
        rect = np.full((_px(BOARD.height), _px(BOARD.width), 3), 255, np.uint8)
        rect[y0:y0 + n, x0:x0 + 2 * n] = np.array(ATTRACTION, np.float64) * (profile / 255.0)[None, :, None]
        board = _Board(rect, np.zeros((6, 3)), CATALOG)
        assert _SPLIT < _edge_ratio(board, 0, 1) < _JOINED  # the outline alone cannot tell
        chars = ["s", "s"] + ["."] * 62
        read[name] = (_edge_dip(board, 0, 1), _attractions(board, [0, 1], set(), chars), board.problems)
    dip, pieces, problems = read["line"]
    assert dip <= _DIP and problems == []
    assert pieces == [("O1", fields("a8"), 0), ("O1", fields("b8"), 0)]
    dip, pieces, problems = read["glare"]
    assert dip > _DIP and pieces == []
    assert [u.where for u in problems] == ["a8-b8"]


def test_an_unclear_outline_is_settled_only_where_one_way_alone_lays_pieces_of_the_box() -> None:
    def cells(*names: str) -> list[int]:
        return [c for c in (parse_cell(n) for n in names) if c is not None]

    def settle(pieces: list[list[int]], edge: tuple[str, str]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        groups = {c: piece[0] for piece in pieces for c in piece}
        a, b = cells(*edge)
        return _settle_by_shapes([(min(a, b), max(a, b))], groups, CATALOG)

    # two L3 joined would make six fields, a shape the box has not: two pieces
    two_l3 = [cells("d2", "d1", "e1"), cells("e2", "f2", "f1")]
    assert settle(two_l3, ("d2", "e2")) == ([], [])
    # an L3 beside an O1 may be either (an L4, or the two): unsettled
    assert settle([cells("d2", "d1", "e1"), cells("c2")], ("c2", "d2")) == ([], [(cells("c2")[0], cells("d2")[0])])
    # an L3 and an O1 that only one piece could form: joined
    edge = (cells("c1")[0], cells("d1")[0])
    assert settle([cells("a1", "b1"), cells("c1"), cells("d2", "d1", "e1")], ("c1", "d1"))[1] == [edge]
    # a piece lying flipped over (a player may lay one so), split by the unclear edge into two of the box's
    # pieces: both ways are possible, so it stays unsettled, never read as the two
    s4 = CATALOG.shapes["S4"]
    assert s4.mirrored
    flipped = sorted(next(iter(s4.mirrored)))
    where = [r * 8 + c + 1 for r, c in flipped]
    halves = [[where[0], where[1]], [where[2], where[3]]]
    if abs(halves[0][1] - halves[1][0]) not in (1, 8):
        halves = [[where[0], where[2]], [where[1], where[3]]]
    assert all(abs(a - b) in (1, 8) for a, b in halves)
    joint = next((a, b) for a in halves[0] for b in halves[1] if abs(a - b) in (1, 8))
    groups = {c: half[0] for half in halves for c in half}
    assert _settle_by_shapes([(min(joint), max(joint))], groups, CATALOG) == ([], [(min(joint), max(joint))])


def test_a_figure_glare_saturates_in_part_is_read_from_the_rest_and_paper_never_is_one() -> None:
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(300):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        # glare falling off across the place: the part lit most saturated, the rest lit less
        glare = np.concatenate([np.full(120, 3.0), np.linspace(rng.uniform(0.0, 0.6), 0.0, 80)])[:, None] * tint
        gain = rng.uniform(0.9, 1.05)
        for bgr, is_figure in ((FIGURE, True), ((245, 245, 245), False)):
            lit = gain * light_of(bgr)[None] + glare + rng.normal(0.0, 0.004, (200, 3))
            raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255)
            clipped = _glare_clipped(raw[None].astype(np.uint8), white[None])[0]
            on = _figure_on(raw / white, clipped, tint)
            if is_figure:
                seen.add(on)
                assert on is not False
            else:
                assert on is not True
    assert True in seen  # a figure more than half saturated is still read


@pytest.mark.parametrize(("bgr", "place"), [(TENT_PLACE, "tent"), (WALKWAY, "walkway"), (GUEST, "tent"),
                                            (GUEST, "walkway")], ids=["tent", "entrance", "guest-in-tent",
                                                                       "guest-at-entrance"])
def test_a_place_glare_saturates_mostly_under_a_cast_white_is_never_read_as_another_class(
        bgr: tuple[int, int, int], place: str) -> None:
    # an entrance or a tent place: glare saturating a share of it, falling off across the rest; divided by a
    # white of a strong cast, its saturated pixels show the cast's opposite, a guest's colour or a place's
    rng = np.random.default_rng(sum(bgr))
    truth = "guest" if bgr == GUEST else place
    allowed = (place, "guest")
    read = []
    for _ in range(400):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        k = int(200 * rng.uniform(0.2, 0.9))
        glare = np.concatenate([np.full(k, rng.uniform(1.5, 3.0)), np.linspace(rng.uniform(0.0, 0.8), 0.0, 200 - k)])
        lit = rng.uniform(0.9, 1.05) * light_of(bgr)[None] + glare[:, None] * tint + rng.normal(0.0, 0.004, (200, 3))
        raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255).round().astype(np.uint8)
        kind = _classify_many(_unclipped_colour(raw, white)[None], allowed, glare=True, tint=tint[None])[0]
        read.append(_glared_place(raw, white, tint, allowed) if kind is None else kind)
    assert set(read) <= {truth, None}
    assert read.count(truth) > len(read) // 2


@pytest.mark.parametrize("hammer", [True, False], ids=["hammer", "no-hammer"])
def test_an_empty_parcel_under_glare_is_read_by_its_hammers_head_and_held_without_it(hammer: bool) -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    x0, _, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    fx, fy, _, _ = BOARD.field_rect(parse_cell("c6") or 0)  # the empty parcel c6 d6 c5 d5
    cx, cy = fx + FIELD, fy + FIELD
    if not hammer:  # the hammer painted over with the parcel's own colour
        patch_board(image, cx - 5.0, cy - 6.0, 10.0, 12.0, EMPTY)
    # a broad glare spot over the parcel's middle, of grey light: the hammer lit far lighter than printed
    # while the print around it saturates
    yy, xx = np.mgrid[:image.shape[0], :image.shape[1]]
    u, v = (cx - x0) * s, (cy - 2.0 - x0) * s
    spot = 0.5 * np.exp(-((xx - u) ** 2 + (yy - v) ** 2) / (2 * (10.0 * s) ** 2))
    lit = (image.astype(np.float64) / 255.0) ** 2.2 + spot[:, :, None]
    image = np.clip(255.0 * np.clip(lit, 0, 1) ** (1 / 2.2), 0, 255).astype(np.uint8)
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    parcel = [parse_cell(n) for n in ("c6", "d6", "c5", "d5")]
    if hammer:
        assert [text[c] for c in parcel if c is not None] == ["."] * 4
        assert not any("c6" in u.where for u in view.unrecognised)
    else:
        assert [text[c] for c in parcel if c is not None] == ["?"] * 4
        assert any(u.where == "the parcel at c6" for u in view.unrecognised)


@pytest.mark.parametrize("handle", [True, False], ids=["handle", "no-handle"])
def test_an_empty_parcel_whose_hammers_head_glare_saturates_is_read_by_its_handle(handle: bool) -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    fx, fy, _, _ = BOARD.field_rect(parse_cell("c6") or 0)  # the empty parcel c6 d6 c5 d5
    cx, cy = fx + FIELD, fy + FIELD
    if not handle:  # the handle below the head painted over with the parcel's own colour
        patch_board(image, cx - 2.0, cy + 0.5, 4.0, 5.0, EMPTY)
    # a streak of glare saturating the rows of the hammer's head and the top of its handle, across the parcel,
    # and one across the bottom of its lower fields: no field shows the parcel's print untouched by glare
    patch_board(image, cx - 12.0, cy - 6.0, 24.0, 6.5, (255, 255, 255))
    patch_board(image, cx - 18.0, cy + 12.0, 36.0, 4.0, (255, 255, 255))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    parcel = [parse_cell(n) for n in ("c6", "d6", "c5", "d5")]
    if handle:
        assert [text[c] for c in parcel if c is not None] == ["."] * 4
        assert not any("c6" in u.where for u in view.unrecognised)
    else:
        assert [text[c] for c in parcel if c is not None] == ["?"] * 4
        assert any(u.where == "the parcel at c6" for u in view.unrecognised)


@pytest.mark.parametrize("beside", ["print", "tile"])
def test_an_empty_parcel_whose_whole_hammer_glare_saturates_is_read_by_the_print_around_it(beside: str) -> None:
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    fx, fy, _, _ = BOARD.field_rect(parse_cell("c6") or 0)  # the empty parcel c6 d6 c5 d5
    cx, cy = fx + FIELD, fy + FIELD
    # a glare spot saturating the hammer, head and handle, and the inner corners of the four fields, and a
    # streak across the bottom of the lower fields: no field shows the parcel's print untouched by glare
    patch_board(image, cx - 6.0, cy - 7.0, 12.0, 12.5, (255, 255, 255))
    patch_board(image, cx - 18.0, cy + 12.0, 36.0, 4.0, (255, 255, 255))
    if beside == "tile":  # a tile lying off its parcel over the middle shows its colour beside the glare
        patch_board(image, cx + 6.2, cy - 5.0, 1.5, 5.0, SITE)
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    parcel = [parse_cell(n) for n in ("c6", "d6", "c5", "d5")]
    if beside == "print":
        assert [text[c] for c in parcel if c is not None] == ["."] * 4
        assert not any("c6" in u.where for u in view.unrecognised)
    else:
        assert [text[c] for c in parcel if c is not None] == ["?"] * 4
        assert any(u.where == "the parcel at c6" for u in view.unrecognised)


@pytest.mark.parametrize("cover", ["glare", "hand", "glare-everywhere"])
def test_an_empty_parcel_without_its_hammer_is_read_by_a_field_glare_left_bare(cover: str) -> None:
    # the hammer hidden, one field blown out: a field of bare print untouched by glare shows no tile lies there
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    fx, fy, _, _ = BOARD.field_rect(parse_cell("c6") or 0)  # the empty parcel c6 d6 c5 d5
    cx, cy = fx + FIELD, fy + FIELD
    patch_board(image, cx - 5.0, cy - 6.0, 10.0, 12.0, EMPTY)  # the hammer painted over
    colour = (120, 160, 200) if cover == "hand" else (255, 255, 255)
    patch_board(image, cx + 1.0, fy + 1.0, FIELD - 2.0, FIELD - 2.0, colour)  # d6
    if cover == "glare-everywhere":  # glare over the bottom of every other field too
        patch_board(image, fx + 1.0, fy + 14.0, FIELD - 2.0, 3.0, (255, 255, 255))
        patch_board(image, fx + 1.0, cy + 14.0, 2 * FIELD - 2.0, 3.0, (255, 255, 255))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    parcel = [parse_cell(n) for n in ("c6", "d6", "c5", "d5")]
    if cover == "glare":
        assert [text[c] for c in parcel if c is not None] == ["."] * 4
        assert not any("c6" in u.where or "d6" in u.where for u in view.unrecognised)
    else:  # a hand may be laying a tile; no field untouched by glare: held
        assert "?" in [text[c] for c in parcel if c is not None]
        assert any(u.where == "the parcel at c6" for u in view.unrecognised)
    truth = "".join(truth_market(board))
    assert all(text[c] in ("?", truth[c]) for c in range(64))


@pytest.mark.parametrize("piece", ["I5", "I4"])
def test_an_attraction_beside_a_field_glare_blows_out_is_read_when_no_piece_of_the_box_reaches_there(
        piece: str) -> None:
    # glare blows out f7 and the outline between it and e7; an I5 ending at e7 can reach no further (no
    # piece of the box is longer), an I4 ending at d7 could be an I5 reaching under the glare
    names = ("a7", "b7", "c7", "d7", "e7")[:int(piece[1])]
    board = hand_made((Attraction(piece, fields(*names), 0),))
    image = frame([MarketScene(board, 0, None)], WIDTH)
    last = parse_cell(names[-1]) or 0
    x, y, _, _ = BOARD.field_rect(last + 1)
    patch_board(image, x - 3.0, y + 1.0, FIELD + 2.0, FIELD - 2.0, (255, 255, 255))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    assert text[last + 1] == "?"
    if piece == "I5":
        assert view.attractions == ((piece, fields(*names), 0),)
    else:
        assert view.attractions == ()
        assert any("may reach" in u.why for u in view.unrecognised)
    truth = "".join(truth_market(board))
    assert all(text[c] in ("?", truth[c]) for c in range(64))


@pytest.mark.parametrize("piece", ["O1", "I2"])
def test_an_outline_glare_lightens_still_parts_an_attraction_from_a_field_that_cannot_be_read(piece: str) -> None:
    # glare over f7 and the edge between it and e7, the edge a little blurred: the O1's outline, lighter and
    # spread, no longer darkens the edge's average much, but is still a line darker than both its sides (the O1
    # is read); an I2 over e7 and f7 has no line there, and is never read as an O1
    names = ("e7",) if piece == "O1" else ("e7", "f7")
    board = hand_made((Attraction(piece, fields(*names), 0),))
    image = frame([MarketScene(board, 0, None)], WIDTH)
    x0, y0, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    x, y, _, _ = BOARD.field_rect(parse_cell("f7") or 0)
    u0, u1, v0, v1 = (int((x - 4.0 - x0) * s), int((x + FIELD - x0) * s), int((y - y0) * s),
                      int((y + FIELD - y0) * s))
    part = cv2.GaussianBlur(image[v0:v1, u0:u1].astype(np.float64) / 255.0, (0, 0), 0.6 * s)
    image[v0:v1, u0:u1] = np.clip(255.0 * (part ** 2.2 + 0.5) ** (1 / 2.2), 0, 255).round().astype(np.uint8)
    patch_board(image, x + 3.0, y + 1.0, FIELD - 3.0, FIELD - 2.0, (255, 255, 255))  # f7 blown out
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    assert text[parse_cell("f7") or 0] == "?"
    if piece == "O1":
        assert view.attractions == (("O1", fields("e7"), 0),)
        assert not any("may reach" in u.why for u in view.unrecognised)
    else:
        assert view.attractions == ()
        assert any("may reach" in u.why for u in view.unrecognised)
    truth = "".join(truth_market(board))
    assert all(text[c] in ("?", truth[c]) for c in range(64))


def test_a_ticket_under_glare_is_never_read_as_absent_and_a_bare_attraction_glare_clipped_blue_is_read_bare() -> None:
    # glare of about the tint the white's cast gives, over a ticket lit down to a hand's shadow: never "no ticket";
    # an attraction whose blue glare clipped while its red stays far darker: read bare (on some of the draws)
    rng = np.random.default_rng(5)
    bare = 0
    for _ in range(1000):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        for colour in (TICKET, ATTRACTION):
            glare = rng.uniform(0.0, 3.0) + rng.uniform(0.0, 1.5) * np.linspace(1.0, 0.0, 200)
            lit = (rng.uniform(0.4, 1.2) * light_of(colour)[None] + glare[:, None] * tint * rng.uniform(0.9, 1.1, 3)
                   + rng.normal(0.0, 0.01, (200, 3)))
            raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255).round()
            if colour == TICKET:
                assert not _no_ticket_under_glare(raw, white, tint)
            else:
                bare += _no_ticket_under_glare(raw, white, tint)
    assert bare > 100
    # an attraction with no glare clipping it says nothing (a ticket in a shadow is darker than one lit)
    white = np.array([230.0, 228.0, 225.0])
    raw = np.clip(white * light_of(ATTRACTION) ** (1 / 2.2), 0, 255).round()
    assert not _no_ticket_under_glare(np.repeat(raw[None], 200, axis=0), white, _glare_tint(white[None])[0])


@pytest.mark.parametrize("tickets", [0, 2])
def test_an_attraction_whose_middle_glare_saturates_is_read_by_what_a_ticket_under_that_glare_would_show(
        tickets: int) -> None:
    # photographed by the camera model (hard, a frame whose glare saturates b7's middle: its blue clipped, its green
    # half, its red far darker than a ticket's under glare clipping those): no ticket there, or the tickets read
    board = hand_made((Attraction("I2", fields("a7", "b7"), tickets),))
    region = content_region(1)
    s = max(6.0, 1.3 * WIDTH / (region[2] - region[0]))
    image = render_top_down([MarketScene(board, 0, 660000001)], s, region)
    photo = photograph(image, s, region[:2], region, "hard", 660000001, size=(WIDTH, 960))
    view = Recognizer().recognize(photo.image).views[0]
    assert view.attractions == (("I2", fields("a7", "b7"), tickets),)
    assert not any(u.where == "b7" for u in view.unrecognised)


def test_a_figure_whose_colour_glare_of_its_opposite_tint_cancels_is_never_read_as_absent() -> None:
    # glare of the tint opposite the white's cast, on the figure's blue: the sum can be the paper's own white
    rng = np.random.default_rng(17)
    fooled = 0
    for _ in range(400):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        hot = int(rng.choice([0, 20, 60, 100, 140]))
        glare = np.concatenate([np.full(hot, 6.0), rng.uniform(0.0, 3.0)
                                + rng.uniform(0.0, 0.6) * np.linspace(1.0, 0.0, 200 - hot)])[:, None] * tint
        lit = rng.uniform(0.8, 1.1) * light_of(FIGURE)[None] + glare + rng.normal(0.0, 0.004, (200, 3))
        raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255).round()
        clipped = _glare_clipped(raw[None], white[None])[0]
        assert _figure_on(raw / white, clipped, tint, raw.max(axis=1) >= 248) is not False
        # (with no glare around the box the same pixels pass for paper: the case the check is there for)
        fooled += _figure_on(raw / white, clipped, tint, raw.max(axis=1) >= 248, lit_around=False) is False
    assert fooled > 0
    # the paper's white unlit, nothing lit around it: no figure
    white = np.array([242.0, 241.0, 216.0])
    paper = np.repeat((np.array([233.0, 231.0, 207.0]) / white)[None], 200, axis=0)
    assert _figure_on(paper, np.zeros(200, bool), _glare_tint(white[None])[0], lit_around=False) is False


@pytest.mark.parametrize(("sigma", "glare"), [(0.0, 0.0), (4.0, 0.6), (8.0, 0.6), (4.0, 1.4)],
                         ids=["no-glare", "spot-4mm", "spot-8mm", "strong-4mm"])
def test_figures_under_glare_of_the_white_balance_s_opposite_tint_are_never_read_as_absent(
        sigma: float, glare: float) -> None:
    # a frame balanced yellow (blue kept, red cut): the lamp's own light, divided by that white, leans to blue and
    # red's opposite, and added to a figure's blue it can give the paper's own white
    board = board_from_parts(("ww/ss",) * 4 + (None,) * 12, (), 0, (True, False), 0, 0, frozenset({1, 3, 5}),
                             (TrickStatus.OPEN,) * 3, CATALOG)
    image = frame([MarketScene(board, 0, None)], WIDTH)
    x0, y0, x1, _ = content_region(1)
    s = WIDTH / (x1 - x0)
    lin = (image.astype(np.float64) / 255.0) ** 2.2 * np.array([0.85, 0.79, 0.64])
    yy, xx = np.mgrid[:image.shape[0], :image.shape[1]]
    for n in range(1, 6) if glare else ():
        u, v = BOARD.number_spot(n)
        spot = np.exp(-(((xx - (u - x0) * s) ** 2 + (yy - (v - y0) * s) ** 2) / (2 * (sigma * s) ** 2)))
        lin += glare * spot[:, :, None] * np.array([1.0, 0.98, 0.95])
    shot = np.clip(255.0 * np.clip(lin, 0, 1) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)
    figures = Recognizer().recognize(shot).views[0].number_figures
    assert all(figures[n - 1] is not False for n in (1, 3, 5))
    assert all(figures[n - 1] is not True for n in (2, 4))
    if not glare:
        assert figures == (True, False, True, False, True)


def flat_board(white: float = 200.0) -> tuple[np.ndarray, np.ndarray]:
    """A rectified board of blank paper (uint8) whose white is ``white`` all over, and that white's fit."""
    rect = np.full((_px(BOARD.height), _px(BOARD.width), 3), white, np.uint8)
    coef = np.zeros((6, 3))
    coef[0] = white
    return rect, coef


def paint_field(rect: np.ndarray, cell: str, linear: np.ndarray, white: float = 200.0,
                share: float = 1.0) -> None:
    """Paint the left ``share`` of a field of a `flat_board` with a colour given in linear light (of the white)."""
    x, y, w, h = BOARD.field_rect(parse_cell(cell) or 0)
    value = np.clip(white * np.clip(linear, 0.0, None) ** (1 / 2.2), 0, 255)
    rect[_px(y):_px(y + h), _px(x):_px(x + share * w)] = value.astype(np.uint8)


@pytest.mark.parametrize("b7", ["washed", "empty", "empty under glare"])
def test_a_tile_field_glare_washes_toward_the_empty_colour_is_read_again_the_empty_print_never(b7: str) -> None:
    # the parcel at a8: a8, b8 a walkway, a7 an attraction; b7 the attraction's field under a glare's edge (light
    # 0.2 over its left part, 0.5 over the rest, where its blue clips: a frame exposed long), which the first
    # reading takes for the empty parcel's colour and the reading allowing for glare for none
    white = 250.0
    rect, coef = flat_board(white)
    for cell, colour in (("a8", WALKWAY), ("b8", WALKWAY), ("a7", ATTRACTION)):
        paint_field(rect, cell, light_of(colour), white)
    if b7 == "washed":
        paint_field(rect, "b7", 0.8 * light_of(ATTRACTION) + 0.5, white)
        paint_field(rect, "b7", 0.8 * light_of(ATTRACTION) + 0.2, white, share=0.4)
    else:
        paint_field(rect, "b7", light_of(EMPTY) + (0.1 if b7 == "empty under glare" else 0.0), white)
    ring = _read_fields(_Board(rect, coef, CATALOG))[0]
    b7_cell = parse_cell("b7") or 0
    # a tile's field the readings allowing for glare find is the tile's; the empty print stays the empty parcel
    # (the parcel then held whole: a tile lying off it)
    assert ring[b7_cell] == ("attraction" if b7 == "washed" else "empty")
    assert [ring[parse_cell(c) or 0] for c in ("a8", "b8", "a7")] == ["walkway", "walkway", "attraction"]


def test_the_washed_fields_are_only_those_of_a_parcel_showing_a_tile() -> None:
    washed = np.asarray((0.8 * light_of(ATTRACTION) + 0.3) ** (1 / 2.2))
    rings = np.tile(washed, (64, 1))
    tints = np.tile(_glare_tint(np.full((1, 3), 200.0)), (64, 1))
    ring: list[str | None] = ["empty"] * 64
    ring[parse_cell("a8") or 0] = "walkway"  # the parcel at a8 shows a tile; the one at c8 does not
    clear = tuple([False] * 64)
    assert _washed_tile_fields(ring, rings, tints, clear) == [parse_cell(c) or 0 for c in ("b8", "a7", "b7")]
    # a field showing the empty print untouched by glare is never one
    b8 = parse_cell("b8") or 0
    assert b8 not in _washed_tile_fields(ring, rings, tints, tuple(c == b8 for c in range(64)))


def test_a_piece_grey_glare_alone_explains_is_not_taken_where_glare_of_the_tint_does_not() -> None:
    # a frame whose white balance leaves the glare far from grey (the paper's white measured green)
    tint = _glare_tint(np.array([[160.0, 185.0, 150.0]]))
    allowed = ("walkway", "guest", "barker")
    # a colour grey glare over a barker's red explains (a hand's skin came near it): the glare of the tint does not
    skin = np.asarray((0.8 * light_of(BARKER) + 0.25) ** (1 / 2.2))[None]
    assert _classify_many(skin, allowed, glare=True) == ["barker"]
    assert _classify_many(skin, allowed, glare=True, tint=tint, tinted=_PIECES) == [None]
    # a barker and a guest under glare of the tint are read, and a piece the first reading finds stays read
    for piece, name in ((BARKER, "barker"), (GUEST, "guest")):
        lit = np.asarray((0.9 * light_of(piece) + 0.3 * tint[0] / tint[0].mean()) ** (1 / 2.2))[None]
        assert _classify_many(lit, allowed, glare=True, tint=tint, tinted=_PIECES) == [name]
        clear = np.asarray(light_of(piece) ** (1 / 2.2))[None]
        assert _classify_many(clear, allowed, glare=True, tint=tint, tinted=_PIECES) == [name]


def test_a_marker_found_in_the_wrong_place_is_left_out_of_the_board_s_pose() -> None:
    image = frame([MarketScene(played_board(3, 40), 0, 7)], WIDTH)
    whole = Recognizer().recognize(image)
    markers = [m for m in whole.markers if m.id in board_marker_ids(0)]
    assert len(markers) == 4
    # one of them read again in the middle of the board, small (a print's pattern taken for it)
    inside = whole.poses[0].to_image(np.array([[BOARD.width / 2, BOARD.height / 2]]))[0]
    false = Marker(markers[3].id, inside[None] + np.array([[0.0, 0.0], [8.0, -1.0], [10.0, 4.0], [3.0, 6.0]]))
    pose = _pose(0, markers[:3] + [false])
    assert pose is not None and pose.markers_seen == 3
    centre = np.array([[BOARD.width / 2, BOARD.height / 2], [10.0, 10.0], [BOARD.width - 10, BOARD.height - 10]])
    assert np.abs(pose.to_image(centre) - whole.poses[0].to_image(centre)).max() < 1.0
    # two of them wrong: no choice of three fits, the board is not placed
    other = Marker(markers[2].id, false.corners + 40.0)
    assert _pose(0, markers[:2] + [other, false]) is None


@pytest.mark.parametrize("speck", [0.7, 4.0])
def test_a_field_of_bare_print_a_glare_s_edge_just_reaches_still_shows_no_tile_lies_there(speck: float) -> None:
    # the empty parcel c6 d6 c5 d5, its hammer hidden and d6 blown out; glare's edge reaches the rings of the
    # other three fields at one corner: a speck of it (0.7 mm) leaves them bare print, a patch (4 mm) does not
    board = hand_made(())
    image = frame([MarketScene(board, 0, None)], WIDTH)
    fx, fy, _, _ = BOARD.field_rect(parse_cell("c6") or 0)
    cx, cy = fx + FIELD, fy + FIELD
    patch_board(image, cx - 5.0, cy - 6.0, 10.0, 12.0, EMPTY)  # the hammer painted over
    patch_board(image, cx + 1.0, fy + 1.0, FIELD - 2.0, FIELD - 2.0, (255, 255, 255))  # d6
    for name in ("c6", "c5", "d5"):
        x, y, _, _ = BOARD.field_rect(parse_cell(name) or 0)
        patch_board(image, x + 3.0, y + 3.0, speck, speck, (255, 255, 255))
    view = Recognizer().recognize(image).views[0]
    text = "".join(view.market)
    parcel = [parse_cell(n) or 0 for n in ("c6", "d6", "c5", "d5")]
    assert [text[c] for c in parcel] == (["."] * 4 if speck < 2 else ["?"] * 4)


def test_a_box_glare_saturates_nearly_all_over_holds_no_figure_where_the_rest_is_paper() -> None:
    rng = np.random.default_rng(12)
    seen = set()
    for _ in range(400):
        white = 230.0 * rng.uniform(0.75, 1.25, 3) ** (1 / 2.2)
        tint = _glare_tint(white[None])[0]
        # glare of the tint, or of a colour between it and grey, saturating 75 to 83 % of the box
        mix = rng.uniform(0.0, 1.0)
        colour = mix * tint + (1.0 - mix) * np.full(3, 1 / np.sqrt(3))
        hot = int(rng.integers(150, 167))
        glare = np.concatenate([np.full(hot, 3.0), np.linspace(rng.uniform(0.1, 0.6), 0.0, 200 - hot)])[:, None]
        noise = rng.normal(0.0, 0.004, (200, 3))
        # the paper, and a figure (in a hand's shadow or lit a little more than the paper's white says)
        for figure, albedo, gain in ((False, np.ones(3), rng.uniform(0.95, 1.05)),
                                     (True, light_of(FIGURE), rng.uniform(0.4, 1.2))):
            lit = gain * albedo[None] + glare * colour + noise
            raw = np.clip(white * np.clip(lit, 0, None) ** (1 / 2.2), 0, 255).astype(np.uint8).astype(np.float64)
            on = _figure_on(raw / white, _glare_clipped(raw[None], white[None])[0], tint, raw.max(axis=1) >= 248)
            if figure:
                assert on is not False
            else:
                seen.add(on)
    # the paper: the pixels glare left show it under glare all over, so no figure lies there (a figure covers
    # the whole box), read so where glare clips up to 85 % of it
    assert False in seen


@pytest.mark.parametrize("case", ["even", "a tile's field", "glare over part", "clipped"])
def test_an_empty_parcel_lit_above_the_white_fit_is_read_empty_only_evenly_and_whole(case: str) -> None:
    # the parcel at a6 (a6 b6 a5 b5) shows the empty print lit 1.35 times the white's fit (linear light): the fit
    # low there, no glare (glare draws the colour toward its own, which the reading allowing for glare takes)
    white = 200.0
    rect, coef = flat_board(white)
    parcel = ("a6", "b6", "a5", "b5")
    for cell in parcel:
        paint_field(rect, cell, 1.35 * light_of(EMPTY), white)
    if case == "a tile's field":
        paint_field(rect, "b5", 1.35 * light_of(WALKWAY), white)
    elif case == "glare over part":  # lit a little more over its left part: no even gain
        paint_field(rect, "a6", 1.6 * light_of(EMPTY), white, share=0.5)
    elif case == "clipped":
        paint_field(rect, "a6", 1.35 * light_of(EMPTY), 240.0)
    ring = _read_fields(_Board(rect, coef, CATALOG))[0]
    read = [ring[parse_cell(c) or 0] for c in parcel]
    if case == "even":
        assert read == ["empty"] * 4
    else:  # never the whole parcel empty by this reading
        assert read != ["empty"] * 4
        assert "empty" not in read[:1]


def test_only_the_empty_print_times_a_gain_is_the_empty_print_exposed_long() -> None:
    white = np.full(3, 200.0)

    def ring(linear: np.ndarray, spread: float = 0.0) -> np.ndarray:
        levels = np.linspace(1.0 - spread, 1.0 + spread, 100)[:, None]
        return np.asarray(np.clip(white * np.clip(levels * linear, 0, None) ** (1 / 2.2), 0, 255))

    assert _exposed_empty(ring(1.3 * light_of(EMPTY)), white)
    assert _exposed_empty(ring(1.3 * light_of(EMPTY), 0.02), white)
    # glare's colour added, not a gain (grey or of the tint): the reading allowing for glare's, not this one's
    assert not _exposed_empty(ring(light_of(EMPTY) + 0.3), white)
    # a tile washed out: an attraction lit far brighter, a hand's skin, a shadow
    assert not _exposed_empty(ring(0.8 * light_of(ATTRACTION) + 0.5), white)
    assert not _exposed_empty(ring(light_of((120, 160, 200))), white)
    # lit unevenly, brighter than any white fit's error, or clipped in a channel
    assert not _exposed_empty(ring(1.3 * light_of(EMPTY), 0.15), white)
    assert not _exposed_empty(ring(2.0 * light_of(EMPTY)), white)
    assert not _exposed_empty(ring(1.3 * light_of(EMPTY)), np.full(3, 245.0))


def _cast_white() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A white with a magenta cast, the glare's tint opposite it (`_glare_tint`), and colour coefficients that map
    the board's linear light to that white."""
    white = np.array([225.0, 205.0, 235.0])
    coef = np.zeros((6, 3))
    coef[0] = white
    return white, _glare_tint(white[None])[0], coef


def test_a_figure_glare_saturates_at_its_middle_is_read_from_the_rest_of_it_in_view() -> None:
    # a figure on action number 1 nudged down a little, a glare spot saturating every channel over the box's
    # middle and the figure's upper half; its lower half in view, glare falling off across it
    white, tint, coef = _cast_white()
    x, y = BOARD.number_spot(1)
    h, w = _px(BOARD.height), _px(BOARD.width)
    yy, xx = (np.mgrid[:h, :w] + 0.5) / 3.0
    figure = np.hypot(xx - x, yy - (y + 1.2)) <= 5.5
    glare = np.clip(4.0 - 0.9 * np.clip(yy - (y - 1.0), 0.0, None), 0.0, None)[:, :, None] * tint
    read = {}
    for name, lying in (("figure", figure), ("none", np.zeros_like(figure))):
        lit = np.where(lying[:, :, None], light_of(FIGURE), light_of((255, 255, 255)))
        # the printed ring the figure stands on: ink, where no figure hides it
        ring = np.abs(np.hypot(xx - x, yy - y) - 4.0) < 0.4
        lit[ring & ~lying] = 0.0
        raw = np.clip(white * np.clip(lit + glare, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
        board = _Board(raw, coef, CATALOG)
        raw_box = raw[_px(y) - 9:_px(y) + 10, _px(x) - 9:_px(x) + 10].reshape(-1, 3)
        assert float((raw_box.max(axis=1) >= 248).mean()) > 0.5  # the glare hides the box's middle
        read[name] = _box_figure(board, x, y)
    assert read == {"figure": True, "none": None}


def test_a_tiles_field_glare_washes_toward_the_empty_print_is_read_among_the_tiles_kinds() -> None:
    # parcel a8-b8-a7-b7 under a walkway tile; glare over b7: even across its left part, rising steeply to
    # saturation across the rest. Its least lit pixels show a washed green near the empty print's light colour.
    white, tint, coef = _cast_white()
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    xs = np.arange(n)
    read = {}
    for print_, level in (("walkway", 0.75), ("walkway", 1.0), ("empty", 0.75), ("empty", 1.0), ("empty", 0.25)):
        lin = np.ones((_px(BOARD.height), _px(BOARD.width), 3)) * light_of(EMPTY)
        lin[y0:y0 + 2 * n, x0:x0 + 2 * n] = light_of(WALKWAY)
        glare = np.where(xs < 0.3 * n, level, level + (xs - 0.3 * n) * 6.0 / (0.7 * n))
        lin[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n] = (light_of(WALKWAY if print_ == "walkway" else EMPTY)[None, None]
                                                     + glare[None, :, None] * tint)
        raw = np.clip(white * np.clip(lin, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
        ring = _read_fields(_Board(raw, coef, CATALOG))[0]
        assert ring[:2] == ["walkway", "walkway"] and ring[8] == "walkway"
        read[print_, level] = ring[9]
    # a tile covers its whole parcel: the field is the walkway's, not the empty print's
    assert read["walkway", 0.75] == read["walkway", 1.0] == "walkway"
    # the empty print under the same glare (a tile lying off its parcel) is read as no tile's field
    assert all(read["empty", level] in ("empty", None) for level in (0.25, 0.75, 1.0))


def test_a_figure_whose_blurred_edge_alone_shows_beside_the_glare_is_read_and_paper_never_is_one() -> None:
    # a figure on action number 1 nudged down and right, its edge blurred into the paper; a glare spot of the
    # tint opposite the white's cast saturating the box's middle, lighting the figure's edge in view too
    white, tint, coef = _cast_white()
    x, y = BOARD.number_spot(1)
    h, w = _px(BOARD.height), _px(BOARD.width)
    yy, xx = (np.mgrid[:h, :w] + 0.5) / 3.0
    glare = 4.0 * np.exp(-(np.hypot(xx - (x - 1.0), yy - (y - 1.0)) / 4.5) ** 2)[:, :, None] * tint
    read = {}
    for name, on in (("figure", 1.0), ("none", 0.0)):
        disc = on * (np.hypot(xx - (x + 0.8), yy - (y + 0.8)) <= 5.5).astype(np.float64)
        alpha = cv2.GaussianBlur(disc, (0, 0), 2.0)[:, :, None]
        lit = alpha * light_of(FIGURE) + (1 - alpha) * light_of((255, 255, 255)) + glare
        raw = np.clip(white * np.clip(lit, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
        raw_box = raw[_px(y) - 9:_px(y) + 10, _px(x) - 9:_px(x) + 10].reshape(-1, 3)
        assert float((raw_box.max(axis=1) >= 248).mean()) > 0.8  # the glare hides the box's middle
        board = _Board(raw, coef, CATALOG)
        read[name] = (_box_figure(board, x, y), _figure_near(board, x, y) > 0)
    assert read == {"figure": (True, True), "none": (None, False)}


def test_a_figure_blend_is_the_figure_s_part_never_paper_shadow_or_glare() -> None:
    white, tint, _ = _cast_white()
    paper = light_of((255, 255, 255))
    fig = light_of(FIGURE)
    lin = []
    for gain in (0.3, 0.6, 1.0, 1.2):  # paper in a shadow or lit, under any glare of the tint or grey
        for g in (0.0, 0.2, 0.6, 1.5):
            lin += [gain * paper + g * tint, gain * paper + g * np.full(3, 1 / np.sqrt(3))]
    assert not _figure_blend(np.array(lin) ** (1 / 2.2), tint).any()
    edge = [a * fig + (1 - a) * paper + g * tint for a in (0.5, 0.8, 1.0) for g in (0.0, 0.2, 0.5)]
    assert _figure_blend(np.array(edge) ** (1 / 2.2), tint).all()
    # a tint on the grey axis: white and glare are one part, nothing is told
    assert not _figure_blend(np.array(edge) ** (1 / 2.2), np.full(3, 1 / np.sqrt(3))).any()


@pytest.mark.parametrize("spot", [1.5, 2.5])
def test_a_ring_glare_lights_heavily_all_over_and_saturates_in_part_is_read_pixel_by_pixel(spot: float) -> None:
    # parcel a8-b8-a7-b7 under a walkway tile; b7 under glare of the tint all over, rising to saturation across
    # its upper left: its pixels left unclipped each show the walkway under a different glare
    white, tint, coef = _cast_white()
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    yy, xx = np.mgrid[:n, :n] + 0.5
    glare = 0.9 + spot * np.exp(-(np.hypot(xx - 0.3 * n, yy - 0.35 * n) / (0.45 * n)) ** 2)
    read = {}
    for name, colour in (("walkway", WALKWAY), ("site", SITE), ("attraction", ATTRACTION), ("empty", EMPTY),
                         ("shadow", (110, 110, 110)), ("skin", (90, 130, 190))):
        lin = np.ones((_px(BOARD.height), _px(BOARD.width), 3)) * light_of(EMPTY)
        lin[y0:y0 + 2 * n, x0:x0 + 2 * n] = light_of(WALKWAY)
        lin[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n] = light_of(colour)[None, None] + glare[:, :, None] * tint
        raw = np.clip(white * np.clip(lin, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
        ring = _read_fields(_Board(raw, coef, CATALOG))[0]
        assert ring[:2] == ["walkway", "walkway"] and ring[8] == "walkway"
        read[name] = ring[9]
    assert read["walkway"] == "walkway"
    # under the same glare every other print is read as itself or held, a shadow and a hand's skin as nothing
    assert all(read[k] in (k, None) for k in ("site", "attraction", "empty"))
    assert read["shadow"] is None and read["skin"] is None


def test_a_ring_read_pixel_by_pixel_needs_one_class_alone_and_enough_pixels_unclipped() -> None:
    white = np.array([230.0, 230.0, 230.0])
    tint = _glare_tint(np.array([[225.0, 205.0, 235.0]]))[0]
    glare = np.linspace(0.2, 1.2, 200)[:, None] * tint
    walkway = light_of(WALKWAY)[None] + glare
    site = light_of(SITE)[None] + glare

    def raw(lin: np.ndarray) -> np.ndarray:
        return np.asarray(np.clip(white * np.clip(lin, 0.0, None) ** (1 / 2.2), 0, 255))

    clipped = np.full((200, 3), 255.0)
    assert _glare_votes(raw(np.concatenate([walkway, clipped])), white, tint, RING) == "walkway"
    # a third of its pixels another class's colour (a tile lying half over it): held
    assert _glare_votes(raw(np.concatenate([walkway, site[:100], clipped])), white, tint, RING) is None
    # too few pixels left unclipped
    assert _glare_votes(raw(np.concatenate([walkway[:20], clipped])), white, tint, RING) is None


def test_a_middle_glare_saturates_in_part_is_read_pixel_by_pixel_a_piece_never_as_bare() -> None:
    # b7 of a walkway tile: broad glare of the tint over it, a spot beside its middle saturating part of it
    white, tint, coef = _cast_white()
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    yy, xx = np.mgrid[:n, :n] + 0.5
    piece = np.hypot(xx - n / 2 - 2, yy - n / 2 - 2) <= _px(4.5)  # a piece nudged a little
    allowed = ("walkway", "guest", "barker")
    for broad, spot in ((0.6, 1.5), (0.6, 2.5), (0.6, 4.0), (0.9, 1.5), (0.9, 2.5), (0.9, 4.0)):
        glare = broad + spot * np.exp(-(np.hypot(xx - n / 2 + 6, yy - n / 2 + 6) / (0.2 * n)) ** 2)
        for name, colour in (("walkway", WALKWAY), ("guest", GUEST), ("barker", BARKER)):
            lin = np.ones((_px(BOARD.height), _px(BOARD.width), 3)) * light_of(EMPTY)
            lin[y0:y0 + 2 * n, x0:x0 + 2 * n] = light_of(WALKWAY)
            field = np.where(piece[:, :, None], light_of(colour), light_of(WALKWAY))
            lin[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n] = field + glare[:, :, None] * tint
            raw = np.clip(white * np.clip(lin, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
            read = _read_fields(_Board(raw, coef, CATALOG))[4](9, allowed)
            assert read in (name, None)
            if spot == 1.5 and name != "barker":  # saturated in part, the rest lit unevenly: read
                assert read == name


@pytest.mark.parametrize("off, peak, sigma", [(0.6, 6.0, 2.5), (0.9, 3.0, 3.5), (0.9, 6.0, 2.5)])
def test_a_middle_glare_saturates_nearly_whole_is_read_from_what_a_piece_would_cover(
        off: float, peak: float, sigma: float) -> None:
    # b7 of a walkway or site tile: a glare spot of the tint a little off its middle saturates nearly all of the
    # middle; the frame goes through JPEG's half-resolution colour as a camera's does. A guest or a barker (9 mm
    # across) nudged 1.2 mm toward the glare still covers everything its pixels are read from.
    white, tint, coef = _cast_white()
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    yy, xx = (np.mgrid[:n, :n] + 0.5) / 3.0
    c = FIELD / 2
    glare = 0.2 + peak * np.exp(-(np.hypot(xx - c + off, yy - c + off) / sigma) ** 2)
    piece_at = np.hypot(xx - c + 0.85, yy - c + 0.85) <= 4.5
    read = {}
    for name, tile, piece in (("walkway", WALKWAY, None), ("guest", WALKWAY, GUEST), ("barker", WALKWAY, BARKER),
                              ("site", SITE, None), ("site guest", SITE, GUEST)):
        lin = np.ones((_px(BOARD.height), _px(BOARD.width), 3)) * light_of(EMPTY)
        lin[y0:y0 + 2 * n, x0:x0 + 2 * n] = light_of(tile)
        field = np.ones((n, n, 3)) * light_of(tile)
        if piece is not None:
            field[piece_at] = light_of(piece)
        lin[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n] = field + glare[:, :, None] * tint
        raw = np.clip(white * np.clip(lin, 0.0, None) ** (1 / 2.2), 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", raw, [cv2.IMWRITE_JPEG_QUALITY, 95, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                                             cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420])
        assert ok
        raw = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        middle = raw[y0 + n:y0 + 2 * n, x0 + n:x0 + 2 * n][np.hypot(xx - c, yy - c) < 2.5]
        if piece is None:
            assert float((middle.max(axis=1) >= 248).mean()) > 0.6  # the glare hides most of the middle
        allowed = ("site", "guest") if tile == SITE else ("walkway", "guest", "barker")
        read[name] = _read_fields(_Board(raw, coef, CATALOG))[4](9, allowed)
    assert read["walkway"] == "walkway"
    # a piece is read as itself or held, never as the bare field; the site as itself or held
    assert read["guest"] in ("guest", None) and read["barker"] in ("barker", None)
    assert read["site guest"] in ("guest", None) and read["site"] in ("site", None)


def test_a_ticket_beside_the_edge_inside_one_attraction_parts_nothing_a_site_between_two_pieces_does() -> None:
    n = _px(FIELD)
    x0, y0 = _px(BOARD.grid_x), _px(BOARD.grid_y)
    edge = y0 + n  # between a8 and a7, fields of one piece
    ratios = {}
    for name, band, colour in (("ticket", (2.7, 10.0), TICKET), ("site apart", (0.5, 2.0), SITE),
                               ("site apart, off", (1.5, 2.7), SITE)):
        rect = np.full((_px(BOARD.height), _px(BOARD.width), 3), 255, np.uint8)
        rect[y0:y0 + 2 * n, x0:x0 + n] = ATTRACTION
        rect[edge + _px(band[0]):edge + _px(band[1]), x0 + _px(4.0):x0 + n - _px(4.0)] = colour
        rect = cv2.GaussianBlur(rect, (0, 0), 1.0)
        ratios[name] = _edge_ratio(_Board(rect, np.zeros((6, 3)), CATALOG), 0, 8, strongest=True)
    # a ticket's yellow at the span's end is no site between pieces: the fields are joined
    assert ratios["ticket"] >= _SPLIT
    # a site showing between two pieces laid up to 2.7 mm off the edge parts them
    assert ratios["site apart"] < _SPLIT and ratios["site apart, off"] < _SPLIT


@pytest.mark.parametrize("guest", [True, False])
def test_an_entrance_glare_washes_and_saturates_in_part_is_read_from_its_pixels_one_by_one(guest: bool) -> None:
    # photographed by the camera model (medium, 1280x960, a tuning scene of the benchmark): broad glare over
    # entrance 2 clips the blue of two fifths of its middle and saturates a twentieth; the guest's colour left in the
    # median is too washed to read, no one way of clipping covers half of it. Its pixels one by one, as a field's
    # middle is read (`_glare_votes`): the guest, or the bare walkway under the same glare
    seed = 661_000_013
    scene, _ = random_turn(seed)
    board = dataclasses.replace(scene.board, entrances=(scene.board.entrances[0], guest))
    region = content_region(1)
    s = max(6.0, 1.3 * WIDTH / (region[2] - region[0]))
    image = render_top_down([MarketScene(board, scene.seat, seed)], s, region)
    photo = photograph(image, s, region[:2], region, "medium", seed, size=(WIDTH, 960))
    view = next(v for v in Recognizer().recognize(photo.image).views if v.seat == scene.seat)
    assert view.entrances[1] is guest
    assert not any(u.where == "in2" for u in view.unrecognised)
