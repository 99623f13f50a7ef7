"""The task runner and the in-memory task store (runtime/tasks.py), on their own: what `tasks/get`,
`tasks/update` and `tasks/cancel` report as the work runs, asks for input, fails or is cancelled. The
oracle is the tasks extension's text (extensions/tasks/tasks.md): statuses, what each inlines, TTL."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from mcpgen.runtime.jsonrpc import ProtocolError
from mcpgen.runtime.tasks import MemoryTaskStore, TaskRunner
from task_support import settle

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
TEXT = {"content": [{"type": "text", "text": "done"}]}


def test_a_task_is_recorded_before_it_is_answered_and_inlines_its_result() -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        runner = TaskRunner(ttl_ms=60_000, poll_interval_ms=100)
        gate = asyncio.Event()

        async def work(ctx: Any) -> Any:
            await gate.wait()
            return TEXT

        created = await runner.start(work)
        working = await runner.get(created["taskId"])
        gate.set()
        return created, working, await settle(runner, created["taskId"], "completed")

    created, working, completed = asyncio.run(scenario())
    assert created["resultType"] == "task" and created["status"] == "working"
    assert created["ttlMs"] == 60_000 and created["pollIntervalMs"] == 100
    assert ISO.match(created["createdAt"]) and ISO.match(created["lastUpdatedAt"])
    assert not {"result", "error", "inputRequests"} & set(created)
    assert working["taskId"] == created["taskId"] and working["status"] == "working" and "result" not in working
    assert completed["status"] == "completed" and completed["result"] == TEXT and "error" not in completed


@pytest.mark.parametrize(
    ("raised", "error"),
    [(ProtocolError(-32000, "boom"), {"code": -32000, "message": "boom"}), (RuntimeError("secret"), {"code": -32603, "message": "Internal error"})],
)
def test_work_that_raises_fails_the_task_with_a_json_rpc_error(raised: Exception, error: dict[str, Any]) -> None:
    async def scenario() -> dict[str, Any]:
        runner = TaskRunner()

        async def work(ctx: Any) -> Any:
            raise raised

        created = await runner.start(work)
        return await settle(runner, created["taskId"], "failed")

    failed = asyncio.run(scenario())
    assert failed["status"] == "failed" and failed["error"] == error and "result" not in failed


def test_cancel_stops_running_work_and_is_idempotent_on_a_terminal_task() -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], int]:
        runner = TaskRunner()
        created = await runner.start(lambda ctx: asyncio.sleep(60))
        await runner.cancel(created["taskId"])
        cancelled = await settle(runner, created["taskId"], "cancelled")
        await runner.cancel(created["taskId"])
        again = await runner.get(created["taskId"])
        with pytest.raises(ProtocolError) as unknown:
            await runner.cancel("no-such-task")
        return cancelled, again, unknown.value.code

    cancelled, again, code = asyncio.run(scenario())
    assert cancelled["status"] == "cancelled" == again["status"]
    assert again["lastUpdatedAt"] == cancelled["lastUpdatedAt"]
    assert code == -32602


def test_input_requests_are_answered_one_by_one_and_unknown_keys_ignored() -> None:
    ask = {"method": "elicitation/create", "params": {"message": "?", "requestedSchema": {"type": "object"}}}

    async def scenario() -> list[Any]:
        runner = TaskRunner()

        async def work(ctx: Any) -> Any:
            answers = await ctx.ask({"a": ask, "b": ask})
            return {"content": [{"type": "text", "text": f"{answers['a']['n']}{answers['b']['n']}"}]}

        created = await runner.start(work)
        task_id = created["taskId"]
        seen = [await settle(runner, task_id, "input_required")]
        await runner.update(task_id, {"a": {"n": 1}, "zzz": {"ignored": True}})
        seen.append(await runner.get(task_id))  # applied before the ack
        await runner.update(task_id, {"a": {"n": 9}})  # no longer outstanding: ignored
        await runner.update(task_id, "not an object")
        await runner.update(task_id, {"b": {"n": 2}})
        seen.append(await settle(runner, task_id, "completed"))
        return seen

    asked, partial, completed = asyncio.run(scenario())
    assert asked["status"] == "input_required" and set(asked["inputRequests"]) == {"a", "b"}
    assert partial["status"] == "input_required" and set(partial["inputRequests"]) == {"b"}
    assert completed["result"]["content"][0]["text"] == "12" and "inputRequests" not in completed


def test_an_input_key_is_never_asked_twice_in_a_tasks_life() -> None:
    async def scenario() -> dict[str, Any]:
        runner = TaskRunner()

        async def work(ctx: Any) -> Any:
            await ctx.ask({"k": {}})
            await ctx.ask({"k": {}})

        created = await runner.start(work)
        await settle(runner, created["taskId"], "input_required")
        await runner.update(created["taskId"], {"k": {}})
        return await settle(runner, created["taskId"], "failed")

    assert asyncio.run(scenario())["error"]["code"] == -32603


def test_the_store_keeps_a_task_its_ttl_and_no_more_than_its_limit() -> None:
    async def scenario() -> list[Any]:
        store = MemoryTaskStore(limit=2)
        short = TaskRunner(store, ttl_ms=200)
        first = await short.start(lambda ctx: asyncio.sleep(0))
        await short.start(lambda ctx: asyncio.sleep(0))
        out: list[Any] = [(await short.get(first["taskId"]))["taskId"]]  # within its TTL
        try:
            await short.start(lambda ctx: asyncio.sleep(0))
        except ProtocolError as exc:
            out.append(exc.code)
        await asyncio.sleep(0.3)
        with pytest.raises(ProtocolError) as gone:
            await short.get(first["taskId"])
        out.append(gone.value.code)
        out.append((await short.start(lambda ctx: asyncio.sleep(0)))["status"])  # expired ones make room
        return out

    kept, full, gone, room = asyncio.run(scenario())
    assert isinstance(kept, str) and full == -32603 and gone == -32602 and room == "working"
