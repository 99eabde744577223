"""Guided enrolment at the table: the panel says what to lay where, OK captures, stop and resume."""

from __future__ import annotations

import json
import queue
from pathlib import Path

import numpy as np
import pytest
from gpiozero import Device  # type: ignore[import-untyped]

from firmware.cli import main
from firmware.enroll import EnrollError, spec_of
from firmware.enroll_table import (
    EnrolmentProgress,
    GuidedEnrolment,
    SimulatedSheetCamera,
    art_for,
    plan_rounds,
    sheet_for,
)
from firmware.screens import CentralView, render_central
from hardware.buttons import ButtonEvent, GpioButtons, Pad, PinMap
from hardware.display import Panel
from hardware.fakes import dummy_display, mock_pin_factory


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "ringside" / "decks"


def test_rounds_cover_every_component_the_asked_number_of_times() -> None:
    labels = [f"c{i}" for i in range(14)]
    rounds = plan_rounds(labels, 6, 2)
    assert len(rounds) == 6
    seen: dict[str, list[int]] = {}
    for r in rounds:
        assert len(r.labels) <= 6
        for label in r.labels:
            seen.setdefault(label, []).append(r.photo)
    assert seen == {label: [0, 1] for label in labels}
    assert "1: c0" in rounds[0].instruction() and "6: c5" in rounds[0].instruction()


def test_ok_on_the_mock_pad_captures_each_space_and_the_panel_names_the_spaces(tmp_path: Path) -> None:
    spec = spec_of("bigtop")
    layout = sheet_for(spec)
    labels = ("animals-D4", "clowns-P", "token-5")
    progress = EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", labels, 1)
    events: queue.Queue[ButtonEvent] = queue.Queue()
    Device.pin_factory = mock_pin_factory()
    buttons = GpioButtons(PinMap(), events.put, seats=0)

    def press_ok() -> None:
        buttons.pin(Pad.OK).drive_low()
        buttons.pin(Pad.OK).drive_high()

    camera = SimulatedSheetCamera(layout, art_for("bigtop"), seed=2, size=(800, 600), on_laid=press_ok)
    panel = Panel(dummy_display(), "centre")
    shown: list[tuple[str, str, str]] = []

    def show(title: str, line: str, message: str) -> None:
        shown.append((title, line, message))
        panel.draw(render_central, CentralView(title, line, message))

    try:
        session = GuidedEnrolment(spec, layout, progress, camera, show, lambda text: None, flush_frames=0)
        assert session.run(events, give_up_s=10.0) == "done"
    finally:
        buttons.close()
    assert "1: animals-D4, 2: clowns-P, 3: token-5" in shown[0][2]
    assert panel.redraws >= 2 and panel.device.image.getbbox() is not None
    assert camera.frames == 1
    for label in labels:
        assert progress.photo_path(label, 0).is_file()
    data = json.loads(progress.file.read_text())
    assert data["done"] == {label: 1 for label in labels}


def test_a_missing_component_is_asked_again(tmp_path: Path) -> None:
    spec = spec_of("bigtop")
    layout = sheet_for(spec)
    progress = EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4", "back"), 1)
    events: queue.Queue[ButtonEvent] = queue.Queue()
    camera = SimulatedSheetCamera(layout, art_for("bigtop"), seed=3, size=(800, 600))
    camera.attach_buttons(events.put)
    real_prompted = camera.prompted
    calls = [0]

    def forgetful(labels: tuple[str, ...], photo: int) -> None:
        real_prompted(labels, photo)
        calls[0] += 1
        if calls[0] == 1:
            del camera.laid[2]  # the family forgot the back on space 2

    camera.prompted = forgetful  # type: ignore[method-assign]
    said: list[str] = []
    session = GuidedEnrolment(spec, layout, progress, camera, lambda *a: None, said.append, flush_frames=0)
    assert session.run(events, give_up_s=5.0) == "done"
    assert any("Nothing found on space 2" in s for s in said)
    assert camera.frames == 2


def test_progress_of_another_enrolment_is_refused(tmp_path: Path) -> None:
    EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4",), 2)
    with pytest.raises(EnrollError, match="other components"):
        EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4",), 1)
    (tmp_path / "deck" / "enrolling" / "progress.json").write_text("{not json")
    with pytest.raises(EnrollError, match="not an enrolment's progress"):
        EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4",), 2)


def test_a_photo_written_but_not_recorded_is_not_used(tmp_path: Path) -> None:
    progress = EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4", "back"), 1)
    stray = progress.photo_path("back", 0)
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"half a png")  # a crash after the photo, before the progress file
    again = EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4", "back"), 1)
    assert again.captured == 0
    staged = again.source_folder()
    assert list(staged.iterdir()) == []


def test_undo_takes_back_the_last_round(tmp_path: Path) -> None:
    spec = spec_of("bigtop")
    layout = sheet_for(spec)
    progress = EnrolmentProgress(tmp_path / "deck", "bigtop", "ours", ("animals-D4",), 2)
    events: queue.Queue[ButtonEvent] = queue.Queue()
    camera = SimulatedSheetCamera(layout, art_for("bigtop"), seed=4, size=(800, 600), stop_after=1)
    camera.attach_buttons(events.put)
    session = GuidedEnrolment(spec, layout, progress, camera, lambda *a: None, lambda t: None, flush_frames=0)
    assert session.run(events, give_up_s=5.0) == "stopped"
    assert progress.captured == 1
    from hardware.buttons import Gesture

    events.put(ButtonEvent(Gesture.PRESS, pad=Pad.UNDO))
    events.put(ButtonEvent(Gesture.PRESS, pad=Pad.MODE))
    camera.stop_after = None
    camera.attach_buttons(lambda e: None)
    assert session.run(events, give_up_s=5.0) == "stopped"
    assert progress.captured == 0


def test_stop_then_resume_from_the_command_line_builds_the_deck(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["enroll", "bigtop", "--name", "family", "--display", "dummy", "--photos", "2",
            "--only", "clowns-L2"]
    code, out, err = run(capsys, *argv, "--camera", "simulated:stop=1")
    assert (code, err) == (0, "")
    assert "stopped with 1 of 2 photos" in out
    code, out, _ = run(capsys, "decks")
    assert "being enrolled at the table: 1 of 2 photos" in out
    code, out, err = run(capsys, *argv, "--camera", "simulated:seed=5")
    assert (code, err) == (0, "")
    assert "resuming the enrolment of family: 1 of 2" in out
    assert out.count("kept 1 photos") == 1
    assert "enrolled 1 bigtop components from 2 photos at the table" in out
    card = json.loads((home / "family" / "deck.json").read_text())
    assert card["labels"] == ["clowns-L2"] and card["photos"] == 2
    assert not (home / "family" / "enrolling").exists()
    code, out, err = run(capsys, *argv, "--camera", "simulated")
    assert code == 2 and "already holds a deck" in err and err.count("\n") == 1


@pytest.mark.parametrize(("extra", "words"), [
    (["--from", "x", "--camera", "simulated"], ["--from DIR", "--camera SRC"]),
    (["--camera", "simulated:speed=3"], ["unknown option 'speed'"]),
    (["--camera", "simulated:level=bright"], ["bad value"]),
    (["--camera", "simulated", "--photos", "0"], ["--photos must be 1 to 5"]),
    (["--camera", "simulated", "--only", "animals-D9"], ["--only", "'animals-D9' is not a bigtop component"]),
    (["--camera", "nocam:3"], ["unknown camera"]),
])
def test_camera_enrolment_errors_are_one_line(home: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                                              words: list[str]) -> None:
    code, out, err = run(capsys, "enroll", "bigtop", "--name", "x", "--display", "dummy", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("ringside enroll: ")
    for w in words:
        assert w in err
    assert not home.exists() or not any(home.iterdir())


def test_print_enroll_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "print", "carcassonne", "--enroll", "--out", str(tmp_path / "s.png"), "--dpi", "72")
    assert code == 0 and (tmp_path / "s-01.png").is_file() and "12 numbered spaces" in out
    code, out, err = run(capsys, "print", "grandioso", "--enroll", "--out", str(tmp_path / "s.pdf"), "--dpi", "72")
    assert code == 0 and (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")
    code, out, err = run(capsys, "print", "bigtop", "--enroll", "--out", str(tmp_path / "no" / "s.pdf"))
    assert code == 2 and err.count("\n") == 1 and "no such folder" in err


def test_grand_carnival_tiles_are_kept_in_folders_named_with_a_dash(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    progress = EnrolmentProgress(tmp_path / "deck", "grand-carnival", "ours", ("ws/ss",), 1)
    assert progress.photo_path("ws/ss", 0).parent.name == "ws-ss"
    spec = spec_of("grand-carnival")
    assert "ws/ss" in spec.names and spec.shape_of("ws/ss").turns == 1
    assert len(sheet_for(spec).spaces) >= 6
    bad = tmp_path / "photos" / "ws-sx"
    bad.mkdir(parents=True)
    code, out, err = run(capsys, "enroll", "grand-carnival", "--from", str(tmp_path / "photos"), "--name", "gc")
    assert code == 2 and "not a grand-carnival component name" in err and "ws-ss" in err


def test_an_image_folder_camera_and_typed_keys(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import cv2

    layout = sheet_for(spec_of("bigtop"))
    camera = SimulatedSheetCamera(layout, art_for("bigtop"), seed=6, size=(800, 600))
    camera.prompted(["clowns-L2"], 0)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "01.png"), camera.read())
    cv2.imwrite(str(frames / "02.png"), np.zeros((60, 80, 3), np.uint8))  # would be the second photo: never read
    monkeypatch.setattr("sys.stdin", io.StringIO("ok\nm\n"))  # OK, then MODE: stop
    code, out, err = run(capsys, "enroll", "bigtop", "--name", "fam", "--camera", f"images:{frames}",
                         "--buttons", "keyboard", "--display", "dummy", "--only", "clowns-L2")
    assert (code, err) == (0, "")
    assert "round 1: kept 1 photos" in out and "stopped with 1 of 2 photos" in out
    assert (home / "fam" / "enrolling" / "photos" / "clowns-L2" / "1.png").is_file()
