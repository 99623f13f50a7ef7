"""The HTTP servers of README.md, docs/index.md and docs/http.md (10 lines each) and the clients of
docs/http.md and docs/getting-started.md run as written, against each other on loopback; the official
SDK's client, which lists the tools before it calls one, gets its answer from each server too."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from docpages import README, page, run_by
from httpserve import serve

THIS = "tests/test_http_docs.py"


def servers() -> list[str]:
    """The server blocks: README.md's, index.md's and http.md's."""
    found = [code for document in (README, page("index.md"), page("http.md")) for code in run_by(THIS, document)]
    return [code for code in found if "streamable_http_app(" in code]


def clients() -> list[str]:
    """The client blocks: http.md's and getting-started.md's."""
    found = [code for document in (page("http.md"), page("getting-started.md")) for code in run_by(THIS, document)]
    return [code for code in found if "connect_http(" in code]


def call(server: str, client: str, generated_root: Path) -> None:
    """Serve `server`'s app on a free port, run `client` against it: it prints the echoed text."""
    namespace: dict[str, object] = {}
    exec(compile(server, "documented server", "exec"), namespace)
    with serve(namespace["app"]) as served:
        port = served.url.split(":")[2].split("/")[0]
        code = client.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        env = {**os.environ, "PYTHONPATH": str(generated_root)}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hi\n"


def test_the_documented_servers_and_clients_talk(packages: dict[str, ModuleType], generated_root: Path) -> None:
    every_server, every_client = servers(), clients()
    assert len(every_server) == 3 and len(every_client) == 2
    for server in every_server:
        assert len([line for line in server.splitlines() if line.strip()]) <= 10
        call(server, every_client[0], generated_root)
    for client in every_client[1:]:
        call(every_server[0], client, generated_root)


async def sdk_echo(url: str) -> str:
    """What the official SDK's client reads back from calling `echo` with "hi" at `url`."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.capabilities.tools is not None
            result = await session.call_tool("echo", {"text": "hi"})
    assert not result.is_error
    return "".join(block.text for block in result.content if block.type == "text")


def test_the_documented_servers_answer_the_official_sdk_client(packages: dict[str, ModuleType]) -> None:
    pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
    for server in servers():
        namespace: dict[str, object] = {}
        exec(compile(server, "documented server", "exec"), namespace)
        with serve(namespace["app"]) as served:
            assert asyncio.run(sdk_echo(served.url)) == "hi"
