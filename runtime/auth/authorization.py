"""What every client authorization shares (`Authorization`): answering an MCP server's 401 and 403
challenges with discovery, registration, a grant, refresh and step-up, tokens kept in a store."""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlsplit

from . import dpop
from .challenge import Challenge
from .destinations import Destinations, destinations
from .discovery import Discovered, discover
from .errors import AuthorizationError
from .fetch import exchange
from .flow import flow_class
from .metadata import canonical_resource, origin
from .pinned import pinned_client
from .registration import ClientMetadata, PreRegistered, registered, requested_auth_method
from .store import ClientInfo, MemoryTokenStore, Tokens, TokenStore
from .token_endpoint import post_token_request, refusal, tokens_of
from ..log import logger

OFFLINE_ACCESS = "offline_access"


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for group in groups for s in group))


def metadata_document_url(url: str | None) -> str | None:
    """`url` when it can be a Client ID Metadata Document's URL: https, with a path (ValueError else)."""
    if url is not None:
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname or parts.path in ("", "/"):
            raise ValueError(f"a client metadata document URL is https with a path, not {url!r}")
    return url


class Authorization(abc.ABC):
    """A client's authorization with MCP servers (`OAuth`, `ClientCredentials`, `JwtBearer`,
    `EnterpriseManaged`): their challenges answered with discovery, registration, the subclass's grant
    (`_authorize`), refresh and step-up; tokens kept in `store`.

    Authorization traffic goes only to https URLs (plain http to loopback only), never to a cloud
    metadata address, and to internal addresses (loopback, private, link-local) only when the MCP
    server's URL names one itself (an IP literal or `localhost`) or `allow_private_network` is set.
    Each request of it reads at most 1 MiB and takes at most `timeout` seconds in all. `dpop` asks
    for DPoP-bound tokens (RFC 9449) where the authorization server offers them.
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
        *,
        allow_private_network: bool = False,
        timeout: float = 30.0,
        dpop: bool = True,
    ) -> None:
        self.metadata = metadata
        self.client_metadata_url = metadata_document_url(client_metadata_url)
        self.credentials = tuple(credentials)
        self.store: TokenStore = store if store is not None else MemoryTokenStore()
        self.offline_access = offline_access
        self.max_attempts = max_attempts
        self.http = http
        """An `httpx.AsyncClient` for the authorization traffic (None: a fresh one each time)."""
        self.allow_private_network = allow_private_network
        self.timeout = timeout
        self.dpop = dpop
        self.nonces: dict[str, str] = {}
        """The latest DPoP nonce each server (by origin) gave."""
        self._bound: dict[int, str] = {}
        """Credentials configured without an issuer → the one issuer they were first used with."""
        self._found: dict[str, Discovered] = {}
        self._requested: dict[str, tuple[str, ...]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._authorizing = 0

    def httpx_auth(self) -> Any:
        """This authorization as an `httpx.Auth` (for an `httpx.AsyncClient` of your own)."""
        return flow_class()(self)

    async def access_token(self, server_url: str) -> Tokens | None:
        """The tokens to present to the MCP server at `server_url`, refreshed first if they expired."""
        key = canonical_resource(server_url)
        async with self._locks.setdefault(key, asyncio.Lock()):
            tokens = await self.store.get_tokens(key)
            found = self._found.get(key)
            if tokens is not None and tokens.expired() and found is not None:
                async with self._client(found.destinations) as http:
                    tokens = await self._refresh(http, key, found, tokens)
            return tokens

    async def challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> Tokens:
        """New tokens for `server_url` after it refused the access token `sent` with a 401 or a 403."""
        self._authorizing += 1
        try:
            return await self._challenged(server_url, status, challenge, sent)
        finally:
            self._authorizing -= 1

    @property
    def authorizing(self) -> bool:
        """Whether an authorization is under way (or waiting for another to end)."""
        return self._authorizing > 0

    def present(self, request: Any, tokens: Tokens) -> None:
        """Put the access token on `request` (an `httpx.Request`): as a bearer token, or with the
        DPoP scheme and a fresh proof (with the server's latest nonce) when the token is DPoP-bound.
        """
        if tokens.dpop_key is None:
            request.headers["authorization"] = f"Bearer {tokens.access_token}"
            return
        url = str(request.url)
        nonce = self.nonces.get(origin(url))
        request.headers["authorization"] = f"DPoP {tokens.access_token}"
        request.headers["dpop"] = dpop.proof(
            tokens.dpop_key, request.method, url, tokens.access_token, nonce
        )

    def heard(self, url: str, nonce: str | None) -> bool:
        """Keep the DPoP nonce a response from `url` carried; whether it is a new one."""
        where = origin(url)
        if not nonce or self.nonces.get(where) == nonce:
            return False
        self.nonces[where] = nonce
        return True

    async def _challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> Tokens:
        key = canonical_resource(server_url)
        async with self._locks.setdefault(key, asyncio.Lock()):
            tokens = await self.store.get_tokens(key)
            if tokens is not None and tokens.access_token != sent:
                return tokens
            allowed = destinations(server_url, self.allow_private_network)
            async with self._client(allowed) as http:
                found = await discover(http, server_url, challenge, allowed, self.timeout)
                self._found[key] = found
                if tokens is not None and tokens.issuer != found.issuer:
                    tokens = None
                if status == 401 and tokens is not None:
                    tokens = await self._refresh(http, key, found, tokens)
                    if tokens is not None:
                        return tokens
                scopes = self._scopes(key, found, challenge)
                client = await self._registration(http, found)
                tokens = await self._authorize(http, found, client, scopes)
                self._requested[key] = scopes
                await self.store.set_tokens(key, tokens)
                return tokens

    @contextlib.asynccontextmanager
    async def _client(self, allowed: Destinations) -> AsyncIterator[Any]:
        """The application's `http` client, else a fresh one whose connections go only where
        `allowed` lets them, each address checked when the connection is made."""
        if self.http is not None:
            yield self.http
            return
        async with pinned_client(allowed, self.timeout) as http:
            yield http

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

    def _preregistered(self, issuer: str) -> ClientInfo | None:
        """The pre-registered credentials for `issuer`: those configured for it, else those configured
        without an issuer, which are bound to the first issuer they are used with (and go to no other:
        an MCP server cannot send them to an authorization server of its choosing, RFC 9700 §4.4).
        """
        for credentials in self.credentials:
            if credentials.issuer == issuer:
                return credentials.info(issuer)
        for index, credentials in enumerate(self.credentials):
            if credentials.issuer is not None:
                continue
            if index not in self._bound:
                self._bound[index] = issuer
                logger.warning(
                    "the credentials of client %r name no issuer: they are now bound to %r, the "
                    "first authorization server they go to (give PreRegistered(..., issuer=...))",
                    credentials.client_id,
                    issuer,
                )
            if self._bound[index] == issuer:
                return credentials.info(issuer)
        return None

    async def _registration(self, http: Any, found: Discovered) -> ClientInfo:
        """The client id to use with `found.issuer`: pre-registered, kept, a metadata document or new."""
        client = self._preregistered(found.issuer)
        if client is not None:
            return client
        kept = await self.store.get_client(found.issuer)
        if kept is not None:
            return kept
        server = found.server
        if self.client_metadata_url is not None and server.client_id_metadata_document_supported:
            return ClientInfo(self.client_metadata_url, found.issuer, None, "none")
        if server.registration_endpoint is None or self.metadata is None:
            raise AuthorizationError(
                f"no registration with {found.issuer!r}: give pre-registered credentials for it"
            )
        await found.destinations.check(server.registration_endpoint, "the registration endpoint")
        body = self.metadata.registration(requested_auth_method(server), self.offline_access)
        answer = await exchange(
            http,
            "POST",
            server.registration_endpoint,
            self.timeout,
            what="the registration endpoint",
            json=body,
        )
        if answer.status not in (200, 201) or answer.json is None:
            raise refusal("client registration", answer.status, answer.json)
        try:
            client = registered(answer.json, found.issuer)
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
                fresh = await self._token(http, found, client, form, tokens)
        await self.store.set_tokens(key, fresh)
        return fresh

    def _dpop_key(self, found: Discovered, previous: Tokens | None) -> str | None:
        """The key to bind new tokens to: the one the refreshed tokens are bound to, else a new one
        when the authorization server offers DPoP with ES256 (None: bearer tokens)."""
        if previous is not None and previous.dpop_key is not None:
            return previous.dpop_key
        offered = found.server.dpop_signing_alg_values_supported or ()
        if not self.dpop or dpop.ALGORITHM not in offered:
            return None
        if not dpop.available():
            logger.warning("%s offers DPoP, but PyJWT[crypto] is not installed", found.issuer)
            return None
        return dpop.new_key()

    async def _token(
        self,
        http: Any,
        found: Discovered,
        client: ClientInfo,
        form: dict[str, str],
        previous: Tokens | None,
    ) -> Tokens:
        """A token request at `found`'s token endpoint; `previous` are the tokens it refreshes."""
        endpoint = found.server.token_endpoint
        await found.destinations.check(endpoint, "the token endpoint")
        key = self._dpop_key(found, previous)
        answer = await post_token_request(
            http,
            endpoint,
            found.issuer,
            client,
            form,
            methods=found.server.token_endpoint_auth_methods_supported,
            timeout=self.timeout,
            dpop_key=key,
            nonces=self.nonces,
        )
        refresh_token = previous.refresh_token if previous is not None else None
        return tokens_of(answer, found.issuer, key, refresh_token)
