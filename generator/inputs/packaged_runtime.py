"""The runtime as every package carries it: its source files, and what its modules export and its base
classes hold, read from the text without importing it (the runtime's imports would cost generation a
tenth of a second or more, on the path every package waits for)."""

from __future__ import annotations

import ast
from functools import lru_cache
from importlib import resources
from typing import Any

RUNTIME_DIR = "runtime"


@lru_cache(maxsize=1)
def runtime_sources() -> tuple[tuple[str, str], ...]:
    """(path inside the package, text) of every source file of the runtime, `mcpgen.runtime`."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, prefix: str) -> None:
        for entry in sorted(node.iterdir(), key=lambda e: e.name):
            if entry.is_dir() and entry.name != "__pycache__":
                walk(entry, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".py"):
                found.append((prefix + entry.name, entry.read_text("utf-8")))

    walk(resources.files("mcpgen.runtime"), f"{RUNTIME_DIR}/")
    return tuple(found)


def runtime_files(header: str) -> dict[str, str]:
    """The runtime's files as a package carries them: verbatim, after the package's header."""
    return {path: f"{header}\n{text}" for path, text in runtime_sources()}


@lru_cache(maxsize=None)
def exports(module: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names runtime module `module` (dotted, below the runtime) lists in `__all__`, sorted, and those
    of them that are functions taking a `revisions` parameter (a package binds them to its revisions)."""
    path = _module_path(module)
    names = tuple(sorted(_all_of(_tree(path), path)))
    return names, tuple(name for name in names if _takes_revisions(_definition(path, name)))


@lru_cache(maxsize=None)
def class_members(module: str, name: str) -> frozenset[str]:
    """The public members of runtime class `name` in `module` (dotted, below the runtime) and of the
    runtime classes it derives from: methods, properties and class attributes, declared or assigned."""
    return frozenset(n for n in _members(_definition(_module_path(module), name)) if not n.startswith("_"))


_Found = tuple[str, ast.stmt]
"""Where a name is bound: the runtime file and its top-level statement."""
_DEPTH = 20


def _definition(path: str, name: str, depth: int = 0) -> _Found:
    """The last top-level statement binding `name` in the module at `path`, following the runtime's
    relative imports and plain aliases (`a = b`) to where it is defined."""
    if depth > _DEPTH:
        raise LookupError(f"{path}: {name} is re-exported more than {_DEPTH} times")
    found = None
    for node in _tree(path).body:
        if name in _bound_by(node):
            found = node
    if found is None:
        raise LookupError(f"{path} does not define {name}")
    if isinstance(found, ast.ImportFrom):
        if found.level != 1 or not found.module:
            raise LookupError(f"{path}: {name} comes from outside the runtime")
        return _definition(_sibling(path, found.module), _bound_by(found)[name], depth + 1)
    if isinstance(found, (ast.Assign, ast.AnnAssign)) and isinstance(found.value, ast.Name):
        return _definition(path, found.value.id, depth + 1)
    return path, found


def _bound_by(node: ast.stmt) -> dict[str, str]:
    """The names a top-level statement binds, each with the name it has where it comes from."""
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {node.name: node.name}
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name: a.name for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return {target: target for target in _targets(node)}
    return {}


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    """The names an assignment binds (`a = b`, `a, b = c`; not `a.b = c` nor `a[0] = c`)."""
    names: set[str] = set()
    pending: list[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
    while pending:
        target = pending.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pending += target.elts
        elif isinstance(target, ast.Starred):
            pending.append(target.value)
    return names


def _takes_revisions(found: _Found) -> bool:
    """Whether the definition is a function with a `revisions` parameter (a decorator is taken to keep
    the signature, as `functools.wraps` does; tests/runtime/test_runtime_copy.py checks the imports)."""
    node = found[1]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a class or a value: not a function the package binds
    a = node.args
    return any(p.arg == "revisions" for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))])


def _members(found: _Found) -> set[str]:
    path, node = found
    if not isinstance(node, ast.ClassDef):
        raise LookupError(f"{path}: line {node.lineno} is no class")
    members: set[str] = set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            members |= _targets(statement)
    for base in node.bases:
        if not isinstance(base, ast.Name):
            raise LookupError(f"{path}: {node.name}'s base {ast.unparse(base)} is not a runtime class")
        if base.id != "object":
            members |= _members(_definition(path, base.id))
    return members


def _module_path(module: str) -> str:
    base = f"{RUNTIME_DIR}/{module.replace('.', '/')}"
    paths = dict(runtime_sources())
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if candidate in paths:
            return candidate
    raise LookupError(f"the runtime has no module {module!r}")


@lru_cache(maxsize=None)
def _tree(path: str) -> ast.Module:
    return ast.parse(dict(runtime_sources())[path], path)


def _all_of(tree: ast.Module, path: str) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = ast.literal_eval(node.value)
            if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                return list(value)
    raise LookupError(f"{path} has no literal __all__")


def _sibling(path: str, module: str) -> str:
    package = path.rpartition("/")[0].removeprefix(RUNTIME_DIR).strip("/")
    return _module_path(f"{package}.{module}" if package else module)
