"""What Circus Grandioso looks like to the camera.

The printed mat, cards and Show Master (`layout`, `faces`, `printing`), the
top-down scene renderer for tests, benchmarks and the simulated camera
(`scene`), and the frame -> `GrandiosoView` recogniser (`pipeline`). Every
card carries a code (an ArUco marker) in its lower half, which the pyramid
leaves visible: decoding it is exact, and a card whose code cannot be read is
reported unrecognised, never guessed. It builds on the game-agnostic vision
core (`vision.calibrate`).

>>> CONFIG.table.markers.width
940.0
"""

from __future__ import annotations

from vision.config import VisionConfig
from vision.grandioso.layout import GRANDIOSO_TABLE

__all__ = ["CONFIG"]

#: Every threshold of the Grandioso pipeline, with the Grandioso table's geometry.
CONFIG = VisionConfig(GRANDIOSO_TABLE)
