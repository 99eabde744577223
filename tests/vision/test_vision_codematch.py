"""Blurred ArUco codes read by matching against every code of the dictionary (`vision.codematch`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibrate import Marker
from vision.codematch import (
    BLURS_PX,
    SIDE_PX,
    SURROUND_PX,
    code_templates,
    dictionary_size,
    local_contrast,
    markers_by_matching,
    match_patch,
)

DICT = cv2.aruco.DICT_4X4_50


def _blurred(marker_ids: list[int], turn: int = 0, blur: float = 6.0) -> np.ndarray:  # type: ignore[type-arg]
    """A grey frame with each code of ``marker_ids`` 60 px across in a row, turned ``turn`` quarter turns
    clockwise and blurred past what the ArUco decoder reads."""
    frame = np.full((400, 200 + 150 * len(marker_ids)), 200, np.uint8)
    for k, i in enumerate(marker_ids):
        code = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICT), i, 60)
        x = 170 + 150 * k
        frame[170:230, x:x + 60] = np.rot90(np.where(code > 0, 200, 30).astype(np.uint8), -turn)
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), blur), np.uint8)


def _decoded(frame: np.ndarray) -> object:  # type: ignore[type-arg]
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICT)).detectMarkers(frame)[1]


def test_dictionary_sizes() -> None:
    assert dictionary_size(cv2.aruco.DICT_4X4_50) == 50
    assert dictionary_size(cv2.aruco.DICT_4X4_100) == 100


@pytest.mark.parametrize(("marker_id", "turn"), [(0, 0), (3, 1), (5, 2), (1, 3)])
def test_a_blurred_marker_is_matched_with_its_corners_in_order(marker_id: int, turn: int) -> None:
    frame = _blurred([marker_id], turn)
    assert _decoded(frame) is None  # the detector cannot read it
    found = markers_by_matching(frame, DICT, [0, 1, 2, 3, 4, 5])
    assert [m.id for m in found] == [marker_id]
    top_left = [(170, 170), (230, 170), (230, 230), (170, 230)][turn]  # where the turn took the marker's own corner
    assert np.allclose(found[0].corners[0], top_left, atol=4.0)


def test_only_the_wanted_ids_are_taken_and_markers_already_read_are_skipped() -> None:
    frame = _blurred([2, 4, 12])
    assert [m.id for m in markers_by_matching(frame, DICT, [4, 12])] == [4, 12]
    assert markers_by_matching(frame, DICT, [0, 1]) == ()  # other codes lie there
    read = Marker(4, np.array([[320, 170], [380, 170], [380, 230], [320, 230]], np.float64))
    assert [m.id for m in markers_by_matching(frame, DICT, [4], [read])] == []
    assert markers_by_matching(frame, DICT, []) == ()


def test_a_square_too_blurred_to_tell_the_codes_apart_names_none() -> None:
    assert markers_by_matching(_blurred([2], blur=14.0), DICT, list(range(50))) == ()


def test_match_patch_refuses_a_glared_code_and_reports_a_clear_lead() -> None:
    t = code_templates(DICT, tuple(range(50)), SIDE_PX, SURROUND_PX, BLURS_PX)
    code = np.full((t.size + 6, t.size + 6), 255, np.uint8)
    c = SURROUND_PX + 3
    code[c:c + SIDE_PX, c:c + SIDE_PX] = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICT), 7,
                                                                       SIDE_PX)
    code = np.rot90(code, -1)
    patch = cv2.GaussianBlur(code.astype(np.float32), (0, 0), 2.0)
    m = match_patch(patch, t)
    assert m.id == 7 and m.quarter == 1 and m.score > 0.9 and m.lead > 0.1
    glared = patch.copy()
    glared[10:25, 10:25] = 255.0
    assert match_patch(glared, t).id is None


def test_local_contrast_brings_back_a_code_glare_washes_out_and_leaves_plain_light_flat() -> None:
    t = code_templates(DICT, tuple(range(50)), SIDE_PX, SURROUND_PX, BLURS_PX)
    code = np.full((t.size + 6, t.size + 6), 255, np.uint8)
    c = SURROUND_PX + 3
    code[c:c + SIDE_PX, c:c + SIDE_PX] = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(DICT), 7,
                                                                       SIDE_PX)
    patch = cv2.GaussianBlur(code.astype(np.float32), (0, 0), 2.0)
    ramp = np.linspace(100.0, 300.0, patch.shape[1], dtype=np.float32)[None, :]
    washed = np.clip(patch * 0.2 + ramp, 0, 255).astype(np.float32)  # pale cells, one side saturated
    evened = match_patch(local_contrast(washed, 4.0), t, np.inf)
    assert evened.id == 7 and evened.quarter == 0 and evened.lead > 0.25
    noise = np.random.default_rng(1).normal(0.0, 2.0, patch.shape).astype(np.float32)
    plain = np.clip(np.broadcast_to(ramp, patch.shape) + noise, 0, 255).astype(np.float32)
    assert match_patch(local_contrast(plain, 4.0), t, np.inf).score < 0.5
