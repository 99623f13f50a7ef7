"""Templates hold layout, not protocol knowledge: no MCP definition name, property or method as a string."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from shared import REVISIONS

# JSON-RPC 2.0's own envelope and JSON Schema's `const` (the constant-field marker) are not MCP's;
# nor is pydantic's validation-error vocabulary, read and written in the one module that handles it,
# nor ASGI's message keys in the HTTP transport.
ALLOWED = {"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "2.0", "const"}
ALLOWED_IN: dict[str, set[str]] = {}
MAX_TEMPLATE_LINES = 1200
"""Templates hold only what differs per schema; what is the same for every schema is runtime source."""
_DOCSTRING = re.compile(r'"""[\s\S]*?"""')
_JINJA = re.compile(r"\{%[\s\S]*?%\}|\{\{[\s\S]*?\}\}|\{#[\s\S]*?#\}")
_LITERAL = re.compile(r'"([^"\\\n]*)"|\'([^\'\\\n]*)\'')
_TYPES_ATTRIBUTE = re.compile(r"\btypes\.([A-Za-z_]\w*)")


def _wire_words(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            if key == "const" and isinstance(value, str):
                yield value
            yield from _wire_words(value)
    elif isinstance(node, list):
        for item in node:
            yield from _wire_words(item)


def test_templates_name_no_protocol_definition_key_or_method(schema_dir: Path) -> None:
    words: set[str] = set()
    for revision in REVISIONS:
        schema = json.loads((schema_dir / revision / "schema.json").read_text("utf-8"))
        definitions = schema.get("$defs") or schema["definitions"]
        words |= set(definitions) | set(_wire_words(definitions))
    found = []
    for template in sorted(resources.files("mcpgen.templates").iterdir(), key=lambda t: t.name):
        if not template.name.endswith(".jinja"):
            continue
        text = _JINJA.sub("", _DOCSTRING.sub("", template.read_text("utf-8")))
        allowed = ALLOWED | ALLOWED_IN.get(template.name, set())
        for match in _LITERAL.finditer(text):
            literal = match.group(1) if match.group(1) is not None else match.group(2)
            if literal in words and literal not in allowed:
                found.append(f"{template.name}: {literal!r}")
        found += [f"{template.name}: types.{name}" for name in _TYPES_ATTRIBUTE.findall(text) if name in words]
    assert found == []
    assert {"InitializeRequestParams", "DiscoverResult", "cacheScope", "ttlMs", "notifications/cancelled"} <= words


def test_templates_stay_small_what_every_schema_shares_is_runtime_source() -> None:
    lines = sum(
        len(t.read_text("utf-8").splitlines())
        for t in resources.files("mcpgen.templates").iterdir()
        if t.name.endswith(".jinja")
    )
    assert lines <= MAX_TEMPLATE_LINES
