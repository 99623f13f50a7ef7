"""Test support for tasks (SEP-2663): a server of the package generated with the tasks extension whose
tools run `work` as tasks on one runner, and polling a runner until a task reaches a status."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any, Awaitable, Callable


def task_server(pkg: ModuleType, runner: Any, work: Callable[[Any, Any], Awaitable[Any]]) -> type:
    """A Server class whose every tool call is a task running `work(params, task_context)` (a client
    that did not negotiate the extension gets -32021), and whose `tasks/*` handlers drive `runner`."""
    tasks = importlib.import_module(f"{pkg.__name__}.ext.tasks")
    dump = importlib.import_module(f"{pkg.__name__}.runtime").dump

    class Tasks(pkg.Server):  # type: ignore[misc, name-defined]
        async def on_call_tool(self, params: Any) -> Any:
            self.require_extension(tasks.IDENTIFIER)
            return tasks.types.CreateTaskResult.model_validate(await runner.start(lambda ctx: work(params, ctx)))

        async def on_get_task(self, params: Any) -> Any:
            found = await runner.get(params.task_id)
            return tasks.methods.parse_result("tasks/get", {**found, "resultType": "complete"})

        async def on_update_task(self, params: Any) -> Any:
            await runner.update(params.task_id, dump(params).get("inputResponses"))
            return tasks.types.UpdateTaskResult()

        async def on_cancel_task(self, params: Any) -> Any:
            await runner.cancel(params.task_id)
            return tasks.types.CancelTaskResult()

    return Tasks


async def settle(runner: Any, task_id: str, status: str, timeout: float = 5) -> dict[str, Any]:
    """Poll `runner.get` until the task has `status` (or the time runs out); its last state."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found: dict[str, Any] = await runner.get(task_id)
        if found["status"] == status or asyncio.get_running_loop().time() > deadline:
            return found
        await asyncio.sleep(0.01)
