"""Verification of JWT access tokens (RFC 9068) for a `ResourceServer`, with PyJWT (the optional
`jwt` extra: `pip install "pyjwt[crypto]"`), imported when a verifier is made."""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..log import logger
from .resource import AccessToken


class JwtVerifier:
    """A `TokenVerifier` for JWTs signed with a key of the authorization server's JWKS: signature,
    `iss`, `aud` (this MCP server's canonical URI) and `exp` checked; scopes from `scope` or `scp`.

    The key set comes from `jwks` or is fetched from `jwks_uri` (again when a token names a key it
    lacks, at most every `refetch_after` seconds).
    """

    def __init__(
        self,
        issuer: str,
        audience: str,
        *,
        jwks_uri: str | None = None,
        jwks: Mapping[str, Any] | None = None,
        algorithms: Iterable[str] = ("RS256", "ES256", "PS256", "EdDSA"),
        leeway: float = 30.0,
        refetch_after: float = 60.0,
    ) -> None:
        if jwks is None and jwks_uri is None:
            raise ValueError("JwtVerifier needs jwks or jwks_uri")
        self.jwt: Any = importlib.import_module("jwt")
        self.issuer = issuer
        self.audience = audience
        self.jwks_uri = jwks_uri
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self.refetch_after = refetch_after
        self._keys: Any = None if jwks is None else self.jwt.PyJWKSet.from_dict(dict(jwks))
        self._fetched = 0.0
        self._lock = asyncio.Lock()

    async def __call__(self, token: str) -> AccessToken | None:
        """The verified token, or None when it is not a valid access token for `audience`."""
        jwt = self.jwt
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            key = await self._key(kid)
            if key is None:
                return None
            claims = jwt.decode(
                token,
                key.key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None
        scope = claims.get("scope", claims.get("scp", ""))
        scopes = (
            scope.split() if isinstance(scope, str) else [s for s in scope if isinstance(s, str)]
        )
        return AccessToken(
            token,
            frozenset(scopes),
            claims.get("client_id") or claims.get("azp"),
            claims.get("sub"),
            claims.get("exp"),
            claims,
        )

    async def _key(self, kid: Any) -> Any:
        """The key `kid` names (the only key when the token names none), fetching the set if needed."""
        async with self._lock:
            if self._keys is None or (
                self._find(kid) is None
                and self.jwks_uri is not None
                and time.monotonic() - self._fetched > self.refetch_after
            ):
                await self._fetch()
            return self._find(kid)

    def _find(self, kid: Any) -> Any:
        keys = list(self._keys.keys) if self._keys is not None else []
        if kid is None:
            return keys[0] if len(keys) == 1 else None
        return next((k for k in keys if k.key_id == kid), None)

    async def _fetch(self) -> None:
        httpx: Any = importlib.import_module("httpx")
        self._fetched = time.monotonic()
        try:
            async with httpx.AsyncClient(timeout=30.0) as http:
                response = await http.get(self.jwks_uri)
            response.raise_for_status()
            self._keys = self.jwt.PyJWKSet.from_dict(response.json())
        except (httpx.HTTPError, ValueError, self.jwt.PyJWTError) as exc:
            logger.warning("could not fetch the key set at %s: %s", self.jwks_uri, exc)
