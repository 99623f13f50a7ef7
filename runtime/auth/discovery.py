"""Discovery for one MCP server: its protected-resource metadata (RFC 9728), then its authorization
server's metadata (RFC 8414, OpenID Connect), every document fetched only where the client's
authorization traffic may go (`destinations`) and bounded (`fetch`)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .challenge import Challenge
from .destinations import Destinations
from .errors import AuthorizationError
from .fetch import exchange
from .metadata import (
    AuthorizationServerMetadata,
    ProtectedResourceMetadata,
    authorization_server_metadata_urls,
    canonical_resource,
    legacy_metadata,
    origin,
    resource_allows,
    resource_metadata_urls,
)

Document = TypeVar("Document", bound=BaseModel)


@dataclass(frozen=True)
class Discovered:
    """What discovery found for one MCP server: its resource indicator and authorization server."""

    resource: str
    issuer: str
    server: AuthorizationServerMetadata
    resource_metadata: ProtectedResourceMetadata | None
    """None for a 2025-03-26 server without protected-resource metadata."""
    destinations: Destinations
    """Where the authorization traffic for this server may go."""


async def discover(
    http: Any,
    server_url: str,
    challenge: Challenge | None,
    allowed: Destinations,
    timeout: float,
) -> Discovered:
    """The resource and authorization server of the MCP server at `server_url`, as its `challenge`
    (`resource_metadata`) or its well-known URLs say, fetched only where `allowed` lets them go;
    AuthorizationError when they say nothing usable.
    """
    hint = challenge.params.get("resource_metadata") if challenge is not None else None
    found: ProtectedResourceMetadata | None = None
    for url in [*([hint] if hint else []), *resource_metadata_urls(server_url)]:
        await allowed.check(url, "the protected-resource metadata", document=True)
        found = parsed(ProtectedResourceMetadata, await document(http, url, timeout))
        if found is not None:
            break
    if found is None:
        base = origin(server_url)
        server = await _server_metadata(http, base, True, allowed, timeout)
        return Discovered(canonical_resource(server_url), base, server, None, allowed)
    if not resource_allows(found.resource, server_url):
        raise AuthorizationError(
            f"the protected-resource metadata is for {found.resource!r}, not {server_url!r}"
        )
    if not found.authorization_servers:
        raise AuthorizationError(
            f"the protected-resource metadata of {server_url!r} names no authorization server"
        )
    issuer = found.authorization_servers[0]
    server = await _server_metadata(http, issuer, False, allowed, timeout)
    return Discovered(found.resource, issuer, server, found, allowed)


async def _server_metadata(
    http: Any, issuer: str, legacy: bool, allowed: Destinations, timeout: float
) -> AuthorizationServerMetadata:
    """The validated metadata of `issuer`; a 2025-03-26 server's default endpoints when it has none."""
    impostor: str | None = None
    for url in authorization_server_metadata_urls(issuer):
        await allowed.check(url, "the authorization server metadata", document=True)
        server = parsed(AuthorizationServerMetadata, await document(http, url, timeout))
        if server is None:
            continue
        if server.issuer == issuer:
            return server
        impostor = server.issuer
    if impostor is not None:
        raise AuthorizationError(
            f"the metadata of authorization server {issuer!r} names issuer {impostor[:200]!r}"
        )
    if legacy:
        return legacy_metadata(issuer)
    raise AuthorizationError(f"authorization server {issuer!r} publishes no metadata")


async def document(http: Any, url: str, timeout: float) -> dict[str, Any] | None:
    """The JSON object at `url`; None for anything else (an error status, a refused connection)."""
    httpx: Any = importlib.import_module("httpx")
    try:
        answer = await exchange(http, "GET", url, timeout)
    except httpx.HTTPError:
        return None
    return answer.json if answer.status == 200 else None


def parsed(model: type[Document], data: dict[str, Any] | None) -> Document | None:
    """`data` validated as `model`; None when it is not one."""
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None
