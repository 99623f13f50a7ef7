"""MCP authorization (OAuth 2.1). Clients: `OAuth` (on a user's behalf), `ClientCredentials` or
`JwtBearer` (on their own), `EnterpriseManaged` (a user's enterprise identity) for
`connect_http(..., auth=...)`. Servers: `ResourceServer` for `streamable_http_app(..., auth=...)`.
Standard library and pydantic only; httpx for the client's HTTP and PyJWT for JWTs (`JwtVerifier`,
private-key client authentication, DPoP), each imported when used."""

from __future__ import annotations

from .challenge import Challenge, format_challenge, oauth_challenge, parse_challenges
from .errors import AuthorizationError
from .metadata import AuthorizationServerMetadata, ProtectedResourceMetadata
from .dpop_check import DPoP
from .jwt import JwtVerifier
from .authorization import Authorization
from .grants import ClientCredentials, Consent, EnterpriseManaged, JwtBearer, OAuth
from .registration import ClientMetadata, PreRegistered
from .resource import AccessToken, ResourceServer, ScopesFor, TokenVerifier, access_token
from .store import ClientInfo, MemoryTokenStore, Tokens, TokenStore

__all__ = [
    "AccessToken",
    "Authorization",
    "AuthorizationError",
    "AuthorizationServerMetadata",
    "Challenge",
    "ClientCredentials",
    "ClientInfo",
    "ClientMetadata",
    "Consent",
    "DPoP",
    "EnterpriseManaged",
    "JwtBearer",
    "JwtVerifier",
    "MemoryTokenStore",
    "OAuth",
    "PreRegistered",
    "ProtectedResourceMetadata",
    "ResourceServer",
    "ScopesFor",
    "TokenStore",
    "TokenVerifier",
    "Tokens",
    "access_token",
    "format_challenge",
    "oauth_challenge",
    "parse_challenges",
]
