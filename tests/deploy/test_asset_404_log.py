"""A request for a file the chart component does not have (/_stcore/bidi-components/attention_lab.plot/<missing>)
is a 404 and one line in the server log, not Streamlit's 17-line FileNotFoundError traceback (issue 20, hardening).

The filter (ui.plot_component.MissingAssetOneLine) is installed when the component registers its asset folder. The
first test drives Streamlit's own route handler (the Starlette routes `streamlit run` serves), so a Streamlit upgrade
that changes the message or the logger makes it fail here rather than bring the traceback back unnoticed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging

import pytest

from ui import plot_component as pc


class _Lines(logging.Handler):
    """The formatted records, as Streamlit's own handler would print them (message, then any traceback)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))
        self.out: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.out.append(self.format(record))


@pytest.fixture
def asset_log():
    logger = logging.getLogger(pc.ASSET_LOGGER)
    before = list(logger.filters)
    logger.filters[:] = [f for f in before if not isinstance(f, pc.MissingAssetOneLine)]  # as a fresh process has
    lines = _Lines()
    logger.addHandler(lines)
    try:
        yield logger, lines
    finally:
        logger.removeHandler(lines)
        logger.filters[:] = before


def _get(app, path: str) -> int:
    """GET path on an ASGI app; the response's status."""
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": [],
             "server": ("127.0.0.1", 8501), "client": ("127.0.0.1", 40000)}
    # in a thread of its own: in a test process where Playwright's sync API already runs an event loop on this
    # thread (pytest-xdist gives one process browser files and this one), asyncio.run() here is refused
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


def _bidi_routes(asset_dir):
    from starlette.routing import Router
    from streamlit.web.server.starlette.starlette_routes import create_bidi_component_routes

    class Registry:  # the runtime's BidiComponentManager, as far as the route asks it
        def get(self, name):
            return object() if name == pc.NAME else None

        def get_component_path(self, name):
            return str(asset_dir) if name == pc.NAME else None

    return Router(routes=create_bidi_component_routes(Registry(), None))


def test_streamlits_missing_asset_404_is_one_line_with_the_filter(asset_log, tmp_path):
    logger, lines = asset_log
    (tmp_path / "plot.js").write_text("export default 1")
    app = _bidi_routes(tmp_path)
    url = f"/_stcore/bidi-components/{pc.NAME}/nonexistent.js"

    assert _get(app, f"/_stcore/bidi-components/{pc.NAME}/plot.js") == 200
    assert lines.out == []
    # without the filter: Streamlit's record carries the whole traceback (what the issue saw on the server)
    assert _get(app, url) == 404
    (unfiltered,) = lines.out
    assert "Traceback (most recent call last)" in unfiltered and len(unfiltered.splitlines()) > 10

    pc.quiet_missing_assets()
    pc.quiet_missing_assets()  # once per process: a second runtime (AppTest) adds no second filter
    assert sum(isinstance(f, pc.MissingAssetOneLine) for f in logger.filters) == 1
    lines.out.clear()
    assert _get(app, url) == 404
    (line,) = lines.out
    assert "\n" not in line
    assert line == f"Error reading bidi component asset: {tmp_path / 'nonexistent.js'} (404: No such file or directory)"


def _record(msg: str, exc: BaseException) -> logging.LogRecord:
    try:
        raise exc
    except BaseException as e:
        return logging.LogRecord(pc.ASSET_LOGGER, logging.ERROR, __file__, 1, msg, ("/x/a.js",),
                                 (type(e), e, e.__traceback__))


def test_only_a_missing_asset_loses_its_traceback():
    f = pc.MissingAssetOneLine()
    missing = _record("Error reading bidi component asset: %s", FileNotFoundError(2, "No such file or directory"))
    assert f.filter(missing) and missing.exc_info is None and missing.args is None
    assert missing.getMessage() == "Error reading bidi component asset: /x/a.js (404: No such file or directory)"
    for kept in (_record("Error reading bidi component asset: %s", PermissionError(13, "Permission denied")),
                 _record("Something else: %s", FileNotFoundError(2, "No such file or directory"))):
        assert f.filter(kept) and kept.exc_info is not None and kept.args == ("/x/a.js",)


def test_the_component_installs_the_filter_when_it_registers_its_assets(asset_log):
    from streamlit.testing.v1 import AppTest

    logger, _ = asset_log
    assert not any(isinstance(f, pc.MissingAssetOneLine) for f in logger.filters)

    def page():
        from ui import plot_component

        plot_component.plot({"data": [{"type": "bar", "y": [1, 2]}], "layout": {}}, {}, "chart")

    at = AppTest.from_function(page, default_timeout=30).run()
    assert not at.exception
    assert sum(isinstance(f, pc.MissingAssetOneLine) for f in logger.filters) == 1
