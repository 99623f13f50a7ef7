"""MCP authorization (OAuth 2.1): `OAuth` for clients (`connect_http(..., auth=...)`), `ResourceServer`
for servers (`streamable_http_app(..., auth=...)`); standard library and pydantic only, httpx for the
client's HTTP and an optional JOSE library for `JwtVerifier`, each imported when used."""

from __future__ import annotations

from .challenge import Challenge, bearer_challenge, format_challenge, parse_challenges
from .errors import AuthorizationError
from .metadata import AuthorizationServerMetadata, ProtectedResourceMetadata
from .jwt import JwtVerifier
from .oauth import Consent, OAuth
from .registration import ClientMetadata, PreRegistered
from .resource import AccessToken, ResourceServer, ScopesFor, TokenVerifier, access_token
from .store import ClientInfo, MemoryTokenStore, Tokens, TokenStore

__all__ = [
    "AccessToken",
    "AuthorizationError",
    "AuthorizationServerMetadata",
    "Challenge",
    "ClientInfo",
    "ClientMetadata",
    "Consent",
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
    "bearer_challenge",
    "format_challenge",
    "parse_challenges",
]
