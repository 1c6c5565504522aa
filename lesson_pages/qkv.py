"""Lesson 1 — Q·K·V step by step: tokens → X → Q, K, V → scores → ÷√d_k → softmax → weights·V."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import lessons as L
from attention_core import share
from attention_core.tokens import MAX_TEXT_CHARS, MAX_TOKENS, tokenize
from ui import draw, session, widgets
from ui import figures as F
from ui.i18n import t

PAGE = "qkv"
GRID = "qkv.grid"
LIVE = "qkv.live"
CELL = "qkv.cell"  # the one-cell slider's widgets: qkv.cell:m / :i / :j (picker), qkv.cell:v (slider)
K = {name: f"qkv.{name}" for name in ("preset", "text", "mode", "dm", "dk", "dv", "seed", "query")}


# ---- callbacks: widget value → lesson state --------------------------------------------------------------------
def _set(fn, *args, **kwargs):
    session.update(PAGE, fn, *args, **kwargs)


def _on_text():
    old = session.load(PAGE, share.decode_qkv)
    new = L.with_text(old, st.session_state[K["text"]])
    if new.n and old.query > new.n - 1:
        session.push_notices(PAGE, [("query_clamped", {"asked": old.query + 1, "used": new.query + 1})])
    session.store(PAGE, new)


def _notify_live(code, args):  # from a widget inside lesson(): shown there (a fragment rerun skips the top)
    session.push_notices(LIVE, [(code, args)])


def _notify_grid(code, args):  # shown next to the grids, where the person is typing
    session.push_notices(GRID, [(code, args)])


def _commit_matrix(name):
    return lambda M: _set(L.with_matrix, name, M)


def _commit_cell(name, i, j, v):
    try:
        _set(L.with_cell, name, i, j, v)
    except L.CellError as e:
        _notify_live("cell_refused", dict(matrix=name, row=i + 1, col=j + 1, reason=t(f"reason.{e.code}", **e.args_)))


# ---- controls ----------------------------------------------------------------------------------------------------
def controls(state: L.QKVState) -> None:
    """Example, sentence, input mode: these change what the whole page is about (a full rerun)."""
    for key, value in (("preset", state.preset), ("text", state.text), ("mode", state.mode)):
        session.sync(K[key], value)
    with st.container(border=True):
        c1, c2, c3 = st.columns([1.2, 2, 1.3])
        c1.selectbox(t("qkv.preset"), list(L.PRESETS), key=K["preset"], format_func=lambda k: t(f"preset.{k}"),
                     on_change=lambda: _set(L.with_preset, st.session_state[K["preset"]]))
        c1.button(t("qkv.reset"), key="qkv.reset", icon=":material/restart_alt:", help=t("qkv.reset_help"),
                  on_click=lambda: _set(L.with_preset, state.preset))
        c2.text_input(t("qkv.text"), key=K["text"], max_chars=MAX_TEXT_CHARS, help=t("qkv.text_help"),
                      on_change=_on_text)
        c3.radio(t("qkv.mode"), ["xw", "direct"], key=K["mode"], format_func=lambda m: t(f"mode.{m}"),
                 on_change=lambda: _set(L.with_mode, st.session_state[K["mode"]]), horizontal=True)


def size_sliders(state: L.QKVState) -> None:
    """d_model, d_k, d_v and the seed (inside the workbench fragment)."""
    for key, value in (("dm", state.d_model), ("dk", state.d_k), ("dv", state.d_v), ("seed", state.seed)):
        session.sync(K[key], value)
    with st.container(border=True):
        s1, s2, s3, s4 = st.columns(4)
        dim = dict(min_value=L.DIM_MIN, max_value=L.DIM_MAX, step=1)
        if state.mode == "xw":
            s1.slider("d_model", key=K["dm"], help=t("qkv.dm_help"), **dim,
                      on_change=lambda: _set(L.with_sizes, d_model=st.session_state[K["dm"]]))
        else:
            s1.caption(t("qkv.dm_direct"))
        s2.slider("d_k", key=K["dk"], help=t("qkv.dk_help"), **dim,
                  on_change=lambda: _set(L.with_sizes, d_k=st.session_state[K["dk"]]))
        s3.slider("d_v", key=K["dv"], help=t("qkv.dv_help"), **dim,
                  on_change=lambda: _set(L.with_sizes, d_v=st.session_state[K["dv"]]))
        s4.slider(t("qkv.seed"), min_value=0, max_value=L.SEED_MAX, step=1, key=K["seed"], help=t("qkv.seed_help"),
                  on_change=lambda: _set(L.with_seed, st.session_state[K["seed"]]))


def token_notices(state: L.QKVState) -> None:
    tok = tokenize(state.text)
    if tok.truncated:
        st.warning(t("notice.too_many_tokens", n=tok.n_found, max=MAX_TOKENS), icon=":material/content_cut:")
    if tok.splitter == "janome":
        st.caption(t("qkv.split_janome", tokens=" / ".join(draw.md_escape(x) for x in tok.tokens)))
    if len(set(tok.tokens)) < len(tok.tokens):
        st.caption(t("qkv.duplicates"))


# ---- sections ----------------------------------------------------------------------------------------------------
def _labels(state: L.QKVState) -> dict[str, tuple[list[str], list[str]]]:
    return {n: draw.matrix_labels(n, state.tokens, *state.mats[n].shape) for n in L.active_matrices(state.mode)}


def inputs_head(state: L.QKVState) -> None:
    """The inputs section's title and the cell picker: outside the fragment (see lesson)."""
    st.subheader(t("qkv.sec.inputs" if state.mode == "xw" else "qkv.sec.inputs_direct"))
    st.caption(t("qkv.sec.inputs_help" if state.mode == "xw" else "qkv.sec.inputs_direct_help"))
    st.markdown(t("cell.title"))
    widgets.cell_picker(CELL, _labels(state))


def inputs_section(state: L.QKVState) -> None:
    names = L.active_matrices(state.mode)
    labels = _labels(state)
    name, i, j = widgets.picked_cell(CELL, {n: state.mats[n].shape for n in names})
    widgets.cell_slider(CELL, state.mats[name], name, i, j, _commit_cell)
    wide = max(max(state.mats[n].shape) for n in names) > 8
    cols = st.columns(1 if wide else 2)
    for k, n in enumerate(names):
        with cols[k % len(cols)]:
            role = n if n in ("X", "Q", "K", "V") else "W"
            draw.show_heatmap(n, state.mats[n], *labels[n], role=role, key=f"qkv.fig.{n}")
    grids = st.expander(t("qkv.edit_grids"), icon=":material/edit:", key="qkv.grids", on_change="rerun")
    if grids.open:  # built only while open, and only the chosen tab's grid: a grid costs more than all heatmaps
        with grids:
            st.caption(t("qkv.edit_help"))
            widgets.show_notices(session.pop_notices(GRID), toast=True)
            tabs = st.tabs(list(names), key=f"qkv.grid_tab.{state.mode}", on_change="rerun")
            for n, tab in zip(names, tabs):
                if tab.open:
                    with tab:
                        widgets.matrix_editor(f"qkv.grid.{n}", state.mats[n], *labels[n], name=n,
                                              commit=_commit_matrix(n), notify=_notify_grid)


def qkv_section(state: L.QKVState, res: L.QKVResult) -> None:
    st.subheader(t("qkv.sec.qkv"))
    st.caption(t("qkv.sec.qkv_help"))
    widest = max(state.d_k, state.d_v)
    cols = st.columns(3 if widest <= 3 else 2 if widest <= 6 else 1)
    for k, (n, M) in enumerate((("Q", res.Q), ("K", res.K), ("V", res.V))):
        with cols[k % len(cols)]:
            draw.show_heatmap(n + "_out", M, *draw.matrix_labels(n, state.tokens, *M.shape), role=n,
                              key=f"qkv.fig.{n}_out", highlight_row=state.query if n == "Q" else None)


def scores_section(state: L.QKVState, res: L.QKVResult) -> None:
    s = res.steps
    toks = list(state.tokens)
    st.subheader(t("qkv.sec.scores"))
    c1, c2 = st.columns(2) if state.n <= 8 else (st.container(), st.container())
    with c1:
        draw.show_heatmap("scores", s.scores, toks, toks, key="qkv.fig.scores", highlight_row=state.query,
                          caption=t("fig.scores.caption"))
    with c2:
        draw.show_heatmap("scaled", s.scaled_scores, toks, toks, key="qkv.fig.scaled", highlight_row=state.query,
                          caption=t("fig.scaled.caption", d_k=state.d_k, root=f"{np.sqrt(state.d_k):.3f}"))
    st.subheader(t("qkv.sec.weights"))
    c1, c2 = st.columns([3, 2]) if state.n <= 8 and state.d_v <= 6 else (st.container(), st.container())
    with c1:
        draw.show_heatmap("weights", s.weights, toks, toks, weights=True, key="qkv.fig.weights",
                          highlight_row=state.query, caption=t("fig.weights.caption"))
    with c2:
        out_labels = draw.matrix_labels("out", toks, *s.output.shape)
        draw.show_heatmap("out", s.output, *out_labels, role="out", key="qkv.fig.out",
                          highlight_row=state.query, caption=t("fig.out.caption"))


def _factor(v: float) -> str:  # a negative factor in brackets, with a real minus sign: 2×(−0.4)
    text = draw.num(v)
    return f"({text.replace('-', '−')})" if text.startswith("-") else text


def _sum_of_products(q, k) -> str:
    """q·k written out as a sum of products; past 6 terms the first 3 and the last 2, with … between."""
    pairs = list(zip(q, k))
    shown = pairs if len(pairs) <= 6 else pairs[:3] + [None] + pairs[-2:]
    return " + ".join("…" if p is None else f"{_factor(p[0])}×{_factor(p[1])}" for p in shown)


def _tiny(v: float) -> str:
    """A positive number that may be very small (e^x, a weight): never written as 0 (e^x never is)."""
    return draw.num(v) if v >= 5e-4 or v == 0 else f"{v:.1e}"


def _percent(w: float) -> str:
    return f"{100 * w:.1f}%" if w >= 5e-4 or w == 0 else "< 0.1%"


def query_section(state: L.QKVState, res: L.QKVResult) -> None:
    toks = list(state.tokens)
    session.sync(K["query"], state.query)
    st.subheader(t("qkv.sec.query"))
    st.selectbox(t("qkv.query"), list(range(state.n)), key=K["query"], format_func=lambda i: f"{i + 1}: {toks[i]}",
                 on_change=lambda: _set(lambda s, q: L.with_query(s, q)[0], st.session_state[K["query"]]))
    i = state.query
    s = res.steps
    q = res.Q[i]
    scaled = s.scaled_scores[i]
    e = np.exp(scaled - scaled.max())
    qname = draw.latex_text(toks[i])
    st.markdown(t("qkv.explain", token=draw.md_escape(toks[i]), d_k=state.d_k))
    st.latex(r"s_j = \frac{q_{%s}\cdot k_j}{\sqrt{d_k}},\qquad \sqrt{%d} = %s" % (qname, state.d_k,
                                                                                  draw.num(np.sqrt(state.d_k))))
    st.latex(r"w_j = \mathrm{softmax}(s)_j = \frac{e^{s_j}}{\sum_m e^{s_m}} = \frac{e^{s_j - s_{\max}}}"
             r"{\sum_m e^{s_m - s_{\max}}},\qquad \sum_m e^{s_m - s_{\max}} = %s" % draw.num(e.sum()))
    header = [t(f"qkv.tbl.{c}") for c in ("key", "products", "score", "scaled", "exp", "weight")]
    rows = [[f"{j + 1}: {tok}", _sum_of_products(q, res.K[j]), draw.num(s.scores[i, j]), draw.num(scaled[j]),
             _tiny(e[j]), _percent(s.weights[i, j])] for j, tok in enumerate(toks)]
    st.markdown(draw.markdown_table(header, rows, align="llrrrr"))
    c1, c2 = st.columns(2)
    with c1:
        draw.show_figure(F.bars_spec(s.weights[i], toks, title=t("fig.qbars.title", token=F.escape(toks[i])),
                                     percent=True, y_range=(0, 1.12), hover=t("fig.qbars.hover")),
                         key="qkv.fig.qbars")
    with c2:
        draw.show_figure(F.vector_mix_spec(res.V, s.weights[i], s.output[i], toks, out_label=t("fig.mix.out"),
                                           dim_title=t("fig.mix.dim"),
                                           title=t("fig.mix.title", token=F.escape(toks[i]))),
                         key="qkv.fig.mix")
    terms = " + ".join(r"%s\,v_{%s}" % (_tiny(w), draw.latex_text(tok)) for w, tok in zip(s.weights[i], toks))
    if state.n > 6:
        terms = r"\sum_j w_j v_j"
    vec = r"\begin{bmatrix}" + " & ".join(draw.num(v) for v in s.output[i]) + r"\end{bmatrix}"
    st.latex(r"z_{%s} = %s = %s" % (qname, terms, vec))
    st.caption(t("qkv.explain_out"))


def preset_notes(state: L.QKVState, res: L.QKVResult) -> None:
    if state.preset in ("dog", "direct3", "school") and L.is_preset_as_given(state):  # its numbers hold
        st.info(t(f"qkv.note.{state.preset}"), icon=":material/menu_book:")
    if state.n > 1 and np.all(res.K == res.K[0]):
        st.info(t("qkv.note.same_keys", key="[" + ", ".join(draw.num(v) for v in res.K[0]) + "]", n=state.n,
                  share=f"{100 / state.n:.1f}"), icon=":material/lightbulb:")


# ---- reruns: what a widget changes is what reruns ----------------------------------------------------------------
# main (full rerun: example, sentence, mode; the frame too)
#  └─ workbench  st.fragment: sizes and seed change every matrix's shape, so the cell picker is redrawn with them
#      └─ lesson st.fragment: the cell slider, the grids and the chosen query change numbers, not shapes
# A fragment rerun does not run the frame: session.publish keeps the address bar and the share panel current.
@st.fragment
def lesson() -> None:
    """The numbers: heatmaps of every stage, the grids, the chosen query's arithmetic."""
    state = session.load(PAGE, share.decode_qkv)
    session.publish(share.encode_qkv(state))
    res = L.compute(state)
    if res is None:
        st.info(t("qkv.no_tokens"), icon=":material/edit_note:")
        return
    widgets.show_notices(session.pop_notices(LIVE), toast=True)
    inputs_section(state)
    if state.mode == "xw":
        qkv_section(state, res)
    scores_section(state, res)
    query_section(state, res)
    preset_notes(state, res)


@st.fragment
def workbench() -> None:
    """The size sliders and seed, the flow of the computation, the cell picker, then the lesson."""
    size_sliders(session.load(PAGE, share.decode_qkv))
    state = session.load(PAGE, share.decode_qkv)
    draw.pipeline_strip()
    if state.n:
        inputs_head(state)
    lesson()


def main() -> None:
    state = session.load(PAGE, share.decode_qkv)
    st.title(t("qkv.title"))
    st.markdown(t("qkv.intro"))
    widgets.show_notices(session.pop_notices(PAGE))
    controls(state)
    token_notices(session.load(PAGE, share.decode_qkv))
    workbench()

main()
