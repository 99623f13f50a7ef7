"""What the generated packages need from pydantic, and the minimum version stated everywhere it is promised.

CI runs this file with the other behaviour tests against exactly `MIN_PYDANTIC` and the newest
pydantic; on pydantic 2.10 the by-name construction and the default wire-name dumps below fail.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from typing import Any

import pytest

from mcpgen.minimums import MIN_PYDANTIC
from shared import REPO_ROOT, REVISIONS, package_name


@pytest.mark.parametrize("revision", REVISIONS)
def test_models_validate_python_names_and_dump_wire_names(packages: dict[str, Any], revision: str) -> None:
    types = packages[revision].types
    tool = types.Tool(name="t", input_schema={"type": "object"})  # the Python name, no alias
    assert tool.input_schema.type == "object"
    assert tool.model_dump(exclude_unset=True) == {"name": "t", "inputSchema": {"type": "object"}}
    assert json.loads(tool.model_dump_json(exclude_unset=True)) == {"name": "t", "inputSchema": {"type": "object"}}
    assert types.Tool.model_validate({"name": "t", "inputSchema": {"type": "object"}}) == tool


def test_the_minimum_is_the_one_stated_everywhere() -> None:
    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"pydantic>={MIN_PYDANTIC},<3" in requires
    for revision in REVISIONS:
        init = (REPO_ROOT / "generated" / package_name(revision) / "__init__.py").read_text()
        assert f"Requires pydantic>={MIN_PYDANTIC} " in init
    readme = (REPO_ROOT / "README.md").read_text()
    assert f"pydantic>={MIN_PYDANTIC}" in readme
    assert '"pydantic==$MIN_PYDANTIC"' in (REPO_ROOT / ".ci" / "run").read_text()


def test_the_pydantic_under_test_is_the_one_ci_asked_for() -> None:
    import pydantic

    expected = os.environ.get("MCPGEN_EXPECT_PYDANTIC")
    if not expected:
        pytest.skip("set by .ci/run for the minimum- and newest-pydantic runs")
    assert pydantic.VERSION == expected


def test_only_the_output_shaping_libraries_are_pinned_exactly() -> None:
    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    exact = sorted(r.split("==")[0] for r in requires if "==" in r)
    assert exact == ["black", "datamodel-code-generator"]
    for requirement in requires:
        if "==" not in requirement:
            assert re.search(r">=[\d.]+", requirement), requirement
    readme = (REPO_ROOT / "README.md").read_text()
    assert "pipx install" in readme and "uv tool install" in readme
