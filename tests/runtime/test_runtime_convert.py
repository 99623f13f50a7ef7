"""Conversion between revisions by the runtime source (runtime/convert.py): what a result gets filled in
and left out, what is dropped or refused, and what is read from a peer."""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

import pytest

from mcpgen.runtime.convert import dump
from wiring import V25, meta, request, run, started


def test_dump_writes_wire_names_and_only_what_was_set(multi: ModuleType) -> None:
    t = multi.types
    result = t.CallToolResult(content=[t.TextContent(text="x")], isError=True)
    assert dump(result) == {
        "content": [{"type": "text", "text": "x"}],
        "isError": True,
        "resultType": "complete",
    }


def test_a_required_field_the_session_s_revision_has_is_filled_in_every_item(
    multi: ModuleType,
) -> None:
    """2025-11-25 requires `type: object` on every output schema; 2026-07-28 does not."""
    t = multi.types

    class Tools(multi.Server):
        async def on_list_tools(self, params: Any) -> Any:
            schema = {"properties": {"n": {"type": "number"}}}
            tools = [
                t.Tool(name=name, inputSchema={"type": "object"}, outputSchema=schema)
                for name in ("a", "b")
            ]
            return t.ListToolsResult(
                tools=tools, resultType="complete", ttlMs=0, cacheScope="public"
            )

    server = started(Tools(), V25)
    result = run(server.handle(request("tools/list")))["result"]
    assert [tool["outputSchema"]["type"] for tool in result["tools"]] == ["object", "object"]
    assert set(result) == {"tools"}


def test_results_for_a_newer_revision_get_its_documented_values_never_over_the_handler_s(
    surface25: ModuleType,
) -> None:
    t = surface25.types

    def server(listed: Any, **attributes: Any) -> Any:
        async def on_list_tools(self: Any, params: Any) -> Any:
            return listed

        return type("Tools", (surface25.Server,), {"on_list_tools": on_list_tools, **attributes})()

    stateless = request("tools/list", {"_meta": meta()})
    plain, own = t.ListToolsResult(tools=[]), t.ListToolsResult(tools=[], ttlMs=5)
    answers = [
        run(server(plain).handle(stateless))["result"],
        run(server(plain, result_defaults={"ttlMs": 60000}).handle(stateless))["result"],
        run(server(own).handle(stateless))["result"],
        run(server(own, result_defaults={"ttlMs": 60000}).handle(stateless))["result"],
    ]
    assert answers[0] == {
        "tools": [],
        "resultType": "complete",
        "cacheScope": "private",
        "ttlMs": 0,
    }
    assert [answer["ttlMs"] for answer in answers] == [0, 60000, 5, 5]


def audio_server(multi: ModuleType, blocks: list[Any], **attributes: Any) -> Any:
    async def on_call_tool(self: Any, params: Any) -> Any:
        return multi.types.CallToolResult(content=blocks, resultType="complete")

    return type("Audio", (multi.Server,), {"on_call_tool": on_call_tool, **attributes})()


def test_what_an_older_revision_cannot_represent_is_dropped_item_by_item(
    multi: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    t = multi.types
    audio = t.AudioContent(data="AA==", mimeType="a/b")
    blocks = [audio, audio, t.TextContent(text="kept"), audio]
    server = started(audio_server(multi, blocks), "2024-11-05")
    with caplog.at_level(logging.WARNING):
        result = run(server.handle(request("tools/call", {"name": "t"})))["result"]
    assert result == {"content": [{"type": "text", "text": "kept"}]}
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 3


def test_the_strict_policy_refuses_what_it_would_drop(
    multi: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    t = multi.types
    blocks = [t.TextContent(text="t"), t.AudioContent(data="AA==", mimeType="a/b")]
    server = started(audio_server(multi, blocks, conversion_policy="strict"), "2024-11-05")
    reply = run(server.handle(request("tools/call", {"name": "t"})))
    assert reply["error"] == {"code": -32603, "message": "Internal error"}
    assert "cannot represent /content/1" in caplog.text


def test_a_peer_s_invalid_message_is_refused_not_repaired(linked: dict[str, ModuleType]) -> None:
    """Only newer content (a union member, an enum value its revision lacks) is dropped; an optional
    field of the wrong type is the peer's error."""
    v25 = linked[V25]
    received = []

    class Samples(v25.Client):
        async def on_create_message(self, params: Any) -> Any:
            received.append(params)
            return v25.types.CreateMessageResult(
                role="assistant", content=v25.types.TextContent(text="ok"), model="m"
            )

    text = {"role": "user", "content": {"type": "text", "text": "hi"}}
    params = {"messages": [text], "maxTokens": 5, "systemPrompt": 5}
    reply = run(Samples().handle(request("sampling/createMessage", params)))
    assert reply["error"]["code"] == -32602 and received == []
