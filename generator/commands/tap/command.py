"""`mcpgen tap`: the command line over `run_tap` (options become a TapConfig)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ...inputs.pins import KNOWN_REVISIONS
from ...reporting import reported
from .config import DEFAULT_TIMEOUT, TapConfig


@click.command("tap", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--revision", type=click.Choice(KNOWN_REVISIONS), help="Judge against this revision (default: the one each handshake negotiates).")
@click.option("--log", "log", type=click.Path(path_type=Path, dir_okay=False), help="Write every message as a JSON line `mcpgen validate` reads.")
@click.option("--timeout", type=click.FloatRange(min=0), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds a request waits for its response, and a peer may leave what the tap writes unread (0: never).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Violations and summary as text lines or JSON lines (stderr).")
@click.option("--upstream", metavar="URL", help="Streamable HTTP: the MCP endpoint to relay to.")
@click.option("--listen", metavar="HOST:PORT", help="Streamable HTTP: where the tap listens (port 0: any free one).")
@click.option("--schema-dir", type=click.Path(path_type=Path, file_okay=False), envvar="MCPGEN_SCHEMA_DIR", help="Directory with <revision>/schema.json files; env MCPGEN_SCHEMA_DIR.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- COMMAND [ARG...]]")
@click.pass_context
@reported
def tap_command(ctx: click.Context, /, revision: str | None, log: Path | None, timeout: float, fmt: str, upstream: str | None, listen: str | None, schema_dir: Path | None, command: tuple[str, ...]) -> None:
    """Stand between an MCP client and server and report every message that breaks the negotiated revision.

    Over stdio, put `mcpgen tap --` before the server's command where a client's configuration starts
    the server: the tap starts it, relays both ways byte for byte and exits with its status. Over
    Streamable HTTP, point the client at --listen instead of the server's --upstream URL. Violations go
    to stderr as they pass (`mcpgen tap: ...`), a summary at the end.
    """
    from .run import run_tap

    color = ctx.color if ctx.color is not None else sys.stderr.isatty()
    config = TapConfig(
        command=command, upstream=upstream, listen=listen, revision=revision, log=log,
        timeout=timeout, format=fmt, color=color, schema_dir=schema_dir,
    )  # fmt: skip
    sys.exit(run_tap(config))
