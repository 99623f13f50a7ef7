"""mcpgen's own source, the generator and the runtime, passes `mypy --strict` as the package it installs as."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from shared import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tests" / "mutation"))

from apply import build_tree  # noqa: E402


def test_the_generator_and_the_runtime_type_check_strictly(tmp_path: Path) -> None:
    build_tree(REPO_ROOT, tmp_path, None)  # the folders laid out as the `mcpgen` package they install as
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", "--config-file", str(REPO_ROOT / "pyproject.toml"), "-p", "mcpgen"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:]
