"""The stabiliser accepts a view only after it held still for N frames."""

from __future__ import annotations

import pytest

from firmware.stabiliser import Stabiliser


def feed(stab: Stabiliser[str], frames: list[tuple[str | None, bool]]) -> list[str | None]:
    return [stab.push(view, moving) for view, moving in frames]


def test_a_view_is_accepted_after_n_still_frames_once() -> None:
    stab: Stabiliser[str] = Stabiliser(frames=3)
    assert feed(stab, [("a", False)] * 5) == [None, None, "a", None, None]
    assert stab.accepted == "a"


def test_motion_and_flicker_restart_the_count() -> None:
    stab: Stabiliser[str] = Stabiliser(frames=3)
    out = feed(stab, [("b", False), ("b", False), ("b", True), ("b", False), ("c", False),
                      ("b", False), ("b", False), ("b", False)])
    assert out == [None] * 7 + ["b"]


def test_unreadable_frames_neither_break_nor_extend_a_run() -> None:
    stab: Stabiliser[str] = Stabiliser(frames=2)
    assert feed(stab, [("a", False), (None, False), ("a", False)]) == [None, None, "a"]


def test_returning_to_the_accepted_view_is_not_new_but_reset_allows_it() -> None:
    stab: Stabiliser[str] = Stabiliser(frames=1)
    assert feed(stab, [("a", False), ("b", False), ("a", False), ("a", False)]) == ["a", "b", "a", None]
    stab.reset(accepted="x")
    assert stab.push("a") == "a"
    assert stab.push("x") == "x"


def test_frames_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Stabiliser(frames=0)
