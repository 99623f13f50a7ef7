"""Which era serves an HTTP request: the stateless version its `MCP-Protocol-Version` names, or the session
era; a version neither era speaks is refused."""

from __future__ import annotations

from typing import Any

from ..jsonrpc import INVALID_REQUEST
from ..revisions import Revisions, newest_first
from .common import ASSUMED_VERSION, Eras, eras, error_body, mapping
from .wire import Reject, Request


class Versions:
    """The protocol versions a package's revisions speak over HTTP, and the era of each."""

    def __init__(self, revisions: Revisions) -> None:
        self.revisions = revisions
        self.eras: Eras = eras(revisions)

    def era(self, request: Request, body: Any) -> str | None:
        """The stateless version a request names, or None for the session era; refuses what neither era speaks."""
        version = request.get("mcp-protocol-version")
        eras = self.eras
        if version in eras.stateless:
            return version
        if version is None:
            if eras.session:
                return None
            modern = eras.modern
            meta = mapping(
                mapping(mapping(body).get("params")).get(modern.meta_key if modern else "")
            )
            if modern is not None and modern.version_key not in meta:
                # No version anywhere: a client of the session era, which should learn what is spoken.
                requested = mapping(mapping(body).get("params")).get("protocolVersion")
                raise self._unsupported(requested if isinstance(requested, str) else "")
            code = modern.header_mismatch_code if modern is not None else None
            raise Reject(
                400, error_body(code or INVALID_REQUEST, "Missing MCP-Protocol-Version header")
            )
        if version in eras.session or (eras.session and version == ASSUMED_VERSION):
            return None
        raise self._unsupported(version)

    def _unsupported(self, version: str) -> Reject:
        modern = self.eras.modern
        if modern is None or modern.unsupported_code is None:
            return Reject(
                400,
                error_body(INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {version[:100]}"),
            )
        data: dict[str, Any] = {}
        if modern.supported_key:
            data[modern.supported_key] = newest_first(self.revisions.supported)
        if modern.requested_key:
            data[modern.requested_key] = version
        return Reject(
            400,
            error_body(modern.unsupported_code, "Unsupported protocol version", data=data or None),
        )
