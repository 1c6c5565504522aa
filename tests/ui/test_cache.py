"""ui.cache.data: a page file's cached function is made once per process (issue 20 defect 8), and stays Streamlit's
cache (cleared by st.cache_data.clear, a new one for edited code)."""
from __future__ import annotations

import streamlit as st

from ui import cache

PAGE = '''
from ui import cache
calls = []

@cache.data(max_entries=4, show_spinner=False)
def square(x):
    calls.append(x)
    return x * BODY
'''


def run_page(body: str = "x", calls=None):
    """One rerun of a page file: its code executed from the top, as Streamlit runs a page."""
    ns = {}
    exec(compile(PAGE.replace("BODY", body), "/virtual/page_file.py", "exec"), ns)
    if calls is not None:
        ns["calls"] = calls
    return ns


def test_the_same_code_run_again_gets_the_same_cached_function_and_its_cache():
    first, second = run_page(), run_page()
    assert first["square"] is second["square"]
    st.cache_data.clear()
    assert first["square"](3) == 9 and second["square"](3) == 9
    assert first["calls"] == [3]  # computed once: the second run's call was a hit (the first run's function body ran)


def test_edited_code_gets_a_new_cached_function_and_clear_empties_it():
    old, new = run_page(), run_page("x * x")
    assert old["square"] is not new["square"]
    st.cache_data.clear()
    assert new["square"](2) == 8 and new["calls"] == [2]
    assert new["square"](2) == 8 and new["calls"] == [2]
    st.cache_data.clear()
    assert new["square"](2) == 8 and new["calls"] == [2, 2]


def test_options_are_part_of_what_is_the_same():
    a = cache.data(max_entries=2)(run_page()["square"].__wrapped__)
    b = cache.data(max_entries=3)(run_page()["square"].__wrapped__)
    assert a is not b
