"""A recognised TableView becomes the referee's Sighting, and says in words what it cannot place."""

from __future__ import annotations

from firmware.bigtop.sighting import sighting_from_view, where
from scorer.bigtop import Card, Pile, Suit
from vision.bigtop.labels import Kind
from vision.bigtop.layout import Pile as Place
from vision.bigtop.layout import Space
from vision.bigtop.tableview import (
    Area,
    ChartView,
    Reason,
    SeenComponent,
    SuitTableau,
    TableView,
    TokenOnChart,
    Unrecognised,
    Zone,
)

PLAYERS = ("Ann", "Ben", "Cat")


def card(text: str) -> Card:
    return Card.parse(text)


def view(charts: tuple[ChartView, ...] | None = None, unrecognised: tuple[Unrecognised, ...] = (),
         components: tuple[SeenComponent, ...] = (),
         tableau: tuple[SuitTableau, ...] | None = None) -> TableView:
    if tableau is None:
        tableau = tuple(SuitTableau(s, False, None, None) for s in Suit)
    if charts is None:
        charts = tuple(ChartView(seat, 0.0, (), ()) for seat in range(3))
    return TableView(tableau, charts, (), components, unrecognised, 4, 0.3)


def test_tableau_charts_and_tokens_become_the_engine_snapshot() -> None:
    clowns = next(s for s in Suit if s.label == "clowns")
    tableau = tuple(
        SuitTableau(s, True, card(f"{s.label}-L3"), None) if s is clowns else SuitTableau(s, False, None, None)
        for s in Suit
    )
    charts = (
        ChartView(0, 0.0, ((Space.D3, card("animals-D4")), (Space.D0, card("sideshow-L6"))),
                  (TokenOnChart(Suit(0), True, 10), TokenOnChart(Suit(1), False, None))),
        ChartView(1, 90.0, (), ()),
        ChartView(2, 180.0, ((Space.D2, card("performers-L1")),), ()),
    )
    s = sighting_from_view(view(charts, tableau=tableau), PLAYERS)
    assert s is not None and s.unrecognised == ()
    assert s.snapshot.tableau[int(clowns)] == Pile(poster=True, light=3, dark=0)
    assert s.snapshot.charts[0] == (card("animals-D4"), None, None, card("sideshow-L6"))
    assert s.snapshot.charts[2] == (None, card("performers-L1"), None, None)
    assert s.tokens is not None and s.tokens[0] == (10, None, None, None)


def test_a_chart_out_of_sight_gives_no_sighting() -> None:
    charts = (ChartView(0, 0.0, (), ()), ChartView(2, 0.0, (), ()))
    assert sighting_from_view(view(charts), PLAYERS) is None


def test_unrecognised_objects_where_components_belong_are_named_by_place() -> None:
    on_pile = Unrecognised(Kind.CARD, Reason.UNSURE, "clowns-L3", 0.6, 10.0, 20.0, 0.0,
                           Zone(Area.TABLEAU, suit=Suit(0), pile=Place.LIGHT))
    on_space = Unrecognised(Kind.CARD, Reason.NOT_A_COMPONENT, "none", 0.99, 10.0, 320.0, 0.0,
                            Zone(Area.CHART_SPACE, seat=1, space=Space.D3))
    elsewhere = Unrecognised(Kind.CARD, Reason.NOT_A_COMPONENT, "none", 0.99, -150.0, 20.0, 0.0, Zone(Area.TABLE))
    s = sighting_from_view(view(unrecognised=(on_pile, on_space, elsewhere)), PLAYERS)
    assert s is not None
    assert s.unrecognised == (
        f"An unrecognised card lies on the {Suit(0).title} light pile.",
        "Something that is not a Big Top component lies on Ben's $3 space.",
    )


def test_positions_do_not_enter_the_sighting_so_a_still_table_gives_equal_sightings() -> None:
    def at(x: float) -> TableView:
        u = Unrecognised(Kind.CARD, Reason.UNSURE, "clowns-L3", 0.6, x, 20.0, 0.0,
                         Zone(Area.TABLEAU, suit=Suit(0), pile=Place.LIGHT))
        return view(unrecognised=(u,))

    assert sighting_from_view(at(10.0), PLAYERS) == sighting_from_view(at(10.4), PLAYERS)


def test_a_card_on_the_wrong_pile_is_a_problem_not_a_pile_top() -> None:
    tableau = tuple(SuitTableau(s, True, card(f"{Suit(1).label}-L2") if int(s) == 0 else None, None) for s in Suit)
    s = sighting_from_view(view(tableau=tableau), PLAYERS)
    assert s is not None
    assert s.snapshot.tableau[0].light == 0
    assert len(s.unrecognised) == 1 and "cannot go" in s.unrecognised[0]


def test_where_names_places_for_people() -> None:
    assert where(Zone(Area.CHART_PICTURE, seat=0, suit=Suit(2)), PLAYERS) == f"Ann's {Suit(2).title} picture"
    assert where(Zone(Area.CHART, seat=5)) == "seat 6's chart"
    assert where(Zone(Area.TABLE)) == "the table"


def test_cards_in_front_of_a_chart_are_that_seats_open_hand() -> None:
    near_ben = SeenComponent("clowns-L4", Kind.CARD, 0.99, -150.0, 100.0, 0.0, Zone(Area.TABLE, seat=1))
    near_ben2 = SeenComponent("animals-P", Kind.CARD, 0.99, -160.0, 130.0, 0.0, Zone(Area.TABLE, seat=1))
    far_away = SeenComponent("sideshow-D2", Kind.CARD, 0.99, 900.0, 900.0, 0.0, Zone(Area.TABLE))
    token = SeenComponent("token-10", Kind.TOKEN, 0.99, -150.0, 60.0, 0.0, Zone(Area.TABLE, seat=1))
    base = view()
    loose = (near_ben, near_ben2, far_away, token)
    v = TableView(base.tableau, base.charts, loose, loose, (), 4, 0.3)
    s = sighting_from_view(v, PLAYERS)
    assert s is not None and s.open_hands == (frozenset(), frozenset({card("clowns-L4"), card("animals-P")}),
                                              frozenset())
    assert sighting_from_view(base, PLAYERS).open_hands is None  # type: ignore[union-attr]
    assert where(Zone(Area.TABLE, seat=1), PLAYERS) == "the table in front of Ben's chart"


def test_an_open_hand_beside_a_chart_is_seen_through_the_camera() -> None:
    import numpy as np

    from vision.bigtop.pipeline import Recognizer
    from vision.bigtop.scene import Placement, SceneSettings, render_scene

    calm = SceneSettings(tilt_deg=(8.0, 12.0), yaw_deg=(-5.0, 5.0), brightness=(0.9, 1.0), warmth=(0.0, 0.05),
                         gamma=(1.0, 1.0), blur_sigma=(0.3, 0.5), noise_sigma=(1.0, 2.0), jpeg_quality=(90, 95),
                         shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))
    # two cards on the table left of seat 0's chart, one loose on the mat (nobody's hand)
    placements = [Placement("clowns-L4", -85, 355, 0), Placement("animals-P", -150, 355, 8),
                  Placement("sideshow-D2", 250, 140, 0)]
    scene = render_scene(np.random.default_rng(3), seats=[0, 1, 2], settings=calm, placements=placements)
    s = sighting_from_view(Recognizer().recognize(scene.image).view, PLAYERS)
    assert s is not None and s.open_hands == (frozenset({card("clowns-L4"), card("animals-P")}), frozenset(),
                                              frozenset())
