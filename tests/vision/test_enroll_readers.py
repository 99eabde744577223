"""Enrolled decks in the code- and colour-reading recognisers and Carcassonne: the reader is called, its sure names used."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from scorer.carcassonne.catalog import rotated
from scorer.flohcati import Action, Colour
from scorer.grand_carnival.codec import board_from_parts
from scorer.grand_carnival.components import CATALOG
from scorer.grand_carnival.model import TrickStatus
from scorer.grandioso.pyramid import Card, Pyramid
from vision.camera_model import photograph as photograph_table
from vision.carcassonne.board import BoardImage, draw_board, random_layout
from vision.carcassonne.camera import LEVELS, photograph
from vision.carcassonne.classifier import DEFAULT_MODEL, DeckTileClassifier, TileClassifier
from vision.carcassonne.dataset import EDGE_INDEX
from vision.carcassonne.grid import NoBoardError
from vision.carcassonne.labels import label, parse_label
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


class TemplateReader(Reader):
    """A deck's reader unsure of every crop whose templates alone name ``named`` (`vision.enroll.Deck.named_by_templates`)."""

    def __init__(self, named: str | None) -> None:
        super().__init__(None)
        self.named = named

    def named_by_templates(self, crops: np.ndarray) -> list[str | None]:
        return [self.named for _ in crops]


@pytest.mark.parametrize(("named", "expect"), [("rhino", Card.RHINO), (None, None), ("not-a-card", None)])
def test_grandioso_names_a_card_the_decks_templates_alone_name(named: str | None, expect: Card | None) -> None:
    view = Recognizer(classifier=TemplateReader(named)).recognize(_smudged()).view
    assert view.pyramid.get((1, 0)) is expect
    assert bool(view.unrecognised) == (expect is None)


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
    unsure, unsure_edges = DeckTileClassifier(Reader(None, (48, 48)), tiles).run(crops)
    assert np.array_equal(unsure, plain_probs) and np.array_equal(unsure_edges, plain_edges)


def test_carcassonne_deck_named_tile_gives_the_sides_its_turns_show(tiles: TileClassifier) -> None:
    # the model's edge head reads the sides of these crops as it likes; once the deck names D, each side is
    # what D shows there in the turns the model's sides picked (city north, road east and west at 0)
    crops = np.stack([render_tile("D", r, 48, "bright", np.random.default_rng(4)) for r in (0, 90)]).astype(np.uint8)
    probs, edges = DeckTileClassifier(Reader("D", (48, 48)), tiles).run(crops)
    for row, sides, turn in zip(probs, edges, (0, 90)):
        name, rot = parse_label(tiles.labels[int(np.argmax(row))])  # type: ignore[misc]
        assert (name, rot) == ("D", turn)
        want = [EDGE_INDEX[e.value] for e in rotated("D", turn).edges]
        assert [int(np.argmax(sides[s])) for s in range(4)] == want
        assert abs(float(sides.sum()) - 4.0) < 1e-4


class NearestReader:
    """A deck's reader unsure of every crop, its nearest label the one ``nearest`` gives for the crop."""

    crop_size = (48, 48)

    def __init__(self, nearest: Callable[[np.ndarray], str]) -> None:
        self.nearest = nearest

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, self.nearest(c), 0.1) for c in crops]


def _model_tile(tiles: TileClassifier, crop: np.ndarray) -> str:
    """The model's most likely tile for one crop, its turns together."""
    probs, _ = tiles.run(crop[None])
    by_type: dict[str, float] = {}
    for j, lab in enumerate(tiles.labels):
        parsed = parse_label(lab)
        if parsed is not None:
            by_type[parsed[0]] = by_type.get(parsed[0], 0.0) + float(probs[0, j])
    return max(by_type, key=lambda k: by_type[k])


def test_carcassonne_a_tile_the_deck_is_unsure_of_is_unrecognised_even_where_the_model_agrees(
        tiles: TileClassifier) -> None:
    rng = np.random.default_rng(11)
    layout = random_layout(6, rng, expansion=False)
    board = draw_board(layout, lambda t, r: render_tile(t, r, 64, "bright", rng), rng, cell=64, margin=4.0)
    photo = photograph(board.image, LEVELS["overhead"], rng, size=(960, 540), subject=board.subject).image
    plain = read_board(photo, tiles)
    assert plain.tiles
    # the deck's nearest label is the model's own tile, but the deck is not sure of it: on an edition the model
    # reads poorly both err alike, so nothing is accepted
    agree = read_board(photo, DeckTileClassifier(NearestReader(lambda c: _model_tile(tiles, c)), tiles))
    assert agree.tiles == () and {(u.x, u.y) for u in agree.unrecognised} >= {(t.x, t.y) for t in plain.tiles}


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


def _own_field(kind: str, n: int, light: float = 1.0) -> np.ndarray:
    """One field of a family's own tile art: a walkway of light slabs, a site of dark earth under a striped band."""
    f = np.empty((n, n, 3), np.float32)
    if kind == "w":
        f[:] = (200, 172, 182)
        for k in range(n // 4, n, n // 4):
            cv2.line(f, (0, k), (n, k), (110, 90, 100), max(1, n // 24))
    else:
        f[:] = (45, 78, 120)
        f[: n // 5] = (30, 210, 245)
        for k in range(0, n, max(2, n // 6)):
            cv2.line(f, (k, n // 5), (k + n // 5, 0), (25, 25, 25), max(1, n // 24))
    return np.clip(f * light, 0, 255).astype(np.uint8)


def _own_tile(pattern: str, s: float, badged: bool = False, light: float = 1.0) -> np.ndarray:
    """A foundation tile (``ws/ss``) in that art, 2 x 2 fields of 18 mm at ``s`` px/mm."""
    n = int(round(18.0 * s))
    kinds = pattern.replace("/", "")
    return np.vstack([np.hstack([_own_field(kinds[2 * r + c], n, light) for c in range(2)]) for r in range(2)])


class OwnTiles:
    """A deck of the own tiles that names none (as unsure of every parcel as a deck under pieces is), with
    templates: every pattern of the box photographed twice, upright (``turned``: these patterns a quarter turn off)."""

    crop_size = (48, 48)

    def __init__(self, turned: tuple[str, ...] = ()) -> None:
        self.labels = tuple(CATALOG.foundations)
        views, owners = [], []
        for i, pattern in enumerate(self.labels):
            for light in (0.9, 1.1):
                view = cv2.resize(_own_tile(pattern, 4.0, light=light), (48, 48), interpolation=cv2.INTER_AREA)
                views.append(np.rot90(view).copy() if pattern in turned else view)
                owners.append(i)
        self.templates = np.stack(views)
        self.template_owners = np.array(owners, np.int32)

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, self.labels[0], 0.1) for _ in crops]


def test_grand_carnival_field_art_reads_each_field_by_the_decks_own_photos() -> None:
    from vision.grand_carnival.pipeline import _FieldArt

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)
    for pattern in ("ws/sw", "ww/ss", "sw/ww"):
        tile = cv2.resize(_own_tile(pattern, 3.0, light=0.8), (48, 48), interpolation=cv2.INTER_AREA)
        assert [art.kind(tile, q) for q in range(4)] == list(pattern.replace("/", ""))
        assert all(art.bare(tile, q, k) for q, k in enumerate(pattern.replace("/", "")))
        # a guest (a purple disc) on the first field: its middle is not the art's
        guest = tile.copy()
        cv2.circle(guest, (12, 12), 6, (150, 40, 135), -1)
        assert not art.bare(guest, 0, pattern[0]) and art.kind(guest, 0) == pattern[0]
    # a photo enrolment cut a quarter turn off shows its fields where the other photos show the other kind: dropped
    turned = OwnTiles(turned=("ws/ss", "ww/sw"))
    kept = _FieldArt(turned.templates, turned.template_owners, turned.labels)
    assert len(kept.rings) == len(art.rings) - 4 * 4


@pytest.mark.parametrize(("gain", "offset"), [((1.2, 0.9, 0.6), (0, 20, 40)), ((0.6, 1.0, 1.3), (40, 0, -30))])
def test_grand_carnival_field_art_finds_a_bare_middle_under_a_colour_cast(gain: tuple[float, ...],
                                                                         offset: tuple[float, ...]) -> None:
    from vision.grand_carnival.pipeline import _FieldArt

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)
    for pattern in ("ws/sw", "ww/ss"):
        tile = cv2.resize(_own_tile(pattern, 3.0), (48, 48), interpolation=cv2.INTER_AREA).astype(np.float32)
        # the camera's colour cast scales and shifts each channel on its own
        cast = np.clip(tile * np.array(gain) + np.array(offset), 0, 255).astype(np.uint8)
        assert all(art.bare(cast, q, k) for q, k in enumerate(pattern.replace("/", "")))
        guest = cast.copy()
        cv2.circle(guest, (12, 12), 6, (150, 40, 135), -1)
        assert not art.bare(guest, 0, pattern[0])


def _own_market(parcels: tuple[str | None, ...]) -> np.ndarray:
    from vision.grand_carnival.scene import content_region, render_top_down

    board = board_from_parts(parcels, (), 0, (True, False), 0, 0, frozenset(), (TrickStatus.OPEN,) * 3, CATALOG)
    region = content_region(1)
    return render_top_down([MarketScene(board, 0, 7)], 1280 / (region[2] - region[0]), tile_art=_own_tile)


def test_grand_carnival_reads_a_parcel_the_deck_is_unsure_of_field_by_field() -> None:
    parcels = ("ws/sw", "ww/ss", None, "sw/ww") + (None,) * 12
    image = _own_market(parcels)
    with_deck = CarnivalRecognizer(classifier=OwnTiles()).recognize(image).views[0]
    assert with_deck.market[0] == "wsww..sw" and with_deck.market[1] == "swss..ww"
    assert with_deck.market[2:] == ("........",) * 6 and with_deck.unrecognised == ()
    # the printed colours alone do not read the family's tiles
    plain = CarnivalRecognizer().recognize(image).views[0]
    assert plain.market[:2] != with_deck.market[:2]


def test_grand_carnival_a_walkway_whose_print_shows_through_a_cast_is_read_as_its_bare_print() -> None:
    # a colour cast over the middle of c8's walkway (its slabs still show) brings its colour near a guest's: the
    # colours call it a guest only by allowing for glare
    cast = np.array((0.75, 0.23, 0.74), np.float32)  # the lavender walkway's colour to a guest's, channel by channel

    def cast_art(pattern: str, s: float, badged: bool = False) -> np.ndarray:
        tile = _own_tile(pattern, s).astype(np.float32)
        if pattern == "ww/ss":
            n = int(round(18.0 * s))
            disc = np.zeros(tile.shape[:2], np.uint8)
            cv2.circle(disc, (n // 2, n // 2), int(6.0 * s), 1, -1)
            tile[disc > 0] *= 1 - 0.45 * (1 - cast)
        return tile.astype(np.uint8)

    from vision.grand_carnival.scene import content_region, render_top_down

    parcels = ("sw/ss", "ww/ss") + (None,) * 14
    board = board_from_parts(parcels, (), 0, (True, False), 0, 0, frozenset(), (TrickStatus.OPEN,) * 3, CATALOG)
    region = content_region(1)
    image = render_top_down([MarketScene(board, 0, 7)], 1280 / (region[2] - region[0]), tile_art=cast_art)
    view = CarnivalRecognizer(classifier=OwnTiles()).recognize(image).views[0]
    # the deck's art shows the walkway's bare print there and no piece's colour lies near: the bare walkway
    assert view.market[0] == "swww...." and view.market[1] == "ssss...."
    assert view.unrecognised == ()


def test_grand_carnival_a_deck_naming_a_walkway_under_an_attraction_is_not_taken() -> None:
    from vision.grand_carnival.pipeline import _art_disagrees, _FieldArt

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)

    class Board:
        rect = np.zeros((1, 1, 3), np.uint8)

    # off the rectified board nothing is cut: only the attraction can disagree
    ring: list[str | None] = ["attraction"] * 64
    assert _art_disagrees(Board(), 0, "ws/ss", ring, art)  # type: ignore[arg-type]
    assert not _art_disagrees(Board(), 0, "ss/ss", ring, art)  # type: ignore[arg-type]


def test_grand_carnival_a_piece_only_glare_explains_on_a_familys_field_is_not_taken() -> None:
    # a8's walkway holds a disc a guest's purple under grey glare would show (the colours call it a guest only by
    # allowing for glare, which takes the field under it to be the print's); c8's a guest's own purple
    lit = tuple(float(v) for v in 255 * ((np.array((150, 40, 135)) / 255) ** 2.2 + 0.2) ** (1 / 2.2))

    def art(pattern: str, s: float, badged: bool = False) -> np.ndarray:
        tile = _own_tile(pattern, s)
        n = int(round(18.0 * s))
        colour = lit if pattern == "ww/ss" else (150, 40, 135)
        cv2.circle(tile, (n // 2, n // 2), int(5.0 * s), colour, -1)
        return tile

    from vision.grand_carnival.scene import content_region, render_top_down

    parcels = ("ww/ss", "ws/ww") + (None,) * 14
    board = board_from_parts(parcels, (), 0, (True, False), 0, 0, frozenset(), (TrickStatus.OPEN,) * 3, CATALOG)
    region = content_region(1)
    image = render_top_down([MarketScene(board, 0, 7)], 1280 / (region[2] - region[0]), tile_art=art)
    view = CarnivalRecognizer(classifier=OwnTiles()).recognize(image).views[0]
    assert view.market[0] == "?wgs...." and view.market[1] == "ssww...."
    assert [u.where for u in view.unrecognised] == ["a8"]


def test_grand_carnival_a_deck_naming_a_tile_on_two_of_its_fields_is_not_taken() -> None:
    from vision.grand_carnival.layout import BOARD, FIELD
    from vision.grand_carnival.pipeline import _art_disagrees, _FieldArt, _px

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)
    n, x0, y0 = _px(FIELD), _px(BOARD.grid_x), _px(BOARD.grid_y)

    class Board:
        rect = np.zeros((y0 + 2 * n + 4, x0 + 2 * n + 4, 3), np.uint8)

    def lay(washed: tuple[int, ...]) -> Board:
        tile = cv2.resize(_own_tile("ws/sw", 4.0), (2 * n, 2 * n), interpolation=cv2.INTER_AREA)
        for q in washed:  # glare washes the field out: neither its art nor its colours show
            r, c = divmod(q, 2)
            tile[r * n:(r + 1) * n, c * n:(c + 1) * n] = 235
        b = Board()
        b.rect[y0:y0 + 2 * n, x0:x0 + 2 * n] = tile
        return b

    ring: list[str | None] = [None] * 64
    assert not _art_disagrees(lay(()), 0, "ws/sw", ring, art)  # type: ignore[arg-type]
    assert _art_disagrees(lay(()), 0, "ws/ww", ring, art)  # type: ignore[arg-type]
    # one field unseen: the name rests on three; two unseen: a guess among the tiles that share the other two
    assert not _art_disagrees(lay((3,)), 0, "ws/sw", ring, art)  # type: ignore[arg-type]
    assert _art_disagrees(lay((2, 3)), 0, "ws/ww", ring, art)  # type: ignore[arg-type]
    assert _art_disagrees(lay((2, 3)), 0, "ws/sw", ring, art)  # type: ignore[arg-type]
    # ... unless the colours show one of them
    ring[8] = "site"
    assert not _art_disagrees(lay((2, 3)), 0, "ws/sw", ring, art)  # type: ignore[arg-type]


class SeenModel:
    """A tile model that reads the sides of ``board``'s tiles right (crops in the board's order), but cells ``city``
    as the all-city tile C, every side a city: an edition it mostly reads, a few tiles it never could."""

    def __init__(self, labels: tuple[str, ...], board: BoardImage, city: set[int]) -> None:
        self.labels, self.board, self.city = labels, board, city

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probs = np.zeros((len(crops), len(self.labels)), np.float32)
        edges = np.full((len(crops), 4, 3), 0.01, np.float32)
        for k, t in zip(range(len(crops)), self.board.tiles):
            if k in self.city:
                probs[k, self.labels.index("C@0")] = 1.0
                edges[k, :, EDGE_INDEX["city"]] = 0.98
            else:
                probs[k, self.labels.index(label(t.tile, t.rotation))] = 1.0
                edges[k, range(4), [EDGE_INDEX[e.value] for e in rotated(t.tile, t.rotation).edges]] = 0.98
        return probs, edges


def test_carcassonne_the_models_sides_of_cells_the_deck_doubts_do_not_refuse_the_board(tiles: TileClassifier) -> None:
    from vision.carcassonne.grid import Cell, Grid
    from vision.carcassonne.recognize import read_cells

    rng = np.random.default_rng(5)
    layout = random_layout(12, rng, expansion=False)
    board = draw_board(layout, lambda t, r: render_tile(t, r, 64, "bright", rng), rng, cell=64, margin=2.0)
    grid = Grid(tuple(Cell(t.x, t.y, board.cell_corners(t.x, t.y), 1.0) for t in board.tiles), np.eye(3))
    doubted = {1, 4, 7, 10}  # the deck is unsure of these cells (the model reads them as C); it names every other

    class Truth:
        crop_size = (48, 48)

        def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
            return [Recognition(Verdict.UNSURE if k in doubted else Verdict.IDENTIFIED, t.tile, 0.5)
                    for k, t in zip(range(len(crops)), board.tiles)]

    model = SeenModel(tiles.labels, board, doubted)
    with pytest.raises(NoBoardError):
        read_cells(board.image, grid, model)  # type: ignore[arg-type]
    reading = read_cells(board.image, grid, DeckTileClassifier(Truth(), model))  # type: ignore[arg-type]
    x0, y0 = min(t.x for t in layout), min(t.y for t in layout)
    truth = {(t.x - x0, t.y - y0): label(t.tile, t.rotation) for t in board.tiles}
    assert {(u.x, u.y) for u in reading.unrecognised} >= {(board.tiles[k].x - x0, board.tiles[k].y - y0) for k in doubted}
    assert reading.tiles and all(truth[(t.x, t.y)] == label(t.tile, t.rotation) for t in reading.tiles)


def test_carcassonne_look_alikes_differ_by_a_road_or_a_pennant() -> None:
    from vision.carcassonne.classifier import look_alikes

    assert look_alikes("A", "B") and look_alikes("B", "A")  # a monastery with and without its road
    assert look_alikes("O", "P") and look_alikes("W", "X") and look_alikes("I", "N")
    assert not look_alikes("A", "A") and not look_alikes("B", "C") and not look_alikes("E", "X")


class ScoredReader(Reader):
    """A deck naming ``label`` for every crop, with fused distances: ``label`` at ``own``, its look-alike at 1."""

    def __init__(self, label: str, own: float, labels: tuple[str, ...]) -> None:
        super().__init__(label, (48, 48))
        self.own, self.labels = own, labels

    def scores(self, crops: np.ndarray) -> tuple[np.ndarray, None, np.ndarray]:
        d = np.full((len(crops), len(self.labels)), 5.0, np.float32)
        d[:, self.labels.index("A")] = 1.0
        d[:, self.labels.index(self.label or "")] = self.own
        return d, None, d


@pytest.mark.parametrize(("own", "named"), [(0.5, True), (0.9, False)])
def test_carcassonne_a_tile_named_scarcely_nearer_than_its_look_alike_is_doubtful(tiles: TileClassifier, own: float,
                                                                                 named: bool) -> None:
    crops = np.stack([render_tile("B", 0, 48, "bright", np.random.default_rng(2))]).astype(np.uint8)
    probs, _, doubtful = DeckTileClassifier(ScoredReader("B", own, ("A", "B", "C")), tiles).read(crops)
    # named: the deck's tile replaces the model's row (no share for an empty cell); else the cell is doubtful
    assert (float(probs[0, tiles.labels.index("none")]) == 0.0) == named
    assert bool(doubtful[0]) == (not named)


def test_grand_carnival_field_art_reads_a_field_a_smooth_glare_lies_across() -> None:
    from vision.grand_carnival.pipeline import _ART_MATCH, _FieldArt

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)
    yy, xx = np.mgrid[:48, :48]
    glare = 100.0 * np.exp(-(xx ** 2 + yy ** 2) / (2 * 14.0 ** 2))  # a spot on the tile's corner, fading across
    for pattern in ("ws/sw", "sw/ww"):
        tile = cv2.resize(_own_tile(pattern, 3.0, light=0.5), (48, 48), interpolation=cv2.INTER_AREA)
        lit = np.clip(tile + glare[..., None], 0, 255).astype(np.uint8)
        assert max(art.best(lit, 0).values()) < _ART_MATCH + 0.05  # the ring as it is: at or below the bar
        assert art.kind(lit, 0) == pattern[0]
    # a field of no tile's art under the same glare (an empty parcel's plain print) shows no kind
    plain = np.clip(np.full((48, 48, 3), 120.0) + glare[..., None], 0, 255).astype(np.uint8)
    assert art.kind(plain, 0) is None


def test_grand_carnival_field_art_finds_a_bare_middle_a_glare_spot_lies_on() -> None:
    from vision.grand_carnival.pipeline import _ART_BARE, _FieldArt

    deck = OwnTiles()
    art = _FieldArt(deck.templates, deck.template_owners, deck.labels)
    yy, xx = np.mgrid[:48, :48]
    glare = 100.0 * np.exp(-((xx - 6) ** 2 + (yy - 6) ** 2) / (2 * 6.0 ** 2))  # a small spot over the first field
    tile = cv2.resize(_own_tile("ws/sw", 3.0, light=0.5), (48, 48), interpolation=cv2.INTER_AREA)
    lit = np.clip(tile + glare[..., None], 0, 255).astype(np.uint8)
    assert art.best(lit, 0, middle=True)["w"] < _ART_BARE  # the middle as it is: unlike the walkway's
    assert art.bare(lit, 0, "w")
    # a guest under the same spot is no bare walkway
    guest = tile.copy()
    cv2.circle(guest, (12, 12), 6, (150, 40, 135), -1)
    guest = np.clip(guest + glare[..., None], 0, 255).astype(np.uint8)
    assert not art.bare(guest, 0, "w")
