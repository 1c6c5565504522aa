"""The container image definition's essentials, read from the file (no container engine runs where the tests run,
so the image is not built here; docs/deploy.md says how to build it)."""

from __future__ import annotations

import ast
import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEALTH_URL = "http://localhost:8501/_stcore/health"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Containerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def args_of(name: str) -> list[str]:
    return [rest for word, rest in instructions() if word == name]


def exec_form(rest: str) -> list[str]:
    assert rest.startswith("["), f"not the exec (JSON) form: {rest}"
    return json.loads(rest)


def healthcheck_command() -> list[str]:
    (rest,) = args_of("HEALTHCHECK")
    return exec_form(rest.split(" CMD ", 1)[1].strip())


def test_official_python_slim_base_matching_the_project():
    froms = args_of("FROM")
    assert froms == ["python:3.11-slim"]
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text()


def test_it_runs_as_an_unprivileged_user():
    order = [word for word, _ in instructions()]
    users = args_of("USER")
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert order.index("USER") > max(i for i, w in enumerate(order) if w == "RUN")  # installs done before it
    assert order.index("USER") < order.index("CMD")
    assert any("useradd" in r and users[-1] in r.split() for r in args_of("RUN"))  # the user is created


def test_only_the_run_time_requirements_are_installed():
    installs = [r for r in args_of("RUN") if "pip" in r]
    assert installs == ["pip install -r requirements.txt"]
    assert args_of("COPY")[0] == "requirements.txt ."  # its own layer, before the code


def test_healthcheck_asks_streamlit_health_on_the_exposed_port():
    assert args_of("EXPOSE") == ["8501"]
    (rest,) = args_of("HEALTHCHECK")
    assert re.search(r"--start-period=\d+s", rest)
    cmd = healthcheck_command()
    assert cmd[:2] == ["python", "-c"] and HEALTH_URL in cmd[2]
    ast.parse(cmd[2])


def test_the_healthcheck_fails_when_nothing_answers():
    # the same command against a port where nothing listens (a live server is checked in test_replicas.py)
    code = healthcheck_command()[2].replace(":8501/", ":9/")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30).returncode != 0


def test_the_command_serves_app_py_headless_on_every_interface():
    (rest,) = args_of("CMD")
    cmd = exec_form(rest)
    assert cmd[:5] == ["python", "-m", "streamlit", "run", "app.py"]
    assert (ROOT / "app.py").is_file()
    for flag in ("--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true"):
        assert flag in cmd


def _ignored(path: str, patterns: list[str]) -> bool:
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(p, pat.removeprefix("**/")) or fnmatch.fnmatch(parts[-1], pat.removeprefix("**/"))
               for pat in patterns for p in prefixes)


def test_dockerignore_keeps_the_app_and_leaves_out_the_rest():
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns)  # a plain deny list: the checks below hold
    for path in (".git/HEAD", ".venv/bin/python", "tests/conftest.py", ".streamlit/secrets.toml",
                 "ui/__pycache__/x.pyc"):
        assert _ignored(path, patterns), path
    # everything the app imports from this repository (followed through the packages it imports), the pages
    # st.navigation runs by path, its config and its assets go into the image
    needed = {"app.py", "lesson_pages", ".streamlit/config.toml", "requirements.txt", "assets/i18n/ja.toml"}
    todo, seen = ["app.py", "lesson_pages"], set()
    while todo:
        item = todo.pop()
        seen.add(item)
        files = [ROOT / item] if item.endswith(".py") else sorted((ROOT / item).rglob("*.py"))
        for py in files:
            for top in _local_imports(py):
                needed.add(top)
                if top not in seen:
                    todo.append(top)
    assert {"lessons", "ui", "attention_core"} <= needed
    for path in sorted(needed):
        assert not _ignored(path, patterns), path


def _local_imports(py: Path) -> set[str]:
    """Top-level modules/packages of this repository that `py` imports (absolute imports)."""
    found = set()
    for node in ast.walk(ast.parse(py.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if (ROOT / top).is_dir():
                found.add(top)
            elif (ROOT / f"{top}.py").is_file():
                found.add(f"{top}.py")
    return found
