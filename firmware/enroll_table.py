"""Guided enrolment at the table: ``ringside enroll GAME --camera SRC --name NAME``.

The family prints the game's enrolment sheet (``ringside print GAME --enroll``): an
A4 page of numbered dark spaces with a marker in each corner (`vision.enroll_sheet`).
The central panel names the components to lay on each numbered space for this round;
OK on the pad captures: the camera's frame is located by the sheet's markers, each
space is cut out as seen from straight above, and the component in it must be found
(`vision.enroll.find_component`) before the round counts. Each component is
photographed ``--photos`` times (default 2: the second round of a set asks to move
each one a little). When every round is done the deck is built from the space
photos (as ``enroll --from`` builds one) and written in place of the progress.

Enrolment stops and resumes: MODE on the pad (or Ctrl-C, or a camera that ends)
stops; the same command later resumes where it stopped. Progress lives under the
deck's folder (``enrolling/``: one sub-folder of photos per component, as
``enroll --from`` reads them, and ``progress.json``). Every photo and the progress
file are written whole (a temporary file, then a rename), and the progress file
names only photos already written, so a crash loses at most the round in hand.
UNDO takes back the last round captured.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray

from firmware.enroll import EnrollError, GameDeckSpec, folder_name
from hardware.buttons import ButtonEvent, Gesture, Pad

__all__ = [
    "PROGRESS_DIR",
    "EnrolmentProgress",
    "GuidedEnrolment",
    "Round",
    "SimulatedSheetCamera",
    "plan_rounds",
    "sheet_for",
]

#: The folder inside a deck's folder that holds an enrolment in progress.
PROGRESS_DIR = "enrolling"
PROGRESS_FILE = "progress.json"
PHOTOS_DIR = "photos"
_PROGRESS_VERSION = 1


@dataclass(frozen=True, slots=True)
class Round:
    """One capture: ``labels[i]`` lies on space ``i + 1``; ``photo`` counts from 0 (a second photo is 1)."""

    index: int
    photo: int
    labels: tuple[str, ...]

    def instruction(self) -> str:
        """What the central panel asks for."""
        where = ", ".join(f"{n}: {label}" for n, label in enumerate(self.labels, start=1))
        if self.photo == 0:
            return f"Lay {where}. Then OK."
        return f"Move each a little ({where}). Then OK."


def plan_rounds(labels: Sequence[str], per_sheet: int, photos: int) -> list[Round]:
    """The rounds that photograph every label ``photos`` times, ``per_sheet`` at a time.

    >>> [(r.photo, r.labels) for r in plan_rounds(["a", "b", "c"], 2, 2)]
    [(0, ('a', 'b')), (1, ('a', 'b')), (0, ('c',)), (1, ('c',))]
    """
    out: list[Round] = []
    for start in range(0, len(labels), per_sheet):
        chunk = tuple(labels[start:start + per_sheet])
        for p in range(photos):
            out.append(Round(len(out), p, chunk))
    return out


def sheet_for(spec: GameDeckSpec) -> Any:
    """The enrolment sheet layout of a game (`vision.enroll_sheet.SheetLayout`): spaces for its largest component."""
    import cv2

    from vision.enroll_sheet import sheet_layout

    shapes = {id(s): s for s in (spec.shape_of(n) for n in spec.names)}.values()
    w = max(min(s.width, s.height) for s in shapes)
    h = max(max(s.width, s.height) for s in shapes)
    dictionary = cv2.aruco.DICT_4X4_100 if spec.game == "flohcati" else cv2.aruco.DICT_4X4_50
    return sheet_layout(w, h, dictionary)


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename (never half a file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class EnrolmentProgress:
    """The photos captured so far for one deck, kept under ``folder/enrolling``.

    :raises EnrollError: when ``folder`` holds an enrolment of another game, other
        components or another number of photos, or cannot be written.
    """

    def __init__(self, folder: Path, game: str, name: str, labels: Sequence[str], photos: int) -> None:
        self.folder = folder
        self.root = folder / PROGRESS_DIR
        self.photos_dir = self.root / PHOTOS_DIR
        self.file = self.root / PROGRESS_FILE
        self.game, self.name, self.labels, self.photos = game, name, tuple(labels), photos
        self.done: dict[str, int] = {}
        self.resumed = False
        if self.file.is_file():
            try:
                data = json.loads(self.file.read_text(encoding="utf-8"))
                done = {str(k): int(v) for k, v in data["done"].items()}
                same = (data["game"], tuple(data["labels"]), int(data["photos"])) == (game, self.labels, photos)
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                raise EnrollError(f"{self.file} is not an enrolment's progress: remove {self.root} "
                                  "to start again") from None
            if not same:
                raise EnrollError(f"{folder} holds an enrolment of {data.get('game')} with other components or "
                                  f"photos: resume it with the same options, or remove {self.root}")
            self.done = {k: v for k, v in done.items() if k in self.labels and v > 0}
            self.resumed = True
        else:
            try:
                self.photos_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise EnrollError(f"cannot write {self.root}: {exc.strerror or exc}") from None
            self._save()

    def count(self, label: str) -> int:
        """Photos of ``label`` captured."""
        return self.done.get(label, 0)

    def is_done(self, r: Round) -> bool:
        """True when round ``r`` was captured."""
        return all(self.count(label) > r.photo for label in r.labels)

    @property
    def captured(self) -> int:
        """Photos captured so far, all components together."""
        return sum(min(v, self.photos) for v in self.done.values())

    @property
    def total(self) -> int:
        """Photos the enrolment takes."""
        return len(self.labels) * self.photos

    def photo_path(self, label: str, photo: int) -> Path:
        """Where photo ``photo`` (from 0) of ``label`` is kept."""
        return self.photos_dir / folder_name(label) / f"{photo + 1}.png"

    def add(self, r: Round, crops: Sequence[NDArray[Any]]) -> None:
        """Keep the space photos of round ``r`` (one per label, in order), then record the round."""
        import cv2

        try:
            for label, crop in zip(r.labels, crops):
                path = self.photo_path(label, r.photo)
                path.parent.mkdir(parents=True, exist_ok=True)
                ok, buf = cv2.imencode(".png", crop)
                if not ok:
                    raise OSError(f"cannot encode the photo of {label}")
                _write_whole(path, buf.tobytes())
            for label in r.labels:
                self.done[label] = max(self.count(label), r.photo + 1)
            self._save()
        except OSError as exc:
            raise EnrollError(f"cannot write {self.root}: {exc.strerror or exc}") from None

    def take_back(self, r: Round) -> None:
        """Forget round ``r`` (its photos are overwritten when it is captured again)."""
        for label in r.labels:
            if self.count(label) > r.photo:
                self.done[label] = r.photo
        try:
            self._save()
        except OSError as exc:
            raise EnrollError(f"cannot write {self.root}: {exc.strerror or exc}") from None

    def _save(self) -> None:
        data = {"version": _PROGRESS_VERSION, "game": self.game, "name": self.name, "labels": list(self.labels),
                "photos": self.photos, "done": self.done,
                "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        _write_whole(self.file, (json.dumps(data, indent=1) + "\n").encode())

    def source_folder(self) -> Path:
        """A folder of the captured photos in the layout ``enroll --from`` reads (only recorded photos)."""
        staged = Path(tempfile.mkdtemp(prefix=".staged.", dir=self.root))
        for label in self.labels:
            n = min(self.count(label), self.photos)
            if n == 0:
                continue
            (staged / folder_name(label)).mkdir()
            for p in range(n):
                os.link(self.photo_path(label, p), staged / folder_name(label) / f"{p + 1}.png")
        return staged


class GuidedEnrolment:
    """The rounds of a guided enrolment: ask, wait for OK, capture, check, keep.

    ``camera`` is a `hardware.camera.FrameSource`; ``show`` draws a panel text
    (title, line, message) and ``say`` prints a line for the console. A camera with a
    ``prompted(labels, photo)`` method (the simulated one) is told each round.
    """

    def __init__(self, spec: GameDeckSpec, layout: Any, progress: EnrolmentProgress, camera: Any,
                 show: Callable[[str, str, str], None], say: Callable[[str], None],
                 flush_frames: int = 2) -> None:
        self.spec = spec
        self.layout = layout
        self.progress = progress
        self.camera = camera
        self.show = show
        self.say = say
        self.flush_frames = flush_frames
        self.rounds = plan_rounds(progress.labels, len(layout.spaces), progress.photos)

    def next_round(self) -> Round | None:
        """The first round not captured yet."""
        return next((r for r in self.rounds if not self.progress.is_done(r)), None)

    def last_done(self) -> Round | None:
        """The last round captured (for UNDO)."""
        done = [r for r in self.rounds if self.progress.is_done(r)]
        return done[-1] if done else None

    def _title(self) -> str:
        return f"Enrol {self.progress.name} {self.progress.captured}/{self.progress.total}"

    def capture(self, r: Round) -> str | None:
        """Read a frame and keep round ``r``'s space photos; the problem in words, or None when kept."""
        from vision import NoMatError
        from vision.enroll import find_component
        from vision.enroll_sheet import locate_sheet, space_crops

        frame = self.camera.read()
        for _ in range(self.flush_frames):  # a live camera may hand out frames taken before OK
            frame = self.camera.read()
        try:
            calibration = locate_sheet(frame, self.layout)
        except NoMatError as exc:
            return (f"Sheet not seen ({exc.markers_seen} of 4 corner markers): "
                    "the whole sheet in view, nothing on its corners. OK again.")
        crops = space_crops(frame, calibration, self.layout, tuple(range(1, len(r.labels) + 1)))
        missing = [n for n in range(1, len(r.labels) + 1)
                   if find_component(crops[n], self.spec.shape_of(r.labels[n - 1])) is None]
        if missing:
            spaces = ", ".join(str(n) for n in missing)
            return (f"Nothing found on space {spaces}: lay each inside its space, none touching its edge. "
                    "OK again.")
        self.progress.add(r, [crops[n] for n in range(1, len(r.labels) + 1)])
        return None

    def run(self, events: queue.Queue[ButtonEvent], idle: Callable[[], None] | None = None,
            wait_s: float = 0.2, give_up_s: float | None = None) -> str:
        """Go through the rounds; ``"done"`` when all are captured, ``"stopped"`` on MODE or no more events.

        ``give_up_s``: stop when no button is pressed for this long (None: wait for ever).
        """
        from hardware.errors import EndOfFrames

        message = ("Resuming: " if self.progress.resumed else "") + "lay the sheet flat in the camera's view."
        while True:
            r = self.next_round()
            if r is None:
                return "done"
            self.show(self._title(), f"Round {r.index + 1}/{len(self.rounds)}", f"{message} {r.instruction()}")
            self.say(f"round {r.index + 1}/{len(self.rounds)}: {r.instruction()}")
            message = ""
            prompted = getattr(self.camera, "prompted", None)
            if prompted is not None:
                prompted(r.labels, r.photo)
            waited = 0.0
            while True:
                try:
                    event = events.get(timeout=wait_s)
                except queue.Empty:
                    waited += wait_s
                    if idle is not None:
                        idle()
                    if give_up_s is not None and waited >= give_up_s:
                        return "stopped"
                    continue
                waited = 0.0
                if event.pad is Pad.MODE:
                    return "stopped"
                if event.pad is Pad.UNDO and event.gesture is Gesture.PRESS:
                    back = self.last_done()
                    if back is not None:
                        self.progress.take_back(back)
                        message = f"Round {back.index + 1} taken back."
                        self.say(message)
                    break
                if event.pad is not Pad.OK or event.gesture is not Gesture.PRESS:
                    continue
                self.show(self._title(), "Looking...", "")
                try:
                    problem = self.capture(r)
                except EndOfFrames:
                    return "stopped"
                if problem is None:
                    self.say(f"round {r.index + 1}: kept {len(r.labels)} photos")
                    break
                self.show(self._title(), f"Round {r.index + 1}/{len(self.rounds)}", f"{problem} {r.instruction()}")
                self.say(f"round {r.index + 1}: {problem}")
                if prompted is not None:
                    prompted(r.labels, r.photo)


# -- the simulated camera ------------------------------------------------------------------


#: Component art for the simulated camera: label, px/mm -> (BGR image, alpha 0..255).
Art = Callable[[str, float], tuple[NDArray[Any], NDArray[Any]]]


def art_for(game: str) -> Art:
    """The shipped print-and-play art of ``game``'s components, for the simulated camera.

    :raises EnrollError: for a game the simulated camera has no art for.
    """
    if game == "bigtop":
        from scorer.bigtop.cards import Card
        from vision.bigtop.faces import render_card, render_card_back, render_token, render_token_back

        def bigtop(label: str, s: float) -> tuple[NDArray[Any], NDArray[Any]]:
            if label == "back":
                return render_card_back(s)
            if label == "token-back":
                return render_token_back(s)
            if label.startswith("token-"):
                return render_token(int(label.split("-")[1]), s)
            return render_card(Card.parse(label), s)

        return bigtop
    if game == "grandioso":
        from scorer.grandioso.pyramid import Card as GCard
        from vision.grandioso.faces import render_card as render_gcard

        return lambda label, s: render_gcard(GCard.parse(label), s)
    raise EnrollError(f"the simulated camera has no art for {game} (bigtop, grandioso): use a real camera")


class SimulatedSheetCamera:
    """A family and a camera at the enrolment sheet: it lays what the panel asks and photographs the sheet.

    Each round's components lie on their spaces shifted and turned a little (differently
    for each photo); frames come from the independent camera model (`vision.camera_model`)
    at ``level``. With buttons attached (`attach_buttons`) the simulated family presses
    OK once the components lie, and MODE instead after ``stop_after`` captures; ``on_laid``,
    when given, is called instead (a test presses the mock OK button there).
    """

    name = "simulated enrolment"

    def __init__(self, layout: Any, art: Art, seed: int = 1, level: str = "easy",
                 size: tuple[int, int] = (960, 720), stop_after: int | None = None,
                 on_laid: Callable[[], None] | None = None) -> None:
        self.layout = layout
        self.art = art
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.level = level
        self.size = size
        self.stop_after = stop_after
        self.on_laid = on_laid
        self.laid: dict[int, str] = {}
        self.frames = 0
        self.prompts = 0
        self._sink: Callable[[ButtonEvent], None] | None = None
        self._sheet: NDArray[Any] | None = None
        self._s = 4.0

    def attach_buttons(self, sink: Callable[[ButtonEvent], None]) -> None:
        """Where the simulated family's presses go."""
        self._sink = sink

    def prompted(self, labels: Sequence[str], photo: int) -> None:
        """The panel asked for ``labels`` on spaces 1, 2, ...: lay them, then press OK (or MODE)."""
        self.laid = {n: label for n, label in enumerate(labels, start=1)}
        self.prompts += 1
        self._placements = {n: (float(self.rng.uniform(-2.5, 2.5)), float(self.rng.uniform(-2.5, 2.5)),
                                float(self.rng.uniform(-7, 7))) for n in self.laid}
        if self.on_laid is not None:
            self.on_laid()
            return
        if self._sink is None:
            return
        stop = self.stop_after is not None and self.prompts > self.stop_after
        self._sink(ButtonEvent(Gesture.PRESS, pad=Pad.MODE if stop else Pad.OK))

    def read(self) -> NDArray[Any]:
        """The sheet with the components laid, photographed."""
        import cv2

        from vision.camera_model import photograph
        from vision.enroll_sheet import render_sheet

        s = self._s
        if self._sheet is None:
            self._sheet = render_sheet(self.layout, s, "Ringside enrolment sheet").image
        canvas = self._sheet.astype(np.float32)
        for n, label in self.laid.items():
            img, alpha = self.art(label, s)
            dx, dy, angle = self._placements[n]
            r = self.layout.spaces[n - 1]
            cx, cy = (r.x + r.w / 2 + dx) * s, (r.y + r.h / 2 + dy) * s
            h, w = img.shape[:2]
            m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
            m[:, 2] += (cx - w / 2, cy - h / 2)
            size = (canvas.shape[1], canvas.shape[0])
            warped = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
            a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255.0
            canvas = canvas * (1 - a) + warped * a
        pad = 6.0
        photo = photograph(canvas, s, (0.0, 0.0), (-pad, -pad, self.layout.width + pad, self.layout.height + pad),
                           self.level, seed=self.seed * 1000 + self.frames, size=self.size, with_hand=False)
        self.frames += 1
        frame: NDArray[Any] = photo.image
        return frame

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> SimulatedSheetCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_simulated(arg: str) -> dict[str, Any]:
    """``simulated[:seed=1,level=easy,stop=N]`` options.

    :raises EnrollError: for an unknown option or value.
    """
    from vision.camera_model import LEVELS

    out: dict[str, Any] = {}
    for part in (p.strip() for p in arg.split(",") if p.strip()):
        key, _, value = part.partition("=")
        try:
            if key == "seed":
                out["seed"] = int(value)
            elif key == "stop":
                out["stop_after"] = int(value)
                if out["stop_after"] < 0:
                    raise ValueError
            elif key == "level":
                if value not in LEVELS:
                    raise ValueError
                out["level"] = value
            else:
                raise EnrollError(f"--camera simulated: unknown option {key!r} (seed=, level=, stop=)")
        except ValueError:
            raise EnrollError(f"--camera simulated: bad value {part!r}") from None
    return out


# -- the commands ---------------------------------------------------------------------------


def _open_camera(source: str, layout: Any, game: str) -> Any:
    """The camera ``--camera`` names: ``simulated[:options]`` or any `hardware.camera` source."""
    from hardware.camera import open_camera
    from hardware.errors import HardwareError

    scheme, _, arg = source.partition(":")
    if scheme.strip().lower() == "simulated":
        return SimulatedSheetCamera(layout, art_for(game), **parse_simulated(arg))
    try:
        return open_camera(source)
    except HardwareError as exc:
        raise EnrollError(f"--camera: {exc}") from None


def _labels(spec: GameDeckSpec, wanted: str | None) -> tuple[str, ...]:
    if not wanted:
        return spec.names
    lower = {n.lower(): n for n in spec.names}
    out: list[str] = []
    for word in (w.strip() for w in wanted.split(",") if w.strip()):
        name = lower.get(word.lower())
        if name is None:
            raise EnrollError(f"--only: {word!r} is not a {spec.game} component (write {spec.hint})")
        if name not in out:
            out.append(name)
    if not out:
        raise EnrollError("--only names no component")
    return tuple(out)


def cmd_enroll_camera(args: argparse.Namespace, out: TextIO | None = None,
                      values: Mapping[str, Any] | None = None, values_source: str = "") -> int:
    """``ringside enroll GAME --camera SRC --name NAME [--photos N] [--only LIST] [--components FILE]``.

    Guided at the table. ``values`` / ``values_source``: the Grand Carnival's component values
    (`firmware.enroll.component_values`), whose foundation patterns name the tiles asked for.
    """
    import sys

    from firmware.config import ConfigError, load_config, with_overrides
    from firmware.enroll import deck_folder, enroll_folder, spec_of
    from firmware.screens import CentralView, render_central
    from hardware.display import open_panels
    from hardware.errors import HardwareError
    from vision.enroll import CARD_FILE, DeckError, save_deck

    stream = sys.stdout if out is None else out
    spec = spec_of(args.game, values)
    folder = deck_folder(args)
    if (folder / CARD_FILE).exists() and not args.replace:
        raise EnrollError(f"{folder} already holds a deck (choose another --name, or --replace it)")
    if not 1 <= args.photos <= 5:
        raise EnrollError(f"--photos must be 1 to 5, not {args.photos}")
    labels = _labels(spec, args.only)
    display = args.display
    if display is None and args.camera.strip().lower().startswith("simulated"):
        display = "dummy"  # a simulated enrolment on a desktop: the console says what the panel shows
    try:
        config = with_overrides(load_config(args.config), display=display, buttons=args.buttons)
    except ConfigError as exc:
        raise EnrollError(str(exc)) from None
    layout = sheet_for(spec)
    camera = _open_camera(args.camera, layout, args.game)
    simulated = isinstance(camera, SimulatedSheetCamera)
    events: queue.Queue[ButtonEvent] = queue.Queue()
    with contextlib.ExitStack() as stack:
        stack.callback(camera.close)
        try:
            panel = open_panels({"centre": config.display.centre})["centre"]
        except HardwareError as exc:
            raise EnrollError(f"the central panel: {exc}") from None
        stack.callback(panel.close)
        scroll = [0, time.monotonic()]
        shown: list[tuple[str, str, str]] = [("", "", "")]

        def show(title: str, line: str, message: str) -> None:
            shown[0] = (title, line, message)
            scroll[0] = 0
            panel.draw(render_central, CentralView(title, line, message, scroll=0))

        def idle() -> None:
            now = time.monotonic()
            if now - float(scroll[1]) >= 3.0:
                scroll[0], scroll[1] = int(scroll[0]) + 1, now
                title, line, message = shown[0]
                panel.draw(render_central, CentralView(title, line, message, scroll=int(scroll[0])))

        if simulated and args.buttons is None:
            camera.attach_buttons(events.put)
        elif config.buttons.backend != "none":
            from hardware.buttons import open_buttons

            try:
                buttons = open_buttons(config.buttons.backend, config.buttons.pins, events.put, seats=0)
            except HardwareError as exc:
                raise EnrollError(f"the buttons: {exc}") from None
            stack.callback(buttons.close)
            start = getattr(buttons, "start", None)
            if start is not None:
                start()
        progress = EnrolmentProgress(folder, args.game, args.name, labels, args.photos)
        if progress.resumed:
            print(f"resuming the enrolment of {args.name}: {progress.captured} of {progress.total} photos "
                  "captured", file=stream)
        session = GuidedEnrolment(spec, layout, progress, camera, show,
                                  lambda text: print(text, file=stream, flush=True),
                                  flush_frames=2 if args.camera.split(":")[0].lower() in ("picamera2", "opencv") else 0)
        print(f"enrolment sheet: ringside print {args.game} --enroll --out sheet.pdf; "
              f"{len(layout.spaces)} spaces, {len(session.rounds)} rounds", file=stream)
        try:
            state = session.run(events, idle, give_up_s=None if not simulated else 5.0)
        except KeyboardInterrupt:
            state = "stopped"
        if state != "done":
            show(f"Enrol {args.name}", "Stopped", f"{progress.captured} of {progress.total} photos kept. "
                 "Run enroll again to go on.")
            print(f"stopped with {progress.captured} of {progress.total} photos captured (kept in "
                  f"{progress.root}); run the same command to resume", file=stream)
            return 0
        show(f"Enrol {args.name}", "Building the deck", "")
        started = time.perf_counter()
        staged = progress.source_folder()
        try:
            deck = enroll_folder(args.game, staged, args.name, values=values, values_source=values_source)
            save_deck(deck, folder, replace=True)
        except DeckError as exc:
            raise EnrollError(str(exc)) from None
        finally:
            import shutil

            shutil.rmtree(staged, ignore_errors=True)
        held = deck.card["held_back"]
        acc = (f"{100 * held['accuracy']:.1f}% of {held['views']} held-back views right, "
               f"{held['wrong_accepted']} wrong" if held["accuracy"] is not None else "no photo held back")
        show(f"Deck {args.name}", "Ready", f"{deck.card['components']} components. {acc}.")
        print(f"enrolled {deck.card['components']} {args.game} components from {deck.card['photos']} photos "
              f"at the table (deck built in {time.perf_counter() - started:.1f} s; {acc}): {folder}", file=stream)
    return 0


def print_enroll_parser(prog: str = "ringside print") -> argparse.ArgumentParser:
    """The arguments of ``ringside print GAME --enroll``."""
    from firmware.enroll import ENROLLABLE

    p = argparse.ArgumentParser(prog=prog, description="Write the A4 enrolment sheet of a game: numbered spaces "
                                                      "to lay components on for ringside enroll --camera.")
    p.add_argument("game", choices=ENROLLABLE, help="the game whose components are enrolled")
    p.add_argument("--enroll", action="store_true", required=True, help="the enrolment sheet")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.pdf|FILE.png", help="the file to write")
    p.add_argument("--dpi", type=float, default=200.0, help="resolution, 72 to 300 (default 200)")
    return p


def cmd_print_enroll(argv: list[str]) -> int:
    """``ringside print GAME --enroll --out FILE.pdf|FILE.png [--dpi N]``."""
    import sys

    from firmware.enroll import spec_of
    from vision.enroll_sheet import render_sheet
    from vision.sheets import write_pdf_pages, write_png_pages

    prog = "ringside print"
    try:
        args = print_enroll_parser(prog).parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2

    def fail(message: str) -> int:
        print(f"{prog}: {message}", file=sys.stderr)
        return 2

    if not 72 <= args.dpi <= 300:
        return fail(f"--dpi must be between 72 and 300, not {args.dpi:g}")
    out_path: Path = args.out
    kind = out_path.suffix.lower()
    if kind not in (".pdf", ".png"):
        return fail(f"--out must end in .pdf or .png, not {out_path.name!r}")
    if out_path.is_dir():
        return fail(f"cannot write {out_path}: it is a folder")
    if not out_path.parent.is_dir():
        return fail(f"cannot write {out_path}: no such folder: {out_path.parent}")
    spec = spec_of(args.game)
    layout = sheet_for(spec)
    title = (f"Ringside enrolment sheet ({args.game}): lay the components the central panel names on the "
             "numbered spaces, then press OK")
    s = args.dpi / 25.4
    try:
        if kind == ".pdf":
            write_pdf_pages(out_path, iter([render_sheet(layout, s, title)]), args.dpi, title)
            written = str(out_path)
        else:
            written = str(write_png_pages(out_path, iter([render_sheet(layout, s, title)]), args.dpi)[0])
    except OSError as exc:
        return fail(f"cannot write {exc.filename or out_path}: {exc.strerror or exc}")
    print(f"wrote {written}: the {args.game} enrolment sheet, {len(layout.spaces)} numbered spaces "
          "(print at any size near 100 %)")
    return 0
