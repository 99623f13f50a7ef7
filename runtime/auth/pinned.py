"""An `httpx.AsyncClient` for authorization traffic whose connections go only to addresses checked
when each connection is made, so a name cannot resolve to a public address for the check and to an
internal one for the connection (DNS rebinding). httpx and httpcore are imported when used."""

from __future__ import annotations

import importlib
from typing import Any

from .destinations import Destinations


class _PinnedBackend:
    """httpcore's network backend, connecting each TCP connection to the address `allowed` pins."""

    def __init__(self, allowed: Destinations, inner: Any) -> None:
        self.allowed = allowed
        self.inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        """A connection to the checked address of `host` (TLS still names `host`)."""
        address = await self.allowed.pin(host, port)
        return await self.inner.connect_tcp(
            address,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> Any:
        """Refused: authorization traffic goes over TCP only."""
        raise importlib.import_module("httpcore").ConnectError("no Unix sockets for authorization")

    async def sleep(self, seconds: float) -> None:
        """The inner backend's sleep."""
        await self.inner.sleep(seconds)


def pinned_client(allowed: Destinations, timeout: float) -> Any:
    """An `httpx.AsyncClient` whose connections go only where `allowed` lets them, checked at connect
    time; proxies from the environment are still honoured (the proxy resolves the name then)."""
    httpx: Any = importlib.import_module("httpx")
    httpcore: Any = importlib.import_module("httpcore")
    transport = httpx.AsyncHTTPTransport()
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(
            "this httpx cannot pin connections: authorization refuses to run unpinned"
        )
    pool._network_backend = _PinnedBackend(allowed, httpcore.AnyIOBackend())
    return httpx.AsyncClient(transport=transport, timeout=timeout)
