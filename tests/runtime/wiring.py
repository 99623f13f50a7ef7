"""Helpers of the focused runtime tests: message builders, recording channels, peers wired back to back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Coroutine

V25 = "2025-11-25"
V26 = "2026-07-28"
PREFIX = "io.modelcontextprotocol/"
CLIENT_INFO = {"name": "c", "version": "1"}


_SURFACE25: list[ModuleType] = []


def surface25_package(schema_dir: Path, root: Path) -> ModuleType:
    """2025-11-25 and 2026-07-28 on a 2025-11-25 surface, linked to the runtime source (generated into
    `root` once per test session): a session surface whose results lack what 2026-07-28 requires, and
    that serves 2026-07-28 listen requests with its subscribe handlers."""
    if not _SURFACE25:
        from mcpgen.commands.generate import GenerateConfig, generate
        from shared import load_package

        output = root / "rt_surface25"
        generate(
            GenerateConfig(
                revision="2025-11-25..2026-07-28",
                surface=V25,
                output=output,
                package="rt_surface25",
                schema_dir=schema_dir,
            )
        )
        _SURFACE25.append(load_package(output, "rt_surface25", linked=True))
    return _SURFACE25[0]


def run(coro: Coroutine[Any, Any, Any], timeout: float = 10) -> Any:
    """Run a coroutine to completion, failing after `timeout` seconds."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC request."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    """A JSON-RPC notification."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize(
    version: str, capabilities: Any = None, client_info: Any = None, request_id: Any = 0
) -> dict[str, Any]:
    """A session-era client's `initialize` request."""
    params = {
        "protocolVersion": version,
        "capabilities": capabilities or {},
        "clientInfo": client_info or CLIENT_INFO,
    }
    return request("initialize", params, request_id)


def meta(version: str = V26, **extra: Any) -> dict[str, Any]:
    """The `_meta` of a stateless-era request: version, client capabilities and info (and `extra` keys)."""
    return {
        PREFIX + "protocolVersion": version,
        PREFIX + "clientCapabilities": {},
        PREFIX + "clientInfo": CLIENT_INFO,
        **extra,
    }


def started(server: Any, version: str, **options: Any) -> Any:
    """`server` after an `initialize` of `version` (answered in that version) and `initialized`."""
    reply = run(server.handle(initialize(version, **options)))
    assert reply["result"]["protocolVersion"] == version, reply
    run(server.handle(notification("notifications/initialized")))
    return server


class Recorder:
    """A channel that keeps what is sent through it and answers requests from `answers` (by method)."""

    def __init__(self, answers: dict[str, Any] | None = None, error: type | None = None) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.answers = answers or {}
        self.error = error

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        self.sent.append((method, params))
        answer = self.answers.get(method, {})
        if callable(answer):
            answer = answer(params)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        self.sent.append((method, params))

    def methods(self) -> list[str]:
        """The methods sent, in order."""
        return [method for method, _ in self.sent]


class Link:
    """Two peers back to back: each side's outgoing messages go to the other's `handle`, all recorded
    as JSON (`wire`)."""

    def __init__(self, client: Any, server: Any, client_error: type, server_error: type) -> None:
        self.wire: list[Any] = []
        client.attach(_Side(self, server, client_error))
        server.attach(_Side(self, client, server_error))

    def methods(self) -> list[str]:
        """The methods of the requests and notifications on the wire, in order."""
        return [m["method"] for m in self.wire if isinstance(m, dict) and "method" in m]


class _Side:
    def __init__(self, link: Link, peer: Any, error: type) -> None:
        self.link, self.peer, self.error = link, peer, error

    async def request(self, method: str, params: Any) -> Any:
        message = request(method, params, len(self.link.wire) + 1)
        self.link.wire.append(json.loads(json.dumps(message)))
        reply = await self.peer.handle(message)
        self.link.wire.append(reply)
        if "error" in reply:
            error = reply["error"]
            raise self.error(error["code"], error["message"], error.get("data"))
        return reply["result"]

    async def notify(self, method: str, params: Any) -> None:
        message = notification(method, params)
        self.link.wire.append(json.loads(json.dumps(message)))
        await self.peer.handle(message)
