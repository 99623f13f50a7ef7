"""The app finds its endpoint (runtime/http/server.py `StreamableHTTP.__call__`) without working a request's
path out when it is the endpoint's own and unmounted: any path, mount point (`root_path`) and endpoint
path give a 404 exactly when `paths` (the wire's reading of a path below its mount point) says the
request is elsewhere."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http.wire import paths
from wiring import run

PIECES = st.sampled_from(["", "/", "/mcp", "/mcp/", "/api", "/api/mcp", "//", "/MCP", "/mc"])


async def status(app: Any, path: str, root_path: str) -> int:
    """The status `app` answers a PUT to `path` under `root_path` with (a PUT is never served)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1:8000")]
    scope = {
        "type": "http",
        "method": "PUT",
        "path": path,
        "root_path": root_path,
        "headers": headers,
    }
    await app(scope, receive, send)
    return int(sent[0]["status"])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(endpoint=PIECES, root=PIECES, below=PIECES)
def test_a_request_is_found_exactly_where_its_path_below_the_mount_says(
    v25: ModuleType, endpoint: str, root: str, below: str
) -> None:
    http = importlib.import_module(f"{v25.__name__}.http")
    app = http.streamable_http_app(v25.Server, path=endpoint or "/", keepalive=None)
    path = root.rstrip("/") + below if root else below
    elsewhere = paths({"path": path, "root_path": root})[0] != app.path
    assert (run(status(app, path, root)) == 404) == elsewhere
