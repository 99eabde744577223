"""``ringside enroll`` and ``ringside decks``: exact one-line errors, nothing half-written, decks listed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from scorer.bigtop.cards import Suit
from vision.bigtop.faces import render_label
from vision.bigtop.layout import MAT, Pile
from vision.bigtop.scene import Placement, SceneSettings, paste, render_scene, table_texture
from vision.camera_model import photograph


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "ringside" / "decks"


def photo(label: str | None, seed: int) -> np.ndarray:
    """A small phone photo of one Big Top card on a table (or of the bare table)."""
    rng = np.random.default_rng(seed)
    s, half = 3.0, 90.0
    canvas = table_texture(rng, (int(2 * half * s), int(2 * half * s)))
    if label is not None:
        img, alpha = render_label(label, s)
        paste(canvas, img, alpha, half, half, float(rng.uniform(0, 360)), s, (0.0, 0.0), shadow=0.3)
    return photograph(canvas, s, (0.0, 0.0), (half - 65, half - 65, half + 65, half + 65), "easy", seed, (480, 360),
                      with_hand=False).image


def folder(tmp_path: Path, labels: dict[str, int]) -> Path:
    root = tmp_path / "photos"
    for i, (label, count) in enumerate(labels.items()):
        (root / label).mkdir(parents=True)
        for k in range(count):
            cv2.imwrite(str(root / label / f"{k}.jpg"), photo(label, 10 * i + k))
    return root


def one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("ringside")
    for w in words:
        assert w in err


def test_enroll_then_decks(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = folder(tmp_path, {"clowns-L3": 2, "animals-D6": 1})
    code, out, err = run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "family")
    assert code == 0, err
    assert "enrolled 2 bigtop components from 3 photos" in out and str(home / "family") in out
    card = json.loads((home / "family" / "deck.json").read_text())
    assert card["game"] == "bigtop" and card["components"] == 2 and card["photos"] == 3
    assert card["held_back"]["photos"] == 1 and card["held_back"]["wrong_accepted"] == 0
    code, out, _ = run(capsys, "decks")
    assert code == 0 and out.startswith("family") and "bigtop" in out and "2 components" in out
    code, out, _ = run(capsys, "decks", "--json")
    assert [d["name"] for d in json.loads(out)] == ["family"]
    # a second deck of the same name is refused; --replace replaces it (here, with --out: that folder)
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "family"), "already exists")
    code, out, _ = run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "family", "--replace",
                       "--out", str(home / "family"))
    assert code == 0 and sorted(p.name for p in home.iterdir()) == ["family"]


def test_no_decks(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decks")
    assert code == 0 and "no decks enrolled" in out


def _nothing_written(home: Path) -> bool:
    return not home.exists() or not any(home.iterdir())


def test_missing_and_misnamed_folders(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(tmp_path / "nope"), "--name", "a"),
                   "no such folder", "nope")
    for game, wrong, hint in (("bigtop", "animals-D7", "animals-D6"), ("flohcati", "red-9", "red-0"),
                              ("grandioso", "unicorn", "elephant"), ("carcassonne", "ZZ", "tile letter")):
        src = tmp_path / game
        (src / wrong).mkdir(parents=True)
        one_line_error(*run(capsys, "enroll", game, "--from", str(src), "--name", "a"), wrong, hint)
    src = tmp_path / "empty"
    (src / "clowns-P").mkdir(parents=True)
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "a"), "clowns-P", "no photos")
    one_line_error(*run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "a"), "grand-carnival")
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "../up"), "--name")
    assert _nothing_written(home)


def test_unreadable_photo_and_photo_without_component(tmp_path: Path, home: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    src = folder(tmp_path, {"clowns-L3": 1})
    (src / "sideshow-P").mkdir()
    (src / "sideshow-P" / "a.jpg").write_bytes(b"not a photo")
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "a"), "sideshow-P/a.jpg")
    (src / "sideshow-P" / "a.jpg").unlink()
    cv2.imwrite(str(src / "sideshow-P" / "b.jpg"), photo(None, 5))
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "a"), "sideshow-P/b.jpg",
                   "no bigtop component found")
    assert _nothing_written(home)


def test_recognize_deck_errors(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), photo(None, 1))
    one_line_error(*run(capsys, "recognize", str(image), "--deck", "nothing"), "no such deck")
    one_line_error(*run(capsys, "recognize", str(image), "--game", "grand-carnival", "--deck", "nothing"),
                   "no such deck")
    one_line_error(*run(capsys, "recognize", str(image), "--game", "carcassonne", "--deck", "nothing"),
                   "no such deck")



def test_run_refuses_a_deck_before_writing_a_game(tmp_path: Path, home: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A deck ``run`` cannot use is refused in one line with no game written; a game in progress stays as it was."""
    from firmware.journal import Journal

    journal = tmp_path / "j.db"
    argv = ["run", "--game", "bigtop", "--camera", "simulated", "--display", "dummy", "--buttons", "mock",
            "--journal", str(journal), "--max-frames", "0"]
    code, _, err = run(capsys, *argv, "--deck", "nothing")
    assert code == 2 and err.count("\n") == 1 and "no such deck" in err
    if journal.exists():
        with Journal.open_readonly(journal) as j:
            assert j.game_ids() == []
    assert run(capsys, *argv)[0] == 0
    with Journal.open_readonly(journal) as j:
        started = j.game_ids()
    assert len(started) == 1
    code, _, err = run(capsys, *argv, "--deck", "nothing")
    assert code == 2 and err.count("\n") == 1 and "no such deck" in err
    with Journal.open_readonly(journal) as j:
        assert j.game_ids() == started and j.resume() is not None


CALM = SceneSettings(tilt_deg=(5.0, 12.0), yaw_deg=(-6.0, 6.0), brightness=(0.85, 1.0), warmth=(0.0, 0.08),
                     blur_sigma=(0.2, 0.5), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95),
                     shadow_probability=0.0, glare_probability=0.0, hands=(0, 0), clutter=(0, 0))


def test_recognize_and_run_with_a_deck(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cards the deck was taught are read on the mat; a card unlike them that it was not taught is not accepted.

    (A deck taught only part of a deck may take an untaught look-alike, the same layout in
    another colour, for a taught card: enrol every component.)
    """
    src = folder(tmp_path, {"clowns-P": 1, "animals-P": 1, "clowns-L3": 1})
    assert run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "fam")[0] == 0
    placements = [Placement("clowns-P", *MAT.slot(Suit.CLOWNS, Pile.POSTER).centre, 0),
                  Placement("animals-P", *MAT.slot(Suit.ANIMALS, Pile.POSTER).centre, 0),
                  Placement("clowns-L3", *MAT.slot(Suit.CLOWNS, Pile.LIGHT).centre, 1),
                  Placement("sideshow-D5", *MAT.slot(Suit.SIDESHOW, Pile.DARK).centre, 1)]
    scene = render_scene(np.random.default_rng(21), seats=[0, 1, 2], settings=CALM, placements=placements)
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), scene.image)
    code, out, err = run(capsys, "recognize", str(image), "--deck", "fam", "--json")
    assert code == 0, err
    view = json.loads(out)
    assert sorted(c["label"] for c in view["components"]) == ["animals-P", "clowns-L3", "clowns-P"]
    light = {st["suit"]: st["top_light"] for st in view["tableau"]}
    dark = {st["suit"]: st["top_dark"] for st in view["tableau"]}
    assert light["clowns"] == "clowns-L3" and dark["sideshow"] is None
    assert any(u["zone"].get("suit") == "sideshow" for u in view["unrecognised"])
    # run and demo take the deck for Big Top; a deck of another game is refused
    from firmware.enroll import perceiver_for
    from firmware.runner import RunError
    from firmware.table import adapter

    assert perceiver_for(adapter("bigtop"), "fam").classifier.name == "fam"
    with pytest.raises(RunError, match="deck fam is for bigtop, not flohcati"):
        perceiver_for(adapter("flohcati"), "fam")
    with pytest.raises(RunError, match="deck fam is for bigtop, not grandioso"):
        perceiver_for(adapter("circus-grandioso"), "fam")
    with pytest.raises(RunError, match="deck fam is for bigtop, not grand-carnival"):
        perceiver_for(adapter("grand-carnival"), "fam")
    with pytest.raises(RunError, match="no such deck"):
        perceiver_for(adapter("bigtop"), "other")
