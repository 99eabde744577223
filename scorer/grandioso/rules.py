"""Circus Grandioso's rules: open slots, legal moves, checks and playing a move (docs/rules.md §2)."""

from __future__ import annotations

from collections.abc import Sequence

from scorer.core import LEGAL, Check, Event
from scorer.grandioso import scoring
from scorer.grandioso.model import (
    Draw,
    EndReason,
    Exchange,
    GrandiosoMove,
    GrandiosoState,
    Hand,
    LayDown,
    Pass,
    Phase,
    Place,
    Reason,
    _evolve,
    _sorted,
    _without,
)
from scorer.grandioso.pyramid import Card, Side, Slot, article

__all__ = ["apply_move", "check_move", "legal_moves", "legal_slots"]


def legal_slots(state: GrandiosoState) -> tuple[Slot, ...]:
    """The slots a card may go into now, each with the animal it takes (for teaching).

    >>> import random
    >>> from scorer.grandioso import Grandioso
    >>> s = Grandioso().new_state(["Ann", "Ben"], random.Random(0))
    >>> [(x.row, x.col, x.animal.label) for x in legal_slots(s)]
    [(0, -1, 'Elephant'), (0, 1, 'Elephant')]
    """
    if state.phase is Phase.OVER:
        return ()
    return state.pyramid.open_slots()


# -- moves ----------------------------------------------------------------


def legal_moves(state: GrandiosoState) -> list[GrandiosoMove]:
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


def check_move(state: GrandiosoState, move: GrandiosoMove) -> Check:
    """LEGAL, ILLEGAL with a reason and a sentence, or UNVERIFIABLE."""
    try:
        return _check(state, move)
    except Exception as exc:  # noqa: BLE001 - the contract says never raise
        return Check.illegal(Reason.NOT_A_MOVE, f"That is not a Circus Grandioso move ({exc}).")


def _check(state: GrandiosoState, move: GrandiosoMove) -> Check:
    if state.phase is Phase.OVER:
        return Check.illegal(Reason.GAME_OVER, "The game is over: no more cards can be played.")
    if isinstance(move, Place):
        return _check_place(state, move)
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
        return _check_pass(state)
    return Check.illegal(Reason.NOT_A_MOVE, "That is not a Circus Grandioso move.")


def _check_place(state: GrandiosoState, move: Place) -> Check:
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


def _check_pass(state: GrandiosoState) -> Check:
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


def apply_move(
    state: GrandiosoState, move: GrandiosoMove
) -> tuple[GrandiosoState, tuple[Event, ...]]:
    """Play a move without checking it."""
    seat = state.turn
    if isinstance(move, Place):
        return _apply_place(state, move)
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
    state: GrandiosoState, move: Place
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


# -- helpers ----------------------------------------------------------------


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
    winners = scoring.winners(state)
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
