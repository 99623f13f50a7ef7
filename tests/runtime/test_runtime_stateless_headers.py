"""The stateless era's mirrored-header check (runtime/http/stateless.py `_check_headers`) for any set of
headers a client may send: a request is refused with 400 and the spec's header-mismatch error exactly
when its `_meta` version, `Mcp-Method`, `Mcp-Name` or an `Mcp-Param-*` header is missing, malformed
(`decode_header`'s rule) or disagrees with its body; otherwise it is answered."""

from __future__ import annotations

import asyncio
import importlib
import json
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from asgi import exchange, post_headers
from test_runtime_header_decode import oracle as decoded
from wiring import V26, meta, request, run

HEADER_MISMATCH = -32020
"""The 2026-07-28 schema's error code for mirrored headers that disagree with the body."""
ABSENT = None
NAMES = [ABSENT, "echo", "=?base64?ZWNobw==?=", "other", "ech\x7f", "\xe9cho"]
PARAMS = [ABSENT, "eu", "us", "=?base64?ZXU=?=", "e\x01u", " "]


def region_server(pkg: ModuleType, ttl: int = 0) -> type:
    """A server whose `echo` tool mirrors its `region` argument in an `Mcp-Param-Region` header (its
    tool list kept `ttl` ms)."""
    t = pkg.types

    class Region(pkg.Server):
        async def on_list_tools(self, params: Any) -> Any:
            schema = {
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            }
            listing = {"tools": [{"name": "echo", "inputSchema": schema}], "ttlMs": ttl}
            listing.update(cacheScope="private", resultType="complete")
            return t.ListToolsResult.model_validate(listing)

        async def on_call_tool(self, params: Any) -> Any:
            text = json.dumps(params.arguments, sort_keys=True)
            return t.CallToolResult(content=[t.TextContent(type="text", text=text)])

    return Region


CASES = st.fixed_dictionaries(
    {
        "claimed": st.sampled_from([V26, "2025-11-25"]),
        "method": st.sampled_from([ABSENT, "tools/call", "tools/list"]),
        "name": st.sampled_from(NAMES),
        "region": st.sampled_from([ABSENT, "eu", "us"]),
        "param": st.sampled_from(PARAMS),
        "other": st.sampled_from(PARAMS),
        "ttl": st.sampled_from([0, 60_000]),
    }
)


def refused(case: dict[str, Any]) -> bool:
    """Whether the spec's mirrored-header rules refuse the case (the body is always a `tools/call` of `echo`)."""
    if case["claimed"] != V26 or case["method"] != "tools/call":
        return True
    if case["name"] is None or decoded(case["name"]) != "echo":
        return True
    for header in (case["param"], case["other"]):
        if header is not None and decoded(header) is None:
            return True
    region = case["region"]
    return region is not None and (case["param"] is None or decoded(case["param"]) != region)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=CASES)
@example(
    case=dict(
        claimed=V26, method="tools/call", name="echo", region="eu", param=None, other=None, ttl=0
    )
)
@example(
    case=dict(
        claimed=V26, method="tools/call", name="echo", region="eu", param="us", other=None, ttl=0
    )
)
@example(
    case=dict(
        claimed=V26, method="tools/call", name="echo", region="eu", param="eu", other=None, ttl=0
    )
)
@example(
    case=dict(
        claimed=V26,
        method="tools/call",
        name="echo",
        region="eu",
        param="us",
        other=None,
        ttl=60_000,
    )
)
@example(
    case=dict(
        claimed=V26,
        method="tools/call",
        name="echo",
        region="eu",
        param="eu",
        other=None,
        ttl=60_000,
    )
)
def test_any_header_set_is_refused_exactly_when_the_mirroring_rules_say(
    v26: ModuleType, case: dict[str, Any]
) -> None:
    """Each combination of mirrored headers gets 400/-32020 when a rule refuses it, else the tool's answer;
    with a tool list the server lets be kept, the same again from the kept list (sent twice)."""
    http = importlib.import_module(f"{v26.__name__}.http")
    app = http.streamable_http_app(region_server(v26, case["ttl"]), keepalive=None)
    arguments = {} if case["region"] is None else {"region": case["region"]}
    params = {"name": "echo", "arguments": arguments, "_meta": meta(case["claimed"])}
    extra = {
        key: value
        for key, value in {
            "mcp-method": case["method"],
            "mcp-name": case["name"],
            "mcp-param-region": case["param"],
            "mcp-param-other": case["other"],
        }.items()
        if value is not None
    }
    body = json.dumps(request("tools/call", params, 7)).encode()
    for _ in range(2 if case["ttl"] else 1):
        answer = run(exchange(app, "POST", post_headers(None, V26, **extra), body))
        message = json.loads(answer.body)
        if refused(case):
            assert (answer.status, message["error"]["code"], message["id"]) == (
                400,
                HEADER_MISMATCH,
                7,
            )
        else:
            assert answer.status == 200, message
            assert json.loads(message["result"]["content"][0]["text"]) == arguments
