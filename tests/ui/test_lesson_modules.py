"""lesson_pages/ holds the pages st.navigation runs, and nothing imports a page; the charts only one lesson draws
live in ui/lesson_charts/<key>.py, imported by that lesson's page only, and like ui/figures.py they build figure
specs without Streamlit."""
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


def _imported_lesson_charts(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "ui.lesson_charts":
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ui.lesson_charts."):
            found.add(node.module.split(".")[2])
    return found


def test_nothing_imports_a_page():
    for path in sorted(ROOT.rglob("*.py")):
        if ".venv" not in path.parts and "lesson_pages" not in path.parts:
            assert not (_imported_lesson_pages(path) & PAGES), path


def test_a_lesson_chart_module_is_used_by_its_lesson_only():
    modules = {p.stem for p in (ROOT / "ui" / "lesson_charts").glob("*.py")} - {"__init__"}
    assert modules and modules <= {x.key for x in lessons.REGISTRY}
    for name in modules:
        users = [p.name for p in sorted((ROOT / "lesson_pages").glob("*.py")) if name in _imported_lesson_charts(p)]
        assert users == [name + ".py"], (name, users)
        others = [p for p in sorted((ROOT / "ui").rglob("*.py")) if name in _imported_lesson_charts(p)]
        assert others == [], (name, others)


def test_the_scaling_charts_import_without_streamlit():
    code = "import sys; import ui.lesson_charts.scaling; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
