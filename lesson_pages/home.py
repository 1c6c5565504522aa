"""Home: what Attention Lab is, the live weights of the dog-walks lesson as its picture, the story from Seq2Seq to
the Transformer with its map (every block a link to its lesson: ui/transformer_map.py), the lessons in teaching
order."""
from __future__ import annotations

import streamlit as st

import lessons
from ui import charts, runtime, text, transformer_map
from ui.i18n import t


def main() -> None:
    runtime.follow_lesson_link()
    st.title(t("home.title"))
    st.markdown(t("home.lead"))
    c1, c2 = st.columns([3, 2])
    first = lessons.REGISTRY[0]
    with c1:
        state = lessons.QKV.default_state()
        weights = lessons.QKV.arrays(state)["weights"]
        toks = list(state.tokens)
        charts.show_heatmap("weights", weights, toks, toks, weights=True, key="home.fig.weights",
                            caption=text.join_sentences([t("home.picture_caption"), t("num.row_sums")]))
    with c2:
        st.markdown(t("home.what"))
        with st.container(key="home-start"):
            st.page_link(first.page, label=t("home.start", title=t(f"lesson.{first.key}.title")),
                         icon=":material/play_arrow:")
    st.subheader(t("home.map_title"))
    st.markdown(t("home.map"))
    transformer_map.draw()
    st.subheader(t("home.lessons"))
    for lesson in lessons.REGISTRY:
        st.page_link(lesson.page, label=t(f"lesson.{lesson.key}.title"), icon=lesson.icon)
        st.caption(t(f"lesson.{lesson.key}.blurb"))
    registered = {x.key for x in lessons.REGISTRY}
    for key in lessons.PLANNED:
        if key not in registered:
            st.markdown(f"- {t(f'planned.{key}')} — {t('home.coming')}")


main()
