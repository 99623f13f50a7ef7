"""The hooks of `.pre-commit-hooks.yaml`, run by pre-commit itself on a temporary git repository.

pre-commit would install a `language: python` hook by cloning this repository and pip-installing
it, which needs the package index. Offline, the test runs the very same hook definitions as a
`repo: local` hook with `language: unsupported` (pre-commit's name for "use what is installed"),
so the mcpgen of this test environment runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from shared import REPO_ROOT

BIN = Path(sys.executable).parent
HOOKS = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }  # fmt: skip
    return subprocess.run(
        [str(BIN / "pre-commit"), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def repo(tmp_path: Path, schema_dir: Path) -> Path:
    """A git repository with one vendored package in [tool.mcpgen] and the published hooks as local hooks."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[[tool.mcpgen.packages]]\nrevision = "2025-06-18"\n'
        f'package = "app._vendor.mcp"\noutput = "src/app/_vendor/mcp"\nschema-dir = "{schema_dir}"\n'
    )
    hooks = [{**hook, "language": "unsupported"} for hook in HOOKS]
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    return root


def test_the_published_hooks() -> None:
    assert {h["id"] for h in HOOKS} == {"mcpgen-check", "mcpgen-generate"}
    for hook in HOOKS:
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        assert hook["entry"].split()[0] == "mcpgen"


def test_check_fails_until_generate_fixes_the_package(repo: Path) -> None:
    done = pre_commit(repo, "run", "mcpgen-check", "--all-files")
    assert done.returncode == 1, done.stdout
    assert "src/app/_vendor/mcp: missing\n  fix: mcpgen generate\n" in done.stdout

    done = pre_commit(repo, "run", "mcpgen-generate", "--all-files")
    assert done.returncode == 0, done.stdout
    assert (repo / "src/app/_vendor/mcp/types.py").is_file()
    git(repo, "add", ".")

    done = pre_commit(repo, "run", "mcpgen-check", "--all-files")
    assert done.returncode == 0, done.stdout
    assert "mcpgen check" in done.stdout and "Passed" in done.stdout


def test_a_hand_edit_is_caught_and_regenerate_restores_it(repo: Path) -> None:
    assert pre_commit(repo, "run", "mcpgen-generate", "--all-files").returncode == 0
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "vendored")
    types = repo / "src/app/_vendor/mcp/types.py"
    pristine = types.read_text()
    types.write_text(pristine.replace("class Tool(", "class Tool2(", 1))
    git(repo, "add", ".")

    done = pre_commit(repo, "run", "mcpgen-check")
    assert done.returncode == 1 and "+class Tool(" in done.stdout

    done = pre_commit(repo, "run", "mcpgen-generate")  # runs because a .py file is staged
    assert done.returncode == 1 and "files were modified by this hook" in done.stdout
    assert types.read_text() == pristine
    git(repo, "add", ".")
    assert pre_commit(repo, "run", "mcpgen-check").returncode == 0
