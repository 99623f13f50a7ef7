"""Tasks shared through a real redis-server (runtime/redis_tasks.py): two task runners standing for two
workers of one deployment see each other's tasks, cancel them, and Redis keeps a task its `ttlMs`."""

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
