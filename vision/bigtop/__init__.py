"""What Big Top (and Fan Tan) look like to the camera.

The printed mat, Organizing Charts, cards and tokens (`layout`, `faces`,
`printing`), their labels (`labels`), the scene renderer used to train and
test (`scene`, `dataset`, `train`), and the frame -> `TableView` recogniser
(`pipeline`, `tableview`, `places`, `balance`). It builds on the game-agnostic vision
core (`vision.calibrate`, `vision.detect`, `vision.classify`).

>>> CONFIG.table.markers.width
500.0
"""

from __future__ import annotations

import models
from vision.bigtop.layout import BIGTOP_TABLE
from vision.config import VisionConfig

__all__ = ["CONFIG", "DEFAULT_CONFIG", "DEFAULT_MODEL"]

#: Every threshold of the Big Top pipeline, with the Big Top table's geometry.
CONFIG = VisionConfig(BIGTOP_TABLE, unclosed_pass=False)
#: The same, under the name the pipeline's functions use for their default.
DEFAULT_CONFIG = CONFIG
#: The Big Top component classifier shipped in the ``models`` package (inside the wheel too).
DEFAULT_MODEL = models.path("bigtop_components.onnx")
