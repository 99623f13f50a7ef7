"""Capabilities: derived from the overridden handlers or declared, announced in the initialize handshake."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .packages import Wire, run

INIT_PARAMS = {
    "protocolVersion": "2099-01-01",
    "capabilities": {},
    "clientInfo": {"name": "c", "version": "1"},
}


async def handler(self: Any, params: Any) -> Any:
    """A stand-in override: its presence is what counts."""
    raise NotImplementedError


def subclass(base: type, *handlers: str, **attributes: Any) -> Any:
    """An instance of a subclass of `base` overriding `handlers` and setting `attributes`."""
    return type("Custom", (base,), {**{name: handler for name in handlers}, **attributes})()


def announced(server: Any) -> Any:
    """The capabilities `server` answers initialize with."""
    reply = run(
        server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})
    )
    return reply["result"]["capabilities"]


@pytest.mark.parametrize(
    ("handlers", "expected"),
    [
        ((), {}),
        (("on_list_tools",), {"tools": {}}),
        (("on_call_tool",), {"tools": {}}),
        (("on_subscribe",), {"resources": {"subscribe": True}}),
        (("on_set_level",), {"logging": {}}),
        (("on_complete",), {"completions": {}}),
        (("on_ping",), {}),
        (
            ("on_list_tools", "on_call_tool", "on_subscribe", "on_set_level", "on_complete"),
            {"tools": {}, "resources": {"subscribe": True}, "logging": {}, "completions": {}},
        ),
    ],
)
def test_server_capabilities_follow_the_overridden_handlers(
    session_pkg: ModuleType, handlers: tuple, expected: dict
) -> None:
    assert announced(subclass(session_pkg.Server, *handlers)) == expected


@pytest.mark.parametrize(
    ("handlers", "expected"),
    [
        ((), {}),
        (("on_list_roots",), {"roots": {}}),
        (("on_elicit",), {"elicitation": {"create": {}}}),
        (("on_create_message",), {"sampling": {}}),
        (("on_progress", "on_ping"), {}),
    ],
)
def test_client_capabilities_follow_the_overridden_handlers(
    session_pkg: ModuleType, handlers: tuple, expected: dict
) -> None:
    client = subclass(session_pkg.Client, *handlers)
    assert (
        client.initialize_params().capabilities.model_dump(
            mode="json", by_alias=True, exclude_unset=True
        )
        == expected
    )


def test_derived_capabilities_are_the_typed_capability_models(session_pkg: ModuleType) -> None:
    types = session_pkg.types
    server = subclass(session_pkg.Server, "on_list_tools", "on_subscribe")
    derived = server.derived_capabilities()
    assert type(derived) is types.ServerCapabilities
    assert derived.resources is not None and derived.resources.subscribe is True
    client = subclass(session_pkg.Client, "on_list_roots").derived_capabilities()
    assert type(client) is types.ClientCapabilities and client.roots is not None


def test_declared_capabilities_win_over_derived_ones(session_pkg: ModuleType) -> None:
    types = session_pkg.types
    declared = types.ServerCapabilities(
        tools=types.ServerCapabilitiesTools(listChanged=True), experimental={"x": {}}
    )
    server = subclass(session_pkg.Server, "on_subscribe", capabilities=declared)
    assert announced(server) == {"tools": {"listChanged": True}, "experimental": {"x": {}}}
    client = subclass(
        session_pkg.Client, "on_list_roots", capabilities=types.ClientCapabilities(sampling={})
    )
    assert client.initialize_params().capabilities.model_dump(exclude_unset=True) == {
        "sampling": {}
    }


def test_the_handshake_announces_revision_identity_and_capabilities(
    session_pkg: ModuleType,
) -> None:
    server = subclass(
        session_pkg.Server,
        "on_list_tools",
        name="tiny",
        version="2.0",
        title="Tiny",
        instructions="Be brief.",
    )
    client = subclass(session_pkg.Client, "on_list_roots", name="cli", version="0.1")
    wire = Wire(session_pkg, client, server)
    answer = run(client.start_session())
    assert isinstance(answer, session_pkg.types.InitializeResult) and client.peer_info == answer
    assert answer.model_dump(mode="json", by_alias=True, exclude_unset=True) == {
        "protocolVersion": "2099-01-01",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "tiny", "version": "2.0", "title": "Tiny"},
        "instructions": "Be brief.",
    }
    sent = [(m["method"], m.get("params")) for m in wire.sent["client"]]
    assert sent == [
        (
            "initialize",
            {
                "protocolVersion": "2099-01-01",
                "capabilities": {"roots": {}},
                "clientInfo": {"name": "cli", "version": "0.1"},
            },
        ),
        ("notifications/initialized", None),
    ]
    assert server.peer_info.client_info.name == "cli"


def test_an_initialize_override_may_start_from_the_default_answer(session_pkg: ModuleType) -> None:
    class Custom(session_pkg.Server):  # type: ignore[misc,name-defined]
        name = "tiny"

        async def on_initialize(self, params: Any) -> Any:
            answer = await super().on_initialize(params)
            answer.instructions = "overridden"
            return answer

    reply = run(
        Custom().handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})
    )
    assert reply["result"] == {
        "protocolVersion": "2099-01-01",
        "capabilities": {},
        "serverInfo": {"name": "tiny", "version": "0.0.0"},
        "instructions": "overridden",
    }
