"""docs/validate.md as written: its capture, validated by the commands the page shows, prints what the page says."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from shared import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "validate.md").read_text("utf-8")


def _console(block: str) -> tuple[list[str], str]:
    """The command of a `$ ...` console block (its arguments after `mcpgen`) and what it prints."""
    command, _, output = block.partition("\n")
    assert command.startswith("$ mcpgen "), command
    return shlex.split(command[len("$ mcpgen ") :]), output


def test_the_pages_commands_print_what_it_shows(tmp_path: Path, schema_dir: Path) -> None:
    (capture,) = re.findall(r"```json\n(.*?)```", DOC, re.S)
    (tmp_path / "trace.jsonl").write_text(capture, "utf-8")
    blocks = re.findall(r"```console\n(.*?)```", DOC, re.S)
    assert len(blocks) == 2
    env = {**os.environ, "MCPGEN_SCHEMA_DIR": str(schema_dir), "NO_COLOR": "1"}
    for block in blocks:
        argv, shown = _console(block)
        done = subprocess.run(
            [sys.executable, "-m", "mcpgen", *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 1, done.stderr
        if "--format" in argv:
            assert done.stdout.strip() == shown.strip()
        else:  # stderr's notes and stdout's report, as a terminal interleaves them
            assert sorted((done.stderr + done.stdout).splitlines()) == sorted(shown.splitlines())
