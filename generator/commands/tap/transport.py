"""The Streamable HTTP rules a revision's transport chapter sets, checked on each exchange the tap relays:
content types, `Accept`, the session id's echo and form, and the version and mirrored headers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ...messages.handshake import INITIALIZE, VERSION_META
from ...runtime.facts import Lifecycle
from ...runtime.http.common import decode_header
from .live import Problem

JSON, SSE = "application/json", "text/event-stream"
VERSION_HEADER_SINCE = "2025-06-18"
"""The first revision whose clients send `MCP-Protocol-Version` on every request after `initialize`."""


@dataclass
class Exchange:
    """One HTTP request through the tap and what came back: headers by lower-case name (credentials
    redacted), the request's messages, the answer's status."""

    method: str
    headers: Mapping[str, str]
    messages: list[Any]
    since: float
    wall: float
    body: bytes = b""
    status: int | None = None
    answer: Mapping[str, str] = field(default_factory=dict)

    @property
    def initialize(self) -> bool:
        """True when the request opens a session."""
        return any(isinstance(m, dict) and m.get("method") == INITIALIZE for m in self.messages)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The requests among the request's messages."""
        return [m for m in self.messages if isinstance(m, dict) and isinstance(m.get("method"), str) and "id" in m]


def media(value: str | None) -> list[str]:
    """The media types of a Content-Type or Accept value, lower case, without parameters."""
    return [part.split(";", 1)[0].strip().lower() for part in (value or "").split(",") if part.strip()]


def _accepts(accept: str | None, *wanted: str) -> bool:
    ranges = media(accept)
    return all(any(r in (m, "*/*", m.split("/", 1)[0] + "/*") for r in ranges) for m in wanted)


def _meta_version(messages: list[Any]) -> str | None:
    for m in messages:
        params = m.get("params") if isinstance(m, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(VERSION_META), str):
            return str(meta[VERSION_META])
    return None


def request_problems(exchange: Exchange, negotiated: str | None, assigned: bool, facts: Callable[[str], Lifecycle | None]) -> list[Problem]:
    """What the client's request breaks: its content type and Accept, and the session or version headers
    its revision asks for (`negotiated` is its session's; `assigned`: the server gives sessions ids)."""
    h = exchange.headers
    out: list[Problem] = []
    if exchange.method == "POST":
        if media(h.get("content-type"))[:1] != [JSON]:
            out.append(Problem("transport", f"Content-Type {h.get('content-type', 'missing')!r:.80}: a POST carries {JSON}"))
        if not _accepts(h.get("accept"), JSON, SSE):
            out.append(Problem("transport", f"Accept {h.get('accept', 'missing')!r:.80}: a POST lists {JSON} and {SSE}"))
    elif exchange.method == "GET" and not _accepts(h.get("accept"), SSE):
        out.append(Problem("transport", f"Accept {h.get('accept', 'missing')!r:.80}: a GET lists {SSE}"))
    header = h.get("mcp-protocol-version")
    named = _meta_version(exchange.messages) or header
    lifecycle = facts(named) if named else None
    if lifecycle is not None and lifecycle.modern is not None:
        return out + _stateless(exchange, header, lifecycle)
    if exchange.initialize or exchange.method not in ("POST", "GET", "DELETE"):
        return out
    if assigned and "mcp-session-id" not in h:
        out.append(Problem("transport", "no Mcp-Session-Id header: the server gave the session an id at initialize"))
    if negotiated is not None and negotiated >= VERSION_HEADER_SINCE:
        if header is None:
            out.append(Problem("transport", f"no MCP-Protocol-Version header: {negotiated} sends the negotiated version on every request after initialize"))
        elif header != negotiated:
            out.append(Problem("transport", f"MCP-Protocol-Version {header[:100]!r} is not the negotiated {negotiated}"))
    return out


def _stateless(exchange: Exchange, header: str | None, lifecycle: Lifecycle) -> list[Problem]:
    """A stateless-era request mirrors its version, method and target in headers that match its body."""
    modern = lifecycle.modern
    assert modern is not None
    h = exchange.headers
    out: list[Problem] = []
    claimed = _meta_version(exchange.messages)
    if header is None:
        out.append(Problem("transport", "no MCP-Protocol-Version header: every stateless request names its version"))
    elif claimed is not None and header != claimed:
        out.append(Problem("transport", f"MCP-Protocol-Version {header[:100]!r} does not match the _meta version {claimed[:100]!r}"))
    names = dict(modern.name_headers)
    for message in exchange.messages:
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            continue
        method = message["method"]
        sent = h.get("mcp-method")
        if sent is None and "id" in message:
            out.append(Problem("transport", f"no Mcp-Method header: a stateless request mirrors its method ({method[:100]})"))
        elif sent is not None and sent != method:
            out.append(Problem("transport", f"Mcp-Method {sent[:100]!r} does not match the body's method {method[:100]!r}"))
        params: dict[str, Any] = message["params"] if isinstance(message.get("params"), dict) else {}
        if method in names and "id" in message:
            raw = h.get("mcp-name")
            if raw is None:
                out.append(Problem("transport", f"no Mcp-Name header: {method} mirrors params.{names[method]}"))
            elif decode_header(raw) != params.get(names[method]):
                out.append(Problem("transport", f"Mcp-Name does not match params.{names[method]}"))
    return out


def answer_problems(exchange: Exchange) -> list[Problem]:
    """What the server's answer breaks: its status and content type for what was asked, and the session id."""
    status, a = exchange.status, exchange.answer
    out: list[Problem] = []
    if status is None:
        return out
    kind = media(a.get("content-type"))[:1]
    if exchange.method == "POST" and 200 <= status < 300:
        if exchange.requests and (status != 200 or kind not in ([JSON], [SSE])):
            out.append(Problem("transport", f"answered {status} {a.get('content-type', 'without a Content-Type')!s:.80}: a POST with a request is answered 200 with {JSON} or {SSE}"))
        elif exchange.messages and not exchange.requests and status != 202:  # an unreadable body may hold requests
            out.append(Problem("transport", f"answered {status}: a POST of notifications and responses only is answered 202 Accepted"))
    if exchange.method == "GET" and status == 200 and kind != [SSE]:
        out.append(Problem("transport", f"answered a GET 200 with {a.get('content-type', 'no Content-Type')!s:.80}: a GET stream is {SSE}"))
    given = a.get("mcp-session-id")
    if given is not None and exchange.initialize and not (given and all("!" <= c <= "~" for c in given)):
        out.append(Problem("transport", "the Mcp-Session-Id it assigns is not visible ASCII (0x21 to 0x7E)"))
    asked = exchange.headers.get("mcp-session-id")
    if given is not None and asked is not None and not exchange.initialize and given != asked:
        out.append(Problem("transport", "the answer's Mcp-Session-Id is not the request's"))
    return out
