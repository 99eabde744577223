"""Screens: pure render functions compared pixel-exactly with golden PNGs."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from luma.core.device import dummy
from luma.core.render import canvas
from PIL import Image, ImageFont

import firmware.screens
import scorer
from firmware.bigtop.screens import CalledCard, SeatView, central_view, render_seat, seat_view, token_text
from firmware.screens import FONT, CentralView, render_central, render_image, wrap
from scorer.bigtop import BigTop, BigTopMove, BigTopState, Card, track_token
from scorer.bigtop.engine import Action

GOLDEN = Path(__file__).parent / "golden"
GAME: BigTop = scorer.get("bigtop")  # type: ignore[assignment]
FANTAN: BigTop = scorer.get("fantan")  # type: ignore[assignment]
C = Card.parse


def table() -> BigTopState:
    """A fixed mid-hand position, built by hand so engine shuffles never change the goldens."""
    start = GAME.start_hand(["Alf", "Henry", "Charles"], 0, None, [(10, 7, 5, 3)] * 3)
    return replace(
        start,
        charts=(
            (C("animals-D4"), None, C("clowns-L3"), None),
            (C("sideshow-D6"), C("performers-L5"), C("animals-L2"), C("clowns-D1")),
            (None, None, None, None),
        ),
        track=(7, 22, 0),
        hand_sizes=(11, 9, 14),
    )


def seat(seat_no: int, **changes: Any) -> SeatView:
    return replace(seat_view(table(), seat_no), **changes)


SCREENS: dict[str, tuple[Callable[[Any, Any], None], Any]] = {
    "seat_turn_plus20_full_chart": (render_seat, seat(1)),
    "seat_two_called": (render_seat, seat(0)),
    "seat_zero_off_track": (render_seat, seat(2)),
    "seat_past_40": (render_seat, seat(0, money=43, token=track_token(43), name="Bartholomew-the-Great")),
    "seat_warning": (
        render_seat,
        seat(2, warning="You must play your called dark 4 Animals first: it is playable now, "
                        "and the rules say a called card goes before anything else."),
    ),
    "seat_fantan": (
        render_seat,
        seat_view(FANTAN.start_hand(["Alf", "Henry", "Charles"], 2, None, None, [25, 24, 19]), 1),
    ),
    "central_turn": (
        render_central,
        central_view(GAME, table(), hand=2, hands=5, last_event="Henry earns $3.",
                     hint="Charles can play the Sideshow Poster."),
    ),
    "central_hand_over": (
        render_central,
        central_view(GAME, replace(table(), out=1), hand=6, hands=6,
                     last_event="Gate receipts: Alf $15, Charles $10, Henry $25."),
    ),
    "central_plain": (render_central, CentralView("Big Top", "Turn: Alf")),
}


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_golden(name: str, golden_png: Callable[[object, Path], None]) -> None:
    render, view = SCREENS[name]
    image = render_image(render, view)
    assert image.mode == "1" and image.size == (128, 64)
    golden_png(image, GOLDEN / f"{name}.png")


def test_luma_canvas_draws_the_same_pixels(golden_png: Callable[[object, Path], None]) -> None:
    """On the device the render function runs inside luma's canvas: same pixels as the golden."""
    device = dummy(width=128, height=64, mode="1")
    with canvas(device) as draw:
        render_seat(seat(1), draw)
    golden_png(device.image, GOLDEN / "seat_turn_plus20_full_chart.png")


def test_golden_comparison_catches_one_pixel(tmp_path: Path, golden_png: Callable[[object, Path], None],
                                            regen_golden: bool) -> None:
    if regen_golden:
        pytest.skip("compares a scratch file")
    image = render_image(render_seat, seat(1))
    image.save(tmp_path / "ref.png")
    changed = image.copy()
    changed.putpixel((127, 63), 0 if image.getpixel((127, 63)) else 255)
    with pytest.raises(AssertionError, match="pixels differ"):
        golden_png(changed, tmp_path / "ref.png")
    golden_png(image, tmp_path / "ref.png")


def test_font_is_the_bitmap_font_without_freetype() -> None:
    """Goldens hold on machines with or without FreeType: the font never goes through it."""
    assert type(FONT) is ImageFont.ImageFont
    assert FONT.getbbox("W") == (0, 0, 6, 11)


def test_render_is_pure() -> None:
    view = seat(1)
    first = render_image(render_seat, view)
    assert first.tobytes() == render_image(render_seat, view).tobytes()
    assert first.tobytes() != render_image(render_seat, replace(view, is_turn=False)).tobytes()


def test_seat_view_from_state() -> None:
    view = seat_view(table(), 1)
    assert view.name == "Henry" and view.is_turn  # the player left of the dealer moves first
    assert view.money == 22 and view.token.plus20 and view.token.space == 2
    assert view.chart == (CalledCard("S-D6", 3), CalledCard("P-L5", 2), CalledCard("A-L2", 1), CalledCard("C-D1", 0))
    assert seat_view(table(), 0).chart[1] is None and not seat_view(table(), 0).is_turn
    with pytest.raises(IndexError, match="seat 3"):
        seat_view(table(), 3)


def test_called_value_follows_the_slide() -> None:
    """After Alf's turn begins his chart slides: the Animals card is then worth $2."""
    state = replace(table(), to_move=0)
    after, _ = GAME.apply_unchecked(state, BigTopMove(0, Action.PASS))
    values = {c.label: c.value for c in seat_view(after, 0).chart if c is not None}
    assert values == {"A-D4": 2, "C-L3": 0}


def test_warning_from_an_illegal_move_is_wrapped() -> None:
    state = table()
    check = GAME.check(state, BigTopMove(0, Action.PASS))
    assert check.is_illegal
    view = seat_view(state, 0, warning=check.message)
    assert view.warning == check.message
    assert render_image(render_seat, view).tobytes() != render_image(render_seat, seat_view(state, 0)).tobytes()


def test_token_text() -> None:
    assert [token_text(track_token(a)) for a in (0, 5, 20, 21, 40, 41)] == [
        "off track", "space 5", "space 20", "space 1", "space 20", "past $40"
    ]


def test_wrap_limits_lines_and_spells_typography_in_ascii() -> None:
    assert wrap("", 21, 2) == []
    assert wrap("Henry\u2019s turn \u2014 play\u2026", 30, 1) == ["Henry's turn - play..."]
    assert wrap("a" * 50, 21, 2) == ["a" * 21, "a" * 19 + ".."]
    assert wrap("one two three four", [4, 6], 3) == ["one", "two", "thre.."]
    assert wrap("one two three four", [4, 6], 4) == ["one", "two", "three", "four"]


def test_doctests() -> None:
    result = doctest.testmod(firmware.screens)
    assert result.attempted > 0 and result.failed == 0


def test_central_view_text() -> None:
    view = central_view(GAME, table(), hand=1)
    assert view == CentralView("Big Top hand 1", "Turn: Henry")
    assert central_view(GAME, replace(table(), out=2)).turn == "Charles went out"
    assert isinstance(render_image(render_central, view), Image.Image)


def test_names_outside_latin1_still_render() -> None:
    image = render_image(render_seat, seat(0, name="\u0141ukasz\u2019s"))
    plain = render_image(render_seat, seat(0, name="?ukasz's"))
    assert image.tobytes() == plain.tobytes()


def test_a_long_hint_is_paged_not_cut() -> None:
    from firmware.screens import CENTRAL_ROWS, central_lines

    hint = "Legal: " + ", ".join(f"play clowns-L{n}" for n in range(1, 7)) + ", call animals-D4, pass"
    view = CentralView("Big Top hand 1/4", "Turn: Ann", "Ben plays clowns-L3.", hint)
    lines = central_lines(view)
    assert len(lines) > CENTRAL_ROWS and "pass" in lines[-1] and not any(line.endswith("..") for line in lines)
    pages = (len(lines) + CENTRAL_ROWS - 1) // CENTRAL_ROWS
    images = [render_image(render_central, replace(view, scroll=k)).tobytes() for k in range(pages + 1)]
    assert len(set(images[:pages])) == pages and images[pages] == images[0]
