"""docs/reliability.md names only tests that exist, and every row of its matrix names at least one.

A test is named ``tests/<path>.py::<test function>`` (without parameters). It exists when that file is a test file
pytest collects (``test_*.py`` under tests/) and defines that function at module level or in a ``Test*`` class,
found by parsing the file (the same names ``pytest --collect-only`` lists, without importing every test module).
"""
from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reliability.md"
NAME = re.compile(r"(tests/[\w/]+\.py)::(\w+)")


@cache
def defined(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Test")):
        names |= {f"{cls.name}.{m.name}" for m in cls.body if isinstance(m, ast.FunctionDef)}
        names |= {m.name for m in cls.body if isinstance(m, ast.FunctionDef)}
    return frozenset(names)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of every Markdown table whose header ends with a "tests" or "test" column."""
    rows, header = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set("".join(cells)) <= set("-: ") and header[-1] in ("tests", "test"):
            rows.append(cells)
    return rows


def test_every_test_the_matrix_names_exists():
    text = DOC.read_text(encoding="utf-8")
    named = NAME.findall(text)
    assert len(named) > 50, "the matrix names its tests as tests/<file>.py::<test>"
    missing = []
    for path, name in sorted(set(named)):
        file = ROOT / path
        ok = file.is_file() and file.name.startswith("test_") and name.startswith("test_")
        if not ok or name not in defined(path):
            missing.append(f"{path}::{name}")
    assert not missing, f"docs/reliability.md names tests that do not exist: {missing}"


def test_every_row_of_the_matrix_names_a_test():
    rows = table_rows(DOC.read_text(encoding="utf-8"))
    assert len(rows) > 40
    bare = [" | ".join(r[:2]) for r in rows if not NAME.search(r[-1])]
    assert not bare, f"rows without a test: {bare}"


def test_the_checker_sees_a_missing_test():
    assert "test_every_test_the_matrix_names_exists" in defined("tests/reliability/test_matrix_doc.py")
    assert "test_no_such_test" not in defined("tests/reliability/test_matrix_doc.py")
    rows = table_rows("| a | tests |\n| --- | --- |\n| x | tests/a.py::test_b |\n| y | none |\n")
    assert [r[0] for r in rows if not NAME.search(r[-1])] == ["y"]
