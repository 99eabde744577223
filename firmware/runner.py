"""``ringside run``, ``ringside export`` and ``ringside demo``, for every game with a table adapter.

``run`` is the referee at the table: configuration, journal (resuming the
game in progress), camera, buttons and panels around `firmware.app.RefereeLoop`.
``demo`` is a whole simulated game night on this machine: the game's
simulated table renders camera frames, the real vision pipeline and referee
judge them, the panels are emulated (one animated GIF each), and the result
is checked against the simulation's ground truth.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from firmware.cli import COMPONENTS_GAME, write_output
from firmware.config import ConfigError, RingsideConfig, describe_source, load_config, with_overrides
from firmware.journal import Journal, JournalError
from firmware.referee import Mode, Referee
from firmware.table import TableAdapter, adapter, adapter_names
from hardware.camera import FrameSource, open_camera, register_camera
from hardware.display import DisplayDriver, DisplaySpec, EmulatorMode, Panel, open_panels
from hardware.errors import HardwareError
from scorer.core import DEFAULT_NAMES, TableError

__all__ = ["add_commands", "camera_opener", "demo", "run", "state_digest"]

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


class RunError(Exception):
    """A mistake in the set-up (exit status 2, one line)."""


def camera_opener(config: RingsideConfig, table: TableAdapter[Any, Any] | None = None) -> Callable[[], FrameSource]:
    """How to open (and reopen) the configured camera; ``simulated`` films ``table``'s game (default: the config's)."""
    source = config.camera.source
    register_camera("simulated", (table or adapter(config.game)).open_simulated)

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


def _referee(journal: Journal, config: RingsideConfig, table: TableAdapter[Any, Any], source: str,
             hands: int | None, teaching: bool, deck: str | None, out: TextIO) -> tuple[Referee, Any]:
    """The game in progress of ``table``'s game, or a new one played by ``table`` (with the component values
    of ``source``, a user's file, or the shipped ones when ""), and the recogniser that reads it (with the
    enrolled ``deck`` when given).

    A deck the game cannot use is refused before a new game is written to the journal.
    """
    from firmware.enroll import perceiver_for

    referee = Referee.resume(journal, teaching=teaching, game=table.game.name)
    if referee is not None:
        players = ", ".join(referee.live.players)
        print(f"resuming the game of {referee.game.info.title} in progress: {players}, "
              f"{_part(referee)}, {len(referee.live.moves())} moves, state {state_digest(referee)}",
              file=out, flush=True)
        from firmware.components import resume_notice

        notice = resume_notice(referee.game, table.game, source)
        if notice:
            print(notice, file=out, flush=True)
        return referee, perceiver_for(referee.table, deck)
    perceiver = perceiver_for(table, deck)
    other = journal.resume()
    if other is not None:
        print(f"the {other.game.info.title} game in progress stays in the journal: it resumes when "
              f"{other.game.name} is played again; starting {table.game.info.title}", file=out, flush=True)
    _say_values(table, source, out)
    return Referee.new_game(journal, config.seats, table=table, parts=hands, teaching=teaching), perceiver


def _say_values(table: TableAdapter[Any, Any], source: str, out: TextIO) -> None:
    """Name the user's component values a new game is played with (nothing with the shipped ones)."""
    if source:
        from firmware.components import values_line

        print(values_line(table.game, source), file=out, flush=True)


def _with_components(table: TableAdapter[Any, Any], path: str | None) -> tuple[TableAdapter[Any, Any], str]:
    """``table`` playing with the user's component values (``--components FILE``, else the user's file when
    it exists: The Grand Carnival only) and the file they came from ("": the shipped values).

    :raises RunError: when ``--components`` is given for another game.
    :raises TableError: one line naming the file and the key when the file is not valid.
    """
    if table.game.name != COMPONENTS_GAME:
        if path is not None:
            raise RunError(f"--components applies to grand-carnival only, not {table.game.name}")
        return table, ""
    from firmware.components import user_values
    from scorer.grand_carnival import GrandCarnival

    values, source = user_values(path)
    if values is None:
        return table, ""
    return table.for_game(GrandCarnival(values, source)), source


def _part(referee: Referee) -> str:
    word = referee.table.part_word
    return f"{word} {referee.part_number}" if word else "one game"


def state_digest(referee: Referee) -> str:
    """A short fingerprint of the referee's game state (to compare states across a restart)."""
    import hashlib

    text = json.dumps(referee.game.state_to_json(referee.state), sort_keys=True)
    return hashlib.sha1(f"{referee.part_number}:{text}".encode()).hexdigest()[:12]


def _fast_forward(camera: FrameSource, referee: Referee) -> None:
    """A simulated table restarted mid-game skips to where the journal is."""
    forward = getattr(camera, "fast_forward", None)
    if forward is not None:
        forward(referee.part_number, len(referee.live.moves()))


def _start_web(address: str | None, token: str | None, stack: ExitStack, out: TextIO) -> Any:
    """Serve the scoreboard page when an address is given (and say where it is); None otherwise."""
    if not address:
        return None
    from firmware.web import WebError, WebServer, parse_address

    try:
        host, port = parse_address(address)
        server = WebServer(host, port, token=token)
        url = server.start()
    except WebError as exc:
        raise RunError(str(exc)) from None
    stack.callback(server.close)
    print(f"scoreboard page: {url}" + ("" if server.token is None else " (the token is needed: keep it)"),
          file=out, flush=True)
    return server


def _check_counts(args: argparse.Namespace, table: TableAdapter[Any, Any]) -> None:
    """--hands, --still-frames and --seed as a user may give them."""
    hands = getattr(args, "hands", None)
    if hands is not None:
        if not table.part_word:
            raise RunError(f"--hands is for games played in hands; {table.game.info.title} is played in one go")
        if hands < 1:
            raise RunError(f"--hands must be 1 or more, not {hands}")
    still = getattr(args, "still_frames", None)
    if still is not None and still < 1:
        raise RunError(f"--still-frames must be 1 or more, not {still}")
    seed = getattr(args, "seed", None)
    if seed is not None and seed < 0:
        raise RunError(f"--seed must be 0 or more, not {seed}")
    frames = getattr(args, "max_frames", None)
    if frames is not None and frames < 0:
        raise RunError(f"--max-frames must be 0 or more, not {frames}")


def _with_game(config: RingsideConfig, name: str | None) -> RingsideConfig:
    """The configuration with ``--game`` applied (the seats must suit the game)."""
    if name is None:
        return config
    table = adapter(name)
    table.check_players(config.seats)
    return dataclasses.replace(config, game=table.game.name)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ringside run``: referee a game at the table until the camera ends or Ctrl-C."""
    out = out if out is not None else sys.stdout
    config = with_overrides(load_config(args.config), camera=args.camera, display=args.display, buttons=args.buttons)
    config = _with_game(config, args.game)
    _check_counts(args, adapter(config.game))
    # the user's component file is read (and refused, in one line) before anything is written
    table, source = _with_components(adapter(config.game), getattr(args, "components", None))
    address: str | None = args.web or config.web.address
    if address:
        from firmware.web import WebError, parse_address

        try:
            parse_address(address)
        except WebError as exc:
            raise RunError(str(exc)) from None
    journal_path = Path(args.journal).expanduser() if args.journal else config.journal
    print(describe_source(config), file=out, flush=True)
    with ExitStack() as stack:
        journal = stack.enter_context(_journal(journal_path))
        referee, perceiver = _referee(journal, config, table, source, args.hands, args.teaching,
                                      getattr(args, "deck", None), out)
        from firmware.app import RefereeLoop  # OpenCV and the model load only when the referee starts

        panels = open_panels(config.display.by_name(tuple(referee.live.players)))
        for panel in panels.values():
            stack.callback(panel.close)
        opener = camera_opener(config, referee.table)

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

        def notice(text: str) -> None:
            print(text, file=out, flush=True)

        web = _start_web(args.web or config.web.address, config.web.token, stack, out)
        loop = RefereeLoop(referee, open_and_forward, perceiver, panels,
                           still_frames=args.still_frames, on_move=on_move, on_notice=notice, web=web)
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
            print(referee.table.final_text(referee.results(), referee.live.players), file=out)
    return EXIT_OK


def export(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ringside export``: the journal's game as a game record (docs/records.md)."""
    out = out if out is not None else sys.stdout
    path = Path(args.journal).expanduser() if args.journal else load_config(args.config).journal
    with Journal.open_readonly(path) as journal:
        ids = journal.game_ids()
        if not ids:
            raise RunError(f"the journal {path} holds no game")
        game_id = _pick_game(journal, ids, args.game, path)
        record = journal.export(game_id)
    write_output(json.dumps(record, indent=1), args.out, RunError, out)
    return EXIT_OK


def _pick_game(journal: Journal, ids: list[int], wanted: str | None, path: Path) -> int:
    """``--game``: a game's number in the journal, or a game's name (its latest game); default the latest."""
    if wanted is None:
        return ids[-1]
    if wanted.strip().isdigit():
        number = int(wanted)
        if number not in ids:
            raise RunError(f"the journal {path} has no game {number} (games: {', '.join(map(str, ids))})")
        return number
    name = adapter(wanted).game.name
    of_kind = [i for i in ids if journal.game(i).game.name == name]
    if not of_kind:
        raise RunError(f"the journal {path} holds no game of {adapter(wanted).game.info.title}")
    return of_kind[-1]


# -- the demo ---------------------------------------------------------------------------


def demo(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ringside demo``: a simulated game night, refereed through the camera, checked against the truth."""
    out = out if out is not None else sys.stdout
    from firmware.app import RefereeLoop

    table = adapter(args.game)
    _check_counts(args, table)
    table, source = _with_components(table, getattr(args, "components", None))
    if args.illegal_every is not None and args.illegal_every < 2:
        raise RunError("--illegal-every must be at least 2")
    seats = args.seats if args.seats is not None else table.demo_seats
    players = list(DEFAULT_NAMES[:seats]) if 1 <= seats <= len(DEFAULT_NAMES) else \
        [f"P{i + 1}" for i in range(max(seats, 0))]
    table.check_players(players)
    from firmware.enroll import perceiver_for

    # the deck is loaded (and refused, in one line) before the demo's folder is written
    perceiver = perceiver_for(table, getattr(args, "deck", None))
    parts = args.hands if args.hands is not None else (4 if table.part_word else 1)
    folder = Path(args.out)
    try:
        for sub in ("panels", "frames"):
            if (folder / sub).exists():
                shutil.rmtree(folder / sub)
            (folder / sub).mkdir(parents=True, exist_ok=True)
        for name in ("journal.db", "journal.db-wal", "journal.db-shm"):
            (folder / name).unlink(missing_ok=True)
    except OSError as exc:
        raise RunError(f"cannot prepare {folder}: {exc.strerror or exc}") from None
    night = table.simulated_night(players, parts, args.seed, args.illegal_every)
    camera = night.camera()
    spec = DisplaySpec(driver=DisplayDriver.EMULATOR, emulator_mode=EmulatorMode.GIFANIM,
                       output=str(folder / "panels"))
    started = time.perf_counter()
    planned = f"{parts} {table.part_word}{'s' if parts != 1 else ''}, " if table.part_word else ""
    print(f"Ringside demo: {table.game.info.title}, {len(players)} seats ({', '.join(players)}), {planned}"
          f"seed {args.seed}" + (f", an illegal attempt every {args.illegal_every} moves" if args.illegal_every else ""),
          file=out)
    _say_values(table, source, out)
    with ExitStack() as stack:
        journal = stack.enter_context(_journal(folder / "journal.db"))
        referee = Referee.new_game(journal, players, table=table, parts=parts)
        panels: dict[str, Panel] = open_panels({name: spec for name in [*players, "centre"]})
        for panel in panels.values():
            stack.callback(panel.close)
        count = [0]
        progress = _progress(out, referee, started, count, parts)
        web = _start_web(args.web, None, stack, out)
        loop = RefereeLoop(referee, lambda: camera, perceiver, panels, still_frames=3, on_move=progress,
                           snapshots=folder / "frames", web=web)
        attach = getattr(camera, "attach_buttons", None)
        if attach is not None:
            attach(loop.on_button)
        stats = loop.run()
        loop.close()
        elapsed = time.perf_counter() - started
        print(file=out)
        if web is not None and args.web_hold > 0:
            print(f"the page stays up for {args.web_hold:g} s (Ctrl-C to stop)", file=out, flush=True)
            try:
                time.sleep(args.web_hold)
            except KeyboardInterrupt:
                pass
        record = journal.export()
        results = table.game.replay(record)
        caught = sum(1 for line in referee.log if line.startswith("illegal "))
        _write(folder / "record.json", record)
        _write(folder / "truth.json", night.record)
    print(results.text, file=out)
    problems = table.differences(record, night.record)
    if referee.mode is not Mode.GAME_OVER:
        problems.append(f"the referee did not reach the end of the game (it is at: {referee.mode.value})")
    if caught != night.illegal_attempts:
        problems.append(f"{night.illegal_attempts} illegal attempts were made, the referee caught {caught}")
    print(stats.summary(), file=out)
    ms = [sum(v) for v in zip(*(stats.stage_ms[s] for s in stats.stage_ms if s != "read"))]
    if ms:
        ms.sort()
        print(f"frame to panels: median {ms[len(ms) // 2]:.0f} ms over {len(ms)} recognised frames", file=out)
    print(f"central panel: {referee.last_event}", file=out)
    print(f"wrote {folder / 'panels'}/*.gif, {folder / 'frames'}/*.jpg (what the camera saw at each judgement), "
          f"{folder / 'journal.db'}, {folder / 'record.json'}; {elapsed:.0f} s in all", file=out)
    if problems:
        for p in problems:
            print(f"DIFFERENCE: {p}", file=out)
        return EXIT_FAILED
    print(f"the referee agrees with the ground truth: every move, every {table.part_word or 'score'}, the totals"
          f"{f', and all {caught} illegal attempts caught' if caught else ''}", file=out)
    return EXIT_OK


def _progress(out: TextIO, referee: Referee, started: float, count: list[int],
              parts: int) -> Callable[[int, int, str], None]:
    word = referee.table.part_word

    def show(part: int, number: int, text: str) -> None:
        count[0] += 1
        if count[0] % 25 == 0:
            where = f"{word} {referee.part_number}/{parts}: " if word else ""
            print(f"  {where}{count[0]} moves accepted, {time.perf_counter() - started:.0f} s", file=out, flush=True)

    return show


def _write(path: Path, data: Any) -> None:
    try:
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror or exc}") from None


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
    games = ", ".join(adapter_names())
    p = sub.add_parser("run", help="referee a game at the table (camera, panels, buttons)")
    p.add_argument("--config", help="the TOML configuration (default: built-in defaults)")
    p.add_argument("--game", help=f"the game to referee ({games}; default: the configuration's)")
    p.add_argument("--components", metavar="FILE",
                   help="grand-carnival: component values over the shipped components.toml (default: "
                        "~/.config/ringside/grand-carnival.toml when it exists); a game in progress goes on with "
                        "the values it was started with")
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
    p.add_argument("--web", metavar="[HOST:]PORT",
                   help="serve the read-only scoreboard page (PORT alone: this machine only; another host "
                        "needs the access token printed at start)")
    p.add_argument("--deck", metavar="NAME|DIR",
                   help="read the components with an enrolled deck (ringside enroll) where the recogniser reads art")
    p.set_defaults(func=_guarded(run))

    p = sub.add_parser("export", help="write the journal's game as a game record (RECORDS.md)")
    p.add_argument("--config", help="the TOML configuration that names the journal")
    p.add_argument("--journal", help="the journal file")
    p.add_argument("--game", help="a game's number in the journal, or a game's name for its latest game "
                                  "(default: the latest game)")
    p.add_argument("--out", help="write the record to this file instead of standard output")
    p.set_defaults(func=_guarded(export))

    p = sub.add_parser("demo", help="a simulated game night, refereed through the camera (about a minute)")
    p.add_argument("--game", default="bigtop", help=f"the game ({games}; default bigtop)")
    p.add_argument("--components", metavar="FILE",
                   help="grand-carnival: component values over the shipped components.toml (default: "
                        "~/.config/ringside/grand-carnival.toml when it exists), played, drawn and read alike")
    p.add_argument("--seats", type=int, help="players at the table (default 4; The Grand Carnival 2)")
    p.add_argument("--hands", type=int, help="hands to play, in games played in hands (default 4)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--illegal-every", type=int, metavar="K",
                   help="every K-th move, the simulated player first tries an illegal one")
    p.add_argument("--out", default="ringside-demo", help="folder for the GIFs, journal and records")
    p.add_argument("--web", metavar="[HOST:]PORT", help="serve the scoreboard page while the demo plays")
    p.add_argument("--web-hold", type=float, default=0.0, metavar="SECONDS",
                   help="keep the page up this long after the demo ends (default 0)")
    p.add_argument("--deck", metavar="NAME|DIR",
                   help="read the components with an enrolled deck (ringside enroll) where the recogniser reads art")
    p.set_defaults(func=_guarded(demo))
