"""docs/extensions.md as written: its programs run against the package with extensions (generated afresh) and print
what the page shows; the commands it shows print what it shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpgen.cli import main
from mcpgen.commands.diff.compare import diff_revisions
from mcpgen.commands.diff.pair import load_pair
from shared import REPO_ROOT

DOC = REPO_ROOT / "docs" / "extensions.md"


def shown(command: str) -> str:
    """What the page shows a command printing (the block that starts with `$ command`)."""
    found = re.search(rf"```\n\$ {re.escape(command)}\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert found is not None, command
    return found.group(1)


@pytest.mark.parametrize(
    "index, name",
    [(0, "tasks_example.py"), (1, "task_tool.py"), (2, "apps_example.py"), (3, "skills_server.py"), (4, "skills_host.py")],
)
def test_the_programs_print_what_the_page_shows(generated_root: Path, tmp_path: Path, index: int, name: str) -> None:
    program = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)[index]
    (tmp_path / name).write_text(program, "utf-8")
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    done = subprocess.run([sys.executable, name], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown(f"python {name}")


def test_a_base_revision_that_defines_the_extensions_methods_is_refused(schema_dir: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--revision", "2025-11-25", "--extension", "tasks", "-o", str(tmp_path / "x"), "--schema-dir", str(schema_dir)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == shown("mcpgen --revision 2025-11-25 --extension tasks")
    assert not list(tmp_path.iterdir())


def test_the_drift_the_page_shows(schema_dir: Path) -> None:
    result = CliRunner().invoke(main, ["diff", "2026-07-28", "tasks", "--schema-dir", str(schema_dir)])
    assert result.exit_code == 0 and result.stdout == shown("mcpgen diff 2026-07-28 tasks")
    older = diff_revisions(*load_pair("2025-11-25", "tasks", schema_dir)).counts()
    assert (older["changes"], older["breaking"]) == (56, 33)
    assert "reports 56 changes,\n33 of them breaking" in DOC.read_text("utf-8")
