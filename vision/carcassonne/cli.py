"""``ringside recognize PHOTO --game carcassonne [--json] [--annotate OUT.png] [--model FILE]``."""

from __future__ import annotations

import argparse
import json
import sys

from vision import VisionError

__all__ = ["recognize_carcassonne"]


def recognize_carcassonne(prog: str, args: argparse.Namespace) -> int:
    """Run the Carcassonne recogniser for parsed ``recognize`` arguments; a user's mistake prints one line and returns 2."""
    import cv2

    from vision.carcassonne.classifier import DEFAULT_MODEL, TileClassifier
    from vision.carcassonne.recognize import annotate, recognize
    from vision.pipeline import load_image

    try:
        frame = load_image(args.image)
        reading = recognize(frame, TileClassifier(args.model or DEFAULT_MODEL))
    except VisionError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if args.annotate is not None:
        try:
            written = cv2.imwrite(str(args.annotate), annotate(frame, reading))
        except cv2.error:
            written = False
        if not written:
            print(f"{prog}: cannot write {args.annotate}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(reading.to_json(), indent=2))
    else:
        print(reading.describe())
    return 0
