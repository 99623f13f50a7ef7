"""Task status notifications (SEP-2663 §Task Status Notifications) over real Streamable HTTP: a client
listening with `subscriptions/listen` `notifications.taskIds` hears `notifications/tasks` for each status
change of its own tasks (never another client's), valid against the ext-tasks schema as the suite's
pending `tasks-status-notifications` scenario describes them; `await_task(listen=True)` follows a task
through them without polling and falls back to polling where the server does not listen."""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema.validators import validator_for

from httpserve import serve
from shared import EXTENDED, link_runtime
from task_support import task_server

TASKS = "io.modelcontextprotocol/tasks"
TOKENS = {"alice-token": "alice", "bob-token": "bob"}
ASK = {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}


@pytest.fixture(scope="module")
def pkg(generated_root: Path) -> ModuleType:
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    return importlib.import_module(EXTENDED[2])


@pytest.fixture(scope="module")
def check_status(schema_dir: Path) -> Any:
    """Assert that wire params make a valid `TaskStatusNotification` of the upstream ext-tasks schema."""
    schema = json.loads((schema_dir / "extensions" / "tasks" / "schema.json").read_text("utf-8"))
    root = {**schema, "$ref": "#/$defs/TaskStatusNotification"}
    validator = validator_for(root)(root)

    def check(params: Any) -> None:
        message = {"jsonrpc": "2.0", "method": "notifications/tasks", "params": params}
        errors = sorted(validator.iter_errors(message), key=str)
        assert not errors, f"not a valid TaskStatusNotification: {params}\n{errors[0].message}"

    return check


async def work(params: Any, ctx: Any) -> Any:
    """Sleep the `seconds` argument; the `ask` tool then asks for a name, `fail` fails."""
    await asyncio.sleep(float((params.arguments or {}).get("seconds", 0)))
    if params.name == "ask":
        answers = await ctx.ask({"who": ASK})
        return {"content": [{"type": "text", "text": f"hello {answers['who']['content']['name']}"}]}
    if params.name == "fail":
        raise importlib.import_module(f"{EXTENDED[2]}.runtime.jsonrpc").ProtocolError(-32000, "it broke")
    return {"content": [{"type": "text", "text": f"{params.name} done"}]}


def client_class(pkg: ModuleType, declare: bool = True) -> type:
    class Listening(pkg.Client):  # type: ignore[misc, name-defined]
        capabilities = {"elicitation": {}, "extensions": {TASKS: {}} if declare else {}}

        async def on_elicit(self, params: Any) -> Any:
            return pkg.types.ElicitResult.model_validate({"action": "accept", "content": {"name": "Ada"}})

    return Listening


@pytest.fixture()
def served(pkg: ModuleType) -> Any:
    """A server whose tasks belong to the bearer token's subject, polling suggested only every 10 s."""
    auth = importlib.import_module(f"{pkg.__name__}.auth")

    async def verify(token: str) -> Any:
        return auth.AccessToken(token, subject=TOKENS[token]) if token in TOKENS else None

    def owner() -> str | None:
        found = auth.access_token()
        return found.subject if found is not None else None

    runner = importlib.import_module(f"{pkg.__name__}.runtime.tasks").TaskRunner(ttl_ms=60_000, poll_interval_ms=10_000)
    server = task_server(pkg, runner, work, owner)
    resource = auth.ResourceServer(verify, ["https://as.example"])
    app = importlib.import_module(f"{pkg.__name__}.http").streamable_http_app(server, auth=resource)
    with serve(app) as running:
        yield running, runner, server


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_await_task_hears_every_status_change_without_polling(pkg: ModuleType, served: Any, check_status: Any) -> None:
    running, _, server = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario() -> tuple[Any, list[Any], list[str], float]:
        client = client_class(pkg)()
        heard: list[Any] = []
        seen: list[str] = []

        async def status(state: dict[str, Any]) -> None:
            seen.append(state["status"])

        async with http.connect_http(client, running.url, headers=bearer("alice-token")):
            client._mcp.observers.setdefault("notifications/tasks", []).append(heard.append)
            await client.start_session()
            began = time.monotonic()
            handle = await client.call_tool({"name": "ask", "arguments": {"seconds": 0.2}})
            result = await client.await_task(handle, on_status=status, listen=True)
            return result, heard, seen, time.monotonic() - began

    result, heard, seen, elapsed = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert result.content[0].text == "hello Ada"
    assert server.gets == 0 and elapsed < 5  # the task suggested polling every 10 s
    statuses = iter([s["status"] for s in heard])
    assert all(status in statuses for status in seen)  # what the client saw, in the order heard
    assert heard[0]["status"] == "working" and "input_required" in seen and seen[-1] == "completed"
    for params in heard:
        check_status(params)
        assert params["_meta"]["io.modelcontextprotocol/subscriptionId"] is not None
    needs = next(p for p in heard if p["status"] == "input_required")
    assert needs["inputRequests"]["who"]["method"] == "elicitation/create"
    assert heard[-1]["result"]["content"][0]["text"] == "hello Ada"


def test_a_failed_task_is_heard_with_its_error(pkg: ModuleType, served: Any, check_status: Any) -> None:
    running, _, server = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario() -> tuple[int, list[Any]]:
        client = client_class(pkg)()
        heard: list[Any] = []
        async with http.connect_http(client, running.url, headers=bearer("alice-token")):
            client._mcp.observers.setdefault("notifications/tasks", []).append(heard.append)
            await client.start_session()
            handle = await client.call_tool({"name": "fail", "arguments": {"seconds": 0.1}})
            with pytest.raises(Exception) as failed:
                await client.await_task(handle, listen=True)
            return failed.value.code, heard

    code, heard = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert code == -32000 and server.gets == 0
    for params in heard:
        check_status(params)
    assert heard[-1]["status"] == "failed" and heard[-1]["error"]["message"] == "it broke"


def test_one_client_never_hears_reads_or_cancels_another_clients_task(pkg: ModuleType, served: Any) -> None:
    running, runner, _ = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario() -> tuple[Any, list[Any], list[int], list[Any]]:
        alice, bob = client_class(pkg)(), client_class(pkg)()
        acks: list[Any] = []
        heard: list[Any] = []
        async with http.connect_http(alice, running.url, headers=bearer("alice-token")), http.connect_http(
            bob, running.url, headers=bearer("bob-token")
        ):
            await alice.start_session()
            await bob.start_session()
            bob._mcp.observers.setdefault("notifications/subscriptions/acknowledged", []).append(acks.append)
            bob._mcp.observers.setdefault("notifications/tasks", []).append(heard.append)
            task_id = (await alice.call_tool({"name": "slow", "arguments": {"seconds": 0.3}})).task_id
            ended = await bob.subscriptions_listen({"notifications": {"taskIds": [task_id, "nonexistent"]}})
            codes = []
            for call in (bob.get_task, bob.cancel_task):
                with pytest.raises(Exception) as refused:
                    await call({"taskId": task_id})
                codes.append(refused.value.code)
            result = await alice.await_task(task_id, listen=True)
            return result, acks, codes, heard

    result, acks, codes, heard = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert [a["notifications"] for a in acks] == [{"taskIds": []}]  # bob's listen names none of them
    assert codes == [-32602, -32602] and heard == []
    assert result.content[0].text == "slow done"


def test_a_listener_that_did_not_declare_the_extension_gets_32021(pkg: ModuleType, served: Any) -> None:
    running, _, _ = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario() -> Any:
        client = client_class(pkg, declare=False)()
        async with http.connect_http(client, running.url, headers=bearer("alice-token")):
            await client.start_session()
            with pytest.raises(Exception) as refused:
                await client.subscriptions_listen({"notifications": {"taskIds": ["x"]}})
            return refused.value

    error = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert error.code == -32021
    assert TASKS in error.data["requiredCapabilities"]["extensions"]


def test_await_task_polls_when_the_server_does_not_listen_for_tasks(pkg: ModuleType) -> None:
    runner = importlib.import_module(f"{pkg.__name__}.runtime.tasks").TaskRunner(ttl_ms=60_000, poll_interval_ms=50)

    class Deaf(task_server(pkg, runner, work)):  # type: ignore[misc]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            await self.notify_subscriptions_acknowledged({"notifications": {}})
            await asyncio.sleep(60)

    app = importlib.import_module(f"{pkg.__name__}.http").streamable_http_app(Deaf)
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario(url: str) -> Any:
        client = client_class(pkg)()
        async with http.connect_http(client, url):
            await client.start_session()
            handle = await client.call_tool({"name": "slow", "arguments": {"seconds": 0.3}})
            return await client.await_task(handle, listen=True)

    with serve(app) as running:
        result = asyncio.run(asyncio.wait_for(scenario(running.url), 30))
    assert result.content[0].text == "slow done" and Deaf.gets >= 1


def test_a_final_state_heard_before_the_listen_ended_is_used_not_polled(pkg: ModuleType) -> None:
    """The race the test above lost now and then: the task completes, its status is heard, and the listen
    ends, all while the client answers the task's input requests; the heard state ends the wait."""
    tasks = importlib.import_module(f"{pkg.__name__}.runtime.tasks")
    client = client_class(pkg)()
    endpoint = client._mcp
    modern = endpoint.surface.modern
    done = {"taskId": "t", "status": "completed", "result": {"content": [{"type": "text", "text": "hello Ada"}]}}
    calls: list[str] = []
    listen_end: asyncio.Future[Any] | None = None

    async def call(method: str, params: Any) -> Any:
        nonlocal listen_end
        calls.append(method)
        if method == modern.listen:
            listen_end = asyncio.get_running_loop().create_future()
            return await listen_end
        if method == "tasks/update":  # meanwhile: the final status is heard, then the listen ends
            while listen_end is None:  # the listen request is on its way
                await asyncio.sleep(0)
            for hook in list(endpoint.observers.get(tasks.STATUS, [])):
                hook(done)
            listen_end.set_exception(ConnectionError("the SSE stream ended before the response arrived"))
            await asyncio.sleep(0)
            return {}
        return done  # tasks/get

    endpoint.call = call
    asking = {"taskId": "t", "status": "input_required", "pollIntervalMs": 10_000, "inputRequests": {"who": ASK}}

    async def scenario() -> Any:
        await asyncio.sleep(0)
        return await asyncio.wait_for(tasks.await_task(client, asking, listen=True), 5)

    result = asyncio.run(scenario())
    assert result.content[0].text == "hello Ada"
    assert sorted(calls) == sorted([modern.listen, "tasks/update"])  # no tasks/get
