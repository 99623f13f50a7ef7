"""Tasks shared through a real redis-server (runtime/redis_tasks.py): two task runners standing for two
workers of one deployment see each other's tasks, cancel and answer the work running in the other (its
signals over Redis pub/sub), hear each other's changes, and Redis keeps a task its `ttlMs`."""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import pytest

from mcpgen.runtime.jsonrpc import ProtocolError
from mcpgen.runtime.redis_tasks import RedisTaskStore
from mcpgen.runtime.tasks import TaskRunner
from redis_server import RedisServer, redis_server
from task_support import settle

TEXT = {"content": [{"type": "text", "text": "done"}]}


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


def test_a_task_started_by_one_worker_is_read_and_cancelled_by_another(redis: RedisServer) -> None:
    async def scenario() -> list[Any]:
        first, second = RedisTaskStore(redis.url), RedisTaskStore(redis.url)
        a, b = TaskRunner(first), TaskRunner(second)
        quick = await a.start(lambda ctx: asyncio.sleep(0.1, TEXT))
        out: list[Any] = [(await b.get(quick["taskId"]))["status"]]  # durable before the answer
        out.append(await settle(b, quick["taskId"], "completed"))
        slow = await a.start(lambda ctx: asyncio.sleep(60))
        await b.cancel(slow["taskId"])
        out.append((await a.get(slow["taskId"]))["status"])
        with pytest.raises(ProtocolError) as unknown:
            await b.get("x" * 300)
        out.append(unknown.value.code)
        await first.close()
        await second.close()
        return out

    working, completed, cancelled, unknown = asyncio.run(scenario())
    assert working == "working"
    assert completed["status"] == "completed" and completed["result"] == TEXT
    assert cancelled == "cancelled" and unknown == -32602


def test_redis_keeps_a_task_its_ttl_and_then_forgets_it(redis: RedisServer) -> None:
    async def scenario() -> tuple[str, int]:
        store = RedisTaskStore(redis.url, prefix="ttl-test:")
        runner = TaskRunner(store, ttl_ms=400)
        created = await runner.start(lambda ctx: asyncio.sleep(0, TEXT))
        await asyncio.sleep(0.2)
        kept = (await runner.get(created["taskId"]))["status"]
        await asyncio.sleep(0.5)
        with pytest.raises(ProtocolError) as gone:
            await runner.get(created["taskId"])
        await store.close()
        return kept, gone.value.code

    kept, gone = asyncio.run(scenario())
    assert kept == "completed" and gone == -32602


def test_cancel_and_update_received_by_another_worker_reach_the_running_work(redis: RedisServer) -> None:
    """Worker A runs the work; B receives `tasks/update` (the answered key is gone when it returns, and
    A's work resumes with the answer) and `tasks/cancel` (A's work is stopped, not just marked)."""
    stopped: list[str] = []

    async def ask(ctx: Any) -> Any:
        answers = await ctx.ask({"first": {"method": "roots/list"}, "second": {"method": "roots/list"}})
        return {"content": [{"type": "text", "text": str(answers["first"]["roots"] + answers["second"]["roots"])}]}

    async def forever(ctx: Any) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.append("stopped")

    async def scenario() -> list[Any]:
        first, second = RedisTaskStore(redis.url, prefix="signals-test:"), RedisTaskStore(redis.url, prefix="signals-test:")
        a, b = TaskRunner(first), TaskRunner(second)
        await b.hear()
        asking = (await a.start(ask))["taskId"]
        await settle(b, asking, "input_required")
        await b.update(asking, {"first": {"roots": ["one"]}, "unknown": 1})
        out: list[Any] = [sorted((await b.get(asking))["inputRequests"])]
        await b.update(asking, {"second": {"roots": ["two"]}})
        out.append(await settle(b, asking, "completed"))
        slow = (await a.start(forever))["taskId"]
        await b.cancel(slow)
        out.append((await a.get(slow))["status"])
        for _ in range(100):
            if stopped:
                break
            await asyncio.sleep(0.01)
        out.append(list(stopped))
        out.append(list(a.running))
        for runner in (a, b):
            await runner.close()
        await first.close()
        await second.close()
        return out

    left, completed, cancelled, stops, running = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert left == ["second"]
    assert completed["result"]["content"][0]["text"] == "['one', 'two']"
    assert cancelled == "cancelled" and stops == ["stopped"] and running == []


def test_a_listener_on_one_worker_hears_the_changes_of_a_task_running_on_another(redis: RedisServer) -> None:
    async def scenario() -> tuple[list[str], list[str], str]:
        first, second = RedisTaskStore(redis.url, prefix="watch-test:"), RedisTaskStore(redis.url, prefix="watch-test:")
        a, b = TaskRunner(first), TaskRunner(second)
        await b.hear()
        mine = (await a.start(lambda ctx: asyncio.sleep(0.2, TEXT), owner="alice"))["taskId"]
        theirs = (await a.start(lambda ctx: asyncio.sleep(0.2, TEXT), owner="bob"))["taskId"]
        heard: list[str] = []
        async with b.watch([mine, theirs], owner="alice") as watch:
            acknowledged = list(watch.task_ids)
            async for state in watch:
                heard.append(state["status"])
        for runner in (a, b):
            await runner.close()
        await first.close()
        await second.close()
        return acknowledged, heard, mine

    acknowledged, heard, mine = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert heard == ["working", "completed"] and acknowledged == [mine]
