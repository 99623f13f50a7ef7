"""A session of the session era: its Server, the requests it sent the client and its SSE streams."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import time
from typing import Any

from ..peer import Peer
from ..revisions import Revisions
from .common import cancel
from .stream import Stream, StreamOptions
from .wire import Send, start_sse

_SEQ_DIGITS = 20
"""The most digits an event number of `Last-Event-ID` has (its counter never reaches more)."""


class Session:
    """A session-era conversation: its Server, the requests it sent the client, its SSE streams."""

    def __init__(
        self, session_id: str, server: Peer, options: StreamOptions, revisions: Revisions
    ) -> None:
        self.id = session_id
        self.server = server
        self.options = options
        self.revisions = revisions
        self.version: str | None = None
        self.last_seen = time.monotonic()
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.keys = itertools.count(1)
        self.standalone = Stream(self, "0", self.options)
        self.streams: collections.OrderedDict[str, Stream] = collections.OrderedDict()
        self.closed = False
        self.active = 0
        """Requests of this session being served right now (POSTs and an attached GET stream): each counts
        itself in and, when it ends, out, setting `last_seen` (a session is never idle while it serves)."""
        self.owner: tuple[Any, ...] | None = None
        """Whom the session belongs to on a server with `auth`: its access token's issuer, subject and
        client (`AccessToken.principal`)."""
        server.attach(self)

    def idle_for(self, now: float) -> float:
        """Seconds the session has done nothing: nothing served, nothing in flight, no stream attached."""
        busy = self.active or self.pending or self.server._mcp.flights or self.standalone.send
        return 0.0 if busy else now - self.last_seen

    def trim(self, keeping: Stream) -> None:
        """Forget the oldest events of the session's streams until they fit its replay budget (the
        newest event of `keeping`, the stream just written, stays whatever its size)."""
        streams = [self.standalone, *self.streams.values()]
        total = sum(s.kept for s in streams)
        for stream in sorted(streams, key=lambda s: (not s.finished, s is keeping)):
            while total > self.options.replay_bytes and stream.events:
                if stream is keeping and len(stream.events) == 1:
                    return
                before = stream.kept
                stream.forget()
                total -= before - stream.kept

    def keep(self, stream: Stream) -> None:
        """Keep a stream that went SSE for resumption, forgetting the oldest beyond the bound."""
        self.streams[stream.key] = stream
        while len(self.streams) > self.options.max_streams:
            self.streams.popitem(last=False)

    def find(self, event_id: str) -> tuple[Stream, int] | None:
        """The stream and position an SSE event id names."""
        key, _, seq = event_id.strip().rpartition("-")
        stream = self.standalone if key == "0" else self.streams.get(key)
        if stream is None or not seq.isascii() or not seq.isdigit() or len(seq) > _SEQ_DIGITS:
            return None
        return stream, int(seq)

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request that belongs to no request of the client's: on the standalone GET stream."""
        return await self.ask(self.standalone, method, params)

    async def ask(self, stream: Stream, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on `stream` and wait for the response it POSTs back."""
        if self.closed:
            raise ConnectionError("MCP session is closed")
        request_id = next(self.ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await stream.emit(message)
            return await future
        except asyncio.CancelledError:
            if not self.closed:
                with contextlib.suppress(Exception):
                    await cancel(stream, self.revisions, self.version, request_id)
            raise
        finally:
            self.pending.pop(request_id, None)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification that belongs to no request: on the standalone GET stream."""
        await self.standalone.notify(method, params)

    async def close(self) -> None:
        """End the session: cancel its handlers and its requests to the client, end its streams."""
        self.closed = True
        endpoint = self.server._mcp
        for request_id in list(endpoint.flights):
            endpoint.cancel_in_flight(request_id)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionError("MCP session is closed"))
        for stream in (self.standalone, *self.streams.values()):
            with contextlib.suppress(Exception):
                await stream.close(final=True)
            stream.events.clear()
            stream.kept = 0
            stream.session = None
        self.streams.clear()
        self.server.attach(None)


class Answer:
    """The channel of one POSTed request's handler: the SSE stream of its answer, made when the handler
    first sends something (most answer with plain JSON and never need one). Its key is taken when the
    POST comes, so every event id is the one a stream made at once would carry."""

    __slots__ = ("session", "key", "send", "stream", "answered")

    def __init__(self, session: Session, send: Send) -> None:
        self.session = session
        self.key = next(session.keys)
        self.send = send
        self.stream: Stream | None = None
        self.answered = False
        """Set once the POST was claimed for a JSON answer: a stream made later is finished already (what
        it is sent goes to the session's GET stream)."""

    def opened(self) -> Stream:
        """The answer's stream, made on first use."""
        stream = self.stream
        if stream is None:
            session = self.session
            stream = self.stream = Stream(session, str(self.key), session.options)
            stream.start = self._begin
            if self.answered:
                stream.claim()
        return stream

    async def _begin(self) -> Send:
        """Begin the POST's SSE answer, keeping its stream for resumption."""
        assert self.stream is not None
        self.session.keep(self.stream)
        return await start_sse(self.send, self.session.id)

    def gone(self) -> None:
        """The client went while the handler waits: let go of the stream's connection (the handler goes
        on; the client resumes the stream with `Last-Event-ID`)."""
        asyncio.ensure_future(self._let_go())

    async def _let_go(self) -> None:
        if self.stream is not None:
            await self.stream.detach(self.send)

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on the answer's stream and wait for its answer."""
        return await self.opened().request(method, params)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification on the answer's stream (which then answers with SSE)."""
        await self.opened().notify(method, params)
