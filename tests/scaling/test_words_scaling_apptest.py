"""AppTest of the scaling page's fields (issue 9, from a new-user trial): an out-of-range number gives a message in
the current language that says which value is used; an emptied title or query says it shows the default again; the
"divide by √d_k" switch says its state in its label. Expected words come from the language tables, expected
numbers from the fields' ranges (book values ±10 at 1 decimal, seed 0..9999)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.i18n import table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
JA, EN = table("ja"), table("en")


def open_page(lang: str = "ja") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.query_params["lang"] = lang
    at.switch_page("lesson_pages/scaling.py")
    return ok(at.run())


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def state(at):
    return at.session_state["scaling:state"]


def warnings(at) -> list[str]:
    """The warnings as they read on screen (their Markdown escapes removed: user text is escaped)."""
    return [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_book_value_out_of_range_is_clamped_and_said(lang):
    tab = JA if lang == "ja" else EN
    at = open_page(lang)
    what = tab["scaling.book.value_what"].format(i=1, dim=tab["scaling.book.dim_1"])
    ok(at.number_input(key="scaling.value.0.0").set_value(1e9).run())
    assert state(at).values[0][0] == 10.0
    assert at.number_input(key="scaling.value.0.0").value == 10.0  # the field shows the value used
    said = tab["notice.number_clamped"].format(label=what, value="1×10⁹", lo="−10", hi="10", used="10")
    assert said in warnings(at), warnings(at)
    ok(at.number_input(key="scaling.value.0.0").set_value(-50.0).run())
    assert state(at).values[0][0] == -10.0
    assert any("−50" in w and "−10" in w for w in warnings(at)), warnings(at)


def test_a_value_with_more_digits_is_rounded_and_said():
    at = open_page("en")
    ok(at.number_input(key="scaling.value.1.2").set_value(0.25).run())
    assert state(at).values[1][2] == 0.3
    assert any("0.25" in w and "0.3" in w and "rounded" in w for w in warnings(at)), warnings(at)


def test_an_emptied_number_keeps_its_value_and_says_so():
    at = open_page("ja")
    before = state(at).values[2][2]
    ok(at.number_input(key="scaling.value.2.2").set_value(None).run())
    assert state(at).values[2][2] == before == 5.0
    assert at.number_input(key="scaling.value.2.2").value == 5.0
    assert any("5" in w and "欄に数がありません" in w for w in warnings(at)), warnings(at)


def test_the_seed_field_reads_1e9_as_a_number_not_as_1():
    at = open_page("en")
    ok(at.number_input(key="scaling.seed").set_value(1e9).run())
    assert state(at).seed == 9999
    assert any("9999" in w and "outside the range 0 to 9999" in w for w in warnings(at)), warnings(at)
    ok(at.number_input(key="scaling.seed").set_value(2.5).run())
    assert state(at).seed == 3 and isinstance(state(at).seed, int)
    assert "Range: 0 to 9999." in at.number_input(key="scaling.seed").help


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_an_emptied_title_or_query_shows_the_default_and_says_so(lang):
    tab = JA if lang == "ja" else EN
    at = open_page(lang)
    ok(at.text_input(key="scaling.title.1").set_value("Cats").run())
    assert state(at).titles[1] == "Cats" and not warnings(at)
    ok(at.text_input(key="scaling.title.1").set_value("   ").run())
    assert state(at).titles[1] == ""
    assert at.text_input(key="scaling.title.1").value == tab["scaling.book.default_2"]
    label = tab["scaling.book.title"].format(i=2)
    assert tab["notice.text_default"].format(label=label, default=tab["scaling.book.default_2"]) in warnings(at)
    ok(at.text_input(key="scaling.query").set_value("").run())
    assert any(tab["scaling.book.query_default"] in w for w in warnings(at)), warnings(at)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_divide_switch_says_its_state(lang):
    tab = JA if lang == "ja" else EN
    at = open_page(lang)
    assert at.toggle(key="scaling.scale").label == tab["scaling.ctl.scale_on"]
    ok(at.toggle(key="scaling.scale").set_value(False).run())
    assert state(at).scaled is False
    assert at.toggle(key="scaling.scale").label == tab["scaling.ctl.scale_off"]
    assert tab["scaling.ctl.scale_off"] != tab["scaling.ctl.scale_on"]


def test_saturated_shares_are_never_written_as_0_or_100():
    # undivided at d_k = 64: softmax([8, 2, −4]) = [0.997521, 0.002473, 0.0000061] → 99.8 %, 0.2 %, "<0.1%"
    at = open_page("en")
    ok(at.toggle(key="scaling.scale").set_value(False).run())
    shares = [m.value for m in at.markdown if m.value.startswith("### ") and "100%" in m.value]
    assert len(shares) == 1 and "99.8%" in shares[0] and "0.2%" in shares[0] and "<0.1%" in shares[0]
    assert "0.0%" not in shares[0]
