"""The Click command line: options become a config object; the library does the work."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from . import __version__
from .reporting import ReportingGroup, reported

F = TypeVar("F", bound=Callable[..., Any])


def schema_options(func: F) -> F:
    """The options every command that reads a schema shares."""
    func = click.option(
        "--cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Where downloaded schemas are cached (default: $MCPGEN_CACHE_DIR or ~/.cache/mcpgen).",
    )(func)
    func = click.option(
        "--schema-dir",
        type=click.Path(path_type=Path),
        envvar="MCPGEN_SCHEMA_DIR",
        help="Directory with <revision>/schema.json files (like the spec repo's schema/ folder); env MCPGEN_SCHEMA_DIR.",
    )(func)
    return func


def _parse_pairs(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        request, sep, result = value.partition("=")
        if not sep or not request or not result:
            raise click.BadParameter(f"{value!r} is not REQUEST=RESULT (e.g. PingRequest=EmptyResult)")
        pairs.append((request, result))
    return tuple(pairs)


def generate_options(func: F) -> F:
    """The options of `mcpgen generate` (also accepted by bare `mcpgen`)."""
    func = click.option("--force", is_flag=True, help="Replace an existing generated package.")(func)
    func = click.option(
        "--pair",
        "pairings",
        multiple=True,
        callback=_parse_pairs,
        metavar="REQUEST=RESULT",
        help="Pair a request definition with its result where mcpgen cannot find it (repeatable).",
    )(func)
    func = click.option(
        "--schema",
        "schema_file",
        type=click.Path(path_type=Path),
        help="Generate from this schema file instead of a pinned revision.",
    )(func)
    func = click.option("--package", help="Package name (default mcp_<revision>), e.g. myapp._vendor.mcp.")(func)
    func = click.option(
        "-o",
        "--output",
        type=click.Path(path_type=Path),
        help="The package directory (default ./<package>); with --revision all, the parent directory.",
    )(func)
    func = click.option(
        "--surface",
        metavar="REVISION",
        help="With several revisions: the one whose types handlers and calls use (default: the newest).",
    )(func)
    func = click.option(
        "--revision",
        "-r",
        help=(
            "Protocol revision (e.g. 2025-11-25); several as one package: a comma list or a range "
            "2024-11-05..2025-11-25; or 'all' (one package each). With --schema, defaults to the one in the file."
        ),
    )(func)
    return schema_options(func)


def run_generate(**options: Any) -> None:
    """Run a generation from CLI options and print where each package went."""
    from .generate import GenerateConfig, generate

    if not options.get("revision") and not options.get("schema_file"):
        raise click.UsageError("pass --revision R (or --revision all), or --schema FILE")
    for package in generate(GenerateConfig(**options)):
        for warning in package.warnings:
            click.echo(f"mcpgen: warning: {warning}", err=True)
        click.echo(f"wrote {package.package} ({package.revision}) to {package.path}")


class LazyGroup(ReportingGroup):
    """A group that imports the commands living in their own modules only when they are looked up."""

    lazy: dict[str, tuple[str, str]] = {
        "diff": (".diffing.command", "diff_command"),
        "validate": (".validate", "validate_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, the lazy ones included."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command `cmd_name`, importing its module on first use."""
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute = self.lazy[cmd_name]
            self.add_command(getattr(importlib.import_module(module, __package__), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcpgen")
@generate_options
@click.pass_context
@reported
def main(ctx: click.Context, /, **options: Any) -> None:
    """Generate exact, typed Python bindings for a Model Context Protocol revision.

    `mcpgen --revision 2025-11-25` is the same as `mcpgen generate --revision 2025-11-25`.
    """
    if ctx.invoked_subcommand is not None:
        return
    run_generate(**options)


@main.command("generate")
@generate_options
@reported
def generate_command(**options: Any) -> None:
    """Generate the bindings package for a revision or a schema file."""
    run_generate(**options)


@main.command("revisions")
@reported
def revisions_command() -> None:
    """List the known revisions with their upstream pins."""
    from .revisions import load_pins

    for pin in load_pins().values():
        click.echo(f"{pin.revision}  sha256 {pin.sha256}  {pin.path} @ {pin.commit[:12]}")


@main.command("check")
@click.argument("package_dir", type=click.Path(path_type=Path))
@click.option("--schema", "schema_file", type=click.Path(path_type=Path), help="The schema file an unpinned package was generated from.")
@schema_options
@reported
def check_command(package_dir: Path, schema_file: Path | None, schema_dir: Path | None, cache_dir: Path | None) -> None:
    """Exit 0 when PACKAGE_DIR is exactly what this mcpgen generates; 1 with a diff when not."""
    from .check import check_package

    result = check_package(package_dir, schema_file=schema_file, schema_dir=schema_dir, cache_dir=cache_dir)
    if result.current:
        click.echo(f"{package_dir}: up to date ({result.revision})")
        return
    click.echo(result.diff, nl=False)
    click.echo(f"{package_dir}: differs from what mcpgen {__version__} generates for {result.revision}", err=True)
    sys.exit(1)
