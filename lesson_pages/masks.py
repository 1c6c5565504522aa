"""Lesson 3 — masks: the causal mask as a step, generation one token at a time, padding in a batch, a custom mask."""
from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core.tokens import MAX_TEXT_CHARS
from lessons import masks as lesson
from ui import bind, charts, draw, escape, numbers, runtime, slots, text, widgets
from ui.i18n import t

FLOW = [("weights", "flow.scores"), ("weights", "flow.scale"), ("mask", "masks.flow.mask"),
        ("mask", "masks.flow.masked"), ("weights", "flow.softmax"), ("out", "flow.mix")]


def _token_list(toks) -> str:
    return " / ".join(escape.markdown(x) for x in toks)


def qkv_folded(key: str, toks, seed: int) -> None:
    """Q, K and V of these tokens in a folded expander, so a student can recompute the section's numbers; built only
    while open (three charts cost a rerun's time)."""
    box = st.expander(t("masks.qkv.title", tokens=" ".join(escape.markdown(x) for x in toks)),
                      icon=":material/calculate:", key=key, on_change="rerun")
    if not box.open:
        return
    with box:
        st.caption(t("masks.qkv.help", seed=seed, d=lesson.D_K, root=numbers.num(np.sqrt(lesson.D_K))))
        mats = dict(zip("QKV", lesson.projections(toks, seed)))
        labels = {n: charts.matrix_labels(n, toks, *M.shape) for n, M in mats.items()}
        cols = charts.chart_columns(*(charts.heatmap_need(M, *labels[n]) for n, M in mats.items()), max_cols=3)
        for col, (n, M) in zip(cols, mats.items()):
            with col:
                charts.show_heatmap(n + "_out", M, *labels[n], role=n, key=f"{key}.{n}")


# ---- ① the causal mask, as a step --------------------------------------------------------------------------------
def causal_section(page: runtime.Page) -> None:
    if not page.reveals("mask", "weights"):
        return
    st.header(t("masks.sec.causal"))
    text.explain(t("masks.sec.causal_help"))
    state = page.state
    c1, c2, c3 = st.columns([3, 1.2, 1.2], vertical_alignment="bottom")
    bind.control(page, c1.text_input, "text", t("masks.ctl.text"), value=state.text, apply=lesson.with_text,
                 max_chars=MAX_TEXT_CHARS, help=t("masks.ctl.text_help"))
    bind.field(page, c2.toggle, "causal", t("masks.ctl.causal"), convert=bool, help=t("masks.ctl.causal_help"))
    bind.number(page, c3.number_input, "seed", t("masks.ctl.seed"), value=state.seed, apply=bind.setter("seed", int),
                lo=0, hi=lesson.SEED_MAX, help=t("masks.ctl.seed_help"))
    state = page.state
    widgets.token_notices(state.text)
    steps = lesson.causal_steps(state)
    if steps is None:
        st.info(t("tokens.no_tokens"), icon=":material/edit_note:")
        return
    if not page.presenting:
        draw.pipeline_strip(FLOW)
    toks = list(lesson.tokens(state.text))
    allowed = np.isfinite(steps.scaled_scores)
    ranges = lesson.LESSON.ranges(state)
    # (need, draw): the scaled scores and the mask added to them; then the masked scores and their weights
    shown = []
    if page.reveals("mask"):
        shown += [(charts.heatmap_need(steps.scores * steps.scale, toks, toks, zmax=ranges.get("scaled_scores")),
                   lambda: charts.show_heatmap(
                       "scaled", steps.scores * steps.scale, toks, toks, key="masks.fig.scaled",
                       caption=t("fig.scaled.caption", d_k=lesson.D_K, root=numbers.num(np.sqrt(lesson.D_K))),
                       zmax=ranges.get("scaled_scores"))),
                  (charts.mask_need(allowed, toks, toks, additive=True),
                   lambda: charts.show_mask("mask_add", allowed, toks, toks, additive=True, key="masks.fig.mask_add",
                                            caption=t("masks.out.mask_caption")))]
    if page.reveals("weights"):
        shown += [(charts.heatmap_need(steps.scaled_scores, toks, toks, zmax=ranges.get("masked_scores")),
                   lambda: charts.show_heatmap("masked", steps.scaled_scores, toks, toks, key="masks.fig.masked",
                                               caption=t("masks.out.masked_caption"),
                                               zmax=ranges.get("masked_scores"))),
                  (charts.heatmap_need(steps.weights, toks, toks, weights=True),
                   lambda: charts.show_heatmap("weights", steps.weights, toks, toks, weights=True,
                                               key="masks.fig.weights", masked=True,
                                               exact=numbers.softmax_exact(steps.scaled_scores),
                                               caption=text.join_sentences([t("fig.weights.caption"),
                                                                            t("num.row_sums")])))]
    for slot, (_, show) in zip(charts.chart_columns(*(need for need, _ in shown), max_cols=2), shown):
        with slot:
            show()
    st.info(t("masks.out.causal_on" if state.causal else "masks.out.causal_off"), icon=":material/visibility_off:")
    if not page.presenting:
        qkv_folded("masks.qkv_causal", toks, state.seed)


# ---- ② generation, one token at a time ---------------------------------------------------------------------------
def generation_section(page: runtime.Page) -> None:
    if not page.reveals("generation"):
        return
    state = page.state
    toks = lesson.tokens(state.text)
    if not toks:
        return
    st.header(t("masks.sec.gen"))
    text.explain(t("masks.sec.gen_help"))
    if len(toks) > 1:
        bind.control(page, st.slider, "step", t("masks.ctl.step"), value=state.step + 1,
                     apply=lesson.with_step_shown, min_value=1, max_value=len(toks),
                     help=t("masks.ctl.step_help"))
    state = page.state
    step = min(state.step, len(toks) - 1)
    tt = step + 1
    alone, full_row = lesson.generation_step(state)
    if tt < len(toks):
        st.markdown(t("masks.out.visible", t=tt, tokens=_token_list(toks[:tt]), hidden=_token_list(toks[tt:])))
    else:
        st.markdown(t("masks.out.visible_all", t=tt))
    labels = list(toks)
    charts.show_heatmap("step_alone", alone[None, :], [labels[step]], labels[:tt], weights=True,
                        key="masks.fig.step_alone", title_args={"t": tt, "token": escape.chart(toks[step])})
    charts.show_heatmap("step_full", full_row[None, :], [labels[step]], labels, weights=True,
                        key="masks.fig.step_full", title_args={"t": tt})
    diff = float(np.max(np.abs(alone - full_row[:tt])))
    if diff < 1e-12 and not full_row[tt:].any():
        # diff < 10⁻¹²: "0", or "<0.000001" (a decimal, never "1e-16"; ui.numbers.prob)
        st.success(t("masks.out.same", diff=numbers.prob(diff, 6)), icon=":material/check_circle:")
    else:  # cannot happen (a test holds it); said in words rather than hidden
        st.error(t("masks.out.differs", diff=numbers.num(diff, 6)))


# ---- ③ padding in a batch ----------------------------------------------------------------------------------------
def padding_section(page: runtime.Page) -> None:
    if not page.reveals("padding"):
        return
    st.header(t("masks.sec.pad"))
    text.explain(t("masks.sec.pad_help"))
    state = page.state
    c1, c2, c3 = st.columns([2.6, 1.4, 1.6], vertical_alignment="bottom")
    bind.control(page, c1.text_input, "text2", t("masks.ctl.text2"), value=state.text2, apply=lesson.with_text2,
                 max_chars=MAX_TEXT_CHARS, help=t("masks.ctl.text2_help"))
    bind.control(page, c2.slider, "extra_pad", t("masks.ctl.extra_pad"), value=state.extra_pad,
                 apply=lesson.with_extra_pad, min_value=0, max_value=lesson.MAX_EXTRA_PAD, step=1,
                 help=t("masks.ctl.extra_pad_help"))
    bind.field(page, c3.toggle, "padding", t("masks.ctl.padding"), convert=bool, help=t("masks.ctl.padding_help"))
    state = page.state
    widgets.token_notices(state.text2)
    b = lesson.batch(state)
    if b.length == 0:
        return
    if lesson.pads_cut(state):
        st.warning(t("masks.out.pads_cut", n=lesson.pads_cut(state), max=lesson.MAX_TOKENS),
                   icon=":material/content_cut:")
    st.markdown("**" + t("masks.out.batch", L=b.length) + "**")
    text.show_table(["", *[str(k + 1) for k in range(b.length)]],
                    [[str(i + 1), *row] for i, row in enumerate(b.tokens)])
    bind.field(page, st.radio, "item", t("masks.ctl.item"), convert=int, options=[0, 1], horizontal=True,
               format_func=lambda i: t("masks.item.label", b=i + 1,
                                       tokens=" ".join(escape.markdown(x) for x in b.tokens[i])))
    state = page.state
    toks = list(b.tokens[state.item])
    causal, pad, both = lesson.batch_masks(state)
    cols = charts.chart_columns(*(charts.mask_need(m, toks, toks) for m in (causal, pad, both)), max_cols=3)
    for col, name, m in zip(cols, ("causal", "padding", "combined"), (causal, pad, both)):
        with col:
            charts.show_mask("mask_bool", m, toks, toks, key=f"masks.fig.bool_{name}",
                             title=t(f"fig.mask_bool.{name}"))
    st.caption(t("fig.mask_bool.legend"))
    st.caption(t("masks.out.combine"))
    steps = lesson.batch_steps(state)
    dims = [str(k + 1) for k in range(steps.output.shape[1])]
    c1, c2 = charts.chart_columns(charts.heatmap_need(steps.weights, toks, toks, weights=True),
                                  charts.heatmap_need(steps.output, toks, dims,
                                                    zmax=lesson.LESSON.ranges(state).get("batch_output")))
    with c1:
        charts.show_heatmap("weights", steps.weights, toks, toks, weights=True, key="masks.fig.batch_weights",
                            masked=True,
                            exact=numbers.softmax_exact(steps.scaled_scores),
                            caption=text.join_sentences([t("fig.weights.caption"), t("num.row_sums")]))
    with c2:
        charts.show_heatmap("out", steps.output, toks, dims, role="out", key="masks.fig.batch_out",
                            zmax=lesson.LESSON.ranges(state).get("batch_output"))
    qkv_folded("masks.qkv_batch", toks, state.seed)
    pads = np.flatnonzero(b.is_pad[state.item])
    if not pads.size:
        st.info(t("masks.out.no_pad"), icon=":material/info:")
    elif not state.padding:
        st.warning(t("masks.out.padding_off"), icon=":material/warning:")
    else:
        st.info(t("masks.out.pad_rows", rows=", ".join(str(i + 1) for i in pads)), icon=":material/info:")


# ---- ④ a row with nothing to attend to ---------------------------------------------------------------------------
def custom_section(page: runtime.Page) -> None:
    if not page.reveals("custom"):
        return
    state = page.state
    b = lesson.batch(state)
    if b.length == 0:
        return
    st.header(t("masks.sec.custom"))
    text.explain(t("masks.sec.custom_help"))
    toks = list(b.tokens[state.item])
    st.segmented_control(t("masks.ctl.start"), list(lesson.CUSTOM_STARTS), key=page.key("start"),
                         format_func=lambda k: t(f"masks.start.{k}"), help=t("masks.ctl.start_help"),
                         on_change=lambda: _start(page))
    st.caption(t("masks.ctl.editor_help"))
    widgets.mask_editor(page.key("custom"), lesson.custom_mask(state), toks, toks,
                        commit=lambda m: page.apply(lesson.with_custom, m),
                        current=lambda: lesson.custom_mask(page.state),
                        notify=lambda code, args: page.notify(code, args, place="custom"),
                        name=t("fig.mask_bool.custom"))
    page.show_notices("custom")  # under the grid: drawing it may add one (cells ticked that a new length cut off)
    steps = lesson.custom_steps(page.state)
    empty = np.flatnonzero(steps.fully_masked)
    if empty.size:
        rows = t("masks.out.row_sep").join(t("masks.out.row_item", i=i + 1, token=escape.markdown(toks[i]))
                                            for i in empty)
        st.warning(t("masks.out.empty_rows", n=empty.size, rows=rows), icon=":material/block:")
    if not empty.size:
        st.success(t("masks.out.all_rows_ok"), icon=":material/check_circle:")
    dims = [str(k + 1) for k in range(steps.output.shape[1])]
    c1, c2 = charts.chart_columns(charts.heatmap_need(steps.weights, toks, toks, weights=True),
                                  charts.heatmap_need(steps.output, toks, dims,
                                                    zmax=lesson.LESSON.ranges(page.state).get("custom_output")))
    with c1:
        charts.show_heatmap("weights", steps.weights, toks, toks, weights=True, key="masks.fig.custom_weights",
                            masked=True, exact=numbers.softmax_exact(steps.scaled_scores), highlight_rows=empty,
                            caption=t("masks.out.weights_caption_empty") if empty.size
                            else text.join_sentences([t("fig.weights.caption"), t("num.row_sums")]))
    with c2:
        charts.show_heatmap("out", steps.output, toks, dims, role="out", key="masks.fig.custom_out",
                            highlight_rows=empty, zmax=lesson.LESSON.ranges(page.state).get("custom_output"),
                            caption=t("masks.out.output_caption_empty") if empty.size else None)


def _start(page: runtime.Page) -> None:
    start = st.session_state.get(page.key("start"))
    if start:
        page.apply(lesson.with_custom_start, start)
    st.session_state[page.key("start")] = None  # a choice is an action, not a lasting setting


def render(page: runtime.Page) -> None:
    slots.sections(page, causal_section, generation_section, padding_section, custom_section)


runtime.run("masks", render)
