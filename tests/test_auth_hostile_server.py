"""The resource server against hostile requests and tokens (issue 30, items 7-12, and DPoP): a generated
server protected by `ResourceServer`, under uvicorn on loopback, sent what an attacker sends: a bad token
with a body the server should never read, a token its verifier says expired, a forged Host, a session id
with a token of another issuer, a stolen DPoP-bound token or a replayed proof; mounted under a prefix,
its metadata is where RFC 9728 says and mcpgen's client finds it. DPoP end to end: a real authorization
server (authlib's, binding its tokens to the proof's key) and the generated client."""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from authserver import authorization_server
from docpages import page, run_by
from http_fixtures import Probe, initialize_message, post_headers, stateless_message, tool_server
from httpserve import serve

V25, V26 = "2025-11-25", "2026-07-28"
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def _modules(packages: dict[str, ModuleType], revision: str) -> tuple[ModuleType, ModuleType, ModuleType]:
    package = packages[revision]
    http = importlib.import_module(f"{package.__name__}.http")
    auth = importlib.import_module(f"{package.__name__}.auth")
    return package, http, auth


def _tokens(auth: ModuleType, tokens: dict[str, Any]) -> Any:
    """A verifier admitting the tokens of `tokens` (token → AccessToken keyword arguments), and counting calls."""

    async def verify(token: str) -> Any:
        verify.calls += 1  # type: ignore[attr-defined]
        found = tokens.get(token)
        return None if found is None else auth.AccessToken(token, frozenset({"mcp:read"}), **found)

    verify.calls = 0  # type: ignore[attr-defined]
    return verify


def _protected(packages: dict[str, ModuleType], revision: str, tokens: dict[str, Any], **options: Any) -> Any:
    package, http, auth = _modules(packages, revision)
    guard = auth.ResourceServer(_tokens(auth, tokens), ["https://as.example"], required_scopes=["mcp:read"])
    return http.streamable_http_app(tool_server(package, Probe()), auth=guard, **options)


GOOD = {"good": {"subject": "alice", "client_id": "c", "claims": {"iss": "https://as.example"}}}


# --- 8. the token is checked before the body is read -----------------------------------------------


@pytest.mark.parametrize("authorization", [None, "Bearer forged", "Basic dXNlcjpwYXNz", "DPoP forged"])
@pytest.mark.parametrize(
    ("content_type", "body"),
    [("application/json", b"{not json"), ("text/plain", PING), ("application/json", b" " * (5 << 20))],
    ids=["bad-json", "text-plain", "5-mib"],
)
def test_a_request_without_a_valid_token_gets_401_whatever_its_body(
    packages: dict[str, ModuleType], authorization: str | None, content_type: str, body: bytes
) -> None:
    app = _protected(packages, V25, GOOD)
    headers = post_headers(V25, content_type=content_type) | ({"authorization": authorization} if authorization else {})
    with serve(app) as served, httpx.Client() as client:
        answer = client.post(served.url, content=body, headers=headers)
        with_token = client.post(served.url, content=body, headers={**headers, "authorization": "Bearer good"})
    assert answer.status_code == 401 and "www-authenticate" in answer.headers
    assert with_token.status_code in (400, 413, 415), "once the token is good, the body is judged"


# --- 9. an expired token is refused even when the verifier returns it ------------------------------


def test_an_expired_token_the_verifier_returns_is_refused_over_http(packages: dict[str, ModuleType]) -> None:
    tokens = {**GOOD, "stale": {"subject": "alice", "client_id": "c", "expires_at": time.time() - 3600}}
    app = _protected(packages, V26, tokens)
    message = stateless_message("tools/list", {}, V26)
    headers = post_headers(V26, mcp_method="tools/list")
    with serve(app) as served, httpx.Client() as client:
        stale = client.post(served.url, json=message, headers={**headers, "authorization": "Bearer stale"})
        fresh = client.post(served.url, json=message, headers={**headers, "authorization": "Bearer good"})
    assert stale.status_code == 401 and 'error="invalid_token"' in stale.headers["www-authenticate"]
    assert fresh.status_code == 200


# --- 10. the metadata is behind the Host and Origin guard ------------------------------------------


@pytest.mark.parametrize("forged", [{"host": "evil.example"}, {"origin": "https://evil.example"}])
def test_the_metadata_is_refused_to_a_forged_host_or_origin_and_never_reflects_one(
    packages: dict[str, ModuleType], forged: dict[str, str]
) -> None:
    app = _protected(packages, V25, GOOD)
    with serve(app) as served, httpx.Client() as client:
        base = served.url.removesuffix("/mcp")
        metadata = client.get(f"{base}/.well-known/oauth-protected-resource/mcp", headers=forged)
        endpoint = client.post(served.url, content=PING, headers={**post_headers(V25), **forged})
        honest = client.get(f"{base}/.well-known/oauth-protected-resource/mcp")
    assert endpoint.status_code == 403
    assert metadata.status_code == 403 and "evil.example" not in metadata.text
    assert honest.status_code == 200 and honest.json()["resource"] == served.url


def test_a_listed_host_names_itself_in_the_metadata(packages: dict[str, ModuleType]) -> None:
    app = _protected(packages, V25, GOOD, allowed_hosts=["mcp.example.com"])
    with serve(app) as served, httpx.Client() as client:
        base = served.url.removesuffix("/mcp")
        listed = client.get(f"{base}/.well-known/oauth-protected-resource/mcp", headers={"host": "mcp.example.com"})
        unlisted = client.get(f"{base}/.well-known/oauth-protected-resource/mcp", headers={"host": "evil.example"})
    assert listed.json()["resource"] == "http://mcp.example.com/mcp"
    assert unlisted.status_code == 403


# --- 11. mounted under a prefix, the metadata is where RFC 9728 §3.1 puts it --------------------------


def test_a_server_mounted_under_a_prefix_is_authorized_by_the_generated_client(packages: dict[str, ModuleType]) -> None:
    """Starlette mounts the app at /api and routes the root metadata path to it; mcpgen's client, with a
    real authorization server, follows the challenge there and is authorized."""
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    package, http, auth = _modules(packages, V25)
    late = _Late()
    with authorization_server() as authority, serve(late) as served:
        base = served.url.removesuffix("/mcp")
        resource = f"{base}/api/mcp"
        authority.audience = resource
        verifier = auth.JwtVerifier(authority.issuer, resource, jwks_uri=f"{authority.issuer}/jwks")
        guard = auth.ResourceServer(verifier, [authority.issuer], required_scopes=["mcp:read"], resource=resource)
        mcp = http.streamable_http_app(tool_server(package, Probe()), auth=guard)
        late.inner = Starlette(routes=[Route(guard.metadata_path("/api/mcp"), mcp), Mount("/api", mcp)])
        with httpx.Client() as plain:
            refused = plain.post(resource, content=PING, headers=post_headers(V25))
            metadata = plain.get(f"{base}/.well-known/oauth-protected-resource/api/mcp")

        async def session() -> str:
            client = package.Client()
            oauth = auth.OAuth(_headless, auth.ClientMetadata("http://127.0.0.1:1/cb", "mounted"))
            async with http.connect_http(client, resource, auth=oauth):
                await client.start_session()
                return str((await client.call_tool({"name": "echo", "arguments": {"text": "hi"}})).content[0].text)

        echoed = asyncio.run(session())
    challenge = f'resource_metadata="{base}/.well-known/oauth-protected-resource/api/mcp"'
    assert refused.status_code == 401 and challenge in refused.headers["www-authenticate"]
    assert metadata.status_code == 200 and metadata.json()["resource"] == resource
    assert echoed == '{"text": "hi"}' and authority.grants["authorization_code"] == 1


def test_without_resource_the_mounted_app_names_the_rfc_9728_location(packages: dict[str, ModuleType]) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    app = Starlette(routes=[Mount("/api", _protected(packages, V25, GOOD))])
    with serve(app) as served, httpx.Client() as client:
        base = served.url.removesuffix("/mcp")
        refused = client.post(f"{base}/api/mcp", content=PING, headers=post_headers(V25))
        inside = client.get(f"{base}/api/.well-known/oauth-protected-resource/mcp")
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/api/mcp"' in refused.headers["www-authenticate"]
    assert inside.json()["resource"] == f"{base}/api/mcp"


def test_the_documented_mount_serves_its_metadata_at_the_root(packages: dict[str, ModuleType]) -> None:
    (block,) = run_by("tests/test_auth_hostile_server.py", page("authorization.md"))
    namespace: dict[str, Any] = {}
    exec(compile(block, "docs/authorization.md mount", "exec"), namespace)
    host = {"host": "notes.example.com"}
    with serve(namespace["app"]) as served, httpx.Client() as client:
        base = served.url.removesuffix("/mcp")
        metadata = client.get(f"{base}/.well-known/oauth-protected-resource/api/mcp", headers=host)
        refused = client.post(f"{base}/api/mcp", content=PING, headers={**post_headers(V25), **host})
        admitted = client.post(
            f"{base}/api/mcp",
            json=initialize_message(V25),
            headers={**post_headers(V25), **host, "authorization": "Bearer let-me-in"},
        )
    assert metadata.json()["resource"] == "https://notes.example.com/api/mcp"
    expected = 'resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/api/mcp"'
    assert refused.status_code == 401 and expected in refused.headers["www-authenticate"]
    assert admitted.status_code == 200


class _Late:
    """An ASGI app whose inner app is set once the server's port (hence its URL) is known."""

    inner: Any = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await self.inner(scope, receive, send)


async def _headless(authorization_url: str) -> str:
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(authorization_url)
    return answer.headers["location"]


# --- 12. a session belongs to its token's issuer, subject and client ---------------------------------


def test_a_session_is_continued_only_by_its_issuer_subject_and_client(packages: dict[str, ModuleType]) -> None:
    tokens = {
        "alice-at-a": {"subject": "alice", "client_id": "c", "claims": {"iss": "https://a.example"}},
        "alice-again": {"subject": "alice", "client_id": "c", "issuer": "https://a.example"},
        "alice-at-b": {"subject": "alice", "client_id": "c", "claims": {"iss": "https://b.example"}},
        "anonymous-1": {"client_id": "c"},
        "anonymous-2": {"client_id": "c"},
    }
    app = _protected(packages, V25, tokens)
    with serve(app) as served, httpx.Client() as client:

        def open_session(token: str) -> str:
            answer = client.post(served.url, json=initialize_message(V25), headers={**post_headers(V25), "authorization": f"Bearer {token}"})
            return str(answer.headers["mcp-session-id"])

        def ping(session: str, token: str) -> int:
            headers = {**post_headers(V25, session), "authorization": f"Bearer {token}"}
            return client.post(served.url, content=PING, headers=headers).status_code

        alice = open_session("alice-at-a")
        anonymous = open_session("anonymous-1")
        statuses = {
            "same issuer, subject and client": ping(alice, "alice-again"),
            "same subject and client, another issuer": ping(alice, "alice-at-b"),
            "the token that opened it": ping(anonymous, "anonymous-1"),
            "another token naming no subject": ping(anonymous, "anonymous-2"),
        }
    assert statuses == {
        "same issuer, subject and client": 200,
        "same subject and client, another issuer": 404,
        "the token that opened it": 200,
        "another token naming no subject": 404,
    }


# --- DPoP, both sides ----------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", [V25, V26])
def test_dpop_bound_tokens_end_to_end_and_what_a_thief_can_do_with_one(
    packages: dict[str, ModuleType], revision: str
) -> None:
    package, http, auth = _modules(packages, revision)
    late = _Late()
    with authorization_server(dpop=True) as authority, serve(late) as served:
        authority.audience = served.url
        verifier = auth.JwtVerifier(authority.issuer, served.url, jwks_uri=f"{authority.issuer}/jwks")
        guard = auth.ResourceServer(verifier, [authority.issuer], required_scopes=["mcp:read"], dpop=auth.DPoP(nonce=True))
        late.inner = http.streamable_http_app(tool_server(package, Probe()), auth=guard)
        store = auth.MemoryTokenStore()
        sent: list[httpx.Request] = []

        async def record(request: httpx.Request) -> None:
            sent.append(request)

        async def session() -> str:
            client = package.Client()
            oauth = auth.OAuth(_headless, auth.ClientMetadata("http://127.0.0.1:1/cb", "dpop"), store=store)
            async with httpx.AsyncClient(auth=oauth.httpx_auth(), event_hooks={"request": [record]}) as own:
                oauth.http = httpx.AsyncClient()
                async with http.connect_http(client, served.url, http=own):
                    await client.start_session()
                    answer = await client.call_tool({"name": "echo", "arguments": {"text": "bound"}})
                    return str(answer.content[0].text)

        echoed = asyncio.run(session())
        tokens = asyncio.run(store.get_tokens(served.url))
        assert tokens is not None and tokens.token_type == "DPoP" and tokens.dpop_key
        last = next(r for r in reversed(sent) if r.method == "POST" and "dpop" in r.headers)
        with httpx.Client() as thief:
            as_bearer = thief.post(served.url, content=last.content, headers={**last.headers, "authorization": f"Bearer {tokens.access_token}"})
            replayed = thief.post(served.url, content=last.content, headers=dict(last.headers))
    token_requests = authority.received("/token")
    assert echoed == '{"text": "bound"}'
    assert token_requests and all("dpop" in {k.lower() for k in r.headers} for r in token_requests)
    assert all(r.headers["authorization"].startswith("DPoP ") for r in sent if "authorization" in r.headers)
    assert as_bearer.status_code == 401 and "bound to a key" in as_bearer.text
    assert replayed.status_code == 401 and "used before" in replayed.text


def test_the_nonces_of_both_servers_are_taken_up(packages: dict[str, ModuleType]) -> None:
    """The authorization server wants a nonce in token requests (RFC 9449 §8), the MCP server in every
    request, and its nonces last 2 s (§9): the client retries once with each nonce it is given."""
    package, http, auth = _modules(packages, V26)
    late = _Late()
    with authorization_server(dpop=True, dpop_nonce="as-nonce-1") as authority, serve(late) as served:
        authority.audience = served.url
        verifier = auth.JwtVerifier(authority.issuer, served.url, jwks_uri=f"{authority.issuer}/jwks")
        guard = auth.ResourceServer(verifier, [authority.issuer], dpop=auth.DPoP(nonce=True, window=2))
        late.inner = http.streamable_http_app(tool_server(package, Probe()), auth=guard)
        answers: list[httpx.Response] = []

        async def record(response: httpx.Response) -> None:
            answers.append(response)

        async def session() -> list[str]:
            client = package.Client()
            oauth = auth.OAuth(_headless, auth.ClientMetadata("http://127.0.0.1:1/cb", "nonces"))
            async with httpx.AsyncClient(auth=oauth.httpx_auth(), event_hooks={"response": [record]}) as own:
                async with http.connect_http(client, served.url, http=own):
                    await client.start_session()
                    texts = [(await client.call_tool({"name": "echo", "arguments": {"n": 1}})).content[0].text]
                    await asyncio.sleep(2.5)  # the nonce the client holds is stale now
                    texts.append((await client.call_tool({"name": "echo", "arguments": {"n": 2}})).content[0].text)
                    return [str(t) for t in texts]

        texts = asyncio.run(session())
    token_requests = authority.received("/token")
    assert texts == ['{"n": 1}', '{"n": 2}']
    assert len(token_requests) == 2, "one refused for want of the nonce, one with it"
    stale = [a for a in answers if a.status_code == 401 and "use_dpop_nonce" in a.headers.get("www-authenticate", "")]
    assert len(stale) == 1 and stale[0].headers["dpop-nonce"]


# --- JWT access tokens with claims of the wrong type, and bindings the server cannot check ------------

AS_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
AUDIENCE = "https://mcp.example/mcp"


def _jwt_app(packages: dict[str, ModuleType], **options: Any) -> Any:
    """A server guarded by `JwtVerifier` with the key of AS_KEY, for tokens of https://as.example."""
    package, http, auth = _modules(packages, V25)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(AS_KEY.public_key())) | {"kid": "k"}
    verifier = auth.JwtVerifier("https://as.example", AUDIENCE, jwks={"keys": [jwk]})
    guard = auth.ResourceServer(verifier, ["https://as.example"], required_scopes=["mcp:read"], **options)
    return http.streamable_http_app(tool_server(package, Probe()), auth=guard)


def _access_token(**claims: Any) -> str:
    """An access token signed by AS_KEY: valid for AUDIENCE for ten minutes unless `claims` say otherwise."""
    base = {"iss": "https://as.example", "aud": AUDIENCE, "exp": int(time.time()) + 600, "sub": "alice", "scope": "mcp:read", "client_id": "c"}
    return jwt.encode(base | claims, AS_KEY, algorithm="RS256", headers={"kid": "k", "typ": "at+jwt"})


def _answers(app: Any, requests: Callable[[str], dict[str, dict[str, str]]]) -> dict[str, tuple[int, str]]:
    """The status and challenge of an initialize request sent with the extra headers of each of
    `requests(url)`, the server's URL."""
    found = {}
    with serve(app) as served, httpx.Client() as client:
        for name, headers in requests(served.url).items():
            answer = client.post(served.url, json=initialize_message(V25), headers={**post_headers(V25), **headers})
            found[name] = (answer.status_code, answer.headers.get("www-authenticate", ""))
    return found


def test_a_jwt_with_a_claim_of_the_wrong_type_is_refused_with_401_never_a_500(packages: dict[str, ModuleType]) -> None:
    odd = {
        "exp as text": {"exp": "99999999999"},
        "exp beyond a float": {"exp": 10**400},
        "scope a number": {"scope": 5},
        "scope an object": {"scope": {"mcp:read": 1}},
        "scope a list holding a number": {"scope": ["mcp:read", 5]},
        "client_id an object": {"client_id": {"admin": True}},
        "azp a list": {"azp": ["c"]},
    }
    sane = {"scope a string": {}, "scope a list of strings": {"scope": ["mcp:read"]}}
    tokens = {name: {"authorization": f"Bearer {_access_token(**claims)}"} for name, claims in {**odd, **sane}.items()}
    answers = _answers(_jwt_app(packages), lambda url: tokens)
    assert {name: status for name, (status, _) in answers.items()} == {**dict.fromkeys(odd, 401), **dict.fromkeys(sane, 200)}
    assert all('Bearer error="invalid_token"' in answers[name][1] for name in odd)


def test_a_token_bound_in_a_way_the_server_cannot_check_is_never_admitted(packages: dict[str, ModuleType]) -> None:
    """RFC 8705's certificate binding (`x5t#S256`), or a `cnf` that is not an object holding `jkt`
    alone: without the means to check the binding, the server refuses the token, DPoP or not."""
    package, _, auth = _modules(packages, V25)
    dpop = importlib.import_module(f"{package.__name__}.runtime.auth.dpop")
    key = dpop.new_key()
    jkt = dpop.key_thumbprint(key)
    certificate = "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"
    bindings = {"mtls": {"x5t#S256": certificate}, "list": [jkt], "text": jkt, "jkt and mtls": {"jkt": jkt, "x5t#S256": certificate}}
    tokens = {name: _access_token(cnf=cnf) for name, cnf in bindings.items()}

    def presented(url: str, proofs: bool) -> dict[str, dict[str, str]]:
        requests = {f"{name} as bearer": {"authorization": f"Bearer {token}"} for name, token in tokens.items()}
        if proofs:
            for name, token in tokens.items():
                proof = dpop.proof(key, "POST", url, token)
                requests[f"{name} with a proof"] = {"authorization": f"DPoP {token}", "dpop": proof}
        return requests

    for checker in (None, auth.DPoP()):
        answers = _answers(_jwt_app(packages, dpop=checker), lambda url: presented(url, checker is not None))
        assert {name: status for name, (status, _) in answers.items()} == dict.fromkeys(answers, 401), checker
        assert len(answers) == (8 if checker else 4)
    bound, unbound = _access_token(cnf={"jkt": jkt}), _access_token()

    def controls(url: str) -> dict[str, dict[str, str]]:
        proof = dpop.proof(key, "POST", url, bound)
        return {"unbound": {"authorization": f"Bearer {unbound}"}, "jkt": {"authorization": f"DPoP {bound}", "dpop": proof}}

    answers = _answers(_jwt_app(packages, dpop=auth.DPoP()), controls)
    assert {name: status for name, (status, _) in answers.items()} == {"unbound": 200, "jkt": 200}
