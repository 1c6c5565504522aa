"""Lesson 6 — source–target (cross) attention: queries from the target, keys and values from the source, rectangular
weights, the alignment picture, the same W on the target alone (self-attention), padding of the source, and the
Seq2Seq bottleneck (one fixed vector against attention's mix)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.tokens import MAX_TEXT_CHARS
from lessons import cross as lesson
from ui import bind, charts, escape, numbers, query, runtime, slots, text, widgets
from ui.i18n import t
from ui.lesson_charts.cross import alignment_spec, shares_spec

LIVE, GRID = "live", "grid"  # notice places: inside the numbers' fragment, next to the grids


# ---- controls ----------------------------------------------------------------------------------------------------
def _preset_name(key: str) -> str:
    return t("cross.preset.align") if key == "align" else t("cross.preset.seeded")


def _mode_name(mode: str) -> str:
    return t("cross.ctl.mode_cross") if mode == "cross" else t("cross.ctl.mode_self")


def controls(page: runtime.Page) -> None:
    """Example, the two sentences and the mode: what the whole page is about."""
    state = page.state
    with st.container(border=True):
        c1, c2, c3 = st.columns([1.5, 2.0, 2.0])
        bind.control(page, c1.selectbox, "preset", t("cross.ctl.preset"), value=state.preset,
                     apply=lesson.with_preset, options=list(lesson.PRESETS), format_func=_preset_name)
        if page.keeps("reset"):
            c1.button(t("cross.reset"), key="cross.reset", icon=":material/restart_alt:", help=t("cross.reset_help"),
                      on_click=lambda: page.apply(lesson.with_preset, page.state.preset))
        bind.control(page, c2.text_input, "source", t("cross.ctl.source"), value=state.source,
                     apply=lesson.with_source, max_chars=MAX_TEXT_CHARS, help=t("cross.ctl.source_help"))
        bind.control(page, c3.text_input, "target", t("cross.ctl.target"), value=state.target,
                     apply=lesson.with_target, max_chars=MAX_TEXT_CHARS, help=t("cross.ctl.target_help"))
        bind.control(page, st.radio, "mode", t("cross.ctl.mode"), value=state.mode, apply=lesson.with_mode,
                     options=list(lesson.MODES), format_func=_mode_name, horizontal=True,
                     help=t("cross.ctl.mode_help"))


def sizes(page: runtime.Page) -> None:
    """d_model, d_k, d_v, the seed and the source's [PAD] keys."""
    state = page.state
    dim = dict(min_value=lesson.DIM_MIN, max_value=lesson.DIM_MAX, step=1)
    with st.container(border=True):
        s1, s2, s3 = st.columns(3)
        bind.control(page, s1.slider, "dm", "d_model", value=state.d_model, help=t("cross.ctl.dm_help"), **dim,
                     apply=lambda s, v: lesson.with_sizes(s, d_model=v))
        bind.control(page, s2.slider, "dk", "d_k", value=state.d_k, help=t("cross.ctl.dk_help"), **dim,
                     apply=lambda s, v: lesson.with_sizes(s, d_k=v))
        bind.control(page, s3.slider, "dv", "d_v", value=state.d_v, help=t("cross.ctl.dv_help"), **dim,
                     apply=lambda s, v: lesson.with_sizes(s, d_v=v))
        s4, s5 = st.columns([1, 2], vertical_alignment="bottom")
        bind.number(page, s4.number_input, "seed", t("cross.ctl.seed"), value=state.seed, lo=0, hi=lesson.SEED_MAX,
                    apply=lesson.with_seed, help=t("cross.ctl.seed_help"), place=LIVE)
        bind.control(page, s5.slider, "pad", t("cross.ctl.pad"), value=state.pad, min_value=0,
                     max_value=lesson.MAX_PAD, step=1, apply=lesson.with_pad, help=t("cross.ctl.pad_help"))
        used = lesson.pads_used(state)
        if used < state.pad:
            st.caption(t("cross.note.pads_cut", used=used, asked=state.pad))


# ---- sections ----------------------------------------------------------------------------------------------------
def _labels(state: lesson.CrossState) -> dict[str, tuple[list[str], list[str]]]:
    tgt, keys = list(lesson.target_tokens(state)), list(lesson.key_tokens(state))
    dims = {n: [str(j + 1) for j in range(state.mats[n].shape[1])] for n in lesson.MATRICES}
    rows = [str(i + 1) for i in range(state.d_model)]
    return {"X_tgt": (tgt, dims["X_tgt"]), "X_src": (keys, dims["X_src"]), "W_Q": (rows, dims["W_Q"]),
            "W_K": (rows, dims["W_K"]), "W_V": (rows, dims["W_V"])}


def inputs_head(page: runtime.Page) -> None:
    if page.reveals("inputs"):
        st.subheader(t("cross.sec.inputs"))
        st.caption(t("cross.sec.inputs_help"))
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
    X_t, X_s = state.mats["X_tgt"], state.mats["X_src"]
    c1, c2 = charts.chart_columns(charts.heatmap_need(X_t, *labels["X_tgt"], zmax=ranges.get("X_tgt")),
                                  charts.heatmap_need(X_s, *labels["X_src"], zmax=ranges.get("X_src")))
    with c1:
        charts.show_heatmap("cross_X_tgt", X_t, *labels["X_tgt"], role="X", key="cross.fig.X_tgt",
                            zmax=ranges.get("X_tgt"))
    with c2:
        charts.show_heatmap("cross_X_src", X_s, *labels["X_src"], role="X", key="cross.fig.X_src",
                            zmax=ranges.get("X_src"))
    ws = ("W_Q", "W_K", "W_V")
    cols = charts.chart_columns(*(charts.heatmap_need(state.mats[n], *labels[n], zmax=ranges.get(n)) for n in ws),
                                max_cols=3)
    for col, n in zip(cols, ws):
        with col:
            charts.show_heatmap(n, state.mats[n], *labels[n], role="W", key=f"cross.fig.{n}", zmax=ranges.get(n))
    widgets.matrix_grids(page, {n: state.mats[n] for n in lesson.MATRICES}, labels, title=t("qkv.edit_grids"),
                         help=t("qkv.edit_help"), place=GRID,
                         commit=lambda n, M: page.apply(lesson.with_matrix, n, M, place=GRID))


def qkv_section(state: lesson.CrossState, res: lesson.CrossResult) -> None:
    cross = state.mode == "cross"
    st.subheader(t("cross.sec.qkv"))
    st.caption(t("cross.sec.qkv_help_cross") if cross else t("cross.sec.qkv_help_self"))
    ranges = lesson.LESSON.ranges(state)
    tgt, keys = list(lesson.target_tokens(state)), list(res.keys)

    def dims(M) -> list[str]:
        return [str(j + 1) for j in range(M.shape[1])]

    cols = charts.chart_columns(charts.heatmap_need(res.Q, tgt, dims(res.Q), zmax=ranges.get("Q")),
                                charts.heatmap_need(res.K, keys, dims(res.K), zmax=ranges.get("K")),
                                charts.heatmap_need(res.V, keys, dims(res.V), zmax=ranges.get("V")), max_cols=3)
    with cols[0]:
        charts.show_heatmap("cross_Q", res.Q, tgt, dims(res.Q), role="Q", key="cross.fig.Q", zmax=ranges.get("Q"),
                            highlight_rows=state.query)
    with cols[1]:
        if cross:
            charts.show_heatmap("cross_K", res.K, keys, dims(res.K), role="K", key="cross.fig.K", zmax=ranges.get("K"))
        else:
            charts.show_heatmap("self_K", res.K, keys, dims(res.K), role="K", key="cross.fig.K", zmax=ranges.get("K"))
    with cols[2]:
        if cross:
            charts.show_heatmap("cross_V", res.V, keys, dims(res.V), role="V", key="cross.fig.V", zmax=ranges.get("V"))
        else:
            charts.show_heatmap("self_V", res.V, keys, dims(res.V), role="V", key="cross.fig.V", zmax=ranges.get("V"))


def scores_section(state: lesson.CrossState, res: lesson.CrossResult) -> None:
    cross = state.mode == "cross"
    s = res.steps
    tgt, keys = list(lesson.target_tokens(state)), list(res.keys)
    ranges = lesson.LESSON.ranges(state)
    scaled = s.scores * s.scale  # ÷√d_k itself; a mask then adds 0 or −∞ (mask_section)
    st.subheader(t("cross.sec.scores") if cross else t("cross.sec.scores_self"))
    c1, c2 = charts.chart_columns(charts.heatmap_need(s.scores, tgt, keys, zmax=ranges.get("scores")),
                                  charts.heatmap_need(scaled, tgt, keys, zmax=ranges.get("scaled_scores")))
    with c1:
        if cross:
            charts.show_heatmap("cross_scores", s.scores, tgt, keys, key="cross.fig.scores",
                                highlight_rows=state.query, zmax=ranges.get("scores"))
        else:
            charts.show_heatmap("self_scores", s.scores, tgt, keys, key="cross.fig.scores",
                                highlight_rows=state.query, zmax=ranges.get("scores"))
    root = numbers.num(np.sqrt(state.d_k))
    with c2:
        if cross:
            charts.show_heatmap("cross_scaled", scaled, tgt, keys, key="cross.fig.scaled",
                                highlight_rows=state.query, zmax=ranges.get("scaled_scores"),
                                caption=t("fig.scaled.caption", d_k=state.d_k, root=root))
        else:
            charts.show_heatmap("self_scaled", scaled, tgt, keys, key="cross.fig.scaled",
                                highlight_rows=state.query, zmax=ranges.get("scaled_scores"),
                                caption=t("fig.scaled.caption", d_k=state.d_k, root=root))


def mask_section(page: runtime.Page, state: lesson.CrossState, res: lesson.CrossResult) -> None:
    """The padding switch (cross) or the causal switch (self), what each mask does here, and the mask added to the
    scaled scores beside the masked scores."""
    cross = state.mode == "cross"
    s = res.steps
    tgt, keys = list(lesson.target_tokens(state)), list(res.keys)
    st.markdown(f"**{t('cross.sec.mask')}**")
    if cross:
        bind.field(page, st.toggle, "padding", t("cross.ctl.padding"), convert=bool,
                   help=t("cross.ctl.padding_help"))
        st.info(t("cross.note.causal"), icon=":material/block:")
        if not lesson.pads_used(state):
            st.caption(t("cross.note.no_pads"))
        else:
            st.caption(t("cross.note.pad_masked") if state.padding else t("cross.note.pad_open"))
    else:
        bind.field(page, st.toggle, "causal", t("cross.ctl.causal"), convert=bool, help=t("cross.ctl.causal_help"))
        st.caption(text.join_sentences([t("cross.note.causal_self"), t("cross.note.padding_self")]))
    if res.mask is None:
        return
    zmax = lesson.LESSON.ranges(state).get("scaled_scores")
    c1, c2 = charts.chart_columns(charts.mask_need(res.mask, tgt, keys, additive=True),
                                  charts.heatmap_need(s.scaled_scores, tgt, keys, zmax=zmax))
    with c1:
        charts.show_mask("cross_mask" if cross else "self_mask", res.mask, tgt, keys, additive=True,
                         key="cross.fig.mask", follow=_mask_of)
    with c2:
        if cross:
            charts.show_heatmap("cross_masked", s.scaled_scores, tgt, keys, key="cross.fig.masked",
                                highlight_rows=state.query, zmax=zmax, caption=t("masks.out.masked_caption"))
        else:
            charts.show_heatmap("self_masked", s.scaled_scores, tgt, keys, key="cross.fig.masked",
                                highlight_rows=state.query, zmax=zmax, caption=t("masks.out.masked_caption"))


def weights_section(state: lesson.CrossState, res: lesson.CrossResult) -> None:
    cross = state.mode == "cross"
    s = res.steps
    tgt, keys = list(lesson.target_tokens(state)), list(res.keys)
    ranges = lesson.LESSON.ranges(state)
    st.subheader(t("cross.sec.weights"))
    dims = [str(j + 1) for j in range(s.output.shape[1])]
    exact = numbers.softmax_exact(s.scaled_scores)
    c1, c2 = charts.chart_columns(charts.heatmap_need(s.weights, tgt, keys, weights=True),
                                  charts.heatmap_need(s.output, tgt, dims, zmax=ranges.get("output")), ratios=[3, 2])
    caption = text.join_sentences([t("fig.weights.caption"), t("num.row_sums")])
    with c1:
        if cross:
            charts.show_heatmap("cross_weights", s.weights, tgt, keys, weights=True, key="cross.fig.weights",
                                exact=exact, highlight_rows=state.query, caption=caption, masked=state.padding)
        else:
            charts.show_heatmap("self_weights", s.weights, tgt, keys, weights=True, key="cross.fig.weights",
                                exact=exact, highlight_rows=state.query, caption=caption, masked=state.causal)
    with c2:
        charts.show_heatmap("cross_out", s.output, tgt, dims, role="out", key="cross.fig.out",
                            highlight_rows=state.query, zmax=ranges.get("output"), caption=t("fig.out.caption"))
    n_q, n_k = s.weights.shape
    if cross:
        pads = t("cross.note.pads_word") if lesson.pads_used(state) else ""
        st.markdown(t("cross.note.cross_change", n_q=n_q, n_k=n_k, pads=pads))
    else:
        st.markdown(t("cross.note.self_change", n=n_q))


def _mask_of(state: lesson.CrossState) -> tuple | None:
    """The mask the page draws in ``state``, with its rows and columns (a drag's frame of it: charts.show_mask)."""
    res = lesson.compute(state)
    if res is None or res.mask is None:
        return None
    return res.mask, list(lesson.target_tokens(state)), list(res.keys)


def _align_spec(state: lesson.CrossState, res: lesson.CrossResult | None = None) -> dict | None:
    """The alignment figure of ``state`` (None without tokens); also a drag's frame of it (show_figure ``follow``)."""
    res = lesson.compute(state) if res is None else res
    if res is None:
        return None
    cross = state.mode == "cross"
    s = res.steps
    return alignment_spec(s.weights, list(lesson.target_tokens(state)), list(res.keys), chosen=state.query,
                          title=t("cross.fig.align_title") if cross else t("cross.fig.align_self_title"),
                          target_title=t("cross.fig.target_row"),
                          source_title=t("cross.fig.source_row") if cross else t("cross.fig.target_keys_row"),
                          exact=numbers.softmax_exact(s.scaled_scores))


def alignment_section(state: lesson.CrossState, res: lesson.CrossResult) -> None:
    cross = state.mode == "cross"
    st.subheader(t("cross.sec.align"))
    st.markdown(t("cross.sec.align_help") if cross else t("cross.sec.align_help_self"))
    s = res.steps  # (the preset's note below)
    charts.show_figure(_align_spec(state, res), key="cross.fig.align", caption=t("cross.fig.align_caption"),
                       follow=_align_spec)
    if state.preset == "align" and cross and lesson.is_preset_as_given(state):
        dog, dog_source = lesson.PRESET_NOTE_CELL  # the note's numbers hold only for the example as given
        st.info(t("cross.note.align_preset", hi=numbers.num(s.weights[dog, dog_source])), icon=":material/menu_book:")


def query_section(page: runtime.Page, state: lesson.CrossState, res: lesson.CrossResult) -> None:
    tgt = list(lesson.target_tokens(state))
    st.subheader(t("cross.sec.query"))
    bind.control(page, st.selectbox, "query", t("cross.ctl.query"), value=state.query,
                 apply=lambda s, q: lesson.with_query(s, q)[0], options=list(range(len(tgt))),
                 format_func=lambda i: f"{i + 1}: {tgt[i]}")
    query.explain(state.query, tgt, list(res.keys), res.Q, res.K, res.V, res.steps, masked=res.mask is not None,
                  key="cross", follow=lambda s: (lambda r: (r.V, r.steps))(lesson.compute(s)))


def _shares_spec(state: lesson.CrossState) -> dict | None:
    """The bottleneck's shares curve of ``state`` (None when it has none: no tokens, no matching source token); also
    a drag's frame of it (show_figure ``follow``)."""
    b = lesson.bottleneck(state)
    if b is None or b.match is None:
        return None
    n = len(b.tokens)
    return shares_spec(*lesson.bottleneck_curve(state), n, names=(t("cross.fig.shares_fixed"),
                                                                  t("cross.fig.shares_mixed")),
                       marker=t("cross.fig.shares_marker", n=n), title=t("cross.fig.shares_title"),
                       x_title=t("cross.fig.shares_x"), y_title=t("cross.fig.shares_y"))


def bottleneck_section(page: runtime.Page) -> None:
    state = page.state
    st.subheader(t("cross.sec.bottleneck"))
    text.explain(t("cross.sec.bottleneck_help"))
    c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
    with c1:
        bind.control(page, st.radio, "summary", t("cross.ctl.summary"), value=state.summary,
                     apply=lesson.with_summary, options=list(lesson.SUMMARIES), horizontal=True,
                     format_func=lambda k: t("cross.ctl.summary_mean") if k == "mean" else t("cross.ctl.summary_last"))
    with c2:
        bind.control(page, st.slider, "extra", t("cross.ctl.extra"), value=state.extra, min_value=0,
                     max_value=lesson.MAX_EXTRA, step=1, apply=lesson.with_extra, help=t("cross.ctl.extra_help"))
    state = page.state
    b = lesson.bottleneck(state)
    if b is None:
        return
    tgt = lesson.target_tokens(state)
    target = escape.markdown(tgt[state.query])
    n = len(b.tokens)
    st.markdown(t("cross.bn.tokens", n=n, tokens=" / ".join(escape.markdown(x) for x in b.tokens)))
    if b.match is None:
        st.info(t("cross.bn.no_match", target=target), icon=":material/info:")
        return
    source = escape.markdown(b.tokens[b.match])
    st.markdown(t("cross.bn.match", target=target, source=source))
    charts.show_figure(_shares_spec(state), key="cross.fig.shares", follow=_shares_spec)
    raw_source, raw_target = b.tokens[b.match], tgt[state.query]
    M = np.array([b.fixed, b.mixed, b.V[b.match]])
    rows = [t("cross.bn.row_fixed"), t("cross.bn.row_mixed"), f"V: {raw_source}"]
    dims = [str(j + 1) for j in range(M.shape[1])]
    zmax = lesson.LESSON.ranges(state).get("bottleneck")
    (slot,) = charts.chart_columns(charts.heatmap_need(M, rows, dims, zmax=zmax))
    with slot:
        charts.show_heatmap("cross_bottleneck", M, rows, dims, key="cross.fig.bottleneck", zmax=zmax,
                            caption=t("cross.fig.bottleneck_caption"))

    def cos(v) -> str:
        return "—" if v is None else numbers.num(v)

    # show_table escapes every cell and header itself: the raw tokens go in
    header = [t("cross.bn.table_what"), t("cross.bn.table_share", source=raw_source),
              t("cross.bn.table_cos", source=raw_source), t("cross.bn.table_size")]
    fixed_row = t("cross.bn.fixed_mean") if state.summary == "mean" else t("cross.bn.fixed_last")
    text.show_table(header, [[fixed_row, numbers.percent(b.share_fixed), cos(b.cos_fixed), str(len(b.fixed))],
                             [t("cross.bn.mixed", target=raw_target), numbers.percent(b.share_mixed),
                              cos(b.cos_mixed), str(len(b.mixed))]], align="lrrr")
    args = dict(n=n, source=source, share=numbers.percent(b.share_fixed), weight=numbers.percent(b.share_mixed))
    if b.share_mixed <= b.share_fixed:  # these numbers do not tell the story: say what they do show
        st.markdown(t("cross.bn.summary_weak", target=target, **args))
    elif state.summary == "mean":
        st.markdown(t("cross.bn.summary_mean", **args))
    else:
        st.markdown(t("cross.bn.summary_last", **args))
    st.caption(t("cross.bn.same_size", d=len(b.fixed)))


# ---- the page ----------------------------------------------------------------------------------------------------
def live_numbers(page: runtime.Page) -> None:
    """Every heatmap, the grids, the alignment, the chosen token's arithmetic and the bottleneck."""
    state = page.state
    res = lesson.compute(state)
    page.show_notices(LIVE, toast=True)
    if res is None:
        if lesson.target_tokens(state):
            st.info(t("cross.note.no_source"), icon=":material/edit_note:")
        else:
            st.info(t("cross.note.no_target"), icon=":material/edit_note:")
        return
    def staged(stage: str, draw):
        return lambda: draw() if page.reveals(stage) else None

    weights = staged("weights", lambda: weights_section(state, res))
    parts = [lambda: inputs_section(page), staged("qkv", lambda: qkv_section(state, res)),
             staged("scores", lambda: scores_section(state, res)),
             staged("mask", lambda: mask_section(page, state, res)), weights,
             staged("align", lambda: alignment_section(state, res)),
             staged("query", lambda: query_section(page, state, res)),
             staged("bottleneck", lambda: bottleneck_section(page))]
    slots.draw_parts(parts, first=parts.index(weights))


def workbench(page: runtime.Page) -> None:
    """Sizes, seed and pads (every shape), the cell picker, then the numbers' own fragment."""
    state = page.state
    both = bool(lesson.target_tokens(state) and lesson.source_tokens(state))
    parts = [lambda: sizes(page), lambda: inputs_head(page) if both else None, lambda: page.live(live_numbers)]
    slots.draw_parts(parts, first=len(parts) - 1)


def render(page: runtime.Page) -> None:
    controls(page)
    widgets.token_notices(page.state.source, page.state.target)
    page.live(workbench)


runtime.run("cross", render)
