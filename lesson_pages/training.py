"""Lesson 7 — the training lab: a one-head attention layer learns a pattern a class can name (the previous token, the
same word, the first token), and the step slider scrubs through its training: the loss, the attention weights of one
held-out example beside the right pattern, W_Q and W_K, and what W_Q·W_Kᵀ asks and offers, at every step. Training is
done once per setup (cached in lessons/training.py); moving the step redraws what was kept."""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from attention_core import training as core
from lessons import training as lesson
from ui import bind, charts, numbers, runtime, text
from ui.escape import chart as chart_text
from ui.i18n import t
from ui.lesson_charts.training import loss_spec

PLAY_KEY = "training:playing"  # True while the step advances by itself (not in the link)
TICK_SECONDS = 0.6
FRAMES = 30  # a play from step 0 to the end takes about this many ticks


def _task_name(task: str) -> str:
    if task == "previous":
        return t("training.task.previous")
    if task == "same":
        return t("training.task.same")
    return t("training.task.first")


def _task_goal(task: str) -> str:
    if task == "previous":
        return t("training.goal.previous_word")
    if task == "same":
        return t("training.goal.same_word")
    return t("training.goal.first_word")


# ---- controls ----------------------------------------------------------------------------------------------------
def controls(page: runtime.Page) -> None:
    state = page.state
    bind.control(page, st.radio, "task", t("training.ctl.task"), value=state.task, apply=lesson.with_task,
                 options=list(lesson.TASKS), format_func=_task_name, horizontal=True, help=t("training.ctl.task_help"))
    if not any(page.keeps(n) for n in ("lr", "n", "dk", "seed", "scaled")):
        return
    with st.container(border=True):
        c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
        bind.control(page, c1.select_slider, "lr", t("training.ctl.lr"), value=state.lr,
                     options=list(lesson.LEARNING_RATES), apply=lesson.with_lr, help=t("training.ctl.lr_help"))
        bind.control(page, c2.select_slider, "n", t("training.ctl.steps"), value=state.steps,
                     options=list(lesson.STEP_CHOICES), apply=lesson.with_steps, help=t("training.ctl.steps_help"))
        bind.control(page, c3.select_slider, "dk", "d_k", value=state.d_k, options=list(lesson.DK_CHOICES),
                     apply=lesson.with_d_k, help=t("training.ctl.dk_help"))
        c4, c5 = st.columns([1, 2], vertical_alignment="bottom")
        bind.number(page, c4.number_input, "seed", t("training.ctl.seed"), value=state.seed, lo=0,
                    hi=lesson.SEED_MAX, apply=lesson.with_seed, help=t("training.ctl.seed_help"))
        bind.field(page, c5.toggle, "scaled", t("training.ctl.scaled"), convert=bool,
                   help=t("training.ctl.scaled_help"))


def _sees_itself(r: lesson.Run) -> bool:
    """Whether the task's mask lets a query see its own token (j ≤ i) or only earlier ones (j < i: same word)."""
    return bool(np.all(np.diag(r.watch.mask)))


def _at_least(w: float) -> str:
    """A share as a lower bound: rounded down to 0.1% (0.99996 is "at least 99.9%", never "at least >99.9%")."""
    return numbers.percent(math.floor(w * 1000) / 1000, 1)


FORMED = 0.9  # the share of the weight on the right key from which every query counts as having learned the pattern


def summary(page: runtime.Page, r: lesson.Run) -> None:
    state = page.state
    h = r.history
    mask = t("training.mask.causal") if _sees_itself(r) else t("training.mask.earlier")
    formula = t("training.formula.scaled") if state.scaled else t("training.formula.unscaled")
    text.explain(t("training.out.model", d_k=state.d_k, mask=mask, formula=formula))
    pattern = dict(mean=numbers.percent(r.mean, 1), n=lesson.N_HELD_OUT, goal=_task_goal(state.task))
    st.markdown(t("training.out.summary", steps=state.steps, start=numbers.num(float(h.held_out_loss[0]), 3),
                  end=numbers.num(float(h.held_out_loss[-1]), 3)) + " "
                + (t("training.out.formed", lowest=_at_least(r.lowest), **pattern) if r.lowest >= FORMED
                   else t("training.out.not_formed", lowest=numbers.percent(r.lowest, 1), **pattern)))
    if h.diverged_at is not None:
        st.warning(t("training.out.diverged", step=h.diverged_at), icon=":material/warning:")


def play_button(page: runtime.Page) -> None:
    if not page.keeps("play"):
        return
    playing = st.session_state.get(PLAY_KEY, False)

    def toggle() -> None:
        now = not st.session_state.get(PLAY_KEY, False)
        st.session_state[PLAY_KEY] = now
        if now and page.state.step >= page.state.steps:  # from the end: start again at step 0
            page.apply(lesson.with_step, 0)

    st.button(t("training.ctl.pause") if playing else t("training.ctl.play"), key=page.key("play"),
              icon=":material/pause:" if playing else ":material/play_arrow:", on_click=toggle,
              help=t("training.ctl.play_help"))


# ---- the scrubbed part -------------------------------------------------------------------------------------------
def _phase(state: lesson.TrainingState, r: lesson.Run, on_answer: float) -> str:
    """Words for what is happening at the step shown."""
    h = r.history
    loss = float(h.held_out_loss[state.step])
    start = float(h.held_out_loss[0])
    args = dict(step=state.step, loss=numbers.num(loss, 3), start=numbers.num(start, 3),
                on=numbers.percent(on_answer, 1), n=lesson.N_HELD_OUT)
    if state.step == 0:
        return t("training.phase.start", **args)
    if loss > 0.6 * start:
        return t("training.phase.early", **args)
    if on_answer < 0.9:
        return t("training.phase.forming", **args)
    return t("training.phase.formed", **args)


def scrub(page: runtime.Page) -> None:
    """The step slider, the example and everything drawn at that step (one fragment: a step is a redraw)."""
    state = page.state
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    bind.control(page, c1.slider, "step", t("training.ctl.step"), value=state.step, min_value=0,
                 max_value=state.steps, step=1, apply=lesson.with_step, help=t("training.ctl.step_help"))
    bind.control(page, c2.selectbox, "example", t("training.ctl.example"), value=state.example,
                 options=list(range(lesson.N_WATCH)), apply=lesson.with_example,
                 format_func=lambda b: t("training.ctl.example_n", n=b + 1), help=t("training.ctl.example_help"))
    state = page.state
    r = lesson.run(state)
    arrays = lesson.arrays(state)
    toks = lesson.token_labels(state)
    W, ideal = arrays["weights"], arrays["ideal"]
    has = r.watch.has_target[state.example]
    key_of = r.watch.answer_key[state.example]
    on_answer = float(np.mean([W[i, key_of[i]] for i in range(len(toks)) if has[i]]))
    h = r.history
    if page.reveals("watch"):
        low = 40 if page.presenting else None  # on a projector the weights fit one screen with the step slider
        if not page.presenting:  # (there the bar names the stage, and the words come under the pictures)
            st.subheader(t("training.sec.watch"))
            st.markdown(_phase(state, r, on_answer))
        s1, s2 = charts.chart_columns(charts.heatmap_need(W, toks, toks, weights=True),
                                      charts.heatmap_need(ideal, toks, toks, weights=True))
        with s1:
            charts.show_heatmap("train_weights", W, toks, toks, weights=True, key="training.fig.weights",
                                title_args={"step": state.step},  # (on a projector the teacher says it)
                                caption=None if page.presenting else t(
                                    "training.fig.weights_caption" if _sees_itself(r)
                                    else "training.fig.weights_caption_earlier"),
                                cell_px=low)
        with s2:
            charts.show_heatmap("train_ideal", ideal, toks, toks, weights=True, key="training.fig.ideal",
                                caption=_ideal_caption(state.task), cell_px=low)
        if page.presenting:
            st.markdown(_phase(state, r, on_answer))
        decay_now = core.decay_term(h.params(state.step), lesson.DECAY)  # the gap between the two curves
        charts.show_figure(_step_loss_spec(state), key="training.fig.loss", follow=_step_loss_spec,
                           caption=t("training.curve.caption", decay=numbers.num(lesson.DECAY),
                                     gap=numbers.num(decay_now, 3)))
    if page.reveals("matrices"):
        matrices(page, r, arrays)


def _step_loss_spec(state: lesson.TrainingState) -> dict:
    """The state's training's two loss curves with its step marked (also a drag's frames: ui/preview.py)."""
    h = lesson.run(state).history
    curves = [(chart_text(t("training.curve.held_out")), h.held_out_loss),
              (chart_text(t("training.curve.batch")), h.loss)]
    top = float(max(h.loss.max(), h.held_out_loss.max()))
    return _loss_chart(curves, state.step, t("training.curve.title"), top)


def _loss_chart(curves, step: int | None, title: str, top: float) -> dict:
    marker = "" if step is None else chart_text(t("training.curve.marker", step=step))
    return loss_spec(curves, step=step, marker=marker,
                     title=chart_text(title), x_title=chart_text(t("training.curve.x")),
                     y_title=chart_text(t("training.curve.y")), y_top=top, width_px=charts.slot_width())


def _ideal_caption(task: str) -> str:
    if task == "previous":
        return t("training.fig.ideal_previous")
    if task == "same":
        return t("training.fig.ideal_same")
    return t("training.fig.ideal_first")


def matrices(page: runtime.Page, r: lesson.Run, arrays: dict) -> None:
    state = page.state
    ranges = lesson.LESSON.ranges(state)
    st.subheader(t("training.sec.matrices"))
    text.explain(t("training.sec.matrices_help"))
    feats, kind = lesson.feature_labels(state)
    feats = [f if i < 8 else (t("training.feat.pos", i=f) if kind == "pos" else t("training.feat.value", v=f))
             for i, f in enumerate(feats)]
    dims = [str(j + 1) for j in range(state.d_k)]
    WQ, WK = arrays["W_Q"], arrays["W_K"]
    s1, s2 = charts.chart_columns(charts.heatmap_need(WQ, feats, dims, zmax=ranges["W_Q"]),
                                  charts.heatmap_need(WK, feats, dims, zmax=ranges["W_K"]))
    with s1:
        charts.show_heatmap("train_wq", WQ, feats, dims, role="Q", key="training.fig.wq", zmax=ranges["W_Q"],
                            title_args={"step": state.step})
    with s2:
        charts.show_heatmap("train_wk", WK, feats, dims, role="K", key="training.fig.wk", zmax=ranges["W_K"],
                            title_args={"step": state.step})
    st.caption(t("training.out.same_range", zmax=numbers.num(ranges["W_Q"], 2)))
    st.markdown(t("training.sec.asks"))
    text.explain(t("training.asks.intro") + " " + _asks_help(state.task))
    charts.show_heatmap("train_asks", arrays["asks_offers"], feats, feats, key="training.fig.asks",
                        zmax=ranges["asks_offers"], title_args={"step": state.step})
    _asks_words(state, arrays["asks_offers"], feats)


def _asks_help(task: str) -> str:
    if task == "previous":
        return t("training.asks.previous")
    if task == "same":
        return t("training.asks.same")
    return t("training.asks.first")


def _asks_words(state: lesson.TrainingState, M: np.ndarray, feats: list[str]) -> None:
    """The largest entry of the position block (previous, first: among the positions the query may see) or of the
    word block (same) for each query feature: what each query asks for, in numbers."""
    off = 8 if state.task != "same" else 0
    block = M[off:off + 8, off:off + 8].copy()
    if off:  # a query at position i sees the keys at positions 0..i only (the causal mask)
        block[np.triu_indices(8, k=1)] = -np.inf
    rows = []
    for i in range(8):
        j = int(np.argmax(block[i]))
        rows.append([feats[off + i], feats[off + j], numbers.num(float(block[i, j]), 2)])
    text.show_table([t("training.asks.query"), t("training.asks.key"), t("training.asks.score")], rows, align="llr")


def _advance(page: runtime.Page) -> None:
    """While playing: the next step (the last one ends the play, and the fragment is drawn again without its timer)."""
    if not st.session_state.get(PLAY_KEY, False):
        return
    state = page.state
    if state.step >= state.steps:
        st.session_state[PLAY_KEY] = False
        st.rerun(scope="app")
    page.apply(lesson.with_step, min(state.step + max(state.steps // FRAMES, 1), state.steps))


def scrub_fragment(page: runtime.Page) -> None:
    """The scrubbed part as a live fragment of its own; while playing it reruns every TICK_SECONDS and moves the
    step."""
    playing = bool(st.session_state.get(PLAY_KEY, False))
    page.live(scrub, run_every=TICK_SECONDS if playing else None, before=_advance)


# ---- the experiment ----------------------------------------------------------------------------------------------
def _reached(loss: np.ndarray, goal: float = 0.1) -> int | None:
    below = np.nonzero(loss < goal)[0]
    return int(below[0]) if below.size else None


def _reach_words(name: str, loss: np.ndarray, diverged: int | None) -> str:
    k = _reached(loss)
    jump = float(np.max(loss[1:] - loss[:-1])) if len(loss) > 1 else 0.0
    if diverged is not None:
        return t("training.exp.diverged", name=name, step=diverged)
    if k is None:
        return t("training.exp.never", name=name, end=numbers.num(float(loss[-1]), 3),
                 jump=numbers.num(max(jump, 0.0), 2))
    return t("training.exp.reached", name=name, step=k, end=numbers.num(float(loss[-1]), 3))


def experiment(page: runtime.Page) -> None:
    state = page.state
    st.subheader(t("training.sec.experiment"))
    other_lr = lesson.other_lr(state)
    text.explain(t("training.sec.experiment_help", now=numbers.num(state.lr, 3), lr=numbers.num(other_lr, 3)))
    runs = lesson.comparison(state)
    now = t("training.exp.now_scaled") if state.scaled else t("training.exp.now_unscaled")
    flipped = t("training.exp.flip_unscaled") if state.scaled else t("training.exp.flip_scaled")
    large = t("training.exp.lr", lr=numbers.num(other_lr, 3))
    names = (now, flipped, large)
    keys = ("now", "flipped", "too_large")
    curves = [(chart_text(n), runs[k].history.held_out_loss) for n, k in zip(names, keys)]
    top = float(max(r.history.held_out_loss.max() for r in runs.values()))
    charts.show_figure(_loss_chart(curves, None, t("training.exp.title"), top),  # outside the step's fragment
                       key="training.fig.experiment", caption=t("training.exp.caption"))
    lines = [_reach_words(n, runs[k].history.held_out_loss, runs[k].history.diverged_at)
             for n, k in zip(names, ("now", "flipped", "too_large"))]
    if state.d_k == 1:
        lines.append(t("training.exp.dk_one"))
    st.markdown("\n".join(f"- {x}" for x in lines))
    text.explain(t("training.exp.why"))


def render(page: runtime.Page) -> None:
    controls(page)
    state = page.state
    r = lesson.run(state)
    if page.reveals("task"):
        summary(page, r)
    play_button(page)
    scrub_fragment(page)
    if page.reveals("experiment"):
        experiment(page)


runtime.run("training", render)
