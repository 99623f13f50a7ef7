"""Every emitter that puts schema text into generated code, for any text: the module parses after
black, and evaluates back to the same text (docstrings: to what a docstring keeps of it)."""

from __future__ import annotations

import ast
import inspect
import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mcpgen.emit.formatting import format_files
from mcpgen.emit.render import Sources
from mcpgen.emit.literals import comment, docstring, py_literal, string_literal
from shared import kept_by_a_docstring

# Every code point, surrogates included (JSON can carry them), with the characters that break
# quoting drawn far more often than chance would draw them.
TRICKY = st.sampled_from(['"', '"', "\\", "'", "\n", "\r", "\t", " ", "{", "}", "#", "\x00", "\u2028", "\x0c"])
# Printable ASCII, with quotes and backslashes, is what most descriptions are (the emitters' fast path).
PLAIN = st.text(st.one_of(st.sampled_from(['"', "\\"]), st.characters(min_codepoint=0x20, max_codepoint=0x7E)), max_size=40)
TEXT = st.one_of(PLAIN, st.text(st.one_of(TRICKY, st.characters(exclude_categories=())), max_size=40))


def indent(doc: str, pad: str) -> str:
    return "\n".join(pad + line if i and line else line for i, line in enumerate(doc.split("\n")))


def module(text: str) -> str:
    """A module with `text` in every position the templates put schema text."""
    doc = docstring(text) or '"""placeholder"""'
    return "\n".join(
        [
            f"# {comment(text)}",
            f"VALUE = {string_literal(text)}",
            f"LITERAL = {py_literal(text)}",
            "",
            "",
            "class Model:",
            f"    {indent(doc, '    ')}",
            "",
            "    field: int",
            f"    {indent(doc, '    ')}",
            "",
            "",
            "ALIAS = int",
            indent(doc, ""),
            "",
        ]
    )


def formatted(source: str) -> str:
    return format_files([Sources({"m.py": source}, {})])[0]["m.py"]


def string_statements(tree: ast.Module) -> list[str]:
    """The value of every bare string statement (docstrings of all three kinds), in order."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found.append(node.value.value)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
@example('a "quoted" word')
@example('three """ quotes')
@example("C:\\new\\table")
@example("two\nlines")
def test_any_text_survives_every_emitter(text: str) -> None:
    source = formatted(module(text))
    tree = ast.parse(source)
    namespace: dict[str, Any] = {}
    exec(compile(tree, "m.py", "exec"), namespace)
    assert namespace["VALUE"] == text and namespace["LITERAL"] == text
    first = source.split("\n", 1)[0]
    assert first.startswith("#") and json.loads('"' + first[2:] + '"') == text
    docs = string_statements(tree)
    assert len(docs) == 3  # the comment hid nothing, no docstring split or merged
    expected = kept_by_a_docstring(text) or "placeholder"
    assert [inspect.cleandoc(d) for d in docs] == [expected] * 3
    assert inspect.cleandoc(namespace["Model"].__doc__) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
@example("ends with a quote\"")
@example("trailing spaces   \nnext line")
@example("a\ttab")
def test_what_the_emitters_write_is_black_s_layout_without_black(text: str) -> None:
    """The templates' chunks skip black when every line fits (`settled`): for any schema text, what the
    emitters write must then already be what black writes."""
    for long in (text, text * 5):  # and lines longer than black's limit
        source = module(long).replace("# \n", "#\n", 1)  # no label's value is empty (provenance.py)
        assert format_files([Sources({"m.py": source}, {})], laid_out=True)[0]["m.py"] == formatted(source)


@given(st.one_of(st.integers(), st.floats(), st.booleans(), st.none()))
def test_scalar_literals_round_trip(value: Any) -> None:
    back = eval(py_literal(value), {"__builtins__": {"float": float}})
    assert type(back) is type(value)
    assert back == value or (value != value and back != back)  # NaN
