"""Black's layout for the statements templates build from schema names, so that black leaves them alone.

Only a speed-up: black still formats every chunk that is not literal template text, and formats it
once instead of twice when it changes nothing. A layout that misses black's is corrected by black.
"""

from __future__ import annotations

from typing import Iterable, Iterator

LINE_LENGTH = 100
"""The line length black formats generated files to."""

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


def _top_level(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` outside brackets and string literals, pieces stripped."""
    cuts = [i for i, _, depth in _outside_strings(text) if depth == 0 and text.startswith(separator, i)]
    pieces = [text[a:b].strip() for a, b in zip([0, *(c + len(separator) for c in cuts)], [*cuts, len(text)])]
    return pieces if pieces[-1] else pieces[:-1]


def split_items(body: str) -> list[str]:
    """`body` cut at its top-level commas (outside brackets and string literals), items stripped."""
    return _top_level(body, ",")


def _fits(indent: int, text: str) -> bool:
    return indent + len(text) <= LINE_LENGTH


def bracketed(indent: int, head: str, body: str, tail: str) -> str:
    """`head + body + tail` laid out as black lays out a statement whose last bracket pair holds `body`.

    `head` ends with the opening bracket and `tail` starts with the closing one; the statement is
    indented by `indent` spaces, and so is every line but the first in the result (the template
    writes the first line's indentation). One line when it fits, else `body` inside the brackets.
    """
    if _fits(indent, head + body + tail):
        return head + body + tail
    return f"{head}\n{_inside(indent + 4, body)}\n{' ' * indent}{tail}"


def _inside(indent: int, body: str) -> str:
    """The lines of `body` between brackets: one when it fits, else one per item with a trailing comma."""
    if _fits(indent, body):
        return " " * indent + body
    items = split_items(body)
    if len(items) > 1:
        return "\n".join(_line(indent, item, ",") for item in items)
    return _line(indent, body, "")


def _line(indent: int, item: str, trailer: str) -> str:
    """One item between brackets: as it is when it fits, else cut before its top-level `|`, else at the
    bracket pair that ends it."""
    if _fits(indent, item + trailer):
        return " " * indent + item + trailer
    parts = _top_level(item, " | ")
    if len(parts) > 1:
        last = len(parts) - 1
        return "\n".join(_line(indent, ("| " if i else "") + p, trailer if i == last else "") for i, p in enumerate(parts))
    return " " * indent + wrapped(indent, "", item, trailer)


def rhs(indent: int, head: str, value: str) -> str:
    """`head + value` laid out as black lays out an assignment's value or an annotation (`head` ends
    with `= ` or `: `): in parentheses when it has top-level commas or `|`, else at its last bracket pair."""
    if _fits(indent, head + value):
        return head + value
    if len(split_items(value)) > 1 or len(_top_level(value, " | ")) > 1:
        return f"{head}(\n{_inside(indent + 4, value)}\n{' ' * indent})"
    return wrapped(indent, head, value, "")


def from_import(module: str, names: str) -> str:
    """`from module import names` as black writes it: one line when it fits, else one name per line."""
    line = f"from {module} import {names}"
    return line if _fits(0, line) else f"from {module} import {tuple_literal(split_items(names), 0)}"


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
