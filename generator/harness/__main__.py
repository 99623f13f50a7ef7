"""`python -m mcpgen.harness`: regenerate the golden files or print the per-revision summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import McpgenError
from ..revisions import KNOWN_REVISIONS
from .corpus import default_schema_dir
from .golden import RevisionReport, golden_differences, load_mapping, run_revision, write_golden
from .package import REPO_GENERATED, import_package

REPO_ROOT = REPO_GENERATED.parent


def reports(schema_dir: Path, revisions: tuple[str, ...], generated: Path) -> list[RevisionReport]:
    """Run the harness over each revision with the repository's reviewed map."""
    mapping = load_mapping(REPO_ROOT)
    return [run_revision(schema_dir, r, import_package(r, generated, schema_dir), mapping) for r in revisions]


def summary_line(s: dict[str, object]) -> str:
    """One human-readable line of a revision summary."""
    skipped = s["skipped"]
    assert isinstance(skipped, dict)
    skips = "; ".join(f"{n} {reason}" for reason, n in sorted(skipped.items(), key=lambda kv: -kv[1])) or "none"
    return (
        f"{s['revision']}: {s['blocks']} blocks ({s['strict_json']} strict JSON), {s['classified']} classified, "
        f"{s['exact']} exact, {s['schema_rejects']} schema-rejects, {s['unclassified']} unclassified, "
        f"{s['failures']} failures; skipped: {skips}"
    )


@click.command()
@click.option("--regen", "regen", type=click.Path(path_type=Path, file_okay=False), default=None, help="Rewrite the golden files under this folder.")
@click.option("--check", "check_dir", type=click.Path(path_type=Path, file_okay=False), default=None, help="Compare with the golden files under this folder.")
@click.option("--summary", is_flag=True, help="Print blocks, classified, exact and skipped by reason per revision.")
@click.option("--failures", is_flag=True, help="Print every block that is not exact, skipped or schema-rejected.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--revision", "revisions", multiple=True, type=click.Choice(KNOWN_REVISIONS))
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option("--generated", type=click.Path(path_type=Path, file_okay=False), default=REPO_GENERATED, show_default=True)
def main(regen: Path | None, check_dir: Path | None, summary: bool, failures: bool, as_json: bool, revisions: tuple[str, ...], schema_dir: Path | None, generated: Path) -> None:
    """Round-trip every documented example through the generated packages."""
    try:
        results = reports(schema_dir or default_schema_dir(), revisions or KNOWN_REVISIONS, generated)
    except McpgenError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    status = 0
    for rep in results:
        if regen is not None:
            click.echo(f"wrote {write_golden(rep, regen)}")
        if check_dir is not None:
            diffs = golden_differences(rep, check_dir)
            status |= bool(diffs)
            for d in diffs:
                click.echo(f"{rep.revision} {d}")
        if failures:
            for o in rep.outcomes:
                if o.failure:
                    click.echo(f"{rep.revision} {o.key} [{o.definition}] {o.outcome}")
    if summary or not (regen or check_dir or failures):
        sums = [r.summary() for r in results]
        click.echo(json.dumps(sums, indent=1) if as_json else "\n".join(summary_line(s) for s in sums))
    sys.exit(status)


if __name__ == "__main__":
    main()
