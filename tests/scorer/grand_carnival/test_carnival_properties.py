"""Invariants over random full games (seeded, so failures reproduce)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from scorer.core import Verdict
from scorer.grand_carnival import Build, CarnivalState, Foundation, Pass, Walk
from scorer.grand_carnival.model import TrickStatus
from scorer.grand_carnival.scoring import hammers
from tests.scorer.grand_carnival.carnival_helpers import GAME  # type: ignore[import-not-found,unused-ignore]

BOX = Counter({p: n for p, n in GAME.catalog.foundations.items()})


def tiles_everywhere(state: CarnivalState) -> Counter[str]:
    yard = state.railyard
    seen: Counter[str] = Counter()
    for tile in (*yard.stacks[0], *yard.stacks[1], *yard.open, *yard.discard):
        assert tile is not None
        seen[tile] += 1
    for board in state.boards:
        seen.update(p for p in board.parcels if p is not None)
    return seen


def check_invariants(state: CarnivalState, start: CarnivalState) -> None:
    assert tiles_everywhere(state) == BOX
    players = len(state.players)
    built = Counter(a.shape for b in state.boards for a in b.attractions)
    for (name, left), first in zip(zip(GAME.catalog.shapes, state.supply), start.supply):
        assert left >= 0 and left + built[name] == first
    placed = sum(b.barkers.bit_count() for b in state.boards)
    assert state.barkers >= 0 and state.barkers + placed == GAME.catalog.barkers[players - 1]
    for board in state.boards:
        covered = 0
        for a in board.attractions:
            assert 0 <= a.tickets <= a.mask.bit_count()
            assert not a.mask & covered
            covered |= a.mask
        assert covered == board.covered
        assert not board.covered & ~board.sites
        assert not board.barkers & ~board.walkways
        assert not board.guests & (board.barkers | board.covered)
        assert not board.guests & ~(board.walkways | board.sites)
        assert hammers(board, GAME.catalog) >= 0
        statuses = Counter(board.tricks)
        assert sum(statuses.values()) == len(state.tricks)
    for i in range(len(state.tricks)):
        column = [b.tricks[i] for b in state.boards]
        if TrickStatus.OPEN in column:
            # A trick someone has learned is never open for anyone else.
            assert TrickStatus.LEARNED not in column


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_keep_every_invariant(players: int) -> None:
    rng = random.Random(100 + players)
    kinds: Counter[str] = Counter()
    for _ in range(2):
        start = GAME.new_state(["Ann", "Ben", "Cat", "Dan"][:players], rng)
        state = start
        turns = 0
        while not GAME.is_over(state):
            moves = GAME.legal_moves(state)
            assert len(set(moves)) == len(moves)
            move = moves[rng.randrange(len(moves))]
            kinds[type(move).__name__] += 1
            state, _ = GAME.apply_unchecked(state, move)
            check_invariants(state, start)
            turns += 1
        assert turns == 7 * 5 * players
        assert GAME.outcome(state) is not None
    assert kinds[Foundation.__name__] and kinds[Build.__name__] and kinds[Walk.__name__]


@pytest.mark.parametrize(("players", "seed"), [(1, 1), (2, 2), (3, 3), (4, 4)])
def test_replay_of_a_simulation_gives_the_simulated_result(players: int, seed: int) -> None:
    names = ["Ann", "Ben", "Cat", "Dan"][:players]
    record = GAME.simulate(names, random.Random(seed))
    rng = random.Random(seed)
    state = GAME.new_state(names, rng)
    for text in record["moves"]:
        state, _ = GAME.play(state, GAME.parse_move(state, text))
    report = GAME.replay(record)
    assert report.data["scores"] == dict(zip(names, GAME.scores(state)))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert report.data["winners"] == [names[w] for w in outcome.winners]


def candidate_moves(state: CarnivalState) -> list[object]:
    """Many well-formed moves, legal or not, for the player to move."""
    seat = GAME.current_player(state)
    assert seat is not None
    board = state.boards[seat]
    out: list[object] = []
    for n in range(1, 6):
        for source in ("1a", "1b", "2", "3", "4", "5"):
            for tile in GAME.catalog.foundations:
                for parcel in range(16):
                    out.append(Foundation(seat, n, source, tile, parcel, False))
                out.append(Foundation(seat, n, source, tile, 0, True))
                out.append(Foundation(seat, n, source, tile, 15, True))
        for name, shape in GAME.catalog.shapes.items():
            for anchor in shape.by_anchor[::3]:
                out.extend(Build(seat, n, name, mask) for mask in anchor)
        starts = [64, 65, *range(0, 64, 9)] + [c for c in range(64) if board.guests >> c & 1]
        for start in starts:
            for end in [*range(64), 66]:
                out.append(Walk(seat, n, start, end))
            out.append(Walk(seat, n, start, start ^ 1, 0))
        out.append(Pass(seat, n))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_check_agrees_with_legal_moves_on_every_candidate(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(["Ann", "Ben"], rng)
    for stop in (3, 30, 25):
        for _ in range(stop):
            moves = GAME.legal_moves(state)
            state, _ = GAME.apply_unchecked(state, moves[rng.randrange(len(moves))])
        listed = set(GAME.legal_moves(state))
        for move in candidate_moves(state):
            assert GAME.check(state, move).is_legal == (move in listed), move  # type: ignore[arg-type]


def test_public_view_never_guesses_a_face_down_tile() -> None:
    rng = random.Random(21)
    state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
    guessed = 0
    for _ in range(40):
        view = GAME.public_view(state)
        assert all(t is None for stack in view.railyard.stacks for t in stack)
        seat = GAME.current_player(state)
        assert seat is not None
        for move in GAME.legal_moves(state):
            assert GAME.is_legal(view, move)
            verdict = GAME.check(view, move).verdict
            face_down = isinstance(move, Foundation) and move.source in ("1a", "1b")
            assert (verdict is Verdict.UNVERIFIABLE) == face_down
        for tile in GAME.catalog.foundations:
            wrong = Foundation(seat, 1, "1a", tile, 0, False)
            free = view.boards[seat].parcels[0] is None and 1 not in view.boards[seat].numbers
            if free and view.railyard.stacks[0]:
                assert GAME.check(view, wrong).verdict is Verdict.UNVERIFIABLE
                guessed += 1
        moves = GAME.legal_moves(state)
        state, _ = GAME.apply_unchecked(state, moves[rng.randrange(len(moves))])
    assert guessed > 0
