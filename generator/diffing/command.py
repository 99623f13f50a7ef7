"""`mcpgen diff OLD NEW`: what changed between two protocol revisions, for clients and for servers."""

from __future__ import annotations

from pathlib import Path

import click

from ..reporting import reported
from .compare import diff_protocols
from .load import load_protocol
from .model import Report
from .render import RENDERERS

EXIT_CLEAN, EXIT_MATCHED = 0, 1


def matches_fail_on(report: Report, fail_on: str | None) -> bool:
    """True when a non-cosmetic change meets the `--fail-on` threshold."""
    if fail_on is None:
        return False
    real = report.visible(verbose=False)
    return any(c.breaking for c in real) if fail_on == "breaking" else bool(real)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True,
              help="text (grouped, coloured on a TTY), markdown (release notes) or json (mcpgen-diff/1).")
@click.option("--fail-on", type=click.Choice(["breaking", "any"]), default=None,
              help="Exit 1 when a breaking change (or any change) is found; default: always exit 0.")
@click.option("--verbose", "-v", is_flag=True, help="Also show cosmetic changes (descriptions, extracted definitions).")
@click.option("--schema-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with <revision>/schema.json (default: $MCPGEN_SCHEMA_DIR, the cache, or download).")
@reported
def diff_command(old: str, new: str, fmt: str, fail_on: str | None, verbose: bool, schema_dir: Path | None) -> None:
    """Compare OLD and NEW (revisions like 2025-06-18, or schema.json paths) and report every change."""
    report = diff_protocols(load_protocol(old, schema_dir), load_protocol(new, schema_dir))
    click.echo(RENDERERS[fmt](report, verbose), nl=fmt == "text")
    raise SystemExit(EXIT_MATCHED if matches_fail_on(report, fail_on) else EXIT_CLEAN)
