"""From what the camera recognised (`vision.bigtop.tableview.TableView`) to what the referee needs (`Sighting`).

The referee works with public information in the rules engine's terms: the
tableau's piles, the cards on each chart's spaces, the tokens. This module
turns a recognised view into that, and reports in plain words everything it
cannot turn: an object that could not be identified where components belong,
or a card lying where it cannot be (a Clowns card on the Animals pile). The
messages name places, never coordinates, so the same table gives the same
sighting from frame to frame and the stabiliser can see it hold still.

A view in which a seat's chart was not seen (a hand over its markers) gives
no sighting at all: the frame is skipped, not guessed from.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.bigtop import Card, Pile, Shade, Suit
from scorer.bigtop.observe import TableSnapshot
from vision.bigtop.labels import Kind
from vision.bigtop.layout import Pile as Place
from vision.bigtop.tableview import Area, Reason, TableView, Unrecognised, Zone

__all__ = ["Sighting", "sighting_from_view", "where"]


@dataclass(frozen=True, slots=True)
class Sighting:
    """One stable camera view of a Big Top table, reduced to what the referee needs.

    ``unrecognised`` describes objects that lie where components belong and
    could not be identified. ``tokens[seat]`` gives the gate-receipt values
    turned face up on that seat's chart, by suit (None where still face down
    or not seen); ``laid_open[seat]`` the cards a player laid open on their
    chart at the end of a hand; ``open_hands[seat]`` the cards lying face up
    on the table in front of that seat's chart (a hand played open, in
    teaching mode; None when no such card is seen).
    """

    snapshot: TableSnapshot
    unrecognised: tuple[str, ...] = ()
    tokens: tuple[tuple[int | None, int | None, int | None, int | None], ...] | None = None
    laid_open: tuple[frozenset[Card], ...] | None = None
    open_hands: tuple[frozenset[Card], ...] | None = None

#: areas where an unidentified object stops the referee; elsewhere on the table it is ignored
_WATCHED = (Area.TABLEAU, Area.CHART_SPACE, Area.CHART_PICTURE, Area.CHART)


def where(zone: Zone, players: tuple[str, ...] | None = None) -> str:
    """A place on the table in words: "the Clowns light pile", "Ann's $3 space"."""

    def seat(n: int | None) -> str:
        if n is not None and players is not None and 0 <= n < len(players):
            return f"{players[n]}'s"
        return f"seat {n + 1}'s" if n is not None else "a"

    if zone.area is Area.TABLEAU and zone.suit is not None and zone.pile is not None:
        pile = "Poster place" if zone.pile is Place.POSTER else f"{zone.pile.value} pile"
        return f"the {zone.suit.title} {pile}"
    if zone.area is Area.CHART_SPACE and zone.space is not None:
        return f"{seat(zone.seat)} {zone.space.label} space"
    if zone.area is Area.CHART_PICTURE and zone.suit is not None:
        return f"{seat(zone.seat)} {zone.suit.title} picture"
    if zone.area is Area.CHART:
        return f"{seat(zone.seat)} chart"
    if zone.seat is not None:
        return f"the table in front of {seat(zone.seat)} chart"
    return "the table"


def _problem(item: Unrecognised, players: tuple[str, ...] | None) -> str:
    place = where(item.zone, players)
    if item.reason is Reason.NOT_A_COMPONENT:
        return f"Something that is not a Big Top component lies on {place}."
    if item.reason is Reason.UNREADABLE:
        return f"Something on {place} could not be read."
    what = "card" if item.shape is Kind.CARD else "token"
    return f"An unrecognised {what} lies on {place}."


def sighting_from_view(view: TableView, players: tuple[str, ...], *, charts_used: bool = True) -> Sighting | None:
    """The referee's `Sighting` of a recognised view, or None when a seat's chart is out of sight.

    ``players`` are the seated players in seat order; seat ``n`` uses the
    Organizing Chart with seat ``n``'s markers. Fan Tan plays without charts
    (``charts_used=False``): only the tableau counts, and every chart row is empty.
    """
    charts = {c.seat: c for c in view.charts}
    if charts_used and any(seat not in charts for seat in range(len(players))):
        return None
    watched = _WATCHED if charts_used else (Area.TABLEAU,)
    problems = [_problem(u, players) for u in view.unrecognised if u.zone.area in watched]

    piles: list[Pile] = []
    for st in sorted(view.tableau, key=lambda t: int(t.suit)):
        light = _number_on(st.top_light, st.suit, Shade.LIGHT, problems)
        dark = _number_on(st.top_dark, st.suit, Shade.DARK, problems)
        piles.append(Pile(poster=st.poster, light=light, dark=dark))
    for c in view.components:
        zone = c.zone
        if zone.area is Area.TABLEAU and zone.pile is Place.POSTER and zone.suit is not None:
            card = c.card
            if card is None or not (card.is_poster and card.suit is zone.suit):
                problems.append(f"{_name(c.label)} lies on {where(zone)}, where only its Poster goes.")
    if len(piles) != 4:
        return None
    tableau = (piles[0], piles[1], piles[2], piles[3])

    if not charts_used:
        empty = tuple((None, None, None, None) for _ in players)
        return Sighting(TableSnapshot(tableau, empty), tuple(dict.fromkeys(problems)))
    chart_rows = []
    tokens: list[tuple[int | None, int | None, int | None, int | None]] = []
    for seat in range(len(players)):
        view_chart = charts[seat]
        row: list[Card | None] = [None, None, None, None]
        for space, card in view_chart.called:
            row[3 - int(space)] = card  # the engine lists $3, $2, $1, $0
        chart_rows.append((row[0], row[1], row[2], row[3]))
        values: list[int | None] = [None, None, None, None]
        for token in view_chart.tokens:
            values[int(token.suit)] = token.value if token.face_up else None
        tokens.append((values[0], values[1], values[2], values[3]))
    for c in view.components:
        if c.zone.area is Area.CHART_SPACE and c.card is None:
            problems.append(f"A {_name(c.label)} lies on {where(c.zone, players)}, where a card belongs.")
    open_hands: list[set[Card]] = [set() for _ in players]
    for c in view.loose:
        card = c.card
        if c.zone.area is Area.TABLE and c.zone.seat is not None and c.zone.seat < len(players) and card is not None:
            open_hands[c.zone.seat].add(card)
    return Sighting(TableSnapshot(tableau, tuple(chart_rows)), tuple(dict.fromkeys(problems)), tuple(tokens),
                    open_hands=tuple(frozenset(h) for h in open_hands) if any(open_hands) else None)


def _number_on(card: Card | None, suit: Suit, shade: Shade, problems: list[str]) -> int:
    """The top number of a pile, or 0 with a problem when the card cannot lie there."""
    if card is None:
        return 0
    if card.suit is not suit or card.shade is not shade:
        problems.append(f"The {card.describe()} lies on the {suit.title} {shade.name.lower()} pile, "
                        "where it cannot go.")
        return 0
    return card.number


def _name(label: str) -> str:
    if label.startswith("token"):
        return "token"
    if label == "back":
        return "face-down card"
    return label

