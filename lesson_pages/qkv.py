"""Lesson 1 — Q·K·V step by step: tokens → X → Q, K, V → scores → ÷√d_k → softmax → weights·V."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.tokens import MAX_TEXT_CHARS
from lessons import qkv as lesson
from ui import bind, charts, draw, escape, numbers, query, runtime, slots, text, widgets
from ui.i18n import t

DIRECT_FLOW = [("Q", "Q · K · V"), *draw.FLOW_QKV[3:]]  # Q, K, V typed in: no X, no W
LIVE, GRID = "live", "grid"  # notice places: inside the numbers' fragment, next to the grids


# ---- controls ----------------------------------------------------------------------------------------------------
def _with_text(state: lesson.QKVState, text: str, page: runtime.Page) -> lesson.QKVState:
    new = lesson.with_text(state, text)
    if new.n and state.query > new.n - 1:
        page.notify("query_clamped", {"asked": state.query + 1, "used": new.query + 1})
    return new


def controls(page: runtime.Page) -> None:
    """Example, sentence, input mode: these change what the whole page is about."""
    state = page.state
    if not any(page.keeps(n) for n in ("preset", "reset", "text", "mode")):
        return  # presentation mode: none of them kept
    with st.container(border=True):
        c1, c2, c3 = st.columns([1.8, 1.7, 1.3])  # every example's name fits at 1280 px (tests/e2e/test_layout_*)
        bind.control(page, c1.selectbox, "preset", t("qkv.preset"), value=state.preset, apply=lesson.with_preset,
                     options=list(lesson.PRESETS), format_func=lambda k: t(f"preset.{k}"))
        if page.keeps("reset"):
            c1.button(t("qkv.reset"), key="qkv.reset", icon=":material/restart_alt:", help=t("qkv.reset_help"),
                      on_click=lambda: page.apply(lesson.with_preset, state.preset))
        bind.control(page, c2.text_input, "text", t("qkv.text"), value=state.text,
                     apply=lambda s, v: _with_text(s, v, page), max_chars=MAX_TEXT_CHARS, help=t("qkv.text_help"))
        bind.control(page, c3.radio, "mode", t("qkv.mode"), value=state.mode, apply=lesson.with_mode,
                     options=["xw", "direct"], format_func=lambda m: t(f"mode.{m}"), horizontal=True)


def size_sliders(page: runtime.Page) -> None:
    """d_model, d_k, d_v and the seed."""
    state = page.state
    dim = dict(min_value=lesson.DIM_MIN, max_value=lesson.DIM_MAX, step=1)
    with st.container(border=not page.presenting):
        s1, s2, s3, s4 = st.columns(4)
        if state.mode == "xw":
            bind.control(page, s1.slider, "dm", "d_model", value=state.d_model, help=t("qkv.dm_help"), **dim,
                         apply=lambda s, v: lesson.with_sizes(s, d_model=v))
        else:
            s1.caption(t("qkv.dm_direct"))
        bind.control(page, s2.slider, "dk", "d_k", value=state.d_k, help=t("qkv.dk_help"), **dim,
                     apply=lambda s, v: lesson.with_sizes(s, d_k=v))
        bind.control(page, s3.slider, "dv", "d_v", value=state.d_v, help=t("qkv.dv_help"), **dim,
                     apply=lambda s, v: lesson.with_sizes(s, d_v=v))
        bind.control(page, s4.slider, "seed", t("qkv.seed"), value=state.seed, apply=lesson.with_seed,
                     min_value=0, max_value=lesson.SEED_MAX, step=1, help=t("qkv.seed_help"))


# ---- sections ----------------------------------------------------------------------------------------------------
def _labels(state: lesson.QKVState) -> dict[str, tuple[list[str], list[str]]]:
    return {n: charts.matrix_labels(n, state.tokens, *state.mats[n].shape) for n in lesson.active_matrices(state.mode)}


def _input_stages(state: lesson.QKVState) -> tuple[str, ...]:
    """The stages that show the inputs: X and W; or Q, K, V typed in (no X, no W), which are also the Q, K, V stage."""
    return ("inputs",) if state.mode == "xw" else ("inputs", "qkv")


def inputs_head(page: runtime.Page) -> None:
    """The inputs section's title and the cell picker: outside the fragment (see lesson)."""
    state = page.state
    if page.reveals(*_input_stages(state)):
        st.subheader(t("qkv.sec.inputs" if state.mode == "xw" else "qkv.sec.inputs_direct"))
        st.caption(t("qkv.sec.inputs_help" if state.mode == "xw" else "qkv.sec.inputs_direct_help"))
    if page.keeps("cell") and not page.presenting:
        st.markdown(t("cell.title"))
    widgets.cell_picker(page, _labels(state))


def inputs_section(page: runtime.Page) -> None:
    state = page.state
    names = lesson.active_matrices(state.mode)
    labels = _labels(state)
    name, i, j = lesson.LESSON.picked_cell(state)
    widgets.cell_slider(page, state.mats[name], name, i, j, lesson.with_cell, place=LIVE)
    if not page.reveals(*_input_stages(state)):
        return
    ranges = lesson.LESSON.ranges(state)
    cols = charts.chart_columns(*(charts.heatmap_need(state.mats[n], *labels[n], zmax=ranges.get(n)) for n in names),
                                max_cols=2)
    for k, n in enumerate(names):
        with cols[k]:
            role = n if n in ("X", "Q", "K", "V") else "W"
            charts.show_heatmap(n, state.mats[n], *labels[n], role=role, key=f"qkv.fig.{n}", zmax=ranges.get(n))
    widgets.matrix_grids(page, {n: state.mats[n] for n in names}, labels, title=t("qkv.edit_grids"),
                         help=t("qkv.edit_help"), place=GRID, tab_key=f"grid_tab.{state.mode}",
                         commit=lambda n, M: page.apply(lesson.with_matrix, n, M, place=GRID))


def qkv_section(page: runtime.Page, state: lesson.QKVState, res: lesson.QKVResult) -> None:
    if not page.reveals("qkv"):
        return
    st.subheader(t("qkv.sec.qkv"))
    st.caption(t("qkv.sec.qkv_help"))
    ranges = lesson.LESSON.ranges(state)
    mats = (("Q", res.Q), ("K", res.K), ("V", res.V))
    cols = charts.chart_columns(*(charts.heatmap_need(M, *charts.matrix_labels(n, state.tokens, *M.shape),
                                                      zmax=ranges.get(n)) for n, M in mats), max_cols=3)
    for k, (n, M) in enumerate(mats):
        with cols[k]:
            charts.show_heatmap(n + "_out", M, *charts.matrix_labels(n, state.tokens, *M.shape), role=n,
                                key=f"qkv.fig.{n}_out", highlight_rows=state.query if n == "Q" else None,
                                zmax=ranges.get(n))


def scores_section(page: runtime.Page, state: lesson.QKVState, res: lesson.QKVResult) -> None:
    """Scores, scaled scores, the causal mask, then the weights and outputs: the weights are drawn first (in time)."""
    s = res.steps
    toks = list(state.tokens)
    ranges = lesson.LESSON.ranges(state)

    def scores() -> None:
        if not page.reveals("scores", "scaled"):
            return
        st.subheader(t("qkv.sec.scores"))
        scaled = page.reveals("scaled")  # the scores alone first, then beside their scaled form
        needs = [charts.heatmap_need(s.scores, toks, toks, zmax=ranges.get("scores"))]
        if scaled:
            needs.append(charts.heatmap_need(s.scores * s.scale, toks, toks, zmax=ranges.get("scaled_scores")))
        slots_ = charts.chart_columns(*needs)
        with slots_[0]:
            charts.show_heatmap("scores", s.scores, toks, toks, key="qkv.fig.scores", highlight_rows=state.query,
                                caption=t("fig.scores.caption", **charts.sign_colours()), zmax=ranges.get("scores"))
        if scaled:
            with slots_[1]:
                charts.show_heatmap("scaled", s.scores * s.scale, toks, toks, key="qkv.fig.scaled",
                                    highlight_rows=state.query, zmax=ranges.get("scaled_scores"),
                                    caption=t("fig.scaled.caption", d_k=state.d_k,
                                              root=numbers.num(np.sqrt(state.d_k))))

    def mask() -> None:
        bind.field(page, st.toggle, "causal", t("qkv.causal"), convert=bool, help=t("qkv.causal_help"))
        if state.causal and page.reveals("scaled"):
            allowed = np.isfinite(s.scaled_scores)
            c1, c2 = charts.chart_columns(charts.mask_need(allowed, toks, toks, additive=True),
                                          charts.heatmap_need(s.scaled_scores, toks, toks,
                                                            zmax=ranges.get("masked_scores")))
            with c1:
                charts.show_mask("mask_add", allowed, toks, toks, additive=True,
                                 key="qkv.fig.mask_add", caption=t("masks.out.mask_caption"))
            with c2:
                charts.show_heatmap("masked", s.scaled_scores, toks, toks, key="qkv.fig.masked",
                                    highlight_rows=state.query, caption=t("masks.out.masked_caption"),
                                    zmax=ranges.get("masked_scores"))

    def weights() -> None:
        if not page.reveals("softmax", "output"):
            return
        st.subheader(t("qkv.sec.weights"))
        out_labels = charts.matrix_labels("out", toks, *s.output.shape)
        output = page.reveals("output")  # the weights alone first, then beside the output they make
        needs = [charts.heatmap_need(s.weights, toks, toks, weights=True)]
        if output:
            needs.append(charts.heatmap_need(s.output, *out_labels, zmax=ranges.get("output")))
        slots_ = charts.chart_columns(*needs, ratios=[3, 2] if output else None)
        with slots_[0]:
            charts.show_heatmap("weights", s.weights, toks, toks, weights=True, key="qkv.fig.weights",
                                exact=numbers.softmax_exact(s.scaled_scores), masked=state.causal,
                                highlight_rows=state.query,
                                caption=text.join_sentences([t("fig.weights.caption"), t("num.row_sums")]))
        if not output:
            return
        with slots_[1]:
            charts.show_heatmap("out", s.output, *out_labels, role="out", key="qkv.fig.out",
                                highlight_rows=state.query, caption=t("fig.out.caption"), zmax=ranges.get("output"))

    slots.draw_parts([scores, mask, weights], first=2)


def query_section(page: runtime.Page, state: lesson.QKVState, res: lesson.QKVResult) -> None:
    if not page.reveals("output"):
        return
    toks = list(state.tokens)
    st.subheader(t("qkv.sec.query"))
    bind.control(page, st.selectbox, "query", t("qkv.query"), value=state.query,
                 apply=lambda s, q: lesson.with_query(s, q)[0], options=list(range(state.n)),
                 format_func=lambda i: f"{i + 1}: {toks[i]}")
    query.explain(state.query, toks, toks, res.Q, res.K, res.V, res.steps, masked=state.causal, key="qkv",
                  follow=lambda s: (lambda r: (r.V, r.steps))(lesson.compute(s)))


def preset_notes(page: runtime.Page, state: lesson.QKVState, res: lesson.QKVResult) -> None:
    if not page.reveals("softmax"):
        return
    if state.preset in ("dog", "direct3", "school") and lesson.is_preset_as_given(state) and not state.causal:
        # the note's numbers hold only for the preset as given, without the causal mask
        st.info(t(f"qkv.note.{state.preset}"), icon=":material/menu_book:")
    if state.n > 1 and np.all(res.K == res.K[0]):
        st.info(t("qkv.note.same_keys", key="[" + ", ".join(numbers.num(v) for v in res.K[0]) + "]", n=state.n,
                  share=numbers.percent(1 / state.n)), icon=":material/lightbulb:")


# ---- reruns: what a widget changes is what reruns ----------------------------------------------------------------
# A full run (the frame too): example, sentence, mode — they change what the page is about.
#  └─ workbench fragment: sizes and seed change every shape, so the cell picker is redrawn with them (d_k at 16 tokens:
#     a full run 13.0 ms = 2.8× the minimal page, this fragment 10.7 ms = 2.4×, same machine, benchmarks/)
#      └─ numbers fragment: the cell slider, the grids and the chosen query change numbers, not shapes.
def live_numbers(page: runtime.Page) -> None:
    """The numbers: heatmaps of every stage, the grids, the chosen query's arithmetic."""
    state = page.state
    res = lesson.compute(state)
    if res is None:
        st.info(t("tokens.no_tokens"), icon=":material/edit_note:")
        return
    page.show_notices(LIVE, toast=True)
    # in page order; the scores and weights first in time, so the new weights reach the screen first (ui/slots.py)
    scores = lambda: scores_section(page, state, res)  # noqa: E731
    parts = [lambda: inputs_section(page), scores, lambda: query_section(page, state, res),
             lambda: preset_notes(page, state, res)]
    if state.mode == "xw":
        parts.insert(1, lambda: qkv_section(page, state, res))
    slots.draw_parts(parts, first=parts.index(scores))


def _token_list(tokens) -> str:
    return t("qkv.own.sep").join(escape.markdown(x) for x in tokens)


def origin_notes(state: lesson.QKVState) -> None:
    """A sentence typed over an example: which tokens start from the example's numbers, which from the seed, and that
    the example's W stay (in the fragment that redraws on a new seed, so the seed named is the current one)."""
    origins = lesson.example_tokens(state)
    if origins is None:
        return
    example, seeded = origins
    preset = t(f"preset.{state.preset}")
    words = [t("qkv.own.intro_xw" if state.mode == "xw" else "qkv.own.intro_direct", preset=preset)]
    if example:
        words.append(t("qkv.own.example", tokens=_token_list(example)))
    if seeded:
        words.append(t("qkv.own.seeded", tokens=_token_list(seeded), seed=state.seed))
    words.append(t("qkv.own.hint", custom=t("preset.custom")))
    st.info(text.join_sentences(words), icon=":material/edit_note:")


def size_notes(state: lesson.QKVState) -> None:
    """Sizes raised past the example's: which rows and columns now hold the seed's random numbers."""
    grown = lesson.grown_sizes(state)
    if not grown:
        return
    xw = state.mode == "xw"
    words = []
    for name, given, now in grown:
        span = str(given + 1) if now == given + 1 else f"{given + 1}–{now}"
        args = dict(given=given, now=now, span=span, seed=state.seed, x_sd=numbers.num(lesson.X_SCALE))
        if name == "d_model":
            words.append(t("qkv.grown.d_model", **args))
        elif name == "d_k":
            words.append(t("qkv.grown.d_k_xw" if xw else "qkv.grown.d_k_direct", **args))
        else:
            words.append(t("qkv.grown.d_v_xw" if xw else "qkv.grown.d_v_direct", **args))
    words.append(t("qkv.grown.random_xw", w_sd=numbers.num(lesson.W_SCALE)) if xw
                 else t("qkv.grown.random_direct"))
    st.info(text.join_sentences(words), icon=":material/casino:")


def workbench(page: runtime.Page) -> None:
    """Sizes and seed, the flow, the cell picker, then the numbers' own fragment: in that order on the page, the numbers
    first in time (a d_k move: the new weights reach the browser before the sliders and the picker, ui/slots.py). Each
    part has a place of its own, so an optional note never moves the charts below it."""
    state = page.state
    words = not page.presenting  # the teacher tells them
    parts = [lambda: origin_notes(state) if words else None, lambda: size_sliders(page),
             lambda: size_notes(state) if words else None,
             lambda: draw.pipeline_strip(draw.FLOW_QKV if state.mode == "xw" else DIRECT_FLOW) if words else None,
             lambda: inputs_head(page) if state.n else None, lambda: page.live(live_numbers)]
    slots.draw_parts(parts, first=len(parts) - 1)


def render(page: runtime.Page) -> None:
    controls(page)
    widgets.token_notices(page.state.text)
    page.live(workbench)


runtime.run("qkv", render)
