"""What the camera can see of a Big Top hand, and which move explains a change.

The live referee sees the tableau and the Organizing Charts, never the hands.
`snapshot` is the public view a state should look like; `infer_move` finds the
one move that turns the last accepted state into what the camera sees now, or
says why no single move does (the referee then asks instead of guessing).

>>> import random
>>> from scorer.bigtop import BigTop
>>> game = BigTop()
>>> state = game.new_state(["Alf", "Henry", "Charles"], random.Random(4))
>>> move = game.legal_moves(state)[0]
>>> after, _ = game.play(state, move)
>>> infer_move(game, state, snapshot(after)).move == move
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from scorer.bigtop.cards import DECK, Card, Suit
from scorer.bigtop.engine import Action, BigTop, BigTopMove, BigTopState, Chart, Pile, slide

__all__ = ["Inference", "InferenceKind", "TableSnapshot", "infer_move", "snapshot"]


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The public components of a Big Top hand, as the camera reports them.

    ``tableau[suit]`` is the pile (Poster present, top light and dark number);
    ``charts[seat]`` the cards on $3, $2, $1 and $0.
    """

    tableau: tuple[Pile, Pile, Pile, Pile]
    charts: tuple[Chart, ...]

    def visible(self) -> frozenset[Card]:
        """Every card the snapshot shows (piles count all the cards under their top)."""
        cards = {c for chart in self.charts for c in chart if c is not None}
        for suit in Suit:
            pile = self.tableau[suit]
            cards.update(c for c in DECK[suit * 13 : suit * 13 + 13] if pile.holds(c))
        return frozenset(cards)


def snapshot(state: BigTopState) -> TableSnapshot:
    """The public view of a state: what the camera should see."""
    return TableSnapshot(state.tableau, state.charts)


class InferenceKind(enum.Enum):
    """How a camera view relates to the last accepted state."""

    #: The table still shows the accepted state.
    UNCHANGED = "unchanged"
    #: Only the mover's slide happened (the player moved the called cards down).
    SLIDE_ONLY = "slide only"
    #: Exactly one move explains the view.
    MOVE = "move"
    #: Nothing, or more than one thing, explains the view.
    UNEXPLAINED = "unexplained"


@dataclass(frozen=True, slots=True)
class Inference:
    """The answer of `infer_move`: a kind, the move for MOVE, a sentence otherwise.

    ``unslid`` is True when the view matches the move but the mover did not
    slide the called cards down first (worth a reminder, not a rejection).
    """

    kind: InferenceKind
    move: BigTopMove | None = None
    message: str = ""
    unslid: bool = False


def infer_move(game: BigTop, state: BigTopState, seen: TableSnapshot) -> Inference:
    """The move that turns ``state`` into the view ``seen``.

    A new card on a pile is a play by the seat whose turn it is (a called card
    if it left the mover's chart, else a hand card); a card appearing on a
    chart's $3 is a call by that chart's owner. Legality is not judged here:
    the caller checks the move with ``game.check``, so a call out of turn
    comes back as a move by the wrong seat. Passes are never seen: they come
    from the seat's button.
    """
    if len(seen.charts) != len(state.players):
        return Inference(InferenceKind.UNEXPLAINED, message="The view shows a different number of charts.")
    now = snapshot(state)
    if seen == now:
        return Inference(InferenceKind.UNCHANGED)
    p = state.to_move
    if state.out is None:
        slid = replace(now, charts=now.charts[:p] + (slide(now.charts[p]),) + now.charts[p + 1 :])
        if seen == slid:
            return Inference(InferenceKind.SLIDE_ONLY)
    gone = now.visible() - seen.visible()
    new = seen.visible() - now.visible()
    if gone - {c for c in now.charts[p] if c is not None}:
        names = ", ".join(c.describe() for c in sorted(gone, key=lambda c: c.index))
        return Inference(InferenceKind.UNEXPLAINED, message=f"Cards disappeared from the table: {names}.")
    candidates = _candidates(state, seen, new)
    public = state.to_public() if state.hands is not None else state
    matches: list[tuple[BigTopMove, bool]] = []
    for move in candidates:
        expected, unslid_view = _expected_views(game, public, move)
        if expected is not None and seen == expected:
            matches.append((move, False))
        elif unslid_view is not None and seen == unslid_view:
            matches.append((move, True))
    if len(matches) == 1:
        move, unslid = matches[0]
        return Inference(InferenceKind.MOVE, move, "", unslid)
    if not matches:
        if len(new) > 1:
            names = ", ".join(c.describe() for c in sorted(new, key=lambda c: c.index))
            return Inference(
                InferenceKind.UNEXPLAINED, message=f"More than one card appeared at once: {names}."
            )
        return Inference(InferenceKind.UNEXPLAINED, message="The change on the table is not a single move.")
    return Inference(InferenceKind.UNEXPLAINED, message="The change on the table could be more than one move.")


def _candidates(state: BigTopState, seen: TableSnapshot, new: frozenset[Card]) -> list[BigTopMove]:
    p = state.to_move
    out: list[BigTopMove] = []
    for card in sorted(new, key=lambda c: c.index):
        if seen.tableau[card.suit].holds(card):
            out.append(BigTopMove(p, Action.PLAY, card))
        for seat, chart in enumerate(seen.charts):
            if card in chart:
                out.append(BigTopMove(seat, Action.CALL, card))
    for called in state.charts[p]:
        if called is not None and seen.tableau[called.suit].holds(called) and called not in new:
            out.append(BigTopMove(p, Action.PLAY, called))
    return out


def _expected_views(
    game: BigTop, state: BigTopState, move: BigTopMove
) -> tuple[TableSnapshot | None, TableSnapshot | None]:
    """The view after ``move`` as the rules lay it out, and the same without the slide."""
    if not 0 <= move.player < len(state.players) or move.card is None:
        return None, None
    # A call out of turn is still shown as what it is: the card on that seat's $3.
    mover = replace(state, to_move=move.player, out=None)
    sizes = mover.hand_sizes
    if sizes[move.player] == 0:
        mover = replace(mover, hand_sizes=sizes[: move.player] + (1,) + sizes[move.player + 1 :])
    after, _ = game.apply_unchecked(mover, move)
    expected = snapshot(after)
    chart = state.charts[move.player]
    if move.action is Action.CALL:
        if chart[0] is not None:
            return expected, None
        unslid_chart: Chart = (move.card, chart[1], chart[2], chart[3])
    elif move.card in chart:
        unslid_chart = tuple(None if c == move.card else c for c in chart)  # type: ignore[assignment]
    else:
        unslid_chart = chart
    charts = expected.charts
    unslid = TableSnapshot(
        expected.tableau, charts[: move.player] + (unslid_chart,) + charts[move.player + 1 :]
    )
    return expected, (unslid if unslid != expected else None)
