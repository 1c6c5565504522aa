"""Home: what Attention Lab is, the live weights of the dog-walks lesson as its picture, and the lesson map."""
from __future__ import annotations

import streamlit as st

from attention_core import lessons as L
from ui import draw
from ui.i18n import t


def main() -> None:
    st.title(t("home.title"))
    st.markdown(t("home.lead"))
    c1, c2 = st.columns([3, 2])
    with c1:
        state = L.default_state("dog")
        res = L.compute(state)
        toks = list(state.tokens)
        draw.show_heatmap("weights", res.steps.weights, toks, toks, weights=True, key="home.fig.weights",
                          caption=t("home.picture_caption"))
    with c2:
        st.markdown(t("home.what"))
        st.page_link("lesson_pages/qkv.py", label=t("home.start"), icon=":material/play_arrow:")
    st.subheader(t("home.map_title"))
    st.markdown(t("home.map"))
    st.subheader(t("home.lessons"))
    st.page_link("lesson_pages/qkv.py", label=t("nav.qkv"), icon=":material/calculate:")
    st.caption(t("lesson.qkv.blurb"))
    st.page_link("lesson_pages/scaling.py", label=t("lesson.scaling.title"), icon=":material/tune:")
    for key in ("masks", "multihead", "positional", "cross"):
        st.markdown(f"- {t(f'lesson.{key}.title')} — {t('home.coming')}")


main()
