"""Configuration: the example file, defaults, and one-line errors that name the field."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest

import firmware.config
from firmware.config import ConfigError, load_config, parse_config, with_overrides
from hardware.buttons import PinMap
from hardware.display import Bus, DisplayDriver, EmulatorMode

EXAMPLE = Path(firmware.config.__file__).with_name("ringside.example.toml")


def test_example_file_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.game == "bigtop"
    assert config.seats == ("Alf", "Henry", "Charles", "John")
    assert config.camera.source == "picamera2" and config.camera.size == (2304, 1296)
    assert config.display.centre.port == 1 and config.display.centre.address == 0x3C
    assert [p.port for p in config.display.seats] == [10, 11, 12, 13]
    assert config.buttons.backend == "gpio" and config.buttons.pins == PinMap()
    assert set(config.display.by_name(config.seats)) == {"Alf", "Henry", "Charles", "John", "centre"}


def test_defaults() -> None:
    config = load_config(None)
    assert config.seats == ("Ann", "Ben", "Cat", "Dan")
    assert config.journal.name == "journal.db" and "~" not in str(config.journal)
    assert config.display.centre.driver is DisplayDriver.SSD1306
    assert [p.port for p in config.display.seats] == [10, 11, 12, 13]
    assert config.camera.picamera_settings().size == (2304, 1296)
    assert parse_config({"game": "fantan", "seats": ["a", "b", "c"]}).game == "fantan"


def test_spi_and_emulator_fields() -> None:
    config = parse_config({
        "seats": ["A", "B", "C"],
        "display": {"driver": "sh1106", "emulator_mode": "gifanim",
                    "seat": [{"bus": "spi", "port": 0, "spi_device": i, "rotate": 2} for i in range(3)]},
        "buttons": {"seats": ["GPIO5", "GPIO6", 13], "bounce_time": False},
    })
    assert [(p.bus, p.spi_device, p.rotate, p.driver) for p in config.display.seats] == [
        (Bus.SPI, i, 2, DisplayDriver.SH1106) for i in range(3)
    ]
    assert config.display.centre.emulator_mode is EmulatorMode.GIFANIM
    assert config.buttons.pins.bounce_time is None and config.buttons.pins.seats == ("GPIO5", "GPIO6", 13)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"sise": 3}, "ringside.toml: unknown field 'sise' in the top level; known fields: game, seats,"),
        ({"game": "chess"}, "ringside.toml: game: unknown game 'chess'"),
        ({"seats": ["A", "B"]}, "ringside.toml: seats: this game is for 3 to 6 players, not 2"),
        ({"seats": ["A", "B", "a"]}, "ringside.toml: seats[2]: 'a' sits at the table twice"),
        ({"seats": ["A", "B", "Mary Ann"]}, "ringside.toml: seats[2]: a seat name is one word"),
        ({"seats": ["A", "B", 3]}, "ringside.toml: seats[2]: a seat name is text, not a number"),
        ({"seats": "A B C"}, "ringside.toml: seats: must be a list, not text"),
        ({"camera": {"source": "webcam"}}, "ringside.toml: camera.source: unknown camera 'webcam'"),
        ({"camera": {"source": "opencv:x"}}, "ringside.toml: camera.source: write the USB camera number"),
        ({"camera": {"width": 10}}, "ringside.toml: camera.width: camera size 10x1296 is out of range"),
        ({"camera": {"warmup_s": "long"}}, "ringside.toml: camera.warmup_s: must be a number, not text"),
        ({"camera": {"autofocus": 1}}, "ringside.toml: camera.autofocus: must be true or false, not a number"),
        ({"camera": 3}, "ringside.toml: camera: must be a table, not a number"),
        ({"display": {"driver": "lcd"}}, "ringside.toml: display.driver: unknown display 'lcd'"),
        ({"display": {"centre": {"address": 0x90}}},
         "ringside.toml: display.centre.address: must be an I2C address 0x03 to 0x77, not 0x90"),
        ({"display": {"centre": {"address": "sixty"}}},
         "ringside.toml: display.centre.address: must be a number like 0x3C, not 'sixty'"),
        ({"display": {"centre": {"adress": 60}}}, "ringside.toml: unknown field 'adress' in [display.centre]"),
        ({"display": {"bus": "usb"}}, "ringside.toml: display.bus: must be 'i2c' or 'spi', not 'usb'"),
        ({"display": {"seat": [{"port": 1}]}},
         "ringside.toml: display.seat: lists 1 panels for 4 seats: give one [[display.seat]] per seat"),
        ({"display": {"seat": [{"port": 1}, {"port": 2}, {"port": 3}, {"port": 4, "rotate": 5}]}},
         "ringside.toml: display.seat[3].rotate: display rotate is 0, 1, 2 or 3 quarter turns, not 5"),
        ({"display": {"seat": [{"port": 1}, {"port": 2}, {"port": 3}, {"port": 4}]}},
         "ringside.toml: display.seat[0]: I2C bus 1 address 0x3c is already used by display.centre"),
        ({"buttons": {"backend": "joystick"}}, "ringside.toml: buttons.backend: unknown buttons 'joystick'"),
        ({"buttons": {"seats": [5, 6]}}, "ringside.toml: buttons.seats: wires 2 seat buttons for 4 seats"),
        ({"buttons": {"seats": [5, 6, 13, 17]}},
         "ringside.toml: buttons: pin 17 is wired to both seat 4 and ok"),
        ({"buttons": {"hold_time": 0}}, "ringside.toml: buttons.hold_time: hold_time must be more than 0"),
        ({"buttons": {"seats": [5, 6, 13, 1.5]}}, "ringside.toml: buttons.seats[3]: a pin is a BCM number"),
    ],
)
def test_errors_are_one_line_naming_the_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    text = str(info.value)
    assert text.startswith(message), text
    assert "\n" not in text


def test_error_field_attribute() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"display": {"centre": {"address": 0x90}}})
    assert info.value.field == "display.centre.address"


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration .*missing.toml"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seats = [\n")
    with pytest.raises(ConfigError, match="bad.toml is not valid TOML"):
        load_config(bad)
    named = tmp_path / "table.toml"
    named.write_text('[buttons]\nbackend = "joystick"\n')
    with pytest.raises(ConfigError, match="^table.toml: buttons.backend: "):
        load_config(named)


def test_command_line_overrides() -> None:
    config = with_overrides(load_config(EXAMPLE), camera="images:/tmp/photos", display="emulator", buttons="keyboard")
    assert config.camera.source == "images:/tmp/photos" and config.camera.size == (2304, 1296)
    assert {p.driver for p in (config.display.centre, *config.display.seats)} == {DisplayDriver.EMULATOR}
    assert config.buttons.backend == "keyboard"
    with pytest.raises(ConfigError, match="--display: unknown display 'tv'"):
        with_overrides(config, display="tv")
    with pytest.raises(ConfigError, match="--buttons: unknown buttons 'pad'"):
        with_overrides(config, buttons="pad")
    with pytest.raises(ConfigError, match="unknown camera 'usb'"):
        with_overrides(config, camera="usb")


def test_doctests() -> None:
    result = doctest.testmod(firmware.config)
    assert result.attempted > 0 and result.failed == 0
