"""Decide which schema definition each example block is an instance of."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from .corpus import Block, Parsed, parse_block
from ..messages.targets import Pairing, Target, is_message, message_target
from ..messages.table import MethodTable, method_table
from ..messages.upstream import Upstream, upstream


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
