"""Circus Flohcati with an enrolled deck of cards that carry no code (a published deck): found at their places, read by their art."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.flohcati.cards import Action, Colour, DeckCard, Flea, card_name, parse_card
from vision.bigtop.scene import paste, table_texture
from vision.camera_model import photograph
from vision.classify import Recognition, Verdict
from vision.enroll import TEMPLATE_BLURS, ComponentShape, Deck, build_deck, detail, enrol_photo
from vision.flohcati.faces import draw_back, draw_card
from vision.flohcati.layout import CARD, CARD_PARTS, CODE_CENTRE, CODE_SIZE, Area, row_slot, visible_part
from vision.flohcati.pipeline import _POSES, Recognizer, _agreed, _PartReader, _whole_or_strip, tints
from vision.flohcati.scene import TableLayout, render

SHAPE = ComponentShape(CARD.width, CARD.height, CARD.margin + CARD.frame)
LABELS = ("new-attraction", "take-attraction", "request-attraction", "red-3", "blue-5", "green-0")
S = 2.5


def codeless(label: str, s: float) -> tuple[np.ndarray, np.ndarray]:
    """Ringside's face of a card with its code painted over in the paper's white (as a published card has none),
    printed on paper a little less white than the camera's white."""
    if label == "back":
        img = draw_back(s)
    else:
        img = draw_card(parse_card(label), s).copy()
        x0, y0 = (int(round((c - CODE_SIZE / 2 - 1) * s)) for c in CODE_CENTRE)
        side = int(round((CODE_SIZE + 2) * s))
        img[y0:y0 + side, x0:x0 + side] = 255
    return (img * 0.93).astype(np.uint8), np.full(img.shape[:2], 255, np.uint8)


def card_photo(label: str, seed: int) -> np.ndarray:
    """A small phone photo of one code-less card alone on a table."""
    rng = np.random.default_rng(seed)
    s, half = 3.0, 90.0
    canvas = table_texture(rng, (int(2 * half * s), int(2 * half * s)))
    img, alpha = codeless(label, s)
    paste(canvas, img, alpha, half, half, float(rng.uniform(0, 360)), s, (0.0, 0.0), shadow=0.3)
    return photograph(canvas, s, (0.0, 0.0), (half - 65, half - 65, half + 65, half + 65), "easy", seed, (480, 360),
                      with_hand=False).image


@functools.cache
def small_deck() -> Deck:
    rng = np.random.default_rng(0)
    views = []
    for i, label in enumerate(LABELS):
        for k in range(2):
            view = enrol_photo(card_photo(label, 40 + 10 * i + k), label, Path(f"{label}/{k}.jpg"), SHAPE, (40, 56),
                               rng, count=2)
            assert view is not None
            views.append(view)
    return build_deck("flohcati", "test", views, (40, 56), LABELS)


def table(layout: TableLayout) -> np.ndarray:
    image, _ = render(layout, S, seed=3, faces=codeless)
    return image


class Reader:
    """A deck's reader that is never sure, and keeps what it was shown (no templates: whole cards only)."""

    crop_size = (40, 56)
    labels = LABELS

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def classify(self, crops: np.ndarray, threshold: float) -> list[Recognition]:
        self.seen.extend(crops)
        return [Recognition(Verdict.UNSURE, "x", 0.1) for _ in crops]


def test_the_part_of_a_card_left_in_view_by_the_cards_laid_over_it() -> None:
    whole, strip, band, corner = CARD_PARTS
    assert visible_part([]) == whole
    assert visible_part([(32.0, 0.0), (64.0, 0.0)]) == strip  # the row, the action lane
    assert visible_part([(0.0, 31.0)]) == band  # a seat zone's card with one below it
    assert visible_part([(32.0, 0.0), (-32.0, 31.0), (0.0, 31.0)]) == corner
    assert visible_part([(-64.0, 0.0)]) == whole  # a card laid before it, under it, hides nothing


def test_tints_tell_a_dark_colour_from_its_bright_twin_under_any_white_balance() -> None:
    orange, brown = np.full((8, 8, 3), (197, 220, 247), np.uint8), np.full((8, 8, 3), (203, 209, 218), np.uint8)
    for img, ink in ((orange, (10, 115, 235)), (brown, (35, 65, 105))):
        img[2:6, 2:6] = ink
    cast = np.array([0.75, 0.9, 1.0])  # a warm cast, darker: nothing clips
    t = tints(np.stack([orange, brown, np.clip(orange * cast, 0, 255).astype(np.uint8)]))
    assert np.allclose(t.sum(axis=1), 1.0)
    assert np.abs(t[0] - t[2]).sum() < 0.2 < np.abs(t[0] - t[1]).sum()


def test_a_table_of_cards_without_codes_is_read_through_the_deck() -> None:
    layout = TableLayout(row=(Flea.parse("red-3"), Flea.parse("blue-5"), Flea.parse("green-0")),
                         lane=(Action.NEW, Action.TAKE, Action.REQUEST, Action.TAKE), zones=((), ()))
    view = Recognizer(classifier=small_deck()).recognize(table(layout)).view
    assert [card_name(c.card) for c in view.in_area(Area.ROW)] == ["red-3", "blue-5", "green-0"]
    assert [c.card for c in view.in_area(Area.ACTIONS)] == list(layout.lane)
    assert not view.unreadable
    assert view.sight(2) == layout.sight(2)


def test_the_deck_is_not_asked_about_the_bare_mat_and_an_unsure_deck_asks() -> None:
    reader = Reader()
    view = Recognizer(classifier=reader).recognize(table(TableLayout(zones=((), ())))).view
    assert not reader.seen and not view.cards and not view.unreadable
    layout = TableLayout(lane=(Action.NEW,), zones=((), ()))
    view = Recognizer(classifier=reader).recognize(table(layout)).view
    assert len(reader.seen) == 1 and not view.cards
    assert len(view.unreadable) == 1 and "action lane" in view.unreadable[0][2]


def _glare(image: np.ndarray, x: float, y: float, r: float) -> np.ndarray:
    """The image with a saturated spot of radius ``r`` mm at table point (x, y)."""
    out = image.copy()
    cv2.circle(out, (int((x + 10) * S), int((y + 10) * S)), int(r * S), (255, 255, 255), -1)
    return out


@pytest.mark.parametrize("card", [None, "red-3"])
def test_glare_over_a_place_is_never_read_as_a_card_nor_a_card_under_it_as_the_bare_mat(card: str | None) -> None:
    row: tuple[DeckCard, ...] = () if card is None else (parse_card(card),)
    left, top = row_slot(0)
    image = _glare(table(TableLayout(row=row, zones=((), ()))), left + 40, top + 45, 40)  # type: ignore[arg-type]
    view = Recognizer(classifier=small_deck()).recognize(image).view
    assert all(c.area is not Area.ROW or card_name(c.card) == card for c in view.cards)
    asked = [u for u in view.unreadable if abs(u[1] - (top + CODE_CENTRE[1])) < 20]
    # the glare hides whether a card lies there: asked about, never silently taken for the bare mat
    assert view.in_area(Area.ROW) or asked


def test_a_card_without_a_code_on_the_request_strip_is_asked_about_not_missed() -> None:
    layout = TableLayout(request=(Colour.BLUE, False), zones=((), ()))
    view = Recognizer(classifier=Reader()).recognize(table(layout)).view
    assert not view.cards
    assert [text for _, _, text in view.unreadable] == ["A card on the request strip could not be read."]


@pytest.mark.parametrize("request_", [(Colour.BLUE, False), (Colour.RED, False), (Colour.GREEN, True)])
def test_a_request_card_without_a_code_is_read_on_its_colour_upright_or_sideways(request_: tuple[Colour, bool]) -> None:
    layout = TableLayout(request=request_, zones=((), ()))
    view = Recognizer(classifier=small_deck()).recognize(table(layout)).view
    assert [c.card for c in view.in_area(Area.REQUEST)] == [Action.REQUEST]
    assert not view.unreadable
    assert view.sight(2).request == request_


def test_the_deck_s_own_tests_alone_never_name_a_whole_card_the_template_read_ranks_below_another() -> None:
    # (sure name, best label) of the template read; the deck's own tests' name
    assert _agreed([(None, "red-3")], ["red-2"]) == [None]  # a flea taken for its neighbour in value
    assert _agreed([(None, "red-3")], ["red-3"]) == ["red-3"]
    assert _agreed([("red-3", "red-3")], [None]) == ["red-3"]
    assert _agreed([("red-3", "red-3")], ["blue-5"]) == [None]
    assert _agreed([(None, None)], ["blue-5"]) == ["blue-5"]  # a deck without templates: its own tests


def test_a_part_far_ahead_of_every_other_card_may_show_shifted_tints() -> None:
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    among = np.array(["attraction" in x for x in reader.labels])
    corr = np.where(among, 0.3, -1.0)
    corr[reader.labels.index("new-attraction")] = 0.8
    tint = np.where(among, 0.8, 1.0)
    tint[reader.labels.index("new-attraction")] = 0.5  # a dark card's colours shifted by exposure
    printed = float(reader.detail.max())
    assert reader.decide(corr, tint, printed, among) == ("new-attraction", "new-attraction")
    corr[reader.labels.index("take-attraction")] = 0.65  # a rival near: the tints must then lie near too
    assert reader.decide(corr, tint, printed, among) == (None, "new-attraction")
    tint[reader.labels.index("new-attraction")] = 0.3
    assert reader.decide(corr, tint, printed, among) == ("new-attraction", "new-attraction")



def _flea_scores(reader: _PartReader, first: str, second: str, lead: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Correlations and tints of a part whose best flea is ``first``, ``second`` ``lead`` behind it; the rivals' mask."""
    among = np.array(["attraction" not in x for x in reader.labels])
    corr = np.where(among, 0.3, -1.0)
    corr[reader.labels.index(first)] = 0.9
    corr[reader.labels.index(second)] = 0.9 - lead
    return corr, np.where(among, 0.1, 1.0), among


def test_a_part_scarcely_ahead_of_a_rival_is_named_only_where_they_differ_and_it_shows_the_first() -> None:
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.02)
    printed = float(reader.detail.max())
    red, blue = reader.labels.index("red-3"), reader.labels.index("blue-5")
    asked: list[tuple[int, int]] = []

    def sure_of_first(a: int, b: int) -> float:
        asked.append((a, b))
        return 0.8 if a == red else -0.8  # as `twin_score`: the one way the negative of the other

    assert reader.decide(corr, tint, printed, among) == (None, "red-3")
    assert reader.decide(corr, tint, printed, among, twins=sure_of_first) == ("red-3", "red-3")
    assert asked == [(red, blue)]  # only the rival nearer than the lead
    assert reader.decide(corr, tint, printed, among, twins=lambda a, b: 0.45 if a == red else -0.45) == (None, "red-3")
    corr[red], corr[blue] = 0.78, 0.76  # a hand over part of it: the look-alikes' difference is not trusted
    assert reader.decide(corr, tint, printed, among, twins=sure_of_first) == (None, "red-3")


def test_of_two_look_alikes_the_one_correlating_second_is_never_named_though_the_part_shows_it() -> None:
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.03)
    printed = float(reader.detail.max())
    blue = reader.labels.index("blue-5")

    def shows_second(a: int, b: int) -> float:
        return 0.8 if a == blue else -0.8

    assert reader.decide(corr, tint, printed, among, twins=shows_second) == (None, "red-3")


def test_look_alike_parts_are_compared_at_the_part_s_own_blur(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.twins

    reader = _PartReader(small_deck(), CARD_PARTS[1])
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.02)
    asked: list[tuple[float, ...]] = []

    def twin_score(*args: object, blurs: tuple[float, ...] = (0.0,), **kw: object) -> float:
        asked.append(tuple(blurs))
        return 0.0

    monkeypatch.setattr(vision.twins, "twin_score", twin_score)
    monkeypatch.setattr(reader, "_posed_scores", lambda crops, among_: (corr[None], tint[None], np.zeros((1, len(corr)), np.intp)))
    crops = np.stack([np.asarray(small_deck().templates)[:1]] * len(_POSES))
    assert reader.judge(crops, among) == [(None, "red-3")]
    assert asked and all(b == tuple(TEMPLATE_BLURS) for b in asked)


def test_a_blurred_part_s_print_is_weighed_against_its_templates_blurred_alike_never_against_too_little() -> None:
    deck = small_deck()
    reader = _PartReader(deck, CARD_PARTS[1])
    k = reader.labels.index("red-3")
    assert deck.templates is not None and deck.template_owners is not None
    sharp = np.ascontiguousarray(deck.templates[deck.template_owners == k][:1])
    blurred = np.stack([cv2.GaussianBlur(sharp[0], (0, 0), 1.0)])
    expected_sharp, expected_blurred = reader.expected_detail(sharp)[0, k], reader.expected_detail(blurred)[0, k]
    assert expected_blurred < 0.7 * expected_sharp
    printed = float(detail(np.ascontiguousarray(blurred[:, reader.rows, reader.cols]))[0])
    assert 0.25 * reader.detail[k] < printed < 0.5 * reader.detail[k]  # blurred, under half its sharp print
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.2)
    assert reader.decide(corr, tint, printed, among) == (None, "red-3")
    assert reader.decide(corr, tint, printed, among, reader.expected_detail(blurred)[0]) == ("red-3", "red-3")
    # a hand is smoother than any card: a quarter of the sharp print at least, however blurred the part looks
    expected = np.zeros(len(reader.labels))
    assert reader.decide(corr, tint, 0.2 * float(reader.detail[k]), among, expected) == (None, "red-3")


def test_a_whole_card_s_name_from_its_strip_only_where_its_whole_templates_cannot_tell_and_never_against_its_colour() -> None:
    assert _whole_or_strip("red-3", None, False) == "red-3"
    assert _whole_or_strip("red-3", "red-3", False) == "red-3"
    assert _whole_or_strip("red-3", "blue-3", True) is None  # the two reads name different colours
    assert _whole_or_strip(None, "red-2", True) == "red-2"
    assert _whole_or_strip(None, "red-2", False) is None
    reader = _PartReader(small_deck(), CARD_PARTS[0])
    corr, tint, _ = _flea_scores(reader, "red-3", "blue-5", 0.015)
    assert reader.ties(corr, tint, "blue-5") and not reader.ties(corr, tint, "green-0")
    corr -= 0.25  # the whole card's templates find it far off (a hand over it): its strip may be hidden too
    assert not reader.ties(corr, tint, "blue-5")


def test_a_whole_flea_card_s_value_is_its_strip_s_where_the_whole_card_s_reads_name_another_value_of_its_colour() -> None:
    # the whole card's templates sure of another value of the strip's colour: the strip shows the value
    assert _whole_or_strip("purple-6", "purple-5", False) == "purple-5"
    assert _whole_or_strip("new-attraction", "take-attraction", True) is None  # action cards: no value to read
    # the deck's own tests naming another value of the colour of a sure name the strip is sure of too
    assert _agreed([("teal-1", "teal-1")], ["teal-3"], ["teal-1"]) == ["teal-1"]
    assert _agreed([("teal-1", "teal-1")], ["teal-3"]) == [None]  # no strip read
    assert _agreed([("teal-1", "teal-1")], ["teal-3"], [None]) == [None]  # the strip unsure
    assert _agreed([("teal-1", "teal-1")], ["blue-1"], ["teal-1"]) == [None]  # another colour
    assert _agreed([("new-attraction", "new-attraction")], ["take-attraction"], ["new-attraction"]) == [None]


def test_a_card_correlating_better_whose_tints_lie_just_past_the_near_ones_is_still_a_rival() -> None:
    # as a blurred teal 7 in the row read as teal 6 (here blue-5 and red-3): its tints a little farther than the near
    # band from its own templates', the other nearest in tint, a little ahead of the next and favoured over it by the
    # look-alike test
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    corr, tint, among = _flea_scores(reader, "red-3", "green-0", 0.037)
    six, five, seven = (reader.labels.index(x) for x in ("red-3", "green-0", "blue-5"))
    corr[six], corr[five], corr[seven] = 0.817, 0.78, 0.90
    tint[:] = np.where(among, 0.3, 1.0)
    tint[six], tint[five], tint[seven] = 0.126, 0.19, 0.211
    printed = float(reader.detail.max())
    asked: list[tuple[int, int]] = []

    def shows(a: int, b: int) -> float:
        asked.append((a, b))
        return {(six, five): 0.54, (six, seven): -0.62}[(a, b)]

    assert reader.decide(corr, tint, printed, among, twins=shows) == (None, "red-3")
    assert (six, seven) in asked
    tint[seven] = 0.5  # past the tint test's own bound: not this card, however it correlates
    assert reader.decide(corr, tint, printed, among, twins=shows) == ("red-3", "red-3")


def test_a_faint_part_is_named_only_where_it_correlates_as_a_card_does() -> None:
    # as a card's strip under the hand's fingers, read as orange 0 (here red-3): little print, as little as the
    # blurred templates', a weak correlation well ahead of the rest
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    reader.detail = np.full(len(reader.labels), 0.075)  # the sharp print of a strip with few marks
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.2)
    red, blue = reader.labels.index("red-3"), reader.labels.index("blue-5")
    corr[red], corr[blue] = 0.501, 0.3
    expected = np.full(len(reader.labels), 0.0205)
    assert reader.decide(corr, tint, 0.024, among, expected) == (None, "red-3")
    assert reader.decide(corr, tint, 0.09, among, expected) == ("red-3", "red-3")  # as much print as an action card's
    corr[red] = 0.8  # correlating as the faint strips read right do
    assert reader.decide(corr, tint, 0.024, among, expected) == ("red-3", "red-3")


def test_an_action_card_far_ahead_of_the_others_is_named_whatever_its_tints_say() -> None:
    # as a new attraction card in the action lane under the hard camera: its colours shifted farther from its own
    # templates' than a take attraction card's, which it correlates far better than
    reader = _PartReader(small_deck(), CARD_PARTS[1])
    among = np.array(["attraction" in x for x in reader.labels])
    new, take, request = (reader.labels.index(x) for x in ("new-attraction", "take-attraction", "request-attraction"))
    corr = np.where(among, 0.3, -1.0)
    tint = np.where(among, 0.8, 1.0)
    corr[new], corr[take], corr[request] = 0.832, 0.4, 0.534
    tint[new], tint[take], tint[request] = 0.7, 0.6, 0.81
    printed = float(reader.detail.max())
    assert reader.decide(corr, tint, printed, among) == ("new-attraction", "new-attraction")
    corr[request] = 0.62  # 0.21 behind: still far
    assert reader.decide(corr, tint, printed, among) == ("new-attraction", "new-attraction")
    corr[request] = 0.7  # a rival near: the tints decide, and they name no card
    assert reader.decide(corr, tint, printed, among)[0] is None
    corr[request], corr[new] = 0.3, 0.55  # far ahead but weak
    assert reader.decide(corr, tint, printed, among)[0] is None


def _leaning_reader(monkeypatch: pytest.MonkeyPatch, shows: dict[tuple[str, str], float]
                    ) -> tuple[_PartReader, np.ndarray, np.ndarray]:
    """A strip reader whose part correlates 0.9 with red-3 and 0.88 with blue-5, the look-alike test answering
    ``shows``; its crops and the flea mask."""
    import vision.twins

    reader = _PartReader(small_deck(), CARD_PARTS[1])
    corr, tint, among = _flea_scores(reader, "red-3", "blue-5", 0.02)
    labels = reader.labels
    monkeypatch.setattr(vision.twins, "twin_score",
                        lambda seen, templates, owners, a, b, **kw: shows.get((labels[a], labels[b]), 0.0))
    monkeypatch.setattr(reader, "_posed_scores", lambda crops, among_: (corr[None], tint[None], np.zeros((1, len(corr)), np.intp)))
    k = labels.index("red-3")
    assert reader.templates is not None
    crops = np.stack([np.asarray(small_deck().templates)[reader.owners == k][:1]] * len(_POSES))
    return reader, crops, among


def test_a_look_alike_another_read_ranks_first_is_named_where_the_part_shows_it_rather_than_the_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # as a blue 6 whose whole card's templates rank blue 5 first by 0.003, its strip ranking blue 6 first
    reader, crops, among = _leaning_reader(monkeypatch, {("red-3", "blue-5"): -0.45, ("blue-5", "red-3"): 0.45})
    assert reader.judge(crops, among) == [(None, "red-3")]
    assert reader.judge_scored(crops, among, ["blue-5"])[0] == [("blue-5", "red-3")]
    assert reader.judge_scored(crops, among, ["green-0"])[0] == [(None, "red-3")]  # not a look-alike it cannot tell
    assert reader.judge_scored(crops, among, [None])[0] == [(None, "red-3")]


def test_a_look_alike_is_never_named_where_the_part_scarcely_shows_it_rather_than_the_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reader, crops, among = _leaning_reader(monkeypatch, {("red-3", "blue-5"): -0.3, ("blue-5", "red-3"): 0.3})
    assert reader.judge_scored(crops, among, ["blue-5"])[0] == [(None, "red-3")]


def test_paper_the_camera_clips_in_its_red_channel_alone_is_looked_at_and_glare_is_not() -> None:
    # as a bright frame whose cream paper reads about 253 in red: a third of its pixels clip there, none elsewhere
    from vision.flohcati.pipeline import _PLACE, _BareMat, place_look

    image = table(TableLayout(row=(parse_card("pink-3"), parse_card("purple-5")), zones=((), ()))).astype(np.float32)
    image *= np.array([0.9, 0.95, 0.95], np.float32)
    image[..., 2] += 14.0 + np.random.default_rng(1).normal(0.0, 3.0, image.shape[:2])
    image = np.clip(image, 0, 255).astype(np.uint8)
    to_table = np.array([[1 / S, 0, -10.0], [0, 1 / S, -10.0], [0, 0, 1]], np.float64)  # `table`'s pixels -> mm
    mat = _BareMat.of(image, to_table)
    assert not mat.clips

    def state(image: np.ndarray, k: int) -> str:
        left, top = row_slot(k)
        return place_look(image, to_table, (left + _PLACE[0], top + _PLACE[1], left + _PLACE[2], top + _PLACE[3]),
                          mat).state

    assert [state(image, k) for k in range(4)] == ["card", "card", "bare", "bare"]
    left, top = row_slot(2)
    assert state(_glare(image, left + 43, top + 43, 30), 2) == "unsure"  # glare clips every channel: not looked at


def test_a_card_the_deck_named_from_a_code_sized_square_does_not_keep_its_lane_from_being_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # as the art of a code-less action card taken for a code: the deck names the whole card cut there (here wrongly)
    import vision.flohcati.pipeline as pipeline
    from vision.flohcati.layout import lanes

    layout = TableLayout(row=(Flea.parse("red-3"),), lane=(Action.NEW, Action.TAKE, Action.REQUEST), zones=((), ()))
    _, _, _, slots = next(lane for lane in lanes() if lane[0] is Area.ACTIONS)
    x, y = slots[1][0] + CODE_CENTRE[0], slots[1][1] + CODE_CENTRE[1]
    read_view = pipeline.read_view

    def with_a_square(*args: object, **kw: object) -> pipeline.FlohcatiView:
        view = read_view(*args, **kw)  # type: ignore[arg-type]
        return pipeline.FlohcatiView(view.cards, view.unreadable + ((x, y, "a code-sized square"),))

    def named(self: Recognizer, frame: np.ndarray, view: pipeline.FlohcatiView, to_table: np.ndarray
              ) -> pipeline.FlohcatiView:
        seen = pipeline.SeenCard(Action.NEW, x, y, 0.0, Area.ACTIONS, None)
        return pipeline.FlohcatiView(view.cards + (seen,), ())

    monkeypatch.setattr(pipeline, "read_view", with_a_square)
    monkeypatch.setattr(Recognizer, "_read_faces", named)
    view = Recognizer(classifier=small_deck()).recognize(table(layout)).view
    assert [c.card for c in view.in_area(Area.ACTIONS)] == list(layout.lane)
    assert [card_name(c.card) for c in view.in_area(Area.ROW)] == ["red-3"]


def test_a_part_s_print_is_measured_clear_of_the_glare_over_it_never_over_a_hand() -> None:
    # as a dark action card's strip half under a glare spot: the spot shows no print and lifts the part's brightness
    from vision.flohcati.pipeline import seen_detail

    part = np.full((56, 20, 3), 40, np.uint8)
    for y in range(4, 52, 8):
        cv2.rectangle(part, (3, y), (16, y + 3), (80, 90, 240), -1)
    glared = cv2.GaussianBlur(cv2.circle(part.copy(), (10, 44), 14, (255, 255, 255), -1), (0, 0), 0.8)
    cv2.circle(glared, (10, 44), 12, (255, 255, 255), -1)
    clean = float(detail(part[None])[0])
    assert float(detail(glared[None])[0]) < 0.25 * clean  # refused as a hand would be
    assert seen_detail(glared[None])[0] > 0.5 * clean
    assert seen_detail(part[None])[0] == clean
    hand = cv2.GaussianBlur(np.full_like(part, (90, 110, 150)), (0, 0), 2.0)  # smooth, nothing clipped
    assert seen_detail(hand[None])[0] == detail(hand[None])[0]
    covered = cv2.circle(part.copy(), (10, 28), 40, (255, 255, 255), -1)  # glare over all of it: nothing clear to see
    assert seen_detail(covered[None])[0] == detail(covered[None])[0]
