"""Circus Grandioso's scoring: the Show Master's holder wins (docs/rules.md §2)."""

from __future__ import annotations

from scorer.grandioso.model import GrandiosoState

__all__ = ["scores", "winners"]


def winners(state: GrandiosoState) -> tuple[int, ...]:
    """The Show Master's holder, or every seat when nobody holds it."""
    if state.show_master is not None:
        return (state.show_master,)
    return tuple(range(len(state.players)))


def scores(state: GrandiosoState) -> tuple[int, ...]:
    """1 for the seat holding the Show Master, 0 for everyone else."""
    return tuple(int(seat == state.show_master) for seat in range(len(state.players)))
