"""Circus Grandioso at the table: its table adapter.

The camera sees the pyramid on the printed mat, the face-down singles on
their numbered places and a drawn card shown face up on the stack; the
players follow the protocol in `scorer.grandioso.observe` (a seat button
passes). The referee checks every placement (the row's animal, the highest
place on each side, the clown rules), keeps the Show Master, and shows on
the central panel which card each side of the pyramid takes next. What
glare hides is filled in only where the accepted state proves it
(`GrandiosoTable.fill_held`): a card already in the pyramid, singles already
on the row; a place where a card may have been laid is asked about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from PIL import ImageDraw

from firmware.grandioso.screens import SeatView, central_view, render_seat, seat_view
from firmware.screens import CentralView
from firmware.table import Inference, Perceiver, Seen, SimulatedNight, TableAdapter, TableNight, register_adapter
from hardware.camera import FrameSource
from scorer.core import Event
from scorer.grandioso import Grandioso, GrandiosoMove, GrandiosoState, Pass, Phase
from scorer.grandioso.observe import InferenceKind, TableSnapshot, infer_move

__all__ = ["GrandiosoTable", "Sighting"]


@dataclass(frozen=True, slots=True)
class Sighting:
    """One stable view of a Grandioso table: the public snapshot and, in words, what could not be read."""

    snapshot: TableSnapshot
    unrecognised: tuple[str, ...] = ()
    #: for each of ``unrecognised``: the pyramid place whose card's code the camera cannot see (glare, a code
    #: that cannot be read), or None
    unread: tuple[tuple[int, int] | None, ...] = ()
    #: for each of ``unrecognised``: the singles row's places (from 1) that are unclear (glare), or ()
    unclear: tuple[tuple[int, ...], ...] = ()


def _public_moves(record: Mapping[str, Any]) -> list[str]:
    """The record's moves as the open table shows them: the card laid down in an exchange is hidden."""
    out = []
    for text in record.get("moves", []):
        words = str(text).split()
        if len(words) >= 4 and words[1] == "exchange":
            words[2] = "?"
        out.append(" ".join(words))
    return out


@register_adapter
class GrandiosoTable(TableAdapter[GrandiosoState, GrandiosoMove]):
    """Circus Grandioso at the table (see the module docstring)."""

    name: ClassVar[str] = "circus-grandioso"
    _game: ClassVar[Grandioso] = Grandioso()

    @property
    def game(self) -> Grandioso:
        """The rules engine."""
        return self._game

    def start_part(self, players: Sequence[str], number: int, previous: GrandiosoState | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], GrandiosoState, str, str]:
        """The game begins: the start Elephant on its spot, seven cards each, the first player to move."""
        state = self.game.public_state(players)
        return {}, state, "Start Elephant on its spot; deal 7 cards each.", f"{players[0]} starts."

    def is_part_over(self, state: GrandiosoState) -> bool:
        """Someone placed their last card or the Seal, or every player passed in a row."""
        return state.end is not None

    def part_over_text(self, state: GrandiosoState, players: Sequence[str]) -> tuple[str, str]:
        """Who holds the Show Master and wins."""
        winners = [players[s] for s in self.game.winners(state)]
        return f"Game over: {' and '.join(winners) or 'nobody'} wins.", ""

    def perceiver(self, model: str | None = None) -> Perceiver:
        """The Grandioso recogniser (card codes; ``model`` is not used)."""
        from vision.grandioso.pipeline import Recognizer

        return Recognizer()

    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """The pyramid, the singles row and the card shown on the stack, and what could not be read."""
        snapshot = TableSnapshot(frozenset(view.pyramid.items()), view.single_places, view.shown)
        problems = tuple(f"{u.why[0].upper()}{u.why[1:]} ({u.where})." for u in view.unrecognised)
        unread = tuple((u.row, u.col) if u.unread and u.row is not None and u.col is not None else None
                       for u in view.unrecognised)
        return Sighting(snapshot, problems, unread, tuple(u.places for u in view.unrecognised))

    def fill_held(self, state: GrandiosoState, sighting: Any) -> Any:
        """What glare hides, where the accepted state proves it: a pyramid place whose code the camera cannot
        see where a card was accepted is that card (a card never leaves the pyramid, and none may be laid on
        a place that holds one); singles row places that are unclear (glare) hold the singles the state has
        there when the row shows them all, nothing else, and no card on the stack (taking a single shows it
        there; laying one down takes the first free place, which is then seen).

        A pyramid place that held no card stays unrecognised: a card laid there under glare must not pass
        unseen; so does a singles row that shows more, or other places, than the state has.
        """
        cards = {(r, c): card for r, c, card in state.pyramid.cells()}
        pyramid = dict(sighting.snapshot.pyramid)
        singles = set(sighting.snapshot.single_places)
        held = set(range(1, len(state.singles) + 1))
        problems: list[str] = []
        unread: list[tuple[int, int] | None] = []
        unclear: list[tuple[int, ...]] = []
        for k, text in enumerate(sighting.unrecognised):
            place = sighting.unread[k] if k < len(sighting.unread) else None
            places = sighting.unclear[k] if k < len(sighting.unclear) else ()
            if place is not None and place in cards and place not in pyramid:
                pyramid[place] = cards[place]
                continue
            if places and state.phase is Phase.PLAY and sighting.snapshot.shown is None \
                    and not singles & set(places) and singles | set(places) == held:
                singles = held
                continue
            problems.append(text)
            unread.append(place)
            unclear.append(places)
        if len(problems) == len(sighting.unrecognised):
            return sighting
        snapshot = replace(sighting.snapshot, pyramid=frozenset(pyramid.items()), single_places=tuple(sorted(singles)))
        return Sighting(snapshot, tuple(problems), tuple(unread), tuple(unclear))

    def infer(self, state: GrandiosoState, sighting: Any) -> Inference:
        """A placement, a draw, a lay-down, an exchange, or nothing (`scorer.grandioso.observe`)."""
        found = infer_move(state, sighting.snapshot)
        if found.kind is InferenceKind.UNCHANGED:
            return Inference(Seen.UNCHANGED)
        if found.kind is InferenceKind.UNEXPLAINED or found.move is None:
            return Inference(Seen.UNEXPLAINED, message=found.message)
        return Inference(Seen.MOVE, found.move)

    def seat_press(self, state: GrandiosoState, seat: int) -> GrandiosoMove | None:
        """The player to move presses their button to pass (end the turn)."""
        if state.end is None and state.turn == seat and state.phase is Phase.PLAY:
            return Pass()
        return None

    def move_text(self, state: GrandiosoState, move: GrandiosoMove, events: tuple[Event, ...]) -> str:
        """The move in words, and who took the Show Master."""
        text = self.game.format_move(state, move)
        earned = [e.text for e in events if e.text]
        return " ".join([text, *earned])

    def teach(self, state: GrandiosoState, seat: int, sighting: Any, teaching: bool) -> str:
        """Where a card may go now: the open places of the pyramid, and what each takes."""
        slots = state.pyramid.open_slots()
        where = "; ".join(s.describe() for s in slots) or "nowhere: the pyramid is complete"
        if state.end is None and state.turn == seat:
            return f"Your cards may go: {where}."
        return f"On your turn a card may go: {where}."

    def seat_view(self, state: GrandiosoState, seat: int, warning: str) -> SeatView:
        """Hand size, the Show Master, whose turn."""
        return seat_view(state, seat, warning)

    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `SeatView`."""
        render_seat(view, draw)

    def central_view(self, state: GrandiosoState, *, part: int, parts: int, last_event: str,
                     hint: str) -> CentralView:
        """The pyramid's next cards, whose turn it is, the last event, a hint."""
        return central_view(state, last_event=last_event, hint=hint)

    def final_text(self, results: Mapping[str, Any], players: Sequence[str]) -> str:
        """Who holds the Show Master: the winner."""
        winners = results.get("winners")
        names = " and ".join(str(w) for w in winners) if isinstance(winners, list) and winners else "nobody"
        return f"Show Master: {names}. Winner: {names}!"

    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """Random keen players, filmed by the simulated overhead camera; every ``illegal_every`` moves a
        card is first laid where it may not go."""
        from firmware.grandioso.simcamera import SimulatedCamera
        from firmware.grandioso.tablesim import SimulatedTable

        return TableNight(SimulatedTable(list(players), seed=seed, illegal_every=illegal_every), SimulatedCamera)

    def open_simulated(self, arg: str) -> FrameSource:
        """``simulated:seats=N,seed=S,still_frames=F``."""
        from firmware.grandioso.simcamera import open_simulated

        return open_simulated(arg)

    def differences(self, record: Mapping[str, Any], truth: Mapping[str, Any]) -> list[str]:
        """Every move (the card laid down in an exchange is hidden at the table), the winners."""
        problems: list[str] = []
        got, want = _public_moves(record), _public_moves(truth)
        if got != want:
            k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            problems.append(f"move {k + 1} differs: referee {got[k] if k < len(got) else 'nothing'!r}, "
                            f"truth {want[k] if k < len(want) else 'nothing'!r}")
        a, b = self.game.replay(record).data, self.game.replay(truth).data
        if a.get("winners") != b.get("winners"):
            problems.append(f"winners differ: referee {a.get('winners')}, truth {b.get('winners')}")
        return problems
