"""The ASGI wire of the HTTP server: a request's headers, its bounded JSON body, and the answers written back
(JSON, SSE, or a refusal with a status)."""

from __future__ import annotations

import asyncio
import types
from collections.abc import (
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Iterable,
    Mapping,
    MutableMapping,
)
from functools import lru_cache
from typing import Any, TypeVar, cast

from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, ProtocolError, encode, load
from ..log import logger
from .common import error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
T = TypeVar("T")


class Reject(Exception):
    """An HTTP error answer: status, JSON-RPC error body (or None) and extra headers."""

    def __init__(
        self, status: int, body: dict[str, Any] | None, headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = list(headers)


_KNOWN = {
    name.encode("ascii"): name
    for name in (
        "host",
        "origin",
        "content-type",
        "content-length",
        "accept",
        "accept-encoding",
        "user-agent",
        "connection",
        "authorization",
        "dpop",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        "mcp-method",
        "mcp-name",
    )
}
"""The names of the headers clients send, as servers write them (lower case), and their text."""


_VALUES: dict[bytes, str] = {}
"""Short header values already read, and their text (a client sends the same ones every time)."""
_VALUES_KEPT = 1024
_VALUE_LONGEST = 64

_BLOCKS: dict[tuple[Any, ...], dict[str, str]] = {}
"""Whole header lists already read (names and values as uvicorn gives them) and what they read as: a
client sends the same headers every time. Only short lists of short names and values are kept (`_keep`)."""
_BLOCKS_KEPT = 256
_BLOCK_LONGEST = 32


def _value(raw: bytes) -> str:
    """A header's value as text, without the optional whitespace around it (RFC 9110)."""
    value = raw.decode("latin-1").strip(" \t")
    if len(raw) <= _VALUE_LONGEST:
        if len(_VALUES) >= _VALUES_KEPT:
            _VALUES.clear()
        _VALUES[raw] = value
    return value


def _headers(raw: tuple[Any, ...]) -> dict[str, str]:
    """Header fields by their lower-case names; a repeated field's values joined, in order (RFC 9110)."""
    known = _KNOWN
    values = _VALUES
    headers: dict[str, str] = {}
    for n, v in raw:  # a loop, not a comprehension: no call of its own (Python 3.11)
        headers[known.get(n) or n.decode("latin-1").lower()] = values.get(v) or _value(v)
    if len(headers) != len(raw):  # a repeated field
        headers = {}
        for raw_name, raw_value in raw:
            name = raw_name.decode("latin-1").lower()
            value = _value(raw_value)
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


def _keep(raw: tuple[Any, ...], headers: dict[str, str]) -> None:
    """Remember what a header list reads as, when it is short and so is every name and value in it."""
    if len(raw) <= _BLOCK_LONGEST and all(
        len(name) <= _VALUE_LONGEST and len(value) <= _VALUE_LONGEST for name, value in raw
    ):
        if len(_BLOCKS) >= _BLOCKS_KEPT:
            _BLOCKS.clear()
        _BLOCKS[raw] = headers


class Request:
    """The parts of an ASGI HTTP scope the transport reads."""

    def __init__(self, scope: Scope) -> None:
        self.method: str = scope["method"]
        self.scope = scope
        raw = tuple(scope.get("headers", ()))
        try:
            headers = _BLOCKS.get(raw)
        except TypeError:  # fields as lists (ASGI allows any two-item iterable): read every time
            headers = _headers(raw)
        if headers is None:
            headers = _headers(raw)
            _keep(raw, headers)
        self.headers: dict[str, str] = headers
        """Header fields by their lower-case names (shared by requests sending the same list: read only)."""
        self.get: Callable[[str], str | None] = headers.get
        """A header's value by its name in lower case (the dict's own `get`: no call of ours)."""

    @property
    def origin(self) -> str:
        """Where the request came to: scheme and authority (the resource server's URLs start so)."""
        server = self.scope.get("server")
        host = self.headers.get("host") or (f"{server[0]}:{server[1]}" if server else "localhost")
        return f"{self.scope.get('scheme', 'http')}://{host}"


def paths(scope: Scope) -> tuple[str, str]:
    """A request's path below the app's mount point (`root_path`), and that mount point."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "").rstrip("/")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path.rstrip("/") or "/", root


def media_types(value: str) -> list[str]:
    """The media types a Content-Type or Accept header lists, lower case, without parameters."""
    return [part.split(";", 1)[0].strip().lower() for part in value.split(",") if part.strip()]


def accepts(accept: str, *media: str) -> bool:
    """True when an Accept header admits every one of `media` (wildcards count)."""
    ranges = media_types(accept)
    return all(any(r in (m, "*/*", m.split("/", 1)[0] + "/*") for r in ranges) for m in media)


@lru_cache(maxsize=64)
def refused_content(content_type: str, accept: str) -> tuple[int, str] | None:
    """Why a POST with these Content-Type and Accept headers is refused (status and message): 415 unless
    its body is `application/json`, 406 unless the client accepts both JSON and SSE answers; None when
    it is not. Remembered: a client sends the same headers every time."""
    if media_types(content_type)[:1] != ["application/json"]:
        return 415, "Unsupported Media Type: Content-Type must be application/json"
    if not accepts(accept, "application/json", "text/event-stream"):
        return 406, "Not Acceptable: Accept must list application/json and text/event-stream"
    return None


async def read_json(request: Request, receive: Receive, limit: int) -> Any:
    """The JSON body of a POST (400 unless it is JSON), refused unless it is `application/json` of at most
    `limit` bytes, whatever its Content-Length says (413), and the client accepts both JSON and SSE answers.
    """
    refused = refused_content(request.get("content-type") or "", request.get("accept") or "")
    if refused is not None:
        raise Reject(refused[0], error_body(INVALID_REQUEST, refused[1]))
    length = (request.get("content-length") or "").strip()
    # ASCII digits only (`int` refuses "²", which `isdigit` admits), and no more than a length has
    if length.isascii() and length.isdigit() and (len(length) > 18 or int(length) > limit):
        raise Reject(413, error_body(INVALID_REQUEST, f"Request body larger than {limit} bytes"))
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Reject(400, None)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Reject(
                413, error_body(INVALID_REQUEST, f"Request body larger than {limit} bytes")
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    try:
        return load(b"".join(chunks))
    except ProtocolError as exc:
        raise Reject(400, error_body(exc.code, exc.message)) from None


async def disconnected(receive: Receive) -> None:
    """Return once the client has gone."""
    while (await receive())["type"] != "http.disconnect":
        pass


def watch_disconnect(receive: Receive, gone: Callable[[], object]) -> Callable[[], None]:
    """Call `gone` if the client goes while the request is served; the function that stops watching.

    The watch begins at the event loop's next turn: a request answered before that (a handler that
    never waits) costs no watching task."""
    watcher: asyncio.Future[None] | None = None

    def begin() -> None:
        nonlocal watcher
        watcher = asyncio.ensure_future(disconnected(receive))
        watcher.add_done_callback(lambda w: None if w.cancelled() else gone())

    starting = asyncio.get_running_loop().call_soon(begin)

    def stop() -> None:
        starting.cancel()
        if watcher is not None:
            watcher.cancel()

    return stop


async def watched(coro: Coroutine[Any, Any, T], receive: Receive, gone: Callable[[], object]) -> T:
    """Await `coro`, calling `gone` if the client goes while it is suspended.

    Its first step runs here: an answer ready without waiting (most are) costs no watch at all; the
    watch (`watch_disconnect`) begins only once `coro` waits, and ends with it."""
    try:
        waiting = coro.send(None)
    except StopIteration as done:
        value: T = done.value  # not `cast`: a call of its own, on every request's path
        return value
    stop = watch_disconnect(receive, gone)
    try:
        return await _resumed(coro, waiting)
    finally:
        stop()


@types.coroutine
def _resumed(coro: Coroutine[Any, Any, T], waiting: Any) -> Generator[Any, None, T]:
    """The rest of `coro`, which has just yielded `waiting` to the event loop: hand that on, then
    delegate (a task resumes a coroutine with `send(None)` or `throw`)."""
    while True:
        try:
            yield waiting
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:  # a cancellation thrown in: `coro` decides what it means
            try:
                waiting = coro.throw(exc)
            except StopIteration as done:
                return cast(T, done.value)
            continue
        return (yield from cast(Generator[Any, None, T], coro))


async def respond(send: Send, status: int, headers: Iterable[tuple[str, str]] = ()) -> None:
    """Write a whole answer without a body: status and headers."""
    await send(_start(status, 0, None, headers))
    await send({"type": "http.response.body", "body": b""})


async def respond_json(
    send: Send, status: int, body: Any, headers: Iterable[tuple[str, str]] = ()
) -> None:
    """Write a whole `application/json` answer."""
    data = encoded(body)
    await send(_start(status, len(data), b"application/json", headers))
    await send({"type": "http.response.body", "body": data})


def _start(
    status: int, length: int, content_type: bytes | None, headers: Iterable[tuple[str, str]]
) -> Message:
    """The `http.response.start` message of a whole answer of `length` bytes."""
    raw = []
    for name, value in headers:  # a loop, not a comprehension: no call of its own (Python 3.11)
        raw.append((name.encode("latin-1"), value.encode("latin-1")))
    raw.append((b"content-length", b"%d" % length))
    if content_type is not None:
        raw.append((b"content-type", content_type))
    return {"type": "http.response.start", "status": status, "headers": raw}


def encoded(message: Any) -> bytes:
    """A message as JSON; an answer JSON cannot carry becomes an internal error for its request."""
    try:
        return encode(message)
    except ValueError as exc:
        logger.error("an answer could not be written as JSON (%s): answered -32603 instead", exc)
        request_id = message.get("id") if isinstance(message, Mapping) else None
        return encode(
            error_body(INTERNAL_ERROR, "Internal error: the answer is not valid JSON", request_id)
        )


async def start_sse(send: Send, session_id: str | None) -> Send:
    """Begin a 200 text/event-stream answer (unbuffered by proxies); the `send` that writes its events."""
    headers = [
        (b"content-type", b"text/event-stream"),
        (b"cache-control", b"no-cache"),
        (b"x-accel-buffering", b"no"),
    ]
    if session_id is not None:
        headers.append((b"mcp-session-id", session_id.encode("ascii")))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    return send
