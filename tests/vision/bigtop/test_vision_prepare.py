"""`Recognizer.prepare`: what a first frame builds on first use is built at start, the readings unchanged."""

from __future__ import annotations

import numpy as np

from vision import calibrate, codematch
from vision.bigtop import DEFAULT_MODEL, facefit, places
from vision.bigtop.balance import paper_points
from vision.bigtop.layout import MAX_SEATS
from vision.bigtop.pipeline import Recognizer
from vision.bigtop.scene import SceneSettings, render_scene
from vision.classify import Classifier


def _forget() -> None:
    codematch.code_templates.cache_clear()
    places._sheet_grey.cache_clear()
    places._PRINTED_FRAMES.clear()
    paper_points.cache_clear()
    calibrate._EDGE_MODELS.clear()


def test_prepare_builds_what_a_first_frame_would() -> None:
    rec = Recognizer(DEFAULT_MODEL)
    _forget()
    rec.prepare()
    cfg = rec.config
    layout = cfg.table.markers
    chart_ids = {i for i in range(codematch.dictionary_size(cfg.aruco_dictionary))
                 if layout.board_of_marker(i) is not None}
    assert chart_ids and {i for _, i in calibrate._EDGE_MODELS} == chart_ids
    assert places._sheet_grey.cache_info().currsize == 1 + MAX_SEATS
    assert {k[:2] for k in places._PRINTED_FRAMES} == {(-1, p.sheet_centre) for p in places._tableau_places()}
    assert paper_points.cache_info().currsize == 1
    assert codematch.code_templates.cache_info().currsize == 1
    # a first frame of a table with every seat's chart then builds none of them again
    rng = np.random.default_rng(950_000_002)
    frame = render_scene(rng, MAX_SEATS, SceneSettings(image_size=(1280, 960))).image
    before = (codematch.code_templates.cache_info().misses, places._sheet_grey.cache_info().misses,
              paper_points.cache_info().misses, len(calibrate._EDGE_MODELS))
    rec.recognize(frame)
    after = (codematch.code_templates.cache_info().misses, places._sheet_grey.cache_info().misses,
             paper_points.cache_info().misses, len(calibrate._EDGE_MODELS))
    assert after == before


def test_a_prepared_classifier_answers_as_a_fresh_one() -> None:
    crops = np.random.default_rng(5).integers(0, 256, (7, 56, 40, 3), dtype=np.uint8)
    fresh = Classifier(DEFAULT_MODEL, threads=1).probabilities(crops)
    prepared = Classifier(DEFAULT_MODEL, threads=1)
    prepared.prepare()
    assert np.array_equal(prepared.probabilities(crops), fresh)


def test_prepare_makes_where_the_glare_test_reads_each_pile_and_the_printed_faces() -> None:
    rec = Recognizer(DEFAULT_MODEL)
    places._PLANS.clear()
    facefit._blurred.cache_clear()
    facefit._templates.cache_clear()
    rec.prepare()
    tableau = places._tableau_places()
    made = dict(places._PLANS)
    assert len(made) == 2 * len(tableau)
    assert facefit._blurred.cache_info().currsize == len(facefit.VERSIONS) * len(facefit.BLURS)
    # a frame's rectification is the one prepared for: its piles' plans are those made at start
    rng = np.random.default_rng(950_000_003)
    result = rec.recognize(render_scene(rng, 3, SceneSettings(image_size=(1280, 960))).image)
    rect = result.rectified
    for place in tableau:
        for sides, with_print in ((places._FRAME_BANDS, False), (places._PAIRED_SIDES, True)):
            plan = places._sampling_plan(rect.image.shape, rect, place, sides, with_print)
            assert plan is not None and any(plan is kept[1] for kept in made.values())
    # ... and a crop fitted to the printed faces draws none of them again
    misses = (facefit._blurred.cache_info().misses, facefit._templates.cache_info().misses)
    crop = np.ascontiguousarray(result.crops[0])
    label, _, _ = facefit.face_read(crop, ["clowns-L3", "clowns-L4", "clowns-L5"], "clowns-L4")
    assert label and (facefit._blurred.cache_info().misses, facefit._templates.cache_info().misses) == misses
