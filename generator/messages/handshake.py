"""The protocol version a trace's handshake names: the one an `initialize` negotiates (its result's, else
the one its request asks for), or the one a `server/discover` request carries in its `_meta`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .pointer import pointer

VERSION_META = "io.modelcontextprotocol/protocolVersion"


@dataclass(frozen=True)
class Handshake:
    """The version a handshake names, and where: the message (file, line), its definition and the JSON pointer."""

    version: str
    file: str
    line: int
    definition: str
    path: str
    what: str
    """The message, as a person names it: `the initialize response`."""

    @property
    def place(self) -> str:
        """`what` with its file and line."""
        return f"{self.what} at {self.file}:{self.line}"


def find_handshake(messages: Iterable[tuple[str, int, Any]]) -> Handshake | None:
    """The first handshake among `messages` (file, line, message), or None: an `initialize` request is
    settled by the response to it when the trace has one."""
    asked: tuple[Any, Handshake | None] | None = None
    for file, line, value in messages:
        if not isinstance(value, dict):
            continue
        if asked is not None:
            if value.get("id") == asked[0] and "method" not in value:
                return _version(value.get("result"), ("result", "protocolVersion"), file, line, "InitializeResult", "the initialize response") or asked[1]
            continue
        if value.get("method") == "initialize":
            request = _version(value.get("params"), ("params", "protocolVersion"), file, line, "InitializeRequest", "the initialize request")
            asked = (value.get("id"), request)
        elif value.get("method") == "server/discover":
            params = value.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            return _version(meta, ("params", "_meta", VERSION_META), file, line, "DiscoverRequest", "the server/discover request")
    return asked[1] if asked is not None else None


def _version(holder: Any, path: tuple[str, ...], file: str, line: int, definition: str, what: str) -> Handshake | None:
    version = holder.get(path[-1]) if isinstance(holder, dict) else None
    return Handshake(version, file, line, definition, pointer(path), what) if isinstance(version, str) else None
