"""`decode_header` (runtime/http/common.py) against the rule it implements: a mirrored `Mcp-Name` /
`Mcp-Param-*` value is usable only when every character is one RFC 9110 allows in a field value without
`obs-text` (HTAB, SP, visible ASCII), and the `=?base64?...?=` sentinel wraps UTF-8 in strict Base64.
Its fast path (the C `isascii`/`isprintable` check) must answer exactly as that rule does for any text.
"""

from __future__ import annotations

import base64
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http.common import decode_header

FIELD_VALUE = re.compile(r"[\t\x20-\x7e]*")
"""RFC 9110 section 5.5: field-vchar is VCHAR (0x21-0x7E) or obs-text, with SP and HTAB between; no obs-text here."""


def oracle(value: str) -> str | None:
    """The header's text by the rule: None unless it is a field value; the sentinel's UTF-8 decoded."""
    if not FIELD_VALUE.fullmatch(value):
        return None
    if len(value) >= len("=?base64??=") and value.startswith("=?base64?") and value.endswith("?="):
        inner = value[len("=?base64?") : -len("?=")]
        if not re.fullmatch(r"([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", inner):
            return None
        try:
            return base64.b64decode(inner).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value


def wrapped(text: str) -> str:
    """`text` in the Base64 sentinel."""
    return "=?base64?" + base64.b64encode(text.encode("utf-8", "surrogatepass")).decode() + "?="


EDGES = [
    "",
    "\t",
    " ",
    "~",
    "\x7f",
    "\x1f",
    "\x00",
    "é",
    "\u2028",
    "a\tb",
    "\x85",
    "\xa0",
    "=?base64??=",
]
VALUES = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from([chr(c) for c in range(0x00, 0x100)] + ["\u2028", "é"])),
    st.text().map(wrapped),
    st.lists(st.sampled_from(EDGES)).map("".join),
    st.text(alphabet="=?base64AZaz09+/\t\x7f").map(lambda inner: f"=?base64?{inner}?="),
)


@settings(max_examples=1500, deadline=None)
@given(VALUES)
@example("echo")
@example("\x7f")
@example("tab\there")
@example("caf\xe9")
def test_decode_header_follows_the_field_value_rule(value: str) -> None:
    """Any value decodes as the rule says: plain ASCII as it is, a forbidden character None, the sentinel decoded."""
    assert decode_header(value) == oracle(value)
