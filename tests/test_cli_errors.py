"""Bad invocations: one clear line on stderr, a non-zero exit, no traceback, no half-written output."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import InvalidStateError, ProcessPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpgen.cli import main
from mcpgen.emit import commit as commit_module
from mcpgen.emit.commit import exclusive
from mcpgen.emit.provenance import HEADER_MARK
from mcpgen.inputs.pins import KNOWN_REVISIONS
from shared import default_sigint

REVISION = "2025-11-25"
MCPGEN = shutil.which("mcpgen", path=str(Path(sys.executable).parent)) or shutil.which("mcpgen") or "mcpgen"


def fail(*args: str, env: dict[str, str | None] | None = None) -> str:
    """Run the CLI expecting an error; return its single stderr line."""
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code not in (0, None), result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith("mcpgen: error: "), lines[0]
    return lines[0]


def leftovers(directory: Path) -> list[str]:
    """Everything in `directory` (temp dirs of an interrupted write would show up here)."""
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def schema_file(tmp_path: Path, schema: object, name: str = "schema.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def test_unknown_revision_lists_the_known_ones(tmp_path: Path, schema_dir: Path) -> None:
    line = fail("--revision", "1999-01-01", "-o", str(tmp_path / "out"), "--schema-dir", str(schema_dir))
    assert "1999-01-01" in line and all(r in line for r in KNOWN_REVISIONS)
    assert leftovers(tmp_path) == []


def test_missing_schema_file(tmp_path: Path) -> None:
    line = fail("generate", "--schema", str(tmp_path / "nope.json"), "-r", "2099-01-01", "-o", str(tmp_path / "out"))
    assert "nope.json" in line and "does not exist" in line
    assert leftovers(tmp_path) == []


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "$defs": {\n    "A": {"type": "object",,}\n  }\n}\n', encoding="utf-8")
    line = fail("generate", "--schema", str(bad), "-r", "2099-01-01", "-o", str(tmp_path / "out"))
    assert f"{bad}:3:28: invalid JSON" in line
    assert leftovers(tmp_path) == ["bad.json"]


@pytest.mark.parametrize(
    "document, expected",
    [
        ([1, 2, 3], "must be a JSON object"),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, "not an MCP JSON Schema"),
        ({"$defs": {"A": {"type": "object"}}}, "not an MCP schema"),
        ({"$defs": {"A": {"type": "object", "description": 5}}}, "cannot parse the schema"),
    ],
    ids=["array", "no-definitions", "no-role-unions", "not-a-json-schema"],
)
def test_json_that_is_not_an_mcp_schema(tmp_path: Path, document: object, expected: str) -> None:
    path = schema_file(tmp_path, document)
    line = fail("generate", "--schema", str(path), "-r", "2099-01-01", "-o", str(tmp_path / "out"))
    assert expected in line
    assert leftovers(tmp_path) == ["schema.json"]


def test_real_schema_without_role_unions(tmp_path: Path, schema_dir: Path) -> None:
    schema = json.loads((schema_dir / REVISION / "schema.json").read_text("utf-8"))
    for union in ("ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"):
        del schema["$defs"][union]
    path = schema_file(tmp_path, schema)
    line = fail("generate", "--schema", str(path), "-r", "2099-01-01", "-o", str(tmp_path / "out"))
    assert "role unions" in line and "not an MCP schema" in line
    assert leftovers(tmp_path) == ["schema.json"]


@pytest.mark.parametrize(
    "definitions, expected",
    [
        ({"HugeF": {"type": "number", "maximum": float("inf")}}, "a bound of HugeF in the schema is inf, not a finite number"),
        ({"A": {"type": "object", "properties": {"n": {"type": "integer", "minimum": float("-inf")}}}}, "a bound of A.n in the schema is -inf"),
        ({"A": {"type": "object", "properties": {"x": {"$ref": "other.json#/$defs/X"}}}}, "schema reference 'other.json#/$defs/X' is not local"),
        ({"A": {"type": "object", "properties": {"x": {"$ref": "https://example.invalid/s.json#/$defs/X"}}}}, "'https://example.invalid/s.json#/$defs/X' is not local"),
        ({"A": {"type": "array", "items": {"$ref": "file:///etc/passwd"}}}, "'file:///etc/passwd' is not local"),
        ({"A": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}}}, "schema reference '#/$defs/Nope' does not resolve"),
        ({"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "only lead to each other: #/$defs/A → #/$defs/B → #/$defs/A"),
        ({"A": {"$ref": "#/$defs/A", "description": "itself"}}, "only lead to each other: #/$defs/A → #/$defs/A"),
        ({"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"allOf": [{"$ref": "#/$defs/A"}, {"type": "object"}]}}, "only lead to each other"),
    ],
    ids=["infinite-bound", "infinite-field-bound", "relative-ref", "url-ref", "file-ref", "missing-ref", "alias-cycle", "self-alias", "allof-cycle"],
)
def test_a_schema_no_usable_package_comes_from_is_one_line_from_generate_and_diff(
    tmp_path: Path, schema_dir: Path, monkeypatch: pytest.MonkeyPatch, definitions: dict[str, object], expected: str
) -> None:
    """Before the fix these generated a package that failed at import (`Field(le=inf)`, an alias cycle),
    typed a field `Any`, read a file relative to the working directory or went to the network."""
    schema = json.loads((schema_dir / REVISION / "schema.json").read_text("utf-8"))
    schema["$defs"].update(definitions)
    path = schema_file(tmp_path, schema)
    (tmp_path / "other.json").write_text('{"$defs": {"X": {"type": "integer"}}}', encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # where a relative reference was looked for
    line = fail("generate", "--schema", str(path), "-r", "2099-01-01", "-o", str(tmp_path / "out"))
    assert expected in line
    assert expected in fail("diff", REVISION, str(path), "--schema-dir", str(schema_dir))
    assert leftovers(tmp_path) == ["other.json", "schema.json"]


def test_a_number_longer_than_python_reads_is_one_line_from_generate_and_diff(tmp_path: Path, schema_dir: Path) -> None:
    text = (schema_dir / REVISION / "schema.json").read_text("utf-8")
    path = tmp_path / "schema.json"
    path.write_text(text.replace('"$defs": {', '"$defs": {"BigI": {"type": "integer", "default": ' + "9" * 5000 + "},", 1), "utf-8")
    expected = f"mcpgen: error: {path}: a number of more than 4300 digits, longer than Python reads"
    assert fail("generate", "--schema", str(path), "-r", "2099-01-01", "-o", str(tmp_path / "out")) == expected
    assert fail("diff", REVISION, str(path), "--schema-dir", str(schema_dir)) == expected
    assert leftovers(tmp_path) == ["schema.json"]


def _revisions_in(package: Path) -> set[str]:
    """The revisions named by the headers of a package's modules (one unless two runs mixed their files)."""
    found = set()
    for path in package.rglob("*.py"):
        found |= {line.split(": ", 1)[1] for line in path.read_text("utf-8").splitlines()[:4] if line.startswith("# MCP revision: ")}
    return found


def test_a_run_waits_while_another_writes_the_same_package(tmp_path: Path, schema_dir: Path) -> None:
    """Two runs writing one package at once left it half one revision, half the other: the second now
    plans its writes only once the first has committed. No lock file stays behind."""
    out = tmp_path / "pkg"
    env = {**os.environ, "MCPGEN_SCHEMA_DIR": str(schema_dir)}
    subprocess.run([MCPGEN, "generate", "-q", "-r", "2025-06-18", "-o", str(out)], env=env, check=True, timeout=120)
    with exclusive([out], lambda text: None):  # another run, writing the package
        run = subprocess.Popen(
            [MCPGEN, "generate", "-r", REVISION, "-o", str(out), "--force"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert run.stderr is not None
            assert run.stderr.readline() == f"mcpgen: waiting for another mcpgen run writing {out.resolve()}\n"
            assert _revisions_in(out) == {"2025-06-18"}
        except BaseException:
            run.kill()
            raise
    assert run.wait(120) == 0
    assert _revisions_in(out) == {REVISION}
    assert leftovers(tmp_path) == ["pkg"]


def test_generation_works_without_fcntl(tmp_path: Path, schema_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the OS has no `fcntl` (Windows) the write takes no lock, and still happens."""
    monkeypatch.setattr(commit_module, "fcntl", None)
    result = CliRunner().invoke(main, ["-r", REVISION, "-o", str(tmp_path / "pkg"), "--schema-dir", str(schema_dir)])
    assert result.exit_code == 0, result.output
    assert _revisions_in(tmp_path / "pkg") == {REVISION} and leftovers(tmp_path) == ["pkg"]


def test_pin_mismatch(tmp_path: Path, schema_dir: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / REVISION).mkdir(parents=True)
    data = (schema_dir / REVISION / "schema.json").read_bytes()
    (mirror / REVISION / "schema.json").write_bytes(data + b"\n")
    line = fail("-r", REVISION, "-o", str(tmp_path / "out"), "--schema-dir", str(mirror))
    assert "pin expects" in line and REVISION in line
    assert leftovers(tmp_path) == ["mirror"]


OFFLINE = {
    "MCPGEN_SCHEMA_DIR": None,
    "MCPGEN_CACHE_DIR": None,
    "NO_PROXY": None,
    "no_proxy": None,
    "https_proxy": "http://127.0.0.1:9",  # nothing listens on the discard port: every download fails fast
    "HTTPS_PROXY": "http://127.0.0.1:9",
}


def offline_env() -> dict[str, str]:
    """os.environ with OFFLINE applied, for a real subprocess."""
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE}
    env.update({k: v for k, v in OFFLINE.items() if v is not None})
    return env


def test_offline_without_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    line = fail("-r", REVISION, "-o", str(tmp_path / "out"), "--cache-dir", str(cache), env=OFFLINE)
    assert "cannot download the 2025-11-25 schema" in line and "not cached" in line and "--schema-dir" in line
    assert leftovers(tmp_path) == ["cache"] and leftovers(cache) == []


def test_unwritable_output(tmp_path: Path, schema_dir: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    line = fail("-r", REVISION, "-o", str(blocker / "deep" / "pkg"), "--schema-dir", str(schema_dir))
    assert line == f"mcpgen: error: cannot create {blocker / 'deep' / 'pkg'}: {blocker} is not a directory"
    line = fail("-r", REVISION, "-o", str(blocker), "--schema-dir", str(schema_dir))
    assert "is not a directory" in line
    assert blocker.read_text("utf-8") == "not a directory" and leftovers(tmp_path) == ["file"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_parent(tmp_path: Path, schema_dir: Path) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        line = fail("-r", REVISION, "-o", str(parent / "pkg"), "--schema-dir", str(schema_dir))
        assert "cannot write" in line and leftovers(parent) == []
    finally:
        parent.chmod(0o755)


def test_non_empty_output_is_refused_unless_force(tmp_path: Path, schema_dir: Path) -> None:
    out = tmp_path / "pkg"
    out.mkdir()
    (out / "mine.txt").write_text("user data", encoding="utf-8")
    line = fail("-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir))
    assert "not empty" in line and "--force" in line
    line = fail("-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir), "--force")
    assert "not a package mcpgen generated" in line
    assert leftovers(out) == ["mine.txt"] and leftovers(tmp_path) == ["pkg"]


def test_force_replaces_only_the_generated_package(tmp_path: Path, schema_dir: Path) -> None:
    out = tmp_path / "pkg"
    sibling = tmp_path / "keep.txt"
    sibling.write_text("keep", encoding="utf-8")
    assert CliRunner().invoke(main, ["-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir)]).exit_code == 0
    (out / "stale.py").write_text(HEADER_MARK + "0.0.1: a module an older mcpgen wrote\n", encoding="utf-8")
    fail("-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir))
    assert (out / "stale.py").exists()
    result = CliRunner().invoke(main, ["-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir), "--force"])
    assert result.exit_code == 0, result.output
    assert not (out / "stale.py").exists()
    assert (out / "__init__.py").read_text("utf-8").startswith(HEADER_MARK)
    assert sorted(leftovers(tmp_path)) == ["keep.txt", "pkg"] and sibling.read_text("utf-8") == "keep"
    (out / "mine.py").write_text("x = 1\n", encoding="utf-8")  # not mcpgen's: never deleted
    line = fail("-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir), "--force")
    assert "holds files mcpgen did not write: mine.py" in line and (out / "mine.py").exists()


@pytest.mark.parametrize("revision", ['2099"\nimport os', "../../etc", "2099-01-01\n"])
def test_hostile_revision_names_are_refused(tmp_path: Path, schema_dir: Path, revision: str) -> None:
    line = fail("generate", "--schema", str(schema_dir / REVISION / "schema.json"), "-r", revision, "-o", str(tmp_path / "o"))
    assert "invalid revision" in line
    assert leftovers(tmp_path) == []


def test_real_process_reports_one_line(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    env = offline_env()
    for args, needle in [
        (["-r", "1999-01-01", "-o", str(tmp_path / "a")], "known revisions: " + ", ".join(KNOWN_REVISIONS)),
        (["-r", REVISION, "-o", str(tmp_path / "b"), "--cache-dir", str(cache)], "cannot download"),
    ]:
        proc = subprocess.run(
            [MCPGEN, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
        )
        assert proc.returncode == 2 and proc.stdout == ""
        assert len(proc.stderr.splitlines()) == 1 and needle in proc.stderr and "Traceback" not in proc.stderr
    assert leftovers(tmp_path) == ["cache"] and leftovers(cache) == []


def test_check_of_a_missing_directory_says_it_does_not_exist(tmp_path: Path) -> None:
    line = fail("check", str(tmp_path / "nowhere"))
    assert line == f"mcpgen: error: {tmp_path / 'nowhere'} does not exist"


@pytest.mark.parametrize("package", ["class", "app.class.mcp", "app.None"])
def test_keyword_package_segments_are_refused(tmp_path: Path, schema_dir: Path, package: str) -> None:
    line = fail("-r", REVISION, "--package", package, "-o", str(tmp_path / "out"), "--schema-dir", str(schema_dir))
    assert "Python keyword" in line and package in line
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "args, needle",
    [
        (["diff", "1999-01-01", REVISION], "unknown revision '1999-01-01'"),
        (["validate", "--revision", "1999-01-01", "x.jsonl"], "Invalid value for '--revision'"),
        (["--revision"], "requires an argument"),
        (["frobnicate"], "No such command 'frobnicate'"),
        (["generate", "--no-such-option"], "No such option"),
    ],
    ids=["diff", "validate", "missing-value", "unknown-command", "unknown-option"],
)
def test_every_command_and_usage_error_has_the_one_style(args: list[str], needle: str) -> None:
    assert needle in fail(*args)


def test_ctrl_c_at_any_moment_prints_one_line(tmp_path: Path, schema_dir: Path) -> None:
    """SIGINT to the whole process group (what a terminal's Ctrl-C does) while black workers start and run,
    and while the process exits after its work. On Python 3.11.2 (CPython gh-94777) an interrupt while
    work was buffered for the workers hung the process, and one during exit killed it by signal."""
    env = {**os.environ, "MCPGEN_NO_CACHE": "1"}
    for delay in (0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.3):
        out = tmp_path / f"out-{delay}"
        proc = subprocess.Popen(
            [MCPGEN, "-r", REVISION, "-o", str(out), "--schema-dir", str(schema_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
            preexec_fn=default_sigint,
        )
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 0:
            continue  # finished before the signal: nothing to report
        assert err.splitlines() == ["mcpgen: interrupted; the previous output is untouched"], (delay, err)
        assert proc.returncode == 130 and not out.exists()
    assert all(p.name.startswith("out-") for p in tmp_path.iterdir())


def test_abandoning_the_pool_never_replaces_the_interrupt_with_a_teardown_error() -> None:
    """A pipe the teardown finds closed already (by the pool's own thread, under load) must not make
    `abandon` raise: its OSError would be reported instead of the interrupt."""
    from mcpgen.emit.formatting import abandon

    class Closed:
        def close(self) -> None:
            raise OSError(9, "Bad file descriptor")

    class Pool:
        _processes: dict[int, object] = {}
        _result_queue = type("Queue", (), {"_writer": Closed()})()
        shut = False

        def shutdown(self, wait: bool, cancel_futures: bool) -> None:
            self.shut = True
            raise OSError(9, "Bad file descriptor")

    pool = Pool()
    abandon(pool)  # type: ignore[arg-type]
    assert pool.shut


def _busy() -> None:
    time.sleep(60)


def test_abandoning_the_pool_with_work_buffered_for_dead_workers_neither_hangs_nor_races_its_thread() -> None:
    """Work buffered for the call queue when the workers die blocked the pool's teardown forever before
    CPython 3.11.5 (gh-94777), so `abandon` closes that queue's reading end when the pool's thread is
    stuck; from 3.11.5 on the pool's thread closes it itself, and closing it from the parent too raced
    that thread: a Ctrl-C printed its `OSError: [Errno 9] Bad file descriptor` traceback."""
    from mcpgen.emit import formatting

    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    pool.submit(_busy)
    pool.submit(len, b"x" * (1 << 22))  # far more than the pipe holds, and the worker never reads it
    time.sleep(0.5)
    reader = pool._call_queue._reader  # type: ignore[attr-defined]
    close, closed_by = reader.close, []

    def slow_close() -> None:  # the pool's thread takes its time, as on a loaded machine
        closed_by.append(threading.current_thread())
        if closed_by[-1] is not abandoning:
            time.sleep(1)
        close()

    reader.close = slow_close
    failures: list[type[BaseException]] = []
    original, threading.excepthook = threading.excepthook, lambda args: failures.append(args.exc_type)
    done = threading.Event()
    abandoning = threading.Thread(target=lambda: (formatting.abandon(pool), done.set()), daemon=True)
    try:
        abandoning.start()
        assert done.wait(20), "abandon hung on work buffered for dead workers"
    finally:
        threading.excepthook = original
        close()  # lets a failed run exit
    assert failures == []
    assert (abandoning in closed_by) is (sys.version_info < (3, 11, 5)), closed_by


@pytest.mark.parametrize("error, reported", [(InvalidStateError, False), (ValueError, True)])
def test_abandoning_the_pool_hides_only_its_thread_s_complaint_about_a_cancelled_task(
    error: type[Exception], reported: bool
) -> None:
    """CPython 3.11's pool thread can fail marking a task broken that the interrupted `map` cancelled
    already; that traceback must not join the one line an interrupt prints. Other errors still show."""
    from mcpgen.emit.formatting import abandon

    def fail() -> None:
        raise error("CANCELLED")

    seen: list[type[BaseException]] = []
    thread = threading.Thread(target=fail)

    class Pool:
        _processes: dict[int, object] = {}
        _executor_manager_thread = thread

        def shutdown(self, wait: bool, cancel_futures: bool) -> None:
            thread.start()
            thread.join()

    original = threading.excepthook
    threading.excepthook = recording = lambda args: seen.append(args.exc_type)
    try:
        abandon(Pool())  # type: ignore[arg-type]
        assert seen == ([error] if reported else []) and threading.excepthook is recording
    finally:
        threading.excepthook = original


_POOL: ProcessPoolExecutor | None = None


def _half_a_result() -> None:
    """Start a result on the pool's result pipe and stop sending, as a worker killed mid-send leaves it."""
    assert _POOL is not None
    os.write(_POOL._result_queue._writer.fileno(), struct.pack("!i", 1 << 20))  # type: ignore[attr-defined]
    time.sleep(60)


def test_abandoning_the_pool_while_a_result_is_half_sent_does_not_hang() -> None:
    """An error in the parent while a worker sends a big result (the compiled templates) hung the
    teardown forever: the pool's thread waited for the rest of a message whose sender was gone."""
    global _POOL
    from mcpgen.emit.formatting import abandon

    _POOL = pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    writer = pool._result_queue._writer  # type: ignore[attr-defined]
    pool.submit(_half_a_result)
    time.sleep(0.5)  # the pool's thread has read the length and waits for the rest
    done = threading.Event()
    threading.Thread(target=lambda: (abandon(pool), done.set()), daemon=True).start()
    try:
        assert done.wait(20), "abandon hung on a half-sent result"
    finally:
        writer.close()  # lets a failed run exit


def test_an_interrupt_wrapped_by_python_is_still_reported_as_an_interrupt(capsys: pytest.CaptureFixture[str]) -> None:
    """Python 3.11 wraps a KeyboardInterrupt raised in `__set_name__`, as an import creates a class, in a
    RuntimeError: Ctrl-C during the parser's import came out as an internal error."""
    from mcpgen.reporting import INTERRUPTED, reported

    class Descriptor:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    def importing() -> None:
        type("Parser", (), {"formats": Descriptor()})

    def wrapped() -> None:  # what 3.11 makes of `importing`, on any Python
        raise RuntimeError("Error calling __set_name__") from KeyboardInterrupt()

    def buggy() -> None:
        raise RuntimeError("boom")

    for interrupting in (importing, wrapped):
        with pytest.raises(SystemExit) as interrupted:
            reported(interrupting)()
        assert interrupted.value.code == 130 and capsys.readouterr().err == INTERRUPTED + "\n"
    with pytest.raises(SystemExit) as failed:
        reported(buggy)()
    assert failed.value.code == 3 and "internal error: RuntimeError: boom" in capsys.readouterr().err


CONSOLE_SCRIPT = """
import atexit, pathlib, sys, threading, time
class Teardown:
    def __del__(self):
        print("torn down", file=sys.stderr)
kept = Teardown()  # freed only if the interpreter tears its modules down
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
if sys.argv[1] == "--with-thread":
    sys.argv.pop(1)
    marker = pathlib.Path(sys.argv.pop(1))
    threading.Thread(target=lambda: (time.sleep(0.5), marker.write_text("done"))).start()
sys.argv[0] = "mcpgen"
from mcpgen.cli import entry
entry()
"""


def test_the_console_script_exits_at_once_with_its_handlers_run_and_its_output_flushed(tmp_path: Path) -> None:
    def script(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", CONSOLE_SCRIPT, *args], capture_output=True, text=True, timeout=120)

    listed = script("revisions")
    assert listed.returncode == 0 and listed.stderr == "exit handler ran\n"
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(KNOWN_REVISIONS)
    refused = script("--revision", "1999-01-01")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines()[1:] == ["exit handler ran"] and "unknown revision" in refused.stderr
    # A thread that is not a daemon is waited for, as an ordinary exit does (which then tears down).
    marker = tmp_path / "thread-finished"
    waited = script("--with-thread", str(marker), "revisions")
    assert waited.returncode == 0 and marker.read_text() == "done" and "torn down" in waited.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_quick_exit_reports_output_it_could_not_write() -> None:
    """Output left in a buffer that cannot be written is lost: exit 120, as Python's own exit does;
    a reader that went away is no failure (the usual `| head`)."""
    code = "import sys; from mcpgen.cli import _exit_now; sys.stdout.write('lost'); _exit_now(0)"
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        lost = subprocess.run([sys.executable, "-c", code], stdout=full, env=buffered, timeout=60)
    assert lost.returncode == 120
    reader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=buffered)
    assert reader.stdout is not None
    reader.stdout.close()
    assert reader.wait(timeout=60) == 0
