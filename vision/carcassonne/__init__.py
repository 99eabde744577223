"""Carcassonne at the table: tiles and boards seen by the camera.

The stages, each a small module:

- `vision.carcassonne.labels`: the classifier's classes, one per visually distinct
  (tile type, rotation) pair of the catalog, plus ``none`` (an empty cell).
- `vision.carcassonne.render`: the project's own tile art, drawn from the catalog
  facts (edges, cities, roads, pennants, centre spaces) in several art styles.
- `vision.carcassonne.board`: synthetic boards (edge-consistent layouts drawn from
  the box) rendered as a top-down image with known cells.
- `vision.carcassonne.camera`: the benchmark's independent camera (tilt, lens,
  blur, noise, glare, white balance, JPEG); training never uses it.
- `vision.carcassonne.grid`: finds the tile grid in a photo without markers.
- `vision.carcassonne.classifier`: the ONNX tile classifier runner.
- `vision.carcassonne.recognize`: photo -> `BoardReading` (``to_json()``), using the
  catalog's edges and the box counts to settle doubtful tiles.

Only numpy, OpenCV and onnxruntime at run time; `vision.carcassonne.train` needs torch.
"""

from __future__ import annotations
