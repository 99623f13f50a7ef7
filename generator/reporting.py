"""One error style for every command: `mcpgen: error: <one line>` on stderr and a non-zero exit."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, NoReturn, TypeVar

import click

from .errors import McpgenError

F = TypeVar("F", bound=Callable[..., Any])

PREFIX = "mcpgen: error: "
INTERRUPTED = "mcpgen: interrupted; the previous output is untouched"
USAGE_EXIT = 2
INTERNAL_EXIT = 3
INTERRUPT_EXIT = 130


def one_line(exc: BaseException | str, limit: int = 2000) -> str:
    """The message of `exc` on a single line, shortened to `limit` characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fail(message: str, code: int = USAGE_EXIT) -> NoReturn:
    """Print `message` in the one error style and exit with `code`."""
    click.echo(PREFIX + one_line(message), err=True)
    sys.exit(code)


def _usage_message(exc: click.ClickException) -> str:
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (see `{ctx.command_path} --help`)"
    return message


def _caused_by_interrupt(exc: BaseException) -> bool:
    """True when a KeyboardInterrupt is behind `exc`: Python 3.11 wraps one raised while a class is
    created (in `__set_name__`, as an import runs) in a RuntimeError."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def reported(func: F) -> F:
    """Turn mcpgen errors, click's usage errors and interrupts into one stderr line, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except McpgenError as exc:
            fail(str(exc), exc.exit_code)
        except (KeyboardInterrupt, click.exceptions.Abort, Interrupted):
            click.echo(INTERRUPTED, err=True)
            sys.exit(INTERRUPT_EXIT)
        except click.exceptions.Exit:
            raise
        except click.ClickException as exc:
            fail(_usage_message(exc), exc.exit_code)
        except Exception as exc:  # a bug in mcpgen: still one line, and a way to report it
            if _caused_by_interrupt(exc):
                click.echo(INTERRUPTED, err=True)
                sys.exit(INTERRUPT_EXIT)
            click.echo(
                f"mcpgen: internal error: {type(exc).__name__}: {one_line(exc)} (please report this)",
                err=True,
            )
            sys.exit(INTERNAL_EXIT)

    return wrapper  # type: ignore[return-value]


class Interrupted(Exception):
    """A Ctrl-C carried past click's own handling of KeyboardInterrupt (which writes a blank line first)."""


class ReportingGroup(click.Group):
    """A click group whose whole run, option parsing included, reports errors in the one style."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        """Parse the command line; a Ctrl-C meanwhile is reported as one line."""
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise Interrupted from None

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a Ctrl-C outside its own reporting (a lazy import) is reported as one line."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted from None

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line; click's own errors come out as one `mcpgen: error:` line too."""
        kwargs["standalone_mode"] = False
        code = reported(super().main)(*args, **kwargs)
        sys.exit(code if isinstance(code, int) else 0)
