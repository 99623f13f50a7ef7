"""The runtime and the generator are layered: no module imports itself through others, counting every import
of the package's own modules (at the top, inside a function or under TYPE_CHECKING alike)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shared import REPO_ROOT

Module = tuple[str, ...]


def _modules(root: Path) -> dict[Module, Path]:
    """The package's modules by dotted path below `root` (a package is its `__init__`)."""
    found: dict[Module, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[parts[:-1] if parts[-1] == "__init__" else parts] = path
    return found


def _imports(
    module: Module, path: Path, modules: dict[Module, Path], absolute: str | None
) -> set[Module]:
    """The package's modules that `module` imports anywhere in its source (`absolute`: the package's
    own name in absolute imports, None when it imports itself relatively only)."""
    here = module if path.name == "__init__.py" else module[:-1]
    found: set[Module] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            dotted = node.module.split(".") if node.module else []
            if node.level:
                base = (*here[: len(here) - node.level + 1], *dotted)
            elif absolute is not None and dotted[:1] == [absolute]:
                base = tuple(dotted[1:])
            else:
                continue
            for alias in node.names:
                named = (*base, alias.name)
                found.add(named if named in modules else base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                dotted = alias.name.split(".")
                if absolute is not None and dotted[0] == absolute:
                    found.add(tuple(dotted[1:]))
    return {m for m in found if m in modules and m != module}


def circles(root: Path, absolute: str | None) -> list[list[str]]:
    """The groups of modules below `root` that import one another in a loop (Tarjan's strongly
    connected components of more than one module); a package's `__init__`, which only hands names
    on, is left out."""
    modules = _modules(root)
    faces = {m for m, p in modules.items() if p.name == "__init__.py"}
    edges = {
        m: _imports(m, p, modules, absolute) - faces for m, p in modules.items() if m not in faces
    }
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    found: list[list[str]] = []

    def visit(v: Module) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(group) > 1:
                found.append(sorted("/".join(m) for m in group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


# The generator is the `mcpgen` package; the runtime, copied into every package, imports itself relatively.
@pytest.mark.parametrize("folder, absolute", [("runtime", None), ("generator", "mcpgen")])
def test_no_module_imports_itself_through_others(folder: str, absolute: str | None) -> None:
    assert circles(REPO_ROOT / folder, absolute) == []


def test_a_circle_is_found_wherever_its_imports_hide(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import A\n")
    (package / "a.py").write_text("from .sub.b import B\nA = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\nB = 1\n"
    )
    (package / "sub" / "c.py").write_text("def f():\n    from ..a import A\n    return A\nC = 1\n")
    (package / "d.py").write_text("import pkg.a\n")
    assert circles(package, "pkg") == [["a", "sub/b", "sub/c"]]
