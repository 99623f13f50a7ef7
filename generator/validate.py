"""`mcpgen validate`: check files of JSON-RPC messages against one revision, like the example harness."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import click

from .errors import McpgenError
from .harness.check import mcpgen_findings, schema_findings
from .harness.classify import Pairing, Target, is_message, message_target
from .harness.package import generated_package
from .harness.table import MethodTable, method_table
from .harness.upstream import Upstream, upstream
from .reporting import reported
from .revisions import KNOWN_REVISIONS

_SENDER = {"c2s": "client", "s2c": "server"}


class InputError(McpgenError):
    """A message file cannot be read or is not JSON."""


@dataclass(frozen=True)
class Message:
    """One message of an input file, with its line and, when given, its direction."""

    file: str
    line: int
    value: Any
    direction: str | None


@dataclass(frozen=True)
class Problem:
    """Why one message fails: the definition checked, the field path and the message."""

    file: str
    line: int
    definition: str
    path: str
    error: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.definition} at {self.path}: {self.error}"


def _unwrap(value: Any, file: str, line: int) -> Message:
    if isinstance(value, dict) and set(value) == {"dir", "msg"}:
        if value["dir"] not in _SENDER:
            raise InputError(f"{file}:{line}: 'dir' must be \"c2s\" or \"s2c\", not {value['dir']!r}")
        return Message(file, line, value["msg"], value["dir"])
    return Message(file, line, value, None)


def read_messages(path: Path) -> Iterator[Message]:
    """The messages of a JSON file (one message, or a batch array) or of a JSONL file (one per line)."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    else:
        for item in whole if isinstance(whole, list) else [whole]:
            yield _unwrap(item, str(path), 1)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{path}:{number}: not JSON ({exc})") from exc
        yield _unwrap(value, str(path), number)


class Validator:
    """Checks messages of one revision in order, pairing responses with earlier requests by id."""

    def __init__(self, table: MethodTable, schema: Upstream, package: ModuleType) -> None:
        self.table = table
        self.schema = schema
        self.package = package
        self.pairing = Pairing()

    def _group(self, msg: Message, responder: bool) -> str:
        if msg.direction is None:
            return msg.file
        side = _SENDER[msg.direction]
        if responder:
            side = "client" if side == "server" else "server"
        return f"{msg.file}#{side}"

    def problem(self, msg: Message) -> Problem | None:
        """The first problem of a message, or None when it is a valid message of the revision."""
        value = msg.value
        if not is_message(value):
            return Problem(msg.file, msg.line, "JSONRPCMessage", "/", "not a JSON-RPC message (no 'jsonrpc' member)")
        is_response = "method" not in value
        if not is_response:
            self.pairing.note(self._group(msg, responder=False), value)
        method = self.pairing.method_of(self._group(msg, responder=True), value) if is_response else None
        target = message_target(value, self.table, self.schema, method)
        if target is None:
            target = Target(self.table.envelope.result, "response", "response to an unknown request")
        spec = self.table.methods.get(value.get("method", ""))
        if spec is not None and msg.direction is not None and _SENDER[msg.direction] not in spec.senders:
            who = _SENDER[msg.direction]
            return Problem(msg.file, msg.line, target.definition, "/method", f"{spec.name} is not sent by the {who}")
        return first_problem(msg, target, self.schema, self.package)


def first_problem(msg: Message, target: Target, schema: Upstream, package: ModuleType) -> Problem | None:
    """The upstream schema's objection to a message, else the generated package's, else None."""
    found = schema_findings(target, msg.value, schema) or mcpgen_findings(target, msg.value, package)
    return Problem(msg.file, msg.line, found[0].definition, found[0].path or "/", found[0].message) if found else None


def validate_files(revision: str, files: tuple[Path, ...], schema_dir: Path | None) -> tuple[int, list[Problem]]:
    """Validate every message of `files`; returns the number of messages and the problems found."""
    messages = [m for f in files for m in read_messages(f)]
    validator = Validator(method_table(schema_dir, revision), upstream(schema_dir, revision), generated_package(revision, schema_dir))
    problems = [p for p in (validator.problem(m) for m in messages) if p is not None]
    return len(messages), problems


@click.command("validate")
@click.option("--revision", required=True, type=click.Choice(KNOWN_REVISIONS), help="Protocol revision to validate against.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), envvar="MCPGEN_SCHEMA_DIR", help="Directory with <revision>/schema.json files; env MCPGEN_SCHEMA_DIR.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@reported
def validate_command(revision: str, fmt: str, schema_dir: Path | None, files: tuple[Path, ...]) -> None:
    """Check JSON or JSONL files of MCP messages against a revision; exit 1 when any message fails."""
    count, problems = validate_files(revision, files, schema_dir)
    if fmt == "json":
        click.echo(json.dumps({"revision": revision, "messages": count, "failures": [asdict(p) for p in problems]}, indent=1, ensure_ascii=False))
    else:
        for p in problems:
            click.echo(str(p))
        click.echo(f"{count} messages, {len(problems)} failed ({revision})", err=True)
    sys.exit(1 if problems else 0)
