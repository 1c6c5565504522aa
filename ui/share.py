"""Handing a setup to a class: the link a student's phone can open, and that link as a QR code (issue 24, part 2).

No Streamlit here: pure functions the frame's share panel (ui/widgets.py) calls, tested on their own.

- :func:`class_url`: a page opened on this computer's loopback address (``localhost:8501``) hands out an address no
  phone can open; where the server listens on every interface (``streamlit run`` without ``server.address``), the link
  uses the machine's network address instead, as ``streamlit run`` prints it ("Network URL"), and says so.
- :func:`qr_png`: the exact link as a QR code (segno, offline), or None when it needs a larger QR version than a
  phone camera reads from the back of a room.
- :func:`shorter_params`: the link without the typed cells (matrices, the cell picker's choice), for a link too long
  for a QR code.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

import segno

__all__ = ["LOOPBACK", "MAX_QR_VERSION", "class_url", "qr_png", "qr_version", "shorter_params"]

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"})
"""Host names that mean "this computer" (a phone that opens them reaches itself)."""

MAX_QR_VERSION = 25
"""The largest QR version (117 × 117 modules) handed out: shown full-screen on a 1024×768 projector a module is about
5 px, which a phone camera still reads a few metres away. Error correction M (15 % of the code may be unreadable)."""


def class_url(page_url: str, bound_address: str | None, network_ip: str | None) -> tuple[str, str | None, dict]:
    """The address to hand to a class for a page opened at ``page_url``.

    Args:
        page_url: the page's address as the browser opened it (``st.context.url``), e.g. "http://localhost:8501/qkv".
        bound_address: the server's ``server.address`` option (None or "" when it listens on every interface).
        network_ip: this machine's network address (``streamlit.net_util.get_internal_ip()``), or None.

    Returns:
        (url, note, args): ``url`` with the host replaced by ``network_ip`` when the page was opened on a loopback
        host, the server listens on every interface and a network address is known (note "share.network", args
        {"host"}); the same url with note "share.local_only" when it was opened on a loopback host and no other
        address can reach it; the same url and None otherwise. Never raises (an address that does not parse is kept).
    """
    try:
        parts = urlsplit(page_url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return page_url, None, {}
    if host is None or host.lower() not in LOOPBACK:
        return page_url, None, {}
    listens_everywhere = not bound_address or bound_address.strip() in ("0.0.0.0", "::")
    if not listens_everywhere or not network_ip:
        return page_url, "share.local_only", {}
    shown = f"[{network_ip}]" if ":" in network_ip else network_ip
    netloc = f"{shown}:{port}" if port else shown
    return urlunsplit(parts._replace(netloc=netloc)), "share.network", {"host": network_ip}


def qr_version(link: str) -> int:
    """The smallest QR version (1..40) that holds ``link`` at error correction M. Raises ValueError (segno's
    DataOverflowError) for a link longer than version 40 holds."""
    return segno.make(link, error="m", micro=False, boost_error=False).version


def qr_png(link: str, *, scale: int = 8) -> bytes | None:
    """``link`` as a QR code: PNG bytes, black modules on white, ``scale`` px per module and the standard quiet zone
    of 4 modules; None when it needs a version above MAX_QR_VERSION (or does not fit any). Source: segno (ISO/IEC
    18004)."""
    try:
        code = segno.make(link, error="m", micro=False, boost_error=False)
    except ValueError:
        return None
    if code.version > MAX_QR_VERSION:
        return None
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def shorter_params(params: Mapping[str, str], left_out: Iterable[str]) -> dict[str, str]:
    """``params`` without the keys of ``left_out`` (a lesson's matrices and its cell choice): a link that opens the
    same settings with the cells as the lesson gives them."""
    drop = set(left_out)
    return {k: v for k, v in params.items() if k not in drop}
