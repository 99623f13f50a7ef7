"""Render a Report as grouped text, Markdown release notes, or the documented JSON shape."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

import click

from .grouping import owner_and_rest
from .model import CATEGORIES, JSON_FORMAT, Change, ErratumNote, Report

TITLES = {
    "envelope": "Envelope",
    "method": "Methods",
    "capability": "Capabilities",
    "definition": "Definitions",
    "field": "Fields",
    "deprecation": "Deprecations",
}
DIRECTIONS = ("client → server", "server → client", "both ways")
ERRATA_TITLE = "Errata on one side only"
ERRATA_NOTE = (
    "mcpgen's corrections of upstream defects, not upstream changes: the changes at these definitions "
    "compare a corrected schema with one as upstream wrote it"
)
Renderer = Callable[[Report, bool], str]


def summary_line(report: Report, verbose: bool) -> str:
    """`12 changes, 3 breaking (2 for clients, 1 for servers); 5 cosmetic hidden; 1 ignored`."""
    c = report.counts()
    text = (
        f"{c['changes']} changes, {c['breaking']} breaking "
        f"({c['breaking_client']} for clients, {c['breaking_server']} for servers)"
    )
    if c["cosmetic"]:
        text += f"; {c['cosmetic']} cosmetic" + (" shown" if verbose else " hidden (--verbose shows them)")
    if c["ignored"]:
        text += f"; {c['ignored']} ignored"
    return text


def breaks(change: Change) -> str:
    """`clients and servers`, `clients`, `servers` or empty."""
    who = [w for w, i in (("clients", change.client), ("servers", change.server)) if i == "breaking"]
    return " and ".join(who)


def _groups(changes: Iterable[Change]) -> list[tuple[str, list[tuple[str | None, list[Change]]]]]:
    """Changes by category, and method changes by direction."""
    out: list[tuple[str, list[tuple[str | None, list[Change]]]]] = []
    items = list(changes)
    for cat in CATEGORIES:
        in_cat = [c for c in items if c.category == cat]
        if not in_cat:
            continue
        if cat == "method":
            subs: list[tuple[str | None, list[Change]]] = [(d, [c for c in in_cat if c.direction == d]) for d in DIRECTIONS]
            out.append((cat, [(d, cs) for d, cs in subs if cs]))
        else:
            out.append((cat, [(None, in_cat)]))
    return out


def _marker(change: Change) -> str:
    if change.breaking:
        return "!"
    if change.kind.endswith(".added") or ".added." in change.kind or change.kind.endswith("_added"):
        return "+"
    if change.kind.endswith(".removed") or ".removed." in change.kind or change.kind.endswith("_removed"):
        return "-"
    return "~"


_COLOURS = {"!": "red", "+": "green", "-": "yellow", "~": None}


def render_text(report: Report, verbose: bool = False) -> str:
    """Grouped plain text with ANSI styles and each change's rule id; click drops the styles off a TTY."""
    lines = [
        click.style(f"mcpgen diff {report.old.revision} → {report.new.revision}", bold=True),
        summary_line(report, verbose),
    ]
    for cat, subgroups in _groups(report.visible(verbose)):
        lines += ["", click.style(TITLES[cat], bold=True)]
        for direction, changes in subgroups:
            indent = "  "
            if direction:
                lines.append(f"  {direction}")
                indent = "    "
            for c in changes:
                mark = _marker(c)
                text = f"{indent}{mark} {c.subject}: {c.detail}"
                if c.breaking:
                    text += f"  [breaks {breaks(c)}]"
                lines.append(click.style(text + f"  ({c.kind})", fg=_COLOURS[mark]))
                if c.where:
                    lines.append(f"{indent}    also in {', '.join(_owners(c))}")
    if report.errata:
        lines += ["", click.style(ERRATA_TITLE, bold=True), f"  {ERRATA_NOTE}"]
        lines += [f"  ~ {e.id}: {_applied(e)}, at {', '.join(e.definitions)}" for e in report.errata]
    return "\n".join(lines)


def render_markdown(report: Report, verbose: bool = False, title: bool = False) -> str:
    """Release notes to paste: one line per subject, in the breaking changes' table when one of its
    changes breaks a side, else once under the category of its first change."""
    visible = report.visible(verbose)
    lines = [f"# MCP {report.old.revision} → {report.new.revision}", ""] if title else []
    lines.append(f"**{summary_line(report, verbose)}.**")
    subjects = _by_subject(visible)
    breaking = [group for group in subjects if any(c.breaking for c in group)]
    if breaking:
        lines += ["", "## Breaking changes", "", "| Change | Breaks | Rule |", "| --- | --- | --- |"]
        for group in breaking:
            who = " and ".join(w for w in ("clients", "servers") if any(w in breaks(c) for c in group))
            lines.append(f"| {_md_place(group)}: {_md_details(group)} | {who} | {_md_rules(group)} |")
    rest = {id(group[0]): group for group in subjects if not any(c.breaking for c in group)}
    for cat, subgroups in _groups(group[0] for group in rest.values()):
        lines += ["", f"## {TITLES[cat]}"]
        for direction, changes in subgroups:
            if direction:
                lines += ["", f"### {direction}"]
            lines.append("")
            for c in changes:
                group = rest[id(c)]
                lines.append(f"- {_md_place(group)}: {_md_details(group)} ({_md_rules(group)})")
    if report.errata:
        lines += ["", f"## {ERRATA_TITLE}", "", ERRATA_NOTE + ".", ""]
        lines += [
            f"- `{_code(e.id)}`: {_md(_applied(e))}, at " + ", ".join(f"`{_code(d)}`" for d in e.definitions)
            for e in report.errata
        ]
    return "\n".join(lines) + "\n"


def _by_subject(changes: Iterable[Change]) -> list[list[Change]]:
    """The changes of each subject together, subjects in the order of their first change."""
    groups: dict[str, list[Change]] = {}
    for c in changes:
        groups.setdefault(c.subject, []).append(c)
    return list(groups.values())


def _applied(e: ErratumNote) -> str:
    return f"applied to {e.applied_to.upper()} ({e.revision}) only"


def _md_place(group: list[Change]) -> str:
    text = f"`{_code(group[0].subject)}`"
    owners = list(dict.fromkeys(owner for c in group for owner in _owners(c)))
    if owners:
        text += " (also in " + ", ".join(f"`{_code(w)}`" for w in owners) + ")"
    return text


def _md_details(group: list[Change]) -> str:
    return "; ".join(_md(c.detail) for c in group)


def _md_rules(group: list[Change]) -> str:
    return ", ".join(f"`{c.kind}`" for c in group)


def _owners(c: Change) -> list[str]:
    """The definitions a grouped change also applies to (the path below them is the subject's)."""
    return [owner_and_rest(w)[0] for w in c.where]


def _code(text: str) -> str:
    return text.replace("`", "'").replace("|", "\\|")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def report_json(report: Report) -> dict[str, Any]:
    """The documented `mcpgen-diff/2` object (every change, cosmetic ones flagged)."""
    return {
        "format": JSON_FORMAT,
        "old": {"revision": report.old.revision, "sha256": report.old.sha256, "errata": list(report.old.errata)},
        "new": {"revision": report.new.revision, "sha256": report.new.sha256, "errata": list(report.new.errata)},
        "summary": report.counts(),
        "errata": [
            {"id": e.id, "applied_to": e.applied_to, "revision": e.revision, "definitions": list(e.definitions),
             "reason": e.reason}
            for e in report.errata
        ],
        "changes": [
            {
                "category": c.category,
                "kind": c.kind,
                "subject": c.subject,
                "where": list(c.where),
                "detail": c.detail,
                "old": c.old,
                "new": c.new,
                "direction": c.direction,
                "client": c.client,
                "server": c.server,
                "cosmetic": c.cosmetic,
            }
            for c in report.changes
        ],
    }


def render_json(report: Report, verbose: bool = False) -> str:
    """The JSON report, indented, keys in documented order, ending with a newline."""
    del verbose  # JSON always carries every change; `cosmetic` tells which ones text hides
    return json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
}
