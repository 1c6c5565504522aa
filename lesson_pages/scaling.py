"""Lesson 2 — scaling and softmax: the 3-books exercise, why √d_k (the variance lab), temperature."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import streamlit as st

from attention_core import scaling as S
from attention_core import scaling_lesson as SL
from ui import draw, session, widgets
from ui import figures as F
from ui.i18n import t

PAGE = "scaling"
N_SAMPLES = 20_000  # q, k pairs in the variance lab
N_DRAWS = 1_000  # rows per d_k in the saturation chart
T_GRID = np.geomspace(0.05, 20.0, 160)


def key(name: str) -> str:
    return f"scaling.{name}"


# ---- cached core calls (pure functions of their arguments) -------------------------------------------------------
@st.cache_data(max_entries=64, show_spinner=False)
def _variance(d_k: int, seed: int):
    lab = S.variance_lab(d_k, N_SAMPLES, seed)
    half = 4.0 * max(np.sqrt(d_k), 1.0)
    centers, raw = S.density_histogram(lab.raw, -half, half, bins=61)
    _, scaled = S.density_histogram(lab.scaled, -half, half, bins=61)
    return lab.var_raw, lab.var_scaled, centers, raw, scaled


@st.cache_data(max_entries=64, show_spinner=False)
def _saturation(n_keys: int, seed: int) -> S.SaturationCurves:
    return S.saturation_curves(S.SATURATION_DKS, n_keys, N_DRAWS, seed)


# ---- state ↔ widgets ------------------------------------------------------------------------------------------------
def _state() -> SL.ScalingState:
    return session.load(PAGE, SL.decode)


def _set(fn, *args, **kwargs):
    session.update(PAGE, fn, *args, **kwargs)


def _replace(**changes):
    _set(lambda s: replace(s, **changes))


def titles(state: SL.ScalingState) -> list[str]:
    return [x or t(f"scaling.book.default_{i + 1}") for i, x in enumerate(state.titles)]


def query_text(state: SL.ScalingState) -> str:
    return state.query or t("scaling.book.query_default")


def _md(text: str) -> str:
    """User text inside markdown: shown as typed (no emphasis, links or HTML)."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$])", r"\\\1", text)


def pct(w: float) -> str:
    return f"{100 * w:.1f}%"


def shares_text(names, weights) -> str:
    return t("scaling.out.sep").join(f"{_md(n)} {pct(w)}" for n, w in zip(names, weights))


def book_cards(state: SL.ScalingState) -> None:
    names = titles(state)
    session.sync(key("query"), query_text(state))
    st.text_input(t("scaling.book.query"), key=key("query"), max_chars=SL.MAX_TITLE_CHARS,
                  help=t("scaling.book.query_help"),
                  on_change=lambda: _set(SL.with_query, st.session_state[key("query")],
                                         t("scaling.book.query_default")))
    dims = [t(f"scaling.book.dim_{j + 1}") for j in range(SL.D_VALUE)]
    for col, i in zip(st.columns(SL.N_BOOKS), range(SL.N_BOOKS)):
        with col, st.container(border=True):
            tk, sk = key(f"title.{i}"), key(f"score.{i}")
            session.sync(tk, names[i])
            session.sync(sk, state.scores[i])
            st.text_input(t("scaling.book.title", i=i + 1), key=tk, max_chars=SL.MAX_TITLE_CHARS,
                          help=t("scaling.book.title_help"),
                          on_change=lambda i=i, tk=tk: _set(SL.with_title, i, st.session_state[tk],
                                                            t(f"scaling.book.default_{i + 1}")))
            st.slider(t("scaling.book.score", i=i + 1), min_value=SL.SCORE_MIN, max_value=SL.SCORE_MAX,
                      step=SL.SCORE_STEP, key=sk, help=t("scaling.book.score_help"),
                      on_change=lambda i=i, sk=sk: _set(SL.with_score, i, st.session_state[sk]))
            st.caption(t("scaling.book.value"))
            for j, c in enumerate(st.columns(SL.D_VALUE)):
                vk = key(f"value.{i}.{j}")
                session.sync(vk, state.values[i][j])
                c.number_input(dims[j], min_value=-SL.VALUE_LIMIT, max_value=SL.VALUE_LIMIT, step=0.5, key=vk,
                               format="%.1f",
                               on_change=lambda i=i, j=j, vk=vk: _set(SL.with_value, i, j, st.session_state[vk]))


def dk_controls(state: SL.ScalingState) -> None:
    session.sync(key("dk"), state.d_k)
    session.sync(key("scale"), state.scaled)
    c1, c2 = st.columns([3, 1], vertical_alignment="center")
    c1.select_slider(t("scaling.ctl.dk"), options=list(S.DK_STEPS), key=key("dk"), help=t("scaling.ctl.dk_help"),
                     on_change=lambda: _replace(d_k=int(st.session_state[key("dk")])))
    c2.toggle(t("scaling.ctl.scale"), key=key("scale"), help=t("scaling.ctl.scale_help"),
              on_change=lambda: _replace(scaled=bool(st.session_state[key("scale")])))


# ---- sections ------------------------------------------------------------------------------------------------------
def books_section(state: SL.ScalingState) -> None:
    st.header(t("scaling.sec.books"))
    st.markdown(t("scaling.sec.books_help"))
    book_cards(state)
    dk_controls(state)
    names = titles(state)
    mix = S.book_mix(state.scores, state.d_k, state.values, scale=state.scaled)
    root = draw.num(np.sqrt(state.d_k))
    st.markdown(t("scaling.out.divide_on" if state.scaled else "scaling.out.divide_off", d_k=state.d_k, root=root))
    vec = lambda a: r"\begin{bmatrix}" + " & ".join(draw.num(v) for v in a) + r"\end{bmatrix}"  # noqa: E731
    st.latex(r"\mathrm{softmax}\!\left(\frac{" + vec(mix.raw) + "}{" + draw.num(mix.divisor) + r"}\right) = "
             r"\mathrm{softmax}\!\left(" + vec(mix.scaled) + r"\right) = " + vec(np.round(mix.weights, 3)))
    st.markdown("### " + t("scaling.out.shares", shares=shares_text(names, mix.weights)))
    scaled_title = (t("fig.scaling_steps.scaled_on", d_k=state.d_k, root=root) if state.scaled
                    else t("fig.scaling_steps.scaled_off"))
    fig = F.scaling_steps(mix.raw, mix.scaled, mix.weights, names, title=t("fig.scaling_steps.title"),
                          panel_titles=(t("fig.scaling_steps.raw"), scaled_title, t("fig.scaling_steps.shares")),
                          hover=t("fig.scaling_steps.hover"))
    st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.steps"), width="stretch")
    if mix.weights.max() > 0.99:
        st.warning(t("scaling.out.saturated", top=pct(mix.weights.max())), icon=":material/center_focus_strong:")
    st.caption(t("scaling.out.typical", d_k=state.d_k, root=root))
    dims = [t(f"scaling.book.dim_{j + 1}") for j in range(SL.D_VALUE)]
    fig = F.value_mix(np.array(state.values), mix.weights, mix.output, names, dims, title=t("fig.scaling_mix.title"),
                      out_title=t("fig.scaling_mix.out"), share_text=t("fig.scaling_mix.share"))
    st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.mix"), width="stretch")
    terms = " + ".join(draw.num(w) + r"\," + vec(v) for w, v in zip(mix.weights, state.values))
    st.latex("z = " + terms + " = " + vec(mix.output))
    st.caption(t("scaling.out.mix"))


def variance_section(state: SL.ScalingState) -> None:
    st.header(t("scaling.sec.variance"))
    st.markdown(t("scaling.sec.variance_help"))
    session.sync(key("seed"), state.seed)
    c1, c2, c3 = st.columns([1.2, 1, 1])
    c1.number_input(t("scaling.ctl.seed"), min_value=0, max_value=SL.SEED_MAX, step=1, key=key("seed"),
                    help=t("scaling.ctl.seed_help"),
                    on_change=lambda: _replace(seed=int(st.session_state[key("seed")])))
    var_raw, var_scaled, centers, dens_raw, dens_scaled = _variance(state.d_k, state.seed)
    c2.metric(t("scaling.out.var_raw"), f"{var_raw:.2f}", t("scaling.out.var_theory", v=state.d_k),
              delta_color="off", delta_arrow="off")
    c3.metric(t("scaling.out.var_scaled"), f"{var_scaled:.3f}", t("scaling.out.var_theory", v=1),
              delta_color="off", delta_arrow="off")
    st.caption(t("scaling.out.var_caption", n=f"{N_SAMPLES:,}", seed=state.seed))
    fig = F.variance_histograms(
        centers, dens_raw, dens_scaled, d_k=state.d_k, title=t("fig.scaling_var.title", d_k=state.d_k),
        row_titles=(t("fig.scaling_var.raw", var=f"{var_raw:.2f}", theory=state.d_k),
                    t("fig.scaling_var.scaled", var=f"{var_scaled:.3f}", d_k=state.d_k)),
        x_title=t("fig.scaling_var.x"), y_title=t("fig.scaling_var.y"))
    st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.var"), width="stretch")

    st.subheader(t("scaling.sec.saturation"))
    st.markdown(t("scaling.sec.saturation_help"))
    session.sync(key("n"), state.n_keys)
    st.slider(t("scaling.ctl.n_keys"), min_value=SL.N_KEYS_MIN, max_value=SL.N_KEYS_MAX, step=1, key=key("n"),
              help=t("scaling.ctl.n_keys_help"), on_change=lambda: _replace(n_keys=int(st.session_state[key("n")])))
    cur = _saturation(state.n_keys, state.seed)
    fig = F.saturation_chart(
        cur.d_ks, cur.max_raw, cur.max_scaled, cur.entropy_raw, cur.entropy_scaled, n_keys=state.n_keys,
        current_dk=state.d_k, title=t("fig.scaling_sat.title", n=state.n_keys, draws=f"{N_DRAWS:,}"),
        panel_titles=(t("fig.scaling_sat.max"), t("fig.scaling_sat.entropy")),
        legend=(t("fig.scaling_sat.without"), t("fig.scaling_sat.with")), x_title=t("fig.scaling_sat.x"),
        ref_texts=(t("fig.scaling_sat.uniform"), t("fig.scaling_sat.onehot"), t("fig.scaling_sat.current")))
    st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.sat"), width="stretch")


def temperature_section(state: SL.ScalingState) -> None:
    st.header(t("scaling.sec.temperature"))
    st.markdown(t("scaling.sec.temperature_help"))
    names = titles(state)
    session.sync(key("T"), state.temperature)
    st.select_slider(t("scaling.ctl.temperature"), options=list(SL.TEMPERATURES), key=key("T"),
                     help=t("scaling.ctl.temperature_help"), format_func=lambda v: f"{v:g}",
                     on_change=lambda: _replace(temperature=float(st.session_state[key("T")])))
    w = S.temperature_softmax(state.scores, state.temperature)
    zero, inf = S.argmax_limit(state.scores), S.uniform_limit(SL.N_BOOKS)
    st.markdown("### " + t("scaling.out.current", T=f"{state.temperature:g}", shares=shares_text(names, w)))
    st.markdown(t("scaling.out.limit_zero", shares=shares_text(names, zero)) + "  \n"
                + t("scaling.out.limit_inf", share=pct(inf[0])))
    c1, c2 = st.columns([1, 1])
    with c1:
        fig = F.temperature_bars(w, names, limit_zero=zero, limit_inf=inf,
                                 title=t("fig.scaling_temp.bars_title", T=f"{state.temperature:g}"),
                                 legend=(t("fig.scaling_temp.legend_now"), t("fig.scaling_temp.legend_zero"),
                                         t("fig.scaling_temp.legend_inf")))
        st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.tbars"), width="stretch")
    with c2:
        root = float(np.sqrt(state.d_k))
        fig = F.temperature_chart(T_GRID, S.temperature_sweep(state.scores, T_GRID), names,
                                  current_T=state.temperature, title=t("fig.scaling_temp.title"),
                                  marks=[(root, t("fig.scaling_temp.sqrt_mark"))] if root <= 20 else [],
                                  x_title=t("fig.scaling_temp.x"), y_title=t("fig.scaling_temp.y"),
                                  limit_texts=(t("fig.scaling_temp.limit_zero"), t("fig.scaling_temp.limit_inf")),
                                  current_text=t("fig.scaling_temp.current"))
        st.plotly_chart(fig, config=draw.PLOT_CONFIG, key=key("fig.tcurve"), width="stretch")
    at_root = S.temperature_softmax(state.scores, np.sqrt(state.d_k))
    st.info(t("scaling.sec.temperature_link", d_k=state.d_k, root=draw.num(np.sqrt(state.d_k)),
              shares=shares_text(names, at_root)), icon=":material/thermostat:")


def main() -> None:
    state = _state()
    st.title(t("scaling.title"))
    st.markdown(t("scaling.intro"))
    widgets.show_notices(session.pop_notices(PAGE))
    with st.expander(t("scaling.tip_title"), icon=":material/school:"):
        st.markdown(t("scaling.tips"))
    books_section(state)
    variance_section(state)
    temperature_section(state)
    session.publish(SL.encode(state))


main()
