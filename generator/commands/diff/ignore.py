"""Accepted changes a release gate skips: `RULE SUBJECT` lines, from `[tool.mcpgen.diff]` or `--ignore FILE`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterable

from ...pyproject import ConfigError
from .model import Change, Report
from .rules import RULE_IDS


@dataclass(frozen=True)
class Rule:
    """One ignore entry: a rule id and a subject, each a glob (`field.added.*`, `ListToolsResult.*`)."""

    rule: str
    subject: str

    def matches(self, kind: str, place: str) -> bool:
        """True when this entry covers `kind` at `place`."""
        return fnmatchcase(kind, self.rule) and fnmatchcase(place, self.subject)


def parse_rules(lines: Iterable[str], origin: str) -> tuple[Rule, ...]:
    """`RULE SUBJECT` per line; blank lines and `#` comments skipped; ConfigError naming the bad line (a
    malformed one, or one whose RULE matches no rule id)."""
    out = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split(None, 1)
        if len(parts) != 2:
            raise ConfigError(
                f"{origin}:{number}: an ignore entry is `RULE SUBJECT` "
                f"(e.g. `field.added.required ListToolsResult.ttlMs`), got {line.strip()!r}"
            )
        if not any(fnmatchcase(rule, parts[0]) for rule in RULE_IDS):
            raise ConfigError(
                f"{origin}:{number}: {parts[0]!r} matches no rule id "
                "(they are listed in docs/diff-rules.md)"
            )
        out.append(Rule(parts[0], parts[1].strip()))
    return tuple(out)


def read_ignore_file(path: Path) -> tuple[Rule, ...]:
    """The entries of an ignore file."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read ignore file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"ignore file {path}: not UTF-8 text (byte {exc.start})") from None
    return parse_rules(text.splitlines(), str(path))


def apply_ignores(report: Report, rules: tuple[Rule, ...]) -> Report:
    """`report` without the places the rules cover; a grouped change keeps its other places."""
    if not rules:
        return report
    kept: list[Change] = []
    dropped = 0
    for c in report.changes:
        places = [p for p in (c.subject, *c.where) if not any(r.matches(c.kind, p) for r in rules)]
        if not places:
            dropped += 1
        elif len(places) == 1 + len(c.where):
            kept.append(c)
        else:
            kept.append(dataclasses.replace(c, subject=places[0], where=tuple(places[1:])))
    return dataclasses.replace(report, changes=tuple(kept), ignored=report.ignored + dropped)
