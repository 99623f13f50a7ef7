"""The client side of MCP authorization: `OAuth` answers an MCP server's 401 and 403 challenges with
discovery, registration, the authorization code flow with PKCE, refresh and step-up, and gives
`connect_http` the `httpx.Auth` that applies it to every request (httpx is imported only then)."""

from __future__ import annotations

import abc
import asyncio
import base64
import contextlib
import functools
import importlib
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote_plus, urlencode, urlsplit

from pydantic import BaseModel, ValidationError

from .assertion import ASSERTION_TYPE, client_assertion
from .challenge import Challenge, bearer_challenge
from .errors import AuthorizationError
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
from .pkce import new_pkce
from .registration import ClientMetadata, PreRegistered, auth_method, registered
from .registration import requested_auth_method
from .store import ClientInfo, MemoryTokenStore, Tokens, TokenStore

Consent = Callable[[str], Awaitable[str]]
"""The application's consent step: given the authorization URL (to open in the user's browser), the
URL the authorization server redirected back to (with `code`, `state` and perhaps `iss`)."""

OFFLINE_ACCESS = "offline_access"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
Document = TypeVar("Document", bound=BaseModel)


@dataclass(frozen=True)
class Discovered:
    """What discovery found for one MCP server: its resource indicator and authorization server."""

    resource: str
    issuer: str
    server: AuthorizationServerMetadata
    resource_metadata: ProtectedResourceMetadata | None
    """None for a 2025-03-26 server without protected-resource metadata."""


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for group in groups for s in group))


def _with_query(url: str, params: Mapping[str, str]) -> str:
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params)}"


class Authorization(abc.ABC):
    """What `OAuth` and `ClientCredentials` share: answering an MCP server's challenges with discovery,
    registration, a grant (the subclass's `_authorize`), refresh and step-up, tokens kept in `store`.
    """

    def __init__(
        self,
        metadata: ClientMetadata | None,
        client_metadata_url: str | None,
        credentials: Iterable[PreRegistered],
        store: TokenStore | None,
        offline_access: bool,
        max_attempts: int,
        http: Any,
    ) -> None:
        self.metadata = metadata
        self.client_metadata_url = client_metadata_url
        self.credentials = tuple(credentials)
        self.store: TokenStore = store if store is not None else MemoryTokenStore()
        self.offline_access = offline_access
        self.max_attempts = max_attempts
        self.http = http
        """An `httpx.AsyncClient` for the authorization traffic (None: a fresh one each time)."""
        self._found: dict[str, Discovered] = {}
        self._requested: dict[str, tuple[str, ...]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._authorizing = 0

    def httpx_auth(self) -> Any:
        """This authorization as an `httpx.Auth` (for an `httpx.AsyncClient` of your own)."""
        return _flow_class()(self)

    async def access_token(self, server_url: str) -> str | None:
        """The access token to send to the MCP server at `server_url`, refreshed first if it expired."""
        key = canonical_resource(server_url)
        async with self._locks.setdefault(key, asyncio.Lock()):
            tokens = await self.store.get_tokens(key)
            found = self._found.get(key)
            if tokens is not None and tokens.expired() and found is not None:
                async with self._client() as http:
                    tokens = await self._refresh(http, key, found, tokens)
            return tokens.access_token if tokens is not None else None

    async def challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> str:
        """A new access token for `server_url` after it refused `sent` with a 401 or a 403 challenge."""
        self._authorizing += 1
        try:
            return await self._challenged(server_url, status, challenge, sent)
        finally:
            self._authorizing -= 1

    @property
    def authorizing(self) -> bool:
        """Whether an authorization is under way (or waiting for another to end)."""
        return self._authorizing > 0

    async def _challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> str:
        key = canonical_resource(server_url)
        async with self._locks.setdefault(key, asyncio.Lock()):
            tokens = await self.store.get_tokens(key)
            if tokens is not None and tokens.access_token != sent:
                return tokens.access_token
            async with self._client() as http:
                found = await self._discover(http, server_url, challenge)
                self._found[key] = found
                if tokens is not None and tokens.issuer != found.issuer:
                    tokens = None
                if status == 401 and tokens is not None:
                    tokens = await self._refresh(http, key, found, tokens)
                    if tokens is not None:
                        return tokens.access_token
                scopes = self._scopes(key, found, challenge)
                client = await self._registration(http, found)
                tokens = await self._authorize(http, found, client, scopes)
                self._requested[key] = scopes
                await self.store.set_tokens(key, tokens)
                return tokens.access_token

    @contextlib.asynccontextmanager
    async def _client(self) -> AsyncIterator[Any]:
        if self.http is not None:
            yield self.http
            return
        httpx: Any = importlib.import_module("httpx")
        async with httpx.AsyncClient(timeout=30.0) as http:
            yield http

    # --- discovery ----------------------------------------------------------------------------

    async def _discover(
        self, http: Any, server_url: str, challenge: Challenge | None
    ) -> Discovered:
        hint = challenge.params.get("resource_metadata") if challenge is not None else None
        found: ProtectedResourceMetadata | None = None
        for url in [*([hint] if hint else []), *resource_metadata_urls(server_url)]:
            found = _parsed(ProtectedResourceMetadata, await _get_json(http, url))
            if found is not None:
                break
        if found is None:
            base = origin(server_url)
            server = await self._server_metadata(http, base, legacy=True)
            return Discovered(canonical_resource(server_url), base, server, None)
        if not resource_allows(found.resource, server_url):
            raise AuthorizationError(
                f"the protected-resource metadata is for {found.resource!r}, not {server_url!r}"
            )
        if not found.authorization_servers:
            raise AuthorizationError(
                f"the protected-resource metadata of {server_url!r} names no authorization server"
            )
        issuer = found.authorization_servers[0]
        server = await self._server_metadata(http, issuer, legacy=False)
        return Discovered(found.resource, issuer, server, found)

    async def _server_metadata(
        self, http: Any, issuer: str, legacy: bool
    ) -> AuthorizationServerMetadata:
        """The validated metadata of `issuer`; a 2025-03-26 server's default endpoints when it has none."""
        impostor: str | None = None
        for url in authorization_server_metadata_urls(issuer):
            server = _parsed(AuthorizationServerMetadata, await _get_json(http, url))
            if server is None:
                continue
            if server.issuer == issuer:
                return server
            impostor = server.issuer
        if impostor is not None:
            raise AuthorizationError(
                f"the metadata of authorization server {issuer!r} names issuer {impostor!r}"
            )
        if legacy:
            return legacy_metadata(issuer)
        raise AuthorizationError(f"authorization server {issuer!r} publishes no metadata")

    def _scopes(self, key: str, found: Discovered, challenge: Challenge | None) -> tuple[str, ...]:
        """The challenge's scopes, else the resource's `scopes_supported`, with those asked before."""
        wanted = challenge.scopes if challenge is not None else ()
        if not wanted and found.resource_metadata is not None:
            wanted = tuple(found.resource_metadata.scopes_supported or ())
        scopes = _union(self._requested.get(key, ()), wanted)
        offered = found.server.scopes_supported or ()
        if self.offline_access and scopes and OFFLINE_ACCESS in offered:
            scopes = _union(scopes, [OFFLINE_ACCESS])
        return scopes

    # --- registration and tokens --------------------------------------------------------------

    async def _registration(self, http: Any, found: Discovered) -> ClientInfo:
        """The client id to use with `found.issuer`: pre-registered, kept, a metadata document or new."""
        for credentials in self.credentials:
            if credentials.issuer in (None, found.issuer):
                return credentials.info(found.issuer)
        kept = await self.store.get_client(found.issuer)
        if kept is not None:
            return kept
        server = found.server
        if self.client_metadata_url is not None and server.client_id_metadata_document_supported:
            return ClientInfo(self.client_metadata_url, found.issuer, None, "none")
        if server.registration_endpoint is None or self.metadata is None:
            raise AuthorizationError(
                f"no registration with {found.issuer!r}: give pre-registered credentials"
            )
        body = self.metadata.registration(requested_auth_method(server), self.offline_access)
        response = await http.post(server.registration_endpoint, json=body)
        answer = _json(response)
        if response.status_code not in (200, 201) or answer is None:
            raise _refusal("client registration", response.status_code, answer)
        try:
            client = registered(answer, found.issuer)
        except ValueError as exc:
            raise AuthorizationError(str(exc)) from None
        await self.store.set_client(found.issuer, client)
        return client

    @abc.abstractmethod
    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """Tokens for `scopes` by this authorization's grant."""

    async def _refresh(
        self, http: Any, key: str, found: Discovered, tokens: Tokens
    ) -> Tokens | None:
        """Fresh tokens by the refresh grant; None (and the tokens forgotten) when that fails."""
        fresh: Tokens | None = None
        if tokens.refresh_token is not None and tokens.issuer == found.issuer:
            form = {
                "grant_type": "refresh_token",
                "refresh_token": tokens.refresh_token,
                "resource": found.resource,
            }
            with contextlib.suppress(AuthorizationError):
                client = await self._registration(http, found)
                fresh = await self._token(http, found, client, form, tokens.refresh_token)
        await self.store.set_tokens(key, fresh)
        return fresh

    async def _token(
        self,
        http: Any,
        found: Discovered,
        client: ClientInfo,
        form: dict[str, str],
        refresh_token: str | None,
    ) -> Tokens:
        """A token request, the client authenticated as its registration and the server allow."""
        headers = {"accept": "application/json"}
        method = auth_method(client, found.server)
        if method == "client_secret_basic" and client.client_secret is not None:
            pair = f"{quote_plus(client.client_id)}:{quote_plus(client.client_secret)}"
            headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        elif method == "private_key_jwt" and client.private_key is not None:
            form["client_id"] = client.client_id
            form["client_assertion_type"] = ASSERTION_TYPE
            form["client_assertion"] = client_assertion(
                client.client_id, client.private_key, client.signing_algorithm, found.issuer
            )
        else:
            form["client_id"] = client.client_id
            if method == "client_secret_post" and client.client_secret is not None:
                form["client_secret"] = client.client_secret
        response = await http.post(found.server.token_endpoint, data=form, headers=headers)
        answer = _json(response)
        token = answer.get("access_token") if answer is not None else None
        if response.status_code != 200 or answer is None or not isinstance(token, str):
            raise _refusal("the token request", response.status_code, answer)
        lifetime = answer.get("expires_in")
        scope = answer.get("scope")
        return Tokens(
            token,
            found.issuer,
            str(answer.get("token_type") or "Bearer"),
            answer.get("refresh_token") or refresh_token,
            time.time() + lifetime if isinstance(lifetime, (int, float)) else None,
            scope if isinstance(scope, str) else None,
        )


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
        raise _refusal("authorization", None, answer)
    code = answer.get("code")
    if not code:
        raise AuthorizationError("the authorization response has no code")
    return code


def _refusal(what: str, status: int | None, answer: Mapping[str, Any] | None) -> AuthorizationError:
    error = answer.get("error") if answer is not None else None
    detail = answer.get("error_description") if answer is not None else None
    said = ": ".join(str(part) for part in (error, detail) if part)
    where = f" (HTTP {status})" if status is not None else ""
    return AuthorizationError(
        f"{what} failed{where}{': ' + said if said else ''}",
        error if isinstance(error, str) else None,
    )


def _json(response: Any) -> dict[str, Any] | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def _get_json(http: Any, url: str) -> dict[str, Any] | None:
    """The JSON object at `url`; None for anything else (an error status, a refused connection)."""
    httpx: Any = importlib.import_module("httpx")
    try:
        response = await http.get(url, headers={"accept": "application/json"})
    except httpx.HTTPError:
        return None
    return _json(response) if response.status_code == 200 else None


def _parsed(model: type[Document], data: dict[str, Any] | None) -> Document | None:
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def _challenge(response: Any) -> Challenge | None:
    """The challenge of a response that asks for (other) authorization; None for any other answer."""
    challenge = bearer_challenge(response.headers.get_list("www-authenticate"))
    if response.status_code == 401:
        return challenge or Challenge("Bearer")
    if response.status_code == 403 and challenge is not None:
        return challenge if challenge.params.get("error") == "insufficient_scope" else None
    return None


@functools.lru_cache(maxsize=None)
def _flow_class() -> Any:
    """The `httpx.Auth` class applying an `Authorization` (defined once httpx is imported)."""
    httpx: Any = importlib.import_module("httpx")

    class OAuthFlow(httpx.Auth):  # type: ignore[misc]
        """Sends the access token; answers 401 and 403 insufficient_scope, then retries."""

        def __init__(self, oauth: Authorization) -> None:
            self.oauth = oauth

        async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
            """httpx's auth flow: yield each attempt at `request`, receiving its response."""
            url = str(request.url.copy_with(query=None, fragment=None))
            token = await self.oauth.access_token(url)
            limit = self.oauth.max_attempts
            for attempt in range(limit + 1):
                if token is not None:
                    request.headers["authorization"] = f"Bearer {token}"
                response = yield request
                challenge = _challenge(response)
                if challenge is None:
                    return
                if attempt == limit:
                    break
                await response.aread()
                token = await self.oauth.challenged(url, response.status_code, challenge, token)
            raise AuthorizationError(f"{url} still refuses after {limit} authorizations")

    return OAuthFlow
