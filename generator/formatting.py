"""Black formatting of generated files, cut into chunks that black can format alone.

Black puts exactly two blank lines before an undecorated top-level `class` or `def`, and before
a top-level assignment that follows one, when only blank lines separate them. So formatting
each chunk that starts at such a statement on its own and joining the results with two blank
lines gives black's output for the whole file. Inside a top-level class, black keeps the one
blank line written between two methods (at depth one it never adds or removes lines there), so an
undecorated method after exactly one blank line is a chunk too: black formats it as the only
member of a stand-in class, and the results are joined with one blank line. The chunks depend on
the source only, so the output is the same however many processes format them.
"""

from __future__ import annotations

import ast
import contextlib
import signal
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Callable, Iterable

from .errors import SchemaError

LINE_LENGTH = 100
_JOIN = "\n\n"
_MEMBER_JOIN = "\n"
_MEMBER = "class _:\n"  # the stand-in class a method is formatted in
_BATCHES_PER_WORKER = 3


def _mode() -> object:
    import black

    return black.Mode(target_versions={black.mode.TargetVersion.PY310}, line_length=LINE_LENGTH)


def preload() -> None:
    """Import black in this process, so that workers forked from it share it instead of importing it again."""
    _mode()


def warm() -> None:
    """Process-pool initializer: import black, and let Ctrl-C end the worker quietly.

    The parent reports the interrupt in one line; a worker's own KeyboardInterrupt traceback
    would only add noise, so SIGINT takes the operating system's default action here.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    _mode()


def abandon(pool: ProcessPoolExecutor) -> None:
    """Stop the workers at once (after an interrupt or an error) without waiting for work in flight.

    Work still buffered for the call queue would block its feeder thread forever once the workers
    that read it are gone, and with it `shutdown` and interpreter exit (CPython gh-94777; Python
    3.11.2, Debian 12's, still has it): the workers are terminated and the parent's end of that
    pipe is closed first, as later CPython releases do themselves.
    """
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    call_queue = getattr(pool, "_call_queue", None)
    reader = getattr(call_queue, "_reader", None)
    # The exception that got us here is what the user must see, not a pipe the teardown found closed.
    with contextlib.suppress(OSError):
        if reader is not None:
            reader.close()
    with contextlib.suppress(OSError):
        pool.shutdown(wait=True, cancel_futures=True)


def check_syntax(source: str, filename: str) -> ast.Module:
    """The module's AST; SchemaError when the generated source is not valid Python (a generator bug)."""
    try:
        return ast.parse(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise SchemaError(f"generated {filename} is not valid Python ({exc}); please report this schema") from exc


def chunks(source: str, filename: str = "<generated>") -> list[tuple[str, str]]:
    """`source` as (separator, chunk) pairs: cut before each top-level statement black puts two blank
    lines before (separator two blank lines) and before each method black keeps one blank line before
    (separator one blank line; the chunk is the method inside a stand-in class)."""
    tree = check_syntax(source, filename)
    if "\r" in source or "\f" in source or "\v" in source:
        return [("", source)]  # line numbers and black's newline handling could disagree: one chunk
    lines = source.split("\n")
    cuts = {0: ""}
    for prev, node in zip(tree.body, tree.body[1:]):
        if prev.end_lineno is None or not _two_lines_before(prev, node):
            continue
        start = node.lineno - 1
        gap = lines[prev.end_lineno : start]
        if gap and not any(line.strip(" ") for line in gap) and lines[start].startswith(_first_word(node)):
            cuts[start] = _JOIN
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.col_offset == 0:
            for prev, member in zip(node.body, node.body[1:]):
                if _method_after_one_blank_line(prev, member, lines):
                    cuts[member.lineno - 1] = _MEMBER_JOIN
    starts = sorted(cuts)
    return [
        (cuts[a], (_MEMBER if cuts[a] == _MEMBER_JOIN else "") + "\n".join(lines[a:b]))
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


def _two_lines_before(prev: ast.stmt, node: ast.stmt) -> bool:
    if isinstance(node, _DEFS):
        return not node.decorator_list
    return isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(prev, _DEFS)


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

    return black.format_str(chunk.rstrip() + "\n", mode=_mode())  # type: ignore[arg-type]


def format_many(batch: list[str]) -> list[tuple[bool, str]]:
    """Format several chunks; (True, output) or (False, error message) each, so errors cross processes as text."""
    out: list[tuple[bool, str]] = []
    for chunk in batch:
        try:
            out.append((True, format_chunk(chunk)))
        except Exception as exc:  # black raises several types; every one is a generator bug here
            out.append((False, f"{type(exc).__name__}: {exc}"))
    return out


def _batches(texts: list[str], count: int) -> list[list[str]]:
    """`texts` in at most `count` contiguous batches of about equal size."""
    total = sum(len(t) for t in texts) or 1
    batches: list[list[str]] = [[]]
    size = 0
    for text in texts:
        if size >= total * len(batches) / count and len(batches) < count:
            batches.append([])
        batches[-1].append(text)
        size += len(text)
    return [b for b in batches if b]


def format_files(
    files: Iterable[dict[str, str]],
    executor: Executor | None = None,
    workers: int = 1,
    verbatim: Callable[[str, str], bool] | None = None,
) -> list[dict[str, str]]:
    """Every `.py` file of each package formatted by black, chunks shared and spread over `executor`.

    Chunks for which `verbatim(filename, chunk)` holds are known to be black-formatted already
    and skip black.
    """
    packages = list(files)
    cut: list[dict[str, list[tuple[str, str]]]] = [
        {name: chunks(text, name) for name, text in package.items() if name.endswith(".py")}
        for package in packages
    ]
    results: dict[str, tuple[bool, str]] = {
        c: (True, c.rstrip() + "\n")
        for by_name in cut
        for name, parts in by_name.items()
        for _, c in parts
        if verbatim is not None and verbatim(name, c.removeprefix(_MEMBER))
    }
    every = dict.fromkeys(c for by_name in cut for parts in by_name.values() for _, c in parts)
    unique = [c for c in every if c not in results]
    if executor is None or workers <= 1:
        results.update(zip(unique, format_many(unique)))
    else:
        batches = _batches(unique, workers * _BATCHES_PER_WORKER)
        for batch, done in zip(batches, executor.map(format_many, batches)):
            results.update(zip(batch, done))
    return [
        {**package, **{name: _joined(name, parts, results) for name, parts in by_name.items()}}
        for package, by_name in zip(packages, cut)
    ]


def _joined(name: str, parts: list[tuple[str, str]], results: dict[str, tuple[bool, str]]) -> str:
    """The formatted chunks of file `name` put back together."""
    pieces: list[str] = []
    for separator, part in parts:
        ok, text = results[part]
        if not ok:
            raise SchemaError(f"generated {name} is not valid Python ({text}); please report this schema")
        if separator == _MEMBER_JOIN:
            if not text.startswith(_MEMBER):
                raise SchemaError(f"black moved a method of {name} out of its class; please report this schema")
            text = text[len(_MEMBER) :]
        pieces.append(separator + text if pieces else text)
    return "".join(pieces)
