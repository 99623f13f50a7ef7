"""The runtime package imports its modules on first use: the generator reads its facts without pydantic."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mcpgen.runtime as runtime


def test_the_facts_and_the_check_command_load_without_pydantic() -> None:
    code = (
        "import sys, mcpgen.runtime.facts, mcpgen.commands.check; "
        "print(sorted(m for m in ('pydantic', 'mcpgen.runtime.server', 'mcpgen.runtime.client') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", runtime.__all__)
def test_every_public_name_is_the_one_its_module_defines(name: str) -> None:
    value = getattr(runtime, name)
    home = sys.modules[f"mcpgen.runtime.{runtime._HOMES[name]}"]
    assert value is getattr(home, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        runtime.Nothing  # noqa: B018
