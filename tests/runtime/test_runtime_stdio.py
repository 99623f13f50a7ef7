"""The stdio transport of the runtime source on real pipes, files and processes: serving this process's
stdin and stdout until end of input or a signal, connecting to a server subprocess (cancellation goes
to the server, a server that does not exit is stopped), and lines it cannot take or answers it cannot
write."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import pytest

from mcpgen.runtime import stdio

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    },
}


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call(request_id: int, name: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}},
    }


@pytest.fixture
def pkg(linked: dict[str, ModuleType]) -> ModuleType:
    return linked["2025-11-25"]


def tools(pkg: ModuleType, seen: list[str]) -> Any:
    """A server whose tool `slow` runs until cancelled and `bad` answers what JSON cannot carry."""

    class Tools(pkg.Server):
        async def on_call_tool(self, params: Any) -> Any:
            seen.append(params.name)
            if params.name == "slow":
                try:
                    await asyncio.sleep(60)
                except asyncio.CancelledError:
                    seen.append("slow cancelled")
                    raise
            text = "\ud800" if params.name == "bad" else params.name
            return pkg.types.CallToolResult(content=[pkg.types.TextContent(text=text)])

    return Tools()


@contextlib.contextmanager
def pipes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, io.BufferedReader]]:
    """This process's stdin and stdout as pipes: the write end of stdin, the read end of stdout.
    (Set inside the test: pytest puts its own capture back on sys.stdout after fixtures run.)"""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stdin = open(stdin_r, "r", closefd=True)
    stdout = open(stdout_w, "w", closefd=True)
    reader = open(stdout_r, "rb", buffering=0)
    with monkeypatch.context() as patched:
        patched.setattr(sys, "stdin", stdin)
        patched.setattr(sys, "stdout", stdout)
        try:
            yield stdin_w, reader
        finally:
            os.close(stdin_w)
            for f in (stdin, stdout, reader):
                f.close()


async def read_answers(reader: io.BufferedReader, count: int) -> list[Any]:
    """The next `count` lines the server writes, as JSON (read in a thread: the pipe blocks)."""

    def read() -> list[Any]:
        got, buffer = [], b""
        deadline = time.monotonic() + 20
        while len(got) < count:
            assert time.monotonic() < deadline, f"only {got} came"
            if not select.select([reader], [], [], 0.2)[0]:
                continue
            chunk = reader.read(65536)
            assert chunk, f"stdout closed after {got}"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            got += [json.loads(x) for x in lines if x.strip()]
        return got

    return await asyncio.to_thread(read)


def test_serve_stdio_answers_on_pipes_and_a_signal_stops_it_quietly(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    server = tools(pkg, seen)

    async def main() -> list[Any]:
        serving = asyncio.ensure_future(stdio.serve_stdio(server))
        os.write(stdin_w, line(INIT) + line(call(1, "fast")) + line(call(2, "slow")))
        answers = await read_answers(reader, 2)
        while "slow" not in seen:
            await asyncio.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(serving, 10)  # returns: no exception, no exit
        return answers

    previous = signal.getsignal(signal.SIGTERM)
    try:
        with pipes(monkeypatch) as (stdin_w, reader):
            answers = asyncio.run(main())
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert [a["id"] for a in answers] == [0, 1]
    assert answers[1]["result"]["content"][0]["text"] == "fast"
    assert seen == ["fast", "slow", "slow cancelled"], "the handler still running is cancelled"


def test_serve_stdio_reads_a_regular_file_to_its_end(
    pkg: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(line(INIT) + b"\n  \n" + line(call(1, "a")) + b"{not json\n")
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", open(source))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, write_through=True))
    seen: list[str] = []
    try:
        asyncio.run(asyncio.wait_for(stdio.serve_stdio(tools(pkg, seen)), 20))
    finally:
        sys.stdin.close()
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    by_id = {a.get("id"): a for a in answers}  # requests run concurrently: any order
    assert len(answers) == 3 and set(by_id) == {0, 1, None}
    assert by_id[1]["result"]["content"][0]["text"] == "a"
    assert by_id[None]["error"]["code"] == -32700


class Lines:
    """A peer's side of a `Connection`: the lines it wrote, and lines to feed it."""

    def __init__(self, feed: list[bytes | type[ValueError]]) -> None:
        self.written: list[Any] = []
        self.feed = feed

    async def write(self, data: bytes) -> None:
        self.written.append(json.loads(data))

    async def readline(self) -> bytes:
        item = self.feed.pop(0) if self.feed else b""
        if isinstance(item, type):
            raise item("Separator is found, but chunk is longer than limit")
        return item


def test_a_line_over_the_limit_gets_a_parse_error_and_an_unwritable_answer_an_internal_error(
    pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []
    server = tools(pkg, seen)
    lines = Lines([line(INIT), ValueError, line(call(1, "bad")), line(call(2, "good"))])
    connection = stdio.Connection(server, lines.write)
    server.attach(connection)
    asyncio.run(asyncio.wait_for(connection.run(lines.readline), 20))
    by_id = {a.get("id"): a for a in lines.written}
    assert by_id[None]["error"] == {"code": -32700, "message": "Parse error: message too long"}
    assert by_id[1]["error"]["code"] == -32603, "a lone surrogate cannot be written as JSON"
    assert by_id[2]["result"]["content"][0]["text"] == "good"
    assert "could not be written as JSON" in caplog.text


SERVER = textwrap.dedent(
    """
    import asyncio, sys
    from {pkg} import Server, types
    from {pkg}.stdio import serve_stdio

    class Slow(Server):
        async def on_call_tool(self, params):
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                print("cancelled", params.name, file=sys.stderr, flush=True)
                raise

    asyncio.run(serve_stdio(Slow()))
    """
)


def test_connect_stdio_runs_a_server_process_and_cancelling_a_call_tells_it(
    pkg: ModuleType, tmp_path: Path
) -> None:
    root = Path(pkg.__path__[0]).parent
    log = tmp_path / "stderr.txt"

    async def main() -> None:
        client = pkg.Client()
        env = {**os.environ, "PYTHONPATH": str(root)}
        command = [sys.executable, "-c", SERVER.format(pkg=pkg.__name__)]
        with open(log, "w") as err:
            async with stdio.connect_stdio(client, command, env=env, stderr=err) as connection:
                await asyncio.wait_for(client.start_session(), 30)
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(client.call_tool({"name": "t", "arguments": {}}), 0.5)
                deadline = time.monotonic() + 20
                while "cancelled" not in log.read_text():
                    assert time.monotonic() < deadline, "the server never heard of the cancellation"
                    await asyncio.sleep(0.05)
            with pytest.raises(ConnectionError):
                await connection.request("ping", None)

    asyncio.run(main())
    assert log.read_text().strip() == "cancelled t"


def test_connect_stdio_stops_a_server_that_ignores_end_of_input_and_sigterm(
    pkg: ModuleType,
) -> None:
    stubborn = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
        ' print(\'{"jsonrpc": "2.0", "method": "up"}\', flush=True); time.sleep(120)'
    )

    async def main() -> float:
        client = pkg.Client()
        up = asyncio.Event()

        def trace(direction: str, message: Any) -> None:
            if direction == "in" and message.get("method") == "up":
                up.set()

        command = [sys.executable, "-c", stubborn]
        async with stdio.connect_stdio(client, command, trace=trace) as connection:
            await asyncio.wait_for(up.wait(), 30)  # SIGTERM is ignored from here on
            started = time.monotonic()
        elapsed = time.monotonic() - started
        with pytest.raises(ConnectionError):
            await connection.request("ping", None)
        return elapsed

    elapsed = asyncio.run(asyncio.wait_for(main(), 60))
    assert 9 < elapsed < 30, f"end of input, then SIGTERM, then SIGKILL: {elapsed:.1f} s"


@pytest.mark.parametrize("source", ["/dev/null", "empty pipe"])
def test_serve_stdio_ends_quietly_at_the_end_of_any_stdin(pkg: ModuleType, source: str) -> None:
    """/dev/null is a character device epoll refuses once the loop starts watching it: read like a file."""
    root = Path(pkg.__path__[0]).parent
    command = [sys.executable, "-c", SERVER.format(pkg=pkg.__name__)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    if source == "/dev/null":
        with open(os.devnull, "rb") as stdin:
            done = subprocess.run(command, stdin=stdin, capture_output=True, timeout=30, env=env)
    else:
        done = subprocess.run(command, input=b"", capture_output=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"" and done.stdout == b""


def test_a_server_that_exits_mid_line_fails_the_call_and_leaving_raises_nothing_more(pkg: ModuleType) -> None:
    """Its last half line is answered -32700 on a pipe already closed: that write's failure is not raised
    again when the connection is left (over the caller's own ConnectionError)."""
    half = (  # its stdin closed first: the client's -32700 for the half line meets a closed pipe
        "import os, sys, time; sys.stdin.buffer.readline();"
        " sys.stdout.buffer.write(b'{\"jsonrpc\": \"2.0\", \"id\": 1, \"res'); sys.stdout.flush();"
        " os.close(0); os.close(1); time.sleep(1)"
    )

    async def main() -> str:
        client = pkg.Client()
        try:
            async with stdio.connect_stdio(client, [sys.executable, "-c", half]) as connection:
                await asyncio.wait_for(connection.request("ping", None), 30)
        except ConnectionError as exc:
            return f"{type(exc).__name__}: {exc}"
        return "answered"

    assert asyncio.run(asyncio.wait_for(main(), 60)) == "ConnectionError: MCP peer closed the connection"


class Stuck:
    """A peer whose handlers wait for `release`, then answer each request (a batch: each of its own)."""

    _mcp = None

    def __init__(self, release: asyncio.Event) -> None:
        self.release = release

    async def handle(self, message: Any) -> Any:
        await self.release.wait()
        if isinstance(message, list):
            return [{"jsonrpc": "2.0", "id": m["id"], "result": {}} for m in message]
        return {"jsonrpc": "2.0", "id": message["id"], "result": {}} if "id" in message else None


def test_a_flood_beyond_the_bound_is_answered_at_once_and_memory_stays_bounded(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Requests beyond `IN_FLIGHT` get -32603 at once, notifications beyond are dropped (logged); the
    handlers already running go on."""
    monkeypatch.setattr(stdio, "IN_FLIGHT", 8)
    release = asyncio.Event()

    async def main() -> list[Any]:
        written: list[Any] = []

        async def write(data: bytes) -> None:
            written.append(json.loads(data))

        connection = stdio.Connection(Stuck(release), write)  # type: ignore[arg-type]
        for request_id in range(12):
            await connection.receive(line({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
        await connection.receive(line({"jsonrpc": "2.0", "method": "notifications/progress"}))
        refused = list(written)
        release.set()
        await asyncio.gather(*connection._tasks)
        return [refused, written]

    with caplog.at_level("WARNING"):
        refused, written = asyncio.run(main())
    assert [(m["id"], m["error"]["code"]) for m in refused] == [(i, -32603) for i in range(8, 12)]
    assert sorted(m["id"] for m in written if "result" in m) == list(range(8))
    assert "message dropped: 8 are being handled" in caplog.text


def test_a_line_that_is_a_json_string_is_refused_and_an_answer_too_long_to_read_is_an_error(
    pkg: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string holding a message is not decoded again (-32600, the tool never runs); an answer longer
    than the peer reads (`LIMIT`) is -32603 under its request's id, not a line the peer refuses."""
    monkeypatch.setattr(stdio, "LIMIT", 4000)
    seen: list[str] = []
    server = tools(pkg, seen)
    smuggled = json.dumps(json.dumps(call(1, "smuggled"))).encode() + b"\n"
    lines = Lines([line(INIT), smuggled, line(call(2, "x" * 5000)), line(call(3, "good"))])
    connection = stdio.Connection(server, lines.write)
    server.attach(connection)
    asyncio.run(asyncio.wait_for(connection.run(lines.readline), 20))
    by_id = {a.get("id"): a for a in lines.written}
    assert by_id[None]["error"]["code"] == -32600 and "smuggled" not in seen
    assert by_id[2]["error"]["code"] == -32603
    assert by_id[3]["result"]["content"][0]["text"] == "good"


def test_a_batch_counts_each_of_its_messages_against_the_bound(pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio, "IN_FLIGHT", 8)
    release = asyncio.Event()

    def ping(request_id: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}

    async def main() -> list[Any]:
        written: list[Any] = []

        async def write(data: bytes) -> None:
            written.append(json.loads(data))

        connection = stdio.Connection(Stuck(release), write)  # type: ignore[arg-type]
        await connection.receive(line([ping(i) for i in range(6)]))
        for request_id in (100, 101, 102):
            await connection.receive(line(ping(request_id)))
        await connection.receive(line([ping(200), ping(201)]))
        refused = list(written)
        release.set()
        await asyncio.gather(*connection._tasks)
        return refused

    refused = asyncio.run(main())
    assert [(m["id"], m["error"]["code"]) for m in refused] == [(102, -32603), (None, -32603)]


FLOODER = (
    "import sys, json, time\n"
    "for n in range(5000):\n"
    "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': n, 'method': 'ping'}) + '\\n')\n"
    "sys.stdout.flush(); time.sleep(60)\n"  # and never reads: the client's answers fill the pipe
)


def test_a_caller_s_timeout_holds_against_a_server_that_stops_reading(pkg: ModuleType) -> None:
    async def main() -> float:
        client = pkg.Client()
        async with stdio.connect_stdio(client, [sys.executable, "-c", FLOODER]) as connection:
            await asyncio.sleep(1)  # its pings read, their answers stuck in the full pipe
            started = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(connection.request("ping", None), 1)
            return time.monotonic() - started

    assert asyncio.run(asyncio.wait_for(main(), 60)) < 5


def test_stderr_pipe_is_refused(pkg: ModuleType) -> None:
    async def main() -> None:
        async with stdio.connect_stdio(pkg.Client(), [sys.executable, "-c", "pass"], stderr=asyncio.subprocess.PIPE):
            pass

    with pytest.raises(ValueError, match="stderr=PIPE"):
        asyncio.run(main())


def test_a_server_whose_stdout_is_closed_ends_quietly(pkg: ModuleType) -> None:
    root = Path(pkg.__path__[0]).parent
    command = [sys.executable, "-c", SERVER.format(pkg=pkg.__name__)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()  # the client stops reading for good, but keeps its stdin open
    process.stdin.write(line(INIT) + line({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
    process.stdin.flush()
    try:
        process.wait(20)  # its first answer meets the closed pipe: it stops serving
    finally:
        with contextlib.suppress(BrokenPipeError):
            process.stdin.close()
        process.kill()
    assert process.stderr is not None
    err = process.stderr.read()
    assert process.returncode == 0 and b"Traceback" not in err and b"never retrieved" not in err, err.decode()


def test_a_caller_cancelled_while_leaving_leaves_no_server_behind(pkg: ModuleType) -> None:
    stubborn = (
        "import json, os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
        " print(json.dumps({'jsonrpc': '2.0', 'method': 'up', 'params': {'pid': os.getpid()}}), flush=True); time.sleep(120)"
    )
    pids: list[int] = []

    async def leave() -> None:
        up = asyncio.Event()

        def trace(direction: str, message: Any) -> None:
            if direction == "in" and message.get("method") == "up":
                pids.append(message["params"]["pid"])
                up.set()

        async with stdio.connect_stdio(pkg.Client(), [sys.executable, "-c", stubborn], trace=trace):
            await asyncio.wait_for(up.wait(), 30)

    async def main() -> None:
        leaving = asyncio.ensure_future(leave())
        while not pids:
            await asyncio.sleep(0.05)
        await asyncio.sleep(1)  # inside the exit's wait for the server
        leaving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leaving

    asyncio.run(asyncio.wait_for(main(), 60))
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pids[0]}").exists() and "\tZ" not in Path(f"/proc/{pids[0]}/status").read_text():
        assert time.monotonic() < deadline, "the server outlived its client"
        time.sleep(0.05)
