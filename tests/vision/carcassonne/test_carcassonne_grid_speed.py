"""The grid search's faster forms read exactly as the plain ones they replace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.carcassonne import grid as grid_module


def _peaks_plain(ac: NDArray[Any], lo: int, hi: int) -> list[tuple[float, float]]:
    """The autocorrelation's refined local maxima one lag at a time, as `grid._peaks` did before it was vectorised."""
    out: list[tuple[float, float]] = []
    for i in range(max(1, lo), min(len(ac) - 1, hi + 1)):
        if ac[i] >= ac[i - 1] and ac[i] >= ac[i + 1] and ac[i] > 0:
            y0, y1, y2 = ac[i - 1], ac[i], ac[i + 1]
            denom = y0 - 2 * y1 + y2
            off = 0.5 * (y0 - y2) / denom if abs(denom) > 1e-12 else 0.0
            out.append((i + float(np.clip(off, -0.5, 0.5)), float(y1)))
    return out


def test_peaks_are_those_found_lag_by_lag_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    profiles = [rng.random(640) * (np.arange(640) % 37 < 3), rng.random(200), np.zeros(50), np.ones(30),
                np.r_[0.0, 1.0, 1.0, 0.0, 2.0, 2.0, 2.0, 0.5]]
    for profile in profiles:
        _, ac = grid_module._autocorr(profile, 12.0)
        for ac_case in (ac, profile):
            for lo, hi in ((12, len(ac_case)), (0, 5), (1, 1), (8, 3), (-4, 10 * len(ac_case))):
                got = grid_module._peaks(ac_case, lo, hi)
                want = _peaks_plain(ac_case, lo, hi)
                assert [(a.hex(), b.hex()) for a, b in got] == [(a.hex(), b.hex()) for a, b in want]
    # a flat top (no parabola through it) stays where it is
    assert grid_module._peaks(np.array([0.0, 1.0, 1.0, 1.0, 0.0]), 1, 3) == [(1.5, 1.0), (2.0, 1.0), (2.5, 1.0)]


def _misfit_plain(top_mask: NDArray[Any], px: float, phx: float, py: float, phy: float) -> float:
    """`grid._misfit` as it was written before its parts were split out for `grid._rephased`."""
    ys, xs = np.nonzero(top_mask[::3, ::3])
    if not len(xs) or px <= 0 or py <= 0:
        return 0.0
    i = np.floor((3.0 * xs - phx) / px).astype(np.intp)
    j = np.floor((3.0 * ys - phy) / py).astype(np.intp)
    i -= i.min()
    j -= j.min()
    cnt = 9.0 * np.bincount(i * (int(j.max()) + 1) + j)
    cnt = cnt[cnt > 0]
    return float(np.minimum(cnt, np.maximum(px * py - cnt, 0.0)).sum() / cnt.sum())


_Lattice = tuple[float, float, float, float]


def _rephased_plain(top_mask: NDArray[Any], lattice: _Lattice) -> tuple[_Lattice, float]:
    """`grid._rephased` measuring every pair of phases afresh, as before."""
    px, phx, py, phy = lattice
    out, best = lattice, _misfit_plain(top_mask, *lattice)
    steps = np.arange(grid_module.PHASE_STEPS) / grid_module.PHASE_STEPS
    for sx in steps:
        for sy in steps:
            moved = (px, phx + sx * px, py, phy + sy * py)
            got = _misfit_plain(top_mask, *moved)
            if got < best:
                best, out = got, moved
    return out, best


def test_rephasing_takes_the_phases_and_misfit_measured_pair_by_pair() -> None:
    rng = np.random.default_rng(11)
    canvas = grid_module.CANVAS
    masks = []
    for k in range(4):
        # a ragged board of square tiles in a slightly skewed lattice, and a blob
        m = np.zeros((canvas, canvas), np.uint8)
        pitch = 30.0 + 7 * k
        for _ in range(40):
            x, y = rng.integers(3, 14, size=2)
            m[int(60 + y * pitch):int(60 + (y + 1) * pitch), int(40 + x * pitch):int(40 + (x + 1) * pitch)] = 1
        masks.append(m[:canvas, :canvas])
    blob = np.zeros((canvas, canvas), np.uint8)
    blob[200:420, 150:300] = 1
    masks += [blob, np.zeros((canvas, canvas), np.uint8)]
    for m in masks:
        for lattice in ((37.0, 5.5, 36.2, 11.25), (30.0, 0.0, 30.0, 0.0), (51.3, -7.1, 44.9, 300.0), (0.0, 1.0, 20.0, 1.0)):
            assert grid_module._misfit(m, *lattice) == _misfit_plain(m, *lattice)
            got, want = grid_module._rephased(m, lattice), _rephased_plain(m, lattice)
            assert got == want
            assert [type(v) for v in got[0]] == [type(v) for v in want[0]]


def test_phase_misfits_are_each_pair_of_phases_counted_afresh() -> None:
    rng = np.random.default_rng(12)
    canvas = grid_module.CANVAS
    m = np.zeros((canvas, canvas), np.uint8)
    for _ in range(30):
        x, y = rng.integers(2, 12, size=2)
        m[int(50 + y * 41.5):int(50 + (y + 1) * 41.5), int(30 + x * 40.2):int(30 + (x + 1) * 40.2)] = 1
    steps = np.arange(grid_module.PHASE_STEPS) / grid_module.PHASE_STEPS
    for lattice in ((40.2, 30.0, 41.5, 50.0), (37.0, 5.5, 36.2, 11.25), (81.0, -3.3, 20.7, 400.0)):
        px, phx, py, phy = lattice
        got = grid_module._phase_misfits(*grid_module._mask_points(m), lattice, steps)
        for a, sx in enumerate(steps):
            for b, sy in enumerate(steps):
                assert float(got[a, b]).hex() == _misfit_plain(m, px, phx + sx * px, py, phy + sy * py).hex()
    # points in any order, at heights that are not whole rows
    fx, fy = rng.uniform(0, 300, 500), rng.uniform(-40, 260, 500).round(1)
    lattice = (23.0, 1.7, 19.5, -2.25)
    px, phx, py, phy = lattice
    got = grid_module._phase_misfits(fx, fy, lattice, steps)
    for a, sx in enumerate(steps):
        for b, sy in enumerate(steps):
            i = np.floor((fx - (phx + sx * px)) / px).astype(np.intp)
            j = np.floor((fy - (phy + sy * py)) / py).astype(np.intp)
            i -= i.min()
            j -= j.min()
            cnt = 9.0 * np.bincount(i * (int(j.max()) + 1) + j)
            cnt = cnt[cnt > 0]
            want = float(np.minimum(cnt, np.maximum(px * py - cnt, 0.0)).sum() / cnt.sum())
            assert float(got[a, b]).hex() == want.hex()


def _unique_cells_plain(x: NDArray[Any], y: NDArray[Any]) -> NDArray[Any]:
    """The distinct cells as `grid._board_cells` sorted them out before: by their 64-bit keys."""
    keys = np.unique((x << 32) + (y & 0xFFFFFFFF))
    out: NDArray[Any] = np.column_stack((keys >> 32, ((keys & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000)).astype(np.intp)
    return out


def test_cells_marked_in_their_box_come_out_as_their_sorted_keys() -> None:
    rng = np.random.default_rng(2)
    cases: list[tuple[NDArray[Any], NDArray[Any]]] = [(rng.integers(lo_x, lo_x + span, n), rng.integers(lo_y, lo_y + span, n))
             for lo_x, lo_y, span, n in ((-3, -2, 14, 3000), (0, 0, 9, 500), (-20, -30, 12, 100), (5, -7, 6, 40),
                                         (-9, 4, 30, 3000), (0, -1, 2, 3), (-1000, 2, 3000, 2000))]
    # far apart (no box) and near the ends of 32 bits
    cases += [(np.array([0, 10**6, -10**6]), np.array([5, -5, 0])),
              (np.array([2**31 - 1, 2**31 - 2]), np.array([-(2**31), 2**31 - 1])), (np.zeros(0), np.zeros(0))]
    for x, y in cases:
        x, y = np.asarray(x, np.int64), np.asarray(y, np.int64)
        got, want = grid_module._unique_cells(x, y), _unique_cells_plain(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def _pair_plain(cand_x: list[tuple[float, float]], cand_y: list[tuple[float, float]]) -> tuple[float, float, float] | None:
    """The lag pair `grid._pitches` took, weighed pair by pair as tuples, as before."""
    pairs = [(px + py, sx + sy, px, py) for px, sx in cand_x for py, sy in cand_y if 0.72 <= px / py <= 1.39]
    if not pairs:
        return None
    best = max(p[1] for p in pairs)
    _, score, px, py = min(p for p in pairs if p[1] >= 0.75 * best)
    return px, py, score


def test_the_lag_pair_is_the_one_weighed_pair_by_pair() -> None:
    rng = np.random.default_rng(8)
    cases: list[tuple[list[tuple[float, float]], list[tuple[float, float]]]] = [
        ([(12.0, 0.0)], [(30.0, 0.0)]),  # no pair within a third
        ([(20.0, 0.0)], [(21.0, 0.0)]),  # the fallback lags, of no height
        ([(20.0, 0.5), (40.0, 0.5)], [(20.0, 0.5), (40.0, 0.5)]),  # equal heights: the shortest
        ([(20.0, 0.25), (21.0, 0.3)], [(21.0, 0.25), (20.0, 0.3)]),  # equal sums: the lower height first
        # equal sums and heights (the pair of both short lags too weak): the shorter x lag
        ([(20.0, 0.3), (22.0, 0.5)], [(22.0, 0.5), (20.0, 0.3)]),
    ]
    for n in (1, 3, 20, 90):
        for _ in range(20):
            lags_x, lags_y = np.sort(rng.uniform(12, 400, n)), np.sort(rng.uniform(12, 400, n))
            cases.append((list(zip(lags_x.tolist(), rng.random(n).tolist())), list(zip(lags_y.tolist(), rng.random(n).tolist()))))
    # peaks of real autocorrelations
    for k in range(10):
        prof = rng.random(640) * ((np.arange(640) + 3 * k) % (20 + k) < 3)
        _, ac = grid_module._autocorr(prof, 12.0)
        peaks = grid_module._peaks(ac, 12, 600)
        cases.append((peaks, peaks[::-1]))
    for cand_x, cand_y in cases:
        got, want = grid_module._pair(cand_x, cand_y), _pair_plain(cand_x, cand_y)
        assert got == want
        if got is not None and want is not None:
            assert [v.hex() for v in got] == [v.hex() for v in want]


def _seams_plain(cells: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """`grid._seams` by sorted keys and neighbour look-ups, as before (its path for cells spread wide)."""
    return grid_module._seams_by_keys(np.asarray(cells).reshape(-1, 2).astype(np.int64))


def test_seams_found_in_the_cells_box_are_those_found_by_their_keys() -> None:
    rng = np.random.default_rng(4)
    cases = [np.zeros((0, 2), np.intp), np.array([[0, 0]]), np.array([[0, 0], [1, 0], [0, 1], [1, 1], [1, 1]]),
             np.array([[-2, -1], [-1, -1], [-1, 0], [5, 7]]), np.array([[0, 0], [10**6, 0], [10**6 + 1, 0]])]
    for span, n in ((4, 10), (9, 60), (15, 200), (40, 300)):
        for _ in range(10):
            lo = rng.integers(-20, 20, size=2)
            cases.append(rng.integers(lo, lo + span, size=(n, 2)).astype(np.intp))
    for cells in cases:
        for got, want in zip(grid_module._seams(cells), _seams_plain(cells), strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def _outline_parity_plain(top_mask: NDArray[Any], pitch: float, phase: float, axis: int) -> tuple[float, float]:
    """`grid._outline_parity` over every step of the outline one by one, as before."""
    m = top_mask.astype(np.int8)
    idx = np.nonzero(np.diff(m, axis=axis))
    pos = (idx[axis] + 1).astype(np.float64)
    if len(pos) < 8:
        return pitch, phase
    r = ((pos - phase) / pitch) % 2.0
    near = np.minimum(np.abs(r - np.round(r)), 1.0) < 0.3
    even = near & ((np.round(r) % 2) == 0)
    odd = near & ((np.round(r) % 2) == 1)
    total = int(even.sum() + odd.sum())
    if total < 8:
        return pitch, phase
    if even.sum() >= 0.9 * total:
        return 2 * pitch, phase
    if odd.sum() >= 0.9 * total:
        return 2 * pitch, phase + pitch
    return pitch, phase


def test_the_outline_parity_counted_per_position_is_the_one_counted_step_by_step() -> None:
    rng = np.random.default_rng(6)
    masks = []
    for k in range(6):
        m = np.zeros((200, 240), np.uint8)
        side = 20 + 3 * k
        for _ in range(12):
            x, y = rng.integers(0, 7, size=2)
            m[10 + y * side:10 + (y + 1) * side, 6 + x * side:6 + (x + 1) * side] = 1
        masks.append(m)
    tiny = np.zeros((50, 50), np.uint8)
    tiny[10:12, 10:12] = 1
    masks += [tiny, np.zeros((30, 30), np.uint8)]
    outcomes = set()
    for m in masks:
        for axis in (0, 1):
            for pitch, phase in ((10.0, 6.0), (11.5, 16.0), (13.0, 10.0), (7.0, 0.25), (23.0, 6.0)):
                got, want = grid_module._outline_parity(m, pitch, phase, axis), _outline_parity_plain(m, pitch, phase, axis)
                assert got == want
                outcomes.add((got[0] == pitch, got[1] == phase))
    # the cases reach every outcome: kept, doubled on the even lines, doubled on the odd ones
    assert outcomes >= {(True, True), (False, True), (False, False)}


def test_a_read_only_masks_outline_and_samples_are_made_once_a_changing_masks_each_time() -> None:
    mask = np.zeros((120, 160), np.uint8)
    mask[20:80, 30:110] = 1
    first = grid_module._contour(mask)
    mask[20:80, 30:60] = 0
    # a mask that may change is read again
    assert not np.array_equal(grid_module._contour(mask)[0], first[0])
    assert len(grid_module._board_samples(mask)) < 27 * 20
    fixed = mask.copy()
    fixed.flags.writeable = False
    outline, samples = grid_module._contour(fixed), grid_module._board_samples(fixed)
    assert grid_module._contour(fixed) is outline and grid_module._board_samples(fixed) is samples
    assert not outline[0].flags.writeable and not samples.flags.writeable
    assert np.array_equal(outline[0], grid_module._contour(mask)[0]) and np.array_equal(samples, grid_module._board_samples(mask))
    # another read-only mask gets its own
    other = np.zeros_like(mask)
    other[10:40, 10:40] = 1
    other.flags.writeable = False
    assert not np.array_equal(grid_module._contour(other)[0], outline[0])


def _same(got: Any, want: Any) -> bool:
    """Whether two results (arrays, numbers, None, and tuples and lists of them) are the same to the bit."""
    if isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
        return (isinstance(got, np.ndarray) and isinstance(want, np.ndarray) and got.dtype == want.dtype
                and got.shape == want.shape and got.tobytes() == want.tobytes())
    if isinstance(got, (tuple, list)):
        return (type(got) is type(want) and len(got) == len(want)
                and all(_same(a, b) for a, b in zip(got, want, strict=True)))
    if isinstance(got, float):
        return isinstance(want, float) and got.hex() == want.hex()
    return bool(type(got) is type(want) and got == want)


def _slanted_board(seed: int, side: float = 30.0) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], set[tuple[int, int]]]:
    """A board of about 11 x 8 cells seen at a slant, some cells left out: (grey art at twice the work scale with thin
    seams between the tiles (float32), the work mask, grid units -> work pixels, the cells)."""
    import cv2

    rng = np.random.default_rng(seed)
    cells = {(x, y) for x in range(11) for y in range(8) if rng.random() < 0.8} | {(x, 3) for x in range(11)}
    truth = np.array([[side, 3.0, 140.0], [-2.0, 0.75 * side, 50.0], [0.0, 0.003, 1.0]])
    zoom = np.diag([2.0, 2.0, 1.0])
    art: NDArray[Any] = np.full((720, 1280), 60.0, np.float32)
    mask = np.zeros((360, 640), np.uint8)
    for x, y in cells:
        quad = grid_module._apply(truth, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64))
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        cv2.fillConvexPoly(art, np.round(quad * 2).astype(np.int32), float(rng.uniform(140, 190)))
        c = grid_module._apply(zoom @ truth, np.array([[x + rng.uniform(0.2, 0.8), y + rng.uniform(0.2, 0.8)]]))[0]
        cv2.circle(art, (int(c[0]), int(c[1])), int(rng.integers(4, 12)), float(rng.uniform(60, 230)), -1)
        cv2.polylines(art, [np.round(quad * 2).astype(np.int32).reshape(-1, 1, 2)], True, 90.0, 1)
    fine: NDArray[Any] = cv2.GaussianBlur(art + rng.normal(0, 3, art.shape).astype(np.float32), (0, 0), 0.7)
    return fine, mask, truth, cells


def _profiles_plain(gray: NDArray[Any], mask: NDArray[Any],
                    full: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """`grid._profiles` on float32 gradients, their upper decile taken of the board's pixels picked out, as before."""
    import cv2

    canvas = grid_module.CANVAS
    top_gray8 = cv2.warpPerspective(gray, full, (canvas, canvas))
    top_gray = top_gray8.astype(np.float32)
    top_mask = cv2.warpPerspective(mask, full, (canvas, canvas), flags=cv2.INTER_NEAREST)
    gx = np.abs(cv2.Sobel(top_gray, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(top_gray, cv2.CV_32F, 0, 1, ksize=3))
    inside = cv2.dilate(top_mask, np.ones((9, 9), np.uint8)) > 0
    rows, cols = inside.any(axis=1), inside.any(axis=0)
    if not rows.any():
        z = np.zeros(canvas)
        return z, z, top_mask, top_gray8
    cap_x = float(np.percentile(gx[inside], 90)) + 1e-6
    cap_y = float(np.percentile(gy[inside], 90)) + 1e-6
    cnt_x = inside.sum(axis=0) + 1e-6
    cnt_y = inside.sum(axis=1) + 1e-6
    prof_x = np.multiply(np.minimum(gx, cap_x, out=gx), inside, out=gx).sum(axis=0) / cnt_x * (cnt_x > 2)
    prof_y = np.multiply(np.minimum(gy, cap_y, out=gy), inside, out=gy).sum(axis=1) / cnt_y * (cnt_y > 2)
    prof_x[~cols] = 0
    prof_y[~rows] = 0
    return prof_x, prof_y, top_mask, top_gray8


def test_seam_profiles_from_16_bit_gradients_are_those_from_float_gradients() -> None:
    rng = np.random.default_rng(21)
    fine, mask, truth, _ = _slanted_board(21)
    gray = np.clip(fine[::2, ::2] + rng.normal(0, 20, mask.shape), 0, 255).astype(np.uint8)
    speck = np.zeros_like(mask)
    speck[100, 200] = 1
    views = [np.eye(3), np.array([[1.1, 0.05, -20.0], [-0.02, 1.3, 40.0], [0.0, 0.0004, 1.0]]),
             np.array([[0.4, 0.0, 700.0], [0.0, 0.4, 0.0], [0.0, 0.0, 1.0]])]  # (the last puts the board off the canvas)
    for m in (mask, speck, np.zeros_like(mask)):
        for view in views:
            assert _same(grid_module._profiles(gray, m, view), _profiles_plain(gray, m, view))
    # every count of whole numbers: the percentile as numpy takes it of the numbers themselves
    for values in (rng.integers(0, 1021, 5000), rng.integers(0, 3, 7), np.array([4]), np.array([0, 9])):
        for q in (0.0, 10.0, 50.0, 90.0, 100.0):
            got = grid_module._counted_percentile(np.bincount(values), q)
            assert got.hex() == float(np.percentile(values.astype(np.float32), q)).hex()


def _line_fit_plain(src: NDArray[Any], dst: NDArray[Any], start: NDArray[Any], affine: bool = False,
                    prior: float = grid_module.LINE_PRIOR) -> tuple[NDArray[Any], int] | None:
    """`grid.line_fit` building its rows afresh each round, the residuals of both axes summed, as before."""
    if len(src) < 8:
        return None
    integral = np.abs(src - np.round(src)) < 1e-9
    across = np.where(integral[:, 0], 0, 1)
    order = np.lexsort((dst[:, 1], dst[:, 0], src[:, 1], src[:, 0], across))
    src, dst, across = src[order], dst[order], across[order]
    line = np.round(src[np.arange(len(src)), across])
    t = grid_module._normaliser(dst)
    p = grid_module._apply(t, dst)
    ph = np.column_stack((p, np.ones(len(p))))
    g = np.linalg.inv(t @ start)
    if not np.isfinite(g).all() or abs(g[2, 2]) < 1e-12:
        return None
    g = g / g[2, 2]
    is_u = across == 0
    z3 = np.zeros((len(p), 3))
    rows_all = [np.where(is_u[:, None], ph, z3), np.where(is_u[:, None], z3, ph)]
    if not affine:
        rows_all.append(-line[:, None] * p)
    design = np.concatenate(rows_all, axis=1)
    eye = np.eye(design.shape[1])
    tail = np.array([0.0, 0.0, 1.0]) if affine else np.array([1.0])
    is_v = ~is_u
    n_u = int(is_u.sum())
    for tol in grid_module.LINE_TOLS:
        denom = ph @ g[2]
        if not (denom > 1e-9).all():
            return None
        r = (ph @ g[0] * is_u + ph @ g[1] * is_v) / denom - line
        w = np.where(np.abs(r) < tol, (1 - (r / tol) ** 2) ** 2, 0.0)
        held = w > 0
        n_held = int(np.count_nonzero(held))
        n_held_u = int(np.count_nonzero(held & is_u)) if n_u else 0
        if n_held < 8 or n_held_u < 3 or n_held - n_held_u < 3:
            return None
        scale = w / denom
        a, b = design * scale[:, None], line * scale
        cur = g[:2].ravel() if affine else g.ravel()[:8]
        lam = prior * np.sqrt(float(n_held))
        x = np.linalg.lstsq(np.concatenate([a, lam * eye]), np.concatenate([b, lam * cur]), rcond=None)[0]
        g = np.concatenate([x, tail]).reshape(3, 3)
        if not np.isfinite(g).all():
            return None
    denom = ph @ g[2]
    if not (denom > 1e-9).all():
        return None
    r = (ph @ g[0] * is_u + ph @ g[1] * is_v) / denom - line
    out: NDArray[Any] = np.linalg.inv(g @ t)
    if not np.isfinite(out).all():
        return None
    return out / out[2, 2], int((np.abs(r) < grid_module.LINE_INLIER).sum())


def test_the_line_fit_with_its_rows_kept_is_the_one_built_afresh() -> None:
    rng = np.random.default_rng(22)
    fine, mask, truth, cells = _slanted_board(22)
    zoom = np.diag([2.0, 2.0, 1.0])
    off = zoom @ truth @ np.array([[1.02, 0.01, 0.1], [0.0, 0.98, -0.15], [0.0, 0.002, 1.0]])
    src, dst, _ = grid_module._seam_probes(fine, off, np.array(sorted(cells)), 0.3)
    assert len(src) > 100
    results = set()
    for start, affine, prior in ((off, False, grid_module.LINE_PRIOR), (off, False, grid_module.REFINE_PRIOR),
                                 (np.eye(3), True, grid_module.LINE_PRIOR)):
        points = dst if not affine else grid_module._apply(np.linalg.inv(off), dst)
        for n in (len(src), 60, 12, 7):
            pick = rng.permutation(len(src))[:n]
            got = grid_module.line_fit(src[pick], points[pick], start, affine, prior)
            assert _same(got, _line_fit_plain(src[pick], points[pick], start, affine, prior))
            results.add(got is None)
    # points along one axis only, or no lines held: refused alike
    along_u = src[:, 0] == np.round(src[:, 0])
    assert grid_module.line_fit(src[along_u], dst[along_u], off) is None is _line_fit_plain(src[along_u], dst[along_u], off)
    far = dst + 40.0
    assert _same(grid_module.line_fit(src, far, off), _line_fit_plain(src, far, off))
    assert results == {True, False}


def _seam_probes_plain(g: NDArray[Any], to_img: NDArray[Any], cells: NDArray[Any], reach: float,
                       keep_all: bool = False) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """`grid._seam_probes` with each axis's probes made apart and joined, and numpy's mean along the seam, as before."""
    import cv2

    h, w = g.shape
    vertical, horizontal = grid_module._seams(cells)
    ts = grid_module._PROBE_ALONG
    offs = grid_module._probe_offsets(reach)
    srcs, probes = [], []
    for seams, across in ((vertical, 0), (horizontal, 1)):
        if not len(seams):
            continue
        p = np.empty((len(seams), 2, 4, len(offs), 2))
        p[..., 1 - across] = seams[:, None, None, None, 1 - across] + ts[None, :, :, None]
        p[..., across] = seams[:, None, None, None, across] + offs[None, None, None, :]
        probes.append(p.reshape(-1, 4, len(offs), 2))
        src = np.broadcast_to(seams[:, None, :], (len(seams), 2, 2)).copy()
        src[..., 1 - across] += grid_module._PROBE_MIDDLES[None, :]
        srcs.append(src.reshape(-1, 2))
    empty = np.zeros((0, 2))
    if not probes:
        return empty, empty, np.zeros(0)
    pts, src = np.concatenate(probes), np.concatenate(srcs)
    img_x, img_y = grid_module._apply_xy(to_img, pts)
    xs, ys = img_x.reshape(len(pts), -1), img_y.reshape(len(pts), -1)
    inside = (xs.min(axis=1) >= 1) & (ys.min(axis=1) >= 1) & (xs.max(axis=1) <= w - 2) & (ys.max(axis=1) <= h - 2)
    if not inside.all():
        img_x, img_y, pts, src = img_x[inside], img_y[inside], pts[inside], src[inside]
    if not len(pts):
        return empty, empty, np.zeros(0)
    vals = cv2.remap(g, img_x.reshape(-1, len(offs)).astype(np.float32), img_y.reshape(-1, len(offs)).astype(np.float32),
                     cv2.INTER_LINEAR)
    prof = vals.reshape(len(pts), 4, len(offs)).mean(axis=1)
    line = np.abs(prof[:, 2:-2] - 0.5 * (prof[:, :-4] + prof[:, 4:]))
    k = np.argmax(line, axis=1)
    rows = np.arange(len(k))
    peak = line[rows, k]
    mid = line.shape[1] // 2
    good = (peak >= grid_module.SEAM_CONTRAST) & (np.count_nonzero(2.0 * line <= peak[:, None], axis=1) > mid)
    off = offs[k + 2]
    moved = pts[rows, 0, k + 2]
    moved = src + (moved - pts[rows, 0, len(offs) // 2]) * 1.0
    dst = grid_module._apply(to_img, moved)
    if keep_all:
        return src, dst, np.where(good, off, np.inf)
    return src[good], dst[good], off[good]


def test_seam_probes_laid_out_at_once_find_what_the_probes_made_apart_find() -> None:
    fine, mask, truth, cells = _slanted_board(23)
    zoom = np.diag([2.0, 2.0, 1.0])
    every = np.array(sorted(cells))
    row = np.array([[x, 3] for x in range(11)])
    column = np.array([[4, y] for y in range(8)])
    found = 0
    for to_img in (zoom @ truth, zoom @ truth @ np.array([[1.03, 0.0, 0.2], [0.01, 0.97, -0.3], [0.0, 0.0, 1.0]]),
                   zoom @ truth @ np.array([[1.0, 0.0, -6.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])):  # partly off the photo
        for cells_case in (every, row, column, every[:1], np.zeros((0, 2), np.intp)):
            for reach in (0.35, 0.2, 0.12):
                for keep_all in (False, True):
                    got = grid_module._seam_probes(fine, to_img, cells_case, reach, keep_all)
                    assert _same(got, _seam_probes_plain(fine, to_img, cells_case, reach, keep_all))
                    found += len(got[0])
    assert found > 1000


def _outline_fit_plain(mask: NDArray[Any], to_work: NDArray[Any], prior: float) -> tuple[NDArray[Any], float, float] | None:
    """`grid._outline_fit` finding the outline and its start itself, each prior apart, as before."""
    import cv2

    apply = grid_module._apply
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts_l, tan_l = [], []
    for c in contours:
        c = c.reshape(-1, 2).astype(np.float64)
        if len(c) < 24:
            continue
        pts_l.append(c)
        tan_l.append(np.roll(c, -3, axis=0) - np.roll(c, 3, axis=0))
    if not pts_l:
        return None
    pts, tan = np.concatenate(pts_l), np.concatenate(tan_l)
    inv = np.linalg.inv(to_work)
    mid = pts.mean(axis=0)
    spread = float(np.abs(pts - mid).mean()) + 1e-9
    norm = np.array([[1 / spread, 0, -mid[0] / spread], [0, 1 / spread, -mid[1] / spread], [0, 0, 1]])
    ph = np.c_[(pts - mid) / spread, np.ones(len(pts))]

    def snapped(g: NDArray[Any], reach: float) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        uv = apply(g, pts)
        duv = apply(g, pts + 0.5 * tan) - apply(g, pts - 0.5 * tan)
        along_v = np.abs(duv[:, 1]) > 2 * np.abs(duv[:, 0])
        along_u = np.abs(duv[:, 0]) > 2 * np.abs(duv[:, 1])
        target = np.round(uv)
        off = np.abs(uv - target)
        return along_v & (off[:, 0] < reach), along_u & (off[:, 1] < reach), target

    def share(g: NDArray[Any]) -> float:
        use_u, use_v, target = snapped(g, 0.5)
        uv = apply(g, pts)
        n = int(use_u.sum() + use_v.sum())
        if n == 0:
            return 0.0
        ok = (np.abs(uv[:, 0] - target[:, 0]) < 0.1) & use_u
        ok2 = (np.abs(uv[:, 1] - target[:, 1]) < 0.1) & use_v
        return float(ok.sum() + ok2.sum()) / n

    before = share(inv)
    g = inv
    keys = np.floor(apply(inv, pts))
    jac = np.abs(np.linalg.det(np.stack([apply(to_work, keys + [1, 0]) - apply(to_work, keys),
                                         apply(to_work, keys + [0, 1]) - apply(to_work, keys)], axis=-1)))
    anchor = keys[int(np.argmax(np.where(np.isfinite(jac), jac, 0)))] + 0.5
    for radius, reach in ((3.0, 0.3), (5.0, 0.3), (8.0, 0.3), (12.0, 0.3), (1e9, 0.25), (1e9, 0.15)):
        use_u, use_v, target = snapped(g, reach)
        near = np.hypot(*(apply(g, pts) - anchor).T) <= radius
        use_u &= near
        use_v &= near
        if use_u.sum() < 20 or use_v.sum() < 20:
            continue
        gn = g @ np.linalg.inv(norm)
        gn = gn / gn[2, 2]
        w3 = 1.0 / np.abs(ph @ gn[2])
        xy = ph[:, :2]
        z = np.zeros((len(ph), 3))
        rows_u = np.c_[ph, z, -target[:, :1] * xy][use_u] * w3[use_u, None]
        rows_v = np.c_[z, ph, -target[:, 1:] * xy][use_v] * w3[use_v, None]
        rhs = np.r_[target[use_u, 0] * w3[use_u], target[use_v, 1] * w3[use_v]]
        lam = prior * np.sqrt(len(rhs))
        a = np.r_[rows_u, rows_v, lam * np.eye(8)]
        b = np.r_[rhs, lam * gn.ravel()[:8]]
        x = np.linalg.lstsq(a, b, rcond=None)[0]
        g_new = np.r_[x, 1.0].reshape(3, 3) @ norm
        if not np.isfinite(g_new).all() or abs(g_new[2, 2]) < 1e-12:
            return None
        g = g_new / g_new[2, 2]
    after = share(g)
    out: NDArray[Any] = np.linalg.inv(g)
    return out, before, after


def test_outline_fits_sharing_their_start_are_those_fitted_each_apart() -> None:
    fine, mask, truth, _ = _slanted_board(24)
    small = np.zeros_like(mask)
    small[100:110, 100:105] = 1
    fitted = 0
    for m in (mask, small, np.zeros_like(mask)):
        for kept in (False, True):
            m = m.copy()
            m.flags.writeable = not kept  # (a read-only mask's outline is kept: `_of_mask`)
            for to_work in (truth, truth @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -0.006, 1.0]]),
                            truth @ np.array([[1.04, 0.0, 0.3], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])):
                priors = (1.0, 0.1)
                got = grid_module._outline_fits(m, to_work, priors)
                assert _same(got, [_outline_fit_plain(m, to_work, prior) for prior in priors])
                assert _same(grid_module._outline_fit(m, to_work, 0.1), got[1])
                fitted += sum(f is not None for f in got)
    assert fitted >= 12


def test_the_mean_along_a_seam_is_numpys_to_the_bit() -> None:
    rng = np.random.default_rng(25)
    for k, n in ((1, 43), (7, 39), (300, 25), (2000, 43)):
        vals = (rng.random((k, 4, n)) * rng.choice([1.0, 255.0, 1e-3], size=(k, 4, 1))).astype(np.float32)
        assert _same(grid_module._along_mean(vals), vals.mean(axis=1))


def _axis_search_plain(u: NDArray[Any], v: NDArray[Any], r: NDArray[Any], scales: NDArray[Any],
                       shears: NDArray[Any]) -> tuple[float, float, float, float]:
    """`grid._axis_search` binning each position by its remainder on 1, as before."""
    bins = 100
    base = float(r.mean()) + 1e-9
    best = (0.0, 1.0, 0.0, 0.0)
    window = np.ones(7)
    for sc in scales:
        for sh in shears:
            idx = (((u - sh * v) / sc % 1.0) * bins).astype(np.intp) % bins
            got = np.bincount(idx, weights=r, minlength=bins)
            cnt = np.bincount(idx, minlength=bins).astype(np.float64)
            score = np.convolve(np.concatenate((got[-3:], got, got[:3])), window, "valid") / (
                np.convolve(np.concatenate((cnt[-3:], cnt, cnt[:3])), window, "valid") + 1e-9) / base
            k = int(np.argmax(score))
            if score[k] > best[0]:
                best = (float(score[k]), float(sc), float(sh), float((k + 0.5) / bins * sc))
    return best


def test_the_lattice_search_bins_positions_as_their_remainder_on_1_does() -> None:
    rng = np.random.default_rng(31)
    # positions on and off a lattice, either side of 0, whole numbers, and floats just below whole numbers (whose
    # remainder on 1 rounds up to 1 once the negative ones are moved up)
    edge = np.nextafter(np.arange(-6.0, 6.0), -np.inf)
    for case in range(4):
        n = 3000
        u = np.concatenate((rng.normal(0.0, 8.0, n), np.round(rng.normal(0.0, 8.0, 200)), edge, -edge * 1e-17))
        u[:n // 2] = np.round(u[:n // 2]) + rng.normal(0.0, 0.02, n // 2)
        v = rng.normal(0.0, 8.0, len(u))
        r = rng.random(len(u)) * (1.0 + case)
        for scales, shears in ((np.linspace(0.82, 1.18, 19), np.zeros(1)),
                               (1.0 + np.linspace(-0.01, 0.01, 3), np.linspace(-0.08, 0.08, 9)), (np.ones(1), np.zeros(1))):
            assert _same(grid_module._axis_search(u, v, r, scales, shears), _axis_search_plain(u, v, r, scales, shears))
        # every bin a position can fall in, the one past the last included, as the remainder gives it
        for sc in (0.82, 1.0, 1.0 / 3.0):
            q = u / sc
            q -= np.floor(q)
            q *= 100
            idx = q.astype(np.intp)
            idx[idx == 100] = 0
            assert np.array_equal(idx, ((u / sc % 1.0) * 100).astype(np.intp) % 100)


def _seam_share_plain(fine: NDArray[Any], mask: NDArray[Any], to_work: NDArray[Any]) -> tuple[float, float, list[Any]]:
    """`grid.seam_share`, `grid.seam_precision` and `grid._parity_shares` each searching the seams afresh, as before."""
    cells, _ = grid_module._board_cells(mask, to_work, 0.75)
    zoomed = grid_module._zoom(fine, mask) @ to_work
    src, _, off = grid_module._seam_probes(fine, zoomed, cells, 0.35)
    share = 0.0 if len(src) < 12 else float((np.abs(off) <= 0.05).sum()) / (2 * max(1, grid_module._seam_count(cells)))
    precision = float((np.abs(off) <= 0.05).mean()) if len(off) else 0.0
    src, _, off = grid_module._seam_probes(fine, zoomed, cells, 0.35, keep_all=True)
    parity = []
    for axis in (0, 1):
        on_axis = np.abs(src[:, axis] - np.round(src[:, axis])) < 1e-6
        even = on_axis & (np.round(src[:, axis]).astype(np.intp) % 2 == 0)
        odd = on_axis & ~even
        near = np.abs(off) <= 0.05
        parity.append((float(near[even].mean()) if even.any() else 0.0, float(near[odd].mean()) if odd.any() else 0.0,
                       int(min(even.sum(), odd.sum()))))
    return share, precision, parity


def test_a_lattices_half_seams_are_searched_once_for_a_read_only_photo_and_mask_and_read_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fine, mask, truth, _ = _slanted_board(7)
    lattices = [truth, truth @ np.array([[1.03, 0.0, 0.2], [0.0, 0.98, 0.5], [0.0, 0.0, 1.0]]),
                truth @ np.array([[0.5, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                truth @ np.array([[20.0, 0.0, 0.0], [0.0, 20.0, 0.0], [0.0, 0.0, 1.0]])]
    searched = []
    probes = grid_module._seam_probes

    def counted(*args: Any, **kwargs: Any) -> Any:
        searched.append(1)
        return probes(*args, **kwargs)

    monkeypatch.setattr(grid_module, "_seam_probes", counted)
    fixed_fine, fixed_mask = fine.copy(), mask.copy()
    fixed_fine.flags.writeable = fixed_mask.flags.writeable = False
    for kept in (False, True):
        f, m = (fixed_fine, fixed_mask) if kept else (fine, mask)
        for to_work in lattices:
            want = _seam_share_plain(f, m, to_work)
            searched.clear()
            for _ in range(2):
                got = (grid_module.seam_share(f, m, to_work), grid_module.seam_precision(f, m, to_work),
                       grid_module._parity_shares(f, m, to_work))
                assert _same(got, want)
            # (searched once a lattice where both stay as they are, three times a round where either may change)
            assert len(searched) == (1 if kept else 6)
    assert any(_seam_share_plain(fine, mask, t)[0] > 0.5 for t in lattices)
    assert any(_seam_share_plain(fine, mask, t)[0] == 0.0 for t in lattices)
    # a photo that may change is searched afresh, and another read-only pair gets its own
    other = fixed_fine + np.float32(0.0)
    other.flags.writeable = False
    searched.clear()
    grid_module.seam_share(other, fixed_mask, truth)
    grid_module.seam_share(fine, fixed_mask, truth)
    assert len(searched) == 2


def _enclosed_glare_plain(glare: NDArray[Any], board: NDArray[Any]) -> NDArray[Any]:
    """`grid._enclosed_glare` as it was: the labels dilated as float32, the rim counted with float weights."""
    import cv2

    g = glare.astype(np.uint8)
    n, labels = cv2.connectedComponents(g, connectivity=8)
    out = np.zeros(glare.shape, np.uint8)
    if n <= 1:
        return out
    rim = cv2.dilate(labels.astype(np.float32), np.ones((3, 3), np.uint8)).astype(np.intp)
    rim[g > 0] = 0
    on = np.bincount(rim.ravel(), weights=board.ravel().astype(np.float64), minlength=n)
    count = np.bincount(rim.ravel(), minlength=n).astype(np.float64)
    edge = np.unique(np.r_[labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    keep = on >= grid_module.ENCLOSED_GLARE * np.maximum(count, 1)
    keep[0] = False
    keep[edge] = False
    out[keep[labels]] = 1
    return out


def _foreground_plain(img: NDArray[Any]) -> NDArray[Any]:
    """`grid._foreground` as it was: numpy's broadcasts over the Lab pixels, the hue's way off its line measured twice,
    every part's pixels looked up."""
    import cv2

    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32)
    h, w = lab.shape[:2]
    b = max(2, int(0.03 * min(h, w)))
    ring = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    med = np.median(ring, axis=0)
    spread = np.median(np.abs(ring - med), axis=0)
    k2 = (np.array([0.3, 1.0, 1.0]) / (spread.astype(np.float64) * 3 + 6) ** 2).astype(np.float32)
    diff = lab - med.astype(np.float32)
    d2 = cv2.transform(diff * diff, k2.reshape(1, 3))
    a, bb = lab[:, :, 1] - 128, lab[:, :, 2] - 128
    chroma2 = a * a + bb * bb
    table_chroma = float(np.hypot(med[1] - 128, med[2] - 128))
    limit = min(0.6 * table_chroma + 3, 20.0)
    light = lab[:, :, 0]
    texture = np.sqrt(np.maximum(cv2.blur(light * light, (7, 7)) - cv2.blur(light, (7, 7)) ** 2, 0))
    ring_texture = float(np.median(np.concatenate([texture[:b].ravel(), texture[-b:].ravel()])))
    ta, tb = float(med[1] - 128), float(med[2] - 128)
    s = np.clip((a * ta + bb * tb) / max(ta * ta + tb * tb, 1e-6), 0.0, 1.1)
    hue_reach = max(16.0, grid_module.WASHED_HUE * table_chroma)
    washed = (table_chroma > 12) & ((a - s * ta) ** 2 + (bb - s * tb) ** 2 < hue_reach**2) & (texture < max(3.0, ring_texture))
    glare = (lab[:, :, 0] > med[0] + 20) & ((chroma2 < limit * limit) | washed)
    mask = ((d2 > 1.6**2) & ~glare).astype(np.uint8)
    k = max(3, int(min(h, w) * 0.012)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    halo = (light > med[0] + 3) & ((a - s * ta) ** 2 + (bb - s * tb) ** 2 < hue_reach**2) & (s > 0.2)
    mask = cv2.bitwise_or(mask, _enclosed_glare_plain(glare & (mask == 0), mask & ~halo))
    n, lab_img, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return mask
    smooth = np.bincount(lab_img.ravel(), weights=texture.ravel(), minlength=n) / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    area[0] = 0
    large = area >= 0.1 * area.max()
    ref = float(smooth[large].max()) if large.any() else 0.0
    area[smooth < 0.35 * ref] = 0
    kept = area.copy()
    area[smooth < 1.5 * ring_texture + 1.0] = 0
    if area.max() < grid_module.MIN_BOARD * h * w:
        area = kept
        area[smooth < 0.5 * ref] = 0
    big = area.max()
    keep = np.zeros(n, np.uint8)
    keep[1:] = area[1:] >= 0.2 * big
    out: NDArray[Any] = keep[lab_img]
    return out


def _tabled_photo(seed: int, table: tuple[int, int, int], tiles: int, pools: int, roads: bool) -> NDArray[Any]:
    """A work-sized photo (640 x 360, BGR) of ``tiles`` textured tiles, turned, on a ``table`` coloured table, white
    roads across some (``roads``), ``pools`` pools of glare on the table and on the tiles."""
    import cv2

    rng = np.random.default_rng(seed)
    h, w = 360, 640
    img = np.empty((h, w, 3), np.float32)
    img[:] = table
    for _ in range(tiles):
        art = cv2.GaussianBlur(rng.uniform(-1, 1, (60, 60, 3)).astype(np.float32), (0, 0), 2.0)
        tile = (art / float(np.abs(art).max()) * 35 + rng.uniform(40, 200, 3)).astype(np.float32)
        if roads and rng.random() < 0.5:
            tile[26:34] = (235, 235, 235)
        rot = cv2.getRotationMatrix2D((30, 30), float(rng.uniform(0, 30)), 1.0)
        rot[:, 2] += (float(rng.uniform(40, w - 100)), float(rng.uniform(30, h - 90)))
        placed = cv2.warpAffine(tile, rot, (w, h), flags=cv2.INTER_NEAREST)
        on = cv2.warpAffine(np.ones((60, 60), np.uint8), rot, (w, h), flags=cv2.INTER_NEAREST) > 0
        img[on] = placed[on]
    for _ in range(pools):
        disc = np.zeros((h, w), np.float32)
        cv2.ellipse(disc, (int(rng.integers(0, w)), int(rng.integers(0, h))), (int(rng.integers(10, 80)), int(rng.integers(8, 50))),
                    0, 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(disc, (0, 0), 6)
        img = img * (1 - spot[:, :, None]) + 250 * spot[:, :, None]
    out: NDArray[Any] = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    return out


_TABLES = ((60, 110, 160), (128, 128, 128), (40, 140, 60), (150, 60, 40), (200, 200, 205), (30, 30, 30))


def test_the_board_mask_and_its_enclosed_glare_are_those_found_before_to_the_bit() -> None:
    """`grid._foreground` (each channel less the table's in one pass, the hue's way off its line measured once, the
    board's single part taken by its label) and `grid._enclosed_glare` (the rim counted without weights) mark the same
    pixels as their plain forms on grey, brown, strongly coloured, white and black tables, with and without glare pools
    and white roads, and with no board at all."""
    import cv2

    photos = [_tabled_photo(seed, table, tiles, pools, roads) for seed, table in enumerate(_TABLES)
              for tiles, pools, roads in ((1, 0, True), (1, 2, True), (12, 3, False), (30, 1, True))]
    photos.append(np.full((360, 640, 3), 90, np.uint8))
    for photo in photos:
        got = grid_module._foreground(photo)
        assert _same(got, _foreground_plain(photo))
    rng = np.random.default_rng(5)
    for _ in range(20):
        glare = cv2.GaussianBlur(rng.random((90, 160)).astype(np.float32), (0, 0), 3) > 0.52
        board = (cv2.GaussianBlur(rng.random((90, 160)).astype(np.float32), (0, 0), 4) > 0.5).astype(np.uint8)
        assert _same(grid_module._enclosed_glare(glare, board), _enclosed_glare_plain(glare, board))
    assert not grid_module._enclosed_glare(np.zeros((9, 9), bool), np.ones((9, 9), np.uint8)).any()


def test_lines_searched_up_to_the_last_edge_are_those_of_the_whole_image() -> None:
    """The straight lines (`grid._lines`) found with the edge image cut after its last row and column holding an edge
    are those found in the whole image, in the same order."""
    import cv2

    for seed, table in enumerate(_TABLES):
        photo = _tabled_photo(seed, table, 30, 1, True)
        gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
        mask = grid_module._foreground(photo)
        edges = cv2.Canny(gray, 30, 90)
        edges[cv2.dilate(mask, np.ones((15, 15), np.uint8)) == 0] = 0
        found = cv2.HoughLinesP(edges, 1, np.pi / 360, 40, minLineLength=int(0.06 * 640), maxLineGap=4)
        plain = np.zeros((0, 4)) if found is None else found.reshape(-1, 4).astype(np.float64)
        t = np.linspace(0, 1, 9)
        xs = np.clip(np.round(plain[:, None, 0] + t * (plain[:, None, 2] - plain[:, None, 0])), 0, 639).astype(np.intp)
        ys = np.clip(np.round(plain[:, None, 1] + t * (plain[:, None, 3] - plain[:, None, 1])), 0, 359).astype(np.intp)
        on_board = cv2.dilate(mask, np.ones((5, 5), np.uint8))[ys, xs].mean(axis=1)
        want = plain[on_board >= 0.75]
        got = grid_module._lines(gray, mask)
        assert len(want) > 0 and _same(got, want)
    assert grid_module._lines(np.full((60, 80), 100, np.uint8), np.ones((60, 80), np.uint8)).shape == (0, 4)


def test_every_cells_corners_are_those_mapped_cell_by_cell() -> None:
    """The grid's cells have their corners (NW, NE, SE, SW) mapped all at once, bit for bit as each cell's four mapped
    alone through the grid's map, in float32."""
    import cv2

    fine, mask, _, _ = _slanted_board(3)
    # greenish tiles on a brown table
    tiles = np.clip(fine[:, :, None] * np.array([0.55, 0.95, 0.65], np.float32), 0, 255)
    on = cv2.resize(mask, (1280, 720), interpolation=cv2.INTER_NEAREST)[:, :, None] > 0
    art = np.where(on, tiles, np.array([60, 110, 160], np.float32)).astype(np.uint8)
    photo = cv2.resize(art, (2304, 1296), interpolation=cv2.INTER_LINEAR)
    grid = grid_module.find_grid(photo)
    assert len(grid.cells) > 40
    for cell in grid.cells:
        x, y = cell.x, cell.y
        alone = grid_module._apply(grid.to_photo, np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], np.float64))
        assert _same(cell.corners, alone.astype(np.float32))
