"""The client's authorization requests (discovery documents, registration, tokens), each bounded in
what it reads and in the time it takes as a whole, whatever the server sends or how slowly."""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from typing import Any

from pydantic_core import from_json

from .errors import AuthorizationError

MAX_ANSWER = 1 << 20
"""The most bytes of one answer a client reads (metadata documents and token responses are small)."""


@dataclass(frozen=True)
class Answer:
    """An authorization server's (or MCP server's) answer: its status, headers and JSON object."""

    status: int
    headers: Any
    """The response's headers (an `httpx.Headers`)."""
    json: dict[str, Any] | None
    """The body when it is a JSON object, else None."""


async def _body(response: Any, url: str) -> bytes:
    """The raw body of a streamed `response`, read while it stays within `MAX_ANSWER` bytes."""
    httpx: Any = importlib.import_module("httpx")
    try:
        body = bytearray(response.content)  # an answer held in memory already (a mock transport)
    except httpx.ResponseNotRead:
        body = bytearray()
        async for chunk in response.aiter_raw():
            body += chunk
            if len(body) > MAX_ANSWER:
                break
    if len(body) > MAX_ANSWER:
        raise AuthorizationError(f"the answer of {url!r} is over {MAX_ANSWER} bytes")
    return bytes(body)


async def exchange(
    http: Any, method: str, url: str, timeout: float, *, what: str | None = None, **options: Any
) -> Answer:
    """Send one request with `http` (an `httpx.AsyncClient`) and read its answer, at most
    `MAX_ANSWER` bytes (uncompressed) and `timeout` seconds in all; AuthorizationError beyond, and
    when the request fails on the way (a refused connection) to `what` (an endpoint) if given."""
    httpx: Any = importlib.import_module("httpx")

    async def read() -> Answer:
        headers = {"accept": "application/json", "accept-encoding": "identity"}
        headers.update(options.pop("headers", {}))
        async with http.stream(method, url, headers=headers, **options) as response:
            coding = response.headers.get("content-encoding", "identity").strip().lower()
            length = response.headers.get("content-length", "")
            if coding != "identity" or (length.isdigit() and int(length) > MAX_ANSWER):
                raise AuthorizationError(f"the answer of {url!r} is compressed or too large")
            body = await _body(response, url)
        try:
            data = from_json(body, allow_inf_nan=False)
        except ValueError:
            data = None
        return Answer(
            response.status_code, response.headers, data if isinstance(data, dict) else None
        )

    try:
        return await asyncio.wait_for(read(), timeout)
    except asyncio.TimeoutError:
        raise AuthorizationError(f"{url!r} took over {timeout:g} s to answer") from None
    except httpx.HTTPError as exc:
        if what is None:
            raise
        failure = str(exc) or type(exc).__name__
        raise AuthorizationError(f"{what} {url!r} could not be reached: {failure}") from None
