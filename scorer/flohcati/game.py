"""Circus Flohcati on the Ringside contract: `Flohcati` and its records (seed 003, docs/rules.md §3).

The package is split like every engine: `model` (states, moves, reasons),
`rules` (legal moves, checks, playing), `scoring`, `codec` (notation, JSON,
records) and this module, which binds them to `scorer.core.Game`.

>>> import random
>>> game = Flohcati()
>>> state = game.new_state(["Ann", "Ben", "Cat"], random.Random(1))
>>> game.format_move(state, game.legal_moves(state)[0])
'Ann turn'
>>> bust_probability(state)
Fraction(0, 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from scorer import register
from scorer.core import Check, Event, Game, GameInfo, Outcome, Played, RecordError, Replayed, ReplayReport, Verdict
from scorer.fields import json_list, require, whole_number
from scorer.flohcati import codec, rules
from scorer.flohcati.cards import DECK, FLEAS, Colour, DeckCard, Flea, card_name
from scorer.flohcati.codec import UnknownCardName
from scorer.flohcati.model import (
    _TURN,
    INFO,
    TRIO_POINTS,
    EndReason,
    FlohcatiMove,
    FlohcatiState,
    Phase,
    Reason,
    Request,
    Show,
    Steal,
    Stop,
    Take,
    Trio,
    Turn,
    _evolve,
)
from scorer.flohcati.rules import _PHASE_HELP
from scorer.flohcati.scoring import bust_probability, hand_points, score_of

__all__ = [
    "EndReason",
    "Flohcati",
    "FlohcatiMove",
    "FlohcatiState",
    "Phase",
    "Reason",
    "Request",
    "Show",
    "Steal",
    "Stop",
    "Take",
    "Trio",
    "Turn",
    "UnknownCardName",
    "bust_probability",
    "hand_points",
    "score_of",
]

#: Kept for code that reads the phase help from here.
PHASE_HELP = _PHASE_HELP


@register
class Flohcati(Game[FlohcatiState, FlohcatiMove]):
    """Circus Flohcati (Reiner Knizia): collect fleas, one of each colour, and trios."""

    name: ClassVar[str] = "flohcati"
    aliases: ClassVar[tuple[str, ...]] = ("circus-flohcati",)
    info: ClassVar[GameInfo] = INFO
    #: Player count when none is given.
    default_players: ClassVar[int] = 3

    # -- state ----------------------------------------------------------------

    def new_state(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> FlohcatiState:
        """Shuffle the 89 cards into the draw stack. Option ``gala_bonus`` (default 0)."""
        codec._players(list(players), "players", self.info)
        deck = list(DECK)
        rng.shuffle(deck)
        return self.stack_state(players, deck, gala_bonus=int(options.get("gala_bonus") or 0))

    def stack_state(
        self, players: Sequence[str], stack: Sequence[DeckCard], *, gala_bonus: int = 0
    ) -> FlohcatiState:
        """The opening state for a draw stack in order (top card first)."""
        return FlohcatiState(
            players=tuple(players),
            stack=tuple(stack),
            unseen=frozenset(c for c in stack if isinstance(c, Flea)),
            hands=((),) * len(players),
            trios=((),) * len(players),
            gala_bonus=gala_bonus,
        )

    def public_view(self, state: FlohcatiState, *, hide_hands: bool = False) -> FlohcatiState:
        """What the referee sees of ``state``: the stack's order hidden (its make-up stays
        known as ``unseen``); with ``hide_hands`` the hands too, as after unseen steals."""
        hands = state.hands
        if hide_hands:
            hands = tuple((None,) * len(h) for h in hands)
        return _evolve(state, stack=(None,) * len(state.stack), hands=hands)

    def public_state(self, players: Sequence[str], *, gala_bonus: int = 0) -> FlohcatiState:
        """An opening state whose stack order is unknown (the live referee)."""
        return FlohcatiState(
            players=tuple(players),
            stack=(None,) * len(DECK),
            unseen=frozenset(FLEAS),
            hands=((),) * len(players),
            trios=((),) * len(players),
            gala_bonus=gala_bonus,
        )

    def current_player(self, state: FlohcatiState) -> int | None:
        """The seat to move, or None when the game is over."""
        return None if state.phase is Phase.OVER else state.turn

    def is_over(self, state: FlohcatiState) -> bool:
        """True once the game has ended."""
        return state.phase is Phase.OVER

    def scores(self, state: FlohcatiState) -> tuple[int, ...]:
        """Each seat's points as they stand (the gala bonus once the game is over)."""
        return tuple(
            score_of(hand, len(trios), state.gala_bonus if seat == state.ender else 0)
            for seat, (hand, trios) in enumerate(zip(state.hands, state.trios))
        )

    def outcome(self, state: FlohcatiState) -> Outcome | None:
        """Highest score wins; ties share the victory."""
        if state.phase is not Phase.OVER:
            return None
        scores = self.scores(state)
        best = max(scores)
        winners = tuple(s for s, v in enumerate(scores) if v == best)
        why = (
            "the last card of the stack was turned"
            if state.end is EndReason.STACK_EMPTY
            else "a player showed all ten colours"
        )
        return Outcome(winners, scores, why)

    # -- moves ----------------------------------------------------------------

    def legal_moves(self, state: FlohcatiState) -> list[FlohcatiMove]:
        """Every legal move (an unknown stack card may be any card not yet seen)."""
        return rules.legal_moves(state)

    def check(self, state: FlohcatiState, move: FlohcatiMove) -> Check:
        """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE. Never raises."""
        return rules.check_move(state, move)

    def apply_unchecked(
        self, state: FlohcatiState, move: FlohcatiMove
    ) -> tuple[FlohcatiState, tuple[Event, ...]]:
        """Play a move without checking it."""
        return rules.apply_move(state, move)

    # -- notation and JSON -------------------------------------------------------

    def parse_move(self, state: FlohcatiState, text: str) -> FlohcatiMove:
        """Read a move: the mover's name (optional in old records), then ``turn``,
        ``turn red-5``, ``take red-5``, ``steal Ben red-5``, ``steal Ben ?``,
        ``steal nobody``, ``request red clockwise from Ben red-5``,
        ``request red counterclockwise nobody``, ``trio red-3 blue-3 grey-3``,
        ``show`` or ``stop``.

        :raises NotYourTurn: when the name is not the player to move.
        :raises MalformedMove: when the text is not a Flohcati move.
        """
        return codec.parse_move(state, text)

    def format_move(self, state: FlohcatiState, move: FlohcatiMove) -> str:
        """Write a move in the notation `parse_move` reads (``"Ann take red-5"``)."""
        return codec.format_move(state, move)

    def state_to_json(self, state: FlohcatiState) -> dict[str, Any]:
        """The state as JSON: cards by name, unknown cards as null."""
        return codec.state_to_json(state)

    def state_from_json(self, data: Mapping[str, Any]) -> FlohcatiState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when a field is missing, of the wrong type or impossible.
        """
        return codec.state_from_json(data)

    # -- records ----------------------------------------------------------------

    def record_start(self, record: Mapping[str, Any]) -> FlohcatiState:
        """The opening state a record describes (full information when it has the stack).

        :raises RecordError: when the record is not valid.
        """
        if not isinstance(record, Mapping):
            raise RecordError("a game record must be a JSON object", "record")
        if record.get("game") not in (None, self.name, *self.aliases):
            raise RecordError(
                f"this is not a Circus Flohcati record: game is {record.get('game')!r}", "game"
            )
        players = codec._players(record.get("players"), "players", self.info)
        gala = whole_number(record.get("gala_bonus", 0), "gala_bonus", lo=0, hi=1000)
        if "stack" not in record:
            return self.public_state(players, gala_bonus=gala)
        cards = [codec._card(c, f"stack[{i}]") for i, c in enumerate(require(record, "stack", list))]
        codec._check_no_duplicates(cards, "stack")
        if len(cards) != len(DECK):
            raise RecordError(
                f"stack must hold all {len(DECK)} cards of the box, not {len(cards)}", "stack"
            )
        return self.stack_state(players, cards, gala_bonus=gala)


    def initial_state(self, record: Mapping[str, Any]) -> FlohcatiState:
        """The opening state a record describes (the name `record_start` had before the record driver)."""
        return self.record_start(record)

    def replay_row(self, step: Played[FlohcatiState, FlohcatiMove]) -> dict[str, Any]:
        """A row: index, player, the move (without the name), the card turned, the events."""
        before, after, move = step.before, step.after, step.move
        row: dict[str, Any] = {
            "index": step.index,
            "player": before.players[before.turn],
            "move": codec.plain_move(before, move),
            "events": [
                {
                    "what": e.what,
                    "points": {after.players[s]: a for s, a in e.points_by_seat().items()},
                    "text": e.text,
                }
                for e in step.events
            ],
        }
        if isinstance(move, Turn):
            top = before.stack[0]
            shown = top if top is not None else move.card
            row["card"] = None if shown is None else card_name(shown)
        if step.check.verdict is Verdict.UNVERIFIABLE:
            row["unverified"] = step.check.message
        return row

    def replay_fields(
        self, result: Replayed[FlohcatiState, FlohcatiMove], rows: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """How the game ended, each player's final breakdown and who is to move."""
        state = result.state
        over = self.is_over(state)
        scores = self.scores(state)
        outcome = self.outcome(state)
        return {
            "end": None if state.end is None else state.end.value,
            "final": {
                name: {
                    "trios": len(state.trios[s]),
                    "trio_points": TRIO_POINTS * len(state.trios[s]),
                    "hand_points": hand_points(state.hands[s]),
                    "gala": state.gala_bonus if s == state.ender else 0,
                    "total": scores[s],
                }
                for s, name in enumerate(state.players)
            },
            "winners": [] if outcome is None else [state.players[s] for s in outcome.winners],
            "to_move": None if over else state.players[state.turn],
        }

    def replay_text(self, result: Replayed[FlohcatiState, FlohcatiMove], data: Mapping[str, Any]) -> str:
        """Each move with its events, the breakdowns and the winners."""
        return codec.replay_text(data)

    def record_of(self, state: FlohcatiState, **options: Any) -> dict[str, Any]:
        """The record of a fresh state: players, the whole stack and any gala bonus."""
        record: dict[str, Any] = {
            "game": self.name,
            "players": list(state.players),
            "stack": [card_name(c) for c in state.stack if c is not None],
            "moves": [],
        }
        if state.gala_bonus:
            record["gala_bonus"] = state.gala_bonus
        return record

    def simulate(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> dict[str, Any]:
        """Play random legal moves with full information and return the record.

        Take attraction draws the opponent, then the card, from ``rng``. Option
        ``gala_bonus`` is written into the record; ``hands`` is ignored.
        """
        return super().simulate(players, rng, gala_bonus=int(options.get("gala_bonus") or 0))

    def random_move(self, state: FlohcatiState, rng: random.Random) -> FlohcatiMove:
        """A random legal move; Take attraction picks an opponent, then one of their cards."""
        if state.phase is Phase.STEAL:
            victims = [s for s in rules._opponents(state, True) if state.hands[s]]
            if not victims:
                return Steal(None, None)
            victim = victims[rng.randrange(len(victims))]
            hand = state.hands[victim]
            return Steal(victim, hand[rng.randrange(len(hand))])
        if state.phase is Phase.MUST_TAKE:
            # The simulated player always takes a card after a repeat (as before stop was allowed).
            takes = [m for m in self.legal_moves(state) if isinstance(m, Take)]
            return takes[rng.randrange(len(takes))]
        if state.phase is Phase.TURNING and state.stack[0] is not None:
            # Uniform over `legal_moves` (turn, or take one row card) without building it.
            k = rng.randrange(len(state.display) + 1)
            return _TURN if k == 0 else Take(state.display[k - 1])
        moves = self.legal_moves(state)
        return moves[rng.randrange(len(moves))]

    def score_position(self, data: Mapping[str, Any]) -> ReplayReport:
        """Score an end-of-game position: each player's hand and trios laid open.

        The format is in docs/records.md.

        :raises RecordError: when the position is not valid.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a position must be a JSON object", "position")
        if data.get("game") not in (None, self.name, *self.aliases):
            raise RecordError(
                f"this is not a Circus Flohcati position: game is {data.get('game')!r}", "game"
            )
        table = data.get("players")
        if not isinstance(table, Mapping) or not table:
            raise RecordError(
                "players must map each player's name to their hand and trios", "players"
            )
        gala = whole_number(data.get("gala_bonus", 0), "gala_bonus", lo=0, hi=1000)
        ender = data.get("ended_by")
        if ender is not None and not isinstance(ender, str):
            raise RecordError("ended_by must be a player's name", "ended_by")
        if ender is not None and ender not in table:
            raise RecordError(f"ended_by names {ender!r}, who is not a player", "ended_by")
        every: list[DeckCard] = []
        result: dict[str, Any] = {}
        for name, seat in table.items():
            where = f"players.{name}"
            if not isinstance(seat, Mapping):
                raise RecordError(f"{where} must be an object with hand and trios", where)
            hand_data = json_list(seat.get("hand", []), f"{where}.hand")
            trios_data = json_list(seat.get("trios", []), f"{where}.trios")
            hand = [codec._flea(c, f"{where}.hand[{i}]") for i, c in enumerate(hand_data)]
            trios = [codec._trio(t, f"{where}.trios[{k}]") for k, t in enumerate(trios_data)]
            every += hand + [c for t in trios for c in t]
            colours: dict[str, int] = {}
            for card in hand:
                colours[card.colour.value] = max(card.value, colours.get(card.colour.value, 0))
            bonus = 0
            if name == ender:
                if len(colours) != len(Colour):
                    raise RecordError(
                        f"{name} ended the game but does not hold all ten colours", "ended_by"
                    )
                bonus = gala
            total = score_of(hand, len(trios), bonus)
            result[name] = {
                "trios": len(trios),
                "trio_points": TRIO_POINTS * len(trios),
                "hand_points": hand_points(hand),
                "colours": colours,
                "gala": bonus,
                "total": total,
            }
        codec._check_no_duplicates(every, "players")
        best = max(r["total"] for r in result.values())
        out = {
            "game": self.name,
            "players": result,
            "scores": {name: r["total"] for name, r in result.items()},
            "winners": [name for name, r in result.items() if r["total"] == best],
        }
        lines = ["Circus Flohcati: end-of-game scoring", ""]
        for name, r in result.items():
            lines.append(
                f"{name:<12} trios {r['trios']} = {r['trio_points']:>3}"
                f"   hand {r['hand_points']:>3}"
                + (f"   gala {r['gala']:>3}" if r["gala"] else "")
                + f"   total {r['total']:>3}"
            )
        lines += ["", f"Winner(s): {', '.join(out['winners'])}"]
        return ReplayReport(out, "\n".join(lines))

