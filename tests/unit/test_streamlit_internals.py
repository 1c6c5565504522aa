"""Every internal of Streamlit (and of plotly) the app relies on, checked against the installed packages.

The chart component, the drag relay, the run identity, the echo filter and the presentation mode use things
Streamlit does not promise to keep: private modules and attributes, the component registry and its manifest
classes, ``ScriptRunContext.cursors``, the frontend's ``data-testid`` values, ``st-key-`` classes, its
``data-test-script-state`` attribute and its one-message-per-scope batching. :data:`INTERNALS` is the one table of
them: for each, what our code relies on, which of our files rely on it, and a check of the installed version (an
import and a signature, a class attribute, a string in Streamlit's frontend bundle, or a short AppTest run). A
failure names the internal and our files that rely on it (docs/upgrading-streamlit.md says what to do then).

The table cannot silently go stale: every listed use must still be in the file it names, and every private
Streamlit import, private attribute read, ``ScriptRunContext`` attribute, ``data-testid``/Streamlit class name,
``data-*`` attribute and ``st-key-`` use in our code must be in the table, with that file among its users.

No server and no browser: one AppTest of a small script (a fraction of a second after the imports) and a search of
the installed frontend's JavaScript files (~23 MB)."""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib
import inspect
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PY_SOURCES = ("app.py", "ui", "lessons", "lesson_pages", "attention_core")  # our run-time code (tests excluded)
FRONT_SOURCES = ("app.py", "ui", "lessons", "lesson_pages", "attention_core", "assets")
VENDOR = ROOT / "ui" / "plot_component" / "assets" / "vendor"  # plotly.js, not ours
PLOT = "ui/plot_component/__init__.py"
PLOT_JS = "ui/plot_component/assets/plot.js"
DRAG_JS = "ui/plot_component/assets/drag.js"
SCOPE_JS = "ui/plot_component/assets/scope.js"
THEME_JS = "ui/plot_component/assets/theme.js"


@dataclass(frozen=True)
class Internal:
    """One thing our code relies on that Streamlit (or plotly) may change in any release.

    ``used_by``: our file → a string in it where it relies on the internal (checked to be there). ``imports``
    (``module:name`` or ``module``), ``attrs`` (private attributes and ScriptRunContext attributes our code reads)
    and ``names`` (frontend names: data-testids, class names, data-* attributes, ``st-key-``) are what the scans of
    our code match against. ``check`` raises (an AssertionError saying what differs) when the installed package no
    longer has it in the shape our code uses."""
    key: str
    what: str
    used_by: dict[str, str]
    check: Callable[[], None]
    imports: tuple[str, ...] = ()
    attrs: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


def _uses(mark: str, *files: str) -> dict[str, str]:
    return dict.fromkeys(files, mark)


# ---- helpers of the checks ----------------------------------------------------------------------------------------

def _obj(path: str):
    """``module:attr.attr`` → the object."""
    module, _, attrs = path.partition(":")
    obj = importlib.import_module(module)
    for name in filter(None, attrs.split(".")):
        assert hasattr(obj, name), f"{module} has no {attrs!r} (no {name!r} on {obj!r})"
        obj = getattr(obj, name)
    return obj


def _params(path: str, *names: str, var_keyword: bool = False) -> None:
    """The callable at ``path`` accepts the parameters ``names`` (and ``**kwargs`` if ``var_keyword``)."""
    fn = _obj(path)
    assert callable(fn), f"{path} is not callable"
    sig = inspect.signature(fn)
    missing = [n for n in names if n not in sig.parameters]
    assert not missing, f"{path}{sig} has no parameter {missing}"
    if var_keyword:
        assert any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()), f"{path}{sig} takes no **kwargs"


def _fields(path: str, *names: str) -> None:
    """The dataclass at ``path`` has the fields ``names``, in this order among its fields."""
    cls = _obj(path)
    have = [f.name for f in dataclasses.fields(cls)]
    assert [n for n in have if n in names] == list(names), f"{path} fields are {have}, used: {list(names)}"


def _source_has(path: str, *texts: str) -> None:
    src = inspect.getsource(_obj(path))
    missing = [t for t in texts if t not in src]
    assert not missing, f"the source of {path} no longer contains {missing}"


STATIC_JS = Path(importlib.import_module("streamlit").__file__).parent / "static" / "static" / "js"


@functools.cache
def _js_files() -> dict[str, bytes]:
    files = {p.name: p.read_bytes() for p in sorted(STATIC_JS.glob("*.js"))}
    assert files, f"no frontend JavaScript under {STATIC_JS}"
    return files


@functools.cache
def _bundle() -> bytes:
    return b"\n".join(_js_files().values())


_Q = rb"[`\"']"  # a quote of the minified bundle (it writes most strings as template literals)
_ID = rb"[\w$]+"  # a minified name


def _find(pattern: bytes, what: str) -> re.Match:
    m = re.search(pattern, _bundle())
    assert m, f"Streamlit's frontend ({STATIC_JS}) has no {what}"
    return m


def _testid(name: str) -> Callable[[], None]:
    def check() -> None:
        _find(rb'"data-testid":[^,;]{0,60}?' + _Q + re.escape(name.encode()) + _Q, f'data-testid="{name}"')
    return check


def _css_class(name: str) -> None:
    _find(rb"className:[^;]{0,120}?" + _Q + re.escape(name.encode()) + _Q, f'element with class "{name}"')


# ---- the AppTest probe: one small app run twice (the second time after a slider change) -------------------------

def _probe_script() -> None:
    import streamlit as st
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ui import plot_component

    seen = st.session_state.setdefault("probe", {"cursors": [], "widget": [], "errors": {}})

    def attempt(name, fn):
        try:
            return fn()
        except Exception as e:  # recorded: the test of that internal reports it
            seen["errors"][name] = f"{type(e).__name__}: {e}"

    ctx = get_script_run_ctx()
    seen["cursors"].append(ctx.cursors)

    def set_query_string():
        ctx.query_string = ctx.query_string

    attempt("query_string", set_query_string)

    @st.fragment
    def inner():
        seen["inner_same"] = get_script_run_ctx(suppress_warning=True).cursors is ctx.cursors

    inner()

    def widget_state():  # as ui.echo reads it, before the widget is drawn in this run
        state = ctx.session_state._state
        wid = state._key_id_mapper.get_id_from_key("probe.slider", None)
        seen["widget"].append((wid is not None and wid in state._new_widget_state.states,
                               wid is not None and state._widget_changed(wid), wid in list(state._new_widget_state)))

    attempt("widget_state", widget_state)
    st.slider("s", 0, 10, 3, key="probe.slider")
    attempt("chart", lambda: plot_component.plot({"data": [{"type": "bar", "y": [len(seen["cursors"])]}],
                                                  "layout": {}}, {}, "probe.chart"))
    attempt("registry", lambda: seen.__setitem__(
        "asset_root", Runtime.instance().bidi_component_registry.get_component_asset_root(plot_component.NAME)))
    seen["real_runtime"] = type(Runtime.instance()) is Runtime
    attempt("trigger", lambda: st.components.v2.component("probe.trigger", js="export default function () {}\n")(
        key="probe.trigger", data={"n": 1}, on_go_change=lambda: None, width="stretch", height="content"))


@functools.cache
def _probe() -> dict:
    from streamlit.testing.v1 import AppTest

    from ui import plot_component

    def chart_ids(at):
        return [e.proto.id for e in at.get("bidi_component") if e.proto.component_name == plot_component.NAME]

    at = AppTest.from_function(_probe_script, default_timeout=30).run()
    assert not at.exception, f"the probe app failed: {[e.value for e in at.exception]}"
    ids = [chart_ids(at)]
    at.slider(key="probe.slider").set_value(5).run()
    assert not at.exception, f"the probe app failed: {[e.value for e in at.exception]}"
    ids.append(chart_ids(at))
    return {**at.session_state["probe"], "chart_ids": ids, "charts": list(plot_component.charts(at))}


def _probe_ok(*names: str) -> dict:
    seen = _probe()
    errors = {n: seen["errors"][n] for n in names if n in seen["errors"]}
    assert not errors, f"in a Streamlit run: {errors}"
    return seen


# ---- the checks ---------------------------------------------------------------------------------------------------

def _check_cursors() -> None:
    _fields("streamlit.runtime.scriptrunner_utils.script_run_context:ScriptRunContext", "cursors")
    _source_has("streamlit.runtime.scriptrunner_utils.script_run_context:ScriptRunContext.reset", "self.cursors = {}")
    # a fragment's own rerun (not run by AppTest) gets a copy, a new dict too
    _source_has("streamlit.runtime.fragment", "ctx.cursors = deepcopy(")
    seen = _probe()
    a, b = seen["cursors"]
    assert a is not b, "two runs had the same ScriptRunContext.cursors object"
    assert seen.get("inner_same") is True, "a fragment called in a full run saw other cursors than the run"


def _check_query_string() -> None:
    _fields("streamlit.runtime.scriptrunner_utils.script_run_context:ScriptRunContext", "query_string")
    _probe_ok("query_string")


def _check_session_state() -> None:
    _fields("streamlit.runtime.scriptrunner_utils.script_run_context:ScriptRunContext", "session_state")
    ann = inspect.get_annotations(_obj("streamlit.runtime.state.safe_session_state:SafeSessionState"))
    assert "_state" in ann, "SafeSessionState has no _state"
    _fields("streamlit.runtime.state.session_state:SessionState", "_new_widget_state", "_key_id_mapper")
    _params("streamlit.runtime.state.session_state:KeyIdMapper.get_id_from_key", "key", "default")
    _params("streamlit.runtime.state.session_state:SessionState._widget_changed", "widget_id")
    first, second = _probe_ok("widget_state")["widget"]
    assert first == (False, False, False), f"before the slider existed: {first}"
    assert second == (True, True, True), f"after a slider change (in the message, changed, listed): {second}"


def _check_user_key() -> None:
    _params("streamlit.runtime.state.common:user_key_from_element_id", "element_id")
    assert _probe_ok("chart")["charts"] == ["probe.chart"], "the chart's key was not read back from its element id"


def _check_key_identity() -> None:
    _source_has("streamlit.components.v2.bidi_component.main:BidiComponentMixin._bidi_component",
                "key_as_main_identity=True")
    first, second = _probe_ok("chart")["chart_ids"]
    assert first and first == second, f"a keyed chart's element id changed with its data: {first} → {second}"


def _check_runtime() -> None:
    Runtime = _obj("streamlit.runtime:Runtime")
    for name in ("exists", "instance"):
        assert inspect.ismethod(getattr(Runtime, name, None)), f"Runtime.{name} is not a classmethod"
    assert isinstance(inspect.getattr_static(Runtime, "bidi_component_registry"), property), \
        "Runtime.bidi_component_registry is not a property"
    assert _probe()["real_runtime"] is False, "AppTest's runtime is a Runtime: ui.plot_component would pause in tests"


def _check_registry() -> None:
    manager = "streamlit.components.v2.component_manager:BidiComponentManager"
    _params(f"{manager}.get_component_asset_root", "name")
    _params(f"{manager}.register_from_manifest", "manifest", "package_root")
    seen = _probe_ok("chart", "registry")
    from ui import plot_component

    assert seen["asset_root"] is not None and Path(seen["asset_root"]).resolve() == plot_component.ASSETS, \
        f"the chart component's asset folder registered as {seen['asset_root']}, not {plot_component.ASSETS}"


def _check_manifest() -> None:
    _fields("streamlit.components.v2.manifest_scanner:ComponentManifest", "name", "version", "components")
    _fields("streamlit.components.v2.manifest_scanner:ComponentConfig", "name", "asset_dir")


def _check_component_api() -> None:
    _params("streamlit.components.v2:component", "name", "html", "css", "js", "isolate_styles")
    _probe_ok("chart", "trigger")


def _inline_texts() -> dict[tuple[str, str], str]:
    """The css/js text of each st.components.v2.component call of ours, by (our file, the argument as written);
    html is always taken as inline."""
    from ui import drag, plot_component, present, viewport, widgets

    tree = ast.parse((ROOT / "app.py").read_text("utf-8"))
    app_js = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "BROWSER_JS" for t in n.targets))
    return {("app.py", "BROWSER_JS"): app_js,
            (PLOT, "_loader_js()"): plot_component._loader_js(),
            ("ui/drag.py", "plot_component.loader_js('drag.js')"): plot_component.loader_js("drag.js"),
            ("ui/drag.py", "HIDE_CSS"): drag.HIDE_CSS,
            ("ui/present.py", "KEYS_JS"): present.KEYS_JS,
            ("ui/viewport.py", "VIEWPORT_JS % {'tolerance': TOLERANCE_PX, 'grow': GROW_PX}"):
                viewport.VIEWPORT_JS % {"tolerance": viewport.TOLERANCE_PX, "grow": viewport.GROW_PX},
            ("ui/viewport.py", "HIDE_CSS"): viewport.HIDE_CSS,
            ("ui/widgets.py", "COPY_CSS"): widgets.COPY_CSS,
            ("ui/widgets.py", "COPY_JS"): widgets.COPY_JS}


def _check_inline_rule() -> None:
    inline = _obj("streamlit.components.v2.component_path_utils:ComponentPathUtils.looks_like_inline_content")
    taken = [where for where, text in _inline_texts().items() if not inline(text)]
    assert not taken, f"Streamlit would take these inline texts for file paths: {taken}"


def _check_js_api() -> None:
    _find(rb"default export function", "check for a component module's default export")
    _find(rb"parentElement:" + _ID + rb",setStateValue:", "parentElement in a component's arguments")
    _find(rb"setTriggerValue:\(" + _ID + rb"," + _ID + rb"\)=>",
          "setTriggerValue(name, value) in a component's arguments")


def _check_asset_route() -> None:
    from ui import plot_component

    routes = _obj(plot_component.ASSET_LOGGER)
    assert routes._LOGGER.name == plot_component.ASSET_LOGGER, f"the route module logs as {routes._LOGGER.name}"
    assert "_stcore/bidi-components/" in routes._ROUTE_COMPONENTS_V2, routes._ROUTE_COMPONENTS_V2
    _source_has(plot_component.ASSET_LOGGER, '"Error reading bidi component asset')


def _check_fragment_handled() -> None:
    cls = _obj("streamlit.errors:FragmentHandledException")
    assert issubclass(cls, Exception)
    _source_has("streamlit.runtime.fragment", "raise FragmentHandledException(")


def _check_control_flow() -> None:
    for name in ("RerunException", "StopException"):
        cls = _obj(f"streamlit.runtime.scriptrunner_utils.exceptions:{name}")
        assert not issubclass(cls, Exception), f"{name} is an Exception: `except Exception` would swallow it"


def _check_query_limits() -> None:
    # app.py falls back to these values when the import fails: they must stay Streamlit's
    assert _obj("streamlit.runtime.state.query_params:CLIENT_STATE_QUERY_STRING_MAX_FIELDS") == 1000
    assert _obj("streamlit.runtime.state.query_params:CLIENT_STATE_QUERY_STRING_MAX_LENGTH") == 512 * 1024


def _check_net_util() -> None:
    fn = _obj("streamlit.net_util:get_internal_ip")
    required = [p for p in inspect.signature(fn).parameters.values() if p.default is p.empty]
    assert not required, f"get_internal_ip needs {required}"


def _check_config() -> None:
    _params("streamlit.config:get_option", "key")
    _obj("streamlit.config:get_option")("server.baseUrlPath")


def _check_apptest_proto() -> None:
    from streamlit.proto.Element_pb2 import Element

    field = Element.DESCRIPTOR.fields_by_name.get("bidi_component")
    assert field is not None, "Element has no bidi_component"
    have = set(field.message_type.fields_by_name)
    assert {"id", "component_name", "bytes"} <= have, f"BidiComponent's fields: {sorted(have)}"
    assert _probe_ok("chart")["charts"], "AppTest's at.get('bidi_component') found no chart"


# The plotly JSON of Streamlit's "streamlit" template (sha256 of json.dumps(sort_keys=True)) in Streamlit 1.67 with
# plotly 7.1.0: assets/theme.js is its browser form, captured from the page, and must be captured again when it changes.
STREAMLIT_TEMPLATE_SHA256 = "30ab5666399e1fda784cd5f9d4b88a09da19fb5b16418e8ac9f3bff2a80ec28f"


def _check_template() -> None:
    import plotly.io as pio

    assert "streamlit" in pio.templates, "import streamlit registered no plotly template 'streamlit'"
    assert pio.templates.default == "streamlit", f"plotly's default template is {pio.templates.default!r}"
    text = json.dumps(pio.templates["streamlit"].to_plotly_json(), sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert digest == STREAMLIT_TEMPLATE_SHA256, (
        f"Streamlit's plotly template changed (sha256 {digest}): capture {THEME_JS} again, then update "
        "STREAMLIT_TEMPLATE_SHA256")


def _check_typed_array() -> None:
    import numpy as np

    spec = _obj("_plotly_utils.utils:to_typed_array_spec")(np.arange(3, dtype=np.int32))
    assert isinstance(spec, dict) and {"dtype", "bdata"} <= spec.keys(), f"to_typed_array_spec gave {spec!r}"


def _check_one_scope() -> None:
    m = _find(rb"scheduleFlush\(" + _ID + rb"\)\{.{0,800}?setTimeout\(\(\)=>\{this\.sendUpdateWidgetsMessage\("
              rb"this\.scheduledFragmentId\)", "batching of widget updates (scheduleFlush → one message, one scope)")
    assert b"in a single batch of widget updates" in m.group(0), "scheduleFlush no longer keeps one fragment a batch"


def _check_history() -> None:
    _find(rb"window\.history\.pushState\(", "window.history.pushState (the address of a query string or a page)")


def _check_script_state() -> None:
    _find(rb'"data-testid":' + _Q + rb"stApp" + _Q + rb',"data-test-script-state":', "data-test-script-state on stApp")
    _find(rb"NOT_RUNNING=" + _Q + rb"notRunning" + _Q, "script state value notRunning")


def _check_stale() -> None:
    _find(rb'"data-testid":' + _Q + rb"stElementContainer" + _Q + rb',"data-stale":', "data-stale on the element "
          "container")


KATEX_VERSIONS = {"0.16.47", "0.18.10"}  # Streamlit 1.67's bundle: rehype-katex's (the Markdown's $…$) and katex's


def _check_katex() -> None:
    found = {v.decode() for v in re.findall(rb"version:" + _Q + rb"(\d+\.\d+\.\d+)" + _Q + rb",render:", _bundle())}
    assert found == KATEX_VERSIONS, (f"the bundle's KaTeX versions are {sorted(found)}, ui/escape.py's rules were "
                                     f"checked against {sorted(KATEX_VERSIONS)}")


def _check_autolinks() -> None:
    for regex in (rb"/(https?:\/\/|www(?=\.))([-.\w]+)([^ \t\r\n]*)/gi", rb"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)/gu"):
        assert regex in _bundle(), f"the Markdown's autolink literal {regex.decode()} is not in the bundle"


def _check_element_container() -> None:
    _testid("stElementContainer")()
    _css_class("stElementContainer")


def _check_markdown() -> None:
    _testid("stMarkdown")()
    _css_class("stMarkdown")


def _check_slider() -> None:
    _testid("stSlider")()
    pattern = rb'"data-testid":' + _Q + rb"stSlider" + _Q
    chunks = [body for body in _js_files().values() if re.search(pattern, body)]
    assert any(re.search(rb"type:" + _Q + rb"range" + _Q, body) for body in chunks), \
        "the slider's code no longer has its <input type=range> (the thumb's value the drag relay reads)"


def _check_st_key() -> None:
    m = _find(rb"function (" + _ID + rb")\(" + _ID + rb"\)\{return " + _ID + rb"\?" + _Q + rb"st-key-" + _Q
              + rb"\+" + _ID + rb"\.trim\(\)\.replaceAll\(/(\[[^\]]+\])/g," + _Q + rb"-" + _Q + rb"\)",
              "st-key-<key> class rule (trim, other characters as -)")
    fn, chars = m.group(1), m.group(2).decode()
    assert chars == "[^a-zA-Z0-9_-]", f"Streamlit's key class keeps other characters now: {chars}"
    _find(rb"className:\[" + _Q + rb"stElementContainer" + _Q + rb"[^\]]{0,80}\b" + re.escape(fn) + rb"\(",
          "st-key-<key> class on the element container")
    from ui import drag

    assert drag.css_class(" a.b c ") == "st-key-a-b-c"


INTERNALS: list[Internal] = [
    # ---- Python: the run, the session, the components -----------------------------------------------------------
    Internal("get_script_run_ctx", "get_script_run_ctx(suppress_warning=...) → the run's ScriptRunContext",
             _uses("get_script_run_ctx", "app.py", "ui/runtime.py", "ui/i18n.py", "ui/echo.py"),
             lambda: _params("streamlit.runtime.scriptrunner:get_script_run_ctx", "suppress_warning"),
             imports=("streamlit.runtime.scriptrunner:get_script_run_ctx",)),
    Internal("ScriptRunContext.cursors", "ctx.cursors: a new dict each run (a fragment's rerun too), the same "
             "object throughout one run: the run identity",
             _uses("ctx.cursors", "ui/runtime.py", "ui/i18n.py"), _check_cursors, attrs=("cursors",)),
    Internal("ScriptRunContext.query_string", "ctx.query_string: writable, the query string Streamlit records",
             _uses("ctx.query_string", "app.py"), _check_query_string, attrs=("query_string",)),
    Internal("SessionState-widget-internals", "ctx.session_state._state: _key_id_mapper.get_id_from_key, "
             "_new_widget_state(.states), _widget_changed(wid)",
             _uses("_new_widget_state", "ui/echo.py"), _check_session_state,
             attrs=("session_state", "_state", "_key_id_mapper", "_new_widget_state", "_widget_changed")),
    Internal("user_key_from_element_id", "an element id → the key it was made from",
             _uses("user_key_from_element_id", PLOT), _check_user_key,
             imports=("streamlit.runtime.state.common:user_key_from_element_id",)),
    Internal("bidi-key-identity", "a keyed v2 component's element id comes from its key alone "
             "(key_as_main_identity): the chart stays mounted when its figure changes",
             _uses("key_as_main_identity", PLOT), _check_key_identity),
    Internal("Runtime", "Runtime.exists(), Runtime.instance(); AppTest's stand-in is not a Runtime",
             _uses("Runtime.exists()", PLOT), _check_runtime, imports=("streamlit.runtime:Runtime",)),
    Internal("bidi-component-registry", "Runtime.instance().bidi_component_registry: get_component_asset_root(name), "
             "register_from_manifest(manifest, package_root)",
             _uses("bidi_component_registry", PLOT), _check_registry),
    Internal("manifest-scanner", "ComponentManifest(name, version, components), ComponentConfig(name, asset_dir)",
             _uses("manifest_scanner", PLOT), _check_manifest,
             imports=("streamlit.components.v2.manifest_scanner:ComponentConfig",
                      "streamlit.components.v2.manifest_scanner:ComponentManifest")),
    Internal("components.v2.component", "component(name, html=, css=, js=, isolate_styles=) and its mount(key=, "
             "data=, width=, height=, on_<trigger>_change=)",
             {**_uses("components.v2.component(", "app.py", "ui/drag.py", "ui/present.py", "ui/viewport.py",
                      "ui/widgets.py"), PLOT: "from streamlit.components.v2 import component"},
             _check_component_api, imports=("streamlit.components.v2:component",)),
    Internal("inline-component-text", "a component's js/css is inline text, not a file path, for every text we "
             "pass (a one-line text with / ? [ * is taken for a path)",
             _uses("Streamlit takes a one-line string", PLOT, "ui/drag.py"), _check_inline_rule),
    Internal("component-JS-arguments", "a component module's default export gets {data, parentElement, "
             "setTriggerValue}",
             {**_uses("setTriggerValue", "app.py", "ui/present.py", "ui/viewport.py", DRAG_JS),
              **_uses("parentElement", "ui/widgets.py", PLOT_JS)}, _check_js_api),
    Internal("bidi-asset-route", "assets served at /_stcore/bidi-components/<name>/<file>, logged by "
             "streamlit.web.server.starlette.starlette_routes ('Error reading bidi component asset')",
             _uses("_stcore/bidi-components", PLOT), _check_asset_route),
    Internal("FragmentHandledException", "raised out of a fragment whose error Streamlit has shown",
             _uses("FragmentHandledException", "ui/runtime.py"), _check_fragment_handled,
             imports=("streamlit.errors:FragmentHandledException",)),
    Internal("rerun-stop-are-BaseExceptions", "`except Exception` around page code lets st.rerun and "
             "st.stop through", _uses("(``st.rerun``, ``st.stop``) passes through", "ui/runtime.py"),
             _check_control_flow),
    Internal("query-string-limits", "CLIENT_STATE_QUERY_STRING_MAX_FIELDS / _MAX_LENGTH (1000, 512 Ki)",
             _uses("CLIENT_STATE_QUERY_STRING_MAX", "app.py"), _check_query_limits,
             imports=("streamlit.runtime.state.query_params:CLIENT_STATE_QUERY_STRING_MAX_FIELDS",
                      "streamlit.runtime.state.query_params:CLIENT_STATE_QUERY_STRING_MAX_LENGTH")),
    Internal("net_util.get_internal_ip", "the network address `streamlit run` prints",
             _uses("net_util", "ui/widgets.py"), _check_net_util, imports=("streamlit:net_util",)),
    Internal("streamlit.config.get_option", "config.get_option('server.baseUrlPath')",
             _uses("config.get_option", PLOT), _check_config, imports=("streamlit:config",)),
    Internal("AppTest-bidi_component", "at.get('bidi_component') and its proto's id, component_name, bytes "
             "(ui.plot_component.charts, for the tests)",
             _uses('at.get("bidi_component")', PLOT), _check_apptest_proto),
    Internal("plotly-template-streamlit", "import streamlit registers plotly's default template 'streamlit'; "
             "assets/theme.js is its browser form",
             {PLOT: 'STREAMLIT_THEME = "streamlit"', "ui/charts.py": "pio.templates.default",
              THEME_JS: "STREAMLIT_TEMPLATE"}, _check_template),
    Internal("plotly-to_typed_array_spec", "_plotly_utils.utils.to_typed_array_spec (plotly's private module)",
             _uses("to_typed_array_spec", "ui/charts.py"), _check_typed_array,
             imports=("_plotly_utils.utils:to_typed_array_spec",)),
    # ---- the frontend -------------------------------------------------------------------------------------------
    Internal("KaTeX-version", "the KaTeX Streamlit bundles: what \\text{} refuses and draws (ui.escape.latex)",
             _uses("KaTeX (as bundled by Streamlit", "ui/escape.py"), _check_katex),
    Internal("Markdown-autolink-literals", "remark-gfm's bare URL and e-mail patterns (ui.escape.md breaks them)",
             _uses("mdast-util-gfm-autolink-literal", "ui/escape.py"), _check_autolinks),
    Internal("one-message-per-scope", "the widget updates of one browser task go as one message, flushed by a "
             "setTimeout(0), run in one scope (the batch's first fragment)",
             {"ui/triggers.py": "setTimeout(0)", SCOPE_JS: "sendInScope", DRAG_JS: "sendInScope",
              "ui/present.py": "sendInScope", "ui/viewport.py": "sendInScope"}, _check_one_scope),
    Internal("history-pushState", "Streamlit writes the address with window.history.pushState "
             "(app.py's browser side turns a push on the same path into a replace)",
             _uses("history.pushState", "app.py"), _check_history),
    Internal("data-test-script-state", 'stApp\'s data-test-script-state, "notRunning" when the app is at rest',
             _uses("data-test-script-state", "ui/drag.py", DRAG_JS, "ui/present.py"), _check_script_state,
             names=("data-test-script-state",)),
    Internal("data-stale", "data-stale on an element container", _uses("data-stale", "ui/draw.py"), _check_stale,
             names=("data-stale",)),
    Internal("st-key-classes", "a keyed element's container has the class st-key-<key> (trimmed, characters other "
             "than a-zA-Z0-9_- as -)",
             _uses("st-key-", "ui/drag.py", "ui/draw.py", "ui/present.py", "ui/widgets.py", PLOT, PLOT_JS, DRAG_JS),
             _check_st_key, names=("st-key-",)),
    Internal("stElementContainer", "data-testid and class of an element's container",
             _uses("stElementContainer", "ui/draw.py", DRAG_JS), _check_element_container,
             names=("stElementContainer",)),
    Internal("stSlider", "data-testid of st.slider / st.select_slider, holding an <input type=range>",
             _uses("stSlider", "ui/drag.py", DRAG_JS), _check_slider, names=("stSlider",)),
    Internal("stMarkdown", "data-testid and class of st.markdown / st.latex",
             _uses("stMarkdown", "ui/drag.py", "ui/draw.py"), _check_markdown, names=("stMarkdown",)),
    *[Internal(name, f"data-testid {name}", _uses(name, *files), _testid(name), names=(name,)) for name, files in [
        ("stApp", ("ui/present.py", DRAG_JS)),
        ("stMain", (DRAG_JS,)),
        ("stMainBlockContainer", ("ui/present.py", "ui/viewport.py")),
        ("stMarkdownContainer", ("ui/draw.py", "ui/present.py")),
        ("stCaptionContainer", ("ui/drag.py", "ui/present.py")),
        ("stPageLink", ("ui/draw.py",)),
        ("stHeader", ("ui/present.py",)),
        ("stLayoutWrapper", ("ui/present.py",)),
        ("stTable", ("ui/drag.py",)),
    ]],
    Internal("stDataFrame", "class of st.dataframe / st.data_editor", _uses("stDataFrame", "ui/present.py"),
             lambda: _css_class("stDataFrame"), names=("stDataFrame",)),
]

# data-* attributes in our code that are not Streamlit's: ui/plan.py's own, plotly.js's (read by assets/patch.js);
# and data-testid itself (each of its values has its own entry)
OTHER_DATA_ATTRS = {"data-question", "data-unformatted", "data-testid"}
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make"}


def _message(internal: Internal, err: BaseException) -> str:
    return (f"Streamlit internal changed: {internal.key}\n  what we rely on: {internal.what}\n"
            f"  relied on by: {', '.join(internal.used_by)}\n  found: {type(err).__name__}: {err}\n"
            "  (docs/upgrading-streamlit.md)")


@pytest.mark.parametrize("internal", INTERNALS, ids=lambda i: i.key)
def test_the_internal_still_has_the_shape_our_code_uses(internal):
    try:
        internal.check()
    except Exception as e:
        pytest.fail(_message(internal, e), pytrace=False)


@pytest.mark.parametrize("internal", INTERNALS, ids=lambda i: i.key)
def test_our_code_still_relies_on_it(internal):
    gone = {f: mark for f, mark in internal.used_by.items()
            if not (ROOT / f).is_file() or mark not in (ROOT / f).read_text("utf-8")}
    assert not gone, (f"{internal.key}: these files no longer contain what the table says they rely on: {gone}. "
                      "Update or remove the entry in INTERNALS.")


def test_the_table_has_one_entry_per_internal():
    keys = [i.key for i in INTERNALS]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


# ---- the scans of our code: a new use of an internal must be added to the table ----------------------------------

def _files(roots, suffixes) -> list[Path]:
    out = []
    for r in roots:
        p = ROOT / r
        out += [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.suffix in suffixes and q.is_file())
    return [p for p in out if VENDOR not in p.parents and "__pycache__" not in p.parts]


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


# Which of our Python files can hold what a scan looks for (a superset: parsing every file costs ~0.5 s)
MAY_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?:streamlit\b|_(?!_future__\b))|import[ \t]+[^\n#]*(?:\bstreamlit\.|"
                        r"(?<![\w.])_\w))", re.M)
MAY_READ = re.compile(r"(?:\b(?!self\.|cls\.)\w+|[)\]])\._[A-Za-z]|get_script_run_ctx")


def _py_trees(may: re.Pattern) -> list[tuple[str, ast.Module]]:
    """(our file, its syntax tree) for each of our Python files whose text ``may`` matches."""
    return [(_rel(p), ast.parse(text)) for p, text in _py_texts() if may.search(text)]


@functools.cache
def _py_texts() -> list[tuple[Path, str]]:
    return [(p, p.read_text("utf-8")) for p in _files(PY_SOURCES, {".py"})]


def _uncovered(found: set[tuple[str, str]], field: str) -> list[str]:
    """The (item, file) pairs no entry lists: ``item`` in the entry's ``field`` and ``file`` in its used_by."""
    return sorted(f"{item} in {file}" for item, file in found
                  if not any(item in getattr(i, field) and file in i.used_by for i in INTERNALS))


def _is_private_import(module: str) -> bool:
    return module == "streamlit" or module.startswith("streamlit.") or any(p.startswith("_") for p in module.split("."))


def test_every_private_import_of_ours_is_in_the_table():
    found = set()
    for path, tree in _py_trees(MAY_IMPORT):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__" \
                    and _is_private_import(node.module):
                found |= {(f"{node.module}:{a.name}", path) for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {(a.name, path) for a in node.names
                          if a.name != "streamlit" and _is_private_import(a.name)}
    assert found, "the scan found no import of a Streamlit module at all: it is broken"
    missing = _uncovered(found, "imports")
    assert not missing, f"imports of Streamlit's (or another package's) private modules not in INTERNALS: {missing}"


def test_every_private_attribute_we_read_is_in_the_table():
    """Private attributes (``x._name``, not on self/cls) and the attributes of a ScriptRunContext we read."""
    found = set()
    for path, tree in _py_trees(MAY_READ):
        ctx_names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                     and getattr(n.value.func, "id", getattr(n.value.func, "attr", None)) == "get_script_run_ctx"
                     for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(tree):
            if not isinstance(n, ast.Attribute):
                continue
            on = n.value.id if isinstance(n.value, ast.Name) else None
            private = n.attr.startswith("_") and not n.attr.startswith("__") and on not in ("self", "cls")
            if (private and n.attr not in NAMEDTUPLE_API) or on in ctx_names:
                found.add((n.attr, path))
    assert ("cursors", "ui/runtime.py") in found, "the scan no longer sees ctx.cursors in ui/runtime.py: it is broken"
    missing = _uncovered(found, "attrs")
    assert not missing, f"private or ScriptRunContext attributes our code reads, not in INTERNALS: {missing}"


def test_every_component_text_of_ours_is_checked():
    """Each js=/css= argument of a component(...) call in our code is one the inline-text check knows."""
    found = set()
    for path, tree in _py_trees(re.compile(r"\bcomponent\(")):
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and "component" in (getattr(n.func, "attr", None), getattr(n.func, "id", None)):
                found |= {(path, ast.unparse(k.value)) for k in n.keywords if k.arg in ("js", "css")}
    missing = sorted(found - _inline_texts().keys())
    assert not missing, f"component texts the inline-component-text check does not cover (add to _inline_texts): "\
                        f"{missing}"


FRONT_NAME = re.compile(r"\bst[A-Z][A-Za-z]+\b|\bdata-[a-z][a-z-]*|st-key-")


def test_every_streamlit_frontend_name_we_use_is_in_the_table():
    """data-testid values and class names (stXxx), data-* attributes and st-key- in our Python, JS and CSS."""
    found = set()
    for path in _files(FRONT_SOURCES, {".py", ".js", ".css", ".html"}):
        found |= {(m.group(0), _rel(path)) for m in FRONT_NAME.finditer(path.read_text("utf-8"))
                  if m.group(0) not in OTHER_DATA_ATTRS}
    assert ("stSlider", DRAG_JS) in found, "the scan no longer sees stSlider in drag.js: it is broken"
    missing = _uncovered(found, "names")
    assert not missing, f"Streamlit frontend names our code uses, not in INTERNALS: {missing}"


# ---- the versions and the settings the table was checked against -------------------------------------------------

def _pins() -> dict[str, str]:
    out = {}
    for line in (ROOT / "requirements.txt").read_text("utf-8").splitlines():
        m = re.match(r"([A-Za-z0-9_.-]+)\s*==\s*([0-9][0-9A-Za-z.*]*)\s*(?:#.*)?$", line.strip())
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


@pytest.mark.parametrize("package", ["streamlit", "plotly"])
def test_the_installed_version_is_the_pinned_one(package):
    pin = _pins().get(package)
    assert pin, f"requirements.txt does not pin {package} with == (this table is checked against one version)"
    have = version(package)
    assert re.fullmatch(re.escape(pin).replace(r"\*", r".*"), have), \
        f"{package} {have} is installed, requirements.txt pins {pin}: install requirements.txt and run this again"


def _config_keys() -> list[str]:
    def walk(d, prefix=""):
        for k, v in d.items():
            yield from walk(v, f"{prefix}{k}.") if isinstance(v, dict) else [f"{prefix}{k}"]
    return list(walk(tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))))


@pytest.mark.parametrize("key", _config_keys())
def test_every_option_of_our_config_toml_is_a_streamlit_option(key):
    from streamlit import config

    try:
        config.get_option(key)
    except RuntimeError as e:
        pytest.fail(f".streamlit/config.toml sets {key}, which this Streamlit does not have: {e}", pytrace=False)
