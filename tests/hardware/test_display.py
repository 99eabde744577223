"""OLED panels: the factory by name, the dummy and emulator stand-ins, redraw only on change."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

import hardware.display
from hardware.display import (
    Bus,
    DisplayDriver,
    DisplaySpec,
    EmulatorMode,
    Panel,
    open_display,
    open_panels,
)
from hardware.errors import DisplayError, UnknownBackend
from hardware.fakes import dummy_display


def text(view: str, draw: ImageDraw.ImageDraw) -> None:
    draw.text((0, 0), view, fill="white")


class CountingDummy:
    """Wraps luma's dummy device and counts display() calls."""

    def __init__(self) -> None:
        self.inner = dummy_display()
        self.mode = self.inner.mode
        self.size = self.inner.size
        self.calls = 0
        self.cleanups = 0

    def display(self, image: Image.Image) -> None:
        self.calls += 1
        self.inner.display(image)

    def cleanup(self) -> None:
        self.cleanups += 1


def test_panel_redraws_only_changed_frames() -> None:
    device = CountingDummy()
    panel = Panel(device, "Alf")
    assert panel.draw(text, "Turn: Alf")
    assert not panel.draw(text, "Turn: Alf")
    assert panel.draw(text, "Turn: Ben")
    assert device.calls == 2 and panel.redraws == 2
    expected = Image.new("1", (128, 64))
    text("Turn: Ben", ImageDraw.Draw(expected))
    assert ImageChops.difference(device.inner.image, expected).getbbox() is None
    panel.clear()
    assert device.calls == 3 and device.inner.image.getbbox() is None
    panel.close()
    panel.close()
    assert device.cleanups == 1
    with pytest.raises(DisplayError, match="Alf panel is closed"):
        panel.draw(text, "x")


def test_wrong_size_image_is_refused() -> None:
    with Panel(dummy_display(), "centre") as panel, pytest.raises(DisplayError, match="is 128x64, the image 64x32"):
        panel.show(Image.new("1", (64, 32)))


def test_device_failure_is_a_display_error_and_retried() -> None:
    class Flaky(CountingDummy):
        def display(self, image: Image.Image) -> None:
            self.calls += 1
            if self.calls == 1:
                raise OSError(121, "Remote I/O error")

    device = Flaky()
    panel = Panel(device, "Ben")
    with pytest.raises(DisplayError, match="Ben panel stopped answering: Remote I/O error"):
        panel.draw(text, "hello")
    assert panel.draw(text, "hello")  # not remembered as shown: sent again


def test_factory_by_name() -> None:
    assert DisplayDriver.parse(" SH1106 ") is DisplayDriver.SH1106
    with pytest.raises(UnknownBackend, match="unknown display 'lcd': use one of ssd1306, sh1106, ssd1309, emulator, dummy"):
        DisplayDriver.parse("lcd")
    device = open_display(DisplaySpec(DisplayDriver.DUMMY))
    assert device.mode == "1" and device.size == (128, 64)


@pytest.mark.parametrize("driver", [DisplayDriver.SSD1306, DisplayDriver.SH1106, DisplayDriver.SSD1309])
def test_real_panel_missing_bus_is_one_sentence(driver: DisplayDriver) -> None:
    spec = DisplaySpec(driver, port=250, address=0x3D)
    with pytest.raises(DisplayError) as info:
        open_display(spec, "Alf")
    message = str(info.value)
    assert message.startswith(f"cannot open the Alf panel ({driver.value} on I2C bus 250 at 0x3d): ")
    assert "\n" not in message


def test_real_panel_on_a_fake_bus_gets_init_bytes() -> None:
    """luma drives an injected smbus: the panel code path runs without hardware."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    class Bus:
        def __init__(self) -> None:
            self.writes: list[tuple[int, int, list[int]]] = []

        def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
            self.writes.append((address, register, list(data)))

        def i2c_rdwr(self, *msgs: Any) -> None:
            self.writes.append((0x3C, -1, []))

        def close(self) -> None:
            pass

    bus = Bus()
    device = ssd1306(i2c(bus=bus, address=0x3C))
    panel = Panel(device, "Alf")
    assert bus.writes and all(w[0] == 0x3C for w in bus.writes)
    before = len(bus.writes)
    panel.draw(text, "hi")
    sent = len(bus.writes)
    assert sent > before
    panel.draw(text, "hi")
    assert len(bus.writes) == sent


def test_spec_checks() -> None:
    with pytest.raises(ValueError, match="address 0x03 to 0x77, not 0x80"):
        DisplaySpec(address=0x80)
    with pytest.raises(ValueError, match="rotate"):
        DisplaySpec(rotate=4)
    assert DisplaySpec(bus=Bus.SPI, port=0, spi_device=1).describe() == "ssd1306 on SPI 0.1"


def test_emulator_capture_writes_a_png_per_frame(tmp_path: Path) -> None:
    spec = DisplaySpec(DisplayDriver.EMULATOR, output=str(tmp_path))
    with Panel(open_display(spec, "seat Alf"), "Alf") as panel:
        panel.draw(text, "one")
        panel.draw(text, "one")
        panel.draw(text, "two")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["seat_Alf_000001.png", "seat_Alf_000002.png"]
    assert Image.open(tmp_path / files[0]).size == (128, 64)


def test_emulator_gif_is_written_on_close(tmp_path: Path) -> None:
    spec = DisplaySpec(DisplayDriver.EMULATOR, emulator_mode=EmulatorMode.GIFANIM, output=str(tmp_path / "a.gif"))
    with Panel(open_display(spec, "centre"), "centre") as panel:
        panel.draw(text, "one")
        panel.draw(text, "two")
    with Image.open(tmp_path / "a.gif") as gif:
        assert gif.n_frames == 2


def test_open_panels_closes_what_it_opened_on_failure() -> None:
    specs = {"Alf": DisplaySpec(DisplayDriver.DUMMY), "Ben": DisplaySpec(DisplayDriver.SSD1306, port=251)}
    with pytest.raises(DisplayError, match="Ben panel"):
        open_panels(specs)
    panels = open_panels({"Alf": DisplaySpec(DisplayDriver.DUMMY), "centre": DisplaySpec(DisplayDriver.DUMMY)})
    assert sorted(panels) == ["Alf", "centre"]


def test_doctests() -> None:
    result = doctest.testmod(hardware.display)
    assert result.attempted > 0 and result.failed == 0
