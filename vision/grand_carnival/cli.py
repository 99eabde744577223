"""The Grand Carnival's part of ``ringside print`` (dispatched by `vision.cli`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["print_sheets"]


def print_sheets(out: Path, dpi: float) -> str:
    """Write the Grand Carnival sheets to ``out`` (.pdf: one document; .png: one file per page); the line to print.

    :raises OSError: when a file cannot be written.
    """
    from vision.grand_carnival.printing import write_pdf, write_pngs

    note = "print at actual size and check the 100 mm line; R marks Ringside's decisions (legend on page 1)"
    if out.suffix.lower() == ".pdf":
        n = write_pdf(out, dpi)
        return f"wrote {out}: {n} A4 pages; {note}"
    files = write_pngs(out, dpi)
    return f"wrote {len(files)} A4 pages, {files[0].name} to {files[-1].name}; {note}"
