"""The language tables (assets/i18n/<lang>[.<part>].toml) against each other and against the source.

- ja and en have exactly the same keys and, per key, the same {placeholders} (string.Formatter);
- every lesson of lessons.REGISTRY has its texts (lesson.<key>.nav/.title/.blurb, <key>.title/.intro), every
  planned lesson its title;
- every notice code the codec, the lessons and the pages can emit (lessons/link.py's documented codes, the lessons'
  and the pages' own) and every refusal code (reason.<code>) has words in both languages, with no placeholder the
  emitting code does not fill; codes are string literals (an f-string code could not be checked);
- every t("...") key the pages, ui/ and app.py use exists in both tables: literal keys, both branches of
  `t("a" if c else "b")`, and f-string keys through their known expansions (preset.<key> for every preset,
  mode.xw/direct, reason.<code> for every refusal code, notice.<code> for every notice code, lesson.<key>.* and
  <key>.title/.intro for every registered lesson, fig.<name>.* for every heatmap name, ...);
- a call that passes {placeholders} passes all of them, and never as a keyword that collides with t's own
  parameters (key, lang);
- no Japanese characters in .py files under lesson_pages/, ui/ and app.py except in comments and docstrings
  (user-facing strings live in assets/).
The source is read with ast/tokenize, not imported (lessons.REGISTRY is: it is the list of lessons).
"""
from __future__ import annotations

import ast
import io
import re
import string
import tokenize
import tomllib
from functools import cache
from pathlib import Path

import pytest

import lessons
from lessons import qkv as L
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


# ---- what the codec, the lessons and the pages can emit: notice codes and refusal (reason) codes ----------------
class _Emitted(ast.NodeVisitor):
    """Calls that emit a notice or a refusal, with the arguments they format it with.

    Notice("code", {..}) and Refusal("code", **args) in lessons/ and attention_core/; page.notify("code", {..}),
    notify("cell_refused", dict(..)) and push_notices(place, [("code", {..})]) in the pages, ui/ and app.py. A code
    that is not a string literal (an f-string, a variable) cannot be checked: it is recorded in ``problems`` —
    unless it is a parameter of the enclosing function passed on unchanged (``def notify(self, code, args)``)."""

    def __init__(self, path: str):
        self.path = path
        self.params: list[set[str]] = []
        self.notices: list[tuple[str, int, str, frozenset[str] | None]] = []  # (path, line, code, args or None)
        self.refusals: list[tuple[str, int, str, frozenset[str] | None]] = []
        self.problems: list[tuple[str, int, str]] = []

    def _scope(self, node, args: ast.arguments):
        names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.params.append(names)
        self.generic_visit(node)
        self.params.pop()

    def visit_FunctionDef(self, node):
        self._scope(node, node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._scope(node, node.args)

    @staticmethod
    def _arg_names(node) -> frozenset[str] | None:
        """Keys of a dict literal or dict(k=...) call; None when they cannot be read statically."""
        if node is None:
            return frozenset()
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
            return frozenset(k.value for k in node.keys)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
                and not node.args and all(k.arg for k in node.keywords)):
            return frozenset(k.arg for k in node.keywords)
        return None

    def _code(self, node, into: list, args) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            into.append((self.path, node.lineno, node.value, args))
        elif isinstance(node, ast.Name) and self.params and node.id in self.params[-1]:
            pass  # a forwarder: the code comes from its caller, which is checked where it is written
        else:
            self.problems.append((self.path, node.lineno, ast.unparse(node)))

    def visit_Call(self, node):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name in ("Notice", "notify") and node.args:
            self._code(node.args[0], self.notices, self._arg_names(node.args[1] if len(node.args) > 1 else None))
        elif name == "push_notices" and len(node.args) > 1 and isinstance(node.args[1], ast.List):
            for item in node.args[1].elts:
                if isinstance(item, ast.Tuple) and item.elts:
                    extra = item.elts[1] if len(item.elts) > 1 else None
                    self._code(item.elts[0], self.notices, self._arg_names(extra))
        elif name == "Refusal" and node.args:
            splat = any(k.arg is None for k in node.keywords)
            self._code(node.args[0], self.refusals, None if splat else frozenset(k.arg for k in node.keywords))
        self.generic_visit(node)


LESSON_SOURCES = sorted([*(ROOT / "lessons").glob("*.py"), *CORE])


@cache
def emitted() -> _Emitted:
    out = _Emitted("")
    for path in LESSON_SOURCES + SOURCES:
        v = _Emitted(rel(path))
        v.visit(ast.parse(path.read_text(encoding="utf-8")))
        out.notices += v.notices
        out.refusals += v.refusals
        out.problems += v.problems
    return out


def _documented_link_codes() -> set[str]:
    """The notice codes lessons/link.py's module docstring lists ("Notice codes of this module: ...")."""
    doc = ast.get_docstring(ast.parse((ROOT / "lessons" / "link.py").read_text(encoding="utf-8")))
    part = doc.split("Notice codes of this module:", 1)[1]
    return set(re.findall(r"``(\w+)``", re.sub(r"\([^)]*\)", "", part)))  # without the "(args ...)" remarks


PAGE_NOTICES = {"query_clamped", "value_refused", "cell_refused", "too_many_tokens", "bad_lang", "text_cut"}
"""Notices the lessons and the pages emit besides the codec's (too_many_tokens is formatted by the page itself)."""


def _t_notice_uses() -> list[tuple[str, int, str, frozenset[str] | None]]:
    """t("notice.<code>", **fmt) written out in the source: a notice formatted in place (too_many_tokens)."""
    out = []
    for path, line, kind, key, call in _all_uses():
        if kind == "lit" and key.startswith("notice."):
            kw = {k.arg for k in call.keywords}
            out.append((path, line, key[len("notice."):], None if None in kw else frozenset(kw - {"lang"})))
    return out


def notice_args() -> dict[str, list[frozenset[str] | None]]:
    """notice code → the argument names of each place that emits it (None: not readable statically)."""
    out: dict[str, list] = {}
    for _, _, code, args in emitted().notices + _t_notice_uses():
        out.setdefault(code, []).append(args)
    return out


def refusal_args() -> dict[str, list[frozenset[str] | None]]:
    """reason code → the argument names of each Refusal raised with it."""
    out: dict[str, list] = {}
    for _, _, code, args in emitted().refusals:
        out.setdefault(code, []).append(args)
    return out


def refusal_codes() -> set[str]:
    return set(refusal_args())


def notice_codes() -> set[str]:
    return set(notice_args())


def shown_args(code: str, args: frozenset[str]) -> set[str]:
    """The placeholders a notice is formatted with (ui.widgets.notice_text): bad_value's ``extra`` fills its
    reason, which is put into words first; bad_value and rounded also name the parameter in words ({name})."""
    shown = set(args) - {"extra"} if code == "bad_value" else set(args)
    return shown | {"name"} if code in ("bad_value", "rounded") else shown  # + the parameter in words


def heatmap_names() -> set[str]:
    names = set(L.ROW_MATRICES) | {"W_Q", "W_K", "W_V"} | {"Q_out", "K_out", "V_out"}
    names |= {"scores", "scaled", "weights", "out"}
    # every literal name passed to charts.show_heatmap must be among them
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "show_heatmap" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


REGISTERED = {x.key for x in lessons.REGISTRY}


def known_expansions() -> dict[str, set[str]]:
    return {
        "preset.{}": set(L.PRESETS),
        "mode.{}": {"xw", "direct"},
        "frame.lang_{}": set(LANGS),
        "reason.{}": refusal_codes(),
        "notice.{}": notice_codes(),
        "qkv.note.{}": {"dog", "direct3", "school"},
        "lesson.{}.title": REGISTERED,
        "planned.{}": set(lessons.PLANNED),
        "lesson.{}.nav": REGISTERED,
        "lesson.{}.blurb": REGISTERED,
        "{}.title": REGISTERED,
        "{}.intro": REGISTERED,
        "fig.{}.title": heatmap_names(),
        "fig.{}.rows": heatmap_names(),
        "fig.{}.cols": heatmap_names(),
        "fig.{}.hover": heatmap_names(),
    }


# ---- the lessons of the registry ---------------------------------------------------------------------------------
LESSON_KEYS = ("lesson.{}.nav", "lesson.{}.title", "lesson.{}.blurb", "{}.title", "{}.intro")


@pytest.mark.parametrize("lesson", lessons.REGISTRY, ids=lambda x: x.key)
@pytest.mark.parametrize("lang", LANGS)
def test_every_registered_lesson_has_its_texts(lesson, lang):
    """The router (nav), the home page (title, blurb) and the page runtime (<key>.title, <key>.intro)."""
    tab = table(lang)
    assert [k.format(lesson.key) for k in LESSON_KEYS if k.format(lesson.key) not in tab] == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_planned_lesson_has_a_title(lang):
    assert [k for k in lessons.PLANNED if f"planned.{k}" not in table(lang)] == []


# ---- notices and reasons: every code, both languages, the placeholders it is formatted with ----------------------
def test_notice_and_refusal_codes_are_literals():
    """An f-string or computed code (the old f"scaling_{reason}") cannot be checked against the tables."""
    assert emitted().problems == []


def test_refusal_and_notice_codes_found():
    # guards the scanner above: these codes certainly exist
    assert {"not_number", "not_finite", "too_big", "too_long", "format", "shape", "count", "invalid", "control",
            "empty"} <= refusal_codes()
    documented = _documented_link_codes()
    assert documented == {"link_too_long", "link_too_many", "link_version", "link_unreadable", "other_lesson",
                          "unknown_keys", "duplicate_keys", "bad_value", "rounded"}
    assert documented | PAGE_NOTICES <= notice_codes()


@pytest.mark.parametrize("lang", LANGS)
def test_every_notice_code_has_words_with_its_placeholders(lang):
    tab = table(lang)
    missing, unfilled = [], []
    for code, uses in sorted(notice_args().items()):
        key = f"notice.{code}"
        if key not in tab:
            missing.append(key)
            continue
        for args in uses:
            if args is not None and not field_roots(tab[key]) <= shown_args(code, args):
                unfilled.append((key, sorted(field_roots(tab[key])), sorted(shown_args(code, args))))
    assert missing == []
    assert unfilled == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_reason_code_has_words_with_its_placeholders(lang):
    tab = table(lang)
    missing, unfilled = [], []
    for code, uses in sorted(refusal_args().items()):
        key = f"reason.{code}"
        if key not in tab:
            missing.append(key)
            continue
        for args in uses:
            if args is not None and not field_roots(tab[key]) <= args:
                unfilled.append((key, sorted(field_roots(tab[key])), sorted(args)))
    assert missing == []
    assert unfilled == []


def test_the_codes_emitted_at_run_time_are_the_ones_found():
    """The scanner against the running code: links each lesson refuses yield only codes it found."""
    found_notices, found_reasons = notice_codes(), refusal_codes()
    others = [x.key for x in lessons.REGISTRY]
    hostile = [{"v": "9"}, {"zz": "1"}, {"zz": "z" * 30_000}, {f"z{i}": "1" for i in range(200)}]
    for lesson in lessons.REGISTRY:
        base = lesson.encode(lesson.default_state())
        links = hostile + [{**base, k: bad} for k in lesson.link.keys
                           for bad in ("", "x", "1e999", "1,2", "a\nb", "9" * 7000, "2x2:1", "x" * 50)]
        links.append({x.key: "2" for x in lessons.REGISTRY if x.key != lesson.key})
        for params in links:
            _, notes = lesson.decode(params, [k for k in others if k != lesson.key])
            for n in notes:
                assert n.code in found_notices, (lesson.key, params, n)
                if n.code == "bad_value":
                    assert n.args["reason"] in found_reasons, (lesson.key, params, n)


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
    """t(label) with a variable: draw.pipeline_strip's flow.* labels, and the "which" words a lesson's prediction
    declares (``Prediction.which``: (text key, args) pairs, checked here for every lesson's fixed states);
    ui.i18n.label puts the (text key, args) labels of ``Lesson.array_labels`` in words: those are checked by
    tests/contract/test_array_labels.py."""
    flow = set(re.findall(r"\"(flow\.\w+)\"", (ROOT / "ui" / "draw.py").read_text(encoding="utf-8")))
    assert flow, "pipeline strip labels not found"
    for lang in LANGS:
        assert sorted(k for k in flow if k not in table(lang)) == []
    for path, line, kind, src, _ in _all_uses():
        if kind == "dynamic":
            assert (path, src) in {("ui/draw.py", "label"), ("ui/i18n.py", "key"), ("ui/predict.py", "text_key")}, \
                (path, line, src)
    import lessons

    for lesson in lessons.REGISTRY:
        if lesson.predict is not None and lesson.predict.which is not None:  # Prediction.which: (text key, args)
            for state in (lesson.default_state(), *((lesson.widest(),) if lesson.widest else ())):
                key, args = lesson.predict.which(state)
                for lang in LANGS:
                    assert table(lang).get(key, "").strip(), (lesson.key, key, lang)
                    table(lang)[key].format(**args)


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


def test_a_planned_lessons_key_is_free_for_the_lesson():
    """A planned lesson's announcement lives in planned.<key>, so the lesson that takes the key writes its own
    lesson.<key>.* and <key>.* texts without "defines keys already defined elsewhere" (issue 19)."""
    for lang in LANGS:
        taken = [k for k in table(lang) for p in lessons.PLANNED
                 if p not in REGISTERED and (k.startswith(f"lesson.{p}.") or k.startswith(f"{p}."))]
        assert taken == [], lang


RETIRED_JA = {"デコーダー": "デコーダ", "注意の重み": "アテンションの重み", "くわしく": "詳しく",
              "重みつき和": "重み付き和", "Self-Attention": "自己アテンション", "電話で": "スマートフォンで"}
"""One term per concept in the Japanese tables (issue 42, item 10): a retired variant → the term used."""


def test_the_japanese_tables_use_one_term_per_concept():
    found = {old: [k for k, v in table("ja").items() if old in v] for old in RETIRED_JA}
    bad = {f"{old} (use {RETIRED_JA[old]})": keys[:5] for old, keys in found.items() if keys}
    assert not bad, bad


def test_no_space_between_japanese_and_a_quote_bracket():
    """「今度は 「歩く」の行」: a space put before a bracket so that Markdown's ** would bold it shows as a stray space;
    the bold goes inside the brackets (今度は「**歩く**」の行)."""
    ja = "\u3040-\u30ff\u4e00-\u9fff"  # hiragana, katakana, CJK ideographs
    stray = re.compile(f"[{ja}] \\*{{0,2}}「|」\\*{{0,2}} [{ja}]")
    bad = {k: v for k, v in table("ja").items() if stray.search(v)}
    assert not bad, bad
