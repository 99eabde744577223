"""The Circus Flohcati rules engine (seed 003, DECISIONS.md §3).

A state holds the draw stack (top first), the row of turned cards, the
discard pile, every hand and every player's trios. There is no deal: every
card in a hand was once face up in the row, so the referee knows the stack's
make-up (``unseen``) even when it cannot see the stack's order. Unknown cards
are ``None``; checks that need one answer UNVERIFIABLE.

>>> import random
>>> game = Flohcati()
>>> state = game.new_state(["Ann", "Ben", "Cat"], random.Random(1))
>>> game.format_move(state, game.legal_moves(state)[0])
'turn'
>>> bust_probability(state)
Fraction(0, 1)
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from operator import attrgetter
from typing import Any, ClassVar

from scorer import register
from scorer.core import (
    LEGAL,
    Check,
    Event,
    Game,
    GameInfo,
    IllegalMove,
    MalformedMove,
    Outcome,
    RecordError,
    ReplayReport,
    UnknownComponent,
    Verdict,
)
from scorer.fields import boolean, json_list, one_of, player_names, require, whole_number
from scorer.flohcati.cards import (
    ACTION_COPIES,
    DECK,
    FLEAS,
    Action,
    Colour,
    DeckCard,
    Flea,
    card_name,
    parse_card,
)

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
    "bust_probability",
    "hand_points",
    "score_of",
]

TRIO_POINTS = 10


class Phase(enum.Enum):
    """Where the player to move stands in their turn."""

    #: Turn the next card, or stop and take a card from the row.
    TURNING = "turning"
    #: A colour repeat was turned under New attraction: take one card, the repeat included.
    MUST_TAKE = "must take"
    #: Take attraction was turned: take a card from an opponent.
    STEAL = "steal"
    #: Request attraction was turned: name a colour and a direction.
    REQUEST = "request"
    #: The turn is over: lay out trios, show all ten colours, or stop.
    WRAP_UP = "wrap up"
    OVER = "over"


class EndReason(enum.Enum):
    """How the game ended."""

    STACK_EMPTY = "stack empty"
    ALL_COLOURS = "all colours"


class Reason(enum.Enum):
    """Why a move is illegal."""

    GAME_OVER = "game over"
    WRONG_PHASE = "wrong phase"
    WRONG_CARD = "wrong card"
    CARD_NOT_NAMED = "card not named"
    NOT_IN_ROW = "not in row"
    NOT_AN_OPPONENT = "not an opponent"
    EMPTY_HAND = "empty hand"
    MUST_STEAL = "must steal"
    NOT_HELD = "not held"
    WRONG_GIVER = "wrong giver"
    NO_TRIO_NOW = "no trio now"
    NOT_A_TRIO = "not a trio"
    NOT_ALL_COLOURS = "not all colours"
    NOT_A_MOVE = "not a move"


@dataclass(frozen=True, slots=True)
class Turn:
    """Turn the top card of the stack. ``card`` names it when the referee saw it."""

    card: DeckCard | None = None


@dataclass(frozen=True, slots=True)
class Take:
    """Stop and take ``card`` from the row into the hand."""

    card: Flea


@dataclass(frozen=True, slots=True)
class Steal:
    """Take attraction: take ``card`` from ``victim`` (None, None when no opponent has a card).

    The card is the random one the player drew from the fanned hand; None when
    the referee could not see it.
    """

    victim: int | None
    card: Flea | None


@dataclass(frozen=True, slots=True)
class Request:
    """Request attraction: ask for ``colour`` clockwise or not; ``giver`` gives ``card``.

    ``giver`` and ``card`` are None when nobody holds the colour; ``card`` is
    None when the referee could not see which card was given.
    """

    colour: Colour
    clockwise: bool
    giver: int | None
    card: Flea | None


@dataclass(frozen=True, slots=True)
class Trio:
    """Lay out three cards of one value (sorted by colour)."""

    cards: tuple[Flea, Flea, Flea]


@dataclass(frozen=True, slots=True)
class Show:
    """End the game by showing all ten colours in hand."""


@dataclass(frozen=True, slots=True)
class Stop:
    """End the turn (after laying trios, or instead of showing)."""


_TURN = Turn()

FlohcatiMove = Turn | Take | Steal | Request | Trio | Show | Stop
Hand = tuple[Flea | None, ...]
TrioCards = tuple[Flea, Flea, Flea]


@dataclass(frozen=True, slots=True)
class FlohcatiState:
    """One moment of a game. Hands are sorted; ``None`` is a card the referee can't see."""

    players: tuple[str, ...]
    #: The draw stack, top card first.
    stack: tuple[DeckCard | None, ...]
    #: The flea cards not yet turned face up: the stack's fleas, known even when its order is not.
    unseen: frozenset[Flea]
    hands: tuple[Hand, ...]
    trios: tuple[tuple[TrioCards, ...], ...]
    #: The row of turned cards, in the order they were turned.
    display: tuple[Flea, ...] = ()
    #: A colour repeat turned under New attraction, waiting for the take.
    repeat: Flea | None = None
    discard: tuple[DeckCard, ...] = ()
    turn: int = 0
    phase: Phase = Phase.TURNING
    #: New attraction is in force for the rest of this turn.
    attraction: bool = False
    #: The player to move gained a card this turn (they may lay out trios).
    gained: bool = False
    end: EndReason | None = None
    #: The player who ended the game by showing all ten colours.
    ender: int | None = None
    #: Points for ending the game with all ten colours (0 in the seed, 10 in the Amigo edition).
    gala_bonus: int = 0


_STATE_FIELDS = tuple(f.name for f in fields(FlohcatiState))
_STATE_INDEX = {name: i for i, name in enumerate(_STATE_FIELDS)}
_state_values = attrgetter(*_STATE_FIELDS)


def _evolve(state: FlohcatiState, **changes: Any) -> FlohcatiState:
    """`dataclasses.replace` without its checks (it is the simulation's hot spot)."""
    values = list(_state_values(state))
    for name, value in changes.items():
        values[_STATE_INDEX[name]] = value
    return FlohcatiState(*values)


# -- scoring -------------------------------------------------------------------


def hand_points(hand: Sequence[Flea | None]) -> int:
    """The highest card of each colour in hand, added up (unknown cards count nothing).

    >>> hand_points([Flea.parse("red-6"), Flea.parse("red-2"), Flea.parse("blue-0")])
    6
    """
    best: dict[Colour, int] = {}
    for card in hand:
        if card is not None and card.value >= best.get(card.colour, 0):
            best[card.colour] = card.value
    return sum(best.values())


def score_of(hand: Sequence[Flea | None], trios: int, gala: int = 0) -> int:
    """10 per trio, plus `hand_points`, plus any gala bonus."""
    return TRIO_POINTS * trios + hand_points(hand) + gala


def _colours(hand: Sequence[Flea | None]) -> set[Colour]:
    return {c.colour for c in hand if c is not None}


def _has_trio(hand: Sequence[Flea | None]) -> bool:
    counts = [0] * 8
    for card in hand:
        if card is not None:
            counts[card.value] += 1
    return max(counts) >= 3


def bust_probability(state: FlohcatiState) -> Fraction:
    """The exact chance that the next card turned busts the player to move.

    The next card is equally likely to be any card not yet seen (the stack's
    make-up is public: every other card has been face up). It busts when it
    is a flea of a colour already in the row, New attraction is not in force,
    and it is not the stack's last card (which ends the game instead).

    >>> import random
    >>> s = Flohcati().new_state(["Ann", "Ben", "Cat"], random.Random(0))
    >>> bust_probability(s)
    Fraction(0, 1)
    """
    if state.phase is not Phase.TURNING or state.attraction or len(state.stack) <= 1:
        return Fraction(0)
    colours = {c.colour for c in state.display}
    busting = sum(1 for f in state.unseen if f.colour in colours)
    return Fraction(busting, len(state.stack))


# -- helpers ---------------------------------------------------------------------


def _sorted_hand(cards: Sequence[Flea | None]) -> Hand:
    return tuple(sorted(cards, key=lambda c: 999 if c is None else c.index))


_BY_INDEX = attrgetter("index")


def _has_unknown(hand: Hand) -> bool:
    """True when the hand holds a card the referee can't see (unknown cards sort last)."""
    return bool(hand) and hand[-1] is None


def _add(hand: Hand, card: Flea | None) -> Hand:
    if card is None or _has_unknown(hand):
        return _sorted_hand(hand + (card,))
    return tuple(sorted(hand + (card,), key=_BY_INDEX))


def _remove(hand: Hand, card: Flea | None) -> Hand:
    """The hand less ``card``; less an unknown card when ``card`` is not known to be there."""
    try:
        i = hand.index(card)
    except ValueError:
        i = hand.index(None)
    return hand[:i] + hand[i + 1 :]


def _set(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return items[:i] + (value,) + items[i + 1 :]




def _holds_colour(hand: Hand, colour: Colour) -> bool:
    return any(c is not None and c.colour is colour for c in hand)


def _opponents(state: FlohcatiState, clockwise: bool) -> list[int]:
    n, seat = len(state.players), state.turn
    step = 1 if clockwise else -1
    return [(seat + step * k) % n for k in range(1, n)]


def _giver(state: FlohcatiState, colour: Colour, clockwise: bool) -> tuple[int | None, bool]:
    """The first opponent in that direction known to hold ``colour``, and whether it is certain."""
    for seat in _opponents(state, clockwise):
        hand = state.hands[seat]
        if _holds_colour(hand, colour):
            return seat, True
        if _has_unknown(hand):
            return None, False
    return None, True


_PHASE_HELP = {
    Phase.TURNING: "Turn the next card or take one from the row first: a turn can't be empty.",
    Phase.MUST_TAKE: "A colour repeated under New attraction: take one card from the row "
    "(the repeat included), or stop and take nothing.",
    Phase.STEAL: "You turned Take attraction: choose an opponent and take one of their cards.",
    Phase.REQUEST: "You turned Request attraction: name a colour and a direction.",
    Phase.WRAP_UP: "Your turn is over: lay out a trio, show all ten colours, or stop.",
    Phase.OVER: "The game is over.",
}


@register
class Flohcati(Game[FlohcatiState, FlohcatiMove]):
    """Circus Flohcati (Reiner Knizia): collect fleas, one of each colour, and trios."""

    name: ClassVar[str] = "flohcati"
    aliases: ClassVar[tuple[str, ...]] = ("circus-flohcati",)
    info: ClassVar[GameInfo] = GameInfo(
        title="Circus Flohcati",
        min_players=2,
        max_players=5,
        hidden_information=True,
        score_unit="points",
    )
    #: Player count when none is given.
    default_players: ClassVar[int] = 3

    # -- state ----------------------------------------------------------------

    def new_state(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> FlohcatiState:
        """Shuffle the 89 cards into the draw stack. Option ``gala_bonus`` (default 0)."""
        _players(list(players), "players", self.info)
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
        phase = state.phase
        seat = state.turn
        moves: list[FlohcatiMove] = []
        if phase is Phase.TURNING:
            if state.stack[0] is not None:
                moves.append(Turn())
            else:
                moves += [Turn(c) for c in _possible_next(state)]
            moves += [Take(c) for c in state.display]
        elif phase is Phase.MUST_TAKE:
            moves += [Take(c) for c in state.display]
            if state.repeat is not None:
                moves.append(Take(state.repeat))
            # [DECISION] the seed says the player "may" take one card: stop takes none.
            moves.append(Stop())
        elif phase is Phase.STEAL:
            for victim in _opponents(state, True):
                for card in dict.fromkeys(state.hands[victim]):
                    moves.append(Steal(victim, card))
            if not moves:
                moves.append(Steal(None, None))
        elif phase is Phase.REQUEST:
            for colour in Colour:
                for clockwise in (True, False):
                    giver, _ = _giver(state, colour, clockwise)
                    if giver is None:
                        moves.append(Request(colour, clockwise, None, None))
                        continue
                    for card in state.hands[giver]:
                        if card is not None and card.colour is colour:
                            moves.append(Request(colour, clockwise, giver, card))
        elif phase is Phase.WRAP_UP:
            hand = state.hands[seat]
            if state.gained:
                moves += [Trio(t) for t in _trios_in(hand)]
            if len(_colours(hand)) == len(Colour):
                moves.append(Show())
            moves.append(Stop())
        return moves

    def check(self, state: FlohcatiState, move: FlohcatiMove) -> Check:
        """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE. Never raises."""
        try:
            return self._check(state, move)
        except Exception as exc:  # noqa: BLE001 - the contract says never raise
            return Check.illegal(Reason.NOT_A_MOVE, f"That is not a Circus Flohcati move ({exc}).")

    def _check(self, state: FlohcatiState, move: FlohcatiMove) -> Check:
        phase = state.phase
        if phase is Phase.OVER:
            return Check.illegal(Reason.GAME_OVER, "The game is over: no more cards can be turned.")
        wanted = {
            Turn: (Phase.TURNING,),
            Take: (Phase.TURNING, Phase.MUST_TAKE),
            Steal: (Phase.STEAL,),
            Request: (Phase.REQUEST,),
            Trio: (Phase.WRAP_UP,),
            Show: (Phase.WRAP_UP,),
            Stop: (Phase.WRAP_UP, Phase.MUST_TAKE),
        }.get(type(move))
        if wanted is None:
            return Check.illegal(Reason.NOT_A_MOVE, "That is not a Circus Flohcati move.")
        if phase not in wanted:
            return Check.illegal(Reason.WRONG_PHASE, _PHASE_HELP[phase])
        if isinstance(move, Turn):
            return _check_turn(state, move)
        if isinstance(move, Take):
            if move.card in state.display or (
                phase is Phase.MUST_TAKE and move.card == state.repeat
            ):
                return LEGAL
            return Check.illegal(
                Reason.NOT_IN_ROW,
                f"The {move.card.label} is not in the row of turned cards: take one that is.",
            )
        if isinstance(move, Steal):
            return _check_steal(state, move)
        if isinstance(move, Request):
            return _check_request(state, move)
        if isinstance(move, Trio):
            return _check_trio(state, move)
        if isinstance(move, Show):
            hand = state.hands[state.turn]
            missing = [c.value for c in Colour if c not in _colours(hand)]
            if not missing:
                return LEGAL
            if _has_unknown(hand):
                return Check.unverifiable("Some of your cards are hidden from the referee.")
            return Check.illegal(
                Reason.NOT_ALL_COLOURS,
                f"You can end the game only with all ten colours in hand; you have no "
                f"{', '.join(missing)} flea.",
            )
        return LEGAL  # Stop

    def apply_unchecked(
        self, state: FlohcatiState, move: FlohcatiMove
    ) -> tuple[FlohcatiState, tuple[Event, ...]]:
        """Play a move without checking it."""
        seat = state.turn
        name = state.players[seat]
        if isinstance(move, Turn):
            return self._apply_turn(state, move)
        if isinstance(move, Take):
            card = move.card
            display = state.display
            if card in display:
                i = display.index(card)
                display = display[:i] + display[i + 1 :]
            discard = state.discard
            if state.repeat is not None and state.repeat != card:
                discard += (state.repeat,)
            new = FlohcatiState(
                state.players, state.stack, state.unseen,
                _set(state.hands, seat, _add(state.hands[seat], card)), state.trios, display,
                None, discard, seat, state.phase, state.attraction, True, None, None,
                state.gala_bonus,
            )
            return self._end_turn(new, (Event("took", (), f"{name} takes the {card.label}."),))
        if isinstance(move, Steal):
            if move.victim is None:
                return self._end_turn(
                    state, (Event("took", (), f"{name} finds no opponent with a card."),)
                )
            victim = state.hands[move.victim]
            if move.card is None:
                victim = (None,) * (len(victim) - 1)
            else:
                victim = _remove(victim, move.card)
            hands = _set(state.hands, move.victim, victim)
            hands = _set(hands, seat, _add(hands[seat], move.card))
            text = f"{name} takes a card from {state.players[move.victim]}."
            new = _evolve(state, hands=hands, gained=True)
            return self._end_turn(new, (Event("took", (), text),))
        if isinstance(move, Request):
            if move.giver is None:
                text = f"Nobody holds a {move.colour.value} flea: {name} gets nothing."
                return self._end_turn(state, (Event("request", (), text),))
            giver = state.hands[move.giver]
            if move.card is None:
                # The given card is one of the giver's cards of that colour or unknown ones.
                keep = tuple(c for c in giver if c is not None and c.colour is not move.colour)
                giver = _sorted_hand(keep + (None,) * (len(giver) - 1 - len(keep)))
            else:
                giver = _remove(giver, move.card)
            hands = _set(state.hands, move.giver, giver)
            hands = _set(hands, seat, _add(hands[seat], move.card))
            text = f"{state.players[move.giver]} gives {name} a {move.colour.value} flea."
            return self._end_turn(
                _evolve(state, hands=hands, gained=True), (Event("request", (), text),)
            )
        if isinstance(move, Trio):
            hand = state.hands[seat]
            for card in move.cards:
                hand = _remove(hand, card)
            trios = _set(state.trios, seat, state.trios[seat] + (move.cards,))
            new = _evolve(state, hands=_set(state.hands, seat, hand), trios=trios)
            event = Event(
                "trio",
                ((seat, TRIO_POINTS),),
                f"{name} lays out a trio of {move.cards[0].value}s: {TRIO_POINTS} points.",
            )
            if self._wrap_up_options(new):
                return new, (event,)
            return self._next_player(new), (event,)
        if isinstance(move, Show):
            over = _evolve(state, phase=Phase.OVER, end=EndReason.ALL_COLOURS, ender=seat)
            first = Event("all colours", (), f"{name} shows all ten colours and ends the game.")
            return over, (first,) + self._final_events(over)
        if state.phase is Phase.MUST_TAKE:  # Stop: the repeat is discarded, nothing taken
            assert state.repeat is not None
            label = state.repeat.label
            new = _evolve(state, repeat=None, discard=state.discard + (state.repeat,), phase=Phase.TURNING)
            return self._end_turn(new, (Event("took", (), f"{name} takes nothing; the {label} is discarded."),))
        return self._next_player(state), ()  # Stop

    def _apply_turn(
        self, state: FlohcatiState, move: Turn
    ) -> tuple[FlohcatiState, tuple[Event, ...]]:
        name = state.players[state.turn]
        top = state.stack[0]
        card = top if top is not None else move.card
        if card is None:
            raise IllegalMove(
                Reason.CARD_NOT_NAMED, "Say which card was turned: the referee can't see the stack."
            )
        stack = state.stack[1:]
        unseen = state.unseen - {card} if isinstance(card, Flea) else state.unseen
        label = card.label
        turned = Event("turned", (), f"{name} turns the {label}.")
        if not stack:
            over = _evolve(
                state,
                stack=stack,
                unseen=unseen,
                discard=state.discard + (card,),
                phase=Phase.OVER,
                end=EndReason.STACK_EMPTY,
            )
            last = Event("stack empty", (), f"The {label} was the last card: the game ends.")
            return over, (turned, last) + self._final_events(over)
        if isinstance(card, Action):
            new = _evolve(state, stack=stack, discard=state.discard + (card,))
            if state.attraction:
                return new, (turned,)
            if card is Action.NEW:
                return _evolve(new, attraction=True), (turned,)
            phase = Phase.STEAL if card is Action.TAKE else Phase.REQUEST
            return _evolve(new, phase=phase), (turned,)
        colour = card.colour
        for shown in state.display:
            if shown.colour is colour:
                break
        else:
            return FlohcatiState(
                state.players, stack, unseen, state.hands, state.trios, state.display + (card,),
                None, state.discard, state.turn, Phase.TURNING, state.attraction, state.gained,
                None, None, state.gala_bonus,
            ), (turned,)
        # A colour repeat: a bust, unless New attraction is in force.
        if state.attraction:
            new = _evolve(state, stack=stack, unseen=unseen, repeat=card, phase=Phase.MUST_TAKE)
            return new, (turned,)
        new = _evolve(state, stack=stack, unseen=unseen, discard=state.discard + (card,))
        bust = Event("bust", (), f"A second {colour.value} flea: {name}'s turn ends.")
        return self._end_turn(new, (turned, bust))

    def _wrap_up_options(self, state: FlohcatiState) -> bool:
        hand = state.hands[state.turn]
        if len(hand) < 3:
            return False
        if _has_unknown(hand):
            return True
        if state.gained and _has_trio(hand):
            return True
        return len(hand) >= len(Colour) and len(_colours(hand)) == len(Colour)

    def _end_turn(
        self, state: FlohcatiState, events: tuple[Event, ...]
    ) -> tuple[FlohcatiState, tuple[Event, ...]]:
        if self._wrap_up_options(state):
            return _evolve(state, phase=Phase.WRAP_UP), events
        return self._next_player(state), events

    def _next_player(self, state: FlohcatiState) -> FlohcatiState:
        return FlohcatiState(
            state.players, state.stack, state.unseen, state.hands, state.trios, state.display,
            state.repeat, state.discard, (state.turn + 1) % len(state.players), Phase.TURNING,
            False, False, state.end, state.ender, state.gala_bonus,
        )

    def _final_events(self, state: FlohcatiState) -> tuple[Event, ...]:
        events = []
        for seat, hand in enumerate(state.hands):
            events.append(
                Event(
                    "hand scored",
                    ((seat, hand_points(hand)),),
                    f"{state.players[seat]} scores {hand_points(hand)} for the hand.",
                )
            )
        if state.ender is not None and state.gala_bonus:
            events.append(
                Event(
                    "gala show",
                    ((state.ender, state.gala_bonus),),
                    f"{state.players[state.ender]} earns the gala bonus of {state.gala_bonus}.",
                )
            )
        return tuple(events)

    # -- notation and JSON -------------------------------------------------------

    def parse_move(self, state: FlohcatiState, text: str) -> FlohcatiMove:
        """Read a move: ``turn``, ``turn red-5``, ``take red-5``, ``steal Ben red-5``,
        ``steal Ben ?``, ``steal nobody``, ``request red clockwise from Ben red-5``,
        ``request red counterclockwise nobody``, ``trio red-3 blue-3 grey-3``,
        ``show`` or ``stop``.

        :raises MalformedMove: when the text is not a Flohcati move.
        """
        return _parse(state, text)

    def format_move(self, state: FlohcatiState, move: FlohcatiMove) -> str:
        """Write a move in the notation `parse_move` reads."""
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

    def state_to_json(self, state: FlohcatiState) -> dict[str, Any]:
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

    def state_from_json(self, data: Mapping[str, Any]) -> FlohcatiState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when a field is missing, of the wrong type or impossible.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a Circus Flohcati state must be a JSON object", "state")
        players = _players(data.get("players"), "players", self.info)
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

    # -- records ----------------------------------------------------------------

    def initial_state(self, record: Mapping[str, Any]) -> FlohcatiState:
        """The opening state a record describes (full information when it has the stack).

        :raises RecordError: when the record is not valid.
        """
        if not isinstance(record, Mapping):
            raise RecordError("a game record must be a JSON object", "record")
        if record.get("game") not in (None, self.name, *self.aliases):
            raise RecordError(
                f"this is not a Circus Flohcati record: game is {record.get('game')!r}", "game"
            )
        players = _players(record.get("players"), "players", self.info)
        gala = whole_number(record.get("gala_bonus", 0), "gala_bonus", lo=0, hi=1000)
        if "stack" not in record:
            return self.public_state(players, gala_bonus=gala)
        cards = [_card(c, f"stack[{i}]") for i, c in enumerate(require(record, "stack", list))]
        _check_no_duplicates(cards, "stack")
        if len(cards) != len(DECK):
            raise RecordError(
                f"stack must hold all {len(DECK)} cards of the box, not {len(cards)}", "stack"
            )
        return self.stack_state(players, cards, gala_bonus=gala)

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a record (see scorer/flohcati/RECORDS.md).

        :raises RecordError: when the record is not valid (exit status 2).
        """
        state = self.initial_state(record)
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
            before = state
            state, events = self.apply_unchecked(state, move)
            row: dict[str, Any] = {
                "index": i,
                "player": before.players[before.turn],
                "move": self.format_move(before, move),
                "events": [
                    {
                        "what": e.what,
                        "points": {state.players[s]: a for s, a in e.points_by_seat().items()},
                        "text": e.text,
                    }
                    for e in events
                ],
            }
            if isinstance(move, Turn):
                top = before.stack[0]
                shown = top if top is not None else move.card
                row["card"] = None if shown is None else card_name(shown)
            if verdict.verdict is Verdict.UNVERIFIABLE:
                row["unverified"] = verdict.message
            rows.append(row)
        over = self.is_over(state)
        scores = self.scores(state)
        outcome = self.outcome(state)
        data: dict[str, Any] = {
            "game": self.name,
            "players": list(state.players),
            "finished": over,
            "end": None if state.end is None else state.end.value,
            "moves": rows,
            "scores": dict(zip(state.players, scores)),
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
        if error is not None:
            data["error"] = error
        return ReplayReport(data, _replay_text(data), illegal=error is not None)

    def simulate(
        self, players: Sequence[str], rng: random.Random, **options: Any
    ) -> dict[str, Any]:
        """Play random legal moves with full information and return the record.

        Take attraction draws the opponent, then the card, from ``rng``. Option
        ``gala_bonus`` is written into the record; ``hands`` is ignored.
        """
        if not players:
            players = ("Ann", "Ben", "Cat")[: self.default_players]
        gala = int(options.get("gala_bonus") or 0)
        state = self.new_state(players, rng, gala_bonus=gala)
        record: dict[str, Any] = {
            "game": self.name,
            "players": list(players),
            "stack": [card_name(c) for c in state.stack if c is not None],
            "moves": [],
        }
        if gala:
            record["gala_bonus"] = gala
        moves: list[str] = record["moves"]
        while state.phase is not Phase.OVER:
            move = self.random_move(state, rng)
            moves.append(self.format_move(state, move))
            state, _ = self.apply_unchecked(state, move)
        return record

    def random_move(self, state: FlohcatiState, rng: random.Random) -> FlohcatiMove:
        """A random legal move; Take attraction picks an opponent, then one of their cards."""
        if state.phase is Phase.STEAL:
            victims = [s for s in _opponents(state, True) if state.hands[s]]
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

        The format is in scorer/flohcati/RECORDS.md.

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
            hand = [_flea(c, f"{where}.hand[{i}]") for i, c in enumerate(hand_data)]
            trios = [_trio(t, f"{where}.trios[{k}]") for k, t in enumerate(trios_data)]
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
        _check_no_duplicates(every, "players")
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


# -- checks ------------------------------------------------------------------------


def _possible_next(state: FlohcatiState) -> list[DeckCard]:
    """Every card the unknown top of the stack could be."""
    fleas: list[Flea] = sorted(state.unseen, key=lambda f: f.index)
    out: list[DeckCard] = list(fleas)
    actions = len(state.stack) - len(state.unseen)
    if actions > 0:
        out += [a for a in Action if state.discard.count(a) < ACTION_COPIES]
    return out


def _check_turn(state: FlohcatiState, move: Turn) -> Check:
    top = state.stack[0]
    card = move.card
    if top is not None:
        if card is None or card == top:
            return LEGAL
        return Check.illegal(
            Reason.WRONG_CARD,
            f"The card on top of the stack is not the {card.label}: turn the top card.",
        )
    if card is None:
        return Check.illegal(
            Reason.CARD_NOT_NAMED, "Say which card was turned: the referee can't see the stack."
        )
    if card not in _possible_next(state):
        return Check.illegal(
            Reason.WRONG_CARD,
            f"The {card.label} has already been turned up: it can't still be in the stack.",
        )
    return Check.unverifiable("The order of the stack is hidden from the referee.")


def _check_steal(state: FlohcatiState, move: Steal) -> Check:
    seat = state.turn
    holders = [s for s in _opponents(state, True) if state.hands[s]]
    if move.victim is None:
        if holders:
            return Check.illegal(
                Reason.MUST_STEAL,
                f"{state.players[holders[0]]} holds cards: you must take one from an opponent.",
            )
        return LEGAL
    victim = move.victim
    if not 0 <= victim < len(state.players) or victim == seat:
        return Check.illegal(Reason.NOT_AN_OPPONENT, "Take the card from one of your opponents.")
    hand = state.hands[victim]
    if not hand:
        return Check.illegal(
            Reason.EMPTY_HAND,
            f"{state.players[victim]} has no cards: choose an opponent who holds some.",
        )
    if move.card is None:
        if _has_unknown(hand):
            return Check.unverifiable("The referee can't see which card was taken.")
        return Check.illegal(Reason.CARD_NOT_NAMED, "Say which card was taken.")
    if move.card in hand:
        return LEGAL
    if _has_unknown(hand):
        return Check.unverifiable(f"The referee can't see whether {state.players[victim]} held it.")
    return Check.illegal(
        Reason.NOT_HELD, f"{state.players[victim]} does not hold the {move.card.label}."
    )


def _check_request(state: FlohcatiState, move: Request) -> Check:
    colour = move.colour.value
    if move.giver is not None and (
        not 0 <= move.giver < len(state.players) or move.giver == state.turn
    ):
        return Check.illegal(Reason.NOT_AN_OPPONENT, "Only an opponent can give you the card.")
    giver, certain = _giver(state, move.colour, move.clockwise)
    if not certain:
        return Check.unverifiable("The referee can't see who holds that colour.")
    way = "clockwise" if move.clockwise else "counterclockwise"
    if giver is None:
        if move.giver is None:
            return LEGAL
        return Check.illegal(
            Reason.WRONG_GIVER,
            f"{state.players[move.giver]} holds no {colour} flea, so they can't give one.",
        )
    if move.giver != giver:
        return Check.illegal(
            Reason.WRONG_GIVER,
            f"{state.players[giver]} is the first player {way} with a {colour} flea: "
            f"{state.players[giver]} must give it.",
        )
    hand = state.hands[giver]
    if move.card is None:
        if _has_unknown(hand):
            return Check.unverifiable("The referee can't see which card was given.")
        return Check.illegal(Reason.CARD_NOT_NAMED, "Say which card was given.")
    if move.card.colour is not move.colour or move.card not in hand:
        if _has_unknown(hand) and move.card.colour is move.colour:
            return Check.unverifiable("The referee can't see which card was given.")
        return Check.illegal(
            Reason.NOT_HELD,
            f"{state.players[giver]} must give a {colour} flea they hold, "
            f"not the {move.card.label}.",
        )
    return LEGAL


def _check_trio(state: FlohcatiState, move: Trio) -> Check:
    if not state.gained:
        return Check.illegal(
            Reason.NO_TRIO_NOW,
            "You can lay out a trio only in a turn in which you gained a card.",
        )
    cards = move.cards
    if len(set(cards)) != 3 or len({c.value for c in cards}) != 1:
        return Check.illegal(Reason.NOT_A_TRIO, "A trio is three different cards of the same value.")
    hand = state.hands[state.turn]
    missing = [c for c in cards if c not in hand]
    if not missing:
        return LEGAL
    if hand.count(None) >= len(missing):
        return Check.unverifiable("Some of your cards are hidden from the referee.")
    return Check.illegal(Reason.NOT_HELD, f"You don't hold the {missing[0].label}.")


def _trios_in(hand: Hand) -> list[TrioCards]:
    by_value: dict[int, list[Flea]] = {}
    for card in hand:
        if card is not None:
            by_value.setdefault(card.value, []).append(card)
    out: list[TrioCards] = []
    for cards in by_value.values():
        n = len(cards)
        for i in range(n):
            for j in range(i + 1, n):
                for k in range(j + 1, n):
                    out.append((cards[i], cards[j], cards[k]))
    return out


# -- notation -------------------------------------------------------------------------

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


def _parse(state: FlohcatiState, text: str) -> FlohcatiMove:
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


def _replay_text(data: Mapping[str, Any]) -> str:
    lines = [f"Circus Flohcati: {', '.join(data['players'])}", ""]
    for row in data["moves"]:
        note = " ".join(e["text"] for e in row["events"])
        flag = "  (not verified)" if "unverified" in row else ""
        line = f"{row['index']:>4}  {row['player']:<10} {row['move']:<32}{note}{flag}"
        lines.append(line.rstrip())
    lines.append("")
    if "error" in data:
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
