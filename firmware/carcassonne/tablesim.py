"""A simulated Carcassonne game night: random players laying tiles and figures, step by step.

`SimulatedTable.steps` plays a random legal game with full information (the
ground truth, kept in ``record`` in the RECORDS.md form) and yields what the
table shows (`firmware.carcassonne.scene.Scene`): the tile and its figure as
laid, then the board once the figures of what was scored are taken back. A
tile that fits nowhere is shown in the hint zone and set aside with the
seat's button. A figure comes a moment after its tile (the camera glimpses the
bare tile for two frames, too few to judge). Now and then a player shows the drawn tile and holds the
button for the hint. At the end, the MODE press that asks for the final
scores. Every ``illegal_every`` turns a player first lays a tile whose edges
do not match, or a meeple on an occupied feature, then puts it right.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from firmware.carcassonne.scene import Scene
from firmware.simtable import TableStep
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.carcassonne import Carcassonne, Discard, Figure, Placement, move_to_json
from scorer.carcassonne.catalog import EXPANSION, Kind, rotated
from scorer.carcassonne.engine import figure_options
from scorer.carcassonne.model import Spot, State
from scorer.carcassonne.observe import COLORS, SeenBoard, figures_of, infer_move, same_look
from vision.carcassonne.figures import PlacedFigure

__all__ = ["SimulatedTable", "Step", "laid_scene", "record_header", "scene_of"]

#: one thing that happens at the table (`firmware.simtable.TableStep`)
Step = TableStep[Scene]
#: every this many turns a player shows the drawn tile in the hint zone and holds the button
TEACH_EVERY = 11


def record_header(state: State) -> dict[str, Any]:
    """The record fields (RECORDS.md) that set up ``state``'s game: expansions, rules, start tile, animal tokens."""
    header: dict[str, Any] = {"expansions": [EXPANSION] if state.expansion else [],
                              "rules": {"tiny_city_points": state.tiny_city_points},
                              "start": state.tiles[(0, 0)][0]}
    if state.expansion:
        under = [] if state.big_top is None or state.big_top[1] is None else [state.big_top[1]]
        header["animal_tokens"] = [a.value for a in (*under, *state.tokens)]
    return header


def scene_of(tiles: dict[tuple[int, int], tuple[str, int]], figures: Counter[tuple[int, int, str, str, str]],
             big_top: tuple[int, int] | None, hint: str | None = None) -> Scene:
    """The scene of a board: its tiles, its figures and the Big Top.

    The acrobats of a cell make one stack, its colours in the order ``figures`` first holds them (the order the
    stack was built: the newest colour on top), those of one colour together.
    """
    placed = [PlacedFigure(x, y, fig, color, spot)
              for (x, y, fig, color, spot), count in sorted(figures.items()) if fig != "acrobat"
              for _ in range(count)]
    stacks: dict[tuple[int, int], list[tuple[str, int]]] = {}
    for (x, y, fig, color, _), count in figures.items():
        if fig == "acrobat" and count > 0:
            stacks.setdefault((x, y), []).append((color, count))
    for (x, y), parts in sorted(stacks.items()):
        height = sum(count for _, count in parts)
        below = 0
        for color, count in parts:
            placed.append(PlacedFigure(x, y, "acrobat", color, "acrobats", count, below, height - below - count))
            below += count
    if big_top is not None:
        placed.append(PlacedFigure(big_top[0], big_top[1], "big-top", "", "circus"))
    return Scene(tuple((x, y, n, r) for (x, y), (n, r) in tiles.items()), tuple(placed), hint)


def laid_scene(before: State, move: Placement) -> Scene:
    """The table just after ``move`` is laid, before anything scored is taken back."""
    tiles = dict(before.tiles)
    tiles[move.at] = (move.tile, move.rotation)
    figures = figures_of(before)
    seat = before.turn % len(before.players)
    color = COLORS[seat]
    if move.figure is Figure.ACROBAT and move.target is not None:
        figures[(move.target[0], move.target[1], "acrobat", color, "acrobats")] += 1
    elif move.figure is not None and move.spot is not None:
        figures[(move.at[0], move.at[1], move.figure.value, color, str(move.spot))] += 1
    if move.score_pyramid is not None:
        for key in [f for f in figures if f[:2] == move.score_pyramid and f[2] == "acrobat"]:
            del figures[key]
    return scene_of(tiles, figures, None if before.big_top is None else before.big_top[0])


@dataclass
class SimulatedTable:
    """Random players of one Carcassonne game with Under the Big Top, seeded for repeatability."""

    players: Sequence[str]
    seed: int = 0
    illegal_every: int | None = None
    #: how many tiles are laid before the game stops (None: the whole box)
    tiles: int | None = None
    game: Carcassonne = field(default_factory=Carcassonne)
    record: dict[str, Any] = field(init=False)
    illegal_attempts: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._illegal_rng = random.Random(self.seed + 1)
        options: dict[str, Any] = {}
        if self.tiles is not None:
            full = self.game.new_state(list(self.players), random.Random(self.seed))
            assert full.stack is not None
            options["stack"] = list(full.stack[: self.tiles - 1])
            options["animal_tokens"] = [a.value for a in full.tokens]
        self.state: State = self.game.new_state(list(self.players), self.rng, **options)
        self.record = {"game": self.game.name, "players": list(self.players), **record_header(self.state), "moves": []}

    def scene(self, state: State, hint: str | None = None) -> Scene:
        """The table as ``state`` lays it out."""
        return scene_of(dict(state.tiles), figures_of(state), None if state.big_top is None else state.big_top[0], hint)

    def steps(self) -> Iterator[Step]:
        """The game's steps; ``record`` holds the moves played so far."""
        moves: list[dict[str, Any]] = self.record["moves"]
        yield Step(self.scene(self.state))
        turns = 0
        while not self.game.is_over(self.state):
            before = self.state
            assert before.stack is not None
            seat = before.turn % len(before.players)
            turns += 1
            if turns % TEACH_EVERY == 0:
                yield Step(self.scene(before, hint=before.stack[0]))
                yield Step(button=ButtonEvent(Gesture.HOLD, seat=seat))
            move = self._choose(before)
            if self.illegal_every and turns % self.illegal_every == 0:
                wrong = self._illegal(before, move)
                if wrong is not None:
                    self.illegal_attempts += 1
                    yield Step(wrong, expect_illegal=True)
                    yield Step(self.scene(before))
            self.state, _ = self.game.apply_unchecked(before, move)
            moves.append(move_to_json(move))
            if move.figure is not None:
                # the tile is laid first, its figure a moment later: the camera glimpses the bare tile
                yield Step(laid_scene(before, Placement(move.tile, move.at, move.rotation)), frames=2)
            yield Step(laid_scene(before, move), truth=self.game.plain_move(move))
            yield Step(self.scene(self.state))
            for tile in self.state.discarded[len(before.discarded):]:
                moves.append(move_to_json(Discard(tile)))
                drawer = self.state.turn % len(self.state.players)
                yield Step(self.scene(self.state, hint=tile))
                yield Step(button=ButtonEvent(Gesture.PRESS, seat=drawer), truth=f"{tile} discard")
                yield Step(self.scene(self.state))
        yield Step(button=ButtonEvent(Gesture.PRESS, pad=Pad.MODE))

    def _choose(self, state: State) -> Placement:
        """A random legal turn, the tile turned as players see it (U turned by a half is U unturned)."""
        moves = [m for m in self.game.legal_moves(state) if isinstance(m, Placement)
                 and all(not same_look((m.tile, m.rotation), (m.tile, r)) for r in range(0, m.rotation, 90))]
        return moves[self.rng.randrange(len(moves))]

    def _illegal(self, state: State, move: Placement) -> Scene | None:
        """The table after an illegal variant of ``move`` the referee must refuse, or None when there is none.

        The drawn tile turned so that an edge does not match its neighbour, or a meeple on a feature of the tile
        that joins an occupied one; a variant counts only when the camera's view of it means exactly it.
        """
        variants: list[Placement] = [replace(move, rotation=r, figure=None, spot=None, target=None, score_pyramid=None)
                                     for r in (0, 90, 180, 270) if r != move.rotation]
        if state.meeples[state.turn % len(state.players)] > 0:
            legal = {o for o in figure_options(state, move.tile, move.at, move.rotation) if o.figure is Figure.MEEPLE}
            view = rotated(move.tile, move.rotation)
            for seg in view.segments:
                taken = replace(move, figure=Figure.MEEPLE, spot=_spot(seg.spot), target=None, score_pyramid=None)
                if taken not in legal:
                    variants.append(taken)
        self._illegal_rng.shuffle(variants)
        for wrong in variants:
            check = self.game.check(state, wrong)
            if not check.is_illegal:
                continue
            shown = laid_scene(state, wrong)
            board = SeenBoard(shown.tiles, tuple(sorted((f.x, f.y, f.figure, f.color, f.feature)
                                                        for f in shown.figures for _ in range(f.count))))
            if infer_move(state, board).move == wrong:
                return shown
        return None


def _spot(text: str) -> Spot:
    kind, _, edge = text.partition(":")
    return Spot(Kind(kind), edge)
