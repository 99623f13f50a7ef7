"""SSE streams with replay: the answer to a POST, or a session's standalone GET stream, numbered so that a
client that lost its connection resumes with `Last-Event-ID`."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, ProtocolError, encode
from ..log import logger
from .common import error_body
from .wire import Reject, Send, encoded


@dataclass(frozen=True)
class StreamOptions:
    """How SSE streams behave: the `retry` they announce, the events kept for resumption, keep-alive comments."""

    retry_ms: int = 1000
    replay_limit: int = 256
    keepalive: float | None = 15.0
    """Seconds between `:` comment lines on an SSE connection with nothing to say (None: never)."""
    max_streams: int = 64
    """Streams a session keeps for resumption once they went SSE (the oldest are forgotten first)."""
    replay_bytes: int = 1024 * 1024
    """Bytes of events a session keeps for resumption, over all its streams (the oldest go first)."""


class Conversation(Protocol):
    """What a stream needs of the session it belongs to."""

    standalone: Stream
    """The session's GET stream, which carries what belongs to no request of the client's."""

    def trim(self, keeping: Stream) -> None:
        """Forget old events until the session's streams fit its replay budget."""

    async def ask(self, stream: Stream, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on `stream` and wait for its answer."""


class Stream:
    """One SSE stream: the answer to a POST or the standalone GET stream of a session.

    A Channel for the messages a handler sends while it runs. Events are numbered and the last
    `replay_limit` kept, so a client that lost the connection resumes with `Last-Event-ID`.
    """

    def __init__(self, session: Conversation | None, key: str, options: StreamOptions) -> None:
        self.session = session
        self.key = key
        self.options = options
        self.seq = 0
        self.sent = 0
        """The last event written to a connection (a new standalone GET starts after it)."""
        self.events: collections.deque[tuple[int, bytes]] = collections.deque()
        self.kept = 0
        """Bytes of `events`."""
        self._lock: asyncio.Lock | None = None
        self.send: Send | None = None
        self._beat: asyncio.Future[None] | None = None
        self.start: Callable[[], Awaitable[Send]] | None = None
        """Begins the SSE answer of the POST that owns this stream; None once begun or when it answered JSON."""
        self.finished = False
        self._gone = False
        self._ended: asyncio.Event | None = None

    @property
    def ended(self) -> asyncio.Event:
        """Set when no connection writes the stream any more (finished, or the connection was let go).
        Made when first asked for: a POST answered as JSON is never waited on."""
        if self._ended is None:
            self._ended = asyncio.Event()
            if self._gone:
                self._ended.set()
        return self._ended

    def _end(self) -> None:
        self._gone = True
        if self._ended is not None:
            self._ended.set()

    @property
    def lock(self) -> asyncio.Lock:
        """What orders the writes to the stream (made on first use: most POSTs answer JSON, unlocked)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def prime(self) -> bytes:
        return f"id: {self.key}-0\nretry: {self.options.retry_ms}\ndata: \n\n".encode("ascii")

    async def _begin(self) -> None:
        if self.start is not None:
            begin, self.start = self.start, None
            self.send = await begin()
            await self._write(self.prime())
            self._pulse()

    def _pulse(self) -> None:
        """Start the keep-alive comments of the connection just attached."""
        if self.options.keepalive and self._beat is None:
            self._beat = asyncio.ensure_future(self._heartbeat(self.options.keepalive))

    async def _heartbeat(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            async with self.lock:
                await self._write(b":\n\n")

    async def _write(self, chunk: bytes, more: bool = True) -> None:
        if self.send is not None:
            try:
                await self.send({"type": "http.response.body", "body": chunk, "more_body": more})
            except OSError:
                self.send = None

    async def emit(self, message: Any, final: bool = False) -> None:
        """Number and keep one message, and write it to the connection if one is attached."""
        data = encoded(message) if final else encode(message)
        async with self.lock:
            if self.finished:
                raise ConnectionError("the SSE stream has ended")
            self.seq += 1
            chunk = b"id: %s-%d\ndata: %s\n\n" % (self.key.encode("ascii"), self.seq, data)
            self._keep(chunk)
            await self._begin()
            await self._write(chunk, more=not final)
            if self.send is not None:
                self.sent = self.seq
            if final:
                self.finished = True
                self._release()

    def _keep(self, chunk: bytes) -> None:
        """Keep an event for resumption, within the stream's count and the session's bytes (a stream of
        no session is never resumed: it keeps none)."""
        if self.session is None:
            return
        self.events.append((self.seq, chunk))
        self.kept += len(chunk)
        while len(self.events) > self.options.replay_limit:
            self.forget()
        self.session.trim(self)

    def forget(self) -> None:
        """Drop the oldest kept event."""
        self.kept -= len(self.events.popleft()[1])

    def _release(self) -> None:
        self.send = None
        self._end()
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None

    async def answer_json(self) -> bool:
        """Claim the POST for a plain JSON answer; False when it already went SSE."""
        lock = self._lock
        # nobody holds or waits for the lock (acquiring would not wait): skip its coroutines
        if lock is None or (not lock.locked() and not lock._waiters):
            return self.claim()
        async with lock:
            return self.claim()

    def claim(self) -> bool:
        """Claim the POST for a plain JSON answer now, unlocked; False when it already went SSE."""
        if self.start is None:
            return False
        self.start = None
        self.finished = True
        self._end()
        return True

    async def close(self, final: bool = False) -> None:
        """End the current connection (after priming it), keeping the stream resumable unless `final`."""
        async with self.lock:
            await self._begin()
            await self._write(b"", more=False)
            if final:
                self.finished = True
            self._release()

    async def resume(self, send: Send, after: int) -> None:
        """Attach a new connection: replay the events after `after`, then write new ones as they come."""
        async with self.lock:
            if self.send is not None:
                raise Reject(
                    409, error_body(INVALID_REQUEST, "Conflict: the stream is already connected")
                )
            self._gone = False
            if self._ended is not None:
                self._ended.clear()
            self.send = send
            for seq, chunk in list(self.events):
                if seq > after:
                    await self._write(chunk)
                    self.sent = seq
            if self.finished:
                await self._write(b"", more=False)
                self._release()
            else:
                self._pulse()

    async def detach(self, send: Send) -> None:
        """End and forget the connection `send` if it still writes this stream."""
        async with self.lock:
            if self.send is send:
                await self._write(b"", more=False)
                self._release()

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on this stream (session era) and wait for its answer."""
        if self.session is None:
            raise ProtocolError(
                INTERNAL_ERROR, f"{method}: this protocol version sends no requests over HTTP"
            )
        return await self.session.ask(
            self if not self.finished else self.session.standalone, method, params
        )

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification on this stream (or, once the stream has ended, on the session's GET stream)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if self.finished:
            if self.session is None:
                logger.info("%s dropped: its request has been answered", method)
                return
            await self.session.standalone.emit(message)
            return
        await self.emit(message)
