"""``ringside run``, ``ringside export`` and ``ringside demo``.

``run`` is the referee at the table: configuration, journal (resuming the
game in progress), camera, buttons and panels around `firmware.app.RefereeLoop`.
``demo`` is a whole simulated game night on this machine: the simulated table
renders camera frames, the real vision pipeline and referee judge them, the
panels are emulated (one animated GIF each), and the result is checked
against the simulation's ground truth.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from firmware.cli import write_output
from firmware.config import ConfigError, RingsideConfig, load_config, with_overrides
from firmware.journal import Journal, JournalError
from firmware.referee import Mode, Referee
from hardware.camera import FrameSource, open_camera
from hardware.display import DisplayDriver, DisplaySpec, EmulatorMode, Panel, open_panels
from hardware.errors import HardwareError
from scorer.bigtop import BigTop
from scorer.core import DEFAULT_NAMES, TableError

__all__ = ["add_commands", "camera_opener", "demo", "run", "state_digest"]

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


class RunError(Exception):
    """A mistake in the set-up (exit status 2, one line)."""


def camera_opener(config: RingsideConfig) -> Callable[[], FrameSource]:
    """How to open (and reopen) the configured camera."""
    source = config.camera.source

    def open_it() -> FrameSource:
        if source.strip().lower() == "picamera2":
            from hardware.picamera import PiCameraSource  # picamera2 only here, and only on a Pi

            return PiCameraSource(config.camera.picamera_settings())
        return open_camera(source)

    return open_it


def _journal(path: Path) -> Journal:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return Journal.open(path)
    except OSError as exc:
        raise RunError(f"cannot open the journal {path}: {exc.strerror or exc}") from None


def _referee(journal: Journal, config: RingsideConfig, hands: int | None, teaching: bool, out: TextIO) -> Referee:
    referee = Referee.resume(journal, teaching=teaching)
    if referee is not None:
        players = ", ".join(referee.live.players)
        print(f"resuming the game in progress: {players}, hand {referee.hand_number}, "
              f"{len(referee.live.moves())} moves in this hand, state {state_digest(referee)}", file=out, flush=True)
        return referee
    return Referee.new_game(journal, config.seats, hands=hands, teaching=teaching)


def state_digest(referee: Referee) -> str:
    """A short fingerprint of the referee's game state (to compare states across a restart)."""
    import hashlib

    text = json.dumps(referee.game.state_to_json(referee.state), sort_keys=True)
    return hashlib.sha1(f"{referee.hand_number}:{text}".encode()).hexdigest()[:12]


def _fast_forward(camera: FrameSource, referee: Referee) -> None:
    """A simulated table restarted mid-game skips to where the journal is."""
    forward = getattr(camera, "fast_forward", None)
    if forward is not None:
        forward(referee.hand_number, len(referee.live.moves()))


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``ringside run``: referee a game at the table until the camera ends or Ctrl-C."""
    config = with_overrides(load_config(args.config), camera=args.camera, display=args.display, buttons=args.buttons)
    journal_path = Path(args.journal).expanduser() if args.journal else config.journal
    with ExitStack() as stack:
        journal = stack.enter_context(_journal(journal_path))
        referee = _referee(journal, config, args.hands, args.teaching, out)
        from firmware.app import RefereeLoop  # OpenCV and the model load only when the referee starts
        from vision.pipeline import Recognizer

        panels = open_panels(config.display.by_name(tuple(referee.live.players)))
        for panel in panels.values():
            stack.callback(panel.close)
        opener = camera_opener(config)

        def on_move(hand: int, number: int, text: str) -> None:
            print(f"accepted {hand}.{number}: {text}", file=out, flush=True)

        def open_and_forward() -> FrameSource:
            camera = opener()
            table = getattr(camera, "table", None)
            if table is not None and len(table.players) != len(referee.live.players):
                camera.close()
                raise RunError(f"the simulated table has {len(table.players)} seats but the game has "
                               f"{len(referee.live.players)} players: give seats={len(referee.live.players)} "
                               f"to the camera or name {len(table.players)} seats in the configuration")
            _fast_forward(camera, referee)
            attach = getattr(camera, "attach_buttons", None)
            if attach is not None:
                attach(loop.on_button)
            return camera

        loop = RefereeLoop(referee, open_and_forward, Recognizer(), panels, still_frames=args.still_frames,
                           on_move=on_move)
        stack.callback(loop.close)
        if config.buttons.backend != "none":
            from hardware.buttons import open_buttons

            buttons = open_buttons(config.buttons.backend, config.buttons.pins, loop.on_button,
                                   seats=len(referee.live.players))
            stack.callback(buttons.close)
            start = getattr(buttons, "start", None)
            if start is not None:
                start()
        try:
            stats = loop.run(args.max_frames)
        except KeyboardInterrupt:
            stats = loop.stats
        print(stats.summary(), file=out)
        if referee.mode is Mode.GAME_OVER:
            totals = referee.results()["totals"]
            print("final: " + ", ".join(f"{p} ${t}" for p, t in totals.items()), file=out)
    return EXIT_OK


def export(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``ringside export``: the journal's game as a RECORDS.md game record."""
    path = Path(args.journal).expanduser() if args.journal else load_config(args.config).journal
    if not path.exists():
        raise RunError(f"no journal at {path}")
    with _journal(path) as journal:
        ids = journal.game_ids()
        if not ids:
            raise RunError(f"the journal {path} holds no game")
        game_id = args.game if args.game is not None else ids[-1]
        if game_id not in ids:
            raise RunError(f"the journal {path} has no game {game_id} (games: {', '.join(map(str, ids))})")
        record = journal.export(game_id)
    write_output(json.dumps(record, indent=1), args.out, RunError, out)
    return EXIT_OK


# -- the demo ---------------------------------------------------------------------------


def demo(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``ringside demo``: a simulated Big Top game night, refereed through the camera, checked against the truth."""
    from firmware.app import RefereeLoop
    from firmware.simcamera import SimulatedCamera
    from firmware.tablesim import SimulatedTable
    from vision.pipeline import Recognizer

    if not 3 <= args.seats <= 6:
        raise RunError(f"Big Top is for 3 to 6 players, not --seats {args.seats}")
    if args.hands < 1:
        raise RunError("--hands must be at least 1")
    if args.illegal_every is not None and args.illegal_every < 2:
        raise RunError("--illegal-every must be at least 2")
    folder = Path(args.out)
    players = list(DEFAULT_NAMES[: args.seats])
    try:
        if (folder / "panels").exists():
            shutil.rmtree(folder / "panels")
        (folder / "panels").mkdir(parents=True, exist_ok=True)
        for name in ("journal.db", "journal.db-wal", "journal.db-shm"):
            (folder / name).unlink(missing_ok=True)
    except OSError as exc:
        raise RunError(f"cannot prepare {folder}: {exc.strerror or exc}") from None
    table = SimulatedTable(players, hands=args.hands, seed=args.seed, illegal_every=args.illegal_every)
    camera = SimulatedCamera(table)
    spec = DisplaySpec(driver=DisplayDriver.EMULATOR, emulator_mode=EmulatorMode.GIFANIM,
                       output=str(folder / "panels"))
    started = time.perf_counter()
    print(f"Ringside demo: {args.seats} seats ({', '.join(players)}), {args.hands} hands, seed {args.seed}"
          + (f", an illegal attempt every {args.illegal_every} moves" if args.illegal_every else ""), file=out)
    with ExitStack() as stack:
        journal = stack.enter_context(_journal(folder / "journal.db"))
        referee = Referee.new_game(journal, players, hands=args.hands)
        panels: dict[str, Panel] = open_panels({name: spec for name in [*players, "centre"]})
        for panel in panels.values():
            stack.callback(panel.close)
        count = [0]
        progress = _progress(out, referee, started, count, args.hands)
        loop = RefereeLoop(referee, lambda: camera, Recognizer(), panels, still_frames=3, on_move=progress)
        camera.attach_buttons(loop.on_button)
        stats = loop.run()
        loop.close()
        elapsed = time.perf_counter() - started
        print(file=out)
        record = journal.export()
        results = BigTop().replay(record)
        caught = sum(1 for line in referee.log if line.startswith("illegal "))
        _write(folder / "record.json", record)
        _write(folder / "truth.json", table.record)
    print(results.text, file=out)
    truth = BigTop().replay(table.record).data
    problems = _differences(record, table.record, results.data, truth)
    if referee.mode is not Mode.GAME_OVER:
        problems.append(f"the referee did not reach the end of the game (it is at: {referee.mode.value})")
    if caught != table.illegal_attempts:
        problems.append(f"{table.illegal_attempts} illegal attempts were made, the referee caught {caught}")
    print(stats.summary(), file=out)
    ms = [sum(v) for v in zip(*(stats.stage_ms[s] for s in stats.stage_ms if s != "read"))]
    if ms:
        ms.sort()
        print(f"frame to panels: median {ms[len(ms) // 2]:.0f} ms over {len(ms)} recognised frames", file=out)
    print(f"wrote {folder / 'panels'}/*.gif, {folder / 'journal.db'}, {folder / 'record.json'}; "
          f"{elapsed:.0f} s in all", file=out)
    if problems:
        for p in problems:
            print(f"DIFFERENCE: {p}", file=out)
        return EXIT_FAILED
    print(f"the referee agrees with the ground truth: every move, every hand, the totals"
          f"{f', and all {caught} illegal attempts caught' if caught else ''}", file=out)
    return EXIT_OK


def _progress(out: TextIO, referee: Referee, started: float, count: list[int],
              hands: int) -> Callable[[int, int, str], None]:
    def show(hand: int, number: int, text: str) -> None:
        count[0] += 1
        if count[0] % 25 == 0:
            print(f"  hand {referee.hand_number}/{hands}: {count[0]} moves accepted, "
                  f"{time.perf_counter() - started:.0f} s", file=out, flush=True)

    return show


def _write(path: Path, data: Any) -> None:
    try:
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror or exc}") from None


def _differences(record: Mapping[str, Any], truth_record: Mapping[str, Any], result: Mapping[str, Any],
                 truth: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    got_hands, want_hands = record.get("hands", []), truth_record.get("hands", [])
    if len(got_hands) != len(want_hands):
        problems.append(f"the referee recorded {len(got_hands)} hands, the game had {len(want_hands)}")
    for n, (got, want) in enumerate(zip(got_hands, want_hands), 1):
        if got.get("moves") != want.get("moves"):
            g, w = got.get("moves", []), want.get("moves", [])
            k = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
            problems.append(f"hand {n}: move {k + 1} differs: referee {g[k] if k < len(g) else 'nothing'!r}, "
                            f"truth {w[k] if k < len(w) else 'nothing'!r}")
        if got.get("investments") != want.get("investments"):
            problems.append(f"hand {n}: the tokens read at the end differ from the dealt ones")
    for n, (got, want) in enumerate(zip(result.get("hands", []), truth.get("hands", [])), 1):
        if got.get("players") != want.get("players"):
            problems.append(f"hand {n}: money differs: referee {got.get('players')}, truth {want.get('players')}")
    if result.get("totals") != truth.get("totals"):
        problems.append(f"totals differ: referee {result.get('totals')}, truth {truth.get('totals')}")
    return problems


# -- the command line ------------------------------------------------------------------


def _guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (RunError, ConfigError, JournalError, HardwareError, TableError) as exc:
            print(f"ringside {args.command}: {exc}", file=sys.stderr)
            return EXIT_INVALID
        except FileNotFoundError as exc:  # the model file, say
            print(f"ringside {args.command}: {exc}", file=sys.stderr)
            return EXIT_INVALID

    return call


def add_commands(sub: Any) -> None:
    """Add ``run``, ``export`` and ``demo`` to the ``ringside`` sub-command parser."""
    p = sub.add_parser("run", help="referee a game at the table (camera, panels, buttons)")
    p.add_argument("--config", help="the TOML configuration (default: built-in defaults)")
    p.add_argument("--camera", help="picamera2, opencv:N, video:FILE, images:DIR or simulated[:seats=4,seed=1]")
    p.add_argument("--display", help="ssd1306, sh1106, ssd1309, emulator or dummy")
    p.add_argument("--buttons", help="gpio, mock or keyboard")
    p.add_argument("--journal", help="the journal file (default: from the configuration)")
    p.add_argument("--hands", type=int, help="hands in a new game (default: each player deals once)")
    p.add_argument("--teaching", action="store_true",
                   help="teaching mode: hands lie open in front of each chart; holding a seat button "
                        "shows that seat's legal moves")
    p.add_argument("--still-frames", type=int, default=3, help="frames a view must hold still (default 3)")
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    p.set_defaults(func=_guarded(run))

    p = sub.add_parser("export", help="write the journal's game as a game record (RECORDS.md)")
    p.add_argument("--config", help="the TOML configuration that names the journal")
    p.add_argument("--journal", help="the journal file")
    p.add_argument("--game", type=int, help="the game number in the journal (default: the latest)")
    p.add_argument("--out", help="write the record to this file instead of standard output")
    p.set_defaults(func=_guarded(export))

    p = sub.add_parser("demo", help="a simulated Big Top game night, refereed through the camera")
    p.add_argument("--seats", type=int, default=4, help="players at the table, 3 to 6 (default 4)")
    p.add_argument("--hands", type=int, default=4, help="hands to play (default 4)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--illegal-every", type=int, metavar="K",
                   help="every K-th move, the simulated player first tries an illegal one")
    p.add_argument("--out", default="ringside-demo", help="folder for the GIFs, journal and records")
    p.set_defaults(func=_guarded(demo))
