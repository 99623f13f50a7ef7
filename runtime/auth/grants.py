"""The grants a client authorizes by: `OAuth` (the authorization code flow with PKCE, on a user's
behalf), `ClientCredentials` and `JwtBearer` (on the client's own)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from .authorization import Authorization, Discovered, refusal
from .errors import AuthorizationError
from .metadata import AuthorizationServerMetadata
from .pkce import new_pkce
from .registration import ClientMetadata, PreRegistered
from .store import ClientInfo, Tokens, TokenStore

Consent = Callable[[str], Awaitable[str]]
"""The application's consent step: given the authorization URL (to open in the user's browser), the
URL the authorization server redirected back to (with `code`, `state` and perhaps `iss`)."""
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def _with_query(url: str, params: Mapping[str, str]) -> str:
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params)}"


class OAuth(Authorization):
    """Authorization for a client's HTTP connections on behalf of a user (`connect_http(..., auth=...)`):
    the authorization code grant with PKCE.

    `consent` is the application's consent step. Client ids come from `credentials` registered
    beforehand (for their issuer), else a Client ID Metadata Document at `client_metadata_url` when the
    authorization server supports them, else dynamic registration with `metadata`. Tokens and
    registrations live in `store` (in memory by default). `offline_access` asks for refresh tokens
    where the authorization server offers the scope. One request is authorized (then stepped up) at
    most `max_attempts` times before its refusal is final.
    """

    def __init__(
        self,
        consent: Consent,
        metadata: ClientMetadata,
        *,
        client_metadata_url: str | None = None,
        credentials: Iterable[PreRegistered] = (),
        store: TokenStore | None = None,
        offline_access: bool = True,
        max_attempts: int = 3,
        http: Any = None,
    ) -> None:
        super().__init__(
            metadata, client_metadata_url, credentials, store, offline_access, max_attempts, http
        )
        self.consent = consent
        self.redirect_uri = metadata.redirect_uri

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The authorization code flow with PKCE (S256) and the resource indicator."""
        server = found.server
        if "S256" not in (server.code_challenge_methods_supported or ()):
            raise AuthorizationError(f"{found.issuer!r} does not support PKCE with S256")
        pkce, state = new_pkce(), secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": self.redirect_uri,
            "state": state,
            "code_challenge": pkce.challenge,
            "code_challenge_method": "S256",
            "resource": found.resource,
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        redirect = await self.consent(_with_query(server.authorization_endpoint, params))
        code = _code(dict(parse_qsl(urlsplit(redirect).query)), state, server)
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "code_verifier": pkce.verifier,
            "resource": found.resource,
        }
        return await self._token(http, found, client, form, None)


class ClientCredentials(Authorization):
    """Authorization of a client acting on its own behalf: the client credentials grant with
    `credentials` registered beforehand (a secret or a private key), no user and no consent; tokens
    in `store`, a request authorized at most `max_attempts` times."""

    def __init__(
        self,
        credentials: Iterable[PreRegistered],
        *,
        store: TokenStore | None = None,
        max_attempts: int = 3,
        http: Any = None,
    ) -> None:
        super().__init__(None, None, credentials, store, False, max_attempts, http)

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The client credentials grant for `scopes`, with the resource indicator."""
        form = {"grant_type": "client_credentials", "resource": found.resource}
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self._token(http, found, client, form, None)


class JwtBearer(Authorization):
    """Authorization of a workload by the JWT bearer grant (RFC 7523 §2.1): `assertion()` gives the
    JWT to present (a workload identity token, say), `credentials` the client id registered beforehand;
    tokens in `store`, a request authorized at most `max_attempts` times."""

    def __init__(
        self,
        assertion: Callable[[], Awaitable[str]],
        credentials: Iterable[PreRegistered],
        *,
        store: TokenStore | None = None,
        max_attempts: int = 3,
        http: Any = None,
    ) -> None:
        super().__init__(None, None, credentials, store, False, max_attempts, http)
        self.assertion = assertion

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The JWT bearer grant for `scopes`, with the resource indicator."""
        form = {
            "grant_type": JWT_BEARER,
            "assertion": await self.assertion(),
            "resource": found.resource,
        }
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self._token(http, found, client, form, None)


def _code(answer: Mapping[str, str], state: str, server: AuthorizationServerMetadata) -> str:
    """The code of an authorization response, once its `iss` (RFC 9207 §2.4) and `state` check out."""
    iss = answer.get("iss")
    if iss is None and server.authorization_response_iss_parameter_supported:
        raise AuthorizationError(
            f"the authorization response has no iss, though {server.issuer!r} promises one"
        )
    if iss is not None and iss != server.issuer:
        raise AuthorizationError(
            f"the authorization response comes from {iss!r}, not {server.issuer!r}"
        )
    if answer.get("state") != state:
        raise AuthorizationError("the authorization response does not carry the request's state")
    if "error" in answer:
        raise refusal("authorization", None, answer)
    code = answer.get("code")
    if not code:
        raise AuthorizationError("the authorization response has no code")
    return code
