"""Presentation mode (ui/present.py, issue 24 part 1) on every registered lesson, through its declaration
``Lesson.present`` (stages, kept controls, main picture): the declaration itself, then the page under AppTest at every
step — what it shows, which controls it keeps, the step in the link, Next / Back, leaving the mode."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import lessons
from lessons import link
from lessons.base import Lesson, Presentation
from ui.i18n import LANGS, table
from ui.present import ASKED, control_name

ROOT = Path(__file__).resolve().parents[2]
LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
TOY = lessons.by_key("toy")  # the tests' own lesson (tests/throwaway): for what the frame does alike on every page


def open_page(lesson, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(lesson.page)
    return at.run()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def widget_keys(at: AppTest) -> set[str]:
    """The keys of every widget the run drew (walking the element tree: sliders, choices, fields, buttons, grids)."""
    out, todo = set(), [at._tree]
    while todo:
        node = todo.pop()
        key = getattr(node, "key", None)
        if isinstance(key, str) and key and getattr(node, "id", None):
            out.add(key)
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            todo.extend(children.values())
    return out


def published(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


# ---- the declaration ----------------------------------------------------------------------------------------------
@LESSONS
def test_every_lesson_declares_its_presentation(lesson):
    p = lesson.present
    assert isinstance(p, Presentation), f"{lesson.key}: declare present=Presentation(stages, controls, picture)"
    assert p.picture[1].startswith(f"{lesson.key}.fig."), "the main picture is one of the lesson's charts"


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_every_stage_has_a_title_in_both_languages(lesson, lang):
    words = table(lang)
    for stage in lesson.present.stages:
        assert words.get(f"{lesson.key}.stage.{stage}", "").strip(), f"{lesson.key}.stage.{stage} ({lang})"


@pytest.mark.parametrize("bad", [dict(stages=("a",)), dict(stages=("a", "a")), dict(stages=("a", "B")),
                                 dict(controls=()), dict(picture=("z", "k.fig.x"))])
def test_a_presentation_that_cannot_be_paced_is_refused(bad):
    good = dict(stages=("a", "b"), controls=("n",), picture=("b", "k.fig.x"))
    with pytest.raises(ValueError):
        Presentation(**{**good, **bad})


@pytest.mark.parametrize("key", sorted(link.IGNORED_KEYS - {"embed", "embed_options"}))
def test_no_lesson_may_use_the_frames_link_keys(key):
    schema = replace(TOY.link, fields=(*TOY.link.fields, link.Int(key, 0, 9)))
    with pytest.raises(ValueError, match="frame"):
        Lesson(**{**{f: getattr(TOY, f) for f in ("key", "icon", "default_state", "to_link", "from_link", "arrays")},
                  "link": schema})


# ---- the page, step by step ---------------------------------------------------------------------------------------
@LESSONS
def test_each_step_shows_its_stage_keeps_only_the_essential_controls_and_is_in_the_link(lesson):
    stages, controls = lesson.present.stages, lesson.present.controls
    asked = set()
    for k in range(1, len(stages) + 1):
        at = ok(open_page(lesson, {"present": "1", "reveal": str(k)}))
        assert not at.warning, [w.value for w in at.warning]
        assert at.session_state["frame.present"] is True
        link_ = published(at)
        assert (link_.get("present"), link_.get("reveal")) == ("1", str(k))
        assert link_[lesson.key] == str(lesson.link.version)  # the lesson's own link is there too
        assert any(f"{k} / {len(stages)}" in m.value or f"{k} of {len(stages)}" in m.value for m in at.markdown)
        asked |= at.session_state[ASKED].get(lesson.key, set())
        own = {x[len(lesson.key) + 1:] for x in widget_keys(at)
               if x.startswith(lesson.key + ".") and not x.startswith(lesson.key + ".fig.")}  # charts: not controls
        extra = {x for x in own if control_name(x) not in controls}
        assert not extra, f"{lesson.key} step {k}: controls not declared essential are drawn: {sorted(extra)}"
        if stages[k - 1] == lesson.present.picture[0]:
            main = controls[0]
            drawn = {control_name(x) for x in own}
            if any(x.startswith(f"{lesson.key}.{main}") for x in widget_keys(at)) or main in drawn:
                continue
            # a control that AppTest cannot see as a widget (an expander, a grid) is checked in the browser
            assert main in ("grids",), f"{lesson.key}: the main control {main!r} is not drawn with the main picture"
    assert asked == set(stages), f"{lesson.key}: the page never asks about {sorted(set(stages) - asked)}"


@LESSONS
def test_next_and_back_step_through_and_leaving_keeps_the_state(lesson):
    n = len(lesson.present.stages)
    at = ok(open_page(lesson, {"present": "1"}))
    assert published(at)["reveal"] == "1"
    assert at.button(key="present.back").disabled
    ok(at.button(key="present.next").click().run())
    assert published(at)["reveal"] == "2"
    ok(at.button(key="present.back").click().run())
    assert published(at)["reveal"] == "1"
    for _ in range(n + 2):  # past the last step: stays there
        if at.button(key="present.next").disabled:
            break
        ok(at.button(key="present.next").click().run())
    assert published(at)["reveal"] == str(n) and at.button(key="present.next").disabled
    state = at.session_state[f"{lesson.key}:state"]
    ok(at.button(key="present.exit").click().run())
    link_ = published(at)
    assert "present" not in link_ and "reveal" not in link_
    assert lesson.encode(at.session_state[f"{lesson.key}:state"]) == lesson.encode(state)
    assert at.title[0].value == table("ja")[f"{lesson.key}.title"]
    assert at.markdown[0].value == table("ja")[f"{lesson.key}.intro"] or any(
        m.value == table("ja")[f"{lesson.key}.intro"] for m in at.markdown)  # the introduction is back


@LESSONS
def test_the_normal_page_is_the_whole_lesson(lesson):
    """Without presentation mode every stage is drawn: the page asks about its stages and is told yes."""
    at = ok(open_page(lesson))
    assert at.session_state["frame.present"] is False
    assert "present" not in published(at) and "reveal" not in published(at)
    assert not any(b.key == "present.next" for b in at.button)


@pytest.mark.parametrize("params, code, args", [
    ({"present": "1", "reveal": "99"}, "reveal_clamped", {"asked": 99}),
    ({"present": "1", "reveal": "0"}, "reveal_clamped", {"asked": 0}),
    ({"present": "1", "reveal": "abc"}, "reveal_bad", {"value": "abc"}),
    ({"present": "yes"}, "present_bad", {"value": "yes"}),
])
@pytest.mark.parametrize("lang", LANGS)
def test_a_step_or_mode_the_link_cannot_give_is_said(params, code, args, lang):
    lesson = TOY
    at = ok(open_page(lesson, {"lang": lang, **params}))
    words = table(lang)[f"notice.{code}"]
    lead = words.split("{")[0]
    assert any(lead in w.value for w in at.warning), [w.value for w in at.warning]
    assert any(str(v) in w.value for w in at.warning for v in args.values())
    if code != "present_bad":
        n = len(lesson.present.stages)
        assert published(at)["reveal"] == ("1" if args.get("asked") == 0 or code == "reveal_bad" else str(n))
    else:
        assert "present" not in published(at)


def test_a_huge_step_is_past_the_end_and_said_so():
    """A trial: reveal=9…9 (5,000 digits) was called "not a whole number" and opened step 1."""
    lesson = TOY
    at = ok(open_page(lesson, {"present": "1", "reveal": "9" * 5000}))
    lead = table("ja")["notice.reveal_clamped"].split("{")[0]
    assert any(lead in w.value for w in at.warning) and published(at)["reveal"] == str(len(lesson.present.stages))
    assert all(len(w.value) < 400 for w in at.warning)  # the number quoted short


def test_a_notice_about_the_links_step_goes_when_the_step_changes():
    """A trial: after reveal=99 and Back, the box still said "step 6 is shown" under "step 5 of 6"."""
    lesson = TOY
    at = ok(open_page(lesson, {"present": "1", "reveal": "99"}))
    assert at.warning
    ok(at.button(key="present.back").click().run())
    assert not at.warning, [w.value for w in at.warning]


@pytest.mark.parametrize("lang", LANGS)
def test_a_step_without_presentation_mode_is_said(lang):
    at = ok(open_page(TOY, {"lang": lang, "reveal": "3"}))
    lead = table(lang)["notice.reveal_ignored"].split("{")[0]
    assert any(lead in w.value for w in at.warning), [w.value for w in at.warning]
    assert "reveal" not in published(at) and "present" not in published(at)


def test_the_home_page_says_what_presentation_mode_does():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["present"] = "1"
    ok(at.run())
    assert any(table("ja")["present.home"] in i.value for i in at.info)


def test_leaving_and_coming_back_starts_at_step_one():
    """A trial: the switch turned on again reopened the step last shown, though the link no longer had it."""
    lesson = TOY
    at = ok(open_page(lesson, {"present": "1", "reveal": "3"}))
    ok(at.button(key="present.exit").click().run())
    ok(at.toggle(key="frame.present").set_value(True).run())
    assert published(at)["reveal"] == "1"
