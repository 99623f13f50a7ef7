"""DPoP (RFC 9449) in the runtime: the proofs a client signs, checked with joserfc (an independent JOSE
library), and a resource server's check of proofs made with joserfc: form, signature, request, time,
token, key binding, replays and nonces; any JSON in a proof's header or claims is refused cleanly."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joserfc import jwt as jose_jwt
from joserfc.jwk import ECKey, JWKRegistry, OctKey
from joserfc.jws import extract_compact

from mcpgen.runtime.auth import dpop
from mcpgen.runtime.auth.dpop_check import DPoP, ProofError
from mcpgen.runtime.auth.resource import AccessToken, Presented, Refused, ResourceServer

URL = "https://mcp.example.com/mcp"
TOKEN = "an-access-token"


def _ath(token: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()


KEY = ECKey.generate_key("P-256")
JKT = KEY.thumbprint()


def _proof(key: Any = KEY, header: dict[str, Any] | None = None, **claims: Any) -> str:
    """A proof made with joserfc: valid for a POST to URL presenting TOKEN unless told otherwise."""
    base = {"jti": f"j{time.time_ns()}", "htm": "POST", "htu": URL, "iat": int(time.time()), "ath": _ath(TOKEN)}
    head = {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)} | (header or {})
    return jose_jwt.encode(head, {k: v for k, v in (base | claims).items() if v is not None}, key)


def test_a_client_proof_is_what_rfc_9449_says() -> None:
    pem = dpop.new_key()
    proof = dpop.proof(pem, "post", "https://MCP.example.com/mcp?tenant=a#top", TOKEN, "n-1")
    header = extract_compact(proof.encode()).protected
    public = JWKRegistry.import_key(header["jwk"])
    claims = jose_jwt.decode(proof, public, algorithms=["ES256"]).claims
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    assert claims["htm"] == "POST" and claims["htu"] == "https://MCP.example.com/mcp"
    assert claims["ath"] == _ath(TOKEN) and claims["nonce"] == "n-1"
    assert abs(claims["iat"] - time.time()) < 5 and len(claims["jti"]) >= 16
    again = jose_jwt.decode(dpop.proof(pem, "POST", URL), public, algorithms=["ES256"]).claims
    assert again["jti"] != claims["jti"] and "ath" not in again and "nonce" not in again
    assert dpop.key_thumbprint(pem) == public.thumbprint() == dpop.thumbprint(header["jwk"])


def test_a_valid_proof_is_accepted_once() -> None:
    checker = DPoP()
    proof = _proof()
    checker.check([proof], "POST", URL, TOKEN, JKT)
    with pytest.raises(ProofError, match="used before"):
        checker.check([proof], "POST", URL, TOKEN, JKT)
    checker.check([_proof()], "post", "HTTPS://mcp.example.com:443/mcp?x=1", TOKEN, JKT)


OTHER = ECKey.generate_key("P-256")


@pytest.mark.parametrize(
    ("proofs", "jkt", "why"),
    [
        (lambda: [], JKT, "exactly one"),
        (lambda: [_proof(), _proof()], JKT, "exactly one"),
        (lambda: [_proof() + "," + _proof()], JKT, "exactly one"),
        (lambda: ["not.a.jwt"], JKT, "not a JWT"),
        (lambda: [_proof(header={"typ": "JWT"})], JKT, "typ or alg"),
        (lambda: [_proof(OTHER)], JKT, "not the token's"),
        (lambda: [_proof(header={"jwk": OTHER.as_dict(private=False)})], JKT, "signature"),
        (lambda: [_proof(header={"jwk": KEY.as_dict(private=True)})], JKT, "no public key"),
        (lambda: [_proof()], None, "not the token's"),
        (lambda: [_proof(htm="GET")], JKT, "another method"),
        (lambda: [_proof(htu="https://evil.example.com/mcp")], JKT, "another URL"),
        (lambda: [_proof(iat=int(time.time()) - 3600)], JKT, "too old"),
        (lambda: [_proof(iat=int(time.time()) + 3600)], JKT, "from the future"),
        (lambda: [_proof(ath=_ath("another-token"))], JKT, "another access token"),
        (lambda: [_proof(ath=None)], JKT, "another access token"),
        (lambda: [_proof(jti=None)], JKT, "no jti"),
    ],
)
def test_a_bad_proof_is_refused(proofs: Callable[[], list[str]], jkt: str | None, why: str) -> None:
    """Each proof is made as the test runs (a proof made at collection would be stale by then)."""
    with pytest.raises(ProofError, match=why) as refused:
        DPoP().check(proofs(), "POST", URL, TOKEN, jkt)
    assert refused.value.error == "invalid_dpop_proof"


def test_a_proof_signed_with_an_hmac_or_none_is_refused() -> None:
    secret = OctKey.import_key("a shared secret that is long enough for HS256")
    hmac_proof = jose_jwt.encode({"typ": "dpop+jwt", "alg": "HS256", "jwk": KEY.as_dict(private=False)}, {"jti": "x"}, secret)
    unsigned = ".".join(
        base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()
        for part in ({"typ": "dpop+jwt", "alg": "none", "jwk": KEY.as_dict(private=False)}, {"jti": "y"})
    ) + "."
    for proof in (hmac_proof, unsigned):
        with pytest.raises(ProofError, match="typ or alg"):
            DPoP(algorithms=["ES256", "HS256", "none"]).check([proof], "POST", URL, TOKEN, JKT)


def test_nonces_are_required_when_asked_for_and_expire() -> None:
    checker = DPoP(nonce=True, window=2)
    with pytest.raises(ProofError) as missing:
        checker.check([_proof()], "POST", URL, TOKEN, JKT)
    assert missing.value.error == "use_dpop_nonce"
    for forged in ("made-up", base64.urlsafe_b64encode(b"\0" * 24).decode(), "x" * 500):
        with pytest.raises(ProofError, match="nonce"):
            checker.check([_proof(nonce=forged)], "POST", URL, TOKEN, JKT)
    checker.check([_proof(nonce=checker.new_nonce())], "POST", URL, TOKEN, JKT)
    other_worker = DPoP(nonce=True)
    with pytest.raises(ProofError, match="nonce"):
        other_worker.check([_proof(nonce=checker.new_nonce())], "POST", URL, TOKEN, JKT)
    shared = DPoP(nonce=True, secret=b"s" * 32)
    DPoP(nonce=True, secret=b"s" * 32).check([_proof(nonce=shared.new_nonce())], "POST", URL, TOKEN, JKT)
    stale = checker.new_nonce()
    time.sleep(2.2)
    with pytest.raises(ProofError, match="nonce"):
        checker.check([_proof(nonce=stale, iat=int(time.time()))], "POST", URL, TOKEN, JKT)


def test_the_replay_memory_is_bounded() -> None:
    checker = DPoP(max_proofs=3)
    proofs = [_proof() for _ in range(5)]
    for proof in proofs:
        checker.check([proof], "POST", URL, TOKEN, JKT)
    assert len(checker._seen) == 3
    with pytest.raises(ProofError, match="used before"):
        checker.check([proofs[-1]], "POST", URL, TOKEN, JKT)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(header=st.dictionaries(st.sampled_from(["typ", "alg", "jwk", "kid", "x"]), JSON, max_size=4), claims=JSON)
def test_any_json_in_a_proof_is_refused_cleanly(header: dict[str, Any], claims: Any) -> None:
    def part(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    forged = f"{part(header)}.{part(claims)}.{part('sig')}"
    with pytest.raises(ProofError):
        DPoP().check([forged], "POST", URL, TOKEN, JKT)
    signed_header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": KEY.as_dict(private=False)}
    if isinstance(claims, dict):
        signed = jose_jwt.encode(signed_header, claims, KEY)
        with pytest.raises(ProofError):
            DPoP().check([signed], "POST", URL, TOKEN, JKT)


def _guard(claims: dict[str, Any], **options: Any) -> ResourceServer:
    async def verify(token: str) -> AccessToken | None:
        return AccessToken(token, frozenset({"mcp:read"}), "c", "alice", claims=claims) if token == TOKEN else None

    return ResourceServer(verify, ["https://as.example.com"], required_scopes=["mcp:read"], **options)


def _challenges(refused: Refused) -> dict[str, str]:
    return {value.split(" ", 1)[0]: value for name, value in refused.headers if name == "www-authenticate"}


def test_a_resource_server_takes_a_bound_token_only_with_its_proof() -> None:
    bound = _guard({"cnf": {"jkt": JKT}}, dpop=DPoP())
    token = asyncio.run(bound.authenticate(Presented(f"DPoP {TOKEN}", (_proof(),), "POST"), URL))
    assert token.subject == "alice"
    with pytest.raises(Refused) as as_bearer:
        asyncio.run(bound.authenticate(Presented(f"Bearer {TOKEN}"), URL))
    assert as_bearer.value.status == 401 and "bound to a key" in as_bearer.value.body["error_description"]
    with pytest.raises(Refused) as unproven:
        asyncio.run(bound.authenticate(Presented(f"DPoP {TOKEN}", (_proof(OTHER),), "POST"), URL))
    assert 'error="invalid_dpop_proof"' in _challenges(unproven.value)["DPoP"]
    assert 'algs="ES256' in _challenges(unproven.value)["DPoP"]
    without = _guard({"cnf": {"jkt": JKT}})
    with pytest.raises(Refused):
        asyncio.run(without.authenticate(Presented(f"Bearer {TOKEN}"), URL))
    with pytest.raises(Refused):
        asyncio.run(without.authenticate(Presented(f"DPoP {TOKEN}", (_proof(),), "POST"), URL))


def test_a_resource_server_offers_both_schemes_and_a_nonce() -> None:
    guard = _guard({"cnf": {"jkt": JKT}}, dpop=DPoP(nonce=True))
    with pytest.raises(Refused) as missing:
        asyncio.run(guard.authenticate(Presented(None), URL))
    assert set(_challenges(missing.value)) == {"Bearer", "DPoP"}
    nonce = dict(missing.value.headers)["dpop-nonce"]
    with pytest.raises(Refused) as stale:
        asyncio.run(guard.authenticate(Presented(f"DPoP {TOKEN}", (_proof(),), "POST"), URL))
    assert 'error="use_dpop_nonce"' in _challenges(stale.value)["DPoP"] and dict(stale.value.headers)["dpop-nonce"]
    asyncio.run(guard.authenticate(Presented(f"DPoP {TOKEN}", (_proof(nonce=nonce),), "POST"), URL))
    required = _guard({}, dpop=DPoP(required=True))
    with pytest.raises(Refused) as bearer:
        asyncio.run(required.authenticate(Presented(f"Bearer {TOKEN}"), URL))
    assert set(_challenges(bearer.value)) == {"DPoP"}
    assert required.metadata(URL)["dpop_bound_access_tokens_required"] is True


HEADER_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=300)


@settings(max_examples=200, deadline=None)
@given(
    authorization=st.none() | HEADER_TEXT | st.builds(lambda t: f"DPoP {t}", HEADER_TEXT),
    proof=st.none()
    | HEADER_TEXT
    | st.builds(
        lambda header, claims: _proof(header=header, **claims),
        st.dictionaries(st.sampled_from(["typ", "kid"]), st.text(max_size=20), max_size=2),
        st.dictionaries(st.sampled_from(["htm", "htu", "iat", "ath", "jti", "nonce", "exp"]), JSON, max_size=3),
    ),
)
def test_any_authorization_and_dpop_header_is_admitted_or_refused_never_raised(authorization: str | None, proof: str | None) -> None:
    guard = _guard({"cnf": {"jkt": JKT}}, dpop=DPoP(nonce=True))
    try:
        asyncio.run(guard.authenticate(Presented(authorization, (proof,) if proof is not None else (), "POST"), URL))
    except Refused as refused:
        assert refused.status == 401 and refused.headers
