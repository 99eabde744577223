"""Edge twins (a city with or without a pennant) told apart by the part where an enrolled deck's views differ."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.carcassonne.deck_twins import edge_twins, twin_score
from vision.classify import Recognition, Verdict


def _city(pennant: bool) -> Any:
    """A 48 px tile: a blotchy city with a small bright pennant near one corner, or without it."""
    rng = np.random.default_rng(7)
    art = cv2.resize(rng.integers(40, 200, (6, 6, 3), dtype=np.uint8), (48, 48), interpolation=cv2.INTER_CUBIC)
    if pennant:
        cv2.circle(art, (14, 14), 4, (40, 220, 245), -1)
    return art


def _views(*tiles: Any) -> tuple[Any, Any]:
    """Each tile enrolled from a photo (`_photographed`) in its four turns: the templates and their owners."""
    templates = np.stack([np.rot90(_photographed(t, 0, 99), -q).copy() for t in tiles for q in range(4)])
    return templates, np.repeat(np.arange(len(tiles), dtype=np.int32), 4)


def _photographed(tile: Any, turn: int, seed: int) -> Any:
    """``tile`` turned, shifted by a pixel, slightly blurred and noisy."""
    rng = np.random.default_rng(seed)
    out = np.rot90(tile, -turn).astype(np.float32)
    out = cv2.warpAffine(out, np.array([[1, 0, 1], [0, 1, -1]], np.float32), (48, 48), borderMode=cv2.BORDER_REPLICATE)
    out = cv2.GaussianBlur(out, (0, 0), 0.6) * 0.9 + 12 + rng.normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_edge_twins_are_tiles_with_the_same_sides_in_the_same_places() -> None:
    assert edge_twins("O", "P") and edge_twins("Q", "R") and edge_twins("N", "I")
    assert not edge_twins("O", "O") and not edge_twins("W", "X") and not edge_twins("Q", "S")


def test_the_part_where_the_views_differ_tells_twins_apart() -> None:
    templates, owners = _views(_city(True), _city(False))
    for turn in range(4):
        assert twin_score(_photographed(_city(True), turn, turn), templates, owners, 0, 1) >= 0.5
        assert twin_score(_photographed(_city(False), turn, turn), templates, owners, 0, 1) <= -0.5
        assert twin_score(_photographed(_city(False), turn, turn), templates, owners, 1, 0) >= 0.5


def test_a_blurred_photo_is_told_against_views_blurred_alike() -> None:
    from vision.enroll import TEMPLATE_BLURS

    templates, owners = _views(_city(True), _city(False))
    for sigma in (2.0, 2.5):
        pennant = cv2.GaussianBlur(_photographed(_city(True), 1, 5), (0, 0), sigma)
        plain = cv2.GaussianBlur(_photographed(_city(False), 1, 5), (0, 0), sigma)
        # against the sharp views the blurred pennant is not told (or told the wrong way)
        assert twin_score(pennant, templates, owners, 0, 1) < 0.5
        assert twin_score(pennant, templates, owners, 0, 1, blurs=TEMPLATE_BLURS) >= 0.5
        assert twin_score(plain, templates, owners, 0, 1, blurs=TEMPLATE_BLURS) <= -0.5


def test_twins_are_not_told_where_glare_blows_out_the_part_they_differ_in() -> None:
    templates, owners = _views(_city(True), _city(False))
    glared = _photographed(_city(True), 0, 3)
    cv2.circle(glared, (15, 13), 9, (255, 255, 255), -1)
    assert twin_score(glared, templates, owners, 0, 1) == 0.0


class TileModel:
    """A tile model that reads every crop as some tile, its sides unsure."""

    def __init__(self) -> None:
        from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier

        self.labels = TileClassifier(DEFAULT_MODEL).labels

    def run(self, crops: Any) -> tuple[Any, Any]:
        probs = np.zeros((len(crops), len(self.labels)), np.float32)
        probs[:, self.labels.index("B@0")] = 1.0
        return probs, np.full((len(crops), 4, 3), 1 / 3, np.float32)


class TwinDeck:
    """A deck of O and P (a city corner with a road, without and with a pennant) that names P, scarcely nearer."""

    labels = ("O", "P")
    crop_size = (48, 48)

    def __init__(self) -> None:
        self.templates, self.template_owners = _views(_city(False), _city(True))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, "P", 0.1) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([1.0, 0.95], np.float32), (len(crops), 1))
        return d, None, d


def test_a_named_tile_scarcely_nearer_than_its_twin_is_taken_when_the_part_they_differ_in_shows_it() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    reader = DeckTileClassifier(TwinDeck(), TileModel())  # type: ignore[arg-type]
    glared = _photographed(_city(True), 0, 3)
    cv2.circle(glared, (15, 13), 9, (255, 255, 255), -1)
    crops = np.stack([_photographed(_city(True), 1, 1), _photographed(_city(False), 2, 2), glared])
    probs, _, doubtful, close = reader.read_with_candidates(crops)
    p_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("P@")]
    # the pennant shows: P, sure; no pennant where P's views have one: unsure, and only O is close; glare: both
    assert not doubtful[0] and probs[0, p_cols].sum() > 0.99
    assert bool(doubtful[1]) and close[1] == frozenset({"O"})
    assert bool(doubtful[2]) and close[2] == frozenset({"O", "P"})


def test_a_blurred_cell_is_told_from_its_twin_against_views_blurred_alike() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    reader = DeckTileClassifier(TwinDeck(), TileModel())  # type: ignore[arg-type]
    crops = np.stack([cv2.GaussianBlur(_photographed(_city(True), 1, 1), (0, 0), 2.0),
                      cv2.GaussianBlur(_photographed(_city(False), 2, 2), (0, 0), 2.0)])
    probs, _, doubtful, close = reader.read_with_candidates(crops)
    p_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("P@")]
    assert not doubtful[0] and probs[0, p_cols].sum() > 0.99
    assert bool(doubtful[1]) and close[1] == frozenset({"O"})


class CityDeck:
    """A deck of E and H (one city cap, two opposite caps) that names H, clearly nearer."""

    labels = ("E", "H")
    crop_size = (48, 48)

    def __init__(self) -> None:
        self.templates, self.template_owners = _views(_city(False), _city(True))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, "H", 0.5) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([1.0, 0.5], np.float32), (len(crops), 1))
        return d, None, d


def test_a_cell_mostly_blown_out_by_glare_is_named_nothing() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    reader = DeckTileClassifier(CityDeck(), TileModel())  # type: ignore[arg-type]
    seen = _photographed(_city(True), 0, 4)
    glared = seen.copy()
    glared[:26] = (250, 252, 255)  # over half the cell white: a cap may lie under it
    spot = seen.copy()
    spot[:12] = (250, 252, 255)  # a quarter: what is left still shows the tile
    probs, _, doubtful, close = reader.read_with_candidates(np.stack([seen, glared, spot]))
    h_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("H@")]
    assert not doubtful[0] and probs[0, h_cols].sum() > 0.99 and close[0] == frozenset({"H"})
    assert bool(doubtful[1]) and close[1] == frozenset()
    assert not doubtful[2] and probs[2, h_cols].sum() > 0.99



def _stub(road: bool) -> Any:
    """A 48 px tile: blotchy art with a dark road stub running in from one side, or a field there instead."""
    art = _city(False)
    if road:
        cv2.rectangle(art, (20, 34), (27, 47), (30, 30, 30), -1)
    return art


class RoadDeck:
    """A deck of two road look-alikes (not edge twins), the second drawn with a road stub where the first has a field,
    that names the second, scarcely nearer."""

    crop_size = (48, 48)

    def __init__(self, labels: tuple[str, str]) -> None:
        self.labels = labels
        self.templates, self.template_owners = _views(_stub(False), _stub(True))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.labels[1], 0.1) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([1.0, 0.95], np.float32), (len(crops), 1))
        return d, None, d


def test_road_look_alikes_are_told_apart_by_the_road_stub_their_views_differ_in() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier, look_alikes

    assert look_alikes("R", "T") and not edge_twins("R", "T")
    reader = DeckTileClassifier(RoadDeck(("R", "T")), TileModel())  # type: ignore[arg-type]
    crops = np.stack([_photographed(_stub(True), 3, 1), _photographed(_stub(False), 1, 2)])
    probs, _, doubtful, close = reader.read_with_candidates(crops)
    t_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("T@")]
    # the stub shows: T, sure; no stub where T's views have one: unsure, and only R is close
    assert not doubtful[0] and probs[0, t_cols].sum() > 0.99
    assert bool(doubtful[1]) and close[1] == frozenset({"R"})


class FirstNamedRoadDeck(RoadDeck):
    """`RoadDeck` naming the first label (drawn without the road stub), scarcely nearer."""

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.labels[0], 0.1) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([0.95, 1.0], np.float32), (len(crops), 1))
        return d, None, d


def test_the_same_tile_without_a_lone_road_stub_is_told_against_every_view_of_the_stub() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    # B (a monastery, fields all round) shows its sides in every turn, A (B with a road stub) its stub in one: each
    # of A's views matching the cell is set against it, so the view in the cell's turn shows the stub if it is there
    stub, bare = ([_photographed(_stub(road), turn, 10 * road + turn) for turn in range(4)] for road in (True, False))
    named_b = DeckTileClassifier(FirstNamedRoadDeck(("B", "A")), TileModel())  # type: ignore[arg-type]
    probs, _, doubtful, close = named_b.read_with_candidates(np.stack(stub + bare))
    b_cols = [j for j, lab in enumerate(named_b.labels) if lab.startswith("B@")]
    for k in range(4):
        # B named where A's stub shows, in any turn: unsure, only A close; no stub in any of A's turns: B, sure
        assert bool(doubtful[k]) and close[k] == frozenset({"A"})
        assert not doubtful[4 + k] and probs[4 + k, b_cols].sum() > 0.99 and close[4 + k] == frozenset({"B"})
    # A named (B with a mark more): taken where the stub shows in any turn (the view of A in the cell's turn reads it,
    # whichever turn A's best view lies in), never where no view of A finds one
    named_a = DeckTileClassifier(RoadDeck(("B", "A")), TileModel())  # type: ignore[arg-type]
    probs, _, doubtful, close = named_a.read_with_candidates(np.stack(stub + bare))
    a_cols = [j for j, lab in enumerate(named_a.labels) if lab.startswith("A@")]
    for k in range(4):
        assert not doubtful[k] and probs[k, a_cols].sum() > 0.99 and close[k] == frozenset({"A"})
        assert bool(doubtful[4 + k]) and close[4 + k] == frozenset({"B"})
    # the part where they differ under glare: not told
    glared = bare[0].copy()
    glared[32:, 14:34] = (252, 252, 252)  # where A's stub lies in this turn
    _, _, doubtful, close = named_b.read_with_candidates(glared[None])
    assert bool(doubtful[0]) and close[0] == frozenset({"A", "B"})


def _crossing(roads: int) -> Any:
    """A 48 px tile the same in every turn but for its roads: a field of rings about the centre and dark roads
    running out from it to the east, south, west and (with four) north side; three roads: a field north."""
    yy, xx = np.mgrid[0:48, 0:48] - 23.5
    ring = (120 + 60 * np.sin(np.hypot(xx, yy) / 2.5)).astype(np.uint8)
    art = np.stack([ring, (ring * 0.8).astype(np.uint8), (ring * 0.5).astype(np.uint8)], axis=2).copy()
    for side in range(roads):  # east, south, west, north
        road = np.zeros((48, 48), np.uint8)
        cv2.rectangle(road, (24, 20), (47, 27), 1, -1)
        art[np.rot90(road, -side).astype(bool)] = (30, 30, 30)
    return art


class CrossingDeck:
    """A deck of W (three roads) and X (four), naming ``named`` with the other scarcely farther."""

    labels = ("W", "X")
    crop_size = (48, 48)

    def __init__(self, named: str) -> None:
        self.named = named
        self.templates, self.template_owners = _views(_crossing(3), _crossing(4))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.named, 0.1) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([0.95, 1.0] if self.named == "W" else [1.0, 0.95], np.float32), (len(crops), 1))
        return d, None, d


def test_three_roads_against_a_crossing_are_told_from_the_three_roads_views_alone() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    for named in ("W", "X"):
        reader = DeckTileClassifier(CrossingDeck(named), TileModel())  # type: ignore[arg-type]
        crops = np.stack([_photographed(_crossing(3), turn, turn) for turn in range(4)]
                         + [_photographed(_crossing(4), turn, 10 + turn) for turn in range(4)])
        probs, _, doubtful, close = reader.read_with_candidates(crops)
        w_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("W@")]
        x_cols = [j for j, lab in enumerate(reader.labels) if lab.startswith("X@")]
        for k in range(4):
            # three roads in any turn: W, however near X is; the crossing: never W, whichever the deck names
            assert close[k] == frozenset({"W"})
            assert (not doubtful[k] and probs[k, w_cols].sum() > 0.99) if named == "W" else bool(doubtful[k])
            assert close[4 + k] == frozenset({"X"})
            assert (not doubtful[4 + k] and probs[4 + k, x_cols].sum() > 0.99) if named == "X" else bool(doubtful[4 + k])


def test_a_tile_with_a_mark_more_than_its_look_alike_is_told_at_a_smaller_margin() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier, _marked

    # a pennant, a road where the other has a field, or both; not another city or another road
    for more, less in (("M", "N"), ("O", "P"), ("S", "Q"), ("S", "R"), ("T", "R"), ("X", "W"), ("A", "B")):
        assert _marked(more, less) and not _marked(less, more)
        assert DeckTileClassifier._margin(more, less) == DeckTileClassifier.MARK_MARGIN
        assert DeckTileClassifier._margin(less, more) > DeckTileClassifier.MARK_MARGIN
    for a, b in (("I", "N"), ("N", "I"), ("L", "D"), ("W", "V"), ("U", "A"), ("F", "H")):
        assert not _marked(a, b)


class MarkDeck:
    """A deck of M and N (a city corner with and without a pennant) naming ``named``, the other scarcely farther."""

    labels = ("M", "N")
    crop_size = (48, 48)

    def __init__(self, named: str) -> None:
        self.named = named
        self.templates, self.template_owners = _views(_city(True), _city(False))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.IDENTIFIED, self.named, 0.1) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, None, Any]:
        d = np.tile(np.array([0.95, 1.0] if self.named == "M" else [1.0, 0.95], np.float32), (len(crops), 1))
        return d, None, d


def test_a_blurred_mark_is_enough_for_the_tile_with_it_never_for_the_one_without() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    class Reading(DeckTileClassifier):
        def _twin(self, crop: Any, a: str, b: str) -> float:
            return 0.3 if a == "M" else -0.3  # the pennant shows, faintly (a blurred cell loses a mark, never gains one)

    for named, taken in (("M", True), ("N", False)):
        reader = Reading(MarkDeck(named), TileModel())  # type: ignore[arg-type]
        probs, _, doubtful, close = reader.read_with_candidates(_photographed(_city(True), 0, 5)[None])
        cols = [j for j, lab in enumerate(reader.labels) if lab.startswith(f"{named}@")]
        assert bool(doubtful[0]) != taken and (probs[0, cols].sum() > 0.99) == taken
        assert close[0] == frozenset({"M"})


class UnsureDeck:
    """A deck of M and N unsure of every cell, both about as near by its whole-tile tests; the template correlation of
    each is ``correlation``."""

    labels = ("M", "N")
    crop_size = (48, 48)

    def __init__(self, correlation: float) -> None:
        self.correlation = correlation
        self.templates, self.template_owners = _views(_city(True), _city(False))

    def classify(self, crops: Any, threshold: float) -> list[Recognition]:
        return [Recognition(Verdict.UNSURE, "N", 0.0) for _ in crops]

    def scores(self, crops: Any) -> tuple[Any, Any, Any]:
        d = np.tile(np.array([1.0, 0.97], np.float32), (len(crops), 1))
        return d, np.full(d.shape, self.correlation, np.float32), 0.7 * d


def test_a_cell_the_deck_is_unsure_of_is_named_when_the_part_its_look_alikes_differ_in_leaves_one() -> None:
    from vision.carcassonne.classifier import DeckTileClassifier

    crops = np.stack([_photographed(_city(True), 1, 6), _photographed(_city(False), 2, 7)])
    reader = DeckTileClassifier(UnsureDeck(0.8), TileModel())  # type: ignore[arg-type]
    probs, _, doubtful, close = reader.read_with_candidates(crops)
    assert close == [frozenset({"M"}), frozenset({"N"})]
    for k, name in enumerate("MN"):
        cols = [j for j, lab in enumerate(reader.labels) if lab.startswith(f"{name}@")]
        assert not doubtful[k] and probs[k, cols].sum() > 0.99
    # ... only where the cell matches that tile as the deck's own tests ask
    reader = DeckTileClassifier(UnsureDeck(0.3), TileModel())  # type: ignore[arg-type]
    _, _, doubtful, close = reader.read_with_candidates(crops)
    assert doubtful.all() and close == [frozenset({"M"}), frozenset({"N"})]


def test_a_tiles_turns_are_not_told_where_its_photos_views_disagree() -> None:
    from vision.carcassonne.classifier import _agreeing_photos

    # A: a lone road stub; each photo gives its four quarter turns (np.rot90 turns anticlockwise: A's turn goes on
    # by 270 degrees clockwise a view)
    views = [_photographed(np.rot90(_stub(True), q).copy(), 0, 20 + 10 * p + q) for p in range(2) for q in range(4)]
    templates, owners = np.stack(views), np.zeros(8, np.int32)
    first = [0, 270, 180, 90]
    agreeing = np.array(first + first)
    assert (_agreeing_photos(agreeing, templates, owners, ["A"]) == agreeing).all()
    # the second photo read with its stub on the far side: which photo is right, the views cannot say
    misread = np.array(first + [(t + 180) % 360 for t in first])
    assert (_agreeing_photos(misread, templates, owners, ["A"]) == -1).all()
    # a photo whose views match none of the other's tells nothing of it
    rng = np.random.default_rng(3)
    noise = np.stack(views[:4] + [rng.integers(0, 255, (48, 48, 3), dtype=np.uint8) for _ in range(4)])
    assert (_agreeing_photos(misread, noise, owners, ["A"]) == misread).all()
