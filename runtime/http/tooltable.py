"""The stateless era's tool table: the `x-mcp-header` annotations a server's own tool list declares, read
for the mirrored-header check and kept only as long as that list says it may be (`ttlMs`, `cacheScope`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..auth.resource import ACCESS
from ..peer import Peer, received
from .common import Eras, header_params

PUBLIC = "public"
"""The `cacheScope` of a list any authorization context may reuse; any other is kept for its own context only."""
LIMIT = 256
"""Tool lists kept at most (one per version and authorization context): bounded whoever calls."""
PAGES = 100
"""Pages of a tool list read at most for one check."""
LONGEST = 86_400_000
"""The longest a tool list is kept (ms), whatever `ttlMs` it declares."""

Annotations = dict[str, tuple[str, ...]]


@dataclass
class Listing:
    """What a tool list said: each tool's header annotations, until when that holds, whether it was read to its end."""

    expires: float
    tools: dict[str, Annotations] = field(default_factory=dict)
    complete: bool = False


class ToolTable:
    """The header annotations of the tools of the servers one app makes, per version and authorization context."""

    def __init__(self, eras: Eras) -> None:
        self.eras = eras
        self._kept: dict[tuple[Any, ...], Listing] = {}

    def kept(self, version: str, tool: Any) -> Annotations | None:
        """The `x-mcp-header` annotations of `tool` from a list the server declared still fresh; None
        when no such list says (`fetched` then reads the server's)."""
        now = time.monotonic()
        for key in self._keys(version):
            listing = self._kept.get(key)
            if listing is None:
                continue
            if listing.expires <= now:
                del self._kept[key]
            elif isinstance(tool, str) and tool in listing.tools:
                return listing.tools[tool]
            elif listing.complete:
                return {}
        return None

    async def annotations(self, server: Peer, version: str, tool: Any, meta: Any) -> Annotations:
        """The `x-mcp-header` annotations of `tool`: from a list the server declared still fresh, else
        from `server`'s own tool list (asked with the request's `_meta`)."""
        found = self.kept(version, tool)
        return found if found is not None else await self.fetched(server, version, tool, meta)

    async def fetched(self, server: Peer, version: str, tool: Any, meta: Any) -> Annotations:
        """The annotations of `tool` read from `server`'s own tool list, which is kept while the server
        declares it fresh."""
        now = time.monotonic()
        keys = self._keys(version)
        listing, scope = await self._read(server, version, tool, meta, now)
        if listing.expires > now:
            self._kept.pop(keys[scope != PUBLIC], None)
            while len(self._kept) >= LIMIT:
                del self._kept[next(iter(self._kept))]
            self._kept[keys[scope != PUBLIC]] = listing
        return listing.tools.get(tool, {}) if isinstance(tool, str) else {}

    @staticmethod
    def _keys(version: str) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        """Where a list for `version` is kept: for everyone, then for the request's principal."""
        token = ACCESS.get()
        return (version, PUBLIC), (version, token.principal if token is not None else None)

    async def _read(
        self, server: Peer, version: str, tool: Any, meta: Any, now: float
    ) -> tuple[Listing, Any]:
        """`server`'s tool list in `version`, page by page until `tool` is found, and the scope it may be
        kept in."""
        keys, modern = self.eras.tool_headers, self.eras.modern
        assert keys is not None and modern is not None
        listing = Listing(expires=float("inf"))
        scope: Any = PUBLIC
        cursor: Any = None
        for page in range(PAGES):
            params: dict[str, Any] = (
                {modern.meta_key: dict(meta)} if isinstance(meta, Mapping) else {}
            )
            if cursor is not None and keys.cursor_key is not None:
                params[keys.cursor_key] = cursor
            request = {
                "jsonrpc": "2.0",
                "id": f"mcp-headers-{page}",
                "method": keys.listing,
                "params": params,
            }
            reply = await received(server, request, None, version)
            result = reply.get("result") if isinstance(reply, Mapping) else None
            if not isinstance(result, Mapping):
                return Listing(expires=now), scope
            ttl = result.get(keys.ttl_key) if keys.ttl_key is not None else None
            kept = min(ttl, LONGEST) / 1000 if type(ttl) is int and ttl > 0 else 0.0
            listing.expires = min(listing.expires, now + kept)
            if keys.scope_key is None or result.get(keys.scope_key) != PUBLIC:
                scope = None
            for entry in result.get(keys.tools_key) or ():
                if isinstance(entry, Mapping) and isinstance(entry.get(keys.name_key), str):
                    listing.tools.setdefault(
                        entry[keys.name_key], header_params(entry.get(keys.schema_key))
                    )
            cursor = result.get(keys.next_cursor_key) if keys.next_cursor_key else None
            if cursor is None:
                listing.complete = True
                return listing, scope
            if isinstance(tool, str) and tool in listing.tools:
                return listing, scope
        return listing, scope
