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
        for runner in (a, b):
            await runner.close()
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
        await runner.close()
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
        a, b = TaskRunner(first), TaskRunner(second)  # b has started no task: watching makes it hear
        mine = (await a.start(lambda ctx: asyncio.sleep(0.2, TEXT), owner="alice"))["taskId"]
        theirs = (await a.start(lambda ctx: asyncio.sleep(0.2, TEXT), owner="bob"))["taskId"]
        heard: list[str] = []
        async with b.watch([mine, theirs], owner="alice") as watch:
            acknowledged = list(watch.task_ids)
            async for state in watch:
                heard.append(state["status"])
        while a.running:  # bob's task too, before its store closes
            await asyncio.sleep(0.01)
        for runner in (a, b):
            await runner.close()
        await first.close()
        await second.close()
        return acknowledged, heard, mine

    acknowledged, heard, mine = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert heard == ["working", "completed"] and acknowledged == [mine]


def test_signals_survive_a_dropped_subscription_and_garbage_on_the_channel(redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Redis drops every subscriber (as it does one over its output buffer limit) and someone publishes
    JSON nested too deep to read: A subscribes again, stops the work B cancelled during the gap, and
    hears B's later cancel; B's listener hears the end of A's task."""
    import redis.asyncio as aioredis

    from mcpgen.runtime import tasks

    monkeypatch.setattr(tasks, "SIGNAL_RETRY", 0.05)
    stopped: list[str] = []

    async def forever(ctx: Any) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.append(ctx.task_id)

    async def stopped_soon(task_id: str) -> bool:
        for _ in range(200):
            if task_id in stopped:
                return True
            await asyncio.sleep(0.01)
        return False

    async def scenario() -> list[Any]:
        prefix = "gap-test:"
        first, second = RedisTaskStore(redis.url, prefix=prefix), RedisTaskStore(redis.url, prefix=prefix)
        a, b = TaskRunner(first), TaskRunner(second)
        raw = aioredis.Redis.from_url(redis.url)
        during, after, heard = (await a.start(forever))["taskId"], (await a.start(forever))["taskId"], []
        quick = (await a.start(lambda ctx: asyncio.sleep(0.5, TEXT)))["taskId"]
        async with b.watch([quick]) as watch:
            await raw.publish(prefix + "signals", "[" * 100_000 + "]" * 100_000)
            await raw.client_kill_filter(_type="pubsub")
            await b.cancel(during)  # A may not be subscribed again yet: the store says cancelled
            out: list[Any] = [await stopped_soon(during)]
            await asyncio.sleep(0.3)
            await b.cancel(after)
            out.append(await stopped_soon(after))
            async for state in watch:
                heard.append(state["status"])
        out.append(heard[-1])
        for runner in (a, b):
            await runner.close()
        for store in (first, second):
            await store.close()
        await raw.aclose()
        return out

    stopped_during_gap, stopped_after, last_heard = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert stopped_during_gap and stopped_after and last_heard == "completed"


def test_an_update_no_worker_applies_is_an_error(redis: RedisServer) -> None:
    """The worker running the task has stopped hearing (it died): B's `tasks/update` cannot reach the
    work, so it fails after `CANCEL_WAIT` instead of answering success while the task still waits."""

    async def ask(ctx: Any) -> Any:
        await ctx.ask({"first": {"method": "roots/list"}})
        return TEXT

    async def scenario() -> tuple[int, list[str]]:
        first, second = RedisTaskStore(redis.url, prefix="dead-test:"), RedisTaskStore(redis.url, prefix="dead-test:")
        a, b = TaskRunner(first), TaskRunner(second)
        asking = (await a.start(ask))["taskId"]
        await settle(b, asking, "input_required")
        await a.close()  # A hears no more
        with pytest.raises(ProtocolError) as refused:
            await b.update(asking, {"first": {"roots": []}})
        left = sorted((await b.get(asking))["inputRequests"])
        await b.close()
        for store in (first, second):
            await store.close()
        return refused.value.code, left

    code, left = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert code == -32603 and left == ["first"]


def test_a_signal_no_worker_can_read_is_skipped() -> None:
    """What anyone publishes on the signals channel: not JSON, nested too deeply, not an object, not
    even text; each is skipped and the messages after it still arrive."""
    from mcpgen.runtime.redis_tasks import _messages

    class Subscription:
        async def listen(self) -> Any:
            for data in (b"\xff", "[" * 100_000 + "]" * 100_000, "[1]", 7, b'{"kind": "cancel"}'):
                yield {"type": "message", "data": data}

    async def read() -> list[Any]:
        return [message async for message in _messages(Subscription())]

    assert asyncio.run(read()) == [{"kind": "cancel"}]
