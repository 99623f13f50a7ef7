"""The server side of MCP authorization: a resource server (`streamable_http_app(..., auth=...)`) that
publishes its protected-resource metadata, verifies each request's access token (bearer, or DPoP-bound
with its proof) with the application's verifier before anything else of the request is read, answers
401 and 403 insufficient_scope challenges, and shows handlers the verified token.
"""

from __future__ import annotations

import contextvars
import hashlib
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .challenge import format_challenge
from .dpop_check import DPoP, ProofError
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
    """Its claims; `cnf.jkt` binds it to a DPoP key (RFC 9449 §6)."""
    issuer: str | None = None
    """The authorization server that issued it (None: the `iss` claim, if any)."""

    @property
    def principal(self) -> tuple[Any, ...]:
        """Whom it speaks for, which a session stays bound to: its issuer, subject and client; and
        the token itself (hashed) when the verifier names no subject."""
        issuer = self.issuer if self.issuer is not None else self.claims.get("iss")
        if self.subject is None:
            digest = hashlib.sha256(self.token.encode("utf-8", "replace")).hexdigest()
            return (issuer, None, self.client_id, digest)
        return (issuer, self.subject, self.client_id)


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


@dataclass(frozen=True)
class Presented:
    """What a request shows a resource server: its Authorization header, its DPoP proofs and method."""

    authorization: str | None
    proofs: tuple[str, ...] = ()
    method: str = "POST"


class Refused(Exception):
    """A request the resource server turns away: the HTTP status, its headers (challenges, a DPoP
    nonce) and JSON body."""

    def __init__(self, status: int, headers: list[tuple[str, str]], body: dict[str, str]) -> None:
        super().__init__(body.get("error_description", body["error"]))
        self.status = status
        self.headers = headers
        self.body = body


class ResourceServer:
    """An MCP server's authorization as an OAuth resource server.

    `verify` checks access tokens; `authorization_servers` are the issuers the protected-resource
    metadata names. Every request needs `required_scopes`, plus what `scopes_for(method, params)`
    says for each JSON-RPC request. `resource` is the server's canonical URI, where the metadata's URL
    in challenges comes from too (default: the URL the request came to, mount prefix included; behind
    a proxy, or mounted under a prefix with the metadata served at the root, give it);
    `scopes_supported` and `resource_name` go into the metadata. `dpop` takes DPoP-bound tokens (RFC
    9449) with their proofs; without it such a token is refused, and so is one bound in a way the
    server cannot check (a `cnf` other than `{"jkt": ...}`, such as RFC 8705's certificate binding).
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
        dpop: DPoP | None = None,
    ) -> None:
        self.verify = verify
        self.authorization_servers = list(authorization_servers)
        self.required_scopes = tuple(required_scopes)
        self.scopes_for = scopes_for
        self.scopes_supported = None if scopes_supported is None else list(scopes_supported)
        self.resource = resource
        self.resource_name = resource_name
        self.dpop = dpop

    def metadata_path(self, endpoint_path: str) -> str:
        """Where the metadata of the endpoint at `endpoint_path` is served (RFC 9728 §3.1)."""
        return METADATA_PREFIX + ("" if endpoint_path in ("", "/") else endpoint_path)

    def resource_of(self, url: str) -> str:
        """The resource identifier of the endpoint a request reached at `url`: `resource`, else `url`."""
        return self.resource or url

    def metadata_url(self, url: str) -> str:
        """The URL of the protected-resource metadata of the endpoint at `url` (RFC 9728 §3.1)."""
        resource = self.resource_of(url)
        return origin_of(resource) + self.metadata_path(urlsplit(resource).path)

    def metadata(self, url: str) -> dict[str, Any]:
        """The protected-resource metadata document of the endpoint at `url`."""
        document: dict[str, Any] = {
            "resource": self.resource_of(url),
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        }
        if self.scopes_supported is not None:
            document["scopes_supported"] = self.scopes_supported
        if self.resource_name is not None:
            document["resource_name"] = self.resource_name
        if self.dpop is not None:
            document["dpop_signing_alg_values_supported"] = list(self.dpop.algorithms)
            document["dpop_bound_access_tokens_required"] = self.dpop.required
        return document

    async def authenticate(self, presented: Presented, url: str) -> AccessToken:
        """The verified token of a request that reached the endpoint at `url` (read before anything
        else of the request); Refused (401 with a challenge) when it has none valid."""
        scheme, _, token = (presented.authorization or "").partition(" ")
        scheme, token = scheme.lower(), token.strip()
        dpop = self.dpop
        if not token or scheme not in ("bearer", "dpop") or (scheme == "dpop" and dpop is None):
            raise self._refusal(401, url, None, None, "no access token")
        if scheme == "bearer" and dpop is not None and dpop.required:
            raise self._refusal(401, url, "dpop", "invalid_token", "a DPoP-bound token is required")
        verified = await self.verify(token)
        if verified is None:
            raise self._refusal(401, url, scheme, "invalid_token", "the token is not valid")
        if verified.expires_at is not None and verified.expires_at <= time.time():
            raise self._refusal(401, url, scheme, "invalid_token", "the token has expired")
        confirmation = verified.claims.get("cnf")
        jkt = confirmation.get("jkt") if isinstance(confirmation, Mapping) else None
        if scheme == "bearer" and jkt is not None:
            why = "the token is bound to a key: present it with DPoP"
            raise self._refusal(401, url, scheme, "invalid_token", why)
        if confirmation is not None and (
            dpop is None or not isinstance(confirmation, Mapping) or set(confirmation) != {"jkt"}
        ):
            why = "the token is bound in a way this server cannot check"
            raise self._refusal(401, url, scheme, "invalid_token", why)
        if dpop is not None and scheme == "dpop":
            try:
                dpop.check(presented.proofs, presented.method, self.resource_of(url), token, jkt)
            except ProofError as refused:
                raise self._refusal(401, url, "dpop", refused.error, refused.description) from None
        return verified

    def authorize(self, token: AccessToken, url: str, messages: Iterable[Any]) -> None:
        """Refuse (403 insufficient_scope) a request whose `token` lacks a scope its JSON-RPC
        `messages` need."""
        needed = list(self.required_scopes)
        for message in messages:
            if self.scopes_for is not None and isinstance(message, Mapping):
                method, params = message.get("method"), message.get("params")
                if isinstance(method, str):
                    more = self.scopes_for(method, params if isinstance(params, Mapping) else {})
                    needed += [s for s in more if s not in needed]
        if not set(needed) <= token.scopes:
            scheme = "dpop" if "cnf" in token.claims and self.dpop is not None else "bearer"
            why = "the token lacks a required scope"
            raise self._refusal(403, url, scheme, "insufficient_scope", why, needed)

    def _refusal(
        self,
        status: int,
        url: str,
        scheme: str | None,
        error: str | None,
        description: str,
        scopes: list[str] | None = None,
    ) -> Refused:
        """A refusal with the challenges a client needs: of the scheme it used, else of each scheme
        the server takes (with the algorithms and a nonce for DPoP)."""
        wanted = self.required_scopes if scopes is None else scopes
        params = {
            "error": error,
            "error_description": description if error else None,
            "scope": " ".join(wanted) or None,
            "resource_metadata": self.metadata_url(url),
        }
        dpop = self.dpop
        schemes = [scheme] if scheme is not None else ["bearer", "dpop"]
        if dpop is None:
            schemes = [s for s in schemes if s == "bearer"]
        elif dpop.required:
            schemes = ["dpop"]
        headers: list[tuple[str, str]] = []
        for name in schemes:
            extra = {"algs": " ".join(dpop.algorithms)} if name == "dpop" and dpop else {}
            title = "DPoP" if name == "dpop" else "Bearer"
            headers.append(("www-authenticate", format_challenge({**params, **extra}, title)))
        if dpop is not None and dpop.nonce and "dpop" in schemes:
            headers.append(("dpop-nonce", dpop.new_nonce()))
        return Refused(
            status, headers, {"error": error or "invalid_request", "error_description": description}
        )
