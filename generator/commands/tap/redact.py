"""Secrets never reach the log or stderr: credentials in messages, header values and relayed text are replaced."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"
SECRET_KEYS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "access_token", "refresh_token", "id_token", "client_secret"}
)
"""Object members (any case) whose values are credentials wherever they appear: every string in them."""
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_SCHEME = re.compile(r"(?i)\b(bearer|basic|dpop)(\s+)[A-Za-z0-9._~+/=-]{8,}")
_COOKIE = re.compile(r"(?i)\b((?:set-)?cookie:\s*)[^\r\n]*")
_MEMBER = re.compile(r'(?i)"(?:%s)"\s*:\s*' % "|".join(sorted(SECRET_KEYS)))
_STRING = re.compile(r'"(?:[^"\\]|\\.)*("?)', re.S)
_WORDS = ("bearer", "basic", "dpop", "cookie", "authorization", "_token", "client_secret")


def text(value: str) -> str:
    """`value` with credentials after an authorization scheme (`Bearer …`), cookie headers and the values of
    credential members in JSON text (whole or not) replaced."""
    lowered = value.lower()
    if not any(word in lowered for word in _WORDS):
        return value
    return _members(_COOKIE.sub(lambda m: m.group(1) + REDACTED, _SCHEME.sub(lambda m: m.group(1) + m.group(2) + REDACTED, value)))


def _members(value: str) -> str:
    """`value` with every string in the value of each credential member (`"access_token": ...`) replaced,
    read leniently: it may be JSON that is cut off or broken."""
    out: list[str] = []
    done = 0
    for found in _MEMBER.finditer(value):
        if found.start() < done:  # inside the value of the member before, already replaced
            continue
        at, depth = found.end(), 0
        while at < len(value):
            char = value[at]
            if char == '"':
                string = _STRING.match(value, at)
                assert string is not None
                out.append(value[done:at] + '"' + REDACTED + string.group(1))
                at = done = string.end()
                if depth == 0:
                    break
                continue
            at += 1
            depth += (char in "{[") - (char in "}]")
            if depth <= 0 and char not in " \t\r\n":
                break
    return "".join(out) + value[done:] if out else value


def message(value: Any, secret: bool = False) -> Any:
    """A JSON value with every credential in it replaced (a copy where anything changed; strings stay
    strings); `secret`: it is the value of a credential member, so every string in it is one."""
    if isinstance(value, str):
        return REDACTED if secret else text(value)
    if isinstance(value, list):
        items = [message(v, secret) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, dict):
        out = {k: message(v, secret or k.lower() in SECRET_KEYS) for k, v in value.items()}
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
