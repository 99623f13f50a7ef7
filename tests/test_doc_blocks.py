"""Every ```python block of README.md and docs/ is covered: a complete module that passes `mypy --strict`
as written, and run when its mark says so (here, or by the test it names), or marked a fragment with a
reason. The mark is an HTML comment on the line before the fence: `<!-- run -->`,
`<!-- run: tests/FILE.py -->` or `<!-- fragment: REASON -->` (see docs/contributing.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from docpages import Block, blocks, documents
from shared import REPO_ROOT

ALL = [block for document in documents() for block in blocks(document)]
CHECKED = [block for block in ALL if not block.mark.startswith("fragment:")]


def _is_module(block: Block) -> bool:
    return block.code.lstrip().startswith(("import ", "from "))


def test_every_block_says_what_covers_it() -> None:
    problems = []
    for block in ALL:
        if block.mark.startswith("fragment:"):
            if not block.mark.split(":", 1)[1].strip():
                problems.append(f"{block.where}: a fragment mark needs a reason")
        elif block.mark not in ("", "run") and block.runner is None:
            problems.append(f"{block.where}: unknown mark {block.mark!r}")
        elif not _is_module(block):
            problems.append(f"{block.where}: not a complete module (start with its imports, or mark it a fragment)")
        elif block.runner is not None:
            runner = REPO_ROOT / block.runner
            if not runner.is_file():
                problems.append(f"{block.where}: {block.runner} does not exist")
            elif block.document.name not in runner.read_text("utf-8"):
                problems.append(f"{block.where}: {block.runner} does not read {block.document.name}")
    assert not problems, "\n".join(problems)


def test_the_documents_have_examples_and_most_are_run() -> None:
    run = [block for block in CHECKED if block.mark == "run" or block.runner]
    assert len(CHECKED) >= 12 and len(run) >= 8, (len(CHECKED), len(run))


def test_every_checked_block_type_checks_strictly(generated_root: Path, tmp_path: Path) -> None:
    names = []
    for index, block in enumerate(CHECKED):
        name = f"{block.document.stem.lower().replace('-', '_')}_{index}.py"
        (tmp_path / name).write_text(block.code, "utf-8")
        names.append(name)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", *names],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"MYPYPATH": str(generated_root), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert run.returncode == 0, run.stdout


def test_blocks_marked_run_run(generated_root: Path, tmp_path: Path) -> None:
    marked = [block for block in ALL if block.mark == "run"]
    assert marked
    for index, block in enumerate(marked):
        where = tmp_path / str(index)
        where.mkdir()
        env = {**os.environ, "PYTHONPATH": str(generated_root)}
        done = subprocess.run(
            [sys.executable, "-c", block.code], cwd=where, input="", capture_output=True, text=True, timeout=120, env=env
        )  # an empty stdin: a documented stdio server ends at its end
        assert done.returncode == 0, f"{block.where}:\n{done.stderr}"
