"""The server side: `ServerBase`, the base of every generated Server, and the endpoint that runs its sessions.

The handshake is answered from the class's `name`, `version`, `title`, `instructions` and capabilities
(declared, or derived from the overridden handlers), in the revision each client negotiates. A session-era
client of a stateless-era surface gets, per request, the `_meta` its session stands for; a stateless-era
client of a session-era surface is served listen requests (`listen.ListenBridge`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    ClassVar,
    Coroutine,
    Mapping,
    Protocol,
    cast,
    get_type_hints,
)

from pydantic import BaseModel, ValidationError

from .convert import dump, fill, project_capabilities
from .handlers import implementation_info, overridden, overridden_capabilities
from .handshake import handshake_result
from .jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, ProtocolError, error_details, valid_id
from .listen import ListenBridge, acknowledged_for_session, stream_methods
from .log import logger
from .negotiation import client_capabilities, declared, missing_extension, negotiated
from .peer import MAX_INPUT_ROUNDS, REQUEST_ID, Endpoint, Peer
from .revisions import Revision

if TYPE_CHECKING:
    import asyncio


class Mount(Protocol):
    """Something a server class mounts (`mounts`): it declares capabilities and serves methods,
    before the server's own handlers, which it may call for what is not its own."""

    methods: Mapping[str, MountedHandler]
    """`method` → handler(params: any JSON, the server's own answer (a coroutine function returning
    wire data; -32601 when it has none), stateless era?) → the result as wire data."""

    def declare(self, capabilities: dict[str, Any], extensions_key: str | None) -> dict[str, Any]:
        """`capabilities` (wire data) with what the mount adds; `extensions_key` where the revision
        declares extensions (None: it has none)."""
        ...


MountedHandler = Callable[[Any, Callable[[], Awaitable[Any]], bool], Awaitable[Any]]


@dataclass(frozen=True)
class MountedRequest:
    """A request for a method outside the revision's schema that a mount serves (its params as sent)."""

    method: str
    params: Any


class ServerBase(Peer):
    """Base of a generated MCP Server: requests answer -32601 (method not found) until a subclass
    overrides their `on_*` handler, notifications are ignored until then, and the handshake is
    answered from `name`, `version`, `title`, `instructions` and `capabilities` (None: derived from the
    overridden handlers), in the protocol version each client negotiates."""

    __slots__ = ()
    name: ClassVar[str] = "mcp-server"
    version: ClassVar[str] = "0.0.0"
    title: ClassVar[str | None] = None
    instructions: ClassVar[str | None] = None
    capabilities: ClassVar[Any] = None
    """Declared capabilities; None derives them from the overridden handlers."""
    mounts: ClassVar[tuple[Mount, ...]] = ()
    """What serves methods besides the handlers (a `skills.SkillDirectory`), first in line first."""

    @property
    def peer_info(self) -> Any:
        """The client's handshake params (session era), once it has sent them."""
        return cast(ServerEndpoint, self._mcp).peer_info

    @peer_info.setter
    def peer_info(self, value: Any) -> None:
        cast(ServerEndpoint, self._mcp).peer_info = value

    def derived_capabilities(self) -> Any:
        """The declared capabilities, else one capability per overridden handler family."""
        if self.capabilities is not None:
            return self.capabilities
        found = overridden_capabilities(self)
        model = type(self).revisions.surface.server_capabilities
        return model.model_validate(found) if model is not None else found

    def server_info(self) -> dict[str, Any]:
        """The `Implementation` object naming this server."""
        return implementation_info(self, self.name, self.version, self.title)

    def negotiated_extensions(self) -> frozenset[str]:
        """The extensions (SEP-2133) both this server and the client declared for the request being
        handled: a handler may answer with an extension's result (a task) only for those."""
        mine = self._mcp.context()
        return mine.extensions if mine is not None else frozenset()

    def require_extension(self, identifier: str) -> None:
        """Raise the missing-capability error naming extension `identifier` (-32021 with
        `requiredCapabilities`) unless the request being handled negotiated it: for what this server
        can only answer with the extension (a task)."""
        if identifier not in self.negotiated_extensions():
            endpoint = self._mcp
            raise missing_extension(endpoint.revision(), identifier, "this request")

    def _mcp_handshake(self) -> Any:
        """The handshake answer of the surface revision (what an `on_*` handshake handler returns by default)."""
        endpoint = cast(ServerEndpoint, self._mcp)
        return endpoint.handshake(endpoint.surface)


class ServerEndpoint(Endpoint):
    """A server's side of one session (or one stateless request): the client's handshake, the
    session's log level and `_meta`, the listen requests in flight and the listen bridge."""

    side = "server"
    peer_side = "client"
    peer: ServerBase

    def __init__(self, peer: Peer) -> None:
        # the base named, not `super()`: Python 3.11 makes a super object per call, on every request's path
        Endpoint.__init__(self, peer)
        self.peer_info: Any = None
        self.log_level: Any = None
        self._session_meta: dict[str, Any] | None = None
        self._session_models: dict[str, Any] = {}
        """The session's `_meta` as each method's surface params hold it (`session_meta_model`)."""
        self.listens: dict[asyncio.Future[Any], Any] = {}
        """The listen requests being served (their ids by task): they end when the client can no longer
        hear them."""
        self._bridge: ListenBridge | None = None

    @property
    def bridge(self) -> ListenBridge:
        """The listen bridge, made when first needed (most requests never listen)."""
        if self._bridge is None:
            self._bridge = ListenBridge(self)
        return self._bridge

    def handshake(self, revision: Revision) -> BaseModel:
        """This server's handshake answer in `revision`'s shape."""
        return handshake_result(
            self.revisions,
            revision,
            self.peer.protocol_version or revision.version,
            self.mounted_capabilities(revision, dump(self.peer.derived_capabilities())),
            self.peer.server_info(),
            self.peer.instructions,
            self.result_fills(revision, revision.handshake),
        )

    def mounted_capabilities(self, revision: Revision, capabilities: Any) -> Any:
        """The server's capabilities (wire data) with what its mounts declare."""
        found = dict(capabilities or {})
        for mount in type(self.peer).mounts:
            found = mount.declare(found, revision.lifecycle.extensions_key)
        return found

    def peer_message(self, revision: Revision, obj: Any) -> tuple[Any, Any]:
        """A request for a method outside `revision`'s schema goes to the mount that serves it."""
        method = obj.get("method") if type(obj) is dict else None
        if (
            isinstance(method, str)
            and method not in revision.registry.methods
            and obj.get("jsonrpc") == "2.0"
            and valid_id(obj.get("id"))
            and any(method in m.methods for m in type(self.peer).mounts)
        ):
            return MountedRequest(method, obj.get("params")), obj
        return Endpoint.peer_message(self, revision, obj)  # the base named, as in `__init__`

    def builtin(self, revision: Revision, method: str, message: Any) -> Awaitable[Any] | None:
        if method == revision.handshake:
            if revision is not self.surface or overridden(self.peer, method) is None:
                return self.answer_handshake(revision, message)
        if revision.legacy is not None and self.surface.modern is not None:
            bridged = self.session_request(revision, method, message)
            if bridged is not None:
                return bridged
        modern = revision.modern
        if modern is not None and method == modern.listen:
            self.listening()
            if method not in self.surface.registry.methods:
                return self.bridge.serve_listen(revision, message)
        return super().builtin(revision, method, message)

    def serves_alone(self, revision: Revision) -> bool:
        """No handler answers alone on a server with mounts (`serve_mounted`) or in a revision with
        extensions (`serve_negotiated`)."""
        return not type(self.peer).mounts and not revision.extensions

    def answers_itself(self, revision: Revision, method: str) -> bool:
        """`builtin`'s methods: the handshake, a session-era request a stateless-era surface has not
        (answered by the runtime), the listen request (marked as one), and the base's."""
        modern = revision.modern
        return (
            method == revision.handshake
            or (
                revision.legacy is not None
                and self.surface.modern is not None
                and method not in self.surface.registry.methods
            )
            or (modern is not None and method == modern.listen)
            or super().answers_itself(revision, method)
        )

    def listening(self) -> None:
        """Mark the request being served as a listen stream: its notifications name it, and it ends
        with the connection."""
        import asyncio

        self.within(listening=(REQUEST_ID.get(),))
        task = asyncio.current_task()
        if task is not None:
            self.listens[task] = REQUEST_ID.get()
            task.add_done_callback(lambda done: self.listens.pop(done, None))

    async def answer_handshake(self, revision: Revision, message: Any) -> Any:
        """Answer the handshake; in the session era it also starts a new session."""
        if revision.legacy is not None:
            self.peer_info = getattr(message, "params", None)
            self.forget_session_meta()
            self.log_level = None
            self.bridge.uris.clear()
            self.bridge.stop_session_listen()
            self.set_session(revision.version)
        return self.handshake(revision)

    def forget_session_meta(self) -> None:
        """Work the session's `_meta` out again at the next request (it changed)."""
        self._session_meta = None
        self._session_models.clear()

    def session_request(
        self, revision: Revision, method: str, message: Any
    ) -> Awaitable[Any] | None:
        """A session's request (of a session-era `revision`) that a stateless-era surface replaced with
        per-request facts, answered by the runtime: the log level goes into the `_meta` of the session's
        later requests, and resource subscriptions run the surface's listen handler for the session (if
        overridden)."""
        keys, modern = revision.legacy, self.surface.modern
        assert keys is not None and modern is not None
        if method in self.surface.registry.methods:
            return None
        params = dump(getattr(message, "params", None)) or {}
        if method == keys.set_level and keys.level_key and modern.log_level_key:
            return self._set_log_level(revision, method, params.get(keys.level_key))
        if (
            method in (keys.subscribe, keys.unsubscribe)
            and keys.uri_key
            and self.bridge.serves_subscriptions()
        ):
            uri = params.get(keys.uri_key)
            return self.bridge.session_subscribe(revision, method, uri, method == keys.subscribe)
        return None

    async def _set_log_level(self, revision: Revision, method: str, level: Any) -> Any:
        self.log_level = level
        self.forget_session_meta()
        return await self.empty_result(revision, method)

    def detached(self) -> None:
        if self._bridge is not None:
            self._bridge.stop_session_listen()
        self.input_closed()

    def input_closed(self) -> None:
        """End the listen requests still running: nobody is left to hear their notifications."""
        if not self.listens:
            return
        listens, self.listens = self.listens, {}
        for task in listens:
            self.cancelled.add(task)
            task.cancel()

    def stamped(self, revision: Revision, method: str, wire: Any) -> Any:
        """A notification sent for a listen request names it in `_meta` (validated again with the name).
        Sent by other code (another request's handler holding this server) while this server serves one
        listen request, it is sent for that request."""
        mine, modern = self.context(), revision.modern
        listening = mine.listening if mine is not None else None
        if mine is None and len(self.listens) == 1:
            listening = tuple(self.listens.values())
        if listening is None or modern is None or not modern.subscription_id_key:
            return wire
        meta = {
            **((wire or {}).get(modern.meta_key) or {}),
            modern.subscription_id_key: listening[0],
        }
        stamped = {**(wire or {}), modern.meta_key: meta}
        try:
            revision.registry.adapter(method, "params").validate_python(stamped)
        except ValidationError as exc:
            raise ProtocolError(
                INTERNAL_ERROR, f"{method} params cannot name a listen request", error_details(exc)
            ) from None
        return stamped

    async def notify(self, method: str, params: Any) -> None:
        mine = self.context()
        revision = self.revision()
        if mine is not None and mine.for_session and method not in revision.registry.methods:
            if self.surface.modern is not None and method == self.surface.modern.acknowledged:
                acknowledged_for_session()
            return
        streams = self._bridge.streams if self._bridge is not None else []
        modern = (
            revision if revision.modern is not None else streams[0].revision if streams else None
        )
        if self.surface.modern is None and modern is not None:
            listening = mine is not None and mine.listening is not None
            if method in stream_methods(modern.modern) or listening:
                await self.bridge.notify_streams(method, params)
                return
        await super().notify(method, params)

    def completed(self, revision: Revision, method: str, params: Any) -> Any:
        """A stateless-era surface reads version, capabilities, client info and log level from every
        request's `_meta`: in a session they come from the session's handshake and its set-level request.
        """
        modern = self.surface.modern
        if modern is None or revision.legacy is None or type(params) is not dict:
            return params
        own = params.get(modern.meta_key)
        if own and isinstance(own, dict):
            meta: Any = {**self.session_meta(revision), **own}
        else:
            meta = self.session_meta_model(revision, method)
        return {**params, modern.meta_key: meta}

    def session_meta(self, revision: Revision) -> dict[str, Any]:
        """The stateless-era `_meta` entries a session's handshake stands for (worked out once a session).

        The client's capabilities are read as the session's revision defines them first: a client never
        appears to support what its negotiated revision does not have."""
        if self._session_meta is not None:
            return self._session_meta
        modern, keys = self.surface.modern, revision.legacy
        assert modern is not None and keys is not None
        session = dump(self.peer_info) or {}
        offered = project_capabilities(
            session.get(keys.capabilities_key) or {}, revision.client_capabilities
        )
        meta: dict[str, Any] = {modern.version_key: revision.version}
        if modern.client_capabilities_key is not None:
            meta[modern.client_capabilities_key] = project_capabilities(
                offered, self.surface.client_capabilities, revision.client_capabilities
            )
        if session.get(keys.client_info_key) is not None and modern.client_info_key is not None:
            meta[modern.client_info_key] = session[keys.client_info_key]
        if self.log_level is not None and modern.log_level_key:
            meta[modern.log_level_key] = self.log_level
        self._session_meta = meta
        return meta

    def session_meta_model(self, revision: Revision, method: str) -> Any:
        """The session's `_meta` as the model `method`'s surface params hold, validated once a session
        (pydantic takes an instance of a field's own model as it is), and frozen: the session's
        requests share it, so none of their handlers may change it for the others."""
        found = self._session_models.get(method)
        if found is None:
            model = _meta_model(self.surface, method)
            meta = self.session_meta(revision)
            found = self._session_models[method] = (
                meta if model is None else _frozen(model).model_validate(meta)
            )
        return found

    def serve(
        self, revision: Revision, method: str, message: Any, obj: Any
    ) -> Coroutine[Any, Any, Any]:
        """A method the server's mounts serve goes to them (each may pass it on) before its handlers;
        their answer to a core method is completed and validated as the revision's result."""
        if type(self.peer).mounts:
            return self.serve_mounted(revision, method, message, obj)
        if not revision.extensions:  # no coroutine of its own on the common path
            return Endpoint.serve(self, revision, method, message, obj)  # as in `__init__`
        return self.serve_negotiated(revision, method, message, obj)

    async def serve_mounted(self, revision: Revision, method: str, message: Any, obj: Any) -> Any:
        """`serve` on a server with mounts."""
        mounts = type(self.peer).mounts
        answer: Callable[[], Awaitable[Any]] = partial(
            self.serve_negotiated, revision, method, message, obj
        )
        mounted = [m.methods[method] for m in mounts if method in m.methods]
        if not mounted:
            return await answer()
        params, stateless = obj.get("params"), revision.modern is not None
        for handler in reversed(mounted):
            answer = partial(handler, params, answer, stateless)
        wire = await answer()
        if method not in revision.registry.methods:
            return wire
        for path, key, value in self.result_fills(revision, method):
            fill(wire, path, key, value)
        try:
            revision.registry.parse_result(method, wire)
        except ProtocolError as exc:
            logger.error(
                "a mount returned an invalid %s result: %s", method, exc.data or exc.message
            )
            raise ProtocolError(INTERNAL_ERROR, "Internal error") from None
        return wire

    async def serve_negotiated(
        self, revision: Revision, method: str, message: Any, obj: Any
    ) -> Any:
        """An extension's method is served only when both sides declared the extension: -32601 when
        this server does not, the missing-capability error when the client does not."""
        if not revision.extensions:
            return await super().serve(revision, method, message, obj)
        ours = self.peer.derived_capabilities()
        theirs = client_capabilities(revision, obj.get("params"), self.peer_info)
        on = negotiated(revision, ours, theirs)
        extension = revision.extension_of.get(method)
        if extension is not None and extension.identifier not in on:
            if extension.identifier not in declared(revision, dump(ours)):
                raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")
            raise missing_extension(revision, extension.identifier, method)
        self.within(extensions=on)
        return await super().serve(revision, method, message, obj)

    def fulfil_on_session(
        self, revision: Revision, method: str, handler: str, params: Any, result: Any
    ) -> Awaitable[Any] | None:
        """An extension's result (a task) answers only a client that negotiated the extension (else
        the missing-capability error: the server cannot serve it without). In a session, a
        stateless-era surface handler's request for input is sent to the client as requests of the
        session's revision, and the handler runs again with the answers (`_input_rounds`)."""
        surface = self.surface
        if surface.extensions:
            for extension, model in surface.extension_results.get(method, ()):
                if (
                    isinstance(result, model)
                    and extension.identifier not in self.peer.negotiated_extensions()
                ):
                    raise missing_extension(revision, extension.identifier, method)
        need, answer_model = surface.input_required, surface.input_required_model
        if (
            need is None
            or answer_model is None
            or revision.legacy is None
            or not isinstance(result, answer_model)
        ):
            return None
        return self._input_rounds(method, handler, params, result, answer_model)

    def completes(self, revision: Revision, method: str) -> bool:
        """`fulfil_on_session`'s cases: an extension's result of `method`, or an input-required result
        of a stateless-era surface on a session."""
        surface = self.surface
        return bool(surface.extensions and surface.extension_results.get(method)) or (
            surface.input_required is not None
            and surface.input_required_model is not None
            and revision.legacy is not None
        )

    async def _input_rounds(
        self, method: str, handler: str, params: Any, result: Any, answer_model: type[Any]
    ) -> Any:
        need = self.surface.input_required
        assert need is not None
        for _ in range(MAX_INPUT_ROUNDS):
            if not isinstance(result, answer_model):
                return result
            wire = dump(result)
            answers = {}
            for key, request in (wire.get(need.requests_key) or {}).items():
                answers[key] = dump(await self.call(request["method"], request.get("params")))
            retry = dump(params) or {}
            retry[need.responses_key] = answers
            retry.pop(need.state_key, None)
            if wire.get(need.state_key) is not None:
                retry[need.state_key] = wire[need.state_key]
            params = self.surface.registry.adapter(method, "params").validate_python(retry)
            result = await getattr(self.peer, handler)(params)
        raise ProtocolError(
            INTERNAL_ERROR, f"{method} still asked for input after {MAX_INPUT_ROUNDS} rounds"
        )


ServerBase._endpoint_type = ServerEndpoint


@lru_cache(maxsize=None)
def _meta_model(surface: Revision, method: str) -> type[BaseModel] | None:
    """The model class of the `_meta` field of `method`'s surface params, when they are one model."""
    modern = surface.modern
    spec = surface.registry.methods.get(method)
    params = spec.params if spec is not None else None
    if modern is None or not (isinstance(params, type) and issubclass(params, BaseModel)):
        return None
    name = next(
        (n for n, f in params.model_fields.items() if (f.alias or n) == modern.meta_key), None
    )
    # The field's own annotation may still be the forward reference written in types.py.
    annotation = get_type_hints(params).get(name) if name is not None else None
    return (
        annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    )


@lru_cache(maxsize=None)
def _frozen(model: type[BaseModel]) -> type[BaseModel]:
    """`model` with its instances frozen (a subclass, so it still fills fields of `model`'s type)."""
    config = {**model.model_config, "frozen": True}
    return cast(
        "type[BaseModel]",
        type(model.__name__, (model,), {"model_config": config, "__module__": model.__module__}),
    )
