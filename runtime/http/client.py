"""The Streamable HTTP client: `connect_http(client, url)` and the connection it attaches.

It uses httpx, an optional dependency imported only when `connect_http` runs (`pip install httpx`);
nothing else in the package needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ..auth.authorization import Authorization
from ..jsonrpc import ProtocolError, encode, load, settle_answer
from ..log import logger
from ..peer import Peer
from ..facts import ToolHeaders
from .common import at, encode_header, eras, header_params, header_text, is_response, mapping
from .common import cancel, valid_header_params

KEEPALIVE_EXPIRY = 1.0
"""Seconds an idle connection is kept for reuse: less than the idle timeout of common servers (uvicorn,
Node and Apache 5 s, gunicorn 2 s), so a request is never sent on a connection in the moment the server
closes it (that request would be reset, not answered, and a JSON-RPC request is not retried)."""


LIMIT = 64 * 1024 * 1024
"""The most bytes one message may take: a JSON answer's body, or one SSE event (stdio's line limit)."""
RETRY_MS = (100, 60_000)
"""The bounds a server's SSE `retry` is held to: no reconnection loop faster, no wait longer."""
CLOSE_TIMEOUT = 5.0
"""Seconds the DELETE that ends a session may take when no `timeout` was given."""
REPLIES = 64
"""Server requests answered at once; one arriving beyond is dropped (logged), as a flood would be."""


class _Event:
    """One server-sent event: its id, retry and data (None for an event without data)."""

    __slots__ = ("id", "retry", "data")

    def __init__(self) -> None:
        self.id: str | None = None
        self.retry: int | None = None
        self.data: list[str] = []


def _usable(tool: Any, keys: ToolHeaders) -> bool:
    """Whether a listed tool's header annotations are valid; one that is not is dropped (logged)."""
    if not isinstance(tool, Mapping) or valid_header_params(tool.get(keys.schema_key)):
        return True
    logger.warning("tool %.100r dropped: invalid x-mcp-header annotations", tool.get(keys.name_key))
    return False


async def _events(lines: AsyncIterator[str]) -> AsyncIterator[_Event]:
    """The events of an SSE body, read line by line (comments and unknown fields skipped); an event's data
    beyond `LIMIT` is a ConnectionError, a `retry` is held to `RETRY_MS`."""
    event = _Event()
    size = 0
    async for line in lines:
        if not line:
            if event.data or event.id is not None or event.retry is not None:
                yield event
            event = _Event()
            size = 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            size += len(value) + 1
            if size > LIMIT:
                raise ConnectionError(f"an SSE event of the server's is larger than {LIMIT} bytes")
            event.data.append(value)
        elif field == "id" and "\0" not in value:
            event.id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            low, high = RETRY_MS
            event.retry = high if len(value) > len(str(high)) else min(max(int(value), low), high)
    if event.data:
        yield event


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a body (ended by CRLF, LF or CR, as SSE has them), as text; a line longer than
    `LIMIT` bytes is a ConnectionError, so a server cannot grow the client's memory without end."""
    limit = LIMIT
    pending = b""
    async for chunk in chunks:
        data = pending + chunk if pending else chunk
        start = 0
        while True:
            lf, cr = data.find(b"\n", start), data.find(b"\r", start)
            end = lf if cr < 0 or (0 <= lf < cr) else cr
            if end < 0 or (end == cr and end + 1 == len(data)):  # none, or a CR whose LF may follow
                break
            yield data[start:end].decode("utf-8", "replace")
            start = end + (2 if data[end : end + 2] == b"\r\n" else 1)
        pending = data[start:]
        if len(pending) > limit:
            raise ConnectionError(f"a line of the server's is longer than {limit} bytes")
    if pending:
        if pending.endswith(b"\r"):
            pending = pending[:-1]
        yield pending.decode("utf-8", "replace")


async def _body(response: Any) -> bytes:
    """A response's whole body; one larger than `LIMIT` bytes is a ConnectionError."""
    limit = LIMIT
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise ConnectionError(f"the server's answer is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """httpx's transport and stream errors, when httpx is there (an own HTTP client is httpx's too)."""
    try:
        httpx: Any = importlib.import_module("httpx")
    except ImportError:
        return ()
    return (httpx.TransportError, httpx.StreamError)


class HttpConnection:
    """A Client's conversation with a Streamable HTTP server: a Channel posting each message on its own.

    Answers come as JSON or as SSE streams; requests and notifications the server sends on those streams
    (or on the standalone GET stream) go to the client's `handle`, and its replies are posted back. A
    stream that ends before its answer is resumed with `Last-Event-ID` after the server's `retry` delay.
    """

    def __init__(
        self, peer: Peer, http: Any, url: str, listen: bool, timeout: float | None = None
    ) -> None:
        self.peer = peer
        self.eras = eras(type(peer).revisions)
        self.http = http
        self.url = url
        self.listen = listen
        self.session_id: str | None = None
        self.version: str | None = None
        self.retry_ms = 1000
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Future[Any]] = set()
        self._listener: asyncio.Future[Any] | None = None
        self._tools: dict[str, dict[str, tuple[str, ...]]] = {}
        self._pending: dict[Any, asyncio.Future[Any]] = {}
        self._closed = False
        self.timeout = timeout
        """Seconds a JSON answer's body may take to arrive (None: no limit; an SSE stream has none)."""
        self._transport_errors = _transport_errors()

    @property
    def authorizing(self) -> bool:
        """Whether the HTTP client's `Authorization` is at work now (waiting on the user, say)."""
        oauth = getattr(getattr(self.http, "auth", None), "oauth", None)
        return isinstance(oauth, Authorization) and oauth.authorizing

    def _headers(self, message: Mapping[str, Any] | None) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.version is not None:
            headers["mcp-protocol-version"] = self.version
        if message is None:
            return headers
        headers["content-type"] = "application/json"
        modern = self.eras.modern
        params = mapping(message.get("params"))
        meta = mapping(params.get(modern.meta_key)) if modern is not None else {}
        version = meta.get(modern.version_key) if modern is not None else None
        method = message.get("method")
        if version not in self.eras.stateless or not isinstance(method, str):
            return headers
        headers["mcp-protocol-version"] = str(version)
        headers["mcp-method"] = method
        field = self.eras.name_headers.get(method)
        if field is not None and isinstance(params.get(field), str):
            headers["mcp-name"] = encode_header(params[field])
        tools = self.eras.tool_headers
        if tools is not None and method == tools.call:
            for name, path in self._tools.get(str(params.get(tools.name_key)), {}).items():
                text = header_text(at(params.get(tools.arguments_key), path))
                if text is not None:
                    headers[f"mcp-param-{name}"] = encode_header(text)
        return headers

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send a request and wait for its result; ProtocolError for an error response."""
        if self._closed:
            raise ConnectionError("MCP connection is closed")
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._post(message, future)
            result = await future
        except asyncio.CancelledError:
            if not self._closed and method not in self.eras.handshakes and self.session_id:
                revisions = type(self.peer).revisions
                self._keep(asyncio.ensure_future(cancel(self, revisions, self.version, request_id)))
            raise
        finally:
            self._pending.pop(request_id, None)
        self._learn(method, result)
        return result

    def _learn(self, method: str, result: Any) -> None:
        """Remember what later requests need: the negotiated version, the tools' header annotations."""
        if not isinstance(result, Mapping):
            return
        legacy = self.eras.legacy
        if method in self.eras.handshakes and legacy is not None:
            version = result.get(legacy.version_key)
            if isinstance(version, str):
                self.version = version
        keys = self.eras.tool_headers
        if keys is not None and method == keys.listing:
            tools = result.get(keys.tools_key)
            if isinstance(tools, list):
                tools[:] = [t for t in tools if _usable(t, keys)]
            for tool in result.get(keys.tools_key) or ():
                if isinstance(tool, Mapping) and isinstance(tool.get(keys.name_key), str):
                    self._tools[tool[keys.name_key]] = header_params(tool.get(keys.schema_key))

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._post(message, None)
        if method in self.eras.initialized and self.listen and self.session_id is not None:
            opened = asyncio.Event()
            self._listener = asyncio.ensure_future(self._listen(opened))
            # Servers drop what they send while no GET stream is open: have it open before the next request.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(opened.wait(), 10)

    async def _post(self, message: Mapping[str, Any], future: asyncio.Future[Any] | None) -> None:
        """POST one message; for a request, read its answer (JSON or SSE, resumed if cut) into `future`."""
        try:
            await self._posted(message, future)
        except self._transport_errors as exc:  # httpx's: said as what they are to a caller
            raise ConnectionError(f"the request to {self.url} failed: {exc!r:.300}") from exc

    async def _posted(self, message: Mapping[str, Any], future: asyncio.Future[Any] | None) -> None:
        last: list[str | None] = [None]
        async with self.http.stream(
            "POST", self.url, content=encode(message), headers=self._headers(message)
        ) as response:
            session_id = response.headers.get("mcp-session-id")
            if session_id is not None and self.session_id is None:
                if not (
                    session_id.isascii() and session_id.isprintable() and " " not in session_id
                ):
                    raise ConnectionError(
                        f"the server's Mcp-Session-Id {session_id!r:.100} is not visible ASCII"
                    )
                self.session_id = session_id
            if response.status_code == 404 and self.session_id is not None:
                raise ConnectionError("MCP session expired (404): start a new session")
            if (
                "text/event-stream" in response.headers.get("content-type", "")
                and response.status_code < 300
            ):
                if future is not None:  # a notification's or a reply's POST has nothing to wait for
                    await self._drain(response, future, last)
            else:
                data = await asyncio.wait_for(_body(response), self.timeout)
                decoded = None
                if data:
                    with contextlib.suppress(ProtocolError):
                        decoded = load(data)
                if is_response(decoded):
                    settle_answer(self._pending, decoded, future)
                    if future is not None and not future.done():
                        raise ConnectionError(
                            "the server answered with a response to no request of ours"
                        )
                elif response.status_code >= 300 or (  # a redirect delivered nothing
                    future is not None and response.status_code != 202
                ):
                    raise ConnectionError(
                        f"the server answered HTTP {response.status_code}: {data[:200]!r}"
                    )
        if future is not None and not future.done():
            await self._resume(future, last)

    async def _drain(
        self, response: Any, until: asyncio.Future[Any] | None, last: list[str | None]
    ) -> None:
        """Read an SSE response until it ends or `until` is settled (possibly by another stream)."""
        reader = asyncio.ensure_future(self._read(response, until, last))
        try:
            await asyncio.wait(
                [reader] if until is None else [reader, until], return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            if not reader.done():
                reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def _resume(self, future: asyncio.Future[Any], last: list[str | None]) -> None:
        """Reconnect (GET with Last-Event-ID, after the retry delay) until `future` is settled."""
        idle = 0
        while not future.done():
            seen = last[0]
            if seen is None or idle >= 3:
                future.set_exception(
                    ConnectionError("the SSE stream ended before the response arrived")
                )
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(future), self.retry_ms / 1000)
                return
            headers = self._headers(None)
            headers["last-event-id"] = seen
            async with self.http.stream("GET", self.url, headers=headers) as response:
                if response.status_code == 409:
                    # The server still holds the connection that dropped: it lets go, try again.
                    idle += 1
                    continue
                if response.status_code != 200:
                    future.set_exception(
                        ConnectionError(
                            f"resuming the SSE stream failed: HTTP {response.status_code}"
                        )
                    )
                    return
                await self._drain(response, future, last)
            idle = idle + 1 if last[0] == seen else 0

    async def _read(
        self, response: Any, future: asyncio.Future[Any] | None, last: list[str | None]
    ) -> None:
        """Dispatch the events of an SSE response, recording the last event id and the retry delay."""
        async for event in _events(_lines(response.aiter_bytes())):
            if event.retry is not None:
                self.retry_ms = event.retry
            if event.id is not None:
                last[0] = event.id
            data = "\n".join(event.data)
            if not data.strip():
                continue
            try:
                obj = load(data)
            except ProtocolError:
                logger.warning("undecodable SSE event ignored")
                continue
            if is_response(obj):
                settle_answer(self._pending, obj, future)
            else:
                await self._dispatch(obj)

    async def _dispatch(self, obj: Any) -> None:
        """Give a server message to the client: notifications at once, requests in a task that posts the reply."""
        if not isinstance(obj, Mapping) or "method" not in obj:
            return
        if "id" not in obj:
            await self.peer.handle(obj)
            return
        if len(self._tasks) >= REPLIES:
            logger.warning(
                "request %.100r of the server's dropped: %d are being answered",
                obj.get("id"),
                REPLIES,
            )
            return
        self._keep(asyncio.ensure_future(self._reply(obj)))

    def _keep(self, task: asyncio.Future[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reply(self, obj: Any) -> None:
        reply = await self.peer.handle(obj)
        if isinstance(reply, Mapping) and not self._closed:
            try:
                await self._post(reply, None)
            except (ConnectionError, OSError, ValueError, asyncio.TimeoutError) as exc:
                logger.warning("could not send the reply to %.100r: %s", obj.get("id"), exc)

    async def _listen(self, opened: asyncio.Event) -> None:
        """Read the standalone GET stream (server messages outside any request), reconnecting after `retry`."""
        last: list[str | None] = [None]
        try:
            await self._listening(opened, last)
        finally:
            opened.set()

    async def _listening(self, opened: asyncio.Event, last: list[str | None]) -> None:
        while not self._closed:
            headers = self._headers(None)
            if last[0] is not None:
                headers["last-event-id"] = last[0]
            try:
                async with self.http.stream("GET", self.url, headers=headers) as response:
                    opened.set()
                    if response.status_code != 200:
                        return
                    await self._read(response, None, last)
            except Exception as exc:  # httpx's transport errors: reconnect after the retry delay
                logger.info("standalone SSE stream lost: %s", exc)
            await asyncio.sleep(self.retry_ms / 1000)

    async def aclose(self) -> None:
        """Stop listening, cancel the replies still running and end the session (DELETE)."""
        self._closed = True
        tasks = [*self._tasks, *([self._listener] if self._listener is not None else [])]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.session_id is not None:
            # bounded: a server that never answers does not hold the exit
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    self.http.request("DELETE", self.url, headers=self._headers(None)),
                    self.timeout or CLOSE_TIMEOUT,
                )


@contextlib.asynccontextmanager
async def connect_http(
    client: Peer,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    listen: bool = True,
    http: Any = None,
    auth: Authorization | None = None,
) -> AsyncIterator[HttpConnection]:
    """Connect `client` to the Streamable HTTP server at `url` (needs httpx); `headers` go on every request.

    `listen` opens the standalone GET stream after the handshake, for server messages outside any
    request. `http` may be an `httpx.AsyncClient` of your own (then `headers` and `timeout` are yours too).
    `auth` authorizes every request (an own `http` takes `auth=oauth.httpx_auth()` instead).
    """
    own = http is None
    if auth is not None and not own:
        raise ValueError("give your own http client auth=oauth.httpx_auth() instead of auth=")
    if own:
        try:
            httpx: Any = importlib.import_module("httpx")
        except ImportError:
            raise ImportError(
                "connect_http needs httpx, an optional dependency: pip install httpx"
            ) from None
        http = httpx.AsyncClient(
            headers=dict(headers or {}),
            timeout=httpx.Timeout(timeout, read=None),
            limits=httpx.Limits(
                max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_EXPIRY
            ),
            auth=auth.httpx_auth() if auth is not None else None,
        )
    connection = HttpConnection(client, http, url, listen, timeout if own else None)
    client.attach(connection)
    try:
        yield connection
    finally:
        client.attach(None)
        await connection.aclose()
        if own:
            await http.aclose()
