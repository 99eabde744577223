"""The public packages stay mypy --strict clean (configured in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_on_every_package() -> None:
    api = pytest.importorskip("mypy.api")
    targets = [str(ROOT / name) for name in ("scorer", "vision", "hardware", "firmware") if (ROOT / name / "__init__.py").exists()]
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), *targets])
    assert status == 0, out + err
