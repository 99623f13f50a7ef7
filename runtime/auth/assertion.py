"""Client authentication by a signed JWT (`private_key_jwt`, RFC 7523 §2.2), with PyJWT (the optional
`jwt` extra), imported when a client with a private key authenticates."""

from __future__ import annotations

import importlib
import secrets
import time
from typing import Any

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def client_assertion(client_id: str, private_key: str, algorithm: str, audience: str) -> str:
    """A short-lived assertion that `client_id` (holding `private_key`, PEM) is calling `audience`
    (the authorization server's issuer identifier)."""
    jwt: Any = importlib.import_module("jwt")
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": secrets.token_urlsafe(16),
    }
    token: str = jwt.encode(claims, private_key, algorithm=algorithm)
    return token
