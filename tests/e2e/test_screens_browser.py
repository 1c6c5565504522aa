"""Every screen a class uses, on every registered lesson: readable from the back of the room, nothing past the right
edge, every number in contrast with its cell (the rules: tests/e2e/screens.py).

Each case opens one link of one lesson at one window size, and every check that only reads a page reads it from
that one load: the charts' sizes, boxes and overlaps, the colour contrast of every heatmap number, the layout of the
main column, and what the size asks for (1024×768: charts side by side keep the width they were laid out for;
390×844: one chart a row). For each lesson of ``lessons.REGISTRY`` (none named here), in ``make test``:

- its default link at 1280×720, in both languages when it declares no ``widest`` state or has menus whose choices
  must all fit (screens._menus), else in one, the languages taking turns;
- its widest link (``Lesson.widest``: 16 tokens, a 33-character token, the widest numbers) at 1280×720 in the other
  language, on another colour scheme than the default (the schemes taking turns), so every lesson meets two schemes;
- its fullest screen (widest, else default) at 1024×768 and at 390×844;
- in presentation mode at the step of its main picture, at one of the three sizes in turn;
- its ``Lesson.one_edit`` of the default state: one cell of an input changed; every heatmap cell whose number did not
  change keeps its colour, against the default link's page in the same language;
- its widest link as its link schema alone makes it (screens.widest_params: every field at its extreme, hostile
  tokens) at 1280×720.
The layout rules read the default and schema links at 1280×720 and again narrowed to a phone (LAID_OUT). No page
asks any server but the app's own for anything (every request of every case).
``make test-all`` (ATTN_LAB_EXHAUSTIVE=1) opens every state at every size in both languages, in and out of
presentation mode, and the default link on every colour scheme.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

import lessons
from ui.figures import REF_COLUMN_PX, SCHEMES

from . import screens as S
from .helpers import exhaustive

LANGS = ("ja", "en")
SIZES = {"1280x720": {"width": 1280, "height": 720}, "1024x768": {"width": 1024, "height": 768},
         "390x844": {"width": 390, "height": 844}}
"""The screens a class uses: a projector at 1280×720 and at 1024×768, a phone."""
PHONE = "390x844"
LAID_OUT = ("default", "schema")
"""The states whose pages the layout rules (screens.layout_problems) read, at 1280×720 and narrowed to a phone."""


@dataclass(frozen=True)
class Screen:
    """One page load: lesson ``key`` in state ``state`` ("default", "widest", "one_edit" or "schema"), language,
    window size, presentation mode or not, colour scheme."""

    key: str
    state: str
    lang: str
    size: str
    present: bool = False
    scheme: str = "default"

    @property
    def id(self) -> str:
        return "-".join([self.key, self.state, self.lang, self.size] + ["present"] * self.present
                        + ([self.scheme] if self.scheme != "default" else []))

    def url(self, base: str) -> str:
        lesson = lessons.by_key(self.key)
        if self.state == "schema":
            params = S.widest_params(lesson)
        else:
            state = {"default": lesson.default_state, "widest": lesson.widest,
                     "one_edit": lambda: lesson.one_edit(lesson.default_state())}[self.state]()
            params = lesson.encode(state)
        params = {**params, "lang": self.lang}
        if self.scheme != "default":
            params["colors"] = self.scheme
        if self.present:  # at the step of the lesson's main picture (Lesson.present.picture)
            params.update(present="1", reveal=str(lesson.present.stages.index(lesson.present.picture[0]) + 1))
        return f"{base}/{self.key}?" + urlencode(params)


def _ci_cases(i: int, lesson) -> list[Screen]:
    a, b = LANGS[i % 2], LANGS[(i + 1) % 2]
    other = list(SCHEMES)[1 + i % (len(SCHEMES) - 1)]
    fullest = "widest" if lesson.widest else "default"
    both = not lesson.widest or lesson.key in S._menus()
    out = [Screen(lesson.key, "default", b, "1280x720")]
    if both:
        out.append(Screen(lesson.key, "default", a, "1280x720", scheme="default" if lesson.widest else other))
    if lesson.widest:
        out.append(Screen(lesson.key, "widest", a, "1280x720", scheme=other))
    if lesson.one_edit:
        out.append(Screen(lesson.key, "one_edit", b, "1280x720"))
    out += [Screen(lesson.key, fullest, a, "1024x768"), Screen(lesson.key, fullest, b, PHONE),
            Screen(lesson.key, fullest, a, tuple(SIZES)[i % 3], present=True),
            Screen(lesson.key, "schema", b, "1280x720")]
    return out


def _all_cases(lesson) -> list[Screen]:
    states = ["default"] + ["widest"] * bool(lesson.widest)
    out = [Screen(lesson.key, state, lang, size, present)
           for state in states for size in SIZES for lang in LANGS for present in (False, True)]
    out += [Screen(lesson.key, "default", "ja", "1280x720", scheme=s) for s in list(SCHEMES)[1:]]
    out += [Screen(lesson.key, "one_edit", lang, "1280x720") for lang in LANGS if lesson.one_edit]
    out += [Screen(lesson.key, "schema", lang, "1280x720") for lang in LANGS]
    return out


CASES = [case for i, lesson in enumerate(lessons.REGISTRY)
         for case in (_all_cases(lesson) if exhaustive() else _ci_cases(i, lesson))]


def _one_page(tabs, viewport):
    """One tab at ``viewport`` for the whole module (each link is a fresh app session); no page error allowed. The
    addresses of its requests are kept in ``page.asked`` (the case reads and clears them)."""
    page = tabs.new_page(viewport=viewport)
    errors: list = []
    page.on("pageerror", lambda e: errors.append(e))
    page.asked = []
    page.on("request", lambda r: page.asked.append(r.url))
    yield page
    page.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def views(tabs):
    """One page per window size of SIZES, made when first asked for, for the whole module."""
    made, pages = {}, {}

    def at(size: str):
        if size not in pages:
            made[size] = _one_page(tabs, SIZES[size])
            pages[size] = next(made[size])
        page = pages[size]
        if page.viewport_size != SIZES[size]:  # a case narrowed it
            page.set_viewport_size(SIZES[size])
        return page

    yield at
    for gen in made.values():
        next(gen, None)  # closes the context and checks its page errors


COLOURS: dict[tuple[str, str], dict] = {}
"""The colours of every heatmap cell of each lesson's default page at 1280×720, by (lesson key, language): what the
one_edit case compares with."""


def _default_colours(views, base: str, lesson, lang: str) -> dict:
    if (lesson.key, lang) not in COLOURS:  # this case runs alone (-k): open the default page itself
        charts = S.open_and_read(views("1280x720"), Screen(lesson.key, "default", lang, "1280x720").url(base))
        COLOURS[(lesson.key, lang)] = S.colours_by_value(charts)
    return COLOURS[(lesson.key, lang)]


def _recoloured(before: dict, after: dict) -> list[str]:
    shared = [k for k in before if k in after and before[k][0] is not None and before[k][0] == after[k][0]]
    changed = [k for k in before if k in after and before[k][0] != after[k][0]]
    if not changed:
        return ["one_edit changed no number on the page: the colour check tests nothing"]
    if not shared:
        return ["one_edit left no cell unchanged: the colour check compares nothing"]
    bad = [f"{k[0]} [{k[1]}, {k[2]}] {before[k][0]}: {before[k][1]} → {after[k][1]}" for k in shared
           if before[k][1] is None or after[k][1] is None
           or max(abs(x - y) for x, y in zip(before[k][1], after[k][1])) > 2]
    return [f"{len(bad)} unchanged cell(s) changed colour after one_edit:"] + bad[:30] if bad else []


def _where(case: Screen, url: str) -> str:
    return f"{case.id} ({url if len(url) < 200 else url[:200] + '…'})"


def _outside(page, origin: str) -> list[str]:
    """The requests the page made since the last call to anywhere but the app's own server (a classroom may be
    offline: a page icon from a font server once made every page fetch one)."""
    away = [u for u in page.asked if not u.startswith((origin + "/", "data:", "blob:"))]
    page.asked.clear()
    return [f"the page asked another server for {away[:3]}"] if away else []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_screen_is_readable_and_fits(views, app_server, case):
    lesson = lessons.by_key(case.key)
    page = views(case.size)
    url = case.url(app_server)
    page.asked.clear()
    charts = S.open_and_read(page, url)
    found: list[str] = _outside(page, app_server)
    if case.state != "schema":
        if lesson.widest or lesson.one_edit:  # it declared what its charts show at their fullest or after an edit
            found += [] if charts else ["no chart on the page"]
        found += S.problems_of(charts) + S.contrast_problems(charts) + S.sideways_problems(page)
    if case.size == "1024x768":
        found += S.squeezed_row_problems(page, REF_COLUMN_PX)
    if case.size == PHONE:
        found += S.phone_row_problems(page)
    if case.state == "one_edit":
        found += _recoloured(_default_colours(views, app_server, lesson, case.lang), S.colours_by_value(charts))
    if case.size == "1280x720" and case.state == "default" and not case.present:
        found += S.menu_problems(page, case.key, case.lang)
        if case.scheme == "default":
            COLOURS[(case.key, case.lang)] = S.colours_by_value(charts)
    if case.size == "1280x720" and case.state in LAID_OUT and not case.present:  # here and narrowed to a phone
        found += S.layout_problems(page)
        page.set_viewport_size(SIZES[PHONE])
        found += [f"narrowed to {PHONE}: {p}" for p in S.layout_problems(page) + S.phone_row_problems(page)]
    found += _outside(page, app_server)  # what was asked for after the first drawing (icons, lazy modules)
    assert not found, f"{_where(case, url)}: {len(found)} problem(s):\n" + "\n".join(found[:40])


def test_the_layout_checks_find_what_they_look_for(browser):
    """Each fault of screens.FAULTY_PAGE is reported once, and the table that scrolls inside its own box is not."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(S.FAULTY_PAGE)
        text = "\n".join(page.evaluate(S.LAYOUT_JS))
    finally:
        context.close()
    assert "the main column scrolls sideways" in text
    assert '<div> "wide" ends 200 px past' in text
    assert "px wider than its box; it must wrap" in text
    assert '"e" notation on screen (8.7e−' in text
    assert "an ASCII hyphen as a minus sign (-2.2)" in text
    assert "is cut off" in text and 'cut off with "…"' in text and '"−10.0000" is cut off' in text
    assert "scrolls in its own box" not in text


def test_the_contrast_ratio_is_wcags():
    """The measure itself, on values WCAG 2 gives: black on white 21:1, #777 on white about 4.48:1."""
    assert S.ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert S.ratio((0x77, 0x77, 0x77), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert S.ratio((0x44, 0x44, 0x44), (0x21, 0x91, 0x8C)) < S.AA  # plotly's #444 on viridis' teal: too little
