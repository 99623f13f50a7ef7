"""Apply a mutant to a copy of mcpgen: locate its text by scope, never by line, and build an importable tree."""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

from mutants import Mutant

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class Stale(Exception):
    """A mutant whose target is no longer where the catalogue says: the code moved on, update the catalogue."""


_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _scope_node(tree: ast.Module, scope: str) -> _Scope:
    body: list[ast.stmt] = tree.body
    node: _Scope | None = None
    for part in scope.split("."):
        node = next((n for n in body if isinstance(n, _Scope) and n.name == part), None)
        if node is None:
            raise Stale(f"no function or class {scope!r}")
        body = node.body
    assert node is not None
    return node


def _span(source: str, mutant: Mutant) -> tuple[int, int]:
    """Character offsets of the mutant's scope in `source` (the whole file when it has none)."""
    if mutant.scope is None:
        return 0, len(source)
    node = _scope_node(ast.parse(source), mutant.scope)
    lines = source.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: node.lineno - 1])
    end = sum(len(line) for line in lines[: node.end_lineno])
    return start, end


def mutate(source: str, mutant: Mutant) -> str:
    """`source` with the mutant's text replaced; Stale when the text is not there exactly once."""
    start, end = _span(source, mutant)
    count = source[start:end].count(mutant.find)
    if count != 1:
        where = f"{mutant.path}" + (f" ({mutant.scope})" if mutant.scope else "")
        raise Stale(f"{'no' if count == 0 else count} occurrences of {mutant.find!r} in {where}")
    at = source.index(mutant.find, start, end)
    mutated = source[:at] + mutant.replace + source[at + len(mutant.find) :]
    if mutant.path.endswith(".py"):
        try:
            ast.parse(mutated)
        except SyntaxError as exc:
            raise Stale(f"the mutated {mutant.path} is not valid Python: {exc}") from None
    return mutated


def package_dirs(root: Path) -> dict[str, str]:
    """The repository folder of each mcpgen package (`[tool.setuptools] package-dir` of pyproject.toml)."""
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def build_tree(root: Path, dest: Path, mutant: Mutant | None) -> Path:
    """An importable copy of mcpgen under `dest` (put it first on PYTHONPATH), with `mutant` applied."""
    placed: dict[str, Path] = {}
    for package, folder in sorted(package_dirs(root).items()):
        target = dest.joinpath(*package.split("."))
        shutil.copytree(
            root / folder, target, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True
        )
        placed[folder] = target
    if mutant is not None:
        folder, _, rest = mutant.path.partition("/")
        if folder not in placed or not (root / mutant.path).is_file():
            raise Stale(f"{mutant.path} does not exist")
        path = placed[folder] / rest
        path.write_text(mutate((root / mutant.path).read_text("utf-8"), mutant), "utf-8")
    return dest
