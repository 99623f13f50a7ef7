"""What a client keeps between authorizations: tokens per MCP server, client registrations per
authorization server; pluggable (`TokenStore`), in memory by default."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Tokens:
    """The tokens an authorization server issued for one MCP server (its canonical URI)."""

    access_token: str
    issuer: str
    """The authorization server that issued them: they are used with no other."""
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None
    """Seconds since the epoch when the access token expires (None: not said)."""
    scope: str | None = None
    """The scope granted, when the authorization server said."""
    dpop_key: str | None = None
    """The private key (PEM) DPoP-bound tokens are bound to (RFC 9449); None for bearer tokens."""

    def expired(self, leeway: float = 30.0) -> bool:
        """Whether the access token has expired or will within `leeway` seconds."""
        return self.expires_at is not None and self.expires_at - leeway <= time.time()


@dataclass(frozen=True)
class ClientInfo:
    """A client's registration with one authorization server."""

    client_id: str
    issuer: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    """How the client authenticates at the token endpoint (None: chosen from the server's metadata)."""
    private_key: str | None = None
    """A PEM private key for `private_key_jwt` authentication (pre-registered clients only)."""
    signing_algorithm: str = "RS256"


class TokenStore(Protocol):
    """Where an `OAuth` keeps tokens (by MCP server) and registrations (by authorization server issuer)."""

    async def get_tokens(self, resource: str) -> Tokens | None:
        """The tokens kept for the MCP server `resource`."""
        ...

    async def set_tokens(self, resource: str, tokens: Tokens | None) -> None:
        """Keep (None: forget) the tokens for `resource`."""
        ...

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The registration kept for the authorization server `issuer`."""
        ...

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Keep (None: forget) the registration with `issuer`."""
        ...


class MemoryTokenStore:
    """A `TokenStore` in this process's memory."""

    def __init__(self) -> None:
        self._tokens: dict[str, Tokens] = {}
        self._clients: dict[str, ClientInfo] = {}

    async def get_tokens(self, resource: str) -> Tokens | None:
        """The tokens kept for `resource`."""
        return self._tokens.get(resource)

    async def set_tokens(self, resource: str, tokens: Tokens | None) -> None:
        """Keep (None: forget) the tokens for `resource`."""
        if tokens is None:
            self._tokens.pop(resource, None)
        else:
            self._tokens[resource] = tokens

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The registration kept for `issuer`."""
        return self._clients.get(issuer)

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Keep (None: forget) the registration with `issuer`."""
        if client is None:
            self._clients.pop(issuer, None)
        else:
            self._clients[issuer] = client
