"""Command-line entry points: ``ringside print``, ``ringside recognize``, ``ringside train``.

Each takes its argument list and returns the exit status: ``--help`` prints the
help and returns 0, and options may come before or after the game name. A
user's mistake (unreadable image, no mat in view, missing model, a file that
cannot be written) prints one line on stderr and returns 2.

OpenCV, the model and torch are imported only when a command runs, never for
``--help``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vision import VisionError

__all__ = ["ANNOTATE_SUFFIXES", "DPI_RANGE", "cmd_print", "cmd_recognize", "cmd_train"]

#: The file types ``recognize --annotate`` writes (OpenCV picks the format by the suffix).
ANNOTATE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
#: The resolutions ``print --dpi`` accepts: 72 is a quick draft; above 300 a home printer
#: prints these sheets no finer, and each page costs memory a Pi should not spend.
DPI_RANGE = (72.0, 300.0)


#: The games ``ringside print`` makes sheets for, and the module of each (``print_sheets(out, dpi) -> str``).
PRINTABLE: dict[str, str] = {
    "bigtop": "vision.bigtop.cli",
    "flohcati": "vision.flohcati.cli",
    "grand-carnival": "vision.grand_carnival.cli",
    "grandioso": "vision.grandioso.cli",
}
#: The games ``ringside recognize`` reads, and the module of each
#: (``recognize(frame, model, annotate) -> (json, text, annotated frame or None)``).
RECOGNISABLE: dict[str, str] = {
    "bigtop": "vision.bigtop.cli",
    "carcassonne": "vision.carcassonne.cli",
    "flohcati": "vision.flohcati.cli",
    "grand-carnival": "vision.grand_carnival.cli",
    "grandioso": "vision.grandioso.cli",
}


def _fail(prog: str, message: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """The parsed arguments, or the exit status when argparse stopped (``--help``: 0, a mistake: 2)."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def _writable(path: Path) -> str | None:
    """Why ``path`` cannot be written, or None when it can (nothing is created or changed)."""
    folder = path.parent
    if path.is_dir():
        return f"{path} is a folder"
    if not folder.is_dir():
        return f"no such folder: {folder}"
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "permission denied"
    return None


#: Reads the Grand Carnival component values for ``--components FILE`` (None: the user's default
#: file): the whole set of values and their file, or ``(None, "")`` for the shipped ones; a bad
#: file raises one line (a `scorer.core.TableError`). ``ringside`` passes its own reader.
ComponentsReader = Callable[[str | None], tuple[Mapping[str, Any] | None, str]]

_COMPONENTS_HELP = ("grand-carnival: component values (TOML, keys of components.toml); "
                    "default ~/.config/ringside/grand-carnival.toml when it exists")


def _components(game: str, path: str | None,
                reader: ComponentsReader | None) -> tuple[Mapping[str, Any] | None, str] | str:
    """The component values for ``game`` (``(None, "")``: the shipped ones), or why ``--components`` is refused."""
    if game != "grand-carnival":
        return f"--components applies to grand-carnival only, not {game}" if path is not None else (None, "")
    if reader is None:
        return "--components needs the ringside command" if path is not None else (None, "")
    return reader(path)


def print_parser(prog: str = "ringside print") -> argparse.ArgumentParser:
    """The arguments of ``ringside print``."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Write true-size A4 sheets of a game's components. A .pdf is one document; "
                    "a .png is one file per page (sheets.png writes sheets-01.png, sheets-02.png, ...).",
    )
    p.add_argument("game", choices=sorted(PRINTABLE), help="the game to print")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.pdf|FILE.png",
                   help="the PDF to write, or the PNG name whose numbered pages are written")
    p.add_argument("--dpi", type=float, default=200.0,
                   help=f"resolution of the sheets, {DPI_RANGE[0]:.0f} to {DPI_RANGE[1]:.0f} (default 200)")
    p.add_argument("--components", metavar="FILE", help=_COMPONENTS_HELP)
    return p


def cmd_print(argv: list[str], components: ComponentsReader | None = None) -> int:
    """``ringside print GAME --out FILE.pdf|FILE.png [--dpi N] [--components FILE]``: true-size printable sheets.

    ``components`` reads the Grand Carnival's component values (`ComponentsReader`); without it
    the shipped values are printed. A bad components file raises `scorer.core.TableError`.
    """
    prog = "ringside print"
    args = _parse(print_parser(prog), argv)
    if isinstance(args, int):
        return args
    lo, hi = DPI_RANGE
    if not lo <= args.dpi <= hi:
        return _fail(prog, f"--dpi must be between {lo:.0f} and {hi:.0f}, not {args.dpi:g}")
    out: Path = args.out
    kind = out.suffix.lower()
    if kind not in (".pdf", ".png"):
        return _fail(prog, f"--out must end in .pdf (one document) or .png (one file per page), not {out.name!r}")
    why = _writable(out)
    if why is not None:
        return _fail(prog, f"cannot write {out}: {why}")
    values = _components(args.game, args.components, components)
    if isinstance(values, str):
        return _fail(prog, values)
    game = importlib.import_module(PRINTABLE[args.game])
    try:
        if values[0] is not None:
            print(game.print_sheets(out, args.dpi, values=values[0], source=values[1]))
        else:
            print(game.print_sheets(out, args.dpi))
    except OSError as exc:
        return _fail(prog, f"cannot write {exc.filename or out}: {exc.strerror or exc}")
    return 0


def recognize_parser(prog: str = "ringside recognize") -> argparse.ArgumentParser:
    """The arguments of ``ringside recognize``."""
    p = argparse.ArgumentParser(prog=prog, description="Recognise the components in a photo of the table.")
    p.add_argument("image", type=Path, help="photo of the table (PNG, JPEG, ...)")
    p.add_argument("--game", choices=sorted(RECOGNISABLE), default="bigtop")
    p.add_argument("--json", action="store_true", help="print the TableView as JSON")
    p.add_argument("--annotate", type=Path, metavar="OUT.png",
                   help=f"write the frame with every detection drawn ({', '.join(ANNOTATE_SUFFIXES)})")
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default: the shipped one)")
    p.add_argument("--deck", metavar="NAME|DIR", default=None,
                   help="read the cards with an enrolled deck (ringside enroll) instead of the shipped model")
    p.add_argument("--components", metavar="FILE", help=_COMPONENTS_HELP)
    return p


def cmd_recognize(argv: list[str], components: ComponentsReader | None = None) -> int:
    """``ringside recognize IMAGE --game GAME [--json] [--annotate OUT.png] [--model FILE] [--components FILE]``.

    ``components``: as for `cmd_print`; the Grand Carnival's boards are read with those values.
    """
    prog = "ringside recognize"
    args = _parse(recognize_parser(prog), argv)
    if isinstance(args, int):
        return args
    if args.annotate is not None:
        if args.annotate.suffix.lower() not in ANNOTATE_SUFFIXES:
            return _fail(prog, f"--annotate must name an image file ending in {', '.join(ANNOTATE_SUFFIXES)}, "
                               f"not {args.annotate.name!r}")
        why = _writable(args.annotate)
        if why is not None:
            return _fail(prog, f"cannot write {args.annotate}: {why}")
    values = _components(args.game, args.components, components)
    if isinstance(values, str):
        return _fail(prog, values)
    extra: dict[str, Any] = {} if values[0] is None else {"values": values[0], "source": values[1]}
    import cv2

    from vision.images import load_image

    game = importlib.import_module(RECOGNISABLE[args.game])
    try:
        deck = _deck(args.deck, args.game, args.model) if args.deck is not None else None
        frame = load_image(args.image)
        if deck is not None:
            extra["classifier"] = deck
        data, text, annotated = game.recognize(frame, args.model, args.annotate is not None, **extra)
    except VisionError as exc:
        return _fail(prog, str(exc))
    if args.annotate is not None and annotated is not None:
        try:
            written = cv2.imwrite(str(args.annotate), annotated)
        except cv2.error:
            written = False
        if not written:
            return _fail(prog, f"cannot write {args.annotate}")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(text)
    return 0


#: The games whose recogniser reads cards with an enrolled deck (``--deck``).
DECK_GAMES = ("bigtop", "carcassonne", "flohcati", "grand-carnival", "grandioso")


def _deck(text: str, game: str, model: Path | None) -> object:
    """The deck ``--deck`` names, checked against the game and ``--model``.

    :raises VisionError: (a `vision.enroll.DeckError`) with one line when it cannot be used.
    """
    from vision.enroll import DeckError, load_deck, resolve_deck

    if model is not None:
        raise DeckError("give --deck or --model, not both")
    if game not in DECK_GAMES:
        raise DeckError(f"--deck: the {game} recogniser cannot read an enrolled deck yet "
                        f"({', '.join(DECK_GAMES)} can)")
    return load_deck(resolve_deck(text), game)


def cmd_train(argv: list[str]) -> int:
    """``ringside train bigtop [options]``: see ``ringside train --help``."""
    from vision.bigtop.train import main

    return _guard_exit(lambda: main(argv, prog="ringside train"))


def _guard_exit(func: Callable[[], int]) -> int:
    try:
        return func()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
