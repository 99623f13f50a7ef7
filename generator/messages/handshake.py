"""The protocol version a message names for its conversation: the one an `initialize` request asks for and
its response negotiates, or the one a 2026-07-28 request carries in its `_meta` (`server/discover` first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pointer import pointer

VERSION_META = "io.modelcontextprotocol/protocolVersion"
INITIALIZE = "initialize"
DISCOVER = "server/discover"


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


def is_initialize(value: Any) -> bool:
    """True for an `initialize` request."""
    return isinstance(value, dict) and value.get("method") == INITIALIZE and "id" in value


def asked(value: Any, file: str, line: int) -> Handshake | None:
    """The version an `initialize` request asks for (None when it names none)."""
    return _version(value.get("params"), ("params", "protocolVersion"), file, line, "InitializeRequest", "the initialize request")


def answered(value: Any, file: str, line: int) -> Handshake | None:
    """The version the response to an `initialize` request negotiates (None when it names none)."""
    return _version(value.get("result"), ("result", "protocolVersion"), file, line, "InitializeResult", "the initialize response")


def announced(value: Any, file: str, line: int) -> Handshake | None:
    """The version a request or notification names in its `_meta` (2026-07-28: `server/discover` and every request)."""
    if not isinstance(value, dict) or not isinstance(value.get("method"), str) or value["method"] == INITIALIZE:
        return None
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    method = value["method"]
    if method == DISCOVER:
        definition = "DiscoverRequest"
    else:
        definition = "JSONRPCRequest" if "id" in value else "JSONRPCNotification"
    kind = "request" if "id" in value else "notification"
    return _version(meta, ("params", "_meta", VERSION_META), file, line, definition, f"the {method[:100]} {kind}")


def _version(holder: Any, path: tuple[str, ...], file: str, line: int, definition: str, what: str) -> Handshake | None:
    version = holder.get(path[-1]) if isinstance(holder, dict) else None
    return Handshake(version, file, line, definition, pointer(path), what) if isinstance(version, str) else None
