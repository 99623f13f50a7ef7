"""Authorization end to end: a generated server protected as an OAuth resource server (JWT access tokens
checked with `JwtVerifier`), a real authorization server (authlib's, `authserver.py`), and a generated
client that registers, is authorized headlessly, refreshes its tokens and steps up its scopes."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any

import httpx
import pytest

from authserver import Authority, authorization_server
from docpages import page, run_by
from httpserve import serve

ERAS = ["2025-11-25", "2026-07-28"]


def _app(package: ModuleType, authority: Authority) -> Any:
    """The package's HTTP app serving `whoami` (mcp:read) and `write` (mcp:write too) to verified callers."""
    http = importlib.import_module(f"{package.__name__}.http")
    auth = importlib.import_module(f"{package.__name__}.auth")
    complete = {"resultType": "complete"} if package.__name__.endswith("2026_07_28") else {}

    class Protected(package.Server):  # type: ignore[misc, name-defined]
        async def on_list_tools(self, params: Any) -> Any:
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("whoami", "write")]
            listing = {"ttlMs": 0, "cacheScope": "private"} if complete else {}
            return package.types.ListToolsResult.model_validate({"tools": tools, **complete, **listing})

        async def on_call_tool(self, params: Any) -> Any:
            token = auth.access_token()
            text = f"{params.name} {token.subject} {' '.join(sorted(token.scopes))}"
            return package.types.CallToolResult.model_validate(
                {"content": [{"type": "text", "text": text}], **complete}
            )

    verifier = auth.JwtVerifier(authority.issuer, "", jwks_uri=f"{authority.issuer}/jwks")

    def scopes_for(method: str, params: Any) -> list[str]:
        return ["mcp:write"] if method == "tools/call" and params.get("name") == "write" else []

    resource = auth.ResourceServer(
        verifier,
        [authority.issuer],
        required_scopes=["mcp:read"],
        scopes_for=scopes_for,
        scopes_supported=["mcp:read", "mcp:write"],
    )
    return http.streamable_http_app(Protected, auth=resource), verifier


class Browser:
    """The user agent of a headless consent: follows the authorization URL to its redirect."""

    def __init__(self) -> None:
        self.visits: list[str] = []

    async def __call__(self, authorization_url: str) -> str:
        self.visits.append(authorization_url)
        async with httpx.AsyncClient() as http:
            answer = await http.get(authorization_url)
        assert answer.status_code == 302, answer.text
        return answer.headers["location"]


@pytest.mark.parametrize("revision", ERAS)
def test_a_generated_client_is_authorized_refreshes_and_steps_up(
    packages: dict[str, ModuleType], revision: str
) -> None:
    package = packages[revision]
    http = importlib.import_module(f"{package.__name__}.http")
    auth = importlib.import_module(f"{package.__name__}.auth")
    with authorization_server(token_lifetime=5) as authority:
        app, verifier = _app(package, authority)
        with serve(app) as served:
            authority.audience = verifier.audience = served.url
            browser = Browser()
            store = auth.MemoryTokenStore()
            oauth = auth.OAuth(
                browser, auth.ClientMetadata("http://127.0.0.1:1/callback", "e2e"), store=store
            )

            async def session() -> list[str]:
                client = package.Client()
                async with http.connect_http(client, served.url, auth=oauth):
                    await client.start_session()
                    await client.list_tools()
                    first = await client.call_tool({"name": "whoami", "arguments": {}})
                    stepped = await client.call_tool({"name": "write", "arguments": {}})
                    refreshed = await client.call_tool({"name": "write", "arguments": {}})
                    return [r.content[0].text for r in (first, stepped, refreshed)]

            first, stepped, refreshed = asyncio.run(session())
            tokens = asyncio.run(store.get_tokens(served.url))

    assert first == "whoami alice mcp:read offline_access"
    assert stepped == refreshed == "write alice mcp:read mcp:write offline_access"
    assert len(browser.visits) == 2, "one consent to start, one to step up"
    assert "scope=mcp%3Aread+offline_access" in browser.visits[0]
    assert "scope=mcp%3Aread+offline_access+mcp%3Awrite" in browser.visits[1]
    assert authority.registrations == 1 and authority.grants["authorization_code"] == 2
    assert authority.grants["refresh_token"] >= 1, "short-lived tokens are refreshed, not re-consented"
    assert tokens is not None and tokens.issuer == authority.issuer and tokens.refresh_token


def test_a_resource_server_refuses_without_and_with_a_bad_token_and_publishes_its_metadata(
    packages: dict[str, ModuleType],
) -> None:
    package = packages["2025-11-25"]
    with authorization_server() as authority:
        app, verifier = _app(package, authority)
        with serve(app) as served:
            verifier.audience = served.url
            base = served.url.removesuffix("/mcp")
            with httpx.Client() as plain:
                metadata = plain.get(f"{base}/.well-known/oauth-protected-resource/mcp").json()
                headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
                body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
                missing = plain.post(served.url, content=body, headers=headers)
                forged = plain.post(served.url, content=body, headers={**headers, "authorization": "Bearer x.y.z"})
    assert metadata == {
        "resource": served.url,
        "authorization_servers": [authority.issuer],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp:read", "mcp:write"],
    }
    challenge = f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    assert missing.status_code == 401 and challenge in missing.headers["www-authenticate"]
    assert 'scope="mcp:read"' in missing.headers["www-authenticate"]
    assert forged.status_code == 401 and 'error="invalid_token"' in forged.headers["www-authenticate"]


def test_the_documented_protected_server_runs_as_written(packages: dict[str, ModuleType]) -> None:
    (server,) = run_by("tests/test_auth_e2e.py", page("authorization.md"))
    namespace: dict[str, Any] = {}
    exec(compile(server, "docs/authorization.md server", "exec"), namespace)
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    call = {"name": "hello", "arguments": {}}
    with serve(namespace["app"]) as served, httpx.Client() as plain:
        refused = plain.post(served.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, headers=headers)
        authorized = {**headers, "authorization": "Bearer let-me-in"}
        opened = plain.post(served.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, headers=authorized)
        session = {**authorized, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        answer = plain.post(served.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=session)
    assert refused.status_code == 401 and 'scope="notes:read"' in refused.headers["www-authenticate"]
    assert answer.json()["result"]["content"][0]["text"] == "hello alice"
