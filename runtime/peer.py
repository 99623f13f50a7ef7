"""The core both sides share: `Peer`, the base of every Server and Client, and the `Endpoint` that does its work.

A Peer subclass holds handlers and typed calls; everything the conversation needs (the attached channel,
the negotiated version, the requests in flight) lives in its Endpoint, a runtime object the Peer creates
on first use. Versions are negotiated and gated per message, and a message of another revision than the
surface's is converted both ways (`convert`).
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, NamedTuple, Protocol, Union

from pydantic import BaseModel, ValidationError

from .convert import Policy, convert, dump, fill, with_defaults
from .facts import Capability, Extension
from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ProtocolError,
    error_details,
    error_response,
    load,
    valid_id,
)
from .log import logger
from .revisions import Revision, Revisions, handshake_revision, newest_first

if TYPE_CHECKING:
    import asyncio

Reply = Union[dict[str, Any], list[dict[str, Any]], None]
"""What `handle` returns: the JSON-RPC response to send back, or None when nothing is owed."""


async def _answered(reply: Reply) -> Reply:
    """A reply known before any work: as the awaitable `Endpoint.handle` returns."""
    return reply


MAX_INPUT_ROUNDS = 8
"""How often one request may ask for input before it is given up (multi round-trip requests)."""


class Channel(Protocol):
    """Where a peer's outgoing messages go: the connection of a transport (see `stdio.Connection`)."""

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request; its result, or ProtocolError for an error response."""
        ...

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification."""
        ...


class Context(NamedTuple):
    """What the code running now is doing for one endpoint: the revision of the message it handles,
    the channel the transport gave that message (its SSE stream), and the listen request it serves.
    (A named tuple: made for every message handled, it costs a quarter of a frozen dataclass.)
    """

    endpoint: Endpoint
    revision: Revision | None = None
    route: Channel | None = None
    listening: tuple[Any] | None = None
    for_session: bool = False
    """True inside the listen handler a Server runs for a session's resource subscriptions."""
    extensions: frozenset[str] = frozenset()
    """The extensions (SEP-2133) both sides declared for the request being served."""


CONTEXT: contextvars.ContextVar[Context | None] = contextvars.ContextVar(
    "mcp_context", default=None
)
"""The endpoint whose message is being handled, and how. Another endpoint's code running in the same
task (a handler of one session calling another session's server) ignores it."""
_NO_EXTENSIONS: frozenset[str] = frozenset()
"""`Context.extensions` when none is negotiated (a context made without its defaults names it)."""
REQUEST_ID: contextvars.ContextVar[Any] = contextvars.ContextVar("mcp_request_id", default=None)
"""The id of the request whose handler is running (None outside a request handler)."""
INBOUND: contextvars.ContextVar[Inbound | None] = contextvars.ContextVar(
    "mcp_inbound", default=None
)
"""How a peer received the message its `handle` is handling (set by `received` where that peer's class
overrides `handle`)."""


class Inbound(NamedTuple):
    """How a transport received the message it hands to `peer.handle`: the channel its answer and the
    handler's messages go on (an SSE stream), and the protocol version it came under (the stateless
    era's `MCP-Protocol-Version` header)."""

    peer: Peer
    route: Channel | None = None
    version: str | None = None


def received(
    peer: Peer, message: Any, route: Channel | None, version: str | None
) -> Coroutine[Any, Any, Reply]:
    """`peer.handle(message)` for a message a transport received on `route` in `version`: straight to
    the endpoint where the peer's class keeps `Peer.handle`, else its own `handle` with `INBOUND` set
    while it runs."""
    if type(peer).handle is Peer.handle:
        return peer._mcp.received(message, route, version)
    return _handled(peer, message, Inbound(peer, route, version))


async def _handled(peer: Peer, message: Any, inbound: Inbound) -> Reply:
    """`peer.handle(message)` awaited with `INBOUND` saying how the message came."""
    token = INBOUND.set(inbound)
    try:
        return await peer.handle(message)
    finally:
        INBOUND.reset(token)


_IN_FLIGHT = "Invalid Request: the id is in use by a request still in flight"


class Peer:
    """The side-independent half of Server and Client: `handle` for incoming messages, typed calls outgoing.

    Generated classes set `revisions` (the package's revisions and surface) and `handlers` (incoming
    method → the name of its `on_*` handler).
    """

    __slots__ = ("_mcp_endpoint",)
    _mcp_endpoint: Endpoint
    _endpoint_type: ClassVar[type[Endpoint]]
    revisions: ClassVar[Revisions]
    """The revisions this peer speaks and its surface revision."""
    handlers: ClassVar[Mapping[str, str]] = {}
    """Incoming method → the name of the handler answering it."""
    handler_capabilities: ClassVar[Mapping[str, Capability]] = {}
    """Incoming method → the capability that overriding its handler advertises."""
    extensions: ClassVar[tuple[Extension, ...]] = ()
    """The extensions (SEP-2133) the package was generated with."""
    conversion_policy: ClassVar[Policy] = "drop"
    """What happens to what a peer's protocol version cannot represent: "drop" it (one warning each) or
    "strict" (an error: -32603 for our results, ProtocolError raised for our calls)."""
    result_defaults: ClassVar[Mapping[str, Any]] = {}
    """Values for required result fields the surface revision lacks and a peer's revision requires,
    by wire name, overriding the package's documented defaults."""
    _mcp_routes: ClassVar[dict[tuple[Revision, str], Route]] = {}
    """(revision, method) → how it is served (`Endpoint.route`): each class its own."""
    derived_capabilities: Callable[[], Any]
    """The capabilities this peer announces: each side's base class (`ServerBase`, `ClientBase`) derives
    them from the handlers the peer's class overrides, unless they are declared."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._mcp_routes = {}  # a subclass's handlers may differ from its base's

    @property
    def _mcp(self) -> Endpoint:
        """This peer's endpoint (made on first use, so a subclass's `__init__` need not call ours)."""
        # getattr with a default: a fresh peer (one per stateless request) raises no AttributeError
        endpoint: Endpoint | None = getattr(self, "_mcp_endpoint", None)
        if endpoint is None:
            endpoint = self._mcp_endpoint = type(self)._endpoint_type(self)
        return endpoint

    def _mcp_release(self) -> None:
        """Forget this peer's endpoint unless a request is in flight on it (a stateless request's server,
        once answered): peer and endpoint refer to each other, and this frees both without the cycle
        collector. A later use makes a fresh endpoint."""
        endpoint = getattr(self, "_mcp_endpoint", None)
        if endpoint is not None and not endpoint.flights:
            del self._mcp_endpoint

    def attach(self, channel: Channel | None) -> None:
        """Route this peer's outgoing messages through `channel` (None detaches it)."""
        self._mcp.attach(channel)

    def handle(
        self, message: str | bytes | Mapping[str, Any] | list[Any]
    ) -> Coroutine[Any, Any, Reply]:
        """Validate one incoming JSON-RPC message, run its handler and return the response to send (None for notifications).

        Never raises: invalid JSON is -32700, an invalid message -32600, a method its protocol version
        does not have -32601, invalid params -32602, a failing handler -32603 (logged; no details reach
        the peer), and a handler's own ProtocolError is passed on as it is. The coroutine returned is
        the endpoint's own (no coroutine of this method's in between).
        """
        return self._mcp.handle(message)

    async def send_request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Transport hook: send a request and return its raw result; ProtocolError for an error response."""
        return await self._mcp.channel().request(method, params)

    async def send_notification(self, method: str, params: dict[str, Any] | None) -> None:
        """Transport hook: send a notification."""
        await self._mcp.channel().notify(method, params)

    @property
    def protocol_version(self) -> str | None:
        """The protocol version of the message being handled, else the session's, once negotiated."""
        return self._mcp.protocol_version

    async def _mcp_call(self, method: str, params: Any, task: Any = None) -> Any:
        """A typed call: surface params in (with `task`, asking for a task), the surface result out."""
        return await self._mcp.call(method, params, task)

    async def _mcp_notify(self, method: str, params: Any) -> None:
        """A typed notification, converted to the revision of the conversation."""
        await self._mcp.notify(method, params)

    async def _mcp_empty_result(self, method: str) -> Any:
        """The surface result of `method` with nothing to say (what a `ping` handler answers by default)."""
        endpoint = self._mcp
        return await endpoint.empty_result(endpoint.surface, method)

    def _mcp_not_found(self, method: str) -> ProtocolError:
        """The error a handler that is not overridden answers with."""
        return ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")


class Route(NamedTuple):
    """How a method is served in a revision (`Endpoint.route`)."""

    direct: str
    """The handler that alone answers it, "" for none: the surface's method, with a handler, that the
    runtime neither answers itself nor completes, where nothing sees it first
    (`Endpoint.serves_alone`)."""
    itself: bool
    """Whether the runtime may answer it itself (`Endpoint.answers_itself`)."""
    completes: bool
    """Whether the runtime may complete its handler's result (`Endpoint.completes`)."""


class ParamsRequest(NamedTuple):
    """A request read as its params alone (`Registry.parse_params`): its envelope as it came, its params
    as their model (what the request's model would hold)."""

    jsonrpc: str
    id: str | int
    method: str
    params: Any


class Endpoint:
    """A peer's side of a conversation: its channel, negotiated version and requests in flight, and the
    dispatch of incoming messages to the peer's handlers."""

    side: ClassVar[str] = ""
    peer_side: ClassVar[str] = ""
    """The side whose messages this endpoint receives (a `Method`'s `senders` name it)."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.revisions: Revisions = type(peer).revisions
        self.surface = self.revisions.surface
        self.attached: Channel | None = None
        self.version: str | None = None
        """The session's negotiated protocol version (None before a handshake, and in the stateless era)."""
        self.flights: dict[Any, asyncio.Future[Any]] = {}
        self.cancelled: set[asyncio.Future[Any]] = set()
        """Requests in flight that the peer cancelled (their handlers' cancellation is not an error)."""
        self.observers: dict[str, list[Callable[[Any], None]]] = {}
        """Callbacks seeing the wire params of every incoming notification of a method, before its handler."""

    # --- connection plumbing

    def attach(self, channel: Channel | None) -> None:
        """Send through `channel` from now on; None: the transport is gone."""
        self.attached = channel
        if channel is None:
            self.detached()

    def detached(self) -> None:
        """The transport is gone: stop what runs for the connection, not for a request (Server)."""

    def input_closed(self) -> None:
        """The peer will send nothing more: end the requests only it could end (a Server's listens)."""

    def context(self) -> Context | None:
        """What this endpoint's code running now is doing (None outside its message handling)."""
        found = CONTEXT.get()
        return found if found is not None and found.endpoint is self else None

    def channel(self) -> Channel:
        """Where an outgoing message goes: the route of the message being handled, else the attached channel."""
        mine = self.context()
        channel = mine.route if mine is not None and mine.route is not None else self.attached
        if channel is None:
            raise ProtocolError(
                INTERNAL_ERROR, "Not connected: attach a transport or override send_request"
            )
        return channel

    # --- versions

    @property
    def protocol_version(self) -> str | None:
        """The protocol version of the message being handled, else the session's, once negotiated."""
        mine = self.context()
        if mine is not None and mine.revision is not None:
            return mine.revision.version
        return self.version

    def session(self) -> Revision | None:
        """The session's revision, once negotiated."""
        return self.revisions[self.version] if self.version is not None else None

    def set_session(self, version: str | None) -> None:
        """Record the negotiated protocol version (None: no session)."""
        self.version = version

    def revision(self) -> Revision:
        """The revision outgoing messages take: the request being handled, else the session, else the surface."""
        mine = self.context()
        if mine is not None and mine.revision is not None:
            return mine.revision
        return self.session() or self.surface

    def unsupported(self, requested: str) -> ProtocolError:
        """The error answering a request for a protocol version this package does not speak."""
        modern = self.revisions.modern
        if modern is None or modern.unsupported_code is None:
            return ProtocolError(
                INVALID_REQUEST, f"Unsupported protocol version: {requested[:100]}"
            )
        data: dict[str, Any] = {}
        if modern.supported_key is not None:
            data[modern.supported_key] = newest_first(self.revisions.supported)
        if modern.requested_key is not None:
            data[modern.requested_key] = requested
        return ProtocolError(modern.unsupported_code, "Unsupported protocol version", data or None)

    def requested_version(self, obj: Any) -> str | None:
        """The protocol version a stateless-era request declares in its `_meta`, if it declares one."""
        modern = self.revisions.modern
        if modern is None or type(obj) is not dict:
            return None
        params = obj.get("params")
        if type(params) is not dict or modern.meta_key not in params:
            return None
        meta = params[modern.meta_key]
        version = meta.get(modern.version_key) if type(meta) is dict else None
        return version if isinstance(version, str) else None

    def incoming_revision(self, obj: Any, carried: str | None) -> Revision:
        """The revision an incoming message is read in: its own `_meta` version (stateless era), the one
        its transport received it under (`carried`), the session's, or a default."""
        requested = self.requested_version(obj) if self.revisions.modern is not None else None
        if requested is not None:
            revision = self.revisions.get(requested)
            if revision is None or revision.modern is None:
                raise self.unsupported(requested)
            return revision
        transported = self.revisions.get(carried) if carried is not None else None
        if transported is not None:
            return transported
        session = self.session()
        if session is not None:
            return session
        if type(obj) is dict:
            handshake = handshake_revision(self.revisions, obj)
            if handshake is not None:
                return handshake
        return self.revisions.default

    # --- incoming

    def handle(
        self, message: str | bytes | Mapping[str, Any] | list[Any]
    ) -> Coroutine[Any, Any, Reply]:
        """`Peer.handle`: for a message a transport received (`INBOUND`), on its route and version.
        One message's coroutine is handed on, not awaited in one of this method's own."""
        inbound = INBOUND.get()
        if inbound is not None and inbound.peer is self.peer:
            return self.received(message, inbound.route, inbound.version)
        return self.received(message, None, None)

    def received(
        self,
        message: str | bytes | Mapping[str, Any] | list[Any],
        route: Channel | None,
        version: str | None,
    ) -> Coroutine[Any, Any, Reply]:
        """`handle` for a message received on `route` (its answer's channel) in `version`."""
        if type(message) is dict:  # decoded already, as transports hand it
            return self._handle_one(message, route, version)
        try:
            obj = load(message)
        except ProtocolError as exc:
            return _answered(error_response(None, exc))
        if isinstance(obj, list):
            return self._handle_batch(obj, route, version)
        return self._handle_one(obj, route, version)

    async def _handle_batch(
        self, obj: list[Any], route: Channel | None, version: str | None
    ) -> Reply:
        session = self.session()
        allowed = (
            session.batching
            if session is not None
            else any(r.batching for r in self.revisions.values())
        )
        if not allowed or not obj:
            reason = "batches are not allowed" if not allowed else "empty batch"
            return error_response(
                None, ProtocolError(INVALID_REQUEST, f"Invalid Request: {reason}")
            )
        import asyncio

        replies = await asyncio.gather(*(self._handle_one(item, route, version) for item in obj))
        return [r for r in replies if r is not None] or None

    async def _handle_one(
        self, obj: Any, route: Channel | None, version: str | None
    ) -> dict[str, Any] | None:
        if type(obj) is not dict and isinstance(obj, Mapping):
            obj = dict(obj)  # decoded JSON is a dict; one copy keeps the checks below cheap
        request_id = obj.get("id") if type(obj) is dict else None
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):  # `valid_id`
            request_id = None
        notification = type(obj) is dict and isinstance(obj.get("method"), str) and "id" not in obj
        try:
            revision = self.incoming_revision(obj, version)
            params = revision.registry.parse_params(obj)
            if params is None:
                message, obj = self.peer_message(revision, obj)
            else:  # params that tell all: no more of the request is read
                message = tuple.__new__(ParamsRequest, ("2.0", obj["id"], obj["method"], params))
        except ProtocolError as exc:
            if notification and exc.code in (METHOD_NOT_FOUND, INVALID_PARAMS):
                # repr: the method is the client's text, which may hold line breaks of its own
                logger.warning("dropped notification %.200r: %r", obj.get("method"), exc.message)
                return None
            return error_response(request_id, exc)
        method = getattr(message, "method", None)
        if method is None:
            logger.warning(
                "unexpected response to id %r: no request of ours is waiting for it", request_id
            )
            return None
        spec = revision.registry.methods.get(method)  # None: a method a mount serves
        if spec is not None and self.peer_side not in spec.senders:
            wrong_way = ProtocolError(
                METHOD_NOT_FOUND, f"Method not found: {method} is not sent to a {self.side}"
            )
            return None if notification else error_response(request_id, wrong_way)
        # made by tuple.__new__: a named tuple's own __new__ is a Python function (a call per message)
        token = CONTEXT.set(
            tuple.__new__(Context, (self, revision, route, None, False, _NO_EXTENSIONS))
        )
        try:
            if notification:
                await self.notified(revision, method, message, obj)
                return None
            # the request is served in the task that received it (every transport reads each message
            # in a task of its own), which `cancel_in_flight` cancels: no task and no loop turn of its own
            import asyncio

            task = asyncio.current_task()
            assert task is not None, "messages are handled in a task"
            if request_id in self.flights:  # the first keeps the id: a cancellation names it alone
                return error_response(request_id, ProtocolError(INVALID_REQUEST, _IN_FLIGHT))
            self.flights[request_id] = task
            request_token = REQUEST_ID.set(request_id)
            try:
                # only the surface's requests may be direct: the others skip the lookup
                handler = self.route(revision, method).direct if revision is self.surface else ""
                if handler:  # the handler alone answers, in the surface revision
                    result = await getattr(self.peer, handler)(getattr(message, "params", None))
                    wire = self.handled(revision, method, handler, result)
                else:
                    wire = await self.serve(revision, method, message, obj)
            except asyncio.CancelledError:
                if task in self.cancelled:
                    if sys.version_info >= (3, 11):
                        task.uncancel()  # this task goes on: the cancellation was the request's alone
                    logger.info("request %r (%s) cancelled by the peer", request_id, method)
                    return None
                raise
            except ProtocolError as exc:
                if exc.code == INTERNAL_ERROR:
                    if exc.message != "Internal error":  # a handler's own words: logged, never sent
                        logger.error("request %r (%s) failed: %s", request_id, method, exc.message)
                    return error_response(
                        request_id, ProtocolError(INTERNAL_ERROR, "Internal error")
                    )
                return error_response(request_id, exc)
            except Exception:
                logger.exception("request %r (%s) failed", request_id, method)
                return error_response(request_id, ProtocolError(INTERNAL_ERROR, "Internal error"))
            finally:
                REQUEST_ID.reset(request_token)
                if self.flights.get(request_id) is task:
                    del self.flights[request_id]
                self.cancelled.discard(task)
            return {"jsonrpc": "2.0", "id": request_id, "result": wire}
        finally:
            CONTEXT.reset(token)

    def peer_message(self, revision: Revision, obj: Any) -> tuple[Any, Any]:
        """An incoming message whose params do not tell all (`Registry.parse_params`) validated whole in
        its revision; under `drop`, newer content it holds (which its revision cannot represent) is
        dropped with a warning instead of refusing the message."""
        try:
            return revision.registry.parse_object(obj), obj
        except ProtocolError as exc:
            method = obj.get("method") if isinstance(obj, dict) else None
            if (
                exc.code != INVALID_PARAMS
                or not isinstance(method, str)
                or self.peer.conversion_policy == "strict"
            ):
                raise
            invalid = exc
        try:
            return convert(
                obj,
                revision.plan(method, "message", True),
                policy="drop",
                code=INVALID_PARAMS,
                from_peer=True,
            )
        except ProtocolError:
            raise invalid from None

    def surface_params(self, revision: Revision, method: str, message: Any, obj: Any) -> Any:
        """The params of an incoming message as the surface revision's model."""
        if revision is self.surface:
            return getattr(message, "params", None)
        spec = self.surface.registry.methods.get(method)
        raw = obj.get("params")
        if spec is None or spec.params is None or raw is None:
            return None
        model, _ = convert(
            self.completed(revision, method, raw),
            self.surface.plan(method, "params"),
            policy=self.peer.conversion_policy,
            code=INVALID_PARAMS,
        )
        return model

    def completed(self, revision: Revision, method: str, params: Any) -> Any:
        """Incoming params of another revision as the surface needs them (a Server adds a session's `_meta`)."""
        return params

    def handler(self, method: str) -> str | None:
        """The name of the peer's handler of `method`, if it has one."""
        return type(self.peer).handlers.get(method)

    async def notified(self, revision: Revision, method: str, message: Any, obj: Any) -> None:
        """Run what an incoming notification asks for: a cancellation, the handshake's end, its handler."""
        if method == revision.cancelled and revision.cancelled_id_key is not None:
            params = obj.get("params")
            if isinstance(params, dict):
                self.cancel_in_flight(params.get(revision.cancelled_id_key))
        if revision.legacy is not None and method == revision.legacy.initialized:
            self.set_session(revision.version)
        for observe in tuple(self.observers.get(method, ())):
            observe(obj.get("params"))
        handler = self.handler(method)
        if handler is None:
            return
        try:
            params = self.surface_params(revision, method, message, obj)
        except ProtocolError as error:  # valid in its revision, but the surface cannot represent it
            logger.warning("notification %s not delivered: %s", method, error)
            return
        try:
            await getattr(self.peer, handler)(params)
        except Exception:
            logger.exception("notification handler %s failed", handler)

    def cancel_in_flight(self, request_id: Any) -> None:
        """Cancel the handler of an incoming request still running (the peer cancelled it)."""
        if not valid_id(request_id):
            return
        task = self.flights.get(request_id)
        if task is not None and not task.done():
            self.cancelled.add(task)
            task.cancel()

    async def serve(self, revision: Revision, method: str, message: Any, obj: Any) -> Any:
        """Run what answers a request `_handle_one` does not hand to its handler alone (`Route.direct`)
        and return its result as wire data of `revision`."""
        route = self.route(revision, method)
        builtin = self.builtin(revision, method, message) if route.itself else None
        if builtin is not None:
            return dump(await builtin)
        handler = self.handler(method)
        if handler is None or method not in self.surface.registry.methods:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")
        params = self.surface_params(revision, method, message, obj)
        result = await getattr(self.peer, handler)(params)
        if route.completes:
            fulfilled = self.fulfil_on_session(revision, method, handler, params, result)
            if fulfilled is not None:
                result = await fulfilled
        return self.handled(revision, method, handler, result)

    def handled(self, revision: Revision, method: str, handler: str, result: Any) -> Any:
        """`handler`'s result as validated wire data of `revision`; an invalid one is an internal error
        (its reason logged, never sent)."""
        try:
            return self.result_to_wire(revision, method, result)
        except ProtocolError as exc:
            logger.error(
                "%s returned an invalid %s result: %s", handler, method, exc.data or exc.message
            )
            raise ProtocolError(INTERNAL_ERROR, "Internal error") from None

    def route(self, revision: Revision, method: str) -> Route:
        """How `method` is served in `revision` (`direct`, `answers_itself`, `completes`), worked out once
        per peer class (the answers depend on nothing else), for the revision's methods."""
        table = type(self.peer)._mcp_routes
        found = table.get((revision, method))
        if found is None:
            handler = self.handler(method)
            known = method in revision.registry.methods
            itself = self.answers_itself(revision, method)
            completes = self.completes(revision, method)
            direct = (
                handler
                if handler is not None
                and revision is self.surface
                and known
                and not itself
                and not completes
                and self.serves_alone(revision)
                else ""
            )
            found = tuple.__new__(Route, (direct, itself, completes))
            # a mount's method is not kept: the table holds the revisions' methods, no more
            if known:
                table[(revision, method)] = found
        return found

    def serves_alone(self, revision: Revision) -> bool:
        """Whether a handler may answer a request of `revision` alone (a Server's mounts and extensions
        see its requests first)."""
        return True

    def answers_itself(self, revision: Revision, method: str) -> bool:
        """True when `builtin` may answer `method` in `revision` (for some message, or some handler)."""
        return method == revision.ping

    def completes(self, revision: Revision, method: str) -> bool:
        """True when `fulfil_on_session` may replace a handler's result of `method` in `revision`."""
        return False

    def builtin(self, revision: Revision, method: str, message: Any) -> Awaitable[Any] | None:
        """What the runtime itself answers: ping where the surface has no handler for it."""
        if method == revision.ping and self.handler(method) is None:
            return self.empty_result(revision, method)
        return None

    async def empty_result(self, revision: Revision, method: str) -> Any:
        """The result of `method` in `revision` with nothing to say: empty, but for the constants and
        documented values the revision requires (a draft's `resultType`)."""
        wire: dict[str, Any] = {}
        for path, key, value in self.result_fills(revision, method):
            fill(wire, path, key, value)
        return revision.registry.parse_result(method, wire)

    def result_fills(
        self, revision: Revision, method: str | None
    ) -> tuple[tuple[tuple[str, ...], str, Any], ...]:
        """What a result of `method` in `revision` is filled with, this peer's `result_defaults` first."""
        if method is None or method not in revision.registry.methods:
            return ()
        return with_defaults(revision.plan(method, "result").fills, self.peer.result_defaults)

    def result_to_wire(self, revision: Revision, method: str, result: Any) -> Any:
        """A handler's surface result as validated wire data of `revision`."""
        wire = dump(result)
        # the MRO, not isinstance: BaseModel's metaclass is an ABCMeta, whose check is a Python call
        if BaseModel in type(result).__mro__:
            if revision is self.surface:
                self.surface.registry.check_result(method, wire, type(result))
        else:
            self.surface.registry.parse_result(method, wire)
        if revision is self.surface:
            return wire
        _, wire = convert(
            wire,
            revision.plan(method, "result"),
            policy=self.peer.conversion_policy,
            code=INTERNAL_ERROR,
            owned=True,
            defaults=self.peer.result_defaults,
        )
        return wire

    # --- outgoing

    def outgoing_params(
        self, revision: Revision, method: str, wire: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """Outgoing params as `revision` carries them: session-era messages never carry the stateless
        era's per-request `_meta` keys (a dual-era peer would read them as stateless); a Client adds
        them to stateless-era requests."""
        modern = self.revisions.modern
        if (
            modern is None
            or revision.modern is not None
            or not wire
            or not isinstance(wire.get(modern.meta_key), Mapping)
        ):
            return wire
        per_request = (modern.version_key, modern.client_capabilities_key, modern.client_info_key)
        meta = {
            key: value for key, value in wire[modern.meta_key].items() if key not in per_request
        }
        out = dict(wire)
        if meta:
            out[modern.meta_key] = meta
        else:
            del out[modern.meta_key]
        return out

    def surface_params_wire(self, method: str, params: Any) -> dict[str, Any] | None:
        """Typed-call params as wire data, validated against the surface model first when given as a mapping."""
        if params is None:
            return None
        spec = self.surface.registry.methods[method]
        if isinstance(params, Mapping) and spec.params is not None:
            try:
                params = self.surface.registry.adapter(method, "params").validate_python(params)
            except ValidationError as exc:
                raise ProtocolError(
                    INVALID_PARAMS, f"Invalid params for {method}", error_details(exc)
                ) from None
        wire: dict[str, Any] | None = dump(params)
        return wire

    def gate(self, revision: Revision, method: str) -> None:
        """Refuse to send what `revision` does not let this side send."""
        spec = revision.registry.methods.get(method)
        if spec is None or spec.embedded or not spec.sent_by(self.side):
            raise ProtocolError(
                METHOD_NOT_FOUND,
                f"{method} cannot be sent by a {self.side} in protocol version {revision.version}",
            )

    def to_revision_params(
        self, revision: Revision, method: str, wire: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """Surface params as `revision`'s (stripped, filled, what it cannot hold dropped or refused)."""
        if revision is self.surface or wire is None:
            return wire
        if revision.registry.methods[method].params is None:
            return wire
        _, wire = convert(
            wire,
            revision.plan(method, "params"),
            policy=self.peer.conversion_policy,
            code=INTERNAL_ERROR,
        )
        return wire

    async def call(self, method: str, params: Any, task: Any = None) -> Any:
        """A typed call: surface params in, the surface result out, converted both ways; a `task`
        goes into the params (the request asks for a task instead of its result)."""
        revision = self.revision()
        self.gate(revision, method)
        if task is not None:
            key = self.surface.lifecycle.task_key
            if key is None:
                raise ProtocolError(INVALID_PARAMS, f"{method}: this protocol has no tasks")
            params = {**(dump(params) or {}), key: dump(task)}
        wire = self.outgoing_params(revision, method, self.surface_params_wire(method, params))
        result = await self.request(
            revision, method, self.to_revision_params(revision, method, wire)
        )
        return self.surface_result(revision, method, result)

    async def request(self, revision: Revision, method: str, wire: dict[str, Any] | None) -> Any:
        """Send a request of `revision` and return its result validated in that revision."""
        raw = await self.peer.send_request(method, wire)
        model, raw = self.peer_result(revision, method, raw)
        return await self.fulfil_from_peer(revision, method, wire, model, raw)

    def peer_result(self, revision: Revision, method: str, raw: Any) -> tuple[Any, Any]:
        """A result the peer sent, validated in its revision; under `drop`, what that revision cannot
        hold (a peer sending newer content) is dropped with a warning instead of losing the result.
        """
        try:
            return revision.registry.parse_result(method, raw), raw
        except ProtocolError as exc:
            if self.peer.conversion_policy == "strict" or not isinstance(raw, dict):
                raise
            invalid = exc
        try:
            model, repaired = convert(
                raw,
                revision.plan(method, "result", True),
                policy="drop",
                code=INVALID_PARAMS,
                from_peer=True,
            )
        except ProtocolError:
            raise invalid from None
        return model, repaired

    async def fulfil_from_peer(
        self, revision: Revision, method: str, wire: Any, model: Any, raw: Any
    ) -> Any:
        """A Client answers a stateless-era input-required result with its own handlers and retries."""
        return model

    def fulfil_on_session(
        self, revision: Revision, method: str, handler: str, params: Any, result: Any
    ) -> Awaitable[Any] | None:
        """A Server bridges a stateless-era input-required result over a session: what to await for
        the result to send instead of the handler's (None: the handler's stands)."""
        return None

    def surface_result(self, revision: Revision, method: str, model: Any) -> Any:
        """A result of `revision` as the surface revision's model."""
        if revision is self.surface:
            return model
        spec = self.surface.registry.methods.get(method)
        if spec is None or spec.result is None:
            return model
        result, _ = convert(
            dump(model),
            self.surface.plan(method, "result"),
            policy=self.peer.conversion_policy,
            code=INVALID_PARAMS,
            owned=True,
        )
        return result

    async def notify(self, method: str, params: Any) -> None:
        """Send a typed notification in the revision of the conversation."""
        revision = self.revision()
        self.gate(revision, method)
        wire = self.outgoing_params(revision, method, self.surface_params_wire(method, params))
        wire = self.stamped(revision, method, self.to_revision_params(revision, method, wire))
        await self.peer.send_notification(method, wire)

    def stamped(self, revision: Revision, method: str, wire: Any) -> Any:
        """Outgoing notification params as sent (a Server names the listen request they are sent for)."""
        return wire

    def within(self, **changes: Any) -> contextvars.Token[Context | None]:
        """Run what follows as this endpoint with `changes` to its current context (reset the token after)."""
        base = self.context() or Context(self)
        return CONTEXT.set(base._replace(**changes))
