"""A pinned playthrough: a seeded simulation and its replay text (golden files).

``pytest --regen-golden`` rewrites the files and fails; read them, then commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.scorer.grand_carnival.carnival_helpers import GAME  # type: ignore[import-not-found,unused-ignore]

GOLDEN = Path(__file__).parent / "golden"


def test_seeded_two_player_playthrough_matches_the_golden_files(regen_golden: bool) -> None:
    record = GAME.simulate(["Ann", "Ben"], random.Random(7))
    report = GAME.replay(record)
    files = {
        GOLDEN / "playthrough_seed7.json": json.dumps(record, indent=1) + "\n",
        GOLDEN / "playthrough_seed7.txt": report.text + "\n",
    }
    if regen_golden:
        GOLDEN.mkdir(exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8")
        pytest.fail("rewrote the playthrough: run again without --regen-golden, read it, then commit it")
    for path, text in files.items():
        assert path.exists(), f"no golden file {path.name}: create it with pytest --regen-golden"
        assert path.read_text(encoding="utf-8") == text, f"{path.name} differs"
