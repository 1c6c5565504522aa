"""lesson_pages/ holds the pages st.navigation runs and, next to a page, modules only that lesson uses (its own charts,
lesson_pages/<key>_charts.py). A page never imports another page; such a module is not registered as a page, and
like ui/figures.py it builds figure specs without Streamlit."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import lessons

ROOT = Path(__file__).resolve().parents[2]
PAGES = {Path(x.page).name for x in lessons.REGISTRY} | {"home.py"}


def _imported_lesson_pages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "lesson_pages":
            found |= {a.name + ".py" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lesson_pages."):
            found.add(node.module.split(".")[1] + ".py")
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] + ".py" for a in node.names if a.name.startswith("lesson_pages.")}
    return found


def test_a_page_imports_no_other_page():
    for path in sorted((ROOT / "lesson_pages").glob("*.py")):
        assert not (_imported_lesson_pages(path) & PAGES), path


def test_a_lesson_module_is_not_a_page_and_is_used_by_its_lesson_only():
    modules = {p.name for p in (ROOT / "lesson_pages").glob("*.py")} - PAGES
    assert "scaling_charts.py" in modules
    for name in modules:
        users = [p.name for p in (ROOT / "lesson_pages").glob("*.py") if name in _imported_lesson_pages(p)]
        assert users == [name.split("_")[0] + ".py"], (name, users)


def test_the_scaling_charts_import_without_streamlit():
    code = "import sys; import lesson_pages.scaling_charts; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
