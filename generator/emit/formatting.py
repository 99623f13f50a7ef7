"""Black formatting of generated files, cut into chunks that black can format alone.

Black puts exactly two blank lines before an undecorated top-level `class` or `def`, and before
a top-level assignment that follows one, when only blank lines separate them. So formatting
each chunk that starts at such a statement on its own and joining the results with two blank
lines gives black's output for the whole file. Between a top-level assignment and the assignment or
expression before it black keeps the blank lines written, up to two, so a chunk starts there too and
is joined with as many. Inside a top-level class, black keeps the one blank line written between two
methods (at depth one it never adds or removes lines there), so an undecorated method after exactly
one blank line is a chunk too: black formats it as the only member of a stand-in class, and the
results are joined with one blank line. The chunks depend on the source only, so the output is the
same however many processes format them.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import signal
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TypeVar

from ..errors import SchemaError
from .files import Sources
from .layout import LINE_LENGTH

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection

_JOIN = "\n\n"  # two blank lines: the previous chunk ends with its newline
_MEMBER_JOIN = "\n"
_MEMBER = "class _:\n"  # the stand-in class a method is formatted in
_SHARES_PER_WORKER = 2  # a batch takes 1/(this × workers) of the bytes left
_SMALLEST_BATCH = 4000  # bytes: below this, a batch costs more to send and collect than it saves
# From CPython 3.11.5 on, the pool's own thread closes the call queue's reading end once a worker
# dies (gh-94777); a second close from here could race it and close a descriptor twice.
_POOL_CLOSES_ITS_CALL_QUEUE = sys.version_info >= (3, 11, 5)
_STUCK_AFTER = 0.25  # seconds the pool's thread may take to tear down before it counts as stuck
_T = TypeVar("_T")
_R = TypeVar("_R")


def _mode() -> object:
    import black

    return black.Mode(target_versions={black.mode.TargetVersion.PY310}, line_length=LINE_LENGTH)


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """Run the block with automatic garbage collection off and the objects made before it frozen.

    Parsing and formatting allocate millions of objects, and the collections they triggered walked
    the live ones over and over (each full one every object of datamodel-code-generator, pydantic
    and black): about a fifth of a cold generation. Garbage the block makes waits for its end (and
    for the end of each task in pool workers, `collected`), which bounds what it holds by the work.
    """
    enabled = gc.isenabled()
    ours = gc.get_freeze_count() == 0  # objects a caller froze stay frozen after the block
    if ours:
        gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        if ours:
            gc.unfreeze()


def collected(task: Callable[[_T], _R]) -> Callable[[_T], _R]:
    """`task` followed by one garbage collection (picklable, for a pool whose workers `warm` set up)."""
    return functools.partial(_run_then_collect, task)


def _run_then_collect(task: Callable[[_T], _R], arg: _T) -> _R:
    try:
        return task(arg)
    finally:
        gc.collect()


def warm() -> None:
    """Process-pool initializer: quiet Ctrl-C, black imported, automatic collection off (see `collected`).

    The parent reports the interrupt in one line; a worker's own KeyboardInterrupt traceback
    would only add noise, so SIGINT takes the operating system's default action here. The worker
    collects garbage only after each task; what it inherited or made ready beforehand is frozen by
    the caller (`gc.freeze`), so collections neither walk those objects nor copy their pages.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # started with SIGINT blocked (`quiet_start`): take it from here
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    gc.disable()
    _mode()


@contextlib.contextmanager
def quiet_start() -> Iterator[None]:
    """Start pool workers (fork them) inside this block: they begin with SIGINT blocked, so a Ctrl-C before
    `warm` gives them the default action can never raise KeyboardInterrupt (and print a traceback) there."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


def abandon(pool: ProcessPoolExecutor) -> None:
    """Stop the workers at once (after an interrupt or an error) without waiting for work in flight.

    Two of the pool's pipes could block `shutdown`, and with it interpreter exit, forever once the
    workers are gone:
    - a result a worker was killed in the middle of sending blocks the thread reading it, so the
      parent's writing end of the result queue (which nothing else in the parent writes to or closes
      before `shutdown`) is closed: with every writer gone, that read ends instead of waiting;
    - before CPython 3.11.5 (gh-94777; Debian 12's 3.11.2 has it), work still buffered for the call
      queue blocks its feeder thread and with it the pool's thread, so when that thread is still
      tearing down after a moment, the parent's reading end is closed, as later releases do
      themselves. Those releases close it from the pool's thread, so it is never closed from here.

    The exception that got here is what the user must see: not a pipe the teardown found closed, nor
    the pool thread's complaint (CPython 3.11) that a task it marks failed was cancelled already.
    """
    from concurrent.futures import InvalidStateError

    manager = getattr(pool, "_executor_manager_thread", None)
    report = threading.excepthook

    def quiet(args: threading.ExceptHookArgs) -> None:
        if args.thread is not manager or not issubclass(args.exc_type, InvalidStateError):
            report(args)

    try:
        threading.excepthook = quiet
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        _close(getattr(getattr(pool, "_result_queue", None), "_writer", None))
        if not _POOL_CLOSES_ITS_CALL_QUEUE and manager is not None and manager.is_alive():
            manager.join(_STUCK_AFTER)
            if manager.is_alive():
                _close(getattr(getattr(pool, "_call_queue", None), "_reader", None))
        # A pipe the teardown finds closed (OSError, or TypeError from a handle already let go) must not
        # replace the exception being reported.
        with contextlib.suppress(OSError, TypeError, ValueError):
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        threading.excepthook = report


def _close(end: Connection | None) -> None:
    """Close one end of a pool's pipe if there is one; an end already closed is fine."""
    if end is not None:
        with contextlib.suppress(OSError):
            end.close()


def check_syntax(source: str, filename: str) -> ast.Module:
    """The module's AST; SchemaError when the generated source is not valid Python (a generator bug)."""
    try:
        return ast.parse(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise SchemaError(f"generated {filename} is not valid Python ({exc}); please report this schema") from exc


def chunks(source: str, filename: str = "<generated>") -> list[tuple[str, str]]:
    """`source` as (separator, chunk) pairs: cut before each top-level statement black puts two blank
    lines before (separator two blank lines), before an assignment that follows an assignment or an
    expression after blank lines black keeps (separator those lines), and before each method black
    keeps one blank line before (separator one blank line; the chunk is the method inside a stand-in
    class)."""
    tree = check_syntax(source, filename)
    if any(mark in source for mark in _WHOLE):
        return [("", source)]  # one chunk: black's own line handling or directives span the file
    lines = source.split("\n")
    cuts = {0: ""}
    members: set[int] = set()
    for index, (prev, node) in enumerate(zip(tree.body, tree.body[1:])):
        if prev.end_lineno is None:
            continue
        start = node.lineno - 1
        gap = lines[prev.end_lineno : start]
        if not gap or any(line.strip(" ") for line in gap):
            continue
        if _two_lines_before(prev, node) and lines[start].startswith(_first_word(node)):
            cuts[start] = _JOIN
        elif _kept_lines_between(prev, node, first=index == 0):
            cuts[start] = "\n" * min(len(gap), 2)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.col_offset == 0:
            for prev, member in zip(node.body, node.body[1:]):
                if _method_after_one_blank_line(prev, member, lines):
                    cuts[member.lineno - 1] = _MEMBER_JOIN
                    members.add(member.lineno - 1)
    starts = sorted(cuts)
    return [
        (cuts[a], (_MEMBER if a in members else "") + "\n".join(lines[a:b]))
        for a, b in zip(starts, [*starts[1:], len(lines)])
    ]


def _method_after_one_blank_line(prev: ast.stmt, member: ast.stmt, lines: list[str]) -> bool:
    methods = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not isinstance(prev, methods) or not isinstance(member, methods) or member.decorator_list:
        return False
    if prev.col_offset != 4 or member.col_offset != 4 or prev.end_lineno != member.lineno - 2:
        return False
    return lines[member.lineno - 2] == "" and lines[member.lineno - 1].startswith(("    def ", "    async def "))


_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign)
_WHOLE = ("\r", "\f", "\v", "\\\n", "fmt:")
"""Text that makes a file one chunk: newlines black and line numbers could count apart, a backslash
continuation (it may join the next chunk's first line), `# fmt:` directives (they reach past a cut)."""


def _kept_lines_between(prev: ast.stmt, node: ast.stmt, first: bool) -> bool:
    """Whether black keeps the blank lines written between two top-level statements (up to two): an
    assignment after one or after an expression. Not after a module docstring or an import (black puts
    one blank line there) nor after a block (a `def` in it makes black put two)."""
    if not isinstance(node, _ASSIGNMENTS):
        return False
    return isinstance(prev, _ASSIGNMENTS) or (isinstance(prev, ast.Expr) and not first)


def _two_lines_before(prev: ast.stmt, node: ast.stmt) -> bool:
    if isinstance(node, _DEFS):
        return not node.decorator_list
    return isinstance(node, _ASSIGNMENTS) and isinstance(prev, _DEFS)


def _first_word(node: ast.stmt) -> str:
    if isinstance(node, ast.ClassDef):
        return "class "
    if isinstance(node, ast.FunctionDef):
        return "def "
    if isinstance(node, ast.AsyncFunctionDef):
        return "async "
    return ""


def format_chunk(chunk: str) -> str:
    """One chunk through black.

    Black drops trailing blank lines and formats a second time whenever its first pass changed
    anything, so a chunk cut before two blank lines would always take two passes; without them,
    source that is already black-formatted takes one.
    """
    import black

    text = chunk.rstrip()
    text = chunk if text.endswith("\\") else text  # a backslash continuation needs the line it continues
    return black.format_str(text + "\n", mode=_mode())  # type: ignore[arg-type]


def format_many(batch: list[str]) -> list[tuple[bool, str]]:
    """Format several chunks; (True, output) or (False, error message) each, so errors cross processes as text."""
    if batch:
        _mode()  # black missing is an installation error, not an error in a chunk: let it raise
    out: list[tuple[bool, str]] = []
    for chunk in batch:
        try:
            out.append((True, format_chunk(chunk)))
        except Exception as exc:  # black raises several types; every one is a generator bug here
            out.append((False, f"{type(exc).__name__}: {exc}"))
    return out


def _batches(texts: list[str], workers: int) -> list[list[str]]:
    """`texts` in contiguous batches that shrink as they go: each takes a share of what is left, so the
    workers, taking the next batch whenever they finish one, also finish at about the same time."""
    left = sum(len(t) for t in texts)
    batches: list[list[str]] = []
    size = target = 0
    for text in texts:
        if not batches or size >= target:
            batches.append([])
            size, target = 0, max(left // (_SHARES_PER_WORKER * workers), _SMALLEST_BATCH)
        batches[-1].append(text)
        size += len(text)
        left -= len(text)
    return batches


@dataclass(frozen=True)
class CutFiles:
    """A package's files ready for black: each rendered `.py` file's chunks, and the files black does not read."""

    names: tuple[str, ...]  # every file, in order
    chunks: dict[str, list[tuple[str, str]]]  # `.py` file → (separator, chunk) pairs
    other: dict[str, str]  # files written as they are


def cut_files(sources: Sources) -> CutFiles:
    """A package's rendered `.py` files cut into chunks; the rest (and the verbatim files) kept as they are."""
    rendered = sources.rendered
    cut = {name: chunks(text, name) for name, text in rendered.items() if name.endswith(".py")}
    other = {name: text for name, text in rendered.items() if name not in cut}
    return CutFiles((*rendered, *sources.verbatim), cut, {**other, **sources.verbatim})


def format_files(packages: Iterable[Sources]) -> list[dict[str, str]]:
    """Every rendered `.py` file of each package formatted by black in this process (`format_cut_files`)."""
    return format_cut_files([cut_files(package) for package in packages])


def format_cut_files(
    packages: list[CutFiles], pool: ProcessPoolExecutor | None = None, workers: int = 1
) -> list[dict[str, str]]:
    """Each package's files, every chunk formatted by black once however many packages share it, spread
    over the `workers` of `pool` (set up by `warm`) when given."""
    if pool is None or workers <= 1:
        unique = _unique(packages)
        return _assembled(packages, dict(zip(unique, format_many(unique))))
    return start_formatting(packages, pool, workers)()


def start_formatting(
    packages: list[CutFiles], pool: ProcessPoolExecutor, workers: int
) -> Callable[[], list[dict[str, str]]]:
    """Hand every chunk of `packages` to `pool` now; the function returned waits for black and returns
    `format_cut_files`'s answer (so a part cut early is formatted while another is still being cut)."""
    batches = _batches(_unique(packages), workers)
    futures = [pool.submit(collected(format_many), batch) for batch in batches]

    def assembled() -> list[dict[str, str]]:
        results: dict[str, tuple[bool, str]] = {}
        for batch, future in zip(batches, futures):
            results.update(zip(batch, future.result()))
        return _assembled(packages, results)

    return assembled


def _unique(packages: list[CutFiles]) -> list[str]:
    return list(dict.fromkeys(c for p in packages for parts in p.chunks.values() for _, c in parts))


def _assembled(packages: list[CutFiles], results: dict[str, tuple[bool, str]]) -> list[dict[str, str]]:
    return [
        {name: p.other[name] if name in p.other else _joined(name, p.chunks[name], results) for name in p.names}
        for p in packages
    ]


def _joined(name: str, parts: list[tuple[str, str]], results: dict[str, tuple[bool, str]]) -> str:
    """The formatted chunks of file `name` put back together."""
    pieces: list[str] = []
    for separator, part in parts:
        ok, text = results[part]
        if not ok:
            raise SchemaError(f"generated {name} is not valid Python ({text}); please report this schema")
        if separator == _MEMBER_JOIN and part.startswith(_MEMBER):  # an assignment's chunk never starts so
            if not text.startswith(_MEMBER):
                raise SchemaError(f"black moved a method of {name} out of its class; please report this schema")
            text = text[len(_MEMBER) :]
        pieces.append(separator + text if pieces else text)
    return "".join(pieces)
