"""Charts side by side start their plot areas at one height (issue 19 item 8): ui.charts.level_tops lowers each
chart of a grid line to the line's deepest top margin, its height grown by as much, its title kept level."""
from __future__ import annotations

from ui import charts
from ui import figures as F
from ui.plot_component import RowItem


def _item(top: int, height: int, title: dict | None = None, reused: bool = False) -> RowItem:
    layout = {"margin": {"l": 10, "r": 10, "t": top, "b": 30}, "height": height,
              "title": title or {"text": "<b>a</b>", "x": 0}}
    return RowItem(key=None, ready={"data": [], "layout": layout}, config={}, reused=reused)


def test_each_line_levelled_to_its_deepest_top():
    pinned = {"text": "<b>long</b>", "y": 1, "yanchor": "top", "yref": "container", "pad": {"t": 34}}
    items = [_item(50, 300), _item(76, 326, pinned), _item(50, 200), _item(60, 260)]
    out = charts.level_tops(items, per_row=2)
    assert [it.ready["layout"]["margin"]["t"] for it in out] == [76, 76, 60, 60]
    assert [it.ready["layout"]["height"] for it in out] == [326, 326, 210, 260]  # cells keep their height
    assert out[0].ready["layout"]["title"]["pad"] == {"t": 34}  # level with its neighbour's title
    assert out[0].ready["layout"]["title"]["yref"] == "container"
    assert out[1] is items[1] and out[3] is items[3]  # the deepest are untouched
    assert items[0].ready["layout"]["margin"]["t"] == 50  # the input is never modified (it may be cached)


def test_a_cached_figure_gets_one_lowered_copy():
    a, b = _item(50, 300, reused=True), _item(80, 330)
    first = charts.level_tops([a, b], per_row=2)[0].ready
    again = charts.level_tops([a, b], per_row=2)[0].ready
    assert first is again and first["layout"]["margin"]["t"] == 80


def test_lowered_leaves_a_deep_enough_layout_alone():
    layout = {"margin": {"t": 90}, "height": 400, "title": {"text": "x"}}
    assert F.lowered(layout, 80) is layout


def test_a_note_changes_no_height_in_a_levelled_line():
    """X beside W_Q (whose title wraps, 76 px): X's note (its room taken from X's cells, top 50 → 76) leaves every
    chart of the line as tall as without it, and X's plot area still level with W_Q's."""
    import numpy as np

    rows = ["犬", "が", "歩く"]
    cols = ["1", "2", "3", "4"]
    plain = F.heatmap_spec(np.ones((3, 4)), rows, cols, title="X", zmax=2.0, range_note="widened {new} {base}")
    noted = F.heatmap_spec(np.full((3, 4), 3.0), rows, cols, title="X", zmax=2.0, range_note="widened {new} {base}")
    assert plain["layout"]["margin"]["t"] < noted["layout"]["margin"]["t"]  # the note is there: else this tests nothing
    assert plain["layout"]["height"] == noted["layout"]["height"]
    wrapped = {"margin": {"t": plain["layout"]["margin"]["t"] + 40, "b": 30}, "height": 400,
               "title": {"text": "<b>W_Q</b>", "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 34}}}
    for x in (plain, noted):
        out = charts.level_tops([RowItem(None, x, {}), RowItem(None, {"layout": wrapped}, {})], per_row=2)
        assert out[0].ready["layout"]["height"] == plain["layout"]["height"] + 40
        assert out[0].ready["layout"]["margin"]["t"] == wrapped["margin"]["t"]
        assert out[1].ready["layout"] is wrapped
