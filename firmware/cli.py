"""The ``ringside`` command line.

Every user mistake (a missing file, bad JSON, an invalid record) ends in one
line on stderr and exit status 2; an illegal move in a record is exit status 3.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import scorer
from scorer.core import DEFAULT_NAMES, TableError

EXIT_OK, EXIT_INVALID, EXIT_ILLEGAL = 0, 2, 3


class UsageError(Exception):
    """A mistake in how the command was called (exit status 2)."""


def write_output(text: str, path: str | None, error: type[Exception], out: TextIO | None = None) -> None:
    """Write ``text`` to the file ``path`` (saying so on stderr), or print it when ``path`` is None.

    :raises error: with one line when the file cannot be written.
    """
    if not path:
        print(text, file=out if out is not None else sys.stdout)
        return
    try:
        Path(path).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"wrote {path}", file=sys.stderr)


def _read_json(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise UsageError(f"{path} is nested too deeply to be a record (more than {MAX_DEPTH} levels)") from None
    if _depth_exceeds(data, MAX_DEPTH):
        raise UsageError(f"{path} is nested too deeply to be a record (more than {MAX_DEPTH} levels)")
    return data


#: No record or position nests its JSON deeper than this; deeper input is refused
#: before any rules engine reads it, so nothing downstream can recurse without end.
MAX_DEPTH = 64


def _depth_exceeds(data: Any, limit: int) -> bool:
    """True when ``data`` nests lists and objects more than ``limit`` levels deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _game_of(data: Any, path: str) -> scorer.Game[Any, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise UsageError(f"{path}: a record is a JSON object with a \"game\" field")
    return scorer.get(data["game"])


def _print_report(report: scorer.ReplayReport, as_json: bool) -> int:
    if as_json:
        print(json.dumps(report.data, indent=None if report.illegal else 2))
    else:
        print(report.text)
    return report.exit_status


#: The game whose component values a user file may change (``--components``).
COMPONENTS_GAME = "grand-carnival"


def _with_components(game: scorer.Game[Any, Any], path: str | None, use_default: bool) -> scorer.Game[Any, Any]:
    """``game`` playing with the user's component values (``--components`` or the default file).

    :raises UsageError: when ``--components`` is given for another game.
    :raises TableError: one line naming the file and the key when the file is not valid.
    """
    if game.name != COMPONENTS_GAME:
        if path is not None:
            raise UsageError(f"--components applies to grand-carnival only, not {game.name}")
        return game
    if path is None and not use_default:
        return game
    from firmware.components import user_values

    values, source = user_values(path)
    if values is None:
        return game
    result: scorer.Game[Any, Any] = type(game)(values, source)  # type: ignore[call-arg]
    return result


def cmd_replay(args: argparse.Namespace) -> int:
    """``ringside replay FILE [--json] [--components FILE]``.

    A record is replayed with the component values it carries (or the shipped
    ones); ``--components`` puts a file's values over them.
    """
    data = _read_json(args.file)
    game = _game_of(data, args.file)
    if args.components is not None:
        if game.name != COMPONENTS_GAME:
            raise UsageError(f"--components applies to grand-carnival only, not {game.name}")
        from firmware.components import load_components
        from scorer.grand_carnival import GrandCarnival
        from scorer.grand_carnival.components import merge_components

        values, source = load_components(args.components)
        played = GrandCarnival().for_record(data)
        game = GrandCarnival(merge_components(played.components, values or {}, source), source)
        data = {key: value for key, value in data.items() if key != "components"}
    return _print_report(game.replay(data), args.json)


def _score_photo(args: argparse.Namespace) -> int:
    """``ringside score carcassonne PHOTO --colors red=Ann,blue=Ben [--json] [--annotate OUT.png]``."""
    import cv2

    from vision import VisionError
    from vision.carcassonne.classifier import TileClassifier
    from vision.carcassonne.recognize import recognize
    from vision.carcassonne.scoring import IllegalPosition, annotate_scores, parse_colors, score_reading
    from vision.images import load_image

    if not args.colors:
        raise UsageError("score carcassonne needs --colors, e.g. --colors red=Ann,blue=Ben")
    try:
        colors = parse_colors(args.colors)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        photo = load_image(args.file)
        reading = recognize(photo, TileClassifier())
    except VisionError as exc:
        raise UsageError(str(exc)) from None
    try:
        result, _ = score_reading(reading, colors)
    except IllegalPosition as exc:
        print(f"ringside: not a legal position: {exc}", file=sys.stderr)
        return EXIT_ILLEGAL
    if args.annotate:
        try:
            written = cv2.imwrite(str(args.annotate), annotate_scores(photo, reading, result))
        except cv2.error:
            written = False
        if not written:
            raise UsageError(f"cannot write {args.annotate}")
    print(json.dumps(result.to_json(), indent=2) if args.json else result.describe())
    return EXIT_OK


def cmd_score(args: argparse.Namespace) -> int:
    """``ringside score GAME FILE... [--json] [--components FILE] [--annotate OUT.png]``.

    Carcassonne scores one photo of the board (``--colors`` says who plays which
    colour). The Grand Carnival also scores photos (one per market, or one of the
    whole table): the markets are recognised and scored as a position.
    """
    if args.game == "carcassonne":
        if len(args.file) != 1:
            raise UsageError("score carcassonne takes one photo of the board")
        args.file = args.file[0]
        return _score_photo(args)
    if args.colors:
        raise UsageError("--colors is for score carcassonne PHOTO")
    game = _with_components(scorer.get(args.game), args.components, True)
    files: list[str] = args.file
    photos = game.name == COMPONENTS_GAME and any(_is_photo(f) for f in files)
    if not photos:
        if len(files) > 1:
            raise UsageError("give one position file (several files are photos of Grand Carnival markets)")
        if args.annotate is not None:
            raise UsageError("--annotate applies to photos of Grand Carnival markets")
        return _print_report(game.score_position(_read_json(files[0])), args.json)
    return _score_photos(game, files, args.annotate, args.json)


def _is_photo(path: str) -> bool:
    from vision.grand_carnival.cli import PHOTO_SUFFIXES

    return Path(path).suffix.lower() in PHOTO_SUFFIXES


def _score_photos(game: scorer.Game[Any, Any], files: list[str], annotate: str | None, as_json: bool) -> int:
    """Recognise the markets in the photos and score them; ``annotate``: where to draw what scored."""
    from vision import VisionError
    from vision.cli import ANNOTATE_SUFFIXES

    if not all(_is_photo(f) for f in files):
        raise UsageError("give either photos of markets or one position file, not both")
    if annotate is not None:
        if Path(annotate).suffix.lower() not in ANNOTATE_SUFFIXES:
            raise UsageError(f"--annotate must name an image file ending in {', '.join(ANNOTATE_SUFFIXES)}")
        folder = Path(annotate).parent
        if not folder.is_dir():
            raise UsageError(f"cannot write {annotate}: no such folder: {folder}")
    import cv2

    from vision.grand_carnival.cli import annotate_scores, positions_from_photos

    try:
        position, frames = positions_from_photos([Path(f) for f in files], getattr(game, "catalog", None),
                                                 annotate is not None)
    except VisionError as exc:
        raise UsageError(str(exc)) from None
    report = game.score_position(position)
    if annotate is not None:
        targets = _annotate_targets(Path(annotate), len(frames))
        for (frame, result), target in zip(frames, targets):
            drawn = annotate_scores(frame, result, report.data["players"])
            try:
                written = cv2.imwrite(str(target), drawn)
            except cv2.error:
                written = False
            if not written:
                raise UsageError(f"cannot write {target}")
        if len(targets) > 1:
            print(f"wrote {targets[0]} to {targets[-1]}, one per photo in the order given", file=sys.stderr)
    return _print_report(report, as_json)


def _annotate_targets(out: Path, photos: int) -> list[Path]:
    """Where the marked photos go: ``out`` itself for one photo, else ``OUT-01.png``, ``OUT-02.png``..."""
    if photos == 1:
        return [out]
    return [out.with_name(f"{out.stem}-{i:02d}{out.suffix}") for i in range(1, photos + 1)]


def cmd_simulate(args: argparse.Namespace) -> int:
    """``ringside simulate GAME [--players N] [--seed S] [--hands H] [--out FILE]``."""
    game = _with_components(scorer.get(args.game), args.components, True)
    lo, hi = game.info.min_players, game.info.max_players
    count = args.players if args.players is not None else max(lo, min(4, hi))
    if not lo <= count <= min(hi, len(DEFAULT_NAMES)):
        raise UsageError(f"{game.info.title} is for {lo} to {hi} players, not {count}")
    players = list(DEFAULT_NAMES[:count])
    if args.hands is not None and args.hands < 1:
        raise UsageError("--hands must be at least 1")
    record = game.simulate(players=players, rng=random.Random(args.seed), hands=args.hands)
    write_output(json.dumps(record, indent=1), args.out, UsageError)
    return EXIT_OK


#: The commands whose arguments `vision.cli` parses itself (``ringside print --help`` is its help).
VISION_COMMANDS = ("print", "recognize", "train")


def _vision(name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return _run_vision(name, args.rest)

    return run


def _run_vision(command: str, argv: list[str]) -> int:
    vision_cli = importlib.import_module("vision.cli")
    if command in ("print", "recognize"):
        from firmware.components import user_values

        run: Callable[..., int] = getattr(vision_cli, f"cmd_{command}")
        return run(argv, components=user_values)
    func: Callable[[list[str]], int] = getattr(vision_cli, f"cmd_{command}")
    return func(argv)


_COMPONENTS_HELP = "grand-carnival: component values (TOML, keys of components.toml)"
_COMPONENTS_DEFAULT = "; default ~/.config/ringside/grand-carnival.toml when it exists"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``ringside``."""
    parser = argparse.ArgumentParser(
        prog="ringside",
        description="Ringside: a camera referee and scorer for circus-themed table games.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="replay a game record and print the result")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--components", metavar="FILE", help=_COMPONENTS_HELP + " over the record's own")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("simulate", help="play random legal games and write the record")
    p.add_argument("game", help="bigtop, fantan, circus-grandioso, flohcati, grand-carnival, carcassonne")
    p.add_argument("--players", type=int, help="number of players")
    p.add_argument("--seed", type=int, default=0, help="random seed (the same seed gives the same record)")
    p.add_argument("--hands", type=int, help="hands to play (Big Top, Fan Tan)")
    p.add_argument("--out", help="write the record to this file instead of standard output")
    p.add_argument("--components", metavar="FILE", help=_COMPONENTS_HELP + _COMPONENTS_DEFAULT)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("score", help="score an end-of-game position (carcassonne: a photo of the board; "
                                     "grand-carnival: or photos of the markets)")
    p.add_argument("game", help="flohcati, grand-carnival or carcassonne")
    p.add_argument("file", nargs="+", help="the position (JSON), or - for standard input; carcassonne: one photo "
                                           "of the board; grand-carnival: or photos (.png, .jpg) of the markets, "
                                           "one per market or one of the table")
    p.add_argument("--colors", help="carcassonne: who plays which colour, e.g. red=Ann,blue=Ben")
    p.add_argument("--annotate", metavar="OUT.png", help="a photo: write it with what scored marked (carcassonne: "
                   "every scored feature and field coloured by owner with its points; grand-carnival, several photos: "
                   "OUT-01.png, OUT-02.png... one per photo)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--components", metavar="FILE", help=_COMPONENTS_HELP + _COMPONENTS_DEFAULT)
    p.set_defaults(func=cmd_score)

    for name, help_text in (
        ("print", "print true-size component sheets (PDF)"),
        ("recognize", "recognise the components in a camera image"),
        ("train", "train the component classifier"),
    ):
        p = sub.add_parser(name, help=help_text, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=_vision(name))

    from firmware.enroll import add_commands as add_enroll_commands
    from firmware.runner import add_commands

    add_commands(sub)
    add_enroll_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ringside``; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if words and words[0] == "print" and "--enroll" in words[1:]:
            from firmware.enroll_table import cmd_print_enroll

            return cmd_print_enroll(words[1:])
        if words and words[0] in VISION_COMMANDS:
            # Handed over whole, so that options may come before the game name and --help works.
            return _run_vision(words[0], words[1:])
        args = build_parser().parse_args(words)
        result: int = args.func(args)
        return result
    except (UsageError, TableError) as exc:
        print(f"ringside: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except RecursionError:
        print("ringside: the input is nested too deeply to be read", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


def entry_point() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
