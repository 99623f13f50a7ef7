"""Hostile peers of `mcpgen tap`: each ends with one clear line (or is relayed and reported), never a hang
or a traceback."""

from __future__ import annotations

import hashlib
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from httpserve import ACCEPT, serve
from tap_support import INITIALIZE, TAP, RawClient, Said, free_port, notification, request, tap_env, tap_http, write_script

BIG = 50 * 1024 * 1024


def _tap(tmp_path: Path, server: str, *args: str) -> subprocess.Popen[bytes]:
    script = write_script(tmp_path, "server.py", server)
    return subprocess.Popen([*TAP, *args, "--", sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tap_env())


def _ended(process: subprocess.Popen[bytes], timeout: float = 60) -> tuple[int, str]:
    status = process.wait(timeout)
    assert process.stderr is not None
    err = process.stderr.read().decode()
    assert "Traceback" not in err, err
    return status, err


def test_a_server_that_never_reads(tmp_path: Path) -> None:
    process = _tap(tmp_path, "import time\ntime.sleep(120)\n", "--timeout", "1")
    assert process.stdin is not None

    def flood() -> None:
        try:
            for _ in range(64):
                process.stdin.write(notification("notifications/message", {"data": "x" * 65536}))  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError):
            pass

    threading.Thread(target=flood, daemon=True).start()
    started = time.monotonic()
    status, err = _ended(process)
    assert time.monotonic() - started < 30
    assert status == 2
    assert err.splitlines()[-1] == "mcpgen: error: the server has not read its input for 1 s: stopped the server"


def test_a_client_that_never_reads(tmp_path: Path) -> None:
    server = "import sys\nline = b'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"' + b'x' * 65536 + b'\"}}\\n'\nwhile True:\n    sys.stdout.buffer.write(line)\n"
    process = _tap(tmp_path, server, "--timeout", "1")
    status, err = _ended(process)  # nothing reads its stdout
    assert status == 2
    assert err.splitlines()[-1] == "mcpgen: error: the client has not read the server's output for 1 s: stopped the server"


def test_a_client_that_goes_away_while_the_server_writes(tmp_path: Path) -> None:
    server = "import sys, time\nwhile True:\n    sys.stdout.buffer.write(b'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"tick\"}}\\n')\n    sys.stdout.flush()\n    time.sleep(0.01)\n"
    process = _tap(tmp_path, server)
    assert process.stdout is not None
    process.stdout.read1(100)  # the stream has begun
    process.stdout.close()
    status, err = _ended(process)
    assert status == 2
    assert err.splitlines()[-1] == "mcpgen: error: the client stopped reading (the tap's stdout is closed): stopped the server"


def test_a_50_mib_line_is_relayed_whole_and_reported_unjudged(tmp_path: Path) -> None:
    head, tail = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"', b'"}}\n'
    server = f"import sys\nsys.stdin.readline()\nsys.stdout.buffer.write({head!r} + b'y' * {BIG} + {tail!r})\nsys.stdout.flush()\nsys.stdin.readline()\n"
    script = write_script(tmp_path, "server.py", server)
    client = RawClient([*TAP, "--", sys.executable, str(script)], env=tap_env())
    client.send(INITIALIZE)
    (line,) = client.wait_for(1, timeout=120)
    status, err = client.close(timeout=120)
    assert hashlib.sha256(line).digest() == hashlib.sha256(head + b"y" * BIG + tail).digest()
    assert status == 0 and "Traceback" not in err
    said = Said.read(err)
    assert said.notes == [f"mcpgen tap: note: s2c message 2: {len(line) - 1} bytes, longer than the tap judges: relayed, not judged or logged"]


def test_sigterm_reaches_the_server_and_the_tap_exits_with_its_status(tmp_path: Path) -> None:
    server = "import signal, sys, time\ndef bye(n, f):\n    sys.stderr.write('server got SIGTERM\\n'); sys.exit(3)\nsignal.signal(signal.SIGTERM, bye)\nprint('{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"up\"}}', flush=True)\ntime.sleep(60)\n"
    process = _tap(tmp_path, server)
    assert process.stdout is not None
    process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    status, err = _ended(process)
    assert status == 3
    assert "server got SIGTERM" in err and "mcpgen tap: summary: no revision negotiated; 1 messages, 0 violations" in err


def test_an_upstream_that_refuses(tmp_path: Path) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/mcp"
    with tap_http(nowhere) as tap:
        answer = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30)
        assert answer.status_code == 502 and answer.json()["error"]["code"] == -32603
        again = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30)
        assert again.status_code == 502
    said = tap.said()
    refused = [line for line in said.notes if "refused" in line or "failed" in line]
    assert len(refused) == 2 and refused[0].startswith(f"mcpgen tap: error: the upstream {nowhere} failed POST /mcp: ConnectError: ")
    assert "Traceback" not in "".join(tap.lines) and tap.status == 130


def _streaming_upstream(chunks: int, pause: float, size: int = 65536) -> Any:
    """An upstream whose every answer is an SSE stream of `chunks` logging notifications."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        import asyncio

        for i in range(chunks):
            event = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "z" * size}}
            await send({"type": "http.response.body", "body": b"data: " + json.dumps(event).encode() + b"\n\n", "more_body": True})
            await asyncio.sleep(pause)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def test_a_client_that_never_reads_an_event_stream(tmp_path: Path) -> None:
    with serve(_streaming_upstream(2000, 0)) as served:
        with tap_http(served.url, "--timeout", "1") as tap:
            host, port = tap.url.split("//")[1].split("/")[0].split(":")
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(b"GET /mcp HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\n\r\n")
                deadline = time.monotonic() + 30
                while not any("has not read" in line for line in tap.lines) and time.monotonic() < deadline:
                    time.sleep(0.1)
            answer = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30)
            assert answer.status_code == 200, "the tap still serves"
    said = tap.said()
    assert "mcpgen tap: error: the client has not read the answer to GET /mcp for 1 s: closed the connection" in said.notes
    assert "Traceback" not in "".join(tap.lines)


def test_a_client_that_leaves_mid_stream(tmp_path: Path) -> None:
    with serve(_streaming_upstream(50, 0.05, 100)) as served:
        with tap_http(served.url) as tap:
            with httpx.Client(timeout=30) as client:
                with client.stream("POST", tap.url, content=request(7, "tools/call", {"name": "long"}), headers={"content-type": "application/json", "accept": ACCEPT}) as answer:
                    next(answer.iter_raw())
            time.sleep(0.5)
            assert httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30).status_code == 200
    said = tap.said()
    assert "mcpgen tap: note: c2s tools/call request (id 7): the client closed the connection before its answer came" in said.notes
    assert "Traceback" not in "".join(tap.lines)


def test_a_body_over_the_bound_is_refused_and_a_50_mib_event_is_relayed_unjudged(tmp_path: Path) -> None:
    with serve(_streaming_upstream(1, 0, BIG)) as served:
        with tap_http(served.url) as tap:
            big = httpx.post(tap.url, content=b"x" * (5 * 1024 * 1024), headers={"content-type": "application/json", "accept": ACCEPT}, timeout=60)
            assert big.status_code == 413
            streamed = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=120)
            assert streamed.status_code == 200 and len(streamed.content) > BIG
    said = tap.said()
    (note,) = [n for n in said.notes if "longer than the tap judges" in n]
    assert note.startswith("mcpgen tap: note: s2c message 2: ") and int(note.split()[6]) > BIG
