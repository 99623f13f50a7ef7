"""Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663) on the server side, as wire data: a
handler hands its work to a `TaskRunner`, which records the task in a `TaskStore` before answering with
the `CreateTaskResult` and runs the work in the background; `tasks/get`, `tasks/update` and `tasks/cancel`
handlers read and drive the task through the same runner. On the client side, `await_task` follows a
task to its result, hearing its status notifications or polling.

The store is pluggable (`TaskStore`); `MemoryTaskStore` keeps tasks in this process, bounded in number,
each kept at least its `ttlMs`. The work itself runs in the process that started it. A task may belong to
an owner (whatever the server names its caller by, e.g. the access token's subject): then only that owner
finds it. Each owner holds at most `per_owner` tasks, a granted TTL is capped, and the input answered to
one task is bounded in size. Listeners (`TaskRunner.watch`, behind a `subscriptions/listen` handler) hear
each status change of the tasks they asked for and own.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import secrets
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping, Protocol, cast

from .convert import dump, fill
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError
from .log import logger

TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task never leaves."""
CANCEL_WAIT = 1.0
"""Seconds `tasks/cancel` waits for cancelled work to stop before it acknowledges."""
SIGNAL_RETRY = 1.0
"""Seconds between attempts to subscribe again to the workers' messages after the subscription broke."""


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
    owner: str | None = None
    """Who alone may see the task (None: whoever knows its id)."""

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


class TaskSignals(Protocol):
    """A store shared by several workers that also carries messages between them (`RedisTaskStore`):
    a worker's `tasks/cancel` and `tasks/update` reach the work running in another, and every worker's
    listeners hear every task's changes."""

    async def signal(self, message: dict[str, Any]) -> None:
        """Send `message` (JSON) to every worker sharing the store, this one included."""
        ...

    def signals(self) -> contextlib.AbstractAsyncContextManager[AsyncIterator[dict[str, Any]]]:
        """Subscribe (once entered) to the messages signalled from now on."""
        ...


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class _Running:
    """What only the process running a task holds: its asyncio task and the input it waits for."""

    job: asyncio.Future[Any] | None = None
    answered: dict[str, Any] = field(default_factory=dict)
    waiting: asyncio.Future[None] | None = None
    used: set[str] = field(default_factory=set)
    answered_bytes: int = 0


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


def _fulfilled(record: TaskRecord, responses: Any) -> list[Any]:
    """The keys of `responses` (any JSON) that answer the task's outstanding input requests."""
    outstanding = record.input_requests or {}
    return [k for k in responses if k in outstanding] if isinstance(responses, Mapping) else []


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a cancelled subscription's outcome seen (it may end with redis's error, not a cancel)."""
    if not future.cancelled():
        future.exception()


class TaskWatch:
    """One listener's view of the tasks it watches: the latest state of each not yet delivered (a slow
    listener skips states, never the last), until every one of them has ended."""

    def __init__(self, owner: str | None) -> None:
        self.owner = owner
        self.task_ids: list[str] = []
        """The watched tasks: those asked for that exist and belong to `owner`."""
        self.pending: dict[str, dict[str, Any]] = {}
        self.open: set[str] = set()
        self.ready = asyncio.Event()

    def offer(self, state: dict[str, Any]) -> None:
        """A task's new state, to deliver."""
        self.pending[state["taskId"]] = state
        self.ready.set()

    def __aiter__(self) -> TaskWatch:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while not self.pending:
            if not self.open:
                raise StopAsyncIteration
            self.ready.clear()
            await self.ready.wait()
        task_id = next(iter(self.pending))
        state = self.pending.pop(task_id)
        if state["status"] in TERMINAL:
            self.open.discard(task_id)
        return state


class TaskRunner:
    """Starts handlers' work as tasks and answers the `tasks/*` requests about them.

    `ttl_ms` is granted when the handler asks for none, a requested one is capped at `max_ttl_ms`; an
    owner holds at most `per_owner` unexpired tasks (in this process); the responses answered to one
    task's input requests total at most `max_input_bytes` of JSON; a listener watches at most
    `max_watched` tasks."""

    def __init__(
        self,
        store: TaskStore | None = None,
        ttl_ms: int = 600_000,
        poll_interval_ms: int | None = 200,
        *,
        max_ttl_ms: int = 86_400_000,
        per_owner: int = 100,
        max_input_bytes: int = 1_048_576,
        max_watched: int = 100,
    ) -> None:
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.max_ttl_ms = max_ttl_ms
        self.per_owner = per_owner
        self.max_input_bytes = max_input_bytes
        self.max_watched = max_watched
        self.running: dict[str, _Running] = {}
        self.owned: dict[str | None, set[str]] = {}
        self.expiries: list[tuple[float, str, str | None]] = []
        self.watches: dict[str, set[TaskWatch]] = {}
        self.worker = secrets.token_hex(8)
        """This runner's name among the workers sharing a `TaskSignals` store."""
        self.hearing: asyncio.Future[None] | None = None
        self.subscribed: asyncio.Future[None] | None = None
        """Resolved once `hearing` first subscribed."""

    def _shared(self) -> TaskSignals | None:
        """The store, when it carries messages between workers."""
        return cast(TaskSignals, self.store) if hasattr(self.store, "signals") else None

    async def hear(self) -> None:
        """Start hearing the other workers' messages (once; `start` does it before its first task)."""
        shared = self._shared()
        if shared is None:
            return
        if self.hearing is None or self.hearing.done():
            self.subscribed = asyncio.get_running_loop().create_future()
            self.hearing = asyncio.ensure_future(self._hear(shared, self.subscribed))
        hearing, subscribed = (
            self.hearing,
            self.subscribed,
        )  # a caller while another subscribes waits too
        assert subscribed is not None
        await asyncio.wait([subscribed, hearing], return_when=asyncio.FIRST_COMPLETED)
        if hearing.done():
            hearing.result()

    async def _hear(self, shared: TaskSignals, ready: asyncio.Future[None]) -> None:
        """Stay subscribed to the workers' messages: a subscription that breaks is made again every
        `SIGNAL_RETRY` seconds, and what was missed meanwhile is read back from the store."""
        while True:
            heard = asyncio.ensure_future(self._hear_once(shared, ready))
            try:
                # Waited for, not awaited: a cancel lands here, whatever redis makes of it inside.
                await asyncio.wait([heard])
            finally:
                if not heard.done():
                    heard.cancel()
                    heard.add_done_callback(_retrieved)
            error = heard.exception()
            if not ready.done():  # the first subscription failed: `hear` raises it
                raise error or ConnectionError("the task signals' subscription ended at once")
            logger.warning(
                "task signals lost (%.200s): subscribing again in %s s",
                repr(error) if error else "the subscription ended",
                SIGNAL_RETRY,
            )
            await asyncio.sleep(SIGNAL_RETRY)

    async def _hear_once(self, shared: TaskSignals, ready: asyncio.Future[None]) -> None:
        """One subscription to the workers' messages, acted on until it ends."""
        async with shared.signals() as messages:
            if ready.done():
                await self._caught_up()
            else:
                ready.set_result(None)
            async for message in messages:
                try:
                    await self._signalled(message)
                except Exception:
                    logger.exception("task signal %.200r not handled", message)

    async def _caught_up(self) -> None:
        """After a gap in the signals: stop the work here that another worker cancelled meanwhile, and
        hand every watched task's current state to its listeners."""
        for task_id, running in list(self.running.items()):
            record = await self.store.get(task_id)
            if running.job is not None and record is not None and record.status == "cancelled":
                running.job.cancel()
        for task_id, watches in list(self.watches.items()):
            record = await self.store.get(task_id)
            if record is not None:
                for watch in list(watches):
                    if watch.owner == record.owner and task_id in watch.open:
                        watch.offer(record.wire())

    async def _signalled(self, message: Any) -> None:
        """Act on another worker's message: a change to announce, or a request for work running here."""
        if not isinstance(message, dict) or message.get("worker") == self.worker:
            return
        task_id, kind = message.get("taskId"), message.get("kind")
        if not isinstance(task_id, str):
            return
        if kind == "state" and isinstance(message.get("state"), dict):
            for watch in self.watches.get(task_id, ()):
                if watch.owner == message.get("owner"):
                    watch.offer(message["state"])
            return
        running = self.running.get(task_id)
        if running is None or running.job is None:
            return
        if kind == "cancel":
            running.job.cancel()
        elif kind == "update":
            record = await self.store.get(task_id)
            if record is not None:
                await self._apply(record, running, message.get("responses"))

    async def close(self) -> None:
        """Stop hearing the other workers (a later task starts hearing again)."""
        if self.hearing is not None:
            self.hearing.cancel()
            await asyncio.gather(self.hearing, return_exceptions=True)
            self.hearing = None

    def granted_ttl(self, requested: Any) -> int:
        """The TTL a task gets: `requested` (a positive integer, in milliseconds) capped at `max_ttl_ms`,
        else `ttl_ms`."""
        wanted = (
            requested
            if isinstance(requested, int) and not isinstance(requested, bool) and requested > 0
            else self.ttl_ms
        )
        return min(wanted, self.max_ttl_ms)

    def _claim(self, owner: str | None, task_id: str, expires: float) -> None:
        """Count a new task against its owner's quota (expired ones no longer count)."""
        now = time.monotonic()
        while self.expiries and self.expiries[0][0] < now:
            _, old, whose = heapq.heappop(self.expiries)
            self._release(whose, old)
        mine = self.owned.setdefault(owner, set())
        if len(mine) >= self.per_owner:
            raise ProtocolError(INTERNAL_ERROR, "Too many tasks for this client: try again later")
        mine.add(task_id)
        heapq.heappush(self.expiries, (expires, task_id, owner))

    def _release(self, owner: str | None, task_id: str) -> None:
        mine = self.owned.get(owner)
        if mine is not None:
            mine.discard(task_id)
            if not mine:
                del self.owned[owner]

    async def start(
        self,
        work: Callable[[TaskContext], Awaitable[Any]],
        owner: str | None = None,
        ttl_ms: Any = None,
    ) -> dict[str, Any]:
        """Record a new `working` task of `owner` (kept `granted_ttl(ttl_ms)`), start `work` in the
        background and return the task as the `CreateTaskResult` wire data (its `resultType` added).
        `work` returns the task's result (wire data or a model); a ProtocolError it raises fails the task
        with that error. An owner over its quota gets a ProtocolError and no task."""
        now, ttl = _now(), self.granted_ttl(ttl_ms)
        expires = time.monotonic() + ttl / 1000
        record = TaskRecord(
            task_id=secrets.token_urlsafe(16),
            status="working",
            created_at=now,
            last_updated_at=now,
            ttl_ms=ttl,
            poll_interval_ms=self.poll_interval_ms,
            expires=expires,
            owner=owner,
        )
        await self.hear()
        self._claim(owner, record.task_id, expires)
        try:
            await self.store.put(record)
        except BaseException:
            self._release(owner, record.task_id)
            raise
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
        """Record a change of a task's state (a terminal task never changes again) and tell the
        listeners watching it."""
        record = await self.store.get(task_id)
        if record is None or record.status in TERMINAL:
            return
        if changes.get("status") != "input_required":
            changes.setdefault("input_requests", None)
        changed = replace(record, last_updated_at=_now(), **changes)
        await self.store.put(changed)
        self.announce(changed)
        shared = self._shared()
        if shared is not None:
            state = {"taskId": task_id, "owner": changed.owner, "state": changed.wire()}
            await shared.signal({"kind": "state", "worker": self.worker, **state})

    def announce(self, record: TaskRecord) -> None:
        """Hand a task's new state to the listeners watching it (its owner's only)."""
        for watch in self.watches.get(record.task_id, ()):
            if watch.owner == record.owner:
                watch.offer(record.wire())

    @contextlib.asynccontextmanager
    async def watch(self, task_ids: Any, owner: str | None = None) -> AsyncIterator[TaskWatch]:
        """Watch the tasks of `task_ids` (any JSON; at most `max_watched` ids are looked at) that exist
        and belong to `owner`: the watch's `task_ids` are those to acknowledge, and iterating it yields
        each one's current state first, then every change (`notifications/tasks` params) until all have
        ended."""
        wanted = (
            list(dict.fromkeys(t for t in task_ids if isinstance(t, str)))[: self.max_watched]
            if isinstance(task_ids, list)
            else []
        )
        await self.hear()  # the other workers' changes reach this one's listeners
        watch = TaskWatch(owner)
        for task_id in wanted:  # before reading them: no change is missed in between
            self.watches.setdefault(task_id, set()).add(watch)
        try:
            for task_id in wanted:
                record = await self._found(task_id, owner)
                if record is None:
                    self._unwatch(task_id, watch)
                    continue
                watch.task_ids.append(task_id)
                watch.open.add(task_id)
                if task_id not in watch.pending:
                    watch.offer(record.wire())
            yield watch
        finally:
            for task_id in wanted:
                self._unwatch(task_id, watch)

    def _unwatch(self, task_id: str, watch: TaskWatch) -> None:
        watching = self.watches.get(task_id)
        if watching is not None:
            watching.discard(watch)
            if not watching:
                del self.watches[task_id]

    async def get(self, task_id: Any, owner: str | None = None) -> dict[str, Any]:
        """`tasks/get`: the task with what its status inlines; -32602 for a task unknown to `owner`."""
        return (await self._known(task_id, owner)).wire()

    async def cancel(self, task_id: Any, owner: str | None = None) -> None:
        """`tasks/cancel`: stop the work if it still runs (waiting for it at most `CANCEL_WAIT` seconds)
        and settle the task `cancelled`; a terminal task is acknowledged as it is. -32602 for a task
        unknown to `owner`."""
        await self._known(task_id, owner)
        running = self.running.get(task_id)
        if running is not None and running.job is not None and not running.job.done():
            running.job.cancel()
            await asyncio.wait([running.job], timeout=CANCEL_WAIT)
        elif running is None and (shared := self._shared()) is not None:
            await shared.signal({"kind": "cancel", "worker": self.worker, "taskId": task_id})
        await self.change(task_id, status="cancelled")

    async def update(self, task_id: Any, responses: Any, owner: str | None = None) -> None:
        """`tasks/update`: answer outstanding input requests (other keys are ignored); the answered keys
        leave `inputRequests` before this returns (work running in another worker: once that worker
        applied them, waiting at most `CANCEL_WAIT` seconds), and the work resumes once none is left.
        -32602 for a task unknown to `owner`, or when the task's answers would exceed
        `max_input_bytes`; -32603 when the worker running it has not applied them by then."""
        record = await self._known(task_id, owner)
        running = self.running.get(task_id)
        if running is not None:
            await self._apply(record, running, responses)
            return
        shared = self._shared()
        fulfilled = _fulfilled(record, responses)
        if shared is None or not fulfilled:
            return
        message = {"kind": "update", "worker": self.worker, "taskId": task_id}
        await shared.signal({**message, "responses": {k: responses[k] for k in fulfilled}})
        deadline = asyncio.get_running_loop().time() + CANCEL_WAIT
        while asyncio.get_running_loop().time() < deadline:
            now = await self.store.get(task_id)
            if now is None or not set(fulfilled) & set(now.input_requests or {}):
                return
            await asyncio.sleep(0.01)
        raise ProtocolError(
            INTERNAL_ERROR,
            "The worker running the task did not take the responses: send them again",
        )

    async def _apply(self, record: TaskRecord, running: _Running, responses: Any) -> None:
        """Hand answers to the work running here (see `update`)."""
        fulfilled = _fulfilled(record, responses) if running.waiting is not None else []
        if not fulfilled:
            return
        size = len(json.dumps([responses[key] for key in fulfilled], default=str))
        if running.answered_bytes + size > self.max_input_bytes:
            raise ProtocolError(INVALID_PARAMS, "inputResponses too large")
        running.answered_bytes += size
        outstanding = dict(record.input_requests or {})
        for key in fulfilled:
            running.answered[key] = responses[key]
            del outstanding[key]
        if outstanding:
            await self.change(record.task_id, status="input_required", input_requests=outstanding)
            return
        await self.change(record.task_id, status="working")
        waiting, running.waiting = running.waiting, None
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    async def _found(self, task_id: Any, owner: str | None) -> TaskRecord | None:
        record = await self.store.get(task_id) if isinstance(task_id, str) else None
        return record if record is not None and record.owner == owner else None

    async def _known(self, task_id: Any, owner: str | None) -> TaskRecord:
        record = await self._found(task_id, owner)
        if record is None:
            raise ProtocolError(INVALID_PARAMS, "Unknown task")
        return record


# --- the client side: awaiting a task's result


class TaskCancelledError(Exception):
    """The task was cancelled before it produced a result."""


POLL_BOUNDS = (0.05, 60.0)
"""The shortest and longest wait between two `tasks/get` polls, in seconds, whatever the server suggests."""


STATUS = "notifications/tasks"
"""The notification carrying a task's state to a listener."""
LISTEN_BACKSTOP = 30.0
"""Seconds a client hearing a task's notifications waits for one before it polls anyway."""


class _Heard:
    """What a client's `subscriptions/listen` for one task hears: its latest state, and whether the
    server acknowledged listening for it (and still does)."""

    def __init__(self, task_id: Any) -> None:
        self.task_id = task_id
        self.latest: dict[str, Any] | None = None
        self.on = False
        self.open = True
        """Whether the listen request is still open (acknowledged or not yet)."""
        self.changed = asyncio.Event()

    def status(self, params: Any) -> None:
        """A `notifications/tasks` arrived."""
        if isinstance(params, Mapping) and params.get("taskId") == self.task_id:
            self.latest = dict(params)
            self.changed.set()

    def acknowledged(self, params: Any) -> None:
        """A listen acknowledgement arrived: on when it names this task."""
        honoured = params.get("notifications") if isinstance(params, Mapping) else None
        ids = honoured.get("taskIds") if isinstance(honoured, Mapping) else None
        if isinstance(ids, list) and self.task_id in ids:
            self.on = True
            self.changed.set()

    def ended(self, listening: asyncio.Future[Any]) -> None:
        """The listen request ended (answered, refused or cancelled): nothing more will be heard."""
        if not listening.cancelled():
            listening.exception()
        self.on = self.open = False
        self.changed.set()

    async def next(self, interval: float) -> dict[str, Any] | None:
        """The next state heard within `interval` seconds (`LISTEN_BACKSTOP` while the server listens
        for the task), or None."""
        began = asyncio.get_running_loop().time()
        while self.latest is None:
            limit = max(interval, LISTEN_BACKSTOP) if self.on else interval
            remaining = began + limit - asyncio.get_running_loop().time()
            if remaining <= 0:
                break
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                break
        latest, self.latest = self.latest, None
        return latest


@contextlib.asynccontextmanager
async def _listening(endpoint: Any, task_id: Any) -> AsyncIterator[_Heard | None]:
    """A `subscriptions/listen` for the task's notifications while the block runs (None where the
    surface revision has no listen request)."""
    modern = endpoint.surface.modern
    if (
        modern is None
        or not modern.listen
        or not modern.listen_filter_key
        or not modern.acknowledged
    ):
        yield None
        return
    heard = _Heard(task_id)
    hooks = ((STATUS, heard.status), (modern.acknowledged, heard.acknowledged))
    for method, hook in hooks:
        endpoint.observers.setdefault(method, []).append(hook)
    listening = asyncio.ensure_future(
        endpoint.call(modern.listen, {modern.listen_filter_key: {"taskIds": [task_id]}})
    )
    listening.add_done_callback(heard.ended)
    try:
        yield heard
    finally:
        listening.cancel()
        for method, hook in hooks:
            endpoint.observers[method].remove(hook)


async def await_task(
    client: Any,
    task: Any,
    method: str = "tools/call",
    on_status: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    listen: bool = False,
) -> Any:
    """Follow the task `task` (a `CreateTaskResult`, its wire data, or a task id) until it ends and
    return its result as `method`'s surface result: with `listen`, through the `notifications/tasks` a
    `subscriptions/listen` brings, polling `tasks/get` only when none comes (or the server does not
    listen); else by polling at the interval the task suggests. Input requests are answered (each once)
    by `client`'s own handlers and sent with `tasks/update`; `on_status` sees every state heard or polled.
    A failed task raises ProtocolError with its error, a cancelled one TaskCancelledError; cancelling the
    wait cancels the task (`tasks/cancel`)."""
    endpoint = client._mcp
    found = task if isinstance(task, str) else dict(dump(task) or {})
    task_id = found if isinstance(found, str) else found.get("taskId")
    state: dict[str, Any] = {} if isinstance(found, str) else found
    answered: set[Any] = set()
    try:
        async with _listening(endpoint, task_id) if listen else contextlib.nullcontext() as heard:
            while not _ended(state):
                requests = state.get("inputRequests")
                fresh = {
                    key: request
                    for key, request in (requests if isinstance(requests, Mapping) else {}).items()
                    if key not in answered
                }
                heard_state = None
                if state.get("status") == "input_required" and fresh:
                    await _answer(endpoint, client, task_id, fresh)
                    answered.update(fresh)
                    if heard is not None and (heard.on or heard.open or heard.latest is not None):
                        continue  # what the answers change will be heard, or has been already
                elif state and heard is not None:
                    heard_state = await heard.next(_interval(state.get("pollIntervalMs")))
                elif state:
                    await asyncio.sleep(_interval(state.get("pollIntervalMs")))
                state = heard_state or dump(await endpoint.call("tasks/get", {"taskId": task_id}))
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


def _ended(state: Mapping[str, Any]) -> bool:
    """Whether `state` is a task's last, with what it ends with."""
    return state.get("status") in TERMINAL and (
        state.get("status") == "cancelled" or "result" in state or "error" in state
    )


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
