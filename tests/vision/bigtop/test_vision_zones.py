"""`zones_of` finds each point's zone as `zone_of` does alone."""

from __future__ import annotations

import numpy as np

from vision.bigtop.layout import MAT
from vision.bigtop.tableview import Area, zone_of, zones_of
from vision.calibrate import ChartPose


def _pose(seat: int, angle: float, x: float, y: float) -> ChartPose:
    a = np.radians(angle)
    m = np.array([[np.cos(a), np.sin(a), x], [-np.sin(a), np.cos(a), y], [0.0, 0.0, 1.0]])
    return ChartPose(seat, m, np.linalg.inv(m), 4)


def test_zones_of_many_points_are_each_points_own() -> None:
    charts = {0: _pose(0, 0.0, 100.0, MAT.height + 40.0), 2: _pose(2, 180.0, 400.0, -40.0),
              3: _pose(3, 90.0, -40.0, 250.0)}
    rng = np.random.default_rng(2)
    points = [(float(x), float(y)) for x, y in zip(rng.uniform(-300, 800, 400), rng.uniform(-300, 600, 400))]
    got = zones_of(points, charts)
    assert got == [zone_of(x, y, charts) for x, y in points]
    areas = {z.area for z in got}
    assert {Area.TABLEAU, Area.CHART_SPACE, Area.TABLE} <= areas  # the points reach every kind of place
    assert zones_of([], charts) == []
