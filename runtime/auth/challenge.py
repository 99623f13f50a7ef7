"""`WWW-Authenticate` challenges (RFC 9110 §11.6.1): parsed on the client, written on the server."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_PARAM = re.compile(rf'\s*({_TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|({_TOKEN}))\s*(?:,|$)', re.ASCII)
_SCHEME = re.compile(rf"[\s,]*({_TOKEN})(?:\s+|$|(?=,))", re.ASCII)


@dataclass(frozen=True)
class Challenge:
    """One challenge: its auth scheme and parameters (names in lower case)."""

    scheme: str
    params: Mapping[str, str] = field(default_factory=dict)

    @property
    def scopes(self) -> tuple[str, ...]:
        """The scopes of the `scope` parameter (none when it is absent)."""
        return tuple(self.params.get("scope", "").split())


def parse_challenges(values: Iterable[str]) -> list[Challenge]:
    """Every challenge of the given `WWW-Authenticate` field values (token68 forms are skipped)."""
    found: list[Challenge] = []
    for value in values:
        at = 0
        while (scheme := _SCHEME.match(value, at)) is not None:
            at = scheme.end()
            params: dict[str, str] = {}
            while (param := _PARAM.match(value, at)) is not None:
                name, quoted, bare = param.groups()
                params[name.lower()] = (
                    re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
                )
                at = param.end()
            found.append(Challenge(scheme.group(1), params))
    return found


def oauth_challenge(values: Iterable[str]) -> Challenge | None:
    """The first `Bearer` or `DPoP` (RFC 9449 §7.1) challenge among `values`, if any."""
    found = parse_challenges(values)
    return next((c for c in found if c.scheme.lower() in ("bearer", "dpop")), None)


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_challenge(params: Mapping[str, str | None], scheme: str = "Bearer") -> str:
    """A challenge of `scheme` with `params` (those set to None left out) as quoted strings."""
    pairs = ", ".join(
        f"{name}={_quoted(value)}" for name, value in params.items() if value is not None
    )
    return f"{scheme} {pairs}" if pairs else scheme
