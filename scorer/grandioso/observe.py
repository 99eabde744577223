"""What the camera can see of a Circus Grandioso table, and which move explains a change.

The live referee sees the pyramid, the face-down singles on their numbered
places, and the card a player has just drawn, which the table's protocol has
them show face up on the stack's place. It never sees a hand. `snapshot` is
what a (public) state should look like; `infer_move` finds the one move that
turns the last accepted state into what the camera sees now, or says in a
sentence why no single move does (the referee then asks instead of guessing).

The table's protocol, which makes every move visible:

* place a card from your hand on the pyramid: a new card in the pyramid;
* draw: take the stack's top card or a single and lay it face up on the stack's
  place (leave the single's place empty until your turn ends); then place it on
  the pyramid, or lay it face down on the first free place of the singles row;
* exchange: lay a hand card face down on the first free place of the singles row
  and take the stack's top card or a single into your hand (leave the single's
  place empty until your turn ends);
* pass (end your turn after placing, or when nothing is left to do): your seat button;
* when your turn ends, close the singles row up towards place 1, keeping its order.

>>> from scorer.grandioso import Grandioso, Card
>>> game = Grandioso()
>>> state = game.public_state(["Ann", "Ben"])
>>> seen = TableSnapshot(frozenset({((0, 0), Card.ELEPHANT), ((0, 1), Card.ELEPHANT)}), ())
>>> infer_move(state, seen).move
Place(card=<Card.ELEPHANT: 0>, row=0, col=1)
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer import core
from scorer.core import InferenceKind
from scorer.grandioso.model import Draw, Exchange, GrandiosoMove, GrandiosoState, LayDown, Phase, Place
from scorer.grandioso.pyramid import Card, article

__all__ = ["Inference", "InferenceKind", "TableSnapshot", "infer_move", "snapshot"]


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The public Grandioso table as the camera reports it.

    ``pyramid``: every card in the pyramid as ``((row, col), card)``;
    ``single_places``: the numbered places (from 1) of the singles row that hold a
    face-down card, ascending; ``shown``: the card lying face up on the stack's place
    (the card just drawn), or None.
    """

    pyramid: frozenset[tuple[tuple[int, int], Card]]
    single_places: tuple[int, ...]
    shown: Card | None = None


def snapshot(state: GrandiosoState, shown: Card | None = None) -> TableSnapshot:
    """What the camera should see of ``state`` once the singles row is closed up."""
    cells = frozenset(((r, c), card) for r, c, card in state.pyramid.cells())
    return TableSnapshot(cells, tuple(range(1, len(state.singles) + 1)), shown)


#: the answer of `infer_move`
Inference = core.Inference[GrandiosoMove]


def _unexplained(message: str) -> Inference:
    return Inference.unexplained(message)


def _gap(places: tuple[int, ...], count: int) -> int | None:
    """The one place of ``1..count`` missing from ``places`` (which hold ``count - 1`` of them), else None."""
    missing = sorted(set(range(1, count + 1)) - set(places))
    return missing[0] if len(missing) == 1 and len(places) == count - 1 and set(places) <= set(range(1, count + 1)) \
        else None


def infer_move(state: GrandiosoState, seen: TableSnapshot) -> Inference:
    """The one move that turns ``state`` into what ``seen`` shows (public information only)."""
    if state.end is not None:
        return Inference(InferenceKind.UNCHANGED)
    before = {(r, c): card for r, c, card in state.pyramid.cells()}
    now = dict(seen.pyramid)
    gone = [p for p in before if p not in now]
    changed = [p for p in before if p in now and now[p] is not before[p]]
    added = [p for p in now if p not in before]
    if gone:
        return _unexplained(f"{article(before[gone[0]])} is missing from the pyramid; put it back.")
    if changed:
        return _unexplained(f"The pyramid shows {article(now[changed[0]])} where {article(before[changed[0]])} lay; "
                            "put it back.")
    if len(added) > 1:
        return _unexplained("More than one card was added to the pyramid; take all but one back.")
    n = len(state.singles)
    count = len(seen.single_places)
    if state.phase is Phase.DRAWN:
        if added:
            if count != n:
                return _unexplained("The singles row changed while a card was placed; put it back as it was.")
            (r, c), = added
            return Inference(InferenceKind.MOVE, Place(now[r, c], r, c))
        if seen.shown is not None:
            return Inference(InferenceKind.UNCHANGED)
        if count == n + 1:
            return Inference(InferenceKind.MOVE, LayDown())
        if count == n:
            return _unexplained("Where is the card you drew? Place it on the pyramid or lay it face down "
                                "on the first free place of the singles row.")
        return _unexplained(f"The singles row shows {count} cards; {n + 1} should lie there now.")
    # the player to move chooses an option
    if added:
        if seen.shown is not None:
            return _unexplained(f"{article(seen.shown)} lies face up on the stack while a card was placed; "
                                "place one card at a time.")
        if count != n:
            return _unexplained("The singles row changed while a card was placed; put it back as it was.")
        (r, c), = added
        return Inference(InferenceKind.MOVE, Place(now[r, c], r, c))
    if seen.shown is not None:
        if count == n:
            return Inference(InferenceKind.MOVE, Draw(None))
        gap = _gap(seen.single_places, n)
        if count == n - 1 and gap is not None:
            return Inference(InferenceKind.MOVE, Draw(gap - 1))
        if count == n - 1:
            return _unexplained("Leave the place of the single you took empty until your turn ends, "
                                "so that the referee sees which one it was.")
        return _unexplained(f"The singles row shows {count} cards; {n} or {n - 1} should lie there.")
    if count == n:
        if max(seen.single_places, default=0) <= n:
            return Inference(InferenceKind.UNCHANGED)
        gap = _gap(seen.single_places, n + 1)
        if gap is not None:
            return Inference(InferenceKind.MOVE, Exchange(None, gap - 1))
        return _unexplained("Close the singles row up towards place 1.")
    if count == n + 1:
        return Inference(InferenceKind.MOVE, Exchange(None, None))
    if count == n - 1:
        return _unexplained("Lay the card you exchange face down on the first free place of the singles row "
                            "(or show a card you drew face up on the stack's place).")
    return _unexplained(f"The singles row shows {count} cards; {n} should lie there.")
