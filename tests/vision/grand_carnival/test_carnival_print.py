"""``ringside print grand-carnival``: true-size sheets, decodable board markers, R badges on the decisions."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.grand_carnival.components import CATALOG
from vision.cli import PRINTABLE, cmd_print
from vision.grand_carnival import printing
from vision.grand_carnival.layout import (
    ARUCO_DICT,
    BOARD,
    COMPONENTS,
    MARKER_IDS,
    board_marker_ids,
    decision_keys,
    decisions_of,
    seat_of_marker,
)
from vision.grand_carnival.printing import BADGE, GUESTS, carnival_decisions, iter_carnival_pages, render_board

#: Every printed component whose facts components.toml tags [DECISION], read off the file by hand.
DECIDED = {"market board", "foundation tiles", "attractions", "guests", "barkers", "trick cards"}
BIGTOP_IDS = set(range(0, 30))


def toml_text() -> str:
    return resources.files("scorer.grand_carnival").joinpath("components.toml").read_text("utf-8")


def badge_blobs(image: np.ndarray) -> int:
    """Badges on a page: blobs of the badge colour, the white "R" inside closed over (about 0.5 mm)."""
    mask = np.all(image == np.array(BADGE, np.uint8), axis=2).astype(np.uint8)
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8), iterations=2)
    count, _ = cv2.connectedComponents(mask, connectivity=8)
    return int(count) - 1


def test_print_writes_a_pdf_and_png_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert PRINTABLE["grand-carnival"] == "vision.grand_carnival.cli"
    pdf = tmp_path / "carnival.pdf"
    assert cmd_print(["grand-carnival", "--out", str(pdf), "--dpi", "72"]) == 0
    pages = len(list(iter_carnival_pages(72)))
    assert f"{pages} A4 pages" in capsys.readouterr().out
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page ") == pages
    assert cmd_print(["grand-carnival", "--out", str(tmp_path / "sheets.png"), "--dpi", "72"]) == 0
    files = sorted(tmp_path.glob("sheets-*.png"))
    assert len(files) == pages
    with Image.open(files[0]) as first:
        assert first.info["dpi"][0] == pytest.approx(72, abs=0.1)
        assert first.size == (round(210 * 72 / 25.4), round(297 * 72 / 25.4))


def check_line_mm(image: np.ndarray, dpi: float) -> float | None:
    """The length of the horizontal dark run closest to 100 mm on the page, in mm (None: no run over 90 mm)."""
    dark = image.max(axis=2) < 60
    best: float | None = None
    for row in np.flatnonzero(dark.sum(axis=1) > 90 * dpi / 25.4):
        cols = np.flatnonzero(dark[row])
        for run in np.split(cols, np.flatnonzero(np.diff(cols) > 1) + 1):
            mm = (run[-1] - run[0]) * 25.4 / dpi
            if best is None or abs(mm - 100) < abs(best - 100):
                best = mm
    return best


def test_pages_are_true_size_with_a_100_mm_check_line() -> None:
    dpi = 100.0
    for page in iter_carnival_pages(dpi):
        h, w = page.image.shape[:2]
        assert {w, h} == {round(210 * dpi / 25.4), round(297 * dpi / 25.4)}, page.title
        assert check_line_mm(page.image, dpi) == pytest.approx(100, abs=0.6), page.title
    board = render_board(0, CATALOG, dpi / 25.4, True)
    assert board.shape[:2] == (round(BOARD.height * dpi / 25.4), round(BOARD.width * dpi / 25.4))


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_board_markers_decode_where_the_layout_says(seat: int) -> None:
    s = 100 / 25.4
    board = render_board(seat, CATALOG, s, True)
    # a margin of white, as the board lies on the table
    frame = cv2.copyMakeBorder(board, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert ids is not None
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    assert set(found) == set(board_marker_ids(seat))
    for index, marker_id in enumerate(board_marker_ids(seat)):
        expected = (np.array(BOARD.marker_corners(index)) * s) + 40
        assert np.abs(found[marker_id] - expected).max() < 0.5 * s  # within half a millimetre
        assert seat_of_marker(marker_id) == (seat, index)


def test_marker_ids_do_not_collide_with_big_top() -> None:
    from vision.bigtop.layout import ARUCO_DICT as BIGTOP_DICT
    from vision.bigtop.layout import MAT, chart_marker_ids

    bigtop = set(MAT.marker_ids) | {i for seat in range(6) for i in chart_marker_ids(seat)}
    assert BIGTOP_DICT == ARUCO_DICT and bigtop <= BIGTOP_IDS
    assert not set(MARKER_IDS) & bigtop and len(set(MARKER_IDS)) == 16 and max(MARKER_IDS) < 50


def test_decision_keys_are_read_from_components_toml() -> None:
    keys = decision_keys(toml_text())
    assert keys == {
        "market.empty_parcel_hammers", "entrances.columns", "guests.supply", "barkers.supply",
        "attractions.reflections", "foundations", "attractions.shapes", "tricks.cards",
    }
    # every decision is shown by some printed component
    assert keys <= {k for c in COMPONENTS for k in c.keys}
    assert {c.name for c in decisions_of(keys)} == DECIDED == carnival_decisions()


def test_badges_appear_on_exactly_the_decided_components() -> None:
    pages = list(iter_carnival_pages(100))
    legend, rest = pages[0], pages[1:]
    assert set(legend.badges) == DECIDED
    assert {name for p in rest for name in p.badges} == DECIDED
    for page in pages:
        assert (badge_blobs(page.image) > 0) == bool(page.badges), page.title
    by_title = {p.title: p for p in rest}
    tokens = by_title[printing.TOKEN_PAGE]
    assert badge_blobs(tokens.image) == GUESTS + max(CATALOG.barkers)  # tickets carry none
    assert not by_title["wagon row and round track"].badges
    tiles = sum(badge_blobs(p.image) for p in rest if p.title.startswith("foundation tiles"))
    assert tiles == sum(CATALOG.foundations.values())
    pieces = sum(badge_blobs(p.image) for p in rest if p.title.startswith("attractions"))
    assert pieces == sum(max(shape.counts) for shape in CATALOG.shapes.values())
    assert badge_blobs(by_title["trick cards"].image) == len(CATALOG.tricks)
    assert sum(1 for p in rest if p.title.startswith("market board") and badge_blobs(p.image) == 1) == 4


def test_a_fact_no_longer_tagged_loses_its_badge() -> None:
    """The badges follow the [DECISION] tags of the file, not a fixed list."""
    text = toml_text().replace("# [DECISION §1.3.4] one shared supply of barkers", "# [SRC] one shared supply")
    decided = frozenset(c.name for c in decisions_of(decision_keys(text)))
    assert decided == DECIDED - {"barkers"}
    tokens = next(p for p in iter_carnival_pages(100, decided=decided) if p.title.startswith("guests"))
    assert tokens.badges == ("guests",)
    assert badge_blobs(tokens.image) == GUESTS


def test_pages_are_drawn_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    real = printing.render_board

    def counting(*args: object, **kwargs: object) -> np.ndarray:
        drawn.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(printing, "render_board", counting)
    pages = iter_carnival_pages(72)
    next(pages)  # the legend
    assert drawn == []
    next(pages)
    assert drawn == [1]


def test_layout_docstring_examples() -> None:
    import doctest

    from vision.grand_carnival import layout

    assert doctest.testmod(layout).failed == 0


def test_the_package_imports_its_rules_engine_and_the_vision_core_only() -> None:
    import ast

    import vision

    root = Path(vision.__file__).parent
    core = {p.stem for p in root.glob("*.py")} - {"cli"}
    bad = []
    for path in sorted((root / "grand_carnival").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            for name in names:
                parts = name.split(".")
                if parts[0] == "scorer" and parts[:2] != ["scorer", "grand_carnival"]:
                    bad.append(f"{path.name}: {name}")
                if parts[0] == "vision" and len(parts) > 1 and parts[1] not in core | {"grand_carnival"}:
                    bad.append(f"{path.name}: {name}")
    assert not bad, bad
