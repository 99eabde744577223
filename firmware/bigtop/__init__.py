"""Big Top and Fan Tan at the table: their table adapters.

Big Top: the camera sees the tableau on the printed mat and each player's
Organizing Chart; a card laid on a pile is a play, a card laid on a chart's
$3 space a call, a seat button press a pass. At the end of a hand the players
turn their tokens face up and lay one card of each suit they still hold on
their chart, which the referee reads for the gate receipts.

Fan Tan: the same cards and mat, no charts, no calls, no tokens. A pass pays
a peanut into the pot (the referee keeps the peanuts, shown on the seat
panels; the pot on the central one); the first player out takes the pot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from PIL import ImageDraw

from firmware.bigtop.screens import SeatView, central_view, render_seat, seat_view
from firmware.bigtop.sighting import Sighting, sighting_from_view
from firmware.screens import CentralView
from firmware.table import Inference, Perceiver, Seen, SimulatedNight, TableAdapter, TableNight, register_adapter
from hardware.camera import FrameSource
from scorer.bigtop import Action, BigTop, BigTopMove, BigTopState, Card, FanTan, Suit
from scorer.bigtop.observe import InferenceKind, TableSnapshot, infer_move
from scorer.core import Event

__all__ = ["BigTopTable", "FanTanTable"]


def _parts(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The hands of a record, whether it holds one hand or ``hands``."""
    hands = record.get("hands")
    return list(hands) if isinstance(hands, list) else [record]


@register_adapter
class BigTopTable(TableAdapter[BigTopState, BigTopMove]):
    """Big Top at the table (see the module docstring)."""

    name: ClassVar[str] = "bigtop"
    part_word: ClassVar[str] = "hand"
    _game: ClassVar[BigTop] = BigTop()

    @property
    def game(self) -> BigTop:
        """The rules engine."""
        return self._game

    def default_parts(self, players: int) -> int:
        """Each player deals once (twice with three players)."""
        return self.game.hands_in_game(players)

    # -- the game's course ---------------------------------------------------------

    def start_part(self, players: Sequence[str], number: int, previous: BigTopState | None,
                   header: Mapping[str, Any]) -> tuple[dict[str, Any], BigTopState, str, str]:
        """A new hand: the first player deals first, then the deal passes to the left."""
        dealer = 0 if previous is None else (previous.dealer + 1) % len(players)
        peanuts = previous.peanuts if previous is not None else self._start_peanuts(header, players)
        state = self.game.start_hand(players, dealer, None, None, peanuts)
        return {"dealer": players[dealer]}, state, f"{players[dealer]} deals.", f"{players[state.to_move]} starts."

    def _start_peanuts(self, header: Mapping[str, Any], players: Sequence[str]) -> list[int] | None:
        return None

    def is_part_over(self, state: BigTopState) -> bool:
        """Someone went out."""
        return state.out is not None

    def part_over_text(self, state: BigTopState, players: Sequence[str]) -> tuple[str, str]:
        """Who went out; the tokens and a card of each suit still held are to be shown."""
        out = players[state.out] if state.out is not None else "?"
        return f"{out} went out.", "Tokens face up; lay one card of each suit you hold on your chart."

    def reveal_missing(self, header: Mapping[str, Any]) -> str:
        """The tokens must be read before the next hand."""
        return "" if "investments" in header else "Turn all your tokens face up, then press MODE."

    def reveal(self, state: BigTopState, sighting: Any, players: Sequence[str],
               header: Mapping[str, Any]) -> dict[str, Any] | None:
        """Every token face up, one card of each suit still held laid open on the chart: the record fields."""
        if not isinstance(sighting, Sighting):
            return None
        tokens = sighting.tokens
        if tokens is None or len(tokens) != len(players) or any(None in row for row in tokens):
            return None
        shown = sighting.laid_open if sighting.laid_open is not None else _laid_open(state, sighting.snapshot)
        return {
            "investments": {players[i]: {s.label: v for s, v in zip(Suit, row)} for i, row in enumerate(tokens)},
            "final_hands": {players[i]: [c.notation() for c in sorted(cards, key=lambda c: c.index)]
                            for i, cards in enumerate(shown)},
        }

    def part_summary(self, results: Mapping[str, Any], part: int, players: Sequence[str]) -> str:
        """The money of the hand just read."""
        hands = results.get("hands")
        hand = hands[-1] if isinstance(hands, list) and hands else results
        rows = hand.get("players", {})
        money = ", ".join(f"{p} ${r['total']}" if r.get("total") is not None else f"{p} ?" for p, r in rows.items())
        return f"Hand {part}: {money}"

    def final_text(self, results: Mapping[str, Any], players: Sequence[str]) -> str:
        """Every player's total and the winner."""
        totals = _totals(results, players, "total")
        best = max(totals.values(), default=0)
        winners = [p for p in players if totals.get(p) == best]
        return ("Final: " + ", ".join(f"{p} ${totals.get(p, 0)}" for p in players)
                + f". Winner: {' and '.join(winners)}!")

    # -- perceive and infer ------------------------------------------------------------

    def perceiver(self, model: str | None = None) -> Perceiver:
        """The Big Top recogniser (mat, charts, cards, tokens), prepared: the first frame it reads costs what any
        table's first frame costs."""
        from vision.bigtop.pipeline import Recognizer

        recognizer = Recognizer() if model is None else Recognizer(model)
        recognizer.prepare()
        return recognizer

    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """The tableau, each chart's called cards and tokens, the hands laid open (None: a chart is out of sight)."""
        return sighting_from_view(view, tuple(players))

    def infer(self, state: BigTopState, sighting: Any) -> Inference:
        """A play, a call, or nothing, from the tableau and the charts."""
        snap: TableSnapshot = sighting.snapshot
        inference = infer_move(self.game, state, snap)
        if inference.kind in (InferenceKind.UNCHANGED, InferenceKind.SLIDE_ONLY):
            return Inference(Seen.UNCHANGED)
        if inference.kind is InferenceKind.UNEXPLAINED or inference.move is None:
            return Inference(Seen.UNEXPLAINED, message=inference.message)
        reminder = "Remember to slide your called cards down first." if inference.unslid else ""
        return Inference(Seen.MOVE, inference.move, reminder=reminder)

    def seat_press(self, state: BigTopState, seat: int) -> BigTopMove | None:
        """A press of a seat's button passes."""
        return BigTopMove(seat, Action.PASS)

    def move_text(self, state: BigTopState, move: BigTopMove, events: tuple[Event, ...]) -> str:
        """Who earned what, or the move in words."""
        earned = [e.text for e in events if e.what in ("earned", "out") and e.text]
        if earned:
            return " ".join(earned)
        text = self.game.format_move(state, move)
        return text.replace(" play ", " plays ").replace(" call ", " calls ").replace(" pass", " passes")

    def teach(self, state: BigTopState, seat: int, sighting: Any, teaching: bool) -> str:
        """The seat's legal moves (its hand laid open, in teaching mode), else the cards playable now."""
        hand = _open_hand(sighting, seat) if teaching else None
        if state.hands is None and hand is not None and state.to_move == seat and state.out is None:
            # the seat's open hand is all that its legal moves depend on
            state = dataclasses.replace(
                state, hands=tuple(hand if i == seat else frozenset() for i in range(len(state.charts))))
        if state.hands is not None and state.to_move == seat and state.out is None:
            moves = self.game.legal_moves(state)
            return "Legal: " + ", ".join(self.game.format_move(state, m).split(" ", 1)[1] for m in moves)
        if hand is not None:
            cards = sorted((c for c in hand if c in state.playable), key=lambda c: c.index)
            return ("Playable from your hand now: " + ", ".join(_short(c) for c in cards)) if cards \
                else "None of your cards is playable now."
        playable = sorted(state.playable, key=lambda c: c.index)
        called = [c for c in state.charts[seat] if c is not None and c in state.playable]
        text = "Playable now: " + ", ".join(_short(c) for c in playable)
        if called:
            text = f"Your called {called[0].describe()} is playable. " + text
        return text

    # -- screens ----------------------------------------------------------------------

    def seat_view(self, state: BigTopState, seat: int, warning: str) -> SeatView:
        """Money, track token and called cards (peanuts in Fan Tan)."""
        return seat_view(state, seat, warning)

    def render_seat(self, view: Any, draw: ImageDraw.ImageDraw) -> None:
        """Draw a `SeatView`."""
        render_seat(view, draw)

    def central_view(self, state: BigTopState, *, part: int, parts: int, last_event: str, hint: str) -> CentralView:
        """The hand of the game, whose turn it is (and the pot in Fan Tan), the last event, a hint."""
        return central_view(self.game, state, hand=part, hands=parts, last_event=last_event, hint=hint)

    # -- the simulated table --------------------------------------------------------------

    def simulated_night(self, players: Sequence[str], parts: int, seed: int,
                        illegal_every: int | None = None) -> SimulatedNight:
        """Random players dealt ``parts`` hands, filmed by the simulated overhead camera."""
        from firmware.bigtop.simcamera import SimulatedCamera
        from firmware.bigtop.tablesim import SimulatedTable

        table = SimulatedTable(list(players), hands=parts, seed=seed, illegal_every=illegal_every, game=self.game)
        return TableNight(table, SimulatedCamera)

    def open_simulated(self, arg: str) -> FrameSource:
        """``simulated:seats=N,hands=H,seed=S,illegal_every=K,still_frames=F,moving_frames=M``."""
        from firmware.bigtop.simcamera import open_simulated

        return open_simulated(arg, self.game)

    def differences(self, record: Mapping[str, Any], truth: Mapping[str, Any]) -> list[str]:
        """Hands, moves, tokens, money per hand and totals compared."""
        problems: list[str] = []
        got_hands, want_hands = _parts(record), _parts(truth)
        if len(got_hands) != len(want_hands):
            problems.append(f"the referee recorded {len(got_hands)} hands, the game had {len(want_hands)}")
        for n, (got, want) in enumerate(zip(got_hands, want_hands), 1):
            if got.get("moves") != want.get("moves"):
                g, w = got.get("moves", []), want.get("moves", [])
                k = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
                problems.append(f"hand {n}: move {k + 1} differs: referee {g[k] if k < len(g) else 'nothing'!r}, "
                                f"truth {w[k] if k < len(w) else 'nothing'!r}")
            if got.get("investments") != want.get("investments"):
                problems.append(f"hand {n}: the tokens read at the end differ from the dealt ones")
        result, expected = self.game.replay(record).data, self.game.replay(truth).data
        for n, (got, want) in enumerate(zip(_parts(result), _parts(expected)), 1):
            if got.get("players") != want.get("players"):
                problems.append(f"hand {n}: results differ: referee {got.get('players')}, truth {want.get('players')}")
        players = list(truth.get("players", []))
        unit = "total" if self.game.allows_calling else "peanuts"
        if _totals(result, players, unit) != _totals(expected, players, unit):
            problems.append(f"totals differ: referee {_totals(result, players, unit)}, "
                            f"truth {_totals(expected, players, unit)}")
        return problems


@register_adapter
class FanTanTable(BigTopTable):
    """Fan Tan at the table: the mat without charts; peanuts and the pot kept by the referee."""

    name: ClassVar[str] = "fantan"
    _game: ClassVar[BigTop] = FanTan()

    def _start_peanuts(self, header: Mapping[str, Any], players: Sequence[str]) -> list[int] | None:
        peanuts = header.get("peanuts")
        if isinstance(peanuts, Mapping):
            return [int(peanuts[p]) for p in players]
        return None

    def is_game_over(self, state: BigTopState, part: int, parts: int) -> bool:
        """After the planned hands, or as soon as someone has no peanut left."""
        broke = state.peanuts is not None and min(state.peanuts) == 0
        return broke or part >= parts

    def part_over_text(self, state: BigTopState, players: Sequence[str]) -> tuple[str, str]:
        """Who went out and took the pot."""
        out = players[state.out] if state.out is not None else "?"
        return f"{out} went out and takes the pot.", ""

    def reveal_missing(self, header: Mapping[str, Any]) -> str:
        """Nothing is shown at the end of a Fan Tan hand."""
        return ""

    def reveal(self, state: BigTopState, sighting: Any, players: Sequence[str],
               header: Mapping[str, Any]) -> dict[str, Any] | None:
        """Nothing to read."""
        return None

    def final_text(self, results: Mapping[str, Any], players: Sequence[str]) -> str:
        """Every player's peanuts and the winner (most peanuts)."""
        totals = _totals(results, players, "peanuts")
        best = max(totals.values(), default=0)
        winners = [p for p in players if totals.get(p) == best]
        return ("Final: " + ", ".join(f"{p} {totals.get(p, 0)}" for p in players)
                + f" peanuts. Winner: {' and '.join(winners)}!")

    def sighting(self, view: Any, players: Sequence[str]) -> Sighting | None:
        """The tableau only (Fan Tan has no charts)."""
        return sighting_from_view(view, tuple(players), charts_used=False)

    def teach(self, state: BigTopState, seat: int, sighting: Any, teaching: bool) -> str:
        """The cards playable now (a hand laid open is not read in Fan Tan)."""
        playable = sorted(state.playable, key=lambda c: c.index)
        return "Playable now: " + ", ".join(_short(c) for c in playable)


def _totals(results: Mapping[str, Any], players: Sequence[str], unit: str) -> dict[str, int]:
    """Each player's game total (Big Top money, Fan Tan peanuts) from a replay report."""
    totals = results.get("totals")
    if isinstance(totals, Mapping):
        return {p: int(totals.get(p) or 0) for p in players}
    rows = results.get("players", {})
    return {p: int((rows.get(p) or {}).get(unit) or 0) for p in players}


def _open_hand(sighting: Any, seat: int) -> frozenset[Card] | None:
    """The cards ``seat`` plays open in front of its chart (None: not known)."""
    if not isinstance(sighting, Sighting) or sighting.open_hands is None:
        return None
    hand = sighting.open_hands[seat] if seat < len(sighting.open_hands) else frozenset()
    return hand or None


def _laid_open(state: BigTopState, seen: TableSnapshot) -> tuple[frozenset[Card], ...]:
    """The cards on each chart that were not called: the ones laid open at the end of the hand."""
    out = []
    for seat, chart in enumerate(state.charts):
        called = {c for c in chart if c is not None}
        on_chart = seen.charts[seat] if seat < len(seen.charts) else ()
        out.append(frozenset(c for c in on_chart if c is not None and c not in called))
    return tuple(out)


def _short(card: Card) -> str:
    rank = card.notation().split("-", 1)[1]
    return f"{card.suit.title} {rank}"
