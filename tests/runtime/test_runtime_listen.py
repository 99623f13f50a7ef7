"""The listen bridge of the runtime source (runtime/listen.py): a session surface serving stateless-era
listen requests with its subscribe handlers, and a stateless-era surface serving a session's resource
subscriptions with its listen handler."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

from wiring import V25, V26, Link, Recorder, meta, notification, request, run

STAMP = {"io.modelcontextprotocol/subscriptionId": 7}


def listen(request_id: int, notifications: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 `subscriptions/listen` request."""
    return request(
        "subscriptions/listen", {"_meta": meta(V26), "notifications": notifications}, request_id
    )


def test_a_session_surface_serves_a_listen_request_with_its_subscribe_handlers(
    surface25: ModuleType,
) -> None:
    """The listed URIs are subscribed, what is honoured acknowledged (list changes only where the
    capabilities declare them), and the stream carries, naming it, what it asked for: updates of the
    resources it watches or of resources under them, after the acknowledgement."""
    t = surface25.types
    calls: list[tuple[str, str]] = []

    class Watches(surface25.Server):
        capabilities = t.ServerCapabilities(
            resources=t.ServerCapabilitiesResources(subscribe=True),
            tools=t.ServerCapabilitiesTools(listChanged=True),
        )

        async def on_subscribe(self, params: Any) -> Any:
            calls.append(("subscribe", params.uri))
            await self.notify_resource_updated({"uri": params.uri})  # before the acknowledgement
            return t.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            calls.append(("unsubscribe", params.uri))
            return t.EmptyResult()

    server, channel = Watches(), Recorder()
    server.attach(channel)
    wanted = {
        "resourceSubscriptions": ["file:///a"],
        "toolsListChanged": True,
        "promptsListChanged": True,
    }

    async def scenario() -> Any:
        listening = asyncio.ensure_future(server.handle(listen(7, wanted)))
        await asyncio.sleep(0.05)
        await server.notify_tool_list_changed()
        await server.notify_prompt_list_changed()  # not honoured: no prompts capability
        for uri in ("file:///a", "file:///z", "file:///ab", "file:///a/part"):
            await server.notify_resource_updated({"uri": uri})
        await server.handle(notification("notifications/cancelled", {"requestId": 7}))
        return await listening

    assert run(scenario()) is None
    honoured = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}
    assert channel.sent == [
        ("notifications/subscriptions/acknowledged", {"_meta": STAMP, "notifications": honoured}),
        ("notifications/resources/updated", {"_meta": STAMP, "uri": "file:///a"}),
        ("notifications/tools/list_changed", {"_meta": STAMP}),
        ("notifications/resources/updated", {"_meta": STAMP, "uri": "file:///a"}),
        ("notifications/resources/updated", {"_meta": STAMP, "uri": "file:///a/part"}),
    ]
    assert calls == [("subscribe", "file:///a"), ("unsubscribe", "file:///a")]


def test_listen_streams_watching_one_uri_subscribe_it_once_and_unsubscribe_after_the_last(
    surface25: ModuleType,
) -> None:
    t = surface25.types
    calls: list[tuple[str, str]] = []

    class Watches(surface25.Server):
        async def on_subscribe(self, params: Any) -> Any:
            calls.append(("subscribe", params.uri))
            return t.EmptyResult()

        async def on_unsubscribe(self, params: Any) -> Any:
            calls.append(("unsubscribe", params.uri))
            return t.EmptyResult()

    server = Watches()
    server.attach(Recorder())

    async def scenario() -> list[tuple[str, str]]:
        first = asyncio.ensure_future(
            server.handle(listen(1, {"resourceSubscriptions": ["file:///x"]}))
        )
        second = asyncio.ensure_future(
            server.handle(listen(2, {"resourceSubscriptions": ["file:///x"]}))
        )
        await asyncio.sleep(0.05)
        await server.handle(notification("notifications/cancelled", {"requestId": 1}))
        await asyncio.sleep(0.05)
        while_watched = list(calls)
        await server.handle(notification("notifications/cancelled", {"requestId": 2}))
        await asyncio.gather(first, second)
        return while_watched

    assert run(scenario()) == [("subscribe", "file:///x")]
    assert calls == [("subscribe", "file:///x"), ("unsubscribe", "file:///x")]


def test_a_stateless_surface_serves_a_session_s_subscriptions_with_its_listen_handler(
    linked: dict[str, ModuleType],
) -> None:
    """The session's (un)subscribe requests are answered by the runtime, which runs the listen handler
    for the session's resources again at each change (ending the previous run); its notifications reach
    the client, except the acknowledgement 2025-11-25 lacks."""
    multi, v25 = linked["2024-11-05..2026-07-28"], linked[V25]
    filters: list[list[str]] = []
    ended: list[list[str]] = []

    class Watches(multi.Server):
        async def on_subscriptions_listen(self, params: Any) -> Any:
            uris = list(params.notifications.resource_subscriptions or [])
            filters.append(uris)
            await self.notify_subscriptions_acknowledged(
                {"notifications": {"resourceSubscriptions": uris}}
            )
            for uri in uris:
                await self.notify_resource_updated({"uri": uri})
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                ended.append(uris)
                raise

    updated: list[str] = []

    class Subscribes(v25.Client):
        async def on_resource_updated(self, params: Any) -> None:
            updated.append(params.uri)

    client, server = Subscribes(), Watches()
    link = Link(client, server, v25.ProtocolError, multi.ProtocolError)

    async def scenario() -> None:
        await client.start_session()
        for call, uri in [
            ("subscribe", "file:///a"),
            ("subscribe", "file:///b"),
            ("unsubscribe", "file:///a"),
        ]:
            await getattr(client, call)({"uri": uri})
            await asyncio.sleep(0.05)
        assert ended == [["file:///a"], ["file:///a", "file:///b"]]
        server.attach(None)  # the session's connection is gone: its last run ends now, not at exit
        await asyncio.sleep(0.05)
        assert ended == [["file:///a"], ["file:///a", "file:///b"], ["file:///b"]]

    run(scenario())
    assert filters == [["file:///a"], ["file:///a", "file:///b"], ["file:///b"]]
    assert updated == ["file:///a", "file:///a", "file:///b", "file:///b"]
    assert ended == filters
    assert "notifications/subscriptions/acknowledged" not in link.methods()
