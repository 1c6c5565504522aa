"""One page's run, written once for every lesson: first visit → state from the URL → notices → render → link.

A lesson's state (a frozen value from ``lessons``) lives in ``st.session_state`` and is the single source of truth:
widgets never hold state of their own (see ``ui.bind``), so values survive page switches (K12) and a language
change. A page file calls :func:`run` with its lesson and a render function; render reads ``page.state`` and
draws. What a link could not give, or a refused edit, becomes a notice shown in words where the person looks.

Reruns. A full run goes through app.py (the frame) and writes the page's link into the address bar and the share
panel after the page ran. A rerun of an ``st.fragment`` (see :meth:`Page.live`) does not run the frame: the link
is written by :meth:`Page.publish` itself, and while the sidebar's share panel is open (it shows the link, and a
fragment cannot redraw the sidebar), or the A/B comparison is on (ui.compare: B is the page's state), the whole app
is rerun so those show the new state.

Errors. A student never sees a traceback or a server path: a transition that raises anything but a refusal leaves
the state as it was and is said in words (notice ``unexpected``), and an error while a page (or one of its
fragments) draws becomes a message in words with a button that starts the lesson afresh (:func:`guarded`); the
details go to the server log (logger ``attention_lab``). Streamlit's own error box, for anything outside these, shows
no details either (``client.showErrorDetails = "none"`` in .streamlit/config.toml).
"""
from __future__ import annotations

import contextvars
import gc
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.errors import FragmentHandledException
from streamlit.runtime.scriptrunner import get_script_run_ctx

import lessons
from lessons import Lesson
from lessons.cells import Refusal
from lessons.link import owner as link_owner

from . import compare, drag, exports, plan, predict, present, preview, scheme, viewport
from .i18n import DEFAULT_LANG, t
from .widgets import network_ip as widgets_network_ip
from .widgets import show_notices

SHARE_KEY = "_share_params"
SHARE_PANEL_KEY = "frame.share"  # the sidebar's share panel (an expander): True while it is open
FRAME = "frame"  # notice place of the frame (the sidebar)
LAST_PAGE = "_last_page"  # the page (url path) of the last full run: see page_opened
ADDRESS_KEY = "_address_written"  # True once this session (page load) had its first link written (app.py)
log = logging.getLogger("attention_lab")


_heap_frozen = False


def freeze_heap() -> None:
    """Once per server process, after its first full run (all modules imported, the first figures built): move every
    object alive then into Python's permanent generation (``gc.freeze``). Those are nearly all long-lived (modules,
    plotly's and Streamlit's tables), and a full collection of the cyclic garbage collector no longer walks them:
    one landing in a student's rerun cost up to ~70 ms of server CPU on top of the change's own work
    (benchmarks/control_cost.py: single changes of ~170 ms against medians under 100 ms; issue 20, defect 8).
    Objects made later (sessions, states, charts) are collected as before."""
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.collect()
        gc.freeze()


_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("notices_quiet", default=False)


def push_notices(place: str, notes) -> None:
    """Queue notices (lessons.link.Notice values or (code, args) pairs) for the next :func:`pop_notices`; inside
    :func:`quiet`, nothing."""
    if not _QUIET.get():
        st.session_state.setdefault(f"{place}:notices", []).extend(notes)


@contextmanager
def quiet() -> Iterator[None]:
    """Notices pushed inside are dropped: for states computed but not made the page's (a drag's frames,
    ui/preview.py), whose transitions may say something about a move nobody made."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


# The run in which app.py began, told by its ScriptRunContext's cursors (a new dict at the start of every run, a
# fragment's rerun too). Not a session value set at the start and cleared at the end: a session value is set after
# Streamlit's check for a waiting rerun, so a run stopped there (app.py's last line, a key press's rerun request
# arriving) left "the frame is running" on, and every fragment run after it took itself for the frame's and wrote no
# link, and the address would keep a value the state had left (a drag's, while arrow presses moved the state on).
_frame = threading.local()


def frame_begins() -> None:
    """app.py's first call in every run: the page code run from here on is the frame's run (see frame_running)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    _frame.run = ctx.cursors if ctx is not None else None


def frame_running() -> bool:
    """Whether this run is app.py's (a whole-app run), not a fragment's rerun: the page code of a fragment rerun
    writes the link itself, a whole run leaves that to app.py. False outside a Streamlit run."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx is not None and getattr(_frame, "run", None) is ctx.cursors


def pop_notices(place: str) -> list:
    return st.session_state.pop(f"{place}:notices", [])


def url_params() -> dict[str, str]:
    """What the URL holds: the language, then the current page's link parameters, then the colour scheme
    (``colors=cividis``, when not the default: ui.scheme) and presentation mode's (``present=1&reveal=3``:
    ui.present)."""
    own = st.session_state.get(SHARE_KEY, {})
    return {"lang": st.session_state.get("lang", DEFAULT_LANG), **own, **scheme.link_params(),
            **present.link_params(own)}


class Page:
    """A lesson page during one run: its state, its widget keys, its notices and its link."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson
        self._state_key = f"{lesson.key}:state"
        self._shown: tuple[object, set[str]] = (None, set())  # (a run's cursors, the places that run has shown)

    # ---- state ----
    @property
    def state(self):
        """The lesson's state. On the session's first visit it is decoded from the URL (a shared link); notices
        about what the link could not give are queued for the top of the page."""
        if self._state_key not in st.session_state:
            params = {k: st.query_params.get_all(k) for k in st.query_params.keys()}  # a key given twice: said
            state, notes = self.lesson.decode(params)  # other lessons' links are recognised as theirs
            st.session_state[self._state_key] = state
            self.notify_all(notes)
        return st.session_state[self._state_key]

    @state.setter
    def state(self, value) -> None:
        st.session_state[self._state_key] = value

    def reset(self) -> None:
        """Start the lesson afresh: its default state (the way out of a page that failed to draw)."""
        self.state = self.lesson.default_state()

    def moved(self, state, transition: Callable, *args, **kwargs):
        """``transition(state, *args, **kwargs)`` as :meth:`apply` makes it the page's state, without making it so:
        the cell picker's choice (``Lesson.cell_matrices``) kept inside the new state's matrices. Raises what the
        transition raises (a :class:`~lessons.cells.Refusal`)."""
        new = transition(state, *args, **kwargs)
        if self.lesson.cell_matrices is not None and getattr(new, "cell", None) is not None:
            new = self.lesson.with_picked_cell(new, *self.lesson.picked_cell(new))
        return new

    def apply(self, transition: Callable, *args, place: str = "top", **kwargs) -> bool:
        """state = transition(state, *args, **kwargs). A :class:`~lessons.cells.Refusal` leaves the state as it
        was and becomes a ``value_refused`` notice at ``place``; any other error (a defect: transitions raise only
        refusals, tests/contract) likewise, as an ``unexpected`` notice, its details in the server log. The cell
        picker's choice (``Lesson.cell_matrices``) is kept inside the new state's matrices, as the picker shows it.
        Returns True when the state changed."""
        try:
            new = self.moved(self.state, transition, *args, **kwargs)
        except Refusal as e:
            self.notify("value_refused", {"reason": t(f"reason.{e.code}", **e.args_)}, place=place)
            return False
        except Exception:
            log.exception("lesson %s: transition %s raised", self.lesson.key, getattr(transition, "__name__", "?"))
            self.notify("unexpected", {}, place=place)
            return False
        self.state = new
        return True

    # ---- presentation mode (ui.present) ----
    def reveals(self, *stages: str) -> bool:
        """Whether the page draws what belongs to ``stages`` (names of ``lesson.present.stages``): always, except in
        presentation mode, where only the current stage is shown, and in predict mode before the answer is revealed,
        where the stages the lesson hides (``Lesson.predict.hides``) are not (ui.predict). A page asks this around
        everything but its controls (its charts, their words); the contract tests check that it asks about every
        declared stage."""
        present.asked(self, stages)
        if present.on():
            stages = tuple(s for s in stages if s == present.stage(self))
        return bool(stages) and predict.visible(self, stages)

    @property
    def presenting(self) -> bool:
        """True in presentation mode (ui.present)."""
        return present.on()

    def keeps(self, name: str) -> bool:
        """Whether the page draws the control ``name`` (its widget key after ``<key>.``): always, except in
        presentation mode, where only the lesson's essential controls (``lesson.present.controls``) are drawn; a
        name counts up to its first ":" or "." (``score.2`` is a ``score`` control). :func:`ui.bind.control` and the
        shared widgets ask this themselves."""
        return not present.on() or present.control_name(name) in self.lesson.present.controls

    # ---- widget keys and notices ----
    def key(self, name: str) -> str:
        """A widget's key: language-neutral and prefixed with the lesson's key."""
        return f"{self.lesson.key}.{name}"

    def notify(self, code: str, args: dict | None = None, *, place: str = "top") -> None:
        push_notices(f"{self.lesson.key}:{place}", [(code, args or {})])

    def notify_all(self, notes, *, place: str = "top") -> None:
        push_notices(f"{self.lesson.key}:{place}", notes)

    def show_notices(self, place: str = "top", *, toast: bool = False) -> None:
        """Show the notices queued for ``place`` (``toast``: also pop each up in the corner, for a place the person
        may have scrolled away from). They stay on screen through the reruns that leave the state as it was (a
        grid's own restart, an expander opened), until the state changes or another notice comes, so a notice
        is never gone before it could be read (issue 20: a grid's restart rerun wiped the one naming a lost
        cell). Leaving the page forgets them (:func:`run`). A place is shown once per run (a second call shows
        nothing: runtime.run shows "top" itself)."""
        where = f"{self.lesson.key}:{place}"
        ctx = get_script_run_ctx(suppress_warning=True)  # a run (a fragment's too) is told by its cursors, new each
        run = ctx.cursors if ctx is not None else None  # time: the fragment keeps this Page through its reruns
        if self._shown[0] is not run:
            self._shown = (run, set())
        if where in self._shown[1]:
            return
        self._shown[1].add(where)
        new = pop_notices(where)
        if new:
            st.session_state[f"{where}:shown"] = (new, self.lesson.encode(self.state))
            show_notices(new, toast=toast, lesson=self.lesson.key)
            return
        kept = st.session_state.get(f"{where}:shown")  # the link is encoded only while a notice is kept (cheap,
        if kept is None:  # ~0.2 ms for 16×16 matrices, but a slider move without a notice needs none of it)
            return
        if kept[1] == self.lesson.encode(self.state):
            show_notices(kept[0], lesson=self.lesson.key)  # no second toast
        else:
            st.session_state.pop(f"{where}:shown", None)

    # ---- link ----
    def link_params(self) -> dict[str, str]:
        """The page's own part of its link: the lesson's state, then predict mode's and A/B's keys."""
        return {**self.lesson.encode(self.state), **predict.link_params(self), **compare.link_params(self)}

    def publish(self) -> None:
        """Make the current state the page's link (see the module docstring for fragment reruns)."""
        params = self.link_params()
        exports.remember(self.lesson.key, self.state)
        if frame_running():
            st.session_state[SHARE_KEY] = params
            return
        changed = params != st.session_state.get(SHARE_KEY)
        st.session_state[SHARE_KEY] = params
        if changed:
            st.query_params.from_dict(url_params())
            if st.session_state.get(SHARE_PANEL_KEY) or compare.on(self):  # panels outside the fragment show it
                st.rerun(scope="app")

    def live(self, body: Callable[[Page], None], *, run_every: float | None = None,
             before: Callable[[Page], None] | None = None) -> None:
        """Run ``body(page)`` as an ``st.fragment``: a widget drawn inside it reruns only the fragment (the frame,
        the title and the controls above are not redrawn), and the link stays current.

        A fragment that plays by itself (a step moving on a timer): ``run_every`` seconds (None: only when a widget in
        it changes), and ``before(page)``, run first in every run of the fragment, timed or not (e.g. the next step
        while playing; it may call ``st.rerun(scope="app")`` to stop the timer). Passing ``before`` keeps the
        fragment the same one whether it is timed or not."""
        if run_every is None and before is None:
            _live_fragment(self, body)
            return

        def timed() -> None:
            if before is not None:
                before(self)
            _live_body(self, body)

        st.fragment(timed, run_every=run_every)()


def _live_body(page: Page, body: Callable[[Page], None]) -> None:
    name = getattr(body, "__name__", "live")
    # One container per live fragment (layout-neutral: its elements keep their gaps), holding the fragment's own
    # drag relay, so a slider dragged inside it reruns this fragment only, as its key press does (ui/drag.py).
    viewport.apply()  # a fragment's run lays its charts out for the main column too
    with st.container(key=f"{drag.LIVE_CONTAINER}{page.lesson.key}-{name}"):
        drag.mount(f"{page.lesson.key}.{name}")
        with preview.scope() as drawn:  # the heatmaps a drag in this fragment may follow (ui/preview.py)
            guarded(page, lambda p: (p.publish(), body(p)), where=name)
        drag.mount_frames(page, f"{page.lesson.key}.{name}", drawn)


_live_fragment = st.fragment(_live_body)


def guarded(page: Page, body: Callable[[Page], None], *, where: str = "page") -> None:
    """Run ``body(page)``; an error in it (a defect) becomes a message in words in the page's language, with a
    button that starts the lesson afresh, and its details go to the server log, never to the screen. What was drawn
    before the error stays. Streamlit's own control flow (``st.rerun``, ``st.stop``) passes through."""
    try:
        body(page)
    except FragmentHandledException:  # an inner fragment's error, already handled by Streamlit
        raise
    except Exception:
        log.exception("lesson %s: drawing %s raised", page.lesson.key, where)
        st.error(t("error.unexpected"), icon=":material/error:")
        st.button(t("error.reset"), key=page.key(f"error_reset.{where}"), icon=":material/restart_alt:",
                  on_click=page.reset)


def page_opened(path: str) -> None:
    """The frame's call before a page runs: when it is another page than the last run's, the notices kept on
    screen (:meth:`Page.show_notices`) are forgotten, so a page opened again starts without old ones."""
    if st.session_state.get(LAST_PAGE) != path:
        st.session_state[LAST_PAGE] = path
        for k in [k for k in st.session_state if str(k).endswith(":shown")]:
            del st.session_state[k]


def follow_lesson_link() -> None:
    """On a page with no link of its own (the home page): a lesson's link (``/?qkv=2&dk=7``, or a version-1 link from
    before the lessons had pages of their own) opens that lesson with the link, instead of being dropped without a
    word. Only on a page load's first run: later the address bar holds the link of the page the person came from
    (a page switch in AppTest keeps it), and going home must not lead back there. Does nothing for any other query."""
    if st.session_state.get(ADDRESS_KEY):
        return
    params = st.query_params.to_dict()
    key = link_owner([x.link for x in lessons.REGISTRY], params)
    if key is not None:
        st.switch_page(lessons.by_key(key).page, query_params=params)


def run(lesson_key: str, render: Callable[[Page], None]) -> None:
    """A lesson page: its title and introduction (``<key>.title``, ``<key>.intro``), the link's notices, the
    predict-then-reveal switch (ui.predict, lessons that declare ``Lesson.predict``) and the A/B comparison
    (ui.compare), then ``render(page)``, the lesson plan and the words (ui.plan), the fold that saves and loads the
    state as a file (ui.exports), then the link published. In presentation mode (ui.present) the mode's bar comes
    first, and the introduction, the comparison, the plan and the files are left out."""
    page = Page(lessons.by_key(lesson_key))
    page.state  # noqa: B018 -- decoded from the URL before anything is drawn, so its notices show at the top
    st.session_state.pop(present.ASKED, None)
    if present.on():
        present.step(page)  # read from the link before the notices are shown
        present.bar(page, url=st.context.url, network_ip=widgets_network_ip())
    predict.on(page), compare.on(page)  # the link's guess and A read before the notices are shown
    st.title(t(f"{lesson_key}.title"))
    if not present.on():
        st.markdown(t(f"{lesson_key}.intro"))
    page.show_notices()
    guarded(page, predict.panel, where="predict")
    if not present.on():
        guarded(page, compare.panel, where="compare")
    with preview.scope() as drawn:  # the heatmaps a drag of a slider outside any live fragment may follow
        guarded(page, render, where="render")
    if not present.on():
        guarded(page, plan.panel, where="plan")
        guarded(page, exports.panel, where="file")
    page.publish()
    drag.mount_frames(page, None, drawn)
    drag.mount_hover(page)
