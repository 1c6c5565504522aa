"""Chart labels follow the pages' percentage rule: "0%" / "100%" only for exactly 0 / 1, "<0.1%" / ">99.9%" for a
weight that only rounds there (a new-user trial saw "0.0%" on a bar next to "<0.1%" in the table)."""
from __future__ import annotations

from ui import figures as F
from ui import numbers


def test_bar_labels_use_the_rule():
    spec = F.bars_spec([0.9995, 0.0004, 0.0001, 0.0], ["a", "b", "c", "d"], percent=True)
    assert spec["data"][0]["text"] == [">99.9%", "<0.1%", "<0.1%", "0%"]
    spec = F.bars_spec([0.5, 0.25, 0.25], ["a", "b", "c"], percent=True)
    assert spec["data"][0]["text"] == ["50.0%", "25.0%", "25.0%"]
    assert F.bars_spec([1.0, 0.0], ["a", "b"], percent=True)["data"][0]["text"] == ["100%", "0%"]


def test_pages_and_charts_share_one_rule():
    """The charts' labels are ui.numbers' (the one module for numbers on screen); figures keeps no copy."""
    assert F.chart_percent is numbers.chart_percent and F.chart_num is numbers.chart_num
    assert not hasattr(F, "percent") and not hasattr(F, "fmt_num") and not hasattr(F, "cell_text")
