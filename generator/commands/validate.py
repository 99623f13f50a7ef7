"""`mcpgen validate`: check files of JSON-RPC messages against one revision, like the example harness."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import click

from ..errors import McpgenError
from ..messages.conversation import NO_HANDSHAKE, Conversation
from ..messages.findings import Finding
from ..messages.handshake import Handshake
from ..messages.wire import TOO_DEEP, Message, not_json, parse, unwrap
from ..reporting import reported
from ..inputs.pins import KNOWN_REVISIONS

_LINE_SUFFIXES = (".jsonl", ".ndjson")
MAX_ERRORS = 10
"""Errors shown per failed message; the rest are counted."""


class InputError(McpgenError):
    """A message file cannot be read."""


@dataclass(frozen=True)
class Failure:
    """A message that fails: where it is and every reason, of which the first MAX_ERRORS are kept."""

    file: str
    line: int
    errors: tuple[Finding, ...]
    count: int

    def lines(self) -> list[str]:
        """The failure as text lines `file:line: definition at path: error`."""
        where = f"{self.file}:{self.line}"
        out = [f"{where}: {e}" if e.definition else f"{where}: {e.message}" for e in self.errors]
        if self.count > len(self.errors):
            out.append(f"{where}: … and {self.count - len(self.errors)} more errors")
        return out

    def as_json(self) -> dict[str, Any]:
        """The failure as a JSON object."""
        errors = [{"definition": e.definition, "path": e.path or "/", "error": e.message} for e in self.errors]
        return {"file": self.file, "line": self.line, "errors": errors, "error_count": self.count}


def _parses_as_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def read_messages(path: Path) -> Iterator[Message]:
    """The messages of a JSON file (one message) or of a JSONL file (one per line); a line that is not JSON is one too."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    if not path.name.endswith(_LINE_SUFFIXES):
        try:
            yield unwrap(json.loads(text), str(path), 1)
            return
        except (json.JSONDecodeError, RecursionError) as exc:
            if not any(_parses_as_object(line) for line in text.split("\n")):  # else: a JSONL file
                if isinstance(exc, RecursionError):
                    yield Message(str(path), 1, None, None, unreadable=TOO_DEEP)
                else:
                    yield Message(str(path), exc.lineno, None, None, unreadable=not_json(exc))
                return
    for number, line in enumerate(text.split("\n"), start=1):  # not splitlines: a JSON string may hold U+2028
        if line.strip():
            yield parse(line, str(path), number)


@dataclass(frozen=True)
class Validation:
    """The outcome of validating files: the revisions used (and the handshakes that set them, when
    inferred), the number of messages checked, and the failures."""

    revisions: list[str]
    messages: int
    failures: list[Failure]
    inferred_from: list[Handshake]

    @property
    def revision(self) -> str | None:
        """The revision the files were judged against (the first, when sessions negotiated several; None
        when they hold no message that needed one)."""
        return self.revisions[0] if self.revisions else None


def validate_files(revision: str | None, files: tuple[Path, ...], schema_dir: Path | None) -> Validation:
    """Validate every message of `files` through the package mcpgen generates now, against `revision`, or
    (None) the one each conversation's handshake negotiates (a tap capture's HTTP sessions are one
    conversation each; one without a handshake takes the first handshake's); a handshake that names
    another revision than the one given fails."""
    entries = [m for f in files for m in read_messages(f)]
    conversations: dict[str | None, Conversation] = {}
    verdicts = []
    for entry in entries:
        conversation = conversations.get(entry.session)
        if conversation is None:
            conversation = conversations[entry.session] = Conversation(revision, schema_dir)
        verdicts.extend(conversation.add(entry))
    for conversation in sorted(conversations.values(), key=lambda c: not c.handshakes):
        first = next((c.handshakes[0].version for c in conversations.values() if c.handshakes), None)
        verdicts.extend(conversation.finish(first))
    if not verdicts and revision is None:
        raise McpgenError(NO_HANDSHAKE)
    order = {(m.file, m.line): i for i, m in enumerate(entries)}
    verdicts.sort(key=lambda v: order[(v.message.file, v.message.line)])
    failures = [
        Failure(v.message.file, v.message.line, tuple(v.findings[:MAX_ERRORS]), len(v.findings)) for v in verdicts if v.findings
    ]
    used = list(dict.fromkeys(v.revision for v in verdicts if v.revision is not None)) or ([revision] if revision else [])
    handshakes = [h for c in conversations.values() for h in c.handshakes]
    return Validation(used, len(verdicts), failures, handshakes)


@click.command("validate")
@click.option(
    "--revision", type=click.Choice(KNOWN_REVISIONS),
    help="Protocol revision to validate against (default: the one each conversation's initialize, server/discover or request _meta names).",
)  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), envvar="MCPGEN_SCHEMA_DIR", help="Directory with <revision>/schema.json files; env MCPGEN_SCHEMA_DIR.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@reported
def validate_command(revision: str | None, fmt: str, schema_dir: Path | None, files: tuple[Path, ...]) -> None:
    """Check JSON or JSONL files of MCP messages against a revision; exit 1 when any message fails."""
    done = validate_files(revision, files, schema_dir)
    for handshake in done.inferred_from:
        click.echo(f"mcpgen: validating against {handshake.version}, the version {handshake.place} names", err=True)
    if fmt == "json":
        failures = [f.as_json() for f in done.failures]
        report = {"revision": done.revision, "revisions": done.revisions, "messages": done.messages, "failed": len(failures), "failures": failures}
        click.echo(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        for f in done.failures:
            click.echo("\n".join(f.lines()))
        click.echo(f"{done.messages} messages, {len(done.failures)} failed ({', '.join(done.revisions) or 'no revision'})", err=True)
    sys.exit(1 if done.failures else 0)
