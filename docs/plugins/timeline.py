"""The revision timeline page: what `mcpgen diff` reports between each two consecutive revisions.

It reads the golden diff reports (`tests/golden/diff/<old>_<new>.json`, which
`python -m mcpgen.commands.diff.regen` writes with `mcpgen diff --format json` and
`tests/test_diff.py` keeps current), so the page needs no schema and no network.

Usage: python docs/plugins/timeline.py [--svg]   (prints the page's Markdown, or its chart)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "diff"
CHART = "assets/revisions.svg"
HEADLINES = 8
"""Breaking changes named per step besides the method changes (the rest are counted)."""
SERIES = (("breaking_client", "breaks clients", "#c62828"), ("breaking_server", "breaks servers", "#ef6c00"), ("compatible", "compatible", "#1565c0"))


def steps(golden: Path = GOLDEN) -> list[dict[str, Any]]:
    """The diff reports between consecutive revisions, oldest first."""
    reports = [json.loads(path.read_text("utf-8")) for path in sorted(golden.glob("*_*.json"))]
    return sorted(reports, key=lambda report: report["old"]["revision"])


def counts(report: dict[str, Any]) -> dict[str, int]:
    """Breaking changes for clients and for servers, and the compatible ones (cosmetic changes apart)."""
    summary = report["summary"]
    return {
        "breaking_client": summary["breaking_client"],
        "breaking_server": summary["breaking_server"],
        "compatible": summary["changes"] - summary["breaking"],
    }


def who(change: dict[str, Any]) -> str:
    """Who a change breaks, in words."""
    sides = [side + "s" for side in ("client", "server") if change[side] == "breaking"]
    return " and ".join(sides) or "nobody"


def verb(count: int) -> str:
    """"break" or "breaks", agreeing with a count of changes."""
    return "breaks" if count == 1 else "break"


def cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|")


def chart(reports: list[dict[str, Any]]) -> str:
    """Grouped bars per step: changes that break clients, that break servers, and compatible ones."""
    group, bar, left, top, plot_height = 190, 44, 50, 40, 220
    highest = max(max(counts(report).values()) for report in reports)
    width, height = left + group * len(reports) + 20, top + plot_height + 80
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        "<title>Changes between consecutive MCP revisions, by who they break</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<line x1="{left}" y1="{top + plot_height}" x2="{width - 10}" y2="{top + plot_height}" stroke="#90a4ae"/>',
    ]
    for index, report in enumerate(reports):
        x0 = left + group * index + 16
        for offset, (key, _, colour) in enumerate(SERIES):
            value = counts(report)[key]
            h = plot_height * value / highest
            x = x0 + offset * (bar + 6)
            out.append(f'<rect x="{x}" y="{top + plot_height - h:.1f}" width="{bar}" height="{h:.1f}" fill="{colour}"/>')
            out.append(f'<text x="{x + bar / 2}" y="{top + plot_height - h - 5:.1f}" text-anchor="middle" fill="#212121">{value}</text>')
        label = f"{report['old']['revision']} → {report['new']['revision']}"
        centre = x0 + (3 * bar + 12) / 2
        out.append(f'<text x="{centre}" y="{top + plot_height + 20}" text-anchor="middle" fill="#212121">{escape(label)}</text>')
    legend_y = top + plot_height + 56
    for index, (_, text, colour) in enumerate(SERIES):
        x = left + index * 150
        out.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{x + 17}" y="{legend_y}" fill="#212121">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def step_section(report: dict[str, Any]) -> list[str]:
    """One step's heading, counts, method changes and headline breaking changes."""
    old, new = report["old"]["revision"], report["new"]["revision"]
    n = counts(report)
    changes = [change for change in report["changes"] if not change["cosmetic"]]
    methods = [change for change in changes if change["category"] == "method"]
    breaking = [change for change in changes if change["category"] != "method" and who(change) != "nobody"]
    lines = [
        f"## {old} → {new}",
        "",
        f"{report['summary']['changes']} changes: {n['breaking_client']} {verb(n['breaking_client'])} clients, "
        f"{n['breaking_server']} {verb(n['breaking_server'])} servers, {n['compatible']} compatible "
        f"({report['summary']['cosmetic']} cosmetic changes not counted).",
        "",
    ]
    if methods:
        lines += ["| method | change | breaks |", "| --- | --- | --- |"]
        lines += [f"| `{m['subject']}` | {cell(m['detail'])} | {who(m)} |" for m in methods]
        lines.append("")
    if breaking:
        lines.append("Other breaking changes:" if methods else "Breaking changes:")
        lines.append("")
        lines += [f"- `{c['subject']}`: {c['detail']} (breaks {who(c)}; `{c['kind']}`)" for c in breaking[:HEADLINES]]
        if len(breaking) > HEADLINES:
            lines.append(f"- and {len(breaking) - HEADLINES} more (`mcpgen diff {old} {new}`)")
        lines.append("")
    return lines


def page(reports: list[dict[str, Any]]) -> str:
    """The timeline page's Markdown."""
    lines = [
        "# What changed between revisions",
        "",
        "Each step from one MCP revision to the next, as `mcpgen diff` reports it: how many changes break a",
        "client or a server written against the older revision, the methods that came, went or moved, and the",
        "breaking changes to the shapes they carry. The page is generated from `mcpgen diff --format json`",
        "between each two consecutive revisions (the golden reports in `tests/golden/diff/`), with mcpgen's",
        "[errata](errata.md) applied on both sides; [mcpgen diff](diff.md) explains how changes are judged.",
        "",
        f"![Changes between consecutive revisions: breaking for clients, breaking for servers, compatible]({CHART})",
        "",
    ]
    for report in reports:
        lines += step_section(report)
    return "\n".join(lines)


def main() -> None:
    """Print the page, or its chart."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svg", action="store_true", help="print the chart instead of the page")
    args = parser.parse_args()
    reports = steps()
    print(chart(reports) if args.svg else page(reports), end="")


if __name__ == "__main__":
    main()
