"""Resource updates fanned out to listen handlers (`runtime/fanout.py`): in one process, through a real
redis-server between fan-outs that stand for two worker processes, across a Redis restart, and a
session's `resources/subscribe` answered only once its listen handler hears updates.
"""

from __future__ import annotations

import asyncio
import sys
from types import ModuleType
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from functional.packages import run
from mcpgen.runtime.fanout import Fanout, RedisFanout, Watch
from redis_server import RedisServer, redis_server


async def heard(watch: Watch, count: int, timeout: float = 10) -> list[str]:
    """The next `count` URIs `watch` hears (failing after `timeout` seconds)."""
    return [await asyncio.wait_for(watch.__anext__(), timeout) for _ in range(count)]


def nothing_more(watch: Watch) -> bool:
    """Whether `watch` has nothing left to hear."""
    return not watch.pending


@pytest.fixture(scope="module")
def store() -> Iterator[RedisServer]:
    """A redis-server for this module's tests."""
    with redis_server() as server:
        yield server


def test_a_watch_hears_what_it_covers_in_publish_order_from_when_it_is_entered() -> None:
    fanout = Fanout()

    async def scenario() -> tuple[list[str], list[str]]:
        await fanout.publish("file:///a")  # nobody watches yet
        async with fanout.watch(["file:///a", "file:///dir/", "file:///a"]) as a, fanout.watch(
            ["file:///b"]
        ) as b:
            for uri in ("file:///a", "file:///ab", "file:///dir/x", "file:///b", "file:///a#part"):
                await fanout.publish(uri)
            got_a, got_b = await heard(a, 3), await heard(b, 1)
            assert nothing_more(a) and nothing_more(b)
        await fanout.publish("file:///a")  # the watches are gone
        assert not fanout.watches
        return got_a, got_b

    assert run(scenario()) == (["file:///a", "file:///dir/x", "file:///a#part"], ["file:///b"])


def test_a_listener_too_far_behind_hears_its_watched_uris_instead_of_the_backlog() -> None:
    fanout = Fanout()

    async def scenario() -> tuple[list[str], list[str]]:
        async with fanout.watch(["file:///d/", "file:///e"], limit=4) as slow:
            for uri in ("file:///d/1", "file:///e", "file:///d/1", "file:///d/2"):
                await fanout.publish(uri)
            first = await heard(slow, 4)
            assert nothing_more(slow)
            for n in range(10):  # more than the limit behind
                await fanout.publish(f"file:///d/{n}")
                assert len(slow.pending) <= 4 + 2
            rest = await heard(slow, len(slow.pending))
            assert nothing_more(slow)
        return first, rest

    first, rest = run(scenario())
    assert first == ["file:///d/1", "file:///e", "file:///d/1", "file:///d/2"], "within the limit: all"
    assert rest == ["file:///d/", "file:///e", "file:///d/8", "file:///d/9"]


def test_redis_carries_every_update_to_every_process_in_publish_order(store: RedisServer) -> None:
    """Two fan-outs stand for two workers: what one publishes, both hear, all of it and in order; the
    one that only publishes never subscribes."""

    async def scenario() -> None:
        a, b, c = (RedisFanout(store.url, channel="t:order") for _ in range(3))
        try:
            async with a.watch(["file:///doc/"]) as on_a, b.watch(["file:///doc/"]) as on_b:
                sent = [f"file:///doc/{n}" for n in range(50)]
                for uri in sent:
                    await c.publish(uri)
                await c.publish("file:///elsewhere")
                assert await heard(on_a, 50) == sent and await heard(on_b, 50) == sent
            assert c._reader is None
        finally:
            for fanout in (a, b, c):
                await fanout.aclose()

    run(scenario())


def test_after_a_redis_restart_every_watch_hears_its_resources_again_and_updates_flow(
    store: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Pub/sub keeps nothing, so what was published while the subscription was down is lost: every watch
    is told that each resource it watches may have changed. Publishing while Redis is down raises; once
    it is back, a publisher whose pooled connection Redis closed publishes without an error."""
    from redis.exceptions import ConnectionError as Unreachable

    async def scenario() -> None:
        listener = RedisFanout(store.url, channel="t:gap", retry=0.1)
        tried, quiet = (RedisFanout(store.url, channel="t:gap") for _ in range(2))
        try:
            async with listener.watch(["file:///a", "file:///b/"]) as watch:
                for publisher in (tried, quiet):
                    await publisher.publish("file:///a")
                assert await heard(watch, 2) == ["file:///a"] * 2
                store.stop()
                with pytest.raises(Unreachable):
                    await tried.publish("file:///b/lost")
                await asyncio.sleep(0.3)  # the listener notices and retries
                store.start()
                assert await heard(watch, 2, timeout=30) == ["file:///a", "file:///b/"]
                for publisher in (tried, quiet):
                    await publisher.publish("file:///b/after")
                assert await heard(watch, 2) == ["file:///b/after"] * 2
                assert nothing_more(watch)
        finally:
            for fanout in (listener, tried, quiet):
                await fanout.aclose()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    assert any("subscribing again" in r.getMessage() for r in caplog.records)


def test_a_watch_entered_while_redis_is_down_waits_until_it_is_subscribed(store: RedisServer) -> None:
    async def scenario() -> None:
        fanout = RedisFanout(store.url, channel="t:late", retry=0.1)
        store.stop()
        try:
            entering = asyncio.ensure_future(fanout.watch(["file:///a"]).__aenter__())
            await asyncio.sleep(0.5)
            assert not entering.done()
            store.start()
            watch = await asyncio.wait_for(entering, 30)
            await fanout.publish("file:///a")
            assert await heard(watch, 1) == ["file:///a"]
            await watch.__aexit__(None, None, None)
        finally:
            if store.process is None:
                store.start()
            await fanout.aclose()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_redis_fanout_imports_redis_only_when_it_connects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    fanout = RedisFanout("redis://127.0.0.1:1/0")
    with pytest.raises(ImportError, match="pip install redis"):
        run(fanout.publish("file:///a"))


def test_a_session_s_subscribe_is_answered_once_its_listen_handler_hears_updates(
    linked: dict[str, ModuleType],
) -> None:
    """A 2025-11-25 session of a 2026-07-28 surface: the subscribe is answered after the listen handler's
    acknowledgement, however long it takes to start listening, so an update published right after the
    answer is heard; when the subscriptions change, the new run listens before the old one stops."""
    pkg = linked["2024-11-05..2026-07-28"]
    fanout = Fanout()
    sent: list[tuple[str, Any]] = []

    class Watches(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            uris = list(params.notifications.resource_subscriptions or [])
            await asyncio.sleep(0.2)  # slow to start listening
            async with fanout.watch(uris) as watch:
                await self.notify_subscriptions_acknowledged(
                    {"notifications": {"resourceSubscriptions": uris}}
                )
                async for uri in watch:
                    await self.notify_resource_updated({"uri": uri})

    class Channel:
        async def request(self, method: str, params: Any) -> Any:
            raise AssertionError(method)

        async def notify(self, method: str, params: Any) -> None:
            sent.append((method, params))

    def subscribe(method: str, uri: str, request_id: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"uri": uri}}

    async def scenario() -> None:
        server = Watches()
        server.attach(Channel())
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        await server.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        assert (await server.handle(subscribe("resources/subscribe", "file:///a", 1)))["result"] == {}
        await fanout.publish("file:///a")
        assert (await server.handle(subscribe("resources/subscribe", "file:///b", 2)))["result"] == {}
        await fanout.publish("file:///b")
        assert (await server.handle(subscribe("resources/unsubscribe", "file:///a", 3)))["result"] == {}
        await fanout.publish("file:///a")
        await fanout.publish("file:///b")
        for _ in range(100):
            if len(sent) >= 3:
                break
            await asyncio.sleep(0.05)
        server.attach(None)

    run(scenario())
    assert sent == [("notifications/resources/updated", {"uri": u}) for u in ("file:///a", "file:///b", "file:///b")]
    assert not fanout.watches


URI_PARTS = st.sampled_from(["file:", "//", "/", "a", "b", "?", "#", "x/"])
URIS = st.lists(URI_PARTS, max_size=6).map("".join)


@settings(max_examples=300, deadline=None)
@given(watched=st.lists(st.lists(URIS, max_size=4), max_size=5), published=URIS)
def test_an_update_reaches_exactly_the_watches_covering_it(watched: list[list[str]], published: str) -> None:
    """Looked up by URI, an update goes where `covers` says, as a scan of every watch would send it."""
    from mcpgen.runtime.listen import covers

    fanout = Fanout()

    async def scenario() -> None:
        watches = [fanout.watch(uris) for uris in watched]
        for watch in watches:
            await watch.__aenter__()
        await fanout.publish(published)
        for watch, uris in zip(watches, watched):
            assert list(watch.pending) == ([published] if any(covers(u, published) for u in uris) else [])
        for watch in watches[::2]:
            await watch.__aexit__(None, None, None)
        await fanout.publish(published)
        for index, (watch, uris) in enumerate(zip(watches, watched)):
            times = (1 if index % 2 == 0 else 2) if any(covers(u, published) for u in uris) else 0
            assert list(watch.pending) == [published] * times  # a watch left hears nothing more
        for watch in watches[1::2]:
            await watch.__aexit__(None, None, None)
        assert not fanout.watches and not fanout._by_uri and not fanout._lengths

    run(scenario())


def test_an_update_costs_the_same_however_many_uris_one_listener_watches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A listener naming 100,000 URIs (one request's worth) does not make every other update scan them:
    an update looks up the watched URIs that could cover it, one per distinct length."""
    from mcpgen.runtime import fanout as module

    calls = [0]
    real = module.covers

    def counted(watched: str, uri: str) -> bool:
        calls[0] += 1
        return real(watched, uri)

    monkeypatch.setattr(module, "covers", counted)
    fanout = Fanout()

    async def scenario() -> list[str]:
        async with fanout.watch([f"file:///hog/{n:06d}" for n in range(100_000)]) as hog, fanout.watch(["file:///mine"]) as mine:
            await fanout.publish("file:///mine")
            await fanout.publish("file:///hog/000042")
            return [*mine.pending, *hog.pending]

    assert run(scenario()) == ["file:///mine", "file:///hog/000042"]
    assert calls[0] <= 4  # two distinct lengths watched, two updates


def test_a_session_s_subscriptions_through_the_bridge_are_bounded(linked: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each subscribe runs the listen handler again for all of a session's URIs: beyond the bound in
    count or in characters a subscribe is refused (-32602), and room made by an unsubscribe is usable."""
    import importlib

    pkg = linked["2024-11-05..2026-07-28"]
    listen = importlib.import_module(f"{pkg.__name__}.runtime.listen")
    monkeypatch.setattr(listen, "SUBSCRIBED", 3)
    monkeypatch.setattr(listen, "SUBSCRIBED_CHARS", 100)

    class Listens(pkg.Server):  # type: ignore[misc,name-defined]
        async def on_subscriptions_listen(self, params: Any) -> Any:
            uris = list(params.notifications.resource_subscriptions or [])
            await self.notify_subscriptions_acknowledged({"notifications": {"resourceSubscriptions": uris}})
            await asyncio.Event().wait()

    class Channel:
        async def request(self, method: str, params: Any) -> Any:
            raise AssertionError(method)

        async def notify(self, method: str, params: Any) -> None:
            pass

    async def scenario() -> list[Any]:
        server = Listens()
        server.attach(Channel())
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        await server.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        outcomes = []
        for request_id, (method, uri) in enumerate(
            [("subscribe", "file:///1"), ("subscribe", "file:///2"), ("subscribe", "file:///3"), ("subscribe", "file:///4"),
             ("unsubscribe", "file:///1"), ("subscribe", "file:///4"), ("unsubscribe", "file:///2"), ("subscribe", "file:///" + "x" * 80)],
            start=1,
        ):
            params = {"uri": uri}
            answer = await server.handle({"jsonrpc": "2.0", "id": request_id, "method": f"resources/{method}", "params": params})
            outcomes.append(answer.get("result", answer.get("error", {}).get("code")))
        server.attach(None)
        return outcomes

    assert run(scenario()) == [{}, {}, {}, -32602, {}, {}, {}, -32602]
