"""The app's look outside charts and text: its CSS (page_style, drawn once per run by app.py) and the pipeline
step strip whose boxes that CSS styles."""
from __future__ import annotations

import html

import streamlit as st

from .figures import ROLE_COLORS
from .i18n import t

# The app's CSS, drawn once per run by app.py (page_style; the charts' own is written by ui/plot_component):
# - a markdown table wider than its column (a phone, 16 tokens) scrolls inside its own box instead of running past
#   the column's right edge; the step strip's boxes;
# - an element waiting for a rerun to redraw it is not faded. Streamlit marks every element of a rerunning fragment
#   "stale" at the start of the run and gives it a delayed opacity transition (1 s after 0.5 s); reruns here end long
#   before it shows, but each transition still made the browser put the element on a layer of its own and paint it
#   (a slider move at 16 tokens: ~50 layers, 20–33 ms of painting before the new weights were even read), and again
#   when the transition was cancelled. The running indicator in the corner still says a run is under way.
STYLE = ("<style>[data-testid='stMarkdownContainer']:has(> table){overflow-x:auto}"
         ".al-flow{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:4px 0 12px}"
         ".al-step{border:2px solid;border-radius:8px;padding:4px 10px;font-weight:600;font-size:1.02rem;"
         "background:#fff}.al-arrow{color:#666;font-size:1.2rem}"
         ".stElementContainer[data-stale='true']{opacity:1!important;transition:none!important}"
         # the home page's map of the Transformer (ui/transformer_map.py): each block a framed box, coloured by role
         "[class*='st-key-home-map-']{border:2px solid #7F7F7F;border-radius:8px;padding:4px 8px;gap:2px;"
         "background:#fff}[class*='st-key-home-map-attention']{border-color:#E69F00;background:#fff8e8}"
         "[class*='st-key-home-map-ffn']{border-color:#0072B2}[class*='st-key-home-map-io']{border-style:dashed}"
         "[class*='st-key-home-map-'] [data-testid='stPageLink'] a{padding:2px 0;height:auto}"
         "[class*='st-key-home-map-'] [data-testid='stPageLink'] a *{white-space:normal;overflow:visible;"
         "text-overflow:clip}"
         "[class*='st-key-home-map-'] .stMarkdown{margin-bottom:0}"
         # an arrow above every block of the encoder and decoder stacks: the data flows up, into the block above
         ":is(.st-key-home-stack-encoder,.st-key-home-stack-decoder) [class*='st-key-home-map-']"
         "{position:relative;overflow:visible}"
         ":is(.st-key-home-stack-encoder,.st-key-home-stack-decoder) [class*='st-key-home-map-']::before"
         "{content:'↑';position:absolute;top:-1.2rem;left:50%;transform:translateX(-50%);color:#555;"
         "font-size:1rem;line-height:1}"
         ".st-key-home-start [data-testid='stPageLink'] a{border:2px solid #D55E00;border-radius:8px;"
         "padding:6px 12px;font-weight:600;height:auto}"
         ".st-key-home-start [data-testid='stPageLink'] a *{white-space:normal;overflow:visible;text-overflow:clip}"
         "</style>")


def page_style() -> None:
    """Draw the app's CSS (STYLE). A style-only st.html takes no room on the page (Streamlit puts it in its event
    container), so it moves no element."""
    st.html(STYLE)


FLOW_QKV = [("X", "X"), ("W", "flow.proj"), ("Q", "Q · K · V"), ("weights", "flow.scores"),
            ("weights", "flow.scale"), ("weights", "flow.softmax"), ("out", "flow.mix")]


def pipeline_strip(steps=None) -> None:
    """The computation as a flow of boxes, each (role, text key or literal text); default the Q·K·V flow
    X → W_Q/W_K/W_V → Q, K, V → QKᵀ → ÷√d_k → softmax → ·V."""
    boxes = []
    for role, label in steps or FLOW_QKV:
        text = t(label) if "." in label else label
        color = ROLE_COLORS[role]
        boxes.append(f'<span class="al-step" style="border-color:{color};color:{color}">{html.escape(text)}</span>')
    st.markdown('<div class="al-flow">' + '<span class="al-arrow">→</span>'.join(boxes) + "</div>",
                unsafe_allow_html=True)  # the classes' look: STYLE
