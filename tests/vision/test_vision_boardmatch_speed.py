"""The board matching's squares placed on the table all at once read bit for bit as they did one by one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.bigtop import DEFAULT_CONFIG
from vision.boardmatch import SAME_MM, _board_ids, _centres, _distances, _near_any, _on_table, _refined
from vision.calibrate import _similarity


def _random_squares(rng: np.random.Generator, n: int) -> list[NDArray[Any]]:
    scale = float(rng.choice([1.0, 1e-3, 7.3]))
    return [rng.uniform(-50.0, 1400.0, (4, 2)) * scale for _ in range(n)]


def _random_homography(rng: np.random.Generator) -> NDArray[Any]:
    h = np.eye(3) + rng.normal(0.0, 0.01, (3, 3))
    h[2] *= 0.001
    h[2, 2] = 1.0
    h[:2] += rng.normal(0.0, 1.0, (2, 3))
    return h


@pytest.mark.parametrize("seed", range(20))
def test_squares_on_the_table_and_their_centres_are_those_made_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    squares = _random_squares(rng, int(rng.integers(1, 300)))
    to_table = _random_homography(rng)
    on_table, centres = _on_table(squares, to_table)
    assert len(on_table) == len(squares) and centres.shape == (len(squares), 2)
    for quad, table, centre in zip(squares, on_table, centres):
        one = cv2.perspectiveTransform(quad[None].astype(np.float64), to_table)[0]
        assert one.tobytes() == table.tobytes()
        assert one.mean(0).tobytes() == centre.tobytes()


@pytest.mark.parametrize("seed", range(20))
def test_distances_to_decoded_markers_are_those_made_pair_by_pair(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    squares = _random_squares(rng, int(rng.integers(1, 200)))
    centres = _centres(squares)
    decoded = [rng.uniform(-50.0, 1400.0, 2) for _ in range(int(rng.integers(0, 30)))]
    # some squares right beside a decoded marker, within and just beyond SAME_MM
    for k in range(min(len(decoded), len(squares))):
        centres[k] = decoded[k] + rng.uniform(-1.0, 1.0) * SAME_MM / np.sqrt(2)
    near = _near_any(centres, decoded)
    for centre, got in zip(centres, near.tolist()):
        assert got == any(float(np.hypot(*(centre - d))) < SAME_MM for d in decoded)
    if decoded:
        ds = _distances(centres, np.asarray(decoded))
        for i, centre in enumerate(centres):
            for j, d in enumerate(decoded):
                assert float(np.hypot(*(centre - d))) == ds[i, j]


def _refined_one_by_one(pose: NDArray[Any], sides: Mapping[int, int], squares: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """`_refined` as it was: every square's centre made and compared on its own."""
    layout = DEFAULT_CONFIG.table.markers
    src, dst = [], []
    for side in sides:
        ideal = np.array(layout.board_marker_corners(side), np.float64)
        want = ideal @ pose[:2, :2].T + pose[:2, 2]
        best: tuple[float, NDArray[Any]] | None = None
        for sq in squares:
            if float(np.hypot(*(sq.mean(0) - want.mean(0)))) > SAME_MM:
                continue
            for q in range(4):
                turned = np.roll(sq, -q, axis=0)
                err = float(np.max(np.linalg.norm(turned - want, axis=1)))
                if best is None or err < best[0]:
                    best = (err, turned)
        if best is not None and best[0] <= SAME_MM:
            src.append(ideal)
            dst.append(best[1])
    if not src:
        return pose
    return _similarity(np.concatenate(src), np.concatenate(dst))


@pytest.mark.parametrize("seed", range(12))
def test_a_board_refined_to_its_squares_is_refined_as_one_by_one(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    layout = DEFAULT_CONFIG.table.markers
    _, sides = sorted(_board_ids(DEFAULT_CONFIG).items())[seed % len(_board_ids(DEFAULT_CONFIG))]
    a = rng.uniform(0.0, 2 * np.pi)
    pose = np.array([[np.cos(a), -np.sin(a), rng.uniform(-300, 900)], [np.sin(a), np.cos(a), rng.uniform(-300, 700)],
                     [0.0, 0.0, 1.0]])
    # each marker's square where the pose puts it, a few mm off and turned, among squares elsewhere
    squares = []
    for side in sides:
        ideal = np.array(layout.board_marker_corners(side), np.float64)
        at = ideal @ pose[:2, :2].T + pose[:2, 2] + rng.normal(0.0, 3.0, (4, 2))
        squares.append(np.roll(at, int(rng.integers(0, 4)), axis=0))
    squares += [rng.uniform(-300.0, 1200.0, (4, 2)) for _ in range(int(rng.integers(0, 200)))]
    order = rng.permutation(len(squares))
    squares = [squares[i] for i in order]
    want = _refined_one_by_one(pose, sides, squares)
    assert _refined(pose, sides, squares, DEFAULT_CONFIG).tobytes() == want.tobytes()
    on_table, centres = _on_table(squares, np.eye(3))
    assert _refined(pose, sides, on_table, DEFAULT_CONFIG, centres).tobytes() == want.tobytes()
    assert not np.array_equal(want, pose)  # the squares moved the pose
