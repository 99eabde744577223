"""The Big Top rules engine (one hand), and its Fan Tan variant.

Follows the seed rule text and docs/rules.md §4. A state is one hand as it
lies on the table; `BigTop.play` returns the next state and the money it
earned. The slide of the mover's called cards at the start of a turn is part
of every move.

>>> import random
>>> from scorer.bigtop import BigTop
>>> game = BigTop()
>>> state = game.new_state(["Alf", "Henry", "Charles"], random.Random(1))
>>> game.player_name(state, game.current_player(state))
'Henry'
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from scorer.bigtop.cards import DECK, Card, Shade, Suit
from scorer.core import (
    LEGAL,
    Check,
    Event,
    Game,
    GameInfo,
    HiddenInformation,
    MalformedMove,
    Outcome,
    RecordError,
    ReplayReport,
)

__all__ = [
    "CHART_VALUES",
    "GATE_VALUES",
    "Action",
    "BigTop",
    "BigTopMove",
    "BigTopState",
    "Chart",
    "FanTan",
    "Pile",
    "Reason",
    "TrackToken",
    "deal",
    "slide",
    "track_token",
]

#: The money of the chart's spaces, from the space a call lands on to the last.
CHART_VALUES: tuple[int, int, int, int] = (3, 2, 1, 0)
#: The four gate-receipt tokens of every player.
GATE_VALUES: tuple[int, int, int, int] = (10, 7, 5, 3)

#: A player's Organizing Chart: the cards on $3, $2, $1 and $0 (None = empty).
Chart = tuple[Card | None, Card | None, Card | None, Card | None]
EMPTY_CHART: Chart = (None, None, None, None)


class Reason(enum.Enum):
    """Why a Big Top or Fan Tan move is illegal."""

    HAND_OVER = "hand over"
    NOT_YOUR_TURN = "not your turn"
    NOT_IN_HAND = "not in hand"
    NOT_PLAYABLE = "not playable"
    MUST_PLAY_CALLED = "must play called card"
    CALL_PLAYABLE = "call playable card"
    CALL_POSTER = "call poster"
    SUIT_ALREADY_CALLED = "suit already called"
    CHART_FULL = "chart full"
    PASS_WITH_PLAY = "pass with play"
    PASS_WITH_CALL = "pass with call"
    NO_CALLING = "no calling in fan tan"


class Action(enum.Enum):
    """What a move does."""

    PLAY = "play"
    CALL = "call"
    PASS = "pass"


@dataclass(frozen=True, slots=True)
class BigTopMove:
    """A move by the seat ``player``. ``card`` is None for a pass.

    ``play`` covers a card from the hand and a called card from the player's
    own chart: the engine knows which.
    """

    player: int
    action: Action
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Pile:
    """One suit of the tableau: Poster out, and the top light and dark numbers (0 = none)."""

    poster: bool = False
    light: int = 0
    dark: int = 0

    def next_cards(self, suit: Suit) -> tuple[Card, ...]:
        """The cards of ``suit`` that can be played on this pile now."""
        if not self.poster:
            return (DECK[suit * 13],)
        out = []
        if self.light < 6:
            out.append(DECK[suit * 13 + self.light + 1])
        if self.dark < 6:
            out.append(DECK[suit * 13 + 6 + self.dark + 1])
        return tuple(out)

    def top(self, shade: Shade) -> int:
        """The top number of the light or dark pile (0 = empty)."""
        return self.light if shade is Shade.LIGHT else self.dark

    def holds(self, card: Card) -> bool:
        """True when ``card`` has been played onto this pile."""
        if card.is_poster:
            return self.poster
        return card.number <= self.top(card.shade)

    def add(self, card: Card) -> Pile:
        """The pile with ``card`` played on it (no check)."""
        if card.is_poster:
            return Pile(True, self.light, self.dark)
        if card.shade is Shade.LIGHT:
            return Pile(self.poster, card.number, self.dark)
        return Pile(self.poster, self.light, card.number)


EMPTY_TABLEAU: tuple[Pile, Pile, Pile, Pile] = (Pile(), Pile(), Pile(), Pile())


@dataclass(frozen=True, slots=True)
class BigTopState:
    """One hand of Big Top (or Fan Tan) as it lies on the table.

    ``hands`` is None under public information (the live referee cannot see
    hands); ``hand_sizes`` is always known, since the deal is. ``charts`` hold
    each seat's called cards as they lie now: the mover's slide happens as part
    of the move. ``investments[seat][suit]`` is the gate-receipt token on that
    suit's picture. ``track`` is the money earned this hand. Fan Tan uses
    ``peanuts`` and ``pot`` instead of charts, investments and track.
    """

    players: tuple[str, ...]
    dealer: int
    to_move: int
    hands: tuple[frozenset[Card], ...] | None
    hand_sizes: tuple[int, ...]
    charts: tuple[Chart, ...]
    tableau: tuple[Pile, Pile, Pile, Pile]
    investments: tuple[tuple[int, int, int, int], ...] | None
    track: tuple[int, ...]
    out: int | None = None
    peanuts: tuple[int, ...] | None = None
    pot: int = 0
    moves_played: int = 0

    @property
    def is_public(self) -> bool:
        """True when the hands are hidden (public information)."""
        return self.hands is None

    @property
    def playable(self) -> frozenset[Card]:
        """Every card that can go on the tableau now."""
        return frozenset(c for suit in Suit for c in self.tableau[suit].next_cards(suit))

    def to_public(self) -> BigTopState:
        """The same state with the hands hidden."""
        return replace(self, hands=None)


@dataclass(frozen=True, slots=True)
class TrackToken:
    """How the physical scoring token shows an amount on the 1..20 track.

    ``space`` is None when the token is still beside the board ($0).
    ``on_board`` is False above $40, which the track cannot show.
    """

    plus20: bool
    space: int | None
    on_board: bool = True


def track_token(amount: int) -> TrackToken:
    """The scoring token for ``amount`` dollars, as the seed describes it.

    >>> track_token(22)
    TrackToken(plus20=True, space=2, on_board=True)
    >>> track_token(20)
    TrackToken(plus20=False, space=20, on_board=True)
    """
    if amount <= 0:
        return TrackToken(False, None)
    if amount <= 20:
        return TrackToken(False, amount)
    return TrackToken(True, amount - 20, amount <= 40)


def slide(chart: Chart) -> Chart:
    """The chart after the slide at the start of its owner's turn.

    Cards move one space toward $0, processed from the $0 end upward, so a
    card may move into the space the card ahead of it has just left; the card
    on $0 stays (docs/rules.md §4.2 items 2 and 3).
    """
    a, b, c, d = chart
    if d is None and c is not None:
        c, d = None, c
    if c is None and b is not None:
        b, c = None, b
    if b is None and a is not None:
        a, b = None, a
    return (a, b, c, d)


def deal(deck: Sequence[Card], players: int, dealer: int) -> list[list[Card]]:
    """Deal ``deck`` one card at a time, clockwise, starting left of the dealer."""
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % players].append(card)
    return hands


def _sorted(cards: frozenset[Card] | set[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.index)


class BigTop(Game[BigTopState, BigTopMove]):
    """Big Top: one hand per state; see `scorer.bigtop.record` for whole games."""

    name: ClassVar[str] = "bigtop"
    aliases: ClassVar[tuple[str, ...]] = ("big-top",)
    info: ClassVar[GameInfo] = GameInfo(
        title="Big Top", min_players=3, max_players=6, hidden_information=True, score_unit="$"
    )
    #: Whether players may call cards onto an Organizing Chart (not in Fan Tan).
    allows_calling: ClassVar[bool] = True

    # -- setting up ------------------------------------------------------------

    def new_state(self, players: Sequence[str], rng: random.Random, **options: Any) -> BigTopState:
        """Shuffle with ``rng`` and deal. Options: ``dealer`` (seat, default 0),
        ``investments`` (per seat, four values by suit; default: random)."""
        dealer = int(options.get("dealer", 0))
        deck = list(DECK)
        rng.shuffle(deck)
        investments = options.get("investments")
        if investments is None and self.allows_calling:
            investments = []
            for _ in players:
                values = list(GATE_VALUES)
                rng.shuffle(values)
                investments.append(tuple(values))
        hands = deal(deck, len(players), dealer)
        return self.start_hand(players, dealer, hands, investments, options.get("peanuts"))

    def start_hand(
        self,
        players: Sequence[str],
        dealer: int,
        hands: Sequence[Sequence[Card]] | None,
        investments: Sequence[Sequence[int]] | None,
        peanuts: Sequence[int] | None = None,
    ) -> BigTopState:
        """The state before the first move of a hand.

        With ``hands`` None the state has public information only; hand sizes
        then follow from dealing 52 cards starting left of the dealer.
        """
        n = len(players)
        if not self.info.min_players <= n <= self.info.max_players:
            raise RecordError(
                f"{self.info.title} is for {self.info.min_players} to "
                f"{self.info.max_players} players, not {n}",
                "players",
            )
        if hands is None:
            sizes = tuple(len(h) for h in deal(DECK, n, dealer))
            frozen = None
        else:
            frozen = tuple(frozenset(h) for h in hands)
            sizes = tuple(len(h) for h in frozen)
        inv = None if investments is None else tuple(
            (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for v in investments
        )
        return BigTopState(
            players=tuple(players),
            dealer=dealer,
            to_move=(dealer + 1) % n,
            hands=frozen,
            hand_sizes=sizes,
            charts=(EMPTY_CHART,) * n,
            tableau=EMPTY_TABLEAU,
            investments=inv,
            track=(0,) * n,
            peanuts=self._initial_peanuts(n, peanuts),
        )

    def _initial_peanuts(self, n: int, peanuts: Sequence[int] | None) -> tuple[int, ...] | None:
        return None

    # -- queries -----------------------------------------------------------------

    def player_name(self, state: BigTopState, seat: int) -> str:
        """The name of a seat."""
        return state.players[seat]

    def current_player(self, state: BigTopState) -> int | None:
        """The seat to move, or None once someone went out."""
        return None if state.out is not None else state.to_move

    def is_over(self, state: BigTopState) -> bool:
        """True once a player has gone out."""
        return state.out is not None

    def gate_receipts(
        self, state: BigTopState, final_hands: Sequence[Sequence[Card]] | None = None
    ) -> tuple[int | None, ...]:
        """Each seat's gate receipts at the end of the hand.

        A token pays when its suit has no card left in hand or on the chart,
        suits never dealt included (docs/rules.md §4.2 item 8). Before the end
        every seat has 0. Under public information ``final_hands`` (the cards
        laid open at the end) supplies the hidden hands; a seat whose cards
        are unknown gets None (cannot verify), and so does every seat while
        the tokens have not been turned face up (``investments`` unknown).
        """
        n = len(state.players)
        if state.out is None or not self.allows_calling:
            return (0,) * n
        if state.investments is None:
            return (None,) * n
        out: list[int | None] = []
        for seat in range(n):
            held: set[Suit] = {c.suit for c in state.charts[seat] if c is not None}
            if state.hands is not None:
                held.update(c.suit for c in state.hands[seat])
            elif final_hands is not None:
                held.update(c.suit for c in final_hands[seat])
            elif state.hand_sizes[seat] > 0:
                out.append(None)
                continue
            out.append(sum(v for suit, v in zip(Suit, state.investments[seat]) if suit not in held))
        return tuple(out)

    def scores(self, state: BigTopState) -> tuple[int, ...]:
        """Money this hand: track plus gate receipts (0 before the end; unknown gate counts 0)."""
        gates = self.gate_receipts(state)
        return tuple(t + (g or 0) for t, g in zip(state.track, gates))

    def outcome(self, state: BigTopState) -> Outcome | None:
        """Who made the most money this hand (ties shared), once someone is out."""
        if state.out is None:
            return None
        scores = self.scores(state)
        best = max(scores)
        return Outcome(
            tuple(i for i, s in enumerate(scores) if s == best),
            scores,
            f"{state.players[state.out]} went out",
        )

    def called_value(self, state: BigTopState, seat: int, card: Card) -> int | None:
        """What a called card is worth now to an opponent who matches it."""
        for value, c in zip(CHART_VALUES, state.charts[seat]):
            if c == card:
                return value
        return None

    # -- moves ---------------------------------------------------------------------

    def legal_moves(self, state: BigTopState) -> list[BigTopMove]:
        """Every legal move of the player to move (full information only).

        :raises HiddenInformation: under public information.
        """
        if state.out is not None:
            return []
        if state.hands is None:
            raise HiddenInformation("the legal moves depend on the hidden hand")
        p = state.to_move
        playable = state.playable
        chart = slide(state.charts[p])
        forced = [BigTopMove(p, Action.PLAY, c) for c in chart if c is not None and c in playable]
        if forced:
            return forced
        hand = state.hands[p]
        moves = [BigTopMove(p, Action.PLAY, c) for c in _sorted(hand & playable)]
        moves.extend(self._calls(state, p, chart, hand, playable))
        if not moves:
            moves.append(BigTopMove(p, Action.PASS))
        return moves

    def _calls(
        self, state: BigTopState, p: int, chart: Chart, hand: frozenset[Card], playable: frozenset[Card]
    ) -> list[BigTopMove]:
        if not self.allows_calling or chart[0] is not None:
            return []
        taken = {c.suit for c in chart if c is not None}
        return [
            BigTopMove(p, Action.CALL, c)
            for c in _sorted(hand)
            if c.suit not in taken and c not in playable
        ]

    def check(self, state: BigTopState, move: BigTopMove) -> Check:
        """Whether ``move`` is legal; UNVERIFIABLE when it hinges on a hidden hand."""
        if not isinstance(move, BigTopMove):
            return Check.illegal(Reason.NOT_YOUR_TURN, f"{move!r} is not a Big Top move")
        names = state.players
        if state.out is not None:
            return Check.illegal(Reason.HAND_OVER, f"The hand is over: {names[state.out]} went out.")
        p = state.to_move
        if move.player != p:
            who = names[move.player] if 0 <= move.player < len(names) else f"seat {move.player}"
            return Check.illegal(Reason.NOT_YOUR_TURN, f"It is {names[p]}'s turn, not {who}'s.")
        playable = state.playable
        chart = slide(state.charts[p])
        forced = [c for c in chart if c is not None and c in playable]
        card = move.card
        if move.action is Action.PASS:
            return self._check_pass(state, p, chart, forced, playable)
        if card is None:
            return Check.illegal(Reason.NOT_IN_HAND, f"A {move.action.value} needs a card.")
        if move.action is Action.PLAY and card in chart:
            if card in playable:
                return LEGAL
            return Check.illegal(
                Reason.NOT_PLAYABLE,
                f"Your called {card.describe()} can't be played yet: {_why_not(state, card)}",
            )
        if forced:
            return _must_play(forced)
        held = self._check_held(state, p, card)
        if held.is_illegal:
            return held
        if move.action is Action.PLAY:
            if card not in playable:
                return Check.illegal(
                    Reason.NOT_PLAYABLE, f"The {card.describe()} can't be played: {_why_not(state, card)}"
                )
            return held
        if not self.allows_calling:
            return Check.illegal(
                Reason.NO_CALLING, "Fan Tan has no calling: play a card if you can, else pass and pay a peanut."
            )
        if card.is_poster:
            return Check.illegal(
                Reason.CALL_POSTER,
                f"You can never call a Poster: the {card.describe()} can always be played, so play it.",
            )
        if card in playable:
            return Check.illegal(
                Reason.CALL_PLAYABLE,
                f"You can't call the {card.describe()}: it can be played now, so play it instead.",
            )
        if all(c is not None for c in chart):
            return Check.illegal(
                Reason.CHART_FULL, "Your Organizing Chart is full: with four called cards you can't call another."
            )
        for c in chart:
            if c is not None and c.suit is card.suit:
                return Check.illegal(
                    Reason.SUIT_ALREADY_CALLED,
                    f"You already have the {c.describe()} on your chart: only one called card per suit.",
                )
        return held

    def _check_held(self, state: BigTopState, p: int, card: Card) -> Check:
        if state.hands is not None:
            if card in state.hands[p]:
                return LEGAL
            return Check.illegal(Reason.NOT_IN_HAND, f"{state.players[p]} does not hold the {card.describe()}.")
        if state.hand_sizes[p] == 0:
            return Check.illegal(Reason.NOT_IN_HAND, f"{state.players[p]} has no cards left in hand.")
        if state.tableau[card.suit].holds(card):
            return Check.illegal(Reason.NOT_IN_HAND, f"The {card.describe()} is already on the tableau.")
        for seat, chart in enumerate(state.charts):
            if card in chart:
                return Check.illegal(
                    Reason.NOT_IN_HAND, f"The {card.describe()} lies on {state.players[seat]}'s chart."
                )
        return LEGAL

    def _check_pass(
        self, state: BigTopState, p: int, chart: Chart, forced: list[Card], playable: frozenset[Card]
    ) -> Check:
        if forced:
            return _must_play(forced)
        if state.hands is None:
            if state.hand_sizes[p] == 0:
                return LEGAL
            return Check.unverifiable(
                f"Cannot verify {state.players[p]}'s pass: it depends on the cards in hand.",
                Reason.PASS_WITH_PLAY,
            )
        hand = state.hands[p]
        can_play = _sorted(hand & playable)
        if can_play:
            return Check.illegal(
                Reason.PASS_WITH_PLAY, f"You can't pass: you can play the {can_play[0].describe()}."
            )
        calls = self._calls(state, p, chart, hand, playable)
        if calls:
            assert calls[0].card is not None
            return Check.illegal(
                Reason.PASS_WITH_CALL,
                f"You can't pass: you can call the {calls[0].card.describe()}.",
            )
        return LEGAL

    def apply_unchecked(self, state: BigTopState, move: BigTopMove) -> tuple[BigTopState, tuple[Event, ...]]:
        """Play ``move`` without checking it (slide first, then act)."""
        p = move.player
        n = len(state.players)
        chart = slide(state.charts[p])
        card = move.card
        hands = state.hands
        sizes = state.hand_sizes
        tableau = state.tableau
        track = state.track
        events: tuple[Event, ...] = ()
        peanuts, pot = state.peanuts, state.pot
        if move.action is Action.PASS:
            if peanuts is not None and peanuts[p] > 0:
                peanuts = peanuts[:p] + (peanuts[p] - 1,) + peanuts[p + 1 :]
                pot += 1
                events = (Event("peanut paid", ((p, -1),), f"{state.players[p]} passes and pays a peanut."),)
        else:
            assert card is not None
            if move.action is Action.PLAY and card in chart:
                chart = tuple(None if c == card else c for c in chart)  # type: ignore[assignment]
                tableau = _put(tableau, card)
            else:
                if hands is not None:
                    hands = hands[:p] + (hands[p] - {card},) + hands[p + 1 :]
                sizes = sizes[:p] + (sizes[p] - 1,) + sizes[p + 1 :]
                if move.action is Action.CALL:
                    chart = (card, chart[1], chart[2], chart[3])
                else:
                    tableau = _put(tableau, card)
                    earned = _earnings(state.charts, p, card)
                    if earned:
                        track = track[:p] + (track[p] + earned,) + track[p + 1 :]
                        events = (Event("earned", ((p, earned),), f"{state.players[p]} earns ${earned}."),)
        charts = state.charts[:p] + (chart,) + state.charts[p + 1 :]
        out = state.out
        if sizes[p] == 0 and all(c is None for c in chart):
            out = p
        new = BigTopState(
            players=state.players,
            dealer=state.dealer,
            to_move=(p + 1) % n,
            hands=hands,
            hand_sizes=sizes,
            charts=charts,
            tableau=tableau,
            investments=state.investments,
            track=track,
            out=out,
            peanuts=peanuts,
            pot=pot,
            moves_played=state.moves_played + 1,
        )
        if out is not None:
            new, end = self._end_hand(new)
            events += end
        return new, events

    def _end_hand(self, state: BigTopState) -> tuple[BigTopState, tuple[Event, ...]]:
        assert state.out is not None
        return state, (Event("out", (), f"{state.players[state.out]} went out."),)

    # -- notation and JSON -------------------------------------------------------

    def parse_move(self, state: BigTopState, text: str) -> BigTopMove:
        """Read ``"<player> play <card>"``, ``"<player> call <card>"`` or ``"<player> pass"``.

        :raises MalformedMove: when the text is not a move.
        """
        if not isinstance(text, str):
            raise MalformedMove(f"a move must be text like 'Alf play clowns-P', not {text!r}")
        words = text.split()
        if len(words) not in (2, 3):
            raise MalformedMove(
                f"cannot read the move {text!r}: write '<player> play <card>', "
                "'<player> call <card>' or '<player> pass'"
            )
        try:
            seat = state.players.index(words[0])
        except ValueError:
            raise MalformedMove(
                f"unknown player {words[0]!r} in the move {text!r}; players: {', '.join(state.players)}"
            ) from None
        try:
            action = Action(words[1].lower())
        except ValueError:
            raise MalformedMove(f"unknown action {words[1]!r} in {text!r}: use play, call or pass") from None
        if action is Action.PASS:
            if len(words) != 2:
                raise MalformedMove(f"a pass names no card: {text!r}")
            return BigTopMove(seat, action)
        if len(words) != 3:
            raise MalformedMove(f"a {action.value} needs a card: {text!r}")
        try:
            card = Card.parse(words[2])
        except RecordError as exc:
            raise MalformedMove(str(exc)) from None
        return BigTopMove(seat, action, card)

    def record_ended(self, state: BigTopState) -> str | None:
        """Once a player went out, a record's hand holds no more moves."""
        if state.out is None:
            return None
        return f"The hand is over: {state.players[state.out]} went out."

    def format_move(self, state: BigTopState, move: BigTopMove) -> str:
        """Write a move as records do, e.g. ``"Otto play sideshow-D1"``."""
        name = state.players[move.player]
        if move.card is None:
            return f"{name} {move.action.value}"
        return f"{name} {move.action.value} {move.card.notation()}"

    def state_to_json(self, state: BigTopState) -> dict[str, Any]:
        """The state as JSON-compatible data."""
        return {
            "game": self.name,
            "players": list(state.players),
            "dealer": state.players[state.dealer],
            "to_move": state.players[state.to_move],
            "hands": None
            if state.hands is None
            else {state.players[i]: [c.notation() for c in _sorted(h)] for i, h in enumerate(state.hands)},
            "hand_sizes": dict(zip(state.players, state.hand_sizes)),
            "charts": {
                state.players[i]: [None if c is None else c.notation() for c in chart]
                for i, chart in enumerate(state.charts)
            },
            "tableau": {
                s.label: {"poster": p.poster, "light": p.light, "dark": p.dark}
                for s, p in zip(Suit, state.tableau)
            },
            "investments": None
            if state.investments is None
            else {
                state.players[i]: {s.label: v for s, v in zip(Suit, inv)}
                for i, inv in enumerate(state.investments)
            },
            "track": dict(zip(state.players, state.track)),
            "out": None if state.out is None else state.players[state.out],
            "peanuts": None if state.peanuts is None else dict(zip(state.players, state.peanuts)),
            "pot": state.pot,
            "moves_played": state.moves_played,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> BigTopState:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when a field is missing or wrong.
        """
        from scorer.bigtop import record

        return record.state_from_json(self, data)

    # -- records -------------------------------------------------------------------

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a hand or whole-game record (RECORDS.md)."""
        from scorer.bigtop import record as rec

        return rec.replay(self, record)

    def simulate(self, players: Sequence[str], rng: random.Random, **options: Any) -> dict[str, Any]:
        """Random legal hands with full information; ``hands`` > 1 gives a whole game."""
        from scorer.bigtop import record as rec

        return rec.simulate(self, players, rng, hands=options.get("hands"))

    # -- whole games ---------------------------------------------------------------

    def hands_in_game(self, players: int) -> int:
        """Hands in a whole game: each player deals once, twice with 3 players."""
        return 6 if players == 3 else players


class FanTan(BigTop):
    """The Fan Tan variant: 25 peanuts each, no calling, pass pays a peanut, first out takes the pot."""

    name: ClassVar[str] = "fantan"
    aliases: ClassVar[tuple[str, ...]] = ("fan-tan",)
    info: ClassVar[GameInfo] = GameInfo(
        title="Fan Tan", min_players=3, max_players=6, hidden_information=True, score_unit="peanuts"
    )
    allows_calling: ClassVar[bool] = False
    #: Peanuts each player starts the game with.
    START_PEANUTS: ClassVar[int] = 25

    def _initial_peanuts(self, n: int, peanuts: Sequence[int] | None) -> tuple[int, ...] | None:
        return tuple(peanuts) if peanuts is not None else (self.START_PEANUTS,) * n

    def _end_hand(self, state: BigTopState) -> tuple[BigTopState, tuple[Event, ...]]:
        assert state.out is not None and state.peanuts is not None
        p, pot = state.out, state.pot
        peanuts = state.peanuts[:p] + (state.peanuts[p] + pot,) + state.peanuts[p + 1 :]
        name = state.players[p]
        return replace(state, peanuts=peanuts), (
            Event("out", ((p, pot),), f"{name} went out and takes the pot of {pot} peanuts."),
        )

    def scores(self, state: BigTopState) -> tuple[int, ...]:
        """Each seat's peanuts."""
        assert state.peanuts is not None
        return state.peanuts

    def outcome(self, state: BigTopState) -> Outcome | None:
        """The player who went out wins the hand."""
        if state.out is None:
            return None
        return Outcome((state.out,), self.scores(state), f"{state.players[state.out]} went out")

    def gate_receipts(
        self, state: BigTopState, final_hands: Sequence[Sequence[Card]] | None = None
    ) -> tuple[int | None, ...]:
        """Fan Tan has no gate receipts."""
        return (0,) * len(state.players)



def _must_play(forced: list[Card]) -> Check:
    return Check.illegal(
        Reason.MUST_PLAY_CALLED,
        f"You must play your called {forced[0].describe()} first: it is playable now.",
    )


def _why_not(state: BigTopState, card: Card) -> str:
    pile = state.tableau[card.suit]
    suit = card.suit.title
    if not pile.poster:
        return f"the {suit} Poster must be played first."
    top = pile.top(card.shade)
    shade = card.shade.name.lower()
    if pile.holds(card):
        return "it is already on the tableau."
    if top == 0:
        return f"the {shade} {suit} pile starts with the {shade} 1."
    return f"the {shade} {suit} pile is at {top}, so only the {shade} {top + 1} goes next."


def _put(tableau: tuple[Pile, Pile, Pile, Pile], card: Card) -> tuple[Pile, Pile, Pile, Pile]:
    s = card.suit
    new = list(tableau)
    new[s] = tableau[s].add(card)
    return (new[0], new[1], new[2], new[3])


def _earnings(charts: tuple[Chart, ...], p: int, card: Card) -> int:
    """Money a hand card earns from the opponents' called cards (docs/rules.md §4.2 items 5, 6)."""
    total = 0
    for seat, chart in enumerate(charts):
        if seat == p:
            continue
        for value, c in zip(CHART_VALUES, chart):
            if c is not None and c.suit is card.suit and (card.is_poster or c.shade is card.shade):
                total += value
    return total
