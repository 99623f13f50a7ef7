"""Generate a revision's bindings with the code under test and import them from memory."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Mapping, Sequence

from ..errors import McpgenError
from ..commands.generate import default_package
from ..commands.fresh import render_fresh
from ..commands.rendered import PackageRequest, render_packages
from ..inputs.sources import resolve_schema

_ORACLE = "_mcpgen_under_test_"


class _MemoryFinder(importlib.abc.MetaPathFinder, importlib.abc.InspectLoader):
    """Finds and loads the modules of one package from source texts held in memory."""

    def __init__(self, name: str, files: Mapping[str, str]) -> None:
        self.sources: dict[str, str] = {}
        self.packages: set[str] = set()
        for path, text in files.items():
            if not path.endswith(".py"):
                continue
            parts = [name, *path.removesuffix(".py").split("/")]
            if parts[-1] == "__init__":
                parts.pop()
                self.packages.add(".".join(parts))
            self.sources[".".join(parts)] = text

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for the package's own modules, None for anything else."""
        if fullname not in self.sources:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=f"<mcpgen: {fullname}>", is_package=fullname in self.packages)

    def get_source(self, fullname: str) -> str:
        """The generated source text of a module (for tracebacks and `inspect`)."""
        return self.sources[fullname]

    def is_package(self, fullname: str) -> bool:
        """True for the package and its subpackages."""
        return fullname in self.packages


def import_files(files: Mapping[str, str], name: str) -> ModuleType:
    """Import the package made of `files` (path → source text) as module `name`, every module eagerly."""
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]
    finder = _MemoryFinder(name, files)
    sys.meta_path.insert(0, finder)
    try:
        package = importlib.import_module(name)
        for module in sorted(finder.sources):
            importlib.import_module(module)
    except Exception as exc:  # any failure here means the generated code is broken
        raise McpgenError(f"the generated package {name} cannot be imported: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.meta_path.remove(finder)
    return package


@lru_cache(maxsize=None)
def generated_package(revision: str, schema_dir: Path | None = None) -> ModuleType:
    """The package the code under test generates for `revision` (through mcpgen's package cache), imported from memory."""
    source = resolve_schema(revision, schema_dir=schema_dir)
    name = default_package(revision)
    [made] = render_packages([PackageRequest((source,), source.revision)], render_fresh)
    return import_files(made.files, _ORACLE + name)
