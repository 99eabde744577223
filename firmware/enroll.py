"""``ringside enroll`` and ``ringside decks``: teach Ringside the components a family owns.

``ringside enroll GAME --from DIR --name NAME [--out DIR]`` reads one sub-folder per
component, named as in the game's records (Big Top ``animals-D6``, Flohcati ``red-5``,
Grandioso ``tiger``, Carcassonne tile letter ``D``), each with one or more photos of
that single component, and writes a deck (`vision.enroll`). Every photo is read and
its component found before anything is written; a missing or misnamed folder, an
unreadable photo or a photo with no component ends the command with one line naming
it (exit status 2) and nothing written. The Grand Carnival's tiles are named by the
foundation patterns of the user's component values (``--components FILE``, else the user's
``grand-carnival.toml`` when it exists), and the deck's card keeps those values: a deck is
refused where it would be read with other foundation patterns (`vision.grand_carnival.decks`).

``ringside decks`` lists the enrolled decks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

__all__ = ["ENROLLABLE", "GameDeckSpec", "add_commands", "cmd_decks", "cmd_enroll", "component_values",
           "enroll_folder", "spec_of"]

#: The photo files an enrolment folder may hold (other files, such as notes, are skipped).
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
#: The games whose components can be enrolled.
ENROLLABLE = ("bigtop", "carcassonne", "flohcati", "grand-carnival", "grandioso")


class EnrollError(Exception):
    """A mistake in the enrolment folder or the command (one line, exit status 2)."""


@dataclass(frozen=True, slots=True)
class GameDeckSpec:
    """What enrolment needs to know of a game: its component names and shapes, and the crop size."""

    game: str
    names: tuple[str, ...]
    #: ``name -> ComponentShape`` (a `vision.enroll.ComponentShape`)
    shape_of: Callable[[str], Any]
    crop_size: tuple[int, int]
    #: how the names are written, for the error of a misnamed folder
    hint: str


def spec_of(game: str, values: Mapping[str, Any] | None = None) -> GameDeckSpec:
    """The enrolment spec of ``game``.

    ``values``: the Grand Carnival's whole set of component values (`component_values`), whose
    foundation patterns name its tiles; None for the shipped ones.

    :raises EnrollError: for a game that has no enrollable components.
    """
    from vision.enroll import ComponentShape

    if game == "bigtop":
        from vision.bigtop import CONFIG
        from vision.bigtop.labels import LABELS, NONE
        from vision.bigtop.layout import CARD, TOKEN

        card = ComponentShape(CARD.width, CARD.height, CARD.margin + CARD.frame)
        token = ComponentShape(TOKEN.diameter, TOKEN.diameter, TOKEN.margin + TOKEN.frame, round=True, turns=0)
        return GameDeckSpec(game, tuple(x for x in LABELS if x != NONE),
                            lambda name: token if name.startswith("token") else card, CONFIG.crop_size,
                            "a card as suit-rank (animals-D6, clowns-P), back, token-10/7/5/3 or token-back")
    if game == "flohcati":
        from scorer.flohcati.cards import FLEAS, Action
        from vision.flohcati.layout import CARD as FCARD

        shape = ComponentShape(FCARD.width, FCARD.height, FCARD.margin + FCARD.frame)
        return GameDeckSpec(game, tuple(f.name for f in FLEAS) + tuple(a.value for a in Action),
                            lambda name: shape, (40, 56),
                            "a flea as colour-value (red-0 to grey-7) or new-attraction, take-attraction, "
                            "request-attraction")
    if game == "grandioso":
        from scorer.grandioso.pyramid import Card
        from vision.grandioso.layout import CARD as GCARD

        gshape = ComponentShape(GCARD.width, GCARD.height, GCARD.margin + GCARD.frame)
        return GameDeckSpec(game, tuple(c.notation for c in Card), lambda name: gshape, (40, 56),
                            "an animal (elephant, rhino, ... seal) or clown")
    if game == "grand-carnival":
        from scorer.grand_carnival.components import CATALOG, catalog_of
        from vision.grand_carnival.layout import FIELD

        catalog = CATALOG if values is None else catalog_of(values)
        parcel = ComponentShape(2 * FIELD, 2 * FIELD, 0.0, turns=1)
        return GameDeckSpec(game, tuple(catalog.foundations), lambda name: parcel, (48, 48),
                            "a foundation tile by its pattern, top row then bottom row, / written - "
                            "(ws-ss: walkway, site / site, site), photographed with its hammers up")
    if game == "carcassonne":
        from vision.carcassonne.dataset import CROP
        from vision.carcassonne.labels import TILE_NAMES

        tile = ComponentShape(45.0, 45.0, 0.0, turns=4)
        return GameDeckSpec(game, TILE_NAMES, lambda name: tile, (CROP, CROP),
                            "a tile letter such as D (base game A to X, Under the Big Top tiles by their names)")
    raise EnrollError(f"{game} has no components to enrol: choose {', '.join(ENROLLABLE)}")


def folder_name(label: str) -> str:
    """The folder of a component's photos: its name, with ``-`` for ``/`` (Grand Carnival ``ws/ss``: ``ws-ss``)."""
    return label.replace("/", "-")


def _photos_of(source: Path, spec: GameDeckSpec) -> dict[str, list[Path]]:
    """The photo files per component folder, every name and file checked first.

    :raises EnrollError: naming the first folder or file that is wrong.
    """
    if not source.exists():
        raise EnrollError(f"no such folder: {source}")
    if not source.is_dir():
        raise EnrollError(f"{source} is not a folder")
    known = set(spec.names)
    lower = {folder_name(n).lower(): n for n in spec.names} | {n.lower(): n for n in spec.names}
    out: dict[str, list[Path]] = {}
    try:
        entries = sorted(source.iterdir())
    except OSError as exc:
        raise EnrollError(f"cannot read {source}: {exc.strerror or exc}") from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if not entry.is_dir():
            if entry.suffix.lower() in PHOTO_SUFFIXES:
                raise EnrollError(f"{entry}: photos go in one folder per component ({spec.hint}), "
                                  "not loose in the enrolment folder")
            continue
        name = entry.name if entry.name in known else lower.get(entry.name.lower(), "")
        if not name:
            raise EnrollError(f"{entry}: not a {spec.game} component name (write {spec.hint})")
        if name in out:
            raise EnrollError(f"{entry}: {name} has two folders")
        try:
            files = sorted(p for p in entry.iterdir() if p.is_file() and not p.name.startswith("."))
        except OSError as exc:
            raise EnrollError(f"cannot read {entry}: {exc.strerror or exc}") from None
        others = [p for p in files if p.suffix.lower() not in PHOTO_SUFFIXES]
        if others:
            raise EnrollError(f"{others[0]}: not a photo (use {', '.join(PHOTO_SUFFIXES)})")
        if not files:
            raise EnrollError(f"{entry}: no photos in this folder")
        out[name] = files
    if not out:
        raise EnrollError(f"{source}: no component folders (one folder per component, named {spec.hint})")
    return out


#: The game whose component values a user file may change (``--components FILE``).
COMPONENTS_GAME = "grand-carnival"


def component_values(game: str, path: str | None) -> tuple[dict[str, Any] | None, str]:
    """The component values ``game``'s components are enrolled with, and the file they came from.

    For the Grand Carnival: ``path`` (``--components FILE``), else the user's file when it exists
    (`firmware.components.user_values`); ``(None, "")`` is the shipped values. Other games have none.

    :raises EnrollError: one line when ``path`` is given for another game, or naming the file and
        the key when the file is not valid.
    """
    if game != COMPONENTS_GAME:
        if path is not None:
            raise EnrollError(f"--components FILE applies to grand-carnival only, not {game} "
                              "(--only LIST enrols only some components)")
        return None, ""
    from firmware.components import user_values
    from scorer.core import TableError

    try:
        return user_values(path)
    except TableError as exc:
        raise EnrollError(str(exc)) from None


def enroll_folder(game: str, source: Path, name: str, seed: int = 0,
                  progress: Callable[[int, int], None] | None = None,
                  values: Mapping[str, Any] | None = None, values_source: str = "") -> Any:
    """Build the deck ``name`` of ``game`` from the photos under ``source`` (nothing is written).

    ``values`` / ``values_source``: the Grand Carnival's component values (`component_values`);
    the folders are named by their foundation patterns, and the deck's card keeps the file,
    the values that differ from the shipped ones and the patterns (``components_file``,
    ``component_changes``, ``foundations``) so the deck is never read with other patterns.

    :raises EnrollError: naming the folder or photo that is wrong.
    """
    import numpy as np

    from vision import UnreadableImageError
    from vision.enroll import build_deck, enrol_photo
    from vision.images import load_image

    spec = spec_of(game, values)
    photos = _photos_of(source, spec)
    total = sum(len(v) for v in photos.values())
    rng = np.random.default_rng(seed)
    views = []
    done = 0
    for label in (n for n in spec.names if n in photos):
        for path in photos[label]:
            try:
                image = load_image(path)
            except UnreadableImageError as exc:
                raise EnrollError(str(exc)) from None
            view = enrol_photo(image, label, path, spec.shape_of(label), spec.crop_size, rng)
            if view is None:
                raise EnrollError(f"{path}: no {game} component found (lay it alone on a plain table, "
                                  "the whole of it in the photo)")
            views.append(view)
            done += 1
            if progress is not None:
                progress(done, total)
    labels = [n for n in spec.names if n in photos]
    deck = build_deck(game, name, views, spec.crop_size, labels)
    if game == COMPONENTS_GAME:
        from scorer.grand_carnival.components import component_changes, describe_changes

        deck.card["components_file"] = values_source if values is not None else ""
        deck.card["component_changes"] = describe_changes(component_changes(values)) if values is not None else []
        deck.card["foundations"] = list(spec.names)
    return deck


def _valid_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and all(c.isalnum() or c in "-_." for c in name)


def deck_folder(args: argparse.Namespace) -> Path:
    """The folder ``enroll`` writes: ``--out``, or the deck's name under the user's data folder.

    :raises EnrollError: for a game with nothing to enrol or a name that is not a plain word.
    """
    from vision.enroll import deck_home

    if args.game not in ENROLLABLE:
        raise EnrollError(f"{args.game} has no components to enrol: choose {', '.join(ENROLLABLE)}")
    if not _valid_name(args.name):
        raise EnrollError(f"--name {args.name!r}: use letters, digits, '-', '_' and '.' only")
    return Path(args.out) if args.out else deck_home() / args.name


def cmd_enroll(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ringside enroll GAME (--from DIR | --camera SRC) --name NAME [--out DIR] [--replace]``."""
    from vision.enroll import DeckError, save_deck

    stream = sys.stdout if out is None else out
    if (args.source is None) == (getattr(args, "camera", None) is None):
        raise EnrollError("give --from DIR (photos) or --camera SRC (at the table), one of them")
    folder = deck_folder(args)
    values, values_source = component_values(args.game, getattr(args, "components", None))
    if args.camera is not None:
        from firmware.enroll_table import cmd_enroll_camera

        return cmd_enroll_camera(args, stream, values, values_source)
    if folder.exists() and not args.replace and not (folder.is_dir() and not any(folder.iterdir())):
        raise EnrollError(f"{folder} already exists (choose another --name, or --replace it)")
    started = time.perf_counter()
    deck = enroll_folder(args.game, Path(args.source), args.name, values=values, values_source=values_source)
    try:
        save_deck(deck, folder, replace=args.replace)
    except DeckError as exc:
        raise EnrollError(str(exc)) from None
    card = deck.card
    held = card["held_back"]
    acc = (f"{100 * held['accuracy']:.1f}% of {held['views']} held-back views right, "
           f"{held['wrong_accepted']} wrong" if held["accuracy"] is not None else "no photo held back")
    print(f"enrolled {card['components']} {args.game} components from {card['photos']} photos "
          f"in {time.perf_counter() - started:.1f} s ({acc}){_with_values(values_source)}: {folder}", file=stream)
    return 0


def _with_values(source: str) -> str:
    """`` with the component values of FILE`` for a deck enrolled with a user's values ("" otherwise)."""
    return f" with the component values of {source}" if source else ""


def cmd_decks(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ringside decks [--json]``: the enrolled decks."""
    from vision.enroll import deck_home, list_decks

    stream = sys.stdout if out is None else out
    decks = list_decks()
    if args.json:
        print(json.dumps(decks, indent=1), file=stream)
        return 0
    if not decks:
        print(f"no decks enrolled in {deck_home()} (ringside enroll GAME --from DIR --name NAME)", file=stream)
        return 0
    for d in decks:
        if "enrolling" in d:
            print(f"{d['name']:<16} {d.get('game', '?'):<12} being enrolled at the table: {d['enrolling']}",
                  file=stream)
            continue
        if "error" in d:
            print(f"{d['name']:<16} {d['error']}", file=stream)
            continue
        held = d.get("held_back") or {}
        acc = f"{100 * held['accuracy']:.1f}% held-back" if held.get("accuracy") is not None else "no held-back"
        values = f"  values of {d['components_file']}" if d.get("components_file") else ""
        print(f"{d.get('name', '?'):<16} {d.get('game', '?'):<12} {d.get('components', '?'):>3} components  "
              f"{d.get('photos', '?'):>4} photos  {acc}  {d.get('created', '')}{values}", file=stream)
    return 0


def _guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        from hardware.errors import HardwareError

        try:
            return func(args)
        except (EnrollError, HardwareError) as exc:
            print(f"ringside {args.command}: {exc}", file=sys.stderr)
            return 2

    return call


def add_commands(sub: Any) -> None:
    """Add ``enroll`` and ``decks`` to the ``ringside`` sub-command parser ``sub``."""
    p = sub.add_parser("enroll", help="teach Ringside your own deck from photos of its components")
    p.add_argument("game", help=", ".join(ENROLLABLE))
    p.add_argument("--from", dest="source", metavar="DIR",
                   help="one folder per component, named as in the game's records, holding its photos")
    p.add_argument("--camera", metavar="SRC",
                   help="enrol at the table on the printed sheet (ringside print GAME --enroll): picamera2, "
                        "opencv:N, images:DIR or simulated[:seed=1,level=easy,stop=N]")
    p.add_argument("--photos", type=int, default=2, help="--camera: photos of each component (default 2)")
    p.add_argument("--only", metavar="LIST",
                   help="--camera: enrol only these components (comma-separated; default all of the game's)")
    p.add_argument("--components", metavar="FILE",
                   help="grand-carnival: component values over the shipped components.toml, whose foundation "
                        "patterns name the tiles (default: ~/.config/ringside/grand-carnival.toml when it exists)")
    p.add_argument("--config", help="--camera: the TOML configuration (panel and buttons)")
    p.add_argument("--display", help="--camera: ssd1306, sh1106, ssd1309, emulator or dummy")
    p.add_argument("--buttons", help="--camera: gpio, mock or keyboard (default: the configuration's)")
    p.add_argument("--name", required=True, help="the deck's name (letters, digits, - _ .)")
    p.add_argument("--out", metavar="DIR", help="write the deck to this folder (default: the user's data "
                                                "folder, ~/.local/share/ringside/decks/NAME)")
    p.add_argument("--replace", action="store_true", help="replace a deck of that name")
    p.set_defaults(func=_guarded(cmd_enroll))
    p = sub.add_parser("decks", help="list the enrolled decks")
    p.add_argument("--json", action="store_true", help="print the decks' cards as JSON")
    p.set_defaults(func=_guarded(cmd_decks))



def perceiver_for(table: Any, deck: str | None) -> Any:
    """``table``'s recogniser, reading cards with the enrolled deck ``deck`` (NAME or folder) when given.

    :raises firmware.runner.RunError: when the deck cannot be loaded or the game's
        recogniser cannot read a deck.
    """
    perceiver = table.perceiver()
    if deck is None:
        return perceiver
    from firmware.runner import RunError
    from vision.bigtop.pipeline import Recognizer
    from vision.enroll import DeckError, load_deck, resolve_deck
    from vision.flohcati.pipeline import Recognizer as FlohcatiRecognizer
    from vision.grandioso.pipeline import Recognizer as GrandiosoRecognizer

    if isinstance(perceiver, Recognizer):
        game = "bigtop"
    elif isinstance(perceiver, GrandiosoRecognizer):
        game = "grandioso"
    elif isinstance(perceiver, FlohcatiRecognizer):
        game = "flohcati"
    elif table.game.name == "grand-carnival":
        game = "grand-carnival"
    else:
        raise RunError(f"--deck: the {table.game.name} recogniser cannot read an enrolled deck")
    try:
        loaded = load_deck(resolve_deck(deck), game)
        if game == COMPONENTS_GAME:
            from vision.grand_carnival.decks import check_deck

            changed: dict[str, Any] = getattr(table.game, "changed_components", dict)()
            check_deck(loaded, table.game.catalog, "the component values this table plays" if changed else "")
    except DeckError as exc:
        raise RunError(str(exc)) from None
    perceiver.classifier = loaded
    return perceiver
