"""Ctrl-C stops a server within a second or two, quietly: under uvicorn with a client's GET stream open,
and on stdio (issue 25, item 13)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx

from shared import default_sigint

SERVER = textwrap.dedent(
    """
    import uvicorn
    from mcp_2025_11_25 import Server
    from mcp_2025_11_25.http import streamable_http_app

    uvicorn.run(streamable_http_app(Server), host="127.0.0.1", port={port}, log_level="warning")
    """
)
CLIENT = textwrap.dedent(
    """
    import asyncio, sys
    from mcp_2025_11_25 import Client
    from mcp_2025_11_25.http import connect_http

    async def main() -> None:
        client = Client()
        async with connect_http(client, "http://127.0.0.1:{port}/mcp"):
            await client.start_session()
            print("listening", flush=True)
            await asyncio.sleep(60)

    asyncio.run(main())
    """
)
STDIO = textwrap.dedent(
    """
    import asyncio
    from mcp_2025_11_25 import Server
    from mcp_2025_11_25.stdio import serve_stdio

    asyncio.run(serve_stdio(Server()))
    """
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(code: str, root: Path, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.Popen(
        [sys.executable, "-c", code], env=env, text=True, preexec_fn=default_sigint, **kwargs  # type: ignore[call-overload]
    )


def test_uvicorn_stops_at_once_while_a_client_listens(generated_root: Path) -> None:
    port = free_port()
    server = start(SERVER.format(port=port), generated_root, stderr=subprocess.PIPE)
    client = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/other", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "uvicorn did not start"
                time.sleep(0.1)
        client = start(CLIENT.format(port=port), generated_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert client.stdout is not None and client.stdout.readline().strip() == "listening"
        time.sleep(0.5)  # the client's GET stream is open now
        started = time.monotonic()
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
        elapsed = time.monotonic() - started
    finally:
        for process in (server, client):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate()
    assert elapsed < 3, f"took {elapsed:.1f} s"
    assert "Traceback" not in err and "Waiting for connections" not in err, err


def test_a_stdio_server_stops_quietly_on_ctrl_c(generated_root: Path) -> None:
    server = start(STDIO, generated_root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)  # imported and reading stdin
    started = time.monotonic()
    server.send_signal(signal.SIGINT)
    _, err = server.communicate(timeout=30)
    assert time.monotonic() - started < 3
    assert err == "" and server.returncode == 0, err
