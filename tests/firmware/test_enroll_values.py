"""``ringside enroll grand-carnival`` with the user's component values, and decks used with other values refused."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from scorer.grand_carnival.components import CATALOG
from tests.firmware.components_helpers import user_file  # type: ignore[import-not-found]
from vision.bigtop.scene import paste, table_texture
from vision.camera_model import photograph
from vision.grand_carnival.printing import render_tile

#: a foundation pattern the shipped components.toml does not list
ADDED = "ss/ss"
#: a user file listing the shipped foundation tiles and one more
ADDING = "".join(f'[[foundations]]\npattern = "{p}"\ncount = {n}\n' for p, n in CATALOG.foundations.items()) + \
         f'[[foundations]]\npattern = "{ADDED}"\ncount = 2\n'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("ringside")
    for w in words:
        assert w in err


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The decks' folder; the configuration folder (no user file yet) beside it."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "data" / "ringside" / "decks"


def tile_photo(pattern: str, seed: int) -> np.ndarray:
    """A small phone photo of one foundation tile lying upright on a table."""
    rng = np.random.default_rng(seed)
    s, half = 5.0, 45.0
    canvas = table_texture(rng, (int(2 * half * s), int(2 * half * s)))
    img = render_tile(pattern, s)
    paste(canvas, img, np.full(img.shape[:2], 255, np.uint8), half, half, float(rng.uniform(-5, 5)), s, (0.0, 0.0),
          shadow=0.3)
    return photograph(canvas, s, (0.0, 0.0), (half - 32, half - 32, half + 32, half + 32), "easy", seed, (480, 360),
                      with_hand=False).image


def tiles(tmp_path: Path, patterns: tuple[str, ...]) -> Path:
    """An enrolment folder: one sub-folder per pattern (``ws-ss``), two photos each."""
    root = tmp_path / "tiles"
    for i, pattern in enumerate(patterns):
        (root / pattern.replace("/", "-")).mkdir(parents=True)
        for k in range(2):
            cv2.imwrite(str(root / pattern.replace("/", "-") / f"{k}.jpg"), tile_photo(pattern, 40 + 10 * i + k))
    return root


def test_a_tile_the_users_file_adds_is_enrolled_and_the_card_keeps_the_values(
        tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    src = tiles(tmp_path, (ADDED, "ws/ss"))
    # the shipped values have no ss/ss tile: its folder is named in one line, nothing is written
    one_line_error(*run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "fam"), "ss-ss",
                   "not a grand-carnival component")
    assert not home.exists()
    # the same values from a file named on the command line
    mine = tmp_path / "mine.toml"
    mine.write_text(ADDING, encoding="utf-8")
    code, out, err = run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "named",
                         "--components", str(mine))
    assert (code, err) == (0, ""), err
    assert f"with the component values of {mine}" in out
    # the user's default file
    path = user_file(tmp_path / "config", ADDING, monkeypatch)
    code, out, err = run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "fam")
    assert (code, err) == (0, ""), err
    assert "enrolled 2 grand-carnival components" in out and str(path) in out
    card = json.loads((home / "fam" / "deck.json").read_text())
    assert card["labels"] == ["ws/ss", ADDED]
    assert card["foundations"] == [*CATALOG.foundations, ADDED]
    assert card["components_file"] == str(path)
    assert any(line.startswith("foundations = ") for line in card["component_changes"])
    assert json.loads((home / "named" / "deck.json").read_text())["components_file"] == str(mine)
    code, out, _ = run(capsys, "decks")
    assert f"values of {mine}" in out and f"values of {path}" in out


def test_components_file_errors_are_one_line(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = tiles(tmp_path, ("ws/ss",))
    mine = tmp_path / "mine.toml"
    mine.write_text(ADDING, encoding="utf-8")
    one_line_error(*run(capsys, "enroll", "bigtop", "--from", str(src), "--name", "a", "--components", str(mine)),
                   "--components FILE applies to grand-carnival only, not bigtop", "--only")
    bad = tmp_path / "bad.toml"
    bad.write_text('[[foundations]]\npattern = "sx/ss"\ncount = 1\n', encoding="utf-8")
    one_line_error(*run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "a", "--components",
                        str(bad)), str(bad), "foundations[0].pattern")
    one_line_error(*run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "a", "--components",
                        str(tmp_path / "none.toml")), "none.toml")
    assert not home.exists()


def test_enrolling_at_the_table_asks_for_the_users_patterns(tmp_path: Path, home: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``--camera`` names the tiles by the same values: ss/ss is a component only with the file that adds it."""
    argv = ("enroll", "grand-carnival", "--camera", "simulated", "--name", "fam", "--display", "dummy",
            "--only", ADDED)
    one_line_error(*run(capsys, *argv), "--only", f"'{ADDED}' is not a grand-carnival component")
    mine = tmp_path / "mine.toml"
    mine.write_text(ADDING, encoding="utf-8")
    # past the tile names: the simulated camera has no art of this game's tiles (a real camera would go on)
    one_line_error(*run(capsys, *argv, "--components", str(mine)), "the simulated camera has no art for grand-carnival")


def test_a_deck_used_with_other_foundation_patterns_is_refused(tmp_path: Path, home: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.enroll import perceiver_for
    from firmware.runner import RunError
    from firmware.table import adapter
    from scorer.grand_carnival import GrandCarnival
    from scorer.grand_carnival.codec import board_from_parts
    from scorer.grand_carnival.model import TrickStatus
    from vision.grand_carnival.scene import MarketScene
    from vision.grand_carnival.scene import frame as carnival_frame

    src = tiles(tmp_path, ("ws/ss", "ww/ss"))
    mine = tmp_path / "mine.toml"
    mine.write_text(ADDING, encoding="utf-8")
    assert run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "own", "--components", str(mine))[0] == 0
    assert run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "shipped")[0] == 0
    board = board_from_parts(("ww/ss",) * 4 + (None,) * 12, (), 0, (True, False), 0, 0, frozenset(),
                             (TrickStatus.OPEN,) * 3, CATALOG)
    image = tmp_path / "market.png"
    cv2.imwrite(str(image), carnival_frame([MarketScene(board, 0, 7)], 1280))
    # enrolled with ss/ss, read with the shipped values (no ss/ss): refused, the pattern named
    one_line_error(*run(capsys, "recognize", str(image), "--game", "grand-carnival", "--deck", "own"),
                   "deck own", str(mine), f"{ADDED} not in these")
    with pytest.raises(RunError, match=f"deck own .*{ADDED} not in these") as caught:
        perceiver_for(adapter("grand-carnival"), "own")
    assert "\n" not in str(caught.value)
    one_line_error(*run(capsys, "demo", "--game", "grand-carnival", "--deck", "own", "--out", str(tmp_path / "demo")),
                   "deck own", f"{ADDED} not in these values")
    assert not (tmp_path / "demo").exists()
    # enrolled with the shipped values, read with values that add ss/ss: the deck was never shown it
    one_line_error(*run(capsys, "recognize", str(image), "--game", "grand-carnival", "--deck", "shipped",
                        "--components", str(mine)), "deck shipped", f"{ADDED} not in the deck's")
    table = adapter("grand-carnival").for_game(GrandCarnival(_merged(mine), str(mine)))
    with pytest.raises(RunError, match=f"{ADDED} not in the deck's"):
        perceiver_for(table, "shipped")
    # the same values as the enrolment's: read
    code, out, err = run(capsys, "recognize", str(image), "--game", "grand-carnival", "--deck", "own",
                         "--components", str(mine), "--json")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["boards"]
    assert perceiver_for(table, "own").classifier.name == "own"
    assert perceiver_for(adapter("grand-carnival"), "shipped").classifier.name == "shipped"


def test_a_deck_enrolled_before_cards_kept_the_values_has_the_shipped_patterns(
        tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.enroll import DeckError, load_deck
    from vision.grand_carnival.decks import check_deck, deck_foundations

    src = tiles(tmp_path, ("ws/ss",))
    assert run(capsys, "enroll", "grand-carnival", "--from", str(src), "--name", "old")[0] == 0
    card_path = home / "old" / "deck.json"
    card = json.loads(card_path.read_text())
    for key in ("foundations", "components_file", "component_changes"):
        del card[key]
    card_path.write_text(json.dumps(card))
    deck = load_deck(home / "old", "grand-carnival")
    assert deck_foundations(deck.card) == tuple(CATALOG.foundations)
    check_deck(deck, CATALOG)
    from scorer.grand_carnival.components import catalog_of

    mine = tmp_path / "mine.toml"
    mine.write_text(ADDING, encoding="utf-8")
    with pytest.raises(DeckError, match=f"{ADDED} not in the deck's"):
        check_deck(deck, catalog_of(_merged(mine)), str(mine))


def _merged(path: Path) -> dict[str, object]:
    from firmware.components import user_values

    values, _ = user_values(path)
    assert values is not None
    return values
