"""How long an HTTP server's conversations live: sessions end when idle, SSE connections are let go when the
process is told to stop, and everything ends at the ASGI lifespan's shutdown."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import signal
import threading
import time
from typing import Any

from ..log import logger
from .session import Session
from .stream import Stream
from .wire import Receive, Send


class Sessions(collections.OrderedDict[str, Session]):
    """The live sessions of an app by id, the one seen least recently first; each ends once idle for
    `timeout` seconds, or earlier when a new one needs its place (`idlest`)."""

    def __init__(self, timeout: float) -> None:
        super().__init__()
        self.timeout = timeout
        self._sweeper: asyncio.Future[None] | None = None

    def add(self, session: Session) -> None:
        """Keep a session whose handshake succeeded, sweeping idle sessions while any live."""
        self[session.id] = session
        if self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep())

    def seen(self, session: Session) -> None:
        """Note that `session` is in use now: it goes last in the order `idlest` looks in."""
        session.last_seen = time.monotonic()
        if session.id in self:
            self.move_to_end(session.id)

    def idlest(self) -> Session | None:
        """The session idle longest, None when each of the first few in line is busy: a busy one looked at
        goes last, so the next look starts where idle ones are."""
        now = time.monotonic()
        for session in list(itertools.islice(self.values(), _LOOKED_AT)):
            if session.idle_for(now) > 0.0:
                return session
            self.move_to_end(session.id)
        return None

    async def _sweep(self) -> None:
        """End sessions idle for `timeout`, checking a few times per timeout while any exist."""
        while self:
            await asyncio.sleep(max(min(self.timeout / 4, 30.0), 0.05))
            now = time.monotonic()
            for stale in [s for s in self.values() if s.idle_for(now) > self.timeout]:
                if stale.id in self:
                    logger.info("session %s ended after %.0f s idle", stale.id[:8], self.timeout)
                    await asyncio.shield(self.end(stale))
        self._sweeper = None

    async def end(self, session: Session) -> None:
        """Forget and close `session`; the sweeper stops with the last session."""
        if self.pop(session.id, None) is None:
            return
        sweeper = self._sweeper
        if not self and sweeper is not None and sweeper is not asyncio.current_task():
            self._sweeper = None
            sweeper.cancel()
        await session.close()

    async def close(self) -> None:
        """Stop sweeping, forget every session and close them."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        sessions = list(self.values())
        self.clear()
        for session in sessions:
            await session.close()


_LOOKED_AT = 64
"""Sessions `idlest` looks at, at most, for one that is idle (a look costs at most this much)."""


class Lifecycle:
    """An app's life in its server: the ASGI lifespan, the exit signals, the shutdown."""

    def __init__(self, sessions: Sessions, open_streams: set[Stream]) -> None:
        self.sessions = sessions
        self.open_streams = open_streams
        """Stateless-era SSE answers being written (a listen request's may never end by itself)."""
        self.signals: dict[int, Any] = {}
        """The handlers `watch_signals` chained to, by signal; empty until it runs, and after `aclose`."""

    async def lifespan(self, receive: Receive, send: Send) -> None:
        """Serve the ASGI lifespan protocol: nothing to start, `aclose` at shutdown."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def watch_signals(self) -> None:
        """Chain to the handlers of SIGINT and SIGTERM (a server's, like uvicorn's, that start its graceful
        shutdown): the app then ends its SSE connections, which never end by themselves, so the server
        does not wait on them. They stay resumable; sessions end at the lifespan's shutdown (`aclose`).
        """
        if threading.current_thread() is not threading.main_thread():
            self.signals[0] = None  # nothing to chain to here: done
            return
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(signum)
            self.signals[signum] = previous
            if not callable(previous) or previous is signal.default_int_handler:
                continue  # no server stops gracefully on it here: nothing waits on the streams

            def exiting(number: int, frame: Any, previous: Any = previous) -> None:
                with contextlib.suppress(RuntimeError):  # the loop is gone already
                    loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._let_go()))
                previous(number, frame)

            signal.signal(signum, exiting)

    async def _let_go(self) -> None:
        """End every SSE connection now (the server is stopping), leaving the streams resumable."""
        streams = [*self.open_streams]
        for session in self.sessions.values():
            streams += [session.standalone, *session.streams.values()]
        for stream in streams:
            if stream.send is not None:
                with contextlib.suppress(Exception):
                    await stream.close()

    def _restore_signals(self) -> None:
        for signum, previous in self.signals.items():
            if signum and callable(previous):
                with contextlib.suppress(ValueError):  # not the main thread any more
                    signal.signal(signum, previous)
        self.signals.clear()

    async def aclose(self) -> None:
        """End every session (as the server shuts down)."""
        self._restore_signals()
        await self.sessions.close()
