"""The figure search: every tile read as on its own however many are searched at once, a figure across a seam
found once, on the tile under its middle, and a figure reaching over the board's edge read where it stands."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.carcassonne.catalog import Edge
from vision.carcassonne.figures import (
    ANIMAL_PIPS,
    COLORS,
    TOKEN,
    PlacedFigure,
    _cut,
    _paint,
    _poly,
    acrobat_stack,
    clipped_sides,
    draw_figures,
    draw_token,
    find_figures,
    footprint_centre,
    haze_veil,
    hidden_rivals,
    on_roof,
    random_figures,
    roof_box,
    search_figures,
    space_twins,
    under_roof,
    white_gain,
)
from vision.carcassonne.recognize import TileReading
from vision.carcassonne.render import render_tile


def _square(x: float, y: float, side: float) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float32)


def test_a_figure_across_a_seam_is_found_once_on_the_tile_under_its_middle() -> None:
    # a green table of B tiles (a monastery amid fields); a red meeple sits across the seam of two cells one above
    # the other, most of it on the lower one, a blue one well inside a third cell, white marks fix the colour balance
    photo = np.full((300, 200, 3), (60, 150, 80), np.uint8)
    photo[:, :4] = photo[:, 100:104] = 240  # not clipped: a clipped pixel is glare
    _paint(photo, _poly(50, 106, 28.0, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(150, 60, 28.0, 0.0), COLORS["blue"], 100)
    tiles = [TileReading(0, 0, "B", 0, 1.0), TileReading(0, 1, "B", 0, 1.0), TileReading(1, 0, "B", 0, 1.0)]
    corners = {(0, 0): _square(0, 0, 100), (0, 1): _square(0, 100, 100), (1, 0): _square(100, 0, 100)}
    together = find_figures(photo, tiles, corners)
    alone = sorted((f for t in tiles for f in find_figures(photo, [t], corners)), key=lambda f: (f.y, f.x, f.figure, f.color))
    assert together == alone
    assert {(f.x, f.y, f.color) for f in together} == {(0, 1, "red"), (1, 0, "blue")}


def test_a_meeple_reaching_over_the_board_edge_onto_a_table_of_its_colour_is_on_its_field() -> None:
    """A blue meeple on the thin field between the city and the road at a circus tile's west edge, near the road, on
    a blue table: the part over the edge cannot be told from the table, and the centre of the pixels left (pulled
    down by the meeple's legs, and east by the cut) lies on the road."""
    cell = 100
    photo = np.full((3 * cell, 3 * cell, 3), (200, 80, 30), np.uint8)  # a blue table
    tile = render_tile("crrc.circus", 90, cell, "classic", np.random.default_rng(3))
    photo[cell:2 * cell, cell:2 * cell] = tile
    # the meeple's middle at 0.07, 0.41 of the tile (the road begins at 0.42), upright
    _paint(photo, _poly(cell + 0.07 * cell, cell + 0.41 * cell, 0.3 * cell, 0.0), COLORS["blue"], cell)
    found = find_figures(photo, [TileReading(0, 0, "crrc.circus", 90, 1.0)], {(0, 0): _square(cell, cell, cell)})
    assert [(f.x, f.y, f.figure, f.color, f.feature) for f in found] == [(0, 0, "meeple", "blue", "field:WR")]


@pytest.mark.parametrize(("left", "right", "cut"), [(0, 99, "none"), (50, 99, "west"), (0, 59, "east")])
def test_the_footprint_of_a_figure_cut_off_at_a_side_is_put_back_from_the_opposite_side(left: int, right: int,
                                                                                        cut: str) -> None:
    # a 30 x 30 square figure at (40..69, 10..39); the search sees columns left..right only
    seen = np.zeros((60, 100), bool)
    seen[:, left:right + 1] = True
    figure = np.zeros((60, 100), bool)
    figure[10:40, 40:70] = True
    blob = (figure & seen).astype(np.int32)
    ys, xs = np.nonzero(blob)
    box = (int(xs.min()), int(ys.min()), int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1)
    sides = clipped_sides(blob, 1, box, seen)
    assert sides == (cut == "west", False, cut == "east", False)
    assert footprint_centre(box, sides, 30.0) == pytest.approx((54.5, 24.5))


def test_a_figure_cut_off_at_a_corner_is_at_least_the_smallest_figure() -> None:
    # only the figure's south-east quarter (15 x 15 pixels) is seen: its middle is half the smallest figure (30) away
    seen = np.zeros((60, 60), bool)
    seen[20:, 20:] = True
    blob = np.zeros((60, 60), np.int32)
    blob[20:35, 20:35] = 1
    box = (20, 20, 15, 15)
    sides = clipped_sides(blob, 1, box, seen)
    assert sides == (True, True, False, False)
    assert footprint_centre(box, sides, 30.0) == pytest.approx((34.5 - 15, 34.5 - 15))


def test_the_boards_white_is_taken_without_the_glare() -> None:
    # a board of fields with a road of a bluish white, under a pool of glare clipped in its green channel
    pixels = np.full((1000, 3), (60, 150, 80), np.float32)
    pixels[:60] = (210, 200, 180)  # the road
    pixels[60:100] = (245, 255, 240)  # the glare
    gain = white_gain(pixels)
    assert gain * np.float32([210, 200, 180]) == pytest.approx([235, 235, 235], abs=1)
    # a board with no glare: its brightest pixels are its white
    assert white_gain(pixels[:60]) * np.float32([210, 200, 180]) == pytest.approx([235, 235, 235], abs=1)


def test_an_acrobat_stack_cut_in_pieces_by_its_outlines_counts_its_whole_height() -> None:
    # three acrobats a tenth of the tile apart, each 0.22 of the 64-pixel tile: 27 pixels from the top one's head down
    pieces = [((20, 10, 14, 14), 0.9, 100), ((20, 25, 14, 12), 0.6, 50)]
    count, conf = acrobat_stack(pieces)
    assert count == 3 and conf == pytest.approx((0.9 * 100 + 0.6 * 50) / 150)
    assert acrobat_stack(pieces[:1])[0] == 1


def _sand(n: int) -> tuple[np.ndarray, list[TileReading], dict[tuple[int, int], np.ndarray]]:
    """A row of ``n`` B tiles 100 px wide in a sand colour near no figure's, with white marks for the colour balance."""
    photo = np.full((100, 100 * n, 3), (150, 190, 220), np.uint8)
    photo[:, :4] = 240
    tiles = [TileReading(x, 0, "B", 0, 1.0) for x in range(n)]
    corners = {(x, 0): _square(100 * x, 0, 100) for x in range(n)}
    return photo, tiles, corners


def test_a_green_figure_as_large_as_a_ringmaster_is_in_doubt() -> None:
    photo, tiles, corners = _sand(3)
    _paint(photo, _poly(25, 25, 30.0, 0.0), COLORS["green"], 100)  # a meeple
    _paint(photo, _poly(225, 25, 40.0, 0.0), COLORS["green"], 100)  # the ringmaster's size: maybe a meeple run into a field
    _paint(photo, _poly(125, 75, 40.0, 0.0), COLORS["red"], 100)  # a red ringmaster (off the monastery's roof) is sure
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(0, "meeple", "green"), (1, "ringmaster", "red")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(2, "ringmaster", "green")]
    assert find_figures(photo, tiles, corners) == list(found.sure)


def test_the_acrobats_under_the_top_one_count_by_the_strips_of_their_colour_below_it() -> None:
    # the top acrobat a piece of 13 rows; below it, past a two-row outline each, two strips of its colour
    pixels = np.zeros((64, 64), bool)
    pixels[10:23, 20:31] = True
    pixels[25:29, 21:30] = True
    pixels[31:36, 21:30] = True
    pixels[50:55, 21:30] = True  # another figure's colour further down: no acrobat of this stack
    top = [((20, 10, 11, 13), 0.8, 120)]
    assert acrobat_stack(top)[0] == 1
    assert acrobat_stack(top, pixels)[0] == 3


def test_a_square_of_a_player_colour_as_tall_as_a_meeple_is_tile_art() -> None:
    photo, tiles, corners = _sand(2)
    photo[12:40, 12:40] = COLORS["red"]  # the roof of a house at a crossroads, grown by the camera's blur
    _paint(photo, _poly(125, 25, 30.0, 0.0), COLORS["red"], 100)
    assert [(f.x, f.figure, f.color) for f in find_figures(photo, tiles, corners)] == [(1, "meeple", "red")]


def test_a_patch_of_a_roof_colour_shorter_than_the_smallest_meeple_is_in_doubt() -> None:
    # a red triangle 0.22 of the tile wide and tall (a roof's size), away from the monastery's roof, is in doubt; a
    # meeple of the smallest size drawn beside it is sure
    photo, tiles, corners = _sand(3)
    cv2.fillConvexPoly(photo, np.array([[19, 86], [41, 86], [30, 64]], np.int32), COLORS["red"])
    _paint(photo, _poly(130, 75, 28.0, 0.0), COLORS["red"], 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "meeple", "red")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "meeple", "red")]


def test_a_roof_coloured_figure_over_a_monastery_roof_as_large_as_a_ringmaster_is_in_doubt() -> None:
    # a red ringmaster's size over the monastery's roof (maybe a meeple run together with a red roof) is in doubt;
    # the same size on the field south-east of the monastery, and a black one over the roof, are sure
    photo, tiles, corners = _sand(3)
    _paint(photo, _poly(50, 40, 40.0, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(172, 75, 40.0, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(250, 40, 40.0, 0.0), COLORS["black"], 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "ringmaster", "red"), (2, "ringmaster", "black")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "ringmaster", "red")]


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_the_monastery_roof_turns_with_its_tile(rotation: int) -> None:
    # the roof lies north of the tile's middle in catalog orientation; turned a quarter clockwise, east of it
    u0, v0, u1, v1 = roof_box(rotation)
    middle = ((u0 + u1) / 2 - 0.5, (v0 + v1) / 2 - 0.5)
    north = {0: (0, -1), 90: (1, 0), 180: (0, 1), 270: (-1, 0)}[rotation]
    assert np.sign(np.round(middle, 6)).tolist() == list(north)
    assert u1 - u0 == pytest.approx((0.4, 0.25)[rotation // 90 % 2]) and 0 <= u0 < u1 <= 1 and 0 <= v0 < v1 <= 1
    # a blob over the roof, on a monastery and on a tile without one
    box = (round(64 * u0), round(64 * v0), round(64 * (u1 - u0)), round(64 * (v1 - v0)))
    assert on_roof("B", rotation, box, 0.0, 0.0)
    assert not on_roof("V", rotation, box, 0.0, 0.0)
    assert not on_roof("B", (rotation + 180) % 360, box, 0.0, 0.0)


def test_a_red_streak_on_an_acrobat_space_narrower_than_an_acrobat_is_in_doubt() -> None:
    # the space's red dots run together by the camera's blur: a streak 0.07 of the tile wide; a red acrobat beside
    photo = np.full((100, 200, 3), (150, 190, 220), np.uint8)
    photo[:, :4] = 240
    cv2.ellipse(photo, (50, 50), (10, 4), 0, 0, 360, COLORS["red"], -1)
    _paint(photo, _poly(150, 50, 22.0, 0.0), COLORS["red"], 100)
    tiles = [TileReading(x, 0, "ffff.acrobats", 0, 1.0) for x in range(2)]
    found = search_figures(photo, tiles, {(x, 0): _square(100 * x, 0, 100) for x in range(2)})
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "acrobat", "red")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "acrobat", "red")]


def _circus_row(styles: list[str], side: int = 128) -> tuple[np.ndarray, list[TileReading], dict[tuple[int, int], np.ndarray]]:
    """A row of circus tiles (a city, a road and fields round the circus space) drawn in ``styles``, a white mark."""
    photo = np.hstack([render_tile("cfrf.circus", 0, side, s, np.random.default_rng(5)) for s in styles])
    photo[:3, :3] = 240
    tiles = [TileReading(x, 0, "cfrf.circus", 0, 1.0) for x in range(len(styles))]
    return photo, tiles, {(x, 0): _square(side * x, 0, side) for x in range(len(styles))}


@pytest.mark.parametrize("animal", sorted(ANIMAL_PIPS.values()))
def test_an_animal_token_face_up_on_the_circus_is_read_as_its_animal(animal: str) -> None:
    # the same token, turned a different way, on a circus tile of each drawing style
    styles = ["classic", "newart", "bright", "flat"]
    photo, tiles, corners = _circus_row(styles)
    for x in range(len(styles)):
        draw_token(photo, (128 * x + 64, 64), 128, animal, 25.0 * x)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.animal, f.feature) for f in found.sure] == [(x, TOKEN, animal, "circus") for x in range(4)]
    assert found.unsure == ()
    assert found.sure[0].to_json()["animal"] == animal


def test_a_circus_without_a_token_shows_none_and_the_big_top_is_no_token() -> None:
    photo, tiles, corners = _circus_row(["classic", "newart"])
    drawn = draw_figures(photo, {(0, 0): ("cfrf.circus", 0)}, [PlacedFigure(0, 0, "big-top", "", "circus")],
                         lambda x, y: (128 * x, 128 * y), 128, np.random.default_rng(0))
    found = search_figures(drawn, tiles, corners)
    assert [(f.x, f.figure) for f in found.sure] == [(0, "big-top")]
    assert found.unsure == ()
    assert "animal" not in found.sure[0].to_json()


def test_a_token_whose_pips_no_animal_shows_is_in_doubt() -> None:
    # two pips (no animal is worth two), and a flea with a black meeple's leg over its face
    photo, tiles, corners = _circus_row(["newart", "newart"])
    draw_token(photo, (64, 64), 128, "flea", 0.0)
    cv2.circle(photo, (74, 64), 3, (35, 50, 75), -1)
    draw_token(photo, (192, 64), 128, "flea", 0.0)
    photo[50:62, 170:182] = COLORS["black"]
    found = search_figures(photo, tiles, corners)
    assert [f for f in found.sure if f.figure == TOKEN] == []
    assert [(f.x, f.figure, f.animal) for f in found.unsure] == [(0, TOKEN, ""), (1, TOKEN, "")]


def test_tokens_in_a_scene_come_from_their_own_generator() -> None:
    # the other figures are those drawn without tokens; a token replaces the Big Top on its circus tile
    from vision.carcassonne.board import Placed

    tiles = [Placed(0, 0, "cfrf.circus", 0), Placed(1, 0, "B", 0), Placed(2, 0, "ffrr.acrobats", 0)]
    plain = random_figures(tiles, np.random.default_rng(3), share=1.0)
    seen = set()
    for seed in range(12):
        with_tokens = random_figures(tiles, np.random.default_rng(3), share=1.0, tokens=np.random.default_rng(seed))
        assert [f for f in with_tokens if f.x != 0] == [f for f in plain if f.x != 0]
        (top,) = [f for f in with_tokens if f.x == 0]
        seen.add(top.figure)
        assert top.figure == "big-top" or top.animal in ANIMAL_PIPS.values()
    assert seen == {"big-top", TOKEN}


def test_a_red_patch_in_the_middle_of_the_monastery_roof_is_in_doubt() -> None:
    # the roof's own shape, a meeple's size, over the roof north of the monastery; a red meeple on the monastery sure
    photo, tiles, corners = _sand(2)
    cv2.fillConvexPoly(photo, np.array([[33, 42], [67, 42], [50, 16]], np.int32), COLORS["red"])
    _paint(photo, _poly(150, 50, 30.0, 0.0), COLORS["red"], 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color, f.feature) for f in found.sure] == [(1, "meeple", "red", "monastery")]
    assert [(f.x, f.color) for f in found.unsure] == [(0, "red")]
    assert under_roof("B", 90, 0.7, 0.5) and not under_roof("B", 90, 0.5, 0.7) and not under_roof("V", 0, 0.5, 0.3)


def test_of_two_followers_read_on_one_tile_only_a_clearly_surer_one_stays() -> None:
    # a tile holds one follower: a red and a blue meeple on one tile are both in doubt (equally sure); beside them a
    # blue meeple with a pale red patch (a shadow, a faded roof) on its tile: the blue one stays
    photo, tiles, corners = _sand(2)
    _paint(photo, _poly(25, 70, 30.0, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(75, 70, 30.0, 0.0), COLORS["blue"], 100)
    _paint(photo, _poly(125, 70, 30.0, 0.0), COLORS["blue"], 100)
    _paint(photo, _poly(175, 70, 30.0, 0.0), (70, 60, 175), 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.color) for f in found.sure] == [(1, "blue")]
    assert sorted((f.x, f.color) for f in found.unsure) == [(0, "blue"), (0, "red"), (1, "red")]


def test_a_token_with_pips_too_faint_to_count_surely_is_in_doubt() -> None:
    # a bear's five pips, four of them blurred pale (darker than the face, not as dark as a pip): not a flea
    photo, tiles, corners = _circus_row(["newart"])
    draw_token(photo, (64, 64), 128, "flea", 0.0)
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        cv2.circle(photo, (64 + 10 * dx, 64 + 10 * dy), 3, (150, 180, 200), -1)
    found = search_figures(photo, tiles, corners)
    assert found.sure == ()
    assert [(f.figure, f.animal) for f in found.unsure] == [(TOKEN, "")]


def test_a_dull_red_meeple_on_a_city_is_in_doubt_and_a_bright_one_is_sure() -> None:
    # a city's roofs run together look a meeple's size in a duller red; on a field the same dull red is a meeple
    photo = np.full((100, 300, 3), (150, 190, 220), np.uint8)
    photo[:, :4] = 240
    dull = (50, 50, 165)
    _paint(photo, _poly(50, 25, 30.0, 0.0), dull, 100)
    _paint(photo, _poly(150, 25, 30.0, 0.0), COLORS["red"], 100)
    _paint(photo, _poly(250, 70, 30.0, 0.0), dull, 100)
    tiles = [TileReading(x, 0, "E", 0, 1.0) for x in range(3)]
    found = search_figures(photo, tiles, {(x, 0): _square(100 * x, 0, 100) for x in range(3)})
    assert [(f.x, f.color, f.feature) for f in found.sure] == [(1, "red", "city:N"), (2, "red", "field:EL")]
    assert [(f.x, f.color, f.feature) for f in found.unsure] == [(0, "red", "city:N")]
    assert 0.2 <= found.unsure[0].confidence < 0.33


def test_a_green_acrobat_stack_tall_only_through_a_field_green_is_in_doubt_and_three_green_ones_are_three() -> None:
    # one green acrobat on the space, with a band of a field's green (near the figures' green, not as near as the
    # figure) just south of its outline; beside it a stack of three green acrobats, each a tenth of the tile above the last
    photo = np.full((100, 200, 3), (150, 190, 220), np.uint8)
    photo[:, :4] = 240
    photo[65:78, 35:65] = (70, 150, 70)
    _paint(photo, _poly(50, 50, 22.0, 0.0), COLORS["green"], 100)
    for k in range(3):
        _paint(photo, _poly(150, 60 - 10 * k, 22.0, 0.0), COLORS["green"], 100)
    tiles = [TileReading(x, 0, "ffff.acrobats", 0, 1.0) for x in range(2)]
    found = search_figures(photo, tiles, {(x, 0): _square(100 * x, 0, 100) for x in range(2)})
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "acrobat", "green")] * 3
    assert {(f.x, f.figure) for f in found.unsure if f.color == "green"} == {(0, "acrobat")}


@pytest.mark.parametrize("blur", [0.0, 1.0])
def test_a_meeple_shaped_patch_of_a_player_colour_lying_flat_on_the_tile_is_in_doubt(blur: float) -> None:
    # the same meeple shape in red, yellow and blue on a field: painted flat as the tiles' art is (no outline, no
    # shadow, its edge blurring into the lighter tile) it is in doubt; standing, outlined and casting its shadow, sure
    photo, tiles, corners = _sand(3)
    cv2.fillPoly(photo, [np.round(_poly(25, 75, 30.0, 0.0)).astype(np.int32)], COLORS["red"], cv2.LINE_AA)
    _paint(photo, _poly(125, 75, 30.0, 0.0), COLORS["red"], 100)
    cv2.fillPoly(photo, [np.round(_poly(225, 75, 30.0, 0.0)).astype(np.int32)], COLORS["yellow"], cv2.LINE_AA)
    _paint(photo, _poly(275, 75, 30.0, 0.0), COLORS["blue"], 100)
    if blur:
        photo = cv2.GaussianBlur(photo, (0, 0), blur)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "meeple", "red"), (2, "meeple", "blue")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "meeple", "red"), (2, "meeple", "yellow")]


def test_a_meeple_on_an_unrecognised_tile_is_read_where_every_tile_in_the_running_puts_it_on_one_feature() -> None:
    """Three cells, only the first tile reported. A meeple on the second, whose tile may be B or A (a monastery
    with or without its road south), stands on the one field of either; on the third, which may be B or E (a city
    north), it stands on B's field or on E's other field: in doubt. A cell with nothing in the running reads none."""
    photo, tiles, corners = _sand(4)
    for x in (1, 2, 3):
        _paint(photo, _poly(100 * x + 25, 25, 30.0, 0.0), COLORS["blue"], 100)
    held = {(1, 0): [("B", 0), ("A", 0)], (2, 0): [("B", 0), ("E", 0)]}
    found = search_figures(photo, tiles[:1], corners, held=held)
    assert [(f.x, f.figure, f.color, f.feature) for f in found.sure] == [(1, "meeple", "blue", "field:NL")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(2, "meeple", "blue")]
    # without the tiles in the running, a figure on a tile not reported is not read (as before)
    bare = search_figures(photo, tiles[:1], corners)
    assert bare.sure == () and bare.unsure == ()


def test_the_tiles_a_figure_may_hide_the_difference_of_are_those_differing_only_under_it() -> None:
    """A meeple on the end of A's road hides all that tells A (a monastery with a road south) from B (the monastery
    alone); a south neighbour whose north edge is a field rules A out, a meeple elsewhere hides nothing."""
    assert hidden_rivals("B", 0, (0.4, 0.72, 0.62, 1.0)) == [("A", 0)]
    assert hidden_rivals("A", 0, (0.4, 0.72, 0.62, 1.0)) == [("B", 0)]
    assert hidden_rivals("B", 0, (0.4, 0.72, 0.62, 1.0), {2: Edge.FIELD}) == []
    assert hidden_rivals("B", 0, (0.1, 0.1, 0.3, 0.3)) == []
    # the road's end half seen beside the meeple tells: no rival
    assert hidden_rivals("B", 0, (0.4, 0.72, 0.62, 0.85)) == []


def _meeple_on_a_road_end() -> tuple[np.ndarray, dict[tuple[int, int], np.ndarray]]:
    """A red meeple on the end of A's road (a monastery with a road south), a straight road south of it."""
    side = 96
    tiles = {(0, 0): ("A", 0), (0, 1): ("U", 90)}
    photo = np.vstack([render_tile(n, r, side, "classic", np.random.default_rng(k)) for k, (n, r) in enumerate(tiles.values())])
    photo[:3, :3] = 240
    photo = draw_figures(photo, tiles, [PlacedFigure(0, 0, "meeple", "red", "road:S")], lambda x, y: (side * x, side * y),
                         side, np.random.default_rng(0))
    return photo, {(0, 0): _square(0, 0, side), (0, 1): _square(0, side, side)}


def test_a_meeple_hiding_what_tells_its_tile_from_another_is_in_doubt_unless_a_neighbour_tells() -> None:
    """A meeple on A's road end, the tile read as A or as B: its road could be B's field. With the tile south of it
    read (a road north: only A fits), it is on A's road; read as B beside that road, it stays in doubt."""
    photo, corners = _meeple_on_a_road_end()
    for name, other in (("A", "B"), ("B", "A")):
        alone = search_figures(photo, [TileReading(0, 0, name, 0, 1.0)], corners)
        assert alone.sure == () and [(f.figure, f.color) for f in alone.unsure] == [("meeple", "red")]
        assert alone.hidden == {(0, 0): ((other, 0),)}  # the tile itself is unknown
    beside = [TileReading(0, 1, "U", 90, 1.0)]
    told = search_figures(photo, [TileReading(0, 0, "A", 0, 1.0), *beside], corners)
    assert [(f.x, f.y, f.figure, f.color, f.feature) for f in told.sure] == [(0, 0, "meeple", "red", "road:S")]
    assert told.hidden == {}
    wrong = search_figures(photo, [TileReading(0, 0, "B", 0, 1.0), *beside], corners)
    assert wrong.sure == () and [(f.figure, f.color) for f in wrong.unsure] == [("meeple", "red")]
    assert wrong.hidden == {(0, 0): (("A", 0),)}


def test_a_meeple_on_an_unrecognised_tile_may_hide_what_tells_the_tiles_in_the_running_from_others() -> None:
    """The tile under a meeple on A's road end held with B alone in the running: A, which differs from B only under
    the meeple and fits the road south, is in the running too, and the meeple's feature is in doubt. With A alone in
    the running, B (a field south) does not fit that road: the meeple is on A's road."""
    photo, corners = _meeple_on_a_road_end()
    beside = [TileReading(0, 1, "U", 90, 1.0)]
    as_b = search_figures(photo, beside, corners, held={(0, 0): [("B", 0)]})
    assert as_b.sure == () and [(f.x, f.y, f.figure, f.color) for f in as_b.unsure] == [(0, 0, "meeple", "red")]
    as_a = search_figures(photo, beside, corners, held={(0, 0): [("A", 0)]})
    assert [(f.x, f.y, f.figure, f.color, f.feature) for f in as_a.sure] == [(0, 0, "meeple", "red", "road:S")]



def _field_green_beside_the_first() -> tuple[np.ndarray, list[TileReading], dict[tuple[int, int], np.ndarray]]:
    """Two sand tiles (`_sand`), the first with a field's green (near the figures' green) along its west side and under the
    middle, where a meeple stands."""
    photo, tiles, corners = _sand(2)
    photo[10:40, 4:14] = (70, 150, 70)
    photo[38:46, 4:40] = (70, 150, 70)
    return photo, tiles, corners


def test_a_green_meeple_run_together_with_a_field_green_around_it_is_a_meeple() -> None:
    # a green meeple with a field's green (near the figures' green, not as near as the figure) along its west side
    # and under its feet, blurred by the camera into one blob as large as the ringmaster: through its own colour's
    # pixels it is a meeple's size. A green figure of the ringmaster's size itself stays in doubt
    photo, tiles, corners = _field_green_beside_the_first()
    _paint(photo, _poly(25, 25, 30.0, 0.0), COLORS["green"], 100)
    _paint(photo, _poly(125, 25, 40.0, 0.0), COLORS["green"], 100)
    found = search_figures(cv2.GaussianBlur(photo, (0, 0), 1.0), tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(0, "meeple", "green")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(1, "ringmaster", "green")]


def test_a_green_meeple_whose_colour_reaches_a_ringmasters_height_through_the_field_is_a_meeple() -> None:
    # as above, and a hedge of the field's green nearest the figures' (within `_STRIP_NEAR`) runs on from its feet: even
    # counted through only the pixels near its colour it stands as tall as the ringmaster, but they cover a meeple's
    # share of the tile (0.037). The green ringmaster's own pixels cover more (0.066): in doubt still
    photo, tiles, corners = _field_green_beside_the_first()
    photo[40:58, 24:28] = (50, 140, 45)
    _paint(photo, _poly(25, 25, 30.0, 0.0), COLORS["green"], 100)
    _paint(photo, _poly(125, 30, 40.0, 0.0), COLORS["green"], 100)
    found = search_figures(cv2.GaussianBlur(photo, (0, 0), 1.0), tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(0, "meeple", "green")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(1, "ringmaster", "green")]


def _figure_on_a_space(tile: str, rotation: int, figure: PlacedFigure) -> tuple[np.ndarray, dict[tuple[int, int], np.ndarray]]:
    """``tile`` (an Under the Big Top tile) with ``figure`` on its centre space, an acrobat tile with no figure east of
    it (the board shows the expansion)."""
    side = 96
    tiles = {(0, 0): (tile, rotation), (1, 0): ("ffff.acrobats", 0)}
    photo = np.hstack([render_tile(n, r, side, "classic", np.random.default_rng(k)) for k, (n, r) in enumerate(tiles.values())])
    photo[:3, :3] = 240
    photo = draw_figures(photo, tiles, [figure], lambda x, y: (side * x, side * y), side, np.random.default_rng(0))
    return photo, {(0, 0): _square(0, 0, side), (1, 0): _square(side, 0, side)}


@pytest.mark.parametrize(("twin", "rotation", "base", "turn", "figure"), [
    ("ffrr.acrobats", 90, "V", 90, PlacedFigure(0, 0, "acrobat", "black", "acrobats", 2)),
    ("rrrf.acrobats", 180, "W", 90, PlacedFigure(0, 0, "acrobat", "black", "acrobats", 2)),
    ("ffrf.circus", 0, "A", 0, PlacedFigure(0, 0, "big-top", "", "circus")),
])
def test_a_figure_on_the_space_of_a_tile_read_as_its_base_twin_leaves_the_tile_unknown(
        twin: str, rotation: int, base: str, turn: int, figure: PlacedFigure) -> None:
    """An acrobat stack or the Big Top hides the centre space that alone tells an Under the Big Top tile from the base
    tile with its edges: the tile read as that base tile may be the twin under the figure. Read as itself, it is not
    in doubt; the base tile with no figure on its middle is not either."""
    photo, corners = _figure_on_a_space(twin, rotation, figure)
    beside = TileReading(1, 0, "ffff.acrobats", 0, 1.0)
    as_base = search_figures(photo, [TileReading(0, 0, base, turn, 1.0), beside], corners)
    assert (twin, rotation) in as_base.hidden.get((0, 0), ())
    assert search_figures(photo, [TileReading(0, 0, twin, rotation, 1.0), beside], corners).hidden == {}
    side = 96
    plain = np.hstack([render_tile(base, turn, side, "classic", np.random.default_rng(0)), photo[:, side:]])
    assert search_figures(plain, [TileReading(0, 0, base, turn, 1.0), beside], corners).hidden == {}


def test_the_space_twins_of_a_base_tile_have_its_edges() -> None:
    assert space_twins("V", 90, False) == [("ffrr.acrobats", 90)]
    assert space_twins("W", 90, False) == [("rrrf.acrobats", 180)]
    assert space_twins("A", 0, True) == [("ffrf.circus", 0)]
    assert space_twins("E", 0, False) == []  # no acrobat tile has a city
    assert space_twins("ffrr.acrobats", 90, False) == []


def _board_under_glare(colour: str, glare: float) -> tuple[np.ndarray, list[TileReading], dict[tuple[int, int], np.ndarray]]:
    """Eight drawn tiles (two rows of four) with a ``colour`` meeple on the second tile's field and a black one on a
    road below, under a pool of glare (``glare`` added to every channel at its middle, over the first meeple)."""
    side = 96
    tiles = {(i % 4, i // 4): t for i, t in enumerate([("V", 0), ("E", 0), ("B", 0), ("U", 0), ("K", 90), ("A", 0),
                                                       ("D", 0), ("F", 0)])}
    photo = np.vstack([np.hstack([render_tile(*tiles[(x, y)], side, "classic", np.random.default_rng(10 * y + x))
                                  for x in range(4)]) for y in range(2)])
    figures = [PlacedFigure(1, 0, "meeple", colour, "field:SL"), PlacedFigure(2, 1, "meeple", "black", "road:W")]
    photo = draw_figures(photo, tiles, figures, lambda x, y: (side * x, side * y), side, np.random.default_rng(0))
    yy, xx = np.mgrid[0:2 * side, 0:4 * side].astype(np.float32)
    pool = glare * np.exp(-((xx - 1.6 * side) ** 2 + (yy - 0.9 * side) ** 2) / (2 * (0.45 * side) ** 2))
    lit = np.clip(cv2.GaussianBlur(photo.astype(np.float32) + pool[..., None], (0, 0), 1.0), 0, 255).astype(np.uint8)
    readings = [TileReading(x, y, name, rot, 1.0) for (x, y), (name, rot) in tiles.items()]
    return lit, readings, {cell: _square(side * cell[0], side * cell[1], side) for cell in tiles}


def test_a_meeple_under_a_pool_of_glare_is_found_once_the_glare_is_taken_off() -> None:
    # the glare burns out at its core and lifts the yellow meeple's colours out of reach of the figures' yellow
    photo, tiles, corners = _board_under_glare("yellow", 110.0)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.y, f.figure, f.color, f.feature) for f in found.sure] == [
        (1, 0, "meeple", "yellow", "field:EL"), (2, 1, "meeple", "black", "road:E")]
    assert found.unsure == ()


def test_no_veil_is_taken_off_where_no_glare_burns_out() -> None:
    # the same board without glare: its pale art stands above the board's floor, but nothing is saturated
    photo, tiles, corners = _board_under_glare("yellow", 0.0)
    cuts = np.stack([_cut(photo, corners[cell]) for cell in sorted(corners)]).astype(np.float32)
    assert haze_veil(cuts, sorted(corners), np.zeros(cuts.shape[:3], bool)) is None
    # a saturated patch on a board whose floor is even nowhere raises a veil either
    burnt = np.zeros(cuts.shape[:3], bool)
    burnt[0, :8, :8] = True
    even = np.full_like(cuts, 120.0)
    assert haze_veil(even, sorted(corners), burnt) is None
    # under the glare the veil lies over the pool and is taken off there, not far from it
    lit, _, _ = _board_under_glare("yellow", 110.0)
    cuts = np.stack([_cut(lit, corners[cell]) for cell in sorted(corners)]).astype(np.float32)
    veil = haze_veil(cuts, sorted(corners), cuts.max(axis=3) >= 250)
    assert veil is not None
    by_cell = dict(zip(sorted(corners), veil.max(axis=(1, 2)), strict=True))
    assert by_cell[(1, 0)] > 30 and by_cell[(3, 0)] == by_cell[(3, 1)] == 0


def test_a_green_follower_smaller_than_any_green_meeple_is_in_doubt() -> None:
    # a green patch of a follower's outline 0.24 of the tile (a piece of an acrobat stack on a tile read as its base
    # twin) is in doubt; a green meeple of the smallest size drawn is sure
    photo, tiles, corners = _sand(2)
    _paint(photo, _poly(25, 70, 24.0, 0.0), COLORS["green"], 100)
    _paint(photo, _poly(125, 70, 28.0, 0.0), COLORS["green"], 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "meeple", "green")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "meeple", "green")]


@pytest.mark.parametrize(("size", "sure"), [(22.0, True), (26.0, True), (28.0, False)])
def test_a_stack_piece_wider_than_an_acrobat_is_in_doubt(size: float, sure: bool) -> None:
    # a black figure on an acrobat space: an acrobat (0.22 of the tile, 0.26 grown by the blur) is a stack of one; one
    # as wide as a meeple is a follower on the base twin (the tile under it misread), in doubt
    photo = np.full((100, 100, 3), (150, 190, 220), np.uint8)
    photo[:, :4] = 240
    _paint(photo, _poly(50, 50, size, 0.0), COLORS["black"], 100)
    found = search_figures(photo, [TileReading(0, 0, "ffff.acrobats", 0, 1.0)], {(0, 0): _square(0, 0, 100)})
    read = [(f.figure, f.color) for f in (found.sure if sure else found.unsure)]
    assert read == [("acrobat", "black")]
    assert not (found.unsure if sure else found.sure)


def test_a_follower_as_tall_as_the_ringmaster_but_narrower_is_in_doubt() -> None:
    # three black acrobats run together one above another (a stack on a tile read as its base twin) stand as tall as
    # the ringmaster but not as wide: in doubt; a red ringmaster beside them is sure
    photo, tiles, corners = _sand(2)
    for k in range(3):
        cv2.fillPoly(photo, [np.round(_poly(25, 40 + 8 * k, 24.0, 0.0) * 16).astype(np.int32)], COLORS["black"],
                     cv2.LINE_AA, shift=4)
    _paint(photo, _poly(125, 75, 38.0, 0.0), COLORS["red"], 100)
    found = search_figures(photo, tiles, corners)
    assert [(f.x, f.figure, f.color) for f in found.sure] == [(1, "ringmaster", "red")]
    assert [(f.x, f.figure, f.color) for f in found.unsure] == [(0, "ringmaster", "black")]
