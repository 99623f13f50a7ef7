"""Draw the ratios of a `benchmarks/run.py --json` results file as an SVG bar chart.

Usage: python benchmarks/plot.py RESULTS.json [-o OUT.svg]

One bar per row that has a ratio (mcpgen's figure over the baseline's), coloured by whether it meets
the target the row is held to, with the target marked. The SVG is plain text written here (no
plotting library, no script), so the same results always give the same bytes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

LABEL_WIDTH = 430
BAR_WIDTH = 330
ROW = 24
TOP = 58
COLOURS = {True: "#2e7d32", False: "#e65100", None: "#78909c"}
"""Bar colours: target met, target not met, no target (read against, like the bare-ASGI limit)."""


def plotted(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows that have a ratio, in the order the run printed them."""
    return [row for row in results["rows"] if row.get("ratio") is not None]


def subtitle(results: dict[str, Any]) -> str:
    """When and where the results were measured."""
    where = f"{results['cpus']} cpus, load {results['load']}" if "cpus" in results else ""
    return ", ".join(filter(None, [results.get("date", ""), where, f"median of {results.get('reps', '?')} runs"]))


def chart(results: dict[str, Any], title: str) -> str:
    """The SVG bar chart of one results file."""
    rows = plotted(results)
    if not rows:
        raise ValueError("no row of these results has a ratio to plot")
    top = max(max(row["ratio"], (row["target"] or {}).get("bound", 0.0)) for row in rows) * 1.12
    width = LABEL_WIDTH + BAR_WIDTH + 70
    height = TOP + ROW * len(rows) + 46
    scale = BAR_WIDTH / top
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold" fill="#212121">{escape(title)}</text>',
        f'<text x="10" y="42" fill="#546e7a">{escape(subtitle(results))}</text>',
    ]
    one = LABEL_WIDTH + scale
    out.append(f'<line x1="{one:.1f}" y1="{TOP - 6}" x2="{one:.1f}" y2="{TOP + ROW * len(rows)}" stroke="#b0bec5" stroke-dasharray="3 3"/>')
    out.append(f'<text x="{one:.1f}" y="{TOP + ROW * len(rows) + 14}" text-anchor="middle" fill="#78909c">1x</text>')
    for index, row in enumerate(rows):
        y = TOP + ROW * index
        target = row["target"]
        met = None if target is None else target["met"]
        length = row["ratio"] * scale
        out.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end" fill="#212121">{escape(row["benchmark"])}</text>')
        out.append(f'<rect x="{LABEL_WIDTH}" y="{y + 4}" width="{length:.1f}" height="{ROW - 8}" fill="{COLOURS[met]}"/>')
        end = length
        if target is not None:
            x = LABEL_WIDTH + target["bound"] * scale
            end = max(end, target["bound"] * scale)
            out.append(f'<line x1="{x:.1f}" y1="{y + 1}" x2="{x:.1f}" y2="{y + ROW - 1}" stroke="#212121" stroke-width="2"/>')
        out.append(f'<text x="{LABEL_WIDTH + end + 6:.1f}" y="{y + 15}" fill="#212121">{row["ratio"]:.2f}x</text>')
    legend_y = TOP + ROW * len(rows) + 32
    legend = (("#2e7d32", "target met"), ("#e65100", "target not met"), ("#78909c", "no target"))
    x = 10
    for colour, text in legend:
        out.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{x + 17}" y="{legend_y}" fill="#212121">{text}</text>')
        x += 130
    out.append(f'<line x1="{x}" y1="{legend_y - 11}" x2="{x}" y2="{legend_y + 3}" stroke="#212121" stroke-width="2"/>')
    out.append(f'<text x="{x + 7}" y="{legend_y}" fill="#212121">the target</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    """Write the chart of one results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("-o", "--output", type=Path, help="default: the results file with .svg")
    parser.add_argument("--title", default="mcpgen ÷ baseline")
    args = parser.parse_args()
    results = json.loads(args.results.read_text("utf-8"))
    output = args.output or args.results.with_suffix(".svg")
    output.write_text(chart(results, args.title), "utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
