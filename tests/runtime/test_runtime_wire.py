"""The HTTP wire's fast paths (runtime/http/wire.py) against the slow paths they replace: `watched` runs a
handler as a plain `await` would, whatever it does, and watches the client only while the handler waits.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http.wire import (
    _BLOCK_LONGEST,
    _BLOCKS,
    _BLOCKS_KEPT,
    _VALUE_LONGEST,
    _VALUES,
    _VALUES_KEPT,
    Request,
    watched,
)

STEPS = st.lists(st.sampled_from(["sleep", "future"]), max_size=4)
"""What a handler does before it ends: yield to the loop, or wait on a future."""
ENDS = st.sampled_from(
    ["return", "raise", "cancel-caught", "cancel", "cancel-yield-caught", "cancel-yield"]
)
"""How it ends: cancelled while waiting on a future (the task cancels the future) or while it yields to
the loop (the task throws the cancellation in), the cancellation caught or not."""


async def handler(steps: list[str], end: str, log: list[str]) -> Any:
    """A handler that does `steps`, then ends as `end` says (its own cancellation, when asked, comes from
    outside: the test cancels the task after the steps)."""
    for step in steps:
        if step == "sleep":
            await asyncio.sleep(0)
        else:
            future = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(future.set_result, step)
            log.append(await future)
    if end == "raise":
        raise ValueError("handler failed")
    if end.startswith("cancel"):
        try:  # cancelled here: waiting on a future, or yielding to the loop
            if "yield" in end:
                for _ in range(200):
                    await asyncio.sleep(0)
                log.append("never cancelled")
            else:
                await asyncio.sleep(1)  # long past the test's cancel
                log.append("never cancelled")
        except asyncio.CancelledError:
            log.append("cancelled")
            if not end.endswith("caught"):
                raise
        return "after cancel"
    return {"steps": len(steps)}


async def outcome(
    steps: list[str], end: str, turns: int, fast: bool
) -> tuple[Any, list[str], list[str]]:
    """What a task awaiting the handler ends with (plainly or `watched`; a cancelling end cancels it
    after `turns` turns of the loop), what the handler logged, and what the disconnect watch saw."""
    log: list[str] = []
    gone: list[str] = []

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def run() -> Any:
        coro = handler(steps, end, log)
        if fast:
            return await watched(coro, receive, lambda: gone.append("gone"))
        return await coro

    task = asyncio.ensure_future(run())
    if end.startswith("cancel"):
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
    try:
        result: Any = ("result", await task)
    except asyncio.CancelledError:
        result = ("cancelled",)
    except ValueError as exc:
        result = ("raised", str(exc))
    return result, log, gone


@settings(max_examples=150, deadline=None)
@given(steps=STEPS, end=ENDS, turns=st.integers(0, 12))
def test_a_watched_handler_ends_exactly_as_awaiting_it_does(
    steps: list[str], end: str, turns: int
) -> None:
    slow = asyncio.run(outcome(steps, end, turns, fast=False))
    fast = asyncio.run(outcome(steps, end, turns, fast=True))
    assert fast[:2] == slow[:2]
    assert fast[2] == []  # the client never went


def test_a_handler_that_does_not_wait_costs_no_watch_and_one_that_waits_is_watched() -> None:
    async def main() -> tuple[int, list[str]]:
        received: list[str] = []
        gone: list[str] = []
        disconnect = asyncio.Event()

        async def receive() -> dict[str, Any]:
            received.append("receive")
            await disconnect.wait()
            return {"type": "http.disconnect"}

        async def ready() -> str:
            return "ready"

        before = len(asyncio.all_tasks())
        assert await watched(ready(), receive, lambda: gone.append("gone")) == "ready"
        tasks = len(asyncio.all_tasks()) - before
        await asyncio.sleep(0)
        assert received == [] and gone == []

        async def slow() -> str:
            await asyncio.sleep(0.01)
            disconnect.set()
            await asyncio.sleep(0.01)
            return "slow"

        assert await watched(slow(), receive, lambda: gone.append("gone")) == "slow"
        return tasks, gone + received

    tasks, seen = asyncio.run(main())
    assert tasks == 0
    assert seen == ["gone", "receive"]


def headers_as_read_before(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """The slow path `Request` replaced: every name decoded and lowered, repeated fields joined in order."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in raw:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1").strip(" \t")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


NAMES = st.sampled_from(
    [b"host", b"Host", b"origin", b"ORIGIN", b"content-type", b"mcp-session-id", b"Mcp-Name"]
    + [b"mcp-param-region", b"x-other", b"\xe9t\xe9", b"accept", b"mcp-protocol-version"]
) | st.binary(min_size=1, max_size=12)


VALUES = st.sampled_from(
    [b"", b" ", b" \t", b"\tx ", b"application/json", b"a" * 64, b"b" * 65]
) | st.binary(max_size=80)
"""Header values: empty, only whitespace, padded, at and past the longest that is remembered, any bytes."""


@settings(max_examples=300, deadline=None)
@given(
    raw=st.lists(st.tuples(NAMES, VALUES), max_size=8),
    shape=st.sampled_from(["list", "tuple", "fields as lists", "iterator"]),
)
def test_a_request_reads_any_header_set_as_the_slow_path_did(
    raw: list[tuple[bytes, bytes]], shape: str
) -> None:
    expected = headers_as_read_before(raw)
    for _ in range(2):  # the second read finds the values (and the whole list) it remembered
        headers: Any = {
            "list": lambda: list(raw),
            "tuple": lambda: tuple(raw),
            "fields as lists": lambda: [list(field) for field in raw],
            "iterator": lambda: iter(raw),
        }[shape]()
        scope = {"type": "http", "method": "POST", "headers": headers}
        request = Request(scope)
        assert request.headers == expected
        assert all(request.get(name) == value for name, value in expected.items())


def test_remembered_header_values_stay_bounded_and_right() -> None:
    """A client sending ever new values fills the values remembered, which then start again: every
    read stays as the slow path reads it, and at most `_VALUES_KEPT` short values are kept."""
    for n in range(3 * _VALUES_KEPT):
        raw = [(b"mcp-session-id", b" s%d\t" % n), (b"x-long", b"v%d" % n + b"x" * _VALUE_LONGEST)]
        assert Request({"type": "http", "method": "POST", "headers": raw}).headers == (
            headers_as_read_before(raw)
        )
        assert len(_VALUES) <= _VALUES_KEPT
        assert all(len(value) <= _VALUE_LONGEST for value in _VALUES)


def test_remembered_header_lists_stay_bounded_and_hold_nothing_long() -> None:
    """A client sending ever new header lists fills the lists remembered, which then start again: every
    read stays as the slow path reads it, at most `_BLOCKS_KEPT` lists are kept, and none with a long
    name or value or more than `_BLOCK_LONGEST` fields (a token, a flood of fields)."""
    many = [(b"x-%d" % n, b"v") for n in range(_BLOCK_LONGEST)]
    for n in range(3 * _BLOCKS_KEPT):
        for raw in (
            [(b"mcp-session-id", b"s%d" % n), (b"host", b"localhost")],
            [(b"authorization", b"Bearer " + b"t" * _VALUE_LONGEST + b"%d" % n)],
            [(b"x-" + b"n" * _VALUE_LONGEST + b"%d" % n, b"v")],
            [*many, (b"x-more", b"%d" % n)],
        ):
            assert Request({"type": "http", "method": "POST", "headers": raw}).headers == (
                headers_as_read_before(raw)
            )
        assert len(_BLOCKS) <= _BLOCKS_KEPT
        assert all(
            len(kept) <= _BLOCK_LONGEST
            and all(len(name) <= _VALUE_LONGEST and len(value) <= _VALUE_LONGEST for name, value in kept)
            for kept in _BLOCKS
        )
    assert _BLOCKS  # the short lists were kept


def test_a_request_sending_a_remembered_list_reads_the_same_fields() -> None:
    """Two requests sending the same header list (new bytes each time, as a server reads them) read the
    same fields; a list that differs in one value reads its own."""
    def raw(session: bytes) -> list[tuple[bytes, bytes]]:
        return [(bytes(b"host"), bytes(b"localhost")), (bytes(b"mcp-session-id"), bytes(session))]

    first = Request({"type": "http", "method": "POST", "headers": raw(b"one")})
    again = Request({"type": "http", "method": "POST", "headers": raw(b"one")})
    other = Request({"type": "http", "method": "POST", "headers": raw(b"two")})
    assert first.headers == again.headers == {"host": "localhost", "mcp-session-id": "one"}
    assert other.headers == {"host": "localhost", "mcp-session-id": "two"}
    assert again.get("mcp-session-id") == "one" and other.get("mcp-session-id") == "two"
