"""The `httpx.Auth` that applies an `Authorization` to every request of an HTTP client: the access token
sent, a 401 or 403 `insufficient_scope` answered, the request retried (httpx imported only here)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from .challenge import Challenge, bearer_challenge
from .errors import AuthorizationError


class Authorizing(Protocol):
    """What the flow asks of an authorization (`Authorization`): the token to send, a new one after a
    refusal, and how many refusals to answer."""

    max_attempts: int

    async def access_token(self, server_url: str) -> str | None:
        """The access token to send to the MCP server at `server_url`, if there is one yet."""

    async def challenged(
        self, server_url: str, status: int, challenge: Challenge | None, sent: str | None
    ) -> str:
        """A new access token for `server_url` after it refused `sent` with a 401 or a 403 challenge."""


def _challenge(response: Any) -> Challenge | None:
    """The challenge of a response that asks for (other) authorization; None for any other answer."""
    challenge = bearer_challenge(response.headers.get_list("www-authenticate"))
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
        """Sends the access token; answers 401 and 403 insufficient_scope, then retries."""

        def __init__(self, oauth: Authorizing) -> None:
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
