"""ui.bind.checked_number: what a number field does with what was typed (issue 9: never a silent change)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.bind import checked_number


@pytest.mark.parametrize("raw, used, code", [
    (None, 4.0, "number_empty"),           # emptied: the old value stays, and says so
    (float("nan"), 4.0, "number_not_finite"),
    (float("inf"), 4.0, "number_not_finite"),
    (1e9, 10.0, "number_clamped"),         # the trial's 1e9 and −50 on a −10..10 field
    (-50.0, -10.0, "number_clamped"),
    (0.25, 0.3, "number_rounded"),         # half up, as the field itself shows 0.25 at 1 decimal
    (-0.25, -0.3, "number_rounded"),
    (2.5, 2.5, None), (-10.0, -10.0, None), (10.0, 10.0, None), (-0.0, 0.0, None),
])
def test_a_value_field_with_one_decimal(raw, used, code):
    got, got_code = checked_number(raw, 4.0, -10.0, 10.0, 1)
    assert (got, got_code) == (used, code)
    assert math.copysign(1, got) == math.copysign(1, used)


@pytest.mark.parametrize("raw, used, code", [
    (1e9, 9999.0, "number_clamped"), (-50.0, 0.0, "number_clamped"), (2.5, 3.0, "number_rounded"),
    (1.4, 1.0, "number_rounded"), (42.0, 42.0, None), (None, 7.0, "number_empty"),
])
def test_a_seed_field(raw, used, code):
    assert checked_number(raw, 7, 0, 9999, 0) == (used, code)


@given(st.one_of(st.none(), st.floats()), st.integers(0, 2))
def test_the_value_used_is_always_in_range_and_only_said_unchanged_when_unchanged(raw, decimals):
    lo, hi, old = -10.0, 10.0, 3.0
    used, code = checked_number(raw, old, lo, hi, decimals)
    assert lo <= used <= hi and math.isfinite(used)
    assert round(used, decimals) == used
    if code is None:
        assert used == raw
    else:
        assert code in {"number_empty", "number_not_finite", "number_clamped", "number_rounded"}
        assert code in ("number_empty", "number_not_finite") or used != raw
        if code == "number_rounded":
            assert abs(used - raw) <= 0.5 * 10 ** -decimals + 1e-12
