"""``ringside print|recognize|train``: --help prints help (exit 0), options may come before the game name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import main


@pytest.mark.parametrize("command, words", [
    ("print", "--dpi"), ("recognize", "--annotate"), ("train", "--epochs"),
])
def test_help_prints_help_and_exits_0(command: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out, err = capsys.readouterr()
    assert f"usage: ringside {command}" in out and words in out and err == ""


def test_train_help_works_without_torch() -> None:
    code = ("import sys; sys.modules['torch'] = None; from firmware.cli import main; "
            "sys.exit(main(['train', '--help']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "usage: ringside train" in done.stdout, done.stderr
    code = "import sys; sys.modules['torch'] = None; from firmware.cli import main; sys.exit(main(['train']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "pip install" in done.stderr


def test_options_before_the_game_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pdf"
    assert main(["print", "--out", str(out), "--dpi", "72", "bigtop"]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert main(["print", "--dpi", "72", "--out", str(tmp_path / "bad.txt"), "bigtop"]) == 2
    assert "must end in .pdf" in capsys.readouterr().err


def test_top_level_help_still_lists_the_vision_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    assert "print" in out and "recognize" in out and "train" in out
