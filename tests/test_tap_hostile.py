"""Hostile peers of `mcpgen tap`: each ends with one clear line (or is relayed and reported), never a hang
or a traceback."""

from __future__ import annotations

import asyncio
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
from tap_support import INITIALIZE, TAP, RawClient, Said, echo_upstream, free_port, notification, raw_exchange, request, tap_env, tap_http, write_script

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
    nowhere = f"http://user:hunter2@127.0.0.1:{free_port()}/mcp"
    process = subprocess.Popen([*TAP, "--upstream", nowhere, "--listen", "127.0.0.1:0"], stderr=subprocess.PIPE, env=tap_env())
    assert process.stderr is not None
    assert process.stderr.readline().decode().endswith(f" (upstream {nowhere.replace('hunter2', '[redacted]')})\n")
    process.send_signal(signal.SIGINT)
    assert "hunter2" not in _ended(process)[1]
    with tap_http(nowhere) as tap:
        answer = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30)
        assert answer.status_code == 502 and answer.json()["error"]["code"] == -32603
        again = httpx.post(tap.url, content=INITIALIZE, headers={"content-type": "application/json", "accept": ACCEPT}, timeout=30)
        assert again.status_code == 502
    said = tap.said()
    refused = [line for line in said.notes if "refused" in line or "failed" in line]
    shown = nowhere.replace("hunter2", "[redacted]")  # the password in --upstream is never printed
    assert len(refused) == 2 and refused[0].startswith(f"mcpgen tap: error: the upstream {shown} failed POST /mcp: ConnectError: ")
    assert "Traceback" not in "".join(tap.lines) and tap.status == 130


def _streaming_upstream(chunks: int, pause: float, size: int = 65536, end: bytes = b"\n") -> Any:
    """An upstream whose every answer is an SSE stream of `chunks` logging notifications, its lines ending with `end`."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        import asyncio

        for i in range(chunks):
            event = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "z" * size}}
            await send({"type": "http.response.body", "body": b"data: " + json.dumps(event).encode() + end * 2, "more_body": True})
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


def test_the_upstream_gets_what_each_client_sent_and_no_cookie_of_another() -> None:
    """The tap keeps no cookie and adds no header: one client's answer sets a cookie, the next client's
    request reaches the upstream with exactly its own headers (its `Host` names the upstream)."""
    with echo_upstream() as upstream, tap_http(upstream) as tap:
        first, _ = raw_exchange(tap.url, b"GET /elsewhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert b"set-cookie: session=c00kie; Path=/" in first
        _, seen = raw_exchange(tap.url, b"POST /elsewhere HTTP/1.1\r\nHost: x\r\nX-Trace: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    assert seen.split(b"\r\n") == [b"POST /elsewhere HTTP/1.1", f"Host: {upstream.split('/')[2]}".encode(), b"x-trace: 1", b"content-length: 2", b"", b""]


def test_header_bytes_pass_both_ways_as_they_are() -> None:
    """Header values that are not ASCII (Latin-1 from the client, UTF-8 from the upstream) are relayed as
    the same bytes, and the answer's head is the upstream's alone (no `date` or `server` of the tap's)."""
    with echo_upstream() as upstream, tap_http(upstream) as tap:
        head, seen = raw_exchange(tap.url, b"GET /elsewhere HTTP/1.1\r\nHost: x\r\nX-Name: caf\xe9\r\nConnection: close\r\n\r\n")
    assert b"x-name: caf\xe9" in seen.split(b"\r\n")
    upstreams = [b"content-type: text/plain", b"set-cookie: session=c00kie; Path=/", b"x-name: \xe2\x82\xac", b"server: upstream", b"content-length: %d" % len(seen)]
    assert head[:-1] == [b"HTTP/1.1 200 OK", *upstreams]
    assert head[-1].lower() == b"connection: close"  # the client asked to close (h11 writes `Connection`)
    assert tap.said().notes == [], tap.said().text


def test_an_event_stream_whose_lines_end_with_cr_is_judged_event_by_event(tmp_path: Path) -> None:
    """17 MiB of events, each line ending with a bare CR: more than one message may be long, so the relay
    must see the CRs as line ends to hand every event over whole."""
    with serve(_streaming_upstream(17, 0, 1024 * 1024, b"\r")) as served:
        with tap_http(served.url) as tap:
            streamed = httpx.get(tap.url, headers={"accept": "text/event-stream"}, timeout=120)
            assert streamed.status_code == 200 and streamed.content.count(b"\r\r") == 17
    said = tap.said()
    assert said.notes == [] and "mcpgen tap:   s2c: notifications/message 17" in said.summary, said.text


def test_the_client_the_tap_relays_through_keeps_no_cookie() -> None:
    from mcpgen.commands.tap.config import TapConfig
    from mcpgen.commands.tap.http import upstream_client

    async def kept(url: str) -> int:
        async with upstream_client(TapConfig(upstream=url, listen="127.0.0.1:0")) as client:
            assert (await client.get(url)).headers["set-cookie"] == "session=c00kie; Path=/"
            return len(client.cookies.jar)

    with echo_upstream() as upstream:
        assert asyncio.run(kept(upstream)) == 0
