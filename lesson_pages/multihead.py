"""Lesson 4 — multi-head attention: split into heads, one pattern per head, concat, ·W_O."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.tokens import MAX_TEXT_CHARS
from lessons import multihead as lesson
from ui import bind, charts, numbers, query, runtime, slots, text, widgets
from ui.i18n import t
from ui.lesson_charts.multihead import head_map_spec, labels_shown

LIVE, GRID = "live", "grid"
HEADS_PER_ROW = 4  # small multiples: up to 4 heads side by side at 1280×720, then wrapped


def _head_cols(d_model: int, h: int) -> list[str]:
    """Column labels of a matrix cut into h heads: "head.column" (1.1 … 1.d_k, 2.1 …), plain numbers for h = 1."""
    d_k = d_model // h
    return [str(j + 1) for j in range(d_model)] if h == 1 else [f"{j // d_k + 1}.{j % d_k + 1}" for j in range(d_model)]


def _labels(state: lesson.MultiHeadState) -> dict[str, tuple[list[str], list[str]]]:
    d, h = state.d_model, state.n_heads
    rows = [str(i + 1) for i in range(d)]
    heads = _head_cols(d, h)
    return {"X": (list(state.tokens), rows), "W_Q": (rows, heads), "W_K": (rows, heads), "W_V": (rows, heads),
            "W_O": (heads, rows)}


def _blocks(name: str, h: int) -> tuple[int, int]:
    return (h, 1) if name == "W_O" else (1, h) if name != "X" else (1, 1)


# ---- controls ----------------------------------------------------------------------------------------------------
def controls(page: runtime.Page) -> None:
    state = page.state
    if not any(page.keeps(n) for n in ("preset", "text", "seed")):
        return  # presentation mode: none of them kept
    with st.container(border=True):
        c1, c2, c3 = st.columns([1.6, 2.2, 1.2], vertical_alignment="bottom")
        bind.control(page, c1.selectbox, "preset", t("multihead.ctl.preset"), value=state.preset,
                     apply=lesson.with_preset, options=list(lesson.PRESETS),
                     format_func=lambda k: t(f"multihead.preset.{k}"), help=t("multihead.ctl.preset_help"))
        bind.control(page, c2.text_input, "text", t("multihead.ctl.text"), value=state.text, apply=lesson.with_text,
                     max_chars=MAX_TEXT_CHARS, help=t("multihead.ctl.text_help"))
        bind.number(page, c3.number_input, "seed", t("multihead.ctl.seed"), value=state.seed,
                    apply=lesson.with_seed, lo=0, hi=lesson.SEED_MAX, help=t("multihead.ctl.seed_help"))


def sizes(page: runtime.Page) -> None:
    state = page.state
    with st.container(border=True):
        c1, c2, c3 = st.columns([1.8, 1.8, 1.6], vertical_alignment="bottom")  # "Causal mask" whole at 1024 px
        bind.control(page, c1.slider, "dm", "d_model", value=state.d_model, min_value=lesson.DM_MIN,
                     max_value=lesson.DM_MAX, step=1, apply=lesson.with_d_model,
                     help=t("multihead.ctl.dm_help"))
        options = list(lesson.divisors(state.d_model))
        if len(options) > 1:
            bind.control(page, c2.select_slider, "h", t("multihead.ctl.h"), value=state.n_heads, options=options,
                         apply=lesson.with_n_heads, help=t("multihead.ctl.h_help", d_model=state.d_model))
        else:
            c2.caption(t("multihead.ctl.h_one", d_model=state.d_model))
        bind.field(page, c3.toggle, "causal", t("multihead.ctl.causal"), convert=bool,
                   help=t("multihead.ctl.causal_help"))
    state = page.state
    st.caption(t("multihead.out.sizes", d_model=state.d_model, h=state.n_heads, d_k=state.d_k))

    def heads_asked() -> None:  # said as long as it holds (a d_model drag passing 9 with h = 4 chosen), not once
        if state.heads_asked:
            st.caption(t("multihead.out.heads_asked", asked=state.heads_asked, used=state.n_heads,
                         d_model=state.d_model))

    slots.keep_place(heads_asked)


# ---- sections ----------------------------------------------------------------------------------------------------
def inputs_head(page: runtime.Page) -> None:
    if page.reveals("inputs"):
        st.subheader(t("multihead.sec.inputs"))
        st.caption(t("multihead.sec.inputs_help"))
    if not page.presenting:
        st.markdown(t("cell.title"))
    widgets.cell_picker(page, _labels(page.state))


def inputs_section(page: runtime.Page) -> None:
    state = page.state
    labels = _labels(state)
    name, i, j = lesson.LESSON.picked_cell(state)
    widgets.cell_slider(page, state.mats[name], name, i, j, lesson.with_cell, place=LIVE)
    if not page.reveals("inputs"):
        return
    ranges = lesson.LESSON.ranges(state)
    names = lesson.MATRICES
    cols = charts.chart_columns(*(charts.heatmap_need(state.mats[n], *labels[n], zmax=ranges.get(n)) for n in names),
                                max_cols=2)
    for col, n in zip(cols, names):
        with col:
            charts.show_heatmap(n if n == "X" else f"mh_{n}", state.mats[n], *labels[n], role=n if n == "X" else "W",
                                key=f"multihead.fig.{n}",
                                zmax=ranges.get(n), blocks=_blocks(n, state.n_heads))
    widgets.matrix_grids(page, {n: state.mats[n] for n in names}, labels, title=t("multihead.edit_grids"),
                         help=t("multihead.edit_help"), place=GRID,
                         commit=lambda n, M: page.apply(lesson.with_matrix, n, M, place=GRID))


def split_section(page: runtime.Page, state: lesson.MultiHeadState, res) -> None:
    if not page.reveals("split"):
        return
    st.subheader(t("multihead.sec.split"))
    st.caption(t("multihead.sec.split_help", h=state.n_heads, d_k=state.d_k))
    toks = list(state.tokens)
    heads = _head_cols(state.d_model, state.n_heads)
    ranges = lesson.LESSON.ranges(state)
    mats = (("Q", res.Q), ("K", res.K), ("V", res.V))
    cols = charts.chart_columns(*(charts.heatmap_need(M, toks, heads, zmax=ranges.get(n)) for n, M in mats),
                                max_cols=3)
    for col, (n, M) in zip(cols, mats):
        with col:
            charts.show_heatmap(f"mh_{n}_out", M, toks, heads, role=n, key=f"multihead.fig.{n}_out",
                                zmax=ranges.get(n), blocks=(1, state.n_heads))


def heads_section(page: runtime.Page, state: lesson.MultiHeadState, res) -> None:
    """The small multiples: one weights heatmap per head, the same 0..1 scale, and (h > 1) their average, last. With
    their numbers while every head fits one row that way (the average may wrap); else as colours only, HEADS_PER_ROW
    to a row, with the chosen head drawn below with its numbers."""
    if not page.reveals("heads"):
        return
    st.subheader(t("multihead.sec.heads"))
    st.caption(t("multihead.sec.heads_help"))
    note = lesson.is_preset_as_given(state)  # the note's numbers hold only for the preset as given

    def preset_note() -> None:
        if note and not page.presenting:
            st.info(t(f"multihead.note.{state.preset}"), icon=":material/menu_book:")

    slots.keep_place(preset_note)  # (there or not, in a place of its own: the first edit blanks no chart below)
    toks = list(state.tokens)
    h = state.n_heads
    mean = res.weights.mean(axis=0)
    shown = [res.weights[i] for i in range(h)] + ([mean] if h > 1 else [])
    needs = [charts.heatmap_need(W, toks, toks, weights=True) for W in shown]
    per_row = charts.chart_layout(needs, max_cols=HEADS_PER_ROW)[1]
    if per_row >= min(h, HEADS_PER_ROW):  # every head in one row with its numbers (the average may wrap)
        _numbered_heads(state, res, toks, mean, needs)
    else:
        _head_maps(state, res, toks, len(shown))
    st.caption(text.join_sentences([t("fig.weights.caption"), t("num.row_sums")]))
    if note and page.presenting:  # on a projector: the heads first, what they show after
        st.info(t(f"multihead.note.{state.preset}"), icon=":material/menu_book:")


def _weights_of_head(state: lesson.MultiHeadState, res, toks, i: int) -> None:
    charts.show_heatmap("mh_weights", res.weights[i], toks, toks, weights=True,
                        key=f"multihead.fig.weights_{i + 1}", title_args={"i": i + 1},
                        exact=numbers.softmax_exact(res.scaled_scores[i]),
                        highlight_rows=state.query if i == state.head else None)


def _numbered_heads(state: lesson.MultiHeadState, res, toks, mean, needs) -> None:
    h = state.n_heads
    slots_ = charts.chart_columns(*needs, max_cols=HEADS_PER_ROW)
    for i, col in enumerate(slots_[:h]):
        with col:
            _weights_of_head(state, res, toks, i)
    if h > 1:
        with slots_[h]:
            charts.show_heatmap("mh_mean", mean, toks, toks, weights=True, key="multihead.fig.mean",
                                caption=t("multihead.out.mean_caption", h=h))


def _head_maps(state: lesson.MultiHeadState, res, toks, count: int) -> None:
    """Every head (and the average) as colours only, side by side; then the chosen head with its numbers."""
    h = state.n_heads
    hover = t("multihead.map.hover")
    slots_ = charts.chart_columns(*([0.0] * count), max_cols=HEADS_PER_ROW)
    words = [t("multihead.map.caption", h=h, i=state.head + 1)]  # said before the maps: what their colours mean
    if not labels_shown(len(toks), slots_[0].width_px):
        words.append(t("multihead.map.no_labels"))
    st.caption(text.join_sentences(words))
    for i, col in enumerate(slots_):
        with col:
            title = t("multihead.map.head", i=i + 1) if i < h else t("multihead.map.mean")
            spec = _map_spec(i, h, title, hover, charts.slot_width(), charts.color_scheme())
            key = f"multihead.fig.map_{i + 1}" if i < h else "multihead.fig.map_mean"
            charts.show_figure(spec(state, res), key=key, follow=spec)
    _weights_of_head(state, res, toks, state.head)


def _map_spec(i: int, h: int, title: str, hover: str, width: float, scheme: str):
    """State (and its result) → the colour map of head ``i`` of ``h`` (``i == h``: their average), or None in a
    state with another head count; drawn so, and so followed in a drag's frames (charts.show_figure)."""
    def spec(state: lesson.MultiHeadState, res=None) -> dict | None:
        res = lesson.compute(state) if res is None else res
        if res is None or state.n_heads != h:
            return None
        M = res.weights[i] if i < h else res.weights.mean(axis=0)
        return head_map_spec(M, list(state.tokens), title=title, hover=hover, width_px=width,
                             frame_row=state.query if i == state.head else None, scheme=scheme)
    return spec


def head_detail(page: runtime.Page, state: lesson.MultiHeadState, res) -> None:
    """One head up close: its Q_h, K_h, V_h and one query's arithmetic (ui.query, as on the Q·K·V page)."""
    if not page.reveals("detail"):
        return
    st.subheader(t("multihead.sec.detail"))
    toks = list(state.tokens)
    c1, c2 = st.columns(2)
    bind.control(page, c1.selectbox, "head", t("multihead.ctl.head"), value=state.head, apply=lesson.with_head,
                 options=list(range(state.n_heads)), format_func=lambda i: t("multihead.head_name", i=i + 1))
    bind.control(page, c2.selectbox, "query", t("multihead.ctl.query"), value=state.query, apply=lesson.with_query,
                 options=list(range(state.n)), format_func=lambda i: f"{i + 1}: {toks[i]}")
    state = page.state
    k = state.head
    dims = [str(j + 1) for j in range(state.d_k)]
    st.caption(t("multihead.sec.detail_help", i=k + 1, lo=k * state.d_k + 1, hi=(k + 1) * state.d_k, d_k=state.d_k,
                 root=numbers.num(np.sqrt(state.d_k))))
    ranges = lesson.LESSON.ranges(state)
    mats = (("Q", res.Q_heads[k]), ("K", res.K_heads[k]), ("V", res.V_heads[k]))
    cols = charts.chart_columns(*(charts.heatmap_need(M, toks, dims, zmax=ranges.get(n)) for n, M in mats),
                                max_cols=3)
    for col, (n, M) in zip(cols, mats):
        with col:
            charts.show_heatmap(f"mh_head_{n}", M, toks, dims, role=n, key=f"multihead.fig.head_{n}",
                                title_args={"i": k + 1}, zmax=ranges.get(n),
                                highlight_rows=state.query if n == "Q" else None)
    query.explain(state.query, toks, toks, res.Q_heads[k], res.K_heads[k], res.V_heads[k], res.heads[k],
                  masked=state.causal, key="multihead",
                  follow=lambda s: (lambda r: (r.V_heads[k], r.heads[k]))(lesson.compute(s)))


def combine_section(page: runtime.Page, state: lesson.MultiHeadState, res) -> None:
    if not page.reveals("combine"):
        return
    st.subheader(t("multihead.sec.combine"))
    st.caption(t("multihead.sec.combine_help", h=state.n_heads, d_model=state.d_model))
    toks = list(state.tokens)
    heads = _head_cols(state.d_model, state.n_heads)
    dims = [str(j + 1) for j in range(state.d_model)]
    ranges = lesson.LESSON.ranges(state)
    c1, c2 = charts.chart_columns(charts.heatmap_need(res.concat, toks, heads, zmax=ranges.get("concat")),
                                  charts.heatmap_need(res.output, toks, dims, zmax=ranges.get("output")))
    with c1:
        charts.show_heatmap("mh_concat", res.concat, toks, heads, role="out", key="multihead.fig.concat",
                            zmax=ranges.get("concat"), blocks=(1, state.n_heads),
                            caption=t("multihead.out.concat_caption"))
    with c2:
        charts.show_heatmap("mh_output", res.output, toks, dims, role="out", key="multihead.fig.output",
                            zmax=ranges.get("output"), caption=t("multihead.out.output_caption"))


def cost_section(page: runtime.Page, state: lesson.MultiHeadState) -> None:
    if not page.reveals("cost"):
        return
    st.subheader(t("multihead.sec.cost"))
    n, d, h = state.n, state.d_model, state.n_heads
    now, paper = lesson.cost(n, d, h), lesson.cost(n, lesson.PAPER["d_model"], lesson.PAPER["n_heads"])
    one = lesson.cost(n, d, 1)
    parts = ("projections", "heads", "out")
    header = ["", t("multihead.cost.now", h=h, d_model=d, d_k=state.d_k),
              t("multihead.cost.one", d_model=d), t("multihead.cost.paper")]
    rows = [[t(f"multihead.cost.{p}"), numbers.num(now[p]), numbers.num(one[p]), numbers.num(paper[p])] for p in parts]
    rows.append([t("multihead.cost.total")] + [numbers.num(sum(c[p] for p in parts)) for c in (now, one, paper)])
    text.show_table(header, rows, align="lrrr", wrap={0})
    st.caption(t("multihead.cost.note", h=h, d_k=state.d_k, d_model=d, n=n, p_d_model=lesson.PAPER["d_model"],
                 p_h=lesson.PAPER["n_heads"], p_d_k=lesson.PAPER["d_k"]))


# ---- the page ----------------------------------------------------------------------------------------------------
def live_numbers(page: runtime.Page) -> None:
    state = page.state
    res = lesson.compute(state)
    if res is None:
        st.info(t("tokens.no_tokens"), icon=":material/edit_note:")
        return
    page.show_notices(LIVE, toast=True)
    heads = lambda: heads_section(page, state, res)  # noqa: E731
    parts = [lambda: inputs_section(page), lambda: split_section(page, state, res), heads,
             lambda: head_detail(page, state, res), lambda: combine_section(page, state, res),
             lambda: cost_section(page, state)]
    slots.draw_parts(parts, first=parts.index(heads))


def workbench(page: runtime.Page) -> None:
    parts = [lambda: sizes(page), lambda: inputs_head(page) if page.state.n else None,
             lambda: page.live(live_numbers)]
    slots.draw_parts(parts, first=len(parts) - 1)


def render(page: runtime.Page) -> None:
    controls(page)
    widgets.token_notices(page.state.text)
    page.live(workbench)


runtime.run("multihead", render)
