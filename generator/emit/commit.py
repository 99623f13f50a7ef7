"""Changes to a package directory made all or not at all: staged beside it, moved in file by file, and
every step undone when one fails or the run is interrupted (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from contextlib import ExitStack, contextmanager, suppress
from functools import partial
from itertools import takewhile
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..errors import OutputError

try:
    import fcntl
except ImportError:  # Windows: runs writing one package at once are not serialized
    fcntl = None  # type: ignore[assignment]

Undo = Callable[[], None]
_LOCK_POLL = 0.05
"""Seconds between tries at a lock another run holds."""


class _Terminated(KeyboardInterrupt):
    """Raised when SIGTERM arrives during a commit, so it is undone and reported like a Ctrl-C."""


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    def handler(signum: int, frame: object) -> None:
        raise _Terminated(signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signal handling alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends: an undo must not be cut short."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


@contextmanager
def exclusive(targets: Iterable[Path], waiting: Callable[[str], None]) -> Iterator[None]:
    """Hold every target's lock until the block ends: another mcpgen run writing one of them waits
    (and `waiting` says so), then plans its writes against what this one wrote. A lock is a file
    beside its target, removed on release (none without `fcntl` or where the folder takes none)."""
    with _terminate_as_interrupt(), ExitStack() as stack:  # a SIGTERM while waiting unwinds the locks too
        for target in sorted({t.resolve() for t in targets}):
            if not _locked(target, stack):
                waiting(f"waiting for another mcpgen run writing {target}")
                while not _locked(target, stack):
                    time.sleep(_LOCK_POLL)
        yield


def _lock_file(target: Path) -> Path:
    return target.parent / f".{target.name}.mcpgen.lock"


def _locked(target: Path, stack: ExitStack) -> bool:
    """Try once to take the target's lock, its release put on `stack`, with interrupts held back (so
    none leaves a lock file behind); False while another run holds it, True where none can be."""
    if fcntl is None:
        return True
    path = _lock_file(target)
    with _signals_held():
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return True  # a folder not made yet (nothing to lose), or one the commit reports it cannot write
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Not the same file when the run before removed it on release: try the one there now.
            held = os.path.samestat(os.fstat(fd), os.stat(path))
        except (BlockingIOError, FileNotFoundError):
            held = False
        except OSError:  # a filesystem without locks
            os.close(fd)
            return True
        if not held:
            os.close(fd)
            return False
        stack.callback(_unlock, fd, path)
        return True


def _unlock(fd: int, path: Path) -> None:
    with _signals_held():
        with suppress(OSError):
            path.unlink()
        os.close(fd)


def commit(
    target: Path, writes: dict[str, str], removals: tuple[str, ...], written: Callable[[], None] = lambda: None
) -> None:
    """Write `writes` (relative path → text) into `target` and remove `removals` (relative files or
    directories) from it: all of it, or, after an error or an interrupt, none of it. `written` is called
    the moment all of it is in place (an interrupt after that undoes nothing)."""
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {parent}: {exc.strerror}") from None
    undo: list[Undo] = []
    staging: Path | None = None
    kept: Path | None = None
    with _terminate_as_interrupt():
        try:
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.mcpgen-", dir=parent))
            for name, text in writes.items():
                (staging / name).parent.mkdir(parents=True, exist_ok=True)
                (staging / name).write_text(text, encoding="utf-8", newline="\n")
            kept = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
            _move_in(target, staging, kept, writes, removals, undo)
            undo.clear()
            written()
        except (OSError, KeyboardInterrupt) as exc:
            failed = _undone(undo)
            reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else "interrupted"
            where = _named(exc, target, staging) if isinstance(exc, OSError) else target
            if failed and kept is not None:
                left, kept = kept, None
                raise OutputError(
                    f"cannot write {where} ({reason}) nor restore {', '.join(failed)}: the previous files are in {left}"
                ) from None
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise OutputError(f"cannot write {where}: {reason}") from None
        finally:
            with _signals_held():  # the clean-up is not cut short either
                for directory in (staging, kept):
                    if directory is not None:
                        shutil.rmtree(directory, ignore_errors=True)


def _named(exc: OSError, target: Path, staging: Path | None) -> Path:
    """The file of the package an error is about (a staged file by the place it was going to), else the package."""
    for name in (exc.filename2, exc.filename):
        if not name:
            continue
        path = Path(os.fsdecode(name))
        for base in (target, staging):
            if base is not None and path != base and path.is_relative_to(base):
                return target / path.relative_to(base)
    return target


def _move_in(
    target: Path, staging: Path, kept: Path, writes: dict[str, str], removals: tuple[str, ...], undo: list[Undo]
) -> None:
    """Set the removals aside in `kept`, then move each staged file into place (the file it replaces kept too).

    Each step's undo is recorded before the step, and tolerates a step that did not happen.
    """
    _make_dirs(target, undo)
    for name in removals:
        _set_aside(target / name, kept / name, undo, move=True)
    for name in sorted(writes):
        path = target / name
        _make_dirs(path.parent, undo)
        if os.path.lexists(path):
            _set_aside(path, kept / name, undo, move=False)
        else:
            undo.append(partial(_remove_file, path))
        os.replace(staging / name, path)


def _make_dirs(directory: Path, undo: list[Undo]) -> None:
    """Create `directory` and its missing parents."""
    missing = list(takewhile(lambda d: not os.path.lexists(d), [directory, *directory.parents]))
    for path in reversed(missing):
        undo.append(partial(_remove_dir, path))
        os.mkdir(path)


def _set_aside(path: Path, kept: Path, undo: list[Undo], move: bool) -> None:
    """Keep `path` at `kept` for an undo: moved there, or (not `move`) hard-linked where the filesystem
    can, so that `path` is replaced in one step and never goes missing."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    undo.append(partial(_put_back, kept, path))
    if not move:
        try:
            os.link(path, kept, follow_symlinks=False)
            return
        except OSError:
            pass
    os.replace(path, kept)


def _put_back(kept: Path, path: Path) -> None:
    if os.path.lexists(kept):
        os.replace(kept, path)


def _remove_file(path: Path) -> None:
    path.unlink(missing_ok=True)


def _remove_dir(path: Path) -> None:
    with suppress(FileNotFoundError):
        os.rmdir(path)


def _undone(undo: list[Undo]) -> list[str]:
    """Undo the steps taken, last first, with interrupts held back; the paths that could not be restored."""
    failed: list[str] = []
    with _signals_held():
        for step in reversed(undo):
            try:
                step()
            except OSError as exc:
                failed.append(str(exc.filename or exc))
    undo.clear()
    return failed
