"""Ringside vision: a camera frame of the table becomes a `TableView`.

The chain of small pure stages (see `vision.bigtop.pipeline`)::

    find_markers -> mat_homography -> rectify -> find_components
      -> warp_crops -> Classifier.classify -> build_table_view

Live, `vision.recall` gives back what a frame repeats of the last one: a still frame's
markers, calibration and components, and the readings of crops that look the same.

Big Top components are rendered from the game facts (`vision.bigtop.faces`), printed
true-size by `vision.bigtop.printing`, composed into synthetic camera frames by
`vision.bigtop.scene` for tests, training and benchmarks, and classified by the ONNX
model in ``models/`` that `vision.bigtop.train` produces.

Runtime needs only numpy, opencv-python-headless, onnxruntime and pillow;
training also needs torch.
"""

from __future__ import annotations

__all__ = ["VisionError", "NoMatError", "UnreadableImageError", "ModelFileError"]


class VisionError(Exception):
    """Base class of the errors a user can cause (bad file, no mat in view)."""


class UnreadableImageError(VisionError, ValueError):
    """The image file is missing, truncated or not an image."""


class NoMatError(VisionError, LookupError):
    """Too few of the play mat's markers were found in the frame to locate it.

    ``markers_seen`` is how many of the mat's ``total`` markers were detected.
    """

    def __init__(self, markers_seen: int, total: int = 6) -> None:
        self.markers_seen = markers_seen
        self.total = total
        super().__init__(
            f"no play mat in the frame: saw {markers_seen} of its {total} markers "
            "(need at least 3, not all along one edge); make sure the whole mat is in view and well lit"
        )


class ModelFileError(VisionError, FileNotFoundError):
    """The ONNX model or its label file is missing or unreadable."""
