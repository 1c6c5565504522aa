"""Save a lesson's state as a file and load it back, in Chromium (issue 25 §3), for every registered lesson: the saved
file holds the page's state (the same numbers as the link it was opened with, an edit included), the zip of CSV
files holds every array, the NumPy script is the lesson's for that state, loading the file on a fresh page brings
that link back, and a file cut short is refused in words with the page unchanged."""
from __future__ import annotations

import zipfile
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import expect

import lessons
from lessons import state_file as sf
from lessons.link import IGNORED_KEYS
from ui import exports
from ui.i18n import t

from .helpers import APP_READY, assert_no_exception, query_of, wait_for_app

REGISTRY = list(lessons.REGISTRY)


def _fold(page, lang: str):
    fold = page.locator("[data-testid='stExpander']").filter(has_text=t("file.title", lang=lang)).first
    fold.scroll_into_view_if_needed()
    if not fold.get_by_role("button", name=t("file.save", lang=lang)).is_visible():  # closed: open it
        fold.locator("summary").click()
    fold.get_by_role("button", name=t("file.save", lang=lang)).wait_for(timeout=10_000)
    return fold


def _upload(page, fold, name: str, data: bytes) -> None:
    fold.locator("input[type=file]").set_input_files(files=[{"name": name, "mimeType": "application/json",
                                                             "buffer": data}])
    page.wait_for_timeout(400)
    page.wait_for_selector(APP_READY, timeout=30_000)
    page.wait_for_timeout(600)
    page.wait_for_selector(APP_READY, timeout=30_000)


def _lesson_params(url: str) -> dict:
    return {k: v[0] for k, v in query_of(url).items() if k not in IGNORED_KEYS}


@pytest.mark.parametrize("i, lesson", list(enumerate(REGISTRY)), ids=[x.key for x in REGISTRY])
def test_save_then_load_brings_the_page_back(tabs, app_server, i, lesson):
    lang = ("ja", "en")[i % 2]
    state = lesson.widest() if lesson.widest else lesson.default_state()
    if lesson.one_edit:
        state = lesson.one_edit(state)
    want = lesson.encode(state)
    page = tabs.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        page.goto(f"{app_server}/{lesson.key}?" + urlencode({**want, "lang": lang}))
        wait_for_app(page)
        with page.expect_download() as download:
            _fold(page, lang).get_by_role("button", name=t("file.save", lang=lang)).click()
        assert download.value.suggested_filename == sf.file_name(lesson.key)
        data = open(download.value.path(), "rb").read()
        with page.expect_download() as zipped:
            _fold(page, lang).get_by_role("button", name=t("file.zip", lang=lang)).click()
        assert zipped.value.suggested_filename == f"attention-lab_{lesson.key}_arrays.zip"
        with zipfile.ZipFile(zipped.value.path()) as z:
            assert sorted(z.namelist()) == sorted(exports.csv_name(lesson.key, n) for n in lesson.arrays(state))
        saved = sf.load(lesson, data)  # the page's own state, read by the lesson's codec
        if lesson.code is not None:  # the NumPy script of that same state
            with page.expect_download() as script:
                _fold(page, lang).get_by_role("button", name=t("file.code", lang=lang)).click()
            assert script.value.suggested_filename == f"attention-lab_{lesson.key}.py"
            assert open(script.value.path(), encoding="utf-8").read() == lesson.code(saved)
        for name, a in lesson.arrays(state).items():
            b = lesson.arrays(saved)[name]
            assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f"), name

        page.goto(f"{app_server}/{lesson.key}?lang={lang}")  # a fresh page, the lesson's default
        wait_for_app(page)
        fold = _fold(page, lang)
        _upload(page, fold, "saved.json", data)
        assert_no_exception(page)
        expect(fold.get_by_text(t("file.loaded", lang=lang, name="saved.json"))).to_have_count(1, timeout=20_000)
        assert _lesson_params(page.url) == want, "the loaded file did not bring the saved link back"

        _upload(page, fold, "cut.json", data[: len(data) // 2])
        assert_no_exception(page)
        refused = t("file.refused", lang=lang, name="cut.json")
        # (on a busy machine the rerun that reads the file may start after _upload's waits: the words are awaited)
        expect(page.get_by_text(refused), "a file cut short must be refused in words").to_have_count(1, timeout=20_000)
        assert _lesson_params(page.url) == want, "a refused file changed the page"
    finally:
        page.close()
