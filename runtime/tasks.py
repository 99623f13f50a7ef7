"""Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663) on the server side, as wire data: a
handler hands its work to a `TaskRunner`, which records the task in a `TaskStore` before answering with
the `CreateTaskResult` and runs the work in the background; `tasks/get`, `tasks/update` and `tasks/cancel`
handlers read and drive the task through the same runner. On the client side, `await_task` polls a task
to its result.

The store is pluggable (`TaskStore`); `MemoryTaskStore` keeps tasks in this process, bounded in number,
each kept at least its `ttlMs`. The work itself runs in the process that started it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Mapping, Protocol

from .convert import dump, fill
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError
from .log import logger

TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task never leaves."""
CANCEL_WAIT = 1.0
"""Seconds `tasks/cancel` waits for cancelled work to stop before it acknowledges."""


@dataclass(frozen=True)
class TaskRecord:
    """One task's state: what `tasks/get` reports of it."""

    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None
    expires: float | None
    """The monotonic time after which the store may forget it (None: never)."""
    result: Any = None
    error: Any = None
    input_requests: Mapping[str, Any] | None = None
    status_message: str | None = None

    def wire(self, detailed: bool = True) -> dict[str, Any]:
        """The task as wire data: the `Task` fields, and (`detailed`) what its status inlines."""
        out: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttlMs": self.ttl_ms,
        }
        if self.poll_interval_ms is not None:
            out["pollIntervalMs"] = self.poll_interval_ms
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if detailed and self.status == "completed":
            out["result"] = self.result
        elif detailed and self.status == "failed":
            out["error"] = self.error
        elif detailed and self.status == "input_required":
            out["inputRequests"] = dict(self.input_requests or {})
        return out


class TaskStore(Protocol):
    """Where tasks are recorded: `put` must be durable when it returns (a `tasks/get` that follows
    anywhere finds the task)."""

    async def put(self, record: TaskRecord) -> None:
        """Record (or replace) a task; raise ProtocolError when it cannot be kept."""
        ...

    async def get(self, task_id: str) -> TaskRecord | None:
        """The task, unless unknown or expired."""
        ...


class MemoryTaskStore:
    """Tasks in this process's memory: at most `limit`, expired ones forgotten first."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.records: dict[str, TaskRecord] = {}

    async def put(self, record: TaskRecord) -> None:
        if record.task_id not in self.records and len(self.records) >= self.limit:
            now = time.monotonic()
            for key in [
                k for k, r in self.records.items() if r.expires is not None and r.expires < now
            ]:
                del self.records[key]
            if len(self.records) >= self.limit:
                raise ProtocolError(INTERNAL_ERROR, "Too many tasks: try again later")
        self.records[record.task_id] = record

    async def get(self, task_id: str) -> TaskRecord | None:
        found = self.records.get(task_id)
        if found is not None and found.expires is not None and found.expires < time.monotonic():
            del self.records[task_id]
            return None
        return found


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class _Running:
    """What only the process running a task holds: its asyncio task and the input it waits for."""

    job: asyncio.Future[Any] | None = None
    answered: dict[str, Any] = field(default_factory=dict)
    waiting: asyncio.Future[None] | None = None
    used: set[str] = field(default_factory=set)


class TaskContext:
    """What a task's work may do besides returning its result: ask the client for input."""

    def __init__(self, runner: TaskRunner, task_id: str) -> None:
        self.runner = runner
        self.task_id = task_id

    async def ask(self, requests: Mapping[str, Any]) -> dict[str, Any]:
        """Put the task in `input_required` with `requests` (keys unique over the task's life) and
        return the client's responses, by key, once `tasks/update` has answered every one."""
        running = self.runner.running[self.task_id]
        reused = running.used.intersection(requests)
        if reused:
            raise ValueError(f"input request keys already used by this task: {sorted(reused)}")
        running.used.update(requests)
        running.answered = {}
        running.waiting = asyncio.get_running_loop().create_future()
        await self.runner.change(
            self.task_id, status="input_required", input_requests=dict(requests)
        )
        await running.waiting
        return running.answered


class TaskRunner:
    """Starts handlers' work as tasks and answers the `tasks/*` requests about them."""

    def __init__(
        self,
        store: TaskStore | None = None,
        ttl_ms: int = 600_000,
        poll_interval_ms: int | None = 200,
    ) -> None:
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.running: dict[str, _Running] = {}

    async def start(self, work: Callable[[TaskContext], Awaitable[Any]]) -> dict[str, Any]:
        """Record a new `working` task, start `work` in the background and return the task as the
        `CreateTaskResult` wire data (its `resultType` added). `work` returns the task's result (wire
        data or a model); a ProtocolError it raises fails the task with that error."""
        now = _now()
        record = TaskRecord(
            task_id=secrets.token_urlsafe(16),
            status="working",
            created_at=now,
            last_updated_at=now,
            ttl_ms=self.ttl_ms,
            poll_interval_ms=self.poll_interval_ms,
            expires=time.monotonic() + self.ttl_ms / 1000,
        )
        await self.store.put(record)
        running = self.running[record.task_id] = _Running()
        running.job = asyncio.ensure_future(self._run(record.task_id, work))
        return {**record.wire(detailed=False), "resultType": "task"}

    async def _run(self, task_id: str, work: Callable[[TaskContext], Awaitable[Any]]) -> None:
        try:
            result = await work(TaskContext(self, task_id))
        except asyncio.CancelledError:
            await self.change(task_id, status="cancelled")
        except ProtocolError as exc:
            await self.change(
                task_id, status="failed", error={"code": exc.code, "message": exc.message}
            )
        except Exception:
            logger.exception("task %s failed", task_id)
            await self.change(
                task_id,
                status="failed",
                error={"code": INTERNAL_ERROR, "message": "Internal error"},
            )
        else:
            dumped = (
                result.model_dump(mode="json", by_alias=True, exclude_unset=True)
                if hasattr(result, "model_dump")
                else result
            )
            await self.change(task_id, status="completed", result=dumped)
        finally:
            self.running.pop(task_id, None)

    async def change(self, task_id: str, **changes: Any) -> None:
        """Record a change of a task's state (a terminal task never changes again)."""
        record = await self.store.get(task_id)
        if record is None or record.status in TERMINAL:
            return
        if changes.get("status") != "input_required":
            changes.setdefault("input_requests", None)
        await self.store.put(replace(record, last_updated_at=_now(), **changes))

    async def get(self, task_id: str) -> dict[str, Any]:
        """`tasks/get`: the task with what its status inlines; -32602 for an unknown task."""
        return (await self._known(task_id)).wire()

    async def cancel(self, task_id: str) -> None:
        """`tasks/cancel`: stop the work if it still runs (waiting for it at most `CANCEL_WAIT` seconds)
        and settle the task `cancelled`; a terminal task is acknowledged as it is. -32602 for an
        unknown task."""
        await self._known(task_id)
        running = self.running.get(task_id)
        if running is not None and running.job is not None and not running.job.done():
            running.job.cancel()
            await asyncio.wait([running.job], timeout=CANCEL_WAIT)
        await self.change(task_id, status="cancelled")

    async def update(self, task_id: str, responses: Any) -> None:
        """`tasks/update`: answer outstanding input requests (other keys are ignored); the answered keys
        leave `inputRequests` before this returns, and the work resumes once none is left."""
        record = await self._known(task_id)
        running = self.running.get(task_id)
        outstanding = dict(record.input_requests or {})
        if running is None or running.waiting is None or not isinstance(responses, Mapping):
            return
        fulfilled = [key for key in responses if key in outstanding]
        if not fulfilled:
            return
        for key in fulfilled:
            running.answered[key] = responses[key]
            del outstanding[key]
        if outstanding:
            await self.change(task_id, status="input_required", input_requests=outstanding)
            return
        await self.change(task_id, status="working")
        waiting, running.waiting = running.waiting, None
        if not waiting.done():
            waiting.set_result(None)

    async def _known(self, task_id: Any) -> TaskRecord:
        record = await self.store.get(task_id) if isinstance(task_id, str) else None
        if record is None:
            raise ProtocolError(INVALID_PARAMS, "Unknown task")
        return record


# --- the client side: awaiting a task's result


class TaskCancelledError(Exception):
    """The task was cancelled before it produced a result."""


POLL_BOUNDS = (0.05, 60.0)
"""The shortest and longest wait between two `tasks/get` polls, in seconds, whatever the server suggests."""


async def await_task(
    client: Any,
    task: Any,
    method: str = "tools/call",
    on_status: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
) -> Any:
    """Poll the task `task` (a `CreateTaskResult`, its wire data, or a task id) with `tasks/get` at the
    interval it suggests until it ends, and return its result as `method`'s surface result. Input
    requests are answered by `client`'s own handlers and sent with `tasks/update`; `on_status` sees
    every state polled. A failed task raises ProtocolError with its error, a cancelled one
    TaskCancelledError; cancelling the wait cancels the task (`tasks/cancel`)."""
    endpoint = client._mcp
    found = task if isinstance(task, str) else dict(dump(task) or {})
    task_id = found if isinstance(found, str) else found.get("taskId")
    state: dict[str, Any] = {} if isinstance(found, str) else found
    try:
        while True:
            if state.get("status") in TERMINAL and (
                state.get("status") == "cancelled" or "result" in state or "error" in state
            ):
                break
            if state.get("status") == "input_required":
                await _answer(endpoint, client, task_id, state.get("inputRequests"))
            elif state:
                await asyncio.sleep(_interval(state.get("pollIntervalMs")))
            state = dump(await endpoint.call("tasks/get", {"taskId": task_id}))
            if on_status is not None:
                await on_status(state)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await asyncio.shield(endpoint.call("tasks/cancel", {"taskId": task_id}))
        raise
    if state["status"] == "failed":
        error = state.get("error") or {}
        raise ProtocolError(
            error.get("code", INTERNAL_ERROR),
            str(error.get("message", "task failed")),
            error.get("data"),
        )
    if state["status"] == "cancelled":
        raise TaskCancelledError(f"task {task_id} was cancelled")
    result = (
        dict(state["result"]) if isinstance(state.get("result"), Mapping) else state.get("result")
    )
    if isinstance(result, dict):  # what the result's revision requires and the task left out
        for path, key, value in endpoint.result_fills(endpoint.surface, method):
            fill(result, path, key, value)
    return endpoint.surface.registry.parse_result(method, result)


def _interval(suggested: Any) -> float:
    """The wait before the next poll: the server's suggestion (milliseconds) within `POLL_BOUNDS`."""
    seconds = (
        suggested / 1000 if isinstance(suggested, int) and not isinstance(suggested, bool) else 1.0
    )
    return min(max(seconds, POLL_BOUNDS[0]), POLL_BOUNDS[1])


async def _answer(endpoint: Any, client: Any, task_id: Any, requests: Any) -> None:
    """Answer a task's input requests with the client's handlers and send them with `tasks/update`."""
    answers = {}
    for key, request in (requests if isinstance(requests, Mapping) else {}).items():
        answer = await endpoint.answer_input(endpoint.revision(), request)
        if answer is None:
            raise ProtocolError(
                INVALID_PARAMS, f"task {task_id} asks for input this client cannot give: {key}"
            )
        answers[key] = answer
    await endpoint.call("tasks/update", {"taskId": task_id, "inputResponses": answers})
