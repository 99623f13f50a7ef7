"""Requests to an authorization server's token endpoint: the client authenticated as registered, a DPoP
proof when the tokens are to be bound to a key (retried once with the server's nonce), and the
answer read into `Tokens` only when it is a token type the client can use."""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Mapping, MutableMapping
from typing import Any
from urllib.parse import quote_plus

from . import dpop
from .assertion import ASSERTION_TYPE, client_assertion
from .errors import AuthorizationError
from .fetch import Answer, exchange
from .metadata import origin
from .registration import auth_method
from .store import ClientInfo, Tokens

USE_DPOP_NONCE = "use_dpop_nonce"
_VISIBLE = re.compile(r"[\x21-\x7e]+")
"""What an access token may hold: visible ASCII, which goes in an Authorization header as it is."""


def refusal(what: str, status: int | None, answer: Mapping[str, Any] | None) -> AuthorizationError:
    """The error for an authorization server's refusal (its OAuth error code and description)."""
    error = answer.get("error") if answer is not None else None
    detail = answer.get("error_description") if answer is not None else None
    said = ": ".join(str(part)[:300] for part in (error, detail) if part)
    where = f" (HTTP {status})" if status is not None else ""
    return AuthorizationError(
        f"{what} failed{where}{': ' + said if said else ''}",
        error if isinstance(error, str) else None,
    )


def _authenticate(
    client: ClientInfo,
    methods: list[str] | None,
    audience: str,
    form: dict[str, str],
    headers: dict[str, str],
) -> None:
    """Add `client`'s authentication to a token request, as registered or as `methods` allow."""
    method = auth_method(client, methods)
    if method == "client_secret_basic" and client.client_secret is not None:
        pair = f"{quote_plus(client.client_id)}:{quote_plus(client.client_secret)}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        return
    form["client_id"] = client.client_id
    if method == "private_key_jwt" and client.private_key is not None:
        form["client_assertion_type"] = ASSERTION_TYPE
        form["client_assertion"] = client_assertion(
            client.client_id, client.private_key, client.signing_algorithm, audience
        )
    elif method == "client_secret_post" and client.client_secret is not None:
        form["client_secret"] = client.client_secret


async def post_token_request(
    http: Any,
    endpoint: str,
    issuer: str,
    client: ClientInfo,
    form: dict[str, str],
    *,
    methods: list[str] | None,
    timeout: float,
    dpop_key: str | None = None,
    nonces: MutableMapping[str, str] | None = None,
) -> Answer:
    """POST `form` to the token `endpoint` of `issuer` as `client` (authenticated as registered or as
    `methods` allow); with a DPoP proof signed by `dpop_key`, once more with the nonce the server
    asks for (kept in `nonces` by origin)."""
    headers = {"content-type": "application/x-www-form-urlencoded"}
    body = dict(form)
    _authenticate(client, methods, issuer, body, headers)
    where = origin(endpoint)
    for _ in range(2):
        if dpop_key is not None:
            nonce = nonces.get(where) if nonces is not None else None
            headers["dpop"] = dpop.proof(dpop_key, "POST", endpoint, nonce=nonce)
        answer = await exchange(
            http, "POST", endpoint, timeout, what="the token endpoint", data=body, headers=headers
        )
        fresh = answer.headers.get("dpop-nonce")
        if dpop_key is None or nonces is None or not fresh or fresh == nonces.get(where):
            return answer
        nonces[where] = fresh
        if answer.status != 400 or (answer.json or {}).get("error") != USE_DPOP_NONCE:
            return answer
    return answer


def _expiry(lifetime: Any) -> float | None:
    """When a token living `lifetime` seconds (an `expires_in`) expires; None when it does not say."""
    if isinstance(lifetime, bool) or not isinstance(lifetime, (int, float)) or lifetime > 1e9:
        return None
    return time.time() + lifetime


def tokens_of(
    answer: Answer, issuer: str, dpop_key: str | None, refresh_token: str | None
) -> Tokens:
    """The tokens of a token endpoint's answer: Bearer tokens, or DPoP-bound ones when the request
    carried a proof (signed with `dpop_key`); any other token type the client cannot use is refused
    (RFC 6749 §7.1), a DPoP one it did not ask for included (RFC 9449 §5), and so is an access token
    that is not visible ASCII (RFC 6750 §2.1: it goes in a header)."""
    data = answer.json
    token = data.get("access_token") if data is not None else None
    if answer.status != 200 or data is None or not isinstance(token, str) or not token:
        raise refusal("the token request", answer.status, data)
    if not _VISIBLE.fullmatch(token):
        raise AuthorizationError(f"{issuer!r} issued an access token that cannot go in a header")
    kind = str(data.get("token_type") or "Bearer")
    if kind.lower() == "dpop" and dpop_key is None:
        raise AuthorizationError(f"{issuer!r} issued a DPoP-bound token without a DPoP proof")
    if kind.lower() not in ("bearer", "dpop"):
        raise AuthorizationError(f"{issuer!r} issued a token of type {kind[:50]!r}")
    lifetime = data.get("expires_in")
    scope = data.get("scope")
    refresh = data.get("refresh_token")
    bound = kind.lower() == "dpop"
    return Tokens(
        token,
        issuer,
        "DPoP" if bound else "Bearer",
        refresh if isinstance(refresh, str) and refresh else refresh_token,
        _expiry(lifetime),
        scope if isinstance(scope, str) else None,
        dpop_key if bound else None,
    )
