"""A simulated Circus Grandioso game night: random players following the table's protocol, step by step.

`SimulatedTable.steps` plays a random legal game with full information (the
ground truth, kept in ``record``) and yields what the table shows after each
visible change (`vision.grandioso.scene.Scene`) or the seat-button press of a
pass, exactly as `scorer.grandioso.observe` describes the protocol: a drawn
card lies face up on the stack until it is placed or laid face down; a single
taken leaves its place empty until the draw is resolved or the turn ends;
the singles row is closed up after that.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from firmware.simtable import TableStep
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.grandioso import Card, Draw, Exchange, Grandioso, GrandiosoMove, GrandiosoState, LayDown, Pass, Phase, Place
from vision.grandioso.layout import MAT, SINGLE_INSET, SINGLE_PITCH
from vision.grandioso.scene import Scene

__all__ = ["ROW_PLACES", "SimulatedTable", "Step"]

#: The numbered places of the printed singles row.
ROW_PLACES = int((MAT.singles.w - SINGLE_INSET) // SINGLE_PITCH)


#: one thing that happens at the table (`firmware.simtable.TableStep`)
Step = TableStep[Scene]


@dataclass
class SimulatedTable:
    """Random players of one Circus Grandioso game, seeded for repeatability (``max_moves`` caps a long game)."""

    players: Sequence[str]
    seed: int = 0
    max_moves: int = 400
    #: every this many moves, a player first lays a card where it may not go (then takes it back)
    illegal_every: int | None = None
    game: Grandioso = field(default_factory=Grandioso)
    record: dict[str, object] = field(init=False)
    illegal_attempts: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        # Random players can reach a pyramid no card can ever grow again (a side waits for an animal whose
        # cards are all placed) and then draw singles for ever: such a deal is skipped for the next one.
        self.deal = next(a for a in range(1000) if self._ends(a) or a == 999)
        self._start(self.deal)
        self._illegal_rng = random.Random(self.seed + 1)

    def _start(self, deal: int) -> None:
        self.rng = random.Random(self.seed * 1000 + deal)
        self.state: GrandiosoState = self.game.new_state(list(self.players), self.rng)
        self.record = self.game.record_of(self.state)

    def _ends(self, deal: int) -> bool:
        """True when deal number ``deal`` of this seed ends within ``max_moves`` moves."""
        self._start(deal)
        for _ in range(self.max_moves):
            if self.game.is_over(self.state):
                return True
            self.state, _ = self.game.apply_unchecked(self.state, self._choose(self.state))
        return self.game.is_over(self.state)

    def _scene(self, state: GrandiosoState, places: tuple[int, ...] | None = None, shown: bool = False) -> Scene:
        return Scene(state.pyramid, singles=len(state.singles), stack=bool(state.stack), show_master_on_spot=False,
                     jitter=self.seed, single_places=places, shown=state.drawn if shown else None)

    def steps(self) -> Iterator[Step]:
        """The game's steps; ``record`` holds the moves played so far."""
        moves: list[str] = self.record["moves"]  # type: ignore[assignment]
        yield Step(self._scene(self.state))
        while not self.game.is_over(self.state) and len(moves) < self.max_moves:
            before = self.state
            move = self._choose(before)
            text = self.game.format_move(before, move)
            after, _ = self.game.apply_unchecked(before, move)
            moves.append(text)
            self.state = after
            n = len(before.singles)
            if isinstance(move, Place) and self.illegal_every and len(moves) % self.illegal_every == 0:
                wrong = self._illegal(before, move)
                if wrong is not None:
                    self.illegal_attempts += 1
                    yield Step(self._scene(replace(before, pyramid=before.pyramid.with_card(
                        wrong.row, wrong.col, wrong.card))), expect_illegal=True)
                    yield Step(self._scene(before))
            if isinstance(move, Pass):
                yield Step(button=ButtonEvent(Gesture.PRESS, seat=before.turn), truth=text)
                continue
            if isinstance(move, Draw):
                places = None if move.single is None else tuple(p for p in range(1, n + 1) if p != move.single + 1)
                yield Step(self._scene(after, places, shown=True), truth=text)
                continue
            if isinstance(move, Exchange) and move.single is not None:
                places = tuple(p for p in range(1, n + 2) if p != move.single + 1)
                yield Step(self._scene(after, places), truth=text)
            yield Step(self._scene(after), truth=text if not isinstance(move, Exchange) or move.single is None
                       else None)
        if self.game.is_over(self.state):
            yield Step(self._scene(self.state))
            yield Step(button=ButtonEvent(Gesture.PRESS, pad=Pad.MODE))

    def _illegal(self, state: GrandiosoState, move: Place) -> Place | None:
        """A card of the wrong animal where ``move`` goes, which the referee must refuse (None: none fits)."""
        public = self.game.public_view(state)
        for card in self._illegal_rng.sample(list(Card), len(Card)):
            wrong = Place(card, move.row, move.col)
            if card is not move.card and self.game.check(public, wrong).is_illegal:
                return wrong
        return None

    def _choose(self, state: GrandiosoState) -> GrandiosoMove:
        """A keen player: places a card when one fits, else mostly draws, sometimes exchanges or passes."""
        moves = self.game.legal_moves(state)
        places = [m for m in moves if isinstance(m, Place)]
        if places and (state.phase is Phase.DRAWN or self.rng.random() < 0.85):
            return places[self.rng.randrange(len(places))]
        if state.phase is Phase.DRAWN:
            return LayDown()
        if state.placed and self.rng.random() < 0.5:
            return Pass()
        others: list[GrandiosoMove] = [m for m in moves if not isinstance(m, Place)]
        if len(state.singles) >= ROW_PLACES - 1:
            # the singles row is full: take from it rather than add to it
            takers: list[GrandiosoMove] = [m for m in others if isinstance(m, Draw) and m.single is not None]
            others = takers or others
        return others[self.rng.randrange(len(others))]
