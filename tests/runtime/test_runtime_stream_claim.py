"""`Stream.answer_json` (runtime/http/stream.py) claims a POST for a JSON answer without the lock's
coroutines when acquiring would not wait; it must decide exactly as taking the lock does: first come,
first served, a writer already queued for the lock going before it."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpgen.runtime.http.stream import Stream, StreamOptions


def fresh(written: list[Any]) -> Stream:
    """A stateless POST's stream whose SSE answer, once begun, is recorded in `written`."""
    stream = Stream(None, "0", StreamOptions(keepalive=None))

    async def send(message: Any) -> None:
        written.append(message)

    async def start() -> Any:
        written.append("sse")
        return send

    stream.start = start
    return stream


def test_an_unclaimed_stream_is_claimed_for_json_once() -> None:
    async def main() -> None:
        written: list[Any] = []
        stream = fresh(written)
        assert await stream.answer_json() is True
        assert stream.finished and stream.ended.is_set() and stream.start is None
        assert await stream.answer_json() is False
        assert written == [] and not stream.lock.locked()

    asyncio.run(main())


def test_a_stream_that_went_sse_is_not_claimed() -> None:
    async def main() -> None:
        written: list[Any] = []
        stream = fresh(written)
        await stream.emit({"jsonrpc": "2.0", "method": "notifications/message"})
        assert await stream.answer_json() is False
        assert written[0] == "sse" and not stream.finished

    asyncio.run(main())


def test_a_writer_queued_for_the_lock_goes_before_the_claim() -> None:
    """The lock is released with an `emit` waiting for it: taking the lock queues the claim behind the
    emit (asyncio locks are fair), so the answer goes SSE and the claim fails, as it did with the lock.
    """

    async def main() -> None:
        written: list[Any] = []
        stream = fresh(written)
        await stream.lock.acquire()
        emit = asyncio.ensure_future(
            stream.emit({"jsonrpc": "2.0", "method": "notifications/message"})
        )
        await asyncio.sleep(0)
        assert stream.lock._waiters  # the emit waits for the lock
        stream.lock.release()
        assert await stream.answer_json() is False
        await emit
        assert written[0] == "sse" and not stream.finished

    asyncio.run(main())


def test_a_claim_waits_for_a_writer_holding_the_lock() -> None:
    async def main() -> None:
        written: list[Any] = []
        stream = fresh(written)
        await stream.lock.acquire()
        claim = asyncio.ensure_future(stream.answer_json())
        await asyncio.sleep(0)
        assert not claim.done()
        stream.start = None  # the holder went SSE
        stream.lock.release()
        assert await claim is False

    asyncio.run(main())
