"""Lesson 5 — positional encoding: order lost without it, the sinusoidal table and its waves, similarity by distance,
order restored with X + PE, and RoPE (scores that depend on the distance only)."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.tokens import MAX_TEXT_CHARS
from lessons import positional as lesson
from ui import bind, charts, escape, numbers, runtime, slots, text, widgets
from ui.i18n import t
from ui.lesson_charts.positional import rope_spec, table_map_spec, waves_spec

NUMBERS_MAX = 12  # a table up to 12 × 12 has its numbers written in the cells; larger ones are colours only
DIAGONAL_SHOWN = 6  # how many values of one diagonal of PE·PEᵀ are listed


# ---- controls ----------------------------------------------------------------------------------------------------
def controls(page: runtime.Page) -> None:
    state = page.state
    if not any(page.keeps(n) for n in ("text", "text2", "seed")):
        return  # presentation mode: none of them kept
    with st.container(border=True):
        c1, c2, c3 = st.columns([2.0, 2.0, 1.3], vertical_alignment="bottom")  # the seed 9999 whole
        bind.control(page, c1.text_input, "text", t("positional.ctl.text"), value=state.text,
                     apply=lesson.with_text, max_chars=MAX_TEXT_CHARS, help=t("positional.ctl.text_help"))
        bind.control(page, c2.text_input, "text2", t("positional.ctl.text2"), value=state.text2,
                     apply=lesson.with_text2, max_chars=MAX_TEXT_CHARS, help=t("positional.ctl.text2_help"))
        bind.number(page, c3.number_input, "seed", t("positional.ctl.seed"), value=state.seed,
                    apply=lesson.with_seed, lo=0, hi=lesson.SEED_MAX, help=t("positional.ctl.seed_help"))


def sizes(page: runtime.Page) -> None:
    state = page.state
    with st.container(border=True):
        c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
        bind.control(page, c1.slider, "dm", "d_model", value=state.d_model, min_value=lesson.DM_MIN,
                     max_value=lesson.DM_MAX, step=1, apply=lesson.with_d_model, help=t("positional.ctl.dm_help"))
        bind.control(page, c2.slider, "scale", t("positional.ctl.scale"), value=state.scale, min_value=0.0,
                     max_value=lesson.SCALE_MAX, step=lesson.SCALE_STEP, apply=lesson.with_scale,
                     help=t("positional.ctl.scale_help"))
        bind.control(page, c3.select_slider, "base", t("positional.ctl.base"), value=state.base,
                     options=list(lesson.BASES), apply=lesson.with_base, help=t("positional.ctl.base_help"))


# ---- helpers -----------------------------------------------------------------------------------------------------
def _weights_row(items) -> None:
    """Weights heatmaps side by side: items = (figure name, matrix, row tokens, column tokens, key)."""
    cols = charts.chart_columns(*(charts.heatmap_need(W, r, c, weights=True) for _, W, r, c, _ in items), max_cols=3)
    for col, (name, W, r, c, key) in zip(cols, items):
        with col:
            charts.show_heatmap(name, W, r, c, weights=True, key=key)


def _order_row(state: lesson.PositionalState, weights_a, weights_b, reordered, suffix: str = "") -> None:
    """A's weights, B's, and A's re-ordered into B's order (when B re-orders A), side by side: figures
    ``pos_weights_a<suffix>``, ``pos_weights_b<suffix>``, ``pos_reordered<suffix>``."""
    a, b = list(state.tokens), list(state.tokens2)
    items = [(f"pos_weights_a{suffix}", weights_a, a, a, f"positional.fig.weights_a{suffix}")]
    if b:
        items.append((f"pos_weights_b{suffix}", weights_b, b, b, f"positional.fig.weights_b{suffix}"))
    if reordered is not None:
        items.append((f"pos_reordered{suffix}", reordered, b, b, f"positional.fig.reordered{suffix}"))
    _weights_row(items)


def _gap_line(gap: float | None, *, with_pe: bool) -> None:
    """The largest difference between B's weights and A's re-ordered ones; without a reordering, said in ① only."""
    if gap is None:
        if not with_pe:
            st.info(t("positional.out.not_reordering"), icon=":material/info:")
    elif with_pe:
        st.markdown(t("positional.out.gap_pe", gap=numbers.fixed(gap, 6)))
    else:
        st.markdown(t("positional.out.gap", gap=numbers.fixed(gap, 6)))


def _table(name: str, M, *, key: str, x_title: str, y_title: str, zlim: float | None = None,
           follow=None) -> None:
    """A table with its numbers in the cells when small (the shared heatmap), else as colours only. ``follow``:
    state → the table in that state (a drag's frames of the colour map: charts.show_figure)."""
    r, c = M.shape
    if r <= NUMBERS_MAX and c <= NUMBERS_MAX:
        charts.show_heatmap(name, M, [str(i) for i in range(r)], [str(j) for j in range(c)], key=key, zmax=zlim)
        return
    scheme = charts.color_scheme()

    def spec(M) -> dict | None:  # (None: a table the page writes with its numbers)
        if M.shape[0] <= NUMBERS_MAX and M.shape[1] <= NUMBERS_MAX:
            return None
        return table_map_spec(M, title=t(f"fig.{name}.title"), x_title=x_title, y_title=y_title,
                              hover=t(f"positional.map.{name}"), zmin=None if zlim is None else -zlim, zmax=zlim,
                              scheme=scheme)

    charts.show_figure(spec(M), key=key, caption=t("positional.out.colours_only", r=r, c=c, max=NUMBERS_MAX),
                       follow=None if follow is None else lambda s: spec(follow(s)))


# ---- sections ----------------------------------------------------------------------------------------------------
def order_lost(state: lesson.PositionalState, res: lesson.Experiment) -> None:
    st.subheader(t("positional.sec.lost"))
    text.explain(t("positional.sec.lost_help"))
    _order_row(state, res.weights_a, res.weights_b, res.reordered)
    _gap_line(res.gap, with_pe=False)


def table_section(page: runtime.Page) -> None:
    st.subheader(t("positional.sec.table"))
    text.explain(t("positional.sec.table_help"))
    text.formula(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{b^{2i/d_{model}}}\right),\quad "
                 r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{b^{2i/d_{model}}}\right)")
    state = page.state
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    bind.control(page, c1.slider, "np", t("positional.ctl.np"), value=state.n_positions, min_value=1,
                 max_value=lesson.TABLE_MAX, step=1, apply=lambda s, v: lesson.with_table(s, n_positions=v),
                 help=t("positional.ctl.np_help"))
    bind.control(page, c2.slider, "dp", t("positional.ctl.dp"), value=state.d_table, min_value=1,
                 max_value=lesson.TABLE_MAX, step=1, apply=lambda s, v: lesson.with_table(s, d_table=v),
                 help=t("positional.ctl.dp_help"))
    state = page.state
    pe = lesson.pe_table(state)
    _table("pos_table", pe, key="positional.fig.table", x_title=t("positional.axis.dim"),
           y_title=t("positional.axis.pos"), zlim=1.0, follow=lesson.pe_table)
    waves(page, pe)


def _wave_name(j: int, wavelength: str) -> str:
    if j % 2 == 0:
        return t("positional.wave.sin", j=j, i=j // 2, wavelength=wavelength)
    return t("positional.wave.cos", j=j, i=j // 2, wavelength=wavelength)


def _waves_spec(state: lesson.PositionalState, pe: np.ndarray | None = None) -> dict:
    """The waves of the chosen pair of columns with the table's points on them; drawn so, and so followed in a
    drag's frames (charts.show_figure)."""
    pe = lesson.pe_table(state) if pe is None else pe
    cols = lesson.wave_columns(state)
    names = [escape.chart(_wave_name(j, numbers.num(lesson.wavelength(state, j), 1))) for j in cols]
    xs, curves = lesson.wave_curves(state)
    return waves_spec(xs, curves, pe, cols, names, title=t("positional.wave.title"),
                      x_title=t("positional.axis.pos"), y_title=t("positional.axis.value"))


def waves(page: runtime.Page, pe: np.ndarray) -> None:
    state = page.state
    pairs = lesson.n_pairs(state.d_table)
    if pairs > 1:
        bind.control(page, st.slider, "pair", t("positional.ctl.pair"), value=state.pair, min_value=0,
                     max_value=pairs - 1, step=1, apply=lesson.with_pair, help=t("positional.ctl.pair_help"))
    state = page.state
    charts.show_figure(_waves_spec(state, pe), key="positional.fig.waves", follow=_waves_spec)
    st.caption(t("positional.wave.caption"))


def similarity_section(state: lesson.PositionalState) -> None:
    st.subheader(t("positional.sec.similar"))
    text.explain(t("positional.sec.similar_help"))
    sim, vals = lesson.similarity(state)
    _table("pos_sim", sim, key="positional.fig.sim", x_title=t("positional.axis.pos"),
           y_title=t("positional.axis.pos"), follow=lambda s: lesson.similarity(s)[0])
    if not vals.size:  # one position: no two to compare
        return
    shown = [numbers.fixed(v, 6) for v in vals[:DIAGONAL_SHOWN]] + (["…"] if len(vals) > DIAGONAL_SHOWN else [])
    st.markdown(t("positional.out.diagonal", values=t("positional.out.sep").join(shown),
                  spread=numbers.fixed(vals.max() - vals.min(), 6), n=len(vals)))
    if state.d_table % 2:
        st.caption(t("positional.out.odd_width", d=state.d_table))


def order_restored(state: lesson.PositionalState, res: lesson.Experiment) -> None:
    st.subheader(t("positional.sec.restored"))
    text.explain(t("positional.sec.restored_help", scale=numbers.num(state.scale, 2), d=state.d_model))

    def scale_zero() -> None:
        if state.scale == 0:
            st.info(t("positional.out.scale_zero"), icon=":material/info:")

    slots.keep_place(scale_zero)  # (there or not, in a place of its own: a drag through 0 blanks no chart below)
    a = list(state.tokens)
    dims = [str(j) for j in range(state.d_model)]
    mats = (("pos_x_a", res.X_a), ("pos_pe_a", res.PE_a), ("pos_sum_a", res.sum_a))
    cols = charts.chart_columns(*(charts.heatmap_need(M, a, dims) for _, M in mats), max_cols=3)
    for col, (name, M) in zip(cols, mats):
        with col:
            charts.show_heatmap(name, M, a, dims, role="X", key=f"positional.fig.{name}")
    _order_row(state, res.weights_a_pe, res.weights_b_pe, res.reordered_pe, "_pe")
    _gap_line(res.gap_pe, with_pe=True)


def _rope_spec(state: lesson.PositionalState, res: lesson.Experiment | None = None) -> dict | None:
    """RoPE's score against the key's position for the two query positions; drawn so, and so followed in a drag's
    frames (charts.show_figure). None without tokens."""
    res = lesson.experiment(state) if res is None else res
    if res is None:
        return None
    rows = lesson.rope_scores(state, res)[2]
    ns, first, second = lesson.rope_curves(state, res)
    m, sh = state.rope_m, state.rope_shift
    names = [escape.chart(t("positional.rope.curve", m=m)), escape.chart(t("positional.rope.curve", m=m + sh))]
    points = escape.chart(t("positional.rope.points", ns=t("positional.out.sep").join(str(n) for _, n, _ in rows)))
    return rope_spec(ns, first, second, [(n, v) for _, n, v in rows], names, points, title=t("positional.rope.title"),
                     x_title=t("positional.rope.n"), y_title=t("positional.rope.score"))


def rope_section(page: runtime.Page, res: lesson.Experiment) -> None:
    st.subheader(t("positional.sec.rope"))
    text.explain(t("positional.sec.rope_help"))
    text.formula(r"\tilde q_m = R_{m}\,q,\ \ \tilde k_n = R_{n}\,k,\qquad \tilde q_m\cdot\tilde k_n = "
                 r"q\cdot R_{n-m}\,k,\qquad \theta_i = b^{-2i/d}")
    state = page.state
    c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
    for col, name, value, lo in ((c1, "rm", state.rope_m, 0), (c2, "rn", state.rope_n, 0),
                                 (c3, "sh", state.rope_shift, 1)):
        arg = {"rm": "m", "rn": "n", "sh": "shift"}[name]
        bind.control(page, col.slider, name, t(f"positional.ctl.{name}"), value=value, min_value=lo,
                     max_value=lesson.POS_MAX, step=1, apply=lambda s, v, arg=arg: lesson.with_rope(s, **{arg: v}))
    state = page.state
    q, k, rows = lesson.rope_scores(state, res)
    toks = list(state.tokens)
    st.markdown(t("positional.out.rope_vectors", q=_vec(q), k=_vec(k),
                  q_tok=escape.markdown(toks[0]), k_tok=escape.markdown(toks[min(1, len(toks) - 1)])))
    header = [t("positional.rope.m"), t("positional.rope.n"), t("positional.rope.dist"), t("positional.rope.score")]
    text.show_table(header, [[numbers.fixed(m, 0), numbers.fixed(n, 0), numbers.fixed(n - m, 0), numbers.fixed(s, 6)]
                             for m, n, s in rows], align="rrrr")
    charts.show_figure(_rope_spec(state, res), key="positional.fig.rope",
                       caption=t("positional.rope.caption", shift=state.rope_shift), follow=_rope_spec)
    same = abs(rows[0][2] - rows[1][2])
    st.markdown(t("positional.out.rope_same", diff=numbers.fixed(same, 6)))
    a, b = toks, list(state.tokens2)
    items = [("pos_weights_a_pe", res.weights_a_pe, a, a, "positional.fig.rope_pe"),
             ("pos_weights_a_rope", res.weights_a_rope, a, a, "positional.fig.weights_a_rope")]
    if b:
        items.append(("pos_weights_b_rope", res.weights_b_rope, b, b, "positional.fig.weights_b_rope"))
    _weights_row(items)
    st.caption(t("positional.out.rope_caption"))
    if res.gap_rope is not None:
        st.markdown(t("positional.out.gap_rope", gap=numbers.fixed(res.gap_rope, 6)))


def _vec(v) -> str:
    return "[" + ", ".join(numbers.fixed(x, 2) for x in v) + "]"


# ---- the page ----------------------------------------------------------------------------------------------------
def live_numbers(page: runtime.Page) -> None:
    state = page.state
    res = lesson.experiment(state)
    parts = []
    if res is None:
        parts.append(lambda: st.info(t("tokens.no_tokens"), icon=":material/edit_note:"))
    else:
        parts.append(lambda: order_lost(state, res) if page.reveals("lost") else None)
    parts += [lambda: table_section(page) if page.reveals("table") else None,
              lambda: similarity_section(page.state) if page.reveals("similar") else None]
    if res is not None:
        parts += [lambda: order_restored(state, res) if page.reveals("restored") else None,
                  lambda: rope_section(page, res) if page.reveals("rope") else None]
    slots.draw_parts(parts, first=0)


def workbench(page: runtime.Page) -> None:
    sizes(page)
    live_numbers(page)


def render(page: runtime.Page) -> None:
    controls(page)
    widgets.token_notices(page.state.text, page.state.text2)
    page.live(workbench)


runtime.run("positional", render)
