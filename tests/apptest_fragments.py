"""AppTest as the browser drives a widget inside an ``st.fragment``: the rerun request carries the fragment's id,
so only that fragment runs (the frame, app.py, does not). Used by tests and by benchmarks/rerun_latency.py.

AppTest makes a new script runner per run, created with a pending full rerun that would absorb a fragment request,
so the pending request is narrowed to the fragment after the two were merged. Install once with :func:`install`;
each ``run()`` records the ids of the fragments the widgets were drawn in (:data:`last`) and the forward messages.
"""
from __future__ import annotations

from dataclasses import replace

from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import app_test as _app_test
from streamlit.testing.v1 import local_script_runner as _lsr

last: dict = {}
""""msgs": the latest run's forward messages; "fragments": widget id → fragment id, of every run so far."""
_next: dict = {}
_installed: dict = {}


def widget_fragments(msgs) -> dict[str, str]:
    """Widget id → id of the st.fragment it was drawn in, from a run's deltas (the browser learns it the same way:
    each delta carries its fragment id, and a widget inside a fragment asks for a rerun of that fragment only)."""
    out = {}
    for m in msgs:
        if m.HasField("delta") and m.delta.fragment_id and m.delta.HasField("new_element"):
            el = m.delta.new_element
            kind = el.WhichOneof("type")
            wid = getattr(getattr(el, kind), "id", "") if kind else ""
            if wid:
                out[wid] = m.delta.fragment_id
    return out


def install(on_thread=None) -> None:
    """Patch AppTest's script runner (idempotent). ``on_thread(runner, run)``: wraps the script thread (a timer)."""
    if _installed:
        return
    orig_thread, orig_request = _lsr.LocalScriptRunner._run_script_thread, _lsr.LocalScriptRunner.request_rerun

    def thread(self) -> None:
        try:
            (on_thread or (lambda runner, run: run()))(self, lambda: orig_thread(self))
        finally:
            msgs = self.forward_msgs()
            last["msgs"] = msgs
            last.setdefault("fragments", {}).update(widget_fragments(msgs))  # ids are stable: accumulate

    def request(self, rerun_data):
        fid = _next.pop("id", None)
        ok = orig_request(self, rerun_data)
        if fid is not None:
            with self._requests._lock:
                self._requests._rerun_data = replace(self._requests._rerun_data, fragment_id_queue=[fid])
        return ok

    _lsr.LocalScriptRunner._run_script_thread = thread
    _lsr.LocalScriptRunner.request_rerun = request
    _installed["yes"] = True


def as_fragment_rerun(widget_id: str, known: dict | None = None) -> bool:
    """Make the next ``run()`` a rerun of the fragment that drew ``widget_id`` in the latest full run (as the
    browser does). Returns False when that widget is not inside a fragment (the next run is a full run).
    ``known``: that app's own widget → fragment map (:func:`widget_fragments` of its runs' messages), for a process
    that drives several AppTests: the same widget can sit in fragments of different ids in two apps (a notice
    above the fragment moves its place on the page, and a fragment's id includes its place)."""
    fid = (known if known is not None else last.get("fragments", {})).get(widget_id)
    if fid is not None:
        _next["id"] = fid
    return fid is not None


def the_cell_slider(at, key: str):
    """The one-cell slider ``key`` (ui.widgets.cell_slider) drew in an AppTest run, whichever cell it edits: its
    widget key is ``cell_slider_key(key, …)``, which starts with ``key + ":v:"``."""
    found = [s for s in at.slider if (s.key or "").startswith(f"{key}:v:")]
    if len(found) != 1:
        raise LookupError(f"{len(found)} one-cell sliders under {key!r}")
    return found[0]


_shared_cache = ScriptCache()


def share_script_cache() -> None:
    """Compile each script once per process, as the server does (idempotent). AppTest gives every run a new
    ``ScriptCache``, so each run read, rewrote (Streamlit's "magic") and compiled app.py and the page again: about
    50 ms of CPU per page per run that the server, whose one cache lives as long as the process, never pays
    (benchmarks/control_cost.py counted it in every change)."""
    _app_test.ScriptCache = _lsr.ScriptCache = lambda: _shared_cache
