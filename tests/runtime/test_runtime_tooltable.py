"""The stateless era's tool table (runtime/http/tooltable.py): the `x-mcp-header` check reads a server's
own tool list, and keeps it only as long as that list declares (`ttlMs`) for the authorization context
it declares (`cacheScope`); a list that changes is read again."""

from __future__ import annotations

import asyncio
import importlib
import json
from types import ModuleType
from typing import Any, Awaitable, Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asgi import exchange, post_headers
from wiring import V26, meta, request, run


def region(header: str) -> dict[str, Any]:
    """A tool input schema whose `region` argument travels in the `Mcp-Param-{header}` header."""
    return {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": header}}}


def listing_server(
    pkg: ModuleType, pages: list[list[dict[str, Any]]], state: dict[str, Any]
) -> type:
    """A server of `pkg` listing `pages` of tools (a cursor is the next page's index) with the `ttlMs` and
    `cacheScope` in `state`, counting the listings it answers in `state["lists"]`."""
    t = pkg.types

    class Listing(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            state["lists"] += 1
            page = int(params.cursor) if params is not None and params.cursor else 0
            body: dict[str, Any] = {"tools": pages[page], "resultType": "complete"}
            body.update(ttlMs=state["ttl"], cacheScope=state["scope"])
            if page + 1 < len(pages):
                body["nextCursor"] = str(page + 1)
            return t.ListToolsResult.model_validate(body)

        async def on_call_tool(self, params: Any) -> Any:
            return t.CallToolResult(content=[t.TextContent(type="text", text="done")])

    return Listing


def call_region(value: str, header: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A stateless `tools/call` of `headers` with region `value`, sent with `Mcp-Param-{header}`."""
    message = request(
        "tools/call", {"name": "headers", "arguments": {"region": value}, "_meta": meta()}, 5
    )
    headers = post_headers(None, V26, **{"mcp-method": "tools/call", "mcp-name": "headers"})
    headers[f"mcp-param-{header.lower()}"] = value
    return message, headers


def listing_app(
    v26: ModuleType, ttl: int, scope: str
) -> tuple[list[list[dict[str, Any]]], dict[str, Any], Callable[[str], Awaitable[int]]]:
    """A listing server's app whose list starts with `Region`: its pages, its state, and a function that
    sends a `tools/call` with `Mcp-Param-{header}` and returns the HTTP status."""
    pages: list[list[dict[str, Any]]] = [[{"name": "headers", "inputSchema": region("Region")}]]
    state: dict[str, Any] = {"ttl": ttl, "scope": scope, "lists": 0}
    http = importlib.import_module(f"{v26.__name__}.http")
    app = http.streamable_http_app(listing_server(v26, pages, state), keepalive=None)

    async def status(header: str) -> int:
        message, headers = call_region("eu", header)
        return (await exchange(app, "POST", headers, json.dumps(message).encode())).status

    return pages, state, status


def test_a_tool_list_that_changes_is_read_again_unless_it_said_to_keep_it(v26: ModuleType) -> None:
    pages, state, status = listing_app(v26, 0, "private")

    async def scenario() -> list[Any]:
        seen: list[Any] = [await status("Region")]
        pages[0] = [
            {"name": "headers", "inputSchema": region("Area")}
        ]  # the list changes (ttlMs 0)
        seen += [await status("Region"), await status("Area"), state["lists"]]
        state["ttl"] = 60_000  # now it says a client may keep it a minute
        seen += [await status("Area")]
        pages[0] = [{"name": "headers", "inputSchema": region("Zone")}]
        seen += [await status("Area"), await status("Zone"), state["lists"]]
        state["ttl"] = 30
        pages[0] = [{"name": "headers", "inputSchema": region("Area")}]
        seen += [await status("Area")]  # still the minute-long list: Area is its header
        return seen

    first = run(scenario())
    # ttlMs 0: every call reads the list, and the changed list is the one held; ttlMs 60000: read once
    # and kept for that minute, even though the list changed (what the server declared).
    assert first == [200, 400, 200, 3, 200, 200, 400, 4, 200]


def test_a_kept_tool_list_expires_after_its_ttl(v26: ModuleType) -> None:
    pages, state, status = listing_app(v26, 50, "public")

    async def scenario() -> list[int]:
        seen = [await status("Region")]
        pages[0] = [{"name": "headers", "inputSchema": region("Area")}]
        seen.append(await status("Region"))  # kept: within its 50 ms
        state["ttl"] = 0
        await asyncio.sleep(0.2)
        seen += [await status("Region"), await status("Area"), state["lists"]]
        return seen

    assert run(scenario()) == [200, 200, 400, 200, 3]


def table_of(pkg: ModuleType) -> tuple[Any, Any]:
    """A fresh tool table of `pkg`'s stateless era, and the `ACCESS` context variable its runtime reads."""
    tooltable = importlib.import_module(f"{pkg.__name__}.runtime.http.tooltable")
    common = importlib.import_module(f"{pkg.__name__}.runtime.http.common")
    resource = importlib.import_module(f"{pkg.__name__}.runtime.auth.resource")
    return tooltable.ToolTable(common.eras(pkg.revisions.REVISIONS)), resource


def test_a_private_tool_list_is_kept_for_its_own_authorization_context_only(
    v26: ModuleType,
) -> None:
    pages: list[list[dict[str, Any]]] = [[{"name": "headers", "inputSchema": region("Region")}]]
    counts = {}
    for scope in ("private", "public"):
        state: dict[str, Any] = {"ttl": 60_000, "scope": scope, "lists": 0}
        server_class = listing_server(v26, pages, state)
        table, resource = table_of(v26)
        alice = resource.AccessToken(
            "t1", client_id="c", subject="alice", claims={"iss": "https://as"}
        )
        alice_again = resource.AccessToken(
            "t2", client_id="c", subject="alice", claims={"iss": "https://as"}
        )
        bob = resource.AccessToken("t3", client_id="c", subject="bob", claims={"iss": "https://as"})

        async def scenario() -> list[Any]:
            found = []
            for token in (alice, alice_again, bob, None, alice):
                resource.ACCESS.set(token)
                found.append(await table.annotations(server_class(), V26, "headers", meta()))
            return found

        assert run(scenario()) == [{"Region": ("region",)}] * 5
        counts[scope] = state["lists"]
    # private: alice (twice, one principal), bob, and no token are three contexts; public: one list for all
    assert counts == {"private": 3, "public": 1}


def test_the_tool_table_is_bounded(v26: ModuleType) -> None:
    pages: list[list[dict[str, Any]]] = [[{"name": "headers", "inputSchema": region("Region")}]]
    state: dict[str, Any] = {"ttl": 60_000, "scope": "private", "lists": 0}
    server_class = listing_server(v26, pages, state)
    table, resource = table_of(v26)
    tooltable = importlib.import_module(f"{v26.__name__}.runtime.http.tooltable")

    async def scenario() -> None:
        for n in range(tooltable.LIMIT + 50):
            resource.ACCESS.set(resource.AccessToken(f"t{n}", subject=f"user{n}"))
            await table.annotations(server_class(), V26, "headers", meta())

    run(scenario())
    assert len(table._kept) == tooltable.LIMIT and state["lists"] == tooltable.LIMIT + 50


NAMES = st.sampled_from(["a", "b", "c", "headers"])
HEADERS = st.sampled_from(["Region", "Area", "Zone", "X-Y"])
TOOLS = st.lists(
    st.fixed_dictionaries(
        {"name": NAMES, "inputSchema": st.one_of(st.just({"type": "object"}), HEADERS.map(region))}
    ),
    max_size=4,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pages=st.lists(TOOLS, min_size=1, max_size=3),
    ttl=st.sampled_from([0, 60_000]),
    asked=st.lists(NAMES, min_size=1, max_size=6),
)
def test_kept_or_read_again_the_table_answers_as_the_list_itself(
    v26: ModuleType, pages: list[list[dict[str, Any]]], ttl: int, asked: list[str]
) -> None:
    state: dict[str, Any] = {"ttl": ttl, "scope": "public", "lists": 0}
    server_class = listing_server(v26, pages, state)
    table, _ = table_of(v26)

    def expected(name: str) -> dict[str, tuple[str, ...]]:
        """The first listed tool of that name, read off the pages (a header on `region`, or none)."""
        for tool in (t for page in pages for t in page):
            if tool["name"] == name:
                header = (
                    tool["inputSchema"].get("properties", {}).get("region", {}).get("x-mcp-header")
                )
                return {header: ("region",)} if header else {}
        return {}

    async def scenario() -> list[Any]:
        return [await table.annotations(server_class(), V26, name, meta()) for name in asked]

    assert run(scenario()) == [expected(name) for name in asked]
