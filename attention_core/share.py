"""Lesson state ⇄ URL query parameters: pure, bounded, versioned.

Format (version 1): every value is one string, each key appears once.
  v=1  p=<preset>  t=<sentence>  dm=<d_model>  dk=<d_k>  dv=<d_v>  s=<seed>  m=xw|direct  q=<query index>
  and, only for a matrix that differs from what the preset and seed give, <name>=<rows>x<cols>:<v,v,...>
  (row-major, shortest round-trip decimals, so a link reproduces every number exactly).
Decoding never raises and never allocates more than the limits allow: a malformed, unknown or oversized value
falls back to the default and adds a :class:`Notice` the UI shows in words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

from . import lessons as L
from .tokens import MAX_TEXT_CHARS

__all__ = ["VERSION", "MAX_VALUE_CHARS", "MAX_QUERY_CHARS", "Notice", "encode_matrix", "decode_matrix",
           "encode_qkv", "decode_qkv", "parse_int", "parse_choice"]

VERSION = "1"
MAX_VALUE_CHARS = 6000
"""Longest single parameter accepted (a 16×16 matrix of short decimals needs about 1,300)."""
MAX_QUERY_CHARS = 20000
"""Longest whole query string accepted, summed over the parameters."""
MATRIX_NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V")
_SHAPE = re.compile(r"^(\d{1,2})x(\d{1,2}):(.*)$", re.S)
IGNORED_KEYS = frozenset({"embed", "embed_options", "lang"})


@dataclass(frozen=True)
class Notice:
    """Something the link asked for that could not be honoured. ``code`` names a message in the language
    tables (notice.<code>); ``args`` fill its placeholders."""

    code: str
    args: dict = field(default_factory=dict)


def _num(v: float) -> str:
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r


def encode_matrix(M) -> str:
    """(r, c) float matrix → "r x c:v,v,..." with shortest round-trip decimals ("2x2:1,0.5,0,-3")."""
    a = np.asarray(M, dtype=np.float64)
    return f"{a.shape[0]}x{a.shape[1]}:" + ",".join(_num(v) for v in a.ravel())


def decode_matrix(text: str, shape: tuple[int, int]) -> np.ndarray:
    """Parse :func:`encode_matrix` output, expecting ``shape``; each value must pass lessons.check_cell.

    Raises:
        lessons.CellError (a ValueError) with code "too_long", "format", "shape", "count", or a refused value's
        code from lessons.check_cell.
    """
    if len(text) > MAX_VALUE_CHARS:
        raise L.CellError("too_long", n=len(text), max=MAX_VALUE_CHARS)
    m = _SHAPE.match(text)
    if not m:
        raise L.CellError("format")
    r, c = int(m.group(1)), int(m.group(2))
    if (r, c) != tuple(shape):
        raise L.CellError("shape", got=f"{r}x{c}", want=f"{shape[0]}x{shape[1]}")
    parts = m.group(3).split(",") if m.group(3) else []
    if len(parts) != r * c:
        raise L.CellError("count", got=len(parts), want=r * c)
    vals = [L.check_cell(p) for p in parts]
    return np.array(vals, dtype=np.float64).reshape(r, c) if r * c else np.zeros((r, c))


def parse_int(raw: str | None, lo: int, hi: int) -> int | None:
    """A decimal integer in lo..hi, or None (missing, malformed or out of range)."""
    if raw is None or not re.fullmatch(r"-?\d{1,6}", raw.strip()):
        return None
    v = int(raw)
    return v if lo <= v <= hi else None


def parse_choice(raw: str | None, choices) -> str | None:
    return raw if raw in choices else None


def encode_qkv(state: L.QKVState) -> dict[str, str]:
    """State → query parameters (strings). Matrices equal to the baseline are left out, so links stay short."""
    p = L.PRESETS[state.preset]
    out = {"v": VERSION, "p": state.preset}
    if state.text != p.text:
        out["t"] = state.text
    out.update(dm=str(state.d_model), dk=str(state.d_k), dv=str(state.d_v), s=str(state.seed), m=state.mode,
               q=str(state.query))
    for name in L.active_matrices(state.mode):
        M = state.mats[name]
        if M.size and not np.array_equal(M, L.baseline_matrix(state, name)):
            out[name] = encode_matrix(M)
    return out


def decode_qkv(params: dict[str, str]) -> tuple[L.QKVState, list[Notice]]:
    """Query parameters → (state, notices). Never raises. Missing keys take the preset's values silently;
    a bad value falls back with a notice; an empty dict gives the default lesson."""
    notices: list[Notice] = []
    params = {str(k): str(v) for k, v in params.items()}
    total = sum(len(k) + len(v) for k, v in params.items())
    if total > MAX_QUERY_CHARS:
        return L.default_state(), [Notice("link_too_long", {"n": total, "max": MAX_QUERY_CHARS})]
    if not (params.keys() - IGNORED_KEYS):
        return L.default_state(), []
    if params.get("v", VERSION) != VERSION:
        return L.default_state(), [Notice("link_version", {"v": params["v"][:20]})]

    def bad(key, reason="invalid", **extra):
        notices.append(Notice("bad_value", {"key": key, "value": params.get(key, "")[:40], "reason": reason,
                                            "extra": extra}))

    preset = parse_choice(params.get("p"), L.PRESETS)
    if preset is None:
        if "p" in params:
            bad("p")
        preset = "dog"
    base = L.PRESETS[preset]
    seed = parse_int(params.get("s"), 0, L.SEED_MAX)
    if seed is None:
        "s" in params and bad("s")
        seed = 0
    sizes = {}
    for key, attr in (("dm", "d_model"), ("dk", "d_k"), ("dv", "d_v")):
        v = parse_int(params.get(key), L.DIM_MIN, L.DIM_MAX)
        if v is None and key in params:
            bad(key)
        sizes[attr] = v if v is not None else getattr(base, attr)
    text = params.get("t", base.text)
    if len(text) > MAX_TEXT_CHARS:
        notices.append(Notice("text_too_long", {"n": len(text), "max": MAX_TEXT_CHARS}))
        text = base.text
    mode = parse_choice(params.get("m"), ("xw", "direct"))
    if mode is None:
        "m" in params and bad("m")
        mode = base.mode
    state = L._fresh(preset, text, sizes["d_model"], sizes["d_k"], sizes["d_v"], seed, mode, 0)
    for name in MATRIX_NAMES:
        if name not in params:
            continue
        if name not in L.active_matrices(mode):
            bad(name, "wrong_mode")
            continue
        try:
            state = replace(state, mats={**state.mats, name: decode_matrix(params[name], L.state_shape(state, name))})
        except L.CellError as e:
            bad(name, e.code, **e.args_)
    q = parse_int(params.get("q"), 0, 10**6)
    if q is None:
        "q" in params and bad("q")
        q = 0
    state, clamped = L.with_query(state, q)
    if clamped:
        notices.append(Notice("query_clamped", {"asked": q + 1, "used": state.query + 1}))
    known = {"v", "p", "t", "dm", "dk", "dv", "s", "m", "q"} | set(MATRIX_NAMES)
    unknown = sorted(params.keys() - IGNORED_KEYS - known)
    if unknown:
        notices.append(Notice("unknown_keys", {"keys": ", ".join(k[:20] for k in unknown[:5])}))
    return state, notices
