"""Where a client's authorization traffic may go: HTTPS only (plain HTTP to loopback only), and no
internal address (loopback, private, link-local, ...) unless the MCP server's URL names one itself or
the application allows them; a cloud metadata address never."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import AuthorizationError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
"""Cloud instance metadata services (AWS, GCP, Azure, OpenStack; AWS over IPv6; Alibaba Cloud):
credentials live there, so no authorization traffic ever goes to them."""
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _ip(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _loopback_name(host: str) -> bool:
    host = host.lower().rstrip(".")
    return host == "localhost" or host.endswith(".localhost")


def _unwrapped(address: Address) -> Address:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, NAT64), else the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def loopback(url: str) -> bool:
    """Whether `url`'s host is a loopback IP literal or a `localhost` name."""
    host = urlsplit(url).hostname or ""
    ip = _ip(host)
    return _loopback_name(host) if ip is None else _unwrapped(ip).is_loopback


def secure(url: str) -> bool:
    """Whether `url` may carry authorization traffic: `https`, or `http` to a loopback host."""
    scheme = urlsplit(url).scheme.lower()
    return scheme == "https" or (scheme == "http" and loopback(url))


async def addresses(url: str) -> list[Address]:
    """The addresses `url`'s host stands for: itself when an IP literal, loopback for `localhost`
    names, else what the resolver answers (none when it cannot resolve the name)."""
    return await resolve(urlsplit(url).hostname or "")


async def resolve(host: str) -> list[Address]:
    """The addresses `host` stands for (see `addresses`)."""
    ip = _ip(host)
    if ip is not None:
        return [_unwrapped(ip)]
    if _loopback_name(host):
        return [ipaddress.ip_address("127.0.0.1")]
    found: list[Address] = []
    with contextlib.suppress(OSError, UnicodeError, ValueError):
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        for info in infos:
            address = _ip(str(info[4][0]))
            if address is not None:
                found.append(_unwrapped(address))
    return found


def internal(address: Address) -> bool:
    """Whether `address` is not on the public internet (loopback, private, link-local, reserved...)."""
    return not address.is_global


@dataclass(frozen=True)
class Destinations:
    """What the authorization traffic for one MCP server may reach."""

    server_origin: str
    """The MCP server's own scheme and authority: its URLs are as safe to fetch as the server is."""
    private: bool
    """Whether internal addresses are allowed (the MCP server's URL names one, or the application
    said so)."""

    async def check(self, url: str, what: str, document: bool = False) -> None:
        """Refuse (AuthorizationError) sending `what` to `url` unless it is secure (a `document`
        fetched from the MCP server's own origin needs no more than the server itself) and either on
        the MCP server's origin or at an address allowed here."""
        own = _origin(url) == self.server_origin
        if not secure(url) and not (document and own):
            raise AuthorizationError(
                f"{what} {url!r} is neither https nor on a loopback address: refused"
            )
        if not own:
            self._refuse(await addresses(url), f"{what} {url!r}")

    def own(self, host: str, port: int) -> bool:
        """Whether a connection to `host`:`port` goes to the MCP server's own host and port."""
        server = urlsplit(self.server_origin)
        default = 443 if server.scheme == "https" else 80
        return (server.hostname or "") == host.lower().strip("[]") and (
            server.port or default
        ) == port

    async def pin(self, host: str, port: int) -> str:
        """The address a connection to `host`:`port` goes to, checked when the connection is made
        (a name that resolved to a public address for `check` and resolves to an internal one now
        is refused: DNS rebinding); the host itself for the MCP server's own host and port."""
        if self.own(host, port):
            return host
        found = await resolve(host)
        if not found:
            raise AuthorizationError(f"{host!r} does not resolve: refused")
        self._refuse(found, f"a connection to {host!r}")
        return str(found[0])

    def _refuse(self, found: list[Address], what: str) -> None:
        for address in found:
            if address in METADATA_ADDRESSES:
                raise AuthorizationError(f"{what} is a cloud metadata address: refused")
            if internal(address) and not self.private:
                raise AuthorizationError(
                    f"{what} is at the internal address {address}: refused (an MCP "
                    "server on the public internet cannot send its client into a private "
                    "network; allow_private_network=True allows it on purpose)"
                )


def destinations(server_url: str, allow_private_network: bool) -> Destinations:
    """The destinations allowed for the MCP server at `server_url`: internal addresses too when the
    application allows them or the URL itself names one (an IP literal, a `localhost` name: local
    development), never because of what a DNS name resolves to (its owner decides that)."""
    host = urlsplit(server_url).hostname or ""
    ip = _ip(host)
    named = _loopback_name(host) if ip is None else internal(_unwrapped(ip))
    return Destinations(_origin(server_url), allow_private_network or named)
