"""The stateless era's request path (2026-07-28): a fresh server per request, whose version, method and
names are mirrored in headers that must agree with the body."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, valid_id
from ..peer import Peer, received
from .common import (
    Eras,
    at,
    decode_header,
    error_body,
    is_request,
    is_response,
    mapping,
    same,
)
from .stream import Stream, StreamOptions
from .tooltable import ToolTable
from .wire import Receive, Reject, Request, Send, respond, respond_json, start_sse, watched


class Stateless:
    """Serves the requests of stateless-era versions, each with a fresh `make_server()`."""

    def __init__(self, make_server: Callable[[], Peer], eras: Eras, streams: StreamOptions) -> None:
        self.make_server = make_server
        self.eras = eras
        self.streams = streams
        self.open_streams: set[Stream] = set()
        """SSE answers being written (a listen request's may never end by itself)."""
        self._tools = ToolTable(eras)

    async def post(
        self, request: Request, body: Any, version: str, receive: Receive, send: Send
    ) -> None:
        """Serve one POSTed message in protocol `version`: a notification gets 202, a request its answer."""
        if type(body) is not dict and not isinstance(body, Mapping):
            raise Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: the body must be one JSON-RPC message"
                ),
            )
        if is_response(body):
            raise Reject(
                400,
                error_body(
                    INVALID_REQUEST, "Invalid Request: clients send no responses in this revision"
                ),
            )
        request_id = body.get("id") if is_request(body) and valid_id(body.get("id")) else None
        server = self.make_server()
        try:
            pending = self._check_headers(request, body, request_id, server)
            if pending is not None:  # the tool list is read from the server
                await pending
            if request_id is None:
                reply = await received(server, body, None, version)
                if reply is not None:
                    raise Reject(400, {k: v for k, v in mapping(reply).items() if v is not None})
                await respond(send, 202)
                return
            answer = Answer(self, send)
            endpoint = server._mcp
            endpoint.attach(answer)  # what `server.attach` does
            try:
                reply = await watched(
                    received(server, body, answer, version),
                    receive,
                    lambda: endpoint.cancel_in_flight(request_id),
                )
            finally:
                endpoint.attach(None)
                answer.answered = True
                if answer.stream is not None:
                    self.open_streams.discard(answer.stream)
        finally:
            server._mcp_release()
        stream = answer.stream
        if stream is None:  # the handler sent nothing: its answer is plain JSON
            if reply is not None:
                await respond_json(send, self._reply_status(reply), reply)
            return
        if reply is None:
            if not await stream.answer_json():
                await stream.close(final=True)
            return
        if await stream.answer_json():
            await respond_json(send, self._reply_status(reply), reply)
            return
        with contextlib.suppress(ConnectionError):
            await stream.emit(reply, final=True)

    def _reply_status(self, reply: Any) -> int:
        """The HTTP status of a JSON answer: 200 for a result, the error's status for an error."""
        error = reply.get("error") if type(reply) is dict or isinstance(reply, Mapping) else None
        return 200 if error is None else self._status(error)

    def _status(self, error: Any) -> int:
        """The HTTP status of a stateless-era answer: 404 for an unknown method, 400 for a refused request."""
        code = error.get("code") if isinstance(error, Mapping) else None
        if code == METHOD_NOT_FOUND:
            return 404
        if code in self.eras.refused:
            return 400
        return 200

    def _mismatch(self, request_id: Any, message: str) -> Reject:
        """The refusal (400, -32020) of a request whose mirrored headers disagree with its body."""
        modern = self.eras.modern
        code = (modern.header_mismatch_code if modern is not None else None) or INVALID_REQUEST
        return Reject(400, error_body(code, f"Header mismatch: {message}", request_id))

    def _check_headers(
        self, request: Request, body: Mapping[str, Any], request_id: Any, server: Peer
    ) -> Awaitable[None] | None:
        """Refuse (400, -32020) a stateless request whose mirrored headers are missing or disagree with its
        body; what is left to await when its tool's annotations must be read from the server's list.
        """
        modern = self.eras.modern
        assert modern is not None
        mismatch = self._mismatch
        method = body.get("method")
        params = mapping(body.get("params"))
        meta = mapping(params.get(modern.meta_key))
        headers = request.headers
        version = headers.get("mcp-protocol-version")
        claimed = meta.get(modern.version_key)
        if claimed is not None and claimed != version:
            raise mismatch(
                request_id,
                f"MCP-Protocol-Version header {version!r} does not match _meta {claimed!r:.100}",
            )
        header = headers.get("mcp-method")
        if request_id is not None and header is None:
            raise mismatch(request_id, "Mcp-Method header is required")
        if header is not None and header != method:
            raise mismatch(
                request_id, f"Mcp-Method header {header!r:.100} does not match body method"
            )
        field = self.eras.name_headers.get(method) if isinstance(method, str) else None
        if field is not None:
            raw = headers.get("mcp-name")
            if raw is None:
                raise mismatch(request_id, "Mcp-Name header is required")
            if decode_header(raw) != params.get(field):
                raise mismatch(request_id, f"Mcp-Name header does not match params.{field}")
        malformed = malformed_param(headers)
        if malformed is not None:
            raise mismatch(request_id, f"{malformed} header is malformed")
        tools = self.eras.tool_headers
        if tools is None or method != tools.call:
            return None
        tool = params.get(tools.name_key)
        annotated = self._tools.kept(version or "", tool)
        if annotated is None:
            fetched = self._tools.fetched(server, version or "", tool, params.get(modern.meta_key))
            return self._check_fetched(fetched, request, params, request_id)
        if annotated:  # most tools mirror no argument
            self._check_params(request, params, request_id, annotated)
        return None

    async def _check_fetched(
        self,
        fetched: Awaitable[Mapping[str, tuple[str, ...]]],
        request: Request,
        params: Mapping[str, Any],
        request_id: Any,
    ) -> None:
        """The `Mcp-Param-*` check of a tool whose annotations are being read from the server's list."""
        self._check_params(request, params, request_id, await fetched)

    def _check_params(
        self,
        request: Request,
        params: Mapping[str, Any],
        request_id: Any,
        annotated: Mapping[str, tuple[str, ...]],
    ) -> None:
        """Refuse a `tools/call` whose `Mcp-Param-*` headers miss or disagree with its annotated arguments."""
        tools = self.eras.tool_headers
        assert tools is not None
        headers = request.headers
        arguments = mapping(params.get(tools.arguments_key))
        for header_name, path in annotated.items():
            value = at(arguments, path)
            sent = headers.get(PARAM_PREFIX + header_name.lower())
            if value is None:
                continue
            if sent is None:
                raise self._mismatch(request_id, f"Mcp-Param-{header_name} header is required")
            decoded = decode_header(sent)
            if decoded is None or not same(decoded, value):
                raise self._mismatch(
                    request_id, f"Mcp-Param-{header_name} header does not match the argument"
                )


PARAM_PREFIX = "mcp-param-"
NOT_PARAMS: set[str] = set()
"""Header names already seen that are no `Mcp-Param-*` (a client sends the same ones every time)."""
NOT_PARAMS_KEPT = 1024


def malformed_param(headers: Mapping[str, str]) -> str | None:
    """The first `Mcp-Param-*` header (by its lower-case name) whose value is malformed, else None."""
    if NOT_PARAMS.issuperset(headers):  # no Mcp-Param-* header: the usual request, checked in C
        return None
    for name in headers:
        if name.startswith(PARAM_PREFIX):
            if decode_header(headers[name]) is None:
                return name
        elif len(NOT_PARAMS) < NOT_PARAMS_KEPT:
            NOT_PARAMS.add(name)
    return None


class Answer:
    """The channel of one stateless request's handler: the SSE stream of its answer, made when the
    handler first sends something (most answer with plain JSON and never need one)."""

    __slots__ = ("_owner", "_send", "stream", "answered")

    def __init__(self, owner: Stateless, send: Send) -> None:
        self._owner = owner
        self._send = send
        self.stream: Stream | None = None
        self.answered = False
        """Set once the handler returned: a stream made later is already finished (what it is sent is
        dropped, as the stream that answered drops it)."""

    def opened(self) -> Stream:
        """The answer's stream, made on first use."""
        stream = self.stream
        if stream is None:
            stream = self.stream = Stream(None, "0", self._owner.streams)
            if self.answered:
                stream.finished = True
            else:
                send = self._send
                stream.start = lambda: start_sse(send, None)
                self._owner.open_streams.add(stream)
        return stream

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request to the client on the answer's stream."""
        return await self.opened().request(method, params)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification on the answer's stream (which then answers with SSE)."""
        await self.opened().notify(method, params)
