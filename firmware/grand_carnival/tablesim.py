"""A simulated Grand Carnival game night: random players laying out each action, step by step.

`SimulatedTable.steps` plays a random legal game with full information (the
ground truth, kept in ``record``) and yields what the table shows after each
move (`Scene`: every market and the wagon row, drawn from the engine's boards
by `vision.grand_carnival.scene`), then the MODE press that asks for the final
scores. The players follow the table's conventions (`_by_convention`). The
tricks of the trade are the ones the referee asks the players to lay out
(`table_tricks`); the foundation tiles are shuffled with the seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from firmware.simtable import TableStep
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.core import Verdict
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import cells_of
from scorer.grand_carnival.model import NUMBERS, TENT, Build, CarnivalState, Foundation, Move, Pass, Walk
from scorer.grand_carnival.observe import infer_move, market_of
from vision.grand_carnival.scene import MarketScene, WagonScene

__all__ = ["Scene", "SimulatedTable", "Step", "table_tricks"]


def table_tricks(game: GrandCarnival) -> list[str]:
    """The tricks the referee deals when the game's record names none: the first of the box, alphabetically."""
    return sorted(game.catalog.tricks)[: game.catalog.tricks_dealt]


@dataclass(frozen=True, slots=True)
class Scene:
    """What lies on the table: each player's market (seat order) and the wagon row."""

    markets: tuple[MarketScene, ...]
    wagon: WagonScene


#: one thing that happens at the table (`firmware.simtable.TableStep`)
Step = TableStep[Scene]


@dataclass
class SimulatedTable:
    """Random players of one Grand Carnival game, seeded for repeatability."""

    players: Sequence[str]
    seed: int = 0
    #: every this many moves, a player first tries an illegal action (then puts the pieces back)
    illegal_every: int | None = None
    game: GrandCarnival = field(default_factory=GrandCarnival)
    record: dict[str, object] = field(init=False)
    illegal_attempts: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._illegal_rng = random.Random(self.seed + 1)
        dealt = self.game.new_state(list(self.players), self.rng)
        yard = dealt.railyard
        self.state: CarnivalState = self.game.setup(list(self.players), table_tricks(self.game), yard.stacks,
                                                    yard.open, dealt.seed, 0)
        self.record = self.game.record_of(self.state)

    def scene(self, state: CarnivalState) -> Scene:
        """The table as ``state`` lays it out (every piece nudged a little, seeded)."""
        yard = state.railyard
        spaces = tuple(yard.open) + (None,) * (4 - len(yard.open))
        wagon = WagonScene((spaces[0], spaces[1], spaces[2], spaces[3]),
                           (len(yard.stacks[0]), len(yard.stacks[1])), jitter=self.seed)
        return Scene(tuple(MarketScene(b, seat, jitter=self.seed * 31 + seat, catalog=self.game.catalog)
                           for seat, b in enumerate(state.boards)), wagon)

    def steps(self) -> Iterator[Step]:
        """The game's steps; ``record`` holds the moves played so far."""
        moves: list[str] = self.record["moves"]  # type: ignore[assignment]
        yield Step(self.scene(self.state))
        while not self.game.is_over(self.state):
            before = self.state
            move = self._choose(before)
            text = self.game.format_move(before, move)
            self.state, _ = self.game.apply_unchecked(before, move)
            moves.append(text)
            if self.illegal_every and len(moves) % self.illegal_every == 0:
                wrong = self._illegal(before, move)
                if wrong is not None:
                    self.illegal_attempts += 1
                    yield Step(self.scene(wrong), expect_illegal=True)
                    yield Step(self.scene(before))
            yield Step(self.scene(self.state), truth=text)
        yield Step(button=ButtonEvent(Gesture.PRESS, pad=Pad.MODE))

    def _illegal(self, state: CarnivalState, move: Move) -> CarnivalState | None:
        """The table after an illegal variant of ``move`` that the referee can see and must refuse (None: none).

        A foundation or an attraction with an action number that does not allow it, or a guest walked where
        it may not go; the referee sees the open tiles refilled face down only through the camera, so a
        variant counts only when the rules refuse it without them.
        """
        public = self.game.public_view(state)
        blind = replace(public, railyard=replace(public.railyard, open=(None,) * len(public.railyard.open)))
        board = state.boards[move.seat]
        variants: list[Move] = []
        if isinstance(move, Foundation | Build):
            variants = [replace(move, number=n) for n in NUMBERS if n not in board.numbers and n != move.number]
        elif isinstance(move, Walk):
            free = board.walkways & ~board.guests & ~board.barkers
            variants = [replace(move, end=e, barker=None) for e in [*cells_of(free), TENT] if e != move.end]
        self._illegal_rng.shuffle(variants)
        for wrong in variants:
            if not self.game.check(blind, wrong).is_illegal:
                continue
            try:
                after, _ = self.game.apply_unchecked(state, wrong)
            except Exception:  # noqa: BLE001 - a variant the engine cannot even lay out is not tried
                continue
            seen = infer_move(public, tuple(market_of(b) for b in after.boards), self.game.catalog)
            if seen.move == wrong:
                return after
        return None

    def _choose(self, state: CarnivalState) -> Move:
        """A keen player: any legal action, a pass only when nothing else is possible."""
        moves = [m for m in self.game.legal_moves(state) if _by_convention(self.game, state, m)]
        acts = [m for m in moves if not isinstance(m, Pass)] or moves
        return acts[self.rng.randrange(len(acts))]


def _by_convention(game: GrandCarnival, state: CarnivalState, move: Move) -> bool:
    """True for a move that follows the table's convention (`scorer.grand_carnival.observe`): a foundation tile
    comes from the lowest open space showing its pattern, a face-down one from stack 1a while it has tiles, and
    the open tiles are not thrown away when the refill would show the very same row (nobody could tell). A
    face-down tile whose pattern an open space shows is not drawn when taking that open tile instead would
    leave the very same railyard (its refill is the tile drawn): the table reads that as the open tile."""
    if not isinstance(move, Foundation):
        return True
    yard = state.railyard
    if move.source in ("1a", "1b"):
        if move.source == "1b" and yard.stacks[0]:
            return False
        after = game.apply_unchecked(state, move)[0].railyard
        if move.discard:
            return after.open != yard.open
        if move.tile in yard.open:
            instead = replace(move, source=str(yard.open.index(move.tile) + 2))
            if (game.check(state, instead).verdict is Verdict.LEGAL
                    and game.apply_unchecked(state, instead)[0].railyard == after):
                return False
        return True
    return yard.open.index(move.tile) == int(move.source) - 2
