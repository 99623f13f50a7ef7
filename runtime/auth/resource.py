"""The server side of MCP authorization: a resource server (`streamable_http_app(..., auth=...)`) that
publishes its protected-resource metadata, verifies each request's bearer token with the application's
verifier, answers 401 and 403 insufficient_scope challenges, and shows handlers the verified token.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .challenge import format_challenge
from .metadata import origin as origin_of

METADATA_PREFIX = "/.well-known/oauth-protected-resource"


@dataclass(frozen=True)
class AccessToken:
    """A verified access token: whom it was issued to and for, what it allows, its claims."""

    token: str
    scopes: frozenset[str] = frozenset()
    """Every scope it grants (a verifier expands scope hierarchies here)."""
    client_id: str | None = None
    subject: str | None = None
    expires_at: float | None = None
    """Seconds since the epoch from which it is refused (None: it does not expire)."""
    claims: Mapping[str, Any] = field(default_factory=dict)


TokenVerifier = Callable[[str], Awaitable["AccessToken | None"]]
"""The application's check of a bearer token: the verified token (issued for this server, unexpired),
or None when it is not valid here."""
ScopesFor = Callable[[str, Mapping[str, Any]], Iterable[str]]
"""The scopes one request needs beyond the server's `required_scopes`, from its method and params."""

ACCESS: contextvars.ContextVar[AccessToken | None] = contextvars.ContextVar(
    "mcp_access_token", default=None
)


def access_token() -> AccessToken | None:
    """The verified access token of the request being handled (None on a server without `auth`)."""
    return ACCESS.get()


class Refused(Exception):
    """A request the resource server turns away: the HTTP status, its challenge and JSON body."""

    def __init__(self, status: int, challenge: str, body: dict[str, str]) -> None:
        super().__init__(body.get("error_description", body["error"]))
        self.status = status
        self.challenge = challenge
        self.body = body


class ResourceServer:
    """An MCP server's authorization as an OAuth resource server.

    `verify` checks bearer tokens; `authorization_servers` are the issuers the protected-resource
    metadata names. Every request needs `required_scopes`, plus what `scopes_for(method, params)`
    says for each JSON-RPC request. `resource` is the server's canonical URI, which the metadata's URL
    in challenges starts with too (default: the URL the request came to; behind a proxy, give it);
    `scopes_supported` and `resource_name` go into the metadata.
    """

    def __init__(
        self,
        verify: TokenVerifier,
        authorization_servers: Sequence[str],
        *,
        required_scopes: Iterable[str] = (),
        scopes_for: ScopesFor | None = None,
        scopes_supported: Sequence[str] | None = None,
        resource: str | None = None,
        resource_name: str | None = None,
    ) -> None:
        self.verify = verify
        self.authorization_servers = list(authorization_servers)
        self.required_scopes = tuple(required_scopes)
        self.scopes_for = scopes_for
        self.scopes_supported = None if scopes_supported is None else list(scopes_supported)
        self.resource = resource
        self.resource_name = resource_name

    def metadata_path(self, endpoint_path: str) -> str:
        """Where the metadata of the endpoint at `endpoint_path` is served (RFC 9728 §3.1)."""
        return METADATA_PREFIX + ("" if endpoint_path == "/" else endpoint_path)

    def metadata(self, origin: str, endpoint_path: str) -> dict[str, Any]:
        """The protected-resource metadata document of the endpoint at `origin` + `endpoint_path`."""
        document: dict[str, Any] = {
            "resource": self.resource or origin + ("" if endpoint_path == "/" else endpoint_path),
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        }
        if self.scopes_supported is not None:
            document["scopes_supported"] = self.scopes_supported
        if self.resource_name is not None:
            document["resource_name"] = self.resource_name
        return document

    async def admit(
        self,
        authorization: str | None,
        origin: str,
        endpoint_path: str,
        messages: Iterable[Any],
    ) -> AccessToken:
        """The verified token of a request (its Authorization header, the JSON-RPC `messages` it
        carries); Refused (401 or 403 with a challenge) when it has none valid or too few scopes."""
        needed = list(self.required_scopes)
        for message in messages:
            if self.scopes_for is not None and isinstance(message, Mapping):
                method, params = message.get("method"), message.get("params")
                if isinstance(method, str):
                    more = self.scopes_for(method, params if isinstance(params, Mapping) else {})
                    needed += [s for s in more if s not in needed]
        base = origin_of(self.resource) if self.resource is not None else origin
        metadata = base + self.metadata_path(endpoint_path)
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise self._refusal(401, metadata, needed, None, "no bearer token")
        verified = await self.verify(token.strip())
        if verified is None:
            raise self._refusal(401, metadata, needed, "invalid_token", "the token is not valid")
        if verified.expires_at is not None and verified.expires_at <= time.time():
            raise self._refusal(401, metadata, needed, "invalid_token", "the token has expired")
        if not set(needed) <= verified.scopes:
            raise self._refusal(
                403, metadata, needed, "insufficient_scope", "the token lacks a required scope"
            )
        return verified

    def _refusal(
        self, status: int, metadata: str, scopes: list[str], error: str | None, description: str
    ) -> Refused:
        challenge = format_challenge(
            {
                "error": error,
                "error_description": description if error else None,
                "scope": " ".join(scopes) or None,
                "resource_metadata": metadata,
            }
        )
        return Refused(
            status,
            challenge,
            {"error": error or "invalid_request", "error_description": description},
        )
