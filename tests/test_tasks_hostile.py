"""A task-capable server of the package generated with the tasks extension faces the internet: any JSON
in any field of `tasks/get`, `tasks/update`, `tasks/cancel` (and their `_meta` declarations) gets a
JSON-RPC error or a correct answer, never an exception or a logged traceback, and a real task keeps
working afterwards."""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared import EXTENDED, link_runtime
from task_support import task_server

TASKS = "io.modelcontextprotocol/tasks"
CODES = {-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022}
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10
)
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
}


@pytest.fixture(scope="module")
def served(generated_root: Path) -> tuple[ModuleType, type, Any]:
    """The package, a server class whose tools start tasks on one shared runner, and that runner."""
    link_runtime(EXTENDED[2])  # as every test importing it does: one runtime for all
    pkg = importlib.import_module(EXTENDED[2])
    runner = importlib.import_module(f"{pkg.__name__}.runtime.tasks").TaskRunner(ttl_ms=60_000)

    async def work(params: Any, ctx: Any) -> Any:
        answers = await ctx.ask({"k": {"method": "roots/list", "params": {}}})
        return {"content": [{"type": "text", "text": str(sorted(answers))}]}

    return pkg, task_server(pkg, runner, work), runner


class Tracebacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.found.append(self.format(record))


def call(server: Any, method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    reply: dict[str, Any] = asyncio.run(server.handle({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
    return reply


def assert_error_or_answer(server: Any, method: str, params: Any) -> None:
    """`server` answers `method` with `params` by a result or one of the expected errors, logging no traceback."""
    catcher = Tracebacks()
    logging.getLogger().addHandler(catcher)
    try:
        reply = call(server, method, params)
    finally:
        logging.getLogger().removeHandler(catcher)
    assert catcher.found == []
    assert ("result" in reply) != ("error" in reply)
    if "error" in reply:
        assert reply["error"]["code"] in CODES
    else:
        assert reply["result"]["resultType"] == "complete"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=st.sampled_from(["tasks/get", "tasks/update", "tasks/cancel"]),
    params=st.dictionaries(st.sampled_from(["taskId", "inputResponses", "_meta", "x"]), json_values, max_size=4),
    meta=st.one_of(st.just(META), json_values),
)
def test_any_json_in_a_tasks_request_gets_an_error_or_an_answer(
    served: tuple[ModuleType, type, Any], method: str, params: dict[str, Any], meta: Any
) -> None:
    _, server_class, _ = served
    assert_error_or_answer(server_class(), method, {**params, "_meta": meta})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(task_ids=json_values, meta=st.one_of(st.just(META), json_values))
def test_any_json_as_the_task_ids_of_a_listen_request_gets_an_error_or_an_answer(
    served: tuple[ModuleType, type, Any], task_ids: Any, meta: Any
) -> None:
    """No listed id names a task here, so the listen request is answered at once (or refused)."""
    _, server_class, _ = served
    assert_error_or_answer(server_class(), "subscriptions/listen", {"notifications": {"taskIds": task_ids}, "_meta": meta})


def test_a_real_task_survives_the_noise(served: tuple[ModuleType, type, Any]) -> None:
    _, server_class, _ = served

    async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
        reply: dict[str, Any] = await server_class().handle(message)
        return reply

    async def scenario() -> list[Any]:
        task_id = (await send("tools/call", {"name": "t"}))["result"]["taskId"]
        await asyncio.sleep(0.05)
        out: list[Any] = [(await send("tasks/update", {"taskId": task_id, "inputResponses": []}))["error"]["code"]]
        out.append((await send("tasks/update", {"taskId": task_id, "inputResponses": {"other": 1}}))["result"])
        out.append((await send("tasks/get", {"taskId": task_id}))["result"])
        await send("tasks/update", {"taskId": task_id, "inputResponses": {"k": {"roots": []}}})
        await asyncio.sleep(0.05)
        out.append((await send("tasks/get", {"taskId": task_id}))["result"])
        return out

    invalid, ack, asking, done = asyncio.run(scenario())
    assert invalid == -32602 and ack == {"resultType": "complete"}
    assert asking["status"] == "input_required" and list(asking["inputRequests"]) == ["k"]
    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "['k']"
