"""Helpers shared by the tests of the user's Grand Carnival component file."""

from __future__ import annotations

from pathlib import Path

import pytest


def user_file(home: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write ``text`` as the user's component file under ``home`` (made the configuration folder) and return its path."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    path = home / "ringside" / "grand-carnival.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
