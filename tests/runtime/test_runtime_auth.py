"""The runtime's authorization pieces on their own: challenges, discovery URLs, PKCE, the RFC 9207 check,
registration choices, the client's flow against a scripted authorization server, the resource server's
admission and JWT verification. (The conformance suite and tests/test_auth_e2e.py drive them whole.)"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import jwt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from mcpgen.runtime.auth import (
    Authorization,
    AuthorizationError,
    ClientCredentials,
    JwtBearer,
    ClientMetadata,
    OAuth,
    PreRegistered,
    ResourceServer,
    format_challenge,
    oauth_challenge,
    parse_challenges,
)
from mcpgen.runtime.auth.jwt import JwtVerifier
from mcpgen.runtime.auth.metadata import (
    AuthorizationServerMetadata,
    authorization_server_metadata_urls,
    canonical_resource,
    resource_allows,
    resource_metadata_urls,
)
from mcpgen.runtime.auth.dpop import thumbprint, token_hash
from mcpgen.runtime.auth.dpop_check import DPoP, ProofError
from mcpgen.runtime.auth.grants import _code
from mcpgen.runtime.auth.pkce import new_pkce
from mcpgen.runtime.auth.registration import auth_method, requested_auth_method
from mcpgen.runtime.auth.resource import AccessToken, Presented, Refused
from mcpgen.runtime.auth.store import ClientInfo
from mcpgen.runtime.client import _answered
from mcpgen.runtime.http.common import valid_header_params


def test_challenges_parse_quoted_and_bare_params_and_several_schemes() -> None:
    found = parse_challenges(
        ['Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://r/m"',
         'Bearer realm=plain, error_description="say \\"hi\\""']
    )
    assert [c.scheme for c in found] == ["Basic", "Bearer", "Bearer"]
    assert found[1].scopes == ("a", "b") and found[1].params["resource_metadata"] == "https://r/m"
    assert found[2].params == {"realm": "plain", "error_description": 'say "hi"'}
    assert oauth_challenge(["Negotiate abc==", "bearer scope=x"]).scopes == ("x",)  # type: ignore[union-attr]
    assert oauth_challenge(['Basic realm="x", DPoP error="use_dpop_nonce"']).scheme == "DPoP"  # type: ignore[union-attr]
    written = format_challenge({"error": None, "scope": 'a "b"', "resource_metadata": "https://r/m"})
    assert written == 'Bearer scope="a \\"b\\"", resource_metadata="https://r/m"'
    assert parse_challenges([written])[0].params["scope"] == 'a "b"'


def test_a_scheme_without_parameters_does_not_hide_the_challenges_after_it() -> None:
    """RFC 9110 §11.6.1: a challenge may be a bare scheme, and a comma then starts the next one."""
    parsed = [(c.scheme, dict(c.params)) for c in parse_challenges(['Bearer, DPoP algs="ES256"'])]
    assert parsed == [("Bearer", {}), ("DPoP", {"algs": "ES256"})]
    stepped = oauth_challenge(['Basic, Bearer error="insufficient_scope", scope="x"'])
    assert stepped is not None and stepped.params == {"error": "insufficient_scope", "scope": "x"}
    assert [c.scheme for c in parse_challenges(["Negotiate,NTLM , Basic,", "DPoP"])] == ["Negotiate", "NTLM", "Basic", "DPoP"]
    assert len(parse_challenges(["a," * 200_000])) == 200_000  # 400 KB of bare schemes, each read once


def test_discovery_urls_come_in_the_spec_s_order() -> None:
    assert resource_metadata_urls("https://ex.com/public/mcp") == [
        "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
        "https://ex.com/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://ex.com/") == ["https://ex.com/.well-known/oauth-protected-resource"]
    assert authorization_server_metadata_urls("https://as.com/tenant1") == [
        "https://as.com/.well-known/oauth-authorization-server/tenant1",
        "https://as.com/.well-known/openid-configuration/tenant1",
        "https://as.com/tenant1/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://as.com") == [
        "https://as.com/.well-known/oauth-authorization-server",
        "https://as.com/.well-known/openid-configuration",
    ]


def test_resource_identifiers() -> None:
    assert canonical_resource("HTTPS://Ex.com/mcp?x=1#f") == "https://ex.com/mcp?x=1"
    assert canonical_resource("https://ex.com/") == "https://ex.com"
    assert resource_allows("https://ex.com/mcp", "https://ex.com/mcp")
    assert resource_allows("https://ex.com", "https://ex.com/mcp")
    assert not resource_allows("https://ex.com/mcp", "https://ex.com/mcp2")
    assert not resource_allows("https://evil.com/mcp", "https://ex.com/mcp")


def test_pkce_pairs_a_verifier_with_its_s256_challenge() -> None:
    pkce = new_pkce()
    digest = hashlib.sha256(pkce.verifier.encode()).digest()
    assert base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == pkce.challenge
    assert 43 <= len(pkce.verifier) <= 128 and new_pkce().verifier != pkce.verifier


SERVER = AuthorizationServerMetadata(
    issuer="https://as.com", authorization_endpoint="https://as.com/a", token_endpoint="https://as.com/t"
)


@pytest.mark.parametrize(
    ("advertised", "answer", "accepted"),
    [
        (True, {"iss": "https://as.com"}, True),
        (True, {}, False),
        (None, {"iss": "https://as.com"}, True),
        (None, {}, True),
        (None, {"iss": "https://evil.com"}, False),
        (True, {"iss": "https://as.com/"}, False),  # no normalization: simple string comparison
    ],
)
def test_the_authorization_response_s_iss_is_checked_as_rfc_9207_says(
    advertised: bool | None, answer: dict[str, str], accepted: bool
) -> None:
    server = SERVER.model_copy(update={"authorization_response_iss_parameter_supported": advertised})
    response = {"code": "c", "state": "s", **answer}
    if accepted:
        assert _code(response, "s", server) == "c"
    else:
        with pytest.raises(AuthorizationError):
            _code(response, "s", server)


def test_a_response_with_another_state_or_an_error_gives_no_code() -> None:
    with pytest.raises(AuthorizationError, match="state"):
        _code({"code": "c", "state": "other"}, "s", SERVER)
    with pytest.raises(AuthorizationError) as refused:
        _code({"state": "s", "error": "access_denied"}, "s", SERVER)
    assert refused.value.error == "access_denied"


def test_the_token_endpoint_authentication_follows_registration_then_metadata() -> None:
    allows = SERVER.model_copy(update={"token_endpoint_auth_methods_supported": ["client_secret_post"]})
    assert requested_auth_method(SERVER) == "none"
    assert requested_auth_method(allows) == "client_secret_post"
    assert auth_method(ClientInfo("c", "i"), ["client_secret_post"]) == "none"
    assert auth_method(ClientInfo("c", "i", "secret"), ["client_secret_post"]) == "client_secret_post"
    assert auth_method(ClientInfo("c", "i", "secret"), None) == "client_secret_basic"
    assert auth_method(ClientInfo("c", "i", "secret", "client_secret_post"), None) == "client_secret_post"
    assert auth_method(ClientInfo("c", "i", private_key="pem"), None) == "private_key_jwt"


def test_tools_whose_header_annotations_are_invalid_are_recognised() -> None:
    def schema(**properties: Any) -> dict[str, Any]:
        return {"type": "object", "properties": properties}

    assert valid_header_params(schema(a={"type": "string", "x-mcp-header": "Region"}, b={"type": "integer"}))
    for bad in (
        schema(a={"type": "string", "x-mcp-header": ""}),
        schema(a={"type": "number", "x-mcp-header": "N"}),
        schema(a={"type": "object", "x-mcp-header": "O"}),
        schema(a={"type": "string", "x-mcp-header": "My Region"}),
        schema(a={"type": "string", "x-mcp-header": "Région"}),
        schema(a={"type": "string", "x-mcp-header": "R"}, b={"type": "string", "x-mcp-header": "r"}),
    ):
        assert not valid_header_params(bad), bad


class ScriptedServers:
    """An MCP server demanding `mcp:read` then `mcp:write`, and its authorization server, as one
    httpx transport; it records every authorization request and token grant."""

    def __init__(self, refresh: bool = True) -> None:
        self.authorizations: list[dict[str, str]] = []
        self.grants: list[str] = []
        self.forms: list[dict[str, str]] = []
        self.refresh = refresh
        self.valid: dict[str, set[str]] = {}

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url.copy_with(query=None))
        if url == "https://mcp.com/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(200, json={"resource": "https://mcp.com/mcp", "authorization_servers": ["https://as.com"]})
        if url == "https://as.com/.well-known/oauth-authorization-server":
            return httpx.Response(200, json={
                "issuer": "https://as.com", "authorization_endpoint": "https://as.com/authorize",
                "token_endpoint": "https://as.com/token", "registration_endpoint": "https://as.com/register",
                "code_challenge_methods_supported": ["S256"], "scopes_supported": ["mcp:read", "mcp:write", "offline_access"],
            })
        if url == "https://as.com/register":
            body = json.loads(request.content)
            assert body["grant_types"] == ["authorization_code", "refresh_token"] and body["application_type"] == "native"
            return httpx.Response(201, json={"client_id": "registered"})
        if url == "https://as.com/token":
            form = dict(parse_qsl(request.content.decode()))
            self.grants.append(form["grant_type"])
            self.forms.append(form)
            scopes = self.authorizations[-1].get("scope", "") if self.authorizations else form.get("scope", "")
            token = f"t{len(self.grants)}"
            self.valid[token] = set(scopes.split())
            answer = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            return httpx.Response(200, json={**answer, **({"refresh_token": "r"} if self.refresh else {})})
        if url == "https://mcp.com/mcp":
            return self.mcp(request)
        return httpx.Response(404)

    def mcp(self, request: httpx.Request) -> httpx.Response:
        needed = {"mcp:read"} | ({"mcp:write"} if b"write" in request.content else set())
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if token not in self.valid:
            return httpx.Response(401, headers={"www-authenticate": 'Bearer scope="mcp:read"'})
        if not needed <= self.valid[token]:
            challenge = 'Bearer error="insufficient_scope", scope="mcp:write"'
            return httpx.Response(403, headers={"www-authenticate": challenge})
        return httpx.Response(200, json={"ok": True})

    async def consent(self, url: str) -> str:
        query = dict(parse_qsl(urlsplit(url).query))
        self.authorizations.append(query)
        return f"{query['redirect_uri']}?code=c&state={query['state']}&iss=https://as.com"


def _calls(servers: ScriptedServers, oauth: Authorization, bodies: list[bytes]) -> list[int]:
    async def run() -> list[int]:
        transport = httpx.MockTransport(servers.handle)
        oauth.http = httpx.AsyncClient(transport=transport)
        async with httpx.AsyncClient(transport=transport, auth=oauth.httpx_auth()) as http:
            return [(await http.post("https://mcp.com/mcp", content=body)).status_code for body in bodies]

    return asyncio.run(run())


def test_the_client_registers_authorizes_steps_up_with_the_union_of_scopes_and_refreshes() -> None:
    servers = ScriptedServers()
    oauth = OAuth(servers.consent, ClientMetadata("http://127.0.0.1/cb"))
    assert _calls(servers, oauth, [b"read", b"write", b"read"]) == [200, 200, 200]
    first, second = servers.authorizations
    assert first["scope"] == "mcp:read offline_access" and first["resource"] == "https://mcp.com/mcp"
    assert second["scope"] == "mcp:read offline_access mcp:write", "the union of what was asked and the challenge"
    assert first["code_challenge_method"] == "S256" and first["client_id"] == "registered"
    servers.valid.clear()  # every token revoked: the next request refreshes without asking the user again
    assert _calls(servers, oauth, [b"read"]) == [200]
    assert servers.grants == ["authorization_code", "authorization_code", "refresh_token"]
    assert len(servers.authorizations) == 2


def test_a_challenge_that_authorization_cannot_satisfy_ends_after_the_retry_limit() -> None:
    servers = ScriptedServers()
    servers.mcp = lambda request: httpx.Response(  # type: ignore[method-assign]
        403, headers={"www-authenticate": 'Bearer error="insufficient_scope", scope="mcp:admin"'}
    ) if "authorization" in request.headers else httpx.Response(401)
    oauth = OAuth(servers.consent, ClientMetadata("http://127.0.0.1/cb"))
    with pytest.raises(AuthorizationError, match="after 3 authorizations"):
        _calls(servers, oauth, [b"read"])
    assert len(servers.authorizations) == 3


def test_pre_registered_credentials_skip_registration_for_their_issuer_only() -> None:
    servers = ScriptedServers()
    mine = PreRegistered("pre", "secret", issuer="https://as.com")
    elsewhere = PreRegistered("other", issuer="https://elsewhere.com")
    oauth = OAuth(servers.consent, ClientMetadata("http://127.0.0.1/cb"), credentials=[elsewhere, mine])
    assert _calls(servers, oauth, [b"read"]) == [200]
    assert servers.authorizations[0]["client_id"] == "pre"


def test_the_discovery_probe_waits_while_the_channel_is_authorizing() -> None:
    class Channel:
        authorizing = True

    async def run() -> str:
        async def answer() -> str:
            await asyncio.sleep(0.3)
            Channel.authorizing = False
            return "answered"

        return str(await _answered(Channel(), answer(), 0.05))

    assert asyncio.run(run()) == "answered"

    async def silent() -> None:
        await _answered(object(), asyncio.sleep(1), 0.05)

    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(silent())


def _resource(scopes: set[str] | None) -> ResourceServer:
    async def verify(token: str) -> AccessToken | None:
        return AccessToken(token, frozenset(scopes)) if scopes is not None else None

    def scopes_for(method: str, params: Any) -> list[str]:
        return ["mcp:write"] if method == "tools/call" else []

    return ResourceServer(verify, ["https://as.com"], required_scopes=["mcp:read"], scopes_for=scopes_for)


def _admit(server: ResourceServer, authorization: str | None, method: str) -> AccessToken:
    """Authenticate then authorize one request with `authorization` calling `method`."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method}
    token = asyncio.run(server.authenticate(Presented(authorization), "https://mcp.com/mcp"))
    server.authorize(token, "https://mcp.com/mcp", [message])
    return token


def _challenge(refused: Refused) -> str:
    """The one challenge of a refusal."""
    (challenge,) = [value for name, value in refused.headers if name == "www-authenticate"]
    return challenge


def test_the_resource_server_admits_refuses_and_challenges() -> None:
    metadata = 'resource_metadata="https://mcp.com/.well-known/oauth-protected-resource/mcp"'
    with pytest.raises(Refused) as missing:
        _admit(_resource({"mcp:read"}), None, "tools/list")
    assert missing.value.status == 401 and _challenge(missing.value) == f'Bearer scope="mcp:read", {metadata}'
    with pytest.raises(Refused) as invalid:
        _admit(_resource(None), "Bearer t", "tools/list")
    assert invalid.value.status == 401 and 'error="invalid_token"' in _challenge(invalid.value)
    with pytest.raises(Refused) as short:
        _admit(_resource({"mcp:read"}), "Bearer t", "tools/call")
    assert short.value.status == 403
    assert 'error="insufficient_scope"' in _challenge(short.value) and 'scope="mcp:read mcp:write"' in _challenge(short.value)
    assert _admit(_resource({"mcp:read", "mcp:write"}), "bearer t", "tools/call").token == "t"
    assert _resource(set()).metadata("https://mcp.com/mcp") == {
        "resource": "https://mcp.com/mcp",
        "authorization_servers": ["https://as.com"],
        "bearer_methods_supported": ["header"],
    }


def test_jwt_access_tokens_are_verified_for_issuer_audience_and_lifetime() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    verifier = JwtVerifier("https://as.com", "https://mcp.com/mcp", jwks={"keys": [{**public, "kid": "k"}]})

    def token(**claims: Any) -> str:
        base = {"iss": "https://as.com", "aud": "https://mcp.com/mcp", "exp": time.time() + 60, "sub": "alice", "scope": "a b"}
        return jwt.encode({**base, **claims}, key, algorithm="ES256", headers={"kid": "k", "typ": "at+jwt"})

    verified = asyncio.run(verifier(token()))
    assert verified is not None and verified.subject == "alice" and verified.scopes == {"a", "b"}
    for bad in (token(aud="https://other.com"), token(iss="https://evil.com"), token(exp=time.time() - 3600), "x.y.z"):
        assert asyncio.run(verifier(bad)) is None


def _signed(key: Any, algorithm: str, typ: str | None = "at+jwt", **claims: Any) -> str:
    """A JWT access token for https://mcp.com/mcp from https://as.com (`typ` None: no typ at all)."""
    base = {"iss": "https://as.com", "aud": "https://mcp.com/mcp", "exp": int(time.time()) + 60, "sub": "alice"}
    return jwt.encode({**base, **claims}, key, algorithm=algorithm, headers={"kid": "k", "typ": typ})


def _verifier(public: Any, **options: Any) -> JwtVerifier:
    jwk = json.loads(jwt.algorithms.get_default_algorithms()[options.pop("kind", "RS256")].to_jwk(public))
    return JwtVerifier("https://as.com", "https://mcp.com/mcp", jwks={"keys": [{**jwk, "kid": "k", **options.pop("declared", {})}]}, **options)


RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.mark.parametrize(
    ("typ", "accepted"),
    [("at+jwt", True), ("application/at+jwt", True), ("AT+JWT", True), ("JWT", False), (None, False), ("jwt", False)],
)
def test_only_tokens_typed_as_access_tokens_are_accepted(typ: str | None, accepted: bool) -> None:
    verified = asyncio.run(_verifier(RSA_KEY.public_key())(_signed(RSA_KEY, "RS256", typ)))
    assert (verified is not None) is accepted
    assert asyncio.run(_verifier(RSA_KEY.public_key(), typ=None)(_signed(RSA_KEY, "RS256", typ))) is not None


def test_an_hmac_token_forged_with_the_public_key_is_refused_not_raised() -> None:
    """RS256/HS256 confusion with HS256 allowed: the RSA public key (PEM) used as the HMAC secret."""
    pem = RSA_KEY.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    header = _b64(json.dumps({"alg": "HS256", "typ": "at+jwt", "kid": "k"}).encode())
    claims = {"iss": "https://as.com", "aud": "https://mcp.com/mcp", "exp": int(time.time()) + 60, "sub": "mallory"}
    unsigned = f"{header}.{_b64(json.dumps(claims).encode())}"
    forged = f"{unsigned}.{_b64(hmac.new(pem, unsigned.encode(), hashlib.sha256).digest())}"
    verifier = _verifier(RSA_KEY.public_key(), algorithms=["RS256", "HS256"])
    assert asyncio.run(verifier(forged)) is None
    assert asyncio.run(verifier(_signed(RSA_KEY, "RS256"))) is not None


def test_a_key_s_declared_algorithm_is_the_only_one_it_verifies() -> None:
    verifier = _verifier(RSA_KEY.public_key(), declared={"alg": "RS256"}, algorithms=["RS256", "PS256"])
    assert asyncio.run(verifier(_signed(RSA_KEY, "PS256"))) is None
    assert asyncio.run(verifier(_signed(RSA_KEY, "RS256"))) is not None
    undeclared = _verifier(RSA_KEY.public_key(), algorithms=["RS256", "PS256", "ES256"])
    assert asyncio.run(undeclared(_signed(RSA_KEY, "PS256"))) is not None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_an_expired_access_token_the_verifier_returns_is_refused() -> None:
    async def verify(token: str) -> AccessToken | None:
        return AccessToken(token, frozenset({"mcp:read"}), "c", "alice", expires_at=time.time() - 3600)

    server = ResourceServer(verify, ["https://as.com"], required_scopes=["mcp:read"])
    with pytest.raises(Refused) as expired:
        _admit(server, "Bearer t", "tools/list")
    assert expired.value.status == 401 and 'error="invalid_token"' in _challenge(expired.value)
    assert "expired" in expired.value.body["error_description"]


def test_clients_on_their_own_behalf_use_their_grant_with_the_resource_and_scopes() -> None:
    async def workload_token() -> str:
        return "workload.jwt"

    credentials = [PreRegistered("svc", "secret", issuer="https://as.com")]
    for authorization, grant in (
        (ClientCredentials(credentials), "client_credentials"),
        (JwtBearer(workload_token, credentials), "urn:ietf:params:oauth:grant-type:jwt-bearer"),
    ):
        servers = ScriptedServers(refresh=False)
        assert _calls(servers, authorization, [b"read", b"write"]) == [200, 200]
        first, second = servers.forms
        assert (first["grant_type"], first["scope"], first["resource"]) == (grant, "mcp:read", "https://mcp.com/mcp")
        assert second["scope"] == "mcp:read mcp:write" and not servers.authorizations
        assert first.get("assertion") == ("workload.jwt" if "jwt" in grant else None)


def test_a_token_speaks_for_its_issuer_subject_and_client() -> None:
    alice = AccessToken("t1", client_id="c", subject="alice", claims={"iss": "https://as.com"})
    assert alice.principal == AccessToken("t2", client_id="c", subject="alice", issuer="https://as.com").principal
    assert alice.principal != AccessToken("t1", client_id="c", subject="alice", claims={"iss": "https://evil.com"}).principal
    assert alice.principal != AccessToken("t1", client_id="d", subject="alice", claims={"iss": "https://as.com"}).principal
    nobody = AccessToken("t1", client_id="c")
    assert nobody.principal == AccessToken("t1", client_id="c").principal != AccessToken("t2", client_id="c").principal


FORGED_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    header=st.dictionaries(st.sampled_from(["alg", "typ", "kid", "jwk", "crit", "b64"]), FORGED_JSON, max_size=4),
    claims=FORGED_JSON,
    signature=st.binary(max_size=300),
)
def test_any_forged_jwt_is_refused_never_raised(header: dict[str, Any], claims: Any, signature: bytes) -> None:
    verifier = _verifier(RSA_KEY.public_key(), algorithms=["RS256", "PS256", "HS256", "ES256", "none"])
    token = ".".join([_b64(json.dumps(header).encode()), _b64(json.dumps(claims).encode()), _b64(signature)])
    assert asyncio.run(verifier(token)) is None


def _raw_proof(key: Any, claims: str) -> str:
    """A DPoP proof signed with `key` whose claims are the JSON text `claims` as it is (NaN included)."""
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    header = json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": public})
    signing = f"{_b64(header.encode())}.{_b64(claims.encode())}"
    return f"{signing}.{_b64(jwt.get_algorithm_by_name('ES256').sign(signing.encode(), key))}"


@pytest.mark.parametrize(
    "iat", ["NaN", "Infinity", "-Infinity", "true", '"1700000000"', str(10**400)], ids=["nan", "inf", "-inf", "true", "text", "huge"]
)
def test_a_dpop_proof_whose_iat_is_not_a_finite_number_is_refused(iat: str) -> None:
    """PyJWT reads `NaN` and a 400-digit integer: neither may pass for a time within the window."""
    key = ec.generate_private_key(ec.SECP256R1())
    jkt = thumbprint(json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key())))
    checker, url = DPoP(window=60), "https://mcp.com/mcp"

    def proof(jti: str, iat: str) -> str:
        claims = {"jti": jti, "htm": "POST", "htu": url, "ath": token_hash("t")}
        return _raw_proof(key, json.dumps(claims)[:-1] + f', "iat": {iat}}}')

    checker.check([proof("now", str(int(time.time())))], "POST", url, "t", jkt)
    with pytest.raises(ProofError, match="too old or from the future"):
        checker.check([proof("odd", iat)], "POST", url, "t", jkt)
