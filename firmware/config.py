"""Ringside's configuration: one TOML file, validated field by field, with defaults for everything.

`load_config` reads the file (``ringside.example.toml`` next to this module
documents every field); `parse_config` checks already-parsed data. A mistake
is a `ConfigError` whose message is one line naming the file and the field::

    ringside.toml: display.seat[2].address: must be an I2C address 0x03 to 0x77, not 0x90

The backends can be changed without editing the file (``--camera``,
``--display``, ``--buttons``) with `with_overrides`.

>>> config = parse_config({"seats": ["Alf", "Henry", "Charles"], "buttons": {"backend": "keyboard"}})
>>> config.seats, config.buttons.backend, config.display.centre.address
(('Alf', 'Henry', 'Charles'), 'keyboard', 60)
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from firmware.table import adapter
from hardware.buttons import BUTTON_BACKENDS, PinMap
from hardware.display import Bus, DisplayDriver, DisplaySpec, EmulatorMode
from hardware.errors import UnknownBackend
from hardware.picamera import PiCameraSettings
from scorer.core import DEFAULT_NAMES, TableError

__all__ = [
    "WebConfig",
    "ButtonsConfig",
    "CameraConfig",
    "ConfigError",
    "DisplayConfig",
    "RingsideConfig",
    "default_config_path",
    "describe_source",
    "load_config",
    "parse_config",
    "with_overrides",
]

#: Where the journal goes when the file does not say.
DEFAULT_JOURNAL = "~/.local/share/ringside/journal.db"
#: The I2C bus number of the first seat panel by default: with ``dtoverlay=i2c-mux,pca9548``
#: the TCA9548A channels appear as buses of their own (check ``i2cdetect -l``).
DEFAULT_SEAT_BUS = 10


class ConfigError(TableError, ValueError):
    """A configuration file or value that is not valid; ``field`` names the bad field."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """``[camera]``: which frame source, and the Pi camera's settings."""

    source: str = "picamera2"
    size: tuple[int, int] = (2304, 1296)
    warmup_s: float = 2.0
    autofocus: bool = True
    lens_position: float | None = None

    def picamera_settings(self) -> PiCameraSettings:
        """The settings of `hardware.picamera.PiCameraSource`."""
        return PiCameraSettings(
            size=self.size, warmup_s=self.warmup_s, autofocus=self.autofocus, lens_position=self.lens_position
        )


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """``[display]``: the central panel and one panel per seat, in seat order."""

    centre: DisplaySpec
    seats: tuple[DisplaySpec, ...]

    def by_name(self, seat_names: tuple[str, ...]) -> dict[str, DisplaySpec]:
        """The panels keyed by seat name, plus ``"centre"`` (for `hardware.display.open_panels`)."""
        panels = dict(zip(seat_names, self.seats))
        panels["centre"] = self.centre
        return panels


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """``[buttons]``: the backend and the pin map."""

    backend: str = "gpio"
    pins: PinMap = field(default_factory=PinMap)


@dataclass(frozen=True, slots=True)
class WebConfig:
    """``[web]``: the scoreboard page (off unless ``address`` or ``--web`` is given)."""

    #: ``HOST:PORT`` or ``PORT`` (this machine only); None: no page
    address: str | None = None
    #: the access token a page on another address needs (None: a new one at each start)
    token: str | None = None


@dataclass(frozen=True, slots=True)
class RingsideConfig:
    """The whole configuration."""

    game: str
    seats: tuple[str, ...]
    journal: Path
    camera: CameraConfig
    display: DisplayConfig
    buttons: ButtonsConfig
    #: The file this configuration was read from; None for the built-in defaults.
    source: Path | None = None
    web: WebConfig = field(default_factory=WebConfig)


# -- reading -----------------------------------------------------------------------------


def default_config_path() -> Path:
    """Where Ringside looks for its configuration when none is named.

    ``$XDG_CONFIG_HOME/ringside/ringside.toml``, or ``~/.config/ringside/ringside.toml``
    when ``XDG_CONFIG_HOME`` is unset or not an absolute path (the XDG rule).
    """
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path("~/.config").expanduser()
    return base / "ringside" / "ringside.toml"


def load_config(path: str | Path | None = None) -> RingsideConfig:
    """Read and check a TOML configuration.

    With no ``path``, `default_config_path` is read when that file exists, and the
    built-in defaults are used otherwise. The result's ``source`` says which file was read.

    :raises ConfigError: one line naming the file, when it cannot be read, is not UTF-8 TOML,
        or a field is wrong.
    """
    if path is None:
        default = default_config_path()
        if not default.exists():
            return parse_config({})
        path = default
    name = str(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration {name}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name} is not a UTF-8 text file (byte {exc.start + 1} is {exc.object[exc.start]:#04x})"
                          ) from None
    except RecursionError:
        raise ConfigError(f"{name} nests tables or arrays too deeply to be a Ringside configuration") from None
    except MemoryError:
        raise ConfigError(f"{name} is too large to be a Ringside configuration") from None
    try:
        config = parse_config(data, source=Path(name).name)
    except RecursionError:
        raise ConfigError(f"{name} nests tables or arrays too deeply to be a Ringside configuration") from None
    return replace(config, source=Path(name))


def describe_source(config: RingsideConfig) -> str:
    """One line for the start-up output: which configuration file was read, or that none was.

    >>> describe_source(parse_config({}))[:44]
    'configuration: built-in defaults (no file at'
    """
    if config.source is not None:
        return f"configuration: {config.source}"
    return f"configuration: built-in defaults (no file at {default_config_path()})"


class _Reader:
    """Checks one TOML table; every message names the source file and the field."""

    def __init__(self, data: Any, where: str, source: str) -> None:
        self.where = where
        self.source = source
        if not isinstance(data, dict):
            self.fail("", f"must be a table, not {_kind(data)}")
        self.data: dict[str, Any] = data

    def name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, problem: str) -> None:
        fieldname = self.name(key) if key else self.where
        raise ConfigError(f"{self.source}: {fieldname}: {problem}", fieldname)

    def only(self, *known: str) -> None:
        for key in self.data:
            if key not in known:
                where = f"[{self.where}]" if self.where else "the top level"
                raise ConfigError(
                    f"{self.source}: unknown field {key!r} in {where}; known fields: {', '.join(known)}",
                    self.name(key),
                )

    def get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        if key not in self.data:
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and bool not in kinds:
            self.fail(key, f"must be {_names(kinds)}, not {_kind(value)}")
        if not isinstance(value, kinds):
            self.fail(key, f"must be {_names(kinds)}, not {_kind(value)}")
        return value

    def table(self, key: str) -> _Reader:
        return _Reader(self.data.get(key, {}), self.name(key), self.source)


def _kind(value: Any) -> str:
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _names(kinds: tuple[type, ...]) -> str:
    words = {int: "a whole number", float: "a number", str: "text", bool: "true or false", list: "a list",
             dict: "a table"}
    return " or ".join(dict.fromkeys(words.get(k, k.__name__) for k in kinds))


def parse_config(data: Mapping[str, Any], source: str = "ringside.toml") -> RingsideConfig:
    """Check parsed TOML data and fill in the defaults.

    :raises ConfigError: naming the first field that is wrong.
    """
    top = _Reader(dict(data), "", source)
    top.only("game", "seats", "journal", "camera", "display", "buttons", "web")
    game_name = top.get("game", str, "bigtop")
    try:
        game = adapter(game_name).game
    except TableError as exc:
        top.fail("game", str(exc))
    info = game.info
    seats = _seats(top, info.min_players, info.max_players)
    journal = Path(top.get("journal", str, DEFAULT_JOURNAL)).expanduser()
    return RingsideConfig(
        game=game.name,
        seats=seats,
        journal=journal,
        camera=_camera(top.table("camera")),
        display=_display(top.table("display"), len(seats)),
        buttons=_buttons(top.table("buttons"), len(seats)),
        web=_web(top.table("web")),
    )


def _web(t: _Reader) -> WebConfig:
    t.only("address", "token")
    address = t.get("address", str, None)
    if address is not None:
        from firmware.web import WebError, parse_address

        try:
            parse_address(address)
        except WebError as exc:
            t.fail("address", str(exc).removeprefix("--web: ").removeprefix("--web "))
    token = t.get("token", str, None)
    if token is not None and len(token.strip()) < 8:
        t.fail("token", "an access token needs at least 8 characters")
    return WebConfig(address, token)


def _seats(top: _Reader, low: int, high: int) -> tuple[str, ...]:
    default = list(DEFAULT_NAMES[: max(low, min(4, high))])
    names = top.get("seats", list, default)
    if not low <= len(names) <= high:
        top.fail("seats", f"this game is for {low} to {high} players, not {len(names)}")
    seen: set[str] = set()
    for i, name in enumerate(names):
        where = f"seats[{i}]"
        if not isinstance(name, str) or not name.strip():
            top.fail(where, f"a seat name is text, not {_kind(name)}" if not isinstance(name, str) else "is empty")
        if len(name.split()) != 1:
            top.fail(where, f"a seat name is one word (moves are written '<name> play <card>'), not {name!r}")
        if name.lower() in seen:
            top.fail(where, f"{name!r} sits at the table twice")
        seen.add(name.lower())
    return tuple(names)


def _camera(t: _Reader) -> CameraConfig:
    t.only("source", "width", "height", "warmup_s", "autofocus", "lens_position")
    source = t.get("source", str, "picamera2").strip()
    from hardware.camera import camera_names

    scheme, _, arg = source.partition(":")
    if scheme not in camera_names():
        t.fail("source", f"unknown camera {source!r}: use picamera2, opencv:N, video:FILE, images:DIR or simulated")
    if scheme in ("opencv",) and not arg.isdigit():
        t.fail("source", f"write the USB camera number after 'opencv:', e.g. 'opencv:0', not {source!r}")
    if scheme in ("video", "images") and not arg:
        t.fail("source", f"write the {'file' if scheme == 'video' else 'folder'} after '{scheme}:'")
    width = t.get("width", int, 2304)
    height = t.get("height", int, 1296)
    lens = t.get("lens_position", float, None)
    config = CameraConfig(source, (width, height), t.get("warmup_s", float, 2.0), t.get("autofocus", bool, True), lens)
    try:
        config.picamera_settings()
    except ValueError as exc:
        key = "width" if "size" in str(exc) else "lens_position" if "lens" in str(exc) else "warmup_s"
        t.fail(key, str(exc))
    return config


_PANEL_FIELDS = ("driver", "bus", "port", "address", "spi_device", "gpio_dc", "gpio_rst", "rotate")


def _panel(t: _Reader, defaults: DisplaySpec) -> DisplaySpec:
    values: dict[str, Any] = {}
    if "driver" in t.data:
        try:
            values["driver"] = DisplayDriver.parse(t.get("driver", str, ""))
        except UnknownBackend as exc:
            t.fail("driver", str(exc))
    if "bus" in t.data:
        bus = t.get("bus", str, "").lower()
        if bus not in ("i2c", "spi"):
            t.fail("bus", f"must be 'i2c' or 'spi', not {t.data['bus']!r}")
        values["bus"] = Bus(bus)
    if "address" in t.data:
        address = t.get("address", (int, str), 0x3C)
        if isinstance(address, str):
            try:
                address = int(address, 0)
            except ValueError:
                t.fail("address", f"must be a number like 0x3C, not {address!r}")
        values["address"] = address
    for key in ("port", "spi_device", "gpio_dc", "gpio_rst", "rotate"):
        if key in t.data:
            values[key] = t.get(key, int, 0)
    try:
        return replace(defaults, **values)
    except ValueError as exc:
        message = str(exc)
        key = next((k for k in ("address", "port", "rotate") if k in message), "")
        problem = "must be " + message.split(" must be ", 1)[1] if " must be " in message else message
        t.fail(key, problem)
        raise  # pragma: no cover - fail() raised


def _display(t: _Reader, seats: int) -> DisplayConfig:
    t.only(*_PANEL_FIELDS, "emulator_mode", "output", "first_seat_bus", "centre", "seat")
    base = _panel(t, DisplaySpec())
    if "emulator_mode" in t.data:
        mode = t.get("emulator_mode", str, "capture").lower()
        if mode not in ("capture", "gifanim"):
            t.fail("emulator_mode", f"must be 'capture' or 'gifanim', not {t.data['emulator_mode']!r}")
        base = replace(base, emulator_mode=EmulatorMode(mode))
    base = replace(base, output=t.get("output", str, base.output))
    first_bus = t.get("first_seat_bus", int, DEFAULT_SEAT_BUS)
    centre_table = t.table("centre")
    centre_table.only(*_PANEL_FIELDS)
    centre = _panel(centre_table, base)
    raw_seats = t.get("seat", list, [])
    if raw_seats and len(raw_seats) != seats:
        t.fail("seat", f"lists {len(raw_seats)} panels for {seats} seats: give one [[display.seat]] per seat")
    panels = []
    for i in range(seats):
        if raw_seats:
            table = _Reader(raw_seats[i], f"display.seat[{i}]", t.source)
            table.only(*_PANEL_FIELDS)
            panels.append(_panel(table, base))
        else:
            panels.append(replace(base, port=first_bus + i) if base.bus is Bus.I2C else base)
    _check_unique(t.source, [("display.centre", centre)] + [(f"display.seat[{i}]", p) for i, p in enumerate(panels)])
    return DisplayConfig(centre, tuple(panels))


def _check_unique(source: str, panels: list[tuple[str, DisplaySpec]]) -> None:
    used: dict[tuple[Any, ...], str] = {}
    for name, spec in panels:
        if not spec.driver.is_real:
            continue
        if spec.bus is Bus.I2C:
            key: tuple[Any, ...] = ("i2c", spec.port, spec.address)
            where = f"I2C bus {spec.port} address {spec.address:#04x}"
        else:
            key = ("spi", spec.port, spec.spi_device)
            where = f"SPI {spec.port}.{spec.spi_device}"
        if key in used:
            raise ConfigError(f"{source}: {name}: {where} is already used by {used[key]}", name)
        used[key] = name


def _buttons(t: _Reader, seats: int) -> ButtonsConfig:
    t.only("backend", "seats", "ok", "undo", "mode", "hold_time", "bounce_time")
    backend = t.get("backend", str, "gpio").strip().lower()
    if backend not in BUTTON_BACKENDS:
        t.fail("backend", f"unknown buttons {backend!r}: use one of {', '.join(BUTTON_BACKENDS)}")
    defaults = PinMap()
    pins = t.get("seats", list, list(defaults.seats))
    for i, pin in enumerate(pins):
        if isinstance(pin, bool) or not isinstance(pin, (int, str)):
            t.fail(f"seats[{i}]", f"a pin is a BCM number like 17 or a name like 'GPIO17', not {_kind(pin)}")
    if len(pins) < seats:
        t.fail("seats", f"wires {len(pins)} seat buttons for {seats} seats")
    bounce = t.get("bounce_time", (float, bool), defaults.bounce_time)
    if bounce is False:
        bounce = None
    elif bounce is True:
        t.fail("bounce_time", "must be a number of seconds, or false for none")
    try:
        pin_map = PinMap(
            seats=tuple(pins),
            ok=t.get("ok", (int, str), defaults.ok),
            undo=t.get("undo", (int, str), defaults.undo),
            mode=t.get("mode", (int, str), defaults.mode),
            hold_time=t.get("hold_time", float, defaults.hold_time),
            bounce_time=bounce,
        )
    except ValueError as exc:
        message = str(exc)
        key = "hold_time" if message.startswith("hold_time") else "bounce_time" if message.startswith("bounce") else ""
        raise ConfigError(f"{t.source}: {t.name(key) if key else t.where}: {message}", t.name(key)) from None
    return ButtonsConfig(backend, pin_map)


def with_overrides(
    config: RingsideConfig, *, camera: str | None = None, display: str | None = None, buttons: str | None = None
) -> RingsideConfig:
    """The configuration with backends replaced from the command line.

    ``display`` replaces the driver of every panel (``emulator`` on the
    desktop, ``dummy`` in tests).

    :raises ConfigError: for a name no backend answers to.
    """
    if camera is not None:
        config = replace(config, camera=_camera(_Reader({**_camera_dict(config.camera), "source": camera},
                                                        "--camera", "command line")))
    if display is not None:
        try:
            driver = DisplayDriver.parse(display)
        except UnknownBackend as exc:
            raise ConfigError(f"--display: {exc}", "display") from None
        panels = config.display
        config = replace(config, display=DisplayConfig(
            replace(panels.centre, driver=driver), tuple(replace(p, driver=driver) for p in panels.seats)
        ))
    if buttons is not None:
        name = buttons.strip().lower()
        if name not in BUTTON_BACKENDS:
            raise ConfigError(f"--buttons: unknown buttons {buttons!r}: use one of {', '.join(BUTTON_BACKENDS)}",
                              "buttons")
        config = replace(config, buttons=replace(config.buttons, backend=name))
    return config


def _camera_dict(camera: CameraConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"width": camera.size[0], "height": camera.size[1], "warmup_s": camera.warmup_s,
                           "autofocus": camera.autofocus}
    if camera.lens_position is not None:
        out["lens_position"] = camera.lens_position
    return out
