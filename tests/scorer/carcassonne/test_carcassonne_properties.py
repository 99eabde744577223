"""Property tests over many random games (fixed seeds): invariants of figures, scores, features, tiles."""

from __future__ import annotations

import json
import random
from typing import Any

from scorer.carcassonne import Discard, Figure, Placement, State, move_to_json
from scorer.carcassonne.catalog import CATALOG, HALVES, SIDES, Kind, box, rotated
from scorer.carcassonne.engine import MEEPLES, canonical_spot, need_code
from scorer.carcassonne.model import Spot
from tests.scorer.carcassonne.carcassonne_helpers import GAME  # type: ignore[import-not-found,unused-ignore]

EXPANSION = ["under-the-big-top"]


def _figures_on_board(state: State, seat: int) -> tuple[int, int]:
    meeples = sum(seats.count(seat) for seats in state.acrobats.values())
    ringmasters = 0
    for feature in state.features.values():
        for fig in feature.figures:
            if fig.seat == seat:
                if fig.figure is Figure.RINGMASTER:
                    ringmasters += 1
                else:
                    meeples += 1
    return meeples, ringmasters


def _check_invariants(before: State, after: State) -> None:
    def accounted(state: State) -> int:
        return len(state.tiles) + len(state.discarded) + sum(state.remaining.values())

    assert accounted(after) == accounted(before), "every tile is placed, set aside or still to draw"
    assert after.stack is None or len(after.stack) == sum(after.remaining.values())
    if after.finished:
        assert not any(after.remaining.values())
    for seat in range(len(after.players)):
        meeples, ringmasters = _figures_on_board(after, seat)
        assert meeples + after.meeples[seat] == MEEPLES
        assert ringmasters + after.ringmasters[seat] == (1 if after.expansion else 0)
        for old, new in zip(before.points[seat], after.points[seat]):
            assert new >= old, "scores never decrease"
    for fid, feature in before.features.items():
        if feature.completed:
            assert after.features[fid] == feature, "a completed feature never changes"
    for (x, y), code in after.frontier.items():
        assert (x, y) not in after.tiles
        needed = []
        for side, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
            there = after.tiles.get((x + dx, y + dy))
            needed.append(None if there is None else rotated(*there).edges[(side + 2) % 4])
        assert any(needed) and code == need_code(needed), "the frontier knows what each square demands"
    for fid, feature in after.features.items():
        for key in feature.segments:
            assert after.seg_feature[key] == fid
        for fig in feature.figures:
            assert after.seg_feature[(fig.at[0], fig.at[1], fig.segment)] == fid
        assert not (feature.completed and feature.figures)


def _play_random_game(rng: random.Random, players: int, expansion: bool, tiles: int | None) -> None:
    names = ["Ann", "Ben", "Cat", "Dan", "Eva", "Fin"][:players]
    options: dict[str, Any] = {"expansions": EXPANSION if expansion else []}
    if tiles is not None:
        pool = [n for n, c in box(expansion).items() for _ in range(c)]
        pool.remove("D")
        options["stack"] = rng.sample(pool, tiles)
    state = GAME.new_state(names, rng, **options)
    if tiles is None:
        assert len(state.tiles) + len(state.discarded) + sum(state.remaining.values()) == sum(box(expansion).values())
    record: dict[str, Any] = {
        "game": "carcassonne",
        "players": names,
        "expansions": options["expansions"],
        "animal_tokens": [a.value for a in state.tokens],
        "moves": [move_to_json(Discard(t)) for t in state.discarded],
    }
    while not GAME.is_over(state):
        moves = GAME.legal_moves(state)
        move = moves[rng.randrange(len(moves))]
        after, _ = GAME.play(state, move)
        _check_invariants(state, after)
        record["moves"].append(move_to_json(move))
        record["moves"].extend(move_to_json(Discard(t)) for t in after.discarded[len(state.discarded) :])
        state = after
    report = GAME.replay(json.loads(json.dumps(record)))
    assert not report.illegal
    assert report.data["scores"] == dict(zip(names, state.scores)), "replaying the record gives the same scores"
    for name, seat_points in zip(names, state.points):
        assert sum(report.data["final"][name].values()) == sum(seat_points)


def test_thousands_of_short_random_games_keep_the_invariants() -> None:
    rng = random.Random(2024)
    for _ in range(1200):
        _play_random_game(rng, rng.randint(1, 6), rng.random() < 0.8, rng.randint(1, 12))


def test_full_random_games_keep_the_invariants() -> None:
    rng = random.Random(7)
    for players in (1, 2, 3, 4, 5, 6, 2, 4):
        _play_random_game(rng, players, True, None)
    for players in (2, 3):
        _play_random_game(rng, players, False, None)


def _random_candidate(state: State, rng: random.Random) -> Placement:
    assert state.stack is not None
    tile = state.stack[0] if rng.random() < 0.9 else rng.choice(list(CATALOG))
    spots = sorted(state.frontier) + list(state.tiles)
    x, y = rng.choice(spots)
    rotation = rng.choice((0, 90, 180, 270))
    roll = rng.random()
    near = (x + rng.randint(-2, 2), y + rng.randint(-2, 2))
    if roll < 0.25:
        return Placement(tile, (x, y), rotation)
    if roll < 0.75:
        kind = rng.choice(list(Kind))
        edge = {Kind.ROAD: SIDES, Kind.CITY: SIDES, Kind.FIELD: HALVES}.get(kind, ("",))
        figure = rng.choice((Figure.MEEPLE, Figure.RINGMASTER))
        return Placement(tile, (x, y), rotation, figure, Spot(kind, rng.choice(edge)))
    if roll < 0.9:
        return Placement(tile, (x, y), rotation, rng.choice(list(Figure)), target=near)
    return Placement(tile, (x, y), rotation, score_pyramid=near)


def test_check_agrees_with_legal_moves_on_random_candidates() -> None:
    rng = random.Random(99)
    checked = legal = 0
    for _ in range(12):
        state = GAME.new_state(["Ann", "Ben", "Cat"], rng)
        while not state.finished:
            listed = set(GAME.legal_moves(state))
            for _ in range(25):
                move = _random_candidate(state, rng)
                verdict = GAME.check(state, move)
                canonical = move
                if move.spot is not None and move.tile in CATALOG:
                    spot = canonical_spot(move.tile, move.rotation, move.spot)
                    canonical = Placement(move.tile, move.at, move.rotation, move.figure, spot)
                assert verdict.is_legal == (canonical in listed), (move, verdict)
                assert verdict.is_legal or verdict.message.endswith(".")
                checked += 1
                legal += verdict.is_legal
            choice = sorted(listed, key=repr)[rng.randrange(len(listed))]
            state, _ = GAME.play(state, choice)
    assert checked > 1000 and legal > 50
