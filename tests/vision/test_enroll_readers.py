"""Enrolled decks in the code- and colour-reading recognisers and Carcassonne: the reader is called, its sure names used."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.flohcati import Action, Colour
from scorer.grand_carnival.codec import board_from_parts
from scorer.grand_carnival.components import CATALOG
from scorer.grand_carnival.model import TrickStatus
from scorer.grandioso.pyramid import Card, Pyramid
from vision.camera_model import photograph as photograph_table
from vision.carcassonne.board import draw_board, random_layout
from vision.carcassonne.camera import LEVELS, photograph
from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier
from vision.carcassonne.labels import parse_label
from vision.carcassonne.recognize import recognize as read_board
from vision.carcassonne.render import render_tile
from vision.classify import Recognition, Verdict
from vision.flohcati.layout import CODE_CENTRE, CODE_SIZE, Area, request_slot
from vision.flohcati.pipeline import Recognizer as FlohcatiRecognizer
from vision.flohcati.scene import REGION, TableLayout, render
from vision.grand_carnival.pipeline import Recognizer as CarnivalRecognizer
from vision.grand_carnival.scene import MarketScene
from vision.grand_carnival.scene import frame as carnival_frame
from vision.grandioso.layout import code_centre
from vision.grandioso.pipeline import Recognizer
from vision.grandioso.scene import CONTENT_REGION, Scene, frame


class Reader:
    """A deck's reader that answers ``label`` (IDENTIFIED) or nothing sure (None), and keeps what it was shown."""

    def __init__(self, label: str | None, crop_size: tuple[int, int] = (40, 56)) -> None:
        self.label = label
        self.crop_size = crop_size
        self.seen: list[np.ndarray] = []

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        self.seen.extend(crops)
        if self.label is None:
            return [Recognition(Verdict.UNSURE, "x", 0.1) for _ in crops]
        return [Recognition(Verdict.IDENTIFIED, self.label, 0.9) for _ in crops]


def _smudged() -> np.ndarray:
    """A Grandioso table whose Rhino at row 1, place 0 shows no readable code (as a published card's would)."""
    p = Pyramid.start().with_card(0, 1, Card.ELEPHANT).with_card(1, 0, Card.RHINO)
    img = frame(Scene(p, stack=False))
    s = 1280 / (CONTENT_REGION[2] - CONTENT_REGION[0])
    x, y = code_centre(1, 0)
    px, py = int((x - CONTENT_REGION[0]) * s), int((y - CONTENT_REGION[1]) * s)
    cv2.rectangle(img, (px - 6, py - 6), (px + 6, py + 6), (0, 0, 0), -1)
    return img


@pytest.mark.parametrize(("label", "expect"), [("rhino", Card.RHINO), (None, None), ("not-a-card", None)])
def test_grandioso_asks_the_deck_for_a_card_without_a_code(label: str | None, expect: Card | None) -> None:
    reader = Reader(label)
    view = Recognizer(classifier=reader).recognize(_smudged()).view
    assert len(reader.seen) == 1 and reader.seen[0].shape == (56, 40, 3)
    assert view.pyramid.get((1, 0)) is expect
    assert view.pyramid[(0, 0)] is Card.ELEPHANT and view.pyramid[(0, 1)] is Card.ELEPHANT  # read by their codes
    assert bool(view.unrecognised) == (expect is None)


def test_grandioso_never_asks_the_deck_where_codes_are_read() -> None:
    reader = Reader("clown")
    view = Recognizer(classifier=reader).recognize(frame(Scene(Pyramid.start().with_card(0, 1, Card.ELEPHANT),
                                                               stack=False))).view
    assert reader.seen == [] and view.pyramid == {(0, 0): Card.ELEPHANT, (0, 1): Card.ELEPHANT}


@pytest.fixture(scope="module")
def tiles() -> TileClassifier:
    return TileClassifier(DEFAULT_MODEL)


def test_carcassonne_deck_names_the_tile_and_the_model_its_turn(tiles: TileClassifier) -> None:
    rng = np.random.default_rng(4)
    crops = np.stack([render_tile("D", r, 48, "bright", rng) for r in (0, 90, 180, 270)]).astype(np.uint8)
    reader = Reader("D", (48, 48))
    probs, edges = DeckTileClassifier(reader, tiles).run(crops)
    assert len(reader.seen) == 4
    for row in probs:
        best = parse_label(tiles.labels[int(np.argmax(row))])
        assert best is not None and best[0] == "D"
        assert abs(float(row.sum()) - 1.0) < 1e-4
    plain_probs, plain_edges = tiles.run(crops)
    assert np.array_equal(edges, plain_edges)
    unsure, _ = DeckTileClassifier(Reader(None, (48, 48)), tiles).run(crops)
    assert np.array_equal(unsure, plain_probs)


def test_carcassonne_board_read_with_a_deck_calls_it_for_every_cell(tiles: TileClassifier) -> None:
    rng = np.random.default_rng(11)
    layout = random_layout(6, rng, expansion=False)
    board = draw_board(layout, lambda t, r: render_tile(t, r, 64, "bright", rng), rng, cell=64, margin=4.0)
    photo = photograph(board.image, LEVELS["overhead"], rng, size=(960, 540), subject=board.subject).image
    reader = Reader(None, (48, 48))
    plain = read_board(photo, tiles)
    with_deck = read_board(photo, DeckTileClassifier(reader, tiles))
    assert len(reader.seen) >= len(layout)
    assert [(t.x, t.y, t.tile, t.rotation) for t in with_deck.tiles] == [(t.x, t.y, t.tile, t.rotation)
                                                                          for t in plain.tiles]


def _request_without_code() -> np.ndarray:
    """A Flohcati table with one Request card whose code's middle is blank (a code square that decodes as nothing)."""
    layout = TableLayout(request=(Colour.PINK, False), zones=((), ()))
    s = 2.5
    image, origin = render(layout, s)
    x, y = request_slot(Colour.PINK)
    px, py = (x + CODE_CENTRE[0] - origin[0]) * s, (y + CODE_CENTRE[1] - origin[1]) * s
    half = CODE_SIZE * 0.3 * s
    cv2.rectangle(image, (int(px - half), int(py - half)), (int(px + half), int(py + half)), (255, 255, 255), -1)
    return photograph_table(image, s, origin, REGION, "easy", seed=3).image


@pytest.mark.parametrize(("label", "read"), [("request-attraction", True), (None, False), ("red-9", False)])
def test_flohcati_asks_the_deck_for_a_card_whose_code_is_not_read(label: str | None, read: bool) -> None:
    reader = Reader(label)
    view = FlohcatiRecognizer(classifier=reader).recognize(_request_without_code()).view
    assert len(reader.seen) == 1 and reader.seen[0].shape == (56, 40, 3)
    assert [c.card for c in view.cards] == ([Action.REQUEST] if read else [])
    assert bool(view.unreadable) == (not read)
    if read:
        assert view.cards[0].area is Area.REQUEST


def _carnival_frame() -> np.ndarray:
    """A market whose top four parcels hold the ``ww/ss`` tile and the other twelve are empty."""
    board = board_from_parts(("ww/ss",) * 4 + (None,) * 12, (), 0, (True, False), 0, 0, frozenset(),
                             (TrickStatus.OPEN,) * 3, CATALOG)
    return carnival_frame([MarketScene(board, 0, 7)], 1280)


@pytest.mark.parametrize(("label", "top"), [("ws/ws", "wswswsws"), (None, "wwwwwwww"), ("ws-ws", "wwwwwwww")])
def test_grand_carnival_asks_the_deck_for_every_tiled_parcel(label: str | None, top: str) -> None:
    reader = Reader(label, (48, 48))
    view = CarnivalRecognizer(classifier=reader).recognize(_carnival_frame()).views[0]
    assert len(reader.seen) == 4 and all(c.shape == (48, 48, 3) for c in reader.seen)  # the empty parcels: not asked
    assert view.market[0] == top and view.market[1] == ("wswswsws" if label == "ws/ws" else "ssssssss")
    assert view.market[2:] == ("........",) * 6 and view.unrecognised == ()
