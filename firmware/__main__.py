from firmware.cli import entry_point

entry_point()
