"""What every client authorization shares (`Authorization`): answering an MCP server's 401 and 403
challenges with discovery, registration, a grant, refresh and step-up, tokens kept in a store."""

from __future__ import annotations

import abc
import asyncio
import base64
import contextlib
import importlib
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote_plus

from pydantic import BaseModel, ValidationError

from .assertion import ASSERTION_TYPE, client_assertion
from .challenge import Challenge
from .errors import AuthorizationError
from .flow import flow_class
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
from .registration import ClientMetadata, PreRegistered, auth_method, registered
from .registration import requested_auth_method
from .store import ClientInfo, MemoryTokenStore, Tokens, TokenStore

OFFLINE_ACCESS = "offline_access"
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


class Authorization(abc.ABC):
    """A client's authorization with MCP servers (`OAuth`, `ClientCredentials`, `JwtBearer`): their
    challenges answered with discovery, registration, the subclass's grant (`_authorize`), refresh and
    step-up; tokens kept in `store`."""

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
        return flow_class()(self)

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
            found = parsed(ProtectedResourceMetadata, await get_json(http, url))
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
            server = parsed(AuthorizationServerMetadata, await get_json(http, url))
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
        answer = json_of(response)
        if response.status_code not in (200, 201) or answer is None:
            raise refusal("client registration", response.status_code, answer)
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
        answer = json_of(response)
        token = answer.get("access_token") if answer is not None else None
        if response.status_code != 200 or answer is None or not isinstance(token, str):
            raise refusal("the token request", response.status_code, answer)
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


def refusal(what: str, status: int | None, answer: Mapping[str, Any] | None) -> AuthorizationError:
    error = answer.get("error") if answer is not None else None
    detail = answer.get("error_description") if answer is not None else None
    said = ": ".join(str(part) for part in (error, detail) if part)
    where = f" (HTTP {status})" if status is not None else ""
    return AuthorizationError(
        f"{what} failed{where}{': ' + said if said else ''}",
        error if isinstance(error, str) else None,
    )


def json_of(response: Any) -> dict[str, Any] | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def get_json(http: Any, url: str) -> dict[str, Any] | None:
    """The JSON object at `url`; None for anything else (an error status, a refused connection)."""
    httpx: Any = importlib.import_module("httpx")
    try:
        response = await http.get(url, headers={"accept": "application/json"})
    except httpx.HTTPError:
        return None
    return json_of(response) if response.status_code == 200 else None


def parsed(model: type[Document], data: dict[str, Any] | None) -> Document | None:
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None
