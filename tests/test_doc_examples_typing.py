"""Every complete Python example in README.md and docs/ passes `mypy --strict` as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from shared import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def complete_examples() -> dict[str, str]:
    """The examples that are whole modules (they start with their imports), by a file name."""
    found = {}
    for document in DOCUMENTS:
        blocks = re.findall(r"```python\n(.*?)```", document.read_text("utf-8"), re.S)
        for index, block in enumerate(blocks):
            if block.lstrip().startswith(("import ", "from ")):
                found[f"{document.stem.lower().replace('-', '_')}_{index}.py"] = block
    return found


def test_the_documents_have_complete_examples() -> None:
    assert len(complete_examples()) >= 5


def test_every_complete_example_type_checks_strictly(generated_root: Path, tmp_path: Path) -> None:
    examples = complete_examples()
    for name, code in examples.items():
        (tmp_path / name).write_text(code, "utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", *sorted(examples)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"MYPYPATH": str(generated_root), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert run.returncode == 0, run.stdout
