"""Test support for tasks (SEP-2663): a server of the package generated with the tasks extension whose
tools run `work` as tasks on one runner, and polling a runner until a task reaches a status."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any, Awaitable, Callable


def nobody() -> str | None:
    """No owner: a task belongs to whoever knows its id."""
    return None


def task_server(
    pkg: ModuleType,
    runner: Any,
    work: Callable[[Any, Any], Awaitable[Any]],
    owner: Callable[[], str | None] = nobody,
) -> type:
    """A Server class whose every tool call is a task of `owner()` running `work(params, task_context)`
    (a client that did not negotiate the extension gets -32021), whose `tasks/*` handlers drive `runner`
    for `owner()`, and whose `subscriptions/listen` handler sends `notifications/tasks` for the listed
    task ids (`gets` counts the `tasks/get` requests served)."""
    tasks = importlib.import_module(f"{pkg.__name__}.ext.tasks")
    runtime = importlib.import_module(f"{pkg.__name__}.runtime")
    dump = runtime.dump

    class Tasks(pkg.Server):  # type: ignore[misc, name-defined]
        gets = 0

        async def on_call_tool(self, params: Any) -> Any:
            self.require_extension(tasks.IDENTIFIER)
            ttl = (params.arguments or {}).get("ttl")
            started = await runner.start(lambda ctx: work(params, ctx), owner=owner(), ttl_ms=ttl)
            return tasks.types.CreateTaskResult.model_validate(started)

        async def on_get_task(self, params: Any) -> Any:
            type(self).gets += 1
            found = await runner.get(params.task_id, owner())
            return tasks.methods.parse_result("tasks/get", {**found, "resultType": "complete"})

        async def on_update_task(self, params: Any) -> Any:
            await runner.update(params.task_id, dump(params).get("inputResponses"), owner())
            return tasks.types.UpdateTaskResult()

        async def on_cancel_task(self, params: Any) -> Any:
            await runner.cancel(params.task_id, owner())
            return tasks.types.CancelTaskResult()

        async def on_subscriptions_listen(self, params: Any) -> Any:
            wanted = dump(params).get("notifications") or {}
            if "taskIds" in wanted:
                self.require_extension(tasks.IDENTIFIER)
            async with runner.watch(wanted.get("taskIds"), owner()) as watch:
                await self.notify_subscriptions_acknowledged({"notifications": {"taskIds": watch.task_ids}})
                async for state in watch:
                    await self.notify_task_status(state)
            meta = {"io.modelcontextprotocol/subscriptionId": runtime.REQUEST_ID.get()}
            return pkg.types.SubscriptionsListenResult.model_validate({"_meta": meta, "resultType": "complete"})

    return Tasks


async def settle(runner: Any, task_id: str, status: str, timeout: float = 5) -> dict[str, Any]:
    """Poll `runner.get` until the task has `status` (or the time runs out); its last state."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found: dict[str, Any] = await runner.get(task_id)
        if found["status"] == status or asyncio.get_running_loop().time() > deadline:
            return found
        await asyncio.sleep(0.01)
