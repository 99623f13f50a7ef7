"""Multi-revision packages: negotiation, version gates, conversion (fills, strips, drops, policies), both eras."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from mcpgen.cli import main
from mcpgen.commands.generate import GenerateConfig, generate
from shared import REVISIONS, load_package, wire_problems

LEGACY = REVISIONS[:-1]


@pytest.fixture(scope="module")
def multi(schema_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], ModuleType]:
    """Multi-revision packages by key: `all26` (every revision, surface 2026-07-28), `all25` (surface
    2025-11-25) and `legacy` (2024-11-05..2025-11-25)."""
    root = tmp_path_factory.mktemp("multi")
    specs = {
        "all26": ("2024-11-05..2026-07-28", None),
        "all25": ("2024-11-05..2026-07-28", "2025-11-25"),
        "legacy": ("2024-11-05..2025-11-25", None),
    }
    for key, (revision, surface) in specs.items():
        generate(GenerateConfig(revision=revision, surface=surface, output=root / key, schema_dir=schema_dir))
    return lambda key: load_package(root / key, f"multi_{key}")


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 20))


class Link:
    """An in-memory connection: each side's outgoing messages go to the other's `handle`, all recorded."""

    def __init__(self, client: Any, server: Any, client_error: type, server_error: type) -> None:
        self.wire: list[dict[str, Any]] = []
        client.attach(_Side(self, server, client_error))
        server.attach(_Side(self, client, server_error))


class _Side:
    def __init__(self, link: Link, peer: Any, error: type) -> None:
        self.link, self.peer, self.error = link, peer, error

    async def request(self, method: str, params: Any) -> Any:
        message = {"jsonrpc": "2.0", "id": len(self.link.wire) + 1, "method": method}
        if params is not None:
            message["params"] = params
        self.link.wire.append(json.loads(json.dumps(message)))
        reply = await self.peer.handle(message)
        self.link.wire.append(reply)
        if "error" in reply:
            raise self.error(reply["error"]["code"], reply["error"]["message"], reply["error"].get("data"))
        return reply["result"]

    async def notify(self, method: str, params: Any) -> None:
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        self.link.wire.append(json.loads(json.dumps(message)))
        await self.peer.handle(message)


def tools_server(pkg: ModuleType) -> Any:
    """A server on `pkg`'s surface with a tool answering text and, where it can, a resource link (new in 2025-06-18)."""
    t = pkg.types
    extra: dict[str, Any] = {"cacheScope": "public", "ttlMs": 1000} if "CacheableResult" in dir(t) else {}

    class Tools(pkg.Server):  # type: ignore[misc,name-defined]
        name = "multi"
        version = "1.0"

        async def on_list_tools(self, params: Any) -> Any:
            return t.ListToolsResult(tools=[t.Tool(name="echo", inputSchema={"type": "object"})], **extra)

        async def on_call_tool(self, params: Any) -> Any:
            blocks = [t.TextContent(text=f"{params.name} in {self.protocol_version}")]
            if "ResourceLink" in dir(t):
                blocks.append(t.ResourceLink(name="r", uri="file:///r"))
            return t.CallToolResult(content=blocks)

    return Tools()


def test_layout_and_exports(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("all26")
    assert pkg.SUPPORTED_VERSIONS == REVISIONS and pkg.SURFACE_VERSION == "2026-07-28"
    assert pkg.types.TextContent is pkg.v2026_07_28.types.TextContent
    assert pkg.v2024_11_05.PROTOCOL_VERSION == "2024-11-05"
    assert pkg.v2024_11_05.METHODS["initialize"].message is pkg.v2024_11_05.types.InitializeRequest
    assert all(hasattr(pkg, name) for name in ("Server", "Client", "ProtocolError", "negotiate", "stdio"))
    root = Path(pkg.__file__).parent
    assert sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "runtime",
        *("v" + r.replace("-", "_") for r in REVISIONS),
    ]
    assert not list(root.glob("v*/runtime")) and not list(root.glob("v*/stdio.py"))  # one shared runtime


def test_negotiate(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("legacy")
    assert pkg.negotiate("2025-03-26") == "2025-03-26"
    assert pkg.negotiate("1999-01-01") == "2025-11-25"


@pytest.mark.parametrize("requested, expected", [*((r, r) for r in LEGACY), ("1999-01-01", "2025-11-25"), ("2026-07-28", "2025-11-25")])
def test_initialize_answers_the_negotiated_legacy_version(
    multi: Callable[[str], ModuleType], schema_dir: Path, requested: str, expected: str
) -> None:
    server = tools_server(multi("all26"))
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}},
    }
    reply = run(server.handle(message))
    assert reply["result"]["protocolVersion"] == expected
    if requested == expected:
        assert wire_problems(schema_dir, expected, [message, reply]) == []
    assert set(reply["result"]["capabilities"]) == {"tools"}


def test_capabilities_are_declared_only_where_the_version_defines_them(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("legacy")

    class WithTasks(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_list_tasks(self, params: Any) -> Any:
            return pkg.types.ListTasksResult(tasks=[])

    def capabilities(version: str) -> set[str]:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        reply = run(WithTasks().handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
        return set(reply["result"]["capabilities"])

    assert capabilities("2025-11-25") == {"tasks"}
    assert capabilities("2025-06-18") == set()  # 2025-06-18 has no tasks capability to declare


def initialized(pkg: ModuleType, server: Any, version: str) -> None:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    run(server.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}))


def test_a_method_the_session_version_lacks_is_not_found(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("legacy")

    class WithTasks(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_get_task(self, params: Any) -> Any:
            raise AssertionError("never called in a 2025-06-18 session")

    server = WithTasks()
    initialized(pkg, server, "2025-06-18")
    reply = run(server.handle({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t"}}))
    assert reply["error"]["code"] == -32601
    sent: list[Any] = []

    class Recorder:
        async def request(self, method: str, params: Any) -> Any:
            sent.append(method)

        async def notify(self, method: str, params: Any) -> None:
            sent.append(method)

    old = tools_server(pkg)
    old.attach(Recorder())
    initialized(pkg, old, "2024-11-05")
    with pytest.raises(pkg.ProtocolError) as error:
        run(old.elicit({"mode": "form", "message": "?", "requestedSchema": {"type": "object", "properties": {}}}))
    assert error.value.code == -32601 and "2024-11-05" in error.value.message and sent == []


@pytest.mark.parametrize("surface", ["all26", "all25"])
@pytest.mark.parametrize("revision", REVISIONS)
def test_every_revision_talks_to_one_server_and_the_wire_is_valid(
    multi: Callable[[str], ModuleType],
    packages: dict[str, ModuleType],
    schema_dir: Path,
    surface: str,
    revision: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client of each single-revision package against one multi-revision server: every message on the
    wire is valid in the client's revision (jsonschema, upstream schema), and the client gets its types."""
    pkg, single = multi(surface), packages[revision]
    server, client = tools_server(pkg), type("C", (single.Client,), {})()
    link = Link(client, server, single.ProtocolError, pkg.ProtocolError)
    caplog.set_level(logging.WARNING)

    async def talk() -> tuple[Any, Any]:
        await client.start_session()
        return await client.list_tools(), await client.call_tool({"name": "echo"})

    tools, called = run(talk())
    assert [tool.name for tool in tools.tools] == ["echo"]
    assert called.content[0].text == f"echo in {revision}"
    assert wire_problems(schema_dir, revision, link.wire) == []
    lost = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    if revision < "2025-06-18":  # resource links came in 2025-06-18
        assert len(called.content) == 1 and lost == [
            f"result of tools/call: dropped /content/1, which protocol version {revision} cannot represent"
        ]
    else:
        assert len(called.content) == 2 and lost == []


def test_fills_and_strips_follow_the_schemas(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], schema_dir: Path
) -> None:
    legacy_surface = multi("all25")
    server = tools_server(legacy_surface)  # its results know nothing of 2026's resultType, ttlMs, cacheScope
    new = packages["2026-07-28"]
    client = type("C", (new.Client,), {})()
    link = Link(client, server, new.ProtocolError, legacy_surface.ProtocolError)
    run(client.start_session())
    listed = run(client.list_tools())
    assert (listed.result_type, listed.cache_scope, listed.ttl_ms) == ("complete", "private", 0)
    assert wire_problems(schema_dir, "2026-07-28", link.wire) == []

    class Generous(legacy_surface.Server):  # type: ignore[misc,name-defined]
        result_defaults = {"ttlMs": 60000, "cacheScope": "public"}
        on_list_tools = type(server).on_list_tools

    link = Link(client, Generous(), new.ProtocolError, legacy_surface.ProtocolError)
    listed = run(client.list_tools())
    assert (listed.cache_scope, listed.ttl_ms) == ("public", 60000)
    modern_surface, old = multi("all26"), packages["2025-06-18"]
    client = type("C", (old.Client,), {})()
    link = Link(client, tools_server(modern_surface), old.ProtocolError, modern_surface.ProtocolError)
    run(client.start_session())
    run(client.list_tools())
    answer = link.wire[-1]["result"]
    assert set(answer) == {"tools"}  # 2026's resultType, ttlMs and cacheScope are left out for 2025-06-18


def test_strict_policy_refuses_instead_of_dropping(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], caplog: pytest.LogCaptureFixture
) -> None:
    pkg, old = multi("all26"), packages["2024-11-05"]
    server = tools_server(pkg)
    type(server).conversion_policy = "strict"
    client = type("C", (old.Client,), {})()
    Link(client, server, old.ProtocolError, pkg.ProtocolError)
    run(client.start_session())
    with pytest.raises(old.ProtocolError) as error:
        run(client.call_tool({"name": "echo"}))
    assert error.value.code == -32603 and error.value.message == "Internal error"
    assert any("cannot represent /content/1" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)


def test_newer_content_from_a_peer_is_dropped_not_fatal(
    multi: Callable[[str], ModuleType], caplog: pytest.LogCaptureFixture
) -> None:
    """A server that sends 2025-06-18 resource links in a 2024-11-05 session (server-everything does)."""
    pkg = multi("legacy")
    answers = {
        "initialize": {"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}},
        "tools/call": {"content": [{"type": "text", "text": "ok"}, {"type": "resource_link", "uri": "file:///x", "name": "x"}]},
    }

    class Server:
        async def request(self, method: str, params: Any) -> Any:
            if method not in answers:
                raise pkg.ProtocolError(-32601, "Method not found")
            return answers[method]

        async def notify(self, method: str, params: Any) -> None: ...

    client = type("C", (pkg.Client,), {})()
    client.attach(Server())
    run(client.start_session())
    assert client.protocol_version == "2024-11-05"
    result = run(client.call_tool({"name": "x"}))
    assert [block.type for block in result.content] == ["text"]
    assert any("dropped /content/1" in r.getMessage() for r in caplog.records)
    type(client).conversion_policy = "strict"
    with pytest.raises(pkg.ProtocolError):
        run(client.call_tool({"name": "x"}))


def test_modern_requests_are_versioned_one_by_one_beside_a_legacy_session(
    multi: Callable[[str], ModuleType], schema_dir: Path
) -> None:
    pkg = multi("all25")
    server = tools_server(pkg)
    initialized(pkg, server, "2025-06-18")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    modern = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "_meta": meta}}
    reply = run(server.handle(modern))
    assert reply["result"]["content"][0]["text"] == "echo in 2026-07-28"
    assert wire_problems(schema_dir, "2026-07-28", [modern, reply]) == []
    legacy = {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo"}}
    assert run(server.handle(legacy))["result"]["content"][0]["text"] == "echo in 2025-06-18"
    meta["io.modelcontextprotocol/protocolVersion"] = "2099-12-31"
    refused = run(server.handle({**modern, "id": 7}))
    assert refused["error"]["code"] == -32022
    assert refused["error"]["data"] == {"supported": list(reversed(REVISIONS)), "requested": "2099-12-31"}


def test_a_modern_surface_asks_legacy_clients_for_input_over_the_session(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], schema_dir: Path
) -> None:
    pkg, old = multi("all26"), packages["2025-11-25"]
    t = pkg.types

    class Asks(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            if not params.input_responses:
                form = {"type": "object", "properties": {"name": {"type": "string"}}}
                return t.InputRequiredResult(
                    inputRequests={"who": {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": form}}},
                    requestState="round-1",
                )
            answer = params.input_responses["who"].model_dump(by_alias=True, exclude_unset=True)
            return t.CallToolResult(content=[t.TextContent(text=f"hello {answer['content']['name']} ({params.request_state})")])

    class Answers(old.Client):  # type: ignore[misc,name-defined]
        async def on_elicit(self, params: Any) -> Any:
            return old.types.ElicitResult(action="accept", content={"name": "Ada"})

    client = Answers()
    link = Link(client, Asks(), old.ProtocolError, pkg.ProtocolError)
    run(client.start_session())
    result = run(client.call_tool({"name": "greet"}))
    assert result.content[0].text == "hello Ada (round-1)"
    assert [m.get("method") for m in link.wire if "method" in m][-2:] == ["tools/call", "elicitation/create"]
    assert wire_problems(schema_dir, "2025-11-25", link.wire) == []


@pytest.mark.parametrize("server_revision", ["2026-07-28", "2025-06-18", "2024-11-05"])
def test_a_dual_era_client_finds_each_server_s_era(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], schema_dir: Path, server_revision: str
) -> None:
    pkg, single = multi("all25"), packages[server_revision]
    client = type("C", (pkg.Client,), {})()
    link = Link(client, tools_server(single), pkg.ProtocolError, single.ProtocolError)
    handshake = run(client.start_session())
    assert client.protocol_version == server_revision
    assert isinstance(handshake, pkg.types.InitializeResult)  # the surface's handshake type, whatever the era
    assert run(client.call_tool({"name": "echo"})).content[0].text == f"echo in {server_revision}"
    methods = [m["method"] for m in link.wire if "method" in m]
    assert methods[0] == "server/discover"
    if server_revision != "2026-07-28":
        assert methods[1:3] == ["initialize", "notifications/initialized"]
        assert wire_problems(schema_dir, server_revision, link.wire[2:]) == []  # after the probe
    else:
        assert wire_problems(schema_dir, server_revision, link.wire) == []


def test_no_shared_version_is_one_clear_error(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("legacy")

    class Future:
        async def request(self, method: str, params: Any) -> Any:
            return {"protocolVersion": "2099-01-01", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}

        async def notify(self, method: str, params: Any) -> None: ...

    client = type("C", (pkg.Client,), {})()
    client.attach(Future())
    with pytest.raises(pkg.ProtocolError) as error:
        run(client.start_session())
    assert "2099-01-01" in error.value.message and "2024-11-05" in error.value.message


def test_docstrings_say_where_a_surface_feature_has_no_counterpart(multi: Callable[[str], ModuleType]) -> None:
    pkg = multi("legacy")
    assert "2024-11-05, 2025-03-26, 2025-06-18" in (pkg.Server.on_get_task.__doc__ or "")
    assert "Raises ProtocolError (-32601) in sessions of protocol version 2024-11-05" in (pkg.Server.elicit.__doc__ or "")
    assert "Never called" not in (pkg.Server.on_call_tool.__doc__ or "")


def test_command_line(schema_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    done = runner.invoke(main, ["-r", "2025-11-25,2024-11-05", "--schema-dir", str(schema_dir)])
    assert done.exit_code == 0 and Path("mcp_2024_11_05_to_2025_11_25/v2024_11_05/types.py").is_file()
    head = Path("mcp_2024_11_05_to_2025_11_25/__init__.py").read_text("utf-8")
    assert "# MCP revisions: 2024-11-05, 2025-11-25" in head and "# Surface revision: 2025-11-25" in head
    checked = runner.invoke(main, ["check", "mcp_2024_11_05_to_2025_11_25", "--schema-dir", str(schema_dir)])
    assert checked.exit_code == 0, checked.output + checked.stderr
    edited = Path("mcp_2024_11_05_to_2025_11_25/v2024_11_05/methods.py")
    edited.write_text(edited.read_text("utf-8") + "# edited\n", "utf-8")
    stale = runner.invoke(main, ["check", "mcp_2024_11_05_to_2025_11_25", "--schema-dir", str(schema_dir)])
    assert stale.exit_code == 1 and "+# edited" not in stale.output and "-# edited" in stale.output
    for args, needle in [
        (["-r", "2025-11-25..2024-11-05"], "runs backwards"),
        (["-r", "2024-11-05,2025-06-18", "--surface", "2026-07-28"], "is not one of the package's revisions"),
        (["-r", "2024-11-05,2025-06-18", "--schema", str(schema_dir / "2025-06-18" / "schema.json")], "--schema reads one schema"),
    ]:
        failed = runner.invoke(main, [*args, "-o", str(tmp_path / "x"), "--schema-dir", str(schema_dir)])
        assert failed.exit_code == 2 and needle in failed.stderr and failed.stderr.startswith("mcpgen: error: "), failed.stderr


@pytest.mark.parametrize("revision, declared", [("2025-11-25", {"form": {}, "url": {}}), ("2025-06-18", {})])
def test_capabilities_are_projected_at_every_level(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], revision: str, declared: dict[str, Any]
) -> None:
    """URL elicitation is a 2025-11-25 sub-capability: a 2025-06-18 server must not hear of it."""
    pkg, single = multi("legacy"), packages[revision]
    caps = pkg.types.ClientCapabilities.model_validate({"elicitation": {"form": {}, "url": {}}, "roots": {}})
    client = type("C", (pkg.Client,), {"capabilities": caps, "preferred_version": revision})()
    link = Link(client, type("S", (single.Server,), {})(), pkg.ProtocolError, single.ProtocolError)
    run(client.start_session())
    sent = link.wire[0]["params"]["capabilities"]
    assert sent == {"elicitation": declared, "roots": {}}


def test_a_legacy_session_s_meta_reaches_modern_handlers_as_one_validated_model(multi: Callable[[str], ModuleType]) -> None:
    """The `_meta` a session stands for is validated once and handed to every request's params as the
    model instance (pydantic takes it as it is), not merged and validated again per request; it is
    frozen, so one request's handler cannot change it for the next."""
    pkg = multi("all26")
    from mcpgen.runtime.server import _meta_model

    assert _meta_model(pkg.REVISIONS.surface, "tools/call") is pkg.types.RequestMetaObject
    seen: list[Any] = []

    class Tools(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            seen.append(params.meta)
            params.meta.io_modelcontextprotocol_log_level = "debug"  # shared by the session: refused
            return pkg.types.CallToolResult(content=[])

    target = Tools()
    initialized(pkg, target, "2025-11-25")
    for i in (2, 3):
        reply = run(target.handle({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "t"}}))
        assert reply["error"]["code"] == -32603
    assert all(isinstance(m, pkg.types.RequestMetaObject) for m in seen) and seen[0] is seen[1]
    assert seen[1].io_modelcontextprotocol_protocol_version == "2025-11-25"
    assert seen[1].io_modelcontextprotocol_log_level is None


def test_a_modern_surface_reads_a_legacy_session_s_log_level_from_meta(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], schema_dir: Path
) -> None:
    """2026-07-28 replaced `logging/setLevel` with a per-request `_meta` log level: a session's set-level
    request is answered by the runtime and its level reaches the handlers of the session's later requests."""
    pkg, old = multi("all26"), packages["2025-11-25"]
    t = pkg.types
    levels: list[Any] = []

    class Logs(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            level = params.meta.io_modelcontextprotocol_log_level
            levels.append(level)
            if level is not None:  # 2026-07-28: no log messages for a request that set no level
                await self.notify_logging_message({"level": "warning", "data": "ran"})
            return t.CallToolResult(content=[])

    logged: list[Any] = []

    class Listens(old.Client):  # type: ignore[misc,name-defined]
        async def on_logging_message(self, params: Any) -> None:
            logged.append(params.data)

    client = Listens()
    link = Link(client, Logs(), old.ProtocolError, pkg.ProtocolError)
    run(client.start_session())
    run(client.call_tool({"name": "t"}))
    assert run(client.set_level({"level": "warning"})).model_dump(exclude_unset=True) == {}
    run(client.call_tool({"name": "t"}))
    assert levels == [None, "warning"] and logged == ["ran"]
    assert wire_problems(schema_dir, "2025-11-25", link.wire) == []


class Recorder:
    """A channel that records what a server sends (its requests are not expected here)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError(f"unexpected request {method}")

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append(json.loads(json.dumps({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})))


def listen_request(request_id: int, notifications: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 `subscriptions/listen` request for `notifications`."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": {"_meta": meta, "notifications": notifications}}


def test_a_session_surface_serves_a_modern_client_s_listen_with_its_subscribe_handlers(
    multi: Callable[[str], ModuleType], schema_dir: Path
) -> None:
    """A 2025-11-25 surface has `resources/(un)subscribe`, 2026-07-28 clients `subscriptions/listen`: the
    runtime subscribes the listed URIs, acknowledges what it honours (list changes only where the
    capabilities declare them), sends the server's updates and list changes on the stream, naming it,
    drops what the stream did not ask for, and unsubscribes when the request ends."""
    pkg = multi("all25")
    t = pkg.types
    calls: list[tuple[str, str, str | None]] = []

    class Watches(pkg.Server):  # type: ignore[misc,name-defined]
        capabilities = t.ServerCapabilities(resources=t.ServerCapabilitiesResources(subscribe=True), tools=t.ServerCapabilitiesTools(listChanged=True))

        async def on_subscribe(self, params: Any) -> Any:
            calls.append(("subscribe", params.uri, self.protocol_version))
            if params.uri == "file:///missing":
                raise pkg.ProtocolError(-32002, "Resource not found")
            await self.notify_resource_updated({"uri": params.uri})  # before the acknowledgement: held back
            return t.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            calls.append(("unsubscribe", params.uri, self.protocol_version))
            return t.EmptyResult()

    server, channel = Watches(), Recorder()
    server.attach(channel)
    wanted = {"resourceSubscriptions": ["file:///a", "file:///missing"], "toolsListChanged": True, "promptsListChanged": True}

    async def scenario() -> Any:
        listening = asyncio.ensure_future(server.handle(listen_request(7, wanted)))
        await asyncio.sleep(0.05)
        await server.notify_tool_list_changed()
        await server.notify_prompt_list_changed()  # not honoured: no prompts capability
        await server.notify_resource_updated({"uri": "file:///a"})
        await server.notify_resource_updated({"uri": "file:///z"})  # watched by nobody
        await server.notify_resource_updated({"uri": "file:///a/part"})  # under a watched resource
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        return await listening

    assert run(scenario()) is None  # a cancelled request gets no answer
    stamp = {"io.modelcontextprotocol/subscriptionId": 7}
    assert channel.sent == [
        {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"_meta": stamp, "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}}},
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"_meta": stamp, "uri": "file:///a"}},
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": stamp}},
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"_meta": stamp, "uri": "file:///a"}},
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"_meta": stamp, "uri": "file:///a/part"}},
    ]
    assert calls == [
        ("subscribe", "file:///a", "2026-07-28"),
        ("subscribe", "file:///missing", "2026-07-28"),
        ("unsubscribe", "file:///a", "2026-07-28"),
    ]
    assert wire_problems(schema_dir, "2026-07-28", channel.sent) == []


def test_bridged_listen_streams_share_subscriptions_and_always_unsubscribe(multi: Callable[[str], ModuleType]) -> None:
    """Two streams watching one URI subscribe it once and unsubscribe it once, after the last ends,
    even when the transport ends a stream a second time while it unsubscribes; and a modern client
    of a session surface hears of list changes only on a listen stream that asked for them."""
    pkg = multi("all25")
    t = pkg.types
    calls: list[tuple[str, str]] = []

    class Watches(pkg.Server):  # type: ignore[misc,name-defined]
        capabilities = t.ServerCapabilities(tools=t.ServerCapabilitiesTools(listChanged=True))

        async def on_subscribe(self, params: Any) -> Any:
            await asyncio.sleep(0.02)
            calls.append(("subscribe", params.uri))
            return t.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            await asyncio.sleep(0.02)
            calls.append(("unsubscribe", params.uri))
            return t.EmptyResult()

        async def on_call_tool(self, params: Any) -> Any:
            await self.notify_tool_list_changed()
            return t.CallToolResult(content=[])

    server, channel = Watches(), Recorder()
    server.attach(channel)
    meta = listen_request(0, {})["params"]["_meta"]

    async def scenario() -> None:
        first = asyncio.ensure_future(server.handle(listen_request(1, {"resourceSubscriptions": ["file:///x", "file:///y"]})))
        second = asyncio.ensure_future(server.handle(listen_request(2, {"resourceSubscriptions": ["file:///x"]})))
        await asyncio.sleep(0.1)
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        await asyncio.sleep(0.1)
        assert calls[-1] == ("unsubscribe", "file:///y")  # x is still watched by the second stream
        reply = await server.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "_meta": meta}})
        assert "result" in reply
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        server._mcp.input_closed()  # the transport ends too, while the second stream unsubscribes
        await asyncio.gather(first, second)
        await asyncio.sleep(0.1)

    run(scenario())
    assert sorted(calls) == [("subscribe", "file:///x"), ("subscribe", "file:///y"), ("unsubscribe", "file:///x"), ("unsubscribe", "file:///y")]
    assert "notifications/tools/list_changed" not in [m["method"] for m in channel.sent]


def test_listen_streams_end_with_their_connection(multi: Callable[[str], ModuleType]) -> None:
    """A listen request runs until its client leaves: when the transport goes, the runtime ends it (and
    the session surface's bridge unsubscribes)."""
    pkg = multi("all25")
    ended: list[str] = []

    class Watches(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_subscribe(self, params: Any) -> Any:
            return pkg.types.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            ended.append(params.uri)
            return pkg.types.EmptyResult()

    server = Watches()
    server.attach(Recorder())

    async def scenario() -> Any:
        listening = asyncio.ensure_future(server.handle(listen_request(1, {"resourceSubscriptions": ["file:///a"]})))
        await asyncio.sleep(0.05)
        server.attach(None)
        return await listening

    assert run(scenario()) is None and ended == ["file:///a"]


def test_a_listen_handler_s_notifications_name_its_stream_which_ends_with_stdin(
    packages: dict[str, ModuleType], schema_dir: Path
) -> None:
    """2026-07-28: every notification on a listen stream carries its request id in `_meta`, added by the
    runtime; at the end of stdin the request is ended (it would otherwise keep the server running)."""
    new = packages["2026-07-28"]
    stdio = __import__(f"{new.__name__}.stdio", fromlist=["Connection"])
    ended: list[bool] = []

    class Watches(new.Server):  # type: ignore[misc,name-defined]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            await self.notify_subscriptions_acknowledged({"notifications": {"toolsListChanged": True}})
            await self.notify_tool_list_changed()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                ended.append(True)
                raise

    lines = [json.dumps(listen_request(3, {"toolsListChanged": True})).encode() + b"\n"]
    written: list[dict[str, Any]] = []

    async def readline() -> bytes:
        if lines:
            return lines.pop()
        await asyncio.sleep(0.05)
        return b""

    async def write(data: bytes) -> None:
        written.append(json.loads(data))

    server = Watches()
    connection = stdio.Connection(server, write)
    server.attach(connection)
    run(connection.run(readline))
    assert ended == [True]
    assert [m["params"]["_meta"] for m in written] == [{"io.modelcontextprotocol/subscriptionId": 3}] * 2
    assert wire_problems(schema_dir, "2026-07-28", written) == []


def test_a_modern_surface_serves_a_legacy_session_s_resource_subscriptions_with_its_listen_handler(
    multi: Callable[[str], ModuleType], packages: dict[str, ModuleType], schema_dir: Path
) -> None:
    """2026-07-28 replaced `resources/(un)subscribe` with `subscriptions/listen`: the runtime answers a
    session's (un)subscribe requests and runs the listen handler for the session's resources, again at
    each change; its notifications reach the client, except the acknowledgement 2025-11-25 lacks."""
    pkg, old = multi("all26"), packages["2025-11-25"]
    filters: list[tuple[str | None, list[str]]] = []
    ended: list[list[str]] = []

    class Watches(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            uris = list(params.notifications.resource_subscriptions or [])
            filters.append((self.protocol_version, uris))
            await self.notify_subscriptions_acknowledged({"notifications": {"resourceSubscriptions": uris}})
            for uri in uris:
                await self.notify_resource_updated({"uri": uri})
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                ended.append(uris)
                raise

    updated: list[str] = []

    class Subscribes(old.Client):  # type: ignore[misc,name-defined]
        async def on_resource_updated(self, params: Any) -> None:
            updated.append(params.uri)

    client, server = Subscribes(), Watches()
    link = Link(client, server, old.ProtocolError, pkg.ProtocolError)

    async def scenario() -> None:
        await client.start_session()
        for call, uri in [("subscribe", "file:///a"), ("subscribe", "file:///b"), ("unsubscribe", "file:///a")]:
            assert (await getattr(client, call)({"uri": uri})).model_dump(exclude_unset=True) == {}
            await asyncio.sleep(0.05)
        server.attach(None)  # the session ends: so does its listen handler
        await asyncio.sleep(0.05)

    run(scenario())
    assert filters == [("2025-11-25", ["file:///a"]), ("2025-11-25", ["file:///a", "file:///b"]), ("2025-11-25", ["file:///b"])]
    assert updated == ["file:///a", "file:///a", "file:///b", "file:///b"]
    assert ended == [uris for _, uris in filters]
    assert "notifications/subscriptions/acknowledged" not in [m.get("method") for m in link.wire if m]
    assert wire_problems(schema_dir, "2025-11-25", link.wire) == []

    plain = tools_server(pkg)  # no listen handler: nothing serves subscriptions
    initialized(pkg, plain, "2025-11-25")
    reply = run(plain.handle({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "file:///a"}}))
    assert reply["error"]["code"] == -32601
