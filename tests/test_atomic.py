"""Atomic output: a run killed at any point leaves the previous package untouched and no temp dirs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpgen.commands.generate import GenerateConfig, generate
from mcpgen.emit.provenance import HEADER_MARK
from shared import default_sigint

REVISION = "2024-11-05"

# Runs the real CLI with one pause point: the process announces it has reached the point by writing
# HOOK_READY, then sleeps until the test signals it. Rendering is replaced by a small fake package
# (the write path is what is under test), so each run costs a process start, not a generation.
HOOK = r"""
import os, pathlib, sys, time
import mcpgen.commands.generate as generate
import mcpgen.emit.output as output
from mcpgen.cli import main
from mcpgen.emit.provenance import HEADER_MARK

point = os.environ["HOOK_POINT"]
ready = pathlib.Path(os.environ["HOOK_READY"])
target = pathlib.Path(os.environ["HOOK_TARGET"])


def pause():
    ready.write_text(str(os.getpid()))
    time.sleep(120)
    sys.exit("hook: never signalled")


def render_all(sources, *args, **kwargs):
    if point == "render":
        pause()
    files = {name: HEADER_MARK + "fake\n" for name in ("__init__.py", "a.py", "b.py", "c.py")}
    return [generate.Rendered(files) for _ in sources]


generate.render_packages = render_all

real_write_text = pathlib.Path.write_text
written = []


def write_text(self, *args, **kwargs):
    result = real_write_text(self, *args, **kwargs)
    if point == "staging" and ".mcpgen-" in self.parent.name:
        written.append(self)
        if len(written) == 2:
            pause()
    return result


pathlib.Path.write_text = write_text

real_replace = os.replace


def replace(src, dst, *args, **kwargs):
    real_replace(src, dst, *args, **kwargs)
    if point == "swap" and pathlib.Path(src) == target:
        pause()  # the previous package has been moved aside, the new one not yet moved in


os.replace = replace
main()
"""


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def previous(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real generated package: the output a killed run must leave as it was."""
    root = tmp_path_factory.mktemp("previous")
    generate(GenerateConfig(revision=REVISION, output=root / "pkg", schema_dir=schema_dir))
    return root / "pkg"


def wait_for(ready: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"the run ended (exit {proc.returncode}) before its pause point: {err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run never reached its pause point")
        time.sleep(0.02)


@pytest.mark.parametrize("point", ["render", "staging", "swap"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_killed_run_leaves_previous_output_untouched(
    previous: Path, schema_dir: Path, tmp_path: Path, point: str, signum: signal.Signals
) -> None:
    parent = tmp_path / "out"
    parent.mkdir()
    target = parent / "pkg"
    shutil.copytree(previous, target)
    before = snapshot(target)
    assert before["__init__.py"].startswith(HEADER_MARK.encode())
    ready = tmp_path / "ready"
    env = {**os.environ, "HOOK_POINT": point, "HOOK_READY": str(ready), "HOOK_TARGET": str(target), "MCPGEN_NO_CACHE": "1"}
    args = ["-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir)]
    proc = subprocess.Popen(
        [sys.executable, "-c", HOOK, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        wait_for(ready, proc)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "Traceback" not in err
    if proc.returncode > 0:  # mcpgen handled the signal itself
        assert proc.returncode == 130 and "interrupted" in err
    assert snapshot(target) == before
    assert sorted(p.name for p in parent.iterdir()) == ["pkg"]


def test_uninterrupted_hooked_run_replaces_the_package(previous: Path, schema_dir: Path, tmp_path: Path) -> None:
    """The hook itself is harmless: without a pause point the fake package is swapped in."""
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    env = {**os.environ, "HOOK_POINT": "none", "HOOK_READY": str(tmp_path / "ready"), "HOOK_TARGET": str(target), "MCPGEN_NO_CACHE": "1"}
    args = ["-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir)]
    proc = subprocess.run([sys.executable, "-c", HOOK, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(snapshot(target)) == ["__init__.py", "a.py", "b.py", "c.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]
