"""Shared pytest configuration. Add to this file; do not remove what others put here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

# -- golden reference files (screens as PNG) ------------------------------------------
#
# ``pytest --regen-golden`` rewrites the reference files a test compares against,
# and then fails that test, so that a run that rewrote references can never pass
# (and be committed) by accident. Run the suite again without the option, look
# at the new PNGs, and commit them on purpose.


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--regen-golden``: rewrite golden reference files (the run then fails)."""
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite the golden reference files the tests compare against; the rewriting tests then fail",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was started with ``--regen-golden``."""
    return bool(request.config.getoption("--regen-golden"))


@pytest.fixture
def golden_png(regen_golden: bool) -> Callable[[object, Path], None]:
    """Compare a PIL image pixel by pixel with a golden PNG (or rewrite it under ``--regen-golden``).

    Usage: ``golden_png(image, Path(__file__).parent / "golden" / "name.png")``.
    """
    from PIL import Image, ImageChops

    def check(image: object, path: Path) -> None:
        assert isinstance(image, Image.Image), f"expected a PIL image, got {type(image).__name__}"
        if regen_golden:
            path.parent.mkdir(parents=True, exist_ok=True)
            image.save(path)
            pytest.fail(f"rewrote {path.name}: run again without --regen-golden, check it, then commit it")
        if not path.exists():
            pytest.fail(f"no golden file {path}: create it with pytest --regen-golden and check it by eye")
        with Image.open(path) as stored:
            expected = stored.convert(image.mode)
        assert expected.size == image.size, f"{path.name}: size {image.size} differs from {expected.size}"
        diff = ImageChops.difference(expected, image).getbbox()
        assert diff is None, f"{path.name}: pixels differ inside {diff}"

    return check


# -- no test reads the configuration of the user running the tests ---------------------


@pytest.fixture(autouse=True)
def _private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point ``XDG_CONFIG_HOME`` at an empty folder, so ``~/.config/ringside/ringside.toml`` is never read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "empty-config-home"))
