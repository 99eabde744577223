"""Command-line entry points: ``ringside print``, ``ringside recognize``, ``ringside train``.

Each takes its argument list and returns the exit status. A user's mistake
(unreadable image, no mat in view, missing model) prints one line on stderr
and returns 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision import VisionError

__all__ = ["cmd_print", "cmd_recognize", "cmd_train"]


def _fail(prog: str, message: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def cmd_print(argv: list[str]) -> int:
    """``ringside print bigtop --out FILE.pdf [--dpi N]``: true-size printable sheets."""
    prog = "ringside print"
    p = argparse.ArgumentParser(prog=prog, description="Write true-size A4 sheets of a game's components.")
    p.add_argument("game", choices=["bigtop"], help="the game to print")
    p.add_argument("--out", type=Path, required=True, help="PDF file to write")
    p.add_argument("--dpi", type=float, default=200.0, help="resolution of the sheets (default 200)")
    args = p.parse_args(argv)
    if not 72 <= args.dpi <= 600:
        return _fail(prog, "--dpi must be between 72 and 600")
    from vision.printing import write_pdf

    try:
        n = write_pdf(args.out, args.dpi)
    except OSError as exc:
        return _fail(prog, f"cannot write {args.out}: {exc.strerror or exc}")
    print(f"wrote {args.out}: {n} A4 pages; print at actual size and check the 100 mm line")
    return 0


def cmd_recognize(argv: list[str]) -> int:
    """``ringside recognize IMAGE --game bigtop [--json] [--annotate OUT.png] [--model FILE]``."""
    prog = "ringside recognize"
    p = argparse.ArgumentParser(prog=prog, description="Recognise the components in a photo of the table.")
    p.add_argument("image", type=Path, help="photo of the table (PNG, JPEG, ...)")
    p.add_argument("--game", choices=["bigtop"], default="bigtop")
    p.add_argument("--json", action="store_true", help="print the TableView as JSON")
    p.add_argument("--annotate", type=Path, metavar="OUT.png", help="write the frame with every detection drawn")
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default: the shipped one)")
    args = p.parse_args(argv)
    from vision.classify import DEFAULT_MODEL
    from vision.pipeline import Recognizer, annotate, load_image

    try:
        frame = load_image(args.image)
        recognizer = Recognizer(args.model or DEFAULT_MODEL)
        result = recognizer.recognize(frame)
    except VisionError as exc:
        return _fail(prog, str(exc))
    if args.annotate is not None:
        if not cv2.imwrite(str(args.annotate), annotate(frame, result)):
            return _fail(prog, f"cannot write {args.annotate}")
    if args.json:
        print(json.dumps(result.view.to_json(), indent=2))
    else:
        print(result.view.describe())
    return 0


def cmd_train(argv: list[str]) -> int:
    """``ringside train bigtop [options]``: see ``python -m vision.train --help``."""
    from vision.train import main

    return main(argv, prog="ringside train")
