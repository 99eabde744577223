"""Which configuration file is read, and files that are not TOML text: one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.cli import main
from firmware.config import ConfigError, default_config_path, describe_source, load_config


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_non_utf8_file_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('seats = ["Alf", "Ren\xe9e", "Charles"]\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="not a UTF-8 text file"):
        load_config(path)
    err = _one_line_exit_2(capsys, "run", "--config", str(path), "--max-frames", "0")
    assert str(path) in err and "UTF-8" in err


@pytest.mark.parametrize("nested", ["[" * 500 + "]" * 500, "{a = " * 500 + "1" + "}" * 500])
def test_toml_nested_500_deep_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], nested: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(f"x = {nested}\n", encoding="utf-8")
    err = _one_line_exit_2(capsys, "run", "--config", str(path), "--max-frames", "0")
    assert str(path) in err and "too deeply" in err


def test_default_file_follows_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "ringside" / "ringside.toml"
    assert default_config_path() == expected
    config = load_config(None)
    assert config.source is None and config.seats == ("Ann", "Ben", "Cat", "Dan")
    assert describe_source(config) == f"configuration: built-in defaults (no file at {expected})"
    expected.parent.mkdir(parents=True)
    expected.write_text('seats = ["Alf", "Henry", "Charles"]\n', encoding="utf-8")
    config = load_config(None)
    assert config.seats == ("Alf", "Henry", "Charles") and config.source == expected
    assert describe_source(config) == f"configuration: {expected}"


def test_default_file_without_xdg_is_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for xdg in ("", "relative/path"):  # unset or relative: the XDG rule falls back to ~/.config
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
        assert default_config_path() == tmp_path / ".config" / "ringside" / "ringside.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    path = tmp_path / ".config" / "ringside" / "ringside.toml"
    path.parent.mkdir(parents=True)
    path.write_text('seats = ["Alf", "Henry", "Charles"]\nbogus = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="ringside.toml") as caught:
        load_config(None)
    assert "\n" not in str(caught.value)


def test_named_file_is_the_source(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('seats = ["Alf", "Henry", "Charles"]\n', encoding="utf-8")
    assert load_config(path).source == path
