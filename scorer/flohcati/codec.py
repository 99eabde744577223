"""Circus Flohcati's notation and JSON: moves, states, records and positions (docs/records.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer.core import GameInfo, MalformedMove, RecordError, UnknownComponent, parse_named
from scorer.fields import boolean, json_list, one_of, player_names, require, whole_number
from scorer.flohcati.cards import ACTION_COPIES, Action, Colour, DeckCard, Flea, card_name, parse_card
from scorer.flohcati.model import (
    INFO,
    EndReason,
    FlohcatiMove,
    FlohcatiState,
    Phase,
    Request,
    Show,
    Steal,
    Stop,
    Take,
    Trio,
    TrioCards,
    Turn,
)
from scorer.flohcati.rules import _sorted_hand

__all__ = ["UnknownCardName", "format_move", "parse_move", "plain_move", "state_from_json", "state_to_json"]


# -- notation ---------------------------------------------------------------



_USAGE = (
    "write turn, turn CARD, take CARD, steal PLAYER CARD, steal nobody, "
    "request COLOUR clockwise|counterclockwise from PLAYER CARD, request COLOUR DIRECTION nobody, "
    "trio CARD CARD CARD, show or stop"
)


class UnknownCardName(MalformedMove, UnknownComponent):
    """A move that names a card or colour Circus Flohcati does not have."""


def _word_card(word: str) -> DeckCard:
    try:
        return parse_card(word)
    except UnknownComponent as exc:
        raise UnknownCardName(str(exc)) from None


def _word_flea(word: str) -> Flea | None:
    if word == "?":
        return None
    card = _word_card(word)
    if not isinstance(card, Flea):
        raise MalformedMove(f"{word!r} is an action card; a flea card is wanted here")
    return card


def _seat(state: FlohcatiState, name: str, text: str) -> int:
    for seat, player in enumerate(state.players):
        if player.lower() == name.lower():
            return seat
    raise MalformedMove(f"can't read {text!r}: {name!r} is not a player")


def parse_plain(state: FlohcatiState, text: str) -> FlohcatiMove:
    """Read a move without the mover's name (the form records had before the notation rule)."""
    if not isinstance(text, str):
        raise MalformedMove("a move must be written as text")
    words = text.split()
    if not words:
        raise MalformedMove(f"empty move: {_USAGE}")
    verb = words[0].lower()
    rest = words[1:]
    if verb in ("show", "stop") and not rest:
        return Show() if verb == "show" else Stop()
    if verb == "turn" and len(rest) <= 1:
        return Turn(_word_card(rest[0]) if rest else None)
    if verb == "take" and len(rest) == 1:
        card = _word_flea(rest[0].lower())
        if card is not None:
            return Take(card)
    if verb == "steal" and rest:
        if len(rest) == 1 and rest[0].lower() == "nobody":
            return Steal(None, None)
        if len(rest) >= 2:
            return Steal(_seat(state, " ".join(rest[:-1]), text), _word_flea(rest[-1].lower()))
    if verb == "request" and len(rest) >= 3:
        try:
            colour = Colour.parse(rest[0])
        except UnknownComponent as exc:
            raise UnknownCardName(str(exc)) from None
        way = rest[1].lower()
        if way in ("clockwise", "cw", "counterclockwise", "ccw"):
            clockwise = way in ("clockwise", "cw")
            if len(rest) == 3 and rest[2].lower() == "nobody":
                return Request(colour, clockwise, None, None)
            if len(rest) >= 5 and rest[2].lower() == "from":
                giver = _seat(state, " ".join(rest[3:-1]), text)
                return Request(colour, clockwise, giver, _word_flea(rest[-1].lower()))
    if verb == "trio" and len(rest) == 3:
        named = [_word_flea(w.lower()) for w in rest]
        cards = [c for c in named if c is not None]
        if len(cards) == 3:
            a, b, c = sorted(cards, key=lambda f: f.index)
            return Trio((a, b, c))
    raise MalformedMove(f"can't read {text!r}: {_USAGE}")


def _flea_text(card: Flea | None) -> str:
    return "?" if card is None else card.name


def plain_move(state: FlohcatiState, move: FlohcatiMove) -> str:
    """A move in the notation without the mover's name (as replay reports show it)."""
    if isinstance(move, Turn):
        return "turn" if move.card is None else f"turn {card_name(move.card)}"
    if isinstance(move, Take):
        return f"take {move.card.name}"
    if isinstance(move, Steal):
        if move.victim is None:
            return "steal nobody"
        return f"steal {state.players[move.victim]} {_flea_text(move.card)}"
    if isinstance(move, Request):
        way = "clockwise" if move.clockwise else "counterclockwise"
        head = f"request {move.colour.value} {way}"
        if move.giver is None:
            return f"{head} nobody"
        return f"{head} from {state.players[move.giver]} {_flea_text(move.card)}"
    if isinstance(move, Trio):
        return "trio " + " ".join(c.name for c in move.cards)
    return "show" if isinstance(move, Show) else "stop"


def parse_move(state: FlohcatiState, text: str) -> FlohcatiMove:
    """Read a move, with the mover's name first (``"Ann take red-5"``) or without it.

    :raises NotYourTurn: when the text names a player who is not to move.
    :raises MalformedMove: when the text is not a Flohcati move.
    """
    to_move = None if state.phase is Phase.OVER else state.turn
    return parse_named(state.players, to_move, text, lambda plain: parse_plain(state, plain))


def format_move(state: FlohcatiState, move: FlohcatiMove) -> str:
    """Write a move in the notation `parse_move` reads: the mover's name first."""
    return f"{state.players[state.turn]} {plain_move(state, move)}"


# -- JSON --------------------------------------------------------------------


def state_to_json(state: FlohcatiState) -> dict[str, Any]:
    """The state as JSON: cards by name, unknown cards as null."""
    return {
        "players": list(state.players),
        "stack": [None if c is None else card_name(c) for c in state.stack],
        "unseen": [f.name for f in sorted(state.unseen, key=lambda f: f.index)],
        "hands": [[None if c is None else c.name for c in h] for h in state.hands],
        "trios": [[[c.name for c in t] for t in ts] for ts in state.trios],
        "display": [c.name for c in state.display],
        "repeat": None if state.repeat is None else state.repeat.name,
        "discard": [card_name(c) for c in state.discard],
        "turn": state.turn,
        "phase": state.phase.value,
        "attraction": state.attraction,
        "gained": state.gained,
        "end": None if state.end is None else state.end.value,
        "ender": state.ender,
        "gala_bonus": state.gala_bonus,
    }


def state_from_json(data: Mapping[str, Any]) -> FlohcatiState:
    """Rebuild a state from `state_to_json` output.

    :raises RecordError: when a field is missing, of the wrong type or impossible.
    """
    if not isinstance(data, Mapping):
        raise RecordError("a Circus Flohcati state must be a JSON object", "state")
    players = _players(data.get("players"), "players", INFO)
    n = len(players)
    stack = tuple(
        None if c is None else _card(c, f"stack[{i}]")
        for i, c in enumerate(require(data, "stack", list))
    )
    if not stack and data.get("phase") != Phase.OVER.value:
        raise RecordError("stack is empty but the game is not over", "stack")
    unseen = frozenset(_flea(c, f"unseen[{i}]") for i, c in enumerate(require(data, "unseen", list)))
    hands_data = require(data, "hands", list)
    trios_data = require(data, "trios", list)
    if len(hands_data) != n or len(trios_data) != n:
        raise RecordError(f"hands and trios must list {n} entries, one per player", "hands")
    hands = tuple(
        _sorted_hand(
            [
                None if c is None else _flea(c, f"hands[{s}][{i}]")
                for i, c in enumerate(json_list(h, f"hands[{s}]"))
            ]
        )
        for s, h in enumerate(hands_data)
    )
    trios = tuple(
        tuple(_trio(t, f"trios[{s}][{k}]") for k, t in enumerate(json_list(ts, f"trios[{s}]")))
        for s, ts in enumerate(trios_data)
    )
    display = tuple(_flea(c, f"display[{i}]") for i, c in enumerate(require(data, "display", list)))
    repeat_data = data.get("repeat")
    repeat = None if repeat_data is None else _flea(repeat_data, "repeat")
    discard = tuple(_card(c, f"discard[{i}]") for i, c in enumerate(require(data, "discard", list)))
    turn = whole_number(data.get("turn"), "turn", lo=0, hi=n - 1)
    phase = one_of(Phase, data.get("phase"), "phase")
    attraction = boolean(data.get("attraction"), "attraction")
    gained = boolean(data.get("gained"), "gained")
    end_data = data.get("end")
    end = None if end_data is None else one_of(EndReason, end_data, "end")
    if (phase is Phase.OVER) != (end is not None):
        raise RecordError("end must be given exactly when the phase is over", "end")
    ender_data = data.get("ender")
    ender = None if ender_data is None else whole_number(ender_data, "ender", lo=0, hi=n - 1)
    gala = whole_number(data.get("gala_bonus", 0), "gala_bonus", lo=0, hi=1000)
    if (repeat is not None) != (phase is Phase.MUST_TAKE):
        raise RecordError("a repeat card lies out exactly in the must-take phase", "repeat")
    known: list[DeckCard] = [c for c in stack if c is not None]
    known += [c for h in hands for c in h if c is not None]
    known += [c for ts in trios for t in ts for c in t]
    known += list(display) + list(discard) + ([repeat] if repeat is not None else [])
    _check_no_duplicates(known, "state")
    stack_fleas = {c for c in stack if isinstance(c, Flea)}
    seen = {c for c in known if isinstance(c, Flea)} - stack_fleas
    if not stack_fleas <= unseen or unseen & seen:
        raise RecordError("unseen must list exactly the flea cards not yet turned up", "unseen")
    if len(unseen) > len(stack):
        raise RecordError("unseen lists more cards than the stack holds", "unseen")
    return FlohcatiState(
        players=tuple(players),
        stack=stack,
        unseen=unseen,
        hands=hands,
        trios=trios,
        display=display,
        repeat=repeat,
        discard=discard,
        turn=turn,
        phase=phase,
        attraction=attraction,
        gained=gained,
        end=end,
        ender=ender,
        gala_bonus=gala,
    )


# -- record validation ------------------------------------------------------------


def _players(value: Any, field: str, info: GameInfo) -> tuple[str, ...]:
    """The shared player-name rules, plus Flohcati's own.

    The notation reads names without regard to case, and "nobody" is a word of
    it ("steal nobody"), so "Ann" and "ann" are the same player and nobody may
    be called "nobody".
    """
    names = player_names(value, field, info)
    folded = [name.lower() for name in names]
    if len(set(folded)) != len(folded):
        raise RecordError(f"{field} names a player twice (upper and lower case are the same)", field)
    if "nobody" in folded:
        raise RecordError(f"{field}: a player can't be called 'nobody'", field)
    return names


def _card(value: Any, where: str) -> DeckCard:
    if not isinstance(value, str):
        raise RecordError(f"{where} must be a card name", where)
    try:
        return parse_card(value)
    except UnknownComponent as exc:
        raise UnknownComponent(f"{where}: {exc}", where) from None


def _flea(value: Any, where: str) -> Flea:
    card = _card(value, where)
    if not isinstance(card, Flea):
        raise UnknownComponent(f"{where}: {value!r} is an action card, not a flea card", where)
    return card


def _trio(value: Any, where: str) -> TrioCards:
    cards = [_flea(c, f"{where}[{i}]") for i, c in enumerate(json_list(value, where))]
    if len(cards) != 3 or len(set(cards)) != 3 or len({c.value for c in cards}) != 1:
        raise RecordError(f"{where} must be three different flea cards of one value", where)
    a, b, c = sorted(cards, key=lambda f: f.index)
    return (a, b, c)


def _check_no_duplicates(cards: Sequence[DeckCard], where: str) -> None:
    seen: set[Flea] = set()
    actions: dict[Action, int] = {}
    for card in cards:
        if isinstance(card, Flea):
            if card in seen:
                raise RecordError(f"{where}: the {card.name} card appears twice", where)
            seen.add(card)
        else:
            actions[card] = actions.get(card, 0) + 1
            if actions[card] > ACTION_COPIES:
                raise RecordError(
                    f"{where}: more than {ACTION_COPIES} {card.value} cards", where
                )


def replay_text(data: Mapping[str, Any]) -> str:
    lines = [f"Circus Flohcati: {', '.join(data['players'])}", ""]
    for row in data["moves"]:
        note = " ".join(e["text"] for e in row["events"])
        flag = "  (not verified)" if "unverified" in row else ""
        line = f"{row['index']:>4}  {row['player']:<10} {row['move']:<31} {note}{flag}"
        lines.append(line.rstrip())
    lines.append("")
    if data.get("error"):
        err = data["error"]
        lines.append(f"Illegal move {err['index']} ({err['move']}): {err['reason']}")
    for name, f in data["final"].items():
        lines.append(
            f"{name:<12} trios {f['trios']} = {f['trio_points']:>3}   hand {f['hand_points']:>3}"
            f"   total {f['total']:>3}"
        )
    if data["finished"]:
        lines.append(f"Finished ({data['end']}). Winner(s): {', '.join(data['winners'])}.")
    else:
        lines.append(f"Not finished; {data['to_move']} to move.")
    return "\n".join(lines)
