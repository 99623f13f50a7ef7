"""Fixtures of the functional tests: the session schema's packages, generated once per test session."""

from __future__ import annotations

from types import ModuleType

import pytest

from .packages import generate_package
from .session import session_schema


@pytest.fixture(scope="session")
def session_pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The package of the session schema without batches."""
    return generate_package(
        tmp_path_factory.mktemp("session"), session_schema(batching=False), "fn_session"
    )


@pytest.fixture(scope="session")
def batching_pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The package of the session schema with JSON-RPC batches."""
    return generate_package(
        tmp_path_factory.mktemp("batching"), session_schema(batching=True), "fn_batching"
    )
