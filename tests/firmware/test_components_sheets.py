"""``ringside print`` and ``ringside recognize`` obey the user's Grand Carnival components as ``score`` does."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from firmware.grand_carnival.held import letters
from scorer.grand_carnival import GrandCarnival
from scorer.grand_carnival.model import Board
from scorer.grand_carnival.scoring import score_board
from tests.firmware.components_helpers import user_file  # type: ignore[import-not-found]
from vision.grand_carnival.scene import MarketScene, content_region, render_top_down

MINE = "[entrances]\ncolumns = [\"c\", \"f\"]\n"


def printed(folder: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[list[np.ndarray], str]:
    """The pages ``ringside print grand-carnival`` writes (72 dpi PNGs) and its line."""
    folder.mkdir()
    assert main(["print", "grand-carnival", "--out", str(folder / "sheets.png"), "--dpi", "72", *options]) == 0
    pages = [cv2.imread(str(p)) for p in sorted(folder.glob("sheets-*.png"))]
    assert pages and all(page is not None for page in pages)
    return [page for page in pages if page is not None], capsys.readouterr().out


def test_print_follows_the_user_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nobody"))
    shipped, line = printed(tmp_path / "shipped", capsys)
    assert "component values of" not in line
    path = user_file(tmp_path / "home", MINE, monkeypatch)
    mine, line = printed(tmp_path / "mine", capsys)
    assert f"printed with the component values of {path}" in line
    assert len(mine) == len(shipped)
    # The legend marks the value from the file; every market board has its entrances elsewhere;
    # the pages the entrances are not on stay as they were.
    boards = range(1, 5)
    assert not np.array_equal(mine[0], shipped[0])
    assert all(not np.array_equal(mine[k], shipped[k]) for k in boards)
    assert all(np.array_equal(mine[k], shipped[k]) for k in range(5, len(mine)))
    # --components names another file instead of the default one: here the shipped columns again.
    other = tmp_path / "other.toml"
    other.write_text("[entrances]\ncolumns = [\"b\", \"g\"]\n")
    again, _ = printed(tmp_path / "again", capsys, "--components", str(other))
    assert all(np.array_equal(again[k], shipped[k]) for k in range(1, len(again)))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[entrance]\ncolumns = [\"c\", \"f\"]\n", "entrance: there is no such key"),
        ("[entrances]\ncolumns = [\"b\", \"b\"]\n", "entrances.columns must be two different columns"),
        ("market = [\n", "not valid TOML"),
    ],
)
def test_a_bad_user_file_is_one_line_for_print_and_recognize(
    text: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), np.full((60, 80, 3), 128, np.uint8))
    named = tmp_path / "mine.toml"
    named.write_text(text, encoding="utf-8")
    default = user_file(tmp_path / "home", text, monkeypatch)
    commands = (["print", "grand-carnival", "--out", str(tmp_path / "s.pdf")],
                ["recognize", str(photo), "--game", "grand-carnival"])
    for command in commands:
        for path, extra in ((named, ["--components", str(named)]), (default, [])):
            assert main([*command, *extra]) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1, err
            assert err.startswith(f"ringside: {path}: ") and words in err, err
    assert not (tmp_path / "s.pdf").exists()


def test_components_for_print_and_recognize_only_for_the_grand_carnival(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text(MINE)
    assert main(["print", "bigtop", "--out", str(tmp_path / "s.pdf"), "--components", str(mine)]) == 2
    assert capsys.readouterr().err == "ringside print: --components applies to grand-carnival only, not bigtop\n"


def finished_board(game: GrandCarnival, seed: int) -> Board:
    """Seat 0's market at the end of a random game of two played with ``game``'s components."""
    record = game.simulate(players=["A", "B"], rng=random.Random(seed))
    state = game.record_state(record)
    for text in record["moves"]:
        state, _ = game.apply_unchecked(state, game.parse_move(state, text))
    return state.boards[0]


def market_rows(board: Board) -> list[str]:
    """The board's fields in the recogniser's letters, a row of eight at a time."""
    chars = letters(board)
    return [chars[r * 8:(r + 1) * 8] for r in range(8)]


def test_a_board_printed_with_the_user_file_is_read_and_scored_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = user_file(tmp_path / "home", MINE, monkeypatch)
    game = GrandCarnival({"entrances": {"columns": ["c", "f"]}}, str(path))
    board = finished_board(game, 3)
    region = content_region(1)
    photo = tmp_path / "market.png"
    cv2.imwrite(str(photo), render_top_down([MarketScene(board, 0, 1, catalog=game.catalog)],
                                            1200 / (region[2] - region[0]), region))
    assert main(["recognize", str(photo), "--game", "grand-carnival", "--json"]) == 0
    (view,) = json.loads(capsys.readouterr().out)["boards"]
    assert view["unrecognised"] == [] and view["market"] == market_rows(board)
    assert main(["score", "grand-carnival", str(photo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == {"seat1": score_board(board, game.catalog).total}
    # The same photo read with the shipped entrances is not a market Ringside can score.
    empty = tmp_path / "shipped.toml"
    empty.write_text("")
    assert main(["recognize", str(photo), "--game", "grand-carnival", "--json", "--components", str(empty)]) == 0
    (shipped,) = json.loads(capsys.readouterr().out)["boards"]
    assert any(u["where"].startswith("in") for u in shipped["unrecognised"])

