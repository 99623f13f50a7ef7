"""Interop fixtures: every revision's package generated once per session, and the pinned npm peers."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator

import pytest

from mcpgen.generate import GenerateConfig, generate

HERE = Path(__file__).resolve().parent
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


@pytest.fixture(scope="session")
def generated_dir(tmp_path_factory: pytest.TempPathFactory, schema_dir: Path) -> Iterator[Path]:
    """A directory holding `mcp_<revision>` packages for every known revision, importable."""
    out = tmp_path_factory.mktemp("generated")
    generate(GenerateConfig(revision="all", output=out, schema_dir=schema_dir, force=True))
    sys.path.insert(0, str(out))
    yield out
    sys.path.remove(str(out))


@pytest.fixture(scope="session")
def package(generated_dir: Path) -> Callable[[str], ModuleType]:
    """Import the generated package of a revision (`"2025-11-25"` → `mcp_2025_11_25`)."""

    def load(revision: str) -> ModuleType:
        return importlib.import_module("mcp_" + revision.replace("-", "_"))

    return load


@pytest.fixture(scope="session")
def everything_command() -> list[str]:
    """The command line of the pinned @modelcontextprotocol/server-everything over stdio; skips when absent."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: server-everything interop needs Node.js")
    if not EVERYTHING.is_file():
        pytest.skip(f"{EVERYTHING} is missing: run `npm ci --prefix tests/interop`")
    return [node, str(EVERYTHING), "stdio"]
