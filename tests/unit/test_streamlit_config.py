"""Settings in .streamlit/config.toml that a class depends on, checked as Streamlit reads them."""
from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_the_message_cache_is_off():
    # With Streamlit's message cache on, quick presses under load showed "Connection error — Cached ForwardMsg
    # MISS" over the page and left a chart older than its slider (issue 18, found by the slider key-press suite).
    # Off means no element is ever as large as the threshold: larger than any message the server would send.
    size = tomllib.loads(CONFIG.read_text("utf-8"))["global"]["minCachedMessageSize"]
    from streamlit import config

    assert float(size) >= 1e12
    assert float(size) > config.get_option("server.maxMessageSize") * 1e6  # MB → bytes
