"""What both ends of Streamable HTTP know: the eras of a package's revisions, and the mirrored headers.

The transport chapter's knowledge lives here (the version a session-era server assumes, the `x-mcp-header`
keyword, the Base64 sentinel); what a revision's schema says (which params a header mirrors, which
tool arguments travel as headers) comes from its facts.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeGuard

from ..facts import Legacy, Modern, ToolHeaders
from ..jsonrpc import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, valid_id
from ..revisions import Revisions

ASSUMED_VERSION = "2025-03-26"
"""The version a session-era server assumes for a request without `MCP-Protocol-Version` (transport chapter)."""
HEADER_KEYWORD = "x-mcp-header"
"""The JSON Schema keyword that marks a tool argument sent as an `Mcp-Param-*` header."""
SENTINEL = ("=?base64?", "?=")
"""How an `Mcp-Name`/`Mcp-Param-*` value that is not plain printable ASCII is wrapped (Base64 of UTF-8)."""
SAFE_INTEGER = 2**53 - 1
"""The largest integer a mirrored header may carry (JavaScript's safe range, as the 2026-07-28 chapter says)."""


@dataclass(frozen=True)
class Eras:
    """The transport's view of a package's revisions: which version takes which era, and their keys."""

    stateless: frozenset[str]
    """Versions served statelessly (`MCP-Protocol-Version` and `_meta` on every request)."""
    session: tuple[str, ...]
    """Versions served in sessions (`initialize`, `Mcp-Session-Id`)."""
    batching: frozenset[str]
    handshakes: frozenset[str]
    """The methods that open a session."""
    initialized: frozenset[str]
    """The notifications that complete a session's handshake."""
    legacy: Legacy | None
    modern: Modern | None
    name_headers: Mapping[str, str]
    """Request method → the params field its `Mcp-Name` header mirrors (the extensions' requests too)."""
    tool_headers: ToolHeaders | None
    refused: frozenset[int]
    """Error codes a stateless-era server answers with 400 Bad Request (-32601 is 404, the rest 200)."""


@lru_cache(maxsize=None)
def eras(revisions: Revisions) -> Eras:
    """The transport's view of `revisions` (worked out once per package)."""
    legacy = revisions[revisions.legacy_versions[-1]].legacy if revisions.legacy_versions else None
    modern = revisions.modern
    codes = (
        PARSE_ERROR,
        INVALID_REQUEST,
        INVALID_PARAMS,
        modern.header_mismatch_code if modern else None,
        modern.missing_capability_code if modern else None,
        modern.unsupported_code if modern else None,
    )
    return Eras(
        stateless=frozenset(revisions.modern_versions),
        session=revisions.legacy_versions,
        batching=revisions.batch_versions,
        handshakes=frozenset(r.legacy.method for r in revisions.values() if r.legacy is not None),
        initialized=frozenset(
            r.legacy.initialized for r in revisions.values() if r.legacy and r.legacy.initialized
        ),
        legacy=legacy,
        modern=modern,
        name_headers={
            **(dict(modern.name_headers) if modern else {}),
            **{
                method: key
                for r in revisions.values()
                if r.modern is not None
                for e in r.extensions
                for method, key in e.name_headers
            },
        },
        tool_headers=modern.tool_headers if modern else None,
        refused=frozenset(code for code in codes if code is not None),
    )


def error_body(code: int, message: str, request_id: Any = None, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response; without a request id it has no `id` (the transport chapter's form)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body: dict[str, Any] = {"jsonrpc": "2.0", "error": error}
    if valid_id(request_id):
        body["id"] = request_id
    return body


async def cancel(channel: Any, revisions: Revisions, version: str | None, request_id: Any) -> None:
    """Tell the peer a request is cancelled, with the notification of the session's revision."""
    revision = revisions.get(version or "") or revisions[revisions.supported[-1]]
    if revision.cancelled is not None and revision.cancelled_id_key is not None:
        await channel.notify(revision.cancelled, {revision.cancelled_id_key: request_id})


def mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def is_response(obj: Any) -> TypeGuard[Mapping[str, Any]]:
    """True for a JSON-RPC response (a result or an error, no method)."""
    if type(obj) is not dict and not isinstance(obj, Mapping):
        return False
    return "method" not in obj and ("result" in obj or "error" in obj)


def is_request(obj: Any) -> bool:
    """True for a JSON-RPC request (a string method and an id)."""
    if type(obj) is not dict and not isinstance(obj, Mapping):
        return False
    return isinstance(obj.get("method"), str) and "id" in obj


def decode_header(value: str) -> str | None:
    """A mirrored header value in the clear (Base64 sentinel decoded); None when it is malformed."""
    # all of " ".."~" (the common case), checked in C before the character loop
    printable = value.isascii() and value.isprintable()
    if not printable and any(not (" " <= c <= "~" or c == "\t") for c in value):
        return None
    start, end = SENTINEL
    if value.startswith(start) and value.endswith(end) and len(value) >= len(start) + len(end):
        try:
            return base64.b64decode(value[len(start) : -len(end)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return value


def encode_header(value: str) -> str:
    """A value made safe for an `Mcp-Name`/`Mcp-Param-*` header: as it is when plain ASCII, else the Base64 sentinel."""
    start, end = SENTINEL
    plain = all(" " <= c <= "~" for c in value) and value == value.strip()
    if plain and not (value.startswith(start) and value.endswith(end)):
        return value
    return start + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii") + end


def header_params(input_schema: Any) -> dict[str, tuple[str, ...]]:
    """The `x-mcp-header` names of a tool's inputSchema → the property path each mirrors (`properties` chains only)."""
    found: dict[str, tuple[str, ...]] = {}

    def walk(schema: Any, path: tuple[str, ...], depth: int) -> None:
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(properties, Mapping) or depth > 32:
            return
        for key, sub in properties.items():
            if isinstance(sub, Mapping) and isinstance(sub.get(HEADER_KEYWORD), str):
                found[sub[HEADER_KEYWORD]] = (*path, key)
            walk(sub, (*path, key), depth + 1)

    walk(input_schema, (), 0)
    return found


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")
HEADER_TYPES = ("string", "integer", "boolean")
"""The property types an `x-mcp-header` may mark."""


def valid_header_params(input_schema: Any) -> bool:
    """Whether every `x-mcp-header` of a tool's inputSchema is usable: a header-name token, on a string,
    integer or boolean property, unique regardless of case (a client drops a tool failing this)."""
    seen: set[str] = set()

    def walk(schema: Any, depth: int) -> bool:
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(properties, Mapping) or depth > 32:
            return True
        for sub in properties.values():
            if isinstance(sub, Mapping) and HEADER_KEYWORD in sub:
                name = sub[HEADER_KEYWORD]
                if not isinstance(name, str) or not _HEADER_NAME.match(name):
                    return False
                if sub.get("type") not in HEADER_TYPES or name.lower() in seen:
                    return False
                seen.add(name.lower())
            if not walk(sub, depth + 1):
                return False
        return True

    return walk(input_schema, 0)


def at(value: Any, path: tuple[str, ...]) -> Any:
    """The value at `path` (object keys) inside `value`, None when there is none."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def header_text(value: Any) -> str | None:
    """The header form of an argument value (strings as they are, integers in decimal, booleans lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if -SAFE_INTEGER <= value <= SAFE_INTEGER else None
    if isinstance(value, str):
        return value
    return None


def same(header: str, value: Any) -> bool:
    """Whether a mirrored header carries exactly `value`: integers compare numerically and exactly (`42.0`
    is 42; nothing is rounded through a float), and only within JavaScript's safe range."""
    if isinstance(value, int) and not isinstance(value, bool):
        text = header.strip()
        if abs(value) > SAFE_INTEGER or len(text) > 40 or not _NUMBER.fullmatch(text):
            return False
        return decimal.Decimal(text) == value
    return header == header_text(value)


_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]{1,3})?")
"""A JSON number, as a mirrored integer header may spell it."""
