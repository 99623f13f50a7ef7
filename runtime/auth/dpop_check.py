"""A resource server's check of DPoP proofs (RFC 9449 §4.3, §7, §9), with PyJWT (the optional `jwt`
extra), imported when a resource server takes DPoP: the proof's form and signature, its request, its
time, the access token it presents, the key the token is bound to, replays and server nonces."""

from __future__ import annotations

import base64
import collections
import hashlib
import hmac
import importlib
import secrets
import struct
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .dpop import PROOF_TYPE, base64url, thumbprint, token_hash

PROOF_ALGORITHMS = ("ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "EdDSA")
"""Asymmetric algorithms only: a proof is never checked with `none` or an HMAC (RFC 9449 §11.6)."""
_PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ProofError(Exception):
    """A DPoP proof the resource server refuses: the OAuth error (`invalid_dpop_proof`, or
    `use_dpop_nonce` when only a fresh nonce is missing) and why."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


def _normal(url: str) -> str:
    """A URL compared as RFC 9449 §4.3 says: scheme and host in lower case, default port dropped, no
    query or fragment, an empty path as `/`."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", "", ""))


class DPoP:
    """DPoP at a resource server (`ResourceServer(..., dpop=DPoP())`): tokens bound to a key (`cnf.jkt`)
    are admitted only with the `DPoP` scheme and a valid proof of that key, and never as bearer tokens.

    `required` refuses bearer tokens altogether. A proof must be signed with one of `algorithms`, be
    issued within `window` seconds of now, name the request's method and URL and the token it presents,
    and not be a replay: the identifiers of the last `max_proofs` proofs (of at most `window` seconds)
    are remembered. `nonce` makes the server supply the nonce proofs carry (RFC 9449 §9), each good for
    `window` seconds; nonces are derived from `secret` (random unless given: give the same to every
    worker of one server).
    """

    def __init__(
        self,
        *,
        required: bool = False,
        nonce: bool = False,
        algorithms: Iterable[str] = PROOF_ALGORITHMS,
        window: float = 300.0,
        max_proofs: int = 100_000,
        secret: bytes | None = None,
    ) -> None:
        self.jwt: Any = importlib.import_module("jwt")
        self.required = required
        self.nonce = nonce
        self.algorithms = tuple(a for a in algorithms if a in PROOF_ALGORITHMS)
        self.window = window
        self.max_proofs = max_proofs
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self._seen: collections.OrderedDict[bytes, float] = collections.OrderedDict()

    def new_nonce(self) -> str:
        """A nonce good for `window` seconds: the time it was made, authenticated."""
        stamp = struct.pack(">d", time.time())
        return base64url(stamp + hmac.new(self._secret, stamp, hashlib.sha256).digest()[:16])

    def _nonce_valid(self, value: Any) -> bool:
        if not isinstance(value, str) or len(value) > 64:
            return False
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except ValueError:
            return False
        stamp, tag = raw[:8], raw[8:]
        expected = hmac.new(self._secret, stamp, hashlib.sha256).digest()[:16]
        if len(stamp) != 8 or not hmac.compare_digest(tag, expected):
            return False
        made: float = struct.unpack(">d", stamp)[0]
        return 0 <= time.time() - made <= self.window

    def check(self, proofs: Sequence[str], method: str, url: str, token: str, jkt: Any) -> None:
        """Accept the request's proof of the key `jkt` (the token's `cnf.jkt`) for presenting `token`
        in a `method` request to `url`, or raise ProofError."""
        if len(proofs) != 1 or "," in proofs[0]:
            raise ProofError("invalid_dpop_proof", "a request carries exactly one DPoP proof")
        header, claims = self._verified(proofs[0])
        if not isinstance(jkt, str) or thumbprint(header["jwk"]) != jkt:
            raise ProofError("invalid_dpop_proof", "the proof's key is not the token's")
        if claims.get("htm") != method.upper() or not isinstance(claims.get("htu"), str):
            raise ProofError("invalid_dpop_proof", "the proof is for another method")
        if _normal(claims["htu"]) != _normal(url):
            raise ProofError("invalid_dpop_proof", "the proof is for another URL")
        issued, now = claims.get("iat"), time.time()
        # chained comparisons: False for NaN, no float overflow for a huge integer
        fresh = (
            isinstance(issued, (int, float)) and now - self.window <= issued <= now + self.window
        )
        if not fresh:
            raise ProofError("invalid_dpop_proof", "the proof is too old or from the future")
        if claims.get("ath") != token_hash(token):
            raise ProofError("invalid_dpop_proof", "the proof is for another access token")
        if self.nonce and not self._nonce_valid(claims.get("nonce")):
            raise ProofError("use_dpop_nonce", "the proof needs the server's current nonce")
        self._remember(jkt, str(claims["jti"]))

    def _verified(self, proof: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
        """The header and claims of a well-formed proof signed by the key it carries."""
        jwt = self.jwt
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError:
            raise ProofError("invalid_dpop_proof", "the proof is not a JWT") from None
        jwk, algorithm = header.get("jwk"), header.get("alg")
        if header.get("typ") != PROOF_TYPE or algorithm not in self.algorithms:
            raise ProofError("invalid_dpop_proof", "the proof's typ or alg is not accepted")
        if not isinstance(jwk, dict) or _PRIVATE_MEMBERS & set(jwk):
            raise ProofError("invalid_dpop_proof", "the proof carries no public key")
        try:
            key = jwt.PyJWK.from_dict(jwk, algorithm=algorithm)
            claims = jwt.decode(
                proof,
                key.key,
                algorithms=[algorithm],
                options={"verify_aud": False, "verify_iat": False},
            )
            thumbprint(jwk)
        except (jwt.PyJWTError, ValueError):
            raise ProofError(
                "invalid_dpop_proof", "the proof's signature does not verify"
            ) from None
        if not isinstance(claims.get("jti"), str) or not claims["jti"]:
            raise ProofError("invalid_dpop_proof", "the proof has no jti")
        return header, claims

    def _remember(self, jkt: str, jti: str) -> None:
        """Refuse a proof seen before; remember this one (at most `max_proofs`, `window` seconds)."""
        now = time.monotonic()
        while self._seen and next(iter(self._seen.values())) < now:
            self._seen.popitem(last=False)
        digest = hashlib.sha256(f"{jkt}\0{jti}".encode("utf-8", "replace")).digest()
        if digest in self._seen:
            raise ProofError("invalid_dpop_proof", "the proof was used before")
        self._seen[digest] = now + 2 * self.window
        while len(self._seen) > self.max_proofs:
            self._seen.popitem(last=False)
