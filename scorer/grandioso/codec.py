"""Circus Grandioso's notation and JSON: moves, states and records (docs/records.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer.core import Event, MalformedMove, RecordError, UnknownComponent, parse_named
from scorer.fields import boolean, one_of, player_names, require, whole_number
from scorer.grandioso.model import (
    INFO,
    Draw,
    EndReason,
    Exchange,
    GrandiosoMove,
    GrandiosoState,
    LayDown,
    Pass,
    Phase,
    Place,
    _sorted,
)
from scorer.grandioso.pyramid import BOX, ROWS, Card, Pyramid

__all__ = [
    "UnknownCardName",
    "format_move",
    "format_move_text",
    "parse_move",
    "parse_move_text",
    "state_from_json",
    "state_to_json",
]


def _event_json(state: GrandiosoState, event: Event) -> dict[str, Any]:
    return {
        "what": event.what,
        "points": {state.players[s]: a for s, a in event.points_by_seat().items()},
        "text": event.text,
    }


def _names(cards: Sequence[Card | None]) -> list[str | None]:
    return [None if c is None else c.notation for c in cards]


def _box_without_start() -> list[Card]:
    deck = [card for card, count in BOX.items() for _ in range(count)]
    deck.remove(Card.ELEPHANT)
    return deck


def _check_counts(cards: Sequence[Card], where: str, *, with_start: bool = False) -> None:
    """The cards fit in the box; without ``with_start`` the starting Elephant is not among them."""
    counts: dict[Card, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    for card, count in counts.items():
        start = card is Card.ELEPHANT and not with_start
        limit = BOX[card] - (1 if start else 0)
        if count > limit:
            besides = " besides the starting Elephant" if start else ""
            raise RecordError(
                f"{where}: there are {count} {card.label} cards but the box has only {limit}{besides}",
                where,
            )


def _card(value: Any, where: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(f"{where} must be a card name", where)
    try:
        return Card.parse(value)
    except UnknownComponent as exc:
        raise UnknownComponent(f"{where}: {exc}", where) from None


def _card_list(value: Any, where: str, *, allow_unknown: bool) -> list[Card | None]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list of card names", where)
    out: list[Card | None] = []
    for i, item in enumerate(value):
        if item is None and allow_unknown:
            out.append(None)
        else:
            out.append(_card(item, f"{where}[{i}]"))
    return out


class UnknownCardName(MalformedMove, UnknownComponent):
    """A move that names a card Circus Grandioso does not have."""


def _parse_card(word: str) -> Card:
    try:
        return Card.parse(word)
    except UnknownComponent as exc:
        raise UnknownCardName(str(exc)) from None


def parse_move_text(text: str) -> GrandiosoMove:
    """Read a move of the Grandioso notation (see `Grandioso.parse_move`).

    :raises MalformedMove: when the text is not a move.
    """
    if not isinstance(text, str):
        raise MalformedMove("a move must be written as text")
    words = text.strip().lower().replace(",", " ").split()
    usage = (
        "write place CARD ROW,COLUMN, draw stack, draw single N, lay down, "
        "exchange CARD for stack, exchange CARD for single N, or pass"
    )
    if not words:
        raise MalformedMove(f"empty move: {usage}")
    verb = words[0]
    if verb == "pass" and len(words) == 1:
        return Pass()
    if words == ["lay", "down"]:
        return LayDown()
    if verb == "place" and len(words) == 4:
        card = _parse_card(words[1])
        try:
            return Place(card, int(words[2]), int(words[3]))
        except ValueError:
            raise MalformedMove(f"{text!r}: the place is ROW,COLUMN in whole numbers") from None
    if verb == "draw" and len(words) >= 2:
        return Draw(_parse_source(words[1:], text, usage))
    if verb == "exchange" and len(words) >= 4 and words[2] == "for":
        laid = None if words[1] == "?" else _parse_card(words[1])
        return Exchange(laid, _parse_source(words[3:], text, usage))
    raise MalformedMove(f"can't read {text!r}: {usage}")


def _parse_source(words: list[str], text: str, usage: str) -> int | None:
    if words == ["stack"]:
        return None
    if len(words) == 2 and words[0] == "single" and words[1].isdigit() and int(words[1]) >= 1:
        return int(words[1]) - 1
    raise MalformedMove(f"can't read {text!r}: take from 'stack' or 'single N' (N from 1)")


def format_move_text(move: GrandiosoMove) -> str:
    """Write a move in the Grandioso notation."""
    if isinstance(move, Place):
        return f"place {move.card.notation} {move.row},{move.col}"
    if isinstance(move, Draw):
        return f"draw {_source_text(move.single)}"
    if isinstance(move, LayDown):
        return "lay down"
    if isinstance(move, Exchange):
        card = "?" if move.card is None else move.card.notation
        return f"exchange {card} for {_source_text(move.single)}"
    return "pass"


def _source_text(single: int | None) -> str:
    return "stack" if single is None else f"single {single + 1}"


def parse_move(state: GrandiosoState, text: str) -> GrandiosoMove:
    """Read a move, with the mover's name first (``"Ann place tiger 4,1"``) or without it.

    :raises NotYourTurn: when the text names a player who is not to move.
    :raises MalformedMove: when the text is not a move.
    """
    to_move = None if state.phase is Phase.OVER else state.turn
    return parse_named(state.players, to_move, text, parse_move_text)


def format_move(state: GrandiosoState, move: GrandiosoMove) -> str:
    """Write a move with the mover's name first (the notation rule)."""
    return f"{state.players[state.turn]} {format_move_text(move)}"


# -- JSON --------------------------------------------------------------------


def state_to_json(state: GrandiosoState) -> dict[str, Any]:
    """The state as JSON: cards by name, unknown cards as null."""
    return {
        "players": list(state.players),
        "pyramid": [
            {"row": r, "left": state.pyramid.lefts[r], "cards": _names(cards)}
            for r, cards in enumerate(state.pyramid.rows)
            if cards
        ],
        "hands": [_names(h) for h in state.hands],
        "stack": _names(state.stack),
        "singles": _names(state.singles),
        "turn": state.turn,
        "phase": state.phase.value,
        "drawn": None if state.drawn is None else state.drawn.notation,
        "placed": state.placed,
        "show_master": state.show_master,
        "passes": state.passes,
        "end": None if state.end is None else state.end.value,
    }


def state_from_json(data: Mapping[str, Any]) -> GrandiosoState:
    """Rebuild a state from `state_to_json` output.

    :raises RecordError: when a field is missing, of the wrong type or impossible.
    """
    if not isinstance(data, Mapping):
        raise RecordError("a Circus Grandioso state must be a JSON object", "state")
    players = player_names(require(data, "players", list), "players", INFO)
    n = len(players)
    rows: list[tuple[Card, ...]] = [()] * ROWS
    lefts = [0] * ROWS
    for i, entry in enumerate(require(data, "pyramid", list)):
        where = f"pyramid[{i}]"
        if not isinstance(entry, Mapping):
            raise RecordError(f"{where} must be an object with row, left and cards", where)
        r = whole_number(entry.get("row"), f"{where}.row", lo=0, hi=ROWS - 1)
        lefts[r] = whole_number(entry.get("left"), f"{where}.left", lo=-100, hi=100)
        cards = _card_list(entry.get("cards"), f"{where}.cards", allow_unknown=False)
        rows[r] = tuple(c for c in cards if c is not None)
    pyramid = Pyramid(tuple(lefts), tuple(rows))
    problem = pyramid.shape_problem()
    if problem is not None:
        raise RecordError(f"the pyramid is impossible: {problem}", "pyramid")
    hands_data = require(data, "hands", list)
    if len(hands_data) != n:
        raise RecordError(f"hands must list {n} hands, one per player", "hands")
    hands = tuple(
        _sorted(_card_list(h, f"hands[{i}]", allow_unknown=True))
        for i, h in enumerate(hands_data)
    )
    stack = tuple(_card_list(require(data, "stack", list), "stack", allow_unknown=True))
    singles = tuple(_card_list(require(data, "singles", list), "singles", allow_unknown=True))
    turn = whole_number(data.get("turn"), "turn", lo=0, hi=n - 1)
    phase = one_of(Phase, data.get("phase"), "phase")
    drawn_text = data.get("drawn")
    drawn = None if drawn_text is None else _card(drawn_text, "drawn")
    placed = boolean(data.get("placed"), "placed")
    master = data.get("show_master")
    if master is not None:
        master = whole_number(master, "show_master", lo=0, hi=n - 1)
    passes = whole_number(data.get("passes"), "passes", lo=0, hi=n)
    end_text = data.get("end")
    end = None if end_text is None else one_of(EndReason, end_text, "end")
    if (phase is Phase.OVER) != (end is not None):
        raise RecordError("end must be given exactly when the phase is over", "end")
    if drawn is not None and phase is not Phase.DRAWN:
        raise RecordError("only a state in the drawn phase holds a drawn card", "drawn")
    _check_counts(
        [c for _, _, c in pyramid.cells()]
        + [c for h in hands for c in h if c is not None]
        + [c for c in stack + singles if c is not None]
        + ([drawn] if drawn is not None else []),
        "state",
        with_start=True,
    )
    return GrandiosoState(
        players=tuple(players),
        pyramid=pyramid,
        hands=hands,
        stack=stack,
        singles=singles,
        turn=turn,
        phase=phase,
        drawn=drawn,
        placed=placed,
        show_master=master,
        passes=passes,
        end=end,
    )


def report_text(state: GrandiosoState, data: Mapping[str, Any]) -> str:
    lines = [f"Circus Grandioso: {', '.join(state.players)}", ""]
    for row in data["moves"]:
        note = " ".join(e["text"] for e in row["events"])
        flag = "  (not verified)" if "unverified" in row else ""
        line = f"{row['index']:>4}  {row['player']:<10} {row['move']:<28}{note}{flag}"
        lines.append(line.rstrip())
    lines += ["", "Pyramid (row 0 = Elephants):", state.pyramid.draw(), ""]
    if data.get("error"):
        err = data["error"]
        lines.append(f"Illegal move {err['index']} ({err['move']}): {err['reason']}")
    if data["finished"]:
        lines.append(f"Finished ({data['end']}). Winner(s): {', '.join(data['winners'])}.")
    else:
        lines.append(f"Not finished; {data['to_move']} to move.")
    lines.append(f"Show Master: {data['show_master'] or 'nobody'}")
    return "\n".join(lines)
