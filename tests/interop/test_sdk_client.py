"""The demo server on the generated 2025-11-25 Server, driven over stdio by the official Python SDK client."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the official MCP Python SDK (`mcp`) is not installed")
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

DEMO = Path(__file__).with_name("demo_server.py")


async def _drive(generated_dir: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(DEMO)],
        env={"PYTHONPATH": str(generated_dir), "PATH": os.defpath},
    )
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                out["init"] = await session.initialize()
                out["prompts"] = await session.list_prompts()
                out["prompt"] = await session.get_prompt(
                    "code_review", {"code": "def hello():\n    print('world')"}
                )
                out["prompt_ja"] = await session.get_prompt("code_review_ja", {"code": "x = 1"})
                out["tools"] = await session.list_tools()
                out["call"] = await session.call_tool("add", {"a": 2, "b": 40})
                out["resources"] = await session.list_resources()
                out["read"] = await session.read_resource("demo://readme")
                try:
                    await session.get_prompt("no_such_prompt")
                except MCPError as exc:
                    out["unknown"] = exc
    return out


@pytest.fixture(scope="module")
def sdk_session(generated_dir: Path) -> dict[str, Any]:
    """Everything the SDK client got from the demo server."""
    return asyncio.run(asyncio.wait_for(_drive(generated_dir), 60))


def test_initialize_advertises_the_overridden_handlers(sdk_session: dict[str, Any]) -> None:
    init = sdk_session["init"]
    assert init.protocol_version == "2025-11-25"
    assert init.server_info.name == "mcpgen-demo"
    caps = init.capabilities
    assert caps.prompts is not None and caps.tools is not None and caps.resources is not None
    assert caps.logging is None and caps.completions is None


def test_prompts_from_the_spec_page(sdk_session: dict[str, Any]) -> None:
    listed = {p.name: p for p in sdk_session["prompts"].prompts}
    assert set(listed) == {"code_review", "code_review_ja"}
    assert (
        listed["code_review"].arguments[0].name == "code"
        and listed["code_review"].arguments[0].required
    )
    message = sdk_session["prompt"].messages[0]
    assert message.role == "user"
    assert (
        message.content.text == "Please review this Python code:\ndef hello():\n    print('world')"
    )
    assert (
        sdk_session["prompt_ja"]
        .messages[0]
        .content.text.startswith("このコードをレビューしてください")
    )


def test_tool_and_resource(sdk_session: dict[str, Any]) -> None:
    assert [t.name for t in sdk_session["tools"].tools] == ["add"]
    call = sdk_session["call"]
    assert call.content[0].text == "42" and call.structured_content == {"sum": 42}
    assert [str(r.uri) for r in sdk_session["resources"].resources] == ["demo://readme"]
    assert sdk_session["read"].contents[0].text.startswith("mcpgen demo")


def test_unknown_prompt_is_invalid_params(sdk_session: dict[str, Any]) -> None:
    error = sdk_session["unknown"]
    assert error.error.code == -32602
    assert error.error.data == {"prompt": "no_such_prompt"}
