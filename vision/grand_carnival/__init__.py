"""The Grand Carnival at the table: its print-and-play sheets and what the camera reads of them.

The printed boards, tiles, attractions and tokens (`layout`, `printing`), the
top-down scene renderer for tests, benchmarks and the simulated camera
(`scene`), and the frame -> `MarketView` recogniser (`pipeline`). May import
`scorer.grand_carnival` and the vision core only.

>>> CONFIG.table.markers.width
250.0
"""

from __future__ import annotations

from vision.config import VisionConfig
from vision.geometry import CardGeometry, TableGeometry, TokenGeometry
from vision.grand_carnival.layout import CarnivalMarkers

__all__ = ["CONFIG"]

#: The thresholds of the vision core with the Grand Carnival's markers (cards: the trick cards).
CONFIG = VisionConfig(TableGeometry(CarnivalMarkers(), CardGeometry(63.0, 88.0), TokenGeometry(diameter=9.0)))
