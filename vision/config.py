"""Tuning constants of the vision pipeline, all relative to the mat or component size.

A `VisionConfig` holds the game's `vision.geometry.TableGeometry` (its markers and
component shapes) and every threshold; each game's package makes its own
(``vision.bigtop.CONFIG``).
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.geometry import TableGeometry

__all__ = ["VisionConfig"]


@dataclass(frozen=True, slots=True)
class VisionConfig:
    """Every threshold of the pipeline. Lengths are fractions of the mat or of a component.

    Nothing here is a pixel count of one camera: the rectified image's
    resolution is set per mat width, and detection tolerances are fractions
    of the expected component size at that resolution.
    """

    #: the game's printed table: markers and component shapes
    table: TableGeometry
    #: ArUco adaptive threshold window, as a fraction of the frame's longer side (13 px at 1280)
    marker_threshold_window: float = 0.0102
    #: with a cached calibration, search for markers only around where each of the mat's and
    #: charts' markers was last seen: a margin of this many marker sides on every side
    marker_roi_margin: float = 0.5
    #: ... and search the whole frame at least every this many frames (a newly placed chart);
    #: 1 searches every frame in full
    marker_full_search_every: int = 30
    #: mat markers needed for a homography (3 give 12 point pairs), not all along one edge
    min_mat_markers: int = 3
    #: re-use the cached homography while the corners move less than this (fraction of mat width)
    recalibrate_tolerance: float = 0.004
    #: rectified top-down image: pixels across the mat's width
    rectified_px_per_mat_width: float = 600.0
    #: rectified region, as fractions of the mat (x0, y0, x1, y1); charts lie around the mat
    view_region: tuple[float, float, float, float] = (-0.46, -0.82, 1.46, 1.82)
    #: adaptive threshold window, as a fraction of a card's face-field width
    threshold_window: float = 0.22
    #: how much darker than the local mean a pixel must be to count as frame ink (fraction)
    threshold_ratio: float = 0.04
    #: ... and by at least this many grey levels (sensor noise in very dark regions)
    threshold_offset: float = 0.5
    #: Gaussian smoothing of the grey image before that test, as a fraction of a card's face-field width
    smoothing: float = 0.017
    #: accepted face-field area, as a fraction of the expected area
    card_area_range: tuple[float, float] = (0.72, 1.3)
    #: accepted relative error of the face field's side lengths
    card_side_tolerance: float = 0.16
    #: contour area over its fitted rectangle's area
    min_rectangularity: float = 0.88
    #: accepted relative error of a frame line's outer rectangle (frame-line and leaky-hole cues)
    frame_side_tolerance: float = 0.04
    #: outlines with fewer points are not searched for frame lines (specks of texture and noise)
    frame_min_points: int = 12
    #: share of such an outline's points that must lie along the frame line
    frame_line_share: float = 0.7
    #: a frame line's own area over its convex hull's area is at most this (a ring, not a blob)
    max_ring_fill: float = 0.6
    #: also search the mask with one-pixel gaps in the frame lines closed
    gap_closing: bool = True
    #: with ``gap_closing``, search the mask as it is too (else only the closed mask: one contour pass, not two)
    unclosed_pass: bool = True
    #: also look for cards as blobs brighter than their surroundings (a white card whose frame
    #: line is broken in several places, or on a light table where no rim edge shows)
    bright_cards: bool = True
    #: ... the surroundings: a box this many card heights wide
    bright_window: float = 2.0
    #: ... how much brighter than the local mean a pixel must be (fraction), and by at least
    #: this many grey levels
    bright_ratio: float = 0.1
    bright_offset: float = 2.0
    #: ... accepted relative error of the blob's sides, as a face field or a whole card
    bright_side_tolerance: float = 0.1
    token_area_range: tuple[float, float] = (0.65, 1.4)
    #: 4*pi*area/perimeter**2 of a token's face field
    min_circularity: float = 0.78
    #: canonical crop handed to the classifier (width, height), pixels of the model input
    crop_size: tuple[int, int] = (40, 56)
    #: below this softmax confidence a component is reported as unrecognised
    confidence_threshold: float = 0.9

    @property
    def px_per_mm(self) -> float:
        """Rectified image resolution in pixels per table millimetre."""
        return self.rectified_px_per_mat_width / self.table.markers.width

    @property
    def card_field_px(self) -> tuple[float, float]:
        """Expected (width, height) of a card's face field in the rectified image."""
        card = self.table.card
        return (card.inner_width * self.px_per_mm, card.inner_height * self.px_per_mm)

    @property
    def token_field_radius_px(self) -> float:
        """Expected radius of a token's face field in the rectified image."""
        return self.table.token.inner_diameter / 2 * self.px_per_mm

    @property
    def view_region_mm(self) -> tuple[float, float, float, float]:
        """The rectified region in table millimetres (x0, y0, x1, y1)."""
        a, b, c, d = self.view_region
        w, h = self.table.markers.width, self.table.markers.height
        return (a * w, b * h, c * w, d * h)


    @property
    def aruco_dictionary(self) -> int:
        """The OpenCV dictionary of the table's markers."""
        return self.table.markers.aruco_dictionary
