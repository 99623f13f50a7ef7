"""`mcpgen diff OLD NEW`: what changed between two protocol revisions, for clients and for servers."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Callable

import click

from ...console import shown
from ...errors import OutputError, SchemaError
from ...reporting import reported
from .compare import diff_revisions
from .ignore import apply_ignores, read_ignore_file
from .pair import load_pair
from .model import Change, Report
from .report import RENDERERS, render_markdown
from .settings import FAIL_ON, load_settings

EXIT_CLEAN, EXIT_MATCHED = 0, 1


_GATES: dict[str, tuple[str, Callable[[Change], bool]]] = {
    "client": ("clients", lambda c: c.client == "breaking"),
    "server": ("servers", lambda c: c.server == "breaking"),
    "breaking": ("clients or servers", lambda c: c.breaking),
    "any": ("", lambda c: True),
}


def gate(report: Report, fail_on: str | None, where: str) -> str | None:
    """Why the `--fail-on` threshold (set `where`) fails the run, in one line: None when no non-cosmetic,
    non-ignored change meets it."""
    if fail_on is None:
        return None
    broken, meets = _GATES[fail_on]
    count = sum(meets(c) for c in report.visible(verbose=False))
    if not count:
        return None
    changes = f"{count} change{'s' if count > 1 else ''}"
    return f"{where}: {changes} {'break' if count > 1 else 'breaks'} {broken}" if broken else f"{where}: {changes}"


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True,
              help="text (grouped, coloured on a TTY), markdown (release notes) or json (mcpgen-diff/2).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Exit 1 when a change breaks clients, servers, either (breaking), or on any change; "
                   "default: [tool.mcpgen.diff] fail-on, else always exit 0.")
@click.option("--ignore", "ignore_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File of accepted changes, one `RULE SUBJECT` per line (globs allowed), added to the config's ignore list.")
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML file with [tool.mcpgen.diff] (default: the nearest pyproject.toml).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the report to FILE instead of standard output.")
@click.option("--title", is_flag=True, help="Markdown: start with an H1 title (off: paste under your own heading).")
@click.option("--verbose", "-v", is_flag=True, help="Also show cosmetic changes (descriptions, extracted definitions).")
@click.option("--schema-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with <revision>/schema.json (default: $MCPGEN_SCHEMA_DIR, the cache, or download).")
@reported
def diff_command(old: str, new: str, fmt: str, fail_on: str | None, ignore_file: Path | None, config: Path | None,
                 output: Path | None, title: bool, verbose: bool, schema_dir: Path | None) -> None:
    """Compare OLD and NEW (revisions like 2025-06-18, or schema.json paths) and report every change.

    OLD and NEW may be extensions (a known one like `tasks`, its schema file, or IDENTIFIER=FILE): two
    versions of an extension compare like two revisions; a revision and an extension compare the
    extension's copies of the revision's definitions with the revision's own (its drift).
    """
    settings = load_settings(config)
    rules = settings.ignore + (read_ignore_file(ignore_file) if ignore_file is not None else ())
    try:
        report = diff_revisions(*load_pair(old, new, schema_dir))
    except RecursionError:
        raise SchemaError(f"{old}, {new}: a schema nests too deeply to compare") from None
    report = apply_ignores(report, rules)
    render = partial(render_markdown, title=title) if fmt == "markdown" else RENDERERS[fmt]
    text = render(report, verbose)
    if output is None:
        click.echo(text, nl=fmt == "text")
    else:
        _write(output, click.unstyle(text) + ("\n" if fmt == "text" else ""))
    where = f"--fail-on {fail_on}"
    if fail_on is None and settings.path is not None:
        fail_on, where = settings.fail_on, f'fail-on = "{settings.fail_on}" in {shown(settings.path)}'
    tripped = gate(report, fail_on, where)
    if tripped is not None:
        click.echo(f"mcpgen: {tripped} (exit {EXIT_MATCHED})", err=True)
    raise SystemExit(EXIT_CLEAN if tripped is None else EXIT_MATCHED)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
