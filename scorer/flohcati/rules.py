"""Circus Flohcati's rules: legal moves, checks and playing a move (docs/rules.md §3.2)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from scorer.core import LEGAL, Check, Event, IllegalMove
from scorer.flohcati.cards import ACTION_COPIES, Action, Colour, DeckCard, Flea
from scorer.flohcati.model import (
    TRIO_POINTS,
    EndReason,
    FlohcatiMove,
    FlohcatiState,
    Hand,
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
from scorer.flohcati.scoring import _colours, _has_trio, _trios_in, hand_points

__all__ = ["apply_move", "check_move", "legal_moves"]


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


# -- moves -------------------------------------------------------------------


def legal_moves(state: FlohcatiState) -> list[FlohcatiMove]:
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


def check_move(state: FlohcatiState, move: FlohcatiMove) -> Check:
    """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE. Never raises."""
    try:
        return _check(state, move)
    except Exception as exc:  # noqa: BLE001 - the contract says never raise
        return Check.illegal(Reason.NOT_A_MOVE, f"That is not a Circus Flohcati move ({exc}).")


def _check(state: FlohcatiState, move: FlohcatiMove) -> Check:
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


def apply_move(
    state: FlohcatiState, move: FlohcatiMove
) -> tuple[FlohcatiState, tuple[Event, ...]]:
    """Play a move without checking it."""
    seat = state.turn
    name = state.players[seat]
    if isinstance(move, Turn):
        return _apply_turn(state, move)
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
        return _end_turn(new, (Event("took", (), f"{name} takes the {card.label}."),))
    if isinstance(move, Steal):
        if move.victim is None:
            return _end_turn(
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
        return _end_turn(new, (Event("took", (), text),))
    if isinstance(move, Request):
        if move.giver is None:
            text = f"Nobody holds a {move.colour.value} flea: {name} gets nothing."
            return _end_turn(state, (Event("request", (), text),))
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
        return _end_turn(
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
        if _wrap_up_options(new):
            return new, (event,)
        return _next_player(new), (event,)
    if isinstance(move, Show):
        over = _evolve(state, phase=Phase.OVER, end=EndReason.ALL_COLOURS, ender=seat)
        first = Event("all colours", (), f"{name} shows all ten colours and ends the game.")
        return over, (first,) + _final_events(over)
    if state.phase is Phase.MUST_TAKE:  # Stop: the repeat is discarded, nothing taken
        assert state.repeat is not None
        label = state.repeat.label
        new = _evolve(state, repeat=None, discard=state.discard + (state.repeat,), phase=Phase.TURNING)
        return _end_turn(new, (Event("took", (), f"{name} takes nothing; the {label} is discarded."),))
    return _next_player(state), ()  # Stop


def _apply_turn(
    state: FlohcatiState, move: Turn
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
        return over, (turned, last) + _final_events(over)
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
    return _end_turn(new, (turned, bust))


def _wrap_up_options(state: FlohcatiState) -> bool:
    hand = state.hands[state.turn]
    if len(hand) < 3:
        return False
    if _has_unknown(hand):
        return True
    if state.gained and _has_trio(hand):
        return True
    return len(hand) >= len(Colour) and len(_colours(hand)) == len(Colour)


def _end_turn(
    state: FlohcatiState, events: tuple[Event, ...]
) -> tuple[FlohcatiState, tuple[Event, ...]]:
    if _wrap_up_options(state):
        return _evolve(state, phase=Phase.WRAP_UP), events
    return _next_player(state), events


def _next_player(state: FlohcatiState) -> FlohcatiState:
    return FlohcatiState(
        state.players, state.stack, state.unseen, state.hands, state.trios, state.display,
        state.repeat, state.discard, (state.turn + 1) % len(state.players), Phase.TURNING,
        False, False, state.end, state.ender, state.gala_bonus,
    )


def _final_events(state: FlohcatiState) -> tuple[Event, ...]:
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
