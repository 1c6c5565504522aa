"""A layout chosen with charts.chart_columns holds while a student moves numbers within the colour range: a chart that
moves to another column is a new element in the browser (blank until drawn again), so the need of a heatmap with a
range depends on the range and the shape, not on today's numbers."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st_
from hypothesis.extra.numpy import arrays

from ui import charts

SHAPES = st_.tuples(st_.integers(1, 16), st_.integers(1, 16))


@settings(max_examples=60, deadline=None)
@given(SHAPES.flatmap(lambda shape: st_.tuples(
    arrays(np.float64, shape, elements=st_.floats(-5, 5)), arrays(np.float64, shape, elements=st_.floats(-5, 5)))))
def test_need_within_the_range_does_not_follow_the_numbers(pair):
    a, b = pair
    rows, cols = [f"t{i}" for i in range(a.shape[0])], [str(j) for j in range(a.shape[1])]
    assert charts.heatmap_need(a, rows, cols, zmax=5.0) == charts.heatmap_need(b, rows, cols, zmax=5.0)


def test_need_with_a_range_is_at_least_that_of_the_numbers():
    M = np.array([[-19.34, 0.5], [100.0, 2.0]])
    rows = cols = ["a", "b"]
    assert charts.heatmap_need(M, rows, cols, zmax=1.0) >= charts.heatmap_need(M, rows, cols)
    assert charts.heatmap_need(M, rows, cols, zmax=1000.0) > charts.heatmap_need(M, rows, cols)


def test_a_value_past_the_range_widens_the_need():
    rows = cols = ["a", "b"]
    inside = np.array([[1.0, -2.0], [0.0, 2.5]])
    past = inside.copy()
    past[0, 0] = -250.0
    assert charts.heatmap_need(past, rows, cols, zmax=2.5) > charts.heatmap_need(inside, rows, cols, zmax=2.5)


@settings(max_examples=60, deadline=None)
@given(st_.tuples(st_.integers(1, 8), st_.integers(1, 8)).flatmap(lambda shape: st_.tuples(
    arrays(np.float64, shape, elements=st_.floats(-5, 5)), arrays(np.float64, shape, elements=st_.floats(-5, 5)))),
    st_.booleans())
def test_a_heatmap_with_a_range_keeps_its_layout_as_its_numbers_move(pair, weights):
    # in the column the range's need gives it (charts.heatmap_need), a heatmap is laid out for the widest number its
    # range holds: any numbers within the range (weights: any in 0..1) draw it with the same margins, height, colour
    # bar and type size, so a drag's frames of it are its cells only (ui/preview.py) and no colour bar jumps when a
    # number crosses 0 (the /qkv cell slider's Q, K and V did at −0.1)
    from ui import figures as F

    a, b = (np.abs(x) / 5 for x in pair) if weights else pair
    rows, cols = [f"t{i}" for i in range(a.shape[0])], [str(j) for j in range(a.shape[1])]
    zmax = None if weights else 5.0
    width = max(charts.heatmap_need(a, rows, cols, zmax=zmax, weights=weights), 200)

    def frame(M):
        spec = F.heatmap_spec(M, rows, cols, weights=weights, zmax=zmax, width_px=width)
        trace = spec["data"][-1]
        return spec["layout"], trace["colorbar"], trace["textfont"]

    assert frame(a) == frame(b)
