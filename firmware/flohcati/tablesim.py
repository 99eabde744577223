"""A simulated Circus Flohcati game night: random players at the mat, seen as the camera would.

`SimulatedTable` plays a random game with full information (the ground
truth: the record holds the whole stack) and turns each move into what
happens at a real table (`scorer.flohcati.observe`'s conventions): layouts of
the face-up cards (`vision.flohcati.scene.TableLayout`), with hands moving
over the table between them, and seat button presses. At the end every
player lays the hand open in their zone, and MODE is pressed.

The layouts can go straight to the referee (fast tests) or be rendered into
camera frames (`firmware.flohcati.simcamera`, the demo).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.flohcati import (
    Action,
    Flea,
    Flohcati,
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
from vision.flohcati.layout import MAX_SEATS, SEAT_CAPACITY
from vision.flohcati.scene import TableLayout

__all__ = ["SimulatedTable", "Step"]


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happens at the table: a layout (``moving``: hands over it), or a button gesture.

    ``truth`` is the move the simulation played (on the step that shows it);
    ``expect_illegal`` marks the layout of an illegal attempt the referee must catch.
    """

    layout: TableLayout | None = None
    moving: bool = False
    button: ButtonEvent | None = None
    truth: str | None = None
    expect_illegal: bool = False


@dataclass
class SimulatedTable:
    """Random players for one game of Circus Flohcati, seeded for repeatability (2 to 4 seats: the mat's zones).

    With ``illegal_every=K``, the first request answered after every K moves
    is first answered wrongly: the giver shows a card of another colour, and
    takes it back once the referee has objected.
    """

    players: Sequence[str]
    seed: int = 0
    illegal_every: int | None = None
    game: Flohcati = field(default_factory=Flohcati)
    #: the ground-truth record (the whole stack), filled in as the steps are produced
    record: dict[str, Any] = field(init=False)
    illegal_attempts: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not 2 <= len(self.players) <= MAX_SEATS:
            raise ValueError(f"the mat has zones for 2 to {MAX_SEATS} players, not {len(self.players)}")
        self.rng = random.Random(self.seed)
        self.state = self.game.new_state(list(self.players), self.rng)
        self.record = self.game.record_of(self.state)
        self.table = TableLayout(zones=((),) * len(self.players))
        self._since = 0

    # -- the table's physical changes --------------------------------------------------

    def _show(self, truth: str | None = None) -> Iterator[Step]:
        yield Step(self.table, moving=True)
        yield Step(self.table, truth=truth)

    def _zone(self, seat: int, cards: tuple[Flea, ...]) -> None:
        zones = list(self.table.zones)
        if len(cards) > SEAT_CAPACITY:
            raise ValueError(f"seat {seat + 1} would lay {len(cards)} cards in a zone that holds {SEAT_CAPACITY}")
        zones[seat] = cards
        self.table = replace(self.table, zones=tuple(zones))

    def _press(self, seat: int, truth: str) -> Step:
        return Step(button=ButtonEvent(Gesture.PRESS, seat=seat), truth=truth)

    # -- the game ----------------------------------------------------------------------

    def steps(self) -> Iterator[Step]:
        """Every step of the game night, in order."""
        yield Step(self.table)
        state = self.state
        planned: FlohcatiMove | None = None
        while state.phase is not Phase.OVER:
            move = planned if planned is not None else self.game.random_move(state, self.rng)
            planned = None
            text = self.game.format_move(state, move)
            self.record["moves"].append(text)
            after, events = self.game.apply_unchecked(state, move)
            seat = state.turn
            self._since += 1
            if isinstance(move, Turn):
                card = state.stack[0]
                if isinstance(card, Flea):
                    self.table = replace(self.table, row=self.table.row + (card,))
                    yield from self._show(text)
                    if card not in after.display and after.repeat != card:
                        # a bust, or the stack's last card: it goes to the discard pile face down
                        self.table = replace(self.table, row=self.table.row[:-1])
                        yield from self._show()
                elif card is Action.REQUEST and not state.attraction and after.phase is Phase.REQUEST:
                    planned = self.game.random_move(after, self.rng)
                    assert isinstance(planned, Request)
                    self.table = replace(self.table, request=(planned.colour, False))
                    yield from self._show(text)
                    if planned.giver is None:
                        self.table = replace(self.table, request=(planned.colour, True))
                else:
                    assert isinstance(card, Action)
                    self.table = replace(self.table, stack=bool(after.stack), lane=self.table.lane + (card,))
                    yield from self._show(text)
            elif isinstance(move, Take):
                row = tuple(c for c in self.table.row if c != move.card)
                self.table = replace(self.table, row=row)
                yield from self._show(text)
                if state.repeat is not None and state.repeat != move.card:
                    self.table = replace(self.table, row=tuple(c for c in row if c != state.repeat))
                    yield from self._show()
            elif isinstance(move, Steal | Request):
                card = move.card
                if isinstance(move, Steal) and move.victim is None:
                    yield self._press(seat, text)
                elif card is None:
                    # nobody holds the colour: the Request card lies sideways
                    yield from self._show(text)
                else:
                    if isinstance(move, Request):
                        yield from self._wrong_colour(state, move, seat)
                    self._zone(seat, self.table.zones[seat] + (card,))
                    yield from self._show(text)
                    self._zone(seat, tuple(c for c in self.table.zones[seat] if c != card))
                if isinstance(move, Request):
                    self.table = replace(self.table, request=None, lane=self.table.lane + (Action.REQUEST,))
                if not (isinstance(move, Steal) and move.victim is None):
                    yield from self._show()
            elif isinstance(move, Trio):
                self._zone(seat, self.table.zones[seat] + move.cards)
                yield from self._show(text)
                # counted: the trio is stacked face down at the back of the zone
                self._zone(seat, tuple(c for c in self.table.zones[seat] if c not in move.cards))
                yield from self._show()
            elif isinstance(move, Show):
                hand = tuple(c for c in state.hands[seat] if c is not None)
                self._zone(seat, self.table.zones[seat] + hand)
                yield from self._show(text)
            else:
                assert isinstance(move, Stop)
                yield self._press(seat, text)
            state = after
        self.state = state
        # the hands laid open, each in its seat's zone
        for seat, held in enumerate(state.hands):
            if seat != state.ender:
                self._zone(seat, self.table.zones[seat] + tuple(c for c in held if isinstance(c, Flea)))
        self.table = replace(self.table, stack=False)
        yield from self._show()
        yield Step(button=ButtonEvent(Gesture.PRESS, pad=Pad.MODE))

    def _wrong_colour(self, state: FlohcatiState, move: Request, seat: int) -> Iterator[Step]:
        """An illegal attempt (when one is due): the giver shows a card of another colour, then takes it back."""
        if not self.illegal_every or self._since < self.illegal_every or move.giver is None:
            return
        others = [c for c in state.hands[move.giver] if c is not None and c.colour is not move.colour]
        if not others:
            return
        self._since = 0
        self.illegal_attempts += 1
        before = self.table
        self._zone(seat, self.table.zones[seat] + (others[0],))
        yield Step(self.table, moving=True)
        yield Step(self.table, expect_illegal=True)
        self.table = before
        yield from self._show()

    def final_state(self) -> FlohcatiState:
        """The state once `steps` has run to its end."""
        return self.state
