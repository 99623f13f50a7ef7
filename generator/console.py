"""How mcpgen talks to a person: whether to colour, how much to say, and progress on stderr.

Every command decides colour the same way (`color_choice`), and click applies the decision to
every `click.echo`, so commands only style their text. Library code reports through `current()`,
which is silent unless the command line activated a console.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, Mapping

import click

NO_COLOR_ENV = "NO_COLOR"
_CLEAR = "\r\x1b[K"


def color_choice(flag: bool | None, env: Mapping[str, str] | None = None) -> bool | None:
    """`--color`/`--no-color` when given; else off when NO_COLOR is set (https://no-color.org); else None (click: on for a terminal)."""
    if flag is not None:
        return flag
    env = os.environ if env is None else env
    return False if env.get(NO_COLOR_ENV) else None


def shown(path: Path) -> str:
    """`path` as a person would type it here: relative to the working directory when inside it."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith(os.pardir) else str(path)


@dataclass
class Console:
    """Messages for a person on stderr: progress on a terminal only, details with --verbose, little with --quiet."""

    verbosity: int = 0  # -1 quiet, 0 normal, 1 verbose
    stream: IO[str] | None = None
    _status: bool = field(default=False, repr=False)

    def _err(self) -> IO[str]:
        return self.stream if self.stream is not None else sys.stderr

    @property
    def interactive(self) -> bool:
        """True when progress lines are shown: stderr is a terminal and not --quiet."""
        return self.verbosity >= 0 and self._err().isatty()

    def status(self, text: str) -> None:
        """Replace the transient progress line (terminals only)."""
        if self.interactive:
            self._err().write(_CLEAR + text)
            self._err().flush()
            self._status = True

    def clear(self) -> None:
        """Remove the progress line, if one is shown."""
        if self._status:
            self._err().write(_CLEAR)
            self._err().flush()
            self._status = False

    def detail(self, text: str) -> None:
        """A line for --verbose only."""
        if self.verbosity > 0:
            self.clear()
            click.echo(f"mcpgen: {text}", file=self._err())

    def say(self, text: str, err: bool = False) -> None:
        """A result line (stdout, or stderr when `err`), left out with --quiet."""
        if self.verbosity >= 0:
            self.clear()
            click.echo(text, err=err)


_current: contextvars.ContextVar[Console] = contextvars.ContextVar("mcpgen_console", default=Console(verbosity=-1))


def current() -> Console:
    """The console of the running command (silent outside one)."""
    return _current.get()


@contextlib.contextmanager
def activated(console: Console) -> Iterator[Console]:
    """Make `console` the one library code reports to, and clear its progress line at the end."""
    token = _current.set(console)
    try:
        yield console
    finally:
        console.clear()
        _current.reset(token)
