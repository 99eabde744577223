"""The grid search's faster forms read exactly as the plain ones they replace."""

from __future__ import annotations

from typing import Any

import numpy as np
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
