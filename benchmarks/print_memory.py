"""Peak memory (resident set) of writing a game's printable sheets, at several resolutions.

Each figure comes from a fresh process, so that one run does not inherit another's peak::

    python benchmarks/print_memory.py            # 200, 300 and 600 dpi, PDF and PNG
    python benchmarks/print_memory.py 200 600     # chosen resolutions
    python benchmarks/print_memory.py --all-at-once 200   # also the old way: every page in memory first
    python benchmarks/print_memory.py --game grand-carnival 200 300   # The Grand Carnival's sheets
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

_CHILD = r"""
import resource, sys, time
from pathlib import Path
import importlib
dpi, kind, folder = float(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
printing = importlib.import_module(sys.argv[4])
import numpy as np
from PIL import Image
start = time.perf_counter()
if kind == "pdf":
    n = printing.write_pdf(folder / "sheets.pdf", dpi)
elif kind == "png":
    n = len(printing.write_pngs(folder / "sheets.png", dpi))
else:  # every page rendered before the PDF is written
    pages = list(printing.iter_bigtop_pages(dpi) if hasattr(printing, "iter_bigtop_pages")
                 else printing.iter_carnival_pages(dpi))
    ims = [Image.fromarray(np.ascontiguousarray(p.image[:, :, ::-1])) for p in pages]
    ims[0].save(folder / "sheets.pdf", "PDF", save_all=True, append_images=ims[1:], resolution=dpi)
    n = len(ims)
seconds = time.perf_counter() - start
size = sum(f.stat().st_size for f in folder.iterdir())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, n, seconds, size)
"""


#: The printing module of each game.
MODULES = {"bigtop": "vision.bigtop.printing", "grand-carnival": "vision.grand_carnival.printing"}


def measure(dpi: float, kind: str, game: str = "bigtop") -> tuple[float, int, float, float]:
    """(peak RSS MiB, pages, seconds, output MiB) of one fresh process."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(dpi), kind, folder, MODULES[game]],
                              capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{kind} at {dpi:g} dpi failed:\n{done.stderr}")
    rss_kib, pages, seconds, size = done.stdout.split()
    return int(rss_kib) / 1024, int(pages), float(seconds), int(size) / 2**20


def main(argv: list[str]) -> None:
    """Print one line per resolution and kind."""
    old = "--all-at-once" in argv
    game = "bigtop"
    if "--game" in argv:
        at = argv.index("--game")
        game = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
        if game not in MODULES:
            raise SystemExit(f"--game must be one of {', '.join(MODULES)}, not {game!r}")
    dpis = [float(a) for a in argv if not a.startswith("--")] or [200.0, 300.0, 600.0]
    kinds = ["pdf", "png"] + (["all-at-once"] if old else [])
    print(f"{'dpi':>5} {'output':>12} {'peak RSS MiB':>13} {'pages':>6} {'seconds':>8} {'file MiB':>9}")
    for dpi in dpis:
        for kind in kinds:
            rss, pages, seconds, size = measure(dpi, kind, game)
            print(f"{dpi:5.0f} {kind:>12} {rss:13.0f} {pages:6d} {seconds:8.1f} {size:9.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
