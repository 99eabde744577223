"""Whole frames through the shipped model: known scene, unknown object, bad inputs, CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.bigtop.cards import Card, Suit
from vision import ModelFileError, NoMatError, UnreadableImageError
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.layout import CHART, MAT, Pile, Space
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.scene import Placement, SceneSettings, chart_pose, chart_to_table, render_scene
from vision.bigtop.tableview import Area
from vision.classify import Classifier, Verdict
from vision.cli import cmd_recognize
from vision.images import load_image

CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(DEFAULT_MODEL)


def _known_placements() -> list[Placement]:
    out = [
        Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 1),
        Placement("clowns-L1", *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, -2, visible=False),
        Placement("clowns-L2", *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 2),
        Placement("animals-P", *MAT.slot(Suit.ANIMALS, Pile.POSTER).centre, 0),
        Placement("animals-D1", *MAT.slot(Suit.ANIMALS, Pile.DARK).centre, 3),
        Placement("sideshow-P", *MAT.slot(Suit.SIDESHOW, Pile.POSTER).centre, -1),
    ]
    pose = chart_pose(0)
    for space, label in ((Space.D3, "performers-L4"), (Space.D1, "sideshow-D5")):
        x, y = chart_to_table(pose, *CHART.space(space).centre)
        out.append(Placement(label, x, y, pose[2]))
    for suit, label in zip(Suit, ("token-back", "token-back", "token-10", "token-back")):
        x, y = chart_to_table(pose, *CHART.picture_centre(suit))
        out.append(Placement(label, x, y, 30.0 * int(suit)))
    pose = chart_pose(3)
    x, y = chart_to_table(pose, *CHART.space(Space.D0).centre)
    out.append(Placement("clowns-D6", x, y, pose[2]))
    out.append(Placement("back", 640, 440, 75))
    out.append(Placement("animals-L5", -140, 420, 200))
    return out


def test_known_scene_is_recognised_exactly(recognizer: Recognizer) -> None:
    placements = _known_placements()
    scene = render_scene(np.random.default_rng(2024), seats=[0, 3, 5], settings=CALM, placements=placements)
    result = recognizer.recognize(scene.image)
    view = result.view
    assert view.unrecognised == ()
    assert sorted(c.label for c in view.components) == sorted(p.label for p in placements if p.visible)
    for c in view.components:
        assert min(math.hypot(c.x - p.x, c.y - p.y) for p in placements if p.visible and p.label == c.label) < 3.0
    clowns, sideshow, animals, performers = view.tableau
    assert clowns.poster and clowns.top_light == Card.parse("clowns-L2") and clowns.top_dark is None
    assert sideshow.poster and sideshow.top_light is None
    assert animals.poster and animals.top_dark == Card.parse("animals-D1")
    assert not performers.poster
    charts = {c.seat: c for c in view.charts}
    assert sorted(charts) == [0, 3, 5]
    assert charts[0].card_on(Space.D3) == Card.parse("performers-L4")
    assert charts[0].card_on(Space.D1) == Card.parse("sideshow-D5")
    assert charts[0].card_on(Space.D2) is None
    assert [(t.suit, t.face_up, t.value) for t in charts[0].tokens] == [
        (Suit.CLOWNS, False, None), (Suit.SIDESHOW, False, None), (Suit.ANIMALS, True, 10),
        (Suit.PERFORMERS, False, None)]
    assert charts[3].card_on(Space.D0) == Card.parse("clowns-D6")
    assert charts[5].called == () and charts[5].tokens == ()
    assert sorted(c.label for c in view.loose) == ["animals-L5", "back"]
    assert all(c.zone.area is Area.TABLE for c in view.loose)
    doc = json.loads(json.dumps(view.to_json()))
    assert doc["charts"][0]["called"] == {"$3": "performers-L4", "$1": "sideshow-D5"}
    assert doc["tableau"][0] == {"suit": "clowns", "poster": True, "top_light": "clowns-L2", "top_dark": None}
    assert result.times.total > 0


def test_unknown_object_is_reported_with_its_position(recognizer: Recognizer) -> None:
    placements = [Placement("none", 620, 430, 20), Placement("clowns-L3", -130, 420, 0)]
    scene = render_scene(np.random.default_rng(77), seats=[0], settings=CALM, placements=placements)
    view = recognizer.recognize(scene.image).view
    assert [c.label for c in view.components] == ["clowns-L3"]
    assert len(view.unrecognised) == 1
    u = view.unrecognised[0]
    assert math.hypot(u.x - 620, u.y - 430) < 4.0
    assert u.to_json()["reason"] in ("unsure", "not_a_component")


def test_frame_without_mat_and_black_frame(recognizer: Recognizer) -> None:
    with pytest.raises(NoMatError) as err:
        recognizer.recognize(np.zeros((960, 1280, 3), np.uint8))
    assert err.value.markers_seen == 0
    scene = render_scene(np.random.default_rng(3), seats=[1], settings=CALM, placements=[])
    cut = scene.image.copy()
    top_left = scene.table_to_image @ np.array([MAT.width / 2, MAT.height / 2, 1.0])
    cut[:, : int(top_left[0] / top_left[2])] = 90  # hide the left half: the right edge's three markers remain
    recognizer.reset()
    with pytest.raises(NoMatError) as err:
        recognizer.recognize(cut)
    assert err.value.markers_seen == 3


def test_classifier_rejects_below_threshold() -> None:
    clf = Classifier(DEFAULT_MODEL)
    noise = np.random.default_rng(0).integers(0, 255, (3, 56, 40, 3), dtype=np.uint8)
    recs = clf.classify(noise, threshold=1.01)
    assert all(r.verdict is Verdict.UNSURE and r.label is None for r in recs)
    assert clf.probabilities(noise[:0]).shape == (0, len(clf.labels))


def test_bad_files_give_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = render_scene(np.random.default_rng(4), seats=[0], settings=CALM, placements=[])
    good = tmp_path / "frame.jpg"
    cv2.imwrite(str(good), scene.image)
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(UnreadableImageError):
        load_image(truncated)
    cases = [
        [str(truncated), "--game", "bigtop"],
        [str(tmp_path / "missing.png")],
        [str(good), "--model", str(tmp_path / "nope.onnx")],
    ]
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    cases.append([str(black)])
    for argv in cases:
        assert cmd_recognize(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "0 of its 6 markers" in err
    with pytest.raises(ModelFileError):
        Classifier(tmp_path / "nope.onnx")


def test_recognize_cli_json_and_annotation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = render_scene(np.random.default_rng(2024), seats=[0, 3, 5], settings=CALM,
                         placements=_known_placements())
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), scene.image)
    out = tmp_path / "annotated.png"
    assert cmd_recognize([str(frame), "--game", "bigtop", "--json", "--annotate", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "bigtop" and doc["calibration"]["mat_markers_seen"] == 6
    assert len(doc["components"]) == 14
    annotated = cv2.imread(str(out))
    assert annotated.shape == scene.image.shape and np.abs(annotated.astype(int) - scene.image).sum() > 0
    assert cmd_recognize([str(frame)]) == 0
    text = capsys.readouterr().out
    assert "Seat 1: $3 light 4 Performers" in text


def test_a_card_off_the_mat_near_a_chart_lies_in_front_of_that_seat() -> None:
    from vision.bigtop.layout import CHART, MAT
    from vision.bigtop.tableview import SEAT_REACH, Area, zone_of
    from vision.calibrate import ChartPose

    def pose(seat: int, x: float, y: float) -> ChartPose:
        m = np.array([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])
        return ChartPose(seat, m, np.linalg.inv(m), 2)

    charts = {0: pose(0, 110.0, MAT.height + 20), 1: pose(1, 110.0, -20 - CHART.height)}
    in_front = zone_of(250.0, MAT.height + 20 + CHART.height + 40, charts)
    assert in_front.area is Area.TABLE and in_front.seat == 0
    assert zone_of(250.0, -20 - CHART.height - 40, charts).seat == 1
    assert zone_of(250.0, MAT.height + 20 + CHART.height + SEAT_REACH + 10, charts).seat is None
    on_mat = zone_of(MAT.width - 2, 2.0, charts)
    assert on_mat.seat is None


class _OtherArt:
    """A reader of another deck's art (as an enrolled deck is): it names nothing."""

    def classify(self, crops: np.ndarray, threshold: float) -> list:  # type: ignore[type-arg]
        return []


def test_another_decks_art_is_searched_in_both_masks(recognizer: Recognizer) -> None:
    """Ringside's print is found in one contour pass; a deck of another art, whose values may lie a pixel from its
    frame lines, in the dark mask as it is and with its gaps closed."""
    assert not recognizer._detection_config().unclosed_pass
    other = Recognizer(DEFAULT_MODEL, classifier=_OtherArt())  # type: ignore[arg-type]
    assert other._detection_config().unclosed_pass
    assert other._detection_config().gap_closing and not other.config.unclosed_pass
