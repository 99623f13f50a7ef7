"""Secrets never reach the log or stderr: credentials in messages, header values and relayed text are replaced."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"
SECRET_KEYS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "access_token", "refresh_token", "id_token", "client_secret"}
)
"""Object members (any case) whose string values are credentials wherever they appear."""
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_SCHEME = re.compile(r"(?i)\b(bearer|basic|dpop)(\s+)[A-Za-z0-9._~+/=-]{8,}")
_COOKIE = re.compile(r"(?i)\b((?:set-)?cookie:\s*)[^\r\n]*")


def text(value: str) -> str:
    """`value` with credentials after an authorization scheme (`Bearer …`) and cookie headers replaced."""
    if not any(word in value.lower() for word in ("bearer", "basic", "dpop", "cookie")):
        return value
    return _COOKIE.sub(lambda m: m.group(1) + REDACTED, _SCHEME.sub(lambda m: m.group(1) + m.group(2) + REDACTED, value))


def message(value: Any) -> Any:
    """A JSON value with every credential in it replaced (a copy where anything changed; strings stay strings)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        items = [message(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, dict):
        out = {k: (REDACTED if isinstance(v, str) and k.lower() in SECRET_KEYS else message(v)) for k, v in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    return value


def headers(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """HTTP headers by lower-case name (repeated ones joined by `, `), credentials replaced."""
    out: dict[str, str] = {}
    for name, value in pairs:
        name = name.lower()
        value = REDACTED if name in SECRET_HEADERS else text(value)
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out
