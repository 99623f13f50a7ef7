"""Proof Key for Code Exchange (RFC 7636) with the S256 method."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass


@dataclass(frozen=True)
class Pkce:
    """A code verifier and its S256 code challenge."""

    verifier: str
    challenge: str


def new_pkce() -> Pkce:
    """A fresh random verifier (86 unreserved characters) and its challenge."""
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return Pkce(verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii"))
