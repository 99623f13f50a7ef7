"""A task store in Redis (`RedisTaskStore`): every worker of a deployment finds every task, whichever
worker created it, on the Redis the fan-out already uses.

Optional: nothing else in the runtime imports this module, and it imports `redis.asyncio` (the `redis`
package) only when it first connects. Redis forgets a task `ttlMs` after its last change, never before.
The work of a task runs in the worker that started it: another worker reads and cancels the task (its
status settles `cancelled`, and the running work's result is then ignored), but only the starting
worker hands `tasks/update` answers to the work.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any

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

    async def close(self) -> None:
        """Close the connection (a later use connects again)."""
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None
