"""Verification of JWT access tokens (RFC 9068) for a `ResourceServer`, with PyJWT (the optional
`jwt` extra: `pip install "pyjwt[crypto]"`), imported when a verifier is made."""

from __future__ import annotations

import asyncio
import importlib
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..log import logger
from .resource import AccessToken

FAMILIES = {"RSA": ("RS", "PS"), "EC": ("ES",), "OKP": ("EdDSA", "Ed"), "oct": ("HS",)}
"""The algorithm names each key type signs with (RFC 7518, RFC 8037)."""
ACCESS_TOKEN_TYPE = "at+jwt"


@dataclass(frozen=True)
class _Key:
    """A key of the authorization server's set: PyJWT's, and the algorithms it may verify."""

    jwk: Any
    algorithms: tuple[str, ...]


def _media_type(value: Any) -> str | None:
    """A `typ` header as a media type in lower case, without the optional `application/` prefix."""
    if not isinstance(value, str):
        return None
    lowered: str = value.lower()
    return lowered.removeprefix("application/")


def _seconds(value: Any) -> float | None:
    """A time claim as a finite number of seconds; None for a string, a boolean, NaN or 1e400."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _strings(value: Any) -> bool:
    """Whether `value` is a list of strings only."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


class JwtVerifier:
    """A `TokenVerifier` for JWT access tokens (RFC 9068) signed with a key of the authorization
    server's JWKS: `typ` (`at+jwt`), signature, `iss`, `aud` (this MCP server's canonical URI) and `exp`
    checked; scopes from `scope` or `scp`; `expires_at` is `exp` plus `leeway` (for clock skew).

    A token verifies only with an algorithm of `algorithms` that its key allows: the key's declared
    `alg`, else its key type's (an RSA key never verifies an HMAC, whatever `algorithms` holds). The key
    set comes from `jwks` or is fetched from `jwks_uri` (again when a token names a key it lacks, at most
    every `refetch_after` seconds). `typ` is the token type required (None: any, for an authorization
    server that does not type its access tokens as RFC 9068 §2.1 says).
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
        typ: str | None = ACCESS_TOKEN_TYPE,
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
        self.typ = typ
        self._keys: list[_Key] | None = None if jwks is None else self._keyset(jwks)
        self._fetched = 0.0
        self._lock = asyncio.Lock()

    async def __call__(self, token: str) -> AccessToken | None:
        """The verified token, or None when it is not a valid access token for `audience`."""
        jwt = self.jwt
        try:
            header = jwt.get_unverified_header(token)
            if self.typ is not None and _media_type(header.get("typ")) != _media_type(self.typ):
                return None
            key = await self._key(header.get("kid"))
            if key is None or not key.algorithms:
                return None
            claims = jwt.decode(
                token,
                key.jwk.key,
                algorithms=list(key.algorithms),
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None
        scope = claims.get("scope", claims.get("scp", ""))
        scopes = scope.split() if isinstance(scope, str) else scope
        clients = [c for c in (claims.get("client_id"), claims.get("azp")) if c is not None]
        expires = _seconds(claims["exp"])
        if expires is None or not _strings(scopes) or not _strings(clients):
            return None
        return AccessToken(
            token,
            frozenset(scopes),
            claims.get("client_id") or claims.get("azp"),
            claims.get("sub"),
            expires + self.leeway,
            claims,
            self.issuer,
        )

    def _keyset(self, jwks: Mapping[str, Any]) -> list[_Key]:
        """The usable keys of a JWKS document, each with the algorithms it may verify."""
        found: list[_Key] = []
        listed = jwks.get("keys")
        for data in listed if isinstance(listed, list) else []:
            if not isinstance(data, dict):
                continue
            try:
                jwk = self.jwt.PyJWK.from_dict(data)
            except self.jwt.PyJWTError:
                continue
            declared = data.get("alg")
            family = FAMILIES.get(str(data.get("kty")), ())
            allowed = tuple(
                a
                for a in self.algorithms
                if (a == declared if declared is not None else a.startswith(family))
            )
            found.append(_Key(jwk, allowed))
        return found

    async def _key(self, kid: Any) -> _Key | None:
        """The key `kid` names (the only key when the token names none), fetching the set if needed."""
        async with self._lock:
            if self._keys is None or (
                self._find(kid) is None
                and self.jwks_uri is not None
                and time.monotonic() - self._fetched > self.refetch_after
            ):
                await self._fetch()
            return self._find(kid)

    def _find(self, kid: Any) -> _Key | None:
        keys = self._keys or []
        if kid is None:
            return keys[0] if len(keys) == 1 else None
        return next((k for k in keys if k.jwk.key_id == kid), None)

    async def _fetch(self) -> None:
        httpx: Any = importlib.import_module("httpx")
        self._fetched = time.monotonic()
        try:
            async with httpx.AsyncClient(timeout=30.0) as http:
                response = await http.get(self.jwks_uri)
            response.raise_for_status()
            document = response.json()
            self._keys = self._keyset(document if isinstance(document, dict) else {})
        except (httpx.HTTPError, ValueError) as exc:
            logger.warning("could not fetch the key set at %s: %s", self.jwks_uri, exc)
