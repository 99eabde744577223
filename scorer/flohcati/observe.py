"""What a Circus Flohcati table shows, and which move explains a change (pure; used by the live referee).

The camera sees public things only: the row of turned fleas in order, the
action cards turned so far (and where a Request attraction card lies on the
request strip), and the cards face up in each seat's zone (trios, a card shown
after an action card, the hands laid open at the end). Hands are hidden.

Table conventions the inference relies on (docs: README "At the table"):

* a flea turned goes to the right end of the row; a busted card is turned
  into the row first (the referee calls the bust), then discarded face down;
* an action card turned goes to the action lane, a Request attraction card
  onto the colour asked for on the request strip (turned sideways when nobody
  holds that colour);
* after Take attraction the card drawn from an opponent, and after Request
  attraction the card given, is shown face up in the mover's seat zone, then
  taken into the hand;
* a trio is laid face up in the mover's zone; to end the game with all ten
  colours the mover lays the whole hand open there;
* the end of a turn that needs a decision (the engine's wrap-up), taking
  nothing after a repeat, or naming the opponent a card was drawn from when
  the card cannot tell, is a press of a seat button (`seat_move`).

`infer` never guesses: a view that no single move explains is UNEXPLAINED,
with a sentence saying what the referee sees.
"""

from __future__ import annotations

import enum
import itertools
from collections import Counter
from dataclasses import dataclass, field

from scorer.flohcati.cards import Action, Colour, Flea
from scorer.flohcati.model import (
    FlohcatiMove,
    FlohcatiState,
    Phase,
    Request,
    Show,
    Steal,
    Stop,
    Take,
    Trio,
    Turn,
)
from scorer.flohcati.rules import _giver, _has_unknown, _opponents

__all__ = ["Found", "Inference", "TableSight", "infer", "laid_open", "seat_move"]


@dataclass(frozen=True, slots=True)
class TableSight:
    """One stable view of the table in the engine's terms.

    ``row``: the flea cards of the row, left to right. ``actions``: how many
    action cards of each kind lie in the lane and on the request strip.
    ``request``: the colour a Request card on the strip asks for, and whether it
    lies sideways (nobody holds the colour); None when no card is on the strip.
    ``zones[seat]``: the flea cards face up in each seat's zone.
    ``unrecognised``: things the referee could not read where cards belong.
    """

    row: tuple[Flea, ...]
    actions: tuple[tuple[Action, int], ...]
    zones: tuple[frozenset[Flea], ...]
    request: tuple[Colour, bool] | None = None
    unrecognised: tuple[str, ...] = field(default=())

    def action_count(self, kind: Action) -> int:
        """Action cards of ``kind`` on the table."""
        return dict(self.actions).get(kind, 0)


class Found(enum.Enum):
    """What a view means."""

    UNCHANGED = "unchanged"
    MOVE = "move"
    UNEXPLAINED = "unexplained"


@dataclass(frozen=True, slots=True)
class Inference:
    """`Found`, the move (for MOVE) and a sentence (for UNEXPLAINED)."""

    found: Found
    move: FlohcatiMove | None = None
    message: str = ""


_SAME = Inference(Found.UNCHANGED)


def _unexplained(text: str) -> Inference:
    return Inference(Found.UNEXPLAINED, message=text)


def _trio_cards(state: FlohcatiState, seat: int) -> set[Flea]:
    return {c for t in state.trios[seat] for c in t}


def laid_open(state: FlohcatiState, sight: TableSight, seat: int) -> frozenset[Flea]:
    """The cards face up in ``seat``'s zone that are not part of its trios."""
    if seat >= len(sight.zones):
        return frozenset()
    return sight.zones[seat] - _trio_cards(state, seat)


def _actions_turned(state: FlohcatiState) -> Counter[Action]:
    return Counter(c for c in state.discard if isinstance(c, Action))


def _new_action(state: FlohcatiState, sight: TableSight) -> tuple[Action | None, str]:
    """The one action card turned since ``state`` (None when none), or a sentence when the lane makes no sense."""
    known = _actions_turned(state)
    grown = [(a, sight.action_count(a) - known[a]) for a in Action]
    changed = [(a, d) for a, d in grown if d != 0]
    if not changed:
        return None, ""
    if len(changed) == 1 and changed[0][1] == 1:
        return changed[0][0], ""
    kinds = ", ".join(f"{a.label} {sight.action_count(a)}" for a in Action)
    return None, f"The referee counts action cards {kinds}, which one turn cannot explain."


def _live_row(state: FlohcatiState, sight: TableSight) -> tuple[Flea, ...]:
    """The row without busted cards that still lie there (they are already discarded)."""
    gone = {c for c in state.discard if isinstance(c, Flea)}
    return tuple(c for c in sight.row if c not in gone)


def _one_removed(before: tuple[Flea, ...], after: tuple[Flea, ...]) -> Flea | None:
    if len(after) != len(before) - 1:
        return None
    for i, card in enumerate(before):
        if before[:i] + before[i + 1:] == after:
            return card
    return None


def infer(state: FlohcatiState, sight: TableSight) -> Inference:
    """The one move that turns ``state`` into what ``sight`` shows, UNCHANGED, or UNEXPLAINED with a sentence."""
    if state.phase is Phase.OVER:
        return _SAME
    action, problem = _new_action(state, sight)
    if problem:
        return _unexplained(problem)
    row = _live_row(state, sight)
    phase = state.phase
    if phase in (Phase.TURNING, Phase.MUST_TAKE):
        shown = state.display + ((state.repeat,) if state.repeat is not None else ())
        if action is not None:
            if row != shown:
                return _unexplained("An action card was turned while the row changed too.")
            if phase is Phase.MUST_TAKE:
                return _unexplained("After a repeat, take a card from the row before turning another.")
            return Inference(Found.MOVE, Turn(action))
        if row == shown:
            return _SAME
        if phase is Phase.TURNING and len(row) == len(shown) + 1 and row[:-1] == shown:
            card = row[-1]
            if card not in state.unseen:
                return _unexplained(f"The {card.label} was turned up before: it cannot come from the stack.")
            return Inference(Found.MOVE, Turn(card))
        taken = _one_removed(shown, row)
        if taken is not None:
            return Inference(Found.MOVE, Take(taken))
        return _unexplained("The row changed in a way one turn or one take cannot explain.")
    if action is not None or row != state.display:
        return _unexplained(_PENDING[phase])
    seat = state.turn
    if phase is Phase.STEAL:
        return _steal(state, sight, seat)
    if phase is Phase.REQUEST:
        return _request(state, sight, seat)
    if phase is Phase.WRAP_UP:
        return _wrap_up(state, sight, seat)
    return _SAME


_PENDING = {
    Phase.STEAL: "Take attraction is waiting: show the card you drew in your zone before anything else.",
    Phase.REQUEST: "Request attraction is waiting: show the card given in your zone before anything else.",
    Phase.WRAP_UP: "The turn is not over: lay out a trio or press your button to end it first.",
}


def _new_in_zone(state: FlohcatiState, sight: TableSight, seat: int) -> frozenset[Flea]:
    """Cards face up in ``seat``'s zone that are neither in its trios nor known to be in its hand."""
    mine = set(state.hands[seat])
    return frozenset(c for c in laid_open(state, sight, seat) if c not in mine)


def _holders(state: FlohcatiState, card: Flea, seat: int) -> tuple[list[int], list[int]]:
    """Opponents known to hold ``card``, and opponents whose hands hold unseen cards."""
    known = [s for s in _opponents(state, True) if card in state.hands[s]]
    hidden = [s for s in _opponents(state, True) if _has_unknown(state.hands[s])]
    return known, hidden


def _steal(state: FlohcatiState, sight: TableSight, seat: int) -> Inference:
    new = _new_in_zone(state, sight, seat)
    if not new:
        return _SAME
    if len(new) > 1:
        return _unexplained("Show only the one card you drew from an opponent.")
    card = next(iter(new))
    known, hidden = _holders(state, card, seat)
    victims = known or hidden
    if len(victims) == 1:
        return Inference(Found.MOVE, Steal(victims[0], card))
    if not victims:
        return _unexplained(f"No opponent holds the {card.label}: it cannot have been drawn from a hand.")
    return _unexplained(f"The {card.label} could come from several hands: press the button of the player "
                        "you drew it from.")


def _request(state: FlohcatiState, sight: TableSight, seat: int) -> Inference:
    if sight.request is None:
        return _SAME
    colour, nobody = sight.request
    if nobody:
        return Inference(Found.MOVE, Request(colour, True, None, None))
    new = _new_in_zone(state, sight, seat)
    if not new:
        giver, certain = _giver(state, colour, True)
        if certain and giver is None:
            # every opponent's hand is known and none holds the colour: nothing can be given
            return Inference(Found.MOVE, Request(colour, True, None, None))
        return _SAME
    if len(new) > 1:
        return _unexplained("Show only the one card you were given.")
    card = next(iter(new))
    known, hidden = _holders(state, card, seat)
    givers = known or hidden
    if len(givers) != 1:
        if not givers:
            return _unexplained(f"No opponent holds the {card.label}: it cannot have been given.")
        return _unexplained(f"The referee cannot tell who gave the {card.label}.")
    giver = givers[0]
    clockwise = True
    for way in (True, False):
        first, _ = _giver(state, colour, way)
        if first == giver:
            clockwise = way
            break
    return Inference(Found.MOVE, Request(colour, clockwise, giver, card))


def _wrap_up(state: FlohcatiState, sight: TableSight, seat: int) -> Inference:
    open_cards = laid_open(state, sight, seat)
    colours = {c.colour for c in open_cards}
    if len(colours) == len(Colour):
        return Inference(Found.MOVE, Show())
    trios = [t for t in itertools.combinations(sorted(open_cards, key=lambda c: c.index), 3)
             if len({c.value for c in t}) == 1]
    if not trios:
        return _SAME
    if len(trios) > 1:
        return _unexplained("The referee sees more than one possible trio: lay out one trio at a time.")
    a, b, c = sorted(trios[0], key=lambda f: f.colour.index)
    return Inference(Found.MOVE, Trio((a, b, c)))


def seat_move(state: FlohcatiState, seat: int) -> FlohcatiMove | None:
    """The move a press of ``seat``'s button makes, or None.

    The mover's own button ends the turn (wrap-up, or taking nothing after a
    repeat) or, after Take attraction, says that no opponent holds a card;
    another seat's button after Take attraction names the opponent drawn from
    (the card itself unseen).
    """
    phase = state.phase
    if phase in (Phase.WRAP_UP, Phase.MUST_TAKE) and seat == state.turn:
        return Stop()
    if phase is Phase.STEAL:
        if seat == state.turn:
            return Steal(None, None)
        return Steal(seat, None)
    return None
