"""docs/extensions.md's tasks section on status notifications, owners and bounds, as written: its program runs
against the package with extensions (generated afresh) and prints what the page shows (tests/test_doc_blocks.py
type-checks it with the page's other blocks)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from shared import REPO_ROOT

DOC = REPO_ROOT / "docs" / "extensions.md"
NAME = "task_listen.py"


def program() -> str:
    """The section's program: the block that awaits a task listening."""
    (found,) = [p for p in re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S) if "listen=True" in p]
    return str(found)


def test_the_program_prints_what_the_page_shows(generated_root: Path, tmp_path: Path) -> None:
    shown = re.search(rf"```\n\$ python {NAME}\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert shown is not None
    (tmp_path / NAME).write_text(program(), "utf-8")
    env = {**os.environ, "PYTHONPATH": str(generated_root)}
    done = subprocess.run([sys.executable, NAME], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown.group(1)

