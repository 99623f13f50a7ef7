"""The grants a client authorizes by: `OAuth` (the authorization code flow with PKCE, on a user's
behalf), `ClientCredentials` and `JwtBearer` (on the client's own), `EnterpriseManaged` (a user's
enterprise identity exchanged for a grant)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from typing_extensions import TypedDict, Unpack
from urllib.parse import parse_qsl, urlencode, urlsplit

from .authorization import Authorization
from .destinations import secure
from .discovery import Discovered
from .errors import AuthorizationError
from .metadata import AuthorizationServerMetadata, origin
from .pkce import new_pkce
from .registration import ClientMetadata, PreRegistered
from .store import ClientInfo, Tokens, TokenStore
from .token_endpoint import post_token_request, refusal

Consent = Callable[[str], Awaitable[str]]
"""The application's consent step: given the authorization URL (to open in the user's browser), the
URL the authorization server redirected back to (with `code`, `state` and perhaps `iss`)."""
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


def _with_query(url: str, params: Mapping[str, str]) -> str:
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params)}"


class OAuth(Authorization):
    """Authorization for a client's HTTP connections on behalf of a user (`connect_http(..., auth=...)`):
    the authorization code grant with PKCE.

    `consent` is the application's consent step; the authorization URL it gets is always https (or
    http to loopback). Client ids come from `credentials` registered beforehand (for their issuer),
    else a Client ID Metadata Document at `client_metadata_url` (https, with a path) when the
    authorization server supports them, else dynamic registration with `metadata`. Tokens and
    registrations live in `store` (in memory by default). `offline_access` asks for refresh tokens
    where the authorization server offers the scope. One request is authorized (then stepped up) at
    most `max_attempts` times before its refusal is final. `allow_private_network`, `timeout` and
    `dpop`: see `Authorization`.
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
        allow_private_network: bool = False,
        timeout: float = 30.0,
        dpop: bool = True,
    ) -> None:
        super().__init__(
            metadata,
            client_metadata_url,
            credentials,
            store,
            offline_access,
            max_attempts,
            http,
            allow_private_network=allow_private_network,
            timeout=timeout,
            dpop=dpop,
        )
        self.consent = consent
        self.redirect_uri = metadata.redirect_uri

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The authorization code flow with PKCE (S256) and the resource indicator."""
        server = found.server
        if not secure(server.authorization_endpoint):
            raise AuthorizationError(
                f"the authorization endpoint {server.authorization_endpoint[:200]!r} of "
                f"{found.issuer!r} is neither https nor on a loopback address: refused"
            )
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


class GrantOptions(TypedDict, total=False):
    """The options every grant on a client's own behalf takes (see `Authorization`)."""

    store: TokenStore | None
    max_attempts: int
    http: Any
    allow_private_network: bool
    timeout: float
    dpop: bool


class ClientCredentials(Authorization):
    """Authorization of a client acting on its own behalf: the client credentials grant with
    `credentials` registered beforehand (a secret or a private key, sent only to their `issuer`), no
    user and no consent; tokens in `store`, a request authorized at most `max_attempts` times.
    `allow_private_network`, `timeout` and `dpop`: see `Authorization`."""

    def __init__(
        self, credentials: Iterable[PreRegistered], **options: Unpack[GrantOptions]
    ) -> None:
        super().__init__(
            None,
            None,
            credentials,
            options.get("store"),
            False,
            options.get("max_attempts", 3),
            options.get("http"),
            allow_private_network=options.get("allow_private_network", False),
            timeout=options.get("timeout", 30.0),
            dpop=options.get("dpop", True),
        )

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The client credentials grant for `scopes`, with the resource indicator."""
        form = {"grant_type": "client_credentials", "resource": found.resource}
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self._token(http, found, client, form, None)


class JwtBearer(ClientCredentials):
    """Authorization of a workload by the JWT bearer grant (RFC 7523 §2.1): `assertion()` gives the
    JWT to present (a workload identity token, say), `credentials` the client id registered beforehand
    (the assertion goes only to their `issuer`); tokens in `store`, a request authorized at most
    `max_attempts` times. `allow_private_network`, `timeout` and `dpop`: see `Authorization`."""

    def __init__(
        self,
        assertion: Callable[[], Awaitable[str]],
        credentials: Iterable[PreRegistered],
        **options: Unpack[GrantOptions],
    ) -> None:
        super().__init__(credentials, **options)
        self.assertion = assertion

    async def _authorize(
        self, http: Any, found: Discovered, client: ClientInfo, scopes: tuple[str, ...]
    ) -> Tokens:
        """The JWT bearer grant for `scopes`, with the resource indicator."""
        form = {
            "grant_type": JWT_BEARER,
            "assertion": await self._assertion(http, found, scopes),
            "resource": found.resource,
        }
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self._token(http, found, client, form, None)

    async def _assertion(self, http: Any, found: Discovered, scopes: tuple[str, ...]) -> str:
        """The JWT to present to `found.issuer`."""
        return await self.assertion()


class EnterpriseManaged(JwtBearer):
    """Enterprise-managed authorization (SEP-990, the Identity Assertion JWT Authorization Grant): the
    user's identity assertion from the enterprise identity provider (an ID token from single sign-on,
    from `assertion()`) is exchanged at the provider's `idp_token_endpoint` (RFC 8693 token exchange,
    authenticated as `idp_client`) for an ID-JAG naming the MCP server's authorization server and
    resource, which the JWT bearer grant presents there as `credentials` (no consent asked).
    `subject_token_type` is the assertion's type (an ID token by default; a SAML-born refresh token
    would be `urn:ietf:params:oauth:token-type:refresh_token`)."""

    def __init__(
        self,
        assertion: Callable[[], Awaitable[str]],
        idp_token_endpoint: str,
        idp_client: PreRegistered,
        credentials: Iterable[PreRegistered],
        *,
        subject_token_type: str = ID_TOKEN,
        **options: Unpack[GrantOptions],
    ) -> None:
        if not secure(idp_token_endpoint):
            raise ValueError(
                f"the identity provider's token endpoint must be https, not {idp_token_endpoint!r}"
            )
        super().__init__(assertion, credentials, **options)
        self.idp_token_endpoint = idp_token_endpoint
        self.idp_client = idp_client
        self.subject_token_type = subject_token_type

    async def _assertion(self, http: Any, found: Discovered, scopes: tuple[str, ...]) -> str:
        """An ID-JAG for `found`'s authorization server and resource, by token exchange at the IdP."""
        form = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "audience": found.issuer,
            "resource": found.resource,
            "subject_token": await self.assertion(),
            "subject_token_type": self.subject_token_type,
        }
        if scopes:
            form["scope"] = " ".join(scopes)
        idp = self.idp_client.issuer or origin(self.idp_token_endpoint)
        answer = await post_token_request(
            http,
            self.idp_token_endpoint,
            idp,
            self.idp_client.info(idp),
            form,
            methods=None,
            timeout=self.timeout,
        )
        data = answer.json or {}
        grant = data.get("access_token")
        if answer.status != 200 or data.get("issued_token_type") != ID_JAG or not grant:
            raise refusal("the token exchange for an ID-JAG", answer.status, answer.json)
        return str(grant)


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
