"""Atomic output: a package is written beside its target and swapped in whole, or not at all."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..errors import OutputError
from .provenance import is_generated

def check_target(target: Path, force: bool) -> None:
    """Refuse a non-empty target unless `force` is set and it is an mcpgen package."""
    if target.exists() and not target.is_dir():
        raise OutputError(f"output {target} exists and is not a directory")
    if target.is_dir() and any(target.iterdir()):
        if not force:
            raise OutputError(f"output directory {target} is not empty (pass --force to replace the generated package)")
        if not is_generated(target):
            raise OutputError(f"output directory {target} is not a package mcpgen generated; refusing to replace it")


class _Interrupted(BaseException):
    """Raised inside a write when SIGTERM arrives, so the temporary tree is cleaned up."""


@contextmanager
def _terminate_as_exception() -> Iterator[None]:
    def handler(signum: int, frame: object) -> None:
        raise _Interrupted(signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signal handling alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def write_package(files: dict[str, str], target: Path, force: bool = False) -> None:
    """Write `files` as the package directory `target`, replacing it atomically."""
    check_target(target, force)
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {parent}: {exc.strerror}") from None
    staging: Path | None = None
    retired: Path | None = None
    with _terminate_as_exception():
        try:
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.mcpgen-", dir=parent))
            for name, text in sorted(files.items()):
                path = staging / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
            os.chmod(staging, 0o755)
            if target.exists():
                retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
                os.rmdir(retired)
                os.replace(target, retired)
            os.replace(staging, target)
            staging = None
        except OSError as exc:
            if retired is not None and not target.exists():
                os.replace(retired, target)
                retired = None
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        except (_Interrupted, KeyboardInterrupt):
            if retired is not None and not target.exists():
                os.replace(retired, target)
                retired = None
            raise KeyboardInterrupt from None
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            if retired is not None:
                shutil.rmtree(retired, ignore_errors=True)
