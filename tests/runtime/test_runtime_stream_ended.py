"""`Stream.ended` (runtime/http/stream.py) is made when first asked for, not with every stream (most POSTs
answer JSON and nobody waits on it); whenever it is first asked for, it must say what an event made with
the stream and kept up to date since says: set once no connection writes the stream (claimed for JSON,
finished, let go), clear again while a resumed connection writes it."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.runtime.http.wire import Reject
from mcpgen.runtime.http.stream import Stream, StreamOptions

OPS = ("claim", "emit", "emit-final", "close", "close-final", "resume", "detach")


def fresh() -> Stream:
    """A POST's stream whose SSE answer, once begun, goes nowhere."""
    stream = Stream(None, "1", StreamOptions(keepalive=None))

    async def send(message: Any) -> None:
        pass

    async def start() -> Any:
        return send

    stream.start = start
    return stream


async def run(stream: Stream, op: str, connection: Any) -> None:
    """One step a transport takes on a stream (a refused one, as a second resume is, changes nothing)."""
    message = {"jsonrpc": "2.0", "method": "notifications/message"}
    try:
        if op == "claim":
            await stream.answer_json()
        elif op.startswith("emit"):
            await stream.emit(message, final=op == "emit-final")
        elif op.startswith("close"):
            await stream.close(final=op == "close-final")
        elif op == "resume":
            await stream.resume(connection, 0)
        else:
            await stream.detach(stream.send if stream.send is not None else connection)
    except (Reject, ConnectionError):
        pass


@settings(max_examples=300, deadline=None)
@given(ops=st.lists(st.sampled_from(OPS), max_size=12), asked=st.integers(0, 12))
def test_ended_asked_late_says_what_an_early_event_says(ops: list[str], asked: int) -> None:
    async def main() -> None:
        async def connection(message: Any) -> None:
            pass

        early, late = fresh(), fresh()
        early.ended  # the event made with the stream, as it always was before
        for i, op in enumerate(ops):
            if i == asked:
                late.ended
            await run(early, op, connection)
            await run(late, op, connection)
            if i >= asked:
                assert late.ended.is_set() == early.ended.is_set(), (ops[: i + 1], asked)
        assert late.ended.is_set() == early.ended.is_set(), (ops, asked)

    asyncio.run(main())


def test_ended_follows_the_connections() -> None:
    async def main() -> None:
        async def connection(message: Any) -> None:
            pass

        claimed = fresh()
        assert await claimed.answer_json() is True
        assert claimed.ended.is_set()  # asked only after the claim

        open_ = fresh()
        await open_.emit({"jsonrpc": "2.0", "method": "notifications/message"})
        assert not open_.ended.is_set()  # its POST's connection still writes it
        await open_.detach(open_.send)
        assert open_.ended.is_set()
        await open_.resume(connection, 0)
        assert not open_.ended.is_set()  # a resumed connection writes it again
        waiter = asyncio.ensure_future(open_.ended.wait())
        await asyncio.sleep(0)
        assert not waiter.done()
        await open_.detach(connection)
        await asyncio.wait_for(waiter, 1)

    asyncio.run(main())
