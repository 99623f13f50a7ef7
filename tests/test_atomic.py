"""Atomic output: a run killed at any point leaves the previous package untouched and no temp dirs; a run that
changes nothing touches nothing; files mcpgen did not write are never deleted."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from click.testing import CliRunner, Result

from mcpgen.cli import main
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
from mcpgen.emit.provenance import HEADER_MARK
from mcpgen.cli import main

point = os.environ["HOOK_POINT"]
ready = pathlib.Path(os.environ["HOOK_READY"])
target = pathlib.Path(os.environ["HOOK_TARGET"])


def pause():
    ready.write_text(str(os.getpid()))
    time.sleep(120)
    sys.exit("hook: never signalled")


def render_all(requests, *args, **kwargs):
    if point == "render":
        pause()
    fake = {name: HEADER_MARK + "fake\n" for name in ("__init__.py", "a.py", "b.py", "c.py")}
    return [generate.Rendered({**fake, "py.typed": ""}) for _ in requests]


generate.render_packages = render_all

real_package = generate.GeneratedPackage
made = []


def package(*args, **kwargs):
    made.append(args)
    if point == "written" and len(made) == 1:
        pause()  # every file is in place: an interrupt now is too late to undo anything
    return real_package(*args, **kwargs)


generate.GeneratedPackage = package

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
moved_in = []


def replace(src, dst, *args, **kwargs):
    if point == "fail" and pathlib.Path(dst).parent == target and len(moved_in) == 1:
        moved_in.append(dst)  # fails once: putting the old files back works
        raise PermissionError(13, "Permission denied", str(dst))
    real_replace(src, dst, *args, **kwargs)
    if point in ("commit", "fail") and pathlib.Path(dst).parent == target:
        moved_in.append(dst)
        if len(moved_in) == 2:
            pause()  # the old files are set aside, two new ones moved in, the rest not yet


os.replace = replace
main()
"""


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def stamps(directory: Path) -> dict[str, tuple[int, int]]:
    """Every entry's inode and mtime: what "left alone" means."""
    return {str(p.relative_to(directory)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(directory.rglob("*"))}


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


@pytest.mark.parametrize("point", ["render", "staging", "commit"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_killed_run_leaves_previous_output_untouched(
    previous: Path, schema_dir: Path, tmp_path: Path, point: str, signum: signal.Signals
) -> None:
    parent = tmp_path / "out"
    parent.mkdir()
    target = parent / "pkg"
    shutil.copytree(previous, target)
    before, touched = snapshot(target), stamps(target)
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
    assert snapshot(target) == before and stamps(target) == touched
    assert sorted(p.name for p in parent.iterdir()) == ["pkg"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_interrupt_once_everything_is_written_ends_the_run_as_done(
    previous: Path, schema_dir: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    """Undoing is over once the new package is in place: a Ctrl-C then must not claim the previous
    output is untouched (the run ends as done, the new files stay, no lock or staging is left)."""
    parent = tmp_path / "out"
    parent.mkdir()
    target = parent / "pkg"
    shutil.copytree(previous, target)
    ready = tmp_path / "ready"
    env = {**os.environ, "HOOK_POINT": "written", "HOOK_READY": str(ready), "HOOK_TARGET": str(target), "MCPGEN_NO_CACHE": "1"}
    args = ["-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir)]
    proc = subprocess.Popen([sys.executable, "-c", HOOK, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        wait_for(ready, proc)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "interrupted" not in err, err
    assert (target / "a.py").read_text().endswith("fake\n")
    assert sorted(p.name for p in parent.iterdir()) == ["pkg"]


def test_a_failed_write_is_undone(previous: Path, schema_dir: Path, tmp_path: Path) -> None:
    """An error halfway through moving the new files in puts every old one back."""
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    before, touched = snapshot(target), stamps(target)
    env = {**os.environ, "HOOK_POINT": "fail", "HOOK_READY": str(tmp_path / "ready"), "HOOK_TARGET": str(target), "MCPGEN_NO_CACHE": "1"}
    args = ["-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir)]
    proc = subprocess.run([sys.executable, "-c", HOOK, *args], env=env, capture_output=True, text=True, timeout=120)
    # the file that could not be written is named: the second one moved in
    assert proc.returncode == 2 and proc.stderr == f"mcpgen: error: cannot write {target / 'a.py'}: Permission denied\n"
    assert snapshot(target) == before and stamps(target) == touched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_uninterrupted_hooked_run_replaces_the_package(previous: Path, schema_dir: Path, tmp_path: Path) -> None:
    """The hook itself is harmless: without a pause point the fake package is swapped in."""
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    env = {**os.environ, "HOOK_POINT": "none", "HOOK_READY": str(tmp_path / "ready"), "HOOK_TARGET": str(target), "MCPGEN_NO_CACHE": "1"}
    args = ["-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir)]
    proc = subprocess.run([sys.executable, "-c", HOOK, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(snapshot(target)) == ["__init__.py", "a.py", "b.py", "c.py", "py.typed"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_a_run_that_changes_nothing_touches_nothing(previous: Path, schema_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    (target / "__pycache__").mkdir()
    (target / "__pycache__" / "types.cpython-311.pyc").write_bytes(b"cache")
    touched = stamps(target)
    result = run("-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"up to date: mcp_2024_11_05 ({REVISION}) in {target}\n"
    assert stamps(target) == touched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_run_rewrites_only_what_differs_and_removes_its_own_old_files(
    previous: Path, schema_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    (target / "types.py").write_text("# edited\n")
    (target / "old.py").write_text(HEADER_MARK + "0.0.1: a module an older mcpgen wrote\n")
    (target / "v2099_01_01" / "__pycache__").mkdir(parents=True)
    (target / "v2099_01_01" / "types.py").write_text(HEADER_MARK + "0.0.1\n")
    (target / "v2099_01_01" / "__pycache__" / "types.cpython-311.pyc").write_bytes(b"cache")
    touched = stamps(target)
    result = run("-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("wrote mcp_2024_11_05")
    assert snapshot(target) == snapshot(previous)
    after = stamps(target)
    changed = sorted(name for name in after if after[name] != touched[name])
    assert changed == ["types.py"]  # the directory's own mtime aside: its entries changed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_files_mcpgen_did_not_write_are_never_deleted(previous: Path, schema_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    shutil.copytree(previous, target)
    (target / "types.py").write_text("# edited\n")
    (target / "notes.md").write_text("mine\n")
    (target / "runtime" / "helpers.py").write_text("def mine() -> None: ...\n")
    (target / "link.py").symlink_to(target / "types.py")
    before, touched = snapshot(target), stamps(target)
    result = run("-r", REVISION, "-o", str(target), "--force", "--schema-dir", str(schema_dir))
    assert result.exit_code == 2
    assert result.stderr == (
        f"mcpgen: error: {target} holds files mcpgen did not write: link.py, notes.md, runtime/helpers.py; "
        "move them out of the generated package, then run again\n"
    )
    assert snapshot(target) == before and stamps(target) == touched


def test_an_undo_that_fails_keeps_the_previous_files_and_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.emit.commit import commit
    from mcpgen.errors import OutputError

    target = tmp_path / "pkg"
    target.mkdir()
    (target / "a.py").write_text("old a\n")
    (target / "b.py").write_text("old b\n")
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        moving_in, putting_back = ".mcpgen-" in Path(src).parent.name, ".old-" in Path(src).parent.name
        if (moving_in and Path(dst).name == "b.py") or (putting_back and Path(dst).name == "a.py"):
            raise PermissionError(13, "Permission denied", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match=r"\(Permission denied\) nor restore .*/a\.py: the previous files are in .*/\.pkg\.old-"):
        commit(target, {"a.py": "new a\n", "b.py": "new b\n"}, ())
    (kept,) = [p for p in tmp_path.iterdir() if p.name != "pkg"]
    assert (kept / "a.py").read_text() == "old a\n" and (target / "b.py").read_text() == "old b\n"
