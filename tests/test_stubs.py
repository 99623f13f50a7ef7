"""The generated Server and Client stubs: `handle` error codes, concurrency, cancellation, capabilities, loopback calls."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from mcpgen.commands.generate import GenerateConfig, generate
from shared import load_package



@pytest.fixture(scope="module")
def pkgs(tmp_path_factory: pytest.TempPathFactory, schema_dir: Path) -> Callable[[str], ModuleType]:
    """Import a revision's generated package from a fresh generation of every revision."""
    out = tmp_path_factory.mktemp("stubs")
    generate(GenerateConfig(revision="all", output=out, schema_dir=schema_dir, force=True))
    return lambda revision: load_package(
        out / f"mcp_{revision.replace('-', '_')}", f"stubs_mcp_{revision.replace('-', '_')}"
    )


@pytest.fixture
def pkg(pkgs: Callable[[str], ModuleType]) -> ModuleType:
    """The 2025-11-25 package."""
    return pkgs("2025-11-25")


def run(coro: Any) -> Any:
    """Run a coroutine to completion with a time limit."""
    return asyncio.run(asyncio.wait_for(coro, 10))


def request(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC request object."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def prompts_server(pkg: ModuleType) -> Any:
    """A server with one prompt, a failing tool, a slow tool and a typed error."""
    types = pkg.types

    class PromptServer(pkg.Server):  # type: ignore[misc,name-defined]
        name = "unit"
        version = "2.0"
        started = 0
        running = 0
        peak = 0
        gate: asyncio.Event | None = None
        cancelled: list[Any] = []

        async def on_list_prompts(self, params: Any) -> Any:
            return types.ListPromptsResult(prompts=[types.Prompt(name="code_review")])

        async def on_get_prompt(self, params: Any) -> Any:
            if params.name != "code_review":
                raise pkg.ProtocolError(
                    -32602, f"Unknown prompt: {params.name}", {"name": params.name}
                )
            return types.GetPromptResult(messages=[])

        async def on_call_tool(self, params: Any) -> Any:
            if params.name == "boom":
                raise RuntimeError("secret at /srv/app/internal.py")
            if params.name == "bad-result":
                return types.EmptyResult()
            type(self).running += 1
            type(self).peak = max(self.peak, self.running)
            try:
                assert self.gate is not None
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled.append(params.name)
                raise
            finally:
                type(self).running -= 1
            return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    return PromptServer()


def test_parse_error(pkg: ModuleType) -> None:
    reply = run(prompts_server(pkg).handle("{not json"))
    assert reply == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: not valid JSON"},
    }


def test_invalid_request(pkg: ModuleType) -> None:
    server = prompts_server(pkg)
    assert (
        run(server.handle({"jsonrpc": "1.0", "id": 7, "method": "ping"}))["error"]["code"] == -32600
    )
    reply = run(server.handle(b"[]"))
    assert reply["error"]["code"] == -32600 and reply["id"] is None
    assert run(server.handle({"jsonrpc": "2.0", "method": "tools/list"}))["error"]["code"] == -32600


def test_method_not_found(pkg: ModuleType) -> None:
    server = prompts_server(pkg)
    assert run(server.handle(request("no/such", id="a")))["error"] == {
        "code": -32601,
        "message": "Method not found: no/such",
    }
    # A client→server method the subclass does not override, and a server→client method.
    assert run(server.handle(request("resources/list")))["error"]["code"] == -32601
    wrong_way = run(
        server.handle(request("sampling/createMessage", {"messages": [], "maxTokens": 1}))
    )
    assert wrong_way["error"]["code"] == -32601
    assert run(server.handle({"jsonrpc": "2.0", "method": "notifications/unknown"})) is None


def test_invalid_params_carry_validation_details(pkg: ModuleType) -> None:
    reply = run(prompts_server(pkg).handle(request("prompts/get", {"arguments": {}}, id=3)))
    assert reply["id"] == 3 and reply["error"]["code"] == -32602
    assert {"loc": ["params", "name"], "msg": "Field required", "type": "missing"} in reply[
        "error"
    ]["data"]


def test_handler_protocol_error_is_passed_on(pkg: ModuleType) -> None:
    reply = run(prompts_server(pkg).handle(json.dumps(request("prompts/get", {"name": "nope"}))))
    assert reply["error"] == {
        "code": -32602,
        "message": "Unknown prompt: nope",
        "data": {"name": "nope"},
    }


def test_failing_handler_is_internal_error_without_details(
    pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    server = prompts_server(pkg)
    with caplog.at_level(logging.ERROR):
        reply = run(server.handle(request("tools/call", {"name": "boom"}, id=9)))
    assert reply == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32603, "message": "Internal error"},
    }
    assert "secret" not in json.dumps(reply) and "Traceback" not in json.dumps(reply)
    assert "RuntimeError: secret at /srv/app/internal.py" in caplog.text
    with caplog.at_level(logging.ERROR):
        invalid = run(server.handle(request("tools/call", {"name": "bad-result"}, id=10)))
    assert invalid["error"] == {"code": -32603, "message": "Internal error"}
    # the reason is logged, once, and never sent
    assert caplog.text.count("returned an invalid tools/call result") == 1


def test_a_handler_s_internal_error_is_logged_and_answered_without_its_words(
    pkg: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    class Failing(prompts_server(pkg).__class__):  # type: ignore[misc]
        async def on_call_tool(self, params: Any) -> Any:
            raise pkg.ProtocolError(-32603, "database at 10.0.0.5 is down")

    with caplog.at_level(logging.ERROR):
        reply = run(Failing().handle(request("tools/call", {"name": "x"}, id=11)))
    assert reply["error"] == {"code": -32603, "message": "Internal error"}
    assert "10.0.0.5" not in json.dumps(reply)
    assert caplog.text.count("database at 10.0.0.5 is down") == 1


def test_success_and_ping(pkg: ModuleType) -> None:
    server = prompts_server(pkg)
    assert run(server.handle(request("prompts/list", id="x"))) == {
        "jsonrpc": "2.0",
        "id": "x",
        "result": {"prompts": [{"name": "code_review"}]},
    }
    assert run(server.handle(request("ping", id=0))) == {"jsonrpc": "2.0", "id": 0, "result": {}}
    assert run(server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})) is None


def test_initialize_derives_capabilities(pkg: ModuleType) -> None:
    types = pkg.types

    class Full(pkg.Server):  # type: ignore[misc,name-defined]
        name = "full"
        version = "1"
        instructions = "Use the prompts."

        async def on_list_prompts(self, params: Any) -> Any: ...
        async def on_subscribe(self, params: Any) -> Any: ...
        async def on_set_level(self, params: Any) -> Any: ...
        async def on_complete(self, params: Any) -> Any: ...
        async def on_list_tasks(self, params: Any) -> Any: ...

    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "0"},
    }
    result = run(Full().handle(request("initialize", params)))["result"]
    assert result == {
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "prompts": {},
            "resources": {"subscribe": True},
            "logging": {},
            "completions": {},
            "tasks": {"list": {}},
        },
        "serverInfo": {"name": "full", "version": "1"},
        "instructions": "Use the prompts.",
    }

    class Declared(Full):
        capabilities = types.ServerCapabilities(
            tools=types.ServerCapabilitiesTools(listChanged=True)
        )

    declared = run(Declared().handle(request("initialize", params)))["result"]["capabilities"]
    assert declared == {"tools": {"listChanged": True}}


def test_many_requests_in_flight(pkg: ModuleType) -> None:
    async def scenario() -> list[Any]:
        server = prompts_server(pkg)
        type(server).gate = asyncio.Event()
        calls = [
            asyncio.ensure_future(server.handle(request("tools/call", {"name": f"t{i}"}, id=i)))
            for i in range(50)
        ]
        while server.running < 50:
            await asyncio.sleep(0.01)
        type(server).gate.set()
        return await asyncio.gather(*calls)

    replies = run(scenario())
    assert [r["result"]["content"][0]["text"] for r in replies] == [f"t{i}" for i in range(50)]
    assert [r["id"] for r in replies] == list(range(50))


def test_handlers_see_the_id_of_the_request_they_answer(pkg: ModuleType) -> None:
    runtime = importlib.import_module(f"{pkg.__name__}.runtime")
    types = pkg.types

    class Echo(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            await asyncio.sleep(0.01 * (5 - int(params.name)))
            seen = repr(runtime.REQUEST_ID.get())
            return types.CallToolResult(content=[types.TextContent(type="text", text=seen)])

    async def scenario() -> list[Any]:
        server = Echo()
        ids: list[Any] = [0, "a", 2, "b", 4]
        calls = [server.handle(request("tools/call", {"name": str(i)}, id=ids[i])) for i in range(5)]
        return [*await asyncio.gather(*calls), runtime.REQUEST_ID.get()]

    *replies, outside = run(scenario())
    assert [r["result"]["content"][0]["text"] for r in replies] == ["0", "'a'", "2", "'b'", "4"]
    assert outside is None


def test_cancelled_notification_cancels_the_handler(pkg: ModuleType) -> None:
    async def scenario() -> tuple[Any, Any, Any]:
        server = prompts_server(pkg)
        type(server).gate = asyncio.Event()
        type(server).cancelled = []
        slow = asyncio.ensure_future(
            server.handle(request("tools/call", {"name": "slow"}, id="s1"))
        )
        other = asyncio.ensure_future(
            server.handle(request("tools/call", {"name": "other"}, id="s2"))
        )
        while server.running < 2:
            await asyncio.sleep(0.01)
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": "s1", "reason": "user"},
        }
        assert await server.handle(note) is None
        reply = await slow
        type(server).gate.set()
        return reply, await other, server.cancelled

    reply, other, cancelled = run(scenario())
    assert reply is None and cancelled == ["slow"]
    assert other["result"]["content"][0]["text"] == "other"


class Loopback:
    """A channel that hands each outgoing message straight to the other peer's `handle`."""

    def __init__(self, peer: Any, pkg: ModuleType) -> None:
        self.peer, self.pkg, self.ids, self.sent = peer, pkg, 0, []

    async def request(self, method: str, params: Any) -> Any:
        self.ids += 1
        message = request(method, params, id=self.ids)
        self.sent.append(message)
        reply = await self.peer.handle(message)
        if "error" in reply:
            raise self.pkg.ProtocolError(
                reply["error"]["code"], reply["error"]["message"], reply["error"].get("data")
            )
        return reply["result"]

    async def notify(self, method: str, params: Any) -> None:
        message = {
            "jsonrpc": "2.0",
            "method": method,
            **({"params": params} if params is not None else {}),
        }
        self.sent.append(message)
        await self.peer.handle(message)


def test_typed_calls_both_ways_without_name_clashes(pkg: ModuleType) -> None:
    types = pkg.types
    seen: list[Any] = []

    class Roots(pkg.Client):  # type: ignore[misc,name-defined]
        async def on_list_roots(self, params: Any) -> Any:
            return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

        async def on_progress(self, params: Any) -> None:
            seen.append(params)

    async def scenario() -> tuple[Any, ...]:
        server, client = prompts_server(pkg), Roots()
        client.attach(Loopback(server, pkg))
        server.attach(Loopback(client, pkg))
        init = await client.start_session()
        prompts = await client.list_prompts()
        pong, back = await client.ping(), await server.ping()
        roots = await server.list_roots()
        await server.notify_progress({"progressToken": "p", "progress": 1})
        with pytest.raises(pkg.ProtocolError) as unknown:
            await client.get_prompt({"name": "nope"})
        with pytest.raises(pkg.ProtocolError) as missing:
            await server.create_message({"messages": [], "maxTokens": 5})
        return init, prompts, pong, back, roots, unknown.value, missing.value

    init, prompts, pong, back, roots, unknown, missing = run(scenario())
    assert isinstance(init, types.InitializeResult) and init.capabilities.prompts is not None
    assert isinstance(prompts, types.ListPromptsResult) and prompts.prompts[0].name == "code_review"
    assert isinstance(pong, types.EmptyResult) and isinstance(back, types.EmptyResult)
    assert roots.roots[0].uri == "file:///work"
    assert seen[0].progress == 1
    assert (unknown.code, unknown.data) == (-32602, {"name": "nope"})
    assert missing.code == -32601
    assert Roots().initialize_params().capabilities.model_dump(exclude_none=True) == {"roots": {}}


def test_invalid_result_from_the_peer_is_rejected(pkg: ModuleType) -> None:
    class Liar:
        async def request(self, method: str, params: Any) -> Any:
            return {"prompts": "not a list"}

        async def notify(self, method: str, params: Any) -> None: ...

    client = type("Plain", (pkg.Client,), {})()
    client.attach(Liar())
    with pytest.raises(pkg.ProtocolError) as error:
        run(client.list_prompts())
    assert error.value.message == "Invalid result for prompts/list"


def test_batch_where_the_revision_allows_it(pkgs: Callable[[str], ModuleType]) -> None:
    old = pkgs("2025-03-26")

    class Pinger(old.Server):  # type: ignore[misc,name-defined]
        pass

    replies = run(
        Pinger().handle(
            [
                request("ping", id=1),
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                request("x/y", id=2),
            ]
        )
    )
    assert replies == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found: x/y"}},
    ]


def test_2026_discover_and_per_request_meta(pkgs: Callable[[str], ModuleType]) -> None:
    new = pkgs("2026-07-28")
    types = new.types

    class Tools(new.Server):  # type: ignore[misc,name-defined]
        name = "stateless"
        version = "3"

        async def on_list_tools(self, params: Any) -> Any:
            assert params.meta.io_modelcontextprotocol_protocol_version == "2026-07-28"
            return types.ListToolsResult(
                tools=[], resultType="complete", cacheScope="public", ttlMs=0
            )

    async def scenario() -> tuple[Any, Any, Any]:
        server, client = Tools(), new.Client()
        channel = Loopback(server, new)
        client.attach(channel)
        return await client.start_session(), await client.list_tools(), channel.sent

    discovered, tools, sent = run(scenario())
    assert isinstance(discovered, types.DiscoverResult)
    assert discovered.supported_versions == ["2026-07-28"]
    assert discovered.capabilities.model_dump(exclude_none=True) == {"tools": {}}
    assert tools.tools == []
    assert sent[1]["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] == {
        "name": "mcp-client",
        "version": "0.0.0",
    }
    assert "initialize" not in new.Server.handlers
    # sampling travels inside input-required results in 2026-07-28: the client answers it with its
    # own handler when a result asks for it, never as a request on the wire
    assert new.Client.handlers["sampling/createMessage"] == "on_create_message"
    assert new.METHODS["sampling/createMessage"].embedded


TASK = {
    "taskId": "t-1",
    "status": "working",
    "createdAt": "2025-11-25T00:00:00Z",
    "lastUpdatedAt": "2025-11-25T00:00:00Z",
    "ttl": 60000,
}


def test_task_augmented_requests_answer_and_receive_create_task_result(pkg: ModuleType, schema_dir: Path) -> None:
    from mcpgen.messages.upstream import upstream

    types = pkg.types

    class Tasks(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            if params.task is not None:
                return types.CreateTaskResult(task=TASK)
            return types.CallToolResult(content=[types.TextContent(text="now")])

    server = Tasks()
    reply = run(server.handle(request("tools/call", {"name": "slow", "task": {"ttl": 60000}}, id=3)))
    assert reply == {"jsonrpc": "2.0", "id": 3, "result": {"task": TASK}}
    schema = upstream(schema_dir, "2025-11-25")
    assert schema.issue("CreateTaskResult", reply["result"]) is None
    client = type("C", (pkg.Client,), {})()
    client.attach(Loopback(server, pkg))
    created = run(client.call_tool({"name": "slow", "task": {"ttl": 60000}}))
    immediate = run(client.call_tool({"name": "fast"}))
    assert isinstance(created, types.CreateTaskResult) and created.task.task_id == "t-1"
    assert isinstance(immediate, types.CallToolResult)


def test_2026_requests_declaring_an_unsupported_version_get_the_schema_error(
    pkgs: Callable[[str], ModuleType], schema_dir: Path
) -> None:
    from mcpgen.messages.upstream import upstream

    new = pkgs("2026-07-28")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "v999.0.0",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    reply = run(type("S", (new.Server,), {})().handle(request("server/discover", {"_meta": meta}, id=9)))
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"] == {"supported": ["2026-07-28"], "requested": "v999.0.0"}
    assert upstream(schema_dir, "2026-07-28").issue("UnsupportedProtocolVersionError", reply) is None
    meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
    answer = run(type("S", (new.Server,), {})().handle(request("server/discover", {"_meta": meta}, id=10)))
    assert upstream(schema_dir, "2026-07-28").issue("DiscoverResultResponse", answer) is None
