"""Judging messages against one revision: envelope, method, sender, pairing, the upstream schema and the round trip."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

from .bindings import generated_package
from .findings import Finding, mcpgen_findings, schema_findings
from .table import MethodTable, method_table
from .targets import Pairing, Target, is_message, message_target
from .upstream import Upstream, upstream
from .wire import SENDER, Message

UNPAIRED = "unpaired"
"""The rule of a response that answers no earlier request."""


def unreadable(entry: Message) -> Finding:
    """Why a line holds no message (whatever the revision)."""
    return Finding("", "", entry.unreadable or "", rule="not-json" if entry.value is None else "capture")


class Validator:
    """Checks the messages of one revision in order, pairing responses with earlier requests by id."""

    def __init__(self, revision: str, table: MethodTable, schema: Upstream, package: ModuleType) -> None:
        self.revision = revision
        self.table = table
        self.schema = schema
        self.package = package
        self.pairing = Pairing()

    @classmethod
    def of(cls, revision: str, schema_dir: Path | None) -> Validator:
        """A validator of `revision` over the (cached) schema, method table and package mcpgen generates for it."""
        return cls(revision, method_table(schema_dir, revision), upstream(schema_dir, revision), generated_package(revision, schema_dir))

    def _group(self, msg: Message, responder: bool) -> str:
        group = msg.file if msg.session is None else f"{msg.file}#{msg.session}"
        if msg.direction is None:
            return group
        side = SENDER[msg.direction]
        if responder:
            side = "client" if side == "server" else "server"
        return f"{group}#{side}"

    def messages(self, entry: Message) -> Iterator[tuple[Message, list[Finding]]]:
        """Every message an entry holds (each element of a batch), with its findings."""
        if entry.unreadable is not None:
            yield entry, [unreadable(entry)]
        elif isinstance(entry.value, list):
            problem = self._batch_problem(entry.value)
            if problem is not None:
                yield entry, [Finding("JSONRPCMessage", "", problem, rule="batch")]
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
            return [Finding("JSONRPCMessage", "", f"not a JSON-RPC message ({what})", rule="not-jsonrpc")]
        env = self.table.envelope
        out: list[Finding] = []
        if isinstance(value.get("method"), str):
            method = value["method"]
            self.pairing.note(self._group(msg, responder=False), value)
            spec = self.table.methods.get(method)
            if spec is None or spec.embedded:
                envelope = env.request if "id" in value else env.notification
                where = "sent only inside a result, never as a message" if spec else "not a method"
                out.append(Finding(envelope, "/method", f"unknown method {method[:200]!r}: {where} of {self.revision} (-32601 Method not found)", rule="unknown-method"))
                return out + schema_findings(Target(envelope, "request", "unknown method"), value, self.schema, every=True)
            if msg.direction is not None and SENDER[msg.direction] not in spec.senders:
                out.append(Finding(spec.message, "/method", f"{method} is not sent by the {SENDER[msg.direction]}", rule="sender"))
            requested = None
        elif "result" in value or "error" in value:
            requested = self.pairing.method_of(self._group(msg, responder=True), value)
            if requested is None and value.get("id") is not None:
                envelope = env.error if "error" in value else env.result
                out.append(Finding(envelope, "/id", f"response to no request: no earlier request{self._from(msg)} has id {json.dumps(value['id'])}", rule=UNPAIRED))
        else:
            return [Finding("JSONRPCMessage", "", "not a request, notification or response (no 'method', 'result' or 'error')", rule="not-jsonrpc")]
        target = message_target(value, self.table, self.schema, requested) or Target(env.result, "response", "response to no request")
        return out + (schema_findings(target, value, self.schema, every=True) or mcpgen_findings(target, value, self.package))

    def method_of(self, msg: Message) -> str | None:
        """The method a message is (a request or notification) or answers (a response paired with its request)."""
        value = msg.value
        if not isinstance(value, dict):
            return None
        if isinstance(value.get("method"), str):
            return str(value["method"])
        return self.pairing.method_of(self._group(msg, responder=True), value)

    @staticmethod
    def _from(msg: Message) -> str:
        if msg.direction is None:
            return ""
        return " from the " + ("server" if SENDER[msg.direction] == "client" else "client")
