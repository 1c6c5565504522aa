"""A selectbox whose options shrank under it sends back the text of an option that is gone (Streamlit 1.67 keeps a
selectbox's choice in the browser as the option's text): W_Q's last column picked, then d_k lowered, crashed the
Q·K·V page with "invalid literal for int() with base 10: '4: 4'" (a new-user trial). The cell picker must read such
a value as the row or column it named, clamped to what is left; a bound selectbox must take it as no new choice."""
from __future__ import annotations

from types import SimpleNamespace

from ui import widgets
from ui.widgets import _index, chosen_option


def _picked(monkeypatch, values: dict, shapes: dict) -> tuple[str, int, int]:
    """widgets.picked_cell over session values as the browser left them (AppTest cannot send a stale text: its own
    element tree looks every selectbox value up among the options, so the real flow is tests/e2e/test_qkv_browser)."""
    monkeypatch.setattr(widgets, "st", SimpleNamespace(session_state=dict(values)))
    return widgets.picked_cell("qkv.cell", shapes)


def test_a_stale_column_text_after_d_k_shrank_is_the_last_column_not_a_crash(monkeypatch):
    shapes = {"X": (3, 4), "W_Q": (4, 3), "W_K": (4, 3), "W_V": (4, 4)}  # d_k lowered from 5 to 3
    values = {"qkv.cell:m": "W_Q", "qkv.cell:i": 0, "qkv.cell:j": "4: 4"}  # column 4's text, gone
    assert _picked(monkeypatch, values, shapes) == ("W_Q", 0, 2)


def test_a_stale_row_text_and_an_unknown_matrix_fall_back(monkeypatch):
    shapes = {"X": (3, 4), "W_Q": (4, 5)}
    values = {"qkv.cell:m": "W_Z", "qkv.cell:i": "9: 歩く", "qkv.cell:j": None}
    assert _picked(monkeypatch, values, shapes) == ("X", 2, 0)  # the first matrix; X has 3 rows: the last
    assert _picked(monkeypatch, {"qkv.cell:m": ["W_Q"]}, shapes) == ("X", 0, 0)  # not even a name


def test_index_reads_an_int_or_an_options_numbered_text():
    assert [_index(v) for v in (0, 3, "4: 4", "12: 歩く", " 2: が", None, "", "x", True, 2.5)] == \
        [0, 3, 3, 11, 1, 0, 0, 0, 0, 0]


def test_chosen_option_maps_texts_back_and_refuses_what_is_gone():
    fmt = lambda i: f"{i + 1}: {'abc'[i]}"  # noqa: E731
    options = [0, 1, 2]
    assert chosen_option(1, options, fmt) == 1
    assert chosen_option("2: b", options, fmt) == 1
    assert chosen_option("4: d", options, fmt) is None  # an option that is gone
    assert chosen_option(True, [0, 1], fmt) is None  # not the option 1
    assert chosen_option("xw", ["xw", "direct"]) == "xw"
    assert chosen_option("gone", ["xw", "direct"]) is None
