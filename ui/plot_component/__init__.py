"""A plotly chart redrawn in place: a Streamlit custom component (``st.components.v2``) that owns one plotly div (or,
for a row of charts, a grid of them with their captions: :func:`row`) and calls ``Plotly.react`` with each new
figure (assets/plot.js).

Why: ``st.plotly_chart`` builds its element id from the figure as well as the key, so every changed figure is
unmounted and a new chart mounted (a blank frame, and most of a slider move's time in the browser). This element's
id comes from its key alone (``key_as_main_identity``), so the same element, and the same plot div, stays across
reruns; a changed payload re-runs plot.js, which applies the new figure to the existing plot.

What is sent: the figure's JSON (as st.plotly_chart would send it, typed arrays included) without the plotly
template when it is Streamlit's default one: plot.js adds the template Streamlit's own chart draws with
(assets/theme.js), so a chart looks the same and ~6 kB less is sent per figure. The payload of an unchanged figure
is the same bytes, and plot.js does not redraw it. A heatmap whose cells alone changed is not even replotted: plot.js
writes its new colours and numbers into the drawn chart (assets/patch.js, checked pixel for pixel against plotly's
own drawing by tests/e2e/test_patch_browser.py).

plotly.js: assets/vendor/plotly-cartesian.min.js, the official "cartesian" distribution of plotly.js (npm package
``plotly.js-cartesian-dist-min``, MIT, see assets/vendor/README.md): bar, heatmap, scatter and the other 2-D trace
types, 1.5 MB instead of the 4.8 MB full bundle the ``plotly`` Python package ships, so a page's first chart
compiles in about a third of the time. It is the same plotly.js version as that full bundle
(tests/ui/test_plot_component.py checks the versions and that every trace type ui.figures draws is in it).

Assets: a v2 component serves files only from an ``asset_dir`` declared by an installed package's pyproject.toml;
this app is not installed (hosts install requirements.txt only), so the asset folder is registered on the running
Streamlit runtime the way that manifest would register it (``register_from_manifest``, a Streamlit internal: re-check
it on a Streamlit upgrade). Done once per runtime (AppTest makes a runtime per test app). The component's own
JavaScript is a short inline loader (see ``_loader_js``) that imports assets/plot.js once. The drag relay's module
(assets/drag.js, ui/drag.py) is served from the same folder and loaded the same way (:func:`loader_js`): its 11 kB
were sent with each of its elements, four of them in a d_model move (45 of that move's 98 kB).
"""
from __future__ import annotations

import html
import json
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import plotly
import plotly.io as pio

try:
    import orjson as _orjson
except ImportError:  # optional (requirements.txt installs it): plotly.io.to_json is the fallback
    _orjson = None

HERE = Path(__file__).resolve().parent
PLOTLY_JS_DIR = Path(plotly.__file__).resolve().parent / "package_data"  # the full bundle: the reference version
ASSETS = HERE / "assets"  # the app's browser modules, served at /_stcore/bidi-components/attention_lab.plot/<file>
VENDOR_PLOTLY_JS = ASSETS / "vendor" / "plotly-cartesian.min.js"
PROJECT = "attention_lab"
NAME = f"{PROJECT}.plot"  # the chart component
STREAMLIT_THEME = "streamlit"  # the plotly template name st.plotly_chart's theme="streamlit" draws with

_lock = threading.Lock()
_mount = None  # the component's mount callable, made on the first call inside a Streamlit run
_TAGS = re.compile(r"<[^>]*>")


ASSET_LOGGER = "streamlit.web.server.starlette.starlette_routes"  # serves /_stcore/bidi-components/<name>/<file>


class MissingAssetOneLine(logging.Filter):
    """A request for a file the component does not have is answered 404, and Streamlit logs it with the whole
    FileNotFoundError traceback (17 lines for one mistyped URL); this keeps the record as one line: its message and
    the error. Any other error keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, FileNotFoundError) and str(record.msg).startswith("Error reading bidi component asset"):
            record.msg, record.args = f"{record.getMessage()} (404: {exc.strerror})", None
            record.exc_info = record.exc_text = None
        return True


def quiet_missing_assets() -> None:
    """Install MissingAssetOneLine on Streamlit's component-route logger, once per process."""
    logger = logging.getLogger(ASSET_LOGGER)
    if not any(isinstance(f, MissingAssetOneLine) for f in logger.filters):
        logger.addFilter(MissingAssetOneLine())


def ensure_assets() -> None:
    """Register the asset folder (:data:`ASSETS`) on the active runtime's component manager, once per runtime."""
    from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest
    from streamlit.runtime import Runtime

    manager = Runtime.instance().bidi_component_registry
    with _lock:
        if manager.get_component_asset_root(NAME) is None:
            quiet_missing_assets()
            manager.register_from_manifest(
                ComponentManifest(PROJECT, "1", [ComponentConfig("plot", "assets")]), HERE)


def _ensure_registered():
    """The mount callable, with the asset folder registered on the active runtime's component manager."""
    global _mount
    ensure_assets()
    with _lock:
        if _mount is None:
            from streamlit.components.v2 import component

            _mount = component(NAME, js=_loader_js(), isolate_styles=False)
    return _mount


def _loader_js() -> str:
    """The chart component's inline JavaScript: :func:`loader_js` of assets/plot.js."""
    return loader_js("plot.js")


def loader_js(module: str) -> str:
    """A component's inline JavaScript: a few lines that import ``assets/<module>`` once and then call its default
    export directly (the component calls :func:`ensure_assets` before mounting).

    Why not ``js="plot.js"``: for a file-backed script, Streamlit's frontend appends a new ``<script>`` element on
    every data change and waits for its ``load`` event before calling the module, which lands after the browser has
    finished applying the rest of the rerun; an inline script is imported once (a cached blob URL) and called at
    once. The inline text is sent with each element, so it is kept short (~140 bytes).

    The calls that come while plot.js is still loading (a page's first run and, at once, the run laid out for the
    browser's own width: ui/viewport.py) all wait on ONE import promise, so they reach plot.js in the order Streamlit
    made them. With an ``import()`` per call they could come in any order: on 8c4eaed, in about 1 load of 5 on a
    390 px phone, a chart got its figure laid out for 1280 px after the one laid out for the phone, kept it, and
    its numbers overflowed their 15-px cells until the next change (tests/e2e/test_screens_browser.py, narrow cases)."""
    from streamlit import config

    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    path = f"/{base}/_stcore/bidi-components/{NAME}/{module}" if base else f"/_stcore/bidi-components/{NAME}/{module}"
    # more than one line: Streamlit takes a one-line string with "/" or "?" in it for a file path
    return (f"let d,l;\nexport default c=>d?d(c):(l=l||import(location.origin+{json.dumps(path)}))"
            ".then(m=>(d=m.default)(c))")


def label_of(layout: dict) -> str:
    """A chart's accessible name: its title as plain text (tags dropped, entities decoded)."""
    title = layout.get("title")
    text = title.get("text", "") if isinstance(title, dict) else title or ""
    return html.unescape(_TAGS.sub("", str(text))).strip()


def _to_json(figure: dict) -> bytes:
    """A figure's JSON: orjson directly when installed (~5× faster than plotly.io.to_json, which walks the figure
    to clean it first; the ready figures hold only JSON types and typed-array dicts), else plotly.io.to_json.
    tests/ui/test_figure_specs.py checks the result decodes to what st.plotly_chart sends."""
    if _orjson is not None:
        return _orjson.dumps(figure, option=_orjson.OPT_SERIALIZE_NUMPY, default=_plotly_default)
    # fresh trace dicts: plotly.io.to_json pops "uid" from them; validate=False as st.plotly_chart does
    return pio.to_json({"data": [dict(t) for t in figure["data"]], "layout": figure["layout"]},
                       validate=False).encode()


def _plotly_default(obj):
    """What orjson cannot encode itself, encoded as plotly's JSON encoder would (then decoded back to JSON types)."""
    from plotly.utils import PlotlyJSONEncoder

    return json.loads(json.dumps(obj, cls=PlotlyJSONEncoder))


_payloads: OrderedDict[tuple, tuple[dict, bytes]] = OrderedDict()  # (id(ready), id(config), first) → (ready, …)
_PAYLOADS_MAX = 96  # as many as ui.draw's heatmap cache holds


def payload(ready: dict, config: dict, first: bool = False, *, reused: bool = False) -> bytes:
    """What the component receives for a ready figure ({data, layout} in the form go.Figure.to_dict() returns):
    UTF-8 JSON {"figure", "config", "label", "theme", "first"}. The figure is what st.plotly_chart would send, but
    without the template when it is Streamlit's default (theme "streamlit": plot.js adds it). Figures that ui.draw
    reuses (its cached heatmaps, never modified: ``reused``) are encoded once. ``first``: redrawn before the page's
    other charts."""
    key = (id(ready), id(config), bool(first))
    if reused:
        hit = _payloads.get(key)
        if hit is not None and hit[0] is ready:
            return hit[1]
    layout = ready["layout"]
    theme = None
    template = layout.get("template")
    if template is not None and template == _cached_streamlit_template():
        layout = {k: v for k, v in layout.items() if k != "template"}
        theme = STREAMLIT_THEME
    figure = _to_json({"data": [compact_trace(t) for t in ready["data"]], "layout": layout})
    out = (b'{"figure":' + figure + b',"config":' + json.dumps(config, separators=(",", ":")).encode()
           + b',"label":' + json.dumps(label_of(ready["layout"]), ensure_ascii=False).encode()
           + b',"theme":' + json.dumps(theme).encode() + b',"first":' + (b"true" if first else b"false") + b"}")
    if reused:
        with _lock:
            _payloads[key] = (ready, out)  # holds `ready`, so its id is not reused while the entry lives
            while len(_payloads) > _PAYLOADS_MAX:
                _payloads.popitem(last=False)
    return out


GRID = "alGrid"  # a heatmap's customdata sent by its row and column labels (see compact_trace)


def compact_trace(trace: dict) -> dict:
    """A trace as sent: a heatmap whose customdata is its grid of labels, cell (i, j) = [row label i, column label j]
    (+ a third item per cell: its unshortened number), goes as {"alGrid": {"rows", "cols", "third"}}: the labels once
    each, "third" the cells' third items as a grid, or "text" when they are the trace's own texts, or null. plot.js
    expands it before plotly sees the figure (expandGrid), and :func:`decode` does the same for tests: plotly gets the
    same figure. A 16×16 heatmap's labels were 5.9 of its 12.5 kB (each label sent 16 times). Any other customdata is
    sent as it is."""
    cd = trace.get("customdata")
    if trace.get("type") != "heatmap" or not isinstance(cd, list) or not cd or not isinstance(cd[0], list):
        return trace
    grid = _label_grid(cd, trace.get("text"))
    return trace if grid is None else {**trace, "customdata": {GRID: grid}}


def _label_grid(cd: list, text) -> dict | None:
    """{"rows", "cols", "third"} when ``cd`` is a grid of [row label, column label(, third)] cells, else None."""
    first = cd[0]
    if not first or not all(isinstance(row, list) and len(row) == len(first) for row in cd):
        return None
    width = len(first[0]) if isinstance(first[0], list) else 0
    if width not in (2, 3):
        return None
    rows = [row[0][0] if isinstance(row[0], list) else None for row in cd]
    cols = [cell[1] for cell in first]
    for i, row in enumerate(cd):
        for j, cell in enumerate(row):
            if not isinstance(cell, list) or len(cell) != width or cell[0] != rows[i] or cell[1] != cols[j]:
                return None
    third = None
    if width == 3:
        third = [[cell[2] for cell in row] for row in cd]
        if third == text:
            third = "text"
    return {"rows": rows, "cols": cols, "third": third}


def expand_grid(trace: dict) -> dict:
    """The trace with a compact customdata (see :func:`compact_trace`) written out again."""
    cd = trace.get("customdata")
    if not isinstance(cd, dict) or GRID not in cd:
        return trace
    grid = cd[GRID]
    third = trace.get("text") if grid["third"] == "text" else grid["third"]
    cells = [[[r, c] + ([third[i][j]] if third is not None else []) for j, c in enumerate(grid["cols"])]
             for i, r in enumerate(grid["rows"])]
    return {**trace, "customdata": cells}


_template: list = []


def _cached_streamlit_template() -> dict:
    """The plotly JSON of Streamlit's template (registered by ``import streamlit``), computed once."""
    if not _template:
        _template.append(pio.templates[STREAMLIT_THEME].to_plotly_json())
    return _template[0]


def decode(data: bytes) -> dict:
    """A payload back as the figure st.plotly_chart would have sent for it (the default template put back), plus
    its config, label and theme: for tests and benchmarks, which read what the element received."""
    msg = json.loads(data)
    msg["figure"]["data"] = [expand_grid(t) for t in msg["figure"].get("data", [])]
    if msg["theme"] == STREAMLIT_THEME:
        msg["figure"]["layout"] = {"template": json.loads(json.dumps(_cached_streamlit_template())),
                                   **msg["figure"]["layout"]}
    return msg


def plot(ready: dict, config: dict, key: str | None, *, first: bool = False, reused: bool = False) -> None:
    """Draw a ready figure as the keyed in-place chart, full width of its column, its height from its layout.
    ``first``: when a rerun changes several charts, this one is redrawn before the others (see assets/plot.js), and
    a changed one is handed over to the browser on its own (see hand_over). ``reused``: the caller hands the same,
    never modified ``ready`` again for the same figure (its payload is kept)."""
    _send(key, payload(ready, config, first, reused=reused), first)


@dataclass(frozen=True)
class RowItem:
    """One chart of a row (see :func:`row`): its key (also the CSS class ``st-key-<key>`` of its cell in the page,
    as a keyed Streamlit element would have), the ready figure, its caption (plain text, under the chart)."""
    key: str | None
    ready: dict
    config: dict
    caption: str | None = None
    first: bool = False
    reused: bool = False


def row(items: list[RowItem], *, columns: list[float] | None = None, per_row: int = 1,
        widths: list[float] | None = None) -> None:
    """Draw charts that stand side by side as ONE element: a grid of ``columns`` (relative widths of one row) or of
    rows of ``per_row`` equal columns, 16 px apart as st.columns are, each chart with its caption under it.
    ``widths``: the width (px) each chart was laid out for (its numbers, fonts and margins fit it): where the page is
    narrower than the layout was chosen for, the browser puts fewer charts side by side (down to one a row) so that
    none is drawn narrower than that (plot.js, rowTemplate).

    Why one element: every element costs the server and the browser on every rerun, and a keyed chart element costs
    more (Streamlit runs the state presenter of each keyed component whenever a selectbox is drawn, ~80 µs each):
    two charts with their captions in st.columns were 7 elements and blocks (a row, 2 columns, 2 charts, 2
    captions), now 1 (benchmarks/profiles/README.md). plot.js redraws only the charts of the row whose figure
    changed. The element's key is made of its charts' keys. Payload: UTF-8 JSON {"columns": [...] | null,
    "perRow": k, "widths": [px, ...] | null, "items": [{"key", "caption", "chart": <a plot() payload>}, ...]}."""
    if not items:
        return
    first = any(it.first for it in items)
    parts = [b'{"key":' + json.dumps(it.key).encode() + b',"caption":'
             + json.dumps(it.caption, ensure_ascii=False).encode() + b',"chart":'
             + payload(it.ready, it.config, it.first, reused=it.reused) + b"}" for it in items]
    head = (b'{"columns":' + json.dumps(None if columns is None else [float(c) for c in columns]).encode()
            + b',"perRow":' + str(int(per_row)).encode()
            + b',"widths":' + json.dumps(None if widths is None else [round(float(x), 1) for x in widths]).encode()
            + b',"items":[')
    # keyed by its charts' keys; a row holding a keyless chart has no key (as a keyless chart has none)
    key = None if any(it.key is None for it in items) else ROW_PREFIX + "+".join(it.key for it in items)
    _send(key, head + b",".join(parts) + b"]}", first)


ROW_PREFIX = "row:"


def _send(key: str | None, data: bytes, first: bool) -> None:
    """Mount the component with this payload under ``key``; a changed \"first\" payload is then handed over."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():  # bare `python page.py`: Streamlit draws nothing either
        return
    mount = _ensure_registered()
    mount(key=key, data=data, width="stretch", height="content")
    if first and _changed_for_session(key, data) and type(Runtime.instance()) is Runtime:  # AppTest: a stand-in
        hand_over()


HAND_OVER_S = 0.035
_SENT = "_attention_lab.first_sent"  # session_state: {chart key: hash of the last payload sent as "first"}


def _changed_for_session(key: str | None, data: bytes) -> bool:
    """Whether this session's last "first" payload under ``key`` was different (or there was none); records it."""
    import streamlit as st

    sent = st.session_state.get(_SENT)
    if sent is None:
        sent = st.session_state[_SENT] = {}
    digest = hash(data)
    if sent.get(key) == digest:
        return False
    sent[key] = digest
    return True


def hand_over(sleep=None) -> None:
    """Pause the script for HAND_OVER_S (35 ms) after a changed "first" chart, so the browser renders it alone.

    Streamlit's frontend applies the deltas that arrive within 10 ms of each other as one React render, and the
    chart's JavaScript runs only after that render is painted: with the rest of a lesson's rerun in the same batch
    (~50 more elements: markdown, KaTeX, columns) the weights waited for all of it. The pause lets the server send
    the chart and the browser draw it before the rest arrives. It costs no CPU, adds 35 ms to the end of the rerun
    and comes only when the main chart changed. Measured with benchmarks/browser_latency.py, same rounds: slider →
    new weights 138 → 112 ms (3 tokens), 174 → 143 ms (16 tokens) with 15 ms; with the cells patched in (assets/
    patch.js) 35 ms did better than 15 at 16 tokens (d_k 96 → 76 ms, cell 106 → 102 ms; 3 tokens unchanged), as the
    rest of a 16-token rerun (~140 kB) no longer arrives while the weights are being drawn
    (benchmarks/profiles/README.md)."""
    import time

    (sleep or time.sleep)(HAND_OVER_S)


def charts(at) -> dict:
    """The in-place charts an AppTest run drew, by chart key, in page order: {key: decode(payload)} plus "caption"
    (the text under the chart, or None), whether drawn alone or in a :func:`row`. AppTest has no accessor for
    custom components; their protos are read from its element tree."""
    from streamlit.runtime.state.common import user_key_from_element_id

    out = {}
    for el in at.get("bidi_component"):
        proto = el.proto
        if proto.component_name != NAME:
            continue
        msg = json.loads(proto.bytes)
        if "items" in msg:
            for i, item in enumerate(msg["items"]):
                chart = decode(json.dumps(item["chart"]))
                out[item["key"] or f"{proto.id}:{i}"] = {**chart, "caption": item["caption"]}
        else:
            out[user_key_from_element_id(proto.id)] = {**decode(proto.bytes), "caption": None}
    return out


def chart_keys(proto) -> list[str]:
    """The keys of the charts one element of this component draws (a BidiComponent proto): its own key, or for a
    :func:`row` the keys of its charts. For tests that follow charts through the raw messages of a rerun."""
    from streamlit.runtime.state.common import user_key_from_element_id

    key = user_key_from_element_id(proto.id)
    if key is not None and key.startswith(ROW_PREFIX):
        return [item["key"] for item in json.loads(proto.bytes)["items"]]
    return [key]


def captions(at) -> list[str]:
    """The captions under the in-place charts of an AppTest run (see :func:`charts`), in page order."""
    return [c["caption"] for c in charts(at).values() if c["caption"]]
