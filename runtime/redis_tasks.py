"""A task store in Redis (`RedisTaskStore`): every worker of a deployment finds every task, whichever
worker created it, on the Redis the fan-out already uses.

Optional: nothing else in the runtime imports this module, and it imports `redis.asyncio` (the `redis`
package) only when it first connects. Redis forgets a task `ttlMs` after its last change, never before.
The work of a task runs in the worker that started it; the workers' runners signal each other on the
Redis channel `prefix + "signals"` (pub/sub), so a `tasks/cancel` or `tasks/update` any worker receives
reaches the work, and a listener on any worker hears every change of the tasks it watches.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
from typing import Any, AsyncIterator

from .jsonrpc import ProtocolError, load
from .tasks import TaskRecord

MAX_ID = 256
"""The longest task id looked up (a longer one is unknown)."""


class RedisTaskStore:
    """Tasks as JSON under `prefix + taskId`, each expiring `ttlMs` after it last changed."""

    def __init__(self, url: str, prefix: str = "mcp:task:", **options: Any) -> None:
        self.url = url
        self.prefix = prefix
        self.options = options
        self._redis: Any = None

    def redis(self) -> Any:
        """The client (made on first use; `options` go to `redis.asyncio.Redis.from_url`)."""
        if self._redis is None:
            module: Any = importlib.import_module("redis.asyncio")
            self._redis = module.Redis.from_url(self.url, **self.options)
        return self._redis

    async def put(self, record: TaskRecord) -> None:
        data = {k: v for k, v in dataclasses.asdict(record).items() if k != "expires"}
        ttl = record.ttl_ms if isinstance(record.ttl_ms, int) and record.ttl_ms > 0 else None
        await self.redis().set(self.prefix + record.task_id, json.dumps(data), px=ttl)

    async def get(self, task_id: str) -> TaskRecord | None:
        if len(task_id) > MAX_ID:
            return None
        raw = await self.redis().get(self.prefix + task_id)
        return TaskRecord(**json.loads(raw), expires=None) if raw is not None else None

    async def signal(self, message: dict[str, Any]) -> None:
        """Publish `message` to every worker's runner (`TaskSignals`)."""
        await self.redis().publish(self.prefix + "signals", json.dumps(message))

    @contextlib.asynccontextmanager
    async def signals(self) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """Subscribed to the workers' messages while the block runs (`TaskSignals`)."""
        pubsub = self.redis().pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self.prefix + "signals")
        try:
            yield _messages(pubsub)
        finally:
            await pubsub.aclose()

    async def close(self) -> None:
        """Close the connection (a later use connects again)."""
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None


async def _messages(pubsub: Any) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages a subscription receives (anything else skipped)."""
    async for message in pubsub.listen():
        with contextlib.suppress(ProtocolError):  # whatever anyone published, however deep
            data = load(message["data"])
            if isinstance(data, dict):
                yield data
