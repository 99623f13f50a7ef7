"""The `httpx.Auth` that applies an `Authorization` to every request of an HTTP client: the access token
presented (with a DPoP proof when it is bound to a key), a 401 or 403 `insufficient_scope` answered, a
DPoP nonce taken up, the request retried (httpx imported only here)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from .challenge import Challenge, oauth_challenge
from .errors import AuthorizationError
from .store import Tokens
from .token_endpoint import USE_DPOP_NONCE


class Authorizing(Protocol):
    """What the flow asks of an authorization (`Authorization`): the tokens to present and how, a DPoP
    nonce heard, new tokens after a refusal, and how many refusals to answer."""

    max_attempts: int

    async def access_token(self, server_url: str) -> Tokens | None:
        """The tokens to present to the MCP server at `server_url`, if there are any yet."""

    async def challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> Tokens:
        """New tokens for `server_url` after it refused the access token `sent` with a 401 or a 403."""

    def present(self, request: Any, tokens: Tokens) -> None:
        """Put the access token on `request`, with a DPoP proof when it is bound to a key."""

    def heard(self, url: str, nonce: str | None) -> bool:
        """Keep the DPoP nonce a response from `url` carried; whether it is a new one."""


def _challenge(response: Any) -> Challenge | None:
    """The challenge of a response that asks for (other) authorization; None for any other answer."""
    challenge = oauth_challenge(response.headers.get_list("www-authenticate"))
    if response.status_code == 401:
        return challenge or Challenge("Bearer")
    if response.status_code == 403 and challenge is not None:
        return challenge if challenge.params.get("error") == "insufficient_scope" else None
    return None


@functools.lru_cache(maxsize=None)
def flow_class() -> Any:
    """The `httpx.Auth` class applying an `Authorization` (defined once httpx is imported)."""
    httpx: Any = importlib.import_module("httpx")

    class OAuthFlow(httpx.Auth):  # type: ignore[misc]
        """Presents the access token; answers 401 and 403 insufficient_scope, then retries."""

        def __init__(self, oauth: Authorizing) -> None:
            self.oauth = oauth

        async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
            """httpx's auth flow: yield each attempt at `request`, receiving its response."""
            url = str(request.url.copy_with(fragment=None))
            tokens = await self.oauth.access_token(url)
            limit = self.oauth.max_attempts
            attempt = nonces = 0
            while True:
                if tokens is not None:
                    self.oauth.present(request, tokens)
                response = yield request
                fresh = self.oauth.heard(url, response.headers.get("dpop-nonce"))
                challenge = _challenge(response)
                if challenge is None:
                    return
                bound = tokens is not None and tokens.dpop_key is not None
                if fresh and bound and challenge.params.get("error") == USE_DPOP_NONCE:
                    if nonces < limit:
                        nonces += 1
                        await response.aread()
                        continue  # the same token, its proof with the server's new nonce
                if attempt == limit:
                    break
                attempt += 1
                await response.aread()
                sent = tokens.access_token if tokens is not None else None
                tokens = await self.oauth.challenged(url, response.status_code, challenge, sent)
            raise AuthorizationError(f"{url} still refuses after {limit} authorizations")

    return OAuthFlow
