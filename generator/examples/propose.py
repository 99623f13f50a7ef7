"""Propose map entries for blocks the harness cannot classify by themselves (to be reviewed by hand).

Run `python -m mcpgen.examples.propose [--schema-dir DIR] [--map tests/doc_examples_map.json]`: it prints,
per unmapped block, the definitions whose upstream schema accepts it, best guess first, as JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

import click

from ..inputs.pins import KNOWN_REVISIONS
from ..messages.targets import is_message
from .classify import Classified, block_key, classify_revision
from .corpus import Block, all_blocks, default_schema_dir
from .golden import load_mapping
from ..messages.upstream import Upstream, upstream

# Open definitions that accept almost any object; proposed only when nothing narrower fits.
_PROBES: tuple[Any, ...] = ({}, {"zz_probe": 1})


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", text)}


def _open(schema: Upstream, name: str) -> bool:
    return all(schema.accepts(name, p) for p in _PROBES)


def candidates(schema: Upstream, block: Block, value: Any) -> list[dict[str, Any]]:
    """Definitions accepting `value` (or its `capabilities` member, or each array item), ranked by context."""
    views: list[tuple[dict[str, Any], Any]] = [({}, value)]
    if isinstance(value, dict) and list(value) == ["capabilities"]:
        views.append(({"pointer": "/capabilities"}, value["capabilities"]))
    if isinstance(value, dict) and "result" in value:
        views.append(({"pointer": "/result"}, value["result"]))
    if isinstance(value, list) and value:
        views.append(({"each": True}, value))
    context = _words(" ".join(block.headings) + " " + (block.label or "") + " " + block.file)
    out = []
    for extra, v in views:
        for name in schema.definitions:
            items = v if extra.get("each") else [v]
            if not all(schema.accepts(name, i) for i in items):
                continue
            score = len(_words(name) & context) * 2 - (5 if _open(schema, name) else 0)
            if isinstance(items[0], dict) and isinstance(items[0].get("type"), str):
                score += 3 if items[0]["type"].lower() in name.lower() else 0
            out.append({"definition": name, **extra, "score": score})
    return sorted(out, key=lambda c: -c["score"])[:6]


_CONTENT = {
    "text": "TextContent",
    "image": "ImageContent",
    "audio": "AudioContent",
    "resource": "EmbeddedResource",
    "resource_link": "ResourceLink",
    "tool_use": "ToolUseContent",
    "tool_result": "ToolResultContent",
}
_CLIENT_CAPS_META = "/_meta/io.modelcontextprotocol~1clientCapabilities"


def _side(block: Block) -> str:
    return "Client" if block.file.startswith("client/") else "Server"


def guess(schema: Upstream, block: Block, value: Any) -> dict[str, Any] | None:
    """A first proposal from the block's shape and place in the docs; a human reviews every one."""
    defs = schema.definitions
    label = (block.label or "").lower()
    if isinstance(value, dict) and list(value) == ["capabilities"]:
        return {"definition": f"{_side(block)}Capabilities", "pointer": "/capabilities", "reason": "capabilities object under a Capabilities heading, wrapped in `capabilities`"}
    if isinstance(value, dict) and list(value) == ["_meta"] and "io.modelcontextprotocol/clientCapabilities" in value["_meta"]:
        return {"definition": "ClientCapabilities", "pointer": _CLIENT_CAPS_META, "reason": "client capabilities carried in request `_meta`"}
    if isinstance(value, dict) and "jsonrpc" in value and isinstance(value.get("result"), dict) and "content" in value["result"]:
        return {"definition": "CallToolResult", "pointer": "/result", "reason": "tools/call response whose request is not shown on the page"}
    if isinstance(value, dict) and "method" in value and "jsonrpc" not in value:
        return {"definition": "?request", "reason": "input request embedded in InputRequiredResult.inputRequests"}
    if "client result" in label:
        return {"definition": "?result", "reason": "client result returned inside inputResponses"}
    if isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"] in _CONTENT and _CONTENT[value["type"]] in defs:
        return {"definition": _CONTENT[value["type"]], "reason": f"content block of type {value['type']!r}"}
    if isinstance(value, dict) and "inputSchema" in value:
        return {"definition": "Tool", "reason": "tool definition"}
    if isinstance(value, dict) and "uri" in value and ("text" in value or "blob" in value):
        name = "TextResourceContents" if "text" in value else "BlobResourceContents"
        return {"definition": name, "reason": "resource contents"}
    if isinstance(value, dict) and "hints" in value:
        return {"definition": "ModelPreferences", "reason": "model preferences"}
    if isinstance(value, dict) and "role" in value and "content" in value:
        name = "SamplingMessage" if "sampling" in block.file else "PromptMessage"
        return {"definition": name, "reason": "a message of a conversation"}
    items = value if isinstance(value, list) else [value]
    if all(isinstance(i, dict) and "uri" in i and "name" in i for i in items) and items:
        name = "Root" if "roots" in block.file else "Resource"
        return {"definition": name, "each": isinstance(value, list), "reason": f"{name.lower()} list entry"}
    return None


def unmapped(classified: Iterable[Classified]) -> Iterable[Classified]:
    """Blocks with a JSON value and no target, plus responses whose paired result looks implausible."""
    for c in classified:
        if c.unknown:
            yield c
        elif c.target is not None and c.target.kind == "response" and is_message(c.parsed.value):
            result = c.parsed.value.get("result")
            if isinstance(result, dict) and c.target.definition == "EmptyResult" and set(result) - {"_meta"}:
                yield c


@click.command()
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option("--map", "map_path", type=click.Path(path_type=Path, dir_okay=False), default=Path("tests/doc_examples_map.json"))
def main(schema_dir: Path | None, map_path: Path) -> None:
    """Print proposals for every block the reviewed map does not cover yet."""
    schema_dir = schema_dir or default_schema_dir()
    mapping = load_mapping(map_path.resolve().parent.parent) if map_path.is_file() else {}
    proposals: dict[str, dict[str, Any]] = {}
    for revision in KNOWN_REVISIONS:
        schema = upstream(schema_dir, revision)
        for c in unmapped(classify_revision(schema_dir, revision, all_blocks(schema_dir, revision), mapping)):
            proposals.setdefault(revision, {})[block_key(c.block)] = {
                "headings": " > ".join(c.block.headings),
                "label": c.block.label,
                "value": json.dumps(c.parsed.value, ensure_ascii=False)[:160],
                "proposal": guess(schema, c.block, c.parsed.value),
                "candidates": candidates(schema, c.block, c.parsed.value),
            }
    click.echo(json.dumps(proposals, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
