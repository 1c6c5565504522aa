"""attention_core (the math) and lessons (the lesson model and its link) are NumPy only: importing them must not
pull in streamlit, plotly or pandas.

Checked in a fresh interpreter, so modules imported by other tests in this process cannot hide a leak.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UI_PACKAGES = ("streamlit", "plotly", "pandas")
MATH_MODULES = ("attention", "projection", "multihead", "positional")

PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {UI})))
""".replace("{UI}", repr(set(UI_PACKAGES)))


def loaded_ui_modules(*modules: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"importing {modules} failed:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_attention_core_has_no_ui_dependencies():
    assert loaded_ui_modules("attention_core") == []


@pytest.mark.parametrize("module", MATH_MODULES)
def test_math_modules_have_no_ui_dependencies(module):
    assert loaded_ui_modules(f"attention_core.{module}") == []


def test_every_attention_core_submodule_has_no_ui_dependencies():
    # DESIGN.md: attention_core (tokens included) never imports streamlit, plotly or pandas.
    names = sorted(p.stem for p in (REPO / "attention_core").glob("*.py") if p.stem != "__init__")
    assert set(MATH_MODULES) <= set(names)
    assert loaded_ui_modules(*(f"attention_core.{n}" for n in names)) == []


def test_import_lessons_has_no_ui_dependencies():
    # the package imports every registered lesson (lessons.REGISTRY)
    assert loaded_ui_modules("lessons") == []


def test_every_lessons_submodule_has_no_ui_dependencies():
    # DESIGN.md: lessons (the lesson contract, the link codec, the cell rules, each lesson) never imports them either.
    names = sorted(p.stem for p in (REPO / "lessons").glob("*.py") if p.stem != "__init__")
    assert {"base", "cells", "link", "qkv", "scaling"} <= set(names)
    assert loaded_ui_modules(*(f"lessons.{n}" for n in names)) == []


def test_probe_detects_a_ui_import():
    # guard against a probe that can never fail: pandas itself must show up when imported
    pytest.importorskip("pandas")
    assert "pandas" in loaded_ui_modules("pandas")
