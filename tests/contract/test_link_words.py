"""Every link parameter of every registered lesson has words in both languages (``<lesson>.link.<key>``,
assets/i18n/*.linkwords.toml; a lesson outside the app keeps them in its own tables): a notice about a value of the
link names it by them, and by its key ("d_k (“dk=5”)"), never by the key alone (ui.widgets.notice_text). Matrices
are named by their own names. Oracle: the lesson's link schema, read here, and the language tables."""
from __future__ import annotations

import pytest

import lessons
from lessons import link
from ui.i18n import table

LESSONS = pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
LANGS = ("ja", "en")


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_every_link_field_has_words(lesson, lang):
    tb = table(lang)
    missing = [f.key for f in lesson.link.fields if not tb.get(f"{lesson.key}.link.{f.key}", "").strip()]
    assert not missing, f"{lesson.key}: link parameters without words in {lang}: {missing}"


@LESSONS
@pytest.mark.parametrize("lang", LANGS)
def test_no_words_for_a_parameter_the_link_does_not_have(lesson, lang):
    keys = {f.key for f in lesson.link.fields}
    prefix = f"{lesson.key}.link."
    stale = sorted(k[len(prefix):] for k in table(lang) if k.startswith(prefix) and k[len(prefix):] not in keys)
    assert not stale, f"{lesson.key}: words for parameters its link does not have ({lang}): {stale}"


def test_a_refused_value_is_named_in_words_and_by_its_key():
    """One case by hand: /scaling's dk=1024, in Japanese (the language outside a run)."""
    from ui.widgets import notice_text

    _, notes = lessons.scaling.LESSON.decode({"scaling": "2", "dk": "1024"})
    (note,) = notes
    text = notice_text(note.code, note.args, "scaling")
    assert text.startswith("リンクのd\\_kの値（「dk=1024」）は使えません") and "1 から 512 までの値" in text, text


@LESSONS
@pytest.mark.parametrize("text", ["a", ""])
def test_a_notice_names_only_what_the_link_has(lesson, text):
    """A link of the lesson's own version whose text fields hold one token (or none) and nothing else: every notice
    about a parameter names one the link has (a default query moved to fit a short sentence is not the link's)."""
    own = dict(list(lesson.encode(lesson.default_state()).items())[:1])  # the namespace and its version
    params = {**own, **{f.key: text for f in lesson.link.fields if isinstance(f, link.Text)}}
    _, notes = lesson.decode(params)
    named = [(n.code, n.args["param"]) for n in notes if "param" in n.args]
    assert all(p in params for _, p in named), f"{lesson.key}: notices about parameters the link lacks: {named}"
