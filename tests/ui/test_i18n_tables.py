"""The language tables (assets/i18n/<lang>[.<part>].toml) against each other and against the source.

- ja and en have exactly the same keys and, per key, the same {placeholders} (string.Formatter);
- every t("...") key the pages, ui/ and app.py use exists in both tables: literal keys, both branches of
  `t("a" if c else "b")`, and f-string keys through their known expansions (preset.<key> for every preset,
  mode.xw/direct, reason.<code> for every refusal code attention_core raises, notice.<code> for every notice
  code, fig.<name>.* for every heatmap name, ...);
- a call that passes {placeholders} passes all of them, and never as a keyword that collides with t's own
  parameters (key, lang);
- no Japanese characters in .py files under lesson_pages/, ui/ and app.py except in comments and docstrings
  (user-facing strings live in assets/).
The source is read with ast/tokenize, not imported.
"""
from __future__ import annotations

import ast
import io
import re
import string
import tokenize
import tomllib
from pathlib import Path

import pytest

from attention_core import lessons as L
from ui import i18n
from ui.i18n import LANGS, t, table

ROOT = Path(__file__).resolve().parents[2]
I18N_DIR = ROOT / "assets" / "i18n"
SOURCES = sorted([ROOT / "app.py", *(ROOT / "lesson_pages").glob("*.py"), *(ROOT / "ui").glob("*.py")])
CORE = sorted((ROOT / "attention_core").glob("*.py"))


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def fields(text: str) -> set[str]:
    """The replacement fields str.format would need, as written ('token', 'customdata[0]', ...)."""
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None and f != ""}


def field_roots(text: str) -> set[str]:
    return {re.split(r"[.\[]", f, maxsplit=1)[0] for f in fields(text)}


# --------------------------------------------------------------------------------------------- the tables
def test_both_languages_have_a_main_table():
    assert LANGS == ("ja", "en")
    for lang in LANGS:
        assert (I18N_DIR / f"{lang}.toml").is_file()


def test_part_files_come_in_pairs():
    parts = {lang: sorted(p.name[len(lang) + 1:] for p in I18N_DIR.glob(f"{lang}.*.toml")) for lang in LANGS}
    assert parts["ja"] == parts["en"]


def test_every_table_file_parses():
    for path in I18N_DIR.glob("*.toml"):
        with open(path, "rb") as f:
            tomllib.load(f)


def test_same_keys_in_ja_and_en():
    ja, en = set(table("ja")), set(table("en"))
    assert sorted(ja - en) == [], "keys only in ja"
    assert sorted(en - ja) == [], "keys only in en"
    assert len(ja) > 50


def test_values_are_non_empty_strings():
    for lang in LANGS:
        for key, value in table(lang).items():
            assert isinstance(value, str), (lang, key)
            assert value.strip(), (lang, key)


def test_same_placeholders_per_key():
    ja, en = table("ja"), table("en")
    diff = {k: (sorted(fields(ja[k])), sorted(fields(en[k]))) for k in ja.keys() & en.keys()
            if fields(ja[k]) != fields(en[k])}
    assert diff == {}


def test_every_value_is_a_valid_format_string():
    for lang in LANGS:
        for key, value in table(lang).items():
            try:
                list(string.Formatter().parse(value))
            except ValueError as e:  # a lone { or }
                pytest.fail(f"{lang}: {key}: {e}")


def test_t_falls_back_to_japanese_and_to_the_key():
    assert t("nav.home", lang="ja") == table("ja")["nav.home"]
    assert t("nav.home", lang="en") == table("en")["nav.home"]
    assert t("nav.home") == table("ja")["nav.home"]  # outside Streamlit: Japanese
    assert t("no.such.key", lang="en") == "no.such.key"
    assert i18n.DEFAULT_LANG == "ja"


# ------------------------------------------------------------------------------ keys used by the source
def _t_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t" and node.args:
            yield node


def _key_forms(node: ast.AST):
    """('lit', key) | ('pattern', 'fig.{}.title') | ('dynamic', source) for the first argument of t()."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield "lit", node.value
    elif isinstance(node, ast.IfExp):
        yield from _key_forms(node.body)
        yield from _key_forms(node.orelse)
    elif isinstance(node, ast.JoinedStr):
        yield "pattern", "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    else:
        yield "dynamic", ast.unparse(node)


def _all_uses():
    uses = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in _t_calls(tree):
            for kind, key in _key_forms(call.args[0]):
                uses.append((rel(path), call.lineno, kind, key, call))
    return uses


def _core_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in CORE)


def refusal_codes() -> set[str]:
    """reason.<code>: every CellError code raised in attention_core, plus the codec's own bad(..., reason)."""
    src = _core_source()
    codes = set(re.findall(r"CellError\(\s*\"(\w+)\"", src))
    codes |= set(re.findall(r"\bbad\(\s*[^,()]+(?:\([^)]*\))?,\s*\"(\w+)\"", src))
    codes.add("invalid")  # bad()'s default reason
    return codes


def notice_codes() -> set[str]:
    """notice.<code>: every Notice code in attention_core plus the (code, args) notices the UI pushes."""
    codes = set(re.findall(r"Notice\(\s*\"(\w+)\"", _core_source()))
    ui_src = "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)
    codes |= set(re.findall(r"push_notices\([^\[]*\[\(\s*\"(\w+)\"", ui_src))
    codes |= set(re.findall(r"\bnotify\(\s*\"(\w+)\"", ui_src))
    return codes


def heatmap_names() -> set[str]:
    names = set(L.ROW_MATRICES) | {"W_Q", "W_K", "W_V"} | {"Q_out", "K_out", "V_out"}
    names |= {"scores", "scaled", "weights", "out"}
    # every literal name passed to draw.show_heatmap must be among them
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "show_heatmap" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


def known_expansions() -> dict[str, set[str]]:
    return {
        "preset.{}": set(L.PRESETS),
        "mode.{}": {"xw", "direct"},
        "frame.lang_{}": set(LANGS),
        "reason.{}": refusal_codes(),
        "notice.{}": notice_codes(),
        "qkv.note.{}": {"dog", "direct3", "school"},
        "lesson.{}.title": {"scaling", "masks", "multihead", "positional", "cross"},
        "fig.{}.title": heatmap_names(),
        "fig.{}.rows": heatmap_names(),
        "fig.{}.cols": heatmap_names(),
        "fig.{}.hover": heatmap_names(),
    }


def test_refusal_and_notice_codes_found():
    # guards the regexes above: these codes certainly exist
    assert {"not_number", "not_finite", "too_big", "too_long", "format", "shape", "count", "wrong_mode",
            "invalid"} <= refusal_codes()
    assert {"bad_value", "link_version", "link_too_long", "text_too_long", "query_clamped", "unknown_keys",
            "cell_refused", "bad_lang"} <= notice_codes()


def test_literal_keys_exist():
    missing = []
    for lang in LANGS:
        tab = table(lang)
        for path, line, kind, key, _ in _all_uses():
            if kind == "lit" and key not in tab:
                missing.append((lang, path, line, key))
    assert missing == []


def test_f_string_keys_exist_for_every_expansion():
    known = known_expansions()
    missing, unknown = [], []
    for path, line, kind, pattern, _ in _all_uses():
        if kind != "pattern":
            continue
        for lang in LANGS:
            tab = table(lang)
            if pattern in known:
                for value in sorted(known[pattern]):
                    key = pattern.replace("{}", value)
                    if key not in tab:
                        missing.append((lang, path, line, key))
            else:  # a pattern this test does not know yet: at least some key must match it
                rx = re.compile("^" + ".+".join(re.escape(p) for p in pattern.split("{}")) + "$")
                if not any(rx.match(k) for k in tab):
                    unknown.append((lang, path, line, pattern))
    assert missing == []
    assert unknown == []


def test_dynamic_keys_are_known():
    """t(label) with a variable: today only draw.pipeline_strip's flow.* labels."""
    flow = set(re.findall(r"\"(flow\.\w+)\"", (ROOT / "ui" / "draw.py").read_text(encoding="utf-8")))
    assert flow, "pipeline strip labels not found"
    for lang in LANGS:
        assert sorted(k for k in flow if k not in table(lang)) == []
    for path, line, kind, src, _ in _all_uses():
        if kind == "dynamic":
            assert (path, src) in {("ui/draw.py", "label")}, (path, line, src)


def test_keyword_arguments_fill_every_placeholder():
    """t("k", a=..., b=...) formats the text: every placeholder must be passed (else KeyError on screen).
    Calls without keywords return the text as is (templates filled later, plotly %{...} hover texts)."""
    problems = []
    for path, line, kind, key, call in _all_uses():
        if kind != "lit":
            continue
        kw = {k.arg for k in call.keywords}
        if not kw or None in kw:  # no formatting, or a **splat this test cannot see into
            continue
        kw -= {"lang"}  # a keyword named key is reported by the next test
        for lang in LANGS:
            text = table(lang).get(key)
            if text is not None and not field_roots(text) <= kw:
                problems.append((path, line, key, lang, f"needs {sorted(field_roots(text))}, gets {sorted(kw)}"))
    assert problems == []


def _key_collisions():
    out = []
    for path, line, _kind, key, call in _all_uses():
        if any(k.arg == "key" for k in call.keywords):
            out.append((path, line, key))
    return out


def test_placeholders_named_like_parameters_of_t_can_be_filled():
    """t(key, /, lang=None, **fmt): the key is positional-only, so a placeholder called {key} is filled by keyword
    (the school note and every bad-link notice use one). Every entry with {key} formats without a TypeError."""
    for lang in LANGS:
        for k, v in table(lang).items():
            roots = field_roots(v)
            if "key" in roots:
                filled = t(k, lang, **{r: "X" for r in roots})
                assert "{" not in filled, (lang, k, filled)


# --------------------------------------------------------------------------- no Japanese in the source
JAPANESE = re.compile(r"[\u3000-\u303f\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _docstring_positions(tree: ast.AST) -> set[tuple[int, int]]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.add((node.value.lineno, node.value.col_offset))
    return out


def japanese_in_code(path: Path) -> list[tuple[int, str]]:
    src = path.read_text(encoding="utf-8")
    docs = _docstring_positions(ast.parse(src))
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            continue
        if tok.type == tokenize.STRING and tok.start in docs:
            continue
        if JAPANESE.search(tok.string):
            hits.append((tok.start[0], tok.string[:60]))
    return hits


def test_japanese_detector_works():
    assert JAPANESE.search("犬") and JAPANESE.search("が") and JAPANESE.search("（")
    assert not JAPANESE.search("Q·K·V → ÷√d_k × … −∞")


@pytest.mark.parametrize("path", SOURCES, ids=rel)
def test_no_japanese_in_code(path):
    assert japanese_in_code(path) == []
