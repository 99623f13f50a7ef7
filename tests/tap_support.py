"""Test support for `mcpgen tap`: its command line, real peers written out as scripts, and reading what it says."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from redis_server import free_port, wait_for_port

__all__ = ["free_port", "wait_for_port"]

TAP = [sys.executable, "-m", "mcpgen", "tap"]
LINE = re.compile(r"^mcpgen tap: (?P<dir>c2s|s2c) (?P<what>[^:]+?): (?P<rest>.*)$")

# The official SDK's MCPServer with an echo tool and a tool that reports progress, over stdio or HTTP.
SDK_SERVER = '''
import sys
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

server = MCPServer("tap-test", version="1.0.0")


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@server.tool()
async def slow(ctx: Context, steps: int = 2) -> str:
    """Report progress, then answer."""
    import asyncio

    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps)
        await asyncio.sleep(0.3)
    return "done"


if sys.argv[1:2] == ["http"]:
    import uvicorn

    uvicorn.run(server.streamable_http_app(json_response=sys.argv[3:4] == ["json"]), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
else:
    server.run()
'''

# A server that breaks the protocol on purpose, writing exact bytes: an initialize answer spaced oddly
# (valid JSON), a Tool without inputSchema, a line that is not JSON, and an answer to an id never asked.
FAULTY_SERVER = r'''
import json, sys

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    message = json.loads(line)
    method, ident = message.get("method"), json.dumps(message.get("id")).encode()
    if method == "initialize":
        out.write(b'{ "jsonrpc" : "2.0" ,\t"id" : ' + ident + b' , "result" : {"protocolVersion":"2025-11-25",'
                  b'"capabilities":{"tools":{}},"serverInfo":{"name":"faulty","version":"1"}} }  \r\n')
    elif method == "tools/list":
        out.write(b'{"jsonrpc":"2.0","id":' + ident + b',"result":{"tools":[{"name":"broken"}]}}\n')
        out.write(b"this is not JSON\n")
        out.write(b'{"jsonrpc":"2.0","id":9999,"result":{}}\n')
    out.flush()
'''


def write_script(directory: Path, name: str, text: str) -> Path:
    """Write a peer's script; its path."""
    path = directory / name
    path.write_text(text, "utf-8")
    return path


@dataclass
class Said:
    """What the tap wrote on stderr, read apart: violation lines, notes, summary lines, anything else."""

    text: str
    violations: list[dict[str, str]] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, text: str) -> Said:
        """Sort the lines of the tap's stderr."""
        said = cls(text)
        in_summary = False
        for line in text.splitlines():
            match = LINE.match(line)
            if line.startswith("mcpgen tap: summary:") or (in_summary and line.startswith("mcpgen tap:   ")):
                in_summary = True
                said.summary.append(line)
            elif match and not line.startswith("mcpgen tap: listening"):
                said.violations.append(match.groupdict())
            elif line.startswith("mcpgen tap: "):
                said.notes.append(line)
            else:
                said.other.append(line)
        return said


def said_in(path: Path, timeout: float = 60) -> Said:
    """What the tap wrote to the file holding its stderr, once its summary is there (the judge, in a
    process of its own, may finish after the tap exited when a client kills the tap)."""
    deadline = time.monotonic() + timeout
    while True:
        said = Said.read(path.read_text("utf-8", "replace"))
        if said.summary:
            time.sleep(0.2)  # the summary's last lines
            return Said.read(path.read_text("utf-8", "replace"))
        if time.monotonic() > deadline:
            raise AssertionError(f"no summary from the tap:\n{said.text}")
        time.sleep(0.1)


def json_lines(text: str) -> list[dict[str, Any]]:
    """The JSON lines among a tap's stderr (`--format json`)."""
    out = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "tap" in value:
            out.append(value)
    return out


class RawClient:
    """A client that writes exact bytes to a command's stdin and keeps every byte it reads back."""

    def __init__(self, argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.received = bytearray()
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err = bytearray()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read1(1 << 16):
            with self._lock:
                self.received += chunk
                self._lock.notify_all()

    def _read_err(self) -> None:
        assert self.process.stderr is not None
        while chunk := self.process.stderr.read1(1 << 16):
            self._err += chunk

    def send(self, data: bytes) -> None:
        """Write bytes to the command's stdin."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for(self, lines: int, timeout: float = 30) -> list[bytes]:
        """Wait until `lines` newline-terminated lines came back; all lines so far."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.received.count(b"\n") < lines:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"only {bytes(self.received)!r} came back")
                self._lock.wait(left)
            return bytes(self.received).splitlines(keepends=True)

    def close(self, timeout: float = 30) -> tuple[int, str]:
        """Close stdin, wait for the exit; (status, stderr)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        status = self.process.wait(timeout)
        self._reader.join(timeout)
        self._err_reader.join(timeout)
        return status, self._err.decode("utf-8", "replace")


def request(ident: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    """A request line."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def notification(method: str, params: dict[str, Any] | None = None) -> bytes:
    """A notification line."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


INITIALIZE = request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}})


def validate(capture: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcpgen validate` on a capture, as a person would run it."""
    return subprocess.run([sys.executable, "-m", "mcpgen", "validate", *args, str(capture)], capture_output=True, text=True, timeout=120)


def tap_env(**extra: str) -> dict[str, str]:
    """The environment a tap runs in: this one (schema corpus and package cache of the test session)."""
    return {**os.environ, **extra}


def listening(process: subprocess.Popen[bytes], timeout: float = 30) -> tuple[str, Iterator[str]]:
    """The URL a tap started with --listen HOST:0 says it listens on, and its further stderr lines."""
    assert process.stderr is not None
    lines = iter(process.stderr.readline, b"")
    deadline = time.monotonic() + timeout
    for raw in lines:
        line = raw.decode()
        found = re.match(r"mcpgen tap: listening on (\S+) ", line)
        if found:
            return found.group(1), (r.decode() for r in lines)
        if time.monotonic() > deadline:
            break
    raise AssertionError("the tap did not say where it listens")


@dataclass
class TapProcess:
    """A tap serving Streamable HTTP in a process of its own: where it listens, and its stderr so far."""

    url: str
    process: subprocess.Popen[bytes]
    lines: list[str]
    status: int | None = None

    def said(self) -> Said:
        """What it said (all of it, once it has exited)."""
        return Said.read("".join(self.lines))


@contextlib.contextmanager
def tap_http(upstream: str, *args: str) -> Iterator[TapProcess]:
    """Run `mcpgen tap --upstream URL --listen 127.0.0.1:0 ARGS` until the block ends, then stop it with
    SIGINT (as Ctrl-C does) and wait for its summary."""
    process = subprocess.Popen([*TAP, *args, "--upstream", upstream, "--listen", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tap_env())
    try:
        url, rest = listening(process)
    except AssertionError:
        process.kill()
        raise
    running = TapProcess(url, process, [])
    reader = threading.Thread(target=running.lines.extend, args=(rest,), daemon=True)
    reader.start()
    try:
        yield running
    finally:
        process.send_signal(signal.SIGINT)
        running.status = process.wait(60)
        reader.join(60)


UPSTREAM_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: session=c00kie; Path=/\r\nX-Name: \xe2\x82\xac\r\nServer: upstream\r\n"
"""The head of every answer of `echo_upstream` (before its Content-Length): a cookie, UTF-8 bytes in a header, its own Server."""


@contextlib.contextmanager
def echo_upstream() -> Iterator[str]:
    """An HTTP/1.1 upstream on bare sockets (no HTTP library adds or rewrites a header) in a thread of its
    own: every answer is UPSTREAM_ANSWER with the head of the request as it arrived for body. Its URL."""
    import asyncio

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
                await reader.readexactly(int(length.group(1)) if length else 0)
                writer.write(UPSTREAM_ANSWER + b"Content-Length: %d\r\n\r\n" % len(head) + head)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", 0))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/mcp"
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def raw_exchange(url: str, request: bytes, timeout: float = 30) -> tuple[list[bytes], bytes]:
    """Send exact request bytes (ending with `Connection: close` and the body) to the host of `url`; the
    answer's head lines (the status line first) and its body."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(1 << 16):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n"), body
