"""What the tap says on stderr: one line per violation as it passes, notes, and a summary at the end."""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from typing import IO, Any

import click

PREFIX = "mcpgen tap: "


@dataclass(frozen=True)
class Violation:
    """One rule a message (or an HTTP exchange) broke: which message, what failed and where, and the rule."""

    dir: str
    what: str
    """The message as a person names it: `tools/call request (id 3)`, `message 7`."""
    definition: str
    path: str
    error: str
    rule: str
    method: str | None = None
    id: Any = None
    session: str | None = None
    """The HTTP session (numbered in the order the tap saw them), None over stdio."""
    message: int = 0
    """The message's number in its session."""

    def text(self, color: bool) -> str:
        """The violation as one line, `mcpgen tap: DIR WHAT: DEFINITION at PATH: ERROR`."""
        where = f"{self.definition} at {self.path or '/'}: " if self.definition else ""
        head = click.style(f"{self.dir} {self.what}", bold=True) if color else f"{self.dir} {self.what}"
        error = click.style(self.error, fg="red") if color else self.error
        return f"{PREFIX}{head}: {where}{error}"


def what(direction: str, value: Any, method: str | None, number: int) -> str:
    """How a violation names a message: its method, kind and id, else its number in the session."""
    if not isinstance(value, dict):
        return f"message {number}"
    ident = f" (id {_show(value['id'])})" if "id" in value else ""
    if isinstance(value.get("method"), str):
        kind = "request" if "id" in value else "notification"
        return f"{value['method'][:100]} {kind}{ident}"
    if "result" in value or "error" in value:
        kind = "error" if "error" in value else "response"
        return f"{method} {kind}{ident}" if method else f"{kind}{ident}"
    return f"message {number}"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


class Reporter:
    """Writes violations and notes as they come, counts messages and violations, and sums them up."""

    def __init__(self, fmt: str = "text", color: bool = False, stream: IO[str] | None = None) -> None:
        self.fmt = fmt
        self.color = color
        self._stream = stream
        self.messages: Counter[tuple[str, str]] = Counter()
        self.rules: Counter[str] = Counter()
        self.not_judged = 0
        self.missed = {"c2s": 0, "s2c": 0}

    def _write(self, line: str) -> None:
        stream = self._stream or sys.stderr
        try:
            stream.write(line + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass  # nobody reads stderr any more: the relay goes on

    def violation(self, violation: Violation) -> None:
        """Report one violation as it happens."""
        self.rules[violation.rule] += 1
        if self.fmt == "json":
            self._write(json.dumps({"tap": "violation", **asdict(violation)}, ensure_ascii=False, default=str))
        else:
            self._write(violation.text(self.color))

    def note(self, text: str, **fields: Any) -> None:
        """Something about the tap itself a person should know (judging fell behind, a peer went away)."""
        if self.fmt == "json":
            self._write(json.dumps({"tap": "note", "note": text, **fields}, ensure_ascii=False))
        else:
            self._write(PREFIX + "note: " + (click.style(text, fg="yellow") if self.color else text))

    def count(self, direction: str, label: str) -> None:
        """Count one message of a direction under its label (a method, `tools/call response`, ...)."""
        self.messages[(direction, label)] += 1

    def summary(self, revisions: list[str], unanswered: int) -> None:
        """The closing summary: the revisions negotiated, messages per direction and method, violations per rule."""
        per_dir: dict[str, dict[str, int]] = {"c2s": {}, "s2c": {}}
        for (direction, label), n in sorted(self.messages.items()):
            per_dir[direction][label] = n
        total = sum(self.messages.values())
        violations = sum(self.rules.values())
        if self.fmt == "json":
            report = {
                "tap": "summary", "revisions": revisions, "messages": per_dir, "message_count": total,
                "violations": dict(sorted(self.rules.items())), "violation_count": violations,
                "not_judged": self.not_judged, "missed_bytes": self.missed, "unanswered": unanswered,
            }  # fmt: skip
            self._write(json.dumps(report, ensure_ascii=False))
            return
        negotiated = ", ".join(revisions) if revisions else "no revision negotiated"
        lines = [f"summary: {negotiated}; {total} messages, {violations} violations"]
        for direction, counts in per_dir.items():
            if counts:
                lines.append(f"  {direction}: " + ", ".join(f"{label} {n}" for label, n in counts.items()))
        if self.rules:
            lines.append("  violations: " + ", ".join(f"{rule} {n}" for rule, n in sorted(self.rules.items())))
        if self.not_judged:
            lines.append(f"  not judged: {self.not_judged} messages")
        if any(self.missed.values()):
            lines.append(f"  judging fell behind: {self.missed['c2s']} bytes c2s and {self.missed['s2c']} bytes s2c relayed unjudged and unlogged")
        if unanswered:
            lines.append(f"  unanswered at exit: {unanswered} requests")
        for line in lines:
            self._write(PREFIX + line)
