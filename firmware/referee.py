"""The referee: accepted camera views and button presses in; journal entries and screens out. One for every game.

The referee holds no hidden cards: it works with public information only.
What a stable view means is the game's business (its `firmware.table.TableAdapter`):
a view that changes the table becomes a move, which the rules engine checks
before it is written to the journal. An illegal move is shown with its reason
and the referee waits until the table is put back (or OK is held to let it
stand); a view it cannot explain, or an unrecognised component where
components belong, holds the referee with a question instead of a guess.

Buttons: a seat's button makes the game's seat move (a pass in Big Top) when
pressed and shows a hint when held; UNDO asks to undo the last move and OK
confirms; MODE starts the next part (a Big Top hand) or cancels; holding OK
lets an illegal move stand or ignores an unrecognised object.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from firmware.journal import Journal, JournalError, LiveGame
from firmware.screens import CentralView
from firmware.table import Seen, TableAdapter, adapter
from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.core import Event, TableError

__all__ = ["Mode", "Referee"]


class Mode(enum.Enum):
    """What the referee is doing."""

    PLAYING = "playing"
    #: An illegal move lies on the table; waiting for it to be taken back (or OK held).
    ILLEGAL = "illegal"
    #: The view cannot be explained, or something unrecognised lies where components belong.
    QUESTION = "question"
    #: UNDO was pressed; OK confirms, MODE cancels.
    CONFIRM_UNDO = "confirm undo"
    #: A part of the game (a Big Top hand) is over; waiting for what players must show, then MODE.
    PART_OVER = "part over"
    #: The game is scored.
    GAME_OVER = "game over"


#: The journal's game-level field that remembers how many parts were planned
#: (journals written before the table stack call it ``planned_hands``).
PLANNED = "planned_parts"


class Referee:
    """Referees one game kept in a journal, through the game's table adapter (public information only).

    ``parts`` is how many parts (Big Top hands) the game lasts (default: the adapter's).
    """

    def __init__(self, live: LiveGame[Any, Any], table: TableAdapter[Any, Any] | None = None, *,
                 parts: int | None = None, teaching: bool = False) -> None:
        self.table = table if table is not None else adapter(live.game.name).for_game(live.game)
        if self.table.game.name != live.game.name:
            raise JournalError(f"this referee plays {self.table.game.info.title}, not {live.game.info.title}")
        self.live = live
        self.game = live.game
        self.parts = parts if parts is not None else self.table.default_parts(len(live.players))
        self.teaching = teaching
        self.mode = Mode.PLAYING
        self.warnings: dict[int, str] = {}
        self.last_event = ""
        self.hint = ""
        self.pending: Any = None
        self.log: list[str] = []
        self._last_sighting: Any = None
        self._ignore_unrecognised = False
        if not live.has_state:
            self._start_part(None)
        elif live.finished:
            self.mode = Mode.GAME_OVER
            self._show_final()
        elif self.table.is_part_over(live.state):
            self._enter_part_over()

    # -- construction ----------------------------------------------------------------

    @classmethod
    def new_game(cls, journal: Journal, players: Sequence[str], *, table: TableAdapter[Any, Any] | str = "bigtop",
                 parts: int | None = None, teaching: bool = False,
                 header: Mapping[str, Any] | None = None) -> Referee:
        """Start a new game of ``table`` (an adapter or a game name) in the journal.

        :raises TableError: when the game cannot be played by these players.
        """
        chosen = adapter(table) if isinstance(table, str) else table
        chosen.check_players(players)
        fields = dict(header or {})
        if parts is not None:
            fields[PLANNED] = parts
        live: LiveGame[Any, Any] = journal.new_game(chosen.game, players, fields)
        return cls(live, chosen, parts=parts, teaching=teaching)

    @classmethod
    def resume(cls, journal: Journal, *, teaching: bool = False, game: str | None = None) -> Referee | None:
        """The game in progress in the journal (of ``game`` when given), after a restart or a power cut.

        It goes on as it was started: with the engine and adapter its journal names (The Grand Carnival
        with the component values it was started with, whatever the user's file says now). None when
        there is none.

        :raises TableError: when the journal's game cannot be refereed at the table.
        """
        live = journal.resume(game)
        if live is None:
            return None
        planned = live.header.get(PLANNED, live.header.get("planned_hands"))
        return cls(live, parts=planned if isinstance(planned, int) else None, teaching=teaching)

    # -- queries --------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current state (public information)."""
        return self.live.state

    @property
    def part_number(self) -> int:
        """The current part (Big Top hand), counted from 1."""
        return self.live.part_number()

    def results(self) -> Mapping[str, Any]:
        """The game as the journal's record replays (`scorer.core.Game.replay`'s report data)."""
        return self.game.replay(self.live.export()).data

    def seat_views(self) -> list[Any]:
        """What every seat's panel shows now."""
        return [self.table.seat_view(self.state, seat, self.warnings.get(seat, ""))
                for seat in range(len(self.live.players))]

    def central(self) -> CentralView:
        """What the central panel shows now."""
        return self.table.central_view(self.state, part=self.part_number, parts=self.parts,
                                       last_event=self.last_event, hint=self.hint)

    # -- camera ---------------------------------------------------------------------

    def see(self, sighting: Any) -> None:
        """React to a stable camera view (the game's sighting)."""
        self._last_sighting = sighting
        if self.mode is Mode.GAME_OVER:
            return
        if self.mode is Mode.PART_OVER:
            self._reveal(sighting)
            return
        if self.mode is Mode.CONFIRM_UNDO:
            return
        sighting = self.table.fill_held(self.state, sighting)
        unrecognised = tuple(sighting.unrecognised)
        if unrecognised and not self._ignore_unrecognised:
            self._ask(f"What is this? {unrecognised[0]} Fix it, or hold OK to ignore it.")
            return
        inference = self.table.infer(self.state, sighting)
        if inference.seen is Seen.UNCHANGED:
            if self.mode in (Mode.ILLEGAL, Mode.QUESTION):
                self._say("The table is back as it was.")
            self._settle()
            return
        if inference.seen is Seen.UNEXPLAINED or inference.move is None:
            self._ask(f"{inference.message} Put it back as it was, or fix it.")
            return
        move = inference.move
        check = self.game.check(self.state, move)
        text = self.game.format_move(self.state, move)
        if check.is_illegal:
            self.mode = Mode.ILLEGAL
            self.pending = move
            seat = self.game.current_player(self.state)
            self.warnings = {seat: check.message} if seat is not None else {}
            self.last_event = f"Illegal: {check.message}"
            self.hint = "Take it back, or hold OK to let it stand."
            self.log.append(f"illegal {text}: {check.message}")
            return
        self._accept(move, reminder=inference.reminder)

    # -- buttons ----------------------------------------------------------------------

    def press(self, event: ButtonEvent) -> None:
        """React to a button gesture."""
        if event.seat is not None:
            if event.seat >= len(self.live.players):
                return
            if event.gesture is Gesture.HOLD:
                self.hint = self.table.teach(self.state, event.seat, self._last_sighting, self.teaching) \
                    or "No hint for this seat now."
            elif self.mode is Mode.PLAYING:
                self._seat_move(event.seat)
            return
        pad, held = event.pad, event.gesture is Gesture.HOLD
        if pad is Pad.UNDO and self.mode in (Mode.PLAYING, Mode.ILLEGAL, Mode.PART_OVER):
            moves = self.live.moves()
            if not moves:
                self._say("There is no move to undo.")
                return
            self.mode = Mode.CONFIRM_UNDO
            self.hint = f"Undo '{moves[-1]}'? OK: yes, MODE: no."
        elif pad is Pad.OK and self.mode is Mode.CONFIRM_UNDO:
            undone = self.live.undo("UNDO confirmed on the pad")
            self.log.append(f"undo {undone}")
            self._say(f"Undone: {undone}.")
            self._settle()
            self.mode = Mode.PLAYING
            if self.table.is_part_over(self.state):
                self._enter_part_over()
        elif pad is Pad.MODE and self.mode is Mode.CONFIRM_UNDO:
            self._settle()
            self.mode = Mode.PLAYING
            if self.table.is_part_over(self.state):
                self._enter_part_over()
        elif pad is Pad.OK and held and self.mode is Mode.ILLEGAL and self.pending is not None:
            move, self.pending = self.pending, None
            text = self.game.format_move(self.state, move)
            before = self.state
            events = self.live.override(move, "OK held: the players let it stand")
            self.log.append(f"override {text}")
            self._after_move(before, move, events)
        elif pad is Pad.OK and held and self.mode is Mode.QUESTION:
            self._settle()
            self._ignore_unrecognised = True
            if self._last_sighting is not None:
                self.see(self._last_sighting)
        elif pad is Pad.MODE and self.mode is Mode.PART_OVER:
            missing = self.table.reveal_missing(self.live.part_header())
            if missing:
                self.hint = missing
                return
            self._next_part()

    # -- internals ----------------------------------------------------------------------

    def _start_part(self, previous: Any) -> None:
        players = self.live.players
        number = self.live.part_number() + 1
        header, state, event, hint = self.table.start_part(players, number, previous, self.live.header)
        self.live.start_part(header, state)
        self.mode = Mode.PLAYING
        self._settle()
        self.last_event, self.hint = event, hint

    def _next_part(self) -> None:
        if self.table.is_game_over(self.state, self.part_number, self.parts):
            self.mode = Mode.GAME_OVER
            self.live.finish()
            self._show_final()
            return
        self._start_part(self.state)

    def _show_final(self) -> None:
        try:
            self.last_event = self.table.final_text(self.results(), self.live.players)
        except (TableError, JournalError) as exc:
            self.last_event = f"The game is over; its record does not replay: {exc}"
        self.hint = ""

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

    def _accept(self, move: Any, *, reminder: str = "") -> None:
        before = self.state
        text = self.game.format_move(before, move)
        check = self.game.check(before, move)
        events = self.live.play(move, "" if check.is_legal else f"cannot verify: {check.message}")
        self.log.append(text)
        self._after_move(before, move, events)
        if reminder and self.mode is Mode.PLAYING:
            self.hint = reminder

    def _after_move(self, before: Any, move: Any, events: tuple[Event, ...]) -> None:
        self._settle()
        self.mode = Mode.PLAYING
        self.last_event = self.table.move_text(before, move, events)
        if self.table.is_part_over(self.state):
            self._enter_part_over()

    def _enter_part_over(self) -> None:
        self.mode = Mode.PART_OVER
        self.last_event, self.hint = self.table.part_over_text(self.state, self.live.players)
        if not self.table.reveal_missing(self.live.part_header()) and not self.hint:
            self.hint = self._mode_hint()

    def _mode_hint(self) -> str:
        word = self.table.part_word or "part"
        if self.table.is_game_over(self.state, self.part_number, self.parts):
            return "MODE: final scores."
        return f"MODE: next {word}."

    def _seat_move(self, seat: int) -> None:
        move = self.table.seat_press(self.state, seat)
        if move is None:
            return
        check = self.game.check(self.state, move)
        if check.is_illegal:
            self.warnings = {seat: check.message}
            self.last_event = f"Illegal: {check.message}"
            return
        self._accept(move)

    def _reveal(self, sighting: Any) -> None:
        """Read what players show at the end of a part; until MODE, a changed view replaces it."""
        header = self.live.part_header()
        fields = self.table.reveal(self.state, sighting, self.live.players, header)
        if fields is None:
            missing = self.table.reveal_missing(header)
            if missing:
                self.hint = missing
            return
        if all(header.get(k) == v for k, v in fields.items()):
            return
        self.live.record_event("reveal", fields)
        self.last_event = self.table.part_over_text(self.state, self.live.players)[0]
        summary = self.table.part_summary(self.results(), self.part_number, self.live.players)
        if summary:
            self.last_event = summary
        self.hint = self._mode_hint()
