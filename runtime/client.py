"""The client side: `ClientBase`, the base of every generated Client, and the endpoint that negotiates for it.

`start_session()` negotiates the protocol version: a stateless-era discovery probe first (when the package
speaks such a revision), else the session era's `initialize`. Typed calls then take and return the surface
revision's types, converted to and from the negotiated revision; a stateless-era server's request for
input is answered by the client's own handlers and the request sent again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

from .convert import dump, project_capabilities
from .handlers import implementation_info, overridden_capabilities
from .handshake import handshake_info, handshake_result
from .jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, ProtocolError
from .negotiation import declared
from .peer import MAX_INPUT_ROUNDS, Endpoint, Peer
from .revisions import Revision

if TYPE_CHECKING:
    import asyncio


class ClientBase(Peer):
    """Base of a generated MCP Client: requests the server may send answer -32601 (method not found) until
    a subclass overrides their `on_*` handler, notifications are ignored until then, and the
    capabilities the client announces follow the overridden handlers unless `capabilities` is declared.
    """

    __slots__ = ()
    name: ClassVar[str] = "mcp-client"
    version: ClassVar[str] = "0.0.0"
    title: ClassVar[str | None] = None
    capabilities: ClassVar[Any] = None
    """Declared capabilities; None derives them from the overridden handlers."""
    preferred_version: ClassVar[str | None] = None
    """The protocol version `start_session` proposes (default: the surface revision, else the newest of
    its era); a session-era version skips the stateless-era discovery probe."""
    discover_timeout: ClassVar[float] = 10.0
    """Seconds to wait for an answer to the discovery probe before falling back to `initialize`."""

    @property
    def peer_info(self) -> Any:
        """The server's handshake result (in the negotiated revision's types), once `start_session` has run."""
        return cast(ClientEndpoint, self._mcp).peer_info

    @peer_info.setter
    def peer_info(self, value: Any) -> None:
        cast(ClientEndpoint, self._mcp).peer_info = value

    def derived_capabilities(self) -> Any:
        """The declared capabilities, else one capability per overridden handler family."""
        if self.capabilities is not None:
            return self.capabilities
        found = overridden_capabilities(self)
        model = type(self).revisions.surface.client_capabilities
        return model.model_validate(found) if model is not None else found

    async def await_task(
        self,
        task: Any,
        method: str = "tools/call",
        on_status: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
        listen: bool = False,
    ) -> Any:
        """The result of a task a server answered with (tasks extension): heard through its status
        notifications (`listen`) or polled with `tasks/get` at the interval it suggests, its input
        requests answered by this client's handlers; see `tasks.await_task`. Any client may await a task
        by its id (one that reconnected, too)."""
        from .tasks import await_task

        return await await_task(self, task, method, on_status, listen)

    def client_info(self) -> dict[str, Any]:
        """The `Implementation` object naming this client."""
        return implementation_info(self, self.name, self.version, self.title)

    def request_meta(self, version: str | None = None) -> dict[str, Any]:
        """The `_meta` entries a stateless-era request carries: protocol version, capabilities and client info."""
        endpoint = self._mcp
        revision = endpoint.revisions[version or endpoint.revision().version]
        modern = revision.modern
        if modern is None:
            return {}
        meta: dict[str, Any] = {modern.version_key: revision.version}
        if modern.client_capabilities_key is not None:
            meta[modern.client_capabilities_key] = project_capabilities(
                dump(self.derived_capabilities()),
                revision.client_capabilities,
                endpoint.surface.client_capabilities,
            )
        if modern.client_info_key is not None:
            meta[modern.client_info_key] = self.client_info()
        return meta

    async def start_session(self) -> Any:
        """Negotiate with the server: a discovery probe first (when this package speaks a stateless-era
        revision), else or on an error of the session era the `initialize` handshake; returns the server's
        answer as the surface type. Fails with ProtocolError when no supported version is shared."""
        return await cast(ClientEndpoint, self._mcp).start_session()

    def _mcp_initialize_params(self) -> Any:
        """The initialize params announcing the surface revision, the capabilities and client info (a
        generated Client of a session-era surface has them as `initialize_params`)."""
        surface = type(self).revisions.surface
        keys = surface.legacy
        model = surface.model(keys.params) if keys is not None else None
        if keys is None or model is None:
            raise ProtocolError(
                METHOD_NOT_FOUND, f"protocol version {surface.version} has no initialize request"
            )
        return model.model_validate(
            {
                keys.version_key: surface.version,
                keys.capabilities_key: dump(self.derived_capabilities()),
                keys.client_info_key: self.client_info(),
            }
        )


async def _answered(channel: Any, pending: Awaitable[Any], timeout: float) -> Any:
    """The result of `pending`, asyncio.TimeoutError once it waited `timeout` seconds for the server;
    time the channel spends authorizing (the user consenting, say) does not count."""
    import asyncio

    task = asyncio.ensure_future(pending)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=timeout)
            if done:
                return task.result()
            if not getattr(channel, "authorizing", False):
                raise asyncio.TimeoutError
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class ClientEndpoint(Endpoint):
    """A client's side of a conversation: the server's handshake answer and the negotiation."""

    side = "client"
    peer_side = "server"
    peer: ClientBase

    def __init__(self, peer: Peer) -> None:
        super().__init__(peer)
        self.peer_info: Any = None

    def gate(self, revision: Revision, method: str) -> None:
        """Refuse what `revision` does not let a client send, and an extension's method unless both
        this client and the server (in its handshake answer) declared the extension."""
        super().gate(revision, method)
        extension = revision.extension_of.get(method)
        if extension is None:
            return
        server = handshake_info(self.surface, self.peer_info).capabilities
        sides = {"this client": dump(self.peer.derived_capabilities()), "the server": server}
        silent = [
            side
            for side, caps in sides.items()
            if extension.identifier not in declared(revision, caps)
        ]
        if silent:
            raise ProtocolError(
                METHOD_NOT_FOUND,
                f"{method} needs the {extension.identifier} extension, which {' and '.join(silent)} did not declare",
            )

    async def start_session(self) -> Any:
        """`ClientBase.start_session`."""
        revisions = self.revisions
        if (
            revisions.modern_versions
            and self.peer.preferred_version not in revisions.legacy_versions
        ):
            found = await self._discover()
            if found is not None:
                return found
        if not revisions.legacy_versions:
            raise self._no_shared_version([])
        return await self._initialize()

    async def _discover(self) -> Any:
        import asyncio

        revisions, preferred = self.revisions, self.peer.preferred_version
        modern_versions, legacy_versions = revisions.modern_versions, revisions.legacy_versions
        proposed = (
            preferred
            if preferred in modern_versions
            else self.surface.version if self.surface.modern else modern_versions[-1]
        )
        for _ in range(len(modern_versions) + 1):
            revision = revisions[proposed]
            modern = revision.modern
            assert modern is not None
            try:
                raw = await _answered(
                    self.attached,
                    self.peer.send_request(
                        modern.discover, self.outgoing_params(revision, modern.discover, {})
                    ),
                    self.peer.discover_timeout,
                )
            except ProtocolError as exc:
                offered = (
                    exc.data.get(modern.supported_key)
                    if isinstance(exc.data, Mapping) and modern.supported_key
                    else None
                )
                if exc.code == modern.unsupported_code and isinstance(offered, list):
                    shared = [v for v in modern_versions if v in offered]
                    if shared:
                        proposed = shared[-1]
                        continue
                    if any(v in legacy_versions for v in offered):
                        return None
                    raise self._no_shared_version(offered) from None
                if legacy_versions:
                    return None  # not an error of the stateless era: a session-era server
                raise
            except asyncio.TimeoutError:
                if legacy_versions:
                    return None
                raise
            try:
                result = revision.registry.parse_result(modern.discover, raw)
            except ProtocolError:
                if legacy_versions:
                    return None  # an answer that is no discovery result: a session-era server
                raise
            offered = handshake_info(revision, result).versions
            shared = [v for v in modern_versions if v in offered]
            if not shared:
                if any(v in legacy_versions for v in offered):
                    return None
                raise self._no_shared_version(offered)
            chosen = revisions[proposed if proposed in shared else shared[-1]]
            self.set_session(chosen.version)
            self.peer_info = result
            return self._surface_handshake(chosen, result)
        raise self._no_shared_version([])

    async def _initialize(self) -> Any:
        revisions, preferred = self.revisions, self.peer.preferred_version
        legacy_versions = revisions.legacy_versions
        default = self.surface.version if self.surface.legacy is not None else legacy_versions[-1]
        proposed = revisions[preferred if preferred in legacy_versions else default]
        keys = proposed.legacy
        assert keys is not None
        params = {
            keys.version_key: proposed.version,
            keys.capabilities_key: project_capabilities(
                dump(self.peer.derived_capabilities()),
                proposed.client_capabilities,
                self.surface.client_capabilities,
            ),
            keys.client_info_key: self.peer.client_info(),
        }
        raw = await self.peer.send_request(keys.method, params)
        version = raw.get(keys.version_key) if isinstance(raw, Mapping) else None
        if version not in legacy_versions:
            raise self._no_shared_version([version] if isinstance(version, str) else [])
        chosen = revisions[version]
        result = chosen.registry.parse_result(keys.method, raw)
        self.set_session(chosen.version)
        self.peer_info = result
        if chosen.legacy is not None and chosen.legacy.initialized is not None:
            await self.peer.send_notification(chosen.legacy.initialized, None)
        return self._surface_handshake(chosen, result)

    def _surface_handshake(self, revision: Revision, result: Any) -> Any:
        """The server's handshake answer as the surface revision's handshake result."""
        if revision is self.surface or self.surface.handshake is None:
            return result
        info = handshake_info(revision, result)
        return handshake_result(
            self.revisions,
            self.surface,
            revision.version,
            info.capabilities or {},
            info.info or {},
            info.instructions,
            self.result_fills(self.surface, self.surface.handshake),
        )

    def _no_shared_version(self, offered: list[Any]) -> ProtocolError:
        return ProtocolError(
            INVALID_REQUEST,
            f"the server speaks protocol versions {', '.join(map(str, offered)) or 'unknown'}; "
            f"this client speaks {', '.join(self.revisions.supported)}",
        )

    def outgoing_params(
        self, revision: Revision, method: str, wire: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        modern = revision.modern
        if modern is None:
            return super().outgoing_params(revision, method, wire)
        out = dict(wire or {})
        meta = dict(out.get(modern.meta_key) or {})
        for key, value in self.peer.request_meta(revision.version).items():
            meta.setdefault(key, value)
        meta[modern.version_key] = revision.version
        out[modern.meta_key] = meta
        return out

    def surface_params_wire(self, method: str, params: Any) -> dict[str, Any] | None:
        if isinstance(params, Mapping) and self.surface.modern is not None:
            params = self.outgoing_params(self.surface, method, dict(params))
        return super().surface_params_wire(method, params)

    async def fulfil_from_peer(
        self, revision: Revision, method: str, wire: Any, model: Any, raw: Any
    ) -> Any:
        """A stateless-era server's request for input is answered by this client's own handlers, then the
        request is sent again with the answers; when a handler cannot answer, the caller gets the
        input-required result."""
        need = revision.input_required
        asking = revision.input_required_model
        for _ in range(MAX_INPUT_ROUNDS):
            if need is None or asking is None or not isinstance(model, asking):
                return model
            answers = {}
            requests = raw.get(need.requests_key) if isinstance(raw, Mapping) else None
            for key, request in (requests if isinstance(requests, Mapping) else {}).items():
                answer = await self.answer_input(revision, request)
                if answer is None:
                    return model
                answers[key] = answer
            retry = dict(wire or {})
            retry[need.responses_key] = answers
            retry.pop(need.state_key, None)
            if raw.get(need.state_key) is not None:
                retry[need.state_key] = raw[need.state_key]
            model, raw = self.peer_result(
                revision, method, await self.peer.send_request(method, retry)
            )
        return model

    async def answer_input(self, revision: Revision, request: Any) -> Any:
        """This client's answer to one input request (wire data), by its own handler; None when it has
        no handler for it."""
        method = request.get("method") if isinstance(request, Mapping) else None
        if not isinstance(method, str):
            return None
        handler = self.handler(method)
        spec = revision.registry.methods.get(method)
        if handler is None or spec is None:
            return None
        message = spec.message.model_validate({"jsonrpc": "2.0", "id": 0, **request})
        try:
            result = await getattr(self.peer, handler)(
                self.surface_params(revision, method, message, request)
            )
        except ProtocolError as exc:
            if exc.code == METHOD_NOT_FOUND:
                return None
            raise
        return self.result_to_wire(revision, method, result)


ClientBase._endpoint_type = ClientEndpoint
