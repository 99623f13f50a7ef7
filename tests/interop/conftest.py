"""Interop fixtures: every revision's package generated once per session, and the pinned npm peers."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

from mcpgen.commands.generate import GenerateConfig, default_package, generate
from mcpgen.inputs.pins import revision_set
from shared import MULTI_REVISION, load_package, missing, package_name

HERE = Path(__file__).resolve().parent
EVERYTHING = (
    HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)



@pytest.fixture(scope="session")
def generated_dir(tmp_path_factory: pytest.TempPathFactory, schema_dir: Path) -> Path:
    """A directory holding the `mcp_<revision>` package of every known revision (for subprocesses' PYTHONPATH)."""
    out = tmp_path_factory.mktemp("generated")
    generate(GenerateConfig(revision="all", output=out, schema_dir=schema_dir, force=True))
    for revisions in MULTI_REVISION:
        target = out / default_package(revision_set(revisions))
        generate(GenerateConfig(revision=revisions, output=target, schema_dir=schema_dir, force=True))
    return out


@pytest.fixture(scope="session")
def package(generated_dir: Path) -> Callable[[str], ModuleType]:
    """Import the generated package of a revision (`"2025-11-25"` → `mcp_2025_11_25`, loaded as `interop_mcp_…`)."""

    def load(revision: str) -> ModuleType:
        name = package_name(revision)
        return load_package(generated_dir / name, "interop_" + name, linked=False)  # the package as shipped

    return load


@pytest.fixture(scope="session")
def everything_command() -> list[str]:
    """The command line of the pinned @modelcontextprotocol/server-everything over stdio; skips when absent."""
    node = shutil.which("node")
    if node is None:
        missing("node is not installed: server-everything interop needs Node.js")
    if not EVERYTHING.is_file():
        missing(f"{EVERYTHING} is missing: run `npm ci --prefix tests/interop`")
    return [node, str(EVERYTHING), "stdio"]
