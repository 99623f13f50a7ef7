"""The `--log` capture: one JSON line per relayed message, `{"dir", "msg"|"raw", "ts"}`, that `mcpgen validate` reads."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ...messages.wire import Message, record


def timestamp(wall: float) -> str:
    """An RFC 3339 UTC timestamp with microseconds."""
    return datetime.fromtimestamp(wall, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Capture:
    """The capture file, written as messages pass (flushed by the judge's clock and at the end)."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("w", encoding="utf-8")
        self.failed: str | None = None

    def write(self, direction: str, message: Message | None, text: str, wall: float, session: str | None) -> None:
        """Add one relayed message (its text when it is not JSON)."""
        if self.failed is not None:
            return
        try:
            self._file.write(record(direction, message, text, timestamp(wall), session) + "\n")
        except (OSError, ValueError) as exc:
            self.failed = str(exc)

    def flush(self) -> None:
        """Push what is written to the file."""
        if self.failed is None:
            try:
                self._file.flush()
            except OSError as exc:
                self.failed = str(exc)

    def close(self) -> None:
        """Flush and close the file."""
        self.flush()
        try:
            self._file.close()
        except OSError:
            pass
