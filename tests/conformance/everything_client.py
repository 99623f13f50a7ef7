"""A client on a generated `Client` over `connect_http`, for the conformance suite's client scenarios.

Usage (by the suite): `python everything_client.py PACKAGE URL`, the scenario in `MCP_CONFORMANCE_SCENARIO`.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import Any

PACKAGE = sys.argv[1]
mcp = importlib.import_module(PACKAGE)
http = importlib.import_module(f"{PACKAGE}.http")
runtime = importlib.import_module(f"{PACKAGE}.runtime")
types = mcp.types


def defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The `default` of every property of a requested schema that has one."""
    properties = schema.get("properties") or {}
    return {name: spec["default"] for name, spec in properties.items() if isinstance(spec, dict) and "default" in spec}


class EverythingClient(mcp.Client):
    """Accepts elicitations with the schema's defaults and answers sampling with a fixed message."""

    name = "mcpgen-conformance-client"
    version = "1.0.0"

    async def on_elicit(self, params: Any) -> Any:
        """Accept, filling in every default the requested schema declares."""
        schema = (runtime.dump(params) or {}).get("requestedSchema") or {}
        return types.ElicitResult.model_validate({"action": "accept", "content": defaults(schema)})

    async def on_create_message(self, params: Any) -> Any:
        """A fixed assistant message."""
        return types.CreateMessageResult.model_validate(
            {
                "role": "assistant",
                "content": {"type": "text", "text": "Paris"},
                "model": "fixed",
                "stopReason": "endTurn",
            }
        )


async def run(scenario: str, url: str) -> None:
    """Play one scenario against the suite's server at `url`."""
    client = EverythingClient()
    async with http.connect_http(client, url):
        await client.start_session()
        tools = (await client.list_tools()).tools
        if scenario == "tools_call":
            await client.call_tool({"name": "add_numbers", "arguments": {"a": 5, "b": 3}})
        elif scenario == "elicitation-sep1034-client-defaults":
            await client.call_tool({"name": "test_client_elicitation_defaults", "arguments": {}})
        elif scenario == "sse-retry":
            await client.call_tool({"name": "test_reconnection", "arguments": {}})
        elif scenario != "initialize":
            raise SystemExit(f"unknown scenario {scenario!r} (tools offered: {[t.name for t in tools]})")


if __name__ == "__main__":
    asyncio.run(run(os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize"), sys.argv[-1]))
