"""The listen bridge: resource subscriptions and listen streams carried across the two eras.

Two directions:
- a session-era client of a stateless-era surface subscribes with `resources/subscribe`: the surface's
  listen handler runs for the session's subscribed URIs (`session_subscribe`);
- a stateless-era client of a session-era surface opens a listen request: its URIs go to the surface's
  subscribe handler, and the server's updates and list changes go out on that request's stream
  (`serve_listen`, `notify_streams`).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .convert import dump
from .facts import Modern
from .handlers import overridden
from .jsonrpc import INVALID_PARAMS, ProtocolError
from .log import logger
from .peer import REQUEST_ID, Channel, Endpoint
from .revisions import Revision

if TYPE_CHECKING:
    import asyncio

SESSION_ACKNOWLEDGED: contextvars.ContextVar[asyncio.Future[None] | None] = contextvars.ContextVar(
    "mcp_session_acknowledged", default=None
)
"""Inside a run of the listen handler for a session's subscriptions: resolved by its acknowledgement."""
SUBSCRIBED = 1024
"""The resources one session may be subscribed to through the bridge (each subscribe runs the listen
handler again for all of them)."""
SUBSCRIBED_CHARS = 1 << 20
"""The characters of those resources' URIs together."""


def acknowledged_for_session() -> None:
    """The listen handler running for a session's subscriptions sent its acknowledgement."""
    acknowledged = SESSION_ACKNOWLEDGED.get()
    if acknowledged is not None and not acknowledged.done():
        acknowledged.set_result(None)


@dataclass
class Stream:
    """A stateless-era client's listen request served by a session surface: where its notifications
    go and which it opted in to (held back until the acknowledgement is out)."""

    revision: Revision
    channel: Channel
    request_id: Any
    methods: frozenset[str]
    uris: list[Any]
    held: list[tuple[str, Any]] | None = field(default_factory=list)


class ListenBridge:
    """One server's listen state: its session's subscribed URIs and the listen streams it serves."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.uris: list[Any] = []
        """The resources a session-era client subscribed to (served by the surface's listen handler)."""
        self.session_listen: asyncio.Future[None] | None = None
        self.streams: list[Stream] = []
        self.watching: dict[Any, int] = {}
        self.locks: dict[Any, asyncio.Lock] = {}

    # --- a session-era client of a stateless-era surface

    def serves_subscriptions(self) -> bool:
        """Whether the surface's listen handler takes resource subscriptions and is overridden."""
        modern = self.endpoint.surface.modern
        if modern is None or modern.listen is None or not modern.resource_subscriptions_key:
            return False
        return overridden(self.endpoint.peer, modern.listen) is not None

    async def session_subscribe(self, revision: Revision, method: str, uri: Any, add: bool) -> Any:
        """Update the session's subscribed resources and run the listen handler again for them. Its
        notifications go out on the session, but not those the session's revision lacks (the
        acknowledgement). The request is answered once the new run has acknowledged (or ended), and
        only then is the previous run stopped: no update is missed while the subscriptions change.
        """
        if add and uri not in self.uris:
            held = sum(len(str(u)) for u in self.uris) + len(str(uri))
            if len(self.uris) >= SUBSCRIBED or held > SUBSCRIBED_CHARS:
                raise ProtocolError(
                    INVALID_PARAMS,
                    f"Too many resource subscriptions: at most {SUBSCRIBED} URIs of"
                    f" {SUBSCRIBED_CHARS} characters in all per session",
                )
            self.uris.append(uri)
        elif not add and uri in self.uris:
            self.uris.remove(uri)
        previous, self.session_listen = self.session_listen, None
        try:
            if self.uris:
                await self._start_session_listen(revision)
        finally:
            if previous is not None:
                previous.cancel()
        return await self.endpoint.empty_result(revision, method)

    async def _start_session_listen(self, revision: Revision) -> None:
        """Run the listen handler for the session's subscribed URIs until it acknowledges (or ends)."""
        import asyncio

        endpoint = self.endpoint
        modern = endpoint.surface.modern
        assert modern is not None and modern.listen and modern.listen_filter_key
        assert modern.resource_subscriptions_key
        wire = {modern.listen_filter_key: {modern.resource_subscriptions_key: list(self.uris)}}
        params = endpoint.surface.registry.adapter(modern.listen, "params").validate_python(
            endpoint.completed(revision, modern.listen, wire)
        )
        handler = getattr(endpoint.peer, type(endpoint.peer).handlers[modern.listen])
        acknowledged = asyncio.get_running_loop().create_future()
        listen = self.session_listen = asyncio.ensure_future(
            self._listen_for_session(handler, params, acknowledged)
        )
        await asyncio.wait((listen, acknowledged), return_when=asyncio.FIRST_COMPLETED)

    async def _listen_for_session(
        self, handler: Any, params: Any, acknowledged: asyncio.Future[None]
    ) -> None:
        import asyncio

        # The session's channel, not the connection of the request that started it.
        self.endpoint.within(route=None, for_session=True)
        SESSION_ACKNOWLEDGED.set(acknowledged)
        try:
            await handler(params)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("the listen handler of a session's resource subscriptions failed")

    def stop_session_listen(self) -> None:
        """Stop the listen handler running for the session's subscriptions."""
        task, self.session_listen = self.session_listen, None
        if task is not None:
            task.cancel()

    # --- a stateless-era client of a session-era surface

    async def serve_listen(self, revision: Revision, message: Any) -> Any:
        """A stateless-era client's listen request served by a session surface: its resource URIs go to
        the subscribe handler (and the unsubscribe handler once no stream watches them), its list-change
        flags are honoured where the capabilities declare `listChanged`, and the notifications of those
        kinds the server sends go out on this request's stream, after the acknowledgement."""
        import asyncio

        endpoint = self.endpoint
        modern, keys = revision.modern, endpoint.surface.legacy
        assert modern is not None and modern.listen_filter_key
        params = dump(getattr(message, "params", None)) or {}
        wanted = params.get(modern.listen_filter_key) or {}
        capabilities = dump(endpoint.peer.derived_capabilities()) or {}
        honoured: dict[str, Any] = {
            flag.filter_key: True
            for flag in modern.listen_flags
            if wanted.get(flag.filter_key) is True
            and (capabilities.get(flag.capability) or {}).get(flag.flag) is True
        }
        methods = {flag.notification for flag in modern.listen_flags if flag.filter_key in honoured}
        stream = Stream(revision, endpoint.channel(), REQUEST_ID.get(), frozenset(), [])
        self.streams.append(stream)
        try:
            resources = modern.resource_subscriptions_key
            if resources and modern.resource_updated and keys is not None and keys.subscribe:
                for uri in dict.fromkeys(wanted.get(resources) or []):
                    stream.uris.append(uri)
                    if not await self._watch(uri, keys.subscribe):
                        stream.uris.remove(uri)
                if stream.uris:
                    honoured[resources] = list(stream.uris)
                    methods.add(modern.resource_updated)
            stream.methods = frozenset(methods)
            if modern.acknowledged:
                ack = endpoint.stamped(
                    revision, modern.acknowledged, {modern.listen_filter_key: honoured}
                )
                await endpoint.peer.send_notification(modern.acknowledged, ack)
            while stream.held:
                held, stream.held = stream.held, []
                for method, params in held:
                    if _wants(stream, method, params):
                        await self._send_on_stream(stream, method, params)
            stream.held = None
            await asyncio.Event().wait()
        finally:
            self.streams.remove(stream)
            # A second cancellation (the transport ending) must not cut the unsubscribes short.
            await asyncio.shield(self._unwatch_all(stream.uris))

    async def _watch(self, uri: Any, method: str) -> bool:
        """Count a stream watching `uri`, running the subscribe handler for the first (False when it
        is not overridden or fails)."""
        async with self._lock(uri):
            if not self.watching.get(uri) and not await self._subscription(method, uri):
                return False
            self.watching[uri] = self.watching.get(uri, 0) + 1
            return True

    async def _unwatch_all(self, uris: list[Any]) -> None:
        """Count the streams watching `uris` down, running the unsubscribe handler for the last."""
        keys = self.endpoint.surface.legacy
        for uri in uris:
            async with self._lock(uri):
                self.watching[uri] -= 1
                if not self.watching[uri]:
                    del self.watching[uri]
                    if keys is not None and keys.unsubscribe:
                        await self._subscription(keys.unsubscribe, uri)

    def _lock(self, uri: Any) -> asyncio.Lock:
        import asyncio

        return self.locks.setdefault(uri, asyncio.Lock())

    async def _subscription(self, method: str, uri: Any) -> bool:
        """Run the surface's (un)subscribe handler for `uri`; False (logged) when it is not overridden or fails."""
        endpoint = self.endpoint
        keys, handler = endpoint.surface.legacy, overridden(endpoint.peer, method)
        if keys is None or not keys.uri_key or handler is None:
            return False
        try:
            adapter = endpoint.surface.registry.adapter(method, "params")
            await getattr(endpoint.peer, handler)(adapter.validate_python({keys.uri_key: uri}))
        except Exception as exc:
            logger.warning("%s for a listen request failed for %r: %s", handler, uri, exc)
            return False
        return True

    async def notify_streams(self, method: str, params: Any) -> None:
        """Send a notification of a stateless-era client of a session surface on the bridged listen
        streams that opted in to its kind (a resource update on those watching its URI or a resource
        under it); nothing else goes out: such a client hears of list changes and updates only on a
        listen stream, and a listen stream carries nothing but what it asked for. Streams not yet
        acknowledged hold it until they are."""
        sent = False
        for stream in list(self.streams):
            if stream.held is not None:
                if method in stream_methods(stream.revision.modern):
                    stream.held.append((method, params))
                    sent = True
            elif _wants(stream, method, params):
                await self._send_on_stream(stream, method, params)
                sent = True
        if not sent:
            logger.info("%s not sent: no listen stream asked for it", method)

    async def _send_on_stream(self, stream: Stream, method: str, params: Any) -> None:
        endpoint = self.endpoint
        token = endpoint.within(
            revision=stream.revision, route=stream.channel, listening=(stream.request_id,)
        )
        try:
            await Endpoint.notify(endpoint, method, params)
        finally:
            token.var.reset(token)


@lru_cache(maxsize=None)
def stream_methods(modern: Modern | None) -> frozenset[str]:
    """The notifications a stateless-era revision sends only on the listen streams that opted in to them."""
    if modern is None:
        return frozenset()
    updated = [modern.resource_updated] if modern.resource_updated else []
    return frozenset([*(flag.notification for flag in modern.listen_flags), *updated])


def _wants(stream: Stream, method: str, params: Any) -> bool:
    """Whether a bridged listen stream asked for this notification (an update: of a URI it watches)."""
    modern = stream.revision.modern
    if method not in stream.methods or modern is None:
        return False
    if method != modern.resource_updated or not modern.resource_updated_uri_key:
        return True
    uri = (dump(params) or {}).get(modern.resource_updated_uri_key)
    return any(covers(watched, uri) for watched in stream.uris)


def covers(watched: Any, uri: Any) -> bool:
    """Whether an update of `uri` concerns a stream watching `watched`: the resource or one under it."""
    if uri == watched:
        return True
    if not isinstance(uri, str) or not isinstance(watched, str) or not uri.startswith(watched):
        return False
    return watched.endswith("/") or uri[len(watched)] in "/?#"
