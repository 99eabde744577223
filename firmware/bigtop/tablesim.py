"""A simulated Big Top (or Fan Tan) game night: random players at a table, seen as the camera would.

`SimulatedTable` plays random legal hands with full information (the ground
truth) and turns them into what happens at a real table: layouts of the
public components (`TableLayout`) that the camera will see, with hands moving
over the table between moves, and button presses for passes and for moving
on to the next hand. With ``illegal_every=K`` every K-th move is first tried
illegally (a card laid where it may not go) and taken back once the referee
has objected. At the end of a hand every player turns the tokens face up
and shows one card of each suit still in hand (`shown_cards`): the gate
receipts only depend on which suits a player still holds.

The layouts can go straight to the referee (fast tests) or be rendered into
camera frames by the vision package (the demo).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from hardware.buttons import ButtonEvent, Gesture, Pad
from scorer.bigtop import Action, BigTop, BigTopMove, BigTopState, Card, Suit
from scorer.bigtop.engine import Chart
from scorer.bigtop.observe import TableSnapshot, infer_move, snapshot

__all__ = ["Step", "SimulatedTable", "TableLayout", "shown_cards"]


@dataclass(frozen=True, slots=True)
class TableLayout:
    """What lies on the table: the public components, plus the end-of-hand reveal.

    ``tokens[seat]`` are the gate-receipt values by suit when turned face up
    (None: face down); ``laid_open[seat]`` the cards a player shows at the end
    of a hand (`shown_cards`: one card of every suit still in hand that the
    chart does not show already, laid face up on a free space of that seat's
    chart); ``hands_over`` says that players' hands are moving over the table
    (the camera sees motion).
    """

    snapshot: TableSnapshot
    tokens: tuple[tuple[int | None, int | None, int | None, int | None], ...] | None = None
    laid_open: tuple[frozenset[Card], ...] | None = None
    hands_over: bool = False


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happens at the table: a layout to look at, or a button gesture.

    ``expect_illegal`` marks the layout of an illegal attempt the referee must
    catch; ``truth`` is the move the simulation played (None for other steps).
    """

    layout: TableLayout | None = None
    button: ButtonEvent | None = None
    expect_illegal: bool = False
    truth: str | None = None


@dataclass
class SimulatedTable:
    """Random players for a Big Top game of ``hands`` hands, seeded for repeatability."""

    players: Sequence[str]
    hands: int
    seed: int = 0
    illegal_every: int | None = None
    game: BigTop = field(default_factory=BigTop)
    #: The ground-truth record (full information), filled in as the steps are produced.
    record: dict[str, object] = field(init=False)
    illegal_attempts: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.record = {"game": self.game.name, "players": list(self.players), "hands": []}
        self._moves = 0

    def steps(self) -> Iterator[Step]:
        """Every step of the game night, in order."""
        hands_out: list[dict[str, object]] = self.record["hands"]  # type: ignore[assignment]
        peanuts: tuple[int, ...] | None = None
        for number in range(self.hands):
            dealer = number % len(self.players)
            state = self.game.new_state(self.players, self.rng, dealer=dealer, peanuts=peanuts)
            assert state.hands is not None
            hand: dict[str, object] = {
                "dealer": self.players[dealer],
                "deal": {self.players[i]: [c.notation() for c in sorted(h, key=lambda c: c.index)]
                         for i, h in enumerate(state.hands)},
            }
            if state.investments is not None:
                hand["investments"] = {self.players[i]: {s.label: v for s, v in zip(Suit, inv)}
                                       for i, inv in enumerate(state.investments)}
            hand["moves"] = []
            hands_out.append(hand)
            moves: list[str] = hand["moves"]  # type: ignore[assignment]
            yield Step(TableLayout(snapshot(state)))
            while state.out is None:
                options = self.game.legal_moves(state)
                move = options[self.rng.randrange(len(options))]
                self._moves += 1
                if self.illegal_every and self._moves % self.illegal_every == 0:
                    attempt = self._illegal_attempt(state)
                    if attempt is not None:
                        self.illegal_attempts += 1
                        yield Step(TableLayout(snapshot(state), hands_over=True))
                        yield Step(TableLayout(attempt), expect_illegal=True)
                        yield Step(TableLayout(attempt, hands_over=True))
                        yield Step(TableLayout(snapshot(state)))
                text = self.game.format_move(state, move)
                moves.append(text)
                after, _ = self.game.apply_unchecked(state, move)
                if move.action is Action.PASS:
                    yield Step(button=ButtonEvent(Gesture.PRESS, seat=move.player), truth=text)
                else:
                    yield Step(TableLayout(snapshot(state), hands_over=True))
                    yield Step(TableLayout(snapshot(after)), truth=text)
                state = after
            assert state.hands is not None
            if state.investments is not None:
                shown = tuple(shown_cards(h, chart) for h, chart in zip(state.hands, state.charts))
                reveal = TableLayout(snapshot(state), tokens=tuple(state.investments), laid_open=shown)
                yield Step(TableLayout(snapshot(state), hands_over=True))
                yield Step(reveal)
            yield Step(button=ButtonEvent(Gesture.PRESS, pad=Pad.MODE))
            peanuts = state.peanuts
            if peanuts is not None and min(peanuts) == 0:
                return  # Fan Tan: someone is broke, the game is over

    def _illegal_attempt(self, state: BigTopState) -> TableSnapshot | None:
        """A view of a card laid where the rules forbid, which the camera can tell apart."""
        assert state.hands is not None
        p = state.to_move
        public = state.to_public()
        options = []
        for card in sorted(state.hands[p], key=lambda c: c.index):
            # Fan Tan has no charts: a call could not even be laid down
            for action in (Action.PLAY, Action.CALL) if self.game.allows_calling else (Action.PLAY,):
                move = BigTopMove(p, action, card)
                if action is Action.PLAY and card.is_poster:
                    continue
                if not self.game.check(state, move).is_illegal:
                    continue
                if action is Action.PLAY and not _can_lie_on_pile(state, card):
                    continue
                if action is Action.CALL and state.charts[p][0] is not None and all(state.charts[p]):
                    continue
                view = snapshot(self.game.apply_unchecked(public, move)[0])
                if infer_move(self.game, public, view).move == move:
                    options.append(view)
        if not options:
            return None
        return options[self.rng.randrange(len(options))]


def shown_cards(hand: Iterable[Card], chart: Chart) -> frozenset[Card]:
    """The cards a player shows at the end of a hand: the lowest card of each suit in ``hand``
    whose suit is not on ``chart`` already.

    They go face up on free spaces of the chart; they always fit, since a chart
    never holds two cards of one suit.
    """
    on_chart = {c.suit for c in chart if c is not None}
    lowest: dict[Suit, Card] = {}
    for card in sorted(hand, key=lambda c: c.index):
        if card.suit not in on_chart:
            lowest.setdefault(card.suit, card)
    return frozenset(lowest.values())


def _can_lie_on_pile(state: BigTopState, card: Card) -> bool:
    """A wrongly played card the camera can see: it becomes the pile's new top."""
    pile = state.tableau[card.suit]
    return pile.poster and card.number > pile.top(card.shade) + 1

