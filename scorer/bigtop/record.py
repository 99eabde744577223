"""Big Top and Fan Tan game records (RECORDS.md): reading, replaying, simulating.

A record is a hand (``deal``, ``investments``, ``moves``) or a whole game
(``"hands": [HAND, ...]``). Every field is checked before anything is
replayed, and a bad field raises `RecordError` naming it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scorer.bigtop.cards import DECK, Card, Suit
from scorer.bigtop.engine import GATE_VALUES, BigTopState, Pile
from scorer.core import DEFAULT_NAMES, RecordError, ReplayReport, UnknownComponent, replay_moves
from scorer.fields import player_names, require, whole_number

if TYPE_CHECKING:
    from scorer.bigtop.engine import BigTop

__all__ = ["parse_hand", "replay", "simulate", "state_from_json"]


# -- validation helpers ----------------------------------------------------------


def _seat(players: Sequence[str], name: Any, field: str) -> int:
    if not isinstance(name, str) or name not in players:
        raise RecordError(f"{field} {name!r} is not one of the players ({', '.join(players)})", field)
    return players.index(name)


def _cards(value: Any, field: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(f"the field {field!r} must be a list of cards", field)
    out = []
    for i, text in enumerate(value):
        try:
            out.append(Card.parse(text))
        except UnknownComponent as exc:
            raise UnknownComponent(f"{field}[{i}]: {exc}", f"{field}[{i}]") from None
    return out


def _per_player(value: Any, players: Sequence[str], field: str, what: str) -> dict[str, Any]:
    """Check that ``value`` maps player names (and nothing else) to something."""
    if not isinstance(value, dict):
        raise RecordError(f"the field {field!r} must map each player to {what}", field)
    for name in value:
        if name not in players:
            raise RecordError(f"{field} names {name!r}, who is not one of the players", f"{field}.{name}")
    return value


def _per_player_cards(value: Any, players: Sequence[str], field: str, complete: bool) -> list[list[Card]]:
    value = _per_player(value, players, field, "a list of cards")
    seen: dict[Card, str] = {}
    hands = []
    for name in players:
        if name not in value:
            raise RecordError(f"{field} has no cards for the player {name!r}", f"{field}.{name}")
        cards = _cards(value[name], f"{field}.{name}")
        for card in cards:
            if card in seen:
                raise RecordError(
                    f"{field}: the {card.describe()} ({card.notation()}) is dealt twice "
                    f"(to {seen[card]} and {name})",
                    f"{field}.{name}",
                )
            seen[card] = name
        hands.append(cards)
    if complete and len(seen) != len(DECK):
        missing = [c.notation() for c in DECK if c not in seen]
        raise RecordError(
            f"{field} must hold all 52 cards; missing: {', '.join(missing[:5])}"
            + (" ..." if len(missing) > 5 else ""),
            field,
        )
    return hands


def _investments(value: Any, players: Sequence[str], field: str) -> list[tuple[int, int, int, int]]:
    value = _per_player(value, players, field, "their four tokens")
    out = []
    for name in players:
        where = f"{field}.{name}"
        tokens = value.get(name)
        if not isinstance(tokens, dict):
            raise RecordError(f"{field} has no tokens for the player {name!r}", where)
        by_suit = {}
        for key, v in tokens.items():
            try:
                suit = Suit.parse(key)
            except UnknownComponent as exc:
                raise UnknownComponent(f"{where}: {exc}", where) from None
            by_suit[suit] = whole_number(v, f"{where}.{key}")
        if len(by_suit) != 4 or sorted(by_suit.values()) != sorted(GATE_VALUES):
            raise RecordError(
                f"{where} must put the tokens 10, 7, 5 and 3 on the four suits, one each", where
            )
        out.append((by_suit[Suit(0)], by_suit[Suit(1)], by_suit[Suit(2)], by_suit[Suit(3)]))
    return out


def _peanuts(value: Any, players: Sequence[str], field: str) -> list[int] | None:
    if value is None:
        return None
    value = _per_player(value, players, field, "a number of peanuts")
    out = []
    for name in players:
        out.append(whole_number(value.get(name, 25), f"{field}.{name}", lo=0))
    return out


def _moves(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise RecordError(f"the field {field!r} must be a list of moves written as text", field)
    return value


# -- one hand --------------------------------------------------------------------


class HandRecord:
    """A validated hand: who dealt, the deal (None if hidden), investments, moves."""

    def __init__(
        self,
        game: BigTop,
        players: tuple[str, ...],
        dealer: int,
        deal: list[list[Card]] | None,
        investments: list[tuple[int, int, int, int]] | None,
        peanuts: Sequence[int] | None,
        moves: list[str],
        final_hands: list[list[Card]] | None,
        where: str,
    ) -> None:
        self.game = game
        self.players = players
        self.dealer = dealer
        self.deal = deal
        self.investments = investments
        self.peanuts = peanuts
        self.moves = moves
        self.final_hands = final_hands
        self.where = where

    def start(self, peanuts: Sequence[int] | None = None) -> BigTopState:
        """The state before the first move; ``peanuts`` carries Fan Tan peanuts between hands."""
        return self.game.start_hand(
            self.players, self.dealer, self.deal, self.investments,
            self.peanuts if peanuts is None else peanuts,
        )


def parse_hand(game: BigTop, data: Any, players: tuple[str, ...], where: str = "") -> HandRecord:
    """Validate one hand of a record.

    :raises RecordError: naming the first bad field.
    """
    if not isinstance(data, dict):
        raise RecordError(f"{where.rstrip('.') or 'the record'} must be a JSON object", where or "record")
    dealer = _seat(players, require(data, "dealer", str, where), f"{where}dealer")
    hands = None
    if "deal" in data:
        hands = _per_player_cards(data["deal"], players, f"{where}deal", complete=True)
    investments = None
    peanuts = None
    if game.allows_calling and (hands is not None or data.get("investments") is not None):
        # A live referee's record may lack them until the tokens are turned face up.
        investments = _investments(require(data, "investments", dict, where), players, f"{where}investments")
    else:
        peanuts = _peanuts(data.get("peanuts"), players, f"{where}peanuts")
    moves = _moves(require(data, "moves", list, where), f"{where}moves")
    final = None
    if data.get("final_hands") is not None:
        final = _per_player_cards(data["final_hands"], players, f"{where}final_hands", complete=False)
    return HandRecord(game, players, dealer, hands, investments, peanuts, moves, final, where)


def _replay_hand(
    game: BigTop, hand: HandRecord, peanuts: Sequence[int] | None = None
) -> tuple[dict[str, Any], BigTopState, bool]:
    replayed = replay_moves(game, hand.start(peanuts), hand.moves, f"{hand.where}moves")
    state, error = replayed.state, replayed.error
    players = state.players
    move_rows: list[dict[str, Any]] = []
    unverified: list[dict[str, Any]] = []
    for step in replayed.played:
        if not step.check.is_legal:
            unverified.append({"index": step.index, "move": step.text, "reason": step.check.message})
        earned: dict[str, int] = {}
        for event in step.events:
            if event.what == "earned":
                for seat, amount in event.points:
                    earned[players[seat]] = earned.get(players[seat], 0) + amount
        move_rows.append({"move": step.text, "earned": earned})
    # A move after the hand ended is an error, but the hand before it is finished.
    finished = state.out is not None
    result: dict[str, Any] = {
        "game": game.name,
        "dealer": players[state.dealer],
        "finished": finished,
        "out": players[state.out] if finished and state.out is not None else None,
        "moves": move_rows,
    }
    if state.peanuts is not None:
        result["pot"] = state.pot
        result["players"] = {name: {"peanuts": state.peanuts[i]} for i, name in enumerate(players)}
    else:
        gates = game.gate_receipts(state, hand.final_hands) if finished else (0,) * len(players)
        result["players"] = {
            name: {
                "track": state.track[i],
                "gate": gates[i],
                "total": None if gates[i] is None else state.track[i] + gates[i],  # type: ignore[operator]
            }
            for i, name in enumerate(players)
        }
    if unverified:
        result["unverified"] = unverified
    if error is not None:
        result["error"] = error
    return result, state, error is not None


def replay(game: BigTop, record: Mapping[str, Any]) -> ReplayReport:
    """Replay a hand or whole-game record.

    :raises RecordError: when the record is not valid (exit status 2).
    """
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object", "record")
    if record.get("game") != game.name:
        raise RecordError(f"this is not a {game.info.title} record (game is {record.get('game')!r})", "game")
    players = player_names(require(record, "players", list), "players", game.info)
    if "hands" not in record:
        data, _, illegal = _replay_hand(game, parse_hand(game, record, players))
        data = {**_hand_envelope(game, players, data), **data}
        return ReplayReport(data, _hand_table(game, players, data), illegal)
    hands = require(record, "hands", list, "")
    if not hands:
        raise RecordError("the field 'hands' is empty", "hands")
    # Validate every hand before replaying any, so a bad field is never half-reported.
    parsed = [parse_hand(game, h, players, f"hands[{k}].") for k, h in enumerate(hands)]
    peanuts: Sequence[int] | None = None
    if not game.allows_calling:
        peanuts = _peanuts(record.get("peanuts"), players, "peanuts")
    results = []
    totals = [0] * len(players)
    illegal = False
    for hand in parsed:
        data, state, illegal = _replay_hand(game, hand, peanuts)
        results.append(data)
        if state.peanuts is not None:
            peanuts = state.peanuts
            totals = list(peanuts)
        else:
            for i, name in enumerate(players):
                totals[i] += data["players"][name]["total"] or 0
        if illegal:
            break
        if peanuts is not None and min(peanuts) == 0 and len(results) < len(parsed):
            broke = players[peanuts.index(0)]
            nxt = parsed[len(results)]
            illegal = True
            results.append({
                "game": game.name, "dealer": players[nxt.dealer], "finished": False, "out": None,
                "moves": [], "pot": 0, "players": {p: {"peanuts": v} for p, v in zip(players, peanuts)},
                "error": {"index": 0, "move": nxt.moves[0] if nxt.moves else "",
                          "reason": f"The game is over: {broke} has no peanuts left."},
            })
            break
    out: dict[str, Any] = {
        "game": game.name,
        "finished": not illegal and all(r["finished"] for r in results),
        "hands": results,
        "totals": dict(zip(players, totals)),
    }
    if not illegal:
        best = max(totals)
        out["winners"] = [p for p, t in zip(players, totals) if t == best]
    else:
        err = dict(results[-1]["error"])
        err["hand"] = len(results) - 1
        out["error"] = err
    # The envelope shared by every game (docs/records.md), beside the fields above.
    envelope: dict[str, Any] = {
        "game": game.name,
        "players": list(players),
        "finished": out["finished"],
        "moves": [{**row, "hand": k} for k, hand in enumerate(results) for row in hand["moves"]],
        "scores": dict(out["totals"]),
        "winners": [],
        "error": None,
    }
    out = {**envelope, **out}
    return ReplayReport(out, _game_table(game, players, out), illegal)


def _hand_envelope(game: BigTop, players: Sequence[str], data: Mapping[str, Any]) -> dict[str, Any]:
    """The envelope of a one-hand report: scores from its money or peanuts, winners once it ended."""
    if game.allows_calling:
        scores = {p: data["players"][p]["total"] for p in players}
    else:
        scores = {p: data["players"][p]["peanuts"] for p in players}
    winners: list[str] = []
    if data["finished"] and not data.get("error"):
        if not game.allows_calling:
            winners = [data["out"]]
        elif all(v is not None for v in scores.values()):
            best = max(v for v in scores.values() if v is not None)
            winners = [p for p in players if scores[p] == best]
    return {
        "game": game.name,
        "players": list(players),
        "finished": data["finished"],
        "moves": data["moves"],
        "scores": scores,
        "winners": winners,
        "error": None,
    }


# -- readable tables ------------------------------------------------------------------


def _money(game: BigTop, amount: int | None) -> str:
    if amount is None:
        return "?"
    return f"${amount}" if game.allows_calling else str(amount)


def _hand_table(game: BigTop, players: Sequence[str], data: Mapping[str, Any]) -> str:
    lines = [f"{game.info.title}: hand dealt by {data['dealer']}, {len(players)} players, {len(data['moves'])} moves"]
    for i, row in enumerate(data["moves"]):
        if row["earned"]:
            gains = ", ".join(f"{p} +${v}" for p, v in row["earned"].items())
            lines.append(f"  {i + 1:>3}. {row['move']:<32} {gains}")
    if data.get("error"):
        err = data["error"]
        lines.append(f"ILLEGAL move {err['index'] + 1} ({err['move']}): {err['reason']}")
    elif data["finished"]:
        lines.append(f"{data['out']} went out.")
    else:
        lines.append("The hand is not finished.")
    for row in data.get("unverified", []):
        lines.append(f"  cannot verify move {row['index'] + 1} ({row['move']}): {row['reason']}")
    width = max(6, *(len(p) for p in players))
    if game.allows_calling:
        lines.append(f"{'player':<{width}}  track   gate  total")
        for p in players:
            r = data["players"][p]
            lines.append(
                f"{p:<{width}}  {_money(game, r['track']):>5}  {_money(game, r['gate']):>5}  {_money(game, r['total']):>5}"
            )
    else:
        lines.append(f"pot taken: {data['pot']} peanuts")
        lines.append(f"{'player':<{width}}  peanuts")
        for p in players:
            lines.append(f"{p:<{width}}  {data['players'][p]['peanuts']:>7}")
    return "\n".join(lines)


def _game_table(game: BigTop, players: Sequence[str], data: Mapping[str, Any]) -> str:
    parts = []
    for k, hand in enumerate(data["hands"]):
        parts.append(f"Hand {k + 1}\n" + _hand_table(game, players, hand))
    width = max(6, *(len(p) for p in players))
    unit = "money" if game.allows_calling else "peanuts"
    lines = [f"{'player':<{width}}  " + "  ".join(f"h{k + 1:<4}" for k in range(len(data["hands"]))) + f"  {unit}"]
    for p in players:
        cells = []
        for hand in data["hands"]:
            r = hand["players"][p]
            cells.append(f"{(r['total'] if game.allows_calling else r['peanuts']) or 0:<5}")
        lines.append(f"{p:<{width}}  " + "  ".join(cells) + f"  {data['totals'][p]}")
    if not data.get("error"):
        lines.append("Winner: " + " and ".join(data["winners"]) + (" (shared)" if len(data["winners"]) > 1 else ""))
    else:
        err = data["error"]
        lines.append(f"ILLEGAL move in hand {err['hand'] + 1}, move {err['index'] + 1}: {err['reason']}")
    return "\n\n".join(parts) + "\n\nScore sheet\n" + "\n".join(lines)


# -- simulation ------------------------------------------------------------------------


def simulate(game: BigTop, players: Sequence[str] | None, rng: random.Random, hands: int | None = None) -> dict[str, Any]:
    """Play random legal hands with full information and return the record.

    ``hands`` None or 1 gives a one-hand record; more gives a whole game whose
    dealer rotates to the left after every hand.
    """
    names = tuple(players) if players else DEFAULT_NAMES[:5]
    count = 1 if hands is None else hands
    if count < 1:
        raise RecordError("the number of hands must be at least 1", "hands")
    records = []
    peanuts: tuple[int, ...] | None = None
    for k in range(count):
        dealer = k % len(names)
        state = game.new_state(names, rng, dealer=dealer, peanuts=peanuts)
        hand: dict[str, Any] = {"dealer": names[dealer]}
        assert state.hands is not None
        hand["deal"] = {names[i]: [c.notation() for c in sorted(h, key=lambda c: c.index)]
                        for i, h in enumerate(state.hands)}
        if state.investments is not None:
            hand["investments"] = {
                names[i]: {s.label: v for s, v in zip(Suit, inv)} for i, inv in enumerate(state.investments)
            }
        elif k == 0:
            assert state.peanuts is not None
        moves = []
        while state.out is None:
            options = game.legal_moves(state)
            move = options[rng.randrange(len(options))]
            moves.append(game.format_move(state, move))
            state, _ = game.apply_unchecked(state, move)
        hand["moves"] = moves
        records.append(hand)
        peanuts = state.peanuts
        if peanuts is not None and min(peanuts) == 0:
            break
    if hands is None or hands == 1:
        return {"game": game.name, "players": list(names), **records[0]}
    return {"game": game.name, "players": list(names), "hands": records}


# -- states as JSON ---------------------------------------------------------------------


def state_from_json(game: BigTop, data: Mapping[str, Any]) -> BigTopState:
    """Rebuild a state from `BigTop.state_to_json` output.

    :raises RecordError: when a field is missing or wrong.
    """
    if not isinstance(data, dict):
        raise RecordError("a state must be a JSON object", "state")
    players = player_names(require(data, "players", list), "players", game.info)
    dealer = _seat(players, require(data, "dealer", str, ""), "dealer")
    to_move = _seat(players, require(data, "to_move", str, ""), "to_move")
    raw_hands = data.get("hands")
    hands = None
    if raw_hands is not None:
        hands = tuple(frozenset(h) for h in _per_player_cards(raw_hands, players, "hands", complete=False))
    sizes_raw = require(data, "hand_sizes", dict, "")
    sizes = []
    for name in players:
        sizes.append(whole_number(sizes_raw.get(name), f"hand_sizes.{name}", lo=0))
    charts_raw = require(data, "charts", dict, "")
    charts = []
    for name in players:
        row = charts_raw.get(name)
        if not isinstance(row, list) or len(row) != 4:
            raise RecordError(f"charts.{name} must list the four spaces $3, $2, $1, $0", f"charts.{name}")
        chart = tuple(None if c is None else _cards([c], f"charts.{name}")[0] for c in row)
        charts.append(chart)
    tab_raw = require(data, "tableau", dict, "")
    piles = []
    for suit in Suit:
        p = tab_raw.get(suit.label)
        if not isinstance(p, dict):
            raise RecordError(f"tableau.{suit.label} is missing", f"tableau.{suit.label}")
        light, dark, poster = p.get("light"), p.get("dark"), p.get("poster")
        if not (isinstance(light, int) and isinstance(dark, int) and isinstance(poster, bool)
                and 0 <= light <= 6 and 0 <= dark <= 6 and (poster or light == dark == 0)):
            raise RecordError(f"tableau.{suit.label} is not a possible pile", f"tableau.{suit.label}")
        piles.append(Pile(poster, light, dark))
    inv = None
    if data.get("investments") is not None:
        inv = tuple(_investments(data["investments"], players, "investments"))
    track_raw = require(data, "track", dict, "")
    track = tuple(int(track_raw.get(name, 0)) for name in players)
    out_name = data.get("out")
    out = None if out_name is None else _seat(players, out_name, "out")
    peanuts = _peanuts(data.get("peanuts"), players, "peanuts")
    pot = whole_number(data.get("pot", 0), "pot")
    moves_played = whole_number(data.get("moves_played", 0), "moves_played")
    return BigTopState(
        players=players,
        dealer=dealer,
        to_move=to_move,
        hands=hands,
        hand_sizes=tuple(sizes),
        charts=tuple(charts),  # type: ignore[arg-type]
        tableau=(piles[0], piles[1], piles[2], piles[3]),
        investments=inv,
        track=track,
        out=out,
        peanuts=None if peanuts is None else tuple(peanuts),
        pot=pot,
        moves_played=moves_played,
    )

