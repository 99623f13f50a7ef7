"""DPoP proofs (RFC 9449): a client's key pair and the proof JWT it signs for each request, with
PyJWT (the optional `jwt` extra), imported when a proof is made."""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ALGORITHM = "ES256"
"""The algorithm a client signs its proofs with (ECDSA on P-256: the one MCP recommends)."""
PROOF_TYPE = "dpop+jwt"
_THUMBPRINT_MEMBERS = {
    "EC": ("crv", "kty", "x", "y"),
    "RSA": ("e", "kty", "n"),
    "OKP": ("crv", "kty", "x"),
}


def available() -> bool:
    """Whether PyJWT and cryptography, which proofs need, are installed."""
    try:
        importlib.import_module("jwt.algorithms")
        importlib.import_module("cryptography")
    except ImportError:
        return False
    return True


def new_key() -> str:
    """A new P-256 private key (PEM) for the tokens of one authorization."""
    ec: Any = importlib.import_module("cryptography.hazmat.primitives.asymmetric.ec")
    serialization: Any = importlib.import_module("cryptography.hazmat.primitives.serialization")
    key = ec.generate_private_key(ec.SECP256R1())
    pem: bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem.decode("ascii")


@functools.lru_cache(maxsize=64)
def _loaded(pem: str) -> tuple[Any, dict[str, Any]]:
    """A PEM private key loaded, with its public JWK."""
    algorithms: Any = importlib.import_module("jwt.algorithms")
    private = algorithms.ECAlgorithm(algorithms.ECAlgorithm.SHA256).prepare_key(pem)
    jwk: dict[str, Any] = algorithms.ECAlgorithm.to_jwk(private.public_key(), as_dict=True)
    return private, jwk


def base64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def token_hash(access_token: str) -> str:
    """The `ath` of a proof presenting `access_token`: its SHA-256, base64url."""
    return base64url(hashlib.sha256(access_token.encode("ascii", "replace")).digest())


def thumbprint(jwk: Mapping[str, Any]) -> str:
    """The JWK SHA-256 thumbprint (RFC 7638) of a public key: the `jkt` a DPoP-bound token names."""
    members = _THUMBPRINT_MEMBERS.get(str(jwk.get("kty")))
    if members is None or any(not isinstance(jwk.get(m), str) for m in members):
        raise ValueError("not a public EC, RSA or OKP key")
    canonical = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return base64url(hashlib.sha256(canonical.encode("utf-8")).digest())


def key_thumbprint(pem: str) -> str:
    """The thumbprint of the public key of the private key `pem`."""
    return thumbprint(_loaded(pem)[1])


def target(url: str) -> str:
    """A request's `htu`: its URL without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def proof(
    pem: str, method: str, url: str, access_token: str | None = None, nonce: str | None = None
) -> str:
    """A fresh proof (new `jti`, now as `iat`) for a `method` request to `url`, signed with `pem`:
    with `ath` when it presents `access_token`, with the server's `nonce` when it gave one."""
    jwt: Any = importlib.import_module("jwt")
    private, jwk = _loaded(pem)
    claims: dict[str, Any] = {
        "jti": secrets.token_urlsafe(24),
        "htm": method.upper(),
        "htu": target(url),
        "iat": int(time.time()),
    }
    if access_token is not None:
        claims["ath"] = token_hash(access_token)
    if nonce is not None:
        claims["nonce"] = nonce
    headers = {"typ": PROOF_TYPE, "jwk": jwk}
    signed: str = jwt.encode(claims, private, algorithm=ALGORITHM, headers=headers)
    return signed
