"""Circus Flohcati at the table: its table adapter.

The camera sees the mat (`vision.flohcati.layout`): the row of turned fleas,
the action lane and the request strip, and a zone per seat for trios, a
card shown after an action card and, at the end, the hands laid open. The
referee names every card turned, calls a bust the moment a repeated colour
lands in the row, checks takes, judges steals and requests as far as the
open table allows (a hand it has not seen answers "cannot verify"), counts
trios, and scores the game from the hands laid open at the end. Seat buttons
end a turn (or take nothing after a repeat) and name the opponent drawn from.
Holding a seat button shows the chance that the next card busts and which
take from the row scores best.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar

from PIL import ImageDraw

from firmware.flohcati.screens import SeatView, central_view, render_seat, seat_view
from firmware.screens import CentralView
from firmware.table import Inference, Perceiver, Seen, SimulatedNight, TableAdapter, TableNight, register_adapter
from hardware.camera import FrameSource
from scorer.core import Event, TableError
from scorer.flohcati import Flea, Flohcati, FlohcatiMove, FlohcatiState, Phase, bust_probability, hand_points
from scorer.flohcati.cards import card_name
from scorer.flohcati.observe import Found, TableSight, infer, laid_open, seat_move
from vision.flohcati.layout import MAX_SEATS

__all__ = ["FlohcatiTable", "best_takes", "teaching_text"]


def best_takes(state: FlohcatiState) -> list[tuple[int, Flea]]:
    """What each card of the row adds to the mover's score if taken now (gain, card), best first.

    The gain is the change of the hand's points (the best card of each colour),
    or, when the card completes a trio, 10 for the trio plus the points of
    what stays in hand, whichever is more.
    """
    hand = [c for c in state.hands[state.turn] if c is not None]
    now = hand_points(hand)
    out = []
    for card in state.display:
        after = hand + [card]
        gain = hand_points(after) - now
        mates = [c for c in hand if c.value == card.value]
        for pair in combinations(mates, 2):
            rest = [c for c in after if c is not card and c not in pair]
            gain = max(gain, 10 + hand_points(rest) - now)
        out.append((gain, card))
    return sorted(out, key=lambda g: (-g[0], g[1].index))


def teaching_text(state: FlohcatiState, seat: int) -> str:
    """The hint a held seat button shows: the chance the next card busts, and the best take from the row."""
    if state.phase is Phase.OVER:
        return "The game is over."
    chance = bust_probability(state)
    if seat != state.turn:
        return f"Next card busts {state.players[state.turn]}: {float(chance):.0%}."
    text = f"Next card busts you: {float(chance):.0%}"
    if state.attraction:
        text += " (New attraction: no bust this turn)"
    takes = best_takes(state) if state.phase in (Phase.TURNING, Phase.MUST_TAKE) else []
    if takes:
        gain, card = takes[0]
        text += f". Best take: {card.label} (+{gain})"
    return text + "."


@register_adapter
class FlohcatiTable(TableAdapter[FlohcatiState, FlohcatiMove]):
    """Circus Flohcati at the table (see the module docstring)."""

    name: ClassVar[str] = "flohcati"
    _game: ClassVar[Flohcati] = Flohcati()

    @property
    def game(self) -> Flohcati:
        """The rules engine."""
        return self._game

    def check_players(self, players: Sequence[str]) -> None:
        """The mat has zones for 2 to 4 seats."""
        super().check_players(players)
        if len(players) > MAX_SEATS:
            raise TableError(f"the Circus Flohcati mat has zones for 2 to {MAX_SEATS} players, not {len(players)}")

    # -- the game's course ---------------------------------------------------------

    def start_part(self, players: Sequence[str], number: int, previous: FlohcatiState | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], FlohcatiState, str, str]:
        """The game: the stack shuffled face down on its spot, nothing turned yet."""
        state = self.game.public_state(players)
        return {}, state, "Shuffle the 89 cards onto the stack spot.", f"{players[0]} starts: turn a card."

    def is_part_over(self, state: FlohcatiState) -> bool:
        """The last card was turned, or someone showed all ten colours."""
        return state.phase is Phase.OVER

    def part_over_text(self, state: FlohcatiState, players: Sequence[str]) -> tuple[str, str]:
        """How the game ended; the hands are to be laid open."""
        if state.ender is not None:
            why = f"{players[state.ender]} shows all ten colours."
        else:
            why = "The stack is empty."
        return why, "Lay your hand open in your zone."

    def reveal_missing(self, header: Mapping[str, Any]) -> str:
        """The hands must be read before the final scores."""
        return "" if "final_hands" in header else "Lay every hand open in its zone."

    def reveal(self, state: FlohcatiState, sighting: Any, players: Sequence[str],
               header: Mapping[str, Any]) -> dict[str, Any] | None:
        """Every hand laid open in its zone, agreeing with what the referee tracked: the record fields (None: not yet)."""
        if not isinstance(sighting, TableSight):
            return None
        hands = [laid_open(state, sighting, seat) for seat in range(len(players))]
        for seat, shown in enumerate(hands):
            held = state.hands[seat]
            # as many cards as the referee counted, and every card it saw go into that hand
            if len(shown) != len(held) or not {c for c in held if c is not None} <= shown:
                return None
        return {"final_hands": {players[s]: [card_name(c) for c in sorted(h, key=lambda c: c.index)]
                                for s, h in enumerate(hands)}}

    def part_summary(self, results: Mapping[str, Any], part: int, players: Sequence[str]) -> str:
        """The scores from the hands laid open."""
        scores = results.get("scores", {})
        return "Scores: " + ", ".join(f"{p} {scores.get(p, '?')}" for p in players)

    # -- perceive and infer ------------------------------------------------------------

    def perceiver(self, model: str | None = None) -> Perceiver:
        """The Circus Flohcati recogniser (reads the cards' codes; no model)."""
        from vision.flohcati.pipeline import Recognizer

        return Recognizer()

    def sighting(self, view: Any, players: Sequence[str]) -> TableSight:
        """The row, the action cards, the request strip and each seat's zone."""
        sight: TableSight = view.sight(len(players))
        return sight

    def infer(self, state: FlohcatiState, sighting: Any) -> Inference:
        """A turn, a take, a steal or request shown, a trio, the hand shown, or nothing."""
        found = infer(state, sighting)
        if found.found is Found.UNCHANGED:
            return Inference(Seen.UNCHANGED)
        if found.found is Found.UNEXPLAINED or found.move is None:
            return Inference(Seen.UNEXPLAINED, message=found.message)
        reminder = ""
        if state.phase in (Phase.STEAL, Phase.REQUEST):
            reminder = "Take the shown card into your hand."
        return Inference(Seen.MOVE, found.move, reminder=reminder)

    def seat_press(self, state: FlohcatiState, seat: int) -> FlohcatiMove | None:
        """The mover's button ends the turn; after Take attraction a seat's button names the opponent drawn from."""
        return seat_move(state, seat)

    def move_text(self, state: FlohcatiState, move: FlohcatiMove, events: tuple[Event, ...]) -> str:
        """The events in words (a bust is called out)."""
        texts = [e.text for e in events if e.text and e.what not in ("hand scored",)]
        bust = [e.text for e in events if e.what == "bust"]
        if bust:
            return "BUST! " + bust[0]
        return " ".join(texts) if texts else self.game.format_move(state, move)

    def teach(self, state: FlohcatiState, seat: int, sighting: Any, teaching: bool) -> str:
        """The chance that the next card busts, and (for the mover) the take from the row that scores best."""
        return teaching_text(state, seat)

    # -- screens ----------------------------------------------------------------------

    def seat_view(self, state: FlohcatiState, seat: int, warning: str) -> SeatView:
        """Score, hand size and trios."""
        return seat_view(state, seat, warning)

    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `SeatView`."""
        render_seat(view, draw)

    def central_view(self, state: FlohcatiState, *, part: int, parts: int, last_event: str,
                     hint: str) -> CentralView:
        """Cards left, whose turn and what they do, the last event, a hint."""
        return central_view(self.game, state, last_event=last_event, hint=hint)

    # -- the simulated table --------------------------------------------------------------

    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """Random players at the mat, filmed by the simulated overhead camera; with ``illegal_every``, a request
        is now and then answered with a card of the wrong colour first."""
        from firmware.flohcati.simcamera import SimulatedCamera
        from firmware.flohcati.tablesim import SimulatedTable

        return TableNight(SimulatedTable(list(players), seed=seed, illegal_every=illegal_every), SimulatedCamera)

    def open_simulated(self, arg: str) -> FrameSource:
        """``simulated:seats=N,seed=S,still_frames=F,moving_frames=M``."""
        from firmware.flohcati.simcamera import open_simulated

        return open_simulated(arg)

    def differences(self, record: Mapping[str, Any], truth: Mapping[str, Any]) -> list[str]:
        """Every move (the card of each turn, the request's colour, giver and card) and the scores compared."""
        got, want = self.game.replay(record).data, self.game.replay(truth).data
        problems: list[str] = []
        a, b = [_plain(r) for r in got.get("moves", [])], [_plain(r) for r in want.get("moves", [])]
        if a != b:
            k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            problems.append(f"move {k + 1} differs: referee {a[k] if k < len(a) else 'nothing'!r}, "
                            f"truth {b[k] if k < len(b) else 'nothing'!r}")
        if got.get("scores") != want.get("scores"):
            problems.append(f"scores differ: referee {got.get('scores')}, truth {want.get('scores')}")
        final = record.get("final_hands")
        if isinstance(final, Mapping):
            for name, cards in final.items():
                expected = want.get("final", {}).get(name, {})
                shown = [Flea.parse(c) for c in cards]
                if hand_points(shown) != expected.get("hand_points"):
                    problems.append(f"{name}'s hand laid open scores {hand_points(shown)}, "
                                    f"truth {expected.get('hand_points')}")
        return problems


def _plain(row: Mapping[str, Any]) -> str:
    """A replay row's move in a form both records share: the card of a turn named, a request's way left out."""
    move = str(row.get("move", ""))
    if move.startswith("turn"):
        return f"{row.get('player')} turn {row.get('card')}"
    if move.startswith("request"):
        move = move.replace(" counterclockwise", "").replace(" clockwise", "")
    return f"{row.get('player')} {move}"

