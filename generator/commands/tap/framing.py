"""Cutting relayed bytes into messages: stdio lines and SSE events, each bounded in size."""

from __future__ import annotations

MAX_MESSAGE = 16 * 1024 * 1024
"""The longest message judged, in bytes; a longer one is relayed, reported and neither judged nor logged."""


class Lines:
    """Splits a byte stream into lines; a line longer than the limit is given as its length alone."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._skipping = 0  # bytes of an overlong line seen so far
        self._resync = False  # bytes were lost: the line under way is not whole

    def feed(self, data: bytes) -> list[tuple[bytes | None, int]]:
        """The lines `data` completes, each (bytes without the newline, or None when too long; its length)."""
        out: list[tuple[bytes | None, int]] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            if end < 0:
                self._hold(piece)
                return out
            start = end + 1
            if self._resync:
                self._resync = False
                self._buffer.clear()
                self._skipping = 0
            elif self._skipping:
                out.append((None, self._skipping + len(piece)))
                self._skipping = 0
            elif len(self._buffer) + len(piece) > self.limit:
                out.append((None, len(self._buffer) + len(piece)))
                self._buffer.clear()
            elif self._buffer:
                self._buffer += piece
                out.append((bytes(self._buffer), len(self._buffer)))
                self._buffer.clear()
            else:
                out.append((piece, len(piece)))

    def _hold(self, piece: bytes) -> None:
        if self._resync:
            return
        if self._skipping:
            self._skipping += len(piece)
        elif len(self._buffer) + len(piece) > self.limit:
            self._skipping = len(self._buffer) + len(piece)
            self._buffer.clear()
        else:
            self._buffer += piece

    def lost(self) -> None:
        """Bytes of the stream were not seen: drop the line under way, and start again after the next newline."""
        self._buffer.clear()
        self._skipping = 0
        self._resync = True

    def rest(self) -> tuple[bytes | None, int] | None:
        """What remains after the stream ended without a final newline."""
        if self._resync or not (self._buffer or self._skipping):
            return None
        out = (None, self._skipping) if self._skipping else (bytes(self._buffer), len(self._buffer))
        self._buffer.clear()
        self._skipping = 0
        return out


class Events:
    """Splits a `text/event-stream` body into the data of its events (None for one over the limit)."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self._lines = Lines(limit)
        self._data: list[bytes] = []
        self._size = 0
        self._too_long = False
        self.limit = limit

    def feed(self, chunk: bytes) -> list[tuple[bytes | None, int]]:
        """The events `chunk` completes: (their data joined by newlines, or None when too long; its length)."""
        out: list[tuple[bytes | None, int]] = []
        for line, length in self._lines.feed(chunk):
            if line is None:
                self._too_long = True
                self._size += length
                continue
            line = line[:-1] if line.endswith(b"\r") else line
            if not line:
                if self._data or self._too_long:
                    out.append((None if self._too_long else b"\n".join(self._data), self._size))
                self._data, self._size, self._too_long = [], 0, False
                continue
            field, _, value = line.partition(b":")
            if field != b"data":
                continue
            value = value[1:] if value.startswith(b" ") else value
            self._size += len(value)
            if self._size > self.limit:
                self._too_long, self._data = True, []
            elif not self._too_long:
                self._data.append(value)
        return out
