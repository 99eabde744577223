"""The live referee takes a place glare holds from its last accepted state only where nothing done this turn
could have changed it (`firmware.grand_carnival.held`)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from firmware.grand_carnival import CarnivalTable, Sighting
from firmware.grand_carnival.held import changeable, fill, letters
from firmware.journal import Journal
from firmware.referee import Mode, Referee
from firmware.table import Seen
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.components import cell_name, cells_of, parcel_cells
from scorer.grand_carnival.model import NUMBERS, Board, CarnivalState, Foundation, Move, Pass, TrickStatus, Walk
from scorer.grand_carnival.observe import market_of
from scorer.grand_carnival.rules import current_seat
from vision.grand_carnival.layout import TENT_PLACES, TRICK_PLACES
from vision.grand_carnival.pipeline import MarketView, Unrecognised

GAME = GrandCarnival()
PLAYERS = ["Ann", "Ben"]


def seen(board: Board, seat: int) -> MarketView:
    """What a perfect camera reads of ``board``."""
    text = letters(board)
    learned = board.tricks_learned
    return MarketView(seat, tuple(text[r * 8:(r + 1) * 8] for r in range(8)),
                      tuple(sorted(((a.shape, a.mask, a.tickets) for a in board.attractions),
                                   key=lambda a: a[1] & -a[1])),
                      board.entrances, min(board.tent, TENT_PLACES), board.numbers, min(learned, TRICK_PLACES), (),
                      tuple(board.tent > k for k in range(TENT_PLACES)), tuple(n in board.numbers for n in NUMBERS),
                      tuple(learned > k for k in range(TRICK_PLACES)))


def glare(view: MarketView, cells: int = 0, places: tuple[str, ...] = ()) -> MarketView:
    """``view`` with the fields ``cells`` and the places off the grid (``"in1"``, ``"tent place 2"``,
    ``"number 3"``, ``"trick place 1"``) held, as the recogniser holds what glare saturates: an attraction
    over a held field is not read, and the problem holds its other fields too."""
    chars = list("".join(view.market))
    pieces = [a for a in view.attractions if not a[1] & cells]
    whole = cells
    for a in view.attractions:
        if a[1] & cells:
            whole |= a[1]
    for c in cells_of(cells):
        chars[c] = "?"
    problems = [Unrecognised(cell_name(c), "glare", whole if c == cells_of(cells)[0] else 1 << c)
                for c in cells_of(cells)]
    entrances, tent, numbers, tricks = (list(view.entrances), list(view.tent_places), list(view.number_figures),
                                        list(view.trick_figures))
    for place in places:
        kind, k = place.rsplit(" ", 1) if " " in place else ("in", place[2:])
        {"in": entrances, "tent place": tent, "number": numbers, "trick place": tricks}[kind][int(k) - 1] = None
        problems.append(Unrecognised(place, "glare"))
    return replace(view, market=tuple("".join(chars[r * 8:(r + 1) * 8]) for r in range(8)),
                   attractions=tuple(pieces), entrances=(entrances[0], entrances[1]),
                   tent=None if None in tent else view.tent, numbers=None if None in numbers else view.numbers,
                   tricks=None if None in tricks else view.tricks, unrecognised=tuple(problems),
                   tent_places=tuple(tent), number_figures=tuple(numbers), trick_figures=tuple(tricks))


def played(seed: int, moves: int, players: list[str] = PLAYERS) -> tuple[CarnivalState, Move, CarnivalState]:
    """A random game's state before its move number ``moves``, that move, and the state after it."""
    record = GAME.simulate(players=players, rng=random.Random(seed))
    state = GAME.record_state(record)
    for text in record["moves"][:moves - 1]:
        state, _ = GAME.apply_unchecked(state, GAME.parse_move(state, text))
    move = GAME.parse_move(state, record["moves"][moves - 1])
    return state, move, GAME.apply_unchecked(state, move)[0]


def test_a_tile_laid_under_glare_on_the_market_on_turn_is_held_not_taken_from_the_state(tmp_path: Path) -> None:
    state = GAME.record_state(GAME.simulate(players=PLAYERS, rng=random.Random(3)))
    move = next(m for m in GAME.legal_moves(state) if isinstance(m, Foundation))
    after, _ = GAME.apply_unchecked(state, move)
    seat = move.seat
    assert current_seat(state) == seat
    # the tile and the figure both under glare: the camera shows the market as it was
    view = glare(seen(after.boards[seat], seat), sum(1 << c for c in parcel_cells(move.parcel)),
                 (f"number {move.number}",))
    out = fill(view, state.boards[seat], changeable(state, seat))
    assert out.unrecognised == view.unrecognised
    assert all("".join(out.market)[c] == "?" for c in parcel_cells(move.parcel)) and out.numbers is None
    # the referee asks instead of seeing an unchanged table, and accepts nothing
    table = CarnivalTable()
    views = [seen(b, s) for s, b in enumerate(after.boards)]
    views[seat] = view
    sighting = table.sighting(_Result(tuple(views)), PLAYERS)
    assert sighting is not None and table.fill_held(state, sighting).unrecognised
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=table)
        first = referee.state
        referee.see(table.sighting(_Result(tuple(seen(b, s) for s, b in enumerate(first.boards))), PLAYERS))
        assert referee.mode is Mode.PLAYING
        mover = current_seat(first)
        assert mover is not None
        board = first.boards[mover]
        figure = glare(seen(replace(board, numbers=board.numbers | {1}), mover), places=("number 1",))
        views = tuple(figure if s == mover else seen(b, s) for s, b in enumerate(first.boards))
        referee.see(table.sighting(_Result(views), PLAYERS))
        assert referee.mode is Mode.QUESTION and referee.live.moves() == []


def test_glare_on_a_market_not_on_turn_is_taken_from_the_state_and_the_move_is_seen() -> None:
    state, move, after = played(1, 35)
    seat = move.seat
    other = 1 - seat
    board = after.boards[other]
    # every field holding something, an entrance, a tent place, a number and a trick place under glare
    cells = board.walkways | board.sites
    assert cells and board.attractions
    blind = glare(seen(board, other), cells, ("in1", "tent place 1", "number 2", "trick place 1"))
    out = fill(blind, state.boards[other], changeable(state, other))
    assert out.unrecognised == () and out == seen(state.boards[other], other)
    table = CarnivalTable()
    views = [seen(b, s) for s, b in enumerate(after.boards)]
    views[other] = blind
    sighting = table.sighting(_Result(tuple(views)), PLAYERS)
    assert sighting is not None and sighting.unrecognised
    found = table.infer(state, table.fill_held(state, sighting))
    assert found.seen is Seen.MOVE and found.move == move


def test_a_place_taken_from_the_state_is_never_taken_wrong() -> None:
    """Every move of three games, every market, a random set of places under glare: each place taken from the
    state before the move is as the table shows it after the move; a place that move changed is never taken."""
    rng = random.Random(11)
    taken = held = 0
    for seed, players in ((1, ["A", "B"]), (2, ["A", "B", "C"]), (4, ["A"])):
        record = GAME.simulate(players=players, rng=random.Random(seed))
        state = GAME.record_state(record)
        for text in record["moves"]:
            move = GAME.parse_move(state, text)
            after, _ = GAME.apply_unchecked(state, move)
            for seat, board in enumerate(after.boards):
                truth = seen(board, seat)
                cells = sum(1 << c for c in range(64) if rng.random() < 0.15)
                places = tuple(p for p in [f"in{k}" for k in (1, 2)]
                               + [f"tent place {k}" for k in range(1, TENT_PLACES + 1)]
                               + [f"number {n}" for n in NUMBERS]
                               + [f"trick place {k}" for k in range(1, TRICK_PLACES + 1)] if rng.random() < 0.15)
                blind = glare(truth, cells, places)
                out = fill(blind, state.boards[seat], changeable(state, seat, blind if rng.random() < 0.5 else None))
                text_out, text_truth = "".join(out.market), "".join(truth.market)
                assert all(a in ("?", b) for a, b in zip(text_out, text_truth)), (text, seat)
                assert set(out.attractions) <= set(truth.attractions)
                for mine, real in ((out.entrances, truth.entrances), (out.tent_places, truth.tent_places),
                                   (out.number_figures, truth.number_figures),
                                   (out.trick_figures, truth.trick_figures)):
                    assert all(a is None or a == b for a, b in zip(mine, real)), (text, seat)
                taken += out.unrecognised == ()
                held += out.unrecognised != ()
            state = after
    assert taken > 100 and held > 100


def test_a_pass_seen_with_the_market_on_turn_clear_and_another_under_glare_is_accepted(tmp_path: Path) -> None:
    table = CarnivalTable()
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=table)
        state = referee.state
        mover = current_seat(state)
        assert mover is not None
        board = state.boards[mover]
        views = [glare(seen(b, s), 1 << 27, ("in2",)) for s, b in enumerate(state.boards)]
        views[mover] = seen(replace(board, numbers=board.numbers | {5}), mover)
        referee.see(table.sighting(_Result(tuple(views)), PLAYERS))
        # the market on turn shows a figure on 5 and nothing else: a pass on 5, which the rules refuse while
        # an action is possible; the referee judged it, it did not ask what lies under the glare
        assert referee.mode is Mode.ILLEGAL and isinstance(referee.pending, Pass)


class _Result:
    """A recognised frame as the adapter takes it: the markets' views and no wagon row."""

    def __init__(self, views: tuple[MarketView, ...]) -> None:
        self.views = views
        self.railyard = None


def test_a_sighting_without_held_places_is_left_as_it_is() -> None:
    state = GAME.record_state(GAME.simulate(players=PLAYERS, rng=random.Random(0)))
    sighting = Sighting(tuple(market_of(b) for b in state.boards), None)
    assert CarnivalTable().fill_held(state, sighting) is sighting


def test_a_guest_into_the_tent_or_a_trick_figure_under_glare_on_the_market_on_turn_is_held() -> None:
    state, _, _ = played(1, 35)
    seat = current_seat(state)
    assert seat is not None
    board = _learned(replace(state.boards[seat], tent=2, entrances=(True, True)), 1)
    state = replace(state, boards=tuple(board if s == seat else b for s, b in enumerate(state.boards)))
    # a guest walked from the first entrance into the tent's third place, a second trick learned: the
    # guest in the tent and the trick's figure under glare
    number = min(n for n in NUMBERS if n not in board.numbers)
    walked = seen(_learned(replace(board, tent=3, entrances=(False, True), numbers=board.numbers | {number}), 2),
                  seat)
    blind = glare(walked, places=("tent place 3", "trick place 2"))
    out = fill(blind, board, changeable(state, seat, blind))
    assert out.tent is None and out.tricks is None and len(out.unrecognised) == 2
    # the places before them cannot change, those after them only with them
    blind = glare(walked, places=("tent place 2", "tent place 5", "trick place 1"))
    out = fill(blind, board, changeable(state, seat, blind))
    assert (out.tent, out.tricks, out.unrecognised) == (3, 2, ())
    # on a market not on turn every one is taken
    other = 1 - seat
    out = fill(glare(seen(state.boards[other], other), places=("tent place 1", "trick place 1")),
               state.boards[other], changeable(state, other))
    assert out.unrecognised == () and out == seen(state.boards[other], other)


def _learned(board: Board, count: int) -> Board:
    return replace(board, tricks=tuple(TrickStatus.LEARNED if i < count else TrickStatus.OPEN
                                       for i in range(len(board.tricks))))


def test_a_free_walkway_under_glare_on_the_market_on_turn_is_taken_only_while_no_guest_has_walked() -> None:
    state = next(s for s in _states(1) if _walk_of(s) is not None)
    walk = _walk_of(state)
    assert walk is not None
    seat = walk.seat
    board = state.boards[seat]
    free = board.walkways & ~board.guests & ~board.barkers & ~(1 << walk.end if walk.end < 64 else 0)
    spot = free & -free
    assert spot
    # a figure on a number and nothing else yet: every guest where it stood, the walkway taken from the state
    figure = seen(replace(board, numbers=board.numbers | {walk.number}), seat)
    out = fill(glare(figure, spot), board, changeable(state, seat, glare(figure, spot)))
    assert out.unrecognised == () and "".join(out.market) == letters(board)
    # two walkways unseen: two walks from the entrances could refill them as they were and hide both guests
    two = spot | (free & ~spot) & -(free & ~spot)
    blind = glare(figure, two)
    assert fill(blind, board, changeable(state, seat, blind)).unrecognised
    # the guest walked: the same walkway is held, whatever the camera reads elsewhere
    after = GAME.apply_unchecked(state, walk)[0].boards[seat]
    walked = glare(seen(after, seat), spot)
    out = fill(walked, board, changeable(state, seat, walked))
    assert out.unrecognised and "".join(out.market)[spot.bit_length() - 1] == "?"
    # every field a walk ends on read without a new guest: no guest walked, whichever start is unseen
    start = glare(figure, 1 << walk.start)
    out = fill(start, board, changeable(state, seat, start))
    assert out.unrecognised == () and "".join(out.market) == letters(board)


def _states(seed: int) -> list[CarnivalState]:
    record = GAME.simulate(players=PLAYERS, rng=random.Random(seed))
    state = GAME.record_state(record)
    out = [state]
    for text in record["moves"]:
        state, _ = GAME.apply_unchecked(state, GAME.parse_move(state, text))
        out.append(state)
    return out


def _walk_of(state: CarnivalState) -> Walk | None:
    """A walk from a field of the market on turn, when one is legal and a free walkway is left besides its end."""
    for move in GAME.legal_moves(state):
        if isinstance(move, Walk) and move.start < 64:
            board = state.boards[move.seat]
            free = board.walkways & ~board.guests & ~board.barkers
            if free & ~(1 << move.end if move.end < 64 else 0):
                return move
    return None


def test_before_a_figure_shows_the_market_on_turn_is_taken_from_the_state_and_a_tile_laid_first_waits() -> None:
    state = GAME.record_state(GAME.simulate(players=PLAYERS, rng=random.Random(3)))
    move = next(m for m in GAME.legal_moves(state) if isinstance(m, Foundation))
    seat = move.seat
    board = state.boards[seat]
    parcel = sum(1 << c for c in parcel_cells(move.parcel))
    # the tile laid first, under glare, its figure still in the hand: the market reads as it was, no move
    tiled = GAME.apply_unchecked(state, move)[0].boards[seat]
    early = glare(seen(replace(tiled, numbers=board.numbers), seat), parcel)
    out = fill(early, board, changeable(state, seat, early))
    assert out.unrecognised == () and out == seen(board, seat)
    # the figure put on its number: the parcel under glare is held, the tile judged only once it can be read
    placed = glare(seen(tiled, seat), parcel)
    out = fill(placed, board, changeable(state, seat, placed))
    assert out.unrecognised and all("".join(out.market)[c] == "?" for c in parcel_cells(move.parcel))
    # on the round's last turn the figure may stay in the hand: nothing is taken for want of it
    last = replace(state, turn=2 * len(NUMBERS) - 1)
    seat = current_seat(last)
    assert seat is not None
    board = replace(last.boards[seat], numbers=frozenset(NUMBERS[1:]))
    last = replace(last, boards=tuple(board if s == seat else b for s, b in enumerate(last.boards)))
    blind = glare(seen(board, seat), parcel)
    assert fill(blind, board, changeable(last, seat, blind)).unrecognised


def test_a_row_of_places_read_otherwise_than_the_state_where_nothing_could_change_is_not_filled() -> None:
    """The tent's first place misread empty and its second under glare: filling the second would count the tent
    one short, so the tent stays held (a guest after an empty place, or a place the state has otherwise)."""
    state, move, _ = played(1, 35)
    other = 1 - move.seat
    board = replace(state.boards[other], tent=5)
    state = replace(state, boards=tuple(board if s == other else b for s, b in enumerate(state.boards)))
    truth = seen(board, other)
    misread = replace(truth, tent_places=(False,) + truth.tent_places[1:])
    out = fill(glare(misread, places=("tent place 2",)), board, changeable(state, other))
    assert out.tent is None and out.unrecognised
    out = fill(glare(truth, places=("tent place 2",)), board, changeable(state, other))
    assert out.tent == 5 and out.unrecognised == ()


def _over_a_tile(seed: int, sources: tuple[str, ...] = ("1a", "1b", "2", "3", "4", "5")
                 ) -> tuple[CarnivalState, Foundation]:
    """A state and a foundation tile (from one of ``sources``) laid on a parcel of the market on turn that already
    has a tile of another pattern, with the figure on a number that may take it."""
    for state in _states(seed):
        for move in GAME.legal_moves(state):
            if not isinstance(move, Foundation) or move.discard or move.source not in sources:
                continue
            board = state.boards[move.seat]
            taken = [p for p, t in enumerate(board.parcels) if t is not None and t != move.tile]
            if taken:
                return state, replace(move, parcel=taken[0])
    raise AssertionError("no tile to lay over another")


def test_a_tile_laid_over_a_tile_is_judged_with_the_reason_a_player_understands() -> None:
    from scorer.grand_carnival.rules import check_move

    state, move = _over_a_tile(1)
    after, _ = GAME.apply_unchecked(state, move)
    table = CarnivalTable()
    found = table.infer(state, Sighting(tuple(market_of(b) for b in after.boards), after.railyard.open))
    assert found.seen is Seen.MOVE and found.move == move
    check = check_move(state, move, GAME.catalog)
    assert check.is_illegal and "already has a tile" in check.message


def test_a_tile_from_the_wagon_row_laid_over_a_tile_under_glare_is_not_passed_over() -> None:
    """The new tile differs from the one under it in one field only, and glare holds that field: no guest can
    have walked there unseen, so the field is taken from the state and the market reads as it was; the tile
    gone from the wagon row tells the referee a tile was laid, and it says so instead of seeing a pass."""
    for state in _states(1):
        moves = [m for m in GAME.legal_moves(state) if isinstance(m, Foundation) and m.source in "2345"]
        board = state.boards[current_seat(state) or 0]
        found = [(m, p, k) for m in moves for p, t in enumerate(board.parcels) if t is not None
                 for k in range(4) if sum(a != b for a, b in zip(t.replace("/", ""), m.tile.replace("/", ""))) == 1
                 and t.replace("/", "")[k] != m.tile.replace("/", "")[k]]
        if found:
            break
    move, parcel, k = replace(found[0][0], parcel=found[0][1]), found[0][1], found[0][2]
    after, _ = GAME.apply_unchecked(state, move)
    seat = move.seat
    assert None not in state.railyard.open and after.railyard.open != state.railyard.open
    views = [seen(b, s) for s, b in enumerate(after.boards)]
    views[seat] = glare(views[seat], 1 << parcel_cells(parcel)[k])
    table = CarnivalTable()
    result = _Result(tuple(views))
    result.railyard = _Yard(after.railyard.open)
    sighting = table.sighting(result, PLAYERS)
    assert sighting is not None
    filled = table.fill_held(state, sighting)
    assert filled.unrecognised == () and filled.markets[seat].parcels == state.boards[seat].parcels
    found_move = table.infer(state, filled)
    assert found_move.seen is Seen.UNEXPLAINED and "wagon row" in found_move.message, found_move


class _Yard:
    """The wagon row as the recogniser reads it, read clearly."""

    def __init__(self, tiles: tuple[str | None, ...]) -> None:
        self.open = tiles
        self.unrecognised: tuple[Unrecognised, ...] = ()


def _pieces(board: Board, seat: int) -> list[tuple[MarketView, int, str]]:
    """``board``'s market seen with one piece taken off, for each piece: the view, the fields and the place
    (`glare`'s) that held it."""
    out: list[tuple[MarketView, int, str]] = []
    for c in cells_of(board.guests):
        out.append((seen(replace(board, guests=board.guests & ~(1 << c)), seat), 1 << c, ""))
    for c in cells_of(board.barkers):
        out.append((seen(replace(board, barkers=board.barkers & ~(1 << c)), seat), 1 << c, ""))
    for a in board.attractions:
        rest = tuple(b for b in board.attractions if b is not a)
        out.append((seen(replace(board, attractions=rest), seat), a.mask, ""))
    for k in (0, 1):
        if board.entrances[k]:
            gone = (False, board.entrances[1]) if k == 0 else (board.entrances[0], False)
            out.append((seen(replace(board, entrances=gone), seat), 0, f"in{k + 1}"))
    if 0 < board.tent <= TENT_PLACES:
        out.append((seen(replace(board, tent=board.tent - 1), seat), 0, f"tent place {board.tent}"))
    for n in sorted(board.numbers):
        out.append((seen(replace(board, numbers=board.numbers - {n}), seat), 0, f"number {n}"))
    return out


def test_a_piece_taken_off_a_market_where_glare_holds_its_place_is_kept_or_held_never_removed() -> None:
    """Every piece of every market of a game's states taken off, its place under glare: the place is either
    held or taken from the state (the piece kept), and the referee accepts no move from it."""
    table = CarnivalTable()
    checked = kept = held = 0
    for state in _states(1)[::3]:
        for seat, board in enumerate(state.boards):
            truth = seen(board, seat)
            for view, cells, place in _pieces(board, seat):
                blind = glare(view, cells, (place,) if place else ())
                for could in (changeable(state, seat, blind), changeable(state, seat)):
                    out = fill(blind, board, could)
                    chars, real = "".join(out.market), "".join(truth.market)
                    assert all(chars[c] in ("?", real[c]) for c in cells_of(cells))
                    assert {a for a in out.attractions if a[1] & cells} <= set(truth.attractions)
                    if cells and not out.unrecognised:
                        assert {a for a in out.attractions if a[1] & cells} == {
                            a for a in truth.attractions if a[1] & cells}
                    for mine, real_row in ((out.entrances, truth.entrances), (out.tent_places, truth.tent_places),
                                           (out.number_figures, truth.number_figures)):
                        assert all(a is None or a == b for a, b in zip(mine, real_row))
                    kept += out.unrecognised == ()
                    held += out.unrecognised != ()
                views = [seen(b, s) for s, b in enumerate(state.boards)]
                views[seat] = blind
                sighting = table.sighting(_Result(tuple(views)), PLAYERS)
                assert sighting is not None
                found = table.infer(state, table.fill_held(state, sighting)) if not table.fill_held(
                    state, sighting).unrecognised else None
                assert found is None or found.seen is not Seen.MOVE
                checked += 1
    assert checked > 100 and kept > 20 and held > 20, (checked, kept, held)


def test_the_referee_refuses_a_tile_laid_over_a_tile_and_says_why(tmp_path: Path) -> None:
    table = CarnivalTable()
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, PLAYERS, table=table)
        for _ in range(2):  # each player lays a tile from the face-down stack
            state = referee.state
            move = next(m for m in GAME.legal_moves(state)
                        if isinstance(m, Foundation) and m.source == "1a" and not m.discard)
            after, _ = GAME.apply_unchecked(state, move)
            referee.see(Sighting(tuple(market_of(b) for b in after.boards), None))
            assert referee.mode is Mode.PLAYING
        state = referee.state
        seat = current_seat(state)
        assert seat is not None
        board = state.boards[seat]
        parcel = next(p for p, t in enumerate(board.parcels) if t is not None)
        number = min(n for n in NUMBERS if n not in board.numbers)
        tile = next(t for t in GAME.catalog.foundations if t != board.parcels[parcel])
        over = replace(board, parcels=tuple(tile if p == parcel else t for p, t in enumerate(board.parcels)),
                       numbers=board.numbers | {number})
        markets = tuple(market_of(over if s == seat else b) for s, b in enumerate(state.boards))
        referee.see(Sighting(markets, None))
        assert referee.mode is Mode.ILLEGAL and "already has a tile" in referee.last_event
        assert len(referee.live.moves()) == 2
        # the new tile taken off again, the figure back in the hand: play goes on from the accepted state
        referee.see(Sighting(tuple(market_of(b) for b in state.boards), None))
        assert referee.mode is Mode.PLAYING and len(referee.live.moves()) == 2
