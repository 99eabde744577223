"""The board settling's faster form chooses exactly as the plain one it replaces."""

from __future__ import annotations

from typing import Any

import numpy as np

from scorer.carcassonne.catalog import box
from vision.carcassonne import recognize as rec


def _settle_plain(cells: list[tuple[int, int]], scores: Any,
                  caps: dict[str, int]) -> tuple[list[int], list[float], list[float], list[list[int]]]:
    """`recognize._settle` as it was: each candidate's score through ``local`` and ``max``, numpy's rows iterated."""
    n = len(cells)
    cands = np.argsort(-scores, axis=1)[:, :rec.CANDIDATES]
    cand_rows: list[list[int]] = cands.tolist()
    choice: list[int] = [row[0] for row in cand_rows]
    where = {c: i for i, c in enumerate(cells)}
    neigh = [[where.get((x + dx, y + dy), -1) for dx, dy in rec._STEP] for x, y in cells]
    score_rows: list[list[float]] = scores.tolist()
    edge_rows: list[list[int]] = rec._EDGES.tolist()

    def local(i: int, p: int) -> float:
        total = score_rows[i][p]
        own = edge_rows[p]
        for side, j in enumerate(neigh[i]):
            if j >= 0 and own[side] != edge_rows[choice[j]][(side + 2) % 4]:
                total -= rec.MISMATCH
        return total

    for _ in range(4):
        changed = False
        for i in range(n):
            best = max(cand_rows[i], key=lambda p: local(i, p))
            if best != choice[i]:
                choice[i] = best
                changed = True
        if not changed:
            break
    for _ in range(n):
        used: dict[str, list[int]] = {}
        for i in range(n):
            used.setdefault(rec._PAIRS[choice[i]][0], []).append(i)
        over = [(name, idx) for name, idx in used.items() if len(idx) > caps.get(name, 0)]
        if not over:
            break
        name, idx = over[0]
        full = {nm for nm, ix in used.items() if len(ix) >= caps.get(nm, 0)}
        moves = []
        for i in idx:
            for p in cands[i]:
                if rec._PAIRS[p][0] not in full:
                    moves.append((local(i, int(choice[i])) - local(i, int(p)), i, int(p)))
                    break
        if not moves:
            break
        _, i, p = min(moves)
        choice[i] = p
    conf: list[float] = []
    twin: list[float] = []
    running: list[list[int]] = []
    for i in range(n):
        vals = np.array([local(i, int(p)) for p in cands[i]])
        mine = local(i, int(choice[i]))
        share = np.exp(vals - mine)
        total = share.sum()
        conf.append(float(1.0 / total))
        twin.append(float(share[rec._TWINS[choice[i], cands[i]]].sum() / total))
        running.append([int(p) for p in cands[i][share >= rec.RUNNING * total]])
    return [int(c) for c in choice], conf, twin, running


def test_the_settling_chooses_and_scores_as_its_plain_form_to_the_bit() -> None:
    """Boards of 1 to 120 cells, scores spread or nearly tied (whole numbers: exact ties, and ties the mismatch makes),
    holes in the board, the box's caps small enough to move tiles: the same choices, confidences, twin shares and
    pairs in the running, every float the same."""
    rng = np.random.default_rng(5)
    pairs = len(rec._PAIRS)
    for trial in range(300):
        n = int(rng.integers(1, 121))
        side = int(np.ceil(np.sqrt(n * 1.3)))
        cells = [(int(k % side), int(k // side)) for k in rng.choice(side * side, n, replace=False)]
        if trial % 3 == 0:
            scores = rng.integers(-12, 0, (n, pairs)).astype(np.float64)  # exact ties, mismatches of 4 making more
        else:
            scores = rng.normal(0, rng.choice([0.5, 3.0, 10.0]), (n, pairs))
        caps = box(bool(trial % 2)) if trial % 4 else {name: 1 for name in box(True)}
        got = rec._settle(cells, scores, caps)
        want = _settle_plain(cells, scores, caps)
        assert got[0] == want[0] and got[3] == want[3], trial
        assert [x.hex() for x in got[1]] == [x.hex() for x in want[1]], trial
        assert [x.hex() for x in got[2]] == [x.hex() for x in want[2]], trial
