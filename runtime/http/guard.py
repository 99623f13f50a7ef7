"""DNS rebinding protection: which Host and Origin headers an HTTP server admits."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=64)
def refusal(
    hosts: tuple[str, ...] | None,
    origins: tuple[str, ...] | None,
    host: str | None,
    origin: str | None,
) -> str | None:
    """Why a request's Host and Origin are refused (403) by the allow-lists, None when they are admitted:
    DNS rebinding protection ("*" admits all; an entry without port admits that host on every port).

    Without lists, only what DNS rebinding cannot forge is admitted, wherever the server listens
    (a loopback, wildcard or public address, a Unix socket behind a proxy): IP literals and
    localhost, and Origins naming one of those. A server known by a DNS name lists it. Remembered:
    a client sends the same headers every time."""
    name = _host_name(host) if host is not None else None
    if name is None or (hosts is None and not _unrebindable(name)):
        return "Forbidden: Host not allowed"
    if hosts is not None and not _matches(host or "", hosts, name):
        return "Forbidden: Host not allowed"
    if origin is None or (origins is not None and "*" in origins):
        return None
    scheme, _, authority = origin.partition("://")
    where = _host_name(authority) if scheme.lower() in ("http", "https") else None
    if origins is not None:
        admitted = where is not None and _matches(origin, origins, f"{scheme.lower()}://{where}")
    elif hosts is not None and "*" not in hosts:
        admitted = where is not None and _matches(authority, hosts, where)
    else:
        admitted = hosts is not None or (where is not None and _unrebindable(where))
    return None if admitted else "Forbidden: Origin not allowed"


def _host_name(host: str) -> str | None:
    """The host of a Host header or URL authority, lower case, without its port ([::1] keeps its
    brackets); None when it is malformed (`[::1]evil.com`, an empty name, a port that is not a number).
    """
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        rest = host[end + 1 :] if end > 0 else "?"
        if rest and not (rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit()):
            return None
        return host[: end + 1]
    name, colon, port = host.rpartition(":")
    if colon and not (port.isascii() and port.isdigit()):
        return None
    name = name if colon else host
    return name if name and all(c.isalnum() or c in "-._" for c in name) else None


def _unrebindable(name: str) -> bool:
    """True for a host DNS rebinding cannot forge: an IP literal, or localhost (a browser's Host header
    names the DNS name it resolved, and an attacker's page can only reach this server through one).
    """
    return name == "localhost" or _ip_literal(name)


@lru_cache(maxsize=256)
def _ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _matches(value: str, allowed: Iterable[str], name: str) -> bool:
    """True when `value` is allowed: "*" admits all, an entry without port admits the host on any port."""
    value = value.strip().lower()
    return any(a == "*" or a.lower() == value or a.lower() == name for a in allowed)
