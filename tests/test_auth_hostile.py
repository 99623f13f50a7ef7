"""The authorization client against hostile servers (issue 30, items 1-6): an MCP server and
authorization servers (authlib's, `authserver.py`) that try to show the user a `javascript:` URL, send
the client into a private network or to a cloud metadata service, take secrets in cleartext, collect
credentials registered with another authorization server, exhaust the client with endless documents,
or hand it a token type it cannot use. Real loopback sockets where the socket matters (the canary);
public host names, which no resolver here knows, reach loopback servers through a transport mounted in
the client's `httpx.AsyncClient` (as a line of /etc/hosts would), and every other destination is a
recorder that must stay untouched."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
import time
import tracemalloc
from typing import Any, Iterator

import httpx
import pytest

from authserver import Authority, authorization_server
from hostile import HostileMcp, Recorder, Resolved
from httpserve import serve
from mcpgen.runtime.auth.destinations import Destinations, destinations
from mcpgen.runtime.auth.pinned import pinned_client
from mcpgen.runtime.auth import (
    AuthorizationError,
    ClientCredentials,
    ClientMetadata,
    JwtBearer,
    OAuth,
    PreRegistered,
)

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
ALICE = PreRegistered("svc", "s3cret", issuer=None)


def _post(authorization: Any, url: str, network: dict[str, Any] | None = None) -> httpx.Response:
    """One request to the MCP server at `url` with `authorization`. `network` mounts in-process apps
    (or transports) by URL prefix in the client, authorization traffic included; anything else goes to
    real sockets."""

    async def run() -> httpx.Response:
        mounts = {
            prefix: app if isinstance(app, httpx.AsyncBaseTransport) else httpx.ASGITransport(app)
            for prefix, app in (network or {}).items()
        }
        async with httpx.AsyncClient(mounts=mounts, timeout=10) as http:
            authorization.http = http
            return await http.post(url, json=PING, auth=authorization.httpx_auth())

    return asyncio.run(run())


@contextlib.contextmanager
def public_mcp(mcp: HostileMcp) -> Iterator[dict[str, Any]]:
    """`mcp` served on loopback and known as https://mcp.example: the network entry reaching it."""
    mcp.origin = "https://mcp.example"
    with serve(mcp) as served:
        yield {mcp.origin: Resolved(served.url.removesuffix("/mcp"))}


class Consent:
    """A consent step that records the authorization URL it is shown and goes no further."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    async def __call__(self, url: str) -> str:
        self.shown.append(url)
        raise RuntimeError("the user was shown the authorization URL")


def _oauth(consent: Any, **options: Any) -> OAuth:
    return OAuth(consent, ClientMetadata("http://127.0.0.1:1/callback", "hostile tests"), **options)


# --- 1. the consent step sees only https (or loopback http) authorization URLs -----------------------


@pytest.mark.parametrize(
    "endpoint",
    [
        "javascript:alert(document.domain)//",
        "file:///C:/Windows/System32/calc.exe",
        "data:text/html,<script>alert(1)</script>",
        "http://as.example/authorize",
    ],
)
def test_an_authorization_endpoint_that_is_not_https_never_reaches_the_consent_step(endpoint: str) -> None:
    consent = Consent()
    with authorization_server(overrides={"authorization_endpoint": endpoint}) as authority:
        with serve(HostileMcp([authority.issuer])) as mcp:
            with pytest.raises(AuthorizationError, match="authorization endpoint .* neither https"):
                _post(_oauth(consent), mcp.url)
    assert consent.shown == []
    assert authority.received("/register"), "discovery and registration ran: the refusal is the endpoint's"


# --- 2. no internal destination for a public MCP server, and never a metadata address ---------------


def test_a_public_mcp_server_cannot_send_the_client_to_a_loopback_canary() -> None:
    canary = Recorder()
    with serve(canary) as listening:
        admin = listening.url.removesuffix("/mcp") + "/internal/admin"
        with public_mcp(HostileMcp(["https://as.example"], hint=admin)) as network:
            with pytest.raises(AuthorizationError) as refused:
                _post(ClientCredentials([ALICE]), "https://mcp.example/mcp", network)
    assert canary.seen == []
    assert "internal address 127.0.0.1" in str(refused.value)


@pytest.mark.parametrize(
    "hint",
    [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://127.0.0.1:6379/",
        "http://10.0.0.7/admin",
        "https://10.0.0.7/admin",
        "https://[::ffff:10.0.0.7]/admin",
        "https://localhost/admin",
    ],
)
def test_internal_metadata_urls_named_by_a_public_server_are_never_fetched(hint: str) -> None:
    elsewhere = Recorder()
    with public_mcp(HostileMcp(["https://as.example"], hint=hint)) as network:
        with pytest.raises(AuthorizationError) as refused:
            _post(ClientCredentials([ALICE]), "https://mcp.example/mcp", {**network, "all://": elsewhere})
    assert elsewhere.seen == []
    assert str(refused.value).endswith("refused") or ": refused (" in str(refused.value)


@pytest.mark.parametrize("endpoint", ["token_endpoint", "registration_endpoint"])
def test_internal_endpoints_in_a_public_authorization_server_s_metadata_get_nothing(endpoint: str) -> None:
    elsewhere = Recorder()
    overrides = {endpoint: "https://10.0.0.7:8080/x"}
    with authorization_server(issuer="https://as.example", overrides=overrides) as authority:
        authority.register("svc", "s3cret", ["client_credentials"])
        with public_mcp(HostileMcp([authority.issuer])) as network:
            network |= {authority.issuer: Resolved(authority.local), "all://": elsewhere}
            authorization = ClientCredentials([ALICE]) if endpoint == "token_endpoint" else _oauth(Consent())
            with pytest.raises(AuthorizationError) as refused:
                _post(authorization, "https://mcp.example/mcp", network)
    assert elsewhere.seen == []
    assert "internal address 10.0.0.7" in str(refused.value)


@pytest.mark.parametrize(
    "metadata",
    [
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:169.254.169.254]/latest/meta-data/",
        "https://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
        "https://[fd00:ec2::254]/latest/meta-data/",
        "https://2852039166/latest/meta-data/",
        "https://100.100.100.200/latest/meta-data/",
    ],
)
def test_the_cloud_metadata_address_is_refused_even_where_private_networks_are_allowed(metadata: str) -> None:
    """An MCP server on loopback may send its client to private addresses (local development), never to
    a cloud metadata service; nor may one the application allows private networks for."""
    elsewhere = Recorder()
    with serve(HostileMcp(["http://127.0.0.1:1"], hint=metadata)) as mcp:
        network = {mcp.url.removesuffix("/mcp"): httpx.AsyncHTTPTransport(), "all://": elsewhere}
        with pytest.raises(AuthorizationError) as refused:
            _post(ClientCredentials([ALICE]), mcp.url, network)
        assert elsewhere.seen == []
        assert "cloud metadata address" in str(refused.value)
    with public_mcp(HostileMcp(["https://as.example"], hint=metadata)) as network:
        allowed = ClientCredentials([ALICE], allow_private_network=True)
        with pytest.raises(AuthorizationError, match="cloud metadata address"):
            _post(allowed, "https://mcp.example/mcp", {**network, "all://": elsewhere})
    assert elsewhere.seen == []


def test_allow_private_network_lets_a_public_server_use_a_private_authorization_server() -> None:
    with authorization_server() as authority:
        authority.register("svc", "s3cret", ["client_credentials"])
        credentials = [PreRegistered("svc", "s3cret", issuer=authority.issuer)]
        with public_mcp(HostileMcp([authority.issuer])) as network:
            with pytest.raises(AuthorizationError, match="internal address 127.0.0.1"):
                _post(ClientCredentials(credentials), "https://mcp.example/mcp", network)
            allowed = ClientCredentials(credentials, allow_private_network=True)
            answer = _post(allowed, "https://mcp.example/mcp", network)
    assert answer.status_code == 200 and authority.grants["client_credentials"] == 1


def _resolving(monkeypatch: pytest.MonkeyPatch, name: str, addresses: list[str]) -> None:
    """The resolver answers every one of `addresses` for `name` (its owner's DNS)."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if (host.decode() if isinstance(host, bytes) else host) != name:
            return real(host, port, *args, **kwargs)
        return [info for address in addresses for info in real(address, port, *args, **kwargs)]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("internal", ["127.0.0.1", "10.0.0.7"])
def test_a_public_mcp_server_whose_name_also_resolves_internally_opens_no_private_network(
    monkeypatch: pytest.MonkeyPatch, internal: str
) -> None:
    """The owner of a public MCP server adds an internal address to what its name resolves to: the
    client must not take it for a server on a private network and follow it to a loopback canary."""
    _resolving(monkeypatch, "mcp.example", ["93.184.216.34", internal])
    canary = Recorder()
    with serve(canary) as listening:
        admin = listening.url.removesuffix("/mcp") + "/internal/admin"
        with public_mcp(HostileMcp(["https://as.example"], hint=admin)) as network:
            with pytest.raises(AuthorizationError, match="internal address 127.0.0.1"):
                _post(ClientCredentials([ALICE]), "https://mcp.example/mcp", network)
    assert canary.seen == []


def test_only_an_internal_ip_literal_or_localhost_in_the_server_url_allows_internal_addresses() -> None:
    named = {
        "http://localhost:8000/mcp": True,
        "http://127.0.0.1:8000/mcp": True,
        "https://10.1.2.3/mcp": True,
        "https://[::ffff:192.168.0.1]/mcp": True,
        "https://93.184.216.34/mcp": False,
        "https://mcp.example/mcp": False,
    }
    assert {url: destinations(url, False).private for url in named} == named
    assert destinations("https://mcp.example/mcp", True).private


# --- 2b. addresses checked again when the connection is made (DNS rebinding) ------------------------


class Canary:
    """A real TCP listener on loopback that counts the connections it is offered."""

    def __init__(self) -> None:
        self.connections = 0

    async def __aenter__(self) -> int:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            writer.close()

        self.server = await asyncio.start_server(accepted, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        await self.server.wait_closed()


def _rebinding(monkeypatch: pytest.MonkeyPatch, name: str, first: str, then: str) -> None:
    """The resolver answers `first` for `name` once, then `then` (an attacker's DNS with a zero TTL)."""
    real = socket.getaddrinfo
    answers = [first]

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if (host.decode() if isinstance(host, bytes) else host) != name:
            return real(host, port, *args, **kwargs)
        address = answers.pop() if answers else then
        return real(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(("then", "private"), [("127.0.0.1", False), ("169.254.169.254", True)])
def test_a_name_that_rebinds_after_the_check_is_refused_when_the_connection_is_made(
    monkeypatch: pytest.MonkeyPatch, then: str, private: bool
) -> None:
    async def run() -> tuple[int, int]:
        async with canary as port:
            url = f"https://as.example:{port}/token"
            allowed = Destinations("https://mcp.example", private)
            _rebinding(monkeypatch, "as.example", "93.184.216.34", then)
            await allowed.check(url, "the token endpoint")
            if then == "127.0.0.1":
                async with httpx.AsyncClient() as plain:
                    with pytest.raises(httpx.HTTPError):
                        await plain.post(url, data={"client_secret": "s3cret"})
            reached_unpinned = canary.connections
            async with pinned_client(allowed, 5) as http:
                with pytest.raises(AuthorizationError, match="refused"):
                    await http.post(url, data={"client_secret": "s3cret"})
            return reached_unpinned, canary.connections - reached_unpinned

    canary = Canary()
    unpinned, pinned = asyncio.run(run())
    assert pinned == 0, "the pinned client connected to the rebound address"
    if then == "127.0.0.1":
        assert unpinned == 1, "the control: an unpinned client does reach the rebound address"


def test_connections_to_the_mcp_server_s_own_host_and_allowed_addresses_go_through() -> None:
    async def run() -> list[int]:
        statuses = []
        with serve(Recorder()) as listening:
            for origin, private in [(listening.url.removesuffix("/mcp"), False), ("https://mcp.example", True)]:
                async with pinned_client(Destinations(origin, private), 5) as http:
                    statuses.append((await http.get(listening.url)).status_code)
        return statuses

    assert asyncio.run(run()) == [404, 404]


# --- 3. authorization servers over https only (loopback excepted) --------------------------------------


@pytest.mark.parametrize("cleartext", ["issuer", "token_endpoint"])
def test_a_cleartext_authorization_server_off_loopback_gets_no_secret(cleartext: str) -> None:
    issuer = "http://as.example" if cleartext == "issuer" else "https://as.example"
    overrides = {"token_endpoint": "http://as.example/token"} if cleartext == "token_endpoint" else {}
    with authorization_server(issuer=issuer, overrides=overrides) as authority:
        authority.register("svc", "s3cret", ["client_credentials"])
        with public_mcp(HostileMcp([issuer])) as network:
            network |= {"all://as.example": Resolved(authority.local)}
            credentials = [PreRegistered("svc", "s3cret", issuer=issuer)]
            with pytest.raises(AuthorizationError) as refused:
                _post(ClientCredentials(credentials), "https://mcp.example/mcp", network)
    assert not authority.received("/token")
    assert not [r for r in authority.requests if "s3cret" in str(r)]
    assert "neither https nor on a loopback address" in str(refused.value)


# --- 4. credentials go to their issuer only (mix-up) -----------------------------------------------


def _mix_up(authorization: Any, good: Authority, evil: Authority, mcp: HostileMcp, url: str) -> None:
    """Authorize with `good`, then have the MCP server name `evil` and refuse every token."""
    assert _post(authorization, url).status_code == 200
    mcp.authorization_servers, mcp.accepted = [evil.issuer], set()
    with pytest.raises(AuthorizationError):
        _post(authorization, url)


def test_credentials_without_an_issuer_are_bound_to_the_first_and_never_reach_another(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with authorization_server() as good, authorization_server() as evil:
        good.register("svc", "s3cret", ["client_credentials"])
        mcp = HostileMcp([good.issuer])
        with serve(mcp) as served, caplog.at_level(logging.WARNING):
            _mix_up(ClientCredentials([ALICE]), good, evil, mcp, served.url)
    assert good.grants["client_credentials"] == 1
    assert not evil.received("/token"), "the secret registered with the first issuer went to another"
    warnings = [r.getMessage() for r in caplog.records if "name no issuer" in r.getMessage()]
    assert len(warnings) == 1 and good.issuer in warnings[0]


def test_credentials_with_an_issuer_and_workload_assertions_never_reach_another() -> None:
    sent: list[str] = []

    async def workload() -> str:
        sent.append("assertion")
        return "workload.identity.jwt"

    with authorization_server() as good, authorization_server() as evil:
        mcp = HostileMcp([evil.issuer])
        with serve(mcp) as served:
            bound = [PreRegistered("svc", "s3cret", issuer=good.issuer)]
            for authorization in (ClientCredentials(bound), JwtBearer(workload, bound)):
                with pytest.raises(AuthorizationError, match="no registration"):
                    _post(authorization, served.url)
    assert not evil.received("/token") and sent == []


# --- 5. discovery documents bounded in size and in time ----------------------------------------------


def test_an_oversized_discovery_document_is_refused_without_being_read() -> None:
    mcp = HostileMcp(["http://127.0.0.1:1"], padding=64 << 20)
    with serve(mcp) as served:
        tracemalloc.start()
        try:
            with pytest.raises(AuthorizationError) as refused:
                _post(ClientCredentials([ALICE]), served.url)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes allocated reading a 64 MiB document"
    assert "over 1048576 bytes" in str(refused.value)


def test_a_dripping_discovery_document_is_bounded_in_total_time() -> None:
    mcp = HostileMcp(["http://127.0.0.1:1"], padding=100, drip=0.25)
    with serve(mcp) as served:
        start = time.monotonic()
        with pytest.raises(AuthorizationError, match="took over 2 s"):
            _post(ClientCredentials([ALICE], timeout=2.0), served.url)
        elapsed = time.monotonic() - start
    assert elapsed < 6, f"{elapsed:.1f} s: a byte every 0.25 s kept the client waiting"


# --- 6. client metadata URLs, token types, tokens per query -------------------------------------------


@pytest.mark.parametrize(
    "url", ["http://client.example/metadata.json", "https://client.example", "https://client.example/", "file:///m.json"]
)
def test_a_client_metadata_document_url_must_be_https_with_a_path(url: str) -> None:
    with pytest.raises(ValueError, match="https with a path"):
        _oauth(Consent(), client_metadata_url=url)
    assert _oauth(Consent(), client_metadata_url="https://client.example/metadata.json").client_metadata_url


@pytest.mark.parametrize("kind", ["DPoP", "mac", "N_A"])
def test_a_token_of_a_type_the_client_did_not_ask_for_is_never_presented(kind: str) -> None:
    with authorization_server(token_type=kind) as authority:
        authority.register("svc", "s3cret", ["client_credentials"])
        mcp = HostileMcp([authority.issuer])
        with serve(mcp) as served:
            credentials = [PreRegistered("svc", "s3cret", issuer=authority.issuer)]
            with pytest.raises(AuthorizationError, match="issued a"):
                _post(ClientCredentials(credentials), served.url)
    assert authority.grants["client_credentials"] == 1
    assert not [s for s in mcp.seen if "authorization" in s.headers]


def test_tokens_are_kept_per_server_url_query_included() -> None:
    with authorization_server() as authority:
        authority.register("svc", "s3cret", ["client_credentials"])
        mcp = HostileMcp([authority.issuer])
        with serve(mcp) as served:
            authorization = ClientCredentials([PreRegistered("svc", "s3cret", issuer=authority.issuer)])
            for tenant in ("a", "b", "a", "b"):
                assert _post(authorization, f"{served.url}?tenant={tenant}").status_code == 200
    presented: dict[str, set[str]] = {"tenant=a": set(), "tenant=b": set()}
    for seen in mcp.seen:
        if seen.path == "/mcp" and "authorization" in seen.headers:
            presented[seen.query].add(seen.headers["authorization"])
    assert presented["tenant=a"] and presented["tenant=b"]
    assert not presented["tenant=a"] & presented["tenant=b"], "one tenant's token went to the other"
    assert authority.grants["client_credentials"] == 2
    resources = [r.form["resource"] for r in authority.received("/token")]
    assert [r.rsplit("?", 1)[1] for r in resources] == ["tenant=a", "tenant=b"]


class _TokenEndpoint:
    """A token endpoint (under uvicorn) that answers every request with `answer`, counting them."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(self.answer).encode()})


@pytest.mark.parametrize("token", ["T\r\nX-Injected: 1", "T\u2603", "two words"], ids=["crlf", "non-ascii", "space"])
def test_an_access_token_that_cannot_go_in_a_header_is_refused_when_it_is_issued(token: str) -> None:
    endpoint = _TokenEndpoint({"access_token": token, "token_type": "Bearer"})
    with serve(endpoint) as listening, authorization_server(overrides={"token_endpoint": listening.url}) as authority:
        mcp = HostileMcp([authority.issuer])
        with serve(mcp) as served:
            credentials = [PreRegistered("svc", "s3cret", issuer=authority.issuer)]
            with pytest.raises(AuthorizationError, match="issued an access token that cannot go in a header"):
                _post(ClientCredentials(credentials), served.url)
    assert endpoint.requests == 1
    assert not [s for s in mcp.seen if "authorization" in s.headers]


@pytest.mark.parametrize("endpoint", ["token_endpoint", "registration_endpoint"])
def test_an_endpoint_that_cannot_be_reached_is_an_authorization_error_naming_it(endpoint: str) -> None:
    closed = f"http://127.0.0.1:1/{endpoint}"
    with authorization_server(overrides={endpoint: closed}) as authority:
        with serve(HostileMcp([authority.issuer])) as mcp:
            credentials = [PreRegistered("svc", "s3cret", issuer=authority.issuer)]
            authorization = ClientCredentials(credentials) if endpoint == "token_endpoint" else _oauth(Consent())
            what = endpoint.replace("_", " ")
            with pytest.raises(AuthorizationError, match=re.escape(f"the {what} '{closed}' could not be reached: ")):
                _post(authorization, mcp.url)
