"""`mcpgen validate`: check files of JSON-RPC messages against one revision, like the example harness."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import click

from ..errors import McpgenError
from ..messages.findings import Finding, mcpgen_findings, schema_findings
from ..messages.handshake import Handshake, find_handshake
from ..messages.targets import Pairing, Target, is_message, message_target
from ..messages.bindings import generated_package
from ..messages.table import MethodTable, method_table
from ..messages.upstream import Upstream, upstream
from ..reporting import reported
from ..inputs.pins import KNOWN_REVISIONS

_SENDER = {"c2s": "client", "s2c": "server"}
_LINE_SUFFIXES = (".jsonl", ".ndjson")
MAX_ERRORS = 10
"""Errors shown per failed message; the rest are counted."""


class InputError(McpgenError):
    """A message file cannot be read."""


@dataclass(frozen=True)
class Message:
    """One message of an input file: its line, value, direction when given, and place in a batch."""

    file: str
    line: int
    value: Any
    direction: str | None
    at: str = ""  # JSON pointer of the message in its line (an element of a batch)
    unreadable: str | None = None  # why the line holds no message at all


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


def _unwrap(value: Any, file: str, line: int) -> Message:
    if isinstance(value, dict) and set(value) == {"dir", "msg"}:
        if value["dir"] not in _SENDER:
            return Message(file, line, value, None, unreadable=f"'dir' must be \"c2s\" or \"s2c\", not {value['dir']!r}")
        return Message(file, line, value["msg"], value["dir"])
    return Message(file, line, value, None)


def _parses_as_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def read_messages(path: Path) -> Iterator[Message]:
    """The messages of a JSON file (one message) or of a JSONL file (one per line); a line that is not JSON is one too."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    if not path.name.endswith(_LINE_SUFFIXES):
        try:
            yield _unwrap(json.loads(text), str(path), 1)
            return
        except json.JSONDecodeError as exc:
            if not any(_parses_as_object(line) for line in text.splitlines()):
                yield Message(str(path), exc.lineno, None, None, unreadable=f"not JSON ({exc})")
                return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            yield Message(str(path), number, None, None, unreadable=f"not JSON ({exc})")
            continue
        yield _unwrap(value, str(path), number)


class Validator:
    """Checks the messages of one revision in order, pairing responses with earlier requests by id."""

    def __init__(self, revision: str, table: MethodTable, schema: Upstream, package: ModuleType) -> None:
        self.revision = revision
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

    def messages(self, entry: Message) -> Iterator[tuple[Message, list[Finding]]]:
        """Every message an entry holds (each element of a batch), with its findings."""
        if entry.unreadable is not None:
            yield entry, [Finding("", "", entry.unreadable)]
        elif isinstance(entry.value, list):
            problem = self._batch_problem(entry.value)
            if problem is not None:
                yield entry, [Finding("JSONRPCMessage", "", problem)]
                return
            for i, item in enumerate(entry.value):
                yield from self.messages(replace(entry, value=item, at=f"{entry.at}/{i}"))
        else:
            yield entry, [replace(f, path=entry.at + f.path) for f in self.findings(entry)]

    def _batch_problem(self, batch: list[Any]) -> str | None:
        """Why a batch is not one this revision allows, or None."""
        forms = self.table.envelope.batches
        if not forms:
            return f"JSON-RPC batches are not allowed in {self.revision} (an array of {len(batch)} messages)"
        if not batch:
            return "an empty batch is not a valid JSON-RPC message"
        kinds = {self._envelope_of(item) for item in batch if isinstance(item, dict)}
        if not any(kinds <= form for form in forms):
            allowed = " or ".join(" and ".join(sorted(form)) for form in forms)
            return f"a batch of {' and '.join(sorted(kinds))}: a batch holds only {allowed}"
        return None

    def _envelope_of(self, value: dict[str, Any]) -> str:
        env = self.table.envelope
        if "method" in value:
            return env.request if "id" in value else env.notification
        return env.error if "error" in value else env.result

    def findings(self, msg: Message) -> list[Finding]:
        """Every reason a message is not a valid message of the revision (empty when it is one)."""
        value = msg.value
        if not is_message(value):
            what = "no 'jsonrpc' member" if isinstance(value, dict) else f"a JSON {type(value).__name__}, not an object"
            return [Finding("JSONRPCMessage", "", f"not a JSON-RPC message ({what})")]
        env = self.table.envelope
        out: list[Finding] = []
        if isinstance(value.get("method"), str):
            method = value["method"]
            self.pairing.note(self._group(msg, responder=False), value)
            spec = self.table.methods.get(method)
            if spec is None or spec.embedded:
                envelope = env.request if "id" in value else env.notification
                where = "sent only inside a result, never as a message" if spec else "not a method"
                out.append(Finding(envelope, "/method", f"unknown method {method[:200]!r}: {where} of {self.revision} (-32601 Method not found)"))
                return out + schema_findings(Target(envelope, "request", "unknown method"), value, self.schema, every=True)
            if msg.direction is not None and _SENDER[msg.direction] not in spec.senders:
                out.append(Finding(spec.message, "/method", f"{method} is not sent by the {_SENDER[msg.direction]}"))
            requested = None
        elif "result" in value or "error" in value:
            requested = self.pairing.method_of(self._group(msg, responder=True), value)
            if requested is None and value.get("id") is not None:
                envelope = env.error if "error" in value else env.result
                out.append(Finding(envelope, "/id", f"response to no request: no earlier request{self._from(msg)} has id {json.dumps(value['id'])}"))
        else:
            return [Finding("JSONRPCMessage", "", "not a request, notification or response (no 'method', 'result' or 'error')")]
        target = message_target(value, self.table, self.schema, requested) or Target(env.result, "response", "response to no request")
        return out + (schema_findings(target, value, self.schema, every=True) or mcpgen_findings(target, value, self.package))

    @staticmethod
    def _from(msg: Message) -> str:
        if msg.direction is None:
            return ""
        return " from the " + ("server" if _SENDER[msg.direction] == "client" else "client")


@dataclass(frozen=True)
class Validation:
    """The outcome of validating files: the revision used (and the handshake it was read from, when
    inferred), the number of messages checked, and the failures."""

    revision: str
    messages: int
    failures: list[Failure]
    inferred_from: Handshake | None = None


def validate_files(revision: str | None, files: tuple[Path, ...], schema_dir: Path | None) -> Validation:
    """Validate every message of `files` through the package mcpgen generates now, against `revision`, or
    (None) the one the trace's handshake names; a handshake that names another revision than the one
    given fails."""
    entries = [m for f in files for m in read_messages(f)]
    handshake = find_handshake((m.file, m.line, m.value) for m in entries if m.unreadable is None)
    inferred = revision is None
    if revision is None:
        revision = _revision_of(handshake)
    validator = Validator(revision, method_table(schema_dir, revision), upstream(schema_dir, revision), generated_package(revision, schema_dir))
    count, failures = 0, []
    for entry in entries:
        for msg, errors in validator.messages(entry):
            count += 1
            if handshake is not None and handshake.version != revision and (msg.file, msg.line, msg.at) == (handshake.file, handshake.line, ""):
                errors = [_mismatch(handshake, revision), *errors]
            if errors:
                failures.append(Failure(msg.file, msg.line, tuple(errors[:MAX_ERRORS]), len(errors)))
    return Validation(revision, count, failures, handshake if inferred else None)


def _revision_of(handshake: Handshake | None) -> str:
    """The revision a handshake names, when mcpgen knows it; else an error asking for --revision."""
    if handshake is None:
        raise McpgenError("pass --revision: no initialize or server/discover message names the protocol version")
    if handshake.version not in KNOWN_REVISIONS:
        raise McpgenError(
            f"{handshake.place} names the protocol version {handshake.version[:100]!r}, which mcpgen does not know "
            f"(known: {', '.join(KNOWN_REVISIONS)}): pass --revision"
        )
    return handshake.version


def _mismatch(handshake: Handshake, revision: str) -> Finding:
    return Finding(
        handshake.definition,
        handshake.path,
        f"{handshake.what} names {handshake.version[:100]!r}, but --revision is {revision} "
        "(leave out --revision to validate against the handshake's version)",
    )


@click.command("validate")
@click.option(
    "--revision", type=click.Choice(KNOWN_REVISIONS),
    help="Protocol revision to validate against (default: the one the trace's initialize or server/discover names).",
)  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), envvar="MCPGEN_SCHEMA_DIR", help="Directory with <revision>/schema.json files; env MCPGEN_SCHEMA_DIR.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@reported
def validate_command(revision: str | None, fmt: str, schema_dir: Path | None, files: tuple[Path, ...]) -> None:
    """Check JSON or JSONL files of MCP messages against a revision; exit 1 when any message fails."""
    done = validate_files(revision, files, schema_dir)
    if done.inferred_from is not None:
        click.echo(f"mcpgen: validating against {done.revision}, the version {done.inferred_from.place} names", err=True)
    if fmt == "json":
        failures = [f.as_json() for f in done.failures]
        report = {"revision": done.revision, "messages": done.messages, "failed": len(failures), "failures": failures}
        click.echo(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        for f in done.failures:
            click.echo("\n".join(f.lines()))
        click.echo(f"{done.messages} messages, {len(done.failures)} failed ({done.revision})", err=True)
    sys.exit(1 if done.failures else 0)
