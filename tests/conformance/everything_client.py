"""A client on a generated `Client` over `connect_http`, for the conformance suite's client scenarios.

Usage (by the suite): `python everything_client.py PACKAGE URL`, the scenario in `MCP_CONFORMANCE_SCENARIO`
and its data in `MCP_CONFORMANCE_CONTEXT`. Authorization is the package's `auth.OAuth`; this file only
plays the user agent that consents (it follows the authorization URL to its redirect).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from typing import Any

import httpx

PACKAGE = sys.argv[1]
mcp = importlib.import_module(PACKAGE)
http = importlib.import_module(f"{PACKAGE}.http")
auth = importlib.import_module(f"{PACKAGE}.auth")
runtime = importlib.import_module(f"{PACKAGE}.runtime")
types = mcp.types

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
"""The Client ID Metadata Document URL the suite's authorization servers accept as a client id."""
CALLS = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
}
"""Scenario → the tool calls it expects (others: the context's `toolCalls`, else every tool offered)."""
LISTING_ONLY = {"initialize", "request-metadata", "json-schema-ref-no-deref", "http-standard-headers"}


def defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The `default` of every property of a requested schema that has one."""
    properties = schema.get("properties") or {}
    return {name: spec["default"] for name, spec in properties.items() if isinstance(spec, dict) and "default" in spec}


def sample(schema: Any) -> dict[str, Any]:
    """Arguments filling each required property of a tool's input schema with a plain value of its type."""
    plain = {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    properties = schema.get("properties") or {} if isinstance(schema, dict) else {}
    required = schema.get("required") or [] if isinstance(schema, dict) else []
    return {name: plain.get((properties.get(name) or {}).get("type"), "x") for name in required}


class EverythingClient(mcp.Client):
    """Accepts elicitations with the schema's defaults and answers sampling with a fixed message."""

    name = "mcpgen-conformance-client"
    version = "1.0.0"
    discover_timeout = 60.0  # the suite plays its scenarios at once: a loaded machine answers slowly

    async def on_elicit(self, params: Any) -> Any:
        """Accept, filling in every default the requested schema declares."""
        schema = (runtime.dump(params) or {}).get("requestedSchema") or {}
        return types.ElicitResult.model_validate({"action": "accept", "content": defaults(schema)})

    async def on_create_message(self, params: Any) -> Any:
        """A fixed assistant message."""
        return types.CreateMessageResult.model_validate(
            {
                "role": "assistant",
                "content": {"type": "text", "text": "Paris"},
                "model": "fixed",
                "stopReason": "endTurn",
            }
        )


async def consent(authorization_url: str) -> str:
    """The user agent: follow the authorization URL to the redirect the authorization server answers."""
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(authorization_url)
    if "location" not in answer.headers:
        raise SystemExit(f"the authorization endpoint answered {answer.status_code} without a redirect")
    return answer.headers["location"]


def authorization(scenario: str, context: dict[str, Any]) -> Any:
    """The package's authorization for this scenario: on the client's own behalf for the client credentials
    and workload identity scenarios, by the user's enterprise identity for enterprise-managed authorization,
    else for a user; pre-registered credentials when the context gives some (bound to the context's issuer
    when it names one, else to the first authorization server they go to)."""
    credentials = (
        [
            auth.PreRegistered(
                context["client_id"],
                context.get("client_secret"),
                context.get("issuer"),
                private_key=context.get("private_key_pem"),
                signing_algorithm=context.get("signing_algorithm", "ES256"),
            )
        ]
        if "client_id" in context
        else []
    )

    async def given(key: str) -> str:
        return str(context[key])

    if scenario.startswith("auth/client-credentials"):
        return auth.ClientCredentials(credentials)
    if scenario == "auth/wif-jwt-bearer":
        return auth.JwtBearer(lambda: given("valid_jwt"), credentials)
    if scenario == "auth/enterprise-managed-authorization":
        idp = auth.PreRegistered(context["idp_client_id"], issuer=context["idp_issuer"])
        return auth.EnterpriseManaged(lambda: given("idp_id_token"), context["idp_token_endpoint"], idp, credentials)
    return auth.OAuth(
        consent,
        auth.ClientMetadata("http://localhost:3000/callback", "mcpgen-conformance-client"),
        client_metadata_url=CLIENT_METADATA_URL,
        credentials=credentials,
    )


async def host_skills(scenario: str, url: str) -> None:
    """The skills scenarios (SEP-2640): list the skills and stop (no prefetch), or load the first one, which
    verifies its SKILL.md against the listing (a mismatch raises `SkillVerificationError`: the process exits
    non-zero and reads nothing more), then read each supporting file it lists, verified too."""
    skills_host = importlib.import_module(f"{PACKAGE}.runtime.skills_host")
    client = EverythingClient()
    async with http.connect_http(client, url):
        await client.start_session()
        host = skills_host.SkillsHost(client)
        entries = await host.list()
        if scenario == "sep-2640-client-no-prefetch":
            return
        try:
            skill = await host.load(entries[0])
        except skills_host.SkillVerificationError as exc:
            raise SystemExit(f"refused skill: {exc}") from None
        for resource in skill.entry.resources:
            if resource.uri != skill.entry.uri:
                await host.read(skill, resource.uri)


async def run(scenario: str, url: str, context: dict[str, Any]) -> None:
    """Play one scenario against the suite's server at `url`."""
    if scenario.startswith("sep-2640-client-"):
        await host_skills(scenario, url)
        return
    client = EverythingClient()
    oauth = authorization(scenario, context) if scenario.startswith("auth/") else None
    async with http.connect_http(client, url, auth=oauth):
        await client.start_session()
        tools = (await client.list_tools()).tools
        if scenario in LISTING_ONLY:
            return
        calls = CALLS.get(scenario) or [(c["name"], c.get("arguments", {})) for c in context.get("toolCalls", [])]
        for name, arguments in calls or [(t.name, sample(runtime.dump(t.input_schema))) for t in tools]:
            await client.call_tool({"name": name, "arguments": arguments})


if __name__ == "__main__":
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    asyncio.run(run(os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize"), sys.argv[-1], context))
