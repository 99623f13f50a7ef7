"""Resource updates fanned out to listen handlers: within one process (`Fanout`), or to every process
of a deployment, on any machine, through one Redis pub/sub channel (`RedisFanout`).

Optional: nothing else in the runtime imports this module, and `RedisFanout` imports `redis.asyncio`
(the `redis` package) only when it first connects. A listen handler watches the resources its client
asked for (`async with fanout.watch(uris) as heard`) and sends one update per URI it hears; any
handler, on any worker, reports a resource updated with `await fanout.publish(uri)`.
"""

from __future__ import annotations

import asyncio
import collections
import importlib
from collections.abc import Iterable
from typing import Any

from .listen import covers
from .log import logger


class Watch:
    """The updates one listener hears, in the order they were published: an async iterator of URIs,
    from the moment `async with fanout.watch(uris)` is entered.

    Bounded: a listener `limit` updates behind hears, instead of that backlog, that each resource it
    watches may have changed (then what comes after), as after a gap in the Redis subscription."""

    def __init__(self, fanout: Fanout, uris: Iterable[str], limit: int = 1024) -> None:
        self.fanout = fanout
        self.uris = tuple(dict.fromkeys(uri for uri in uris if isinstance(uri, str)))
        self.limit = limit
        self.pending: collections.deque[str] = collections.deque()
        """The updates not yet heard, oldest first."""
        self._ready = asyncio.Event()

    def put(self, uri: str) -> None:
        """Queue an update for the listener (collapsing the backlog into its watched URIs when full)."""
        if len(self.pending) >= self.limit:
            logger.warning(
                "a listener fell %d updates behind: it hears its %d watched resources instead",
                len(self.pending),
                len(self.uris),
            )
            self.pending = collections.deque(self.uris)
        self.pending.append(uri)
        self._ready.set()

    async def __aenter__(self) -> Watch:
        self.fanout.add(self)
        try:
            await self.fanout.ready()
        except BaseException:
            self.fanout.discard(self)
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.fanout.discard(self)

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> str:
        while not self.pending:
            self._ready.clear()
            await self._ready.wait()
        return self.pending.popleft()


class Fanout:
    """Resource updates within one process: each published URI goes to every watch covering it."""

    def __init__(self) -> None:
        self.watches: set[Watch] = set()
        self._by_uri: dict[str, set[Watch]] = {}
        """The watches of each watched URI: an update looks up only the URIs that can cover it."""
        self._lengths: collections.Counter[int] = collections.Counter()
        """How many watched URIs have each length (the prefixes of an update worth looking up)."""

    def add(self, watch: Watch) -> None:
        """Start handing `watch` the updates of its URIs."""
        self.watches.add(watch)
        for uri in watch.uris:
            watching = self._by_uri.setdefault(uri, set())
            if not watching:
                self._lengths[len(uri)] += 1
            watching.add(watch)

    def discard(self, watch: Watch) -> None:
        """Stop handing `watch` updates."""
        if watch not in self.watches:
            return
        self.watches.discard(watch)
        for uri in watch.uris:
            watching = self._by_uri.get(uri)
            if watching is not None:
                watching.discard(watch)
                if not watching:
                    del self._by_uri[uri]
                    self._lengths[len(uri)] -= 1
                    if not self._lengths[len(uri)]:
                        del self._lengths[len(uri)]

    def covering(self, uri: str) -> set[Watch]:
        """The watches an update of `uri` concerns: of the resource itself, or of one above it."""
        found: set[Watch] = set()
        by_uri = self._by_uri
        for length in self._lengths:
            if length <= len(uri) and covers(prefix := uri[:length], uri):
                found.update(by_uri.get(prefix, ()))
        return found

    def watch(self, uris: Iterable[str], limit: int = 1024) -> Watch:
        """The updates of `uris` and of the resources under them (`async with ... as heard`), at most
        `limit` behind (see `Watch`)."""
        return Watch(self, uris, limit)

    async def ready(self) -> None:
        """Return once what is published from now on reaches the watches (in one process, at once)."""

    async def publish(self, uri: str) -> None:
        """Report the resource `uri` updated to every watch covering it."""
        self.deliver(uri)

    def deliver(self, uri: str) -> None:
        """Hand an update to the watches covering its URI (each keeps what it has not sent yet)."""
        for watch in self.covering(uri):
            watch.put(uri)


class RedisFanout(Fanout):
    """A `Fanout` whose updates travel through the Redis channel `channel` (needs the `redis` package):
    every process using it hands each update to its own watches, all in the order Redis received them.

    `options` go to `redis.asyncio.Redis.from_url`. Pub/sub keeps nothing: when this process's
    subscription breaks, it subscribes again every `retry` seconds and then tells every watch that each
    resource it watches may have changed, since what was published meanwhile is lost.
    """

    def __init__(
        self,
        url: str,
        *,
        channel: str = "mcp:resources/updated",
        retry: float = 1.0,
        **options: Any,
    ) -> None:
        super().__init__()
        self.url = url
        self.channel = channel
        self.retry = retry
        self.options = options
        self._redis: Any = None
        self._lost: type[Exception] = ConnectionError
        self._reader: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Event | None = None

    def redis(self) -> Any:
        """The `redis.asyncio.Redis` client this fan-out publishes and subscribes with (made at first use)."""
        if self._redis is None:
            try:
                module: Any = importlib.import_module("redis.asyncio")
            except ImportError:
                raise ImportError(
                    "RedisFanout needs redis, an optional dependency: pip install redis"
                ) from None
            self._lost = importlib.import_module("redis.exceptions").ConnectionError
            self._redis = module.Redis.from_url(self.url, **self.options)
        return self._redis

    async def ready(self) -> None:
        """Return once this process is subscribed to the channel (waiting while Redis is unreachable)."""
        if self._reader is None or self._subscribed is None:
            self._subscribed = asyncio.Event()
            self._reader = asyncio.ensure_future(self._read(self._subscribed))
        await self._subscribed.wait()

    async def publish(self, uri: str) -> None:
        """Publish the update to every subscribed process, this one included. Returns once Redis has
        passed it on; raises redis's `ConnectionError` when Redis cannot be reached (nobody heard it).
        """
        redis = self.redis()
        try:
            await redis.publish(self.channel, uri)
        except self._lost:
            # A pooled connection Redis closed (it restarted): once more, on a new one.
            await redis.publish(self.channel, uri)

    async def aclose(self) -> None:
        """Unsubscribe and close the connections to Redis (a later watch subscribes again)."""
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            await asyncio.wait([reader])
        redis, self._redis = self._redis, None
        if redis is not None:
            await redis.aclose()

    async def _read(self, subscribed: asyncio.Event) -> None:
        """Keep the channel subscribed and deliver its messages; every subscription after the first
        follows a gap (here, or inside redis's own reconnection), so it tells every watch to look again.
        """
        heard = False
        while True:
            try:
                async with self.redis().pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    async for message in pubsub.listen():
                        if message["type"] == "message":
                            self._deliver_raw(message["data"])
                        elif message["type"] == "subscribe":
                            if heard:
                                self._resync()
                            heard = True
                            subscribed.set()
            except Exception as exc:
                subscribed.clear()
                logger.warning(
                    "Redis channel %s lost (%s): subscribing again in %s s",
                    self.channel,
                    exc,
                    self.retry,
                )
            await asyncio.sleep(self.retry)

    def _deliver_raw(self, data: bytes | str) -> None:
        try:
            uri = data.decode("utf-8") if isinstance(data, bytes) else data
        except UnicodeDecodeError:
            logger.warning("ignored a message on %s that is not UTF-8: %.100r", self.channel, data)
            return
        self.deliver(uri)

    def _resync(self) -> None:
        for watch in self.watches:
            for uri in watch.uris:
                watch.put(uri)
