"""Python literals for data: strings, docstrings, comments, JSON scalars and fact records, always inert
text (no value can end its literal early or become code)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import ir


def py_literal(value: ir.JsonScalar) -> str:
    """A Python literal for a JSON scalar (strings escaped so any text stays data)."""
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'  # Python's json module reads Infinity and NaN
    return repr(value)


def record_literal(value: object, names: set[str]) -> str:
    """Python source building `value`: a frozen dataclass as a call with its non-default fields, tuples,
    and JSON scalars. The class names used are added to `names` (for the module's imports)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names.add(type(value).__name__)
        args = [
            f"{f.name}={record_literal(getattr(value, f.name), names)}"
            for f in dataclasses.fields(value)
            if f.default is dataclasses.MISSING or getattr(value, f.name) != f.default
        ]
        return f"{type(value).__name__}({', '.join(args)})"
    if isinstance(value, tuple):
        items = [record_literal(item, names) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if value is None or isinstance(value, (str, int, float, bool)):
        return py_literal(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def string_literal(text: str) -> str:
    """A Python string literal for `text`, with every non-printable escaped: double-quoted unless single
    quotes need fewer backslashes (black's choice, so black leaves it as it is)."""
    if not _NEEDS_ESCAPES.search(text):
        return f'"{text}"'
    quote = "'" if text.count('"') > text.count("'") else '"'
    out = [quote]
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif _unsafe(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)


SPEC_SITE = "https://modelcontextprotocol.io"
"""Where the schema's root-relative links (`[…](/specification/…)`) point: absolute, an IDE opens them."""


def doc_text(text: str) -> str:
    """What a docstring keeps of `text`: tabs expanded, line ends and the common indent trimmed, and
    Markdown links to the spec's site made absolute.

    Black and Python (3.13 dedents docstrings) may change exactly this much of a docstring's
    whitespace, so the emitted docstring's `inspect.cleandoc` value is `doc_text(text)`. A lone
    surrogate shows as its `\\udXXX` escape: CPython encodes class docstrings to UTF-8.
    """
    text = text.replace("](/", f"]({SPEC_SITE}/")
    visible = text.encode("utf-8", "backslashreplace").decode("utf-8")
    lines = [line.rstrip() for line in visible.expandtabs().split("\n")]
    return inspect.cleandoc("\n".join(lines))


def docstring(text: str | None) -> str | None:
    """A triple-quoted docstring literal for `text` (None when it has no visible text).

    Backslashes are doubled and non-printables escaped; a quote is escaped when it follows a
    quote or ends the text, so no run of quotes can close the literal early.
    """
    if text is None:
        return None
    body = doc_text(text)
    if not body:
        return None
    if not _NEEDS_ESCAPES.search(body.replace("\n", " ")):
        return f'"""{body}"""'
    out: list[str] = []
    quote_before = False
    for i, ch in enumerate(body):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"' and i in (0, len(body) - 1):
            out.append("\\x22")  # not `\"`: black pads a docstring whose source starts or ends in a quote
        elif ch == '"' and quote_before:
            out.append('\\"')
        elif ch != "\n" and _unsafe(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
        quote_before = ch == '"' and out[-1] == '"'
    return '"""' + "".join(out) + '"""'


def comment(text: str) -> str:
    """`text` as the rest of a one-line comment: JSON-escaped, so it can neither end the line nor hide code.

    Outer spaces are escaped too (black trims a comment's trailing whitespace); `json.loads` of the
    quoted comment gives `text` back.
    """
    body = json.dumps(text, ensure_ascii=True)[1:-1]
    stripped = body.strip(" ")
    if not stripped:
        return "\\u0020" * len(body)
    lead = len(body) - len(body.lstrip(" "))
    trail = len(body) - len(body.rstrip(" "))
    return "\\u0020" * lead + stripped + "\\u0020" * trail


_NEEDS_ESCAPES = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")
"""A character `string_literal` or `docstring` may have to escape (all but printable ASCII): text without
one is written as it is."""


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
