"""Shared fixtures: where the read-only MCP specification corpus lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared import EXTENDED, MULTI_REVISION, REPO_ROOT, REVISIONS, missing, package_name


_OWN_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Keep the package cache out of the user's cache dir; make the corpus path absolute for chdir and subprocesses."""
    import tempfile

    if not os.environ.get("MCPGEN_CACHE_DIR"):
        _OWN_CACHE.append(tempfile.mkdtemp(prefix="mcpgen-test-cache-"))
        os.environ["MCPGEN_CACHE_DIR"] = _OWN_CACHE[0]
    if os.environ.get("MCPGEN_SCHEMA_DIR"):  # tests change directory and start subprocesses
        os.environ["MCPGEN_SCHEMA_DIR"] = str(Path(os.environ["MCPGEN_SCHEMA_DIR"]).resolve())


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the package cache this session made: a test run leaves nothing in the temp dir."""
    import shutil

    for path in _OWN_CACHE:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def schema_dir() -> Path:
    """The shared corpus (`$MCPGEN_SCHEMA_DIR` or `<repo>/../shared/mcp-spec`); skips when absent."""
    configured = os.environ.get("MCPGEN_SCHEMA_DIR")
    path = (Path(configured) if configured else REPO_ROOT.parent / "shared" / "mcp-spec").resolve()
    if not path.is_dir():
        missing(f"MCP specification corpus not found at {path} (set MCPGEN_SCHEMA_DIR)")
    return path


@pytest.fixture(scope="session")
def generated_root(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All five revisions, the multi-revision packages and the package with extensions, generated once per
    session into a temp dir on sys.path."""
    import sys

    from mcpgen.commands.generate import GenerateConfig, default_package, generate
    from mcpgen.inputs.pins import revision_set

    root = tmp_path_factory.mktemp("generated")
    generate(GenerateConfig(revision="all", output=root, schema_dir=schema_dir, force=True))
    for revisions in MULTI_REVISION:
        output = root / default_package(revision_set(revisions))
        generate(GenerateConfig(revision=revisions, output=output, schema_dir=schema_dir, force=True))
    revision, extensions, name = EXTENDED
    generate(GenerateConfig(revision=revision, extensions=extensions, package=name, output=root / name, schema_dir=schema_dir, force=True))
    sys.path.insert(0, str(root))
    return root


@pytest.fixture(scope="session")
def packages(generated_root: Path) -> dict[str, object]:
    """The freshly generated package of every revision, imported, by revision."""
    import importlib

    from shared import link_runtime

    for revision in REVISIONS:
        link_runtime(package_name(revision))
    return {r: importlib.import_module(package_name(r)) for r in REVISIONS}
