"""Buttons: gpiozero with MockFactory, press versus hold, the keyboard stand-in, the factory."""

from __future__ import annotations

import doctest
import io
import queue
import time
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

import hardware.buttons
from hardware.buttons import (
    ButtonEvent,
    Gesture,
    GpioButtons,
    KeyboardButtons,
    Pad,
    PinMap,
    open_buttons,
    parse_key,
)
from hardware.errors import ButtonError, UnknownBackend

#: A long hold time, so that a press-and-release on a busy machine is never taken for a hold.
PINS = PinMap(hold_time=2.0, bounce_time=None)
#: A short one for the hold test.
QUICK_HOLD = PinMap(hold_time=0.2, bounce_time=None)


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins as the global factory; reset and restored afterwards."""
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def events() -> queue.Queue[ButtonEvent]:
    return queue.Queue()


def drain(q: queue.Queue[ButtonEvent]) -> list[str]:
    out = []
    while True:
        try:
            out.append(str(q.get_nowait()))
        except queue.Empty:
            return out


def test_short_press_is_one_press_event(mock_factory: MockFactory, events: queue.Queue[ButtonEvent]) -> None:
    with GpioButtons(PINS, events.put, seats=3) as buttons:
        pin = mock_factory.pin(PINS.seats[1])
        assert buttons.pin(1) is pin
        pin.drive_low()
        pin.drive_high()
        assert events.get(timeout=2) == ButtonEvent(Gesture.PRESS, seat=1)
        buttons.pin(Pad.UNDO).drive_low()
        buttons.pin(Pad.UNDO).drive_high()
        assert str(events.get(timeout=2)) == "press undo"
        assert drain(events) == []


def test_hold_is_one_hold_event_and_no_press(mock_factory: MockFactory, events: queue.Queue[ButtonEvent]) -> None:
    with GpioButtons(QUICK_HOLD, events.put, seats=3) as buttons:
        pin = buttons.pin(Pad.OK)
        pin.drive_low()
        assert events.get(timeout=3) == ButtonEvent(Gesture.HOLD, pad=Pad.OK)
        pin.drive_high()
        time.sleep(0.05)
        assert drain(events) == []
        # A short press after a hold is a press again.
        pin.drive_low()
        pin.drive_high()
        assert str(events.get(timeout=2)) == "press ok"


def test_close_is_idempotent_and_frees_pins(mock_factory: MockFactory, events: queue.Queue[ButtonEvent]) -> None:
    buttons = GpioButtons(PINS, events.put, seats=2)
    buttons.close()
    buttons.close()
    assert all(b.closed for b in buttons.buttons.values())
    # The pins are free again.
    with GpioButtons(PINS, events.put, seats=2):
        pass


def test_pin_in_use_is_a_button_error(mock_factory: MockFactory, events: queue.Queue[ButtonEvent]) -> None:
    with GpioButtons(PINS, events.put, seats=2):
        with pytest.raises(ButtonError, match="seat 1 button on pin 5"):
            GpioButtons(PINS, events.put, seats=2)


def test_injected_factory_and_mock_backend(events: queue.Queue[ButtonEvent]) -> None:
    """``mock`` brings its own MockFactory: no global state needed."""
    with open_buttons("mock", PINS, events.put, seats=4) as buttons:
        assert isinstance(buttons, GpioButtons)
        assert isinstance(buttons.pin_factory, MockFactory)
        buttons.pin(3).drive_low()
        buttons.pin(3).drive_high()
        assert str(events.get(timeout=2)) == "press seat 4"
    buttons.pin_factory.reset()


def test_pin_map_checks() -> None:
    with pytest.raises(ValueError, match="pin 17 is wired to both seat 2 and ok"):
        PinMap(seats=(5, 17))
    with pytest.raises(ValueError, match="pin 5 is wired to both seat 1 and mode"):
        PinMap(seats=("GPIO5",), mode=5)
    with pytest.raises(ValueError, match="hold_time"):
        PinMap(hold_time=0)
    with pytest.raises(ValueError, match="wires 2 seat buttons, not 3"):
        PinMap(seats=(5, 6)).assignments(3)


def test_event_names_one_button() -> None:
    with pytest.raises(ValueError, match="either a seat or a pad key"):
        ButtonEvent(Gesture.PRESS)
    with pytest.raises(ValueError, match="either a seat or a pad key"):
        ButtonEvent(Gesture.PRESS, seat=0, pad=Pad.OK)


def test_parse_key() -> None:
    assert parse_key("2") == ButtonEvent(Gesture.PRESS, seat=1)
    assert parse_key("M!") == ButtonEvent(Gesture.HOLD, pad=Pad.MODE)
    assert parse_key("next") == ButtonEvent(Gesture.PRESS, pad=Pad.MODE)
    assert parse_key("") is None
    with pytest.raises(ValueError, match="unknown key '7'"):
        parse_key("7", seats=6)
    with pytest.raises(ValueError, match="unknown key 'x'"):
        parse_key("x")


def test_keyboard_pump_and_thread(events: queue.Queue[ButtonEvent]) -> None:
    errors = io.StringIO()
    keys = KeyboardButtons(io.StringIO("1\nbanana\n\nhold 3\nu\n"), events.put, seats=3, errors=errors)
    keys.start()
    keys.join(timeout=5)
    assert drain(events) == ["press seat 1", "hold seat 3", "press undo"]
    assert errors.getvalue().startswith("unknown key 'banana'") and errors.getvalue().count("\n") == 1
    keys.close()
    keys.close()


def test_factory_by_name(events: queue.Queue[ButtonEvent]) -> None:
    keys = open_buttons("keyboard", PINS, events.put, seats=2, stream=io.StringIO("o\n"))
    assert isinstance(keys, KeyboardButtons) and keys.pump() == 1
    with pytest.raises(UnknownBackend, match="unknown buttons 'joystick': use one of gpio, mock, keyboard"):
        open_buttons("joystick", PINS, events.put, seats=2)


def test_gpio_without_gpio_says_what_to_do(monkeypatch: pytest.MonkeyPatch,
                                           events: queue.Queue[ButtonEvent]) -> None:
    from gpiozero.exc import BadPinFactory

    saved = Device.pin_factory
    Device.pin_factory = None

    def no_factory() -> None:
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_factory))
    try:
        with pytest.raises(ButtonError, match="use --buttons keyboard or --buttons mock"):
            open_buttons("gpio", PINS, events.put, seats=2)
    finally:
        Device.pin_factory = saved


def test_doctests() -> None:
    result = doctest.testmod(hardware.buttons)
    assert result.attempted > 0 and result.failed == 0


def test_gpio_on_a_machine_without_pins_is_one_line_and_no_warnings(capfd: pytest.CaptureFixture[str]) -> None:
    """The real fallback chain of gpiozero (lgpio, RPi.GPIO, pigpio, native) warns at each step: not shown."""
    import warnings

    saved = Device.pin_factory
    Device.pin_factory = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                open_buttons("gpio", PinMap(), lambda _e: None, seats=3).close()
            except ButtonError as err:
                assert "\n" not in str(err)
            else:
                pytest.skip("this machine has GPIO pins")
        assert not [w for w in caught if "Falling back" in str(w.message)]
    finally:
        Device.pin_factory = saved
