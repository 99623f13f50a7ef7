"""The Click command line: options become a config object; the library does the work."""

from __future__ import annotations

import atexit
import functools
import gc
import importlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NoReturn, TypeVar

import click
from click.core import ParameterSource
from click.shell_completion import CompletionItem

from . import __version__
from .console import Console, activated, color_choice, current, shown
from .reporting import ReportingGroup, reported

if TYPE_CHECKING:
    from .commands.check import Outcome

F = TypeVar("F", bound=Callable[..., Any])

# Shown at the end of each command's --help (the lazily loaded commands' included).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "mcpgen": (
        "mcpgen --revision 2025-11-25                 # ./mcp_2025_11_25/",
        "mcpgen                                       # every package in [tool.mcpgen] of pyproject.toml",
        "mcpgen check                                 # are they all current? (exit 1 when not)",
    ),
    "generate": (
        "mcpgen generate                              # every package in [tool.mcpgen] of pyproject.toml",
        "mcpgen generate -r 2025-11-25 -o src/app/_vendor/mcp --package app._vendor.mcp",
        "mcpgen generate -r 2025-11-25 --dist dist/mcp-bindings   # a publishable project",
    ),
    "check": (
        "mcpgen check                                 # every package in [tool.mcpgen] of pyproject.toml",
        "mcpgen check src/app/_vendor/mcp             # one vendored package",
        "mcpgen check --config ci/mcpgen.toml -q      # another config file; only the stale ones",
    ),
    "revisions": (
        "mcpgen revisions",
        "mcpgen revisions | cut -d' ' -f1             # just the names",
    ),
    "diff": (
        "mcpgen diff 2025-06-18 2025-11-25",
        "mcpgen diff 2025-06-18 2025-11-25 --format markdown > CHANGES.md",
        "mcpgen diff 2025-11-25 draft/schema.json --fail-on breaking",
    ),
    "validate": (
        "mcpgen validate traffic.jsonl                # the revision its initialize negotiates",
        "mcpgen validate --revision 2025-11-25 --format json captured/*.json",
    ),
    "tap": (
        "mcpgen tap -- python server.py               # in a client's configuration, before the server's command",
        "mcpgen tap --log session.jsonl -- npx -y @modelcontextprotocol/server-everything",
        "mcpgen tap --upstream http://127.0.0.1:8000/mcp --listen 127.0.0.1:8765",
    ),
}


def examples(name: str) -> str:
    """The `--help` epilog listing the examples of command `name` (`\\b` keeps click from rewrapping them)."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])


def complete_revision(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of known revisions (and `all`), also after a comma in a list."""
    from .inputs.pins import known_revisions

    head, comma, last = incomplete.rpartition(",")
    names = [*known_revisions(), *(() if comma else ("all",))]
    return [CompletionItem(head + comma + name) for name in names if name.startswith(last)]


def _set_color(ctx: click.Context, param: click.Parameter, value: bool | None) -> None:
    if value is not None or ctx.parent is None:
        ctx.color = color_choice(value)


def _set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        level = 1 if param.name == "verbose" else -1
        if ctx.meta.get("mcpgen.verbosity", level) != level:
            raise click.UsageError("--quiet and --verbose contradict each other")
        ctx.meta["mcpgen.verbosity"] = level


def console_options(func: F) -> F:
    """--color/--no-color, -q/--quiet and -v/--verbose (accepted before or after the command name)."""
    func = click.option(
        "-v", "--verbose", is_flag=True, expose_value=False, callback=_set_verbosity,
        help="Say where schemas come from and what the cache holds (stderr).",
    )(func)  # fmt: skip
    func = click.option(
        "-q", "--quiet", is_flag=True, expose_value=False, callback=_set_verbosity,
        help="Only errors and stale packages; no progress.",
    )(func)  # fmt: skip
    func = click.option(
        "--color/--no-color", default=None, expose_value=False, callback=_set_color,
        help="Colour the output (default: on a terminal, unless NO_COLOR is set).",
    )(func)  # fmt: skip
    return func


def with_console(func: F) -> F:
    """Run the command with the console its -q/-v options ask for (progress goes to stderr)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbosity = click.get_current_context().meta.get("mcpgen.verbosity", 0)
        with activated(Console(verbosity=verbosity)):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def config_option(func: F) -> F:
    """--config FILE: read [tool.mcpgen] from this file instead of the nearest pyproject.toml."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Read [tool.mcpgen] from this file (default: the nearest pyproject.toml).",
    )(func)


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


def complete_extension(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of the known extensions (files complete as files)."""
    from .inputs.extensions import known_extensions

    return [CompletionItem(name) for name in known_extensions() if name.startswith(incomplete)]


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
    func = config_option(func)
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
        "--extension",
        "extensions",
        multiple=True,
        metavar="NAME|FILE|IDENTIFIER=FILE",
        shell_complete=complete_extension,
        help="Add an extension (SEP-2133) to the package: a known one (tasks, apps), or its schema file (repeatable).",
    )(func)
    func = click.option(
        "--schema",
        "schema_file",
        type=click.Path(path_type=Path),
        help="Generate from this schema file instead of a pinned revision.",
    )(func)
    func = click.option(
        "--dist",
        type=click.Path(file_okay=False, path_type=Path),
        help="Write a publishable project: the package plus a pyproject.toml (instead of --output).",
    )(func)
    func = click.option(
        "--package", help="Package name (default mcp_<revision>, or mcp_<oldest>_to_<newest>), e.g. myapp._vendor.mcp."
    )(func)
    func = click.option(
        "-o",
        "--output",
        type=click.Path(path_type=Path),
        help="The package directory (default ./<package>); with --revision all, the parent directory.",
    )(func)
    func = click.option(
        "--surface",
        metavar="REVISION",
        shell_complete=complete_revision,
        help="With several revisions: the one whose types handlers and calls use (default: the newest).",
    )(func)
    func = click.option(
        "--revision",
        "-r",
        shell_complete=complete_revision,
        help=(
            "Protocol revision (e.g. 2025-11-25); several as one package: a comma list or a range "
            "2024-11-05..2025-11-25; or 'all' (one package each). With --schema, defaults to the one in "
            "the file. Without --revision and --schema: every package in [tool.mcpgen]."
        ),
    )(func)
    return schema_options(func)


def given(ctx: click.Context, options: dict[str, Any]) -> dict[str, Any]:
    """The options set on the command line or by environment variable (not click's defaults)."""
    return {
        name: value
        for name, value in options.items()
        if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)
    }


def _configured(config_path: Path | None, ad_hoc: str) -> tuple[Path, list[dict[str, Any]]]:
    from .config import config_file, configured_packages
    from .pyproject import tool_table

    path = config_file(config_path)
    if path is None or (config_path is None and not tool_table(path)):  # a project that does not use mcpgen
        where = "pyproject.toml" if path is None else str(path)
        raise click.UsageError(f"{ad_hoc}, or list packages under [[tool.mcpgen.packages]] in {where}")
    return path, configured_packages(path)


_script_exits_after_command = False
"""True in the console script (`entry`), where the process ends with the command; False where Click's runner or a library calls."""


def run_generate(config_path: Path | None = None, **options: Any) -> None:
    """Generate what the options ask for, or every configured package; print where each went."""
    from .config import merged
    from .commands.generate import GenerateConfig, generate_all

    ctx = click.get_current_context()
    if _script_exits_after_command:
        # What this process leaves uncollected is one package's parse at most (workers, and this
        # process when it generates alone, collect after each package), and the exit frees it.
        gc.disable()
    if options.get("revision") or options.get("schema_file"):
        configs = [GenerateConfig(**options)]
    else:
        _, entries = _configured(config_path, "pass --revision R (or --revision all), or --schema FILE")
        overrides = given(ctx, options)
        if len(entries) > 1 and {"output", "package", "dist"} & set(overrides):
            raise click.UsageError("--output, --package and --dist name one package; the config lists several")
        configs = [merged(entry, overrides) for entry in entries]
    for package in generate_all(configs):
        for warning in package.warnings:
            click.echo(f"mcpgen: warning: {warning}", err=True)
        where = f"{shown(package.path)} (in the project {shown(package.dist)})" if package.dist else shown(package.path)
        if package.changed:
            current().say(f"wrote {package.package} ({package.revision}) to {where}")
        else:
            current().say(f"up to date: {package.package} ({package.revision}) in {where}")


class LazyGroup(ReportingGroup):
    """A group that imports the commands living in their own modules only when they are looked up."""

    lazy: dict[str, tuple[str, str]] = {
        "diff": (".commands.diff.command", "diff_command"),
        "validate": (".commands.validate", "validate_command"),
        "tap": (".commands.tap.command", "tap_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, the lazy ones included."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command `cmd_name`, importing its module on first use; its examples end its --help."""
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute = self.lazy[cmd_name]
            command: click.Command = getattr(importlib.import_module(module, __package__), attribute)
            if command.epilog is None and cmd_name in EXAMPLES:
                command.epilog = examples(cmd_name)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples("mcpgen"),
)
@click.version_option(__version__, prog_name="mcpgen")
@console_options
@generate_options
@click.pass_context
@reported
@with_console
def main(ctx: click.Context, /, **options: Any) -> None:
    """Generate exact, typed Python bindings for a Model Context Protocol revision.

    `mcpgen --revision 2025-11-25` is the same as `mcpgen generate --revision 2025-11-25`, and bare
    `mcpgen` generates every package listed in [tool.mcpgen] of pyproject.toml. Shell completion
    (revisions included): see the README.
    """
    if ctx.invoked_subcommand is not None:
        return
    run_generate(**options)


@main.command("generate", epilog=examples("generate"))
@console_options
@generate_options
@reported
@with_console
def generate_command(**options: Any) -> None:
    """Generate the bindings package for a revision, a schema file, or every configured package."""
    run_generate(**options)


@main.command("revisions", epilog=examples("revisions"))
@reported
def revisions_command() -> None:
    """List the known revisions with their upstream pins."""
    from .inputs.pins import load_pins

    for pin in load_pins().values():
        click.echo(f"{pin.revision}  sha256 {pin.sha256}  {pin.path} @ {pin.commit[:12]}")


@main.command("check", epilog=examples("check"))
@click.argument("package_dirs", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--schema", "schema_file", type=click.Path(path_type=Path), help="The schema file an unpinned package was generated from.")
@schema_options
@config_option
@console_options
@click.pass_context
@reported
@with_console
def check_command(ctx: click.Context, /, package_dirs: tuple[Path, ...], config_path: Path | None, **options: Any) -> None:
    """Exit 0 when each package is exactly what this mcpgen generates; 1 with a diff when not.

    Without PACKAGE_DIRS, checks every package listed in [tool.mcpgen] of pyproject.toml.
    """
    from .commands.check import check_requests, requests_for_config, requests_for_dirs

    if package_dirs:
        requests = requests_for_dirs(package_dirs, **options)
    else:
        from .commands.fixes import regenerate_configured

        _, entries = _configured(config_path, "pass PACKAGE_DIR")
        typed = {k: v for k, v in options.items() if ctx.get_parameter_source(k) is ParameterSource.COMMANDLINE}
        requests = requests_for_config(entries, given(ctx, options), regenerate_configured(config_path, typed))
    if report_check(check_requests(requests)):
        sys.exit(1)


def report_check(outcomes: list[Outcome]) -> bool:
    """Print each package's state (diffs on stdout, stale ones and their fix on stderr); True when any is stale."""
    console = current()
    stale = [o for o in outcomes if o.stale]
    for outcome in outcomes:
        directory, result = outcome.request.directory, outcome.result
        if result is not None and result.current:
            console.say(f"{shown(directory)}: up to date ({result.revision})")
        elif result is not None:
            console.say(result.diff.rstrip("\n"))
    for outcome in stale:
        directory, result = outcome.request.directory, outcome.result
        state = f"differs from what mcpgen {__version__} generates for {result.revision}" if result else "missing"
        click.echo(f"{shown(directory)}: {state}\n  fix: {outcome.fix}", err=True)
    if stale and len(outcomes) > 1:
        click.echo(f"mcpgen: {len(stale)} of {len(outcomes)} packages stale", err=True)
    return bool(stale)


def entry() -> None:
    """The `mcpgen` console script: the command line, then an exit that Ctrl-C cannot change and that
    skips the interpreter's teardown.

    Once a command has finished (its output written and reported), a SIGINT during interpreter exit
    would otherwise kill the process by signal and turn a success into a failure. And nothing is
    left to do then but free every object of the parser, pydantic and black one by one, which took
    about 0.1 s of a cold generation: `_exit_now` ends the process instead.
    """
    global _script_exits_after_command
    _script_exits_after_command = True
    try:
        main()
        code: str | int | None = 0
    except SystemExit as done:
        code = done.code
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_now(code)


def _exit_now(code: str | int | None) -> NoReturn:
    """Exit with `code` as `sys.exit` does, after the exit handlers and with the output flushed, without the teardown.

    Where another thread that is not a daemon still runs, the interpreter would wait for it: so does
    this, by exiting the ordinary way.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if any(t.is_alive() for t in others):
        sys.exit(code)
    if isinstance(code, str):
        print(code, file=sys.stderr)
    status = 1 if isinstance(code, str) else code or 0
    atexit._run_exitfuncs()  # CPython's own run of the handlers `atexit.register` collected
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass  # the reader is gone: nobody is left to miss the rest
        except (OSError, ValueError):
            status = status or 120  # output was lost: what the interpreter's own exit reports
    os._exit(status)
