"""The Big Top referee: accepted camera views and button presses in; journal entries and screens out.

The referee holds no hands: it works with public information only. A view
that changes the table is turned into a move by `scorer.bigtop.infer_move`
and checked by the rules engine before it is written to the journal. An
illegal move is shown with its reason and the referee waits until the table
is put back (or OK is held to let it stand); a view it cannot explain, or an
unrecognised component where cards belong, holds the referee with a question
instead of a guess.

Buttons: a seat's button is a pass (press) or a hint (hold); UNDO asks to
undo the last move and OK confirms; MODE starts the next hand or cancels;
holding OK lets an illegal move stand or ignores an unrecognised object.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from firmware.journal import Journal, JournalError, LiveGame
from firmware.screens import CentralView, SeatView, central_view, seat_view
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.bigtop import Action, BigTop, BigTopMove, BigTopState, Card, Suit
from scorer.bigtop.observe import InferenceKind, TableSnapshot, infer_move
from scorer.core import Event

__all__ = ["Mode", "Referee", "Sighting"]


class Mode(enum.Enum):
    """What the referee is doing."""

    PLAYING = "playing"
    #: An illegal move lies on the table; waiting for it to be taken back (or OK held).
    ILLEGAL = "illegal"
    #: The view cannot be explained, or something unrecognised lies where cards belong.
    QUESTION = "question"
    #: UNDO was pressed; OK confirms, MODE cancels.
    CONFIRM_UNDO = "confirm undo"
    #: Someone went out; waiting for the tokens and the remaining cards to be shown.
    HAND_OVER = "hand over"
    #: The last hand of the game is scored.
    GAME_OVER = "game over"


@dataclass(frozen=True, slots=True)
class Sighting:
    """One stable camera view, reduced to what the referee needs.

    ``unrecognised`` describes objects that lie where components belong and
    could not be identified. ``tokens[seat]`` gives the gate-receipt values
    turned face up on that seat's chart, by suit (None where still face down
    or not seen); ``laid_open[seat]`` the cards a player laid open on their
    chart at the end of a hand; ``open_hands[seat]`` the cards lying face up
    on the table in front of that seat's chart (a hand played open, in
    teaching mode; None when no such card is seen).
    """

    snapshot: TableSnapshot
    unrecognised: tuple[str, ...] = ()
    tokens: tuple[tuple[int | None, int | None, int | None, int | None], ...] | None = None
    laid_open: tuple[frozenset[Card], ...] | None = None
    open_hands: tuple[frozenset[Card], ...] | None = None


class Referee:
    """Referees one Big Top game kept in a journal (public information only).

    ``hands`` is how many hands the game lasts (default: each player deals
    once, twice with three players).
    """

    def __init__(self, live: LiveGame[BigTopState, BigTopMove], *, hands: int | None = None,
                 teaching: bool = False) -> None:
        if not isinstance(live.game, BigTop):
            raise JournalError(f"this referee plays Big Top, not {live.game.info.title}")
        self.live = live
        self.game: BigTop = live.game
        self.hands = hands if hands is not None else self.game.hands_in_game(len(live.players))
        self.teaching = teaching
        self.mode = Mode.PLAYING
        self.warnings: dict[int, str] = {}
        self.last_event = ""
        self.hint = ""
        self.pending: BigTopMove | None = None
        self.log: list[str] = []
        self._last_sighting: Sighting | None = None
        self._ignore_unrecognised = False
        if not live.has_state:
            self._start_hand(0)
        elif live.state.out is not None:
            self._enter_hand_over()

    # -- construction ----------------------------------------------------------------

    @classmethod
    def new_game(cls, journal: Journal, players: Sequence[str], *, game: BigTop | None = None,
                 hands: int | None = None, teaching: bool = False) -> Referee:
        """Start a new game in the journal (the first dealer is the first player)."""
        engine = game or BigTop()
        live: LiveGame[BigTopState, BigTopMove] = journal.new_game(engine, players, {"planned_hands": hands} if hands else None)
        return cls(live, hands=hands, teaching=teaching)

    @classmethod
    def resume(cls, journal: Journal, *, teaching: bool = False) -> Referee | None:
        """The game in progress in the journal, after a restart or a power cut."""
        live = journal.resume()
        if live is None:
            return None
        header = journal.db.execute("SELECT header FROM games WHERE id = ?", (live.id,)).fetchone()[0]
        hands = json.loads(header).get("planned_hands")
        return cls(live, hands=hands, teaching=teaching)

    # -- queries --------------------------------------------------------------------

    @property
    def state(self) -> BigTopState:
        """The current state of the hand (public information)."""
        return self.live.state

    @property
    def hand_number(self) -> int:
        """The current hand, counted from 1."""
        return self.live.hand_number()

    def results(self) -> Mapping[str, Any]:
        """The game as the journal's record replays: per hand, and totals."""
        record = self.live.export()
        report = self.game.replay(record)
        data = dict(report.data)
        if "hands" not in data:
            data = {"hands": [data], "totals": {p: data["players"][p]["total"] or 0 for p in self.live.players}}
        return data

    def seat_views(self) -> list[SeatView]:
        """What every seat's panel shows now."""
        return [seat_view(self.state, seat, self.warnings.get(seat, "")) for seat in range(len(self.live.players))]

    def central(self) -> CentralView:
        """What the central panel shows now."""
        return central_view(
            self.game, self.state, hand=self.hand_number, hands=self.hands,
            last_event=self.last_event, hint=self.hint,
        )

    # -- camera ---------------------------------------------------------------------

    def see(self, sighting: Sighting) -> None:
        """React to a stable camera view."""
        self._last_sighting = sighting
        if self.mode in (Mode.HAND_OVER, Mode.GAME_OVER):
            self._reveal(sighting)
            return
        if self.mode is Mode.CONFIRM_UNDO:
            return
        if sighting.unrecognised and not self._ignore_unrecognised:
            self._ask(f"What is this? {sighting.unrecognised[0]} Fix it, or hold OK to ignore it.")
            return
        inference = infer_move(self.game, self.state, sighting.snapshot)
        if inference.kind in (InferenceKind.UNCHANGED, InferenceKind.SLIDE_ONLY):
            if self.mode in (Mode.ILLEGAL, Mode.QUESTION):
                self._say("The table is back as it was.")
            self._settle()
            return
        if inference.kind is InferenceKind.UNEXPLAINED or inference.move is None:
            self._ask(f"{inference.message} Put it back as it was, or fix it.")
            return
        move = inference.move
        check = self.game.check(self.state, move)
        text = self.game.format_move(self.state, move)
        if check.is_illegal:
            self.mode = Mode.ILLEGAL
            self.pending = move
            self.warnings = {move.player: check.message}
            self.last_event = f"Illegal: {check.message}"
            self.hint = "Take it back, or hold OK to let it stand."
            self.log.append(f"illegal {text}: {check.message}")
            return
        self._accept(move, unslid=inference.unslid)

    # -- buttons ----------------------------------------------------------------------

    def press(self, event: ButtonEvent) -> None:
        """React to a button gesture."""
        if event.seat is not None:
            if event.seat >= len(self.live.players):
                return
            if event.gesture is Gesture.HOLD:
                self._teach(event.seat)
            elif self.mode is Mode.PLAYING:
                self._pass(event.seat)
            return
        pad, held = event.pad, event.gesture is Gesture.HOLD
        if pad is Pad.UNDO and self.mode in (Mode.PLAYING, Mode.ILLEGAL, Mode.HAND_OVER):
            moves = self.live.moves()
            if not moves:
                self._say("There is no move to undo in this hand.")
                return
            self.mode = Mode.CONFIRM_UNDO
            self.hint = f"Undo '{moves[-1]}'? OK: yes, MODE: no."
        elif pad is Pad.OK and self.mode is Mode.CONFIRM_UNDO:
            undone = self.live.undo("UNDO confirmed on the pad")
            self.log.append(f"undo {undone}")
            self._say(f"Undone: {undone}.")
            self._settle()
            if self.state.out is None:
                self.mode = Mode.PLAYING
        elif pad is Pad.MODE and self.mode is Mode.CONFIRM_UNDO:
            self._settle()
            self.mode = Mode.HAND_OVER if self.state.out is not None else Mode.PLAYING
            if self.mode is Mode.HAND_OVER:
                self._enter_hand_over()
        elif pad is Pad.OK and held and self.mode is Mode.ILLEGAL and self.pending is not None:
            move, self.pending = self.pending, None
            text = self.game.format_move(self.state, move)
            events = self.live.override(move, "OK held: the players let it stand")
            self.log.append(f"override {text}")
            self._after_move(text, events)
        elif pad is Pad.OK and held and self.mode is Mode.QUESTION:
            self._settle()
            self._ignore_unrecognised = True
            if self._last_sighting is not None:
                self.see(self._last_sighting)
        elif pad is Pad.MODE and self.mode is Mode.HAND_OVER:
            if "investments" not in self.live.hand_header():
                self.hint = "Turn all your tokens face up first, then press MODE."
                return
            self._next_hand()

    # -- internals ----------------------------------------------------------------------

    def _start_hand(self, dealer: int) -> None:
        players = self.live.players
        state = self.game.start_hand(players, dealer, None, None)
        self.live.start_hand({"dealer": players[dealer]}, state)
        self.mode = Mode.PLAYING
        self._settle()
        self.last_event = f"{players[dealer]} deals."
        self.hint = f"{players[state.to_move]} starts."

    def _next_hand(self) -> None:
        if self.hand_number >= self.hands:
            self.mode = Mode.GAME_OVER
            self.live.finish()
            return
        self._start_hand((self.state.dealer + 1) % len(self.live.players))

    def _settle(self) -> None:
        self.pending = None
        self.warnings = {}
        self.hint = ""
        self._ignore_unrecognised = False
        if self.mode in (Mode.ILLEGAL, Mode.QUESTION):
            self.mode = Mode.PLAYING

    def _say(self, text: str) -> None:
        self.last_event = text

    def _ask(self, question: str) -> None:
        self.mode = Mode.QUESTION
        self.hint = question
        self.log.append(f"question: {question}")

    def _accept(self, move: BigTopMove, *, unslid: bool) -> None:
        text = self.game.format_move(self.state, move)
        check = self.game.check(self.state, move)
        events = self.live.play(move, "" if check.is_legal else f"cannot verify: {check.message}")
        self.log.append(text)
        self._after_move(text, events)
        if unslid and self.mode is Mode.PLAYING:
            self.hint = "Remember to slide your called cards down first."

    def _after_move(self, text: str, events: tuple[Event, ...]) -> None:
        self._settle()
        self.mode = Mode.PLAYING
        earned = [e.text for e in events if e.what == "earned"]
        self.last_event = " ".join(earned) if earned else text.replace(" play ", " plays ").replace(
            " call ", " calls ").replace(" pass", " passes")
        if self.state.out is not None:
            self._enter_hand_over()

    def _enter_hand_over(self) -> None:
        self.mode = Mode.HAND_OVER
        out = self.live.players[self.state.out] if self.state.out is not None else "?"
        self.last_event = f"{out} went out."
        self.hint = "Tokens face up; lay one card of each suit you hold on your chart."

    def _pass(self, seat: int) -> None:
        move = BigTopMove(seat, Action.PASS)
        check = self.game.check(self.state, move)
        if check.is_illegal:
            self.warnings = {seat: check.message}
            self.last_event = f"Illegal: {check.message}"
            return
        self._accept(move, unslid=False)

    def _open_hand(self, seat: int) -> frozenset[Card] | None:
        """In teaching mode, the cards ``seat`` plays open in front of its chart (None: not known)."""
        sighting = self._last_sighting
        if not self.teaching or sighting is None or sighting.open_hands is None:
            return None
        hand = sighting.open_hands[seat] if seat < len(sighting.open_hands) else frozenset()
        return hand or None

    def _teach(self, seat: int) -> None:
        state = self.state
        hand = self._open_hand(seat)
        if state.hands is None and hand is not None and state.to_move == seat and state.out is None:
            # the seat's open hand is all that its legal moves depend on
            state = dataclasses.replace(
                state, hands=tuple(hand if i == seat else frozenset() for i in range(len(state.charts))))
        if state.hands is not None and state.to_move == seat and state.out is None:
            moves = self.game.legal_moves(state)
            self.hint = "Legal: " + ", ".join(self.game.format_move(state, m).split(" ", 1)[1] for m in moves)
            return
        if hand is not None:
            cards = sorted((c for c in hand if c in state.playable), key=lambda c: c.index)
            self.hint = ("Playable from your hand now: " + ", ".join(_short(c) for c in cards)) if cards \
                else "None of your cards is playable now."
            return
        playable = sorted(state.playable, key=lambda c: c.index)
        called = [c for c in state.charts[seat] if c is not None and c in state.playable]
        text = "Playable now: " + ", ".join(_short(c) for c in playable)
        if called:
            text = f"Your called {called[0].describe()} is playable. " + text
        self.hint = text

    def _reveal(self, sighting: Sighting) -> None:
        """Read the end-of-hand reveal: every token face up, one card of each suit still held laid open.

        Until MODE is pressed a changed view replaces the reveal (players may
        correct a token or a card).
        """
        if self.mode is Mode.GAME_OVER:
            return
        players = self.live.players
        tokens = sighting.tokens
        if tokens is None or len(tokens) != len(players) or any(None in row for row in tokens):
            if "investments" not in self.live.hand_header():
                self.hint = "Turn all your tokens face up, then press MODE."
            return
        shown = sighting.laid_open if sighting.laid_open is not None else self._laid_open(sighting.snapshot)
        self.live.reveal(
            {"investments": {players[i]: {s.label: v for s, v in zip(Suit, row)} for i, row in enumerate(tokens)}},
            {players[i]: [c.notation() for c in sorted(cards, key=lambda c: c.index)] for i, cards in enumerate(shown)},
        )
        hand = self.results()["hands"][-1]
        money = ", ".join(f"{p} ${r['total']}" if r["total"] is not None else f"{p} ?"
                          for p, r in hand["players"].items())
        self.last_event = f"Hand {self.hand_number}: {money}"
        self.hint = "MODE: next hand." if self.hand_number < self.hands else "MODE: final scores."

    def _laid_open(self, seen: TableSnapshot) -> tuple[frozenset[Card], ...]:
        """The cards on each chart that were not called: the ones laid open at the end of the hand."""
        out = []
        for seat, chart in enumerate(self.state.charts):
            called = {c for c in chart if c is not None}
            on_chart = seen.charts[seat] if seat < len(seen.charts) else ()
            out.append(frozenset(c for c in on_chart if c is not None and c not in called))
        return tuple(out)


def _short(card: Card) -> str:
    rank = card.notation().split("-", 1)[1]
    return f"{card.suit.title} {rank}"
