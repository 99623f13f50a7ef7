"""Black's layout for the statements templates build from schema names, so that black leaves them alone.

Only a speed-up: black still formats every chunk that is not literal template text, and formats it
once instead of twice when it changes nothing. A layout that misses black's is corrected by black.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from .formatting import LINE_LENGTH

_OPEN = "([{"
_CLOSE = ")]}"


def _outside_strings(text: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) of each character of `text` outside string literals."""
    depth = 0
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
            continue
        yield i, ch, depth
        depth += (ch in _OPEN) - (ch in _CLOSE)


def split_items(body: str) -> list[str]:
    """`body` cut at its top-level commas (outside brackets and string literals), items stripped."""
    cuts = [i for i, ch, depth in _outside_strings(body) if ch == "," and depth == 0]
    items = [body[a + 1 : b].strip() for a, b in zip([-1, *cuts], [*cuts, len(body)])]
    return items if items[-1] else items[:-1]


def bracketed(indent: int, head: str, body: str, tail: str) -> str:
    """`head + body + tail` laid out as black lays out a statement whose last bracket pair holds `body`.

    `head` ends with the opening bracket and `tail` starts with the closing one; the statement is
    indented by `indent` spaces, and so is every line but the first in the result (the template
    writes the first line's indentation). One line when it fits; else `body` alone on the next line;
    else one item of `body` per line, with a trailing comma.
    """
    pad = " " * indent
    if len(pad + head + body + tail) <= LINE_LENGTH:
        return head + body + tail
    inner = pad + "    "
    if len(inner + body) <= LINE_LENGTH:
        return f"{head}\n{inner}{body}\n{pad}{tail}"
    return head + "\n" + "".join(f"{inner}{item},\n" for item in split_items(body)) + pad + tail


def tuple_literal(items: Iterable[str], indent: int) -> str:
    """A tuple display of `items` (source fragments) as black writes it in a statement indented by
    `indent` spaces: one item keeps its comma, several go one per line (the trailing comma is magic)."""
    listed = list(items)
    if len(listed) < 2:
        return "(" + "".join(f"{item}," for item in listed) + ")"
    pad = " " * indent
    return "(\n" + "".join(f"{pad}    {item},\n" for item in listed) + pad + ")"


def wrapped(indent: int, prefix: str, value: str, suffix: str) -> str:
    """`prefix + value + suffix` laid out by `bracketed` at the bracket pair that ends `value`, if one does."""
    opened = [i for i, ch, depth in _outside_strings(value) if ch in _OPEN and depth == 0]
    if not value or value[-1] not in _CLOSE or not opened:
        return prefix + value + suffix
    start = opened[-1]
    return bracketed(indent, prefix + value[: start + 1], value[start + 1 : -1], value[-1] + suffix)
