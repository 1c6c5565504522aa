"""ui.escape.latex against the KaTeX the app really uses (Streamlit's bundled copy, run in Chromium): every code
point and the hostile corpus, written through latex(), render without a KaTeX error and show the text as typed.

The page is served by Playwright itself (no app server): a blank page and Streamlit's katex module file, read
from the installed streamlit package.
"""
from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest
import streamlit

from ui import escape

ORIGIN = "http://katex.invalid"


def _katex_module() -> Path:
    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("katex.*.js"))
    if len(found) != 1:
        pytest.fail(f"expected one katex.*.js in streamlit's static files, found {[p.name for p in found]}")
    return found[0]


@pytest.fixture(scope="module")
def katex_page(browser):
    context = browser.new_context()
    page = context.new_page()
    source = _katex_module().read_bytes()
    page.route(f"{ORIGIN}/", lambda r: r.fulfill(status=200, content_type="text/html", body="<!doctype html><p>"))
    page.route(f"{ORIGIN}/katex.js", lambda r: r.fulfill(status=200, content_type="text/javascript", body=source))
    page.route("**/*", lambda r: r.fallback() if r.request.url.startswith(ORIGIN) else r.abort())
    page.goto(f"{ORIGIN}/")
    ok = page.evaluate("""async () => {
        const m = await import('/katex.js');
        for (const v of Object.values(m)) {
            const k = v && (v.renderToString ? v : (v.default && v.default.renderToString ? v.default : null));
            if (k) { window.__katex = k; return k.version; }
        }
        return null;
    }""")
    assert ok, "no object with renderToString among the katex module's exports"
    yield page
    context.close()


RENDER = """(items) => items.map(([tex, want]) => {
    const box = document.createElement('div');
    try {
        window.__katex.render(tex, box, {throwOnError: true, displayMode: false});
    } catch (e) { return 'ERROR ' + e.message; }
    // KaTeX ends its HTML with a zero-width space (a strut) and may draw a space as a no-break space
    const shown = box.querySelector('.katex-html').textContent.replace(/\u200b$/, '').replace(/\u00a0/g, ' ');
    return shown === want ? null : 'SHOWN ' + JSON.stringify(shown);
})"""


def _shown(s: str) -> str:
    """What latex() promises to show: the text as every context shows it (ui.escape.shown), a tab as a space, and
    KaTeX's typographic quotes for ` and ' (its text mode draws them so even when written by code). Accented
    letters are left out of this comparison: KaTeX draws "é" as "e" under an accent ("eˊ" in the DOM's text)."""
    return escape.shown(s).replace("\t", " ").replace("\u00a0", " ").replace("`", "\u2018").replace("'", "\u2019")


def _check(page, texts):
    items = [[r"\displaystyle z_{" + escape.latex(s) + "}", "z" + _shown(s)] for s in texts]
    got = page.evaluate(RENDER, items)
    bad = [(s, g) for s, g in zip(texts, got) if g]
    return bad


def test_hostile_corpus_renders_as_typed(katex_page):
    texts = [*escape.HOSTILE, *[w for s in escape.HOSTILE for w in s.split()],
             "a--b---c ``q'' \"d\" <x> |y| ~ ^ _ @ ! ? ; : = +", "∑ a", "\u0301", "猫が魚を食べる", "😀👨‍👩‍👧"]
    bad = _check(katex_page, texts)
    assert not bad, "\n".join(f"{s!r}: {g}" for s, g in bad[:12])


ERRORS = """(items) => {
    const bad = [];
    for (const [k, tex] of items) {
        try { window.__katex.renderToString(tex, {throwOnError: true}); } catch (e) { bad.push([k, e.message]); }
    }
    return bad;
}"""


def _code_points() -> list[int]:
    """Every assigned code point of the blocks where KaTeX's refusals live (Latin and its symbols, punctuation,
    arrows, mathematical operators and technical symbols, letter-like and mathematical alphanumeric symbols,
    private use, CJK symbols and kana, compatibility and full-width forms, emoji; of their ordinary letters and digits
    every 23rd), every 61st CJK ideograph, and a
    few unassigned code points. Surrogates are not text."""
    ranges = [(0x20, 0x33FF), (0xE000, 0xE0FF), (0xF8F0, 0xFFFF), (0x1D400, 0x1D7FF), (0x1EE00, 0x1EEFF),
              (0x1F000, 0x1FAFF), (0xF0000, 0xF00FF)]
    points = [c for lo, hi in ranges for c in range(lo, hi + 1)
              if unicodedata.category(chr(c)) != "Cn" and (unicodedata.category(chr(c))[0] not in "LN" or c % 23 == 0
                                                           or lo in (0x2100, 0x1D400, 0x1EE00))]
    points += [c for c in range(0x3400, 0x2FFFF, 61) if not 0xD800 <= c < 0xE000]
    return points + [0x0378, 0xFFFF, 0x10FFFD]


def test_every_code_point_renders(katex_page):
    """No code point makes KaTeX fail, alone or after a letter (where a combining mark becomes an accent)."""
    points = _code_points()
    items = [[c, r"z_{" + escape.latex(chr(c)) + "}"] for c in points]
    items += [[c, r"z_{" + escape.latex("a" + chr(c)) + "}"] for c in points
              if unicodedata.category(chr(c))[0] == "M" or c % 29 == 0]
    bad = katex_page.evaluate(ERRORS, items)
    assert not bad, f"{len(bad)} code points: " + repr([(f"U+{c:04X}", m[:80]) for c, m in bad[:15]])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
