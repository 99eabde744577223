"""``ringside print``: --out checked before any page is drawn, PNG pages, a bounded --dpi."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image

from vision.bigtop import printing
from vision.cli import DPI_RANGE, cmd_print


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def no_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(dpi: float = 200.0) -> None:
        raise AssertionError("a page was drawn before --out was checked")

    monkeypatch.setattr(printing, "iter_bigtop_pages", refuse)


def test_unwritable_out_is_refused_before_drawing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  no_drawing: None) -> None:
    assert cmd_print(["bigtop", "--out", str(tmp_path / "no" / "such.pdf")]) == 2
    assert "no such folder" in _err(capsys)
    assert cmd_print(["bigtop", "--out", str(tmp_path)]) == 2  # a folder named .pdf-less: the suffix first
    assert "must end in .pdf" in _err(capsys)
    folder = tmp_path / "pages.pdf"
    folder.mkdir()
    assert cmd_print(["bigtop", "--out", str(folder)]) == 2
    assert "is a folder" in _err(capsys)
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        assert cmd_print(["bigtop", "--out", str(locked / "x.pdf")]) == 2
        assert "permission denied" in _err(capsys)


@pytest.mark.parametrize("dpi", ["600", "10", "nan", "inf"])
def test_dpi_out_of_range_is_one_line(dpi: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      no_drawing: None) -> None:
    assert cmd_print(["bigtop", "--out", str(tmp_path / "x.pdf"), "--dpi", dpi]) == 2
    assert f"--dpi must be between {DPI_RANGE[0]:.0f} and {DPI_RANGE[1]:.0f}" in _err(capsys)
    assert not (tmp_path / "x.pdf").exists()


@pytest.mark.parametrize("name", ["sheets", "sheets.jpg", "sheets.pdf.txt"])
def test_other_suffixes_are_refused(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    no_drawing: None) -> None:
    assert cmd_print(["bigtop", "--out", str(tmp_path / name)]) == 2
    assert ".pdf" in _err(capsys) and not list(tmp_path.iterdir())


def test_png_writes_one_numbered_file_per_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cmd_print(["bigtop", "--out", str(tmp_path / "sheets.png"), "--dpi", "72"]) == 0
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"sheets-{n:02d}.png" for n in range(1, 20)]
    assert "sheets-01.png to sheets-19.png" in capsys.readouterr().out
    with Image.open(files[0]) as first:
        assert first.format == "PNG"
        assert first.size == (round(210 / 25.4 * 72), round(297 / 25.4 * 72))
        assert first.info["dpi"] == pytest.approx((72, 72), abs=0.1)
    assert not (tmp_path / "sheets.png").exists()


def test_pages_are_drawn_one_at_a_time() -> None:
    pages = printing.iter_bigtop_pages(72)
    first = next(pages)
    assert first.title == "cards 1-9"
    assert [p.title for p in printing.bigtop_pages(72)][0] == first.title
