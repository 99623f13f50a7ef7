"""Runtime tests: the runtime source (`mcpgen.runtime`) itself, driven with real protocol tables.

A generated package brings the tables (types, method registries, revision facts); `linked` imports it
with its `runtime` subpackage replaced by the runtime source, so every line these tests run is the
source's, and coverage measured on `runtime/` counts them.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from shared import load_package
from wiring import V25, V26, surface25_package

LINKED = {
    "2025-11-25": "rt_2025_11_25",
    "2026-07-28": "rt_2026_07_28",
    "2024-11-05..2026-07-28": "rt_multi",
}
"""The packages runtime tests run on: one per era, and the multi-revision package spanning both."""


def linked_package(directory: Path, alias: str) -> ModuleType:
    """Import the generated package in `directory` as `alias`, running on the runtime source."""
    return load_package(directory, alias, linked=True)


@pytest.fixture(scope="session")
def linked(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    """The packages of `LINKED`, generated once per session and linked to the runtime source."""
    from mcpgen.commands.generate import GenerateConfig, generate

    root = tmp_path_factory.mktemp("linked")
    found = {}
    for revision, alias in LINKED.items():
        generate(
            GenerateConfig(
                revision=revision, output=root / alias, package=alias, schema_dir=schema_dir
            )
        )
        found[revision] = linked_package(root / alias, alias)
    return found


@pytest.fixture
def v25(linked: dict[str, ModuleType]) -> ModuleType:
    """The 2025-11-25 package (session era) on the runtime source."""
    return linked[V25]


@pytest.fixture
def v26(linked: dict[str, ModuleType]) -> ModuleType:
    """The 2026-07-28 package (stateless era) on the runtime source."""
    return linked[V26]


@pytest.fixture
def multi(linked: dict[str, ModuleType]) -> ModuleType:
    """The 2024-11-05..2026-07-28 package (both eras, 2026-07-28 surface) on the runtime source."""
    return linked["2024-11-05..2026-07-28"]


@pytest.fixture
def surface25(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """2025-11-25 and 2026-07-28 on a 2025-11-25 surface, on the runtime source."""
    return surface25_package(schema_dir, tmp_path_factory.getbasetemp())
