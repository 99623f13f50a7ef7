"""A missing corpus or Node skips locally (with the reason) and fails the run under CI=true."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shared import REPO_ROOT

PROBE = "tests/test_protocol.py::test_build_is_deterministic"


def run_probe(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["MCPGEN_SCHEMA_DIR"] = str(REPO_ROOT / "no-such-corpus")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", PROBE],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


def test_missing_corpus_skips_locally_with_the_reason() -> None:
    proc = run_probe(None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 skipped" in proc.stdout and "corpus not found" in proc.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_corpus_fails_under_ci(ci: str) -> None:
    proc = run_probe(ci)
    assert proc.returncode != 0
    assert "corpus not found" in proc.stdout and "CI=true" in proc.stdout
