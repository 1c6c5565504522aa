"""A lesson registered for the length of one test is picked up by the router, the home page and the contract
tests, without any other file changed: what adding a lesson costs (docs/adding-a-lesson.md)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
import test_contract
import test_pages
from streamlit.testing.v1 import AppTest

import lessons
from lessons import Lesson, link
from ui.i18n import LANGS, table


@dataclass(frozen=True)
class ToyState:
    n: int = 3
    word: str = ""


TOY_LINK = link.LinkSchema("toy", 1, (link.Int("n", 1, 9), link.Text("w", 20)))
TOY = Lesson(
    key="toy", icon=":material/toys:", default_state=ToyState, link=TOY_LINK,
    to_link=lambda s: {"n": s.n, **({"w": s.word} if s.word else {})},
    from_link=lambda v: (ToyState(v.get("n", 3), v.get("w", "")), []),
    arrays=lambda s: {"ones": np.ones(s.n)},
)
PAGE = '''
import streamlit as st
from ui import bind, runtime

def render(page):
    bind.field(page, st.slider, "n", "n", min_value=1, max_value=9)
    st.markdown(f"toy n = {page.state.n}")

runtime.run("toy", render)
'''
TEXTS = {"lesson.toy.nav": "Toy", "lesson.toy.title": "Toy lesson", "lesson.toy.blurb": "A toy.",
         "toy.title": "Toy", "toy.intro": "Only a test."}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    page = tmp_path / "toy.py"
    page.write_text(PAGE, "utf-8")
    lesson = replace(TOY, page=str(page))
    monkeypatch.setattr(lessons, "REGISTRY", [*lessons.REGISTRY, lesson])
    for lang in LANGS:
        for k, v in TEXTS.items():
            monkeypatch.setitem(table(lang), k, v)
    return lesson


def test_router_and_home_list_it(toy):
    at = AppTest.from_file(str(test_pages.ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    labels = [el.proto.label for el in at.get("page_link")]
    assert "Toy lesson" in labels  # the home page's lesson list
    at.switch_page(toy.page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Toy"
    at.slider(key="toy.n").set_value(7).run()
    assert at.session_state["toy:state"].n == 7
    assert at.query_params["toy"] == "1" and at.query_params["n"] == "7"


def test_contract_tests_pick_it_up(toy):
    test_contract.test_declaration(toy)
    test_contract.test_texts_in_both_languages(toy)
    test_contract.test_default_state_has_a_clean_link(toy)
    test_contract.test_link_round_trip(lesson=toy)
    test_contract.test_hostile_links_never_raise(lesson=toy)
    test_contract.test_mutated_links_never_raise(lesson=toy)
    test_contract.test_limits(toy)
    test_contract.test_a_page_never_reads_another_lessons_link(toy)
    test_pages.test_own_share_link_reproduces_the_state(toy)
    test_pages.test_another_lessons_link_opens_this_lesson_in_its_own_state(toy)


@pytest.fixture
def toy_first(toy, monkeypatch):
    monkeypatch.setattr(lessons, "REGISTRY", [toy, *[x for x in lessons.REGISTRY if x is not toy]])
    return toy


@pytest.mark.parametrize("lang", LANGS)
def test_the_start_button_names_the_first_registered_lesson(toy_first, lang):
    # It used to say "Open the first lesson: Q·K·V with 「犬が歩く」" whatever lesson it linked to (issue 19).
    at = AppTest.from_file(str(test_pages.ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    start = next(el.proto for el in at.get("page_link") if el.proto.icon == ":material/play_arrow:")
    assert start.label == table(lang)["home.start"].format(title="Toy lesson")
    assert start.page.endswith("toy.py") or "toy" in start.page
