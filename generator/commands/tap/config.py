"""What `mcpgen tap` is asked to do: the peers to stand between, and how to judge and report."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...errors import McpgenError
from ...inputs.pins import KNOWN_REVISIONS
from .redact import REDACTED

DEFAULT_TIMEOUT = 60.0


class TapError(McpgenError):
    """The tap cannot start, or a peer made it stop: one line, exit 2."""


def shown_url(url: str) -> str:
    """`url` as the tap prints it: the password and the query in it replaced."""
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{user.partition(':')[0]}:{REDACTED}@{host}" if parts.password is not None else parts.netloc
    return parts._replace(netloc=netloc, query=REDACTED if parts.query else "").geturl()


@dataclass(frozen=True)
class TapConfig:
    """A tap: over stdio (`command`, the server to start) or over Streamable HTTP (`upstream` and `listen`)."""

    command: tuple[str, ...] = ()
    upstream: str | None = None
    listen: str | None = None
    revision: str | None = None
    log: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    """Seconds a request may wait for its response, and a peer may leave written bytes unread (0: never)."""
    format: str = "text"
    color: bool = False
    schema_dir: Path | None = None

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.upstream or self.listen):
            raise TapError("give either -- COMMAND [ARG...] (stdio) or --upstream URL --listen HOST:PORT (Streamable HTTP)")
        if self.upstream is not None or self.listen is not None:
            if self.upstream is None or self.listen is None:
                raise TapError("--upstream and --listen go together")
            parts = urlsplit(self.upstream)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise TapError(f"--upstream {shown_url(self.upstream)!r} is not an http:// or https:// URL")
            if parts.query or parts.fragment or self.upstream.endswith(("?", "#")):
                raise TapError(f"--upstream {shown_url(self.upstream)!r}: leave out the query and fragment (the tap relays each request's own query)")
            self.address  # noqa: B018 (checks HOST:PORT)
        if self.revision is not None and self.revision not in KNOWN_REVISIONS:
            raise TapError(f"--revision {self.revision!r} is not a known revision ({', '.join(KNOWN_REVISIONS)})")
        if self.timeout < 0:
            raise TapError("--timeout must be 0 (never) or more seconds")
        if self.format not in ("text", "json"):
            raise TapError(f"--format {self.format!r}: text or json")

    @property
    def address(self) -> tuple[str, int]:
        """--listen as (host, port); `[::1]:8000` for IPv6."""
        assert self.listen is not None
        host, colon, port = self.listen.rpartition(":")
        if not colon or not port.isdigit() or not host or int(port) > 65535:
            raise TapError(f"--listen {self.listen!r} is not HOST:PORT (e.g. 127.0.0.1:8765, or port 0 for any free one)")
        return host.strip("[]"), int(port)

    @property
    def path(self) -> str:
        """The path of the upstream MCP endpoint (the one the tap serves and judges)."""
        return urlsplit(self.upstream or "").path or "/"

    def to_json(self) -> str:
        """The configuration as JSON (how the judging process is told it)."""
        fields: dict[str, Any] = asdict(self)
        fields.update(command=list(self.command), log=None if self.log is None else str(self.log))
        fields["schema_dir"] = None if self.schema_dir is None else str(self.schema_dir)
        return json.dumps(fields)

    @classmethod
    def from_json(cls, text: str) -> TapConfig:
        """The configuration `to_json` wrote."""
        fields = json.loads(text)
        fields["command"] = tuple(fields["command"])
        fields["log"] = None if fields["log"] is None else Path(fields["log"])
        fields["schema_dir"] = None if fields["schema_dir"] is None else Path(fields["schema_dir"])
        return cls(**fields)
