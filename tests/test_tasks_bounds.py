"""Bounds of a task runner (runtime/tasks.py) facing many clients: each owner holds at most `per_owner`
unexpired tasks, whatever the others do (a property over any interleaving of their requests); a
requested TTL is capped; the input answered to one task is bounded; a listener watches a bounded number
of tasks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.runtime.jsonrpc import ProtocolError
from mcpgen.runtime.tasks import MemoryTaskStore, TaskRunner
from task_support import settle

QUOTA = 3
OWNERS = ("mallory", "eve", None)


async def forever(ctx: Any) -> Any:
    await asyncio.Event().wait()


async def stop(runner: TaskRunner) -> None:
    jobs = [r.job for r in runner.running.values() if r.job is not None]
    for job in jobs:
        job.cancel()
    await asyncio.gather(*jobs, return_exceptions=True)


@settings(max_examples=60, deadline=None)
@given(attempts=st.lists(st.sampled_from(OWNERS), max_size=30), victim_first=st.integers(0, QUOTA))
def test_no_client_exhausts_another_clients_quota(attempts: list[str | None], victim_first: int) -> None:
    """Others start tasks in any order and number (the victim some of its own among them): the victim
    still gets exactly its quota, and every owner exactly min(its attempts, quota)."""

    async def scenario() -> tuple[dict[Any, int], int]:
        runner = TaskRunner(MemoryTaskStore(limit=QUOTA * (len(OWNERS) + 1)), per_owner=QUOTA)
        granted: dict[Any, int] = {}
        for owner in ["alice"] * victim_first + attempts:
            try:
                await runner.start(forever, owner=owner)
            except ProtocolError:
                continue
            granted[owner] = granted.get(owner, 0) + 1
        victim = granted.get("alice", 0)
        while True:
            try:
                await runner.start(forever, owner="alice")
            except ProtocolError:
                break
            victim += 1
        await stop(runner)
        return granted, victim

    granted, victim = asyncio.run(scenario())
    assert victim == QUOTA
    for owner in OWNERS:
        assert granted.get(owner, 0) == min(attempts.count(owner), QUOTA)


def test_an_expired_task_frees_its_owners_quota() -> None:
    async def scenario() -> tuple[int, str]:
        runner = TaskRunner(per_owner=2)
        await runner.start(forever, owner="a", ttl_ms=50)
        await runner.start(forever, owner="a", ttl_ms=50)
        with pytest.raises(ProtocolError) as refused:
            await runner.start(forever, owner="a")
        await asyncio.sleep(0.1)
        created = await runner.start(forever, owner="a")
        await stop(runner)
        return refused.value.code, created["status"]

    assert asyncio.run(scenario()) == (-32603, "working")


@pytest.mark.parametrize(
    ("requested", "granted"),
    [(None, 60_000), (1_000, 1_000), (10**15, 3_600_000), (0, 60_000), (-5, 60_000), (True, 60_000), ("9", 60_000), (2.5, 60_000)],
)
def test_a_requested_ttl_is_granted_up_to_the_cap(requested: Any, granted: int) -> None:
    async def scenario() -> int:
        runner = TaskRunner(ttl_ms=60_000, max_ttl_ms=3_600_000)
        created = await runner.start(forever, ttl_ms=requested)
        found = await runner.get(created["taskId"])
        await stop(runner)
        assert created["ttlMs"] == found["ttlMs"]
        ttl: int = found["ttlMs"]
        return ttl

    assert asyncio.run(scenario()) == granted


def test_the_input_answered_to_a_task_is_bounded() -> None:
    async def ask(ctx: Any) -> Any:
        answers = await ctx.ask({"a": {"method": "roots/list"}, "b": {"method": "roots/list"}})
        return {"content": [{"type": "text", "text": str(sorted(answers))}]}

    async def scenario() -> tuple[int, list[str], list[str], str]:
        runner = TaskRunner(max_input_bytes=100)
        task_id = (await runner.start(ask))["taskId"]
        await settle(runner, task_id, "input_required")
        with pytest.raises(ProtocolError) as refused:
            await runner.update(task_id, {"a": {"roots": ["x" * 200]}})
        left = sorted((await runner.get(task_id))["inputRequests"])
        await runner.update(task_id, {"a": {"roots": []}})
        after = sorted((await runner.get(task_id))["inputRequests"])
        with pytest.raises(ProtocolError):
            await runner.update(task_id, {"b": {"roots": ["y" * 90]}})  # the task's total counts
        await runner.update(task_id, {"b": {"roots": []}})
        return refused.value.code, left, after, (await settle(runner, task_id, "completed"))["status"]

    assert asyncio.run(scenario()) == (-32602, ["a", "b"], ["b"], "completed")


def test_a_listener_watches_a_bounded_number_of_its_own_tasks() -> None:
    async def scenario() -> tuple[list[str], list[str], list[str], int]:
        runner = TaskRunner(max_watched=2, per_owner=10)
        mine = [(await runner.start(forever, owner="a"))["taskId"] for _ in range(3)]
        theirs = (await runner.start(forever, owner="b"))["taskId"]
        async with runner.watch([theirs, *mine, 7, {"x": 1}], owner="a") as watch:
            narrowed = list(watch.task_ids)
        async with runner.watch(mine + mine, owner="a") as watch:
            dropped = list(watch.task_ids)
        await stop(runner)
        return mine, narrowed, dropped, len(runner.watches)

    mine, narrowed, dropped, left = asyncio.run(scenario())
    assert narrowed == mine[:1]  # the first two ids looked at: another owner's, then one of its own
    assert dropped == mine[:2] and left == 0


class Racing(MemoryTaskStore):
    """A store that runs `hook` (once) before its next read: a change lands while a watch reads its tasks."""

    hook: Any = None

    async def get(self, task_id: str) -> Any:
        hook, self.hook = self.hook, None
        if hook is not None:
            await hook()
        return await super().get(task_id)


def test_a_change_while_a_watch_reads_its_tasks_reaches_only_the_tasks_owner() -> None:
    async def scenario() -> tuple[list[str], list[Any], list[str]]:
        store = Racing()
        runner = TaskRunner(store)
        theirs = (await runner.start(forever, owner="bob"))["taskId"]
        mine = (await runner.start(forever, owner="alice"))["taskId"]
        store.hook = lambda: runner.change(theirs, status="working", status_message="changed")
        async with runner.watch([theirs], owner="alice") as watch:
            acknowledged = list(watch.task_ids)
            heard = [state async for state in watch]
        store.hook = lambda: runner.change(mine, status="working", status_message="changed")
        async with runner.watch([mine], owner="alice") as watch:
            first = await watch.__anext__()
        await stop(runner)
        return acknowledged, heard, [first["taskId"], first.get("statusMessage")]

    acknowledged, heard, first = asyncio.run(scenario())
    assert acknowledged == [] and heard == []
    assert first[1] == "changed"  # the change during the read is what the owner hears first
