"""Decide which schema definition each example block is an instance of."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from .corpus import Block, Parsed, parse_block
from .table import MethodTable, method_table
from .upstream import Upstream, upstream


@dataclass(frozen=True)
class Target:
    """What to check a block as: a definition, and which part of the block is its instance."""

    definition: str
    kind: str  # request, notification, response, error, mapped or typed
    reason: str
    pointer: str = ""  # JSON pointer of the instance inside the block ("" = the whole block)
    inside: str = ""  # the block is the value at this JSON pointer of an otherwise empty instance
    each: bool = False  # the selected value is an array whose every item is an instance
    envelope: str | None = None  # a definition the whole block is also checked against
    method: str | None = None  # the method of a request, notification or response, when the schema has it


@dataclass(frozen=True)
class Classified:
    """A block with its parsed value and its target, or the reason it is skipped or unknown."""

    block: Block
    parsed: Parsed
    target: Target | None
    skip: str | None = None

    @property
    def unknown(self) -> bool:
        """True for a JSON block nothing could classify."""
        return self.target is None and self.skip is None


def block_key(block: Block) -> str:
    """The key of a block in golden and map files: `<source>/<file>`."""
    return f"{block.source}/{block.file}"


def target_from_map(entry: Mapping[str, Any]) -> Target | str:
    """A reviewed map entry as a Target, or the skip reason it records."""
    if "skip" in entry:
        return str(entry["skip"])
    return Target(
        definition=entry["definition"],
        kind="mapped",
        reason=entry.get("reason", ""),
        pointer=entry.get("pointer", ""),
        inside=entry.get("inside", ""),
        each=bool(entry.get("each", False)),
        envelope=entry.get("envelope"),
    )


def is_message(value: Any) -> bool:
    """True for a JSON-RPC 2.0 message object."""
    return isinstance(value, dict) and "jsonrpc" in value


def _id_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class Pairing:
    """Remembers the requests seen per group so a response finds the request with its id."""

    def __init__(self) -> None:
        self._pending: dict[tuple[str, str], str] = {}

    def note(self, group: str, message: Mapping[str, Any]) -> None:
        """Record a request (a message with `method` and `id`) of `group`."""
        if isinstance(message.get("method"), str) and "id" in message:
            self._pending[(group, _id_key(message["id"]))] = message["method"]

    def method_of(self, group: str, message: Mapping[str, Any]) -> str | None:
        """For a response, the method of the latest request of `group` with its id."""
        if "id" not in message or "method" in message:
            return None
        return self._pending.get((group, _id_key(message["id"])))


def message_target(value: Mapping[str, Any], table: MethodTable, schema: Upstream, method: str | None) -> Target | None:
    """The target of a JSON-RPC message; `method` is the paired request's method for a response."""
    env = table.envelope
    if "error" in value:
        return Target(env.error, "error", "JSON-RPC error response")
    if isinstance(value.get("method"), str):
        name = value["method"]
        kind = "request" if "id" in value else "notification"
        spec = table.methods.get(name)
        if spec is None:
            generic = env.request if kind == "request" else env.notification
            return Target(generic, kind, f"method {name} is not in the schema: generic {kind}")
        envelope = env.request if spec.kind == "request" else env.notification
        note = "" if spec.kind == kind else f", a {spec.kind} shown as a {kind}"
        return Target(spec.message, spec.kind, f"method {name}{note}", envelope=envelope, method=name)
    if "result" in value:
        spec = table.methods.get(method) if method is not None else None
        if spec is None or not spec.results:
            return None
        chosen = next((c for c in spec.results if schema.accepts(c, value["result"])), spec.results[0])
        return Target(
            chosen,
            "response",
            f"result of {method} (request id {_id_key(value.get('id'))})",
            pointer="/result",
            envelope=spec.response or env.result,
            method=method,
        )
    return None


def classify(
    blocks: Iterable[Block],
    table: MethodTable,
    schema: Upstream,
    mapping: Mapping[str, Mapping[str, Any]],
) -> list[Classified]:
    """Classify blocks in document order: messages by method and id, fragments by the reviewed map."""
    pairing = Pairing()
    out: list[Classified] = []
    for block in blocks:
        parsed = parse_block(block)
        if parsed.skip is not None:
            out.append(Classified(block, parsed, None, parsed.skip))
            continue
        value = parsed.value
        if is_message(value):
            pairing.note(block.group, value)
        entry = mapping.get(block_key(block))
        if entry is not None:
            t = target_from_map(entry)
            out.append(Classified(block, parsed, None, t) if isinstance(t, str) else Classified(block, parsed, t))
        elif block.source == "examples":
            out.append(Classified(block, parsed, Target(block.group, "typed", "per-type example folder")))
        elif is_message(value):
            out.append(Classified(block, parsed, message_target(value, table, schema, pairing.method_of(block.group, value))))
        else:
            out.append(Classified(block, parsed, None))
    return out


def classify_revision(schema_dir: Path | None, revision: str, blocks: Iterable[Block], mapping: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[Classified]:
    """Classify the blocks of one revision with its method table, schema and map section."""
    return classify(blocks, method_table(schema_dir, revision), upstream(schema_dir, revision), mapping.get(revision, {}))
