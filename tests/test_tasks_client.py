"""A client awaiting a task (SEP-2663) over real Streamable HTTP: the typed `call_tool` returns the task
handle, `await_task` polls it to its result answering its input requests with the client's own handlers,
cancelling the wait cancels the task, and a task outlives the client that started it."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from httpserve import serve
from shared import EXTENDED, link_runtime
from task_support import task_server

TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture(scope="module")
def pkg(generated_root: Path) -> ModuleType:
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    return importlib.import_module(EXTENDED[2])


ASK = {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}


async def work(params: Any, ctx: Any) -> Any:
    """Sleep the `seconds` argument; the `ask` tool then asks for a name."""
    await asyncio.sleep(float((params.arguments or {}).get("seconds", 0)))
    if params.name == "ask":
        answers = await ctx.ask({"who": ASK})
        return {"content": [{"type": "text", "text": f"hello {answers['who']['content']['name']}"}]}
    return {"content": [{"type": "text", "text": f"{params.name} done"}]}


def client_class(pkg: ModuleType) -> type:
    class Waiting(pkg.Client):  # type: ignore[misc, name-defined]
        capabilities = {"elicitation": {}, "extensions": {TASKS: {}}}

        async def on_elicit(self, params: Any) -> Any:
            return pkg.types.ElicitResult.model_validate({"action": "accept", "content": {"name": "Ada"}})

    return Waiting


@pytest.fixture()
def served(pkg: ModuleType) -> Any:
    runner = importlib.import_module(f"{pkg.__name__}.runtime.tasks").TaskRunner(ttl_ms=60_000, poll_interval_ms=50)
    app = importlib.import_module(f"{pkg.__name__}.http").streamable_http_app(task_server(pkg, runner, work))
    with serve(app) as running:
        yield running, runner


def test_the_client_awaits_a_task_answering_its_input_requests(pkg: ModuleType, served: Any) -> None:
    running, _ = served
    http = importlib.import_module(f"{pkg.__name__}.http")
    tasks = importlib.import_module(f"{pkg.__name__}.ext.tasks")

    async def scenario() -> tuple[Any, Any, list[str]]:
        client = client_class(pkg)()
        seen: list[str] = []

        async def status(state: dict[str, Any]) -> None:
            seen.append(state["status"])

        async with http.connect_http(client, running.url):
            await client.start_session()
            handle = await client.call_tool({"name": "ask", "arguments": {"seconds": 0.05}})
            return handle, await client.await_task(handle, on_status=status), seen

    handle, result, seen = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert isinstance(handle, tasks.types.CreateTaskResult)
    assert isinstance(result, pkg.types.CallToolResult) and result.content[0].text == "hello Ada"
    assert "input_required" in seen and seen[-1] == "completed"


def test_cancelling_the_wait_cancels_the_task(pkg: ModuleType, served: Any) -> None:
    running, runner = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def scenario() -> str:
        client = client_class(pkg)()
        async with http.connect_http(client, running.url):
            await client.start_session()
            handle = await client.call_tool({"name": "slow", "arguments": {"seconds": 60}})
            waiting = asyncio.ensure_future(client.await_task(handle))
            await asyncio.sleep(0.3)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            task_id: str = handle.task_id
            return task_id

    task_id = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert running.run(runner.get(task_id))["status"] == "cancelled"


def test_a_task_outlives_the_client_that_started_it(pkg: ModuleType, served: Any) -> None:
    running, _ = served
    http = importlib.import_module(f"{pkg.__name__}.http")

    async def start() -> str:
        client = client_class(pkg)()
        async with http.connect_http(client, running.url):
            await client.start_session()
            task_id: str = (await client.call_tool({"name": "report", "arguments": {"seconds": 0.3}})).task_id
            return task_id

    async def resume(task_id: str) -> Any:
        client = client_class(pkg)()
        async with http.connect_http(client, running.url):
            await client.start_session()
            return await client.await_task(task_id)

    task_id = asyncio.run(asyncio.wait_for(start(), 30))
    result = asyncio.run(asyncio.wait_for(resume(task_id), 30))
    assert result.content[0].text == "report done"
