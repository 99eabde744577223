"""The 128x64 OLED panels: luma.oled devices chosen by name, and a `Panel` that skips unchanged frames.

One panel stands beside each seat and one in the middle of the table. Each is
described by a `DisplaySpec` and opened with `open_display`:

* ``ssd1306``, ``sh1106``, ``ssd1309`` — real panels through luma.oled, on I2C
  (``port`` = the bus number, ``address`` usually 0x3C or 0x3D) or SPI. A
  TCA9548A multiplexer's channels appear (with the ``i2c-mux`` overlay) as
  I2C buses of their own, so a panel behind channel 2 is simply
  ``port = <that bus number>``, and several panels can share address 0x3C;
* ``emulator`` — luma.emulator on the desktop: ``capture`` writes one PNG per
  frame, ``gifanim`` collects an animated GIF written at exit;
* ``dummy`` — luma's in-memory device (tests): the last frame is in ``.image``.

luma is imported only when a panel is opened.

>>> def hello(text, draw):
...     draw.text((0, 0), text, fill="white")
>>> panel = Panel(open_display(DisplaySpec(DisplayDriver.DUMMY)), "centre")
>>> panel.draw(hello, "Turn: Alf")
True
>>> panel.draw(hello, "Turn: Alf")
False
>>> panel.redraws
1
"""

from __future__ import annotations

import atexit
import enum
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from PIL import Image, ImageDraw

from hardware.errors import DisplayError, UnknownBackend

__all__ = [
    "Bus",
    "DisplayDriver",
    "DisplaySpec",
    "EmulatorMode",
    "Panel",
    "open_display",
    "open_panels",
]

WIDTH, HEIGHT = 128, 64


class DisplayDriver(enum.Enum):
    """The panel backends, by the names used in the configuration and on the command line."""

    SSD1306 = "ssd1306"
    SH1106 = "sh1106"
    SSD1309 = "ssd1309"
    EMULATOR = "emulator"
    DUMMY = "dummy"

    @classmethod
    def parse(cls, name: str) -> DisplayDriver:
        """The driver called ``name``.

        :raises UnknownBackend: for any other name.
        """
        try:
            return cls(name.strip().lower())
        except ValueError:
            raise UnknownBackend(
                f"unknown display {name!r}: use one of {', '.join(d.value for d in cls)}"
            ) from None

    @property
    def is_real(self) -> bool:
        """True for the drivers that talk to a physical panel."""
        return self in (DisplayDriver.SSD1306, DisplayDriver.SH1106, DisplayDriver.SSD1309)


class Bus(enum.Enum):
    """How a real panel is wired."""

    I2C = "i2c"
    SPI = "spi"


class EmulatorMode(enum.Enum):
    """What the desktop emulator writes."""

    #: One PNG per frame.
    CAPTURE = "capture"
    #: An animated GIF, written when the program ends.
    GIFANIM = "gifanim"


@dataclass(frozen=True, slots=True)
class DisplaySpec:
    """One panel: its driver and where it is wired.

    :param driver: the backend.
    :param bus: I2C or SPI (real panels).
    :param port: the I2C bus number (a TCA9548A channel is its own bus) or the SPI port.
    :param address: the I2C address (0x3C or 0x3D on most panels).
    :param spi_device: the SPI chip-select number.
    :param gpio_dc: the BCM pin of the SPI data/command line.
    :param gpio_rst: the BCM pin of the SPI reset line.
    :param rotate: 0..3 quarter turns.
    :param emulator_mode: what the emulator writes.
    :param output: the emulator's folder (capture) or GIF file (gifanim).
    """

    driver: DisplayDriver = DisplayDriver.SSD1306
    bus: Bus = Bus.I2C
    port: int = 1
    address: int = 0x3C
    spi_device: int = 0
    gpio_dc: int = 24
    gpio_rst: int = 25
    rotate: int = 0
    emulator_mode: EmulatorMode = EmulatorMode.CAPTURE
    output: str = "panels"

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 255:
            raise ValueError(f"display port must be 0 to 255, not {self.port}")
        if not 0x03 <= self.address <= 0x77:
            raise ValueError(f"display address must be an I2C address 0x03 to 0x77, not {self.address:#x}")
        if self.rotate not in (0, 1, 2, 3):
            raise ValueError(f"display rotate is 0, 1, 2 or 3 quarter turns, not {self.rotate}")

    def describe(self) -> str:
        """Where the panel is, for messages: ``ssd1306 on I2C bus 1 at 0x3c``."""
        if self.driver is DisplayDriver.DUMMY:
            return "dummy panel"
        if self.driver is DisplayDriver.EMULATOR:
            return f"emulated panel ({self.emulator_mode.value} to {self.output})"
        if self.bus is Bus.I2C:
            return f"{self.driver.value} on I2C bus {self.port} at {self.address:#04x}"
        return f"{self.driver.value} on SPI {self.port}.{self.spi_device}"


def _serial(spec: DisplaySpec) -> Any:
    from luma.core.interface.serial import i2c, spi  # type: ignore[import-untyped]

    if spec.bus is Bus.I2C:
        return i2c(port=spec.port, address=spec.address)
    return spi(port=spec.port, device=spec.spi_device, gpio_DC=spec.gpio_dc, gpio_RST=spec.gpio_rst)


def open_display(spec: DisplaySpec, name: str = "panel") -> Any:
    """Open the luma device for ``spec`` (128x64, mode "1" except the emulator's RGB).

    ``name`` tells emulated panels apart (it is part of their file names).

    :raises DisplayError: when the panel is not there or luma cannot drive it.
    """
    driver = spec.driver
    try:
        if driver is DisplayDriver.DUMMY:
            from luma.core.device import dummy  # type: ignore[import-untyped]

            return dummy(width=WIDTH, height=HEIGHT, rotate=spec.rotate, mode="1")
        if driver is DisplayDriver.EMULATOR:
            return _open_emulator(spec, name)
        from luma.oled import device as oled  # type: ignore[import-untyped]

        cls = {DisplayDriver.SSD1306: oled.ssd1306, DisplayDriver.SH1106: oled.sh1106,
               DisplayDriver.SSD1309: oled.ssd1309}[driver]
        return cls(_serial(spec), width=WIDTH, height=HEIGHT, rotate=spec.rotate)
    except ImportError as exc:
        hint = " (SPI panels need RPi.GPIO, or rpi-lgpio on a Pi 5)" if exc.name == "RPi" else ""
        raise DisplayError(
            f"cannot open the {name} panel ({spec.describe()}): {exc.name} is not installed{hint}"
        ) from None
    except DisplayError:
        raise
    except Exception as exc:  # luma raises its own errors, OSError and (sadly) AssertionError
        detail = str(exc).strip() or type(exc).__name__
        raise DisplayError(f"cannot open the {name} panel ({spec.describe()}): {detail}") from None


def _open_emulator(spec: DisplaySpec, name: str) -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        from luma.emulator import device as emulator  # type: ignore[import-untyped]
    except ImportError:  # the desktop stand-ins are not installed on a Pi by default
        raise DisplayError("the emulated panels need luma.emulator: pip install 'ringside[desktop]' "
                           "(it is installed by default everywhere but on the Pi)") from None

    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "panel"
    if spec.emulator_mode is EmulatorMode.CAPTURE:
        folder = Path(spec.output)
        folder.mkdir(parents=True, exist_ok=True)
        return emulator.capture(
            width=WIDTH, height=HEIGHT, rotate=spec.rotate, mode="1", transform="none", scale=1,
            file_template=str(folder / f"{safe}_{{0:06}}.png"),
        )
    target = Path(spec.output)
    if target.suffix.lower() != ".gif":
        target.mkdir(parents=True, exist_ok=True)
        target = target / f"{safe}.gif"
    return emulator.gifanim(
        width=WIDTH, height=HEIGHT, rotate=spec.rotate, mode="1", transform="none", scale=1,
        filename=str(target), duration=0.5,
    )


V = TypeVar("V")


class Panel:
    """One panel that redraws only when its picture changed.

    Drawing a frame to an I2C OLED takes about 25 ms at 400 kHz; the referee
    asks for the screens far more often than they change, so `show` compares
    the new frame with the last one sent and skips identical frames.

    :param device: a luma device (``display(image)``, ``mode``, ``size``).
    :param name: for messages (``"Alf"``, ``"centre"``).
    """

    def __init__(self, device: Any, name: str = "panel") -> None:
        self.device = device
        self.name = name
        #: How many frames were actually sent to the device.
        self.redraws = 0
        self._last: bytes | None = None
        self._closed = False

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        width, height = self.device.size
        return int(width), int(height)

    def show(self, image: Image.Image) -> bool:
        """Send ``image`` unless it is the frame already shown. True when it was sent.

        :raises DisplayError: when the panel is closed, the image has the wrong size,
            or the device fails.
        """
        if self._closed:
            raise DisplayError(f"the {self.name} panel is closed")
        if image.size != self.size:
            raise DisplayError(f"the {self.name} panel is {self.size[0]}x{self.size[1]}, the image "
                               f"{image.size[0]}x{image.size[1]}")
        frame = image if image.mode == self.device.mode else image.convert(self.device.mode)
        data = frame.tobytes()
        if data == self._last:
            return False
        try:
            self.device.display(frame)
        except OSError as exc:
            self._last = None
            raise DisplayError(f"the {self.name} panel stopped answering: {exc.strerror or exc}") from None
        self._last = data
        self.redraws += 1
        return True

    def draw(self, render: Callable[[V, ImageDraw.ImageDraw], None], view: V) -> bool:
        """Render ``view`` with ``render`` onto a blank frame and `show` it. True when it was sent."""
        image = Image.new(self.device.mode, self.size, 0)
        render(view, ImageDraw.Draw(image))
        return self.show(image)

    def clear(self) -> None:
        """Blank the panel (always sent)."""
        self._last = None
        self.show(Image.new(self.device.mode, self.size, 0))

    def close(self) -> None:
        """Release the panel (luma's cleanup blanks and powers it down). Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        write = getattr(self.device, "write_animation", None)
        if write is not None:  # luma.emulator gifanim: write the GIF now, not at interpreter exit
            atexit.unregister(write)
            write()
        try:
            self.device.cleanup()
        except OSError:
            pass  # the panel is gone already; nothing left to release

    def __enter__(self) -> Panel:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Panel {self.name} redraws={self.redraws}>"


def open_panels(specs: Mapping[str, DisplaySpec]) -> dict[str, Panel]:
    """Open one `Panel` per name (seat names and ``"centre"``); on a failure, close those opened.

    :raises DisplayError: naming the panel that could not be opened.
    """
    panels: dict[str, Panel] = {}
    try:
        for name, spec in specs.items():
            panels[name] = Panel(open_display(spec, name), name)
    except BaseException:
        for panel in panels.values():
            panel.close()
        raise
    return panels
