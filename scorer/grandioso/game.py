"""Circus Grandioso on the Ringside contract: `Grandioso` and its records (seed 001, docs/rules.md §2).

The package is split like every engine: `model` (states, moves, reasons),
`rules` (open slots, legal moves, checks, playing), `scoring`, `codec`
(notation, JSON, records) and this module, which binds them to
`scorer.core.Game`.

>>> import random
>>> game = Grandioso()
>>> state = game.new_state(["Ann", "Ben"], random.Random(3))
>>> [s.describe() for s in legal_slots(state)]
['an Elephant (or a clown) on the left', 'an Elephant (or a clown) on the right']
>>> game.parse_move(state, "place elephant 0,1")
Place(card=<Card.ELEPHANT: 0>, row=0, col=1)
>>> game.format_move(state, Place(Card.ELEPHANT, 0, 1))
'Ann place elephant 0,1'
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from scorer import register
from scorer.core import Check, Event, Game, GameInfo, Outcome, Played, RecordError, Replayed, Verdict
from scorer.fields import player_names, require
from scorer.grandioso import codec, rules, scoring
from scorer.grandioso.codec import UnknownCardName, format_move_text, parse_move_text
from scorer.grandioso.model import (
    HAND_SIZE,
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
    Reason,
    _evolve,
    _sorted,
)
from scorer.grandioso.pyramid import BOX, Card, Pyramid
from scorer.grandioso.rules import _candidates, legal_slots

__all__ = [
    "HAND_SIZE",
    "Draw",
    "EndReason",
    "Exchange",
    "Grandioso",
    "GrandiosoMove",
    "GrandiosoState",
    "LayDown",
    "Pass",
    "Phase",
    "Place",
    "Reason",
    "UnknownCardName",
    "format_move_text",
    "legal_slots",
    "parse_move_text",
]


def _seat_name(state: GrandiosoState, seat: int | None) -> str | None:
    return None if seat is None else state.players[seat]


@register
class Grandioso(Game[GrandiosoState, GrandiosoMove]):
    """Circus Grandioso: build the animal pyramid and hold the Show Master at the end."""

    name: ClassVar[str] = "circus-grandioso"
    aliases: ClassVar[tuple[str, ...]] = ("grandioso",)
    info: ClassVar[GameInfo] = INFO

    # -- state ----------------------------------------------------------------

    def new_state(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> GrandiosoState:
        """Shuffle the 62 cards (the start Elephant is out) and deal 7 to each player."""
        player_names(players, "players", self.info)
        deck = codec._box_without_start()
        rng.shuffle(deck)
        return self.deal_state(players, deck)

    def deal_state(self, players: Sequence[str], deck: Sequence[Card]) -> GrandiosoState:
        """The opening state for a deck in order: 7 cards per seat in turn, then the stack."""
        n = len(players)
        hands = tuple(_sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(n))
        return GrandiosoState(
            players=tuple(players),
            pyramid=Pyramid.start(),
            hands=hands,
            stack=tuple(deck[n * HAND_SIZE :]),
            singles=(),
        )

    def public_view(self, state: GrandiosoState) -> GrandiosoState:
        """What the referee sees of ``state``: every hand, stack, single and drawn card hidden."""
        return _evolve(
            state,
            hands=tuple((None,) * len(h) for h in state.hands),
            stack=(None,) * len(state.stack),
            singles=(None,) * len(state.singles),
            drawn=None,
        )

    def public_state(self, players: Sequence[str]) -> GrandiosoState:
        """An opening state where no hand and no stack card is known (the live referee)."""
        n = len(players)
        return GrandiosoState(
            players=tuple(players),
            pyramid=Pyramid.start(),
            hands=tuple((None,) * HAND_SIZE for _ in range(n)),
            stack=(None,) * (sum(BOX.values()) - 1 - n * HAND_SIZE),
            singles=(),
        )

    def current_player(self, state: GrandiosoState) -> int | None:
        """The seat to move, or None when the game is over."""
        return None if state.phase is Phase.OVER else state.turn

    def is_over(self, state: GrandiosoState) -> bool:
        """True once the game has ended."""
        return state.phase is Phase.OVER

    def winners(self, state: GrandiosoState) -> tuple[int, ...]:
        """The Show Master's holder, or every seat when nobody holds it."""
        return scoring.winners(state)

    def outcome(self, state: GrandiosoState) -> Outcome | None:
        """The winner (the Show Master's holder) once the game is over."""
        if state.phase is not Phase.OVER:
            return None
        reason = {
            EndReason.LAST_CARD: "a player placed their last card",
            EndReason.SEAL: "the Seal crowned the pyramid",
            EndReason.STALEMATE: "no player could do anything more",
        }[state.end or EndReason.STALEMATE]
        return Outcome(self.winners(state), self.scores(state), reason)

    def scores(self, state: GrandiosoState) -> tuple[int, ...]:
        """1 for the seat holding the Show Master, 0 for everyone else."""
        return scoring.scores(state)

    # -- moves ----------------------------------------------------------------

    def legal_moves(self, state: GrandiosoState) -> list[GrandiosoMove]:
        """Every legal move; an unknown card is taken to be any card."""
        return rules.legal_moves(state)

    def check(self, state: GrandiosoState, move: GrandiosoMove) -> Check:
        """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE."""
        return rules.check_move(state, move)

    def apply_unchecked(
        self, state: GrandiosoState, move: GrandiosoMove
    ) -> tuple[GrandiosoState, tuple[Event, ...]]:
        """Play a move without checking it."""
        return rules.apply_move(state, move)

    # -- notation and JSON -----------------------------------------------------

    def parse_move(self, state: GrandiosoState, text: str) -> GrandiosoMove:
        """Read the mover's name (optional in old records), then ``place tiger 4,1``,
        ``draw stack``, ``draw single 2``, ``lay down``, ``exchange tiger for stack``,
        ``exchange ? for single 1`` or ``pass``.

        Hidden singles are numbered from 1 in the order they were laid down.

        :raises NotYourTurn: when the name is not the player to move.
        :raises MalformedMove: when the text is none of these.
        """
        return codec.parse_move(state, text)

    def format_move(self, state: GrandiosoState, move: GrandiosoMove) -> str:
        """Write a move in the notation `parse_move` reads (``"Ann place tiger 4,1"``)."""
        return codec.format_move(state, move)

    def state_to_json(self, state: GrandiosoState) -> dict[str, Any]:
        """The state as JSON: cards by name, unknown cards as null."""
        return codec.state_to_json(state)

    def state_from_json(self, data: Mapping[str, Any]) -> GrandiosoState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when a field is missing, of the wrong type or impossible.
        """
        return codec.state_from_json(data)

    # -- records ----------------------------------------------------------------

    def initial_state(self, record: Mapping[str, Any]) -> GrandiosoState:
        """The opening state a record describes (full information when it has the deal).

        :raises RecordError: when the record is not valid.
        """
        if not isinstance(record, Mapping):
            raise RecordError("a game record must be a JSON object", "record")
        players = player_names(require(record, "players", list), "players", self.info)
        if "deal" not in record and "stack" not in record:
            return self.public_state(players)
        deal = require(record, "deal", dict)
        extra = sorted(set(deal) - set(players))
        if extra:
            raise RecordError(f"deal names {extra[0]!r}, who is not a player", f"deal.{extra[0]}")
        hands: list[list[Card]] = []
        for name in players:
            if name not in deal:
                raise RecordError(f"deal has no hand for {name!r}", f"deal.{name}")
            cards = codec._card_list(deal[name], f"deal.{name}", allow_unknown=False)
            if len(cards) != HAND_SIZE:
                raise RecordError(
                    f"deal.{name} must hold {HAND_SIZE} cards, not {len(cards)}", f"deal.{name}"
                )
            hands.append([c for c in cards if c is not None])
        stack = codec._card_list(require(record, "stack", list), "stack", allow_unknown=False)
        deck = [c for h in hands for c in h] + [c for c in stack if c is not None]
        codec._check_counts(deck, "stack")
        if len(deck) != len(codec._box_without_start()):
            raise RecordError(
                f"deal and stack hold {len(deck)} cards; the box has "
                f"{len(codec._box_without_start())} besides the starting Elephant",
                "stack",
            )
        return self.deal_state(players, deck)

    def record_start(self, record: Mapping[str, Any]) -> GrandiosoState:
        """The opening state of a record, once its ``game`` is checked (hook of the replay driver)."""
        state = self.initial_state(record)
        if record.get("game") not in (None, self.name, *self.aliases):
            raise RecordError(
                f"this is not a Circus Grandioso record: game is {record.get('game')!r}", "game"
            )
        return state

    def replay_row(self, step: Played[GrandiosoState, GrandiosoMove]) -> dict[str, Any]:
        """A row: index, player, the move (without the name) and its events."""
        row: dict[str, Any] = {
            "index": step.index,
            "player": step.before.players[step.before.turn],
            "move": codec.format_move_text(step.move),
            "events": [codec._event_json(step.after, e) for e in step.events],
        }
        if step.check.verdict is Verdict.UNVERIFIABLE:
            row["unverified"] = step.check.message
        return row

    def replay_fields(
        self, result: Replayed[GrandiosoState, GrandiosoMove], rows: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """How it ended, the Show Master, winners, who is to move and the pyramid."""
        state = result.state
        return {
            "end": None if state.end is None else state.end.value,
            "show_master": _seat_name(state, state.show_master),
            "winners": [state.players[s] for s in self.winners(state)] if self.is_over(state) else [],
            "to_move": _seat_name(state, self.current_player(state)),
            "pyramid": self.state_to_json(state)["pyramid"],
        }

    def replay_text(self, result: Replayed[GrandiosoState, GrandiosoMove], data: Mapping[str, Any]) -> str:
        """Each move with its events, the pyramid drawn, the end and the Show Master."""
        return codec.report_text(result.state, data)

    def record_of(self, state: GrandiosoState, **options: Any) -> dict[str, Any]:
        """The record of a fresh deal: players, each hand and the stack."""
        return {
            "game": self.name,
            "players": list(state.players),
            "deal": {name: codec._names(h) for name, h in zip(state.players, state.hands)},
            "stack": codec._names(state.stack),
            "moves": [],
        }

    def random_move(self, state: GrandiosoState, rng: random.Random) -> GrandiosoMove:
        """A random legal move: first a kind of move, then one move of that kind."""
        slots = state.pyramid.open_slots()
        if state.phase is Phase.DRAWN:
            drawn = state.drawn
            places: list[GrandiosoMove] = [
                Place(c, s.row, s.col) for s in slots for c in _candidates((drawn,), s)
            ]
            if places and rng.random() < 0.5:
                return places[rng.randrange(len(places))]
            return LayDown()
        hand = state.hands[state.turn]
        places = []
        unknown = None in hand
        for s in slots:
            if unknown or s.animal in hand:
                places.append(Place(s.animal, s.row, s.col))
            if s.clown_ok and (unknown or Card.CLOWN in hand):
                places.append(Place(Card.CLOWN, s.row, s.col))
        n_sources = len(state.singles) + (1 if state.stack else 0)
        options = []
        if places:
            options.append(0)
        if n_sources:
            options += [1, 2]
        if state.placed or not options:
            options.append(3)
        choice = options[rng.randrange(len(options))]
        if choice == 0:
            return places[rng.randrange(len(places))]
        if choice == 3:
            return Pass()
        k = rng.randrange(n_sources)
        source = (k - 1 if k else None) if state.stack else k
        if choice == 1:
            return Draw(source)
        kinds = tuple(dict.fromkeys(hand))
        return Exchange(kinds[rng.randrange(len(kinds))], source)

