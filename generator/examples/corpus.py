"""Read the example corpus: documentation blocks, per-type examples and seed examples."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SourceError

SCHEMA_DIR_ENV = "MCPGEN_SCHEMA_DIR"


@dataclass(frozen=True)
class Block:
    """One JSON example: where it comes from, its raw text and what surrounds it in its document."""

    source: str  # "doc-examples", "examples" (per-type) or "seed-examples"
    revision: str
    file: str  # path relative to the source folder; the key in golden and map files
    group: str  # responses pair with requests of the same group (a docs page or a seed file)
    headings: tuple[str, ...]
    label: str | None
    strict: bool
    text: str


@dataclass(frozen=True)
class Parsed:
    """A block's JSON value, or why it has none."""

    value: Any = None
    skip: str | None = None
    comments_stripped: bool = False


def default_schema_dir() -> Path:
    """The corpus folder: `$MCPGEN_SCHEMA_DIR`, else `shared/mcp-spec` beside the repository."""
    env = os.environ.get(SCHEMA_DIR_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "mcp-spec"


def seed_dir(schema_dir: Path) -> Path:
    """The seed-examples folder that sits beside the corpus."""
    return schema_dir.parent / "seed-examples"


def _read_index(path: Path) -> list[dict[str, Any]]:
    try:
        entries = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise SourceError(f"cannot read example index {path}: {exc}") from exc
    if not isinstance(entries, list):
        raise SourceError(f"example index {path} is not a JSON array")
    return entries


def doc_blocks(schema_dir: Path, revision: str) -> list[Block]:
    """Every documentation block of a revision, in page order."""
    root = schema_dir / revision / "doc-examples"
    out = []
    for e in _read_index(root / "index.json"):
        out.append(
            Block(
                source="doc-examples",
                revision=revision,
                file=e["file"],
                group=e["page"],
                headings=tuple(e.get("headings") or ()),
                label=e.get("label"),
                strict=bool(e.get("strict_json")),
                text=(root / e["file"]).read_text("utf-8"),
            )
        )
    return out


def type_examples(schema_dir: Path, revision: str) -> list[Block]:
    """The per-definition examples (`examples/<Definition>/*.json`) of a revision, if it has any."""
    root = schema_dir / revision / "examples"
    if not root.is_dir():
        return []
    return [
        Block(
            source="examples",
            revision=revision,
            file=p.relative_to(root).as_posix(),
            group=p.parent.name,
            headings=(p.parent.name,),
            label=None,
            strict=True,
            text=p.read_text("utf-8"),
        )
        for p in sorted(root.glob("*/*.json"))
    ]


def seed_blocks(schema_dir: Path, revision: str | None = None) -> list[Block]:
    """The seed examples (of one revision, or all), in index order."""
    root = seed_dir(schema_dir)
    if not (root / "index.json").is_file():
        return []
    return [
        Block(
            source="seed-examples",
            revision=e["revision"],
            file=e["file"],
            group=e["seed"],
            headings=(),
            label=None,
            strict=True,
            text=(root / e["file"]).read_text("utf-8"),
        )
        for e in _read_index(root / "index.json")
        if revision is None or e["revision"] == revision
    ]


def all_blocks(schema_dir: Path, revision: str) -> list[Block]:
    """Documentation blocks, per-type examples and seed examples of one revision."""
    return doc_blocks(schema_dir, revision) + type_examples(schema_dir, revision) + seed_blocks(schema_dir, revision)


def strip_comments(text: str) -> str:
    """`text` without `//` and `/* */` comments outside JSON strings."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def parse_block(block: Block) -> Parsed:
    """The JSON value of a block; comments are stripped from a non-strict block before parsing."""
    try:
        return Parsed(value=json.loads(block.text))
    except ValueError as exc:
        first_error = exc
    stripped = strip_comments(block.text)
    try:
        return Parsed(value=json.loads(stripped), comments_stripped=True)
    except ValueError as exc:
        if "..." in stripped:
            return Parsed(skip="not JSON: '...' placeholder")
        if stripped.lstrip().startswith('"'):
            return Parsed(skip="not JSON: a bare object member, not a value")
        if _parses(_TRAILING_COMMA.sub(r"\1", stripped)):
            return Parsed(skip="not JSON: trailing comma")
        reason = exc if stripped != block.text else first_error
        return Parsed(skip=f"not JSON: {reason.msg} at line {reason.lineno} column {reason.colno}")  # type: ignore[attr-defined]
