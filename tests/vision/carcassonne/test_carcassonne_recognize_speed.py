"""The board settling's faster form chooses exactly as the plain one it replaces."""

from __future__ import annotations

from typing import Any

import numpy as np

from scorer.carcassonne.catalog import box
from vision.carcassonne import recognize as rec
from vision.carcassonne.labels import NONE, label


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


def _pair_scores_plain(probs: Any, edges: Any, labels: Any, expansion: bool) -> Any:
    """`recognize._pair_scores` as it was: the columns and the box's prior worked out on every call."""
    index = {lab: i for i, lab in enumerate(labels)}
    cols = np.array([index[label(n, r)] for n, r in rec._PAIRS])
    counts = box(expansion)
    prior = np.array([np.log(counts.get(n, 0) + 1e-3) for n, _ in rec._PAIRS])
    logp = np.log(np.clip(probs[:, cols], 1e-9, 1.0)) + rec.PRIOR_WEIGHT * prior
    loge = np.log(np.clip(edges, 1e-6, 1.0))
    edge_term = np.zeros_like(logp)
    for side in range(4):
        edge_term += loge[:, side, :][:, rec._EDGES[:, side]]
    return logp + rec.EDGE_WEIGHT * edge_term


def _unsupported_plain(probs: Any, edges: Any, choice: list[int], labels: Any, caps: dict[str, int]) -> set[int]:
    """`recognize._unsupported` as it was: each cell's sums taken row by row."""
    by_type: dict[str, list[int]] = {}
    for j, lab in enumerate(labels):
        if lab != NONE:
            by_type.setdefault(lab.rpartition("@")[0], []).append(j)
    held = [j for name, cols in by_type.items() if caps.get(name, 0) > 0 for j in cols]
    none_col = list(labels).index(NONE)
    out: set[int] = set()
    for k, p in enumerate(choice):
        own = float(probs[k, by_type[rec._PAIRS[p][0]]].sum()) / max(float(probs[k, held].sum()), 1e-9)
        sides = float(min(edges[k, side, rec._EDGES[p, side]] for side in range(4)))
        if own < rec.OWN_EVIDENCE or probs[k, none_col] >= rec.NOT_A_TILE or sides < rec.SIDE_DOUBT:
            out.add(k)
    return out


def _big_top_doubts_plain(probs: Any, choice: list[int], labels: Any) -> set[int]:
    """`recognize._big_top_doubts` as it was: each cell's sums taken row by row, its twins looked up."""
    by_type: dict[str, list[int]] = {}
    for j, lab in enumerate(labels):
        if lab != NONE:
            by_type.setdefault(lab.rpartition("@")[0], []).append(j)
    out: set[int] = set()
    for k, p in enumerate(choice):
        name, rot = rec._PAIRS[p]
        mine = float(probs[k, by_type[name]].sum())
        for twin, _ in rec.big_top_twins(name, rot).values():
            theirs = float(probs[k, by_type[twin]].sum())
            if theirs / max(mine + theirs, 1e-9) >= rec.BIG_TOP_TWIN_DOUBT:
                out.add(k)
    return out


def _model_like(rng: Any, n: int, labels: tuple[str, ...]) -> tuple[Any, Any]:
    """Class and edge probabilities (float32, as the model gives them): a few sure columns, many tiny ones, exact
    zeros and ones, and shares near the doubt thresholds."""
    logits = rng.normal(0, rng.choice([1.0, 4.0, 12.0]), (n, len(labels)))
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    probs[rng.random(probs.shape) < 0.05] = 0.0
    probs[rng.random(n) < 0.1, len(labels) - 1] = rng.choice([0.2, 0.19999999, 1.0])
    edges = rng.dirichlet(np.ones(3) * rng.choice([0.2, 1.0]), (n, 4))
    edges[rng.random((n, 4)) < 0.05] = (0.5, 0.25, 0.25)
    return probs.astype(np.float32), edges.astype(np.float32)


def test_the_cells_judgements_read_as_their_plain_forms_to_the_bit() -> None:
    """Pair scores (every float the same), cells their picture does not bear out and base tiles that may be their
    Under the Big Top twin (the same cells) on random model outputs, each label order and box, every settled pair."""
    from vision.carcassonne.labels import TILE_LABELS

    rng = np.random.default_rng(11)
    orders = [tuple(TILE_LABELS), tuple(rng.permutation(list(TILE_LABELS)))]
    for trial in range(200):
        labels = orders[trial % 2]
        n = int(rng.integers(1, 100))
        probs, edges = _model_like(rng, n, labels)
        expansion = bool(trial % 3)
        caps = box(expansion)
        got = rec._pair_scores(probs, edges, labels, expansion)
        assert got.dtype == np.float64
        assert got.tobytes() == _pair_scores_plain(probs, edges, labels, expansion).tobytes(), trial
        choice = [int(p) for p in rng.integers(0, len(rec._PAIRS), n)]
        assert rec._unsupported(probs, edges, choice, labels, caps) == _unsupported_plain(probs, edges, choice, labels, caps)
        assert rec._big_top_doubts(probs, choice, labels) == _big_top_doubts_plain(probs, choice, labels), trial


def test_a_row_sum_is_the_sum_numpy_takes_of_that_row_alone() -> None:
    """What `recognize._type_sums`, `_unsupported` and `_settle` rest on: summed along its rows, a C-ordered array
    (a strided one need not: there numpy sums columnwise) gives each row's own sum to the bit, for any row length."""
    rng = np.random.default_rng(2)
    for m in range(1, 140):
        for dtype in (np.float32, np.float64):
            a = (rng.random((40, 150)) ** 6).astype(dtype)
            cols = rng.choice(150, m, replace=False)
            rows = np.ascontiguousarray(a.take(cols, axis=1)).sum(axis=1)
            assert rows.tobytes() == np.array([a[k, cols].sum() for k in range(40)], dtype).tobytes(), (m, dtype)


def _cut_crops_plain(photo: Any, corners: list[Any]) -> Any:
    """`classifier.cut_crops` as it was: every side's length taken exactly, each crop warped and then copied."""
    import cv2

    from vision.carcassonne.dataset import CROP

    out = np.empty((len(corners), CROP, CROP, 3), np.uint8)
    dst = np.asarray([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], dtype=np.float32)
    for i, c in enumerate(corners):
        m = cv2.getPerspectiveTransform(np.asarray(c, dtype=np.float32), dst)
        side = float(np.linalg.norm(c[1] - c[0]))
        if side > 2.5 * CROP:
            k = 2 * CROP / side
            x0, y0 = np.floor(c.min(axis=0)).astype(int)
            x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 1
            x0, y0 = max(0, x0), max(0, y0)
            x1, y1 = min(photo.shape[1], x1), min(photo.shape[0], y1)
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                part = cv2.resize(photo[y0:y1, x0:x1], None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
                local = (np.asarray(c, dtype=np.float32) - [x0, y0]) * k
                m = cv2.getPerspectiveTransform(np.asarray(local, dtype=np.float32), dst)
                out[i] = cv2.warpPerspective(part, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                continue
        out[i] = cv2.warpPerspective(photo, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def test_the_crops_are_cut_as_their_plain_form_cuts_them() -> None:
    """Cells of every size (far under, about and far over the length from which the photo is shrunk first), turned
    and skewed, partly off the photo, float32 and float64 corners: every crop the same, byte for byte."""
    from vision.carcassonne.classifier import cut_crops
    from vision.carcassonne.dataset import CROP

    rng = np.random.default_rng(4)
    photo = rng.integers(0, 256, (700, 900, 3), np.uint8)
    photo = np.ascontiguousarray(np.repeat(np.repeat(photo[::4, ::4], 4, axis=0), 4, axis=1)[:700, :900])
    corners = []
    for side in list(rng.uniform(10, 400, 300)) + [2.5 * CROP * f for f in (0.985, 0.99, 0.995, 1.0, 1.0000001, 1.01)]:
        angle = rng.uniform(0, 2 * np.pi)
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64) + rng.normal(0, 0.05, (4, 2)) * (side > 20)
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        c = unit @ turn.T * side + rng.uniform(-100, 1000, 2)
        if rng.random() < 0.5:
            # the top side exactly this long
            c[1] = c[0] + side * np.array([np.cos(angle), np.sin(angle)])
        corners.append(c.astype(np.float32) if rng.random() < 0.5 else c)
    got = cut_crops(photo, corners)
    assert got.tobytes() == _cut_crops_plain(photo, corners).tobytes()
