"""The Circus Grandioso rules engine (seed 001, DECISIONS.md §2).

A state holds the pyramid, every hand, the face-down stack (top first), the
hidden single cards lying on the table, whose turn it is and the Show Master.
Unknown cards are ``None``: a state built from a record without the deal is a
public-information state, where checks that need a hidden card answer
UNVERIFIABLE.

>>> import random
>>> game = Grandioso()
>>> state = game.new_state(["Ann", "Ben"], random.Random(3))
>>> [s.describe() for s in legal_slots(state)]
['an Elephant (or a clown) on the left', 'an Elephant (or a clown) on the right']
>>> game.parse_move(state, "place elephant 0,1")
Place(card=<Card.ELEPHANT: 0>, row=0, col=1)
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, ClassVar

from scorer import register
from scorer.core import (
    LEGAL,
    Check,
    Event,
    Game,
    GameInfo,
    MalformedMove,
    Outcome,
    RecordError,
    ReplayReport,
    UnknownComponent,
    Verdict,
)
from scorer.fields import boolean, one_of, player_names, require, whole_number
from scorer.grandioso.pyramid import BOX, ROWS, Card, Pyramid, Side, Slot, article

__all__ = [
    "Draw",
    "EndReason",
    "Exchange",
    "Grandioso",
    "GrandiosoMove",
    "GrandiosoState",
    "HAND_SIZE",
    "LayDown",
    "Pass",
    "Phase",
    "Place",
    "Reason",
    "legal_slots",
]

#: Cards dealt to each player.
HAND_SIZE = 7


class Phase(enum.Enum):
    """Where the player to move stands in their turn."""

    #: Choose an option: place a hand card, draw, exchange (or pass).
    PLAY = "play"
    #: Holding a card just drawn: place it or lay it face down.
    DRAWN = "drawn"
    OVER = "over"


class EndReason(enum.Enum):
    """Why the game ended."""

    LAST_CARD = "last card"
    SEAL = "seal"
    STALEMATE = "stalemate"


class Reason(enum.Enum):
    """Why a move is illegal."""

    GAME_OVER = "game over"
    NOT_IN_HAND = "not in hand"
    NOT_DRAWN = "not the drawn card"
    WRONG_ANIMAL = "wrong animal"
    NO_SUPPORT = "no support"
    BASE_FULL = "base full"
    TOP_FIRST = "top first"
    NOT_HIGHEST = "not highest"
    CLOWN_ON_TOP = "clown on top"
    SECOND_CLOWN = "second clown"
    MUST_RESOLVE = "must resolve draw"
    NOTHING_DRAWN = "nothing drawn"
    EMPTY_SOURCE = "empty source"
    CANNOT_PASS = "cannot pass"
    CARD_NOT_NAMED = "card not named"
    NOT_A_MOVE = "not a move"


@dataclass(frozen=True, slots=True)
class Place:
    """Put ``card`` at ``(row, col)``: from the hand, or the card just drawn."""

    card: Card
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Draw:
    """Pick up the top card of the stack (``single`` None) or hidden single number ``single``."""

    single: int | None = None


@dataclass(frozen=True, slots=True)
class LayDown:
    """Lay the card just drawn face down as a new hidden single; the turn ends."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """Lay hand card ``card`` face down and take the stack's top or a hidden single.

    ``card`` is None when the referee could not see which card was laid down.
    """

    card: Card | None
    single: int | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn after a placement, or pass when no option is left."""


GrandiosoMove = Place | Draw | LayDown | Exchange | Pass


@dataclass(frozen=True, slots=True)
class GrandiosoState:
    """One moment of a game. Hands are sorted; ``None`` is a card nobody can see."""

    players: tuple[str, ...]
    pyramid: Pyramid
    hands: tuple[tuple[Card | None, ...], ...]
    #: The face-down stack, top card first.
    stack: tuple[Card | None, ...]
    #: The hidden single cards on the table, in the order they were laid down.
    singles: tuple[Card | None, ...]
    turn: int = 0
    phase: Phase = Phase.PLAY
    #: The card just drawn (phase DRAWN), None when unseen or when none is drawn.
    drawn: Card | None = None
    #: True once the player to move has placed a card this turn.
    placed: bool = False
    show_master: int | None = None
    #: Turns in a row that ended with a pass and no placement.
    passes: int = 0
    end: EndReason | None = None


_STATE_FIELDS = tuple(f.name for f in fields(GrandiosoState))
_STATE_INDEX = {name: i for i, name in enumerate(_STATE_FIELDS)}
_state_values = attrgetter(*_STATE_FIELDS)


def _evolve(state: GrandiosoState, **changes: Any) -> GrandiosoState:
    """`dataclasses.replace` without its checks (it is the simulation's hot spot)."""
    values = list(_state_values(state))
    for name, value in changes.items():
        values[_STATE_INDEX[name]] = value
    return GrandiosoState(*values)


def _key(card: Card | None) -> int:
    return 99 if card is None else card.value


def _sorted(cards: Sequence[Card | None]) -> tuple[Card | None, ...]:
    return tuple(sorted(cards, key=_key))


def _without(hand: tuple[Card | None, ...], card: Card | None) -> tuple[Card | None, ...]:
    """The hand less one ``card`` (or, when it is not there, less one unknown card)."""
    i = hand.index(card) if card in hand else hand.index(None)
    return hand[:i] + hand[i + 1 :]


def legal_slots(state: GrandiosoState) -> tuple[Slot, ...]:
    """The slots a card may go into now, each with the animal it takes (for teaching).

    >>> import random
    >>> s = Grandioso().new_state(["Ann", "Ben"], random.Random(0))
    >>> [(x.row, x.col, x.animal.label) for x in legal_slots(s)]
    [(0, -1, 'Elephant'), (0, 1, 'Elephant')]
    """
    if state.phase is Phase.OVER:
        return ()
    return state.pyramid.open_slots()


def _seat_name(state: GrandiosoState, seat: int | None) -> str | None:
    return None if seat is None else state.players[seat]


@register
class Grandioso(Game[GrandiosoState, GrandiosoMove]):
    """Circus Grandioso: build the animal pyramid and hold the Show Master at the end."""

    name: ClassVar[str] = "circus-grandioso"
    aliases: ClassVar[tuple[str, ...]] = ("grandioso",)
    info: ClassVar[GameInfo] = GameInfo(
        title="Circus Grandioso",
        min_players=2,
        max_players=4,
        hidden_information=True,
        score_unit="Show Master",
    )

    # -- state ----------------------------------------------------------------

    def new_state(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> GrandiosoState:
        """Shuffle the 62 cards (the start Elephant is out) and deal 7 to each player."""
        player_names(players, "players", self.info)
        deck = _box_without_start()
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
        if state.show_master is not None:
            return (state.show_master,)
        return tuple(range(len(state.players)))

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
        return tuple(int(seat == state.show_master) for seat in range(len(state.players)))

    # -- moves ----------------------------------------------------------------

    def legal_moves(self, state: GrandiosoState) -> list[GrandiosoMove]:
        """Every legal move; an unknown card is taken to be any card."""
        if state.phase is Phase.OVER:
            return []
        slots = state.pyramid.open_slots()
        moves: list[GrandiosoMove] = []
        if state.phase is Phase.DRAWN:
            for slot in slots:
                for card in _candidates((state.drawn,), slot):
                    moves.append(Place(card, slot.row, slot.col))
            moves.append(LayDown())
            return moves
        hand = state.hands[state.turn]
        kinds = tuple(dict.fromkeys(hand))
        for slot in slots:
            for card in _candidates(kinds, slot):
                moves.append(Place(card, slot.row, slot.col))
        sources: list[int | None] = list(range(len(state.singles)))
        if state.stack:
            sources.insert(0, None)
        for source in sources:
            moves.append(Draw(source))
        for kind in kinds:
            for source in sources:
                moves.append(Exchange(kind, source))
        if state.placed or not moves:
            moves.append(Pass())
        return moves

    def check(self, state: GrandiosoState, move: GrandiosoMove) -> Check:
        """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE."""
        try:
            return self._check(state, move)
        except Exception as exc:  # noqa: BLE001 - the contract says never raise
            return Check.illegal(Reason.NOT_A_MOVE, f"That is not a Circus Grandioso move ({exc}).")

    def _check(self, state: GrandiosoState, move: GrandiosoMove) -> Check:
        if state.phase is Phase.OVER:
            return Check.illegal(Reason.GAME_OVER, "The game is over: no more cards can be played.")
        if isinstance(move, Place):
            return self._check_place(state, move)
        if isinstance(move, LayDown):
            if state.phase is not Phase.DRAWN:
                return Check.illegal(
                    Reason.NOTHING_DRAWN,
                    "You have not drawn a card, so there is nothing to lay face down.",
                )
            return LEGAL
        if state.phase is Phase.DRAWN:
            return Check.illegal(
                Reason.MUST_RESOLVE,
                "You are holding the card you drew: place it on the pyramid or lay it "
                "face down first.",
            )
        if isinstance(move, (Draw, Exchange)):
            source = _check_source(state, move.single)
            if source is not None:
                return source
            if isinstance(move, Exchange):
                return _check_hand(state, move.card, exchange=True)
            return LEGAL
        if isinstance(move, Pass):
            return self._check_pass(state)
        return Check.illegal(Reason.NOT_A_MOVE, "That is not a Circus Grandioso move.")

    def _check_place(self, state: GrandiosoState, move: Place) -> Check:
        card, row, col = move.card, move.row, move.col
        if state.phase is Phase.DRAWN and state.drawn is not None and state.drawn is not card:
            return Check.illegal(
                Reason.NOT_DRAWN,
                f"You drew {article(state.drawn)}, so that is the card you may place, "
                f"not {article(card)}.",
            )
        pyramid = state.pyramid
        side = pyramid.side_of(row, col)
        if side is None:
            if row == 0 and col in (pyramid.lefts[0] - 1, pyramid.right(0) + 1):
                return Check.illegal(
                    Reason.BASE_FULL,
                    "The Elephant row is already ten cards wide: no more Elephants fit.",
                )
            taken = pyramid.card_at(row, col) is not None
            if taken:
                message = "That place already holds a card."
            elif row == 0:
                message = (
                    f"{_cap(article(card))} can't go there: a card goes right next to "
                    "either end of the Elephant row."
                )
            else:
                message = (
                    f"{_cap(article(card))} can't go there: every card above the Elephants "
                    "must rest on two cards, and cards go only at the end of a row."
                )
            return Check.illegal(Reason.NO_SUPPORT, message)
        if card is not Card.CLOWN and card.value != row:
            return Check.illegal(
                Reason.WRONG_ANIMAL,
                f"{_cap(article(card))} can't go in the {Card(row).label} row: it takes only "
                f"{Card(row).label}s (and one clown).",
            )
        slots = pyramid.open_slots()
        if side is not Side.TOP and slots and slots[0].side is Side.TOP:
            return Check.illegal(
                Reason.TOP_FIRST,
                f"{_cap(article(card))} can't go there now: the top of the pyramid can take "
                f"{article(slots[0].animal)}, and the highest place comes first on both sides.",
            )
        if side is not Side.TOP and not any(s.row == row and s.col == col for s in slots):
            best = next(s for s in slots if s.side is side)
            return Check.illegal(
                Reason.NOT_HIGHEST,
                f"{_cap(article(card))} can't go there yet: the {side.value} side can still take "
                f"{article(best.animal)} higher up.",
            )
        if card is Card.CLOWN:
            if side is Side.TOP:
                return Check.illegal(
                    Reason.CLOWN_ON_TOP,
                    "A clown can't be the single topmost card of the pyramid: only "
                    f"{article(Card(row))} can start the {Card(row).label} row.",
                )
            if pyramid.has_clown(row):
                return Check.illegal(
                    Reason.SECOND_CLOWN,
                    f"The {Card(row).label} row already has its clown: each row may hold only one.",
                )
        if state.phase is Phase.PLAY:
            return _check_hand(state, card, exchange=False)
        if state.drawn is None:
            return Check.unverifiable("The card you drew is hidden from the referee.")
        return LEGAL

    def _check_pass(self, state: GrandiosoState) -> Check:
        if state.placed:
            return LEGAL
        if state.stack or state.singles:
            return Check.illegal(
                Reason.CANNOT_PASS,
                "You can't pass: you can still draw a card or exchange one of yours.",
            )
        hand = state.hands[state.turn]
        for slot in state.pyramid.open_slots():
            for card in hand:
                if card is not None and slot.takes(card):
                    return Check.illegal(
                        Reason.CANNOT_PASS,
                        f"You can't pass: your {card.label} fits the pyramid "
                        f"({slot.describe()}).",
                    )
        if None in hand and state.pyramid.open_slots():
            return Check.unverifiable("The referee can't see whether one of your cards fits.")
        return LEGAL

    def apply_unchecked(
        self, state: GrandiosoState, move: GrandiosoMove
    ) -> tuple[GrandiosoState, tuple[Event, ...]]:
        """Play a move without checking it."""
        seat = state.turn
        if isinstance(move, Place):
            return self._apply_place(state, move)
        # The moves below build the next state in one call: this is the simulation's hot path.
        if isinstance(move, Draw):
            card, stack, singles = _take(state, move.single)
            return GrandiosoState(
                state.players, state.pyramid, state.hands, stack, singles, seat,
                Phase.DRAWN, card, state.placed, state.show_master, state.passes, None,
            ), ()
        nxt = (seat + 1) % len(state.players)
        if isinstance(move, LayDown):
            return GrandiosoState(
                state.players, state.pyramid, state.hands, state.stack,
                state.singles + (state.drawn,), nxt, Phase.PLAY, None, False,
                state.show_master, 0, None,
            ), ()
        if isinstance(move, Exchange):
            card, stack, singles = _take(state, move.single)
            hand = _without(state.hands[seat], move.card)
            hands = _set(state.hands, seat, _sorted(hand + (card,)))
            return GrandiosoState(
                state.players, state.pyramid, hands, stack, singles + (move.card,), nxt,
                Phase.PLAY, None, False, state.show_master, 0, None,
            ), ()
        # Pass
        if state.placed:
            return _next_turn(state), ()
        passes = state.passes + 1
        if passes >= len(state.players):
            over = _evolve(state, passes=passes, phase=Phase.OVER, end=EndReason.STALEMATE)
            return over, (_end_event(over),)
        return _next_turn(_evolve(state, passes=passes), reset=False), ()

    def _apply_place(
        self, state: GrandiosoState, move: Place
    ) -> tuple[GrandiosoState, tuple[Event, ...]]:
        seat = state.turn
        pyramid = state.pyramid
        is_top = pyramid.top_slot() == (move.row, move.col)
        pyramid = pyramid.with_card(move.row, move.col, move.card)
        hands = state.hands
        if state.phase is Phase.PLAY:
            hands = _set(hands, seat, _without(hands[seat], move.card))
        new = _evolve(state, pyramid=pyramid, hands=hands, drawn=None, phase=Phase.PLAY)
        events: list[Event] = []
        if is_top or move.card is Card.SEAL:
            if state.show_master != seat:
                points: tuple[tuple[int, int], ...] = ((seat, 1),)
                if state.show_master is not None:
                    points += ((state.show_master, -1),)
                events.append(
                    Event(
                        "show master",
                        points,
                        f"{state.players[seat]}'s {move.card.label} is the single topmost "
                        f"card: {state.players[seat]} takes the Show Master.",
                    )
                )
            new = _evolve(new, show_master=seat)
        if move.card is Card.SEAL:
            new = _evolve(new, phase=Phase.OVER, end=EndReason.SEAL)
        elif not hands[seat]:
            new = _evolve(new, phase=Phase.OVER, end=EndReason.LAST_CARD)
        elif is_top:
            new = _next_turn(new)
        else:
            new = _evolve(new, placed=True)
        if new.phase is Phase.OVER:
            events.append(_end_event(new))
        return new, tuple(events)

    # -- notation and JSON -----------------------------------------------------

    def parse_move(self, state: GrandiosoState, text: str) -> GrandiosoMove:
        """Read ``place tiger 4,1``, ``draw stack``, ``draw single 2``, ``lay down``,
        ``exchange tiger for stack``, ``exchange ? for single 1`` or ``pass``.

        Hidden singles are numbered from 1 in the order they were laid down.

        :raises MalformedMove: when the text is none of these.
        """
        return parse_move_text(text)

    def format_move(self, state: GrandiosoState, move: GrandiosoMove) -> str:
        """Write a move in the notation `parse_move` reads."""
        return format_move_text(move)

    def state_to_json(self, state: GrandiosoState) -> dict[str, Any]:
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

    def state_from_json(self, data: Mapping[str, Any]) -> GrandiosoState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when a field is missing, of the wrong type or impossible.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a Circus Grandioso state must be a JSON object", "state")
        players = player_names(require(data, "players", list), "players", self.info)
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
            cards = _card_list(deal[name], f"deal.{name}", allow_unknown=False)
            if len(cards) != HAND_SIZE:
                raise RecordError(
                    f"deal.{name} must hold {HAND_SIZE} cards, not {len(cards)}", f"deal.{name}"
                )
            hands.append([c for c in cards if c is not None])
        stack = _card_list(require(record, "stack", list), "stack", allow_unknown=False)
        deck = [c for h in hands for c in h] + [c for c in stack if c is not None]
        _check_counts(deck, "stack")
        if len(deck) != len(_box_without_start()):
            raise RecordError(
                f"deal and stack hold {len(deck)} cards; the box has "
                f"{len(_box_without_start())} besides the starting Elephant",
                "stack",
            )
        return self.deal_state(players, deck)

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a record (see scorer/grandioso/RECORDS.md).

        :raises RecordError: when the record is not valid (exit status 2).
        """
        state = self.initial_state(record)
        if record.get("game") not in (None, self.name, *self.aliases):
            raise RecordError(
                f"this is not a Circus Grandioso record: game is {record.get('game')!r}", "game"
            )
        texts = require(record, "moves", list)
        rows: list[dict[str, Any]] = []
        error: dict[str, Any] | None = None
        for i, text in enumerate(texts):
            where = f"moves[{i}]"
            if not isinstance(text, str):
                raise RecordError(f"{where} must be a move written as a string", where)
            try:
                move = self.parse_move(state, text)
            except UnknownComponent as exc:
                raise UnknownComponent(f"{where}: {exc}", where) from None
            except MalformedMove as exc:
                raise RecordError(f"{where}: {exc}", where) from None
            verdict = self.check(state, move)
            if verdict.is_illegal:
                error = {"index": i, "move": text, "reason": verdict.message}
                break
            seat = state.turn
            state, events = self.apply_unchecked(state, move)
            row: dict[str, Any] = {
                "index": i,
                "player": state.players[seat],
                "move": self.format_move(state, move),
                "events": [_event_json(state, e) for e in events],
            }
            if verdict.verdict is Verdict.UNVERIFIABLE:
                row["unverified"] = verdict.message
            rows.append(row)
        data: dict[str, Any] = {
            "game": self.name,
            "players": list(state.players),
            "finished": self.is_over(state),
            "end": None if state.end is None else state.end.value,
            "show_master": _seat_name(state, state.show_master),
            "winners": [state.players[s] for s in self.winners(state)]
            if self.is_over(state)
            else [],
            "scores": dict(zip(state.players, self.scores(state))),
            "moves": rows,
            "to_move": _seat_name(state, self.current_player(state)),
            "pyramid": self.state_to_json(state)["pyramid"],
        }
        if error is not None:
            data["error"] = error
        return ReplayReport(data, _report_text(state, data), illegal=error is not None)

    def simulate(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> dict[str, Any]:
        """Play random legal moves with full information and return the record.

        The player picks one kind of move at random (place, draw, exchange,
        lay down, pass), then one move of that kind, so games end in a sensible
        number of moves. ``hands`` and other options are ignored.
        """
        if not players:
            players = ("Ann", "Ben", "Cat")
        state = self.new_state(players, rng)
        record: dict[str, Any] = {
            "game": self.name,
            "players": list(players),
            "deal": {name: _names(h) for name, h in zip(players, state.hands)},
            "stack": _names(state.stack),
            "moves": [],
        }
        moves: list[str] = record["moves"]
        while state.phase is not Phase.OVER:
            move = self.random_move(state, rng)
            moves.append(format_move_text(move))
            state, _ = self.apply_unchecked(state, move)
        return record

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


# -- helpers -----------------------------------------------------------------


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]




def _candidates(kinds: Sequence[Card | None], slot: Slot) -> list[Card]:
    """The cards among ``kinds`` that fit ``slot`` (an unknown card could be any)."""
    out: list[Card] = []
    for kind in kinds:
        if kind is None:
            out += [c for c in (slot.animal, Card.CLOWN) if slot.takes(c) and c not in out]
        elif slot.takes(kind) and kind not in out:
            out.append(kind)
    return out


def _check_source(state: GrandiosoState, single: int | None) -> Check | None:
    if single is None:
        if not state.stack:
            return Check.illegal(
                Reason.EMPTY_SOURCE, "The stack is empty: take a hidden single card instead."
            )
        return None
    if not 0 <= single < len(state.singles):
        count = len(state.singles)
        have = "no hidden single cards" if count == 0 else f"only {count} hidden single card" + (
            "s" if count > 1 else ""
        )
        return Check.illegal(
            Reason.EMPTY_SOURCE,
            f"There is no hidden single card number {single + 1}: the table has {have}.",
        )
    return None


def _check_hand(state: GrandiosoState, card: Card | None, *, exchange: bool) -> Check:
    hand = state.hands[state.turn]
    if card is None:
        if None in hand:
            return Check.unverifiable("The referee can't see which card you laid down.")
        return Check.illegal(
            Reason.CARD_NOT_NAMED,
            "Say which of your cards you lay face down in the exchange.",
        )
    if card in hand:
        return LEGAL
    if None in hand:
        return Check.unverifiable(f"The referee can't see whether you hold {article(card)}.")
    verb = "exchange" if exchange else "place"
    return Check.illegal(Reason.NOT_IN_HAND, f"You can't {verb} {article(card)}: you don't hold one.")


def _take(
    state: GrandiosoState, single: int | None
) -> tuple[Card | None, tuple[Card | None, ...], tuple[Card | None, ...]]:
    if single is None:
        return state.stack[0], state.stack[1:], state.singles
    singles = state.singles
    return singles[single], state.stack, singles[:single] + singles[single + 1 :]


Hand = tuple[Card | None, ...]


def _set(hands: tuple[Hand, ...], seat: int, hand: Hand) -> tuple[Hand, ...]:
    return hands[:seat] + (hand,) + hands[seat + 1 :]


def _next_turn(state: GrandiosoState, *, reset: bool = True) -> GrandiosoState:
    return _evolve(
        state,
        turn=(state.turn + 1) % len(state.players),
        phase=Phase.PLAY,
        drawn=None,
        placed=False,
        passes=0 if reset else state.passes,
    )


def _end_event(state: GrandiosoState) -> Event:
    winners = Grandioso().winners(state)
    names = " and ".join(state.players[s] for s in winners)
    why = {
        EndReason.LAST_CARD: f"{state.players[state.turn]} placed their last card",
        EndReason.SEAL: f"{state.players[state.turn]} placed the Seal",
        EndReason.STALEMATE: "nobody could play any more",
        None: "",
    }[state.end]
    who = "the Show Master" if state.show_master is not None else "nobody holds the Show Master"
    verb = "wins" if len(winners) == 1 else "win"
    return Event("game over", (), f"Game over: {why}; {names} {verb} ({who}).")


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


def _report_text(state: GrandiosoState, data: Mapping[str, Any]) -> str:
    lines = [f"Circus Grandioso: {', '.join(state.players)}", ""]
    for row in data["moves"]:
        note = " ".join(e["text"] for e in row["events"])
        flag = "  (not verified)" if "unverified" in row else ""
        line = f"{row['index']:>4}  {row['player']:<10} {row['move']:<28}{note}{flag}"
        lines.append(line.rstrip())
    lines += ["", "Pyramid (row 0 = Elephants):", state.pyramid.draw(), ""]
    if "error" in data:
        err = data["error"]
        lines.append(f"Illegal move {err['index']} ({err['move']}): {err['reason']}")
    if data["finished"]:
        lines.append(f"Finished ({data['end']}). Winner(s): {', '.join(data['winners'])}.")
    else:
        lines.append(f"Not finished; {data['to_move']} to move.")
    lines.append(f"Show Master: {data['show_master'] or 'nobody'}")
    return "\n".join(lines)
