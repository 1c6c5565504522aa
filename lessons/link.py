"""The one link codec: a lesson's state ⇄ URL query parameters, declared as fields. NumPy only.

A link is a flat set of query parameters, each key once, each value one string:

    <lesson key>=<version>  then one parameter per field that the state needs (see each lesson's schema)

The first parameter is the envelope: it says which lesson the link belongs to and in which version, so a page
never reads another lesson's parameters (a page opened with another lesson's link says so and opens its own
default). Links made before the envelope (``v=1``) are read by the same fields when a schema lists "1" in
``legacy``. ``lang``, ``present``, ``reveal`` (the frame's) and Streamlit's ``embed`` options are not a lesson's
and are ignored here.

A value of the parameters given to the readers may be a list of strings (every value a key was given, as
``st.query_params.get_all`` returns them).

Decoding never raises and never allocates beyond the limits below: a malformed, unknown, oversized or
out-of-range value falls back to the default and yields a :class:`Notice`, whose ``code`` names a message in the
language tables (``notice.<code>``) and whose ``args`` fill it. Notice codes of this module:
``link_too_long``, ``link_too_many``, ``link_version``, ``link_unreadable`` (no namespace or version to read),
``other_lesson``, ``unknown_keys``, ``duplicate_keys``
(a key given more than once: the last value is read, as ``st.query_params[key]`` does), ``bad_value`` (args
``param``, ``value``, ``reason`` = a ``reason.<code>`` of the tables, ``extra`` = that reason's args), ``rounded``
(args ``param``, ``value``, ``used``).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .cells import CELL_LIMIT, Refusal, check_cell, parse_number

__all__ = [
    "MAX_QUERY_CHARS", "MAX_VALUE_CHARS", "MAX_PARAMS", "IGNORED_KEYS", "Notice", "Field", "Int", "Choice", "Flag",
    "Decimal", "Text", "Vector", "Cell", "Matrix", "Mask", "LinkSchema", "Envelope", "read_envelope", "read_fields",
    "read_matrices", "write", "format_number", "encode_matrix", "dropped_notice", "owner",
]

MAX_QUERY_CHARS = 20_000
"""Longest whole query string read at all, summed over keys and values (a 16×16 matrix needs about 1,300)."""
MAX_VALUE_CHARS = 6_000
"""Longest single parameter read at all."""
MAX_PARAMS = 100
"""Most parameters read at all (a lesson's link has a few dozen at most)."""
IGNORED_KEYS = frozenset({"lang", "colors", "present", "reveal", "predict", "guess", "answer", "compare", "pin",
                          "arr", "embed", "embed_options"})
"""Keys of the frame (language, colour scheme, presentation mode and its step, predict-then-reveal: lessons/predict.py,
the A/B comparison: lessons/compare.py) and of Streamlit, in any lesson's link."""
LEGACY_VERSION_KEY = "v"


@dataclass(frozen=True)
class Notice:
    """Something a link (or a widget) asked for that could not be honoured, to be said in words."""

    code: str
    args: dict = field(default_factory=dict)


def format_number(v: float) -> str:
    """Shortest decimal that reads back as the same float64 ("0.5", "3", "-1.25", "1e-07")."""
    r = repr(float(v) + 0.0)
    return r[:-2] if r.endswith(".0") else r


MAX_CHOICES_SAID = 8
"""A refused word's notice lists at most this many of the words a field takes."""


def nearest(allowed, v):
    """The value of ``allowed`` nearest to ``v`` (the lower of two as near)."""
    return min(sorted(allowed), key=lambda a: abs(a - v))


# ---- fields ---------------------------------------------------------------------------------------------------
class Field:
    """One query parameter. ``parse`` turns its text into a value or raises :class:`Refusal`; ``format`` turns
    a value into text that ``parse`` reads back to the same value."""

    key: str

    def parse(self, raw: str):
        raise NotImplementedError

    def format(self, value) -> str:
        return str(value)

    def read(self, raw: str) -> tuple[object, Notice | None]:
        """(value, an optional notice about an accepted but adjusted value)."""
        return self.parse(raw), None


_INT = re.compile(r"^[+-]?[0-9]+$")
_INT_DIGITS = 12  # more digits: beyond any field's range, refused before int() reads them


@dataclass(frozen=True)
class Int(Field):
    """An integer in lo..hi (and in ``allowed`` when given: e.g. the powers of two of a select slider)."""

    key: str
    lo: int
    hi: int
    allowed: tuple[int, ...] | None = None

    def parse(self, raw: str) -> int:
        return self.read(raw)[0]

    def read(self, raw: str) -> tuple[int, Notice | None]:
        """The integer; refused in words ("not_integer", "range" with the bounds); one in range but not among
        ``allowed`` becomes the nearest allowed one (the lower of two as near), said in a "rounded" notice."""
        text = raw.strip()  # (Python's whitespace, which int() alone does not all take: "0\x1f" raised ValueError)
        if not _INT.match(text):
            raise Refusal("not_integer", value=text[:40])
        v = int(text) if len(text.lstrip("+-")) <= _INT_DIGITS else None
        if v is None or not self.lo <= v <= self.hi:
            raise Refusal("range", lo=str(self.lo), hi=str(self.hi))
        if self.allowed is not None and v not in self.allowed:
            near = nearest(self.allowed, v)
            return near, Notice("rounded", {"param": self.key, "value": raw[:40], "used": str(near)})
        return v, None


@dataclass(frozen=True)
class Choice(Field):
    """One of a fixed set of words."""

    key: str
    choices: tuple[str, ...]

    def parse(self, raw: str) -> str:
        if raw not in self.choices:
            shown = self.choices[:MAX_CHOICES_SAID]
            raise Refusal("choice", choices=", ".join(shown) + (", …" if len(self.choices) > len(shown) else ""))
        return raw


@dataclass(frozen=True)
class Flag(Field):
    """On ("1") or off ("0")."""

    key: str

    def parse(self, raw: str) -> bool:
        if raw not in ("0", "1"):
            raise Refusal("flag")
        return raw == "1"

    def format(self, value) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class Decimal(Field):
    """A number in lo..hi; with ``step``, snapped to that grid; with ``allowed``, one of those values (within 1e-9),
    else the nearest of them. A number moved either way is said in a "rounded" notice; one that is no number
    ("not_number") or outside lo..hi ("range", with the bounds) is refused."""

    key: str
    lo: float
    hi: float
    step: float | None = None
    allowed: tuple[float, ...] | None = None

    def snap(self, v: float) -> float:
        if self.step is None:
            return v + 0.0
        return round(round(v / self.step) * self.step, 6) + 0.0

    def parse(self, raw: str) -> float:
        return self.read(raw)[0]

    def read(self, raw: str) -> tuple[float, Notice | None]:
        v = parse_number(raw)
        if v is None:
            raise Refusal("not_number", value=raw.strip()[:40])
        if not self.lo <= v <= self.hi:
            raise Refusal("range", lo=format_number(self.lo), hi=format_number(self.hi))
        if self.allowed is not None:
            match = [a for a in self.allowed if abs(a - v) < 1e-9]
            if match:
                return match[0], None
            near = nearest(self.allowed, v)
            return near, Notice("rounded", {"param": self.key, "value": raw[:40], "used": format_number(near)})
        snapped = self.snap(v)
        note = None
        if abs(snapped - v) > 1e-9:
            note = Notice("rounded", {"param": self.key, "value": raw[:40], "used": format_number(snapped)})
        return snapped, note

    def format(self, value) -> str:
        return format_number(value)


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_UNSHOWABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufffd" + "".join(sorted(_BIDI_CONTROLS)) + "]")
"""What :func:`unshowable` finds, one character a match (a regex: a pasted text of millions of characters is scanned
in C, not character by character)."""


def unshowable(s: str) -> list[str]:
    """The characters of ``s`` that no text of the app may hold, as "U+000B" codes (each once, in order): control
    characters other than the tab (C0, DEL, C1: a one-line field keeps a pasted tab, a row copied from a
    spreadsheet), the line and paragraph separators, and the explicit text-direction controls (embeddings,
    overrides, isolates: U+202A..U+202E, U+2066..U+2069), which would turn the page's own words around them, and
    U+FFFD, the replacement character, which stands for bytes that were not text (a link with invalid UTF-8, such as
    ``%C0%AF``, arrives with it). The one rule for every text, typed (ui.bind) or in a link (:class:`Text`);
    zero-width characters are allowed."""
    return [f"U+{ord(ch):04X}" for ch in dict.fromkeys(_UNSHOWABLE.findall(s))]


def check_text(s: str) -> str:
    """``s`` when :func:`unshowable` finds nothing in it; else raises ``Refusal("control", chars="U+000B, …")``."""
    bad = unshowable(s)
    if bad:
        raise Refusal("control", chars=", ".join(bad[:5]) + (", …" if len(bad) > 5 else ""))
    return s


SPACES = " \t\u3000"
"""The spaces :class:`Text` drops around a value when it strips: the ASCII space, the tab, the ideographic space."""


@dataclass(frozen=True)
class Text(Field):
    """Text of at most ``max_chars`` characters (characters, not bytes), holding nothing :func:`unshowable` finds (a
    tab is allowed); kept exactly as typed (pages draw it through ui.escape). ``strip``: surrounding SPACES
    dropped; a value of spaces alone is refused ("blank")."""

    key: str
    max_chars: int
    strip: bool = False

    def parse(self, raw: str) -> str:
        s = raw.strip(SPACES) if self.strip else raw  # (not str.strip: U+0085 and U+2028 are refused, not dropped)
        if len(s) > self.max_chars:  # (first: a text of millions of characters is not scanned)
            raise Refusal("too_long", n=len(s), max=self.max_chars)
        check_text(s)
        if raw and not s:  # a value of spaces alone: said, not read as "no value" in silence
            raise Refusal("blank")
        return s


@dataclass(frozen=True)
class Vector(Field):
    """``n`` numbers "v,v,v", each a plain decimal within ±limit."""

    key: str
    n: int
    limit: float

    def parse(self, raw: str) -> tuple[float, ...]:
        parts = raw.split(",")
        if len(parts) != self.n:
            raise Refusal("count", got=len(parts), want=self.n)
        out = []
        for p in parts:
            v = parse_number(p)
            if v is None:
                raise Refusal("not_number", value=p.strip()[:40])
            if abs(v) > self.limit:
                raise Refusal("too_big", value=p.strip()[:40], limit=f"{self.limit:g}")
            out.append(v + 0.0)
        return tuple(out)

    def format(self, value) -> str:
        return ",".join(format_number(x) for x in value)


_CELL = re.compile(r"^([A-Za-z][A-Za-z0-9_]{0,15})\.([0-9]{1,2})\.([0-9]{1,2})$")


@dataclass(frozen=True)
class Cell(Field):
    """One cell of a named matrix, "<matrix>.<row>.<col>" with row and column from 0 ("W_K.1.2": W_K, row 2,
    column 3 on screen): the cell picker's choice. Whether the state holds that matrix and cell is checked against
    the state (``Lesson.cell_matrices``), after the link's matrices are placed."""

    key: str

    def parse(self, raw: str) -> tuple[str, int, int]:
        m = _CELL.match(raw.strip())
        if not m:
            raise Refusal("format_cell")
        return m.group(1), int(m.group(2)), int(m.group(3))

    def format(self, value) -> str:
        name, i, j = value
        return f"{name}.{int(i)}.{int(j)}"


_SHAPE = re.compile(r"^([0-9]{1,2})x([0-9]{1,2}):(.*)$", re.S)


def encode_matrix(M) -> str:
    """(r, c) float matrix → "<r>x<c>:v,v,..." row-major, shortest round-trip decimals ("2x2:1,0.5,0,-3")."""
    a = np.asarray(M, dtype=np.float64)
    return f"{a.shape[0]}x{a.shape[1]}:" + ",".join(format_number(v) for v in a.ravel())


@dataclass(frozen=True)
class Matrix(Field):
    """A matrix "<r>x<c>:v,v,..." whose shape comes from the state (``Lesson.matrix_shape``); every value passes
    :func:`lessons.cells.check_cell` with ``limit`` (a matrix computed from others, such as Q = X·W, may hold
    more than a typed cell)."""

    key: str
    limit: float = CELL_LIMIT

    def parse_shaped(self, raw: str, shape: tuple[int, int]) -> np.ndarray:
        m = _SHAPE.match(raw)
        if not m:
            raise Refusal("format")
        r, c = int(m.group(1)), int(m.group(2))
        if (r, c) != tuple(shape):
            raise Refusal("shape", got=f"{r}x{c}", want=f"{shape[0]}x{shape[1]}")
        parts = m.group(3).split(",") if m.group(3) else []
        if len(parts) != r * c:
            raise Refusal("count", got=len(parts), want=r * c)
        vals = [check_cell(p, self.limit) for p in parts]
        return np.array(vals, dtype=np.float64).reshape(r, c) if r * c else np.zeros((r, c))

    def format(self, value) -> str:
        return encode_matrix(value)


_BITS = re.compile(r"[01]*")  # (fullmatch: "$" would also match before a final newline)


@dataclass(frozen=True)
class Mask(Matrix):
    """A boolean mask "<r>x<c>:<bits>", one bit per cell row-major, 1 = may attend (the convention of
    attention_core), its shape from the state like a :class:`Matrix`."""

    key: str

    def parse_shaped(self, raw: str, shape: tuple[int, int]) -> np.ndarray:
        m = _SHAPE.match(raw)
        if not m:
            raise Refusal("format_mask")
        r, c = int(m.group(1)), int(m.group(2))
        if (r, c) != tuple(shape):
            raise Refusal("shape", got=f"{r}x{c}", want=f"{shape[0]}x{shape[1]}")
        bits = m.group(3)
        if not _BITS.fullmatch(bits):
            raise Refusal("format_mask")
        if len(bits) != r * c:
            raise Refusal("count", got=len(bits), want=r * c)
        return np.array([b == "1" for b in bits], dtype=bool).reshape(r, c)

    def format(self, value) -> str:
        a = np.asarray(value, dtype=bool)
        return f"{a.shape[0]}x{a.shape[1]}:" + "".join("1" if b else "0" for b in a.ravel())


# ---- the schema and its envelope ------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkSchema:
    """A lesson's link: ``namespace`` (the lesson's key) and ``version`` form the envelope; ``fields`` are read
    first, ``matrices`` after the state they size is built; ``legacy``: older ``v=<x>`` versions these same
    fields still read (version 1 links had no namespace)."""

    namespace: str
    version: int
    fields: tuple[Field, ...]
    matrices: tuple[Matrix, ...] = ()
    legacy: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(f.key for f in self.fields + self.matrices)


@dataclass(frozen=True)
class Envelope:
    """What :func:`read_envelope` found. ``readable``: go on reading the fields of ``params`` (cleaned:
    strings, without the envelope and the ignored keys)."""

    readable: bool
    params: dict
    notices: tuple[Notice, ...] = ()


def _bad(key: str, raw: str, e: Refusal) -> Notice:
    return Notice("bad_value", {"param": key[:20], "value": raw[:40], "reason": e.code, "extra": dict(e.args_)})


def _items(params: Mapping) -> tuple[list[tuple[str, str]], list[str]]:
    """(key, value) strings, the last value of a key given several (a list), and the keys given more than once."""
    items, twice = [], []
    for k, v in dict(params).items():
        if isinstance(v, list | tuple):
            if len(v) > 1 and str(k) not in IGNORED_KEYS:
                twice.append(str(k))
            v = v[-1] if v else ""
        items.append((str(k), str(v)))
    return items, twice


def _twice(keys: list[str]) -> tuple[Notice, ...]:
    return (Notice("duplicate_keys", {"keys": ", ".join(k[:20] for k in keys[:5])}),) if keys else ()


def dropped_notice(n_params: int, n_chars: int, dropped_params: int) -> Notice:
    """The notice for a query string the web server dropped whole, before the app could read any of it (Streamlit
    drops one of more than ``dropped_params`` parameters or too many characters; its browser side reports the
    counts): the words of a link over this codec's own limits, ``link_too_many`` or ``link_too_long``."""
    if n_params > dropped_params:
        return Notice("link_too_many", {"n": int(n_params), "max": MAX_PARAMS})
    return Notice("link_too_long", {"n": int(n_chars), "max": MAX_QUERY_CHARS})


def read_envelope(schema: LinkSchema, params: Mapping, others: Sequence[LinkSchema] = ()) -> Envelope:
    """Check the whole query before any field is read: size limits, which lesson, which version. ``others``: the
    other lessons' schemas, so that their links are recognised as theirs: a version-2 link by its namespace, a
    legacy link (no namespace) by its keys when only another lesson's schema knows them all."""
    try:
        n = len(params)
        if n > MAX_PARAMS:  # counted before anything is copied
            return Envelope(False, {}, (Notice("link_too_many", {"n": n, "max": MAX_PARAMS}),))
        items, twice = _items(params)
    except Exception:  # not a mapping of strings
        return Envelope(False, {}, (Notice("link_unreadable", {}),))
    total = sum(len(k) + len(v) for k, v in items)
    if total > MAX_QUERY_CHARS:
        return Envelope(False, {}, (Notice("link_too_long", {"n": total, "max": MAX_QUERY_CHARS}),))
    clean = {k: v for k, v in items if k not in IGNORED_KEYS}
    if not clean:
        return Envelope(False, {})
    ns = schema.namespace
    if ns in clean:
        version = clean.pop(ns)
        if version != str(schema.version):
            return Envelope(False, {}, (Notice("link_version", {"v": version[:20]}),))
        return Envelope(True, clean, _twice(twice))
    theirs = [o.namespace for o in others if o.namespace in clean]
    if theirs:
        return Envelope(False, {}, (Notice("other_lesson", {"lesson": theirs[0]}),))
    keys = set(clean) - {LEGACY_VERSION_KEY}
    if not keys <= schema.keys:  # a legacy link of another lesson: its keys are all that lesson's, not ours
        owner = next((o.namespace for o in others if o.legacy and keys <= o.keys), None)
        if owner:
            return Envelope(False, {}, (Notice("other_lesson", {"lesson": owner}),))
    if LEGACY_VERSION_KEY in clean and clean[LEGACY_VERSION_KEY] in schema.legacy:
        clean.pop(LEGACY_VERSION_KEY)
        return Envelope(True, clean, _twice(twice))
    if LEGACY_VERSION_KEY in clean:
        return Envelope(False, {}, (Notice("link_version", {"v": clean[LEGACY_VERSION_KEY][:20]}),))
    if schema.legacy:  # a version-1 link could omit v=1: read it as one
        return Envelope(True, clean, _twice(twice))
    return Envelope(False, {}, (Notice("link_unreadable", {}),))


def owner(schemas: Sequence[LinkSchema], params: Mapping) -> str | None:
    """The namespace of the lesson a link belongs to, from its keys alone (for a page that has no link of its own,
    such as the home page): the schema whose namespace is a key of ``params``, else a legacy schema (version-1 links
    had no namespace) that knows every key. None for a link of no lesson, an empty one, or one over the limits.
    Never raises."""
    try:
        if len(params) > MAX_PARAMS:
            return None
        keys = {str(k) for k in params} - IGNORED_KEYS
    except Exception:  # not a mapping
        return None
    if not keys:
        return None
    named = [x.namespace for x in schemas if x.namespace in keys]
    if named:
        return named[0]
    return next((x.namespace for x in schemas if x.legacy and keys - {LEGACY_VERSION_KEY} <= x.keys
                 and keys - {LEGACY_VERSION_KEY}), None)


def _too_long(key: str, raw: str) -> Notice | None:
    if len(raw) > MAX_VALUE_CHARS:
        return _bad(key, "", Refusal("too_long", n=len(raw), max=MAX_VALUE_CHARS))
    return None


def _read(fields, params: Mapping[str, str], read: Callable) -> tuple[dict, list[Notice]]:
    values, notices = {}, []
    for f in fields:
        raw = params.get(f.key)
        if raw is None:
            continue
        long = _too_long(f.key, raw)
        if long:
            notices.append(long)
            continue
        try:
            values[f.key], note = read(f, raw)
        except Refusal as e:
            notices.append(_bad(f.key, raw, e))
            continue
        if note:
            notices.append(note)
    return values, notices


def read_fields(fields, params: Mapping[str, str]) -> tuple[dict, list[Notice]]:
    """The valid values of the fields present in ``params`` ({field key: value}) and a notice for each refused
    one. Fields absent from ``params`` are absent from the result (the lesson's default applies)."""
    return _read(fields, params, lambda f, raw: f.read(raw))


def read_matrices(matrices, params: Mapping[str, str], shape_of: Callable[[str], tuple[int, int]]):
    """Like :func:`read_fields` for matrix fields, each checked against ``shape_of(key)``."""
    return _read(matrices, params, lambda f, raw: (f.parse_shaped(raw, shape_of(f.key)), None))


def unknown_keys(schema: LinkSchema, params: Mapping[str, str]) -> list[Notice]:
    unknown = sorted(set(params) - schema.keys)
    if not unknown:
        return []
    return [Notice("unknown_keys", {"keys": ", ".join(k[:20] for k in unknown[:5])})]


def write(schema: LinkSchema, values: Mapping[str, object]) -> dict[str, str]:
    """Field values (and matrices) → query parameters: the envelope first, then each given field in schema
    order. Raises KeyError for a key the schema does not declare."""
    by_key = {f.key: f for f in schema.fields + schema.matrices}
    unknown = set(values) - set(by_key)
    if unknown:
        raise KeyError(f"not fields of {schema.namespace}'s link: {sorted(unknown)}")
    out = {schema.namespace: str(schema.version)}
    for key, f in by_key.items():
        if key in values:
            out[key] = f.format(values[key])
    return out
