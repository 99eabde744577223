"""Frame-to-panel latency of the referee loop on one core, per stage, for a 5-seat Big Top table.

Plays simulated hands on the simulated table (`firmware.simcamera`) through
the real loop (`firmware.app.RefereeLoop`): motion check, vision pipeline,
sighting, stabiliser and referee, screens drawn and handed to luma ``dummy``
panels. OpenCV and onnxruntime are held to one thread. Prints the median and
90th percentile of every stage over the frames that went through recognition,
and the total from a captured frame to the panel images handed to the drivers
(rendering the simulated frame itself is the camera's time, not counted).

With ``--web-clients N`` the scoreboard page is served too (`firmware.web`) and N
pages are kept open on its event stream, reading every pushed change, as ten
phones around the table would: compare the figures with and without.

Usage: python benchmarks/bench_referee_latency.py [--seats 5] [--hands 1] [--seed 3] [--web-clients 10]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2
import numpy as np

from firmware.app import STAGES, RefereeLoop
from firmware.bigtop.simcamera import SimulatedCamera
from firmware.bigtop.tablesim import SimulatedTable
from firmware.journal import Journal
from firmware.referee import Referee
from firmware.web import WebServer
from hardware.display import Panel
from hardware.fakes import dummy_display
from scorer.core import DEFAULT_NAMES
from vision.bigtop import DEFAULT_MODEL
from vision.bigtop.pipeline import Recognizer
from vision.classify import Classifier


class _Page(threading.Thread):
    """One open page: reads the event stream until the server goes away."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.events = url, 0
        self.start()

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=600) as stream:
                for line in stream:
                    self.events += line.startswith(b"data: ")
        except OSError:
            pass


def _open_pages(url: str, count: int, conn: Any) -> None:
    """The phones around the table, in a process of their own (as phones are not in the referee's)."""
    pages = [_Page(url) for _ in range(count)]
    conn.recv()  # told when the game is over
    time.sleep(0.5)
    conn.send([p.events for p in pages])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", type=int, default=5)
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--web-clients", type=int, default=0, help="open pages on the scoreboard's event stream")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    players = list(DEFAULT_NAMES[: args.seats])
    table = SimulatedTable(players, hands=args.hands, seed=args.seed)
    camera = SimulatedCamera(table)
    recognizer = Recognizer(classifier=Classifier(DEFAULT_MODEL, threads=1))
    with tempfile.TemporaryDirectory() as tmp, Journal.open(Path(tmp) / "journal.db") as journal:
        referee = Referee.new_game(journal, players, parts=args.hands)
        panels = {name: Panel(dummy_display(), name) for name in [*players, "centre"]}
        web = None
        phones: Any = None
        if args.web_clients:
            web = WebServer("127.0.0.1", 0)
            web.start()
            context = multiprocessing.get_context("spawn")
            phones, there = context.Pipe()
            context.Process(target=_open_pages, args=(f"http://127.0.0.1:{web.port}/events", args.web_clients, there),
                            daemon=True).start()
            time.sleep(2.0)  # the pages are open before the game starts
        loop = RefereeLoop(referee, lambda: camera, recognizer, panels, web=web)
        camera.attach_buttons(loop.on_button)
        started = time.perf_counter()
        stats = loop.run()
        wall = time.perf_counter() - started
        if web is not None:
            time.sleep(0.5)
            phones.send("over")
            got = phones.recv()
            web.close()
            print(f"scoreboard: {args.web_clients} open pages received {min(got)} to {max(got)} pushed changes each")
    ms = stats.stage_ms
    counted = [s for s in STAGES if s != "read"]
    totals = np.sum([ms[s] for s in counted], axis=0)
    print(f"{args.seats} seats, {args.hands} hand(s), seed {args.seed}, {args.web_clients} open pages: "
          f"{stats.frames} frames, "
          f"{len(totals)} recognised, {stats.accepted} views accepted, {len(referee.log)} referee decisions; "
          f"one thread, {os.cpu_count()} cores on this machine")
    for s in counted:
        q = np.percentile(ms[s], [50, 90])
        print(f"  {s:<10} median {q[0]:7.2f} ms   p90 {q[1]:7.2f} ms")
    q = np.percentile(totals, [50, 90, 99])
    print(f"  frame to panels: median {q[0]:.1f} ms, p90 {q[1]:.1f} ms, p99 {q[2]:.1f} ms, max {totals.max():.1f} ms "
          f"(goal: at most 150 ms)")
    q = np.percentile(ms["read"], [50, 90])
    print(f"  (simulated camera rendering, not counted: median {q[0]:.1f} ms, p90 {q[1]:.1f} ms)")
    print(f"wall time {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
