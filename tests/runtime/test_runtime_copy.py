"""The runtime a generated package carries is the runtime source, verbatim, and needs no formatting."""

from __future__ import annotations

import importlib
import inspect
from importlib import resources
from pathlib import Path
from typing import Iterator

import black
import pytest

from mcpgen.emit.formatting import LINE_LENGTH
from mcpgen.emit.package_views import FACADES
from mcpgen.inputs.packaged_runtime import class_members, exports
from shared import package_name

MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=LINE_LENGTH)


def sources() -> dict[str, str]:
    root = Path(str(resources.files("mcpgen.runtime")))
    return {
        str(p.relative_to(root)): p.read_text("utf-8")
        for p in sorted(root.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def test_every_package_carries_the_runtime_source_after_its_header(generated_root: Path) -> None:
    own = sources()
    assert {"peer.py", "server.py", "client.py", "stdio.py", "http/server.py"} <= set(own)
    for name in (package_name("2025-11-25"), "mcp_2024_11_05_to_2026_07_28"):
        package = generated_root / name
        header = (package / "types.py").read_text("utf-8").split('"""')[0]
        copies = {
            str(p.relative_to(package / "runtime")): p for p in (package / "runtime").rglob("*.py")
        }
        assert set(copies) == set(own), name
        for path, text in own.items():
            assert copies[path].read_text("utf-8") == header.rstrip("\n") + "\n" + text, (
                name,
                path,
            )


def test_the_runtime_source_is_in_black_s_layout() -> None:
    for path, text in sources().items():
        assert black.format_str(text, mode=MODE) == text, path


def test_the_runtime_imports_nothing_generated_and_nothing_but_pydantic_beyond_the_standard_library() -> (
    None
):
    import ast
    import sys

    allowed = {"pydantic", "pydantic_core", "typing_extensions"}
    for path, text in sources().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level:
                depth = path.count("/") + 1
                assert (
                    node.level <= depth
                ), f"{path} imports outside the runtime: {'.' * node.level}{node.module}"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                for name in names:
                    top = name.split(".")[0]
                    assert (
                        top in allowed or top in sys.stdlib_module_names
                    ), f"{path} imports {name}"


@pytest.mark.parametrize("module", [module for _, module, _ in FACADES])
def test_a_facade_s_exports_read_from_the_source_are_what_the_imported_module_has(module: str) -> None:
    imported = importlib.import_module(f"mcpgen.runtime.{module}")
    names = sorted(imported.__all__)
    bound = [
        name
        for name in names
        if inspect.isfunction(getattr(imported, name))
        and "revisions" in inspect.signature(getattr(imported, name)).parameters
    ]
    assert exports(module) == (tuple(names), tuple(bound))
    assert module != "http" or bound  # the HTTP app is bound to the package's revisions


def test_a_module_the_runtime_lacks_is_named() -> None:
    with pytest.raises(LookupError, match="no module 'nowhere'"):
        exports("nowhere")


@pytest.mark.parametrize("module, name", [("server", "ServerBase"), ("client", "ClientBase"), ("peer", "Peer")])
def test_a_runtime_class_s_members_read_from_the_source_are_what_the_imported_class_has(module: str, name: str) -> None:
    cls = getattr(importlib.import_module(f"mcpgen.runtime.{module}"), name)
    declared = {n for klass in cls.__mro__ for n in getattr(klass, "__annotations__", {})}
    assert class_members(module, name) == {n for n in {*dir(cls), *declared} if not n.startswith("_")}


FAKE_RUNTIME = {
    "runtime/base.py": "class Base:\n    shared: int = 1\n\n    def ping(self) -> None: ...\n",
    "runtime/side.py": (
        "from .base import Base as Root\n"
        "from typing import Any\n"
        "class Side(Root):\n    a, (b, c) = 1, (2, 3)\n    class Inner: ...\n\n    def call(self) -> None: ...\n"
        "class Odd(Any): ...\n"
        "Side.extra = 1\n"
    ),
    "runtime/facade.py": (
        "from .side import Side\n"
        "def make(x, revisions=None): ...\n"
        "def make(x): ...\n"
        "def serve(*, revisions): ...\n"
        "bound = serve\n"
        "CONSTANT = 3\n"
        "__all__ = ['CONSTANT', 'Side', 'bound', 'make', 'serve']\n"
    ),
}


@pytest.fixture
def fake_runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from mcpgen.inputs import packaged_runtime

    monkeypatch.setattr(packaged_runtime, "runtime_sources", lambda: tuple(FAKE_RUNTIME.items()))
    for cached in (packaged_runtime.exports, packaged_runtime.class_members, packaged_runtime._tree):
        cached.cache_clear()
    yield
    for cached in (packaged_runtime.exports, packaged_runtime.class_members, packaged_runtime._tree):
        cached.cache_clear()


def test_the_source_reader_follows_imports_aliases_and_the_last_definition(fake_runtime: None) -> None:
    names, bound = exports("facade")
    assert names == ("CONSTANT", "Side", "bound", "make", "serve")
    assert bound == ("bound", "serve")  # `make` was redefined without `revisions`; `bound` is `serve`
    assert class_members("side", "Side") == {"a", "b", "c", "Inner", "call", "shared", "ping"}  # not `extra`


def test_the_source_reader_refuses_what_it_cannot_read(fake_runtime: None) -> None:
    with pytest.raises(LookupError, match="Any comes from outside the runtime"):
        class_members("side", "Odd")
    with pytest.raises(LookupError, match="does not define Missing"):
        class_members("side", "Missing")
