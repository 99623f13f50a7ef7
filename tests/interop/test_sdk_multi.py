"""The multi-revision server of docs/multi-revision.md, driven over stdio by the official Python SDK
client at each of the five revisions; every message on the wire is valid in that revision's schema."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from shared import REVISIONS, wire_problems

mcp = pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
from mcp import ClientSession, types  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "multi-revision.md"
PACKAGE = "mcp_2024_11_05_to_2026_07_28"
# Runs the documented server with every message it reads and writes appended to $TRACE as JSON lines.
TRACED = """
import asyncio, json, os
from weather import Weather
from mcp_2024_11_05_to_2026_07_28.stdio import serve_stdio

trace = open(os.environ["TRACE"], "a", encoding="utf-8")

def record(direction, message):
    trace.write(json.dumps([direction, message]) + "\\n")
    trace.flush()

asyncio.run(serve_stdio(Weather(), trace=record))
"""


@pytest.fixture(scope="module")
def server_dir(generated_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documented server (as written in the docs), the traced launcher and the package, in one folder."""
    where = tmp_path_factory.mktemp("weather")
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert len(code.strip().splitlines()) <= 30
    (where / "weather.py").write_text(code, "utf-8")
    (where / "traced.py").write_text(TRACED, "utf-8")
    shutil.copytree(generated_dir / PACKAGE, where / PACKAGE)
    return where


def params(server_dir: Path, trace: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(server_dir / "traced.py")],
        cwd=str(server_dir),
        env={"PATH": os.defpath, "TRACE": str(trace), "PYTHONPATH": str(server_dir)},
    )


async def legacy_session(server_dir: Path, trace: Path, revision: str) -> dict[str, Any]:
    """A handshake-era session at `revision`: the SDK's InitializeRequest sent with that version."""
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params(server_dir, trace), errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                request = types.InitializeRequest(
                    params=types.InitializeRequestParams(
                        protocol_version=revision,
                        capabilities=types.ClientCapabilities(),
                        client_info=types.Implementation(name="sdk", version="2.3.0"),
                    )
                )
                out["init"] = await session.send_request(request, types.InitializeResult)
                session.adopt(out["init"])
                await session.send_notification(types.InitializedNotification())
                out["tools"] = await session.list_tools()
                out["call"] = await session.call_tool("forecast", {"city": "Lyon"})
    return out


async def modern_session(server_dir: Path, trace: Path) -> dict[str, Any]:
    """A 2026-07-28 client: every request carries its version in `_meta`."""
    out: dict[str, Any] = {}
    async with Client(params(server_dir, trace), mode="auto") as client:
        out["version"] = client.protocol_version
        out["tools"] = await client.list_tools()
        out["call"] = await client.call_tool("forecast", {"city": "Lyon"})
    return out


def conversation(trace: Path) -> list[dict[str, Any]]:
    """Every message on the wire, in order (what the server read and what it wrote)."""
    return [message for _, message in (json.loads(line) for line in trace.read_text("utf-8").splitlines())]


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_sdk_client_at_each_revision(server_dir: Path, schema_dir: Path, tmp_path: Path, revision: str) -> None:
    trace = tmp_path / "trace.jsonl"
    if revision == "2026-07-28":
        got = asyncio.run(asyncio.wait_for(modern_session(server_dir, trace), 60))
        assert got["version"] == "2026-07-28"
    else:
        got = asyncio.run(asyncio.wait_for(legacy_session(server_dir, trace, revision), 60))
        assert got["init"].protocol_version == revision and got["init"].server_info.name == "weather"
    assert [t.name for t in got["tools"].tools] == ["forecast"]
    blocks = got["call"].content
    assert blocks[0].text == f"Sunny in Lyon ({revision})"
    assert len(blocks) == (1 if revision < "2025-06-18" else 2)  # resource links came in 2025-06-18
    messages = conversation(trace)
    assert len(messages) >= 6
    assert wire_problems(schema_dir, revision, messages) == []
