"""The players' buttons: gpiozero from a pin map, gpiozero's mock pins, or a keyboard stand-in.

Each seat has one button, and a pad beside the central panel has OK, UNDO and
MODE/NEXT. A short press and a hold are different gestures: a press is
reported when the button is let go before ``hold_time``; a hold is reported
as soon as the button has been down for ``hold_time`` (and no press follows).
Every backend delivers `ButtonEvent` values to one callable sink — a
``queue.Queue().put`` works — from whatever thread the backend uses.

Backends by name (`open_buttons`): ``gpio`` (real pins, gpiozero's default
pin factory: lgpio on a Pi 5), ``mock`` (gpiozero ``MockFactory``: tests and
dry runs press buttons with ``buttons.pin(key).drive_low()``) and ``keyboard``
(lines of text, see `parse_key`).

>>> import io, queue
>>> events = queue.Queue()
>>> keys = KeyboardButtons(io.StringIO("1\\nu!\\nok\\n"), events.put, seats=3)
>>> keys.pump()
3
>>> [str(events.get(timeout=1)) for _ in range(3)]
['press seat 1', 'hold undo', 'press ok']
"""

from __future__ import annotations

import enum
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self, TextIO

from hardware.errors import ButtonError, UnknownBackend

__all__ = [
    "BUTTON_BACKENDS",
    "ButtonEvent",
    "ButtonSource",
    "Gesture",
    "GpioButtons",
    "KeyboardButtons",
    "Pad",
    "PinMap",
    "Sink",
    "open_buttons",
    "parse_key",
]


class Pad(enum.Enum):
    """The buttons of the central pad."""

    OK = "ok"
    UNDO = "undo"
    #: MODE/NEXT: next hand, next screen, teaching mode.
    MODE = "mode"


class Gesture(enum.Enum):
    """How a button was used."""

    PRESS = "press"
    HOLD = "hold"


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A gesture on one button: a seat's button (``seat``, counted from 0) or a pad key."""

    gesture: Gesture
    seat: int | None = None
    pad: Pad | None = None

    def __post_init__(self) -> None:
        if (self.seat is None) == (self.pad is None):
            raise ValueError("a button event names either a seat or a pad key, not both or neither")
        if self.seat is not None and self.seat < 0:
            raise ValueError(f"seats are counted from 0, not {self.seat}")

    @property
    def button(self) -> str:
        """The button's name: ``seat 1`` (counted from 1, as players count) or ``ok``/``undo``/``mode``."""
        return f"seat {self.seat + 1}" if self.seat is not None else self.pad.value  # type: ignore[union-attr]

    def __str__(self) -> str:
        return f"{self.gesture.value} {self.button}"


#: Where a backend delivers its events.
Sink = Callable[[ButtonEvent], None]

#: A key of `PinMap`: a seat number (from 0) or a pad key.
Key = int | Pad


@dataclass(frozen=True, slots=True)
class PinMap:
    """Which GPIO pin each button is wired to (BCM numbers, or gpiozero names like ``"GPIO17"``).

    Buttons connect the pin to ground; the internal pull-ups are used. The
    defaults keep clear of I2C (2, 3), SPI (7-11) and the SPI panels' DC/RST
    lines (24, 25).

    :raises ValueError: when a pin is used twice or a time is out of range.
    """

    seats: tuple[int | str, ...] = (5, 6, 13, 19, 26, 21)
    ok: int | str = 17
    undo: int | str = 27
    mode: int | str = 22
    hold_time: float = 1.0
    bounce_time: float | None = 0.03

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for key, pin in self.assignments(len(self.seats)).items():
            name = _key_name(key)
            label = str(pin).upper().removeprefix("GPIO").removeprefix("BCM")
            if label in seen:
                raise ValueError(f"pin {pin} is wired to both {seen[label]} and {name}")
            seen[label] = name
        if not 0 < self.hold_time <= 10:
            raise ValueError(f"hold_time must be more than 0 and at most 10 seconds, not {self.hold_time}")
        if self.bounce_time is not None and not 0 < self.bounce_time < self.hold_time:
            raise ValueError(f"bounce_time must be more than 0 and less than hold_time, not {self.bounce_time}")

    def assignments(self, seats: int) -> dict[Key, int | str]:
        """The pin of every button for a table of ``seats`` players (the pad always).

        :raises ValueError: when the map has fewer seat pins than ``seats``.
        """
        if seats > len(self.seats):
            raise ValueError(f"the pin map wires {len(self.seats)} seat buttons, not {seats}")
        keys: dict[Key, int | str] = {i: pin for i, pin in enumerate(self.seats[:seats])}
        keys.update({Pad.OK: self.ok, Pad.UNDO: self.undo, Pad.MODE: self.mode})
        return keys


def _key_name(key: Key) -> str:
    return f"seat {key + 1}" if isinstance(key, int) else key.value


class ButtonSource(Protocol):
    """What every button backend offers: a context manager with an idempotent `close`."""

    def close(self) -> None:
        """Stop delivering events and free the pins. Closing twice is harmless."""
        ...

    def __enter__(self) -> ButtonSource: ...

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _Closing:
    def close(self) -> None:
        """Stop delivering events and free the pins. Closing twice is harmless."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class GpioButtons(_Closing):
    """The buttons of a `PinMap` as gpiozero ``Button`` devices.

    :param pins: the wiring.
    :param sink: receives a `ButtonEvent` per press or hold (from gpiozero's threads).
    :param seats: how many seat buttons are in use.
    :param pin_factory: a gpiozero pin factory (``MockFactory()`` in tests); None for gpiozero's default.
    :raises ButtonError: when a pin does not exist, is in use, or there is no GPIO at all.
    """

    def __init__(self, pins: PinMap, sink: Sink, *, seats: int, pin_factory: Any = None) -> None:
        from gpiozero import Button  # type: ignore[import-untyped]
        from gpiozero.exc import (  # type: ignore[import-untyped]
            BadPinFactory,
            GPIOZeroError,
            PinFactoryFallback,
        )

        self.pins = pins
        self.sink = sink
        self.pin_factory = pin_factory
        self.buttons: dict[Key, Any] = {}
        self._held: dict[Key, bool] = {}
        self._closed = False
        try:
            wiring = pins.assignments(seats)
        except ValueError as exc:
            raise ButtonError(str(exc)) from None
        try:
            for key, pin in wiring.items():
                with warnings.catch_warnings():
                    # gpiozero warns once per backend it falls back from: the error below says it in one line
                    warnings.simplefilter("ignore", category=PinFactoryFallback)
                    button = Button(
                        pin, pull_up=True, bounce_time=pins.bounce_time, hold_time=pins.hold_time,
                        pin_factory=pin_factory,
                    )
                self.buttons[key] = button
                self._held[key] = False
                button.when_pressed = self._pressed(key)
                button.when_held = self._held_down(key)
                button.when_released = self._released(key)
        except BadPinFactory:
            self.close()
            raise ButtonError(
                "this machine has no GPIO pins gpiozero can use (on a Pi install lgpio); "
                "elsewhere use --buttons keyboard or --buttons mock"
            ) from None
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            self.close()
            where = f"the {_key_name(key)} button on pin {pin}"
            raise ButtonError(f"cannot set up {where}: {exc}") from None

    def _event(self, key: Key, gesture: Gesture) -> ButtonEvent:
        if isinstance(key, Pad):
            return ButtonEvent(gesture, pad=key)
        return ButtonEvent(gesture, seat=key)

    def _pressed(self, key: Key) -> Callable[[], None]:
        def handler() -> None:
            self._held[key] = False

        return handler

    def _held_down(self, key: Key) -> Callable[[], None]:
        def handler() -> None:
            self._held[key] = True
            self.sink(self._event(key, Gesture.HOLD))

        return handler

    def _released(self, key: Key) -> Callable[[], None]:
        def handler() -> None:
            if not self._held[key]:
                self.sink(self._event(key, Gesture.PRESS))
            self._held[key] = False

        return handler

    def pin(self, key: Key) -> Any:
        """The gpiozero pin of a button (a ``MockPin`` under ``MockFactory``: ``drive_low()`` presses it)."""
        return self.buttons[key].pin

    def close(self) -> None:
        """Free every pin. Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        for button in self.buttons.values():
            button.close()


def parse_key(line: str, seats: int = 6) -> ButtonEvent | None:
    """The event a line of keyboard input stands for; None for an empty line.

    ``1``…``6`` press a seat's button, ``o``/``ok``, ``u``/``undo`` and
    ``m``/``mode``/``n``/``next`` the pad; a trailing ``!`` (or a leading
    ``hold``) makes it a hold: ``u!``, ``hold 2``.

    >>> str(parse_key("3")), str(parse_key("hold undo")), parse_key("  ")
    ('press seat 3', 'hold undo', None)

    :raises ValueError: for anything else.
    """
    text = " ".join(line.strip().lower().split())
    if not text:
        return None
    gesture = Gesture.PRESS
    if text.endswith("!"):
        gesture, text = Gesture.HOLD, text[:-1].strip()
    elif text.startswith("hold "):
        gesture, text = Gesture.HOLD, text[5:].strip()
    if text.isdigit() and 1 <= int(text) <= seats:
        return ButtonEvent(gesture, seat=int(text) - 1)
    pads = {"o": Pad.OK, "ok": Pad.OK, "u": Pad.UNDO, "undo": Pad.UNDO,
            "m": Pad.MODE, "mode": Pad.MODE, "n": Pad.MODE, "next": Pad.MODE}
    if text in pads:
        return ButtonEvent(gesture, pad=pads[text])
    raise ValueError(
        f"unknown key {line.strip()!r}: type 1-{seats} for a seat, o (ok), u (undo) or m (mode), "
        "and add ! to hold"
    )


class KeyboardButtons(_Closing):
    """Buttons typed as lines of text (the desktop stand-in); see `parse_key`.

    :param stream: where lines come from (``sys.stdin``, or a ``StringIO`` in tests).
    :param sink: receives the events.
    :param seats: how many seat buttons exist.
    :param errors: where to write a one-line help for a line that is not a key (None: ignore it).
    """

    def __init__(self, stream: TextIO, sink: Sink, *, seats: int = 6, errors: TextIO | None = None) -> None:
        self.stream = stream
        self.sink = sink
        self.seats = seats
        self.errors = errors
        self._closed = False
        self._thread: threading.Thread | None = None

    def pump(self) -> int:
        """Read lines until the stream ends (or `close`); returns the number of events delivered."""
        count = 0
        for line in self.stream:
            if self._closed:
                break
            try:
                event = parse_key(line, self.seats)
            except ValueError as exc:
                if self.errors is not None:
                    print(exc, file=self.errors)
                continue
            if event is not None:
                self.sink(event)
                count += 1
        return count

    def start(self) -> None:
        """Run `pump` in a background (daemon) thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.pump, name="keyboard-buttons", daemon=True)
            self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the background thread to finish reading (the stream ended)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stop delivering events. Closing twice is harmless."""
        self._closed = True


#: The names `open_buttons` accepts.
BUTTON_BACKENDS = ("gpio", "mock", "keyboard")


def open_buttons(
    name: str, pins: PinMap, sink: Sink, *, seats: int, stream: TextIO | None = None,
    errors: TextIO | None = None,
) -> GpioButtons | KeyboardButtons:
    """Open the button backend called ``name``: ``gpio``, ``mock`` or ``keyboard``.

    ``keyboard`` reads ``stream`` (default: standard input) and must be
    started (``start()``) or pumped; the others deliver events at once.

    :raises UnknownBackend: for another name.
    :raises ButtonError: when the pins cannot be set up.
    """
    backend = name.strip().lower()
    if backend == "gpio":
        return GpioButtons(pins, sink, seats=seats)
    if backend == "mock":
        from hardware.fakes import mock_pin_factory

        return GpioButtons(pins, sink, seats=seats, pin_factory=mock_pin_factory())
    if backend == "keyboard":
        import sys

        return KeyboardButtons(stream if stream is not None else sys.stdin, sink, seats=seats, errors=errors)
    raise UnknownBackend(f"unknown buttons {name!r}: use one of {', '.join(BUTTON_BACKENDS)}")
