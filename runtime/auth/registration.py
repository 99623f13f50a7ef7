"""How a client gets a client id at an authorization server, in the spec's order: pre-registered
credentials, a Client ID Metadata Document, dynamic client registration (RFC 7591)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .metadata import AuthorizationServerMetadata
from .store import ClientInfo

SECRET_METHODS = ("client_secret_basic", "client_secret_post")
"""Token-endpoint authentication methods with a client secret, in the order a client prefers them."""


@dataclass(frozen=True)
class PreRegistered:
    """Client credentials registered with an authorization server beforehand."""

    client_id: str
    client_secret: str | None = None
    issuer: str | None = None
    """The authorization server they belong to (None: whichever the MCP server names)."""
    token_endpoint_auth_method: str | None = None
    private_key: str | None = None
    """A PEM private key: the client authenticates with a signed JWT (`private_key_jwt`)."""
    signing_algorithm: str = "RS256"

    def info(self, issuer: str) -> ClientInfo:
        """These credentials as a registration with `issuer`."""
        return ClientInfo(
            self.client_id,
            issuer,
            self.client_secret,
            self.token_endpoint_auth_method,
            self.private_key,
            self.signing_algorithm,
        )


@dataclass(frozen=True)
class ClientMetadata:
    """What a client says of itself when it registers (RFC 7591 §2) or in its metadata document."""

    redirect_uri: str
    client_name: str = "MCP client"
    client_uri: str | None = None
    application_type: Literal["native", "web"] = "native"
    """"native" for desktop, mobile, command-line and localhost clients, "web" for remote web apps."""

    def registration(self, method: str, offline: bool) -> dict[str, Any]:
        """The dynamic client registration request, authenticating at the token endpoint by `method`."""
        body: dict[str, Any] = {
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", *(["refresh_token"] if offline else [])],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": self.application_type,
        }
        if self.client_uri is not None:
            body["client_uri"] = self.client_uri
        return body


def requested_auth_method(server: AuthorizationServerMetadata) -> str:
    """The token-endpoint authentication method to register with: none (a public client) when the
    server allows it, else the first secret method it supports."""
    supported = server.token_endpoint_auth_methods_supported
    if supported is None or "none" in supported:
        return "none"
    return next((m for m in SECRET_METHODS if m in supported), SECRET_METHODS[0])


def auth_method(client: ClientInfo, supported: list[str] | None) -> str:
    """How `client` authenticates at a token endpoint: as registered, else none without a secret,
    else the first secret method of those `supported` (client_secret_basic by default)."""
    if client.token_endpoint_auth_method is not None:
        return client.token_endpoint_auth_method
    if client.private_key is not None:
        return "private_key_jwt"
    if client.client_secret is None:
        return "none"
    return next((m for m in SECRET_METHODS if m in (supported or ())), SECRET_METHODS[0])


def registered(answer: Mapping[str, Any], issuer: str) -> ClientInfo:
    """The registration an RFC 7591 answer grants."""
    client_id = answer.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise ValueError("the registration answer has no client_id")
    secret = answer.get("client_secret")
    method = answer.get("token_endpoint_auth_method")
    return ClientInfo(
        client_id,
        issuer,
        secret if isinstance(secret, str) and secret else None,
        method if isinstance(method, str) else None,
    )
